/* Prints src/addon/op-table.ts from runtime/ops.h: the explorer's view of what
 * every operation means comes from the same X-macro table the runtime compiles, through
 * the C preprocessor, never from a hand-kept copy. Run by scripts/generate-op-table.mjs. */
#include <stdio.h>

#include "../runtime/abi.h"
#include "../runtime/ops.h"

#define QUOTE(x) #x

int main(void) {
  printf("// Generated from runtime/ops.h by scripts/generate-op-table.mjs: do not edit.\n");
  printf("// What each operation means; src/addon/ops.ts gives it names and helpers.\n\n");

  printf("/** threads one harness may run (abi.h) */\nexport const MAX_THREADS = %d;\n\n", WEFT_MAX_THREADS);
  printf("/** the object a create's thread numbering is keyed as (ops.h: WEFT_OPF_NUMBERS_THREAD) */\nexport const THREAD_NUMBERING = %u;\n\n", WEFT_THREAD_NUMBERING);
  printf("/** steps one execution may take at most (abi.h) */\nexport const TRACE_CAPACITY = %u;\n\n", WEFT_TRACE_CAPACITY);
  printf("/** the harness library's section listing the calls whose result nothing uses (abi.h) */\nexport const UNUSED_RESULTS_SECTION = \"%s\";\n\n", WEFT_UNUSED_RESULTS_SECTION);
  printf("/** the harness library's section listing the functions from which no call reaches a thread create (abi.h) */\nexport const QUIET_FUNCTIONS_SECTION = \"%s\";\n\n", WEFT_QUIET_FUNCTIONS_SECTION);
  printf("/** a logged access's step when it ran before the execution's first step (abi.h) */\nexport const BEFORE_ANY_STEP = %u;\n\n", WEFT_BEFORE_ANY_STEP);

  printf("export const Op = {\n");
#define OP_NUMBER(name, text, access, can, object, flags, enabled) printf("  %s: %d,\n", QUOTE(name), WEFT_OP_##name);
  WEFT_OPS(OP_NUMBER)
  printf("} as const;\n\n");

  printf("export const Access = {\n");
#define ACCESS_NUMBER(name, commutes) printf("  %s: %d,\n", QUOTE(name), WEFT_ACCESS_##name);
  WEFT_ACCESSES(ACCESS_NUMBER)
  printf("} as const;\n\n");

  printf("/** per access: whether two of its kind to one object commute (ops.h) */\nexport const accessCommutes: readonly boolean[] = [\n");
#define ACCESS_COMMUTES(name, commutes) printf("  %s,\n", (commutes) ? "true" : "false");
  WEFT_ACCESSES(ACCESS_COMMUTES)
  printf("];\n\n");

  printf("export const ObjectKind = {\n");
#define OBJECT_NUMBER(name) printf("  %s: %d,\n", QUOTE(name), WEFT_OBJECT_##name);
  WEFT_OBJECTS(OBJECT_NUMBER)
  printf("} as const;\n\n");

  printf("export const OpFlag = {\n");
#define FLAG(name) printf("  %s: %u,\n", QUOTE(name), WEFT_OPF_##name);
  FLAG(WAITS) FLAG(STARTS_THREAD) FLAG(ENDS_THREAD) FLAG(VALUE) FLAG(DECISION) FLAG(RELEASES_ARGUMENT)
  FLAG(ACQUIRES_ARGUMENT) FLAG(NOTES_WRITE) FLAG(LOCK) FLAG(UNLOCK) FLAG(SHARED) FLAG(NUMBERS_THREAD)
  printf("} as const;\n\n");

  printf("/** per op: [text, access, can, object kind, flags] */\n");
  printf("export const opColumns: readonly (readonly [string, number, number, number, number])[] = [\n");
#define OP_ROW(name, text, access, can, object, flags, enabled) \
  printf("  [%s, %d, %d, %d, %u],\n", QUOTE(text), WEFT_ACCESS_##access, WEFT_ACCESS_##can, WEFT_OBJECT_##object, (unsigned)(flags));
  WEFT_OPS(OP_ROW)
  printf("];\n\n");

  printf("/** trace.aside bits (abi.h) */\nexport const Aside = {\n  DURING: %d,\n  AFTER: %d,\n  SPIN: %d,\n  TURN: %d,\n} as const;\n\n", WEFT_ASIDE_DURING, WEFT_ASIDE_AFTER, WEFT_ASIDE_SPIN, WEFT_ASIDE_TURN);

  printf("/** an atomic step's memory order (trace.order), by number */\nexport const memoryOrderNames: readonly string[] = [\n");
#define ORDER_TEXT(name, text) printf("  %s,\n", QUOTE(text));
  WEFT_MEMORY_ORDERS(ORDER_TEXT)
  printf("];\n\nexport const MemoryOrder = {\n");
#define ORDER_NUMBER(name, text) printf("  %s: %d,\n", QUOTE(name), WEFT_ORDER_##name);
  WEFT_MEMORY_ORDERS(ORDER_NUMBER)
  printf("} as const;\n\n");

  printf("/** an atomic read-modify-write's function (trace.rmw), by number: \"\" for none */\nexport const rmwFunctionNames: readonly string[] = [\n");
#define RMW_TEXT(name, text) printf("  %s,\n", QUOTE(text));
  WEFT_RMW_FUNCTIONS(RMW_TEXT)
  printf("];\n\n");
  printf("/** an atomic read-modify-write's function (trace.rmw) */\nexport const RmwFunction = {\n");
#define RMW_NUMBER(name, text) printf("  %s: %d,\n", QUOTE(name), WEFT_RMW_##name);
  WEFT_RMW_FUNCTIONS(RMW_NUMBER)
  printf("} as const;\n\n");

  printf("/** a thread's state at the end of an execution (abi.h) */\nexport const ThreadState = {\n");
  {
    int number = 0;
#define THREAD_STATE_NUMBER(name) printf("  %s: %d,\n", QUOTE(name), number++);
    WEFT_THREAD_STATES(THREAD_STATE_NUMBER)
  }
  printf("} as const;\n\n");

  printf("export const Outcome = {\n");
#define OUTCOME_NUMBER(name, text) printf("  %s: %d,\n", QUOTE(name), WEFT_OUTCOME_##name);
  WEFT_OUTCOMES(OUTCOME_NUMBER)
  printf("} as const;\n\n");

  printf("export const outcomeNames: readonly string[] = [\n");
#define OUTCOME_TEXT(name, text) printf("  %s,\n", QUOTE(text));
  WEFT_OUTCOMES(OUTCOME_TEXT)
  printf("];\n");
  return 0;
}
