// Bugs that must not pass unreported: a huge alloca in a worker, past every guard page, and a
// use after free whose load an optimiser that knows free() would delete, or whose value goes
// to a static that nothing reads. Each is reported as what it is, at the default
// optimisation level and above.
import { describe, expect, it } from 'vitest';

import { type TestResult, checkAllInterleavings } from '../src/index.js';
import { fixture, writeHarness } from './support/harness.js';

describe('a worker that allocas 100 MB and writes to it', () => {
  it('is a stack overflow of that worker, however it writes', async () => {
    const result = await checkAllInterleavings(fixture('escapes/alloca_in_a_worker.c'));
    expect(result.tests.map((test) => test.name)).toEqual(['fill_all_of_it', 'write_the_far_end', 'variable_length_array']);
    for (const test of result.tests)
      expect(test, test.name).toMatchObject({ status: 'fail', bug: { kind: 'crash', thread: 1, message: 'stack overflow in thread 1' } });
  });
});

/** `test` failed on a use after free at line `read` of `file`, of the block allocated and freed at those lines. */
function expectUseAfterFree(test: TestResult | undefined, file: string, lines: { allocated: number; freed: number; read: number }): void {
  expect(test).toMatchObject({ status: 'fail', bug: { kind: 'memory', location: { line: lines.read } } });
  expect(test!.bug!.message).toContain('use after free');
  expect(test!.bug!.message).toContain(`allocated at fixtures/${file}:${lines.allocated}, freed at fixtures/${file}:${lines.freed}`);
}

describe('a use after free whose value goes to a global', () => {
  it.each(['-O1', '-O2', '-O3'])('is reported with its allocation and its free at %s', async (level) => {
    const file = 'escapes/use_after_free_into_a_global.c';
    const [test] = (await checkAllInterleavings(fixture(file), { cflags: level })).tests;
    expectUseAfterFree(test, file, { allocated: 15, freed: 17, read: 18 });
  });
});

describe('a static that nothing reads, whose stores gcc deletes', () => {
  it.each(['-O0', '-O1', '-Os', '-O2', '-O3'])('a use after free whose value goes there is reported with its allocation and its free at %s', async (level) => {
    const file = 'escapes/use_after_free_into_a_static.c';
    const { tests } = await checkAllInterleavings(fixture(file), { cflags: level });
    expect(tests.map((test) => test.name)).toEqual(['into_a_file_static', 'into_a_function_static']);
    expectUseAfterFree(tests[0], file, { allocated: 15, freed: 17, read: 18 });
    expectUseAfterFree(tests[1], file, { allocated: 23, freed: 25, read: 26 });
  });

  it('plain writes to it that race are a data race', async () => {
    const file = writeHarness(`#include <pthread.h>
#include <weft.h>
static int done;
static void *finish(void *unused) {
  done = 1;
  return unused;
}
WEFT_TEST(two_threads_write_a_static_nothing_reads) {
  pthread_t t;
  pthread_create(&t, 0, finish, 0);
  done = 2;
  pthread_join(t, 0);
}
`);
    const [test] = (await checkAllInterleavings(file)).tests;
    expect(test).toMatchObject({ status: 'fail', bug: { kind: 'race', message: expect.stringMatching(/^data race on done/) } });
  });

  it('costs nothing where no static is write-only: the reads of one that nothing writes are still folded, no steps in sc mode', async () => {
    const file = writeHarness(`#include <pthread.h>
#include <weft.h>
static int rounds = 2;
static void *count(void *unused) {
  for (int i = 0; i < rounds; i++) weft_assert(rounds == 2);
  return unused;
}
WEFT_TEST(reads_of_a_static_nothing_writes) {
  pthread_t t;
  pthread_create(&t, 0, count, 0);
  weft_assert(rounds == 2);
  pthread_join(t, 0);
}
`);
    // as scheduling points, the reads would give dfs 4 executions
    const [test] = (await checkAllInterleavings(file, { mode: 'sc', strategy: 'dfs' })).tests;
    expect(test).toMatchObject({ status: 'pass', executions: 1, complete: true });
  });
});
