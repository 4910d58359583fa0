// Replaying one given schedule (a counterexample from a replay string, or a candidate of
// its simplification) is a strategy too: one schedule, run once through the driver, so
// that it runs and reports a failing execution exactly as exploration does.
import { type DriveOptions, type Exploration, drive } from './driver.js';
import type { Schedule, Strategy } from './strategy.js';
import type { NativeHarness } from '../addon/addon.js';

export class ReplayStrategy implements Strategy {
  readonly name = 'replay';
  readonly bounded = false;
  private schedule: Schedule | undefined;

  constructor(decisions: Uint16Array) {
    this.schedule = { decisions, length: decisions.length };
  }

  beginBound(): boolean {
    return true;
  }

  next(): Schedule | undefined {
    const schedule = this.schedule;
    this.schedule = undefined;
    return schedule;
  }

  observe(): boolean {
    return true;
  }

  beyondMaxBound(): boolean {
    return false;
  }
}

export type ReplayOptions = Omit<DriveOptions, 'maxBound' | 'maxExecutions' | 'timeBudgetMs' | 'onProgress' | 'interlude'>;

/**
 * Runs `decisions` once (the runtime completes the run past them): its failure, if it
 * fails. A harness the schedule does not fit throws UnexplorableHarnessError.
 */
export function replaySchedule(harness: NativeHarness, decisions: Uint16Array, options: ReplayOptions): Promise<Exploration> {
  const once = { maxBound: 0, maxExecutions: Number.POSITIVE_INFINITY, timeBudgetMs: Number.POSITIVE_INFINITY };
  return drive(harness, new ReplayStrategy(decisions), { ...options, ...once });
}
