/*
 * reduce.c -- CPU reference reductions (sum, min, max, mean, count) over a
 * numeric or bool column, in parallel morsels.
 *
 * Each morsel of ZB_MORSEL_ROWS rows yields a partial (exact 128-bit
 * integer sum, compensated float sum, count, min, max); partials are
 * combined in morsel order, so the result does not depend on the thread
 * count.  Rows are taken in runs of 64 that share one validity word (an
 * all-null run is skipped); the kernels are written with vector extensions
 * on 4 x 64-bit lanes, so a run's mask is a vector shift of its word and
 * nulls are blended out without per-row branches.  Integer sums are exact
 * (low and high 32-bit halves summed separately; in a run without nulls
 * the high halves are shifted logically, which AVX2 has, and 2^64 is taken
 * off per negative value), so sums wrap only when the result is narrowed
 * to int64 (as numpy does) and a mean is the exact quotient, correctly
 * rounded (core/exact_mean.h).  Float sums and means are added in
 * numpy's pairwise order, as pandas adds them (reduce_pairwise.c); the
 * float kernels here serve count, min and max.  NaN is skipped like a
 * null (pandas' skipna).
 */
#include <math.h>
#include <string.h>

#include "core/dtype_list.h"
#include "core/exact_mean.h"
#include "cpu/kernels.h"

__extension__ typedef __int128 zb_i128;

typedef struct partial {
  zb_i128 exact; /* integers and bools: the exact sum */
  double fsum, fcomp; /* floats: Neumaier sum */
  int64_t count;
  bool has;
  union {
    int64_t i;
    uint64_t u;
    double f;
  } min, max;
} partial;

/* Neumaier: add x into (s, c). */
static inline void kahan_add(double *s, double *c, double x) {
  double t = *s + x;
  if (fabs(*s) >= fabs(x))
    *c += (*s - t) + x;
  else
    *c += (x - t) + *s;
  *s = t;
}

/* nbits (1..64) validity bits from bit position start, bit k = row start+k. */
static inline uint64_t load_bits(const uint8_t *bits, int64_t start, int nbits) {
  int64_t byte = start >> 3;
  int shift = (int)(start & 7);
  int nbytes = (shift + nbits + 7) >> 3;
  uint64_t lo = 0;
  unsigned char tmp[9] = {0};
  memcpy(tmp, bits + byte, (size_t)nbytes);
  memcpy(&lo, tmp, 8);
  uint64_t w = lo >> shift;
  if (shift != 0 && nbytes == 9) w |= (uint64_t)tmp[8] << (64 - shift);
  return nbits == 64 ? w : w & ((UINT64_C(1) << nbits) - 1);
}

typedef int64_t zb_v4l __attribute__((vector_size(32)));
typedef uint64_t zb_v4u __attribute__((vector_size(32)));
typedef double zb_v4d __attribute__((vector_size(32)));

/* All-ones lanes for the rows j..j+3 of a run whose validity word is w (a
 * macro: a function returning a vector would change ABI between clones). */
#define run_mask(w, j)                                                              \
  (-(zb_v4l)((((zb_v4u){(w), (w), (w), (w)}) >>                                     \
              ((zb_v4u){(uint64_t)(j), (uint64_t)(j) + 1, (uint64_t)(j) + 2,       \
                        (uint64_t)(j) + 3})) &                                      \
             1))

/* Lanes of a where m is set, else of b (bit patterns). */
#define ZB_SELECT(m, a, b) (((a) & (m)) | ((b) & ~(m)))

/* Integer kernels: 4 rows at a time widened to 64-bit lanes.  SIGNED picks
 * the lane type (signed or unsigned compares, arithmetic or logical high
 * halves).  The last run of a morsel may be partial: it is done row by row. */
