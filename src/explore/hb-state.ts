// States as happens-before graphs (Musuvathi & Qadeer, seed 001 §3.3), read off one
// finished execution. Every step is an action ⟨op, thread, index in its thread, object,
// write index⟩: a write is the m-th write of its object, a read names the write it saw.
// The set of actions identifies the state, so a state's key is the XOR of its actions'
// hashes — incremental both ways. Prefix states of the execution (downsets of its
// happens-before order) are given by how many steps of each thread they include.
import { Aside, Op, OpFlag, hasFlag } from '../addon/ops.js';
import { WORDS } from './thread-set.js';
import { Access, accessOf, extentOf, isCommutingUpdate, isThreadObject, objectOf, secondAccessOf, secondObjectOf, touchesRange } from './dependence.js';
import { type ExecutionView, failedWhileRunning } from './strategy.js';

/**
 * Threads hbcache explores at most: its sets of threads are 32-bit masks (the first word of
 * a thread set). It refuses a harness with more (HbCacheStrategy); the other strategies take
 * up to MAX_THREADS.
 */
export const HB_MAX_THREADS = 32;

/** the object MAIN_RETURN / exit() write: they end every thread */
const EVERYTHING = -1e9;
/**
 * A heap block freed in the execution, as an object of its own: its free writes it and
 * every step on an address inside it reads it, so the free is ordered with exactly the
 * steps it conflicts with (dependence.ts) and a step's action names the frees before it.
 * Keyed apart from addresses, thread objects and EVERYTHING.
 */
const BLOCKS = -(2 ** 48);
const blockObject = (start: number): number => BLOCKS - start;
const isBlockObject = (object: number): boolean => object <= BLOCKS;

/** Thrown from inside long bookkeeping when the time budget has run out. */
export class OutOfTime extends Error {}

/** The time budget's end, read every 1,024 ticks of a long loop. */
export class Deadline {
  private ticks = 0;

  constructor(private readonly at: number) {}

  tick(): void {
    if ((++this.ticks & 1023) === 0 && performance.now() >= this.at) throw new OutOfTime('the time budget ran out');
  }
}

/** A prefix state: per thread, how many of its steps it includes, and its key halves. */
export interface Downset {
  counts: Int32Array;
  hashA: number;
  hashB: number;
}

// the two halves of a state's key hash every action with different seeds
const SEED_A = 0x9e3779b1;
const SEED_B = 0x85ebca77;

/** A state's key: 53 bits of its two 32-bit halves, exact in a double */
export const stateKey = (hashA: number, hashB: number): number => (hashA >>> 0) * 2097152 + (hashB >>> 11);

/** how many states' reported enabled threads are kept (memory stays flat) */
const OBSERVED_CAP = 1 << 18;

/** ops a thread may be unable to take in some state (its first step needs its creation) */
const mayBlock = (op: number) => hasFlag(op, OpFlag.WAITS | OpFlag.STARTS_THREAD);

/** a lock one holder at a time takes, waiting while it is held: a mutex, spin lock or rwlock's write lock */
const isExclusiveLock = (op: number) => hasFlag(op, OpFlag.LOCK) && hasFlag(op, OpFlag.WAITS) && !hasFlag(op, OpFlag.SHARED);

export class HbExecution {
  steps = 0;
  /** threads that appear (or are created) in the execution */
  width = 0;
  private view!: ExecutionView;
  private index = new Int32Array(0); // per step: its position among its thread's steps
  private clock = new Uint32Array(0); // per step × HB_MAX_THREADS: steps of each thread before it, itself included
  /** per step: its action's hash (two halves) */
  hashA = new Int32Array(0);
  hashB = new Int32Array(0);
  private stepOf = new Int32Array(0); // per thread × capacity: its steps in order
  private atomicAfter = new Uint8Array(0); // per step: its thread is inside an atomic section after it
  private aloneAfter = new Uint8Array(0); // per step: the runtime let only its thread take the next one
  private capacity = 0;
  readonly count = new Int32Array(HB_MAX_THREADS);
  private readonly createdAt = new Int32Array(HB_MAX_THREADS);
  /** the thread that was running between two of its steps when the execution failed (-1: none) */
  private runningAtEnd = -1;

