/*
 * test_groupby.c -- unit tests for zambezi/groupby.h: group ids (direct and
 * partitioned-hash paths, sort and first-appearance order, dropna), every
 * aggregation against plain loops over an oracle grouping computed here by
 * sorting row indices, cumcount, argument checks, and a fault-injection
 * loop proving every failed allocation returns cleanly.  Lengths 0, 1, 2,
 * 1000 and 300007 (the latter takes the partitioned hash path), threads 1
 * and 3 giving identical results.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "zambezi/compute.h"
#include "zambezi/groupby.h"

static uint64_t rng(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static void set_threads(int n) {
  zb_error err = {{0}};
  ZB_CHECK_OK(zb_set_num_threads(n, &err), &err);
}

/* Test data: k_int (int64, nulls, `card` values spread by `spread`), k_str
 * (string, nulls), v_int (int64, nulls), v_f (float64, nulls and NaN). */
typedef struct data {
  int64_t n;
  int64_t *ki, *vi;
  double *vf;
  char (*ks)[8];
  bool *ki_ok, *ks_ok, *vi_ok, *vf_ok;
  zb_table *t;
} data;

static zb_column *col_i64(const int64_t *v, const bool *ok, int64_t n) {
  zb_error err = {{0}};
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n, true, 0, &c, &err), &err);
  for (int64_t i = 0; i < n; i++) {
    ((int64_t *)c->data->data)[i] = v[i];
    zb_bit_set((uint8_t *)c->validity->data, i, ok[i]);
  }
  zb_column_recount_nulls(c);
  return c;
}

static zb_column *col_f64(const double *v, const bool *ok, int64_t n) {
  zb_error err = {{0}};
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, n, true, 0, &c, &err), &err);
  for (int64_t i = 0; i < n; i++) {
    ((double *)c->data->data)[i] = v[i];
    zb_bit_set((uint8_t *)c->validity->data, i, ok[i]);
  }
  zb_column_recount_nulls(c);
  return c;
}

/* noinline: inlined into data_make, GCC 12 warns falsely that the strings are
 * uninitialised (they are written just before). */
__attribute__((noinline)) static zb_column *col_str(char (*s)[8], const bool *ok, int64_t n) {
  zb_error err = {{0}};
  int64_t total = 0;
  for (int64_t i = 0; i < n; i++) total += ok[i] ? (int64_t)strlen(s[i]) : 0;
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_STRING, n, true, total, &c, &err), &err);
  int64_t *off = (int64_t *)c->data->data;
  char *ch = (char *)c->chars->data;
  off[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t l = ok[i] ? (int64_t)strlen(s[i]) : 0;
    memcpy(ch + off[i], s[i], (size_t)l);
    off[i + 1] = off[i] + l;
    zb_bit_set((uint8_t *)c->validity->data, i, ok[i]);
  }
  zb_column_recount_nulls(c);
  return c;
}

static void data_make(data *d, int64_t n, uint64_t seed, int64_t card, int64_t spread) {
  memset(d, 0, sizeof *d);
  d->n = n;
  size_t m = (size_t)(n > 0 ? n : 1);
  d->ki = malloc(m * 8);
  d->vi = malloc(m * 8);
  d->vf = malloc(m * 8);
  d->ks = malloc(m * 8);
  d->ki_ok = malloc(m);
  d->ks_ok = malloc(m);
  d->vi_ok = malloc(m);
  d->vf_ok = malloc(m);
  for (int64_t i = 0; i < n; i++) {
    d->ki[i] = (int64_t)(rng(&seed) % (uint64_t)card) * spread - 3 * spread;
    d->ki_ok[i] = rng(&seed) % 17 != 0;
    snprintf(d->ks[i], 8, "s%d", (int)(rng(&seed) % 7));
    d->ks_ok[i] = rng(&seed) % 13 != 0;
    d->vi[i] = (int64_t)(rng(&seed) % 2001) - 1000;
    d->vi_ok[i] = rng(&seed) % 11 != 0;
    d->vf[i] = (double)(int64_t)(rng(&seed) % 100000) / 64.0 - 500.0;
    if (rng(&seed) % 29 == 0) d->vf[i] = NAN;
    d->vf_ok[i] = rng(&seed) % 9 != 0;
  }
  zb_column *cols[4];
  cols[0] = col_i64(d->ki, d->ki_ok, n);
  cols[1] = col_str(d->ks, d->ks_ok, n);
  cols[2] = col_i64(d->vi, d->vi_ok, n);
  cols[3] = col_f64(d->vf, d->vf_ok, n);
  const char *names[4] = {"ki", "ks", "vi", "vf"};
  zb_error err = {{0}};
  ZB_CHECK_OK(zb_table_make(4, cols, names, &d->t, &err), &err);
  for (int i = 0; i < 4; i++) zb_column_release(cols[i]);
}

static void data_free(data *d) {
  free(d->ki);
  free(d->vi);
  free(d->vf);
  free(d->ks);
  free(d->ki_ok);
  free(d->ks_ok);
  free(d->vi_ok);
  free(d->vf_ok);
  zb_table_release(d->t);
}

/* ---- oracle grouping ------------------------------------------------------- */

static const data *g_d;
static int g_keys; /* 1: ki, 2: ks, 3: ki, ks */

/* Key compare, nulls last. */
static int key_cmp(int64_t a, int64_t b) {
  const data *d = g_d;
  if (g_keys & 1) {
    bool va = d->ki_ok[a], vb = d->ki_ok[b];
    if (va != vb) return va ? -1 : 1;
    if (va && d->ki[a] != d->ki[b]) return d->ki[a] < d->ki[b] ? -1 : 1;
  }
  if (g_keys & 2) {
    bool va = d->ks_ok[a], vb = d->ks_ok[b];
    if (va != vb) return va ? -1 : 1;
    if (va) {
      int c = strcmp(d->ks[a], d->ks[b]);
      if (c != 0) return c;
    }
  }
  return 0;
}

