/*
 * reduce_stats.c -- CPU statistics beyond sum/min/max/mean/count: variance
 * and standard deviation, product, any/all, argmin/argmax (also over
 * strings, dates and timestamps) and quantiles/median.
 *
 * Nulls and NaNs are skipped (pandas' skipna).  Scans run in parallel
 * morsels of ZB_MORSEL_ROWS rows, each producing a partial that is combined
 * in morsel order, so results never depend on the thread count.  Variance
 * of numbers is pandas' two passes in numpy's order of additions
 * (reduce_pairwise.c), so its digits are pandas'.  Of bools it reads
 * memory once: rows are shifted by the column's first valid value, every
 * block of rows gets an exact (corrected) two-pass mean and sum of
 * squared deviations while it sits in L1, and blocks, then morsels, merge
 * with Chan's pairwise formula.  Quantiles copy the valid values
 * to a scratch array and select ranks with introselect (quickselect with a
 * median-of-3 pivot, falling back to a heap sort of the remaining range
 * when it degenerates), so the cost is linear on average, not n log n.
 */
#include <math.h>

#include "core/dtype_list.h"
#include "cpu/hash.h"

static zb_status quantile_impl(const zb_column *col, int64_t n_q, const double *q,
                               zb_scalar *out, bool median, zb_error *err);

/* Fill dst[0, n) with rows [start, start + n) of c (numeric or bool)
 * converted to double (block at a time; the type switch is outside the
 * row loop). */
static void block_f(const zb_column *c, int64_t start, int64_t n, double *dst) {
  zb__convert_block(ZB_FLOAT64, dst, c->type, c->data->data, c->offset + start, n);
}

/* The first valid, non-NaN value of c as double; 0 when there is none. */
static double first_value(const zb_column *c) {
  double buf[ZB_BLOCK];
  for (int64_t b = 0; b < c->length; b += ZB_BLOCK) {
    int64_t m = ZB_MIN((int64_t)ZB_BLOCK, c->length - b);
    block_f(c, b, m, buf);
    for (int64_t i = 0; i < m; i++)
      if (buf[i] == buf[i] && zb_column_is_valid(c, b + i)) return buf[i];
  }
  return 0;
}

/* ---- per-morsel partials -------------------------------------------------- */

typedef struct stat_partial {
  double s1, s2; /* var: mean and sum of squared deviations of the morsel */
  int64_t count;
  uint64_t iprod; /* wrapping integer product */
  double fprod;
  bool any, all;
  int64_t pos; /* argmin/argmax: first position of the extreme, -1 if none */
} stat_partial;

typedef struct stat_job {
  const zb_column *col;
  zb_stat_op op;
  stat_partial *parts;
  double shift; /* var: a value of the column, subtracted from every row */
} stat_job;

/* BODY over the n values v[0, n) of type T, validity from bit voff of
 * valid (NULL: all valid), with `take` = the row is valid and TAKE holds
 * of its value x: words of 64 rows, the validity test off the row loop for
 * a word without nulls, and none of the rows skipped by a branch (BODY
 * makes a row not taken the operation's identity). */
#define STAT_ROWS(T, TAKE, BODY)                                                \
  for (int64_t k = 0; k < n; k += 64) {                                         \
    int mm = (int)ZB_MIN((int64_t)64, n - k);                                   \
    uint64_t w = valid != NULL ? zb__load_bits(valid, voff + k, mm) : zb__mask(mm); \
    if (w == zb__mask(mm)) {                                                    \
      for (int t = 0; t < mm; t++) {                                            \
        T x = v[k + t];                                                         \
        int take = (TAKE);                                                      \
        BODY;                                                                   \
        count += take;                                                          \
      }                                                                         \
    } else {                                                                    \
      for (int t = 0; t < mm; t++) {                                            \
        T x = v[k + t];                                                         \
        int take = (int)((w >> t) & 1) & (TAKE);                                \
        BODY;                                                                   \
        count += take;                                                          \
      }                                                                         \
    }                                                                           \
  }

