/*
 * test_strcodes.c -- plain string keys grouped through the string codes
 * (src/cpu/strcodes.c): group ids of one string key (first appearance,
 * sort, dropna) and the cast to categorical, against an oracle computed
 * here by sorting (string, row) pairs with qsort.  The strings are chosen
 * to trip a packed-key scheme: "" next to nulls, trailing NUL bytes,
 * lengths 15/16/17 around the packing limit, long strings sharing their
 * first 16 and 64 bytes, one byte different at every position.  Few
 * distinct strings take the per-worker tables; 300007 mostly distinct rows
 * at one thread take the partitioned tables.  Threads 1 and 3 give the
 * same ids, and failed allocations return ZB_ENOMEM with nothing leaked.
 */
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

/* Distinct string number x of a pool (len bytes into buf, up to 100). */
static int64_t pool_string(int64_t x, char *buf) {
  static const char base[] = "0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRST"
                             "UVWXYZ0123456789abcdefghijklmnopqrstuvwxyz";
  switch (x % 6) {
    case 0: { /* short, decimal; x == 0: "" */
      if (x == 0) return 0;
      int64_t l = 0;
      for (int64_t v = x; v > 0; v /= 10) buf[l++] = (char)('0' + v % 10);
      return l;
    }
    case 1: { /* 15, 16 or 17 bytes, one byte different */
      int64_t l = 15 + (x / 6) % 3, pos = (x / 18) % l;
      memcpy(buf, base, (size_t)l);
      buf[pos] = (char)('#' + (x / 18 / l) % 60);
      return l;
    }
    case 2: { /* 70 bytes sharing the first 64 */
      memcpy(buf, base, 64);
      for (int k = 0; k < 6; k++) buf[64 + k] = (char)('a' + (x / 6 >> (4 * k)) % 16);
      return 70;
    }
    case 3: { /* a trailing NUL: equal to case 0's string but for it */
      int64_t l = pool_string(x - 3, buf);
      buf[l] = '\0';
      return l + 1;
    }
    case 4: { /* 24 bytes sharing the first 16, the tail overlapping */
      memcpy(buf, base + 10, 16);
      for (int k = 0; k < 8; k++) buf[16 + k] = (char)('A' + (x / 6 >> (3 * k)) % 8);
      return 24;
    }
    default: { /* 1 to 8 bytes of a few letters */
      int64_t l = 1 + (x / 6) % 8;
      for (int64_t k = 0; k < l; k++) buf[k] = (char)('p' + (x / 6 / 8 >> k) % 3);
      return l;
    }
  }
}

typedef struct sdata {
  int64_t n;
  int64_t *off; /* n + 1 */
  char *chars;
  bool *ok;
  zb_column *col;
  zb_table *t;
} sdata;

static void sdata_make(sdata *d, int64_t n, int64_t card, uint64_t seed, double null_frac) {
  memset(d, 0, sizeof *d);
  d->n = n;
  d->off = malloc((size_t)(n + 1) * 8);
  d->chars = malloc((size_t)(n > 0 ? n : 1) * 100);
  d->ok = malloc((size_t)(n > 0 ? n : 1));
  d->off[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    d->ok[i] = (double)(rng(&seed) % 1000) >= null_frac * 1000;
    int64_t l = d->ok[i] ? pool_string((int64_t)(rng(&seed) % (uint64_t)card), d->chars + d->off[i]) : 0;
    d->off[i + 1] = d->off[i] + l;
  }
  zb_error err = {{0}};
  ZB_CHECK_OK(zb_column_new(ZB_STRING, n, true, d->off[n], &d->col, &err), &err);
  memcpy(d->col->data->data, d->off, (size_t)(n + 1) * 8);
  if (d->off[n] > 0) memcpy(d->col->chars->data, d->chars, (size_t)d->off[n]);
  for (int64_t i = 0; i < n; i++) zb_bit_set((uint8_t *)d->col->validity->data, i, d->ok[i]);
  zb_column_recount_nulls(d->col);
  const char *names[] = {"k"};
  ZB_CHECK_OK(zb_table_make(1, &d->col, names, &d->t, &err), &err);
}

