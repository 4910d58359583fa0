// The fewest preemptions of an execution graph (Marmanis, Kokologiannakis, Vafeiadis, TACAS
// 2023): the least, over the orders of its events that respect po, rf, co, fr, create and join
// (the schedules that run it), of the switches away from a thread whose next event is in the
// graph and could run there — as the runtime counts them: an acquisition with fewer units left
// than it takes (a held mutex, a semaphore at 0, a write lock while anyone holds the lock), a
// barrier leave before its round's last arrival, a join of a running thread, a once call
// while the routine another call claimed has not returned, or a thread whose spinning turn
// ended before the write that ends its wait (Graph.spinWaker) cannot run, anything else can. Right after a thread's yield the cost is the
// other way round (strategy.ts: preemptionCharge): a switch is free, and the thread going on
// costs one when another thread could run.
// A thread past the events searched (a graph's kept events: stable-prefix.ts) counts as unable
// to run, so those events never need more than a graph that holds them: what pruning by a
// bound relies on. Unless its next event is known (in the graph, or NextPast) and must wait
// for a searched event that has not run, though it could run (waitsAbleToRun, a lock; or
// coherence-waits.ts, a write): then it stands where it is, able to run, in every such graph.
// And right after a yield, the thread going on is charged only when no thread may run events
// past those searched first (a schedule of such a graph could, and switch back once that one
// blocks or ends). A lock that a
// deadlocked run left waiting at the end (strategy.ts: addWaitingLocks) never runs, but it is
// its thread's next event. A run's own graph is judged with how the run left its threads
// (RunEnd): a failure stopped the others where they were, able to go on, and its event runs
// last. A run that went on past its failures is no execution: a schedule of its graph ends at
// a failing event, whatever the others have not run yet (a real execution whose threads did
// less). The schedule found is kept (path), to run it.
//
// Depth-first over prefix states (how many events of each thread have run, and which thread
// ran last), the running thread first, keeping per state the fewest preemptions it was reached
// with (exact keys: a collision could hide an order) and cutting orders that cannot beat the
// best one found or the limit.
import { MAX_THREADS, Op } from '../../addon/ops.js';
import { preemptionCharge } from '../strategy.js';
import { grown, roomFor } from '../typed-arrays.js';
import { type Graph, INIT, Kind, NONE, Role } from './graph.js';
import { CoherenceWaits } from './coherence-waits.js';
import { ReachedStates } from './reached-states.js';
import { UnsupportedHarnessError } from '../unsupported.js';

/** prefix states remembered in one search, as table entries (ReachedStates: 64 MB at most): a graph that needs more is refused, never guessed */
const STATE_ENTRIES_LIMIT = 1 << 24;

/** What a thread needs to go on past its events in a run's graph. */
export const Next = {
  /** nothing: it ended, or waits for what the graph never holds */
  NEVER: 0,
  /** nothing it waits for */
  NOW: 1,
  /** `needed` units of lock `at` (a mutex, spin lock, semaphore or read-write lock), or `needed` arrivals at barrier `at` */
  UNITS: 2,
  /** event `at` (the end of the thread it joins) */
  AFTER: 3,
} as const;

/** How a run left its threads: how many of its events each ran, what it needed to go on past them, and the event the run failed in. */
export class RunEnd {
  /** a run that failed may stop before events of the graph it replayed */
  readonly ran = new Int32Array(MAX_THREADS);
  readonly next = new Uint8Array(MAX_THREADS);
  readonly at = new Int32Array(MAX_THREADS);
  readonly needed = new Int32Array(MAX_THREADS);
  /** per thread, the event it failed at (NONE: it did not): a schedule ends there */
  readonly failsAt = new Int32Array(MAX_THREADS).fill(NONE);
  /** per thread, an event that must have run for its failure to happen (a race's other access follows it), or NONE */
  readonly needs = new Int32Array(MAX_THREADS).fill(NONE);
  /**
   * the run went on past its failures (RunFlags.PARK_FAILING): a schedule ends at a failing
   * event whatever the others have not run yet (a real execution whose threads did less);
   * else the run is one, and its failing event runs last
   */
  pastFailures = false;
}

/**
 * Per thread, the role and location of its next event past a graph, and the units it takes
 * (an acquisition), where the graph an item changed shows it (strategy.ts: noteNextPast);
 * location NONE where not known.
 */
