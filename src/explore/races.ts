// Happens-before and races of one execution, with vector clocks: for every step, the
// earlier steps of other threads it conflicts with and is not already ordered after.
// Reversing such a race may lead to a new behaviour; partial-order reduction backtracks
// there. Buffers are reused between executions: nothing is allocated per step.
import {
  Access, accessOf, conflicts, extentOf, isThreadObject, objectOf, secondAccessOf, secondObjectOf, touchesRange,
} from './dependence.js';
import { MAX_THREADS } from '../native/ops.js';
import type { ExecutionView } from './strategy.js';


export type RaceHandler = (earlier: number, later: number) => void;

export class RaceFinder {
  private clocks = new Uint32Array(0); // per step: its vector clock (MAX_THREADS entries)
  private readonly threadClock = new Uint32Array(MAX_THREADS * MAX_THREADS);
  private readonly lastOfThread = new Int32Array(MAX_THREADS);
  /** per object, a linked list of the accesses to it (newest first) */
  private readonly newest = new Map<number, number>();
  private entryStep = new Int32Array(0);
  private entryAccess = new Uint8Array(0);
  private entryPrevious = new Int32Array(0);
  private entryObject = new Float64Array(0);
  private entriesBefore = new Int32Array(0); // per step: entries made by the steps before it
  private entries = 0;
  /** the steps that freed a heap block (they touch a range, not one object), in order */
  private frees = new Int32Array(16);
  private freeCount = 0;
  /** steps of the last execution whose analysis is still valid */
  private analysed = 0;
  private readonly scratch = new Uint32Array(MAX_THREADS);
  /** threads of the current execution: clock entries beyond are never read */
  private width = 0;

  private reserve(steps: number): void {
    if (this.clocks.length >= steps * MAX_THREADS) return;
    const size = Math.max(steps, 1024) * 2;
    this.clocks = new Uint32Array(size * MAX_THREADS);
    this.entryStep = new Int32Array(size * 2);
    this.entryAccess = new Uint8Array(size * 2);
    this.entryPrevious = new Int32Array(size * 2);
    this.entryObject = new Float64Array(size * 2);
    this.entriesBefore = new Int32Array(size + 1);
    this.analysed = 0;
  }

  /**
   * Calls `race(j, i)` for every race of the first `steps` steps with `i >= from`. The
   * execution must equal the previously analysed one before `from` (a shared prefix):
   * its analysis is kept, only the rest is redone.
   */
  find(execution: ExecutionView, steps: number, from: number, race: RaceHandler): void {
    this.reserve(steps);
    let width = 0;
    for (let i = 0; i < steps; i++) width = Math.max(width, execution.thread[i]! + 1);
    const start = width === this.width ? Math.min(from, this.analysed, steps) : 0;
    this.width = width;
    this.rewind(execution, start);
    const { clocks, threadClock } = this;
    for (let i = start; i < steps; i++) {
      this.entriesBefore[i] = this.entries;
      const thread = execution.thread[i]!;
      const op = execution.op[i]!;
      const own = i * MAX_THREADS;
      const mine = thread * MAX_THREADS;
      for (let t = 0; t < width; t++) clocks[own + t] = threadClock[mine + t]!;
      clocks[own + thread]! += 1;
      const access = accessOf(op);
      if (access === Access.GLOBAL) this.raceWithEveryThread(execution, i, race);
      else if (access !== Access.NONE) {
        // a condition wake-up's mutex first: its race with other lockers must be judged
        // before the signal it may have consumed orders them (a timed wait needs none)
        const second = secondObjectOf(op, execution.value[i]!);
        if (second !== undefined) this.touch(execution, i, second, secondAccessOf(op), race);
        if (touchesRange(op)) this.touchBlock(execution, i, execution.object[i]!, extentOf(op, execution.value[i]!), race);
        else this.touch(execution, i, objectOf(op, execution.object[i]!), access, race);
      }
      for (let t = 0; t < width; t++) threadClock[mine + t] = clocks[own + t]!;
      this.lastOfThread[thread] = i;
    }
    this.analysed = steps;
  }

  /** Back to the state after the first `step` steps of the last analysis. */
  private rewind(execution: ExecutionView, step: number): void {
    const keep = step === 0 ? 0 : this.entriesBefore[step]!;
    if (step === 0) this.newest.clear();
    else for (let e = this.entries - 1; e >= keep; e--) this.newest.set(this.entryObject[e]!, this.entryPrevious[e]!);
    this.entries = keep;
    while (this.freeCount > 0 && this.frees[this.freeCount - 1]! >= step) this.freeCount--;
    this.threadClock.fill(0);
    this.lastOfThread.fill(-1);
    const width = this.width;
    for (let i = step - 1; i >= 0; i--) {
      const thread = execution.thread[i]!;
      if (this.lastOfThread[thread] !== -1) continue;
      this.lastOfThread[thread] = i;
      for (let t = 0; t < width; t++) this.threadClock[thread * MAX_THREADS + t] = this.clocks[i * MAX_THREADS + t]!;
    }
  }

