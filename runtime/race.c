/* Data-race detection for drf mode, with vector clocks. Every synchronising step
 * (locks, condition variables, semaphores, barriers, …) acquires and releases its
 * object; create and join order the threads they name. Atomics order as C11 says
 * (race_on_atomic): only release/acquire operations and fences synchronise; relaxed
 * ones order nothing, although exploration runs them sequentially consistent. Plain accesses to globals,
 * the heap and the stacks other threads may see (stack.c) are checked against the last
 * write and the last read of their 4-byte granule: two accesses of different threads, one
 * a write, unordered by happens-before, are a race. Keeping one read per granule can miss
 * a race with an older read; it never reports a race that is not there. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"

#define SYNC_SLOTS 4096u /* a power of two */

/* An epoch is a thread's clock above its id. A thread's own clock grows by at most 3 per
 * step (the step itself, and two synchronisations of a condition wait, or one and a
 * release), so a bounded execution cannot overflow the clock bits; release fences are no
 * steps, and race_on_fence stops a thread that runs so many that it could. */
#define EPOCH_THREAD_BITS 8
#define EPOCH_CLOCK_LIMIT (1u << (32 - EPOCH_THREAD_BITS))
_Static_assert(WEFT_MAX_THREADS <= 1u << EPOCH_THREAD_BITS, "a thread id fits an epoch");
_Static_assert(3ull * WEFT_TRACE_CAPACITY < EPOCH_CLOCK_LIMIT / 2, "steps cannot overflow an epoch's clock");
static inline uint32_t epoch(uint32_t thread, uint32_t clock) { return clock << EPOCH_THREAD_BITS | thread; }
static inline uint32_t epoch_thread(uint32_t e) { return e & ((1u << EPOCH_THREAD_BITS) - 1); }
static inline uint32_t epoch_clock(uint32_t e) { return e >> EPOCH_THREAD_BITS; }

int race_open(char *error, uint32_t error_size) {
  struct runtime *r = weft_rt;
  void *memory = mmap(NULL, SYNC_SLOTS * sizeof(struct sync_clock), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) {
    snprintf(error, error_size, "cannot map race detection memory: %s", strerror(errno));
    return -1;
  }
  r->sync_clocks = memory;
  return 0;
}

/* Clocks are only as wide as the execution's threads: an execution with n threads writes
 * the first n entries of the first n clocks and no others, so these are all that the next
 * one clears. Sync clocks are cleared when their slot is taken, up to their width. */
static void clear(struct vclock *clock, uint32_t n) { memset(clock->at, 0, n * sizeof clock->at[0]); }

static void copy(struct vclock *into, const struct vclock *from, uint32_t n) {
  memcpy(into->at, from->at, n * sizeof into->at[0]);
}

static void join(struct vclock *into, const struct vclock *from, uint32_t n) {
  for (uint32_t t = 0; t < n; t++)
    if (from->at[t] > into->at[t]) into->at[t] = from->at[t];
}

static void sync_clear(struct sync_clock *s) {
  clear(&s->clock, s->width);
  s->width = 0;
  s->release_head = 0;
}

static void sync_copy(struct sync_clock *s, const struct vclock *from, uint32_t n) {
  copy(&s->clock, from, n);
  s->width = n;
}

static void sync_join(struct sync_clock *s, const struct vclock *from, uint32_t n) {
  join(&s->clock, from, n);
  s->width = n;
}

void race_reset(void) {
  struct runtime *r = weft_rt;
  uint32_t n = r->thread_count; /* the last execution's */
  for (uint32_t t = 0; t < n; t++) {
    clear(&r->clocks[t], n);
    clear(&r->fence_release[t], n);
    clear(&r->pending_acquire[t], n);
  }
  r->clocks[0].at[0] = 1; /* epochs start at 1: 0 means "no access" */
  sync_clear(&r->sync_overflow);
  r->sync_generation++;
}

static struct sync_clock *sync_clock_of(uintptr_t object) {
  struct runtime *r = weft_rt;
  uint32_t slot = (uint32_t)((object >> 3) * 2654435761u) & (SYNC_SLOTS - 1);
  for (uint32_t probe = 0; probe < SYNC_SLOTS; probe++, slot = (slot + 1) & (SYNC_SLOTS - 1)) {
    struct sync_clock *s = &r->sync_clocks[slot];
    if (s->generation != r->sync_generation) {
      s->generation = r->sync_generation;
      s->object = object;
      sync_clear(s);
      return s;
    }
    if (s->object == object) return s;
  }
  return &r->sync_overflow; /* table full: such objects share one clock (orders more, never less) */
}

/* acquire then release: the thread sees everything released on the object before, and
 * everything it did so far is released to whoever acquires it next */
static void synchronise(uint32_t thread, uintptr_t object) {
  struct runtime *r = weft_rt;
  struct sync_clock *s = sync_clock_of(object);
  struct vclock *mine = &r->clocks[thread];
  join(mine, &s->clock, r->thread_count);
  sync_copy(s, mine, r->thread_count);
  mine->at[thread]++;
}

