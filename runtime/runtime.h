/* Internal state of the weft runtime, shared by its files. Every mutable byte lives
 * in one mmap'd `struct runtime`, outside the harness library's data segment: restoring
 * the harness's globals never touches it, and a harness write past the end of a global
 * cannot reach it. The one pointer to it that the library holds, weft_rt, lies in the
 * library's RELRO part, read-only after relocation, outside the data segment (entry.c). */
#ifndef WEFT_RUNTIME_H
#define WEFT_RUNTIME_H

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "abi.h"
#include "ops.h"
#include "../include/weft.h"

#define WEFT_HIDDEN __attribute__((visibility("hidden")))
#define WEFT_EXPORT __attribute__((visibility("default")))
#define WEFT_NORETURN __attribute__((noreturn))
#define WEFT_LIKELY(x) __builtin_expect(!!(x), 1)
#define WEFT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define WEFT_CALLER_PC() ((uintptr_t)__builtin_return_address(0))

#define WEFT_MAX_KEYS 64
/* Each thread's stack slot: a guard region, then its stack. Stacks are adjacent: a frame
 * larger than the guard below one lands in the next thread's stack. Harness code and the
 * runtime are built with stack-clash probes (no frame skips a page); the large guard
 * covers code built without them (libc's). */
#define WEFT_STACK_SIZE ((size_t)1 << 20)
#define WEFT_STACK_GUARD_SIZE ((size_t)1 << 20)
#define WEFT_STACK_SLOT_SIZE (WEFT_STACK_GUARD_SIZE + WEFT_STACK_SIZE)
#define SPIN_READS 16 /* a busy-wait loop reading at up to this many places is recognised */
#if defined(__x86_64__)
#define SPIN_REGISTERS 6 /* callee-saved: all a C function keeps in registers across a call */
#else
#define SPIN_REGISTERS 19
#endif

/* Synchronisation objects keep weft's state in the user's own object (a pthread_cond_t,
 * sem_t, …): static initialisers are all zeros, and restoring the globals resets them. */
#define WEFT_OBJECT_STATE(type, object) ((type *)(void *)(object))

/* A set of threads, in abi.h's layout. An execution with n threads uses only the first
 * thread_words(n) words: loops stop there (most harnesses need one), the rest stay 0. */
struct thread_set {
  uint32_t words[WEFT_THREAD_WORDS];
};
static inline uint32_t thread_words(uint32_t thread_count) { return (thread_count + 31) >> 5; }
static inline int set_has(const struct thread_set *s, uint32_t thread) { return s->words[thread >> 5] >> (thread & 31) & 1; }
static inline void set_add(struct thread_set *s, uint32_t thread) { s->words[thread >> 5] |= 1u << (thread & 31); }
static inline void set_remove(struct thread_set *s, uint32_t thread) { s->words[thread >> 5] &= ~(1u << (thread & 31)); }
/* the set holds a thread other than `thread` (its first `words` words) */
static inline int set_has_other(const struct thread_set *s, uint32_t words, uint32_t thread) {
  for (uint32_t w = 0; w < words; w++)
    if (s->words[w] & ~(w == thread >> 5 ? 1u << (thread & 31) : 0)) return 1;
  return 0;
}

#define THREAD_STATE_ENUM(name) THREAD_##name,
enum thread_state { WEFT_THREAD_STATES(THREAD_STATE_ENUM) };
#undef THREAD_STATE_ENUM

struct pending {
  uint8_t op;
  uintptr_t object;
  uint64_t argument;
  uintptr_t pc;
  /* a compare-exchange: the value it expects, and its size in bytes (sched_expect) */
  uint64_t expected;
  uint8_t size;
};

/* How a thread gave way at its last step (thread.yielded). */
enum step_aside {
  STEP_ASIDE_NONE,
  /* a yield, a sleep, a timed wait about to start (WEFT_ASIDE_DURING in the trace): the
   * default policy runs another thread next, but the thread may go on, as sched_yield may
   * return at once; the strategies charge that as a preemption when another could run */
  STEP_ASIDE_MAY_GO_ON,
  /* a wait that another thread's step must end anyway (a signal): the thread cannot go on */
  STEP_ASIDE_OTHERS_FIRST,
};

