/*
 * test_stats.c -- unit tests for the statistics and hash-based operations
 * of zambezi/compute.h: var/std, prod, any/all, argmin/argmax, quantiles,
 * min_max of strings and dates, hashing, unique, nunique, value_counts,
 * duplicated, drop_duplicates and isin.  Every result is checked against
 * plain loops written here (naive O(n * distinct) scans for the hash
 * operations), on columns with nulls, NaN, -0.0 and odd offsets, at lengths
 * 0, 1, 2, 1000 and 100003, with 1 and 3 threads; failure paths are checked
 * with the allocator's fault injection.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "zambezi/compute.h"

static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static const int64_t k_lengths[] = {0, 1, 2, 1000, 100003};
#define N_LENGTHS 5

static void set_threads(int n) {
  zb_error err = {{0}};
  ZB_CHECK_OK(zb_set_num_threads(n, &err), &err);
}

/* ---- column builders ------------------------------------------------------ */

/* A random column of type t (numeric, bool, date32, timestamp) of n rows
 * seen through a slice at offset 5.  card > 0: card distinct base values
 * (many repeats); floats get NaN, -0.0 and 0.0 sprinkled in when special. */
static zb_column *make_num(zb_type_id t, int64_t n, uint64_t seed, bool nulls, int64_t card,
                           bool special) {
  zb_error err = {{0}};
  const int64_t off = 5;
  zb_column *base = NULL, *s = NULL;
  ZB_CHECK_OK(zb_column_new(t, n + off, true, 0, &base, &err), &err);
  if (base == NULL) return NULL;
  if (t == ZB_TIMESTAMP) zb_column_set_time(base, ZB_MICRO, NULL, &err);
  void *d = base->data->data;
  for (int64_t p = 0; p < n + off; p++) {
    uint64_t r = rng_next(&seed);
    int64_t x = (int64_t)(r % (uint64_t)card) - card / 2;
    double f = (double)x / 4.0;
    if (special && t >= ZB_FLOAT32) {
      int k = (int)((r >> 40) % 16);
      if (k == 0) f = NAN;
      if (k == 1) f = -0.0;
      if (k == 2) f = 0.0;
    }
    switch (t) {
      case ZB_BOOL: zb_bit_set((uint8_t *)d, p, x & 1); break;
      case ZB_INT8: ((int8_t *)d)[p] = (int8_t)x; break;
      case ZB_INT16: ((int16_t *)d)[p] = (int16_t)x; break;
      case ZB_INT32: case ZB_DATE32: ((int32_t *)d)[p] = (int32_t)x; break;
      case ZB_INT64: case ZB_TIMESTAMP: ((int64_t *)d)[p] = x * 1000003; break;
      case ZB_UINT8: ((uint8_t *)d)[p] = (uint8_t)(x + card / 2); break;
      case ZB_UINT16: ((uint16_t *)d)[p] = (uint16_t)(x + card / 2); break;
      case ZB_UINT32: ((uint32_t *)d)[p] = (uint32_t)(x + card / 2); break;
      case ZB_UINT64: ((uint64_t *)d)[p] = (uint64_t)(x + card / 2) * 3; break;
      case ZB_FLOAT32: ((float *)d)[p] = (float)f; break;
      case ZB_FLOAT64: ((double *)d)[p] = f; break;
      default: break;
    }
    if (nulls && (r >> 58) % 7 == 0) zb_bit_set((uint8_t *)base->validity->data, p, false);
  }
  zb_column_recount_nulls(base);
  ZB_CHECK_OK(zb_column_slice(base, off, n, &s, &err), &err);
  zb_column_release(base);
  return s;
}

/* Strings "w<k>" for k < card, plus "" (k == 0), offset 5, nulls ~1/7. */
static zb_column *make_str(int64_t n, uint64_t seed, bool nulls, int64_t card) {
  zb_error err = {{0}};
  const int64_t off = 5;
  char buf[32];
  int64_t total = 0;
  uint64_t s0 = seed;
  for (int64_t p = 0; p < n + off; p++) {
    uint64_t r = rng_next(&seed);
    int64_t k = (int64_t)(r % (uint64_t)card);
    total += k == 0 ? 0 : snprintf(buf, sizeof buf, "w%lld", (long long)k);
  }
  seed = s0;
  zb_column *base = NULL, *s = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_STRING, n + off, true, total, &base, &err), &err);
  int64_t *o = (int64_t *)base->data->data;
  char *ch = (char *)base->chars->data;
  o[0] = 0;
  for (int64_t p = 0; p < n + off; p++) {
    uint64_t r = rng_next(&seed);
    int64_t k = (int64_t)(r % (uint64_t)card);
    int l = k == 0 ? 0 : snprintf(buf, sizeof buf, "w%lld", (long long)k);
    memcpy(ch + o[p], buf, (size_t)l);
    o[p + 1] = o[p] + l;
    if (nulls && (r >> 58) % 7 == 0) zb_bit_set((uint8_t *)base->validity->data, p, false);
  }
  zb_column_recount_nulls(base);
  ZB_CHECK_OK(zb_column_slice(base, off, n, &s, &err), &err);
  zb_column_release(base);
  return s;
}

static zb_column *to_cat(zb_column *s) {
  zb_error err = {{0}};
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_cast(s, ZB_CATEGORICAL, ZB_MICRO, &c, &err), &err);
  return c;
}

/* ---- oracle helpers ------------------------------------------------------- */

