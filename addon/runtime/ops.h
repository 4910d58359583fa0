/* Operation kinds recorded per scheduling point. Mirrored in src/native/ops.ts
 * (a test checks that both lists agree). Append only: replay strings and traces
 * depend on the numbers. */
#ifndef WEFT_OPS_H
#define WEFT_OPS_H

#define WEFT_OPS(X)                                                                    \
  X(THREAD_START, "start")         /* first step of a created thread */                 \
  X(THREAD_EXIT, "exit")           /* the thread's function returned / pthread_exit */   \
  X(MAIN_RETURN, "return")         /* the test body or main returned: execution ends */ \
  X(PROCESS_EXIT, "exit()")        /* exit()/abort(): execution ends */                  \
  X(THREAD_CREATE, "create")       /* object = child thread id */                        \
  X(THREAD_JOIN, "join")           /* object = joined thread id */                       \
  X(YIELD, "yield")                                                                     \
  X(MUTEX_LOCK, "lock")                                                                 \
  X(MUTEX_TRYLOCK, "trylock")                                                           \
  X(MUTEX_UNLOCK, "unlock")                                                             \
  X(ATOMIC_LOAD, "atomic load")                                                         \
  X(ATOMIC_STORE, "atomic store")                                                       \
  X(ATOMIC_RMW, "atomic rmw")                                                           \
  X(ATOMIC_CAS, "cas")             /* successful compare-exchange */                     \
  X(ATOMIC_CAS_FAIL, "failed cas") /* a failed compare-exchange only reads */            \
  X(PLAIN_READ, "read")            /* sc mode only */                                   \
  X(PLAIN_WRITE, "write")          /* sc mode only */                                   \
  X(CHOOSE, "choose")              /* weft_choose: the decision is a value, not a thread */ \
  X(COND_WAIT, "wait")             /* releases the mutex (argument) and starts waiting */ \
  X(COND_WAKE, "wake")             /* signalled (or timed out): re-acquires the mutex */  \
  X(COND_SIGNAL, "signal")                                                              \
  X(COND_BROADCAST, "broadcast")                                                        \
  X(SEM_WAIT, "sem_wait")                                                               \
  X(SEM_TRYWAIT, "sem_trywait")                                                         \
  X(SEM_POST, "sem_post")                                                               \
  X(SEM_GETVALUE, "sem_getvalue")                                                       \
  X(BARRIER_ARRIVE, "barrier arrive")                                                   \
  X(BARRIER_LEAVE, "barrier leave") /* enabled once the last thread arrived */         \
  X(RWLOCK_READ, "read lock")                                                           \
  X(RWLOCK_WRITE, "write lock")                                                         \
  X(RWLOCK_UNLOCK, "rwlock unlock")                                                     \
  X(SPIN_LOCK, "spin lock")                                                             \
  X(SPIN_UNLOCK, "spin unlock")                                                         \
  X(ONCE, "once")                  /* enabled unless another thread runs the routine */ \
  X(SEM_TIMEDWAIT, "sem_timedwait") /* never blocks: times out while the value is 0 */

/* Blocking operations whose pending argument carries these flags are enabled whatever
 * the state of their object: they fail (EBUSY) or time out (ETIMEDOUT) instead. */
#define WEFT_ATTEMPT_TRY 1u
#define WEFT_ATTEMPT_TIMED 2u

enum weft_op {
#define WEFT_OP_ENUM(name, text) WEFT_OP_##name,
  WEFT_OPS(WEFT_OP_ENUM)
#undef WEFT_OP_ENUM
  WEFT_OP_COUNT
};

/* How an execution ended. Mirrored in src/native/ops.ts. */
#define WEFT_OUTCOMES(X)   \
  X(OK, "ok")              \
  X(ASSERTION, "assertion")\
  X(DEADLOCK, "deadlock")  \
  X(CRASH, "crash")        \
  X(LIVELOCK, "livelock")  \
  X(EXIT, "exit")          \
  X(DIVERGENCE, "divergence") \
  X(MISUSE, "misuse")      \
  X(PRUNED, "pruned")      \
  X(MEMORY, "memory")      \
  X(RACE, "race")

enum weft_outcome {
#define WEFT_OUTCOME_ENUM(name, text) WEFT_OUTCOME_##name,
  WEFT_OUTCOMES(WEFT_OUTCOME_ENUM)
#undef WEFT_OUTCOME_ENUM
  WEFT_OUTCOME_COUNT
};

#endif
