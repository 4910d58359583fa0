// Refuses a run where a thread turned a loop twice the same way (the same steps at the same
// places with the same values, a write among them, so that spin.c never compares its state)
// while another thread could run: it may go on turning so at no cost, a run that never ends,
// which no graph holds (each graph that holds the other thread's write ending the loop is an
// execution of its own, so the graphs of more and more turns would go on up to the step
// bound). Once per run observed: per thread and code address of a read, its last two steps
// there, in an open-addressing table emptied in constant time (a generation per run), so
// that a run's reads allocate nothing.
import { Access, Aside, MAX_THREADS, accessOf } from '../../addon/ops.js';
import type { ExecutionView } from '../strategy.js';
import { WORDS, hasOther } from '../thread-set.js';
import { hashOfKey } from '../typed-arrays.js';
import { UnsupportedHarnessError } from '../unsupported.js';

export class RepeatedTurns {
  /** per step of the run, its thread's step before it (-1: none) */
  private stepBefore = new Int32Array(64);
  private readonly lastStep = new Int32Array(MAX_THREADS);
  /** the table: a read's thread and code address, and its last step there and the one before (-1: none) */
  private keys = new Float64Array(1 << 8);
  private last = new Int32Array(1 << 8);
  private before = new Int32Array(1 << 8);
  private generations = new Uint32Array(1 << 8);
  private generation = 0;
  private size = 0;

  refuse(execution: ExecutionView): void {
    if (this.stepBefore.length < execution.steps) this.stepBefore = new Int32Array(execution.steps * 2);
    this.lastStep.fill(-1);
    this.clear();
    for (let step = 0; step < execution.steps; step++) {
      const thread = execution.thread[step]!;
      this.stepBefore[step] = this.lastStep[thread]!;
      this.lastStep[thread] = step;
      if (accessOf(execution.op[step]!) !== Access.READ) continue;
      const slot = this.slotOf(thread * 0x100000000 + execution.pc[step]!);
      const before = this.last[slot]!;
      const turnBefore = this.before[slot]!;
      this.before[slot] = before;
      this.last[slot] = step;
      if (turnBefore < 0 || !hasOther(execution.enabled, step * WORDS, thread)) continue;
      if (this.turnRepeats(execution, turnBefore, before, step)) throw new UnsupportedHarnessError('graph', `a loop that is no spin (its turns write) turning the same way while other threads could go on (thread ${thread}, step ${step})`);
    }
  }

  /** Whether the thread's steps after `before` up to `step` repeat, one by one, its steps after `turnBefore` up to `before`, a write among them and no spin. */
  private turnRepeats(execution: ExecutionView, turnBefore: number, before: number, step: number): boolean {
    let wrote = false;
    let at = step;
    let earlier = before;
    while (at !== before) {
      if (earlier === turnBefore) return false;
      const op = execution.op[at]!;
      if (op !== execution.op[earlier] || execution.pc[at] !== execution.pc[earlier] || execution.object[at] !== execution.object[earlier] ||
        execution.bits[at] !== execution.bits[earlier] || (execution.aside[at]! & (Aside.SPIN | Aside.TURN)) !== 0) return false;
      const access = accessOf(op);
      if (access !== Access.READ && access !== Access.NONE) wrote = true;
      at = this.stepBefore[at]!;
      earlier = this.stepBefore[earlier]!;
    }
    return wrote && earlier === turnBefore;
  }

  private clear(): void {
    this.size = 0;
    if (++this.generation === 0xffffffff) {
      this.generations.fill(0);
      this.generation = 1;
    }
  }

  /** The slot of `key` in this run's table, new (no steps yet) when it was not there. */
  private slotOf(key: number): number {
    const mask = this.keys.length - 1;
    let slot = hashOfKey(key) & mask;
    while (this.generations[slot] === this.generation) {
      if (this.keys[slot] === key) return slot;
      slot = (slot + 1) & mask;
    }
    if ((this.size + 1) * 2 > this.keys.length) {
      this.grow();
      return this.slotOf(key);
    }
    this.size++;
    this.generations[slot] = this.generation;
    this.keys[slot] = key;
    this.last[slot] = -1;
    this.before[slot] = -1;
    return slot;
  }

  private grow(): void {
    const { keys, last, before, generations, generation } = this;
    const size = keys.length * 2;
    this.keys = new Float64Array(size);
    this.last = new Int32Array(size);
    this.before = new Int32Array(size);
    this.generations = new Uint32Array(size);
    this.generation = 1;
    this.size = 0;
    for (let slot = 0; slot < keys.length; slot++) {
      if (generations[slot] !== generation) continue;
      const moved = this.slotOf(keys[slot]!);
      this.last[moved] = last[slot]!;
      this.before[moved] = before[slot]!;
    }
  }
}
