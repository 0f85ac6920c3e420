/*
 * kernels.h -- what the CPU compute kernels (src/cpu/arith.c, compare.c,
 * cast.c, select.c, sort.c, convert.c) share: bitmap word access, block
 * conversion between numeric types, and the CPU entry points that
 * src/core/compute_ops.c calls after validating the arguments.
 *
 * Kernels work in morsels of ZB_MORSEL_ROWS rows (a multiple of 64, so every
 * morsel starts on a byte of an output bitmap and morsels never share a
 * byte) and inside a morsel in blocks of ZB_BLOCK rows converted to one
 * type on the stack; the type switch is outside the row loops.
 */
#ifndef ZAMBEZI_CPU_KERNELS_H
#define ZAMBEZI_CPU_KERNELS_H

#include <string.h>

#include "core/internal.h"
#include "core/values.h"


/* A mask of the low m bits (m in 0..64). */
static inline uint64_t zb__mask(int m) {
  return m >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << m) - 1;
}

/* nbits (1..64) bits from bit position start; bit k = position start + k. */
static inline uint64_t zb__load_bits(const uint8_t *bits, int64_t start, int nbits) {
  int64_t byte = start >> 3;
  int shift = (int)(start & 7);
  if (nbits == 64) { /* whole words: fixed-size loads, no library call */
    uint64_t lo;
    memcpy(&lo, bits + byte, 8);
    if (shift == 0) return lo;
    return (lo >> shift) | ((uint64_t)bits[byte + 8] << (64 - shift));
  }
  int nbytes = (shift + nbits + 7) >> 3;
  unsigned char tmp[16] = {0};
  memcpy(tmp, bits + byte, (size_t)nbytes);
  uint64_t lo;
  memcpy(&lo, tmp, 8);
  uint64_t w = lo >> shift;
  if (shift != 0 && nbytes == 9) w |= (uint64_t)tmp[8] << (64 - shift);
  return w & zb__mask(nbits);
}

/* Validity of rows [row, row + m) of c as a word (all ones without nulls). */
static inline uint64_t zb__valid_word(const zb_column *c, int64_t row, int m) {
  if (c->validity == NULL) return zb__mask(m);
  return zb__load_bits((const uint8_t *)c->validity->data, c->offset + row, m);
}

/* Store the low m bits of w at bit position start (a multiple of 8),
 * touching only the bytes those bits occupy (the last one is overwritten
 * whole: callers own it). */
static inline void zb__store_bits(uint8_t *bits, int64_t start, uint64_t w, int m) {
  if (m == 64) { /* a whole word: one store, not a memcpy call */
    memcpy(bits + (start >> 3), &w, 8);
    return;
  }
  unsigned char tmp[8];
  memcpy(tmp, &w, 8);
  memcpy(bits + (start >> 3), tmp, (size_t)((m + 7) >> 3));
}



/* Pack n (<= 64) bytes, each 0 or 1, into the low n bits of a word (bit q =
 * byte q).  Kernels write per-row results as bytes in a loop the compiler
 * vectorizes, then pack them eight at a time with one multiply. */