  /**
   * The thread that, in the downset, has taken every step it took in this execution and then
   * ran on until the execution failed (a race on a plain access, an assertion, a crash), or -1.
   * Its next operation is not known (the runtime's pending one is the step it took), so it is
   * no step to take from the downset; but it could go on: switching away from it there is a
   * preemption (ContextBounds).
   */
  runningIn(counts: Int32Array): number {
    const thread = this.runningAtEnd;
    return thread >= 0 && counts[thread] === this.count[thread] ? thread : -1;
  }
  /** the blocks the execution frees: starts in order, their ends, the largest extent */
  private blockStarts: number[] = [];
  private blockEnds: number[] = [];
  private longestBlock = 0;
  /** per object: its writes in order */
  private readonly writes = new Map<number, number[]>();
  private readonly scratch = new Int32Array(HB_MAX_THREADS);
  private readonly spinning = new Int32Array(HB_MAX_THREADS);
  /** state key -> the enabled threads the runtime reported there (kept across runs, up to OBSERVED_CAP states) */
  private readonly observed = new Map<number, number>();

  /** Analyses a finished execution (its arrays must stay valid while this one is used). */
  load(view: ExecutionView): void {
    const steps = view.steps;
    this.view = view;
    this.steps = steps;
    this.reserve(steps);
    this.count.fill(0);
    this.createdAt.fill(-1);
    this.writes.clear();
    let width = 1;
    const lastRead = new Map<number, number[]>();
    const lastWrite = new Map<number, number>();
    const threadClock = new Uint32Array(HB_MAX_THREADS * HB_MAX_THREADS);
    const latest = new Int32Array(HB_MAX_THREADS).fill(-1);
    this.findFreedBlocks(view);
    const { clock } = this;
    for (let i = 0; i < steps; i++) {
      const thread = view.thread[i]!;
      const op = view.op[i]!;
      width = Math.max(width, thread + 1);
      if (op === Op.THREAD_CREATE) {
        width = Math.max(width, view.object[i]! + 1);
        this.createdAt[view.object[i]!] = i;
      }
      this.index[i] = this.count[thread]!;
      this.stepOf[thread * this.capacity + this.count[thread]!] = i;
      this.count[thread]!++;
      const own = i * HB_MAX_THREADS;
      clock.set(threadClock.subarray(thread * HB_MAX_THREADS, (thread + 1) * HB_MAX_THREADS), own);
      clock[own + thread]!++;
      const join = (step: number) => {
        for (let t = 0; t < HB_MAX_THREADS; t++) if (clock[step * HB_MAX_THREADS + t]! > clock[own + t]!) clock[own + t] = clock[step * HB_MAX_THREADS + t]!;
      };
      if (accessOf(op) === Access.GLOBAL) for (let t = 0; t < HB_MAX_THREADS; t++) if (latest[t]! >= 0) join(latest[t]!);
      this.forEachObject(op, view.object[i]!, view.value[i]!, (object, read) => {
        const written = lastWrite.get(object);
        if (written !== undefined) join(written);
        if (read) {
          const readers = lastRead.get(object);
          if (readers) readers.push(i);
          else lastRead.set(object, [i]);
          return;
        }
        for (const reader of lastRead.get(object) ?? []) join(reader);
        lastRead.set(object, []);
        lastWrite.set(object, i);
        const chain = this.writes.get(object);
        if (chain) chain.push(i);
        else this.writes.set(object, [i]);
      });
      threadClock.set(clock.subarray(own, own + HB_MAX_THREADS), thread * HB_MAX_THREADS);
      latest[thread] = i;
    }
    this.width = width;
    this.runningAtEnd = failedWhileRunning(view);
    // hashes need every write chain complete (a read names its write by index)
    const counts = this.scratch;
    counts.fill(0);
    for (let i = 0; i < steps; i++) {
      const thread = view.thread[i]!;
      this.hashA[i] = this.actionHash(thread, counts, SEED_A, i);
      this.hashB[i] = this.actionHash(thread, counts, SEED_B, i);
      counts[thread]!++;
    }
    this.findAtomicSections();
  }

