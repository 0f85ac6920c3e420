/*
 * test_join.c -- tests of zb_table_join_indices (zambezi/join.h) against a
 * plain oracle (each row's keys as canonical text, matched through hash
 * buckets): every join kind, one and two keys, int64, int32-vs-int64,
 * string+int, categorical-vs-string and float (NaN) keys, nulls,
 * duplicates on both sides, empty sides, build sides in one table and
 * radix-partitioned, thread counts 1 and 3 giving identical results, the
 * sorted (outer) order, argument errors, and fault-injection loops; and
 * keys strictly increasing on both sides (the merge join of
 * src/cpu/merge_join.c), whose outer pairs must come in key order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "zambezi/compute.h"
#include "zambezi/join.h"

static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static void set_threads(int n) {
  zb_error err = {{0}};
  ZB_CHECK_OK(zb_set_num_threads(n, &err), &err);
}

/* ---- column builders ------------------------------------------------------ */

/* n random values in [0, card) of type t (int32/int64/uint64/float64), seen
 * through a slice at offset 3; about one row in `null_one_in` null (0: none);
 * floats get NaN and -0.0 sprinkled in. */
static zb_column *make_num(zb_type_id t, int64_t n, uint64_t seed, int null_one_in, int64_t card) {
  zb_error err = {{0}};
  const int64_t off = 3;
  zb_column *base = NULL, *s = NULL;
  ZB_CHECK_OK(zb_column_new(t, n + off, true, 0, &base, &err), &err);
  if (base == NULL) return NULL;
  void *d = base->data->data;
  for (int64_t p = 0; p < n + off; p++) {
    uint64_t r = rng_next(&seed);
    int64_t x = (int64_t)(r % (uint64_t)card);
    switch (t) {
      case ZB_INT32: ((int32_t *)d)[p] = (int32_t)x; break;
      case ZB_INT64: ((int64_t *)d)[p] = x - card / 3; break;
      case ZB_UINT64: ((uint64_t *)d)[p] = (uint64_t)x; break;
      case ZB_FLOAT64: {
        double f = (double)x / 2;
        int k = (int)((r >> 40) % 16);
        if (k == 0) f = NAN;
        if (k == 1) f = -0.0;
        ((double *)d)[p] = f;
        break;
      }
      default: break;
    }
    if (null_one_in > 0 && (r >> 48) % (uint64_t)null_one_in == 0)
      zb_bit_set((uint8_t *)base->validity->data, p, false);
  }
  zb_column_recount_nulls(base);
  ZB_CHECK_OK(zb_column_slice(base, off, n, &s, &err), &err);
  zb_column_release(base);
  return s;
}

/* Strings "w<k>" for k < card ("" for k == 0), offset 3, about one row in
 * `null_one_in` null (0: none). */
static zb_column *make_str(int64_t n, uint64_t seed, int null_one_in, int64_t card) {
  zb_error err = {{0}};
  const int64_t off = 3;
  char buf[32];
  int64_t total = 0;
  uint64_t s0 = seed;
  for (int64_t p = 0; p < n + off; p++) {
    int64_t k = (int64_t)(rng_next(&seed) % (uint64_t)card);
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
    if (null_one_in > 0 && (r >> 48) % (uint64_t)null_one_in == 0)
      zb_bit_set((uint8_t *)base->validity->data, p, false);
  }
  zb_column_recount_nulls(base);
  ZB_CHECK_OK(zb_column_slice(base, off, n, &s, &err), &err);
  zb_column_release(base);
  return s;
}

static zb_column *cast(zb_column *c, zb_type_id t) {
  zb_error err = {{0}};
  zb_column *o = NULL;
  ZB_CHECK_OK(zb_column_cast(c, t, ZB_MICRO, &o, &err), &err);
  return o;
}

static zb_table *make_table(int64_t n, zb_column **cols, const char *const *names) {
  zb_error err = {{0}};
  zb_table *t = NULL;
  ZB_CHECK_OK(zb_table_make(n, cols, names, &t, &err), &err);
  for (int64_t i = 0; i < n; i++) zb_column_release(cols[i]);
  return t;
}

/* ---- the oracle ------------------------------------------------------------- */

/* A canonical text of row i's keys (NULL when a key is null): integers and
 * floats by value ("%.17g" prints integral floats like integers, -0 as 0,
 * NaN as "nan"), strings and categoricals by their bytes. */
/* Whether the join under test matches null keys with each other (pandas'
 * merge): a null key part is then the token <null>, unlike any value. */
static bool g_nulls_match = false;

