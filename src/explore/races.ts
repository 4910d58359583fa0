// Happens-before and races of one execution, with vector clocks: for every step, the
// earlier steps of other threads it conflicts with and is not already ordered after.
// Reversing such a race may lead to a new behaviour; partial-order reduction backtracks
// there. Buffers are reused between executions: nothing is allocated per step.
import {
  Access, accessOf, aroundAside, conflicts, extentOf, isThreadObject, objectOf, pendingAfterAside, potentialAccessOf, secondAccessOf,
  secondObjectOf, touchesRange, waitsForRelease,
} from './dependence.js';
import { MAX_THREADS, Op, OpFlag, hasFlag } from '../addon/ops.js';
import type { ExecutionView } from './strategy.js';
import { grown } from './typed-arrays.js';


/** `handOff`: not a race but a hand-off (RaceFinder.handOffs): `earlier` let `later` go on without waiting. */
export type RaceHandler = (earlier: number, later: number, handOff: boolean) => void;
/** A race of an earlier step with the pending step of a thread that never got to take it. */
export type PendingRaceHandler = (earlier: number, thread: number, handOff: boolean) => void;

export class RaceFinder {
  /** Order steps around an aside with every other thread's (dependence.ts: aroundAside). */
  ordersAsides = false;
  /**
   * Under a preemption bound, also report hand-offs: a release (or a thread's exit) that
   * let a waiting acquisition go on (a lock, a condition wake-up retaking its mutex, a
   * join). Placed before it, the acquirer would block there and hand the processor over
   * for free, so the cheapest schedule of a class may run a step early only to block (a
   * bound dependence, in Coons et al.'s words).
   */
  handOffs = false;

  private clocks = new Uint32Array(0); // per step: its vector clock (width entries)
  private threadClock = new Uint32Array(0); // per thread: its clock (width entries)
  private readonly lastOfThread = new Int32Array(MAX_THREADS);
  /** per object, a linked list of the accesses to it (newest first) */
  private readonly newest = new Map<number, number>();
  private entryStep = new Int32Array(0);
  private entryAccess = new Uint8Array(0);
  private entryPrevious = new Int32Array(0);
  /** per entry, the newest entry before it on its object that is not a read: a read races with no read, and a spin reads thousands of times */
  private entryPreviousNonRead = new Int32Array(0);
  private entryObject = new Float64Array(0);
  private entriesBefore = new Int32Array(0); // per step: entries made by the steps before it
  private entries = 0;
  /** the steps that freed a heap block (they touch a range, not one object), in order */
  private frees = new Int32Array(16);
  private freeCount = 0;
  /** steps of the last execution whose analysis is still valid */
  private analysed = 0;
  private readonly scratch = new Uint32Array(MAX_THREADS);
  /** the races of the step being analysed: reported once its clock is complete */
  private racing = new Int32Array(64);
  private racingHandOff = new Uint8Array(64);
  private racingCount = 0;
  /** threads of the current execution: the length of a clock */
  private width = 0;
  /** the last step around an aside (dependence.ts: it conflicts with every other thread's steps), or -1 */
  private lastAroundAside = -1;

