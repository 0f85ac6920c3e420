/*
 * dispatch.c -- the one way an operation reaches a backend (see
 * src/core/dispatch.h): the support check against a backend's table, the
 * move of the inputs to the device that runs the call, the CPU fallback
 * over host copies, the move of the results back to the data's device, and
 * the profile span that records where the call ran.
 */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "zambezi/profile.h"

const char *zb__op_name(zb__op op) {
  static const char *const names[ZB__OP_COUNT] = {
      "reduce",       "binary",     "unary",         "cast",      "is_null",
      "fill_null",    "filter",     "take",          "sort_indices", "sort_values",
      "str",          "str_cat",    "dt_field",      "clip",      "round",
      "where",        "stat",       "quantile",      "hash_rows", "unique",
      "nunique",      "value_counts", "duplicated",  "isin",      "join_indices",
      "groupby",      "groupby_agg", "group_ids",    "group_cumcount",
      "fill_scan",    "cumulative",  "rank",   "rolling", "ewm",
      "regex",        "parse_time",
      "list_join",    "tz",
      "one_hot",      "repeat",
      "groupby_ids",  "time_bins",  "group_lag", "groupby_segments",
      "diff", "group_order", "group_moment", "corr_matrix"};
  if ((int)op < 0 || op >= ZB__OP_COUNT) return "unknown";
  return names[op];
}

/* ---- support -------------------------------------------------------------- */

/* Whether a row of be's table covers (op, type, variant). */
static bool covers(const zb_backend *be, zb__op op, zb_type_id type, int32_t variant) {
  if (be->support == NULL) return true;
  if ((int)type < 0 || type >= ZB_TYPE_COUNT || variant < 0 || variant >= 64) return false;
  for (int64_t i = 0; i < be->n_support; i++) {
    const zb__support *r = &be->support[i];
    if (r->op == op && (r->types & ZB__T(type)) && (r->variants & ZB__V(variant))) return true;
  }
  return false;
}

bool zb__backend_has(const zb_backend *be, zb__op op) {
  if (be == NULL || be->run == NULL) return false;
  if (be->support == NULL) return true;
  for (int64_t i = 0; i < be->n_support; i++)
    if (be->support[i].op == op) return true;
  return false;
}

/* Every key column of table t listed in keys[0, n) is covered. */
static bool keys_covered(const zb_backend *be, zb__op op, const zb_table *t, int64_t n,
                         const int64_t *keys, int32_t variant) {
  for (int64_t k = 0; k < n; k++)
    if (!covers(be, op, t->columns[keys[k]]->type, variant)) return false;
  return true;
}

bool zb__backend_supports(const zb_backend *be, const zb__call *c) {
  if (be == NULL || be->run == NULL) return false;
  if (be->support == NULL) return true;
  switch (c->op) {
    case ZB__OP_BINARY:
      return covers(be, c->op, c->p.binary.compute, c->variant);
    case ZB__OP_SORT_INDICES:
      return keys_covered(be, c->op, c->table, c->p.sort.n_keys, c->p.sort.keys, 0);
    case ZB__OP_WHERE:
      return covers(be, c->op, c->in[1]->type, c->variant);
    case ZB__OP_HASH_ROWS:
    case ZB__OP_DUPLICATED:
      return keys_covered(be, c->op, c->table, c->p.keys.n_keys, c->p.keys.keys, 0);
    case ZB__OP_JOIN:
      for (int s = 0; s < 2; s++)
        for (int64_t k = 0; k < c->p.join.n_keys; k++)
          if (!covers(be, c->op, c->keys[s][k]->type, c->variant)) return false;
      return c->p.join.n_keys > 0 || covers(be, c->op, ZB_INT64, c->variant);
    case ZB__OP_GROUPBY:
      if (c->p.groupby.keep_ids) return false; /* the CPU's alone (groupby_ops.c) */
      if (!keys_covered(be, c->op, c->table, c->p.groupby.n_keys, c->p.groupby.keys, 0))
        return false;
      for (int64_t a = 0; a < c->p.groupby.n_aggs; a++) {
        const zb_agg *g = &c->p.groupby.aggs[a];
        /* SIZE reads no column: its rows name the variant with any type */
        zb_type_id t = g->op == ZB_AGG_SIZE ? ZB_INT64 : c->table->columns[g->column]->type;
        if (!covers(be, ZB__OP_GROUPBY_AGG, t, (int32_t)g->op)) return false;
        if (g->op == ZB_AGG_CORR &&
            !covers(be, ZB__OP_GROUPBY_AGG, c->table->columns[g->column2]->type, (int32_t)g->op))
          return false;
      }
      return true;
    case ZB__OP_FILTER:
    case ZB__OP_TAKE:
      if (c->variant == 0) return covers(be, c->op, c->in[0]->type, 0);
      for (int64_t k = 0; k < c->table->num_columns; k++)
        if (!covers(be, c->op, c->table->columns[k]->type, 1)) return false;
      return true;
    case ZB__OP_EWM:
    case ZB__OP_CORR_MATRIX:
      for (int64_t k = 0; k < c->table->num_columns; k++)
        if (!covers(be, c->op, c->table->columns[k]->type, c->variant)) return false;
      return true;
    case ZB__OP_GROUP_IDS:
      return keys_covered(be, c->op, c->table, c->p.groupby.n_keys, c->p.groupby.keys, 0);
    default:
      return covers(be, c->op, c->in[0]->type, c->variant);
  }
}

