/*
 * cumcount.cu -- each row's position within its group on a CUDA device (the
 * CUDA side of zb_backend.group_cumcount, behind groupby().cumcount(),
 * head, tail and nth; src/cpu/groupby.c is the reference).
 *
 *   1. one pass checks every valid id against [0, n_groups) (the first bad
 *      row is the CPU's error), counts each group's rows, writes each row's
 *      sort key (its id; n_groups for a null id) and the result's validity
 *      words (one ballot per 32 rows);
 *   2. an exclusive scan of the counts gives each group's first position;
 *   3. a stable radix sort of (key, row) on the key's bits lists each
 *      group's rows in row order, one group after another;
 *   4. sorted position i of group g holds the (i - start[g])-th row of g:
 *      that is its cumcount, or start[g + 1] - 1 - i counting from the end.
 * Null ids give null (0 underneath).  Counts and positions are 64-bit.
 */
#define CCCL_DISABLE_NVTX

#include <stdint.h>
#include <string.h>

#include "cuda/cuda_internal.h"

#define ZB_CC_THREADS 256

namespace {

__global__ void __launch_bounds__(ZB_CC_THREADS)
    zb_cc_count_kernel(const int64_t *__restrict__ ids, const uint8_t *__restrict__ valid,
                       int64_t off, int64_t n, int64_t n_groups,
                       unsigned long long *__restrict__ counts, uint64_t *__restrict__ keys,
                       int64_t *__restrict__ rows, uint32_t *__restrict__ valid_out,
                       unsigned long long *__restrict__ bad) {
  const int lane = threadIdx.x & 31;
  for (int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; w * 32 < n;
       w += (int64_t)gridDim.x * blockDim.x / 32) {
    const int64_t i = w * 32 + lane;
    bool ok = false, counted = false;
    int64_t g = 0;
    if (i < n) {
      ok = valid == NULL || zb__cuda_bit(valid, off + i);
      g = ids[off + i];
      uint64_t key = (uint64_t)n_groups;
      if (ok && (g < 0 || g >= n_groups)) {
        atomicMin(bad, (unsigned long long)i);
      } else if (ok) {
        counted = true;
        key = (uint64_t)g;
      }
      keys[i] = key;
      rows[i] = i;
    }
    /* Lanes with the same group add once: the lowest of them adds how many
     * they are (few groups, or sorted ids, would otherwise queue up to 32
     * atomics on one address). */
    const unsigned adders = __ballot_sync(0xffffffffu, counted);
    if (counted) {
      const unsigned peers = __match_any_sync(adders, (unsigned long long)g);
      if (lane == __ffs(peers) - 1) atomicAdd(&counts[g], (unsigned long long)__popc(peers));
    }
    const unsigned vb = __ballot_sync(0xffffffffu, ok);
    if (lane == 0 && valid_out != NULL) valid_out[w] = vb;
  }
}

__global__ void __launch_bounds__(ZB_CC_THREADS)
    zb_cc_write_kernel(const int64_t *__restrict__ ids, const uint8_t *__restrict__ valid,
                       int64_t off, int64_t n, const int64_t *__restrict__ sorted_rows,
                       const unsigned long long *__restrict__ starts, bool ascending,
                       int64_t *__restrict__ out) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t r = sorted_rows[i];
    if (valid != NULL && !zb__cuda_bit(valid, off + r)) {
      out[r] = 0;
      continue;
    }
    const int64_t g = ids[off + r];
    out[r] = ascending ? i - (int64_t)starts[g] : (int64_t)starts[g + 1] - 1 - i;
  }
}

} /* namespace */