static inline uint64_t zb__pack_bools(const uint8_t *r, int n) {
  uint64_t w = 0;
  int q = 0;
  for (; q + 8 <= n; q += 8) {
    uint64_t x;
    memcpy(&x, r + q, 8);
    w |= ((x * UINT64_C(0x0102040810204080)) >> 56) << q;
  }
  for (; q < n; q++) w |= (uint64_t)(r[q] & 1) << q;
  return w;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* CPU features for kernels dispatched at run time.  libgcc fills in the
 * CPU model before any constructor of ours runs, so asking is one load. */
static inline bool zb__has_avx2(void) { return __builtin_cpu_supports("avx2"); }
static inline bool zb__has_avx512f(void) { return __builtin_cpu_supports("avx512f"); }
/* pext is microcoded (slow) on AMD before family 19h. */
static inline bool zb__has_fast_pext(void) {
  return __builtin_cpu_supports("bmi2") && !__builtin_cpu_is("amdfam15h") &&
         !__builtin_cpu_is("amdfam17h");
}
#endif



/* Copy len <= 16 bytes touching only [src, src + len) and [dst, dst +
 * len): two overlapping 8- or 4-byte moves, or three byte moves -- for a
 * short string at the end of a buffer, where a 16-byte copy would run past
 * it (and a libc memcpy call would cost more than the copy). */
static inline void zb__copy_short(char *dst, const char *src, int64_t len) {
  if (len >= 8) {
    uint64_t a, b;
    memcpy(&a, src, 8);
    memcpy(&b, src + len - 8, 8);
    memcpy(dst, &a, 8);
    memcpy(dst + len - 8, &b, 8);
  } else if (len >= 4) {
    uint32_t a, b;
    memcpy(&a, src, 4);
    memcpy(&b, src + len - 4, 4);
    memcpy(dst, &a, 4);
    memcpy(dst + len - 4, &b, 4);
  } else if (len > 0) {
    char a = src[0], b = src[len / 2], c = src[len - 1];
    dst[0] = a;
    dst[len / 2] = b;
    dst[len - 1] = c;
  }
}



/* A new string column of n rows: row i is string idx[i] of src (idx from
 * i32 or i64, exactly one non-NULL); rows where `valid` (if not NULL) is
 * null get "".  No validity is set on the result. */
zb_status zb__gather_strings(const zb_column *src, const int32_t *i32, const int64_t *i64,
                             int64_t n, const zb_column *valid, zb_column **out,
                             zb_error *err);

/* Rearrange a[lo, hi) (no NaN) so that a[k] has rank k, smaller or equal
 * values before it, larger or equal after (reduce_stats.c). */
void zb__select_kth(double *a, int64_t lo, int64_t hi, int64_t k);

/* Sort a[0, n) ascending on one thread (LSD radix on bytes, skipping a
 * byte all values share; tmp: room for n): for the few thousand to few
 * million (first row, group) pairs that number groups (src/cpu/sort.c). */
void zb__sort_u64_serial(uint64_t *a, uint64_t *tmp, int64_t n);

/* Stable sort of idx[0, n) by the string of row (rows ? rows[idx[i]] :
 * idx[i]) of string column c, byte-wise ascending. */
zb_status zb__sort_rows_by_string(const zb_column *c, const int64_t *rows, int64_t *idx,
                                  int64_t n, zb_error *err);

/* What zb__cpu_pairwise_sum adds per row: the value (float32 in float32,
 * as numpy's own sum; or in double), or its squared deviation from a
 * center. */
typedef enum zb_pairwise_mode {
  ZB_PAIRWISE_SUM,
  ZB_PAIRWISE_SUM_F64,
  ZB_PAIRWISE_SQDEV
} zb_pairwise_mode;

/* numpy's pairwise sum (pandas' order) of the mode's term of each valid,
 * non-NaN row of a numeric column, and how many rows those are
 * (reduce_pairwise.c). */
zb_status zb__cpu_pairwise_sum(const zb_column *col, zb_pairwise_mode mode, double center,
                               double *sum, int64_t *count, zb_error *err);
/* numpy's pairwise sum of rows [row, row + n) of col, in double (f32: in
 * float, as numpy sums float32), in the calling thread (missing rows add 0). */
double zb__pairwise_rows(const zb_column *col, int64_t row, int64_t n, bool f32);

/* ---- CPU entry points (called by the switch in src/cpu/backend.c, with
 * arguments validated by src/core) ---------------------------------------- */

zb_status zb__cpu_reduce(const zb_column *col, zb_reduce_op op, zb_scalar *out,
                         zb_error *err);

zb_status zb__cpu_binary(zb_binary_op op, const zb_column *a, bool a_scalar,
                         const zb_column *b, bool b_scalar, zb_type_id compute,
                         zb_type_id result, zb_column **out, zb_error *err);
zb_status zb__cpu_compare(zb_binary_op op, const zb_column *a, bool a_scalar,
                          const zb_column *b, bool b_scalar, zb_type_id compute,
                          zb_column **out, zb_error *err);
zb_status zb__cpu_logical(zb_binary_op op, const zb_column *a, bool a_scalar,
                          const zb_column *b, bool b_scalar, zb_column **out, zb_error *err);
zb_status zb__cpu_unary(zb_unary_op op, const zb_column *col, zb_column **out, zb_error *err);
zb_status zb__cpu_cast(const zb_column *col, zb_type_id target, zb_time_unit unit,
                       zb_column **out, zb_error *err);
zb_status zb__cpu_is_null(const zb_column *col, bool want_valid, zb_column **out,
                          zb_error *err);
zb_status zb__cpu_fill_null(const zb_column *col, const zb_column *value, zb_column **out,
                            zb_error *err);
/* ffill / bfill (src/cpu/fill_scan.c; see zb_column_fill_forward); limit
 * INT64_MAX for none. */
zb_status zb__cpu_fill_scan(const zb_column *col, bool backward, int64_t limit,
                            zb_fill_area area, zb_column **out, zb_error *err);
/* cumsum / cumprod / cummin / cummax (src/cpu/cumulative.c; see
 * zb_column_cumulative), per group when group_ids is not NULL; result is
 * the output type (zb_cum_result_type). */
zb_status zb__cpu_cumulative(const zb_column *col, const zb_column *group_ids, int64_t n_groups,
                             zb_cum_op op, bool skipna, zb_type_id result, zb_column **out,
                             zb_error *err);
/* diff of a whole column in one pass (src/cpu/diff.c; see zb_column_diff);
 * result is ZB_FLOAT32 or ZB_FLOAT64. */
zb_status zb__cpu_diff(const zb_column *col, int64_t periods, zb_type_id result,
                       zb_column **out, zb_error *err);
/* rank (src/cpu/rank.c; see zb_column_rank), per group when group_ids is
 * not NULL; out is float64. */
zb_status zb__cpu_rank(const zb_column *col, const zb_column *group_ids, int64_t n_groups,
                       zb_rank_method method, bool ascending, zb_rank_na na_option, bool pct,
                       zb_column **out, zb_error *err);
/* pandas' rolling / expanding statistics (src/cpu/rolling.c; see
 * zb_column_rolling), per group when group_ids is not NULL, over the
 * windows starts / ends when they are not NULL; other: the column paired
 * with col (cov, corr), else NULL. */
zb_status zb__cpu_rolling(const zb_column *col, const zb_column *other,
                          const zb_column *group_ids, int64_t n_groups,
                          const zb_column *starts, const zb_column *ends, zb_roll_op op,
                          const zb_rolling_options *opt, zb_column **out, zb_error *err);
/* pandas' ewm statistics (src/cpu/ewm.c; see zb_table_ewm). */
zb_status zb__cpu_ewm(const zb_table *t, const zb_column *group_ids, int64_t n_groups,
                      const zb_column *times, zb_ewm_op op, const zb_ewm_options *opt,
                      zb_table **out, zb_error *err);
/* Filter n_cols host columns by one mask in one pass of parallel work;
 * outs[c] get new references (all NULL on failure). */
zb_status zb__cpu_filter_columns(int64_t n_cols, const zb_column *const *cols,
                                 const zb_column *mask, zb_column **outs, zb_error *err);
zb_status zb__cpu_filter(const zb_column *col, const zb_column *mask, zb_column **out,
                         zb_error *err);
zb_status zb__cpu_take(const zb_column *col, const zb_column *indices, zb_column **out,
                       zb_error *err);
/* Take the rows `indices` of n_cols host columns; fixed-width columns in
 * one parallel loop, morsel by morsel.  outs[c] get new references (all
 * NULL on failure, *failed: the column whose output could not be made). */
zb_status zb__cpu_take_columns(int64_t n_cols, const zb_column *const *cols,
                               const zb_column *indices, zb_column **outs, int64_t *failed,
                               zb_error *err);
/* Take / filter of a list column (src/cpu/list.c): the offsets of the
 * chosen rows and their child ranges gathered morsel by morsel. */
zb_status zb__cpu_list_take(const zb_column *col, const zb_column *indices, zb_column **out,
                            zb_error *err);
zb_status zb__cpu_list_filter(const zb_column *col, const zb_column *mask, zb_column **out,
                              zb_error *err);
/* Each list of strings joined with sep (null: a null list or element). */
zb_status zb__cpu_list_join(const zb_column *col, const char *sep, int64_t sep_len,
                            zb_column **out, zb_error *err);
/* Each list as Python's repr of it ("[1, 2]", "['a', None]", lists of
 * lists nested): a string column, null for a null list.  The leaf type is
 * a number, bool or string (checked by zb_list_repr). */
zb_status zb__cpu_list_repr(const zb_column *col, zb_column **out, zb_error *err);
zb_status zb__cpu_sort_indices(const zb_table *t, int64_t n_keys, const int64_t *keys,
                               const bool *ascending, bool nulls_first, zb_column **out,
                               zb_error *err);
/* The values of col sorted (src/cpu/sort.c; see zb_column_sort_values),
 * and when indices is not NULL the permutation that sorts them (see
 * zb_column_sort_values_indices). */
zb_status zb__cpu_sort_values(const zb_column *col, bool ascending, bool nulls_first,
                              zb_column **out, zb_column **indices, zb_error *err);
/* Time zone conversions (src/cpu/tz.c): variant 0 UTC -> wall, 1 wall ->
 * UTC with the zb_tz_ambiguous / zb_tz_nonexistent choices (see
 * zambezi/tz.h); amb: the per-row choices or NULL. */
zb_status zb__cpu_tz(const zb_column *col, const zb_column *amb, int variant,
                     const struct zb_tz *tz, const char *name, int ambiguous, int nonexistent,
                     zb_column **out, zb_error *err);

#endif /* ZAMBEZI_CPU_KERNELS_H */
