/* The interface between a harness library (which links the runtime in) and the
 * Node binding that loads it with dlopen. Plain C structs: the binding exposes the
 * trace arrays to JavaScript as typed arrays over this memory, without copying. */
#ifndef WEFT_ABI_H
#define WEFT_ABI_H

#include <signal.h>
#include <stdint.h>

#define WEFT_ABI_VERSION 27
#define WEFT_MAX_THREADS 256
/* The harness library's section listing the calls whose result nothing uses (runtime/results.c) */
#define WEFT_UNUSED_RESULTS_SECTION ".weft.unused_results"
/* The harness library's section listing the functions from which no call reaches a thread create (runtime/results.c) */
#define WEFT_QUIET_FUNCTIONS_SECTION ".weft.quiet_functions"
/* A thread set is WEFT_THREAD_WORDS words: thread t is bit t & 31 of word t >> 5. */
#define WEFT_THREAD_WORDS (WEFT_MAX_THREADS / 32)
#define WEFT_TRACE_CAPACITY (1u << 18) /* steps one execution may take at most */
#define WEFT_MESSAGE_SIZE 1024
#define WEFT_OUTPUT_SIZE (64 * 1024)

enum weft_mode { WEFT_MODE_DRF = 0, WEFT_MODE_SC = 1 };

/* run option flags */
#define WEFT_RUN_SPURIOUS_WAKEUPS 1u /* condition waits may return without a signal */
#define WEFT_RUN_LOG_ACCESSES 2u     /* for a counterexample: keep the plain accesses to globals and the heap
                                        (drf), and the frames of shared stacks at a race or an assertion failure */
