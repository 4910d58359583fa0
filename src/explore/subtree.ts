// Parallel exploration splits one bound's bpor search into subtrees, each explored by its
// own DporStrategy, in any worker. A subtree is a choice left at a node of another
// subtree's path: that thread run there, and everything bpor explores below. bpor keeps no
// sleep sets and no wakeup trees: a node's children are the threads that the races of the
// executions through it backtrack there, so what it explores is the least set closed under
// "explore what an explored execution backtracks", whatever the order — and a subtree
// explored elsewhere explores exactly what it would have explored in place. What a subtree
// backtracks at the nodes above it goes back to the subtree owning those nodes
// (BacktrackAbove), which keeps them on its path until the subtrees it gave away are done.
//
// Optimal DPOR is not split so: a pending branch of its wakeup tree grows with reversals
// found under the branches explored before it, and without them the branch alone misses
// classes (fixtures/soundness/counting_reads.c with 5 loads: 21 of 24).
// graph (graph/strategy.ts) is split by items: every pending item of a graph's frame is a
// subproblem of its own (each graph has one parent), so a subtree given away is one item with
// the graph of its frame (graph/task.ts), and nothing goes back above it.
import type { GraphTask } from './graph/task.js';
import type { Shard } from './shard.js';
import type { ExecutionView, Schedule } from './strategy.js';

export interface Subtree {
  /** decisions from the root to the subtree's first step, which is the last (empty: the whole search) */
  prefix: number[];
  /** the iteration's bound: the subtree explores the executions within it */
  bound: number;
  /**
   * per node before the subtree's first step (WORDS words each), the threads chosen there or
   * still to be: backtracking one of them there again changes nothing, and is not sent
   */
  covered: number[];
  /** a shard's search (shard.ts): which, and the first deviations of the prefix (Deviations.savedWith) */
  shard?: Shard;
  deviations?: number[];
  /** graph: the item given away and the graph of its frame (none: the whole search) */
  graph?: GraphTask;
}

/** The search of one subtree in a worker (subtree-host.ts): bpor's DporStrategy, or graph's GraphStrategy. */
export interface SubtreeSearch {
  readonly name: string;
  readonly reduces?: true;
  /** the next execution to run; undefined: the subtree is done; one of length -1 (dpor.ts: WAITING): waiting for subtrees given away */
  next(): Schedule | undefined;
  observe(execution: ExecutionView): boolean;
  /** a failing run is a bug to show (default: always) */
  failureCounts?(execution: ExecutionView): boolean;
  /** what ends the search when a run did not follow its schedule (Strategy.divergence) */
  divergence?(message: string): Error;
  beyondMaxBound(): boolean;
  giveAway(): Subtree | undefined;
  /** bpor only: what a subtree given away found above it, and its end */
  receive?(backtrack: BacktrackAbove): void;
  subtreeDone?(node: number): void;
}

/** A thread to backtrack at a node above the subtree that found it (dpor.ts: backtrackAt). */
export interface BacktrackAbove {
  node: number;
  thread: number;
  /** where the thread cannot run, every thread that can */
  everyThreadIfDisabled: boolean;
}

/** Where a subtree sends what belongs to the nodes above it. */
export interface SubtreeLink {
  backtrackAbove(backtrack: BacktrackAbove): void;
}
