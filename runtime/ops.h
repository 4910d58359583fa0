/* What every operation means: the single source of truth for the runtime (scheduler,
 * sleep sets, race detection) and for the explorer, whose TypeScript table
 * (src/addon/op-table.ts) is generated from this file at build time by compiling
 * scripts/generate-op-table.c against it. Append only: replay strings and traces depend
 * on the numbers.
 *
 * Columns:
 *   name, text      the op and how traces name it
 *   access          what the step did to its object in the execution where it ran
 *   can             what it may do when reordered (a failed compare-exchange only read,
 *                   but run elsewhere it may succeed and write): partial-order reduction
 *                   judges hypothetical orders by this column, races by `access`
 *   object          what the step's object field names
 *   flags           WEFT_OPF_* below
 *   enabled         when a thread pending on it may run (scheduler.c)
 *
 * Accesses: NONE touches nothing shared; READ/WRITE; ACQUIRE takes a lock-like object
 * (or a semaphore); RELEASE gives it up (orders later acquisitions, never races); GLOBAL
 * ends the whole execution: it conflicts with every other thread's next step; ADD adds to
 * (or subtracts from) its object and nothing reads what it returns: two ADDs commute (the
 * object ends the same, and neither thread can tell which went first), as two READs do, and
 * so do two ORs, two ANDs, two XORs (a bitwise update of the kind, its result unused). */
#ifndef WEFT_OPS_H
#define WEFT_OPS_H

