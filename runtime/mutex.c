/* Mutexes. The state lives in the pthread_mutex_t itself (glibc's field names, our
 * meaning: __owner = holder + 1, __count = recursion depth, __kind = type), so the
 * static initialisers work and restoring the harness's globals resets every lock. */
#include <errno.h>
#include <pthread.h>

#include "runtime.h"

/* normal, recursive or errorcheck; glibc's "adaptive" behaves as normal */
static inline int kind_of(const pthread_mutex_t *m) {
  int kind = m->__data.__kind & 3;
  return kind == PTHREAD_MUTEX_ADAPTIVE_NP ? PTHREAD_MUTEX_NORMAL : kind;
}

int mutex_checks_owner(const pthread_mutex_t *m) { return kind_of(m) != PTHREAD_MUTEX_NORMAL; }

/* set in __kind by pthread_mutex_destroy, cleared by pthread_mutex_init (kind_of reads the low bits) */
#define MUTEX_DESTROYED 0x40000000

static inline int destroyed(const pthread_mutex_t *m) { return (m->__data.__kind & MUTEX_DESTROYED) != 0; }

/* Fields only pthread_mutex_init, a static initialiser (zeros, or a kind) and this file's
 * steps write: any other bits are what the memory held before, a mutex never initialised. */
static int initialised(const pthread_mutex_t *m) {
  int owner = m->__data.__owner;
  return ((unsigned)m->__data.__kind & ~(3u | MUTEX_DESTROYED)) == 0 && owner >= 0 && owner <= WEFT_MAX_THREADS &&
         (owner == 0) == (m->__data.__count == 0);
}

void mutex_check_live(const pthread_mutex_t *m, const char *doing, uintptr_t pc) {
  if (WEFT_UNLIKELY(!initialised(m))) execution_fail(WEFT_OUTCOME_MISUSE, pc, "%s a mutex that was never initialised", doing);
  refuse_destroyed(destroyed(m), doing, "mutex", pc);
}

/* a mutex never initialised lets its user go on, to the misuse */
int mutex_lock_enabled(const struct pending *pending, uint32_t thread) {
  const pthread_mutex_t *m = (const pthread_mutex_t *)pending->object;
  int owner = m->__data.__owner;
  if (owner == 0 || !initialised(m)) return 1;
  /* a recursive or error-checking mutex answers its owner at once */
  return owner == (int)thread + 1 && kind_of(m) != PTHREAD_MUTEX_NORMAL;
}

WEFT_HIDDEN int weft_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attributes) {
  int kind = PTHREAD_MUTEX_NORMAL;
  if (attributes) pthread_mutexattr_gettype(attributes, &kind);
  harness_store(m, sizeof *m, WEFT_CALLER_PC());
  m->__data.__owner = 0;
  m->__data.__count = 0;
  m->__data.__kind = kind == PTHREAD_MUTEX_DEFAULT ? PTHREAD_MUTEX_NORMAL : kind;
  return 0;
}

/* Priority inheritance changes only priorities; a priority-ceiling mutex changes what its
 * lock returns (EINVAL, in a thread that is not real-time), which weft does not model. */
WEFT_HIDDEN int weft_pthread_mutexattr_setprotocol(pthread_mutexattr_t *attributes, int protocol) {
  if (protocol == PTHREAD_PRIO_PROTECT && weft_rt && weft_rt->in_execution)
    execution_fail(WEFT_OUTCOME_LIMIT, WEFT_CALLER_PC(), "priority-ceiling mutexes (PTHREAD_PRIO_PROTECT) are not "
                   "modelled: glibc's lock of one fails (EINVAL) in a thread that is not real-time, where weft's would lock");
  return pthread_mutexattr_setprotocol(attributes, protocol);
}

/* A step of its own, ordered with the mutex's others: whether another thread's use comes before or after it is explored. */
WEFT_HIDDEN int weft_pthread_mutex_destroy(pthread_mutex_t *m) {
  uintptr_t pc = WEFT_CALLER_PC();
  sched_point(WEFT_OP_DESTROY, (uintptr_t)m, 0, pc);
  mutex_check_live(m, "destroying", pc);
  if (m->__data.__owner)
    execution_fail(WEFT_OUTCOME_MISUSE, pc, "destroying a mutex held by thread %d", m->__data.__owner - 1);
  m->__data.__kind |= MUTEX_DESTROYED;
  return 0;
}

