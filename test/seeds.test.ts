import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/index.js';
import { fixture } from './support/harness.js';

// The source papers' experiments, re-expressed as fixtures (fixtures/seeds): the bugs
// SCALE, CHESS and Inspect discussed are found with the fewest preemptions, and the
// correct programs pass.
describe('seed papers: bugs found', () => {
  it.each([
    ['bug_inspect.c', 'x = 5'],
    ['producer_consumer.c', 'already in the buffer'],
    ['nonblocking_queue.c', 'item 0 lost'],
    ['figure1.c', 'y ended as 1'],
  ])('%s', async (file, message) => {
    const test = (await checkAllInterleavings(fixture(`seeds/${file}`), { maxBound: 2, maxSteps: 5000 })).tests[0]!;
    expect(test.status).toBe('fail');
    expect(test.bug?.kind).toBe('assertion');
    expect(test.bug?.message).toContain(message);
    // never more preemptions than the smallest bound at which dfs finds it
    const dfs = (await checkAllInterleavings(fixture(`seeds/${file}`), { strategy: 'dfs', maxBound: 2, maxSteps: 5000 })).tests[0]!;
    expect(test.bug?.preemptions).toBe(dfs.bound);
    const hbcache = (await checkAllInterleavings(fixture(`seeds/${file}`), { strategy: 'hbcache', maxBound: 2, maxSteps: 5000 })).tests[0]!;
    // the queue's threads yield while it is full or empty: hbcache refuses that (exit 2)
    if (file === 'nonblocking_queue.c') expect(hbcache.error).toMatch(/^hbcache does not explore harnesses that yield/);
    else expect([hbcache.bug?.message, hbcache.bug?.preemptions]).toEqual([test.bug?.message, dfs.bound]);
  });
});

describe('seed papers: correct programs pass', () => {
  it.each(['nonblocking_queue_fixed.c', 'reusable_barrier.c', 'thread_pool.c', 'work_stealing_queue.c'])('%s', async (file) => {
    const test = (await checkAllInterleavings(fixture(`seeds/${file}`), { maxBound: 2, maxSteps: 5000 })).tests[0]!;
    expect([test.status, test.bug?.message]).toEqual(['pass', undefined]);
  });

  it('the indexer with 7 threads: 1 execution with bpor and with optimal', async () => {
    for (const strategy of ['bpor', 'optimal']) {
      const test = (await checkAllInterleavings(fixture('seeds/indexer.c'), { strategy, maxBound: 2, cflags: '-DNTHREADS=7' })).tests[0]!;
      expect([strategy, test.status, test.executions]).toEqual([strategy, 'pass', 1]);
    }
  });
});
