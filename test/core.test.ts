import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { buildHarness } from '../src/compile/compile.js';
import { type TestResult, checkAllInterleavings } from '../src/index.js';
import { RunFlags, openHarness } from '../src/addon/addon.js';
import { Op, Outcome, ThreadState, opNames } from '../src/addon/ops.js';
import { decodeReplay } from '../src/report/replay.js';
import { failedWhileRunning, liveView, viewRun } from '../src/explore/strategy.js';
import { WORDS } from '../src/explore/thread-set.js';
import { fixture, writeHarness } from './support/harness.js';

async function only(file: string, options: Parameters<typeof checkAllInterleavings>[1] = {}): Promise<TestResult> {
  const result = await checkAllInterleavings(fixture(file), { strategy: 'dfs', ...options });
  expect(result.tests).toHaveLength(1);
  return result.tests[0]!;
}

describe('finding bugs with the fewest preemptions', () => {
  it('finds a lost update on a plain int in sc mode at bound 1', async () => {
    const test = await only('lost_update.c', { mode: 'sc' });
    expect(test).toMatchObject({ status: 'fail', bound: 1, bug: { kind: 'assertion', preemptions: 1, message: 'counter == 2' } });
    expect(test.bug?.location).toEqual({ file: 'fixtures/lost_update.c', line: 20 });
  });

  it('finds the two-lock deadlock at bound 1 and names what each thread waits for', async () => {
    const test = await only('deadlock_two_locks.c');
    expect(test).toMatchObject({ status: 'fail', bound: 1, bug: { kind: 'deadlock', preemptions: 1 } });
    expect(test.bug?.message).toBe(
      'deadlock: wait-for cycle T0 → T1 → T0: ' +
        'T0 holds a (fixtures/deadlock_two_locks.c:21) and waits for b (fixtures/deadlock_two_locks.c:22), held by T1; ' +
        'T1 holds b (fixtures/deadlock_two_locks.c:11) and waits for a (fixtures/deadlock_two_locks.c:12), held by T0',
    );
  });

  it('finds a bug that needs the created thread to run before its creator continues, at bound 1', async () => {
    const bound0 = await only('core/create_order.c', { maxBound: 0 });
    expect(bound0).toMatchObject({ status: 'pass', executions: 1, complete: false });
    const test = await only('core/create_order.c');
    expect(test).toMatchObject({ status: 'fail', bound: 1, bug: { kind: 'assertion', preemptions: 1, thread: 1 } });
  });

  it('passes a correctly locked counter, exhaustively', async () => {
    const test = await only('locked_counter.c', { mode: 'sc', maxBound: 10 });
    expect(test).toMatchObject({ status: 'pass', complete: true, guarantee: 'complete: every interleaving explored' });
  });
});

describe('dfs execution counts, computed by hand', () => {
  // create_store_join: after the create, main's m stores can interleave with the
  // child's start, n stores and exit (n + 2 events) in C(m + n + 2, m) ways; then main
  // joins (disabled until the child exits) and returns.
  const binomial = (n: number, k: number): number => (k === 0 ? 1 : (binomial(n - 1, k - 1) * n) / k);

  it('m = n = 1: 1 execution at bound 0, 2 at bound 1, all C(4,1) = 4 at bound 2', async () => {
    // bound 0: main stores, then the child runs. bound 1: the child runs to its end
    // right after the create (one preemption, switching back is free). bound 2: main
    // preempts the child after its start, or after its store (two preemptions each).
    const counts = [];
    for (const maxBound of [0, 1, 2])
      counts.push((await only('core/counting.c', { test: 'create_store_join', maxBound })).executions);
    expect(counts).toEqual([1, 2, 4]);
    expect(binomial(4, 1)).toBe(4);
    const full = await only('core/counting.c', { test: 'create_store_join', maxBound: 2 });
    expect(full.complete).toBe(true);
  });

  it('m = n = 2: C(6,2) = 15 executions unbounded', async () => {
    const test = await only('core/counting.c', { test: 'create_store_join', maxBound: 100, cflags: '-DMAIN_OPS=2 -DCHILD_OPS=2' });
    expect(test.executions).toBe(binomial(6, 2));
    expect(test.complete).toBe(true);
  });

  it('m = 3, n = 2: C(7,3) = 35 executions unbounded', async () => {
    const test = await only('core/counting.c', { test: 'create_store_join', maxBound: 100, cflags: '-DMAIN_OPS=3 -DCHILD_OPS=2' });
    expect(test.executions).toBe(binomial(7, 3));
  });

  it('a child alone between create and join: 1 execution', async () => {
    const test = await only('core/counting.c', { test: 'create_join_only', cflags: '-DCHILD_OPS=5' });
    expect(test).toMatchObject({ executions: 1, complete: true });
  });

  it('weft_choose(3): 3 executions at bound 0, no preemption needed', async () => {
    const test = await only('core/counting.c', { test: 'choose_three', maxBound: 0 });
    expect(test).toMatchObject({ executions: 3, complete: true, bound: 0 });
  });
});

