/*
 * hash.cu -- rows grouped by equal keys on a CUDA device (keys.cuh), and
 * the operations built on it: unique, nunique, value_counts, duplicated and
 * isin (the CUDA side of src/cpu/hash.c, whose results these equal row for
 * row).
 *
 * The CPU hashes; here rows are grouped by a stable radix sort instead,
 * which gives the CPU's orders without a hash table: inside a group the
 * rows are in ascending row order, so a group's first position holds its
 * first row and its last position its last row.  Then:
 *   unique:       each group's first row is flagged in a per-row array; an
 *                 exclusive scan compacts the flagged rows in row order --
 *                 the order of first appearance -- and they are gathered;
 *   nunique:      the group count, less the null / NaN groups for dropna;
 *   value_counts: the same compaction of first rows (dropna leaves the null
 *                 and NaN groups out), each with its group's size; for
 *                 sort, a stable radix sort by count (n - count for
 *                 descending), so ties stay in order of first appearance;
 *                 normalize divides by the kept rows, in double as the CPU;
 *   duplicated:   per row, from its position in its group (keep first: not
 *                 the group's first position; last: not its last; none:
 *                 the group has more than one row);
 *   isin:         the column (side 0) and the values (side 1) grouped
 *                 together; a column row is in the values when its group is
 *                 not null and ends with a values row.
 * Bool results are written one byte per row and packed into a bitmap by
 * one warp per 32 rows (a ballot per output word, so no two threads share a
 * word).  String keys group by their bytes (keys.cuh).  Indices and counts
 * are 64-bit.  All work
 * runs on the legacy default stream and is waited for before an entry
 * returns.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cuda/keys.cuh"

#define ZB_NAN_BITS 0x7ff8000000000000ull

namespace {

/* ------------------------------------------------------------------------ */
/* Grouping kernels                                                         */
/* ------------------------------------------------------------------------ */

__global__ void __launch_bounds__(ZB_KEY_THREADS) zb_key_iota_kernel(int64_t *v, int64_t n) {
  ZB_KEY_FOR(i, n) v[i] = i;
}

/* keys[i] = normalized value of row perm[i] in column c (0 when null);
 * acc[0] |= every key, acc[1] &= every key, acc[2] += null rows. */
__global__ void __launch_bounds__(ZB_KEY_THREADS)
    zb_key_values_kernel(zb_kcol c, int64_t n_a, const int64_t *__restrict__ perm, int64_t n,
                         uint64_t *__restrict__ keys, unsigned long long *__restrict__ acc) {
  unsigned long long o = 0, a = ~0ull, miss = 0;
  ZB_KEY_FOR(i, n) {
    uint64_t k = 0;
    const bool valid = zb_key_value(c, n_a, perm[i], &k);
    if (!valid) k = 0;
    keys[i] = k;
    o |= k;
    a &= k;
    miss += valid ? 0u : 1u;
  }
  zb__cuda_warp_key_bits(o, a, miss, acc);
}

/* flags[i] = 1 where row perm[i] is null in column c, else 0. */
__global__ void __launch_bounds__(ZB_KEY_THREADS)
    zb_key_nulls_kernel(zb_kcol c, int64_t n_a, const int64_t *__restrict__ perm, int64_t n,
                        uint8_t *__restrict__ flags) {
  ZB_KEY_FOR(i, n) {
    uint64_t k = 0;
    flags[i] = zb_key_value(c, n_a, perm[i], &k) ? 0 : 1;
  }
}

/* For sorted positions i < n: ex[i] = 1 where a group starts (position 0,
 * or the row differs from the previous position's in some column), else 0;
 * miss[i] = 1 where the row has a null key.  ex[n] = 0. */
__global__ void __launch_bounds__(ZB_KEY_THREADS)
    zb_key_heads_kernel(const zb_kcol *__restrict__ cols, int64_t n_cols, int64_t n_a,
                        const int64_t *__restrict__ perm, int64_t n, int64_t *__restrict__ ex,
                        uint8_t *__restrict__ miss) {
  ZB_KEY_FOR(i, n + 1) {
    if (i == n) {
      ex[n] = 0;
      continue;
    }
    const int64_t r = perm[i];
    const int64_t prev = i > 0 ? perm[i - 1] : r;
    bool head = i == 0, m = false;
    for (int64_t c = 0; c < n_cols; c++) {
      uint64_t a = 0, b = 0;
      const bool va = zb_key_value(cols[c], n_a, r, &a);
      m = m || !va;
      if (!head) {
        const bool vb = zb_key_value(cols[c], n_a, prev, &b);
        head = va != vb || (va && a != b);
        if (!head && va && cols[c].s[0].type == ZB_STRING)
          head = !zb_key_same_string(cols[c], n_a, r, prev);
      }
    }
    ex[i] = head ? 1 : 0;
    miss[i] = m ? 1 : 0;
  }
}

