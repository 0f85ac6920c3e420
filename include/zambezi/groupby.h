/*
 * groupby.h -- group-by aggregation over the rows of a table: the rows are
 * split into groups of equal key values and every aggregation yields one
 * value per group (src/core/groupby_ops.c checks and dispatches; the CPU
 * kernels are src/cpu/groupby.c and src/cpu/groupby_agg.c).
 *
 * Key identity follows the hash operations of compute.h: integers, bools,
 * dates and timestamps by value, strings by bytes, categoricals by their
 * category strings, floats with -0.0 == 0.0; a NaN key counts as a null key
 * (pandas treats NaN keys as missing).  Null keys form a group of their own
 * unless dropna is set, in which case every row with a null in any key is
 * left out (pandas' default dropna=True).
 *
 * Group order: sort -> by the keys ascending, the first key most
 * significant, nulls last (strings byte-wise, categoricals in category
 * order as pandas does, bools false < true); !sort -> order of first
 * appearance.  Results never depend on the thread count.
 */
#ifndef ZAMBEZI_GROUPBY_H
#define ZAMBEZI_GROUPBY_H

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Aggregations.  Nulls are skipped and so is NaN (pandas' skipna).  Result
 * types follow pandas:
 *   SUM      signed ints and bool -> INT64 (wrapping on overflow, like
 *            numpy), unsigned -> UINT64, floats -> FLOAT64 (compensated);
 *            0 for a group without values.
 *   MEAN     FLOAT64 (integers summed exactly, then divided); null when the
 *            group has no values.
 *   MIN, MAX the column's type; numbers, bools, strings (byte-wise), dates,
 *            timestamps, durations, ordered categoricals (in category order:
 *            a categorical of the same categories; unordered ones:
 *            ZB_ETYPE); null when the group has no values.
 *   COUNT    INT64, the non-null (non-NaN) values.   SIZE  INT64, the rows
 *            (column ignored).
 *   STD, VAR FLOAT64 with `ddof`; null when count - ddof <= 0.
 *   MEDIAN, QUANTILE  FLOAT64, linear interpolation at `q` (MEDIAN: 0.5).
 *   FIRST, LAST  the first / last non-null value of the group (any dtype).
 *   NUNIQUE  INT64, distinct non-null values (null and NaN counted once each
 *            as a value when count_na).
 *   PROD     like SUM (ints wrap), 1 for a group without values.
 *   ANY, ALL BOOL of x != 0 (no values: ANY false, ALL true).
 *   CORR     FLOAT64, Pearson correlation of `column` with `column2` over
 *            the rows where both are valid; null with fewer than 2 such rows
 *            or a zero variance.
 * SUM, MEAN, STD, VAR, MEDIAN, QUANTILE, PROD, ANY, ALL and CORR take
 * numeric or bool columns (ZB_ETYPE otherwise). */
typedef enum zb_agg_op {
  ZB_AGG_SUM = 0,
  ZB_AGG_MEAN,
  ZB_AGG_MIN,
  ZB_AGG_MAX,
  ZB_AGG_COUNT,
  ZB_AGG_SIZE,
  ZB_AGG_STD,
  ZB_AGG_VAR,
  ZB_AGG_MEDIAN,
  ZB_AGG_QUANTILE,
  ZB_AGG_FIRST,
  ZB_AGG_LAST,
  ZB_AGG_NUNIQUE,
  ZB_AGG_PROD,
  ZB_AGG_ANY,
  ZB_AGG_ALL,
  ZB_AGG_CORR,
  ZB_AGG_OP_COUNT
} zb_agg_op;

/* "sum", "mean", "min", "max", "count", "size", "std", "var", "median",
 * "quantile", "first", "last", "nunique", "prod", "any", "all", "corr". */
ZB_API const char *zb_agg_op_name(zb_agg_op op);
/* The op named name (as above); ZB_EINVAL naming it when unknown. */
ZB_API zb_status zb_agg_op_from_name(const char *name, zb_agg_op *out, zb_error *err);

/* One aggregation.  Zero-initialise and set what the op uses. */
typedef struct zb_agg {
  zb_agg_op op;
  int64_t column;   /* input column index (SIZE: ignored) */
  int64_t column2;  /* CORR: the second column index */
  int64_t ddof;     /* STD, VAR: >= 0 (pandas' default is 1) */
  double q;         /* QUANTILE: in [0, 1] */
  bool count_na;    /* NUNIQUE: count null/NaN as a value (pandas dropna=False) */
  const char *name; /* output column name (borrowed); NULL: the input column's
                       name ("size" for SIZE) */
} zb_agg;

/* Group the rows of t by the columns keys[0..n_keys) (n_keys >= 1, indices
 * into t) and aggregate.  *out (new reference) has one row per group in the
 * group order above: first the key columns (named as in t, one value per
 * group), then one column per aggregation, in order.  Output names must be
 * unique (ZB_EINVAL names the duplicate).  On failure *out is NULL. */
ZB_API zb_status zb_table_groupby(const zb_table *t, int64_t n_keys, const int64_t *keys,
                                  bool dropna, bool sort, int64_t n_aggs, const zb_agg *aggs,
                                  zb_table **out, zb_error *err);

/* The group of every row: *out (new reference) is an INT64 column of
 * t->num_rows values in [0, *n_groups), numbered in the group order above
 * (so group i is row i of zb_table_groupby's result with the same keys,
 * dropna and sort); null for rows left out by dropna.  On failure *out is
 * NULL. */
ZB_API zb_status zb_table_group_ids(const zb_table *t, int64_t n_keys, const int64_t *keys,
                                    bool dropna, bool sort, zb_column **out, int64_t *n_groups,
                                    zb_error *err);

/* Grouping once, aggregating many times.  zb_table_groupby_keep_ids is
 * zb_table_groupby that also hands back each row's group: *ids (new
 * reference) and *n_groups as zb_table_group_ids would give them for the
 * same keys, dropna and sort, from the same grouping pass on the CPU.
 * zb_table_groupby_ids then aggregates rows by such ids without grouping
 * them again: ids is an INT64 column of t->num_rows values in
 * [0, n_groups) (ZB_EINDEX naming the row otherwise), null for a row in
 * no group; *out (new reference) has n_groups rows and one column per
 * aggregation (no key columns), equal to the aggregation columns of
 * zb_table_groupby over the keys that made the ids.  Output names must be
 * unique.  On failure every output is NULL (n_groups 0). */
ZB_API zb_status zb_table_groupby_keep_ids(const zb_table *t, int64_t n_keys,
                                           const int64_t *keys, bool dropna, bool sort,
                                           int64_t n_aggs, const zb_agg *aggs, zb_table **out,
                                           zb_column **ids, int64_t *n_groups, zb_error *err);
ZB_API zb_status zb_table_groupby_ids(const zb_table *t, const zb_column *ids, int64_t n_groups,
                                      int64_t n_aggs, const zb_agg *aggs, zb_table **out,
                                      zb_error *err);

/* The rows of each group in row order, from one stable counting sort of
 * the group ids: *order (INT64) lists the rows whose id is not null, by
 * group and then by row; *sorted_ids (INT64, no nulls) holds their ids in
 * that order (runs of each group's id) -- what a stable sort of the ids
 * followed by a gather of the ids by it gives, without the gather.  ids
 * is an INT64 column with values in [0, n_groups) (ZB_EINDEX naming the
 * row otherwise), as zb_table_group_ids makes them.  On failure both are
 * NULL. */
ZB_API zb_status zb_column_group_order(const zb_column *ids, int64_t n_groups,
                                       zb_column **order, zb_column **sorted_ids,
                                       zb_error *err);

/* Aggregation over groups of consecutive rows (segments): group g is the
 * rows [offsets[g], offsets[g + 1]) -- resample bins of times in order,
 * rows already laid out by group.  offsets is an INT64 column without
 * nulls of n_groups + 1 non-decreasing values in [0, t->num_rows]
 * (ZB_EINDEX naming the first that is not); rows outside
 * [offsets[0], offsets[n_groups]) are in no group.  *out (new reference)
 * has n_groups rows and one column per aggregation, of the types and
 * values of zb_table_groupby_ids over the same groups (float sums and
 * means Neumaier-compensated in row order, as there; within rounding of
 * its chunked sums).  Each group is reduced in place by one task -- no id
 * per row, no per-row accumulator lookup.  Supports SUM and MEAN of
 * numbers and bools; MIN and MAX of those, dates, timestamps and
 * durations; COUNT, SIZE, FIRST and LAST of any fixed-width column;
 * others are ZB_ENOTSUP naming the aggregation (group by ids instead).
 * offsets lie in host memory (ZB_EINVAL otherwise); t anywhere.
 * Output names must be unique.  On failure *out is NULL. */
ZB_API zb_status zb_table_groupby_segments(const zb_table *t, const zb_column *offsets,
                                           int64_t n_aggs, const zb_agg *aggs, zb_table **out,
                                           zb_error *err);

/* The position of each row within its group (pandas' cumcount): an INT64
 * column, 0 for the first row of a group in row order (ascending) or for
 * the last one (!ascending); null where group_ids is null.  group_ids is an
 * INT64 column with values in [0, n_groups) (ZB_EINDEX otherwise), as made
 * by zb_table_group_ids. */
ZB_API zb_status zb_column_group_cumcount(const zb_column *group_ids, int64_t n_groups,
                                          bool ascending, zb_column **out, zb_error *err);

/* pandas' group-by skew and kurt (zb_column_group_moment). */
typedef enum zb_moment_op {
  ZB_MOMENT_SKEW = 0, /* the adjusted Fisher-Pearson skewness (pandas' skew) */
  ZB_MOMENT_KURT,     /* Fisher's excess kurtosis, unbiased (pandas' kurt) */
  ZB_MOMENT_OP_COUNT
} zb_moment_op;

/* Per group, the skewness or kurtosis of col's values in it: a FLOAT64
 * column of n_groups rows.  col is a number or bool column; group_ids an
 * INT64 column of col's length with values in [0, n_groups) (ZB_EINDEX
 * otherwise), null for rows in no group, as zb_table_group_ids makes it.
 * Missing values and NaN are skipped; with !skipna a group holding one is
 * null.  A group with fewer than 3 (skew) or 4 (kurt) values, or whose
 * values do not vary, is null (pandas: NaN).  Both columns on one device
 * (ZB_EINVAL otherwise).  group_ids NULL with n_groups 1: the whole column
 * is one group (the Series' skew / kurt: one rule for both). */
ZB_API zb_status zb_column_group_moment(const zb_column *col, const zb_column *group_ids,
                                        int64_t n_groups, zb_moment_op op, bool skipna,
                                        zb_column **out, zb_error *err);

/* The row `periods` rows before each row in its group (after it when
 * periods < 0), pandas' groupby shift partner: an INT64 column of row
 * positions, null where the group has no such row or group_ids is null;
 * periods 0 gives every row itself (null ids too, as pandas' shift(0)).  group_ids as for zb_column_group_cumcount.  One pass
 * over the rows in order (in reverse for periods < 0) keeping each group's
 * last |periods| rows: n_groups * |periods| int64 of state (ZB_ENOMEM when
 * that cannot be had). */
ZB_API zb_status zb_column_group_lag(const zb_column *group_ids, int64_t n_groups,
                                     int64_t periods, zb_column **out, zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_GROUPBY_H */