/* After the scheduler let this thread go, the lock is free or ours. Taking it acquires
 * what its unlocks released (drf mode); an attempt that fails orders nothing. */
static int acquire(pthread_mutex_t *m, uintptr_t pc) {
  mutex_check_live(m, "locking", pc);
  if (m->__data.__owner == (int)weft_rt->current + 1 && kind_of(m) == PTHREAD_MUTEX_ERRORCHECK) return EDEADLK;
  mutex_acquire_level(m);
  race_on_acquired((uintptr_t)m);
  return 0;
}

WEFT_HIDDEN int weft_pthread_mutex_lock(pthread_mutex_t *m) {
  uintptr_t pc = WEFT_CALLER_PC();
  sched_point(WEFT_OP_MUTEX_LOCK, (uintptr_t)m, 0, pc);
  return acquire(m, pc);
}

/* May time out whenever the mutex is held: others go first, the timeout stays possible. */
WEFT_HIDDEN int weft_pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *deadline) {
  uintptr_t pc = WEFT_CALLER_PC();
  harness_load(deadline, sizeof *deadline, pc);
  sched_yield_step(0, pc);
  /* an op of its own: it never waits, and partial-order reduction must know that */
  sched_point(WEFT_OP_MUTEX_TIMEDLOCK, (uintptr_t)m, WEFT_ATTEMPT_TIMED, pc);
  mutex_check_live(m, "locking", pc);
  int owner = m->__data.__owner;
  if (owner != 0 && !(owner == (int)weft_rt->current + 1 && kind_of(m) != PTHREAD_MUTEX_NORMAL)) {
    sched_record_value(0, 0);
    return ETIMEDOUT;
  }
  int result = acquire(m, pc);
  sched_record_value(result == 0, 0);
  return result;
}

/* One level of the mutex, given up or taken (an unlock, a lock; a condition wait gives up one
 * level as glibc's does: a recursive mutex held twice stays held while the thread waits). */
void mutex_release_level(pthread_mutex_t *m) {
  if (--m->__data.__count == 0) m->__data.__owner = 0;
}

void mutex_acquire_level(pthread_mutex_t *m) {
  int self = (int)weft_rt->current + 1;
  if (m->__data.__owner == self) {
    m->__data.__count++;
    return;
  }
  m->__data.__owner = self;
  m->__data.__count = 1;
}

WEFT_HIDDEN int weft_pthread_mutex_trylock(pthread_mutex_t *m) {
  uintptr_t pc = WEFT_CALLER_PC();
  sched_point(WEFT_OP_MUTEX_TRYLOCK, (uintptr_t)m, 0, pc);
  mutex_check_live(m, "locking", pc);
  int self = (int)weft_rt->current + 1;
  int owner = m->__data.__owner;
  int result = owner == 0 || (owner == self && kind_of(m) == PTHREAD_MUTEX_RECURSIVE) ? acquire(m, pc)
                                                                                        : EBUSY;
  sched_record_value(result == 0, 0);
  return result;
}

WEFT_HIDDEN int weft_pthread_mutex_unlock(pthread_mutex_t *m) {
  uintptr_t pc = WEFT_CALLER_PC();
  sched_point(WEFT_OP_MUTEX_UNLOCK, (uintptr_t)m, 0, pc);
  mutex_check_live(m, "unlocking", pc);
  int self = (int)weft_rt->current + 1;
  if (m->__data.__owner != self) {
    if (mutex_checks_owner(m)) return EPERM;
    if (m->__data.__owner)
      execution_fail(WEFT_OUTCOME_MISUSE, pc, "unlocking a mutex held by thread %d",
                     m->__data.__owner - 1);
    execution_fail(WEFT_OUTCOME_MISUSE, pc, "unlocking a mutex that is not locked");
  }
  mutex_release_level(m);
  race_on_released((uintptr_t)m);
  return 0;
}