static double get_f(const zb_column *c, int64_t i) {
  const void *d = c->data->data;
  int64_t p = c->offset + i;
  switch (c->type) {
    case ZB_BOOL: return zb_bit_get((const uint8_t *)d, p);
    case ZB_INT8: return ((const int8_t *)d)[p];
    case ZB_INT16: return ((const int16_t *)d)[p];
    case ZB_INT32: case ZB_DATE32: return ((const int32_t *)d)[p];
    case ZB_INT64: case ZB_TIMESTAMP: return (double)((const int64_t *)d)[p];
    case ZB_UINT8: return ((const uint8_t *)d)[p];
    case ZB_UINT16: return ((const uint16_t *)d)[p];
    case ZB_UINT32: return ((const uint32_t *)d)[p];
    case ZB_UINT64: return (double)((const uint64_t *)d)[p];
    case ZB_FLOAT32: return ((const float *)d)[p];
    case ZB_FLOAT64: return ((const double *)d)[p];
    default: return 0;
  }
}

static bool usable(const zb_column *c, int64_t i) {
  return zb_column_is_valid(c, i) && !isnan(get_f(c, i));
}

/* The string of row i of a string or categorical column. */
static const char *str_of(const zb_column *c, int64_t i, int64_t *len) {
  if (c->type == ZB_CATEGORICAL) {
    int32_t code = ((const int32_t *)c->data->data)[c->offset + i];
    c = c->dictionary;
    i = code;
  }
  const int64_t *o = (const int64_t *)c->data->data + c->offset + i;
  *len = o[1] - o[0];
  return (const char *)c->chars->data + o[0];
}

/* Rows equal under the hash identity (null == null, NaN == NaN, -0 == 0). */
static bool rows_eq(const zb_column *a, int64_t i, const zb_column *b, int64_t j) {
  bool va = zb_column_is_valid(a, i), vb = zb_column_is_valid(b, j);
  if (va != vb) return false;
  if (!va) return true;
  if (a->type == ZB_STRING || a->type == ZB_CATEGORICAL) {
    int64_t la, lb;
    const char *pa = str_of(a, i, &la), *pb = str_of(b, j, &lb);
    return la == lb && memcmp(pa, pb, (size_t)la) == 0;
  }
  if (a->type == ZB_INT64 || a->type == ZB_TIMESTAMP)
    return ((const int64_t *)a->data->data)[a->offset + i] ==
           ((const int64_t *)b->data->data)[b->offset + j];
  double x = get_f(a, i), y = get_f(b, j);
  if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
  return x == y;
}

static bool is_na(const zb_column *c, int64_t i) {
  return !zb_column_is_valid(c, i) ||
         ((c->type == ZB_FLOAT32 || c->type == ZB_FLOAT64) && isnan(get_f(c, i)));
}

/* Naive grouping: firsts[] (first rows, in order of first appearance),
 * group[] per row, counts per group.  Returns the number of groups. */
static int64_t naive_groups(const zb_column *c, int64_t *firsts, int64_t *group, int64_t *cnt) {
  int64_t ng = 0;
  for (int64_t i = 0; i < c->length; i++) {
    int64_t g = 0;
    while (g < ng && !rows_eq(c, i, c, firsts[g])) g++;
    if (g == ng) {
      firsts[ng] = i;
      cnt[ng] = 0;
      ng++;
    }
    cnt[g]++;
    group[i] = g;
  }
  return ng;
}

static bool bit_of(const zb_column *c, int64_t i) {
  return zb_bit_get((const uint8_t *)c->data->data, c->offset + i);
}

/* ---- 1. var / std / prod / any / all ---------------------------------------- */

static const zb_type_id k_num_types[] = {ZB_BOOL,   ZB_INT8,   ZB_INT32,   ZB_INT64,
                                         ZB_UINT8,  ZB_UINT64, ZB_FLOAT32, ZB_FLOAT64};
#define N_NUM_TYPES 8

