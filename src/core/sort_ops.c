/*
 * sort_ops.c -- the checked entry points zb_column_sort_values and
 * zb_column_sort_values_indices (declared in zambezi/compute.h): a
 * column's values in sorted order, and with them the sorting permutation.
 *
 * A backend that has sort_values (the CPU: it sorts the keys of fixed-width
 * columns alone and gathers other types through the sort permutation) runs
 * it.  Columns on another device get the permutation from that device's
 * backend (zb_column_sort_indices) and are gathered there (zb_column_take),
 * so no data crosses devices.
 */
#include "core/internal.h"

zb_status zb_column_sort_values(const zb_column *col, bool ascending, bool nulls_first,
                                zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "sort_values: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "sort_values: NULL column");
  const zb_backend *be = zb__backend_for(col->device.kind);
  zb__call c = {.op = ZB__OP_SORT_VALUES};
  c.in[0] = col;
  c.p.sort_values.ascending = ascending;
  c.p.sort_values.nulls_first = nulls_first;
  if (zb__backend_supports(be, &c)) return zb__dispatch_column(col->device, &c, out, err);
  ZB_PROFILE_OP("sort_values", be, ZB__OP_SORT_INDICES, col->device, col->length);
  zb_column *idx = NULL;
  ZB_RETURN_NOT_OK(zb_column_sort_indices(col, ascending, nulls_first, &idx, err));
  zb_status st = zb_column_take(col, idx, out, err);
  zb_column_release(idx);
  return st;
}

zb_status zb_column_sort_values_indices(const zb_column *col, bool ascending, bool nulls_first,
                                        zb_column **values, zb_column **indices,
                                        zb_error *err) {
  if (values == NULL || indices == NULL)
    return zb_error_set(err, ZB_EINVAL, "sort_values: NULL output");
  *values = NULL;
  *indices = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "sort_values: NULL column");
  const zb_backend *be = zb__backend_for(col->device.kind);
  zb__call c = {.op = ZB__OP_SORT_VALUES, .variant = 1};
  c.in[0] = col;
  c.p.sort_values.ascending = ascending;
  c.p.sort_values.nulls_first = nulls_first;
  if (zb__backend_supports(be, &c)) {
    ZB_RETURN_NOT_OK(zb__dispatch(col->device, &c, err));
    *values = c.out[0];
    *indices = c.out[1];
    return ZB_OK;
  }
  ZB_PROFILE_OP("sort_values", be, ZB__OP_SORT_INDICES, col->device, col->length);
  zb_column *idx = NULL;
  ZB_RETURN_NOT_OK(zb_column_sort_indices(col, ascending, nulls_first, &idx, err));
  zb_status st = zb_column_take(col, idx, values, err);
  if (st != ZB_OK) {
    zb_column_release(idx);
    return st;
  }
  *indices = idx;
  return ZB_OK;
}
