// Dynamic partial-order reduction, shared by `bpor` and `optimal`: explore one schedule,
// find its races (RaceFinder), and backtrack only where reversing a race can lead to a
// new behaviour — never everywhere, as dfs does.
//
// Schedules are decision prefixes; the runtime's default policy completes them. State is
// the current path only, so memory stays flat however long the search runs. Under a bound
// each iteration c is a whole search from the root at bound c: choices that would need
// more preemptions are dropped (noting that iteration c + 1 has work), and only the
// executions with exactly c preemptions count as new (earlier iterations counted the rest).
//
// Unbounded (optimal), a race is reversed by a wakeup sequence — the steps that reverse
// it, kept in the wakeup tree of the node before the race — and a run follows its whole
// sequence, with the sleeping threads handed to the runtime: so no run ends up where
// every enabled thread is asleep, and none is wasted.
import { Aside, MAX_THREADS, Op, Outcome, ThreadState } from '../addon/ops.js';
import { Access, accessOf, aroundAside, orderedAccessOf, pendingAfterAside, potentialAccessOf, stepsConflict } from './dependence.js';
import { type Backtracking, Path } from './path.js';
import { RaceFinder } from './races.js';
import { Deviations } from './shard.js';
import type { BacktrackAbove, Subtree, SubtreeLink } from './subtree.js';
import { Reversal } from './reversal.js';
import { type ExecutionView, type Schedule, type Strategy, type StrategyOptions, decisionAt, preemptionCharge, preemptionCost } from './strategy.js';
import { grown } from './typed-arrays.js';
import { WakeupTrees } from './wakeup-tree.js';
import { WORDS, add, addAll, clear, copy, first, has, remove, removeAll, threadSets } from './thread-set.js';

export interface DporOptions extends StrategyOptions {
  name: string;
  /** explore under a preemption bound (with BPOR's conservative backtrack points) */
  bounded: boolean;
  /** sleep sets: skip choices already covered by an equivalent explored execution */
  sleepSets: boolean;
}

const noDecisions = new Uint16Array(0);

/** A race's v was not built in the last run: its reach there is not known. */
const UNKNOWN_REACH = 0x7fffffff;

/** What next() returns in a subtree waiting for the subtrees it gave away (subtree.ts) to be done. */
export const WAITING: Schedule = { decisions: noDecisions, length: -1 };

/**
 * In a deadlock, a thread left at a barrier's leave waits for the arrivals of its own
 * generation, which never completed; an arrival that races with it came after its own (one
 * before is ordered before it), so it is of that generation: the thread cannot leave before
 * it, and v would only run into the same class again.
 */
const awaitsArrival = (execution: ExecutionView, earlier: number, thread: number) =>
  execution.outcome === Outcome.DEADLOCK && execution.pendingOp[thread] === Op.BARRIER_LEAVE && execution.op[earlier] === Op.BARRIER_ARRIVE;

export class DporStrategy implements Strategy, Backtracking {
  readonly name: string;
  readonly reduces = true;
  readonly bounded: boolean;
  private readonly sleepSets: boolean;
  private readonly races = new RaceFinder();
  private readonly reversal = new Reversal();
  private readonly trees = new WakeupTrees();
  /** what a thread is about to do (nextEventOf fills it in), and the access it makes if it does it at the node */
  private readonly event: { op: number; object: number; value: number; access: Access } = { op: 0, object: 0, value: 0, access: Access.NONE };