#define WEFT_OPS(X)                                                                                         \
  X(THREAD_START, "start", READ, READ, THREAD, WEFT_OPF_STARTS_THREAD, enabled_always)                    \
  X(THREAD_EXIT, "exit", WRITE, WRITE, THREAD, WEFT_OPF_ENDS_THREAD, enabled_always)                      \
  X(MAIN_RETURN, "return", GLOBAL, GLOBAL, NONE, WEFT_OPF_ENDS_THREAD, enabled_always)                    \
  X(PROCESS_EXIT, "exit()", GLOBAL, GLOBAL, NONE, WEFT_OPF_ENDS_THREAD, enabled_always)                   \
  X(THREAD_CREATE, "create", WRITE, WRITE, THREAD, WEFT_OPF_NUMBERS_THREAD, enabled_always)                                     \
  X(THREAD_JOIN, "join", READ, READ, THREAD, WEFT_OPF_WAITS, join_enabled)                                \
  X(YIELD, "yield", READ, READ, ADDRESS, WEFT_OPF_VALUE, enabled_always)                                   \
  X(MUTEX_LOCK, "lock", ACQUIRE, ACQUIRE, ADDRESS, WEFT_OPF_WAITS | WEFT_OPF_LOCK, mutex_lock_enabled)    \
  X(MUTEX_TRYLOCK, "trylock", ACQUIRE, ACQUIRE, ADDRESS, WEFT_OPF_VALUE | WEFT_OPF_LOCK, enabled_always)  \
  X(MUTEX_UNLOCK, "unlock", RELEASE, RELEASE, ADDRESS, WEFT_OPF_UNLOCK, enabled_always)                   \
  X(ATOMIC_LOAD, "atomic load", READ, READ, ADDRESS, WEFT_OPF_VALUE, enabled_always)                      \
  X(ATOMIC_STORE, "atomic store", WRITE, WRITE, ADDRESS, WEFT_OPF_VALUE, enabled_always)                  \
  X(ATOMIC_RMW, "atomic rmw", WRITE, WRITE, ADDRESS, WEFT_OPF_VALUE | WEFT_OPF_NOTES_WRITE, enabled_always) \
  X(ATOMIC_CAS, "cas", WRITE, WRITE, ADDRESS, WEFT_OPF_VALUE | WEFT_OPF_NOTES_WRITE, enabled_always)      \
  X(ATOMIC_CAS_FAIL, "failed cas", READ, WRITE, ADDRESS, WEFT_OPF_VALUE, enabled_always)                  \
  X(PLAIN_READ, "read", READ, READ, ADDRESS, WEFT_OPF_VALUE, enabled_always)                              \
  X(PLAIN_WRITE, "write", WRITE, WRITE, ADDRESS, WEFT_OPF_VALUE, enabled_always)                          \
  X(CHOOSE, "choose", NONE, NONE, NONE, WEFT_OPF_DECISION | WEFT_OPF_VALUE, enabled_always)               \
  X(COND_WAIT, "wait", WRITE, WRITE, ADDRESS, WEFT_OPF_RELEASES_ARGUMENT, enabled_always)                 \
  X(COND_WAKE, "wake", WRITE, WRITE, ADDRESS, WEFT_OPF_WAITS | WEFT_OPF_ACQUIRES_ARGUMENT, cond_wake_enabled) \
  X(COND_SIGNAL, "signal", WRITE, WRITE, ADDRESS, 0, enabled_always)                                      \
  X(COND_BROADCAST, "broadcast", WRITE, WRITE, ADDRESS, 0, enabled_always)                                \
  X(SEM_WAIT, "sem_wait", ACQUIRE, ACQUIRE, ADDRESS, WEFT_OPF_WAITS | WEFT_OPF_VALUE, sem_wait_enabled)   \
  X(SEM_TRYWAIT, "sem_trywait", ACQUIRE, ACQUIRE, ADDRESS, WEFT_OPF_VALUE, enabled_always)                \
  X(SEM_POST, "sem_post", WRITE, WRITE, ADDRESS, WEFT_OPF_VALUE, enabled_always)                          \
  X(SEM_GETVALUE, "sem_getvalue", READ, READ, ADDRESS, WEFT_OPF_VALUE, enabled_always)                    \
  X(BARRIER_ARRIVE, "barrier arrive", WRITE, WRITE, ADDRESS, 0, enabled_always)                           \
  X(BARRIER_LEAVE, "barrier leave", WRITE, WRITE, ADDRESS, WEFT_OPF_WAITS, barrier_leave_enabled)        \
  X(RWLOCK_READ, "read lock", ACQUIRE, ACQUIRE, ADDRESS, WEFT_OPF_WAITS | WEFT_OPF_LOCK | WEFT_OPF_SHARED, rwlock_read_enabled) \
  X(RWLOCK_WRITE, "write lock", ACQUIRE, ACQUIRE, ADDRESS, WEFT_OPF_WAITS | WEFT_OPF_LOCK, rwlock_write_enabled) \
  X(RWLOCK_UNLOCK, "write unlock", RELEASE, RELEASE, ADDRESS, WEFT_OPF_UNLOCK, enabled_always)            \
  X(SPIN_LOCK, "spin lock", ACQUIRE, ACQUIRE, ADDRESS, WEFT_OPF_WAITS | WEFT_OPF_LOCK, spin_lock_enabled) \
  X(SPIN_UNLOCK, "spin unlock", RELEASE, RELEASE, ADDRESS, WEFT_OPF_UNLOCK, enabled_always)               \
  X(ONCE, "once", WRITE, WRITE, ADDRESS, WEFT_OPF_WAITS, once_enabled)                                    \
  X(SEM_TIMEDWAIT, "sem_timedwait", ACQUIRE, ACQUIRE, ADDRESS, WEFT_OPF_VALUE, enabled_always)            \
  X(FREE, "free", WRITE, WRITE, BLOCK, 0, enabled_always)                                                 \
  X(RWLOCK_TRY_READ, "read lock attempt", ACQUIRE, ACQUIRE, ADDRESS, WEFT_OPF_VALUE | WEFT_OPF_LOCK | WEFT_OPF_SHARED, enabled_always) \
  X(RWLOCK_TRY_WRITE, "write lock attempt", ACQUIRE, ACQUIRE, ADDRESS, WEFT_OPF_VALUE | WEFT_OPF_LOCK, enabled_always) \
  X(SPIN_TRYLOCK, "spin trylock", ACQUIRE, ACQUIRE, ADDRESS, WEFT_OPF_VALUE | WEFT_OPF_LOCK, enabled_always)  \
  X(MUTEX_TIMEDLOCK, "timedlock", ACQUIRE, ACQUIRE, ADDRESS, WEFT_OPF_VALUE | WEFT_OPF_LOCK, enabled_always) \
  X(RWLOCK_READ_UNLOCK, "read unlock", RELEASE, RELEASE, ADDRESS, WEFT_OPF_UNLOCK | WEFT_OPF_SHARED, enabled_always) \
  X(RANDOM, "rand", WRITE, WRITE, ADDRESS, WEFT_OPF_VALUE, enabled_always)                                \
  X(CLOCK, "clock", WRITE, WRITE, ADDRESS, WEFT_OPF_VALUE, enabled_always)                                \
  X(ATOMIC_ADD_UNUSED, "atomic rmw", ADD, ADD, ADDRESS, WEFT_OPF_VALUE | WEFT_OPF_NOTES_WRITE, enabled_always) \
  X(ATOMIC_OR_UNUSED, "atomic rmw", OR, OR, ADDRESS, WEFT_OPF_VALUE | WEFT_OPF_NOTES_WRITE, enabled_always)   \
  X(ATOMIC_AND_UNUSED, "atomic rmw", AND, AND, ADDRESS, WEFT_OPF_VALUE | WEFT_OPF_NOTES_WRITE, enabled_always) \
  X(ATOMIC_XOR_UNUSED, "atomic rmw", XOR, XOR, ADDRESS, WEFT_OPF_VALUE | WEFT_OPF_NOTES_WRITE, enabled_always) \
  X(DESTROY, "destroy", WRITE, WRITE, ADDRESS, 0, enabled_always)

/* The memory orders of ThreadSanitizer's atomic interface, as trace.order records them;
 * compilers may set flag bits above them, and an order weft does not know counts as seq_cst. */
#define WEFT_MEMORY_ORDERS(X) \
  X(RELAXED, "relaxed") X(CONSUME, "consume") X(ACQUIRE, "acquire") X(RELEASE, "release") X(ACQ_REL, "acq_rel") X(SEQ_CST, "seq_cst")

