// Which rows of a counterexample lead to its failure: the accesses whose values flow into the
// failing check, and every access of a location that flow passes through. A trace folds
// other rows away, never these.
import type { BugStep, PlainAccess } from './bug.js';

/** A row of the trace as the data flow sees it: a step, or a plain access (no step in drf mode). */
export interface FlowEvent {
  thread: number;
  /** the location it touched, by name */
  target?: string;
  reads: boolean;
  writes: boolean;
  /** a memory access (plain or atomic); other steps (locks, creates) end the reads that feed a write */
  memory: boolean;
}

/**
 * The events that lead to the failure, given in execution order: those in `start` (the
 * failing check's own reads, say), every access of a location in `locations` or of one
 * whose value flows into them, and the reads that computed each write that does.
 */
export function leadingToFailure(events: readonly FlowEvent[], start: Iterable<number>, locations: Iterable<string> = []): Set<number> {
  const leading = new Set(start);
  const relevant = new Set(locations);
  for (const index of leading) {
    const target = events[index]?.target;
    if (target !== undefined) relevant.add(target);
  }
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.target !== undefined && relevant.has(event.target) && (event.reads || event.writes)) leading.add(i);
    if (!leading.has(i) || !event.writes) continue;
    // the value written came from what the thread read since its last write or synchronisation
    for (let j = i - 1; j >= 0; j--) {
      const earlier = events[j]!;
      if (earlier.thread !== event.thread) continue;
      if (!earlier.memory || earlier.writes) break;
      if (earlier.reads && earlier.target !== undefined) {
        relevant.add(earlier.target);
        leading.add(j);
      }
    }
  }
  return leading;
}

/** The failing thread's trailing reads: what its failed check read, after its last other step. */
export function failingReads(events: readonly FlowEvent[], thread: number): number[] {
  const reads: number[] = [];
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.thread !== thread) continue;
    if (!event.memory || event.writes) break;
    if (event.reads) reads.push(i);
  }
  return reads;
}

/** Steps and plain accesses as the trace shows them: each access after the step it followed in its thread, those before any step first. */
export function inTraceOrder(steps: readonly BugStep[], accesses: readonly PlainAccess[]): (BugStep | PlainAccess)[] {
  const after = new Map<number | undefined, PlainAccess[]>();
  for (const access of accesses) {
    const list = after.get(access.afterStep);
    if (list) list.push(access);
    else after.set(access.afterStep, [access]);
  }
  return [...(after.get(undefined) ?? []), ...steps.flatMap((step) => [step, ...(after.get(step.step) ?? [])])];
}

export const isStep = (row: BugStep | PlainAccess): row is BugStep => 'op' in row;