/* prod, any and all of the integers v[0, n): the product wraps modulo
 * 2^64 (in any order: exact). */
#define STAT_INT_KERNEL(ID, T, NAME, U)                                         \
  static void stat_##NAME(zb_stat_op op, const T *v, const uint8_t *valid, int64_t voff, \
                          int64_t n, stat_partial *p) {                         \
    int64_t count = 0;                                                          \
    if (op == ZB_STAT_PROD) {                                                   \
      uint64_t pr[4] = {p->iprod, 1, 1, 1};                                     \
      STAT_ROWS(T, 1, pr[t & 3] *= take ? (uint64_t)x : 1)                      \
      p->iprod = (pr[0] * pr[1]) * (pr[2] * pr[3]);                             \
    } else if (op == ZB_STAT_ANY) {                                             \
      int any = p->any;                                                         \
      STAT_ROWS(T, 1, any |= take & (x != 0))                                   \
      p->any = any;                                                             \
    } else if (op == ZB_STAT_ALL) {                                             \
      int all = p->all;                                                         \
      STAT_ROWS(T, 1, all &= !take | (x != 0))                                  \
      p->all = all;                                                             \
    }                                                                           \
    p->count += count;                                                          \
  }

/* prod, any and all of the floats v[0, n), NaN skipped: the product in
 * double, in row order. */
#define STAT_FLOAT_KERNEL(ID, T, NAME, U)                                       \
  static void stat_##NAME(zb_stat_op op, const T *v, const uint8_t *valid, int64_t voff, \
                          int64_t n, stat_partial *p) {                         \
    int64_t count = 0;                                                          \
    if (op == ZB_STAT_PROD) {                                                   \
      double pr = p->fprod;                                                     \
      STAT_ROWS(T, x == x, pr *= take ? (double)x : 1.0)                        \
      p->fprod = pr;                                                            \
    } else if (op == ZB_STAT_ANY) {                                             \
      int any = p->any;                                                         \
      STAT_ROWS(T, x == x, any |= take & (x != 0))                              \
      p->any = any;                                                             \
    } else if (op == ZB_STAT_ALL) {                                             \
      int all = p->all;                                                         \
      STAT_ROWS(T, x == x, all &= !take | (x != 0))                             \
      p->all = all;                                                             \
    }                                                                           \
    p->count += count;                                                          \
  }

ZB_FOR_EACH_INTEGER_TYPE(STAT_INT_KERNEL)
ZB_FOR_EACH_FLOAT_TYPE(STAT_FLOAT_KERNEL)
#undef STAT_INT_KERNEL
#undef STAT_FLOAT_KERNEL

/* prod, any and all of n bools (bits from voff of bits): a word at a time. */
static void stat_bool(zb_stat_op op, const uint8_t *bits, const uint8_t *valid, int64_t voff,
                      int64_t n, stat_partial *p) {
  for (int64_t k = 0; k < n; k += 64) {
    int mm = (int)ZB_MIN((int64_t)64, n - k);
    uint64_t w = valid != NULL ? zb__load_bits(valid, voff + k, mm) : zb__mask(mm);
    uint64_t b = zb__load_bits(bits, voff + k, mm);
    bool some_false = (~b & w) != 0;
    if (op == ZB_STAT_PROD && some_false) p->iprod = 0;
    p->any |= (b & w) != 0;
    p->all &= !some_false;
    p->count += __builtin_popcountll(w);
  }
}

static void stat_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  stat_job *j = (stat_job *)ctx;
  const zb_column *c = j->col;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, c->length - start);
  stat_partial *p = &j->parts[task];
  p->fprod = 1.0;
  p->iprod = 1;
  p->all = true;
  p->pos = -1;
  const uint8_t *valid = c->validity ? (const uint8_t *)c->validity->data : NULL;
  const void *d = c->data->data;
  int64_t off = c->offset + start;
  switch (c->type) {
    case ZB_BOOL: stat_bool(j->op, (const uint8_t *)d, valid, off, n, p); break;
#define STAT_CASE(ID, T, NAME, U)                                               \
    case ID: stat_##NAME(j->op, (const T *)d + off, valid, off, n, p); break;
    ZB_FOR_EACH_NUMERIC_TYPE(STAT_CASE)
#undef STAT_CASE
    default: break;
  }
}

