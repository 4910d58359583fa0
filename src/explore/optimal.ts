// optimal: unbounded DPOR with sleep sets, for complete verification: one execution per
// Mazurkiewicz trace on the programs weft's tests count; a run the runtime's default
// policy continues into a sleeping thread is cut short and reported as redundant.
import { DporStrategy } from './dpor.js';
import type { StrategyOptions } from './strategy.js';

export const createOptimal = (options: StrategyOptions) =>
  new DporStrategy({ ...options, name: 'optimal', bounded: false, sleepSets: true });