/* starts[g] = first position of group g; starts[n_groups] = n (n >= 1). */
__global__ void __launch_bounds__(ZB_KEY_THREADS)
    zb_key_starts_kernel(const int64_t *__restrict__ ex, int64_t n, int64_t *__restrict__ starts) {
  ZB_KEY_FOR(i, n) {
    if (ex[i + 1] != ex[i]) starts[ex[i]] = i;
    if (i == n - 1) starts[ex[n]] = n;
  }
}

/* ------------------------------------------------------------------------ */
/* Operation kernels                                                        */
/* ------------------------------------------------------------------------ */

/* Whether the row at a group's first position i is null or NaN (single key
 * column c). */
__device__ __forceinline__ bool zb_group_na(const zb_kcol &c, int64_t n_a, int64_t row,
                                            const uint8_t *miss, int64_t i) {
  if (miss[i]) return true;
  const int t = c.s[row >= n_a ? 1 : 0].type;
  if (t != ZB_FLOAT32 && t != ZB_FLOAT64) return false;
  uint64_t v = 0;
  (void)zb_key_value(c, n_a, row, &v);
  return v == ZB_NAN_BITS;
}

/* Per group (at its first position i): unless dropped, flag[row] = 1 and
 * count[row] = the group's size (count may be NULL), where row is the
 * group's first row.  A group is dropped when dropna and it is null / NaN;
 * *dropped_rows += the rows of dropped groups.  flag has n + 1 entries,
 * zeroed before. */
__global__ void __launch_bounds__(ZB_KEY_THREADS)
    zb_first_rows_kernel(zb_kcol c, const int64_t *__restrict__ perm,
                         const int64_t *__restrict__ ex, const int64_t *__restrict__ starts,
                         const uint8_t *__restrict__ miss, int64_t n, bool dropna,
                         int64_t *__restrict__ flag, int64_t *__restrict__ count,
                         unsigned long long *__restrict__ dropped_rows) {
  unsigned long long dropped = 0;
  ZB_KEY_FOR(i, n) {
    if (ex[i + 1] == ex[i]) continue; /* not a group's first position */
    const int64_t g = ex[i], row = perm[i];
    const int64_t size = starts[g + 1] - starts[g];
    if (dropna && zb_group_na(c, n, row, miss, i)) {
      dropped += (unsigned long long)size;
      continue;
    }
    flag[row] = 1;
    if (count != NULL) count[row] = size;
  }
  if (dropped != 0) atomicAdd(dropped_rows, dropped);
}

/* pos: exclusive scan of the flags (n + 1 entries); rows[pos[r]] = r for
 * every flagged r. */
__global__ void __launch_bounds__(ZB_KEY_THREADS)
    zb_compact_kernel(const int64_t *__restrict__ pos, int64_t n, int64_t *__restrict__ rows) {
  ZB_KEY_FOR(r, n) {
    const int64_t p = pos[r];
    if (pos[r + 1] != p) rows[p] = r;
  }
}

/* value_counts' sort keys: keys[k] = count of rows[k] (ascending) or
 * n - count (descending); vals[k] = rows[k]. */
__global__ void __launch_bounds__(ZB_KEY_THREADS)
    zb_count_keys_kernel(const int64_t *__restrict__ rows, const int64_t *__restrict__ count,
                         int64_t m, int64_t n, bool ascending, uint64_t *__restrict__ keys,
                         int64_t *__restrict__ vals) {
  ZB_KEY_FOR(k, m) {
    const int64_t r = rows[k], c = count[r];
    keys[k] = (uint64_t)(ascending ? c : n - c);
    vals[k] = r;
  }
}

/* value_counts' counts: out[k] = count of rows[k], as int64 or divided by
 * total (normalize). */