/* Merge a group of nb values with mean mb and squared deviations m2b into
 * (n, mean, m2) (Chan, Golub and LeVeque's pairwise update). */
static inline void var_merge(int64_t *n, double *mean, double *m2, int64_t nb, double mb,
                             double m2b) {
  if (nb == 0) return;
  int64_t nn = *n + nb;
  double delta = mb - *mean;
  *mean += delta * ((double)nb / (double)nn);
  *m2 += m2b + delta * delta * ((double)*n * (double)nb / (double)nn);
  *n = nn;
}

typedef double zb_var_v4d __attribute__((vector_size(32)));
typedef int64_t zb_var_v4l __attribute__((vector_size(32)));

/* Vectors travel by pointer: passing one by value would change the ABI
 * between the target clones. */
static inline double var_hsum(const zb_var_v4d *a, const zb_var_v4d *b) {
  zb_var_v4d s = *a + *b;
  return (s[0] + s[1]) + (s[2] + s[3]);
}

/* Count, mean and squared deviations of the valid (validity bits from
 * valid[voff], when not NULL), non-NaN values among src[0, m), shifted by
 * `shift`, using buf (room for ZB_BLOCK; src itself when m is not a
 * multiple of 8): two passes over a block that sits in L1, in 8 lanes of vector
 * arithmetic without a branch per row; the mean is corrected by the
 * rounding the second pass measures. */
ZB_CLONES
static int64_t var_block(const double *src, const uint8_t *valid, int64_t voff, double *buf,
                         int64_t m, double shift, double *mean, double *m2) {
  double wt[ZB_BLOCK];
  int64_t m8 = (m + 7) / 8 * 8;
  for (int64_t k = m; k < m8; k++) buf[k] = NAN; /* src == buf when m % 8 != 0 */
  const zb_var_v4d zero = {0, 0, 0, 0}, sh = zero + shift, one = zero + 1.0;
  const zb_var_v4l lo = {0, 1, 2, 3}, hi = {4, 5, 6, 7}, zero_l = {0, 0, 0, 0};
  uint64_t word = 0;
  zb_var_v4d s0 = zero, s1 = zero, c0 = zero, c1 = zero;
  for (int64_t k = 0; k < m8; k += 8) {
    zb_var_v4d x0, x1;
    memcpy(&x0, src + k, sizeof x0);
    memcpy(&x1, src + k + 4, sizeof x1);
    zb_var_v4l ok0 = x0 == x0, ok1 = x1 == x1;
    if (valid != NULL) {
      if ((k & 63) == 0) word = zb__load_bits(valid, voff + k, (int)ZB_MIN((int64_t)64, m - k));
      zb_var_v4l bits = zero_l + (int64_t)((word >> (k & 63)) & 0xff);
      ok0 &= -((bits >> lo) & 1);
      ok1 &= -((bits >> hi) & 1);
    }
    zb_var_v4d d0 = (zb_var_v4d)((zb_var_v4l)(x0 - sh) & ok0);
    zb_var_v4d d1 = (zb_var_v4d)((zb_var_v4l)(x1 - sh) & ok1);
    zb_var_v4d w0 = (zb_var_v4d)((zb_var_v4l)one & ok0);
    zb_var_v4d w1 = (zb_var_v4d)((zb_var_v4l)one & ok1);
    memcpy(buf + k, &d0, sizeof d0);
    memcpy(buf + k + 4, &d1, sizeof d1);
    memcpy(wt + k, &w0, sizeof w0);
    memcpy(wt + k + 4, &w1, sizeof w1);
    s0 += d0;
    s1 += d1;
    c0 += w0;
    c1 += w1;
  }
  double cnt = var_hsum(&c0, &c1);
  if (cnt == 0) return 0;
  const zb_var_v4d mb = zero + var_hsum(&s0, &s1) / cnt;
  zb_var_v4d a0 = zero, a1 = zero, q0 = zero, q1 = zero;
  for (int64_t k = 0; k < m8; k += 8) {
    zb_var_v4d x0, x1, w0, w1;
    memcpy(&x0, buf + k, sizeof x0);
    memcpy(&x1, buf + k + 4, sizeof x1);
    memcpy(&w0, wt + k, sizeof w0);
    memcpy(&w1, wt + k + 4, sizeof w1);
    zb_var_v4d d0 = (x0 - mb) * w0, d1 = (x1 - mb) * w1;
    a0 += d0;
    a1 += d1;
    q0 += d0 * d0;
    q1 += d1 * d1;
  }
  double e = var_hsum(&a0, &a1);
  *mean = mb[0] + e / cnt;
  *m2 = var_hsum(&q0, &q1) - e * e / cnt;
  return (int64_t)cnt;
}

