/* ops.h's columns as arrays indexed by op, for the runtime's own use (sleep sets,
 * scheduling, spin detection). */
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