#define WEFT_RUN_REPORT_LEAKS 4u     /* heap blocks still allocated when an execution ends are a bug */
#define WEFT_RUN_SAMPLE 8u           /* past the decisions, threads and choices are drawn (sample_seed) */
#define WEFT_RUN_ROUND_ROBIN 16u     /* past the decisions, a thread that blocks, finishes or yields hands
                                        over to the next enabled thread after it in id order (delay
                                        bounding's deterministic scheduler: completing a run costs no delay) */
#define WEFT_RUN_PARK_FAILING 32u    /* a thread that fails in its own code (scheduler.c: parkable) stops there
                                        for good (PARKED) and the others go on; the run ends with the first
                                        failure's outcome (the graph engine explores what the others do past it) */
#define WEFT_RUN_RACES_GO_ON 64u     /* with WEFT_RUN_PARK_FAILING: a thread at a data race goes on past it
                                        (race.c: report; the race is there whichever access runs second) */
#define WEFT_ACCESS_LOG_SIZE 16384u /* a counterexample shows every access it kept */
#define WEFT_BEFORE_ANY_STEP 0xffffffffu /* a logged access's step: it ran before the execution's first step */
#define WEFT_STACK_FRAMES 256u /* frames of shared stacks a failure describes */

/* A plain access of a drf run with WEFT_RUN_LOG_ACCESSES (not a scheduling point). */
struct weft_logged_access {
  double address;
  uint64_t bits;   /* the value read or written */
  uint32_t step;   /* the step after which it ran, in its thread, or WEFT_BEFORE_ANY_STEP */
  uint32_t pc;     /* code offset of the access */
  uint8_t thread;
  uint8_t size;
  uint8_t write;
};

struct weft_run_options {
  uint32_t max_steps;
  uint32_t mode; /* enum weft_mode */
  uint32_t flags;
  uint32_t nondet_count;       /* __VERIFIER_nondet_*() return one of these values */
  const double *nondet_domain;
  uint32_t visible_count;      /* drf mode: plain accesses to these addresses are scheduling */
  const double *visible;       /* points (racy locations, so that their effects are explored) */
  const uint32_t *asleep;      /* sleep sets (sleep.c): a thread set (or NULL: none) asleep before */
  uint32_t asleep_from;        /* step asleep_from, which the default policy runs only when no
                                  other is enabled; copied at the start of the run */
  uint32_t plan_from;          /* decisions from this step on are a plan: where one asks for a
                                  thread the runtime does not allow, the default policy takes over */
  /* WEFT_RUN_SAMPLE (strategies random, pct): a seeded generator draws each choice's value
   * and, without priorities, a uniformly random enabled thread; with them, the enabled thread
   * of highest priority runs (PCT), and at each change point the thread about to run drops to
   * the point's priority */
  uint64_t sample_seed;
  const uint32_t *priorities;       /* WEFT_MAX_THREADS entries, or NULL */
  const uint32_t *priority_changes; /* (step, priority) pairs, by step */
  uint32_t priority_change_count;
};

/* One entry per scheduling point (step), structure of arrays. */
struct weft_trace {
  uint32_t capacity;
  uint8_t *thread;   /* who executed the step (for CHOOSE: the thread that chose) */
  uint8_t *op;       /* enum weft_op */
  double *object;    /* address, or thread id for create/join, or n for CHOOSE */
  double *value;     /* value read/written/returned; the decision for CHOOSE */
  uint64_t *bits;    /* the same value's exact bits (value is exact only up to 2^53) */
  uint8_t *size;     /* bytes of memory the value was read from or written to; 0: not memory */
  uint8_t *aside;    /* WEFT_ASIDE_* bits: the thread was set aside during the step (a yield, a
                        sleep, a timed lock or wait about to start, a timed or spurious condition
                        wait: another thread takes the next step if one can), or the step is its
                        first after; a detected spin and an untimed condition wait set a thread
                        aside unmarked (they never change what can run) */
  uint32_t *enabled; /* capacity thread sets: step s's at enabled[s * WEFT_THREAD_WORDS], thread i
                        set if it could have been chosen at this step */
  uint32_t *pc;      /* code offset of the call in the harness library */
  /* atomic steps (others leave stale entries): what a read-modify-write wrote, or what a
     compare-exchange wrote or would have written; what a compare-exchange expected; the
     memory order (enum weft_memory_order); the read-modify-write's function (enum weft_rmw_function) */
  uint64_t *written;
  uint64_t *expected;
  uint8_t *order;
  uint8_t *rmw;
  uint32_t *cas_fails; /* per step a thread set, like enabled: bit i set when thread i is about to
                          compare-exchange and would fail (only read) if it ran at this step */
};

/* weft_trace.aside bits */
#define WEFT_ASIDE_DURING 1
#define WEFT_ASIDE_AFTER 2
#define WEFT_ASIDE_SPIN 4 /* the step's read ended a turn of a spin loop that came back to where it was: its thread
                             waits, left out of the enabled set, until a write to what the turn read (spin.c) */
#define WEFT_ASIDE_TURN 8 /* the step's read came back to where its thread was a turn before (its state and every
                             read equal): a spin when every location the turn read still holds what it read
                             (then also WEFT_ASIDE_SPIN), which may depend on the other threads */

/* a thread's state, as weft_result.thread_state reports it at the end of an execution */
#define WEFT_THREAD_STATES(X) X(UNUSED) X(RUNNABLE) X(FINISHED) X(PARKED)