#define DEFINE_IREDUCE(NAME, T, LANE, LO, HI)                                          \
  typedef T NAME##_raw __attribute__((vector_size(4 * sizeof(T))));                    \
  ZB_CLONES static void NAME(const T *v, const uint8_t *valid, int64_t off, int64_t n, \
                             bool want_sum, bool want_minmax, partial *p) {           \
    zb_v4u sum_lo = {0, 0, 0, 0};                                                     \
    zb_v4l sum_hi = {0, 0, 0, 0};                                                     \
    zb_v4u sum_hiu = {0, 0, 0, 0}, negs = {0, 0, 0, 0}; /* runs without nulls */      \
    LANE vmin = {HI, HI, HI, HI}, vmax = {LO, LO, LO, LO};                            \
    LANE lo_id = vmax, hi_id = vmin;                                                  \
    zb_i128 tail = 0;                                                                 \
    int64_t count = 0;                                                                \
    for (int64_t base = 0; base < n; base += 64) {                                    \
      int m = (int)ZB_MIN((int64_t)64, n - base);                                     \
      uint64_t w = valid ? load_bits(valid, off + base, m)                            \
                         : (m == 64 ? ~UINT64_C(0) : (UINT64_C(1) << m) - 1);         \
      if (w == 0) continue;                                                           \
      const T *x = v + off + base;                                                    \
      count += __builtin_popcountll(w);                                               \
      if (m < 64) {                                                                   \
        for (int k = 0; k < m; k++) {                                                 \
          if (!((w >> k) & 1)) continue;                                              \
          tail += x[k];                                                               \
          if (x[k] < (T)vmin[0]) vmin[0] = x[k];                                      \
          if (x[k] > (T)vmax[0]) vmax[0] = x[k];                                      \
        }                                                                             \
        continue;                                                                     \
      }                                                                               \
      if (want_sum && w == ~UINT64_C(0)) {                                            \
        /* no nulls: high halves shifted logically (native in AVX2), and   \
         * 2^64 taken off per negative value (counted as -1 lanes) */      \
        for (int j = 0; j < 64; j += 4) {                                             \
          NAME##_raw raw;                                                             \
          memcpy(&raw, x + j, sizeof raw);                                            \
          zb_v4u xu = (zb_v4u)__builtin_convertvector(raw, LANE);                     \
          sum_lo += xu & 0xffffffffu;                                                 \
          sum_hiu += xu >> 32;                                                        \
          if ((LO) < 0) negs += (zb_v4u)((zb_v4l)xu < 0);                             \
        }                                                                             \
      } else if (want_sum) {                                                          \
        for (int j = 0; j < 64; j += 4) {                                             \
          NAME##_raw raw;                                                             \
          memcpy(&raw, x + j, sizeof raw);                                            \
          zb_v4l mk = run_mask(w, j);                                                 \
          LANE xv = __builtin_convertvector(raw, LANE);                               \
          sum_lo += ((zb_v4u)xv & 0xffffffffu) & (zb_v4u)mk;                          \
          sum_hi += (zb_v4l)(xv >> 32) & mk;                                          \
        }                                                                             \
      }                                                                               \
      if (want_minmax) {                                                              \
        for (int j = 0; j < 64; j += 4) {                                             \
          NAME##_raw raw;                                                             \
          memcpy(&raw, x + j, sizeof raw);                                            \
          LANE mk = (LANE)run_mask(w, j);                                             \
          LANE xv = __builtin_convertvector(raw, LANE);                               \
          LANE a = ZB_SELECT(mk, xv, hi_id), b = ZB_SELECT(mk, xv, lo_id);            \
          LANE lt = (LANE)(a < vmin), gt = (LANE)(b > vmax);                          \
          vmin = ZB_SELECT(lt, a, vmin);                                              \
          vmax = ZB_SELECT(gt, b, vmax);                                              \
        }                                                                             \
      }                                                                               \
    }                                                                                 \
    zb_i128 exact = tail;                                                             \
    for (int u = 0; u < 4; u++)                                                       \
      exact += (zb_i128)sum_hi[u] * ((zb_i128)1 << 32) + (zb_i128)sum_lo[u] +         \
               (zb_i128)sum_hiu[u] * ((zb_i128)1 << 32) +                             \
               (zb_i128)(int64_t)negs[u] * ((zb_i128)1 << 64);                        \
    p->exact += exact;                                                                \
    if (want_sum) p->count += count;                                                  \
    if (want_minmax && count > 0) {                                                   \
      T lo = (T)vmin[0], hi = (T)vmax[0];                                             \
      for (int u = 1; u < 4; u++) {                                                   \
        if ((T)vmin[u] < lo) lo = (T)vmin[u];                                         \
        if ((T)vmax[u] > hi) hi = (T)vmax[u];                                         \
      }                                                                               \
      store_minmax_##LANE(p, lo, hi);                                                 \
    }                                                                                 \
  }

