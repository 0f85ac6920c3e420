/*
 * join.h -- relational joins of two tables (the engine side of
 * DataFrame.merge / DataFrame.join).
 *
 * A join is computed as two row-index columns, one per side: output row i
 * is row left_idx[i] of the left table next to row right_idx[i] of the
 * right table.  A null index means "no row on that side" (the unmatched
 * rows of outer joins); zb_table_take turns a null index into a null row,
 * so the joined table is zb_table_take(left, left_idx) beside
 * zb_table_take(right, right_idx).
 *
 * Key semantics:
 *   - rows match when every key column pair is equal;
 *   - with nulls_match (pandas' merge), a null key equals a null key of the
 *     other side (per key column: rows match when each key pair is equal
 *     or null on both sides); without it, a null in any key column never
 *     matches anything (SQL semantics).  NaN in a float key is a value,
 *     not a null, and matches NaN (as in pandas); -0.0 equals 0.0;
 *   - key column pairs must have compatible types: the same type (date32,
 *     timestamps of one unit, bool, strings, floats...), any two integer
 *     types (compared by value; a uint64 above INT64_MAX never equals a
 *     signed value), an integer and a float (compared as float64), float32
 *     and float64, or strings and categoricals in any mix (compared by
 *     their strings).  Anything else is ZB_ETYPE naming both columns.
 *
 * Output order (identical for every thread count; pandas' order for
 * merge(sort=False)):
 *   inner, left: left row order; each left row's matches in right row
 *                order (left: an unmatched left row once, right index null);
 *   right:       right row order; each right row's matches in left order;
 *   outer:       the left-join rows, then the unmatched right rows in right
 *                order (left index null) -- then, when `sort` is set, the
 *                rows stably sorted by the join keys (left key where the row
 *                has a left side, else the right key; nulls last), which is
 *                what pandas does for how="outer";
 *   semi, anti:  the left rows with / without a match, in left order
 *                (right_idx is not produced: *right_idx is set to NULL);
 *   cross:       every pair, left-major (n_keys must be 0).
 * `sort` sorts the output of any join that way (pandas' sort=True).
 *
 * Algorithm (CPU): the build side (right, or left for how=right) is
 * radix-partitioned by the high bits of the key hash, the probe side
 * likewise; partitions are joined in parallel with a small cache-resident
 * hash table each (equal build keys chained in row order); the per-row
 * match counts are prefix-summed per morsel and the index pairs written in
 * parallel.
 */
#ifndef ZAMBEZI_JOIN_H
#define ZAMBEZI_JOIN_H

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum zb_join_how {
  ZB_JOIN_INNER = 0,
  ZB_JOIN_LEFT,
  ZB_JOIN_RIGHT,
  ZB_JOIN_OUTER,
  ZB_JOIN_SEMI,
  ZB_JOIN_ANTI,
  ZB_JOIN_CROSS,
  ZB_JOIN_HOW_COUNT
} zb_join_how;

/* "inner", "left", ... ("unknown" for an invalid value). */
ZB_API const char *zb_join_how_name(zb_join_how how);
/* Parse "inner" | "left" | "right" | "outer" | "semi" | "anti" | "cross". */
ZB_API zb_status zb_join_how_from_name(const char *name, zb_join_how *out, zb_error *err);

/* Join left and right on n_keys key column pairs (left_keys[i] of left
 * with right_keys[i] of right; indices into the tables).  On success
 * *left_idx and *right_idx are new int64 columns of one length (new
 * references owned by the caller; *right_idx is NULL for semi and anti).
 * Errors: ZB_EINDEX for a bad key index, ZB_ETYPE for incompatible key
 * types (naming both columns), ZB_EINVAL for n_keys < 1 (or n_keys != 0
 * with cross), ZB_EOVERFLOW when the output would exceed INT64_MAX rows,
 * ZB_ENOMEM.  On failure both outputs are NULL. */
ZB_API zb_status zb_table_join_indices(const zb_table *left, const zb_table *right,
                                       int64_t n_keys, const int64_t *left_keys,
                                       const int64_t *right_keys, zb_join_how how, bool sort,
                                       bool nulls_match, zb_column **left_idx,
                                       zb_column **right_idx, zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_JOIN_H */
