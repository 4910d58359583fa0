// hbcache on what used to break it: SV-COMP atomic sections (reported as nondeterminism),
// executions thousands of steps long (recursion overflowed the stack), many threads (a
// single run's bookkeeping ignored the budgets), and its memory caps (past them it must
// still see every happens-before class dfs sees).
import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/index.js';
import { buildHarness } from '../src/compile/compile.js';
import { HbCacheStrategy, type HbCacheLimits } from '../src/explore/hbcache.js';
import { DfsStrategy } from '../src/explore/dfs.js';
import { type ExecutionView, type Strategy, copyOfView, liveView, viewRun } from '../src/explore/strategy.js';
import { ContextBounds } from '../src/explore/context-bound.js';
import { Deadline, HB_MAX_THREADS, HbExecution } from '../src/explore/hb-state.js';
import { borrowHarness, returnHarness } from '../src/addon/harness-pool.js';
import { yieldEvery50Ms } from './support/event-loop.js';
import { coverageClass, exploreAll, happensBeforeClass, within } from './support/explore-all.js';
import { fixture } from './support/harness.js';
import { BOUNDS_ONLY, checkSoundness } from './support/soundness-check.js';

type Options = Parameters<typeof checkAllInterleavings>[1];

async function verdicts(file: string, strategy: string, options: Options) {
  return (await checkAllInterleavings(fixture(file), { strategy, ...options })).tests.map((test) => ({
    name: test.name, status: test.status, bug: test.bug?.kind, bound: test.bug ? test.bound : 'passed', error: test.error,
  }));
}

describe('SV-COMP atomic sections (__VERIFIER_atomic_begin/end)', () => {
  it.each(['', '-DUNPROTECTED_DEPOSIT'])('atomic_sections.c %s: the verdicts dfs gives at bounds 0-2', async (cflags) => {
    for (let maxBound = 0; maxBound <= 2; maxBound++) {
      const options = { maxBound, mode: 'sc' as const, cflags };
      const dfs = await verdicts('hbcache/atomic_sections.c', 'dfs', options);
      expect(await verdicts('hbcache/atomic_sections.c', 'hbcache', options)).toEqual(dfs);
      expect(dfs[0]!.status).toBe(cflags ? (maxBound === 0 ? 'pass' : 'fail') : 'pass');
    }
  });

  it('one execution per happens-before class dfs sees, at bounds 0-3', async () => {
    const file = fixture('hbcache/atomic_sections.c');
    for (let bound = 0; bound <= 3; bound++) {
      const dfs = await exploreAll(file, 'dfs', bound, 'sc');
      const hbcache = await exploreAll(file, 'hbcache', bound, 'sc');
      expect(hbcache.classes).toEqual(dfs.classes);
      expect(hbcache.repeats).toBe(0);
    }
  });
});

