/*
 * test_fill_scan.c -- unit tests of ffill / bfill (zb_column_fill_forward,
 * zb_column_fill_backward).  Every result is checked row by row against
 * the source row a plain loop here says it must come from, for int64,
 * float64 (nulls and NaN), string, bool and categorical columns seen
 * through slices at odd offsets, at lengths around the 64-row words and
 * the morsel size (ZB_MORSEL_ROWS), with gaps that cross morsels, columns
 * that are all missing or begin and end with missing rows, every limit_area
 * and limits of 0, 1, 3 and beyond a morsel; with 1 and 3 threads; and
 * with the allocator failing each allocation in turn.
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

/* Where the missing rows are. */
enum {
  P_RANDOM,  /* about 30% missing */
  P_SPARSE,  /* about 95% missing: runs longer than a word */
  P_ALL,     /* every row missing */
  P_NONE,    /* nothing missing */
  P_EDGES,   /* the first and last third missing, random in between */
  P_FAR,     /* valid only at rows 5 and n - 7: one gap across morsels */
  P_COUNT
};

#define OFF 3 /* every column is a slice at this offset */

static bool missing_at(int pattern, int64_t i, int64_t n, uint64_t r) {
  switch (pattern) {
    case P_RANDOM: return r % 10 < 3;
    case P_SPARSE: return r % 20 != 0;
    case P_ALL: return true;
    case P_NONE: return false;
    case P_EDGES: return i < n / 3 || i >= n - n / 3 || r % 10 < 3;
    default: return i != 5 && i != n - 7;
  }
}

/* A column of type t, n rows, at offset OFF of its buffers.  Row i's value
 * is made from i (so a result names its source row).  Missing rows are
 * nulls; in float64 columns every other missing row is a NaN instead. */
static zb_column *make(zb_type_id t, int64_t n, int pattern, uint64_t seed) {
  zb_error err = {{0}};
  const int64_t len = n + OFF;
  zb_column *base = NULL, *s = NULL;
  char buf[32];
  int64_t chars = 0;
  if (t == ZB_STRING)
    for (int64_t p = 0; p < len; p++) chars += snprintf(buf, sizeof buf, "r%lld", (long long)p);
  zb_type_id phys = t == ZB_CATEGORICAL ? ZB_INT32 : t;
  ZB_CHECK_OK(zb_column_new(phys, len, true, chars, &base, &err), &err);
  if (base == NULL) return NULL;
  if (t == ZB_STRING) ((int64_t *)base->data->data)[0] = 0;
  for (int64_t p = 0; p < len; p++) {
    int64_t i = p - OFF;
    bool miss = missing_at(pattern, i, n, rng_next(&seed));
    bool nan = t == ZB_FLOAT64 && miss && (p & 1);
    switch (t) {
      case ZB_INT64: ((int64_t *)base->data->data)[p] = 3 * p + 1; break;
      case ZB_FLOAT64: ((double *)base->data->data)[p] = nan ? NAN : 0.5 * (double)p; break;
      case ZB_BOOL: zb_bit_set((uint8_t *)base->data->data, p, (p % 3) == 0); break;
      case ZB_CATEGORICAL: ((int32_t *)base->data->data)[p] = (int32_t)(p % 4); break;
      case ZB_STRING: {
        int64_t *o = (int64_t *)base->data->data;
        int l = snprintf(buf, sizeof buf, "r%lld", (long long)p);
        memcpy((char *)base->chars->data + o[p], buf, (size_t)l);
        o[p + 1] = o[p] + l;
        break;
      }
      default: break;
    }
    if (miss && !nan) zb_bit_set((uint8_t *)base->validity->data, p, false);
  }
  zb_column_recount_nulls(base);
  if (t == ZB_CATEGORICAL) {
    /* codes 0..3 of the categories "a".."d" */
    const char *cats = "abcd";
    zb_column *dict = NULL, *cat = NULL;
    ZB_CHECK_OK(zb_column_new(ZB_STRING, 4, false, 4, &dict, &err), &err);
    int64_t *o = (int64_t *)dict->data->data;
    for (int k = 0; k <= 4; k++) o[k] = k;
    memcpy(dict->chars->data, cats, 4);
    ZB_CHECK_OK(zb_column_make(ZB_CATEGORICAL, len, 0, base->validity, base->data, NULL, dict,
                               base->null_count, &cat, &err),
                &err);
    zb_column_release(dict);
    zb_column_release(base);
    base = cat;
  }
  ZB_CHECK_OK(zb_column_slice(base, OFF, n, &s, &err), &err);
  zb_column_release(base);
  return s;
}