/* ---- moving a call's inputs and results ------------------------------------ */

/* The inputs of c, moved to dev (new references). */
typedef struct moved {
  zb_column *in[ZB__CALL_INPUTS];
  zb_table *table;
  zb_column **keys[2];
} moved;

static void moved_release(moved *m, int64_t n_keys) {
  for (int k = 0; k < ZB__CALL_INPUTS; k++) zb_column_release(m->in[k]);
  zb_table_release(m->table);
  for (int s = 0; s < 2; s++) {
    if (m->keys[s] == NULL) continue;
    for (int64_t k = 0; k < n_keys; k++) zb_column_release(m->keys[s][k]);
    zb_free(m->keys[s]);
  }
  memset(m, 0, sizeof *m);
}

/* *run = *c with its inputs on dev (held in m). */
static zb_status move_inputs(const zb__call *c, zb_device dev, moved *m, zb__call *run,
                             zb_error *err) {
  memset(m, 0, sizeof *m);
  *run = *c;
  zb_status st = ZB_OK;
  for (int k = 0; k < ZB__CALL_INPUTS && st == ZB_OK; k++) {
    if (c->in[k] == NULL) continue;
    st = zb_column_to_device(c->in[k], dev, &m->in[k], err);
    run->in[k] = m->in[k];
  }
  if (st == ZB_OK && c->table != NULL) {
    if (zb_device_equal(zb_table_device(c->table), dev))
      m->table = zb_table_retain((zb_table *)c->table);
    else
      st = zb_table_to_device(c->table, dev, &m->table, err);
    run->table = m->table;
  }
  int64_t n = c->op == ZB__OP_JOIN ? c->p.join.n_keys : 0;
  for (int s = 0; s < 2 && st == ZB_OK && c->keys[s] != NULL; s++) {
    m->keys[s] = (zb_column **)zb_calloc((size_t)(n > 0 ? n : 1), sizeof(zb_column *));
    if (m->keys[s] == NULL) {
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory (%s keys)", zb__op_name(c->op));
      break;
    }
    for (int64_t k = 0; k < n && st == ZB_OK; k++)
      st = zb_column_to_device(c->keys[s][k], dev, &m->keys[s][k], err);
    run->keys[s] = (const zb_column *const *)m->keys[s];
  }
  if (st != ZB_OK) moved_release(m, n);
  return st;
}

static void results_release(zb__call *c) {
  for (int k = 0; k < 2; k++) {
    zb_column_release(c->out[k]);
    c->out[k] = NULL;
  }
  zb_table_release(c->out_table);
  c->out_table = NULL;
}

/* Move c's column and table results to dev (they are replaced). */
static zb_status results_to(zb__call *c, zb_device dev, zb_error *err) {
  zb_status st = ZB_OK;
  for (int k = 0; k < 2 && st == ZB_OK; k++) {
    if (c->out[k] == NULL || zb_device_equal(c->out[k]->device, dev)) continue;
    zb_column *m = NULL;
    st = zb_column_to_device(c->out[k], dev, &m, err);
    zb_column_release(c->out[k]);
    c->out[k] = m;
  }
  if (st == ZB_OK && c->out_table != NULL) {
    zb_table *m = NULL;
    st = zb_table_to_device(c->out_table, dev, &m, err);
    zb_table_release(c->out_table);
    c->out_table = m;
  }
  return st;
}

