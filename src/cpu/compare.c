/*
 * compare.c -- CPU comparisons (eq, ne, lt, le, gt, ge) of numeric, date,
 * timestamp and string operands into bool columns, and Kleene and/or (plain
 * xor) on bool columns.
 *
 * Numeric operands are converted block by block to the compute type; each
 * 64 rows produce one result word (int64 and float64 words with AVX2
 * compares and movemask where the CPU has AVX2).  Strings compare
 * byte-wise (memcmp, then length: zb__bytes_order, shared with the GPU).
 * Bool logic works a 64-bit word at a time on values and validity.
 */
#define _GNU_SOURCE /* memmem, which core/str_row.h uses */
#include "core/dtype_list.h"
#include "core/str_row.h"
#include "cpu/kernels.h"

/* Comparisons of rows [0, m) of blocks x and y into result words (bit q of
 * words[k / 64] = row k + q): per 64 rows, bytes first (a loop the compiler
 * vectorizes), then packed.  One switch per block, not per word. */
#define CMP_LOOP(T, EXPR)                                                       \
  for (int64_t k = 0; k < m; k += 64) {                                         \
    const T *xs_ = (const T *)x + k, *ys_ = (const T *)y + k;                   \
    int mm = (int)ZB_MIN((int64_t)64, m - k);                                   \
    if (mm == 64) {                                                             \
      for (int q = 0; q < 64; q++) {                                            \
        T xv = xs_[q], yv = ys_[q];                                             \
        r_[q] = (uint8_t)(EXPR);                                                \
      }                                                                         \
    } else {                                                                    \
      for (int q = 0; q < mm; q++) {                                            \
        T xv = xs_[q], yv = ys_[q];                                             \
        r_[q] = (uint8_t)(EXPR);                                                \
      }                                                                         \
    }                                                                           \
    words[k / 64] = zb__pack_bools(r_, mm);                                     \
  }

#define CMP_OPS(T)                                                              \
  switch (op) {                                                                 \
    case ZB_OP_EQ: CMP_LOOP(T, xv == yv) break;                                 \
    case ZB_OP_NE: CMP_LOOP(T, xv != yv) break;                                 \
    case ZB_OP_LT: CMP_LOOP(T, xv < yv) break;                                  \
    case ZB_OP_LE: CMP_LOOP(T, xv <= yv) break;                                 \
    case ZB_OP_GT: CMP_LOOP(T, xv > yv) break;                                  \
    case ZB_OP_GE: CMP_LOOP(T, xv >= yv) break;                                 \
    default: break;                                                             \
  }

