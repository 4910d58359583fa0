// The graph engine's refusal: a harness that uses what it does not model yet gets one clear
// message naming it, never a silently wrong count.
import { WeftError } from '../../errors.js';

export class UnsupportedHarnessError extends WeftError {
  constructor(what: string) {
    super('unsupported', `strategy graph does not support ${what} yet; use strategy optimal for this harness`);
    this.name = 'UnsupportedHarnessError';
  }
}
