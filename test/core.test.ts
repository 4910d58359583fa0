import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/index.js';
import { fixture } from './support/harness.js';

describe('core exploration', () => {
  it('finds a lost update on a plain int in sc mode at bound 1', async () => {
    const result = await checkAllInterleavings(fixture('lost_update.c'), { mode: 'sc', strategy: 'dfs' });
    const [test] = result.tests;
    expect(test?.status).toBe('fail');
    expect(test?.bug?.kind).toBe('assertion');
    expect(test?.bug?.preemptions).toBe(1);
    expect(test?.bound).toBe(1);
    expect(test?.bug?.message).toBe('counter == 2');
  });

  it('finds the two-lock deadlock at bound 1', async () => {
    const result = await checkAllInterleavings(fixture('deadlock_two_locks.c'), { strategy: 'dfs' });
    expect(result.tests[0]?.bug?.kind).toBe('deadlock');
    expect(result.tests[0]?.bug?.preemptions).toBe(1);
  });

  it('passes a correctly locked counter exhaustively', async () => {
    const result = await checkAllInterleavings(fixture('locked_counter.c'), { mode: 'sc', strategy: 'dfs', maxBound: 10 });
    expect(result.tests[0]).toMatchObject({ status: 'pass', complete: true });
  });
});