  /**
   * SV-COMP's __VERIFIER_atomic_begin/end are no steps: a section shows where the runtime
   * offered only the thread that just stepped although another could have stepped (judged
   * exactly from the happens-before order). Inside it, while that thread can step, no other
   * may (enabledIn). Where no other could have stepped, the section is not known; a run
   * reaching a state then still takes such steps of a thread last (linearize), and a step
   * the runtime declines is a plan it may decline (HbCacheStrategy).
   */
  private findAtomicSections(): void {
    const view = this.view;
    const counts = this.scratch;
    counts.fill(0);
    // per thread, the read its spinning turn ended with while it waits (Aside.SPIN), else -1: the runtime leaves it out then
    const spinning = this.spinning.fill(-1);
    for (let i = 0; i < this.steps; i++) {
      const thread = view.thread[i]!;
      counts[thread]!++;
      spinning[thread] = (view.aside[i]! & Aside.SPIN) !== 0 ? i : -1;
      for (let other = 0; other < this.width; other++) if (spinning[other]! >= 0 && this.wakes(i, spinning[other]!)) spinning[other] = -1;
      this.atomicAfter[i] = 0;
      this.aloneAfter[i] = 0;
      if (i + 1 === this.steps) continue;
      // a data choice is taken right after its thread's step, whatever the section
      if (view.op[i + 1] === Op.CHOOSE) this.aloneAfter[i] = 1;
      if (view.op[i + 1] === Op.CHOOSE || view.enabled[(i + 1) * WORDS] !== 1 << thread) continue;
      this.aloneAfter[i] = 1;
      for (let other = 0; other < this.width; other++) {
        if (other === thread || spinning[other]! >= 0) continue;
        const op = this.nextOp(counts, other);
        if (op >= 0 && this.canRun(counts, other, op, this.nextStep(counts, other)) === true) {
          this.atomicAfter[i] = 1;
          break;
        }
      }
    }
  }

  /** The thread inside an atomic section after the downset that can step there (only it may), or -1. */
  private atomicThread(counts: Int32Array): number {
    for (let thread = 0; thread < this.width; thread++) {
      const last = this.stepAt(thread, counts[thread]! - 1);
      if (last < 0 || !this.atomicAfter[last]) continue;
      const op = this.nextOp(counts, thread);
      if (op >= 0 && this.canRun(counts, thread, op, this.nextStep(counts, thread)) === true) return thread;
    }
    return -1;
  }

  private reserve(steps: number): void {
    if (this.capacity >= steps) return;
    const capacity = Math.max(steps, 256) * 2;
    this.capacity = capacity;
    this.index = new Int32Array(capacity);
    this.clock = new Uint32Array(capacity * HB_MAX_THREADS);
    this.hashA = new Int32Array(capacity);
    this.hashB = new Int32Array(capacity);
    this.stepOf = new Int32Array(capacity * HB_MAX_THREADS);
    this.atomicAfter = new Uint8Array(capacity);
    this.aloneAfter = new Uint8Array(capacity);
  }

  /** The blocks the execution frees, by start (a start freed twice, or reused, keeps its largest extent). */
  private findFreedBlocks(view: ExecutionView): void {
    const extents = new Map<number, number>();
    for (let i = 0; i < view.steps; i++) {
      const op = view.op[i]!;
      if (!touchesRange(op)) continue;
      const start = view.object[i]!;
      extents.set(start, Math.max(extents.get(start) ?? 0, extentOf(op, view.value[i]!)));
    }
    this.blockStarts = [...extents.keys()].sort((a, b) => a - b);
    this.blockEnds = this.blockStarts.map((start) => start + extents.get(start)!);
    this.longestBlock = Math.max(0, ...extents.values());
  }

