/*
 * test_perf_paths.c -- unit tests for the fast paths of the CPU kernels:
 * zb_column_sort_values (keys sorted alone, then mapped back) and
 * zb_column_sort_values_indices ((key, row) words sorted), the radix
 * sort behind zb_column_sort_indices (rebased keys, skipped constant
 * digits, keys packed with positions), direct-indexed value_counts /
 * unique / nunique of small integer ranges, and the branch-free filter.
 * Each result is checked against plain loops written here (a stable
 * insertion/merge order by value and row), at several lengths, with 1 and
 * 3 threads; inputs include INT64_MIN/MAX, all-equal keys, keys whose low
 * digits are constant, NaN, -0.0, infinities and nulls.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "zambezi/compute.h"

static uint64_t prng(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static void threads(int n) {
  zb_error err = {{0}};
  ZB_CHECK_OK(zb_set_num_threads(n, &err), &err);
}

static const int64_t k_sizes[] = {0, 1, 2, 1000, 70001};
#define N_SIZES 5

/* Value patterns for integer columns. */
enum { P_RANDOM, P_SMALL, P_EQUAL, P_LOWCONST, P_EXTREME, P_COUNT };

/* A column of type t, n rows at offset 3 of a larger one; nulls ~1/8 when
 * asked; floats get NaN, -0.0, 0.0 and infinities. */
static zb_column *make_col(zb_type_id t, int64_t n, int pattern, bool nulls, uint64_t seed) {
  zb_error err = {{0}};
  zb_column *base = NULL, *s = NULL;
  ZB_CHECK_OK(zb_column_new(t, n + 3, true, 0, &base, &err), &err);
  if (base == NULL) return NULL;
  for (int64_t i = 0; i < n + 3; i++) {
    uint64_t r = prng(&seed);
    int64_t x;
    switch (pattern) {
      case P_SMALL: x = (int64_t)(r % 50) - 25; break;
      case P_EQUAL: x = 7; break;
      case P_LOWCONST: x = (int64_t)((r % 1000) << 24) - (INT64_C(500) << 24); break;
      case P_EXTREME: {
        int k = (int)(r % 5);
        x = k == 0 ? INT64_MIN : k == 1 ? INT64_MAX : k == 2 ? 0 : k == 3 ? -1 : (int64_t)r;
        break;
      }
      default: x = (int64_t)r; break;
    }
    void *d = base->data->data;
    switch (t) {
      case ZB_INT8: ((int8_t *)d)[i] = (int8_t)x; break;
      case ZB_INT32: ((int32_t *)d)[i] = (int32_t)(pattern == P_LOWCONST ? x >> 20 : x); break;
      case ZB_INT64: ((int64_t *)d)[i] = x; break;
      case ZB_UINT64: ((uint64_t *)d)[i] = (uint64_t)x; break;
      case ZB_FLOAT32: case ZB_FLOAT64: {
        double f = pattern == P_SMALL ? (double)x / 4 : (double)(int32_t)x * 1e-3;
        int k = (int)((r >> 50) % 12);
        if (k == 0) f = NAN;
        if (k == 1) f = -0.0;
        if (k == 2) f = 0.0;
        if (k == 3 && pattern == P_EXTREME) f = (r >> 8) & 1 ? INFINITY : -INFINITY;
        if (pattern == P_EQUAL) f = k == 0 ? NAN : 1.5;
        if (t == ZB_FLOAT32)
          ((float *)d)[i] = (float)f;
        else
          ((double *)d)[i] = f;
        break;
      }
      default: break;
    }
    if (nulls && (r >> 61) == 0) zb_bit_set((uint8_t *)base->validity->data, i, false);
  }
  zb_column_recount_nulls(base);
  ZB_CHECK_OK(zb_column_slice(base, 3, n, &s, &err), &err);
  zb_column_release(base);
  return s;
}

/* Value of row i as a double-free ordering: missing (null/NaN) flagged. */
static bool missing(const zb_column *c, int64_t i) {
  if (!zb_column_is_valid(c, i)) return true;
  if (c->type == ZB_FLOAT64) return isnan(((const double *)c->data->data)[c->offset + i]);
  if (c->type == ZB_FLOAT32) return isnan(((const float *)c->data->data)[c->offset + i]);
  return false;
}

