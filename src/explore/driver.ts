// The iterative driver: bound 0, 1, 2, … up to maxBound, each iteration running only the
// executions that need exactly that many preemptions (or delays), until a bug (then it has
// the fewest), exhaustion, or a budget (checked by the clock after every run).
// The event loop gets a turn every ~50 ms so that timeouts, progress output and Ctrl-C
// keep working; an aborted signal is seen there, at most a slice after it aborted.
import { type LoggedAccess, type NativeHarness, RunFlags, type RunResult, type TraceArrays } from '../addon/addon.js';
import { WeftError } from '../errors.js';
import { Outcome } from '../addon/ops.js';
import { type BoundKind, type ExecutionView, type Strategy, copyOfView, countSpent, decisionAt, liveView, viewRun } from './strategy.js';
import { refuseMixedExtents } from './unsupported.js';

export interface DriveOptions {
  test: number;
  maxBound: number;
  maxExecutions: number;
  timeBudgetMs: number;
  maxSteps: number;
  mode: number;
  /** RunFlags */
  flags: number;
  nondetDomain: Float64Array;
  /** drf mode: addresses whose plain accesses are scheduling points (racy locations) */
  visible: Float64Array;
  onProgress?: (progress: Progress) => void;
  /**
   * a bound's iteration has begun: called before its second execution (an observer: it may run
   * executions of its own, which the strategy never sees)
   */
  onBoundStart?: (bound: number) => void;
  /** another search that takes turns with this one, between its slices of runs */
  interlude?: Interlude;
  /** aborted: stop at the end of the current slice ('interrupted'), with what was explored so far */
  signal?: AbortSignal;
}

/**
 * A turn of another search (the default's PCT samples), given how long the current bound
 * has run and how many executions are left: its runs count with this search's, and its
 * bug ends this search. Undefined: no turn this time.
 */
export type Interlude = (at: { boundMs: number; executionsLeft: number }) => Promise<{ executions: number; failure?: FailingExecution } | undefined>;

export interface Progress {
  bound: number;
  executions: number;
  elapsedMs: number;
}

/** Everything about the failing execution, copied out of the runtime's memory. */
export interface FailingExecution {
  outcome: number;
  preemptions: number;
  /** deviations from round robin (strategy.ts: BoundKind) */
  delays: number;
  decisions: number[];
  execution: ExecutionView;
  /** code offset of every step (for source locations) */
  tracePcs: Uint32Array;
  /** every step's value, exact, and the bytes of memory it came from (0: not memory) */
  valueBits: BigUint64Array;
  valueSizes: Uint8Array;
  /** per step, meaningful at atomic steps: what they wrote or expected, their memory order and read-modify-write function */
  atomics: Pick<TraceArrays, 'written' | 'expected' | 'order' | 'rmw'>;
  /** the heap blocks at the end: (address, size, allocation code offset) triples */
  heapBlocks: Float64Array;
  /** drf mode: the last plain accesses, recorded by replaying the counterexample (report/simplify.ts) */
  accesses?: LoggedAccess[];
  result: RunResult;
  output: string;
}

export type StopReason = 'bug' | 'exhausted' | 'max-bound' | 'max-executions' | 'time-budget' | 'interrupted' | 'replayed';

export interface Exploration {
  executions: number;
  /** runs abandoned as equivalent to an execution explored before (not counted above) */
  redundantRuns: number;
  /** the highest bound fully explored (-1: none), or the bound where the bug was found */
  bound: number;
  /** the iteration that was running when exploration stopped */
  reachedBound: number;
  complete: boolean;
  stoppedBy: StopReason;
  elapsedMs: number;
  failure?: FailingExecution;
}

const SLICE_MS = 50;

/** A harness that cannot be explored: it behaves differently on one schedule, or needs more threads than weft has. */
export class UnexplorableHarnessError extends WeftError {
  constructor(outcome: number, message: string) {
    super(outcome === Outcome.LIMIT ? 'limit' : 'nondeterministic', outcome === Outcome.LIMIT ? message : `the harness is nondeterministic: ${message}`);
    this.name = 'UnexplorableHarnessError';
  }
}

