/*
 * ops.c -- the checked entry point of the reductions (sum, min, max, mean,
 * count).
 *
 * Each zb_* operation validates its arguments once, then hands the call to
 * zb__dispatch (src/core/dispatch.c), which runs it on the backend of the
 * device where the data lives, or on the CPU when that backend lacks it.
 */
#include "core/internal.h"

zb_status zb_column_reduce(const zb_column *col, zb_reduce_op op, zb_scalar *out,
                           zb_error *err) {
  if (col == NULL || out == NULL) return zb_error_set(err, ZB_EINVAL, "reduce: NULL argument");
  if ((int)op < 0 || op >= ZB_REDUCE_OP_COUNT)
    return zb_error_set(err, ZB_EINVAL, "unknown reduction %d", (int)op);
  if (!zb_type_is_numeric(col->type))
    return zb_error_set(err, ZB_ETYPE, "%s is not defined for a %s column",
                        zb_reduce_op_name(op), zb_type_name(col->type));
  zb__call c = {.op = ZB__OP_REDUCE, .variant = (int32_t)op, .name = zb_reduce_op_name(op)};
  c.in[0] = col;
  c.out_scalar = out;
  return zb__dispatch(col->device, &c, err);
}
