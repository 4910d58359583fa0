// A bound's estimated size in words (explore/estimate.ts measures it): the line printed
// before the bound runs, and what helps when it is far beyond the time budget.
import type { BoundEstimate } from '../explore/estimate.js';
import { roughCount, roughDuration } from '../numbers.js';

/** Beyond this many times the budget left, a bound will not finish: say so, and what helps. */
const FAR_BEYOND = 4;

/** A bound estimated to take less is not announced: it is over before a progress line would show. */
const WORTH_SAYING_MS = 2_000;

/** Whether an estimate is printed before its bound runs: a long bound, or one far beyond the budget. */
export const worthSaying = (estimate: { estimate: BoundEstimate; farBeyond?: string }): boolean =>
  estimate.farBeyond !== undefined || estimate.estimate.ms >= WORTH_SAYING_MS;

/** `bound 2: about 1.4 M executions, ~40 s`; a reducing strategy's is a ceiling. */
export function estimateLine(estimate: BoundEstimate, strategy: string): string {
  return `bound ${estimate.bound}: ${size(estimate, strategy)}`;
}

function size(estimate: BoundEstimate, strategy: string): string {
  const executions = `${roughCount(estimate.executions)} ${estimate.executions === 1 ? 'execution' : 'executions'}`;
  return strategy === 'dfs'
    ? `about ${executions}, ${roughDuration(estimate.ms)}`
    : `at most about ${executions} (${strategy} skips equivalent ones), ${roughDuration(estimate.ms)}`;
}

/** Undefined unless the bound is far beyond `msLeft` of the budget: then one line of what helps. */
export function farBeyondBudget(estimate: BoundEstimate, strategy: string, msLeft: number): string | undefined {
  if (!(estimate.ms > FAR_BEYOND * msLeft)) return undefined;
  return `bound ${estimate.bound} ${strategy === 'dfs' ? 'is' : 'may be'} far beyond the time budget (${roughDuration(msLeft).replace('~', '')} left): ` +
    `${size(estimate, strategy)}; what helps: a smaller maxBound, bound delay (when most threads run to their end), ` +
    `fewer threads (${estimate.threads} now), or a sampler (strategy pct)`;
}
