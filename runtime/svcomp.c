/* The SV-COMP conventions many public benchmark programs use: reach_error() and
 * __VERIFIER_error() fail, __VERIFIER_assume() prunes, __VERIFIER_nondet_*() are choice
 * points over the configured domain, and __VERIFIER_atomic_begin/end (or a function
 * named __VERIFIER_atomic_*) run without interruption. Weak: a program may define
 * reach_error itself; reaching a call of it is still the error (the build instruments
 * function entries of such a program, seen below). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runtime.h"

#define SVCOMP __attribute__((weak, visibility("hidden")))

SVCOMP void reach_error(void) { execution_fail(WEFT_OUTCOME_ASSERTION, WEFT_CALLER_PC(), "reach_error() called"); }
SVCOMP void __VERIFIER_error(void) { execution_fail(WEFT_OUTCOME_ASSERTION, WEFT_CALLER_PC(), "__VERIFIER_error() called"); }

/* abort() in a program written for SV-COMP says "this execution does not count" */
WEFT_HIDDEN void weft_svcomp_abort(void) { execution_end(WEFT_OUTCOME_PRUNED, WEFT_CALLER_PC()); }

SVCOMP void __VERIFIER_assume(int condition) {
  if (!condition && weft_rt && weft_rt->in_execution) execution_end(WEFT_OUTCOME_PRUNED, WEFT_CALLER_PC());
}

SVCOMP void __VERIFIER_atomic_begin(void) {
  if (weft_rt) weft_rt->atomic_depth++;
}

SVCOMP void __VERIFIER_atomic_end(void) {
  if (weft_rt && weft_rt->atomic_depth) weft_rt->atomic_depth--;
}

static int64_t nondet(uintptr_t pc) {
  const struct runtime *r = weft_rt;
  if (!r || r->nondet_count == 0) return 0;
  return (int64_t)r->nondet_domain[sched_choose(r->nondet_count, pc)];
}

#define NONDET(name, type) \
  SVCOMP type __VERIFIER_nondet_##name(void) { return (type)nondet(WEFT_CALLER_PC()); }

NONDET(int, int)
NONDET(uint, unsigned int)
NONDET(unsigned_int, unsigned int)
NONDET(long, long)
NONDET(ulong, unsigned long)
NONDET(longlong, long long)
NONDET(ulonglong, unsigned long long)
NONDET(short, short)
NONDET(ushort, unsigned short)
NONDET(char, char)
NONDET(uchar, unsigned char)
NONDET(bool, bool)
NONDET(_Bool, _Bool)
NONDET(size_t, size_t)
NONDET(pointer, void *)
NONDET(u32, uint32_t)
NONDET(u16, uint16_t)
NONDET(u8, uint8_t)

/* Functions named __VERIFIER_atomic_*: the build compiles programs that have them with
 * -finstrument-functions and exports their names, so entry and exit can be seen here. */
static int is_atomic_function(void *function) {
  Dl_info info;
  return dladdr(function, &info) && info.dli_sname && strncmp(info.dli_sname, "__VERIFIER_atomic_", 18) == 0 &&
         info.dli_saddr == function;
}

SVCOMP void __cyg_profile_func_enter(void *function, void *call_site) {
  /* the program's own definitions, if any, replaced the weak ones above */
  if (function == (void *)reach_error && weft_rt && weft_rt->in_execution)
    execution_fail(WEFT_OUTCOME_ASSERTION, (uintptr_t)call_site, "reach_error() called");
  if (function == (void *)__VERIFIER_error && weft_rt && weft_rt->in_execution)
    execution_fail(WEFT_OUTCOME_ASSERTION, (uintptr_t)call_site, "__VERIFIER_error() called");
  if (is_atomic_function(function)) __VERIFIER_atomic_begin();
}

SVCOMP void __cyg_profile_func_exit(void *function, void *call_site) {
  (void)call_site;
  if (is_atomic_function(function)) __VERIFIER_atomic_end();
}
