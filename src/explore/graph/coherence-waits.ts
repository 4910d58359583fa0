// What a thread past the events a preemption search takes (preemptions.ts: within) must wait
// for by coherence alone. Its next step is fixed by what it did (its kept events are as they
// are in every graph below); when that step writes and never blocks (a store, an unlock, a
// read-modify-write, a post, a trylock), it is co-after every kept write at its location
// that is before it (porf), so every kept event there that is co-before or at the latest of
// those (a write), or reads one of them or the initial value (a read, or a read-modify-write,
// which sits right after what it read), runs before it. While one of those has not run, the
// thread could go on and does not: a switch away from it is a preemption in every schedule
// of every graph below, as for a lock it must wait for (preemptions.ts: waitsAbleToRun).
import { MAX_THREADS } from '../../addon/ops.js';
import { grown, roomFor } from '../typed-arrays.js';
import { type Graph, INIT, Kind, NONE, Role } from './graph.js';
import type { NextPast } from './preemptions.js';

/** No step known, or one that may block or only read: it waits for nothing by coherence. */
const NO_WAIT = -1;

export class CoherenceWaits {
  /** per thread past its kept events: the location of its next step, and the rank of the kept write there it follows (NO_WAIT: none) */
  private readonly location = new Int32Array(MAX_THREADS);
  private readonly limit = new Int32Array(MAX_THREADS).fill(NO_WAIT);
  /** per kept write at such a location, its place among the kept writes there in co (1, 2, …) */
  private coRank = new Int32Array(64);
  /**
   * per kept event at such a location, the rank at or after which the step waits for it: a
   * write's own; a read's or read-modify-write's, the rank of the write it reads (0: the
   * initial value)
   */
  private waitRank = new Int32Array(64);
  /** the kept events of each such location: first[location] .. first[location + 1] in `events` */
  private first = new Int32Array(17);
  private events = new Int32Array(64);
  private marked = new Uint8Array(16);
  private threads = 0;

  /**
   * Notes, for each thread past the first `kept[thread]` of its events, whether its next step
   * (in the graph, else as `nextPast` says) waits for kept events by coherence, and for which.
   */
  prepare(graph: Graph, kept: Int32Array, nextPast: NextPast): void {
    this.threads = graph.threads;
    const locations = graph.coLast.length;
    this.reserve(graph.count, locations);
    this.marked.fill(0, 0, locations);
    let waiting = false;
    for (let thread = 0; thread < graph.threads; thread++) {
      this.limit[thread] = NO_WAIT;
      const location = this.nextWriteAt(graph, kept, nextPast, thread);
      if (location === NONE) continue;
      this.location[thread] = location;
      this.limit[thread] = 0;
      this.marked[location] = 1;
      waiting = true;
    }
    if (!waiting) return;
    this.listKeptEvents(graph, kept, locations);
    for (let location = 0; location < locations; location++) if (this.marked[location] === 1) this.rank(graph, kept, location);
    for (let thread = 0; thread < graph.threads; thread++) if (this.limit[thread] !== NO_WAIT) this.limit[thread] = this.latestBefore(graph, kept, thread);
  }

  /** Whether `thread`, past its kept events, waits by coherence for a kept event that has not run (`counts`: per thread, the events run). */
  waits(graph: Graph, thread: number, counts: Int32Array): boolean {
    if (thread >= this.threads) return false;
    const limit = this.limit[thread]!;
    if (limit === NO_WAIT) return false;
    const location = this.location[thread]!;
    for (let at = this.first[location]!, end = this.first[location + 1]!; at < end; at++) {
      const event = this.events[at]!;
      if (this.waitRank[event]! <= limit && !graph.amongFirst(event, counts)) return true;
    }
    return false;
  }

