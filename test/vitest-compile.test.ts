// The Vitest plugin's builds: buildHarnessAsync runs the same build steps as buildHarness
// without blocking the event loop (Vite's main thread), and fails the same way.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { BuildError } from '../src/compile/errors.js';
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
