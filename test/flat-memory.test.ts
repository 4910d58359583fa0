// Strategies keep memory flat: what they store for the next bound is capped, and past the
// cap they recompute it. The recomputed search must explore exactly what the stored one does.
import { describe, expect, it } from 'vitest';

import { buildHarness } from '../src/compile/compile.js';
import { DfsStrategy } from '../src/explore/dfs.js';
import { drive } from '../src/explore/driver.js';
import type { Strategy } from '../src/explore/strategy.js';
import { borrowHarness, returnHarness } from '../src/addon/harness-pool.js';
import { fixture } from './support/harness.js';

async function countsPerBound(file: string, cflags: string, makeStrategy: (maxBound: number) => Strategy) {
  const library = buildHarness(fixture(file), { cflags }).library;
  const harness = borrowHarness(library);
  try {
    const counts: number[] = [];
    for (let maxBound = 0; maxBound <= 3; maxBound++) {
      const run = await drive(harness, makeStrategy(maxBound), {
        test: 0, maxBound, maxExecutions: Number.POSITIVE_INFINITY, timeBudgetMs: Number.POSITIVE_INFINITY, maxSteps: 10_000,
        mode: 0, flags: 0, nondetDomain: new Float64Array([0, 1]), visible: new Float64Array(0),
      });
      expect(run.failure).toBeUndefined();
      counts.push(run.executions);
    }
    return counts;
  } finally {
    returnHarness(library, harness);
  }
}

describe('dfs keeps at most a fixed number of prefixes for the next bound', () => {
  it('walking again from the root past the cap counts exactly the executions the stored prefixes give', async () => {
    const stored = await countsPerBound('por/locked_increments.c', '-DTHREADS=3 -DINCREMENTS=2', (maxBound) =>
      new DfsStrategy({ maxBound }));
    const recomputed = await countsPerBound('por/locked_increments.c', '-DTHREADS=3 -DINCREMENTS=2', (maxBound) =>
      new DfsStrategy({ maxBound }, 1));
    expect(recomputed).toEqual(stored);
    expect(stored[3]).toBeGreaterThan(stored[2]!);
  });
});
