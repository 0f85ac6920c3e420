/*
 * arrow_dict.c -- dictionaries that repeat a value, folded when an Arrow
 * array is imported (arrow.c): Arrow allows a dictionary to hold a value
 * twice, zambezi's categoricals compare by code and so need one code a
 * value.  Dictionaries of any flat type; the ordered flag is kept.
 */
#include <string.h>

#include "core/internal.h"
#include "zambezi/zambezi.h"

/* Whether two of the dictionary's values have the same 64-bit hash (a
 * repeated value does): the hashes radix-sorted, neighbours compared --
 * vectorized passes; grouping the values costs several times as much for
 * a large dictionary, so that is done only when two hashes agree. */
static zb_status hashes_repeat(const zb_column *dict, bool *repeat, zb_error *err) {
  *repeat = false;
  const int64_t k = dict->length;
  if (k < 2) return ZB_OK;
  zb_column *h = NULL, *sorted = NULL, *a = NULL, *b = NULL, *eq = NULL;
  zb_scalar any;
  memset(&any, 0, sizeof any);
  zb_status st = zb_column_hash(dict, &h, err);
  if (st == ZB_OK) st = zb_column_sort_values(h, true, false, &sorted, err);
  if (st == ZB_OK) st = zb_column_slice(sorted, 0, k - 1, &a, err);
  if (st == ZB_OK) st = zb_column_slice(sorted, 1, k - 1, &b, err);
  if (st == ZB_OK) st = zb_column_binary(ZB_OP_EQ, a, b, &eq, err);
  if (st == ZB_OK) st = zb_column_stat(eq, ZB_STAT_ANY, 0, &any, err);
  if (st == ZB_OK) *repeat = !any.is_null && any.v.b;
  zb_column_release(eq);
  zb_column_release(b);
  zb_column_release(a);
  zb_column_release(sorted);
  zb_column_release(h);
  return st;
}

/* A categorical whose dictionary repeats a value (Arrow allows it; the
 * engine compares categoricals by code): *out is col itself (a new
 * reference) when the values are distinct, else a new column over the
 * distinct values in order of first appearance, every code of a repeated
 * value becoming the code of its first occurrence. */
zb_status zb__fold_repeated_categories(zb_column *col, zb_column **out, zb_error *err) {
  *out = NULL;
  zb_column *dict = col->dictionary;
  bool maybe = false;
  ZB_RETURN_NOT_OK(hashes_repeat(dict, &maybe, err));
  const char *name = "dictionary";
  zb_table *t = NULL;
  zb_column *ids = NULL, *firsts = NULL, *uniq = NULL;
  zb_buffer *codes = NULL;
  int64_t n_groups = 0;
  const int64_t key = 0, k = dict->length, n = col->length;
  /* with sort=False, groups are numbered in order of first appearance */
  zb_status st = maybe ? zb_table_make(1, &dict, &name, &t, err) : ZB_OK;
  if (st == ZB_OK && maybe)
    st = zb_table_group_ids(t, 1, &key, false, false, &ids, &n_groups, err);
  if (st != ZB_OK || !maybe || n_groups == k) { /* the values are distinct */
    if (st == ZB_OK) *out = zb_column_retain(col);
    goto done;
  }
  const int64_t *g = (const int64_t *)ids->data->data + ids->offset;
  /* the distinct values: each group's first entry, in group order */
  st = zb_column_new(ZB_INT64, n_groups, false, 0, &firsts, err);
  if (st == ZB_OK) {
    int64_t *f = (int64_t *)firsts->data->data, m = 0;
    for (int64_t i = 0; i < k; i++)
      if (g[i] == m) f[m++] = i;
    st = zb_column_take(dict, firsts, &uniq, err);
    if (st == ZB_OK) uniq->ordered = dict->ordered; /* a new column, ours alone */
  }
  /* the new codes sit at col's offset, so that col's validity is shared */
  const int64_t off = col->offset;
  if (st == ZB_OK) st = zb_buffer_new(ZB_CPU, (off + n) * 4, &codes, err);
  if (st == ZB_OK) {
    const int32_t *c = (const int32_t *)col->data->data + off;
    int32_t *dst = (int32_t *)codes->data + off;
    /* null rows' codes are unchecked (any value): they become 0 */
    for (int64_t i = 0; i < n; i++) dst[i] = c[i] >= 0 && c[i] < k ? (int32_t)g[c[i]] : 0;
    st = zb_column_make(ZB_CATEGORICAL, n, off, col->validity, codes, NULL, uniq,
                        col->null_count, out, err);
  }
done:
  zb_buffer_release(codes);
  zb_column_release(uniq);
  zb_column_release(firsts);
  zb_column_release(ids);
  zb_table_release(t);
  return st;
}
