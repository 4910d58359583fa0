// The build cache can be damaged, swapped, shared with another user or written by several
// processes at once: none of it may crash a check or make it run the wrong code.
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { defaultCacheDirectory } from '../../src/compile/cache.js';
import { buildHarness } from '../../src/compile/compile.js';
import { BuildError } from '../../src/compile/errors.js';
import { packageRoot } from '../../src/paths.js';
import { fixture, removeAfterAll, runCli } from '../support/harness.js';

function freshCache(): string {
  const dir = mkdtempSync(join(tmpdir(), 'weft-cache-test-'));
  removeAfterAll(dir);
  return join(dir, 'cache');
}

const lostUpdate = fixture('lost_update.c');
const lockedCounter = fixture('locked_counter.c');

/** The verdict of a fresh `weft check` process (libraries this process loaded stay mapped as they were). */
function verdict(file: string, cache: string): string {
  const run = runCli(['check', file, '--json'], packageRoot, { WEFT_CACHE_DIR: cache });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout).tests.map((test: { status: string }) => test.status).join();
}

/** Replaces a file's content as a damaged cache would have it (a new file: mappings of the old one stay valid). */
function replaceContent(path: string, content: Buffer): void {
  writeFileSync(`${path}.damaged`, content);
  renameSync(`${path}.damaged`, path);
}

describe('a damaged cache entry is rebuilt, never loaded', () => {
  it.each([
    ['truncated to half', (bytes: Buffer) => bytes.subarray(0, bytes.length >> 1)],
    ['emptied', () => Buffer.alloc(0)],
  ])('a library %s', (_, damage) => {
    const cache = freshCache();
    const { library } = buildHarness(lostUpdate, { cacheDirectory: cache });
    replaceContent(library, damage(readFileSync(library)));
    expect(verdict(lostUpdate, cache)).toBe('fail');
    expect(buildHarness(lostUpdate, { cacheDirectory: cache }).cached).toBe(true);
  });

  it('a manifest of the wrong shape', () => {
    const cache = freshCache();
    const { library } = buildHarness(lostUpdate, { cacheDirectory: cache });
    writeFileSync(join(library, '..', 'manifest.json'), JSON.stringify({ library: 42, dependencies: 'none' }));
    expect(buildHarness(lostUpdate, { cacheDirectory: cache }).cached).toBe(false);
  });

  it("another harness's library swapped in", () => {
    const cache = freshCache();
    const lost = buildHarness(lostUpdate, { cacheDirectory: cache });
    const locked = buildHarness(lockedCounter, { cacheDirectory: cache });
    replaceContent(locked.library, readFileSync(lost.library));
    expect(verdict(lockedCounter, cache)).toBe('pass');
  });
});

describe("the folders weft creates in its cache are the owner's only (0700, as XDG asks)", () => {
  it('the cache, its missing parents and every folder a fresh process writes in it', () => {
    const cache = join(freshCache(), 'parent', 'cache');
    expect(verdict(lostUpdate, cache)).toBe('fail');
    const folders = [join(cache, '..'), ...readdirSync(cache, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isDirectory()).map((entry) => join(entry.parentPath, entry.name)), cache];
    // the compiler's memo and the build's entry at least
    expect(folders.length).toBeGreaterThanOrEqual(4);
    for (const folder of folders) expect({ folder, mode: (statSync(folder).mode & 0o777).toString(8) }).toEqual({ folder, mode: '700' });
  });
});

describe('a cache directory other users can write is refused', () => {
  it('owned by another user', () => {
    const cache = freshCache();
    mkdirSync(cache);
    chownSync(cache, 65534, 65534);
    expect(() => buildHarness(lostUpdate, { cacheDirectory: cache })).toThrow(/belongs to another user/);
  });

  it('writable by everyone', () => {
    const cache = freshCache();
    mkdirSync(cache);
    chmodSync(cache, 0o777);
    expect(() => buildHarness(lostUpdate, { cacheDirectory: cache })).toThrow(BuildError);
  });

  it("without node_modules around, the default is the user's own cache, never a shared temp path", () => {
    const outside = mkdtempSync(join(tmpdir(), 'weft-no-project-'));
    removeAfterAll(outside);
    const expected = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'weft');
    expect(defaultCacheDirectory(outside)).toBe(expected);
    expect(expected.startsWith(tmpdir())).toBe(false);
  });
});

describe('six checks of one file started together on a cold cache', () => {
  it('all build and all report the same bug', async () => {
    const cache = freshCache();
    const runs = await Promise.all(Array.from({ length: 6 }, () => new Promise<{ status: number; stdout: string; stderr: string }>((done) => {
      const child = spawn(process.execPath, [join(packageRoot, 'dist', 'src', 'cli', 'main.js'), 'check', lostUpdate, '--json'], {
        env: { ...process.env, WEFT_CACHE_DIR: cache, NO_COLOR: '1' },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
      child.on('close', (status) => done({ status: status ?? -1, stdout, stderr }));
    })));
    for (const run of runs) {
      expect(run.stderr).toBe('');
      expect(run.status).toBe(1);
      expect(JSON.parse(run.stdout).tests[0].bug.kind).toBe('race');
    }
    // one entry (beside the compiler's remembered version and the stamp of the last tidying), no temporary files left behind
    const entries = readdirSync(cache).filter((name) => name !== 'compilers' && name !== 'pruned');
    expect(entries).toHaveLength(1);
    expect(readdirSync(join(cache, 'compilers')).filter((name) => name.includes('.'))).toEqual([]);
    expect(readdirSync(join(cache, entries[0]!)).filter((name) => !name.endsWith('.so') && name !== 'manifest.json')).toEqual([]);
  });
});

describe('unusable input is one line and exit 2', () => {
  it('a directory given as the C file', () => {
    const run = runCli(['check', packageRoot]);
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^weft: not a C file: .* is a directory/)]);
  });

  it('a cache directory that cannot be created', () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-cache-test-'));
    removeAfterAll(dir);
    writeFileSync(join(dir, 'file'), '');
    const run = runCli(['check', lostUpdate], packageRoot, { WEFT_CACHE_DIR: join(dir, 'file', 'cache') });
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^weft: cannot write weft's build cache/)]);
  });
});
