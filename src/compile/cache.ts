// The build cache: a harness is rebuilt only when a source, an included header, the
// flags, the compiler or the runtime changed. An entry is keyed by everything known
// before compiling; its manifest lists the headers the compiler reported (-MD) with
// their content hashes, checked on every lookup, and the library's own hash, checked
// before it is loaded: a truncated, emptied or swapped library is rebuilt, never run.
//
// Entries are written by several processes at once (Vitest's workers): everything is
// written under a unique temporary name and renamed into place, so a reader sees a whole
// file or none. The cache directory is private to its user: a directory another user
// could write is refused, since whoever can write it chooses the code a check runs.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

import { BuildError } from './errors.js';
import { stampOf, statusOf, unchangedSince } from './stamps.js';
import { PRIVATE_DIRECTORY_MODE, ownedByAnotherUser, writableByOthers } from './ownership.js';
import { writeWhole } from './write-whole.js';

export interface Manifest {
  library: string; // file name inside the entry directory
  libraryHash: string;
  /** BuiltHarness.identity */
  identity: string;
  dependencies: { path: string; hash: string }[];
}

export function hashText(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex');
}

/** Hashes of files, by path, with the stamp they were read at. */
const settledHashes = new Map<string, { stamp: string; hash: string }>();

/**
 * The SHA-256 of a file's content; undefined if it cannot be read. A build is looked up
 * several times per test (listing, each test, its check): a file unchanged since it was
 * last hashed in this process, by its settled stamp, is not read again.
 */
export function hashFile(path: string): string | undefined {
  const stamped = stampOf(path);
  if (!stamped) return undefined;
  const known = settledHashes.get(path);
  if (known?.stamp === stamped.stamp) return known.hash;
  try {
    const hash = createHash('sha256').update(readFileSync(path)).digest('hex');
    if (stamped.settled) settledHashes.set(path, { stamp: stamped.stamp, hash });
    return hash;
  } catch {
    return undefined;
  }
}

/**
 * A moment on the file system's own clock, the one its change times come from (the kernel's
 * coarse clock: a file changed just after Date.now() can carry an earlier time than it).
 */
export function fileClockNow(directory: string): bigint {
  const marker = join(directory, `clock-${randomBytes(6).toString('hex')}`);
  writeFileSync(marker, '');
  try {
    return statSync(marker, { bigint: true }).ctimeNs;
  } finally {
    rmSync(marker, { force: true });
  }
}

/**
 * The hash of a file as a build that started at `started` (fileClockNow) read it: undefined
 * when the file changed at that moment or after, so that what is hashed now may not be what
 * the compiler read. Hashed first, then checked: a change between the two is seen.
 */
export function hashAsRead(path: string, started: bigint): string | undefined {
  const hash = hashFile(path);
  const status = statusOf(path);
  return status && unchangedSince(status, started) ? hash : undefined;
}

/**
 * WEFT_CACHE_DIR; else node_modules/.cache/weft of the nearest project; else the user's
 * own cache directory ($XDG_CACHE_HOME/weft or ~/.cache/weft) — never a shared, predictable
 * path such as one under /tmp.
 */
export function defaultCacheDirectory(from = process.cwd()): string {
  if (process.env.WEFT_CACHE_DIR) return resolve(process.env.WEFT_CACHE_DIR);
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules'))) return join(dir, 'node_modules', '.cache', 'weft');
    if (dirname(dir) === dir) break;
  }
  return join(process.env.XDG_CACHE_HOME ? resolve(process.env.XDG_CACHE_HOME) : join(homedir(), '.cache'), 'weft');
}

