/*
 * rolling_ops.c -- the checked entry points of pandas' moving-window
 * statistics (zambezi/rolling.h: zb_column_rolling, zb_column_rolling_bounds,
 * zb_column_group_rolling and zb_column_rolling_pair, ZB__OP_ROLLING).
 *
 * Validation happens here once: the column type (FLOAT64), the window
 * options, the group ids' type and length, given windows' order and range.  The backends trust what this
 * file admits; a group id outside [0, n_groups) is found by the kernel's
 * range check.
 */
#include "core/internal.h"

static const char *const k_roll_names[ZB_ROLL_OP_COUNT] = {
    "count", "sum", "mean", "min", "max", "var", "std", "skew", "kurt", "median", "quantile",
    "cov", "corr"};

const char *zb_roll_op_name(zb_roll_op op) {
  if ((int)op < 0 || op >= ZB_ROLL_OP_COUNT) return "unknown";
  return k_roll_names[op];
}

/* starts / ends: int64, col's length, no nulls, on col's device; on the
 * host, also non-decreasing with starts[i] <= ends[i] <= length. */
static zb_status check_bounds(const zb_column *col, const zb_column *starts,
                              const zb_column *ends, int64_t window, const char *name,
                              zb_error *err) {
  const zb_column *b[2] = {starts, ends};
  for (int k = 0; k < 2; k++) {
    if (b[k] == NULL) return zb_error_set(err, ZB_EINVAL, "rolling %s: NULL window bounds", name);
    if (b[k]->type != ZB_INT64 || b[k]->length != col->length || b[k]->null_count != 0)
      return zb_error_set(err, ZB_EINVAL,
                          "rolling %s: window bounds must be %lld int64 values without nulls",
                          name, (long long)col->length);
    if (!zb_device_equal(b[k]->device, col->device))
      return zb_error_set(err, ZB_EINVAL, "rolling %s: window bounds and data on different "
                          "devices", name);
  }
  zb_column *hs = NULL, *he = NULL; /* host copies of bounds on a GPU */
  if (starts->device.kind != ZB_DEVICE_CPU) {
    zb_status st = zb_column_to_device(starts, ZB_CPU, &hs, err);
    if (st == ZB_OK) st = zb_column_to_device(ends, ZB_CPU, &he, err);
    if (st != ZB_OK) {
      zb_column_release(hs);
      return st;
    }
    starts = hs;
    ends = he;
  }
  const int64_t *s = (const int64_t *)starts->data->data + starts->offset;
  const int64_t *e = (const int64_t *)ends->data->data + ends->offset;
  zb_status st = ZB_OK;
  for (int64_t i = 0; i < col->length && st == ZB_OK; i++) {
    if (s[i] < 0 || s[i] > e[i] || e[i] > col->length || e[i] - s[i] > window ||
        (i > 0 && (s[i] < s[i - 1] || e[i] < e[i - 1])))
      st = zb_error_set(err, ZB_EINVAL,
                        "rolling %s: window [%lld, %lld) of row %lld is out of order, out of "
                        "range or longer than window %lld", name, (long long)s[i],
                        (long long)e[i], (long long)i, (long long)window);
  }
  zb_column_release(hs);
  zb_column_release(he);
  return st;
}

