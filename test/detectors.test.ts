import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { type TestResult, checkAllInterleavings } from '../src/index.js';
import { refusalReason } from '../src/compile/symbols.js';
import { packageRoot } from '../src/paths.js';
import { fixture } from './support/harness.js';

async function tests(file: string, options: Parameters<typeof checkAllInterleavings>[1] = {}): Promise<Map<string, TestResult>> {
  const result = await checkAllInterleavings(fixture(file), options);
  return new Map(result.tests.map((test) => [test.name, test]));
}

/** Test `name` of `file` fails with this bug under the default, optimal, bpor and dfs alike. */
async function expectUnderReducingStrategies(file: string, name: string, bug: { kind: string; message: string | RegExp; preemptions: number }): Promise<void> {
  for (const strategy of ['auto', 'optimal', 'bpor', 'dfs']) {
    const test = (await tests(file, { test: name, strategy })).get(name)!;
    expect(test.bug, strategy).toMatchObject({ kind: bug.kind, preemptions: bug.preemptions });
    expect(test.bug!.message, strategy).toMatch(bug.message);
  }
}

describe('memory errors, with allocation and free sites', () => {
  it.each([
    ['use_after_free', 'use after free: access to', 'allocated at fixtures/detectors/memory.c:9, freed at fixtures/detectors/memory.c:10', 11],
    ['out_of_bounds', 'heap access out of bounds', 'allocated at fixtures/detectors/memory.c:15)', 16],
    ['invalid_free', 'invalid free of', 'not the start of a heap block', 21],
    ['free_of_the_arena_start', 'invalid free of', 'not a heap block', 43],
  ])('%s', async (name, kind, detail, line) => {
    const test = (await tests('detectors/memory.c', { test: name })).get(name)!;
    expect(test.bug).toMatchObject({ kind: 'memory', location: { file: 'fixtures/detectors/memory.c', line } });
    expect(test.bug?.message).toContain(kind);
    expect(test.bug?.message).toContain(detail);
  });

  it('memory the C library hands over to free (asprintf, getline, realpath, getcwd, …) is freed with no bug, and checked as malloc\'s is', async () => {
    const results = await tests('detectors/libc_allocations.c');
    expect(results.get('freed_by_the_harness')).toMatchObject({ status: 'pass', complete: true });
    const twice = results.get('asprintf_freed_twice')!;
    expect(twice.bug).toMatchObject({ kind: 'memory', location: { line: 68 } });
    expect(twice.bug?.message).toContain('double free of block#1 (a 2-byte block allocated at fixtures/detectors/libc_allocations.c:66');
    expect(results.get('asprintf_freed_while_read')?.bug?.message).toContain('use after free');
    // its %s arguments are read as printf's are
    expect(results.get('asprintf_of_a_freed_string')?.bug).toMatchObject({ kind: 'memory', message: expect.stringContaining('use after free') });
  });

  it('refuses, at build time, the C library functions whose memory comes from its own malloc', () => {
    for (const name of ['open_memstream', 'scandir', 'tempnam']) expect(refusalReason(name)).toMatch(/outside the heap weft checks/);
    for (const name of ['asprintf', 'getline', '__getdelim', 'realpath', 'getcwd']) expect(refusalReason(name)).toBeUndefined();
  });

  it('a free in another thread races with a use, and the race leads to the use after free', async () => {
    const test = (await tests('detectors/memory.c', { test: 'freed_by_another_thread' })).get('freed_by_another_thread')!;
    expect(test.bug?.kind).toBe('race');
    expect(test.bug?.consequence).toMatchObject({ kind: 'memory', message: expect.stringContaining('use after free') });
    expect(test.bug?.consequence?.message).toContain('freed at fixtures/detectors/memory.c:26');
  });
});

describe('misuse of pthreads', () => {
  it.each([
    ['join_twice', 'joining thread 1 a second time'],
    ['join_detached', 'joining thread 1, which is detached'],
    ['destroy_held_mutex', 'destroying a mutex held by thread 0'],
    ['wait_without_the_mutex', 'waiting on a condition variable with a mutex the thread does not hold'],
    ['unlock_by_another_thread', 'unlocking a mutex held by thread 0'],
    ['one_condition_two_mutexes', /^waiting on a condition variable with another mutex than thread [12] waits on it with$/],
  ])('%s', async (name, message) => {
    const test = (await tests('detectors/misuse.c', { test: name })).get(name)!;
    expect(test.bug).toMatchObject({ kind: 'misuse', message });
  });

  it('main joining a thread that waits forever on a condition is a deadlock that says why', async () => {
    const test = (await tests('detectors/misuse.c', { test: 'join_a_thread_that_waits_forever' })).get('join_a_thread_that_waits_forever')!;
    expect(test.bug?.message).toBe(
      'deadlock: T0 waits for T1 to end (fixtures/detectors/misuse.c:56); ' +
        'T1 waits for a signal on cond (fixtures/detectors/misuse.c:47), which no thread will send',
    );
  });
});

