/*
 * stats_ops.c -- the checked entry points of the statistics and hash-based
 * operations declared in zambezi/compute.h: zb_column_stat, quantile,
 * min_max, hashing, unique, nunique, value_counts, duplicated,
 * drop_duplicates and isin.
 *
 * Each validates its arguments once (types, key indices, q range), brings
 * the operands of isin to types the hash identity compares directly, and
 * hands the call to zb__dispatch (src/core/dispatch.c), which runs it where
 * the data lives or on the CPU.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

const char *zb_stat_op_name(zb_stat_op op) {
  static const char *const names[ZB_STAT_OP_COUNT] = {"var",    "std",    "prod",
                                                      "any",    "all",    "argmin",
                                                      "argmax", "median"};
  if ((int)op < 0 || op >= ZB_STAT_OP_COUNT) return "unknown";
  return names[op];
}

/* ---- helpers -------------------------------------------------------------- */

static bool stat_type_ok(zb_stat_op op, zb_type_id t) {
  if (zb_type_is_numeric(t)) return true;
  if (op == ZB_STAT_ARGMIN || op == ZB_STAT_ARGMAX)
    return t == ZB_STRING || t == ZB_DATE32 || t == ZB_TIMESTAMP || t == ZB_DURATION;
  return false;
}

/* ---- statistics ----------------------------------------------------------- */

zb_status zb_column_stat(const zb_column *col, zb_stat_op op, int64_t ddof, zb_scalar *out,
                         zb_error *err) {
  if (col == NULL || out == NULL) return zb_error_set(err, ZB_EINVAL, "stat: NULL argument");
  memset(out, 0, sizeof *out);
  if ((int)op < 0 || op >= ZB_STAT_OP_COUNT)
    return zb_error_set(err, ZB_EINVAL, "unknown statistic %d", (int)op);
  if (!stat_type_ok(op, col->type))
    return zb_error_set(err, ZB_ETYPE, "%s is not defined for a %s column", zb_stat_op_name(op),
                        zb_type_name(col->type));
  if ((op == ZB_STAT_VAR || op == ZB_STAT_STD) && ddof < 0)
    return zb_error_set(err, ZB_EINVAL, "%s: ddof must be >= 0, not %lld", zb_stat_op_name(op),
                        (long long)ddof);
  zb__call c = {.op = ZB__OP_STAT, .variant = (int32_t)op, .name = zb_stat_op_name(op)};
  c.in[0] = col;
  c.p.stat.ddof = ddof;
  c.out_scalar = out;
  return zb__dispatch(col->device, &c, err);
}

zb_status zb_column_quantile(const zb_column *col, int64_t n_q, const double *q,
                             zb_scalar *out, zb_error *err) {
  if (col == NULL || n_q < 0 || (n_q > 0 && (q == NULL || out == NULL)))
    return zb_error_set(err, ZB_EINVAL, "quantile: NULL argument");
  for (int64_t i = 0; i < n_q; i++) {
    memset(&out[i], 0, sizeof out[i]);
    if (!(q[i] >= 0.0 && q[i] <= 1.0))
      return zb_error_set(err, ZB_EINVAL, "quantile: q must lie in [0, 1], got %g (q[%lld])",
                          q[i], (long long)i);
  }
  if (!zb_type_is_numeric(col->type))
    return zb_error_set(err, ZB_ETYPE, "quantile is not defined for a %s column",
                        zb_type_name(col->type));
  zb__call c = {.op = ZB__OP_QUANTILE};
  c.in[0] = col;
  c.p.quantile.n_q = n_q;
  c.p.quantile.q = q;
  c.out_scalar = out;
  return zb__dispatch(col->device, &c, err);
}

