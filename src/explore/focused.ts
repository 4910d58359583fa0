// A bounded search restricted to a bug's threads, to find a sampled bug again with fewer
// preemptions: the other threads run only when none of the focus is enabled (the runtime
// keeps them asleep for good; the search sees them as not enabled), so switching away
// from them is free and the bound counts the focus threads' preemptions only. What it
// finds is a real execution: its true preemptions are counted from the runtime's trace.
import { Access, accessOf, objectOf } from './dependence.js';
import type { FailingExecution } from './driver.js';
import type { ExecutionView, Schedule, Strategy } from './strategy.js';

/** asleepFrom: a step no run reaches, so the threads asleep are never woken */
const NEVER = 0xffffffff;

export class FocusedStrategy implements Strategy {
  readonly name: string;
  readonly bounded = true;
  private readonly enabled: Uint32Array;
  private view?: ExecutionView;

  constructor(private readonly inner: Strategy, private readonly focus: number, capacity: number) {
    this.name = inner.name;
    this.enabled = new Uint32Array(capacity);
  }

  beginBound(bound: number): boolean {
    return this.inner.beginBound(bound);
  }

  next(): Schedule | undefined {
    const schedule = this.inner.next();
    if (schedule) {
      schedule.asleep = ~this.focus >>> 0;
      schedule.asleepFrom = NEVER;
    }
    return schedule;
  }

  observe(execution: ExecutionView): boolean {
    for (let step = 0; step < execution.steps; step++) {
      const enabled = execution.enabled[step]!;
      this.enabled[step] = enabled & this.focus ? enabled & this.focus : enabled;
    }
    this.view ??= { ...execution, enabled: this.enabled };
    this.view.steps = execution.steps;
    this.view.outcome = execution.outcome;
    return this.inner.observe(this.view);
  }

  beyondMaxBound(): boolean {
    return this.inner.beyondMaxBound();
  }
}

/**
 * The threads a failure needs, as a mask: the failing thread, and every thread whose write
 * (or release) it read last, on each object it touched. 0 when no thread failed (a deadlock).
 */
export function threadsOfFailure(failure: FailingExecution): number {
  const { execution } = failure;
  const failing = failure.result.thread;
  if (failing < 0) return 0;
  const lastWriter = new Map<number, number>();
  let focus = 1 << failing;
  for (let step = 0; step < execution.steps; step++) {
    const op = execution.op[step]!;
    const thread = execution.thread[step]!;
    const object = objectOf(op, execution.object[step]!);
    const writer = lastWriter.get(object);
    if (thread === failing && writer !== undefined) focus |= 1 << writer;
    const access = accessOf(op);
    if (access === Access.WRITE || access === Access.RELEASE) lastWriter.set(object, thread);
  }
  return focus;
}