/* Run c on be (device where) with its inputs moved there. */
static zb_status run_on(const zb_backend *be, zb_device where, zb__call *c, zb_error *err) {
  moved m;
  zb__call run;
  ZB_RETURN_NOT_OK(move_inputs(c, where, &m, &run, err));
  run.out[0] = run.out[1] = NULL;
  run.out_table = NULL;
  run.out_count = 0;
  zb_status st = be->run(&run, err);
  moved_release(&m, c->op == ZB__OP_JOIN ? c->p.join.n_keys : 0);
  if (st == ZB_OK) {
    c->out[0] = run.out[0];
    c->out[1] = run.out[1];
    c->out_table = run.out_table;
    c->out_count = run.out_count;
  } else if (st != ZB__DECLINED) {
    results_release(&run);
  }
  return st;
}

/* The largest input length of c, for profiles. */
static int64_t call_rows(const zb__call *c) {
  int64_t rows = c->table != NULL ? c->table->num_rows : 0;
  for (int k = 0; k < ZB__CALL_INPUTS; k++)
    if (c->in[k] != NULL) rows = ZB_MAX(rows, c->in[k]->length);
  if (c->op == ZB__OP_JOIN) rows = c->p.join.n_left + c->p.join.n_right;
  return rows;
}

/* ---- list columns ---------------------------------------------------------- */

static bool keys_list(const zb_table *t, int64_t n, const int64_t *keys) {
  for (int64_t k = 0; k < n; k++)
    if (t->columns[keys[k]]->type == ZB_LIST) return true;
  return false;
}

/* Whether c reads a list column (or makes one by a cast).  Only take,
 * filter, isnull and list_join know lists; every other operation refuses them here,
 * once, rather than in each kernel's type switch. */
static bool reads_list(const zb__call *c) {
  if (c->op == ZB__OP_TAKE || c->op == ZB__OP_FILTER || c->op == ZB__OP_IS_NULL ||
      c->op == ZB__OP_LIST_JOIN)
    return false;
  if (c->op == ZB__OP_CAST && c->variant == ZB_LIST) return true;
  for (int k = 0; k < ZB__CALL_INPUTS; k++)
    if (c->in[k] != NULL && c->in[k]->type == ZB_LIST) return true;
  const zb_table *t = c->table;
  switch (c->op) {
    case ZB__OP_SORT_INDICES: return keys_list(t, c->p.sort.n_keys, c->p.sort.keys);
    case ZB__OP_HASH_ROWS:
    case ZB__OP_DUPLICATED: return keys_list(t, c->p.keys.n_keys, c->p.keys.keys);
    case ZB__OP_GROUP_IDS: return keys_list(t, c->p.groupby.n_keys, c->p.groupby.keys);
    case ZB__OP_GROUPBY:
    case ZB__OP_GROUPBY_IDS:
    case ZB__OP_GROUPBY_SEGMENTS:
      if (c->op == ZB__OP_GROUPBY && keys_list(t, c->p.groupby.n_keys, c->p.groupby.keys))
        return true;
      for (int64_t a = 0; a < c->p.groupby.n_aggs; a++) {
        const zb_agg *g = &c->p.groupby.aggs[a];
        if (g->op != ZB_AGG_SIZE && t->columns[g->column]->type == ZB_LIST) return true;
        if (g->op == ZB_AGG_CORR && t->columns[g->column2]->type == ZB_LIST) return true;
      }
      return false;
    case ZB__OP_JOIN:
      for (int s = 0; s < 2; s++)
        for (int64_t k = 0; c->keys[s] != NULL && k < c->p.join.n_keys; k++)
          if (c->keys[s][k]->type == ZB_LIST) return true;
      return false;
    default:
      if (t != NULL)
        for (int64_t k = 0; k < t->num_columns; k++)
          if (t->columns[k]->type == ZB_LIST) return true;
      return false;
  }
}

/* The first list column c reads (for a message), or NULL. */
static const zb_column *first_list(const zb__call *c) {
  for (int k = 0; k < ZB__CALL_INPUTS; k++)
    if (c->in[k] != NULL && c->in[k]->type == ZB_LIST) return c->in[k];
  for (int s = 0; c->op == ZB__OP_JOIN && s < 2; s++)
    for (int64_t k = 0; c->keys[s] != NULL && k < c->p.join.n_keys; k++)
      if (c->keys[s][k]->type == ZB_LIST) return c->keys[s][k];
  for (int64_t k = 0; c->table != NULL && k < c->table->num_columns; k++)
    if (c->table->columns[k]->type == ZB_LIST) return c->table->columns[k];
  return NULL;
}