static char *key_text(const zb_table *t, int64_t nk, const int64_t *keys, int64_t i) {
  char buf[512];
  size_t used = 0;
  for (int64_t k = 0; k < nk; k++) {
    const zb_column *c = t->columns[keys[k]];
    if (!zb_column_is_valid(c, i)) {
      if (!g_nulls_match) return NULL; /* a null key matches nothing */
      used += (size_t)snprintf(buf + used, sizeof buf - used, "<null>\x1f");
      continue;
    }
    int64_t p = c->offset + i;
    const void *d = c->data->data;
    char v[128];
    switch (c->type) {
      case ZB_INT8: snprintf(v, sizeof v, "%d", ((const int8_t *)d)[p]); break;
      case ZB_INT32:
      case ZB_DATE32: snprintf(v, sizeof v, "%d", ((const int32_t *)d)[p]); break;
      case ZB_INT64:
      case ZB_TIMESTAMP: snprintf(v, sizeof v, "%lld", (long long)((const int64_t *)d)[p]); break;
      case ZB_UINT64:
        snprintf(v, sizeof v, "%llu", (unsigned long long)((const uint64_t *)d)[p]);
        break;
      case ZB_FLOAT64: {
        double f = ((const double *)d)[p];
        if (isnan(f)) snprintf(v, sizeof v, "nan");
        else snprintf(v, sizeof v, "%.17g", f == 0 ? 0.0 : f);
        break;
      }
      default: { /* string or categorical */
        const zb_column *s = c;
        int64_t row = i;
        if (c->type == ZB_CATEGORICAL) {
          row = ((const int32_t *)d)[p];
          s = c->dictionary;
        }
        const int64_t *o = (const int64_t *)s->data->data + s->offset + row;
        int l = (int)(o[1] - o[0]);
        snprintf(v, sizeof v, "'%.*s'", l, (const char *)s->chars->data + o[0]);
      }
    }
    used += (size_t)snprintf(buf + used, sizeof buf - used, "%s\x1f", v);
  }
  char *r = (char *)malloc(used + 1);
  memcpy(r, buf, used + 1);
  return r;
}

typedef struct oracle {
  int64_t nl, nr;
  int64_t *moff, *match; /* CSR: right matches of each left row, in right order */
  int64_t *rcount;       /* left matches of each right row */
} oracle;

