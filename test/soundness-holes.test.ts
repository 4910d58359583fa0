// One fixture per soundness hole found in the explorer: each must hold for every strategy
// it applies to, with exact counts where they can be derived by hand.
import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/index.js';
import { exploreAll } from './support/explore-all.js';
import { fixture } from './support/harness.js';

const strategies = ['dfs', 'bpor', 'hbcache', 'optimal'];

async function check(file: string, strategy: string, options: Parameters<typeof checkAllInterleavings>[1] = {}) {
  return (await checkAllInterleavings(fixture(file), { strategy, maxBound: 2, ...options })).tests[0]!;
}

describe('returning from main (or exit()) with threads still running', () => {
  it.each(strategies)('%s: finds the reader that runs before the return and sees a half-published pair', async (strategy) => {
    for (const cflags of ['', '-DUSE_EXIT']) {
      const test = await check('soundness/main_returns.c', strategy, { cflags });
      expect(test).toMatchObject({ status: 'fail', bug: { kind: 'assertion', message: expect.stringContaining('half-published') } });
    }
  });

  it.each(['dfs', 'bpor', 'hbcache', 'optimal', 'auto', 'graph'])("%s: main's frame stays as main left it until the step of its return: a thread finds its locals there, and writes them, also after main() returned", async (strategy) => {
    for (const mode of ['sc', 'drf'] as const) {
      for (const cflags of ['', '-DWRITES']) {
        const test = await check('soundness/main_frame_ends.c', strategy, { mode, cflags });
        expect([mode, cflags, test.status, test.bug?.message]).toEqual([mode, cflags, 'pass', undefined]);
      }
      // and every search runs the reader there
      const after = await check('soundness/main_frame_ends.c', strategy, { mode, cflags: '-DAFTER_MAIN_RETURNED' });
      expect(after, mode).toMatchObject({ status: 'fail', bug: { kind: 'assertion', message: "main's local intact after main returned" } });
    }
  });
});

describe('sched_yield and the sleeps may return at once: a thread that yields may go on while another could run', () => {
  it.each(['dfs', 'bpor', 'optimal', 'auto'])('%s: finds the writer that went on past its yield, and the worker two sleeps did not wait for', async (strategy) => {
    const tests = (await checkAllInterleavings(fixture('soundness/yield_returns_at_once.c'), { strategy, maxBound: 3, test: ['yield_then_write', 'sleeps_as_synchronisation'] })).tests;
    // a sleep is shown as one, with its duration
    expect(tests.find((test) => test.name === 'sleeps_as_synchronisation')?.bug?.steps).toEqual(expect.arrayContaining([expect.objectContaining({ op: 'sleep', value: 1000, valueText: '1,000 µs' })]));
    for (const name of ['yield_then_write', 'sleeps_as_synchronisation']) {
      // the switch away from main after its create (or its first sleep), and a thread going on past its yield
      expect(tests.find((test) => test.name === name), name).toMatchObject({ status: 'fail', bug: { kind: 'assertion', preemptions: 2 } });
    }
  });

  it.each(['dfs', 'bpor'])('%s: a counting wait that yields passes: going on past a yield costs a preemption', async (strategy) => {
    const test = (await checkAllInterleavings(fixture('soundness/yield_returns_at_once.c'), { strategy, maxBound: 3, test: 'counting_wait' })).tests[0]!;
    expect(test).toMatchObject({ name: 'counting_wait', status: 'pass', complete: false });
  });

  it('optimal: a run that goes on past the yields until maxSteps is cut, no livelock (no fair scheduler runs it): complete', async () => {
    // the waiter turns k times before the setter runs, k = 0, 1, …, until maxSteps cuts the run
    const test = (await checkAllInterleavings(fixture('soundness/yield_returns_at_once.c'), { strategy: 'optimal', maxSteps: 200, test: 'counting_wait' })).tests[0]!;
    expect(test).toMatchObject({ name: 'counting_wait', status: 'pass', complete: true });
    expect(test.executions).toBeGreaterThan(50);
  });
});

describe('threads the end of the execution leaves behind', () => {
  it.each(['dfs', 'optimal', 'hbcache'])('%s: main returning with two unjoined threads gives 4 x 4 classes (each thread stopped after any of its steps)', async (strategy) => {
    const test = await check('soundness/unstarted_threads.c', strategy, { maxBound: 10 });
    if (strategy === 'dfs') expect(test).toMatchObject({ status: 'pass', complete: true });
    else expect(test).toMatchObject({ status: 'pass', executions: 16, complete: true });
  });

  it.each(strategies)('%s: a waiter the only signal did not wake is found waiting forever, with no preemption', async (strategy) => {
    const test = await check('soundness/one_signal_two_waiters.c', strategy, { mode: 'sc', maxBound: 0 });
    expect(test).toMatchObject({ status: 'fail', bug: { kind: 'deadlock', preemptions: 0 } });
  });
});

