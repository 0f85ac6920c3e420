/*
 * test_time_bins.c -- zb_column_time_range, zb_column_time_bins
 * (zambezi/resample.h) and zb_column_group_lag (zambezi/groupby.h) against
 * loops written here: row counts around 64-row words and morsels, nulls,
 * sliced inputs, times in and out of order, out-of-range bins and ids, and
 * failed allocations.
 */
#include <string.h>

#include "test.h"
#include "zambezi/groupby.h"
#include "zambezi/resample.h"

static uint64_t next(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 33;
}

/* n int64 values: non-decreasing steps of 0..3 from start (sorted), else
 * random in [start, start + 4n); about 1 in 7 null when nulls. */
static zb_column *ticks(int64_t n, int64_t start, bool sorted, bool nulls, uint64_t seed) {
  zb_error err;
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n, nulls, 0, &c, &err), &err);
  if (c == NULL) return NULL;
  int64_t *v = (int64_t *)c->data->data, t = start;
  for (int64_t i = 0; i < n; i++) {
    t += (int64_t)(next(&seed) % 4);
    v[i] = sorted ? t : start + (int64_t)(next(&seed) % (uint64_t)(4 * n + 1));
    if (nulls && next(&seed) % 7 == 0) zb_bit_set((uint8_t *)c->validity->data, i, false);
  }
  zb_column_recount_nulls(c);
  return c;
}

static int64_t at(const zb_column *c, int64_t i) {
  return ((const int64_t *)c->data->data)[c->offset + i];
}

static void check_range(const zb_column *c) {
  zb_error err;
  zb_time_range r;
  ZB_CHECK_OK(zb_column_time_range(c, &r, &err), &err);
  int64_t valid = 0, lo = 0, hi = 0, last = 0;
  bool sorted = true;
  for (int64_t i = 0; i < c->length; i++) {
    if (!zb_column_is_valid(c, i)) continue;
    int64_t x = at(c, i);
    if (valid > 0 && x < last) sorted = false;
    lo = valid == 0 || x < lo ? x : lo;
    hi = valid == 0 || x > hi ? x : hi;
    last = x;
    valid++;
  }
  ZB_CHECK_EQ_INT(r.valid, valid);
  ZB_CHECK_EQ_INT(r.lo, lo);
  ZB_CHECK_EQ_INT(r.hi, hi);
  ZB_CHECK(r.sorted == sorted);
}

ZB_TEST(time_range_matches_loop) {
  const int64_t sizes[] = {0, 1, 63, 64, 65, 1000, 65536 + 77, 3 * 65536 + 5};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
    for (int s = 0; s < 2; s++)
      for (int nl = 0; nl < 2; nl++) {
        zb_column *c = ticks(sizes[k], -500, s == 1, nl == 1, 17 + k);
        check_range(c);
        if (c != NULL && c->length > 10) { /* a slice, off the word boundary */
          zb_column *sl = NULL;
          zb_error err;
          ZB_CHECK_OK(zb_column_slice(c, 3, c->length - 5, &sl, &err), &err);
          check_range(sl);
          zb_column_release(sl);
        }
        zb_column_release(c);
      }
  /* one value out of order right at a morsel edge */
  zb_column *c = ticks(2 * 65536, 0, true, false, 3);
  ((int64_t *)c->data->data)[65536] = -1;
  check_range(c);
  zb_column_release(c);
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

ZB_TEST(time_bins_matches_loop) {
  zb_error err;
  const int64_t sizes[] = {1, 64, 1000, 65536 + 77, 2 * 65536 + 3};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
    for (int s = 0; s < 2; s++)
      for (int scale = 1; scale <= 1000; scale *= 1000) {
        zb_column *c = ticks(sizes[k], 1000, s == 1, true, 40 + k);
        const int64_t width = scale == 1 ? 7 : 5500, base = scale == 1 ? 998 : 999001;
        int64_t nb = 1;
        for (int64_t i = 0; i < c->length; i++)
          if (zb_column_is_valid(c, i)) {
            int64_t b = floor_div(at(c, i) * scale - base, width) + 1;
            nb = b > nb ? b : nb;
          }
        zb_column *ids = NULL;
        int64_t runs = -1;
        ZB_CHECK_OK(zb_column_time_bins(c, scale, base, width, nb, &ids, &runs, &err), &err);
        if (ids == NULL) {
          zb_column_release(c);
          continue;
        }
        int64_t want_runs = 0, prev = -1;
        for (int64_t i = 0; i < c->length; i++) {
          bool valid = zb_column_is_valid(c, i);
          ZB_CHECK(zb_column_is_valid(ids, i) == valid);
          if (!valid) continue;
          int64_t b = floor_div(at(c, i) * scale - base, width);
          if (at(ids, i) != b) {
            zb_test_fail(__FILE__, __LINE__, "n %lld scale %d row %lld: %lld, want %lld",
                         (long long)c->length, scale, (long long)i, (long long)at(ids, i),
                         (long long)b);
            break;
          }
          want_runs += prev < 0 || b != prev;
          prev = b;
        }
        ZB_CHECK_EQ_INT(runs, want_runs);
        zb_column_release(ids);
        zb_column_release(c);
      }
  /* a bin past n_bins, before 0, or t * scale outside int64: ZB_EINDEX */
  zb_column *c = ticks(300, 10, true, false, 9);
  zb_column *ids = NULL;
  int64_t runs = 0;
  ZB_CHECK(zb_column_time_bins(c, 1, 0, 10, 3, &ids, &runs, &err) == ZB_EINDEX);
  ZB_CHECK(strstr(err.message, "row") != NULL);
  ZB_CHECK(ids == NULL);
  ZB_CHECK(zb_column_time_bins(c, 1, 100, 10, 1000, &ids, &runs, &err) == ZB_EINDEX);
  ((int64_t *)c->data->data)[299] = INT64_MAX / 2;
  ZB_CHECK(zb_column_time_bins(c, 4, 0, 10, INT64_MAX, &ids, &runs, &err) == ZB_EINDEX);
  ZB_CHECK(zb_column_time_bins(c, 0, 0, 10, 10, &ids, &runs, &err) == ZB_EINVAL);
  zb_column_release(c);
  zb_column *f = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, 4, false, 0, &f, &err), &err);
  ZB_CHECK(zb_column_time_bins(f, 1, 0, 10, 10, &ids, &runs, &err) == ZB_ETYPE);
  zb_column_release(f);
}

