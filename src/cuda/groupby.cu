/*
 * groupby.cu -- group-by on a CUDA device: the CUDA side of
 * zb_table_groupby and zb_table_group_ids (zambezi/groupby.h), sort-based,
 * so any number of keys and any number of groups take the same path.
 *
 * Grouping.  The rows are sorted stably by the key columns with the
 * backend's sort permutation (sort.cu; a categorical key is sorted by its
 * codes, which is the CPU's category order; nulls and NaN last).  Rows with
 * equal keys are then contiguous and, stable, in row order.  One kernel
 * compares every sorted position with the one before it on every key
 * (null equals null, NaN is null, -0.0 equals 0.0: the CPU's key identity)
 * and flags the first position of each group; with dropna a position with
 * a missing key is dropped (gid -1; such rows form whole runs of their
 * own, since missing and present keys differ).  An exclusive scan of the
 * flags numbers the groups in key order: sort=True.  For sort=False the
 * groups are renumbered by their first row: a flag at each group's first
 * row and a scan over the rows give its rank of first appearance.  The
 * result of the grouping is, per sorted position i, the row perm[i] and its
 * group gid[i] (in output order, -1 when dropped), and per group its first
 * row; gid is constant on runs of consecutive positions (one run per group).
 *
 * Aggregation.  One kernel (a runtime switch on the accumulator kind,
 * uniform across the grid) walks the sorted positions in whole warps: each
 * lane reads value perm[i], the warp reduces runs of equal gid with
 * shuffles (a segmented scan; correct because runs are contiguous), and the
 * last lane of each run adds its partial to the group's accumulator with
 * one atomic, so few groups cost about n / 32 atomics, not n.  A second
 * kernel (zb_rows_kernel of elementwise.cuh) turns the accumulators into
 * the result column.  Semantics are those of src/cpu/groupby_agg.c:
 *   - sum of integers/bools wraps modulo 2^64 (INT64, unsigned: UINT64);
 *     mean of integers is the exact 128-bit sum (two 64-bit words with
 *     carries) over the count, rounded once (core/exact_mean.h, as the
 *     CPU);
 *   - float sum, mean, var, std (corrected two-pass: sum and count, then
 *     the sums of d and d^2 with d = x - mean) and float prod are computed
 *     in double in an order that depends on scheduling: they can differ
 *     from the CPU's compensated / Welford results in the last bits;
 *   - min/max: an order-preserving 64-bit key per value (atomicMin/Max),
 *     then the smallest row holding that key, taken from the column: the
 *     CPU's "earliest row among equals" (so min of {0.0, -0.0} is whichever
 *     came first); first/last: the smallest / largest row with a value
 *     (not null, not NaN), taken from the column, so any dtype works;
 *   - count skips nulls and NaN, size counts rows, prod of integers wraps,
 *     any/all look at x != 0 of the non-missing values.
 * The result's key columns are the key values of each group's first row.
 *
 * Median, quantile and nunique sort each group's values (zb_gb_ordered
 * below); corr sums pairs in two passes (zb_gb_corr).
 *
 * String keys sort with the backend's string sort (sort.cu) and compare
 * byte by byte at group boundaries.
 *
 * Not in the backend's table (dispatch.cu; the CPU runs them): nunique,
 * min and max of string columns.
 *
 * Everything runs on the legacy default stream and is waited for before
 * scratch memory is freed and the result is handed out.  Row counts, group
 * counts and positions are 64-bit throughout.
 */
#define CCCL_DISABLE_NVTX

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/dtype_list.h"
#include "core/exact_mean.h"
#include "core/str_row.h"
#include "cuda/elementwise.cuh"

#define ZB_GB_THREADS 256
#define ZB_GB_FULL 0xffffffffu
#define ZB_GB_NO_ROW 0x7fffffffffffffffLL /* "no row yet" for atomicMin */

namespace {

/* ------------------------------------------------------------------------ */
/* Grouping kernels                                                         */
/* ------------------------------------------------------------------------ */

/* How a key column's values are compared. */
enum { ZB_GK_BITS, ZB_GK_BOOL, ZB_GK_F32, ZB_GK_F64, ZB_GK_STR };

/* A key column as the kernels read it: logical row r at position off + r. */
struct zb_gkey {
  const void *data;     /* ZB_GK_STR: the int64 offsets */
  const uint8_t *valid; /* NULL: no nulls */
  const unsigned char *chars; /* ZB_GK_STR: the bytes */
  int64_t off;
  int kind;
  int width; /* ZB_GK_BITS: bytes per value */
};

/* Whether rows r and q of string key k hold the same bytes. */
__device__ __forceinline__ bool zb_gkey_same_string(const zb_gkey &k, int64_t r, int64_t q) {
  const int64_t *o = (const int64_t *)k.data + k.off;
  const int64_t sr = o[r], sq = o[q], len = o[r + 1] - sr;
  return o[q + 1] - sq == len && zb__bytes_equal(k.chars + sr, k.chars + sq, len);
}

/* The comparable bits of row r of key k in *bits; true when the row is
 * missing (null or NaN), and then *bits is 0. */
__device__ __forceinline__ bool zb_gkey_bits(const zb_gkey &k, int64_t r,
                                             unsigned long long *bits) {
  const int64_t p = k.off + r;
  *bits = 0;
  if (k.valid != NULL && !zb__cuda_bit(k.valid, p)) return true;
  switch (k.kind) {
  case ZB_GK_STR: /* compared byte by byte by the caller */
    return false;
  case ZB_GK_BOOL:
    *bits = zb__cuda_bit((const uint8_t *)k.data, p) ? 1u : 0u;
    return false;
  case ZB_GK_F32: {
    uint32_t b = ((const uint32_t *)k.data)[p];
    if ((b & 0x7fffffffu) > 0x7f800000u) return true; /* NaN */
    if ((b & 0x7fffffffu) == 0) b = 0;               /* -0.0 is 0.0 */
    *bits = b;
    return false;
  }
  case ZB_GK_F64: {
    unsigned long long b = ((const unsigned long long *)k.data)[p];
    if ((b & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return true;
    if ((b & 0x7fffffffffffffffull) == 0) b = 0;
    *bits = b;
    return false;
  }
  default:
    switch (k.width) {
    case 1: *bits = ((const uint8_t *)k.data)[p]; break;
    case 2: *bits = ((const uint16_t *)k.data)[p]; break;
    case 4: *bits = ((const uint32_t *)k.data)[p]; break;
    default: *bits = ((const unsigned long long *)k.data)[p]; break;
    }
    return false;
  }
}

/* For each sorted position i < n: head[i] = 1 when i starts a group that is
 * kept, else 0; gid[i] = -1 when the row is dropped (dropna and a key is
 * missing), else 0.  head[n] = 0 (the scan turns it into the group count). */
__global__ void __launch_bounds__(ZB_GB_THREADS)
    zb_gb_heads_kernel(const zb_gkey *__restrict__ keys, int64_t n_keys,
                       const int64_t *__restrict__ perm, int64_t n, bool dropna,
                       int64_t *__restrict__ head, int64_t *__restrict__ gid) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i <= n;
       i += (int64_t)gridDim.x * blockDim.x) {
    if (i == n) {
      head[n] = 0;
      continue;
    }
    const int64_t r = perm[i];
    const int64_t q = i > 0 ? perm[i - 1] : r;
    bool differ = i == 0, missing = false;
    for (int64_t k = 0; k < n_keys; k++) {
      unsigned long long a = 0, b = 0;
      const bool ma = zb_gkey_bits(keys[k], r, &a);
      missing = missing || ma;
      if (!differ) {
        const bool mb = zb_gkey_bits(keys[k], q, &b);
        differ = ma != mb || a != b;
        if (!differ && !ma && keys[k].kind == ZB_GK_STR)
          differ = !zb_gkey_same_string(keys[k], r, q);
      }
    }
    const bool drop = dropna && missing;
    head[i] = differ && !drop ? 1 : 0;
    gid[i] = drop ? -1 : 0;
  }
}

/* After the exclusive scan of head (pos): the group of each kept position
 * is pos[i + 1] - 1 (pos[i + 1] - pos[i] is its head flag), and a position
 * that starts a group records its row as the group's first row. */
__global__ void __launch_bounds__(ZB_GB_THREADS)
    zb_gb_number_kernel(const int64_t *__restrict__ pos, const int64_t *__restrict__ perm,
                        int64_t n, int64_t *__restrict__ gid, int64_t *__restrict__ first) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    if (gid[i] < 0) continue;
    const int64_t s = pos[i + 1] - 1;
    gid[i] = s;
    if (pos[i + 1] != pos[i]) first[s] = perm[i];
  }
}

/* mark[first[s]] = 1 for every group s (mark zeroed before). */
__global__ void __launch_bounds__(ZB_GB_THREADS)
    zb_gb_mark_kernel(const int64_t *__restrict__ first, int64_t G, int64_t *__restrict__ mark) {
  for (int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; s < G;
       s += (int64_t)gridDim.x * blockDim.x)
    mark[first[s]] = 1;
}

