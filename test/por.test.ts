import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/index.js';
import { exploreAll, within } from './support/explore-all.js';
import { POR_FIVE_THREADS, POR_HOLES_AT_BOUNDS, checkKnownSeed, fixedShape } from './support/known-seeds.js';
import { type ProgramShape, randomProgram, randomShape } from './support/random-programs.js';
import { BOUNDS_ONLY, checkSoundness } from './support/soundness-check.js';
import { fixture, writeHarness } from './support/harness.js';

const factorial = (n: number): number => (n <= 1 ? 1 : n * factorial(n - 1));

async function executions(file: string, strategy: string, options: Parameters<typeof checkAllInterleavings>[1] = {}) {
  const test = (await checkAllInterleavings(fixture(file), { strategy, ...options })).tests[0]!;
  expect(test.status).toBe('pass');
  return test;
}

describe('optimal: one execution per Mazurkiewicz trace', () => {
  it.each([
    [2, 2, 6],
    [3, 2, 90],
    [3, 3, 1680],
  ])('%i threads x %i locked increments: (NK)!/(K!)^N = %i executions', async (threads, increments, expected) => {
    expect(factorial(threads * increments) / factorial(increments) ** threads).toBe(expected);
    const test = await executions('por/locked_increments.c', 'optimal', { cflags: `-DTHREADS=${threads} -DINCREMENTS=${increments}`, maxBound: Infinity });
    expect(test).toMatchObject({ executions: expected, complete: true });
  });

  it.each([1, 2, 3, 4])('%i readers and one writer of an atomic: 2^R executions', async (readers) => {
    const test = await executions('por/readers_writer.c', 'optimal', { cflags: `-DREADERS=${readers}`, maxBound: Infinity });
    expect(test).toMatchObject({ executions: 2 ** readers, complete: true });
  });

  it('a thread left at a barrier that never completes cannot leave before an arrival: one execution per deadlock dfs sees, none twice', async () => {
    const dfs = await exploreAll(fixture('por/barrier_deadlock.c'), 'dfs', Infinity, 'drf');
    const optimal = await exploreAll(fixture('por/barrier_deadlock.c'), 'optimal', Infinity, 'drf');
    expect(dfs.bugs.size).toBeGreaterThan(0);
    expect(dfs.finalStates.size).toBe(0);
    expect(optimal).toMatchObject({ executions: dfs.classes.size, repeats: 0, wasted: 0, bugs: dfs.bugs });
    expect(optimal.classes).toEqual(dfs.classes);
  });

  it('a thread that yields may go on at once (sched_yield may return at once): a preemption under a bound, nothing to optimal', async () => {
    const file = fixture('por/yield_then_lock.c');
    const readerSaw = (states: Set<string>) => [...states].map((state) => state.split('\n')[0]!).sort();
    const dfs = await exploreAll(file, 'dfs', Infinity, 'sc', Infinity, 10_000, {}, undefined, false);
    // 0: the reader took the lock before main although main could have run right after its yield
    expect(readerSaw(dfs.finalStates)).toEqual(['reader saw 0, then 0', 'reader saw 0, then 1', 'reader saw 0, then 2', 'reader saw 1, then 1', 'reader saw 1, then 2', 'reader saw 2, then 2']);
    const optimal = await exploreAll(file, 'optimal', Infinity, 'sc');
    expect(optimal).toMatchObject({ complete: true, finalStates: dfs.finalStates, repeats: 0 });
    const sawZero = (states: Set<string>) => readerSaw(states).some((line) => line.startsWith('reader saw 0'));
    for (let bound = 0; bound <= 3; bound++) {
      const [truth, bpor] = [await exploreAll(file, 'dfs', bound, 'sc', Infinity, 10_000, {}, undefined, false), await exploreAll(file, 'bpor', bound, 'sc', Infinity, 10_000, {}, undefined, false)];
      expect(bpor.finalStates, `bound ${bound}`).toEqual(truth.finalStates);
      // the switch to the reader after main's create, and the reader going on after its yield
      expect(sawZero(truth.finalStates), `bound ${bound}`).toBe(bound >= 2);
    }
    const hbcache = (await checkAllInterleavings(file, { strategy: 'hbcache', mode: 'sc' })).tests[0]!;
    expect(hbcache).toMatchObject({ status: 'error', error: expect.stringMatching(/^hbcache does not explore harnesses that yield/) });
  });

  it('hbcache refuses pthread_once, whose waiters wait for a routine that is no step (it missed states with it)', async () => {
    const { tests } = await checkAllInterleavings(fixture('primitives/once.c'), { strategy: 'hbcache' });
    expect(tests.find((test) => test.name === 'pthread_once_runs_once')).toMatchObject({
      status: 'error', error: expect.stringMatching(/^hbcache does not explore harnesses that .*call pthread_once/),
    });
    // the test beside it, with a hand-rolled flag, is explored: its double initialisation found
    expect(tests.find((test) => test.name === 'hand_rolled_flag')).toMatchObject({ status: 'fail', bug: { kind: 'assertion' } });
  });

  it('a compare-exchange that can only fail is a read: one execution per class dfs sees (27), none twice', async () => {
    const dfs = await exploreAll(fixture('por/failing_cas.c'), 'dfs', Infinity, 'drf');
    const optimal = await exploreAll(fixture('por/failing_cas.c'), 'optimal', Infinity, 'drf');
    expect(dfs.classes.size).toBe(27);
    expect(optimal).toMatchObject({ executions: 27, repeats: 0, wasted: 0 });
    expect(optimal.classes).toEqual(dfs.classes);
  });

  it('runs of 300 steps and a 150-step reversal (longer than the first per-node arrays): the classes dfs sees, each once', async () => {
    const dfs = await exploreAll(fixture('por/long_runs.c'), 'dfs', 1, 'drf');
    expect(dfs.classes.size).toBe(2);
    for (const [strategy, maxBound] of [['optimal', Infinity], ['bpor', 1], ['hbcache', 1]] as const) {
      const explored = await exploreAll(fixture('por/long_runs.c'), strategy, maxBound, 'drf');
      expect(explored.classes, strategy).toEqual(dfs.classes);
      if (strategy === 'optimal') expect(explored).toMatchObject({ executions: 2, repeats: 0, wasted: 0 });
    }
  });

  it("a data choice stays right behind its thread's step when a wakeup sequence is merged into a branch: every class once, none lost", async () => {
    const file = fixture('por/choice_after_step.c');
    // before, a merged sequence put another thread's step between main's read and its
    // choice, and optimal stopped: "the harness is nondeterministic"
    const optimal = await exploreAll(file, 'optimal', Infinity, 'sc');
    const dfs = await exploreAll(file, 'dfs', 2, 'sc', Infinity, 10_000, {}, undefined, false);
    for (const found of dfs.coverage) expect(optimal.coverage.has(found)).toBe(true);
    expect(dfs.finalStates).toEqual(optimal.finalStates);
    // unbounded dfs: 416 classes in 249,816 schedules; 322 of them show something else (the
    // rest differ from one of those only by a thread that started and did nothing more before main returned)
    expect(optimal).toMatchObject({ executions: 416, repeats: 0, complete: true });
    expect(optimal.coverage.size).toBe(322);
  });

  it('two data choices in a row: the second stays right behind the first in a merged sequence, one execution per class', async () => {
    const file = fixture('por/choice_after_step.c');
    const build = { cflags: '-DCHOICES_IN_A_ROW' };
    const optimal = await exploreAll(file, 'optimal', Infinity, 'sc', Infinity, 10_000, build);
    const dfs = await exploreAll(file, 'dfs', 2, 'sc', Infinity, 10_000, build, undefined, false);
    for (const found of dfs.coverage) expect(optimal.coverage.has(found)).toBe(true);
    // unbounded dfs: 520 classes in 565,988 schedules, 420 that show something else (as above)
    expect(optimal).toMatchObject({ executions: 520, repeats: 0, complete: true });
    expect(optimal.coverage.size).toBe(420);
  });

  it('threads touching disjoint data: 1 execution (an indexer with 7 threads)', async () => {
    const test = await executions('por/indexer.c', 'optimal', { cflags: '-DTHREADS=7', maxBound: Infinity });
    expect(test).toMatchObject({ executions: 1, complete: true });
  });
});

