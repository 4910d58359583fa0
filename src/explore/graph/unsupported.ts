// The graph engine's refusal: a harness that uses what it does not model yet is never given a
// silently wrong count; the message names what, and check.ts explores the test with the
// strategy the default would use instead, saying so.
import { WeftError } from '../../errors.js';

export class UnsupportedHarnessError extends WeftError {
  constructor(what: string) {
    super('unsupported', `strategy graph does not support ${what} yet`);
    this.name = 'UnsupportedHarnessError';
  }
}