/* After the exclusive scan of mark (rank of each first row among the first
 * rows): rank[s] = that rank; first_out[rank] = first[s]. */
__global__ void __launch_bounds__(ZB_GB_THREADS)
    zb_gb_rank_kernel(const int64_t *__restrict__ first, int64_t G,
                      const int64_t *__restrict__ mark, int64_t *__restrict__ rank,
                      int64_t *__restrict__ first_out) {
  for (int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; s < G;
       s += (int64_t)gridDim.x * blockDim.x) {
    const int64_t f = first[s], k = mark[f];
    rank[s] = k;
    first_out[k] = f;
  }
}

/* gid[i] = rank[gid[i]] where kept. */
__global__ void __launch_bounds__(ZB_GB_THREADS)
    zb_gb_relabel_kernel(const int64_t *__restrict__ rank, int64_t n,
                         int64_t *__restrict__ gid) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t g = gid[i];
    if (g >= 0) gid[i] = rank[g];
  }
}

/* by_row[perm[i]] = gid[i]: the group of every row in row order. */
__global__ void __launch_bounds__(ZB_GB_THREADS)
    zb_gb_scatter_kernel(const int64_t *__restrict__ perm, const int64_t *__restrict__ gid,
                         int64_t n, long long *__restrict__ by_row) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    by_row[perm[i]] = (long long)gid[i];
}

/* p[0, n) = v. */
__global__ void __launch_bounds__(ZB_GB_THREADS)
    zb_gb_fill_kernel(unsigned long long *__restrict__ p, int64_t n, unsigned long long v) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    p[i] = v;
}

/* ------------------------------------------------------------------------ */
/* Aggregation kernels                                                      */
/* ------------------------------------------------------------------------ */

/* Accumulator kinds (one pass each). */
enum {
  ZB_ACC_SIZE,     /* u0 += rows */
  ZB_ACC_COUNT,    /* u0 += values (not null, not NaN) */
  ZB_ACC_ISUM,     /* u0 += x modulo 2^64 */
  ZB_ACC_ISUM128,  /* (u1:u0) += x exactly, u2 += values */
  ZB_ACC_FSUM,     /* d0 += x, u2 += values */
  ZB_ACC_VAR2,     /* d0 += x - mean[g], d1 += (x - mean[g])^2 */
  ZB_ACC_IPROD,    /* u0 *= x modulo 2^64 */
  ZB_ACC_FPROD,    /* d0 *= x */
  ZB_ACC_MIN,      /* u0 = min(u0, key(x)) */
  ZB_ACC_MAX,      /* u0 = max(u0, key(x)) */
  ZB_ACC_ARGBEST,  /* row = min row with key(x) == best[g] */
  ZB_ACC_FIRST,    /* row = min row with a value */
  ZB_ACC_LAST,     /* row = max row with a value */
  ZB_ACC_NZ        /* u0 |= 1 if some x != 0, 2 if some x == 0 */
};

/* How values are loaded: by C conversion to long long / unsigned long
 * long / double, or not at all (only validity is read). */
enum { ZB_VC_NONE, ZB_VC_SIGNED, ZB_VC_UNSIGNED, ZB_VC_FLOAT };

struct zb_gb_acc {
  int kind;
  int vc;
  zb_operand v; /* the value column; row r at v.offset + r */
  const int64_t *perm;
  const int64_t *gid;
  int64_t n;
  unsigned long long *u0, *u1, *u2;
  double *d0, *d1;
  long long *row;
  const double *mean;              /* ZB_ACC_VAR2 */
  const unsigned long long *best;  /* ZB_ACC_ARGBEST */
};

struct zb_op_add {
  template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};
struct zb_op_mul {
  template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return a * b; }
};
struct zb_op_min {
  template <typename T> __device__ __forceinline__ T operator()(T a, T b) const {
    return b < a ? b : a;
  }
};
struct zb_op_max {
  template <typename T> __device__ __forceinline__ T operator()(T a, T b) const {
    return b > a ? b : a;
  }
};
struct zb_op_or {
  template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return a | b; }
};

/* Inclusive segmented scan over a warp's lanes: lane L ends with op over
 * the lanes of its run (equal g) up to L.  The runs must be contiguous
 * (every lane between two lanes of one g has that g), which holds for
 * positions sorted by group; then the last lane of a run holds the run's
 * total.  Every lane of the warp must call it. */
template <typename T, typename Op>
__device__ __forceinline__ T zb_warp_seg(T v, long long g, int lane, Op op) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const T o = __shfl_up_sync(ZB_GB_FULL, v, d);
    const long long og = __shfl_up_sync(ZB_GB_FULL, g, d);
    if (lane >= d && og == g) v = op(o, v);
  }
  return v;
}

/* The same for a 128-bit two's complement sum held as (hi, lo). */
__device__ __forceinline__ void zb_warp_seg128(unsigned long long *lo, unsigned long long *hi,
                                               long long g, int lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const unsigned long long ol = __shfl_up_sync(ZB_GB_FULL, *lo, d);
    const unsigned long long oh = __shfl_up_sync(ZB_GB_FULL, *hi, d);
    const long long og = __shfl_up_sync(ZB_GB_FULL, g, d);
    if (lane >= d && og == g) {
      const unsigned long long s = *lo + ol;
      *hi = *hi + oh + (s < ol ? 1ull : 0ull);
      *lo = s;
    }
  }
}

__device__ __forceinline__ void zb_atomic_mul(unsigned long long *p, unsigned long long v) {
  unsigned long long old = *p, seen;
  do {
    seen = old;
    old = atomicCAS(p, seen, seen * v);
  } while (old != seen);
}

__device__ __forceinline__ void zb_atomic_mul(double *p, double v) {
  unsigned long long *a = (unsigned long long *)p;
  unsigned long long old = *a, seen;
  do {
    seen = old;
    old = atomicCAS(a, seen,
                    (unsigned long long)__double_as_longlong(
                        __longlong_as_double((long long)seen) * v));
  } while (old != seen);
}

/* Whether row r has a value: valid and, for floats, not NaN. */
__device__ __forceinline__ bool zb_gb_present(const zb_gb_acc &a, int64_t r) {
  if (!zb_dvalid(a.v, r)) return false;
  if (a.vc == ZB_VC_FLOAT) {
    const double x = zb_dload<double>(a.v, r);
    return x == x;
  }
  return true;
}

/* An unsigned key of row r's value that orders as the values do (floats:
 * -0.0 and 0.0 get one key; NaN never reaches here). */
__device__ __forceinline__ unsigned long long zb_gb_order_key(const zb_gb_acc &a, int64_t r) {
  const unsigned long long top = 0x8000000000000000ull;
  if (a.vc == ZB_VC_FLOAT) {
    unsigned long long b = (unsigned long long)__double_as_longlong(zb_dload<double>(a.v, r));
    if ((b << 1) == 0) b = 0;
    return (b & top) ? ~b : (b | top);
  }
  if (a.vc == ZB_VC_UNSIGNED) return zb_dload<unsigned long long>(a.v, r);
  return (unsigned long long)zb_dload<long long>(a.v, r) ^ top;
}

/* Grid-stride loop of whole warps over positions i in [0, n): i - lane is
 * the warp's first position, the same for all its lanes, so every lane
 * reaches every shuffle (lanes past n get i >= n). */
#define ZB_GB_FOR_WARP_POSITIONS(i, lane, n)                                              \
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i - (lane) < (n);        \
       i += (int64_t)gridDim.x * blockDim.x)

/* Sorted position i's group and row (g -1 past the end, for the lanes of
 * a warp's last, partial pass). */
__device__ __forceinline__ void zb_gb_at(const zb_gb_acc &a, int64_t i, long long *g,
                                         int64_t *r) {
  *g = -1;
  *r = 0;
  if (i < a.n) {
    *g = (long long)a.gid[i];
    *r = a.perm[i];
  }
}