static inline void store_minmax_zb_v4l(partial *p, int64_t lo, int64_t hi) {
  if (!p->has || lo < p->min.i) p->min.i = lo;
  if (!p->has || hi > p->max.i) p->max.i = hi;
  p->has = true;
}
static inline void store_minmax_zb_v4u(partial *p, uint64_t lo, uint64_t hi) {
  if (!p->has || lo < p->min.u) p->min.u = lo;
  if (!p->has || hi > p->max.u) p->max.u = hi;
  p->has = true;
}

/* Float kernels: 4 rows at a time as doubles; NaN is masked like a null. */
#define DEFINE_FREDUCE(NAME, T)                                                        \
  typedef T NAME##_raw __attribute__((vector_size(4 * sizeof(T))));                    \
  ZB_CLONES static void NAME(const T *v, const uint8_t *valid, int64_t off, int64_t n, \
                             bool want_sum, bool want_minmax, partial *p) {           \
    const zb_v4d inf = {INFINITY, INFINITY, INFINITY, INFINITY};                      \
    zb_v4d block[2] = {{0, 0, 0, 0}, {0, 0, 0, 0}};                                   \
    zb_v4d vmin = inf, vmax = -inf;                                                   \
    zb_v4l cnt = {0, 0, 0, 0};                                                        \
    int in_block = 0;                                                                 \
    for (int64_t base = 0; base < n; base += 64) {                                    \
      int m = (int)ZB_MIN((int64_t)64, n - base);                                     \
      uint64_t w = valid ? load_bits(valid, off + base, m)                            \
                         : (m == 64 ? ~UINT64_C(0) : (UINT64_C(1) << m) - 1);         \
      if (w == 0) continue;                                                           \
      const T *x = v + off + base;                                                    \
      zb_v4d lane[2] = {{0, 0, 0, 0}, {0, 0, 0, 0}};                                  \
      if (m < 64) {                                                                   \
        for (int k = 0; k < m; k++) {                                                 \
          double d = (double)x[k];                                                    \
          if (!((w >> k) & 1) || isnan(d)) continue;                                  \
          lane[0][0] += d;                                                            \
          cnt[0]++;                                                                   \
          if (d < vmin[0]) vmin[0] = d;                                               \
          if (d > vmax[0]) vmax[0] = d;                                               \
        }                                                                             \
      } else if (want_sum) {                                                          \
        for (int j = 0; j < 64; j += 8) {                                             \
          for (int h = 0; h < 2; h++) {                                               \
            NAME##_raw raw;                                                           \
            memcpy(&raw, x + j + 4 * h, sizeof raw);                                  \
            zb_v4d xd = __builtin_convertvector(raw, zb_v4d);                         \
            zb_v4l ok = run_mask(w, j + 4 * h) & (xd == xd);                          \
            lane[h] += (zb_v4d)((zb_v4l)xd & ok);                                     \
            cnt -= ok;                                                                \
          }                                                                           \
        }                                                                             \
      } else {                                                                        \
        for (int j = 0; j < 64; j += 4) {                                             \
          NAME##_raw raw;                                                             \
          memcpy(&raw, x + j, sizeof raw);                                            \
          zb_v4d xd = __builtin_convertvector(raw, zb_v4d);                           \
          zb_v4l ok = run_mask(w, j) & (xd == xd);                                    \
          zb_v4l a = ZB_SELECT(ok, (zb_v4l)xd, (zb_v4l)inf);                          \
          zb_v4l b = ZB_SELECT(ok, (zb_v4l)xd, (zb_v4l)(-inf));                       \
          zb_v4l lt = (zb_v4d)a < vmin, gt = (zb_v4d)b > vmax;                        \
          vmin = (zb_v4d)ZB_SELECT(lt, a, (zb_v4l)vmin);                              \
          vmax = (zb_v4d)ZB_SELECT(gt, b, (zb_v4l)vmax);                              \
          cnt -= ok;                                                                  \
        }                                                                             \
      }                                                                               \
      if (want_sum) {                                                                 \
        block[0] += lane[0];                                                          \
        block[1] += lane[1];                                                          \
        if (++in_block == 16) {                                                       \
          zb_v4d b2 = block[0] + block[1];                                            \
          kahan_add(&p->fsum, &p->fcomp, (b2[0] + b2[1]) + (b2[2] + b2[3]));          \
          block[0] = block[1] = (zb_v4d){0, 0, 0, 0};                                 \
          in_block = 0;                                                               \
        }                                                                             \
      }                                                                               \
    }                                                                                 \
    zb_v4d b2 = block[0] + block[1];                                                  \
    kahan_add(&p->fsum, &p->fcomp, (b2[0] + b2[1]) + (b2[2] + b2[3]));                \
    int64_t count = cnt[0] + cnt[1] + cnt[2] + cnt[3];                                \
    if (want_sum) p->count += count;                                                  \
    if (want_minmax && count > 0) {                                                   \
      double lo = vmin[0], hi = vmax[0];                                              \
      for (int u = 1; u < 4; u++) {                                                   \
        lo = vmin[u] < lo ? vmin[u] : lo;                                             \
        hi = vmax[u] > hi ? vmax[u] : hi;                                             \
      }                                                                               \
      if (!p->has || lo < p->min.f) p->min.f = lo;                                    \
      if (!p->has || hi > p->max.f) p->max.f = hi;                                    \
      p->has = true;                                                                  \
    }                                                                                 \
  }

