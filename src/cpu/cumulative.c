/*
 * cumulative.c -- pandas' cumsum / cumprod / cummin / cummax on the CPU
 * (ZB__OP_CUMULATIVE, the kernel behind zb_column_cumulative and
 * zb_column_group_cumulative).
 *
 * A missing row (a null, or NaN in a float column: v != v, which the
 * compiler drops for integer types) is null in the result.  skipna: the
 * running value skips it; !skipna: every later row (of the group) is null.
 *
 * Whole column: a morsel-parallel scan on the thread pool that reads each
 * input row from memory once.  Each morsel
 *
 *   1. folds its valid rows into a total, and notes whether it has a valid
 *      row and a missing one (the last morsel skips this);
 *   2. waits for the morsel before to publish its carry -- the fold of
 *      every morsel before, and whether a missing row came before (for
 *      !skipna) -- and publishes its own (carry folded with its total);
 *   3. scans its rows again from its carry, while they are still in the
 *      core's cache, and writes their running values and validity (a
 *      morsel is a multiple of 64 rows, so morsels never share a byte of
 *      the output bitmap).
 *
 * Morsels are claimed in order, so a morsel waits only for the totals of
 * those before it, which are running or done, not for their writes.  The
 * carries are the same folds of the same totals for any thread count, so
 * the results are too.
 *
 * Per group, while the groups are few enough for a state per group in each
 * of C chunks of rows (n_groups * C <= rows; C is about four per thread):
 * the same three steps in row order, with one state per (chunk, group) --
 *
 *   1. each chunk folds its rows into its groups' totals, and notes which
 *      groups have a valid row and a missing one (in parallel; skipped when
 *      there is one chunk);
 *   2. per group, a carry over the chunks in order (groups in parallel);
 *   3. each chunk scans its rows again from its carries, writing values and
 *      validity (chunks are multiples of 64 rows: whole bitmap words).
 *
 * Rows are read and written in order, and the group states (16 bytes a
 * group) stay in cache for up to ~10^5 groups: pandas' loop, on every
 * core.  Float sums and products per group run as one chunk (step 3
 * alone, in one pass over the rows whatever the group count) and sums
 * with pandas' Kahan step (group_cumsum), so that their last bits are
 * pandas': folding chunk totals would round otherwise.  Measured at 10^7
 * rows, 2 threads: as fast as the two-pass chunks or faster (10 groups 35
 * -> 26 ms, 10^5 groups 60 -> 40 ms).  Otherwise (very many small groups),
 * the rows of each group in row order (the group-by CSR), the buckets of
 * groups in parallel, each group scanned from its first row; validity goes
 * to one byte per row (tasks own rows, not bitmap bytes), packed into the
 * bitmap by a parallel pass over morsels.
 *
 * Accumulators: sums and products of signed integers in int64 (wrapping,
 * done in uint64 so that overflow is defined), of unsigned ones in uint64,
 * of floats in their own type (as numpy); min and max in the column's
 * type.  Every (type, op) pair is a function stamped from the dtype list
 * and chosen once per column: no per-row type switch.
 */
#include <math.h>

#include "cpu/groupby.h"
#include "cpu/kernels.h"
#include "core/dtype_list.h"

/* Rows of a whole column's scan task: a morsel (its input and output
 * stay in a core's L2 between the fold and the scan). */
#define CUM_ROWS ((int64_t)ZB_MORSEL_ROWS)

typedef struct cum_job {
  const zb_column *c;
  bool skipna;
  zb_column *o;
  int64_t M;
  /* per morsel (whole column): what the morsels before it fold to */
  void *carry;    /* their fold, an array of the accumulator type */
  uint8_t *chave; /* one of them has a valid row */
  uint8_t *dead;  /* one of them has a missing row */
  int64_t *ready; /* >= 0 once the morsel has published the next one's carry */
  /* per group */
  const zb__group_csr *csr;
  uint8_t *okb; /* per row: the result row is valid */
  /* per group, in row order */
  const zb_column *ids;
  int64_t ng, C, chunk_rows;
  void *gst;    /* C * ng group states (a type per kernel), chunk-major */
  int64_t *bad; /* per chunk: the first row whose id is outside [0, ng), or -1 */
} cum_job;