zb_status zb_table_corr(const zb_table *t, int64_t min_periods, int64_t ddof, bool cov,
                        double *out, zb_error *err) {
  const char *what = cov ? "cov" : "corr";
  if (t == NULL || (out == NULL && t->num_columns > 0))
    return zb_error_set(err, ZB_EINVAL, "%s: NULL argument", what);
  if (min_periods < 0)
    return zb_error_set(err, ZB_EINVAL, "%s: min_periods must be >= 0, not %lld", what,
                        (long long)min_periods);
  if (ddof < 0)
    return zb_error_set(err, ZB_EINVAL, "%s: ddof must be >= 0, not %lld", what,
                        (long long)ddof);
  for (int64_t k = 0; k < t->num_columns; k++)
    if (t->columns[k]->type != ZB_FLOAT64)
      return zb_error_set(err, ZB_ETYPE, "%s: column %lld ('%s') must be float64, not %s", what,
                          (long long)k, t->names[k], zb_type_name(t->columns[k]->type));
  if (t->num_columns == 0) return ZB_OK;
  zb__call c = {.op = ZB__OP_CORR_MATRIX, .variant = cov ? 1 : 0, .name = what};
  c.table = t;
  c.p.corr.min_periods = min_periods;
  c.p.corr.ddof = ddof;
  c.p.corr.out = out;
  return zb__dispatch(zb_table_device(t), &c, err);
}

zb_status zb_column_min_max(const zb_column *col, bool want_max, zb_column **out,
                            zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "min/max: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "min/max: NULL column");
  const char *what = want_max ? "max" : "min";
  if (!stat_type_ok(ZB_STAT_ARGMIN, col->type))
    return zb_error_set(err, ZB_ETYPE, "%s is not defined for a %s column%s", what,
                        zb_type_name(col->type),
                        col->type == ZB_CATEGORICAL
                            ? " (categories are unordered; cast to string to compare them)"
                            : "");
  zb_scalar pos;
  ZB_RETURN_NOT_OK(
      zb_column_stat(col, want_max ? ZB_STAT_ARGMAX : ZB_STAT_ARGMIN, 0, &pos, err));
  if (!pos.is_null) return zb_column_slice(col, pos.v.i, 1, out, err);
  /* No valid value: one null row, taken through a null index. */
  zb_column *idx = NULL, *res = NULL;
  ZB_RETURN_NOT_OK(zb_column_new(ZB_INT64, 1, true, 0, &idx, err));
  ((int64_t *)idx->data->data)[0] = 0;
  zb_bit_set((uint8_t *)idx->validity->data, 0, false);
  zb_column_recount_nulls(idx);
  zb_column *didx = NULL;
  zb_status st = zb_column_to_device(idx, col->device, &didx, err);
  if (st == ZB_OK) st = zb_column_take(col, didx, &res, err);
  zb_column_release(idx);
  zb_column_release(didx);
  if (st != ZB_OK) {
    zb_column_release(res);
    return st;
  }
  *out = res;
  return ZB_OK;
}

/* ---- hashing and duplicates ----------------------------------------------- */

/* Check keys (NULL with n_keys 0: all columns) and return them in *keys_out
 * (owned by the caller when *owned). */
static zb_status resolve_keys(const char *what, const zb_table *t, int64_t n_keys,
                              const int64_t *keys, int64_t *n_out, int64_t **keys_out,
                              zb_error *err) {
  *keys_out = NULL;
  if (t == NULL) return zb_error_set(err, ZB_EINVAL, "%s: NULL table", what);
  if (n_keys < 0 || (n_keys > 0 && keys == NULL))
    return zb_error_set(err, ZB_EINVAL, "%s: bad key list", what);
  int64_t n = n_keys > 0 ? n_keys : t->num_columns;
  if (n == 0) return zb_error_set(err, ZB_EINVAL, "%s: the table has no columns", what);
  int64_t *k = (int64_t *)zb_malloc((size_t)n * sizeof(int64_t));
  if (k == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (%s keys)", what);
  for (int64_t i = 0; i < n; i++) {
    k[i] = n_keys > 0 ? keys[i] : i;
    if (k[i] < 0 || k[i] >= t->num_columns) {
      zb_status st = zb_error_set(err, ZB_EINDEX, "%s: key %lld is column %lld of %lld", what,
                                  (long long)i, (long long)k[i], (long long)t->num_columns);
      zb_free(k);
      return st;
    }
  }
  *n_out = n;
  *keys_out = k;
  return ZB_OK;
}

/* Run a keyed table operation (hash_rows or duplicated) for t's data. */
static zb_status run_table_keys(const char *what, const zb_table *t, int64_t n_keys,
                                const int64_t *keys, zb_keep keep, bool hash,
                                zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "%s: NULL output", what);
  *out = NULL;
  int64_t n = 0, *k = NULL;
  ZB_RETURN_NOT_OK(resolve_keys(what, t, n_keys, keys, &n, &k, err));
  zb__call c = {.op = hash ? ZB__OP_HASH_ROWS : ZB__OP_DUPLICATED, .name = what};
  c.table = t;
  c.p.keys.n_keys = n;
  c.p.keys.keys = k;
  c.p.keys.keep = keep;
  zb_status st = zb__dispatch_column(zb_table_device(t), &c, out, err);
  zb_free(k);
  return st;
}

