// The Vitest runtime (dist/src/vitest/runtime.js and what it imports) as a few bundled
// files: every C test file starts a fresh Vitest worker, and loading weft's forty-odd
// modules one by one was a third of such a worker's own work. The explorer and the
// renderer stay separate chunks, loaded only when a test is explored or fails.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'src', 'vitest');
const outdir = join(dist, 'bundle');
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { runtime: join(dist, 'runtime.js') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // class names stay: errors are shown and matched by them
  keepNames: true,
  // a CommonJS package that requires Node's own modules: loaded by Node, not inlined
  external: ['picocolors'],
  logLevel: 'warning',
});