  /** the current path: one node per step (its done: choices taken, or scheduled, at the node) */
  private readonly path: Path;
  // per path node (thread sets at node * WORDS)
  private backtrack: Uint32Array; // choices still to take at the node
  private sleep: Uint32Array;
  /** a set worked on while judging one node */
  private readonly scratch = threadSets();
  /** the threads asleep that the last schedule hands the runtime */
  private readonly asleep = threadSets();
  private cost: Uint16Array; // preemptions before the node's choice
  private setsAside: Uint8Array; // the node's step set its thread aside (trace.aside)
  /** unbounded: per node, its wakeup tree (-1: empty); the entry after the last node too */
  private tree: Int32Array;
  /** unbounded: the last step of the run's plan (the sequence taken from a wakeup tree) */
  private planEnd = -1;
  /**
   * Unbounded: the races of the current path (earlier and later step), in the order of their
   * later steps. They are reversed once the race finder has analysed every step: v holds
   * the steps after the race's later one too, whose clocks are not known while it is
   * being reported; and those of the prefix a run shares with the last are reversed again.
   */
  private raceEarlier = new Int32Array(64);
  private raceLater = new Int32Array(64);
  /** per race: the step its last reversal's verdict rests on (addReversal), or -1 */
  private raceSettledBy = new Int32Array(64);
  /** per race: the last step its last reversal's v held before the later step (-1: none; UNKNOWN_REACH: not built in the last run) */
  private raceReach = new Int32Array(64);
  /** per thread: the least clock entry of it among the steps of the run after its shared prefix */
  private readonly leastAfterPrefix = new Uint32Array(MAX_THREADS);
  private raceCount = 0;
  /** per node: the races (above) whose later step comes before it */
  private racesBefore: Int32Array;

  private bound = 0;
  private started = false;
  /** the iteration dropped choices that need more preemptions than its bound */
  private droppedBeyondBound = false;
  /** bpor: steps around an aside conflict with every other thread's (dependence.ts: aroundAside) */
  private ordersAsides = false;

  // parallel exploration of a bounded search (subtree.ts)
  /** where backtracking at the nodes before the path's fixed prefix goes; undefined: the whole search is here */
  private link: SubtreeLink | undefined;
  /** per node of the fixed prefix (thread sets): Subtree.covered */
  private covered = new Uint32Array(0);
  /** per node: subtrees given away there and not done yet */
  private outstanding: Uint32Array;

  constructor(options: DporOptions) {
    this.name = options.name;
    this.bounded = options.bounded;
    this.sleepSets = options.sleepSets;
    if (this.bounded) {
      // what a step right after a yield costs depends on which other threads can run then
      this.ordersAsides = true;
      this.races.ordersAsides = true;
      this.reversal.ordersAsides = true;
      this.races.handOffs = true;
    }
    // explore/shard.ts: a split of the bounded search only (wakeup sequences cross subtrees)
    if (options.shard && !this.bounded) throw new Error('weft internal error: only a bounded search is split into shards');
    this.path = new Path(options.shard ? new Deviations(options.shard) : undefined);
    const n = this.path.room;
    this.backtrack = threadSets(n);
    this.sleep = threadSets(n);
    this.cost = new Uint16Array(n);
    this.setsAside = new Uint8Array(n);
    this.tree = new Int32Array(n + 1).fill(-1);
    this.outstanding = new Uint32Array(n);
    this.racesBefore = new Int32Array(n + 1);
  }

  /** Room for a run of `steps` steps (and the node after it), in the path and in this strategy's per-node arrays. */
  private reserve(steps: number): void {
    if (!this.path.reserve(steps + 1)) return;
    const n = this.path.room;
    this.backtrack = grown(this.backtrack, n * WORDS);
    this.sleep = grown(this.sleep, n * WORDS);
    this.cost = grown(this.cost, n);
    this.setsAside = grown(this.setsAside, n);
    this.outstanding = grown(this.outstanding, n);
    this.racesBefore = grown(this.racesBefore, n + 1);
    const trees = this.tree;
    this.tree = new Int32Array(n + 1).fill(-1);
    this.tree.set(trees);
  }

  beginBound(bound: number): boolean {
    if (bound > 0 && !this.droppedBeyondBound) return false;
    this.bound = this.bounded ? bound : Number.POSITIVE_INFINITY;
    this.started = false;
    this.droppedBeyondBound = false;
    return true;
  }

  next(): Schedule | undefined {
    if (!this.started) {
      this.started = true;
      // a subtree's first run: its prefix, then the runtime's default policy
      return this.link ? { decisions: this.path.decision, length: this.path.fixed } : this.fromRoot();
    }
    return this.path.backtrack(this);
  }

