/*
 * reduce.c -- CPU reference reductions (sum, min, max, mean, count) over a
 * numeric or bool column, in parallel morsels.
 *
 * Each morsel of ZB_MORSEL_ROWS rows yields a partial (exact wrapping
 * integer sum, compensated float sum, count, min, max); partials are
 * combined in morsel order, so the result does not depend on the thread
 * count.  Validity is read 64 bits at a time: all-valid words take a tight
 * loop, all-null words are skipped.  Float sums use 8 independent lanes per
 * 1024-value block and Neumaier compensation across blocks.  NaN is skipped
 * like a null (pandas' skipna).
 */
#include <math.h>
#include <string.h>

#include "core/internal.h"

typedef struct partial {
  uint64_t isum; /* wrapping integer sum (two's complement) */
  double fsum, fcomp;
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

/* Per-type kernels.  KIND: 0 signed, 1 unsigned, 2 float.  Rows are
 * processed in runs of up to 64 that share one validity word. */
#define DEFINE_REDUCE(NAME, T, KIND, FIELD)                                               \
  static void NAME(const T *v, const uint8_t *valid, int64_t off, int64_t n, bool want_sum, \
                   bool want_minmax, partial *p) {                                      \
    double block[8] = {0};                                                              \
    int in_block = 0;                                                                   \
    uint64_t isum = 0;                                                                  \
    int64_t count = 0;                                                                  \
    T mn = 0, mx = 0;                                                                   \
    bool has = false;                                                                   \
    for (int64_t base = 0; base < n; base += 64) {                                      \
      int m = (int)ZB_MIN((int64_t)64, n - base);                                       \
      uint64_t w = valid ? load_bits(valid, off + base, m)                              \
                         : (m == 64 ? ~UINT64_C(0) : (UINT64_C(1) << m) - 1);           \
      if (w == 0) continue;                                                             \
      const T *x = v + off + base;                                                      \
      bool full = m == 64 ? w == ~UINT64_C(0) : w == (UINT64_C(1) << m) - 1;            \
      if (want_sum) {                                                                   \
        double lane[8] = {0};                                                           \
        if (full && KIND != 2) {                                                        \
          for (int k = 0; k < m; k++) {                                                 \
            isum += (uint64_t)x[k];                                                     \
            lane[k & 7] += (double)x[k];                                                \
          }                                                                             \
          count += m;                                                                   \
        } else if (full) {                                                              \
          int c = 0;                                                                    \
          for (int k = 0; k < m; k++) {                                                 \
            double d = (double)x[k];                                                    \
            bool ok = !isnan(d);                                                         \
            lane[k & 7] += ok ? d : 0.0;                                                \
            c += ok;                                                                    \
          }                                                                             \
          count += c;                                                                   \
        } else {                                                                        \
          for (int k = 0; k < m; k++) {                                                 \
            double d = (double)x[k];                                                    \
            bool ok = ((w >> k) & 1) && !isnan(d);                                         \
            if (KIND != 2) isum += ok ? (uint64_t)x[k] : 0;                             \
            lane[k & 7] += ok ? d : 0.0;                                                \
            count += ok;                                                                \
          }                                                                             \
        }                                                                               \
        for (int k = 0; k < 8; k++) block[k] += lane[k];                                \
        if (++in_block == 16) {                                                         \
          kahan_add(&p->fsum, &p->fcomp,                                                \
                    ((block[0] + block[1]) + (block[2] + block[3])) +                   \
                        ((block[4] + block[5]) + (block[6] + block[7])));               \
          memset(block, 0, sizeof block);                                               \
          in_block = 0;                                                                 \
        }                                                                               \
      }                                                                                 \
      if (want_minmax) {                                                                \
        for (int k = 0; k < m; k++) {                                                   \
          T xv = x[k];                                                                  \
          if (!((w >> k) & 1) || (KIND == 2 && isnan((double)xv))) continue;                                    \
          if (!has) {                                                                   \
            mn = mx = xv;                                                               \
            has = true;                                                                 \
          }                                                                             \
          mn = xv < mn ? xv : mn;                                                       \
          mx = xv > mx ? xv : mx;                                                       \
        }                                                                               \
      }                                                                                 \
    }                                                                                   \
    kahan_add(&p->fsum, &p->fcomp,                                                      \
              ((block[0] + block[1]) + (block[2] + block[3])) +                         \
                  ((block[4] + block[5]) + (block[6] + block[7])));                     \
    p->isum += isum;                                                                    \
    if (want_sum) p->count += count;                                                    \
    if (has) {                                                                          \
      if (!p->has || mn < (T)p->min.FIELD) p->min.FIELD = mn;                           \
      if (!p->has || mx > (T)p->max.FIELD) p->max.FIELD = mx;                           \
      p->has = true;                                                                    \
    }                                                                                   \
  }

DEFINE_REDUCE(reduce_i8, int8_t, 0, i)
DEFINE_REDUCE(reduce_i16, int16_t, 0, i)
DEFINE_REDUCE(reduce_i32, int32_t, 0, i)
DEFINE_REDUCE(reduce_i64, int64_t, 0, i)
DEFINE_REDUCE(reduce_u8, uint8_t, 1, u)
DEFINE_REDUCE(reduce_u16, uint16_t, 1, u)
DEFINE_REDUCE(reduce_u32, uint32_t, 1, u)
DEFINE_REDUCE(reduce_u64, uint64_t, 1, u)
DEFINE_REDUCE(reduce_f32, float, 2, f)
DEFINE_REDUCE(reduce_f64, double, 2, f)

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
  p->isum += (uint64_t)trues;
  p->fsum += (double)trues;
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
    case ZB_INT8: reduce_i8((const int8_t *)v, valid, off, n, s, mm, p); break;
    case ZB_INT16: reduce_i16((const int16_t *)v, valid, off, n, s, mm, p); break;
    case ZB_INT32: reduce_i32((const int32_t *)v, valid, off, n, s, mm, p); break;
    case ZB_INT64: reduce_i64((const int64_t *)v, valid, off, n, s, mm, p); break;
    case ZB_UINT8: reduce_u8((const uint8_t *)v, valid, off, n, s, mm, p); break;
    case ZB_UINT16: reduce_u16((const uint16_t *)v, valid, off, n, s, mm, p); break;
    case ZB_UINT32: reduce_u32((const uint32_t *)v, valid, off, n, s, mm, p); break;
    case ZB_UINT64: reduce_u64((const uint64_t *)v, valid, off, n, s, mm, p); break;
    case ZB_FLOAT32: reduce_f32((const float *)v, valid, off, n, s, mm, p); break;
    case ZB_FLOAT64: reduce_f64((const double *)v, valid, off, n, s, mm, p); break;
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
      total.isum += p->isum;
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
      out->v.f = total.count ? fsum / (double)total.count : NAN;
      break;
    case ZB_REDUCE_SUM:
      if (zb_type_is_float(t)) {
        out->type = ZB_FLOAT64;
        out->v.f = fsum;
      } else if (zb_type_is_integer(t) && !zb_type_is_signed(t)) {
        out->type = ZB_UINT64;
        out->v.u = total.isum;
      } else {
        out->type = ZB_INT64;
        out->v.i = (int64_t)total.isum;
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