typedef struct cum_kernel {
  zb_task_fn scan, group;
  zb_task_fn gtotal, gcarry, gwrite; /* per group, in row order */
  size_t gst_size;
  bool serial; /* per group: one chunk (pandas' float sums and products) */
} cum_kernel;

/* Rows [*start, *end) of chunk t. */
static inline void chunk_rows(const cum_job *j, int64_t t, int64_t *start, int64_t *end) {
  *start = t * j->chunk_rows;
  *end = ZB_MIN(*start + j->chunk_rows, j->ids->length);
}

/* The group ids of rows [row, row + m) into id (-1: no group); a row whose
 * id is out of range counts as no group and is noted in *bad. */
static inline void chunk_ids(const cum_job *j, int64_t row, int m, int64_t *id, int64_t *bad) {
  const zb_column *ids = j->ids;
  const int64_t *iv = (const int64_t *)ids->data->data + ids->offset;
  uint64_t w = zb__valid_word(ids, row, m);
  for (int q = 0; q < m; q++) {
    int64_t x = iv[row + q];
    bool in = x >= 0 && x < j->ng;
    if (((w >> q) & 1) && !in && *bad < 0) *bad = row + q;
    id[q] = ((w >> q) & 1) && in ? x : -1;
  }
}

#define CUM_SUM_S(a, b) ((int64_t)((uint64_t)(a) + (uint64_t)(b)))
#define CUM_PROD_S(a, b) ((int64_t)((uint64_t)(a) * (uint64_t)(b)))
#define CUM_SUM(a, b) ((a) + (b))
#define CUM_PROD(a, b) ((a) * (b))
#define CUM_MIN(a, b) ((b) < (a) ? (b) : (a))
#define CUM_MAX(a, b) ((b) > (a) ? (b) : (a))

/* Fold x into a running value acc (have: it holds a value): with F, or
 * (KAHAN, float sums per group) with pandas' group_cumsum step from 0 with
 * compensation comp (groupby.pyx: no reset, so an infinity makes the rest
 * of the group NaN, as there). */
#define CUM_FOLD(KAHAN, F, A, acc, comp, have, x)                     \
  do {                                                                \
    if (KAHAN) {                                                      \
      A y_ = (A)(x) - (comp);                                         \
      A t_ = (acc) + y_;                                              \
      (comp) = (t_ - (acc)) - y_;                                     \
      (acc) = t_;                                                     \
    } else {                                                          \
      (acc) = (have) ? (A)F((acc), (A)(x)) : (A)(x);                  \
    }                                                                 \
  } while (0)

/* A group's state (step 3: miss holds "dead"); KAHAN's compensation only
 * where it is used (the states of many groups stay in cache). */
#define CUM_GST_0(NAME, OP, A)                                   \
  typedef struct gst_##NAME##_##OP {                             \
    A acc;                                                       \
    uint8_t have, miss;                                          \
  } gst_##NAME##_##OP;
#define CUM_GST_1(NAME, OP, A)                                   \
  typedef struct gst_##NAME##_##OP {                             \
    A acc, comp;                                                 \
    uint8_t have, miss;                                          \
  } gst_##NAME##_##OP;
#define CUM_COMP_0(g, none) (none)
#define CUM_COMP_1(g, none) ((g)->comp)

/* The functions of input type T, accumulator A, fold F with identity ID,
 * named NAME_OP; a morsel's total folds in LN (1 or 4) lanes: 4 for sums
 * and products (whose carries are folds of totals in any case), 1 for min
 * and max, so that of equal values (0.0 and -0.0) the first one stays.
 * KAHAN: per group, pandas' Kahan step instead of F; SERIAL: per group,
 * one pass in row order (no chunk carries: pandas' digits for floats). */
