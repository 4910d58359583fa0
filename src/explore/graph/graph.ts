// An SC execution graph (TruSt, POPL 2022): events in the order they were added (an event's
// id is its stamp), each thread's events in program order, reads-from (rf) per read and a
// coherence order (co) per location kept as a doubly linked list. Typed arrays that grow by
// doubling, so that adding an event allocates nothing; a backward revisit copies a restricted
// graph into another Graph object that is reused (graph-frames.ts).
import { MAX_THREADS, Op } from '../../addon/ops.js';
import { grown, roomFor } from '../typed-arrays.js';
import type { Locations } from './locations.js';

/** What an event does in the graph. */
export const Kind = {
  /** no memory access: thread start, exit, join, a data choice, a yield, main's return */
  OTHER: 0,
  /** reads its location (a load, a failed compare-exchange) */
  READ: 1,
  /** writes its location (a store, an unlock) */
  WRITE: 2,
  /** reads then writes, right after the write it read in co (an RMW, a successful CAS, a lock taken, a create) */
  RMW: 3,
} as const;

/** What an event can become when it reads another write (a revisit): fixed per event. */
export const Role = {
  OTHER: 0,
  /** always a plain read */
  LOAD: 1,
  /** always a plain write */
  STORE: 2,
  /** always a read-modify-write (fetch_*, exchange, a thread create on the thread numbering) */
  UPDATE: 3,
  /** a compare-exchange: a read-modify-write when it reads what it expects, else a read */
  CAS: 4,
  /**
   * an acquisition (a mutex or spin lock, sem_wait, a read or write lock): reads a write that
   * leaves the units it takes (expectedLow: one, or every unit for a write lock) and takes
   * them; never an event while fewer are left
   */
  LOCK: 5,
  /** a mutex, spin or write unlock: writes the lock free (valueLow: every unit it has) */
  UNLOCK: 6,
  /** sem_post, a read unlock, or a barrier arrival (the barrier's value: the arrivals so far): a read-modify-write that adds a unit */
  POST: 7,
  /**
   * leaving a barrier: a read-modify-write that reads a write with every arrival of its round
   * (expectedLow: the arrivals that completes it) and leaves the value as it was; never an
   * event before then
   */
  LEAVE: 8,
  /**
   * a mutex, spin or read-write trylock, sem_trywait: a read-modify-write that takes the units
   * it wants (expectedLow, as a LOCK) when the write it reads leaves them and else writes the
   * lock back as it was (the runtime orders every attempt on a lock, a failed one too, with the
   * lock's other steps: race detection synchronises on it)
   */
  TRY: 9,
  /**
   * pthread_once (call_once): a read-modify-write of its control. Reading the initial value it
   * claims the routine (writes ONCE_CLAIMED); reading the claim it waits until the claim's
   * routine returned (routineEnd) and comes after its last event (dependsOn), never an event
   * before then; reading another call's write it goes on; a call that does not claim writes ONCE_DONE
   */
  ONCE: 10,
} as const;

/** What a once call writes: it claimed the routine, or found it claimed (and returned, or it waited). */
export const ONCE_CLAIMED = 1;
export const ONCE_DONE = 2;

/** The initial value of a location: rf of a read that reads it. */
export const INIT = -1;
/** no event (no co neighbour, no dependency) */
export const NONE = -1;

const FIRST_EVENTS = 64;

export class Graph {
  constructor(private readonly locations: Locations) {}