zb_status zb_table_hash_rows(const zb_table *t, int64_t n_keys, const int64_t *keys,
                             zb_column **out, zb_error *err) {
  return run_table_keys("hash_rows", t, n_keys, keys, ZB_KEEP_FIRST, true, out, err);
}

/* A one-column table around col (borrowed). */
static zb_status one_column_table(const zb_column *col, zb_table **out, zb_error *err) {
  const char *name = "value";
  zb_column *c = (zb_column *)col;
  return zb_table_make(1, &c, &name, out, err);
}

zb_status zb_column_hash(const zb_column *col, zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "hash: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "hash: NULL column");
  zb_table *t = NULL;
  ZB_RETURN_NOT_OK(one_column_table(col, &t, err));
  zb_status st = zb_table_hash_rows(t, 0, NULL, out, err);
  zb_table_release(t);
  return st;
}

static bool keep_ok(zb_keep keep) {
  return keep == ZB_KEEP_FIRST || keep == ZB_KEEP_LAST || keep == ZB_KEEP_NONE;
}

zb_status zb_table_duplicated(const zb_table *t, int64_t n_keys, const int64_t *keys,
                              zb_keep keep, zb_column **out, zb_error *err) {
  if (!keep_ok(keep)) {
    if (out != NULL) *out = NULL;
    return zb_error_set(err, ZB_EINVAL, "duplicated: unknown keep %d", (int)keep);
  }
  return run_table_keys("duplicated", t, n_keys, keys, keep, false, out, err);
}

zb_status zb_column_duplicated(const zb_column *col, zb_keep keep, zb_column **out,
                               zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "duplicated: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "duplicated: NULL column");
  zb_table *t = NULL;
  ZB_RETURN_NOT_OK(one_column_table(col, &t, err));
  zb_status st = zb_table_duplicated(t, 0, NULL, keep, out, err);
  zb_table_release(t);
  return st;
}

zb_status zb_table_drop_duplicates(const zb_table *t, int64_t n_keys, const int64_t *keys,
                                   zb_keep keep, zb_table **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "drop_duplicates: NULL output");
  *out = NULL;
  if (t == NULL) return zb_error_set(err, ZB_EINVAL, "drop_duplicates: NULL table");
  ZB_PROFILE_OP("drop_duplicates", zb__backend_for(zb_table_device(t).kind),
                ZB__OP_DUPLICATED, zb_table_device(t), t->num_rows);
  zb_column *dup = NULL, *keep_mask = NULL;
  zb_status st = zb_table_duplicated(t, n_keys, keys, keep, &dup, err);
  if (st == ZB_OK) st = zb_column_unary(ZB_OP_INVERT, dup, &keep_mask, err);
  if (st == ZB_OK) st = zb_table_filter(t, keep_mask, out, err);
  zb_column_release(dup);
  zb_column_release(keep_mask);
  return st;
}

/* ---- distinct values ------------------------------------------------------ */

zb_status zb_column_unique(const zb_column *col, zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "unique: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "unique: NULL column");
  zb__call c = {.op = ZB__OP_UNIQUE};
  c.in[0] = col;
  return zb__dispatch_column(col->device, &c, out, err);
}

zb_status zb_column_nunique(const zb_column *col, bool dropna, int64_t *out, zb_error *err) {
  if (col == NULL || out == NULL) return zb_error_set(err, ZB_EINVAL, "nunique: NULL argument");
  *out = 0;
  zb__call c = {.op = ZB__OP_NUNIQUE};
  c.in[0] = col;
  c.p.nunique.dropna = dropna;
  ZB_RETURN_NOT_OK(zb__dispatch(col->device, &c, err));
  *out = c.out_count;
  return ZB_OK;
}

