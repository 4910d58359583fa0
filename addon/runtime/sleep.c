/* Sleep sets in the runtime. Partial-order reduction (the `optimal` strategy) knows which
 * threads are asleep where a run leaves its decided prefix: running one of them would
 * only repeat an execution explored before. The strategy hands the runtime the threads
 * asleep before one step of the prefix; from that step on, a step wakes every sleeping
 * thread whose pending operation it conflicts with, and the default policy prefers the
 * threads still awake. Without this, a run would walk into a sleeping thread and the
 * strategy would have to abandon it (a wasted run).
 *
 * The conflict test mirrors src/explore/dependence.ts and the strategy's sleep-set
 * update (src/explore/dpor.ts): keep them in sync. Where it is coarser (a pending
 * compare-exchange counts as a write: whether it will fail is not known yet) a thread
 * may wake here and still be asleep for the strategy, which then abandons the run. */
#include "runtime.h"

enum access { ACCESS_NONE, ACCESS_READ, ACCESS_WRITE, ACCESS_ACQUIRE, ACCESS_RELEASE, ACCESS_GLOBAL };

static enum access access_of(uint8_t op) {
  switch (op) {
    case WEFT_OP_THREAD_START:
    case WEFT_OP_THREAD_JOIN:
    case WEFT_OP_ATOMIC_LOAD:
    case WEFT_OP_ATOMIC_CAS_FAIL:
    case WEFT_OP_PLAIN_READ:
    case WEFT_OP_SEM_GETVALUE: return ACCESS_READ;
    case WEFT_OP_MAIN_RETURN:
    case WEFT_OP_PROCESS_EXIT: return ACCESS_GLOBAL;
    case WEFT_OP_YIELD:
    case WEFT_OP_CHOOSE: return ACCESS_NONE;
    case WEFT_OP_MUTEX_LOCK:
    case WEFT_OP_MUTEX_TRYLOCK:
    case WEFT_OP_SPIN_LOCK:
    case WEFT_OP_RWLOCK_READ:
    case WEFT_OP_RWLOCK_WRITE:
    case WEFT_OP_SEM_WAIT:
    case WEFT_OP_SEM_TRYWAIT:
    case WEFT_OP_SEM_TIMEDWAIT: return ACCESS_ACQUIRE;
    case WEFT_OP_MUTEX_UNLOCK:
    case WEFT_OP_SPIN_UNLOCK:
    case WEFT_OP_RWLOCK_UNLOCK: return ACCESS_RELEASE;
    default: return ACCESS_WRITE; /* conservative, as dependence.ts */
  }
}

/* Thread operations name a thread, not an address: keyed apart (dependence.ts's threadObject). */
static uint64_t object_of(uint8_t op, uint64_t object) {
  switch (op) {
    case WEFT_OP_THREAD_START:
    case WEFT_OP_THREAD_EXIT:
    case WEFT_OP_THREAD_CREATE:
    case WEFT_OP_THREAD_JOIN: return ~object;
    default: return object;
  }
}

static int conflicting(enum access a, enum access b) {
  return a != ACCESS_NONE && b != ACCESS_NONE && !(a == ACCESS_READ && b == ACCESS_READ);
}

/* An operation's touches: its object, and for a condition wait or wake-up also the mutex
 * (its argument, low bits are flags), released by the wait and re-acquired by the wake-up. */
struct touches {
  enum access access[2];
  uint64_t object[2];
  int count;
};

static struct touches touches_of(uint8_t op, uint64_t object, uint64_t argument) {
  struct touches t = {{access_of(op), ACCESS_NONE}, {object_of(op, object), 0}, 1};
  if (op == WEFT_OP_COND_WAIT || op == WEFT_OP_COND_WAKE) {
    t.access[1] = op == WEFT_OP_COND_WAIT ? ACCESS_RELEASE : ACCESS_ACQUIRE;
    t.object[1] = argument >> 2 << 2;
    t.count = 2;
  }
  return t;
}

static int conflict(const struct touches *a, const struct touches *b) {
  if (a->access[0] == ACCESS_GLOBAL || b->access[0] == ACCESS_GLOBAL) return 1;
  for (int i = 0; i < a->count; i++)
    for (int j = 0; j < b->count; j++)
      if (a->object[i] == b->object[j] && conflicting(a->access[i], b->access[j])) return 1;
  return 0;
}

void sleep_wake(struct runtime *r, uint32_t step) {
  struct touches done = touches_of(r->trace.op[step], (uint64_t)r->trace.object[step],
                                   (uint64_t)(int64_t)r->trace.value[step]);
  for (uint32_t asleep = r->asleep; asleep; asleep &= asleep - 1) {
    uint32_t id = (uint32_t)__builtin_ctz(asleep);
    const struct pending *next = &r->threads[id].pending;
    struct touches pending = touches_of(next->op, next->object, next->argument);
    if (conflict(&done, &pending)) r->asleep &= ~(1u << id);
  }
}
