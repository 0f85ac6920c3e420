/*
 * sort.cu -- the sort permutation of a table's rows by key columns in device
 * memory (the CUDA side of zb_table_sort_indices), with CUB's stable LSD
 * radix sort of (key, row) pairs.
 *
 * The permutation starts as 0, 1, ..., n - 1 and is sorted stably once per
 * key column, from the last key to the first, exactly as src/cpu/sort.c
 * does, so rows equal on every key keep their order.  One key column's
 * pass:
 *   1. a kernel writes each row's order-preserving unsigned key, read
 *      through the current permutation, in the key's own width (1, 2, 4 or
 *      8 bytes): signed integers flip the sign bit; floats make -0.0 into
 *      0.0, then flip all bits when negative, else the sign bit; bools are
 *      0/1; categoricals are their code (category order, as the CPU
 *      sorts them); descending inverts
 *      the key, so ties keep row order both ways.  Missing rows (null, or
 *      NaN) get key 0.  The same kernel folds the OR and the AND of all keys
 *      and counts the missing rows;
 *   2. CUB sorts the pairs on the bits where keys differ (OR ^ AND; the
 *      other bits are equal in every key, so leaving them out changes no
 *      order), or not at all when every key is equal;
 *   3. when some but not all rows are missing, a second kernel writes a
 *      one-bit key per row (0 for the rows that go first) and CUB sorts on
 *      it: the stable partition that puts missing rows first or last, each
 *      group in the order of step 2.
 * A (key, row) pair sort moves the permutation between two buffers; the
 * result column is whichever holds it last.  Template instantiations are
 * per key width only (4 CUB sorts, the 1-bit pass sharing the 1-byte one);
 * the column's type is a runtime switch uniform across the grid.  Counts
 * are 64-bit (CUB's 64-bit offsets).
 *
 * A string key's pass (zb__cuda_sort_by_strings) compares bytes only where
 * it must: each row's first 8 bytes, big-endian and zero padded (inverted
 * for descending; a missing row 0 or ~0), are radix-sorted with the row on
 * the bits that vary -- a prefix orders as the bytes do, ties aside.  Runs
 * of equal prefixes are numbered (a boundary flag, a scan); when there are
 * ties, CUB's stable merge sort orders the positions by (run, bytes), so a
 * comparison across runs is one integer compare and bytes are read only
 * within a tied run (unsigned, byte by byte; a prefix sorts first, as on
 * the CPU; missing rows first or last).  No ties: no merge sort.  Scratch:
 * four n-row 8-byte buffers besides CUB's.
 */
#define CCCL_DISABLE_NVTX
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/dtype_list.h"
#include "core/str_row.h"
#include "cuda/cuda_internal.h"

#define ZB_SORT_THREADS 256

namespace {

/* How a key column's values become unsigned keys. */
enum { ZB_KEY_BOOL, ZB_KEY_UNSIGNED, ZB_KEY_SIGNED, ZB_KEY_FLOAT };

/* A key column as the kernels read it: physical row off + r. */
struct zb_skey {
  const void *data;
  const uint8_t *valid; /* NULL: no nulls */
  int64_t off;
  int kind;
};

/* The bits of +infinity (floats: a larger magnitude is NaN); unused for the
 * widths that hold no float. */
template <typename UK> __device__ __forceinline__ UK zb_inf_bits() { return 0; }
template <> __device__ __forceinline__ uint32_t zb_inf_bits<uint32_t>() { return 0x7f800000u; }
template <> __device__ __forceinline__ uint64_t zb_inf_bits<uint64_t>() {
  return 0x7ff0000000000000ull;
}

/* The key of row r in *key (ascending); true when the row is missing
 * (null, or NaN), and then *key is untouched. */
template <typename UK>
__device__ __forceinline__ bool zb_row_key(const zb_skey &c, int64_t r, UK *key) {
  const int64_t pos = c.off + r;
  if (c.valid != NULL && !zb__cuda_bit(c.valid, pos)) return true;
  const UK top = (UK)((UK)1 << (8 * sizeof(UK) - 1));
  switch (c.kind) {
  case ZB_KEY_BOOL:
    *key = (UK)zb__cuda_bit((const uint8_t *)c.data, pos);
    return false;
  case ZB_KEY_UNSIGNED:
    *key = ((const UK *)c.data)[pos];
    return false;
  case ZB_KEY_SIGNED:
    *key = (UK)(((const UK *)c.data)[pos] ^ top);
    return false;
  default: { /* ZB_KEY_FLOAT: UK is uint32_t (float) or uint64_t (double) */
    UK b = ((const UK *)c.data)[pos];
    UK mag = (UK)(b & (UK)~top);
    if (mag > zb_inf_bits<UK>()) return true; /* NaN */
    if (mag == 0) b = 0;                     /* -0.0 ties with 0.0 */
    *key = (b & top) ? (UK)~b : (UK)(b | top);
    return false;
  }
  }
}

__global__ void __launch_bounds__(ZB_SORT_THREADS) zb_iota_kernel(int64_t *perm, int64_t n) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    perm[i] = i;
}