static int row_cmp(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  int c = key_cmp(a, b);
  if (c != 0) return c;
  return a < b ? -1 : a > b;
}

static int first_cmp(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a < b ? -1 : a > b;
}

static bool key_has_null(int64_t r) {
  return ((g_keys & 1) && !g_d->ki_ok[r]) || ((g_keys & 2) && !g_d->ks_ok[r]);
}

/* gid[r] (-1 dropped) and the number of groups. */
static int64_t oracle_groups(const data *d, int keys, bool dropna, bool sort, int64_t *gid) {
  g_d = d;
  g_keys = keys;
  int64_t n = d->n;
  int64_t *idx = malloc((size_t)(n + 1) * 8);
  int64_t *firsts = malloc((size_t)(n + 1) * 8);
  int64_t *rank = malloc((size_t)(n + 1) * 8);
  for (int64_t i = 0; i < n; i++) idx[i] = i;
  qsort(idx, (size_t)n, 8, row_cmp);
  int64_t G = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t r = idx[i];
    if (dropna && key_has_null(r)) {
      gid[r] = -1;
      continue;
    }
    if (i == 0 || key_cmp(idx[i - 1], r) != 0 || (dropna && key_has_null(idx[i - 1]))) {
      firsts[G] = r; /* sorted by row within equal keys: r is the first */
      G++;
    }
    gid[r] = G - 1;
  }
  if (!sort) { /* renumber by first row */
    int64_t *pairs = malloc((size_t)(G + 1) * 16);
    for (int64_t g = 0; g < G; g++) {
      pairs[2 * g] = firsts[g];
      pairs[2 * g + 1] = g;
    }
    qsort(pairs, (size_t)G, 16, first_cmp);
    for (int64_t i = 0; i < G; i++) rank[pairs[2 * i + 1]] = i;
    for (int64_t r = 0; r < n; r++)
      if (gid[r] >= 0) gid[r] = rank[gid[r]];
    free(pairs);
  }
  free(idx);
  free(firsts);
  free(rank);
  return G;
}

/* ---- checks ------------------------------------------------------------------ */