export class NextPast {
  readonly role = new Uint8Array(MAX_THREADS);
  readonly location = new Int32Array(MAX_THREADS).fill(NONE);
  readonly units = new Int32Array(MAX_THREADS);
}

export class GraphPreemptions {
  /**
   * per event, what must run before it in other threads, as a range of `needThread` and
   * `needCount`: that thread must have run that many events (its own thread's are program order)
   */
  private firstPredecessor = new Int32Array(65);
  private needThread = new Int32Array(256);
  private needCount = new Int32Array(256);
  private edgeFrom = new Int32Array(256);
  private edgeTo = new Int32Array(256);
  /** per thread: the events that run (a waiting lock at the end does not), and how many have run */
  private readonly length = new Int32Array(MAX_THREADS);
  private readonly counts = new Int32Array(MAX_THREADS);
  private readonly reached = new ReachedStates(STATE_ENTRIES_LIMIT, tooManyStates);
  /** the search's frames: the thread that moved into the state, its counts key (ReachedStates), the next candidate, the cost, and whether the mover could go on */
  private mover = new Int32Array(64);
  private countsKey = new Float64Array(64);
  private tried = new Int32Array(64);
  private cost = new Int32Array(64);
  private moverCanRun = new Uint8Array(64);
  /** per frame: 1 when the mover's event was a yield and another thread could run (then the mover going on costs one) */
  private othersCanRun = new Uint8Array(64);
  /** per frame: 1 when the mover's event was a yield (then a switch is free) */
  private moverYielded = new Uint8Array(64);
  /** per frame: 1 when the mover's next event is a choice made right after its event (weft_choose: no scheduling point between, so it goes next, for free) */
  private moverChoosesNext = new Uint8Array(64);
  /** per location, the units its acquisitions took less those its unlocks and posts gave (a mutex: held when 1) */
  private held = new Int32Array(16);
  /** per location, its events in the search that have not run yet, and its plain writes among them all */
  private pendingAt = new Int32Array(16);
  private plainWritesAt = new Int32Array(16);
  /** per location, the newest of its events the search takes (NONE: none) */
  private lastKeptAt = new Int32Array(16);
  /** per once control, the call the search takes that claimed its routine (NONE: none) */
  private claimAt = new Int32Array(16);
  /** within: per thread, what its next event past the graph is, where known (NextPast) */
  private nextPast: NextPast | undefined;
  private threads = 0;
  /** per thread, how many of its first events the search takes */
  private readonly kept = new Int32Array(MAX_THREADS);
  /** within: what a thread past its kept events waits for by coherence */
  private readonly coherence = new CoherenceWaits();
  /** searched creates of threads the graph holds no event of (they may run once created) */
  private createsOfUnseen = new Int32Array(16);
  private unseenCreated = 0;
  private end: RunEnd | undefined;
  /** fewestOfRun: the threads of the schedule found, a step each (as many as pathLength) */
  path = new Int32Array(64);
  pathLength = 0;

  /**
   * Whether the first `kept[thread]` events of each thread of `graph` (closed under porf) have
   * a schedule with at most `limit` preemptions: of the graph they make alone, where nothing
   * else orders them (a write placed co-before one of them), so a floor for every graph that
   * holds them as they are (stable-prefix.ts); a thread past them does what its next event in
   * the graph, or `nextPast` past the graph, says, where known. The search stops at the first
   * such schedule.
   */
  within(graph: Graph, limit: number, kept: Int32Array, nextPast: NextPast): boolean {
    this.end = undefined;
    this.nextPast = nextPast;
    for (let thread = 0; thread < graph.threads; thread++) this.kept[thread] = kept[thread]!;
    this.coherence.prepare(graph, this.kept, nextPast);
    return this.search(graph, limit, limit + 1, limit) <= limit;
  }

  /**
   * The fewest preemptions of the schedules of a run's whole graph that leave its threads as
   * `end` says, when it is `limit`; limit + 1 when it is more; below `limit`, the preemptions
   * of the first schedule found with fewer (all a bound's iteration needs to know: such a graph
   * was counted before). `achieved`: what some schedule of them needs (the search looks for fewer).
   */
  fewestOfRun(graph: Graph, limit: number, end: RunEnd, achieved = limit + 1): number {
    this.end = end;
    for (let thread = 0; thread < graph.threads; thread++) this.kept[thread] = graph.threadLength[thread]!;
    return this.search(graph, limit, achieved, limit - 1);
  }

