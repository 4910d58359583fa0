// The failing runs a frame's graph still holds as they ran (strategy.ts). A failing run ends
// at its failure, so the graphs below it are explored from a run that went on past it, and
// they keep its events: where such a graph's run stops at the same failure after exactly those
// events, in any order, it is that failing run again (the same events reading the same
// writes, the same thread failing in the same way: the harness is deterministic, and the
// accesses between those events are the same, ordered as they were), and it is not counted
// twice. A failing run is kept by how many events each thread ran (its events are the first
// of each thread, whatever their ids, which a new frame renumbers), and held while every one
// of them stays as it ran: an item that changes one, cuts one off, or leaves one out of a new
// frame (or makes a choice among them again) drops it. It is held for the items its run and
// those below it pushed, not for older ones of the frame (each item's search depends on its
// own graph alone, wherever it is explored: a worker given one must count as the search
// would in place).
import { grown } from '../typed-arrays.js';
import { type Graph, NONE } from './graph.js';

/** Per failing run: the frame's first item position it is held for, the thread that failed, the run's outcome, its threads, then how many events each ran. */
const HEADER = 4;
const FROM = 0;
const THREAD = 1;
const OUTCOME = 2;
const THREADS = 3;

export class FailingPrefixes {
  private entries = new Int32Array(64);
  private length = 0;

  clear(): void {
    this.length = 0;
  }

  /**
   * A failing run of the first `ran[t]` events of each of `threads` threads, `thread` failing
   * with `outcome`, held for the items from position `from` of the frame on (once).
   */
  add(thread: number, outcome: number, ran: ArrayLike<number>, threads: number, from: number): void {
    if (this.holds(thread, outcome, ran, threads)) return;
    if (this.length + HEADER + threads > this.entries.length) this.entries = grown(this.entries, (this.length + HEADER + threads) * 2);
    const at = this.length;
    this.entries[at + FROM] = from;
    this.entries[at + THREAD] = thread;
    this.entries[at + OUTCOME] = outcome;
    this.entries[at + THREADS] = threads;
    for (let t = 0; t < threads; t++) this.entries[at + HEADER + t] = ran[t]!;
    this.length += HEADER + threads;
  }

  /** Whether a failing run of the first `ran[t]` events of each thread, `thread` failing with `outcome`, is held. */
  holds(thread: number, outcome: number, ran: ArrayLike<number>, threads: number): boolean {
    for (let at = 0; at < this.length; at += HEADER + this.entries[at + THREADS]!) {
      if (this.entries[at + THREAD] !== thread || this.entries[at + OUTCOME] !== outcome) continue;
      const held = this.entries[at + THREADS]!;
      let same = true;
      for (let t = 0; t < Math.max(held, threads) && same; t++) same = (t < held ? this.entries[at + HEADER + t]! : 0) === (t < threads ? ran[t]! : 0);
      if (same) return true;
    }
    return false;
  }

  /**
   * Keeps the failing runs of which `graph` (an item just changed it) still holds every event:
   * none cut off, and not `changed` (NONE: no event changed).
   */
  keepHeld(graph: Graph, changed: number): void {
    if (this.length === 0) return;
    this.keep((at) => {
      if (changed !== NONE && this.ranOf(at, graph.thread[changed]!) > graph.index[changed]!) return false;
      for (let t = 0; t < this.entries[at + THREADS]!; t++) if (this.ranOf(at, t) > (t < graph.threads ? graph.threadLength[t]! : 0)) return false;
      return true;
    });
  }

  /**
   * `from`'s failing runs whose events `from`'s graph `graph` all keeps in a new frame
   * (keep[event] === 1: as it is), `changed` not among them.
   */
  copyKept(from: FailingPrefixes, graph: Graph, keep: Uint8Array, changed: number): void {
    this.length = 0;
    if (from.length === 0) return;
    if (this.entries.length < from.length) this.entries = new Int32Array(from.entries.length);
    this.entries.set(from.entries.subarray(0, from.length));
    this.length = from.length;
    this.keep((at) => {
      if (this.ranOf(at, graph.thread[changed]!) > graph.index[changed]!) return false;
      for (let t = 0; t < this.entries[at + THREADS]!; t++)
        for (let index = 0; index < this.ranOf(at, t); index++) if (keep[graph.threadEvents[t]![index]!] !== 1) return false;
      this.entries[at + FROM] = 0;
      return true;
    });
  }

  /** Drops the failing runs held for items pushed after position `position` only: the frame's item there is taken. */
  takeItem(position: number): void {
    if (this.length === 0) return;
    this.keep((at) => this.entries[at + FROM]! <= position);
  }

  /** The frame's item at `position` is gone (given away): the failing runs held from past it are held from one lower. */
  itemRemoved(position: number): void {
    for (let at = 0; at < this.length; at += HEADER + this.entries[at + THREADS]!) if (this.entries[at + FROM]! > position) this.entries[at + FROM]!--;
  }

  /** The failing runs held for the item at `position`, as plain numbers, for a worker given it as its first (GraphTask). */
  listFor(position: number): number[] {
    const list: number[] = [];
    for (let at = 0; at < this.length; at += HEADER + this.entries[at + THREADS]!) {
      if (this.entries[at + FROM]! > position) continue;
      list.push(0, ...this.entries.subarray(at + 1, at + HEADER + this.entries[at + THREADS]!));
    }
    return list;
  }

  restore(list: readonly number[]): void {
    if (this.entries.length < list.length) this.entries = new Int32Array(list.length * 2);
    this.entries.set(list);
    this.length = list.length;
  }

  private ranOf(at: number, thread: number): number {
    return thread < this.entries[at + THREADS]! ? this.entries[at + HEADER + thread]! : 0;
  }

  /** Keeps the entries `held` says so of, in order. */
  private keep(held: (at: number) => boolean): void {
    let kept = 0;
    for (let at = 0; at < this.length; ) {
      const size = HEADER + this.entries[at + THREADS]!;
      if (held(at)) {
        this.entries.copyWithin(kept, at, at + size);
        kept += size;
      }
      at += size;
    }
    this.length = kept;
  }
}