/* out of line: race_on_step, called at every step, stays a few instructions for the many
 * steps that order nothing */
__attribute__((noinline)) static void join_thread(uint32_t thread, uint32_t joined) {
  struct runtime *r = weft_rt;
  join(&r->clocks[thread], &r->clocks[joined], r->thread_count);
}

void race_on_step(uint32_t thread, const struct pending *pending) {
  switch (pending->op) {
    case WEFT_OP_THREAD_START:
    case WEFT_OP_THREAD_EXIT:
    case WEFT_OP_THREAD_CREATE: /* see race_on_create */
    case WEFT_OP_YIELD:
    case WEFT_OP_CHOOSE:
    case WEFT_OP_PLAIN_READ:
    case WEFT_OP_PLAIN_WRITE:
    case WEFT_OP_ATOMIC_LOAD: /* see race_on_atomic: it knows the memory order */
    case WEFT_OP_ATOMIC_STORE:
    case WEFT_OP_ATOMIC_RMW:
    case WEFT_OP_ATOMIC_CAS:
    case WEFT_OP_ATOMIC_CAS_FAIL:
    case WEFT_OP_RANDOM: /* libc's state, which orders nothing another thread did */
    case WEFT_OP_CLOCK:
      return;
    case WEFT_OP_THREAD_JOIN:
      join_thread(thread, (uint32_t)pending->object);
      return;
    case WEFT_OP_COND_WAIT:
    case WEFT_OP_COND_WAKE:
      synchronise(thread, pending->argument >> 2 << 2); /* the mutex */
      synchronise(thread, pending->object);
      return;
    default:
      synchronise(thread, pending->object);
  }
}

/* the child's fence_release and pending_acquire are still all 0 (race_reset) */
void race_on_create(uint32_t parent, uint32_t child) {
  struct runtime *r = weft_rt;
  copy(&r->clocks[child], &r->clocks[parent], r->thread_count);
  r->clocks[child].at[child] = 1;
  r->clocks[parent].at[parent]++;
}

static int acquires(int order) { return order != WEFT_ORDER_RELAXED && order != WEFT_ORDER_RELEASE; } /* consume as acquire */
static int releases(int order) { return order >= WEFT_ORDER_RELEASE; }

/* the thread's clock is published: its later accesses must not look ordered before it */
static void publish(struct vclock *into, uint32_t thread) {
  struct vclock *mine = &weft_rt->clocks[thread];
  copy(into, mine, weft_rt->thread_count);
  mine->at[thread]++;
}

static int drf_execution(const struct runtime *r) { return r && r->in_execution && r->mode == WEFT_MODE_DRF; }

/* A once routine has returned: what it did is released on the once control, which every
 * later call acquires at its step (a caller that came while it ran waits until now). */
void race_on_once_done(uint32_t thread, uintptr_t control) {
  if (drf_execution(weft_rt)) synchronise(thread, control);
}

/* An atomic location's clock is what its release sequence publishes (C11 5.1.2.4): a
 * release store heads a new sequence; a relaxed store continues its own thread's
 * sequence or ends another's (and after a release fence publishes the fence's clock,
 * heading a sequence as if it released); a read-modify-write continues the sequence,
 * adding its own clock when it releases. An acquire load or RMW joins the location's
 * clock; a relaxed one keeps it pending until an acquire fence. */
void race_on_atomic(enum race_atomic_kind kind, uintptr_t object, int mo) {
  struct runtime *r = weft_rt;
  if (!drf_execution(r)) return;
  uint32_t self = r->current, n = r->thread_count;
  int order = memory_order_of(mo);
  struct sync_clock *location = sync_clock_of(object);
  if (kind != RACE_ATOMIC_STORE)
    join(acquires(order) ? &r->clocks[self] : &r->pending_acquire[self], &location->clock, n);
  if (kind == RACE_ATOMIC_LOAD) return;
  struct vclock released;
  if (releases(order)) publish(&released, self);
  else copy(&released, &r->fence_release[self], n);
  if (kind == RACE_ATOMIC_RMW) {
    sync_join(location, &released, n);
    return;
  }
  if (location->release_head == self + 1 && !releases(order)) sync_join(location, &released, n);
  else sync_copy(location, &released, n);
  location->release_head = self + 1;
}

/* A release fence makes the thread's later relaxed stores publish its clock as of the
 * fence; an acquire fence joins what its earlier relaxed loads read; seq_cst does both. */
