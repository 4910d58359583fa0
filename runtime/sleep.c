/* Sleep sets in the runtime. Partial-order reduction (the `optimal` strategy) knows which
 * threads are asleep where a run leaves its decided prefix: running one of them would
 * only repeat an execution explored before. The strategy hands the runtime the threads
 * asleep before one step of the prefix; from that step on, a step wakes every sleeping
 * thread whose pending operation it conflicts with, and the default policy prefers the
 * threads still awake. Without this, a run would walk into a sleeping thread and the
 * strategy would have to abandon it (a wasted run).
 *
 * What conflicts comes from ops.h's table, as for the explorer (src/explore/dependence.ts
 * reads the same table). A pending operation is judged by what it can do (the `can`
 * column: a compare-exchange may write, unless it would fail now), a done step by what it did. */
#include "runtime.h"

/* two accesses of a kind that commutes with itself (ops.h: reads, unused-result updates) do not */
static int conflicting(uint8_t a, uint8_t b) {
  return a != WEFT_ACCESS_NONE && b != WEFT_ACCESS_NONE && !(a == b && access_commutes[a]);
}

/* An operation's touches: its object, and for a condition wait or wake-up also the mutex
 * (its argument, low bits are flags), for a create also the thread numbering; a heap
 * block's free touches the block's range. */
struct touches {
  uint8_t access[2];
  uint64_t start[2], end[2]; /* [start, end): an address or a block; thread objects are keyed apart */
  int count;
};

static struct touches touches_of(uint8_t op, uint8_t access, uint64_t object, uint64_t argument) {
  struct touches t = {{access, WEFT_ACCESS_NONE}, {object, 0}, {object + 1, 0}, 1};
  switch (op_object[op]) {
    case WEFT_OBJECT_THREAD: t.start[0] = ~object, t.end[0] = ~object + 1; break; /* apart from addresses */
    case WEFT_OBJECT_BLOCK: t.end[0] = object + (argument ? argument : 1); break;
    case WEFT_OBJECT_NONE: t.access[0] = access == WEFT_ACCESS_GLOBAL ? access : WEFT_ACCESS_NONE; break;
    default: break;
  }
  if (op_flags[op] & (WEFT_OPF_RELEASES_ARGUMENT | WEFT_OPF_ACQUIRES_ARGUMENT)) {
    t.access[1] = op_flags[op] & WEFT_OPF_RELEASES_ARGUMENT ? WEFT_ACCESS_RELEASE : WEFT_ACCESS_ACQUIRE;
    t.start[1] = argument >> 2 << 2;
    t.end[1] = t.start[1] + 1;
    t.count = 2;
  }
  if (op_flags[op] & WEFT_OPF_NUMBERS_THREAD) {
    t.access[1] = WEFT_ACCESS_WRITE;
    t.start[1] = WEFT_THREAD_NUMBERING;
    t.end[1] = WEFT_THREAD_NUMBERING + 1;
    t.count = 2;
  }
  return t;
}

static int conflict(const struct touches *a, const struct touches *b) {
  if (a->access[0] == WEFT_ACCESS_GLOBAL || b->access[0] == WEFT_ACCESS_GLOBAL) return 1;
  for (int i = 0; i < a->count; i++)
    for (int j = 0; j < b->count; j++)
      if (a->start[i] < b->end[j] && b->start[j] < a->end[i] && conflicting(a->access[i], b->access[j])) return 1;
  return 0;
}

void sleep_wake(struct runtime *r, uint32_t step) {
  uint8_t op = r->trace.op[step];
  struct touches done = touches_of(op, op_access[op], (uint64_t)r->trace.object[step], (uint64_t)(int64_t)r->trace.value[step]);
  uint32_t any = 0;
  for (uint32_t w = 0; w < WEFT_THREAD_WORDS; w++) {
    for (uint32_t asleep = r->asleep.words[w]; asleep; asleep &= asleep - 1) {
      uint32_t id = w << 5 | (uint32_t)__builtin_ctz(asleep);
      const struct pending *next = &r->threads[id].pending;
      /* a compare-exchange that would fail only reads (its location has not changed since,
       * or the step that changed it conflicts anyway) */
      uint8_t can = next->op == WEFT_OP_ATOMIC_CAS && sched_cas_would_fail(next) ? WEFT_ACCESS_READ : op_can[next->op];
      struct touches pending = touches_of(next->op, can, next->object, next->argument);
      if (conflict(&done, &pending)) set_remove(&r->asleep, id);
    }
    any |= r->asleep.words[w];
  }
  r->asleep_any = any != 0;
}