zb_status zb_column_value_counts(const zb_column *col, bool sort, bool ascending, bool dropna,
                                 bool normalize, zb_column **values, zb_column **counts,
                                 zb_error *err) {
  if (values == NULL || counts == NULL)
    return zb_error_set(err, ZB_EINVAL, "value_counts: NULL output");
  *values = *counts = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "value_counts: NULL column");
  zb__call c = {.op = ZB__OP_VALUE_COUNTS};
  c.in[0] = col;
  c.p.value_counts.sort = sort;
  c.p.value_counts.ascending = ascending;
  c.p.value_counts.dropna = dropna;
  c.p.value_counts.normalize = normalize;
  ZB_RETURN_NOT_OK(zb__dispatch(col->device, &c, err));
  *values = c.out[0];
  *counts = c.out[1];
  return ZB_OK;
}

/* ---- isin ----------------------------------------------------------------- */

/* The type both sides of isin are compared as (ZB_TYPE_COUNT: refuse). */
static zb_type_id isin_type(const zb_column *a, const zb_column *b) {
  zb_type_id x = a->type, y = b->type;
  bool sx = x == ZB_STRING || x == ZB_CATEGORICAL, sy = y == ZB_STRING || y == ZB_CATEGORICAL;
  if (sx && sy) return ZB_STRING;
  if (x == y && (x == ZB_DATE32 || x == ZB_TIMESTAMP || x == ZB_DURATION)) return x;
  if (zb_type_is_numeric(x) && zb_type_is_numeric(y)) {
    if (x == y) return x;
    bool ix = zb_type_is_integer(x) || x == ZB_BOOL, iy = zb_type_is_integer(y) || y == ZB_BOOL;
    if (ix && iy) {
      bool ux = x == ZB_UINT64, uy = y == ZB_UINT64;
      if (!ux && !uy) return ZB_INT64;
      bool other_unsigned = ux ? (!zb_type_is_signed(y)) : (!zb_type_is_signed(x));
      return other_unsigned ? ZB_UINT64 : ZB_FLOAT64;
    }
    return ZB_FLOAT64;
  }
  return ZB_TYPE_COUNT;
}

/* col as type t (and in `unit` for timestamps), a new reference. */
static zb_status as_type(const zb_column *col, zb_type_id t, zb_time_unit unit,
                         zb_column **out, zb_error *err) {
  if (col->type == t && ((t != ZB_TIMESTAMP && t != ZB_DURATION) || col->unit == unit)) {
    *out = zb_column_retain((zb_column *)col);
    return ZB_OK;
  }
  return zb_column_cast(col, t, unit, out, err);
}

/* Whether comparing col with values needs the values made exact targets
 * (exact_targets): a number column against number values of another kind
 * or signedness, where a common type would round one side. */
static bool isin_needs_exact(const zb_column *col, const zb_column *values) {
  zb_type_id x = col->type, y = values->type;
  if (x == y || !zb_type_is_numeric(x) || !zb_type_is_numeric(y)) return false;
  bool fx = x == ZB_FLOAT32 || x == ZB_FLOAT64, fy = y == ZB_FLOAT32 || y == ZB_FLOAT64;
  return !(fx && fy);
}

/* The comparison type of isin_needs_exact's cases: the column's own kind,
 * widened without loss (integers and booleans to int64, uint64 to uint64,
 * floats to float64). */
static zb_type_id exact_type(zb_type_id x) {
  return x == ZB_FLOAT32 || x == ZB_FLOAT64 ? ZB_FLOAT64 : x == ZB_UINT64 ? ZB_UINT64 : ZB_INT64;
}

/* isin's values as exact targets of type t (exact_type): only the values
 * that one of t's values equals exactly, converted to t -- for an integer
 * t the whole, finite values in its range; for float64 the integers it
 * holds exactly.  The others (and missing values) can match no row and
 * are left out, so the column is never rounded to meet them: an int64
 * 2^53 + 1 does not match the value 2.0^53. */