/* n group ids in [0, ng) with about 1 in 9 null. */
static zb_column *group_ids(int64_t n, int64_t ng, uint64_t seed) {
  zb_error err;
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n, true, 0, &c, &err), &err);
  if (c == NULL) return NULL;
  int64_t *v = (int64_t *)c->data->data;
  for (int64_t i = 0; i < n; i++) {
    v[i] = (int64_t)(next(&seed) % (uint64_t)ng);
    if (next(&seed) % 9 == 0) zb_bit_set((uint8_t *)c->validity->data, i, false);
  }
  zb_column_recount_nulls(c);
  return c;
}

/* The row periods before i in its group, by walking back (or -1). */
static int64_t lag_loop(const zb_column *ids, int64_t i, int64_t periods) {
  if (periods == 0) return i;
  if (!zb_column_is_valid(ids, i)) return -1;
  int64_t step = periods > 0 ? -1 : 1, left = periods > 0 ? periods : -periods;
  for (int64_t r = i + step; r >= 0 && r < ids->length; r += step)
    if (zb_column_is_valid(ids, r) && at(ids, r) == at(ids, i) && --left == 0) return r;
  return -1;
}

ZB_TEST(group_lag_matches_loop) {
  zb_error err;
  const int64_t sizes[] = {1, 65, 700, 65536 + 9};
  const int64_t periods[] = {0, 1, -1, 3, -4, 1000000};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
    for (int64_t ng = 1; ng <= 400; ng *= 20) {
      zb_column *ids = group_ids(sizes[k], ng, 70 + k);
      for (size_t p = 0; p < sizeof periods / sizeof periods[0]; p++) {
        zb_column *o = NULL;
        ZB_CHECK_OK(zb_column_group_lag(ids, ng, periods[p], &o, &err), &err);
        if (o == NULL) continue;
        /* the loop is quadratic in the worst case: check a stride of rows */
        for (int64_t i = 0; i < ids->length; i += 1 + ids->length / 3000) {
          int64_t want = lag_loop(ids, i, periods[p]);
          bool valid = zb_column_is_valid(o, i);
          if (valid != (want >= 0) || (valid && at(o, i) != want)) {
            zb_test_fail(__FILE__, __LINE__, "n %lld ng %lld periods %lld row %lld: %lld, "
                         "want %lld", (long long)ids->length, (long long)ng,
                         (long long)periods[p], (long long)i,
                         valid ? (long long)at(o, i) : -1LL, (long long)want);
            break;
          }
        }
        zb_column_release(o);
      }
      zb_column_release(ids);
    }
  zb_column *ids = group_ids(100, 5, 1);
  zb_column *o = NULL;
  ZB_CHECK(zb_column_group_lag(ids, 4, 1, &o, &err) == ZB_EINDEX);
  ZB_CHECK(strstr(err.message, "row") != NULL);
  ZB_CHECK(o == NULL);
  ZB_CHECK(zb_column_group_lag(ids, -1, 1, &o, &err) == ZB_EINVAL);
  zb_column_release(ids);
}

ZB_TEST(time_bins_group_lag_alloc_failures) {
  zb_error err;
  zb_column *c = ticks(70000, 0, true, true, 5), *ids = group_ids(70000, 50, 6);
  int failures = 0;
  for (int64_t n = 1; n < 100; n++) {
    zb_column *a = NULL, *b = NULL;
    zb_time_range r;
    int64_t runs = 0;
    zb_alloc_fail_after(n);
    zb_status s1 = zb_column_time_range(c, &r, &err);
    zb_status s2 = s1 == ZB_OK ? zb_column_time_bins(c, 1, 0, 100, 10000, &a, &runs, &err)
                               : ZB_ENOMEM;
    zb_status s3 = s2 == ZB_OK ? zb_column_group_lag(ids, 50, 2, &b, &err) : ZB_ENOMEM;
    int64_t left = zb_alloc_fail_after(0);
    zb_column_release(a);
    zb_column_release(b);
    if (left > 0) {
      ZB_CHECK_OK(s1, &err);
      ZB_CHECK_OK(s2, &err);
      ZB_CHECK_OK(s3, &err);
      break;
    }
    ZB_CHECK(s1 == ZB_ENOMEM || s2 == ZB_ENOMEM || s3 == ZB_ENOMEM);
    ZB_CHECK((s2 == ZB_OK) == (a != NULL));
    failures++;
  }
  ZB_CHECK(failures >= 4);
  zb_column_release(c);
  zb_column_release(ids);
}
