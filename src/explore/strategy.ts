// The interface every exploration strategy implements (one strategy per file), and the
// view of a finished execution that strategies learn from.
import type { TraceArrays } from '../addon/addon.js';
import { Aside, MAX_THREADS, Op, Outcome, ThreadState } from '../addon/ops.js';
import type { Shard } from './shard.js';
import { WORDS, first, has, hasOther, nextRoundRobin, noteThreads } from './thread-set.js';

/** Decisions for the first `length` steps: a thread id, or the value at a CHOOSE step. */
export interface Schedule {
  decisions: Uint16Array;
  length: number;
  /** sleep sets: threads asleep before step `asleepFrom` (a thread set), for the runtime to avoid */
  asleep?: Uint32Array;
  asleepFrom?: number;
  /** decisions from this step on are a plan, followed as far as the runtime allows */
  planFrom?: number;
  /** past the decisions, the runtime draws threads and choices (a sampling strategy's run) */
  sample?: Sample;
  /** run flags this run adds (graph: RunFlags.PARK_FAILING, a run that explores past a failure and is never counted) */
  flags?: number;
}

/** A sampling run's draw (NativeHarness.run says what each part means). */
export interface Sample {
  seed: number;
  /** pct: one priority per thread */
  priorities?: Uint32Array;
  /** pct: (step, priority) pairs, by step */
  priorityChanges?: Uint32Array;
}

/** A finished execution, read straight from the runtime's trace arrays (valid until the next run). */
export interface ExecutionView {
  steps: number;
  outcome: number;
  thread: Uint8Array;
  op: Uint8Array;
  object: Float64Array;
  value: Float64Array;
  /** the same values' exact bits, and how many bytes of memory each came from (0: not memory) */
  bits: BigUint64Array;
  size: Uint8Array;
  /** atomic steps: what a read-modify-write wrote (or a compare-exchange would have), and what a compare-exchange expected */
  written: BigUint64Array;
  expected: BigUint64Array;
  /** per step, the threads that could have been chosen: a thread set of WORDS words at step * WORDS */
  enabled: Uint32Array;
  /** per step, a thread set likewise: the threads about to compare-exchange that would fail there (a read) */
  casFails: Uint32Array;
  /** per step, Aside bits: its thread was set aside during it (others go first), or it is the thread's first step after; or its read ended a spinning turn */
  aside: Uint8Array;
  /** per step, the code offset of its call in the harness */
  pc: Uint32Array;
  /** atomic read-modify-write steps: their function (RmwFunction; others hold stale entries) */
  rmw: Uint8Array;
  /** per thread at the end: 0 unused, 1 runnable (blocked or stopped), 2 finished */
  threadState: Uint8Array;
  /** per thread at the end: the operation it was about to execute, its object and value */
  pendingOp: Uint8Array;
  pendingObject: Float64Array;
  pendingValue: Float64Array;
  /** per thread that met a race (the run's failure, or one it went on past: RunFlags.PARK_FAILING): the step its access followed (-1: none) */
  raceAt: Int32Array;
  /** and the step after which the other access ran (-1: none, or before that thread's first step) */
  raceAfter: Int32Array;
  /** two memory steps over common bytes with different extents: [address, size, address, size], 0s: none (mixedExtents) */
  mixedExtent: Float64Array;
}

/** A view on the runtime's reused trace arrays; `steps` and `outcome` are set after each run. */
export function liveView(trace: TraceArrays): ExecutionView {
  const { thread, op, object, value, bits, size, written, expected, enabled, casFails, aside, pc, rmw, threadState, pendingOp, pendingObject, pendingValue, raceAt, raceAfter, mixedExtent } = trace;
  return { steps: 0, outcome: 0, thread, op, object, value, bits, size, written, expected, enabled, casFails, aside, pc, rmw, threadState, pendingOp, pendingObject, pendingValue, raceAt, raceAfter, mixedExtent };
}

/**
 * The thread that failed while running, between its last step and its next (an assertion, a
 * race, a crash), or -1: every schedule of the run ends with that step. The runtime's pending
 * operation of a thread is the one it last stopped at, so the running thread's is the step it
 * already took (a deadlock's or livelock's threads all stopped at their next step).
 */
export function failedWhileRunning(view: ExecutionView): number {
  const outcome = view.outcome;
  if (view.steps === 0 || outcome === Outcome.OK || outcome === Outcome.PRUNED || outcome === Outcome.DEADLOCK || outcome === Outcome.LIVELOCK) return -1;
  // the choices a thread makes after a step are no scheduling points: the step is its pending one
  const last = lastSchedulingPoint(view);
  const thread = view.thread[last]!;
  const stale = view.pendingOp[thread] === view.op[last] && view.pendingObject[thread] === view.object[last];
  return view.threadState[thread] === ThreadState.RUNNABLE && stale ? thread : -1;
}

