// The reversal of a race between step `earlier` (e) and a later step l of an execution:
// the sequence v of the steps after e that do not happen after it (up to the end of the
// execution, those after l too: none of them conflicts with l as it ran), then l. Running v
// from the node before e reverses the race (source sets and wakeup trees, Abdulla et al.
// 2014). l may be a step that ran, or a thread's pending step that never did because e
// ended the execution (returning from main, exit()) or disabled it. Steps can be taken
// off the front of v as a wakeup tree is walked; what remains is w.
//
// Which steps of v happen before which is what the execution says for every step but l
// (nothing on a path between two of them happens after e), but not for l: in the
// execution it is also ordered after e and what follows e, which v leaves out. So l's
// predecessors in v are computed from v alone: the steps of v it conflicts with, judged
// by what l may do placed before e (a compare-exchange that failed may succeed), and
// theirs.
//
// Buffers are reused from one race to the next: nothing is allocated per race.
import { MAX_THREADS, Op } from '../addon/ops.js';
import { Access, accessOf, aroundAside, orderedAccessOf, pendingAfterAside, potentialAccessOf, stepsConflict } from './dependence.js';
import type { RaceFinder } from './races.js';
import type { ExecutionView } from './strategy.js';
import { grown } from './typed-arrays.js';

export class Reversal {
  /** per entry of v: the execution's step (-1: a pending step that never ran), and what it does */
  private steps = new Int32Array(256);
  private threads = new Uint8Array(256);
  private ops = new Uint8Array(256);
  private objects = new Float64Array(256);
  private values = new Float64Array(256);
  /** per entry: the access it makes as it ran (the last entry: as it may, placed before e) */
  private accesses = new Uint8Array(256);
  private removed = new Uint8Array(256);
  private length = 0;
  private left = 0;
  /** per thread: index of its first entry still in w, or -1 (no step in w) */
  private readonly first = new Int32Array(MAX_THREADS).fill(-1);
  /** one past the highest thread with a step in v */
  private threadsEnd = 0;
  private races!: RaceFinder;
  /** take steps around an aside as conflicting with every other thread's (dependence.ts) */
  ordersAsides = false;
  /** per thread: how far l's predecessors in v reach into its steps (a vector clock) */
  private readonly laterClock = new Uint32Array(MAX_THREADS);

  /** v for the race, from the first `end` steps of the execution (all analysed by `races`). */
  build(execution: ExecutionView, races: RaceFinder, earlier: number, later: number, end: number): void {
    this.start(races);
    this.pushNotAfter(execution, races, earlier, end, later);
    const ordered = this.ordersAsides && aroundAside(execution, later);
    this.push(later, execution.thread[later]!, execution.op[later]!, execution.object[later]!, execution.value[later]!,
      ordered ? Access.GLOBAL : potentialAccessOf(execution.op[later]!));
    this.finish();
  }

  /** v for a step and the pending step of `thread`, which it kept from running (by ending the execution, or by disabling it). */
  buildPending(execution: ExecutionView, races: RaceFinder, earlier: number, thread: number): void {
    this.start(races);
    this.pushNotAfter(execution, races, earlier, execution.steps, -1);
    const op = execution.pendingOp[thread]!;
    const ordered = this.ordersAsides && pendingAfterAside(execution, thread);
    this.push(-1, thread, op, execution.pendingObject[thread]!, execution.pendingValue[thread]!, ordered ? Access.GLOBAL : potentialAccessOf(op));
    this.finish();
  }

  /** l's clock within v: joined from its thread's earlier steps in v and the steps of v it conflicts with. */
  private finish(): void {
    const last = this.length - 1;
    const thread = this.threads[last]!;
    const op = this.ops[last]!;
    const object = this.objects[last]!;
    const value = this.values[last]!;
    const placed = this.accesses[last] as Access;
    this.laterClock.fill(0);
    for (let i = 0; i < last; i++) {
      const own = this.ops[i]!;
      if (this.threads[i] !== thread && !stepsConflict(own, this.objects[i]!, this.values[i]!, this.accesses[i] as Access, op, object, value, placed)) continue;
      const step = this.steps[i]!;
      for (let t = 0; t < this.races.threadCount; t++) {
        const reached = this.races.clockOf(step, t);
        if (reached > this.laterClock[t]!) this.laterClock[t] = reached;
      }
    }
    this.left = this.length;
  }

  private start(races: RaceFinder): void {
    this.races = races;
    this.length = 0;
    this.first.fill(-1, 0, this.threadsEnd); // beyond, every entry is -1 already
    this.threadsEnd = 0;
  }

  /** v's steps but l: those of the first `end` after `earlier` that do not happen after it (`later`, l itself, is left for last). */
  private pushNotAfter(execution: ExecutionView, races: RaceFinder, earlier: number, end: number, later: number): void {
    for (let step = earlier + 1; step < end; step++) if (step !== later && !races.happensBefore(execution, earlier, step)) this.pushStep(execution, step);
  }

