// What a run explored, in words: the guarantee every result carries. Never more than what was done.
import type { Exploration } from '../explore/driver.js';
import type { BoundKind } from '../explore/strategy.js';
import { withThousands } from '../numbers.js';

/** How a guarantee starts when the bug was not found by the bound iterations (a sampler, or the default's optimal phase). */
const FOUND_BY = 'bug found by ';

/** The option whose budget a run stopped by its budget spent. */
export const budgetName = (stoppedBy: 'max-executions' | 'time-budget') => (stoppedBy === 'time-budget' ? 'timeBudgetMs' : 'maxExecutions');

export function guarantee(run: Exploration & { sampled?: string; foundBy?: string; strategy?: string }, kind: BoundKind): string {
  if (run.foundBy !== undefined) return `${FOUND_BY}${run.foundBy}`;
  if (run.sampled !== undefined) {
    if (run.failure) return `${FOUND_BY}${run.sampled}`;
    return `${run.stoppedBy === 'interrupted' ? 'interrupted after ' : ''}${withThousands(run.executions)} runs, no bug; ${run.sampled}`;
  }
  const spent = kind === 'delay' ? 'delays' : 'preemptions';
  switch (run.stoppedBy) {
    case 'bug':
      return `bug found at ${kind === 'delay' ? 'delay ' : ''}bound ${run.bound} after ${withThousands(run.executions)} executions`;
    case 'exhausted':
      return 'complete: every interleaving explored';
    case 'replayed':
      return 'one execution replayed: it passes';
    case 'max-bound':
      return `all executions with ≤ ${run.bound} ${spent} explored`;
    case 'max-executions':
    case 'time-budget':
      return `budget exhausted (${budgetName(run.stoppedBy)}) ${stoppedDuring(run, spent)}`;
    case 'interrupted':
      // by an abort signal (the CLI's on Ctrl-C): the API's caller may have had another reason
      return `interrupted ${stoppedDuring(run, spent)}`;
  }
}

/** Where a search stopped before its end, and the bounds it had finished by then (optimal DPOR explores them all at once: none). */
function stoppedDuring(run: Exploration & { strategy?: string }, spent: string): string {
  const where = run.strategy === 'optimal' ? `after ${withThousands(run.executions)} executions of optimal DPOR, which explores every bound at once` : `during bound ${run.reachedBound} after ${withThousands(run.executions)} executions`;
  return `${where}; ${run.bound >= 0 ? `all executions with ≤ ${run.bound} ${spent} explored` : 'no bound fully explored'}`;
}

