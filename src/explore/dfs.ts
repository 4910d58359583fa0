// dfs: exhaustive depth-first search of the schedules with a preemption bound and no
// reduction — the baseline ("cb-dfs" in Musuvathi & Qadeer's Table 1).
//
// Iterative context bounding without repeats: iteration c starts from prefixes that
// already contain exactly c preemptions and only explores free choices below them
// (switches at points where the running thread blocked, finished or yielded, and data
// choices). A choice that would preempt is kept as a prefix for iteration c + 1.
import { Op } from '../native/ops.js';
import {
  type ExecutionView, type Schedule, type Strategy, type StrategyOptions, decisionAt, runningBefore,
} from './strategy.js';

export class DfsStrategy implements Strategy {
  readonly name = 'dfs';
  readonly bounded = true;
  private readonly maxBound: number;
  /** the current path: decisions of the last execution, then the alternative being tried */
  private readonly path: Uint16Array;
  /** per path node: untried free thread alternatives (bit mask) */
  private readonly freeThreads: Uint32Array;
  /** per CHOOSE node: the next value to try, and how many values there are */
  private readonly nextValue: Uint32Array;
  private readonly valueCount: Uint32Array;
  private pathLength = 0;
  /** nodes below this index come from the iteration's starting prefix: never revisited */
  private fixedLength = 0;
  private started = false;
  private bound = 0;
  private startingPrefixes: Uint16Array[] = [];
  private nextPrefixes: Uint16Array[] = [];
  private droppedBeyondMaxBound = false;

  constructor(options: StrategyOptions) {
    this.maxBound = options.maxBound;
    this.path = new Uint16Array(options.capacity);
    this.freeThreads = new Uint32Array(options.capacity);
    this.nextValue = new Uint32Array(options.capacity);
    this.valueCount = new Uint32Array(options.capacity);
  }

  beginBound(bound: number): boolean {
    this.bound = bound;
    this.startingPrefixes = bound === 0 ? [new Uint16Array(0)] : this.nextPrefixes;
    this.nextPrefixes = [];
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

  /** The deepest node with an untried free alternative: switch it, drop what follows. */
  private backtrack(): Schedule | undefined {
    for (let node = this.pathLength - 1; node >= this.fixedLength; node--) {
      const threads = this.freeThreads[node]!;
      if (threads !== 0) {
        const thread = 31 - Math.clz32(threads & -threads);
        this.freeThreads[node] = threads & (threads - 1);
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
    for (let step = this.pathLength; step < execution.steps; step++) {
      this.path[step] = decisionAt(execution, step);
      this.freeThreads[step] = 0;
      this.nextValue[step] = this.valueCount[step] = 0;
      if (execution.op[step] === Op.CHOOSE) {
        this.nextValue[step] = execution.value[step]! + 1;
        this.valueCount[step] = execution.object[step]!;
        continue;
      }
      const chosen = execution.thread[step]!;
      const previous = runningBefore(execution, step);
      const enabled = execution.enabled[step]!;
      const alternatives = enabled & ~(1 << chosen);
      if (((enabled >>> previous) & 1) === 0) this.freeThreads[step] = alternatives;
      else this.deferPreemptions(step, alternatives & ~(1 << previous));
    }
    this.pathLength = execution.steps;
    return true;
  }

  /** Switching away from a thread that could continue costs a preemption: next iteration. */
  private deferPreemptions(step: number, threads: number): void {
    if (threads === 0) return;
    if (this.bound + 1 > this.maxBound) {
      this.droppedBeyondMaxBound = true;
      return;
    }
    for (let rest = threads; rest !== 0; rest &= rest - 1) {
      const prefix = this.path.slice(0, step + 1);
      prefix[step] = 31 - Math.clz32(rest & -rest);
      this.nextPrefixes.push(prefix);
    }
  }

  beyondMaxBound(): boolean {
    return this.droppedBeyondMaxBound;
  }
}
