// The build cache: a harness is rebuilt only when a source, an included header, the
// flags, the compiler or the runtime changed. An entry is keyed by everything known
// before compiling; its manifest lists the headers the compiler reported (-MD) with
// their content hashes, checked on every lookup.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export interface Manifest {
  library: string; // file name inside the entry directory
  dependencies: { path: string; hash: string }[];
}

export function hashText(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex');
}

export function hashFile(path: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return undefined;
  }
}

/** node_modules/.cache/weft of the nearest project, else the system temp directory. */
export function defaultCacheDirectory(from = process.cwd()): string {
  if (process.env.WEFT_CACHE_DIR) return resolve(process.env.WEFT_CACHE_DIR);
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules'))) return join(dir, 'node_modules', '.cache', 'weft');
    if (dirname(dir) === dir) return join(tmpdir(), `weft-cache-${process.getuid?.() ?? 'user'}`);
  }
}

export function readManifest(entry: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(join(entry, 'manifest.json'), 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

/** The cached library if every dependency still has the hash it was built with. */
export function lookup(entry: string): string | undefined {
  const manifest = readManifest(entry);
  if (!manifest) return undefined;
  const library = join(entry, manifest.library);
  if (!existsSync(library)) return undefined;
  for (const dependency of manifest.dependencies) if (hashFile(dependency.path) !== dependency.hash) return undefined;
  return library;
}

/** Written last and atomically: a concurrent reader sees the old manifest or the new one. */
export function store(entry: string, manifest: Manifest): void {
  mkdirSync(entry, { recursive: true });
  const temporary = join(entry, `manifest.json.${process.pid}`);
  writeFileSync(temporary, JSON.stringify(manifest, null, 1));
  renameSync(temporary, join(entry, 'manifest.json'));
}