describe('bpor: sound under a preemption bound, never more than dfs', () => {
  it('explores no more than dfs at every bound, and clearly fewer at bound 4 on mostly-disjoint threads', async () => {
    for (let bound = 0; bound <= 4; bound++) {
      const dfs = await executions('por/indexer.c', 'dfs', { cflags: '-DTHREADS=3', maxBound: bound });
      const bpor = await executions('por/indexer.c', 'bpor', { cflags: '-DTHREADS=3', maxBound: bound });
      expect(bpor.executions).toBeLessThanOrEqual(dfs.executions);
      if (bound === 4) expect(bpor.executions * 10).toBeLessThan(dfs.executions);
    }
  });

  it("finds seed 001's Figure 1 behaviour (y ends as 1) at bound 0", async () => {
    const test = (await checkAllInterleavings(fixture('seeds/figure1.c'), { strategy: 'bpor', maxBound: 0 })).tests[0]!;
    expect(test).toMatchObject({ status: 'fail', bound: 0, bug: { kind: 'assertion', preemptions: 0 } });
  });
});

describe("hbcache: seed 001's Algorithm 2 (happens-before states, context bounds by dynamic programming)", () => {
  it("finds Figure 1's behaviour (y ends as 1) at bound 0", async () => {
    const test = (await checkAllInterleavings(fixture('seeds/figure1.c'), { strategy: 'hbcache', maxBound: 0 })).tests[0]!;
    expect(test).toMatchObject({ status: 'fail', bound: 0, bug: { kind: 'assertion', preemptions: 0 } });
  });

  it('runs exactly one execution per happens-before class dfs sees, at bounds 0-4 (work-stealing queue)', async () => {
    const file = fixture('seeds/work_stealing_queue.c');
    const counts: [number, number][] = [];
    // dfs once: what it saw within each bound is what it sees with that bound (the truth below)
    const dfsToBound4 = await exploreAll(file, 'dfs', 4, 'drf');
    for (let bound = 0; bound <= 4; bound++) {
      const dfs = within(dfsToBound4, bound);
      const hbcache = await exploreAll(file, 'hbcache', bound, 'drf');
      expect(hbcache.classes).toEqual(dfs.classes);
      expect(hbcache.repeats).toBe(0);
      expect(hbcache.executions).toBe(dfs.classes.size);
      counts.push([dfs.executions, hbcache.executions]);
    }
    // the reduction grows with the bound, as in the paper's Table 1
    const [dfs4, hbcache4] = counts[4]!;
    expect(hbcache4 * 10).toBeLessThan(dfs4);
  });
});

