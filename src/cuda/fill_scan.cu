/*
 * fill_scan.cu -- pandas' ffill / bfill on a CUDA device (the CUDA side of
 * ZB__OP_FILL_SCAN; src/cpu/fill_scan.c is the reference).
 *
 * The scan runs in "scan order": position j is row j forward, row n-1-j
 * backward, so both directions look for the nearest valid position at or
 * before j.
 *
 *   1. one pass writes key[j] = j where the row is valid (not null and, for
 *      floats, not NaN), else -1, and counts the missing rows (one ballot
 *      per warp); nothing missing: the column itself is the result;
 *   2. an in-place CUB inclusive max-scan of the keys gives each position
 *      the nearest valid position at or before it (-1: none); its last
 *      entry is the last valid position, the edge limit_area measures from;
 *   3. each row gets its take position: the scanned valid row when it is
 *      within limit and limit_area allows it, else itself (an unfilled row
 *      gathers itself and stays null or NaN);
 *   4. zb__cuda_take gathers those positions, for every type.
 *
 * Positions and counts are 64-bit; the work runs on the legacy default
 * stream and is waited for before scratch memory is freed.
 */
#define CCCL_DISABLE_NVTX
#include <cub/device/device_scan.cuh>

#include <stdint.h>

#include "cuda/cuda_internal.h"

#define ZB_FS_THREADS 256

namespace {

enum { kBits = 0, kF32 = 1, kF64 = 2 };

struct zb_fs_max {
  __device__ __forceinline__ int64_t operator()(int64_t a, int64_t b) const {
    return a > b ? a : b;
  }
};

/* Row i of the column (data and validity read at off + i) is valid. */
template <int KIND>
__device__ __forceinline__ bool zb_fs_valid(const void *data, const uint8_t *valid, int64_t off,
                                            int64_t i) {
  bool ok = valid == NULL || zb__cuda_bit(valid, off + i);
  if (KIND == kF32) {
    const float v = ((const float *)data)[off + i];
    ok = ok && v == v;
  } else if (KIND == kF64) {
    const double v = ((const double *)data)[off + i];
    ok = ok && v == v;
  }
  return ok;
}

/* Step 1: keys in scan order and the count of missing rows. */
template <int KIND>
__global__ void __launch_bounds__(ZB_FS_THREADS)
    zb_fs_keys_kernel(const void *__restrict__ data, const uint8_t *__restrict__ valid,
                      int64_t off, int64_t n, bool backward, int64_t *__restrict__ keys,
                      unsigned long long *__restrict__ missing) {
  const int lane = threadIdx.x & 31;
  for (int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; w * 32 < n;
       w += (int64_t)gridDim.x * blockDim.x / 32) {
    const int64_t j = w * 32 + lane;
    bool miss = false;
    if (j < n) {
      const int64_t i = backward ? n - 1 - j : j;
      const bool ok = zb_fs_valid<KIND>(data, valid, off, i);
      keys[j] = ok ? j : -1;
      miss = !ok;
    }
    const unsigned b = __ballot_sync(0xffffffffu, miss);
    if (lane == 0 && b != 0) atomicAdd(missing, (unsigned long long)__popc(b));
  }
}

/* Step 3: each row's take position from the scanned keys. */
__global__ void __launch_bounds__(ZB_FS_THREADS)
    zb_fs_positions_kernel(const int64_t *__restrict__ scanned, int64_t n, bool backward,
                           int64_t limit, zb_fill_area area, int64_t *__restrict__ pos) {
  const int64_t edge = scanned[n - 1]; /* the last valid position in scan order */
  for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < n;
       j += (int64_t)gridDim.x * blockDim.x) {
    const int64_t s = scanned[j];
    const int64_t i = backward ? n - 1 - j : j;
    bool fill = s >= 0 && j - s <= limit;
    if (area == ZB_FILL_INSIDE) fill = fill && j < edge;
    if (area == ZB_FILL_OUTSIDE) fill = fill && j > edge;
    pos[i] = fill ? (backward ? n - 1 - s : s) : i;
  }
}

} /* namespace */

