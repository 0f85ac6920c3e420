/*
 * test_rolling.c -- unit tests of the moving-window statistics
 * (zb_column_rolling, zb_column_group_rolling, zb_column_rolling_pair).  Every result is checked
 * row by row against a plain loop here that gathers each row's window and
 * computes the statistic from scratch: for every statistic, windows of 0,
 * 1, 2, 7 and 300 rows and longer than the column, min_periods, center,
 * with nulls and NaN, through a slice at an odd offset, at lengths around
 * the 64-row words and past a morsel (so morsels warm their windows up),
 * with 1 and 3 threads, per group with null group ids; plus bad arguments
 * and the allocator failing each allocation in turn.
 *
 * Values are small integers, so sums and medians are exact in every order;
 * variances and moments are compared within 1e-9 relative.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "zambezi/rolling.h"

static uint64_t rng(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

#define OFF 5
#define MINI(a, b) ((a) < (b) ? (a) : (b))
#define MAXI(a, b) ((a) > (b) ? (a) : (b))

/* n float64 rows seen through a slice at OFF: about one in 6 null, one in
 * 9 NaN, the others integers in [-20, 20]. */
static zb_column *make(int64_t n, uint64_t seed) {
  zb_error err = {{0}};
  zb_column *base = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, n + OFF, true, 0, &base, &err), &err);
  double *d = (double *)base->data->data;
  uint8_t *bits = (uint8_t *)base->validity->data;
  for (int64_t i = 0; i < n + OFF; i++) {
    uint64_t r = rng(&seed);
    d[i] = r % 9 == 0 ? NAN : (double)((int64_t)(r >> 8) % 41 - 20);
    zb_bit_set(bits, i, (r >> 40) % 6 != 0);
  }
  zb_column_recount_nulls(base);
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_slice(base, OFF, n, &c, &err), &err);
  zb_column_release(base);
  return c;
}

static zb_column *make_ids(int64_t n, int64_t groups, uint64_t seed) {
  zb_error err = {{0}};
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n, true, 0, &c, &err), &err);
  int64_t *d = (int64_t *)c->data->data;
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = rng(&seed);
    d[i] = (int64_t)(r % (uint64_t)groups);
    zb_bit_set((uint8_t *)c->validity->data, i, (r >> 33) % 10 != 0);
  }
  zb_column_recount_nulls(c);
  return c;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The statistic of the window values v[0..m) (sorted in place), rows the
 * number of rows in the window; false for a missing result. */
static bool oracle(zb_roll_op op, const zb_rolling_options *o, double *v, int64_t m,
                   int64_t rows, double *res) {
  int64_t minp = o->min_periods;
  if (op == ZB_ROLL_COUNT) {
    *res = (double)m;
    return rows >= minp;
  }
  double sum = 0;
  for (int64_t i = 0; i < m; i++) sum += v[i];
  double mean = m ? sum / (double)m : 0, m2 = 0, m3 = 0, m4 = 0;
  for (int64_t i = 0; i < m; i++) {
    double d = v[i] - mean;
    m2 += d * d;
    m3 += d * d * d;
    m4 += d * d * d * d;
  }
  if (op == ZB_ROLL_MIN || op == ZB_ROLL_MAX || op == ZB_ROLL_MEDIAN || op == ZB_ROLL_QUANTILE)
    qsort(v, (size_t)m, sizeof(double), cmp_d);
  double n = (double)m;
  switch (op) {
    case ZB_ROLL_SUM: *res = sum; return m >= minp;
    case ZB_ROLL_MEAN: *res = mean; return m >= minp && m > 0;
    case ZB_ROLL_MIN: *res = m ? v[0] : 0; return m >= minp && m > 0;
    case ZB_ROLL_MAX: *res = m ? v[m - 1] : 0; return m >= minp && m > 0;
    case ZB_ROLL_VAR:
    case ZB_ROLL_STD: {
      if (!(m >= MAXI(minp, 1) && m > o->ddof)) return false;
      double var = m == 1 ? 0 : m2 / (n - o->ddof);
      *res = op == ZB_ROLL_STD ? sqrt(var) : var;
      return true;
    }
    case ZB_ROLL_SKEW:
    case ZB_ROLL_KURT: {
      bool kurt = op == ZB_ROLL_KURT;
      if (m < MAXI(minp, kurt ? 4 : 3) || m2 / n <= 1e-14) return false;
      double B = m2 / n, C = m3 / n, D = m4 / n;
      *res = kurt ? ((n * n - 1) * D / (B * B) - 3 * (n - 1) * (n - 1)) / ((n - 2) * (n - 3))
                  : sqrt(n * (n - 1)) * C / ((n - 2) * B * sqrt(B));
      return true;
    }
    case ZB_ROLL_MEDIAN:
      if (m < MAXI(minp, 1)) return false;
      *res = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
      return true;
    default: { /* quantile, linear */
      if (m < MAXI(minp, 1)) return false;
      double idxf = o->q * (n - 1);
      int64_t idx = (int64_t)idxf;
      double frac = idxf - (double)idx;
      *res = frac == 0 ? v[idx] : v[idx] + (v[idx + 1] - v[idx]) * frac;
      return true;
    }
  }
}