extern "C" zb_status zb__cuda_group_cumcount(const zb_column *ids, int64_t n_groups,
                                             bool ascending, zb_column **out, zb_error *err) {
  *out = NULL;
  const int dev = ids->device.id;
  const int64_t n = ids->length, words = (n + 31) / 32;
  const bool nulls = ids->validity != NULL && ids->null_count > 0;
  const uint8_t *valid = nulls ? (const uint8_t *)ids->validity->data : NULL;
  const int64_t *idv = (const int64_t *)ids->data->data;
  ZB_RETURN_NOT_OK(zb__cuda_set_device(dev, err));
  zb_buffer *counts = NULL, *keys[2] = {NULL, NULL}, *rows[2] = {NULL, NULL}, *bad = NULL,
            *vout = NULL, *data = NULL, *temp = NULL;
  size_t temp_have = 0;
  unsigned long long first_bad = ~0ull;
  const unsigned blocks = zb__cuda_blocks(dev, n, ZB_CC_THREADS);
  zb_status st = zb__cuda_buffer(dev, (n_groups + 1) * 8, &counts, err);
  for (int k = 0; k < 2 && st == ZB_OK; k++) {
    st = zb__cuda_buffer(dev, n * 8, &keys[k], err);
    if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 8, &rows[k], err);
  }
  if (st == ZB_OK && nulls) st = zb__cuda_buffer(dev, words * 4, &vout, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 8, &data, err);
  if (st == ZB_OK) st = zb__cuda_upload(dev, &first_bad, 8, &bad, err);
  if (st == ZB_OK)
    st = zb__cuda_check(cudaMemsetAsync(counts->data, 0, (size_t)(n_groups + 1) * 8, 0),
                        "cudaMemsetAsync", dev, err);
  if (st == ZB_OK && n > 0) {
    zb_cc_count_kernel<<<blocks, ZB_CC_THREADS>>>(
        idv, valid, ids->offset, n, n_groups, (unsigned long long *)counts->data,
        (uint64_t *)keys[0]->data, (int64_t *)rows[0]->data,
        nulls ? (uint32_t *)vout->data : NULL, (unsigned long long *)bad->data);
    st = zb__cuda_launched("cumcount (counts)", dev, err);
  }
  if (st == ZB_OK) st = zb__cuda_read(dev, &first_bad, bad->data, 8, "cudaMemcpy", err);
  if (st == ZB_OK && first_bad != ~0ull) {
    int64_t g = 0;
    st = zb__cuda_read(dev, &g, idv + ids->offset + (int64_t)first_bad, 8, "cudaMemcpy", err);
    if (st == ZB_OK)
      st = zb_error_set(err, ZB_EINDEX, "cumcount: group id %lld at row %lld is outside [0, %lld)",
                        (long long)g, (long long)first_bad, (long long)n_groups);
  }
  if (st == ZB_OK)
    st = zb__cuda_exclusive_sum(dev, (int64_t *)counts->data, n_groups + 1, err);
  int cur = 0;
  if (st == ZB_OK && n > 1)
    st = zb__cuda_sort_pairs(dev, 8, keys, rows, &cur, n, 0,
                             zb__cuda_key_bits((uint64_t)n_groups), &temp, &temp_have, err);
  if (st == ZB_OK && n > 0) {
    zb_cc_write_kernel<<<blocks, ZB_CC_THREADS>>>(
        idv, valid, ids->offset, n, (const int64_t *)rows[cur]->data,
        (const unsigned long long *)counts->data, ascending, (int64_t *)data->data);
    st = zb__cuda_launched("cumcount (positions)", dev, err);
  }
  zb_status ws = zb__cuda_wait("cumcount", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  if (st == ZB_OK)
    st = zb_column_make(ZB_INT64, n, 0, vout, data, NULL, NULL, nulls ? ids->null_count : 0, out,
                        err);
  zb_buffer_release(counts);
  for (int k = 0; k < 2; k++) {
    zb_buffer_release(keys[k]);
    zb_buffer_release(rows[k]);
  }
  zb_buffer_release(bad);
  zb_buffer_release(vout);
  zb_buffer_release(data);
  zb_buffer_release(temp);
  return st;
}