  /** The schedule of a run from the root: no decisions, the runtime's default policy throughout. */
  private fromRoot(): Schedule {
    this.path.startFrom(noDecisions);
    return { decisions: this.path.decision, length: 0 };
  }

  /** Explores `subtree` of a bounded search instead of the whole of it; what belongs above it goes to `link`. */
  startSubtree(subtree: Subtree, link: SubtreeLink): void {
    if (!this.bounded) throw new Error('weft internal error: only a bounded search is split into subtrees');
    this.link = link;
    this.bound = subtree.bound;
    this.started = false;
    this.covered = Uint32Array.from(subtree.covered);
    const prefix = Uint16Array.from(subtree.prefix);
    this.reserve(prefix.length);
    this.path.startFrom(prefix, 0, subtree.deviations);
  }

  /**
   * Gives away a choice left at the node nearest the root (the largest subtree left): it is
   * explored elsewhere exactly as here, and this subtree keeps the node on its path until
   * told that it is done (subtreeDone). Undefined: no choice left to give.
   */
  giveAway(): Subtree | undefined {
    const path = this.path;
    for (let node = path.fixed; node < path.length; node++) {
      if (path.valueCount[node]! > 0) continue;
      const at = node * WORDS;
      for (let thread = first(this.backtrack, at); thread >= 0; thread = first(this.backtrack, at, thread + 1)) {
        remove(this.backtrack, at, thread);
        if (!this.schedule(node, thread)) continue;
        const { deviations } = path;
        if (deviations && !deviations.ownsWith(node, thread)) continue; // another shard's subtree
        this.outstanding[node]!++;
        const covered = Array.from(this.covered.subarray(0, path.fixed * WORDS));
        for (let k = path.fixed; k <= node; k++) covered.push(...this.coveredAt(k));
        const prefix = Array.from(path.decision.subarray(0, node));
        prefix.push(thread);
        return { prefix, bound: this.bound, covered, ...(deviations ? { shard: deviations.shard, deviations: deviations.savedWith(node, thread) } : {}) };
      }
    }
    return undefined;
  }

  /** A subtree given away at `node` is done (what it backtracked above came before). */
  subtreeDone(node: number): void {
    this.outstanding[node]!--;
  }

  /** What a subtree given away below backtracks at a node of this one's path, or above it. */
  receive({ node, thread, everyThreadIfDisabled }: BacktrackAbove): void {
    this.backtrackAt(node, thread, everyThreadIfDisabled);
  }

  beyondMaxBound(): boolean {
    return this.droppedBeyondBound;
  }

  /** At a node: a choice left in this iteration — a value, a wakeup sequence, a backtrack choice. */
  resumeFrom(node: number): Schedule | undefined {
    if (this.path.valueCount[node]! > 0) return this.resumeChoice(node);
    const sequence = this.takeWakeup(node);
    if (sequence >= 0) return this.resumeAt(node, this.trees.threadOf(sequence), sequence);
    const at = node * WORDS;
    for (let thread = first(this.backtrack, at); thread >= 0; thread = first(this.backtrack, at, thread + 1)) {
      remove(this.backtrack, at, thread);
      if (!has(this.path.done, at, thread) && this.schedule(node, thread)) return this.resumeAt(node, thread);
    }
    return this.outstanding[node]! > 0 ? WAITING : undefined;
  }

  /** A CHOOSE node: the next value its wakeup tree plans (with the rest of the plan), else the next value not taken. */
  private resumeChoice(node: number): Schedule | undefined {
    const tree = this.tree[node]!;
    if (tree >= 0) {
      for (let sequence = this.trees.takeFirst(tree); sequence >= 0; sequence = this.trees.takeFirst(tree)) {
        const value = this.trees.decisionOf(sequence);
        if (this.takeValue(node, value)) return this.resumeAt(node, value, sequence);
        this.trees.release(sequence);
      }
    }
    while (this.path.nextValue[node]! < this.path.valueCount[node]!) {
      const value = this.path.nextValue[node]!++;
      if (this.takeValue(node, value)) return this.resumeAt(node, value);
    }
    return undefined;
  }