struct thread {
  void *stack_pointer; /* saved while switched out */
  uint8_t state;
  uint8_t detached;
  uint8_t joined;
  uint8_t yielded;      /* gave way at its last step (enum step_aside): others go first at the next one */
  uint8_t after_aside;  /* set aside since its last recorded step: its next step is marked WEFT_ASIDE_AFTER */
  uint8_t woken;        /* woken by a broadcast while waiting on a condition */
  uint8_t returns_int;  /* a C11 thread: its start routine returns int */
  uint8_t cond_eligible; /* waiting on cond_waiting: may take one of its pending signals (cond.c) */
  int32_t race_at;       /* its first race: the step its access followed, -1: none */
  int32_t race_after;    /* and the step after which the other access ran (race.c), -1: none */
  uintptr_t cond_waiting; /* the condition variable it waits on and no broadcast woke it from; 0 none */
  struct pending pending;
  uint32_t event;       /* trace index of the step it is executing */
  uintptr_t unrecorded_write; /* sc mode: address of its last plain write, whose value */
  uint8_t unrecorded_size;    /* is only in memory once the store ran */
  void *(*start_routine)(void *);
  void *argument;
  void *return_value;
  int saved_errno;
  /* spin detection (spin.c): the last few reads since its own last effect, each with the
   * thread's state at its last repetition; one more slot is scratch */
  struct spin_anchor {
    uintptr_t pc, object;
    uint64_t value;
    uint8_t size;
    uint32_t seen;     /* spin_reads at its last read */
    uint32_t captured; /* spin_reads when its state was captured */
    struct spin_state {
      uintptr_t stack_pointer;
      uint64_t registers[SPIN_REGISTERS];
    } state;
    uint32_t length; /* bytes of stack and thread-local block copied; 0: no state */
  } spin_anchors[SPIN_READS + 1];
  uint32_t spin_count;   /* reads remembered (a ring once full) */
  uint32_t spin_reads;   /* reads noted since its last effect */
  uint32_t spin_changed; /* spin_reads at its last read that repeated no anchor */
  uint64_t effects;      /* its own effects so far (writes, output, time, choices, ...) */
  uint64_t spin_epoch;   /* `effects` when its anchors were started */
  /* spinning: left out of the enabled set until another thread writes to one of these */
  uint8_t spin_waiting;
  uint32_t spin_watch_count;
  uintptr_t spin_watch[SPIN_READS];
  uint8_t spin_watch_size[SPIN_READS];
  void *specific[WEFT_MAX_KEYS]; /* pthread_getspecific values */
};

/* happens-before for race detection (race.c) */
struct vclock {
  uint32_t at[WEFT_MAX_THREADS];
};

struct sync_clock {
  uintptr_t object;
  uint32_t generation; /* stale when not the current execution's */
  uint32_t width;      /* clock entries from this one on are 0 (cleared when the slot is taken) */
  uint32_t release_head; /* an atomic: 1 + the thread whose store heads its release sequence, 0 none */
  struct vclock clock;   /* an atomic: what its release sequence publishes */
};

/* per 4 bytes of shared memory (shadow.c): the last write and the last read, as epochs
 * (clock << 8 | thread, 0 = none), with the code offset of the access and which of the
 * 4 bytes it touched (neighbouring fields of a struct or array do not race); for the
 * heap also whether the bytes belong to a live block */
#define SHADOW_GRANULE 4
enum heap_state { HEAP_UNALLOCATED = 0, HEAP_LIVE = 1, HEAP_FREED = 2 };
/* race.c: the granule's last plain write and a plain read not ordered before it, and in
 * `more` the first of its other accesses still to be checked against (0: none) */
struct shadow_cell {
  uint32_t write_epoch, write_pc, read_epoch, read_pc;
  uint32_t more;
  uint8_t write_bytes, read_bytes, heap_state;
};

/* race.c: an earlier access kept beside a granule's two slots, in a list from the cell */
struct earlier_access {
  uint32_t epoch, pc, next;
  uint8_t bytes, kind; /* EARLIER_* bits */
};

struct key {
  uint8_t used;
  void (*destructor)(void *);
};

/* the harness's thread-local variables: one block per thread, from the PT_TLS template (tls.c) */
struct tls_blocks {
  size_t module; /* the harness library's TLS module id */
  const char *image;
  size_t image_size, block_size;
  char *blocks; /* WEFT_MAX_THREADS blocks; NULL when the harness has no TLS */
};

struct runtime {
  struct thread threads[WEFT_MAX_THREADS];
  uint32_t access_mode;    /* enum access_mode: what plain accesses mean right now */
  uint32_t quiet_accesses; /* drf mode: plain accesses since the last scheduling point (memory.c) */
  uint32_t thread_count;
  uint32_t current;
  uint32_t step;
  uint32_t max_steps;
  uint32_t mode;
  uint8_t in_execution;
  uint8_t faulted;
  uint32_t spin_waiters; /* threads spinning (spin.c), for a cheap test on every write */
  uint32_t parked_outcome; /* WEFT_RUN_PARK_FAILING: the first failure's outcome (0: none yet), and its pc */
  uintptr_t parked_pc;
  char *spin_states;     /* spin.c: copies of threads' stacks, mapped at first use */
  const uint16_t *decisions;
  uint32_t decision_count;
  void *scheduler_stack_pointer; /* the binding's context, resumed when an execution ends */
  uint32_t test;
  uint32_t flags;        /* WEFT_RUN_* */
  uint32_t atomic_depth; /* inside __VERIFIER_atomic_begin/end: no other thread runs */
  const double *nondet_domain;
  uint32_t nondet_count;
  uint64_t random_state; /* rand()/random(), the same sequence in every execution */
  uint64_t virtual_time; /* microseconds since the execution began (clock.c) */
  uint64_t clock_advance; /* what the last read of the clock moved it on by, in microseconds (clock.c) */
  uint32_t clock_read_step; /* the step of that read (+1; 0: none yet) */
  struct key keys[WEFT_MAX_KEYS];
  struct tls_blocks tls;