export async function drive(harness: NativeHarness, strategy: Strategy, options: DriveOptions): Promise<Exploration> {
  const trace = harness.trace();
  const status = trace.status;
  const view = liveView(trace);
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  let sliceEnd = started + SLICE_MS;
  let executions = 0;
  let redundantRuns = 0;
  let bound = 0;
  let explored = -1;
  const finish = (stoppedBy: StopReason, complete: boolean, failure?: FailingExecution): Exploration => ({
    executions, redundantRuns, bound: failure ? bound : explored, reachedBound: bound, complete, stoppedBy, elapsedMs: elapsed(),
    ...(failure ? { failure } : {}),
  });

  const budgetSpent = (now: number): StopReason | undefined =>
    now - started >= options.timeBudgetMs ? 'time-budget' : executions >= options.maxExecutions ? 'max-executions' : undefined;

  const lastBound = strategy.bounded ? options.maxBound : 0;
  for (bound = 0; bound <= lastBound; bound++) {
    if (!strategy.beginBound(bound)) return finish('exhausted', true);
    // told before the bound's second run: the test's first execution runs as it would without
    // the observer, and the strategy is done with the first run's trace (next() read it)
    let told = !strategy.bounded || options.onBoundStart === undefined;
    let runs = 0;
    const boundStarted = performance.now();
    for (let schedule = strategy.next(); schedule; schedule = strategy.next()) {
      if (!told && runs++ === 1) {
        told = true;
        options.onBoundStart!(bound);
      }
      const { sample } = schedule;
      const outcome = harness.run(
        options.test, schedule.decisions, schedule.length, options.maxSteps, options.mode,
        (sample ? options.flags | RunFlags.SAMPLE : options.flags) | (schedule.flags ?? 0), options.nondetDomain,
        options.visible, schedule.asleep, schedule.asleepFrom, schedule.planFrom, sample?.seed, sample?.priorities, sample?.priorityChanges,
      );
      viewRun(view, status[0]!, outcome);
      if (outcome === Outcome.DIVERGENCE) throw strategy.divergence?.(harness.result().message) ?? new UnexplorableHarnessError(outcome, harness.result().message);
      if (outcome === Outcome.LIMIT) throw new UnexplorableHarnessError(outcome, harness.result().message);
      const failed = outcome !== Outcome.OK && outcome !== Outcome.PRUNED;
      if (failed && (strategy.failureCounts?.(view) ?? true)) {
        executions++;
        return finish('bug', false, copyFailure(harness, view));
      }
      refuseMixedExtents(strategy, view);
      // a failing run past the bound is shown in its own iteration
      if (!failed && strategy.observe(view)) executions++;
      else redundantRuns++;
      // by the clock after every run, counted or not: runs can be long, or all redundant
      const now = performance.now();
      const spent = budgetSpent(now);
      if (spent) return finish(spent, false);
      if (now >= sliceEnd) {
        options.onProgress?.({ bound, executions, elapsedMs: now - started });
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (options.signal?.aborted) return finish('interrupted', false);
        const turn = await options.interlude?.({ boundMs: now - boundStarted, executionsLeft: options.maxExecutions - executions });
        if (turn) {
          executions += turn.executions;
          if (turn.failure) return finish('bug', false, turn.failure);
          const spentInTurn = options.signal?.aborted ? 'interrupted' : budgetSpent(performance.now());
          if (spentInTurn) return finish(spentInTurn, false);
        }
        sliceEnd = performance.now() + SLICE_MS;
      }
    }
    explored = bound;
  }
  if (!strategy.bounded) return finish('exhausted', true);
  return finish(strategy.beyondMaxBound() ? 'max-bound' : 'exhausted', !strategy.beyondMaxBound());
}

/** What a failing execution spent of a `kind` bound. */
export function spentBy(failure: Pick<FailingExecution, 'preemptions' | 'delays'>, kind: BoundKind): number {
  return kind === 'delay' ? failure.delays : failure.preemptions;
}

/** Copies the execution that just ended (the trace arrays are reused by the next run). */
export function copyFailure(harness: NativeHarness, view: Pick<ExecutionView, 'steps' | 'outcome'>): FailingExecution {
  const steps = view.steps;
  const trace = harness.trace();
  const execution = copyOfView(trace, steps, view.outcome);
  const decisions: number[] = [];
  for (let step = 0; step < steps; step++) decisions.push(decisionAt(execution, step));
  return {
    outcome: view.outcome, preemptions: countSpent('preemption', execution), delays: countSpent('delay', execution), decisions, execution,
    tracePcs: trace.pc.slice(0, steps), valueBits: trace.bits.slice(0, steps), valueSizes: trace.size.slice(0, steps),
    atomics: { written: trace.written.slice(0, steps), expected: trace.expected.slice(0, steps), order: trace.order.slice(0, steps), rmw: trace.rmw.slice(0, steps) },
    heapBlocks: harness.heapBlocks(), result: harness.result(), output: harness.output(),
  };
}
