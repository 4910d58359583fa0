/* Every __tsan_atomic* entry point the compiler emits for C11/GCC atomics and __sync
 * builtins. Each is one scheduling point, explored as sequentially consistent; the
 * memory order decides only what the operation orders for race detection (race.c). */
#include <stdint.h>

#include "runtime.h"

#define LOAD_BODY(type)                                                    \
  uintptr_t pc = WEFT_CALLER_PC();                                         \
  sched_point(WEFT_OP_ATOMIC_LOAD, (uintptr_t)a, 0, pc);                   \
  extent_note((uintptr_t)a, sizeof(type));                                 \
  target_check((uintptr_t)a, sizeof(type), 0, pc);                         \
  type v = *a;                                                             \
  sched_record_value((uint64_t)(int64_t)v, sizeof(type));                  \
  sched_record_atomic(0, 0, mo, WEFT_RMW_NONE);                            \
  sched_note_read((uintptr_t)a, (uint64_t)(int64_t)v, sizeof(type), pc);   \
  race_on_atomic(RACE_ATOMIC_LOAD, (uintptr_t)a, sizeof(type), mo, pc);                      \
  return v;

/* An add (or subtract), or, and or xor whose result the harness drops commutes with others
 * of its kind (results.c). */
static inline uint8_t rmw_op(enum weft_rmw_function function, uintptr_t pc) {
  uint8_t unused;
  switch (function) {
    case WEFT_RMW_FETCH_ADD:
    case WEFT_RMW_FETCH_SUB: unused = WEFT_OP_ATOMIC_ADD_UNUSED; break;
    case WEFT_RMW_FETCH_OR: unused = WEFT_OP_ATOMIC_OR_UNUSED; break;
    case WEFT_RMW_FETCH_AND: unused = WEFT_OP_ATOMIC_AND_UNUSED; break;
    case WEFT_RMW_FETCH_XOR: unused = WEFT_OP_ATOMIC_XOR_UNUSED; break;
    default: return WEFT_OP_ATOMIC_RMW;
  }
  return result_unused(pc) ? unused : WEFT_OP_ATOMIC_RMW;
}