/**
 * The run's last step that was a scheduling point (-1: none): a choice is none, its thread
 * makes it right after its step, and only that thread runs after the point.
 */
export function lastSchedulingPoint(view: ExecutionView): number {
  let step = view.steps - 1;
  while (step > 0 && view.op[step] === Op.CHOOSE) step--;
  return step;
}

/** Points a live view at the run that just ended, and makes thread sets cover its threads. */
export function viewRun(view: ExecutionView, steps: number, outcome: number): void {
  view.steps = steps;
  view.outcome = outcome;
  noteThreads(view.threadState);
}

/** A copy of the first `steps` steps of the execution that just ran, kept past the next run. */
export function copyOfView(trace: TraceArrays, steps: number, outcome: number): ExecutionView {
  return {
    steps, outcome, thread: trace.thread.slice(0, steps), op: trace.op.slice(0, steps),
    object: trace.object.slice(0, steps), value: trace.value.slice(0, steps), bits: trace.bits.slice(0, steps), size: trace.size.slice(0, steps),
    written: trace.written.slice(0, steps), expected: trace.expected.slice(0, steps), enabled: trace.enabled.slice(0, steps * WORDS), casFails: trace.casFails.slice(0, steps * WORDS), aside: trace.aside.slice(0, steps), pc: trace.pc.slice(0, steps), rmw: trace.rmw.slice(0, steps),
    threadState: trace.threadState.slice(), pendingOp: trace.pendingOp.slice(), pendingObject: trace.pendingObject.slice(),
    pendingValue: trace.pendingValue.slice(), raceAt: trace.raceAt.slice(), raceAfter: trace.raceAfter.slice(), mixedExtent: trace.mixedExtent.slice(),
  };
}

export interface StrategyOptions {
  maxBound: number;
  /** what the bound counts (dfs honours `delay`; src/options.ts says which strategies take it) */
  bound?: BoundKind;
  /** samplers (random, pct): the first run's seed, and pct's depth */
  seed?: number;
  pctDepth?: number;
  /** when the time budget ends (performance.now() scale): a strategy whose own bookkeeping is long stops there */
  deadline?: number;
  /** dfs and bpor: explore only this shard's part of the tree (explore/shard.ts) */
  shard?: Shard;
}

export interface Strategy {
  readonly name: string;
  /** false when the strategy explores without a preemption bound (one pass, bound ignored) */
  readonly bounded: boolean;
  /** partial-order reduction by the steps' dependence (dependence.ts): a run with mixed extents is refused (unsupported.ts) */
  readonly reduces?: true;
  /**
   * false for a sampler (random, pct): it draws runs until its budget ends, never runs out,
   * never claims completeness, and says what it covered (coverage, foundBy)
   */
  readonly exhaustive?: false;
  /** a sampler: what `runs` passing runs covered, in words */
  coverage?(runs: number): string;
  /** a sampler: the run that just failed, in words */
  foundBy?(): string;
  /**
   * Starts iteration `bound` (0, 1, 2, … in order): the executions that need exactly
   * `bound` preemptions. Returns false when none are left: the space is exhausted.
   */
  beginBound(bound: number): boolean;
  /** The next schedule of this iteration, or undefined when the iteration is done. */
  next(): Schedule | undefined;
  /**
   * Learns from the execution that just ran along the last schedule. Returns false when
   * the run turned out redundant (equivalent to one explored before) and does not count.
   */
  observe(execution: ExecutionView): boolean;
  /**
   * A strategy that runs executions past its bound to stay sound (graph: its slack) learns
   * from a failing run too, and returns false when the run needs more preemptions than the
   * iteration's bound: its bug is shown in the iteration of its own bound, so the first bug
   * shown needs the fewest. Without it, every failing run is a bug to show.
   */
  failureCounts?(execution: ExecutionView): boolean;
  /**
   * What ends the search when a run did not follow the strategy's schedule (the runtime's
   * message): a strategy that builds schedules from a model of the harness (graph) may refuse
   * the harness, to be explored as the default would, which then tells whether the harness
   * itself is nondeterministic. Without it, the harness is.
   */
  divergence?(message: string): Error;
  /** True when choices needing more than maxBound preemptions were left unexplored. */
  beyondMaxBound(): boolean;
}

/** The decision taken at a step: the thread that ran, or the value chosen. */
export function decisionAt(execution: ExecutionView, step: number): number {
  return execution.op[step] === Op.CHOOSE ? execution.value[step]! : execution.thread[step]!;
}

/** The thread that was running when step `step` was decided. */
export function runningBefore(execution: ExecutionView, step: number): number {
  return step === 0 ? 0 : execution.thread[step - 1]!;
}

/**
 * Whether the thread running before `step` set itself aside at its last step (trace.aside:
 * a yield, a sleep, a timed wait about to start; its data choices since are no scheduling
 * point).
 */
