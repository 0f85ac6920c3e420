/*
 * rank_ops.c -- the checked entry points of pandas' rank (zambezi/compute.h:
 * zb_column_rank and zb_column_group_rank, ZB__OP_RANK).
 *
 * Validation happens here once: the method and na_option, the group ids'
 * type, length and device.  Every column type ranks (the order is
 * sort_indices'); the backends trust what this file admits, and a group id
 * outside [0, n_groups) is found by the kernel's range check.
 */
#include "core/internal.h"

static const char *const k_rank_names[ZB_RANK_METHOD_COUNT] = {"average", "min", "max",
                                                               "first", "dense"};

const char *zb_rank_method_name(zb_rank_method method) {
  if ((int)method < 0 || method >= ZB_RANK_METHOD_COUNT) return "unknown";
  return k_rank_names[method];
}

static zb_status rank(const zb_column *col, const zb_column *ids, int64_t n_groups,
                      zb_rank_method method, bool ascending, zb_rank_na na_option, bool pct,
                      zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "rank: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "rank: NULL column");
  if ((int)method < 0 || method >= ZB_RANK_METHOD_COUNT)
    return zb_error_set(err, ZB_EINVAL, "rank: unknown method %d", (int)method);
  if ((int)na_option < 0 || na_option >= ZB_RANK_NA_COUNT)
    return zb_error_set(err, ZB_EINVAL, "rank: unknown na_option %d", (int)na_option);
  zb__call c = {.op = ZB__OP_RANK, .variant = (int32_t)method, .name = "rank"};
  if (ids != NULL) {
    if (ids->type != ZB_INT64)
      return zb_error_set(err, ZB_ETYPE, "rank: group ids must be int64, not %s",
                          zb_type_name(ids->type));
    if (ids->length != col->length)
      return zb_error_set(err, ZB_EINVAL, "rank: %lld group ids for %lld rows",
                          (long long)ids->length, (long long)col->length);
    if (n_groups < 0)
      return zb_error_set(err, ZB_EINVAL, "rank: n_groups must be >= 0, not %lld",
                          (long long)n_groups);
    if (!zb_device_equal(ids->device, col->device))
      return zb_error_set(err, ZB_EINVAL, "rank: group ids and data on different devices");
    c.variant += ZB_RANK_METHOD_COUNT;
  }
  c.in[0] = col;
  c.in[1] = ids;
  c.p.rank.ascending = ascending;
  c.p.rank.pct = pct;
  c.p.rank.na_option = na_option;
  c.p.rank.n_groups = ids != NULL ? n_groups : 0;
  return zb__dispatch_column(col->device, &c, out, err);
}

zb_status zb_column_rank(const zb_column *col, zb_rank_method method, bool ascending,
                         zb_rank_na na_option, bool pct, zb_column **out, zb_error *err) {
  return rank(col, NULL, 0, method, ascending, na_option, pct, out, err);
}

zb_status zb_column_group_rank(const zb_column *col, const zb_column *group_ids,
                               int64_t n_groups, zb_rank_method method, bool ascending,
                               zb_rank_na na_option, bool pct, zb_column **out,
                               zb_error *err) {
  if (group_ids == NULL) {
    if (out != NULL) *out = NULL;
    return zb_error_set(err, ZB_EINVAL, "rank: NULL group ids");
  }
  return rank(col, group_ids, n_groups, method, ascending, na_option, pct, out, err);
}