/* Variance partials in one pass over memory: each block of ZB_BLOCK rows
 * gets its exact mean and squared deviations (var_block), and blocks merge
 * into the morsel's (count, mean, M2) in order; morsels likewise (s1 =
 * mean, s2 = M2). */
static void var_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  stat_job *j = (stat_job *)ctx;
  const zb_column *c = j->col;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, c->length - start);
  stat_partial *p = &j->parts[task];
  p->fprod = 1.0;
  p->iprod = 1;
  p->all = true;
  p->pos = -1;
  double buf[ZB_BLOCK];
  for (int64_t b = 0; b < n; b += ZB_BLOCK) {
    int64_t m = ZB_MIN((int64_t)ZB_BLOCK, n - b);
    const double *src = buf;
    if (c->type == ZB_FLOAT64 && m % 8 == 0)
      src = (const double *)c->data->data + c->offset + start + b;
    else
      block_f(c, start + b, m, buf);
    const uint8_t *valid = c->validity ? (const uint8_t *)c->validity->data : NULL;
    double mb = 0, m2b = 0;
    int64_t cnt = var_block(src, valid, c->offset + start + b, buf, m, j->shift, &mb, &m2b);
    var_merge(&p->count, &p->s1, &p->s2, cnt, mb, m2b);
  }
}

/* ---- argmin / argmax ------------------------------------------------------ */

/* Order of strings a and b of c: memcmp, then length. */
static int cmp_str(const zb_column *c, int64_t a, int64_t b) {
  int64_t la, lb;
  const char *sa = zb__str(c, a, &la), *sb = zb__str(c, b, &lb);
  int r = memcmp(sa, sb, (size_t)ZB_MIN(la, lb));
  if (r != 0) return r < 0 ? -1 : 1;
  return (la > lb) - (la < lb);
}

/* a < b for rows of c (both valid, not NaN): for merging partials, one
 * call per morsel. */
static int cmp_rows(const zb_column *c, int64_t a, int64_t b) {
  const void *d = c->data->data;
  int64_t pa = c->offset + a, pb = c->offset + b;
  switch (zb__physical(c->type)) {
    case ZB_BOOL: {
      int x = zb_bit_get((const uint8_t *)d, pa), y = zb_bit_get((const uint8_t *)d, pb);
      return (x > y) - (x < y);
    }
#define CMP_CASE(ID, T, NAME, U)                                                \
    case ID: {                                                                  \
      T x = ((const T *)d)[pa], y = ((const T *)d)[pb];                         \
      return (x > y) - (x < y);                                                 \
    }
    ZB_FOR_EACH_NUMERIC_TYPE(CMP_CASE)
#undef CMP_CASE
    case ZB_STRING: return cmp_str(c, a, b);
    default: return 0;
  }
}

