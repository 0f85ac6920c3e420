/*
 * dispatch.cu -- what the CUDA backend runs, in one table, and the one
 * switch that runs it (src/core/dispatch.h).  The table is the GPU's
 * coverage: a call outside it runs on the CPU over host copies, recorded as
 * a fallback in profiles, and `zb.coverage("cuda")` lists it.  The entries
 * below rely on the table: they are only called with the types and
 * variants it names.  What no table can state (a join whose output would
 * not fit the device's index type, keys whose categorical dictionaries
 * differ) is declined at run time by the entry itself (ZB__DECLINED).
 */
#include "cuda/cuda_internal.h"

namespace {

constexpr uint32_t kAll = ZB__ALL_TYPES;
constexpr uint64_t kAllV = ZB__ALL_VARIANTS;
/* variant masks whose variants are type ids (the target of a cast) */
constexpr uint64_t kNumericV = (uint64_t)ZB__NUMERIC_TYPES;
constexpr uint64_t kTimeV = (uint64_t)ZB__TIME_TYPES;
constexpr uint64_t kIntegerV = (uint64_t)ZB__INTEGER_TYPES;
constexpr uint64_t kCompareV = ZB__V(ZB_OP_EQ) | ZB__V(ZB_OP_NE) | ZB__V(ZB_OP_LT) |
                               ZB__V(ZB_OP_LE) | ZB__V(ZB_OP_GT) | ZB__V(ZB_OP_GE);
constexpr uint64_t kBoolStatV = ZB__V(ZB_STAT_VAR) | ZB__V(ZB_STAT_STD) |
                                ZB__V(ZB_STAT_PROD) | ZB__V(ZB_STAT_ANY) | ZB__V(ZB_STAT_ALL);
constexpr uint64_t kStringAggV =
    kAllV & ~(ZB__V(ZB_AGG_NUNIQUE) | ZB__V(ZB_AGG_MIN) | ZB__V(ZB_AGG_MAX));

const zb__support kCudaSupport[] = {
    {ZB__OP_REDUCE, kAll, kAllV},
    {ZB__OP_BINARY, ZB__NUMERIC_TYPES | ZB__TIME_TYPES, kAllV},
    {ZB__OP_BINARY, ZB__T(ZB_STRING), kCompareV}, /* strings.cu */
    {ZB__OP_UNARY, ZB__NUMERIC_TYPES, kAllV},
    {ZB__OP_CAST, ZB__NUMERIC_TYPES, kNumericV},
    {ZB__OP_CAST, ZB__TIME_TYPES, kIntegerV | kTimeV},
    {ZB__OP_CAST, ZB__INTEGER_TYPES, kTimeV},
    {ZB__OP_IS_NULL, kAll, kAllV},
    {ZB__OP_FILL_NULL, kAll, kAllV},
    {ZB__OP_FILTER, kAll, ZB__V(0)}, /* one column at a time */
    {ZB__OP_TAKE, kAll, ZB__V(0)},
    {ZB__OP_SORT_INDICES, kAll, kAllV},
    {ZB__OP_STR, ZB__T(ZB_STRING), ZB__V(ZB_STR_TITLE) - 1}, /* not title... (str_text.h) */
    {ZB__OP_DT_FIELD, ZB__TIME_TYPES, kAllV},
    {ZB__OP_CLIP, ZB__NUMBER_TYPES, kAllV},
    {ZB__OP_ROUND, ZB__NUMBER_TYPES, kAllV},
    {ZB__OP_WHERE, kAll, kAllV},
    {ZB__OP_STAT, ZB__NUMBER_TYPES | ZB__TIME_TYPES, kAllV},
    {ZB__OP_STAT, ZB__T(ZB_BOOL), kBoolStatV},
    {ZB__OP_QUANTILE, ZB__NUMBER_TYPES, kAllV},
    {ZB__OP_UNIQUE, kAll, kAllV},
    {ZB__OP_NUNIQUE, kAll, kAllV},
    {ZB__OP_VALUE_COUNTS, kAll, kAllV},
    {ZB__OP_DUPLICATED, kAll, kAllV},
    {ZB__OP_ISIN, kAll, kAllV},
    {ZB__OP_JOIN, kAll, kAllV & ~ZB__V(ZB_JOIN_CROSS)},
    {ZB__OP_GROUPBY, kAll, kAllV},
    {ZB__OP_GROUPBY_AGG, kAll & ~ZB__T(ZB_STRING), kAllV},
    {ZB__OP_GROUPBY_AGG, ZB__T(ZB_STRING), kStringAggV},
    {ZB__OP_GROUP_IDS, kAll, kAllV},
    {ZB__OP_GROUP_CUMCOUNT, kAll, kAllV},
    {ZB__OP_FILL_SCAN, kAll, kAllV}, /* fill_scan.cu */
    /* ZB__OP_CUMULATIVE: cumulative.cu has the whole-column kernel (variants
     * 0..3), compiled but not yet run on a GPU; its row
     *   {ZB__OP_CUMULATIVE, ZB__NUMBER_TYPES | ZB__TIME_TYPES, 0xF},
     * goes here once test_gpu_equiv.py::test_cumulative passes natively.
     * Until then the CPU runs it (profiles record the fallback). */
    /* ZB__OP_RANK: rank.cu has the kernel (whole columns and per group, all
     * types but strings), compiled but not yet run on a GPU; its row
     *   {ZB__OP_RANK, kAll & ~ZB__T(ZB_STRING), kAllV},
     * goes here once test_gpu_equiv.py::test_rank passes natively. */
};

}  // namespace