  /** The location of `thread`'s next step past its kept events when it writes there and never blocks, else NONE. */
  private nextWriteAt(graph: Graph, kept: Int32Array, nextPast: NextPast, thread: number): number {
    const index = kept[thread]!;
    if (index === 0) return NONE;
    if (index >= graph.threadLength[thread]!) return neverBlocksAndWrites(nextPast.role[thread]!) ? nextPast.location[thread]! : NONE;
    const next = graph.threadEvents[thread]![index]!;
    // a thread waiting after a spinning turn goes on only once a write ends the wait
    if (graph.spinBefore(next) !== NONE || !neverBlocksAndWrites(graph.role[next]!)) return NONE;
    return graph.location[next]!;
  }

  /** Lists the kept events of each marked location (first, events). */
  private listKeptEvents(graph: Graph, kept: Int32Array, locations: number): void {
    const first = this.first;
    first.fill(0, 0, locations + 1);
    for (let thread = 0; thread < graph.threads; thread++)
      for (let index = 0; index < kept[thread]!; index++) {
        const location = graph.location[graph.threadEvents[thread]![index]!]!;
        if (location !== NONE && this.marked[location] === 1) first[location + 1]!++;
      }
    for (let location = 0; location < locations; location++) first[location + 1]! += first[location]!;
    for (let thread = 0; thread < graph.threads; thread++)
      for (let index = 0; index < kept[thread]!; index++) {
        const event = graph.threadEvents[thread]![index]!;
        const location = graph.location[event]!;
        if (location !== NONE && this.marked[location] === 1) this.events[first[location]!++] = event;
      }
    for (let location = locations; location > 0; location--) first[location] = first[location - 1]!;
    first[0] = 0;
  }

  /** The co ranks of `location`'s kept writes, then the wait ranks of its kept events. */
  private rank(graph: Graph, kept: Int32Array, location: number): void {
    let rank = 0;
    for (let write = graph.coFirst[location]!; write !== NONE; write = graph.coNext[write]!)
      if (graph.amongFirst(write, kept)) this.coRank[write] = ++rank;
    for (let at = this.first[location]!, end = this.first[location + 1]!; at < end; at++) {
      const event = this.events[at]!;
      if (graph.kind[event] === Kind.WRITE) {
        this.waitRank[event] = this.coRank[event]!;
        continue;
      }
      const rf = graph.rf[event]!;
      // a read of a write not kept (none is: kept events are closed under porf) would wait for nothing known
      this.waitRank[event] = rf === INIT ? 0 : graph.amongFirst(rf, kept) ? this.coRank[rf]! : Number.MAX_SAFE_INTEGER;
    }
  }

  /** The co rank of the latest kept write at `thread`'s next location before its last kept event (porf), 0 for none. */
  private latestBefore(graph: Graph, kept: Int32Array, thread: number): number {
    const row = graph.porfRow(graph.threadEvents[thread]![kept[thread]! - 1]!);
    const location = this.location[thread]!;
    let latest = 0;
    for (let at = this.first[location]!, end = this.first[location + 1]!; at < end; at++) {
      const event = this.events[at]!;
      const other = graph.thread[event]!;
      if (graph.isWrite(event) && other < graph.viewWidth && graph.index[event]! <= graph.porf[row + other]!) latest = Math.max(latest, this.coRank[event]!);
    }
    return latest;
  }

  private reserve(events: number, locations: number): void {
    if (this.coRank.length < events) {
      const size = roomFor(this.coRank.length, events);
      this.coRank = grown(this.coRank, size);
      this.waitRank = grown(this.waitRank, size);
      this.events = grown(this.events, size);
    }
    if (this.marked.length < locations) {
      this.marked = new Uint8Array(roomFor(this.marked.length, locations));
      this.first = new Int32Array(this.marked.length + 1);
    }
  }
}

/** A step that writes its location and is never one a thread waits at. */
function neverBlocksAndWrites(role: number): boolean {
  return role === Role.STORE || role === Role.UNLOCK || role === Role.UPDATE || role === Role.POST || role === Role.TRY;
}