  /** Marks a CHOOSE node's value as taken; false when it was (values from MAX_THREADS on are not remembered: a plan may repeat one). */
  private takeValue(node: number, value: number): boolean {
    if (value >= MAX_THREADS) return true;
    if (has(this.path.done, node * WORDS, value)) return false;
    add(this.path.done, node * WORDS, value);
    return true;
  }

  /** The next sequence of the node's wakeup tree that can start there (-1: none left). */
  private takeWakeup(node: number): number {
    const tree = this.tree[node]!;
    if (tree < 0) return -1;
    for (let sequence = this.trees.takeFirst(tree); sequence >= 0; sequence = this.trees.takeFirst(tree)) {
      const thread = this.trees.threadOf(sequence);
      // not enabled here (blocked): every enabled thread instead
      if (!has(this.path.enabled, node * WORDS, thread)) this.backtrackAt(node, thread);
      else if (this.schedule(node, thread)) return sequence;
      this.trees.release(sequence);
    }
    return -1;
  }

  /** Resumes at `node` with `decision`, then along the first branch of `sequence` if given. */
  private resumeAt(node: number, decision: number, sequence = -1): Schedule {
    const path = this.path;
    let length = node + 1;
    if (!this.bounded) {
      // the nodes below are explored: their trees are empty
      for (let below = node + 1; below <= path.length; below++) {
        if (this.tree[below]! >= 0) this.trees.release(this.tree[below]!);
        this.tree[below] = -1;
      }
      this.tree[node + 1] = sequence;
      // the plan: the first branch of the sequence's subtree (later branches are taken by backtracking)
      for (let next = this.trees.firstChildOf(sequence); next >= 0; next = this.trees.firstChildOf(next)) {
        this.reserve(length);
        path.decision[length++] = this.trees.decisionOf(next);
      }
      this.planEnd = length - 1;
    }
    path.takeAt(node, decision);
    if (!this.sleepSets) return { decisions: path.decision, length };
    // the threads asleep after the node, but for those its step wakes (the runtime judges
    // that, then keeps the set up to date as the run goes on past the decisions)
    const { asleep } = this;
    copy(asleep, 0, this.sleep, node * WORDS);
    if (path.valueCount[node] === 0) {
      addAll(asleep, 0, path.done, node * WORDS);
      remove(asleep, 0, decision);
    }
    return { decisions: path.decision, length, asleep, asleepFrom: node, planFrom: node + 1 };
  }

  /** Records choosing `thread` at `node`; true when it is to be explored (within the iteration's bound). */
  private schedule(node: number, thread: number): boolean {
    if (has(this.path.done, node * WORDS, thread)) return false;
    add(this.path.done, node * WORDS, thread);
    if (this.cost[node]! + this.preempts(node, thread) <= this.bound) return true;
    this.droppedBeyondBound = true;
    return false;
  }

  /** Preemptions of the path's first `steps` steps. */
  private preemptionsOf(steps: number): number {
    if (steps === 0) return 0; // main blocked before its first step: a run of no steps
    const last = steps - 1;
    return this.cost[last]! + (this.path.valueCount[last] === 0 ? this.preempts(last, this.path.decision[last]!) : 0);
  }

  private preempts(node: number, thread: number): number {
    if (node === 0) return 0;
    return preemptionCost(this.path.enabled, node * WORDS, this.path.runner[node - 1]!, this.yieldedBefore(node), thread);
  }

  /** Whether the thread that ran before `node` set itself aside at its last step (its data choices since are no scheduling point). */
  private yieldedBefore(node: number): boolean {
    let last = node - 1;
    while (last >= 0 && this.path.valueCount[last]! > 0) last--;
    return last >= 0 && this.setsAside[last] !== 0;
  }

  /** Whether switching threads at `node` is free: the thread before it could not go on there, or had just yielded. */
  private switchIsFree(node: number): boolean {
    return preemptionCharge(true, this.yieldedBefore(node), has(this.path.enabled, node * WORDS, this.path.runner[node - 1]!), false) === 0;
  }

