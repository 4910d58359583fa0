// What a run explored, in words: the guarantee every result carries. Never more than what was done.
import type { Exploration } from '../explore/driver.js';
import type { BoundKind } from '../explore/strategy.js';
import { withThousands } from '../numbers.js';

/** How a guarantee starts when the bug was not found by the bound iterations (a sampler, or the default's optimal phase). */
export const FOUND_BY = 'bug found by ';

export function guarantee(run: Exploration & { sampled?: string; foundBy?: string }, kind: BoundKind): string {
  if (run.foundBy !== undefined) return `${FOUND_BY}${run.foundBy}`;
  if (run.sampled !== undefined)
    return run.failure ? `${FOUND_BY}${run.sampled}` : `${withThousands(run.executions)} runs, no bug; ${run.sampled}`;
  const spent = kind === 'delay' ? 'delays' : 'preemptions';
  switch (run.stoppedBy) {
    case 'bug':
      return `bug found at ${kind === 'delay' ? 'delay ' : ''}bound ${run.bound} after ${run.executions} executions`;
    case 'exhausted':
      return 'complete: every interleaving explored';
    case 'replayed':
      return 'one execution replayed: it passes';
    case 'max-bound':
      return `all executions with ≤ ${run.bound} ${spent} explored`;
    case 'max-executions':
    case 'time-budget':
      return `budget exhausted (${run.stoppedBy === 'time-budget' ? 'timeBudgetMs' : 'maxExecutions'}) during bound ${run.reachedBound} after ${run.executions} executions; ` +
        (run.bound >= 0 ? `all executions with ≤ ${run.bound} ${spent} explored` : 'no bound fully explored');
  }
}

