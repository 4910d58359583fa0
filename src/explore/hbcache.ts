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
//
// Memory stays flat: H is a fixed-size cache (a state it forgets is explored again), the
// context bounds' memo is cleared between runs when it grows past its cap, and at most
// a fixed number of decisions are kept for later iterations. When the steps kept for a bound
// overflow, none are kept for it: its iteration walks again from the root with an empty
// H, counting only the executions that need exactly that many preemptions. The same
// happens when the runtime declines a step on the way to a kept step (after a detected
// spin it sets a thread aside depending on what ran between its reads, so one order of a
// state's steps may not run where another would): no kept step is ever dropped for it.
import { aroundAside } from './dependence.js';
import { ContextBounds } from './context-bound.js';
import { type Downset, Deadline, HB_MAX_THREADS, HbExecution, OutOfTime, StateCache, stateKey } from './hb-state.js';
import { Op, OpFlag, Outcome, hasFlag } from '../addon/ops.js';
import { UnexplorableHarnessError } from './driver.js';
import { type Backtracking, Path } from './path.js';
import { type ExecutionView, type Schedule, type Strategy, type StrategyOptions, decisionAt } from './strategy.js';
import { grown } from './typed-arrays.js';
import { WORDS, add, first, has } from './thread-set.js';


/** Memory limits (tests make them small to exercise what happens past them). */
export interface HbCacheLimits {
  /** decisions kept for later iterations, summed over every kept step */
  queueCap: number;
  /** H holds 2^closedSlotsLog2 states at most */
  closedSlotsLog2: number;
}

const DEFAULT_LIMITS: HbCacheLimits = { queueCap: 1 << 22, closedSlotsLog2: 22 };
const DEFERRED_SLOTS_LOG2 = 20;

interface Deferred {
  decisions: Uint16Array;
  /** the state the last decision leads to */
  key: number;
}

/**
 * What hbcache's happens-before states cannot judge: a yield, which they take as commuting
 * with everything (dependence.ts: aroundAside); pthread_once, whose waiters wait for a
 * routine that is no step; and read locks, whose readers hold the lock together: a reader
 * is taken as blocked until the other's unlock is in the state, so context bounds come out
 * too low (the random-program oracle found states missed with the first two, and states
 * claimed within a bound they need more preemptions for with read locks, seed 31).
 */
function refused(execution: ExecutionView): boolean {
  for (let step = 0; step < execution.steps; step++) {
    const op = execution.op[step]!;
    if (aroundAside(execution, step) || op === Op.ONCE || hasFlag(op, OpFlag.SHARED)) return true;
  }
  return false;
}

export class HbCacheStrategy implements Strategy, Backtracking {
  readonly name = 'hbcache';
  readonly bounded = true;
  readonly reduces = true;
  private readonly maxBound: number;
  private readonly deadline: Deadline;
  private readonly run = new HbExecution();
  private readonly bounds: ContextBounds;
  /** H: states whose every terminal successor within the bound has been explored */
  private readonly closed: StateCache;
  /** per bound: the kept steps that need it, or none when they overflowed (walk from the root) */
  private readonly queued: Deferred[][] = [];
  private readonly overflowed: boolean[] = [];
  private queuedDecisions = 0;
  private readonly deferredKeys = new StateCache(DEFERRED_SLOTS_LOG2);
  /** terminal states counted (a fixed-size cache): a walk from the root counts none of them twice */
  private readonly counted = new StateCache(DEFERRED_SLOTS_LOG2);
  private droppedBeyondMaxBound = false;
  private bound = 0;
  private started = false;
  /** this iteration walks from the root: executions needing fewer preemptions were counted before */
  private walkingFromRoot = false;
  /** the last run's terminal state is still to be marked (done before the next run, not after the last) */
  private markPending = false;
  /** the time budget ran out inside the bookkeeping: nothing more is learned */
  private expired = false;

