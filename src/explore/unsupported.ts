// A strategy's refusal: a harness that does what the strategy does not model (yet) is never
// given a silently wrong answer; the message names what, and check.ts explores the test with
// a strategy that does model it instead, saying so (result.fallback).
import { WeftError } from '../errors.js';
import type { ExecutionView, Strategy } from './strategy.js';

export class UnsupportedHarnessError extends WeftError {
  /** `strategy`: the one that refuses */
  constructor(strategy: string, what: string) {
    super('unsupported', `strategy ${strategy} does not support ${what}`);
    this.name = 'UnsupportedHarnessError';
  }
}

/**
 * Refuses a run with memory steps over common bytes of different extents (runtime/extents.c)
 * for a strategy that reduces by dependence: it takes a memory step's object as its address,
 * so an 8-byte step and a 4-byte step inside it would be taken as independent.
 */
export function refuseMixedExtents(strategy: Pick<Strategy, 'name' | 'reduces'>, view: ExecutionView): void {
  const [address, size, other, otherSize] = view.mixedExtent;
  if (!strategy.reduces || address === 0) return;
  if (otherSize === 0) throw new UnsupportedHarnessError(strategy.name, `a memory step wider than weft follows (${size} bytes at 0x${address!.toString(16)}), or more memory steps in one execution, to tell whether two overlap with different sizes`);
  throw new UnsupportedHarnessError(strategy.name, `memory steps of different sizes over the same bytes (${size} bytes at 0x${address!.toString(16)}, ${otherSize} bytes at 0x${other!.toString(16)}): partial-order reduction takes a step's object as its address`);
}