/* keys[i] = key of row perm[i] ^ flip (0 when missing); acc[0] |= every
 * key, acc[1] &= every key, acc[2] += missing rows. */
template <typename UK>
__global__ void __launch_bounds__(ZB_SORT_THREADS)
    zb_sort_keys_kernel(zb_skey c, const int64_t *__restrict__ perm, int64_t n, UK flip,
                        UK *__restrict__ keys, unsigned long long *__restrict__ acc) {
  unsigned long long o = 0, a = ~0ull, miss = 0;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    UK k = 0;
    bool m = zb_row_key<UK>(c, perm[i], &k);
    k = m ? (UK)0 : (UK)(k ^ flip);
    keys[i] = k;
    o |= k;
    a &= k;
    miss += m;
  }
  zb__cuda_warp_key_bits(o, a, miss, acc);
}

/* acc[0] |= every key of keys[0, n), acc[1] &= every key. */
__global__ void __launch_bounds__(ZB_SORT_THREADS)
    zb_key_range_kernel(const uint64_t *__restrict__ keys, int64_t n,
                        unsigned long long *__restrict__ acc) {
  unsigned long long o = 0, a = ~0ull;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const unsigned long long k = keys[i];
    o |= k;
    a &= k;
  }
  zb__cuda_warp_key_bits(o, a, 0ull, acc);
}

/* flags[i] = miss_flag where row perm[i] is missing, else 1 - miss_flag. */
template <typename UK>
__global__ void __launch_bounds__(ZB_SORT_THREADS)
    zb_sort_flags_kernel(zb_skey c, const int64_t *__restrict__ perm, int64_t n,
                         uint8_t miss_flag, uint8_t *__restrict__ flags) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    UK k = 0;
    flags[i] = zb_row_key<UK>(c, perm[i], &k) ? miss_flag : (uint8_t)(1u - miss_flag);
  }
}

/* The state of one sort: the permutation's two buffers (cur holds it),
 * two key buffers of n 8-byte keys, the accumulators, CUB scratch. */
struct zb_sorter {
  int dev;
  int64_t n;
  zb_buffer *perm[2];
  int cur;
  zb_buffer *keys[2];
  zb_buffer *acc;
  zb_buffer *temp;
  size_t temp_have;
};

/* Sort the permutation stably by keys[0] (type K) on bits [begin, end). */
template <typename K> zb_status zb_radix_pass(zb_sorter *s, int begin, int end, zb_error *err) {
  cub::DoubleBuffer<K> k((K *)s->keys[0]->data, (K *)s->keys[1]->data);
  int64_t *p0 = (int64_t *)s->perm[s->cur]->data, *p1 = (int64_t *)s->perm[1 - s->cur]->data;
  cub::DoubleBuffer<int64_t> v(p0, p1);
  size_t need = 0;
  ZB_RETURN_NOT_OK(zb__cuda_check(
      cub::DeviceRadixSort::SortPairs(NULL, need, k, v, s->n, begin, end),
      "cub::DeviceRadixSort::SortPairs (size query)", s->dev, err));
  ZB_RETURN_NOT_OK(zb__cuda_scratch(s->dev, need, &s->temp, &s->temp_have, err));
  ZB_RETURN_NOT_OK(zb__cuda_check(
      cub::DeviceRadixSort::SortPairs(s->temp->data, s->temp_have, k, v, s->n, begin, end),
      "cub::DeviceRadixSort::SortPairs", s->dev, err));
  if (v.Current() != p0) s->cur = 1 - s->cur;
  return ZB_OK;
}