ZB_CLONES
static void cmp_block(zb_binary_op op, zb_type_id t, const void *x, const void *y, int64_t m,
                      uint64_t *words) {
  uint8_t r_[64];
  switch (t) {
    case ZB_BOOL: CMP_OPS(uint8_t) break;
#define CMP_CASE(ID, T, NAME, U) case ID: CMP_OPS(T) break;
    ZB_FOR_EACH_NUMERIC_TYPE(CMP_CASE)
#undef CMP_CASE
    default: break;
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ZB_CMP_AVX2 1

/* int64 and float64 comparisons with AVX2: 4 rows per compare, their
 * results taken as 4 bits with movemask (the portable loop above packs
 * bytes instead, several times the instructions).  Whole words of 64 rows
 * only; the caller does the rest. */
#define CMP_WORDS_AVX2(LOAD, CMP, FULL)                                         \
  for (int64_t k = 0; k + 64 <= m; k += 64) {                                   \
    uint64_t w = 0;                                                             \
    for (int q = 0; q < 64; q += 4) {                                           \
      __m256i xv_ = LOAD(xs + k + q), yv_ = LOAD(ys + k + q);                   \
      w |= (uint64_t)(unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(CMP)) << q; \
    }                                                                           \
    words[k / 64] = FULL ? ~w : w;                                              \
  }

__attribute__((target("avx2"))) static void cmp_words_i64_avx2(zb_binary_op op,
                                                               const int64_t *xs,
                                                               const int64_t *ys, int64_t m,
                                                               uint64_t *words) {
#define LD_(p) _mm256_loadu_si256((const __m256i *)(p))
  switch (op) { /* lt = gt with swapped operands; le, ge, ne = complements */
    case ZB_OP_EQ: CMP_WORDS_AVX2(LD_, _mm256_cmpeq_epi64(xv_, yv_), false) break;
    case ZB_OP_NE: CMP_WORDS_AVX2(LD_, _mm256_cmpeq_epi64(xv_, yv_), true) break;
    case ZB_OP_GT: CMP_WORDS_AVX2(LD_, _mm256_cmpgt_epi64(xv_, yv_), false) break;
    case ZB_OP_LT: CMP_WORDS_AVX2(LD_, _mm256_cmpgt_epi64(yv_, xv_), false) break;
    case ZB_OP_LE: CMP_WORDS_AVX2(LD_, _mm256_cmpgt_epi64(xv_, yv_), true) break;
    case ZB_OP_GE: CMP_WORDS_AVX2(LD_, _mm256_cmpgt_epi64(yv_, xv_), true) break;
    default: break;
  }
#undef LD_
}

/* Floats: the predicates C's operators have (ordered, except != which is
 * true with a NaN). */
__attribute__((target("avx2"))) static void cmp_words_f64_avx2(zb_binary_op op,
                                                               const double *xs,
                                                               const double *ys, int64_t m,
                                                               uint64_t *words) {
#define LD_(p) _mm256_castpd_si256(_mm256_loadu_pd(p))
#define FC_(P) \
  _mm256_castpd_si256(_mm256_cmp_pd(_mm256_castsi256_pd(xv_), _mm256_castsi256_pd(yv_), P))
  switch (op) {
    case ZB_OP_EQ: CMP_WORDS_AVX2(LD_, FC_(_CMP_EQ_OQ), false) break;
    case ZB_OP_NE: CMP_WORDS_AVX2(LD_, FC_(_CMP_NEQ_UQ), false) break;
    case ZB_OP_GT: CMP_WORDS_AVX2(LD_, FC_(_CMP_GT_OQ), false) break;
    case ZB_OP_LT: CMP_WORDS_AVX2(LD_, FC_(_CMP_LT_OQ), false) break;
    case ZB_OP_LE: CMP_WORDS_AVX2(LD_, FC_(_CMP_LE_OQ), false) break;
    case ZB_OP_GE: CMP_WORDS_AVX2(LD_, FC_(_CMP_GE_OQ), false) break;
    default: break;
  }
#undef FC_
#undef LD_
}
#undef CMP_WORDS_AVX2

#endif

/* Comparison words of a block: whole 64-row words of int64 and float64
 * with AVX2 where the CPU has it, everything else by cmp_block. */
static void cmp_words(zb_binary_op op, zb_type_id t, const void *x, const void *y, int64_t m,
                      uint64_t *words) {
#ifdef ZB_CMP_AVX2
  if ((t == ZB_INT64 || t == ZB_FLOAT64) && m >= 64 && zb__has_avx2()) {
    int64_t whole = m / 64 * 64;
    if (t == ZB_INT64)
      cmp_words_i64_avx2(op, (const int64_t *)x, (const int64_t *)y, whole, words);
    else
      cmp_words_f64_avx2(op, (const double *)x, (const double *)y, whole, words);
    if (whole < m)
      cmp_block(op, t, (const char *)x + whole * 8, (const char *)y + whole * 8, m - whole,
                words + whole / 64);
    return;
  }
#endif
  cmp_block(op, t, x, y, m, words);
}


typedef struct cmp_job {
  zb_binary_op op;
  const zb_column *a, *b;
  bool as, bs;
  zb_type_id t;
  zb_column *out;
} cmp_job;

static void cmp_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  const cmp_job *j = (const cmp_job *)ctx;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, j->out->length - start);
  uint64_t abuf[ZB_BLOCK], bbuf[ZB_BLOCK];
  uint8_t *od = (uint8_t *)j->out->data->data;
  uint8_t *ov = j->out->validity ? (uint8_t *)j->out->validity->data : NULL;
  bool str = j->t == ZB_STRING;
  zb_type_id pt = zb__physical(j->t);
  uint64_t asv = j->as && zb_column_is_valid(j->a, 0) ? ~UINT64_C(0) : 0;
  uint64_t bsv = j->bs && zb_column_is_valid(j->b, 0) ? ~UINT64_C(0) : 0;
  if (!str) {
    if (j->as) zb__fill_scalar_block(pt, abuf, j->a);
    if (j->bs) zb__fill_scalar_block(pt, bbuf, j->b);
  }
  int mask = zb__cmp_mask(j->op);
  for (int64_t blk = 0; blk < n; blk += ZB_BLOCK) {
    int64_t m = ZB_MIN((int64_t)ZB_BLOCK, n - blk), row = start + blk;
    uint64_t words[ZB_BLOCK / 64];
    if (!str) {
      const void *x = j->as ? (const void *)abuf : zb__block_values(j->a, pt, row, m, abuf);
      const void *y = j->bs ? (const void *)bbuf : zb__block_values(j->b, pt, row, m, bbuf);
      cmp_words(j->op, pt, x, y, m, words);
    }
    for (int64_t k = 0; k < m; k += 64) {
      int mm = (int)ZB_MIN((int64_t)64, m - k);
      uint64_t va = j->as ? asv & zb__mask(mm) : zb__valid_word(j->a, row + k, mm);
      uint64_t vb = j->bs ? bsv & zb__mask(mm) : zb__valid_word(j->b, row + k, mm);
      uint64_t r = 0;
      if (str) {
        for (int q = 0; q < mm; q++) {
          int64_t la, lb;
          const char *pa = zb__str(j->a, j->as ? 0 : row + k + q, &la);
          const char *pb = zb__str(j->b, j->bs ? 0 : row + k + q, &lb);
          int o = zb__bytes_order((const unsigned char *)pa, la, (const unsigned char *)pb, lb);
          r |= (uint64_t)((mask >> o) & 1) << q;
        }
      } else {
        r = words[k / 64];
      }
      zb__store_bits(od, row + k, r & va & vb, mm);
      if (ov != NULL) zb__store_bits(ov, row + k, va & vb, mm);
    }
  }
}

