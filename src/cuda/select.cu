/*
 * select.cu -- filter by a bool mask and take by int64 positions for
 * columns in device memory (the CUDA side of zb_column_filter and
 * zb_column_take), plus the small launch / wait / scratch helpers that the
 * backend's selection and sorting files share (cuda_internal.h).
 *
 * Both operations are one gather: output row i is source row rows[i].
 * take gathers through the caller's indices, where a null index gives a
 * null row.  filter first turns the mask into those rows: each row's keep
 * flag (mask bit set and mask valid: a null mask entry drops the row, as
 * on the CPU) is written as 0/1 into an int64 array of n + 1 entries, an
 * in-place CUB exclusive scan makes it each kept row's output position
 * (entry n: the kept count), and a scatter writes the kept rows' numbers.
 *
 * The gather writes fixed-width values with one thread per row; bool values
 * and validity with one warp per 32 output rows (a ballot makes each 32-bit
 * output word, so no two threads share a word), counting the nulls as it
 * goes; strings as lengths, an in-place exclusive scan into the output
 * offsets, then the bytes in fixed-size chunks per thread (each finds its
 * row by binary search in the new offsets, so a few very long strings
 * spread over the whole device).  Semantics follow
 * src/cpu/select.c: the output has a validity bitmap when the source has
 * one (or, for take, the indices do) and it holds a null; a null row's
 * value is unspecified; string bytes of a kept null row are copied as they
 * are, a null index gives "".
 *
 * All work runs on the legacy default stream and is waited for before the
 * operation returns, so its scratch memory may be freed and its result is
 * complete for any stream.  Indices and sizes are 64-bit throughout.
 */
#define CCCL_DISABLE_NVTX
#include <cub/device/device_scan.cuh>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cuda/cuda_internal.h"

#define ZB_SEL_THREADS 256

/* ------------------------------------------------------------------------ */
/* Shared helpers (cuda_internal.h)                                         */
/* ------------------------------------------------------------------------ */

extern "C" unsigned zb__cuda_blocks(int device_id, int64_t items, int threads) {
  int64_t blocks = items / threads + (items % threads != 0);
  /* 8 blocks of 256 threads fill a multiprocessor; grid-stride loops do the rest */
  int64_t cap = (int64_t)zb__cuda_sm_count(device_id) * (2048 / threads);
  if (blocks > cap) blocks = cap;
  if (blocks < 1) blocks = 1;
  return (unsigned)blocks;
}

extern "C" zb_status zb__cuda_launched(const char *kernel, int device_id, zb_error *err) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess && zb_cancel_requested()) {
    /* Ctrl-C: stop between launches; the kernels already queued finish
     * first, so the caller's error path frees no buffer still in use */
    (void)cudaStreamSynchronize(0);
    return zb_error_set(err, ZB_ECANCEL, "interrupted (after the %s kernel)", kernel);
  }
  if (e == cudaSuccess) return ZB_OK;
  char call[128];
  snprintf(call, sizeof call, "launch of the %s kernel", kernel);
  return zb__cuda_check(e, call, device_id, err);
}

extern "C" zb_status zb__cuda_wait(const char *after, int device_id, zb_error *err) {
  cudaError_t e = cudaStreamSynchronize(0);
  if (e == cudaSuccess) return ZB_OK;
  char call[128];
  snprintf(call, sizeof call, "%s (waiting for the device)", after);
  return zb__cuda_check(e, call, device_id, err);
}

extern "C" zb_status zb__cuda_read(int device_id, void *dst, const void *src, int64_t size,
                                   const char *what, zb_error *err) {
  if (size <= 0) return ZB_OK;
  return zb__cuda_check(cudaMemcpy(dst, src, (size_t)size, cudaMemcpyDeviceToHost), what,
                        device_id, err);
}

extern "C" zb_status zb__cuda_buffer(int device_id, int64_t size, zb_buffer **out,
                                     zb_error *err) {
  zb_device where;
  where.kind = ZB_DEVICE_CUDA;
  where.id = device_id;
  return zb_buffer_new(where, size, out, err);
}