__global__ void __launch_bounds__(ZB_KEY_THREADS)
    zb_counts_out_kernel(const int64_t *__restrict__ rows, const int64_t *__restrict__ count,
                         int64_t m, bool normalize, int64_t total, void *__restrict__ out) {
  ZB_KEY_FOR(k, m) {
    const int64_t c = count[rows[k]];
    if (normalize)
      ((double *)out)[k] = (double)c / (double)total;
    else
      ((int64_t *)out)[k] = c;
  }
}

/* duplicated: dup[row at position i] per keep (zb_keep). */
__global__ void __launch_bounds__(ZB_KEY_THREADS)
    zb_duplicated_kernel(const int64_t *__restrict__ perm, const int64_t *__restrict__ ex,
                         const int64_t *__restrict__ starts, int64_t n, int keep,
                         uint8_t *__restrict__ dup) {
  ZB_KEY_FOR(i, n) {
    const int64_t g = ex[i + 1] - 1, s = starts[g], e = starts[g + 1];
    bool d;
    if (keep == ZB_KEEP_FIRST)
      d = i != s;
    else if (keep == ZB_KEEP_LAST)
      d = i != e - 1;
    else
      d = e - s > 1;
    dup[perm[i]] = d ? 1 : 0;
  }
}

/* isin: for the column's rows (perm[i] < n_a), hit[row] = 1 when the group
 * has no null key and its last row is a values row. */
__global__ void __launch_bounds__(ZB_KEY_THREADS)
    zb_isin_kernel(const int64_t *__restrict__ perm, const int64_t *__restrict__ ex,
                   const int64_t *__restrict__ starts, const uint8_t *__restrict__ miss,
                   int64_t n, int64_t n_a, uint8_t *__restrict__ hit) {
  ZB_KEY_FOR(i, n) {
    const int64_t r = perm[i];
    if (r >= n_a) continue;
    const int64_t g = ex[i + 1] - 1;
    hit[r] = (!miss[i] && perm[starts[g + 1] - 1] >= n_a) ? 1 : 0;
  }
}

/* bits = bytes[0, n) packed into a bitmap, one 32-bit word per warp step. */
__global__ void __launch_bounds__(ZB_KEY_THREADS)
    zb_pack_bits_kernel(const uint8_t *__restrict__ bytes, int64_t n, uint32_t *__restrict__ bits) {
  const int lane = (int)(threadIdx.x & 31);
  const int64_t words = (n + 31) / 32;
  ZB_KEY_FOR_WARP(w, words) {
    const int64_t i = w * 32 + lane;
    const unsigned word = __ballot_sync(0xffffffffu, i < n && bytes[i] != 0);
    if (lane == 0) bits[w] = word;
  }
}

/* ------------------------------------------------------------------------ */
/* Host helpers                                                             */
/* ------------------------------------------------------------------------ */

unsigned zb_key_blocks(int dev, int64_t items) {
  return zb__cuda_blocks(dev, items, ZB_KEY_THREADS);
}

zb_status zb_memset0(int dev, void *p, int64_t size, zb_error *err) {
  if (size <= 0) return ZB_OK;
  return zb__cuda_check(cudaMemsetAsync(p, 0, (size_t)size, 0), "cudaMemsetAsync", dev, err);
}

