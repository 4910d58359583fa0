import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/index.js';
import '../src/vitest/matchers.js';
import { fixture } from './support/harness.js';

describe('expect(result).toPassAllInterleavings()', () => {
  it('passes on a correct file and fails, with the counterexample, on a buggy one', async () => {
    expect(await checkAllInterleavings(fixture('locked_counter.c'))).toPassAllInterleavings();
    const buggy = await checkAllInterleavings(fixture('lost_update.c'), { mode: 'sc' });
    expect(buggy).not.toPassAllInterleavings();
    expect(() => expect(buggy).toPassAllInterleavings()).toThrow(/assertion failed: counter == 2[\s\S]*replay: weft1:lost_update:sc:/);
  });
});
