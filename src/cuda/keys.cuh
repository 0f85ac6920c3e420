/*
 * keys.cuh -- what the CUDA joins (join.cu) and distinct-value operations
 * (hash.cu) share: key columns as kernels read them, each row's normalized
 * 64-bit value, and the grouping of rows by equal keys through a stable
 * radix sort (implemented in hash.cu).
 *
 * Key identity is the CPU's (src/cpu/hash.c): a row's value in a key
 * column is "normalized" to 64 bits -- integers by value (sign-extended),
 * floats as the bits of the double with -0.0 made 0.0 and every NaN one
 * pattern, bools 0/1, dates and timestamps their integer, categoricals
 * their code (a categorical's dictionary holds distinct strings, so equal
 * codes <=> equal categories), strings their bytes -- and two rows are
 * equal when in every key column both are null, or both valid with equal
 * normalized values (strings: equal bytes).  The sort order of the keys means nothing; only
 * equality is used.
 *
 * A key column may span two sources: rows [0, n_a) are rows of side 0 and
 * rows [n_a, n) rows r - n_a of side 1 (a join's left and right keys, or
 * isin's column and values), so both are grouped by one sort.
 *
 * Grouping: the row numbers 0..n-1 are sorted stably by each key column
 * from the last to the first (LSD), first by the normalized value (a null
 * row counts as 0), then, when the column has nulls and valid rows, stably
 * by the null flag (nulls last); a string column is merge-sorted by its
 * bytes, nulls last, in one stable pass.  Equal rows end up adjacent and, because
 * every pass is stable, in ascending row order: within a group all side-0
 * rows come before all side-1 rows.  A kernel then flags the positions
 * where a group starts and an exclusive scan numbers the groups.
 */
#ifndef ZAMBEZI_CUDA_KEYS_CUH
#define ZAMBEZI_CUDA_KEYS_CUH

#include <stdint.h>

#include "core/dtype_list.h"
#include "core/str_row.h"
#include "cuda/cuda_internal.h"

#define ZB_KEY_THREADS 256 /* threads per block: whole warps */

/* Grid-stride loop over i in [0, n). */
#define ZB_KEY_FOR(i, n)                                                         \
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);      \
       i += (int64_t)gridDim.x * blockDim.x)

/* Grid-stride loop of whole warps over w in [0, n); lane = threadIdx.x & 31.
 * The bound is the same for every lane, so all reach a __ballot_sync. */
#define ZB_KEY_FOR_WARP(w, n)                                                    \
  for (int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < (n); \
       w += ((int64_t)gridDim.x * blockDim.x) >> 5)

/* One source of a key column: row r is at physical position off + r. */
struct zb_kside {
  const void *data;     /* values; bool: a bitmap; string: int64 offsets */
  const uint8_t *valid; /* NULL: no nulls */
  const unsigned char *chars; /* string: the bytes */
  int64_t off;
  int type; /* zb_type_id */
};

/* A key column: side 0 for rows < n_a, side 1 for the rest. */
struct zb_kcol {
  zb_kside s[2];
};

/* The normalized bits of a double (src/cpu/hash.c norm_double). */
static __device__ __forceinline__ uint64_t zb_norm_double(double d) {
  if (d == 0.0) d = 0.0; /* -0.0 -> 0.0 */
  uint64_t b = (uint64_t)__double_as_longlong(d);
  if (d != d) b = 0x7ff8000000000000ull;
  return b;
}

/* Row r's value in key column c: false when it is null; else true with its
 * normalized value in *v. */
static __device__ __forceinline__ bool zb_key_value(const zb_kcol &c, int64_t n_a, int64_t r,
                                                    uint64_t *v) {
  const int side = r >= n_a ? 1 : 0;
  const zb_kside &k = c.s[side];
  const int64_t p = k.off + (side ? r - n_a : r);
  if (k.valid != NULL && !zb__cuda_bit(k.valid, p)) return false;
  switch (k.type) {
  case ZB_BOOL: *v = zb__cuda_bit((const uint8_t *)k.data, p) ? 1u : 0u; break;
  /* integers sign- or zero-extended (modulo 2^64) */
#define ZB_KEY_INT(ID, T, NAME, U) case ID: *v = (uint64_t)((const T *)k.data)[p]; break;
#define ZB_KEY_FLOAT(ID, T, NAME, U)                                                    \
  case ID: *v = zb_norm_double((double)((const T *)k.data)[p]); break;
  ZB_FOR_EACH_INTEGER_TYPE(ZB_KEY_INT)
  ZB_FOR_EACH_TEMPORAL_TYPE(ZB_KEY_INT)
  ZB_FOR_EACH_FLOAT_TYPE(ZB_KEY_FLOAT)
#undef ZB_KEY_INT
#undef ZB_KEY_FLOAT
  case ZB_CATEGORICAL: *v = (uint64_t)((const int32_t *)k.data)[p]; break;
  default: *v = 0; break; /* strings: compared by zb_key_same_string */
  }
  return true;
}

/* Whether rows r and q (both valid) of string key column c hold the same
 * bytes. */
static __device__ __forceinline__ bool zb_key_same_string(const zb_kcol &c, int64_t n_a,
                                                          int64_t r, int64_t q) {
  const int sr = r >= n_a ? 1 : 0, sq = q >= n_a ? 1 : 0;
  const zb_kside &kr = c.s[sr], &kq = c.s[sq];
  const int64_t *orr = (const int64_t *)kr.data + kr.off + (sr ? r - n_a : r);
  const int64_t *oq = (const int64_t *)kq.data + kq.off + (sq ? q - n_a : q);
  const int64_t len = orr[1] - orr[0];
  return oq[1] - oq[0] == len && zb__bytes_equal(kr.chars + orr[0], kq.chars + oq[0], len);
}

/* Rows grouped by equal keys (see the file comment).  Buffers are device
 * memory on the grouping's device, owned by the struct. */
struct zb_groups {
  int64_t n;        /* rows grouped */
  int64_t n_groups; /* distinct keys */
  zb_buffer *perm;  /* n int64: the rows in group order */
  zb_buffer *ex;    /* n + 1 int64: position i starts a group iff ex[i + 1] != ex[i];
                       its group is ex[i + 1] - 1; ex[n] = n_groups */
  zb_buffer *starts; /* n + 1 int64: first position of group g; starts[n_groups] = n */
  zb_buffer *miss;   /* n bytes: 1 where the row at position i has a null key */
};

/* Group rows [0, n) by the n_cols key columns cols[] (host array; n_a as
 * above).  On failure g holds nothing.  Work is waited for. */
zb_status zb__cuda_group(int dev, const zb_kcol *cols, int64_t n_cols, int64_t n_a, int64_t n,
                         zb_groups *g, zb_error *err);
void zb__cuda_groups_reset(zb_groups *g);

/* Side s of *c read from column col (on the device). */
void zb__cuda_kside(zb_kcol *c, int s, const zb_column *col);

/* Whether col can be a key here (a categorical needs its dictionary, whose
 * strings are distinct by the column invariant of zambezi.h: it compares
 * by code).  *ok false: the caller declines.  Never fails (the status is
 * kept for the callers' shape). */
zb_status zb__cuda_key_ok(const zb_column *col, bool *ok, zb_error *err);

/* A new INT64 column of m rows over buf (no nulls); buf stays the
 * caller's reference. */
zb_status zb__cuda_index_column(zb_buffer *buf, int64_t m, zb_column **out, zb_error *err);

#endif /* ZAMBEZI_CUDA_KEYS_CUH */