static bool close_to(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  return fabs(a - b) <= 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

static int dcmp(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

static const int64_t k_keysets[3][2] = {{0, 0}, {1, 0}, {0, 1}};

/* Everything for one data set, keys choice, dropna and sort. */
/* Whether columns a and b hold the same values (validity, and the values
 * of valid rows: bits, bytes of fixed-width values, or string bytes). */
static bool same_column(const zb_column *a, const zb_column *b) {
  if (a->type != b->type || a->length != b->length || a->null_count != b->null_count)
    return false;
  int w = zb_type_width(a->type);
  for (int64_t r = 0; r < a->length; r++) {
    if (zb_column_is_valid(a, r) != zb_column_is_valid(b, r)) return false;
    if (!zb_column_is_valid(a, r)) continue;
    if (a->type == ZB_BOOL) {
      if (zb_bit_get((const uint8_t *)a->data->data, a->offset + r) !=
          zb_bit_get((const uint8_t *)b->data->data, b->offset + r))
        return false;
    } else if (a->type == ZB_STRING) {
      const int64_t *oa = (const int64_t *)a->data->data + a->offset + r;
      const int64_t *ob = (const int64_t *)b->data->data + b->offset + r;
      if (oa[1] - oa[0] != ob[1] - ob[0] ||
          memcmp((const char *)a->chars->data + oa[0], (const char *)b->chars->data + ob[0],
                 (size_t)(oa[1] - oa[0])) != 0)
        return false;
    } else if (memcmp((const char *)a->data->data + (a->offset + r) * w,
                      (const char *)b->data->data + (b->offset + r) * w, (size_t)w) != 0) {
      return false;
    }
  }
  return true;
}

/* The grouping kept by zb_table_groupby_keep_ids and reused by
 * zb_table_groupby_ids gives res (zb_table_groupby's result, checked
 * against the oracle by the caller) again: the ids are the oracle's, the
 * key and aggregation columns equal res's, aggregations asked one at a
 * time (as Dask asks them) too. */
static void check_kept_ids(const data *d, const int64_t *gid, int64_t G, int64_t nk,
                           const int64_t *kidx, bool dropna, bool sort, int64_t na,
                           const zb_agg *aggs, const zb_table *res) {
  zb_error err = {{0}};
  zb_table *kept = NULL, *by_ids = NULL;
  zb_column *ids = NULL;
  int64_t ng = -1;
  ZB_CHECK_OK(zb_table_groupby_keep_ids(d->t, nk, kidx, dropna, sort, 1, aggs, &kept, &ids,
                                        &ng, &err), &err);
  if (kept == NULL) return;
  ZB_CHECK_EQ_INT(ng, G);
  ZB_CHECK_EQ_INT(kept->num_columns, nk + 1);
  for (int64_t c = 0; c < nk + 1; c++) ZB_CHECK(same_column(kept->columns[c], res->columns[c]));
  for (int64_t r = 0; r < d->n; r++) {
    bool valid = zb_column_is_valid(ids, r);
    if ((valid ? ((int64_t *)ids->data->data)[r] : -1) != gid[r]) {
      zb_test_fail(__FILE__, __LINE__, "kept ids: row %lld", (long long)r);
      break;
    }
  }
  ZB_CHECK_OK(zb_table_groupby_ids(d->t, ids, ng, na, aggs, &by_ids, &err), &err);
  if (by_ids != NULL) {
    ZB_CHECK_EQ_INT(by_ids->num_columns, na);
    ZB_CHECK_EQ_INT(by_ids->num_rows, G);
    for (int64_t a = 0; a < na; a++) {
      if (!same_column(by_ids->columns[a], res->columns[nk + a]))
        zb_test_fail(__FILE__, __LINE__, "by ids: aggregation %lld (%s) differs", (long long)a,
                     aggs[a].name);
      ZB_CHECK(strcmp(by_ids->names[a], aggs[a].name) == 0);
    }
  }
  zb_table_release(by_ids);
  for (int64_t a = 0; a < na; a += 5) { /* one at a time */
    by_ids = NULL;
    ZB_CHECK_OK(zb_table_groupby_ids(d->t, ids, ng, 1, &aggs[a], &by_ids, &err), &err);
    if (by_ids != NULL) ZB_CHECK(same_column(by_ids->columns[0], res->columns[nk + a]));
    zb_table_release(by_ids);
  }
  zb_column_release(ids);
  zb_table_release(kept);
}

static void check_case(const data *d, int keys, bool dropna, bool sort) {
  zb_error err = {{0}};
  int64_t n = d->n;
  int64_t *gid = malloc((size_t)(n + 1) * 8);
  int64_t G = oracle_groups(d, keys, dropna, sort, gid);
  int64_t nk = keys == 3 ? 2 : 1;
  const int64_t *kidx = keys == 3 ? k_keysets[2] : keys == 1 ? k_keysets[0] : &k_keysets[2][1];
  /* group ids */
  zb_column *ids = NULL;
  int64_t ng = -1;
  ZB_CHECK_OK(zb_table_group_ids(d->t, nk, kidx, dropna, sort, &ids, &ng, &err), &err);
  ZB_CHECK_EQ_INT(ng, G);
  int bad = 0;
  for (int64_t r = 0; r < n && bad < 3; r++) {
    bool valid = zb_column_is_valid(ids, r);
    int64_t got = valid ? ((int64_t *)ids->data->data)[r] : -1;
    if (got != gid[r]) {
      zb_test_fail(__FILE__, __LINE__, "keys %d dropna %d sort %d n %lld row %lld: gid %lld != %lld",
                   keys, dropna, sort, (long long)n, (long long)r, (long long)got,
                   (long long)gid[r]);
      bad++;
    }
  }
  /* cumcount against a running count */
  zb_column *cc = NULL, *rc = NULL;
  ZB_CHECK_OK(zb_column_group_cumcount(ids, ng, true, &cc, &err), &err);
  ZB_CHECK_OK(zb_column_group_cumcount(ids, ng, false, &rc, &err), &err);
  int64_t *run = calloc((size_t)(G + 1), 8), *size = calloc((size_t)(G + 1), 8);
  for (int64_t r = 0; r < n; r++)
    if (gid[r] >= 0) size[gid[r]]++;
  for (int64_t r = 0; r < n; r++) {
    if (gid[r] < 0) {
      ZB_CHECK(!zb_column_is_valid(cc, r));
      continue;
    }
    int64_t c = run[gid[r]]++;
    ZB_CHECK_EQ_INT(((int64_t *)cc->data->data)[r], c);
    ZB_CHECK_EQ_INT(((int64_t *)rc->data->data)[r], size[gid[r]] - 1 - c);
  }
  zb_column_release(cc);
  zb_column_release(rc);
  zb_column_release(ids);

  /* aggregations */
  zb_agg aggs[] = {
      {.op = ZB_AGG_SUM, .column = 2, .name = "sum_vi"},
      {.op = ZB_AGG_MEAN, .column = 3, .name = "mean_vf"},
      {.op = ZB_AGG_MIN, .column = 3, .name = "min_vf"},
      {.op = ZB_AGG_MAX, .column = 2, .name = "max_vi"},
      {.op = ZB_AGG_COUNT, .column = 3, .name = "count_vf"},
      {.op = ZB_AGG_SIZE, .name = "size"},
      {.op = ZB_AGG_VAR, .column = 3, .ddof = 1, .name = "var_vf"},
      {.op = ZB_AGG_MEDIAN, .column = 2, .name = "median_vi"},
      {.op = ZB_AGG_QUANTILE, .column = 3, .q = 0.3, .name = "q_vf"},
      {.op = ZB_AGG_FIRST, .column = 3, .name = "first_vf"},
      {.op = ZB_AGG_LAST, .column = 2, .name = "last_vi"},
      {.op = ZB_AGG_NUNIQUE, .column = 2, .name = "nu_vi"},
      {.op = ZB_AGG_ANY, .column = 2, .name = "any_vi"},
      {.op = ZB_AGG_ALL, .column = 2, .name = "all_vi"},
      {.op = ZB_AGG_CORR, .column = 2, .column2 = 3, .name = "corr"},
      {.op = ZB_AGG_MAX, .column = 1, .name = "max_ks"},
      {.op = ZB_AGG_MEAN, .column = 2, .name = "mean_vi"},
      {.op = ZB_AGG_STD, .column = 3, .ddof = 0, .name = "std_vf"},
  };
  int64_t na = (int64_t)(sizeof aggs / sizeof aggs[0]);
  zb_table *res = NULL;
  ZB_CHECK_OK(zb_table_groupby(d->t, nk, kidx, dropna, sort, na, aggs, &res, &err), &err);
  if (res == NULL) goto out;
  ZB_CHECK_EQ_INT(res->num_rows, G);
  ZB_CHECK_EQ_INT(res->num_columns, nk + na);
  /* per-group oracle, one group at a time over its rows */
  int64_t *rows = malloc((size_t)(n + 1) * 8), *start = calloc((size_t)(G + 2), 8);
  double *buf = malloc((size_t)(n + 1) * 8);
  for (int64_t r = 0; r < n; r++)
    if (gid[r] >= 0) start[gid[r] + 1]++;
  for (int64_t g = 0; g < G; g++) start[g + 1] += start[g];
  memset(run, 0, (size_t)(G + 1) * 8);
  for (int64_t r = 0; r < n; r++)
    if (gid[r] >= 0) rows[start[gid[r]] + run[gid[r]]++] = r;
  int fails = 0;
#define COL(i) (res->columns[nk + (i)])
#define I64(i, g) (((int64_t *)COL(i)->data->data)[g])
#define F64(i, g) (((double *)COL(i)->data->data)[g])
#define OK(i, g) zb_column_is_valid(COL(i), g)
#define EXPECT(cond)                                                                   \
  do {                                                                                 \
    if (!(cond) && fails++ < 5)                                                        \
      zb_test_fail(__FILE__, __LINE__, "keys %d dropna %d sort %d n %lld group %lld: %s", \
                   keys, dropna, sort, (long long)n, (long long)g, #cond);             \
  } while (0)
  for (int64_t g = 0; g < G; g++) {
    int64_t s = start[g], e = start[g + 1], r0 = rows[s];
    /* keys: the first row's */
    if (keys & 1) {
      zb_column *kc = res->columns[0];
      EXPECT(zb_column_is_valid(kc, g) == d->ki_ok[r0]);
      if (d->ki_ok[r0]) EXPECT(((int64_t *)kc->data->data)[g] == d->ki[r0]);
    }
    int64_t sum = 0, cnt_i = 0, mx = 0, nz = 0, cnt_f = 0, last_i = -1, first_f = -1;
    double fs = 0, fmn = 0;
    int64_t mi = 0; /* values of vi */
    for (int64_t x = s; x < e; x++) {
      int64_t r = rows[x];
      if (d->vi_ok[r]) {
        sum += d->vi[r];
        if (cnt_i == 0 || d->vi[r] > mx) mx = d->vi[r];
        nz += d->vi[r] != 0;
        buf[mi++] = (double)d->vi[r];
        cnt_i++;
        last_i = r;
      }
      if (d->vf_ok[r] && !isnan(d->vf[r])) {
        fs += d->vf[r];
        if (cnt_f == 0 || d->vf[r] < fmn) fmn = d->vf[r];
        if (first_f < 0) first_f = r;
        cnt_f++;
      }
    }
    EXPECT(I64(0, g) == sum);
    EXPECT(I64(5, g) == e - s);
    EXPECT(I64(4, g) == cnt_f);
    EXPECT(OK(1, g) == (cnt_f > 0));
    if (cnt_f > 0) EXPECT(close_to(F64(1, g), fs / (double)cnt_f));
    EXPECT(OK(2, g) == (cnt_f > 0));
    if (cnt_f > 0) EXPECT(F64(2, g) == fmn);
    EXPECT(OK(3, g) == (cnt_i > 0));
    if (cnt_i > 0) EXPECT(I64(3, g) == mx);
    EXPECT(OK(16, g) == (cnt_i > 0));
    if (cnt_i > 0) EXPECT(close_to(F64(16, g), (double)sum / (double)cnt_i));
    EXPECT(zb_bit_get((uint8_t *)COL(12)->data->data, COL(12)->offset + g) == (nz > 0));
    EXPECT(zb_bit_get((uint8_t *)COL(13)->data->data, COL(13)->offset + g) == (nz == cnt_i));
    EXPECT(OK(9, g) == (first_f >= 0));
    if (first_f >= 0) EXPECT(F64(9, g) == d->vf[first_f]);
    EXPECT(OK(10, g) == (last_i >= 0));
    if (last_i >= 0) EXPECT(I64(10, g) == d->vi[last_i]);
    /* var / std over vf */
    double mean = cnt_f > 0 ? fs / (double)cnt_f : 0, ss = 0;
    for (int64_t x = s; x < e; x++) {
      int64_t r = rows[x];
      if (d->vf_ok[r] && !isnan(d->vf[r])) ss += (d->vf[r] - mean) * (d->vf[r] - mean);
    }
    EXPECT(OK(6, g) == (cnt_f > 1));
    if (cnt_f > 1) EXPECT(close_to(F64(6, g), ss / (double)(cnt_f - 1)));
    EXPECT(OK(17, g) == (cnt_f > 0));
    if (cnt_f > 0) EXPECT(close_to(F64(17, g), sqrt(ss / (double)cnt_f)));
    /* median of vi, nunique of vi */
    qsort(buf, (size_t)mi, 8, dcmp);
    EXPECT(OK(7, g) == (mi > 0));
    if (mi > 0) {
      double med = mi % 2 ? buf[mi / 2] : (buf[mi / 2 - 1] + buf[mi / 2]) / 2;
      EXPECT(close_to(F64(7, g), med));
    }
    int64_t nu = 0;
    for (int64_t x = 0; x < mi; x++) nu += x == 0 || buf[x] != buf[x - 1];
    EXPECT(I64(11, g) == nu);
    /* quantile 0.3 of vf */
    int64_t m = 0;
    for (int64_t x = s; x < e; x++) {
      int64_t r = rows[x];
      if (d->vf_ok[r] && !isnan(d->vf[r])) buf[m++] = d->vf[r];
    }
    qsort(buf, (size_t)m, 8, dcmp);
    EXPECT(OK(8, g) == (m > 0));
    if (m > 0) {
      double h = (double)(m - 1) * 0.3;
      int64_t lo = (int64_t)floor(h);
      double q = lo + 1 < m ? buf[lo] + (buf[lo + 1] - buf[lo]) * (h - (double)lo) : buf[lo];
      EXPECT(close_to(F64(8, g), q));
    }
    /* corr(vi, vf) */
    double sx = 0, sy = 0, c = 0;
    for (int64_t x = s; x < e; x++) {
      int64_t r = rows[x];
      if (d->vi_ok[r] && d->vf_ok[r] && !isnan(d->vf[r])) {
        sx += (double)d->vi[r];
        sy += d->vf[r];
        c++;
      }
    }
    double mxv = c > 0 ? sx / c : 0, myv = c > 0 ? sy / c : 0, sxx = 0, syy = 0, sxy = 0;
    for (int64_t x = s; x < e; x++) {
      int64_t r = rows[x];
      if (d->vi_ok[r] && d->vf_ok[r] && !isnan(d->vf[r])) {
        double dx = (double)d->vi[r] - mxv, dy = d->vf[r] - myv;
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
      }
    }
    bool cok = c >= 2 && sxx * syy > 0;
    EXPECT(OK(14, g) == cok);
    if (cok) EXPECT(fabs(F64(14, g) - sxy / sqrt(sxx * syy)) < 1e-9);
    /* max of strings */
    const char *best = NULL;
    for (int64_t x = s; x < e; x++) {
      int64_t r = rows[x];
      if (d->ks_ok[r] && (best == NULL || strcmp(d->ks[r], best) > 0)) best = d->ks[r];
    }
    EXPECT(OK(15, g) == (best != NULL));
    if (best != NULL) {
      const zb_column *sc = COL(15);
      const int64_t *o = (const int64_t *)sc->data->data + sc->offset + g;
      EXPECT((size_t)(o[1] - o[0]) == strlen(best) &&
             memcmp((const char *)sc->chars->data + o[0], best, strlen(best)) == 0);
    }
  }
  free(rows);
  free(start);
  free(buf);
  check_kept_ids(d, gid, G, nk, kidx, dropna, sort, na, aggs, res);
  zb_table_release(res);
out:
  free(run);
  free(size);
  free(gid);
}

ZB_TEST(groupby_against_loops) {
  static const int64_t lengths[] = {0, 1, 2, 1000, 300007};
  for (int li = 0; li < 5; li++) {
    for (int variant = 0; variant < 2; variant++) {
      data d;
      /* variant 0: small key range (direct path); 1: wide range (hashing) */
      int64_t card = lengths[li] > 100000 ? 500 : 37;
      data_make(&d, lengths[li], 7 + (uint64_t)li * 31 + (uint64_t)variant, card,
                variant == 0 ? 1 : 1000003);
      for (int threads = 1; threads <= 3; threads += 2) {
        set_threads(threads);
        for (int keys = 1; keys <= 3; keys++)
          for (int dn = 0; dn < 2; dn++)
            for (int so = 0; so < 2; so++) {
              /* the long case: every path once per thread count, not every mix */
              if (lengths[li] > 100000 && (dn != so || (keys == 2 && threads == 1))) continue;
              check_case(&d, keys, dn, so);
            }
      }
      data_free(&d);
    }
  }
  set_threads(2);
}

ZB_TEST(groupby_many_groups) {
  /* every row its own group (csr mode: > 65536 groups) */
  data d;
  data_make(&d, 150001, 99, 1, 1);
  for (int64_t i = 0; i < d.n; i++) d.ki[i] = i * 7919;
  zb_error err = {{0}};
  zb_column *kc = col_i64(d.ki, d.ki_ok, d.n);
  zb_column *cols[4] = {kc, d.t->columns[1], d.t->columns[2], d.t->columns[3]};
  const char *names[4] = {"ki", "ks", "vi", "vf"};
  zb_table *nt = NULL;
  ZB_CHECK_OK(zb_table_make(4, cols, names, &nt, &err), &err);
  zb_column_release(kc);
  zb_table_release(d.t);
  d.t = nt;
  for (int threads = 1; threads <= 3; threads += 2) {
    set_threads(threads);
    check_case(&d, 1, false, true);
    check_case(&d, 1, true, false);
    check_case(&d, 3, false, false);
  }
  set_threads(2);
  data_free(&d);
}

ZB_TEST(groupby_errors) {
  data d;
  data_make(&d, 10, 5, 3, 1);
  zb_error err = {{0}};
  zb_table *res = NULL;
  int64_t k = 0, bad = 9;
  zb_agg a = {.op = ZB_AGG_SUM, .column = 1};
  ZB_CHECK_EQ_INT(zb_table_groupby(d.t, 1, &k, true, true, 1, &a, &res, &err), ZB_ETYPE);
  ZB_CHECK(strstr(err.message, "ks") != NULL);
  ZB_CHECK(res == NULL);
  ZB_CHECK_EQ_INT(zb_table_groupby(d.t, 1, &bad, true, true, 0, NULL, &res, &err), ZB_EINDEX);
  ZB_CHECK_EQ_INT(zb_table_groupby(d.t, 0, &k, true, true, 0, NULL, &res, &err), ZB_EINVAL);
  zb_agg q = {.op = ZB_AGG_QUANTILE, .column = 2, .q = 1.5};
  ZB_CHECK_EQ_INT(zb_table_groupby(d.t, 1, &k, true, true, 1, &q, &res, &err), ZB_EINVAL);
  zb_agg two[2] = {{.op = ZB_AGG_SUM, .column = 2}, {.op = ZB_AGG_MEAN, .column = 2}};
  ZB_CHECK_EQ_INT(zb_table_groupby(d.t, 1, &k, true, true, 2, two, &res, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "vi") != NULL);
  zb_agg_op op;
  ZB_CHECK_OK(zb_agg_op_from_name("nunique", &op, &err), &err);
  ZB_CHECK_EQ_INT(op, ZB_AGG_NUNIQUE);
  ZB_CHECK_EQ_INT(zb_agg_op_from_name("avg", &op, &err), ZB_EINVAL);
  data_free(&d);
  /* cumcount names the first row whose (valid) id is outside [0, n_groups),
   * past the first morsel; a null row's id is not looked at */
  zb_column *ids = NULL, *cc = NULL;
  int64_t n = 3 * ZB_MORSEL_ROWS + 5;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n, true, 0, &ids, &err), &err);
  int64_t *iv = (int64_t *)ids->data->data;
  for (int64_t r = 0; r < n; r++) iv[r] = r % 7;
  iv[ZB_MORSEL_ROWS + 3] = -1; /* null: ignored */
  zb_bit_set((uint8_t *)ids->validity->data, ZB_MORSEL_ROWS + 3, false);
  zb_column_recount_nulls(ids);
  iv[2 * ZB_MORSEL_ROWS + 9] = 7;
  iv[2 * ZB_MORSEL_ROWS + 11] = -2;
  ZB_CHECK_EQ_INT(zb_column_group_cumcount(ids, 7, true, &cc, &err), ZB_EINDEX);
  ZB_CHECK(cc == NULL);
  char want[64];
  snprintf(want, sizeof want, "id 7 at row %lld", (long long)(2 * ZB_MORSEL_ROWS + 9));
  ZB_CHECK(strstr(err.message, want) != NULL);
  iv[2 * ZB_MORSEL_ROWS + 9] = 6;
  iv[2 * ZB_MORSEL_ROWS + 11] = 5;
  ZB_CHECK_OK(zb_column_group_cumcount(ids, 7, true, &cc, &err), &err);
  int64_t before = 0; /* the last row's position in its group, counted here */
  for (int64_t r = 0; r < n - 1; r++) before += zb_column_is_valid(ids, r) && iv[r] == iv[n - 1];
  ZB_CHECK_EQ_INT(((int64_t *)cc->data->data)[n - 1], before);
  zb_column_release(cc);
  zb_column_release(ids);
}

ZB_TEST(groupby_ids_errors) {
  /* aggregation by given ids: the ids' type, length and n_groups checked,
   * and the first row whose (valid) id is outside [0, n_groups) named,
   * past the first morsel; a null row's id is not looked at */
  zb_error err = {{0}};
  int64_t n = 3 * ZB_MORSEL_ROWS + 5;
  zb_column *ids = NULL, *vals = NULL, *f = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n, true, 0, &ids, &err), &err);
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n, false, 0, &vals, &err), &err);
  ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, n, false, 0, &f, &err), &err);
  int64_t *iv = (int64_t *)ids->data->data, *vv = (int64_t *)vals->data->data;
  for (int64_t r = 0; r < n; r++) {
    iv[r] = r % 7;
    vv[r] = r;
    ((double *)f->data->data)[r] = (double)r;
  }
  iv[ZB_MORSEL_ROWS + 3] = -5; /* null: ignored */
  zb_bit_set((uint8_t *)ids->validity->data, ZB_MORSEL_ROWS + 3, false);
  zb_column_recount_nulls(ids);
  zb_column *cols[2] = {vals, f};
  const char *names[2] = {"v", "f"};
  zb_table *t = NULL, *res = NULL;
  ZB_CHECK_OK(zb_table_make(2, cols, names, &t, &err), &err);
  zb_agg a = {.op = ZB_AGG_SUM, .column = 0};
  /* valid: sums per id, the null row left out */
  ZB_CHECK_OK(zb_table_groupby_ids(t, ids, 7, 1, &a, &res, &err), &err);
  if (res != NULL) {
    int64_t want[7] = {0};
    for (int64_t r = 0; r < n; r++)
      if (r != ZB_MORSEL_ROWS + 3) want[r % 7] += r;
    for (int g = 0; g < 7; g++) ZB_CHECK_EQ_INT(((int64_t *)res->columns[0]->data->data)[g], want[g]);
    ZB_CHECK(strcmp(res->names[0], "v") == 0);
    zb_table_release(res);
    res = NULL;
  }
  iv[2 * ZB_MORSEL_ROWS + 9] = 7;
  iv[2 * ZB_MORSEL_ROWS + 11] = -2;
  ZB_CHECK_EQ_INT(zb_table_groupby_ids(t, ids, 7, 1, &a, &res, &err), ZB_EINDEX);
  ZB_CHECK(res == NULL);
  char want[64];
  snprintf(want, sizeof want, "id 7 at row %lld", (long long)(2 * ZB_MORSEL_ROWS + 9));
  ZB_CHECK(strstr(err.message, want) != NULL);
  /* without nulls the range is checked too (the ids are read in place) */
  zb_column *plain = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n, false, 0, &plain, &err), &err);
  for (int64_t r = 0; r < n; r++) ((int64_t *)plain->data->data)[r] = r % 3;
  ((int64_t *)plain->data->data)[n - 1] = -1;
  ZB_CHECK_EQ_INT(zb_table_groupby_ids(t, plain, 3, 1, &a, &res, &err), ZB_EINDEX);
  snprintf(want, sizeof want, "id -1 at row %lld", (long long)(n - 1));
  ZB_CHECK(strstr(err.message, want) != NULL);
  ZB_CHECK_EQ_INT(zb_table_groupby_ids(t, plain, -1, 1, &a, &res, &err), ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_table_groupby_ids(t, f, 3, 1, &a, &res, &err), ZB_ETYPE);
  zb_column *shortc = NULL;
  ZB_CHECK_OK(zb_column_slice(plain, 0, 10, &shortc, &err), &err);
  ZB_CHECK_EQ_INT(zb_table_groupby_ids(t, shortc, 3, 1, &a, &res, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "10 group ids") != NULL);
  zb_agg bad = {.op = ZB_AGG_MEAN, .column = 9};
  ZB_CHECK_EQ_INT(zb_table_groupby_ids(t, plain, 3, 1, &bad, &res, &err), ZB_EINDEX);
  ZB_CHECK(res == NULL);
  zb_column_release(shortc);
  zb_column_release(plain);
  zb_table_release(t);
  zb_column_release(ids);
  zb_column_release(vals);
  zb_column_release(f);
}

