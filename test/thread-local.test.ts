// __thread / _Thread_local variables: one copy per harness thread, initialised from the
// library's TLS template in every execution; static TLS models are refused.
import { describe, expect, it } from 'vitest';

import { buildHarness } from '../src/compile/compile.js';
import { BuildError } from '../src/compile/errors.js';
import { checkAllInterleavings } from '../src/index.js';
import { openHarness } from '../src/addon/addon.js';
import { Outcome } from '../src/addon/ops.js';
import { borrowHarness, returnHarness } from '../src/addon/harness-pool.js';
import { absoluteLocation, relativeLocation } from '../src/report/replay.js';
import { fixture, runCli, writeHarness } from './support/harness.js';

describe('thread-local variables', () => {
  it('give every thread its own copy, starting from the initial values, under every strategy', async () => {
    for (const options of [{ strategy: 'dfs', mode: 'sc' as const }, {}]) {
      const result = await checkAllInterleavings(fixture('primitives/thread_local.c'), { maxBound: 2, ...options });
      expect(result.tests.map((test) => [test.name, test.status])).toEqual([
        ['own_copies', 'pass'], ['reached_through_a_pointer', 'pass'],
      ]);
    }
  });

  it('start from the template again in every execution, in the main thread too', () => {
    const file = writeHarness(`
      #include <weft.h>
      static __thread int runs = 10;
      WEFT_TEST(counts) { runs++; weft_assert(runs == 11); }`);
    const harness = openHarness(buildHarness(file).library);
    const outcomes = [0, 1, 2].map(() => harness.run(0, new Uint16Array(0), 0, 1000, 0));
    expect(outcomes).toEqual([Outcome.OK, Outcome.OK, Outcome.OK]);
  });

  it('count each thread\'s own calls in every interleaving (a shared counter would not)', async () => {
    const file = writeHarness(`
      #include <pthread.h>
      #include <weft.h>
      static _Thread_local int calls;
      static void *twice(void *unused) { (void)unused; calls++; weft_yield(); calls++; return (void *)(long)calls; }
      WEFT_TEST(per_thread_count) {
        pthread_t t;
        pthread_create(&t, NULL, twice, NULL);
        void *theirs;
        long mine = (long)twice(NULL);
        pthread_join(t, &theirs);
        weft_assert(mine == 2 && (long)theirs == 2);
      }`);
    const [test] = (await checkAllInterleavings(file, { strategy: 'dfs', maxBound: 4 })).tests;
    expect(test).toMatchObject({ status: 'pass', complete: true });
    expect(test!.executions).toBeGreaterThan(1);
  });

  it('a copy handed to another thread by pointer is shared memory: unordered accesses race, named by variable and thread; the race replays', async () => {
    const file = fixture('threads/thread_local_by_pointer.c');
    const tests = new Map((await checkAllInterleavings(file)).tests.map((test) => [test.name, test]));
    const race = tests.get('written_by_another_thread')!;
    expect(race.bug).toMatchObject({ kind: 'race', message: expect.stringContaining("data race on mine (T0's thread-local copy): T1 writes") });
    expect(tests.get('read_after_join')?.status).toBe('pass');
    const replay = JSON.parse(runCli(['replay', file, '--schedule', race.bug!.schedule, '--json']).stdout);
    expect(replay.tests[0].bug).toMatchObject({ kind: 'race', message: race.bug!.message });
  });

  it('a thread-local copy is found again in a process that maps the blocks elsewhere (replay strings, worker processes)', () => {
    const library = buildHarness(fixture('threads/thread_local_by_pointer.c')).library;
    const harness = borrowHarness(library);
    try {
      const here = harness.result();
      expect(here.tlsBlockSize).toBeGreaterThan(0);
      const copy = here.tlsBase + 3 * here.tlsBlockSize + 8;
      const elsewhere = { ...here, tlsBase: here.tlsBase + 2 ** 30 };
      expect(relativeLocation(copy, here)).toBe(`t${3 * here.tlsBlockSize + 8}`);
      expect(absoluteLocation(relativeLocation(copy, here), elsewhere)).toBe(copy + 2 ** 30);
    } finally {
      returnHarness(library, harness);
    }
  });

  it('refuses the initial-exec model, which would share one copy between threads', () => {
    const file = writeHarness(`
      #include <weft.h>
      static __thread int fast __attribute__((tls_model("initial-exec")));
      WEFT_TEST(t) { fast++; }`);
    expect(() => buildHarness(file)).toThrow(BuildError);
    expect(() => buildHarness(file)).toThrow(/harness\.c:4: thread-local variable 'fast' uses a static TLS model/);
  });
});