__global__ void __launch_bounds__(ZB_GB_THREADS) zb_gb_accum_kernel(zb_gb_acc a) {
  const int lane = (int)(threadIdx.x & 31u);
  ZB_GB_FOR_WARP_POSITIONS(i, lane, a.n) {
    long long g;
    int64_t r;
    zb_gb_at(a, i, &g, &r);
    bool ok = false;
    if (g >= 0) ok = a.kind == ZB_ACC_SIZE || zb_gb_present(a, r);
    const long long next = __shfl_down_sync(ZB_GB_FULL, g, 1);
    const bool emit = (lane == 31 || next != g) && g >= 0; /* last lane of its run */
    switch (a.kind) {
    case ZB_ACC_SIZE:
    case ZB_ACC_COUNT: {
      unsigned long long c = zb_warp_seg(ok ? 1ull : 0ull, g, lane, zb_op_add());
      if (emit && c != 0) atomicAdd(&a.u0[g], c);
      break;
    }
    case ZB_ACC_ISUM: {
      unsigned long long x = ok ? zb_dload<unsigned long long>(a.v, r) : 0ull;
      x = zb_warp_seg(x, g, lane, zb_op_add());
      if (emit && x != 0) atomicAdd(&a.u0[g], x);
      break;
    }
    case ZB_ACC_ISUM128: {
      unsigned long long lo = 0, hi = 0;
      if (ok && a.vc == ZB_VC_UNSIGNED) {
        lo = zb_dload<unsigned long long>(a.v, r);
      } else if (ok) {
        const long long x = zb_dload<long long>(a.v, r);
        lo = (unsigned long long)x;
        hi = x < 0 ? ~0ull : 0ull;
      }
      zb_warp_seg128(&lo, &hi, g, lane);
      const unsigned long long c = zb_warp_seg(ok ? 1ull : 0ull, g, lane, zb_op_add());
      if (emit && c != 0) {
        const unsigned long long old = atomicAdd(&a.u0[g], lo);
        const unsigned long long h = hi + (old + lo < old ? 1ull : 0ull);
        if (h != 0) atomicAdd(&a.u1[g], h);
        atomicAdd(&a.u2[g], c);
      }
      break;
    }
    case ZB_ACC_FSUM: {
      const double x = zb_warp_seg(ok ? zb_dload<double>(a.v, r) : 0.0, g, lane, zb_op_add());
      const unsigned long long c = zb_warp_seg(ok ? 1ull : 0ull, g, lane, zb_op_add());
      if (emit && c != 0) {
        atomicAdd(&a.d0[g], x);
        atomicAdd(&a.u2[g], c);
      }
      break;
    }
    case ZB_ACC_VAR2: {
      const double d = ok ? zb_dload<double>(a.v, r) - a.mean[g] : 0.0;
      const double s1 = zb_warp_seg(d, g, lane, zb_op_add());
      const double s2 = zb_warp_seg(d * d, g, lane, zb_op_add());
      const unsigned long long c = zb_warp_seg(ok ? 1ull : 0ull, g, lane, zb_op_add());
      if (emit && c != 0) {
        atomicAdd(&a.d0[g], s1);
        atomicAdd(&a.d1[g], s2);
      }
      break;
    }
    case ZB_ACC_IPROD: {
      unsigned long long x = ok ? zb_dload<unsigned long long>(a.v, r) : 1ull;
      x = zb_warp_seg(x, g, lane, zb_op_mul());
      if (emit && x != 1) zb_atomic_mul(&a.u0[g], x);
      break;
    }
    case ZB_ACC_FPROD: {
      const double x =
          zb_warp_seg(ok ? zb_dload<double>(a.v, r) : 1.0, g, lane, zb_op_mul());
      if (emit && !(x == 1.0)) zb_atomic_mul(&a.d0[g], x);
      break;
    }
    case ZB_ACC_MIN: {
      const unsigned long long k =
          zb_warp_seg(ok ? zb_gb_order_key(a, r) : ~0ull, g, lane, zb_op_min());
      if (emit && k != ~0ull) atomicMin(&a.u0[g], k);
      break;
    }
    case ZB_ACC_MAX: {
      const unsigned long long k =
          zb_warp_seg(ok ? zb_gb_order_key(a, r) : 0ull, g, lane, zb_op_max());
      if (emit && k != 0) atomicMax(&a.u0[g], k);
      break;
    }
    case ZB_ACC_ARGBEST:
    case ZB_ACC_FIRST: {
      bool take = ok;
      if (ok && a.kind == ZB_ACC_ARGBEST) take = zb_gb_order_key(a, r) == a.best[g];
      const long long w =
          zb_warp_seg(take ? (long long)r : ZB_GB_NO_ROW, g, lane, zb_op_min());
      if (emit && w != ZB_GB_NO_ROW) atomicMin(&a.row[g], w);
      break;
    }
    case ZB_ACC_LAST: {
      const long long w = zb_warp_seg(ok ? (long long)r : -1LL, g, lane, zb_op_max());
      if (emit && w >= 0) atomicMax(&a.row[g], w);
      break;
    }
    default: { /* ZB_ACC_NZ */
      unsigned long long f = 0;
      if (ok) f = zb_dload<double>(a.v, r) != 0.0 ? 1ull : 2ull;
      f = zb_warp_seg(f, g, lane, zb_op_or());
      if (emit && f != 0) atomicOr(&a.u0[g], f);
      break;
    }
    }
  }
}

/* mean[g] = sum[g] / count[g] (0 for no values). */
__global__ void __launch_bounds__(ZB_GB_THREADS)
    zb_gb_mean_kernel(const double *__restrict__ sum, const unsigned long long *__restrict__ cnt,
                      int64_t G, double *__restrict__ mean) {
  for (int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; g < G;
       g += (int64_t)gridDim.x * blockDim.x)
    mean[g] = cnt[g] != 0 ? sum[g] / (double)cnt[g] : 0.0;
}

/* Result columns from the accumulators. */
enum {
  ZB_FIN_U64,    /* u0 */
  ZB_FIN_F64,    /* d0 */
  ZB_FIN_MEAN_I, /* (u1:u0) / u2; null when u2 = 0 */
  ZB_FIN_MEAN_F, /* d0 / u2; null when u2 = 0 */
  ZB_FIN_VAR,    /* (d1 - d0^2 / u2) / (u2 - ddof); null when u2 <= ddof */
  ZB_FIN_STD,
  ZB_FIN_ANY,    /* u0 & 1 */
  ZB_FIN_ALL,    /* !(u0 & 2) */
  ZB_FIN_ROW     /* row, null when negative or ZB_GB_NO_ROW */
};

struct zb_gb_fin_fn {
  int op;
  long long ddof;
  const unsigned long long *u0, *u1, *u2;
  const double *d0, *d1;
  const long long *row;
  void *out; /* NULL for bool results (zb_rows_kernel writes the bits) */
  __device__ zb_row operator()(int64_t g) const {
    zb_row z;
    z.bit = false;
    z.valid = true;
    z.bad = false;
    switch (op) {
    case ZB_FIN_U64: ((unsigned long long *)out)[g] = u0[g]; break;
    case ZB_FIN_F64: ((double *)out)[g] = d0[g]; break;
    case ZB_FIN_MEAN_I:
    case ZB_FIN_MEAN_F: {
      const unsigned long long c = u2[g];
      double m = 0.0;
      if (c == 0)
        z.valid = false;
      else
        m = op == ZB_FIN_MEAN_I ? zb__exact_mean((long long)u1[g], u0[g], (long long)c)
                                : d0[g] / (double)c;
      ((double *)out)[g] = m;
      break;
    }
    case ZB_FIN_VAR:
    case ZB_FIN_STD: {
      const long long c = (long long)u2[g];
      double v = 0.0;
      if (c - ddof <= 0) {
        z.valid = false;
      } else {
        const double s = d0[g];
        double var = (d1[g] - s * s / (double)c) / (double)(c - ddof);
        if (var < 0) var = 0;
        v = op == ZB_FIN_STD ? sqrt(var) : var;
      }
      ((double *)out)[g] = v;
      break;
    }
    case ZB_FIN_ANY: z.bit = (u0[g] & 1ull) != 0; break;
    case ZB_FIN_ALL: z.bit = (u0[g] & 2ull) == 0; break;
    default: { /* ZB_FIN_ROW */
      const long long r = row[g];
      z.valid = r >= 0 && r != ZB_GB_NO_ROW;
      ((long long *)out)[g] = z.valid ? r : 0;
      break;
    }
    }
    return z;
  }
};

/* ------------------------------------------------------------------------ */
/* Host side: grouping                                                      */
/* ------------------------------------------------------------------------ */

zb_gkey zb_gb_key_of(const zb_column *c) {
  zb_gkey k;
  const zb_type_id p = zb__physical(c->type);
  k.data = c->data->data;
  k.valid = c->validity != NULL ? (const uint8_t *)c->validity->data : NULL;
  k.chars = c->type == ZB_STRING && c->chars != NULL ? (const unsigned char *)c->chars->data
                                                      : NULL;
  k.off = c->offset;
  k.kind = c->type == ZB_STRING ? ZB_GK_STR
           : p == ZB_BOOL       ? ZB_GK_BOOL
           : p == ZB_FLOAT32    ? ZB_GK_F32
           : p == ZB_FLOAT64    ? ZB_GK_F64
                                : ZB_GK_BITS;
  k.width = p == ZB_BOOL || c->type == ZB_STRING ? 1 : zb_type_width(p);
  return k;
}

/* The groups of a table's rows (see the file comment). */
struct zb_gb_groups {
  int dev;
  int64_t n, G;
  zb_column *perm; /* n rows by sorted position */
  zb_buffer *gid;  /* n int64: group of each sorted position, -1 dropped */
  zb_buffer *first; /* G int64: first row of each group, in output order */
};

void zb_gb_groups_release(zb_gb_groups *g) {
  zb_column_release(g->perm);
  zb_buffer_release(g->gid);
  zb_buffer_release(g->first);
  g->perm = NULL;
  g->gid = g->first = NULL;
}

/* Launch configuration for `items` grid-stride work items. */
#define ZB_GB_GRID(dev, items) zb__cuda_blocks((dev), (items), ZB_GB_THREADS), ZB_GB_THREADS

