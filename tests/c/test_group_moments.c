/*
 * test_group_moments.c -- unit tests for zb_column_group_moment (pandas'
 * group-by skew and kurt: values hand-checked against pandas 3.1) and for
 * zb_column_diff's wrapping results (unsigned, int32 / int64 to float64,
 * and a column's own integer type): missing values and NaN skipped or
 * (skipna false) making their group missing, null ids, too-small and
 * constant groups, argument checks, and a fault-injection loop.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "col_util.h"
#include "test.h"
#include "zambezi/compute.h"
#include "zambezi/groupby.h"

/* An INT64 column of ids; -1 is a null id. */
static zb_column *ids64(const int64_t *v, int64_t n) {
  zb_error err = {{0}};
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n, true, 0, &c, &err), &err);
  uint8_t *bits = (uint8_t *)c->validity->data;
  memset(bits, 0, (size_t)((n + 7) / 8));
  for (int64_t i = 0; i < n; i++) {
    ((int64_t *)c->data->data)[i] = v[i] < 0 ? 0 : v[i];
    if (v[i] >= 0) bits[i >> 3] |= (uint8_t)(1u << (i & 7));
  }
  zb_column_recount_nulls(c);
  return c;
}

static bool near(double a, double b) { return fabs(a - b) <= 1e-12 * fmax(1.0, fabs(b)); }

ZB_TEST(test_group_moment_values) {
  zb_error err = {{0}};
  /* group 0: 1, 2, 4 (+ a NaN, a null); group 1: 1, 2, 4, 8; group 2: 3, 3,
   * 3, 3 (no spread); group 3: 5, 6 (too few); a row in no group */
  const double v[] = {1, 2, NAN, 4, 9, 1, 2, 4, 8, 3, 3, 3, 3, 5, 6, 100};
  const bool ok[] = {1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  const int64_t g[] = {0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, -1};
  zb_column *c = zb_test_f64(v, ok, 16), *ids = ids64(g, 16), *s = NULL, *k = NULL, *s2 = NULL;
  ZB_CHECK_OK(zb_column_group_moment(c, ids, 4, ZB_MOMENT_SKEW, true, &s, &err), &err);
  ZB_CHECK_OK(zb_column_group_moment(c, ids, 4, ZB_MOMENT_KURT, true, &k, &err), &err);
  ZB_CHECK_OK(zb_column_group_moment(c, ids, 4, ZB_MOMENT_SKEW, false, &s2, &err), &err);
  ZB_CHECK(s->type == ZB_FLOAT64 && s->length == 4);
  const double *sv = (const double *)s->data->data, *kv = (const double *)k->data->data;
  ZB_CHECK(zb_column_is_valid(s, 0) && near(sv[0], 0.9352195295828246));
  ZB_CHECK(zb_column_is_valid(s, 1) && near(sv[1], 1.1376243669576889));
  ZB_CHECK(!zb_column_is_valid(s, 2) && !zb_column_is_valid(s, 3));
  ZB_CHECK(!zb_column_is_valid(k, 0) && zb_column_is_valid(k, 1));
  ZB_CHECK(near(kv[1], 0.7576559546313781));
  ZB_CHECK(!zb_column_is_valid(k, 2) && !zb_column_is_valid(k, 3));
  /* skipna false: group 0 holds a NaN and a null */
  ZB_CHECK(!zb_column_is_valid(s2, 0) && zb_column_is_valid(s2, 1));
  ZB_CHECK_EQ_INT(s->null_count, 2);
  zb_column_release(s);
  zb_column_release(k);
  zb_column_release(s2);
  zb_column_release(c);
  zb_column_release(ids);
}

/* Without group ids the whole column is one group (Series.skew / kurt):
 * the same values as every row in group 0, over several morsels (the
 * parallel path), with nulls, NaN and a tail that is not a multiple of 8. */
ZB_TEST(test_group_moment_of_the_whole_column) {
  zb_error err = {{0}};
  enum { N = 3 * 65536 + 13 };
  double *v = malloc(N * sizeof(double));
  bool *ok = malloc(N * sizeof(bool));
  int64_t *g = calloc(N, sizeof(int64_t));
  for (int i = 0; i < N; i++) {
    v[i] = i % 97 == 5 ? NAN : 1e6 + (double)((i * 7919) % 1013) * ((i % 3) ? 1.0 : -2.5);
    ok[i] = i % 89 != 3;
  }
  zb_column *c = zb_test_f64(v, ok, N), *ids = ids64(g, N);
  for (int op = 0; op < 2; op++) {
    for (int skipna = 0; skipna < 2; skipna++) {
      zb_column *a = NULL, *b = NULL;
      ZB_CHECK_OK(zb_column_group_moment(c, NULL, 1, (zb_moment_op)op, skipna, &a, &err), &err);
      ZB_CHECK_OK(zb_column_group_moment(c, ids, 1, (zb_moment_op)op, skipna, &b, &err), &err);
      ZB_CHECK(a->length == 1 && b->length == 1);
      ZB_CHECK_EQ_INT(zb_column_is_valid(a, 0), skipna); /* skipna false: a NaN, so missing */
      ZB_CHECK_EQ_INT(zb_column_is_valid(a, 0), zb_column_is_valid(b, 0));
      if (skipna)
        ZB_CHECK(fabs(((double *)a->data->data)[0] - ((double *)b->data->data)[0]) <=
                 1e-9 * fabs(((double *)b->data->data)[0]));
      zb_column_release(a);
      zb_column_release(b);
    }
  }
  /* a hand-checked case: 1, 2, 4, 8 (pandas 3.1 kurt 0.7576559546313781) */
  const double small[] = {1, 2, 4, 8};
  zb_column *sc = zb_test_f64(small, NULL, 4), *k = NULL;
  ZB_CHECK_OK(zb_column_group_moment(sc, NULL, 1, ZB_MOMENT_KURT, true, &k, &err), &err);
  ZB_CHECK(zb_column_is_valid(k, 0) && near(((double *)k->data->data)[0], 0.7576559546313781));
  zb_column_release(k);
  /* without ids there is one group */
  ZB_CHECK_EQ_INT(zb_column_group_moment(sc, NULL, 2, ZB_MOMENT_SKEW, true, &k, &err),
                  ZB_EINVAL);
  ZB_CHECK(k == NULL && strstr(err.message, "n_groups must be 1") != NULL);
  zb_column_release(sc);
  zb_column_release(c);
  zb_column_release(ids);
  free(v);
  free(ok);
  free(g);
}

ZB_TEST(test_group_moment_bad_arguments) {
  zb_error err = {{0}};
  const double v[] = {1, 2, 3};
  const int64_t g[] = {0, 1, 2}, g2[] = {0, 1};
  zb_column *c = zb_test_f64(v, NULL, 3), *ids = ids64(g, 3), *short_ids = ids64(g2, 2), *r = NULL;
  ZB_CHECK_EQ_INT(zb_column_group_moment(c, ids, 2, ZB_MOMENT_SKEW, true, &r, &err), ZB_EINDEX);
  ZB_CHECK(strstr(err.message, "group id") != NULL && r == NULL);
  ZB_CHECK_EQ_INT(zb_column_group_moment(c, short_ids, 3, ZB_MOMENT_SKEW, true, &r, &err),
                  ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_column_group_moment(c, c, 3, ZB_MOMENT_KURT, true, &r, &err), ZB_ETYPE);
  ZB_CHECK_EQ_INT(zb_column_group_moment(c, ids, 3, (zb_moment_op)7, true, &r, &err), ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_column_group_moment(NULL, ids, 3, ZB_MOMENT_SKEW, true, &r, &err),
                  ZB_EINVAL);
  zb_column *s = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_STRING, 3, false, 0, &s, &err), &err);
  ZB_CHECK_EQ_INT(zb_column_group_moment(s, ids, 3, ZB_MOMENT_SKEW, true, &r, &err), ZB_ETYPE);
  ZB_CHECK(strstr(err.message, "string") != NULL);
  zb_column_release(s);
  zb_column_release(c);
  zb_column_release(ids);
  zb_column_release(short_ids);
}