describe('livelock', () => {
  it('names the threads that never get through and the lines they loop in', async () => {
    const test = (await tests('detectors/livelock.c', { maxSteps: 2000 })).get('after_you')!;
    expect(test.bug).toMatchObject({ kind: 'livelock' });
    expect(test.bug?.message).toMatch(/^livelock: no progress after 2,000 steps \(maxSteps\): T0 loops in fixtures\/detectors\/livelock\.c:\d+-\d+; T1 loops in fixtures\/detectors\/livelock\.c:12-14$/);
  });
});

describe('no false alarms', () => {
  // every test of these fixtures is correct: each must pass with the default options
  const correct = [
    'locked_counter.c', 'core/initial_state.c', 'core/threads_and_mutexes.c', 'core/counting.c', 'core/main_style.c',
    'primitives/condvar_barrier.c', 'primitives/thread_pool.c', 'primitives/barrier_spin_keys.c', 'primitives/c11_threads.c',
    'primitives/time_and_rand.c', 'primitives/thread_local.c', 'por/locked_increments.c', 'por/readers_writer.c', 'por/indexer.c',
    ...readdirSync(join(packageRoot, 'fixtures', 'bench')).map((file) => `bench/${file}`),
  ];
  it.each(correct)('%s passes', async (file) => {
    const result = await checkAllInterleavings(fixture(file), { maxBound: 2, cflags: file.endsWith('ping_pong.c') ? '-DSWITCHES=20' : '' });
    for (const test of result.tests) expect([test.name, test.status, test.bug?.message]).toEqual([test.name, 'pass', undefined]);
  });
});

describe('robustness: a harness that wrecks itself is reported and the run goes on', () => {
  it('reports stack smashing, wild writes, writes over the heap and endless recursion, then runs the next test', async () => {
    const results = await tests('detectors/robustness.c');
    expect([...results.values()].map((test) => [test.name, test.bug?.kind ?? test.status])).toEqual([
      ['smashes_its_stack', 'crash'],
      ['writes_to_a_wild_address', 'crash'],
      ['writes_over_the_heap', 'memory'],
      ['recursion_without_end_in_a_thread', 'crash'],
      ['still_runs_after_all_that', 'pass'],
    ]);
    expect(results.get('recursion_without_end_in_a_thread')?.bug?.message).toBe('stack overflow in thread 1');
    expect(results.get('writes_to_a_wild_address')?.bug?.message).toBe('SIGSEGV: invalid memory access at 0x10');
  });
});

describe('busy-waiting locks made of atomics', () => {
  it('a spinlock, a ticket lock and Peterson\'s lock pass: their spins terminate without preemptions', async () => {
    const results = await tests('detectors/locks.c', { maxBound: 3 });
    expect([...results.values()].map((test) => [test.name, test.status])).toEqual([
      ['spinlock', 'pass'], ['ticket_lock', 'pass'], ['peterson', 'pass'],
    ]);
  });

  it('Peterson\'s lock with the wrong turn assignment breaks mutual exclusion', async () => {
    const test = (await tests('detectors/locks.c', { test: 'peterson', cflags: '-DWRONG_TURN' })).get('peterson')!;
    expect(test.bug).toMatchObject({ kind: 'assertion', message: 'two threads in the critical section', preemptions: 1 });
  });
});

