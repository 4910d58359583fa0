// hbcache: context-bounded search over happens-before states (Musuvathi & Qadeer, seed 001,
// Algorithm 2). A state is the happens-before graph of what has run, kept as a key in a
// table H. Search walks runs as dfs does but never enters a state already in H or a step
// whose context bound CB(s, t) exceeds the bound; each run ends in a new terminal state,
// which Mark puts into H together with every prefix state all of whose bounded successors
// are in H by then — so later runs skip them, whatever the interleaving that leads there.
//
// Stateless: a state is reached by re-running a decision prefix. Iterative bounding: a
// step whose CB exceeds the current bound, seen while marking, is kept (as a run that
// reaches it) for the iteration of its bound; states in H from earlier iterations stay
// there, since every terminal state they lead to within the new bound is reached through
// one of those kept steps.
import { ContextBounds } from './context-bound.js';
import { type Downset, HbExecution, stateKey } from './hb-state.js';
import { MAX_THREADS } from '../native/ops.js';
import { type ExecutionView, type Schedule, type Strategy, type StrategyOptions, decisionAt } from './strategy.js';

const bit = (thread: number): number => 1 << thread;

interface Deferred {
  decisions: Uint16Array;
  /** the state the last decision leads to */
  key: number;
}

export class HbCacheStrategy implements Strategy {
  readonly name = 'hbcache';
  readonly bounded = true;
  private readonly maxBound: number;
  private readonly run = new HbExecution();
  private readonly bounds = new ContextBounds();
  /** H: states whose every terminal successor within the bound has been explored */
  private readonly closed = new Set<number>();
  private readonly queued: Deferred[][] = [];
  private readonly deferredKeys = new Set<number>();
  private droppedBeyondMaxBound = false;
  private bound = 0;
  private started = false;

  // the current path: one node per step of the last run
  private readonly decision: Uint16Array;
  private readonly runner: Uint8Array;
  private readonly enabled: Uint32Array;
  private readonly done: Uint32Array; // threads tried at the node
  private readonly nextValue: Uint32Array; // CHOOSE nodes: values still to try
  private readonly valueCount: Uint32Array;
  private readonly prefixA: Int32Array; // key halves of the state before each node
  private readonly prefixB: Int32Array;
  private pathLength = 0;
  private fixedLength = 0;
  /** the step of the last schedule the runtime may decline (-1: none) */
  private plannedStep = -1;
  private readonly state: Downset = { counts: new Int32Array(MAX_THREADS), hashA: 0, hashB: 0 };

  constructor(options: StrategyOptions) {
    this.maxBound = options.maxBound;
    const n = options.capacity;
    this.decision = new Uint16Array(n);
    this.runner = new Uint8Array(n);
    this.enabled = new Uint32Array(n);
    this.done = new Uint32Array(n);
    this.nextValue = new Uint32Array(n);
    this.valueCount = new Uint32Array(n);
    this.prefixA = new Int32Array(n + 1);
    this.prefixB = new Int32Array(n + 1);
    this.queued[0] = [{ decisions: new Uint16Array(0), key: stateKey(0, 0) }];
  }

  beginBound(bound: number): boolean {
    this.bound = bound;
    this.started = false;
    return (this.queued[bound]?.length ?? 0) > 0;
  }

  beyondMaxBound(): boolean {
    return this.droppedBeyondMaxBound;
  }

  next(): Schedule | undefined {
    if (this.started) {
      const resumed = this.backtrack();
      if (resumed) return resumed;
    }
    for (let start = this.queued[this.bound]?.pop(); start; start = this.queued[this.bound]?.pop()) {
      if (this.closed.has(start.key)) continue; // marked since it was kept
      this.started = true;
      this.decision.set(start.decisions);
      this.fixedLength = start.decisions.length;
      this.pathLength = 0;
      const length = start.decisions.length;
      // the kept step is a plan: an atomic section hbcache could not see may forbid it
      this.plannedStep = length - 1;
      return { decisions: this.decision, length, ...(length > 0 ? { planFrom: length - 1 } : {}) };
    }
    return undefined;
  }

  /** The deepest node with a step that leads out of H within the bound: take it. */
  private backtrack(): Schedule | undefined {
    for (let node = this.pathLength - 1; node >= this.fixedLength; node--) {
      this.run.prefix(node, this.state);
      if (this.valueCount[node]! > 0) {
        while (this.nextValue[node]! < this.valueCount[node]!) {
          const value = this.nextValue[node]!++;
          if (!this.closed.has(this.run.successorKey(this.state, this.runner[node]!, node, value))) return this.resumeAt(node, value);
        }
      } else {
        for (let choices = this.enabled[node]! & ~this.done[node]!; choices !== 0; choices &= choices - 1) {
          const thread = 31 - Math.clz32(choices & -choices);
          this.done[node]! |= bit(thread);
          if (this.closed.has(this.run.successorKey(this.state, thread, this.run.nextStep(this.state.counts, thread)))) continue;
          if (this.bounds.of(this.run, this.state, thread) <= this.bound) return this.resumeAt(node, thread);
        }
      }
      // every step from here is explored, in H or beyond the bound: the state is closed
      const key = stateKey(this.state.hashA, this.state.hashB);
      if (!this.closed.has(key)) this.mark(this.state.counts, this.state.hashA, this.state.hashB);
    }
    return undefined;
  }