  observe(execution: ExecutionView): boolean {
    let steps = execution.steps;
    this.reserve(steps);
    const resumed = this.path.length - 1; // its choice just changed
    this.path.recordResumed(execution);
    if (resumed >= 0) this.setsAside[resumed] = execution.aside[resumed]! & Aside.DURING;
    for (let step = this.path.length; step < steps; step++) {
      if (!this.addNode(execution, step)) {
        steps = step + 1; // the runtime went on into a sleeping thread: the rest is redundant
        break;
      }
    }
    const redundant = steps < execution.steps;
    const analysed = redundant ? steps - 1 : steps;
    // the steps before the resumed node are as in the last execution: their races are known
    const from = Math.max(resumed, 0);
    this.raceCount = this.racesBefore[from]!;
    this.races.find(execution, analysed, from, (earlier, later, handOff) => {
      if (this.bounded) this.backtrackBounded(earlier, execution.thread[later]!, handOff);
      else if (later >= from) this.noteRace(earlier, later);
    });
    if (!this.bounded) {
      let race = this.racesBefore[from]!;
      for (let step = from + 1; step <= analysed; step++) {
        while (race < this.raceCount && this.raceLater[race]! < step) race++;
        this.racesBefore[step] = race;
      }
      // every race of the execution, those of the prefix too: v reaches past them into the steps that changed
      this.noteLeastAfterPrefix(from, analysed);
      for (let r = 0; r < this.raceCount; r++) {
        // its v here is not known, and may differ from its last where a later run shares less
        if (this.settledBefore(r, from)) this.raceReach[r] = UNKNOWN_REACH;
        else if (!this.sameReversal(r, execution, from)) this.reverse(r, execution, analysed);
      }
    }
    if (!redundant && steps > 0) {
      this.reverseEnding(execution, steps - 1);
      this.reversePending(execution, steps);
    }
    this.path.length = steps;
    // an execution with fewer preemptions than the bound was counted by an earlier iteration
    return !redundant && this.path.counted && (!this.bounded || this.preemptionsOf(steps) === this.bound);
  }

  /** Adds the node for `step`; false when its thread is asleep (covered elsewhere). */
  private addNode(execution: ExecutionView, step: number): boolean {
    const path = this.path;
    path.record(execution, step);
    this.setsAside[step] = execution.aside[step]! & Aside.DURING;
    const at = step * WORDS;
    clear(this.backtrack, at);
    this.outstanding[step] = 0;
    if (!this.bounded) this.followPlan(execution, step);
    if (step > 0) {
      this.cost[step] = this.cost[step - 1]! + this.preempts(step - 1, path.decision[step - 1]!) * (path.valueCount[step - 1] === 0 ? 1 : 0);
    }
    if (this.sleepSets && step > 0) this.sleepAfter(execution, step - 1);
    else clear(this.sleep, at);
    if (execution.op[step] === Op.CHOOSE) {
      // every value not taken, those below the first one taken too (a plan may take any first)
      path.nextValue[step] = 0;
      return true;
    }
    // one shard of the search (explore/shard.ts): every thread is a choice where runs of several shards pass
    if (path.deviations?.shared(step)) copy(this.backtrack, at, path.enabled, at);
    const thread = execution.thread[step]!;
    if (!has(this.sleep, at, thread)) return true;
    // take an awake thread instead
    copy(this.backtrack, at, path.enabled, at);
    removeAll(this.backtrack, at, this.sleep, at);
    return false;
  }

  /** Moves down the wakeup tree the run was planned from; past the plan, nodes start with empty trees. */
  private followPlan(execution: ExecutionView, step: number): void {
    let next = -1;
    if (step <= this.planEnd) {
      const tree = this.tree[step]!;
      const planned = this.trees.firstChildOf(tree);
      if (this.trees.takes(planned, execution.op[step]!, decisionAt(execution, step))) next = this.trees.takeFirst(tree);
      else this.planEnd = step - 1; // the runtime left the plan here: the tree stays pending at the node
    }
    this.tree[step + 1] = next;
  }

