/* Data-race detection for drf mode, with vector clocks. A lock's acquisition (a try or
 * timed one that succeeds) and a sem_wait acquire their object; an unlock and a sem_post
 * release it (race_on_acquired, race_on_released: the primitive calls them once it knows
 * the outcome); a failed attempt, a failed unlock and sem_getvalue order nothing (C11
 * 7.26.4, glibc). Condition variables, barriers and once acquire and release their object
 * at their steps; create and join order the threads they name. Atomics order as C11 says
 * (race_on_atomic): only release/acquire operations and fences synchronise; relaxed
 * ones order nothing, although exploration runs them sequentially consistent. Accesses to globals,
 * the heap and the stacks other threads may see (stack.c) are checked against the earlier
 * accesses of their 4-byte granule: two accesses of different threads to the same bytes,
 * one a write and not both atomic (C11 5.1.2.4), unordered by happens-before, are a race.
 * A granule keeps every earlier access a later one could race with: its last plain write
 * and a plain read in two slots (the common case: one reader at a time), the others in a
 * list. An access drops those it makes redundant: the ones ordered before it, on bytes it
 * covers, whose every race would be a race with it too. So whether an execution races does
 * not depend on the order of accesses that commute (partial-order reduction runs one). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"

#define SYNC_SLOTS 4096u /* a power of two */
/* earlier accesses kept beside the cells' slots at once, at most: an execution needing more
 * ends as weft's limit (each is a distinct thread's access, or on other bytes, unordered with the rest) */
#define EARLIER_ACCESSES (1u << 22)
#define EARLIER_WRITE 1u
#define EARLIER_ATOMIC 2u
#define FRAME_END 4u /* the access is a function's return, ending its frame (race_on_frame_end) */
#define THREAD_END 8u /* the access is a thread's end, ending its thread-local variables (race_on_thread_end) */

static void check_access(int write, uint32_t atomic, uintptr_t address, uint32_t size, uintptr_t pc);

/* The bytes of `granule` that [address, end) covers, one bit each. */
static inline uint8_t granule_bytes(uintptr_t granule, uintptr_t address, uintptr_t end) {
  uintptr_t from = granule > address ? granule : address;
  uintptr_t to = granule + SHADOW_GRANULE < end ? granule + SHADOW_GRANULE : end;
  return (uint8_t)(((1u << (to - from)) - 1) << (from - granule));
}

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
  memory = mmap(NULL, EARLIER_ACCESSES * sizeof(struct earlier_access), PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) {
    snprintf(error, error_size, "cannot map race detection memory: %s", strerror(errno));
    return -1;
  }
  r->earlier = memory;
  r->earlier_used = 1;
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
  r->earlier_used = 1; /* the cells' lists went with the shadow (shadow_reset) */
  r->earlier_free = 0;
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

static int drf_execution(const struct runtime *r) { return r && r->in_execution && r->mode == WEFT_MODE_DRF; }

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
    case WEFT_OP_ATOMIC_ADD_UNUSED:
    case WEFT_OP_ATOMIC_OR_UNUSED:
    case WEFT_OP_ATOMIC_AND_UNUSED:
    case WEFT_OP_ATOMIC_XOR_UNUSED:
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
    case WEFT_OP_COND_SIGNAL:
    case WEFT_OP_COND_BROADCAST:
    case WEFT_OP_BARRIER_ARRIVE:
    case WEFT_OP_BARRIER_LEAVE:
    case WEFT_OP_ONCE:
      synchronise(thread, pending->object);
      return;
    default:
      /* Locks and semaphores (ops.h's ACQUIRE and RELEASE accesses, sem_post): whether the
       * step took or gave up its object is known only once it ran (an attempt may fail, an
       * unlock return EPERM), so the primitive synchronises then. sem_getvalue and free
       * order nothing. */
      return;
  }
}

/* The current thread took a lock or a semaphore: it sees everything released on it before. */
void race_on_acquired(uintptr_t object) {
  struct runtime *r = weft_rt;
  if (!drf_execution(r)) return;
  join(&r->clocks[r->current], &sync_clock_of(object)->clock, r->thread_count);
}

/* The current thread gave a lock up, or posted a semaphore: whoever acquires it next sees
 * everything the thread did so far, and everything released on it before (joined, not
 * replaced: two readers' unlocks, or two posts, both happen before a later acquisition). */
