/*
 * groupby_ops.c -- the checked entry points of zambezi/groupby.h:
 * zb_table_groupby, zb_table_group_ids and zb_column_group_cumcount, the
 * grouping kept for later aggregations (zb_table_groupby_keep_ids,
 * zb_table_groupby_ids), aggregation over segments of consecutive rows
 * (zb_table_groupby_segments), the rows of each group in order
 * (zb_column_group_order), plus the aggregation names.
 *
 * Each validates its arguments once (key and column indices, the dtypes
 * every aggregation accepts, ddof and q) and hands the call to zb__dispatch
 * (src/core/dispatch.c), which runs it where the table lives or on the CPU.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

static const char *const k_agg_names[ZB_AGG_OP_COUNT] = {
    "sum",  "mean",     "min",   "max",  "count",   "size", "std", "var", "median",
    "quantile", "first", "last", "nunique", "prod", "any",  "all", "corr"};

const char *zb_agg_op_name(zb_agg_op op) {
  if ((int)op < 0 || op >= ZB_AGG_OP_COUNT) return "unknown";
  return k_agg_names[op];
}

zb_status zb_agg_op_from_name(const char *name, zb_agg_op *out, zb_error *err) {
  if (name == NULL || out == NULL)
    return zb_error_set(err, ZB_EINVAL, "aggregation name: NULL argument");
  for (int i = 0; i < ZB_AGG_OP_COUNT; i++) {
    if (strcmp(name, k_agg_names[i]) == 0) {
      *out = (zb_agg_op)i;
      return ZB_OK;
    }
  }
  return zb_error_set(err, ZB_EINVAL,
                      "unknown aggregation '%s' (expected sum, mean, min, max, count, size, "
                      "std, var, median, quantile, first, last, nunique, prod, any, all or "
                      "corr)",
                      name);
}

static zb_status check_keys(const char *what, const zb_table *t, int64_t n_keys,
                            const int64_t *keys, zb_error *err) {
  if (t == NULL) return zb_error_set(err, ZB_EINVAL, "%s: NULL table", what);
  if (n_keys < 1 || keys == NULL)
    return zb_error_set(err, ZB_EINVAL, "%s: at least one key column is needed", what);
  for (int64_t i = 0; i < n_keys; i++)
    if (keys[i] < 0 || keys[i] >= t->num_columns)
      return zb_error_set(err, ZB_EINDEX, "%s: key %lld is column %lld, but the table has %lld "
                          "columns", what, (long long)i, (long long)keys[i],
                          (long long)t->num_columns);
  return ZB_OK;
}

static bool numeric(zb_type_id t) { return zb_type_is_numeric(t); }

static zb_status check_agg(const zb_table *t, int64_t i, const zb_agg *a, zb_error *err) {
  if ((int)a->op < 0 || a->op >= ZB_AGG_OP_COUNT)
    return zb_error_set(err, ZB_EINVAL, "group-by: aggregation %lld has an unknown op %d",
                        (long long)i, (int)a->op);
  const char *op = zb_agg_op_name(a->op);
  if (a->op == ZB_AGG_SIZE) return ZB_OK;
  if (a->column < 0 || a->column >= t->num_columns)
    return zb_error_set(err, ZB_EINDEX, "group-by: %s (aggregation %lld) of column %lld, but "
                        "the table has %lld columns", op, (long long)i, (long long)a->column,
                        (long long)t->num_columns);
  const zb_column *c = t->columns[a->column];
  const char *name = t->names[a->column];
  switch (a->op) {
    case ZB_AGG_COUNT:
    case ZB_AGG_FIRST:
    case ZB_AGG_LAST:
    case ZB_AGG_NUNIQUE:
      return ZB_OK;
    case ZB_AGG_MIN:
    case ZB_AGG_MAX:
      if (numeric(c->type) || c->type == ZB_STRING || c->type == ZB_DATE32 ||
          c->type == ZB_TIMESTAMP || c->type == ZB_DURATION ||
          (c->type == ZB_CATEGORICAL && zb_column_is_ordered(c)))
        return ZB_OK;
      return zb_error_set(err, ZB_ETYPE, "group-by: %s of column '%s' (%s) is not defined%s",
                          op, name, zb_type_name(c->type),
                          c->type == ZB_CATEGORICAL
                              ? " (categories are unordered; cast to string to compare them)"
                              : "");
    default:
      break;
  }
  if (!numeric(c->type))
    return zb_error_set(err, ZB_ETYPE, "group-by: %s of column '%s' needs numbers or bools, "
                        "not %s", op, name, zb_type_name(c->type));
  if ((a->op == ZB_AGG_STD || a->op == ZB_AGG_VAR) && a->ddof < 0)
    return zb_error_set(err, ZB_EINVAL, "group-by: %s of column '%s': ddof must be >= 0, not "
                        "%lld", op, name, (long long)a->ddof);
  if (a->op == ZB_AGG_QUANTILE && !(a->q >= 0.0 && a->q <= 1.0))
    return zb_error_set(err, ZB_EINVAL, "group-by: quantile of column '%s': q must lie in "
                        "[0, 1], got %g", name, a->q);
  if (a->op == ZB_AGG_CORR) {
    if (a->column2 < 0 || a->column2 >= t->num_columns)
      return zb_error_set(err, ZB_EINDEX, "group-by: corr of column '%s' with column %lld, but "
                          "the table has %lld columns", name, (long long)a->column2,
                          (long long)t->num_columns);
    const zb_column *c2 = t->columns[a->column2];
    if (!numeric(c2->type))
      return zb_error_set(err, ZB_ETYPE, "group-by: corr of '%s' with column '%s' needs "
                          "numbers or bools, not %s", name, t->names[a->column2],
                          zb_type_name(c2->type));
  }
  return ZB_OK;
}

/* The result's column names (keys, then each aggregation's name or its
 * column's, "size" for SIZE) must be unique: checked here so that every
 * backend reports a clash the same way. */