describe('bpor and hbcache agree with dfs on every fixture', () => {
  const fixtures = [
    'primitives/bounded_buffer.c', 'primitives/semaphores.c', 'primitives/rwlock.c', 'primitives/once.c',
    'primitives/barrier_spin_keys.c', 'primitives/timed_wait.c', 'primitives/thread_pool.c', 'primitives/c11_threads.c',
    'core/create_order.c', 'core/crash_in_one_interleaving.c', 'core/threads_and_mutexes.c', 'core/spin_wait.c',
    'deadlock_two_locks.c', 'lost_update.c', 'locked_counter.c',
  ];
  it.each(fixtures)('%s: same verdict and bug kind for every test at bounds 0-2', async (file) => {
    for (let maxBound = 0; maxBound <= 2; maxBound++) {
      const verdicts = async (strategy: string) =>
        (await checkAllInterleavings(fixture(file), { strategy, maxBound, maxSteps: 2000 })).tests
          .map((test) => [test.name, test.status, test.bug?.kind, test.bug ? test.bound : 'passed']);
      const dfs = await verdicts('dfs');
      expect(await verdicts('bpor')).toEqual(dfs);
      // hbcache refuses a test that yields or waits with a timeout (its error says so)
      const hbcache = await verdicts('hbcache');
      expect(hbcache.filter(([, status]) => status !== 'error')).toEqual(dfs.filter((_, index) => hbcache[index]![1] !== 'error'));
    }
  });
});

