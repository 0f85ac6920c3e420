/*
 * strings.cu -- string operations, string comparisons, fill_null / where of
 * strings and calendar fields on a CUDA device (the CUDA side of
 * zb_backend.str and zb_backend.dt_field, and of zb_backend.binary,
 * fill_null and where for strings).
 *
 * Every row is computed by the code the CPU kernels use (src/core/str_row.h
 * and src/core/calendar.h, compiled for the device), so both backends give
 * the same bytes.  One thread per row; each warp takes 32 consecutive rows
 * and writes the 32-bit words of the result's validity (and of a bool
 * result) from one ballot, so no two warps share a word.
 *   - len, contains, startswith, endswith, dt fields: one pass;
 *   - strip / lstrip / rstrip, slice, replace, upper, lower: a sizing pass
 *     writes each row's output length, an exclusive scan turns the lengths
 *     into offsets (and the total), and a second pass writes the bytes at
 *     those offsets.
 * The pattern, the replacement, the strip set's non-ASCII members and the
 * case table (src/core/case_map.h) are copied to the device first.  Null
 * rows give null with an empty string (or 0 / false) underneath; the
 * result's validity is the input's.
 */
#define CCCL_DISABLE_NVTX

#include <stdint.h>
#include <string.h>

#include "core/calendar.h"
#include "core/str_row.h"
#include "core/case_map.h"
#include "cuda/cuda_internal.h"

#define ZB_STR_THREADS 256

namespace {

/* A string column as the kernels read it: row i's bytes are
 * chars[offs[i], offs[i + 1]), its validity bit valid[off + i]. */
struct zb_dstr {
  const int64_t *offs;
  const unsigned char *chars;
  const uint8_t *valid; /* NULL: no nulls */
  int64_t off;
};

/* Warps of a grid-stride loop over 32-row groups: w is the group, i this
 * lane's row (uniform trip count per warp, so ballots are safe). */
#define ZB_STR_FOR_WARPS(w, n)                                                         \
  for (int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; w * 32 < (n); \
       w += (int64_t)gridDim.x * blockDim.x / 32)

__device__ __forceinline__ bool zb_dstr_valid(const zb_dstr &c, int64_t i) {
  return c.valid == NULL || zb__cuda_bit(c.valid, c.off + i);
}

/* len (lens != NULL) or contains / startswith / endswith (bits). */
__global__ void __launch_bounds__(ZB_STR_THREADS)
    zb_str_fixed_kernel(zb_dstr c, int64_t n, zb_str_args a, int64_t *__restrict__ lens,
                        uint32_t *__restrict__ bits, uint32_t *__restrict__ valid_out) {
  const int lane = threadIdx.x & 31;
  ZB_STR_FOR_WARPS(w, n) {
    const int64_t i = w * 32 + lane;
    bool v = false, r = false;
    if (i < n) {
      v = zb_dstr_valid(c, i);
      const int64_t s = c.offs[i], len = c.offs[i + 1] - s;
      if (lens != NULL)
        lens[i] = v ? zb__utf8_count(c.chars + s, len) : 0;
      else
        r = v && zb__str_match(&a, c.chars + s, len);
    }
    const unsigned vb = __ballot_sync(0xffffffffu, v), rb = __ballot_sync(0xffffffffu, r);
    if (lane == 0) {
      if (valid_out != NULL) valid_out[w] = vb;
      if (bits != NULL) bits[w] = rb;
    }
  }
}

/* The variable-length operation's parameters on the device. */
struct zb_vary {
  zb_str_args a; /* pat / repl point at device copies */
  zb_strip_set set;
  const uint32_t (*table)[2];
  int64_t n_table;
};

__device__ __forceinline__ int64_t zb_vary_emit(const zb_vary &v, const unsigned char *p,
                                                int64_t len, char *dst) {
  switch (v.a.op) {
  case ZB_STR_SLICE: return zb__slice_emit(&v.a, p, len, dst);
  case ZB_STR_REPLACE: return zb__replace_emit(&v.a, p, len, dst);
  case ZB_STR_UPPER:
  case ZB_STR_LOWER:
    return zb__case_emit(v.a.op == ZB_STR_UPPER, v.table, v.n_table, p, len, dst);
  default: {
    int64_t b, e;
    zb__strip_range(v.a.op, &v.set, p, len, &b, &e);
    if (dst != NULL && e > b) memcpy(dst, p + b, (size_t)(e - b));
    return e - b;
  }
  }
}

/* Pass 1: out_offs[i] = row i's output bytes (0 when null), validity words. */
__global__ void __launch_bounds__(ZB_STR_THREADS)
    zb_str_size_kernel(zb_dstr c, int64_t n, zb_vary v, int64_t *__restrict__ out_offs,
                       uint32_t *__restrict__ valid_out) {
  const int lane = threadIdx.x & 31;
  ZB_STR_FOR_WARPS(w, n) {
    const int64_t i = w * 32 + lane;
    bool ok = false;
    if (i < n) {
      ok = zb_dstr_valid(c, i);
      const int64_t s = c.offs[i];
      out_offs[i] = ok ? zb_vary_emit(v, c.chars + s, c.offs[i + 1] - s, NULL) : 0;
    }
    const unsigned vb = __ballot_sync(0xffffffffu, ok);
    if (lane == 0 && valid_out != NULL) valid_out[w] = vb;
  }
}

/* Pass 2: row i's bytes at out_chars + out_offs[i]. */
__global__ void __launch_bounds__(ZB_STR_THREADS)
    zb_str_write_kernel(zb_dstr c, int64_t n, zb_vary v, const int64_t *__restrict__ out_offs,
                        char *__restrict__ out_chars) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    if (out_offs[i + 1] == out_offs[i]) continue; /* null or empty */
    const int64_t s = c.offs[i];
    zb_vary_emit(v, c.chars + s, c.offs[i + 1] - s, out_chars + out_offs[i]);
  }
}