  /** Visits (as reads) the freed blocks that hold the address. */
  private forEachBlockHolding(address: number, visit: (object: number, read: boolean) => void): void {
    const starts = this.blockStarts;
    if (starts.length === 0 || isThreadObject(address)) return;
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (starts[middle]! <= address) low = middle + 1;
      else high = middle;
    }
    // blocks starting at or before the address, as far back as the longest block reaches
    for (let at = low - 1; at >= 0 && starts[at]! > address - this.longestBlock; at--)
      if (address < this.blockEnds[at]!) visit(blockObject(starts[at]!), true);
  }

  /** The objects an operation touches, each read or written (locks count as writes). */
  private forEachObject(op: number, object: number, value: number, visit: (object: number, read: boolean) => void): void {
    const access = accessOf(op);
    if (access === Access.NONE) return;
    if (access === Access.GLOBAL) {
      visit(EVERYTHING, false);
      return;
    }
    if (touchesRange(op)) {
      visit(blockObject(object), false);
      return;
    }
    const second = secondObjectOf(op, value);
    if (second !== undefined) {
      visit(second, secondAccessOf(op) === Access.READ);
      this.forEachBlockHolding(second, visit);
    }
    const first = objectOf(op, object);
    visit(first, access === Access.READ);
    this.forEachBlockHolding(first, visit);
  }

  /** The step of `thread` at position `position`, or -1 when it has no such step. */
  stepAt(thread: number, position: number): number {
    return position < this.count[thread]! ? this.stepOf[thread * this.capacity + position]! : -1;
  }

  /** How many writes of `object` the downset includes (they form a prefix of its chain). */
  private writesIn(counts: Int32Array, object: number): number {
    const chain = this.writes.get(object);
    if (!chain) return 0;
    let low = 0;
    let high = chain.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      const step = chain[middle]!;
      if (this.index[step]! < counts[this.view.thread[step]!]!) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /**
   * The hash of the action `thread` performs next in the downset `counts` (one half,
   * chosen by `seed`), as step `step` of this execution does it, or its pending operation
   * when `step` is -1. The write index is taken from the downset: a read there may see a
   * different write than in this execution. `choice` replaces a data choice's value.
   */
  private actionHash(thread: number, counts: Int32Array, seed: number, step: number, choice = -1): number {
    const op = step >= 0 ? this.view.op[step]! : this.view.pendingOp[thread]!;
    const object = step >= 0 ? this.view.object[step]! : this.view.pendingObject[thread]!;
    const value = choice >= 0 ? choice : step >= 0 ? this.view.value[step]! : this.view.pendingValue[thread]!;
    let hash = mix(mix(mix(seed, op), thread), counts[thread]!);
    if (op === Op.CHOOSE) hash = mix(hash, value);
    this.forEachObject(op, object, value, (touched, read) => {
      const before = this.writesIn(counts, touched);
      // a step before its block's free says nothing of it: the same action in a run that frees no block
      if (read && before === 0 && isBlockObject(touched)) return;
      hash = mix(mix(mix(hash, touched >>> 0), Math.floor(touched / 4294967296)), read ? before : before + 1);
    });
    return mix(hash, 0x27d4eb2f) ^ (hash >>> 16);
  }

  /**
   * The key of the state after `thread` takes `step` (-1: its pending operation) from the
   * downset `state`; `choice` replaces a data choice's value.
   */
  successorKey(state: Downset, thread: number, step: number, choice = -1): number {
    return stateKey(
      state.hashA ^ this.actionHash(thread, state.counts, SEED_A, step, choice),
      state.hashB ^ this.actionHash(thread, state.counts, SEED_B, step, choice),
    );
  }

  /** Whether the last included step of `thread` is maximal in the downset (nothing included depends on it). */
  isMaximal(counts: Int32Array, thread: number): boolean {
    const position = counts[thread]!;
    if (position === 0) return false;
    for (let other = 0; other < this.width; other++) {
      if (other === thread || counts[other] === 0) continue;
      const last = this.stepAt(other, counts[other]! - 1);
      if (this.clock[last * HB_MAX_THREADS + thread]! >= position) return false;
    }
    return true;
  }

  /** Whether every step step `step` depends on (other threads') is in the downset. */
  private predecessorsIn(counts: Int32Array, step: number): boolean {
    const thread = this.view.thread[step]!;
    for (let other = 0; other < this.width; other++)
      if (other !== thread && this.clock[step * HB_MAX_THREADS + other]! > counts[other]!) return false;
    return true;
  }

  /** The step `thread` takes next after the downset: a step of this execution, -1 for its pending operation. */
  nextStep(counts: Int32Array, thread: number): number {
    return this.stepAt(thread, counts[thread]!);
  }

  /** The operation `thread` performs next after the downset, or -1 when it is finished. */
  nextOp(counts: Int32Array, thread: number): number {
    const step = this.nextStep(counts, thread);
    if (step >= 0) return this.view.op[step]!;
    const last = this.stepAt(thread, counts[thread]! - 1);
    if (last >= 0 && hasFlag(this.view.op[last]!, OpFlag.ENDS_THREAD)) return -1;
    if (last < 0 && this.createdAt[thread] === -1 && thread !== 0) return -1;
    return this.view.pendingOp[thread]!;
  }

  /** For a CHOOSE step next: how many values it can take. */
  choiceCount(step: number): number {
    return step >= 0 && this.view.op[step] === Op.CHOOSE ? this.view.object[step]! : 0;
  }

  /**
   * The last included step of `thread` is a read that ended a spinning turn (Aside.SPIN:
   * spin.c) after which no included write changed what it read: the thread
   * waits there, so switching away from it is free. Its thread's own steps decide whether a
   * read ends a turn, so it does in every order of the downset; the runtime ends the wait
   * with the first write to that location that is not a read-modify-write leaving the value
   * as it was (the writes to it after the read are those after it in its chain).
   */
  steppedAsideLast(counts: Int32Array, thread: number): boolean {
    const last = this.stepAt(thread, counts[thread]! - 1);
    if (last < 0 || (this.view.aside[last]! & Aside.SPIN) === 0) return false;
    const chain = this.writes.get(this.view.object[last]!);
    for (let at = chain ? this.writesIn(counts, this.view.object[last]!) - 1 : -1; at >= 0 && chain![at]! > last; at--) if (this.wakes(chain![at]!, last)) return false;
    return true;
  }

  /** Whether step `step` ends the wait of the thread whose spinning turn ended with read `spin`: a write to its location that is not a read-modify-write leaving the value as it was. */
  private wakes(step: number, spin: number): boolean {
    const view = this.view;
    if (view.thread[step] === view.thread[spin] || view.object[step] !== view.object[spin]) return false;
    const op = view.op[step]!;
    if (op === Op.ATOMIC_RMW || op === Op.ATOMIC_CAS || isCommutingUpdate(accessOf(op))) return view.written[step] !== view.bits[step];
    return op === Op.ATOMIC_STORE || op === Op.PLAIN_WRITE;
  }

  /**
   * The threads that can take a step after the downset `counts` (key `key`). Exact for
   * thread start and join, mutexes and spinlocks, and whenever everything the step waited
   * for in this execution is included; for other blocking operations (semaphores,
   * conditions, barriers, rwlocks, once) it takes what the runtime reported when a run
   * passed through the state, and otherwise counts the thread as blocked (see uncertain).
   */
  enabledIn(counts: Int32Array, key: number): number {
    let enabled = 0;
    let uncertain = 0;
    this.uncertain = 0;
    const atomic = this.atomicThread(counts);
    if (atomic >= 0) return 1 << atomic;
    for (let thread = 0; thread < this.width; thread++) {
      const op = this.nextOp(counts, thread);
      if (op < 0) continue;
      // a data choice is taken right after its thread's previous step: nothing else runs
      if (op === Op.CHOOSE && counts[thread]! > 0 && this.isMaximal(counts, thread)) return 1 << thread;
      const judged = this.canRun(counts, thread, op, this.nextStep(counts, thread));
      if (judged === true) enabled |= 1 << thread;
      else if (judged === undefined) uncertain |= 1 << thread;
    }
    this.uncertain = this.observed.has(key) ? 0 : uncertain;
    return enabled | (uncertain & (this.observed.get(key) ?? 0));
  }

  /** Threads the last enabledIn() could not judge: they may or may not be able to step. */
  uncertain = 0;

  /** true: can step; false: blocked; undefined: cannot tell from the downset alone. */
  private canRun(counts: Int32Array, thread: number, op: number, step: number): boolean | undefined {
    if (op === Op.THREAD_START) {
      const created = this.createdAt[thread]!;
      return thread === 0 || (created >= 0 && this.index[created]! < counts[this.view.thread[created]!]!);
    }
    if (!mayBlock(op)) return true;
    // what a once waits for (its initializer returning) is no step: only observation tells
    if (op === Op.ONCE) return undefined;
    // the other blocking steps wait for steps on their own object: with those included,
    // the object is as it was when this execution took the step
    if (step >= 0 && this.predecessorsIn(counts, step)) return true;
    const object = step >= 0 ? this.view.object[step]! : this.view.pendingObject[thread]!;
    if (isExclusiveLock(op)) return this.isFree(counts, object);
    if (op === Op.SEM_WAIT) {
      const value = this.semaphoreValue(counts, object);
      return value < 0 ? undefined : value > 0;
    }
    if (op === Op.THREAD_JOIN) {
      const exited = this.stepAt(object, this.count[object]! - 1);
      return exited >= 0 && this.view.op[exited] === Op.THREAD_EXIT && counts[object] === this.count[object];
    }
    return undefined;
  }

  /** A semaphore's value after the downset's steps on it (each step recorded the value it found), -1 if unknown. */
  private semaphoreValue(counts: Int32Array, object: number): number {
    const chain = this.writes.get(object);
    if (!chain) return -1; // untouched in this run: unknown
    const included = this.writesIn(counts, object);
    if (included < chain.length) return this.view.value[chain[included]!]!;
    const last = chain[included - 1]!;
    const found = this.view.value[last]!;
    if (this.view.op[last] === Op.SEM_POST) return found + 1;
    return found > 0 ? found - 1 : 0;
  }

  /** A lock is free when its last included write released it (or there is none). */
  private isFree(counts: Int32Array, object: number): boolean {
    const included = this.writesIn(counts, object);
    if (included === 0) return true;
    const last = this.writes.get(object)![included - 1]!;
    const op = this.view.op[last]!;
    return hasFlag(op, OpFlag.UNLOCK) || (op === Op.COND_WAIT && objectOf(op, this.view.object[last]!) !== object);
  }

  /**
   * The decisions of a run that reaches the downset: this execution's steps that it
   * includes, in order, except that a thread's last steps after which the runtime let only
   * it go on (an atomic section, perhaps) come last, as far as no other included step
   * depends on them.
   */
  linearize(counts: Int32Array, extra: number): Uint16Array {
    let length = 0;
    const tailFrom = this.scratch;
    for (let thread = 0; thread < this.width; thread++) {
      length += counts[thread]!;
      let start = counts[thread]!;
      while (start > 0 && this.aloneAfter[this.stepAt(thread, start - 1)]) start--;
      for (let other = 0; other < this.width && start < counts[thread]!; other++) {
        const last = other === thread ? -1 : this.stepAt(other, counts[other]! - 1);
        if (last >= 0) start = Math.max(start, this.clock[last * HB_MAX_THREADS + thread]!);
      }
      tailFrom[thread] = start;
    }
    const decisions = new Uint16Array(length + 1);
    let at = 0;
    const take = (i: number) => (decisions[at++] = this.view.op[i] === Op.CHOOSE ? this.view.value[i]! : this.view.thread[i]!);
    for (let i = 0; i < this.steps; i++) if (this.index[i]! < tailFrom[this.view.thread[i]!]!) take(i);
    for (let thread = 0; thread < this.width; thread++)
      for (let position = tailFrom[thread]!; position < counts[thread]!; position++) take(this.stepAt(thread, position));
    decisions[length] = extra;
    return decisions;
  }

  /** Remembers what the runtime reported as enabled before each step of the run. */
  observeEnabled(prefixKeys: (length: number) => number): void {
    for (let i = 0; i < this.steps; i++) {
      const key = prefixKeys(i);
      // past the cap a state counts as one no run went through: judged from the order alone
      if (this.observed.size >= OBSERVED_CAP) return;
      if (this.observed.has(key)) continue;
      this.observed.set(key, this.view.enabled[i * WORDS]!);
      this.observations++;
    }
  }

  /** grows whenever the runtime reported a state not seen before */
  observations = 0;

  /** Takes step `step`, the last of the run's prefix `into`, out of it. */
  dropLast(step: number, into: Downset): void {
    into.counts[this.view.thread[step]!]!--;
    into.hashA ^= this.hashA[step]!;
    into.hashB ^= this.hashB[step]!;
  }

  /** The downset of the first `steps` steps (a prefix of the run). */
  prefix(steps: number, into: Downset): void {
    into.counts.fill(0);
    into.hashA = 0;
    into.hashB = 0;
    for (let i = 0; i < steps; i++) {
      into.counts[this.view.thread[i]!]!++;
      into.hashA ^= this.hashA[i]!;
      into.hashB ^= this.hashB[i]!;
    }
  }
}

