/*
 * test_ewm.c -- unit tests of the exponentially weighted statistics
 * (zb_table_ewm).  With adjust, pandas' recurrences equal closed forms
 * that a plain loop here computes from scratch for each row: the mean is
 * sum(w x) / sum(w) and the biased variance sum(w (x - mean)^2) / sum(w)
 * over the values so far, with w = (1 - alpha)^age (age in rows; in
 * values only with ignore_na), and the unbiased variance scales it by
 * sum(w)^2 / (sum(w)^2 - sum(w^2)).  Checked within 1e-9 relative, with
 * nulls and NaN, through a slice at an odd offset, past a morsel, with 1
 * and 3 threads; per group (null ids included) against each group's rows
 * run as their own column; plus bad arguments and the allocator failing
 * each allocation in turn.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "zambezi/ewm.h"

static uint64_t rng(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

#define OFF 3

/* n float64 rows through a slice at OFF: about one in 6 null, one in 9
 * NaN, the others in [-20, 20]. */
static zb_column *make(int64_t n, uint64_t seed) {
  zb_error err = {{0}};
  zb_column *base = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, n + OFF, true, 0, &base, &err), &err);
  double *d = (double *)base->data->data;
  uint8_t *bits = (uint8_t *)base->validity->data;
  for (int64_t i = 0; i < n + OFF; i++) {
    uint64_t r = rng(&seed);
    d[i] = r % 9 == 0 ? NAN : (double)((int64_t)(r >> 8) % 4001 - 2000) / 100.0;
    zb_bit_set(bits, i, (r >> 40) % 6 != 0);
  }
  zb_column_recount_nulls(base);
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_slice(base, OFF, n, &c, &err), &err);
  zb_column_release(base);
  return c;
}

static zb_table *table_of(zb_column *c) {
  zb_error err = {{0}};
  zb_table *t = NULL;
  const char *names[1] = {"x"};
  ZB_CHECK_OK(zb_table_make(1, &c, names, &t, &err), &err);
  return t;
}

static double value(const zb_column *c, int64_t i) {
  if (!zb_column_is_valid(c, i)) return NAN;
  return ((const double *)c->data->data)[c->offset + i];
}

/* The closed form at each row (NaN where fewer than minp values). */
static void oracle(const zb_column *c, zb_ewm_op op, double alpha, int64_t minp, bool ignore_na,
                   bool bias, double *out) {
  const int64_t n = c->length;
  for (int64_t t = 0; t < n; t++) {
    double sw = 0, sw2 = 0, swx = 0;
    int64_t nobs = 0, age = 0;
    for (int64_t i = t; i >= 0; i--) { /* newest first */
      double x = value(c, i);
      bool obs = x == x;
      if (obs) {
        double w = pow(1 - alpha, (double)age);
        sw += w;
        sw2 += w * w;
        swx += w * x;
        nobs++;
      }
      if (obs || !ignore_na) age++;
    }
    if (nobs < (minp < 1 ? 1 : minp)) {
      out[t] = NAN;
      continue;
    }
    double mean = swx / sw;
    if (op == ZB_EWM_MEAN) {
      out[t] = mean;
      continue;
    }
    double m2 = 0;
    age = 0;
    for (int64_t i = t; i >= 0; i--) {
      double x = value(c, i);
      bool obs = x == x;
      if (obs) m2 += pow(1 - alpha, (double)age) * (x - mean) * (x - mean);
      if (obs || !ignore_na) age++;
    }
    double var = m2 / sw;
    if (!bias) var = sw * sw - sw2 > 0 ? var * (sw * sw) / (sw * sw - sw2) : NAN;
    out[t] = op == ZB_EWM_STD ? sqrt(var) : var;
  }
}

