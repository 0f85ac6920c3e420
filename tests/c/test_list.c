/*
 * test_list.c -- list columns (Arrow large_list): assembly checks, slice,
 * take, filter, concat, Arrow export/import, the refusal of operations that
 * do not know lists, and every allocation of take/filter/concat failed in
 * turn.  Expected values are written out by hand.
 */
#include <stdlib.h>
#include <string.h>

#include "io_util.h"
#include "test.h"
#include "zambezi/io_json.h"


#include "zambezi/arrow.h"
#include "zambezi/compute.h"
#include "zambezi/list.h"

/* An int64 column from values, with nulls where valid[i] == 0 (valid NULL:
 * none). */
static zb_status int_column(const int64_t *v, const uint8_t *valid, int64_t n, zb_column **out,
                            zb_error *err) {
  ZB_RETURN_NOT_OK(zb_column_new(ZB_INT64, n, valid != NULL, 0, out, err));
  memcpy((*out)->data->data, v, (size_t)n * 8);
  for (int64_t i = 0; valid != NULL && i < n; i++)
    zb_bit_set((uint8_t *)(*out)->validity->data, i, valid[i]);
  zb_column_recount_nulls(*out);
  return ZB_OK;
}

/* [[1, 2], None, [], [3, None, 5], [6]] */
static zb_status sample(zb_column **out, zb_error *err) {
  static const int64_t vals[] = {1, 2, 3, 0, 5, 6};
  static const uint8_t vvalid[] = {1, 1, 1, 0, 1, 1};
  static const int64_t offs[] = {0, 2, 2, 2, 5, 6};
  zb_column *child = NULL;
  zb_buffer *o = NULL, *valid = NULL;
  *out = NULL;
  zb_status st = int_column(vals, vvalid, 6, &child, err);
  if (st == ZB_OK) st = zb_buffer_new(ZB_CPU, sizeof offs, &o, err);
  if (st == ZB_OK) st = zb_buffer_new_zeroed(ZB_CPU, 1, &valid, err);
  if (st == ZB_OK) {
    memcpy(o->data, offs, sizeof offs);
    ((uint8_t *)valid->data)[0] = 0x1d; /* rows 0, 2, 3, 4 */
    st = zb_column_make_list(5, 0, valid, o, child, -1, out, err);
  }
  zb_column_release(child);
  zb_buffer_release(o);
  zb_buffer_release(valid);
  return st;
}

/* Whether list column c is rows: lens[i] < 0 for a null list, else the
 * values (INT64_MIN for a null value) concatenated in vals. */
static int same_lists(const zb_column *c, int64_t n, const int64_t *lens, const int64_t *vals) {
  if (c == NULL || c->type != ZB_LIST || c->length != n) return 0;
  const int64_t *o = (const int64_t *)c->data->data + c->offset;
  const zb_column *ch = c->child;
  const int64_t *cv = (const int64_t *)ch->data->data;
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    if (lens[i] < 0) {
      if (zb_column_is_valid(c, i)) return 0;
      continue;
    }
    if (!zb_column_is_valid(c, i) || o[i + 1] - o[i] != lens[i]) return 0;
    for (int64_t e = o[i]; e < o[i + 1]; e++, k++) {
      bool valid = zb_column_is_valid(ch, e);
      if (vals[k] == INT64_MIN ? valid : (!valid || cv[ch->offset + e] != vals[k])) return 0;
    }
  }
  return 1;
}

#define NA INT64_MIN