function mix(hash: number, value: number): number {
  let h = Math.imul(hash ^ (value | 0), 0x5bd1e995);
  h ^= h >>> 13;
  return Math.imul(h, 0xc2b2ae35) ^ (h >>> 16);
}

/**
 * A set of state keys in fixed memory: two slots per bucket, and adding to a full bucket
 * forgets one of its keys. Forgetting only costs pruning (the state is explored again).
 */
export class StateCache {
  private readonly slots: Float64Array; // key + 1; 0: empty
  private readonly bucketMask: number;
  private evictSecond = 0;

  constructor(slotsLog2: number) {
    this.slots = new Float64Array(1 << slotsLog2);
    this.bucketMask = (1 << slotsLog2) - 2;
  }

  has(key: number): boolean {
    const at = (key >>> 0) & this.bucketMask;
    return this.slots[at] === key + 1 || this.slots[at + 1] === key + 1;
  }

  add(key: number): void {
    const at = (key >>> 0) & this.bucketMask;
    const stored = key + 1;
    if (this.slots[at] === stored || this.slots[at + 1] === stored) return;
    if (this.slots[at] === 0) this.slots[at] = stored;
    else if (this.slots[at + 1] === 0) this.slots[at + 1] = stored;
    else {
      this.evictSecond ^= 1;
      this.slots[at + this.evictSecond] = stored;
    }
  }

  clear(): void {
    this.slots.fill(0);
  }
}