static void check_against(const zb_column *got, const double *want, const char *what,
                          int *failures) {
  for (int64_t i = 0; i < got->length && *failures < 5; i++) {
    bool valid = zb_column_is_valid(got, i);
    double g = ((const double *)got->data->data)[got->offset + i];
    bool ok = valid ? (want[i] == want[i] && fabs(g - want[i]) <= 1e-9 * fmax(1, fabs(want[i])))
                    : want[i] != want[i];
    if (!ok) {
      (*failures)++;
      zb_test_fail(__FILE__, __LINE__, "%s row %lld: got %s%g, want %g", what, (long long)i,
                   valid ? "" : "null ", g, want[i]);
    }
  }
}

ZB_TEST(test_ewm_against_closed_forms) {
  zb_error err = {{0}};
  const int64_t lengths[] = {0, 1, 200, ZB_MORSEL_ROWS + 5};
  const int threads[] = {1, 3};
  const zb_ewm_op ops[] = {ZB_EWM_MEAN, ZB_EWM_VAR, ZB_EWM_STD};
  int before = zb_get_num_threads();
  int failures = 0;
  for (int th = 0; th < 2; th++) {
    ZB_CHECK_OK(zb_set_num_threads(threads[th], &err), &err);
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
      int64_t n = lengths[li];
      zb_column *c = make(n, 7 + (uint64_t)n);
      zb_table *t = table_of(c);
      double *want = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
      /* the closed form is quadratic: a long column checks its head only */
      zb_column *head = NULL;
      ZB_CHECK_OK(zb_column_slice(c, 0, n < 800 ? n : 800, &head, &err), &err);
      for (int oi = 0; oi < 3; oi++) {
        for (int ig = 0; ig < 2; ig++) {
          for (int bias = 0; bias < 2; bias++) {
            if (ops[oi] == ZB_EWM_MEAN && bias) continue;
            zb_ewm_options o = {2.0, 3, true, ig != 0, bias != 0, 1.0};
            zb_table *r = NULL;
            ZB_CHECK_OK(zb_table_ewm(t, NULL, 0, NULL, ops[oi], &o, &r, &err), &err);
            if (r == NULL) continue;
            ZB_CHECK_EQ_INT(r->num_columns, 1);
            ZB_CHECK_EQ_INT(r->num_rows, n);
            ZB_CHECK(strcmp(r->names[0], "x") == 0);
            oracle(head, ops[oi], 1.0 / 3.0, 3, ig != 0, bias != 0, want);
            zb_column *rh = NULL;
            ZB_CHECK_OK(zb_column_slice(r->columns[0], 0, head->length, &rh, &err), &err);
            check_against(rh, want, zb_ewm_op_name(ops[oi]), &failures);
            zb_column_release(rh);
            zb_table_release(r);
          }
        }
      }
      zb_column_release(head);
      free(want);
      zb_table_release(t);
      zb_column_release(c);
    }
  }
  ZB_CHECK_OK(zb_set_num_threads(before, &err), &err);
}

/* Per group: each group's result equals its rows run as their own column;
 * rows with a null id are null. */