  private pushStep(execution: ExecutionView, step: number): void {
    const access = this.ordersAsides ? orderedAccessOf(execution, step) : accessOf(execution.op[step]!);
    this.push(step, execution.thread[step]!, execution.op[step]!, execution.object[step]!, execution.value[step]!, access);
  }

  private push(step: number, thread: number, op: number, object: number, value: number, access: Access): void {
    if (this.length === this.steps.length) this.grow();
    if (this.first[thread] === -1) this.first[thread] = this.length;
    if (thread >= this.threadsEnd) this.threadsEnd = thread + 1;
    const i = this.length++;
    this.removed[i] = 0;
    this.steps[i] = step;
    this.threads[i] = thread;
    this.ops[i] = op;
    this.objects[i] = object;
    this.values[i] = value;
    this.accesses[i] = access;
  }

  private grow(): void {
    const size = this.length * 2;
    this.steps = grown(this.steps, size);
    this.threads = grown(this.threads, size);
    this.ops = grown(this.ops, size);
    this.objects = grown(this.objects, size);
    this.values = grown(this.values, size);
    this.accesses = grown(this.accesses, size);
    this.removed = new Uint8Array(size); // nothing is removed while v is built
  }

  /** The last step of the execution in v before l (-1: v is l alone). */
  get reach(): number {
    return this.length >= 2 ? this.steps[this.length - 2]! : -1;
  }

  get empty(): boolean {
    return this.left === 0;
  }

  has(thread: number): boolean {
    return this.first[thread] !== -1;
  }

  /**
   * The execution's step that is `thread`'s first in w, when whether it starts w depends
   * only on the steps of v before that step (-1 otherwise, and for a thread with no step in
   * w). For l that holds when it is placed as it ran: the steps of v after it in the
   * execution then do not conflict with it (they do not happen after e, so after l); a
   * compare-exchange that failed, placed where it may succeed, may conflict with them.
   */
  settlingStep(thread: number): number {
    const entry = this.first[thread]!;
    if (entry < 0) return -1;
    const last = this.length - 1;
    if (entry === last && this.accesses[last] !== accessOf(this.ops[last]!)) return -1;
    return this.steps[entry]!;
  }

  /** Whether `thread` (which has a step in w) starts w: no step of w happens before its first. */
  startsWith(thread: number): boolean {
    const entry = this.first[thread]!;
    const isLater = entry === this.length - 1;
    const step = this.steps[entry]!;
    for (let other = 0; other < this.threadsEnd; other++) {
      if (other === thread || this.first[other] === -1) continue;
      const otherStep = this.steps[this.first[other]!]!;
      if (otherStep < 0) continue; // a pending step that never ran: nothing reaches it
      const reached = isLater ? this.laterClock[other]! : this.races.clockOf(step, other);
      if (reached >= this.races.clockOf(otherStep, other)) return false;
    }
    return true;
  }

  /** Whether a step of a thread absent from w (placed before w, where it makes access `placed`) commutes with every step of w. */
  commutesWith(op: number, object: number, value: number, placed: Access): boolean {
    for (let i = 0; i < this.length; i++) {
      if (this.removed[i]) continue;
      if (stepsConflict(op, object, value, placed, this.ops[i]!, this.objects[i]!, this.values[i]!, this.accesses[i] as Access)) return false;
    }
    return true;
  }

  /**
   * A weak initial of w: running `thread` first (its next step is op/object/value, making
   * access `placed` there: by default what the op may do) leads to an execution that w extends.
   */
  weakInitial(thread: number, op: number, object: number, value: number, placed = potentialAccessOf(op)): boolean {
    return this.has(thread) ? this.startsWith(thread) : this.commutesWith(op, object, value, placed);
  }

  /** Whether `thread`'s first step in w is a data choice exactly when `op` is one, and then takes `value`. */
  startsLike(thread: number, op: number, value: number): boolean {
    const entry = this.first[thread]!;
    const choice = this.ops[entry] === Op.CHOOSE;
    return choice === (op === Op.CHOOSE) && (!choice || this.values[entry] === value);
  }

  /** `thread`'s first entry in w when it is a data choice, else -1 (also when the thread has none). */
  leadingChoice(thread: number): number {
    const entry = this.first[thread]!;
    return entry >= 0 && this.ops[entry] === Op.CHOOSE ? entry : -1;
  }

  /** Takes `thread`'s first step off w. */
  remove(thread: number): void {
    const index = this.first[thread]!;
    this.removed[index] = 1;
    this.left--;
    this.first[thread] = -1;
    for (let i = index + 1; i < this.length; i++) {
      if (this.threads[i] === thread) {
        this.first[thread] = i;
        break;
      }
    }
  }

  /** Calls `visit` with the entries still in w, in order (read them with threadAt, opAt, …). */
  forEach(visit: (entry: number) => void): void {
    for (let i = 0; i < this.length; i++) if (!this.removed[i]) visit(i);
  }

  threadAt(entry: number): number {
    return this.threads[entry]!;
  }

  opAt(entry: number): number {
    return this.ops[entry]!;
  }

  objectAt(entry: number): number {
    return this.objects[entry]!;
  }

  valueAt(entry: number): number {
    return this.values[entry]!;
  }
}