extern "C" zb_status zb__cuda_fill_scan(const zb_column *col, bool backward, int64_t limit,
                                        zb_fill_area area, zb_column **out, zb_error *err) {
  *out = NULL;
  const int dev = col->device.id;
  const int64_t n = col->length;
  const int kind = col->type == ZB_FLOAT32 ? kF32 : col->type == ZB_FLOAT64 ? kF64 : kBits;
  const bool nulls = col->validity != NULL && col->null_count > 0;
  if (n == 0 || limit == 0 || (!nulls && kind == kBits)) {
    *out = zb_column_retain((zb_column *)col);
    return ZB_OK;
  }
  ZB_RETURN_NOT_OK(zb__cuda_set_device(dev, err));
  const uint8_t *valid = nulls ? (const uint8_t *)col->validity->data : NULL;
  const void *data = col->data->data;
  zb_buffer *keys = NULL, *pos = NULL, *count = NULL, *temp = NULL;
  zb_column *idx = NULL;
  size_t temp_have = 0, need = 0;
  unsigned long long missing = 0;
  const unsigned blocks = zb__cuda_blocks(dev, n, ZB_FS_THREADS);
  zb_status st = zb__cuda_buffer(dev, n * 8, &keys, err);
  if (st == ZB_OK) st = zb__cuda_upload(dev, &missing, 8, &count, err);
  if (st == ZB_OK) {
    int64_t *k = (int64_t *)keys->data;
    unsigned long long *m = (unsigned long long *)count->data;
    if (kind == kF32)
      zb_fs_keys_kernel<kF32><<<blocks, ZB_FS_THREADS>>>(data, valid, col->offset, n, backward,
                                                          k, m);
    else if (kind == kF64)
      zb_fs_keys_kernel<kF64><<<blocks, ZB_FS_THREADS>>>(data, valid, col->offset, n, backward,
                                                          k, m);
    else
      zb_fs_keys_kernel<kBits><<<blocks, ZB_FS_THREADS>>>(data, valid, col->offset, n,
                                                           backward, k, m);
    st = zb__cuda_launched("fill (valid keys)", dev, err);
  }
  if (st == ZB_OK) st = zb__cuda_read(dev, &missing, count->data, 8, "cudaMemcpy", err);
  if (st == ZB_OK && missing == 0) { /* nothing to fill: the column itself */
    zb_buffer_release(keys);
    zb_buffer_release(count);
    *out = zb_column_retain((zb_column *)col);
    return ZB_OK;
  }
  int64_t *k = st == ZB_OK ? (int64_t *)keys->data : NULL;
  if (st == ZB_OK)
    st = zb__cuda_check(cub::DeviceScan::InclusiveScan(NULL, need, k, k, zb_fs_max(), n),
                        "cub::DeviceScan::InclusiveScan (size query)", dev, err);
  if (st == ZB_OK) st = zb__cuda_scratch(dev, need, &temp, &temp_have, err);
  if (st == ZB_OK)
    st = zb__cuda_check(
        cub::DeviceScan::InclusiveScan(temp->data, temp_have, k, k, zb_fs_max(), n),
        "cub::DeviceScan::InclusiveScan", dev, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 8, &pos, err);
  if (st == ZB_OK) {
    zb_fs_positions_kernel<<<blocks, ZB_FS_THREADS>>>(k, n, backward, limit, area,
                                                      (int64_t *)pos->data);
    st = zb__cuda_launched("fill (positions)", dev, err);
  }
  /* the scan is done with its scratch, and the positions are written */
  zb_status ws = zb__cuda_wait("fill", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  if (st == ZB_OK) st = zb_column_make(ZB_INT64, n, 0, NULL, pos, NULL, NULL, 0, &idx, err);
  if (st == ZB_OK) st = zb__cuda_take(col, idx, out, err);
  zb_column_release(idx);
  zb_buffer_release(keys);
  zb_buffer_release(pos);
  zb_buffer_release(count);
  zb_buffer_release(temp);
  return st;
}
