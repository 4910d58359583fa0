/* Read-write locks: any number of readers or one writer. Blocking is exact; which
 * waiter goes first is left to the schedule (no reader or writer preference). */
#include <errno.h>
#include <pthread.h>

#include "runtime.h"

struct rwlock_state {
  uint32_t readers;
  uint32_t writer;    /* holder + 1 */
  uint32_t destroyed; /* by pthread_rwlock_destroy: any later use is undefined (POSIX) */
};
_Static_assert(sizeof(struct rwlock_state) <= sizeof(pthread_rwlock_t), "rwlock state fits");

static inline struct rwlock_state *state_of(const void *lock) { return WEFT_OBJECT_STATE(struct rwlock_state, lock); }

static int available(const struct rwlock_state *l, int write) { return l->writer == 0 && (!write || l->readers == 0); }

static int rwlock_enabled(const struct pending *pending, int write) {
  return available(state_of((const void *)pending->object), write);
}

int rwlock_read_enabled(const struct pending *pending, uint32_t thread) {
  (void)thread;
  return rwlock_enabled(pending, 0);
}

int rwlock_write_enabled(const struct pending *pending, uint32_t thread) {
  (void)thread;
  return rwlock_enabled(pending, 1);
}

WEFT_HIDDEN int weft_pthread_rwlock_init(pthread_rwlock_t *lock, const pthread_rwlockattr_t *attributes) {
  (void)attributes;
  harness_store(lock, sizeof *lock, WEFT_CALLER_PC());
  *state_of(lock) = (struct rwlock_state){0, 0, 0};
  return 0;
}

/* A step of its own, ordered with the lock's others (mutex.c). */
WEFT_HIDDEN int weft_pthread_rwlock_destroy(pthread_rwlock_t *lock) {
  uintptr_t pc = WEFT_CALLER_PC();
  sched_point(WEFT_OP_DESTROY, (uintptr_t)lock, 0, pc);
  struct rwlock_state *l = state_of(lock);
  refuse_destroyed(l->destroyed, "destroying", "read-write lock", pc);
  if (l->readers || l->writer) execution_fail(WEFT_OUTCOME_MISUSE, pc, "destroying a read-write lock that is held");
  l->destroyed = 1;
  return 0;
}

static int lock(pthread_rwlock_t *rwlock, int write, uint32_t attempt, uintptr_t pc) {
  struct rwlock_state *l = state_of(rwlock);
  uint32_t self = weft_rt->current + 1;
  /* as glibc: a try lock by the writer is busy; the blocking and timed ones report the deadlock */
  if (l->writer == self) return attempt & WEFT_ATTEMPT_TRY ? EBUSY : EDEADLK;
  if (attempt & WEFT_ATTEMPT_TIMED) sched_yield_step(0, pc);
  /* an attempt (try, or timed) is an op of its own: it never waits, and partial-order
   * reduction must know that it may go before a release (and fail there) */
  uint8_t op = attempt ? (write ? WEFT_OP_RWLOCK_TRY_WRITE : WEFT_OP_RWLOCK_TRY_READ)
                       : (write ? WEFT_OP_RWLOCK_WRITE : WEFT_OP_RWLOCK_READ);
  sched_point(op, (uintptr_t)rwlock, attempt, pc);
  refuse_destroyed(l->destroyed, "locking", "read-write lock", pc);
  if (!available(l, write)) {
    sched_record_value(0, 0);
    return attempt & WEFT_ATTEMPT_TIMED ? ETIMEDOUT : EBUSY;
  }
  if (write) l->writer = self;
  else l->readers++;
  race_on_acquired((uintptr_t)rwlock); /* a failed attempt orders nothing */
  sched_record_value(1, 0);
  return 0;
}

WEFT_HIDDEN int weft_pthread_rwlock_rdlock(pthread_rwlock_t *l) { return lock(l, 0, 0, WEFT_CALLER_PC()); }
WEFT_HIDDEN int weft_pthread_rwlock_wrlock(pthread_rwlock_t *l) { return lock(l, 1, 0, WEFT_CALLER_PC()); }
WEFT_HIDDEN int weft_pthread_rwlock_tryrdlock(pthread_rwlock_t *l) { return lock(l, 0, WEFT_ATTEMPT_TRY, WEFT_CALLER_PC()); }
WEFT_HIDDEN int weft_pthread_rwlock_trywrlock(pthread_rwlock_t *l) { return lock(l, 1, WEFT_ATTEMPT_TRY, WEFT_CALLER_PC()); }

WEFT_HIDDEN int weft_pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *deadline) {
  uintptr_t pc = WEFT_CALLER_PC();
  harness_load(deadline, sizeof *deadline, pc);
  return lock(l, 0, WEFT_ATTEMPT_TIMED, pc);
}

WEFT_HIDDEN int weft_pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *deadline) {
  uintptr_t pc = WEFT_CALLER_PC();
  harness_load(deadline, sizeof *deadline, pc);
  return lock(l, 1, WEFT_ATTEMPT_TIMED, pc);
}

WEFT_HIDDEN int weft_pthread_rwlock_unlock(pthread_rwlock_t *rwlock) {
  uintptr_t pc = WEFT_CALLER_PC();
  struct rwlock_state *l = state_of(rwlock);
  /* no other thread can take or give up what this thread holds while it waits to be chosen */
  int writing = l->writer == weft_rt->current + 1;
  /* a reader's unlock is an op of its own: another reader's lock never waits for it, so
   * partial-order reduction must know that the two may come in either order */
  sched_point(writing ? WEFT_OP_RWLOCK_UNLOCK : WEFT_OP_RWLOCK_READ_UNLOCK, (uintptr_t)rwlock, 0, pc);
  refuse_destroyed(l->destroyed, "unlocking", "read-write lock", pc);
  if (writing) l->writer = 0;
  else if (l->writer == 0 && l->readers > 0) l->readers--;
  else execution_fail(WEFT_OUTCOME_MISUSE, pc, "unlocking a read-write lock the thread does not hold");
  race_on_released((uintptr_t)rwlock); /* a reader's too: readers' unlocks accumulate */
  return 0;
}
