/*
 * stats.cu -- var, std, prod, any, all, argmin, argmax, median and
 * quantiles of a numeric,
 * date or timestamp column in device memory (the CUDA side of
 * zb_backend.stat and .quantile; src/cpu/reduce_stats.c is the reference).
 * Median, quantiles, argmin and argmax of bools and argmin / argmax of
 * strings are not in the backend's table (dispatch.cu): the CPU runs them.
 *
 * Nulls and NaN are skipped, as on the CPU.  Each warp of a grid-stride loop
 * folds its threads' state with shuffles and writes one partial; the host
 * combines the partials in warp order, so a result does not depend on
 * scheduling.  Kernels are templates stamped per storage type from the
 * dtype list (core/dtype_list.h), so no row goes through a type switch.
 *   - var / std: the mean comes from the exact mean of reduce.cu; one pass
 *     sums d = x - mean and d * d, and M2 = sum(d^2) - sum(d)^2 / count
 *     (the correction the CPU's blocks use too).  Equal to the CPU's within
 *     rounding (the CPU merges blocks with Chan's formula).
 *   - prod: floats multiply in double (rounding order differs from the
 *     CPU's); integers wrap modulo 2^64, which is exact in any order.
 *   - any / all: whether any / every value is nonzero.
 *   - argmin / argmax: the extreme from reduce.cu's min / max, then the
 *     smallest position holding it (atomicMin): the CPU's first position;
 *   - median / quantiles: the values sorted on the device (radix sort by
 *     order key, missing rows last), the two values around each rank read
 *     back and interpolated by the CPU's own function.
 */
#define CCCL_DISABLE_NVTX

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/dtype_list.h"
#include "cuda/cuda_internal.h"

#define ZB_STAT_THREADS 256