  count = 0;
  thread = new Uint16Array(FIRST_EVENTS);
  /** position in its thread */
  index = new Uint32Array(FIRST_EVENTS);
  kind = new Uint8Array(FIRST_EVENTS);
  role = new Uint8Array(FIRST_EVENTS);
  /** the runtime's op at the event's step */
  op = new Uint8Array(FIRST_EVENTS);
  /** location id (Locations), or NONE */
  location = new Int32Array(FIRST_EVENTS);
  /** reads: the write read, or INIT (set by readsFrom) */
  rf = new Int32Array(FIRST_EVENTS);
  /** writes: one of the reads that read it (NONE: none); reads: the next and previous reader of the same write */
  firstReader = new Int32Array(FIRST_EVENTS);
  nextReader = new Int32Array(FIRST_EVENTS);
  previousReader = new Int32Array(FIRST_EVENTS);
  coPrev = new Int32Array(FIRST_EVENTS);
  coNext = new Int32Array(FIRST_EVENTS);
  /** the event before this one at its location (NONE: the first), to visit a location's events alone */
  previousAt = new Int32Array(FIRST_EVENTS);
  /** a thread's start: its create; a join: the joined thread's exit; a once call reading the claim: the routine's last event (the event it waits for) */
  dependsOn = new Int32Array(FIRST_EVENTS);
  /** added reading the co-latest write (or placed co-last): only such events may be deleted by a revisit */
  addedMax = new Uint8Array(FIRST_EVENTS);
  /** may still be backward-revisited (false once in the prefix of a revisiting write) */
  revisitable = new Uint8Array(FIRST_EVENTS);
  /**
   * writes: the value written (low, high 32 bits; a lock's: the units it leaves); a choice: the
   * value chosen; a thread's start: 1 when the thread never creates one (stable-prefix.ts)
   */
  valueLow = new Uint32Array(FIRST_EVENTS);
  valueHigh = new Uint32Array(FIRST_EVENTS);
  /**
   * a compare-exchange: the value it expects; a read-modify-write: the value it read when it
   * wrote `value`; an acquisition or attempt: the units it takes (low); a barrier leave: the
   * arrivals it waits for (low); a once claim: 1 + the position in its thread of its routine's
   * last event (its own when the routine took no step), 0 while the graph does not hold it (low)
   */
  expectedLow = new Uint32Array(FIRST_EVENTS);
  expectedHigh = new Uint32Array(FIRST_EVENTS);
  /** bytes accessed (memory events), a choice's number of values, or a barrier arrival's count (the threads a round takes) */
  size = new Uint32Array(FIRST_EVENTS);
  /**
   * 1: the access ended a spinning turn (the runtime's spin detection, spin.c: its thread came
   * back to where it was, every location it read unchanged, all at this one): its thread runs
   * on only after a write co-after the one the turn left its location at (spinWrite)
   */
  spins = new Uint8Array(FIRST_EVENTS);
  /**
   * an update (Role.UPDATE): what it writes as a function of what it reads, a RmwFunction
   * (a subtraction as the add of its difference; NONE: not known) and its operand (low, high
   * 32 bits); update-values.ts
   */
  operation = new Uint8Array(FIRST_EVENTS);
  operandLow = new Uint32Array(FIRST_EVENTS);
  operandHigh = new Uint32Array(FIRST_EVENTS);

  /**
   * per event, its porf view when `viewKnown` (computed on demand: porfRow): per thread the
   * last position of the events (po ∪ rf ∪ create ∪ join)*-before it, itself included, -1 for
   * none; rows of `viewWidth` entries. An event's view changes only when its own rf does (it
   * is then its thread's last event and no kept event reads it), so a row stays valid.
   */
  porf = new Int32Array(FIRST_EVENTS * 8);
  viewWidth = 8;
  viewKnown = new Uint8Array(FIRST_EVENTS);
  private viewStack = new Int32Array(FIRST_EVENTS);

  /** per thread, its events in program order */
  threadEvents: Int32Array[] = [];
  threadLength = new Uint32Array(MAX_THREADS);
  threads = 0;
  /** per location: first and last write in co (NONE: only the initial value) */
  coFirst = new Int32Array(16).fill(NONE);
  coLast = new Int32Array(16).fill(NONE);
  /** per location: its newest event (NONE: none), the head of the previousAt chain */
  lastAt = new Int32Array(16).fill(NONE);

  /** Room for `events` events and `locations` locations. */
  reserve(events: number, locations: number): void {
    if (events > this.thread.length) {
      const size = roomFor(this.thread.length, events);
      this.thread = grown(this.thread, size);
      this.index = grown(this.index, size);
      this.kind = grown(this.kind, size);
      this.role = grown(this.role, size);
      this.op = grown(this.op, size);
      this.location = grown(this.location, size);
      this.rf = grown(this.rf, size);
      this.firstReader = grown(this.firstReader, size);
      this.nextReader = grown(this.nextReader, size);
      this.previousReader = grown(this.previousReader, size);
      this.coPrev = grown(this.coPrev, size);
      this.coNext = grown(this.coNext, size);
      this.previousAt = grown(this.previousAt, size);
      this.dependsOn = grown(this.dependsOn, size);
      this.addedMax = grown(this.addedMax, size);
      this.revisitable = grown(this.revisitable, size);
      this.valueLow = grown(this.valueLow, size);
      this.valueHigh = grown(this.valueHigh, size);
      this.expectedLow = grown(this.expectedLow, size);
      this.expectedHigh = grown(this.expectedHigh, size);
      this.size = grown(this.size, size);
      this.spins = grown(this.spins, size);
      this.operation = grown(this.operation, size);
      this.operandLow = grown(this.operandLow, size);
      this.operandHigh = grown(this.operandHigh, size);
      this.viewKnown = grown(this.viewKnown, size);
      this.viewStack = grown(this.viewStack, size);
      this.porf = grown(this.porf, size * this.viewWidth);
    }
    if (locations > this.coFirst.length) {
      const size = roomFor(this.coFirst.length, locations);
      const first = this.coFirst.length;
      this.coFirst = grown(this.coFirst, size);
      this.coLast = grown(this.coLast, size);
      this.lastAt = grown(this.lastAt, size);
      this.coFirst.fill(NONE, first);
      this.coLast.fill(NONE, first);
      this.lastAt.fill(NONE, first);
    }
  }

