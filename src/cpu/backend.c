/*
 * backend.c -- the CPU backend: the host device's description and the one
 * switch that runs every operation (src/core/dispatch.h) on the CPU
 * kernels.  The CPU is the reference implementation: it has no support
 * table, so it takes every call, including those other backends leave to
 * it.  Arguments arrive validated by src/core.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "cpu/groupby.h"
#include "cpu/hash.h"
#include "cpu/join.h"
#include "cpu/kernels.h"
#include "cpu/reshape.h"
#include "cpu/time_bins.h"
#include "cpu/strings_kernels.h"

static int cpu_device_count(void) { return 1; }
static bool cpu_device_usable(int device_id) { return device_id == 0; }

static void cpu_model_name(char *out, size_t size) {
  snprintf(out, size, "CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f == NULL) return;
  char line[512];
  while (fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, "model name", 10) == 0) {
      const char *p = strchr(line, ':');
      if (p != NULL) {
        p++;
        while (*p == ' ' || *p == '\t') p++;
        snprintf(out, size, "%s", p);
        out[strcspn(out, "\n")] = '\0';
      }
      break;
    }
  }
  fclose(f);
}

static zb_status cpu_device_info(int device_id, zb_device_info *out, zb_error *err) {
  if (device_id != 0) return zb_error_set(err, ZB_ENODEVICE, "there is one CPU device, cpu:0");
  memset(out, 0, sizeof *out);
  out->device = ZB_CPU;
  cpu_model_name(out->name, sizeof out->name);
  struct sysinfo si;
  if (sysinfo(&si) == 0) {
    out->total_memory = (int64_t)si.totalram * si.mem_unit;
    out->free_memory = (int64_t)(si.freeram + si.bufferram) * si.mem_unit;
  }
  out->cores = zb_available_cores();
  return ZB_OK;
}

/* A table of t's names over n new columns (consumed, also on failure). */
static zb_status table_of(const zb_table *t, zb_column **cols, zb_table **out, zb_error *err) {
  zb_status st = zb_table_make(t->num_columns, cols, (const char *const *)t->names, out, err);
  for (int64_t c = 0; c < t->num_columns; c++) zb_column_release(cols[c]);
  zb_free(cols);
  return st;
}

/* filter (take == false) or take all columns of c->table by c->in[1] in
 * one parallel pass. */
static zb_status take_or_filter(const zb_column *col, const zb_column *arg, bool take,
                                zb_column **out, zb_error *err) {
  if (col->type == ZB_LIST)
    return take ? zb__cpu_list_take(col, arg, out, err) : zb__cpu_list_filter(col, arg, out, err);
  return take ? zb__cpu_take(col, arg, out, err) : zb__cpu_filter(col, arg, out, err);
}

