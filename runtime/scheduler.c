/* The scheduler: every visible operation of a harness thread comes through
 * sched_point(), which records what the thread is about to do and decides who runs
 * next — the next entry of the given decisions, then the default policy (keep the
 * current thread while it is enabled; after a yield, the next enabled thread in
 * round-robin order; otherwise the lowest-numbered enabled thread, or with
 * WEFT_RUN_ROUND_ROBIN again the next in round-robin order; threads asleep
 * (sleep.c) only when no other is enabled), or in a sampling run (random, pct) a drawn one. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime.h"


int enabled_always(const struct pending *pending, uint32_t thread) {
  (void)pending, (void)thread;
  return 1;
}

typedef int (*enabled_fn)(const struct pending *pending, uint32_t thread);
#define WEFT_OP_ENABLED(name, text, access, can, object, flags, enabled) enabled,
static const enabled_fn op_enabled[WEFT_OP_COUNT] = {WEFT_OPS(WEFT_OP_ENABLED)};
#undef WEFT_OP_ENABLED

/* The set helpers and the default policy take the number of words that can be non-zero;
 * inlined into decide() twice, once with a constant 1, they cost a harness of up to 32
 * threads no loop over words. */
#define SET_INLINE static inline __attribute__((always_inline))

static int pending_enabled(const struct thread *thread, uint32_t id) {
  return op_enabled[thread->pending.op](&thread->pending, id);
}

/* A step's set in the trace: its first `words` words, and 0 in the words up to the most
 * any step of this trace ever used (a small harness writes one word a step, not all). */
SET_INLINE void clear_trace_words(struct runtime *r, struct thread_set *set, uint32_t words) {
  if (WEFT_UNLIKELY(words > r->trace_words)) r->trace_words = words;
  for (uint32_t w = words; w < r->trace_words; w++) set->words[w] = 0;
}

/* The enabled threads, and among them those about to compare-exchange that would fail here
 * (the explorer judges such a step as the read it is: trace.cas_fails). */
SET_INLINE void enabled_set(struct runtime *r, struct thread_set *set, struct thread_set *fails, uint32_t words) {
  uint32_t count = r->thread_count;
  for (uint32_t w = 0; w < words; w++) {
    uint32_t first = w << 5, in_word = count - first < 32 ? count - first : 32, bits = 0, failing = 0;
    for (uint32_t i = 0; i < in_word; i++) {
      const struct thread *t = &r->threads[first + i];
      if (t->state != THREAD_RUNNABLE || t->spin_waiting || !pending_enabled(t, first + i)) continue;
      bits |= 1u << i;
      if (WEFT_UNLIKELY(t->pending.op == WEFT_OP_ATOMIC_CAS) && sched_cas_would_fail(&t->pending)) failing |= 1u << i;
    }
    set->words[w] = bits;
    fails->words[w] = failing;
  }
  clear_trace_words(r, set, words);
  clear_trace_words(r, fails, words);
}

/* the empty set in the trace */
SET_INLINE void none(struct runtime *r, struct thread_set *set, uint32_t words) {
  for (uint32_t w = 0; w < words; w++) set->words[w] = 0;
  clear_trace_words(r, set, words);
}

/* the set of the one thread in the trace */
SET_INLINE void only(struct runtime *r, struct thread_set *set, uint32_t words, uint32_t thread) {
  none(r, set, words);
  set_add(set, thread);
}

SET_INLINE int set_empty(const struct thread_set *set, uint32_t words) {
  for (uint32_t w = 0; w < words; w++)
    if (set->words[w]) return 0;
  return 1;
}

/* the lowest thread of a set that is not empty */
SET_INLINE uint32_t set_lowest(const struct thread_set *set, uint32_t words) {
  uint32_t w = 0;
  while (!set->words[w] && w + 1 < words) w++;
  return w << 5 | (uint32_t)__builtin_ctz(set->words[w]);
}