#define CUM_STAMP(NAME, OP, T, A, F, ID, LN, KAHAN, SERIAL)                                        \
  enum { serial_##NAME##_##OP = SERIAL };                                  \
  /* One row of a scan: the running value *acc folds x when the row is     \
   * present and no missing row came before under !skipna; whether the     \
   * row's result is valid (kahan: per group, with *comp). */              \
  static inline bool step_##NAME##_##OP(A *acc, A *comp, bool kahan, bool *have, bool *dead, \
                                        bool present, T x, bool skipna) {  \
    *dead = *dead || (!present && !skipna);                                \
    const bool ok = present && !*dead;                                     \
    if (ok) {                                                              \
      CUM_FOLD(KAHAN && kahan, F, A, *acc, *comp, *have, x);               \
      *have = true;                                                        \
    }                                                                      \
    return ok;                                                             \
  }                                                                        \
  /* Steps 1 and 2 of morsel `task` of the whole column's scan (see the   \
   * top of the file), noting its present rows in oks (a word per 64);     \
   * false when cancelled meanwhile. */                                    \
  static bool carry_##NAME##_##OP(cum_job *j, int64_t task, uint64_t *oks) { \
    const zb_column *c = j->c;                                             \
    const T *v = (const T *)c->data->data + c->offset;                     \
    const int64_t start = task * CUM_ROWS;                                 \
    const int64_t end = ZB_MIN(start + CUM_ROWS, c->length);               \
    A acc = ID;                                                            \
    bool have = false, miss = false;                                       \
    for (int64_t row = start; row < end; row += 64) {                      \
      const int m = (int)ZB_MIN((int64_t)64, end - row);                   \
      const uint64_t ok = present_##NAME(v + row, zb__valid_word(c, row, m), m); \
      oks[(row - start) >> 6] = ok;                                        \
      const T *x = v + row;                                                \
      have = have || ok != 0;                                              \
      miss = miss || ok != zb__mask(m);                                    \
      /* missing rows fold as the identity: no branch, and sums and        \
       * products in four independent lanes */                             \
      if (LN == 4) {                                                       \
        A l0 = ID, l1 = ID, l2 = ID, l3 = ID;                              \
        int q = 0;                                                         \
        for (; q + 4 <= m; q += 4) {                                       \
          l0 = ((ok >> q) & 1) ? (A)F(l0, (A)x[q]) : l0;                   \
          l1 = ((ok >> (q + 1)) & 1) ? (A)F(l1, (A)x[q + 1]) : l1;         \
          l2 = ((ok >> (q + 2)) & 1) ? (A)F(l2, (A)x[q + 2]) : l2;         \
          l3 = ((ok >> (q + 3)) & 1) ? (A)F(l3, (A)x[q + 3]) : l3;         \
        }                                                                  \
        for (; q < m; q++) l0 = ((ok >> q) & 1) ? (A)F(l0, (A)x[q]) : l0;  \
        acc = (A)F(acc, (A)F((A)F(l0, l1), (A)F(l2, l3)));                 \
      } else {                                                             \
        for (int q = 0; q < m; q++) acc = ((ok >> q) & 1) ? (A)F(acc, (A)x[q]) : acc; \
      }                                                                    \
    }                                                                      \
    int64_t ready;                                                         \
    if (task > 0 && !zb__await_published(&j->ready[task - 1], &ready)) return false; \
    A *carry = (A *)j->carry;                                              \
    carry[task + 1] = !have ? carry[task] : j->chave[task] ? (A)F(carry[task], acc) : acc; \
    j->chave[task + 1] = j->chave[task] || have;                           \
    j->dead[task + 1] = j->dead[task] || miss;                             \
    __atomic_store_n(&j->ready[task], 1, __ATOMIC_RELEASE);                \
    return true;                                                           \
  }                                                                        \
  static void scan_##NAME##_##OP(void *ctx, int64_t task, int worker) {    \
    (void)worker;                                                          \
    cum_job *j = (cum_job *)ctx;                                           \
    int64_t ready;                                                         \
    uint64_t oks[CUM_ROWS / 64];                                           \
    const bool noted = task + 1 < j->M;                                    \
    if (noted) {                                                           \
      if (!carry_##NAME##_##OP(j, task, oks)) return;                      \
    } else if (task > 0 && !zb__await_published(&j->ready[task - 1], &ready)) { \
      return;                                                              \
    }                                                                      \
    const zb_column *c = j->c;                                             \
    const T *v = (const T *)c->data->data + c->offset;                     \
    A *out = (A *)j->o->data->data;                                        \
    uint8_t *bits = (uint8_t *)j->o->validity->data;                       \
    const int64_t start = task * CUM_ROWS;                                 \
    const int64_t end = ZB_MIN(start + CUM_ROWS, c->length);               \
    A acc = ((const A *)j->carry)[task];                                   \
    bool have = j->chave[task];                                            \
    bool dead = !j->skipna && j->dead[task];                               \
    const bool skipna = j->skipna;                                         \
    uint8_t okb[64];                                                       \
    for (int64_t row = start; row < end; row += 64) {                      \
      int m = (int)ZB_MIN((int64_t)64, end - row);                         \
      uint64_t w = noted ? oks[(row - start) >> 6]                         \
                         : present_##NAME(v + row, zb__valid_word(c, row, m), m); \
      if (have && !dead && (skipna || w == zb__mask(m))) { /* no branch */ \
        const T *x = v + row;                                              \
        if (w == zb__mask(m)) {                                            \
          for (int q = 0; q < m; q++) out[row + q] = acc = (A)F(acc, (A)x[q]); \
        } else {                                                           \
          for (int q = 0; q < m; q++) {                                    \
            const bool ok = (w >> q) & 1;                                  \
            acc = ok ? (A)F(acc, (A)x[q]) : acc;                           \
            out[row + q] = ok ? acc : (A)0;                                \
          }                                                                \
        }                                                                  \
        zb__store_bits(bits, row, w, m);                                   \
        continue;                                                          \
      }                                                                    \
      for (int q = 0; q < m; q++) {                                        \
        A nocomp = 0;                                                      \
        const bool ok = step_##NAME##_##OP(&acc, &nocomp, false, &have, &dead, (w >> q) & 1, \
                                           v[row + q], skipna);            \
        out[row + q] = ok ? acc : (A)0;                                    \
        okb[q] = ok;                                                       \
      }                                                                    \
      zb__store_bits(bits, row, zb__pack_bools(okb, m), m);                \
    }                                                                      \
  }                                                                        \
  static void group_##NAME##_##OP(void *ctx, int64_t b, int worker) {                      \
    (void)worker;                                                                          \
    cum_job *j = (cum_job *)ctx;                                                           \
    const zb_column *c = j->c;                                                             \
    const zb__group_csr *csr = j->csr;                                                     \
    const T *v = (const T *)c->data->data + c->offset;                                     \
    A *out = (A *)j->o->data->data;                                                        \
    const bool skipna = j->skipna;                                                         \
    for (int64_t g = csr->bucket[b]; g < csr->bucket[b + 1]; g++) {                        \
      A acc = 0, comp = 0;                                                                 \
      bool have = false, dead = false;                                                     \
      for (int64_t k = csr->offsets[g]; k < csr->offsets[g + 1]; k++) {                    \
        int64_t i = csr->rows[k];                                                          \
        const bool ok = step_##NAME##_##OP(&acc, &comp, true, &have, &dead,                \
                                           zb_column_is_valid(c, i) && v[i] == v[i], v[i], \
                                           skipna);                                        \
        out[i] = ok ? acc : (A)0;                                                          \
        j->okb[i] = ok;                                                                    \
      }                                                                                    \
    }                                                                                      \
  }                                                                                        \
  CUM_GST_##KAHAN(NAME, OP, A)                                                             \
  static void gtotal_##NAME##_##OP(void *ctx, int64_t t, int worker) {                     \
    (void)worker;                                                                          \
    cum_job *j = (cum_job *)ctx;                                                           \
    const zb_column *c = j->c;                                                             \
    const T *v = (const T *)c->data->data + c->offset;                                     \
    gst_##NAME##_##OP *st = (gst_##NAME##_##OP *)j->gst + t * j->ng;                       \
    int64_t start, end, id[64], bad = -1;                                                  \
    chunk_rows(j, t, &start, &end);                                                        \
    for (int64_t row = start; row < end; row += 64) {                                      \
      if (((row - start) & (ZB_MORSEL_ROWS - 1)) == 0 && zb_cancel_requested()) break;     \
      int m = (int)ZB_MIN((int64_t)64, end - row);                                         \
      uint64_t w = zb__valid_word(c, row, m);                                              \
      chunk_ids(j, row, m, id, &bad);                                                      \
      for (int q = 0; q < m; q++) {                                                        \
        if (id[q] < 0) continue;                                                           \
        gst_##NAME##_##OP *g = st + id[q];                                                 \
        T x = v[row + q];                                                                  \
        if (((w >> q) & 1) && x == x) {                                                    \
          g->acc = g->have ? (A)F(g->acc, (A)x) : (A)x;                                    \
          g->have = 1;                                                                     \
        } else {                                                                           \
          g->miss = 1;                                                                     \
        }                                                                                  \
      }                                                                                    \
    }                                                                                      \
    j->bad[t] = bad;                                                                       \
  }                                                                                        \
  static void gcarry_##NAME##_##OP(void *ctx, int64_t task, int worker) {                  \
    (void)worker;                                                                          \
    cum_job *j = (cum_job *)ctx;                                                           \
    gst_##NAME##_##OP *st = (gst_##NAME##_##OP *)j->gst;                                   \
    const int64_t g0 = task * ZB_MORSEL_ROWS, g1 = ZB_MIN(g0 + ZB_MORSEL_ROWS, j->ng);     \
    for (int64_t g = g0; g < g1; g++) {                                                    \
      gst_##NAME##_##OP run = {0};                                                         \
      for (int64_t t = 0; t < j->C; t++) {                                                 \
        gst_##NAME##_##OP tot = st[t * j->ng + g];                                         \
        st[t * j->ng + g] = run;                                                           \
        if (tot.have) {                                                                    \
          run.acc = run.have ? (A)F(run.acc, tot.acc) : tot.acc;                           \
          run.have = 1;                                                                    \
        }                                                                                  \
        run.miss |= tot.miss;                                                              \
      }                                                                                    \
    }                                                                                      \
  }                                                                                        \
  static void gwrite_##NAME##_##OP(void *ctx, int64_t t, int worker) {                     \
    (void)worker;                                                                          \
    cum_job *j = (cum_job *)ctx;                                                           \
    const zb_column *c = j->c;                                                             \
    const T *v = (const T *)c->data->data + c->offset;                                     \
    A *out = (A *)j->o->data->data;                                                        \
    uint8_t *bits = (uint8_t *)j->o->validity->data;                                       \
    gst_##NAME##_##OP *st = (gst_##NAME##_##OP *)j->gst + t * j->ng;                       \
    const bool skipna = j->skipna;                                                         \
    int64_t start, end, id[64], bad = -1;                                                  \
    chunk_rows(j, t, &start, &end);                                                        \
    uint8_t okb[64];                                                                       \
    for (int64_t row = start; row < end; row += 64) {                                      \
      if (((row - start) & (ZB_MORSEL_ROWS - 1)) == 0 && zb_cancel_requested()) break;     \
      int m = (int)ZB_MIN((int64_t)64, end - row);                                         \
      uint64_t w = zb__valid_word(c, row, m);                                              \
      chunk_ids(j, row, m, id, &bad);                                                      \
      for (int q = 0; q < m; q++) {                                                        \
        bool ok = false;                                                                   \
        A r = 0;                                                                           \
        if (id[q] >= 0) {                                                                  \
          gst_##NAME##_##OP *g = st + id[q];                                               \
          T x = v[row + q];                                                                \
          ok = ((w >> q) & 1) && x == x;                                                   \
          bool dead = !skipna && (g->miss || !ok);                                         \
          g->miss = dead || g->miss;                                                       \
          ok = ok && !dead;                                                                \
          if (ok) {                                                                        \
            A nocomp = 0;                                                                  \
            CUM_FOLD(KAHAN, F, A, g->acc, CUM_COMP_##KAHAN(g, nocomp), g->have, x);        \
            (void)nocomp;                                                                  \
            g->have = 1;                                                                   \
            r = g->acc;                                                                    \
          }                                                                                \
        }                                                                                  \
        out[row + q] = r;                                                                  \
        okb[q] = ok;                                                                       \
      }                                                                                    \
      zb__store_bits(bits, row, zb__pack_bools(okb, m), m);                               \
    }                                                                                      \
    if (bad >= 0 && (j->bad[t] < 0 || bad < j->bad[t])) j->bad[t] = bad;                   \
  }