  /** Empties the graph, for `locations` locations. */
  clear(locations: number): void {
    this.count = 0;
    this.threadLength.fill(0, 0, this.threads);
    this.threads = 0;
    this.reserve(0, locations);
    this.coFirst.fill(NONE);
    this.coLast.fill(NONE);
    this.lastAt.fill(NONE);
  }

  /** Adds an event of `thread` (its next in program order); the caller sets its fields. */
  add(thread: number, role: number, op: number, location: number): number {
    const event = this.count++;
    this.reserve(this.count, location + 1);
    if (thread >= this.viewWidth) this.widenViews(thread + 1);
    if (thread >= this.threads) this.addThreads(thread + 1);
    let events = this.threadEvents[thread]!;
    const index = this.threadLength[thread]!++;
    if (index >= events.length) this.threadEvents[thread] = events = grown(events, roomFor(events.length, index + 1));
    events[index] = event;
    this.thread[event] = thread;
    this.index[event] = index;
    this.role[event] = role;
    this.kind[event] = Kind.OTHER;
    this.op[event] = op;
    this.location[event] = location;
    if (location !== NONE) {
      this.previousAt[event] = this.lastAt[location]!;
      this.lastAt[location] = event;
    }
    this.rf[event] = INIT;
    this.firstReader[event] = NONE;
    this.viewKnown[event] = 0;
    this.coPrev[event] = NONE;
    this.coNext[event] = NONE;
    this.dependsOn[event] = NONE;
    this.addedMax[event] = 1;
    this.revisitable[event] = 1;
    this.valueLow[event] = 0;
    this.valueHigh[event] = 0;
    this.expectedLow[event] = 0;
    this.expectedHigh[event] = 0;
    this.size[event] = 0;
    this.spins[event] = 0;
    this.operation[event] = 0;
    this.operandLow[event] = 0;
    this.operandHigh[event] = 0;
    return event;
  }

  /** Makes the graph hold `threads` threads at least, the new ones with no events. */
  private addThreads(threads: number): void {
    while (this.threads < threads) {
      if (this.threadEvents.length <= this.threads) this.threadEvents.push(new Int32Array(16));
      this.threadLength[this.threads++] = 0;
    }
  }

  /** Where `event`'s porf view starts in `porf`, computed first if needed (and its predecessors', without recursion). */
  porfRow(event: number): number {
    const width = this.viewWidth;
    if (this.viewKnown[event] === 1) return event * width;
    let top = 0;
    this.viewStack[top++] = event;
    while (top > 0) {
      const at = this.viewStack[top - 1]!;
      const before = this.poBefore(at);
      const rf = this.isRead(at) ? this.rf[at]! : INIT;
      const dependsOn = this.dependsOn[at]!;
      if (before !== NONE && this.viewKnown[before] === 0) this.viewStack[top++] = before;
      else if (rf !== INIT && this.viewKnown[rf] === 0) this.viewStack[top++] = rf;
      else if (dependsOn !== NONE && this.viewKnown[dependsOn] === 0) this.viewStack[top++] = dependsOn;
      else {
        top--;
        const row = at * width;
        // element loops: rows are a few entries, where copyWithin and fill cost more than they copy
        const porf = this.porf;
        if (before === NONE) for (let thread = 0; thread < width; thread++) porf[row + thread] = -1;
        else for (let thread = 0, from = before * width; thread < width; thread++) porf[row + thread] = porf[from + thread]!;
        if (rf !== INIT) this.joinRow(row, rf * width);
        if (dependsOn !== NONE) this.joinRow(row, dependsOn * width);
        this.porf[row + this.thread[at]!] = this.index[at]!;
        this.viewKnown[at] = 1;
      }
    }
    return event * width;
  }