namespace {

/* A column as the kernels read it. */
struct zb_scol {
  const void *data;
  const uint8_t *valid; /* NULL: no nulls */
  int64_t off;
  int type;
};

/* Marker type: the data buffer is an Arrow bitmap (bool columns). */
struct zb_sbits {};

/* Value p of a column's data as double (*x) and as the bits an integer
 * product multiplies (*bits: sign-extended; 0 for floats); whether it is
 * a number (not NaN).  One overload per kind, so a kernel stamped per type
 * reads its rows without a type switch. */
template <typename T>
__device__ __forceinline__ bool zb_stat_value(const T *d, int64_t p, double *x,
                                              unsigned long long *bits) {
  const T v = d[p];
  *bits = (unsigned long long)v; /* integers: modulo 2^64, i.e. sign-extended */
  *x = (double)v;
  return true;
}
__device__ __forceinline__ bool zb_stat_value(const float *d, int64_t p, double *x,
                                              unsigned long long *bits) {
  *x = d[p];
  *bits = 0;
  return *x == *x;
}
__device__ __forceinline__ bool zb_stat_value(const double *d, int64_t p, double *x,
                                              unsigned long long *bits) {
  *x = d[p];
  *bits = 0;
  return *x == *x;
}
__device__ __forceinline__ bool zb_stat_value(const zb_sbits *d, int64_t p, double *x,
                                              unsigned long long *bits) {
  *bits = zb__cuda_bit((const uint8_t *)d, p);
  *x = (double)*bits;
  return true;
}

/* Row i of a column of storage type T as double, and whether it is taken
 * (valid and not NaN). */
template <typename T>
__device__ __forceinline__ bool zb_stat_load(const zb_scol &c, int64_t i, double *x,
                                             unsigned long long *bits) {
  const int64_t p = c.off + i;
  if (c.valid != NULL && !zb__cuda_bit(c.valid, p)) return false;
  return zb_stat_value((const T *)c.data, p, x, bits);
}

/* Order key of a taken value (quantiles): floats by their bits (-0.0 as
 * 0.0), unsigned integers as they are, signed ones with the top bit
 * flipped.  kind: 0 signed (and bool), 1 unsigned, 2 float. */
template <typename T> struct zb_qkind { enum { value = 0 }; };
#define ZB_QKIND_U(ID, T, NAME, U) template <> struct zb_qkind<T> { enum { value = 1 }; };
#define ZB_QKIND_F(ID, T, NAME, U) template <> struct zb_qkind<T> { enum { value = 2 }; };
ZB_FOR_EACH_UNSIGNED_TYPE(ZB_QKIND_U)
ZB_FOR_EACH_FLOAT_TYPE(ZB_QKIND_F)
#undef ZB_QKIND_U
#undef ZB_QKIND_F

template <typename T>
__device__ __forceinline__ uint64_t zb_qkey(double x, unsigned long long b) {
  const uint64_t top = 0x8000000000000000ull;
  if (zb_qkind<T>::value == 2) {
    uint64_t bits = (uint64_t)__double_as_longlong(x);
    if ((bits << 1) == 0) bits = 0; /* -0.0 ties with 0.0 */
    return (bits & top) ? ~bits : (bits | top);
  }
  return zb_qkind<T>::value == 1 ? b : b ^ top;
}

/* One warp's partial. */
struct zb_spart {
  double s, q, fprod; /* var: sum of d and of d * d; float product */
  unsigned long long iprod, count;
  int any, all;
};

/* parts[warp] = the warp's partial of the rows it took; shift: var's mean. */
template <typename T>
__global__ void __launch_bounds__(ZB_STAT_THREADS)
    zb_stat_kernel(zb_scol c, int64_t n, double shift, zb_spart *__restrict__ parts) {
  double s = 0, q = 0, fprod = 1;
  unsigned long long iprod = 1, count = 0;
  int any = 0, all = 1;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    double x;
    unsigned long long b;
    if (!zb_stat_load<T>(c, i, &x, &b)) continue;
    const double d = x - shift;
    s += d;
    q += d * d;
    fprod *= x;
    iprod *= b;
    count++;
    any |= x != 0;
    all &= x != 0;
  }
  for (int k = 16; k > 0; k >>= 1) {
    s += __shfl_down_sync(0xffffffffu, s, k);
    q += __shfl_down_sync(0xffffffffu, q, k);
    fprod *= __shfl_down_sync(0xffffffffu, fprod, k);
    iprod *= __shfl_down_sync(0xffffffffu, iprod, k);
    count += __shfl_down_sync(0xffffffffu, count, k);
    any |= __shfl_down_sync(0xffffffffu, any, k);
    all &= __shfl_down_sync(0xffffffffu, all, k);
  }
  if ((threadIdx.x & 31) == 0) {
    zb_spart p;
    p.s = s;
    p.q = q;
    p.fprod = fprod;
    p.iprod = iprod;
    p.count = count;
    p.any = any;
    p.all = all;
    parts[((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32] = p;
  }
}

/* *pos = min(*pos, the positions whose value equals the extreme): T is the
 * storage type (ext converted to it), floats compared as double. */
template <typename T>
__global__ void __launch_bounds__(ZB_STAT_THREADS)
    zb_argext_kernel(zb_scol c, int64_t n, T ext, unsigned long long *__restrict__ pos) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int64_t p = c.off + i;
    if (c.valid != NULL && !zb__cuda_bit(c.valid, p)) continue;
    if (((const T *)c.data)[p] == ext) { /* NaN never equals: skipped */
      atomicMin(pos, (unsigned long long)i);
      return; /* later rows of this thread are further on */
    }
  }
}