/* -1, 0, 1: value order of rows a and b (both present; -0.0 == 0.0). */
static int cmp_vals(const zb_column *c, int64_t a, int64_t b) {
  const void *d = c->data->data;
  int64_t pa = c->offset + a, pb = c->offset + b;
  switch (c->type) {
    case ZB_INT8: return (((const int8_t *)d)[pa] > ((const int8_t *)d)[pb]) -
                         (((const int8_t *)d)[pa] < ((const int8_t *)d)[pb]);
    case ZB_INT32: return (((const int32_t *)d)[pa] > ((const int32_t *)d)[pb]) -
                          (((const int32_t *)d)[pa] < ((const int32_t *)d)[pb]);
    case ZB_INT64: return (((const int64_t *)d)[pa] > ((const int64_t *)d)[pb]) -
                          (((const int64_t *)d)[pa] < ((const int64_t *)d)[pb]);
    case ZB_UINT64: return (((const uint64_t *)d)[pa] > ((const uint64_t *)d)[pb]) -
                           (((const uint64_t *)d)[pa] < ((const uint64_t *)d)[pb]);
    case ZB_FLOAT32: return (((const float *)d)[pa] > ((const float *)d)[pb]) -
                            (((const float *)d)[pa] < ((const float *)d)[pb]);
    default: return (((const double *)d)[pa] > ((const double *)d)[pb]) -
                    (((const double *)d)[pa] < ((const double *)d)[pb]);
  }
}

/* The stable sort permutation, by a merge sort with the oracle compare. */
static const zb_column *g_col;
static bool g_asc;
static bool before(int64_t a, int64_t b) { /* strictly before (ties: row order) */
  int r = cmp_vals(g_col, a, b);
  return g_asc ? r < 0 : r > 0;
}
static void msort(int64_t *a, int64_t *t, int64_t n) {
  if (n < 2) return;
  int64_t h = n / 2;
  msort(a, t, h);
  msort(a + h, t, n - h);
  int64_t i = 0, j = h, k = 0;
  while (i < h && j < n) t[k++] = before(a[j], a[i]) ? a[j++] : a[i++];
  while (i < h) t[k++] = a[i++];
  while (j < n) t[k++] = a[j++];
  memcpy(a, t, (size_t)n * sizeof(int64_t));
}
static void oracle_perm(const zb_column *c, bool asc, bool nulls_first, int64_t *perm) {
  int64_t n = c->length, nm = 0;
  for (int64_t i = 0; i < n; i++) nm += missing(c, i);
  int64_t mp = nulls_first ? 0 : n - nm, vp = nulls_first ? nm : 0, v0 = vp;
  for (int64_t i = 0; i < n; i++) perm[missing(c, i) ? mp++ : vp++] = i;
  int64_t *t = (int64_t *)malloc((size_t)(n + 1) * sizeof(int64_t));
  g_col = c;
  g_asc = asc;
  msort(perm + v0, t, n - nm);
  free(t);
}

/* Row i of a equals row j of b bit for bit (and in validity). */
static bool same_row(const zb_column *a, int64_t i, const zb_column *b, int64_t j) {
  bool va = zb_column_is_valid(a, i), vb = zb_column_is_valid(b, j);
  if (va != vb) return false;
  if (!va) return true;
  int w = zb_type_width(a->type);
  return memcmp((const char *)a->data->data + (a->offset + i) * w,
                (const char *)b->data->data + (b->offset + j) * w, (size_t)w) == 0;
}

static const zb_type_id k_sort_types[] = {ZB_INT8, ZB_INT32, ZB_INT64, ZB_UINT64, ZB_FLOAT32,
                                          ZB_FLOAT64};

