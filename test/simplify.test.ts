import { describe, expect, it } from 'vitest';

import { buildHarness } from '../src/compile/compile.js';
import { copyFailure } from '../src/explore/driver.js';
import { replaySchedule } from '../src/explore/replay.js';
import { openHarness } from '../src/addon/addon.js';
import { Outcome } from '../src/addon/ops.js';
import { simplify } from '../src/report/simplify.js';
import { fixture } from './support/harness.js';

const switches = (threads: Uint8Array) => threads.slice(1).filter((thread, i) => thread !== threads[i]).length;

describe('counterexample simplification', () => {
  it('turns a needlessly interleaved failing execution into blocks, failing the same way', async () => {
    const harness = openHarness(buildHarness(fixture('core/always_fails.c')).library);
    // create, then alternate: T1 start, T0 store, T1 store, T0 store, T1 store, T0 store, T1 store, T1 exit, ...
    const interleaved = Uint16Array.from([0, 1, 0, 1, 0, 1, 0, 1, 1, 0, 0]);
    const run = (decisions: Uint16Array) => harness.run(0, decisions, decisions.length, 1000, 0);
    expect(run(interleaved)).toBe(Outcome.ASSERTION);
    const original = copyFailure(harness, { steps: harness.trace().status[0]!, outcome: Outcome.ASSERTION });
    const none = new Float64Array(0);
    const replay = (decisions: Uint16Array, flags = 0) =>
      replaySchedule(harness, decisions, { test: 0, maxSteps: 1000, mode: 0, flags, nondetDomain: none, visible: none });
    const simplified = await simplify(original, { harness, test: 0, bound: 'preemption', replay });
    expect(simplified.result.message).toBe('always fails');
    expect(switches(simplified.execution.thread)).toBeLessThan(switches(original.execution.thread));
    expect(switches(simplified.execution.thread)).toBeLessThanOrEqual(2);
    expect(simplified.preemptions).toBeLessThanOrEqual(original.preemptions);
  });
});