  /** The fewest preemptions up to `limit` (else limit + 1), or the first found at most `enough`. */
  private search(graph: Graph, limit: number, achieved: number, enough: number): number {
    this.prepare(graph);
    const threads = this.threads;
    let remaining = 0;
    for (let thread = 0; thread < threads; thread++) remaining += this.length[thread]!;
    this.reached.clear(this.length, threads);
    let best = Math.min(limit + 1, achieved);
    let depth = 0;
    this.mover[0] = 0;
    this.countsKey[0] = 0;
    this.cost[0] = 0;
    this.tried[0] = -1;
    this.pathLength = 0;
    while (depth >= 0) {
      const last = this.mover[depth]!;
      if (this.tried[depth] === -1) {
        if (remaining === 0 || (depth > 0 && this.failedHere(graph, last))) {
          best = this.cost[depth]!;
          if (this.end !== undefined) this.keepPath(depth);
          if (best <= enough) return best;
          remaining++;
          depth = this.pop(graph, depth);
          continue;
        }
        this.tried[depth] = 0;
        this.moverCanRun[depth] = this.canRun(graph, last) ? 1 : 0;
        const yielded = depth > 0 && graph.yieldedAt(graph.threadEvents[last]![this.counts[last]! - 1]!);
        this.moverYielded[depth] = yielded ? 1 : 0;
        this.othersCanRun[depth] = yielded && this.anotherCanRun(graph, last) && !this.anotherRunsElsewhere(graph, last) ? 1 : 0;
        const next = depth > 0 && this.counts[last]! < this.length[last]! ? graph.threadEvents[last]![this.counts[last]!]! : NONE;
        this.moverChoosesNext[depth] = next !== NONE && graph.isGluedChoice(next) ? 1 : 0;
      }
      const candidate = this.tried[depth]!++;
      if (candidate >= threads) {
        remaining++;
        depth = this.pop(graph, depth);
        continue;
      }
      // the running thread first, then the others in id order
      const thread = candidate === 0 ? last : candidate - 1 < last ? candidate - 1 : candidate;
      if (!this.ready(graph, thread, remaining)) continue;
      if (this.moverChoosesNext[depth] === 1 && thread !== last) continue;
      const charge = preemptionCharge(thread !== last, this.moverYielded[depth] === 1, this.moverCanRun[depth] === 1, this.othersCanRun[depth] === 1);
      const cost = this.cost[depth]! + (this.moverChoosesNext[depth] === 1 ? 0 : charge);
      if (cost >= best) continue;
      this.step(graph, thread);
      const countsKey = this.countsKey[depth]! + this.reached.termOf(thread);
      // a state reached before at no greater cost has nothing new to offer
      if (!this.reached.lower(countsKey, this.counts, thread, cost)) {
        this.unstep(graph, thread);
        continue;
      }
      if (++depth === this.mover.length) this.growStack();
      remaining--;
      this.mover[depth] = thread;
      this.countsKey[depth] = countsKey;
      this.cost[depth] = cost;
      this.tried[depth] = -1;
    }
    return best;
  }

  /** Leaves the state at `depth` (undoing the move into it); returns the depth below. */
  private pop(graph: Graph, depth: number): number {
    if (depth > 0) this.unstep(graph, this.mover[depth]!);
    return depth - 1;
  }