describe('use after return: another thread reaches a local whose function returned, or whose thread ended', () => {
  const file = 'detectors/use_after_return.c';
  it.each([
    ['local_read_after_its_function_returned', 14, 'below its live frames'],
    ['thread_started_with_a_local_that_dies_first', 31, 'below its live frames'],
    ['local_of_a_thread_that_ended', 56, 'which has ended'],
    ['atomic_on_a_local_that_died', 60, 'below its live frames'],
  ])('%s, in drf and sc mode, under the default and dfs', async (name, line, where) => {
    for (const mode of ['drf', 'sc'] as const)
      for (const strategy of ['auto', 'dfs']) {
        const test = (await tests(file, { test: name, mode, strategy })).get(name)!;
        expect(test.bug, `${mode} ${strategy}`).toMatchObject({ kind: 'memory', location: { file: `fixtures/${file}`, line } });
        expect(test.bug!.message).toMatch(/^use after return: \d-byte (read|write) at 0x[0-9a-f]+, in /);
        expect(test.bug!.message).toContain(where);
      }
  });

  it('drf mode: a read that does not happen before the return of its local\'s function is a use after return in every order, under every strategy', async () => {
    const name = 'local_read_unordered_with_its_function_return';
    for (const strategy of ['auto', 'optimal', 'bpor', 'dfs']) {
      const test = (await tests(file, { test: name, strategy })).get(name)!;
      expect(test.bug, strategy).toMatchObject({ kind: 'race', race: { accesses: [{ thread: 1, access: 'read' }, { thread: 0, access: 'return' }] } });
      expect(test.bug!.message).toMatch(/^use after return: T0 returns at fixtures\/detectors\/use_after_return\.c:\d+ from the function holding local in start_then_go_on's frame, unordered with T1's read of it at .*:31 \(in another order, it comes after the return\)$/);
    }
  });

  it('a local shared while its frame lives is no bug: until a join, from an outer frame while its thread waits deeper, a worker\'s own', async () => {
    for (const mode of ['drf', 'sc'] as const) {
      const results = await tests(file, { mode });
      for (const name of ['live_local_until_join', 'live_outer_frame_while_its_thread_waits_deeper', 'live_local_of_a_worker_joined_before_it_returns'])
        expect(results.get(name), `${name} ${mode}`).toMatchObject({ status: 'pass', complete: true });
    }
  });
});

describe('synchronisation objects destroyed while in use, or used once destroyed (misuse)', () => {
  const file = 'detectors/destroyed_objects.c';
  it.each([
    ['mutex_destroyed_before_a_thread_locks_it', 'locking a destroyed mutex', 0],
    ['mutex_destroyed_while_a_thread_holds_it', 'destroying a mutex held by thread 1', 1],
    ['condition_destroyed_while_a_thread_may_wait', /^(waiting on a destroyed condition variable|destroying a condition variable that threads wait on)$/, 1],
    ['semaphore_destroyed_before_a_thread_takes_it', 'waiting on a destroyed semaphore', 0],
    ['rwlock_destroyed_before_a_reader_takes_it', 'locking a destroyed read-write lock', 0],
    ['spinlock_destroyed_before_a_thread_locks_it', 'locking a destroyed spinlock', 0],
    ['barrier_destroyed_while_a_thread_may_wait', 'destroying a barrier that threads wait at', 1],
    ['condition_destroyed_after_one_signal_to_two_waiters', 'destroying a condition variable that threads wait on', 1],
  ])('%s, with the fewest preemptions, under the default, optimal, bpor and dfs', (name, message, preemptions) =>
    expectUnderReducingStrategies(file, name, { kind: 'misuse', message, preemptions }));

  it('each kind destroyed twice: misuse', async () => {
    const results = await tests(file);
    for (const [name, message] of [
      ['mutex_destroyed_twice', 'destroying a destroyed mutex'], ['condition_destroyed_twice', 'destroying a destroyed condition variable'],
      ['semaphore_destroyed_twice', 'destroying a destroyed semaphore'], ['rwlock_destroyed_twice', 'destroying a destroyed read-write lock'],
      ['barrier_destroyed_twice', 'destroying a barrier that was destroyed or not initialised'], ['spinlock_destroyed_twice', 'destroying a destroyed spinlock'],
    ] as const)
      expect(results.get(name)?.bug, name).toMatchObject({ kind: 'misuse', message });
  });

  it('an object destroyed once every use is behind it, and made again, or a condition variable right after a broadcast or a signal to its one waiter, is no misuse', async () => {
    for (const strategy of ['auto', 'dfs']) {
      const results = await tests(file, { strategy });
      for (const name of ['fine_destroyed_after_join_and_made_again', 'fine_condition_destroyed_right_after_its_broadcast', 'fine_condition_destroyed_right_after_a_signal_to_its_one_waiter'])
        expect(results.get(name), `${name} ${strategy}`).toMatchObject({ status: 'pass' });
    }
  });
});

describe('a mutex or spinlock never initialised (misuse, not a deadlock)', () => {
  const file = 'detectors/never_initialised.c';
  it('locking one, or waiting on a condition variable with one, whose bytes hold what its stack held before', async () => {
    for (const strategy of ['auto', 'dfs']) {
      const results = await tests(file, { strategy });
      expect(results.get('locking_a_local_mutex_never_initialised')?.bug, strategy).toMatchObject({ kind: 'misuse', message: 'locking a mutex that was never initialised', preemptions: 0 });
      expect(results.get('waiting_with_a_mutex_never_initialised')?.bug, strategy).toMatchObject({ kind: 'misuse', message: 'waiting on a condition variable with a mutex that was never initialised' });
      expect(results.get('locking_a_local_spinlock_never_initialised')?.bug, strategy).toMatchObject({ kind: 'misuse', message: 'locking a spinlock that was never initialised', preemptions: 0 });
      expect(results.get('fine_zeroed_and_statically_initialised'), strategy).toMatchObject({ status: 'pass' });
    }
  });
});

