/*
 * reshape_ops.c -- the checked entry points of zambezi/reshape.h:
 * zb_column_one_hot and zb_column_repeat.  Each validates its arguments
 * once and hands the call to zb__dispatch (src/core/dispatch.c); no GPU
 * backend runs them yet, so data on a GPU runs on the CPU over host copies
 * (recorded in profiles).
 */
#include "core/internal.h"
#include "zambezi/reshape.h"

zb_status zb_column_one_hot(const zb_column *codes, int64_t n_codes, zb_table **out,
                            zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "one_hot: NULL output");
  *out = NULL;
  if (codes == NULL) return zb_error_set(err, ZB_EINVAL, "one_hot: NULL column");
  if (codes->type != ZB_INT64)
    return zb_error_set(err, ZB_ETYPE, "one_hot: codes must be int64, not %s",
                        zb_type_name(codes->type));
  if (n_codes < 0)
    return zb_error_set(err, ZB_EINVAL, "one_hot: n_codes must be >= 0, not %lld",
                        (long long)n_codes);
  zb__call c = {.op = ZB__OP_ONE_HOT};
  c.in[0] = codes;
  c.p.one_hot.n = n_codes;
  ZB_RETURN_NOT_OK(zb__dispatch(codes->device, &c, err));
  *out = c.out_table;
  return ZB_OK;
}

zb_status zb_column_repeat(const zb_column *col, int64_t times, zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "repeat: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "repeat: NULL column");
  if (col->type == ZB_BOOL || col->type == ZB_CATEGORICAL || col->type == ZB_LIST)
    return zb_error_set(err, ZB_ETYPE, "repeat: a %s column is not supported (strings and "
                        "fixed-width types are)", zb_type_name(col->type));
  if (times < 0)
    return zb_error_set(err, ZB_EINVAL, "repeat: times must be >= 0, not %lld",
                        (long long)times);
  if (times > 0 && col->length > INT64_MAX / times)
    return zb_error_set(err, ZB_EOVERFLOW, "repeat: %lld rows %lld times is too many rows",
                        (long long)col->length, (long long)times);
  zb__call c = {.op = ZB__OP_REPEAT};
  c.in[0] = col;
  c.p.one_hot.n = times;
  return zb__dispatch_column(col->device, &c, out, err);
}
