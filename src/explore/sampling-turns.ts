// The default run on a harness too big to exhaust: once one bound of the systematic search
// has run for SEARCH_ALONE_MS without finishing, PCT samples take turns with it, a slice of
// time each, so that a bug behind a huge bound-0 space is still found. The first bug wins.
import type { NativeHarness } from '../addon/addon.js';
import { type DriveOptions, type Interlude, drive } from './driver.js';
import { PctStrategy } from './pct.js';

export const SEARCH_ALONE_MS = 1_000;
/** a sampling turn: as long as one slice of the search between two turns */
const TURN_MS = 50;

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

  coverage(): string {
    return this.sampler.coverage(this.runs);
  }
}