/* argmin / argmax of a column with a fixed-width storage type. */
zb_status zb_argext(const zb_column *col, bool want_max, zb_scalar *out, zb_error *err) {
  const int dev = col->device.id;
  zb_scalar ext;
  ZB_RETURN_NOT_OK(zb__cuda_reduce(col, want_max ? ZB_REDUCE_MAX : ZB_REDUCE_MIN, &ext, err));
  out->type = ZB_INT64;
  out->is_null = true;
  out->v.i = -1;
  if (ext.is_null) return ZB_OK;
  zb_buffer *pos = NULL;
  unsigned long long first = ~0ull;
  zb_status st = zb__cuda_upload(dev, &first, 8, &pos, err);
  zb_scol c = {col->data->data,
               col->validity != NULL && col->null_count > 0 ? (const uint8_t *)col->validity->data
                                                            : NULL,
               col->offset, (int)col->type};
  const int64_t n = col->length;
  const unsigned blocks = zb__cuda_blocks(dev, n, ZB_STAT_THREADS);
  unsigned long long *pp = st == ZB_OK ? (unsigned long long *)pos->data : NULL;
  if (st == ZB_OK) {
    switch (col->type) {
#define ZB_ARG(TID, T, V)                                                                \
  case TID:                                                                              \
    zb_argext_kernel<T><<<blocks, ZB_STAT_THREADS>>>(c, n, (T)(V), pp);                  \
    break;
#define ZB_ARG_S(ID, T, NAME, U) ZB_ARG(ID, T, ext.v.i)
#define ZB_ARG_U(ID, T, NAME, U) ZB_ARG(ID, T, ext.v.u)
#define ZB_ARG_F(ID, T, NAME, U) ZB_ARG(ID, T, ext.v.f)
      ZB_FOR_EACH_SIGNED_TYPE(ZB_ARG_S)
      ZB_FOR_EACH_TEMPORAL_TYPE(ZB_ARG_S)
      ZB_FOR_EACH_UNSIGNED_TYPE(ZB_ARG_U)
      ZB_FOR_EACH_FLOAT_TYPE(ZB_ARG_F)
#undef ZB_ARG_S
#undef ZB_ARG_U
#undef ZB_ARG_F
#undef ZB_ARG
    default: st = zb_error_set(err, ZB_ETYPE, "argmin/argmax: unexpected type"); break;
    }
    if (st == ZB_OK) st = zb__cuda_launched("argmin / argmax", dev, err);
  }
  if (st == ZB_OK) st = zb__cuda_read(dev, &first, pos->data, 8, "cudaMemcpy of argmin", err);
  zb_status ws = zb__cuda_wait("argmin / argmax", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  zb_buffer_release(pos);
  if (st == ZB_OK && first != ~0ull) {
    out->is_null = false;
    out->v.i = (int64_t)first;
  }
  return st;
}

/* Quantiles: keys[i] = row i's order key (0 when missing: null or NaN),
 * rows[i] = i. */
template <typename T>
__global__ void __launch_bounds__(ZB_STAT_THREADS)
    zb_qkey_kernel(zb_scol c, int64_t n, uint64_t *__restrict__ keys,
                   int64_t *__restrict__ rows) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    double x;
    unsigned long long b;
    keys[i] = zb_stat_load<T>(c, i, &x, &b) ? zb_qkey<T>(x, b) : 0;
    rows[i] = i;
  }
}

/* flags[j] = 1 where row rows[j] is missing (null or NaN), else 0. */
template <typename T>
__global__ void __launch_bounds__(ZB_STAT_THREADS)
    zb_qflag_kernel(zb_scol c, int64_t n, const int64_t *__restrict__ rows,
                    uint8_t *__restrict__ flags) {
  for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < n;
       j += (int64_t)gridDim.x * blockDim.x) {
    double x;
    unsigned long long b;
    flags[j] = zb_stat_load<T>(c, rows[j], &x, &b) ? 0 : 1;
  }
}

/* Row r's value as double, read from the device (one value). */
zb_status zb_row_value(const zb_column *col, int64_t r, double *out, zb_error *err) {
  const int w = zb_type_width(col->type);
  unsigned char b[8] = {0};
  ZB_RETURN_NOT_OK(zb__cuda_read(col->device.id, b,
                                 (const char *)col->data->data + (col->offset + r) * w, w,
                                 "cudaMemcpy of a quantile's value", err));
  switch (col->type) {
#define ZB_V(TID, T)         \
  case TID: {                \
    T v;                     \
    memcpy(&v, b, sizeof v); \
    *out = (double)v;        \
    break;                   \
  }
#define ZB_V_CASE(ID, T, NAME, U) ZB_V(ID, T)
    ZB_FOR_EACH_NUMERIC_TYPE(ZB_V_CASE)
#undef ZB_V_CASE
#undef ZB_V
  default: return zb_error_set(err, ZB_ETYPE, "quantile: unexpected type");
  }
  return ZB_OK;
}

/* The value at rank k of the sorted present rows. */
zb_status zb_rank_value(const zb_column *col, const zb_buffer *order, int64_t k, double *out,
                        zb_error *err) {
  int64_t r = 0;
  ZB_RETURN_NOT_OK(zb__cuda_read(col->device.id, &r, (const int64_t *)order->data + k, 8,
                                 "cudaMemcpy of a quantile's row", err));
  return zb_row_value(col, r, out, err);
}

/* The n_q quantiles q of a numeric column (median: q = {0.5} and the
 * median's rule): the present values sorted on the device (stable radix
 * sort by order key, then missing rows last by a one-bit sort), then the
 * two values around each rank read and interpolated as on the CPU
 * (zb__quantile_rank / zb__quantile_lerp). */