zb_status zb__dispatch(zb_device dev, zb__call *c, zb_error *err) {
  c->out[0] = c->out[1] = NULL;
  c->out_table = NULL;
  c->out_count = 0;
  if (reads_list(c)) {
    const zb_column *lc = first_list(c);
    char tb[128];
    return zb_error_set(err, ZB_ETYPE, "%s is not supported for list columns%s%s%s",
                        c->name != NULL ? c->name : zb__op_name(c->op), lc ? " (dtype " : "",
                        lc ? zb_column_type_text(lc, tb, sizeof tb) : "", lc ? ")" : "");
  }
  const zb_backend *be = zb__backend_for(dev.kind);
  if (be == NULL) return zb_error_set(err, ZB_ENODEVICE, "no backend for the data's device");
  bool native = zb__backend_supports(be, c);
  c->fell_back = false;
  ZB_PROFILE_SPAN_IF(!c->spanned, c->name != NULL ? c->name : zb__op_name(c->op),
                     zb__op_name(c->op), zb__backend_has(be, c->op), dev, dev, call_rows(c));
  ZB_PROFILE_SUPPORTED(native);
  zb_status st = ZB__DECLINED;
  if (native) st = run_on(be, dev, c, err);
  if (st == ZB__DECLINED) {
    if (native) ZB_PROFILE_DECLINED();
    c->fell_back = dev.kind != ZB_DEVICE_CPU;
    const zb_backend *cpu = zb__backend_for(ZB_DEVICE_CPU);
    if (be == cpu) return zb_error_set(err, ZB_EINVAL, "%s: the CPU declined",
                                       zb__op_name(c->op));
    st = run_on(cpu, ZB_CPU, c, err);
    if (st == ZB_OK) st = results_to(c, dev, err);
  }
  if (st != ZB_OK) {
    results_release(c);
    c->out_count = 0;
  }
  return st;
}

zb_status zb__dispatch_column(zb_device dev, zb__call *c, zb_column **out, zb_error *err) {
  *out = NULL;
  ZB_RETURN_NOT_OK(zb__dispatch(dev, c, err));
  *out = c->out[0];
  return ZB_OK;
}

/* ---- coverage ------------------------------------------------------------- */

/* The name of variant v of op, or NULL when op has no such variant. */
static const char *variant_name(zb__op op, int v) {
  switch (op) {
    case ZB__OP_REDUCE: return v < ZB_REDUCE_OP_COUNT ? zb_reduce_op_name((zb_reduce_op)v) : NULL;
    case ZB__OP_BINARY: return v < ZB_BINARY_OP_COUNT ? zb_binary_op_name((zb_binary_op)v) : NULL;
    case ZB__OP_UNARY: return v < ZB_UNARY_OP_COUNT ? zb_unary_op_name((zb_unary_op)v) : NULL;
    case ZB__OP_CAST: return v < ZB_TYPE_COUNT ? zb_type_name((zb_type_id)v) : NULL;
    case ZB__OP_IS_NULL: return v == 0 ? "isnull" : v == 1 ? "notnull" : NULL;
    case ZB__OP_SORT_VALUES: return v == 0 ? "values" : v == 1 ? "with_indices" : NULL;
    case ZB__OP_FILL_SCAN: return v == 0 ? "ffill" : v == 1 ? "bfill" : NULL;
    case ZB__OP_CUMULATIVE: {
      static const char *const names[2 * ZB_CUM_OP_COUNT] = {
          "cumsum", "cumprod", "cummin", "cummax",
          "group_cumsum", "group_cumprod", "group_cummin", "group_cummax"};
      return v < 2 * ZB_CUM_OP_COUNT ? names[v] : NULL;
    }
    case ZB__OP_RANK: {
      static const char *const names[2 * ZB_RANK_METHOD_COUNT] = {
          "average", "min", "max", "first", "dense",
          "group_average", "group_min", "group_max", "group_first", "group_dense"};
      return v < 2 * ZB_RANK_METHOD_COUNT ? names[v] : NULL;
    }
    case ZB__OP_ROLLING: {
      static const char *const names[3 * ZB_ROLL_OP_COUNT] = {
          "count", "sum", "mean", "min", "max", "var", "std", "skew", "kurt", "median",
          "quantile", "cov", "corr", "group_count", "group_sum", "group_mean", "group_min",
          "group_max", "group_var", "group_std", "group_skew", "group_kurt", "group_median",
          "group_quantile", "group_cov", "group_corr", "time_count", "time_sum", "time_mean",
          "time_min", "time_max", "time_var", "time_std", "time_skew", "time_kurt",
          "time_median", "time_quantile", "time_cov", "time_corr"};
      return v < 3 * ZB_ROLL_OP_COUNT ? names[v] : NULL;
    }
    case ZB__OP_EWM: {
      static const char *const names[2 * ZB_EWM_OP_COUNT] = {
          "mean", "sum", "var", "std", "cov", "corr",
          "group_mean", "group_sum", "group_var", "group_std", "group_cov", "group_corr"};
      return v < 2 * ZB_EWM_OP_COUNT ? names[v] : NULL;
    }
    case ZB__OP_FILTER:
    case ZB__OP_TAKE: return v == 0 ? "column" : v == 1 ? "table" : NULL;
    case ZB__OP_STR: return v < ZB_STR_OP_COUNT ? zb_str_op_name((zb_str_op)v) : NULL;
    case ZB__OP_REGEX: return v < ZB_RE_OP_COUNT ? zb_regex_op_name((zb_regex_op)v) : NULL;
    case ZB__OP_PARSE_TIME: return v == 0 ? "datetime" : v == 1 ? "timedelta" : NULL;
    case ZB__OP_TZ: return v == 0 ? "to_wall" : v == 1 ? "localize" : NULL;
    case ZB__OP_DT_FIELD: return v < ZB_DT_FIELD_COUNT ? zb_dt_field_name((zb_dt_field)v) : NULL;
    case ZB__OP_STAT: return v < ZB_STAT_OP_COUNT ? zb_stat_op_name((zb_stat_op)v) : NULL;
    case ZB__OP_JOIN: return v < ZB_JOIN_HOW_COUNT ? zb_join_how_name((zb_join_how)v) : NULL;
    case ZB__OP_GROUPBY_AGG: return v < ZB_AGG_OP_COUNT ? zb_agg_op_name((zb_agg_op)v) : NULL;
    default: return v == 0 ? "" : NULL;
  }
}