ZB_TEST(test_list_make_checks) {
  zb_error err = {{0}};
  zb_column *l = NULL, *ll = NULL;
  ZB_CHECK_OK(sample(&l, &err), &err);
  ZB_CHECK_EQ_INT(l->null_count, 1);
  char text[64];
  ZB_CHECK(strcmp(zb_column_type_text(l, text, sizeof text), "list<int64>") == 0);
  ZB_CHECK(strcmp(zb_type_name(ZB_LIST), "list") == 0);
  /* a list of lists: its text nests, and a take gathers whole inner lists */
  ZB_CHECK_OK(zb_column_make_list(2, 0, NULL, l->data, l, 0, &ll, &err), &err);
  char deep_text[64];
  ZB_CHECK(strcmp(zb_column_type_text(ll, deep_text, sizeof deep_text), "list<list<int64>>") ==
           0);
  zb_column *idx1 = NULL, *llt = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, 1, false, 0, &idx1, &err), &err);
  ((int64_t *)idx1->data->data)[0] = 0; /* row 0: l's rows 0 ([1, 2]) and 1 (null) */
  ZB_CHECK_OK(zb_column_take(ll, idx1, &llt, &err), &err);
  const int64_t *to = (const int64_t *)llt->data->data;
  ZB_CHECK_EQ_INT(to[1] - to[0], 2);
  ZB_CHECK_EQ_INT(llt->child->length, 2);
  ZB_CHECK_EQ_INT(llt->child->null_count, 1);
  ZB_CHECK_EQ_INT(llt->child->child->length, 2);
  ZB_CHECK_EQ_INT(((const int64_t *)llt->child->child->data->data)[1], 2);
  zb_column_release(llt);
  zb_column_release(idx1);
  zb_column_release(ll);
  ll = NULL;
  /* nesting stops at ZB_LIST_MAX_DEPTH levels */
  zb_buffer *zeros = NULL;
  ZB_CHECK_OK(zb_buffer_new_zeroed(ZB_CPU, 16, &zeros, &err), &err);
  zb_column *deep = zb_column_retain(l);
  for (int level = 2; level <= ZB_LIST_MAX_DEPTH; level++) {
    zb_column *up = NULL;
    ZB_CHECK_OK(zb_column_make_list(1, 0, NULL, zeros, deep, 0, &up, &err), &err);
    zb_column_release(deep);
    deep = up;
  }
  ZB_CHECK_EQ_INT(zb_column_make_list(1, 0, NULL, zeros, deep, 0, &ll, &err), ZB_ENOTSUP);
  ZB_CHECK(strstr(err.message, "deeper") != NULL && ll == NULL);
  zb_column_release(deep);
  zb_buffer_release(zeros);
  /* offsets past the child are refused */
  zb_column *small = NULL;
  ZB_CHECK_OK(zb_column_slice(l->child, 0, 3, &small, &err), &err);
  ZB_CHECK_EQ_INT(zb_column_make_list(5, 0, NULL, l->data, small, 0, &ll, &err), ZB_EINVAL);
  ZB_CHECK(ll == NULL);
  zb_column *bad = NULL;
  ZB_CHECK_EQ_INT(zb_column_make(ZB_LIST, 1, 0, NULL, l->data, NULL, NULL, 0, &bad, &err),
                  ZB_EINVAL);
  zb_column_release(small);
  zb_column_release(l);
}