ZB_TEST(test_perf_sort_values_and_indices) {
  zb_error err = {{0}};
  for (int ti = 0; ti < 6; ti++)
    for (int si = 0; si < N_SIZES; si++)
      for (int pat = 0; pat < P_COUNT; pat++) {
        zb_type_id t = k_sort_types[ti];
        int64_t n = k_sizes[si];
        zb_column *c = make_col(t, n, pat, pat != P_EQUAL, (uint64_t)(ti * 1000 + si * 10 + pat));
        int64_t *perm = (int64_t *)malloc((size_t)(n + 1) * sizeof(int64_t));
        for (int mode = 0; mode < 4; mode++) {
          bool asc = mode & 1, nf = mode & 2;
          oracle_perm(c, asc, nf, perm);
          for (int th = 1; th <= 3; th += 2) {
            threads(th);
            zb_column *v = NULL, *idx = NULL, *v2 = NULL, *idx2 = NULL;
            ZB_CHECK_OK(zb_column_sort_values(c, asc, nf, &v, &err), &err);
            ZB_CHECK_OK(zb_column_sort_indices(c, asc, nf, &idx, &err), &err);
            ZB_CHECK_OK(zb_column_sort_values_indices(c, asc, nf, &v2, &idx2, &err), &err);
            if (v == NULL || idx == NULL || v2 == NULL || idx2 == NULL) {
              zb_column_release(v);
              zb_column_release(idx);
              zb_column_release(v2);
              zb_column_release(idx2);
              continue;
            }
            ZB_CHECK_EQ_INT(v->length, n);
            ZB_CHECK_EQ_INT(v->type, t);
            ZB_CHECK_EQ_INT(v->null_count, c->null_count);
            ZB_CHECK_EQ_INT(v2->length, n);
            ZB_CHECK_EQ_INT(v2->type, t);
            ZB_CHECK_EQ_INT(v2->null_count, c->null_count);
            ZB_CHECK_EQ_INT(idx2->length, n);
            ZB_CHECK_EQ_INT(idx2->null_count, 0);
            int64_t bad_v = 0, bad_i = 0;
            const int64_t *ix = (const int64_t *)idx->data->data;
            const int64_t *ix2 = (const int64_t *)idx2->data->data;
            for (int64_t i = 0; i < n; i++) {
              bad_v += !same_row(v, i, c, perm[i]) + !same_row(v2, i, c, perm[i]);
              bad_i += (ix[i] != perm[i]) + (ix2[i] != perm[i]);
            }
            if (bad_v || bad_i)
              zb_test_fail(__FILE__, __LINE__, "type %d n %lld pattern %d mode %d threads %d: "
                           "%lld values, %lld indices differ", (int)t, (long long)n, pat, mode,
                           th, (long long)bad_v, (long long)bad_i);
            zb_column_release(v);
            zb_column_release(idx);
            zb_column_release(v2);
            zb_column_release(idx2);
          }
        }
        free(perm);
        zb_column_release(c);
      }
  threads(1);
}

/* Multi-key sort over a key whose range needs all 64 bits (unpacked radix
 * pairs) after one that is small (packed): oracle = stable sort by the
 * second key, then by the first. */
ZB_TEST(test_perf_sort_two_keys) {
  zb_error err = {{0}};
  int64_t n = 20011;
  zb_column *a = make_col(ZB_INT64, n, P_SMALL, true, 5), *b = make_col(ZB_INT64, n, P_EXTREME,
                                                                         false, 6);
  zb_column *cols[2] = {a, b};
  const char *names[2] = {"a", "b"};
  zb_table *t = NULL;
  ZB_CHECK_OK(zb_table_make(2, cols, names, &t, &err), &err);
  int64_t *p1 = (int64_t *)malloc((size_t)n * sizeof(int64_t));
  int64_t *tmp = (int64_t *)malloc((size_t)n * sizeof(int64_t));
  oracle_perm(b, true, false, p1); /* by b, stable */
  /* then stably by a (nulls last): partition missing, merge sort the rest */
  int64_t *p2 = (int64_t *)malloc((size_t)n * sizeof(int64_t));
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++)
    if (!missing(a, p1[i])) p2[k++] = p1[i];
  int64_t nv = k;
  for (int64_t i = 0; i < n; i++)
    if (missing(a, p1[i])) p2[k++] = p1[i];
  g_col = a;
  g_asc = true;
  msort(p2, tmp, nv);
  int64_t keys[2] = {0, 1};
  for (int th = 1; th <= 3; th += 2) {
    threads(th);
    zb_column *idx = NULL;
    ZB_CHECK_OK(zb_table_sort_indices(t, 2, keys, NULL, false, &idx, &err), &err);
    if (idx == NULL) continue;
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) bad += ((const int64_t *)idx->data->data)[i] != p2[i];
    ZB_CHECK_EQ_INT(bad, 0);
    zb_column_release(idx);
  }
  threads(1);
  free(p1);
  free(p2);
  free(tmp);
  zb_table_release(t);
  zb_column_release(a);
  zb_column_release(b);
}

/* Direct-indexed value_counts: small ranges with negatives and nulls, and
 * small ranges at the ends of the int64 / uint64 domains. */