/* Check r against the oracle over the sequence of rows seq[0..L): every
 * stride-th position, and every position near a morsel's edge. */
static void check_seq(const zb_column *c, const zb_column *r, zb_roll_op op,
                      const zb_rolling_options *o, const int64_t *seq, int64_t L, double *buf,
                      int64_t stride, int *failures) {
  const double *cv = (const double *)c->data->data + c->offset;
  const double *rv = (const double *)r->data->data + r->offset;
  int64_t off = o->center ? (o->window - 1) / 2 : 0;
  for (int64_t k = 0; k < L && *failures < 5; k++) {
    int64_t in = k % ZB_MORSEL_ROWS;
    if (k % stride != 0 && in > 400 && in < ZB_MORSEL_ROWS - 400) continue;
    int64_t eu = k + 1 + off;
    int64_t e = MINI(eu, L), s = MAXI(eu - o->window, 0), m = 0;
    for (int64_t p = s; p < e; p++)
      if (zb_column_is_valid(c, seq[p]) && !isnan(cv[seq[p]])) buf[m++] = cv[seq[p]];
    double want = 0;
    bool ok = oracle(op, o, buf, m, e - s, &want);
    int64_t i = seq[k];
    bool got_ok = zb_column_is_valid(r, i);
    bool same = ok == got_ok;
    if (same && ok) {
      double tol = (op == ZB_ROLL_SKEW || op == ZB_ROLL_KURT || op == ZB_ROLL_VAR ||
                    op == ZB_ROLL_STD)
                       ? 1e-9 * fmax(1.0, fabs(want))
                       : 0.0;
      same = fabs(rv[i] - want) <= tol;
    }
    if (!same) {
      (*failures)++;
      zb_test_fail(__FILE__, __LINE__,
                   "%s window %lld minp %lld center %d row %lld: got %s%g, want %s%g",
                   zb_roll_op_name(op), (long long)o->window, (long long)o->min_periods,
                   (int)o->center, (long long)i, got_ok ? "" : "null ", rv[i],
                   ok ? "" : "null ", want);
    }
  }
}

static const int64_t k_windows[] = {0, 1, 2, 7, 300, 100000};

