// The fewest preemptions any schedule of a happens-before order needs — a lower bound —
// and a schedule that needs no more: counterexamples are shown along it (report/simplify).
// Its use to prune optimal DPOR under a bound was tried and lost behaviours (see README).
//
// The steps are given as one sequence; their happens-before order is rebuilt from it
// (program order plus conflicting steps in sequence order, judged by what each step did).
// Every schedule of that order is a candidate; a switch away from thread t is charged as a
// preemption only when the runtime would certainly count one there, whatever the
// schedule:
//   - t has a next step among the given ones (a thread whose steps end here may block or
//     finish, which is free);
//   - that step cannot block, or it is a lock known to be free, a join of a thread that
//     has exited, or a semaphore wait on a value known to be positive;
//   - t did not just yield, nor re-read a value it read before with no write of its own in
//     between (the runtime may then take it for spinning and let it step aside).
// Restricting a schedule of a whole class to a prefix of it never adds a charged switch,
// so the bound of a prefix never exceeds the bound of any class that extends it: no class
// that extends a prefix that does not fit can fit either.
//
// The search is depth-first over prefix states (how many steps of each thread have run),
// continuing the running thread first, remembering the fewest preemptions each state was
// reached with (exact keys: a collision could drop a schedule). It gives up after
// SEARCH_LIMIT states, or on sequences longer than LONGEST, and then answers "fits": a
// guess never drops anything.
import { Access, MAX_THREADS, Op, OpFlag, accessOf, hasFlag, potentialAccessOf } from '../addon/ops.js';
import { commutesWithItself, isAttempt, objectOf, secondAccessOf, secondObjectOf, stepsConflict, touchesRange } from './dependence.js';
import type { ExecutionView } from './strategy.js';
import { grown } from './typed-arrays.js';

const SEARCH_LIMIT = 5_000;
/** longer sequences are not judged (the work grows with the square of the length) */
const LONGEST = 4_000;
const NONE = -1;

export class FewestPreemptions {
  private length = 0;
  /** recorded values are trusted for steps before this one (they ran in this order) */
  private trusted = 0;
  private threads = new Uint8Array(256);
  private ops = new Uint8Array(256);
  private objects = new Float64Array(256);
  private values = new Float64Array(256);
  /** per step: its position among its thread's steps */
  private indexInThread = new Int32Array(256);
  /** per step × width: how many steps of each thread happen before it (itself included) */
  private clocks = new Int32Array(0);
  /** per thread × position: the step */
  private stepOf: Int32Array[] = Array.from({ length: MAX_THREADS }, () => new Int32Array(64));
  private readonly total = new Int32Array(MAX_THREADS);
  private width = 0;
  private analysed = false;
  private ordered = false;

  // locks and semaphores, numbered; per step what it does to them
  private syncOf = new Int32Array(256); // the sync object of the step's first object, or NONE
  private syncDelta = new Int8Array(256);
  private secondSyncOf = new Int32Array(256); // a condition wait's or wake-up's mutex
  private secondDelta = new Int8Array(256);
  private syncLevel = new Float64Array(16); // holds on a lock; a semaphore's value
  private syncUnknown = new Uint8Array(16); // a try or timed attempt: the level is not known
  private syncFirst = new Int32Array(16); // the first step on it
  private syncCount = 0;

  // the state being searched
  private readonly counts = new Int32Array(MAX_THREADS);
  /** mixed-radix key of `counts` (exact below 2^53), when numericKeys */
  private countsKey = 0;
  private readonly radix = new Float64Array(MAX_THREADS);
  private numericKeys = true;
  private readonly reachedByNumber = new Map<number, number>();
  private readonly reachedByText = new Map<string, number>();
  private readonly keyCodes = new Uint16Array(1 + 2 * MAX_THREADS);
  private found = false;
  // the depth-first search's frames
  private chosen = new Int32Array(256);
  private tried = new Int32Array(256);
  private lastBefore = new Int32Array(256);
  private usedBefore = new Int32Array(256);

  /**
   * Starts a new sequence. Values its steps recorded are trusted only for the first
   * `trusted` steps: the ones that ran in this order (the rest were reordered).
   */
  begin(trusted = Number.POSITIVE_INFINITY): void {
    this.trusted = trusted;
    this.length = 0;
    this.width = 0;
    this.analysed = false;
    this.ordered = false;
    this.total.fill(0);
  }

