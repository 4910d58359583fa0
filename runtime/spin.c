/* Spin detection: the one definition of "spinning" (a graph engine can take a spinning
 * thread as blocked on the locations it read). A thread spins when a read comes back to
 * where it was: the same read (code address, location, value) as at an earlier
 * repetition, with the thread's whole state equal — its callee-saved registers and stack
 * bytes at that call (everything a C function keeps across a call) and its thread-local
 * block — every read in between a repetition of the one before it at its place (a failed
 * CAS, an exchange or RMW that left the value as it was, a re-read), no effect of its own
 * in between (a write, output, time, randomness, a choice, any step but a read or a yield)
 * and every location read in between still holding the value read. Its next iteration
 * then reads the same values and comes back to the same state, and so every iteration
 * until another thread writes one of those locations: those iterations change nothing, so
 * the thread waits (left out of the enabled set, spin_waiting) until such a write, and is
 * never chosen over a thread that can make progress. When no thread is left to run, the
 * spin never ends: a livelock, reported at once (scheduler.c). A loop that counts what
 * it reads changes its counters and is no spin. When unsure (no unwind information, a
 * stack too deep to copy, more read places than remembered) it is no spin either: the step
 * bound then ends a loop that never gets anywhere. A write ends the spins that read what it
 * overlaps, and only those (spin_wake): a store, a read-modify-write that changed the value,
 * a plain write, a free, a create's thread handle, a join's result. Locks, semaphores,
 * barriers and condition variables keep their state where no spin reads it, and output,
 * time or allocation change nothing another thread reads: a spin woken only when what it
 * reads may have changed turns once per write (the graph engine relies on it: its next
 * read reads a later write). The step that ended a turn back to where it was is marked in
 * the trace (WEFT_ASIDE_TURN), and WEFT_ASIDE_SPIN when its thread then waits. */
#include <string.h>
#include <sys/mman.h>
#include <unwind.h>

#include "runtime.h"

/* a thread's state is copied at up to SPIN_READS reads, plus one scratch copy; deeper
 * stacks are not compared */
#define SPIN_STATE_BYTES ((size_t)64 << 10)
#define SPIN_SLOTS (SPIN_READS + 1)

#if defined(__x86_64__)
static const int callee_saved[SPIN_REGISTERS] = {3, 6, 12, 13, 14, 15}; /* rbx rbp r12-r15 (DWARF numbers) */
#elif defined(__aarch64__)
static const int callee_saved[SPIN_REGISTERS] = {19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, /* x19-x29 */
                                                 72, 73, 74, 75, 76, 77, 78, 79};        /* d8-d15 */
#endif

struct caller_search {
  uintptr_t pc; /* the return address into the harness */
  uint32_t depth;
  struct spin_state *state;
  int found;
};

/* The harness frame that called the hook: its registers as at the call, and its stack
 * pointer there (libgcc's context for a frame holds the CFA of the frame it called). */
static _Unwind_Reason_Code find_caller(struct _Unwind_Context *context, void *argument) {
  struct caller_search *search = argument;
  if (_Unwind_GetIP(context) == search->pc) {
    search->state->stack_pointer = _Unwind_GetCFA(context);
    for (uint32_t i = 0; i < SPIN_REGISTERS; i++)
      search->state->registers[i] = (uint64_t)_Unwind_GetGR(context, callee_saved[i]);
    search->found = 1;
    return _URC_END_OF_STACK;
  }
  return ++search->depth > 8 ? _URC_END_OF_STACK : _URC_NO_REASON;
}

static char *state_bytes(const struct runtime *r, uint32_t thread, uint32_t slot) {
  return r->spin_states + ((size_t)thread * SPIN_SLOTS + slot) * SPIN_STATE_BYTES;
}

/* Captures the current thread's state at the read at `pc` into anchor `slot`; 0 when it
 * cannot (the anchor then holds no state). */