/* perm: the stable sort permutation by the keys, categoricals by code. */
zb_status zb_gb_sort(const zb_table *t, int64_t n_keys, const int64_t *keys, zb_column **perm,
                     zb_error *err) {
  *perm = NULL;
  zb_column **cols = (zb_column **)zb_calloc((size_t)n_keys, sizeof(zb_column *));
  char **names = (char **)zb_calloc((size_t)n_keys, sizeof(char *));
  char *name_buf = (char *)zb_malloc((size_t)n_keys * 24);
  int64_t *idx = (int64_t *)zb_malloc((size_t)n_keys * sizeof(int64_t));
  zb_table *kt = NULL;
  zb_status st = ZB_OK;
  if (cols == NULL || names == NULL || name_buf == NULL || idx == NULL)
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory in GPU group-by (%lld keys)",
                      (long long)n_keys);
  for (int64_t k = 0; k < n_keys && st == ZB_OK; k++) {
    const zb_column *c = t->columns[keys[k]];
    if (c->type == ZB_CATEGORICAL) /* category order: sort the codes */
      st = zb_column_make(ZB_INT32, c->length, c->offset, c->validity, c->data, NULL, NULL,
                          c->null_count, &cols[k], err);
    else
      cols[k] = zb_column_retain((zb_column *)c);
    names[k] = name_buf + 24 * k;
    snprintf(names[k], 24, "k%lld", (long long)k);
    idx[k] = k;
  }
  if (st == ZB_OK) st = zb_table_make(n_keys, cols, (const char *const *)names, &kt, err);
  if (st == ZB_OK) st = zb__cuda_sort_indices(kt, n_keys, idx, NULL, false, perm, err);
  if (cols != NULL)
    for (int64_t k = 0; k < n_keys; k++) zb_column_release(cols[k]);
  zb_free(cols);
  zb_free(names);
  zb_free(name_buf);
  zb_free(idx);
  zb_table_release(kt);
  return st;
}

/* Group the rows of t by the keys.  On failure g holds nothing. */
zb_status zb_gb_group(const zb_table *t, int64_t n_keys, const int64_t *keys, bool dropna,
                      bool sort, zb_gb_groups *g, zb_error *err) {
  memset(g, 0, sizeof *g);
  const int dev = zb_table_device(t).id;
  const int64_t n = t->num_rows;
  g->dev = dev;
  g->n = n;
  zb_gkey *hk = (zb_gkey *)zb_malloc((size_t)n_keys * sizeof(zb_gkey));
  zb_buffer *dk = NULL, *head = NULL, *first = NULL, *rank = NULL, *first_out = NULL;
  int64_t G = 0;
  zb_status st = zb__cuda_set_device(dev, err);
  if (st == ZB_OK && hk == NULL)
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory in GPU group-by (%lld keys)",
                      (long long)n_keys);
  if (st == ZB_OK) st = zb_gb_sort(t, n_keys, keys, &g->perm, err);
  for (int64_t k = 0; k < n_keys && st == ZB_OK; k++) hk[k] = zb_gb_key_of(t->columns[keys[k]]);
  const int64_t kbytes = n_keys * (int64_t)sizeof(zb_gkey);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, kbytes, &dk, err);
  if (st == ZB_OK)
    st = zb__cuda_check(cudaMemcpy(dk->data, hk, (size_t)kbytes, cudaMemcpyHostToDevice),
                        "cudaMemcpy (host to device) of the group-by keys", dev, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, (n + 1) * 8, &head, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 8, &g->gid, err);
  const int64_t *perm =
      g->perm != NULL ? (const int64_t *)g->perm->data->data + g->perm->offset : NULL;
  int64_t *gid = g->gid != NULL ? (int64_t *)g->gid->data : NULL;
  int64_t *hd = head != NULL ? (int64_t *)head->data : NULL;
  if (st == ZB_OK) {
    zb_gb_heads_kernel<<<ZB_GB_GRID(dev, n + 1)>>>((const zb_gkey *)dk->data, n_keys, perm, n,
                                                   dropna, hd, gid);
    st = zb__cuda_launched("group-by (group starts)", dev, err);
  }
  if (st == ZB_OK) st = zb__cuda_exclusive_sum(dev, hd, n + 1, err);
  if (st == ZB_OK) st = zb__cuda_read(dev, &G, hd + n, 8, "cudaMemcpy of the group count", err);
  if (st == ZB_OK && (G < 0 || G > n))
    st = zb_error_set(err, ZB_EDEVICE, "GPU group-by on cuda:%d: %lld groups of %lld rows",
                      dev, (long long)G, (long long)n);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, G * 8, &first, err);
  if (st == ZB_OK && n > 0) {
    zb_gb_number_kernel<<<ZB_GB_GRID(dev, n)>>>(hd, perm, n, gid, (int64_t *)first->data);
    st = zb__cuda_launched("group-by (group numbers)", dev, err);
  }
  if (st == ZB_OK && !sort && G > 1) {
    /* rank the groups by their first rows: head becomes a flag per row */
    st = zb__cuda_check(cudaMemsetAsync(hd, 0, (size_t)(n + 1) * 8, 0),
                        "cudaMemsetAsync of the group-by first-row flags", dev, err);
    if (st == ZB_OK) {
      zb_gb_mark_kernel<<<ZB_GB_GRID(dev, G)>>>((const int64_t *)first->data, G, hd);
      st = zb__cuda_launched("group-by (first-row flags)", dev, err);
    }
    if (st == ZB_OK) st = zb__cuda_exclusive_sum(dev, hd, n + 1, err);
    if (st == ZB_OK) st = zb__cuda_buffer(dev, G * 8, &rank, err);
    if (st == ZB_OK) st = zb__cuda_buffer(dev, G * 8, &first_out, err);
    if (st == ZB_OK) {
      zb_gb_rank_kernel<<<ZB_GB_GRID(dev, G)>>>((const int64_t *)first->data, G, hd,
                                                (int64_t *)rank->data,
                                                (int64_t *)first_out->data);
      st = zb__cuda_launched("group-by (group ranks)", dev, err);
    }
    if (st == ZB_OK) {
      zb_gb_relabel_kernel<<<ZB_GB_GRID(dev, n)>>>((const int64_t *)rank->data, n, gid);
      st = zb__cuda_launched("group-by (group relabel)", dev, err);
    }
    if (st == ZB_OK) {
      zb_buffer *tmp = first;
      first = first_out;
      first_out = tmp;
    }
  }
  /* the kernels are done with the scratch before it is freed */
  zb_status ws = zb__cuda_wait("group-by (grouping)", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  zb_free(hk);
  zb_buffer_release(dk);
  zb_buffer_release(head);
  zb_buffer_release(rank);
  zb_buffer_release(first_out);
  if (st != ZB_OK) {
    zb_buffer_release(first);
    zb_gb_groups_release(g);
    return st;
  }
  g->first = first;
  g->G = G;
  return ZB_OK;
}

/* ------------------------------------------------------------------------ */
/* Host side: aggregation                                                   */
/* ------------------------------------------------------------------------ */

int zb_gb_vclass(zb_type_id t) {
  switch (zb__physical(t)) {
#define ZB_VC_CASE(ID, T, NAME, U) case ID:
  case ZB_BOOL:
  ZB_FOR_EACH_SIGNED_TYPE(ZB_VC_CASE)
    return ZB_VC_SIGNED;
  ZB_FOR_EACH_UNSIGNED_TYPE(ZB_VC_CASE)
    return ZB_VC_UNSIGNED;
  ZB_FOR_EACH_FLOAT_TYPE(ZB_VC_CASE)
    return ZB_VC_FLOAT;
#undef ZB_VC_CASE
  default:
    return ZB_VC_NONE;
  }
}

/* Accumulator arrays of G 8-byte slots, allocated on first use. */
struct zb_gb_accs {
  zb_buffer *b[6]; /* u0, u1, u2, d0, d1, mean/row */
};

void zb_gb_accs_release(zb_gb_accs *s) {
  for (int i = 0; i < 6; i++) {
    zb_buffer_release(s->b[i]);
    s->b[i] = NULL;
  }
}

/* Slot array i of s (allocated when missing), every slot set to v. */
zb_status zb_gb_slots(const zb_gb_groups *g, zb_gb_accs *s, int i, unsigned long long v,
                      void **out, zb_error *err) {
  if (s->b[i] == NULL) ZB_RETURN_NOT_OK(zb__cuda_buffer(g->dev, g->G * 8, &s->b[i], err));
  *out = s->b[i]->data;
  if (g->G == 0) return ZB_OK;
  zb_gb_fill_kernel<<<ZB_GB_GRID(g->dev, g->G)>>>((unsigned long long *)*out, g->G, v);
  return zb__cuda_launched("group-by (accumulator init)", g->dev, err);
}

