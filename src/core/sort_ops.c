/*
 * sort_ops.c -- the checked entry point zb_column_sort_values (declared in
 * zambezi/compute.h): a column's values in sorted order.
 *
 * Host columns go to the CPU kernel (src/cpu/sort.c), which sorts the keys
 * of fixed-width columns alone and gathers other types through the sort
 * permutation.  Columns on another device get the permutation from that
 * device's backend (zb_column_sort_indices) and are gathered there
 * (zb_column_take), so no data crosses devices.
 */
#include "cpu/kernels.h"

zb_status zb_column_sort_values(const zb_column *col, bool ascending, bool nulls_first,
                                zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "sort_values: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "sort_values: NULL column");
  ZB_PROFILE_OP("sort_values", zb__backend_for(col->device.kind), sort_indices, col->device,
                col->length);
  if (col->device.kind == ZB_DEVICE_CPU)
    return zb__cpu_sort_values(col, ascending, nulls_first, out, err);
  zb_column *idx = NULL;
  ZB_RETURN_NOT_OK(zb_column_sort_indices(col, ascending, nulls_first, &idx, err));
  zb_status st = zb_column_take(col, idx, out, err);
  zb_column_release(idx);
  return st;
}
