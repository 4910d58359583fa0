// expect(result).toPassAllInterleavings(): a readable Vitest assertion on the result of
// checkAllInterleavings (a whole file's result, or one test's).
//
//   import 'weft/matchers'
//   expect(await checkAllInterleavings('queue.test.c')).toPassAllInterleavings()
import { expect } from 'vitest';

import type { CheckResult, TestResult } from '../check.js';
import { renderTest } from '../report/render.js';

export const weftMatchers = {
  toPassAllInterleavings(received: CheckResult | TestResult) {
    const tests = 'tests' in received ? received.tests : [received];
    const failing = tests.filter((test) => test.status !== 'pass');
    return {
      pass: failing.length === 0,
      message: () =>
        failing.length > 0
          ? `expected every interleaving to pass:\n${failing.map((test) => renderTest(test, { color: false })).join('\n')}`
          : `expected an interleaving to fail, but every test passed (${tests.map((test) => `${test.name}: ${test.guarantee}`).join('; ')})`,
    };
  },
};

expect.extend(weftMatchers);

declare module 'vitest' {
  interface Assertion<T> {
    toPassAllInterleavings(): T;
  }
  interface AsymmetricMatchersContaining {
    toPassAllInterleavings(): unknown;
  }
}
