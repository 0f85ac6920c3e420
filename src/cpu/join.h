/*
 * join.h (cpu) -- the CPU entry point of the hash join (src/cpu/join.c),
 * called by src/core/join_ops.c through the backend table.
 */
#ifndef ZAMBEZI_CPU_JOIN_H
#define ZAMBEZI_CPU_JOIN_H

#include "core/internal.h"

/* See zb_backend.join_indices in src/core/internal.h. */
zb_status zb__cpu_join_indices(const zb_column *const *lkeys, const zb_column *const *rkeys,
                               int64_t n_keys, int64_t n_left, int64_t n_right,
                               zb_join_how how, bool nulls_match, zb_column **left_idx,
                               zb_column **right_idx, zb_error *err);

#endif /* ZAMBEZI_CPU_JOIN_H */
