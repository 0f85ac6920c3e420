/*
 * reduce.cu -- sum, min, max, mean and count of a numeric column in device
 * memory (the CUDA side of zb_column_reduce).
 *
 * One kernel per storage type (int8..uint64, float32, float64, and the bit-
 * packed bool) computes, in a single pass, whatever the operation needs: the
 * count of values taken, an exact 128-bit integer sum (low word wrapping,
 * high word counting the carries and the signs), a compensated (Neumaier)
 * double sum, and min/max.  Which parts run is a runtime flag, uniform
 * across the grid.  Each thread walks the column in a
 * grid-stride loop (64-bit indices, several loads in flight), the block
 * combines its threads' states with warp shuffles, and each block writes one
 * partial state; the host copies the partials back and combines them in
 * block order, so the result does not depend on scheduling.
 *
 * Semantics (as zb_column_reduce, and as src/cpu): logical element i is at
 * physical position col->offset + i of the data and validity buffers; nulls
 * are skipped; for floats NaN is skipped too (it is not counted); integer
 * sums wrap as two's complement; an integer mean is the exact sum over the
 * count, rounded once (zb__exact_mean: bit for bit the CPU's); float sums
 * and means are computed in double with compensation, mean = sum / count;
 * min/max/mean of no values is null; sum of nothing is 0 and count of
 * nothing is 0.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/dtype_list.h"
#include "core/exact_mean.h"
#include "cuda/cuda_internal.h"

namespace {

/* Marker type: the data buffer is an Arrow bitmap (bool columns). */
struct zb_bits {};

/* Accumulator type for min/max of each storage type. */
template <typename T> struct zb_acc;
#define ZB_ACC(T, A) template <> struct zb_acc<T> { typedef A type; };
#define ZB_ACC_S(ID, T, NAME, U) ZB_ACC(T, long long)
#define ZB_ACC_U(ID, T, NAME, U) ZB_ACC(T, unsigned long long)
#define ZB_ACC_F(ID, T, NAME, U) ZB_ACC(T, double)
ZB_FOR_EACH_SIGNED_TYPE(ZB_ACC_S)
ZB_FOR_EACH_UNSIGNED_TYPE(ZB_ACC_U)
ZB_FOR_EACH_FLOAT_TYPE(ZB_ACC_F)
ZB_ACC(zb_bits, unsigned long long)
#undef ZB_ACC_S
#undef ZB_ACC_U
#undef ZB_ACC_F
#undef ZB_ACC

/* Identities for min (largest value) and max (smallest value). */
__host__ __device__ inline void zb_minmax_identity(long long *mn, long long *mx) {
  *mn = 0x7fffffffffffffffLL;
  *mx = -0x7fffffffffffffffLL - 1;
}
__host__ __device__ inline void zb_minmax_identity(unsigned long long *mn,
                                                   unsigned long long *mx) {
  *mn = ~0ULL;
  *mx = 0ULL;
}
__host__ __device__ inline void zb_minmax_identity(double *mn, double *mx) {
  *mn = HUGE_VAL;
  *mx = -HUGE_VAL;
}

/* Load physical element pos as the accumulator type. */
template <typename T>
__host__ __device__ inline typename zb_acc<T>::type zb_load(const void *data,
                                                            int64_t pos) {
  return (typename zb_acc<T>::type)((const T *)data)[pos];
}
template <>
__host__ __device__ inline unsigned long long zb_load<zb_bits>(const void *data,
                                                               int64_t pos) {
  return (unsigned long long)((((const uint8_t *)data)[pos >> 3] >> (pos & 7)) & 1u);
}

/* Whether x is negative: it adds -1 to the high word of the exact sum. */
__host__ __device__ inline long long zb_sign_word(long long x) { return x < 0 ? -1 : 0; }
__host__ __device__ inline long long zb_sign_word(unsigned long long) { return 0; }
__host__ __device__ inline long long zb_sign_word(double) { return 0; }

__host__ __device__ inline bool zb_is_nan(double x) { return x != x; }
__host__ __device__ inline bool zb_is_nan(long long) { return false; }
__host__ __device__ inline bool zb_is_nan(unsigned long long) { return false; }

/* What the kernel computes (bit flags). */
enum { ZB_WANT_ISUM = 1, ZB_WANT_FSUM = 2, ZB_WANT_MINMAX = 4 };

/* One thread's, one block's or the whole column's state. */
template <typename A> struct zb_part {
  double s, c;             /* Neumaier sum: s + c */
  unsigned long long isum; /* integer sum: low 64 bits (wrapping) */
  long long ihi;           /* integer sum: high 64 bits */
  unsigned long long count;
  A mn, mx;
};