ZB_TEST(test_stats_var_prod_any_all) {
  zb_error err = {{0}};
  for (int ti = 0; ti < N_NUM_TYPES; ti++) {
    zb_type_id t = k_num_types[ti];
    for (int li = 0; li < N_LENGTHS; li++) {
      int64_t n = k_lengths[li];
      for (int seed = 1; seed <= 2; seed++) {
        zb_column *c = make_num(t, n, (uint64_t)(seed * 1000 + ti * 31 + li), seed == 1, 41,
                                true);
        /* oracle: long double two-pass */
        long double sum = 0;
        int64_t cnt = 0;
        uint64_t iprod = 1;
        double fprod = 1;
        bool any = false, all = true;
        for (int64_t i = 0; i < n; i++) {
          if (!usable(c, i)) continue;
          double x = get_f(c, i);
          sum += x;
          cnt++;
          any |= x != 0;
          all &= x != 0;
          if (n <= 1000) fprod *= x;
          int64_t p = c->offset + i;
          switch (t) {
            case ZB_INT64: iprod *= (uint64_t)((const int64_t *)c->data->data)[p]; break;
            case ZB_UINT64: iprod *= ((const uint64_t *)c->data->data)[p]; break;
            default: iprod *= (uint64_t)(int64_t)x; break;
          }
        }
        long double mean = cnt ? sum / cnt : 0, m2 = 0;
        for (int64_t i = 0; i < n; i++)
          if (usable(c, i)) m2 += (get_f(c, i) - mean) * (get_f(c, i) - mean);
        for (int threads = 1; threads <= 3; threads += 2) {
          set_threads(threads);
          for (int ddof = 0; ddof <= 1; ddof++) {
            zb_scalar v, s;
            ZB_CHECK_OK(zb_column_stat(c, ZB_STAT_VAR, ddof, &v, &err), &err);
            ZB_CHECK_OK(zb_column_stat(c, ZB_STAT_STD, ddof, &s, &err), &err);
            ZB_CHECK_EQ_INT(v.type, ZB_FLOAT64);
            if (cnt - ddof <= 0) {
              ZB_CHECK(v.is_null && s.is_null);
            } else {
              double want = (double)(m2 / (cnt - ddof));
              /* a float32 column's var and std are rounded to float32, as pandas */
              double tol = t == ZB_FLOAT32 ? 2e-7 : 1e-12;
              ZB_CHECK(!v.is_null);
              ZB_CHECK(fabs(v.v.f - want) <= tol * fabs(want) + 1e-300);
              ZB_CHECK(fabs(s.v.f - sqrt(want)) <= tol * sqrt(want) + 1e-300);
              if (t == ZB_FLOAT32) ZB_CHECK(v.v.f == (double)(float)v.v.f);
            }
          }
          zb_scalar p, a, l;
          ZB_CHECK_OK(zb_column_stat(c, ZB_STAT_PROD, 0, &p, &err), &err);
          ZB_CHECK_OK(zb_column_stat(c, ZB_STAT_ANY, 0, &a, &err), &err);
          ZB_CHECK_OK(zb_column_stat(c, ZB_STAT_ALL, 0, &l, &err), &err);
          ZB_CHECK(a.type == ZB_BOOL && a.v.b == any);
          ZB_CHECK(l.type == ZB_BOOL && l.v.b == all);
          if (zb_type_is_float(t)) {
            ZB_CHECK_EQ_INT(p.type, ZB_FLOAT64);
            if (n <= 1000)
              ZB_CHECK(p.v.f == fprod || fabs(p.v.f - fprod) <= 1e-12 * fabs(fprod));
          } else if (t == ZB_UINT8 || t == ZB_UINT64) {
            ZB_CHECK_EQ_INT(p.type, ZB_UINT64);
            ZB_CHECK(p.v.u == iprod);
          } else {
            ZB_CHECK_EQ_INT(p.type, ZB_INT64);
            ZB_CHECK(p.v.u == iprod);
          }
        }
        zb_column_release(c);
      }
    }
  }
  set_threads(1);
  /* a large exact case: var of 1..n is n(n+1)/12 with ddof=1 */
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, 100001, false, 0, &c, &err), &err);
  for (int64_t i = 0; i < 100001; i++) ((int64_t *)c->data->data)[i] = i + 1 + 1000000000;
  zb_scalar v;
  ZB_CHECK_OK(zb_column_stat(c, ZB_STAT_VAR, 1, &v, &err), &err);
  double want = 100001.0 * 100002.0 / 12.0;
  ZB_CHECK(fabs(v.v.f - want) <= 1e-12 * want);
  ZB_CHECK_EQ_INT(zb_column_stat(c, ZB_STAT_VAR, -1, &v, &err), ZB_EINVAL);
  zb_column_release(c);
  zb_column *s = make_str(10, 1, true, 5);
  ZB_CHECK_EQ_INT(zb_column_stat(s, ZB_STAT_VAR, 1, &v, &err), ZB_ETYPE);
  ZB_CHECK_EQ_INT(zb_column_stat(s, ZB_STAT_ANY, 1, &v, &err), ZB_ETYPE);
  zb_column_release(s);
}

/* ---- 2. quantiles ------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

ZB_TEST(test_stats_quantile) {
  zb_error err = {{0}};
  const double qs[] = {0.5, 0.0, 1.0, 0.25, 0.9, 0.333, 0.75, 0.1};
  for (int ti = 0; ti < N_NUM_TYPES; ti++) {
    zb_type_id t = k_num_types[ti];
    for (int li = 0; li < N_LENGTHS; li++) {
      int64_t n = k_lengths[li];
      for (int card = 3; card <= 100000; card *= 300) {
        zb_column *c = make_num(t, n, (uint64_t)(card * 7 + ti * 13 + li), true, card, true);
        double *v = (double *)malloc((size_t)(n + 1) * sizeof(double));
        int64_t m = 0;
        for (int64_t i = 0; i < n; i++)
          if (usable(c, i)) v[m++] = get_f(c, i);
        qsort(v, (size_t)m, sizeof(double), cmp_double);
        for (int threads = 1; threads <= 3; threads += 2) {
          set_threads(threads);
          zb_scalar out[8];
          ZB_CHECK_OK(zb_column_quantile(c, 8, qs, out, &err), &err);
          for (int k = 0; k < 8; k++) {
            if (m == 0) {
              ZB_CHECK(out[k].is_null);
              continue;
            }
            double h = (double)(m - 1) * qs[k];
            int64_t lo = (int64_t)floor(h);
            int64_t hi = lo + 1 < m ? lo + 1 : lo;
            double want = v[lo] + (v[hi] - v[lo]) * (h - floor(h));
            ZB_CHECK(!out[k].is_null);
            ZB_CHECK(fabs(out[k].v.f - want) <= 1e-12 * fabs(want) + 1e-12);
          }
          zb_scalar med;
          ZB_CHECK_OK(zb_column_stat(c, ZB_STAT_MEDIAN, 0, &med, &err), &err);
          ZB_CHECK(med.is_null == (m == 0));
          if (m > 0) ZB_CHECK(fabs(med.v.f - out[0].v.f) <= 1e-12 * fabs(out[0].v.f) + 1e-12);
        }
        free(v);
        zb_column_release(c);
      }
    }
  }
  set_threads(1);
  zb_column *c = make_num(ZB_FLOAT64, 10, 3, false, 10, false);
  double bad = 1.5;
  zb_scalar o;
  ZB_CHECK_EQ_INT(zb_column_quantile(c, 1, &bad, &o, &err), ZB_EINVAL);
  bad = NAN;
  ZB_CHECK_EQ_INT(zb_column_quantile(c, 1, &bad, &o, &err), ZB_EINVAL);
  zb_column_release(c);
  /* sorted, reversed and constant inputs (selection worst cases) */
  ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, 200001, false, 0, &c, &err), &err);
  for (int pattern = 0; pattern < 3; pattern++) {
    for (int64_t i = 0; i < 200001; i++)
      ((double *)c->data->data)[i] = pattern == 0 ? (double)i : pattern == 1 ? (double)-i : 7.0;
    double q[2] = {0.5, 0.3};
    zb_scalar r[2];
    ZB_CHECK_OK(zb_column_quantile(c, 2, q, r, &err), &err);
    double w0 = pattern == 0 ? 100000.0 : pattern == 1 ? -100000.0 : 7.0;
    double w1 = pattern == 0 ? 60000.0 : pattern == 1 ? -140000.0 : 7.0;
    ZB_CHECK(r[0].v.f == w0);
    ZB_CHECK(r[1].v.f == w1);
  }
  zb_column_release(c);
}

