/* Barriers: a thread arrives (one step, recording the barrier's count) and, unless it is
 * the last, leaves only once the last thread arrived (a second step, recording the
 * generation it waits out, blocked until then). The last thread to arrive gets
 * PTHREAD_BARRIER_SERIAL_THREAD. */
#include <errno.h>
#include <pthread.h>

#include "runtime.h"

struct barrier_state {
  uint32_t count;
  uint32_t arrived;
  uint32_t generation; /* completed rounds */
};
_Static_assert(sizeof(struct barrier_state) <= sizeof(pthread_barrier_t), "barrier state fits");

static inline struct barrier_state *state_of(const void *barrier) {
  return WEFT_OBJECT_STATE(struct barrier_state, barrier);
}

int barrier_leave_enabled(const struct pending *pending, uint32_t thread) {
  (void)thread;
  return state_of((const void *)pending->object)->generation != (uint32_t)pending->argument;
}

WEFT_HIDDEN int weft_pthread_barrier_init(pthread_barrier_t *barrier, const pthread_barrierattr_t *attributes,
                                          unsigned count) {
  (void)attributes;
  if (count == 0) return EINVAL;
  harness_store(barrier, sizeof *barrier, WEFT_CALLER_PC());
  *state_of(barrier) = (struct barrier_state){count, 0, 0};
  return 0;
}

/* `doing` ("waiting at"): a barrier destroyed, or never initialised, has no count */
static void refuse_uninitialised(const struct barrier_state *b, const char *doing, uintptr_t pc) {
  if (b->count == 0) execution_fail(WEFT_OUTCOME_MISUSE, pc, "%s a barrier that was destroyed or not initialised", doing);
}

/* A step of its own, ordered with the barrier's others (mutex.c). */
WEFT_HIDDEN int weft_pthread_barrier_destroy(pthread_barrier_t *barrier) {
  uintptr_t pc = WEFT_CALLER_PC();
  sched_point(WEFT_OP_DESTROY, (uintptr_t)barrier, 0, pc);
  refuse_uninitialised(state_of(barrier), "destroying", pc);
  if (state_of(barrier)->arrived) execution_fail(WEFT_OUTCOME_MISUSE, pc, "destroying a barrier that threads wait at");
  state_of(barrier)->count = 0; /* any later wait is undefined (POSIX) until it is initialised again */
  return 0;
}


WEFT_HIDDEN int weft_pthread_barrier_wait(pthread_barrier_t *barrier) {
  uintptr_t pc = WEFT_CALLER_PC();
  struct barrier_state *b = state_of(barrier);
  refuse_uninitialised(b, "waiting at", pc); /* its count is the step's argument */
  sched_point(WEFT_OP_BARRIER_ARRIVE, (uintptr_t)barrier, b->count, pc);
  refuse_uninitialised(b, "waiting at", pc); /* another thread may have destroyed it since */
  uint32_t generation = b->generation;
  if (++b->arrived == b->count) {
    b->arrived = 0;
    b->generation++;
    return PTHREAD_BARRIER_SERIAL_THREAD;
  }
  sched_point(WEFT_OP_BARRIER_LEAVE, (uintptr_t)barrier, generation, pc);
  return 0;
}