static zb_status table_rows(zb__call *c, bool take, zb_error *err) {
  const zb_table *t = c->table;
  zb_column **cols = (zb_column **)zb_calloc((size_t)ZB_MAX(t->num_columns, 1), sizeof(zb_column *));
  if (cols == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (table)");
  int64_t failed = -1;
  bool lists = false;
  for (int64_t k = 0; k < t->num_columns; k++) lists |= t->columns[k]->type == ZB_LIST;
  zb_status st = ZB_OK;
  if (lists) { /* a list column gathers child ranges: column by column */
    for (int64_t k = 0; k < t->num_columns && st == ZB_OK; k++) {
      st = take_or_filter(t->columns[k], c->in[1], take, &cols[k], err);
      if (st != ZB_OK) failed = k;
    }
    if (st != ZB_OK)
      for (int64_t k = 0; k < t->num_columns; k++) zb_column_release(cols[k]);
  } else {
    st = take ? zb__cpu_take_columns(t->num_columns, (const zb_column *const *)t->columns,
                                     c->in[1], cols, &failed, err)
              : zb__cpu_filter_columns(t->num_columns, (const zb_column *const *)t->columns,
                                       c->in[1], cols, err);
  }
  if (st != ZB_OK) {
    zb_free(cols);
    if (failed >= 0 && err != NULL) {
      char msg[ZB_ERROR_MESSAGE_SIZE];
      snprintf(msg, sizeof msg, "%s", err->message);
      zb_error_set(err, st, "column '%s': %s", t->names[failed], msg);
    }
    return st;
  }
  return table_of(t, cols, &c->out_table, err);
}

static zb_status cpu_run(zb__call *c, zb_error *err) {
  const zb_column *const *in = c->in;
  zb_column **out = &c->out[0];
  switch (c->op) {
    case ZB__OP_REDUCE:
      return zb__cpu_reduce(in[0], (zb_reduce_op)c->variant, c->out_scalar, err);
    case ZB__OP_BINARY:
      return zb__cpu_binary((zb_binary_op)c->variant, in[0], c->scalar[0], in[1], c->scalar[1],
                            c->p.binary.compute, c->p.binary.result, out, err);
    case ZB__OP_UNARY: return zb__cpu_unary((zb_unary_op)c->variant, in[0], out, err);
    case ZB__OP_CAST:
      return zb__cpu_cast(in[0], (zb_type_id)c->variant, c->p.cast.unit, out, err);
    case ZB__OP_IS_NULL: return zb__cpu_is_null(in[0], c->variant != 0, out, err);
    case ZB__OP_FILL_NULL: return zb__cpu_fill_null(in[0], in[1], out, err);
    case ZB__OP_FILTER:
      return c->variant ? table_rows(c, false, err) : take_or_filter(in[0], in[1], false, out, err);
    case ZB__OP_TAKE:
      return c->variant ? table_rows(c, true, err) : take_or_filter(in[0], in[1], true, out, err);
    case ZB__OP_SORT_INDICES:
      return zb__cpu_sort_indices(c->table, c->p.sort.n_keys, c->p.sort.keys,
                                  c->p.sort.ascending, c->p.sort.nulls_first, out, err);
    case ZB__OP_SORT_VALUES:
      return zb__cpu_sort_values(in[0], c->p.sort_values.ascending,
                                 c->p.sort_values.nulls_first, out,
                                 c->variant == 1 ? &c->out[1] : NULL, err);
    case ZB__OP_STR: return zb__cpu_str(in[0], c->p.str.args, out, err);
    case ZB__OP_STR_CAT:
      return zb__cpu_str_cat(in[0], c->scalar[0], in[1], c->scalar[1], c->p.cat.sep,
                             c->p.cat.sep_len, out, err);
    case ZB__OP_DT_FIELD:
      return zb__cpu_dt_field(in[0], (zb_dt_field)c->variant, c->p.dt.offset_s, out, err);
    case ZB__OP_CLIP: return zb__cpu_clip(in[0], c->p.clip.lower, c->p.clip.upper, out, err);
    case ZB__OP_ROUND: return zb__cpu_round(in[0], c->p.round.decimals, out, err);
    case ZB__OP_WHERE:
      return zb__cpu_where(in[0], c->p.where.mask, in[1], in[2], c->scalar[2], out, err);
    case ZB__OP_STAT:
      return zb__cpu_stat(in[0], (zb_stat_op)c->variant, c->p.stat.ddof, c->out_scalar, err);
    case ZB__OP_QUANTILE:
      return zb__cpu_quantile(in[0], c->p.quantile.n_q, c->p.quantile.q, c->out_scalar, err);
    case ZB__OP_CORR_MATRIX:
      return zb__cpu_corr_matrix(c->table, c->p.corr.min_periods, c->p.corr.ddof, c->variant == 1,
                                 c->p.corr.out, err);
    case ZB__OP_HASH_ROWS:
      return zb__cpu_hash_rows(c->table, c->p.keys.n_keys, c->p.keys.keys, out, err);
    case ZB__OP_UNIQUE: return zb__cpu_unique(in[0], out, err);
    case ZB__OP_NUNIQUE: return zb__cpu_nunique(in[0], c->p.nunique.dropna, &c->out_count, err);
    case ZB__OP_VALUE_COUNTS:
      return zb__cpu_value_counts(in[0], c->p.value_counts.sort, c->p.value_counts.ascending,
                                  c->p.value_counts.dropna, c->p.value_counts.normalize,
                                  &c->out[0], &c->out[1], err);
    case ZB__OP_DUPLICATED:
      return zb__cpu_duplicated(c->table, c->p.keys.n_keys, c->p.keys.keys, c->p.keys.keep, out,
                                err);
    case ZB__OP_ISIN: return zb__cpu_isin(in[0], in[1], out, err);
    case ZB__OP_JOIN:
      return zb__cpu_join_indices(c->keys[0], c->keys[1], c->p.join.n_keys, c->p.join.n_left,
                                  c->p.join.n_right, (zb_join_how)c->variant,
                                  c->p.join.nulls_match, &c->out[0], &c->out[1],
                                  &c->out_count, err);
    case ZB__OP_GROUPBY:
      return zb__cpu_groupby(c->table, c->p.groupby.n_keys, c->p.groupby.keys,
                             c->p.groupby.dropna, c->p.groupby.sort, c->p.groupby.n_aggs,
                             c->p.groupby.aggs, &c->out_table,
                             c->p.groupby.keep_ids ? &c->out[0] : NULL, &c->out_count, err);
    case ZB__OP_GROUPBY_IDS:
      return zb__cpu_groupby_ids(c->table, in[0], c->p.groupby.n_groups, c->p.groupby.n_aggs,
                                 c->p.groupby.aggs, &c->out_table, err);
    case ZB__OP_GROUP_ORDER:
      return zb__cpu_group_order(in[0], c->p.lag.n_groups, &c->out[0], &c->out[1], err);
    case ZB__OP_GROUP_MOMENT:
      return zb__cpu_group_moment(in[0], in[1], c->p.moment.n_groups, (zb_moment_op)c->variant,
                                  c->p.moment.skipna, out, err);
    case ZB__OP_DIFF:
      return zb__cpu_diff(in[0], c->p.lag.periods, (zb_type_id)c->variant, out, err);
    case ZB__OP_GROUPBY_SEGMENTS:
      return zb__cpu_groupby_segments(c->table, in[0], c->p.groupby.n_aggs, c->p.groupby.aggs,
                                      &c->out_table, err);
    case ZB__OP_GROUP_IDS:
      return zb__cpu_group_ids(c->table, c->p.groupby.n_keys, c->p.groupby.keys,
                               c->p.groupby.dropna, c->p.groupby.sort, out, &c->out_count, err);
    case ZB__OP_GROUP_CUMCOUNT:
      return zb__cpu_group_cumcount(in[0], c->p.cumcount.n_groups, c->p.cumcount.ascending, out,
                                    err);
    case ZB__OP_FILL_SCAN:
      return zb__cpu_fill_scan(in[0], c->variant != 0, c->p.fill_scan.limit, c->p.fill_scan.area,
                               out, err);
    case ZB__OP_CUMULATIVE:
      return zb__cpu_cumulative(in[0], in[1], c->p.cumulative.n_groups,
                                (zb_cum_op)(c->variant % ZB_CUM_OP_COUNT), c->p.cumulative.skipna,
                                c->p.cumulative.result, out, err);
    case ZB__OP_RANK:
      return zb__cpu_rank(in[0], in[1], c->p.rank.n_groups,
                          (zb_rank_method)(c->variant % ZB_RANK_METHOD_COUNT),
                          c->p.rank.ascending, c->p.rank.na_option, c->p.rank.pct, out, err);
    case ZB__OP_ROLLING:
      return zb__cpu_rolling(in[0], in[3], c->p.rolling.bounds ? NULL : in[1],
                             c->p.rolling.n_groups,
                             c->p.rolling.bounds ? in[1] : NULL, in[2],
                             (zb_roll_op)(c->variant % ZB_ROLL_OP_COUNT), &c->p.rolling.opt, out,
                             err);
    case ZB__OP_EWM:
      return zb__cpu_ewm(c->table, in[0], c->p.ewm.n_groups, in[1],
                         (zb_ewm_op)(c->variant % ZB_EWM_OP_COUNT), &c->p.ewm.opt, &c->out_table,
                         err);
    case ZB__OP_REGEX: return zb__cpu_regex(in[0], c->p.regex.args, out, &c->out_table, err);
    case ZB__OP_PARSE_TIME:
      return zb__cpu_parse_time(in[0], (zb_parse_kind)c->variant, c->p.parse.format,
                                c->p.parse.info, out, err);
    case ZB__OP_LIST_JOIN: /* variant 1: each list's repr (zb_list_repr) */
      if (c->variant == 1) return zb__cpu_list_repr(in[0], out, err);
      return zb__cpu_list_join(in[0], c->p.cat.sep, c->p.cat.sep_len, out, err);
    case ZB__OP_TZ:
      return zb__cpu_tz(in[0], in[1], c->variant, c->p.tz.tz, c->p.tz.name, c->p.tz.ambiguous,
                        c->p.tz.nonexistent, out, err);
    case ZB__OP_ONE_HOT: return zb__cpu_one_hot(in[0], c->p.one_hot.n, &c->out_table, err);
    case ZB__OP_REPEAT: return zb__cpu_repeat(in[0], c->p.one_hot.n, out, err);
    case ZB__OP_GROUP_LAG:
      return zb__cpu_group_lag(in[0], c->p.lag.n_groups, c->p.lag.periods, out, err);
    case ZB__OP_TIME_BINS:
      if (c->variant == 0) return zb__cpu_time_range(in[0], c->p.time_bins.range, err);
      return zb__cpu_time_bins(in[0], c->p.time_bins.scale, c->p.time_bins.base,
                               c->p.time_bins.width, c->p.time_bins.n_bins, out, &c->out_count,
                               err);
    case ZB__OP_GROUPBY_AGG:
    case ZB__OP_COUNT: break;
  }
  return zb_error_set(err, ZB_EINVAL, "unknown operation %d", (int)c->op);
}

static const zb_backend k_cpu_backend = {
    .name = "cpu",
    .kind = ZB_DEVICE_CPU,
    .device_count = cpu_device_count,
    .device_usable = cpu_device_usable,
    .device_info = cpu_device_info,
    /* Host memory is handled by the core directly (zb_malloc, memcpy). */
    .run = cpu_run,
    .support = NULL, /* every call */
    .n_support = 0,
};

const zb_backend *zb__cpu_backend(void) { return &k_cpu_backend; }
