// The Vitest plugin's builds: buildHarnessAsync runs the same build steps as buildHarness
// without blocking the event loop (Vite's main thread), and fails the same way.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { BuildError } from '../src/compile/errors.js';
import { buildElsewhere, stopBuilder } from '../src/compile/build-process.js';
import { buildHarness, buildHarnessAsync } from '../src/compile/compile.js';
import { fixture, removeAfterAll } from './support/harness.js';

const freshCache = () => {
  const dir = mkdtempSync(join(tmpdir(), 'weft-async-build-'));
  removeAfterAll(dir);
  return dir;
};

describe('buildHarnessAsync', () => {
  it('compiles without blocking the event loop, to the library the blocking build finds in the cache', async () => {
    const cacheDirectory = freshCache();
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const compiled: string[] = [];
    const started = performance.now();
    const built = await Promise.all(['locked_counter.c', 'lost_update.c', 'deadlock_two_locks.c'].map((name) =>
      buildHarnessAsync(fixture(name), { cacheDirectory }, { onCompile: () => compiled.push(name) })));
    const elapsed = performance.now() - started;
    clearInterval(timer);
    expect(compiled.sort()).toEqual(['deadlock_two_locks.c', 'locked_counter.c', 'lost_update.c']);
    expect(built.every((harness) => !harness.cached)).toBe(true);
    // a blocking build would let no timer run until it returned
    expect(ticks).toBeGreaterThan(elapsed / 5 / 4);
    const again = buildHarness(fixture('lost_update.c'), { cacheDirectory });
    expect(again.cached).toBe(true);
    expect(again.hash).toBe(built[1]!.hash);
    expect(again.dependencies).toEqual(built[1]!.dependencies);
  });

  it('reports a compile error with its location, like the blocking build', async () => {
    const cacheDirectory = freshCache();
    const failure = await buildHarnessAsync(fixture('core/compile_error.c'), { cacheDirectory }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BuildError);
    let blocking: unknown;
    try {
      buildHarness(fixture('core/compile_error.c'), { cacheDirectory });
    } catch (error) {
      blocking = error;
    }
    expect((failure as BuildError).message).toBe((blocking as BuildError).message);
    expect((failure as BuildError).location?.line).toBeGreaterThan(0);
  });
});

describe('the builder process (the plugin builds there: a fork of it is cheap, of Vite is not)', () => {
  it('builds into the cache the blocking build reads, says when it compiles, and answers a failed build with nothing', async () => {
    const cacheDirectory = freshCache();
    let compiling = 0;
    const built = await buildElsewhere(fixture('lost_update.c'), { cacheDirectory }, { onCompile: () => compiling++ });
    expect(compiling).toBe(1);
    const again = buildHarness(fixture('lost_update.c'), { cacheDirectory });
    expect(again.cached).toBe(true);
    expect(built?.dependencies).toEqual(again.dependencies);
    expect(await buildElsewhere(fixture('core/compile_error.c'), { cacheDirectory })).toBeUndefined();
  });

  it('finishes here the builds of a builder that is gone', async () => {
    const cacheDirectory = freshCache();
    const building = buildElsewhere(fixture('locked_counter.c'), { cacheDirectory });
    stopBuilder();
    const built = await building;
    expect(built?.dependencies).toContain(fixture('locked_counter.c'));
    expect(buildHarness(fixture('locked_counter.c'), { cacheDirectory }).cached).toBe(true);
    // and a new builder serves the next build
    expect(await buildElsewhere(fixture('lost_update.c'), { cacheDirectory })).toBeDefined();
    stopBuilder();
  });
});