  push(thread: number, op: number, object: number, value: number): void {
    if (this.length === this.threads.length) this.grow();
    const i = this.length++;
    this.threads[i] = thread;
    this.ops[i] = op;
    this.objects[i] = object;
    this.values[i] = value;
    const position = this.total[thread]!++;
    if (position === this.stepOf[thread]!.length) this.stepOf[thread] = grown(this.stepOf[thread]!, position * 2);
    this.stepOf[thread]![position] = i;
    this.indexInThread[i] = position;
    this.width = Math.max(this.width, thread + 1);
  }

  /** Pushes the execution's first `steps` steps. */
  pushSteps(execution: ExecutionView, steps: number): void {
    for (let step = 0; step < steps; step++) this.push(execution.thread[step]!, execution.op[step]!, execution.object[step]!, execution.value[step]!);
  }

  /** The preemptions of the sequence itself, as charged here (an upper bound of the fewest). */
  inOrder(): number {
    this.reset();
    let last = 0;
    let used = 0;
    for (let i = 0; i < this.length; i++) {
      const thread = this.threads[i]!;
      if (thread !== last && this.charged(last)) used++;
      this.apply(thread, 1);
      last = thread;
    }
    return used;
  }

  /**
   * Whether some schedule of the steps' happens-before order needs at most `bound`
   * preemptions. With `lastStep`, that step must come last. After a true answer,
   * `order()` gives the schedule when one was found (not when the search gave up).
   */
  fitsWithin(bound: number, lastStep = NONE): boolean {
    this.found = false;
    if (bound < 0) return false;
    if (this.length > LONGEST) return true;
    if (lastStep === NONE && this.inOrder() <= bound) return this.foundInOrder();
    const n = this.length;
    if (this.chosen.length < n + 1) this.growFrames(n + 1);
    if (!this.ordered) this.orderSteps();
    this.reset();
    let depth = 0;
    let last = 0;
    let used = 0;
    let states = 0;
    this.tried[0] = -1;
    for (;;) {
      if (depth === n) {
        this.found = true;
        return true;
      }
      if (this.tried[depth] === -1) {
        // entering the state: skip it when reached before with as few preemptions
        if (!this.firstVisit(last, used)) this.tried[depth] = this.width;
        else if (++states > SEARCH_LIMIT) return true;
      }
      const next = this.nextChoice(depth, last, used, bound, lastStep);
      if (next >= 0) {
        this.chosen[depth] = next;
        this.lastBefore[depth] = last;
        this.usedBefore[depth] = used;
        if (next !== last && this.charged(last)) used++;
        this.apply(next, 1);
        last = next;
        this.tried[++depth] = -1;
        continue;
      }
      if (depth === 0) return false;
      depth--;
      this.apply(this.chosen[depth]!, -1);
      last = this.lastBefore[depth]!;
      used = this.usedBefore[depth]!;
    }
  }

  /** The schedule the last successful fitsWithin found, as steps of the sequence in order. */
  order(): number[] | undefined {
    if (!this.found) return undefined;
    const taken = new Int32Array(this.width);
    return Array.from({ length: this.length }, (_, depth) => {
      const thread = this.chosen[depth]!;
      return this.stepOf[thread]![taken[thread]!++]!;
    });
  }

  private foundInOrder(): boolean {
    for (let i = 0; i < this.length; i++) this.chosen[i] = this.threads[i]!;
    this.found = true;
    return true;
  }

  /** Records the state; false when it was reached before with no more preemptions. */
  private firstVisit(last: number, used: number): boolean {
    if (this.numericKeys) {
      const key = this.countsKey * this.width + last;
      const before = this.reachedByNumber.get(key);
      if (before !== undefined && before <= used) return false;
      this.reachedByNumber.set(key, used);
      return true;
    }
    const codes = this.keyCodes;
    codes[0] = last;
    for (let t = 0; t < this.width; t++) {
      codes[1 + 2 * t] = this.counts[t]! & 0xffff;
      codes[2 + 2 * t] = this.counts[t]! >>> 16;
    }
    const key = String.fromCharCode.apply(null, Array.from(codes.subarray(0, 1 + 2 * this.width)));
    const before = this.reachedByText.get(key);
    if (before !== undefined && before <= used) return false;
    this.reachedByText.set(key, used);
    return true;
  }