static int capture(struct runtime *r, struct thread *t, uint32_t slot, uintptr_t pc) {
  struct spin_anchor *anchor = &t->spin_anchors[slot];
  anchor->length = 0;
  if (!r->spin_states) {
    void *memory = mmap(NULL, WEFT_MAX_THREADS * SPIN_SLOTS * SPIN_STATE_BYTES, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED) return 0;
    r->spin_states = memory;
  }
  struct caller_search search = {.pc = pc, .state = &anchor->state};
  _Unwind_Backtrace(find_caller, &search);
  if (!search.found) return 0;
  uintptr_t stack_top = fiber_stack_top(r, r->current);
  size_t stack_size = stack_top - anchor->state.stack_pointer;
  size_t tls_size = r->tls.blocks ? r->tls.block_size : 0;
  if (anchor->state.stack_pointer >= stack_top || stack_size + tls_size > SPIN_STATE_BYTES) return 0;
  char *bytes = state_bytes(r, r->current, slot);
  memcpy(bytes, (const void *)anchor->state.stack_pointer, stack_size);
  if (tls_size) memcpy(bytes + stack_size, r->tls.blocks + (size_t)r->current * tls_size, tls_size);
  anchor->length = (uint32_t)(stack_size + tls_size);
  return 1;
}

static int same_state(const struct runtime *r, const struct spin_anchor *earlier, uint32_t earlier_slot,
                      const struct spin_anchor *now, uint32_t now_slot) {
  return earlier->length && earlier->length == now->length &&
         earlier->state.stack_pointer == now->state.stack_pointer &&
         !memcmp(earlier->state.registers, now->state.registers, sizeof now->state.registers) &&
         !memcmp(state_bytes(r, r->current, earlier_slot), state_bytes(r, r->current, now_slot), now->length);
}

/* The location can be read now: the harness's data, the heap arena, a thread stack. */
static int readable(const struct runtime *r, uintptr_t start, uint8_t size) {
  uintptr_t end = start + size, stacks = (uintptr_t)r->stacks;
  return (start - r->data_start < r->data_end - r->data_start && end <= r->data_end) ||
         (heap_contains(r, start) && heap_contains(r, end - 1)) ||
         (start - stacks < (uintptr_t)WEFT_MAX_THREADS * r->stack_slot_size &&
          end - stacks <= (uintptr_t)WEFT_MAX_THREADS * r->stack_slot_size);
}

/* The locations read since `since` (the earlier repetition), each still holding the value
 * read there, become the thread's watch list; 0 when one does not. */
static int watch_reads_since(struct runtime *r, struct thread *t, uint32_t since) {
  uint32_t remembered = t->spin_count < SPIN_READS ? t->spin_count : SPIN_READS, watched = 0;
  for (uint32_t slot = 0; slot < remembered; slot++) {
    const struct spin_anchor *anchor = &t->spin_anchors[slot];
    if (anchor->seen < since) continue;
    uint64_t now = 0;
    if (anchor->size > sizeof now || !readable(r, anchor->object, anchor->size)) return 0;
    memcpy(&now, (const void *)anchor->object, anchor->size);
    if (memcmp(&now, &anchor->value, anchor->size) != 0) return 0;
    t->spin_watch_size[watched] = anchor->size;
    t->spin_watch[watched++] = anchor->object;
  }
  t->spin_watch_count = watched;
  return watched > 0;
}

/* The thread spins: it waits, unmarked (the iterations it skips would repeat its state
 * and change nothing: every order of them was offered already). */
static void spin_wait(struct runtime *r, struct thread *t) {
  t->spin_waiting = 1;
  r->spin_waiters++;
  r->trace.aside[t->event] |= WEFT_ASIDE_SPIN;
}

static void end_wait(struct runtime *r, struct thread *t) {
  t->spin_waiting = 0;
  r->spin_waiters--;
  t->spin_count = 0; /* its next iterations must show the spin anew */
}

void spin_effect(struct runtime *r, struct thread *t) {
  t->effects++;
  if (WEFT_UNLIKELY(t->spin_waiting)) end_wait(r, t);
}

/* A write to [start, start + size) ends the spins that read what it overlaps. */
void spin_wake(struct runtime *r, uintptr_t start, uintptr_t size) {
  for (uint32_t i = 0; i < r->thread_count && r->spin_waiters; i++) {
    struct thread *t = &r->threads[i];
    if (!t->spin_waiting) continue;
    for (uint32_t w = 0; w < t->spin_watch_count; w++)
      if (t->spin_watch[w] < start + size && start < t->spin_watch[w] + t->spin_watch_size[w]) {
        end_wait(r, t);
        break;
      }
  }
}