void race_on_released(uintptr_t object) {
  struct runtime *r = weft_rt;
  if (!drf_execution(r)) return;
  uint32_t self = r->current;
  sync_join(sync_clock_of(object), &r->clocks[self], r->thread_count);
  r->clocks[self].at[self]++; /* its later accesses must not look ordered before the release */
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
void race_on_atomic(enum race_atomic_kind kind, uintptr_t object, uint32_t size, int mo, uintptr_t pc) {
  struct runtime *r = weft_rt;
  if (!drf_execution(r)) return;
  uint32_t self = r->current, n = r->thread_count;
  int order = memory_order_of(mo);
  struct sync_clock *location = sync_clock_of(object);
  if (kind != RACE_ATOMIC_STORE)
    join(acquires(order) ? &r->clocks[self] : &r->pending_acquire[self], &location->clock, n);
  /* checked with what it acquired, at the epoch it releases (publish moves the clock on) */
  if (races_checked_at(object)) check_access(kind != RACE_ATOMIC_LOAD, EARLIER_ATOMIC, object, size, pc);
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

/* `kind`, `earlier_kind`: the two accesses' EARLIER_* bits (the result's race_write and
 * race_earlier_write) */
static void report(uint32_t kind, uintptr_t address, uintptr_t pc, uint32_t earlier, uint32_t earlier_pc, uint32_t earlier_kind) {
  struct runtime *r = weft_rt;
  struct weft_result *result = &r->result;
  struct thread *t = &r->threads[r->current];
  int32_t after = step_of_epoch(r, earlier);
  /* WEFT_RUN_RACES_GO_ON: its thread goes on past the access, its first race noted; the
   * run's outcome is the first failure's */
  if (r->flags & WEFT_RUN_RACES_GO_ON && r->flags & WEFT_RUN_PARK_FAILING && r->in_execution && !(kind & (THREAD_END | FRAME_END))) {
    if (t->race_at < 0) {
      t->race_at = (int32_t)t->event;
      t->race_after = after;
    }
    if (!r->parked_outcome) {
      r->parked_outcome = WEFT_OUTCOME_RACE;
      r->parked_pc = pc;
    }
    return;
  }
  t->race_at = (int32_t)t->event;
  t->race_after = after;
  /* past a parked failure (WEFT_RUN_PARK_FAILING) the first one's race stays described */
  if (r->parked_outcome) execution_failed(WEFT_OUTCOME_RACE, pc);
  result->race_step = after;
  result->race_address = (double)address;
  result->race_thread = (int32_t)epoch_thread(earlier);
  result->race_pc = earlier_pc;
  result->race_write = kind;
  result->race_earlier_write = earlier_kind;
  heap_describe(address);
  if (kind & THREAD_END)
    execution_fail(WEFT_OUTCOME_RACE, pc,
                   "use after thread end: thread %u ends, and its thread-local %p thread %u's %s did not happen "
                   "before (in another order it comes after the end)",
                   r->current, (void *)address, epoch_thread(earlier), earlier_kind & EARLIER_WRITE ? "write" : "read");
  if (kind & FRAME_END)
    execution_fail(WEFT_OUTCOME_RACE, pc,
                   "use after return: thread %u returns from the function whose local %p thread %u's %s did not happen "
                   "before (in another order it comes after the return)",
                   r->current, (void *)address, epoch_thread(earlier), earlier_kind & EARLIER_WRITE ? "write" : "read");
  execution_fail(WEFT_OUTCOME_RACE, pc, "data race: thread %u %s %p, unordered with thread %u's %s",
                 r->current, kind & EARLIER_WRITE ? "writes" : "reads", (void *)address, epoch_thread(earlier),
                 earlier_kind & EARLIER_WRITE ? "write" : "read");
}

/* an earlier access of epoch `e` happened before the current one (its own thread's, or ordered) */
static int ordered_before(const struct vclock *mine, uint32_t self, uint32_t e) {
  return epoch_thread(e) == self || mine->at[epoch_thread(e)] >= epoch_clock(e);
}

/* an access by another thread, to some of the same bytes, that did not happen before */
static int unordered(const struct vclock *mine, uint32_t self, uint32_t last, uint8_t last_bytes, uint8_t bytes) {
  return last && (last_bytes & bytes) && !ordered_before(mine, self, last);
}

/* The first byte both accesses touched: a wide access (a free, a struct copy) races on the
 * field the other access touched, not on its own first byte. */
static uintptr_t overlap(uintptr_t granule, uint8_t last_bytes, uint8_t bytes) {
  return granule + (uintptr_t)__builtin_ctz((unsigned)(last_bytes & bytes));
}

/* Reports a race of an access of `kind` (EARLIER_* bits) with the plain accesses in the cell's
 * slots: an atomic access conflicts with them as a plain one does. */
static inline void check_slots(const struct vclock *mine, uint32_t self, const struct shadow_cell *cell, uint32_t kind,
                               uintptr_t granule, uint8_t bytes, uintptr_t pc) {
  if (unordered(mine, self, cell->write_epoch, cell->write_bytes, bytes))
    report(kind, overlap(granule, cell->write_bytes, bytes), pc, cell->write_epoch, cell->write_pc, EARLIER_WRITE);
  if ((kind & EARLIER_WRITE) && unordered(mine, self, cell->read_epoch, cell->read_bytes, bytes))
    report(kind, overlap(granule, cell->read_bytes, bytes), pc, cell->read_epoch, cell->read_pc, 0);
}

/* A plain write makes the slot's read redundant when that read is ordered before it, on bytes
 * it covers: kept, it would keep later readers off the slot. */
static inline void drop_ordered_read(const struct vclock *mine, uint32_t self, struct shadow_cell *cell, uint8_t bytes) {
  if (cell->read_epoch && !(cell->read_bytes & ~bytes) && ordered_before(mine, self, cell->read_epoch)) cell->read_epoch = 0;
}

/* A plain access takes the slot of its kind. */
static inline void take_slot(struct shadow_cell *cell, int write, uint32_t now, uint32_t offset, uint8_t bytes) {
  if (write) {
    cell->write_epoch = now;
    cell->write_pc = offset;
    cell->write_bytes = bytes;
  } else {
    cell->read_epoch = now;
    cell->read_pc = offset;
    cell->read_bytes = bytes;
  }
}

/* Whether an access of `kind` (EARLIER_* bits) makes an earlier one of `earlier` ordered
 * before it, on bytes it covers, redundant: every access that would race with the earlier
 * one (not ordered after it) is not ordered after this one either, and conflicts with it. */
static int supersedes(uint32_t kind, uint32_t earlier) {
  if (kind == EARLIER_WRITE) return 1;                               /* a plain write conflicts with all */
  if (kind == 0) return !(earlier & EARLIER_WRITE);                  /* a plain read: with every write */
  if (kind & EARLIER_WRITE) return (earlier & EARLIER_ATOMIC) != 0;  /* an atomic write: with plain accesses */
  return earlier == EARLIER_ATOMIC;                                  /* an atomic read: with plain writes */
}

static uint32_t earlier_entry(struct runtime *r, uintptr_t pc) {
  uint32_t entry = r->earlier_free;
  if (entry) {
    r->earlier_free = r->earlier[entry].next;
    return entry;
  }
  if (WEFT_UNLIKELY(r->earlier_used == EARLIER_ACCESSES))
    execution_fail(WEFT_OUTCOME_LIMIT, pc, "more than %u accesses unordered with each other to remember at once: race "
                   "detection's limit", EARLIER_ACCESSES - 1);
  return r->earlier_used++;
}

static void keep_earlier(struct runtime *r, struct shadow_cell *cell, uint32_t epoch, uint32_t pc, uint8_t bytes, uint32_t kind, uintptr_t at) {
  uint32_t entry = earlier_entry(r, at);
  r->earlier[entry] = (struct earlier_access){epoch, pc, cell->more, bytes, (uint8_t)kind};
  cell->more = entry;
}

/* Out of line: a granule with more than a write and a read to remember, an atomic access, or
 * a slot the access cannot simply take over. Checks the access against every earlier access
 * it conflicts with, drops those it makes redundant, and keeps it. */
__attribute__((noinline)) static void check_kept(struct runtime *r, struct shadow_cell *cell, int write, uint32_t atomic,
                                                 uintptr_t granule, uint8_t bytes, uintptr_t pc) {
  uint32_t self = r->current;
  const struct vclock *mine = &r->clocks[self];
  uint32_t kind = (write ? EARLIER_WRITE : 0) | atomic;
  check_slots(mine, self, cell, kind, granule, bytes, pc);
  for (uint32_t at = cell->more; at; at = r->earlier[at].next) {
    const struct earlier_access *e = &r->earlier[at];
    int conflicts = (write || (e->kind & EARLIER_WRITE)) && !(atomic && (e->kind & EARLIER_ATOMIC));
    if (conflicts && unordered(mine, self, e->epoch, e->bytes, bytes)) report(kind, overlap(granule, e->bytes, bytes), pc, e->epoch, e->pc, e->kind);
  }
  for (uint32_t *link = &cell->more; *link;) {
    struct earlier_access *e = &r->earlier[*link];
    if (supersedes(kind, e->kind) && !(e->bytes & ~bytes) && ordered_before(mine, self, e->epoch)) {
      uint32_t dropped = *link;
      *link = e->next;
      e->next = r->earlier_free;
      r->earlier_free = dropped;
    } else {
      link = &e->next;
    }
  }
  if (kind == EARLIER_WRITE) drop_ordered_read(mine, self, cell, bytes);
  uint32_t now = epoch(self, mine->at[self]);
  uint32_t offset = (uint32_t)(pc - r->library_base);
  if (atomic) {
    keep_earlier(r, cell, now, offset, bytes, kind, pc);
    return;
  }
  /* the slot's access goes to the list unless this one makes it redundant */
  uint32_t last = write ? cell->write_epoch : cell->read_epoch;
  uint8_t last_bytes = write ? cell->write_bytes : cell->read_bytes;
  if (last == now) bytes |= last_bytes;
  else if (last && ((last_bytes & ~bytes) || !ordered_before(mine, self, last)))
    keep_earlier(r, cell, last, write ? cell->write_pc : cell->read_pc, last_bytes, write ? EARLIER_WRITE : 0, pc);
  take_slot(cell, write, now, offset, bytes);
}

/* A plain access: most granules have a write and one reader at a time, kept in the slots;
 * the rest takes check_kept. */
static void check_cell(struct runtime *r, struct shadow_cell *cell, int write, uintptr_t granule, uint8_t bytes,
                       uintptr_t pc) {
  uint32_t self = r->current;
  const struct vclock *mine = &r->clocks[self];
  uint32_t now = epoch(self, mine->at[self]);
  uint32_t last = write ? cell->write_epoch : cell->read_epoch;
  uint8_t last_bytes = write ? cell->write_bytes : cell->read_bytes;
  /* the slot's access is this thread's of the same epoch (one access to all those bytes: a
   * loop over bytes between two steps), or is ordered before this one on bytes it covers */
  if (last == now) bytes |= last_bytes;
  int takes_slot = last == now || !last || (!(last_bytes & ~bytes) && ordered_before(mine, self, last));
  if (WEFT_UNLIKELY(cell->more || !takes_slot)) {
    check_kept(r, cell, write, 0, granule, bytes, pc);
    return;
  }
  check_slots(mine, self, cell, write ? EARLIER_WRITE : 0, granule, bytes, pc);
  if (write) drop_ordered_read(mine, self, cell, bytes);
  take_slot(cell, write, now, (uint32_t)(pc - r->library_base), bytes);
}

/* Each granule of an access: a plain one (`atomic` 0) or an atomic one (EARLIER_ATOMIC). */
static void check_access(int write, uint32_t atomic, uintptr_t address, uint32_t size, uintptr_t pc) {
  struct runtime *r = weft_rt;
  uintptr_t end = address + (size ? size : 1);
  for (uintptr_t granule = address & ~(uintptr_t)(SHADOW_GRANULE - 1); granule < end; granule += SHADOW_GRANULE) {
    struct shadow_cell *cell = shadow_cell_of(granule);
    if (!cell) return; /* memory outside the harness is not checked */
    uint8_t bytes = granule_bytes(granule, address, end);
    if (atomic) check_kept(r, cell, write, atomic, granule, bytes, pc);
    else check_cell(r, cell, write, granule, bytes, pc);
  }
}

void race_check(int write, uintptr_t address, uint32_t size, uintptr_t pc) { check_access(write, 0, address, size, pc); }

/* Memory [address, address + size) the current thread owns stops being there (`ending`: what
 * ends it, FRAME_END or THREAD_END). Another thread's access to it that did not happen before
 * may, in another order, come after: reported as a race with the end, as a free's with its
 * block. Nothing is kept: what lies there next is the thread's own, or nobody's. */
static void race_on_end(uintptr_t address, uint32_t size, uint32_t ending, uintptr_t pc) {
  struct runtime *r = weft_rt;
  uint32_t self = r->current;
  const struct vclock *mine = &r->clocks[self];
  uint32_t kind = EARLIER_WRITE | ending;
  uintptr_t end = address + size;
  for (uintptr_t granule = address & ~(uintptr_t)(SHADOW_GRANULE - 1); granule < end; granule += SHADOW_GRANULE) {
    const struct shadow_cell *cell = shadow_cell_of(granule);
    if (!cell) return;
    uint8_t bytes = granule_bytes(granule, address, end);
    check_slots(mine, self, cell, kind, granule, bytes, pc);
    for (uint32_t at = cell->more; at; at = r->earlier[at].next) {
      const struct earlier_access *e = &r->earlier[at];
      if (unordered(mine, self, e->epoch, e->bytes, bytes)) report(kind, overlap(granule, e->bytes, bytes), pc, e->epoch, e->pc, e->kind);
    }
  }
}

/* A function's frame ends (stack.c: stack_frame_end). */
void race_on_frame_end(uintptr_t address, uint32_t size, uintptr_t pc) { race_on_end(address, size, FRAME_END, pc); }

/* A thread ends, and its thread-local block with it (tls.c: tls_thread_end). */
void race_on_thread_end(uintptr_t address, uint32_t size, uintptr_t pc) { race_on_end(address, size, THREAD_END, pc); }
