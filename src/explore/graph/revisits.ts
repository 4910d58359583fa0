// What an event may do instead of what the run did, in an SC graph (TruSt, POPL 2022, as
// GenMC's SCChecker and GenMCDriver compute it): the writes a read may read and the co slots a
// write may take (forward revisits), and the earlier reads a write may be read by (backward
// revisits), each allowed only when the graph it yields has this graph as its one parent
// (the maximality test). "Before" an event means porf-before (po ∪ rf ∪ create ∪ join), the
// happens-before of SC; a read's own rf is left out of its view, as GenMC's view(1) does.
import { type Graph, INIT, Kind, NONE, Role, View } from './graph.js';

/**
 * A trylock that found fewer units than it wanted and wrote the lock back as it was. Read by
 * an acquisition that would only wait there (a revisit deletes such a read: its thread tries
 * again later), it gives a graph reached where the acquisition is added after the attempt:
 * revisiting it from here ran that graph twice.
 */
function failedAttempt(graph: Graph, write: number): boolean {
  return graph.role[write] === Role.TRY && graph.units(graph.rf[write]!, graph.location[write]!) < graph.expectedLow[write]!;
}

export class Revisits {
  private readonly view = new View();
  /** porf of the revisiting write, while its revisits are computed */
  private readonly prefix = new View();

  /**
   * The writes `read` may read (INIT: the initial value), in co order into `out`: the co-latest
   * write before it and every write co-after that one. The last is the co-latest write.
   */
  coherentWrites(graph: Graph, read: number, out: Int32Array): number {
    const location = graph.location[read]!;
    this.view.of(graph, read, true);
    let start = graph.coLast[location]!;
    while (start !== NONE && start !== INIT && (start === read || !this.view.has(graph, start))) start = graph.coPrev[start]!;
    if (start === NONE) start = INIT;
    let count = 0;
    out[count++] = start;
    for (let write = graph.coAfter(start, location); write !== NONE; write = graph.coNext[write]!) if (write !== read) out[count++] = write;
    return count;
  }

  /**
   * The co slots a plain write `write` (not in co) may take, as the write to follow (INIT:
   * first), into `out`: after the co-latest write before it, or right before any later write
   * that is not a read-modify-write (never between one and the write it read). The last is co-last.
   */
  coherentPlacings(graph: Graph, write: number, out: Int32Array): number {
    const location = graph.location[write]!;
    this.view.of(graph, write, true);
    let start = graph.coLast[location]!;
    while (start !== NONE && start !== INIT && !this.view.has(graph, start)) start = graph.coPrev[start]!;
    if (start === NONE) start = INIT;
    let count = 0;
    for (let later = graph.coAfter(start, location); later !== NONE; later = graph.coNext[later]!)
      if (graph.kind[later] !== Kind.RMW) out[count++] = graph.coPrev[later]!;
    const last = graph.coLast[location]!;
    out[count++] = last === NONE ? INIT : last;
    return count;
  }

  /**
   * Another read-modify-write reading what `rmw` reads (atomicity broken: the graph is not
   * consistent, but `rmw`'s revisits still count), the earliest; NONE when there is none.
   */
  pendingRmw(graph: Graph, rmw: number): number {
    if (graph.kind[rmw] !== Kind.RMW) return NONE;
    const rf = graph.rf[rmw]!;
    // such a read-modify-write is a write co-after the one both read
    let earliest = NONE;
    for (let write = graph.coAfter(rf, graph.location[rmw]!); write !== NONE; write = graph.coNext[write]!)
      if (write !== rmw && graph.kind[write] === Kind.RMW && graph.rf[write] === rf && (earliest === NONE || write < earliest)) earliest = write;
    return earliest;
  }