  /** Per event its predecessors, per thread the events that run; counts zeroed, no mutex held. */
  private prepare(graph: Graph): void {
    const count = graph.count;
    this.clearLocations(graph);
    this.unseenCreated = 0;
    this.threads = graph.threads;
    for (let thread = 0; thread < graph.threads; thread++) {
      const length = Math.min(this.kept[thread]!, graph.threadLength[thread]!);
      const last = length === 0 ? NONE : graph.threadEvents[thread]![length - 1]!;
      this.length[thread] = last !== NONE && graph.waitsAtEnd(last) ? length - 1 : length;
      if (this.end !== undefined && this.end.ran[thread]! < this.length[thread]!) this.length[thread] = this.end.ran[thread]!;
      this.counts[thread] = 0;
      for (let index = 0; index < length; index++) {
        const event = graph.threadEvents[thread]![index]!;
        if (graph.op[event] === Op.THREAD_CREATE) this.noteCreate(graph, event);
        const location = graph.location[event]!;
        if (location === NONE) continue;
        if (event > this.lastKeptAt[location]!) this.lastKeptAt[location] = event;
        if (graph.isOnceClaim(event)) this.claimAt[location] = event;
        // the events that run (not a lock that waits at the end, nor past where a run stopped)
        if (index >= this.length[thread]!) continue;
        this.pendingAt[location]!++;
        if (graph.kind[event] === Kind.WRITE) this.plainWritesAt[location]!++;
      }
    }
    if (this.edgeFrom.length < 4 * count) {
      const size = roomFor(this.edgeFrom.length, 4 * count);
      this.edgeFrom = grown(this.edgeFrom, size);
      this.edgeTo = grown(this.edgeTo, size);
      this.needThread = grown(this.needThread, size);
      this.needCount = grown(this.needCount, size);
    }
    if (this.firstPredecessor.length < count + 1) this.firstPredecessor = grown(this.firstPredecessor, roomFor(this.firstPredecessor.length, count + 1));
    const edges = graph.orderEdges(this.edgeFrom, this.edgeTo, this.kept);
    this.firstPredecessor.fill(0, 0, count + 1);
    for (let i = 0; i < edges; i++) if (!sameThread(graph, this.edgeFrom[i]!, this.edgeTo[i]!)) this.firstPredecessor[this.edgeTo[i]! + 1]!++;
    for (let event = 0; event < count; event++) this.firstPredecessor[event + 1]! += this.firstPredecessor[event]!;
    for (let i = 0; i < edges; i++) {
      const from = this.edgeFrom[i]!;
      const to = this.edgeTo[i]!;
      if (sameThread(graph, from, to)) continue;
      const at = this.firstPredecessor[to]!++;
      this.needThread[at] = graph.thread[from]!;
      this.needCount[at] = graph.index[from]! + 1;
    }
    for (let event = count; event > 0; event--) this.firstPredecessor[event] = this.firstPredecessor[event - 1]!;
    this.firstPredecessor[0] = 0;
  }

  /** Notes a searched create of a thread the graph holds no event of. */
  private noteCreate(graph: Graph, create: number): void {
    const created = graph.valueLow[create]!;
    if (created < graph.threads && graph.threadLength[created]! > 0) return;
    if (this.unseenCreated === this.createsOfUnseen.length) this.createsOfUnseen = grown(this.createsOfUnseen, this.unseenCreated * 2);
    this.createsOfUnseen[this.unseenCreated++] = create;
  }

  private clearLocations(graph: Graph): void {
    const locations = graph.coLast.length;
    if (this.held.length < locations) {
      this.held = new Int32Array(locations);
      this.pendingAt = new Int32Array(locations);
      this.plainWritesAt = new Int32Array(locations);
      this.lastKeptAt = new Int32Array(locations);
      this.claimAt = new Int32Array(locations);
    } else {
      this.held.fill(0, 0, locations);
      this.pendingAt.fill(0, 0, locations);
      this.plainWritesAt.fill(0, 0, locations);
    }
    this.lastKeptAt.fill(NONE, 0, locations);
    this.claimAt.fill(NONE, 0, locations);
  }

  private ran(graph: Graph, event: number): boolean {
    return graph.amongFirst(event, this.counts);
  }

  /** Whether `thread` just ran the event it failed at, after what its failure needs: the schedule ends there. */
  private failedHere(graph: Graph, thread: number): boolean {
    const end = this.end;
    if (end === undefined || end.failsAt[thread] !== graph.threadEvents[thread]![this.counts[thread]! - 1]) return false;
    const needs = end.needs[thread]!;
    return needs === NONE || this.ran(graph, needs);
  }

  /** Keeps the movers into the states up to `depth`: the schedule found. */
  private keepPath(depth: number): void {
    if (this.path.length < depth) this.path = grown(this.path, roomFor(this.path.length, depth));
    this.path.set(this.mover.subarray(1, depth + 1));
    this.pathLength = depth;
  }