extern "C" zb_status zb__cuda_upload(int device_id, const void *src, int64_t size,
                                     zb_buffer **out, zb_error *err) {
  ZB_RETURN_NOT_OK(zb__cuda_buffer(device_id, size, out, err));
  if (size == 0) return ZB_OK;
  zb_status st = zb__cuda_check(
      cudaMemcpy((*out)->data, src, (size_t)size, cudaMemcpyHostToDevice),
      "cudaMemcpy (host to device)", device_id, err);
  if (st != ZB_OK) {
    zb_buffer_release(*out);
    *out = NULL;
  }
  return st;
}

extern "C" zb_status zb__cuda_scratch(int device_id, size_t need, zb_buffer **buf,
                                      size_t *have, zb_error *err) {
  if (*buf != NULL && need <= *have) return ZB_OK;
  zb_buffer_release(*buf);
  *buf = NULL;
  *have = 0;
  if (need > (size_t)INT64_MAX)
    return zb_error_set(err, ZB_ENOMEM, "CUB scratch of %llu bytes on cuda:%d is too large",
                        (unsigned long long)need, device_id);
  ZB_RETURN_NOT_OK(zb__cuda_buffer(device_id, (int64_t)need, buf, err));
  *have = need;
  return ZB_OK;
}

namespace {

/* ------------------------------------------------------------------------ */
/* Kernels                                                                  */
/* ------------------------------------------------------------------------ */

/* Grid-stride loop over i in [0, n). */
#define ZB_FOR_EACH(i, n)                                                       \
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);     \
       i += (int64_t)gridDim.x * blockDim.x)

/* Grid-stride loop of whole warps over w in [0, n); lane = threadIdx.x % 32. */
#define ZB_FOR_EACH_WARP(w, n)                                                  \
  for (int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < (n); \
       w += ((int64_t)gridDim.x * blockDim.x) >> 5)

/* Whether output row i gathers a row (its index is valid). */
__device__ __forceinline__ bool zb_row_ok(const uint8_t *rvalid, int64_t rvoff, int64_t i) {
  return rvalid == NULL || zb__cuda_bit(rvalid, rvoff + i);
}

/* filter: keep[i] = 1 where mask[i] is true and valid, else 0, for
 * i < n; keep[n] = 0 (the scan turns it into the kept count). */
__global__ void __launch_bounds__(ZB_SEL_THREADS)
    zb_keep_kernel(const uint8_t *__restrict__ mbits, const uint8_t *__restrict__ mvalid,
                   int64_t moff, int64_t n, int64_t *__restrict__ keep) {
  ZB_FOR_EACH(i, n + 1) {
    int64_t k = 0;
    if (i < n)
      k = zb__cuda_bit(mbits, moff + i) && (mvalid == NULL || zb__cuda_bit(mvalid, moff + i));
    keep[i] = k;
  }
}

/* filter: pos = exclusive scan of keep (n + 1 entries); rows[pos[i]] = i
 * for every kept i. */
__global__ void __launch_bounds__(ZB_SEL_THREADS)
    zb_kept_rows_kernel(const int64_t *__restrict__ pos, int64_t n, int64_t *__restrict__ rows) {
  ZB_FOR_EACH(i, n) {
    int64_t p = pos[i];
    if (pos[i + 1] != p) rows[p] = i;
  }
}

/* out[i] = src[rows[i]] for the m output rows (0 where the index is null).
 * src points at the column's first logical row. */
template <typename U>
__global__ void __launch_bounds__(ZB_SEL_THREADS)
    zb_gather_fixed_kernel(const int64_t *__restrict__ rows, const uint8_t *__restrict__ rvalid,
                           int64_t rvoff, int64_t m, const U *__restrict__ src,
                           U *__restrict__ out) {
  ZB_FOR_EACH(i, m) { out[i] = zb_row_ok(rvalid, rvoff, i) ? src[rows[i]] : (U)0; }
}

