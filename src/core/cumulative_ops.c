/*
 * cumulative_ops.c -- the checked entry points of pandas' cumulative
 * operations (zambezi/compute.h: zb_column_cumulative and
 * zb_column_group_cumulative, ZB__OP_CUMULATIVE) and their type rule, and
 * of the one-pass diff of a column (zb_column_diff, ZB__OP_DIFF).
 *
 * Validation happens here once: the column type the op takes, the group
 * ids' type and length.  The backends trust what this file admits; a group
 * id outside [0, n_groups) is found by the kernel's range check.
 */
#include "core/internal.h"

static const char *const k_cum_names[ZB_CUM_OP_COUNT] = {"cumsum", "cumprod", "cummin",
                                                         "cummax"};

const char *zb_cum_op_name(zb_cum_op op) {
  if ((int)op < 0 || op >= ZB_CUM_OP_COUNT) return "unknown";
  return k_cum_names[op];
}

zb_status zb_cum_result_type(zb_type_id t, zb_cum_op op, zb_type_id *out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "cumulative: NULL output");
  if ((int)op < 0 || op >= ZB_CUM_OP_COUNT)
    return zb_error_set(err, ZB_EINVAL, "cumulative: unknown operation %d", (int)op);
  bool minmax = op == ZB_CUM_MIN || op == ZB_CUM_MAX;
  if (zb_type_is_float(t) || (minmax && (zb_type_is_integer(t) || t == ZB_DATE32 ||
                                         t == ZB_TIMESTAMP || t == ZB_DURATION)) ||
      (t == ZB_DURATION && op == ZB_CUM_SUM)) {
    *out = t;
    return ZB_OK;
  }
  if (zb_type_is_integer(t)) {
    *out = zb_type_is_signed(t) ? ZB_INT64 : ZB_UINT64;
    return ZB_OK;
  }
  return zb_error_set(err, ZB_ETYPE, "%s is not supported for a %s column", k_cum_names[op],
                      zb_type_name(t));
}

static zb_status cumulative(const zb_column *col, const zb_column *ids, int64_t n_groups,
                            zb_cum_op op, bool skipna, zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "cumulative: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "cumulative: NULL column");
  zb_type_id result;
  ZB_RETURN_NOT_OK(zb_cum_result_type(col->type, op, &result, err));
  if (col->type == ZB_DURATION && op == ZB_CUM_SUM) {
    /* the int64 running sum of the counts, a duration again */
    zb_column *raw = NULL, *sum = NULL;
    zb_status st = zb__column_retag(col, ZB_INT64, col->unit, NULL, &raw, err);
    if (st == ZB_OK) st = cumulative(raw, ids, n_groups, op, skipna, &sum, err);
    if (st == ZB_OK) st = zb__column_retag(sum, ZB_DURATION, col->unit, NULL, out, err);
    zb_column_release(raw);
    zb_column_release(sum);
    return st;
  }
  zb__call c = {.op = ZB__OP_CUMULATIVE, .variant = (int32_t)op, .name = k_cum_names[op]};
  if (ids != NULL) {
    if (ids->type != ZB_INT64)
      return zb_error_set(err, ZB_ETYPE, "%s: group ids must be int64, not %s", k_cum_names[op],
                          zb_type_name(ids->type));
    if (ids->length != col->length)
      return zb_error_set(err, ZB_EINVAL, "%s: %lld group ids for %lld rows", k_cum_names[op],
                          (long long)ids->length, (long long)col->length);
    if (n_groups < 0)
      return zb_error_set(err, ZB_EINVAL, "%s: n_groups must be >= 0, not %lld",
                          k_cum_names[op], (long long)n_groups);
    if (!zb_device_equal(ids->device, col->device))
      return zb_error_set(err, ZB_EINVAL, "%s: group ids and data on different devices",
                          k_cum_names[op]);
    c.variant += ZB_CUM_OP_COUNT;
  }
  c.in[0] = col;
  c.in[1] = ids;
  c.p.cumulative.skipna = skipna;
  c.p.cumulative.n_groups = ids != NULL ? n_groups : 0;
  c.p.cumulative.result = result;
  return zb__dispatch_column(col->device, &c, out, err);
}

zb_status zb_column_cumulative(const zb_column *col, zb_cum_op op, bool skipna, zb_column **out,
                               zb_error *err) {
  return cumulative(col, NULL, 0, op, skipna, out, err);
}

zb_status zb_column_group_cumulative(const zb_column *col, const zb_column *group_ids,
                                     int64_t n_groups, zb_cum_op op, bool skipna,
                                     zb_column **out, zb_error *err) {
  if (group_ids == NULL) {
    if (out != NULL) *out = NULL;
    return zb_error_set(err, ZB_EINVAL, "cumulative: NULL group ids");
  }
  return cumulative(col, group_ids, n_groups, op, skipna, out, err);
}

zb_status zb_column_diff(const zb_column *col, int64_t periods, zb_type_id result,
                         zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "diff: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "diff: NULL column");
  if (!zb_type_is_integer(col->type) && !zb_type_is_float(col->type))
    return zb_error_set(err, ZB_ETYPE, "diff: the column must hold numbers, not %s",
                        zb_type_name(col->type));
  if (result != ZB_FLOAT32 && result != ZB_FLOAT64 &&
      !(zb_type_is_integer(col->type) && result == col->type))
    return zb_error_set(err, ZB_ETYPE,
                        "diff: the result must be float32, float64 or the column's own integer "
                        "type (%s), not %s",
                        zb_type_name(col->type), zb_type_name(result));
  if (periods == INT64_MIN)
    return zb_error_set(err, ZB_EINVAL, "diff: periods out of range");
  zb__call c = {.op = ZB__OP_DIFF, .variant = (int32_t)result, .name = "diff"};
  c.in[0] = col;
  c.p.lag.periods = periods;
  return zb__dispatch_column(col->device, &c, out, err);
}