  private reserve(steps: number, width: number): void {
    if (this.threadClock.length < width * width) this.threadClock = new Uint32Array(width * width);
    steps += 1; // a row past the last step: the clock of a pending step (findPending)
    if (this.clocks.length >= steps * width) return;
    const size = Math.max(steps, 1024) * 2;
    this.clocks = new Uint32Array(size * width);
    this.entryStep = new Int32Array(size * 2);
    this.entryAccess = new Uint8Array(size * 2);
    this.entryPrevious = new Int32Array(size * 2);
    this.entryPreviousNonRead = new Int32Array(size * 2);
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
    let width = 0;
    for (let i = 0; i < steps; i++) width = Math.max(width, execution.thread[i]! + 1);
    this.reserve(steps, width);
    const start = width === this.width ? Math.min(from, this.analysed, steps) : 0;
    this.width = width;
    this.rewind(execution, start);
    const { clocks, threadClock } = this;
    for (let i = start; i < steps; i++) {
      this.entriesBefore[i] = this.entries;
      const thread = execution.thread[i]!;
      const op = execution.op[i]!;
      const own = i * width;
      const mine = thread * width;
      for (let t = 0; t < width; t++) clocks[own + t] = threadClock[mine + t]!;
      clocks[own + thread]! += 1;
      const access = accessOf(op);
      this.racingCount = 0;
      if (access !== Access.NONE) this.raceWithStep(execution, i, thread, op, execution.object[i]!, execution.value[i]!, access, true);
      if (this.ordersAsides && aroundAside(execution, i)) {
        this.raceWithEveryThread(execution, i, thread);
        this.lastAroundAside = i;
      } else if (this.ordersAsides && access !== Access.NONE) this.raceWithAside(execution, i, thread);
      // reported once the step's analysis is done: a handler never sees a half-joined clock
      for (let r = 0; r < this.racingCount; r++) race(this.racing[r]!, i, this.racingHandOff[r] !== 0);
      for (let t = 0; t < width; t++) threadClock[mine + t] = clocks[own + t]!;
      this.lastOfThread[thread] = i;
    }
    // the next execution may share all of this one: rewinding to its end must keep every entry
    this.entriesBefore[steps] = this.entries;
    this.analysed = steps;
  }

  /** Back to the state after the first `step` steps of the last analysis. */
  private rewind(execution: ExecutionView, step: number): void {
    const keep = step === 0 ? 0 : this.entriesBefore[step]!;
    if (step === 0) this.newest.clear();
    else for (let e = this.entries - 1; e >= keep; e--) this.newest.set(this.entryObject[e]!, this.entryPrevious[e]!);
    this.entries = keep;
    this.lastAroundAside = this.ordersAsides ? step - 1 : -1;
    while (this.lastAroundAside >= 0 && !aroundAside(execution, this.lastAroundAside)) this.lastAroundAside--;
    while (this.freeCount > 0 && this.frees[this.freeCount - 1]! >= step) this.freeCount--;
    const width = this.width;
    this.threadClock.fill(0, 0, width * width);
    this.lastOfThread.fill(-1, 0, width); // threads past the width never ran: never read
    for (let i = step - 1; i >= 0; i--) {
      const thread = execution.thread[i]!;
      if (this.lastOfThread[thread] !== -1) continue;
      this.lastOfThread[thread] = i;
      for (let t = 0; t < width; t++) this.threadClock[thread * width + t] = this.clocks[i * width + t]!;
    }
  }

  /** Whether step `a` happens before step `b` (both already analysed). */
  happensBefore(execution: ExecutionView, a: number, b: number): boolean {
    return this.ordered(execution, a, b * this.width);
  }

  /** Threads of the execution analysed: clock entries of others are never set. */
  get threadCount(): number {
    return this.width;
  }

  /** The clock value that thread `thread` had reached when step `step` ran (0 for a thread that never ran). */
  clockOf(step: number, thread: number): number {
    return thread < this.width ? this.clocks[step * this.width + thread]! : 0;
  }

  /** step j happens before the step whose clock starts at `clock` */
  private ordered(execution: ExecutionView, j: number, clock: number): boolean {
    const thread = execution.thread[j]!;
    return this.clocks[clock + thread]! >= this.clocks[j * this.width + thread]!;
  }

  private join(into: number, from: number): void {
    const { clocks, width } = this;
    for (let t = 0; t < width; t++) {
      const value = clocks[from + t]!;
      if (value > clocks[into + t]!) clocks[into + t] = value;
    }
  }

  /**
   * Races step i of `thread` (`op` on `object` with `value`, accessed as `access`) with the
   * earlier steps it conflicts with, joining their clocks into its own. `record`: keep it
   * for the later steps (a pending step that never ran is not kept).
   */
  private raceWithStep(
    execution: ExecutionView, i: number, thread: number, op: number, object: number, value: number, access: Access, record: boolean,
  ): void {
    if (access === Access.GLOBAL) {
      this.raceWithEveryThread(execution, i, thread);
      return;
    }
    // a condition wake-up's mutex first: its race with other lockers must be judged
    // before the signal it may have consumed orders them (a timed wait needs none)
    const second = secondObjectOf(op, value);
    if (second !== undefined) this.raceWithObject(execution, i, thread, second, secondAccessOf(op), record, op);
    if (touchesRange(op)) this.raceWithBlock(execution, i, thread, op, object, extentOf(op, value), record);
    else this.raceWithObject(execution, i, thread, objectOf(op, object), access, record, op);
  }