/* One key column's pass (steps 1-3 of the file comment); UK is its key
 * width. */
template <typename UK>
zb_status zb_sort_pass(zb_sorter *s, const zb_skey &c, bool asc, bool nulls_first,
                       zb_error *err) {
  const int dev = s->dev;
  const int64_t n = s->n;
  const unsigned blocks = zb__cuda_blocks(dev, n, ZB_SORT_THREADS);
  unsigned long long acc[3] = {0ull, ~0ull, 0ull};
  ZB_RETURN_NOT_OK(zb__cuda_check(
      cudaMemcpy(s->acc->data, acc, sizeof acc, cudaMemcpyHostToDevice),
      "cudaMemcpy (host to device) of the sort accumulators", dev, err));
  const UK flip = asc ? (UK)0 : (UK)~(UK)0;
  zb_sort_keys_kernel<UK><<<blocks, ZB_SORT_THREADS>>>(
      c, (const int64_t *)s->perm[s->cur]->data, n, flip, (UK *)s->keys[0]->data,
      (unsigned long long *)s->acc->data);
  ZB_RETURN_NOT_OK(zb__cuda_launched("sort keys", dev, err));
  ZB_RETURN_NOT_OK(
      zb__cuda_read(dev, acc, s->acc->data, sizeof acc, "cudaMemcpy of the sort keys' range",
                    err));

  const unsigned long long width_mask = (unsigned long long)(UK)~(UK)0;
  const unsigned long long diff = (acc[0] ^ acc[1]) & width_mask;
  if (diff != 0) {
    int begin = __builtin_ctzll(diff), end = 64 - __builtin_clzll(diff);
    ZB_RETURN_NOT_OK(zb_radix_pass<UK>(s, begin, end, err));
  }

  const unsigned long long missing = acc[2];
  if (missing > 0 && missing < (unsigned long long)n) {
    zb_sort_flags_kernel<UK><<<blocks, ZB_SORT_THREADS>>>(
        c, (const int64_t *)s->perm[s->cur]->data, n, (uint8_t)(nulls_first ? 0 : 1),
        (uint8_t *)s->keys[0]->data);
    ZB_RETURN_NOT_OK(zb__cuda_launched("sort null flags", dev, err));
    ZB_RETURN_NOT_OK(zb_radix_pass<uint8_t>(s, 0, 1, err));
  }
  return ZB_OK;
}

/* Row order by a string key (one or two sources, zb_str_sides): missing
 * rows first or last, the others by their bytes, ascending or descending;
 * equal rows compare equal (the merge sort is stable, so they keep their
 * order). */
struct zb_string_less {
  zb_str_sides s;
  bool asc, nulls_first;

  __device__ __forceinline__ bool missing(int side, int64_t r) const {
    return s.valid[side] != NULL && !zb__cuda_bit(s.valid[side], s.off[side] + r);
  }

  __device__ __forceinline__ bool operator()(int64_t a, int64_t b) const {
    const int sa = a >= s.n_a ? 1 : 0, sb = b >= s.n_a ? 1 : 0;
    if (sa) a -= s.n_a;
    if (sb) b -= s.n_a;
    const bool ma = missing(sa, a), mb = missing(sb, b);
    if (ma || mb) return ma != mb && (ma ? nulls_first : !nulls_first);
    const int64_t *oa = s.offs[sa], *ob = s.offs[sb];
    const int o = zb__bytes_order(s.chars[sa] + oa[a], oa[a + 1] - oa[a], s.chars[sb] + ob[b],
                                  ob[b + 1] - ob[b]);
    return asc ? o == 0 : o == 2;
  }
};