static zb_status run_job(int64_t n, zb_task_fn fn, void *job, zb_column *o, zb_column **out,
                         zb_error *err) {
  zb_status st = zb_parallel_for(zb__morsels(n), fn, job, err);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  zb_column_recount_nulls(o);
  *out = o;
  return ZB_OK;
}

zb_status zb__cpu_compare(zb_binary_op op, const zb_column *a, bool a_scalar,
                          const zb_column *b, bool b_scalar, zb_type_id compute,
                          zb_column **out, zb_error *err) {
  *out = NULL;
  int64_t n = a_scalar ? b->length : a->length;
  zb_column *o = NULL;
  /* A validity bitmap only where a null can come out. */
  bool nulls = a->null_count > 0 || b->null_count > 0;
  ZB_RETURN_NOT_OK(zb__new_like(NULL, ZB_BOOL, n, nulls, 0, &o, err));
  cmp_job j = {op, a, b, a_scalar, b_scalar, compute, o};
  return run_job(n, cmp_morsel, &j, o, out, err);
}

/* ---- Kleene logic -------------------------------------------------------- */

static void logic_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  const cmp_job *j = (const cmp_job *)ctx;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, j->out->length - start);
  uint8_t *od = (uint8_t *)j->out->data->data;
  uint8_t *ov = j->out->validity ? (uint8_t *)j->out->validity->data : NULL;
  const zb_column *a = j->a, *b = j->b;
  uint64_t asv = j->as && zb_column_is_valid(a, 0) ? ~UINT64_C(0) : 0;
  uint64_t bsv = j->bs && zb_column_is_valid(b, 0) ? ~UINT64_C(0) : 0;
  uint64_t asx = j->as && zb_bit_get((const uint8_t *)a->data->data, a->offset) ? ~UINT64_C(0) : 0;
  uint64_t bsx = j->bs && zb_bit_get((const uint8_t *)b->data->data, b->offset) ? ~UINT64_C(0) : 0;
  for (int64_t k = 0; k < n; k += 64) {
    int mm = (int)ZB_MIN((int64_t)64, n - k);
    int64_t row = start + k;
    uint64_t msk = zb__mask(mm);
    uint64_t va = j->as ? asv & msk : zb__valid_word(a, row, mm);
    uint64_t vb = j->bs ? bsv & msk : zb__valid_word(b, row, mm);
    uint64_t xa = (j->as ? asx : zb__load_bits((const uint8_t *)a->data->data, a->offset + row, mm)) & va;
    uint64_t xb = (j->bs ? bsx : zb__load_bits((const uint8_t *)b->data->data, b->offset + row, mm)) & vb;
    uint64_t val, valid;
    if (j->op == ZB_OP_AND) {
      val = xa & xb;
      valid = (va & vb) | (va & ~xa) | (vb & ~xb);
    } else if (j->op == ZB_OP_OR) {
      val = xa | xb;
      valid = (va & vb) | xa | xb;
    } else {
      val = xa ^ xb;
      valid = va & vb;
    }
    valid &= msk;
    zb__store_bits(od, row, val & valid, mm);
    if (ov != NULL) zb__store_bits(ov, row, valid, mm);
  }
}

zb_status zb__cpu_logical(zb_binary_op op, const zb_column *a, bool a_scalar,
                          const zb_column *b, bool b_scalar, zb_column **out, zb_error *err) {
  *out = NULL;
  int64_t n = a_scalar ? b->length : a->length;
  zb_column *o = NULL;
  ZB_RETURN_NOT_OK(
      zb__new_like(NULL, ZB_BOOL, n, a->null_count > 0 || b->null_count > 0, 0, &o, err));
  cmp_job j = {op, a, b, a_scalar, b_scalar, ZB_BOOL, o};
  return run_job(n, logic_morsel, &j, o, out, err);
}