/* The rows of x[0, m) with validity word w that are present (valid, and
 * not NaN in a float column: (T)0.5 != 0 only for floats). */
#define CUM_PRESENT(ID, T, NAME, U)                                   \
  static inline uint64_t present_##NAME(const T *x, uint64_t w, int m) { \
    if ((T)0.5 == 0) return w;                                        \
    uint8_t eq[64];                                                   \
    for (int q = 0; q < m; q++) eq[q] = x[q] == x[q];                 \
    return w & zb__pack_bools(eq, m);                                 \
  }
ZB_FOR_EACH_NUMERIC_TYPE(CUM_PRESENT)
ZB_FOR_EACH_TEMPORAL_TYPE(CUM_PRESENT)

#define CUM_SMAX(T, U) ((T)((U) ~(U)0 >> 1))
#define CUM_SIGNED(ID, T, NAME, U)                                       \
  CUM_STAMP(NAME, sum, T, int64_t, CUM_SUM_S, 0, 4, 0, 0)                \
  CUM_STAMP(NAME, prod, T, int64_t, CUM_PROD_S, 1, 4, 0, 0)              \
  CUM_STAMP(NAME, min, T, T, CUM_MIN, CUM_SMAX(T, U), 1, 0, 0)           \
  CUM_STAMP(NAME, max, T, T, CUM_MAX, (T)(-CUM_SMAX(T, U) - 1), 1, 0, 0)
