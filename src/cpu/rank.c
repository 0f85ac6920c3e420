/*
 * rank.c -- pandas' rank on the CPU (ZB__OP_RANK, the kernel behind
 * zb_column_rank and zb_column_group_rank).
 *
 * The order comes from the engine's stable sort (zb__cpu_sort_indices): by
 * the values alone, or by (group id, value) per group.  Missing values
 * (nulls; NaN in floats) sort to the front for na_option "top" and to the
 * back otherwise, so they form the first or last tie run of their group;
 * ties keep row order in both directions.  Then, over the sorted positions:
 *
 *   1. flags (in parallel, by morsel): for each position, whether it
 *      starts a group, starts a tie run (a new group, or a value unequal
 *      to the one before: the type switch is outside the row loop), is
 *      missing, or has no group (a null group id); each morsel also counts
 *      its run starts and notes its last group start;
 *   2. a carry over the morsels in order: the group start and the number
 *      of runs of that group before each morsel;
 *   3. ranks (in parallel, by morsel): each morsel writes the runs that
 *      start in it (a run crossing into the next morsels is finished by
 *      the morsel it starts in; those morsels skip its rows).  A run [s, e)
 *      of the group starting at g0 gets average (s + e + 1) / 2 - g0, min
 *      s - g0 + 1, max e - g0, first k - g0 + 1 for its position k, dense
 *      the run's number in the group.  The group's last ranked run (the
 *      one before the group ends or its kept-missing rows begin) writes the
 *      group's divisor for pct: its count of ranked rows, or its number of
 *      runs for dense -- exactly one run per group writes it;
 *   4. by morsel of rows (in parallel): pct divides by the group's
 *      divisor, and the validity bitmap is packed (missing rows are NaN
 *      until then).
 *
 * Per group, a fixed-width column whose groups all have at most
 * GROUP_SORT_MAX rows is ranked group by group instead (group_sort_rank,
 * below): the rows of each group sorted within the group, no global sort.
 *
 * Results do not depend on the thread count.  Ranks are exact up to 2^53
 * rows.
 */
#include <math.h>

#include "core/dtype_list.h"
#include "cpu/groupby.h"
#include "cpu/kernels.h"

enum {
  F_RUN = 1,   /* starts a tie run */
  F_GROUP = 2, /* starts a group (also a run) */
  F_MISS = 4,  /* the value is missing */
  F_NOGRP = 8  /* the group id is null: the result is null */
};

typedef struct rank_job {
  const zb_column *c, *ids;
  const int64_t *perm; /* sorted position -> row */
  int64_t n, n_groups;
  zb_rank_method method;
  bool keep, pct;
  uint8_t *flag;   /* per sorted position */
  double *o;       /* the result's values, by row */
  double *div;     /* per group (one when not grouped): pct's divisor */
  /* per morsel */
  int64_t *runs;   /* run starts in the morsel (after its last group start) */
  int64_t *last_g; /* last group start in the morsel, or -1 */
  int64_t *bad;    /* first row with a group id out of range, or -1 */
  int64_t *g0;     /* carry: the group start at the morsel's first position */
  int64_t *d0;     /* carry: that group's runs before the morsel */
  int64_t *nulls;  /* null results in the morsel of rows */
} rank_job;

/* The group id of row r (-1 for a null one); ungrouped: 0. */
static inline int64_t gid_of(const zb_column *ids, const int64_t *iv, int64_t r) {
  if (ids == NULL) return 0;
  return zb_column_is_valid(ids, r) ? iv[r] : -1;
}


/* Phase 1 works in blocks of ZB_BLOCK positions (plus the position
 * before): the sorted rows' values are gathered first, branch-free, as
 * equality keys (so that the random loads overlap), with their missing
 * flags and group ids; the flags are then computed from those arrays.  The
 * type switch is per block, outside the row loops. */
typedef struct flag_block {
  uint64_t key[ZB_BLOCK + 1]; /* equal keys <=> equal values (strings: the row) */
  int64_t gid[ZB_BLOCK + 1];  /* the group id, -1 for a null one */
  uint8_t miss[ZB_BLOCK + 1];
} flag_block;

