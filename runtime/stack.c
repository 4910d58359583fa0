/* Thread stacks that other threads see. A thread's own stack is private — its accesses
 * are neither race-checked nor scheduling points (memory.c) — until its address may
 * have reached another thread: passed to pthread_create, written to memory outside its
 * stack by a plain store, an atomic or a copy, or touched by another thread. From then
 * on its accesses are checked like globals and the heap (drf) or are steps (sc).
 *
 * Why that misses no race: another thread reaches the stack only through its address,
 * which the owner handed over after its private accesses. A handover by thread creation,
 * a lock or a release orders them before the other thread's accesses; a handover by a
 * plain store is itself a race with the other thread's load, unless something orders
 * them. Only a handover by relaxed atomics without fences, or of an address disguised
 * (xor-ed, say), leaves them unordered and unseen; another thread's touch then still makes
 * the stack shared from there on (shadow.c), for the accesses that follow.
 *
 * A plain store's value is in memory only after the hook that announced it: it is read
 * later (stack_settle), before the thread touches its stack again and before any other
 * thread runs (only a scheduling point switches threads). */
#include <string.h>
#include <unwind.h>

#include "runtime.h"

void stack_reset(void) {
  struct runtime *r = weft_rt;
  r->unsettled_store = 0;
  r->unsettled_size = 0;
  r->result.stack_frame_count = 0;
}

/* The thread whose stack holds the address, or -1 (also in a guard region: no object there). */
int32_t stack_owner(const struct runtime *r, uintptr_t address) {
  uintptr_t offset = address - (uintptr_t)r->stacks;
  if (offset >= (uintptr_t)WEFT_MAX_THREADS * r->stack_slot_size) return -1;
  if (offset % r->stack_slot_size < r->stack_guard_size) return -1;
  return (int32_t)(offset / r->stack_slot_size);
}

/* The lowest address of a switched-out thread's live frames: the stack pointer of the code
 * that called into the runtime at its pending step. Its frame is the one whose return
 * address is that step's pc, found along the frame pointers from the saved fiber_switch
 * frame (the runtime keeps them, -fno-omit-frame-pointer); below it lie only the runtime's
 * own frames, over the frames of functions that have returned. 0 when no such frame is
 * found (the pc is not a return address there): nothing is judged then. */
static uintptr_t live_frames_low(const struct runtime *r, uint32_t thread) {
#if !defined(FIBER_SAVED_FRAME_POINTER)
  (void)r, (void)thread;
  return 0;
#else
  const struct thread *t = &r->threads[thread];
  uintptr_t low = stack_slot(r, thread) + WEFT_STACK_GUARD_SIZE;
  if ((uintptr_t)t->stack_pointer - low >= WEFT_STACK_SIZE) return 0;
  uintptr_t frame = ((const uintptr_t *)t->stack_pointer)[FIBER_SAVED_FRAME_POINTER];
  for (int depth = 0; depth < 256 && frame - low < WEFT_STACK_SIZE - 2 * sizeof(uintptr_t); depth++) {
    const uintptr_t *record = (const uintptr_t *)frame; /* the caller's frame pointer, then the return address */
    if (record[1] == t->pending.pc) return frame + 2 * sizeof(uintptr_t);
    if (record[0] <= frame) return 0;
    frame = record[0];
  }
  return 0;
#endif
}

/* An access by the running thread to another thread's stack: outside that thread's live
 * frames it reaches a local of a function that has returned (what lies there now is the
 * runtime's frames, or nothing), or of a thread that has ended. Checked once the access's
 * scheduling point is behind it: the owner may return in between. */
void stack_check_live(uintptr_t address, uint32_t size, int write, uintptr_t pc) {
  const struct runtime *r = weft_rt;
  int32_t owner = stack_owner(r, address);
  if (owner < 0 || (uint32_t)owner == r->current) return;
  const char *access = write ? "write" : "read";
  uint8_t state = r->threads[owner].state;
  if (state == THREAD_FINISHED)
    execution_fail(WEFT_OUTCOME_MEMORY, pc, "use after return: %u-byte %s at %p, in the stack of thread %d, which has ended", size,
                   access, (void *)address, owner);
  if (state != THREAD_RUNNABLE) return;
  uintptr_t live = live_frames_low(r, (uint32_t)owner);
  if (live && address < live)
    execution_fail(WEFT_OUTCOME_MEMORY, pc,
                   "use after return: %u-byte %s at %p, in thread %d's stack below its live frames (a local of a function that has returned)",
                   size, access, (void *)address, owner);
}

/* A harness function returns (__tsan_func_exit, whose frame pointer is `hook_frame`): its
 * frame runs from its stack pointer at that call to its CFA, one frame record up (the harness
 * keeps frame pointers). An access another thread made there that did not happen before the
 * return is a use after return in another order (race.c: race_on_frame_end), found so in
 * every order, not only where the access comes after (stack_check_live). drf mode only: sc
 * mode has no happens-before. The return of main or of the test body ends the process. */
__attribute__((noinline)) void stack_frame_end(const uintptr_t *hook_frame, uintptr_t pc) {
  const struct runtime *r = weft_rt;
  if (!r->in_execution || !detecting_races(r)) return;
  uintptr_t low = (uintptr_t)(hook_frame + 2);
  const uintptr_t *record = (const uintptr_t *)hook_frame[0];
  uintptr_t high = (uintptr_t)(record + 2);
  uintptr_t stack = stack_slot(r, r->current) + WEFT_STACK_GUARD_SIZE;
  if (low - stack >= WEFT_STACK_SIZE || high <= low || high - stack > WEFT_STACK_SIZE) return;
  if (r->current == 0 && record[0] == r->main_caller_frame) return;
  race_on_frame_end(low, (uint32_t)(high - low), pc);
}