  /* each thread's vector clock; only the first thread_count entries of the first
   * thread_count clocks are ever non-zero (race_reset clears that much) */
  struct vclock clocks[WEFT_MAX_THREADS];
  struct vclock fence_release[WEFT_MAX_THREADS];   /* its clock at its last release fence */
  struct vclock pending_acquire[WEFT_MAX_THREADS]; /* released to its relaxed loads, joined at an acquire fence */
  struct sync_clock *sync_clocks;         /* open addressing by object address */
  struct earlier_access *earlier;         /* race.c's pool of accesses kept beside the cells' slots; 0 is no entry */
  struct granule_extents *extents;        /* extents.c: per 8-byte granule, the extents of the memory steps on it */
  uint32_t extents_generation, extents_used;
  uint32_t earlier_used, earlier_free;    /* entries handed out this execution; the first free one (0: none) */
  struct sync_clock sync_overflow;
  uint32_t sync_generation;
  struct shadow_cell *data_shadow, *heap_shadow;
  struct shadow_cell *stack_shadow; /* a thread's stack after another's: WEFT_MAX_THREADS * stack_cells */
  uint32_t stack_cells;
  uint32_t stack_shadow_from[WEFT_MAX_THREADS]; /* a thread's first cell used this execution (stack_cells: none) */
  uint32_t stack_shadowed; /* 1 + the highest thread whose stack has cells used this execution */
  struct shadow_cell *tls_shadow; /* the thread-local blocks (tls.c), a block's cells after another's; NULL: no TLS */
  uint32_t tls_shadowed;          /* 1 + the highest thread whose block has cells used this execution */
  /* per thread, STACK_* bits (stack.c); 0: its stack is private, its accesses are no one
   * else's concern. Beside the threads, not in them: the access hook reads the current
   * thread's without a multiplication. */
  uint8_t stack_states[WEFT_MAX_THREADS];
  /* the current thread's stack while its state is 0, else an empty range: the access
   * hook's one compare (stack_refresh keeps it) */
  uintptr_t private_low, private_size;
  uintptr_t unsettled_store; /* stack.c: memory the current thread just wrote that may hold its stack's address */
  uint32_t unsettled_size;
  const double *visible;
  uint32_t visible_count;
  struct thread_set asleep; /* sleep.c: threads the default policy avoids, until a step wakes them */
  uint8_t asleep_any;       /* asleep is not empty */
  uint32_t asleep_from; /* the first step that may wake them */
  uint32_t plan_from;   /* decisions from this step on are a plan, followed while allowed */
  uint64_t sample_state; /* WEFT_RUN_SAMPLE: the generator that draws threads and choices */
  uint8_t by_priority;   /* WEFT_RUN_SAMPLE with priorities: pct */
  uint32_t priorities[WEFT_MAX_THREADS];
  const uint32_t *priority_changes;
  uint32_t priority_change_count, next_priority_change;

  uintptr_t library_base; /* load address of the harness library: pcs are offsets from it */
  uintptr_t data_start, data_end; /* the harness's writable data (shared memory in sc mode) */
  /* per byte of [data_start, data_start + globals_size): how many bytes of its global
   * object are left from there, 255 meaning at least 255; 0 outside every object (globals.c) */
  const uint8_t *global_extent;
  size_t globals_size;
  struct symbol_table { /* the library file's, kept mapped to name the global of a report */
    const void *symbols; /* ElfW(Sym)[count] */
    size_t count;
    const char *names;
    size_t names_size;
  } symbol_table;
  uintptr_t text_start, text_end; /* the harness's code, the runtime's included */
  uintptr_t main_caller_frame; /* the frame pointer of the runtime's call of main or the test body (tests.c) */
  /* return addresses (offsets from library_base, ascending) of the calls that add to or
   * subtract from an atomic and drop what it returns (results.c) */
  const unsigned char *unused_results;
  size_t unused_result_count;
  /* entries (offsets from library_base, ascending) of the functions from which no call reaches a thread create (results.c) */
  const unsigned char *quiet_functions;
  size_t quiet_function_count;

