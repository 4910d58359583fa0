// The exploration path the systematic strategies (dfs, bpor and optimal, hbcache) walk:
// one node per step of the last execution, kept in typed arrays that grow (by doubling)
// only when a run is longer than any before, so that recording a run allocates nothing. A
// strategy re-runs the path up to a node with another choice there (stateless search), so
// the path is also where backtracking happens: the deepest node with a choice left is
// resumed, the nodes after it dropped. Which choices are left at a node is the strategy's
// policy (Backtracking); what each strategy keeps per node besides (bounds spent, sleep
// sets, wakeup trees, state hashes) stays in its own arrays.
import { MAX_THREADS, Op } from '../addon/ops.js';
import type { Deviations } from './shard.js';
import type { ExecutionView, Schedule } from './strategy.js';
import { WORDS, add, clear, copy, threadSets } from './thread-set.js';
import { FIRST_NODES, grown, roomFor } from './typed-arrays.js';

/** A strategy's say at one node of the path while backtracking. */
export interface Backtracking {
  /**
   * Takes the next choice left at `node` in this iteration, if any, and resumes the path
   * there (Path.resumeAt or Path.takeAt): the schedule that runs it. Undefined: none left;
   * a schedule of length -1: none to take yet (a subtree waiting for those it gave away).
   */
  resumeFrom(node: number): Schedule | undefined;
}

export class Path {
  /** the decision taken at the node: the thread that ran, or a CHOOSE node's value */
  decision: Uint16Array;
  /** the thread that executed the node's step */
  runner: Uint8Array;
  /** the threads enabled at the node: a thread set at node * WORDS */
  enabled: Uint32Array;
  /** the choices taken at the node, a set at node * WORDS: threads, or a CHOOSE node's values below MAX_THREADS */
  done: Uint32Array;
  /** CHOOSE nodes: how many values there are (0 at a thread decision) */
  valueCount: Uint32Array;
  /** CHOOSE nodes: the next value to try */
  nextValue: Uint32Array;
  /** how many nodes the path has */
  length = 0;
  /** nodes below this come from the iteration's starting prefix: never backtracked */
  fixed = 0;

  /** `deviations`: one shard's search (explore/shard.ts), which backtracks only into that shard's part */
  constructor(readonly deviations?: Deviations, nodes = FIRST_NODES) {
    this.decision = new Uint16Array(nodes);
    this.runner = new Uint8Array(nodes);
    this.enabled = threadSets(nodes);
    this.done = threadSets(nodes);
    this.valueCount = new Uint32Array(nodes);
    this.nextValue = new Uint32Array(nodes);
  }

  /** How many nodes fit. */
  get room(): number {
    return this.decision.length;
  }

  /**
   * Makes room for `nodes` nodes, before a run that long is recorded: whether the arrays grew
   * (a strategy then grows its own per-node arrays to `room`).
   */
  reserve(nodes: number): boolean {
    if (nodes <= this.room) return false;
    const size = roomFor(this.room, nodes);
    this.decision = grown(this.decision, size);
    this.runner = grown(this.runner, size);
    this.enabled = grown(this.enabled, size * WORDS);
    this.done = grown(this.done, size * WORDS);
    this.valueCount = grown(this.valueCount, size);
    this.nextValue = grown(this.nextValue, size);
    return true;
  }

  /**
   * Starts the path from a prefix of decisions, fixed for the rest of the iteration. The
   * first `recorded` nodes count as recorded: the next run records the nodes after them.
   */
  startFrom(prefix: Uint16Array, recorded = prefix.length, deviations?: readonly number[]): void {
    this.decision.set(prefix);
    this.fixed = prefix.length;
    this.length = recorded;
    this.deviations?.startFrom(deviations);
  }

  /** Whether the path's run is this search's to count (in a shard: its own). */
  get counted(): boolean {
    return this.deviations === undefined || this.deviations.owned();
  }

  /**
   * The node resumed last (its decision changed) as the run just observed took it: the
   * thread that ran it. The nodes before it ran as before.
   */
  recordResumed(execution: ExecutionView): void {
    const resumed = this.length - 1;
    if (resumed >= 0) this.runner[resumed] = execution.thread[resumed]!;
  }

  /** Records node `step` from the execution: a CHOOSE node's next value is the one after the value taken. */
  record(execution: ExecutionView, step: number): void {
    const thread = execution.thread[step]!;
    const at = step * WORDS;
    this.runner[step] = thread;
    copy(this.enabled, at, execution.enabled, at);
    clear(this.done, at);
    if (execution.op[step] === Op.CHOOSE) {
      const value = execution.value[step]!;
      this.decision[step] = value;
      this.valueCount[step] = execution.object[step]!;
      this.nextValue[step] = value + 1;
      if (value < MAX_THREADS) add(this.done, at, value);
      return;
    }
    this.decision[step] = thread;
    this.valueCount[step] = 0;
    this.nextValue[step] = 0;
    add(this.done, at, thread);
  }

  /** The deepest node past the fixed prefix where `policy` has a choice left: resumed there. Undefined: none left. */
  backtrack(policy: Backtracking): Schedule | undefined {
    for (let node = this.length - 1; node >= this.fixed; node--) {
      // a choice into another shard's subtree is that shard's (a schedule of length -1 takes none: it waits)
      for (let resumed = policy.resumeFrom(node); resumed; resumed = policy.resumeFrom(node))
        if (this.deviations === undefined || resumed.length < 0 || this.deviations.admits(node)) return resumed;
    }
    return undefined;
  }

  /** Takes `decision` at `node` and drops the nodes after it. */
  takeAt(node: number, decision: number): void {
    this.decision[node] = decision;
    this.length = node + 1;
    this.deviations?.took(node, decision);
  }

  /** takeAt, and the schedule that runs the path to that node (the runtime completes the run). */
  resumeAt(node: number, decision: number): Schedule {
    this.takeAt(node, decision);
    return { decisions: this.decision, length: node + 1 };
  }
}
