/*
 * ewm_ops.c -- the checked entry point of pandas' exponentially weighted
 * statistics (zambezi/ewm.h: zb_table_ewm, ZB__OP_EWM).
 *
 * Validation happens here once: the columns' type and length, the
 * options, the group ids' and times' type, length and device.  The
 * backends trust what this file admits; a group id outside [0, n_groups)
 * is found by the kernel's range check.
 */
#include <math.h>

#include "core/internal.h"

static const char *const k_ewm_names[ZB_EWM_OP_COUNT] = {"mean", "sum", "var",
                                                         "std",  "cov", "corr"};

const char *zb_ewm_op_name(zb_ewm_op op) {
  if ((int)op < 0 || op >= ZB_EWM_OP_COUNT) return "unknown";
  return k_ewm_names[op];
}

/* An optional column: type, t's length, on t's device. */
static zb_status check_aux(const zb_column *c, zb_type_id type, int64_t n, zb_device dev,
                           const char *what, const char *name, zb_error *err) {
  if (c->type != type)
    return zb_error_set(err, ZB_ETYPE, "ewm %s: %s must be %s, not %s", name, what,
                        zb_type_name(type), zb_type_name(c->type));
  if (c->length != n)
    return zb_error_set(err, ZB_EINVAL, "ewm %s: %lld %s for %lld rows", name,
                        (long long)c->length, what, (long long)n);
  if (!zb_device_equal(c->device, dev))
    return zb_error_set(err, ZB_EINVAL, "ewm %s: %s and data on different devices", name, what);
  return ZB_OK;
}

zb_status zb_table_ewm(const zb_table *t, const zb_column *group_ids, int64_t n_groups,
                       const zb_column *times, zb_ewm_op op, const zb_ewm_options *opt,
                       zb_table **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "ewm: NULL output");
  *out = NULL;
  if (t == NULL || opt == NULL) return zb_error_set(err, ZB_EINVAL, "ewm: NULL table or options");
  if ((int)op < 0 || op >= ZB_EWM_OP_COUNT)
    return zb_error_set(err, ZB_EINVAL, "ewm: unknown operation %d", (int)op);
  const char *name = k_ewm_names[op];
  const int64_t n = t->num_rows;
  for (int64_t k = 0; k < t->num_columns; k++) {
    const zb_column *c = t->columns[k];
    if (c->type != ZB_FLOAT64)
      return zb_error_set(err, ZB_ETYPE, "ewm %s: column '%s' must be float64, not %s", name,
                          t->names[k], zb_type_name(c->type));
  }
  if ((op == ZB_EWM_COV || op == ZB_EWM_CORR) && t->num_columns % 2 != 0)
    return zb_error_set(err, ZB_EINVAL, "ewm %s: the columns must come in pairs, not %lld",
                        name, (long long)t->num_columns);
  if (!(opt->com >= 0.0) || isinf(opt->com))
    return zb_error_set(err, ZB_EINVAL, "ewm %s: com must be a finite number >= 0, not %g",
                        name, opt->com);
  if (opt->min_periods < 0)
    return zb_error_set(err, ZB_EINVAL, "ewm %s: min_periods must be >= 0, not %lld", name,
                        (long long)opt->min_periods);
  zb_device dev = t->num_columns > 0 ? zb_table_device(t) : ZB_CPU;
  zb__call c = {.op = ZB__OP_EWM, .variant = (int32_t)op, .name = name};
  c.table = t;
  if (group_ids != NULL) {
    ZB_RETURN_NOT_OK(check_aux(group_ids, ZB_INT64, n, dev, "group ids", name, err));
    if (n_groups < 0)
      return zb_error_set(err, ZB_EINVAL, "ewm %s: n_groups must be >= 0, not %lld", name,
                          (long long)n_groups);
    c.variant += ZB_EWM_OP_COUNT;
  }
  if (times != NULL) {
    if (op != ZB_EWM_MEAN)
      return zb_error_set(err, ZB_EINVAL, "ewm %s: times are supported by mean only", name);
    ZB_RETURN_NOT_OK(check_aux(times, ZB_FLOAT64, n, dev, "times", name, err));
    if (times->null_count != 0)
      return zb_error_set(err, ZB_EINVAL, "ewm %s: times must not be missing", name);
    if (!(opt->halflife > 0.0) || isinf(opt->halflife))
      return zb_error_set(err, ZB_EINVAL, "ewm %s: halflife must be > 0, not %g", name,
                          opt->halflife);
  }
  c.in[0] = group_ids;
  c.in[1] = times;
  c.p.ewm.opt = *opt;
  c.p.ewm.n_groups = group_ids != NULL ? n_groups : 0;
  ZB_RETURN_NOT_OK(zb__dispatch(dev, &c, err));
  *out = c.out_table;
  return ZB_OK;
}
