// The graph engine (src/explore/graph/): one execution per reads-from class, counts equal to
// optimal's on every fixture it supports (but for the orders of read unlocks, which it tells
// apart), the random-program oracle on fixed seeds, and one clear refusal for what it does not
// model.
import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/index.js';
import { exploreAll } from './support/explore-all.js';
import { randomProgram, randomShape, spinlockShape, withThreads, withinGraphEngine, withoutReadWriteLocksOrOnce } from './support/random-programs.js';
import { BOUNDS_ONLY, checkSoundness, refusal } from './support/soundness-check.js';
import { fixture, writeHarness } from './support/harness.js';
import { exploreInSubtrees, splitDifferences } from './support/subtrees-in-process.js';

// BOUNDS_ONLY: programs whose unbounded dfs passed the limit the oracle was given (the fixtures
// here pass 100,000 executions), compared at the bounds alone, as they were.
describe('graph: one execution per reads-from class', () => {
  it.each([
    ['por/locked_increments.c', '-DTHREADS=2 -DINCREMENTS=2', 'drf'],
    ['por/locked_increments.c', '-DTHREADS=3 -DINCREMENTS=2', 'drf'],
    ['por/locked_increments.c', '-DTHREADS=4 -DINCREMENTS=2', 'drf'],
    ['deadlock_two_locks.c', '', 'drf'],
    ['por/readers_writer.c', '-DREADERS=3', 'drf'],
    ['soundness/four_threads_loads_stores.c', '', 'sc'],
    ['soundness/cas_owner.c', '', 'drf'],
    ['soundness/counting_reads.c', '', 'drf'],
    ['soundness/creates_number_threads.c', '', 'drf'],
    ['graph/semaphores_spin_locks.c', '-DTHREADS=2', 'drf'],
    ['graph/semaphores_spin_locks.c', '', 'drf'],
    ['graph/barrier_rounds.c', '-DTHREADS=2', 'sc'],
    ['graph/barrier_rounds.c', '', 'sc'],
    ['graph/trylocks.c', '-DTHREADS=2', 'drf'],
    ['graph/trylocks.c', '', 'drf'],
    ['graph/trylocks.c', '-DTIMED -DTHREADS=2', 'drf'],
    ['graph/trylocks.c', '-DTIMED', 'drf'],
    ['graph/spin_waits.c', '', 'sc'],
    ['graph/exchange_spinners.c', '', 'drf'],
    ['graph/spin_on_flag_bits.c', '', 'drf'],
    ['graph/yields.c', '', 'drf'],
    ['spin/ring_yields.c', '', 'drf'],
  ] as const)('%s %s: the classes optimal runs, each once, and no run wasted on a lock it waits for', async (file, cflags, mode) => {
    const build = { cflags };
    const optimal = await exploreAll(fixture(file), 'optimal', Infinity, mode, Infinity, 10_000, build);
    const graph = await exploreAll(fixture(file), 'graph', Infinity, mode, Infinity, 10_000, build);
    expect(graph).toMatchObject({ executions: optimal.executions, repeats: 0, wasted: 0, complete: true, finalStates: optimal.finalStates, bugs: optimal.bugs });
    expect(graph.coverage).toEqual(optimal.coverage);
  });

  it.each(['', '-DTIMED'])('read-write locks %s: what optimal runs, with each order of two read unlocks apart (each gives back a unit of the lock), each once; every class as dfs at bounds 0-3 (untimed: unbounded too)', async (cflags) => {
    const file = fixture('graph/read_write_locks.c');
    const optimal = await exploreAll(file, 'optimal', Infinity, 'drf', Infinity, 10_000, { cflags });
    const graph = await exploreAll(file, 'graph', Infinity, 'drf', Infinity, 10_000, { cflags });
    expect(graph).toMatchObject({ repeats: 0, wasted: 0, complete: true, finalStates: optimal.finalStates, bugs: optimal.bugs });
    expect(graph.coverage).toEqual(optimal.coverage);
    expect(graph.executions).toBeGreaterThan(optimal.executions);
    const result = await checkSoundness(file, 'drf', 3, cflags === '' ? 20_000 : BOUNDS_ONLY, ['graph']);
    expect(result).toMatchObject({ problems: [], pastBug: [], redundant: [], refused: [] });
  });

  it('read-write locks: two readers and a writer run 14 graphs, and a writer under a read lock is seen half-done', async () => {
    // the writer's section fits where no reader holds the lock, in each of the 6 orders of the
    // readers' locks and unlocks: 3 places when one reader's section ends before the other's
    // begins, else 2 (optimal's 10 take the two orders of unlocks after overlapping sections as one)
    const file = fixture('primitives/rwlock.c');
    expect((await checkAllInterleavings(file, { strategy: 'graph', maxBound: Infinity })).tests[0]).toMatchObject({ status: 'pass', executions: 14, complete: true });
    const torn = (await checkAllInterleavings(file, { strategy: 'graph', cflags: '-DWRITER_LOCK=pthread_rwlock_rdlock', mode: 'sc' })).tests[0]!;
    expect(torn).toMatchObject({ status: 'fail', strategy: 'graph', bug: { kind: 'assertion' } });
    expect(torn.bug?.message).toMatch(/torn read/);
  });

  it.each(['', 'EMPTY', 'NESTED', 'LOCKED'])('pthread_once %s: the classes optimal runs, each once; every class as dfs at bounds 0-3', async (variant) => {
    // a routine that takes steps, none, calls pthread_once itself, or deadlocks with a caller that claimed it first
    const file = writeHarness(`${variant === '' ? '' : `#define ${variant}\n`}${readFileSync(fixture('graph/once_routines.c'), 'utf8')}`, 'once_routines.c');
    const optimal = await exploreAll(file, 'optimal', Infinity, 'drf', Infinity, 10_000);
    const graph = await exploreAll(file, 'graph', Infinity, 'drf', Infinity, 10_000);
    expect(graph).toMatchObject({ executions: optimal.executions, repeats: 0, wasted: 0, complete: true, finalStates: optimal.finalStates, bugs: optimal.bugs });
    expect(graph.coverage).toEqual(optimal.coverage);
    const result = await checkSoundness(file, 'drf', 3, BOUNDS_ONLY, ['graph']);
    expect(result).toMatchObject({ problems: [], pastBug: [], redundant: [], refused: [] });
  });

  it.each([
    // a failing run that stops inside a claimed routine leaves where the graph has it end as it was
    'graph/once_failure_inside_routine.c',
    // a claim at step 0 whose routine takes no step records that it ended there, not that it found it done
    'graph/once_first_step.c',
    // a read unlock where no reader holds the lock (misuse) gives no unit back, as the runtime does
    'graph/read_unlock_misuse.c',
  ])('%s: every class as dfs at bounds 0-3, none twice, never refused', async (file) => {
    const result = await checkSoundness(fixture(file), 'drf', 3, BOUNDS_ONLY, ['graph']);
    expect(result).toMatchObject({ problems: [], redundant: [], refused: [] });
  });

  it('4 threads x 1 locked increment through checkAllInterleavings: 4! executions', async () => {
    const test = (await checkAllInterleavings(fixture('por/locked_increments.c'), { strategy: 'graph', cflags: '-DTHREADS=4 -DINCREMENTS=1', maxBound: Infinity })).tests[0]!;
    expect(test).toMatchObject({ status: 'pass', executions: 24, complete: true });
  });

  it('bounded: at each bound the classes hbcache counts, each once, and complete once nothing needs more', async () => {
    const counts = async (strategy: string, maxBound: number) =>
      (await checkAllInterleavings(fixture('por/locked_increments.c'), { strategy, cflags: '-DTHREADS=3 -DINCREMENTS=2', maxBound })).tests[0]!;
    for (const maxBound of [0, 1, 2]) {
      const [graph, hbcache] = [await counts('graph', maxBound), await counts('hbcache', maxBound)];
      expect(graph).toMatchObject({ status: 'pass', executions: hbcache.executions, complete: false, bound: maxBound });
    }
    // every class needs at most 3 preemptions: the graph engine knows it is done
    expect(await counts('graph', 3)).toMatchObject({ executions: 90, complete: true, guarantee: 'complete: every interleaving explored' });
  });

  it('bounded: a thread whose next step takes a lock another thread takes first is able to run: no graph whose every graph below needs more is run', async () => {
    // a critical section of one thread, then another thread's: the first thread, with more to
    // take, is preempted in every graph below, so none is run at bound 0 but the two classes
    const atBound0 = async (file: string, cflags: string) =>
      (await checkAllInterleavings(fixture(file), { strategy: 'graph', cflags, maxBound: 0 })).tests[0]!;
    expect(await atBound0('por/locked_increments.c', '-DTHREADS=2 -DINCREMENTS=3')).toMatchObject({ status: 'pass', executions: 2, redundantRuns: 0 });
    // sem_wait and a spin lock as pthread_mutex_lock, sem_post a read-modify-write: fewer past the bound, the same classes
    const semaphores = await atBound0('graph/semaphores_spin_locks.c', '-DTHREADS=2');
    const hbcache = (await checkAllInterleavings(fixture('graph/semaphores_spin_locks.c'), { strategy: 'hbcache', cflags: '-DTHREADS=2', maxBound: 0 })).tests[0]!;
    expect(semaphores).toMatchObject({ status: 'pass', executions: hbcache.executions });
    expect(semaphores.redundantRuns).toBeLessThanOrEqual(10);
  });

  it('bounded: a read given an older write keeps its place below, with what is before it, and a thread whose next store must follow a kept event is able to run: fewer runs past the bound, the same classes', async () => {
    // an exchange spin lock: another thread's exchange reading the lock taken (it spins) is
    // kept in every graph below, and so is the holder's store that must follow it (its release)
    const file = fixture('spin/exchange_lock.c');
    for (const [cflags, maxBound, pastBound] of [['-DTHREADS=2 -DINCREMENTS=2', 0, 12], ['-DTHREADS=3 -DINCREMENTS=1', 0, 35], ['-DTHREADS=3 -DINCREMENTS=2', 0, 235]] as const) {
      const graph = (await checkAllInterleavings(file, { strategy: 'graph', cflags, maxBound })).tests[0]!;
      const hbcache = (await checkAllInterleavings(file, { strategy: 'hbcache', cflags, maxBound })).tests[0]!;
      expect(graph).toMatchObject({ status: 'pass', executions: hbcache.executions });
      // with the prefix alone: 256, 1,341, and 3 x 2 not done with bound 0 in 30 s; without the stores' waits: 163, 1,052;
      // 3 x 2 was 229 while a thread's next event was also read where another item's run had left it (not the same on every worker)
      expect(graph.redundantRuns).toBeLessThanOrEqual(pastBound);
    }
  });

  it('bounded: a thread going on right after its yield costs nothing where another thread may run steps of its own first, though a third stands waiting', async () => {
    const result = await checkSoundness(fixture('graph/yield_while_another_waits.c'), 'drf', 3, BOUNDS_ONLY, ['graph']);
    expect(result).toMatchObject({ problems: [], redundant: [], refused: [] });
    // the thread that may run first is one the graph holds no event of yet: created, not started
    const unstarted = await checkSoundness(fixture('graph/yield_while_unstarted_thread_runs.c'), 'sc', 3, 20_000, ['graph']);
    expect(unstarted).toMatchObject({ problems: [], redundant: [], refused: [] });
  });

  it('bounded: a bug met in a run past the bound is shown at its own bound, with its fewest preemptions', async () => {
    const atBound0 = (await checkAllInterleavings(fixture('lost_update.c'), { strategy: 'graph', mode: 'sc', maxBound: 0 })).tests[0]!;
    expect(atBound0).toMatchObject({ status: 'pass', complete: false, guarantee: 'all executions with ≤ 0 preemptions explored' });
    const test = (await checkAllInterleavings(fixture('lost_update.c'), { strategy: 'graph', mode: 'sc', maxBound: 3 })).tests[0]!;
    expect(test).toMatchObject({ status: 'fail', bound: 1, bug: { kind: 'assertion', preemptions: 1, message: 'counter == 2' } });
    const deadlock = (await checkAllInterleavings(fixture('deadlock_two_locks.c'), { strategy: 'graph', maxBound: 3 })).tests[0]!;
    expect(deadlock).toMatchObject({ status: 'fail', bound: 1, bug: { kind: 'deadlock', preemptions: 1 } });
  });

  it('bounded: a failure first met with another thread stopped mid-way, able to go on, is shown at the bound of the run where that thread has ended, with that run', async () => {
    const test = (await checkAllInterleavings(fixture('graph/failure_after_writer_ends.c'), { strategy: 'graph', mode: 'sc', maxBound: 3 })).tests[0]!;
    expect(test).toMatchObject({ status: 'fail', bound: 1, bug: { kind: 'assertion', preemptions: 1, message: 'atomic_load(&count) != 2' } });
  });

  it('bounded: classes reached only from a failing graph past the bound are explored past that failure, its thread parked (bounds 0-3 as dfs)', async () => {
    const file = fixture('graph/class_below_failing_run.c');
    const atBound1 = (await checkAllInterleavings(file, { strategy: 'graph', mode: 'sc', maxBound: 1 })).tests[0]!;
    const dfs = (await checkAllInterleavings(file, { strategy: 'dfs', mode: 'sc', maxBound: 1 })).tests[0]!;
    expect(dfs).toMatchObject({ status: 'pass' });
    expect(atBound1).toMatchObject({ status: 'pass', complete: false, guarantee: 'all executions with ≤ 1 preemptions explored' });
    const result = await checkSoundness(file, 'sc', 3, 5_000, ['graph']);
    expect(result).toMatchObject({ problems: [], redundant: [], refused: [] });
    const test = (await checkAllInterleavings(file, { strategy: 'graph', mode: 'sc', maxBound: 3 })).tests[0]!;
    expect(test).toMatchObject({ status: 'fail', bound: 2, bug: { kind: 'assertion', preemptions: 2 } });
  });

  it('bounded: a crash is explored past as an assertion is (the crashing thread parked in its signal handler): shown at the bound dfs shows it', async () => {
    const file = writeHarness(`
#include <pthread.h>
#include <stdatomic.h>
#include <weft.h>
static atomic_int stage;
static void *advance(void *unused) { (void)unused; atomic_store(&stage, 1); atomic_store(&stage, 2); return NULL; }
int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, advance, NULL);
  if (atomic_load(&stage) == 1) *(volatile int *)0 = 0;
  pthread_join(t, NULL);
  return 0;
}
`);
    const dfs = (await checkAllInterleavings(file, { strategy: 'dfs', mode: 'sc', maxBound: 3 })).tests[0]!;
    const graph = (await checkAllInterleavings(file, { strategy: 'graph', mode: 'sc', maxBound: 3 })).tests[0]!;
    expect(dfs).toMatchObject({ status: 'fail', bound: 2, bug: { kind: 'crash', preemptions: 2 } });
    expect(graph).toMatchObject({ status: 'fail', bound: 2, bug: { kind: 'crash', preemptions: 2 } });
  });

  it('does not model main returning before a thread it never joined has ended (started or not): those executions hold other events; explored as the default would, saying why', async () => {
    const file = writeHarness(`
#include <pthread.h>
#include <stdatomic.h>
#include <weft.h>
static atomic_int x;
static void *writer(void *unused) { (void)unused; atomic_store(&x, 1); return NULL; }
WEFT_TEST(unjoined) {
  pthread_t joined, left;
  pthread_create(&joined, NULL, writer, NULL);
  pthread_create(&left, NULL, writer, NULL);
  pthread_join(joined, NULL);
}
`);
    for (const [maxBound, instead] of [[0, 'bpor'], [Infinity, 'optimal']] as const)
      expect((await checkAllInterleavings(file, { strategy: 'graph', maxBound })).tests[0]).toMatchObject({
        status: 'pass', strategy: instead, fallback: expect.stringMatching(new RegExp(`^strategy graph does not support main returning before every other thread's end .*: explored with strategy ${instead} instead$`)),
      });
  });

  it('does not model a weft_choose right after a read that another thread must write after: says so by name, never as nondeterminism, and explores it with optimal', async () => {
    const file = writeHarness(`
#include <pthread.h>
#include <stdatomic.h>
#include <weft.h>
static atomic_int x;
static int seen, chosen;
static void *writer(void *unused) { (void)unused; atomic_store(&x, 1); return NULL; }
static void *reader(void *unused) {
  (void)unused;
  seen = atomic_load(&x);
  chosen = weft_choose(2);
  return NULL;
}
WEFT_TEST(choice_after_read) {
  pthread_t w, r;
  pthread_create(&w, NULL, writer, NULL);
  pthread_create(&r, NULL, reader, NULL);
  pthread_join(w, NULL);
  pthread_join(r, NULL);
}
`);
    expect((await checkAllInterleavings(file, { strategy: 'graph', maxBound: Infinity })).tests[0]).toMatchObject({
      status: 'pass', executions: 4, strategy: 'optimal', fallback: expect.stringMatching(/^strategy graph does not support weft_choose right after a read that another thread's write must follow/),
    });
    expect((await checkAllInterleavings(file, { strategy: 'optimal', maxBound: Infinity })).tests[0]).toMatchObject({ status: 'pass', executions: 4 });
  });

  it('refuses, by name, choices a failing run stopped before, once their read is given a write another thread must follow', async () => {
    // as the oracle explores it at bounds 0-3 (checkSoundness: refused, no problem), without the dfs runs a refusal is never compared with
    expect(await refusal(fixture('graph/choice_after_failing_read.c'), 'sc', 3, 'graph')).toMatch(/^refused: strategy graph does not support /);
  });

  it('refuses, by name, a choice right after a read-modify-write that breaks atomicity and that an earlier read may read', async () => {
    const file = fixture('graph/choice_after_inconsistent_update.c');
    expect((await checkAllInterleavings(file, { strategy: 'graph', mode: 'sc', maxBound: Infinity })).tests[0]).toMatchObject({
      status: 'pass', strategy: 'optimal', fallback: expect.stringMatching(/^strategy graph does not support weft_choose right after a read-modify-write that an earlier read of another thread may read/),
    });
    expect(await refusal(file, 'sc', 3, 'graph')).toMatch(/^refused: strategy graph does not support /);
  });

  it('refuses, by name, a graph whose schedule the harness does not follow (a choice right after an update whose alternative was not run), never a nondeterminism error', async () => {
    const file = fixture('graph/choice_after_update_cut.c');
    expect((await checkAllInterleavings(file, { strategy: 'graph', mode: 'sc', maxBound: 3 })).tests[0]).toMatchObject({
      status: 'pass', strategy: 'bpor', fallback: expect.stringMatching(/^strategy graph does not support a graph whose schedule the harness did not follow/),
    });
    expect(await refusal(file, 'sc', 3, 'graph')).toMatch(/^refused: strategy graph does not support /);
  });

  it('an update given another write to read writes what follows from it before it runs: a compare-exchange reading it is scheduled to succeed or fail as it will, every class as dfs at bounds 0-3', async () => {
    // the serial search's hole (what the update writes): without the shard and worker splits, half the time
    const result = await checkSoundness(fixture('graph/cas_after_update_chain.c'), 'sc', 3, BOUNDS_ONLY, ['graph'], false);
    expect(result).toMatchObject({ problems: [], refused: [] });
  });

  it.each([
    // another failure met first, with a preemption the order does not count
    'graph/shown_order_fails_elsewhere.c',
    // the order's last thread waits at its end, and another fails going on past it, within the bound
    'graph/shown_order_fails_past_its_end.c',
    // a race whose other access, run second, fails within the bound once the first thread went on past its own
    'graph/race_other_order_within_bound.c',
    // the same right after a failed compare-exchange, within the bound only where the racing thread's later load reads another write
    'graph/race_after_failed_cas.c',
  ])('bounded: %s: a failing order found for a graph run past the bound is shown when, run as it is, it fails within the bound', async (file) => {
    const result = await checkSoundness(fixture(file), file.endsWith('past_its_end.c') ? 'sc' : 'drf', 3, file.endsWith('fails_elsewhere.c') ? BOUNDS_ONLY : 5_000, ['graph']);
    expect(result).toMatchObject({ problems: [], refused: [] });
    // graphs below a failing run that keep what it failed on may count that failing run again
    // (its racing threads go on, and what they do is explored): never a run that passes
    if (file.endsWith('past_its_end.c') || file.endsWith('within_bound.c')) expect(result.redundant).toEqual([]);
  });

  it('a choice given another value whose thread then goes another way before its next choices: every graph, no divergence', async () => {
    const result = await checkSoundness(fixture('graph/choice_changes_path.c'), 'sc', 3, 5_000, ['graph']);
    expect(result.refused).toEqual([]);
    expect(result.problems).toEqual([]);
    expect(result.redundant).toEqual([]);
  });

  it.each(['graph/barrier_rounds.c', 'graph/barrier_never_completes.c'])('%s: barriers (rounds, the serial thread, one that never completes) as dfs sees them at bounds 0-3, split or not', async (file) => {
    const result = await checkSoundness(fixture(file), 'sc', 3, file.endsWith('rounds.c') ? BOUNDS_ONLY : 20_000, ['graph']);
    expect(result).toMatchObject({ problems: [], pastBug: [], redundant: [], refused: [] });
  });

  it('a choice a revisit kept, given another value before the write it made an earlier read read: that write stays, every class optimal runs, no divergence', async () => {
    const file = fixture('graph/choice_before_revisiting_write.c');
    const optimal = await exploreAll(file, 'optimal', Infinity, 'sc', Infinity, 10_000, {}, undefined, false);
    const graph = await exploreAll(file, 'graph', Infinity, 'sc');
    expect(graph).toMatchObject({ executions: optimal.executions, repeats: 0, finalStates: optimal.finalStates, bugs: optimal.bugs });
    expect(graph.readsFrom).toEqual(optimal.readsFrom);
  });

  it('spin loops block: a thread whose turn came back to where it was waits for a write to what it read, at every bound as dfs', async () => {
    const file = fixture('graph/spin_waits.c');
    const result = await checkSoundness(file, 'sc', 3, BOUNDS_ONLY, ['graph']);
    expect(result).toMatchObject({ problems: [], pastBug: [], redundant: [], refused: [] });
    // two spinners on one lock: an exchange that wrote back the 1 it read leaves the other waiting
    const three = await checkAllInterleavings(file, { strategy: 'graph', cflags: '-DTHREADS=3', maxBound: Infinity });
    const optimal = await checkAllInterleavings(file, { strategy: 'optimal', cflags: '-DTHREADS=3', maxBound: Infinity });
    expect(three.tests[0]).toMatchObject({ status: 'pass', complete: true, executions: optimal.tests[0]!.executions });
  });

  it('a spin nothing is left to release is a livelock, shown at the bound dfs shows it', async () => {
    const file = fixture('graph/spin_never_released.c');
    const graph = (await checkAllInterleavings(file, { strategy: 'graph', maxBound: 3 })).tests[0]!;
    const dfs = (await checkAllInterleavings(file, { strategy: 'dfs', maxBound: 3 })).tests[0]!;
    expect(graph).toMatchObject({ status: 'fail', bound: dfs.bound, bug: { kind: 'livelock', preemptions: dfs.bug!.preemptions } });
    const result = await checkSoundness(file, 'sc', 3, 5_000, ['graph']);
    expect(result).toMatchObject({ problems: [], redundant: [], refused: [] });
  });

  it('does not model a spin loop that reads two locations, in every order (whether it spins depends on the other threads): says so by name', async () => {
    const file = writeHarness(`
#include <pthread.h>
#include <stdatomic.h>
#include <weft.h>
static atomic_int a, b;
static void *waiter(void *unused) { (void)unused; while (atomic_load(&a) == 0 && atomic_load(&b) == 0) {} return NULL; }
WEFT_TEST(either) {
  pthread_t t;
  pthread_create(&t, NULL, waiter, NULL);
  atomic_store(&b, 1);
  pthread_join(t, NULL);
}
`);
    expect((await checkAllInterleavings(file, { strategy: 'graph', maxBound: Infinity })).tests[0]).toMatchObject({
      strategy: 'optimal', fallback: expect.stringMatching(/^strategy graph does not support spin loops whose turn reads more than one location or value, or plain memory in drf mode \(thread 1, step \d+\)/),
    });
  });

  it('never passes a loop that is no spin (it writes each turn): a run that turns to the step bound while another thread could go on is refused (what that one does next lies below a run that never ends), else the step bound is the bug', async () => {
    const file = writeHarness(`
#include <pthread.h>
#include <stdatomic.h>
#include <weft.h>
static atomic_int lock;
static _Thread_local int attempts;
static void take(void) { int expected = 0; while (!atomic_compare_exchange_strong(&lock, &expected, 1)) { expected = 0; attempts++; } }
static void *other(void *unused) { (void)unused; take(); atomic_store(&lock, 0); return NULL; }
WEFT_TEST(counts_attempts) {
  pthread_t t;
  pthread_create(&t, NULL, other, NULL);
  take();
  atomic_store(&lock, 0);
  pthread_join(t, NULL);
}
`);
    // a run whose loop turns until the step bound is refused; one whose longer and longer graph meets the bound first is that bug
    const outcome = await checkAllInterleavings(file, { strategy: 'graph', maxBound: Infinity, maxSteps: 300 }).then(
      (result) => result.tests[0]!.fallback ?? result.tests[0]!.bug?.kind,
    );
    expect(outcome).toMatch(/^step-limit$|strategy graph does not support a loop that runs to the step bound without being a spin \(its turns write or change its state\) while other threads could go on \(thread 0\)/);
  });

  it('a trylock that failed never revisits a lock: 3 threads that try, then lock, run optimal\'s 360 classes, each once (406 before)', async () => {
    const file = writeHarness(`
#include <pthread.h>
#include <weft.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static void *body(void *unused) {
  (void)unused;
  if (pthread_mutex_trylock(&m) == 0) pthread_mutex_unlock(&m);
  pthread_mutex_lock(&m);
  pthread_mutex_unlock(&m);
  return NULL;
}
WEFT_TEST(try_then_lock) {
  pthread_t a, b;
  pthread_create(&a, NULL, body, NULL);
  pthread_create(&b, NULL, body, NULL);
  body(NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}
`);
    const optimal = await exploreAll(file, 'optimal', Infinity, 'drf');
    const graph = await exploreAll(file, 'graph', Infinity, 'drf');
    expect(optimal.executions).toBe(360);
    expect(graph).toMatchObject({ executions: 360, repeats: 0, complete: true });
    expect(graph.coverage).toEqual(optimal.coverage);
  });

  it('models a free that po and rf order with every other use of its block: a reference count dropped to zero, each class once, as optimal', async () => {
    const optimal = await exploreAll(fixture('soundness/refcount.c'), 'optimal', Infinity, 'drf');
    const graph = await exploreAll(fixture('soundness/refcount.c'), 'graph', Infinity, 'drf');
    expect(graph).toMatchObject({ executions: optimal.executions, repeats: 0, complete: true });
    expect(graph.coverage).toEqual(optimal.coverage);
  });

  it('does not model a free whose order with a use of its block is no fact of the graph (which comes first decides where the run fails): explored with optimal', async () => {
    const buggy = (await checkAllInterleavings(fixture('soundness/refcount.c'), { strategy: 'graph', maxBound: Infinity, cflags: '-DBUGGY' })).tests[0]!;
    expect(buggy).toMatchObject({ status: 'fail', strategy: 'optimal', fallback: expect.stringMatching(/^strategy graph does not support a race or memory bug in a run that frees memory \(thread \d, step \d+\): explored with strategy optimal instead$/) });
    const lock = (await checkAllInterleavings(fixture('detectors/freed_objects.c'), { strategy: 'graph', maxBound: Infinity, test: 'mutex_in_a_block_freed_before_a_thread_locks_it' })).tests[0]!;
    expect(lock).toMatchObject({ status: 'fail', strategy: 'optimal', bug: { kind: 'memory' } });
    // the first run locks before the free and passes (a yield lets the worker go first): a lock is no race, so only the graph's order could tell
    const held = (await checkAllInterleavings(fixture('detectors/freed_objects.c'), { strategy: 'graph', maxBound: Infinity, test: 'mutex_in_a_block_freed_while_a_thread_holds_it' })).tests[0]!;
    expect(held).toMatchObject({ status: 'fail', strategy: 'optimal', bug: { kind: 'memory' }, fallback: expect.stringMatching(/^strategy graph does not support a free \(thread 0, step \d+\) and thread 1's step on the freed block \(step \d+\) that neither happens before/) });
  });

  it('does not model a plain write (drf mode: no step) to what atomics access: a compare-exchange after it is never taken as failing where it succeeds (a nondeterminism error before), explored with optimal', async () => {
    const file = writeHarness(`
#include <pthread.h>
#include <weft.h>
static int v;
static void *setter(void *unused) {
  (void)unused;
  int expected = 0;
  __atomic_compare_exchange_n(&v, &expected, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return NULL;
}
WEFT_TEST(plain_then_cas) {
  pthread_t a, b, c;
  pthread_create(&a, NULL, setter, NULL);
  pthread_join(a, NULL);
  v = 0;
  pthread_create(&b, NULL, setter, NULL);
  pthread_create(&c, NULL, setter, NULL);
  pthread_join(b, NULL);
  pthread_join(c, NULL);
  weft_assert(v == 1);
}
`);
    expect((await checkAllInterleavings(file, { strategy: 'graph', maxBound: Infinity })).tests[0]).toMatchObject({
      status: 'pass', executions: 2, strategy: 'optimal', fallback: expect.stringMatching(/^strategy graph does not support memory that atomics access written by no step of the graph: a plain write in drf mode/),
    });
  });

  it('does not model a condition variable yet: one note naming it, and the test explored with optimal', async () => {
    const file = writeHarness(`
#include <pthread.h>
#include <weft.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int ready;
static void *signaller(void *unused) { (void)unused; pthread_mutex_lock(&m); ready = 1; pthread_cond_signal(&c); pthread_mutex_unlock(&m); return NULL; }
WEFT_TEST(waits) {
  pthread_t t;
  pthread_create(&t, NULL, signaller, NULL);
  pthread_mutex_lock(&m);
  while (!ready) pthread_cond_wait(&c, &m);
  pthread_mutex_unlock(&m);
  pthread_join(t, NULL);
}
`);
    expect((await checkAllInterleavings(file, { strategy: 'graph', maxBound: Infinity })).tests[0]).toMatchObject({
      status: 'pass', complete: true, strategy: 'optimal', fallback: expect.stringMatching(/^strategy graph does not support (signal|wait) .*: explored with strategy optimal instead$/),
    });
  });
});

// The seeds compared here guard holes found before; the random programs compared for coverage
// alone (the graph engine's seeds, and four-thread ones within what it models) are run by
// `npm run soundness -- --known` (test/support/known-seeds.ts).

/**
 * Three-thread programs (withThreads) the oracle found wrong once: main returning before a
 * thread it never joined ran (45, 56), and graphs pruned by a floor that counted an order a
 * later write imposed (178, 363). 45's and 363's unbounded dfs pass 5,000 executions.
 */
const THREE_THREAD_SEEDS = [45, 56, 178, 363];
/** Three-thread programs within what the engine models: a yield right before a choice (299; its unbounded dfs passes 5,000 executions). */
const GRAPH_SHAPE_SEEDS = [299];
/**
 * With a spinlock of their own: a race right after main's barrier leave, in a run that stopped
 * another thread before its own leave in the graph (1261: both were taken as waiting there).
 */
const GRAPH_SPINLOCK_SEEDS = [1261];

describe('graph: random programs against dfs at bounds 0-3 (and unbounded dfs where it claims completeness)', () => {
  it.each(THREE_THREAD_SEEDS)('seed %i, three threads', async (seed) => {
    const shape = withThreads(randomShape(seed), 3);
    const file = writeHarness(randomProgram(seed, shape), `random_${seed}_3.c`);
    const result = await checkSoundness(file, shape.plain ? 'sc' : 'drf', 3, seed === 45 || seed === 363 ? BOUNDS_ONLY : 5_000, ['graph']);
    expect(result.problems).toEqual([]);
    expect(result.redundant).toEqual([]);
  });

  it.each(GRAPH_SHAPE_SEEDS)('seed %i, within what the engine models', async (seed) => {
    const drawn = randomShape(seed);
    const shape = withoutReadWriteLocksOrOnce(withinGraphEngine(withThreads(drawn, drawn.threads)));
    const file = writeHarness(randomProgram(seed, shape), `random_${seed}_graph.c`);
    const result = await checkSoundness(file, shape.plain ? 'sc' : 'drf', 3, BOUNDS_ONLY, ['graph']);
    expect(result.refused).toEqual([]);
    expect(result.problems).toEqual([]);
    expect(result.redundant).toEqual([]);
  });

  it.each(GRAPH_SPINLOCK_SEEDS)('seed %i, with a spinlock, within what the engine models', async (seed) => {
    const drawn = randomShape(seed);
    const shape = withinGraphEngine({ ...withThreads(drawn, drawn.threads), spinlock: spinlockShape(seed) });
    const file = writeHarness(randomProgram(seed, shape), `random_${seed}_spinlock_graph.c`);
    // the first run already met it: bounds 0-1 keep the test short, and the serial search's
    // hole needs no shard or worker splits (they took four fifths of its time); its unbounded
    // dfs passes 5,000 executions
    const result = await checkSoundness(file, shape.plain ? 'sc' : 'drf', 1, BOUNDS_ONLY, ['graph'], false);
    expect(result.refused).toEqual([]);
    expect(result.problems).toEqual([]);
  });

  it('five threads within what the engine models, seed 334: a shard on three workers prunes what the shard prunes alone (a thread\'s next event is read only where the item left its graph)', async () => {
    // a worker was given the frame's graph as it stood, the serial search the graph other
    // items' runs had changed past the item's cut: the worker knew a thread's next event the
    // serial search did not, pruned a failing class by it, and counted 2 fewer at bound 1
    const drawn = randomShape(334);
    const shape = withinGraphEngine(withThreads(drawn, 5));
    const file = writeHarness(randomProgram(334, shape), 'random_334_5_graph.c');
    const shard = { index: 3, count: 3 };
    const alone = await exploreAll(file, 'graph', 1, 'drf', 5_000, 200, {}, shard, false);
    const split = await exploreInSubtrees(file, 3, 7, 1, 'drf', 200, {}, Number.POSITIVE_INFINITY, shard, 'graph');
    expect(split.given, 'items given away').toBeGreaterThan(0);
    expect(splitDifferences(alone, split, 1)).toEqual([]);
  });

  it('yields: the classes dfs sees at bounds 0-3, each once (going on past a yield is a preemption, a choice right after one is no scheduling point)', async () => {
    const result = await checkSoundness(fixture('graph/yields.c'), 'drf', 3, BOUNDS_ONLY, ['graph']);
    expect(result).toMatchObject({ refused: [], problems: [], redundant: [] });
  });

  it('a choice a revisit deletes, taken another way than the run took it: each graph once', async () => {
    const result = await checkSoundness(fixture('graph/choice_deleted_by_revisit.c'), 'sc', 3, 5_000, ['graph']);
    expect(result.refused).toEqual([]);
    expect(result.problems).toEqual([]);
    expect(result.redundant).toEqual([]);
  });
});
