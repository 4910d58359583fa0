// Which steps commute, for partial-order reduction, from ops.h's table (src/addon/ops.ts):
// a step touches its object (an address, a thread, or a heap block's whole range) and,
// for a condition wait or wake-up, the mutex too. Two steps conflict when they touch a
// common object and not both only read it; a step that ends the execution conflicts with
// everything.
//
// Races are judged by what steps did where they ran (accessOf); whether a step can go
// elsewhere, by what it may do there (potentialAccessOf): a compare-exchange that failed
// here may succeed and write in a reordered execution.
import { Access, Aside, ObjectKind, Op, OpFlag, THREAD_NUMBERING, accessOf, commutesWithItself, hasFlag, objectKindOf, potentialAccessOf } from '../addon/ops.js';
import type { ExecutionView } from './strategy.js';

export { Access, accessOf, potentialAccessOf };

/**
 * A step during which the runtime set its thread aside (a yield, a timed wait about to
 * start, a timed condition wait: another thread takes the next step by default), and that
 * thread's next step. The thread going on right after the aside is a preemption only while
 * another thread can run (strategy.ts: preemptionCost), so under a bound reordering these
 * steps with another thread's is not free: bpor orders them with every step of every other
 * thread. Unbounded, an aside changes nothing that can run, and optimal takes them as their
 * ops commute.
 */
export const aroundAside = (execution: ExecutionView, step: number): boolean => (execution.aside[step]! & (Aside.DURING | Aside.AFTER)) !== 0;

/** What a step did, for a search that orders asides: its op's access, or everything around an aside. */
export const orderedAccessOf = (execution: ExecutionView, step: number): Access =>
  aroundAside(execution, step) ? Access.GLOBAL : accessOf(execution.op[step]!);

/** Whether `thread`'s pending step (one it never took) comes right after an aside: its last step set it aside. */
export function pendingAfterAside(execution: ExecutionView, thread: number): boolean {
  for (let step = execution.steps - 1; step >= 0; step--)
    if (execution.thread[step] === thread && execution.op[step] !== Op.CHOOSE) return (execution.aside[step]! & Aside.DURING) !== 0;
  return false;
}

/**
 * An acquisition that fails rather than waits (trylock, timed lock, sem_trywait and
 * sem_timedwait: no WAITS flag in the op table): placed before the release it followed, it
 * fails there, so it races with that release, and what it holds afterwards is not known.
 */
export const isAttempt = (op: number): boolean => accessOf(op) === Access.ACQUIRE && !hasFlag(op, OpFlag.WAITS);

/**
 * Whether the acquisition `op`, placed before an earlier release `release` of its object,
 * would wait there for it: then the release only orders it. One that would not races with
 * the release: an attempt fails there, and a read lock goes on beside a reader's unlock
 * (readers hold the lock together: SHARED in the op table).
 */
export const waitsForRelease = (op: number, release: number): boolean =>
  hasFlag(op, OpFlag.WAITS) && !(hasFlag(op, OpFlag.SHARED) && hasFlag(release, OpFlag.SHARED));

/** thread objects (create/start/exit/join) are keyed apart from addresses */
export const threadObject = (thread: number): number => -1 - thread;
export const isThreadObject = (object: number): boolean => object < 0;

/** The object a step touches: an address (a block's start), or a thread object. */
export function objectOf(op: number, object: number): number {
  return objectKindOf(op) === ObjectKind.THREAD ? threadObject(object) : object;
}

/** A heap block's free: it touches every address of the block (its value is the size). */
export const touchesRange = (op: number): boolean => objectKindOf(op) === ObjectKind.BLOCK;

/** How many bytes from objectOf the step touches: a block's size, else 1 (one location). */
export function extentOf(op: number, value: number): number {
  return touchesRange(op) ? Math.max(value, 1) : 1;
}

/**
 * A second object some steps touch: a condition wait releases, and its wake-up
 * re-acquires, the mutex recorded as the step's value (low bits are flags); a create
 * takes the next thread number (THREAD_NUMBERING in ops.h: threads are numbered as they
 * are created, so two threads' creates in the other order number their threads otherwise).
 */
export function secondObjectOf(op: number, value: number): number | undefined {
  if (hasFlag(op, OpFlag.NUMBERS_THREAD)) return THREAD_NUMBERING;
  if (!hasFlag(op, OpFlag.RELEASES_ARGUMENT | OpFlag.ACQUIRES_ARGUMENT)) return undefined;
  return value - (value % 4);
}

export function secondAccessOf(op: number): Access {
  if (hasFlag(op, OpFlag.NUMBERS_THREAD)) return Access.WRITE;
  return hasFlag(op, OpFlag.RELEASES_ARGUMENT) ? Access.RELEASE : Access.ACQUIRE;
}

export { commutesWithItself };

/** An add, or, and or xor whose result nothing uses (ops.h: ADD, OR, AND, XOR): it writes, and commutes with one of its kind. */
export const isCommutingUpdate = (access: Access): boolean => access !== Access.READ && commutesWithItself(access);

/**
 * Whether two accesses to the same object conflict (order matters). Two reads do not, nor
 * two adds (or two ors, ands, xors) whose results nothing uses. Two releases do not either:
 * releases never race (they are not reversed), so ordering them would invent
 * happens-before; two read-unlocks of an rwlock really are unordered, and a mutex's
 * unlocks always have a lock between them that orders them anyway.
 */
export function conflicts(a: Access, b: Access): boolean {
  if (a === Access.NONE || b === Access.NONE) return false;
  return !(a === b && (commutesWithItself(a) || a === Access.RELEASE));
}

function overlap(opA: number, startA: number, valueA: number, opB: number, startB: number, valueB: number): boolean {
  if (startA === startB) return true;
  if (!touchesRange(opA) && !touchesRange(opB)) return false;
  if (isThreadObject(startA) || isThreadObject(startB)) return false;
  return startA < startB + extentOf(opB, valueB) && startB < startA + extentOf(opA, valueA);
}

/**
 * Whether two steps conflict (executed in the other order, they may differ), each
 * judged by the access given: accessOf for a step as it ran, potentialAccessOf for one
 * placed somewhere it did not run.
 */
export function stepsConflict(
  opA: number, objectA: number, valueA: number, accessA: Access,
  opB: number, objectB: number, valueB: number, accessB: Access,
): boolean {
  if (accessA === Access.GLOBAL || accessB === Access.GLOBAL) return true;
  const firstA = objectOf(opA, objectA);
  const firstB = objectOf(opB, objectB);
  const secondA = secondObjectOf(opA, valueA);
  const secondB = secondObjectOf(opB, valueB);
  return (
    (overlap(opA, firstA, valueA, opB, firstB, valueB) && conflicts(accessA, accessB)) ||
    (secondA !== undefined && secondA === firstB && conflicts(secondAccessOf(opA), accessB)) ||
    (secondB !== undefined && firstA === secondB && conflicts(accessA, secondAccessOf(opB))) ||
    (secondA !== undefined && secondA === secondB && conflicts(secondAccessOf(opA), secondAccessOf(opB)))
  );
}