const char *zb__groupby_result_name(const zb_table *t, int64_t n_keys, const int64_t *keys,
                                    const zb_agg *aggs, int64_t i) {
  if (i < n_keys) return t->names[keys[i]];
  const zb_agg *a = &aggs[i - n_keys];
  if (a->name != NULL) return a->name;
  return a->op == ZB_AGG_SIZE ? "size" : t->names[a->column];
}

static zb_status check_names(const zb_table *t, int64_t n_keys, const int64_t *keys,
                             int64_t n_aggs, const zb_agg *aggs, zb_error *err) {
  int64_t nc = n_keys + n_aggs;
  for (int64_t a = 1; a < nc; a++) {
    const char *na = zb__groupby_result_name(t, n_keys, keys, aggs, a);
    for (int64_t b = 0; b < a; b++)
      if (strcmp(na, zb__groupby_result_name(t, n_keys, keys, aggs, b)) == 0)
        return zb_error_set(err, ZB_EINVAL,
                            "group-by: two result columns are named '%s' (give the "
                            "aggregations distinct names)", na);
  }
  return ZB_OK;
}

/* ---- ordered categoricals -------------------------------------------------
 * min / max of an ordered categorical follow the order of its categories,
 * which is the order of its codes.  Such aggregations run over an int32
 * view of the codes, a column added to a copy of the table (every backend
 * has int32 min / max), and their results are made categoricals of the same
 * categories again. */

static bool ordered_minmax(const zb_table *t, const zb_agg *a) {
  if (a->op != ZB_AGG_MIN && a->op != ZB_AGG_MAX) return false;
  const zb_column *c = t->columns[a->column];
  return c->type == ZB_CATEGORICAL && zb_column_is_ordered(c);
}

typedef struct {
  zb_table *t;  /* the table with the codes views, or NULL when none is needed */
  zb_agg *aggs; /* the aggregations, those of ordered categoricals over the views */
} codes_run;

static void codes_run_free(codes_run *r) {
  zb_table_release(r->t);
  zb_free(r->aggs);
  r->t = NULL;
  r->aggs = NULL;
}