void race_on_fence(int mo) {
  struct runtime *r = weft_rt;
  if (!drf_execution(r)) return;
  uint32_t self = r->current;
  int order = memory_order_of(mo);
  if (acquires(order)) join(&r->clocks[self], &r->pending_acquire[self], r->thread_count);
  if (releases(order)) {
    if (WEFT_UNLIKELY(r->clocks[self].at[self] >= EPOCH_CLOCK_LIMIT / 2))
      execution_fail(WEFT_OUTCOME_LIMIT, 0, "thread %u runs more than %u release fences: race detection's clocks "
                     "would overflow", self, EPOCH_CLOCK_LIMIT / 2 - 3 * WEFT_TRACE_CAPACITY);
    publish(&r->fence_release[self], self);
  }
}

int race_visible(uintptr_t address) {
  const struct runtime *r = weft_rt;
  uintptr_t granule = address & ~(uintptr_t)(SHADOW_GRANULE - 1);
  for (uint32_t i = 0; i < r->visible_count; i++)
    if (((uintptr_t)r->visible[i] & ~(uintptr_t)(SHADOW_GRANULE - 1)) == granule) return 1;
  return 0;
}

/* The step after which an access of epoch `e` ran: its thread's last step that started an
 * epoch not above it (every step starts one: scheduler.c), or -1. */
static int32_t step_of_epoch(const struct runtime *r, uint32_t e) {
  for (uint32_t step = r->step; step-- > 0;)
    if (r->trace.thread[step] == epoch_thread(e) && r->step_clock[step] <= epoch_clock(e)) return (int32_t)step;
  return -1;
}

static void report(int write, uintptr_t address, uintptr_t pc, uint32_t earlier, uint32_t earlier_pc, int earlier_write) {
  struct runtime *r = weft_rt;
  struct weft_result *result = &r->result;
  int32_t after = step_of_epoch(r, earlier);
  r->threads[r->current].race_after = after;
  /* past a parked failure (WEFT_RUN_PARK_FAILING) the first one's race stays described */
  if (r->parked_outcome) execution_failed(WEFT_OUTCOME_RACE, pc);
  result->race_step = after;
  result->race_address = (double)address;
  result->race_thread = (int32_t)epoch_thread(earlier);
  result->race_pc = earlier_pc;
  result->race_write = (uint32_t)write;
  result->race_earlier_write = (uint32_t)earlier_write;
  heap_describe(address);
  execution_fail(WEFT_OUTCOME_RACE, pc, "data race: thread %u %s %p, unordered with thread %u's %s",
                 r->current, write ? "writes" : "reads", (void *)address, epoch_thread(earlier),
                 earlier_write ? "write" : "read");
}

/* an access by another thread, to some of the same bytes, that did not happen before */
static int unordered(const struct vclock *mine, uint32_t self, uint32_t last, uint8_t last_bytes, uint8_t bytes) {
  return last && epoch_thread(last) != self && (last_bytes & bytes) && mine->at[epoch_thread(last)] < epoch_clock(last);
}

/* The first byte both accesses touched: a wide access (a free, a struct copy) races on the
 * field the other access touched, not on its own first byte. */
static uintptr_t overlap(uintptr_t granule, uint8_t last_bytes, uint8_t bytes) {
  return granule + (uintptr_t)__builtin_ctz((unsigned)(last_bytes & bytes));
}

static void check_cell(struct runtime *r, struct shadow_cell *cell, int write, uintptr_t granule, uint8_t bytes,
                       uintptr_t pc) {
  uint32_t self = r->current;
  const struct vclock *mine = &r->clocks[self];
  if (unordered(mine, self, cell->write_epoch, cell->write_bytes, bytes))
    report(write, overlap(granule, cell->write_bytes, bytes), pc, cell->write_epoch, cell->write_pc, 1);
  uint32_t now = epoch(self, mine->at[self]);
  uint32_t offset = (uint32_t)(pc - r->library_base);
  if (write) {
    if (unordered(mine, self, cell->read_epoch, cell->read_bytes, bytes))
      report(write, overlap(granule, cell->read_bytes, bytes), pc, cell->read_epoch, cell->read_pc, 0);
    cell->write_epoch = now;
    cell->write_pc = offset;
    cell->write_bytes = bytes;
  } else {
    cell->read_epoch = now;
    cell->read_pc = offset;
    cell->read_bytes = bytes;
  }
}

void race_check(int write, uintptr_t address, uint32_t size, uintptr_t pc) {
  struct runtime *r = weft_rt;
  uintptr_t end = address + (size ? size : 1);
  for (uintptr_t granule = address & ~(uintptr_t)(SHADOW_GRANULE - 1); granule < end; granule += SHADOW_GRANULE) {
    struct shadow_cell *cell = shadow_cell_of(granule);
    if (!cell) return; /* memory outside the harness is not checked */
    uintptr_t from = granule > address ? granule : address;
    uintptr_t to = granule + SHADOW_GRANULE < end ? granule + SHADOW_GRANULE : end;
    uint8_t bytes = (uint8_t)(((1u << (to - from)) - 1) << (from - granule));
    check_cell(r, cell, write, granule, bytes, pc);
  }
}