/* A string row's 8-byte sort key: its first 8 bytes, big-endian, zero
 * padded (a prefix sorts no later than the strings it starts, so keys order
 * as the bytes do, ties aside), inverted for descending; a missing row 0 or
 * ~0 for first or last (its ties are settled by the full comparison). */
__device__ __forceinline__ unsigned long long zb_str_prefix_key(const zb_string_less &l,
                                                                int64_t r) {
  const int side = r >= l.s.n_a ? 1 : 0;
  if (side) r -= l.s.n_a;
  if (l.missing(side, r)) return l.nulls_first ? 0ull : ~0ull;
  const int64_t *o = l.s.offs[side];
  const int64_t b = o[r], len = o[r + 1] - b;
  unsigned long long k = 0;
  for (int t = 0; t < 8; t++)
    k = (k << 8) | (t < len ? (unsigned long long)l.s.chars[side][b + t] : 0ull);
  return l.asc ? k : ~k;
}

/* keys[i] = the prefix key of row rows[i], vals[i] = rows[i]. */
__global__ void __launch_bounds__(ZB_SORT_THREADS)
    zb_str_prefix_kernel(zb_string_less l, const int64_t *__restrict__ rows, int64_t n,
                         unsigned long long *__restrict__ keys, int64_t *__restrict__ vals) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t r = rows[i];
    keys[i] = zb_str_prefix_key(l, r);
    vals[i] = r;
  }
}

/* bound[i] = 1 where the prefix key of rows[i + 1] differs from that of
 * rows[i] (rows sorted by prefix key), else 0; pos[i] = i. */
__global__ void __launch_bounds__(ZB_SORT_THREADS)
    zb_str_bounds_kernel(zb_string_less l, const int64_t *__restrict__ rows, int64_t n,
                         int64_t *__restrict__ bound, int64_t *__restrict__ pos) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    bound[i] =
        i + 1 < n && zb_str_prefix_key(l, rows[i + 1]) != zb_str_prefix_key(l, rows[i]) ? 1 : 0;
    pos[i] = i;
  }
}

/* Order of positions of the prefix-sorted rows: by run of equal prefix
 * keys (run[]), then, within a run, by the full bytes. */
struct zb_run_string_less {
  zb_string_less less;
  const int64_t *run, *rows;
  __device__ __forceinline__ bool operator()(int64_t a, int64_t b) const {
    const int64_t ra = run[a], rb = run[b];
    if (ra != rb) return ra < rb;
    return less(rows[a], rows[b]);
  }
};

/* out[j] = rows[pos[j]]. */
__global__ void __launch_bounds__(ZB_SORT_THREADS)
    zb_gather_rows_kernel(const int64_t *__restrict__ rows, const int64_t *__restrict__ pos,
                          int64_t n, int64_t *__restrict__ out) {
  for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < n;
       j += (int64_t)gridDim.x * blockDim.x)
    out[j] = rows[pos[j]];
}

/* Sort s's permutation stably by the string column col. */
zb_status zb_sort_strings(zb_sorter *s, const zb_column *col, bool asc, bool nulls_first,
                          zb_error *err) {
  zb_str_sides sides;
  memset(&sides, 0, sizeof sides);
  sides.offs[0] = (const int64_t *)col->data->data + col->offset;
  sides.chars[0] = col->chars != NULL ? (const unsigned char *)col->chars->data : NULL;
  sides.valid[0] = col->validity != NULL ? (const uint8_t *)col->validity->data : NULL;
  sides.off[0] = col->offset;
  sides.n_a = INT64_MAX;
  return zb__cuda_sort_by_strings(s->dev, (int64_t *)s->perm[s->cur]->data, s->n, &sides, asc,
                                  nulls_first, &s->temp, &s->temp_have, err);
}