  /** The next thread to try at `depth` (the running one first), or -1 when none is left. */
  private nextChoice(depth: number, last: number, used: number, bound: number, lastStep: number): number {
    const n = this.length;
    for (let k = this.tried[depth]! + 1; k <= this.width; k++) {
      const thread = k === 0 ? last : k - 1;
      if (k > 0 && thread === last) continue;
      if (!this.ready(thread)) continue;
      const step = this.stepOf[thread]![this.counts[thread]!]!;
      if (step === lastStep && depth < n - 1) continue;
      // a weft_choose value is taken where its thread runs: no switch can come before it
      if (thread !== last && this.ops[step] === Op.CHOOSE) continue;
      if (thread !== last && used + (this.charged(last) ? 1 : 0) > bound) continue;
      this.tried[depth] = k;
      return thread;
    }
    this.tried[depth] = this.width;
    return -1;
  }

  /** Whether `thread`'s next step may run: every step ordered before it has. */
  private ready(thread: number): boolean {
    const position = this.counts[thread]!;
    if (position >= this.total[thread]!) return false;
    const clock = this.stepOf[thread]![position]! * this.width;
    for (let other = 0; other < this.width; other++)
      if (other !== thread && this.counts[other]! < this.clocks[clock + other]!) return false;
    return true;
  }

  /** Whether switching away from `thread` now certainly costs a preemption (see the top). */
  private charged(thread: number): boolean {
    const position = this.counts[thread]!;
    if (position >= this.total[thread]!) return false;
    if (this.mayHaveSteppedAside(thread, position)) return false;
    const step = this.stepOf[thread]![position]!;
    const op = this.ops[step]!;
    if (op === Op.CHOOSE) return false;
    if (!hasFlag(op, OpFlag.WAITS)) return true;
    const sync = this.syncOf[step]!;
    if (op === Op.MUTEX_LOCK || op === Op.SPIN_LOCK) return sync !== NONE && !this.syncUnknown[sync] && this.syncLevel[sync]! <= 0;
    if (op === Op.SEM_WAIT) return sync !== NONE && !this.syncUnknown[sync] && this.syncLevel[sync]! > 0;
    if (op === Op.THREAD_JOIN) return this.hasExited(this.objects[step]!);
    return false;
  }

  /**
   * Whether the thread's last step may have made it step aside: a yield, or a read that
   * re-read a value it read before with no write of its own in between (the runtime then
   * takes it for spinning; writes of other threads only make that rarer).
   */
  private mayHaveSteppedAside(thread: number, position: number): boolean {
    if (position === 0) return false;
    const last = this.stepOf[thread]![position - 1]!;
    const op = this.ops[last]!;
    if (op === Op.YIELD) return true;
    if (!readsValue(op)) return false;
    for (let k = position - 2; k >= 0; k--) {
      const earlier = this.stepOf[thread]![k]!;
      const earlierOp = this.ops[earlier]!;
      if (readsValue(earlierOp) && this.objects[earlier] === this.objects[last]) {
        if (this.values[earlier] === this.values[last] || hasFlag(op, OpFlag.NOTES_WRITE) || hasFlag(earlierOp, OpFlag.NOTES_WRITE)) return true;
      } else if (mayWrite(earlierOp)) return false;
    }
    return false;
  }

  private hasExited(thread: number): boolean {
    const steps = this.total[thread]!;
    if (thread >= this.width || steps === 0 || this.counts[thread]! < steps) return false;
    return hasFlag(this.ops[this.stepOf[thread]![steps - 1]!]!, OpFlag.ENDS_THREAD);
  }

  /** Runs (+1) or takes back (-1) `thread`'s next (or last) step. */
  private apply(thread: number, sign: 1 | -1): void {
    const position = sign === 1 ? this.counts[thread]! : this.counts[thread]! - 1;
    const step = this.stepOf[thread]![position]!;
    this.counts[thread]! += sign;
    if (this.numericKeys) this.countsKey += sign * this.radix[thread]!;
    const sync = this.syncOf[step]!;
    if (sync !== NONE) this.syncLevel[sync]! += sign * this.syncDelta[step]!;
    const second = this.secondSyncOf[step]!;
    if (second !== NONE) this.syncLevel[second]! += sign * this.secondDelta[step]!;
  }

