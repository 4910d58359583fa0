// The default policy, `auto` (src/explore/optimal-first.ts): optimal first, then the bounded
// search only where optimal did not settle the question.
import { describe, expect, it } from 'vitest';

import type { Exploration, FailingExecution } from '../src/explore/driver.js';
import { optimalFoundBy } from '../src/explore/optimal-first.js';
import { checkAllInterleavings } from '../src/index.js';
import { fixture, runCli, unwrapped } from './support/harness.js';

const check = async (file: string, options: Parameters<typeof checkAllInterleavings>[1] = {}) =>
  (await checkAllInterleavings(fixture(file), options)).tests[0]!;

describe('the default policy: optimal first', () => {
  it('explores 6 readers and a writer completely in 64 executions, one per class, at bound 3', async () => {
    const test = await check('por/readers_writer.c', { cflags: '-DREADERS=6', maxBound: 3 });
    expect(test).toMatchObject({ status: 'pass', strategy: 'optimal', executions: 64, redundantRuns: 0, complete: true });
    expect(test.guarantee).toBe('complete: every interleaving explored');
  });

  // 4 × 3 (369,600 executions, a minute under Vitest) is measured by npm run bench strategies
  it('explores 4 threads × 2 locked increments unbounded in exactly 8!/(2!)⁴ = 2,520 executions, one per class', async () => {
    const test = await check('por/locked_increments.c', { cflags: '-DTHREADS=4 -DINCREMENTS=2', maxBound: Number.POSITIVE_INFINITY, timeBudgetMs: Number.POSITIVE_INFINITY });
    expect(test).toMatchObject({ status: 'pass', strategy: 'optimal', executions: 2_520, redundantRuns: 0, complete: true });
  });

  it("shows optimal's bug with the fewest preemptions once bpor has explored the bounds below it", async () => {
    const test = await check('seeds/bug_inspect.c');
    expect(test).toMatchObject({ status: 'fail', strategy: 'optimal', bound: 1 });
    expect(test.bug!.preemptions).toBe(1);
    expect(test.guarantee).toMatch(/^bug found by optimal DPOR after \d+ executions, shown with 1 preemption, the fewest: bpor explored bound 0 without a bug$/);
  });

  it('a bug that needs more preemptions than maxBound is shown beside the pass, not as a failure', async () => {
    const test = await check('lost_update.c', { maxBound: 0, mode: 'sc' });
    expect(test).toMatchObject({ status: 'pass', bound: 0, guarantee: 'all executions with ≤ 0 preemptions explored' });
    expect(test.beyondBound).toMatchObject({ kind: 'assertion', preemptions: 1 });
    const cli = runCli(['check', fixture('lost_update.c'), '--max-bound', '0', '--mode', 'sc']);
    expect(cli.status).toBe(0);
    expect(unwrapped(cli.stdout)).toContain('beyond maxBound: assertion failed: counter == 2, needing 1 preemption (raise maxBound to fail on it; replay: weft1:');
  });

  it('a bug needing no preemption ends the search at once', async () => {
    const test = await check('core/always_fails.c');
    expect(test).toMatchObject({ status: 'fail', strategy: 'optimal', bound: 0, guarantee: 'bug found at bound 0 after 1 executions' });
  });

  it('a budget spent inside the optimal phase is reported as partial, and never overrun', async () => {
    const test = await check('locked_counter.c', { maxExecutions: 1 });
    expect(test).toMatchObject({ status: 'pass', partial: true, executions: 1, strategy: 'optimal' });
    expect(test.guarantee).toBe('budget exhausted (maxExecutions) after 1 executions of optimal DPOR, which explores every bound at once; no bound fully explored');
  });

  it('hands over to bpor when optimal does not finish in its share, with progress counting on across the two', async () => {
    const progress: number[] = [];
    const test = await check('por/locked_increments.c', {
      cflags: '-DTHREADS=5 -DINCREMENTS=3', timeBudgetMs: 2_000, onProgress: ({ executions }) => progress.push(executions),
    });
    expect(test).toMatchObject({ status: 'pass', strategy: 'bpor', partial: true });
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.every((executions, index) => index === 0 || executions >= progress[index - 1]!)).toBe(true);
  });

  it('a chosen strategy runs alone', async () => {
    const test = await check('por/readers_writer.c', { cflags: '-DREADERS=2', strategy: 'bpor', maxBound: 1 });
    expect(test).toMatchObject({ status: 'pass', strategy: 'bpor', guarantee: 'all executions with ≤ 1 preemptions explored' });
  });
});

describe("how optimal's bug was found", () => {
  const twoPreemptions = { preemptions: 2 } as FailingExecution;
  const stopped = (stoppedBy: Exploration['stoppedBy'], bound: number) => ({ stoppedBy, bound, complete: false }) as Exploration;

  it('says whether bpor then explored the bounds below it, ran out of budget, or was interrupted', () => {
    expect(optimalFoundBy(twoPreemptions, 10, stopped('max-bound', 1), 'bpor', false)).toBe('optimal DPOR after 10 executions, shown with 2 preemptions, the fewest: bpor explored bounds 0-1 without a bug');
    const outOfBudget = 'optimal DPOR after 10 executions, shown with 2 preemptions; bpor ran out of budget before exploring bound 1: a bug with fewer preemptions may exist';
    expect(optimalFoundBy(twoPreemptions, 10, stopped('time-budget', 0), 'bpor', false)).toBe(outOfBudget);
    expect(optimalFoundBy(twoPreemptions, 10, undefined, 'bpor', false)).toBe(outOfBudget);
    // an interrupt before bpor could start (while optimal's bug was simplified) is no budget
    expect(optimalFoundBy(twoPreemptions, 10, undefined, 'bpor', true)).toBe(outOfBudget.replace('ran out of budget', 'was interrupted'));
  });
});