/* ---- 3. argmin / argmax / min_max ----------------------------------------- */

static int cmp_rows_oracle(const zb_column *c, int64_t a, int64_t b) {
  if (c->type == ZB_STRING) {
    int64_t la, lb;
    const char *pa = str_of(c, a, &la), *pb = str_of(c, b, &lb);
    int r = memcmp(pa, pb, (size_t)(la < lb ? la : lb));
    if (r != 0) return r < 0 ? -1 : 1;
    return (la > lb) - (la < lb);
  }
  if (c->type == ZB_INT64 || c->type == ZB_TIMESTAMP) {
    int64_t x = ((const int64_t *)c->data->data)[c->offset + a];
    int64_t y = ((const int64_t *)c->data->data)[c->offset + b];
    return (x > y) - (x < y);
  }
  double x = get_f(c, a), y = get_f(c, b);
  return (x > y) - (x < y);
}

ZB_TEST(test_stats_argminmax) {
  zb_error err = {{0}};
  const zb_type_id types[] = {ZB_BOOL, ZB_INT8, ZB_INT64, ZB_UINT64, ZB_FLOAT32,
                              ZB_FLOAT64, ZB_DATE32, ZB_TIMESTAMP, ZB_STRING};
  for (int ti = 0; ti < 9; ti++) {
    for (int li = 0; li < N_LENGTHS; li++) {
      int64_t n = k_lengths[li];
      for (int seed = 1; seed <= 3; seed++) {
        bool nulls = seed != 2;
        zb_column *c = types[ti] == ZB_STRING
                           ? make_str(n, (uint64_t)seed * 77 + (uint64_t)li, nulls, 1000)
                           : make_num(types[ti], n, (uint64_t)seed * 77 + (uint64_t)li, nulls,
                                      seed == 3 ? 5 : 100000, true);
        int64_t amin = -1, amax = -1;
        for (int64_t i = 0; i < n; i++) {
          if (!zb_column_is_valid(c, i)) continue;
          if (types[ti] != ZB_STRING && isnan(get_f(c, i))) continue;
          if (amin < 0 || cmp_rows_oracle(c, i, amin) < 0) amin = i;
          if (amax < 0 || cmp_rows_oracle(c, i, amax) > 0) amax = i;
        }
        for (int threads = 1; threads <= 3; threads += 2) {
          set_threads(threads);
          zb_scalar a, b;
          ZB_CHECK_OK(zb_column_stat(c, ZB_STAT_ARGMIN, 0, &a, &err), &err);
          ZB_CHECK_OK(zb_column_stat(c, ZB_STAT_ARGMAX, 0, &b, &err), &err);
          ZB_CHECK(a.is_null == (amin < 0) && b.is_null == (amax < 0));
          if (amin >= 0) {
            ZB_CHECK_EQ_INT(a.v.i, amin);
            ZB_CHECK_EQ_INT(b.v.i, amax);
          }
          for (int mx = 0; mx <= 1; mx++) {
            zb_column *r = NULL;
            ZB_CHECK_OK(zb_column_min_max(c, mx, &r, &err), &err);
            if (r == NULL) continue;
            ZB_CHECK_EQ_INT(r->length, 1);
            ZB_CHECK_EQ_INT(r->type, types[ti]);
            if (amin < 0) {
              ZB_CHECK_EQ_INT(r->null_count, 1);
            } else {
              ZB_CHECK(rows_eq(r, 0, c, mx ? amax : amin));
            }
            zb_column_release(r);
          }
        }
        zb_column_release(c);
      }
    }
  }
  set_threads(1);
  zb_column *s = make_str(10, 1, true, 5), *cat = to_cat(s), *r = NULL;
  ZB_CHECK_EQ_INT(zb_column_min_max(cat, false, &r, &err), ZB_ETYPE);
  ZB_CHECK(r == NULL);
  zb_column_release(cat);
  zb_column_release(s);
}

/* ---- 4. unique / nunique / value_counts --------------------------------- */

/* The columns the hash tests run over: numeric with NaN and -0.0, strings,
 * categoricals, dates and timestamps; low and high cardinality. */