zb_dstr zb_dstr_of(const zb_column *col) {
  zb_dstr c;
  c.offs = (const int64_t *)col->data->data + col->offset;
  c.chars = col->chars != NULL ? (const unsigned char *)col->chars->data : NULL;
  c.valid = col->validity != NULL && col->null_count > 0 ? (const uint8_t *)col->validity->data
                                                         : NULL;
  c.off = col->offset;
  return c;
}

/* The variable-length operations: two passes around a scan. */
zb_status zb_str_vary(const zb_column *col, const zb_str_args *args, zb_buffer *valid,
                      zb_column **out, zb_error *err) {
  const int dev = col->device.id;
  const int64_t n = col->length;
  zb_vary v;
  memset(&v, 0, sizeof v);
  v.a = *args;
  zb_buffer *pat = NULL, *repl = NULL, *wide = NULL, *table = NULL, *offs = NULL,
            *chars = NULL;
  zb_status st = ZB_OK;
  if (args->pat != NULL) {
    st = zb__cuda_upload(dev, args->pat, args->pat_len, &pat, err);
    if (st == ZB_OK) v.a.pat = (const char *)pat->data;
  }
  if (st == ZB_OK && args->op == ZB_STR_REPLACE) {
    st = zb__cuda_upload(dev, args->repl, args->repl_len, &repl, err);
    if (st == ZB_OK) v.a.repl = (const char *)repl->data;
  }
  if (st == ZB_OK &&
      (args->op == ZB_STR_STRIP || args->op == ZB_STR_LSTRIP || args->op == ZB_STR_RSTRIP)) {
    const int64_t len = args->pat != NULL && args->pat_len > 0 ? args->pat_len : 1;
    uint32_t *host = (uint32_t *)zb_malloc((size_t)len * 4);
    if (host == NULL) st = zb_error_set(err, ZB_ENOMEM, "out of host memory (strip set)");
    if (st == ZB_OK) {
      zb__strip_set_init(&v.set, args->pat, args->pat_len, host);
      st = zb__cuda_upload(dev, host, v.set.n_wide * 4, &wide, err);
      if (st == ZB_OK) v.set.wide = (const uint32_t *)wide->data;
    }
    zb_free(host);
  }
  if (st == ZB_OK && (args->op == ZB_STR_UPPER || args->op == ZB_STR_LOWER)) {
    const bool up = args->op == ZB_STR_UPPER;
    st = up ? zb__cuda_upload(dev, zb__case_upper, sizeof zb__case_upper, &table, err)
            : zb__cuda_upload(dev, zb__case_lower, sizeof zb__case_lower, &table, err);
    if (st == ZB_OK) {
      v.table = (const uint32_t(*)[2])table->data;
      v.n_table = up ? (int64_t)(sizeof zb__case_upper / sizeof zb__case_upper[0])
                     : (int64_t)(sizeof zb__case_lower / sizeof zb__case_lower[0]);
    }
  }
  if (st == ZB_OK) st = zb__cuda_buffer(dev, (n + 1) * 8, &offs, err);
  const zb_dstr c = zb_dstr_of(col);
  const unsigned blocks = zb__cuda_blocks(dev, n, ZB_STR_THREADS);
  if (st == ZB_OK)
    st = zb__cuda_check(cudaMemsetAsync((int64_t *)offs->data + n, 0, 8, 0), "cudaMemsetAsync",
                        dev, err);
  if (st == ZB_OK && n > 0) {
    zb_str_size_kernel<<<blocks, ZB_STR_THREADS>>>(
        c, n, v, (int64_t *)offs->data, valid != NULL ? (uint32_t *)valid->data : NULL);
    st = zb__cuda_launched("string operation (sizes)", dev, err);
  }
  int64_t total = 0;
  if (st == ZB_OK) st = zb__cuda_exclusive_sum(dev, (int64_t *)offs->data, n + 1, err);
  if (st == ZB_OK)
    st = zb__cuda_read(dev, &total, (const int64_t *)offs->data + n, 8,
                       "cudaMemcpy of a string operation's total bytes", err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, total, &chars, err);
  if (st == ZB_OK && n > 0 && total > 0) {
    zb_str_write_kernel<<<blocks, ZB_STR_THREADS>>>(c, n, v, (const int64_t *)offs->data,
                                                    (char *)chars->data);
    st = zb__cuda_launched("string operation (bytes)", dev, err);
  }
  /* the kernels read the uploads: done before they are freed */
  zb_status ws = zb__cuda_wait("string operation", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  if (st == ZB_OK)
    st = zb_column_make(ZB_STRING, n, 0, valid, offs, chars, NULL, valid != NULL ? col->null_count : 0,
                        out, err);
  zb_buffer_release(pat);
  zb_buffer_release(repl);
  zb_buffer_release(wide);
  zb_buffer_release(table);
  zb_buffer_release(offs);
  zb_buffer_release(chars);
  return st;
}

/* dt fields: out[i] = field of row i; *bad = the first valid row whose
 * year does not fit int32 (atomicMin; stays ~0 when none). */
__global__ void __launch_bounds__(ZB_STR_THREADS)
    zb_dt_kernel(const void *__restrict__ data, int64_t off, const uint8_t *__restrict__ valid,
                 int64_t n, int64_t per_sec, int64_t offset_s, zb_dt_field f,
                 int32_t *__restrict__ out, uint32_t *__restrict__ valid_out,
                 unsigned long long *__restrict__ bad) {
  const int lane = threadIdx.x & 31;
  ZB_STR_FOR_WARPS(w, n) {
    const int64_t i = w * 32 + lane;
    bool ok = false;
    if (i < n) {
      ok = valid == NULL || zb__cuda_bit(valid, off + i);
      int64_t days;
      int32_t sod = 0, sub = 0;
      if (per_sec == 0)
        days = ((const int32_t *)data)[off + i];
      else
        zb__dt_split(((const int64_t *)data)[off + i], per_sec, offset_s, &days, &sod, &sub);
      const int64_t r = zb__dt_field_of(f, days, sod, sub, per_sec);
      if (f == ZB_DT_YEAR && ok && (r < INT32_MIN || r > INT32_MAX))
        atomicMin(bad, (unsigned long long)i);
      out[i] = (int32_t)r;
    }
    const unsigned vb = __ballot_sync(0xffffffffu, ok);
    if (lane == 0 && valid_out != NULL) valid_out[w] = vb;
  }
}

/* String comparisons: the result bit of row i is op(a[i], b[i]) on their
 * bytes (zb__bytes_order, the CPU's order), false where either is null;
 * validity words when the result can hold nulls; *nulls counts them.
 * mask: zb__cmp_mask of the op. */
__global__ void __launch_bounds__(ZB_STR_THREADS)
    zb_str_cmp_kernel(zb_dstr a, bool as, zb_dstr b, bool bs, int64_t n, int mask,
                      uint32_t *__restrict__ bits, uint32_t *__restrict__ valid_out,
                      unsigned long long *__restrict__ nulls) {
  const int lane = threadIdx.x & 31;
  ZB_STR_FOR_WARPS(w, n) {
    const int64_t i = w * 32 + lane;
    bool ok = false, r = false;
    if (i < n) {
      const int64_t ia = as ? 0 : i, ib = bs ? 0 : i;
      ok = zb_dstr_valid(a, ia) && zb_dstr_valid(b, ib);
      if (ok) {
        const int64_t sa = a.offs[ia], sb = b.offs[ib];
        const int c = zb__bytes_order(a.chars + sa, a.offs[ia + 1] - sa, b.chars + sb,
                                      b.offs[ib + 1] - sb);
        r = ((mask >> c) & 1) != 0;
      }
    }
    const unsigned rb = __ballot_sync(0xffffffffu, r), vb = __ballot_sync(0xffffffffu, ok);
    const unsigned nb = __ballot_sync(0xffffffffu, i < n && !ok);
    if (lane == 0) {
      bits[w] = rb;
      if (valid_out != NULL) valid_out[w] = vb;
      if (nb != 0) atomicAdd(nulls, (unsigned long long)__popc(nb));
    }
  }
}

/* fill_null and where on strings: row i takes a[i] or b[i] (b[0] when b is
 * a scalar).  take: where (cond given): cond valid and its bit != mask;
 * fill (cond NULL): a[i] valid.  The result is valid where the taken value
 * is (a null fill value keeps the nulls; the core never passes one).  Pass
 * 1 writes lengths (0 when null), validity words and the null count; pass
 * 2 copies the bytes. */
struct zb_str_pick {
  zb_dstr a, b;
  bool bs;
  bool fill; /* fill_null: take a where it is valid; else where by cond */
  const uint8_t *cond, *cond_valid;
  int64_t cond_off;
  bool mask;
};

__device__ __forceinline__ bool zb_pick_a(const zb_str_pick &p, int64_t i) {
  if (p.fill) return zb_dstr_valid(p.a, i);
  if (p.cond_valid != NULL && !zb__cuda_bit(p.cond_valid, p.cond_off + i)) return false;
  return zb__cuda_bit(p.cond, p.cond_off + i) != p.mask;
}

__global__ void __launch_bounds__(ZB_STR_THREADS)
    zb_str_pick_size_kernel(zb_str_pick p, int64_t n, int64_t *__restrict__ out_offs,
                            uint32_t *__restrict__ valid_out,
                            unsigned long long *__restrict__ nulls) {
  const int lane = threadIdx.x & 31;
  ZB_STR_FOR_WARPS(w, n) {
    const int64_t i = w * 32 + lane;
    bool ok = false;
    if (i < n) {
      const bool ta = zb_pick_a(p, i);
      const int64_t r = ta || !p.bs ? i : 0;
      ok = ta ? zb_dstr_valid(p.a, r) : zb_dstr_valid(p.b, r);
      const int64_t *o = ta ? p.a.offs : p.b.offs;
      out_offs[i] = ok ? o[r + 1] - o[r] : 0;
    }
    const unsigned vb = __ballot_sync(0xffffffffu, ok);
    const unsigned nb = __ballot_sync(0xffffffffu, i < n && !ok);
    if (lane == 0) {
      if (valid_out != NULL) valid_out[w] = vb;
      if (nb != 0) atomicAdd(nulls, (unsigned long long)__popc(nb));
    }
  }
}

__global__ void __launch_bounds__(ZB_STR_THREADS)
    zb_str_pick_write_kernel(zb_str_pick p, int64_t n, const int64_t *__restrict__ out_offs,
                             char *__restrict__ out_chars) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t len = out_offs[i + 1] - out_offs[i];
    if (len == 0) continue;
    const bool ta = zb_pick_a(p, i);
    const int64_t r = ta || !p.bs ? i : 0;
    const int64_t *o = ta ? p.a.offs : p.b.offs;
    const unsigned char *c = ta ? p.a.chars : p.b.chars;
    memcpy(out_chars + out_offs[i], c + o[r], (size_t)len);
  }
}