ZB_TEST(groupby_fault_injection) {
  for (int variant = 0; variant < 3; variant++) {
    data d;
    int64_t n = variant == 2 ? 270000 : 3000;
    data_make(&d, n, 11, variant == 0 ? 20 : 2000, variant == 0 ? 1 : 1000003);
    set_threads(3);
    zb_agg aggs[] = {{.op = ZB_AGG_SUM, .column = 2, .name = "a"},
                     {.op = ZB_AGG_MEDIAN, .column = 3, .name = "b"},
                     {.op = ZB_AGG_NUNIQUE, .column = 2, .name = "c"},
                     {.op = ZB_AGG_MAX, .column = 1, .name = "d"},
                     {.op = ZB_AGG_VAR, .column = 3, .ddof = 1, .name = "e"}};
    int64_t keys[2] = {0, 1};
    int64_t nk = variant == 0 ? 1 : 2;
    bool done = false, done_ids = false;
    for (int64_t k = 1; k < 4000 && !(done && done_ids); k += variant == 2 ? 13 : 1) {
      zb_error err = {{0}};
      zb_table *res = NULL;
      zb_alloc_fail_after(k);
      zb_status st = zb_table_groupby(d.t, nk, keys, true, true, 5, aggs, &res, &err);
      zb_alloc_fail_after(0);
      if (st == ZB_OK) {
        done = true;
        zb_table_release(res);
      } else {
        ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
        ZB_CHECK(res == NULL);
        ZB_CHECK(err.message[0] != '\0');
      }
      zb_column *ids = NULL, *cc = NULL;
      int64_t ng = 0;
      zb_alloc_fail_after(k);
      st = zb_table_group_ids(d.t, nk, keys, false, false, &ids, &ng, &err);
      if (st == ZB_OK) st = zb_column_group_cumcount(ids, ng, true, &cc, &err);
      zb_alloc_fail_after(0);
      zb_column_release(ids);
      zb_column_release(cc);
      /* the grouping kept, then reused (with nulls in the ids: dropna) */
      zb_table *kept = NULL, *by = NULL;
      ids = NULL;
      zb_alloc_fail_after(k);
      st = zb_table_groupby_keep_ids(d.t, nk, keys, true, false, 2, aggs, &kept, &ids, &ng,
                                     &err);
      if (st == ZB_OK) st = zb_table_groupby_ids(d.t, ids, ng, 5, aggs, &by, &err);
      zb_alloc_fail_after(0);
      if (st == ZB_OK) {
        done_ids = true;
      } else {
        ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
        ZB_CHECK(by == NULL);
      }
      zb_table_release(kept);
      zb_table_release(by);
      zb_column_release(ids);
    }
    if (!done || !done_ids)
      zb_test_fail(__FILE__, __LINE__, "variant %d never succeeded", variant);
    set_threads(2);
    data_free(&d);
  }
}