/* Output bitmaps of the gather, one 32-bit word per warp step: out_valid
 * (if not NULL) = index valid and source row valid; out_bits (if not NULL)
 * = the source row's bool value (0 for a null index).  Source bits are at
 * src_off + rows[i].  Adds the null rows to *nulls.  Needs blockDim.x a
 * multiple of 32 (every lane of a warp reaches the ballots). */
__global__ void __launch_bounds__(ZB_SEL_THREADS)
    zb_gather_bits_kernel(const int64_t *__restrict__ rows, const uint8_t *__restrict__ rvalid,
                          int64_t rvoff, int64_t m, const uint8_t *__restrict__ src_bits,
                          const uint8_t *__restrict__ src_valid, int64_t src_off,
                          uint32_t *__restrict__ out_bits, uint32_t *__restrict__ out_valid,
                          unsigned long long *__restrict__ nulls) {
  const int lane = (int)(threadIdx.x & 31);
  const int64_t words = (m + 31) / 32;
  unsigned long long my_nulls = 0;
  ZB_FOR_EACH_WARP(w, words) {
    int64_t i = w * 32 + lane;
    bool ok = i < m && zb_row_ok(rvalid, rvoff, i);
    int64_t r = ok ? rows[i] : 0;
    bool v = ok && (src_valid == NULL || zb__cuda_bit(src_valid, src_off + r));
    bool b = ok && src_bits != NULL && zb__cuda_bit(src_bits, src_off + r);
    unsigned vw = __ballot_sync(0xffffffffu, v);
    unsigned bw = __ballot_sync(0xffffffffu, b);
    if (lane == 0) {
      if (out_valid != NULL) out_valid[w] = vw;
      if (out_bits != NULL) out_bits[w] = bw;
      int64_t in_word = m - w * 32 < 32 ? m - w * 32 : 32;
      my_nulls += (unsigned long long)(in_word - __popc(vw));
    }
  }
  if (lane == 0 && my_nulls != 0) atomicAdd(nulls, my_nulls);
}

/* Strings, step 1: len[i] = length of source row rows[i] (0 for a null
 * index) for i < m, len[m] = 0.  offs points at the column's first
 * logical row's offset. */
__global__ void __launch_bounds__(ZB_SEL_THREADS)
    zb_gather_lengths_kernel(const int64_t *__restrict__ rows, const uint8_t *__restrict__ rvalid,
                             int64_t rvoff, int64_t m, const int64_t *__restrict__ offs,
                             int64_t *__restrict__ len) {
  ZB_FOR_EACH(i, m + 1) {
    int64_t l = 0;
    if (i < m && zb_row_ok(rvalid, rvoff, i)) {
      int64_t r = rows[i];
      l = offs[r + 1] - offs[r];
    }
    len[i] = l;
  }
}

/* Strings, step 3: the output bytes in chunks of ZB_CHUNK per thread.  A
 * chunk finds its first byte's row by binary search in out_offs (the
 * scanned lengths, m + 1 entries, out_offs[m] = total) and walks on, so
 * work is even however long the strings are.  A row holding a byte has a
 * length above 0, so its index is valid. */
#define ZB_CHUNK 16
__global__ void __launch_bounds__(ZB_SEL_THREADS)
    zb_gather_chars_kernel(const int64_t *__restrict__ rows, int64_t m,
                           const int64_t *__restrict__ offs, const char *__restrict__ chars,
                           const int64_t *__restrict__ out_offs, int64_t total,
                           char *__restrict__ out_chars) {
  const int64_t chunks = (total + ZB_CHUNK - 1) / ZB_CHUNK;
  ZB_FOR_EACH(c, chunks) {
    int64_t j = c * ZB_CHUNK;
    const int64_t end = total - j < ZB_CHUNK ? total : j + ZB_CHUNK;
    /* the last row i in [0, m) with out_offs[i] <= j: then j < out_offs[i + 1] */
    int64_t lo = 0, hi = m - 1;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo + 1) / 2;
      if (out_offs[mid] <= j)
        lo = mid;
      else
        hi = mid - 1;
    }
    int64_t i = lo, next = out_offs[i + 1];
    int64_t src = offs[rows[i]] - out_offs[i]; /* source byte of output byte 0 of row i */
    for (; j < end; j++) {
      if (next <= j) {
        /* past row i: skip to the row holding j (never one of length 0,
         * whose index may be null) */
        do {
          i++;
          next = out_offs[i + 1];
        } while (next <= j);
        src = offs[rows[i]] - out_offs[i];
      }
      out_chars[j] = chars[src + j];
    }
  }
}

