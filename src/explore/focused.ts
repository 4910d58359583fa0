// A bounded search restricted to a bug's threads, to find a sampled bug again with fewer
// preemptions: the other threads run only when none of the focus is enabled (the runtime
// keeps them asleep for good; the search sees them as not enabled), so switching away
// from them is free and the bound counts the focus threads' preemptions only. What it
// finds is a real execution: its true preemptions are counted from the runtime's trace.
import { Access, accessOf, isCommutingUpdate, objectOf } from './dependence.js';
import type { FailingExecution } from './driver.js';
import type { ExecutionView, Schedule, Strategy } from './strategy.js';
import { WORDS, add, copy, intersects, keepOnly, threadSets } from './thread-set.js';
import { FIRST_NODES, grown, roomFor } from './typed-arrays.js';

/** asleepFrom: a step no run reaches, so the threads asleep are never woken */
const NEVER = 0xffffffff;

export class FocusedStrategy implements Strategy {
  readonly name: string;
  readonly bounded = true;
  private enabled = threadSets(FIRST_NODES);
  /** every thread outside the focus */
  private readonly others = threadSets();
  private view?: ExecutionView;

  /** `focus`: a thread set (threadsOfFailure) */
  constructor(private readonly inner: Strategy, private readonly focus: Uint32Array) {
    this.name = inner.name;
    for (let w = 0; w < WORDS; w++) this.others[w] = ~focus[w]!;
  }

  beginBound(bound: number): boolean {
    return this.inner.beginBound(bound);
  }

  next(): Schedule | undefined {
    const schedule = this.inner.next();
    if (schedule) {
      schedule.asleep = this.others;
      schedule.asleepFrom = NEVER;
    }
    return schedule;
  }

  observe(execution: ExecutionView): boolean {
    if (execution.steps * WORDS > this.enabled.length) this.enabled = grown(this.enabled, roomFor(this.enabled.length, execution.steps * WORDS));
    for (let at = 0; at < execution.steps * WORDS; at += WORDS) {
      copy(this.enabled, at, execution.enabled, at);
      if (intersects(this.enabled, at, this.focus, 0)) keepOnly(this.enabled, at, this.focus, 0);
    }
    this.view ??= { ...execution };
    this.view.enabled = this.enabled;
    this.view.steps = execution.steps;
    this.view.outcome = execution.outcome;
    return this.inner.observe(this.view);
  }

  beyondMaxBound(): boolean {
    return this.inner.beyondMaxBound();
  }
}

/**
 * The threads a failure needs, as a thread set: the failing thread, and every thread whose
 * write (or release) it read last, on each object it touched. Empty when no thread failed
 * (a deadlock).
 */
export function threadsOfFailure(failure: FailingExecution): Uint32Array {
  const { execution } = failure;
  const failing = failure.result.thread;
  const focus = threadSets();
  if (failing < 0) return focus;
  const lastWriter = new Map<number, number>();
  add(focus, 0, failing);
  for (let step = 0; step < execution.steps; step++) {
    const op = execution.op[step]!;
    const thread = execution.thread[step]!;
    const object = objectOf(op, execution.object[step]!);
    const writer = lastWriter.get(object);
    if (thread === failing && writer !== undefined) add(focus, 0, writer);
    const access = accessOf(op);
    if (access === Access.WRITE || isCommutingUpdate(access) || access === Access.RELEASE) lastWriter.set(object, thread);
  }
  return focus;
}
