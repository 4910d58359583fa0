/* Faults in harness code (SIGSEGV, SIGBUS, SIGFPE, SIGILL, stack overflow) end the
 * execution, never the process. The binding owns the process-wide handlers and calls
 * faults_handle() on the thread that runs an execution; it runs on the alternate
 * signal stack and leaves by switching to the binding's context, like siglongjmp.
 * The binding's watchdog ends a thread that runs too long without a scheduling point
 * (faults_hang) the same way. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#include "runtime.h"

static uintptr_t interrupted_pc(const void *context) {
  const ucontext_t *uc = context;
#if defined(__x86_64__)
  return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  return (uintptr_t)uc->uc_mcontext.pc;
#endif
}

static uintptr_t interrupted_sp(const void *context) {
  const ucontext_t *uc = context;
#if defined(__x86_64__)
  return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
  return (uintptr_t)uc->uc_mcontext.sp;
#endif
}

/* The running thread overflowed its stack: its stack pointer went below the stack, or
 * the fault is in its guard region or as far again below it (a frame that is larger
 * than the guard, in code built without stack-clash probes). */
static int stack_overflow(const struct runtime *r, uintptr_t address, uintptr_t sp) {
  uintptr_t slot = stack_slot(r, r->current);
  uintptr_t bottom = slot + r->stack_guard_size;
  if (sp < bottom) return 1;
  return address < bottom && address + r->stack_guard_size >= slot;
}

static void leave_execution(struct runtime *r, int signal) {
  r->result.signal = signal;
  r->faulted = 1; /* the handler never returns: sched_run unblocks the signal */
}

/* WEFT_RUN_PARK_FAILING: the faulting thread stops in the handler for good and the others go
 * on, so its signal is unblocked now, for their faults. */
static void park_in_handler(const struct runtime *r, int signal) {
  if (!(r->flags & WEFT_RUN_PARK_FAILING)) return;
  sigset_t handled;
  sigemptyset(&handled);
  sigaddset(&handled, signal);
  pthread_sigmask(SIG_UNBLOCK, &handled, NULL);
}

/* the harness's own code: a fault in libc may leave a lock held that other threads need */
static int in_harness_code(const struct runtime *r, uintptr_t pc) {
  return pc - r->text_start < r->text_end - r->text_start;
}

int faults_handle(int signal, siginfo_t *info, void *context) {
  struct runtime *r = weft_rt;
  if (!r || !r->in_execution) return 0;
  uintptr_t pc = interrupted_pc(context);
  uintptr_t address = (uintptr_t)info->si_addr;
  struct weft_result *result = &r->result;
  result->fault_address = (double)address;
  if (pc < r->library_base) pc = 0; /* outside the harness: no source location */
  if ((signal == SIGSEGV || signal == SIGBUS) && stack_overflow(r, address, interrupted_sp(context)))
    snprintf(result->message, sizeof result->message, "stack overflow in thread %u", r->current);
  else if (signal == SIGSEGV || signal == SIGBUS)
    snprintf(result->message, sizeof result->message, "%s: invalid memory access at %p",
             signal == SIGSEGV ? "SIGSEGV" : "SIGBUS", info->si_addr);
  else
    snprintf(result->message, sizeof result->message, "%s", strsignal(signal));
  leave_execution(r, signal);
  if (!in_harness_code(r, pc)) execution_end(WEFT_OUTCOME_CRASH, pc);
  park_in_handler(r, signal);
  execution_failed(WEFT_OUTCOME_CRASH, pc);
}

int faults_hang(int signal, void *context, uint32_t timeout_ms) {
  struct runtime *r = weft_rt;
  if (!r || !r->in_execution) return 0;
  uintptr_t pc = interrupted_pc(context);
  /* only in the harness's own code: libc may hold a lock that the next execution needs */
  if (!in_harness_code(r, pc)) return 0;
  leave_execution(r, signal);
  park_in_handler(r, signal);
  execution_fail(WEFT_OUTCOME_HANG, pc, "T%u ran for more than %u ms without reaching a scheduling point: a loop with no shared access?",
                 r->current, timeout_ms);
}