  /** the current path: one node per step of the last run (its done: threads tried at the node) */
  private readonly path: Path;
  private prefixA: Int32Array; // key halves of the state before each node
  private prefixB: Int32Array;
  /** the step of the last schedule the runtime may decline (-1: none) */
  private plannedStep = -1;
  private readonly state: Downset = { counts: new Int32Array(HB_MAX_THREADS), hashA: 0, hashB: 0 };
  // Mark's explicit stack
  private markA = new Int32Array(1024);
  private markB = new Int32Array(1024);
  private markRemoved = new Int32Array(1024);
  private markNext = new Int32Array(1024);

  constructor(options: StrategyOptions, private readonly limits = DEFAULT_LIMITS) {
    this.maxBound = options.maxBound;
    this.closed = new StateCache(limits.closedSlotsLog2);
    this.deadline = new Deadline(options.deadline ?? Number.POSITIVE_INFINITY);
    this.bounds = new ContextBounds(this.deadline);
    this.path = new Path();
    this.prefixA = new Int32Array(this.path.room + 1);
    this.prefixB = new Int32Array(this.path.room + 1);
    this.queued[0] = [{ decisions: new Uint16Array(0), key: stateKey(0, 0) }];
  }

  beginBound(bound: number): boolean {
    this.bound = bound;
    this.started = false;
    this.walkingFromRoot = false;
    if (this.overflowed[bound] === true) this.walkFromRoot();
    return (this.queued[bound]?.length ?? 0) > 0;
  }

  /**
   * The rest of this iteration walks from the root with an empty H (counting only the
   * executions that need exactly this many preemptions): H and the kept steps rest on the
   * steps kept for this bound, which are lost or cannot all be reached.
   */
  private walkFromRoot(): void {
    this.walkingFromRoot = true;
    this.started = false;
    this.closed.clear();
    this.deferredKeys.clear();
    for (let later = this.bound; later < this.queued.length; later++) this.dropQueued(later);
    this.overflowed.length = this.bound;
    this.queued[this.bound] = [{ decisions: new Uint16Array(0), key: stateKey(0, 0) }];
  }

  beyondMaxBound(): boolean {
    return this.droppedBeyondMaxBound;
  }

  next(): Schedule | undefined {
    if (!this.expired) {
      try {
        return this.nextSchedule();
      } catch (error) {
        if (!(error instanceof OutOfTime)) throw error;
        this.expired = true;
      }
    }
    // out of time: any run will do (it is not counted); the driver stops by the clock after it
    return { decisions: this.path.decision, length: 0 };
  }

  private nextSchedule(): Schedule | undefined {
    if (this.markPending) {
      this.markPending = false;
      this.run.prefix(this.path.length, this.state);
      this.mark(this.state.counts, this.state.hashA, this.state.hashB);
    }
    if (this.started) {
      const resumed = this.backtrack();
      if (resumed) return resumed;
    }
    for (let start = this.queued[this.bound]?.pop(); start; start = this.queued[this.bound]?.pop()) {
      this.queuedDecisions -= start.decisions.length;
      if (this.closed.has(start.key)) continue; // marked since it was kept
      this.started = true;
      // the run records the whole path: the states and threads of the kept step's way there too
      this.path.startFrom(start.decisions, 0);
      const length = start.decisions.length;
      // the whole run to the kept step is a plan: an atomic section hbcache could not see may
      // forbid the step, and a thread's detected spin (the runtime sets it aside like a yield,
      // depending on what ran between its reads) may forbid a step of the way there
      this.plannedStep = length - 1;
      return { decisions: this.path.decision, length, ...(length > 0 ? { planFrom: 0 } : {}) };
    }
    return undefined;
  }

  /** The deepest node with a step that leads out of H within the bound: take it. */
  private backtrack(): Schedule | undefined {
    const path = this.path;
    if (path.length > path.fixed) this.run.prefix(path.length, this.state);
    return path.backtrack(this);
  }