describe('root causes the random-program oracle found', () => {
  it.each(['free_unordered.c'])('%s: the verdicts dfs gives at bounds 0-2', async (file) => {
    for (let maxBound = 0; maxBound <= 2; maxBound++) {
      // sc mode: in drf mode the store and the free race in either order, which hides the order that matters here
      const options = { maxBound, mode: 'sc' as const };
      expect(await verdicts(`hbcache/${file}`, 'hbcache', options)).toEqual(await verdicts(`hbcache/${file}`, 'dfs', options));
    }
  });

  it('fails_holding_lock.c: a thread that fails between two steps could have gone on: switching away from it is a preemption (bounds 0-1 as dfs)', async () => {
    // its unbounded dfs passes 5,000 executions: the bounds alone
    const result = await checkSoundness(fixture('hbcache/fails_holding_lock.c'), 'drf', 1, BOUNDS_ONLY, ['hbcache'], false);
    expect(result.problems).toEqual([]);
  });

  it('write_locks.c: at bounds 0-1, the classes dfs runs within each bound, no fewer and no more', async () => {
    const file = fixture('hbcache/write_locks.c');
    const dfs = await exploreAll(file, 'dfs', 1, 'sc', Infinity, 10_000, {}, undefined, false);
    const hbcache = await exploreAll(file, 'hbcache', 1, 'sc', Infinity, 10_000, {}, undefined, false);
    for (let bound = 0; bound <= 1; bound++) expect(within(hbcache, bound).coverage).toEqual(within(dfs, bound).coverage);
  });

  it.each(['spin_reorder.c', 'spin_aside.c'])('%s: runs, sees the bugs and final states dfs sees at bounds 0-3, runs no class twice', async (file) => {
    // dfs's bugs and final states are the truth; only hbcache's fingerprints are read (repeats)
    const dfs = await exploreAll(fixture(`hbcache/${file}`), 'dfs', 3, 'sc', Infinity, 10_000, {}, undefined, false);
    const hbcache = await exploreAll(fixture(`hbcache/${file}`), 'hbcache', 3, 'sc');
    // spin_reorder walks from the root part-way through an iteration: what it counted before is not counted again
    expect(hbcache.repeats).toBe(0);
    for (let bound = 0; bound <= 3; bound++) {
      expect(within(hbcache, bound).bugs).toEqual(within(dfs, bound).bugs);
      expect(within(hbcache, bound).finalStates).toEqual(within(dfs, bound).finalStates);
    }
  });
});

describe('context bounds of states whose predecessors one lookup computes', () => {
  it('independent_steps.c: the bound of the last state, looked up first, is the one its prefixes give', async () => {
    const library = buildHarness(fixture('hbcache/independent_steps.c')).library;
    const harness = borrowHarness(library);
    try {
      const trace = harness.trace();
      // sequentially consistent: every write is a step
      const outcome = harness.run(0, new Uint16Array(0), 0, 10_000, 1, 0, new Float64Array([0, 1]), undefined);
      const view = copyOfView(trace, trace.status[0]!, outcome);
      const run = new HbExecution();
      run.load(view);
      const state = { counts: new Int32Array(HB_MAX_THREADS), hashA: 0, hashB: 0 };
      // step by step, each lookup computes a few new rows
      const stepwise = new ContextBounds(new Deadline(Number.POSITIVE_INFINITY));
      // the last state looked up: before main's return, main enabled
      const last = view.steps - 1;
      for (let steps = 0; steps <= last; steps++) {
        run.prefix(steps, state);
        for (let thread = 0; thread < run.width; thread++) stepwise.of(run, state, thread);
      }
      const expected = Array.from({ length: run.width }, (_, thread) => stepwise.of(run, state, thread));
      // at once: one lookup computes the rows of every prefix (some 11^4 of them), growing the table
      const atOnce = new ContextBounds(new Deadline(Number.POSITIVE_INFINITY));
      expect(Array.from({ length: run.width }, (_, thread) => atOnce.of(run, state, thread))).toEqual(expected);
      expect(expected[0]).toBe(0);
    } finally {
      returnHarness(library, harness);
    }
  });
});

describe('executions thousands of steps long (2 threads x 1,200 locked increments)', () => {
  const long = 'por/locked_increments.c';
  const cflags = '-DTHREADS=2 -DINCREMENTS=1200';

  it('bound 0 at the default maxSteps: passes, one execution per class dfs sees', async () => {
    const test = (await checkAllInterleavings(fixture(long), { strategy: 'hbcache', maxBound: 0, cflags })).tests[0]!;
    expect(test.error).toBeUndefined();
    expect(test.status).toBe('pass');
    expect(test.guarantee).toContain('all executions with ≤ 0 preemptions explored');
    // classes as the explorers' race finder orders steps (coverageClass, linear in the steps):
    // the dependence table's fingerprint pairs every step with every earlier one, a minute here
    const dfs = await classesOf(long, cflags, 0, () => new DfsStrategy({ maxBound: 0 }), coverageClass);
    expect(test.executions).toBe(new Set(dfs).size);
  });

  it.each([1, 2])('bound %i: passes, as dfs, for 5 executions past bound 0', async (maxBound) => {
    const options = { maxBound, maxExecutions: 5, cflags };
    const [dfs] = await verdicts(long, 'dfs', options);
    const test = (await checkAllInterleavings(fixture(long), { strategy: 'hbcache', ...options })).tests[0]!;
    expect(test.error).toBeUndefined();
    expect(test).toMatchObject({ status: dfs!.status, executions: 5 });
    expect(test.guarantee).toContain('budget exhausted (maxExecutions) during bound 1');
  });
});

