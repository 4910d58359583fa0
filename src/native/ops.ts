// Operation kinds and outcomes as numbered by the runtime (addon/runtime/ops.h).
// Append only; test/ops.test.ts checks that both lists agree.

export const Op = {
  THREAD_START: 0,
  THREAD_EXIT: 1,
  MAIN_RETURN: 2,
  PROCESS_EXIT: 3,
  THREAD_CREATE: 4,
  THREAD_JOIN: 5,
  YIELD: 6,
  MUTEX_LOCK: 7,
  MUTEX_TRYLOCK: 8,
  MUTEX_UNLOCK: 9,
  ATOMIC_LOAD: 10,
  ATOMIC_STORE: 11,
  ATOMIC_RMW: 12,
  ATOMIC_CAS: 13,
  ATOMIC_CAS_FAIL: 14,
  PLAIN_READ: 15,
  PLAIN_WRITE: 16,
  CHOOSE: 17,
  COND_WAIT: 18,
  COND_WAKE: 19,
  COND_SIGNAL: 20,
  COND_BROADCAST: 21,
  SEM_WAIT: 22,
  SEM_TRYWAIT: 23,
  SEM_POST: 24,
  SEM_GETVALUE: 25,
  BARRIER_ARRIVE: 26,
  BARRIER_LEAVE: 27,
  RWLOCK_READ: 28,
  RWLOCK_WRITE: 29,
  RWLOCK_UNLOCK: 30,
  SPIN_LOCK: 31,
  SPIN_UNLOCK: 32,
  ONCE: 33,
  SEM_TIMEDWAIT: 34,
} as const;
export type Op = (typeof Op)[keyof typeof Op];

export const opNames: readonly string[] = [
  'start', 'exit', 'return', 'exit()', 'create', 'join', 'yield', 'lock', 'trylock', 'unlock',
  'atomic load', 'atomic store', 'atomic rmw', 'cas', 'failed cas', 'read', 'write', 'choose',
  'wait', 'wake', 'signal', 'broadcast', 'sem_wait', 'sem_trywait', 'sem_post', 'sem_getvalue',
  'barrier arrive', 'barrier leave', 'read lock', 'write lock', 'rwlock unlock', 'spin lock', 'spin unlock', 'once',
  'sem_timedwait',
];

export const Outcome = {
  OK: 0,
  ASSERTION: 1,
  DEADLOCK: 2,
  CRASH: 3,
  LIVELOCK: 4,
  EXIT: 5,
  DIVERGENCE: 6,
  MISUSE: 7,
  PRUNED: 8,
  MEMORY: 9,
  RACE: 10,
} as const;
export type Outcome = (typeof Outcome)[keyof typeof Outcome];

export const outcomeNames: readonly string[] = [
  'ok', 'assertion', 'deadlock', 'crash', 'livelock', 'exit', 'divergence', 'misuse', 'pruned', 'memory', 'race',
];

/** Ops whose pc is a function's address rather than the return address of a call. */
export function pcIsFunctionStart(op: number): boolean {
  return op === Op.THREAD_START || op === Op.THREAD_EXIT || op === Op.MAIN_RETURN;
}