  /** The event before `event` in its thread, or NONE. */
  poBefore(event: number): number {
    const index = this.index[event]!;
    return index === 0 ? NONE : this.threadEvents[this.thread[event]!]![index - 1]!;
  }

  private joinRow(row: number, other: number): void {
    for (let thread = 0; thread < this.viewWidth; thread++)
      if (this.porf[other + thread]! > this.porf[row + thread]!) this.porf[row + thread] = this.porf[other + thread]!;
  }

  /** Makes porf rows `threads` wide at least: known rows are moved, their new threads before nothing (-1). */
  private widenViews(threads: number): void {
    const old = this.viewWidth;
    let width = old;
    while (width < threads) width *= 2;
    const porf = new Int32Array(this.viewKnown.length * width).fill(-1);
    for (let event = 0; event < this.count; event++) porf.set(this.porf.subarray(event * old, event * old + old), event * width);
    this.porf = porf;
    this.viewWidth = width;
  }

  /** The event at position `index` of `thread`, or NONE. */
  eventAt(thread: number, index: number): number {
    return thread < this.threads && index < this.threadLength[thread]! ? this.threadEvents[thread]![index]! : NONE;
  }

  /** The last event of `thread`, or NONE. */
  lastOf(thread: number): number {
    return thread < this.threads && this.threadLength[thread]! > 0 ? this.threadEvents[thread]![this.threadLength[thread]! - 1]! : NONE;
  }

  isWrite(event: number): boolean {
    const kind = this.kind[event]!;
    return kind === Kind.WRITE || kind === Kind.RMW;
  }

  isRead(event: number): boolean {
    const kind = this.kind[event]!;
    return kind === Kind.READ || kind === Kind.RMW;
  }

  /** `read` reads `write` (INIT: the initial value), and is listed among the write's readers. */
  readsFrom(read: number, write: number): void {
    this.viewKnown[read] = 0;
    this.unlinkReader(read);
    if (write === INIT) return;
    this.linkReader(read, write);
  }

  /** `read`, reading nothing yet, reads `write` (an event) and is listed first among its readers. */
  private linkReader(read: number, write: number): void {
    this.rf[read] = write;
    const next = this.firstReader[write]!;
    this.previousReader[read] = NONE;
    this.nextReader[read] = next;
    if (next !== NONE) this.previousReader[next] = read;
    this.firstReader[write] = read;
  }

  /** Takes `event` out of the readers of the write it reads, if any. */
  private unlinkReader(event: number): void {
    const write = this.rf[event]!;
    if (write === INIT) return;
    const previous = this.previousReader[event]!;
    const next = this.nextReader[event]!;
    if (previous === NONE) this.firstReader[write] = next;
    else this.nextReader[previous] = next;
    if (next !== NONE) this.previousReader[next] = previous;
    this.rf[event] = INIT;
  }

  /** Puts write `event` right after `after` (INIT: first) in its location's co. */
  placeAfter(event: number, after: number): void {
    const location = this.location[event]!;
    const next = after === INIT ? this.coFirst[location]! : this.coNext[after]!;
    this.coPrev[event] = after;
    this.coNext[event] = next;
    if (after === INIT) this.coFirst[location] = event;
    else this.coNext[after] = event;
    if (next === NONE) this.coLast[location] = event;
    else this.coPrev[next] = event;
  }

  /** Takes write `event` out of its location's co. */
  unplace(event: number): void {
    const location = this.location[event]!;
    const previous = this.coPrev[event]!;
    const next = this.coNext[event]!;
    if (previous === INIT) this.coFirst[location] = next;
    else this.coNext[previous] = next;
    if (next === NONE) this.coLast[location] = previous;
    else this.coPrev[next] = previous;
    this.coPrev[event] = NONE;
    this.coNext[event] = NONE;
  }

  /** Whether an event up to `stamp` reads a write added after it (a revisited read): cutting after `stamp` would take that write away. */
  readsAfter(stamp: number): boolean {
    for (let event = 0; event <= stamp; event++) if (this.isRead(event) && this.rf[event]! > stamp) return true;
    return false;
  }

  /** Removes the events added after `stamp` (GenMC's cutToStamp): every thread keeps a prefix. */
  cutAfter(stamp: number): void {
    for (let event = this.count - 1; event > stamp; event--) {
      if (this.isWrite(event)) this.unplace(event);
      this.unlinkReader(event);
      const location = this.location[event]!;
      if (location !== NONE) this.lastAt[location] = this.previousAt[event]!;
      this.threadLength[this.thread[event]!]!--;
    }
    this.count = stamp + 1;
  }