  /** Sets the threads asleep after `node`: asleep or explored before at it, and not woken by its step. */
  private sleepAfter(execution: ExecutionView, node: number): void {
    const at = node * WORDS;
    const after = at + WORDS;
    copy(this.sleep, after, this.sleep, at);
    if (this.path.valueCount[node]! > 0) return;
    const candidates = this.scratch;
    copy(candidates, 0, this.sleep, at);
    addAll(candidates, 0, this.path.done, at);
    remove(candidates, 0, this.path.runner[node]!);
    clear(this.sleep, after);
    for (let thread = first(candidates, 0); thread >= 0; thread = first(candidates, 0, thread + 1))
      if (this.independentOfStep(execution, thread, node)) add(this.sleep, after, thread);
  }

  /** Whether what `thread` is about to do at `node` (judged by what it may do there) commutes with the step taken there. */
  private independentOfStep(execution: ExecutionView, thread: number, node: number): boolean {
    const { op, object, value, access } = this.nextEventOf(execution, thread, node);
    const done = execution.op[node]!;
    const doneAccess = this.ordersAsides ? orderedAccessOf(execution, node) : accessOf(done);
    return !stepsConflict(op, object, value, access, done, execution.object[node]!, execution.value[node]!, doneAccess);
  }

  /**
   * What `thread` (not the one running at `node`) does next: its next step, or the op it was
   * left pending at; and the access it makes if it takes that step before the node's: what
   * the op may do, but for a compare-exchange the runtime saw would fail there — a read.
   */
  private nextEventOf(execution: ExecutionView, thread: number, node: number): { op: number; object: number; value: number; access: Access } {
    const event = this.event;
    event.op = execution.pendingOp[thread]!;
    event.object = execution.pendingObject[thread]!;
    event.value = 0;
    let next = -1; // the step; -1: the pending step
    for (let step = node + 1; step < execution.steps; step++) {
      if (execution.thread[step] === thread && execution.op[step] !== Op.CHOOSE) {
        event.op = execution.op[step]!;
        event.object = execution.object[step]!;
        event.value = execution.value[step]!;
        next = step;
        break;
      }
    }
    const cas = event.op === Op.ATOMIC_CAS || event.op === Op.ATOMIC_CAS_FAIL;
    const ordered = this.ordersAsides && (next === -1 ? pendingAfterAside(execution, thread) : aroundAside(execution, next));
    event.access = ordered ? Access.GLOBAL : cas && has(execution.casFails, node * WORDS, thread) ? Access.READ : potentialAccessOf(event.op);
    return event;
  }

  /**
   * Unbounded, a race between steps `earlier` and `later` of the first `steps` steps: before
   * `earlier`, schedule what runs a reversed execution — v, every step after `earlier` that
   * does not happen after it, then `later` (notdep(e, E).e' in Abdulla et al.). Stopping v
   * at `later` makes more threads asleep at the node weak initials of it, and the check
   * then drops reversals that no explored branch covers (four threads of loads and stores
   * lost a class that way).
   */
  private reverse(race: number, execution: ExecutionView, steps: number): void {
    const earlier = this.raceEarlier[race]!;
    const later = this.raceLater[race]!;
    this.reversal.build(execution, this.races, earlier, later, steps);
    this.raceReach[race] = this.reversal.reach;
    this.raceSettledBy[race] = this.addReversal(execution, earlier, execution.op[later]!);
  }

  /**
   * Whether race `race`, of the prefix this run shares with the last, has the v it had
   * there: the last v held no step past the prefix, and every step of this run past it
   * happens after the race's first step. Its reversal then changes nothing: v is in the
   * wakeup tree already, or what covered it still does (what covers a node only grows).
   */
  private sameReversal(race: number, execution: ExecutionView, from: number): boolean {
    if (this.raceLater[race]! >= from || this.raceReach[race]! >= from) return false;
    const earlier = this.raceEarlier[race]!;
    const thread = execution.thread[earlier]!;
    return this.leastAfterPrefix[thread]! >= this.races.clockOf(earlier, thread);
  }