  /** `op`: the step's (an acquisition's decides which releases it races with, or hands off to it). */
  private raceWithObject(execution: ExecutionView, i: number, thread: number, object: number, access: Access, record: boolean, op: number): void {
    const head = this.newest.get(object) ?? -1;
    this.raceWithEntries(execution, i, thread, head, access, object, op);
    if (this.freeCount > 0 && !isThreadObject(object)) this.raceWithFrees(execution, i, thread, object, 1, access);
    if (!record) return;
    const entry = this.entries++;
    this.entryStep[entry] = i;
    this.entryAccess[entry] = access;
    this.entryPrevious[entry] = head;
    this.entryPreviousNonRead[entry] = this.nonReadFrom(head);
    this.entryObject[entry] = object;
    this.newest.set(object, entry);
  }

  /** entry `e` when it is not a read, else the newest non-read before it (-1: none) */
  private nonReadFrom(e: number): number {
    return e >= 0 && this.entryAccess[e] === Access.READ ? this.entryPreviousNonRead[e]! : e;
  }

  private raceWithEntries(execution: ExecutionView, i: number, thread: number, head: number, access: Access, object: number, op: number): void {
    const own = i * this.width;
    if (access === Access.ACQUIRE) {
      // Acquisitions race with earlier acquisitions (and reads: sem_getvalue) not ordered
      // before them by anything but this lock's own release chain: judge against the clock
      // before joining it.
      for (let t = 0; t < this.width; t++) this.scratch[t] = this.clocks[own + t]!;
      for (let e = head; e >= 0; e = this.entryPrevious[e]!) {
        const j = this.entryStep[e]!;
        const earlier = this.entryAccess[e]!;
        if (earlier === Access.RELEASE || execution.thread[j] === thread) continue;
        const other = execution.thread[j]!;
        if (this.scratch[other]! < this.clocks[j * this.width + other]!) this.noteRace(j);
      }
    }
    const reads = access === Access.READ;
    for (let e = reads ? this.nonReadFrom(head) : head; e >= 0; e = reads ? this.entryPreviousNonRead[e]! : this.entryPrevious[e]!) {
      const j = this.entryStep[e]!;
      const earlier = this.entryAccess[e] as Access;
      if (execution.thread[j] === thread || !conflicts(earlier, access) || this.ordered(execution, j, own)) continue;
      // placed before step j, step i would wait for it: a release it waits for (a sem_post
      // before a sem_wait is a race already, found above), or a thread's exit for a join
      const waits = access === Access.ACQUIRE
        ? earlier === Access.RELEASE && waitsForRelease(op, execution.op[j]!)
        : isThreadObject(object) && hasFlag(op, OpFlag.WAITS) && hasFlag(execution.op[j]!, OpFlag.ENDS_THREAD);
      // a thread starts only once created and is joined only once it exited: those
      // orders cannot be reversed, they only order. A release races with an acquisition
      // that would not wait for it, and with a write (a free of its block, a destroy), which
      // waits for nothing: before the release, the object is gone or destroyed while held.
      const racing = access === Access.ACQUIRE ? earlier === Access.RELEASE && !waits : (earlier !== Access.RELEASE || access === Access.WRITE) && !isThreadObject(object);
      if (racing) this.noteRace(j);
      else if (waits && this.handOffs) this.noteRace(j, true);
      this.join(own, j * this.width);
    }
  }

  /** A heap block's free writes every address of the block: every earlier access to one races with it. */
  private raceWithBlock(execution: ExecutionView, i: number, thread: number, op: number, start: number, extent: number, record: boolean): void {
    for (const [object, head] of this.newest)
      if (object >= start && object < start + extent) this.raceWithEntries(execution, i, thread, head, Access.WRITE, object, op);
    this.raceWithFrees(execution, i, thread, start, extent, Access.WRITE);
    if (!record) return;
    if (this.freeCount === this.frees.length) this.frees = grown(this.frees, this.frees.length * 2);
    this.frees[this.freeCount++] = i;
  }