  /** Whether `thread`'s next event may go next: it runs, what must precede it has run, and a run's failing event goes last (`remaining`: events not run yet). */
  private ready(graph: Graph, thread: number, remaining: number): boolean {
    if (this.counts[thread]! >= this.length[thread]!) return false;
    const event = graph.threadEvents[thread]![this.counts[thread]!]!;
    const end = this.end;
    if (end !== undefined && !end.pastFailures && event === end.failsAt[thread] && remaining > 1) return false;
    const counts = this.counts;
    for (let i = this.firstPredecessor[event]!, last = this.firstPredecessor[event + 1]!; i < last; i++) if (counts[this.needThread[i]!]! < this.needCount[i]!) return false;
    return true;
  }

  /** Whether `thread` could go on in the current state: a switch away from it is a preemption. */
  private canRun(graph: Graph, thread: number): boolean {
    const index = this.counts[thread]!;
    if (index >= graph.threadLength[thread]!) {
      if (this.end !== undefined) return this.goesOn(graph, thread, this.end);
      const nextPast = this.nextPast!;
      return this.waitsAbleToRun(graph, nextPast.role[thread]!, nextPast.location[thread]!, nextPast.units[thread]!) || this.coherence.waits(graph, thread, this.counts);
    }
    const event = graph.threadEvents[thread]![index]!;
    // past the kept events: where it is, or where it is added again (maximally), it is co-after every kept event at its location only when added after them
    if (index >= this.kept[thread]!) {
      const location = graph.location[event]!;
      if (graph.spinBefore(event) !== NONE) return false;
      return (location !== NONE && event > this.lastKeptAt[location]! && this.waitsAbleToRun(graph, graph.role[event]!, location, graph.expectedLow[event]!)) || this.coherence.waits(graph, thread, this.counts);
    }
    // a spinning thread waits for a write to what its turn read
    const spin = graph.spinBefore(event);
    if (spin !== NONE) {
      const waker = graph.spinWaker(spin);
      return waker !== NONE && graph.amongFirst(waker, this.kept) && this.ran(graph, waker);
    }
    const dependsOn = graph.dependsOn[event]!;
    if (dependsOn !== NONE && (graph.op[event] === Op.THREAD_JOIN || index === 0)) return this.ran(graph, dependsOn);
    const role = graph.role[event]!;
    if (role === Role.ONCE) return this.onceMayRun(graph, graph.location[event]!);
    return (role !== Role.LOCK && role !== Role.LEAVE) || this.unitsLeft(graph, graph.location[event]!) >= graph.expectedLow[event]!;
  }

  /**
   * Whether a thread whose next event, past the events searched, has `role` at `location`
   * (an acquisition: taking `units`) could take it now, though it cannot go on yet: then a switch away from it is a preemption
   * in every schedule of every graph below, which holds the searched events as they are.
   * Such an event is co-after each of their events at its location, so it waits while one of
   * those has not run: an acquisition, which reads a free lock (a lock they read was taken by
   * them; it can take its units when they are left), or a read-modify-write that always writes
   * where they all do (each reads the write co-before it, back to the initial value).
   */
  private waitsAbleToRun(graph: Graph, role: number, location: number, units: number): boolean {
    if (location === NONE || this.pendingAt[location] === 0) return false;
    if (role === Role.LOCK) return this.unitsLeft(graph, location) >= units;
    return (role === Role.UPDATE || role === Role.POST || role === Role.TRY) && this.plainWritesAt[location] === 0;
  }

  /**
   * Whether a thread other than `thread` may run steps the search does not hold right now (a
   * graph below, past its kept events): a schedule of that graph may run them after `thread`
   * yields and before it goes on, with a free switch back once that thread blocks or ends,
   * so `thread` going on costs nothing there. Not a thread with searched events still to run
   * (it runs those first), nor one that ended, waits at the end, or must wait for a searched
   * event (canRun: able to run, but not before that event); and a thread created by a create
   * that has run, of which the graph holds no event. A run's own graph has no such steps.
   */
  private anotherRunsElsewhere(graph: Graph, thread: number): boolean {
    if (this.end !== undefined) return false;
    for (let other = 0; other < this.threads; other++) {
      if (other === thread || this.counts[other]! < this.length[other]!) continue;
      const length = graph.threadLength[other]!;
      const ended = this.counts[other] === length && length > 0 && endsThread(graph.op[graph.threadEvents[other]![length - 1]!]!);
      if (ended || this.length[other]! < Math.min(this.kept[other]!, length) || this.canRun(graph, other)) continue;
      return true;
    }
    for (let at = 0; at < this.unseenCreated; at++) if (this.ran(graph, this.createsOfUnseen[at]!)) return true;
    return false;
  }

