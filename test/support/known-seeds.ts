// Random-program seeds that npm test once compared with dfs for coverage alone (no hole of
// their own named): they left the suite (SPIN_EXCHANGE_LOCKS: their shard and worker splits
// did) for `npm run soundness -- --known`, which runs every list here exactly as the tests ran
// it (the same program, strategies, bounds, execution limit, splits, and the same lists of the
// oracle's result required empty). This module is the one copy: the script reads it, and so do
// the tests that still run a list's programs their own way. Seeds that guard a hole found
// before stay in their test files.
import { type ProgramShape, randomProgram, randomShape, spinlockShape, withThreads, withinGraphEngine } from './random-programs.js';
import { type Soundness, checkSoundness } from './soundness-check.js';

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

export const KNOWN_SEEDS: readonly KnownSeeds[] = [
  SPIN_EXCHANGE_LOCKS,
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
    shape: (seed) => withinGraphEngine(withThreads(randomShape(seed), 4)),
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