ZB_TEST(test_rolling_against_a_plain_loop) {
  zb_error err = {{0}};
  const int64_t lengths[] = {0, 1, 70, ZB_MORSEL_ROWS + 37};
  const int threads[] = {1, 3};
  int before = zb_get_num_threads();
  int failures = 0;
  for (int th = 0; th < 2; th++) {
    ZB_CHECK_OK(zb_set_num_threads(threads[th], &err), &err);
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
      int64_t n = lengths[li];
      zb_column *c = make(n, 11 + (uint64_t)n);
      int64_t *seq = (int64_t *)malloc((size_t)MAXI(n, 1) * sizeof(int64_t));
      double *buf = (double *)malloc((size_t)MAXI(n, 1) * sizeof(double));
      for (int64_t i = 0; i < n; i++) seq[i] = i;
      for (size_t wi = 0; wi < sizeof k_windows / sizeof k_windows[0]; wi++) {
        int64_t w = k_windows[wi];
        if (n > 1000 && (w == 7 || w == 100000)) continue; /* keep the loop short */
        for (int center = 0; center < 2; center++) {
          int64_t mps[2] = {w, MINI(w, 1)};
          for (int mi = 0; mi < 2; mi++) {
            zb_rolling_options o = {w, mps[mi], center != 0, 1, 0.3, ZB_INTERP_LINEAR};
            for (int op = 0; op < ZB_ROLL_COV; op++) {
              zb_column *r = NULL;
              ZB_CHECK_OK(zb_column_rolling(c, (zb_roll_op)op, &o, &r, &err), &err);
              if (r == NULL) continue;
              ZB_CHECK_EQ_INT(r->type, ZB_FLOAT64);
              ZB_CHECK_EQ_INT(r->length, n);
              check_seq(c, r, (zb_roll_op)op, &o, seq, n, buf, n > 1000 ? 97 : 1, &failures);
              zb_column_release(r);
            }
          }
        }
      }
      free(seq);
      free(buf);
      zb_column_release(c);
    }
  }
  ZB_CHECK_OK(zb_set_num_threads(before, &err), &err);
}

ZB_TEST(test_group_rolling_against_a_plain_loop) {
  zb_error err = {{0}};
  const int64_t n = 3000, G = 40;
  zb_column *c = make(n, 5);
  zb_column *ids = make_ids(n, G, 9);
  const int64_t *iv = (const int64_t *)ids->data->data;
  int64_t *seq = (int64_t *)malloc((size_t)n * sizeof(int64_t));
  double *buf = (double *)malloc((size_t)n * sizeof(double));
  int failures = 0;
  const int64_t windows[] = {0, 1, 3, 500};
  for (size_t wi = 0; wi < 4; wi++) {
    for (int center = 0; center < 2; center++) {
      zb_rolling_options o = {windows[wi], MINI(windows[wi], 2), center != 0, 1, 0.3,
                              ZB_INTERP_LINEAR};
      for (int op = 0; op < ZB_ROLL_COV; op++) {
        zb_column *r = NULL;
        ZB_CHECK_OK(zb_column_group_rolling(c, ids, G, (zb_roll_op)op, &o, &r, &err), &err);
        if (r == NULL) continue;
        for (int64_t g = 0; g < G; g++) {
          int64_t L = 0;
          for (int64_t i = 0; i < n; i++)
            if (zb_column_is_valid(ids, i) && iv[i] == g) seq[L++] = i;
          check_seq(c, r, (zb_roll_op)op, &o, seq, L, buf, 1, &failures);
        }
        for (int64_t i = 0; i < n; i++)
          if (!zb_column_is_valid(ids, i)) ZB_CHECK(!zb_column_is_valid(r, i));
        zb_column_release(r);
      }
    }
  }
  free(seq);
  free(buf);
  zb_column_release(c);
  zb_column_release(ids);
}

ZB_TEST(test_rolling_bad_arguments) {
  zb_error err = {{0}};
  zb_column *c = make(10, 1), *r = NULL;
  zb_rolling_options o = {3, 1, false, 1, 0.5, ZB_INTERP_LINEAR};
  o.window = -1;
  ZB_CHECK_EQ_INT(zb_column_rolling(c, ZB_ROLL_SUM, &o, &r, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "window") != NULL && r == NULL);
  o.window = 3;
  o.min_periods = 4;
  ZB_CHECK_EQ_INT(zb_column_rolling(c, ZB_ROLL_SUM, &o, &r, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "min_periods") != NULL);
  o.min_periods = 1;
  o.q = 1.5;
  ZB_CHECK_EQ_INT(zb_column_rolling(c, ZB_ROLL_QUANTILE, &o, &r, &err), ZB_EINVAL);
  o.q = 0.5;
  zb_column *i32 = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT32, 10, false, 0, &i32, &err), &err);
  ZB_CHECK_EQ_INT(zb_column_rolling(i32, ZB_ROLL_SUM, &o, &r, &err), ZB_ETYPE);
  ZB_CHECK(strstr(err.message, "float64") != NULL);
  zb_column *ids = make_ids(10, 3, 2);
  ZB_CHECK_EQ_INT(zb_column_group_rolling(c, i32, 3, ZB_ROLL_SUM, &o, &r, &err), ZB_ETYPE);
  ZB_CHECK_EQ_INT(zb_column_group_rolling(c, ids, 2, ZB_ROLL_SUM, &o, &r, &err), ZB_EINDEX);
  ZB_CHECK(r == NULL);
  ZB_CHECK(strcmp(zb_roll_op_name(ZB_ROLL_KURT), "kurt") == 0);
  zb_column_release(i32);
  zb_column_release(ids);
  zb_column_release(c);
}