  /** Whether a thread other than `thread` could go on in the current state. */
  private anotherCanRun(graph: Graph, thread: number): boolean {
    for (let other = 0; other < this.threads; other++) if (other !== thread && this.canRun(graph, other)) return true;
    return false;
  }

  /** Whether `thread`, past its events in a run's graph, could go on in the current state. */
  private goesOn(graph: Graph, thread: number, end: RunEnd): boolean {
    switch (end.next[thread]) {
      case Next.NOW:
        return true;
      case Next.UNITS:
        return this.unitsLeft(graph, end.at[thread]!) >= end.needed[thread]!;
      case Next.AFTER:
        return this.ran(graph, end.at[thread]!);
      default:
        return false;
    }
  }

  /** Whether a once call on `location` may run in the current state: unless its claim ran and the claim's routine has not returned. */
  private onceMayRun(graph: Graph, location: number): boolean {
    const claim = this.claimAt[location]!;
    if (claim === NONE || !this.ran(graph, claim)) return true;
    const end = graph.routineEnd(claim);
    return end !== NONE && this.ran(graph, end);
  }

  /** The units a lock has left in the current state (a barrier's: its arrivals so far). */
  private unitsLeft(graph: Graph, location: number): number {
    return graph.units(INIT, location) - this.held[location]!;
  }

  /** Runs `thread`'s next event (an acquisition, unlock or post changes the units its lock has taken). */
  private step(graph: Graph, thread: number): void {
    const event = graph.threadEvents[thread]![this.counts[thread]!++]!;
    const location = graph.location[event]!;
    if (location === NONE) return;
    this.pendingAt[location]!--;
    const taken = unitsTaken(graph, event);
    if (taken !== 0) this.held[location]! += taken;
  }

  /** Takes back `thread`'s last event run. */
  private unstep(graph: Graph, thread: number): void {
    const event = graph.threadEvents[thread]![--this.counts[thread]!]!;
    const location = graph.location[event]!;
    if (location === NONE) return;
    this.pendingAt[location]!++;
    const taken = unitsTaken(graph, event);
    if (taken !== 0) this.held[location]! -= taken;
  }

  private growStack(): void {
    const size = this.mover.length * 2;
    this.mover = grown(this.mover, size);
    this.countsKey = grown(this.countsKey, size);
    this.tried = grown(this.tried, size);
    this.cost = grown(this.cost, size);
    this.moverCanRun = grown(this.moverCanRun, size);
    this.moverYielded = grown(this.moverYielded, size);
    this.moverChoosesNext = grown(this.moverChoosesNext, size);
    this.othersCanRun = grown(this.othersCanRun, size);
  }
}

/** Whether `op` is its thread's last step. */
function endsThread(op: number): boolean {
  return op === Op.THREAD_EXIT || op === Op.MAIN_RETURN || op === Op.PROCESS_EXIT;
}

/** Whether two events are of one thread (program order runs them in order). */
function sameThread(graph: Graph, first: number, second: number): boolean {
  return graph.thread[first] === graph.thread[second];
}

/**
 * The units of its lock an event takes (less than none: gives back), from what it writes: a
 * read-modify-write of the lock (an acquisition, attempt or post) what it read less what it
 * left, an unlock every unit it writes (over a held lock), any other event none.
 */
function unitsTaken(graph: Graph, event: number): number {
  const role = graph.role[event]!;
  if (role === Role.UNLOCK) return -graph.valueLow[event]!;
  if (role !== Role.LOCK && role !== Role.TRY && role !== Role.POST) return 0;
  return graph.units(graph.rf[event]!, graph.location[event]!) - graph.valueLow[event]!;
}

function tooManyStates(states: number): UnsupportedHarnessError {
  return new UnsupportedHarnessError('graph', `bounding a graph whose schedules pass ${states} prefix states; use strategy optimal or an unbounded search`);
}