describe("the oracle's classes: happens-before as the explorers' race finder orders steps", () => {
  it('two readers inside a read section at once: every class dfs runs within 2 preemptions, bpor runs too, and optimal each once', async () => {
    const file = fixture('soundness/readers_together.c');
    // false: no happens-before fingerprints (classes, repeats), which this test does not read
    const dfs = await exploreAll(file, 'dfs', 2, 'drf', Infinity, 10_000, {}, undefined, false);
    const bpor = await exploreAll(file, 'bpor', 2, 'drf', Infinity, 10_000, {}, undefined, false);
    const optimal = await exploreAll(file, 'optimal', Infinity, 'drf', Infinity, 10_000, {}, undefined, false);
    expect(bpor.coverage).toEqual(dfs.coverage);
    for (const found of dfs.coverage) expect(optimal.coverage.has(found)).toBe(true);
    expect(optimal.coverage.size).toBeGreaterThan(dfs.coverage.size);
    expect(optimal.executions).toBe(optimal.coverage.size);
  });

  it('main blocked in pthread_join hands the processor over: bpor runs every class dfs runs within 1 and 2 preemptions', async () => {
    const file = fixture('soundness/join_hands_over.c');
    for (const bound of [1, 2]) {
      const dfs = await exploreAll(file, 'dfs', bound, 'drf', Infinity, 10_000, {}, undefined, false);
      const bpor = await exploreAll(file, 'bpor', bound, 'drf', Infinity, 10_000, {}, undefined, false);
      expect(bpor.coverage, `bound ${bound}`).toEqual(dfs.coverage);
      expect(bpor.executions).toBeLessThanOrEqual(dfs.executions);
    }
  });

  it('a class is the same however its steps were interleaved: threads on disjoint data make 1 class of many schedules', async () => {
    const dfs = await exploreAll(fixture('por/indexer.c'), 'dfs', Infinity, 'drf', Infinity, 10_000, {}, undefined, false);
    expect(dfs.executions).toBeGreaterThan(1);
    expect(dfs.coverage.size).toBe(1);
  });

  it('one more turn of a spin loop is no new class: dfs runs many turn counts, optimal each class they fall into once', async () => {
    const file = writeHarness(`#include <pthread.h>
#include <weft.h>
static int flag;
static void *setter(void *unused) { __atomic_store_n(&flag, 1, __ATOMIC_SEQ_CST); return unused; }
WEFT_TEST(spin_until_set) {
  pthread_t t;
  pthread_create(&t, 0, setter, 0);
  while (__atomic_load_n(&flag, __ATOMIC_SEQ_CST) == 0) {}
  pthread_join(t, 0);
}
`, 'spin_until_set.c');
    const dfs = await exploreAll(file, 'dfs', Infinity, 'drf', Infinity, 10_000, {}, undefined, false);
    const optimal = await exploreAll(file, 'optimal', Infinity, 'drf', Infinity, 10_000, {}, undefined, false);
    expect(dfs.bugs.size).toBe(0);
    // the store before main's first read, or after some reads of 0
    expect(dfs.coverage.size).toBe(2);
    expect(dfs.executions).toBeGreaterThan(2);
    expect(optimal.coverage).toEqual(dfs.coverage);
  });
});

/**
 * fixedShape: a seed's program as the fixed seeds below were chosen with, before workerCreates
 * (seed 55's unbounded dfs passes its cap with it); WORKER_CREATES_SEED writes that construct.
 */
const WORKER_CREATES_SEED = 22;
/**
 * Fixed seeds whose unbounded dfs is past a unit test, with the limit it is stopped at here:
 * they are compared at bounds 0-3 only. Seed 6's runs 274,340 executions (one to two minutes);
 * unbounded, it is compared by `npm run soundness -- --first 6 --seeds 1 --limit 300000`,
 * which writes the same program (randomShape(6) has no workerCreates).
 */
const UNBOUNDED_IN_THE_SCRIPT = new Map([[6, 5_000]]);

