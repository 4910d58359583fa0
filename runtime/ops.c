/* ops.h's columns as arrays indexed by op, for the runtime's own use (sleep sets,
 * scheduling, spin detection). */
#include <pthread.h>
#include <semaphore.h>

#include "runtime.h"

#define WEFT_OP_ACCESS(name, text, access, can, object, flags, enabled) WEFT_ACCESS_##access,
const uint8_t op_access[WEFT_OP_COUNT] = {WEFT_OPS(WEFT_OP_ACCESS)};
#undef WEFT_OP_ACCESS

#define WEFT_OP_CAN(name, text, access, can, object, flags, enabled) WEFT_ACCESS_##can,
const uint8_t op_can[WEFT_OP_COUNT] = {WEFT_OPS(WEFT_OP_CAN)};
#undef WEFT_OP_CAN

#define WEFT_OP_OBJECT(name, text, access, can, object, flags, enabled) WEFT_OBJECT_##object,
const uint8_t op_object[WEFT_OP_COUNT] = {WEFT_OPS(WEFT_OP_OBJECT)};
#undef WEFT_OP_OBJECT

#define WEFT_ACCESS_COMMUTES(name, commutes) commutes,
const uint8_t access_commutes[] = {WEFT_ACCESSES(WEFT_ACCESS_COMMUTES)};
#undef WEFT_ACCESS_COMMUTES

#define WEFT_OP_FLAGS(name, text, access, can, object, flags, enabled) (flags),
const uint16_t op_flags[WEFT_OP_COUNT] = {WEFT_OPS(WEFT_OP_FLAGS)};
#undef WEFT_OP_FLAGS

/* The bytes of the harness's synchronisation object a step of the op uses (its C type's
 * size), checked when the step runs as an access would be (a freed block, a returned frame);
 * 0 for steps whose memory is checked elsewhere (atomics, plain accesses, free) or that touch
 * none of the harness's. A destroy's object may be any of them: its first word is checked. */
#define MUTEX_BYTES sizeof(pthread_mutex_t)
#define COND_BYTES sizeof(pthread_cond_t)
#define SEM_BYTES sizeof(sem_t)
#define RWLOCK_BYTES sizeof(pthread_rwlock_t)
const uint8_t op_object_bytes[WEFT_OP_COUNT] = {
    [WEFT_OP_MUTEX_LOCK] = MUTEX_BYTES, [WEFT_OP_MUTEX_TRYLOCK] = MUTEX_BYTES,
    [WEFT_OP_MUTEX_TIMEDLOCK] = MUTEX_BYTES, [WEFT_OP_MUTEX_UNLOCK] = MUTEX_BYTES,
    [WEFT_OP_COND_WAIT] = COND_BYTES, [WEFT_OP_COND_WAKE] = COND_BYTES,
    [WEFT_OP_COND_SIGNAL] = COND_BYTES, [WEFT_OP_COND_BROADCAST] = COND_BYTES,
    [WEFT_OP_SEM_WAIT] = SEM_BYTES, [WEFT_OP_SEM_TRYWAIT] = SEM_BYTES, [WEFT_OP_SEM_TIMEDWAIT] = SEM_BYTES,
    [WEFT_OP_SEM_POST] = SEM_BYTES, [WEFT_OP_SEM_GETVALUE] = SEM_BYTES,
    [WEFT_OP_BARRIER_ARRIVE] = sizeof(pthread_barrier_t), [WEFT_OP_BARRIER_LEAVE] = sizeof(pthread_barrier_t),
    [WEFT_OP_RWLOCK_READ] = RWLOCK_BYTES, [WEFT_OP_RWLOCK_WRITE] = RWLOCK_BYTES,
    [WEFT_OP_RWLOCK_TRY_READ] = RWLOCK_BYTES, [WEFT_OP_RWLOCK_TRY_WRITE] = RWLOCK_BYTES,
    [WEFT_OP_RWLOCK_UNLOCK] = RWLOCK_BYTES, [WEFT_OP_RWLOCK_READ_UNLOCK] = RWLOCK_BYTES,
    [WEFT_OP_SPIN_LOCK] = sizeof(pthread_spinlock_t), [WEFT_OP_SPIN_TRYLOCK] = sizeof(pthread_spinlock_t),
    [WEFT_OP_SPIN_UNLOCK] = sizeof(pthread_spinlock_t), [WEFT_OP_ONCE] = sizeof(pthread_once_t),
    [WEFT_OP_DESTROY] = sizeof(int),
};