ZB_TEST(test_perf_value_counts_direct) {
  zb_error err = {{0}};
  for (int v = 0; v < 4; v++)
    for (int si = 1; si < N_SIZES; si++) {
      int64_t n = k_sizes[si];
      zb_type_id t = v == 3 ? ZB_UINT64 : ZB_INT64;
      zb_column *c = NULL;
      ZB_CHECK_OK(zb_column_new(t, n, true, 0, &c, &err), &err);
      uint64_t seed = (uint64_t)(v * 100 + si);
      for (int64_t i = 0; i < n; i++) {
        uint64_t r = prng(&seed);
        int64_t x = (int64_t)(r % 37) - 18;
        if (v == 1) x = INT64_MIN + (int64_t)(r % 5);
        if (v == 2) x = INT64_MAX - (int64_t)(r % 5);
        if (v == 3) ((uint64_t *)c->data->data)[i] = UINT64_MAX - r % 9;
        else ((int64_t *)c->data->data)[i] = x;
        if ((r >> 60) == 0) zb_bit_set((uint8_t *)c->validity->data, i, false);
      }
      zb_column_recount_nulls(c);
      /* oracle: groups in first-appearance order (null one group) */
      int64_t *first = (int64_t *)malloc((size_t)n * sizeof(int64_t));
      int64_t *cnt = (int64_t *)malloc((size_t)n * sizeof(int64_t));
      int64_t ng = 0;
      for (int64_t i = 0; i < n; i++) {
        int64_t g = 0;
        for (; g < ng; g++) {
          int64_t f = first[g];
          bool vi = zb_column_is_valid(c, i), vf = zb_column_is_valid(c, f);
          if (vi == vf && (!vi || ((int64_t *)c->data->data)[i] == ((int64_t *)c->data->data)[f]))
            break;
        }
        if (g == ng) {
          first[ng] = i;
          cnt[ng++] = 0;
        }
        cnt[g]++;
      }
      for (int th = 1; th <= 3; th += 2) {
        threads(th);
        zb_column *vals = NULL, *counts = NULL, *u = NULL;
        ZB_CHECK_OK(zb_column_value_counts(c, false, false, false, false, &vals, &counts, &err),
                    &err);
        ZB_CHECK_OK(zb_column_unique(c, &u, &err), &err);
        int64_t nu = -1;
        ZB_CHECK_OK(zb_column_nunique(c, false, &nu, &err), &err);
        ZB_CHECK_EQ_INT(nu, ng);
        if (vals != NULL && u != NULL) {
          ZB_CHECK_EQ_INT(vals->length, ng);
          ZB_CHECK_EQ_INT(u->length, ng);
          for (int64_t g = 0; g < ng && g < vals->length; g++) {
            ZB_CHECK(same_row(vals, g, c, first[g]));
            ZB_CHECK(same_row(u, g, c, first[g]));
            ZB_CHECK_EQ_INT(((int64_t *)counts->data->data)[g], cnt[g]);
          }
        }
        zb_column_release(vals);
        zb_column_release(counts);
        zb_column_release(u);
      }
      free(first);
      free(cnt);
      zb_column_release(c);
    }
  threads(1);
}

/* filter: every fixed width, bool and string, with and without nulls, masks
 * with nulls, all-true and all-false words. */