  char *stacks;          /* WEFT_MAX_THREADS slots, each a guard region then the stack */
  size_t stack_slot_size, stack_guard_size, stack_size; /* WEFT_STACK_* */
  uint32_t stacks_guarded; /* slots whose guard region is protected: those of threads ever started */

  char *heap_base; /* the arena: a region per thread id (heap_region_start) */
  uintptr_t heap_tops[WEFT_MAX_THREADS]; /* per region, the arena offset its blocks end at */
  uint32_t heap_regions_used; /* 1 + the highest region with blocks this execution */

  unsigned char *snapshot;      /* initial bytes of [data_start, data_end) */

  struct weft_trace trace;
  uint32_t trace_words; /* words of a thread set any step of the trace ever used (scheduler.c) */
  struct weft_logged_access access_log[WEFT_ACCESS_LOG_SIZE];
  uint32_t access_count;
  uint32_t access_unwritten; /* 1 + the log entry of a write whose value is not in memory yet */
  uint32_t *step_clock; /* per step: its thread's own clock after it (race.c places a racing access) */
  struct weft_result result;
  struct weft_runtime_api api;
};

extern struct runtime *weft_rt WEFT_HIDDEN; /* read-only: set through runtime_set (entry.c) */
enum access_mode {
  ACCESSES_IGNORED = 0,
  ACCESSES_CHECKED = 1, /* drf: race detection */
  ACCESSES_VISIBLE = 2, /* sc */
  ACCESSES_LOGGED = 3   /* drf, and each access kept in the access log (a counterexample's replay) */
};
/* drf mode: accesses are race-checked (and maybe logged) */
static inline int detecting_races(const struct runtime *r) {
  return r->access_mode == ACCESSES_CHECKED || r->access_mode == ACCESSES_LOGGED;
}

/* A memory order argument of the atomic interface as enum weft_memory_order: compilers may
 * set flag bits above it (GCC's HLE hints), and an order weft does not know counts as seq_cst. */
static inline int memory_order_of(int mo) {
  int order = mo & 0xff;
  return order <= WEFT_ORDER_SEQ_CST ? order : WEFT_ORDER_SEQ_CST;
}

/* fiber.c */
WEFT_HIDDEN void *fiber_prepare(char *stack_top, struct thread *thread);
WEFT_HIDDEN void fiber_switch(void **save_stack_pointer, void *next_stack_pointer);
WEFT_HIDDEN void fiber_main(struct thread *thread) WEFT_NORETURN;
#if defined(__x86_64__)
WEFT_HIDDEN void fiber_continue_on(void *stack_top, void (*function)(void *), void *argument) WEFT_NORETURN;
#endif

/* scheduler.c */
WEFT_HIDDEN void sched_point(uint8_t op, uintptr_t object, uint64_t argument, uintptr_t pc);
WEFT_HIDDEN void sched_record_value(uint64_t value, uint8_t size);
/* The current thread's last step (WEFT_BEFORE_ANY_STEP outside an execution's steps). */
WEFT_HIDDEN uint32_t sched_last_step(void);
/* Records the value of `step`, an earlier step of the current thread (a once claim's: where its routine ended). */
WEFT_HIDDEN void sched_record_value_at(uint32_t step, int64_t value);
/* The object of the current thread's last step, once known only as it ran (the number a create gave). */
WEFT_HIDDEN void sched_record_object(uint32_t object);
WEFT_HIDDEN void sched_record_op(uint8_t op);
WEFT_HIDDEN void sched_expect(uint64_t expected, uint8_t size);
WEFT_HIDDEN void sched_record_atomic(uint64_t written, uint64_t expected, int mo, uint8_t rmw);
WEFT_HIDDEN int sched_cas_would_fail(const struct pending *pending);
WEFT_HIDDEN void sched_after_finish(void) WEFT_NORETURN;
WEFT_HIDDEN void sched_record_write(uintptr_t address, uint8_t size);
WEFT_HIDDEN void access_log_complete(struct runtime *r);

/* spin.c */
WEFT_HIDDEN void sched_note_read(uintptr_t object, uint64_t value, uint8_t size, uintptr_t pc);
WEFT_HIDDEN void sched_note_rmw(uintptr_t object, uint64_t old_value, uint64_t new_value, uint8_t size, uintptr_t pc);
WEFT_HIDDEN void spin_effect(struct runtime *r, struct thread *t);
WEFT_HIDDEN void spin_wake(struct runtime *r, uintptr_t start, uintptr_t size);
WEFT_HIDDEN void spin_note_store(uintptr_t address, uintptr_t size);
WEFT_HIDDEN void spin_note_step(struct runtime *r, uint32_t thread, const struct pending *pending);
/* something a spinning loop could not repeat without changing (output, time, randomness,
 * thread-specific values, allocation): the current thread's own effect. It writes nothing
 * another thread reads, so no other thread's spin ends. */