ZB_TEST(test_group_ewm_equals_each_group_alone) {
  zb_error err = {{0}};
  const int64_t n = 3000, groups = 37;
  zb_column *c = make(n, 99);
  zb_table *t = table_of(c);
  zb_column *ids = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n, true, 0, &ids, &err), &err);
  uint64_t seed = 5;
  int64_t *iv = (int64_t *)ids->data->data;
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = rng(&seed);
    iv[i] = (int64_t)(r % (uint64_t)groups);
    zb_bit_set((uint8_t *)ids->validity->data, i, (r >> 33) % 10 != 0);
  }
  zb_column_recount_nulls(ids);
  const zb_ewm_op ops[] = {ZB_EWM_MEAN, ZB_EWM_SUM, ZB_EWM_VAR, ZB_EWM_CORR};
  int failures = 0;
  for (int oi = 0; oi < 4; oi++) {
    zb_ewm_options o = {1.5, 1, oi != 1 ? false : true, false, false, 1.0};
    zb_table *pair = NULL;
    zb_column *two[2] = {c, c};
    const char *names[2] = {"x", "y"};
    ZB_CHECK_OK(zb_table_make(2, two, names, &pair, &err), &err);
    const zb_table *in = ops[oi] == ZB_EWM_CORR ? pair : t;
    zb_table *r = NULL;
    ZB_CHECK_OK(zb_table_ewm(in, ids, groups, NULL, ops[oi], &o, &r, &err), &err);
    for (int64_t g = 0; g < groups && r != NULL; g++) {
      int64_t m = 0;
      int64_t *rows = (int64_t *)malloc((size_t)n * sizeof(int64_t));
      for (int64_t i = 0; i < n; i++)
        if (zb_column_is_valid(ids, i) && iv[i] == g) rows[m++] = i;
      zb_column *sub = NULL;
      ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, m, true, 0, &sub, &err), &err);
      for (int64_t k = 0; k < m; k++) {
        ((double *)sub->data->data)[k] = ((const double *)c->data->data)[c->offset + rows[k]];
        zb_bit_set((uint8_t *)sub->validity->data, k, zb_column_is_valid(c, rows[k]));
      }
      zb_column_recount_nulls(sub);
      zb_column *sub2[2] = {sub, sub};
      zb_table *st = NULL, *sr = NULL;
      ZB_CHECK_OK(zb_table_make(ops[oi] == ZB_EWM_CORR ? 2 : 1, sub2, names, &st, &err), &err);
      ZB_CHECK_OK(zb_table_ewm(st, NULL, 0, NULL, ops[oi], &o, &sr, &err), &err);
      double *want = (double *)malloc((size_t)(m > 0 ? m : 1) * sizeof(double));
      for (int64_t k = 0; k < m; k++) want[k] = value(sr->columns[0], k);
      zb_column *got = NULL;
      ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, m, true, 0, &got, &err), &err);
      for (int64_t k = 0; k < m; k++) {
        ((double *)got->data->data)[k] = value(r->columns[0], rows[k]);
        zb_bit_set((uint8_t *)got->validity->data, k, zb_column_is_valid(r->columns[0], rows[k]));
      }
      check_against(got, want, zb_ewm_op_name(ops[oi]), &failures);
      zb_column_release(got);
      free(want);
      zb_table_release(sr);
      zb_table_release(st);
      zb_column_release(sub);
      free(rows);
    }
    for (int64_t i = 0; i < n && r != NULL; i++)
      if (!zb_column_is_valid(ids, i)) ZB_CHECK(!zb_column_is_valid(r->columns[0], i));
    zb_table_release(r);
    zb_table_release(pair);
  }
  zb_column_release(ids);
  zb_table_release(t);
  zb_column_release(c);
}

ZB_TEST(test_ewm_bad_arguments) {
  zb_error err = {{0}};
  zb_column *c = make(10, 1);
  zb_table *t = table_of(c), *r = NULL;
  zb_ewm_options o = {1.0, 1, true, false, false, 1.0};
  o.com = -1;
  ZB_CHECK_EQ_INT(zb_table_ewm(t, NULL, 0, NULL, ZB_EWM_MEAN, &o, &r, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "com") != NULL && r == NULL);
  o.com = 1;
  ZB_CHECK_EQ_INT(zb_table_ewm(t, NULL, 0, NULL, ZB_EWM_COV, &o, &r, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "pairs") != NULL);
  ZB_CHECK_EQ_INT(zb_table_ewm(t, NULL, 0, c, ZB_EWM_VAR, &o, &r, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "times") != NULL);
  zb_column *i64 = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, 10, false, 0, &i64, &err), &err);
  memset(i64->data->data, 0, 10 * sizeof(int64_t));
  zb_table *ti = table_of(i64);
  ZB_CHECK_EQ_INT(zb_table_ewm(ti, NULL, 0, NULL, ZB_EWM_MEAN, &o, &r, &err), ZB_ETYPE);
  ZB_CHECK(strstr(err.message, "float64") != NULL);
  ZB_CHECK_EQ_INT(zb_table_ewm(t, i64, 0, NULL, ZB_EWM_MEAN, &o, &r, &err), ZB_EINDEX);
  ZB_CHECK_EQ_INT(zb_table_ewm(t, c, 1, NULL, ZB_EWM_MEAN, &o, &r, &err), ZB_ETYPE);
  ZB_CHECK(r == NULL);
  ZB_CHECK(strcmp(zb_ewm_op_name(ZB_EWM_CORR), "corr") == 0);
  zb_table_release(ti);
  zb_column_release(i64);
  zb_table_release(t);
  zb_column_release(c);
}