/* Add x to the compensated sum (s, c). */
__host__ __device__ inline void zb_neumaier_add(double *s, double *c, double x) {
  double t = *s + x;
  if (fabs(*s) >= fabs(x))
    *c += (*s - t) + x;
  else
    *c += (x - t) + *s;
  *s = t;
}

template <typename A>
__host__ __device__ inline void zb_part_combine(zb_part<A> *a, const zb_part<A> &b) {
  zb_neumaier_add(&a->s, &a->c, b.s);
  a->c += b.c;
  unsigned long long lo = a->isum + b.isum;
  a->ihi += b.ihi + (lo < a->isum ? 1 : 0);
  a->isum = lo;
  a->count += b.count;
  if (b.mn < a->mn) a->mn = b.mn;
  if (b.mx > a->mx) a->mx = b.mx;
}

template <typename A> __device__ __forceinline__ A zb_shfl_down(A v, int delta) {
  return __shfl_down_sync(0xffffffffu, v, delta);
}

#define ZB_REDUCE_THREADS 256
#define ZB_REDUCE_UNROLL 4

/* #pragma unroll in code compiled for both sides (the host compiler would
 * warn about the unknown pragma). */
#if defined(__CUDA_ARCH__)
#define ZB_UNROLL _Pragma("unroll")
#else
#define ZB_UNROLL
#endif

/* One thread's share of the grid-stride loop: elements first,
 * first + lanes, ... (ZB_REDUCE_UNROLL of them, lanes apart), then the same
 * again `stride` further on, while below n.  A block's threads cover a tile
 * of lanes * ZB_REDUCE_UNROLL consecutive elements, so every load is
 * coalesced. */
template <typename T>
__host__ __device__ inline void zb_thread_scan(zb_part<typename zb_acc<T>::type> *st,
                                               const void *data, const uint8_t *valid,
                                               int64_t offset, int64_t n, int want,
                                               int64_t first, int64_t lanes,
                                               int64_t stride) {
  typedef typename zb_acc<T>::type A;
  for (int64_t base = first; base < n; base += stride) {
    A x[ZB_REDUCE_UNROLL];
    bool ok[ZB_REDUCE_UNROLL];
    /* all loads first, so several are in flight */
    ZB_UNROLL
    for (int u = 0; u < ZB_REDUCE_UNROLL; u++) {
      int64_t i = base + (int64_t)u * lanes;
      ok[u] = i < n;
      if (ok[u]) {
        int64_t pos = offset + i;
        if (valid != NULL) ok[u] = ((valid[pos >> 3] >> (pos & 7)) & 1u) != 0;
        x[u] = zb_load<T>(data, pos);
      } else {
        x[u] = 0;
      }
    }
    ZB_UNROLL
    for (int u = 0; u < ZB_REDUCE_UNROLL; u++) {
      if (!ok[u] || zb_is_nan(x[u])) continue;
      st->count++;
      if (want & ZB_WANT_ISUM) {
        unsigned long long lo = st->isum + (unsigned long long)x[u];
        st->ihi += zb_sign_word(x[u]) + (lo < st->isum ? 1 : 0);
        st->isum = lo;
      }
      if (want & ZB_WANT_FSUM) zb_neumaier_add(&st->s, &st->c, (double)x[u]);
      if (want & ZB_WANT_MINMAX) {
        if (x[u] < st->mn) st->mn = x[u];
        if (x[u] > st->mx) st->mx = x[u];
      }
    }
  }
}

/* Reduce elements [0, n) at physical positions offset + i.
 * valid: validity bitmap or NULL (no nulls).  parts: gridDim.x states. */