static inline void spin_note_effect(void) {
  struct runtime *r = weft_rt;
  if (r && r->in_execution) spin_effect(r, &r->threads[r->current]);
}
WEFT_HIDDEN void sched_yield_current(void);
/* a yield of its own; a sleep's (`microseconds` > 0) also moves the virtual clock on (clock.c) */
WEFT_HIDDEN void sched_yield_step(uint64_t microseconds, uintptr_t pc);
WEFT_HIDDEN void sched_step_aside(struct thread *t);
WEFT_HIDDEN uint32_t sched_choose(uint32_t n, uintptr_t pc);
WEFT_HIDDEN void execution_end(uint32_t outcome, uintptr_t pc) WEFT_NORETURN;
/* a failure of the current thread, its message written (WEFT_RUN_PARK_FAILING: parks it, else ends the execution) */
WEFT_HIDDEN void execution_failed(uint32_t outcome, uintptr_t pc) WEFT_NORETURN;
WEFT_HIDDEN void execution_fail(uint32_t outcome, uintptr_t pc, const char *format, ...)
    WEFT_NORETURN __attribute__((format(printf, 3, 4)));
/* A synchronisation object used once destroyed (undefined, POSIX): checked at the use's step,
 * since another thread may have destroyed it before the step ran. */
static inline void refuse_destroyed(int destroyed, const char *doing, const char *object, uintptr_t pc) {
  if (WEFT_UNLIKELY(destroyed)) execution_fail(WEFT_OUTCOME_MISUSE, pc, "%s a destroyed %s", doing, object);
}
WEFT_HIDDEN uint32_t sched_run(uint32_t test, const uint16_t *decisions, uint32_t length,
                               const struct weft_run_options *options);

static inline struct thread *current_thread(void) { return &weft_rt->threads[weft_rt->current]; }

/* limits.c */
WEFT_HIDDEN uint32_t step_limit_outcome(const struct runtime *r);

/* threads.c */
WEFT_HIDDEN struct thread *thread_spawn(void *(*start_routine)(void *), void *argument, uintptr_t pc);
WEFT_HIDDEN int thread_create(pthread_t *handle, const pthread_attr_t *attributes, void *(*start_routine)(void *),
                              void *argument, int returns_int, uintptr_t pc);
WEFT_HIDDEN int thread_join(pthread_t handle, void **return_value, uintptr_t pc);
WEFT_HIDDEN void thread_finish(void *return_value, uintptr_t pc) WEFT_NORETURN;

/* When a thread pending on an operation may run: the `enabled` column of ops.h names
 * one of these per op (threads.c, mutex.c, cond.c, semaphore.c, barrier.c, rwlock.c,
 * spinlock.c, once.c; enabled_always in scheduler.c). */
#define WEFT_ENABLED_DECLARE(name, text, access, can, object, flags, enabled) \
  WEFT_HIDDEN int enabled(const struct pending *pending, uint32_t thread);
WEFT_OPS(WEFT_ENABLED_DECLARE)
#undef WEFT_ENABLED_DECLARE

WEFT_HIDDEN void mutex_acquire_level(pthread_mutex_t *m);
/* a recursive or error-checking mutex: one its non-owner unlocks (or waits with) gets EPERM */
WEFT_HIDDEN int mutex_checks_owner(const pthread_mutex_t *m);
/* a misuse unless `m` was initialised and not destroyed since (`doing`: "locking", ...) */
WEFT_HIDDEN void mutex_check_live(const pthread_mutex_t *m, const char *doing, uintptr_t pc);
WEFT_HIDDEN void mutex_release_level(pthread_mutex_t *m);

/* ops.h's columns, indexed by op */
WEFT_HIDDEN extern const uint8_t op_access[WEFT_OP_COUNT];
WEFT_HIDDEN extern const uint8_t op_can[WEFT_OP_COUNT];
WEFT_HIDDEN extern const uint8_t op_object[WEFT_OP_COUNT];
WEFT_HIDDEN extern const uint8_t op_object_bytes[WEFT_OP_COUNT];
WEFT_HIDDEN extern const uint16_t op_flags[WEFT_OP_COUNT];
WEFT_HIDDEN extern const uint8_t access_commutes[]; /* by access: two of its kind commute (ops.h) */

