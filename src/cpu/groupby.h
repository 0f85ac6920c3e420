/*
 * groupby.h -- what the CPU group-by files share: the grouping of rows
 * (src/cpu/groupby.c: a group id per row, by direct indexing or by
 * partitioned hashing), the rows of each group in row order (CSR), the
 * aggregation kernels (src/cpu/groupby_agg.c), and the CPU entry points
 * that src/core/groupby_ops.c calls after validating the arguments.
 */
#ifndef ZAMBEZI_CPU_GROUPBY_H
#define ZAMBEZI_CPU_GROUPBY_H

#include "cpu/kernels.h"

/* The groups of the rows of some key columns.  gid[r] is the group of row
 * r in [0, n_groups), or -1 for a row left out (dropna); first[g] is the
 * first row of group g.  Both arrays are owned. */
typedef struct zb__grouping {
  int64_t n_rows;
  int64_t n_groups;
  int64_t *gid;
  int64_t *first;
} zb__grouping;

/* Group the rows of n_keys host columns of equal length (borrowed).  Group
 * ids follow groupby.h's group order (sort, or first appearance).  On
 * failure g holds nothing. */
zb_status zb__group_rows(const zb_column *const *keys, int64_t n_keys, bool dropna, bool sort,
                         zb__grouping *g, zb_error *err);
void zb__grouping_reset(zb__grouping *g);

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
void zb__group_csr_reset(zb__group_csr *csr);

/* src/cpu/groupby_agg.c: column agg of the result, one value per group of
 * g (t and aggs validated by the core).  csr may be NULL; it is then built
 * when an aggregation needs it. */
zb_status zb__group_aggregate(const zb_table *t, const zb__grouping *g, int64_t n_aggs,
                              const zb_agg *aggs, zb_column **out_cols, zb_error *err);

/* ---- CPU entry points ---------------------------------------------------- */

zb_status zb__cpu_groupby(const zb_table *t, int64_t n_keys, const int64_t *keys, bool dropna,
                          bool sort, int64_t n_aggs, const zb_agg *aggs, zb_table **out,
                          zb_error *err);
zb_status zb__cpu_group_ids(const zb_table *t, int64_t n_keys, const int64_t *keys,
                            bool dropna, bool sort, zb_column **out, int64_t *n_groups,
                            zb_error *err);
zb_status zb__cpu_group_cumcount(const zb_column *group_ids, int64_t n_groups, bool ascending,
                                 zb_column **out, zb_error *err);

#endif /* ZAMBEZI_CPU_GROUPBY_H */