#define CUM_UNSIGNED(ID, T, NAME, U)                          \
  CUM_STAMP(NAME, sum, T, uint64_t, CUM_SUM, 0, 4, 0, 0)      \
  CUM_STAMP(NAME, prod, T, uint64_t, CUM_PROD, 1, 4, 0, 0)    \
  CUM_STAMP(NAME, min, T, T, CUM_MIN, (T) ~(T)0, 1, 0, 0)     \
  CUM_STAMP(NAME, max, T, T, CUM_MAX, 0, 1, 0, 0)
/* -0.0 is the identity of a float sum (0.0 + -0.0 is 0.0).  float32 sums
 * and products fold in one lane, as numpy's (pandas') running value does:
 * in float32 the rounding of four lanes differs from it by more than
 * 1e-5 relative after 10^5 rows.  Per group, float sums take pandas' Kahan
 * step and sums and products one pass in row order (group_cumsum,
 * group_cumprod), so that they are pandas' to the bit. */
#define CUM_FLOAT(ID, T, NAME, U)                                              \
  CUM_STAMP(NAME, sum, T, T, CUM_SUM, (T)-0.0, sizeof(T) == 8 ? 4 : 1, 1, 1)   \
  CUM_STAMP(NAME, prod, T, T, CUM_PROD, 1, sizeof(T) == 8 ? 4 : 1, 0, 1)       \
  CUM_STAMP(NAME, min, T, T, CUM_MIN, (T)INFINITY, 1, 0, 0)                    \
  CUM_STAMP(NAME, max, T, T, CUM_MAX, -(T)INFINITY, 1, 0, 0)
