/*
 * cumulative.cu -- pandas' cumsum / cumprod / cummin / cummax of a whole
 * column on a CUDA device (the CUDA side of ZB__OP_CUMULATIVE without
 * group ids; src/cpu/cumulative.c is the reference).
 *
 *   1. each row becomes an item (value, has a value, is missing, is its own
 *      row valid): the value converted to the accumulator type (int64 for
 *      signed integers, dates and timestamps, uint64 for unsigned ones,
 *      float / double for floats), a missing row (null, or NaN) holding
 *      none;
 *   2. a CUB inclusive scan of the items with one associative operator:
 *      the fold of the values present, "a missing row came before" as an
 *      or, and the right item's own validity;
 *   3. each row writes its running value in the result type and is valid
 *      when its own row is valid and (skipna, or no missing row came up to
 *      it): the elementwise row kernel stores values and the validity
 *      bitmap (zb_cuda_rows_finish).
 *
 * Integer sums and products wrap in 64 bits as on the CPU (done in
 * uint64, so overflow is defined); min and max of narrow integers in 64
 * bits give the same values.  Float sums and products associate in the
 * scan's order: equal to the CPU's within rounding.  The per-type choice is
 * one switch outside the kernels; the scan is instantiated per
 * (accumulator, op): 16 of them.
 */
#define CCCL_DISABLE_NVTX
#include <cub/device/device_scan.cuh>

#include <stdint.h>

#include "core/dtype_list.h"
#include "cuda/elementwise.cuh"

namespace {

template <typename A> struct zb_cum_item {
  A v;
  unsigned char have; /* a value was folded in */
  unsigned char miss; /* a missing row came up to here */
  unsigned char own;  /* this row itself is valid (the right item's) */
};

template <typename A, int OP> struct zb_cum_fold;
template <typename A> struct zb_cum_fold<A, ZB_CUM_SUM> {
  __device__ __forceinline__ static A f(A a, A b) { return a + b; }
};
template <> struct zb_cum_fold<int64_t, ZB_CUM_SUM> {
  __device__ __forceinline__ static int64_t f(int64_t a, int64_t b) {
    return (int64_t)((uint64_t)a + (uint64_t)b);
  }
};
template <typename A> struct zb_cum_fold<A, ZB_CUM_PROD> {
  __device__ __forceinline__ static A f(A a, A b) { return a * b; }
};
template <> struct zb_cum_fold<int64_t, ZB_CUM_PROD> {
  __device__ __forceinline__ static int64_t f(int64_t a, int64_t b) {
    return (int64_t)((uint64_t)a * (uint64_t)b);
  }
};
template <typename A> struct zb_cum_fold<A, ZB_CUM_MIN> {
  __device__ __forceinline__ static A f(A a, A b) { return b < a ? b : a; }
};
template <typename A> struct zb_cum_fold<A, ZB_CUM_MAX> {
  __device__ __forceinline__ static A f(A a, A b) { return b > a ? b : a; }
};

template <typename A, int OP> struct zb_cum_scan_op {
  __device__ __forceinline__ zb_cum_item<A> operator()(const zb_cum_item<A> &l,
                                                       const zb_cum_item<A> &r) const {
    zb_cum_item<A> o;
    o.v = l.have && r.have ? zb_cum_fold<A, OP>::f(l.v, r.v) : (l.have ? l.v : r.v);
    o.have = l.have | r.have;
    o.miss = l.miss | r.miss;
    o.own = r.own;
    return o;
  }
};

#define ZB_CUM_THREADS 256

/* Step 1: the items of the rows. */
template <typename A>
__global__ void __launch_bounds__(ZB_CUM_THREADS)
    zb_cum_items_kernel(zb_operand o, int64_t n, zb_cum_item<A> *__restrict__ items) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    bool ok = zb_dvalid(o, i);
    A v = ok ? zb_dload<A>(o, i) : (A)0;
    ok = ok && v == v; /* NaN is missing; always true for integers */
    zb_cum_item<A> it;
    it.v = ok ? v : (A)0;
    it.have = ok;
    it.miss = !ok;
    it.own = ok;
    items[i] = it;
  }
}

