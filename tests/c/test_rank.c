/*
 * test_rank.c -- unit tests of rank (zb_column_rank, zb_column_group_rank).
 *
 * Each column is built from a "class" per row (a small integer; the
 * value's order among the column's values), so the expected ranks come
 * from counting classes: per group, the rows of a lower class, of the same
 * class, of the same class earlier in row order, and the distinct classes
 * below.  Checked for every method, direction, na_option and pct, for
 * every fixed-width type, bool and strings, with nulls (and NaN in
 * floats; -0.0 next to 0.0), through slices at an odd offset, at lengths
 * around the 64-row words and the morsel size (so tie runs and groups
 * cross morsels), with 1 and 3 threads, per group with null group ids;
 * plus bad arguments and the allocator failing each allocation in turn.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "zambezi/compute.h"

#define OFF 3
#define K 5 /* classes of present values: 0 .. K-1 */

static uint64_t rng(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Strings in byte order, one per class. */
static const char *const k_words[K] = {"", "B", "a", "ab", "\xc3\x9f"};

/* The value of class k in type t (bool has classes 0 and 1 only). */
static void put(zb_column *c, int64_t p, int k) {
  void *d = c->data->data;
  switch (c->type) {
    case ZB_BOOL: zb_bit_set((uint8_t *)d, p, k & 1); break;
    case ZB_INT8: ((int8_t *)d)[p] = (int8_t)(k - 2); break;
    case ZB_INT16: ((int16_t *)d)[p] = (int16_t)(k * 1000 - 2000); break;
    case ZB_INT32:
    case ZB_DATE32: ((int32_t *)d)[p] = k * 100000 - 7; break;
    case ZB_INT64:
    case ZB_TIMESTAMP: ((int64_t *)d)[p] = (int64_t)k * 4000000000LL - 1; break;
    case ZB_UINT8: ((uint8_t *)d)[p] = (uint8_t)(250 + k); break;
    case ZB_UINT16: ((uint16_t *)d)[p] = (uint16_t)(k * 9); break;
    case ZB_UINT32: ((uint32_t *)d)[p] = (uint32_t)k * 1000000000u; break;
    case ZB_UINT64: ((uint64_t *)d)[p] = (uint64_t)k << 61; break;
    case ZB_FLOAT32: ((float *)d)[p] = k == 0 ? -INFINITY : (float)(k - 2) * 0.25f; break;
    case ZB_FLOAT64: ((double *)d)[p] = k == 2 ? -0.0 : (double)(k - 2) * 1.5; break;
    default: break;
  }
}

/* n rows of type t at offset OFF; cls[i] the class of row i, -1 when
 * missing (about 1 in miss_every rows; 0: none; floats have NaN for every
 * other missing row). */
static zb_column *make(zb_type_id t, int64_t n, int miss_every, int *cls, uint64_t seed) {
  zb_error err = {{0}};
  zb_column *base = NULL, *s = NULL;
  int64_t len = n + OFF;
  int kk = t == ZB_BOOL ? 2 : K;
  int *all = (int *)malloc((size_t)(len > 0 ? len : 1) * sizeof(int));
  for (int64_t p = 0; p < len; p++) {
    uint64_t r = rng(&seed);
    all[p] = miss_every > 0 && (r >> 40) % (uint64_t)miss_every == 0 ? -1 : (int)(r % kk);
  }
  int64_t chars = 0;
  if (t == ZB_STRING)
    for (int64_t p = 0; p < len; p++) chars += all[p] < 0 ? 0 : (int64_t)strlen(k_words[all[p]]);
  ZB_CHECK_OK(zb_column_new(t, len, true, chars, &base, &err), &err);
  if (base == NULL) return NULL;
  int64_t at = 0;
  for (int64_t p = 0; p < len; p++) {
    int k = all[p];
    bool nan = k < 0 && zb_type_is_float(t) && (p & 1);
    if (t == ZB_STRING) {
      int64_t *offs = (int64_t *)base->data->data;
      offs[p] = at;
      if (k >= 0) {
        memcpy((char *)base->chars->data + at, k_words[k], strlen(k_words[k]));
        at += (int64_t)strlen(k_words[k]);
      }
      offs[p + 1] = at;
    } else {
      put(base, p, k < 0 ? 0 : k);
      if (nan) {
        if (t == ZB_FLOAT32)
          ((float *)base->data->data)[p] = NAN;
        else
          ((double *)base->data->data)[p] = NAN;
      }
    }
    if (k < 0 && !nan) zb_bit_set((uint8_t *)base->validity->data, p, false);
  }
  for (int64_t i = 0; i < n; i++) cls[i] = all[OFF + i];
  free(all);
  zb_column_recount_nulls(base);
  ZB_CHECK_OK(zb_column_slice(base, OFF, n, &s, &err), &err);
  zb_column_release(base);
  return s;
}

/* Group ids in [0, G), about every 7th null, at offset OFF. */
static zb_column *make_ids(int64_t n, int64_t G, uint64_t seed) {
  zb_error err = {{0}};
  zb_column *base = NULL, *s = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n + OFF, true, 0, &base, &err), &err);
  for (int64_t p = 0; p < n + OFF; p++) {
    uint64_t r = rng(&seed);
    ((int64_t *)base->data->data)[p] = (int64_t)(r % (uint64_t)G);
    if ((r >> 32) % 7 == 0) zb_bit_set((uint8_t *)base->validity->data, p, false);
  }
  zb_column_recount_nulls(base);
  ZB_CHECK_OK(zb_column_slice(base, OFF, n, &s, &err), &err);
  zb_column_release(base);
  return s;
}

