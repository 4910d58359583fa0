/* pthread_once and C11 call_once: the first caller runs the routine; callers that come
 * while it runs wait until it is done. State in the once object: 0 not run, 1 done,
 * 2 + id while thread id runs the routine. The claiming call's step records where the
 * routine ended (ONCE_UNFINISHED while it runs): 1 + the step of the claiming thread it
 * ended after (the claim itself when it took none), the one every later call comes after; a
 * call that found the routine done records 0. */
#include <pthread.h>
#include <threads.h>

#include "runtime.h"

enum { ONCE_NEW = 0, ONCE_DONE = 1, ONCE_RUNNING = 2 };
enum { ONCE_UNFINISHED = -1 };

int once_enabled(const struct pending *pending, uint32_t thread) {
  (void)thread;
  return *(const volatile int *)pending->object < ONCE_RUNNING;
}

static void run_once(volatile int *control, void (*routine)(void), uintptr_t pc) {
  sched_point(WEFT_OP_ONCE, (uintptr_t)control, 0, pc);
  if (*control == ONCE_DONE) return;
  uint32_t self = weft_rt->current;
  uint32_t claim = sched_last_step();
  sched_record_value_at(claim, ONCE_UNFINISHED);
  *control = ONCE_RUNNING + (int)self;
  routine();
  /* pthread_once returns in every caller after the routine: its effects happen before */
  race_on_once_done(self, (uintptr_t)control);
  sched_record_value_at(claim, (int64_t)sched_last_step() + 1);
  *control = ONCE_DONE;
}

WEFT_HIDDEN int weft_pthread_once(pthread_once_t *control, void (*routine)(void)) {
  uintptr_t pc = WEFT_CALLER_PC();
  if (*control == ONCE_RUNNING + (int)weft_rt->current)
    execution_fail(WEFT_OUTCOME_DEADLOCK, pc, "pthread_once called again from its own routine");
  run_once(control, routine, pc);
  return 0;
}

WEFT_HIDDEN void weft_call_once(once_flag *flag, void (*routine)(void)) {
  run_once((volatile int *)flag, routine, WEFT_CALLER_PC());
}