static bool is_missing(const zb_column *c, int64_t i) {
  if (!zb_column_is_valid(c, i)) return true;
  if (c->type != ZB_FLOAT64) return false;
  double v = ((const double *)c->data->data)[c->offset + i];
  return v != v;
}

/* The source row of each row of the result, by plain loops (-1: the row
 * stays missing): the nearest valid row before and after each row first. */
static void expected(const zb_column *c, bool backward, int64_t limit, zb_fill_area area,
                     int64_t *src) {
  int64_t n = c->length, first = -1, last = -1;
  int64_t *near = (int64_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  if (!backward) {
    int64_t p = -1;
    for (int64_t i = 0; i < n; i++) {
      near[i] = p;
      if (!is_missing(c, i)) p = i;
    }
  } else {
    int64_t p = -1;
    for (int64_t i = n - 1; i >= 0; i--) {
      near[i] = p;
      if (!is_missing(c, i)) p = i;
    }
  }
  for (int64_t i = 0; i < n; i++)
    if (!is_missing(c, i)) {
      if (first < 0) first = i;
      last = i;
    }
  for (int64_t i = 0; i < n; i++) {
    src[i] = -1;
    if (!is_missing(c, i)) {
      src[i] = i;
      continue;
    }
    int64_t p = near[i];
    if (p < 0) continue;
    int64_t dist = p > i ? p - i : i - p;
    if (limit >= 0 && dist > limit) continue;
    bool inside = first >= 0 && i > first && i < last;
    if (area == ZB_FILL_INSIDE && !inside) continue;
    if (area == ZB_FILL_OUTSIDE && inside) continue;
    src[i] = p;
  }
  free(near);
}

/* Row i of r equals row j of c. */
static bool same_row(const zb_column *r, int64_t i, const zb_column *c, int64_t j) {
  if (!zb_column_is_valid(r, i) || !zb_column_is_valid(c, j)) return false;
  const void *rd = r->data->data, *cd = c->data->data;
  int64_t a = r->offset + i, b = c->offset + j;
  switch (c->type) {
    case ZB_INT64: return ((const int64_t *)rd)[a] == ((const int64_t *)cd)[b];
    case ZB_FLOAT64: return ((const double *)rd)[a] == ((const double *)cd)[b];
    case ZB_BOOL: return zb_bit_get((const uint8_t *)rd, a) == zb_bit_get((const uint8_t *)cd, b);
    case ZB_CATEGORICAL: return ((const int32_t *)rd)[a] == ((const int32_t *)cd)[b];
    case ZB_STRING: {
      const int64_t *ro = (const int64_t *)rd + a, *co = (const int64_t *)cd + b;
      return ro[1] - ro[0] == co[1] - co[0] &&
             memcmp((const char *)r->chars->data + ro[0], (const char *)c->chars->data + co[0],
                    (size_t)(ro[1] - ro[0])) == 0;
    }
    default: return false;
  }
}

/* The result of one fill checked against the plain loop; false on the
 * first wrong row (reported). */
static bool check_fill(const zb_column *c, bool backward, int64_t limit, zb_fill_area area,
                       const char *what) {
  zb_error err = {{0}};
  zb_column *r = NULL;
  zb_status st = backward ? zb_column_fill_backward(c, limit, area, &r, &err)
                          : zb_column_fill_forward(c, limit, area, &r, &err);
  ZB_CHECK_OK(st, &err);
  if (r == NULL) return false;
  int64_t n = c->length;
  int64_t *src = (int64_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  expected(c, backward, limit, area, src);
  bool ok = r->type == c->type && r->length == n && r->dictionary == c->dictionary;
  if (!ok)
    zb_test_fail(__FILE__, __LINE__, "%s: type, length or categories changed", what);
  int64_t nulls = 0;
  for (int64_t i = 0; i < n && ok; i++) {
    if (src[i] >= 0) {
      ok = same_row(r, i, c, src[i]);
    } else {
      /* unfilled: as it was (a null stays null, a NaN stays NaN) */
      ok = zb_column_is_valid(r, i) == zb_column_is_valid(c, i) && is_missing(r, i);
    }
    nulls += !zb_column_is_valid(r, i);
    if (!ok)
      zb_test_fail(__FILE__, __LINE__,
                   "%s: %s limit=%lld area=%d n=%lld: row %lld should come from row %lld",
                   what, backward ? "bfill" : "ffill", (long long)limit, (int)area,
                   (long long)n, (long long)i, (long long)src[i]);
  }
  if (ok && nulls != r->null_count) {
    zb_test_fail(__FILE__, __LINE__, "%s: null_count %lld, counted %lld", what,
                 (long long)r->null_count, (long long)nulls);
    ok = false;
  }
  free(src);
  zb_column_release(r);
  return ok;
}

static const int64_t k_lengths[] = {0,
                                    1,
                                    2,
                                    63,
                                    64,
                                    65,
                                    ZB_MORSEL_ROWS - 1,
                                    ZB_MORSEL_ROWS,
                                    ZB_MORSEL_ROWS + 1,
                                    2 * ZB_MORSEL_ROWS + 70};
#define N_LENGTHS (int)(sizeof k_lengths / sizeof k_lengths[0])

static const zb_type_id k_types[] = {ZB_INT64, ZB_FLOAT64, ZB_STRING, ZB_BOOL, ZB_CATEGORICAL};
#define N_TYPES (int)(sizeof k_types / sizeof k_types[0])

/* Every direction, limit and area for one column. */
static bool check_all(const zb_column *c, const char *what) {
  const int64_t limits[] = {-1, 0, 1, 3, ZB_MORSEL_ROWS + 7};
  for (int b = 0; b < 2; b++) {
    for (int l = 0; l < 5; l++)
      if (!check_fill(c, b != 0, limits[l], ZB_FILL_ANYWHERE, what)) return false;
    for (int a = ZB_FILL_INSIDE; a <= ZB_FILL_OUTSIDE; a++)
      for (int l = 0; l < 3; l += 2)
        if (!check_fill(c, b != 0, limits[l], (zb_fill_area)a, what)) return false;
  }
  return true;
}

ZB_TEST(test_fill_scan_matches_a_plain_loop) {
  const char *names[P_COUNT] = {"random", "sparse", "all missing", "none missing", "edges",
                                "far apart"};
  for (int t = 0; t < N_TYPES; t++)
    for (int li = 0; li < N_LENGTHS; li++)
      for (int p = 0; p < P_COUNT; p++) {
        int64_t n = k_lengths[li];
        /* long string columns: the random pattern is enough */
        if (k_types[t] == ZB_STRING && n > 1000 && p != P_RANDOM && p != P_FAR) continue;
        zb_column *c = make(k_types[t], n, p, (uint64_t)(t * 1000 + li * 10 + p));
        if (c == NULL) return;
        char what[96];
        snprintf(what, sizeof what, "%s, %s", zb_type_name(k_types[t]), names[p]);
        bool ok = check_all(c, what);
        zb_column_release(c);
        if (!ok) return;
      }
}

ZB_TEST(test_fill_scan_nothing_missing_returns_the_column) {
  zb_error err = {{0}};
  zb_column *c = make(ZB_INT64, 1000, P_NONE, 1), *r = NULL;
  ZB_CHECK_OK(zb_column_fill_forward(c, -1, ZB_FILL_ANYWHERE, &r, &err), &err);
  ZB_CHECK(r == c); /* columns are immutable: no copy */
  zb_column_release(r);
  zb_column_release(c);
}

ZB_TEST(test_fill_scan_same_with_1_and_3_threads) {
  zb_error err = {{0}};
  int before = zb_get_num_threads();
  zb_column *c = make(ZB_FLOAT64, 5 * ZB_MORSEL_ROWS + 11, P_SPARSE, 7);
  zb_column *r[2][2] = {{NULL, NULL}, {NULL, NULL}};
  const int threads[2] = {1, 3};
  for (int k = 0; k < 2; k++) {
    ZB_CHECK_OK(zb_set_num_threads(threads[k], &err), &err);
    ZB_CHECK_OK(zb_column_fill_forward(c, 40, ZB_FILL_ANYWHERE, &r[k][0], &err), &err);
    ZB_CHECK_OK(zb_column_fill_backward(c, -1, ZB_FILL_INSIDE, &r[k][1], &err), &err);
  }
  ZB_CHECK_OK(zb_set_num_threads(before, &err), &err);
  for (int d = 0; d < 2; d++) {
    if (r[0][d] == NULL || r[1][d] == NULL) continue;
    ZB_CHECK_EQ_INT(r[0][d]->null_count, r[1][d]->null_count);
    const double *a = (const double *)r[0][d]->data->data + r[0][d]->offset;
    const double *b = (const double *)r[1][d]->data->data + r[1][d]->offset;
    int64_t bad = -1;
    for (int64_t i = 0; i < c->length && bad < 0; i++) {
      bool va = zb_column_is_valid(r[0][d], i), vb = zb_column_is_valid(r[1][d], i);
      if (va != vb || (va && !(a[i] == b[i] || (isnan(a[i]) && isnan(b[i]))))) bad = i;
    }
    ZB_CHECK_EQ_INT(bad, -1);
  }
  for (int k = 0; k < 2; k++)
    for (int d = 0; d < 2; d++) zb_column_release(r[k][d]);
  zb_column_release(c);
}

ZB_TEST(test_fill_scan_bad_arguments) {
  zb_error err = {{0}};
  zb_column *c = make(ZB_INT64, 10, P_RANDOM, 3), *r = NULL;
  ZB_CHECK_EQ_INT(zb_column_fill_forward(NULL, -1, ZB_FILL_ANYWHERE, &r, &err), ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_column_fill_forward(c, -1, ZB_FILL_ANYWHERE, NULL, &err), ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_column_fill_backward(c, -1, (zb_fill_area)7, &r, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "bfill") != NULL);
  ZB_CHECK(r == NULL);
  zb_column_release(c);
}

ZB_TEST(test_fill_scan_allocation_failures) {
  zb_error err = {{0}};
  zb_column *cols[2] = {make(ZB_FLOAT64, 3 * ZB_MORSEL_ROWS, P_RANDOM, 5),
                        make(ZB_STRING, 5000, P_SPARSE, 6)};
  for (int c = 0; c < 2; c++) {
    bool ok = false;
    for (int64_t k = 1; k < 60 && !ok; k++) {
      zb_column *r = NULL;
      zb_alloc_fail_after(k);
      zb_status st = zb_column_fill_backward(cols[c], 2, ZB_FILL_ANYWHERE, &r, &err);
      zb_alloc_fail_after(0);
      ZB_CHECK(st == ZB_OK || st == ZB_ENOMEM);
      ZB_CHECK((st == ZB_OK) == (r != NULL));
      ok = st == ZB_OK;
      zb_column_release(r);
    }
    ZB_CHECK(ok);
  }
  zb_column_release(cols[0]);
  zb_column_release(cols[1]);
}