extern "C" const zb__support *zb__cuda_support(int64_t *n) {
  *n = (int64_t)(sizeof kCudaSupport / sizeof kCudaSupport[0]);
  return kCudaSupport;
}

static zb_status zb_cuda_run_op(zb__call *c, zb_error *err) {
  const zb_column *const *in = c->in;
  zb_column **out = &c->out[0];
  switch (c->op) {
    case ZB__OP_REDUCE:
      return zb__cuda_reduce(in[0], (zb_reduce_op)c->variant, c->out_scalar, err);
    case ZB__OP_BINARY:
      return zb__cuda_binary((zb_binary_op)c->variant, in[0], c->scalar[0], in[1], c->scalar[1],
                             c->p.binary.compute, c->p.binary.result, out, err);
    case ZB__OP_UNARY: return zb__cuda_unary((zb_unary_op)c->variant, in[0], out, err);
    case ZB__OP_CAST:
      return zb__cuda_cast(in[0], (zb_type_id)c->variant, c->p.cast.unit, out, err);
    case ZB__OP_IS_NULL: return zb__cuda_is_null(in[0], c->variant != 0, out, err);
    case ZB__OP_FILL_NULL: return zb__cuda_fill_null(in[0], in[1], out, err);
    case ZB__OP_FILTER: return zb__cuda_filter(in[0], in[1], out, err);
    case ZB__OP_TAKE: return zb__cuda_take(in[0], in[1], out, err);
    case ZB__OP_SORT_INDICES:
      return zb__cuda_sort_indices(c->table, c->p.sort.n_keys, c->p.sort.keys,
                                   c->p.sort.ascending, c->p.sort.nulls_first, out, err);
    case ZB__OP_STR: return zb__cuda_str(in[0], c->p.str.args, out, err);
    case ZB__OP_DT_FIELD:
      return zb__cuda_dt_field(in[0], (zb_dt_field)c->variant, c->p.dt.offset_s, out, err);
    case ZB__OP_CLIP: return zb__cuda_clip(in[0], c->p.clip.lower, c->p.clip.upper, out, err);
    case ZB__OP_ROUND: return zb__cuda_round(in[0], c->p.round.decimals, out, err);
    case ZB__OP_WHERE:
      return zb__cuda_where(in[0], c->p.where.mask, in[1], in[2], c->scalar[2], out, err);
    case ZB__OP_STAT:
      return zb__cuda_stat(in[0], (zb_stat_op)c->variant, c->p.stat.ddof, c->out_scalar, err);
    case ZB__OP_QUANTILE:
      return zb__cuda_quantile(in[0], c->p.quantile.n_q, c->p.quantile.q, c->out_scalar, err);
    case ZB__OP_UNIQUE: return zb__cuda_unique(in[0], out, err);
    case ZB__OP_NUNIQUE: return zb__cuda_nunique(in[0], c->p.nunique.dropna, &c->out_count, err);
    case ZB__OP_VALUE_COUNTS:
      return zb__cuda_value_counts(in[0], c->p.value_counts.sort, c->p.value_counts.ascending,
                                   c->p.value_counts.dropna, c->p.value_counts.normalize,
                                   &c->out[0], &c->out[1], err);
    case ZB__OP_DUPLICATED:
      return zb__cuda_duplicated(c->table, c->p.keys.n_keys, c->p.keys.keys, c->p.keys.keep, out,
                                 err);
    case ZB__OP_ISIN: return zb__cuda_isin(in[0], in[1], out, err);
    case ZB__OP_JOIN:
      /* null keys that match each other: the CPU's (src/cpu/join.c) */
      for (int s = 0; c->p.join.nulls_match && s < 2; s++)
        for (int64_t k = 0; k < c->p.join.n_keys; k++)
          if (c->keys[s][k]->null_count > 0) return (zb_status)ZB__DECLINED;
      return zb__cuda_join_indices(c->keys[0], c->keys[1], c->p.join.n_keys, c->p.join.n_left,
                                   c->p.join.n_right, (zb_join_how)c->variant, &c->out[0],
                                   &c->out[1], err);
    case ZB__OP_GROUPBY:
      return zb__cuda_groupby(c->table, c->p.groupby.n_keys, c->p.groupby.keys,
                              c->p.groupby.dropna, c->p.groupby.sort, c->p.groupby.n_aggs,
                              c->p.groupby.aggs, &c->out_table, err);
    case ZB__OP_GROUP_IDS:
      return zb__cuda_group_ids(c->table, c->p.groupby.n_keys, c->p.groupby.keys,
                                c->p.groupby.dropna, c->p.groupby.sort, out, &c->out_count, err);
    case ZB__OP_GROUP_CUMCOUNT:
      return zb__cuda_group_cumcount(in[0], c->p.cumcount.n_groups, c->p.cumcount.ascending, out,
                                     err);
    case ZB__OP_FILL_SCAN:
      return zb__cuda_fill_scan(in[0], c->variant != 0, c->p.fill_scan.limit,
                                c->p.fill_scan.area, out, err);
    case ZB__OP_CUMULATIVE: /* whole columns only: the table has no group variants */
      return zb__cuda_cumulative(in[0], (zb_cum_op)c->variant, c->p.cumulative.skipna,
                                 c->p.cumulative.result, out, err);
    case ZB__OP_RANK:
      return zb__cuda_rank(in[0], in[1], c->p.rank.n_groups,
                           (zb_rank_method)(c->variant % ZB_RANK_METHOD_COUNT),
                           c->p.rank.ascending, c->p.rank.na_option, c->p.rank.pct, out, err);
    default: break;
  }
  /* the support table lists only the operations above */
  return zb_error_set(err, ZB_EINVAL, "cuda backend: '%s' is not in its table",
                      zb__op_name(c->op));
}

extern "C" zb_status zb__cuda_run(zb__call *c, zb_error *err) {
  zb_cuda_device_guard keep_device; /* the caller's current device, put back */
  return zb_cuda_run_op(c, err);
}