ZB_TEST(test_list_slice_take_filter) {
  zb_error err = {{0}};
  zb_column *l = NULL, *s = NULL, *t = NULL, *f = NULL, *idx = NULL, *mask = NULL;
  ZB_CHECK_OK(sample(&l, &err), &err);
  ZB_CHECK_OK(zb_column_slice(l, 2, 3, &s, &err), &err);
  int64_t sl[] = {0, 3, 1}, sv[] = {3, NA, 5, 6};
  ZB_CHECK(same_lists(s, 3, sl, sv));
  /* take: repeats, a null list, a null index */
  static const int64_t ix[] = {3, 0, 1, 3, 0, 2};
  static const uint8_t ixv[] = {1, 1, 1, 1, 0, 1};
  ZB_CHECK_OK(int_column(ix, ixv, 6, &idx, &err), &err);
  ZB_CHECK_OK(zb_column_take(l, idx, &t, &err), &err);
  int64_t tl[] = {3, 2, -1, 3, -1, 0}, tv[] = {3, NA, 5, 1, 2, 3, NA, 5};
  ZB_CHECK(same_lists(t, 6, tl, tv));
  ZB_CHECK_EQ_INT(t->null_count, 2);
  /* take of a slice: offsets relative to the slice's rows */
  zb_column *t2 = NULL, *idx2 = NULL;
  static const int64_t ix2[] = {2, 1};
  ZB_CHECK_OK(int_column(ix2, NULL, 2, &idx2, &err), &err);
  ZB_CHECK_OK(zb_column_take(s, idx2, &t2, &err), &err);
  int64_t t2l[] = {1, 3}, t2v[] = {6, 3, NA, 5};
  ZB_CHECK(same_lists(t2, 2, t2l, t2v));
  /* filter: a null mask value drops the row */
  ZB_CHECK_OK(zb_column_new(ZB_BOOL, 5, true, 0, &mask, &err), &err);
  ((uint8_t *)mask->data->data)[0] = 0x19;  /* rows 0, 3, 4 true */
  zb_bit_set((uint8_t *)mask->validity->data, 4, false);
  zb_column_recount_nulls(mask);
  ZB_CHECK_OK(zb_column_filter(l, mask, &f, &err), &err);
  int64_t fl[] = {2, 3}, fv[] = {1, 2, 3, NA, 5};
  ZB_CHECK(same_lists(f, 2, fl, fv));
  /* table take keeps list columns beside others */
  zb_table *tab = NULL, *tt = NULL;
  const char *names[2] = {"l", "i"};
  zb_column *cols[2] = {l, mask};
  ZB_CHECK_OK(zb_table_make(2, cols, names, &tab, &err), &err);
  zb_column *idx3 = NULL;
  static const int64_t ix3[] = {4, 3};
  ZB_CHECK_OK(int_column(ix3, NULL, 2, &idx3, &err), &err);
  ZB_CHECK_OK(zb_table_take(tab, idx3, &tt, &err), &err);
  int64_t ttl[] = {1, 3}, ttv[] = {6, 3, NA, 5};
  ZB_CHECK(tt != NULL && same_lists(tt->columns[0], 2, ttl, ttv));
  zb_table_release(tt);
  zb_table_release(tab);
  zb_column_release(idx3);
  zb_column_release(t2);
  zb_column_release(idx2);
  zb_column_release(mask);
  zb_column_release(f);
  zb_column_release(t);
  zb_column_release(idx);
  zb_column_release(s);
  zb_column_release(l);
}

ZB_TEST(test_list_concat_and_arrow) {
  zb_error err = {{0}};
  zb_column *l = NULL, *s = NULL, *c = NULL, *back = NULL;
  ZB_CHECK_OK(sample(&l, &err), &err);
  ZB_CHECK_OK(zb_column_slice(l, 3, 2, &s, &err), &err);
  zb_column *parts[2] = {s, l};
  ZB_CHECK_OK(zb_column_concat(parts, 2, &c, &err), &err);
  int64_t cl[] = {3, 1, 2, -1, 0, 3, 1}, cv[] = {3, NA, 5, 6, 1, 2, 3, NA, 5, 6};
  ZB_CHECK(same_lists(c, 7, cl, cv));
  ZB_CHECK_EQ_INT(c->null_count, 1);
  /* Arrow: large_list out, and back */
  struct ArrowSchema schema;
  struct ArrowArray array;
  ZB_CHECK_OK(zb_column_export_arrow(s, "x", &schema, &array, &err), &err);
  ZB_CHECK(strcmp(schema.format, "+L") == 0 && schema.n_children == 1);
  ZB_CHECK(strcmp(schema.children[0]->format, "l") == 0);
  ZB_CHECK_EQ_INT(array.n_children, 1);
  ZB_CHECK_OK(zb_column_import_arrow(&schema, &array, &back, &err), &err);
  int64_t bl[] = {3, 1}, bv[] = {3, NA, 5, 6};
  ZB_CHECK(same_lists(back, 2, bl, bv));
  if (schema.release != NULL) schema.release(&schema);
  if (array.release != NULL) array.release(&array);
  /* operations without list support say so */
  zb_scalar sc;
  ZB_CHECK_EQ_INT(zb_column_reduce(l, ZB_REDUCE_SUM, &sc, &err), ZB_ETYPE);
  ZB_CHECK(strstr(err.message, "list") != NULL);
  zb_column *idx = NULL;
  ZB_CHECK_EQ_INT(zb_column_sort_indices(l, true, false, &idx, &err), ZB_ETYPE);
  ZB_CHECK(strstr(err.message, "list") != NULL);
  zb_column *nulls = NULL;
  ZB_CHECK_OK(zb_column_isnull(l, &nulls, &err), &err);
  ZB_CHECK(nulls != NULL && zb_bit_get((const uint8_t *)nulls->data->data, 1) &&
           !zb_bit_get((const uint8_t *)nulls->data->data, 2));
  zb_column_release(nulls);
  zb_column_release(back);
  zb_column_release(c);
  zb_column_release(s);
  zb_column_release(l);
}

