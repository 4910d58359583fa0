/* Plain memory accesses, as instrumented by -fsanitize=thread. In sc mode an access to
 * shared memory (the harness's globals, the heap arena, another thread's thread-local block, a stack another thread may see:
 * stack.c) is a scheduling point; a thread's own stack stays private until its address
 * may have reached another thread. In drf mode they are not scheduling points but are
 * checked for data races (race.c), except the racy locations the explorer asks to see as
 * scheduling points. */
#include <stdint.h>
#include <string.h>

#include "runtime.h"

/* An access to the current thread's stack that no other thread can have seen: one
 * compare, before anything else an access costs. What it holds is part of the state spin
 * detection compares (spin.c): writing it is no effect on anyone. */
static inline int private_stack(const struct runtime *r, uintptr_t address) {
  return address - r->private_low < r->private_size;
}

int races_checked_at(uintptr_t address) {
  struct runtime *r = weft_rt;
  if (!detecting_races(r)) return 0;
  if (address - r->private_low < WEFT_STACK_SIZE) {
    stack_settle_pending(r);
    if (private_stack(r, address)) return 0;
  }
  return !(r->visible_count && race_visible(address));
}

static int shared_address(struct runtime *r, uintptr_t address) {
  if (address - r->data_start < r->data_end - r->data_start) return 1;
  if (heap_contains(r, address)) return 1;
  /* another thread's thread-local copy, reached through a pointer (its owner's own accesses stay no steps) */
  if (tls_contains(r, address)) return tls_owner(r, address) != r->current;
  int32_t owner = stack_owner(r, address);
  if (owner < 0) return 0;
  stack_share(r, owner); /* another thread's, or its own already shared */
  return 1;
}

static void read_step(uintptr_t address, uint32_t size, uintptr_t pc) {
  sched_point(WEFT_OP_PLAIN_READ, address, size, pc);
  extent_note(address, size);
  uint64_t value = 0;
  memcpy(&value, (const void *)address, size > 8 ? 8 : size);
  sched_record_value(value, (uint8_t)(size > 8 ? 8 : size));
  sched_note_read(address, value, (uint8_t)size, pc);
}

static void write_step(uintptr_t address, uint32_t size, uintptr_t pc) {
  sched_point(WEFT_OP_PLAIN_WRITE, address, size, pc);
  extent_note(address, size);
  sched_record_write(address, (uint8_t)(size > 8 ? 8 : size));
}

/* drf mode: every QUIET_ACCESS_LIMIT-th plain access is a scheduling point anyway, so
 * that a busy loop on a plain variable still meets spin detection and the step bound
 * and cannot hang the process. Deterministic: the count restarts with each execution. */
#define QUIET_ACCESS_LIMIT (1u << 16)
static void step_anyway(int write, uintptr_t address, uint32_t size, uintptr_t pc) {
  weft_rt->quiet_accesses = 0;
  if (!weft_rt->in_execution) return;
  if (write) write_step(address, size, pc);
  else read_step(address, size, pc);
}

/* A counterexample's replay keeps the last plain accesses with their values. A write's
 * value is in memory only once the store ran: it is read at the thread's next hook. */
void access_log_complete(struct runtime *r) {
  struct weft_logged_access *entry = &r->access_log[(r->access_unwritten - 1) % WEFT_ACCESS_LOG_SIZE];
  entry->bits = 0;
  memcpy(&entry->bits, (const void *)(uintptr_t)entry->address, entry->size);
  r->access_unwritten = 0;
}

static void log_access(struct runtime *r, int write, uintptr_t address, uint32_t size, uintptr_t pc) {
  /* only globals, the heap and shared stacks: memory the log may read back whatever the harness does */
  if (size > 8 || !shadow_cell_of(address)) return;
  struct weft_logged_access *entry = &r->access_log[r->access_count % WEFT_ACCESS_LOG_SIZE];
  entry->address = (double)address;
  entry->bits = 0;
  if (!write) memcpy(&entry->bits, (const void *)address, size);
  /* main's code before the first step: no step of its own yet (others start with one) */
  entry->step = r->step ? current_thread()->event : WEFT_BEFORE_ANY_STEP;
  entry->pc = (uint32_t)(pc - r->library_base);
  entry->thread = (uint8_t)r->current;
  entry->size = (uint8_t)size;
  entry->write = (uint8_t)write;
  r->access_count++;
  if (write) r->access_unwritten = r->access_count;
}