/* the first thread of the set after `thread` in id order, wrapping round (to `thread` itself last) */
SET_INLINE uint32_t next_round_robin(uint32_t thread, const struct thread_set *set, uint32_t words) {
  uint32_t w = thread >> 5;
  /* 2u << 31 is 0: nothing above thread 31 of a word */
  uint32_t after = set->words[w] & ~((2u << (thread & 31)) - 1);
  if (after) return w << 5 | (uint32_t)__builtin_ctz(after);
  for (uint32_t v = w + 1; v < words; v++)
    if (set->words[v]) return v << 5 | (uint32_t)__builtin_ctz(set->words[v]);
  return set_lowest(set, words);
}

SET_INLINE uint32_t default_choice(const struct runtime *r, const struct thread_set *set, uint32_t words, int after_yield) {
  struct thread_set awake;
  if (WEFT_UNLIKELY(r->asleep_any)) {
    uint32_t any = 0;
    for (uint32_t w = 0; w < words; w++) any |= awake.words[w] = set->words[w] & ~r->asleep.words[w];
    if (any) set = &awake;
  }
  uint32_t current = r->current;
  if (after_yield || (r->flags & WEFT_RUN_ROUND_ROBIN && !set_has(set, current)))
    return next_round_robin(current, set, words);
  if (set_has(set, current)) return current;
  return set_lowest(set, words);
}