/* memory.c */
WEFT_HIDDEN void memory_access(int write, const void *pointer, size_t n, uintptr_t pc);
/* a copy of n bytes by the C library, checked: the source read, the destination written */
WEFT_HIDDEN void copy_access(void *destination, const void *source, size_t n, uintptr_t pc);
/* strings.c: what a printf-style call reads (%s) and writes (%n) through its arguments; the
 * length a format gives; and the checked string functions of a call from `pc`, which
 * fortify.c's variants call once the destination is known to fit */
WEFT_HIDDEN void format_accesses(const char *format, va_list args, uintptr_t pc);
WEFT_HIDDEN int formatted_length(const char *format, va_list args);
/* the size format_into is given for sprintf's buffer, which has none: all vsnprintf can write */
#define SPRINTF_SIZE ((size_t)INT_MAX)
WEFT_HIDDEN int format_into(char *destination, size_t size, uintptr_t pc, const char *format, va_list args);
WEFT_HIDDEN char *checked_copy(char *destination, const char *source, size_t n, uintptr_t pc);
WEFT_HIDDEN char *checked_strcat(char *destination, const char *source, uintptr_t pc);
WEFT_HIDDEN char *checked_strncpy(char *destination, const char *source, size_t n, uintptr_t pc);
WEFT_HIDDEN char *checked_strncat(char *destination, const char *source, size_t n, uintptr_t pc);
WEFT_HIDDEN char *checked_fgets(char *into, int size, FILE *stream, uintptr_t pc);
WEFT_HIDDEN size_t checked_fread(void *into, size_t size, size_t count, FILE *stream, uintptr_t pc);
WEFT_HIDDEN char *checked_stpncpy(char *destination, const char *source, size_t n, uintptr_t pc);
WEFT_HIDDEN char *checked_mempcpy(void *destination, const void *source, size_t n, uintptr_t pc);
WEFT_HIDDEN void checked_bzero(void *destination, size_t n, uintptr_t pc);
/* read(2) and pread(2)'s result `got`: the bytes written into `into`, checked */
WEFT_HIDDEN ssize_t checked_read(void *into, ssize_t got, uintptr_t pc);

/* stack.c */
enum stack_state {
  STACK_SHARED = 1,   /* its address may have reached another thread: accesses are checked (drf) or steps (sc) */
  STACK_UNSETTLED = 2 /* it just wrote shared memory that may hold its stack's address (stack_settle) */
};
WEFT_HIDDEN void stack_reset(void);
WEFT_HIDDEN int32_t stack_owner(const struct runtime *r, uintptr_t address);
WEFT_HIDDEN void stack_check_live(uintptr_t address, uint32_t size, int write, uintptr_t pc);
WEFT_HIDDEN void stack_frame_end(const uintptr_t *hook_frame, uintptr_t pc);
WEFT_HIDDEN void race_on_frame_end(uintptr_t address, uint32_t size, uintptr_t pc);
WEFT_HIDDEN void race_on_thread_end(uintptr_t address, uint32_t size, uintptr_t pc);
static inline int in_stacks(const struct runtime *r, uintptr_t address) {
  return address - (uintptr_t)r->stacks < (uintptr_t)WEFT_MAX_THREADS * WEFT_STACK_SLOT_SIZE;
}
WEFT_HIDDEN void stack_note_words(const void *bytes, size_t size);
WEFT_HIDDEN void stack_note_store(struct runtime *r, uintptr_t address, uint32_t size);
WEFT_HIDDEN void stack_settle(struct runtime *r);
WEFT_HIDDEN void stack_describe(void);
/* the trace's enabled set of a step: the scheduler builds it there in place */
static inline struct thread_set *trace_enabled(const struct runtime *r, uint32_t step) {
  return (struct thread_set *)(void *)&r->trace.enabled[(size_t)step * WEFT_THREAD_WORDS];
}

#if defined(__x86_64__)
/* the word of a saved fiber_switch frame (fiber.c: control words, r15 r14 r13 r12 rbx rbp,
 * return address) that holds the frame pointer */
#define FIBER_SAVED_FRAME_POINTER 6
#endif

/* where `thread`'s stack slot starts: its guard region, then its stack */
static inline uintptr_t stack_slot(const struct runtime *r, uint32_t thread) {
  return (uintptr_t)r->stacks + (uintptr_t)thread * WEFT_STACK_SLOT_SIZE;
}
/* x86-64: the top of main's stack slot is kept for what runs after main() or the test body
 * returned, up to the execution's end (threads.c: main_return), so that nothing overwrites
 * main's frame until the MAIN_RETURN step ends every thread. Main's fiber starts below it.
 * The deepest use, another thread's report walking main's frames there (stack_describe),
 * takes about 5 KB. */