template <typename T>
__global__ void __launch_bounds__(ZB_REDUCE_THREADS)
    zb_reduce_kernel(const void *__restrict__ data, const uint8_t *__restrict__ valid,
                     int64_t offset, int64_t n, int want,
                     zb_part<typename zb_acc<T>::type> *__restrict__ parts) {
  typedef typename zb_acc<T>::type A;
  zb_part<A> st;
  st.s = 0.0;
  st.c = 0.0;
  st.isum = 0;
  st.ihi = 0;
  st.count = 0;
  zb_minmax_identity(&st.mn, &st.mx);

  const int64_t tile = (int64_t)blockDim.x * ZB_REDUCE_UNROLL;
  zb_thread_scan<T>(&st, data, valid, offset, n, want,
                    (int64_t)blockIdx.x * tile + threadIdx.x, (int64_t)blockDim.x,
                    tile * (int64_t)gridDim.x);

  /* warp: lanes fold onto lane 0 */
  for (int d = 16; d > 0; d >>= 1) {
    zb_part<A> o;
    o.s = zb_shfl_down(st.s, d);
    o.c = zb_shfl_down(st.c, d);
    o.isum = zb_shfl_down(st.isum, d);
    o.ihi = zb_shfl_down(st.ihi, d);
    o.count = zb_shfl_down(st.count, d);
    o.mn = zb_shfl_down(st.mn, d);
    o.mx = zb_shfl_down(st.mx, d);
    zb_part_combine(&st, o);
  }

  /* block: warp 0 folds the warps' states */
  __shared__ zb_part<A> warp_parts[ZB_REDUCE_THREADS / 32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int nwarps = (blockDim.x + 31) >> 5;
  if (lane == 0) warp_parts[warp] = st;
  __syncthreads();
  if (threadIdx.x == 0) {
    zb_part<A> acc = warp_parts[0];
    for (int w = 1; w < nwarps; w++) zb_part_combine(&acc, warp_parts[w]);
    parts[blockIdx.x] = acc;
  }
}

/* Which parts of the state an operation needs. */
int zb_want_for(zb_reduce_op op, bool is_float) {
  switch (op) {
  case ZB_REDUCE_SUM:
    return is_float ? ZB_WANT_FSUM : ZB_WANT_ISUM;
  case ZB_REDUCE_MEAN:
    return is_float ? ZB_WANT_FSUM : ZB_WANT_ISUM;
  case ZB_REDUCE_MIN:
  case ZB_REDUCE_MAX:
    return ZB_WANT_MINMAX;
  default:
    return 0; /* count */
  }
}

inline void zb_put(zb_scalar *out, long long v) { out->v.i = (int64_t)v; }
inline void zb_put(zb_scalar *out, unsigned long long v) { out->v.u = (uint64_t)v; }
inline void zb_put(zb_scalar *out, double v) { out->v.f = v; }

/* Run the kernel for storage type T over col and fill *out. */
template <typename T>
zb_status zb_reduce_typed(const zb_column *col, zb_reduce_op op, bool is_float,
                          zb_scalar *out, zb_error *err) {
  typedef typename zb_acc<T>::type A;
  const int dev = col->device.id;
  const int64_t n = col->length;
  const int want = zb_want_for(op, is_float);

  zb_part<A> total;
  total.s = 0.0;
  total.c = 0.0;
  total.isum = 0;
  total.ihi = 0;
  total.count = 0;
  zb_minmax_identity(&total.mn, &total.mx);

  if (n > 0 && col->null_count < n) {
    if (col->data == NULL || col->data->data == NULL)
      return zb_error_set(err, ZB_EINVAL, "reduce on cuda:%d: column has no data buffer",
                          dev);
    const uint8_t *valid = NULL;
    if (col->null_count != 0 && col->validity != NULL)
      valid = (const uint8_t *)col->validity->data;

    ZB_RETURN_NOT_OK(zb__cuda_set_device(dev, err));
    int64_t tile = (int64_t)ZB_REDUCE_THREADS * ZB_REDUCE_UNROLL;
    int64_t blocks = (n + tile - 1) / tile;
    /* enough blocks to fill every SM once, no more: each then loops */
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, zb_reduce_kernel<T>,
                                                      ZB_REDUCE_THREADS, 0) != cudaSuccess ||
        per_sm < 1) {
      (void)cudaGetLastError();
      per_sm = 2;
    }
    int64_t cap = (int64_t)zb__cuda_sm_count(dev) * per_sm;
    if (blocks > cap) blocks = cap;
    if (blocks < 1) blocks = 1;

    const int64_t part_bytes = blocks * (int64_t)sizeof(zb_part<A>);
    zb_device where;
    where.kind = ZB_DEVICE_CUDA;
    where.id = dev;
    zb_buffer *dparts = NULL;
    ZB_RETURN_NOT_OK(zb_buffer_new(where, part_bytes, &dparts, err));
    zb_part<A> *hparts = (zb_part<A> *)zb_malloc((size_t)part_bytes);
    if (hparts == NULL) {
      zb_buffer_release(dparts);
      return zb_error_set(err, ZB_ENOMEM,
                          "reduce on cuda:%d: out of host memory for %lld bytes of "
                          "partial results",
                          dev, (long long)part_bytes);
    }

    (void)cudaGetLastError(); /* so the check below sees only this launch */
    zb_reduce_kernel<T><<<(unsigned)blocks, ZB_REDUCE_THREADS>>>(
        col->data->data, valid, col->offset, n, want, (zb_part<A> *)dparts->data);
    zb_status st = zb__cuda_check(cudaGetLastError(), "launch of the reduce kernel", dev,
                                  err);
    if (st == ZB_OK)
      st = zb__cuda_check(cudaMemcpy(hparts, dparts->data, (size_t)part_bytes,
                                     cudaMemcpyDeviceToHost),
                          "reduce kernel / cudaMemcpy of partial results", dev, err);
    if (st == ZB_OK)
      for (int64_t b = 0; b < blocks; b++) zb_part_combine(&total, hparts[b]);
    zb_free(hparts);
    zb_buffer_release(dparts);
    if (st != ZB_OK) return st;
  }

  double fsum = isfinite(total.s) ? total.s + total.c : total.s;
  switch (op) {
  case ZB_REDUCE_SUM:
    if (is_float) {
      out->type = ZB_FLOAT64;
      out->v.f = fsum;
    } else if (zb_type_is_signed(col->type) || col->type == ZB_BOOL) {
      out->type = ZB_INT64;
      int64_t v;
      memcpy(&v, &total.isum, sizeof v); /* two's complement wrap */
      out->v.i = v;
    } else {
      out->type = ZB_UINT64;
      out->v.u = (uint64_t)total.isum;
    }
    break;
  case ZB_REDUCE_MEAN:
    out->type = ZB_FLOAT64;
    out->is_null = total.count == 0;
    if (total.count == 0)
      out->v.f = NAN;
    else if (is_float)
      out->v.f = fsum / (double)total.count;
    else /* the exact quotient, rounded once, as on the CPU */
      out->v.f = zb__exact_mean(total.ihi, total.isum, (int64_t)total.count);
    break;
  case ZB_REDUCE_MIN:
  case ZB_REDUCE_MAX: {
    out->type = col->type;
    if (total.count == 0) {
      out->is_null = true;
      break;
    }
    A v = op == ZB_REDUCE_MIN ? total.mn : total.mx;
    if (col->type == ZB_BOOL)
      out->v.b = v != 0;
    else
      zb_put(out, v);
    break;
  }
  default:
    out->type = ZB_INT64;
    out->v.i = (int64_t)total.count;
    break;
  }
  return ZB_OK;
}

} /* namespace */