/* xorshift64*: the sampling runs' generator (its state is never 0) */
static uint64_t sample_draw(struct runtime *r) {
  uint64_t x = r->sample_state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  r->sample_state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

/* the lowest-numbered of the enabled threads of highest priority */
static uint32_t highest_priority(const struct runtime *r, const struct thread_set *set, uint32_t words) {
  uint32_t best = set_lowest(set, words);
  for (uint32_t w = 0; w < words; w++)
    for (uint32_t rest = set->words[w]; rest; rest &= rest - 1) {
      uint32_t thread = w << 5 | (uint32_t)__builtin_ctz(rest);
      if (r->priorities[thread] > r->priorities[best]) best = thread;
    }
  return best;
}

static uint32_t sample_choice(struct runtime *r, const struct thread_set *set, uint32_t words) {
  if (!r->by_priority) {
    uint32_t count = 0;
    for (uint32_t w = 0; w < words; w++) count += (uint32_t)__builtin_popcount(set->words[w]);
    uint32_t skip = (uint32_t)(sample_draw(r) % count);
    /* the skip-th enabled thread in id order */
    for (uint32_t w = 0;; w++) {
      uint32_t word = set->words[w], in_word = (uint32_t)__builtin_popcount(word);
      if (skip >= in_word) {
        skip -= in_word;
        continue;
      }
      while (skip--) word &= word - 1;
      return w << 5 | (uint32_t)__builtin_ctz(word);
    }
  }
  uint32_t next = highest_priority(r, set, words);
  /* a change point reached (a choice step may have passed it): the thread about to run drops */
  while (r->next_priority_change < r->priority_change_count &&
         r->priority_changes[2 * r->next_priority_change] <= r->step) {
    r->priorities[next] = r->priority_changes[2 * r->next_priority_change + 1];
    r->next_priority_change++;
    next = highest_priority(r, set, words);
  }
  return next;
}

SET_INLINE uint32_t policy_choice(struct runtime *r, const struct thread_set *set, uint32_t words, int after_yield) {
  return r->flags & WEFT_RUN_SAMPLE ? sample_choice(r, set, words) : default_choice(r, set, words, after_yield);
}

static inline struct thread_set *trace_cas_fails(const struct runtime *r, uint32_t step) {
  return (struct thread_set *)(void *)&r->trace.cas_fails[(size_t)step * WEFT_THREAD_WORDS];
}

/* the step's enabled set is in the trace already */
static void record_step(struct runtime *r, uint32_t thread, uint8_t op, double object, double value, uintptr_t pc) {
  uint32_t step = r->step++;
  r->trace.thread[step] = (uint8_t)thread;
  r->trace.op[step] = op;
  r->trace.object[step] = object;
  r->trace.value[step] = value;
  r->trace.bits[step] = (uint64_t)(int64_t)value;
  r->trace.size[step] = 0;
  /* a data choice is no scheduling point: the mark waits for the thread's next step */
  struct thread *t = &r->threads[thread];
  r->trace.aside[step] = op != WEFT_OP_CHOOSE && t->after_aside ? WEFT_ASIDE_AFTER : 0;
  if (op != WEFT_OP_CHOOSE) t->after_aside = 0;
  r->trace.pc[step] = pc ? (uint32_t)(pc - r->library_base) : 0;
  /* every step starts a new epoch of its thread, so that race.c can tell after which
   * step an access ran (extra increments order nothing: happens-before is unchanged) */
  r->step_clock[step] = ++r->clocks[thread].at[thread];
}

static void switch_to(struct runtime *r, uint32_t next) {
  struct thread *from = &r->threads[r->current];
  struct thread *to = &r->threads[next];
  r->current = next;
  stack_refresh(r);
  from->saved_errno = errno;
  fiber_switch(&from->stack_pointer, to->stack_pointer);
  errno = from->saved_errno;
}

static void finish_write_record(struct runtime *r, struct thread *t) {
  uint64_t value = 0;
  memcpy(&value, (const void *)t->unrecorded_write, t->unrecorded_size);
  r->trace.value[t->event] = (double)(int64_t)value;
  r->trace.bits[t->event] = value;
  r->trace.size[t->event] = t->unrecorded_size;
  t->unrecorded_write = 0;
}

/* The thread that executes the next step, its enabled set recorded in the trace. */
SET_INLINE uint32_t pick(struct runtime *r, struct thread *current, uint32_t words) {
  struct thread_set *set = trace_enabled(r, r->step);
  enabled_set(r, set, trace_cas_fails(r, r->step), words);
  /* an atomic section (SV-COMP) keeps its thread running while it can */
  if (r->atomic_depth && set_has(set, r->current)) only(r, set, words, r->current);
  int after_yield = current->yielded != STEP_ASIDE_NONE;
  if (after_yield) {
    /* a sampling run keeps to the policy: it lets the others go first whenever they can */
    int others_first = current->yielded == STEP_ASIDE_OTHERS_FIRST || r->flags & WEFT_RUN_SAMPLE;
    current->yielded = STEP_ASIDE_NONE;
    if (others_first && set_has_other(set, words, r->current)) set_remove(set, r->current);
  }
  if (WEFT_UNLIKELY(set_empty(set, words))) {
    /* a spin no thread is left to end (spin.c) */
    if (r->spin_waiters) execution_fail(WEFT_OUTCOME_LIVELOCK, 0, "no thread is left to change what the spinning threads read");
    for (uint32_t i = 0; i < r->thread_count; i++)
      if (r->threads[i].state == THREAD_RUNNABLE) execution_end(WEFT_OUTCOME_DEADLOCK, 0);
    execution_end(WEFT_OUTCOME_OK, 0);
  }

  uint32_t next;
  if (r->step < r->decision_count) {
    next = r->decisions[r->step];
    if (WEFT_UNLIKELY(next >= WEFT_MAX_THREADS || !set_has(set, next))) {
      if (r->step < r->plan_from)
        execution_fail(WEFT_OUTCOME_DIVERGENCE, 0,
                       "step %u: the schedule asks for thread %u, which is not enabled here "
                       "(the harness behaves differently on the same schedule: time, randomness "
                       "or uninitialised memory?)",
                       r->step, next);
      /* a planned step the runtime does not allow here (a sampling run's thread just
       * yielded, or another is in an atomic section): the plan ends, the default policy goes on */
      r->decision_count = r->step;
      next = policy_choice(r, set, words, after_yield);
    }
  } else {
    next = policy_choice(r, set, words, after_yield);
  }
  return next;
}

/* Picks the thread that executes the next step and switches to it. Returns in the
 * calling thread once it is chosen again. */
static void decide(struct runtime *r) {
  struct thread *current = &r->threads[r->current];
  if (WEFT_UNLIKELY(current->unrecorded_write)) finish_write_record(r, current);
  if (WEFT_UNLIKELY(r->access_unwritten)) access_log_complete(r);
  if (WEFT_UNLIKELY(r->step >= r->max_steps)) execution_end(step_limit_outcome(r), 0);
  /* the current thread ran the last decided step (steps since are its weft_choose values) */
  if (WEFT_UNLIKELY(r->asleep_any) && r->step > 0 && current->event >= r->asleep_from) sleep_wake(r, current->event);

  uint32_t next = WEFT_LIKELY(r->thread_count <= 32) ? pick(r, current, 1) : pick(r, current, thread_words(r->thread_count));

  struct thread *chosen = &r->threads[next];
  chosen->event = r->step;
  if (r->mode == WEFT_MODE_DRF) race_on_step(next, &chosen->pending);
  spin_note_step(r, next, &chosen->pending);
  record_step(r, next, chosen->pending.op, (double)chosen->pending.object,
              (double)(int64_t)chosen->pending.argument, chosen->pending.pc);
  if (next != r->current) switch_to(r, next);
}

void sched_point(uint8_t op, uintptr_t object, uint64_t argument, uintptr_t pc) {
  struct runtime *r = weft_rt;
  if (WEFT_UNLIKELY(!r || !r->in_execution)) return; /* e.g. a constructor at load time */
  stack_settle_pending(r); /* before another thread can run */
  struct thread *t = &r->threads[r->current];
  t->pending.op = op;
  t->pending.object = object;
  t->pending.argument = argument;
  t->pending.pc = pc;
  decide(r);
  /* the step runs now: a synchronisation object in a block freed or a frame returned meanwhile is a memory bug */
  if (op_object_bytes[op]) target_check(object, op_object_bytes[op], op_access[op] != WEFT_ACCESS_READ, pc);
}

void sched_after_finish(void) {
  decide(weft_rt);
  __builtin_unreachable(); /* a finished thread is never chosen again */
}

void sched_record_value(uint64_t value, uint8_t size) {
  struct runtime *r = weft_rt;
  if (WEFT_UNLIKELY(!r || !r->in_execution)) return;
  uint32_t step = current_thread()->event;
  r->trace.value[step] = (double)(int64_t)value;
  r->trace.bits[step] = value;
  r->trace.size[step] = size;
}

uint32_t sched_last_step(void) {
  const struct runtime *r = weft_rt;
  return r && r->in_execution && r->step ? current_thread()->event : WEFT_BEFORE_ANY_STEP;
}

void sched_record_value_at(uint32_t step, int64_t value) {
  struct runtime *r = weft_rt;
  if (WEFT_UNLIKELY(!r || !r->in_execution || step == WEFT_BEFORE_ANY_STEP)) return;
  r->trace.value[step] = (double)value;
  r->trace.bits[step] = (uint64_t)value;
}

void sched_record_object(uint32_t object) {
  struct runtime *r = weft_rt;
  if (WEFT_UNLIKELY(!r || !r->in_execution)) return;
  r->trace.object[current_thread()->event] = object;
}

/* An atomic step's detail, for a counterexample to show: what it wrote (or would have, a
 * failed compare-exchange), what a compare-exchange expected, its memory order and function. */
void sched_record_atomic(uint64_t written, uint64_t expected, int mo, uint8_t rmw) {
  struct runtime *r = weft_rt;
  if (WEFT_UNLIKELY(!r || !r->in_execution)) return;
  uint32_t step = current_thread()->event;
  r->trace.written[step] = written;
  r->trace.expected[step] = expected;
  r->trace.order[step] = (uint8_t)memory_order_of(mo);
  r->trace.rmw[step] = rmw;
}

void sched_expect(uint64_t expected, uint8_t size) {
  struct runtime *r = weft_rt;
  if (WEFT_LIKELY(r && r->in_execution)) {
    struct pending *pending = &current_thread()->pending;
    pending->expected = expected;
    pending->size = size;
  }
}

/* A pending compare-exchange would fail now: its location holds another value than it
 * expects. Read only where the memory is surely there (the harness's data, the heap in
 * use); elsewhere it may succeed, for all the scheduler knows. */
int sched_cas_would_fail(const struct pending *pending) {
  struct runtime *r = weft_rt;
  uintptr_t start = pending->object, end = start + pending->size;
  int readable = (start - r->data_start < r->data_end - r->data_start && end <= r->data_end) ||
                 (heap_contains(r, start) && heap_contains(r, end - 1));
  if (!readable || pending->size > sizeof(uint64_t)) return 0;
  uint64_t now = 0, expected = pending->expected;
  memcpy(&now, (const void *)start, pending->size);
  return memcmp(&now, &expected, pending->size) != 0;
}

/* The step the current thread runs turned out another op (a compare-exchange that failed):
 * its pending op, still that step's until its next one, says so too, as a failure right
 * after it reports (a strategy tells a thread that failed while running by the two agreeing). */
void sched_record_op(uint8_t op) {
  struct runtime *r = weft_rt;
  if (WEFT_UNLIKELY(!r || !r->in_execution)) return;
  struct thread *t = current_thread();
  r->trace.op[t->event] = op;
  t->pending.op = op;
}

void sched_record_write(uintptr_t address, uint8_t size) {
  struct thread *t = current_thread();
  t->unrecorded_write = address;
  t->unrecorded_size = size;
}

/* The step the current thread is executing sets it aside: another thread takes the next
 * step by default, and the thread going on instead is a preemption (strategy.ts:
 * preemptionCharge). Partial-order reduction must know where that can change what runs (the
 * step, and the thread's next, then conflict with every other thread's steps: trace.aside). */
void sched_yield_current(void) {
  struct thread *t = current_thread();
  t->yielded = STEP_ASIDE_MAY_GO_ON;
  t->after_aside = 1;
  weft_rt->trace.aside[t->event] |= WEFT_ASIDE_DURING;
}

/* A yield of its own (sched_yield, a sleep, a timed wait about to start): one step that sets
 * the thread aside, always, so that what the step does never depends on what comes after. A
 * sleep's moves the virtual clock on by its duration. Every yield reads the clock object
 * (ops.h): yields and sleeps commute with each other and are ordered with the reads of the
 * time (a yield is a sleep of no time). */
void sched_yield_step(uint64_t microseconds, uintptr_t pc) {
  sched_point(WEFT_OP_YIELD, clock_object(), microseconds, pc);
  if (!weft_rt || !weft_rt->in_execution) return;
  sched_yield_current();
  clock_sleep(microseconds);
}

/* Sets the thread aside where that never changes what can run, unmarked: a wait that
 * another thread's step must end anyway (a signal). */
void sched_step_aside(struct thread *t) { t->yielded = STEP_ASIDE_OTHERS_FIRST; }

uint32_t sched_choose(uint32_t n, uintptr_t pc) {
  struct runtime *r = weft_rt;
  if (!r || !r->in_execution || n <= 1) return 0;
  if (n > 65535) execution_fail(WEFT_OUTCOME_MISUSE, pc, "weft_choose(%u): at most 65535 values", n);
  if (r->step >= r->max_steps) execution_end(step_limit_outcome(r), pc);
  uint32_t value = 0;
  if (r->step < r->decision_count) {
    value = r->decisions[r->step];
    if (value >= n)
      execution_fail(WEFT_OUTCOME_DIVERGENCE, pc,
                     "step %u: the schedule chooses %u but weft_choose offers only %u values",
                     r->step, value, n);
  } else if (r->flags & WEFT_RUN_SAMPLE) {
    value = (uint32_t)(sample_draw(r) % n);
  }
  spin_effect(r, &r->threads[r->current]); /* a loop that chooses may choose otherwise next time */
  struct thread_set *set = trace_enabled(r, r->step);
  only(r, set, thread_words(r->thread_count), r->current);
  none(r, trace_cas_fails(r, r->step), thread_words(r->thread_count));
  record_step(r, r->current, WEFT_OP_CHOOSE, n, value, pc);
  return value;
}

static void collect_result(struct runtime *r, uint32_t outcome, uintptr_t pc) {
  struct weft_result *result = &r->result;
  result->steps = r->step;
  result->outcome = outcome;
  result->thread = (int32_t)r->current;
  result->library_base = (double)r->library_base;
  result->heap_base = (double)(uintptr_t)r->heap_base;
  if (pc) result->pc = (uint32_t)(pc - r->library_base);
  /* the threads of the last execution whose entries this one does not overwrite are cleared */
  uint32_t written = r->thread_count > result->thread_count ? r->thread_count : result->thread_count;
  for (uint32_t i = 0; i < written; i++) {
    const struct thread *t = &r->threads[i];
    int live = i < r->thread_count;
    result->thread_state[i] = live ? t->state : THREAD_UNUSED;
    result->pending_op[i] = live ? t->pending.op : 0;
    result->pending_object[i] = live ? (double)t->pending.object : 0;
    result->pending_value[i] = live ? (double)(int64_t)t->pending.argument : 0;
    result->pending_pc[i] = live && t->pending.pc ? (uint32_t)(t->pending.pc - r->library_base) : 0;
    result->race_at[i] = live ? t->race_at : -1;
    result->race_after[i] = live ? t->race_after : -1;
  }
  result->thread_count = r->thread_count;
}

void execution_end(uint32_t outcome, uintptr_t pc) {
  struct runtime *r = weft_rt;
  struct thread *t = &r->threads[r->current];
  if (r->parked_outcome) {
    outcome = r->parked_outcome;
    pc = r->parked_pc;
  }
  if (t->unrecorded_write) finish_write_record(r, t);
  if (r->access_unwritten) access_log_complete(r);
  if ((outcome == WEFT_OUTCOME_RACE || outcome == WEFT_OUTCOME_ASSERTION) && r->flags & WEFT_RUN_LOG_ACCESSES) stack_describe();
  if (outcome == WEFT_OUTCOME_OK && r->flags & WEFT_RUN_REPORT_LEAKS && heap_report_leaks()) outcome = WEFT_OUTCOME_LEAK;
  collect_result(r, outcome, pc);
  r->in_execution = 0;
  r->access_mode = ACCESSES_IGNORED;
  fiber_switch(&t->stack_pointer, r->scheduler_stack_pointer);
  __builtin_unreachable();
}

/* Failures a thread meets in its own code (a race at its access, a crash or hang in the
 * harness's code: faults.c), where it can stop for good and the others go on; the rest end
 * the whole run. */
static int parkable(uint32_t outcome) {
  return outcome == WEFT_OUTCOME_ASSERTION || outcome == WEFT_OUTCOME_MEMORY || outcome == WEFT_OUTCOME_MISUSE ||
         outcome == WEFT_OUTCOME_EXIT || outcome == WEFT_OUTCOME_RACE || outcome == WEFT_OUTCOME_CRASH ||
         outcome == WEFT_OUTCOME_HANG;
}

/* WEFT_RUN_PARK_FAILING: the current thread stops here for good; the others go on (the
 * result describes the last failure, the outcome is the first's: such a run is explored,
 * never shown). */
static void park(struct runtime *r, uint32_t outcome, uintptr_t pc) {
  r->threads[r->current].state = THREAD_PARKED;
  if (!r->parked_outcome) {
    r->parked_outcome = outcome;
    r->parked_pc = pc;
  }
  stack_settle_pending(r);
  decide(r);
  __builtin_unreachable(); /* a parked thread is never chosen again */
}

void execution_failed(uint32_t outcome, uintptr_t pc) {
  struct runtime *r = weft_rt;
  if (r->flags & WEFT_RUN_PARK_FAILING && r->in_execution && parkable(outcome)) park(r, outcome, pc);
  execution_end(outcome, pc);
}

void execution_fail(uint32_t outcome, uintptr_t pc, const char *format, ...) {
  struct weft_result *result = &weft_rt->result;
  va_list args;
  va_start(args, format);
  vsnprintf(result->message, sizeof result->message, format, args);
  va_end(args);
  execution_failed(outcome, pc);
}

static void reset_result(struct weft_result *result) {
  result->steps = 0;
  result->outcome = WEFT_OUTCOME_OK;
  result->thread = -1;
  result->pc = 0;
  result->signal = 0;
  result->exit_status = 0;
  result->line = 0;
  result->fault_address = 0;
  result->message[0] = 0;
  result->file[0] = 0;
  result->race_address = 0;
  result->race_pc = 0;
  result->race_step = -1;
  memset(result->mixed_extent, 0, sizeof result->mixed_extent);
  result->block_address = 0;
  result->block_size = 0;
  result->alloc_pc = 0;
  result->free_pc = 0;
}

uint32_t sched_run(uint32_t test, const uint16_t *decisions, uint32_t length,
                   const struct weft_run_options *options) {
  struct runtime *r = weft_rt;
  snapshot_restore();
  shadow_reset();
  stack_reset();
  race_reset();
  extents_reset();
  heap_reset();
  output_reset();
  reset_result(&r->result);
  r->decisions = decisions;
  r->decision_count = length;
  r->max_steps = options->max_steps < r->trace.capacity ? options->max_steps : r->trace.capacity;
  r->mode = options->mode;
  r->flags = options->flags;
  r->nondet_domain = options->nondet_domain;
  r->nondet_count = options->nondet_count;
  r->visible = options->visible;
  r->visible_count = options->visible_count;
  if (options->asleep) memcpy(&r->asleep, options->asleep, sizeof r->asleep);
  else memset(&r->asleep, 0, sizeof r->asleep);
  r->asleep_any = !set_empty(&r->asleep, WEFT_THREAD_WORDS);
  r->asleep_from = options->asleep_from;
  r->plan_from = options->plan_from < length ? options->plan_from : length;
  /* splitmix64 of the seed: nearby seeds start far apart, and the state is never 0 */
  uint64_t seed = options->sample_seed + 0x9E3779B97F4A7C15ULL;
  seed = (seed ^ (seed >> 30)) * 0xBF58476D1CE4E5B9ULL;
  seed = (seed ^ (seed >> 27)) * 0x94D049BB133111EBULL;
  r->sample_state = (seed ^ (seed >> 31)) | 1;
  r->by_priority = options->priorities != NULL;
  if (r->by_priority) memcpy(r->priorities, options->priorities, sizeof r->priorities);
  r->priority_changes = options->priority_changes;
  r->priority_change_count = options->priority_changes ? options->priority_change_count : 0;
  r->next_priority_change = 0;
  r->atomic_depth = 0;
  keys_reset();
  clock_reset();
  r->step = 0;
  r->spin_waiters = 0;
  r->parked_outcome = 0;
  r->thread_count = 0;
  r->current = 0;
  r->test = test;
  r->faulted = 0;
  struct thread *main_thread = thread_spawn(NULL, NULL, 0);
  r->quiet_accesses = 0;
  r->access_count = 0;
  r->access_unwritten = 0;
  r->access_mode = options->mode == WEFT_MODE_SC ? ACCESSES_VISIBLE
                   : options->flags & WEFT_RUN_LOG_ACCESSES ? ACCESSES_LOGGED : ACCESSES_CHECKED;
  r->in_execution = 1;
  fiber_switch(&r->scheduler_stack_pointer, main_thread->stack_pointer);
  if (r->faulted) {
    /* the fault's handler never returned: its signal is still blocked on this thread */
    sigset_t faults;
    sigemptyset(&faults);
    sigaddset(&faults, r->result.signal);
    pthread_sigmask(SIG_UNBLOCK, &faults, NULL);
  }
  return r->result.outcome;
}