  /** leastAfterPrefix for the steps from `from` to `end`: a step happens after step e when its entry of e's thread reaches e's. */
  private noteLeastAfterPrefix(from: number, end: number): void {
    const width = this.races.threadCount;
    this.leastAfterPrefix.fill(0xffffffff, 0, width);
    for (let step = from; step < end; step++)
      for (let t = 0; t < width; t++) {
        const reached = this.races.clockOf(step, t);
        if (reached < this.leastAfterPrefix[t]!) this.leastAfterPrefix[t] = reached;
      }
  }

  /** Whether race `race` was found not to need its reversal for a reason that lies in the steps before `from` (the run's shared prefix). */
  private settledBefore(race: number, from: number): boolean {
    const step = this.raceSettledBy[race]!;
    return step >= 0 && step < from;
  }

  /** Unbounded: keeps a race of the execution to reverse once the whole execution is analysed. */
  private noteRace(earlier: number, later: number): void {
    if (this.raceCount === this.raceEarlier.length) {
      this.raceEarlier = grown(this.raceEarlier, this.raceCount * 2);
      this.raceLater = grown(this.raceLater, this.raceCount * 2);
      this.raceSettledBy = grown(this.raceSettledBy, this.raceCount * 2);
      this.raceReach = grown(this.raceReach, this.raceCount * 2);
    }
    this.raceSettledBy[this.raceCount] = -1;
    this.raceEarlier[this.raceCount] = earlier;
    this.raceLater[this.raceCount++] = later;
  }

  /**
   * The last step ended the execution (main returned, exit()) while other threads were
   * enabled: it conflicts with each one's pending step, which it kept from running.
   */
  private reverseEnding(execution: ExecutionView, last: number): void {
    if (accessOf(execution.op[last]!) !== Access.GLOBAL) return;
    const at = last * WORDS;
    for (let thread = first(this.path.enabled, at); thread >= 0; thread = first(this.path.enabled, at, thread + 1))
      if (thread !== this.path.runner[last]) this.reversePendingStep(execution, last, thread, false);
  }

  /**
   * Threads that never took their pending step (left blocked, or stopped by a bug) race
   * with the steps that kept them from it; those that an ending step stopped while
   * enabled are reverseEnding's.
   */
  private reversePending(execution: ExecutionView, steps: number): void {
    const last = steps - 1;
    const ending = accessOf(execution.op[last]!) === Access.GLOBAL;
    for (let thread = 0; thread < execution.threadState.length; thread++) {
      if (execution.threadState[thread] !== ThreadState.RUNNABLE) continue;
      if (ending && (has(this.path.enabled, last * WORDS, thread) || thread === this.path.runner[last])) continue;
      this.races.findPending(execution, steps, thread, (earlier, pending, handOff) => this.reversePendingStep(execution, earlier, pending, handOff));
    }
  }

  /** Puts the step `thread` never took before step `earlier`, which kept it from running. */
  private reversePendingStep(execution: ExecutionView, earlier: number, thread: number, handOff: boolean): void {
    if (this.bounded) this.backtrackBounded(earlier, thread, handOff);
    else if (!awaitsArrival(execution, earlier, thread)) {
      this.reversal.buildPending(execution, this.races, earlier, thread);
      this.addReversal(execution, earlier, execution.pendingOp[thread]!);
    }
  }

  /**
   * Under a bound, an initial of v may reach the reversed behaviour only with more
   * preemptions than another would: bpor backtracks the later thread itself (or every
   * enabled thread), as BPOR does — and also where the earlier step's thread last got the
   * processor, so that the reversal can happen there without a preemption, and at every
   * step of that block in between: going first at some of them lets the later thread
   * block and hand the processor back for free (random-program soundness tests found
   * such behaviours).
   */
  private backtrackBounded(earlier: number, thread: number, handOff: boolean): void {
    // a hand-off (races.ts): the thread is to run up to its wait early, where it can run;
    // where it cannot, the other threads there have nothing to do with it
    const everyThreadIfDisabled = !handOff;
    this.backtrackAt(earlier, thread, everyThreadIfDisabled);
    for (let node = earlier - 1; node >= 0 && this.path.runner[node] === this.path.runner[earlier]; node--) this.backtrackAt(node, thread, everyThreadIfDisabled);
    // ... and wherever, since the later thread's previous step, a thread blocked, finished or
    // yielded: switching to the later thread there is free too, and lets it act before the
    // earlier thread's rivals that ran next (random-program seed 55 needs one such switch)
    for (let node = earlier - 1; node > 0 && this.path.runner[node] !== thread; node--)
      if (this.switchIsFree(node)) this.backtrackAt(node, thread, everyThreadIfDisabled);
  }

