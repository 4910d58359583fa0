// The events every graph explored below a graph keeps as they are, from the first: what the
// bound prunes by (strategy.ts: mayReachBound). Below a graph a read changes only when a
// write added later revisits it, or when the later write it reads goes; a revisit keeps every
// event added before the read. So the events up to the first read that may still change are
// a prefix of every graph below, and the preemptions they need a floor for all of them.
//
// A read may be revisited when it was read maximally and is still revisitable, unless no
// thread that could add the write can: a create of the thread numbering is revisited only by
// a create of a thread that does not have it porf-before, so a create of thread P stays when
// every other thread either never creates one (its start routine reaches no create: the
// runtime marks its start, compile/quiet-functions.ts) or descends from that create or a
// later one of P's (its steps, and its children's, have that create before them). Threads
// not in the graph yet are created by one of those, and so are the same.
import { Op } from '../../addon/ops.js';
import { type Graph, INIT } from './graph.js';

/** How many events, from the first, every graph explored below `graph` keeps as they are. */
export function stablePrefix(graph: Graph): number {
  for (let event = 0; event < graph.count; event++) {
    if (!graph.isRead(event)) continue;
    const rf = graph.rf[event]!;
    if (rf !== INIT && rf > event) return event;
    if (graph.revisitable[event] === 1 && graph.addedMax[event] === 1 && !(graph.op[event] === Op.THREAD_CREATE && createStays(graph, event))) return event;
  }
  return graph.count;
}

/** Whether no thread of `graph` but the creator can ever add a create that revisits create `create`. */
function createStays(graph: Graph, create: number): boolean {
  const creator = graph.thread[create]!;
  for (let thread = 0; thread < graph.threads; thread++)
    if (thread !== creator && graph.threadLength[thread]! > 0 && !neverCreatesUnseeing(graph, thread, creator, graph.index[create]!)) return false;
  return true;
}

/**
 * Whether `thread` never creates a thread, or descends from the create `creator` made at
 * position `index` or a later one (so everything it adds has that create before it).
 */
function neverCreatesUnseeing(graph: Graph, thread: number, creator: number, index: number): boolean {
  const first = graph.threadEvents[thread]![0]!;
  if (graph.op[first] !== Op.THREAD_START) return false;
  if (graph.valueLow[first] === 1) return true;
  for (let start = first; ; ) {
    const made = graph.dependsOn[start]!;
    const parent = graph.thread[made]!;
    if (parent === creator) return graph.index[made]! >= index;
    const parentStart = graph.threadEvents[parent]![0]!;
    if (graph.op[parentStart] !== Op.THREAD_START) return false;
    start = parentStart;
  }
}
