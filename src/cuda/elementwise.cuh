/*
 * elementwise.cuh -- what the CUDA elementwise files (elementwise.cu and
 * cast.cu) share: operand descriptors, loads and stores converted per
 * physical type, one row-parallel kernel template, and the builder of result
 * columns on a device.
 *
 * Row i of an operand is at physical position offset + i * stride of its
 * buffers (stride 0 broadcasts a length-1 scalar), so zero-copy slices at
 * any bit offset need no special case.  A kernel reads only the bytes of the
 * rows it handles: imported buffers need no padding.
 *
 * zb_rows_kernel runs one thread per row in a grid-stride loop whose bound
 * is the same for every lane of a warp, so all 32 lanes reach each
 * __ballot_sync.  Lane 0 stores the warp's 32 bits of bool output and of
 * validity as one 32-bit word of an output bitmap at offset 0 (row i is bit
 * i & 31 of word i >> 5), so no two warps write the same word and no atomics
 * are needed for the bitmaps.  Per launch two device counters are kept: the
 * number of valid rows (the null count follows) and the smallest "bad" row
 * (a value a cast cannot represent), each combined once per warp.
 *
 * Type dispatch stays outside the kernels' template arguments as far as
 * exactness allows: values are loaded into one of a few compute classes
 * (long long, unsigned long long, float, double) with C's conversions from
 * whichever physical type the column has, and stored back per width.  The
 * few templates are instantiated per class, not per type pair.
 */
#ifndef ZAMBEZI_CUDA_ELEMENTWISE_CUH
#define ZAMBEZI_CUDA_ELEMENTWISE_CUH

#include <stdint.h>
#include <string.h>

#include "core/dtype_list.h"
#include "cuda/cuda_internal.h"

extern "C" {
#include "core/values.h" /* zb__physical, zb__convert_block */
}

#define ZB_EW_THREADS 256 /* threads per block: whole warps */

/* One input column, or a broadcast scalar, as a kernel sees it. */
struct zb_operand {
  const void *data;     /* values; bool: a bitmap */
  const uint8_t *valid; /* validity bitmap; NULL: every row valid */
  int64_t offset;       /* physical position of row 0 */
  int64_t stride;       /* 1, or 0 for a scalar */
  int type;             /* physical type id (zb__physical) */
};

/* The operand of column c (scalar: every row reads position c->offset). */
zb_operand zb__cuda_operand(const zb_column *c, bool scalar);

__device__ __forceinline__ int64_t zb_dpos(const zb_operand &o, int64_t i) {
  return o.offset + i * o.stride;
}

__device__ __forceinline__ bool zb_dvalid(const zb_operand &o, int64_t i) {
  return o.valid == NULL || zb__cuda_bit(o.valid, zb_dpos(o, i));
}

/* Row i of o converted to C with C's conversion rules, as
 * zb__convert_block does on the CPU (bool is 0 or 1). */
template <typename C> __device__ __forceinline__ C zb_dload(const zb_operand &o, int64_t i) {
  const int64_t p = zb_dpos(o, i);
  switch (o.type) {
    case ZB_BOOL: return (C)(zb__cuda_bit((const uint8_t *)o.data, p) ? 1 : 0);
#define ZB_DLOAD(ID, T, NAME, U) case ID: return (C)((const T *)o.data)[p];
    ZB_FOR_EACH_INTEGER_TYPE(ZB_DLOAD)
    ZB_FOR_EACH_FLOAT_TYPE(ZB_DLOAD)
#undef ZB_DLOAD
    default: return (C)0; /* not a physical numeric type */
  }
}

/* Bytes per value of a fixed-width physical type. */
__host__ __device__ __forceinline__ int zb_dwidth(int type) {
  switch (type) {
#define ZB_DWIDTH(ID, T, NAME, U) case ID: return (int)sizeof(T);
    ZB_FOR_EACH_NUMERIC_TYPE(ZB_DWIDTH)
#undef ZB_DWIDTH
    default: return 8;
  }
}

/* The bits of row i of a fixed-width operand, zero-extended. */
__device__ __forceinline__ unsigned long long zb_dload_raw(const zb_operand &o, int64_t i) {
  const int64_t p = zb_dpos(o, i);
  switch (zb_dwidth(o.type)) {
    case 1: return ((const uint8_t *)o.data)[p];
    case 2: return ((const uint16_t *)o.data)[p];
    case 4: return ((const uint32_t *)o.data)[p];
    default: return ((const unsigned long long *)o.data)[p];
  }
}

/* Store the low zb_dwidth(type) bytes of bits as element i of data. */
__device__ __forceinline__ void zb_dstore_raw(void *data, int type, int64_t i,
                                              unsigned long long bits) {
  switch (zb_dwidth(type)) {
    case 1: ((uint8_t *)data)[i] = (uint8_t)bits; break;
    case 2: ((uint16_t *)data)[i] = (uint16_t)bits; break;
    case 4: ((uint32_t *)data)[i] = (uint32_t)bits; break;
    default: ((unsigned long long *)data)[i] = bits; break;
  }
}

/* Store v as element i of a column of physical type `type`: floats by C
 * conversion, integers as the two's complement bits of v modulo the width
 * (integer compute classes only). */