zb_status zb_quantiles(const zb_column *col, int64_t n_q, const double *q, bool median,
                       zb_scalar *out, zb_error *err) {
  const int dev = col->device.id;
  const int64_t n = col->length;
  for (int64_t i = 0; i < n_q; i++) {
    memset(&out[i], 0, sizeof out[i]);
    out[i].type = ZB_FLOAT64;
    out[i].is_null = true;
    out[i].v.f = NAN;
  }
  zb_scalar cnt_s;
  ZB_RETURN_NOT_OK(zb__cuda_reduce(col, ZB_REDUCE_COUNT, &cnt_s, err));
  const int64_t cnt = cnt_s.v.i;
  if (cnt == 0 || n_q == 0) return ZB_OK;
  zb_buffer *keys[2] = {NULL, NULL}, *rows[2] = {NULL, NULL}, *temp = NULL;
  size_t temp_have = 0;
  int cur = 0;
  zb_status st = ZB_OK;
  for (int k = 0; k < 2 && st == ZB_OK; k++) {
    st = zb__cuda_buffer(dev, n * 8, &keys[k], err);
    if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 8, &rows[k], err);
  }
  const zb_scol c = {col->data->data,
                     col->validity != NULL && col->null_count > 0
                         ? (const uint8_t *)col->validity->data
                         : NULL,
                     col->offset, (int)col->type};
  const unsigned blocks = zb__cuda_blocks(dev, n, ZB_STAT_THREADS);
  if (st == ZB_OK) {
    switch (col->type) {
#define ZB_QKEY(ID, T, NAME, U)                                                          \
  case ID:                                                                               \
    zb_qkey_kernel<T><<<blocks, ZB_STAT_THREADS>>>(c, n, (uint64_t *)keys[0]->data,      \
                                                   (int64_t *)rows[0]->data);            \
    break;
      ZB_FOR_EACH_NUMERIC_TYPE(ZB_QKEY)
#undef ZB_QKEY
    default: st = zb_error_set(err, ZB_ETYPE, "quantile: unexpected type"); break;
    }
    if (st == ZB_OK) st = zb__cuda_launched("quantile (keys)", dev, err);
  }
  int begin_bit = 0, end_bit = 0; /* only the bits the keys differ in */
  if (st == ZB_OK)
    st = zb__cuda_key_varying_bits(dev, (const uint64_t *)keys[0]->data, n, &begin_bit, &end_bit,
                                   err);
  if (st == ZB_OK)
    st = zb__cuda_sort_pairs(dev, 8, keys, rows, &cur, n, begin_bit, end_bit, &temp, &temp_have,
                             err);
  if (st == ZB_OK && cnt < n) { /* missing rows last, the rest in value order */
    switch (col->type) {
#define ZB_QFLAG(ID, T, NAME, U)                                                         \
  case ID:                                                                               \
    zb_qflag_kernel<T><<<blocks, ZB_STAT_THREADS>>>(c, n, (const int64_t *)rows[cur]->data, \
                                                    (uint8_t *)keys[0]->data);           \
    break;
      ZB_FOR_EACH_NUMERIC_TYPE(ZB_QFLAG)
#undef ZB_QFLAG
    default: st = zb_error_set(err, ZB_ETYPE, "quantile: unexpected type"); break;
    }
    if (st == ZB_OK) st = zb__cuda_launched("quantile (missing flags)", dev, err);
    if (st == ZB_OK)
      st = zb__cuda_sort_pairs(dev, 1, keys, rows, &cur, n, 0, 1, &temp, &temp_have, err);
  }
  zb_status ws = zb__cuda_wait("quantile (sort)", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  for (int64_t i = 0; st == ZB_OK && i < n_q; i++) {
    double t, lo = 0, hi = 0;
    const int64_t k = zb__quantile_rank(cnt, q[i], &t);
    st = zb_rank_value(col, rows[cur], k, &lo, err);
    hi = lo;
    if (st == ZB_OK && t > 0 && k + 1 < cnt) st = zb_rank_value(col, rows[cur], k + 1, &hi, err);
    if (st == ZB_OK) {
      out[i].is_null = false;
      out[i].v.f = zb__quantile_lerp(lo, hi, t, median);
    }
  }
  for (int k = 0; k < 2; k++) {
    zb_buffer_release(keys[k]);
    zb_buffer_release(rows[k]);
  }
  zb_buffer_release(temp);
  return st;
}

} /* namespace */