/* drf mode counts a private access as it counts any other (step_anyway); it changes no
 * memory another thread can see, so it is neither a step, nor checked, nor an effect. */
static inline void private_access(struct runtime *r, int write, uintptr_t address, uint32_t size, uintptr_t pc) {
  if (r->access_mode == ACCESSES_VISIBLE) return;
  if (WEFT_UNLIKELY(++r->quiet_accesses >= QUIET_ACCESS_LIMIT)) step_anyway(write, address, size, pc);
}

/* Where an access lands, once its scheduling point is behind it (another thread may free the
 * block, or return from the frame, while this one waits there): a heap block still
 * allocated, or a live frame when it is another thread's stack. */
static inline void check_target(const struct runtime *r, uintptr_t address, uint32_t size, int write, uintptr_t pc) {
  if (heap_in_arena(r, address)) heap_check(address, size, pc);
  else if (WEFT_UNLIKELY(in_stacks(r, address))) stack_check_live(address, size, write, pc);
  else if (WEFT_UNLIKELY(tls_contains(r, address))) tls_check_live(address, size, write, pc);
}

/* Any access but a private one. */
static inline void shared_access(struct runtime *r, int write, uintptr_t address, uint32_t size, uintptr_t pc) {
  /* its own stack, not private: shared, or its last store may have shared it */
  if (WEFT_UNLIKELY(address - r->private_low < WEFT_STACK_SIZE)) {
    stack_settle_pending(r);
    if (private_stack(r, address)) {
      private_access(r, write, address, size, pc);
      return;
    }
  }
  uint32_t mode = r->access_mode;
  globals_check(r, address, size, write, pc);
  int logged = 0;
  if (WEFT_LIKELY(mode == ACCESSES_CHECKED) || mode == ACCESSES_LOGGED) {
    if (WEFT_UNLIKELY(r->visible_count) && race_visible(address)) {
      if (write) write_step(address, size, pc);
      else read_step(address, size, pc);
    } else {
      /* not a step: spin detection must still see it. A write to the thread's own stack is no
       * effect of its own: the stack is part of the state a spin compares, so a turn that comes
       * back to where it was wrote it back as it was, and another thread could see it between
       * only through a data race, which is reported (a compare-exchange loop's `expected = 0`). */
      if (write) {
        if (address - stack_slot(r, r->current) >= WEFT_STACK_SLOT_SIZE) spin_effect(r, &r->threads[r->current]);
        if (WEFT_UNLIKELY(r->spin_waiters)) spin_wake(r, address, size);
      }
      race_check(write, address, size, pc);
      logged = mode == ACCESSES_LOGGED;
      if (WEFT_UNLIKELY(++r->quiet_accesses >= QUIET_ACCESS_LIMIT)) step_anyway(write, address, size, pc);
    }
  } else if (shared_address(r, address)) {
    if (write) write_step(address, size, pc);
    else read_step(address, size, pc);
  }
  check_target(r, address, size, write, pc);
  /* once every check passed: an access that fails the execution never runs */
  if (WEFT_UNLIKELY(logged)) {
    if (r->access_unwritten) access_log_complete(r);
    log_access(r, write, address, size, pc);
  }
  /* a word stored outside a private stack may be that stack's address */
  if (write && size >= sizeof(uintptr_t) && !(r->stack_states[r->current] & STACK_SHARED)) stack_note_store(r, address, size);
}

/* Atomics and synchronisation objects skip the access hooks: their target is checked here. */
void target_check(uintptr_t address, uint32_t size, int write, uintptr_t pc) {
  const struct runtime *r = weft_rt;
  if (r && r->in_execution) check_target(r, address, size, write, pc);
}

/* A write the runtime makes into the harness's memory for it (a create's thread handle, a
 * join's result, an object's initial state, a value or time it returns): its target is
 * checked as a write of the harness's would be, and it ends the spins reading there. */
void harness_store(const void *pointer, uint32_t size, uintptr_t pc) {
  target_check((uintptr_t)pointer, size, 1, pc);
  spin_note_store((uintptr_t)pointer, size);
}

/* A read libc would make of the harness's memory, which weft's model need not (a timed wait's
 * deadline: its timeout may come at any time; a sleep's duration): checked all the same. */
void harness_load(const void *pointer, uint32_t size, uintptr_t pc) { target_check((uintptr_t)pointer, size, 0, pc); }