ZB_TEST(groupby_segments) {
  /* groups of consecutive rows: hand-computed sums, means, counts, first /
   * last / min / max rows (nulls and NaN skipped), an empty group, rows
   * outside every group; bad offsets named; every allocation failing in
   * turn returns ZB_ENOMEM and leaks nothing (the test runner's counters) */
  zb_error err = {{0}};
  const int64_t n = 2 * ZB_MORSEL_ROWS + 77;
  zb_column *iv = NULL, *fv = NULL, *off = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT32, n, true, 0, &iv, &err), &err);
  ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, n, false, 0, &fv, &err), &err);
  int32_t *ip = (int32_t *)iv->data->data;
  double *fp = (double *)fv->data->data;
  for (int64_t r = 0; r < n; r++) {
    ip[r] = (int32_t)(r % 11) - 5;
    fp[r] = r % 13 == 0 ? NAN : (double)(r % 7);
    if (r % 5 == 0) zb_bit_set((uint8_t *)iv->validity->data, r, false);
  }
  zb_column_recount_nulls(iv);
  const int64_t bounds[] = {3, 10, 10, ZB_MORSEL_ROWS + 1, n - 2};
  const int64_t G = 4;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, G + 1, false, 0, &off, &err), &err);
  memcpy(off->data->data, bounds, sizeof bounds);
  zb_column *cols[2] = {iv, fv};
  const char *names[2] = {"i", "f"};
  zb_table *t = NULL, *res = NULL;
  ZB_CHECK_OK(zb_table_make(2, cols, names, &t, &err), &err);
  zb_agg aggs[] = {{.op = ZB_AGG_SUM, .column = 0, .name = "si"},
                   {.op = ZB_AGG_SUM, .column = 1, .name = "sf"},
                   {.op = ZB_AGG_MEAN, .column = 0, .name = "mi"},
                   {.op = ZB_AGG_COUNT, .column = 1, .name = "cf"},
                   {.op = ZB_AGG_SIZE, .name = "n"},
                   {.op = ZB_AGG_MIN, .column = 0, .name = "lo"},
                   {.op = ZB_AGG_LAST, .column = 1, .name = "last"}};
  ZB_CHECK_OK(zb_table_groupby_segments(t, off, 7, aggs, &res, &err), &err);
  if (res != NULL) {
    for (int64_t g = 0; g < G; g++) {
      int64_t si = 0, ni = 0, cf = 0, lo = INT64_MAX, last = -1;
      double sf = 0;
      for (int64_t r = bounds[g]; r < bounds[g + 1]; r++) {
        if (r % 5 != 0) {
          si += ip[r];
          ni++;
          lo = ip[r] < lo ? ip[r] : lo;
        }
        if (fp[r] == fp[r]) {
          sf += fp[r];
          cf++;
          last = r;
        }
      }
      ZB_CHECK_EQ_INT(((int64_t *)res->columns[0]->data->data)[g], si);
      ZB_CHECK(((double *)res->columns[1]->data->data)[g] == sf);
      ZB_CHECK_EQ_INT(zb_column_is_valid(res->columns[2], g), ni > 0);
      if (ni > 0) ZB_CHECK(((double *)res->columns[2]->data->data)[g] == (double)si / ni);
      ZB_CHECK_EQ_INT(((int64_t *)res->columns[3]->data->data)[g], cf);
      ZB_CHECK_EQ_INT(((int64_t *)res->columns[4]->data->data)[g], bounds[g + 1] - bounds[g]);
      ZB_CHECK_EQ_INT(res->columns[5]->type, ZB_INT32);
      ZB_CHECK_EQ_INT(zb_column_is_valid(res->columns[5], g), ni > 0);
      if (ni > 0) ZB_CHECK_EQ_INT(((int32_t *)res->columns[5]->data->data)[g], lo);
      ZB_CHECK_EQ_INT(zb_column_is_valid(res->columns[6], g), last >= 0);
      if (last >= 0) ZB_CHECK(((double *)res->columns[6]->data->data)[g] == fp[last]);
    }
    zb_table_release(res);
    res = NULL;
  }
  /* offsets that decrease or leave the table: named */
  ((int64_t *)off->data->data)[2] = 2;
  ZB_CHECK_EQ_INT(zb_table_groupby_segments(t, off, 1, aggs, &res, &err), ZB_EINDEX);
  ZB_CHECK(res == NULL && strstr(err.message, "offset 2 is 2") != NULL);
  ((int64_t *)off->data->data)[2] = 10;
  ((int64_t *)off->data->data)[4] = n + 1;
  ZB_CHECK_EQ_INT(zb_table_groupby_segments(t, off, 1, aggs, &res, &err), ZB_EINDEX);
  ((int64_t *)off->data->data)[4] = n - 2;
  zb_agg med = {.op = ZB_AGG_MEDIAN, .column = 1};
  ZB_CHECK_EQ_INT(zb_table_groupby_segments(t, off, 1, &med, &res, &err), ZB_ENOTSUP);
  ZB_CHECK(strstr(err.message, "median of column 'f'") != NULL);
  bool done = false;
  for (int64_t k = 1; k < 200 && !done; k++) {
    zb_alloc_fail_after(k);
    zb_status st = zb_table_groupby_segments(t, off, 7, aggs, &res, &err);
    zb_alloc_fail_after(0);
    if (st == ZB_OK) {
      done = true;
      zb_table_release(res);
      res = NULL;
    } else {
      ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
      ZB_CHECK(res == NULL);
    }
  }
  ZB_CHECK(done);
  zb_table_release(t);
  zb_column_release(off);
  zb_column_release(iv);
  zb_column_release(fv);
}