ZB_TEST(test_rolling_allocation_failures) {
  zb_error err = {{0}};
  zb_column *c = make(2 * ZB_MORSEL_ROWS + 9, 4);
  zb_column *ids = make_ids(c->length, 50, 3);
  const zb_roll_op ops[] = {ZB_ROLL_MEAN, ZB_ROLL_MAX, ZB_ROLL_MEDIAN};
  for (int grouped = 0; grouped < 2; grouped++) {
    for (int oi = 0; oi < 3; oi++) {
      zb_rolling_options o = {oi == 2 ? 1000 : 20, 1, false, 1, 0.5, ZB_INTERP_LINEAR};
      bool ok = false;
      for (int64_t k = 1; k < 200 && !ok; k++) {
        zb_column *r = NULL;
        zb_alloc_fail_after(k);
        zb_status st = grouped ? zb_column_group_rolling(c, ids, 50, ops[oi], &o, &r, &err)
                               : zb_column_rolling(c, ops[oi], &o, &r, &err);
        zb_alloc_fail_after(0);
        ZB_CHECK(st == ZB_OK || st == ZB_ENOMEM);
        ZB_CHECK((st == ZB_OK) == (r != NULL));
        ok = st == ZB_OK;
        zb_column_release(r);
      }
      ZB_CHECK(ok);
    }
  }
  zb_column_release(c);
  zb_column_release(ids);
}

/* Windows given as bounds (time-based windows): random non-decreasing
 * starts and ends, checked against the plain loop over each window. */
ZB_TEST(test_rolling_given_windows) {
  zb_error err = {{0}};
  const int64_t n = ZB_MORSEL_ROWS + 300;
  zb_column *c = make(n, 21), *sc = NULL, *ec = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n, false, 0, &sc, &err), &err);
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n, false, 0, &ec, &err), &err);
  int64_t *s = (int64_t *)sc->data->data, *e = (int64_t *)ec->data->data;
  uint64_t seed = 77;
  int64_t lo = 0, longest = 0;
  for (int64_t i = 0; i < n; i++) {
    e[i] = i + (int64_t)(rng(&seed) % 2); /* right closed, or open */
    if (i > 0 && e[i] < e[i - 1]) e[i] = e[i - 1];
    while (lo < e[i] && rng(&seed) % 3 == 0) lo++;
    if (e[i] - lo > 40) lo = e[i] - 40;
    s[i] = lo;
    longest = MAXI(longest, e[i] - s[i]);
  }
  double *buf = (double *)malloc((size_t)n * sizeof(double));
  int failures = 0;
  for (int op = 0; op < ZB_ROLL_COV && failures == 0; op++) {
    zb_rolling_options o = {longest, 1, false, 1, 0.3, ZB_INTERP_LINEAR};
    zb_column *r = NULL;
    ZB_CHECK_OK(zb_column_rolling_bounds(c, sc, ec, (zb_roll_op)op, &o, &r, &err), &err);
    if (r == NULL) break;
    const double *cv = (const double *)c->data->data + c->offset;
    const double *rv = (const double *)r->data->data;
    for (int64_t i = 0; i < n && failures < 5; i += (i % ZB_MORSEL_ROWS < 200 ? 1 : 37)) {
      int64_t m = 0;
      for (int64_t p = s[i]; p < e[i]; p++)
        if (zb_column_is_valid(c, p) && !isnan(cv[p])) buf[m++] = cv[p];
      double want = 0;
      bool ok = oracle((zb_roll_op)op, &o, buf, m, e[i] - s[i], &want);
      bool same = ok == zb_column_is_valid(r, i) &&
                  (!ok || fabs(rv[i] - want) <= 1e-9 * fmax(1.0, fabs(want)));
      if (!same) {
        failures++;
        zb_test_fail(__FILE__, __LINE__, "%s given windows row %lld: got %g, want %s%g",
                     zb_roll_op_name((zb_roll_op)op), (long long)i, rv[i], ok ? "" : "null ",
                     want);
      }
    }
    zb_column_release(r);
  }
  /* bounds out of order or longer than the window are refused */
  zb_rolling_options o = {longest - 1, 1, false, 1, 0.5, ZB_INTERP_LINEAR};
  zb_column *r = NULL;
  ZB_CHECK_EQ_INT(zb_column_rolling_bounds(c, sc, ec, ZB_ROLL_SUM, &o, &r, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "window") != NULL && r == NULL);
  o.window = longest;
  s[10] = s[9] + 50;
  ZB_CHECK_EQ_INT(zb_column_rolling_bounds(c, sc, ec, ZB_ROLL_SUM, &o, &r, &err), ZB_EINVAL);
  free(buf);
  zb_column_release(c);
  zb_column_release(sc);
  zb_column_release(ec);
}