describe('executions are deterministic and start from the initial state', () => {
  it('replays one schedule 1,000 times with identical traces, byte for byte', async () => {
    const failing = await only('lost_update.c', { mode: 'sc' });
    const { decisions } = decodeReplay(failing.bug!.schedule);
    const harness = openHarness(buildHarness(fixture('lost_update.c')).library);
    const trace = harness.trace();
    const schedule = Uint16Array.from(decisions);
    const snapshot = () => {
      const steps = trace.status[0]!;
      return Buffer.concat([
        trace.thread.slice(0, steps), trace.op.slice(0, steps), new Uint8Array(trace.object.slice(0, steps).buffer),
        new Uint8Array(trace.value.slice(0, steps).buffer), new Uint8Array(trace.enabled.slice(0, steps * WORDS).buffer),
        new Uint8Array(trace.pc.slice(0, steps).buffer), Buffer.from(harness.output()), Buffer.from([trace.status[1]!]),
      ]);
    };
    harness.run(0, schedule, schedule.length, 1000, 1);
    const first = snapshot();
    expect(trace.status[1]).toBe(1); // the assertion fails every time
    for (let i = 0; i < 1000; i++) {
      harness.run(0, schedule, schedule.length, 1000, 1);
      expect(snapshot().equals(first)).toBe(true);
    }
  });

  it('reuses the loaded harness: 20 checks of one file do not grow the address space', async () => {
    const virtualSize = () => Number(/VmSize:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]);
    await only('lost_update.c');
    const before = virtualSize();
    for (let i = 0; i < 20; i++) await only('lost_update.c');
    // a second loaded harness alone reserves gigabytes
    expect(virtualSize() - before).toBeLessThan(512 * 1024);
  });

  it('restores globals and the heap before each of thousands of executions', async () => {
    const test = await only('core/initial_state.c', { maxBound: 3 });
    expect(test.status).toBe('pass');
    expect(test.executions).toBeGreaterThan(1000);
  });
});