/* Sort perm (vals[*cur], n rows) stably by key column c (keys.cuh). */
zb_status zb_group_pass(int dev, const zb_kcol &c, int64_t n_a, int64_t n, zb_buffer *keys[2],
                        zb_buffer *vals[2], int *cur, zb_buffer *acc, zb_buffer **temp,
                        size_t *temp_have, zb_error *err) {
  if (c.s[0].type == ZB_STRING) { /* by bytes, nulls last, in one stable pass */
    zb_str_sides sides;
    for (int side = 0; side < 2; side++) {
      sides.offs[side] = (const int64_t *)c.s[side].data + c.s[side].off;
      sides.chars[side] = c.s[side].chars;
      sides.valid[side] = c.s[side].valid;
      sides.off[side] = c.s[side].off;
    }
    sides.n_a = n_a;
    return zb__cuda_sort_by_strings(dev, (int64_t *)vals[*cur]->data, n, &sides, true, false,
                                    temp, temp_have, err);
  }
  unsigned long long h[3] = {0ull, ~0ull, 0ull};
  ZB_RETURN_NOT_OK(zb__cuda_check(
      cudaMemcpy(acc->data, h, sizeof h, cudaMemcpyHostToDevice),
      "cudaMemcpy (host to device) of the key accumulators", dev, err));
  zb_key_values_kernel<<<zb_key_blocks(dev, n), ZB_KEY_THREADS>>>(
      c, n_a, (const int64_t *)vals[*cur]->data, n, (uint64_t *)keys[0]->data,
      (unsigned long long *)acc->data);
  ZB_RETURN_NOT_OK(zb__cuda_launched("key values", dev, err));
  ZB_RETURN_NOT_OK(zb__cuda_read(dev, h, acc->data, sizeof h,
                                 "cudaMemcpy of the key values' range", err));
  const unsigned long long diff = h[0] ^ h[1];
  if (diff != 0) {
    const int begin = __builtin_ctzll(diff), end = 64 - __builtin_clzll(diff);
    ZB_RETURN_NOT_OK(zb__cuda_sort_pairs(dev, 8, keys, vals, cur, n, begin, end, temp,
                                         temp_have, err));
  }
  if (h[2] > 0 && h[2] < (unsigned long long)n) {
    zb_key_nulls_kernel<<<zb_key_blocks(dev, n), ZB_KEY_THREADS>>>(
        c, n_a, (const int64_t *)vals[*cur]->data, n, (uint8_t *)keys[0]->data);
    ZB_RETURN_NOT_OK(zb__cuda_launched("key null flags", dev, err));
    ZB_RETURN_NOT_OK(zb__cuda_sort_pairs(dev, 1, keys, vals, cur, n, 0, 1, temp, temp_have,
                                         err));
  }
  return ZB_OK;
}