/* The picked strings as a new column of n rows (nulls: a result may hold
 * nulls, so it gets a validity bitmap). */
zb_status zb_str_pick_run(int dev, const zb_str_pick &p, int64_t n, bool nulls,
                          zb_column **out, zb_error *err) {
  *out = NULL;
  const int64_t words = (n + 31) / 32;
  zb_buffer *offs = NULL, *chars = NULL, *valid = NULL, *cnt = NULL;
  unsigned long long null_count = 0;
  int64_t total = 0;
  ZB_RETURN_NOT_OK(zb__cuda_set_device(dev, err));
  zb_status st = zb__cuda_buffer(dev, (n + 1) * 8, &offs, err);
  if (st == ZB_OK && nulls) st = zb__cuda_buffer(dev, words * 4, &valid, err);
  if (st == ZB_OK) st = zb__cuda_upload(dev, &null_count, 8, &cnt, err);
  if (st == ZB_OK)
    st = zb__cuda_check(cudaMemsetAsync((int64_t *)offs->data + n, 0, 8, 0), "cudaMemsetAsync",
                        dev, err);
  const unsigned blocks = zb__cuda_blocks(dev, n, ZB_STR_THREADS);
  if (st == ZB_OK && n > 0) {
    zb_str_pick_size_kernel<<<blocks, ZB_STR_THREADS>>>(
        p, n, (int64_t *)offs->data, nulls ? (uint32_t *)valid->data : NULL,
        (unsigned long long *)cnt->data);
    st = zb__cuda_launched("string pick (sizes)", dev, err);
  }
  if (st == ZB_OK) st = zb__cuda_exclusive_sum(dev, (int64_t *)offs->data, n + 1, err);
  if (st == ZB_OK)
    st = zb__cuda_read(dev, &total, (const int64_t *)offs->data + n, 8,
                       "cudaMemcpy of the picked strings' bytes", err);
  if (st == ZB_OK)
    st = zb__cuda_read(dev, &null_count, cnt->data, 8, "cudaMemcpy of the null count", err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, total, &chars, err);
  if (st == ZB_OK && n > 0 && total > 0) {
    zb_str_pick_write_kernel<<<blocks, ZB_STR_THREADS>>>(p, n, (const int64_t *)offs->data,
                                                         (char *)chars->data);
    st = zb__cuda_launched("string pick (bytes)", dev, err);
  }
  zb_status ws = zb__cuda_wait("string pick", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  if (st == ZB_OK)
    st = zb_column_make(ZB_STRING, n, 0, valid, offs, chars, NULL, (int64_t)null_count, out,
                        err);
  zb_buffer_release(offs);
  zb_buffer_release(chars);
  zb_buffer_release(valid);
  zb_buffer_release(cnt);
  return st;
}

} /* namespace */

