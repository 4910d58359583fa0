import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/index.js';
import { fixture, runCli, writeHarness } from './support/harness.js';

describe('data races in drf mode', () => {
  it('reports both accesses of a lost update, then the assertion the race breaks', async () => {
    const test = (await checkAllInterleavings(fixture('lost_update.c'))).tests[0]!;
    expect(test.status).toBe('fail');
    expect(test.bug).toMatchObject({
      kind: 'race',
      message: 'data race on counter: T1 reads at fixtures/lost_update.c:11, unordered with T0\'s write at fixtures/lost_update.c:11',
      race: {
        variable: 'counter',
        accesses: [
          { thread: 0, access: 'write', location: { file: 'fixtures/lost_update.c', line: 11 } },
          { thread: 1, access: 'read', location: { file: 'fixtures/lost_update.c', line: 11 } },
        ],
      },
    });
    expect(test.bug?.consequence).toMatchObject({ kind: 'assertion', message: 'counter == 2', preemptions: 1 });
    expect(test.bug?.consequence?.schedule).toMatch(/^weft1:lost_update:drf\+g\d+:/);
  });

  it('names a heap location by its block (numbered in allocation order) and field, and finds the unlocked field only', async () => {
    const test = (await checkAllInterleavings(fixture('core/heap_race.c'))).tests[0]!;
    expect(test.bug?.kind).toBe('race');
    expect(test.bug?.kind === 'race' && test.bug.race.variable).toBe('account#1.operations');
    expect(test.bug?.message).toContain('fixtures/core/heap_race.c:19');
    expect(test.bug?.consequence).toBeUndefined(); // the balance is protected: nothing breaks
  });

  it("with races: 'warn' a race is a warning and the test fails only on what it breaks", async () => {
    const heap = (await checkAllInterleavings(fixture('core/heap_race.c'), { races: 'warn' })).tests[0]!;
    expect(heap.status).toBe('pass');
    expect(heap.warnings?.[0]?.kind).toBe('race');
    const lost = (await checkAllInterleavings(fixture('lost_update.c'), { races: 'warn' })).tests[0]!;
    expect(lost).toMatchObject({ status: 'fail', bug: { kind: 'assertion' } });
    expect(lost.warnings).toHaveLength(1);
  });

  it('sees no race where synchronisation orders the accesses', async () => {
    for (const [file, test] of [
      ['locked_counter.c', 'locked_counter'],
      ['core/spin_wait.c', 'spin_until_published'],
      ['primitives/semaphores.c', 'handoff'],
      ['primitives/condvar_barrier.c', 'reusable_barrier'],
      ['primitives/thread_pool.c', 'pool_runs_every_job'],
      ['primitives/barrier_spin_keys.c', 'barrier_meets'],
    ] as const) {
      const result = (await checkAllInterleavings(fixture(file), { test, maxBound: 2 })).tests[0]!;
      expect([file, result.status, result.bug?.message]).toEqual([file, 'pass', undefined]);
    }
  });

  it('replays the consequence of a race exactly, racy location included', () => {
    const check = JSON.parse(runCli(['check', 'fixtures/lost_update.c', '--json']).stdout);
    const schedule = check.tests[0].bug.consequence.schedule;
    const replay = JSON.parse(runCli(['replay', 'fixtures/lost_update.c', '--schedule', schedule, '--json']).stdout);
    expect(replay.tests[0].bug).toMatchObject({ kind: 'assertion', message: 'counter == 2', schedule });
  });
});

describe('C11 happens-before for atomics (drf mode): relaxed operations order nothing', () => {
  const racy: Record<string, [writeLine: number, readLine: number]> = {
    relaxed_publish: [13, 22],
    release_then_relaxed_load: [27, 43],
    acquire_fence_only: [13, 70],
    relaxed_store_ends_release_sequence: [27, 102],
  };
  const raceFree = ['release_acquire_publish', 'relaxed_with_fences', 'relaxed_rmw_in_release_sequence', 'seq_cst_publish'];

  it.each(Object.entries(racy))('%s: the race on the published data is reported, both accesses named', async (test, [writeLine, readLine]) => {
    const result = (await checkAllInterleavings(fixture('memory_order/publish.c'), { test })).tests[0]!;
    expect(result.status).toBe('fail');
    expect(result.bug).toMatchObject({
      kind: 'race',
      race: {
        variable: 'data',
        accesses: [
          { thread: 1, access: 'write', location: { file: 'fixtures/memory_order/publish.c', line: writeLine } },
          { thread: 0, access: 'read', location: { file: 'fixtures/memory_order/publish.c', line: readLine } },
        ],
      },
    });
  });

  it.each(raceFree)('%s: release/acquire, fences, release sequences and seq_cst order the publication', async (test) => {
    for (const strategy of ['dfs', 'bpor', 'hbcache', 'optimal']) {
      const result = (await checkAllInterleavings(fixture('memory_order/publish.c'), { test, strategy })).tests[0]!;
      expect([strategy, result.status, result.bug?.message]).toEqual([strategy, 'pass', undefined]);
    }
  });
});

describe('one budget per test, however many races restart its exploration', () => {
  it('maxExecutions counts the executions of every restart together', async () => {
    const file = writeHarness(`#include <pthread.h>
#include <weft.h>
static int a, b;
static void *work(void *unused) { a++; b++; return unused; }
WEFT_TEST(two_races) {
  pthread_t t[3];
  for (int i = 0; i < 3; i++) pthread_create(&t[i], 0, work, 0);
  for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
}
`, 'two_races.c');
    const test = (await checkAllInterleavings(file, { maxExecutions: 40, races: 'warn' })).tests[0]!;
    expect(test.executions).toBe(40);
    expect(test.guarantee).toContain('budget exhausted (maxExecutions)');
  });
});
