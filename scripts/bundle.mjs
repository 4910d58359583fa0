// The weft command and the Vitest runtime as bundles (dist/src/bundle), each loaded by a
// process that used to load weft's forty-odd modules one by one, a third of a small check's
// time. The command is ES modules: shared code is shared chunks, and the explorer and the
// renderer stay chunks of their own, loaded only when a test is explored or fails. The
// Vitest runtime is one CommonJS script (with its content hash beside it) that
// src/vitest/runtime-loader.ts compiles with V8's code cache, in every worker. The
// package's API (dist/src/index.js) stays unbundled.
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'src');
const outdir = join(dist, 'bundle');
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // class names stay: errors are shown and matched by them
  keepNames: true,
  // a CommonJS package that requires Node's own modules: loaded by Node, not inlined
  external: ['picocolors'],
  logLevel: 'warning',
};
rmSync(outdir, { recursive: true, force: true });
await build({ ...common, entryPoints: { cli: join(dist, 'cli', 'main.js') }, outdir, splitting: true, format: 'esm' });

const runtime = join(outdir, 'vitest-runtime.cjs');
// the loader passes the bundle's own URL as __weftUrl
await build({ ...common, entryPoints: [join(dist, 'vitest', 'runtime.js')], outfile: runtime, format: 'cjs', define: { 'import.meta.url': '__weftUrl' } });
writeFileSync(`${runtime}.json`, JSON.stringify({ sha256: createHash('sha256').update(readFileSync(runtime)).digest('hex') }));