/* ------------------------------------------------------------------------ */
/* Host side                                                                */
/* ------------------------------------------------------------------------ */

/* In-place exclusive prefix sum of data[0, n) (int64) on the device. */
zb_status zb_exclusive_sum(int dev, int64_t *data, int64_t n, zb_error *err) {
  if (n <= 0) return ZB_OK;
  size_t need = 0, have = 0;
  zb_buffer *temp = NULL;
  zb_status st = zb__cuda_check(cub::DeviceScan::ExclusiveSum(NULL, need, data, n),
                                "cub::DeviceScan::ExclusiveSum (size query)", dev, err);
  if (st == ZB_OK) st = zb__cuda_scratch(dev, need, &temp, &have, err);
  if (st == ZB_OK)
    st = zb__cuda_check(cub::DeviceScan::ExclusiveSum(temp->data, have, data, n),
                        "cub::DeviceScan::ExclusiveSum", dev, err);
  /* the scan must be done with its scratch before that is freed */
  if (st == ZB_OK) st = zb__cuda_wait("cub::DeviceScan::ExclusiveSum", dev, err);
  zb_buffer_release(temp);
  return st;
}

/* Launch one of the fixed-width gathers by value width. */
zb_status zb_gather_fixed(int dev, int width, const int64_t *rows, const uint8_t *rvalid,
                          int64_t rvoff, int64_t m, const void *src, void *out, zb_error *err) {
  unsigned blocks = zb__cuda_blocks(dev, m, ZB_SEL_THREADS);
  switch (width) {
  case 1:
    zb_gather_fixed_kernel<uint8_t><<<blocks, ZB_SEL_THREADS>>>(
        rows, rvalid, rvoff, m, (const uint8_t *)src, (uint8_t *)out);
    break;
  case 2:
    zb_gather_fixed_kernel<uint16_t><<<blocks, ZB_SEL_THREADS>>>(
        rows, rvalid, rvoff, m, (const uint16_t *)src, (uint16_t *)out);
    break;
  case 4:
    zb_gather_fixed_kernel<uint32_t><<<blocks, ZB_SEL_THREADS>>>(
        rows, rvalid, rvoff, m, (const uint32_t *)src, (uint32_t *)out);
    break;
  case 8:
    zb_gather_fixed_kernel<uint64_t><<<blocks, ZB_SEL_THREADS>>>(
        rows, rvalid, rvoff, m, (const uint64_t *)src, (uint64_t *)out);
    break;
  default:
    return zb_error_set(err, ZB_ETYPE, "gather on cuda:%d: no kernel for %d-byte values", dev,
                        width);
  }
  return zb__cuda_launched("gather (fixed width)", dev, err);
}

/* The string data of a gather: offsets (m + 1 entries) and bytes. */
zb_status zb_gather_strings(const zb_column *col, const int64_t *rows, const uint8_t *rvalid,
                            int64_t rvoff, int64_t m, zb_buffer **offsets, zb_buffer **chars,
                            zb_error *err) {
  const int dev = col->device.id;
  const int64_t *offs = (const int64_t *)col->data->data + col->offset;
  int64_t total = 0;
  zb_status st = zb__cuda_buffer(dev, (m + 1) * 8, offsets, err);
  if (st != ZB_OK) return st;
  int64_t *oo = (int64_t *)(*offsets)->data;
  zb_gather_lengths_kernel<<<zb__cuda_blocks(dev, m + 1, ZB_SEL_THREADS), ZB_SEL_THREADS>>>(
      rows, rvalid, rvoff, m, offs, oo);
  st = zb__cuda_launched("gather (string lengths)", dev, err);
  if (st == ZB_OK) st = zb_exclusive_sum(dev, oo, m + 1, err);
  if (st == ZB_OK)
    st = zb__cuda_read(dev, &total, oo + m, 8, "cudaMemcpy of the gathered string bytes", err);
  if (st == ZB_OK && total < 0)
    st = zb_error_set(err, ZB_EINVAL, "gather on cuda:%d: string offsets decrease", dev);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, total, chars, err);
  if (st == ZB_OK && total > 0 && m > 0) {
    zb_gather_chars_kernel<<<zb__cuda_blocks(dev, total / ZB_CHUNK + 1, ZB_SEL_THREADS),
                             ZB_SEL_THREADS>>>(rows, m, offs, (const char *)col->chars->data, oo,
                                               total, (char *)(*chars)->data);
    st = zb__cuda_launched("gather (string bytes)", dev, err);
  }
  return st;
}

