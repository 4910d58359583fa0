// Where weft's own files are, whether it runs from src/ (tests) or from dist/.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'weft') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('weft: cannot find its package root');
    dir = parent;
  }
}

export const packageRoot = findPackageRoot();
export const includeDir = join(packageRoot, 'include');
/** the runtime linked into every harness, its internal names made local (scripts/link-runtime.mjs) */
export const runtimeObject = join(packageRoot, 'build', 'Release', 'weft_runtime.o');
export const addonPath = join(packageRoot, 'build', 'Release', 'weft.node');
/** the weft command as installed: package.json's bin (the bundled CLI) */
export const cliPath = join(packageRoot, (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { bin: { weft: string } }).bin.weft);
