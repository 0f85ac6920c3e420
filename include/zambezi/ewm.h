/*
 * ewm.h -- pandas' exponentially weighted moving statistics
 * (Series.ewm(span=3).mean() and the rest, also per group) on the columns
 * of a table.
 */
#ifndef ZAMBEZI_EWM_H
#define ZAMBEZI_EWM_H

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The statistics (pandas' ExponentialMovingWindow methods). */
typedef enum zb_ewm_op {
  ZB_EWM_MEAN = 0,
  ZB_EWM_SUM,
  ZB_EWM_VAR,
  ZB_EWM_STD,
  ZB_EWM_COV,
  ZB_EWM_CORR,
  ZB_EWM_OP_COUNT
} zb_ewm_op;

/* "mean", "sum", "var", "std", "cov", "corr" ("unknown" otherwise). */
ZB_API const char *zb_ewm_op_name(zb_ewm_op op);

/* The decay and pandas' rules.  alpha = 1 / (1 + com): a value's weight is
 * multiplied by 1 - alpha at each later row (adjust: the weights of the
 * values seen so far are normalized; else the recursive form
 * y = (1 - alpha) y + alpha x).  A result needs min_periods non-missing
 * values so far (pandas counts at least 1).  ignore_na: a missing value
 * does not age the earlier ones.  bias: var / std / cov without the
 * weights' bias correction.  halflife: with times, the times' units per
 * half-life (mean only). */
typedef struct zb_ewm_options {
  double com;          /* >= 0 */
  int64_t min_periods; /* >= 0 */
  bool adjust;
  bool ignore_na;
  bool bias;
  double halflife; /* > 0 when times are given */
} zb_ewm_options;

/* op of every column of t (FLOAT64 columns; callers cast other numbers
 * first), each row's result over the rows up to it (of its group): a new
 * table of FLOAT64 columns named as t's, null where the row has fewer than
 * min_periods values so far or the result is NaN.  A missing value (null
 * or NaN) is skipped as pandas skips it.  cov and corr pair t's columns:
 * columns 2k and 2k+1 give result column k (named as column 2k; a row
 * counts when both are present); t then has an even number of columns.
 *
 * group_ids NULL: one sequence per column, the whole column.  Else an INT64
 * column of t's length with values in [0, n_groups) (ZB_EINDEX otherwise):
 * each group is its own sequence, in row order; a row whose id is null is
 * null in the result.
 *
 * times NULL: equally spaced rows.  Else (mean only) a FLOAT64 column of
 * t's length without nulls: a value ages by (1 - alpha) ^ ((t[r] -
 * t[prev]) / opt->halflife) between consecutive rows of its sequence,
 * pandas' times= form (whose alpha is 1/2 unless com is given).
 *
 * The numerics are pandas' (aggregations.pyx ewm, ewmcov), step for step.
 * The sequences (column x group) run in parallel; each is serial. */
ZB_API zb_status zb_table_ewm(const zb_table *t, const zb_column *group_ids, int64_t n_groups,
                              const zb_column *times, zb_ewm_op op, const zb_ewm_options *opt,
                              zb_table **out, zb_error *err);

#ifdef __cplusplus
}
#endif

#endif