/* Output row i = source row rows[i] of col, for m rows; rows[i] is not
 * read where rvalid (a bitmap at bit offset rvoff, or NULL) is clear, and
 * those rows are null.  rows are in [0, col->length) wherever valid.  New
 * column in *out. */
zb_status zb_gather(const zb_column *col, const int64_t *rows, const uint8_t *rvalid,
                    int64_t rvoff, int64_t m, zb_column **out, zb_error *err) {
  *out = NULL;
  const int dev = col->device.id;
  const int64_t words = (m + 31) / 32;
  const uint8_t *svalid = col->validity != NULL ? (const uint8_t *)col->validity->data : NULL;
  const bool want_valid = svalid != NULL || rvalid != NULL;
  const bool is_bool = col->type == ZB_BOOL;
  zb_buffer *data = NULL, *chars = NULL, *valid = NULL, *count = NULL;
  unsigned long long nulls = 0;

  zb_status st = zb__cuda_set_device(dev, err);
  if (st == ZB_OK && col->type == ZB_STRING) {
    st = zb_gather_strings(col, rows, rvalid, rvoff, m, &data, &chars, err);
  } else if (st == ZB_OK && !is_bool) {
    int w = zb_type_width(col->type);
    st = zb__cuda_buffer(dev, m * w, &data, err);
    if (st == ZB_OK && m > 0)
      st = zb_gather_fixed(dev, w, rows, rvalid, rvoff, m,
                           (const char *)col->data->data + col->offset * w, data->data, err);
  } else if (st == ZB_OK) {
    st = zb__cuda_buffer(dev, words * 4, &data, err);
  }
  if (st == ZB_OK && want_valid) st = zb__cuda_buffer(dev, words * 4, &valid, err);
  if (st == ZB_OK && m > 0 && (want_valid || is_bool)) {
    st = zb__cuda_buffer(dev, 8, &count, err);
    if (st == ZB_OK)
      st = zb__cuda_check(cudaMemsetAsync(count->data, 0, 8, 0), "cudaMemsetAsync", dev, err);
    if (st == ZB_OK) {
      zb_gather_bits_kernel<<<zb__cuda_blocks(dev, words * 32, ZB_SEL_THREADS),
                              ZB_SEL_THREADS>>>(
          rows, rvalid, rvoff, m, is_bool ? (const uint8_t *)col->data->data : NULL, svalid,
          col->offset, is_bool ? (uint32_t *)data->data : NULL,
          valid != NULL ? (uint32_t *)valid->data : NULL,
          (unsigned long long *)count->data);
      st = zb__cuda_launched("gather (bits)", dev, err);
    }
    if (st == ZB_OK && want_valid)
      st = zb__cuda_read(dev, &nulls, count->data, 8, "cudaMemcpy of the gathered null count",
                         err);
  }
  /* every kernel done (and its errors seen) before anything is freed */
  zb_status ws = zb__cuda_wait("gather", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  if (st == ZB_OK && !want_valid) nulls = 0;
  if (st == ZB_OK)
    st = zb_column_make(col->type, m, 0, nulls > 0 ? valid : NULL, data, chars,
                        col->type == ZB_CATEGORICAL ? col->dictionary : NULL, (int64_t)nulls,
                        out, err);
  if (st == ZB_OK && (col->type == ZB_TIMESTAMP || col->type == ZB_DURATION))
    st = zb_column_set_time(*out, col->unit, col->timezone, err);
  if (st != ZB_OK) {
    zb_column_release(*out);
    *out = NULL;
  }
  zb_buffer_release(data);
  zb_buffer_release(chars);
  zb_buffer_release(valid);
  zb_buffer_release(count);
  return st;
}

} /* namespace */

