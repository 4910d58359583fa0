/* Thread-specific data (pthread_key_*, C11 tss_*): values live in each thread, keys in
 * the runtime, both fresh in every execution. Not scheduling points: nothing is shared. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>

#include "runtime.h"

WEFT_HIDDEN int weft_pthread_key_create(pthread_key_t *key, void (*destructor)(void *)) {
  struct runtime *r = weft_rt;
  for (uint32_t k = 0; k < WEFT_MAX_KEYS; k++) {
    if (r->keys[k].used) continue;
    r->keys[k] = (struct key){1, destructor};
    spin_note_effect();
    /* threads created later start with no values (thread_spawn) */
    for (uint32_t t = 0; t < r->thread_count; t++) r->threads[t].specific[k] = NULL;
    harness_store(key, sizeof *key, WEFT_CALLER_PC());
    *key = k;
    return 0;
  }
  return EAGAIN;
}

WEFT_HIDDEN int weft_pthread_key_delete(pthread_key_t key) {
  if (key >= WEFT_MAX_KEYS || !weft_rt->keys[key].used) return EINVAL;
  weft_rt->keys[key].used = 0;
  spin_note_effect();
  return 0;
}

WEFT_HIDDEN void *weft_pthread_getspecific(pthread_key_t key) {
  return key < WEFT_MAX_KEYS ? current_thread()->specific[key] : NULL;
}

WEFT_HIDDEN int weft_pthread_setspecific(pthread_key_t key, const void *value) {
  if (key >= WEFT_MAX_KEYS || !weft_rt->keys[key].used) return EINVAL;
  current_thread()->specific[key] = (void *)value;
  spin_note_effect();
  return 0;
}

/* At thread exit, as POSIX says: repeat while destructors set new values, a few times. */
void keys_run_destructors(struct thread *thread) {
  struct runtime *r = weft_rt;
  for (int round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS; round++) {
    int called = 0;
    for (uint32_t k = 0; k < WEFT_MAX_KEYS; k++) {
      void *value = thread->specific[k];
      if (!r->keys[k].used || !r->keys[k].destructor || !value) continue;
      thread->specific[k] = NULL;
      r->keys[k].destructor(value);
      called = 1;
    }
    if (!called) return;
  }
}

void keys_reset(void) { memset(weft_rt->keys, 0, sizeof weft_rt->keys); }