describe('soundness on random programs', () => {
  // together they write every construct the generator knows (checked below), and each
  // program's unbounded dfs is small but those of UNBOUNDED_IN_THE_SCRIPT; those of
  // POR_HOLES_AT_BOUNDS are compared at the bounds their hole needs, serially (unbounded and
  // split by `npm run soundness -- --known`)
  const seeds = [4, 6, 10, 20, 42, 43, 49, 50, 55, 62, 87, 91, 110, 139, 160, 186, 203, 217, 234, 1469];
  const shapes = [...seeds.map(fixedShape), randomShape(WORKER_CREATES_SEED)];

  it('the fixed seeds write every construct the generator knows', () => {
    const [example] = shapes;
    for (const [key, value] of Object.entries(example!)) {
      if (typeof value !== 'boolean') continue;
      expect(shapes.some((shape) => shape[key as keyof ProgramShape] === true), key).toBe(true);
    }
    expect(new Set(shapes.map((shape) => shape.plain)).size).toBe(2);
    expect(new Set(shapes.map((shape) => shape.lock))).toEqual(new Set(['none', 'mutex', 'semaphore', 'rwlock']));
    expect(new Set(shapes.map((shape) => shape.mainEnd))).toEqual(new Set(['join', 'return', 'exit', 'pthread_exit']));
    // readers counted inside a read section need the read-write lock (seed 160: optimal and bpor missed two inside at once)
    expect(shapes.some((shape) => shape.lock === 'rwlock' && shape.readerCounts)).toBe(true);
    // a stack shared by address both ways: a worker's frame handed to a helper (62), main's frame (203); a local read after its function returned (87)
    const programs = [...seeds, WORKER_CREATES_SEED].map((seed, n) => randomProgram(seed, shapes[n]));
    expect(programs.some((program) => program.includes('frame_helper'))).toBe(true);
    expect(programs.some((program) => program.includes('frame = '))).toBe(true);
    expect(programs.some((program) => program.includes('late_start'))).toBe(true);
  });

  it.each([...seeds, WORKER_CREATES_SEED])('seed %i: every strategy sees the bugs and final states dfs sees (bounded: at bounds 0-3), with no redundant run', async (seed) => {
    const shape = seed === WORKER_CREATES_SEED ? randomShape(seed) : fixedShape(seed);
    const file = writeHarness(randomProgram(seed, shape), `random_${seed}.c`);
    const atBounds = POR_HOLES_AT_BOUNDS.seeds.includes(seed);
    const limit = atBounds ? BOUNDS_ONLY : UNBOUNDED_IN_THE_SCRIPT.get(seed);
    const soundness = await checkSoundness(file, shape.plain ? 'sc' : 'drf', 3, limit, undefined, !atBounds);
    expect(soundness).toMatchObject({ problems: [], pastBug: [], redundant: [], dfsTruncated: limit !== undefined, truncated: [] });
  });

  it.each(seeds)('seed %i: the default policy (auto) gives the verdict of dfs at bound 3: the same status, and a bug with as few preemptions', async (seed) => {
    const shape = fixedShape(seed);
    const file = writeHarness(randomProgram(seed, shape), `random_${seed}.c`);
    const options = { mode: shape.plain ? 'sc' as const : 'drf' as const, maxBound: 3 };
    const truth = (await checkAllInterleavings(file, { ...options, strategy: 'dfs' })).tests[0]!;
    const auto = (await checkAllInterleavings(file, options)).tests[0]!;
    expect(auto.status).toBe(truth.status);
    if (truth.status === 'fail') expect([auto.bound, auto.bug!.preemptions]).toEqual([truth.bound, truth.bug!.preemptions]);
  });
});

// Four-thread programs compared for coverage (seeds 2 and 4, every strategy at bounds 0-3) are run
// by `npm run soundness -- --known` (test/support/known-seeds.ts).
describe('soundness on random programs of five threads', () => {
  // main returns while a thread that only started waits at pthread_once: that start shows nothing, and bpor need not run it
  it('five threads, seed 251: bpor sees every class dfs sees at bounds 0-1; optimal explores it to the end', async () => {
    const seed = 251;
    // bpor's serial search, at the bounds alone (POR_FIVE_THREADS: its splits by npm run soundness -- --known)
    const { file, result } = await checkKnownSeed(POR_FIVE_THREADS, seed, writeHarness, false);
    expect(result).toMatchObject({ problems: [], pastBug: [], redundant: [], truncated: [] });
    const mode = POR_FIVE_THREADS.shape(seed).plain ? 'sc' : 'drf';
    // unbounded dfs passes 20,000 executions, so the oracle has nothing to compare optimal's
    // unbounded search with (it ran it, and fingerprinted its 11,540 executions, to no
    // comparison): it must end, complete, without an error, within the oracle's cap and step bound
    const optimal = await exploreAll(file, 'optimal', Infinity, mode, 100_000, 200, {}, undefined, false);
    expect(optimal).toMatchObject({ complete: true, truncated: false });
  });
});
