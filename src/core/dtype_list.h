/*
 * dtype_list.h -- the one list of zambezi's fixed-width value types, as
 * X-macros from which per-type code is stamped, in C and in CUDA C (the
 * header is also valid C++).
 *
 * Each ZB_FOR_EACH_*_TYPE(X) expands X(ID, T, NAME, U) once per type:
 *   ID    its zb_type_id (ZB_INT8, ...);
 *   T     the C type of one stored value (int8_t, ..., float, double);
 *   NAME  the dtype's name as a token (int8, ..., float64): for the names of
 *         stamped functions (kernel_##NAME), and #NAME is zb_type_name's text;
 *   U     the unsigned integer type of T's width (T's bits: order keys,
 *         wrapping arithmetic, bit patterns).
 * A switch on a type id whose cases X stamps, each running a loop over
 * rows of T, keeps the type switch outside the rows (DESIGN.md, section 5): a
 * switch, or a function that switches, per row is what this list replaces.
 *
 * Not listed: bool (bit-packed, so no C type per value: every kernel reads
 * its bitmap on its own), string (offsets and bytes) and categorical (int32
 * codes whose order is not their values').  Date32, timestamp and duration
 * store int32 and int64 and are ordered as those; many kernels switch on
 * zb__physical(type) and see them as ZB_INT32 and ZB_INT64.
 *
 * Invariant: the lists follow zb_type_id's order, and every integer and
 * float id between ZB_INT8 and ZB_FLOAT64 is in exactly one of them.
 */
#ifndef ZAMBEZI_CORE_DTYPE_LIST_H
#define ZAMBEZI_CORE_DTYPE_LIST_H

#include <stdint.h>

#define ZB_FOR_EACH_SIGNED_TYPE(X)                                              \
  X(ZB_INT8, int8_t, int8, uint8_t)                                             \
  X(ZB_INT16, int16_t, int16, uint16_t)                                         \
  X(ZB_INT32, int32_t, int32, uint32_t)                                         \
  X(ZB_INT64, int64_t, int64, uint64_t)

#define ZB_FOR_EACH_UNSIGNED_TYPE(X)                                            \
  X(ZB_UINT8, uint8_t, uint8, uint8_t)                                          \
  X(ZB_UINT16, uint16_t, uint16, uint16_t)                                      \
  X(ZB_UINT32, uint32_t, uint32, uint32_t)                                      \
  X(ZB_UINT64, uint64_t, uint64, uint64_t)

#define ZB_FOR_EACH_FLOAT_TYPE(X)                                               \
  X(ZB_FLOAT32, float, float32, uint32_t)                                       \
  X(ZB_FLOAT64, double, float64, uint64_t)

/* int8 .. uint64 */
#define ZB_FOR_EACH_INTEGER_TYPE(X) ZB_FOR_EACH_SIGNED_TYPE(X) ZB_FOR_EACH_UNSIGNED_TYPE(X)

/* int8 .. float64: the numeric types but bool */
#define ZB_FOR_EACH_NUMERIC_TYPE(X) ZB_FOR_EACH_INTEGER_TYPE(X) ZB_FOR_EACH_FLOAT_TYPE(X)

/* date32, timestamp and duration with their storage types */
#define ZB_FOR_EACH_TEMPORAL_TYPE(X)                                            \
  X(ZB_DATE32, int32_t, date32, uint32_t)                                       \
  X(ZB_TIMESTAMP, int64_t, timestamp, uint64_t)                                 \
  X(ZB_DURATION, int64_t, duration, uint64_t)

/* Every type with one C value per row: numeric (but bool) and temporal. */
#define ZB_FOR_EACH_FIXED_TYPE(X) ZB_FOR_EACH_NUMERIC_TYPE(X) ZB_FOR_EACH_TEMPORAL_TYPE(X)

/* X for a switch's case labels alone: ZB_FOR_EACH_INTEGER_TYPE(ZB_TYPE_CASE)
 * is "case ZB_INT8: ... case ZB_UINT64:", for types handled alike. */
#define ZB_TYPE_CASE(ID, T, NAME, U) case ID:

/* Ranges of the integer types as constant expressions of their T and U. */
#define ZB_UNSIGNED_MAX(U) ((U) ~(U)0)
#define ZB_SIGNED_MAX(T, U) ((T)(ZB_UNSIGNED_MAX(U) >> 1))
#define ZB_SIGNED_MIN(T, U) ((T)(-ZB_SIGNED_MAX(T, U) - 1))

/* The top (sign) bit of U. */
#define ZB_TOP_BIT(U) ((U)((U)1 << (8 * sizeof(U) - 1)))

#endif /* ZAMBEZI_CORE_DTYPE_LIST_H */
