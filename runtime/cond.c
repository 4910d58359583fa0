/* Condition variables. Both steps of a wait record the mutex (with the attempt flags in
 * its low bits) as their value: they release and re-acquire it. A wait is two steps: COND_WAIT
 * releases one level of the mutex (as glibc: a recursive mutex held more than once stays held
 * while the thread waits) and joins the waiters; COND_WAKE re-acquires that level once the
 * thread was signalled. A signal
 * leaves one wake-up for any of the threads waiting at that moment, so which waiter
 * wakes is decided by the schedule and every choice is explored; a broadcast wakes them
 * all. Timed waits may time out at any point, even once signalled (leaving the signal to
 * another waiter); spurious wake-ups are an option. */
#include <errno.h>
#include <pthread.h>

#include "runtime.h"

/* Counts only: which threads wait, and which of them may take a pending signal, is kept
 * in the threads (cond_waiting, cond_eligible), as sets of 256 threads would not fit. */
struct cond_state {
  uint32_t waiters;  /* threads waiting and not yet woken */
  uint32_t eligible; /* waiters that may take one of the pending wake-ups */
  uint32_t pending;  /* signals not yet taken */
  uint32_t destroyed; /* by pthread_cond_destroy: any later use is undefined (POSIX) */
  uintptr_t mutex;    /* the mutex its waiters wait with, while it has any */
};
_Static_assert(sizeof(struct cond_state) <= sizeof(pthread_cond_t), "cond state fits");

static inline struct cond_state *state_of(const void *cond) { return WEFT_OBJECT_STATE(struct cond_state, cond); }

static int signalled(const struct cond_state *c, const struct thread *t) {
  return t->woken || (c->pending > 0 && t->cond_eligible);
}

/* the threads waiting on `cond` lose their claim to its signals */
static void make_ineligible(pthread_cond_t *cond) {
  struct runtime *r = weft_rt;
  for (uint32_t i = 0; i < r->thread_count; i++)
    if (r->threads[i].cond_waiting == (uintptr_t)cond) r->threads[i].cond_eligible = 0;
}

int cond_wake_enabled(const struct pending *pending, uint32_t thread) {
  const struct runtime *r = weft_rt;
  const pthread_mutex_t *m = (const pthread_mutex_t *)(uintptr_t)(pending->argument >> 2 << 2);
  /* free, or still the waiter's own (a recursive mutex it held more than once) */
  if (m->__data.__owner != 0 && m->__data.__owner != (int)thread + 1) return 0;
  if (pending->argument & WEFT_ATTEMPT_TIMED || r->flags & WEFT_RUN_SPURIOUS_WAKEUPS) return 1;
  return signalled(state_of((const void *)pending->object), &r->threads[thread]);
}

WEFT_HIDDEN int weft_pthread_cond_init(pthread_cond_t *cond, const pthread_condattr_t *attributes) {
  (void)attributes;
  harness_store(cond, sizeof *cond, WEFT_CALLER_PC());
  *state_of(cond) = (struct cond_state){0, 0, 0, 0, 0};
  return 0;
}

/* A step of its own, ordered with the condition variable's others (mutex.c). */
WEFT_HIDDEN int weft_pthread_cond_destroy(pthread_cond_t *cond) {
  uintptr_t pc = WEFT_CALLER_PC();
  sched_point(WEFT_OP_DESTROY, (uintptr_t)cond, 0, pc);
  struct cond_state *c = state_of(cond);
  refuse_destroyed(c->destroyed, "destroying", "condition variable", pc);
  /* POSIX: a signal unblocks a waiter; those no pending signal may take are blocked still */
  uint32_t blocked = c->waiters - c->eligible + (c->eligible > c->pending ? c->eligible - c->pending : 0);
  if (blocked) execution_fail(WEFT_OUTCOME_MISUSE, pc, "destroying a condition variable that threads wait on");
  c->destroyed = 1;
  return 0;
}

static struct cond_state *live_state(pthread_cond_t *cond, const char *doing, uintptr_t pc) {
  struct cond_state *c = state_of(cond);
  refuse_destroyed(c->destroyed, doing, "condition variable", pc);
  return c;
}

/* POSIX: waits on one condition variable at the same time with different mutexes are undefined */
static void refuse_other_mutex(const pthread_cond_t *cond, const struct cond_state *c, const pthread_mutex_t *m, uintptr_t pc) {
  if (!c->waiters || c->mutex == (uintptr_t)m) return;
  const struct runtime *r = weft_rt;
  for (uint32_t i = 0; i < r->thread_count; i++)
    if (r->threads[i].cond_waiting == (uintptr_t)cond)
      execution_fail(WEFT_OUTCOME_MISUSE, pc, "waiting on a condition variable with another mutex than thread %u waits on it with", i);
}