static inline void on_access(int write, void *pointer, uint32_t size, uintptr_t pc) {
  uintptr_t address = (uintptr_t)pointer;
  struct runtime *r = weft_rt;
  if (WEFT_UNLIKELY(!r)) return; /* a constructor while the library loads */
  if (r->access_mode == ACCESSES_IGNORED) return;
  if (WEFT_LIKELY(private_stack(r, address))) private_access(r, write, address, size, pc);
  else shared_access(r, write, address, size, pc);
}

/* A range is checked as one access of at most 4 GiB - 1 bytes: a larger one runs past every
 * block and global all the same, where its size modulo 2^32 could fit in one. */
static inline uint32_t range_size(size_t n) { return n < UINT32_MAX ? (uint32_t)n : UINT32_MAX; }

#define ACCESS_HOOKS(size)                                                                                    \
  WEFT_HIDDEN void __tsan_read##size(void *a) { on_access(0, a, size, WEFT_CALLER_PC()); }                    \
  WEFT_HIDDEN void __tsan_write##size(void *a) { on_access(1, a, size, WEFT_CALLER_PC()); }                   \
  WEFT_HIDDEN void __tsan_unaligned_read##size(void *a) { on_access(0, a, size, WEFT_CALLER_PC()); }          \
  WEFT_HIDDEN void __tsan_unaligned_write##size(void *a) { on_access(1, a, size, WEFT_CALLER_PC()); }         \
  WEFT_HIDDEN void __tsan_volatile_read##size(void *a) { on_access(0, a, size, WEFT_CALLER_PC()); }           \
  WEFT_HIDDEN void __tsan_volatile_write##size(void *a) { on_access(1, a, size, WEFT_CALLER_PC()); }

ACCESS_HOOKS(1)
ACCESS_HOOKS(2)
ACCESS_HOOKS(4)
ACCESS_HOOKS(8)
ACCESS_HOOKS(16)

WEFT_HIDDEN void __tsan_read_range(void *a, unsigned long size) { on_access(0, a, range_size(size), WEFT_CALLER_PC()); }
WEFT_HIDDEN void __tsan_write_range(void *a, unsigned long size) { on_access(1, a, range_size(size), WEFT_CALLER_PC()); }

/* The compiler turns loops into memset/memcpy calls, which -fsanitize=thread does not
 * instrument: the harness's calls come here, and are checked as one access each. */
WEFT_HIDDEN void *weft_memset(void *destination, int c, size_t n) {
  if (n) on_access(1, destination, range_size(n), WEFT_CALLER_PC());
  return memset(destination, c, n);
}

void copy_access(void *destination, const void *source, size_t n, uintptr_t pc) {
  if (!n) return;
  on_access(0, (void *)source, range_size(n), pc);
  on_access(1, destination, range_size(n), pc);
}

WEFT_HIDDEN void *weft_memcpy(void *destination, const void *source, size_t n) {
  copy_access(destination, source, n, WEFT_CALLER_PC());
  return memcpy(destination, source, n);
}

WEFT_HIDDEN void *weft_memmove(void *destination, const void *source, size_t n) {
  copy_access(destination, source, n, WEFT_CALLER_PC());
  return memmove(destination, source, n);
}

/* Function entry/exit and C++ vtable hooks carry nothing weft needs. */
WEFT_HIDDEN void __tsan_init(void) {}
WEFT_HIDDEN void __tsan_func_entry(void *caller) { (void)caller; }
/* A function returns: where its thread's stack is shared, its frame's end is checked
 * against other threads' accesses to it (stack_frame_end). */
WEFT_HIDDEN void __tsan_func_exit(void) {
  const struct runtime *r = weft_rt;
  if (WEFT_UNLIKELY(r && (r->stack_states[r->current] & STACK_SHARED)))
    stack_frame_end((const uintptr_t *)__builtin_frame_address(0), WEFT_CALLER_PC());
}
WEFT_HIDDEN void __tsan_vptr_update(void **vptr, void *value) { (void)vptr, (void)value; }
WEFT_HIDDEN void __tsan_vptr_read(void **vptr) { (void)vptr; }

/* A range a libc function called by the harness reads or writes (strings.c), checked as
 * one access like memset's and memcpy's. */
WEFT_HIDDEN void memory_access(int write, const void *pointer, size_t n, uintptr_t pc) {
  if (n) on_access(write, (void *)pointer, range_size(n), pc);
}