static zb_status rolling(const zb_column *col, const zb_column *other, const zb_column *ids,
                         int64_t n_groups, const zb_column *starts, const zb_column *ends,
                         zb_roll_op op, const zb_rolling_options *opt, zb_column **out,
                         zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "rolling: NULL output");
  *out = NULL;
  if (col == NULL || opt == NULL)
    return zb_error_set(err, ZB_EINVAL, "rolling: NULL column or options");
  if ((int)op < 0 || op >= ZB_ROLL_OP_COUNT)
    return zb_error_set(err, ZB_EINVAL, "rolling: unknown operation %d", (int)op);
  const char *name = k_roll_names[op];
  if (col->type != ZB_FLOAT64)
    return zb_error_set(err, ZB_ETYPE, "rolling %s: the column must be float64, not %s", name,
                        zb_type_name(col->type));
  if (opt->window < 0)
    return zb_error_set(err, ZB_EINVAL, "rolling %s: window must be >= 0, not %lld", name,
                        (long long)opt->window);
  if (opt->min_periods < 0 || opt->min_periods > opt->window)
    return zb_error_set(err, ZB_EINVAL, "rolling %s: min_periods %lld must be in [0, window %lld]",
                        name, (long long)opt->min_periods, (long long)opt->window);
  if (opt->ddof < 0)
    return zb_error_set(err, ZB_EINVAL, "rolling %s: ddof must be >= 0, not %d", name,
                        (int)opt->ddof);
  if (op == ZB_ROLL_QUANTILE && !(opt->q >= 0.0 && opt->q <= 1.0))
    return zb_error_set(err, ZB_EINVAL, "rolling quantile: q must be in [0, 1], not %g", opt->q);
  const bool pair = op == ZB_ROLL_COV || op == ZB_ROLL_CORR;
  if (pair != (other != NULL))
    return zb_error_set(err, ZB_EINVAL, pair ? "rolling %s: needs a second column "
                        "(zb_column_rolling_pair)" : "rolling %s: takes one column", name);
  if (other != NULL) {
    if (other->type != ZB_FLOAT64)
      return zb_error_set(err, ZB_ETYPE, "rolling %s: the other column must be float64, not %s",
                          name, zb_type_name(other->type));
    if (other->length != col->length)
      return zb_error_set(err, ZB_EINVAL, "rolling %s: the columns have %lld and %lld rows",
                          name, (long long)col->length, (long long)other->length);
    if (!zb_device_equal(other->device, col->device))
      return zb_error_set(err, ZB_EINVAL, "rolling %s: the two columns are on different devices",
                          name);
  }
  if ((int)opt->interp < 0 || opt->interp >= ZB_INTERP_COUNT)
    return zb_error_set(err, ZB_EINVAL, "rolling %s: unknown interpolation %d", name,
                        (int)opt->interp);
  zb__call c = {.op = ZB__OP_ROLLING, .variant = (int32_t)op, .name = name};
  if (ids != NULL) {
    if (ids->type != ZB_INT64)
      return zb_error_set(err, ZB_ETYPE, "rolling %s: group ids must be int64, not %s", name,
                          zb_type_name(ids->type));
    if (ids->length != col->length)
      return zb_error_set(err, ZB_EINVAL, "rolling %s: %lld group ids for %lld rows", name,
                          (long long)ids->length, (long long)col->length);
    if (n_groups < 0)
      return zb_error_set(err, ZB_EINVAL, "rolling %s: n_groups must be >= 0, not %lld", name,
                          (long long)n_groups);
    if (!zb_device_equal(ids->device, col->device))
      return zb_error_set(err, ZB_EINVAL, "rolling %s: group ids and data on different devices",
                          name);
    c.variant += ZB_ROLL_OP_COUNT;
  }
  c.in[0] = col;
  c.in[1] = ids;
  c.in[3] = other;
  if (starts != NULL || ends != NULL) {
    ZB_RETURN_NOT_OK(check_bounds(col, starts, ends, opt->window, name, err));
    c.variant += 2 * ZB_ROLL_OP_COUNT;
    c.in[1] = starts;
    c.in[2] = ends;
    c.p.rolling.bounds = true;
  }
  c.p.rolling.opt = *opt;
  c.p.rolling.n_groups = ids != NULL ? n_groups : 0;
  return zb__dispatch_column(col->device, &c, out, err);
}

zb_status zb_column_rolling(const zb_column *col, zb_roll_op op, const zb_rolling_options *opt,
                            zb_column **out, zb_error *err) {
  return rolling(col, NULL, NULL, 0, NULL, NULL, op, opt, out, err);
}

zb_status zb_column_rolling_bounds(const zb_column *col, const zb_column *starts,
                                   const zb_column *ends, zb_roll_op op,
                                   const zb_rolling_options *opt, zb_column **out,
                                   zb_error *err) {
  if (starts == NULL || ends == NULL) {
    if (out != NULL) *out = NULL;
    return zb_error_set(err, ZB_EINVAL, "rolling: NULL window bounds");
  }
  return rolling(col, NULL, NULL, 0, starts, ends, op, opt, out, err);
}

zb_status zb_column_group_rolling(const zb_column *col, const zb_column *group_ids,
                                  int64_t n_groups, zb_roll_op op,
                                  const zb_rolling_options *opt, zb_column **out,
                                  zb_error *err) {
  if (group_ids == NULL) {
    if (out != NULL) *out = NULL;
    return zb_error_set(err, ZB_EINVAL, "rolling: NULL group ids");
  }
  return rolling(col, NULL, group_ids, n_groups, NULL, NULL, op, opt, out, err);
}

zb_status zb_column_rolling_pair(const zb_column *x, const zb_column *y,
                                 const zb_column *starts, const zb_column *ends,
                                 zb_roll_op op, const zb_rolling_options *opt,
                                 zb_column **out, zb_error *err) {
  if (out != NULL) *out = NULL;
  if (y == NULL) return zb_error_set(err, ZB_EINVAL, "rolling pair: NULL other column");
  if (op != ZB_ROLL_COV && op != ZB_ROLL_CORR)
    return zb_error_set(err, ZB_EINVAL, "rolling pair: the statistic must be cov or corr, "
                        "not %s", zb_roll_op_name(op));
  if ((starts == NULL) != (ends == NULL))
    return zb_error_set(err, ZB_EINVAL, "rolling %s: window starts and ends go together",
                        zb_roll_op_name(op));
  return rolling(x, y, NULL, 0, starts, ends, op, opt, out, err);
}