#define RMW(bits, type, name, function, expression)                                        \
  WEFT_HIDDEN type __tsan_atomic##bits##_##name(volatile type *a, type v, int mo) {        \
    uintptr_t pc = WEFT_CALLER_PC();                                                       \
    sched_point(rmw_op(WEFT_RMW_##function, pc), (uintptr_t)a, (uint64_t)(int64_t)v, pc);  \
    extent_note((uintptr_t)a, sizeof(type));                                               \
    target_check((uintptr_t)a, sizeof(type), 1, pc);                                       \
    type old = *a;                                                                         \
    *a = (type)(expression);                                                               \
    stack_note_words((const void *)a, sizeof(type));                                       \
    sched_record_value((uint64_t)(int64_t)old, sizeof(type));                              \
    sched_record_atomic((uint64_t)(int64_t)*a, 0, mo, WEFT_RMW_##function);                \
    sched_note_rmw((uintptr_t)a, (uint64_t)(int64_t)old, (uint64_t)(int64_t)*a, sizeof(type), pc); \
    race_on_atomic(RACE_ATOMIC_RMW, (uintptr_t)a, sizeof(type), mo, pc);                                     \
    return old;                                                                            \
  }

/* A failed compare-exchange is recorded as such: it only read. */
#define ATOMIC_FAMILY(bits, type)                                                                  \
  WEFT_HIDDEN type __tsan_atomic##bits##_load(const volatile type *a, int mo) {                    \
    LOAD_BODY(type)                                                                                \
  }                                                                                                \
  WEFT_HIDDEN void __tsan_atomic##bits##_store(volatile type *a, type v, int mo) {                 \
    uintptr_t pc = WEFT_CALLER_PC();                                                               \
    sched_point(WEFT_OP_ATOMIC_STORE, (uintptr_t)a, (uint64_t)(int64_t)v, pc);                     \
    extent_note((uintptr_t)a, sizeof(type));                                                       \
    sched_record_value((uint64_t)(int64_t)v, sizeof(type));                                        \
    sched_record_atomic((uint64_t)(int64_t)v, 0, mo, WEFT_RMW_NONE);                               \
    target_check((uintptr_t)a, sizeof(type), 1, pc);                                               \
    *a = v;                                                                                        \
    stack_note_words((const void *)a, sizeof(type));                                               \
    spin_note_store((uintptr_t)a, sizeof(type));                                                   \
    race_on_atomic(RACE_ATOMIC_STORE, (uintptr_t)a, sizeof(type), mo, pc);                                           \
  }                                                                                                \
  RMW(bits, type, exchange, EXCHANGE, v)                                                                     \
  RMW(bits, type, fetch_add, FETCH_ADD, old + v)                                                              \
  RMW(bits, type, fetch_sub, FETCH_SUB, old - v)                                                              \
  RMW(bits, type, fetch_and, FETCH_AND, old &v)                                                               \
  RMW(bits, type, fetch_or, FETCH_OR, old | v)                                                               \
  RMW(bits, type, fetch_xor, FETCH_XOR, old ^ v)                                                              \
  RMW(bits, type, fetch_nand, FETCH_NAND, ~(old & v))                                                          \
  static int cas##bits(volatile type *a, type *expected_in, type v, int mo, int fail_mo,          \
                       uintptr_t pc) {                                                             \
    type expected = *expected_in;                                                                  \
    sched_expect((uint64_t)(int64_t)expected, sizeof(type));                                       \
    sched_point(WEFT_OP_ATOMIC_CAS, (uintptr_t)a, (uint64_t)(int64_t)v, pc);                       \
    extent_note((uintptr_t)a, sizeof(type));                                                       \
    target_check((uintptr_t)a, sizeof(type), 1, pc);                                               \
    type old = *a;                                                                                 \
    sched_record_value((uint64_t)(int64_t)old, sizeof(type));                                      \
    int succeeded = old == expected;                                                               \
    sched_record_atomic((uint64_t)(int64_t)v, (uint64_t)(int64_t)expected, succeeded ? mo : fail_mo, \
                        WEFT_RMW_NONE);                                                            \
    if (succeeded) {                                                                               \
      *a = v;                                                                                      \
      stack_note_words((const void *)a, sizeof(type));                                             \
      sched_note_rmw((uintptr_t)a, (uint64_t)(int64_t)old, (uint64_t)(int64_t)v, sizeof(type), pc); \
      race_on_atomic(RACE_ATOMIC_RMW, (uintptr_t)a, sizeof(type), mo, pc);                                           \
      return 1;                                                                                    \
    }                                                                                              \
    sched_record_op(WEFT_OP_ATOMIC_CAS_FAIL);                                                      \
    sched_note_read((uintptr_t)a, (uint64_t)(int64_t)old, sizeof(type), pc);                       \
    race_on_atomic(RACE_ATOMIC_LOAD, (uintptr_t)a, sizeof(type), fail_mo, pc);                                       \
    *expected_in = old;                                                                            \
    return 0;                                                                                      \
  }                                                                                                \
  WEFT_HIDDEN int __tsan_atomic##bits##_compare_exchange_strong(volatile type *a, type *c, type v, \
                                                                int mo, int fail_mo) {             \
    return cas##bits(a, c, v, mo, fail_mo, WEFT_CALLER_PC());                                      \
  }                                                                                                \
  WEFT_HIDDEN int __tsan_atomic##bits##_compare_exchange_weak(volatile type *a, type *c, type v,   \
                                                              int mo, int fail_mo) {               \
    return cas##bits(a, c, v, mo, fail_mo, WEFT_CALLER_PC());                                      \
  }                                                                                                \
  WEFT_HIDDEN type __tsan_atomic##bits##_compare_exchange_val(volatile type *a, type c, type v,    \
                                                              int mo, int fail_mo) {               \
    cas##bits(a, &c, v, mo, fail_mo, WEFT_CALLER_PC());                                            \
    return c;                                                                                      \
  }

ATOMIC_FAMILY(8, int8_t)
ATOMIC_FAMILY(16, int16_t)
ATOMIC_FAMILY(32, int32_t)
ATOMIC_FAMILY(64, int64_t)
ATOMIC_FAMILY(128, __int128)

/* Under sequential consistency fences order nothing further: not scheduling points. For
 * race detection they order relaxed operations (race.c). */
WEFT_HIDDEN void __tsan_atomic_thread_fence(int mo) { race_on_fence(mo); }
WEFT_HIDDEN void __tsan_atomic_signal_fence(int mo) { (void)mo; }