ZB_TEST(test_perf_filter_paths) {
  zb_error err = {{0}};
  const zb_type_id types[] = {ZB_BOOL, ZB_INT8, ZB_INT16, ZB_INT32, ZB_INT64, ZB_STRING};
  for (int ti = 0; ti < 6; ti++)
    for (int si = 0; si < N_SIZES; si++)
      for (int dens = 0; dens < 3; dens++) {
        zb_type_id t = types[ti];
        int64_t n = k_sizes[si];
        uint64_t seed = (uint64_t)(ti * 100 + si * 10 + dens);
        zb_column *c = NULL, *m = NULL;
        int64_t chars = t == ZB_STRING ? n * 20 : 0;
        ZB_CHECK_OK(zb_column_new(t, n, true, chars, &c, &err), &err);
        ZB_CHECK_OK(zb_column_new(ZB_BOOL, n, true, 0, &m, &err), &err);
        int64_t pos = 0;
        for (int64_t i = 0; i < n; i++) {
          uint64_t r = prng(&seed);
          if (t == ZB_STRING) {
            int len = (int)(r % 20);
            ((int64_t *)c->data->data)[i] = pos;
            for (int q = 0; q < len; q++)
              ((char *)c->chars->data)[pos + q] = (char)('a' + (r >> (q + 8)) % 26);
            pos += len;
            ((int64_t *)c->data->data)[i + 1] = pos;
          } else if (t == ZB_BOOL) {
            zb_bit_set((uint8_t *)c->data->data, i, (r >> 9) & 1);
          } else {
            int w = zb_type_width(t);
            memcpy((char *)c->data->data + i * w, &r, (size_t)w);
          }
          if ((r >> 59) == 0) zb_bit_set((uint8_t *)c->validity->data, i, false);
          /* dens 0: random; 1: runs of 200 true / 100 false; 2: mostly true */
          bool keep = dens == 0 ? (r >> 20) & 1 : dens == 1 ? (i % 300) < 200 : (r % 50) != 0;
          zb_bit_set((uint8_t *)m->data->data, i, keep);
          if ((r >> 40) % 97 == 0) zb_bit_set((uint8_t *)m->validity->data, i, false);
        }
        zb_column_recount_nulls(c);
        zb_column_recount_nulls(m);
        for (int th = 1; th <= 3; th += 2) {
          threads(th);
          zb_column *f = NULL;
          ZB_CHECK_OK(zb_column_filter(c, m, &f, &err), &err);
          if (f == NULL) continue;
          int64_t k = 0, bad = 0;
          for (int64_t i = 0; i < n; i++) {
            if (!zb_column_is_valid(m, i) || !zb_bit_get((const uint8_t *)m->data->data, i))
              continue;
            if (k >= f->length) {
              bad++;
              break;
            }
            bool vf = zb_column_is_valid(f, k), vc = zb_column_is_valid(c, i);
            if (vf != vc) bad++;
            if (t == ZB_STRING) {
              const int64_t *oc = (const int64_t *)c->data->data;
              const int64_t *of = (const int64_t *)f->data->data;
              const char *cc = (const char *)c->chars->data, *fc = (const char *)f->chars->data;
              int64_t lc = oc[i + 1] - oc[i], lf = of[k + 1] - of[k];
              if (lc != lf || memcmp(cc + oc[i], fc + of[k], (size_t)lc))
                bad++;
            } else if (t == ZB_BOOL) {
              bad += zb_bit_get((const uint8_t *)c->data->data, i) !=
                     zb_bit_get((const uint8_t *)f->data->data, k);
            } else {
              int w = zb_type_width(t);
              bad += memcmp((char *)c->data->data + i * w, (char *)f->data->data + k * w,
                            (size_t)w) != 0;
            }
            k++;
          }
          ZB_CHECK_EQ_INT(bad, 0);
          ZB_CHECK_EQ_INT(f->length, k);
          zb_column_release(f);
        }
        zb_column_release(c);
        zb_column_release(m);
      }
  threads(1);
}

/* Failure paths of sort_values and the direct value_counts free all. */
ZB_TEST(test_perf_faults) {
  zb_error err = {{0}};
  zb_column *c = make_col(ZB_FLOAT64, 5000, P_SMALL, true, 9);
  zb_column *d = make_col(ZB_INT64, 5000, P_SMALL, true, 10);
  for (int64_t k = 1; k < 40; k++) {
    zb_column *o = NULL, *o2 = NULL;
    zb_alloc_fail_after(k);
    zb_status s = zb_column_sort_values(c, true, false, &o, &err);
    zb_alloc_fail_after(0);
    ZB_CHECK(s == ZB_OK || s == ZB_ENOMEM);
    zb_column_release(o);
    o = NULL;
    zb_alloc_fail_after(k);
    s = zb_column_sort_values_indices(c, false, true, &o, &o2, &err);
    zb_alloc_fail_after(0);
    ZB_CHECK(s == ZB_OK || s == ZB_ENOMEM);
    ZB_CHECK(s == ZB_OK || (o == NULL && o2 == NULL));
    zb_column_release(o);
    zb_column_release(o2);
    o = o2 = NULL;
    zb_alloc_fail_after(k);
    s = zb_column_value_counts(d, true, false, true, false, &o, &o2, &err);
    zb_alloc_fail_after(0);
    ZB_CHECK(s == ZB_OK || s == ZB_ENOMEM);
    zb_column_release(o);
    zb_column_release(o2);
  }
  zb_column_release(c);
  zb_column_release(d);
}
