/*
 * resample.h -- the time bins of pandas' resample with a fixed span
 * ("1h", "15min", "2D"): the range and order of a timestamp column, and
 * each row's bin as a group id for zb_table_groupby_ids
 * (src/core/resample_ops.c checks and dispatches; the CPU kernels are in
 * src/cpu/time_bins.c).
 */
#ifndef ZAMBEZI_RESAMPLE_H
#define ZAMBEZI_RESAMPLE_H

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What zb_column_time_range finds: the number of non-null rows (valid),
 * the smallest and largest of them (lo, hi, in the column's own ticks; 0
 * when valid is 0), and whether they are non-decreasing in row order
 * (sorted; nulls skipped). */
typedef struct zb_time_range {
  int64_t valid, lo, hi;
  bool sorted;
} zb_time_range;

/* The range and order of times (a TIMESTAMP or INT64 column), in one
 * parallel pass.  *out is filled on success. */
ZB_API zb_status zb_column_time_range(const zb_column *times, zb_time_range *out,
                                      zb_error *err);

/* Each row's bin: floor((t * scale - base) / width) for t the row's value
 * of times (a TIMESTAMP or INT64 column); null where t is null.  scale >= 1
 * (the ticks' length in the unit base and width are in), width >= 1.  A
 * bin outside [0, n_bins), or t * scale - base outside int64, is
 * ZB_EINDEX naming the row.  On success *ids is a new INT64 column (values
 * in [0, n_bins): group ids for zb_table_groupby_ids) the caller owns and
 * *runs the number of times a row's bin differs from the bin of the
 * non-null row before it, plus one (0 without non-null rows): the number
 * of distinct bins when the times are sorted.  On failure *ids is NULL. */
ZB_API zb_status zb_column_time_bins(const zb_column *times, int64_t scale, int64_t base,
                                     int64_t width, int64_t n_bins, zb_column **ids,
                                     int64_t *runs, zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_RESAMPLE_H */
