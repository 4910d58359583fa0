// What the sampling strategies (random, pct) share: a seeded generator, runs drawn one by
// one until the budget ends (they never run out and never claim completeness), and what
// they learn from each run (how many threads, how many steps) for the guarantee they state.
// The runtime draws at every step (RunFlags.SAMPLE): a run is one call, and its decisions
// come back in the trace, so a failing run has the normal replay string.
import { MAX_THREADS } from '../addon/ops.js';
import type { ExecutionView, Sample, Schedule, Strategy } from './strategy.js';

/** Runs of a sampler given neither maxExecutions nor timeBudgetMs. */
export const SAMPLES_WITHOUT_BUDGET = 10_000;
/** A fixed seed by default: the same options sample the same runs (and Vitest's reuse of a passing result stays true). */
export const DEFAULT_SEED = 1;
export const DEFAULT_PCT_DEPTH = 3;

/** mulberry32: a small seeded generator of 32-bit values (same seed, same sequence). */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next32(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), this.state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** A whole number in 0..n-1 (n ≤ 2^32). */
  below(n: number): number {
    return Math.floor((this.next32() / 2 ** 32) * n);
  }
}

export abstract class Sampler implements Strategy {
  abstract readonly name: string;
  readonly bounded = false;
  readonly exhaustive = false;
  protected readonly random: SeededRandom;
  /** threads of the widest run so far (n) */
  protected threads = 0;
  /** steps of the longest run so far (k) */
  protected steps = 0;
  /** runs drawn so far: the last one is the run that just ran */
  protected drawn = 0;
  private readonly schedule: Schedule & { sample: Sample };

  constructor(protected readonly seed: number) {
    this.random = new SeededRandom(seed);
    this.schedule = { decisions: new Uint16Array(0), length: 0, sample: { seed: 0 } };
  }

  beginBound(bound: number): boolean {
    return bound === 0;
  }

  next(): Schedule {
    this.drawn++;
    // 53 bits for the runtime's generator: two draws
    this.schedule.sample.seed = (this.random.next32() & 0x1fffff) * 2 ** 32 + this.random.next32();
    this.prepare(this.schedule.sample);
    return this.schedule;
  }

  /** Fills in what the strategy adds to the next run's draw (pct: priorities, change points). */
  protected abstract prepare(sample: Sample): void;

  observe(execution: ExecutionView): boolean {
    this.steps = Math.max(this.steps, execution.steps);
    let threads = 0;
    for (let thread = 0; thread < MAX_THREADS; thread++) if (execution.threadState[thread] !== 0) threads++;
    this.threads = Math.max(this.threads, threads);
    return true;
  }

  beyondMaxBound(): boolean {
    return false;
  }

  /** The run that just failed, in words: "PCT run 3,112 (depth 3, seed 7)". */
  abstract foundBy(): string;

  /** What `runs` passing runs covered, in words. */
  abstract coverage(runs: number): string;
}

