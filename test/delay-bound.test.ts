// Delay bounding (option bound: 'delay'): dfs counts deviations from round robin instead of
// preemptions. Exact counts on programs counted by hand, and against every schedule.
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/index.js';
import { buildHarness } from '../src/compile/compile.js';
import { borrowHarness, returnHarness } from '../src/addon/harness-pool.js';
import { RunFlags } from '../src/addon/addon.js';
import { drive } from '../src/explore/driver.js';
import { DfsStrategy } from '../src/explore/dfs.js';
import {
  type BoundKind, type ExecutionView, type Schedule, type Strategy, countSpent, threadsByCost,
} from '../src/explore/strategy.js';
import { WeftError } from '../src/errors.js';
import { MAX_THREADS } from '../src/addon/ops.js';
import { add, threadSets } from '../src/explore/thread-set.js';
import { fixture, runCli, writeHarness } from './support/harness.js';

const binomial = (n: number, k: number): number => {
  if (k < 0 || k > n) return 0;
  let value = 1;
  for (let i = 1; i <= k; i++) value = (value * (n - k + i)) / i;
  return value;
};

describe('what a decision costs', () => {
  /** [thread, cost] for each enabled thread, as threadsByCost lists them */
  const costs = (kind: BoundKind, enabled: number[], previous: number, yielded = false) => {
    const set = threadSets();
    for (const thread of enabled) add(set, 0, thread);
    const threads = new Uint16Array(MAX_THREADS);
    const spent = new Uint16Array(MAX_THREADS);
    const count = threadsByCost(kind, set, 0, previous, yielded, threads, spent);
    return Array.from({ length: count }, (_, i) => [threads[i], spent[i]]);
  };

  it('delays: one per enabled thread skipped going round from round robin’s pick', () => {
    // T0 running, T0-T2 enabled: T0 goes on for free, T1 skips T0, T2 skips T0 and T1
    expect(costs('delay', [0, 1, 2], 0)).toEqual([[0, 0], [1, 1], [2, 2]]);
    // T1 running, T0-T3 enabled: round robin wraps round after T3
    expect(costs('delay', [0, 1, 2, 3], 1)).toEqual([[1, 0], [2, 1], [3, 2], [0, 3]]);
    // T1 blocked (or finished): round robin's pick is T2, the next after it; T0 costs one
    expect(costs('delay', [0, 2], 1)).toEqual([[2, 0], [0, 1]]);
    // past the first word of a thread set: T40 running, T3, T40 and T200 enabled
    expect(costs('delay', [3, 40, 200], 40)).toEqual([[40, 0], [200, 1], [3, 2]]);
  });

  it('preemptions: switching away from an enabled thread costs one, whatever it skips; from a blocked one nothing', () => {
    expect(costs('preemption', [0, 1, 2], 0)).toEqual([[0, 0], [1, 1], [2, 1]]);
    expect(costs('preemption', [0, 2], 1)).toEqual([[0, 0], [2, 0]]);
    expect(costs('preemption', [5, 70, 255], 70)).toEqual([[5, 1], [70, 0], [255, 1]]);
  });

  it('after a yield: switching is free, and the thread that yielded going on costs one while another could run', () => {
    expect(costs('preemption', [0, 1, 2], 1, true)).toEqual([[0, 0], [1, 1], [2, 0]]);
    expect(costs('preemption', [1], 1, true)).toEqual([[1, 0]]);
    expect(costs('preemption', [40, 200], 200, true)).toEqual([[40, 0], [200, 1]]);
    // delays: round robin's pick is the next thread after it, and going on skips every other
    expect(costs('delay', [0, 1, 2], 1, true)).toEqual([[2, 0], [0, 1], [1, 2]]);
    expect(costs('delay', [1], 1, true)).toEqual([[1, 0]]);
  });
});