static uint64_t text_hash(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

static void oracle_build(oracle *o, const zb_table *l, const zb_table *r, int64_t nk,
                         const int64_t *lk, const int64_t *rk) {
  o->nl = l->num_rows;
  o->nr = r->num_rows;
  char **lt = (char **)calloc((size_t)o->nl + 1, sizeof(char *));
  char **rt = (char **)calloc((size_t)o->nr + 1, sizeof(char *));
  uint64_t *lh = (uint64_t *)calloc((size_t)o->nl + 1, 8), *rh = (uint64_t *)calloc((size_t)o->nr + 1, 8);
  for (int64_t i = 0; i < o->nl; i++) {
    lt[i] = key_text(l, nk, lk, i);
    if (lt[i]) lh[i] = text_hash(lt[i]);
  }
  for (int64_t i = 0; i < o->nr; i++) {
    rt[i] = key_text(r, nk, rk, i);
    if (rt[i]) rh[i] = text_hash(rt[i]);
  }
  /* right rows by hash bucket, each bucket's list in ascending row order
   * (rows pushed from the last), so each left row scans only its bucket */
  int64_t nb = 1;
  while (nb < 2 * o->nr + 1) nb *= 2;
  int64_t *bucket = (int64_t *)malloc((size_t)nb * 8), *next = (int64_t *)malloc((size_t)o->nr * 8 + 8);
  for (int64_t b = 0; b < nb; b++) bucket[b] = -1;
  for (int64_t j = o->nr - 1; j >= 0; j--) {
    if (rt[j] == NULL) continue;
    int64_t b = (int64_t)(rh[j] & (uint64_t)(nb - 1));
    next[j] = bucket[b];
    bucket[b] = j;
  }
  int64_t cap = 1024, n = 0;
  o->match = (int64_t *)malloc((size_t)cap * 8);
  o->moff = (int64_t *)malloc((size_t)(o->nl + 1) * 8);
  o->rcount = (int64_t *)calloc((size_t)o->nr + 1, 8);
  for (int64_t i = 0; i < o->nl; i++) {
    o->moff[i] = n;
    if (lt[i] == NULL) continue;
    for (int64_t j = bucket[lh[i] & (uint64_t)(nb - 1)]; j >= 0; j = next[j]) {
      if (rh[j] != lh[i] || strcmp(lt[i], rt[j]) != 0) continue;
      if (n == cap) o->match = (int64_t *)realloc(o->match, (size_t)(cap *= 2) * 8);
      o->match[n++] = j;
      o->rcount[j]++;
    }
  }
  o->moff[o->nl] = n;
  free(bucket);
  free(next);
  for (int64_t i = 0; i < o->nl; i++) free(lt[i]);
  for (int64_t i = 0; i < o->nr; i++) free(rt[i]);
  free(lt);
  free(rt);
  free(lh);
  free(rh);
}

static void oracle_free(oracle *o) {
  free(o->moff);
  free(o->match);
  free(o->rcount);
}

/* Expected pairs (unsorted order of join.h) into *L / *R (malloc'd; -1 = no
 * row); returns the count. */
static int64_t oracle_pairs(const oracle *o, zb_join_how how, int64_t **L, int64_t **R) {
  int64_t cap = 16 + o->moff[o->nl] + o->nl + o->nr;
  if (how == ZB_JOIN_CROSS) cap += o->nl * o->nr;
  int64_t *l = (int64_t *)malloc((size_t)cap * 8), *r = (int64_t *)malloc((size_t)cap * 8);
  int64_t n = 0;
  switch (how) {
    case ZB_JOIN_CROSS:
      for (int64_t i = 0; i < o->nl; i++)
        for (int64_t j = 0; j < o->nr; j++) l[n] = i, r[n++] = j;
      break;
    case ZB_JOIN_RIGHT: {
      /* the matches regrouped by right row (left rows ascending): per right
       * row j, its slice [roff[j], roff[j + 1]) of rl */
      int64_t *roff = (int64_t *)calloc((size_t)o->nr + 1, 8);
      int64_t *rl = (int64_t *)malloc((size_t)o->moff[o->nl] * 8 + 8);
      for (int64_t j = 0; j < o->nr; j++) roff[j + 1] = roff[j] + o->rcount[j];
      int64_t *fill = (int64_t *)malloc((size_t)o->nr * 8 + 8);
      memcpy(fill, roff, (size_t)o->nr * 8);
      for (int64_t i = 0; i < o->nl; i++)
        for (int64_t m = o->moff[i]; m < o->moff[i + 1]; m++) rl[fill[o->match[m]]++] = i;
      for (int64_t j = 0; j < o->nr; j++) {
        for (int64_t k = roff[j]; k < roff[j + 1]; k++) l[n] = rl[k], r[n++] = j;
        if (roff[j + 1] == roff[j]) l[n] = -1, r[n++] = j;
      }
      free(roff);
      free(rl);
      free(fill);
      break;
    }
    case ZB_JOIN_SEMI:
    case ZB_JOIN_ANTI:
      for (int64_t i = 0; i < o->nl; i++)
        if ((o->moff[i + 1] > o->moff[i]) == (how == ZB_JOIN_SEMI)) l[n] = i, r[n++] = -1;
      break;
    default:
      for (int64_t i = 0; i < o->nl; i++) {
        for (int64_t m = o->moff[i]; m < o->moff[i + 1]; m++) l[n] = i, r[n++] = o->match[m];
        if (how != ZB_JOIN_INNER && o->moff[i + 1] == o->moff[i]) l[n] = i, r[n++] = -1;
      }
      if (how == ZB_JOIN_OUTER)
        for (int64_t j = 0; j < o->nr; j++)
          if (o->rcount[j] == 0) l[n] = -1, r[n++] = j;
  }
  *L = l;
  *R = r;
  return n;
}

static int64_t idx_at(const zb_column *c, int64_t i) {
  if (!zb_column_is_valid(c, i)) return -1;
  return ((const int64_t *)c->data->data)[c->offset + i];
}

static int cmp_pair(const void *a, const void *b) {
  const int64_t *x = (const int64_t *)a, *y = (const int64_t *)b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  if (x[1] != y[1]) return x[1] < y[1] ? -1 : 1;
  return 0;
}

/* Check li/ri against the expected pairs: exactly (same order), or as a
 * multiset when `multiset`.  Returns true when equal. */
static bool pairs_match(const zb_column *li, const zb_column *ri, const int64_t *L,
                        const int64_t *R, int64_t n, bool multiset) {
  if (li == NULL || li->length != n) return false;
  if (ri != NULL && ri->length != n) return false;
  int64_t *a = (int64_t *)malloc((size_t)(2 * n + 2) * 8), *b = (int64_t *)malloc((size_t)(2 * n + 2) * 8);
  for (int64_t i = 0; i < n; i++) {
    a[2 * i] = idx_at(li, i);
    a[2 * i + 1] = ri ? idx_at(ri, i) : -1;
    b[2 * i] = L[i];
    b[2 * i + 1] = R[i];
  }
  if (multiset) {
    qsort(a, (size_t)n, 16, cmp_pair);
    qsort(b, (size_t)n, 16, cmp_pair);
  }
  bool ok = memcmp(a, b, (size_t)n * 16) == 0;
  free(a);
  free(b);
  return ok;
}

/* ---- tests ------------------------------------------------------------------ */

static const zb_join_how k_hows[] = {ZB_JOIN_INNER, ZB_JOIN_LEFT, ZB_JOIN_RIGHT, ZB_JOIN_OUTER,
                                     ZB_JOIN_SEMI,  ZB_JOIN_ANTI};

/* Join l and r every way at 1 and 3 threads and compare with the oracle. */
static void check_all(const zb_table *l, const zb_table *r, int64_t nk, const int64_t *lk,
                      const int64_t *rk, const char *what) {
  zb_error err = {{0}};
  for (int nm = 0; nm < 2; nm++) {
    g_nulls_match = nm == 1;
    oracle o;
    oracle_build(&o, l, r, nk, lk, rk);
    for (int h = 0; h < 6; h++) {
      zb_join_how how = k_hows[h];
      int64_t *L, *R;
      int64_t n = oracle_pairs(&o, how, &L, &R);
      zb_column *first_l = NULL;
      for (int threads = 1; threads <= 3; threads += 2) {
        set_threads(threads);
        zb_column *li = NULL, *ri = NULL;
        ZB_CHECK_OK(
            zb_table_join_indices(l, r, nk, lk, rk, how, false, g_nulls_match, &li, &ri, &err),
            &err);
        bool semi = how == ZB_JOIN_SEMI || how == ZB_JOIN_ANTI;
        ZB_CHECK(semi == (ri == NULL));
        /* outer is sorted by key: same pairs, another order */
        if (!pairs_match(li, ri, L, R, n, how == ZB_JOIN_OUTER))
          zb_test_fail(__FILE__, __LINE__, "%s: how=%s threads=%d nulls_match=%d: %lld rows, want %lld",
                       what, zb_join_how_name(how), threads, nm, (long long)(li ? li->length : -1),
                       (long long)n);
        if (threads == 1) {
          first_l = li;
          li = NULL;
        } else if (first_l != NULL && li != NULL) {
          for (int64_t i = 0; i < li->length && i < first_l->length; i++)
            if (idx_at(li, i) != idx_at(first_l, i)) {
              zb_test_fail(__FILE__, __LINE__, "%s: thread counts differ at %lld", what,
                           (long long)i);
              break;
            }
        }
        zb_column_release(li);
        zb_column_release(ri);
      }
      zb_column_release(first_l);
      free(L);
      free(R);
    }
    oracle_free(&o);
  }
  g_nulls_match = false;
  set_threads(zb_available_cores());
}

static const int64_t k_sizes[][2] = {{0, 0}, {0, 7}, {7, 0}, {1, 1}, {250, 180}, {2000, 1500}};

ZB_TEST(test_join_int64) {
  for (size_t s = 0; s < sizeof k_sizes / sizeof k_sizes[0]; s++) {
    for (uint64_t seed = 1; seed <= 2; seed++) {
      int64_t nl = k_sizes[s][0], nr = k_sizes[s][1];
      int64_t card = seed == 1 ? (nl + nr) / 2 + 1 : 5; /* few keys: many duplicates */
      zb_column *lc[2] = {make_num(ZB_INT64, nl, seed, 8, card),
                          make_num(ZB_INT64, nl, seed + 9, 0, 100)};
      zb_column *rc[2] = {make_num(ZB_INT64, nr, seed + 100, 8, card),
                          make_num(ZB_INT64, nr, seed + 7, 0, 100)};
      const char *ln[2] = {"k", "v"}, *rn[2] = {"v", "key"};
      zb_table *l = make_table(2, lc, ln), *r = make_table(2, rc, rn);
      int64_t lk = 0, rk = 0;
      check_all(l, r, 1, &lk, &rk, "int64");
      zb_table_release(l);
      zb_table_release(r);
    }
  }
}

ZB_TEST(test_join_mixed_keys) {
  for (size_t s = 0; s < sizeof k_sizes / sizeof k_sizes[0]; s++) {
    int64_t nl = k_sizes[s][0], nr = k_sizes[s][1];
    uint64_t seed = 40 + s;
    /* int32 vs int64, string + int, categorical vs string, float64 (NaN) */
    zb_column *i32 = make_num(ZB_INT32, nl, seed, 8, 30);
    zb_column *i32r = make_num(ZB_INT32, nr, seed + 1, 8, 30);
    zb_column *lc[4] = {i32, make_str(nl, seed + 2, 8, 6), make_str(nl, seed + 3, 8, 20),
                        make_num(ZB_FLOAT64, nl, seed + 4, 8, 12)};
    zb_column *scat = make_str(nr, seed + 5, 8, 20);
    zb_column *rc[4] = {cast(i32r, ZB_INT64), make_str(nr, seed + 6, 8, 6), scat,
                        make_num(ZB_FLOAT64, nr, seed + 7, 8, 12)};
    zb_column_release(i32r);
    zb_column *lcat = cast(lc[2], ZB_CATEGORICAL);
    zb_column_release(lc[2]);
    lc[2] = lcat;
    const char *ln[4] = {"a", "b", "c", "d"}, *rn[4] = {"A", "B", "C", "D"};
    zb_table *l = make_table(4, lc, ln), *r = make_table(4, rc, rn);
    int64_t k0 = 0, k2 = 2, k3 = 3, two_l[2] = {1, 0}, two_r[2] = {1, 0};
    check_all(l, r, 1, &k0, &k0, "int32 vs int64");
    check_all(l, r, 2, two_l, two_r, "string + int");
    check_all(l, r, 1, &k2, &k2, "categorical vs string");
    check_all(l, r, 1, &k3, &k3, "float64");
    int64_t three[3] = {2, 3, 0};
    check_all(l, r, 3, three, three, "three keys");
    /* categorical vs categorical, same dictionary (both sides of one table) */
    check_all(l, l, 1, &k2, &k2, "categorical same dictionary");
    zb_table_release(l);
    zb_table_release(r);
  }
}

/* Build sides in one table (up to 65536 rows) and partitioned (more):
 * int64 keys with many repeats (chains across partitions) and almost none
 * (most partitions without a repeated key), and string keys (compared by
 * row). */
ZB_TEST(test_join_large) {
  const int64_t sizes[2][2] = {{12000, 20000}, {70000, 90000}};
  for (int z = 0; z < 2; z++) {
    int64_t nl = sizes[z][0], nr = sizes[z][1];
    for (int v = 0; v < 3; v++) {
      int64_t card = v == 1 ? 50 * nr : 30000;
      /* nulls rare: when nulls match, every null pairs with every null of
       * the other side (one in 8 would make 10^8 pairs per join) */
      const int nulls = 512;
      zb_column *lc[1], *rc[1];
      if (v == 2) {
        lc[0] = make_str(nl, 5, nulls, 30000);
        rc[0] = make_str(nr, 6, nulls, 30000);
      } else {
        lc[0] = make_num(ZB_INT64, nl, 5, nulls, card);
        rc[0] = make_num(ZB_INT64, nr, 6, nulls, card);
      }
      const char *n[1] = {"k"};
      zb_table *l = make_table(1, lc, n), *r = make_table(1, rc, n);
      int64_t k = 0;
      check_all(l, r, 1, &k, &k, v == 2 ? "large strings" : "large int64");
      check_all(r, l, 1, &k, &k, v == 2 ? "large strings swapped" : "large int64 swapped");
      zb_table_release(l);
      zb_table_release(r);
    }
  }
}

/* n strictly increasing values of type t (int8, int32, date32, int64,
 * uint64, timestamp) from about `start`, gaps of 1 to 3 (so both sides of
 * a join share about half their keys), offset 3; with `dup` row n / 2
 * repeats the row before it (not increasing: the hash join answers). */
static zb_column *make_rising(zb_type_id t, int64_t n, uint64_t seed, int64_t start, bool dup) {
  zb_error err = {{0}};
  const int64_t off = 3;
  zb_column *base = NULL, *s = NULL;
  ZB_CHECK_OK(zb_column_new(t, n + off, false, 0, &base, &err), &err);
  if (base == NULL) return NULL;
  if (t == ZB_TIMESTAMP) base->unit = ZB_NANO;
  void *d = base->data->data;
  int64_t x = start;
  for (int64_t p = 0; p < n + off; p++) {
    x += 1 + (int64_t)(rng_next(&seed) % 3);
    int64_t v = dup && p == off + n / 2 && n > 1 ? x - 1 : x;
    if (dup && p == off + n / 2 && n > 1) x--;
    switch (t) {
      case ZB_INT8: ((int8_t *)d)[p] = (int8_t)v; break;
      case ZB_INT32:
      case ZB_DATE32: ((int32_t *)d)[p] = (int32_t)v; break;
      case ZB_UINT64: ((uint64_t *)d)[p] = (uint64_t)v; break;
      default: ((int64_t *)d)[p] = v; break;
    }
  }
  ZB_CHECK_OK(zb_column_slice(base, off, n, &s, &err), &err);
  zb_column_release(base);
  return s;
}

/* The outer join's pairs come in nondecreasing key order (the coalesced key
 * of each row), for keys of type int64 read as int64. */
static bool outer_in_order(const zb_table *l, const zb_table *r, const zb_column *li,
                           const zb_column *ri) {
  const zb_column *a = l->columns[0], *b = r->columns[0];
  int64_t prev = INT64_MIN;
  for (int64_t i = 0; i < li->length; i++) {
    int64_t x = idx_at(li, i) >= 0 ? ((const int64_t *)a->data->data)[a->offset + idx_at(li, i)]
                                   : ((const int64_t *)b->data->data)[b->offset + idx_at(ri, i)];
    if (i > 0 && x < prev) return false;
    prev = x;
  }
  return true;
}

ZB_TEST(test_join_sorted_unique_keys) {
  zb_error err = {{0}};
  const zb_type_id types[] = {ZB_INT64, ZB_INT32, ZB_UINT64, ZB_TIMESTAMP, ZB_DATE32, ZB_INT8};
  /* sizes around the merge's 65536-row chunks, and sides that do not overlap */
  const int64_t sizes[][3] = {{0, 5, 0},       {5, 0, 0},      {1, 1, 0},      {60, 40, 0},
                              {60, 40, 1000},  {60, 40, -1000}, {140000, 150000, 0},
                              {200000, 30, 5}, {30, 200000, 5}};
  for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
      int64_t nl = sizes[si][0], nr = sizes[si][1], shift = sizes[si][2];
      bool big = nl + nr > 1000;
      if (types[ti] == ZB_INT8 && (nl > 40 || nr > 40 || shift != 0)) continue;
      if (big && types[ti] != ZB_INT64) continue; /* the oracle is slow */
      for (int dup = 0; dup < (big ? 1 : 2); dup++) {
        int64_t base = types[ti] == ZB_INT8 ? -120 : 1000;
        zb_column *lc[1] = {make_rising(types[ti], nl, 3 + si, base, dup == 1)};
        zb_column *rc[1] = {make_rising(types[ti], nr, 50 + si, base + shift * 3, false)};
        const char *n[1] = {"k"};
        zb_table *l = make_table(1, lc, n), *r = make_table(1, rc, n);
        int64_t k = 0;
        check_all(l, r, 1, &k, &k, dup ? "rising keys, one repeat" : "rising keys");
        if (!big)
          check_all(r, l, 1, &k, &k, dup ? "rising keys, one repeat, swapped" : "rising keys, swapped");
        if (types[ti] == ZB_INT64 || types[ti] == ZB_TIMESTAMP) {
          for (int threads = 1; threads <= 3; threads += 2) {
            set_threads(threads);
            zb_column *li = NULL, *ri = NULL;
            ZB_CHECK_OK(zb_table_join_indices(l, r, 1, &k, &k, ZB_JOIN_OUTER, false, false, &li,
                                              &ri, &err),
                        &err);
            ZB_CHECK(li != NULL && ri != NULL && outer_in_order(l, r, li, ri));
            zb_column_release(li);
            zb_column_release(ri);
          }
          set_threads(zb_available_cores());
        }
        zb_table_release(l);
        zb_table_release(r);
      }
    }
  }
}