template <typename C>
__device__ __forceinline__ void zb_dstore(void *data, int type, int64_t i, C v) {
  if (type == ZB_FLOAT32)
    ((float *)data)[i] = (float)v;
  else if (type == ZB_FLOAT64)
    ((double *)data)[i] = (double)v;
  else
    zb_dstore_raw(data, type, i, (unsigned long long)v);
}

/* What an operation functor returns for one row. */
struct zb_row {
  bool bit;   /* the value, for bool results */
  bool valid; /* the row is valid in the result */
  bool bad;   /* the row cannot be converted (the first one is reported) */
};

/* acc[0]: valid rows written to `valid`; acc[1]: smallest bad row (~0: none). */
template <typename F>
__global__ void __launch_bounds__(ZB_EW_THREADS)
    zb_rows_kernel(F f, int64_t n, uint32_t *__restrict__ bits, uint32_t *__restrict__ valid,
                   unsigned long long *__restrict__ acc) {
  const int lane = (int)(threadIdx.x & 31u);
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  unsigned long long count = 0, first_bad = ~0ULL;
  /* i - lane is the warp's first row: the same for all its lanes */
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i - lane < n; i += stride) {
    zb_row r;
    r.bit = false;
    r.valid = false;
    r.bad = false;
    if (i < n) r = f(i);
    const unsigned wb = __ballot_sync(0xffffffffu, r.bit);
    const unsigned wv = __ballot_sync(0xffffffffu, r.valid);
    const unsigned wx = __ballot_sync(0xffffffffu, r.bad);
    if (lane == 0) {
      if (bits != NULL) bits[i >> 5] = wb;
      if (valid != NULL) {
        valid[i >> 5] = wv;
        count += (unsigned long long)__popc(wv);
      }
      if (wx != 0 && first_bad == ~0ULL)
        first_bad = (unsigned long long)(i + (int64_t)(__ffs((int)wx) - 1));
    }
  }
  if (lane == 0) {
    if (count != 0) atomicAdd(&acc[0], count);
    if (first_bad != ~0ULL) atomicMin(&acc[1], first_bad);
  }
}

/* A result column under construction on a CUDA device. */
struct zb_cuda_out {
  zb_device dev;
  int64_t n;
  zb_buffer *data;     /* values; a bool result's are 32-bit words of bits */
  zb_buffer *validity; /* 32-bit words, or NULL: no nulls by construction */
  zb_buffer *scratch;  /* the launch counters (zb_rows_kernel's acc) */
  uint32_t *bits;      /* data as bit words when the result is bool, else NULL */
  uint32_t *valid;     /* validity words, or NULL */
  unsigned long long *acc;
  int64_t valid_rows; /* read back by zb__cuda_out_wait */
  int64_t first_bad;  /* likewise; -1 when no row was bad */
};

/* Allocate an n-row result of `type` on dev (values, validity when
 * with_validity, zeroed counters).  On failure nothing is left allocated. */
zb_status zb__cuda_out_begin(zb_device dev, zb_type_id type, int64_t n, bool with_validity,
                             zb_cuda_out *r, zb_error *err);

/* Wait for the kernels launched on r and read back its counters. */
zb_status zb__cuda_out_wait(zb_cuda_out *r, const char *what, zb_error *err);

/* Turn r (after zb__cuda_out_wait) into the new column *out of `type`,
 * taking the timestamp unit / timezone or the dictionary from `like` when it
 * has the same type (NULL: none), as zb__new_like does on the CPU.  A
 * validity bitmap without nulls is dropped.  r's buffers are given up in
 * every case. */
zb_status zb__cuda_out_finish(zb_cuda_out *r, zb_type_id type, const zb_column *like,
                              zb_column **out, zb_error *err);

/* Release whatever r still holds. */
void zb__cuda_out_release(zb_cuda_out *r);

/* Make r's device current and size the grid: before a launch. */
zb_status zb__cuda_out_prepare(const zb_cuda_out *r, unsigned *blocks, zb_error *err);

/* Run f on every row of r (nothing for zero rows) and check the launch.
 * The caller then waits with zb__cuda_out_wait. */
template <typename F>
zb_status zb_cuda_rows(const F &f, zb_cuda_out *r, const char *what, zb_error *err) {
  if (r->n == 0) return ZB_OK;
  unsigned blocks = 1;
  ZB_RETURN_NOT_OK(zb__cuda_out_prepare(r, &blocks, err));
  (void)cudaGetLastError(); /* so that the check below sees only this launch */
  zb_rows_kernel<F><<<blocks, ZB_EW_THREADS>>>(f, r->n, r->bits, r->valid, r->acc);
  return zb__cuda_check(cudaGetLastError(), what, r->dev.id, err);
}

/* Launch, wait and build the result: the tail every entry shares.  On
 * failure r is released and *out is NULL. */
template <typename F>
zb_status zb_cuda_rows_finish(const F &f, zb_cuda_out *r, const char *what, zb_type_id type,
                              const zb_column *like, zb_column **out, zb_error *err) {
  zb_status st = zb_cuda_rows(f, r, what, err);
  if (st == ZB_OK) st = zb__cuda_out_wait(r, what, err);
  if (st != ZB_OK) {
    zb__cuda_out_release(r);
    return st;
  }
  return zb__cuda_out_finish(r, type, like, out, err);
}

#endif /* ZAMBEZI_CUDA_ELEMENTWISE_CUH */