/* Return the first position in v[0, n) (validity from bit voff of valid,
 * NULL: all valid) of the smallest (BETTER: <) or largest (>) value that
 * is valid and not NaN; -1 if none.  One pass, 64 rows to a word: the
 * word's extreme by a reduction in 8 lanes without a branch per row
 * (IDENT, the identity, stands in for rows not valid; NaN loses every
 * comparison), and only when it beats the best so far (rarely, after the
 * first words) its first position in the word.  -0.0 and 0.0 are equal:
 * the first zero of either sign wins, as in a scan keeping the first
 * strict extreme. */
#define ARG_SCAN(T, BETTER, IDENT)                                              \
  {                                                                             \
    T best = (IDENT);                                                           \
    int64_t pos = -1;                                                           \
    uint8_t eq[64];                                                             \
    for (int64_t k = 0; k < n; k += 64) {                                       \
      int mm = (int)ZB_MIN((int64_t)64, n - k);                                 \
      uint64_t w = valid != NULL ? zb__load_bits(valid, voff + k, mm) : zb__mask(mm); \
      T lane[8];                                                                \
      for (int l = 0; l < 8; l++) lane[l] = (IDENT);                            \
      if (mm == 64 && w == ~UINT64_C(0)) {                                      \
        for (int t = 0; t < 64; t += 8)                                         \
          for (int l = 0; l < 8; l++) {                                         \
            T x = v[k + t + l];                                                 \
            lane[l] = x BETTER lane[l] ? x : lane[l];                           \
          }                                                                     \
      } else {                                                                  \
        for (int t = 0; t < mm; t++) {                                          \
          T x = ((w >> t) & 1) ? v[k + t] : (IDENT);                            \
          lane[t & 7] = x BETTER lane[t & 7] ? x : lane[t & 7];                 \
        }                                                                       \
      }                                                                         \
      T b = lane[0];                                                            \
      for (int l = 1; l < 8; l++) b = lane[l] BETTER b ? lane[l] : b;           \
      if ((b BETTER best) || pos < 0) {                                         \
        for (int t = 0; t < mm; t++) eq[t] = v[k + t] == b;                     \
        uint64_t hit = zb__pack_bools(eq, mm) & w;                              \
        if (hit != 0) {                                                         \
          best = b;                                                             \
          pos = k + __builtin_ctzll(hit);                                       \
        }                                                                       \
      }                                                                         \
    }                                                                           \
    return pos;                                                                 \
  }

/* argmin / argmax of the values of T (ARG_SCAN); LO and HI are T's
 * smallest and largest values. */
#define ARG_KERNEL(NAME, T, LO, HI)                                             \
  static int64_t arg_##NAME(const T *v, const uint8_t *valid, int64_t voff, int64_t n, \
                            bool want_max) {                                    \
    if (want_max) ARG_SCAN(T, >, LO)                                            \
    ARG_SCAN(T, <, HI)                                                          \
  }

#define ARG_SIGNED(ID, T, NAME, U) ARG_KERNEL(NAME, T, ZB_SIGNED_MIN(T, U), ZB_SIGNED_MAX(T, U))
#define ARG_UNSIGNED(ID, T, NAME, U) ARG_KERNEL(NAME, T, (T)0, ZB_UNSIGNED_MAX(U))
#define ARG_FLOAT(ID, T, NAME, U) ARG_KERNEL(NAME, T, (T)-INFINITY, (T)INFINITY)
ZB_FOR_EACH_SIGNED_TYPE(ARG_SIGNED)
ZB_FOR_EACH_UNSIGNED_TYPE(ARG_UNSIGNED)
ZB_FOR_EACH_FLOAT_TYPE(ARG_FLOAT)
#undef ARG_SIGNED
#undef ARG_UNSIGNED
#undef ARG_FLOAT
#undef ARG_KERNEL
#undef ARG_SCAN

/* argmin / argmax of n bools: the first valid row holding the extreme
 * value (true for max), else the first valid row. */