/* A float's equality key: its bits, with -0.0 made 0.0. */
static inline uint64_t fkey_float(float v) {
  uint32_t b = 0;
  if (v != 0) memcpy(&b, &v, 4);
  return b;
}
static inline uint64_t fkey_double(double v) {
  uint64_t b = 0;
  if (v != 0) memcpy(&b, &v, 8);
  return b;
}

#define GATHER_INT(T, U, v) ((uint64_t)(U)(v))
#define GATHER_FLOAT(T, U, v) fkey_##T(v)

/* Keys and missing flags of positions [a, e) into b[0, e - a). */
static void gather(const zb_column *c, const int64_t *perm, int64_t a, int64_t e,
                   flag_block *b) {
  const int64_t m = e - a;
  const int64_t *pr = perm + a;
  switch (c->type) {
    case ZB_BOOL: {
      const uint8_t *bits = (const uint8_t *)c->data->data;
      for (int64_t q = 0; q < m; q++) b->key[q] = zb_bit_get(bits, c->offset + pr[q]);
      break;
    }
    case ZB_STRING:
      for (int64_t q = 0; q < m; q++) b->key[q] = (uint64_t)pr[q];
      break;
    case ZB_CATEGORICAL: {
      const int32_t *d = (const int32_t *)c->data->data + c->offset;
      for (int64_t q = 0; q < m; q++) b->key[q] = (uint32_t)d[pr[q]];
      break;
    }
#define GATHER_CASE(ID, T, NAME, U)                                             \
  case ID: {                                                                    \
    const T *d = (const T *)c->data->data + c->offset;                          \
    for (int64_t q = 0; q < m; q++) b->key[q] = GATHER_INT(T, U, d[pr[q]]);     \
    break;                                                                      \
  }
#define GATHER_CASE_F(ID, T, NAME, U)                                           \
  case ID: {                                                                    \
    const T *d = (const T *)c->data->data + c->offset;                          \
    for (int64_t q = 0; q < m; q++) {                                           \
      T v = d[pr[q]];                                                           \
      b->key[q] = GATHER_FLOAT(T, U, v);                                        \
      b->miss[q] = v != v;                                                      \
    }                                                                           \
    break;                                                                      \
  }
    ZB_FOR_EACH_INTEGER_TYPE(GATHER_CASE)
    ZB_FOR_EACH_TEMPORAL_TYPE(GATHER_CASE)
    ZB_FOR_EACH_FLOAT_TYPE(GATHER_CASE_F)
#undef GATHER_CASE
#undef GATHER_CASE_F
    default: break;
  }
  if (!zb_type_is_float(c->type)) memset(b->miss, 0, (size_t)m);
  if (c->validity != NULL) {
    const uint8_t *vb = (const uint8_t *)c->validity->data;
    for (int64_t q = 0; q < m; q++) b->miss[q] |= !zb_bit_get(vb, c->offset + pr[q]);
  }
}

/* Group ids of positions [a, e) into b->gid (all 0 without ids). */
static void gather_gid(const zb_column *ids, const int64_t *perm, int64_t a, int64_t e,
                       flag_block *b) {
  const int64_t m = e - a;
  if (ids == NULL) {
    memset(b->gid, 0, (size_t)m * sizeof(int64_t));
    return;
  }
  const int64_t *pr = perm + a, *iv = (const int64_t *)ids->data->data + ids->offset;
  for (int64_t q = 0; q < m; q++) b->gid[q] = iv[pr[q]];
  if (ids->validity != NULL) {
    const uint8_t *vb = (const uint8_t *)ids->validity->data;
    for (int64_t q = 0; q < m; q++)
      if (!zb_bit_get(vb, ids->offset + pr[q])) b->gid[q] = -1;
  }
}

static inline bool str_eq(const zb_column *c, int64_t a, int64_t b) {
  int64_t la, lb;
  const char *pa = zb__str(c, a, &la), *pb = zb__str(c, b, &lb);
  return la == lb && (la == 0 || memcmp(pa, pb, (size_t)la) == 0);
}

/* Flags of the block's positions [a, e), from b (slot 0 holds position
 * a - 1 when a > 0). */
