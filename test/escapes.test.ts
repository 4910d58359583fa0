// Bugs that must not pass unreported: a huge alloca in a worker, past every guard page, and a
// use after free whose load an optimiser that knows free() would delete. Each is reported
// as what it is, at the default optimisation level and above.
import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/index.js';
import { fixture } from './support/harness.js';

describe('a worker that allocas 100 MB and writes to it', () => {
  it('is a stack overflow of that worker, however it writes', async () => {
    const result = await checkAllInterleavings(fixture('escapes/alloca_in_a_worker.c'));
    expect(result.tests.map((test) => test.name)).toEqual(['fill_all_of_it', 'write_the_far_end', 'variable_length_array']);
    for (const test of result.tests)
      expect(test, test.name).toMatchObject({ status: 'fail', bug: { kind: 'crash', thread: 1, message: 'stack overflow in thread 1' } });
  });
});

describe("a use after free whose value goes to a global", () => {
  it.each(['-O1', '-O2', '-O3'])('is reported with its allocation and its free at %s', async (level) => {
    const file = fixture('escapes/use_after_free_into_a_global.c');
    const [test] = (await checkAllInterleavings(file, { cflags: level })).tests;
    expect(test).toMatchObject({ status: 'fail', bug: { kind: 'memory', location: { line: 21 } } });
    expect(test!.bug!.message).toContain('use after free');
    expect(test!.bug!.message).toMatch(/allocated at fixtures\/escapes\/use_after_free_into_a_global\.c:18, freed at fixtures\/escapes\/use_after_free_into_a_global\.c:20/);
  });
});