/* Key kind and width of a column type; false for types sorted elsewhere. */
bool zb_key_shape(zb_type_id t, int *kind, int *width) {
  switch (t) {
  case ZB_BOOL: *kind = ZB_KEY_BOOL; *width = 1; return true;
#define ZB_SHAPE(ID, T, KIND) case ID: *kind = KIND; *width = (int)sizeof(T); return true;
#define ZB_SHAPE_S(ID, T, NAME, U) ZB_SHAPE(ID, T, ZB_KEY_SIGNED)
#define ZB_SHAPE_U(ID, T, NAME, U) ZB_SHAPE(ID, T, ZB_KEY_UNSIGNED)
#define ZB_SHAPE_F(ID, T, NAME, U) ZB_SHAPE(ID, T, ZB_KEY_FLOAT)
  ZB_FOR_EACH_SIGNED_TYPE(ZB_SHAPE_S)
  ZB_FOR_EACH_TEMPORAL_TYPE(ZB_SHAPE_S)
  ZB_FOR_EACH_UNSIGNED_TYPE(ZB_SHAPE_U)
  ZB_FOR_EACH_FLOAT_TYPE(ZB_SHAPE_F)
#undef ZB_SHAPE_S
#undef ZB_SHAPE_U
#undef ZB_SHAPE_F
#undef ZB_SHAPE
  /* a valid row's code is >= 0: unsigned order is code order */
  case ZB_CATEGORICAL: *kind = ZB_KEY_UNSIGNED; *width = 4; return true;
  default: return false;
  }
}

/* Sort s's permutation stably by column col. */
zb_status zb_sort_by_column(zb_sorter *s, const zb_column *col, bool asc, bool nulls_first,
                            zb_error *err) {
  int kind = 0, width = 0;
  if (col->type == ZB_STRING) {
    zb_status st = zb_sort_strings(s, col, asc, nulls_first, err);
    zb_status ws = zb__cuda_wait("sort (strings)", s->dev, st == ZB_OK ? err : NULL);
    return st == ZB_OK ? ws : st;
  }
  if (!zb_key_shape(col->type, &kind, &width))
    return zb_error_set(err, ZB_ETYPE, "sort on cuda:%d: no GPU sort for %s keys", s->dev,
                        zb_type_name(col->type));
  zb_skey c;
  c.data = col->data->data;
  c.valid = col->validity != NULL ? (const uint8_t *)col->validity->data : NULL;
  c.off = col->offset;
  c.kind = kind;
  zb_status st;
  switch (width) {
  case 1: st = zb_sort_pass<uint8_t>(s, c, asc, nulls_first, err); break;
  case 2: st = zb_sort_pass<uint16_t>(s, c, asc, nulls_first, err); break;
  case 4: st = zb_sort_pass<uint32_t>(s, c, asc, nulls_first, err); break;
  default: st = zb_sort_pass<uint64_t>(s, c, asc, nulls_first, err); break;
  }
  /* a kernel's asynchronous failure is reported by this key's pass */
  zb_status ws = zb__cuda_wait("sort", s->dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  return st;
}

} /* namespace */

/* The radix pass above for other files (cuda_internal.h), so that the CUB
 * sort is instantiated once: a zb_sorter over the caller's buffers. */
extern "C" zb_status zb__cuda_sort_pairs(int device_id, int key_width, zb_buffer *const keys[2],
                                         zb_buffer *const vals[2], int *cur, int64_t n,
                                         int begin_bit, int end_bit, zb_buffer **temp,
                                         size_t *temp_have, zb_error *err) {
  if (key_width != 1 && key_width != 8)
    return zb_error_set(err, ZB_EINVAL, "sort on cuda:%d: no %d-byte pair sort", device_id,
                        key_width);
  if (n < 2 || begin_bit >= end_bit) return ZB_OK;
  zb_sorter s;
  memset(&s, 0, sizeof s);
  s.dev = device_id;
  s.n = n;
  s.perm[0] = vals[0];
  s.perm[1] = vals[1];
  s.cur = *cur;
  s.keys[0] = keys[0];
  s.keys[1] = keys[1];
  s.temp = *temp;
  s.temp_have = *temp_have;
  zb_status st = key_width == 1 ? zb_radix_pass<uint8_t>(&s, begin_bit, end_bit, err)
                                : zb_radix_pass<uint64_t>(&s, begin_bit, end_bit, err);
  *cur = s.cur;
  *temp = s.temp;
  *temp_have = s.temp_have;
  return st;
}