/* Scalar facts about the last execution; fixed layout, read by the binding. */
struct weft_result {
  uint32_t steps;
  uint32_t outcome; /* enum weft_outcome */
  int32_t thread;   /* the thread at fault, or -1 */
  uint32_t thread_count;
  uint32_t pc;      /* code offset where it failed (0 when unknown) */
  int32_t signal;
  int32_t exit_status;
  int32_t line;     /* from assert()/weft_assert: the source line */
  double fault_address;
  double library_base; /* to name globals: object addresses minus this are symbol values */
  double heap_base; /* the heap arena: heap_size bytes, a region per thread */
  double heap_size;
  double stacks_base; /* the threads' stacks (main's too): stacks_size bytes, a slot per thread */
  double stacks_size;
  double tls_base; /* the thread-local blocks: one of tls_block_size bytes per thread (0: none) */
  double tls_block_size;
  /* a data race: the address, and the earlier of the two accesses (the later one is
   * thread/pc above); access kinds: bits 1 = write, 2 = atomic */
  double race_address;
  int32_t race_thread;
  uint32_t race_pc;
  uint32_t race_write;
  uint32_t race_earlier_write;
  int32_t race_step; /* the step after which the earlier access ran (in its thread); -1: before its first */
  /* a race or an assertion failure of a WEFT_RUN_LOG_ACCESSES run: the frames of the stacks other threads may see,
   * each thread's innermost first: its thread, code offset (a return address) and
   * canonical frame address, where the debug info's frame-base-relative locals are */
  uint32_t stack_frame_count;
  uint32_t stack_frame_thread[WEFT_STACK_FRAMES];
  uint32_t stack_frame_pc[WEFT_STACK_FRAMES];
  double stack_frame_cfa[WEFT_STACK_FRAMES];
  /* a memory bug: the heap block involved, and where it was allocated and freed */
  double block_address;
  double block_size;
  uint32_t alloc_pc;
  uint32_t free_pc;
  char message[WEFT_MESSAGE_SIZE];
  char file[256];
  /* every thread at the end: 0 unused, 1 runnable, 2 finished; and what it was about to do */
  uint8_t thread_state[WEFT_MAX_THREADS];
  uint8_t pending_op[WEFT_MAX_THREADS];
  double pending_object[WEFT_MAX_THREADS];
  double pending_value[WEFT_MAX_THREADS]; /* its argument, as a step records it */
  uint32_t pending_pc[WEFT_MAX_THREADS];
  /* a thread that met a race (the run's failure, or past it: WEFT_RUN_PARK_FAILING): the step its
   * access followed (-1: none), and the step after which the other access ran in its thread
   * (-1: none, or before that thread's first step) */
  int32_t race_at[WEFT_MAX_THREADS];
  int32_t race_after[WEFT_MAX_THREADS];
  /* the first two memory steps over common bytes with different extents (extents.c): address
   * and size of each; all 0: none; the second 0: more granules stepped on than it follows */
  double mixed_extent[4];
  /* the execution's own stdout/stderr, in order */
  uint32_t output_length;
  char output[WEFT_OUTPUT_SIZE];
};

struct weft_runtime_api {
  uint32_t abi_version;
  uint32_t test_count;
  const char *(*test_name)(uint32_t index);
  const char *(*test_file)(uint32_t index);
  int32_t (*test_line)(uint32_t index);
  /* Runs one whole execution: follows `decisions` (thread ids, or values at CHOOSE
   * steps) for the first `length` steps, then the default policy. */
  uint32_t (*run)(uint32_t test, const uint16_t *decisions, uint32_t length,
                  const struct weft_run_options *options);
  /* Called from the binding's signal handler; returns 0 when the fault is not the
   * harness's (the binding then chains to the previous handler). Never returns otherwise. */
  int (*on_fault)(int signal, siginfo_t *info, void *context);
  /* Called from the binding's watchdog signal, on the thread running an execution whose
   * steps stopped for `timeout_ms`: ends it as a hang when the thread is in harness code
   * (never returns then); returns 0 when it is elsewhere (in libc, say: asked again later). */
  int (*on_hang)(int signal, void *context, uint32_t timeout_ms);
  /* After an execution: its heap blocks as (address, size, allocation code offset)
   * triples, at most `max`; returns how many there are. */
  uint32_t (*heap_blocks)(double *out, uint32_t max);
  /* drf runs with WEFT_RUN_LOG_ACCESSES: the last plain accesses, a ring of
   * WEFT_ACCESS_LOG_SIZE entries; *access_count of them were logged in all */
  const struct weft_logged_access *access_log;
  const uint32_t *access_count;
  const uint32_t *steps; /* the running execution's step count, read by the watchdog */
  struct weft_trace *trace;
  struct weft_result *result;
};

/* Exported by every harness library: initialises the runtime (snapshot of the
 * writable data, stacks, heap arena) once, returns NULL with `error` set on failure. */
typedef const struct weft_runtime_api *(*weft_runtime_open_fn)(uint32_t trace_capacity, char *error,
                                                               uint32_t error_size);
#define WEFT_RUNTIME_OPEN_SYMBOL "weft_runtime_open"

#endif