static zb_status codes_run_make(const zb_table *t, int64_t n_keys, const int64_t *keys,
                                int64_t n_aggs, const zb_agg *aggs, codes_run *r,
                                zb_error *err) {
  r->t = NULL;
  r->aggs = NULL;
  int64_t m = 0;
  for (int64_t i = 0; i < n_aggs; i++) m += ordered_minmax(t, &aggs[i]);
  if (m == 0) return ZB_OK;
  const int64_t nc = t->num_columns + m;
  zb_column **cols = zb_calloc((size_t)nc, sizeof *cols);
  const char **names = zb_calloc((size_t)nc, sizeof *names);
  char(*view_names)[40] = zb_calloc((size_t)m, sizeof *view_names);
  r->aggs = zb_malloc((size_t)n_aggs * sizeof *r->aggs);
  zb_status st = cols && names && view_names && r->aggs
                     ? ZB_OK
                     : zb_error_set(err, ZB_ENOMEM, "group-by: out of host memory");
  for (int64_t j = 0; st == ZB_OK && j < t->num_columns; j++) {
    cols[j] = t->columns[j];
    names[j] = t->names[j];
  }
  for (int64_t i = 0, k = 0; st == ZB_OK && i < n_aggs; i++) {
    r->aggs[i] = aggs[i];
    if (!ordered_minmax(t, &aggs[i])) continue;
    const zb_column *c = t->columns[aggs[i].column];
    const int64_t j = t->num_columns + k++;
    st = zb__categorical_codes(c, &cols[j], err);
    snprintf(view_names[j - t->num_columns], sizeof view_names[0], "\x1f%lld codes of %lld",
             (long long)j, (long long)aggs[i].column);
    names[j] = view_names[j - t->num_columns];
    r->aggs[i].column = j;
    r->aggs[i].name = zb__groupby_result_name(t, n_keys, keys, aggs, n_keys + i);
  }
  if (st == ZB_OK) st = zb_table_make(nc, cols, names, &r->t, err);
  for (int64_t j = t->num_columns; cols != NULL && j < nc; j++) zb_column_release(cols[j]);
  zb_free(cols);
  zb_free(names);
  zb_free(view_names);
  if (st != ZB_OK) codes_run_free(r);
  return st;
}

/* *res with the results of ordered categoricals' min / max (int32 codes, the
 * columns n_keys + i) made categoricals of their column's categories. */
static zb_status codes_back(const zb_table *t, int64_t n_keys, int64_t n_aggs,
                            const zb_agg *aggs, zb_table **res, zb_error *err) {
  zb_table *r = *res;
  zb_column **cols = zb_calloc((size_t)r->num_columns, sizeof *cols);
  if (cols == NULL) return zb_error_set(err, ZB_ENOMEM, "group-by: out of host memory");
  zb_status st = ZB_OK;
  for (int64_t j = 0; j < r->num_columns; j++) cols[j] = zb_column_retain(r->columns[j]);
  for (int64_t i = 0; st == ZB_OK && i < n_aggs; i++) {
    if (!ordered_minmax(t, &aggs[i])) continue;
    zb_column *v = cols[n_keys + i];
    st = zb_column_make(ZB_CATEGORICAL, v->length, v->offset, v->validity, v->data, NULL,
                        t->columns[aggs[i].column]->dictionary, v->null_count,
                        &cols[n_keys + i], err);
    zb_column_release(v);
    if (st != ZB_OK) cols[n_keys + i] = NULL;
  }
  zb_table *out = NULL;
  if (st == ZB_OK)
    st = zb_table_make(r->num_columns, cols, (const char *const *)r->names, &out, err);
  for (int64_t j = 0; j < r->num_columns; j++) zb_column_release(cols[j]);
  zb_free(cols);
  if (st != ZB_OK) return st;
  zb_table_release(r);
  *res = out;
  return ZB_OK;
}

/* The device of t's data (the CPU for a table without columns). */
static zb_device data_device(const zb_table *t) {
  return t->num_columns > 0 ? t->columns[0]->device : ZB_CPU;
}

