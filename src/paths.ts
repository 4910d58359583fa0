// Where weft's own files are, whether it runs from src/ (tests) or from dist/.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Manifest {
  name: string;
  bin: { weft: string };
}

function findPackage(): { root: string; manifest: Manifest } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    const manifest = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Manifest) : undefined;
    if (manifest?.name === 'weft') return { root: dir, manifest };
    const parent = dirname(dir);
    if (parent === dir) throw new Error('weft: cannot find its package root');
    dir = parent;
  }
}

const weftPackage = findPackage();
export const packageRoot = weftPackage.root;
export const includeDir = join(packageRoot, 'include');
/** the runtime linked into every harness, its internal names made local (scripts/link-runtime.mjs) */
export const runtimeObject = join(packageRoot, 'build', 'Release', 'weft_runtime.o');
export const addonPath = join(packageRoot, 'build', 'Release', 'weft.node');
/** the weft command as installed: package.json's bin (the bundled CLI) */
export const cliPath = join(packageRoot, weftPackage.manifest.bin.weft);
/** a worker process of a parallel search (explore/parallel.ts): compiled, as every process forked runs it, tests included */
export const parallelWorkerPath = join(packageRoot, 'dist', 'src', 'explore', 'parallel-worker.js');
/** The first test `weft example` prints and `weft init` writes, with the Vitest config it needs. */
export const firstTestDir = join(packageRoot, 'examples', 'first-test');