/* One accumulation pass of kind `kind` over column c (NULL: size). */
zb_status zb_gb_pass(const zb_gb_groups *g, zb_gb_acc *a, int kind, const zb_column *c,
                     zb_error *err) {
  a->kind = kind;
  memset(&a->v, 0, sizeof a->v);
  a->vc = ZB_VC_NONE;
  if (c != NULL) {
    a->v = zb__cuda_operand(c, false);
    a->vc = zb_gb_vclass(c->type);
  }
  a->perm = (const int64_t *)g->perm->data->data + g->perm->offset;
  a->gid = (const int64_t *)g->gid->data;
  a->n = g->n;
  if (g->n == 0 || g->G == 0) return ZB_OK;
  zb_gb_accum_kernel<<<ZB_GB_GRID(g->dev, g->n)>>>(*a);
  return zb__cuda_launched("group-by (aggregate)", g->dev, err);
}

/* ---- median / quantile / nunique ------------------------------------------
 * Each group's values in order: the sorted positions are sorted stably by
 * their value's order key, then by group (a position without a value --
 * dropped, null or NaN -- goes to a leading bucket), so each group's values
 * end up contiguous and ascending.  The q-quantile of a group's m values is
 * then read at ranks floor((m - 1) q) and the next, and interpolated as the
 * CPU does (groupby_agg.c's quantile_of), with explicit rounding so that no
 * fused multiply-add changes the last bit.  nunique counts the positions
 * whose value differs from the one before in its group (plus one for a
 * group with a missing value when those count). */

/* keys[i] = the value's order key at sorted position i (0 without one),
 * vals[i] = i; cnt[g + 1] += the values of group g.  Positions are in group
 * order, so a warp's equal groups are neighbours: a segmented warp sum and
 * one atomic per group run, not one per row on the same address. */
__global__ void __launch_bounds__(ZB_GB_THREADS)
    zb_gb_qkey_kernel(zb_gb_acc a, unsigned long long *__restrict__ keys,
                      int64_t *__restrict__ vals, unsigned long long *__restrict__ cnt,
                      unsigned long long *__restrict__ miss) {
  const int lane = (int)(threadIdx.x & 31u);
  ZB_GB_FOR_WARP_POSITIONS(i, lane, a.n) {
    long long g;
    int64_t r;
    zb_gb_at(a, i, &g, &r);
    const bool p = g >= 0 && zb_gb_present(a, r);
    if (i < a.n) {
      keys[i] = p ? zb_gb_order_key(a, r) : 0ull;
      vals[i] = i;
    }
    if (!p && g >= 0 && miss != NULL) miss[g] = 1; /* any writer writes 1 */
    const unsigned long long c = zb_warp_seg(p ? 1ull : 0ull, g, lane, zb_op_add());
    const long long next = __shfl_down_sync(ZB_GB_FULL, g, 1);
    if ((lane == 31 || next != g) && g >= 0 && c != 0) atomicAdd(&cnt[g + 1], c);
  }
}

/* nunique: distinct[g] += 1 for each value of group g that differs from
 * the one before it (positions ordered by group, then value; ex and
 * `before` as for the pick). */
__global__ void __launch_bounds__(ZB_GB_THREADS)
    zb_gb_distinct_kernel(zb_gb_acc a, const int64_t *__restrict__ vals,
                          const unsigned long long *__restrict__ ex, int64_t G,
                          unsigned long long *__restrict__ distinct) {
  const int lane = (int)(threadIdx.x & 31u);
  const int64_t before = a.n - (int64_t)ex[G + 1];
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t j = before + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j - lane < a.n;
       j += stride) {
    long long g = -1;
    bool head = false;
    if (j < a.n) {
      const int64_t i = vals[j];
      g = (long long)a.gid[i];
      const unsigned long long k = zb_gb_order_key(a, a.perm[i]);
      head = j == before || a.gid[vals[j - 1]] != g ||
             zb_gb_order_key(a, a.perm[vals[j - 1]]) != k;
    }
    const unsigned long long c = zb_warp_seg(head ? 1ull : 0ull, g, lane, zb_op_add());
    const long long next = __shfl_down_sync(ZB_GB_FULL, g, 1);
    if ((lane == 31 || next != g) && g >= 0 && c != 0) atomicAdd(&distinct[g], c);
  }
}

/* out[g] = distinct[g] (+ 1 when count_na and the group has a missing
 * value). */
__global__ void __launch_bounds__(ZB_GB_THREADS)
    zb_gb_nunique_fin_kernel(const unsigned long long *__restrict__ distinct,
                             const unsigned long long *__restrict__ miss, int64_t G,
                             int64_t *__restrict__ out) {
  for (int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; g < G;
       g += (int64_t)gridDim.x * blockDim.x)
    out[g] = (int64_t)(distinct[g] + (miss != NULL ? miss[g] : 0ull));
}

/* keys[j] = 1 + the group of value-sorted position vals[j] (0 without a
 * value). */
__global__ void __launch_bounds__(ZB_GB_THREADS)
    zb_gb_qgroup_kernel(zb_gb_acc a, const int64_t *__restrict__ vals,
                        unsigned long long *__restrict__ keys) {
  for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < a.n;
       j += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = vals[j], g = a.gid[i];
    keys[j] = g >= 0 && zb_gb_present(a, a.perm[i]) ? (unsigned long long)g + 1 : 0ull;
  }
}

/* out[g] = the q-quantile of group g (ex: exclusive scan of cnt, G + 2
 * entries; vals: positions by group then value), validity words by ballot. */
__global__ void __launch_bounds__(ZB_GB_THREADS)
    zb_gb_qpick_kernel(zb_gb_acc a, const int64_t *__restrict__ vals,
                       const unsigned long long *__restrict__ ex, int64_t G, double q,
                       bool median, double *__restrict__ out, uint32_t *__restrict__ valid,
                       unsigned long long *__restrict__ nulls) {
  const int lane = threadIdx.x & 31;
  const int64_t before = a.n - (int64_t)ex[G + 1]; /* positions without a value */
  for (int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; w * 32 < G;
       w += (int64_t)gridDim.x * blockDim.x / 32) {
    const int64_t g = w * 32 + lane;
    bool ok = false;
    if (g < G) {
      const int64_t start = before + (int64_t)ex[g + 1], m = (int64_t)(ex[g + 2] - ex[g + 1]);
      double r = 0;
      if (m > 0) {
        ok = true;
        const double h = __dmul_rn((double)(m - 1), q);
        int64_t lo = (int64_t)floor(h);
        if (lo > m - 1) lo = m - 1;
        const double frac = __dsub_rn(h, (double)lo);
        const double x0 = zb_dload<double>(a.v, a.perm[vals[start + lo]]);
        r = x0;
        if (frac > 0 && lo + 1 < m) {
          const double x1 = zb_dload<double>(a.v, a.perm[vals[start + lo + 1]]);
          /* median: (x0 + x1) / 2, as the CPU's (src/cpu/groupby_agg.c) */
          r = median ? __dmul_rn(__dadd_rn(x0, x1), 0.5)
                     : __dadd_rn(x0, __dmul_rn(__dsub_rn(x1, x0), frac));
        }
      }
      out[g] = r;
    }
    const unsigned vb = __ballot_sync(0xffffffffu, ok);
    const unsigned nb = __ballot_sync(0xffffffffu, g < G && !ok);
    if (lane == 0) {
      valid[w] = vb;
      if (nb != 0) atomicAdd(nulls, (unsigned long long)__popc(nb));
    }
  }
}

/* The median (q 0.5, median set) or q-quantile of column c per group (a new FLOAT64
 * column of G rows, null where a group has no value), or, for nunique, the
 * distinct values per group (INT64; count_na: a group's missing values
 * count as one more). */