ZB_TEST(test_join_cross_and_sort) {
  zb_error err = {{0}};
  zb_column *lc[1] = {make_num(ZB_INT64, 37, 11, 8, 10)};
  zb_column *rc[1] = {make_num(ZB_INT64, 23, 12, 8, 10)};
  const char *n[1] = {"k"};
  zb_table *l = make_table(1, lc, n), *r = make_table(1, rc, n);
  int64_t k = 0;
  oracle o;
  oracle_build(&o, l, r, 1, &k, &k);
  int64_t *L, *R;
  int64_t cnt = oracle_pairs(&o, ZB_JOIN_CROSS, &L, &R);
  for (int threads = 1; threads <= 3; threads += 2) {
    set_threads(threads);
    zb_column *li = NULL, *ri = NULL;
    ZB_CHECK_OK(zb_table_join_indices(l, r, 0, NULL, NULL, ZB_JOIN_CROSS, false, false, &li, &ri, &err),
                &err);
    ZB_CHECK(pairs_match(li, ri, L, R, cnt, false));
    zb_column_release(li);
    zb_column_release(ri);
  }
  free(L);
  free(R);
  /* sorted joins: keys (coalesced) ascending, nulls last, ties in unsorted order */
  for (int h = 0; h < 6; h++) {
    zb_join_how how = k_hows[h];
    int64_t n_exp = oracle_pairs(&o, how, &L, &R);
    zb_column *li = NULL, *ri = NULL;
    ZB_CHECK_OK(zb_table_join_indices(l, r, 1, &k, &k, how, true, false, &li, &ri, &err), &err);
    ZB_CHECK(pairs_match(li, ri, L, R, n_exp, true));
    const zb_column *lk = l->columns[0], *rk = r->columns[0];
    int64_t prev_key = INT64_MIN, prev_pos = -1;
    bool prev_null = false;
    for (int64_t i = 0; li != NULL && i < li->length; i++) {
      int64_t a = idx_at(li, i), b = ri ? idx_at(ri, i) : -1;
      bool isnull;
      int64_t key = 0;
      if (a >= 0) {
        isnull = !zb_column_is_valid(lk, a);
        if (!isnull) key = ((const int64_t *)lk->data->data)[lk->offset + a];
      } else {
        isnull = !zb_column_is_valid(rk, b);
        if (!isnull) key = ((const int64_t *)rk->data->data)[rk->offset + b];
      }
      /* position in the unsorted order, for stability */
      int64_t pos = -1;
      for (int64_t q = 0; q < n_exp; q++)
        if (L[q] == a && R[q] == (ri ? b : -1)) {
          pos = q;
          break;
        }
      bool ok = prev_null ? (isnull && pos > prev_pos)
                          : (isnull || key > prev_key || (key == prev_key && pos > prev_pos));
      if (!ok) {
        zb_test_fail(__FILE__, __LINE__, "sorted %s join out of order at row %lld",
                     zb_join_how_name(how), (long long)i);
        break;
      }
      prev_null = isnull;
      prev_key = key;
      prev_pos = pos;
    }
    zb_column_release(li);
    zb_column_release(ri);
    free(L);
    free(R);
  }
  oracle_free(&o);
  set_threads(zb_available_cores());
  zb_table_release(l);
  zb_table_release(r);
}

