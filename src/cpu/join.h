/*
 * join.h (cpu) -- the CPU entry point of the hash join (src/cpu/join.c),
 * called by src/core/join_ops.c through the backend table.
 */
#ifndef ZAMBEZI_CPU_JOIN_H
#define ZAMBEZI_CPU_JOIN_H

#include "core/internal.h"

/* See zb_backend.join_indices in src/core/internal.h.  *key_order is set
 * to 1 when the pairs already come in the order of the join keys (the merge
 * join below), else 0. */
zb_status zb__cpu_join_indices(const zb_column *const *lkeys, const zb_column *const *rkeys,
                               int64_t n_keys, int64_t n_left, int64_t n_right,
                               zb_join_how how, bool nulls_match, zb_column **left_idx,
                               zb_column **right_idx, int64_t *key_order, zb_error *err);

/* src/cpu/merge_join.c: the join of one integer or temporal key (the same
 * type on both sides, no nulls) whose values are strictly increasing on
 * both sides, for how inner, left, outer, semi or anti: the pairs in key
 * order, as the hash join gives them (and sorted, for outer).  *done is
 * false, and nothing is made, when the keys are not such keys. */
zb_status zb__cpu_merge_join(const zb_column *lkey, const zb_column *rkey, zb_join_how how,
                             zb_column **left_idx, zb_column **right_idx, bool *done,
                             zb_error *err);

/* src/cpu/join.c: the -1 entries of an int64 index column (with an
 * all-valid bitmap) become nulls holding 0. */
zb_status zb__join_nullify(zb_column *c, zb_error *err);

#endif /* ZAMBEZI_CPU_JOIN_H */