extern "C" zb_status zb__cuda_key_varying_bits(int device_id, const uint64_t *keys, int64_t n,
                                               int *begin_bit, int *end_bit, zb_error *err) {
  *begin_bit = 0;
  *end_bit = 0;
  if (n < 2) return ZB_OK;
  unsigned long long h[3] = {0ull, ~0ull, 0ull};
  zb_buffer *acc = NULL;
  ZB_RETURN_NOT_OK(zb__cuda_upload(device_id, h, sizeof h, &acc, err));
  zb_key_range_kernel<<<zb__cuda_blocks(device_id, n, ZB_SORT_THREADS), ZB_SORT_THREADS>>>(
      keys, n, (unsigned long long *)acc->data);
  zb_status st = zb__cuda_launched("key bits", device_id, err);
  if (st == ZB_OK)
    st = zb__cuda_read(device_id, h, acc->data, sizeof h, "cudaMemcpy of the keys' varying bits",
                       err);
  zb_buffer_release(acc);
  const unsigned long long diff = h[0] ^ h[1];
  if (st == ZB_OK && diff != 0) {
    *begin_bit = __builtin_ctzll(diff);
    *end_bit = 64 - __builtin_clzll(diff);
  }
  return st;
}

extern "C" zb_status zb__cuda_sort_by_strings(int device_id, int64_t *rows, int64_t n,
                                              const zb_str_sides *sides, bool ascending,
                                              bool nulls_first, zb_buffer **temp,
                                              size_t *temp_have, zb_error *err) {
  if (n < 2) return ZB_OK;
  zb_string_less less;
  less.s = *sides;
  less.asc = ascending;
  less.nulls_first = nulls_first;
  const int dev = device_id;
  const unsigned blocks = zb__cuda_blocks(dev, n, ZB_SORT_THREADS);
  zb_buffer *keys[2] = {NULL, NULL}, *vals[2] = {NULL, NULL};
  int cur = 0, begin_bit = 0, end_bit = 0;
  zb_status st = ZB_OK;
  for (int k = 0; k < 2 && st == ZB_OK; k++) {
    st = zb__cuda_buffer(dev, n * 8, &keys[k], err);
    if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 8, &vals[k], err);
  }
  /* 1. radix sort (prefix key, row) on the prefix bits that vary */
  if (st == ZB_OK) {
    zb_str_prefix_kernel<<<blocks, ZB_SORT_THREADS>>>(less, rows, n,
                                                     (unsigned long long *)keys[0]->data,
                                                     (int64_t *)vals[0]->data);
    st = zb__cuda_launched("string sort (prefix keys)", dev, err);
  }
  if (st == ZB_OK)
    st = zb__cuda_key_varying_bits(dev, (const uint64_t *)keys[0]->data, n, &begin_bit,
                                   &end_bit, err);
  if (st == ZB_OK)
    st = zb__cuda_sort_pairs(dev, 8, keys, vals, &cur, n, begin_bit, end_bit, temp, temp_have,
                             err);
  /* 2. number the runs of equal prefix keys (the keys buffers are free) */
  const int64_t *sorted = vals[cur] != NULL ? (const int64_t *)vals[cur]->data : NULL;
  int64_t *run = keys[0] != NULL ? (int64_t *)keys[0]->data : NULL;
  int64_t *pos = keys[1] != NULL ? (int64_t *)keys[1]->data : NULL;
  if (st == ZB_OK) {
    zb_str_bounds_kernel<<<blocks, ZB_SORT_THREADS>>>(less, sorted, n, run, pos);
    st = zb__cuda_launched("string sort (prefix runs)", dev, err);
  }
  if (st == ZB_OK) st = zb__cuda_exclusive_sum(dev, run, n, err);
  int64_t runs_less_one = 0;
  if (st == ZB_OK)
    st = zb__cuda_read(dev, &runs_less_one, run + n - 1, 8, "cudaMemcpy of the prefix runs",
                       err);
  /* 3. rows tied on their prefix: stable merge sort of the positions by
   * (run, bytes) -- bytes are compared only within a run */
  if (st == ZB_OK && runs_less_one < n - 1) {
    zb_run_string_less rl;
    rl.less = less;
    rl.run = run;
    rl.rows = sorted;
    size_t need = 0;
    st = zb__cuda_check(cub::DeviceMergeSort::StableSortKeys(NULL, need, pos, n, rl),
                        "cub::DeviceMergeSort::StableSortKeys (size query)", dev, err);
    if (st == ZB_OK) st = zb__cuda_scratch(dev, need, temp, temp_have, err);
    if (st == ZB_OK)
      st = zb__cuda_check(
          cub::DeviceMergeSort::StableSortKeys((*temp)->data, *temp_have, pos, n, rl),
          "cub::DeviceMergeSort::StableSortKeys", dev, err);
    if (st == ZB_OK) {
      zb_gather_rows_kernel<<<blocks, ZB_SORT_THREADS>>>(sorted, pos, n, rows);
      st = zb__cuda_launched("string sort (gather)", dev, err);
    }
  } else if (st == ZB_OK) { /* every prefix distinct: the radix order is the order */
    st = zb__cuda_check(cudaMemcpyAsync(rows, sorted, (size_t)n * 8, cudaMemcpyDeviceToDevice, 0),
                        "cudaMemcpyAsync (sorted rows)", dev, err);
  }
  /* freed in stream order, after the work queued above */
  for (int k = 0; k < 2; k++) {
    zb_buffer_release(keys[k]);
    zb_buffer_release(vals[k]);
  }
  return st;
}

