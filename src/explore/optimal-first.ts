// The default search starts with optimal DPOR alone, for a share of the budget (all of it
// when there is no bound: a complete search is what was asked for): most harnesses are
// small enough for it to run every Mazurkiewicz class once and finish, and "complete" is
// then the guarantee, whatever the bound. When it does not finish in its share, the
// bounded search (bpor, with PCT turns) takes over from bound 0, as if it had been alone. When it finds a bug, the bounded search runs only the bounds below the
// bug's preemptions: a bug it finds there has fewer, and if it finds none, no bug does.
//
// Both phases are sound on their own, so their composition is: nothing is pruned by a
// bound that DPOR's races would need to get past it (the reason optimal DPOR is not
// pruned by the bound itself: see the README).
import type { NativeHarness } from '../addon/addon.js';
import { type DriveOptions, type Exploration, type FailingExecution, drive } from './driver.js';
import { createOptimal } from './optimal.js';
import { counted, withThousands } from '../numbers.js';

/** optimal's share of a time budget given under a bound, and its time under the default budget or none */
const SHARE = 0.25;
const ALONE_MS = 2_000;

/** Runs optimal DPOR alone within its share of what is left of the budget (`budgetGiven`: by the user, not the default). */
export async function optimalFirst(
  harness: NativeHarness, options: Omit<DriveOptions, 'interlude'>, deadline: number, budgetGiven: boolean,
): Promise<Exploration> {
  const timeLeft = deadline - performance.now();
  const bounded = options.maxBound !== Number.POSITIVE_INFINITY;
  const share = bounded ? SHARE : 1;
  const strategy = createOptimal({ maxBound: options.maxBound, deadline });
  return drive(harness, strategy, {
    ...options,
    maxExecutions: Math.ceil(options.maxExecutions * share),
    timeBudgetMs: bounded && !budgetGiven ? Math.min(ALONE_MS, timeLeft) : timeLeft * share,
  });
}

/** Whether the bounded search need not follow: optimal finished, or its (simplified) bug needs no preemption. */
export function optimalSettled(exploration: Exploration, bug: FailingExecution | undefined): boolean {
  return exploration.stoppedBy === 'exhausted' || bug?.preemptions === 0;
}

/** The bounds the bounded search still has to explore after optimal found `failure`: those below its preemptions. */
export function boundsBelow(failure: FailingExecution, maxBound: number): number {
  return Math.min(maxBound, failure.preemptions - 1);
}

/** Whether the bounded search after optimal explored every bound below its bug's preemptions (none needed for a bug that needs none). */
export function showsFewest(failure: FailingExecution, bounded: Exploration | undefined): boolean {
  const below = failure.preemptions - 1;
  return below < 0 || (bounded !== undefined && (bounded.complete || bounded.bound >= below));
}

/**
 * How optimal's bug was found, and whether the bounded search showed that no bug needs fewer
 * preemptions. `bounded` undefined: it did not run, for `interrupted` or for want of budget.
 */
export function optimalFoundBy(failure: FailingExecution, executions: number, bounded: Exploration | undefined, searchName: string, interrupted: boolean): string {
  const below = failure.preemptions - 1;
  const fewest = showsFewest(failure, bounded)
    ? `, the fewest: ${searchName} explored bound${below > 0 ? `s 0-${below}` : ' 0'} without a bug`
    : `; ${searchName} ${interrupted ? 'was interrupted' : 'ran out of budget'} before exploring bound ${below}: a bug with fewer preemptions may exist`;
  return `optimal DPOR after ${withThousands(executions)} executions, shown with ${counted(failure.preemptions, 'preemption')}${fewest}`;
}
