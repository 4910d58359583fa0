import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/index.js';
import { buildHarness } from '../src/compile/compile.js';
import { borrowHarness, returnHarness } from '../src/addon/harness-pool.js';
import { drive } from '../src/explore/driver.js';
import { renderTest } from '../src/report/render.js';
import { threadsOfFailure } from '../src/explore/focused.js';
import { has, size } from '../src/explore/thread-set.js';
import { PctStrategy } from '../src/explore/pct.js';
import { RandomStrategy } from '../src/explore/random.js';
import { SamplingTurns } from '../src/explore/sampling-turns.js';
import { SAMPLES_WITHOUT_BUDGET } from '../src/explore/sampling.js';
import { createStrategy } from '../src/explore/strategies.js';
import type { ExecutionView } from '../src/explore/strategy.js';
import { MAX_THREADS } from '../src/addon/ops.js';
import { fixture, runCli } from './support/harness.js';

/** runs each sampler gets to find each fixture's bug, seed 1 (they need at most 4,593 today) */
const RUNS = 10_000;

const bugs = [
  { file: 'random/torn_pair.c', message: /^torn pair: first \d+, second \d+$/ },
  { file: 'random/check_then_act.c', message: /^the buffer was taken away between the check and the use$/ },
  { file: 'random/relay.c', message: /^the baton came back/ },
];

describe('random and pct find bugs in harnesses too big to exhaust, and replay them exactly', () => {
  for (const { file, message } of bugs)
    for (const strategy of ['random', 'pct'])
      it(`${strategy}: ${file}`, async () => {
        const found = (await checkAllInterleavings(fixture(file), { strategy, seed: 1, maxExecutions: RUNS })).tests[0]!;
        expect(found.status).toBe('fail');
        expect(found.bug!.message).toMatch(message);
        expect(found.executions).toBeLessThan(RUNS);
        const run = strategy === 'pct' ? 'PCT run' : 'random run';
        expect(found.guarantee).toBe(`bug found by ${run} ${found.executions.toLocaleString('en-US')} (${strategy === 'pct' ? 'depth 3, ' : ''}seed 1)`);
        expect(found).toMatchObject({ complete: false, sampled: true });

        const replayed = (await checkAllInterleavings(fixture(file), { replay: found.bug!.schedule })).tests[0]!;
        expect(replayed).toMatchObject({ status: 'fail', executions: 1 });
        expect(replayed.bug).toMatchObject({
          message: found.bug!.message, schedule: found.bug!.schedule, preemptions: found.bug!.preemptions, location: found.bug!.location,
        });
      });
});

describe('a seed draws the same runs every time', () => {
  it('same seed, same runs; another seed, other runs', async () => {
    const run = async (seed: number) => (await checkAllInterleavings(fixture('random/relay.c'), { strategy: 'pct', seed, maxExecutions: RUNS })).tests[0]!;
    const [first, again, other] = [await run(5), await run(5), await run(6)];
    expect(again.executions).toBe(first.executions);
    expect(again.bug!.schedule).toBe(first.bug!.schedule);
    expect(other.bug!.schedule).not.toBe(first.bug!.schedule);
  });
});

describe('samplers never claim completeness', () => {
  it('pct on a correct harness: stops on its budget and states the probability of its depth with the measured n and k', async () => {
    const test = (await checkAllInterleavings(fixture('locked_counter.c'), { strategy: 'pct', maxExecutions: 300 })).tests[0]!;
    expect(test).toMatchObject({ status: 'pass', executions: 300, complete: false, partial: true });
    // 2 threads; the longest run of locked_counter.c takes 9 steps: 1/(2·9²) = 1/162
    expect(test.guarantee).toBe(
      '300 runs, no bug; PCT depth 3 (seed 1): each depth-3 bug is hit in any run with probability ≥ 1/(n·k²) = 1/162 ' +
      '(n = 2 threads, k = 9 steps, the longest run); one is missed by all 300 runs with probability ≤ 0.16',
    );
  });

  it(`without a budget a sampler draws ${SAMPLES_WITHOUT_BUDGET.toLocaleString('en-US')} runs; random says it gives no bound`, async () => {
    const test = (await checkAllInterleavings(fixture('locked_counter.c'), { strategy: 'random' })).tests[0]!;
    expect(test).toMatchObject({ status: 'pass', executions: SAMPLES_WITHOUT_BUDGET, complete: false, partial: true });
    expect(test.guarantee).toBe(
      `${SAMPLES_WITHOUT_BUDGET.toLocaleString('en-US')} runs, no bug; uniformly random schedules (seed 1) over 2 threads and up to 9 steps: a sample, with no bound on what it missed`,
    );
  });

  it('a time budget alone ends a sampler too', async () => {
    const test = (await checkAllInterleavings(fixture('locked_counter.c'), { strategy: 'pct', timeBudgetMs: 100 })).tests[0]!;
    expect(test).toMatchObject({ status: 'pass', complete: false, partial: true });
    expect(test.executions).not.toBe(SAMPLES_WITHOUT_BUDGET);
  });

  it('a sampler is not exhaustive: the soundness oracle leaves it out', () => {
    for (const name of ['random', 'pct']) expect(createStrategy(name, { maxBound: 0 }).exhaustive).toBe(false);
    for (const name of ['dfs', 'bpor', 'hbcache', 'optimal']) expect(createStrategy(name, { maxBound: 0 }).exhaustive).toBeUndefined();
  });
});