extern "C" zb_status zb__cuda_str(const zb_column *col, const zb_str_args *args,
                                  zb_column **out, zb_error *err) {
  *out = NULL;
  const int dev = col->device.id;
  const int64_t n = col->length, words = (n + 31) / 32;
  const bool nulls = col->validity != NULL && col->null_count > 0;
  ZB_RETURN_NOT_OK(zb__cuda_set_device(dev, err));
  zb_buffer *valid = NULL;
  zb_status st = nulls ? zb__cuda_buffer(dev, words * 4, &valid, err) : ZB_OK;
  const zb_str_op op = args->op;
  if (op != ZB_STR_LEN && op != ZB_STR_CONTAINS && op != ZB_STR_STARTSWITH &&
      op != ZB_STR_ENDSWITH) {
    if (st == ZB_OK) st = zb_str_vary(col, args, valid, out, err);
    zb_buffer_release(valid);
    return st;
  }
  const bool is_len = op == ZB_STR_LEN;
  zb_buffer *data = NULL, *pat = NULL;
  zb_str_args a = *args;
  if (st == ZB_OK) st = zb__cuda_buffer(dev, is_len ? n * 8 : words * 4, &data, err);
  if (st == ZB_OK && !is_len) {
    st = zb__cuda_upload(dev, args->pat, args->pat_len, &pat, err);
    if (st == ZB_OK) a.pat = (const char *)pat->data;
  }
  if (st == ZB_OK && n > 0) {
    zb_str_fixed_kernel<<<zb__cuda_blocks(dev, n, ZB_STR_THREADS), ZB_STR_THREADS>>>(
        zb_dstr_of(col), n, a, is_len ? (int64_t *)data->data : NULL,
        is_len ? NULL : (uint32_t *)data->data, nulls ? (uint32_t *)valid->data : NULL);
    st = zb__cuda_launched(is_len ? "str.len" : "string match", dev, err);
  }
  zb_status ws = zb__cuda_wait("string operation", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  if (st == ZB_OK)
    st = zb_column_make(is_len ? ZB_INT64 : ZB_BOOL, n, 0, valid, data, NULL, NULL,
                        nulls ? col->null_count : 0, out, err);
  zb_buffer_release(valid);
  zb_buffer_release(data);
  zb_buffer_release(pat);
  return st;
}

extern "C" zb_status zb__cuda_dt_field(const zb_column *col, zb_dt_field field,
                                       int64_t offset_s, zb_column **out, zb_error *err) {
  *out = NULL;
  static const int64_t per_sec_of[4] = {1, 1000, 1000000, 1000000000};
  const int dev = col->device.id;
  const int64_t n = col->length, words = (n + 31) / 32;
  const bool nulls = col->validity != NULL && col->null_count > 0;
  const int64_t per_sec = col->type == ZB_TIMESTAMP ? per_sec_of[col->unit] : 0;
  ZB_RETURN_NOT_OK(zb__cuda_set_device(dev, err));
  zb_buffer *valid = NULL, *data = NULL, *bad = NULL;
  unsigned long long first_bad = ~0ull;
  zb_status st = nulls ? zb__cuda_buffer(dev, words * 4, &valid, err) : ZB_OK;
  if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 4, &data, err);
  if (st == ZB_OK) st = zb__cuda_upload(dev, &first_bad, 8, &bad, err);
  if (st == ZB_OK && n > 0) {
    zb_dt_kernel<<<zb__cuda_blocks(dev, n, ZB_STR_THREADS), ZB_STR_THREADS>>>(
        col->data->data, col->offset, nulls ? (const uint8_t *)col->validity->data : NULL, n,
        per_sec, offset_s, field, (int32_t *)data->data,
        nulls ? (uint32_t *)valid->data : NULL, (unsigned long long *)bad->data);
    st = zb__cuda_launched("dt field", dev, err);
  }
  if (st == ZB_OK)
    st = zb__cuda_read(dev, &first_bad, bad->data, 8, "cudaMemcpy of the dt field's check", err);
  zb_status ws = zb__cuda_wait("dt field", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  if (st == ZB_OK && first_bad != ~0ull)
    st = zb_error_set(err, ZB_EOVERFLOW, "row %lld: the year does not fit in int32",
                      (long long)first_bad);
  if (st == ZB_OK)
    st = zb_column_make(ZB_INT32, n, 0, valid, data, NULL, NULL, nulls ? col->null_count : 0,
                        out, err);
  zb_buffer_release(valid);
  zb_buffer_release(data);
  zb_buffer_release(bad);
  return st;
}

extern "C" zb_status zb__cuda_str_compare(zb_binary_op op, const zb_column *a, bool a_scalar,
                                          const zb_column *b, bool b_scalar, zb_column **out,
                                          zb_error *err) {
  *out = NULL;
  const int mask = zb__cmp_mask(op);
  if (mask == 0) /* the table sends only comparisons */
    return zb_error_set(err, ZB_ETYPE, "%s is not defined for strings", zb_binary_op_name(op));
  const zb_column *col = a_scalar ? b : a;
  const int dev = col->device.id;
  const int64_t n = col->length, words = (n + 31) / 32;
  /* a validity bitmap only where a null can come out, as on the CPU */
  const bool nulls = a->null_count > 0 || b->null_count > 0;
  ZB_RETURN_NOT_OK(zb__cuda_set_device(dev, err));
  zb_buffer *bits = NULL, *valid = NULL, *cnt = NULL;
  unsigned long long null_count = 0;
  zb_status st = zb__cuda_buffer(dev, words * 4, &bits, err);
  if (st == ZB_OK && nulls) st = zb__cuda_buffer(dev, words * 4, &valid, err);
  if (st == ZB_OK) st = zb__cuda_upload(dev, &null_count, 8, &cnt, err);
  if (st == ZB_OK && n > 0) {
    zb_str_cmp_kernel<<<zb__cuda_blocks(dev, n, ZB_STR_THREADS), ZB_STR_THREADS>>>(
        zb_dstr_of(a), a_scalar, zb_dstr_of(b), b_scalar, n, mask, (uint32_t *)bits->data,
        nulls ? (uint32_t *)valid->data : NULL, (unsigned long long *)cnt->data);
    st = zb__cuda_launched("string comparison", dev, err);
  }
  if (st == ZB_OK)
    st = zb__cuda_read(dev, &null_count, cnt->data, 8, "cudaMemcpy of the null count", err);
  zb_status ws = zb__cuda_wait("string comparison", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  if (st == ZB_OK)
    st = zb_column_make(ZB_BOOL, n, 0, valid, bits, NULL, NULL, (int64_t)null_count, out, err);
  zb_buffer_release(bits);
  zb_buffer_release(valid);
  zb_buffer_release(cnt);
  return st;
}

extern "C" zb_status zb__cuda_str_fill_null(const zb_column *col, const zb_column *value,
                                            zb_column **out, zb_error *err) {
  zb_str_pick p;
  memset(&p, 0, sizeof p);
  p.a = zb_dstr_of(col);
  p.b = zb_dstr_of(value);
  p.bs = true;
  p.fill = true;
  return zb_str_pick_run(col->device.id, p, col->length, value->null_count > 0, out, err);
}

extern "C" zb_status zb__cuda_str_where(const zb_column *cond, bool mask, const zb_column *a,
                                        const zb_column *b, bool b_scalar, zb_column **out,
                                        zb_error *err) {
  zb_str_pick p;
  memset(&p, 0, sizeof p);
  p.a = zb_dstr_of(a);
  p.b = zb_dstr_of(b);
  p.bs = b_scalar;
  p.cond = (const uint8_t *)cond->data->data;
  p.cond_valid = cond->validity != NULL && cond->null_count > 0
                     ? (const uint8_t *)cond->validity->data
                     : NULL;
  p.cond_off = cond->offset;
  p.mask = mask;
  const bool nulls = a->null_count > 0 || b->null_count > 0 || cond->null_count > 0;
  return zb_str_pick_run(a->device.id, p, a->length, nulls, out, err);
}
