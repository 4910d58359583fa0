/* POSIX semaphores: sem_wait blocks while the value is 0; sem_trywait fails with EAGAIN
 * and sem_timedwait may time out instead. Every step records the value it found: the
 * explorer reads the semaphore's state in any prefix of the run off that. */
#include <errno.h>
#include <semaphore.h>

#include "runtime.h"

struct sem_state {
  uint32_t value;
};
_Static_assert(sizeof(struct sem_state) <= sizeof(sem_t), "semaphore state fits");

static inline struct sem_state *state_of(const void *sem) { return WEFT_OBJECT_STATE(struct sem_state, sem); }

int sem_wait_enabled(const struct pending *pending, uint32_t thread) {
  (void)thread;
  return state_of((const void *)pending->object)->value > 0;
}

WEFT_HIDDEN int weft_sem_init(sem_t *sem, int shared, unsigned value) {
  (void)shared;
  state_of(sem)->value = value;
  return 0;
}

WEFT_HIDDEN int weft_sem_destroy(sem_t *sem) {
  (void)sem;
  return 0;
}

static int take(sem_t *sem, int error) {
  struct sem_state *s = state_of(sem);
  sched_record_value(s->value, 0);
  if (s->value == 0) {
    errno = error;
    return -1;
  }
  s->value--;
  race_on_acquired((uintptr_t)sem); /* a wait that fails (EAGAIN, ETIMEDOUT) orders nothing */
  return 0;
}

WEFT_HIDDEN int weft_sem_wait(sem_t *sem) {
  sched_point(WEFT_OP_SEM_WAIT, (uintptr_t)sem, 0, WEFT_CALLER_PC());
  return take(sem, EINVAL);
}

WEFT_HIDDEN int weft_sem_timedwait(sem_t *sem, const struct timespec *deadline) {
  (void)deadline;
  uintptr_t pc = WEFT_CALLER_PC();
  sched_yield_step(0, pc); /* others go first; the timeout stays possible */
  /* an op of its own: it never blocks, and partial-order reduction must know that */
  sched_point(WEFT_OP_SEM_TIMEDWAIT, (uintptr_t)sem, 0, pc);
  return take(sem, ETIMEDOUT);
}

WEFT_HIDDEN int weft_sem_trywait(sem_t *sem) {
  sched_point(WEFT_OP_SEM_TRYWAIT, (uintptr_t)sem, WEFT_ATTEMPT_TRY, WEFT_CALLER_PC());
  return take(sem, EAGAIN);
}

WEFT_HIDDEN int weft_sem_post(sem_t *sem) {
  sched_point(WEFT_OP_SEM_POST, (uintptr_t)sem, 0, WEFT_CALLER_PC());
  sched_record_value(state_of(sem)->value, 0);
  state_of(sem)->value++;
  race_on_released((uintptr_t)sem);
  return 0;
}

/* a relaxed load in glibc, and no synchronising function in POSIX: it orders nothing */
WEFT_HIDDEN int weft_sem_getvalue(sem_t *sem, int *value) {
  sched_point(WEFT_OP_SEM_GETVALUE, (uintptr_t)sem, 0, WEFT_CALLER_PC());
  *value = (int)state_of(sem)->value;
  spin_note_store((uintptr_t)value, sizeof *value);
  sched_record_value((uint64_t)*value, 0);
  return 0;
}
