/*
 * test_reshape.c -- zb_column_one_hot and zb_column_repeat (zambezi/reshape.h)
 * against loops written here: row counts around 64-row words and morsels,
 * nulls, sliced inputs, bad codes, wrong types and failed allocations.
 */
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "zambezi/reshape.h"

/* Row i of string column c and its length. */
static const char *str_at(const zb_column *c, int64_t i, int64_t *len) {
  const int64_t *o = (const int64_t *)c->data->data + c->offset + i;
  *len = o[1] - o[0];
  return (const char *)c->chars->data + o[0];
}

static uint64_t next(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 33;
}

/* n int64 codes in [-1, k) with about 1 in 9 null (valid NULL: none). */
static zb_status codes_column(int64_t n, int64_t k, bool nulls, uint64_t seed, zb_column **out,
                              zb_error *err) {
  ZB_RETURN_NOT_OK(zb_column_new(ZB_INT64, n, nulls, 0, out, err));
  int64_t *v = (int64_t *)(*out)->data->data;
  for (int64_t i = 0; i < n; i++) {
    v[i] = (int64_t)(next(&seed) % (uint64_t)(k + 1)) - 1;
    if (nulls && next(&seed) % 9 == 0) zb_bit_set((uint8_t *)(*out)->validity->data, i, false);
  }
  zb_column_recount_nulls(*out);
  return ZB_OK;
}

/* n strings "", "a", "ab", ... (row i: i % 23 letters), every 5th null. */
static zb_status strings_column(int64_t n, zb_column **out, zb_error *err) {
  int64_t bytes = 0;
  for (int64_t i = 0; i < n; i++) bytes += i % 23;
  ZB_RETURN_NOT_OK(zb_column_new(ZB_STRING, n, true, bytes, out, err));
  int64_t *o = (int64_t *)(*out)->data->data;
  char *c = (char *)(*out)->chars->data;
  o[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    for (int64_t q = 0; q < i % 23; q++) c[o[i] + q] = (char)('a' + (i + q) % 26);
    o[i + 1] = o[i] + i % 23;
    if (i % 5 == 4) zb_bit_set((uint8_t *)(*out)->validity->data, i, false);
  }
  zb_column_recount_nulls(*out);
  return ZB_OK;
}

static void check_one_hot(const zb_column *codes, int64_t k) {
  zb_error err;
  zb_table *t = NULL;
  ZB_CHECK_OK(zb_column_one_hot(codes, k, &t, &err), &err);
  if (t == NULL) return;
  ZB_CHECK_EQ_INT(t->num_columns, k);
  ZB_CHECK_EQ_INT(t->num_rows, codes->length);
  const int64_t *v = (const int64_t *)codes->data->data + codes->offset;
  int bad = 0;
  for (int64_t g = 0; g < k; g++) {
    const zb_column *c = t->columns[g];
    char name[24];
    snprintf(name, sizeof name, "%lld", (long long)g);
    ZB_CHECK(strcmp(t->names[g], name) == 0);
    ZB_CHECK(c->type == ZB_BOOL && c->null_count == 0);
    for (int64_t i = 0; i < codes->length && bad < 3; i++) {
      bool want = zb_column_is_valid(codes, i) && v[i] == g;
      bool got = zb_bit_get((const uint8_t *)c->data->data, c->offset + i);
      if (want != got) {
        zb_test_fail(__FILE__, __LINE__, "n %lld k %lld: column %lld row %lld is %d",
                     (long long)codes->length, (long long)k, (long long)g, (long long)i, got);
        bad++;
      }
    }
  }
  zb_table_release(t);
}

ZB_TEST(reshape_one_hot_matches_loop) {
  zb_error err;
  const int64_t ns[] = {0, 1, 63, 64, 65, 1000, ZB_MORSEL_ROWS + 77};
  const int64_t ks[] = {1, 3, 16, 70};
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
    for (size_t b = 0; b < sizeof ks / sizeof ks[0]; b++)
      for (int nulls = 0; nulls < 2; nulls++) {
        zb_column *codes = NULL;
        ZB_CHECK_OK(codes_column(ns[a], ks[b], nulls, 11 + a * 7 + b, &codes, &err), &err);
        check_one_hot(codes, ks[b]);
        zb_column *part = NULL; /* a slice: codes not at the buffer's start */
        ZB_CHECK_OK(zb_column_slice(codes, 13, ns[a], &part, &err), &err);
        check_one_hot(part, ks[b]);
        zb_column_release(part);
        zb_column_release(codes);
      }
}

ZB_TEST(reshape_one_hot_errors) {
  zb_error err;
  zb_column *codes = NULL;
  zb_table *t = NULL;
  ZB_CHECK_OK(codes_column(200, 5, false, 3, &codes, &err), &err);
  ((int64_t *)codes->data->data)[150] = 5;
  ((int64_t *)codes->data->data)[170] = 9;
  ZB_CHECK_EQ_INT(zb_column_one_hot(codes, 5, &t, &err), ZB_EINDEX);
  ZB_CHECK(t == NULL && strstr(err.message, "row 150") != NULL);
  ZB_CHECK_EQ_INT(zb_column_one_hot(codes, -1, &t, &err), ZB_EINVAL);
  zb_column *f = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, 4, false, 0, &f, &err), &err);
  ZB_CHECK_EQ_INT(zb_column_one_hot(f, 2, &t, &err), ZB_ETYPE);
  zb_column *b = NULL, *o = NULL;
  ZB_CHECK_EQ_INT(zb_column_repeat(f, -1, &o, &err), ZB_EINVAL);
  ZB_CHECK_OK(zb_column_new(ZB_BOOL, 4, false, 0, &b, &err), &err);
  ZB_CHECK_EQ_INT(zb_column_repeat(b, 2, &o, &err), ZB_ETYPE);
  ZB_CHECK(o == NULL);
  ZB_CHECK_EQ_INT(zb_column_repeat(f, INT64_MAX / 2, &o, &err), ZB_EOVERFLOW);
  ZB_CHECK_OK(zb_column_one_hot(codes, 10, &t, &err), &err); /* every code below 10 */
  ZB_CHECK(t != NULL && t->num_columns == 10);
  zb_table_release(t);
  ZB_CHECK_OK(zb_column_one_hot(codes, 0, &t, &err), &err); /* 0 columns: no code is read */
  ZB_CHECK(t != NULL && t->num_columns == 0 && t->num_rows == 200);
  zb_table_release(t);
  zb_column_release(b);
  zb_column_release(f);
  zb_column_release(codes);
}

