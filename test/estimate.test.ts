// A bound's size estimated before it runs (Knuth's estimator, src/explore/estimate.ts): near
// what dfs then runs there, and invisible to the search (its probes change nothing it explores).
import { describe, expect, it } from 'vitest';

import { buildHarness } from '../src/compile/compile.js';
import { borrowHarness, returnHarness } from '../src/addon/harness-pool.js';
import type { NativeHarness } from '../src/addon/addon.js';
import { RunFlags } from '../src/addon/addon.js';
import { type DriveOptions, drive } from '../src/explore/driver.js';
import { DfsStrategy } from '../src/explore/dfs.js';
import { BoundEstimator } from '../src/explore/estimate.js';
import { createStrategy } from '../src/explore/strategies.js';
import { type BoundKind, type ExecutionView, type Schedule, type Strategy, decisionAt } from '../src/explore/strategy.js';
import { fixture, runCli, unwrapped } from './support/harness.js';

const runOptions = (kind: BoundKind): Omit<DriveOptions, 'maxBound'> => ({
  test: 0, maxExecutions: Number.POSITIVE_INFINITY, timeBudgetMs: Number.POSITIVE_INFINITY, maxSteps: 50_000, mode: 0,
  flags: kind === 'delay' ? RunFlags.ROUND_ROBIN : 0, nondetDomain: Float64Array.of(0, 1), visible: new Float64Array(0),
});

async function withFixture<T>(name: string, cflags: string, use: (harness: NativeHarness) => Promise<T>): Promise<T> {
  const library = buildHarness(fixture(name), { cflags }).library;
  const harness = borrowHarness(library);
  try {
    return await use(harness);
  } finally {
    returnHarness(library, harness);
  }
}

describe("Knuth's estimate of a bound", () => {
  it.each([
    ['seeds/nonblocking_queue_fixed.c', '', 'preemption'],
    ['por/locked_increments.c', '', 'preemption'],
    ['por/locked_increments.c', '', 'delay'],
  ] as const)('%s %s, %s bounding: within a factor of 1.5 of what dfs runs at bounds 0-3', async (name, cflags, kind) => {
    await withFixture(name, cflags, async (harness) => {
      // every probe, however long they take: the same estimate every time
      const estimator = new BoundEstimator(harness, runOptions(kind), kind, { probes: 256, ms: Number.POSITIVE_INFINITY });
      let before = 0;
      for (let bound = 0; bound <= 3; bound++) {
        const estimate = estimator.estimate(bound);
        const ran = (await drive(harness, new DfsStrategy({ maxBound: bound, bound: kind }), { ...runOptions(kind), maxBound: bound })).executions - before;
        before += ran;
        expect(estimate.probes).toBe(256);
        expect(estimate.executions / ran, `bound ${bound}: ${estimate.executions} estimated, ${ran} ran`).toBeGreaterThan(1 / 1.5);
        expect(estimate.executions / ran, `bound ${bound}: ${estimate.executions} estimated, ${ran} ran`).toBeLessThan(1.5);
      }
    });
  });
});

/** Each counted execution's decisions, in the order the search ran them. */
class Recorder implements Strategy {
  readonly name = 'recorder';
  readonly bounded = true;
  readonly runs: string[] = [];
  constructor(private readonly inner: Strategy) {}
  beginBound(bound: number): boolean {
    this.runs.push(`bound ${bound}`);
    return this.inner.beginBound(bound);
  }
  next(): Schedule | undefined {
    return this.inner.next();
  }
  observe(execution: ExecutionView): boolean {
    const counted = this.inner.observe(execution);
    this.runs.push(`${counted ? '' : 'redundant '}${Array.from({ length: execution.steps }, (_, step) => decisionAt(execution, step)).join('.')}`);
    return counted;
  }
  beyondMaxBound(): boolean {
    return this.inner.beyondMaxBound();
  }
}

describe('the probes change nothing the search explores', () => {
  it.each([
    ['dfs', 'seeds/nonblocking_queue_fixed.c'], ['bpor', 'seeds/nonblocking_queue_fixed.c'], ['hbcache', 'por/locked_increments.c'],
    ['dfs', 'seeds/nonblocking_queue.c'], ['bpor', 'seeds/nonblocking_queue.c'], ['bpor', 'lost_update.c'],
  ])('%s on %s: the same runs, in the same order, with the same result', async (strategy, name) => {
    await withFixture(name, '', async (harness) => {
      const explore = async (estimated: boolean) => {
        const recorder = new Recorder(createStrategy(strategy, { maxBound: 3 }));
        const estimator = new BoundEstimator(harness, runOptions('preemption'), 'preemption');
        const estimates: number[] = [];
        const exploration = await drive(harness, recorder, {
          ...runOptions('preemption'), maxBound: 3,
          ...(estimated ? { onBoundStart: (bound: number) => estimates.push(estimator.estimate(bound).bound) } : {}),
        });
        const { elapsedMs: _, failure, ...counts } = exploration;
        return { runs: recorder.runs, counts, failure: failure?.decisions, estimates };
      };
      const plain = await explore(false);
      const estimated = await explore(true);
      // each bound that runs a second execution is estimated before it
      const boundsWithTwoRuns = plain.runs.flatMap((run, at) => (run.startsWith('bound ') && plain.runs[at + 2] !== undefined && !plain.runs[at + 2]!.startsWith('bound ') ? [Number(run.slice(6))] : []));
      expect(estimated.estimates).toEqual(boundsWithTwoRuns);
      expect({ ...estimated, estimates: [] }).toEqual(plain);
    });
  });
});

describe('a run far beyond its budget', () => {
  it('63 threads adding to a counter: a partial verdict within the budget, the estimate before the bound, and what helps', () => {
    const run = runCli(['check', fixture('budget/sixty_three_adders.c'), '--time-budget-ms', '3000']);
    expect(run.status, run.stderr).toBe(0);
    expect(unwrapped(run.stdout)).toMatch(/~ sixty_three_adders {2}partial: budget exhausted \(timeBudgetMs\) during bound 0 .*what helps: .*bound delay/);
    // printed before the bound ran, on stderr
    expect(unwrapped(run.stderr)).toMatch(/^weft: \S+sixty_three_adders\.c > sixty_three_adders: bound 0: at most about \S+ executions \(bpor skips equivalent ones\), ~[^\n]+\n/m);
    expect(unwrapped(run.stderr)).toMatch(/sixty_three_adders: bound 0 may be far beyond the time budget \(\S+ \S+ left\): .*fewer threads \(64 now\)/);
    // wrapped to 100 columns, output to no terminal
    for (const line of [...run.stdout.split('\n'), ...run.stderr.split('\n')]) expect(line.length, line).toBeLessThanOrEqual(100);
    // what it suggests does finish: delay bounding, every thread running to its end
    const delays = runCli(['check', fixture('budget/sixty_three_adders.c'), '--bound', 'delay', '--max-bound', '1']);
    expect(delays.status, delays.stderr).toBe(0);
    expect(delays.stdout).toContain('all executions with ≤ 1 delays explored');
  });
});