/* A BOOL column of n rows (no nulls) from bytes[0, n) (0 / not 0). */
zb_status zb_bool_from_bytes(int dev, const uint8_t *bytes, int64_t n, zb_column **out,
                             zb_error *err) {
  *out = NULL;
  const int64_t words = (n + 31) / 32;
  zb_buffer *bits = NULL;
  ZB_RETURN_NOT_OK(zb__cuda_buffer(dev, words * 4, &bits, err));
  zb_status st = ZB_OK;
  if (n > 0) {
    zb_pack_bits_kernel<<<zb_key_blocks(dev, words * 32), ZB_KEY_THREADS>>>(
        bytes, n, (uint32_t *)bits->data);
    st = zb__cuda_launched("pack bits", dev, err);
  }
  zb_status ws = zb__cuda_wait("pack bits", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  if (st == ZB_OK) st = zb_column_make(ZB_BOOL, n, 0, NULL, bits, NULL, NULL, 0, out, err);
  zb_buffer_release(bits);
  return st;
}

/* Every key column usable here (else *ok false: decline). */
zb_status zb_keys_ok(const zb_column *const *cols, int64_t n_cols, bool *ok, zb_error *err) {
  *ok = true;
  for (int64_t c = 0; c < n_cols && *ok; c++) ZB_RETURN_NOT_OK(zb__cuda_key_ok(cols[c], ok, err));
  return ZB_OK;
}

/* The rows of col grouped (one key column, side 0 only). */
zb_status zb_group_column(const zb_column *col, zb_kcol *kc, zb_groups *g, zb_error *err) {
  zb__cuda_kside(kc, 0, col);
  kc->s[1] = kc->s[0];
  return zb__cuda_group(col->device.id, kc, 1, col->length, col->length, g, err);
}

/* First rows of the groups of col (dropna: not the null / NaN groups) in
 * row order: *rows (new buffer of *m int64), per-row group sizes in *count
 * when count is not NULL (new buffer, n entries, valid at the first rows),
 * and the rows of the dropped groups in *dropped. */
zb_status zb_first_rows(const zb_column *col, bool dropna, zb_buffer **rows, int64_t *m,
                        zb_buffer **count, int64_t *dropped, zb_error *err) {
  const int dev = col->device.id;
  const int64_t n = col->length;
  *rows = NULL;
  *m = 0;
  if (count != NULL) *count = NULL;
  *dropped = 0;
  unsigned long long dropped_rows = 0;
  zb_kcol kc;
  zb_groups g;
  zb_buffer *flag = NULL, *dacc = NULL;
  zb_status st = zb_group_column(col, &kc, &g, err);
  if (st != ZB_OK) return st;
  st = zb__cuda_buffer(dev, (n + 1) * 8, &flag, err);
  if (st == ZB_OK) st = zb_memset0(dev, flag->data, (n + 1) * 8, err);
  if (st == ZB_OK && count != NULL) st = zb__cuda_buffer(dev, n * 8, count, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, 8, &dacc, err);
  if (st == ZB_OK) st = zb_memset0(dev, dacc->data, 8, err);
  if (st == ZB_OK && n > 0) {
    zb_first_rows_kernel<<<zb_key_blocks(dev, n), ZB_KEY_THREADS>>>(
        kc, (const int64_t *)g.perm->data, (const int64_t *)g.ex->data,
        (const int64_t *)g.starts->data, (const uint8_t *)g.miss->data, n, dropna,
        (int64_t *)flag->data, count != NULL ? (int64_t *)(*count)->data : NULL,
        (unsigned long long *)dacc->data);
    st = zb__cuda_launched("group first rows", dev, err);
  }
  if (st == ZB_OK)
    st = zb__cuda_read(dev, &dropped_rows, dacc->data, 8, "cudaMemcpy of the dropped rows",
                       err);
  if (st == ZB_OK && dropped_rows > (unsigned long long)n)
    st = zb_error_set(err, ZB_EDEVICE, "distinct values on cuda:%d: %llu of %lld rows dropped",
                      dev, dropped_rows, (long long)n);
  *dropped = (int64_t)dropped_rows;
  if (st == ZB_OK) st = zb__cuda_exclusive_sum(dev, (int64_t *)flag->data, n + 1, err);
  if (st == ZB_OK)
    st = zb__cuda_read(dev, m, (const int64_t *)flag->data + n, 8,
                       "cudaMemcpy of the distinct count", err);
  if (st == ZB_OK && (*m < 0 || *m > n))
    st = zb_error_set(err, ZB_EDEVICE, "distinct values on cuda:%d: %lld of %lld rows", dev,
                      (long long)*m, (long long)n);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, *m * 8, rows, err);
  if (st == ZB_OK && *m > 0) {
    zb_compact_kernel<<<zb_key_blocks(dev, n), ZB_KEY_THREADS>>>(
        (const int64_t *)flag->data, n, (int64_t *)(*rows)->data);
    st = zb__cuda_launched("compact first rows", dev, err);
  }
  zb_status ws = zb__cuda_wait("distinct values", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  zb_buffer_release(flag);
  zb_buffer_release(dacc);
  zb__cuda_groups_reset(&g);
  if (st != ZB_OK) {
    zb_buffer_release(*rows);
    *rows = NULL;
    if (count != NULL) {
      zb_buffer_release(*count);
      *count = NULL;
    }
  }
  return st;
}

/* Rows rows[0, m) of col as a new column on its device. */
zb_status zb_take_rows(const zb_column *col, zb_buffer *rows, int64_t m, zb_column **out,
                       zb_error *err) {
  zb_column *idx = NULL;
  ZB_RETURN_NOT_OK(zb__cuda_index_column(rows, m, &idx, err));
  zb_status st = zb__cuda_take(col, idx, out, err);
  zb_column_release(idx);
  return st;
}

/* Sort rows[0, m) stably by the counts of their groups (value_counts). */
zb_status zb_sort_by_count(int dev, zb_buffer **rows, int64_t m, const zb_buffer *count,
                           int64_t n, bool ascending, zb_error *err) {
  zb_buffer *keys[2] = {NULL, NULL}, *vals[2] = {NULL, NULL}, *temp = NULL;
  size_t temp_have = 0;
  int cur = 0;
  zb_status st = zb__cuda_buffer(dev, m * 8, &keys[0], err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, m * 8, &keys[1], err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, m * 8, &vals[0], err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, m * 8, &vals[1], err);
  if (st == ZB_OK) {
    zb_count_keys_kernel<<<zb_key_blocks(dev, m), ZB_KEY_THREADS>>>(
        (const int64_t *)(*rows)->data, (const int64_t *)count->data, m, n, ascending,
        (uint64_t *)keys[0]->data, (int64_t *)vals[0]->data);
    st = zb__cuda_launched("value_counts sort keys", dev, err);
  }
  /* keys lie in [0, n] */
  const int end = n > 0 ? 64 - __builtin_clzll((unsigned long long)n) : 1;
  if (st == ZB_OK)
    st = zb__cuda_sort_pairs(dev, 8, keys, vals, &cur, m, 0, end, &temp, &temp_have, err);
  zb_status ws = zb__cuda_wait("value_counts sort", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  if (st == ZB_OK) {
    zb_buffer_release(*rows);
    *rows = zb_buffer_retain(vals[cur]);
  }
  zb_buffer_release(keys[0]);
  zb_buffer_release(keys[1]);
  zb_buffer_release(vals[0]);
  zb_buffer_release(vals[1]);
  zb_buffer_release(temp);
  return st;
}

} /* namespace */

/* ------------------------------------------------------------------------ */
/* Grouping (keys.cuh)                                                      */
/* ------------------------------------------------------------------------ */

void zb__cuda_groups_reset(zb_groups *g) {
  zb_buffer_release(g->perm);
  zb_buffer_release(g->ex);
  zb_buffer_release(g->starts);
  zb_buffer_release(g->miss);
  memset(g, 0, sizeof *g);
}

void zb__cuda_kside(zb_kcol *c, int s, const zb_column *col) {
  c->s[s].data = col->data->data;
  c->s[s].valid =
      col->validity != NULL && col->null_count > 0 ? (const uint8_t *)col->validity->data : NULL;
  c->s[s].chars = col->type == ZB_STRING && col->chars != NULL
                     ? (const unsigned char *)col->chars->data
                     : NULL;
  c->s[s].off = col->offset;
  c->s[s].type = (int)col->type;
}

zb_status zb__cuda_key_ok(const zb_column *col, bool *ok, zb_error *err) {
  (void)err;
  /* a categorical compares by code: its dictionary's strings are distinct
   * (zambezi.h; imports fold repeats), so equal codes are equal strings */
  *ok = col->type != ZB_CATEGORICAL || col->dictionary != NULL;
  return ZB_OK;
}

zb_status zb__cuda_index_column(zb_buffer *buf, int64_t m, zb_column **out, zb_error *err) {
  return zb_column_make(ZB_INT64, m, 0, NULL, buf, NULL, NULL, 0, out, err);
}

zb_status zb__cuda_group(int dev, const zb_kcol *cols, int64_t n_cols, int64_t n_a, int64_t n,
                         zb_groups *g, zb_error *err) {
  memset(g, 0, sizeof *g);
  g->n = n;
  zb_buffer *vals[2] = {NULL, NULL}, *keys[2] = {NULL, NULL}, *acc = NULL, *temp = NULL,
            *dcols = NULL;
  size_t temp_have = 0;
  int cur = 0;
  int64_t n_groups = 0;
  zb_status st = zb__cuda_set_device(dev, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 8, &vals[0], err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, (n + 1) * 8, &g->ex, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, (n + 1) * 8, &g->starts, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, n, &g->miss, err);
  if (st == ZB_OK && n > 0) {
    zb_key_iota_kernel<<<zb_key_blocks(dev, n), ZB_KEY_THREADS>>>((int64_t *)vals[0]->data, n);
    st = zb__cuda_launched("row numbers", dev, err);
  }
  if (st == ZB_OK && n > 1) {
    st = zb__cuda_buffer(dev, n * 8, &vals[1], err);
    if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 8, &keys[0], err);
    if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 8, &keys[1], err);
    if (st == ZB_OK) st = zb__cuda_buffer(dev, 3 * 8, &acc, err);
    for (int64_t c = n_cols - 1; c >= 0 && st == ZB_OK; c--)
      st = zb_group_pass(dev, cols[c], n_a, n, keys, vals, &cur, acc, &temp, &temp_have, err);
  }
  if (st == ZB_OK) {
    const int64_t bytes = n_cols * (int64_t)sizeof(zb_kcol);
    st = zb__cuda_buffer(dev, bytes, &dcols, err);
    if (st == ZB_OK && bytes > 0)
      st = zb__cuda_check(cudaMemcpy(dcols->data, cols, (size_t)bytes, cudaMemcpyHostToDevice),
                          "cudaMemcpy (host to device) of the key columns", dev, err);
  }
  if (st == ZB_OK) {
    zb_key_heads_kernel<<<zb_key_blocks(dev, n + 1), ZB_KEY_THREADS>>>(
        (const zb_kcol *)dcols->data, n_cols, n_a, (const int64_t *)vals[cur]->data, n,
        (int64_t *)g->ex->data, (uint8_t *)g->miss->data);
    st = zb__cuda_launched("group heads", dev, err);
  }
  if (st == ZB_OK) st = zb__cuda_exclusive_sum(dev, (int64_t *)g->ex->data, n + 1, err);
  if (st == ZB_OK)
    st = zb__cuda_read(dev, &n_groups, (const int64_t *)g->ex->data + n, 8,
                       "cudaMemcpy of the group count", err);
  if (st == ZB_OK && (n_groups < 0 || n_groups > n || (n > 0 && n_groups < 1)))
    st = zb_error_set(err, ZB_EDEVICE, "grouping on cuda:%d: %lld groups of %lld rows", dev,
                      (long long)n_groups, (long long)n);
  if (st == ZB_OK) {
    if (n > 0) {
      zb_key_starts_kernel<<<zb_key_blocks(dev, n), ZB_KEY_THREADS>>>(
          (const int64_t *)g->ex->data, n, (int64_t *)g->starts->data);
      st = zb__cuda_launched("group starts", dev, err);
    } else {
      st = zb_memset0(dev, g->starts->data, 8, err); /* starts[0] = n = 0 */
    }
  }
  /* the sort's scratch and the column table are read by queued work */
  zb_status ws = zb__cuda_wait("grouping", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  if (st == ZB_OK) {
    g->perm = zb_buffer_retain(vals[cur]);
    g->n_groups = n_groups;
  }
  zb_buffer_release(vals[0]);
  zb_buffer_release(vals[1]);
  zb_buffer_release(keys[0]);
  zb_buffer_release(keys[1]);
  zb_buffer_release(acc);
  zb_buffer_release(temp);
  zb_buffer_release(dcols);
  if (st != ZB_OK) zb__cuda_groups_reset(g);
  return st;
}

