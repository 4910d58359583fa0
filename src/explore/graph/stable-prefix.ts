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
//
// Past that prefix, an event not added maximally (a read given an older write, a write
// placed co-before the latest, a choice's other value) is kept too, with every event before
// it (porf): a revisit that would delete it is no maximal extension (revisits.ts: maximal),
// so no revisit below deletes it. Nor one of the events before it, p, nor changes what p
// reads: that revisit would delete or change what comes after p and is not before its
// write, and so the event too, unless the event was added before p; then a read q on the
// way from p to it reads a write w added after q, with q < p ≤ w in the order they were
// added (po, create and join follow that order), and the revisit of q by w that made it
// kept p only as a step before w (porf), never revisited again (strategy.ts: revisit).
// And the write a read added before it reads, with every event before that write: a revisit
// may delete or change the read only while it keeps the write (revisits.ts: maximal, a
// deleted read's later write must stay), and keeps the read only with the write before it.
import { Op } from '../../addon/ops.js';
import { type Graph, INIT, NONE } from './graph.js';

/** How many events, from the first, every graph explored below `graph` keeps as they are. */
function stablePrefix(graph: Graph): number {
  for (let event = 0; event < graph.count; event++) {
    if (!graph.isRead(event)) continue;
    const rf = graph.rf[event]!;
    if (rf !== INIT && rf > event) return event;
    if (graph.revisitable[event] === 1 && graph.addedMax[event] === 1 && !(graph.op[event] === Op.THREAD_CREATE && createStays(graph, event))) return event;
  }
  return graph.count;
}

/**
 * Per thread into `kept`, how many of its first events every graph explored below `graph`
 * keeps as they are: the stable prefix, and after it the events not added maximally and the
 * writes read by reads added before them, with every event before those. `stack`: room for
 * the events to visit (3 × the graph's events: each pushes at most two once kept).
 */
export function keptLengths(graph: Graph, kept: Int32Array, stack: Int32Array): void {
  const stable = stablePrefix(graph);
  keepPrefix(graph, stable, kept);
  let depth = 0;
  for (let event = stable; event < graph.count; event++) {
    if (graph.addedMax[event] === 0) stack[depth++] = event;
    else if (graph.isRead(event) && graph.rf[event]! > event) stack[depth++] = graph.rf[event]!;
    else continue;
    while (depth > 0) {
      const wanted = stack[--depth]!;
      const thread = graph.thread[wanted]!;
      for (let index = kept[thread]!; index <= graph.index[wanted]!; index = ++kept[thread]!) {
        const before = graph.threadEvents[thread]![index]!;
        const rf = graph.isRead(before) ? graph.rf[before]! : INIT;
        if (rf !== INIT) stack[depth++] = rf;
        if (graph.dependsOn[before] !== NONE) stack[depth++] = graph.dependsOn[before]!;
      }
    }
  }
}

/** Per thread into `kept`, how many of its events are among the first `stable`. */
function keepPrefix(graph: Graph, stable: number, kept: Int32Array): void {
  for (let thread = 0; thread < graph.threads; thread++) {
    let length = 0;
    while (length < graph.threadLength[thread]! && graph.threadEvents[thread]![length]! < stable) length++;
    kept[thread] = length;
  }
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