  /**
   * The order the graph imposes on its events, as pairs (from[i], to[i]), at most four per
   * event (room for 4 × count): a start after its create, a join after the exit it waits for,
   * co, rf, and fr (a read before the write co-after the one it reads). With `kept` (per
   * thread, how many of its first events count), on those alone: co and fr between kept
   * events with others between them in co (the others may go; the order of the kept ones
   * stays), and no order an event left out imposes. A lock that waits at the end is left out.
   * Returns the number of pairs.
   */
  orderEdges(from: Int32Array, to: Int32Array, kept?: Int32Array): number {
    let edges = 0;
    for (let event = 0; event < this.count; event++) {
      if ((kept !== undefined && !this.amongFirst(event, kept)) || this.waitsAtEnd(event)) continue;
      const dependsOn = this.dependsOn[event]!;
      if (dependsOn !== NONE && (kept === undefined || this.amongFirst(dependsOn, kept))) {
        from[edges] = dependsOn;
        to[edges++] = event;
      }
      // a yield right after a spinning turn: its thread went on once the wait ended (a read there orders itself by its rf)
      const waker = this.isRead(event) ? NONE : this.wakerBefore(event);
      if (waker !== NONE && (kept === undefined || this.amongFirst(waker, kept))) {
        from[edges] = waker;
        to[edges++] = event;
      }
      if (this.isWrite(event)) {
        let before = this.coPrev[event]!;
        if (kept !== undefined) while (before !== INIT && !this.amongFirst(before, kept)) before = this.coPrev[before]!;
        if (before !== INIT) {
          from[edges] = before;
          to[edges++] = event;
        }
      }
      if (!this.isRead(event)) continue;
      const rf = this.rf[event]!;
      // a read-modify-write's rf is its co predecessor
      if (rf !== INIT && (kept === undefined || this.amongFirst(rf, kept)) && this.kind[event] !== Kind.RMW) {
        from[edges] = rf;
        to[edges++] = event;
      }
      // a read-modify-write is before what is co-after it by co
      let overwrite = this.coAfter(rf, this.location[event]!);
      if (kept !== undefined) while (overwrite !== NONE && overwrite !== event && !this.amongFirst(overwrite, kept)) overwrite = this.coNext[overwrite]!;
      if (overwrite !== NONE && overwrite !== event) {
        from[edges] = event;
        to[edges++] = overwrite;
      }
    }
    return edges;
  }

  /** Whether `event` is among the first `lengths[thread]` events of its thread (kept events, events run). */
  amongFirst(event: number, lengths: Int32Array): boolean {
    return this.index[event]! < lengths[this.thread[event]!]!;
  }

  /**
   * An acquisition or barrier leave that a deadlocked run left waiting (strategy.ts:
   * addWaitingLocks): it reads a write it cannot run after, and never runs; or a yield after a
   * spinning turn that no write ends.
   */
  waitsAtEnd(event: number): boolean {
    if (!this.isRead(event)) return this.spinBefore(event) !== NONE && this.wakerBefore(event) === NONE;
    return this.blockedReading(event, this.rf[event]!);
  }

  /** For an event right after a spinning turn (its yields between), the write that ended the wait (NONE: none yet, or no turn before it). */
  private wakerBefore(event: number): number {
    const spin = this.spinBefore(event);
    return spin === NONE ? NONE : this.spinWaker(spin);
  }

  /**
   * Whether `event` waits where it would read `write`: an acquisition that finds fewer units than it takes, a
   * barrier leave before its round is complete, a spinning thread's next access reading the
   * write its turn left (the thread waits for a later one).
   */
  blockedReading(event: number, write: number): boolean {
    if (this.spinBefore(event) !== NONE) return this.waitsAfterSpin(event, write);
    const role = this.role[event]!;
    if (role === Role.ONCE) return this.isOnceClaim(write) && this.routineEnd(write) === NONE;
    return (role === Role.LOCK || role === Role.LEAVE) && this.units(write, this.location[event]!) < this.expectedLow[event]!;
  }

  /** Whether `write` (INIT: a control's initial value) is a once call that claimed its routine. */
  isOnceClaim(write: number): boolean {
    return write !== INIT && this.role[write] === Role.ONCE && this.valueLow[write] === ONCE_CLAIMED;
  }

  /** The last event of the routine once claim `claim` ran, or NONE while the graph does not hold it. */
  routineEnd(claim: number): number {
    const at = this.expectedLow[claim]! - 1;
    const thread = this.thread[claim]!;
    return at >= 0 && at < this.threadLength[thread]! ? this.threadEvents[thread]![at]! : NONE;
  }

