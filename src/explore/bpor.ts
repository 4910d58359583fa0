// bpor: DPOR under a preemption bound (the default auto policy's bounded search), made sound by BPOR's conservative
// backtrack points (Coons, Musuvathi, McKinley 2013): a race also backtracks at the
// point where the earlier thread last got the processor. No sleep sets here: under a
// bound they can hide behaviours (Musuvathi & Qadeer's Figure 1), and with them this
// search lost behaviours in test/por.test.ts's random programs.
import { DporStrategy } from './dpor.js';
import type { StrategyOptions } from './strategy.js';

export const createBpor = (options: StrategyOptions) =>
  new DporStrategy({ ...options, name: 'bpor', bounded: true, sleepSets: false });