describe('read-write locks: readers hold the lock together', () => {
  it.each(['dfs', 'bpor', 'optimal', 'auto'])('%s: finds the two readers inside at once (a reader\'s lock does not wait for another\'s unlock)', async (strategy) => {
    for (const cflags of ['', '-DWRITER']) {
      const test = await check('soundness/readers_together.c', strategy, { cflags });
      expect(test).toMatchObject({ status: 'fail', bug: { kind: 'assertion', message: expect.stringContaining('most') } });
    }
  });

  it('hbcache refuses read locks, whose readers its happens-before states take as waiting for each other', async () => {
    const test = await check('soundness/readers_together.c', 'hbcache');
    expect(test).toMatchObject({ status: 'error', error: expect.stringContaining('take read locks') });
  });
});

describe('what a primitive orders is no race (drf mode): a plain write published through it, read by a thread that synchronises with it', () => {
  it.each(['dfs', 'bpor', 'optimal', 'auto'])('%s: every primitive passes, pthread_once and call_once too (their routine happens before every caller returns)', async (strategy) => {
    const { tests } = await checkAllInterleavings(fixture('soundness/publish_through_primitives.c'), { strategy, maxBound: 3 });
    expect(tests.length).toBe(17);
    for (const test of tests) expect(test.bug?.message, test.name).toBeUndefined();
    expect(tests.map((test) => test.status)).toEqual(tests.map(() => 'pass'));
  });
});