export function yieldedBefore(execution: ExecutionView, step: number): boolean {
  for (let before = step - 1; before >= 0; before--) if (execution.op[before] !== Op.CHOOSE) return (execution.aside[before]! & Aside.DURING) !== 0;
  return false;
}

/**
 * What a decision costs of a preemption bound, the one rule every strategy and the report
 * count by: 1 for a switch away from the thread that ran the step before when it could have
 * gone on; right after that thread yielded, switching is free and it going on costs 1 when
 * another thread could run (sched_yield may return at once, so that schedule is real; the
 * runtime's default lets the others go first).
 */
export function preemptionCharge(switching: boolean, yielded: boolean, previousCanGoOn: boolean, anotherCanRun: boolean): number {
  if (yielded) return !switching && anotherCanRun ? 1 : 0;
  return switching && previousCanGoOn ? 1 : 0;
}

/** preemptionCharge of choosing `thread` at a step whose enabled set is at `at`, `previous` having run the step before. */
export function preemptionCost(enabled: Uint32Array, at: number, previous: number, yielded: boolean, thread: number): number {
  return preemptionCharge(thread !== previous, yielded, has(enabled, at, previous), yielded && hasOther(enabled, at, previous));
}

/** A preemption (preemptionCharge): a switch away from a thread that could have continued, or a thread going on right after it yielded while another could run. */
export function isPreemption(execution: ExecutionView, step: number, thread: number): boolean {
  return preemptionCost(execution.enabled, step * WORDS, runningBefore(execution, step), yieldedBefore(execution, step), thread) === 1;
}

/**
 * What a bound counts. `preemption`: switches away from a thread that could have continued.
 * `delay` (Emmi, Qadeer, Rakamarić, POPL 2011): deviations from round robin — the thread
 * that runs keeps running while it is enabled, then the next enabled thread after it in id
 * order takes over; a decision spends one delay per enabled thread it skips on the way
 * round from round robin's pick, so a switch where a thread blocks or finishes is free only
 * when it goes to the next thread in line.
 */
export type BoundKind = 'preemption' | 'delay';

export const boundKinds: readonly BoundKind[] = ['preemption', 'delay'];

/**
 * Round robin's pick among the set at `at` (the runtime's RunFlags.ROUND_ROBIN): `previous`
 * while it is enabled and did not just yield, else the next enabled thread after it.
 */
export function roundRobinChoice(enabled: Uint32Array, at: number, previous: number, yielded: boolean): number {
  return has(enabled, at, previous) && !yielded ? previous : nextRoundRobin(enabled, at, previous);
}

/**
 * The threads of the enabled set at `at`, each with what deciding it at a step spends of a
 * `kind` bound (the running thread was `previous`, which `yielded` at its last step or not):
 * `threads[i]` costs `costs[i]`. Returns how many there are. Preemptions, in id order:
 * preemptionCost. Delays: c for the c-th enabled thread going round from round robin's pick.
 */
export function threadsByCost(
  kind: BoundKind, enabled: Uint32Array, at: number, previous: number, yielded: boolean, threads: Uint16Array, costs: Uint16Array,
): number {
  let count = 0;
  if (kind === 'preemption') {
    for (let thread = first(enabled, at); thread >= 0; thread = first(enabled, at, thread + 1)) {
      threads[count] = thread;
      costs[count++] = preemptionCost(enabled, at, previous, yielded, thread);
    }
    return count;
  }
  const start = roundRobinChoice(enabled, at, previous, yielded);
  if (start < 0) return 0;
  for (let thread = start; count === 0 || thread !== start; thread = nextRoundRobin(enabled, at, thread)) {
    threads[count] = thread;
    costs[count] = count;
    count++;
  }
  return count;
}

const scratchThreads = new Uint16Array(MAX_THREADS);
const scratchCosts = new Uint16Array(MAX_THREADS);

/** What the decision taken at `step` spent of a `kind` bound (a weft_choose value spends nothing). */
export function spentAt(kind: BoundKind, execution: ExecutionView, step: number): number {
  if (step === 0 || execution.op[step] === Op.CHOOSE) return 0;
  const thread = execution.thread[step]!;
  if (kind === 'preemption') return isPreemption(execution, step, thread) ? 1 : 0;
  const count = threadsByCost(kind, execution.enabled, step * WORDS, runningBefore(execution, step), yieldedBefore(execution, step), scratchThreads, scratchCosts);
  for (let i = 0; i < count; i++) if (scratchThreads[i] === thread) return scratchCosts[i]!;
  return 0;
}

/** What the whole execution spent of a `kind` bound: its preemptions, or its delays. */
export function countSpent(kind: BoundKind, execution: ExecutionView): number {
  let count = 0;
  for (let step = 1; step < execution.steps; step++) count += spentAt(kind, execution, step);
  return count;
}
