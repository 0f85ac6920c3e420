/*
 * values.h -- reading and converting column values, shared by the core and
 * every backend's host code: the physical type of a fixed-width column, the
 * string of a row, block conversion between numeric types (src/core/
 * convert.c), and a builder for host result columns shaped like an input.
 * Backends include this instead of each other's headers.
 */
#ifndef ZAMBEZI_CORE_VALUES_H
#define ZAMBEZI_CORE_VALUES_H

#include <string.h>

#include "core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZB_BLOCK 1024 /* rows per inner block of a CPU kernel; a multiple of 64 */

/* Physical value type of a fixed-width column: date32 and categorical codes
 * are int32, timestamps and durations int64; others are themselves. */
static inline zb_type_id zb__physical(zb_type_id t) {
  if (t == ZB_DATE32 || t == ZB_CATEGORICAL) return ZB_INT32;
  if (t == ZB_TIMESTAMP || t == ZB_DURATION) return ZB_INT64;
  return t;
}

/* dst[0, n) = values [off, off + n) of src_data (a data buffer of physical
 * type src, bool as a bitmap) converted to dst_t with C conversions.  Both
 * are numeric physical types; float -> integer must be range-checked by the
 * caller.  dst_t may be ZB_BOOL only from ZB_BOOL (writes 0/1 bytes). */
void zb__convert_block(zb_type_id dst_t, void *dst, zb_type_id src, const void *src_data,
                       int64_t off, int64_t n);

/* Store scalar s's value as one value of numeric type t (bool: a 0/1 byte)
 * at d: integers from s->v.i (signed t) or s->v.u (unsigned t), floats
 * from s->v.f, with C conversions (the caller checked the range). */
void zb__scalar_store(const zb_scalar *s, zb_type_id t, void *d);

/* buf[0, ZB_BLOCK) = value 0 of the scalar (length-1) column s converted to
 * t (bool: 0/1 bytes), for kernels whose operand is a scalar. */
void zb__fill_scalar_block(zb_type_id t, void *buf, const zb_column *s);

/* Pointer to n values of type t for rows [row, row + n) of c: the column's
 * own memory when its physical type is t (and t is not bool), else
 * converted into scratch (ZB_BLOCK * 8 bytes).  A scalar operand (length 1)
 * is handled by the caller. */
const void *zb__block_values(const zb_column *c, zb_type_id t, int64_t row, int64_t n,
                             void *scratch);

/* Value and length of string i of a string column (no validity check). */
static inline const char *zb__str(const zb_column *c, int64_t i, int64_t *len) {
  const int64_t *o = (const int64_t *)c->data->data + c->offset + i;
  *len = o[1] - o[0];
  return (const char *)c->chars->data + o[0];
}

/* Number of morsels for n rows. */
static inline int64_t zb__morsels(int64_t n) {
  return (n + ZB_MORSEL_ROWS - 1) / ZB_MORSEL_ROWS;
}

/* The rows [*start, *start + *n) of morsel task of length rows. */
static inline void zb__morsel_range(int64_t length, int64_t task, int64_t *start, int64_t *n) {
  *start = task * ZB_MORSEL_ROWS;
  *n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, length - *start);
}

/* Counts v[0, n) turned into their exclusive prefix sums (each morsel's
 * start); returns the total. */
static inline int64_t zb__exclusive_scan(int64_t *v, int64_t n) {
  int64_t total = 0;
  for (int64_t m = 0; m < n; m++) {
    int64_t k = v[m];
    v[m] = total;
    total += k;
  }
  return total;
}

/* A new host column shaped like `like` (unit, timezone, dictionary) of
 * `type`; with_validity gives an all-valid bitmap. */
zb_status zb__new_like(const zb_column *like, zb_type_id type, int64_t length,
                       bool with_validity, int64_t chars_size, zb_column **out,
                       zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_CORE_VALUES_H */