static zb_column *hash_input(int kind, int64_t n, uint64_t seed, bool nulls, int64_t card) {
  switch (kind) {
    case 0: return make_num(ZB_INT64, n, seed, nulls, card, false);
    case 1: return make_num(ZB_FLOAT64, n, seed, nulls, card, true);
    case 2: return make_num(ZB_FLOAT32, n, seed, nulls, card, true);
    case 3: return make_num(ZB_BOOL, n, seed, nulls, card, false);
    case 4: return make_num(ZB_UINT8, n, seed, nulls, card < 200 ? card : 200, false);
    case 5: return make_str(n, seed, nulls, card);
    case 6: {
      zb_column *s = make_str(n, seed, nulls, card), *c = to_cat(s);
      zb_column_release(s);
      return c;
    }
    case 7: return make_num(ZB_DATE32, n, seed, nulls, card, false);
    default: return make_num(ZB_TIMESTAMP, n, seed, nulls, card, false);
  }
}
#define N_HASH_KINDS 9

ZB_TEST(test_hash_unique_counts) {
  zb_error err = {{0}};
  for (int kind = 0; kind < N_HASH_KINDS; kind++) {
    for (int li = 0; li < N_LENGTHS; li++) {
      int64_t n = k_lengths[li];
      for (int variant = 0; variant < 3; variant++) {
        /* high cardinality only at moderate sizes (the oracle is quadratic) */
        int64_t card = variant == 2 ? (n <= 1000 ? 5000 : 60) : variant == 0 ? 7 : 60;
        zb_column *c = hash_input(kind, n, (uint64_t)(kind * 100 + li * 10 + variant),
                                  variant != 1, card);
        int64_t *firsts = (int64_t *)malloc((size_t)(n + 1) * sizeof(int64_t));
        int64_t *group = (int64_t *)malloc((size_t)(n + 1) * sizeof(int64_t));
        int64_t *cnt = (int64_t *)malloc((size_t)(n + 1) * sizeof(int64_t));
        int64_t ng = naive_groups(c, firsts, group, cnt);
        int64_t ng_na = 0, na_rows = 0;
        for (int64_t g = 0; g < ng; g++)
          if (is_na(c, firsts[g])) {
            ng_na++;
            na_rows += cnt[g];
          }
        zb_column *prev_v = NULL;
        for (int threads = 1; threads <= 3; threads += 2) {
          set_threads(threads);
          zb_column *u = NULL;
          ZB_CHECK_OK(zb_column_unique(c, &u, &err), &err);
          ZB_CHECK_EQ_INT(u->length, ng);
          ZB_CHECK_EQ_INT(u->type, c->type);
          for (int64_t g = 0; g < ng && g < u->length; g++) ZB_CHECK(rows_eq(u, g, c, firsts[g]));
          zb_column_release(u);
          int64_t nu = -1;
          ZB_CHECK_OK(zb_column_nunique(c, true, &nu, &err), &err);
          ZB_CHECK_EQ_INT(nu, ng - ng_na);
          ZB_CHECK_OK(zb_column_nunique(c, false, &nu, &err), &err);
          ZB_CHECK_EQ_INT(nu, ng);
          for (int mode = 0; mode < 4; mode++) {
            bool sort = mode != 3, asc = mode == 1, dropna = mode != 2, norm = mode == 2;
            zb_column *v = NULL, *k = NULL;
            ZB_CHECK_OK(zb_column_value_counts(c, sort, asc, dropna, norm, &v, &k, &err), &err);
            if (v == NULL) continue;
            /* oracle order: groups (minus NA) stably sorted by count */
            int64_t *ord = (int64_t *)malloc((size_t)(ng + 1) * sizeof(int64_t));
            int64_t m = 0;
            for (int64_t g = 0; g < ng; g++)
              if (!dropna || !is_na(c, firsts[g])) ord[m++] = g;
            if (sort) /* insertion sort: stable */
              for (int64_t i = 1; i < m; i++) {
                int64_t x = ord[i], p = i - 1;
                while (p >= 0 && (asc ? cnt[ord[p]] > cnt[x] : cnt[ord[p]] < cnt[x])) {
                  ord[p + 1] = ord[p];
                  p--;
                }
                ord[p + 1] = x;
              }
            ZB_CHECK_EQ_INT(v->length, m);
            ZB_CHECK_EQ_INT(k->length, m);
            ZB_CHECK_EQ_INT(k->type, norm ? ZB_FLOAT64 : ZB_INT64);
            int64_t total = dropna ? n - na_rows : n;
            for (int64_t i = 0; i < m && i < v->length; i++) {
              ZB_CHECK(rows_eq(v, i, c, firsts[ord[i]]));
              if (norm)
                ZB_CHECK(fabs(((double *)k->data->data)[i] - (double)cnt[ord[i]] / (double)total) <
                         1e-15);
              else
                ZB_CHECK_EQ_INT(((int64_t *)k->data->data)[i], cnt[ord[i]]);
            }
            free(ord);
            if (mode == 0) {
              if (prev_v != NULL) { /* identical for 1 and 3 threads */
                ZB_CHECK_EQ_INT(prev_v->length, v->length);
                for (int64_t i = 0; i < v->length && i < prev_v->length; i++)
                  ZB_CHECK(rows_eq(v, i, prev_v, i));
                zb_column_release(prev_v);
              }
              prev_v = zb_column_retain(v);
            }
            zb_column_release(v);
            zb_column_release(k);
          }
        }
        zb_column_release(prev_v);
        free(firsts);
        free(group);
        free(cnt);
        zb_column_release(c);
      }
    }
  }
  set_threads(1);
}

/* ---- 5. hashing, duplicated, drop_duplicates ----------------------------- */

