// dfs: exhaustive depth-first search of the schedules with a bound and no reduction — the
// baseline ("cb-dfs" in Musuvathi & Qadeer's Table 1), and SCTBench's delay-bounded search.
// The bound counts preemptions, or delays (StrategyOptions.bound; strategy.ts says what
// each costs); the runtime completes a run past its decisions at no cost (with delays, by
// round robin: RunFlags.ROUND_ROBIN).
//
// Iterative bounding without repeats: iteration c starts from prefixes that already spent
// exactly c and only explores free choices below them (data choices, and the thread
// decisions that cost nothing). A choice that costs k is kept as a prefix for iteration
// c + k (a preemption costs 1; a delay decision as many as the threads it skips).
//
// Memory stays flat: at most PREFIX_CAP prefixes are kept for later iterations. When more
// are found, none are kept; the next iteration walks again from the root instead, taking
// costly choices while they fit within c, counting only the executions that spent exactly
// c (the others were counted by earlier iterations), and finding again the prefixes for
// the iterations after it.
import { MAX_THREADS, Op } from '../addon/ops.js';
import { type Backtracking, Path } from './path.js';
import { Deviations } from './shard.js';
import {
  type BoundKind, type ExecutionView, type Schedule, type Strategy, type StrategyOptions, runningBefore, spentAt, threadsByCost, yieldedBefore,
} from './strategy.js';
import { WORDS, add, clear, first, remove, threadSets } from './thread-set.js';
import { grown } from './typed-arrays.js';

const PREFIX_CAP = 4096;

/** Decisions to start an iteration from; in a shard, with their deviations (Deviations.savedWith). */
interface Prefix {
  decisions: Uint16Array;
  deviations?: number[];
}

export class DfsStrategy implements Strategy, Backtracking {
  readonly name = 'dfs';
  readonly bounded = true;
  private readonly maxBound: number;
  private readonly kind: BoundKind;
  /** the current path: the last execution, then the alternative being tried */
  private readonly path: Path;
  /** per path node: untried thread alternatives to take in this iteration (a thread set at node * WORDS) */
  private alternatives: Uint32Array;
  /** per path node: what the decisions before it spent of the bound */
  private spent: Uint16Array;
  /** a node's enabled threads and what choosing each costs (threadsByCost) */
  private readonly threads = new Uint16Array(MAX_THREADS);
  private readonly costs = new Uint16Array(MAX_THREADS);
  /** spent[] is known for the current path up to this step (a fresh prefix: only spent[0]) */
  private spentKnown = 0;
  private started = false;
  private bound = 0;
  /** this iteration walks from the root (prefixes for it were dropped at the cap) */
  private walkingFromRoot = false;
  private startingPrefixes: Prefix[] = [];
  /** prefixes kept for later iterations, by the iteration (what they spent) */
  private laterPrefixes: Prefix[][] = [];
  private laterCount = 0;
  /** the cap was reached: the prefixes kept for later iterations were dropped */
  private laterOverflowed = false;
  private droppedBeyondMaxBound = false;

  /** `prefixCap`: how many prefixes to keep for later iterations before walking from the root instead */
  constructor(options: StrategyOptions, private readonly prefixCap = PREFIX_CAP) {
    this.maxBound = options.maxBound;
    this.kind = options.bound ?? 'preemption';
    this.path = new Path(options.shard ? new Deviations(options.shard) : undefined);
    this.alternatives = threadSets(this.path.room);
    this.spent = new Uint16Array(this.path.room + 1);
  }

  /** Room for a run of `steps` steps, in the path and in this strategy's per-node arrays. */
  private reserve(steps: number): void {
    if (!this.path.reserve(steps + 1)) return;
    this.alternatives = grown(this.alternatives, this.path.room * WORDS);
    this.spent = grown(this.spent, this.path.room + 1);
  }

