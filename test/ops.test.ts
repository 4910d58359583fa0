import { describe, expect, it } from 'vitest';

import { Access, accessOf, potentialAccessOf, stepsConflict } from '../src/explore/dependence.js';
import { Op, OpFlag, Outcome, hasFlag, opNames, outcomeNames } from '../src/addon/ops.js';

// src/addon/op-table.ts is generated from runtime/ops.h by compiling it: these
// check the meanings partial-order reduction depends on, as read through that table.
const conflict = (a: [number, number, number], b: [number, number, number], judge = accessOf) =>
  stepsConflict(a[0], a[1], a[2], judge(a[0]), b[0], b[1], b[2], judge(b[0]));

describe('the op table generated from ops.h', () => {
  it('numbers ops and outcomes densely, each with a name', () => {
    const ops = Object.values(Op);
    expect(ops).toEqual(ops.map((_, i) => i));
    expect(opNames).toHaveLength(ops.length);
    expect(opNames.every((name) => name.length > 0)).toBe(true);
    expect(Object.values(Outcome)).toEqual(outcomeNames.map((_, i) => i));
  });

  it('judges a failed compare-exchange as a read where it ran, and as a possible write elsewhere', () => {
    const failed: [number, number, number] = [Op.ATOMIC_CAS_FAIL, 0x1000, 0];
    expect(conflict(failed, failed)).toBe(false);
    expect(conflict(failed, failed, potentialAccessOf)).toBe(true);
    expect(potentialAccessOf(Op.ATOMIC_LOAD)).toBe(Access.READ);
  });

  it('makes a free conflict with every access inside the block, and with nothing outside it', () => {
    const free: [number, number, number] = [Op.FREE, 0x1000, 32];
    expect(conflict(free, [Op.ATOMIC_LOAD, 0x1000, 0])).toBe(true);
    expect(conflict(free, [Op.PLAIN_READ, 0x1018, 0])).toBe(true);
    expect(conflict([Op.ATOMIC_STORE, 0x101f, 0], free)).toBe(true);
    expect(conflict(free, [Op.ATOMIC_LOAD, 0x1020, 0])).toBe(false);
    expect(conflict(free, [Op.ATOMIC_LOAD, 0xfff, 0])).toBe(false);
  });

  it('makes the end of main and exit() conflict with any step of another thread', () => {
    expect(conflict([Op.MAIN_RETURN, 0, 0], [Op.THREAD_START, 3, 0])).toBe(true);
    expect(conflict([Op.PROCESS_EXIT, 0, 0], [Op.YIELD, 0, 0])).toBe(true);
  });

  it('derives what deadlock analysis and reports need from flags', () => {
    expect(hasFlag(Op.MUTEX_LOCK, OpFlag.WAITS | OpFlag.LOCK)).toBe(true);
    expect(hasFlag(Op.MUTEX_TRYLOCK, OpFlag.WAITS)).toBe(false);
    expect(hasFlag(Op.COND_WAIT, OpFlag.RELEASES_ARGUMENT)).toBe(true);
    expect(hasFlag(Op.THREAD_EXIT, OpFlag.ENDS_THREAD)).toBe(true);
  });
});
