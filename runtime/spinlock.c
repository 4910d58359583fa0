/* Spinlocks, modelled as locks that block (a thread spinning on a held spinlock makes
 * no progress until the holder unlocks), so deadlocks through them are found. */
#include <errno.h>
#include <pthread.h>

#include "runtime.h"

int spin_lock_enabled(const struct pending *pending, uint32_t thread) {
  (void)thread;
  return (pending->argument & WEFT_ATTEMPT_TRY) || *(const volatile int *)pending->object == 0;
}

WEFT_HIDDEN int weft_pthread_spin_init(pthread_spinlock_t *lock, int shared) {
  (void)shared;
  *lock = 0;
  return 0;
}

WEFT_HIDDEN int weft_pthread_spin_destroy(pthread_spinlock_t *lock) { return *lock ? EBUSY : 0; }

static int take(pthread_spinlock_t *lock, uint32_t attempt, uintptr_t pc) {
  int self = (int)weft_rt->current + 1;
  if (*lock == self && !attempt) execution_fail(WEFT_OUTCOME_DEADLOCK, pc, "thread %u locks a spinlock it already holds", weft_rt->current);
  sched_point(attempt ? WEFT_OP_SPIN_TRYLOCK : WEFT_OP_SPIN_LOCK, (uintptr_t)lock, attempt, pc);
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
  if (*lock != (int)weft_rt->current + 1)
    execution_fail(WEFT_OUTCOME_MISUSE, pc, "unlocking a spinlock the thread does not hold");
  *lock = 0;
  race_on_released((uintptr_t)lock);
  return 0;
}