/* sum and mean of group 0 and 1 of keys k and values v (n rows; v[nan_at]
 * NaN when nan_at >= 0), by zb_table_groupby, with threads threads. */
static void float_sums(const int64_t *k, const double *v, int64_t n, int64_t nan_at,
                       int threads, double out[4]) {
  zb_error err = {{0}};
  bool ok[8] = {true, true, true, true, true, true, true, true};
  double vv[8];
  memcpy(vv, v, (size_t)n * sizeof(double));
  if (nan_at >= 0) vv[nan_at] = NAN;
  zb_column *cols[2] = {col_i64(k, ok, n), col_f64(vv, ok, n)};
  const char *names[2] = {"k", "v"};
  zb_table *t = NULL, *res = NULL;
  ZB_CHECK_OK(zb_table_make(2, cols, names, &t, &err), &err);
  zb_agg aggs[] = {{.op = ZB_AGG_SUM, .column = 1, .name = "s"},
                   {.op = ZB_AGG_MEAN, .column = 1, .name = "m"}};
  int64_t key = 0;
  set_threads(threads);
  ZB_CHECK_OK(zb_table_groupby(t, 1, &key, true, true, 2, aggs, &res, &err), &err);
  set_threads(2);
  for (int i = 0; i < 4; i++) out[i] = NAN;
  if (res != NULL) {
    for (int g = 0; g < 2; g++) {
      out[g] = ((double *)res->columns[1]->data->data)[g];
      out[2 + g] = ((double *)res->columns[2]->data->data)[g];
    }
    zb_table_release(res);
  }
  zb_table_release(t);
  zb_column_release(cols[0]);
  zb_column_release(cols[1]);
}