ZB_TEST(test_hash_values) {
  zb_error err = {{0}};
  /* equal values hash equally across widths and between string/categorical */
  zb_column *a = make_num(ZB_INT32, 1000, 5, true, 50, false), *b = NULL;
  ZB_CHECK_OK(zb_column_cast(a, ZB_INT64, ZB_MICRO, &b, &err), &err);
  zb_column *ha = NULL, *hb = NULL;
  ZB_CHECK_OK(zb_column_hash(a, &ha, &err), &err);
  ZB_CHECK_OK(zb_column_hash(b, &hb, &err), &err);
  ZB_CHECK_EQ_INT(ha->type, ZB_UINT64);
  ZB_CHECK_EQ_INT(ha->null_count, 0);
  for (int64_t i = 0; i < 1000; i++)
    ZB_CHECK(((uint64_t *)ha->data->data)[i] == ((uint64_t *)hb->data->data)[i]);
  zb_column_release(a);
  zb_column_release(b);
  zb_column_release(ha);
  zb_column_release(hb);
  zb_column *s = make_str(1000, 9, true, 40), *c = to_cat(s);
  ZB_CHECK_OK(zb_column_hash(s, &ha, &err), &err);
  ZB_CHECK_OK(zb_column_hash(c, &hb, &err), &err);
  for (int64_t i = 0; i < 1000; i++)
    ZB_CHECK(((uint64_t *)ha->data->data)[i] == ((uint64_t *)hb->data->data)[i]);
  zb_column_release(ha);
  zb_column_release(hb);
  zb_column_release(s);
  zb_column_release(c);
  /* -0.0 == 0.0, all NaNs equal */
  ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, 4, false, 0, &a, &err), &err);
  double *d = (double *)a->data->data;
  d[0] = 0.0;
  d[1] = -0.0;
  d[2] = NAN;
  d[3] = -NAN;
  ZB_CHECK_OK(zb_column_hash(a, &ha, &err), &err);
  uint64_t *h = (uint64_t *)ha->data->data;
  ZB_CHECK(h[0] == h[1] && h[2] == h[3] && h[0] != h[2]);
  int64_t nu = 0;
  ZB_CHECK_OK(zb_column_nunique(a, false, &nu, &err), &err);
  ZB_CHECK_EQ_INT(nu, 2);
  zb_column_release(ha);
  zb_column_release(a);
}

ZB_TEST(test_hash_duplicated) {
  zb_error err = {{0}};
  for (int li = 0; li < N_LENGTHS; li++) {
    int64_t n = k_lengths[li];
    for (int seed = 0; seed < 3; seed++) {
      int64_t card = seed == 2 ? 3 : 6;
      zb_column *cols[4];
      cols[0] = make_num(ZB_INT64, n, (uint64_t)(seed * 10 + li), true, card, false);
      cols[1] = make_str(n, (uint64_t)(seed * 10 + li + 1), true, card);
      cols[2] = make_num(ZB_FLOAT64, n, (uint64_t)(seed * 10 + li + 2), true, card, true);
      zb_column *tmp = make_str(n, (uint64_t)(seed * 10 + li + 3), seed == 1, card);
      cols[3] = to_cat(tmp);
      zb_column_release(tmp);
      const char *names[4] = {"i", "s", "f", "c"};
      zb_table *t = NULL;
      ZB_CHECK_OK(zb_table_make(4, cols, names, &t, &err), &err);
      const int64_t subsets[3][4] = {{0, 1, 2, 3}, {1, 3, 0, 0}, {2, 0, 0, 0}};
      const int64_t nsub[3] = {0, 2, 1};
      /* quadratic oracle only up to 1000 rows; above, check consistency */
      for (int si = 0; si < 3; si++) {
        const int64_t *keys = nsub[si] ? subsets[si] : NULL;
        int64_t nk = nsub[si] ? nsub[si] : 4;
        const int64_t *kk = nsub[si] ? subsets[si] : subsets[0];
        for (int keep = 0; keep < 3; keep++) {
          for (int threads = 1; threads <= 3; threads += 2) {
            set_threads(threads);
            zb_column *dup = NULL;
            ZB_CHECK_OK(zb_table_duplicated(t, nsub[si], keys, (zb_keep)keep, &dup, &err), &err);
            if (dup == NULL) continue;
            ZB_CHECK_EQ_INT(dup->length, n);
            ZB_CHECK_EQ_INT(dup->null_count, 0);
            int64_t check_n = n <= 1000 ? n : 300; /* prefix rows vs the whole column */
            for (int64_t i = 0; i < check_n; i++) {
              bool before = false, after = false;
              int64_t lo = n <= 1000 ? 0 : 0, hi = n;
              for (int64_t j = lo; j < hi; j++) {
                if (j == i) continue;
                bool eq = true;
                for (int64_t k = 0; k < nk && eq; k++) eq = rows_eq(cols[kk[k]], i, cols[kk[k]], j);
                if (!eq) continue;
                if (j < i) before = true;
                else after = true;
                if (before && after) break;
              }
              bool want = keep == ZB_KEEP_FIRST ? before : keep == ZB_KEEP_LAST ? after
                                                                                 : before || after;
              ZB_CHECK(bit_of(dup, i) == want);
            }
            zb_table *dd = NULL;
            ZB_CHECK_OK(zb_table_drop_duplicates(t, nsub[si], keys, (zb_keep)keep, &dd, &err),
                        &err);
            int64_t kept = 0;
            for (int64_t i = 0; i < n; i++) kept += !bit_of(dup, i);
            if (dd != NULL) {
              ZB_CHECK_EQ_INT(dd->num_rows, kept);
              ZB_CHECK_EQ_INT(dd->num_columns, 4);
            }
            zb_table_release(dd);
            zb_column_release(dup);
          }
        }
      }
      zb_column *dup = NULL;
      int64_t bad = 7;
      ZB_CHECK_EQ_INT(zb_table_duplicated(t, 1, &bad, ZB_KEEP_FIRST, &dup, &err), ZB_EINDEX);
      ZB_CHECK(dup == NULL);
      ZB_CHECK_EQ_INT(zb_table_duplicated(t, 0, NULL, (zb_keep)9, &dup, &err), ZB_EINVAL);
      zb_table_release(t);
      for (int k = 0; k < 4; k++) zb_column_release(cols[k]);
    }
  }
  set_threads(1);
}