#define IREDUCE_S(ID, T, NAME, U) \
  DEFINE_IREDUCE(reduce_##NAME, T, zb_v4l, ZB_SIGNED_MIN(T, U), ZB_SIGNED_MAX(T, U))
#define IREDUCE_U(ID, T, NAME, U) DEFINE_IREDUCE(reduce_##NAME, T, zb_v4u, 0, ZB_UNSIGNED_MAX(U))
#define FREDUCE(ID, T, NAME, U) DEFINE_FREDUCE(reduce_##NAME, T)
ZB_FOR_EACH_SIGNED_TYPE(IREDUCE_S)
ZB_FOR_EACH_UNSIGNED_TYPE(IREDUCE_U)
ZB_FOR_EACH_FLOAT_TYPE(FREDUCE)
#undef IREDUCE_S
#undef IREDUCE_U
#undef FREDUCE

/* bool: values are a bitmap too. */
static void reduce_bool(const uint8_t *v, const uint8_t *valid, int64_t off, int64_t n,
                        partial *p) {
  int64_t trues = 0, count = 0;
  for (int64_t base = 0; base < n; base += 64) {
    int m = (int)ZB_MIN((int64_t)64, n - base);
    uint64_t w = valid ? load_bits(valid, off + base, m)
                       : (m == 64 ? ~UINT64_C(0) : (UINT64_C(1) << m) - 1);
    uint64_t b = load_bits(v, off + base, m) & w;
    count += __builtin_popcountll(w);
    trues += __builtin_popcountll(b);
  }
  p->exact += trues;
  p->count += count;
  if (count > 0) {
    bool mn = trues == count, mx = trues > 0;
    if (!p->has || mn < p->min.i) p->min.i = mn;
    if (!p->has || mx > p->max.i) p->max.i = mx;
    p->has = true;
  }
}

typedef struct reduce_job {
  const zb_column *col;
  partial *parts;
  bool want_sum, want_minmax;
} reduce_job;

static void reduce_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  reduce_job *j = (reduce_job *)ctx;
  const zb_column *c = j->col;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, c->length - start);
  const uint8_t *valid = c->validity ? (const uint8_t *)c->validity->data : NULL;
  const void *v = c->data->data;
  int64_t off = c->offset + start;
  partial *p = &j->parts[task];
  bool s = j->want_sum, mm = j->want_minmax;
  switch (c->type) {
    case ZB_BOOL: reduce_bool((const uint8_t *)v, valid, off, n, p); break;
#define REDUCE_CASE(ID, T, NAME, U) \
    case ID: reduce_##NAME((const T *)v, valid, off, n, s, mm, p); break;
    ZB_FOR_EACH_NUMERIC_TYPE(REDUCE_CASE)
#undef REDUCE_CASE
    default: break;
  }
}

static bool less_than(zb_type_id t, const partial *a, const partial *b, bool use_min) {
  if (t == ZB_BOOL || zb_type_is_signed(t))
    return use_min ? a->min.i < b->min.i : a->max.i < b->max.i;
  if (zb_type_is_integer(t)) return use_min ? a->min.u < b->min.u : a->max.u < b->max.u;
  return use_min ? a->min.f < b->min.f : a->max.f < b->max.f;
}