/* ------------------------------------------------------------------------ */
/* Backend entries                                                          */
/* ------------------------------------------------------------------------ */

extern "C" zb_status zb__cuda_unique(const zb_column *col, zb_column **out, zb_error *err) {
  bool ok = false;
  ZB_RETURN_NOT_OK(zb__cuda_key_ok(col, &ok, err));
  if (!ok) return (zb_status)ZB__DECLINED;
  *out = NULL;
  zb_buffer *rows = NULL;
  int64_t m = 0, dropped = 0;
  ZB_RETURN_NOT_OK(zb_first_rows(col, false, &rows, &m, NULL, &dropped, err));
  zb_status st = zb_take_rows(col, rows, m, out, err);
  zb_buffer_release(rows);
  return st;
}

extern "C" zb_status zb__cuda_nunique(const zb_column *col, bool dropna, int64_t *out,
                                      zb_error *err) {
  bool ok = false;
  ZB_RETURN_NOT_OK(zb__cuda_key_ok(col, &ok, err));
  if (!ok) return (zb_status)ZB__DECLINED;
  *out = 0;
  zb_buffer *rows = NULL;
  int64_t m = 0, dropped = 0;
  /* with dropna the null / NaN groups are left out of m already */
  ZB_RETURN_NOT_OK(zb_first_rows(col, dropna, &rows, &m, NULL, &dropped, err));
  zb_buffer_release(rows);
  *out = m;
  return ZB_OK;
}