ZB_TEST(groupby_float_digits) {
  /* pandas' digits, hand-computed: 1 + 1e16 - 1e16 is 1.0 as np.add.reduceat
   * adds a group whose rows lie together in a column without NaN (the first
   * value, plus the pairwise sum of the rest: 1 + (1e16 - 1e16)), and 0.0 as
   * pandas' Kahan loop adds it otherwise (1 + 1e16 rounds to 1e16, and the
   * compensation is not added back); any thread count */
  const double v[5] = {1.0, 1e16, -1e16, 2.0, 3.0};
  const int64_t sorted[5] = {0, 0, 0, 1, 1}, mixed[5] = {0, 1, 0, 1, 0};
  const double mv[5] = {1.0, 2.0, 1e16, 3.0, -1e16};
  for (int threads = 1; threads <= 3; threads += 2) {
    double r[4];
    float_sums(sorted, v, 5, -1, threads, r);
    ZB_CHECK(r[0] == 1.0 && r[1] == 5.0 && r[2] == 1.0 / 3 && r[3] == 2.5);
    float_sums(sorted, v, 5, 4, threads, r); /* a NaN: the Kahan loop */
    ZB_CHECK(r[0] == 0.0 && r[1] == 2.0 && r[2] == 0.0 && r[3] == 2.0);
    float_sums(mixed, mv, 5, -1, threads, r); /* rows not by group: the Kahan loop */
    ZB_CHECK(r[0] == 0.0 && r[1] == 5.0 && r[2] == 0.0 && r[3] == 2.5);
  }
}