  /** The access that ended a spinning turn right before `event` in its thread, yields between (its thread waited there), or NONE. */
  spinBefore(event: number): number {
    let before = this.poBefore(event);
    while (before !== NONE && this.op[before] === Op.YIELD) before = this.poBefore(before);
    return before !== NONE && this.spins[before] === 1 ? before : NONE;
  }

  /** The write a spinning turn that ended at `spin` left its location at: the access's own when it wrote (an exchange of the value there), else the one it read. */
  spinWrite(spin: number): number {
    return this.isWrite(spin) ? spin : this.rf[spin]!;
  }

  /**
   * The write that ends the wait of the thread whose turn ended at `spin` (NONE: none yet):
   * the first co-after spinWrite that is not a read-modify-write leaving the value as it was
   * (the runtime takes such a one as a read: spin.c).
   */
  spinWaker(spin: number): number {
    const location = this.location[spin]!;
    let write = this.coAfter(this.spinWrite(spin), location);
    while (write !== NONE && this.leavesValue(write)) write = this.coNext[write]!;
    return write;
  }

  /** Whether `event`, its thread's next access after a spinning turn, would still wait reading `write`: spinWrite, or a write co-before the waker. */
  waitsAfterSpin(event: number, write: number): boolean {
    const spin = this.spinBefore(event);
    if (spin === NONE) return false;
    // spinWrite may be INIT, which is no event to step from
    if (write === this.spinWrite(spin)) return true;
    const waker = this.spinWaker(spin);
    for (let before = this.coAfter(this.spinWrite(spin), this.location[spin]!); before !== waker; before = this.coNext[before]!) if (before === write) return true;
    return false;
  }

  /**
   * A read-modify-write that wrote the value it read. An update given another write to read
   * whose operand is not known (update-values.ts) has not run with it yet: what it writes is
   * not known, and it is taken as one that changes the value (a thread may then be taken as
   * woken too early, which replay shows, but no graph where it is woken is left out).
   */
  private leavesValue(write: number): boolean {
    if (this.kind[write] !== Kind.RMW) return false;
    const rf = this.rf[write]!;
    const location = this.location[write]!;
    const low = rf === INIT ? this.locations.initLowOf(location) : this.valueLow[rf]!;
    const high = rf === INIT ? this.locations.initHighOf(location) : this.valueHigh[rf]!;
    if (this.role[write] === Role.UPDATE && (this.expectedLow[write] !== low || this.expectedHigh[write] !== high)) return false;
    return this.valueLow[write] === low && this.valueHigh[write] === high;
  }

  /** The units a lock's write (INIT: its initial value) leaves for acquisitions to take. */
  units(write: number, location: number): number {
    return write === INIT ? this.locations.initLowOf(location) : this.valueLow[write]!;
  }

  /** Whether `event` is a choice its thread made right after its step before it (weft_choose: no scheduling point between). */
  isGluedChoice(event: number): boolean {
    return this.op[event] === Op.CHOOSE && event > 0 && this.thread[event - 1] === this.thread[event] && this.index[event] === this.index[event - 1]! + 1;
  }

  /** Whether `event` is a yield, or a choice its thread made right after one (no scheduling point between): a switch next is free, going on a preemption while another thread can run. */
  yieldedAt(event: number): boolean {
    let at = event;
    while (this.isGluedChoice(at)) at--;
    return this.op[at] === Op.YIELD;
  }

  /** `event`, or the last of the choices its thread made right after it. */
  lastGluedAfter(event: number): number {
    let last = event;
    while (last + 1 < this.count && this.isGluedChoice(last + 1)) last++;
    return last;
  }

  /** The write co-before `write` (INIT when first). */
  coBefore(write: number): number {
    return this.coPrev[write]!;
  }

  /** The write co-after `write` (INIT: the location's first write), NONE when last. */
  coAfter(write: number, location: number): number {
    return write === INIT ? this.coFirst[location]! : this.coNext[write]!;
  }

  /**
   * Copies into `to` the events of this graph that `keep` marks (non-zero), in stamp order;
   * returns the map from this graph's ids to the copy's (`mapped`, NONE for events left out).
   * rf and dependencies of kept events are kept events (the caller's restriction ensures it).
   */
  copyInto(to: Graph, keep: Uint8Array, mapped: Int32Array, locations: number): void {
    Graph.copyEvents(this, to, keep, mapped, locations);
  }

