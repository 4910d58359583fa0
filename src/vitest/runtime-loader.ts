// What the modules the plugin generates for C test files load in a Vitest worker once a test
// must run (a pass remembered for the same build needs none of it: reuse.ts): the
// Vitest runtime (runtime.ts and everything a test may need: explorer, renderer) as one
// script (scripts/bundle.mjs), compiled with V8's code cache. Vitest starts a fresh worker
// for every file and every watch-mode rerun, so each would compile weft's code anew;
// with the cache it is deserialized instead, the functions a test ran already compiled.
//
// The cache is code: it is kept in weft's cache directory (private to its user, checked by
// the plugin) under the bundle's content hash and V8's version and flags, and a file anyone
// else owns or may write is not used. V8 rejects data it cannot use; the script then
// compiles as usual, and the worker writes the cache after its tests.
import { lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cachedDataVersionTag } from 'node:v8';
import { Script } from 'node:vm';

import { PRIVATE_DIRECTORY_MODE, ownedByAnotherUser, writableByOthers } from '../compile/ownership.js';
import { writeWhole } from '../compile/write-whole.js';

type Runtime = typeof import('./runtime.js');

const bundleDirectory = fileURLToPath(new URL('../bundle/', import.meta.url));
const bundle = join(bundleDirectory, 'vitest-runtime.cjs');

/**
 * The code caches of the bundle: `full` written by a worker that showed a counterexample (the
 * explorer and the renderer compiled), `partial` by one that did not. A worker
 * that compiled more than the cache it loaded had writes the fuller one, once.
 */
type Extent = 'full' | 'partial';

/** writes this worker's code cache as the given extent (set by loadRuntime) */
let unsaved: ((extent: Extent) => void) | undefined;
/** the extent of the cache the worker's runtime was compiled from (undefined: none, or V8 rejected it) */
let loaded: Extent | undefined;

/** the runtime, once per process: a worker that runs several C files (Vitest's isolate: false) shares one */
let runtime: Promise<Runtime> | undefined;

/** The runtime: the bundle through the code cache under `cacheDirectory`, else (no bundle: weft's own sources) its module. */
export function loadRuntime(cacheDirectory: string): Promise<Runtime> {
  runtime ??= compileRuntime(cacheDirectory);
  return runtime;
}

async function compileRuntime(cacheDirectory: string): Promise<Runtime> {
  let source: string;
  let identity: { sha256: string };
  try {
    source = readFileSync(bundle, 'utf8');
    identity = JSON.parse(readFileSync(`${bundle}.json`, 'utf8')) as { sha256: string };
  } catch {
    return import('./runtime.js');
  }
  const cacheFile = (extent: Extent) =>
    join(cacheDirectory, 'code-cache', `vitest-runtime-${identity.sha256.slice(0, 32)}-${cachedDataVersionTag()}-${extent}.bin`);
  loaded = 'full';
  let cachedData = ownCache(cacheFile('full'));
  if (!cachedData) {
    loaded = 'partial';
    cachedData = ownCache(cacheFile('partial'));
  }
  // the bundle as a CommonJS module; import.meta.url (paths.ts, the addon's loader) is the bundle's own URL
  const script = new Script(`(function (exports, require, module, __filename, __dirname, __weftUrl) {${source}\n})`, {
    filename: bundle,
    ...(cachedData ? { cachedData } : {}),
  });
  const module = { exports: {} as Runtime };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, bundleDirectory, pathToFileURL(bundle).href);
  if (!cachedData || script.cachedDataRejected) loaded = undefined;
  unsaved = (extent) => {
    try {
      mkdirSync(dirname(cacheFile(extent)), { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
      writeWhole(cacheFile(extent), script.createCachedData());
      removeStale(dirname(cacheFile(extent)));
    } catch {} // a worker that cannot write it compiled as before
  };
  return module.exports;
}

/**
 * After a file's tests (Vitest kills its workers: there is no exit to do it at), with whether
 * the worker showed a counterexample: writes the code cache if this worker compiled more than
 * the one it loaded.
 */
export function saveCodeCache(counterexampleShown: boolean): void {
  const extent: Extent = counterexampleShown ? 'full' : 'partial';
  if (loaded === 'full' || (loaded === 'partial' && extent === 'partial')) return;
  unsaved?.(extent);
  loaded = extent;
}

/** Caches are written once: one not written for this long is of a weft or Node no longer used (or is written again). */
const STALE_MS = 30 * 24 * 60 * 60 * 1000;

/** Removes the code caches written more than STALE_MS ago. */
function removeStale(directory: string): void {
  const now = Date.now();
  for (const name of readdirSync(directory)) {
    const file = join(directory, name);
    if (now - statSync(file).mtimeMs > STALE_MS) rmSync(file, { force: true });
  }
}

/** The cached data in `file`, if this user owns it and no one else may write it (nor its directory). */
function ownCache(file: string): Buffer | undefined {
  try {
    for (const path of [dirname(file), file]) {
      const status = lstatSync(path);
      if (ownedByAnotherUser(status) || writableByOthers(status)) return undefined;
    }
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