describe('what each synchronisation function orders (drf mode): an acquisition only acquires, a release only releases, a failed attempt orders nothing', () => {
  it.each(['dfs', 'bpor', 'optimal', 'auto'])('%s: finds the race behind a failed trylock (Boehm), a timed-out lock or wait, two acquisitions, sem_getvalue, a failed unlock and a free; two posts and two readers\' unlocks both publish', async (strategy) => {
    const { tests } = await checkAllInterleavings(fixture('soundness/sync_semantics.c'), { strategy, maxBound: 3 });
    expect(tests.length).toBe(19);
    for (const test of tests) {
      if (test.name === 'races_with_free_after_unlock') expect(test, test.name).toMatchObject({ status: 'fail', bug: { kind: 'race', message: expect.stringMatching(/^free racing a write: T0 frees /) } });
      else if (test.name.startsWith('races_')) expect(test, test.name).toMatchObject({ status: 'fail', bug: { kind: 'race', message: expect.stringMatching(/^data race on data: T2 reads .* unordered with T1's write/) } });
      else expect([test.status, test.bug?.message], test.name).toEqual(['pass', undefined]);
    }
  });
});

describe('a thread that waits on or retakes a lock it holds gets what glibc gives it', () => {
  it.each(['dfs', 'bpor', 'optimal', 'auto'])('%s: a condition wait keeps a recursive mutex held twice (the signaller deadlocks, said so), and a writer\'s try locks are busy', async (strategy) => {
    const { tests } = await checkAllInterleavings(fixture('soundness/lock_return_codes.c'), { strategy, maxBound: 3 });
    expect(tests.map((test) => [test.name, test.status, test.bug?.kind])).toEqual([
      ['waits_holding_recursive_mutex_twice', 'fail', 'deadlock'],
      ['waits_holding_recursive_mutex_once', 'pass', undefined],
      ['timed_wait_keeps_recursive_mutex', 'pass', undefined],
      ['try_locks_by_the_writer', 'pass', undefined],
      ['errorcheck_wait_without_the_mutex', 'pass', undefined],
    ]);
    expect(tests[0]!.bug!.message).toMatch(/^deadlock: T0 holds recursive \(.*:29\) and waits for a signal on cond \(.*:33\), still holding recursive: a condition wait gives up one level of a recursive mutex, and T0 had taken it 2 times; T1 waits for recursive \(.*:21\), held by T0$/);
  });
});

describe('a mutex protocol weft does not model is not taken for one it does', () => {
  it('priority inheritance locks as any mutex; a priority ceiling (glibc: EINVAL) ends the test as weft\'s limit, saying why', async () => {
    const { tests } = await checkAllInterleavings(fixture('soundness/mutex_protocol.c'));
    expect(tests.map((test) => [test.name, test.status])).toEqual([['inheriting_mutex', 'pass'], ['protected_mutex', 'error']]);
    expect(tests[1]!.error).toMatch(/^priority-ceiling mutexes \(PTHREAD_PRIO_PROTECT\) are not modelled: glibc's lock of one fails \(EINVAL\)/);
  });
});

describe('a data race shows whatever order plain accesses ran in (drf mode): every earlier access that could race is kept', () => {
  it.each(['dfs', 'bpor', 'optimal', 'auto', 'hbcache'])('%s: finds the race with an older read, with an atomic access, with a free, and on a byte a later write left; no race where there is none', async (strategy) => {
    const { tests } = await checkAllInterleavings(fixture('soundness/races_in_any_order.c'), { strategy, maxBound: 2 });
    expect(tests.length).toBe(8);
    for (const test of tests) {
      if (test.name.startsWith('races_')) expect(test, test.name).toMatchObject({ status: 'fail', bug: { kind: 'race' } });
      else expect(test.bug?.message, test.name).toBeUndefined();
    }
    // which access was atomic, and the step that was it
    const mixed = tests.find((test) => test.name === 'races_plain_write_atomic_read')!.bug!;
    expect(mixed.kind === 'race' && mixed.race.accesses.map((access) => [access.access, access.atomic ?? false])).toEqual([['read', true], ['write', false]]);
    expect(mixed.message).toMatch(/unordered with T0's atomic read at /);
  });
});

describe('memory steps over the same bytes with different sizes: partial-order reduction cannot order them, so the test falls back to dfs', () => {
  it.each(['auto', 'optimal', 'bpor', 'hbcache'])('%s: finds the load of the upper half that ran first, and the element read before a memset (sc); neighbours apart stay with it', async (strategy) => {
    for (const [mode, name] of [['drf', 'upper_half_of_a_word'], ['sc', 'element_of_a_memset']] as const) {
      const test = (await checkAllInterleavings(fixture('soundness/mixed_extents.c'), { strategy, mode, maxBound: 2, test: name })).tests[0]!;
      expect(test, name).toMatchObject({ status: 'fail', strategy: 'dfs', bug: { kind: 'assertion' }, fallback: expect.stringMatching(/does not support memory steps of different sizes over the same bytes \(4 bytes at 0x[0-9a-f]+, (8|16) bytes at 0x[0-9a-f]+\): .*: explored with strategy dfs instead$/) });
    }
    // a step wider than the check follows is taken as mixed: what it overlaps is not followed
    const wide = (await checkAllInterleavings(fixture('soundness/mixed_extents.c'), { strategy, mode: 'sc', maxBound: 1, test: 'wide_step' })).tests[0]!;
    expect(wide).toMatchObject({ status: 'fail', strategy: 'dfs', bug: { kind: 'assertion' }, fallback: expect.stringMatching(/does not support a memory step wider than weft follows \(8192 bytes at 0x[0-9a-f]+\)/) });
    const apart = (await checkAllInterleavings(fixture('soundness/mixed_extents.c'), { strategy, maxBound: 2, test: 'neighbours_apart' })).tests[0]!;
    expect(apart).toMatchObject({ status: 'pass', strategy: strategy === 'auto' ? 'optimal' : strategy });
    expect(apart.fallback).toBeUndefined();
  });
});

describe('a timed condition wait that a signal woke may still time out, leaving the signal to another waiter', () => {
  it.each(['dfs', 'bpor', 'optimal', 'auto', 'hbcache'])('%s: finds the other waiter woken by the signal the timed one let go', async (strategy) => {
    const test = (await checkAllInterleavings(fixture('soundness/timed_wait_passes_signal_on.c'), { strategy, maxBound: 2 })).tests[0]!;
    if (strategy === 'hbcache') expect(test).toMatchObject({ status: 'error', error: expect.stringContaining('wait with a timeout') });
    else expect(test).toMatchObject({ status: 'fail', bug: { kind: 'assertion', message: '!timed_out_late || broadcast_sent' } });
  });
});

describe("rand() and the clocks are state the threads share: each draw and each read of the time is a step", () => {
  it.each(['dfs', 'bpor', 'optimal', 'auto', 'hbcache'])('%s: finds the orders where the second thread draws, or reads the time, first; a sleep takes its time', async (strategy) => {
    const tests = new Map((await checkAllInterleavings(fixture('soundness/time_and_rand_are_shared.c'), { strategy, maxBound: 2 })).tests.map((test) => [test.name, test]));
    expect(tests.get('rand_order')?.bug).toMatchObject({ kind: 'assertion', message: 'a < b' });
    expect(tests.get('clock_order')?.bug).toMatchObject({ kind: 'assertion', message: 'stamp_of_a.tv_nsec <= stamp_of_b.tv_nsec' });
    if (strategy !== 'hbcache') expect(tests.get('sleep_takes_its_time')?.status).toBe('pass');
    // a loop polling the clock alone for a deadline reaches it within the step bound
    expect(tests.get('polls_until_a_deadline')?.bug?.message).toBeUndefined();
    // the counterexample shows the times read, not the runtime's clock as an address
    expect(tests.get('clock_order')?.bug?.steps.filter((step) => step.op === 'clock').map((step) => step.valueText)).toEqual(expect.arrayContaining([expect.stringMatching(/^\d+ µs$/)]));
  });
});

describe('compare-exchange: a failed CAS only reads where it ran, but may win elsewhere', () => {
  it.each([3, 4, 5])('optimal: %i threads each CAS-ing one word from 0 to their id give exactly that many classes', async (threads) => {
    const test = await check('soundness/cas_owner.c', 'optimal', { cflags: `-DTHREADS=${threads}` });
    expect(test).toMatchObject({ status: 'pass', executions: threads, complete: true });
  });

  it.each(strategies)('%s: finds the execution where the last thread wins', async (strategy) => {
    const test = await check('soundness/cas_owner.c', strategy, { cflags: '-DTHREADS=4 -DCHECK_LAST_LOSES' });
    expect(test).toMatchObject({ status: 'fail', bug: { kind: 'assertion', message: expect.stringContaining('last thread won') } });
  });
});

describe('free and atomics on the heap', () => {
  it.each(strategies)('%s: a free conflicts with every access to its block (sc mode)', async (strategy) => {
    const test = await check('soundness/free_then_use.c', strategy, { mode: 'sc' });
    expect(test).toMatchObject({ status: 'fail', bug: { kind: 'memory', message: expect.stringContaining('use after free') } });
  });

  it.each(strategies)('%s: the first bad access of a refcount bug is the atomic decrement on the freed block', async (strategy) => {
    const test = await check('soundness/refcount.c', strategy, { cflags: '-DBUGGY' });
    expect(test).toMatchObject({ status: 'fail', bug: { kind: 'memory', message: expect.stringContaining('use after free') } });
    expect(test.bug?.location?.line).toBe(17);
    const correct = await check('soundness/refcount.c', strategy);
    expect(correct.status).toBe('pass');
  });

  it('atomic loads, stores and read-modify-writes on freed or out-of-bounds memory are memory bugs', async () => {
    const tests = (await checkAllInterleavings(fixture('soundness/atomic_after_free.c'))).tests;
    expect(tests.map((test) => [test.name, test.status, test.bug?.message.split(':')[0]])).toEqual([
      ['store_after_free', 'fail', 'use after free'],
      ['load_out_of_bounds', 'fail', 'heap access out of bounds'],
      ['fetch_add_after_free', 'fail', 'use after free'],
    ]);
  });
});

describe("SV-COMP: a program's own reach_error() / __VERIFIER_error()", () => {
  it.each(['', '-DSTATIC', '-DASSERT_FAIL', '-DABORT', '-DVERIFIER_ERROR'])('defined %s: reaching a call of it is the error', async (cflags) => {
    for (const strategy of strategies) {
      const test = await check('soundness/reach_error_defined.c', strategy, { cflags, mode: 'sc' });
      expect(test).toMatchObject({ status: 'fail', bug: { kind: 'assertion', message: expect.stringMatching(/(reach_error|__VERIFIER_error)\(\) called/) } });
      expect(test.bug?.location?.line).toBe(36);
    }
  });

  it('a call no interleaving reaches: the program passes', async () => {
    for (const strategy of strategies) {
      const test = await check('soundness/reach_error_defined.c', strategy, { cflags: '-DUNREACHABLE', mode: 'sc' });
      expect(test.status).toBe('pass');
    }
  });
});

describe('spin detection drops no behaviour: only a loop proven back in the same state gives way', () => {
  it.each(strategies)('%s: a bounded loop counting the zeros it loads is no spin: the writer lands after the 57th load at bound 1', async (strategy) => {
    const test = await check('soundness/counting_reads.c', strategy, { test: 'count_zeros', maxBound: 1 });
    expect(test).toMatchObject({ status: 'fail', bug: { kind: 'assertion', message: 'zeros == 57', preemptions: 1 } });
  });

  it('dfs at bound 1 reaches every zero count, from the writer first (0) to the writer last (100)', async () => {
    for (const zeros of [0, 1, 99, 100]) {
      const test = await check('soundness/counting_reads.c', 'dfs', { test: 'count_zeros', maxBound: 1, cflags: `-DBAD_ZEROS=${zeros}` });
      expect([zeros, test.status, test.bug?.message]).toEqual([zeros, 'fail', `zeros == ${zeros}`]);
    }
  });

  it('optimal runs one execution per class: (100 + 1) * (3 + 1) = 404 beside a second reader (derivation in the fixture)', async () => {
    const test = await check('soundness/counting_reads.c', 'optimal', { test: 'count_zeros_beside_a_second_reader' });
    expect(test).toMatchObject({ status: 'pass', executions: 404, complete: true });
  });

  it.each(strategies)('%s: a retry loop that counts its polls keeps every place where the writer lands', async (strategy) => {
    for (const [test, mode] of [['bounded_retries', 'drf'], ['bounded_retries_thread_local', 'sc']] as const) {
      const result = await check('soundness/spin_loops.c', strategy, { test, mode, maxBound: 1 });
      expect([test, result.status, result.bug?.message, result.bug?.preemptions]).toEqual([test, 'fail', 'saw the flag after 37 tries', 1]);
    }
  });

  it.each(strategies)('%s: true spins terminate and pass quickly; a spin nobody ends is a livelock, not a hang', async (strategy) => {
    for (const [file, test] of [['soundness/spin_loops.c', 'spin_in_a_helper'], ['core/spin_wait.c', 'spin_until_published']] as const) {
      const result = await check(file, strategy, { test, maxBound: 3 });
      expect([test, result.status]).toEqual([test, 'pass']);
      expect(result.elapsedMs).toBeLessThan(2000);
    }
    for (const [file, test] of [['soundness/spin_loops.c', 'spin_nobody_ends'], ['core/spin_wait.c', 'spin_forever']] as const) {
      const result = await check(file, strategy, { test, maxSteps: 5000 });
      expect([test, result.bug?.kind, result.bug?.preemptions]).toEqual([test, 'livelock', 0]);
    }
  });
});

describe('four threads: a reversal holds every step that does not happen after the race\'s first one', () => {
  it('optimal: four threads of loads and stores, created out of order, give all 72 classes', async () => {
    const test = await check('soundness/four_threads_loads_stores.c', 'optimal');
    expect(test).toMatchObject({ status: 'pass', executions: 72, complete: true });
  });

  it.each(['dfs', 'optimal', 'auto', 'hbcache'])('%s: the one class whose loads the assertion forbids fails, unbounded', async (strategy) => {
    const test = await check('soundness/four_threads_loads_stores.c', strategy, { cflags: '-DCHECK', maxBound: Number.POSITIVE_INFINITY });
    expect(test).toMatchObject({ status: 'fail', bug: { kind: 'assertion', message: expect.stringContaining('seen[2] == 31') } });
  });
});

describe('threads are numbered as they are created: two threads\' creates do not commute', () => {
  it.each(['dfs', 'bpor', 'optimal', 'auto'])('%s: finds the order of the creates that numbers the grandchildren the other way', async (strategy) => {
    const test = await check('soundness/creates_number_threads.c', strategy, { cflags: '-DCHECK' });
    expect(test).toMatchObject({ status: 'fail', bug: { kind: 'assertion', message: expect.stringContaining('first_id < second_id') } });
  });
});

describe('a run of no steps', () => {
  it.each(strategies)('%s: main blocked before its first step is one execution, a deadlock', async (strategy) => {
    const test = await check('soundness/main_blocks_at_once.c', strategy, { maxBound: 1 });
    expect(test).toMatchObject({ status: 'fail', executions: 1, bug: { kind: 'deadlock', preemptions: 0 } });
  });

  it.each(['bpor', 'dfs'])('%s counts it at bound 0 when it explores past failing runs (as the oracle does)', async (strategy) => {
    const explored = await exploreAll(fixture('soundness/main_blocks_at_once.c'), strategy, 1, 'drf');
    expect(explored.byBound[0]).toMatchObject({ executions: 1, bugs: new Set([expect.stringContaining('deadlock')]) });
  });
});