  private resumeAt(node: number, decision: number): Schedule {
    this.decision[node] = decision;
    this.pathLength = node + 1;
    return { decisions: this.decision, length: node + 1 };
  }

  observe(execution: ExecutionView): boolean {
    const planned = this.plannedStep;
    this.plannedStep = -1;
    if (planned >= 0 && (planned >= execution.steps || decisionAt(execution, planned) !== this.decision[planned])) {
      // the runtime declined the kept step: that thread cannot step in that state
      this.pathLength = this.fixedLength;
      return false;
    }
    const run = this.run;
    run.load(execution);
    const steps = execution.steps;
    for (let i = 0; i < steps; i++) {
      this.runner[i] = execution.thread[i]!;
      this.prefixA[i + 1] = this.prefixA[i]! ^ run.hashA[i]!;
      this.prefixB[i + 1] = this.prefixB[i]! ^ run.hashB[i]!;
    }
    run.observeEnabled((length) => stateKey(this.prefixA[length]!, this.prefixB[length]!));
    for (let i = this.pathLength; i < steps; i++) {
      const decision = decisionAt(execution, i);
      this.decision[i] = decision;
      this.enabled[i] = execution.enabled[i]!;
      this.done[i] = bit(execution.thread[i]!);
      this.valueCount[i] = run.choiceCount(i);
      this.nextValue[i] = decision + 1;
    }
    // a run that enters a state of H can only end in a terminal state explored before
    for (let length = Math.max(this.pathLength, this.fixedLength) + 1; length <= steps; length++) {
      if (this.closed.has(stateKey(this.prefixA[length]!, this.prefixB[length]!))) {
        this.pathLength = length;
        return false;
      }
    }
    this.pathLength = steps;
    run.prefix(steps, this.state);
    this.mark(this.state.counts, this.state.hashA, this.state.hashB);
    return true;
  }

  /**
   * Algorithm 2's Mark: puts the state into H, keeps its steps beyond the bound for later
   * iterations, and marks each predecessor whose every bounded successor is now in H.
   */
  private mark(counts: Int32Array, hashA: number, hashB: number): void {
    this.closed.add(stateKey(hashA, hashB));
    this.keepCostlySteps(counts, hashA, hashB);
    const run = this.run;
    for (let thread = 0; thread < run.width; thread++) {
      if (!run.isMaximal(counts, thread)) continue;
      const step = run.stepAt(thread, counts[thread]! - 1);
      counts[thread]!--;
      const beforeA = hashA ^ run.hashA[step]!;
      const beforeB = hashB ^ run.hashB[step]!;
      const before: Downset = { counts, hashA: beforeA, hashB: beforeB };
      if (
        !this.closed.has(stateKey(beforeA, beforeB)) &&
        this.bounds.of(run, before, thread) <= this.bound &&
        this.successorsClosed(before)
      )
        this.mark(counts, beforeA, beforeB);
      counts[thread]!++;
    }
  }

  /** Whether every step from the state within the bound leads into H. */
  private successorsClosed(state: Downset): boolean {
    const run = this.run;
    const key = stateKey(state.hashA, state.hashB);
    const enabled = run.enabledIn(state.counts, key);
    // a thread that may be able to step counts as one, whatever its bound
    const uncertain = run.uncertain;
    for (let thread = 0; thread < run.width; thread++) {
      if (!((uncertain >>> thread) & 1) && (!((enabled >>> thread) & 1) || this.bounds.of(run, state, thread) > this.bound)) continue;
      const step = run.nextStep(state.counts, thread);
      const values = Math.max(1, run.choiceCount(step));
      for (let value = 0; value < values; value++) {
        if (!this.closed.has(run.successorKey(state, thread, step, values > 1 ? value : -1))) return false;
      }
    }
    return true;
  }

  /** Steps from the state that need more preemptions than this iteration allows: for later. */
  private keepCostlySteps(counts: Int32Array, hashA: number, hashB: number): void {
    const run = this.run;
    const state: Downset = { counts, hashA, hashB };
    const enabled = run.enabledIn(counts, stateKey(hashA, hashB));
    for (let thread = 0; thread < run.width; thread++) {
      if (!((enabled >>> thread) & 1)) continue;
      const cost = this.bounds.of(run, state, thread);
      if (cost <= this.bound) continue;
      const step = run.nextStep(counts, thread);
      if (run.choiceCount(step) > 0) continue; // a data choice never preempts
      if (cost > this.maxBound) {
        this.droppedBeyondMaxBound = true;
        continue;
      }
      const key = run.successorKey(state, thread, step);
      if (this.deferredKeys.has(key) || this.closed.has(key)) continue;
      const decisions = run.linearize(counts, thread);
      // the runtime does not run a thread again right after its yield while others can run
      if (decisions.length > 1 && decisions[decisions.length - 2] === thread && run.yieldedLast(counts, thread)) continue;
      this.deferredKeys.add(key);
      (this.queued[cost] ??= []).push({ decisions, key });
    }
  }
}