  /** At a node (the state before it in this.state, the nodes below dropped): a step that leads out of H within the bound. */
  resumeFrom(node: number): Schedule | undefined {
    const path = this.path;
    this.run.dropLast(node, this.state);
    if (path.valueCount[node]! > 0) {
      while (path.nextValue[node]! < path.valueCount[node]!) {
        const value = path.nextValue[node]!++;
        if (!this.closed.has(this.run.successorKey(this.state, path.runner[node]!, node, value))) return path.resumeAt(node, value);
      }
    } else {
      const at = node * WORDS;
      for (let thread = first(path.enabled, at); thread >= 0; thread = first(path.enabled, at, thread + 1)) {
        if (has(path.done, at, thread)) continue;
        add(path.done, at, thread);
        if (this.closed.has(this.run.successorKey(this.state, thread, this.run.nextStep(this.state.counts, thread)))) continue;
        if (this.bounds.of(this.run, this.state, thread) <= this.bound) return path.resumeAt(node, thread);
      }
    }
    // every step from here is explored, in H or beyond the bound: the state is closed
    const key = stateKey(this.state.hashA, this.state.hashB);
    if (!this.closed.has(key)) this.mark(this.state.counts, this.state.hashA, this.state.hashB);
    return undefined;
  }

  /** The first step up to `last` where the run did not take the planned decision, or -1. */
  private declinedAt(execution: ExecutionView, last: number): number {
    for (let step = 0; step <= last; step++)
      if (step >= execution.steps || decisionAt(execution, step) !== this.path.decision[step]) return step;
    return -1;
  }

  observe(execution: ExecutionView): boolean {
    if (this.expired) return false;
    if (this.path.reserve(execution.steps + 1)) {
      this.prefixA = grown(this.prefixA, this.path.room + 1);
      this.prefixB = grown(this.prefixB, this.path.room + 1);
    }
    try {
      return this.learn(execution);
    } catch (error) {
      if (!(error instanceof OutOfTime)) throw error;
      this.expired = true;
      return false;
    }
  }

  private learn(execution: ExecutionView): boolean {
    if (execution.threadState[HB_MAX_THREADS] !== 0) {
      throw new UnexplorableHarnessError(Outcome.LIMIT, `hbcache explores at most ${HB_MAX_THREADS} threads (main included); this harness starts more: use the default strategy (auto), optimal, bpor or dfs`);
    }
    if (refused(execution)) {
      throw new UnexplorableHarnessError(Outcome.LIMIT, 'hbcache does not explore harnesses that yield, sleep, wait with a timeout, call pthread_once or take read locks: use the default strategy (auto), optimal, bpor or dfs');
    }
    const planned = this.plannedStep;
    this.plannedStep = -1;
    const declined = planned >= 0 ? this.declinedAt(execution, planned) : -1;
    if (declined >= 0) {
      const wanted = this.path.decision[declined]!;
      if (declined === planned && (declined === 0 || execution.thread[declined - 1] !== wanted)) {
        // the kept step, with another thread in an atomic section: it cannot happen in that state
        this.path.length = this.path.fixed;
        return false;
      }
      // the way there, or the kept step right after its thread's spin: this order of the
      // state's steps cannot be run, another may; never lose it: walk from the root instead
      this.walkFromRoot();
      return false;
    }
    const run = this.run;
    const path = this.path;
    this.bounds.trim();
    run.load(execution);
    const steps = execution.steps;
    for (let i = 0; i < steps; i++) {
      this.prefixA[i + 1] = this.prefixA[i]! ^ run.hashA[i]!;
      this.prefixB[i + 1] = this.prefixB[i]! ^ run.hashB[i]!;
    }
    run.observeEnabled((length) => stateKey(this.prefixA[length]!, this.prefixB[length]!));
    path.recordResumed(execution);
    for (let i = path.length; i < steps; i++) path.record(execution, i);
    // a run that enters a state of H can only end in a terminal state explored before
    for (let length = Math.max(path.length, path.fixed) + 1; length <= steps; length++) {
      if (this.closed.has(stateKey(this.prefixA[length]!, this.prefixB[length]!))) {
        path.length = length;
        return false;
      }
    }
    path.length = steps;
    this.markPending = true;
    const terminal = stateKey(this.prefixA[steps]!, this.prefixB[steps]!);
    if (this.walkingFromRoot) {
      if (this.counted.has(terminal)) return false;
      run.prefix(steps, this.state);
      if (this.bounds.ofExecution(run, this.state) !== this.bound) return false;
    }
    this.counted.add(terminal);
    return true;
  }