zb_status zb_gb_ordered(const zb_gb_groups *g, const zb_column *c, bool nunique, double q,
                        bool median, bool count_na, zb_column **out, zb_error *err) {
  *out = NULL;
  const int dev = g->dev;
  const int64_t n = g->n, G = g->G;
  zb_gb_acc a;
  memset(&a, 0, sizeof a);
  a.v = zb__cuda_operand(c, false);
  a.vc = zb_gb_vclass(c->type);
  a.perm = (const int64_t *)g->perm->data->data + g->perm->offset;
  a.gid = (const int64_t *)g->gid->data;
  a.n = n;
  zb_buffer *keys[2] = {NULL, NULL}, *vals[2] = {NULL, NULL}, *cnt = NULL, *temp = NULL,
            *data = NULL, *valid = NULL, *distinct = NULL, *miss = NULL, *nulls = NULL;
  size_t temp_have = 0;
  int cur = 0;
  unsigned long long null_count = 0;
  zb_status st = zb__cuda_buffer(dev, (G + 2) * 8, &cnt, err);
  if (st == ZB_OK && !nunique) st = zb__cuda_buffer(dev, 8, &nulls, err);
  if (st == ZB_OK && nulls != NULL)
    st = zb__cuda_check(cudaMemsetAsync(nulls->data, 0, 8, 0), "cudaMemsetAsync", dev, err);
  if (st == ZB_OK && nunique) st = zb__cuda_buffer(dev, G * 8, &distinct, err);
  if (st == ZB_OK && nunique && count_na) st = zb__cuda_buffer(dev, G * 8, &miss, err);
  if (st == ZB_OK && distinct != NULL)
    st = zb__cuda_check(cudaMemsetAsync(distinct->data, 0, (size_t)G * 8, 0), "cudaMemsetAsync",
                        dev, err);
  if (st == ZB_OK && miss != NULL)
    st = zb__cuda_check(cudaMemsetAsync(miss->data, 0, (size_t)G * 8, 0), "cudaMemsetAsync",
                        dev, err);
  for (int k = 0; k < 2 && st == ZB_OK; k++) {
    st = zb__cuda_buffer(dev, n * 8, &keys[k], err);
    if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 8, &vals[k], err);
  }
  if (st == ZB_OK) st = zb__cuda_buffer(dev, G * 8, &data, err);
  if (st == ZB_OK && !nunique) st = zb__cuda_buffer(dev, (G + 31) / 32 * 4, &valid, err);
  if (st == ZB_OK)
    st = zb__cuda_check(cudaMemsetAsync(cnt->data, 0, (size_t)(G + 2) * 8, 0), "cudaMemsetAsync",
                        dev, err);
  if (st == ZB_OK && n > 0) {
    zb_gb_qkey_kernel<<<ZB_GB_GRID(dev, n)>>>(
        a, (unsigned long long *)keys[0]->data, (int64_t *)vals[0]->data,
        (unsigned long long *)cnt->data, miss != NULL ? (unsigned long long *)miss->data : NULL);
    st = zb__cuda_launched("group-by quantile (value keys)", dev, err);
  }
  int begin_bit = 0, end_bit = 0; /* only the bits the value keys differ in */
  if (st == ZB_OK)
    st = zb__cuda_key_varying_bits(dev, (const uint64_t *)keys[0]->data, n, &begin_bit, &end_bit,
                                   err);
  if (st == ZB_OK)
    st = zb__cuda_sort_pairs(dev, 8, keys, vals, &cur, n, begin_bit, end_bit, &temp, &temp_have,
                             err);
  if (st == ZB_OK && n > 0) {
    zb_gb_qgroup_kernel<<<ZB_GB_GRID(dev, n)>>>(a, (const int64_t *)vals[cur]->data,
                                                (unsigned long long *)keys[0]->data);
    st = zb__cuda_launched("group-by quantile (group keys)", dev, err);
  }
  if (st == ZB_OK)
    st = zb__cuda_sort_pairs(dev, 8, keys, vals, &cur, n, 0, zb__cuda_key_bits((uint64_t)G),
                             &temp, &temp_have, err);
  if (st == ZB_OK) st = zb__cuda_exclusive_sum(dev, (int64_t *)cnt->data, G + 2, err);
  if (st == ZB_OK && G > 0 && !nunique) {
    zb_gb_qpick_kernel<<<ZB_GB_GRID(dev, G)>>>(a, (const int64_t *)vals[cur]->data,
                                               (const unsigned long long *)cnt->data, G, q,
                                               median, (double *)data->data, (uint32_t *)valid->data,
                                               (unsigned long long *)nulls->data);
    st = zb__cuda_launched("group-by quantile (pick)", dev, err);
  }
  if (st == ZB_OK && nulls != NULL)
    st = zb__cuda_read(dev, &null_count, nulls->data, 8, "cudaMemcpy of the null count", err);
  if (st == ZB_OK && G > 0 && nunique) {
    if (n > 0) {
      zb_gb_distinct_kernel<<<ZB_GB_GRID(dev, n)>>>(a, (const int64_t *)vals[cur]->data,
                                                    (const unsigned long long *)cnt->data, G,
                                                    (unsigned long long *)distinct->data);
      st = zb__cuda_launched("group-by nunique (distinct values)", dev, err);
    }
    if (st == ZB_OK) {
      zb_gb_nunique_fin_kernel<<<ZB_GB_GRID(dev, G)>>>(
          (const unsigned long long *)distinct->data,
          miss != NULL ? (const unsigned long long *)miss->data : NULL, G, (int64_t *)data->data);
      st = zb__cuda_launched("group-by nunique (result)", dev, err);
    }
  }
  zb_status ws = zb__cuda_wait("group-by quantile", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  if (st == ZB_OK)
    st = zb_column_make(nunique ? ZB_INT64 : ZB_FLOAT64, G, 0, valid, data, NULL, NULL,
                        (int64_t)null_count, out, err);
  for (int k = 0; k < 2; k++) {
    zb_buffer_release(keys[k]);
    zb_buffer_release(vals[k]);
  }
  zb_buffer_release(cnt);
  zb_buffer_release(temp);
  zb_buffer_release(data);
  zb_buffer_release(valid);
  zb_buffer_release(distinct);
  zb_buffer_release(miss);
  zb_buffer_release(nulls);
  return st;
}

/* ---- corr -------------------------------------------------------------------
 * Pearson correlation of two columns per group over the rows where both
 * have a value, in two passes: the first finds each group's pair count and
 * its first pair, whose x and y become the group's shifts; the second sums
 * dx, dy, dx^2, dy^2 and dx * dy of the shifted values, and the co-moments
 * are those sums corrected by the first two.  Shifting by a value of the
 * group (not by a computed mean) keeps a constant column's co-moment
 * exactly 0, so a group without spread is null as on the CPU.  Otherwise
 * within rounding of the CPU's Welford update; null below two pairs,
 * clamped to [-1, 1]. */

struct zb_gb_corr_acc {
  zb_operand y;
  unsigned long long *n;
  long long *first; /* first sorted position with a pair */
  double *s[5];     /* dx, dy, dx^2, dy^2, dx dy */
  const double *mx, *my;
};

__device__ __forceinline__ bool zb_gb_corr_pair(const zb_gb_acc &a, const zb_gb_corr_acc &c,
                                                int64_t r, double *x, double *y) {
  if (!zb_gb_present(a, r) || !zb_dvalid(c.y, r)) return false;
  *x = zb_dload<double>(a.v, r);
  *y = zb_dload<double>(c.y, r);
  return *y == *y;
}

__global__ void __launch_bounds__(ZB_GB_THREADS)
    zb_gb_corr_kernel(zb_gb_acc a, zb_gb_corr_acc c, int pass) {
  const int lane = (int)(threadIdx.x & 31u);
  ZB_GB_FOR_WARP_POSITIONS(i, lane, a.n) {
    long long g;
    int64_t r;
    zb_gb_at(a, i, &g, &r);
    double x = 0, y = 0;
    const bool ok = g >= 0 && zb_gb_corr_pair(a, c, r, &x, &y);
    const long long next = __shfl_down_sync(ZB_GB_FULL, g, 1);
    const bool emit = (lane == 31 || next != g) && g >= 0;
    if (pass == 1) {
      const unsigned long long k = zb_warp_seg(ok ? 1ull : 0ull, g, lane, zb_op_add());
      const long long f = zb_warp_seg(ok ? (long long)i : ZB_GB_NO_ROW, g, lane, zb_op_min());
      if (emit && k != 0) {
        atomicAdd(&c.n[g], k);
        atomicMin(&c.first[g], f);
      }
    } else {
      const double dx = ok ? x - c.mx[g] : 0.0, dy = ok ? y - c.my[g] : 0.0;
      const double t0 = zb_warp_seg(dx, g, lane, zb_op_add());
      const double t1 = zb_warp_seg(dy, g, lane, zb_op_add());
      const double t2 = zb_warp_seg(dx * dx, g, lane, zb_op_add());
      const double t3 = zb_warp_seg(dy * dy, g, lane, zb_op_add());
      const double t4 = zb_warp_seg(dx * dy, g, lane, zb_op_add());
      if (emit) {
        atomicAdd(&c.s[0][g], t0);
        atomicAdd(&c.s[1][g], t1);
        atomicAdd(&c.s[2][g], t2);
        atomicAdd(&c.s[3][g], t3);
        atomicAdd(&c.s[4][g], t4);
      }
    }
  }
}

/* mx[g], my[g]: x and y of the group's first pair (0 without one). */
__global__ void __launch_bounds__(ZB_GB_THREADS)
    zb_gb_corr_shift_kernel(zb_gb_acc a, zb_gb_corr_acc c, int64_t G, double *__restrict__ mx,
                            double *__restrict__ my) {
  for (int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; g < G;
       g += (int64_t)gridDim.x * blockDim.x) {
    double x = 0, y = 0;
    if (c.n[g] > 0) {
      const int64_t r = a.perm[c.first[g]];
      x = zb_dload<double>(a.v, r);
      y = zb_dload<double>(c.y, r);
    }
    mx[g] = x;
    my[g] = y;
  }
}

