/* Fibers: every harness thread runs on its own stack on the one OS thread that calls
 * run(). Switching saves only the callee-saved registers (the switch is an ordinary
 * call, so the compiler already spilled the rest): a few nanoseconds, no system call. */
#include <stdint.h>

#include "runtime.h"

#if defined(__x86_64__)
/* rdi = where to save the current stack pointer, rsi = stack pointer to resume. The
 * frame holds rbp rbx r12-r15, then mxcsr and the x87 control word (callee-saved too). */
__asm__(".text\n"
        ".globl fiber_switch\n"
        ".hidden fiber_switch\n"
        ".type fiber_switch,@function\n"
        "fiber_switch:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  subq $8, %rsp\n"
        "  stmxcsr (%rsp)\n"
        "  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n"
        "  fldcw 4(%rsp)\n"
        "  addq $8, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size fiber_switch, .-fiber_switch\n"
        /* A new fiber 'returns' here with its thread in rbx. */
        ".globl weft_fiber_entry_asm\n"
        ".hidden weft_fiber_entry_asm\n"
        ".type weft_fiber_entry_asm,@function\n"
        "weft_fiber_entry_asm:\n"
        "  movq %rbx, %rdi\n"
        "  andq $-16, %rsp\n"
        "  call fiber_main\n"
        "  ud2\n"
        ".size weft_fiber_entry_asm, .-weft_fiber_entry_asm\n"
        /* rdi = a stack's top (16-byte aligned), rsi = a function that never returns, rdx = its
         * argument: calls it there. The frames it leaves behind are never walked: the unwinder
         * stops at it (return address undefined), the frame-pointer walk (stack.c:
         * live_frames_low) at the null frame pointer. */
        ".globl fiber_continue_on\n"
        ".hidden fiber_continue_on\n"
        ".type fiber_continue_on,@function\n"
        "fiber_continue_on:\n"
        "  .cfi_startproc\n"
        "  .cfi_undefined rip\n"
        "  movq %rdi, %rsp\n"
        "  xorl %ebp, %ebp\n"
        "  movq %rdx, %rdi\n"
        "  call *%rsi\n"
        "  ud2\n"
        "  .cfi_endproc\n"
        ".size fiber_continue_on, .-fiber_continue_on\n");

void weft_fiber_entry_asm(void);

void *fiber_prepare(char *stack_top, struct thread *thread) {
  uint64_t *sp = (uint64_t *)((uintptr_t)stack_top & ~(uintptr_t)15);
  *--sp = 0;                                  /* keeps the entry's stack 16-byte aligned */
  *--sp = (uint64_t)(uintptr_t)weft_fiber_entry_asm; /* return address */
  *--sp = 0;                                  /* rbp */
  *--sp = (uint64_t)(uintptr_t)thread;        /* rbx */
  *--sp = 0;                                  /* r12 */
  *--sp = 0;                                  /* r13 */
  *--sp = 0;                                  /* r14 */
  *--sp = 0;                                  /* r15 */
  uint32_t control[2];
  __asm__ volatile("stmxcsr %0" : "=m"(control[0]));
  __asm__ volatile("fnstcw %0" : "=m"(control[1]));
  *--sp = (uint64_t)control[0] | ((uint64_t)(control[1] & 0xffff) << 32);
  return sp;
}

#elif defined(__aarch64__)
/* x0 = where to save sp, x1 = sp to resume. Saves x19-x30 and d8-d15. */
__asm__(".text\n"
        ".globl fiber_switch\n"
        ".hidden fiber_switch\n"
        ".type fiber_switch,%function\n"
        "fiber_switch:\n"
        "  sub sp, sp, #160\n"
        "  stp x19, x20, [sp, #0]\n"
        "  stp x21, x22, [sp, #16]\n"
        "  stp x23, x24, [sp, #32]\n"
        "  stp x25, x26, [sp, #48]\n"
        "  stp x27, x28, [sp, #64]\n"
        "  stp x29, x30, [sp, #80]\n"
        "  stp d8, d9, [sp, #96]\n"
        "  stp d10, d11, [sp, #112]\n"
        "  stp d12, d13, [sp, #128]\n"
        "  stp d14, d15, [sp, #144]\n"
        "  mov x2, sp\n"
        "  str x2, [x0]\n"
        "  mov sp, x1\n"
        "  ldp x19, x20, [sp, #0]\n"
        "  ldp x21, x22, [sp, #16]\n"
        "  ldp x23, x24, [sp, #32]\n"
        "  ldp x25, x26, [sp, #48]\n"
        "  ldp x27, x28, [sp, #64]\n"
        "  ldp x29, x30, [sp, #80]\n"
        "  ldp d8, d9, [sp, #96]\n"
        "  ldp d10, d11, [sp, #112]\n"
        "  ldp d12, d13, [sp, #128]\n"
        "  ldp d14, d15, [sp, #144]\n"
        "  add sp, sp, #160\n"
        "  ret\n"
        ".size fiber_switch, .-fiber_switch\n"
        ".globl weft_fiber_entry_asm\n"
        ".hidden weft_fiber_entry_asm\n"
        ".type weft_fiber_entry_asm,%function\n"
        "weft_fiber_entry_asm:\n"
        "  mov x0, x19\n"
        "  bl fiber_main\n"
        "  brk #0\n"
        ".size weft_fiber_entry_asm, .-weft_fiber_entry_asm\n");

void weft_fiber_entry_asm(void);

void *fiber_prepare(char *stack_top, struct thread *thread) {
  uint64_t *sp = (uint64_t *)((uintptr_t)stack_top & ~(uintptr_t)15);
  sp -= 20; /* the 160-byte frame */
  for (int i = 0; i < 20; i++) sp[i] = 0;
  sp[0] = (uint64_t)(uintptr_t)thread;               /* x19 */
  sp[11] = (uint64_t)(uintptr_t)weft_fiber_entry_asm; /* x30 */
  return sp;
}

#else
#error "weft fibers support x86-64 and aarch64"
#endif