static int64_t arg_bool(const uint8_t *bits, const uint8_t *valid, int64_t voff, int64_t n,
                        bool want_max) {
  int64_t first = -1;
  for (int64_t k = 0; k < n; k += 64) {
    int mm = (int)ZB_MIN((int64_t)64, n - k);
    uint64_t w = valid != NULL ? zb__load_bits(valid, voff + k, mm) : zb__mask(mm);
    uint64_t b = zb__load_bits(bits, voff + k, mm);
    uint64_t hit = (want_max ? b : ~b) & w;
    if (hit != 0) return k + __builtin_ctzll(hit);
    if (first < 0 && w != 0) first = k + __builtin_ctzll(w);
  }
  return first;
}

/* argmin / argmax of strings s..e of c. */
static int64_t arg_str(const zb_column *c, int64_t s, int64_t e, bool want_max) {
  int64_t pos = -1;
  for (int64_t i = s; i < e; i++) {
    if (!zb_column_is_valid(c, i)) continue;
    if (pos < 0) {
      pos = i;
      continue;
    }
    int r = cmp_str(c, i, pos);
    if (want_max ? r > 0 : r < 0) pos = i;
  }
  return pos;
}

static void arg_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  stat_job *j = (stat_job *)ctx;
  const zb_column *c = j->col;
  int64_t s = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, c->length - s);
  bool want_max = j->op == ZB_STAT_ARGMAX;
  const uint8_t *valid = c->validity ? (const uint8_t *)c->validity->data : NULL;
  const void *d = c->data->data;
  int64_t off = c->offset + s, pos = -1;
  switch (zb__physical(c->type)) {
    case ZB_BOOL: pos = arg_bool((const uint8_t *)d, valid, off, n, want_max); break;
#define ARG_CASE(ID, T, NAME, U)                                                \
    case ID: pos = arg_##NAME((const T *)d + off, valid, off, n, want_max); break;
    ZB_FOR_EACH_NUMERIC_TYPE(ARG_CASE)
#undef ARG_CASE
    case ZB_STRING: j->parts[task].pos = arg_str(c, s, s + n, want_max); return;
    default: break;
  }
  j->parts[task].pos = pos < 0 ? -1 : s + pos;
}

/* ---- entry point ---------------------------------------------------------- */