/* ---- 6. isin ----------------------------------------------------------- */

ZB_TEST(test_hash_isin) {
  zb_error err = {{0}};
  struct {
    int kind_col, kind_vals; /* 0 int32, 1 int64, 2 float64, 3 string, 4 categorical, 5 uint8 */
  } cases[] = {{0, 0}, {0, 1}, {1, 2}, {2, 2}, {3, 3}, {3, 4}, {4, 3}, {4, 4}, {5, 1}, {2, 0}};
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
    for (int li = 0; li < N_LENGTHS; li++) {
      int64_t n = k_lengths[li];
      for (int nv = 0; nv <= 12; nv += 6) {
        zb_column *col = NULL, *vals = NULL;
        for (int side = 0; side < 2; side++) {
          int kind = side ? cases[ci].kind_vals : cases[ci].kind_col;
          int64_t len = side ? nv : n;
          uint64_t seed = (uint64_t)(ci * 1000 + (size_t)li * 10 + (size_t)side + (size_t)nv);
          zb_column *c;
          switch (kind) {
            case 0: c = make_num(ZB_INT32, len, seed, true, 30, false); break;
            case 1: c = make_num(ZB_INT64, len, seed, true, 30, false); break;
            case 2: c = make_num(ZB_FLOAT64, len, seed, true, 30, true); break;
            case 3: c = make_str(len, seed, true, 30); break;
            case 4: {
              zb_column *s = make_str(len, seed, true, 30);
              c = to_cat(s);
              zb_column_release(s);
              break;
            }
            default: c = make_num(ZB_UINT8, len, seed, true, 30, false); break;
          }
          if (side) vals = c;
          else col = c;
        }
        for (int threads = 1; threads <= 3; threads += 2) {
          set_threads(threads);
          zb_column *r = NULL;
          ZB_CHECK_OK(zb_column_isin(col, vals, &r, &err), &err);
          if (r == NULL) continue;
          ZB_CHECK_EQ_INT(r->type, ZB_BOOL);
          ZB_CHECK_EQ_INT(r->null_count, 0);
          for (int64_t i = 0; i < n; i++) {
            bool want = false;
            if (zb_column_is_valid(col, i))
              for (int64_t j = 0; j < vals->length && !want; j++) {
                if (!zb_column_is_valid(vals, j)) continue;
                bool sa = col->type == ZB_STRING || col->type == ZB_CATEGORICAL;
                if (sa) {
                  want = rows_eq(col, i, vals, j);
                } else {
                  double x = get_f(col, i), y = get_f(vals, j);
                  want = x == y || (isnan(x) && isnan(y));
                  if (col->type == ZB_INT64 && vals->type == ZB_INT64)
                    want = rows_eq(col, i, vals, j);
                }
              }
            ZB_CHECK(bit_of(r, i) == want);
          }
          zb_column_release(r);
        }
        zb_column_release(col);
        zb_column_release(vals);
      }
    }
  }
  set_threads(1);
  zb_column *a = make_str(5, 1, false, 3), *b = make_num(ZB_INT64, 5, 1, false, 3, false), *r = NULL;
  ZB_CHECK_EQ_INT(zb_column_isin(a, b, &r, &err), ZB_ETYPE);
  ZB_CHECK(r == NULL);
  zb_column_release(a);
  zb_column_release(b);
}

/* A column of type t holding v[0, n). */
static zb_column *col_of(zb_type_id t, const void *v, int64_t n) {
  zb_error err = {{0}};
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_new(t, n, false, 0, &c, &err), &err);
  memcpy(c->data->data, v, (size_t)(n * zb_type_width(t)));
  return c;
}

/* Numbers of another kind or signedness are compared exactly, as pandas
 * does: the values that no row's value equals exactly are left out, and
 * the column is never rounded to meet them (hand-computed answers). */