describe('delay-bounded dfs: exact counts', () => {
  // fixtures/delay/two_threads.c: after the create, T0 takes k stores and then its join
  // (enabled once T1 has finished); T1 takes k + 2 steps (start, k stores, exit). A schedule
  // is a word w of k T0-steps and k + 2 T1-steps; round robin runs T0 first. Cut T0·w into
  // B maximal blocks of one thread. Each change of block costs one delay (two threads: the
  // switch skips the other, enabled, thread) except the last, which is free: into a final
  // T1 block, T0 had reached its join; into a final T0 block, T1 had finished. So
  // d = B − 2. T0's k steps plus the leading T0 form ⌈B/2⌉ blocks, C(k, ⌈B/2⌉ − 1) ways;
  // T1's k + 2 steps form ⌊B/2⌋ blocks, C(k + 1, ⌊B/2⌋ − 1) ways. Schedules with exactly
  // d delays: C(k, ⌈d/2⌉) · C(k + 1, ⌊d/2⌋); over all d, C(2k + 2, k).
  const exactly = (k: number, d: number) => binomial(k, Math.ceil(d / 2)) * binomial(k + 1, Math.floor(d / 2));

  for (const k of [2, 3, 4])
    it(`2 threads × ${k} steps: C(k, ⌈d/2⌉) · C(k + 1, ⌊d/2⌋) schedules with exactly d delays`, async () => {
      let upTo = 0;
      for (let d = 0; d <= 2 * k + 1; d++) {
        upTo += exactly(k, d);
        const test = (await checkAllInterleavings(fixture('delay/two_threads.c'), { bound: 'delay', maxBound: d, cflags: `-DSTEPS=${k}` })).tests[0]!;
        expect([d, test.executions]).toEqual([d, upTo]);
        expect(test.strategy).toBe('dfs');
        expect(test.boundType).toBe('delay');
        const last = upTo === binomial(2 * k + 2, k);
        expect(test.guarantee).toBe(last ? 'complete: every interleaving explored' : `all executions with ≤ ${d} delays explored`);
        if (last) break;
      }
      expect(upTo).toBe(binomial(2 * k + 2, k));
    });

  it('bound 0 is exactly one schedule, with two threads and with thirteen', async () => {
    for (const file of ['delay/two_threads.c', 'random/torn_pair.c']) {
      const test = (await checkAllInterleavings(fixture(file), { bound: 'delay', maxBound: 0 })).tests[0]!;
      expect([file, test.status, test.executions, test.guarantee]).toEqual([file, 'pass', 1, 'all executions with ≤ 0 delays explored']);
    }
  });

  it('3 threads: each iteration runs exactly the schedules with that many delays, each once (all 379 enumerated without a bound)', async () => {
    const library = buildHarness(fixture('delay/three_threads.c'), { cflags: '-DSTEPS=1' }).library;
    const harness = borrowHarness(library);
    try {
      const run = async (strategy: Strategy, flags: number) => {
        const recorder = new Recorder(strategy);
        const exploration = await drive(harness, recorder, {
          test: 0, maxBound: Number.POSITIVE_INFINITY, maxExecutions: Number.POSITIVE_INFINITY, timeBudgetMs: Number.POSITIVE_INFINITY,
          maxSteps: 1000, mode: 0, flags, nondetDomain: Float64Array.of(0, 1), visible: new Float64Array(0),
        });
        expect(exploration).toMatchObject({ complete: true, stoppedBy: 'exhausted' });
        return recorder.seen;
      };
      // every schedule: dfs with an unbounded preemption bound, each one's delays counted
      const all = await run(new DfsStrategy({ maxBound: Number.POSITIVE_INFINITY }), 0);
      const everyDelays = new Map<string, number>();
      for (const { schedule, delays } of all) everyDelays.set(schedule, delays);
      expect(everyDelays.size).toBe(all.length);
      expect(all.length).toBe(379);

      // a small prefix cap makes later iterations walk again from the root: same runs
      for (const prefixCap of [4096, 3]) {
        const byDelays = await run(new DfsStrategy({ maxBound: Number.POSITIVE_INFINITY, bound: 'delay' }, prefixCap), RunFlags.ROUND_ROBIN);
        expect(new Set(byDelays.map((seen) => seen.schedule)).size).toBe(byDelays.length);
        expect(byDelays.length).toBe(379);
        for (const { schedule, delays, iteration } of byDelays) expect([schedule, delays]).toEqual([schedule, iteration]);
        for (const { schedule, delays } of byDelays) expect(everyDelays.get(schedule)).toBe(delays);
        // and two delays at once happen: a decision that skips two threads
        expect(byDelays.some(({ delays, preemptions }) => delays > preemptions)).toBe(true);
      }
    } finally {
      returnHarness(library, harness);
    }
  });
});

/** A strategy that passes everything through and keeps each counted execution's schedule and cost. */
class Recorder implements Strategy {
  readonly name = 'recorder';
  readonly bounded = true;
  readonly seen: { schedule: string; delays: number; preemptions: number; iteration: number }[] = [];
  private iteration = 0;
  constructor(private readonly inner: Strategy) {}
  beginBound(bound: number): boolean {
    this.iteration = bound;
    return this.inner.beginBound(bound);
  }
  next(): Schedule | undefined {
    return this.inner.next();
  }
  observe(execution: ExecutionView): boolean {
    const counted = this.inner.observe(execution);
    if (counted)
      this.seen.push({
        schedule: Array.from(execution.thread.subarray(0, execution.steps)).join(','), iteration: this.iteration,
        delays: countSpent('delay', execution), preemptions: countSpent('preemption', execution),
      });
    return counted;
  }
  beyondMaxBound(): boolean {
    return this.inner.beyondMaxBound();
  }
}