  /** The empty state: nothing has run; locks free, semaphores at their first known value. */
  private reset(): void {
    if (!this.analysed) this.analyse();
    this.counts.fill(0);
    this.countsKey = 0;
    this.reachedByNumber.clear();
    this.reachedByText.clear();
    this.syncLevel.fill(0);
    // a semaphore starts at the value its first step found (if that step ran in this order)
    for (let sync = 0; sync < this.syncCount; sync++) {
      const first = this.syncFirst[sync]!;
      if (!isSemaphoreOp(this.ops[first]!)) continue;
      if (first < this.trusted) this.syncLevel[sync] = this.values[first]!;
      else this.syncUnknown[sync] = 1;
    }
  }

  /**
   * Builds the happens-before clocks of the sequence: a step follows its thread's previous
   * step and every earlier step it conflicts with. Per object it is enough to join the last
   * writer and the readers since (earlier ones are ordered before that writer); steps that
   * conflict with everything, or with a range (a block's free), are kept apart.
   */
  private orderSteps(): void {
    const n = this.length;
    if (this.clocks.length < n * this.width) this.clocks = new Int32Array(this.threads.length * this.width);
    const before = new Map<number, number[]>();
    const sharing = new Map<number, Sharing>();
    const wide: number[] = []; // ends of the execution and frees, in order
    for (let i = 0; i < n; i++) {
      const own = i * this.width;
      const thread = this.threads[i]!;
      const position = this.indexInThread[i]!;
      if (position > 0) {
        const previous = this.stepOf[thread]![position - 1]! * this.width;
        this.clocks.copyWithin(own, previous, previous + this.width);
      } else this.clocks.fill(0, own, own + this.width);
      const op = this.ops[i]!;
      const access = accessOf(op);
      if (access === Access.GLOBAL || touchesRange(op)) {
        for (let j = 0; j < i; j++) if (this.conflict(j, i)) this.join(own, j);
        wide.push(i);
      } else {
        for (const j of wide) if (this.conflict(j, i)) this.join(own, j);
        this.orderOn(objectOf(op, this.objects[i]!), access, own, i, before, sharing);
        const second = secondObjectOf(op, this.values[i]!);
        if (second !== undefined) this.orderOn(second, secondAccessOf(op), own, i, before, sharing);
      }
      this.clocks[own + thread] = position + 1;
    }
    this.ordered = true;
  }

  /** Numbers the locks and semaphores and what each step does to them; the radix of the state keys. */
  private analyse(): void {
    const n = this.length;
    const syncIds = new Map<number, number>();
    let i = 0;
    const syncId = (object: number): number => {
      let id = syncIds.get(object);
      if (id === undefined) {
        id = syncIds.size;
        syncIds.set(object, id);
        if (id === this.syncLevel.length) this.growSync();
        this.syncUnknown[id] = 0;
        this.syncFirst[id] = i;
      }
      return id;
    };
    for (i = 0; i < n; i++) {
      const op = this.ops[i]!;
      this.syncOf[i] = NONE;
      this.secondSyncOf[i] = NONE;
      const delta = syncDeltaOf(op);
      if (delta !== undefined) {
        const id = syncId(this.objects[i]!);
        this.syncOf[i] = id;
        this.syncDelta[i] = delta;
        if (isAttempt(op)) this.syncUnknown[id] = 1;
      }
      const second = secondObjectOf(op, this.values[i]!);
      if (second !== undefined) {
        this.secondSyncOf[i] = syncId(second);
        this.secondDelta[i] = hasFlag(op, OpFlag.RELEASES_ARGUMENT) ? -1 : 1;
      }
    }
    this.syncCount = syncIds.size;
    // state keys: counts in mixed radix, exact while they stay below 2^53
    let product = 1;
    for (let t = 0; t < this.width; t++) {
      this.radix[t] = product;
      product *= this.total[t]! + 1;
    }
    this.numericKeys = product * this.width < Number.MAX_SAFE_INTEGER;
    this.analysed = true;
  }