#define CUM_TEMPORAL(ID, T, NAME, U)                                     \
  CUM_STAMP(NAME, min, T, T, CUM_MIN, CUM_SMAX(T, U), 1, 0, 0)           \
  CUM_STAMP(NAME, max, T, T, CUM_MAX, (T)(-CUM_SMAX(T, U) - 1), 1, 0, 0)

ZB_FOR_EACH_SIGNED_TYPE(CUM_SIGNED)
ZB_FOR_EACH_UNSIGNED_TYPE(CUM_UNSIGNED)
ZB_FOR_EACH_FLOAT_TYPE(CUM_FLOAT)
ZB_FOR_EACH_TEMPORAL_TYPE(CUM_TEMPORAL)

#define CUM_K(NAME, OP)                                                                 \
  {scan_##NAME##_##OP, group_##NAME##_##OP, gtotal_##NAME##_##OP, gcarry_##NAME##_##OP, \
   gwrite_##NAME##_##OP, sizeof(gst_##NAME##_##OP), serial_##NAME##_##OP}
#define CUM_CASE4(ID, T, NAME, U)                                                   \
  case ID: {                                                                        \
    static const cum_kernel k[ZB_CUM_OP_COUNT] = {CUM_K(NAME, sum), CUM_K(NAME, prod), \
                                                   CUM_K(NAME, min), CUM_K(NAME, max)}; \
    return &k[op];                                                                  \
  }
#define CUM_CASE2(ID, T, NAME, U)                                                    \
  case ID: {                                                                         \
    static const cum_kernel k[2] = {CUM_K(NAME, min), CUM_K(NAME, max)};             \
    return op == ZB_CUM_MIN ? &k[0] : op == ZB_CUM_MAX ? &k[1] : NULL;               \
  }

/* The kernel of (type, op), or NULL for a pair the core does not admit. */
static const cum_kernel *kernel_for(zb_type_id type, zb_cum_op op) {
  switch (type) {
    ZB_FOR_EACH_NUMERIC_TYPE(CUM_CASE4)
    ZB_FOR_EACH_TEMPORAL_TYPE(CUM_CASE2)
    default: return NULL;
  }
}

/* Pack the per-row validity bytes of a morsel into the output bitmap. */
static void pack_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  cum_job *j = (cum_job *)ctx;
  uint8_t *bits = (uint8_t *)j->o->validity->data;
  const int64_t start = task * ZB_MORSEL_ROWS;
  const int64_t end = ZB_MIN(start + (int64_t)ZB_MORSEL_ROWS, j->o->length);
  for (int64_t row = start; row < end; row += 64) {
    int m = (int)ZB_MIN((int64_t)64, end - row);
    zb__store_bits(bits, row, zb__pack_bools(j->okb + row, m), m);
  }
}