static int wait(pthread_cond_t *cond, pthread_mutex_t *m, uint32_t attempt, uintptr_t pc) {
  struct runtime *r = weft_rt;
  uint32_t self = r->current;
  target_check((uintptr_t)m, sizeof *m, 1, pc);
  mutex_check_live(m, "waiting on a condition variable with", pc);
  if (m->__data.__owner != (int)self + 1) {
    /* POSIX: EPERM for an error-checking (and glibc: a recursive) mutex; a normal one's is undefined */
    if (mutex_checks_owner(m)) return EPERM;
    execution_fail(WEFT_OUTCOME_MISUSE, pc, "waiting on a condition variable with a mutex the thread does not hold");
  }
  sched_point(WEFT_OP_COND_WAIT, (uintptr_t)cond, (uintptr_t)m, pc);
  struct cond_state *c = live_state(cond, "waiting on", pc);
  refuse_other_mutex(cond, c, m, pc);
  c->mutex = (uintptr_t)m;
  struct thread *t = &r->threads[self];
  mutex_release_level(m);
  c->waiters++;
  t->cond_waiting = (uintptr_t)cond;
  t->woken = 0;
  /* the waiter sleeps: the others go first (only a timed or spurious wake-up can come before them) */
  if (attempt & WEFT_ATTEMPT_TIMED || r->flags & WEFT_RUN_SPURIOUS_WAKEUPS) sched_yield_current();
  else sched_step_aside(t);
  sched_point(WEFT_OP_COND_WAKE, (uintptr_t)cond, (uintptr_t)m | attempt, pc);
  int result = 0;
  int woken = t->woken;
  t->woken = 0;
  /* a timed wait a signal or broadcast woke may time out all the same, leaving a signal to
   * another waiter (POSIX: a timed-out waiter may consume one; glibc passes it on): both are
   * explored, as a choice right after the wake */
  if ((attempt & WEFT_ATTEMPT_TIMED) && (woken || signalled(c, t)) && sched_choose(2, pc) == 1) result = ETIMEDOUT;
  else if (!woken) {
    if (signalled(c, t)) c->pending--;
    else if (attempt & WEFT_ATTEMPT_TIMED) result = ETIMEDOUT;
    /* else a spurious wake-up */
  }
  if (t->cond_waiting) { /* not woken by a broadcast, which forgot its waiters */
    t->cond_waiting = 0;
    c->waiters--;
    if (t->cond_eligible) c->eligible--;
    t->cond_eligible = 0;
  }
  if (c->pending == 0 || c->eligible == 0) {
    if (c->eligible) make_ineligible(cond);
    c->pending = c->eligible = 0;
  }
  mutex_acquire_level(m);
  return result;
}

WEFT_HIDDEN int weft_pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *m) {
  return wait(cond, m, 0, WEFT_CALLER_PC());
}

WEFT_HIDDEN int weft_pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *m, const struct timespec *deadline) {
  uintptr_t pc = WEFT_CALLER_PC();
  harness_load(deadline, sizeof *deadline, pc);
  return wait(cond, m, WEFT_ATTEMPT_TIMED, pc);
}

WEFT_HIDDEN int weft_pthread_cond_clockwait(pthread_cond_t *cond, pthread_mutex_t *m, clockid_t clock,
                                            const struct timespec *deadline) {
  (void)clock;
  uintptr_t pc = WEFT_CALLER_PC();
  harness_load(deadline, sizeof *deadline, pc);
  return wait(cond, m, WEFT_ATTEMPT_TIMED, pc);
}

WEFT_HIDDEN int weft_pthread_cond_signal(pthread_cond_t *cond) {
  uintptr_t pc = WEFT_CALLER_PC();
  sched_point(WEFT_OP_COND_SIGNAL, (uintptr_t)cond, 0, pc);
  struct cond_state *c = live_state(cond, "signalling", pc);
  if (c->waiters) {
    c->pending++;
    struct runtime *r = weft_rt;
    for (uint32_t i = 0; i < r->thread_count; i++) {
      struct thread *t = &r->threads[i];
      if (t->cond_waiting == (uintptr_t)cond && !t->cond_eligible) {
        t->cond_eligible = 1;
        c->eligible++;
      }
    }
  }
  return 0;
}

WEFT_HIDDEN int weft_pthread_cond_broadcast(pthread_cond_t *cond) {
  uintptr_t pc = WEFT_CALLER_PC();
  sched_point(WEFT_OP_COND_BROADCAST, (uintptr_t)cond, 0, pc);
  struct cond_state *c = live_state(cond, "broadcasting", pc);
  struct runtime *r = weft_rt;
  for (uint32_t i = 0; i < r->thread_count; i++) {
    struct thread *t = &r->threads[i];
    if (t->cond_waiting != (uintptr_t)cond) continue;
    t->woken = 1;
    t->cond_waiting = 0;
    t->cond_eligible = 0;
  }
  *c = (struct cond_state){0, 0, 0, 0, 0};
  return 0;
}