extern "C" zb_status zb__cuda_value_counts(const zb_column *col, bool sort, bool ascending,
                                           bool dropna, bool normalize, zb_column **values,
                                           zb_column **counts, zb_error *err) {
  bool ok = false;
  ZB_RETURN_NOT_OK(zb__cuda_key_ok(col, &ok, err));
  if (!ok) return (zb_status)ZB__DECLINED;
  *values = NULL;
  *counts = NULL;
  const int dev = col->device.id;
  const int64_t n = col->length;
  zb_buffer *rows = NULL, *count = NULL, *cbuf = NULL;
  int64_t m = 0, dropped = 0;
  zb_column *v = NULL, *c = NULL;
  zb_status st = zb_first_rows(col, dropna, &rows, &m, &count, &dropped, err);
  if (st != ZB_OK) return st;
  const int64_t total = n - dropped; /* rows of the kept values */
  if (sort && m > 1) st = zb_sort_by_count(dev, &rows, m, count, n, ascending, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, m * 8, &cbuf, err);
  if (st == ZB_OK && m > 0) {
    zb_counts_out_kernel<<<zb_key_blocks(dev, m), ZB_KEY_THREADS>>>(
        (const int64_t *)rows->data, (const int64_t *)count->data, m, normalize, total,
        cbuf->data);
    st = zb__cuda_launched("value counts", dev, err);
  }
  zb_status ws = zb__cuda_wait("value_counts", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  if (st == ZB_OK)
    st = zb_column_make(normalize ? ZB_FLOAT64 : ZB_INT64, m, 0, NULL, cbuf, NULL, NULL, 0, &c,
                        err);
  if (st == ZB_OK) st = zb_take_rows(col, rows, m, &v, err);
  zb_buffer_release(rows);
  zb_buffer_release(count);
  zb_buffer_release(cbuf);
  if (st != ZB_OK) {
    zb_column_release(v);
    zb_column_release(c);
    return st;
  }
  *values = v;
  *counts = c;
  return ZB_OK;
}

extern "C" zb_status zb__cuda_duplicated(const zb_table *t, int64_t n_keys, const int64_t *keys,
                                         zb_keep keep, zb_column **out, zb_error *err) {
  const size_t n_cols = (size_t)(n_keys > 0 ? n_keys : 1);
  zb_column **cols = (zb_column **)zb_malloc(n_cols * sizeof(zb_column *));
  if (cols == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (duplicated keys)");
  for (int64_t i = 0; i < n_keys; i++) cols[i] = t->columns[keys[i]];
  bool ok = false;
  zb_status st = zb_keys_ok((const zb_column *const *)cols, n_keys, &ok, err);
  if (st != ZB_OK || !ok) {
    zb_free(cols);
    return st != ZB_OK ? st : (zb_status)ZB__DECLINED;
  }
  *out = NULL;
  const int dev = zb_table_device(t).id;
  const int64_t n = t->num_rows;
  zb_kcol *kc = (zb_kcol *)zb_malloc(n_cols * sizeof(zb_kcol));
  zb_groups g;
  memset(&g, 0, sizeof g);
  zb_buffer *dup = NULL;
  if (kc == NULL) {
    zb_free(cols);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (duplicated keys)");
  }
  for (int64_t i = 0; i < n_keys; i++) {
    zb__cuda_kside(&kc[i], 0, cols[i]);
    kc[i].s[1] = kc[i].s[0];
  }
  st = zb__cuda_group(dev, kc, n_keys, n, n, &g, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, n, &dup, err);
  if (st == ZB_OK && n > 0) {
    zb_duplicated_kernel<<<zb_key_blocks(dev, n), ZB_KEY_THREADS>>>(
        (const int64_t *)g.perm->data, (const int64_t *)g.ex->data,
        (const int64_t *)g.starts->data, n, (int)keep, (uint8_t *)dup->data);
    st = zb__cuda_launched("duplicated", dev, err);
  }
  if (st == ZB_OK) st = zb_bool_from_bytes(dev, (const uint8_t *)dup->data, n, out, err);
  if (st != ZB_OK) (void)zb__cuda_wait("duplicated", dev, NULL);
  zb_buffer_release(dup);
  zb__cuda_groups_reset(&g);
  zb_free(kc);
  zb_free(cols);
  return st;
}

extern "C" zb_status zb__cuda_isin(const zb_column *col, const zb_column *values,
                                   zb_column **out, zb_error *err) {
  bool ok = false;
  const zb_column *both[2] = {col, values};
  ZB_RETURN_NOT_OK(zb_keys_ok(both, 2, &ok, err));
  if (!ok || col->type != values->type) return (zb_status)ZB__DECLINED;
  *out = NULL;
  const int dev = col->device.id;
  const int64_t n_a = col->length, n = n_a + values->length;
  zb_kcol kc;
  zb__cuda_kside(&kc, 0, col);
  zb__cuda_kside(&kc, 1, values);
  zb_groups g;
  zb_buffer *hit = NULL;
  zb_status st = zb__cuda_group(dev, &kc, 1, n_a, n, &g, err);
  if (st != ZB_OK) return st;
  st = zb__cuda_buffer(dev, n_a, &hit, err);
  if (st == ZB_OK && n_a > 0) {
    zb_isin_kernel<<<zb_key_blocks(dev, n), ZB_KEY_THREADS>>>(
        (const int64_t *)g.perm->data, (const int64_t *)g.ex->data,
        (const int64_t *)g.starts->data, (const uint8_t *)g.miss->data, n, n_a,
        (uint8_t *)hit->data);
    st = zb__cuda_launched("isin", dev, err);
  }
  if (st == ZB_OK) st = zb_bool_from_bytes(dev, (const uint8_t *)hit->data, n_a, out, err);
  if (st != ZB_OK) (void)zb__cuda_wait("isin", dev, NULL);
  zb_buffer_release(hit);
  zb__cuda_groups_reset(&g);
  return st;
}
