// The optional leak report (leaks: true): blocks still allocated when an execution ends.
import { describe, expect, it } from 'vitest';

import { checkAllInterleavings } from '../src/index.js';
import { fixture, runCli } from './support/harness.js';

describe('leaks: true', () => {
  it('reports the blocks still allocated at the end, with the first one\'s allocation site', async () => {
    const test = (await checkAllInterleavings(fixture('leaks/leaky_queue.c'), { leaks: true })).tests[0]!;
    expect(test).toMatchObject({
      status: 'fail',
      bug: {
        kind: 'leak',
        message: '2 blocks (32 bytes) still allocated when the execution ended; the first, 16 bytes, allocated at fixtures/leaks/leaky_queue.c:16',
      },
    });
  });

  it('is off by default, and a program that frees its blocks passes with it on', async () => {
    expect((await checkAllInterleavings(fixture('leaks/leaky_queue.c'))).tests[0]!.status).toBe('pass');
    const fixed = await checkAllInterleavings(fixture('leaks/leaky_queue.c'), { leaks: true, cflags: '-DFIXED' });
    expect(fixed.tests[0]).toMatchObject({ status: 'pass', complete: true });
  });

  it('has a CLI flag', () => {
    const run = runCli(['check', fixture('leaks/leaky_queue.c'), '--leaks']);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('leak: 2 blocks (32 bytes) still allocated when the execution ended');
  });
});