static void sdata_free(sdata *d) {
  zb_table_release(d->t);
  zb_column_release(d->col);
  free(d->off);
  free(d->chars);
  free(d->ok);
}

static const sdata *g_cmp;

/* Nulls last, then bytes, then length, then row. */
static int cmp_rows(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  const sdata *d = g_cmp;
  if (d->ok[x] != d->ok[y]) return d->ok[x] ? -1 : 1;
  if (d->ok[x]) {
    int64_t lx = d->off[x + 1] - d->off[x], ly = d->off[y + 1] - d->off[y];
    int c = memcmp(d->chars + d->off[x], d->chars + d->off[y], (size_t)(lx < ly ? lx : ly));
    if (c != 0) return c;
    if (lx != ly) return lx < ly ? -1 : 1;
  }
  return x < y ? -1 : x > y;
}

/* The oracle: want[r] = row r's group (sort: by string, nulls last; else by
 * first appearance), -1 for a dropped null; returns the group count. */
static int64_t oracle(const sdata *d, bool dropna, bool sort, int64_t *want) {
  int64_t n = d->n;
  int64_t *idx = malloc((size_t)(n > 0 ? n : 1) * 8);
  int64_t *rank = malloc((size_t)(n > 0 ? n : 1) * 8);  /* sorted group of each row */
  int64_t *firstrow = malloc((size_t)(n > 0 ? n : 1) * 8);
  for (int64_t i = 0; i < n; i++) idx[i] = i;
  g_cmp = d;
  qsort(idx, (size_t)n, 8, cmp_rows);
  int64_t G = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t r = idx[i];
    bool same = false;
    if (i > 0) {
      int64_t p = idx[i - 1];
      int64_t lp = d->off[p + 1] - d->off[p], lr = d->off[r + 1] - d->off[r];
      same = d->ok[p] == d->ok[r] &&
             (!d->ok[r] || (lp == lr && memcmp(d->chars + d->off[p], d->chars + d->off[r],
                                               (size_t)lr) == 0));
    }
    if (!same) firstrow[G++] = r; /* the smallest row: rows ascend among equals */
    rank[r] = G - 1;
  }
  /* first appearance: groups ordered by first row */
  int64_t *order = malloc((size_t)(G > 0 ? G : 1) * 8);
  int64_t *pos = malloc((size_t)(G > 0 ? G : 1) * 8);
  int64_t k = 0;
  for (int64_t r = 0; r < n; r++)
    if (firstrow[rank[r]] == r) order[k++] = rank[r];
  for (int64_t g = 0; g < G; g++) pos[order[g]] = g;
  int64_t out_g = 0;
  bool has_null = false;
  for (int64_t r = 0; r < n; r++) has_null |= !d->ok[r];
  for (int64_t r = 0; r < n; r++) {
    if (!d->ok[r] && dropna) {
      want[r] = -1;
      continue;
    }
    int64_t g = sort ? rank[r] : pos[rank[r]];
    if (dropna && has_null && !sort) { /* the null group's place is gone */
      int64_t null_rank = G - 1, null_pos = pos[null_rank];
      if (g > null_pos) g--;
    }
    want[r] = g;
  }
  out_g = G - (dropna && has_null ? 1 : 0);
  free(idx);
  free(rank);
  free(firstrow);
  free(order);
  free(pos);
  return out_g;
}