/* The scan above for other files (cuda_internal.h): one CUB instantiation. */
extern "C" zb_status zb__cuda_exclusive_sum(int device_id, int64_t *data, int64_t n,
                                            zb_error *err) {
  return zb_exclusive_sum(device_id, data, n, err);
}

/* ------------------------------------------------------------------------ */
/* Backend entries                                                          */
/* ------------------------------------------------------------------------ */

extern "C" zb_status zb__cuda_filter(const zb_column *col, const zb_column *mask,
                                     zb_column **out, zb_error *err) {
  *out = NULL;
  const int dev = col->device.id;
  const int64_t n = col->length;
  if (n == 0) return zb_gather(col, NULL, NULL, 0, 0, out, err);
  ZB_RETURN_NOT_OK(zb__cuda_set_device(dev, err));

  zb_buffer *pos = NULL, *rows = NULL;
  int64_t kept = 0;
  zb_status st = zb__cuda_buffer(dev, (n + 1) * 8, &pos, err);
  if (st == ZB_OK) {
    const uint8_t *mvalid =
        mask->validity != NULL ? (const uint8_t *)mask->validity->data : NULL;
    zb_keep_kernel<<<zb__cuda_blocks(dev, n + 1, ZB_SEL_THREADS), ZB_SEL_THREADS>>>(
        (const uint8_t *)mask->data->data, mvalid, mask->offset, n, (int64_t *)pos->data);
    st = zb__cuda_launched("filter (keep flags)", dev, err);
  }
  if (st == ZB_OK) st = zb_exclusive_sum(dev, (int64_t *)pos->data, n + 1, err);
  if (st == ZB_OK)
    st = zb__cuda_read(dev, &kept, (const int64_t *)pos->data + n, 8,
                       "cudaMemcpy of the filter's kept count", err);
  if (st == ZB_OK && (kept < 0 || kept > n))
    st = zb_error_set(err, ZB_EDEVICE, "filter on cuda:%d: kept %lld of %lld rows", dev,
                      (long long)kept, (long long)n);
  if (st == ZB_OK && kept == n) {
    /* every row kept: the column itself (columns are immutable) */
    zb_buffer_release(pos);
    *out = zb_column_retain((zb_column *)col);
    return ZB_OK;
  }
  if (st == ZB_OK) st = zb__cuda_buffer(dev, kept * 8, &rows, err);
  if (st == ZB_OK && kept > 0) {
    zb_kept_rows_kernel<<<zb__cuda_blocks(dev, n, ZB_SEL_THREADS), ZB_SEL_THREADS>>>(
        (const int64_t *)pos->data, n, (int64_t *)rows->data);
    st = zb__cuda_launched("filter (kept rows)", dev, err);
  }
  if (st == ZB_OK) st = zb_gather(col, (const int64_t *)rows->data, NULL, 0, kept, out, err);
  /* zb_gather waited for the device; on an earlier failure wait here */
  if (st != ZB_OK) (void)zb__cuda_wait("filter", dev, NULL);
  zb_buffer_release(pos);
  zb_buffer_release(rows);
  return st;
}

extern "C" zb_status zb__cuda_take(const zb_column *col, const zb_column *indices,
                                   zb_column **out, zb_error *err) {
  *out = NULL;
  const int64_t *rows = (const int64_t *)indices->data->data + indices->offset;
  const uint8_t *rvalid =
      indices->validity != NULL ? (const uint8_t *)indices->validity->data : NULL;
  return zb_gather(col, rows, rvalid, indices->offset, indices->length, out, err);
}