/* Everything the failure loop builds; st of the first failure. */
/* Row i of a string column as a C string ("<null>" for a null). */
static const char *text_at(const zb_column *c, int64_t i, char *buf, size_t size) {
  if (!zb_column_is_valid(c, i)) return "<null>";
  const int64_t *o = (const int64_t *)c->data->data + c->offset;
  size_t n = (size_t)(o[i + 1] - o[i]);
  if (n >= size) n = size - 1;
  memcpy(buf, (const char *)c->chars->data + o[i], n);
  buf[n] = '\0';
  return buf;
}

ZB_TEST(test_list_repr_as_python) {
  zb_error err = {{0}};
  zb_column *l = NULL, *s = NULL, *r = NULL, *ll = NULL, *rr = NULL;
  ZB_CHECK_OK(sample(&l, &err), &err);
  ZB_CHECK_OK(zb_column_slice(l, 1, 4, &s, &err), &err);
  ZB_CHECK_OK(zb_list_repr(s, &r, &err), &err);
  /* Python: [repr(v) for v in [None, [], [3, None, 5], [6]]] */
  static const char *const want[] = {"<null>", "[]", "[3, None, 5]", "[6]"};
  char buf[64];
  ZB_CHECK_EQ_INT(r->length, 4);
  for (int64_t i = 0; i < 4; i++) ZB_CHECK(strcmp(text_at(r, i, buf, sizeof buf), want[i]) == 0);
  /* a list of lists: rows [[1, 2], None] and [[], [3, None, 5]] */
  static const int64_t outer[] = {0, 2, 4};
  zb_buffer *ob = NULL;
  ZB_CHECK_OK(zb_buffer_new(ZB_CPU, sizeof outer, &ob, &err), &err);
  memcpy(ob->data, outer, sizeof outer);
  ZB_CHECK_OK(zb_column_make_list(2, 0, NULL, ob, l, 0, &ll, &err), &err);
  ZB_CHECK_OK(zb_list_repr(ll, &rr, &err), &err);
  ZB_CHECK(strcmp(text_at(rr, 0, buf, sizeof buf), "[[1, 2], None]") == 0);
  ZB_CHECK(strcmp(text_at(rr, 1, buf, sizeof buf), "[[], [3, None, 5]]") == 0);
  /* not a list, and elements without a Python text here */
  zb_column *bad = NULL;
  ZB_CHECK_EQ_INT(zb_list_repr(l->child, &bad, &err), ZB_ETYPE);
  zb_column_release(l);
  zb_column_release(s);
  zb_column_release(r);
  zb_column_release(ll);
  zb_column_release(rr);
  zb_buffer_release(ob);
}

static zb_status list_everything(zb_error *err) {
  zb_column *l = NULL, *s = NULL, *t = NULL, *f = NULL, *c = NULL, *idx = NULL, *mask = NULL;
  zb_column *r = NULL, *ll = NULL, *rr = NULL;
  static const int64_t ix[] = {3, 0, 1, 4};
  zb_status st = sample(&l, err);
  if (st == ZB_OK) st = zb_column_slice(l, 1, 4, &s, err);
  if (st == ZB_OK) st = int_column(ix, NULL, 4, &idx, err);
  if (st == ZB_OK) st = zb_column_take(l, idx, &t, err);
  if (st == ZB_OK) st = zb_column_new(ZB_BOOL, 5, false, 0, &mask, err);
  if (st == ZB_OK) {
    ((uint8_t *)mask->data->data)[0] = 0x1b;
    st = zb_column_filter(l, mask, &f, err);
  }
  if (st == ZB_OK) {
    zb_column *parts[3] = {s, t, f};
    st = zb_column_concat(parts, 3, &c, err);
  }
  if (st == ZB_OK) st = zb_list_repr(c, &r, err);
  if (st == ZB_OK) st = zb_column_make_list(2, 0, NULL, l->data, c, 0, &ll, err);
  if (st == ZB_OK) st = zb_list_repr(ll, &rr, err);
  zb_column_release(r);
  zb_column_release(ll);
  zb_column_release(rr);
  zb_column_release(l);
  zb_column_release(s);
  zb_column_release(t);
  zb_column_release(f);
  zb_column_release(c);
  zb_column_release(idx);
  zb_column_release(mask);
  return st;
}

