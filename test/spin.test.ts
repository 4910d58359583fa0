// Spinlocks and busy-wait loops (issue 39): correct locks pass complete at every
// optimisation level, and a spin nobody can end is a livelock.
import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/index.js';
import { fixture } from './support/harness.js';

const levels = ['-O0', '-O1', '-Os', '-O2', '-O3'];

describe('a lock acquired by an exchange loop in a noinline helper', () => {
  // gcc's ipa-reference kept the static counter in a register across the helpers (-O1
  // and up: lost updates), and -O0's writes to the helper's own stack hid the spin
  it.each(levels)('%s: 2 threads x 2 increments pass complete', async (level) => {
    const test = (await checkAllInterleavings(fixture('spin/exchange_lock.c'), { cflags: level })).tests[0]!;
    expect(test).toMatchObject({ status: 'pass', complete: true });
  });
});
