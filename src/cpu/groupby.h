/*
 * groupby.h -- what the CPU group-by files share: the grouping of rows
 * (src/cpu/groupby.c: a group id per row, by direct indexing or by
 * partitioned hashing), the rows of each group in row order (CSR), the
 * aggregation kernels (src/cpu/groupby_agg.c), and the CPU entry points
 * that src/core/groupby_ops.c calls after validating the arguments.
 */
#ifndef ZAMBEZI_CPU_GROUPBY_H
#define ZAMBEZI_CPU_GROUPBY_H

#include <math.h>

#include "cpu/kernels.h"

/* How direct grouping computes a row's group from its keys, block by
 * block, instead of storing it: the row's direct value is its key's value
 * (one key: lo 0, stride 1) or sum over keys k of (value_k - lo[k]) *
 * stride[k] with a null key counting as null_value[k] (several keys); the
 * group is map[value - slot_lo], or map[range] for a null (one key, or
 * several with drop_null_rows: a row missing any key).  keys are owned
 * references; lo, stride and null_value share one allocation (lo's). */
typedef struct zb__direct_keys {
  const zb_column **keys;
  int64_t n_keys;
  int64_t *lo, *stride, *null_value;
  bool drop_null_rows;
  int64_t slot_lo, range;
  int64_t *map; /* range + 1 entries: slot -> group id, -1 for none */
  bool identity; /* slot_lo is 0 and map[s] == s below range: a row's
                    group is its value (string codes in group order) */
} zb__direct_keys;

/* Group ids of rows [row, row + m), m <= ZB_BLOCK, into out. */
void zb__direct_ids(const zb__direct_keys *dk, int64_t row, int64_t m, int64_t *out);
void zb__direct_keys_reset(zb__direct_keys *dk);

/* The groups of the rows of some key columns.  gid[r] is the group of row
 * r in [0, n_groups), or -1 for a row left out (dropna); first[g] is the
 * first row of group g.  Both arrays are owned.  A direct grouping asked
 * for lazily leaves gid NULL: zb__grouping_ids gives blocks of ids, and
 * zb__grouping_materialize fills gid for consumers that need all of it. */
typedef struct zb__grouping {
  int64_t n_rows;
  int64_t n_groups;
  int64_t *gid;
  int64_t *first;
  zb__direct_keys direct; /* n_keys > 0: direct grouping */
} zb__grouping;

/* Group the rows of n_keys host columns of equal length (borrowed).  Group
 * ids follow groupby.h's group order (sort, or first appearance).  lazy:
 * gid may be left NULL (see above).  On failure g holds nothing. */
zb_status zb__group_rows(const zb_column *const *keys, int64_t n_keys, bool dropna, bool sort,
                         bool lazy, zb__grouping *g, zb_error *err);
void zb__grouping_reset(zb__grouping *g);
zb_status zb__grouping_materialize(zb__grouping *g, zb_error *err);

/* The group ids of rows [row, row + m), m <= ZB_BLOCK: g->gid + row, or
 * computed into buf. */
static inline const int64_t *zb__grouping_ids(const zb__grouping *g, int64_t row, int64_t m,
                                              int64_t *buf) {
  if (g->gid != NULL) return g->gid + row;
  zb__direct_ids(&g->direct, row, m, buf);
  return buf;
}

/* The rows of every group in row order: rows[offsets[g], offsets[g+1]) are
 * the rows of group g.  The groups are split into n_buckets ranges
 * [bucket[b], bucket[b+1]) of about equal size that tasks may own. */
typedef struct zb__group_csr {
  int64_t n_groups;
  int64_t *offsets; /* n_groups + 1 */
  int64_t *rows;
  int64_t n_buckets;
  int64_t *bucket; /* n_buckets + 1 group boundaries */
} zb__group_csr;

zb_status zb__group_csr_init(const zb__grouping *g, zb__group_csr *csr, zb_error *err);

/* A grouping from an int64 column of group ids in [0, n_groups) (a null
 * id: the row is in no group); an id out of range is a ZB_EINDEX naming op
 * and the row.  On failure g holds nothing. */
zb_status zb__grouping_from_ids(const zb_column *ids, int64_t n_groups, const char *op,
                                zb__grouping *g, zb_error *err);
void zb__group_csr_reset(zb__group_csr *csr);
/* When ids (INT64, borrowed) has no nulls and its values are non-decreasing
 * and inside [0, n_groups) -- the rows already in group order, as a take
 * by a stable sort of the ids leaves them -- *sorted is true and csr holds
 * the groups' boundaries and buckets with rows NULL: group g is rows
 * [offsets[g], offsets[g+1]).  Otherwise *sorted is false and csr is
 * empty.  An error only for lack of memory. */
zb_status zb__group_csr_sorted(const zb_column *ids, int64_t n_groups, bool *sorted,
                               zb__group_csr *csr, zb_error *err);