describe('pct', () => {
  /** a finished run of `steps` steps by `threads` threads, as the driver shows it */
  const finishedRun = (steps: number, threads: number): ExecutionView => {
    const threadState = new Uint8Array(MAX_THREADS).fill(2, 0, threads);
    const none = new Uint8Array(0);
    return {
      steps, outcome: 0, thread: none, op: none, object: new Float64Array(0), value: new Float64Array(0), bits: new BigUint64Array(0), size: none,
      written: new BigUint64Array(0), expected: new BigUint64Array(0), enabled: new Uint32Array(0), casFails: new Uint32Array(0), aside: none, pc: new Uint32Array(0), rmw: none,
      threadState, pendingOp: none, pendingObject: new Float64Array(0), pendingValue: new Float64Array(0), raceAt: new Int32Array(MAX_THREADS).fill(-1), raceAfter: new Int32Array(MAX_THREADS).fill(-1), mixedExtent: new Float64Array(4),
    };
  };

  it('draws distinct initial priorities above the change points, and d-1 change points within the longest run so far, by step', () => {
    const pct = new PctStrategy(3, 4);
    const first = pct.next().sample!;
    // k unknown before the first run: its change points are never reached
    expect([...first.priorityChanges!].filter((_, index) => index % 2 === 0)).toEqual([0xffffffff, 0xffffffff, 0xffffffff]);
    pct.observe(finishedRun(40, 5));
    for (let run = 0; run < 200; run++) {
      const sample = pct.next().sample!;
      expect([...sample.priorities!].sort((a, b) => a - b)).toEqual(Array.from({ length: MAX_THREADS }, (_, thread) => 4 + thread));
      const changes = [...sample.priorityChanges!];
      const steps = changes.filter((_, index) => index % 2 === 0);
      expect(steps).toEqual([...steps].sort((a, b) => a - b));
      expect(Math.min(...steps)).toBeGreaterThanOrEqual(1);
      expect(Math.max(...steps)).toBeLessThanOrEqual(40);
      expect(changes.filter((_, index) => index % 2 === 1).sort()).toEqual([1, 2, 3]);
    }
    expect(pct.coverage(10)).toContain('1/(n·k³) = 1/320,000 (n = 5 threads, k = 40 steps, the longest run)');
  });

  it('depth 1 only orders threads by priority, never preempting: the depth-2 bug needs depth 2', async () => {
    const run = async (pctDepth: number) =>
      (await checkAllInterleavings(fixture('random/check_then_act.c'), { strategy: 'pct', pctDepth, maxExecutions: 2_000 })).tests[0]!;
    const [shallow, deep] = [await run(1), await run(2)];
    expect(shallow).toMatchObject({ status: 'pass', executions: 2_000 });
    expect(shallow.guarantee).toContain('PCT depth 1 (seed 1): each depth-1 bug is hit in any run with probability ≥ 1/n = 1/7 (n = 7 threads');
    expect(deep.status).toBe('fail');
    expect(deep.bug!.preemptions).toBeLessThanOrEqual(1);
  });
});

describe('the command line', () => {
  it('--strategy pct --seed --pct-depth, and the guarantee in --json', () => {
    const { status, stdout } = runCli(['check', fixture('random/relay.c'), '--strategy', 'pct', '--seed', '2', '--pct-depth', '3', '--max-executions', '5000', '--json']);
    expect(status).toBe(1);
    const test = JSON.parse(stdout).tests[0];
    expect(test.guarantee).toMatch(/^bug found by PCT run [\d,]+ \(depth 3, seed 2\)$/);
    expect(runCli(['check', fixture('random/relay.c'), '--strategy', 'pct', '--pct-depth', '0'])).toMatchObject({ status: 2 });
  });
});

