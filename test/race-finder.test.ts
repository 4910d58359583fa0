// RaceFinder keeps its analysis of the shared prefix from one execution to the next: each
// execution analysed incrementally must give the races a fresh analysis gives.
import { describe, expect, it } from 'vitest';

import { MAX_THREADS, Op } from '../src/addon/ops.js';
import { RaceFinder } from '../src/explore/races.js';
import type { ExecutionView } from '../src/explore/strategy.js';
import { WORDS } from '../src/explore/thread-set.js';

type Step = [thread: number, op: number, object: number];

function execution(steps: readonly Step[]): ExecutionView {
  const n = steps.length;
  return {
    steps: n, outcome: 0,
    thread: Uint8Array.from(steps, ([thread]) => thread), op: Uint8Array.from(steps, ([, op]) => op),
    object: Float64Array.from(steps, ([, , object]) => object), value: new Float64Array(n), bits: new BigUint64Array(n), size: new Uint8Array(n),
    written: new BigUint64Array(n), expected: new BigUint64Array(n), enabled: new Uint32Array(n * WORDS), casFails: new Uint32Array(n * WORDS),
    aside: new Uint8Array(n), pc: new Uint32Array(n), rmw: new Uint8Array(n), threadState: new Uint8Array(MAX_THREADS), pendingOp: new Uint8Array(MAX_THREADS),
    pendingObject: new Float64Array(MAX_THREADS), pendingValue: new Float64Array(MAX_THREADS), raceAt: new Int32Array(MAX_THREADS).fill(-1), raceAfter: new Int32Array(MAX_THREADS).fill(-1), mixedExtent: new Float64Array(4),
  };
}

function races(finder: RaceFinder, view: ExecutionView, from: number): string[] {
  const found: string[] = [];
  finder.find(view, view.steps, from, (earlier, later) => found.push(`${earlier}-${later}`));
  return found;
}

const X = 0x1000;
const Y = 0x2000;
const Z = 0x3000;
const load = (thread: number, object: number): Step => [thread, Op.ATOMIC_LOAD, object];
const store = (thread: number, object: number): Step => [thread, Op.ATOMIC_STORE, object];

describe('RaceFinder across executions', () => {
  it('an execution extending the whole of the previous one keeps every access of it', () => {
    const finder = new RaceFinder();
    races(finder, execution([store(1, Z), store(0, X), [0, Op.YIELD, 0], load(1, X)]), 0);
    races(finder, execution([store(1, Z), store(0, X), store(0, Y)]), 2);
    const extended = execution([store(1, Z), store(0, X), store(0, Y), store(1, X), load(1, Y)]);
    const incremental = races(finder, extended, 3);
    expect(races(new RaceFinder(), extended, 0)).toEqual(['1-3', '2-4']);
    expect(incremental).toEqual(['1-3', '2-4']);
  });

  it('a read races with the write before it however many reads lie between, and a write with the newest read', () => {
    const spin = [store(1, X), ...Array.from({ length: 1000 }, () => load(0, X)), store(2, X)];
    expect(races(new RaceFinder(), execution(spin), 0)).toEqual(['0-1', '1000-1001']);
  });
});
