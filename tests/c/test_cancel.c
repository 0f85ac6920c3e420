/*
 * test_cancel.c -- cancellation (zb_cancel_all, zambezi.h): an operation
 * cancelled at every morsel boundary in turn returns ZB_ECANCEL with no
 * output, or finishes normally when the cancel comes after its last morsel;
 * it never returns ZB_OK after skipping work, and it frees everything it
 * made (the allocator counters return to where they were).  Cancellation
 * outside a scope, or before the scope began, changes nothing.  Run under
 * ASan/UBSan in CI, this walks every failure path the checks add.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "zambezi/compute.h"
#include "zambezi/groupby.h"
#include "zambezi/join.h"

static uint64_t next_rand(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static void use_threads(int n) {
  zb_error err = {{0}};
  ZB_CHECK_OK(zb_set_num_threads(n, &err), &err);
}

/* A table of n rows: int64 key in [0, card) with nulls, float64 value,
 * short strings. */
static zb_table *make_table(int64_t n, int64_t card, uint64_t seed) {
  zb_error err = {{0}};
  zb_column *k = NULL, *v = NULL, *s = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n, true, 0, &k, &err), &err);
  ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, n, false, 0, &v, &err), &err);
  ZB_CHECK_OK(zb_column_new(ZB_STRING, n, false, n * 3, &s, &err), &err);
  int64_t *off = (int64_t *)s->data->data;
  char *ch = (char *)s->chars->data;
  off[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = next_rand(&seed);
    ((int64_t *)k->data->data)[i] = (int64_t)(r % (uint64_t)card);
    zb_bit_set((uint8_t *)k->validity->data, i, r % 13 != 0);
    ((double *)v->data->data)[i] = (double)(r >> 20) / 1024.0;
    ch[3 * i] = (char)('a' + r % 26);
    ch[3 * i + 1] = (char)('a' + (r >> 8) % 26);
    ch[3 * i + 2] = (char)('a' + (r >> 16) % 26);
    off[i + 1] = 3 * (i + 1);
  }
  zb_column_recount_nulls(k);
  zb_column *cols[3] = {k, v, s};
  const char *names[3] = {"k", "v", "s"};
  zb_table *t = NULL;
  ZB_CHECK_OK(zb_table_make(3, cols, names, &t, &err), &err);
  for (int i = 0; i < 3; i++) zb_column_release(cols[i]);
  return t;
}

typedef zb_status (*op_fn)(const zb_table *t, zb_error *err);

static zb_status op_groupby(const zb_table *t, zb_error *err) {
  int64_t keys[1] = {0};
  zb_agg aggs[2] = {{ZB_AGG_SUM, 1, 0, 1, 0.5, false, NULL},
                    {ZB_AGG_MEAN, 1, 0, 1, 0.5, false, "m"}};
  zb_table *out = NULL;
  zb_status st = zb_table_groupby(t, 1, keys, true, true, 2, aggs, &out, err);
  if (st == ZB_OK) ZB_CHECK(out != NULL);
  if (st != ZB_OK) ZB_CHECK(out == NULL);
  zb_table_release(out);
  return st;
}

static zb_status op_join(const zb_table *t, zb_error *err) {
  int64_t keys[1] = {0};
  zb_column *l = NULL, *r = NULL;
  zb_status st = zb_table_join_indices(t, t, 1, keys, keys, ZB_JOIN_INNER, false, false, &l, &r, err);
  if (st != ZB_OK) ZB_CHECK(l == NULL && r == NULL);
  zb_column_release(l);
  zb_column_release(r);
  return st;
}

static zb_status op_sort(const zb_table *t, zb_error *err) {
  int64_t keys[2] = {2, 1};
  bool asc[2] = {true, false};
  zb_column *idx = NULL;
  zb_status st = zb_table_sort_indices(t, 2, keys, asc, false, &idx, err);
  if (st != ZB_OK) ZB_CHECK(idx == NULL);
  zb_column_release(idx);
  return st;
}

static zb_status op_take_filter(const zb_table *t, zb_error *err) {
  zb_column *idx = NULL, *mask = NULL;
  zb_table *a = NULL, *b = NULL;
  zb_status st = zb_column_sort_indices(t->columns[1], true, false, &idx, err);
  if (st == ZB_OK) st = zb_table_take(t, idx, &a, err);
  if (st == ZB_OK) st = zb_column_notnull(t->columns[0], &mask, err);
  if (st == ZB_OK) st = zb_table_filter(t, mask, &b, err);
  zb_column_release(idx);
  zb_column_release(mask);
  zb_table_release(a);
  zb_table_release(b);
  return st;
}