#define FLAG_ROWS(EQ)                                                           \
  for (int64_t i = a; i < e; i++) {                                             \
    int64_t q = i - s0;                                                         \
    uint8_t f = (uint8_t)((b->miss[q] ? F_MISS : 0) | (b->gid[q] < 0 ? F_NOGRP : 0)); \
    if (i == 0) {                                                               \
      f |= F_GROUP | F_RUN;                                                     \
    } else {                                                                    \
      bool ng = b->gid[q] != b->gid[q - 1];                                     \
      bool nr = b->miss[q] != b->miss[q - 1] || (!b->miss[q] && !(EQ));         \
      f |= (uint8_t)((ng ? F_GROUP | F_RUN : 0) | (nr ? F_RUN : 0));            \
    }                                                                           \
    fl[i] = f;                                                                  \
  }

static void flag_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  rank_job *j = (rank_job *)ctx;
  const zb_column *c = j->c, *ids = j->ids;
  const int64_t *perm = j->perm;
  uint8_t *fl = j->flag;
  int64_t lo = task * ZB_MORSEL_ROWS, hi = ZB_MIN(lo + ZB_MORSEL_ROWS, j->n), bad = -1;
  flag_block *b = (flag_block *)zb_malloc(sizeof(flag_block));
  if (b == NULL) {
    j->bad[task] = -2; /* out of memory: reported by the caller */
    return;
  }
  for (int64_t a = lo; a < hi; a += ZB_BLOCK) {
    int64_t e = ZB_MIN(a + ZB_BLOCK, hi), s0 = a > 0 ? a - 1 : a;
    gather(c, perm, s0, e, b);
    gather_gid(ids, perm, s0, e, b);
    if (c->type == ZB_STRING) {
      FLAG_ROWS(str_eq(c, (int64_t)b->key[q], (int64_t)b->key[q - 1]))
    } else {
      FLAG_ROWS(b->key[q] == b->key[q - 1])
    }
    if (ids != NULL && bad < 0) /* ids outside [0, n_groups); -1 may be a null */
      for (int64_t q = a - s0; q < e - s0; q++) {
        int64_t g = b->gid[q];
        if (g >= j->n_groups || g < -1 || (g == -1 && zb_column_is_valid(ids, perm[s0 + q]))) {
          bad = perm[s0 + q];
          break;
        }
      }
  }
  zb_free(b);
  /* what the carry needs: the last group start, and the run starts after it */
  int64_t runs = 0, last_g = -1;
  for (int64_t i = lo; i < hi; i++) {
    if (fl[i] & F_GROUP) {
      last_g = i;
      runs = 0;
    }
    runs += fl[i] & F_RUN;
  }
  j->runs[task] = runs;
  j->last_g[task] = last_g;
  j->bad[task] = bad;
}

/* Write the ranks of the runs that start in positions [lo, hi). */
static void rank_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  rank_job *j = (rank_job *)ctx;
  const uint8_t *fl = j->flag;
  const int64_t *perm = j->perm;
  const zb_column *ids = j->ids;
  const int64_t *iv = ids != NULL ? (const int64_t *)ids->data->data + ids->offset : NULL;
  const int64_t n = j->n;
  double *o = j->o;
  int64_t lo = task * ZB_MORSEL_ROWS, hi = ZB_MIN(lo + ZB_MORSEL_ROWS, n);
  int64_t g0 = j->g0[task], d = j->d0[task];
  int64_t s = lo;
  while (s < hi && !(fl[s] & F_RUN)) s++; /* the rows of a run begun before */
  while (s < hi) {
    if (fl[s] & F_GROUP) {
      g0 = s;
      d = 0;
    }
    d++;
    int64_t e = s + 1;
    while (e < n && !(fl[e] & F_RUN)) e++;
    bool none = (fl[s] & F_NOGRP) || (j->keep && (fl[s] & F_MISS));
    if (none) {
      for (int64_t k = s; k < e; k++) o[perm[k]] = NAN;
    } else {
      double v;
      switch (j->method) {
        case ZB_RANK_AVERAGE: v = (double)(s + e + 1 - 2 * g0) * 0.5; break;
        case ZB_RANK_MIN: v = (double)(s - g0 + 1); break;
        case ZB_RANK_MAX: v = (double)(e - g0); break;
        case ZB_RANK_DENSE: v = (double)d; break;
        default: v = 0; break;
      }
      if (j->method == ZB_RANK_FIRST)
        for (int64_t k = s; k < e; k++) o[perm[k]] = (double)(k - g0 + 1);
      else
        for (int64_t k = s; k < e; k++) o[perm[k]] = v;
      /* the group's last ranked run sets its divisor */
      if (e == n || (fl[e] & F_GROUP) || (j->keep && (fl[e] & F_MISS))) {
        int64_t g = gid_of(ids, iv, perm[s]);
        j->div[g] = j->method == ZB_RANK_DENSE ? (double)d : (double)(e - g0);
      }
    }
    s = e;
  }
}