/* out[g] = the correlation, validity words by ballot. */
__global__ void __launch_bounds__(ZB_GB_THREADS)
    zb_gb_corr_fin_kernel(zb_gb_corr_acc c, int64_t G, double *__restrict__ out,
                          uint32_t *__restrict__ valid, unsigned long long *__restrict__ nulls) {
  const int lane = threadIdx.x & 31;
  for (int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; w * 32 < G;
       w += (int64_t)gridDim.x * blockDim.x / 32) {
    const int64_t g = w * 32 + lane;
    bool ok = false;
    if (g < G && c.n[g] >= 2) {
      const double k = (double)c.n[g];
      /* cancellation may round a co-moment below 0; the CPU's never are */
      const double sxx = fmax(c.s[2][g] - c.s[0][g] * c.s[0][g] / k, 0.0);
      const double syy = fmax(c.s[3][g] - c.s[1][g] * c.s[1][g] / k, 0.0);
      const double sxy = c.s[4][g] - c.s[0][g] * c.s[1][g] / k;
      const double den = sqrt(sxx * syy);
      if (den > 0) {
        ok = true;
        const double r = sxy / den;
        out[g] = r > 1 ? 1 : r < -1 ? -1 : r;
      }
    }
    if (g < G && !ok) out[g] = 0;
    const unsigned vb = __ballot_sync(0xffffffffu, ok);
    const unsigned nb = __ballot_sync(0xffffffffu, g < G && !ok);
    if (lane == 0) {
      valid[w] = vb;
      if (nb != 0) atomicAdd(nulls, (unsigned long long)__popc(nb));
    }
  }
}

/* corr(x, y) per group: a new FLOAT64 column of G rows. */
zb_status zb_gb_corr(const zb_gb_groups *g, const zb_column *x, const zb_column *y,
                     zb_column **out, zb_error *err) {
  *out = NULL;
  const int dev = g->dev;
  const int64_t G = g->G;
  zb_gb_acc a;
  memset(&a, 0, sizeof a);
  a.v = zb__cuda_operand(x, false);
  a.vc = zb_gb_vclass(x->type);
  a.perm = (const int64_t *)g->perm->data->data + g->perm->offset;
  a.gid = (const int64_t *)g->gid->data;
  a.n = g->n;
  zb_gb_corr_acc c;
  memset(&c, 0, sizeof c);
  c.y = zb__cuda_operand(y, false);
  /* n, first, s[0..4], mx, my, out: G slots of 8 bytes; valid: G bits;
   * the null count */
  zb_buffer *bufs[12] = {NULL};
  unsigned long long null_count = 0;
  zb_status st = ZB_OK;
  for (int k = 0; k < 10 && st == ZB_OK; k++) st = zb__cuda_buffer(dev, G * 8, &bufs[k], err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, (G + 31) / 32 * 4, &bufs[10], err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, 8, &bufs[11], err);
  if (st == ZB_OK)
    st = zb__cuda_check(cudaMemsetAsync(bufs[11]->data, 0, 8, 0), "cudaMemsetAsync", dev, err);
  for (int k = 0; k < 7 && st == ZB_OK; k++)
    st = zb__cuda_check(cudaMemsetAsync(bufs[k]->data, k == 1 ? 0x7f : 0, (size_t)G * 8, 0),
                        "cudaMemsetAsync", dev, err); /* first: 0x7f7f... = "no row yet" */
  if (st == ZB_OK) {
    c.n = (unsigned long long *)bufs[0]->data;
    c.first = (long long *)bufs[1]->data;
    for (int k = 0; k < 5; k++) c.s[k] = (double *)bufs[2 + k]->data;
    c.mx = (const double *)bufs[7]->data;
    c.my = (const double *)bufs[8]->data;
  }
  if (st == ZB_OK && g->n > 0 && G > 0) {
    zb_gb_corr_kernel<<<ZB_GB_GRID(dev, g->n)>>>(a, c, 1);
    st = zb__cuda_launched("group-by corr (pairs)", dev, err);
    if (st == ZB_OK) {
      zb_gb_corr_shift_kernel<<<ZB_GB_GRID(dev, G)>>>(a, c, G, (double *)bufs[7]->data,
                                                      (double *)bufs[8]->data);
      st = zb__cuda_launched("group-by corr (shifts)", dev, err);
    }
    if (st == ZB_OK) {
      zb_gb_corr_kernel<<<ZB_GB_GRID(dev, g->n)>>>(a, c, 2);
      st = zb__cuda_launched("group-by corr (sums)", dev, err);
    }
  }
  if (st == ZB_OK && G > 0) {
    zb_gb_corr_fin_kernel<<<ZB_GB_GRID(dev, G)>>>(c, G, (double *)bufs[9]->data,
                                                  (uint32_t *)bufs[10]->data,
                                                  (unsigned long long *)bufs[11]->data);
    st = zb__cuda_launched("group-by corr (result)", dev, err);
  }
  if (st == ZB_OK)
    st = zb__cuda_read(dev, &null_count, bufs[11]->data, 8, "cudaMemcpy of the null count", err);
  zb_status ws = zb__cuda_wait("group-by corr", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  if (st == ZB_OK)
    st = zb_column_make(ZB_FLOAT64, G, 0, bufs[10], bufs[9], NULL, NULL, (int64_t)null_count,
                        out, err);
  for (int k = 0; k < 12; k++) zb_buffer_release(bufs[k]);
  return st;
}

/* The result column of one aggregation (validated by the core, supported
 * by zb_gb_supported).  New column in *out. */
zb_status zb_gb_aggregate(const zb_table *t, const zb_gb_groups *g, const zb_agg *ag,
                          zb_column **out, zb_error *err) {
  *out = NULL;
  const zb_column *c = ag->op == ZB_AGG_SIZE ? NULL : t->columns[ag->column];
  const int vc = c != NULL ? zb_gb_vclass(c->type) : ZB_VC_NONE;
  const bool fl = vc == ZB_VC_FLOAT;
  zb_gb_accs s;
  memset(&s, 0, sizeof s);
  zb_gb_acc a;
  memset(&a, 0, sizeof a);
  zb_gb_fin_fn f;
  memset(&f, 0, sizeof f);
  f.ddof = (long long)ag->ddof;
  zb_type_id type = ZB_INT64;
  void *p0 = NULL, *p1 = NULL, *p2 = NULL, *p3 = NULL, *p4 = NULL, *p5 = NULL;
  const unsigned long long one_f = 0x3ff0000000000000ull; /* 1.0 */
  zb_status st = ZB_OK;
  if (ag->op == ZB_AGG_MEDIAN || ag->op == ZB_AGG_QUANTILE || ag->op == ZB_AGG_NUNIQUE)
    return zb_gb_ordered(g, c, ag->op == ZB_AGG_NUNIQUE,
                         ag->op == ZB_AGG_MEDIAN ? 0.5 : ag->q, ag->op == ZB_AGG_MEDIAN,
                         ag->count_na, out, err);
  if (ag->op == ZB_AGG_CORR) return zb_gb_corr(g, c, t->columns[ag->column2], out, err);
  switch (ag->op) {
  case ZB_AGG_SIZE:
  case ZB_AGG_COUNT:
    st = zb_gb_slots(g, &s, 0, 0, &p0, err);
    a.u0 = (unsigned long long *)p0;
    if (st == ZB_OK)
      st = zb_gb_pass(g, &a, ag->op == ZB_AGG_SIZE ? ZB_ACC_SIZE : ZB_ACC_COUNT, c, err);
    f.op = ZB_FIN_U64;
    break;
  case ZB_AGG_SUM:
  case ZB_AGG_MEAN:
    st = zb_gb_slots(g, &s, 0, 0, &p0, err);
    if (st == ZB_OK) st = zb_gb_slots(g, &s, 1, 0, &p1, err);
    if (st == ZB_OK) st = zb_gb_slots(g, &s, 2, 0, &p2, err);
    if (st == ZB_OK) st = zb_gb_slots(g, &s, 3, 0, &p3, err);
    a.u0 = (unsigned long long *)p0;
    a.u1 = (unsigned long long *)p1;
    a.u2 = (unsigned long long *)p2;
    a.d0 = (double *)p3;
    if (ag->op == ZB_AGG_SUM) {
      type = fl ? ZB_FLOAT64 : vc == ZB_VC_UNSIGNED ? ZB_UINT64 : ZB_INT64;
      f.op = fl ? ZB_FIN_F64 : ZB_FIN_U64;
      if (st == ZB_OK) st = zb_gb_pass(g, &a, fl ? ZB_ACC_FSUM : ZB_ACC_ISUM, c, err);
    } else {
      type = ZB_FLOAT64;
      f.op = fl ? ZB_FIN_MEAN_F : ZB_FIN_MEAN_I;
      if (st == ZB_OK) st = zb_gb_pass(g, &a, fl ? ZB_ACC_FSUM : ZB_ACC_ISUM128, c, err);
    }
    break;
  case ZB_AGG_STD:
  case ZB_AGG_VAR:
    type = ZB_FLOAT64;
    f.op = ag->op == ZB_AGG_STD ? ZB_FIN_STD : ZB_FIN_VAR;
    st = zb_gb_slots(g, &s, 2, 0, &p2, err);
    if (st == ZB_OK) st = zb_gb_slots(g, &s, 3, 0, &p3, err);
    if (st == ZB_OK) st = zb_gb_slots(g, &s, 5, 0, &p5, err);
    a.u2 = (unsigned long long *)p2;
    a.d0 = (double *)p3;
    if (st == ZB_OK) st = zb_gb_pass(g, &a, ZB_ACC_FSUM, c, err);
    if (st == ZB_OK && g->G > 0) {
      zb_gb_mean_kernel<<<ZB_GB_GRID(g->dev, g->G)>>>((const double *)p3,
                                                      (const unsigned long long *)p2, g->G,
                                                      (double *)p5);
      st = zb__cuda_launched("group-by (means)", g->dev, err);
    }
    if (st == ZB_OK) st = zb_gb_slots(g, &s, 3, 0, &p3, err); /* d0 again: sum of d */
    if (st == ZB_OK) st = zb_gb_slots(g, &s, 4, 0, &p4, err);
    a.d0 = (double *)p3;
    a.d1 = (double *)p4;
    a.mean = (const double *)p5;
    if (st == ZB_OK) st = zb_gb_pass(g, &a, ZB_ACC_VAR2, c, err);
    break;
  case ZB_AGG_PROD:
    st = zb_gb_slots(g, &s, fl ? 3 : 0, fl ? one_f : 1ull, fl ? &p3 : &p0, err);
    a.u0 = (unsigned long long *)p0;
    a.d0 = (double *)p3;
    type = fl ? ZB_FLOAT64 : vc == ZB_VC_UNSIGNED ? ZB_UINT64 : ZB_INT64;
    f.op = fl ? ZB_FIN_F64 : ZB_FIN_U64;
    if (st == ZB_OK) st = zb_gb_pass(g, &a, fl ? ZB_ACC_FPROD : ZB_ACC_IPROD, c, err);
    break;
  case ZB_AGG_ANY:
  case ZB_AGG_ALL:
    type = ZB_BOOL;
    f.op = ag->op == ZB_AGG_ANY ? ZB_FIN_ANY : ZB_FIN_ALL;
    st = zb_gb_slots(g, &s, 0, 0, &p0, err);
    a.u0 = (unsigned long long *)p0;
    if (st == ZB_OK) st = zb_gb_pass(g, &a, ZB_ACC_NZ, c, err);
    break;
  default: { /* MIN, MAX, FIRST, LAST: the row, then a take */
    f.op = ZB_FIN_ROW;
    const bool last = ag->op == ZB_AGG_LAST;
    st = zb_gb_slots(g, &s, 5, last ? ~0ull : (unsigned long long)ZB_GB_NO_ROW, &p5, err);
    a.row = (long long *)p5;
    if (ag->op == ZB_AGG_MIN || ag->op == ZB_AGG_MAX) {
      const bool mn = ag->op == ZB_AGG_MIN;
      if (st == ZB_OK) st = zb_gb_slots(g, &s, 0, mn ? ~0ull : 0ull, &p0, err);
      a.u0 = (unsigned long long *)p0;
      if (st == ZB_OK) st = zb_gb_pass(g, &a, mn ? ZB_ACC_MIN : ZB_ACC_MAX, c, err);
      a.best = (const unsigned long long *)p0;
      if (st == ZB_OK) st = zb_gb_pass(g, &a, ZB_ACC_ARGBEST, c, err);
    } else if (st == ZB_OK) {
      st = zb_gb_pass(g, &a, last ? ZB_ACC_LAST : ZB_ACC_FIRST, c, err);
    }
    break;
  }
  }
  f.u0 = (const unsigned long long *)p0;
  f.u1 = (const unsigned long long *)p1;
  f.u2 = (const unsigned long long *)p2;
  f.d0 = (const double *)p3;
  f.d1 = (const double *)p4;
  f.row = (const long long *)p5;
  zb_column *res = NULL;
  if (st == ZB_OK) {
    const bool nullable =
        f.op == ZB_FIN_MEAN_I || f.op == ZB_FIN_MEAN_F || f.op == ZB_FIN_VAR ||
        f.op == ZB_FIN_STD || f.op == ZB_FIN_ROW;
    zb_cuda_out r;
    zb_device where;
    where.kind = ZB_DEVICE_CUDA;
    where.id = g->dev;
    st = zb__cuda_out_begin(where, type, g->G, nullable, &r, err);
    if (st == ZB_OK) {
      f.out = type == ZB_BOOL ? NULL : r.data->data;
      st = zb_cuda_rows_finish(f, &r, "group-by (results)", type, NULL, &res, err);
    }
  }
  if (st == ZB_OK && f.op == ZB_FIN_ROW) {
    zb_column *rows = res;
    res = NULL;
    st = zb__cuda_take(c, rows, &res, err);
    zb_column_release(rows);
  }
  /* every kernel done before the accumulators are freed */
  zb_status ws = zb__cuda_wait("group-by (aggregate)", g->dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  zb_gb_accs_release(&s);
  if (st != ZB_OK) {
    zb_column_release(res);
    return st;
  }
  *out = res;
  return ZB_OK;
}

/* An INT64 column (no nulls) over the first G slots of buf (borrowed). */
zb_status zb_gb_index_column(zb_buffer *buf, int64_t G, zb_column **out, zb_error *err) {
  return zb_column_make(ZB_INT64, G, 0, NULL, buf, NULL, NULL, 0, out, err);
}

} /* namespace */

/* ------------------------------------------------------------------------ */
/* Backend entries                                                          */
/* ------------------------------------------------------------------------ */

extern "C" zb_status zb__cuda_groupby(const zb_table *t, int64_t n_keys, const int64_t *keys,
                                      bool dropna, bool sort, int64_t n_aggs,
                                      const zb_agg *aggs, zb_table **out, zb_error *err) {
  *out = NULL;
  zb_gb_groups g;
  ZB_RETURN_NOT_OK(zb_gb_group(t, n_keys, keys, dropna, sort, &g, err));
  const int64_t nc = n_keys + n_aggs;
  zb_column **cols = (zb_column **)zb_calloc((size_t)nc, sizeof(zb_column *));
  const char **names = (const char **)zb_calloc((size_t)nc, sizeof(char *));
  zb_column *idx = NULL;
  zb_status st = ZB_OK;
  if (cols == NULL || names == NULL)
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory in GPU group-by (%lld columns)",
                      (long long)nc);
  if (st == ZB_OK) st = zb_gb_index_column(g.first, g.G, &idx, err);
  for (int64_t k = 0; k < n_keys && st == ZB_OK; k++)
    st = zb__cuda_take(t->columns[keys[k]], idx, &cols[k], err);
  for (int64_t a = 0; a < n_aggs && st == ZB_OK; a++)
    st = zb_gb_aggregate(t, &g, &aggs[a], &cols[n_keys + a], err);
  for (int64_t c = 0; c < nc && st == ZB_OK; c++)
    names[c] = zb__groupby_result_name(t, n_keys, keys, aggs, c);
  if (st == ZB_OK) st = zb_table_make(nc, cols, names, out, err);
  if (cols != NULL)
    for (int64_t c = 0; c < nc; c++) zb_column_release(cols[c]);
  zb_free(cols);
  zb_free(names);
  zb_column_release(idx);
  zb_gb_groups_release(&g);
  return st;
}

