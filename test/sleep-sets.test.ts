import { describe, expect, it } from 'vitest';

import { buildHarness } from '../src/compile/compile.js';
import { type NativeHarness, openHarness } from '../src/addon/addon.js';
import { Op, Outcome } from '../src/addon/ops.js';
import { WORDS, add, has, threadSets } from '../src/explore/thread-set.js';
import { fixture } from './support/harness.js';

const DRF = 0;
const MAIN = threadSets(); // thread 0 alone
add(MAIN, 0, 0);

const harnesses = new Map<string, NativeHarness>(); // one per build: a harness library is never unloaded

function open(cflags = '') {
  const harness = harnesses.get(cflags) ?? openHarness(buildHarness(fixture('por/sleep_wake.c'), { cflags }).library);
  harnesses.set(cflags, harness);
  const run = (decisions: number[], asleep?: Uint32Array, asleepFrom?: number, planFrom?: number) => {
    const schedule = Uint16Array.from(decisions);
    const outcome = harness.run(0, schedule, schedule.length, 1000, DRF, 0, undefined, undefined, asleep, asleepFrom, planFrom);
    const trace = harness.trace();
    return { outcome, threads: Array.from(trace.thread.slice(0, trace.status[0]!)), ops: Array.from(trace.op.slice(0, trace.status[0]!)) };
  };
  return run;
}

// Steps: 0 and 1 main creates the reader (thread 1) and the writer (thread 2); at step 2
// main is about to store to x; deciding the reader there, it starts, loads, and exits
// (steps 2-4); step 5 is the default policy's choice between main and the writer.
describe('sleep sets in the runtime', () => {
  it('without sleeping threads, the default policy takes the lowest enabled thread', () => {
    const run = open();
    // main stores and joins the reader, then waits for the writer
    expect(run([0, 0, 1]).threads).toEqual([0, 0, 1, 1, 1, 0, 0, 2, 2, 2, 0, 0]);
  });

  it('keeps a sleeping thread waiting while another is enabled', () => {
    const run = open();
    const { outcome, threads } = run([0, 0, 1], MAIN, 2);
    expect(outcome).toBe(Outcome.OK);
    expect(threads.slice(0, 8)).toEqual([0, 0, 1, 1, 1, 2, 2, 2]);
  });

  it('wakes it when a step conflicts with what it is about to do', () => {
    const run = open('-DREAD_X');
    const { threads, ops } = run([0, 0, 1], MAIN, 2);
    expect(ops[3]).toBe(Op.ATOMIC_LOAD);
    expect(threads[5]).toBe(0);
  });

  it('a compare-exchange that would fail is a read: a load does not wake it; one that would succeed is woken', () => {
    const failing = open('-DREAD_X -DCAS_X=5');
    expect(failing([0, 0, 1], MAIN, 2).threads[5]).toBe(2);
    expect(has(harnesses.get('-DREAD_X -DCAS_X=5')!.trace().casFails, 2 * WORDS, 0)).toBe(true);
    const succeeding = open('-DREAD_X -DCAS_X=0');
    expect(succeeding([0, 0, 1], MAIN, 2).threads[5]).toBe(0);
    expect(has(harnesses.get('-DREAD_X -DCAS_X=0')!.trace().casFails, 2 * WORDS, 0)).toBe(false);
  });

  it('runs a sleeping thread when no other is enabled', () => {
    const run = open();
    // once the writer exits (step 7), main is the only thread left: store, two joins, return
    expect(run([0, 0, 1], MAIN, 2).threads.slice(8)).toEqual([0, 0, 0, 0]);
  });
});

describe('plans', () => {
  // main cannot join the reader at step 3: the reader has not run
  it('a decision the runtime cannot follow is a divergence before planFrom', () => {
    expect(open()([0, 0, 0, 0]).outcome).toBe(Outcome.DIVERGENCE);
  });

  it('and ends the plan from planFrom on: the default policy goes on', () => {
    const { outcome, threads } = open()([0, 0, 0, 0], undefined, 0, 3);
    expect(outcome).toBe(Outcome.OK);
    expect(threads.slice(0, 4)).toEqual([0, 0, 0, 1]);
  });
});