/* pct's division, and the count of null results, by morsel of rows. */
static void finish_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  rank_job *j = (rank_job *)ctx;
  const zb_column *ids = j->ids;
  const int64_t *iv = ids != NULL ? (const int64_t *)ids->data->data + ids->offset : NULL;
  double *o = j->o;
  int64_t lo = task * ZB_MORSEL_ROWS, hi = ZB_MIN(lo + ZB_MORSEL_ROWS, j->n), nulls = 0;
  if (j->pct) {
    if (ids == NULL) {
      double dv = j->div[0];
      for (int64_t r = lo; r < hi; r++) o[r] /= dv;
    } else {
      for (int64_t r = lo; r < hi; r++)
        if (o[r] == o[r]) o[r] /= j->div[iv[r]]; /* a ranked row has a group */
    }
  }
  for (int64_t r = lo; r < hi; r++) nulls += o[r] != o[r];
  j->nulls[task] = nulls;
}

/* Clear the validity bits of NaN rows (only when some row is missing). */
typedef struct mask_job {
  const double *o;
  uint8_t *bits;
  int64_t n;
} mask_job;

static void mask_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  mask_job *j = (mask_job *)ctx;
  int64_t lo = task * ZB_MORSEL_ROWS, hi = ZB_MIN(lo + ZB_MORSEL_ROWS, j->n);
  for (int64_t row = lo; row < hi; row += 64) {
    int m = (int)ZB_MIN((int64_t)64, hi - row);
    uint64_t w = 0;
    for (int q = 0; q < m; q++) {
      double v = j->o[row + q];
      w |= (uint64_t)(v == v) << q;
    }
    zb__store_bits(j->bits, row, w, m);
  }
}

/* The sort permutation: by value, or by (group id, value). */
static zb_status sort_order(const zb_column *col, const zb_column *ids, bool ascending,
                            bool nulls_first, zb_column **perm, zb_error *err) {
  zb_column *cols[2];
  const char *names[2] = {"ids", "values"};
  int64_t nk = 0;
  if (ids != NULL) cols[nk++] = (zb_column *)ids;
  cols[nk++] = (zb_column *)col;
  zb_table *t = NULL;
  ZB_RETURN_NOT_OK(
      zb_table_make(nk, cols, ids != NULL ? names : names + 1, &t, err));
  const int64_t keys[2] = {0, 1};
  const bool asc[2] = {true, ascending};
  zb_status st = zb__cpu_sort_indices(t, nk, keys, ids != NULL ? asc : asc + 1, nulls_first,
                                      perm, err);
  zb_table_release(t);
  return st;
}

/* ---- per group: sort within each group --------------------------------------
 *
 * With group ids, fixed-width values and no group larger than
 * GROUP_SORT_MAX rows, the rows of each group (the group-by CSR: a counting
 * sort by group id, rows in row order) are ranked group by group, in
 * parallel over buckets of groups: the group's present values are gathered
 * as order-preserving unsigned keys (complemented for descending order)
 * with their rows, sorted by (key, row) -- ties in row order, as the stable
 * global sort has them -- and their tie runs ranked; the missing rows form
 * one run before (na_option "top") or after ("bottom") them in row order,
 * or stay missing ("keep").  No global sort of (group, value), and a
 * group's rows stay in cache while it is ranked.  A larger group (or a
 * string column) takes the global sort above. */

