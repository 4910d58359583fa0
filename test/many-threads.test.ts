// Harnesses with more threads than one word of a thread set holds (issue: SCTBench-style
// programs use up to 100): every strategy but hbcache explores up to 256 threads.
import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/index.js';
import { fixture, runCli, writeHarness } from './support/harness.js';

/**
 * Main first starts and joins `idle` threads one at a time (each alone: no choice), so that
 * the two that lose an update get ids idle + 1 and idle + 2.
 */
const lostUpdateAfter = (idle: number) =>
  writeHarness(`#include <pthread.h>
#include <weft.h>
static int counter;
static void *nothing(void *unused) { return unused; }
static void *increment(void *unused) {
  int seen = __atomic_load_n(&counter, __ATOMIC_SEQ_CST);
  __atomic_store_n(&counter, seen + 1, __ATOMIC_SEQ_CST);
  return unused;
}
WEFT_TEST(lost_update) {
  for (int i = 0; i < ${idle}; i++) {
    pthread_t t;
    pthread_create(&t, 0, nothing, 0);
    pthread_join(t, 0);
  }
  pthread_t a, b;
  pthread_create(&a, 0, increment, 0);
  pthread_create(&b, 0, increment, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  weft_assert(counter == 2);
}
`, `lost_update_after_${idle}.c`);

/** Main and `workers` threads, each storing to its own slot: independent, one class. */
const ownSlots = (workers: number) =>
  writeHarness(`#include <pthread.h>
#include <weft.h>
static int slot[${workers}];
static void *store(void *arg) {
  int *mine = arg;
  __atomic_store_n(mine, 1, __ATOMIC_SEQ_CST);
  return 0;
}
WEFT_TEST(own_slots) {
  pthread_t threads[${workers}];
  for (int i = 0; i < ${workers}; i++) pthread_create(&threads[i], 0, store, &slot[i]);
  for (int i = 0; i < ${workers}; i++) pthread_join(threads[i], 0);
  for (int i = 0; i < ${workers}; i++) weft_assert(slot[i] == 1);
}
`, `own_slots_${workers}.c`);

const check = async (file: string, options: Parameters<typeof checkAllInterleavings>[1] = {}) =>
  (await checkAllInterleavings(file, { mode: 'sc', ...options })).tests[0]!;

describe('more than 32 threads', () => {
  it('main and 255 threads: the default explores the one class completely', async () => {
    const test = await check(ownSlots(255));
    expect(test).toMatchObject({ status: 'pass', strategy: 'optimal', executions: 1, complete: true });
  });

  // ids 31 and 32 straddle the first word of a thread set, 40 and 41 sit in the second, 200 and 201 in the seventh
  for (const idle of [30, 39, 199]) {
    it(`finds the lost update of threads ${idle + 1} and ${idle + 2} with 1 preemption, with every exhaustive strategy`, async () => {
      const file = lostUpdateAfter(idle);
      for (const strategy of ['auto', 'optimal', 'bpor', 'dfs']) {
        const test = await check(file, { strategy });
        expect(test, strategy).toMatchObject({ status: 'fail', bug: { kind: 'assertion' } });
        expect(test.bug!.preemptions, strategy).toBe(1);
        const threads = new Set(test.bug!.steps.filter((step) => step.preemption).map((step) => step.thread));
        expect([...threads].every((thread) => thread === idle + 1 || thread === idle + 2), strategy).toBe(true);
      }
    });
  }

  it('delay bounding and the samplers find it past the first word too', async () => {
    const file = lostUpdateAfter(39);
    expect(await check(file, { bound: 'delay' })).toMatchObject({ status: 'fail', strategy: 'dfs' });
    for (const strategy of ['random', 'pct']) expect(await check(file, { strategy, maxExecutions: 5_000 }), strategy).toMatchObject({ status: 'fail' });
  });

  it('the replay string of a bug among threads 40 and 41 reproduces it', async () => {
    const file = lostUpdateAfter(39);
    const { bug } = await check(file);
    const replay = runCli(['replay', file, '--schedule', bug!.schedule, '--json']);
    expect(replay.status).toBe(1);
    expect(JSON.parse(replay.stdout).tests[0]).toMatchObject({ status: 'fail', bug: { kind: 'assertion', preemptions: 1 } });
  });

  it('one harness, 3 threads in some executions and 34 in others: optimal runs each of the 4 classes once', async () => {
    // threads 1 and the last store to x (2 orders); the others store to their own slots
    const file = writeHarness(`#include <pthread.h>
#include <weft.h>
static int x, slot[34];
static void *store(void *arg) {
  long id = (long)arg;
  __atomic_store_n(id == 1 || id == 99 ? &x : &slot[id], (int)id, __ATOMIC_SEQ_CST);
  return 0;
}
WEFT_TEST(three_or_thirty_four) {
  int count = weft_choose(2) ? 34 : 3;
  pthread_t threads[34];
  for (long i = 1; i < count; i++) pthread_create(&threads[i], 0, store, (void *)(i == count - 1 ? 99 : i));
  for (int i = 1; i < count; i++) pthread_join(threads[i], 0);
}
`, 'three_or_thirty_four.c');
    for (const strategy of ['optimal', 'auto']) {
      const test = await check(file, { strategy, maxBound: Number.POSITIVE_INFINITY });
      expect(test, strategy).toMatchObject({ status: 'pass', complete: true, executions: 4, redundantRuns: 0 });
    }
  });

  it('race detection tells threads 100 and 150 of 161 apart', async () => {
    const test = (await checkAllInterleavings(fixture('threads/race_far_threads.c'))).tests[0]!;
    expect(test).toMatchObject({ status: 'fail', strategy: 'optimal', bug: { kind: 'race' } });
    expect(test.bug!.message).toMatch(/^data race on shared: T(100|150) writes at .*, unordered with T(100|150)'s write/);
  });

  it('release/acquire orders threads 40 and 90 of 101; relaxed atomics leave their data race', async () => {
    const { tests } = await checkAllInterleavings(fixture('threads/far_message_passing.c'));
    expect(tests.find((test) => test.name === 'release_acquire')).toMatchObject({ status: 'pass', complete: true });
    const relaxed = tests.find((test) => test.name === 'relaxed_races')!;
    expect(relaxed).toMatchObject({ status: 'fail', bug: { kind: 'race' } });
    expect(relaxed.bug!.message).toMatch(/^data race on data: T90 reads at .*, unordered with T40's write/);
  });

  it('hbcache refuses more than 32 threads with exit 2, naming its limit', () => {
    const run = runCli(['check', lostUpdateAfter(39), '--strategy', 'hbcache', '--mode', 'sc', '--json']);
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout).tests[0]).toMatchObject({
      status: 'error', error: expect.stringMatching(/^hbcache explores at most 32 threads \(main included\)/),
    });
  });
});