/* The covariance or correlation of the m pairs (a[i], b[i]), two-pass:
 * false when missing (too few pairs, no more than ddof, no spread). */
static bool pair_oracle(bool corr, const zb_rolling_options *o, const double *a,
                        const double *b, int64_t m, double *out) {
  if (m < MAXI(o->min_periods, 1) || m <= o->ddof) return false;
  double ma = 0, mb = 0;
  for (int64_t i = 0; i < m; i++) {
    ma += a[i];
    mb += b[i];
  }
  ma /= (double)m;
  mb /= (double)m;
  double cab = 0, saa = 0, sbb = 0;
  for (int64_t i = 0; i < m; i++) {
    cab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  if (!corr) {
    *out = cab / ((double)m - o->ddof);
    return true;
  }
  if (!(saa > 1e-9 && sbb > 1e-9)) return false; /* integers: no spread is exactly 0 */
  *out = cab / sqrt(saa * sbb);
  return true;
}

/* cov / corr of two columns (zb_column_rolling_pair) against the two-pass
 * loop over each window's pairs: fixed windows (center, min_periods, ddof)
 * past a morsel, 1 and 3 threads, nulls and NaN on either side leaving the
 * pair out, given windows; and the argument checks. */
ZB_TEST(test_rolling_pair_against_a_plain_loop) {
  zb_error err = {{0}};
  const int64_t n = ZB_MORSEL_ROWS + 90;
  zb_column *x = make(n, 31), *y = make(n, 57);
  const double *xv = (const double *)x->data->data + x->offset;
  const double *yv = (const double *)y->data->data + y->offset;
  double *a = (double *)malloc((size_t)n * sizeof(double));
  double *b = (double *)malloc((size_t)n * sizeof(double));
  int before = zb_get_num_threads();
  int failures = 0;
  const int64_t windows[] = {0, 1, 2, 7, 300};
  for (int th = 0; th < 2; th++) {
    ZB_CHECK_OK(zb_set_num_threads(th ? 3 : 1, &err), &err);
    for (size_t wi = 0; wi < 5; wi++) {
      const int64_t w = windows[wi];
      for (int variant = 0; variant < 3; variant++) {
        zb_rolling_options o = {w, variant == 1 ? MINI(w, 1) : w, variant == 2,
                                variant == 2 ? 0 : 1, 0.5, ZB_INTERP_LINEAR};
        const int64_t off = o.center ? (w - 1) / 2 : 0;
        for (int corr = 0; corr < 2; corr++) {
          zb_column *r = NULL;
          ZB_CHECK_OK(zb_column_rolling_pair(x, y, NULL, NULL, corr ? ZB_ROLL_CORR : ZB_ROLL_COV,
                                             &o, &r, &err), &err);
          if (r == NULL) continue;
          const double *rv = (const double *)r->data->data;
          for (int64_t i = 0; i < n && failures < 5; i += (i < 400 || i > n - 400) ? 1 : 53) {
            const int64_t e = MINI(i + 1 + off, n), s = MAXI(i + 1 + off - w, 0);
            int64_t m = 0;
            for (int64_t p = s; p < e; p++)
              if (zb_column_is_valid(x, p) && zb_column_is_valid(y, p) && xv[p] == xv[p] &&
                  yv[p] == yv[p]) {
                a[m] = xv[p];
                b[m++] = yv[p];
              }
            double want = 0;
            bool ok = pair_oracle(corr, &o, a, b, m, &want);
            bool same = ok == zb_column_is_valid(r, i) &&
                        (!ok || fabs(rv[i] - want) <= 1e-9 * fmax(1.0, fabs(want)));
            if (!same) {
              failures++;
              zb_test_fail(__FILE__, __LINE__, "%s window %lld row %lld: got %g (%s), want %s%g",
                           corr ? "corr" : "cov", (long long)w, (long long)i, rv[i],
                           zb_column_is_valid(r, i) ? "valid" : "null", ok ? "" : "null ", want);
            }
          }
          zb_column_release(r);
        }
      }
    }
  }
  ZB_CHECK_OK(zb_set_num_threads(before, &err), &err);
  /* given windows: the last 5 rows (and the row itself) */
  zb_column *sc = NULL, *ec = NULL, *r = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n, false, 0, &sc, &err), &err);
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n, false, 0, &ec, &err), &err);
  for (int64_t i = 0; i < n; i++) {
    ((int64_t *)sc->data->data)[i] = MAXI(i - 4, 0);
    ((int64_t *)ec->data->data)[i] = i + 1;
  }
  zb_rolling_options o5 = {5, 5, false, 1, 0.5, ZB_INTERP_LINEAR}, o1 = o5;
  o1.min_periods = 1;
  zb_column *fixed = NULL;
  ZB_CHECK_OK(zb_column_rolling_pair(x, y, sc, ec, ZB_ROLL_COV, &o1, &r, &err), &err);
  ZB_CHECK_OK(zb_column_rolling_pair(x, y, NULL, NULL, ZB_ROLL_COV, &o1, &fixed, &err), &err);
  for (int64_t i = 0; r != NULL && fixed != NULL && i < n; i++)
    if (zb_column_is_valid(r, i) != zb_column_is_valid(fixed, i) ||
        (zb_column_is_valid(r, i) &&
         fabs(((double *)r->data->data)[i] - ((double *)fixed->data->data)[i]) > 1e-9)) {
      zb_test_fail(__FILE__, __LINE__, "given windows differ from fixed ones at row %lld",
                   (long long)i);
      break;
    }
  zb_column_release(r);
  zb_column_release(fixed);
  /* argument checks */
  zb_column *shorter = make(n - 1, 3);
  r = NULL;
  ZB_CHECK_EQ_INT(zb_column_rolling(x, ZB_ROLL_COV, &o5, &r, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "second column") != NULL);
  ZB_CHECK_EQ_INT(zb_column_rolling_pair(x, shorter, NULL, NULL, ZB_ROLL_CORR, &o5, &r, &err),
                  ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_column_rolling_pair(x, y, NULL, NULL, ZB_ROLL_MEAN, &o5, &r, &err),
                  ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_column_rolling_pair(x, y, sc, NULL, ZB_ROLL_COV, &o5, &r, &err), ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_column_rolling_pair(x, sc, NULL, NULL, ZB_ROLL_COV, &o5, &r, &err),
                  ZB_ETYPE);
  ZB_CHECK(r == NULL);
  zb_column_release(shorter);
  zb_column_release(sc);
  zb_column_release(ec);
  zb_column_release(x);
  zb_column_release(y);
  free(a);
  free(b);
}