extern "C" zb_status zb__cuda_stat(const zb_column *col, zb_stat_op op, int64_t ddof,
                                   zb_scalar *out, zb_error *err) {
  const zb_type_id t = col->type;
  const bool arg = op == ZB_STAT_ARGMIN || op == ZB_STAT_ARGMAX;
  memset(out, 0, sizeof *out);
  const int dev = col->device.id;
  ZB_RETURN_NOT_OK(zb__cuda_set_device(dev, err));
  if (op == ZB_STAT_MEDIAN) {
    const double half = 0.5;
    return zb_quantiles(col, 1, &half, true, out, err);
  }
  if (arg) return zb_argext(col, op == ZB_STAT_ARGMAX, out, err);

  const bool var = op == ZB_STAT_VAR || op == ZB_STAT_STD;
  double mean = 0;
  if (var) {
    zb_scalar m;
    ZB_RETURN_NOT_OK(zb__cuda_reduce(col, ZB_REDUCE_MEAN, &m, err));
    mean = m.is_null ? 0.0 : m.v.f;
  }
  const int64_t n = col->length;
  const unsigned blocks = zb__cuda_blocks(dev, n, ZB_STAT_THREADS);
  const int64_t n_parts = (int64_t)blocks * (ZB_STAT_THREADS / 32);
  zb_buffer *parts = NULL;
  zb_spart *host = (zb_spart *)zb_malloc((size_t)n_parts * sizeof(zb_spart));
  zb_status st = host == NULL ? zb_error_set(err, ZB_ENOMEM, "out of host memory (%s partials)",
                                             zb_stat_op_name(op))
                              : zb__cuda_buffer(dev, n_parts * (int64_t)sizeof(zb_spart), &parts,
                                                err);
  if (st == ZB_OK) {
    zb_scol c = {col->data->data,
                 col->validity != NULL && col->null_count > 0
                     ? (const uint8_t *)col->validity->data
                     : NULL,
                 col->offset, (int)t};
    /* var shifts by a finite mean (an infinite one makes M2 NaN below) */
    const double shift = isfinite(mean) ? mean : 0.0;
    zb_spart *pp = (zb_spart *)parts->data;
    switch (t) {
    case ZB_BOOL: zb_stat_kernel<zb_sbits><<<blocks, ZB_STAT_THREADS>>>(c, n, shift, pp); break;
#define ZB_STAT_CASE(ID, T, NAME, U)                                                     \
  case ID: zb_stat_kernel<T><<<blocks, ZB_STAT_THREADS>>>(c, n, shift, pp); break;
      ZB_FOR_EACH_NUMERIC_TYPE(ZB_STAT_CASE)
#undef ZB_STAT_CASE
    default:
      st = zb_error_set(err, ZB_ETYPE, "%s: unexpected type %s", zb_stat_op_name(op),
                        zb_type_name(t));
      break;
    }
    if (st == ZB_OK) st = zb__cuda_launched(zb_stat_op_name(op), dev, err);
  }
  if (st == ZB_OK)
    st = zb__cuda_read(dev, host, parts->data, n_parts * (int64_t)sizeof(zb_spart),
                       "cudaMemcpy of the statistic's partials", err);
  zb_buffer_release(parts);
  if (st != ZB_OK) {
    zb_free(host);
    return st;
  }
  double s = 0, q = 0, fprod = 1;
  unsigned long long iprod = 1, count = 0;
  bool any = false, all = true;
  for (int64_t k = 0; k < n_parts; k++) {
    s += host[k].s;
    q += host[k].q;
    fprod *= host[k].fprod;
    iprod *= host[k].iprod;
    count += host[k].count;
    any |= host[k].any != 0;
    all &= host[k].all != 0;
  }
  zb_free(host);
  zb_stat_totals tot;
  tot.count = (int64_t)count;
  tot.mean = mean;
  tot.m2 = q - (count > 0 ? s * s / (double)count : 0.0);
  tot.fprod = fprod;
  tot.iprod = iprod;
  tot.any = any;
  tot.all = all;
  tot.pos = -1;
  return zb__stat_scalar(op, t, ddof, &tot, out, err);
}

extern "C" zb_status zb__cuda_quantile(const zb_column *col, int64_t n_q, const double *q,
                                       zb_scalar *out, zb_error *err) {
  ZB_RETURN_NOT_OK(zb__cuda_set_device(col->device.id, err));
  return zb_quantiles(col, n_q, q, false, out, err);
}