describe('budgets hold inside one run\'s bookkeeping (31 threads)', () => {
  it.each([
    [{ maxExecutions: 1 }, 'maxExecutions'],
    [{ timeBudgetMs: 2000 }, 'timeBudgetMs'],
  ])('%o: stops within seconds, with its guarantee', async (budget, name) => {
    const started = performance.now();
    const test = (await checkAllInterleavings(fixture('hbcache/many_threads.c'), { strategy: 'hbcache', maxBound: 2, ...budget })).tests[0]!;
    expect(performance.now() - started).toBeLessThan(8000);
    expect(test).toMatchObject({ status: 'pass', complete: false });
    expect(test.guarantee).toContain(`budget exhausted (${name})`);
  });
});

/** The happens-before classes of the executions a strategy counts, in drf mode. */
async function classesOf(file: string, cflags: string, maxBound: number, makeStrategy: () => Strategy, classOf: (view: ExecutionView) => string = happensBeforeClass) {
  const library = buildHarness(fixture(file), { cflags }).library;
  const harness = borrowHarness(library);
  try {
    const trace = harness.trace();
    const strategy = makeStrategy();
    const view = liveView(trace);
    const classes: string[] = [];
    for (let bound = 0; bound <= maxBound && strategy.beginBound(bound); bound++) {
      for (let schedule = strategy.next(); schedule; schedule = strategy.next()) {
        const outcome = harness.run(
          0, schedule.decisions, schedule.length, 50_000, 0, 0, new Float64Array([0, 1]), undefined,
          schedule.asleep, schedule.asleepFrom, schedule.planFrom,
        );
        expect(outcome).toBe(0);
        viewRun(view, trace.status[0]!, outcome);
        await yieldEvery50Ms();
        if (strategy.observe(view)) classes.push(classOf(view));
      }
    }
    return classes;
  } finally {
    returnHarness(library, harness);
  }
}

describe('memory caps: past them hbcache recomputes, and still sees every class', () => {
  const file = 'por/locked_increments.c';
  const cflags = '-DTHREADS=3 -DINCREMENTS=2';
  const roomy = { queueCap: 1 << 22, closedSlotsLog2: 22 };
  const classesWithLimits = (file: string, cflags: string, maxBound: number, limits: HbCacheLimits) =>
    classesOf(file, cflags, maxBound, () => new HbCacheStrategy({ maxBound }, limits));

  it('no kept step fits (every bound walks again from the root): the same classes, each once, at bounds 0-3', async () => {
    for (let maxBound = 0; maxBound <= 3; maxBound++) {
      const stored = await classesWithLimits(file, cflags, maxBound, roomy);
      const recomputed = await classesWithLimits(file, cflags, maxBound, { ...roomy, queueCap: 0 });
      expect(new Set(stored).size).toBe(stored.length);
      expect(recomputed.sort()).toEqual(stored.sort());
    }
  });

  it('H of 16 states (it forgets most): the same classes, at bounds 0-3', async () => {
    for (let maxBound = 0; maxBound <= 3; maxBound++) {
      const stored = await classesWithLimits(file, '-DTHREADS=2 -DINCREMENTS=3', maxBound, roomy);
      const forgetful = await classesWithLimits(file, '-DTHREADS=2 -DINCREMENTS=3', maxBound, { ...roomy, closedSlotsLog2: 4 });
      expect(new Set(forgetful)).toEqual(new Set(stored));
    }
  });
});