  /** Whether step `a` happens before step `b` (both already analysed). */
  happensBefore(execution: ExecutionView, a: number, b: number): boolean {
    return this.ordered(execution, a, b * MAX_THREADS);
  }

  /** The clock value that thread `thread` had reached when step `step` ran. */
  clockOf(step: number, thread: number): number {
    return this.clocks[step * MAX_THREADS + thread]!;
  }

  /** step j happens before the step whose clock starts at `clock` */
  private ordered(execution: ExecutionView, j: number, clock: number): boolean {
    const thread = execution.thread[j]!;
    return this.clocks[clock + thread]! >= this.clocks[j * MAX_THREADS + thread]!;
  }

  private join(into: number, from: number): void {
    const { clocks, width } = this;
    for (let t = 0; t < width; t++) {
      const value = clocks[from + t]!;
      if (value > clocks[into + t]!) clocks[into + t] = value;
    }
  }

  private touch(execution: ExecutionView, i: number, object: number, access: Access, race: RaceHandler): void {
    const head = this.newest.get(object) ?? -1;
    this.raceWithEntries(execution, i, head, access, object, race);
    if (this.freeCount > 0 && !isThreadObject(object)) this.raceWithFrees(execution, i, object, 1, access, race);
    const entry = this.entries++;
    this.entryStep[entry] = i;
    this.entryAccess[entry] = access;
    this.entryPrevious[entry] = head;
    this.entryObject[entry] = object;
    this.newest.set(object, entry);
  }

  /** A heap block's free writes every address of the block: every earlier access to one races with it. */
  private touchBlock(execution: ExecutionView, i: number, start: number, extent: number, race: RaceHandler): void {
    for (const [object, head] of this.newest)
      if (object >= start && object < start + extent) this.raceWithEntries(execution, i, head, Access.WRITE, object, race);
    this.raceWithFrees(execution, i, start, extent, Access.WRITE, race);
    if (this.freeCount === this.frees.length) {
      const frees = new Int32Array(this.frees.length * 2);
      frees.set(this.frees);
      this.frees = frees;
    }
    this.frees[this.freeCount++] = i;
  }

  private raceWithEntries(execution: ExecutionView, i: number, head: number, access: Access, object: number, race: RaceHandler): void {
    const thread = execution.thread[i]!;
    const own = i * MAX_THREADS;
    if (access === Access.ACQUIRE) {
      // Acquisitions race with earlier acquisitions not ordered before them by anything
      // but this lock's own release chain: judge against the clock before joining it.
      for (let t = 0; t < this.width; t++) this.scratch[t] = this.clocks[own + t]!;
      for (let e = head; e >= 0; e = this.entryPrevious[e]!) {
        const j = this.entryStep[e]!;
        const earlier = this.entryAccess[e]!;
        if ((earlier !== Access.ACQUIRE && earlier !== Access.WRITE) || execution.thread[j] === thread) continue;
        const other = execution.thread[j]!;
        if (this.scratch[other]! < this.clocks[j * MAX_THREADS + other]!) race(j, i);
      }
    }
    for (let e = head; e >= 0; e = this.entryPrevious[e]!) {
      const j = this.entryStep[e]!;
      const earlier = this.entryAccess[e] as Access;
      if (execution.thread[j] === thread || !conflicts(earlier, access) || this.ordered(execution, j, own)) continue;
      // a thread starts only once created and is joined only once it exited: those
      // orders cannot be reversed, they only order
      if (access !== Access.ACQUIRE && earlier !== Access.RELEASE && !isThreadObject(object)) race(j, i);
      this.join(own, j * MAX_THREADS);
    }
  }

  /** Earlier frees of a block holding [start, start + extent): each is a write there. */
  private raceWithFrees(execution: ExecutionView, i: number, start: number, extent: number, access: Access, race: RaceHandler): void {
    const own = i * MAX_THREADS;
    for (let f = this.freeCount - 1; f >= 0; f--) {
      const j = this.frees[f]!;
      const freed = execution.object[j]!;
      const inside = freed < start + extent && start < freed + extentOf(execution.op[j]!, execution.value[j]!);
      if (!inside || execution.thread[j] === execution.thread[i] || !conflicts(Access.WRITE, access) || this.ordered(execution, j, own)) continue;
      if (access !== Access.ACQUIRE) race(j, i);
      this.join(own, j * MAX_THREADS);
    }
  }

  /** Returning from main or exit() ends every other thread: it conflicts with all of them. */
  private raceWithEveryThread(execution: ExecutionView, i: number, race: RaceHandler): void {
    const own = i * MAX_THREADS;
    for (let t = 0; t < this.width; t++) {
      const j = this.lastOfThread[t]!;
      if (j < 0 || t === execution.thread[i] || this.ordered(execution, j, own)) continue;
      race(j, i);
      this.join(own, j * MAX_THREADS);
    }
  }
}