/* Run the group-by call c (its table t, its aggregations), those of ordered
 * categoricals over their codes; on failure nothing is left in c. */
static zb_status run_groupby(zb__call *c, int64_t n_keys, const int64_t *keys, zb_device dev,
                             zb_error *err) {
  const zb_table *t = c->table;
  const int64_t n_aggs = c->p.groupby.n_aggs;
  const zb_agg *aggs = c->p.groupby.aggs;
  codes_run cr;
  ZB_RETURN_NOT_OK(codes_run_make(t, n_keys, keys, n_aggs, aggs, &cr, err));
  if (cr.t != NULL) {
    c->table = cr.t;
    c->p.groupby.aggs = cr.aggs;
  }
  zb_status st = zb__dispatch(dev, c, err);
  if (st == ZB_OK && cr.t != NULL) st = codes_back(t, n_keys, n_aggs, aggs, &c->out_table, err);
  codes_run_free(&cr);
  c->table = t;
  c->p.groupby.aggs = aggs;
  if (st != ZB_OK) {
    zb_table_release(c->out_table);
    zb_column_release(c->out[0]);
    c->out_table = NULL;
    c->out[0] = NULL;
  }
  return st;
}

zb_status zb_table_groupby(const zb_table *t, int64_t n_keys, const int64_t *keys,
                           bool dropna, bool sort, int64_t n_aggs, const zb_agg *aggs,
                           zb_table **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "group-by: NULL output");
  *out = NULL;
  ZB_RETURN_NOT_OK(check_keys("group-by", t, n_keys, keys, err));
  if (n_aggs < 0 || (n_aggs > 0 && aggs == NULL))
    return zb_error_set(err, ZB_EINVAL, "group-by: bad aggregation list");
  for (int64_t i = 0; i < n_aggs; i++) ZB_RETURN_NOT_OK(check_agg(t, i, &aggs[i], err));
  ZB_RETURN_NOT_OK(check_names(t, n_keys, keys, n_aggs, aggs, err));
  zb__call c = {.op = ZB__OP_GROUPBY,
                .table = t,
                .p.groupby = {.n_keys = n_keys, .keys = keys, .dropna = dropna, .sort = sort,
                              .n_aggs = n_aggs, .aggs = aggs}};
  ZB_RETURN_NOT_OK(run_groupby(&c, n_keys, keys, data_device(t), err));
  *out = c.out_table;
  return ZB_OK;
}

zb_status zb_table_group_ids(const zb_table *t, int64_t n_keys, const int64_t *keys,
                             bool dropna, bool sort, zb_column **out, int64_t *n_groups,
                             zb_error *err) {
  if (out == NULL || n_groups == NULL)
    return zb_error_set(err, ZB_EINVAL, "group ids: NULL output");
  *out = NULL;
  *n_groups = 0;
  ZB_RETURN_NOT_OK(check_keys("group ids", t, n_keys, keys, err));
  zb__call c = {.op = ZB__OP_GROUP_IDS,
                .table = t,
                .p.groupby = {.n_keys = n_keys, .keys = keys, .dropna = dropna, .sort = sort}};
  ZB_RETURN_NOT_OK(zb__dispatch(data_device(t), &c, err));
  *out = c.out[0];
  *n_groups = c.out_count;
  return ZB_OK;
}

zb_status zb_column_group_cumcount(const zb_column *group_ids, int64_t n_groups,
                                   bool ascending, zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "cumcount: NULL output");
  *out = NULL;
  if (group_ids == NULL) return zb_error_set(err, ZB_EINVAL, "cumcount: NULL column");
  if (group_ids->type != ZB_INT64)
    return zb_error_set(err, ZB_ETYPE, "cumcount: group ids must be int64, not %s",
                        zb_type_name(group_ids->type));
  if (n_groups < 0)
    return zb_error_set(err, ZB_EINVAL, "cumcount: n_groups must be >= 0, not %lld",
                        (long long)n_groups);
  zb__call c = {.op = ZB__OP_GROUP_CUMCOUNT, .name = "cumcount"};
  c.in[0] = group_ids;
  c.p.cumcount.n_groups = n_groups;
  c.p.cumcount.ascending = ascending;
  return zb__dispatch_column(group_ids->device, &c, out, err);
}

