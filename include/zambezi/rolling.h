/*
 * rolling.h -- pandas' moving-window statistics (Series.rolling(w).mean()
 * and the rest, expanding windows, and both per group) on one column.
 */
#ifndef ZAMBEZI_ROLLING_H
#define ZAMBEZI_ROLLING_H

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The statistics of a window (pandas' Rolling methods). */
typedef enum zb_roll_op {
  ZB_ROLL_COUNT = 0,
  ZB_ROLL_SUM,
  ZB_ROLL_MEAN,
  ZB_ROLL_MIN,
  ZB_ROLL_MAX,
  ZB_ROLL_VAR,
  ZB_ROLL_STD,
  ZB_ROLL_SKEW,
  ZB_ROLL_KURT,
  ZB_ROLL_MEDIAN,
  ZB_ROLL_QUANTILE,
  ZB_ROLL_COV,  /* of two columns: zb_column_rolling_pair */
  ZB_ROLL_CORR, /* of two columns: zb_column_rolling_pair */
  ZB_ROLL_OP_COUNT
} zb_roll_op;

/* How quantile picks between the two values around its rank (numpy's and
 * pandas' names). */
typedef enum zb_roll_interp {
  ZB_INTERP_LINEAR = 0,
  ZB_INTERP_LOWER,
  ZB_INTERP_HIGHER,
  ZB_INTERP_NEAREST,
  ZB_INTERP_MIDPOINT,
  ZB_INTERP_COUNT
} zb_roll_interp;

/* "count", "sum", "mean", "min", "max", "var", "std", "skew", "kurt",
 * "median", "quantile", "cov", "corr" ("unknown" otherwise). */
ZB_API const char *zb_roll_op_name(zb_roll_op op);

/* The window of a row.  A row's window is the `window` rows ending with it
 * (center: the `window` rows around it, (window - 1) / 2 of them after it),
 * cut at the ends of the column (of the group); an expanding window is a
 * window as long as the column.  A result needs min_periods non-missing
 * values in the window (count: min_periods rows in the window, as pandas;
 * var/std at least 1 and more than ddof, skew 3, kurt 4 values). */
typedef struct zb_rolling_options {
  int64_t window;      /* >= 0 (0: every window is empty) */
  int64_t min_periods; /* >= 0, <= window */
  bool center;
  int32_t ddof;            /* var / std (pandas' default 1) */
  double q;                /* quantile, in [0, 1] */
  zb_roll_interp interp;   /* quantile */
} zb_rolling_options;

/* op over the window of each row of col, a FLOAT64 column (callers cast
 * other numbers first): a new FLOAT64 column, null where the window has
 * too few values.  A missing value (null or NaN) is left out of the
 * window's values.  The numerics are pandas': sums and moments are added
 * and removed as rows enter and leave the window with compensated
 * (Kahan) sums and Welford's updates; min / max keep a monotonic deque;
 * median / quantile an order-statistics tree over the window's values.
 * The CPU splits the rows into morsels of a fixed size, each starting its
 * window up to `window` rows early, so results may differ from one
 * sequential pass by rounding (never with the thread count). */
ZB_API zb_status zb_column_rolling(const zb_column *col, zb_roll_op op,
                                   const zb_rolling_options *opt, zb_column **out,
                                   zb_error *err);

/* The same within groups: each row's window holds rows of its own group
 * only (in row order); group_ids is an INT64 column of col's length with
 * values in [0, n_groups) (ZB_EINDEX otherwise), as zb_table_group_ids
 * makes; a row whose id is null is null in the result. */
ZB_API zb_status zb_column_group_rolling(const zb_column *col, const zb_column *group_ids,
                                         int64_t n_groups, zb_roll_op op,
                                         const zb_rolling_options *opt, zb_column **out,
                                         zb_error *err);

/* The same with each row's window given: row i's window is rows
 * [starts[i], ends[i]) -- pandas' time-based windows (rolling("2D"), whose
 * bounds the caller finds by binary search on the times).  starts and ends
 * are INT64 columns of col's length without nulls, both non-decreasing,
 * starts[i] <= ends[i] <= length (ZB_EINVAL otherwise); opt->window is at
 * least the longest window (ends[i] - starts[i]); opt->center is not used.
 * count needs min_periods rows in the window, as pandas. */
ZB_API zb_status zb_column_rolling_bounds(const zb_column *col, const zb_column *starts,
                                          const zb_column *ends, zb_roll_op op,
                                          const zb_rolling_options *opt, zb_column **out,
                                          zb_error *err);

/* The covariance (ZB_ROLL_COV, divided by count - ddof) or the Pearson
 * correlation (ZB_ROLL_CORR) of each row's window of x with the same rows
 * of y, over the rows where both have a value (a missing value on either
 * side, null, NaN or +-inf, leaves the pair out), as pandas' rolling
 * cov(other) / corr(other): a new FLOAT64 column, null where the window
 * has fewer than min_periods pairs or no more than ddof of them, and (corr)
 * where either side does not vary.  x and y are FLOAT64 columns of one
 * length on one device.  The windows: fixed (opt), or given by starts /
 * ends as for zb_column_rolling_bounds (both or neither).  The window's
 * co-moment is kept as pairs enter and leave (Welford's updates, with the
 * two sides' sums of squares for corr); a removal that cancels most digits
 * of a sum of squares makes the window be summed again. */
ZB_API zb_status zb_column_rolling_pair(const zb_column *x, const zb_column *y,
                                        const zb_column *starts, const zb_column *ends,
                                        zb_roll_op op, const zb_rolling_options *opt,
                                        zb_column **out, zb_error *err);

#ifdef __cplusplus
}
#endif

#endif