zb_status zb__cpu_stat(const zb_column *col, zb_stat_op op, int64_t ddof, zb_scalar *out,
                       zb_error *err) {
  memset(out, 0, sizeof *out);
  if (op == ZB_STAT_MEDIAN) {
    double q = 0.5;
    return quantile_impl(col, 1, &q, out, true, err);
  }
  zb_type_id t = col->type;
  if ((op == ZB_STAT_VAR || op == ZB_STAT_STD) && t != ZB_BOOL) {
    /* pandas' two passes in its order of additions: the mean, then the
     * squared deviations from it, so the digits are pandas' too */
    double sum, m2;
    int64_t count;
    zb_status st = zb__cpu_pairwise_sum(col, ZB_PAIRWISE_SUM_F64, 0.0, &sum, &count, err);
    double mean = count > 0 ? sum / (double)count : 0.0;
    if (st == ZB_OK) st = zb__cpu_pairwise_sum(col, ZB_PAIRWISE_SQDEV, mean, &m2, &count, err);
    if (st != ZB_OK) return st;
    zb_stat_totals tot = {count, mean, m2, 1.0, 1, false, true, -1};
    return zb__stat_scalar(op, t, ddof, &tot, out, err);
  }
  int64_t n_morsels = zb__morsels(col->length);
  stat_job j = {col, op, NULL, 0.0};
  if (op == ZB_STAT_VAR || op == ZB_STAT_STD) {
    /* Means and deviations are kept relative to the first valid value, so
     * a large common offset costs no digits when blocks merge. */
    j.shift = first_value(col);
  }
  if (n_morsels > 0) {
    j.parts = (stat_partial *)zb_calloc((size_t)n_morsels, sizeof(stat_partial));
    if (j.parts == NULL)
      return zb_error_set(err, ZB_ENOMEM, "out of host memory (%lld %s partials)",
                          (long long)n_morsels, zb_stat_op_name(op));
    bool arg = op == ZB_STAT_ARGMIN || op == ZB_STAT_ARGMAX;
    bool var = op == ZB_STAT_VAR || op == ZB_STAT_STD;
    zb_status st = zb_parallel_for(n_morsels, arg ? arg_morsel : var ? var_morsel : stat_morsel,
                                   &j, err);
    if (st != ZB_OK) {
      zb_free(j.parts);
      return st;
    }
  }
  double fprod = 1.0;
  uint64_t iprod = 1;
  int64_t count = 0, pos = -1;
  bool any = false, all = true;
  int64_t var_n = 0;
  double var_mean = 0, var_m2 = 0;
  for (int64_t m = 0; m < n_morsels; m++) {
    stat_partial *p = &j.parts[m];
    if (op == ZB_STAT_VAR || op == ZB_STAT_STD)
      var_merge(&var_n, &var_mean, &var_m2, p->count, p->s1, p->s2);
    count += p->count;
    fprod *= p->fprod;
    iprod *= p->iprod;
    any |= p->any;
    all &= p->all;
    if (p->pos >= 0) {
      if (pos < 0) {
        pos = p->pos;
      } else {
        int r = cmp_rows(col, p->pos, pos);
        if (op == ZB_STAT_ARGMAX ? r > 0 : r < 0) pos = p->pos;
      }
    }
  }
  zb_free(j.parts);
  zb_stat_totals tot = {count, var_mean, var_m2, fprod, iprod, any, all, pos};
  return zb__stat_scalar(op, t, ddof, &tot, out, err);
}


/* ---- quantiles ------------------------------------------------------------ */

static inline void swap_d(double *a, double *b) {
  double t = *a;
  *a = *b;
  *b = t;
}

static void sift_down(double *a, int64_t start, int64_t end) {
  int64_t root = start;
  while (2 * root + 1 < end) {
    int64_t child = 2 * root + 1;
    if (child + 1 < end && a[child] < a[child + 1]) child++;
    if (a[root] < a[child]) {
      swap_d(&a[root], &a[child]);
      root = child;
    } else {
      return;
    }
  }
}

static void heap_sort(double *a, int64_t n) {
  for (int64_t i = n / 2 - 1; i >= 0; i--) sift_down(a, i, n);
  for (int64_t end = n - 1; end > 0; end--) {
    swap_d(&a[0], &a[end]);
    sift_down(a, 0, end);
  }
}

/* Rearrange a[lo, hi) so that a[k] is the value of rank k, everything
 * before it <= a[k] and everything after >= a[k] (NaN-free input).
 * Partitions are branch-free (Lomuto: each value is swapped to the front
 * of its side, an index advancing only past the values below the pivot),
 * so random data costs no mispredicted branches: four times as fast as
 * Hoare's partition on 10^7 random doubles.  A second pass splits the
 * values equal to the pivot from those above it, so repeated values end
 * the search at once.  After 2 log2(n) rounds without converging (a
 * pathological order), heap sort. */
