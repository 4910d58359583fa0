// optimal: optimal DPOR (wakeup sequences and sleep sets): one execution per Mazurkiewicz
// trace. Under a preemption bound (any finite maxBound) it explores every class that has
// a schedule within the bound, each once, iteration c counting the classes that need
// exactly c; with maxBound = Infinity it verifies completely in one pass. A run follows a
// whole wakeup sequence, then the runtime's default policy avoids the sleeping threads,
// so runs are not wasted; one that still reaches a sleeping thread (the runtime forces it
// after a yield) is cut short and reported as redundant.
import { DporStrategy } from './dpor.js';
import type { StrategyOptions } from './strategy.js';

export const createOptimal = (options: StrategyOptions) => new DporStrategy({ ...options, name: 'optimal', reduction: 'optimal' });