  /** Earlier frees of a block holding [start, start + extent): each is a write there. */
  private raceWithFrees(execution: ExecutionView, i: number, thread: number, start: number, extent: number, access: Access): void {
    const own = i * this.width;
    for (let f = this.freeCount - 1; f >= 0; f--) {
      const j = this.frees[f]!;
      const freed = execution.object[j]!;
      const inside = freed < start + extent && start < freed + extentOf(execution.op[j]!, execution.value[j]!);
      if (!inside || execution.thread[j] === thread || !conflicts(Access.WRITE, access) || this.ordered(execution, j, own)) continue;
      // an acquisition too: before the free, it takes a lock that is still there
      this.noteRace(j);
      this.join(own, j * this.width);
    }
  }

  /**
   * Calls `race(j, thread)` for every step j of the execution just analysed (find) that
   * conflicts with what `thread` was about to do when it ended, and does not happen before
   * it. A thread left blocked never takes that step, so no race of the execution names it:
   * the step that disabled it (a wake-up that took the only signal, a lock taken first)
   * is found here, and going first there may be a behaviour of its own (a deadlock).
   */
  findPending(execution: ExecutionView, steps: number, thread: number, race: PendingRaceHandler): void {
    if (thread >= this.width || this.lastOfThread[thread]! < 0) return; // never ran: its first step is its start
    const op = execution.pendingOp[thread]!;
    const value = execution.pendingValue[thread]!;
    const access = potentialAccessOf(op);
    const afterAside = this.ordersAsides && pendingAfterAside(execution, thread);
    if (access === Access.NONE && !afterAside) return;
    const own = steps * this.width;
    const mine = thread * this.width;
    for (let t = 0; t < this.width; t++) this.clocks[own + t] = this.threadClock[mine + t]!;
    this.clocks[own + thread]! += 1;
    this.racingCount = 0;
    if (access !== Access.NONE) this.raceWithStep(execution, steps, thread, op, execution.pendingObject[thread]!, value, access, false);
    if (afterAside) this.raceWithEveryThread(execution, steps, thread);
    else if (this.ordersAsides) this.raceWithAside(execution, steps, thread);
    for (let r = 0; r < this.racingCount; r++) race(this.racing[r]!, thread, this.racingHandOff[r] !== 0);
  }

  /**
   * The last step around an aside of another thread conflicts with step i (and those
   * before it are ordered before that one: they conflict with it too).
   */
  private raceWithAside(execution: ExecutionView, i: number, thread: number): void {
    const j = this.lastAroundAside;
    if (j < 0 || execution.thread[j] === thread || this.ordered(execution, j, i * this.width)) return;
    this.noteRace(j);
    this.join(i * this.width, j * this.width);
  }

  private noteRace(earlier: number, handOff = false): void {
    if (this.racingCount === this.racing.length) {
      this.racing = grown(this.racing, this.racing.length * 2);
      this.racingHandOff = grown(this.racingHandOff, this.racing.length);
    }
    this.racingHandOff[this.racingCount] = handOff ? 1 : 0;
    this.racing[this.racingCount++] = earlier;
  }

  /**
   * Returning from main or exit() ends every other thread: it conflicts with all of them (as
   * does a step around an aside: dependence.ts).
   * It races with each thread's last step that no other thread's last step follows (those
   * are ordered before it through that one), whatever order threads are numbered in. A
   * data choice is no scheduling point: it is taken with the step before it, so the race
   * is with that step (no other thread can run between the two).
   */
  private raceWithEveryThread(execution: ExecutionView, i: number, thread: number): void {
    const own = i * this.width;
    for (let t = 0; t < this.width; t++) {
      let j = this.lastOfThread[t]!;
      while (j > 0 && execution.op[j] === Op.CHOOSE && execution.thread[j - 1] === t) j--;
      if (j < 0 || t === thread || this.ordered(execution, j, own)) continue;
      let followed = false;
      for (let u = 0; u < this.width && !followed; u++) {
        const k = this.lastOfThread[u]!;
        followed = k >= 0 && u !== t && u !== thread && this.happensBefore(execution, j, k);
      }
      if (!followed) this.noteRace(j);
    }
    for (let r = 0; r < this.racingCount; r++) this.join(own, this.racing[r]! * this.width);
  }
}