describe('the default run takes turns with PCT samples once a bound does not finish', () => {
  it('finds the torn pair behind 12 writers in seconds, with 1 preemption, and says how it was found', async () => {
    const test = (await checkAllInterleavings(fixture('random/torn_pair.c'))).tests[0]!;
    expect(test.status).toBe('fail');
    expect(test.bug!.preemptions).toBe(1);
    expect(test.bound).toBe(1);
    expect(test.guarantee).toMatch(/^bug found by PCT run [\d,]+ \(depth 3, seed 1\), taking turns with bound 0 of bpor$/);
    expect(test.elapsedMs).toBeLessThan(30_000);
  });

  it('a sampled bug with more preemptions than needed is minimised, and the report says so', async () => {
    // one worker: with more, bpor may reach bound 1's bug before a PCT turn does
    const test = (await checkAllInterleavings(fixture('random/check_then_act.c'), { workers: 1 })).tests[0]!;
    expect(test.status).toBe('fail');
    // minimising has 1 s (SamplingTurns; what it finds is tested below, with time to spare): on a
    // loaded machine it may not finish, and then the bug keeps its 2 preemptions and the report
    // claims no fewer
    const minimised = test.guarantee!.includes('; minimised from 2 to 1 preemption by a bounded search on its threads');
    expect(test.bug!.preemptions).toBe(minimised ? 1 : 2);
    expect(test.sampled).toBe(true);
    // the strategies' own account under verbose; in plain words always
    expect(renderTest(test, { color: false, verbose: true, width: 1000 }).split('\n')).toContain(`  ${test.guarantee}`);
    expect(renderTest(test, { color: false }).split('\n')).toContainEqual(expect.stringMatching(/^ {2}found after [\d,]+ executions? \(by random sampling\); /));
    // turns begin once a bound has run 1 s: on a busy machine that is bound 0 already, and then
    // no claim is made about fewer preemptions
    expect(test.guarantee).toMatch(
      /^bug found by PCT run [\d,]+ \(depth 3, seed 1\), taking turns with bound (1 of bpor; minimised from 2 to 1 preemption by a bounded search on its threads; no bug needs fewer than 1 preemption: bpor explored bound 0 without one|0 of bpor; minimised from 2 to 1 preemption by a bounded search on its threads|[01] of bpor)$/,
    );
  });

  it('a chosen strategy runs alone: bpor by itself does not finish bound 0 of the torn pair', async () => {
    const test = (await checkAllInterleavings(fixture('random/torn_pair.c'), { strategy: 'bpor', timeBudgetMs: 1_500 })).tests[0]!;
    expect(test).toMatchObject({ status: 'pass', partial: true });
    // and what helps: bound 0 of 12 writers, a checker and main is far beyond 1.5 s
    expect(test.guarantee).toMatch(/^budget exhausted \(timeBudgetMs\) during bound 0 after [\d,]+ executions; no bound fully explored; bound 0 may be far beyond the time budget \(.* left\): at most about \S+ executions \(bpor skips equivalent ones\), ~.*; what helps: a smaller maxBound, bound delay \(when most threads run to their end\), fewer threads \(14 now\), or a sampler \(strategy pct\)$/);
  });

  it('with no bug, the samples are counted in the guarantee beside what the search covered', async () => {
    const test = (await checkAllInterleavings(fixture('por/locked_increments.c'), { cflags: '-DTHREADS=6 -DINCREMENTS=3', timeBudgetMs: 4_000 })).tests[0]!;
    expect(test).toMatchObject({ status: 'pass', partial: true, strategy: 'bpor' });
    expect(test.guarantee).toMatch(/; beside it [\d,]+ PCT runs, no bug: PCT depth 3 \(seed 1\): each depth-3 bug is hit in any run with probability ≥ 1\/\(n·k²\) = 1\/[\d,]+ \(n = 7 threads, k = \d+ steps, the longest run\)/);
  });
});

describe('a sampled bug is minimised by a bounded search on its threads', () => {
  it("random's 30-odd preemptions of check-then-act become 1: the reader, the closer that took the buffer away, and their creator", async () => {
    const library = buildHarness(fixture('random/check_then_act.c')).library;
    const harness = borrowHarness(library);
    try {
      const options = {
        test: 0, maxBound: 0, maxSteps: 10_000, mode: 0, flags: 0, nondetDomain: new Float64Array([0, 1]), visible: new Float64Array(0),
      };
      const budget = { maxExecutions: RUNS, timeBudgetMs: Number.POSITIVE_INFINITY };
      const sampled = (await drive(harness, new RandomStrategy(1), { ...options, ...budget })).failure!;
      expect(sampled.preemptions).toBeGreaterThan(10);
      // T0 creates T1 (the reader) and T2 (the closer); the reader read the closer's NULL
      const focus = threadsOfFailure(sampled);
      expect([size(focus, 0), has(focus, 0, 0), has(focus, 0, 1), has(focus, 0, 2)]).toEqual([3, true, true, true]);
      // what the search finds, not how fast: the minimisation may take the whole budget here
      const { failure, foundBy } = await new SamplingTurns(harness, options, 1, 3, 60_000).minimised(sampled, 'bpor', 0, async (found) => found, 60_000);
      expect(failure.preemptions).toBe(1);
      expect(failure.result.message).toBe(sampled.result.message);
      expect(foundBy).toContain(`minimised from ${sampled.preemptions} to 1 preemption by a bounded search on its threads`);
    } finally {
      returnHarness(library, harness);
    }
  });
});