/* src/cpu/groupby_agg.c: column agg of the result, one value per group of
 * g (t and aggs validated by the core).  The rows of each group (csr) are
 * found when an aggregation needs them; g's ids are then materialized. */
zb_status zb__group_aggregate(const zb_table *t, zb__grouping *g, int64_t n_aggs,
                              const zb_agg *aggs, zb_column **out_cols, zb_error *err);

/* ---- CPU entry points ---------------------------------------------------- */

/* ids non-NULL: also the rows' group ids (as zb__cpu_group_ids) and
 * *n_groups, from the same grouping (zb_table_groupby_keep_ids). */
zb_status zb__cpu_groupby(const zb_table *t, int64_t n_keys, const int64_t *keys, bool dropna,
                          bool sort, int64_t n_aggs, const zb_agg *aggs, zb_table **out,
                          zb_column **ids, int64_t *n_groups, zb_error *err);
/* src/cpu/groupby_ids.c: aggregate t's rows by ids (INT64, null: no group)
 * in [0, n_groups): one column per aggregation (zb_table_groupby_ids). */
zb_status zb__cpu_groupby_ids(const zb_table *t, const zb_column *ids, int64_t n_groups,
                              int64_t n_aggs, const zb_agg *aggs, zb_table **out,
                              zb_error *err);
/* src/cpu/segment_agg.c: aggregate the segments [offsets[g], offsets[g+1])
 * of t's rows (offsets checked by the core; zb_table_groupby_segments). */
zb_status zb__cpu_groupby_segments(const zb_table *t, const zb_column *offsets, int64_t n_aggs,
                                   const zb_agg *aggs, zb_table **out, zb_error *err);
/* src/cpu/groupby_csr.c: zb_column_group_order's rows by group and their
 * ids (ids' range checked here). */
zb_status zb__cpu_group_order(const zb_column *ids, int64_t n_groups, zb_column **order,
                              zb_column **sorted_ids, zb_error *err);
zb_status zb__cpu_group_ids(const zb_table *t, int64_t n_keys, const int64_t *keys,
                            bool dropna, bool sort, zb_column **out, int64_t *n_groups,
                            zb_error *err);
zb_status zb__cpu_group_cumcount(const zb_column *group_ids, int64_t n_groups, bool ascending,
                                 zb_column **out, zb_error *err);
/* src/cpu/group_moments.c: zb_column_group_moment (checked by the core;
 * the ids' range checked here). */
zb_status zb__cpu_group_moment(const zb_column *col, const zb_column *ids, int64_t n_groups,
                               zb_moment_op op, bool skipna, zb_column **out, zb_error *err);
/* src/cpu/group_lag.c */
zb_status zb__cpu_group_lag(const zb_column *group_ids, int64_t n_groups, int64_t periods,
                            zb_column **out, zb_error *err);

/* One step of pandas' Kahan summation of a group (groupby.pyx: group_sum,
 * group_mean), so that a group's float sum is pandas' to the bit when its
 * values are added in row order: y = x - c, t = s + y, c = (t - s) - y,
 * s = t.  The result is s (c is not added back).  group_sum resets c to 0
 * when it is not finite (an infinity among the values); group_mean only
 * when it is NaN (so a mean whose sum overflowed becomes NaN at the
 * group's next value, as in pandas). */
typedef enum zb__kahan_rule { ZB__KAHAN_SUM, ZB__KAHAN_MEAN } zb__kahan_rule;

static inline void zb__pd_kahan(double *s, double *c, double x, zb__kahan_rule rule) {
  double y = x - *c;
  double t = *s + y;
  double k = (t - *s) - y;
  if (rule == ZB__KAHAN_SUM ? !isfinite(k) : k != k) k = 0.0;
  *c = k;
  *s = t;
}

/* The same step in float: pandas sums a float32 column in float32. */
static inline void zb__pd_kahanf(float *s, float *c, float x, zb__kahan_rule rule) {
  float y = x - *c;
  float t = *s + y;
  float k = (t - *s) - y;
  if (rule == ZB__KAHAN_SUM ? !isfinite(k) : k != k) k = 0.0f;
  *c = k;
  *s = t;
}

/* Whether float column c has no null and no NaN (false for other types). */
zb_status zb__float_complete(const zb_column *c, bool *complete, zb_error *err);
/* np.add.reduceat's sum of rows [row, row + n) of float column c (n >= 1):
 * the first value plus numpy's pairwise sum of the rest, in double (f32: in
 * float).  pandas sums a group that way when the column has no missing
 * value and the rows lie by group (src/cpu/groupby_agg.c). */
double zb__reduceat_sum(const zb_column *c, int64_t row, int64_t n, bool f32);

#endif /* ZAMBEZI_CPU_GROUPBY_H */