#define GROUP_SORT_MAX ((int64_t)1 << 18)

typedef struct rk_item {
  uint64_t key;
  int64_t row;
} rk_item;

static inline bool rk_less(const rk_item *a, const rk_item *b) {
  return a->key < b->key || (a->key == b->key && a->row < b->row);
}

static void rk_insertion(rk_item *a, int64_t n) {
  for (int64_t i = 1; i < n; i++) {
    rk_item x = a[i];
    int64_t k = i;
    while (k > 0 && rk_less(&x, &a[k - 1])) {
      a[k] = a[k - 1];
      k--;
    }
    a[k] = x;
  }
}

/* Sort a[0, n) by (key, row): quicksort with a median-of-three pivot,
 * recursing into the smaller side, insertion sort below 24 items.  Items
 * are distinct (rows are), so every partition shrinks. */
static void rk_sort(rk_item *a, int64_t n) {
  while (n > 24) {
    int64_t mid = n / 2;
    rk_item *x = &a[0], *y = &a[mid], *z = &a[n - 1], *m;
    if (rk_less(x, y)) m = rk_less(y, z) ? y : (rk_less(x, z) ? z : x);
    else m = rk_less(x, z) ? x : (rk_less(y, z) ? z : y);
    rk_item pivot = *m;
    int64_t i = 0, k = n - 1;
    for (;;) {
      while (rk_less(&a[i], &pivot)) i++;
      while (rk_less(&pivot, &a[k])) k--;
      if (i >= k) break;
      rk_item t = a[i];
      a[i] = a[k];
      a[k] = t;
      i++;
      k--;
    }
    /* [0, k] <= pivot <= [k + 1, n) */
    int64_t left = k + 1;
    if (left < n - left) {
      rk_sort(a, left);
      a += left;
      n -= left;
    } else {
      rk_sort(a + left, n - left);
      n = left;
    }
  }
  rk_insertion(a, n);
}

/* Rows ahead of the one read whose values are prefetched: the reads of a
 * group's rows are random, and would otherwise wait one by one. */
#define GR_AHEAD 16

static inline uint64_t okey_double(double v) {
  uint64_t b;
  if (v == 0) v = 0.0; /* -0.0 ties with 0.0 */
  memcpy(&b, &v, 8);
  return (b >> 63) ? ~b : b | ((uint64_t)1 << 63);
}

typedef struct grank_job {
  const zb_column *c;
  const zb__group_csr *csr;
  zb_rank_method method;
  bool ascending, keep, top, pct;
  double *o;
  rk_item *it;   /* per worker: cap items */
  int64_t *miss; /* per worker: cap rows */
  int64_t cap;   /* the largest group */
  int n_workers;
  volatile int failed;
} grank_job;

/* The present values of rows[0, L) into it (with their rows), the missing
 * rows into miss; returns the count of present values. */