ZB_TEST(test_isin_mixed_kinds_is_exact) {
  zb_error err = {{0}};
  const int64_t i53[] = {INT64_C(1) << 53, (INT64_C(1) << 53) + 1, 5, -7};
  const double f_for_i[] = {0x1p53, 5.0, 5.5, -7.0, 0x1p63, NAN, INFINITY};
  const uint64_t u[] = {(UINT64_C(1) << 63) + 5, 3, UINT64_MAX};
  const int64_t i_for_u[] = {-1, 3, -5};
  const uint64_t u_for_i[] = {UINT64_MAX, 3, (uint64_t)INT64_MAX + 1};
  const double f53[] = {0x1p53, 1.0, 2.5};
  const int64_t i_for_f[] = {(INT64_C(1) << 53) + 1, 1, 3};
  const uint64_t u_for_f[] = {(UINT64_C(1) << 53) + 1, UINT64_C(1) << 63, 2};
  const double f_for_u[] = {0x1p63 + 0x1p11, 3.0, 0x1p64};
  /* narrower integers meet int64 values: negative ones too */
  const int32_t i32[] = {-128, 7, -5, 300};
  const int64_t i_for_i32[] = {-128, -5, 255};
  const uint8_t u8[] = {128, 255, 0};
  struct {
    zb_type_id tc, tv;
    const void *c, *v;
    int64_t nc, nv;
    const char *want;
  } cases[] = {
      {ZB_INT64, ZB_FLOAT64, i53, f_for_i, 4, 7, "1011"},
      {ZB_UINT64, ZB_INT64, u, i_for_u, 3, 3, "010"},
      {ZB_INT64, ZB_UINT64, i53, u_for_i, 4, 3, "0000"},
      {ZB_INT64, ZB_UINT64, i_for_f, u_for_i, 3, 3, "001"},
      {ZB_FLOAT64, ZB_INT64, f53, i_for_f, 3, 3, "010"},
      {ZB_FLOAT64, ZB_UINT64, f53, u_for_f, 3, 3, "000"},
      {ZB_UINT64, ZB_FLOAT64, u, f_for_u, 3, 3, "010"},
      {ZB_INT32, ZB_INT64, i32, i_for_i32, 4, 3, "1010"},
      {ZB_UINT8, ZB_INT64, u8, i_for_i32, 3, 3, "010"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    zb_column *c = col_of(cases[k].tc, cases[k].c, cases[k].nc);
    zb_column *v = col_of(cases[k].tv, cases[k].v, cases[k].nv), *r = NULL;
    ZB_CHECK_OK(zb_column_isin(c, v, &r, &err), &err);
    if (r != NULL) {
      for (int64_t i = 0; i < cases[k].nc; i++)
        if (bit_of(r, i) != (cases[k].want[i] == '1'))
          zb_test_fail(__FILE__, __LINE__, "case %zu row %lld: got %d", k, (long long)i,
                       (int)bit_of(r, i));
    }
    zb_column_release(c);
    zb_column_release(v);
    zb_column_release(r);
  }
}

/* ---- 7. fault injection ---------------------------------------------------- */

/* Run op with the k-th allocation failing for k = 1, 2, ... until it
 * succeeds; every failure must be ZB_ENOMEM with nothing leaked. */
#define FAULT_LOOP(CALL, CLEANUP)                                                    \
  do {                                                                              \
    for (int64_t k = 1; k < 10000; k++) {                                           \
      zb_alloc_stats before, after;                                                 \
      zb_alloc_get_stats(&before);                                                  \
      zb_alloc_fail_after(k);                                                       \
      zb_status st = (CALL);                                                        \
      zb_alloc_fail_after(0);                                                       \
      if (st == ZB_OK) {                                                            \
        CLEANUP;                                                                    \
        break;                                                                      \
      }                                                                             \
      ZB_CHECK_EQ_INT(st, ZB_ENOMEM);                                               \
      zb_alloc_get_stats(&after);                                                   \
      ZB_CHECK_EQ_INT(after.host_allocations, before.host_allocations);             \
      ZB_CHECK_EQ_INT(after.host_bytes, before.host_bytes);                         \
      if (st != ZB_ENOMEM) break;                                                   \
    }                                                                               \
  } while (0)

ZB_TEST(test_stats_fault_injection) {
  zb_error err = {{0}};
  for (int threads = 1; threads <= 3; threads += 2) {
    set_threads(threads);
    zb_column *s = make_str(150000, 3, true, 5000), *cat = to_cat(s);
    zb_column *f = make_num(ZB_FLOAT64, 150000, 4, true, 100, true);
    zb_column *out = NULL, *out2 = NULL;
    zb_table *tout = NULL;
    zb_column *cols[2] = {s, f};
    const char *names[2] = {"s", "f"};
    zb_table *t = NULL;
    ZB_CHECK_OK(zb_table_make(2, cols, names, &t, &err), &err);
    FAULT_LOOP(zb_column_unique(s, &out, &err), zb_column_release(out));
    FAULT_LOOP(zb_column_unique(cat, &out, &err), zb_column_release(out));
    FAULT_LOOP(zb_column_value_counts(s, true, false, true, false, &out, &out2, &err),
               (zb_column_release(out), zb_column_release(out2)));
    FAULT_LOOP(zb_column_value_counts(cat, true, false, false, true, &out, &out2, &err),
               (zb_column_release(out), zb_column_release(out2)));
    FAULT_LOOP(zb_column_value_counts(f, false, false, true, false, &out, &out2, &err),
               (zb_column_release(out), zb_column_release(out2)));
    int64_t nu;
    FAULT_LOOP(zb_column_nunique(cat, true, &nu, &err), (void)0);
    FAULT_LOOP(zb_table_duplicated(t, 0, NULL, ZB_KEEP_LAST, &out, &err), zb_column_release(out));
    FAULT_LOOP(zb_table_drop_duplicates(t, 0, NULL, ZB_KEEP_NONE, &tout, &err),
               zb_table_release(tout));
    FAULT_LOOP(zb_column_isin(cat, s, &out, &err), zb_column_release(out));
    FAULT_LOOP(zb_column_hash(s, &out, &err), zb_column_release(out));
    double q[3] = {0.1, 0.5, 0.9};
    zb_scalar r[3];
    FAULT_LOOP(zb_column_quantile(f, 3, q, r, &err), (void)0);
    FAULT_LOOP(zb_column_stat(f, ZB_STAT_STD, 1, r, &err), (void)0);
    FAULT_LOOP(zb_column_min_max(s, true, &out, &err), zb_column_release(out));
    zb_table_release(t);
    zb_column_release(s);
    zb_column_release(cat);
    zb_column_release(f);
  }
  set_threads(1);
}