zb_status zb__cpu_reduce(const zb_column *col, zb_reduce_op op, zb_scalar *out,
                         zb_error *err) {
  zb_type_id t = col->type;
  memset(out, 0, sizeof *out);
  bool want_minmax = op == ZB_REDUCE_MIN || op == ZB_REDUCE_MAX;
  bool want_sum = !want_minmax;
  if (op == ZB_REDUCE_COUNT && !zb_type_is_float(t)) {
    /* Only NaN can make count differ from the valid rows. */
    out->type = ZB_INT64;
    out->v.i = col->length - col->null_count;
    return ZB_OK;
  }
  if (zb_type_is_float(t) && (op == ZB_REDUCE_SUM || op == ZB_REDUCE_MEAN)) {
    /* pandas' order of additions, so the digits are pandas' too */
    double sum;
    int64_t count;
    zb_status st = zb__cpu_pairwise_sum(col, ZB_PAIRWISE_SUM, 0.0, &sum, &count, err);
    if (st != ZB_OK) return st;
    out->type = ZB_FLOAT64;
    out->v.f = sum;
    if (op == ZB_REDUCE_MEAN) {
      out->is_null = count == 0;
      /* float32: pandas divides in float32 */
      out->v.f = count == 0 ? NAN
                 : t == ZB_FLOAT32 ? (double)((float)sum / (float)count)
                                   : sum / (double)count;
    }
    return ZB_OK;
  }
  int64_t n_morsels = (col->length + ZB_MORSEL_ROWS - 1) / ZB_MORSEL_ROWS;
  partial total;
  memset(&total, 0, sizeof total);
  if (n_morsels > 0) {
    partial *parts = (partial *)zb_calloc((size_t)n_morsels, sizeof(partial));
    if (parts == NULL)
      return zb_error_set(err, ZB_ENOMEM, "out of host memory (%lld reduction partials)",
                          (long long)n_morsels);
    reduce_job j = {col, parts, want_sum, want_minmax};
    zb_status st = zb_parallel_for(n_morsels, reduce_morsel, &j, err);
    if (st != ZB_OK) {
      zb_free(parts);
      return st;
    }
    for (int64_t m = 0; m < n_morsels; m++) {
      partial *p = &parts[m];
      total.exact += p->exact;
      kahan_add(&total.fsum, &total.fcomp, p->fsum);
      if (isfinite(p->fcomp)) kahan_add(&total.fsum, &total.fcomp, p->fcomp);
      total.count += p->count;
      if (p->has) {
        if (!total.has || less_than(t, p, &total, true)) total.min = p->min;
        if (!total.has || less_than(t, &total, p, false)) total.max = p->max;
        total.has = true;
      }
    }
    zb_free(parts);
  }
  /* An infinite term makes the compensation NaN: the sum is then the infinity. */
  double fsum = isfinite(total.fsum) ? total.fsum + total.fcomp : total.fsum;
  switch (op) {
    case ZB_REDUCE_COUNT:
      out->type = ZB_INT64;
      out->v.i = total.count;
      break;
    case ZB_REDUCE_MEAN:
      out->type = ZB_FLOAT64;
      out->is_null = total.count == 0;
      if (total.count == 0)
        out->v.f = NAN;
      else if (zb_type_is_float(t))
        out->v.f = fsum / (double)total.count;
      else
        out->v.f = zb__exact_mean((int64_t)(total.exact >> 64), (uint64_t)total.exact,
                                  total.count);
      break;
    case ZB_REDUCE_SUM:
      if (zb_type_is_float(t)) {
        out->type = ZB_FLOAT64;
        out->v.f = fsum;
      } else if (zb_type_is_integer(t) && !zb_type_is_signed(t)) {
        out->type = ZB_UINT64;
        out->v.u = (uint64_t)total.exact; /* modulo 2^64, as numpy wraps */
      } else {
        out->type = ZB_INT64;
        out->v.i = (int64_t)(uint64_t)total.exact;
      }
      break;
    case ZB_REDUCE_MIN:
    case ZB_REDUCE_MAX: {
      out->type = t;
      out->is_null = !total.has;
      const partial *p = &total;
      bool mn = op == ZB_REDUCE_MIN;
      if (t == ZB_BOOL)
        out->v.b = (mn ? p->min.i : p->max.i) != 0;
      else if (zb_type_is_signed(t))
        out->v.i = mn ? p->min.i : p->max.i;
      else if (zb_type_is_integer(t))
        out->v.u = mn ? p->min.u : p->max.u;
      else
        out->v.f = mn ? p->min.f : p->max.f;
      break;
    }
    default:
      return zb_error_set(err, ZB_EINVAL, "unknown reduction %d", (int)op);
  }
  return ZB_OK;
}