/* Words that may be addresses, handed to other threads: the stacks they point into are shared. */
void stack_note_words(const void *bytes, size_t size) {
  struct runtime *r = weft_rt;
  for (size_t at = 0; at + sizeof(uintptr_t) <= size; at += sizeof(uintptr_t)) {
    uintptr_t word;
    memcpy(&word, (const char *)bytes + at, sizeof word);
    int32_t owner = stack_owner(r, word);
    if (owner >= 0) stack_share(r, owner);
  }
}

/* The current thread, its stack still private, is about to store a word or more outside
 * it: the stored bytes are looked at before it touches its stack again, before a
 * scheduling point, or before its next such store. */
void stack_note_store(struct runtime *r, uintptr_t address, uint32_t size) {
  stack_settle_pending(r);
  r->unsettled_store = address;
  r->unsettled_size = size;
  r->stack_states[r->current] |= STACK_UNSETTLED;
  stack_refresh(r);
}

void stack_settle(struct runtime *r) {
  stack_note_words((const void *)r->unsettled_store, r->unsettled_size);
  r->unsettled_size = 0;
  r->stack_states[r->current] &= (uint8_t)~STACK_UNSETTLED;
  stack_refresh(r);
}

/* Naming a local in a counterexample needs the frames of the stack that holds it: libgcc's
 * unwinder walks them, from the thread itself or, for a suspended thread, from a
 * trampoline whose unwind information describes the thread's saved fiber_switch frame. */
struct frame_walk {
  struct runtime *r;
  uint32_t thread;
  uintptr_t pc; /* the last frame seen: its code address, */
  int seen;     /* once there is one */
};

/* libgcc's context for a frame holds the CFA of the frame it called: a frame's own CFA is
 * in its caller's context. Frames outside the harness library (libgcc's) are left out. */
static _Unwind_Reason_Code note_frame(struct _Unwind_Context *context, void *argument) {
  struct frame_walk *walk = argument;
  struct runtime *r = walk->r;
  struct weft_result *result = &r->result;
  if (walk->seen && walk->pc - r->text_start < r->text_end - r->text_start) {
    if (result->stack_frame_count == WEFT_STACK_FRAMES) return _URC_END_OF_STACK;
    result->stack_frame_thread[result->stack_frame_count] = walk->thread;
    result->stack_frame_pc[result->stack_frame_count] = (uint32_t)(walk->pc - r->library_base);
    result->stack_frame_cfa[result->stack_frame_count++] = (double)_Unwind_GetCFA(context);
  }
  walk->pc = _Unwind_GetIP(context);
  walk->seen = 1;
  return _URC_NO_REASON;
}

static void walk_frames(void *walk) { _Unwind_Backtrace(note_frame, walk); }

#if defined(__x86_64__)
/* rdi = a suspended fiber's saved stack pointer, rsi = a function, rdx = its argument: calls
 * it below that stack pointer, its caller described as the fiber's fiber_switch frame
 * (fiber.c: control words, r15 r14 r13 r12 rbx rbp, return address; CFA 64 bytes up). */
__asm__(".text\n"
        ".globl stack_run_on\n"
        ".hidden stack_run_on\n"
        ".type stack_run_on,@function\n"
        "stack_run_on:\n"
        "  .cfi_startproc\n"
        "  pushq %r12\n"
        "  .cfi_adjust_cfa_offset 8\n"
        "  .cfi_rel_offset %r12, 0\n"
        "  pushq %r13\n"
        "  .cfi_adjust_cfa_offset 8\n"
        "  .cfi_rel_offset %r13, 0\n"
        "  pushq %rbx\n"
        "  .cfi_adjust_cfa_offset 8\n"
        "  .cfi_rel_offset %rbx, 0\n"
        "  movq %rdi, %r12\n"
        "  movq %rsp, %r13\n"
        "  .cfi_remember_state\n"
        "  .cfi_def_cfa %r12, 64\n"
        "  .cfi_offset %rbp, -16\n"
        "  .cfi_offset %rbx, -24\n"
        "  .cfi_offset %r12, -32\n"
        "  .cfi_offset %r13, -40\n"
        "  .cfi_offset %r14, -48\n"
        "  .cfi_offset %r15, -56\n"
        "  leaq -256(%rdi), %rsp\n" /* past any red zone */
        "  andq $-16, %rsp\n"
        "  movq %rdx, %rdi\n"
        "  call *%rsi\n"
        "  movq %r13, %rsp\n"
        "  .cfi_restore_state\n"
        "  popq %rbx\n"
        "  .cfi_adjust_cfa_offset -8\n"
        "  .cfi_restore %rbx\n"
        "  popq %r13\n"
        "  .cfi_adjust_cfa_offset -8\n"
        "  .cfi_restore %r13\n"
        "  popq %r12\n"
        "  .cfi_adjust_cfa_offset -8\n"
        "  .cfi_restore %r12\n"
        "  ret\n"
        "  .cfi_endproc\n"
        ".size stack_run_on, .-stack_run_on\n");
WEFT_HIDDEN void stack_run_on(void *stack_pointer, void (*function)(void *), void *argument);
#endif

/* The frames of every stack other threads may see, for the report to name their locals. */
void stack_describe(void) {
  struct runtime *r = weft_rt;
  for (uint32_t t = 0; t < r->thread_count; t++) {
    if (!(r->stack_states[t] & STACK_SHARED)) continue;
    struct frame_walk walk = {.r = r, .thread = t};
    if (t == r->current) walk_frames(&walk);
#if defined(__x86_64__)
    else stack_run_on(r->threads[t].stack_pointer, walk_frames, &walk);
#endif
  }
}