/* Step 3: row i of the result from its scanned item. */
template <typename A> struct zb_cum_write {
  const zb_cum_item<A> *items;
  void *data;
  int type; /* physical type of the result */
  bool skipna;
  __device__ zb_row operator()(int64_t i) const {
    const zb_cum_item<A> s = items[i];
    zb_row r;
    r.bit = false;
    r.bad = false;
    r.valid = s.own && (skipna || !s.miss);
    zb_dstore<A>(data, type, i, r.valid ? s.v : (A)0);
    return r;
  }
};

template <typename A, int OP>
zb_status zb_cum_run(const zb_column *col, bool skipna, zb_type_id result, zb_column **out,
                     zb_error *err) {
  const int dev = col->device.id;
  const int64_t n = col->length;
  zb_buffer *items = NULL, *temp = NULL;
  size_t need = 0, have = 0;
  zb_cuda_out r;
  memset(&r, 0, sizeof r);
  zb_status st = zb__cuda_set_device(dev, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, ZB_MAX(n, (int64_t)1) * sizeof(zb_cum_item<A>),
                                        &items, err);
  zb_cum_item<A> *it = st == ZB_OK ? (zb_cum_item<A> *)items->data : NULL;
  if (st == ZB_OK && n > 0) {
    const unsigned blocks = zb__cuda_blocks(dev, n, ZB_CUM_THREADS);
    zb_cum_items_kernel<A><<<blocks, ZB_CUM_THREADS>>>(zb__cuda_operand(col, false), n, it);
    st = zb__cuda_launched("cumulative (items)", dev, err);
    if (st == ZB_OK)
      st = zb__cuda_check(cub::DeviceScan::InclusiveScan(NULL, need, it, it,
                                                         zb_cum_scan_op<A, OP>(), n),
                          "cub::DeviceScan::InclusiveScan (size query)", dev, err);
    if (st == ZB_OK) st = zb__cuda_scratch(dev, need, &temp, &have, err);
    if (st == ZB_OK)
      st = zb__cuda_check(cub::DeviceScan::InclusiveScan(temp->data, have, it, it,
                                                         zb_cum_scan_op<A, OP>(), n),
                          "cub::DeviceScan::InclusiveScan", dev, err);
  }
  if (st == ZB_OK) st = zb__cuda_out_begin(col->device, result, n, true, &r, err);
  if (st == ZB_OK) {
    zb_cum_write<A> w;
    w.items = it;
    w.data = r.data->data;
    w.type = (int)zb__physical(result);
    w.skipna = skipna;
    /* waits for the device before the scratch and items are freed */
    st = zb_cuda_rows_finish(w, &r, "cumulative", result, col, out, err);
  }
  if (st != ZB_OK) (void)zb__cuda_wait("cumulative", dev, NULL);
  zb_buffer_release(items);
  zb_buffer_release(temp);
  return st;
}

template <typename A>
zb_status zb_cum_dispatch_op(const zb_column *col, zb_cum_op op, bool skipna, zb_type_id result,
                             zb_column **out, zb_error *err) {
  switch (op) {
    case ZB_CUM_SUM: return zb_cum_run<A, ZB_CUM_SUM>(col, skipna, result, out, err);
    case ZB_CUM_PROD: return zb_cum_run<A, ZB_CUM_PROD>(col, skipna, result, out, err);
    case ZB_CUM_MIN: return zb_cum_run<A, ZB_CUM_MIN>(col, skipna, result, out, err);
    default: return zb_cum_run<A, ZB_CUM_MAX>(col, skipna, result, out, err);
  }
}

} /* namespace */

extern "C" zb_status zb__cuda_cumulative(const zb_column *col, zb_cum_op op, bool skipna,
                                         zb_type_id result, zb_column **out, zb_error *err) {
  *out = NULL;
  switch (col->type) {
    case ZB_FLOAT32: return zb_cum_dispatch_op<float>(col, op, skipna, result, out, err);
    case ZB_FLOAT64: return zb_cum_dispatch_op<double>(col, op, skipna, result, out, err);
#define ZB_CUM_UNSIGNED(ID, T, NAME, U) case ID:
    ZB_FOR_EACH_UNSIGNED_TYPE(ZB_CUM_UNSIGNED)
#undef ZB_CUM_UNSIGNED
      return zb_cum_dispatch_op<uint64_t>(col, op, skipna, result, out, err);
    default: /* int8 .. int64, date32, timestamp: as the table admits */
      return zb_cum_dispatch_op<int64_t>(col, op, skipna, result, out, err);
  }
}