/* Append name to buf (comma-separated), truncating at size. */
static void append_name(char *buf, size_t size, const char *name) {
  size_t n = strlen(buf);
  if (n + 1 >= size) return;
  snprintf(buf + n, size - n, "%s%s", n > 0 ? "," : "", name);
}

static void coverage_row(const zb__support *r, zb_coverage_row *out) {
  memset(out, 0, sizeof *out);
  snprintf(out->op, sizeof out->op, "%s", zb__op_name(r->op));
  bool all_v = true;
  for (int v = 0; v < 64; v++) {
    const char *name = variant_name(r->op, v);
    if (name != NULL && !(r->variants & ZB__V(v))) all_v = false;
  }
  if (all_v) {
    snprintf(out->variants, sizeof out->variants, "*");
  } else {
    for (int v = 0; v < 64; v++) {
      const char *name = variant_name(r->op, v);
      if (name != NULL && (r->variants & ZB__V(v))) append_name(out->variants, sizeof out->variants, name);
    }
  }
  if ((r->types & ZB__ALL_TYPES) == ZB__ALL_TYPES) {
    snprintf(out->types, sizeof out->types, "*");
  } else {
    for (int t = 0; t < ZB_TYPE_COUNT; t++)
      if (r->types & ZB__T(t)) append_name(out->types, sizeof out->types, zb_type_name((zb_type_id)t));
  }
}

zb_status zb_backend_coverage(zb_device_kind kind, zb_coverage_row **rows, int64_t *n_rows,
                              zb_error *err) {
  if (rows == NULL || n_rows == NULL) return zb_error_set(err, ZB_EINVAL, "coverage: NULL output");
  *rows = NULL;
  *n_rows = 0;
  const zb_backend *be = zb__backend_for(kind);
  if (be == NULL) return zb_error_set(err, ZB_ENODEVICE, "this build has no backend for that device kind");
  /* the CPU (no table) runs every operation, for every type and variant */
  int64_t n = be->support != NULL ? be->n_support : ZB__OP_COUNT - 1;
  zb_coverage_row *out = (zb_coverage_row *)zb_calloc((size_t)(n > 0 ? n : 1), sizeof *out);
  if (out == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (coverage)");
  for (int64_t i = 0, k = 0; k < n; i++) {
    if (be->support != NULL) {
      coverage_row(&be->support[i], &out[k++]);
      continue;
    }
    if (i == ZB__OP_GROUPBY_AGG) continue; /* its group-by takes every aggregation */
    zb__support all = {(zb__op)i, ZB__ALL_TYPES, ZB__ALL_VARIANTS};
    coverage_row(&all, &out[k++]);
  }
  *rows = out;
  *n_rows = n;
  return ZB_OK;
}