zb_status zb_column_group_lag(const zb_column *group_ids, int64_t n_groups, int64_t periods,
                              zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "group_lag: NULL output");
  *out = NULL;
  if (group_ids == NULL) return zb_error_set(err, ZB_EINVAL, "group_lag: NULL column");
  if (group_ids->type != ZB_INT64)
    return zb_error_set(err, ZB_ETYPE, "group_lag: group ids must be int64, not %s",
                        zb_type_name(group_ids->type));
  if (n_groups < 0)
    return zb_error_set(err, ZB_EINVAL, "group_lag: n_groups must be >= 0, not %lld",
                        (long long)n_groups);
  if (periods == INT64_MIN)
    return zb_error_set(err, ZB_EINVAL, "group_lag: periods out of range");
  zb__call c = {.op = ZB__OP_GROUP_LAG, .name = "group_lag"};
  c.in[0] = group_ids;
  c.p.lag.n_groups = n_groups;
  c.p.lag.periods = periods;
  return zb__dispatch_column(group_ids->device, &c, out, err);
}

zb_status zb_column_group_moment(const zb_column *col, const zb_column *group_ids,
                                 int64_t n_groups, zb_moment_op op, bool skipna,
                                 zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "group_moment: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "group_moment: NULL column");
  if ((int)op < 0 || op >= ZB_MOMENT_OP_COUNT)
    return zb_error_set(err, ZB_EINVAL, "group_moment: unknown moment %d", (int)op);
  const char *what = op == ZB_MOMENT_SKEW ? "skew" : "kurt";
  if (!zb_type_is_integer(col->type) && !zb_type_is_float(col->type) && col->type != ZB_BOOL)
    return zb_error_set(err, ZB_ETYPE, "%s: the column must hold numbers, not %s", what,
                        zb_type_name(col->type));
  if (group_ids == NULL) { /* the whole column, one group (Series.skew / kurt) */
    if (n_groups != 1)
      return zb_error_set(err, ZB_EINVAL, "%s: without group ids n_groups must be 1, not %lld",
                          what, (long long)n_groups);
  } else if (group_ids->type != ZB_INT64)
    return zb_error_set(err, ZB_ETYPE, "group-by %s: group ids must be int64, not %s", what,
                        zb_type_name(group_ids->type));
  else if (group_ids->length != col->length)
    return zb_error_set(err, ZB_EINVAL, "group-by %s: %lld group ids for %lld rows", what,
                        (long long)group_ids->length, (long long)col->length);
  if (n_groups < 0)
    return zb_error_set(err, ZB_EINVAL, "group-by %s: n_groups must be >= 0, not %lld", what,
                        (long long)n_groups);
  if (group_ids != NULL && !zb_device_equal(col->device, group_ids->device))
    return zb_error_set(err, ZB_EINVAL, "group-by %s: group ids and data on different devices",
                        what);
  zb__call c = {.op = ZB__OP_GROUP_MOMENT, .variant = (int32_t)op, .name = what};
  c.in[0] = col;
  c.in[1] = group_ids;
  c.p.moment.n_groups = n_groups;
  c.p.moment.skipna = skipna;
  return zb__dispatch_column(col->device, &c, out, err);
}

/* ---- grouping once, aggregating many times ---------------------------------------- */