ZB_TEST(test_list_fail_each_allocation) {
  zb_error err = {{0}};
  int failures = 0;
  for (int64_t n = 1; n < 500; n++) {
    zb_alloc_fail_after(n);
    zb_status st = list_everything(&err);
    int64_t left = zb_alloc_fail_after(0);
    zb_alloc_stats s;
    zb_alloc_get_stats(&s);
    ZB_CHECK_EQ_INT(s.host_allocations, 0);
    if (left > 0) {
      ZB_CHECK_OK(st, &err);
      break;
    }
    ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
    failures++;
  }
  ZB_CHECK(failures > 10);
}

/* to_json of a list column and of a list of lists: JSON arrays, null for
 * a null list or element (the text pandas writes for these Python lists,
 * by hand); a slice starting mid-column; then every allocation of the
 * write failed in turn. */
ZB_TEST(list_json_write) {
  zb_error err = {{0}};
  zb_column *l = NULL, *ll = NULL, *sl = NULL;
  zb_table *t = NULL;
  ZB_CHECK_OK(sample(&l, &err), &err);
  if (l == NULL) return;
  /* [[[1,2],null], [[],[3,null,5]], [[6]]]: offsets 0,2,4,5 over l */
  static const int64_t offs[] = {0, 2, 4, 5};
  zb_buffer *o = NULL;
  ZB_CHECK_OK(zb_buffer_new(ZB_CPU, sizeof offs, &o, &err), &err);
  memcpy(o->data, offs, sizeof offs);
  ZB_CHECK_OK(zb_column_make_list(3, 0, NULL, o, l, 0, &ll, &err), &err);
  zb_buffer_release(o);
  ZB_CHECK_OK(zb_column_slice(l, 1, 3, &sl, &err), &err); /* None, [], [3, None, 5] */
  zb_column *cols[2] = {sl, ll};
  const char *names[2] = {"l", "ll"};
  if (sl != NULL && ll != NULL) ZB_CHECK_OK(zb_table_make(2, cols, names, &t, &err), &err);
  if (t != NULL) {
    zb_test_text out = {NULL, 0, 0};
    ZB_CHECK_OK(zb_json_write(t, NULL, zb_test_text_write, &out, &err), &err);
    const char *want = "{\"l\":null,\"ll\":[[1,2],null]}\n"
                       "{\"l\":[],\"ll\":[[],[3,null,5]]}\n"
                       "{\"l\":[3,null,5],\"ll\":[[6]]}\n";
    if (out.p == NULL || strcmp(out.p, want) != 0)
      zb_test_fail(__FILE__, __LINE__, "got:\n%s", out.p ? out.p : "(null)");
    free(out.p);
    bool done = false;
    for (int64_t q = 1; q < 10000 && !done; q++) {
      zb_test_text o2 = {NULL, 0, 0};
      zb_alloc_fail_after(q);
      zb_status ws = zb_json_write(t, NULL, zb_test_text_write, &o2, &err);
      zb_alloc_fail_after(0);
      free(o2.p);
      if (ws == ZB_OK) done = true;
      else if (ws != ZB_ENOMEM) {
        zb_test_fail(__FILE__, __LINE__, "write allocation %lld: %s", (long long)q, err.message);
        break;
      }
    }
    ZB_CHECK(done);
  }
  zb_table_release(t);
  zb_column_release(sl);
  zb_column_release(ll);
  zb_column_release(l);
}