static zb_status exact_targets(const zb_column *values, zb_type_id t, zb_column **out,
                               zb_error *err) {
  *out = NULL;
  zb_column *v = NULL, *w = NULL, *o = NULL;
  zb_status st = ZB_OK;
  if (!zb_device_equal(values->device, ZB_CPU))
    st = zb_column_to_device(values, ZB_CPU, &v, err);
  else
    v = zb_column_retain((zb_column *)values);
  /* the values widened without loss: floats to float64, uint64 as it is,
   * other integers and booleans to int64 */
  zb_type_id wt = exact_type(values->type);
  if (st == ZB_OK) st = as_type(v, wt, v->unit, &w, err);
  if (st == ZB_OK) st = zb_column_new(t, w->length, false, 0, &o, err);
  if (st != ZB_OK) goto done;
  int64_t k = 0;
  for (int64_t i = 0; i < w->length; i++) {
    if (!zb_column_is_valid(w, i)) continue;
    const void *at = (const uint8_t *)w->data->data + (w->offset + i) * 8;
    if (wt == ZB_FLOAT64) { /* t is integer */
      double x;
      memcpy(&x, at, 8);
      if (!isfinite(x) || x != floor(x)) continue;
      if (t == ZB_INT64 && x >= -0x1p63 && x < 0x1p63) {
        ((int64_t *)o->data->data)[k++] = (int64_t)x;
      } else if (t == ZB_UINT64 && x >= 0 && x < 0x1p64) {
        ((uint64_t *)o->data->data)[k++] = (uint64_t)x;
      }
    } else if (t == ZB_FLOAT64) { /* integers a float64 holds exactly */
      double x;
      if (wt == ZB_UINT64) {
        uint64_t u;
        memcpy(&u, at, 8);
        x = (double)u;
        if (x >= 0x1p64 || (uint64_t)x != u) continue;
      } else {
        int64_t q;
        memcpy(&q, at, 8);
        x = (double)q;
        if (x >= 0x1p63 || (int64_t)x != q) continue;
      }
      ((double *)o->data->data)[k++] = x;
    } else { /* integers: by range where int64 meets uint64 */
      uint64_t u;
      memcpy(&u, at, 8);
      if (wt != t && (t == ZB_INT64 ? u > (uint64_t)INT64_MAX : (int64_t)u < 0)) continue;
      ((uint64_t *)o->data->data)[k++] = u;
    }
  }
  o->length = k;
  *out = o;
  o = NULL;
done:
  zb_column_release(v);
  zb_column_release(w);
  zb_column_release(o);
  return st;
}

zb_status zb_column_isin(const zb_column *col, const zb_column *values, zb_column **out,
                         zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "isin: NULL output");
  *out = NULL;
  if (col == NULL || values == NULL) return zb_error_set(err, ZB_EINVAL, "isin: NULL column");
  if (zb__cat_valued(col) || zb__cat_valued(values)) { /* by the categories' values */
    zb_column *dc = NULL, *dv = NULL;
    zb_status st = zb__decode_valued(col, &dc, err);
    if (st == ZB_OK) st = zb__decode_valued(values, &dv, err);
    if (st == ZB_OK) st = zb_column_isin(dc, dv, out, err);
    zb_column_release(dc);
    zb_column_release(dv);
    return st;
  }
  const bool exact = isin_needs_exact(col, values);
  zb_type_id t = exact ? exact_type(col->type) : isin_type(col, values);
  if (t == ZB_TYPE_COUNT)
    return zb_error_set(err, ZB_ETYPE, "isin: cannot compare a %s column with %s values",
                        zb_type_name(col->type), zb_type_name(values->type));
  zb_column *a = NULL, *b = NULL, *res = NULL;
  zb_status st = as_type(col, t, col->unit, &a, err);
  /* values may live anywhere: the dispatcher moves them to col's device */
  if (st == ZB_OK)
    st = exact ? exact_targets(values, t, &b, err) : as_type(values, t, col->unit, &b, err);
  if (st == ZB_OK) {
    zb__call c = {.op = ZB__OP_ISIN};
    c.in[0] = a;
    c.in[1] = b;
    st = zb__dispatch_column(col->device, &c, &res, err);
  }
  zb_column_release(a);
  zb_column_release(b);
  if (st != ZB_OK) {
    zb_column_release(res);
    return st;
  }
  *out = res;
  return ZB_OK;
}