zb_status zb_table_groupby_keep_ids(const zb_table *t, int64_t n_keys, const int64_t *keys,
                                    bool dropna, bool sort, int64_t n_aggs, const zb_agg *aggs,
                                    zb_table **out, zb_column **ids, int64_t *n_groups,
                                    zb_error *err) {
  if (out == NULL || ids == NULL || n_groups == NULL)
    return zb_error_set(err, ZB_EINVAL, "group-by: NULL output");
  *out = NULL;
  *ids = NULL;
  *n_groups = 0;
  ZB_RETURN_NOT_OK(check_keys("group-by", t, n_keys, keys, err));
  if (n_aggs < 0 || (n_aggs > 0 && aggs == NULL))
    return zb_error_set(err, ZB_EINVAL, "group-by: bad aggregation list");
  for (int64_t i = 0; i < n_aggs; i++) ZB_RETURN_NOT_OK(check_agg(t, i, &aggs[i], err));
  ZB_RETURN_NOT_OK(check_names(t, n_keys, keys, n_aggs, aggs, err));
  zb_device dev = data_device(t);
  if (dev.kind != ZB_DEVICE_CPU) {
    /* Other backends group twice (their group-by keeps no ids); the results
     * are the same. */
    ZB_RETURN_NOT_OK(zb_table_groupby(t, n_keys, keys, dropna, sort, n_aggs, aggs, out, err));
    zb_status st = zb_table_group_ids(t, n_keys, keys, dropna, sort, ids, n_groups, err);
    if (st != ZB_OK) {
      zb_table_release(*out);
      *out = NULL;
    }
    return st;
  }
  zb__call c = {.op = ZB__OP_GROUPBY,
                .table = t,
                .p.groupby = {n_keys, keys, dropna, sort, n_aggs, aggs, 0, true}};
  ZB_RETURN_NOT_OK(run_groupby(&c, n_keys, keys, dev, err));
  *out = c.out_table;
  *ids = c.out[0];
  *n_groups = c.out_count;
  return ZB_OK;
}

zb_status zb_table_groupby_ids(const zb_table *t, const zb_column *ids, int64_t n_groups,
                               int64_t n_aggs, const zb_agg *aggs, zb_table **out,
                               zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "group-by by ids: NULL output");
  *out = NULL;
  if (t == NULL || ids == NULL)
    return zb_error_set(err, ZB_EINVAL, "group-by by ids: NULL table or ids");
  if (ids->type != ZB_INT64)
    return zb_error_set(err, ZB_ETYPE, "group-by by ids: group ids must be int64, not %s",
                        zb_type_name(ids->type));
  if (ids->length != t->num_rows)
    return zb_error_set(err, ZB_EINVAL, "group-by by ids: %lld group ids for %lld rows",
                        (long long)ids->length, (long long)t->num_rows);
  if (n_groups < 0)
    return zb_error_set(err, ZB_EINVAL, "group-by by ids: n_groups must be >= 0, not %lld",
                        (long long)n_groups);
  if (n_aggs < 0 || (n_aggs > 0 && aggs == NULL))
    return zb_error_set(err, ZB_EINVAL, "group-by by ids: bad aggregation list");
  for (int64_t i = 0; i < n_aggs; i++) ZB_RETURN_NOT_OK(check_agg(t, i, &aggs[i], err));
  ZB_RETURN_NOT_OK(check_names(t, 0, NULL, n_aggs, aggs, err));
  zb__call c = {.op = ZB__OP_GROUPBY_IDS,
                .table = t,
                .p.groupby = {0, NULL, false, false, n_aggs, aggs, n_groups, false}};
  c.in[0] = ids;
  ZB_RETURN_NOT_OK(run_groupby(&c, 0, NULL, data_device(t), err));
  *out = c.out_table;
  return ZB_OK;
}

/* The aggregations a segmented reduction has (zb_table_groupby_segments). */
static zb_status check_segment_agg(const zb_table *t, const zb_agg *a, zb_error *err) {
  const char *op = zb_agg_op_name(a->op);
  if (a->op == ZB_AGG_SIZE) return ZB_OK;
  const zb_column *c = t->columns[a->column];
  bool fixed = c->type != ZB_STRING && c->type != ZB_LIST && c->type != ZB_CATEGORICAL;
  bool ok = false;
  switch (a->op) {
    case ZB_AGG_COUNT:
    case ZB_AGG_FIRST:
    case ZB_AGG_LAST: ok = fixed; break;
    case ZB_AGG_MIN:
    case ZB_AGG_MAX: /* check_agg did the rest; ordered categoricals run over their codes */
      ok = (fixed && c->type != ZB_STRING) || ordered_minmax(t, a);
      break;
    case ZB_AGG_SUM:
    case ZB_AGG_MEAN: ok = true; break; /* numbers and bools (check_agg) */
    default: break;
  }
  if (ok) return ZB_OK;
  return zb_error_set(err, ZB_ENOTSUP, "group-by by segments: %s of column '%s' (%s) is not "
                      "supported (group by ids)", op, t->names[a->column],
                      zb_type_name(c->type));
}