describe('delay-bounded dfs finds bugs with the fewest delays', () => {
  it('a lost update needs one delay: none at bound 0, found at bound 1, and replayed', async () => {
    const file = fixture('delay/lost_increment.c');
    const none = (await checkAllInterleavings(file, { bound: 'delay', maxBound: 0 })).tests[0]!;
    expect(none).toMatchObject({ status: 'pass', executions: 1, guarantee: 'all executions with ≤ 0 delays explored' });

    const found = (await checkAllInterleavings(file, { bound: 'delay' })).tests[0]!;
    expect(found).toMatchObject({ status: 'fail', bound: 1, boundType: 'delay', strategy: 'dfs' });
    expect(found.guarantee).toBe(`bug found at delay bound 1 after ${found.executions} executions`);
    expect(found.bug).toMatchObject({ message: 'lost update: counter is 1', delays: 1, preemptions: 1 });

    const replayed = (await checkAllInterleavings(file, { bound: 'delay', replay: found.bug!.schedule })).tests[0]!;
    expect(replayed).toMatchObject({ status: 'fail', executions: 1, bound: 1 });
    expect(replayed.bug).toMatchObject({ message: found.bug!.message, schedule: found.bug!.schedule, delays: 1, preemptions: 1 });

    const cli = runCli(['replay', file, '--bound', 'delay', '--schedule', found.bug!.schedule]);
    expect(cli.status).toBe(1);
    expect(cli.stdout).toContain('in thread T0 · 1 delay (1 preemption)');
  });

  it('many threads that finish: the torn pair falls within a few dozen runs, where preemption-bounded dfs finds nothing in 2,000', async () => {
    const file = fixture('random/torn_pair.c');
    const delays = (await checkAllInterleavings(file, { bound: 'delay' })).tests[0]!;
    expect(delays).toMatchObject({ status: 'fail', bound: 1, strategy: 'dfs' });
    expect(delays.bug).toMatchObject({ delays: 1 });
    expect(delays.bug!.message).toMatch(/^torn pair: first \d+, second \d+$/);
    expect(delays.executions).toBeLessThan(100);

    const preemptions = (await checkAllInterleavings(file, { strategy: 'dfs', maxExecutions: 2000 })).tests[0]!;
    expect(preemptions).toMatchObject({ status: 'pass', partial: true, executions: 2000 });
  });

  it('a file comment sets it too: // weft: bound=delay maxBound=0', async () => {
    const source = readFileSync(fixture('delay/lost_increment.c'), 'utf8');
    const file = writeHarness(`// weft: bound=delay maxBound=0\n${source}`);
    const test = (await checkAllInterleavings(file)).tests[0]!;
    expect(test).toMatchObject({ status: 'pass', executions: 1, boundType: 'delay', strategy: 'dfs', guarantee: 'all executions with ≤ 0 delays explored' });
  });

  it('the JSON says what the bound counted', () => {
    const { status, stdout } = runCli(['check', fixture('delay/lost_increment.c'), '--bound', 'delay', '--json']);
    expect(status).toBe(1);
    const test = JSON.parse(stdout).tests[0];
    expect(test).toMatchObject({ bound: 1, boundType: 'delay', strategy: 'dfs', bug: { delays: 1, preemptions: 1 } });
  });
});

describe('strategies that cannot bound delays refuse them', () => {
  it('bpor on the command line: one message, exit 2', () => {
    const { status, stdout, stderr } = runCli(['check', fixture('delay/lost_increment.c'), '--bound', 'delay', '--strategy', 'bpor']);
    expect({ status, stdout }).toEqual({ status: 2, stdout: '' });
    expect(stderr).toBe(
      'weft: strategy bpor does not take bound delay (it prunes by preemptions and is not known sound for delays): ' +
      'with bound delay use strategy dfs, random, pct, or leave strategy unset (dfs)\n',
    );
  });

  it('hbcache and optimal through the API: a WeftError with code option', async () => {
    for (const strategy of ['hbcache', 'optimal']) {
      const error = await checkAllInterleavings(fixture('delay/lost_increment.c'), { bound: 'delay', strategy }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WeftError);
      expect((error as WeftError).code).toBe('option');
      expect((error as WeftError).message).toMatch(new RegExp(`^strategy ${strategy} does not take bound delay \\(it (prunes by preemptions|has no bound)`));
    }
  });

  it('the samplers take it: it decides what their counterexamples count', async () => {
    const test = (await checkAllInterleavings(fixture('delay/lost_increment.c'), { bound: 'delay', strategy: 'random', maxExecutions: 1000 })).tests[0]!;
    expect(test).toMatchObject({ status: 'fail', boundType: 'delay', sampled: true });
    expect(test.bound).toBe(test.bug!.delays);
  });
});