ZB_TEST(test_join_errors) {
  zb_error err = {{0}};
  zb_column *lc[2] = {make_num(ZB_INT64, 5, 1, 0, 3), make_str(5, 2, 0, 3)};
  zb_column *rc[2] = {make_num(ZB_FLOAT64, 4, 1, 0, 3), make_str(4, 3, 0, 3)};
  const char *ln[2] = {"a", "s"}, *rn[2] = {"b", "t"};
  zb_table *l = make_table(2, lc, ln), *r = make_table(2, rc, rn);
  zb_column *li = NULL, *ri = NULL;
  int64_t k0 = 0, k1 = 1, bad = 2;
  ZB_CHECK_EQ_INT(zb_table_join_indices(l, r, 1, &k0, &k1, ZB_JOIN_INNER, false, false, &li, &ri, &err),
                  ZB_ETYPE);
  ZB_CHECK(strstr(err.message, "'a'") != NULL && strstr(err.message, "'t'") != NULL);
  ZB_CHECK(li == NULL && ri == NULL);
  ZB_CHECK_EQ_INT(zb_table_join_indices(l, r, 1, &bad, &k0, ZB_JOIN_INNER, false, false, &li, &ri, &err),
                  ZB_EINDEX);
  ZB_CHECK_EQ_INT(zb_table_join_indices(l, r, 0, NULL, NULL, ZB_JOIN_LEFT, false, false, &li, &ri, &err),
                  ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_table_join_indices(l, r, 1, &k0, &k0, ZB_JOIN_CROSS, false, false, &li, &ri, &err),
                  ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_table_join_indices(l, r, 1, &k0, &k0, (zb_join_how)42, false, false, &li, &ri, &err),
                  ZB_EINVAL);
  /* int64 vs float64 compare as numbers: fine */
  ZB_CHECK_OK(zb_table_join_indices(l, r, 1, &k0, &k0, ZB_JOIN_INNER, false, false, &li, &ri, &err), &err);
  zb_column_release(li);
  zb_column_release(ri);
  zb_join_how how;
  ZB_CHECK_OK(zb_join_how_from_name("anti", &how, &err), &err);
  ZB_CHECK_EQ_INT(how, ZB_JOIN_ANTI);
  ZB_CHECK_EQ_INT(zb_join_how_from_name("full", &how, &err), ZB_EINVAL);
  zb_table_release(l);
  zb_table_release(r);
}