  /** Rebuilds `to` from a snapshot (snapshotOf): the same events, ids, rf and co. */
  static restore(to: Graph, snapshot: GraphSnapshot, locations: number): void {
    Graph.copyEvents(snapshot, to, new Uint8Array(snapshot.count).fill(1), new Int32Array(snapshot.count), locations);
  }

  /**
   * copyInto, from a graph or a snapshot of one (whose porf views are computed again). One
   * pass writes each field of a kept event once (no `add`: this runs once per backward
   * revisit, over nearly every event).
   */
  private static copyEvents(from: GraphSnapshot, to: Graph, keep: Uint8Array, mapped: Int32Array, locations: number): void {
    to.clear(locations);
    const graph = from instanceof Graph ? from : undefined;
    let count = 0;
    let threads = 0;
    for (let event = 0; event < from.count; event++) {
      if (keep[event] === 0) {
        mapped[event] = NONE;
        continue;
      }
      mapped[event] = count++;
      if (from.thread[event]! >= threads) threads = from.thread[event]! + 1;
    }
    to.reserve(count, locations);
    to.addThreads(threads);
    const wanted = Math.max(threads, graph ? graph.viewWidth : 0);
    if (to.viewWidth < wanted) to.widenViews(wanted);
    const width = to.viewWidth;
    // fields as locals: V8 keeps a typed array loop tight only when it need not reload them
    const { thread: fromThread, kind, role, op, location: fromLocation, rf: fromRf, dependsOn: fromDependsOn, addedMax, revisitable } = from;
    const { valueLow, valueHigh, expectedLow, expectedHigh, size, spins, operation, operandLow, operandHigh } = from;
    const { threadLength, threadEvents, lastAt, previousAt, porf } = to;
    const toThread = to.thread, toIndex = to.index, toKind = to.kind, toRole = to.role, toOp = to.op, toLocation = to.location;
    const toFirstReader = to.firstReader, toCoPrev = to.coPrev, toCoNext = to.coNext, toRf = to.rf, toDependsOn = to.dependsOn;
    const toAddedMax = to.addedMax, toRevisitable = to.revisitable, toValueLow = to.valueLow, toValueHigh = to.valueHigh;
    const toExpectedLow = to.expectedLow, toExpectedHigh = to.expectedHigh, toSize = to.size, toSpins = to.spins, toViewKnown = to.viewKnown;
    const toOperation = to.operation, toOperandLow = to.operandLow, toOperandHigh = to.operandHigh;
    const fromViewKnown = graph?.viewKnown;
    const fromPorf = graph?.porf;
    const fromWidth = graph ? graph.viewWidth : 0;
    for (let event = 0; event < from.count; event++) {
      const copy = mapped[event]!;
      if (copy === NONE) continue;
      const thread = fromThread[event]!;
      const index = threadLength[thread]!++;
      let events = threadEvents[thread]!;
      if (index >= events.length) threadEvents[thread] = events = grown(events, roomFor(events.length, index + 1));
      events[index] = copy;
      toThread[copy] = thread;
      toIndex[copy] = index;
      toKind[copy] = kind[event]!;
      toRole[copy] = role[event]!;
      toOp[copy] = op[event]!;
      const location = fromLocation[event]!;
      toLocation[copy] = location;
      if (location !== NONE) {
        previousAt[copy] = lastAt[location]!;
        lastAt[location] = copy;
      }
      toFirstReader[copy] = NONE;
      toCoPrev[copy] = NONE;
      toCoNext[copy] = NONE;
      // a revisited read keeps its place and reads a write added after it: linked once that is copied
      const rf = fromRf[event]!;
      toRf[copy] = INIT;
      if (rf !== INIT && rf < event) to.linkReader(copy, mapped[rf]!);
      const dependsOn = fromDependsOn[event]!;
      toDependsOn[copy] = dependsOn === NONE ? NONE : mapped[dependsOn]!;
      toAddedMax[copy] = addedMax[event]!;
      toRevisitable[copy] = revisitable[event]!;
      toValueLow[copy] = valueLow[event]!;
      toValueHigh[copy] = valueHigh[event]!;
      toExpectedLow[copy] = expectedLow[event]!;
      toExpectedHigh[copy] = expectedHigh[event]!;
      toSize[copy] = size[event]!;
      toSpins[copy] = spins[event]!;
      toOperation[copy] = operation[event]!;
      toOperandLow[copy] = operandLow[event]!;
      toOperandHigh[copy] = operandHigh[event]!;
      // a kept event keeps its porf (what it depends on is kept), at the same positions
      toViewKnown[copy] = 0;
      if (fromViewKnown !== undefined && fromPorf !== undefined && fromViewKnown[event] === 1) {
        const row = copy * width;
        const source = event * fromWidth;
        for (let other = 0; other < fromWidth; other++) porf[row + other] = fromPorf[source + other]!;
        if (fromWidth < width) porf.fill(-1, row + fromWidth, row + width);
        toViewKnown[copy] = 1;
      }
    }
    to.count = count;
    for (let event = 0; event < from.count; event++) {
      const rf = from.rf[event]!;
      if (keep[event] !== 0 && rf !== INIT && rf > event) to.readsFrom(mapped[event]!, mapped[rf]!);
    }
    // co: the kept writes of each location in this graph's co order, each appended last
    for (let location = 0; location < locations; location++)
      for (let write = from.coFirst[location]!; write !== NONE; write = from.coNext[write]!)
        if (mapped[write]! !== NONE) to.placeAfter(mapped[write]!, to.coLast[location]!);
  }
}

