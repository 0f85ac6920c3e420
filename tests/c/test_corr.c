/*
 * test_corr.c -- unit tests for zb_table_corr (pandas' nancorr: the
 * correlation and covariance matrices of DataFrame.corr / cov): values
 * worked out by hand (y = 2x correlates to exactly 1: every Welford step
 * of y is twice x's), rows with a null, NaN or infinity skipped, the fast
 * loop and the masked one giving the same bits, any thread count the same
 * bits, min_periods, constant columns, argument checks and a
 * fault-injection loop.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "col_util.h"
#include "test.h"
#include "zambezi/compute.h"

/* A table of k columns (taken over: released here), named c0, c1 ... */
static zb_table *table_of(zb_column **cols, int64_t k) {
  zb_error err = {{0}};
  char names[16][8];
  const char *nm[16];
  for (int64_t i = 0; i < k; i++) {
    snprintf(names[i], sizeof names[i], "c%d", (int)i);
    nm[i] = names[i];
  }
  zb_table *t = NULL;
  ZB_CHECK_OK(zb_table_make(k, cols, nm, &t, &err), &err);
  for (int64_t i = 0; i < k; i++) zb_column_release(cols[i]);
  return t;
}

static bool same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

ZB_TEST(test_corr_by_hand) {
  zb_error err = {{0}};
  const double x[] = {1, 2, 3, 4}, y[] = {2, 4, 6, 8}, k3[] = {3, 3, 3, 3};
  /* the same values with skipped rows between: a NaN, an infinity, a null */
  const double x2[] = {1, NAN, 2, INFINITY, 3, 9, 4}, y2[] = {2, 5, 4, 5, 6, 5, 8};
  const bool ok2[] = {1, 1, 1, 1, 1, 0, 1};
  zb_column *cols[] = {zb_test_f64(x, NULL, 4), zb_test_f64(y, NULL, 4), zb_test_f64(k3, NULL, 4)};
  zb_table *t = table_of(cols, 3);
  double r[9], c[9];
  ZB_CHECK_OK(zb_table_corr(t, 1, 1, false, r, &err), &err);
  ZB_CHECK(r[0] == 1.0 && r[4] == 1.0 && r[1] == 1.0 && r[3] == 1.0);
  ZB_CHECK(isnan(r[2]) && isnan(r[6]) && isnan(r[8])); /* a constant column */
  ZB_CHECK_OK(zb_table_corr(t, 1, 1, true, c, &err), &err);
  /* var(1, 2, 3, 4) = 5 / 3, cov(x, 2x) = 10 / 3, the constant's 0 */
  ZB_CHECK(fabs(c[0] - 5.0 / 3) < 1e-15 && fabs(c[1] - 10.0 / 3) < 1e-15 && c[8] == 0.0);
  ZB_CHECK_OK(zb_table_corr(t, 1, 0, true, c, &err), &err);
  ZB_CHECK(fabs(c[0] - 1.25) < 1e-15);
  ZB_CHECK_OK(zb_table_corr(t, 5, 1, false, r, &err), &err); /* fewer than 5 rows */
  for (int i = 0; i < 9; i++) ZB_CHECK(isnan(r[i]));
  zb_table_release(t);

  zb_column *cols2[] = {zb_test_f64(x2, ok2, 7), zb_test_f64(y2, NULL, 7)};
  t = table_of(cols2, 2);
  ZB_CHECK_OK(zb_table_corr(t, 1, 1, false, r, &err), &err);
  ZB_CHECK(r[0] == 1.0 && r[1] == 1.0 && r[2] == 1.0 && r[3] == 1.0);
  ZB_CHECK_OK(zb_table_corr(t, 5, 1, false, r, &err), &err); /* 4 complete rows */
  ZB_CHECK(isnan(r[1]) && r[3] == 1.0);                        /* y alone has 7 */
  zb_table_release(t);
}

/* Pseudo-random values with a trend, so that the correlations are not 0. */
static void fill(double *v, int64_t n, int seed) {
  uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(seed + 1);
  for (int64_t i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    v[i] = (double)(s % 100000) / 997.0 + 0.01 * (double)i * (seed % 3);
  }
}