/* The expected ranks, by counting: classes are remapped to their order
 * (missing: -1 before class 0 for top, K after K-1 for bottom, skipped for
 * keep; descending reverses the present classes). */
static bool check(const zb_column *c, const int *cls, const zb_column *ids, int64_t G,
                  zb_rank_method m, bool asc, zb_rank_na na, bool pct, const char *what) {
  zb_error err = {{0}};
  zb_column *r = NULL;
  zb_status st = ids == NULL ? zb_column_rank(c, m, asc, na, pct, &r, &err)
                             : zb_column_group_rank(c, ids, G, m, asc, na, pct, &r, &err);
  ZB_CHECK_OK(st, &err);
  if (st != ZB_OK) return false;
  ZB_CHECK(r->type == ZB_FLOAT64 && r->length == c->length);
  const int64_t n = c->length, ng = ids == NULL ? 1 : G, W = K + 2;
  const int64_t *iv = ids ? (const int64_t *)ids->data->data + ids->offset : NULL;
  int64_t *cnt = (int64_t *)calloc((size_t)(ng * W), sizeof(int64_t));
  int64_t *seen = (int64_t *)calloc((size_t)(ng * W), sizeof(int64_t));
  int *ord = (int *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
  int64_t *gid = (int64_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  for (int64_t i = 0; i < n; i++) {
    gid[i] = ids == NULL ? 0 : zb_column_is_valid(ids, i) ? iv[i] : -1;
    int k = cls[i];
    if (k < 0)
      ord[i] = na == ZB_RANK_NA_KEEP ? -1 : na == ZB_RANK_NA_TOP ? 0 : K + 1;
    else
      ord[i] = 1 + (asc ? k : K - 1 - k);
    if (gid[i] >= 0 && ord[i] >= 0) cnt[gid[i] * W + ord[i]]++;
  }
  bool ok = true;
  const double *o = (const double *)r->data->data + r->offset;
  for (int64_t i = 0; i < n && ok; i++) {
    bool valid = gid[i] >= 0 && ord[i] >= 0;
    ok = zb_column_is_valid(r, i) == valid;
    if (!valid || !ok) continue;
    const int64_t *h = cnt + gid[i] * W;
    int64_t lt = 0, total = 0, dense = 0, distinct = 0;
    for (int q = 0; q < W; q++) {
      total += h[q];
      distinct += h[q] > 0;
      if (q < ord[i]) lt += h[q], dense += h[q] > 0;
    }
    int64_t eq = h[ord[i]], before = seen[gid[i] * W + ord[i]]++;
    double want = m == ZB_RANK_AVERAGE ? (double)lt + (double)(eq + 1) / 2.0
                  : m == ZB_RANK_MIN   ? (double)(lt + 1)
                  : m == ZB_RANK_MAX   ? (double)(lt + eq)
                  : m == ZB_RANK_FIRST ? (double)(lt + before + 1)
                                       : (double)(dense + 1);
    if (pct) want /= (double)(m == ZB_RANK_DENSE ? distinct : total);
    ok = o[i] == want;
    if (!ok)
      zb_test_fail(__FILE__, __LINE__, "%s %s asc=%d na=%d pct=%d: row %lld of %lld: %g != %g",
                   what, zb_rank_method_name(m), (int)asc, (int)na, (int)pct, (long long)i,
                   (long long)n, o[i], want);
  }
  if (!ok) ZB_CHECK(ok);
  free(cnt);
  free(seen);
  free(ord);
  free(gid);
  zb_column_release(r);
  return ok;
}

static const zb_type_id k_types[] = {ZB_BOOL,   ZB_INT8,    ZB_INT16,  ZB_INT32,
                                     ZB_INT64,  ZB_UINT8,   ZB_UINT16, ZB_UINT32,
                                     ZB_UINT64, ZB_FLOAT32, ZB_FLOAT64, ZB_STRING,
                                     ZB_DATE32, ZB_TIMESTAMP};
#define N_TYPES ((int)(sizeof k_types / sizeof k_types[0]))

/* Every method x direction x na_option x pct. */
static void check_all(const zb_column *c, const int *cls, const zb_column *ids, int64_t G,
                      const char *what) {
  for (int m = 0; m < ZB_RANK_METHOD_COUNT; m++)
    for (int a = 0; a < 2; a++)
      for (int na = 0; na < ZB_RANK_NA_COUNT; na++)
        for (int p = 0; p < 2; p++)
          if (!check(c, cls, ids, G, (zb_rank_method)m, a == 0, (zb_rank_na)na, p == 1, what))
            return;
}

ZB_TEST(test_rank_all_types) {
  const int64_t lengths[] = {0, 1, 63, 64, 65, 700};
  for (int ti = 0; ti < N_TYPES; ti++)
    for (int li = 0; li < (int)(sizeof lengths / sizeof lengths[0]); li++) {
      int64_t n = lengths[li];
      int *cls = (int *)malloc((size_t)(n + 1) * sizeof(int));
      for (int me = 0; me < 2; me++) {
        zb_column *c = make(k_types[ti], n, me == 0 ? 0 : 4, cls, 5 + (uint64_t)n);
        check_all(c, cls, NULL, 0, zb_type_name(k_types[ti]));
        zb_column_release(c);
      }
      free(cls);
    }
}

ZB_TEST(test_rank_morsels_and_groups) {
  zb_error err = {{0}};
  const int64_t n = 3 * ZB_MORSEL_ROWS + 77;
  const int64_t groups[] = {1, 3, 5000};
  const int threads[] = {1, 3};
  /* bool: tie runs of ~1.4 morsels */
  const zb_type_id types[] = {ZB_FLOAT64, ZB_INT32, ZB_STRING, ZB_BOOL};
  int before = zb_get_num_threads();
  int *cls = (int *)malloc((size_t)n * sizeof(int));
  for (int th = 0; th < 2; th++) {
    ZB_CHECK_OK(zb_set_num_threads(threads[th], &err), &err);
    for (int ti = 0; ti < 4; ti++) {
      zb_column *c = make(types[ti], n, 9, cls, 17 + (uint64_t)ti);
      /* whole column: tie runs of ~n/5 (bool: ~n/2) rows span morsels */
      for (int m = 0; m < ZB_RANK_METHOD_COUNT; m++)
        check(c, cls, NULL, 0, (zb_rank_method)m, m % 2 == 0, (zb_rank_na)(m % 3), m < 3,
              "morsels");
      for (int gi = 0; gi < 3; gi++) {
        zb_column *ids = make_ids(n, groups[gi], 3 + (uint64_t)gi);
        for (int m = 0; m < ZB_RANK_METHOD_COUNT; m++)
          check(c, cls, ids, groups[gi], (zb_rank_method)m, m % 2 == 1, (zb_rank_na)(m % 3),
                m > 1, "groups");
        zb_column_release(ids);
      }
      zb_column_release(c);
    }
  }
  free(cls);
  ZB_CHECK_OK(zb_set_num_threads(before, &err), &err);
}

ZB_TEST(test_rank_small_groups_all_options) {
  const int64_t n = 300;
  int cls[300];
  zb_column *c = make(ZB_FLOAT64, n, 3, cls, 99);
  zb_column *ids = make_ids(n, 4, 8);
  check_all(c, cls, ids, 4, "small groups");
  zb_column_release(ids);
  zb_column_release(c);
}

ZB_TEST(test_rank_bad_arguments) {
  zb_error err = {{0}};
  int cls[10];
  zb_column *c = make(ZB_INT64, 10, 3, cls, 2), *r = NULL;
  zb_column *ids = make_ids(10, 2, 1), *short_ids = make_ids(9, 2, 1);
  ZB_CHECK_EQ_INT(zb_column_rank(NULL, ZB_RANK_MIN, true, ZB_RANK_NA_KEEP, false, &r, &err),
                  ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_column_rank(c, ZB_RANK_MIN, true, ZB_RANK_NA_KEEP, false, NULL, &err),
                  ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_column_rank(c, (zb_rank_method)7, true, ZB_RANK_NA_KEEP, false, &r, &err),
                  ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_column_rank(c, ZB_RANK_MIN, true, (zb_rank_na)5, false, &r, &err),
                  ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "na_option") != NULL);
  ZB_CHECK_EQ_INT(
      zb_column_group_rank(c, NULL, 2, ZB_RANK_MIN, true, ZB_RANK_NA_KEEP, false, &r, &err),
      ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_column_group_rank(c, short_ids, 2, ZB_RANK_MIN, true, ZB_RANK_NA_KEEP,
                                       false, &r, &err),
                  ZB_EINVAL);
  zb_column *f = make(ZB_FLOAT64, 10, 0, cls, 1);
  ZB_CHECK_EQ_INT(
      zb_column_group_rank(c, f, 2, ZB_RANK_MIN, true, ZB_RANK_NA_KEEP, false, &r, &err),
      ZB_ETYPE);
  ZB_CHECK_EQ_INT(
      zb_column_group_rank(c, ids, 1, ZB_RANK_MIN, true, ZB_RANK_NA_KEEP, false, &r, &err),
      ZB_EINDEX);
  ZB_CHECK(strstr(err.message, "group id") != NULL);
  ZB_CHECK(r == NULL);
  zb_column_release(f);
  zb_column_release(c);
  zb_column_release(ids);
  zb_column_release(short_ids);
}

ZB_TEST(test_rank_allocation_failures) {
  zb_error err = {{0}};
  int64_t n = 2 * ZB_MORSEL_ROWS + 9;
  int *cls = (int *)malloc((size_t)n * sizeof(int));
  zb_column *c = make(ZB_FLOAT64, n, 4, cls, 5);
  zb_column *ids = make_ids(n, 50, 3);
  for (int grouped = 0; grouped < 2; grouped++) {
    bool ok = false;
    for (int64_t k = 1; k < 80 && !ok; k++) {
      zb_column *r = NULL;
      zb_alloc_fail_after(k);
      zb_status st = grouped ? zb_column_group_rank(c, ids, 50, ZB_RANK_DENSE, true,
                                                    ZB_RANK_NA_TOP, true, &r, &err)
                             : zb_column_rank(c, ZB_RANK_AVERAGE, false, ZB_RANK_NA_KEEP, true,
                                              &r, &err);
      zb_alloc_fail_after(0);
      ZB_CHECK(st == ZB_OK || st == ZB_ENOMEM);
      ZB_CHECK((st == ZB_OK) == (r != NULL));
      ok = st == ZB_OK;
      zb_column_release(r);
    }
    ZB_CHECK(ok);
  }
  zb_column_release(c);
  zb_column_release(ids);
  free(cls);
}
