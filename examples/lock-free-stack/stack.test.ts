// The same C tests driven from TypeScript: the buggy pop must fail, the real one pass.
// Imports weft by its package name, as your own project will.
import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from 'weft';
import 'weft/matchers';

const file = new URL('./stack.test.c', import.meta.url).pathname;

describe('lock-free stack', () => {
  it('passes every interleaving', async () => {
    expect(await checkAllInterleavings(file, { maxBound: 3 })).toPassAllInterleavings();
  });

  it('finds the bug in a pop that unlinks with a plain store', async () => {
    const result = await checkAllInterleavings(file, { test: 'two_concurrent_pops', cflags: '-DSTACK_BUGGY_POP' });
    expect(result).not.toPassAllInterleavings();
    expect(result.tests[0]!.bug?.message).toBe('both pops returned 2');
    expect(result.tests[0]!.bug?.preemptions).toBe(1);
  });
});
