import { describe, expect, it } from 'vitest';

import { type CheckOptions, type TestResult, checkAllInterleavings } from '../src/index.js';
import { fixture } from './support/harness.js';

async function results(file: string, options: CheckOptions = {}): Promise<Map<string, TestResult>> {
  const result = await checkAllInterleavings(fixture(`primitives/${file}`), { strategy: 'dfs', maxBound: 2, ...options });
  return new Map(result.tests.map((test) => [test.name, test]));
}

describe('condition variables', () => {
  it('a consumer that waits with `if` instead of `while` takes from an empty buffer (bound 1)', async () => {
    const test = (await results('bounded_buffer.c')).get('two_consumers')!;
    expect(test).toMatchObject({ status: 'fail', bound: 1, bug: { kind: 'assertion', message: 'consumer took from an empty buffer' } });
  });

  it('waiting in a loop is correct', async () => {
    const test = (await results('bounded_buffer.c', { cflags: '-DWAIT_IN_LOOP=1', maxBound: 3 })).get('two_consumers')!;
    expect(test.status).toBe('pass');
  });

  it('a reusable barrier made of a mutex and a condition variable is correct', async () => {
    const test = (await results('condvar_barrier.c')).get('reusable_barrier')!;
    expect(test.status).toBe('pass');
    expect(test.executions).toBeGreaterThan(100);
  });

  it('a thread pool with a job queue and a shutdown broadcast runs every job and never hangs', async () => {
    const test = (await results('thread_pool.c')).get('pool_runs_every_job')!;
    expect(test.status).toBe('pass');
  });

  it('explores the timeout of a timed wait', async () => {
    const test = (await results('timed_wait.c')).get('timeout_is_possible')!;
    expect(test.bug).toMatchObject({ kind: 'assertion', message: 'timed out before the signal' });
  });
});

describe('semaphores, rwlocks, barriers, spinlocks, once, keys', () => {
  it('semaphores: a correct handoff passes, opposite acquisition orders deadlock', async () => {
    const tests = await results('semaphores.c');
    expect(tests.get('handoff')?.status).toBe('pass');
    const deadlock = tests.get('opposite_order')!;
    expect(deadlock).toMatchObject({ status: 'fail', bound: 1, bug: { kind: 'deadlock' } });
    expect(deadlock.bug?.message).toContain('T0 waits for semaphore second');
    expect(deadlock.bug?.message).toContain('T1 waits for semaphore first');
    expect(deadlock.bug?.threads.map((thread) => thread.state)).toEqual(['blocked', 'blocked']);
  });

  it('semaphores: a timed wait may time out, for every strategy (optimal: it is a wait that never blocks; graph: an attempt after a yield)', async () => {
    for (const strategy of ['dfs', 'bpor', 'optimal', 'graph']) {
      const test = (await results('semaphores.c', { strategy })).get('timed_wait_may_time_out')!;
      expect(test.bug).toMatchObject({ kind: 'assertion', message: 'timed out before the post' });
    }
  });

  it('rwlocks: a writer holding the write lock is never seen half-done', async () => {
    expect((await results('rwlock.c', { maxBound: 3 })).get('consistent_pair')?.status).toBe('pass');
  });

  it('rwlocks: a writer under a read lock is seen half-done', async () => {
    const test = (await results('rwlock.c', { cflags: '-DWRITER_LOCK=pthread_rwlock_rdlock', mode: 'sc' })).get('consistent_pair')!;
    expect(test.bug).toMatchObject({ kind: 'assertion', message: expect.stringContaining('torn read') });
  });

  it('pthread_once runs its routine once; a hand-rolled flag runs it twice (bound 1)', async () => {
    const tests = await results('once.c');
    expect(tests.get('pthread_once_runs_once')?.status).toBe('pass');
    expect(tests.get('hand_rolled_flag')).toMatchObject({ status: 'fail', bound: 1, bug: { message: 'initialised 2 times' } });
  });

  it('barriers, spinlocks and thread-specific data with destructors', async () => {
    const tests = await results('barrier_spin_keys.c', { maxBound: 4 });
    expect([...tests.values()].map((test) => [test.name, test.status])).toEqual([
      ['barrier_meets', 'pass'], ['spinlock_counter', 'pass'], ['keys_and_destructors', 'pass'],
    ]);
  });

  it('C11 threads, mutexes, condition variables and call_once', async () => {
    expect((await results('c11_threads.c', { maxBound: 3 })).get('c11_counter')?.status).toBe('pass');
  });
});

describe('time, randomness and SV-COMP programs', () => {
  it('time and rand are deterministic: exploring never diverges', async () => {
    expect((await results('time_and_rand.c')).get('deterministic_time_and_rand')?.status).toBe('pass');
  });

  it('runs an SV-COMP-style program unchanged: nondet inputs, assume, atomic sections and functions', async () => {
    const test = (await results('svcomp_style.c', { mode: 'sc', maxBound: 3 })).get('main')!;
    expect(test).toMatchObject({ status: 'pass', complete: true });
  });

  it('finds the bug once the atomic function is an ordinary one', async () => {
    const test = (await results('svcomp_style.c', { mode: 'sc', maxBound: 3, cflags: '-D__VERIFIER_atomic_swap=plain_swap' })).get('main')!;
    expect(test.status).toBe('fail');
  });

  it('explores every value of the nondet domain', async () => {
    const narrow = (await results('svcomp_style.c', { mode: 'sc', maxBound: 0, nondetDomain: [0] })).get('main')!;
    const wide = (await results('svcomp_style.c', { mode: 'sc', maxBound: 0, nondetDomain: [0, 1, 2] })).get('main')!;
    // At bound 0 the program has 3 schedules (who runs when main blocks in a join).
    // Domain {0}: x = y = 0, 3 executions. Domain {0,1,2}: 9 (x, y) pairs; the 6 with
    // x != y end at __VERIFIER_assume (1 execution each), the 3 others run 3 schedules.
    expect(narrow.executions).toBe(3);
    expect(wide.executions).toBe(6 + 3 * 3);
  });
});

describe('output and GCC builtins', () => {
  it('__sync builtins are scheduling points with atomic effect', async () => {
    const test = (await results('output_and_sync_builtins.c', { maxBound: 3 })).get('sync_builtins_are_atomic')!;
    expect(test).toMatchObject({ status: 'pass', complete: true });
    expect(test.executions).toBeGreaterThan(1);
  });

  it('shows the failing execution\'s own stdout and stderr, in order', async () => {
    const test = (await results('output_and_sync_builtins.c')).get('prints_then_fails')!;
    expect(test.executions).toBeGreaterThan(1); // an earlier execution printed "turn=0"
    expect(test.bug?.output).toBe('main saw turn=1\nto stderr\n');
  });
});