  /** The threads asleep, explored or still to be chosen at `node` (in scratch, valid until its next use). */
  private coveredAt(node: number): Uint32Array {
    const at = node * WORDS;
    const threads = this.scratch;
    copy(threads, 0, this.sleep, at);
    addAll(threads, 0, this.path.done, at);
    addAll(threads, 0, this.backtrack, at);
    return threads;
  }

  /** A subtree's backtracking at a node of its prefix: for its owner, unless the owner had it chosen there already. */
  private backtrackAbove(node: number, thread: number, everyThreadIfDisabled: boolean): void {
    const at = node * WORDS;
    const { enabled } = this.path;
    if (has(enabled, at, thread)) {
      if (has(this.covered, at, thread)) return;
    } else {
      if (!everyThreadIfDisabled) return;
      let uncovered = false;
      for (let choice = first(enabled, at); choice >= 0 && !uncovered; choice = first(enabled, at, choice + 1)) uncovered = !has(this.covered, at, choice);
      if (!uncovered) return;
    }
    this.link!.backtrackAbove({ node, thread, everyThreadIfDisabled });
  }

  /**
   * Unbounded: adds v (built in this.reversal, ending with a step `laterOp`) to the wakeup
   * tree before `node` (optimal DPOR), unless something explored or pending there leads to
   * it. Returns the last step the answer rests on when that was not to add v: then v of any
   * run that shares the steps up to it is not added either (-1: v was added, or a thread
   * that commutes with all of it covers it, which a longer v may undo).
   */
  private addReversal(execution: ExecutionView, node: number, laterOp: number): number {
    // a sem_wait cannot go before a post that found the semaphore at 0: nothing in v
    // touches the semaphore (that would happen after the post), so the wait would block
    if (laterOp === Op.SEM_WAIT && execution.op[node] === Op.SEM_POST && execution.value[node] === 0) return node;
    const v = this.reversal;
    // a thread asleep, explored or chosen at the node that v's execution can start with
    // (the thread that runs at the node is not one: its step there conflicts with v's last)
    const threads = this.coveredAt(node);
    remove(threads, 0, this.path.runner[node]!);
    for (let thread = first(threads, 0); thread >= 0; thread = first(threads, 0, thread + 1)) {
      const { op, object, value, access } = this.nextEventOf(execution, thread, node);
      // its first step in v starts v: so it does in every v that shares the steps up to that one
      // (a thread commuting with all of v is judged against the whole of it)
      if (v.weakInitial(thread, op, object, value, access)) return v.settlingStep(thread);
    }
    if (this.tree[node]! < 0) this.tree[node] = this.trees.createRoot();
    this.trees.insert(this.tree[node]!, v);
    return -1;
  }

  /** Backtracks `thread` at `node`; where it cannot run there, every thread that can (`everyThreadIfDisabled`) or none. */
  private backtrackAt(node: number, thread: number, everyThreadIfDisabled = true): void {
    if (this.path.valueCount[node]! > 0) return;
    if (node < this.path.fixed) {
      this.backtrackAbove(node, thread, everyThreadIfDisabled);
      return;
    }
    const at = node * WORDS;
    const { enabled, done } = this.path;
    if (has(enabled, at, thread)) {
      if (!has(done, at, thread) && !has(this.sleep, at, thread)) add(this.backtrack, at, thread);
      return;
    }
    if (!everyThreadIfDisabled) return;
    // not enabled there: every choice
    for (let choice = first(enabled, at); choice >= 0; choice = first(enabled, at, choice + 1))
      if (!has(done, at, choice) && !has(this.sleep, at, choice)) add(this.backtrack, at, choice);
  }
}