ZB_TEST(test_ewm_allocation_failures) {
  zb_error err = {{0}};
  zb_column *c = make(ZB_MORSEL_ROWS + 9, 4);
  zb_table *t = table_of(c);
  zb_column *ids = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, c->length, false, 0, &ids, &err), &err);
  for (int64_t i = 0; i < c->length; i++) ((int64_t *)ids->data->data)[i] = i % 50;
  for (int grouped = 0; grouped < 2; grouped++) {
    zb_ewm_options o = {3.0, 1, true, false, false, 1.0};
    bool ok = false;
    for (int64_t k = 1; k < 200 && !ok; k++) {
      zb_table *r = NULL;
      zb_alloc_fail_after(k);
      zb_status st = zb_table_ewm(t, grouped ? ids : NULL, 50, NULL, ZB_EWM_VAR, &o, &r, &err);
      zb_alloc_fail_after(0);
      ZB_CHECK(st == ZB_OK || st == ZB_ENOMEM);
      ZB_CHECK((st == ZB_OK) == (r != NULL));
      ok = st == ZB_OK;
      zb_table_release(r);
    }
    ZB_CHECK(ok);
  }
  zb_column_release(ids);
  zb_table_release(t);
  zb_column_release(c);
}

/* Cancelled at its k-th task for k = 1, 2, ... (sequences, then the
 * validity pass): ZB_ECANCEL with nothing leaked, until it finishes. */
ZB_TEST(test_ewm_cancel_at_every_task) {
  zb_error err = {{0}};
  zb_column *c = make(2 * ZB_MORSEL_ROWS + 9, 8);
  zb_column *two[2] = {c, c};
  const char *names[2] = {"x", "y"};
  zb_table *t = NULL;
  ZB_CHECK_OK(zb_table_make(2, two, names, &t, &err), &err);
  zb_column *ids = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, c->length, false, 0, &ids, &err), &err);
  for (int64_t i = 0; i < c->length; i++) ((int64_t *)ids->data->data)[i] = i % 1000;
  int before = zb_get_num_threads();
  ZB_CHECK_OK(zb_set_num_threads(3, &err), &err);
  for (int grouped = 0; grouped < 2; grouped++) {
    zb_alloc_stats s0, s1;
    zb_alloc_get_stats(&s0);
    bool finished = false;
    int64_t cancelled = 0;
    for (int64_t k = 1; k < 100000 && !finished; k += 1 + k / 4) {
      zb_ewm_options o = {3.0, 1, true, false, false, 1.0};
      zb_table *r = NULL;
      zb_cancel_scope_begin();
      (void)zb_cancel_after_tasks(k);
      zb_status st = zb_table_ewm(t, grouped ? ids : NULL, 1000, NULL, ZB_EWM_VAR, &o, &r, &err);
      int64_t skipped = zb_cancel_after_tasks(0);
      zb_cancel_scope_end();
      if (st == ZB_OK) {
        ZB_CHECK(skipped == 0);
        finished = true;
      } else {
        ZB_CHECK_EQ_INT(st, ZB_ECANCEL);
        ZB_CHECK(r == NULL);
        cancelled++;
      }
      zb_table_release(r);
      zb_alloc_get_stats(&s1);
      ZB_CHECK(s1.host_bytes == s0.host_bytes && s1.host_allocations == s0.host_allocations);
    }
    ZB_CHECK(finished && cancelled > 0);
  }
  ZB_CHECK_OK(zb_set_num_threads(before, &err), &err);
  zb_column_release(ids);
  zb_table_release(t);
  zb_column_release(c);
}
