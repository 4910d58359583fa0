// The default run on a harness too big to exhaust: once one bound of the systematic search
// has run for SEARCH_ALONE_MS without finishing, PCT samples take turns with it, a slice of
// time each, so that a bug behind a huge bound-0 space is still found. The first bug wins;
// a sampled one is then searched for again with fewer preemptions, on its threads only.
import type { NativeHarness } from '../addon/addon.js';
import { DfsStrategy } from './dfs.js';
import { type DriveOptions, type FailingExecution, type Interlude, drive } from './driver.js';
import { FocusedStrategy, threadsOfFailure } from './focused.js';
import { PctStrategy } from './pct.js';
import { isEmpty } from './thread-set.js';
import { counted } from '../numbers.js';

export const SEARCH_ALONE_MS = 1_000;
/** a sampling turn: as long as one slice of the search between two turns */
const TURN_MS = 50;
/** the longest a sampled bug's minimisation may take */
const MINIMISE_MS = 1_000;

export class SamplingTurns {
  /** sampled runs so far */
  runs = 0;
  /** the sampler's words for the run that found a bug */
  found?: string;
  private readonly sampler: PctStrategy;

  constructor(
    private readonly harness: NativeHarness,
    private readonly options: Omit<DriveOptions, 'maxExecutions' | 'timeBudgetMs' | 'onProgress' | 'interlude'>,
    seed: number, depth: number,
    /** the most the minimisation may take (a test on a loaded machine gives it more) */
    private readonly minimiseMs = MINIMISE_MS,
  ) {
    this.sampler = new PctStrategy(seed, depth);
  }

  readonly interlude: Interlude = async ({ boundMs, executionsLeft }) => {
    if (boundMs < SEARCH_ALONE_MS) return undefined;
    const turn = await drive(this.harness, this.sampler, { ...this.options, maxExecutions: executionsLeft, timeBudgetMs: TURN_MS });
    this.runs += turn.executions;
    if (turn.failure) this.found = this.sampler.foundBy();
    return turn;
  };

  /**
   * The sampled failure, found again with fewer preemptions where a bounded search (bounds
   * 0 up to one fewer) on its threads (FocusedStrategy) can within `budgetMs`, then
   * simplified; and how it was found, in words. `searchName` was at `searchBound`.
   */
  async minimised(
    sampled: FailingExecution, searchName: string, searchBound: number,
    simplify: (failure: FailingExecution) => Promise<FailingExecution>, budgetMs: number,
  ): Promise<{ failure: FailingExecution; foundBy: string; fewest: boolean }> {
    const fewer = await this.fewerPreemptions(sampled, Math.min(this.minimiseMs, budgetMs));
    const failure = fewer ? await simplify(fewer) : sampled;
    const { preemptions } = failure;
    const minimised = fewer ? `; minimised from ${sampled.preemptions} to ${counted(preemptions, 'preemption')} by a bounded search on its threads` : '';
    // the bounds below the one the search was running were explored without a bug
    const fewest = preemptions > 0 && preemptions <= searchBound
      ? `; no bug needs fewer than ${counted(preemptions, 'preemption')}: ${searchName} explored bound${preemptions > 1 ? `s 0-${preemptions - 1}` : ' 0'} without one` : '';
    return { failure, foundBy: `${this.found}, taking turns with bound ${searchBound} of ${searchName}${minimised}${fewest}`, fewest: preemptions <= searchBound };
  }

  private async fewerPreemptions(failure: FailingExecution, timeBudgetMs: number): Promise<FailingExecution | undefined> {
    const focus = threadsOfFailure(failure);
    const maxBound = failure.preemptions - 1;
    if (isEmpty(focus, 0) || maxBound < 0 || timeBudgetMs <= 0) return undefined;
    const search = new FocusedStrategy(new DfsStrategy({ maxBound }), focus);
    const again = (await drive(this.harness, search, { ...this.options, maxBound, maxExecutions: Number.POSITIVE_INFINITY, timeBudgetMs })).failure;
    const same = again && again.outcome === failure.outcome && again.result.message === failure.result.message && again.result.pc === failure.result.pc;
    return same && again.preemptions < failure.preemptions ? again : undefined;
  }

  coverage(): string {
    return this.sampler.coverage(this.runs);
  }
}