describe('a synchronisation object in memory that is gone (memory bugs)', () => {
  const file = 'detectors/freed_objects.c';
  it.each([
    ['mutex_in_a_block_freed_before_a_thread_locks_it', /^use after free: access to block#1, inside a freed block/, 0],
    ['mutex_in_a_block_freed_while_a_thread_holds_it', /^use after free: access to block#1, inside a freed block/, 1],
    ['condition_signalled_after_the_waiter_freed_it', /^use after free: access to block#1\+40, inside a freed block/, 2],
    ['mutex_in_a_frame_that_returned', /^use after return: 40-byte write at 0x[0-9a-f]+, in thread 0's stack below its live frames/, 0],
  ])('%s, with the fewest preemptions, under the default, optimal, bpor and dfs', (name, message, preemptions) =>
    expectUnderReducingStrategies(file, name, { kind: 'memory', message, preemptions }));

  it('freed once every use is behind it, or signalled before the waiter can see the job done: no bug', async () => {
    expect((await tests(file, { test: 'fine_freed_after_join' })).get('fine_freed_after_join')).toMatchObject({ status: 'pass', complete: true });
    const underLock = (await tests(file, { test: 'condition_signalled_after_the_waiter_freed_it', cflags: '-DSIGNAL_UNDER_LOCK' })).get('condition_signalled_after_the_waiter_freed_it');
    expect(underLock).toMatchObject({ status: 'pass', complete: true });
  });
});

describe('what the runtime writes for the harness is checked as its writes are', () => {
  it('a thread handle, a join result, a semaphore value, a mutex initialised, the time, each into a freed block, or a deadline or duration read from one: a use after free; into live memory: no bug', async () => {
    const results = await tests('detectors/writes_for_the_harness.c');
    for (const name of ['create_into_a_freed_handle', 'join_into_a_freed_result', 'semaphore_value_into_a_freed_int', 'mutex_initialised_in_a_freed_block', 'time_into_a_freed_block', 'deadline_in_a_freed_block', 'sleep_for_a_freed_duration'])
      expect(results.get(name)?.bug, name).toMatchObject({ kind: 'memory', message: expect.stringMatching(/^use after free: access to block#1(\+8)?, inside a freed block/) });
    expect(results.get('fine_into_live_memory')).toMatchObject({ status: 'pass', complete: true });
  });
});

describe('a thread-local variable read once its thread has ended (a memory bug)', () => {
  it('a thread returning the address of its own thread-local variable: found under every strategy; read while its thread runs: no bug', async () => {
    for (const strategy of ['auto', 'optimal', 'bpor', 'dfs', 'graph']) {
      const results = await tests('detectors/thread_local_after_end.c', { strategy });
      expect(results.get('thread_local_returned_by_its_thread')?.bug, strategy).toMatchObject({
        kind: 'memory', preemptions: 0, message: expect.stringMatching(/^use after thread end: 4-byte read at 0x[0-9a-f]+, a thread-local variable of thread 1, which has ended$/),
      });
      expect(results.get('fine_thread_local_read_while_its_thread_runs'), strategy).toMatchObject({ status: 'pass' });
    }
  });

  it('read before its thread ends but not ordered before the end: a race with the end (drf), found with no preemption under every strategy', async () => {
    for (const strategy of ['auto', 'optimal', 'bpor', 'dfs', 'graph']) {
      const test = (await tests('detectors/thread_local_after_end.c', { strategy, test: 'thread_local_read_unordered_with_its_thread_end' })).get('thread_local_read_unordered_with_its_thread_end')!;
      expect(test.bug, strategy).toMatchObject({ kind: 'race', preemptions: 0, race: { accesses: [{ thread: 0, access: 'read' }, { thread: 1, access: 'end' }] } });
      expect(test.bug!.message, strategy).toBe(
        "use after thread end: T1 ends at fixtures/detectors/thread_local_after_end.c:32, and with it mine (T1's thread-local copy), unordered with T0's read of it at fixtures/detectors/thread_local_after_end.c:44 (in another order, it comes after the end)",
      );
    }
  });
});