describe('every way an execution can end', () => {
  const outcomes = async (name: string) => only('core/outcomes.c', { test: name });

  it.each([
    ['plain_assert', 'assertion', 'answer == 42'],
    ['weft_assert_with_message', 'assertion', 'answer is 41'],
    ['calls_abort', 'exit', 'abort() called'],
    ['exits_with_status', 'exit', 'exit(3)'],
    ['divides_by_zero', 'crash', 'Floating point exception'],
    ['illegal_instruction', 'crash', 'Illegal instruction'],
    ['stack_overflow', 'crash', 'stack overflow in thread 0'],
    ['unlocks_a_free_mutex', 'misuse', 'unlocking a mutex that is not locked'],
    ['double_free', 'memory', 'double free'],
  ])('%s ends as %s', async (name, kind, message) => {
    const test = await outcomes(name);
    expect(test.status).toBe('fail');
    expect(test.bug?.kind).toBe(kind);
    expect(test.bug?.message).toContain(message);
    expect(test.bug?.location?.file).toBe('fixtures/core/outcomes.c');
  });

  it.each([
    ['weft_assert(0)', 'ASSERTION', 2],
    ['abort()', 'EXIT', 3],
    ['*(volatile int *)0 = 0', 'CRASH', 2],
    ['for (;;) {}', 'HANG', 2],
  ] as const)('RunFlags.PARK_FAILING: a thread failing at %s stops there for good and the others go on; the run ends with its outcome', (failure, outcome, failedAt) => {
    const harness = openHarness(buildHarness(writeHarness(`
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <weft.h>
static atomic_int x;
static void *writer(void *unused) { (void)unused; atomic_store(&x, 1); atomic_store(&x, 2); return NULL; }
WEFT_TEST(fails_first) {
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  if (atomic_load(&x) == 0) ${failure};
  pthread_join(t, NULL);
}
`)).library);
    harness.setHangTimeout(50);
    const trace = harness.trace();
    const none = new Uint16Array(0);
    const stopped = harness.run(0, none, 0, 1000, 1);
    expect([stopped, trace.status[0]]).toEqual([Outcome[outcome], failedAt]);
    expect(harness.run(0, none, 0, 1000, 1, RunFlags.PARK_FAILING)).toBe(Outcome[outcome]);
    const steps = trace.status[0]!;
    expect(Array.from(trace.thread.slice(failedAt, steps))).toEqual([1, 1, 1, 1]);
    expect(Array.from(trace.op.slice(failedAt, steps), (op) => opNames[op])).toEqual(['start', 'atomic store', 'atomic store', 'exit']);
    expect(Array.from(harness.trace().threadState.slice(0, 2))).toEqual([ThreadState.PARKED, ThreadState.FINISHED]);
    // a thread parked in a signal handler left its signal unblocked: the next fault is caught as well
    expect(harness.run(0, none, 0, 1000, 1, RunFlags.PARK_FAILING)).toBe(Outcome[outcome]);
    expect(harness.run(0, none, 0, 1000, 1)).toBe(Outcome[outcome]);
  });

  it('RunFlags.PARK_FAILING: a thread parked at a race names the step its access followed (raceAt) and the step after which the other access ran (raceAfter); with RACES_GO_ON it goes on', () => {
    const harness = openHarness(buildHarness(writeHarness(`
#include <pthread.h>
#include <weft.h>
static int shared;
static int flag;
static void *writer(void *unused) { (void)unused; shared = 1; __atomic_store_n(&flag, 1, __ATOMIC_RELAXED); return NULL; }
WEFT_TEST(races_after_relaxed_flag) {
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  if (__atomic_load_n(&flag, __ATOMIC_RELAXED)) shared = 2;
  pthread_join(t, NULL);
}
`)).library);
    const trace = harness.trace();
    // main creates, the writer starts (its plain write follows) and sets the flag, main reads it and races
    const decisions = Uint16Array.of(0, 1, 1, 0);
    expect(harness.run(0, decisions, decisions.length, 1000, 0, RunFlags.PARK_FAILING)).toBe(Outcome.RACE);
    expect(Array.from(trace.threadState.slice(0, 2))).toEqual([ThreadState.PARKED, ThreadState.FINISHED]);
    expect(Array.from(trace.raceAfter.slice(0, 2))).toEqual([1, -1]);
    expect(Array.from(trace.raceAt.slice(0, 2))).toEqual([3, -1]);
    // RunFlags.RACES_GO_ON: main goes on past its race to its join, noting it; the run ends with the race
    expect(harness.run(0, decisions, decisions.length, 1000, 0, RunFlags.PARK_FAILING | RunFlags.RACES_GO_ON)).toBe(Outcome.RACE);
    expect(Array.from(trace.threadState.slice(0, 2))).toEqual([ThreadState.RUNNABLE, ThreadState.FINISHED]);
    expect(trace.pendingOp[0]).toBe(Op.MAIN_RETURN);
    expect(Array.from(trace.raceAfter.slice(0, 2))).toEqual([1, -1]);
    expect(Array.from(trace.raceAt.slice(0, 2))).toEqual([3, -1]);
  });

  it('a thread that fails right after a compare-exchange that failed is the thread that failed while running: its pending op is the failed one, as the trace records it', () => {
    const harness = openHarness(buildHarness(writeHarness(`
#include <pthread.h>
#include <weft.h>
static int value;
static int shared;
static void *other(void *unused) { (void)unused; shared = 1; return NULL; }
WEFT_TEST(races_after_failed_cas) {
  pthread_t t;
  pthread_create(&t, NULL, other, NULL);
  int expected = 1;
  if (!__atomic_compare_exchange_n(&value, &expected, 2, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) shared = 2;
  pthread_join(t, NULL);
}
`)).library);
    const trace = harness.trace();
    // main creates, the other thread starts (its plain write follows), main's compare-exchange fails and races
    const decisions = Uint16Array.of(0, 1, 0);
    expect(harness.run(0, decisions, decisions.length, 1000, 0)).toBe(Outcome.RACE);
    const view = liveView(trace);
    viewRun(view, trace.status[0]!, Outcome.RACE);
    expect(opNames[view.op[2]!]).toBe('failed cas');
    expect(view.pendingOp[0]).toBe(Op.ATOMIC_CAS_FAIL);
    expect(failedWhileRunning(view)).toBe(0);
  });

  it('a relocked normal mutex deadlocks its own thread', async () => {
    const test = await outcomes('relocks_its_own_mutex');
    expect(test.bug).toMatchObject({ kind: 'deadlock', message: expect.stringContaining('which it already holds itself') });
  });

  it('an endless execution stops at maxSteps as a livelock', async () => {
    const test = await only('core/outcomes.c', { test: 'never_ends', maxSteps: 500 });
    expect(test.bug).toMatchObject({ kind: 'livelock', message: expect.stringContaining('no progress after 500 steps') });
  });

  it('exit(0) ends the execution normally and its output is not a failure', async () => {
    const test = await outcomes('exits_cleanly');
    expect(test).toMatchObject({ status: 'pass', executions: 1 });
  });

  it('reports a crash in one interleaving and keeps going with the next test', async () => {
    const result = await checkAllInterleavings(fixture('core/crash_in_one_interleaving.c'), { strategy: 'dfs' });
    const [crash, next] = result.tests;
    expect(crash).toMatchObject({ status: 'fail', bound: 1, bug: { kind: 'crash', preemptions: 1, thread: 1 } });
    expect(crash?.bug?.message).toContain('SIGSEGV: invalid memory access at (nil)');
    expect(crash?.bug?.location).toEqual({ file: 'fixtures/core/crash_in_one_interleaving.c', line: 15 });
    expect(next).toMatchObject({ name: 'runs_after_the_crash', status: 'pass' });
  });

  it('runs a main() program as the single test "main"; a non-zero return fails', async () => {
    const test = await only('core/main_style.c');
    expect(test).toMatchObject({ name: 'main', status: 'pass', complete: true });
  });
});