ZB_TEST(test_group_moment_allocation_failures) {
  zb_error err = {{0}};
  enum { N = 5000 };
  double *v = malloc(N * sizeof(double));
  int64_t *g = malloc(N * sizeof(int64_t));
  for (int i = 0; i < N; i++) {
    v[i] = (double)((i * 7919) % 101);
    g[i] = i % 13 == 0 ? -1 : i % 37;
  }
  zb_column *c = zb_test_f64(v, NULL, N), *ids = ids64(g, N);
  bool ok = false;
  for (int64_t k = 1; k < 40 && !ok; k++) {
    zb_column *r = NULL;
    zb_alloc_fail_after(k);
    zb_status st = zb_column_group_moment(c, ids, 37, ZB_MOMENT_KURT, true, &r, &err);
    zb_alloc_fail_after(0);
    ZB_CHECK(st == ZB_OK || st == ZB_ENOMEM);
    ZB_CHECK((st == ZB_OK) == (r != NULL));
    ok = st == ZB_OK;
    zb_column_release(r);
  }
  ZB_CHECK(ok);
  zb_column_release(c);
  zb_column_release(ids);
  free(v);
  free(g);
}

ZB_TEST(test_diff_wraps_as_pandas) {
  zb_error err = {{0}};
  zb_column *u = NULL, *l = NULL, *r = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_UINT8, 3, false, 0, &u, &err), &err);
  const uint8_t uv[] = {5, 3, 250};
  memcpy(u->data->data, uv, 3);
  ZB_CHECK_OK(zb_column_diff(u, 1, ZB_FLOAT64, &r, &err), &err);
  ZB_CHECK(!zb_column_is_valid(r, 0) && ((double *)r->data->data)[1] == 254.0);
  ZB_CHECK(((double *)r->data->data)[2] == 247.0);
  zb_column_release(r);
  ZB_CHECK_OK(zb_column_diff(u, -1, ZB_UINT8, &r, &err), &err);
  ZB_CHECK(r->type == ZB_UINT8 && ((uint8_t *)r->data->data)[0] == 2);
  ZB_CHECK(((uint8_t *)r->data->data)[1] == 9 && !zb_column_is_valid(r, 2));
  zb_column_release(r);
  ZB_CHECK_EQ_INT(zb_column_diff(u, 1, ZB_INT8, &r, &err), ZB_ETYPE);
  ZB_CHECK_OK(zb_column_new(ZB_INT64, 2, false, 0, &l, &err), &err);
  ((int64_t *)l->data->data)[0] = INT64_MIN;
  ((int64_t *)l->data->data)[1] = INT64_MAX;
  ZB_CHECK_OK(zb_column_diff(l, 1, ZB_FLOAT64, &r, &err), &err);
  ZB_CHECK(((double *)r->data->data)[1] == -1.0);  /* wraps, as pandas */
  zb_column_release(r);
  ZB_CHECK_OK(zb_column_diff(l, 1, ZB_INT64, &r, &err), &err);
  ZB_CHECK(((int64_t *)r->data->data)[1] == -1);
  zb_column_release(r);
  zb_column_release(l);
  zb_column_release(u);
}