ZB_TEST(test_corr_paths_and_threads_agree) {
  zb_error err = {{0}};
  enum { N = 20000, K = 6 };
  double *v = malloc((size_t)K * N * sizeof(double));
  for (int c = 0; c < K; c++) fill(v + (size_t)c * N, N, c);
  /* table a: K clean columns; table b: a column with a NaN first, then
   * the same K, so every pair of the clean columns shares a task with it
   * in b (the masked loop) but not in a (the loop without tests) */
  double *bad = malloc(N * sizeof(double));
  fill(bad, N, 9);
  bad[17] = NAN;
  zb_column *ca[K], *cb[K + 1];
  cb[0] = zb_test_f64(bad, NULL, N);
  for (int c = 0; c < K; c++) {
    ca[c] = zb_test_f64(v + (size_t)c * N, NULL, N);
    cb[c + 1] = zb_test_f64(v + (size_t)c * N, NULL, N);
  }
  zb_table *a = table_of(ca, K), *b = table_of(cb, K + 1);
  double ra[K * K], rb[(K + 1) * (K + 1)], r1[K * K];
  for (int cov = 0; cov < 2; cov++) {
    ZB_CHECK_OK(zb_table_corr(a, 1, 1, cov, ra, &err), &err);
    ZB_CHECK_OK(zb_table_corr(b, 1, 1, cov, rb, &err), &err);
    int threads = zb_get_num_threads();
    ZB_CHECK_OK(zb_set_num_threads(1, &err), &err);
    ZB_CHECK_OK(zb_table_corr(a, 1, 1, cov, r1, &err), &err);
    ZB_CHECK_OK(zb_set_num_threads(threads, &err), &err);
    for (int i = 0; i < K; i++)
      for (int j = 0; j < K; j++) {
        ZB_CHECK(same_bits(ra[i * K + j], rb[(i + 1) * (K + 1) + j + 1]));
        ZB_CHECK(same_bits(ra[i * K + j], r1[i * K + j]));
        ZB_CHECK(same_bits(ra[i * K + j], ra[j * K + i]));
      }
    for (int i = 0; i < K && !cov; i++) ZB_CHECK(ra[i * K + i] == 1.0);
  }
  zb_table_release(a);
  zb_table_release(b);
  free(v);
  free(bad);
}

ZB_TEST(test_corr_bad_arguments) {
  zb_error err = {{0}};
  const double x[] = {1, 2, 3};
  zb_column *i64 = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, 3, false, 0, &i64, &err), &err);
  memset(i64->data->data, 0, 3 * sizeof(int64_t));
  zb_column *cols[] = {zb_test_f64(x, NULL, 3), i64};
  zb_table *t = table_of(cols, 2);
  double r[4];
  ZB_CHECK_EQ_INT(zb_table_corr(t, 1, 1, false, r, &err), ZB_ETYPE);
  ZB_CHECK(strstr(err.message, "c1") != NULL && strstr(err.message, "int64") != NULL);
  ZB_CHECK_EQ_INT(zb_table_corr(t, -1, 1, false, r, &err), ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_table_corr(t, 1, -1, true, r, &err), ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_table_corr(t, 1, 1, false, NULL, &err), ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_table_corr(NULL, 1, 1, false, r, &err), ZB_EINVAL);
  zb_table_release(t);
}

ZB_TEST(test_corr_allocation_failures) {
  zb_error err = {{0}};
  enum { N = 3000, K = 5 };
  double *v = malloc((size_t)K * N * sizeof(double));
  zb_column *cols[K];
  for (int c = 0; c < K; c++) {
    fill(v + (size_t)c * N, N, c);
    cols[c] = zb_test_f64(v + (size_t)c * N, NULL, N);
  }
  zb_table *t = table_of(cols, K);
  double r[K * K];
  bool ok = false;
  for (int64_t k = 1; k < 20 && !ok; k++) {
    zb_alloc_fail_after(k);
    zb_status st = zb_table_corr(t, 1, 1, false, r, &err);
    zb_alloc_fail_after(0);
    ZB_CHECK(st == ZB_OK || st == ZB_ENOMEM);
    ok = st == ZB_OK;
  }
  ZB_CHECK(ok && r[0] == 1.0);
  zb_table_release(t);
  free(v);
}