ZB_TEST(test_join_uint64_vs_int64) {
  zb_error err = {{0}};
  zb_column *a = NULL, *b = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_UINT64, 3, false, 0, &a, &err), &err);
  ZB_CHECK_OK(zb_column_new(ZB_INT64, 3, false, 0, &b, &err), &err);
  uint64_t *u = (uint64_t *)a->data->data;
  int64_t *s = (int64_t *)b->data->data;
  u[0] = UINT64_MAX; u[1] = 5; u[2] = (uint64_t)1 << 63;
  s[0] = -1; s[1] = 5; s[2] = INT64_MIN;
  const char *n[1] = {"k"};
  zb_table *l = make_table(1, &a, n), *r = make_table(1, &b, n);
  zb_column *li = NULL, *ri = NULL;
  int64_t k = 0;
  ZB_CHECK_OK(zb_table_join_indices(l, r, 1, &k, &k, ZB_JOIN_INNER, false, false, &li, &ri, &err), &err);
  ZB_CHECK(li != NULL && li->length == 1 && idx_at(li, 0) == 1 && idx_at(ri, 0) == 1);
  zb_column_release(li);
  zb_column_release(ri);
  zb_table_release(l);
  zb_table_release(r);
}

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

ZB_TEST(test_join_fault_injection) {
  zb_error err = {{0}};
  zb_column *lc[2] = {make_num(ZB_INT64, 300, 1, 8, 50), make_str(300, 2, 8, 9)};
  zb_column *rc[2] = {make_num(ZB_INT32, 200, 3, 8, 50), make_str(200, 4, 8, 9)};
  zb_column *rcat = cast(rc[1], ZB_CATEGORICAL);
  zb_column_release(rc[1]);
  rc[1] = rcat;
  const char *n[2] = {"k", "s"};
  zb_table *l = make_table(2, lc, n), *r = make_table(2, rc, n);
  int64_t keys[2] = {0, 1};
  for (int threads = 1; threads <= 3; threads += 2) {
    set_threads(threads);
    for (int h = 0; h < 6; h++) {
      zb_column *li = NULL, *ri = NULL;
      FAULT_LOOP(zb_table_join_indices(l, r, 2, keys, keys, k_hows[h], h == 1, false, &li, &ri, &err),
                 (zb_column_release(li), zb_column_release(ri)));
    }
    zb_column *li = NULL, *ri = NULL;
    FAULT_LOOP(zb_table_join_indices(l, r, 0, NULL, NULL, ZB_JOIN_CROSS, false, false, &li, &ri, &err),
               (zb_column_release(li), zb_column_release(ri)));
  }
  zb_table_release(l);
  zb_table_release(r);
  /* the merge join of strictly increasing keys, in two chunks */
  {
    zb_column *ml[1] = {make_rising(ZB_INT64, 70000, 1, 0, false)};
    zb_column *mr[1] = {make_rising(ZB_INT64, 50000, 2, 0, false)};
    zb_table *a = make_table(1, ml, n), *b = make_table(1, mr, n);
    for (int threads = 1; threads <= 3; threads += 2) {
      set_threads(threads);
      for (int h = 0; h < 6; h++) {
        zb_column *li = NULL, *ri = NULL;
        FAULT_LOOP(zb_table_join_indices(a, b, 1, keys, keys, k_hows[h], false, false, &li, &ri,
                                         &err),
                   (zb_column_release(li), zb_column_release(ri)));
      }
    }
    zb_table_release(a);
    zb_table_release(b);
  }
  /* a partitioned build side (past 65536 rows) */
  zb_column *pl[1] = {make_num(ZB_INT64, 70000, 7, 8, 100000)};
  zb_column *pr[1] = {make_num(ZB_INT64, 90000, 8, 8, 100000)};
  l = make_table(1, pl, n);
  r = make_table(1, pr, n);
  for (int threads = 1; threads <= 3; threads += 2) {
    set_threads(threads);
    for (int h = 0; h < 4; h++) {
      zb_column *li = NULL, *ri = NULL;
      FAULT_LOOP(zb_table_join_indices(l, r, 1, keys, keys, k_hows[h], false, false, &li, &ri, &err),
                 (zb_column_release(li), zb_column_release(ri)));
    }
  }
  set_threads(zb_available_cores());
  zb_table_release(l);
  zb_table_release(r);
}
