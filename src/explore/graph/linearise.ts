// A graph becomes a schedule: a topological order of po ∪ rf ∪ co ∪ fr ∪ create ∪ join
// (Kahn's algorithm, keeping the running thread while it can go on, else the lowest thread
// that can; after a yield, the others first, as the runtime's default does). Run natively in
// that order, SC memory gives every read the write the graph says it reads. No such order
// exists exactly when the graph is not SC-consistent (a cycle).
import { Op } from '../../addon/ops.js';
import { type Graph, NONE } from './graph.js';
import { grown, roomFor } from '../typed-arrays.js';

export class Lineariser {
  /** the schedule: per step, the thread to run, or a choice's value */
  decisions = new Uint16Array(64);
  /** per step, the event it replays */
  stepEvent = new Int32Array(64);
  private waiting = new Int32Array(64);
  private edgeFrom = new Int32Array(256);
  private edgeTo = new Int32Array(256);
  private firstEdge = new Int32Array(65);
  private successors = new Int32Array(256);
  private readonly nextIndex = new Uint32Array(1 << 16);

  /**
   * Orders the graph's events into `decisions`, one step each. Returns the number of steps, or
   * -1 when the graph is not consistent.
   */
  linearise(graph: Graph): number {
    const count = graph.count;
    this.reserve(count);
    const edges = graph.orderEdges(this.edgeFrom, this.edgeTo);
    // successors by source (counting sort), and what each event waits for
    this.firstEdge.fill(0, 0, count + 1);
    this.waiting.fill(0, 0, count);
    for (let i = 0; i < edges; i++) {
      this.firstEdge[this.edgeFrom[i]! + 1]!++;
      this.waiting[this.edgeTo[i]!]!++;
    }
    for (let event = 0; event < count; event++) this.firstEdge[event + 1]! += this.firstEdge[event]!;
    for (let i = 0; i < edges; i++) this.successors[this.firstEdge[this.edgeFrom[i]!]!++] = this.edgeTo[i]!;
    for (let event = count; event > 0; event--) this.firstEdge[event] = this.firstEdge[event - 1]!;
    this.firstEdge[0] = 0;

    this.nextIndex.fill(0, 0, graph.threads);
    // the newest event goes last when it can: its thread may go on with a choice (weft_choose),
    // which it makes with no scheduling point, so the run must not switch away from it before;
    // held back with the step its choices follow, which they follow at once (Kahn's keeps the thread)
    let newest = count - 1;
    while (newest > 0 && graph.isGluedChoice(newest)) newest--;
    let current = 0;
    let emittedNewest = false;
    for (let step = 0; step < count; step++) {
      const held = emittedNewest ? NONE : newest;
      const next = graph.eventAt(current, this.nextIndex[current]!);
      const yielded = step > 0 && graph.yieldedAt(this.stepEvent[step - 1]!) && !(next !== NONE && graph.isGluedChoice(next));
      let event = yielded ? NONE : this.readyIn(graph, current, held);
      for (let thread = 0; event === NONE && thread < graph.threads; thread++) {
        if (yielded && thread === current) continue;
        event = this.readyIn(graph, thread, held);
        if (event !== NONE) current = thread;
      }
      if (yielded && event === NONE) event = this.readyIn(graph, current, held);
      for (let thread = 0; event === NONE && thread < graph.threads; thread++) {
        event = this.readyIn(graph, thread, NONE);
        if (event !== NONE) current = thread;
      }
      if (event === NONE) return -1;
      if (event === newest) emittedNewest = true;
      this.nextIndex[current]!++;
      for (let i = this.firstEdge[event]!; i < this.firstEdge[event + 1]!; i++) this.waiting[this.successors[i]!]!--;
      this.stepEvent[step] = event;
      this.decisions[step] = graph.op[event] === Op.CHOOSE ? graph.valueLow[event]! : graph.thread[event]!;
    }
    return count;
  }

  /** The next event of `thread` if nothing it waits for is still out of the order, and it is not `held` back. */
  private readyIn(graph: Graph, thread: number, held: number): number {
    const event = graph.eventAt(thread, this.nextIndex[thread]!);
    return event !== NONE && event !== held && this.waiting[event] === 0 ? event : NONE;
  }

  private reserve(events: number): void {
    if (this.decisions.length < events) {
      const size = roomFor(this.decisions.length, events);
      this.decisions = grown(this.decisions, size);
      this.stepEvent = grown(this.stepEvent, size);
      this.waiting = grown(this.waiting, size);
      this.firstEdge = grown(this.firstEdge, size + 1);
    }
    if (this.edgeFrom.length < 4 * events) {
      const size = roomFor(this.edgeFrom.length, 4 * events);
      this.edgeFrom = grown(this.edgeFrom, size);
      this.edgeTo = grown(this.edgeTo, size);
      this.successors = grown(this.successors, size);
    }
  }
}