/* What an atomic read-modify-write step computed from the old value (trace.rmw): how a
 * counterexample names it. NONE: the step is no read-modify-write. */
#define WEFT_RMW_FUNCTIONS(X)                                                                    \
  X(NONE, "") X(EXCHANGE, "exchange") X(FETCH_ADD, "fetch_add") X(FETCH_SUB, "fetch_sub")        \
  X(FETCH_AND, "fetch_and") X(FETCH_OR, "fetch_or") X(FETCH_XOR, "fetch_xor") X(FETCH_NAND, "fetch_nand")

/* What an op's object field names. ADDRESS: a memory location or synchronisation object;
 * THREAD: a thread id (keyed apart from addresses); BLOCK: the start of a heap block
 * whose size is the step's value (the op touches every address in it); NONE: nothing. */
#define WEFT_OBJECTS(X) X(NONE) X(ADDRESS) X(THREAD) X(BLOCK)
/* Accesses, and whether two of one kind to one object commute (1): two reads, two adds, two
 * ors, two ands, two xors (an update whose result nothing uses: its order nothing sees). */
#define WEFT_ACCESSES(X) X(NONE, 0) X(READ, 1) X(WRITE, 0) X(ACQUIRE, 0) X(RELEASE, 0) X(GLOBAL, 0) X(ADD, 1) X(OR, 1) X(AND, 1) X(XOR, 1)

/* flags */
#define WEFT_OPF_WAITS 1u                /* a thread can be stuck in it (deadlocks name what it waits for) */
#define WEFT_OPF_STARTS_THREAD 2u        /* the thread's first step: enabled once created */
#define WEFT_OPF_ENDS_THREAD 4u          /* the thread's last step */
#define WEFT_OPF_VALUE 8u                /* the value field is data read, written or returned */
#define WEFT_OPF_DECISION 16u            /* the decision is the value, not a thread (weft_choose) */
#define WEFT_OPF_RELEASES_ARGUMENT 32u   /* also releases the mutex in the value (low bits are flags) */
#define WEFT_OPF_ACQUIRES_ARGUMENT 64u   /* also re-acquires the mutex in the value */
#define WEFT_OPF_NOTES_WRITE 128u        /* whether it changed memory is known only once it ran */
#define WEFT_OPF_LOCK 256u               /* takes a lock a thread then holds (deadlock cycles) */
#define WEFT_OPF_UNLOCK 512u             /* gives such a lock up */
#define WEFT_OPF_SHARED 1024u            /* a read lock's side: a shared acquisition never waits for a shared release */
#define WEFT_OPF_NUMBERS_THREAD 2048u    /* also takes the next thread number (WEFT_THREAD_NUMBERING): threads are
                                            numbered as created, so two threads' creates do not commute */
#define WEFT_THREAD_NUMBERING 0u         /* the object the runtime's thread numbering is keyed as: no address is 0 */

/* Blocking operations whose pending argument carries these flags are enabled whatever
 * the state of their object: they fail (EBUSY) or time out (ETIMEDOUT) instead. */
#define WEFT_ATTEMPT_TRY 1u
#define WEFT_ATTEMPT_TIMED 2u

enum weft_op {
#define WEFT_OP_ENUM(name, ...) WEFT_OP_##name,
  WEFT_OPS(WEFT_OP_ENUM)
#undef WEFT_OP_ENUM
  WEFT_OP_COUNT
};

enum weft_access {
#define WEFT_ACCESS_ENUM(name, commutes) WEFT_ACCESS_##name,
  WEFT_ACCESSES(WEFT_ACCESS_ENUM)
#undef WEFT_ACCESS_ENUM
};

enum weft_object_kind {
#define WEFT_OBJECT_ENUM(name) WEFT_OBJECT_##name,
  WEFT_OBJECTS(WEFT_OBJECT_ENUM)
#undef WEFT_OBJECT_ENUM
};

enum weft_memory_order {
#define WEFT_ORDER_ENUM(name, text) WEFT_ORDER_##name,
  WEFT_MEMORY_ORDERS(WEFT_ORDER_ENUM)
#undef WEFT_ORDER_ENUM
};

enum weft_rmw_function {
#define WEFT_RMW_ENUM(name, text) WEFT_RMW_##name,
  WEFT_RMW_FUNCTIONS(WEFT_RMW_ENUM)
#undef WEFT_RMW_ENUM
};

/* How an execution ended. */
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
  X(RACE, "race")          \
  X(STEP_LIMIT, "step-limit") /* maxSteps reached without a livelock shown */ \
  X(HANG, "hang")          /* the watchdog stopped a thread that reached no scheduling point */ \
  X(LIMIT, "limit")        /* the harness needs more than weft can explore (threads): not a bug in it */ \
  X(LEAK, "leak")          /* with WEFT_RUN_REPORT_LEAKS: blocks still allocated at the end */

enum weft_outcome {
#define WEFT_OUTCOME_ENUM(name, text) WEFT_OUTCOME_##name,
  WEFT_OUTCOMES(WEFT_OUTCOME_ENUM)
#undef WEFT_OUTCOME_ENUM
  WEFT_OUTCOME_COUNT
};

#endif
