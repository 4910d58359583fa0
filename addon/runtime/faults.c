/* Faults in harness code (SIGSEGV, SIGBUS, SIGFPE, SIGILL, stack overflow) end the
 * execution, never the process. The binding owns the process-wide handlers and calls
 * faults_handle() on the thread that runs an execution; it runs on the alternate
 * signal stack and leaves by switching to the binding's context, like siglongjmp. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#include "runtime.h"

static uintptr_t faulting_pc(void *context) {
  const ucontext_t *uc = context;
#if defined(__x86_64__)
  return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  return (uintptr_t)uc->uc_mcontext.pc;
#endif
}

/* The guard page below each fiber stack, or any address within a page of it. */
static int in_guard_page(const struct runtime *r, uintptr_t address) {
  uintptr_t slot = (uintptr_t)r->stacks + (uintptr_t)r->current * r->stack_slot_size;
  return address + 4096 >= slot && address < slot + 2 * 4096;
}

int faults_handle(int signal, siginfo_t *info, void *context) {
  struct runtime *r = weft_rt;
  if (!r || !r->in_execution) return 0;
  uintptr_t pc = faulting_pc(context);
  uintptr_t address = (uintptr_t)info->si_addr;
  struct weft_result *result = &r->result;
  result->signal = signal;
  result->fault_address = (double)address;
  if (pc < r->library_base) pc = 0; /* outside the harness: no source location */
  if (signal == SIGSEGV && in_guard_page(r, address))
    snprintf(result->message, sizeof result->message, "stack overflow in thread %u", r->current);
  else if (signal == SIGSEGV || signal == SIGBUS)
    snprintf(result->message, sizeof result->message, "%s: invalid memory access at %p",
             signal == SIGSEGV ? "SIGSEGV" : "SIGBUS", info->si_addr);
  else
    snprintf(result->message, sizeof result->message, "%s", strsignal(signal));
  r->faulted = 1;
  execution_end(WEFT_OUTCOME_CRASH, pc);
}