#if defined(__x86_64__)
#define MAIN_RETURN_STACK_SIZE ((uintptr_t)32 << 10)
#else
#define MAIN_RETURN_STACK_SIZE ((uintptr_t)0)
#endif
/* where `thread`'s fiber starts: the top of its stack slot, main's below the part kept for its return */
static inline uintptr_t fiber_stack_top(const struct runtime *r, uint32_t thread) {
  return stack_slot(r, thread + 1) - (thread == 0 ? MAIN_RETURN_STACK_SIZE : 0);
}
/* after the current thread or its stack's state changed */
static inline void stack_refresh(struct runtime *r) {
  r->private_low = stack_slot(r, r->current) + WEFT_STACK_GUARD_SIZE;
  r->private_size = r->stack_states[r->current] ? 0 : WEFT_STACK_SIZE;
}
/* the owner's stack may be seen by other threads from now on */
static inline void stack_share(struct runtime *r, int32_t owner) {
  r->stack_states[owner] |= STACK_SHARED;
  stack_refresh(r);
}
/* the settling of a thread's last store, before anything another thread could see */
static inline void stack_settle_pending(struct runtime *r) {
  if (WEFT_UNLIKELY(r->unsettled_size)) stack_settle(r);
}

/* memory.c: whether race detection checks an access to `address` now (drf mode, not the
 * thread's private stack, not a racy location made a scheduling point) */
WEFT_HIDDEN int races_checked_at(uintptr_t address);

/* extents.c */
WEFT_HIDDEN int extents_open(char *error, uint32_t error_size);
WEFT_HIDDEN void extents_reset(void);
WEFT_HIDDEN void extent_note(uintptr_t start, uint32_t size);

/* shadow.c */
WEFT_HIDDEN int shadow_open(char *error, uint32_t error_size);
WEFT_HIDDEN void shadow_reset(void);
WEFT_HIDDEN struct shadow_cell *shadow_cell_of(uintptr_t address);
WEFT_HIDDEN void shadow_mark_heap(uintptr_t start, size_t size, uint8_t state);
WEFT_HIDDEN uint8_t shadow_heap_state(uintptr_t address);

/* race.c */
WEFT_HIDDEN int race_open(char *error, uint32_t error_size);
WEFT_HIDDEN void race_reset(void);
WEFT_HIDDEN void race_on_step(uint32_t thread, const struct pending *pending);
WEFT_HIDDEN void race_on_create(uint32_t parent, uint32_t child);
WEFT_HIDDEN void race_on_once_done(uint32_t thread, uintptr_t control);
WEFT_HIDDEN void race_on_acquired(uintptr_t object);
WEFT_HIDDEN void race_on_released(uintptr_t object);
WEFT_HIDDEN void race_check(int write, uintptr_t address, uint32_t size, uintptr_t pc);
WEFT_HIDDEN int race_visible(uintptr_t address);
/* C11 happens-before of an atomic operation or fence, by the current thread; `order` is
 * the memory order the __tsan_atomic* hook received */
enum race_atomic_kind { RACE_ATOMIC_LOAD, RACE_ATOMIC_STORE, RACE_ATOMIC_RMW };
WEFT_HIDDEN void race_on_atomic(enum race_atomic_kind kind, uintptr_t object, uint32_t size, int order, uintptr_t pc);
WEFT_HIDDEN void race_on_fence(int order);

/* sleep.c */
WEFT_HIDDEN void sleep_wake(struct runtime *r, uint32_t step);

/* keys.c */
WEFT_HIDDEN void keys_run_destructors(struct thread *thread);
WEFT_HIDDEN void keys_reset(void);

/* tls.c */
WEFT_HIDDEN int tls_open(char *error, uint32_t error_size);
WEFT_HIDDEN void tls_thread_start(uint32_t thread);
WEFT_HIDDEN void tls_check_live(uintptr_t address, uint32_t size, int write, uintptr_t pc);
WEFT_HIDDEN void tls_thread_end(uintptr_t pc);
/* Whether the address is in a harness thread's thread-local block. Its address may be handed
 * to another thread (&tls_variable), and nothing tracks where it went: every access to it is
 * race-checked (drf); in sc mode another thread's access is a step, its owner's are not. */
static inline int tls_contains(const struct runtime *r, uintptr_t address) {
  return address - (uintptr_t)r->tls.blocks < r->tls.block_size * WEFT_MAX_THREADS;
}
/* the thread whose thread-local block holds `address` (tls_contains) */
static inline uint32_t tls_owner(const struct runtime *r, uintptr_t address) {
  return (uint32_t)((address - (uintptr_t)r->tls.blocks) / r->tls.block_size);
}

/* clock.c */
WEFT_HIDDEN void clock_reset(void);
/* the object a sleep's yield step reads (the virtual clock), and moving the clock on by its duration */
WEFT_HIDDEN uintptr_t clock_object(void);
WEFT_HIDDEN void clock_sleep(uint64_t microseconds);
/* checks.c: a sleep's timespec in whole microseconds, rounded up, at least one */
WEFT_HIDDEN uint64_t duration_microseconds(const struct timespec *duration);

