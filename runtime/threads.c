/* Threads: pthread_create/join/exit/self/equal/detach on fibers. A pthread_t is the
 * thread's number plus one, so that 0 never names a thread. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"

static inline uint32_t id_of(pthread_t handle) { return (uint32_t)(handle - 1); }

struct thread *thread_spawn(void *(*start_routine)(void *), void *argument, uintptr_t pc) {
  struct runtime *r = weft_rt;
  uint32_t id = r->thread_count;
  if (id >= WEFT_MAX_THREADS)
    execution_fail(WEFT_OUTCOME_LIMIT, pc, "the harness starts more than %d threads (main included): weft explores at most %d",
                   WEFT_MAX_THREADS, WEFT_MAX_THREADS);
  /* a guard region costs a system call: made once a harness first starts that many threads */
  if (WEFT_UNLIKELY(id >= r->stacks_guarded)) {
    if (mprotect(r->stacks + (size_t)id * r->stack_slot_size, r->stack_guard_size, PROT_NONE) != 0)
      execution_fail(WEFT_OUTCOME_LIMIT, pc, "cannot protect the stack guard region of thread %u: %s", id, strerror(errno));
    r->stacks_guarded = id + 1;
  }
  struct thread *t = &r->threads[id];
  memset(t, 0, sizeof *t);
  t->state = THREAD_RUNNABLE;
  t->race_at = -1;
  t->race_after = -1;
  t->start_routine = start_routine;
  t->argument = argument;
  t->pending.op = WEFT_OP_THREAD_START;
  t->pending.object = id;
  t->pending.argument = (uint64_t)function_never_creates((uintptr_t)start_routine);
  t->pending.pc = (uintptr_t)start_routine;
  r->stack_states[id] = 0;
  stack_refresh(r);
  t->stack_pointer = fiber_prepare((char *)fiber_stack_top(r, id), t);
  stack_note_words(&argument, sizeof argument); /* the argument may be the creator's stack */
  tls_thread_start(id);
  r->thread_count = id + 1;
  return t;
}

void thread_finish(void *return_value, uintptr_t pc) {
  struct thread *t = current_thread();
  keys_run_destructors(t);
  sched_point(WEFT_OP_THREAD_EXIT, weft_rt->current, 0, pc);
  tls_thread_end(pc);
  t->state = THREAD_FINISHED;
  t->return_value = return_value;
  sched_after_finish();
}

/* After main() or the test body returned (`status`: main's status, 0 for a test body): its
 * step, then the execution's end. */
static WEFT_NORETURN void main_return(void *status_word) {
  struct runtime *r = weft_rt;
  int status = (int)(intptr_t)status_word;
  uintptr_t pc = (uintptr_t)tests_get(r->test)->body;
  sched_point(WEFT_OP_MAIN_RETURN, 0, (uint64_t)status, pc);
  if (status != 0) {
    r->result.exit_status = status;
    execution_fail(WEFT_OUTCOME_EXIT, pc, "main returned %d", status);
  }
  execution_end(WEFT_OUTCOME_OK, pc);
}

void fiber_main(struct thread *thread) {
  struct runtime *r = weft_rt;
  if (thread == &r->threads[0]) {
    void *status = (void *)(intptr_t)tests_invoke(r->test);
    /* Main's frame lives until the MAIN_RETURN step ends every thread: other threads may still
     * use the locals main handed them, and the trace records no write there. So the runtime's
     * frames from here on, while other threads run before that step, go on the top of main's
     * slot, which main's frames never used (MAIN_RETURN_STACK_SIZE). Elsewhere than x86-64 they
     * go where main's frame was, as calls do: a thread that reads main's locals after main()
     * returned reads the runtime's frames there, and one that writes them may crash main. */
#if defined(__x86_64__)
    fiber_continue_on((void *)stack_slot(r, 1), main_return, status);
#else
    main_return(status);
#endif
  }
  void *return_value = thread->returns_int
                           ? (void *)(intptr_t)((int (*)(void *))(void *)thread->start_routine)(thread->argument)
                           : thread->start_routine(thread->argument);
  thread_finish(return_value, (uintptr_t)thread->start_routine);
}

int join_enabled(const struct pending *pending, uint32_t thread) {
  (void)thread;
  return weft_rt->threads[pending->object].state == THREAD_FINISHED;
}

int thread_create(pthread_t *handle, const pthread_attr_t *attributes, void *(*start_routine)(void *),
                  void *argument, int returns_int, uintptr_t pc) {
  struct runtime *r = weft_rt;
  /* the number is the next one when the create runs: another thread may create first */
  sched_point(WEFT_OP_THREAD_CREATE, r->thread_count, 0, pc);
  struct thread *child = thread_spawn(start_routine, argument, pc);
  int detach_state = PTHREAD_CREATE_JOINABLE;
  if (attributes) pthread_attr_getdetachstate(attributes, &detach_state);
  child->detached = detach_state == PTHREAD_CREATE_DETACHED;
  child->returns_int = (uint8_t)returns_int;
  uint32_t id = (uint32_t)(child - r->threads);
  race_on_create(r->current, id);
  sched_record_object(id);
  sched_record_value(id, 0);
  harness_store(handle, sizeof *handle, pc);
  *handle = (pthread_t)id + 1;
  return 0;
}

WEFT_HIDDEN int weft_pthread_create(pthread_t *handle, const pthread_attr_t *attributes,
                                    void *(*start_routine)(void *), void *argument) {
  return thread_create(handle, attributes, start_routine, argument, 0, WEFT_CALLER_PC());
}

int thread_join(pthread_t handle, void **return_value, uintptr_t pc) {
  struct runtime *r = weft_rt;
  uint32_t id = id_of(handle);
  if (id >= r->thread_count) return ESRCH;
  if (id == r->current) return EDEADLK;
  struct thread *target = &r->threads[id];
  if (target->detached) execution_fail(WEFT_OUTCOME_MISUSE, pc, "joining thread %u, which is detached", id);
  if (target->joined) execution_fail(WEFT_OUTCOME_MISUSE, pc, "joining thread %u a second time", id);
  sched_point(WEFT_OP_THREAD_JOIN, id, 0, pc);
  target->joined = 1;
  if (return_value) {
    harness_store(return_value, sizeof *return_value, pc);
    *return_value = target->return_value;
  }
  return 0;
}

WEFT_HIDDEN int weft_pthread_join(pthread_t handle, void **return_value) {
  return thread_join(handle, return_value, WEFT_CALLER_PC());
}

WEFT_HIDDEN void weft_pthread_exit(void *return_value) {
  thread_finish(return_value, WEFT_CALLER_PC());
}

WEFT_HIDDEN pthread_t weft_pthread_self(void) { return (pthread_t)weft_rt->current + 1; }

WEFT_HIDDEN int weft_pthread_equal(pthread_t a, pthread_t b) { return a == b; }

WEFT_HIDDEN int weft_pthread_detach(pthread_t handle) {
  struct runtime *r = weft_rt;
  uint32_t id = id_of(handle);
  if (id >= r->thread_count) return ESRCH;
  if (r->threads[id].detached) return EINVAL;
  r->threads[id].detached = 1;
  return 0;
}