  /**
   * The reads `write` backward-revisits, latest first, into `out` (their count returned):
   * reads of its location not before it, still revisitable, added reading the co-latest
   * write, whose revisit is a maximal extension (GenMC: getRevisitable,
   * filterCoherentRevisits, calcRevisits). The first one that is not maximal ends the list:
   * later ones delete more.
   */
  revisitsOf(graph: Graph, write: number, out: Int32Array): number {
    const location = graph.location[write]!;
    const prefix = this.prefix.of(graph, write, false);
    let previousLast = graph.coLast[location]!;
    if (previousLast === write) previousLast = graph.coPrev[write]!;
    // fast path: the co-latest other write is before `write`: only its readers can read `write` instead
    const onlyReadersOf = previousLast !== NONE && previousLast !== INIT && prefix.has(graph, previousLast) ? previousLast : NONE;
    let found = 0;
    if (onlyReadersOf !== NONE) {
      // its readers, latest first
      for (let read = graph.firstReader[onlyReadersOf]!; read !== NONE; read = graph.nextReader[read]!) {
        if (!this.mayBeRevisited(graph, read, write)) continue;
        let at = found++;
        for (; at > 0 && out[at - 1]! < read; at--) out[at] = out[at - 1]!;
        out[at] = read;
      }
    } else {
      for (let read = graph.lastAt[location]!; read !== NONE; read = graph.previousAt[read]!) if (this.mayBeRevisited(graph, read, write)) out[found++] = read;
    }
    const pending = this.pendingRmw(graph, write);
    const coLast = graph.coLast[location] === write;
    let count = 0;
    for (let i = 0; i < found; i++) {
      const read = out[i]!;
      if (pending !== NONE && read > pending) continue;
      if (!coLast && this.seesLaterWrite(graph, read, write)) continue;
      if (!this.maximal(graph, read, write)) break;
      out[count++] = read;
    }
    return count;
  }

  /**
   * Whether `read` (an event at `write`'s location) is a read `write` may revisit: not before
   * it, revisitable, added maximally; and not a spinning thread's next access that would still
   * wait reading it (that thread runs on only after the write that ends its wait, whichever
   * writes come between).
   */
  private mayBeRevisited(graph: Graph, read: number, write: number): boolean {
    if (read === write || !graph.isRead(read) || graph.revisitable[read] !== 1 || graph.addedMax[read] !== 1 || this.prefix.has(graph, read)) return false;
    if (failedAttempt(graph, write) && graph.role[read] === Role.LOCK && graph.blockedReading(read, write)) return false;
    return !graph.waitsAfterSpin(read, write);
  }

  /** Whether a write co-after `write`, or a read of one, is before `read` (it could not read `write` then). */
  private seesLaterWrite(graph: Graph, read: number, write: number): boolean {
    const view = this.view.of(graph, read, true);
    for (let later = graph.coNext[write]!; later !== NONE; later = graph.coNext[later]!) {
      // a read-modify-write read is its own write too: not before itself
      if (later !== read && view.has(graph, later)) return true;
      for (let reader = graph.firstReader[later]!; reader !== NONE; reader = graph.nextReader[reader]!)
        if (reader !== read && view.has(graph, reader)) return true;
    }
    return false;
  }

  /**
   * The maximality test (GenMC: isMaximalExtension): `write` may revisit `read` only if every
   * event the revisit deletes (added after `read`, not before `write`) and `read` itself were
   * added maximally — reading the co-latest write, placed co-last, not revisited by a deleted
   * write, a choice taking the run's own value — so that exactly one graph reaches the revisited one.
   */
  private maximal(graph: Graph, read: number, write: number): boolean {
    if (graph.kind[write] !== Kind.RMW) {
      const next = graph.coNext[write]!;
      if (next !== NONE && !this.kept(graph, next, read)) return false;
    }
    for (let event = read; event < graph.count; event++) {
      if (event !== read && this.kept(graph, event, read)) continue;
      const kind = graph.kind[event]!;
      // a choice taken other than as the run took it is no maximal extension either
      if (graph.addedMax[event] === 0) return false;
      if (kind === Kind.OTHER) continue;
      const location = graph.location[event]!;
      const base = kind === Kind.WRITE ? event : graph.rf[event]!;
      for (let later = graph.coAfter(base, location); later !== NONE; later = graph.coNext[later]!)
        if (later !== write && later !== read && this.kept(graph, later, read)) return false;
      const rf = graph.rf[event]!;
      if (kind !== Kind.WRITE && rf !== INIT && rf > event && !this.kept(graph, rf, read)) return false;
    }
    return true;
  }

  /** Whether a revisit of `read` by the write whose prefix is `this.prefix` keeps `event`. */
  private kept(graph: Graph, event: number, read: number): boolean {
    return event <= read || this.prefix.has(graph, event);
  }
}
