/* POSIX semaphores: sem_wait blocks while the value is 0; sem_trywait fails with EAGAIN
 * and sem_timedwait may time out instead. Every step records the value it found: the
 * explorer reads the semaphore's state in any prefix of the run off that. */
#include <errno.h>
#include <semaphore.h>

#include "runtime.h"

struct sem_state {
  uint32_t value;
  uint32_t destroyed; /* by sem_destroy: any later use is undefined (POSIX) */
};
_Static_assert(sizeof(struct sem_state) <= sizeof(sem_t), "semaphore state fits");

static inline struct sem_state *state_of(const void *sem) { return WEFT_OBJECT_STATE(struct sem_state, sem); }

int sem_wait_enabled(const struct pending *pending, uint32_t thread) {
  (void)thread;
  return state_of((const void *)pending->object)->value > 0;
}

WEFT_HIDDEN int weft_sem_init(sem_t *sem, int shared, unsigned value) {
  (void)shared;
  harness_store(sem, sizeof *sem, WEFT_CALLER_PC());
  *state_of(sem) = (struct sem_state){value, 0};
  return 0;
}

/* POSIX: destroying a semaphore that threads are blocked on is undefined. A step of its own,
 * ordered with the semaphore's others (mutex.c). */
WEFT_HIDDEN int weft_sem_destroy(sem_t *sem) {
  uintptr_t pc = WEFT_CALLER_PC();
  sched_point(WEFT_OP_DESTROY, (uintptr_t)sem, 0, pc);
  refuse_destroyed(state_of(sem)->destroyed, "destroying", "semaphore", pc);
  const struct runtime *r = weft_rt;
  for (uint32_t i = 0; i < r->thread_count; i++) {
    const struct thread *t = &r->threads[i];
    if (i != r->current && t->state == THREAD_RUNNABLE && t->pending.op == WEFT_OP_SEM_WAIT && t->pending.object == (uintptr_t)sem &&
        !sem_wait_enabled(&t->pending, i))
      execution_fail(WEFT_OUTCOME_MISUSE, pc, "destroying a semaphore that thread %u waits on", i);
  }
  state_of(sem)->destroyed = 1;
  return 0;
}

static struct sem_state *live_state(sem_t *sem, const char *doing, uintptr_t pc) {
  struct sem_state *s = state_of(sem);
  refuse_destroyed(s->destroyed, doing, "semaphore", pc);
  return s;
}

static int take(sem_t *sem, int error, uintptr_t pc) {
  struct sem_state *s = live_state(sem, "waiting on", pc);
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
  uintptr_t pc = WEFT_CALLER_PC();
  sched_point(WEFT_OP_SEM_WAIT, (uintptr_t)sem, 0, pc);
  return take(sem, EINVAL, pc);
}

WEFT_HIDDEN int weft_sem_timedwait(sem_t *sem, const struct timespec *deadline) {
  uintptr_t pc = WEFT_CALLER_PC();
  harness_load(deadline, sizeof *deadline, pc);
  sched_yield_step(0, pc); /* others go first; the timeout stays possible */
  /* an op of its own: it never blocks, and partial-order reduction must know that */
  sched_point(WEFT_OP_SEM_TIMEDWAIT, (uintptr_t)sem, 0, pc);
  return take(sem, ETIMEDOUT, pc);
}

WEFT_HIDDEN int weft_sem_trywait(sem_t *sem) {
  uintptr_t pc = WEFT_CALLER_PC();
  sched_point(WEFT_OP_SEM_TRYWAIT, (uintptr_t)sem, WEFT_ATTEMPT_TRY, pc);
  return take(sem, EAGAIN, pc);
}

WEFT_HIDDEN int weft_sem_post(sem_t *sem) {
  uintptr_t pc = WEFT_CALLER_PC();
  sched_point(WEFT_OP_SEM_POST, (uintptr_t)sem, 0, pc);
  struct sem_state *s = live_state(sem, "posting", pc);
  sched_record_value(s->value, 0);
  s->value++;
  race_on_released((uintptr_t)sem);
  return 0;
}

/* a relaxed load in glibc, and no synchronising function in POSIX: it orders nothing */
WEFT_HIDDEN int weft_sem_getvalue(sem_t *sem, int *value) {
  uintptr_t pc = WEFT_CALLER_PC();
  sched_point(WEFT_OP_SEM_GETVALUE, (uintptr_t)sem, 0, pc);
  const struct sem_state *s = live_state(sem, "reading", pc);
  harness_store(value, sizeof *value, pc);
  *value = (int)s->value;
  sched_record_value((uint64_t)*value, 0);
  return 0;
}
