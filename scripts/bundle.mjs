// The weft command and the Vitest runtime as bundles (dist/src/bundle): each starts a
// process (or a Vitest worker per C test file) that used to load weft's forty-odd modules
// one by one, a third of a small check's time. Shared code is shared chunks, and the
// explorer and the renderer stay chunks of their own, loaded only when a test is explored
// or fails. The package's API (dist/src/index.js) stays unbundled.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'src');
const outdir = join(dist, 'bundle');
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { cli: join(dist, 'cli', 'main.js'), 'vitest-runtime': join(dist, 'vitest', 'runtime.js') },
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
