// How the operations of a trace relate: which object(s) each step touches and how, so
// that partial-order reduction knows which steps commute. One table entry per op kind;
// an op missing from the table is treated as writing its object (conservative).
import { Op } from '../native/ops.js';

export const enum Access {
  /** touches nothing shared (yield, data choice) */
  None = 0,
  Read = 1,
  Write = 2,
  /** takes a lock-like object (or a semaphore): races with the earlier acquisitions and
   * writes of it that only its own release chain orders before */
  Acquire = 3,
  /** gives a lock-like object up: orders later acquisitions, never races */
  Release = 4,
  /** ends the whole execution: conflicts with every other thread */
  Global = 5,
}

/** thread objects (create/start/exit/join) are keyed apart from addresses */
export const threadObject = (thread: number): number => -1 - thread;
export const isThreadObject = (object: number): boolean => object < 0;

const table = new Map<number, Access>([
  [Op.THREAD_START, Access.Read],
  [Op.THREAD_EXIT, Access.Write],
  [Op.THREAD_CREATE, Access.Write],
  [Op.THREAD_JOIN, Access.Read],
  [Op.MAIN_RETURN, Access.Global],
  [Op.PROCESS_EXIT, Access.Global],
  [Op.YIELD, Access.None],
  [Op.CHOOSE, Access.None],
  [Op.MUTEX_LOCK, Access.Acquire],
  [Op.MUTEX_TRYLOCK, Access.Acquire],
  [Op.MUTEX_UNLOCK, Access.Release],
  [Op.SPIN_LOCK, Access.Acquire],
  [Op.SPIN_UNLOCK, Access.Release],
  [Op.RWLOCK_READ, Access.Acquire],
  [Op.RWLOCK_WRITE, Access.Acquire],
  [Op.RWLOCK_UNLOCK, Access.Release],
  [Op.SEM_WAIT, Access.Acquire],
  [Op.SEM_TRYWAIT, Access.Acquire],
  [Op.SEM_TIMEDWAIT, Access.Acquire],
  [Op.ATOMIC_LOAD, Access.Read],
  [Op.ATOMIC_CAS_FAIL, Access.Read],
  [Op.PLAIN_READ, Access.Read],
  [Op.SEM_GETVALUE, Access.Read],
  [Op.ATOMIC_STORE, Access.Write],
  [Op.ATOMIC_RMW, Access.Write],
  [Op.ATOMIC_CAS, Access.Write],
  [Op.PLAIN_WRITE, Access.Write],
]);

export function accessOf(op: number): Access {
  return table.get(op) ?? Access.Write;
}

/** The object a step touches: an address, or a thread object for thread operations. */
export function objectOf(op: number, object: number): number {
  switch (op) {
    case Op.THREAD_START:
    case Op.THREAD_EXIT:
    case Op.THREAD_CREATE:
    case Op.THREAD_JOIN:
      return threadObject(object);
    default:
      return object;
  }
}

/**
 * A second object some steps touch: a condition wait releases, and its wake-up
 * re-acquires, the mutex recorded as the step's value (low bits are flags).
 */
export function secondObjectOf(op: number, value: number): number | undefined {
  if (op !== Op.COND_WAIT && op !== Op.COND_WAKE) return undefined;
  return value - (value % 4);
}

export function secondAccessOf(op: number): Access {
  return op === Op.COND_WAIT ? Access.Release : Access.Acquire;
}

/** Whether two accesses to the same object conflict (order matters). */
export function conflicts(a: Access, b: Access): boolean {
  if (a === Access.None || b === Access.None) return false;
  if (a === Access.Read && b === Access.Read) return false;
  return true;
}

/** Whether two steps (op, object, value) conflict: executed in the other order, they may differ. */
export function stepsConflict(opA: number, objectA: number, valueA: number, opB: number, objectB: number, valueB: number): boolean {
  const accessA = accessOf(opA);
  const accessB = accessOf(opB);
  if (accessA === Access.Global || accessB === Access.Global) return true;
  const secondA = secondObjectOf(opA, valueA);
  const secondB = secondObjectOf(opB, valueB);
  const firstA = objectOf(opA, objectA);
  const firstB = objectOf(opB, objectB);
  return (
    (firstA === firstB && conflicts(accessA, accessB)) ||
    (secondA !== undefined && secondA === firstB && conflicts(secondAccessOf(opA), accessB)) ||
    (secondB !== undefined && firstA === secondB && conflicts(accessA, secondAccessOf(opB))) ||
    (secondA !== undefined && secondA === secondB && conflicts(secondAccessOf(opA), secondAccessOf(opB)))
  );
}