extern "C" zb_status zb__cuda_sort_indices(const zb_table *t, int64_t n_keys,
                                           const int64_t *keys, const bool *ascending,
                                           bool nulls_first, zb_column **out, zb_error *err) {
  *out = NULL;
  const int dev = zb_table_device(t).id;
  const int64_t n = t->num_rows;
  ZB_RETURN_NOT_OK(zb__cuda_set_device(dev, err));

  zb_sorter s;
  memset(&s, 0, sizeof s);
  s.dev = dev;
  s.n = n;
  zb_status st = zb__cuda_buffer(dev, n * 8, &s.perm[0], err);
  if (st == ZB_OK && n > 0) {
    zb_iota_kernel<<<zb__cuda_blocks(dev, n, ZB_SORT_THREADS), ZB_SORT_THREADS>>>(
        (int64_t *)s.perm[0]->data, n);
    st = zb__cuda_launched("sort (row numbers)", dev, err);
  }
  if (n > 1) {
    if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 8, &s.perm[1], err);
    if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 8, &s.keys[0], err);
    if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 8, &s.keys[1], err);
    if (st == ZB_OK) st = zb__cuda_buffer(dev, 3 * 8, &s.acc, err);
    for (int64_t k = n_keys - 1; k >= 0 && st == ZB_OK; k--)
      st = zb_sort_by_column(&s, t->columns[keys[k]], ascending != NULL ? ascending[k] : true,
                             nulls_first, err);
  }
  /* all work done before scratch is freed and the result is handed out */
  zb_status ws = zb__cuda_wait("sort", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  if (st == ZB_OK)
    st = zb_column_make(ZB_INT64, n, 0, NULL, s.perm[s.cur], NULL, NULL, 0, out, err);
  zb_buffer_release(s.perm[0]);
  zb_buffer_release(s.perm[1]);
  zb_buffer_release(s.keys[0]);
  zb_buffer_release(s.keys[1]);
  zb_buffer_release(s.acc);
  zb_buffer_release(s.temp);
  return st;
}