describe('threads and mutexes', () => {
  it('models mutex kinds, trylock, thread identity, exit values, detach and pthread_exit in main', async () => {
    const result = await checkAllInterleavings(fixture('core/threads_and_mutexes.c'), { strategy: 'dfs', maxBound: 3 });
    expect(result.tests.map((test) => [test.name, test.status])).toEqual([
      ['mutex_kinds', 'pass'],
      ['trylock_sees_both_outcomes', 'pass'],
      ['identity_and_exit_values', 'pass'],
      ['main_exits_first', 'pass'],
      ['detached_thread', 'pass'],
    ]);
    // trylock: both results were explored (the lock free, and held by the other thread)
    expect(result.tests[1]!.executions).toBeGreaterThan(2);
  });
});

describe('fairness', () => {
  it('a spin loop on an atomic without yields terminates and passes at bound 0', async () => {
    const test = await only('core/spin_wait.c', { test: 'spin_until_published', maxBound: 0 });
    expect(test).toMatchObject({ status: 'pass', bound: 0 });
    const exhaustive = await only('core/spin_wait.c', { test: 'spin_until_published', maxBound: 3 });
    expect(exhaustive.status).toBe('pass');
  });

  it('an endless spin ends as a livelock, not a hang', async () => {
    const test = await only('core/spin_wait.c', { test: 'spin_forever', maxSteps: 1000 });
    expect(test.bug).toMatchObject({ kind: 'livelock', preemptions: 0 });
  });
});

describe('no hang on busy loops over plain variables', () => {
  it('a drf-mode spin on a plain flag gets scheduling points and terminates', async () => {
    const test = await only('core/plain_spin.c', { maxBound: 1 });
    expect(test.executions).toBeGreaterThan(0);
    expect(['pass', 'fail']).toContain(test.status); // finishing at all is the point; a race report is fine
    if (test.status === 'fail') expect(test.bug?.kind).not.toBe('livelock');
  });
});
