// Random-program seeds that npm test once compared with dfs for coverage alone (no hole of
// their own named): they left the suite (SPIN_EXCHANGE_LOCKS: their shard and worker splits
// did; POR_HOLES_AT_BOUNDS and POR_FIVE_THREADS: what their hole does not need, see there)
// for `npm run soundness -- --known`, which runs every list here exactly as the tests ran
// it (the same program, strategies, bounds, execution limit, splits, and the same lists of the
// oracle's result required empty). This module is the one copy: the script reads it, and so do
// the tests that still run a list's programs their own way. Seeds that guard a hole found
// before stay in their test files.
import { type ProgramShape, randomProgram, randomShape, spinlockShape, withThreads, withinGraphEngine, withoutReadWriteLocksOrOnce } from './random-programs.js';
import { BOUNDS_ONLY, type Soundness, checkSoundness } from './soundness-check.js';

/** The lists of the oracle's result (soundness-check.ts) a known seed must leave empty. */
export type RequiredEmpty = 'problems' | 'pastBug' | 'redundant' | 'refused' | 'truncated';

export interface KnownSeeds {
  /** where the seeds ran before, and what they compare */
  name: string;
  seeds: readonly number[];
  /** the program's shape for a seed */
  shape(seed: number): ProgramShape;
  /** the file name the test wrote the program to */
  fileName(seed: number): string;
  /** compared at bounds 0..bound, and unbounded where unbounded dfs stays within `limit` executions */
  bound: number;
  limit: number;
  /** the strategies checked (dfs is the truth); all exhaustive ones when left out */
  strategies?: readonly string[];
  required: readonly RequiredEmpty[];
}

/**
 * A seed's program as por.test.ts's fixed seeds were chosen with, before workerCreates: with a
 * worker creating a thread too, some of them grow past what a unit test should run.
 */
export const fixedShape = (seed: number): ProgramShape => ({ ...randomShape(seed), workerCreates: false });

/**
 * test/spin.test.ts: exchange locks without a yield, where the strategies run a spin for
 * different numbers of turns (seed 12: three threads take the lock, a worker creating a thread
 * too). The test compares the strategies' serial searches; the shard and worker splits, seven
 * tenths of the time, are compared here alone.
 */
export const SPIN_EXCHANGE_LOCKS: KnownSeeds = {
  name: 'spin: random programs with an exchange spinlock without a yield',
  seeds: [12],
  shape: (seed) => ({ ...randomShape(seed), spinlock: spinlockShape(seed) }),
  fileName: (seed) => `random_${seed}.c`,
  bound: 3,
  limit: 5_000,
  required: ['problems', 'pastBug', 'redundant', 'truncated'],
};

/**
 * test/por.test.ts: fixed seeds whose hole is a bounded strategy's at a bound (55: bpor missed a
 * bound-2 behaviour), compared there by the strategies' serial searches at bounds 0-3. Their
 * unbounded dfs (55: 8,505 executions, half the test's time), with which optimal and the claims
 * to be complete are compared, and the shard and worker splits are compared here alone.
 */
export const POR_HOLES_AT_BOUNDS: KnownSeeds = {
  name: 'por: fixed random programs whose hole is at a bound, unbounded and split',
  seeds: [55],
  shape: fixedShape,
  fileName: (seed) => `random_${seed}.c`,
  bound: 3,
  limit: Number.POSITIVE_INFINITY,
  required: ['problems', 'pastBug', 'redundant', 'truncated'],
};

/**
 * test/por.test.ts: five threads, bpor against dfs at bounds 0-1 (251: a start that showed
 * nothing, which bpor need not run, was a difference of the oracle's classes; its unbounded dfs
 * passes 20,000 executions). The test compares bpor's serial search; its shard and worker
 * splits are compared here alone.
 */
export const POR_FIVE_THREADS: KnownSeeds = {
  name: 'por: random programs of five threads, split',
  seeds: [251],
  shape: (seed) => withThreads(fixedShape(seed), 5),
  fileName: (seed) => `random_5x_${seed}.c`,
  bound: 1,
  limit: BOUNDS_ONLY,
  strategies: ['bpor'],
  required: ['problems', 'pastBug', 'redundant', 'truncated'],
};

export const KNOWN_SEEDS: readonly KnownSeeds[] = [
  SPIN_EXCHANGE_LOCKS,
  POR_HOLES_AT_BOUNDS,
  POR_FIVE_THREADS,
  {
    // test/graph.test.ts: seeds whose programs the graph engine supports (it refuses most
    // generated programs: yields, condition variables, spins, frees another thread's use is
    // not ordered with, destroys before every join); 689 and 692 free a block the others use first
    name: 'graph: random programs',
    seeds: [1, 2, 4, 15, 19, 24, 29, 37, 38, 40, 47, 54, 60, 62, 70, 77, 85, 90, 94, 99, 109, 111, 113, 123, 127, 134, 145, 150, 157, 161, 385, 689, 692],
    shape: randomShape,
    fileName: (seed) => `random_${seed}.c`,
    bound: 3,
    limit: 5_000,
    strategies: ['graph'],
    required: ['refused', 'problems', 'redundant'],
  },
  {
    // test/graph.test.ts: four-thread programs drawn within what the engine models (a chain of
    // revisits across threads)
    name: 'graph: random programs of four threads within what the engine models',
    seeds: [1, 2, 3],
    shape: (seed) => withoutReadWriteLocksOrOnce(withinGraphEngine(withThreads(randomShape(seed), 4))),
    fileName: (seed) => `random_${seed}_4_graph.c`,
    bound: 3,
    limit: 5_000,
    strategies: ['graph'],
    required: ['refused', 'problems', 'redundant'],
  },
  {
    // test/por.test.ts: the oracle at four threads, every strategy
    name: 'por: random programs of four threads',
    seeds: [2, 4],
    shape: (seed) => withThreads(fixedShape(seed), 4),
    fileName: (seed) => `random_4x_${seed}.c`,
    bound: 3,
    limit: 5_000,
    required: ['problems', 'pastBug', 'redundant', 'truncated'],
  },
];

/**
 * A known list's seed compared as its test compared it: the program written by `write`, and the
 * oracle's result. `splits` false leaves out the shard and worker splits (a test that keeps the
 * serial comparison of a list in npm test).
 */
export async function checkKnownSeed(
  list: KnownSeeds, seed: number, write: (source: string, name: string) => string, splits = true,
): Promise<{ file: string; result: Soundness; failures: string[] }> {
  const shape = list.shape(seed);
  const file = write(randomProgram(seed, shape), list.fileName(seed));
  const result = await checkSoundness(file, shape.plain ? 'sc' : 'drf', list.bound, list.limit, list.strategies, splits);
  const failures = list.required.flatMap((field) => result[field].map((line) => `${field}: ${line}`));
  return { file, result, failures };
}