/**
 * A graph's events as arrays, to rebuild it in another process (a worker: graph/task.ts): what
 * each event is and does, its rf and dependency, and each location's co order (coFirst, then
 * coNext); the rest (threads' event lists, readers, porf views) is derived again (Graph.restore).
 * A Graph is one too: copyInto reads either.
 */
export interface GraphSnapshot {
  count: number;
  thread: Uint16Array;
  kind: Uint8Array;
  role: Uint8Array;
  op: Uint8Array;
  location: Int32Array;
  rf: Int32Array;
  dependsOn: Int32Array;
  addedMax: Uint8Array;
  revisitable: Uint8Array;
  valueLow: Uint32Array;
  valueHigh: Uint32Array;
  expectedLow: Uint32Array;
  expectedHigh: Uint32Array;
  size: Uint32Array;
  spins: Uint8Array;
  operation: Uint8Array;
  operandLow: Uint32Array;
  operandHigh: Uint32Array;
  coFirst: Int32Array;
  coNext: Int32Array;
}

/** The graph's events as arrays (copies). */
export function snapshotOf(graph: Graph, locations: number): GraphSnapshot {
  const count = graph.count;
  return {
    count,
    thread: graph.thread.slice(0, count),
    kind: graph.kind.slice(0, count),
    role: graph.role.slice(0, count),
    op: graph.op.slice(0, count),
    location: graph.location.slice(0, count),
    rf: graph.rf.slice(0, count),
    dependsOn: graph.dependsOn.slice(0, count),
    addedMax: graph.addedMax.slice(0, count),
    revisitable: graph.revisitable.slice(0, count),
    valueLow: graph.valueLow.slice(0, count),
    valueHigh: graph.valueHigh.slice(0, count),
    expectedLow: graph.expectedLow.slice(0, count),
    expectedHigh: graph.expectedHigh.slice(0, count),
    size: graph.size.slice(0, count),
    spins: graph.spins.slice(0, count),
    operation: graph.operation.slice(0, count),
    operandLow: graph.operandLow.slice(0, count),
    operandHigh: graph.operandHigh.slice(0, count),
    coFirst: graph.coFirst.slice(0, locations),
    coNext: graph.coNext.slice(0, count),
  };
}

/**
 * A porf view: per thread, the last position in program order of the events that are
 * (po ∪ rf ∪ thread create ∪ join)*-before an event: a graph's porf row, read in place
 * (valid until that graph adds events; it may be asked about a copy of the graph's events).
 */
export class View {
  private rows = new Int32Array(0);
  /** the row read, or NONE (nothing but the event itself) */
  private row = NONE;
  private ownThread = 0;
  private ownIndex = 0;

  /** Sets the view to the events porf-before `event`, itself included; its own rf left out when `withoutOwnRf`. */
  of(graph: Graph, event: number, withoutOwnRf: boolean): this {
    this.ownThread = graph.thread[event]!;
    this.ownIndex = graph.index[event]!;
    // a read's own rf is its only porf predecessor besides its thread's previous event
    const from = withoutOwnRf && graph.isRead(event) && graph.rf[event] !== INIT ? graph.poBefore(event) : event;
    this.row = from === NONE ? NONE : graph.porfRow(from);
    this.rows = graph.porf;
    return this;
  }

  has(graph: Graph, event: number): boolean {
    const thread = graph.thread[event]!;
    if (thread === this.ownThread) return graph.index[event]! <= this.ownIndex;
    return this.row !== NONE && graph.index[event]! <= this.rows[this.row + thread]!;
  }
}