  /**
   * Algorithm 2's Mark: puts the state into H, keeps its steps beyond the bound for later
   * iterations, and marks each predecessor whose every bounded successor is now in H. The
   * recursion runs on an explicit stack (predecessors reach back as far as the run is long):
   * per level, the key halves of its state, the thread removed to reach it and the next
   * thread to try removing.
   */
  private mark(counts: Int32Array, hashA: number, hashB: number): void {
    const run = this.run;
    let depth = 0;
    this.enterMarked(depth++, counts, hashA, hashB, -1);
    while (depth > 0) {
      this.deadline.tick();
      const top = depth - 1;
      const topA = this.markA[top]!;
      const topB = this.markB[top]!;
      let entered = false;
      for (let thread = this.markNext[top]!; thread < run.width && !entered; thread++) {
        this.markNext[top] = thread + 1;
        if (!run.isMaximal(counts, thread)) continue;
        const step = run.stepAt(thread, counts[thread]! - 1);
        counts[thread]!--;
        const before: Downset = { counts, hashA: topA ^ run.hashA[step]!, hashB: topB ^ run.hashB[step]! };
        entered =
          !this.closed.has(stateKey(before.hashA, before.hashB)) &&
          this.bounds.of(run, before, thread) <= this.bound &&
          this.successorsClosed(before);
        if (entered) this.enterMarked(depth++, counts, before.hashA, before.hashB, thread);
        else counts[thread]!++;
      }
      if (entered) continue;
      depth--;
      const removed = this.markRemoved[top]!;
      if (removed >= 0) counts[removed]!++;
    }
  }

  /** Puts a state into H and pushes it on Mark's stack. */
  private enterMarked(at: number, counts: Int32Array, hashA: number, hashB: number, removed: number): void {
    if (at === this.markA.length) {
      this.markA = grown(this.markA, at * 2);
      this.markB = grown(this.markB, at * 2);
      this.markRemoved = grown(this.markRemoved, at * 2);
      this.markNext = grown(this.markNext, at * 2);
    }
    this.markA[at] = hashA;
    this.markB[at] = hashB;
    this.markRemoved[at] = removed;
    this.markNext[at] = 0;
    this.closed.add(stateKey(hashA, hashB));
    this.keepCostlySteps(counts, hashA, hashB);
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
      this.deferredKeys.add(key);
      this.keep(cost, { decisions, key });
    }
  }

  /** Queues a step for the iteration of its bound, unless the kept steps would outgrow their cap. */
  private keep(cost: number, step: Deferred): void {
    if (this.overflowed[cost]) return;
    if (this.queuedDecisions + step.decisions.length > this.limits.queueCap) {
      // that iteration will walk from the root instead
      this.dropQueued(cost);
      this.overflowed[cost] = true;
      return;
    }
    this.queuedDecisions += step.decisions.length;
    const queue = this.queued[cost];
    if (queue) queue.push(step);
    else this.queued[cost] = [step];
  }

  private dropQueued(bound: number): void {
    for (const step of this.queued[bound] ?? []) this.queuedDecisions -= step.decisions.length;
    this.queued[bound] = [];
  }
}
