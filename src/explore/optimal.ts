// optimal: unbounded DPOR with wakeup sequences and sleep sets (optimal DPOR), for complete
// verification: one execution per Mazurkiewicz trace. A run follows a whole wakeup
// sequence, then the runtime's default policy avoids the sleeping threads, so runs are
// not wasted; one that still reaches a sleeping thread (the runtime forces it after a
// yield, or a sequence reverses a race with what unblocked a thread, which cannot be
// reversed) is cut short and reported as redundant.
import { DporStrategy } from './dpor.js';
import type { StrategyOptions } from './strategy.js';

export const createOptimal = (options: StrategyOptions) =>
  new DporStrategy({ ...options, name: 'optimal', bounded: false, sleepSets: true });