static void check_ids(const sdata *d, const char *what) {
  int64_t *want = malloc((size_t)(d->n > 0 ? d->n : 1) * 8);
  for (int v = 0; v < 4; v++) {
    bool dropna = v & 1, sort = v & 2;
    int64_t G = oracle(d, dropna, sort, want);
    zb_error err = {{0}};
    zb_column *ids = NULL;
    int64_t ng = -1, key = 0;
    ZB_CHECK_OK(zb_table_group_ids(d->t, 1, &key, dropna, sort, &ids, &ng, &err), &err);
    ZB_CHECK_EQ_INT(ng, G);
    int64_t bad = 0;
    for (int64_t r = 0; r < d->n; r++) {
      int64_t got = zb_column_is_valid(ids, r) ? ((const int64_t *)ids->data->data)[r] : -1;
      if (got != want[r] && bad++ < 3)
        zb_test_fail(__FILE__, __LINE__, "%s dropna=%d sort=%d row %lld: %lld, want %lld",
                     what, dropna, sort, (long long)r, (long long)got, (long long)want[r]);
    }
    zb_column_release(ids);
  }
  free(want);
}

static void check_cast(const sdata *d, const char *what) {
  zb_error err = {{0}};
  zb_column *cat = NULL;
  ZB_CHECK_OK(zb_column_cast(d->col, ZB_CATEGORICAL, ZB_NANO, &cat, &err), &err);
  if (cat == NULL) return;
  const zb_column *dict = cat->dictionary;
  const int64_t *doff = (const int64_t *)dict->data->data + dict->offset;
  const char *dch = dict->chars != NULL ? (const char *)dict->chars->data : "";
  int64_t bad = 0;
  for (int64_t r = 0; r < d->n; r++) {
    ZB_CHECK_EQ_INT(zb_column_is_valid(cat, r), d->ok[r]);
    if (!d->ok[r]) continue;
    int32_t c = ((const int32_t *)cat->data->data)[r];
    int64_t l = doff[c + 1] - doff[c], lr = d->off[r + 1] - d->off[r];
    if ((l != lr || memcmp(dch + doff[c], d->chars + d->off[r], (size_t)l) != 0) && bad++ < 3)
      zb_test_fail(__FILE__, __LINE__, "%s: cast row %lld has the wrong category", what,
                   (long long)r);
  }
  /* categories in byte order */
  for (int64_t c = 1; c < dict->length; c++) {
    int64_t la = doff[c] - doff[c - 1], lb = doff[c + 1] - doff[c];
    int m = memcmp(dch + doff[c - 1], dch + doff[c], (size_t)(la < lb ? la : lb));
    ZB_CHECK(m < 0 || (m == 0 && la < lb));
  }
  zb_column_release(cat);
}

ZB_TEST(strcodes_group_ids_few_distinct) {
  static const int64_t sizes[] = {0, 1, 2, 1000, 200003};
  static const int64_t cards[] = {1, 7, 600, 5000};
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
    for (size_t ci = 0; ci < sizeof cards / sizeof *cards; ci++) {
      if (sizes[si] > 2000 && cards[ci] < 600) continue;
      sdata d;
      sdata_make(&d, sizes[si], cards[ci], 7 + si * 31 + ci, 0.1);
      char what[64];
      snprintf(what, sizeof what, "n=%lld card=%lld", (long long)sizes[si],
               (long long)cards[ci]);
      for (int th = 1; th <= 3; th += 2) {
        set_threads(th);
        check_ids(&d, what);
        check_cast(&d, what);
      }
      set_threads(2);
      sdata_free(&d);
    }
}

ZB_TEST(strcodes_group_ids_many_distinct) {
  /* one thread: more distinct strings than one worker's table takes */
  sdata d;
  sdata_make(&d, 300007, 1000000000, 99, 0.02);
  set_threads(1);
  check_ids(&d, "many distinct, 1 thread");
  set_threads(3);
  check_ids(&d, "many distinct, 3 threads");
  set_threads(2);
  sdata_free(&d);
}