  /**
   * Orders step `i` (its clock at `own`) after the earlier accesses to `object` it conflicts
   * with: those in `before` (the last write, or the accesses of the other kind that shared
   * the object before the current ones), and the current sharers unless it shares with them
   * (reads with reads, adds with adds: they commute).
   */
  private orderOn(object: number, access: Access, own: number, i: number, before: Map<number, number[]>, sharing: Map<number, Sharing>): void {
    if (access === Access.NONE) return;
    for (const step of before.get(object) ?? []) this.join(own, step);
    const group = sharing.get(object);
    const shares = commutesWithItself(access);
    if (group && shares && group.access === access) {
      group.steps.push(i);
      return;
    }
    if (group) for (const step of group.steps) this.join(own, step);
    if (shares) {
      if (group) before.set(object, group.steps);
      sharing.set(object, { access, steps: [i] });
      return;
    }
    before.set(object, [i]);
    sharing.delete(object);
  }

  private conflict(j: number, i: number): boolean {
    const opJ = this.ops[j]!;
    const opI = this.ops[i]!;
    return stepsConflict(opJ, this.objects[j]!, this.values[j]!, accessOf(opJ), opI, this.objects[i]!, this.values[i]!, accessOf(opI));
  }

  private join(own: number, step: number): void {
    const theirs = step * this.width;
    const { clocks } = this;
    for (let t = 0; t < this.width; t++) if (clocks[theirs + t]! > clocks[own + t]!) clocks[own + t] = clocks[theirs + t]!;
  }

  private grow(): void {
    const size = this.threads.length * 2;
    this.threads = grown(this.threads, size);
    this.ops = grown(this.ops, size);
    this.objects = grown(this.objects, size);
    this.values = grown(this.values, size);
    this.indexInThread = grown(this.indexInThread, size);
    this.syncOf = grown(this.syncOf, size);
    this.syncDelta = grown(this.syncDelta, size);
    this.secondSyncOf = grown(this.secondSyncOf, size);
    this.secondDelta = grown(this.secondDelta, size);
  }

  private growSync(): void {
    this.syncLevel = grown(this.syncLevel, this.syncLevel.length * 2);
    this.syncUnknown = grown(this.syncUnknown, this.syncUnknown.length * 2);
    this.syncFirst = grown(this.syncFirst, this.syncFirst.length * 2);
  }

  private growFrames(size: number): void {
    this.chosen = new Int32Array(size * 2);
    this.tried = new Int32Array(size * 2);
    this.lastBefore = new Int32Array(size * 2);
    this.usedBefore = new Int32Array(size * 2);
  }
}

const isSemaphoreOp = (op: number): boolean => op === Op.SEM_WAIT || op === Op.SEM_POST || op === Op.SEM_TRYWAIT || op === Op.SEM_TIMEDWAIT;

/** What a step does to the lock or semaphore it names: holds of a lock, or a semaphore's value (undefined: neither). */
function syncDeltaOf(op: number): number | undefined {
  if (op === Op.SEM_POST) return 1;
  if (op === Op.SEM_WAIT || op === Op.SEM_TRYWAIT || op === Op.SEM_TIMEDWAIT) return -1;
  if (hasFlag(op, OpFlag.LOCK)) return 1;
  if (hasFlag(op, OpFlag.UNLOCK)) return -1;
  return undefined;
}

/** Accesses of one kind that commute (reads, or adds) to an object since the accesses before them. */
interface Sharing {
  access: Access;
  steps: number[];
}

/** Steps the runtime's spin detection sees as reads: loads, and read-modify-writes that may have changed nothing. */
const readsValue = (op: number): boolean =>
  hasFlag(op, OpFlag.VALUE) && (accessOf(op) === Access.READ || hasFlag(op, OpFlag.NOTES_WRITE));

/** Steps after which the runtime forgets the reads it watches for spinning (scheduler.c may_write). */
const mayWrite = (op: number): boolean => {
  const can = potentialAccessOf(op);
  return can !== Access.NONE && can !== Access.READ && !hasFlag(op, OpFlag.NOTES_WRITE);
};
