/*
 * resample_ops.c -- the checked entry points of zambezi/resample.h:
 * zb_column_time_range and zb_column_time_bins (ZB__OP_TIME_BINS, variant
 * 0 and 1).  Each validates its arguments once and hands the call to
 * zb__dispatch; no GPU backend runs them yet, so times on a GPU are binned
 * on the CPU over host copies (recorded in profiles).
 */
#include <string.h>

#include "core/internal.h"
#include "zambezi/resample.h"

static zb_status check_times(const zb_column *times, const char *what, zb_error *err) {
  if (times == NULL) return zb_error_set(err, ZB_EINVAL, "%s: NULL column", what);
  if (times->type != ZB_TIMESTAMP && times->type != ZB_INT64)
    return zb_error_set(err, ZB_ETYPE, "%s: the times must be a timestamp or int64 column, "
                        "not %s", what, zb_type_name(times->type));
  return ZB_OK;
}

zb_status zb_column_time_range(const zb_column *times, zb_time_range *out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "time_range: NULL output");
  memset(out, 0, sizeof *out);
  out->sorted = true;
  ZB_RETURN_NOT_OK(check_times(times, "time_range", err));
  zb__call c = {.op = ZB__OP_TIME_BINS, .variant = 0, .name = "time_range"};
  c.in[0] = times;
  c.p.time_bins.range = out;
  return zb__dispatch(times->device, &c, err);
}

zb_status zb_column_time_bins(const zb_column *times, int64_t scale, int64_t base,
                              int64_t width, int64_t n_bins, zb_column **ids, int64_t *runs,
                              zb_error *err) {
  if (ids == NULL || runs == NULL) return zb_error_set(err, ZB_EINVAL, "time_bins: NULL output");
  *ids = NULL;
  *runs = 0;
  ZB_RETURN_NOT_OK(check_times(times, "time_bins", err));
  if (scale < 1 || width < 1 || n_bins < 0)
    return zb_error_set(err, ZB_EINVAL, "time_bins: scale (%lld) and width (%lld) must be >= 1 "
                        "and n_bins (%lld) >= 0", (long long)scale, (long long)width,
                        (long long)n_bins);
  zb__call c = {.op = ZB__OP_TIME_BINS, .variant = 1, .name = "time_bins"};
  c.in[0] = times;
  c.p.time_bins.scale = scale;
  c.p.time_bins.base = base;
  c.p.time_bins.width = width;
  c.p.time_bins.n_bins = n_bins;
  ZB_RETURN_NOT_OK(zb__dispatch(times->device, &c, err));
  *ids = c.out[0];
  *runs = c.out_count;
  return ZB_OK;
}
