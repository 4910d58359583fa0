// dfs: exhaustive depth-first search of the schedules with a preemption bound and no
// reduction — the baseline ("cb-dfs" in Musuvathi & Qadeer's Table 1).
//
// Iterative context bounding without repeats: iteration c starts from prefixes that
// already contain exactly c preemptions and only explores free choices below them
// (switches at points where the running thread blocked, finished or yielded, and data
// choices). A choice that would preempt is kept as a prefix for iteration c + 1.
//
// Memory stays flat: at most PREFIX_CAP prefixes are kept for the next iteration. When
// more are found, none are kept; the next iteration walks again from the root instead,
// taking preemptions while it has fewer than c and counting only the executions with
// exactly c (the others were counted by earlier iterations).
import { Op } from '../addon/ops.js';
import {
  type ExecutionView, type Schedule, type Strategy, type StrategyOptions, decisionAt, isPreemption, runningBefore,
} from './strategy.js';

const PREFIX_CAP = 4096;

export class DfsStrategy implements Strategy {
  readonly name = 'dfs';
  readonly bounded = true;
  private readonly maxBound: number;
  /** the current path: decisions of the last execution, then the alternative being tried */
  private readonly path: Uint16Array;
  /** per path node: untried thread alternatives to take in this iteration (bit mask) */
  private readonly alternatives: Uint32Array;
  /** per path node: preemptions taken by the decisions before it */
  private readonly spent: Uint16Array;
  /** per CHOOSE node: the next value to try, and how many values there are */
  private readonly nextValue: Uint32Array;
  private readonly valueCount: Uint32Array;
  private pathLength = 0;
  /** nodes below this index come from the iteration's starting prefix: never revisited */
  private fixedLength = 0;
  private started = false;
  private bound = 0;
  /** this iteration walks from the root (the prefixes for it overflowed the cap) */
  private walkingFromRoot = false;
  private startingPrefixes: Uint16Array[] = [];
  private nextPrefixes: Uint16Array[] = [];
  private nextOverflowed = false;
  private droppedBeyondMaxBound = false;

  /** `prefixCap`: how many prefixes to keep for the next iteration before walking from the root instead */
  constructor(options: StrategyOptions, private readonly prefixCap = PREFIX_CAP) {
    this.maxBound = options.maxBound;
    this.path = new Uint16Array(options.capacity);
    this.alternatives = new Uint32Array(options.capacity);
    this.spent = new Uint16Array(options.capacity + 1);
    this.nextValue = new Uint32Array(options.capacity);
    this.valueCount = new Uint32Array(options.capacity);
  }

  beginBound(bound: number): boolean {
    this.bound = bound;
    this.walkingFromRoot = bound > 0 && this.nextOverflowed;
    this.startingPrefixes = bound === 0 || this.walkingFromRoot ? [new Uint16Array(0)] : this.nextPrefixes;
    this.nextPrefixes = [];
    this.nextOverflowed = false;
    this.started = false;
    return this.startingPrefixes.length > 0;
  }

  next(): Schedule | undefined {
    if (this.started) {
      const resumed = this.backtrack();
      if (resumed) return resumed;
    }
    const prefix = this.startingPrefixes.pop();
    if (!prefix) return undefined;
    this.started = true;
    this.path.set(prefix);
    this.pathLength = this.fixedLength = prefix.length;
    return { decisions: this.path, length: prefix.length };
  }

  /** The deepest node with an untried alternative: switch it, drop what follows. */
  private backtrack(): Schedule | undefined {
    for (let node = this.pathLength - 1; node >= this.fixedLength; node--) {
      const threads = this.alternatives[node]!;
      if (threads !== 0) {
        const thread = 31 - Math.clz32(threads & -threads);
        this.alternatives[node] = threads & (threads - 1);
        return this.resumeAt(node, thread);
      }
      if (this.nextValue[node]! < this.valueCount[node]!) return this.resumeAt(node, this.nextValue[node]!++);
    }
    return undefined;
  }

  private resumeAt(node: number, decision: number): Schedule {
    this.path[node] = decision;
    this.pathLength = node + 1;
    return { decisions: this.path, length: node + 1 };
  }

  observe(execution: ExecutionView): boolean {
    for (let step = Math.max(this.pathLength, 1); step <= execution.steps; step++) {
      const before = step - 1;
      const preempted = execution.op[before] !== Op.CHOOSE && isPreemption(execution, before, execution.thread[before]!);
      this.spent[step] = this.spent[before]! + (preempted ? 1 : 0);
    }
    for (let step = this.pathLength; step < execution.steps; step++) {
      this.path[step] = decisionAt(execution, step);
      this.alternatives[step] = 0;
      this.nextValue[step] = this.valueCount[step] = 0;
      if (execution.op[step] === Op.CHOOSE) {
        this.nextValue[step] = execution.value[step]! + 1;
        this.valueCount[step] = execution.object[step]!;
        continue;
      }
      const chosen = execution.thread[step]!;
      const previous = runningBefore(execution, step);
      const enabled = execution.enabled[step]!;
      const others = enabled & ~(1 << chosen);
      if (((enabled >>> previous) & 1) === 0) this.alternatives[step] = others;
      else if (this.spent[step]! < this.bound) this.alternatives[step] = others & ~(1 << previous);
      else this.deferPreemptions(step, others & ~(1 << previous));
    }
    this.pathLength = execution.steps;
    // walking from the root, executions with fewer preemptions were counted before
    return !this.walkingFromRoot || this.spent[execution.steps] === this.bound;
  }

  /** Switching away from a thread that could continue costs a preemption: next iteration. */
  private deferPreemptions(step: number, threads: number): void {
    if (threads === 0) return;
    if (this.bound + 1 > this.maxBound) {
      this.droppedBeyondMaxBound = true;
      return;
    }
    if (this.nextOverflowed) return;
    for (let rest = threads; rest !== 0; rest &= rest - 1) {
      if (this.nextPrefixes.length === this.prefixCap) {
        this.nextOverflowed = true;
        this.nextPrefixes = [];
        return;
      }
      const prefix = this.path.slice(0, step + 1);
      prefix[step] = 31 - Math.clz32(rest & -rest);
      this.nextPrefixes.push(prefix);
    }
  }

  beyondMaxBound(): boolean {
    return this.droppedBeyondMaxBound;
  }
}
