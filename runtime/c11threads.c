/* C11 <threads.h> on top of the pthread model: the same threads, mutexes, condition
 * variables, once flags and thread-specific storage, with C11's return codes. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <threads.h>

#include "runtime.h"

/* the pthread_* replacements of the other runtime files */
int weft_pthread_detach(pthread_t handle);
int weft_pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attributes);
int weft_pthread_mutex_destroy(pthread_mutex_t *m);
int weft_pthread_mutex_lock(pthread_mutex_t *m);
int weft_pthread_mutex_trylock(pthread_mutex_t *m);
int weft_pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *deadline);
int weft_pthread_mutex_unlock(pthread_mutex_t *m);
int weft_pthread_cond_init(pthread_cond_t *cond, const pthread_condattr_t *attributes);
int weft_pthread_cond_destroy(pthread_cond_t *cond);
int weft_pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *m);
int weft_pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *m, const struct timespec *deadline);
int weft_pthread_cond_signal(pthread_cond_t *cond);
int weft_pthread_cond_broadcast(pthread_cond_t *cond);
int weft_pthread_key_create(pthread_key_t *key, void (*destructor)(void *));
int weft_pthread_key_delete(pthread_key_t key);
void *weft_pthread_getspecific(pthread_key_t key);
int weft_pthread_setspecific(pthread_key_t key, const void *value);
void weft_yield(void);

static int c11_result(int error) {
  switch (error) {
    case 0: return thrd_success;
    case EBUSY: return thrd_busy;
    case ETIMEDOUT: return thrd_timedout;
    case ENOMEM: return thrd_nomem;
    default: return thrd_error;
  }
}

#define MUTEX(m) ((pthread_mutex_t *)(void *)(m))
#define COND(c) ((pthread_cond_t *)(void *)(c))

WEFT_HIDDEN int weft_thrd_create(thrd_t *thread, thrd_start_t start, void *argument) {
  uintptr_t pc = WEFT_CALLER_PC();
  pthread_t handle;
  int error = thread_create(&handle, NULL, (void *(*)(void *))(void *)start, argument, 1, pc);
  harness_store(thread, sizeof *thread, pc);
  *thread = (thrd_t)handle;
  return c11_result(error);
}

WEFT_HIDDEN int weft_thrd_join(thrd_t thread, int *result) {
  uintptr_t pc = WEFT_CALLER_PC();
  void *value;
  int error = thread_join((pthread_t)thread, &value, pc);
  if (!error && result) {
    harness_store(result, sizeof *result, pc);
    *result = (int)(intptr_t)value;
  }
  return c11_result(error);
}

WEFT_HIDDEN void weft_thrd_exit(int result) { thread_finish((void *)(intptr_t)result, WEFT_CALLER_PC()); }
WEFT_HIDDEN thrd_t weft_thrd_current(void) { return (thrd_t)weft_rt->current + 1; }
WEFT_HIDDEN int weft_thrd_equal(thrd_t a, thrd_t b) { return a == b; }
WEFT_HIDDEN int weft_thrd_detach(thrd_t thread) { return c11_result(weft_pthread_detach((pthread_t)thread)); }
WEFT_HIDDEN void weft_thrd_yield(void) { weft_yield(); }

WEFT_HIDDEN int weft_thrd_sleep(const struct timespec *duration, struct timespec *remaining) {
  (void)remaining;
  uintptr_t pc = WEFT_CALLER_PC();
  harness_load(duration, sizeof *duration, pc);
  sched_yield_step(duration_microseconds(duration), pc);
  return 0;
}

WEFT_HIDDEN int weft_mtx_init(mtx_t *m, int type) {
  pthread_mutexattr_t attributes;
  pthread_mutexattr_init(&attributes);
  pthread_mutexattr_settype(&attributes, type & mtx_recursive ? PTHREAD_MUTEX_RECURSIVE : PTHREAD_MUTEX_NORMAL);
  return c11_result(weft_pthread_mutex_init(MUTEX(m), &attributes));
}

WEFT_HIDDEN void weft_mtx_destroy(mtx_t *m) { weft_pthread_mutex_destroy(MUTEX(m)); }
WEFT_HIDDEN int weft_mtx_lock(mtx_t *m) { return c11_result(weft_pthread_mutex_lock(MUTEX(m))); }
WEFT_HIDDEN int weft_mtx_trylock(mtx_t *m) { return c11_result(weft_pthread_mutex_trylock(MUTEX(m))); }
WEFT_HIDDEN int weft_mtx_unlock(mtx_t *m) { return c11_result(weft_pthread_mutex_unlock(MUTEX(m))); }
WEFT_HIDDEN int weft_mtx_timedlock(mtx_t *m, const struct timespec *deadline) {
  return c11_result(weft_pthread_mutex_timedlock(MUTEX(m), deadline));
}

WEFT_HIDDEN int weft_cnd_init(cnd_t *c) { return c11_result(weft_pthread_cond_init(COND(c), NULL)); }
WEFT_HIDDEN void weft_cnd_destroy(cnd_t *c) { weft_pthread_cond_destroy(COND(c)); }
WEFT_HIDDEN int weft_cnd_signal(cnd_t *c) { return c11_result(weft_pthread_cond_signal(COND(c))); }
WEFT_HIDDEN int weft_cnd_broadcast(cnd_t *c) { return c11_result(weft_pthread_cond_broadcast(COND(c))); }
WEFT_HIDDEN int weft_cnd_wait(cnd_t *c, mtx_t *m) { return c11_result(weft_pthread_cond_wait(COND(c), MUTEX(m))); }
WEFT_HIDDEN int weft_cnd_timedwait(cnd_t *c, mtx_t *m, const struct timespec *deadline) {
  return c11_result(weft_pthread_cond_timedwait(COND(c), MUTEX(m), deadline));
}

WEFT_HIDDEN int weft_tss_create(tss_t *key, tss_dtor_t destructor) {
  pthread_key_t k;
  int error = weft_pthread_key_create(&k, destructor);
  *key = (tss_t)k;
  return c11_result(error);
}
WEFT_HIDDEN void weft_tss_delete(tss_t key) { weft_pthread_key_delete((pthread_key_t)key); }
WEFT_HIDDEN void *weft_tss_get(tss_t key) { return weft_pthread_getspecific((pthread_key_t)key); }
WEFT_HIDDEN int weft_tss_set(tss_t key, void *value) { return c11_result(weft_pthread_setspecific((pthread_key_t)key, value)); }