void zb__select_kth(double *a, int64_t lo, int64_t hi, int64_t k) {
  int budget = 2;
  for (int64_t n = hi - lo; n > 1; n >>= 1) budget++;
  budget *= 2;
  while (hi - lo > 16) {
    if (budget-- == 0) {
      heap_sort(a + lo, hi - lo);
      return;
    }
    int64_t mid = lo + (hi - lo) / 2;
    /* median of three to a[mid] */
    if (a[mid] < a[lo]) swap_d(&a[mid], &a[lo]);
    if (a[hi - 1] < a[lo]) swap_d(&a[hi - 1], &a[lo]);
    if (a[hi - 1] < a[mid]) swap_d(&a[hi - 1], &a[mid]);
    double p = a[mid];
    int64_t lt = lo; /* a[lo, lt) < p <= a[lt, i) */
    for (int64_t i = lo; i < hi; i++) {
      double x = a[i];
      a[i] = a[lt];
      a[lt] = x;
      lt += x < p;
    }
    if (k < lt) {
      hi = lt;
      continue;
    }
    int64_t le = lt; /* a[lt, le) == p < a[le, i) */
    for (int64_t i = lt; i < hi; i++) {
      double x = a[i];
      a[i] = a[le];
      a[le] = x;
      le += x <= p;
    }
    if (k < le) return; /* a[k] == p */
    lo = le;
  }
  /* insertion sort of the small range */
  for (int64_t i = lo + 1; i < hi; i++) {
    double x = a[i];
    int64_t p = i - 1;
    while (p >= lo && a[p] > x) {
      a[p + 1] = a[p];
      p--;
    }
    a[p + 1] = x;
  }
}

/* median: interpolate halfway points as (lo + hi) / 2, like numpy's median. */
static zb_status quantile_impl(const zb_column *col, int64_t n_q, const double *q,
                               zb_scalar *out, bool median, zb_error *err) {
  for (int64_t i = 0; i < n_q; i++) {
    memset(&out[i], 0, sizeof out[i]);
    out[i].type = ZB_FLOAT64;
    out[i].is_null = true;
    out[i].v.f = NAN;
  }
  int64_t n = col->length;
  double *a = (double *)zb_malloc((size_t)ZB_MAX(n, 1) * sizeof(double));
  int64_t *order = (int64_t *)zb_malloc((size_t)ZB_MAX(n_q, 1) * sizeof(int64_t));
  if (a == NULL || order == NULL) {
    zb_free(a);
    zb_free(order);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (quantile of %lld values)",
                        (long long)n);
  }
  int64_t cnt = 0;
  double buf[ZB_BLOCK];
  for (int64_t b = 0; b < n; b += ZB_BLOCK) {
    int64_t m = ZB_MIN((int64_t)ZB_BLOCK, n - b);
    block_f(col, b, m, buf);
    if (col->validity == NULL) {
      for (int64_t i = 0; i < m; i++) {
        a[cnt] = buf[i];
        cnt += buf[i] == buf[i];
      }
    } else {
      for (int64_t i = 0; i < m; i++) {
        a[cnt] = buf[i];
        cnt += buf[i] == buf[i] && zb_column_is_valid(col, b + i);
      }
    }
  }
  /* Ranks in increasing order: each selection narrows the next one's range. */
  for (int64_t i = 0; i < n_q; i++) order[i] = i;
  for (int64_t i = 1; i < n_q; i++) { /* insertion sort of the q indices */
    int64_t x = order[i], p = i - 1;
    while (p >= 0 && q[order[p]] > q[x]) {
      order[p + 1] = order[p];
      p--;
    }
    order[p + 1] = x;
  }
  int64_t lo_bound = 0;
  for (int64_t oi = 0; cnt > 0 && oi < n_q; oi++) {
    int64_t qi = order[oi];
    double t;
    int64_t k = zb__quantile_rank(cnt, q[qi], &t);
    zb__select_kth(a, lo_bound, cnt, k);
    lo_bound = k;
    double lo = a[k], hi = lo;
    if (t > 0 && k + 1 < cnt) {
      hi = a[k + 1];
      for (int64_t i = k + 2; i < cnt; i++) hi = a[i] < hi ? a[i] : hi;
    }
    out[qi].is_null = false;
    out[qi].v.f = zb__quantile_lerp(lo, hi, t, median);
  }
  zb_free(a);
  zb_free(order);
  return ZB_OK;
}

zb_status zb__cpu_quantile(const zb_column *col, int64_t n_q, const double *q, zb_scalar *out,
                           zb_error *err) {
  return quantile_impl(col, n_q, q, out, false, err);
}