zb_status zb_table_groupby_segments(const zb_table *t, const zb_column *offsets,
                                    int64_t n_aggs, const zb_agg *aggs, zb_table **out,
                                    zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "group-by by segments: NULL output");
  *out = NULL;
  if (t == NULL || offsets == NULL)
    return zb_error_set(err, ZB_EINVAL, "group-by by segments: NULL table or offsets");
  if (offsets->type != ZB_INT64 || offsets->null_count > 0 || offsets->length < 1)
    return zb_error_set(err, ZB_ETYPE, "group-by by segments: the offsets must be int64 "
                        "without nulls, one more than the groups (got %s, %lld values, %lld "
                        "null)", zb_type_name(offsets->type), (long long)offsets->length,
                        (long long)offsets->null_count);
  if (n_aggs < 0 || (n_aggs > 0 && aggs == NULL))
    return zb_error_set(err, ZB_EINVAL, "group-by by segments: bad aggregation list");
  for (int64_t i = 0; i < n_aggs; i++) {
    ZB_RETURN_NOT_OK(check_agg(t, i, &aggs[i], err));
    ZB_RETURN_NOT_OK(check_segment_agg(t, &aggs[i], err));
  }
  ZB_RETURN_NOT_OK(check_names(t, 0, NULL, n_aggs, aggs, err));
  if (offsets->device.kind != ZB_DEVICE_CPU)
    return zb_error_set(err, ZB_EINVAL, "group-by by segments: the offsets must be in host "
                        "memory");
  const int64_t *o = (const int64_t *)offsets->data->data + offsets->offset;
  int64_t prev = 0;
  for (int64_t g = 0; g < offsets->length; g++) { /* one pass over the groups, not the rows */
    if (o[g] < prev || o[g] > t->num_rows)
      return zb_error_set(err, ZB_EINDEX, "group-by by segments: offset %lld is %lld, "
                          "outside [%lld, %lld] (the offsets must not decrease)",
                          (long long)g, (long long)o[g], (long long)prev,
                          (long long)t->num_rows);
    prev = o[g];
  }
  zb__call c = {.op = ZB__OP_GROUPBY_SEGMENTS,
                .table = t,
                .p.groupby = {0, NULL, false, false, n_aggs, aggs, offsets->length - 1, false}};
  c.in[0] = offsets;
  ZB_RETURN_NOT_OK(run_groupby(&c, 0, NULL, data_device(t), err));
  *out = c.out_table;
  return ZB_OK;
}

zb_status zb_column_group_order(const zb_column *ids, int64_t n_groups, zb_column **order,
                                zb_column **sorted_ids, zb_error *err) {
  if (order == NULL || sorted_ids == NULL)
    return zb_error_set(err, ZB_EINVAL, "group order: NULL output");
  *order = *sorted_ids = NULL;
  if (ids == NULL) return zb_error_set(err, ZB_EINVAL, "group order: NULL group ids");
  if (ids->type != ZB_INT64)
    return zb_error_set(err, ZB_ETYPE, "group order: group ids must be int64, not %s",
                        zb_type_name(ids->type));
  if (n_groups < 0)
    return zb_error_set(err, ZB_EINVAL, "group order: n_groups must be >= 0, not %lld",
                        (long long)n_groups);
  zb__call c = {.op = ZB__OP_GROUP_ORDER, .name = "group_order"};
  c.in[0] = ids;
  c.p.lag.n_groups = n_groups;
  ZB_RETURN_NOT_OK(zb__dispatch(ids->device, &c, err));
  *order = c.out[0];
  *sorted_ids = c.out[1];
  return ZB_OK;
}