static zb_status op_strings_cast(const zb_table *t, zb_error *err) {
  zb_str_args args;
  memset(&args, 0, sizeof args);
  args.op = ZB_STR_UPPER;
  zb_column *u = NULL, *c = NULL, *cat = NULL;
  zb_status st = zb_column_str(t->columns[2], &args, &u, err);
  if (st == ZB_OK) st = zb_column_cast(t->columns[1], ZB_STRING, ZB_NANO, &c, err);
  if (st == ZB_OK) st = zb_column_str_cat(u, c, "-", 1, &cat, err);
  zb_column_release(u);
  zb_column_release(c);
  zb_column_release(cat);
  return st;
}

static zb_status op_unique_cumsum(const zb_table *t, zb_error *err) {
  zb_column *u = NULL, *cs = NULL, *parts[2] = {t->columns[1], t->columns[1]}, *cc = NULL;
  zb_status st = zb_column_unique(t->columns[2], &u, err);
  if (st == ZB_OK) st = zb_column_cumulative(t->columns[1], ZB_CUM_SUM, true, &cs, err);
  if (st == ZB_OK) st = zb_column_concat(parts, 2, &cc, err);
  zb_column_release(u);
  zb_column_release(cs);
  zb_column_release(cc);
  return st;
}

/* Cancel op at its k-th task for k = 1, 2, ... until it finishes first. */
static void walk(const char *what, op_fn op, const zb_table *t) {
  zb_alloc_stats before, after;
  zb_alloc_get_stats(&before);
  bool finished = false;
  int64_t cancelled = 0;
  for (int64_t k = 1; k < 100000 && !finished; k += 1 + k / 4) {
    zb_error err = {{0}};
    zb_cancel_scope_begin();
    (void)zb_cancel_after_tasks(k);
    zb_status st = op(t, &err);
    int64_t skipped = zb_cancel_after_tasks(0);
    zb_cancel_scope_end();
    if (st == ZB_OK) {
      if (skipped != 0)
        zb_test_fail(__FILE__, __LINE__, "%s: returned ZB_OK after skipping %lld tasks (k=%lld)",
                     what, (long long)skipped, (long long)k);
      finished = true;
    } else {
      if (st != ZB_ECANCEL)
        zb_test_fail(__FILE__, __LINE__, "%s: cancelled at task %lld gave %s: %s", what,
                     (long long)k, zb_status_name(st), err.message);
      cancelled++;
    }
    zb_alloc_get_stats(&after);
    if (after.host_bytes != before.host_bytes ||
        after.host_allocations != before.host_allocations)
      zb_test_fail(__FILE__, __LINE__, "%s: cancelled at task %lld leaks %lld bytes", what,
                   (long long)k, (long long)(after.host_bytes - before.host_bytes));
  }
  if (!finished) zb_test_fail(__FILE__, __LINE__, "%s never finished", what);
  if (cancelled == 0) zb_test_fail(__FILE__, __LINE__, "%s was never cancelled", what);
}

ZB_TEST(test_cancel_every_morsel_boundary) {
  zb_table *t = make_table(2 * ZB_MORSEL_ROWS + 17, 20000, 7);
  static const struct {
    const char *name;
    op_fn fn;
  } ops[] = {{"groupby", op_groupby},         {"join", op_join},
             {"sort", op_sort},               {"take/filter", op_take_filter},
             {"strings/cast", op_strings_cast}, {"unique/cumsum/concat", op_unique_cumsum}};
  for (int threads = 1; threads <= 3; threads += 2) {
    use_threads(threads);
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) walk(ops[i].name, ops[i].fn, t);
  }
  use_threads(2);
  zb_table_release(t);
}

ZB_TEST(test_cancel_needs_a_scope_begun_before_it) {
  zb_table *t = make_table(3 * ZB_MORSEL_ROWS, 1000, 3);
  zb_error err = {{0}};
  /* outside a scope: never cancelled */
  zb_cancel_all();
  ZB_CHECK_EQ_INT(op_groupby(t, &err), ZB_OK);
  /* a cancel before the scope began does not reach the operation */
  zb_cancel_all();
  zb_cancel_scope_begin();
  ZB_CHECK_EQ_INT(op_sort(t, &err), ZB_OK);
  ZB_CHECK(!zb_cancel_requested());
  /* one during it does, and stays until the scope ends */
  zb_cancel_all();
  ZB_CHECK(zb_cancel_requested());
  ZB_CHECK_EQ_INT(op_sort(t, &err), ZB_ECANCEL);
  zb_cancel_scope_end();
  ZB_CHECK(!zb_cancel_requested());
  ZB_CHECK_EQ_INT(op_sort(t, &err), ZB_OK);
  zb_table_release(t);
}