static zb_status nomem(zb_error *err, const char *what) {
  return zb_error_set(err, ZB_ENOMEM, "out of host memory (cumulative: %s)", what);
}

/* Segmented scan in row order (see the top of the file), into j->o; false
 * (nothing done) when the groups are too many for a state per group and
 * chunk.  An id out of range is a ZB_EINDEX naming the first such row. */
static zb_status group_scan_rows(cum_job *j, const cum_kernel *k, const zb_column *ids,
                                 int64_t n_groups, bool *done, zb_error *err) {
  const int64_t n = ids->length, T = zb_get_num_threads();
  *done = false;
  int64_t C = n < 2 * (int64_t)ZB_MORSEL_ROWS ? 1 : ZB_MIN(4 * T, n / ZB_MORSEL_ROWS);
  C = ZB_MIN(C, n / ZB_MAX(n_groups, 1));
  if (k->serial) C = 1; /* pandas' order: one pass, whatever the groups */
  if (C < 1 || (!k->serial && C < T && n >= 2 * (int64_t)ZB_MORSEL_ROWS)) return ZB_OK;
  *done = true;
  j->ids = ids;
  j->ng = n_groups;
  j->C = C;
  j->chunk_rows = ((n + C - 1) / C + 63) / 64 * 64;
  j->gst = zb_calloc((size_t)(C * ZB_MAX(n_groups, 1)), k->gst_size);
  j->bad = (int64_t *)zb_malloc((size_t)C * sizeof(int64_t));
  zb_status st = ZB_OK;
  if (j->gst == NULL || j->bad == NULL) {
    st = nomem(err, "group states");
    goto done;
  }
  for (int64_t t = 0; t < C; t++) j->bad[t] = -1;
  if (C > 1) {
    st = zb_parallel_for(C, k->gtotal, j, err);
    if (st == ZB_OK) st = zb_parallel_for((n_groups + ZB_MORSEL_ROWS - 1) / ZB_MORSEL_ROWS,
                                          k->gcarry, j, err);
  }
  if (st == ZB_OK) st = zb_parallel_for(C, k->gwrite, j, err);
  for (int64_t t = 0; st == ZB_OK && t < C; t++) {
    if (j->bad[t] >= 0) {
      const int64_t *iv = (const int64_t *)ids->data->data + ids->offset;
      st = zb_error_set(err, ZB_EINDEX, "cumulative: group id %lld at row %lld is outside "
                        "[0, %lld)", (long long)iv[j->bad[t]], (long long)j->bad[t],
                        (long long)n_groups);
    }
  }
done:
  zb_free(j->gst);
  zb_free(j->bad);
  j->gst = NULL;
  j->bad = NULL;
  return st;
}