ZB_TEST(strcodes_fault_injection) {
  for (int variant = 0; variant < 2; variant++) {
    sdata d;
    sdata_make(&d, variant == 0 ? 3000 : 280000, variant == 0 ? 50 : 1000000000, 5, 0.1);
    set_threads(variant == 0 ? 3 : 1);
    bool done = false;
    for (int64_t k = 1; k < 400 && !done; k++) {
      zb_error err = {{0}};
      zb_column *ids = NULL, *cat = NULL;
      int64_t ng = 0, key = 0;
      zb_alloc_fail_after(k);
      zb_status st = zb_table_group_ids(d.t, 1, &key, false, variant == 1, &ids, &ng, &err);
      zb_alloc_fail_after(0);
      if (st == ZB_OK) {
        done = true;
      } else {
        ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
        ZB_CHECK(ids == NULL);
      }
      zb_column_release(ids);
      zb_alloc_fail_after(k);
      st = zb_column_cast(d.col, ZB_CATEGORICAL, ZB_NANO, &cat, &err);
      zb_alloc_fail_after(0);
      if (st != ZB_OK) ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
      zb_column_release(cat);
    }
    if (!done) zb_test_fail(__FILE__, __LINE__, "variant %d never succeeded", variant);
    set_threads(2);
    sdata_free(&d);
  }
}

/* A categorical's unique/nunique/value_counts group its codes directly only
 * when its dictionary's strings are distinct; the answer is computed once
 * and kept on the dictionary. */
ZB_TEST(strcodes_categorical_dictionary_distinct_once) {
  zb_error err = {{0}};
  const char *words[] = {"p", "q", "s", "p"}; /* with the fourth: "p" twice */
  static const int32_t rows[] = {0, 1, 2, 3, 2, 0, 1, 3, 3, 0};
  for (int repeat = 0; repeat < 2; repeat++) {
    int64_t nd = repeat ? 4 : 3, n = 10;
    zb_column *dict = NULL, *codes = NULL, *cat = NULL, *uniq = NULL;
    ZB_CHECK_OK(zb_column_new(ZB_STRING, nd, false, 8, &dict, &err), &err);
    int64_t *off = (int64_t *)dict->data->data;
    off[0] = 0;
    for (int64_t k = 0; k < nd; k++) {
      int64_t l = (int64_t)strlen(words[k]);
      memcpy((char *)dict->chars->data + off[k], words[k], (size_t)l);
      off[k + 1] = off[k] + l;
    }
    ZB_CHECK_OK(zb_column_new(ZB_INT32, n, false, 0, &codes, &err), &err);
    for (int64_t r = 0; r < n; r++) ((int32_t *)codes->data->data)[r] = rows[r] % (int32_t)nd;
    ZB_CHECK_OK(zb_column_make(ZB_CATEGORICAL, n, 0, NULL, codes->data, NULL, dict, 0, &cat,
                               &err), &err);
    /* oracle: the distinct strings of the rows */
    const char *seen[4];
    int64_t nseen = 0;
    for (int64_t r = 0; r < n; r++) {
      const char *w = words[rows[r] % nd];
      int64_t g = 0;
      while (g < nseen && strcmp(seen[g], w) != 0) g++;
      if (g == nseen) seen[nseen++] = w;
    }
    ZB_CHECK_EQ_INT(dict->distinct, 0);
    for (int pass = 0; pass < 2; pass++) { /* the second pass reads the kept answer */
      int64_t k = -1;
      ZB_CHECK_OK(zb_column_nunique(cat, true, &k, &err), &err);
      ZB_CHECK_EQ_INT(k, nseen);
      ZB_CHECK_EQ_INT(dict->distinct, repeat ? 2 : 1);
      ZB_CHECK_OK(zb_column_unique(cat, &uniq, &err), &err);
      ZB_CHECK_EQ_INT(uniq->length, nseen);
      zb_column_release(uniq);
    }
    zb_column_release(cat);
    zb_column_release(codes);
    zb_column_release(dict);
  }
}
