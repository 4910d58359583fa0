/* Spin detection. A thread that re-reads a value that has not changed gives way like a
 * yield (scheduler.c: it is left out of the enabled set at its next step while another
 * thread can run, so switching away from it is no preemption), so that busy-wait loops
 * terminate. That drops the executions in which it takes that next step: sound only
 * when they are executions it already had. So the runtime asks for proof that the loop
 * came back to where it was: the same read (code address, location, value) as before,
 * and the thread's whole state equal — its callee-saved registers and stack bytes at
 * that call (everything a C function keeps across a call) and its thread-local block —
 * with no effect anywhere in between (r->effect_epoch: no write by anyone, no other
 * thread ran, no output, time or randomness read). The whole program is then in the
 * state it was in at the earlier read, where every continuation was explored already.
 * A loop that only counts what it reads changes its counters and is no spin. When
 * unsure (no unwind information, a stack too deep to copy) it is no spin either: the
 * step bound then ends a loop that never gets anywhere as a livelock. */
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
  uintptr_t stack_top = (uintptr_t)r->stacks + (uintptr_t)(r->current + 1) * r->stack_slot_size;
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

/* Each remembered read keeps the state of its last repetition: a read seen once is only
 * noted; at its next repetition the state is captured; at the one after, compared. */
void sched_note_read(uintptr_t object, uint64_t value, uintptr_t pc) {
  struct runtime *r = weft_rt;
  if (WEFT_UNLIKELY(!r || !r->in_execution)) return;
  struct thread *t = &r->threads[r->current];
  if (t->spin_epoch != r->effect_epoch) {
    t->spin_epoch = r->effect_epoch;
    t->spin_count = 0;
  }
  uint32_t remembered = t->spin_count < SPIN_READS ? t->spin_count : SPIN_READS;
  for (uint32_t slot = 0; slot < remembered; slot++) {
    struct spin_anchor *anchor = &t->spin_anchors[slot];
    if (anchor->pc != pc) continue;
    if (anchor->object != object || anchor->value != value) {
      *anchor = (struct spin_anchor){.pc = pc, .object = object, .value = value};
      return;
    }
    /* the scratch slot SPIN_READS holds the state now, compared with the anchor's */
    struct spin_anchor *now = &t->spin_anchors[SPIN_READS];
    if (!capture(r, t, SPIN_READS, pc)) return;
    if (same_state(r, anchor, slot, now, SPIN_READS)) {
      sched_step_aside(t);
      return;
    }
    anchor->state = now->state;
    anchor->length = now->length;
    memcpy(state_bytes(r, r->current, slot), state_bytes(r, r->current, SPIN_READS), now->length);
    return;
  }
  t->spin_anchors[t->spin_count++ % SPIN_READS] = (struct spin_anchor){.pc = pc, .object = object, .value = value};
}

/* An atomic read-modify-write that left the value as it was only read it. */
void sched_note_rmw(uintptr_t object, uint64_t old_value, uint64_t new_value, uintptr_t pc) {
  struct runtime *r = weft_rt;
  if (WEFT_UNLIKELY(!r || !r->in_execution)) return;
  if (old_value == new_value) sched_note_read(object, old_value, pc);
  else r->effect_epoch++;
}