/* Segmented scan: the rows of each group (CSR) from the group ids. */
static zb_status group_scan(cum_job *j, const cum_kernel *k, const zb_column *ids,
                            int64_t n_groups, zb_error *err) {
  const int64_t n = ids->length;
  zb__grouping g;
  zb__group_csr csr;
  memset(&csr, 0, sizeof csr);
  zb_status st = zb__grouping_from_ids(ids, n_groups, "cumulative", &g, err);
  if (st != ZB_OK) return st;
  j->okb = (uint8_t *)zb_calloc((size_t)ZB_MAX(n, 1), 1);
  if (j->okb == NULL) {
    st = nomem(err, "group rows");
    goto done;
  }
  st = zb__group_csr_init(&g, &csr, err);
  if (st != ZB_OK) goto done;
  j->csr = &csr;
  st = zb_parallel_for(csr.n_buckets, k->group, j, err);
  if (st == ZB_OK) {
    /* rows of no group (a null id) were never written: zero their values */
    size_t w = (size_t)zb_type_width(j->o->type);
    uint8_t *data = (uint8_t *)j->o->data->data;
    for (int64_t r = 0; r < n; r++)
      if (g.gid[r] < 0) memset(data + (size_t)r * w, 0, w);
    st = zb_parallel_for(zb__morsels(n), pack_morsel, j, err);
  }
done:
  zb__group_csr_reset(&csr);
  zb__grouping_reset(&g);
  zb_free(j->okb);
  j->okb = NULL;
  return st;
}

zb_status zb__cpu_cumulative(const zb_column *col, const zb_column *group_ids, int64_t n_groups,
                             zb_cum_op op, bool skipna, zb_type_id result, zb_column **out,
                             zb_error *err) {
  *out = NULL;
  const cum_kernel *k = kernel_for(col->type, op);
  if (k == NULL)
    return zb_error_set(err, ZB_ETYPE, "%s is not supported for a %s column", zb_cum_op_name(op),
                        zb_type_name(col->type));
  const int64_t n = col->length;
  cum_job j;
  memset(&j, 0, sizeof j);
  j.c = col;
  j.skipna = skipna;
  zb_status st = zb_column_new(result, n, true, 0, &j.o, err);
  if (st == ZB_OK && (result == ZB_TIMESTAMP || result == ZB_DURATION))
    st = zb_column_set_time(j.o, col->unit, col->timezone, err);
  if (st != ZB_OK || n == 0) goto done;
  if (group_ids != NULL) {
    bool by_rows = false;
    st = group_scan_rows(&j, k, group_ids, n_groups, &by_rows, err);
    if (st == ZB_OK && !by_rows) st = group_scan(&j, k, group_ids, n_groups, err);
    goto done;
  }
  j.M = (n + CUM_ROWS - 1) / CUM_ROWS;
  const int64_t M = j.M;
  /* the carries of morsels 0..M (M + 1 of each) */
  uint64_t *carry = (uint64_t *)zb_calloc((size_t)M + 1, sizeof(uint64_t));
  uint8_t *flags = (uint8_t *)zb_calloc((size_t)(M + 1) * 2, 1);
  int64_t *ready = (int64_t *)zb_malloc((size_t)M * sizeof(int64_t));
  if (carry == NULL || flags == NULL || ready == NULL) {
    st = nomem(err, "morsel carries");
  } else {
    for (int64_t m = 0; m < M; m++) ready[m] = -1;
    j.carry = carry;
    j.chave = flags;
    j.dead = flags + M + 1;
    j.ready = ready;
    st = zb_parallel_for(M, k->scan, &j, err);
  }
  zb_free(carry);
  zb_free(flags);
  zb_free(ready);
done:
  if (st != ZB_OK) {
    zb_column_release(j.o);
    return st;
  }
  zb_column_recount_nulls(j.o);
  *out = j.o;
  return ZB_OK;
}