extern "C" zb_status zb__cuda_reduce(const zb_column *col, zb_reduce_op op,
                                     zb_scalar *out, zb_error *err) {
  memset(out, 0, sizeof *out);
  if (op < 0 || op >= ZB_REDUCE_OP_COUNT)
    return zb_error_set(err, ZB_EINVAL, "reduce: unknown operation %d", (int)op);
  if (col->device.kind != ZB_DEVICE_CUDA)
    return zb_error_set(err, ZB_EINVAL, "reduce: the column is not on a CUDA device");
  if (col->length < 0 || col->offset < 0)
    return zb_error_set(err, ZB_EINVAL, "reduce: negative length or offset");

  /* Dates and timestamps are int32 / int64 underneath: min, max and count
   * are meaningful, sums and means are not. */
  bool time_like = col->type == ZB_DATE32 || col->type == ZB_TIMESTAMP;
  if (time_like && (op == ZB_REDUCE_SUM || op == ZB_REDUCE_MEAN))
    return zb_error_set(err, ZB_ETYPE, "reduce: %s of a %s column is not supported",
                        zb_reduce_op_name(op), zb_type_name(col->type));

  /* count needs no kernel unless NaN must be skipped */
  if (op == ZB_REDUCE_COUNT && col->null_count >= 0 && col->type != ZB_FLOAT32 &&
      col->type != ZB_FLOAT64) {
    switch (col->type) {
    case ZB_BOOL:
#define ZB_NO_NAN(ID, T, NAME, U) case ID:
    ZB_FOR_EACH_INTEGER_TYPE(ZB_NO_NAN)
    ZB_FOR_EACH_TEMPORAL_TYPE(ZB_NO_NAN)
#undef ZB_NO_NAN
      out->type = ZB_INT64;
      out->v.i = col->length - col->null_count;
      if (out->v.i < 0) out->v.i = 0;
      return ZB_OK;
    default:
      break;
    }
  }

  switch (col->type) {
  case ZB_BOOL: return zb_reduce_typed<zb_bits>(col, op, false, out, err);
#define ZB_REDUCE_I(ID, T, NAME, U) case ID: return zb_reduce_typed<T>(col, op, false, out, err);
#define ZB_REDUCE_F(ID, T, NAME, U) case ID: return zb_reduce_typed<T>(col, op, true, out, err);
  ZB_FOR_EACH_INTEGER_TYPE(ZB_REDUCE_I)
  ZB_FOR_EACH_TEMPORAL_TYPE(ZB_REDUCE_I)
  ZB_FOR_EACH_FLOAT_TYPE(ZB_REDUCE_F)
#undef ZB_REDUCE_I
#undef ZB_REDUCE_F
  default:
    return zb_error_set(err, ZB_ETYPE, "reduce: %s of a %s column is not supported",
                        zb_reduce_op_name(op), zb_type_name(col->type));
  }
}
