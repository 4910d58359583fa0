// Compiles scripts/generate-op-table.c against runtime/ops.h and writes its output
// to src/addon/op-table.ts (run before tsc: npm's prepare and build scripts).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'weft-op-table-'));
try {
  const program = join(work, 'generate-op-table');
  execFileSync(process.env.CC ?? 'cc', ['-std=gnu11', '-Wall', '-Werror', '-o', program, join(root, 'scripts', 'generate-op-table.c')], { stdio: 'inherit' });
  const table = execFileSync(program, { encoding: 'utf8' });
  const target = join(root, 'src', 'addon', 'op-table.ts');
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {}
  if (current !== table) writeFileSync(target, table);
} finally {
  rmSync(work, { recursive: true, force: true });
}