static int64_t group_gather(const zb_column *c, const int64_t *rows, int64_t L, bool ascending,
                            rk_item *it, int64_t *miss, int64_t *n_miss) {
  const uint8_t *vb = c->validity != NULL && c->null_count > 0
                          ? (const uint8_t *)c->validity->data : NULL;
  const uint64_t flip = ascending ? 0 : ~(uint64_t)0;
  int64_t k = 0, m = 0;
#define GR_LOOP(KEY, MISSING)                                                   \
  for (int64_t p = 0; p < L; p++) {                                             \
    int64_t r = rows[p];                                                        \
    if (p + GR_AHEAD < L) __builtin_prefetch(d + rows[p + GR_AHEAD]); /* bool: near */ \
    if ((vb != NULL && !zb_bit_get(vb, c->offset + r)) || (MISSING)) {          \
      miss[m++] = r;                                                            \
    } else {                                                                    \
      it[k].key = (KEY) ^ flip;                                                 \
      it[k++].row = r;                                                          \
    }                                                                           \
  }
  switch (c->type) {
    case ZB_BOOL: {
      const uint8_t *bits = (const uint8_t *)c->data->data, *d = bits;
      GR_LOOP((uint64_t)zb_bit_get(bits, c->offset + r), false)
      break;
    }
    case ZB_CATEGORICAL: {
      const int32_t *d = (const int32_t *)c->data->data + c->offset;
      GR_LOOP((uint64_t)(uint32_t)d[r], false)
      break;
    }
#define GR_SIGNED(ID, T, NAME, U)                                               \
  case ID: {                                                                    \
    const T *d = (const T *)c->data->data + c->offset;                          \
    GR_LOOP((uint64_t)(int64_t)d[r] ^ ((uint64_t)1 << 63), false)               \
    break;                                                                      \
  }
#define GR_UNSIGNED(ID, T, NAME, U)                                             \
  case ID: {                                                                    \
    const T *d = (const T *)c->data->data + c->offset;                          \
    GR_LOOP((uint64_t)d[r], false)                                              \
    break;                                                                      \
  }
#define GR_FLOAT(ID, T, NAME, U)                                                \
  case ID: {                                                                    \
    const T *d = (const T *)c->data->data + c->offset;                          \
    GR_LOOP(okey_double((double)d[r]), d[r] != d[r])                            \
    break;                                                                      \
  }
    ZB_FOR_EACH_SIGNED_TYPE(GR_SIGNED)
    ZB_FOR_EACH_UNSIGNED_TYPE(GR_UNSIGNED)
    ZB_FOR_EACH_TEMPORAL_TYPE(GR_SIGNED)
    ZB_FOR_EACH_FLOAT_TYPE(GR_FLOAT)
#undef GR_SIGNED
#undef GR_UNSIGNED
#undef GR_FLOAT
#undef GR_LOOP
    default: break;
  }
  *n_miss = m;
  return k;
}

/* Rank one group: rows[0, L).  pct's divisor is known before any rank is
 * written (for dense, from a count of the runs first), so each row's
 * result is written once. */
static void group_rank_one(const grank_job *j, const int64_t *rows, int64_t L, rk_item *it,
                           int64_t *miss) {
  double *o = j->o;
  int64_t m = 0;
  const int64_t c = group_gather(j->c, rows, L, j->ascending, it, miss, &m);
  rk_sort(it, c);
  const bool ranked_miss = m > 0 && !j->keep;
  double dv = 1.0;
  if (j->pct) { /* the ranked rows, or for dense the highest rank */
    if (j->method == ZB_RANK_DENSE) {
      int64_t runs = c > 0;
      for (int64_t k = 1; k < c; k++) runs += it[k].key != it[k - 1].key;
      dv = (double)(runs + (ranked_miss ? 1 : 0));
    } else {
      dv = (double)(c + (ranked_miss ? m : 0));
    }
    if (dv == 0) dv = 1.0; /* nothing ranked */
  }
  /* runs of the present values; base: the positions before them */
  const int64_t base = j->top ? m : 0;
  const double dense0 = j->top && m > 0 ? 1.0 : 0.0;
  int64_t runs = 0;
  for (int64_t s = 0; s < c;) {
    int64_t e = s + 1;
    while (e < c && it[e].key == it[s].key) e++;
    runs++;
    double v;
    switch (j->method) {
      case ZB_RANK_AVERAGE: v = (double)(2 * base + s + e + 1) * 0.5; break;
      case ZB_RANK_MIN: v = (double)(base + s + 1); break;
      case ZB_RANK_MAX: v = (double)(base + e); break;
      case ZB_RANK_DENSE: v = dense0 + (double)runs; break;
      default: v = 0; break;
    }
    if (j->method == ZB_RANK_FIRST)
      for (int64_t k = s; k < e; k++) o[it[k].row] = (double)(base + k + 1) / dv;
    else
      for (int64_t k = s; k < e; k++) o[it[k].row] = v / dv;
    if (e + GR_AHEAD < c) __builtin_prefetch(o + it[e + GR_AHEAD].row, 1);
    s = e;
  }
  /* the missing rows: one run in row order, before or after the values */
  if (m > 0) {
    if (j->keep) {
      for (int64_t k = 0; k < m; k++) o[miss[k]] = NAN;
    } else {
      const int64_t b0 = j->top ? 0 : c;
      double v;
      switch (j->method) {
        case ZB_RANK_AVERAGE: v = (double)(2 * b0 + m + 1) * 0.5; break;
        case ZB_RANK_MIN: v = (double)(b0 + 1); break;
        case ZB_RANK_MAX: v = (double)(b0 + m); break;
        case ZB_RANK_DENSE: v = j->top ? 1.0 : (double)runs + 1.0; break;
        default: v = 0; break;
      }
      if (j->method == ZB_RANK_FIRST)
        for (int64_t k = 0; k < m; k++) o[miss[k]] = (double)(b0 + k + 1) / dv;
      else
        for (int64_t k = 0; k < m; k++) o[miss[k]] = v / dv;
    }
  }
}