extern "C" zb_status zb__cuda_group_ids(const zb_table *t, int64_t n_keys, const int64_t *keys,
                                        bool dropna, bool sort, zb_column **out,
                                        int64_t *n_groups, zb_error *err) {
  *out = NULL;
  *n_groups = 0;
  zb_gb_groups g;
  ZB_RETURN_NOT_OK(zb_gb_group(t, n_keys, keys, dropna, sort, &g, err));
  zb_buffer *by_row = NULL;
  zb_column *res = NULL;
  zb_status st = zb__cuda_buffer(g.dev, g.n * 8, &by_row, err);
  if (st == ZB_OK && g.n > 0) {
    zb_gb_scatter_kernel<<<ZB_GB_GRID(g.dev, g.n)>>>((const int64_t *)g.perm->data->data +
                                                         g.perm->offset,
                                                     (const int64_t *)g.gid->data, g.n,
                                                     (long long *)by_row->data);
    st = zb__cuda_launched("group ids (by row)", g.dev, err);
  }
  if (st == ZB_OK) {
    zb_gb_fin_fn f;
    memset(&f, 0, sizeof f);
    f.op = ZB_FIN_ROW; /* a group id, null where negative (dropped) */
    f.row = (const long long *)by_row->data;
    zb_cuda_out r;
    zb_device where;
    where.kind = ZB_DEVICE_CUDA;
    where.id = g.dev;
    st = zb__cuda_out_begin(where, ZB_INT64, g.n, true, &r, err);
    if (st == ZB_OK) {
      f.out = r.data->data;
      st = zb_cuda_rows_finish(f, &r, "group ids", ZB_INT64, NULL, &res, err);
    }
  }
  zb_status ws = zb__cuda_wait("group ids", g.dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  zb_buffer_release(by_row);
  const int64_t G = g.G;
  zb_gb_groups_release(&g);
  if (st != ZB_OK) {
    zb_column_release(res);
    return st;
  }
  *out = res;
  *n_groups = G;
  return ZB_OK;
}
