/*
 * regex_ops.c -- the checked entry point of the pattern operations of
 * zambezi/regex.h (zb_column_regex).
 *
 * It validates the arguments once, then dispatches ZB__OP_REGEX to the
 * backend of the device where the data lives.  No GPU backend has the
 * operation, so the dispatcher runs it on the CPU over host copies and
 * profiles record the fallback.  A categorical runs on its dictionary and
 * the results are taken through the codes.
 */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

const char *zb_regex_op_name(zb_regex_op op) {
  static const char *const names[ZB_RE_OP_COUNT] = {
      "contains", "match", "fullmatch", "count",     "replace",
      "extract",  "split", "rsplit",    "partition", "rpartition",
      "findall"};
  if ((int)op < 0 || op >= ZB_RE_OP_COUNT) return "unknown";
  return names[op];
}

/* The codes of a categorical as int64 indices (nulls kept). */
static zb_status codes_as_indices(const zb_column *col, zb_column **out, zb_error *err) {
  zb_column *view = NULL;
  ZB_RETURN_NOT_OK(zb_column_make(ZB_INT32, col->length, col->offset, col->validity, col->data,
                                  NULL, NULL, col->null_count, &view, err));
  zb_status st = zb_column_cast(view, ZB_INT64, ZB_MICRO, out, err);
  zb_column_release(view);
  return st;
}

static zb_status check(const zb_column *col, const zb_regex_args *a, zb_error *err) {
  if ((int)a->op < 0 || a->op >= ZB_RE_OP_COUNT)
    return zb_error_set(err, ZB_EINVAL, "unknown pattern operation %d", (int)a->op);
  const char *name = zb_regex_op_name(a->op);
  if (col->type != ZB_STRING && col->type != ZB_CATEGORICAL)
    return zb_error_set(err, ZB_ETYPE, "str.%s needs a string column, not %s", name,
                        zb_type_name(col->type));
  {
    char what[48];
    snprintf(what, sizeof what, "str.%s", name);
    ZB_RETURN_NOT_OK(zb__need_string_categories(col, what, err));
  }
  if (a->pat_len < 0 || (a->pat == NULL && a->pat_len != 0))
    return zb_error_set(err, ZB_EINVAL, "str.%s: bad pattern length", name);
  bool split = a->op == ZB_RE_SPLIT || a->op == ZB_RE_RSPLIT;
  if (a->pat == NULL && !split)
    return zb_error_set(err, ZB_EINVAL, "str.%s needs a pattern", name);
  bool literal_only = a->op == ZB_RE_RSPLIT || a->op == ZB_RE_PARTITION ||
                      a->op == ZB_RE_RPARTITION;
  if (a->pat != NULL && literal_only && !(a->flags & ZB_RE_LITERAL))
    return zb_error_set(err, ZB_ENOTSUP, "str.%s takes a literal separator, not a pattern", name);
  if (a->pat != NULL && (a->flags & ZB_RE_LITERAL) && a->pat_len == 0 &&
      (split || literal_only))
    return zb_error_set(err, ZB_EINVAL, "str.%s: empty separator", name);
  if (a->as_list && !split)
    return zb_error_set(err, ZB_EINVAL, "str.%s: as_list is for split and rsplit", name);
  if (a->part_only && (!split || a->as_list))
    return zb_error_set(err, ZB_EINVAL, "str.%s: part_only is for split and rsplit without "
                        "as_list", name);
  if (a->count_only && (!split || a->as_list || a->part_only))
    return zb_error_set(err, ZB_EINVAL, "str.%s: count_only is for split and rsplit without "
                        "as_list or part_only", name);
  if (a->flags & ~(uint32_t)63)
    return zb_error_set(err, ZB_EINVAL, "str.%s: unknown flags %#x", name, (unsigned)a->flags);
  if (a->op == ZB_RE_REPLACE) {
    if (a->n_tmpl < 0 || (a->n_tmpl > 0 && a->tmpl == NULL) || a->repl_len < 0 ||
        (a->repl == NULL && a->repl_len > 0))
      return zb_error_set(err, ZB_EINVAL, "str.replace: bad replacement template");
    int64_t total = 0;
    for (int64_t t = 0; t < a->n_tmpl; t++) {
      if (a->tmpl[2 * t] < 0) return zb_error_set(err, ZB_EINVAL, "str.replace: bad template");
      total += a->tmpl[2 * t];
      if (a->tmpl[2 * t + 1] > 0 && (a->flags & ZB_RE_LITERAL))
        return zb_error_set(err, ZB_EINVAL, "str.replace: a literal pattern has no groups");
    }
    if (total != a->repl_len)
      return zb_error_set(err, ZB_EINVAL, "str.replace: template lengths do not add up");
  }
  return ZB_OK;
}

zb_status zb_column_regex(const zb_column *col, const zb_regex_args *args, zb_column **out,
                          zb_table **out_table, zb_error *err) {
  if (out != NULL) *out = NULL;
  if (out_table != NULL) *out_table = NULL;
  if (col == NULL || args == NULL) return zb_error_set(err, ZB_EINVAL, "str: NULL argument");
  ZB_RETURN_NOT_OK(check(col, args, err));
  zb_regex_op op = args->op;
  bool multi = (op == ZB_RE_EXTRACT || op == ZB_RE_SPLIT || op == ZB_RE_RSPLIT ||
                op == ZB_RE_PARTITION || op == ZB_RE_RPARTITION) &&
               !((args->as_list || args->part_only || args->count_only) &&
                 (op == ZB_RE_SPLIT || op == ZB_RE_RSPLIT));
  if ((multi && out_table == NULL) || (!multi && out == NULL))
    return zb_error_set(err, ZB_EINVAL, "str.%s: NULL output", zb_regex_op_name(op));
  zb__call c = {.op = ZB__OP_REGEX, .variant = (int32_t)op, .name = zb_regex_op_name(op)};
  c.p.regex.args = args;
  c.in[0] = col->type == ZB_STRING ? col : col->dictionary;
  zb_status st = zb__dispatch(col->device, &c, err);
  if (st != ZB_OK) return st;
  if (col->type == ZB_STRING) {
    if (multi) *out_table = c.out_table;
    else *out = c.out[0];
    return ZB_OK;
  }
  /* Categorical: through the codes. */
  zb_column *idx = NULL;
  st = codes_as_indices(col, &idx, err);
  if (st == ZB_OK && !multi) st = zb_column_take(c.out[0], idx, out, err);
  if (st == ZB_OK && multi) {
    int64_t k = c.out_table->num_columns;
    zb_column **cols = (zb_column **)zb_calloc((size_t)(k > 0 ? k : 1), sizeof(zb_column *));
    if (cols == NULL) st = zb_error_set(err, ZB_ENOMEM, "out of host memory (str)");
    for (int64_t i = 0; i < k && st == ZB_OK; i++)
      st = zb_column_take(c.out_table->columns[i], idx, &cols[i], err);
    if (st == ZB_OK)
      st = zb_table_make(k, cols, (const char *const *)c.out_table->names, out_table, err);
    if (st == ZB_OK && k == 0) (*out_table)->num_rows = col->length;
    for (int64_t i = 0; cols != NULL && i < k; i++) zb_column_release(cols[i]);
    zb_free(cols);
  }
  zb_column_release(idx);
  zb_column_release(c.out[0]);
  zb_table_release(c.out_table);
  return st;
}