static void group_rank_task(void *ctx, int64_t b, int worker) {
  grank_job *j = (grank_job *)ctx;
  if (worker < 0 || worker >= j->n_workers) { /* the pool grew meanwhile */
    j->failed = 2;
    return;
  }
  const zb__group_csr *csr = j->csr;
  rk_item *it = j->it + (int64_t)worker * j->cap;
  int64_t *miss = j->miss + (int64_t)worker * j->cap;
  for (int64_t g = csr->bucket[b]; g < csr->bucket[b + 1]; g++)
    group_rank_one(j, csr->rows + csr->offsets[g], csr->offsets[g + 1] - csr->offsets[g], it,
                   miss);
}

/* rank per group by sorting within each group (see above): *done is false
 * (and nothing is written) when a group is larger than GROUP_SORT_MAX. */
static zb_status group_sort_rank(rank_job *rj, bool ascending, zb_rank_na na_option,
                                 bool *done, zb_error *err) {
  *done = false;
  zb__grouping g;
  zb__group_csr csr;
  memset(&csr, 0, sizeof csr);
  zb_status st = zb__grouping_from_ids(rj->ids, rj->n_groups, "rank", &g, err);
  if (st != ZB_OK) return st;
  st = zb__group_csr_init(&g, &csr, err);
  if (st != ZB_OK) goto free;
  int64_t big = 0;
  for (int64_t k = 0; k < csr.n_groups; k++)
    big = ZB_MAX(big, csr.offsets[k + 1] - csr.offsets[k]);
  if (big > GROUP_SORT_MAX) goto free;
  if (rj->ids->null_count > 0) /* rows of no group */
    for (int64_t r = 0; r < rj->n; r++) rj->o[r] = NAN;
  grank_job j = {rj->c, &csr, rj->method, ascending, na_option == ZB_RANK_NA_KEEP,
                 na_option == ZB_RANK_NA_TOP, rj->pct, rj->o, NULL, NULL, ZB_MAX(big, 1),
                 zb_get_num_threads(), 0};
  /* one scratch per worker, for the largest group */
  j.it = (rk_item *)zb_malloc((size_t)(j.n_workers * j.cap) * sizeof(rk_item));
  j.miss = (int64_t *)zb_malloc((size_t)(j.n_workers * j.cap) * sizeof(int64_t));
  if (j.it == NULL || j.miss == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (rank of %lld rows)",
                      (long long)rj->n);
  } else {
    st = zb_parallel_for(csr.n_buckets, group_rank_task, &j, err);
    if (st == ZB_OK && j.failed)
      st = zb_error_set(err, ZB_EINVAL, "rank: the thread pool changed size during the call");
  }
  zb_free(j.it);
  zb_free(j.miss);
  if (st == ZB_OK) *done = true;
free:
  zb__group_csr_reset(&csr);
  zb__grouping_reset(&g);
  return st;
}

