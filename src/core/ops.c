/*
 * ops.c -- the one checked entry point of each operation.
 *
 * Each zb_* operation validates its arguments once, then dispatches to the
 * backend of the device where the data lives.  A backend that lacks the
 * operation gets it run on the CPU over a host copy of the inputs.
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
  const zb_backend *be = zb__backend_for(col->device.kind);
  if (be == NULL)
    return zb_error_set(err, ZB_ENODEVICE, "no backend for the column's device");
  ZB_PROFILE_OP(zb_reduce_op_name(op), be, reduce, col->device, col->length);
  if (be->reduce != NULL) return be->reduce(col, op, out, err);
  /* Fallback: reduce a host copy on the CPU. */
  zb_column *host = NULL;
  ZB_RETURN_NOT_OK(zb_column_to_device(col, ZB_CPU, &host, err));
  zb_status st = zb__cpu_reduce(host, op, out, err);
  zb_column_release(host);
  return st;
}