/** Creates the cache directory (mode 0700) or checks that only its owner, this user, can write it. */
export function openCacheDirectory(directory: string): void {
  try {
    mkdirSync(directory, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  } catch (error) {
    throw cacheError(directory, error);
  }
  const status = lstatSync(directory);
  if (!status.isDirectory()) throw new BuildError('cache', `weft's build cache ${directory} is not a directory`);
  if (ownedByAnotherUser(status))
    throw new BuildError('cache', `weft's build cache ${directory} belongs to another user (uid ${status.uid}): refusing to load code from it; set WEFT_CACHE_DIR to a directory of your own`);
  if (writableByOthers(status))
    throw new BuildError('cache', `weft's build cache ${directory} is writable by other users: refusing to load code from it; chmod go-w it or set WEFT_CACHE_DIR`);
}

export function cacheError(directory: string, error: unknown): BuildError {
  const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
  return new BuildError('cache', `cannot write weft's build cache in ${directory} (${reason}); set WEFT_CACHE_DIR to a writable directory`);
}

function isManifest(value: unknown): value is Manifest {
  const manifest = value as Manifest;
  return typeof value === 'object' && value !== null && typeof manifest.library === 'string' && /^[\w.-]+\.so$/.test(manifest.library) &&
    typeof manifest.libraryHash === 'string' && typeof manifest.identity === 'string' && Array.isArray(manifest.dependencies) &&
    manifest.dependencies.every((dependency) => typeof dependency?.path === 'string' && typeof dependency.hash === 'string');
}

export function readManifest(entry: string): Manifest | undefined {
  try {
    const manifest: unknown = JSON.parse(readFileSync(join(entry, 'manifest.json'), 'utf8'));
    return isManifest(manifest) ? manifest : undefined;
  } catch {
    return undefined;
  }
}

/** The cached library if it is whole and every dependency still has the hash it was built with. */
export function lookup(entry: string): { library: string; manifest: Manifest } | undefined {
  const manifest = readManifest(entry);
  if (!manifest) return undefined;
  const library = join(entry, manifest.library);
  if (hashFile(library) !== manifest.libraryHash) return undefined;
  for (const dependency of manifest.dependencies) if (hashFile(dependency.path) !== dependency.hash) return undefined;
  markUsed(entry);
  return { library, manifest };
}

/** Moves a finished file into place under `name`: readers see the old file or the whole new one. */
export function publish(file: string, directory: string, name: string): string {
  const target = join(directory, name);
  renameSync(file, target);
  return target;
}

/** Written last, whole: the entry is complete once its manifest is there. */
export function store(entry: string, manifest: Manifest): void {
  writeWhole(join(entry, 'manifest.json'), JSON.stringify(manifest, null, 1));
}

/** How often a process that compiles looks through the cache for what no build uses any more. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;
/** A library the manifest no longer names may still be about to be loaded by a check that looked it up. */
const REPLACED_KEPT_MS = 10 * 60 * 1000;
/** A build that crashed leaves its work directory. */
const WORK_KEPT_MS = 24 * 60 * 60 * 1000;
/** An entry no lookup has found for this long (its file was deleted or moved, its flags changed) goes. */
const UNUSED_KEPT_MS = 30 * 24 * 60 * 60 * 1000;
/** A lookup marks its entry as used (the manifest's modification time) at most this often. */
const USE_MARKED_EVERY_MS = 24 * 60 * 60 * 1000;
const ENTRY = /^[0-9a-f]{32}$/;

/** Marks an entry as used now, so that pruneCache keeps it; once a day at most, since it writes. */
export function markUsed(entry: string): void {
  const manifest = join(entry, 'manifest.json');
  try {
    if (Date.now() - statSync(manifest).mtimeMs > USE_MARKED_EVERY_MS) utimesSync(manifest, new Date(), new Date());
  } catch {} // only a hint: an entry not marked is rebuilt if it is pruned
}

/**
 * Keeps the cache from growing with every edit: each save of a file builds a new library
 * beside the old ones in its entry. Once an hour at most (the first process to see that
 * an hour has passed claims the pass), removes the libraries an entry's manifest no longer
 * names, work directories of crashed builds, and entries unused for 30 days.
 */
export function pruneCache(directory: string, now = Date.now()): void {
  const stamp = join(directory, 'pruned');
  try {
    if (now - statSync(stamp).mtimeMs < PRUNE_EVERY_MS) return;
  } catch {}
  try {
    writeFileSync(stamp, '');
    for (const name of readdirSync(directory)) if (ENTRY.test(name)) pruneEntry(join(directory, name), now);
  } catch {} // pruning is housekeeping: a cache it cannot tidy still works
}

function pruneEntry(entry: string, now: number): void {
  const age = (path: string) => now - lstatSync(path).mtimeMs;
  const manifest = readManifest(entry);
  // no manifest: a build in progress, or one that never finished
  const unused = manifest ? age(join(entry, 'manifest.json')) > UNUSED_KEPT_MS : age(entry) > WORK_KEPT_MS;
  if (!manifest || unused) {
    if (unused) rmSync(entry, { recursive: true, force: true });
    return;
  }
  const current = new Set([manifest.library, ...KEPT_BESIDE.map((suffix) => `${manifest.library}${suffix}`)]);
  for (const name of readdirSync(entry)) {
    const path = join(entry, name);
    const replaced = (name.endsWith('.so') || KEPT_BESIDE.some((suffix) => name.endsWith(`.so${suffix}`))) && !current.has(name);
    if ((replaced && age(path) > REPLACED_KEPT_MS) || (name.startsWith('work-') && age(path) > WORK_KEPT_MS)) rmSync(path, { recursive: true, force: true });
  }
}

/** A test a harness library declares, where its WEFT_TEST is. */
export interface LibraryTest {
  name: string;
  line: number;
}

/**
 * Files kept beside a library, whose name hashes its content, so that what they say of it
 * never changes: the tests it declares, and what readelf lists of it (debug-data.ts).
 */
const KEPT_BESIDE = ['.tests.json', '.debug.v8'];

const testsFile = (library: string) => `${library}.tests.json`;
export const listingFile = (library: string) => `${library}.debug.v8`;

/** The tests a library declares, if a process that loaded it wrote them down. */
export function libraryTests(library: string): LibraryTest[] | undefined {
  try {
    const tests: unknown = JSON.parse(readFileSync(testsFile(library), 'utf8'));
    return Array.isArray(tests) && tests.every((test) => typeof test?.name === 'string' && Number.isInteger(test.line)) ? tests : undefined;
  } catch {
    return undefined;
  }
}

/** Written whole: a reader sees the list or none. */
export function recordLibraryTests(library: string, tests: readonly LibraryTest[]): void {
  try {
    writeWhole(testsFile(library), JSON.stringify(tests));
  } catch {
    // a list not written is read from the library next time
  }
}