zb_status zb__cpu_rank(const zb_column *col, const zb_column *group_ids, int64_t n_groups,
                       zb_rank_method method, bool ascending, zb_rank_na na_option, bool pct,
                       zb_column **out, zb_error *err) {
  *out = NULL;
  const int64_t n = col->length;
  rank_job j;
  memset(&j, 0, sizeof j);
  j.c = col;
  j.ids = group_ids;
  j.n = n;
  j.n_groups = group_ids != NULL ? n_groups : 1;
  j.method = method;
  j.keep = na_option == ZB_RANK_NA_KEEP;
  j.pct = pct;
  zb_column *o = NULL, *perm = NULL;
  zb_status st = zb_column_new(ZB_FLOAT64, n, true, 0, &o, err);
  if (st != ZB_OK || n == 0) goto done;
  const int64_t M = zb__morsels(n);
  j.o = (double *)o->data->data;
  if (group_ids != NULL && col->type != ZB_STRING) {
    bool grouped = false;
    st = group_sort_rank(&j, ascending, na_option, &grouped, err);
    if (st != ZB_OK) goto done;
    if (grouped) {
      j.nulls = (int64_t *)zb_malloc((size_t)M * sizeof(int64_t));
      if (j.nulls == NULL) {
        st = zb_error_set(err, ZB_ENOMEM, "out of host memory (rank of %lld rows)",
                          (long long)n);
        goto done;
      }
      j.pct = false; /* divided per group already: only count the missing */
      st = zb_parallel_for(M, finish_morsel, &j, err);
      int64_t nulls = 0;
      for (int64_t m = 0; m < M && st == ZB_OK; m++) nulls += j.nulls[m];
      zb_free(j.nulls);
      if (st == ZB_OK && nulls > 0) {
        mask_job mj = {j.o, (uint8_t *)o->validity->data, n};
        st = zb_parallel_for(M, mask_morsel, &mj, err);
      }
      goto done;
    }
  }
  st = sort_order(col, group_ids, ascending, na_option == ZB_RANK_NA_TOP, &perm, err);
  if (st != ZB_OK) goto done;
  j.perm = (const int64_t *)perm->data->data;
  j.flag = (uint8_t *)zb_malloc((size_t)n);
  j.div = (double *)zb_malloc((size_t)ZB_MAX(j.n_groups, 1) * sizeof(double));
  int64_t *carry = (int64_t *)zb_malloc((size_t)M * 6 * sizeof(int64_t));
  if (j.flag == NULL || j.div == NULL || carry == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (rank of %lld rows)", (long long)n);
    goto free;
  }
  j.runs = carry;
  j.last_g = carry + M;
  j.bad = carry + 2 * M;
  j.g0 = carry + 3 * M;
  j.d0 = carry + 4 * M;
  j.nulls = carry + 5 * M;
  st = zb_parallel_for(M, flag_morsel, &j, err);
  if (st != ZB_OK) goto free;
  for (int64_t m = 0; m < M; m++)
    if (j.bad[m] == -2) {
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory (rank of %lld rows)", (long long)n);
      goto free;
    }
  for (int64_t m = 0; m < M; m++)
    if (j.bad[m] >= 0) {
      int64_t r = j.bad[m];
      st = zb_error_set(err, ZB_EINDEX, "rank: group id %lld at row %lld is outside [0, %lld)",
                        (long long)((const int64_t *)group_ids->data->data +
                                    group_ids->offset)[r],
                        (long long)r, (long long)n_groups);
      goto free;
    }
  /* the carry: the group start and its runs before each morsel */
  for (int64_t m = 0, g0 = 0, d = 0; m < M; m++) {
    j.g0[m] = g0;
    j.d0[m] = d;
    if (j.last_g[m] >= 0) {
      g0 = j.last_g[m];
      d = j.runs[m];
    } else {
      d += j.runs[m];
    }
  }
  for (int64_t g = 0; g < j.n_groups; g++) j.div[g] = 1.0;
  st = zb_parallel_for(M, rank_morsel, &j, err);
  if (st == ZB_OK) st = zb_parallel_for(M, finish_morsel, &j, err);
  if (st != ZB_OK) goto free;
  int64_t nulls = 0;
  for (int64_t m = 0; m < M; m++) nulls += j.nulls[m];
  if (nulls > 0) {
    mask_job mj = {j.o, (uint8_t *)o->validity->data, n};
    st = zb_parallel_for(M, mask_morsel, &mj, err);
  }
free:
  zb_free(j.flag);
  zb_free(j.div);
  zb_free(carry);
done:
  zb_column_release(perm);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  zb_column_recount_nulls(o);
  *out = o;
  return ZB_OK;
}