/* heap.c. The arena is a region per thread id, each its own bump allocator: a block's
 * address depends only on its thread's own allocations, whatever other threads allocate
 * and when (the explorer names memory locations by address). The test's main thread, T0,
 * has the first and largest region; untouched pages of the others cost no memory. */
#define HEAP_MAIN_REGION_SIZE ((uintptr_t)1 << 30)
#define HEAP_THREAD_REGION_SIZE ((uintptr_t)1 << 26)
#define HEAP_ARENA_SIZE (HEAP_MAIN_REGION_SIZE + (WEFT_MAX_THREADS - 1) * HEAP_THREAD_REGION_SIZE)
/* arena offsets: where a thread's region starts, and the region an offset is in */
static inline uintptr_t heap_region_start(uint32_t region) {
  return region ? HEAP_MAIN_REGION_SIZE + (region - 1) * HEAP_THREAD_REGION_SIZE : 0;
}
static inline uint32_t heap_region_of(uintptr_t offset) {
  return offset < HEAP_MAIN_REGION_SIZE ? 0 : 1 + (uint32_t)((offset - HEAP_MAIN_REGION_SIZE) / HEAP_THREAD_REGION_SIZE);
}
static inline int heap_in_arena(const struct runtime *r, uintptr_t address) {
  return address - (uintptr_t)r->heap_base < HEAP_ARENA_SIZE;
}
/* in its region's allocated part (blocks, their headers, the padding between) */
static inline int heap_contains(const struct runtime *r, uintptr_t address) {
  uintptr_t offset = address - (uintptr_t)r->heap_base;
  return offset < HEAP_ARENA_SIZE && offset < r->heap_tops[heap_region_of(offset)];
}
WEFT_HIDDEN int heap_open(char *error, uint32_t error_size);
WEFT_HIDDEN void heap_reset(void);
WEFT_HIDDEN void heap_check(uintptr_t address, uint32_t size, uintptr_t pc);
/* malloc and realloc on the arena, the block's allocation site `pc` (for libc-heap.c) */
WEFT_HIDDEN void *heap_allocate(size_t size, uintptr_t pc);
WEFT_HIDDEN void *heap_reallocate(void *pointer, size_t size, uintptr_t pc);
WEFT_HIDDEN void target_check(uintptr_t address, uint32_t size, int write, uintptr_t pc);
WEFT_HIDDEN void harness_store(const void *pointer, uint32_t size, uintptr_t pc);
WEFT_HIDDEN void harness_load(const void *pointer, uint32_t size, uintptr_t pc);
WEFT_HIDDEN void heap_describe(uintptr_t address);
WEFT_HIDDEN uint32_t heap_blocks(double *out, uint32_t max);
WEFT_HIDDEN int heap_report_leaks(void);

/* globals.c */
WEFT_HIDDEN int globals_open(const char *library_path, char *error, uint32_t error_size);
WEFT_HIDDEN void results_open(const void *elf, size_t size);
WEFT_HIDDEN int result_unused(uintptr_t pc);
WEFT_HIDDEN int function_never_creates(uintptr_t entry);
WEFT_HIDDEN void globals_check_range(uintptr_t address, size_t size, int write, uintptr_t pc);

/* An access inside the harness's data must stay inside one global object: one look-up
 * for accesses of up to 255 bytes; past the end of a global is a memory bug, reported
 * before the access happens (it would otherwise overwrite the next global or whatever
 * follows the data segment). */
static inline void globals_check(const struct runtime *r, uintptr_t address, size_t size, int write, uintptr_t pc) {
  uintptr_t offset = address - r->data_start;
  if (offset >= r->globals_size) return;
  if (WEFT_LIKELY(size <= r->global_extent[offset] && size)) return;
  globals_check_range(address, size, write, pc);
}

/* snapshot.c */
WEFT_HIDDEN int snapshot_take(char *error, uint32_t error_size);
WEFT_HIDDEN void snapshot_restore(void);

/* output.c */
WEFT_HIDDEN void output_reset(void);
WEFT_HIDDEN void output_append(const char *text, size_t length);

/* tests.c */
WEFT_HIDDEN uint32_t tests_count(void);
WEFT_HIDDEN const struct weft_test_descriptor *tests_get(uint32_t index);
WEFT_HIDDEN int tests_invoke(uint32_t index); /* returns main's status, 0 for WEFT_TEST */

/* faults.c */
WEFT_HIDDEN int faults_handle(int signal, siginfo_t *info, void *context);
WEFT_HIDDEN int faults_hang(int signal, void *context, uint32_t timeout_ms);

#endif