  beginBound(bound: number): boolean {
    this.bound = bound;
    this.walkingFromRoot = bound > 0 && this.laterOverflowed;
    this.laterOverflowed = false;
    this.started = false;
    if (bound === 0 || this.walkingFromRoot) {
      // a walk from the root finds again every prefix for the iterations after it
      this.laterPrefixes = [];
      this.laterCount = 0;
      this.startingPrefixes = [{ decisions: new Uint16Array(0) }];
      return true;
    }
    this.startingPrefixes = this.laterPrefixes[bound] ?? [];
    this.laterPrefixes[bound] = [];
    this.laterCount -= this.startingPrefixes.length;
    // with delays an iteration may start from no prefix while later ones do (choices that skip several threads)
    return this.startingPrefixes.length > 0 || this.laterCount > 0;
  }

  next(): Schedule | undefined {
    if (this.started) {
      const resumed = this.path.backtrack(this);
      if (resumed) return resumed;
    }
    const prefix = this.startingPrefixes.pop();
    if (!prefix) return undefined;
    this.started = true;
    this.path.startFrom(prefix.decisions, prefix.decisions.length, prefix.deviations);
    this.spentKnown = 0;
    return { decisions: this.path.decision, length: prefix.decisions.length };
  }

  /** At a node: its next untried alternative, else its next value. */
  resumeFrom(node: number): Schedule | undefined {
    const thread = first(this.alternatives, node * WORDS);
    if (thread >= 0) {
      remove(this.alternatives, node * WORDS, thread);
      return this.resumeAt(node, thread);
    }
    const path = this.path;
    if (path.nextValue[node]! < path.valueCount[node]!) return this.resumeAt(node, path.nextValue[node]!++);
    return undefined;
  }

  private resumeAt(node: number, decision: number): Schedule {
    this.spentKnown = node;
    return this.path.resumeAt(node, decision);
  }

  observe(execution: ExecutionView): boolean {
    this.reserve(execution.steps);
    for (let step = this.spentKnown + 1; step <= execution.steps; step++)
      this.spent[step] = this.spent[step - 1]! + spentAt(this.kind, execution, step - 1);
    const path = this.path;
    for (let step = path.length; step < execution.steps; step++) {
      path.record(execution, step);
      const at = step * WORDS;
      clear(this.alternatives, at);
      if (execution.op[step] === Op.CHOOSE) continue;
      const chosen = execution.thread[step]!;
      const count = threadsByCost(this.kind, execution.enabled, at, runningBefore(execution, step), yieldedBefore(execution, step), this.threads, this.costs);
      for (let i = 0; i < count; i++) {
        const thread = this.threads[i]!;
        if (thread === chosen) continue;
        const total = this.spent[step]! + this.costs[i]!;
        if (total <= this.bound) add(this.alternatives, at, thread);
        else this.defer(step, thread, total);
      }
    }
    path.length = execution.steps;
    // walking from the root, executions that spent less were counted before
    return path.counted && (!this.walkingFromRoot || this.spent[execution.steps] === this.bound);
  }

  /** A choice that does not fit within this iteration's bound: a prefix for iteration `total`. */
  private defer(step: number, thread: number, total: number): void {
    if (total > this.maxBound) {
      this.droppedBeyondMaxBound = true;
      return;
    }
    if (this.laterOverflowed) return;
    const { deviations } = this.path;
    if (deviations && !deviations.ownsWith(step, thread)) return; // another shard's subtree
    if (this.laterCount === this.prefixCap) {
      this.laterOverflowed = true;
      this.laterPrefixes = [];
      this.laterCount = 0;
      return;
    }
    const later = this.laterPrefixes[total] ?? [];
    this.laterPrefixes[total] = later;
    const decisions = this.path.decision.slice(0, step + 1);
    decisions[step] = thread;
    later.push(deviations ? { decisions, deviations: deviations.savedWith(step, thread) } : { decisions });
    this.laterCount++;
  }

  beyondMaxBound(): boolean {
    return this.droppedBeyondMaxBound;
  }
}