/* The step the scheduler just gave `thread`: anything but a read or a yield is its own
 * effect (what it observes there is not a read spin detection can compare); a plain write
 * or a free ends the spins of others that read what it writes (an atomic store: once it
 * stored, spin_note_store; an RMW or CAS: sched_note_rmw). */
void spin_note_step(struct runtime *r, uint32_t thread, const struct pending *pending) {
  uint8_t op = pending->op;
  uint8_t can = op_can[op];
  if (can == WEFT_ACCESS_READ || can == WEFT_ACCESS_NONE) {
    if (op != WEFT_OP_YIELD && op != WEFT_OP_ATOMIC_LOAD && op != WEFT_OP_PLAIN_READ) spin_effect(r, &r->threads[thread]);
    return;
  }
  if (op_flags[op] & WEFT_OPF_NOTES_WRITE) return;
  spin_effect(r, &r->threads[thread]);
  if (r->spin_waiters && (op == WEFT_OP_PLAIN_WRITE || op == WEFT_OP_FREE)) spin_wake(r, pending->object, (uintptr_t)pending->argument);
}

/* A write the runtime made for the harness (an atomic store, a create's handle, a join's result). */
void spin_note_store(uintptr_t address, uintptr_t size) {
  struct runtime *r = weft_rt;
  if (r && r->in_execution && r->spin_waiters) spin_wake(r, address, size);
}

/* Each remembered read keeps the state of its last repetition: a read seen once is only
 * noted; at its next repetition the state is captured; at the one after, compared. */
void sched_note_read(uintptr_t object, uint64_t value, uint8_t size, uintptr_t pc) {
  struct runtime *r = weft_rt;
  if (WEFT_UNLIKELY(!r || !r->in_execution)) return;
  struct thread *t = &r->threads[r->current];
  if (t->spin_epoch != t->effects) {
    t->spin_epoch = t->effects;
    t->spin_count = 0;
    t->spin_reads = 0;
    t->spin_changed = 0;
  }
  uint32_t read = ++t->spin_reads;
  uint32_t remembered = t->spin_count < SPIN_READS ? t->spin_count : SPIN_READS;
  for (uint32_t slot = 0; slot < remembered; slot++) {
    struct spin_anchor *anchor = &t->spin_anchors[slot];
    if (anchor->pc != pc) continue;
    if (anchor->object != object || anchor->value != value || anchor->size != size) {
      *anchor = (struct spin_anchor){.pc = pc, .object = object, .value = value, .size = size, .seen = read};
      t->spin_changed = read;
      return;
    }
    anchor->seen = read;
    /* the scratch slot SPIN_READS holds the state now, compared with the anchor's */
    struct spin_anchor *now = &t->spin_anchors[SPIN_READS];
    if (!capture(r, t, SPIN_READS, pc)) return;
    if (t->spin_changed < anchor->captured && same_state(r, anchor, slot, now, SPIN_READS)) {
      r->trace.aside[t->event] |= WEFT_ASIDE_TURN;
      if (watch_reads_since(r, t, anchor->captured)) {
        spin_wait(r, t);
        return;
      }
    }
    anchor->state = now->state;
    anchor->length = now->length;
    anchor->captured = read;
    memcpy(state_bytes(r, r->current, slot), state_bytes(r, r->current, SPIN_READS), now->length);
    return;
  }
  t->spin_changed = read;
  t->spin_anchors[t->spin_count++ % SPIN_READS] =
      (struct spin_anchor){.pc = pc, .object = object, .value = value, .size = size, .seen = read};
}

/* An atomic read-modify-write that left the value as it was only read it; one that
 * changed it is its thread's effect, and ends the spins that read it. */
void sched_note_rmw(uintptr_t object, uint64_t old_value, uint64_t new_value, uint8_t size, uintptr_t pc) {
  struct runtime *r = weft_rt;
  if (WEFT_UNLIKELY(!r || !r->in_execution)) return;
  if (old_value == new_value) {
    sched_note_read(object, old_value, size, pc);
    return;
  }
  spin_effect(r, &r->threads[r->current]);
  if (r->spin_waiters) spin_wake(r, object, size);
}