static void check_repeat_int(const zb_column *col, int64_t times) {
  zb_error err;
  zb_column *o = NULL;
  ZB_CHECK_OK(zb_column_repeat(col, times, &o, &err), &err);
  if (o == NULL) return;
  ZB_CHECK_EQ_INT(o->length, col->length * times);
  ZB_CHECK_EQ_INT(o->null_count, col->null_count * times);
  const int32_t *v = (const int32_t *)col->data->data + col->offset;
  const int32_t *w = (const int32_t *)o->data->data + o->offset;
  for (int64_t p = 0; p < o->length; p++) {
    int64_t i = p / times;
    bool valid = zb_column_is_valid(col, i);
    if (zb_column_is_valid(o, p) != valid || (valid && w[p] != v[i])) {
      zb_test_fail(__FILE__, __LINE__, "int32 x %lld: row %lld", (long long)times, (long long)p);
      break;
    }
  }
  zb_column_release(o);
}

static void check_repeat_str(const zb_column *col, int64_t times) {
  zb_error err;
  zb_column *o = NULL;
  ZB_CHECK_OK(zb_column_repeat(col, times, &o, &err), &err);
  if (o == NULL) return;
  ZB_CHECK_EQ_INT(o->length, col->length * times);
  ZB_CHECK_EQ_INT(o->null_count, col->null_count * times);
  for (int64_t p = 0; p < o->length; p++) {
    int64_t i = p / times, la, lb;
    const char *a = str_at(col, i, &la), *b = str_at(o, p, &lb);
    bool valid = zb_column_is_valid(col, i);
    if (zb_column_is_valid(o, p) != valid || la != lb || (la > 0 && memcmp(a, b, (size_t)la))) {
      zb_test_fail(__FILE__, __LINE__, "string x %lld: row %lld", (long long)times,
                   (long long)p);
      break;
    }
  }
  zb_column_release(o);
}

ZB_TEST(reshape_repeat_matches_loop) {
  zb_error err;
  const int64_t ns[] = {0, 1, 5, 100, 3001};
  const int64_t times[] = {0, 1, 2, 63, 70};
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
    zb_column *ic = NULL, *sc = NULL, *is = NULL, *ss = NULL;
    ZB_CHECK_OK(zb_column_new(ZB_INT32, ns[a] + 3, true, 0, &ic, &err), &err);
    for (int64_t i = 0; ic != NULL && i < ns[a] + 3; i++) {
      ((int32_t *)ic->data->data)[i] = (int32_t)(i * 7 - 50);
      if (i % 4 == 1) zb_bit_set((uint8_t *)ic->validity->data, i, false);
    }
    if (ic != NULL) zb_column_recount_nulls(ic);
    ZB_CHECK_OK(strings_column(ns[a] + 3, &sc, &err), &err);
    ZB_CHECK_OK(zb_column_slice(ic, 3, ns[a], &is, &err), &err);
    ZB_CHECK_OK(zb_column_slice(sc, 3, ns[a], &ss, &err), &err);
    for (size_t b = 0; b < sizeof times / sizeof times[0]; b++) {
      check_repeat_int(ic, times[b]);
      check_repeat_int(is, times[b]);
      check_repeat_str(sc, times[b]);
      check_repeat_str(ss, times[b]);
    }
    zb_column_release(ic);
    zb_column_release(sc);
    zb_column_release(is);
    zb_column_release(ss);
  }
  /* melt's case: a few names, each repeated over more than a morsel */
  zb_column *sc = NULL;
  ZB_CHECK_OK(strings_column(6, &sc, &err), &err);
  check_repeat_str(sc, ZB_MORSEL_ROWS + 5);
  zb_column_release(sc);
}

ZB_TEST(reshape_alloc_failures) {
  zb_error err;
  zb_column *codes = NULL, *sc = NULL;
  ZB_CHECK_OK(codes_column(1000, 12, true, 5, &codes, &err), &err);
  ZB_CHECK_OK(strings_column(50, &sc, &err), &err);
  int failures = 0;
  for (int64_t n = 1; n < 200; n++) {
    zb_table *t = NULL;
    zb_column *o = NULL;
    zb_alloc_fail_after(n);
    zb_status a = zb_column_one_hot(codes, 12, &t, &err);
    zb_status b = a == ZB_OK ? zb_column_repeat(sc, 40, &o, &err) : ZB_ENOMEM;
    int64_t left = zb_alloc_fail_after(0);
    zb_table_release(t);
    zb_column_release(o);
    if (left > 0) {
      ZB_CHECK_OK(a, &err);
      ZB_CHECK_OK(b, &err);
      break;
    }
    ZB_CHECK(a == ZB_ENOMEM || b == ZB_ENOMEM);
    ZB_CHECK((a == ZB_ENOMEM) == (t == NULL));
    failures++;
  }
  ZB_CHECK(failures > 12);
  zb_column_release(codes);
  zb_column_release(sc);
}
