/* Spinlocks, modelled as locks that block (a thread spinning on a held spinlock makes
 * no progress until the holder unlocks), so deadlocks through them are found. The lock
 * holds 0 when free, its holder's id + 1 when held, SPIN_DESTROYED once destroyed. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>

#include "runtime.h"

#define SPIN_DESTROYED INT_MIN

/* what only pthread_spin_init, this file's steps or zeroed memory leave: any other value is
 * what the memory held before, a spinlock never initialised */
static int initialised(int value) { return value == SPIN_DESTROYED || (value >= 0 && value <= WEFT_MAX_THREADS); }

/* a destroyed lock, or one never initialised, lets its user go on, to the misuse */
int spin_lock_enabled(const struct pending *pending, uint32_t thread) {
  (void)thread;
  int value = *(const volatile int *)pending->object;
  return (pending->argument & WEFT_ATTEMPT_TRY) || value == 0 || value == SPIN_DESTROYED || !initialised(value);
}

static void check_live(const pthread_spinlock_t *lock, const char *doing, uintptr_t pc) {
  if (WEFT_UNLIKELY(!initialised(*lock))) execution_fail(WEFT_OUTCOME_MISUSE, pc, "%s a spinlock that was never initialised", doing);
  refuse_destroyed(*lock == SPIN_DESTROYED, doing, "spinlock", pc);
}

WEFT_HIDDEN int weft_pthread_spin_init(pthread_spinlock_t *lock, int shared) {
  (void)shared;
  harness_store((const void *)(uintptr_t)lock, sizeof *lock, WEFT_CALLER_PC());
  *lock = 0;
  return 0;
}

/* A step of its own, ordered with the lock's others (mutex.c). */
WEFT_HIDDEN int weft_pthread_spin_destroy(pthread_spinlock_t *lock) {
  uintptr_t pc = WEFT_CALLER_PC();
  sched_point(WEFT_OP_DESTROY, (uintptr_t)lock, 0, pc);
  check_live(lock, "destroying", pc);
  if (*lock) execution_fail(WEFT_OUTCOME_MISUSE, pc, "destroying a spinlock held by thread %d", *lock - 1);
  *lock = SPIN_DESTROYED;
  return 0;
}

static int take(pthread_spinlock_t *lock, uint32_t attempt, uintptr_t pc) {
  int self = (int)weft_rt->current + 1;
  if (*lock == self && !attempt) execution_fail(WEFT_OUTCOME_DEADLOCK, pc, "thread %u locks a spinlock it already holds", weft_rt->current);
  sched_point(attempt ? WEFT_OP_SPIN_TRYLOCK : WEFT_OP_SPIN_LOCK, (uintptr_t)lock, attempt, pc);
  check_live(lock, "locking", pc);
  if (*lock != 0) {
    sched_record_value(0, 0);
    return EBUSY;
  }
  *lock = self;
  race_on_acquired((uintptr_t)lock); /* a failed trylock orders nothing */
  sched_record_value(1, 0);
  return 0;
}

WEFT_HIDDEN int weft_pthread_spin_lock(pthread_spinlock_t *lock) { return take(lock, 0, WEFT_CALLER_PC()); }
WEFT_HIDDEN int weft_pthread_spin_trylock(pthread_spinlock_t *lock) { return take(lock, WEFT_ATTEMPT_TRY, WEFT_CALLER_PC()); }

WEFT_HIDDEN int weft_pthread_spin_unlock(pthread_spinlock_t *lock) {
  uintptr_t pc = WEFT_CALLER_PC();
  sched_point(WEFT_OP_SPIN_UNLOCK, (uintptr_t)lock, 0, pc);
  check_live(lock, "unlocking", pc);
  if (*lock != (int)weft_rt->current + 1)
    execution_fail(WEFT_OUTCOME_MISUSE, pc, "unlocking a spinlock the thread does not hold");
  *lock = 0;
  race_on_released((uintptr_t)lock);
  return 0;
}
