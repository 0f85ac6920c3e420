/*
 * cumulative.c -- pandas' cumsum / cumprod / cummin / cummax on the CPU
 * (ZB__OP_CUMULATIVE, the kernel behind zb_column_cumulative and
 * zb_column_group_cumulative).
 *
 * A missing row (a null, or NaN in a float column: v != v, which the
 * compiler drops for integer types) is null in the result.  skipna: the
 * running value skips it; !skipna: every later row (of the group) is null.
 *
 * Whole column: a morsel-parallel scan on the thread pool, in three steps:
 *
 *   1. each morsel folds its valid rows into a total, and notes whether it
 *      has a valid row and a missing one (in parallel);
 *   2. a carry runs over the morsels in order: the fold of every morsel
 *      before, and whether a missing row came before (for !skipna);
 *   3. each morsel scans again from its carry and writes its rows' running
 *      values and validity (in parallel; a morsel is a multiple of 64 rows,
 *      so morsels never share a byte of the output bitmap).
 *
 * Per group: the rows of each group in row order (the group-by CSR), the
 * buckets of groups in parallel, each group scanned from its first row.
 * Validity goes to one byte per row (tasks own rows, not bitmap bytes),
 * packed into the bitmap by a parallel pass over morsels.
 *
 * Accumulators: sums and products of signed integers in int64 (wrapping,
 * done in uint64 so that overflow is defined), of unsigned ones in uint64,
 * of floats in their own type (as numpy); min and max in the column's
 * type.  Every (type, op) pair is a function stamped from the dtype list
 * and chosen once per column: no per-row type switch.
 */
#include "cpu/groupby.h"
#include "cpu/kernels.h"
#include "core/dtype_list.h"

typedef struct cum_job {
  const zb_column *c;
  bool skipna;
  zb_column *o;
  int64_t M;
  /* per morsel (whole column) */
  void *total;    /* the morsel's fold, an array of the accumulator type */
  uint8_t *have;  /* the morsel has a valid row */
  uint8_t *miss;  /* the morsel has a missing row */
  void *carry;    /* the fold of the morsels before */
  uint8_t *chave; /* some morsel before has a valid row */
  uint8_t *dead;  /* some morsel before has a missing row */
  /* per group */
  const zb__group_csr *csr;
  uint8_t *okb; /* per row: the result row is valid */
} cum_job;

typedef struct cum_kernel {
  zb_task_fn total, write, group;
  void (*carry)(cum_job *);
} cum_kernel;

#define CUM_SUM_S(a, b) ((int64_t)((uint64_t)(a) + (uint64_t)(b)))
#define CUM_PROD_S(a, b) ((int64_t)((uint64_t)(a) * (uint64_t)(b)))
#define CUM_SUM(a, b) ((a) + (b))
#define CUM_PROD(a, b) ((a) * (b))
#define CUM_MIN(a, b) ((b) < (a) ? (b) : (a))
#define CUM_MAX(a, b) ((b) > (a) ? (b) : (a))

/* The four functions of input type T, accumulator A, fold F, named
 * NAME_OP. */
#define CUM_STAMP(NAME, OP, T, A, F)                                                       \
  static void total_##NAME##_##OP(void *ctx, int64_t task, int worker) {                   \
    (void)worker;                                                                          \
    cum_job *j = (cum_job *)ctx;                                                           \
    const zb_column *c = j->c;                                                             \
    const T *v = (const T *)c->data->data + c->offset;                                     \
    const int64_t start = task * ZB_MORSEL_ROWS;                                           \
    const int64_t end = ZB_MIN(start + (int64_t)ZB_MORSEL_ROWS, c->length);                \
    A acc = 0;                                                                             \
    bool have = false, miss = false;                                                       \
    for (int64_t row = start; row < end; row += 64) {                                      \
      int m = (int)ZB_MIN((int64_t)64, end - row);                                         \
      uint64_t w = zb__valid_word(c, row, m);                                              \
      for (int q = 0; q < m; q++) {                                                        \
        T x = v[row + q];                                                                  \
        bool ok = ((w >> q) & 1) && x == x;                                                \
        if (ok) {                                                                          \
          acc = have ? (A)F(acc, (A)x) : (A)x;                                             \
          have = true;                                                                     \
        } else {                                                                           \
          miss = true;                                                                     \
        }                                                                                  \
      }                                                                                    \
    }                                                                                      \
    ((A *)j->total)[task] = acc;                                                           \
    j->have[task] = have;                                                                  \
    j->miss[task] = miss;                                                                  \
  }                                                                                        \
  static void carry_##NAME##_##OP(cum_job *j) {                                            \
    A acc = 0;                                                                             \
    bool have = false, dead = false;                                                       \
    for (int64_t m = 0; m < j->M; m++) {                                                   \
      ((A *)j->carry)[m] = acc;                                                            \
      j->chave[m] = have;                                                                  \
      j->dead[m] = dead;                                                                   \
      if (j->have[m]) {                                                                    \
        A t = ((const A *)j->total)[m];                                                    \
        acc = have ? (A)F(acc, t) : t;                                                     \
        have = true;                                                                       \
      }                                                                                    \
      dead = dead || j->miss[m];                                                           \
    }                                                                                      \
  }                                                                                        \
  static void write_##NAME##_##OP(void *ctx, int64_t task, int worker) {                   \
    (void)worker;                                                                          \
    cum_job *j = (cum_job *)ctx;                                                           \
    const zb_column *c = j->c;                                                             \
    const T *v = (const T *)c->data->data + c->offset;                                     \
    A *out = (A *)j->o->data->data;                                                        \
    uint8_t *bits = (uint8_t *)j->o->validity->data;                                       \
    const int64_t start = task * ZB_MORSEL_ROWS;                                           \
    const int64_t end = ZB_MIN(start + (int64_t)ZB_MORSEL_ROWS, c->length);                \
    A acc = ((const A *)j->carry)[task];                                                   \
    bool have = j->chave[task];                                                            \
    bool dead = !j->skipna && j->dead[task];                                               \
    const bool skipna = j->skipna;                                                         \
    uint8_t okb[64];                                                                       \
    for (int64_t row = start; row < end; row += 64) {                                      \
      int m = (int)ZB_MIN((int64_t)64, end - row);                                         \
      uint64_t w = zb__valid_word(c, row, m);                                              \
      for (int q = 0; q < m; q++) {                                                        \
        T x = v[row + q];                                                                  \
        bool ok = ((w >> q) & 1) && x == x;                                                \
        dead = dead || (!ok && !skipna);                                                   \
        ok = ok && !dead;                                                                  \
        if (ok) {                                                                          \
          acc = have ? (A)F(acc, (A)x) : (A)x;                                             \
          have = true;                                                                     \
        }                                                                                  \
        out[row + q] = ok ? acc : (A)0;                                                    \
        okb[q] = ok;                                                                       \
      }                                                                                    \
      zb__store_bits(bits, row, zb__pack_bools(okb, m), m);                                \
    }                                                                                      \
  }                                                                                        \
  static void group_##NAME##_##OP(void *ctx, int64_t b, int worker) {                      \
    (void)worker;                                                                          \
    cum_job *j = (cum_job *)ctx;                                                           \
    const zb_column *c = j->c;                                                             \
    const zb__group_csr *csr = j->csr;                                                     \
    const T *v = (const T *)c->data->data + c->offset;                                     \
    A *out = (A *)j->o->data->data;                                                        \
    const bool skipna = j->skipna;                                                         \
    for (int64_t g = csr->bucket[b]; g < csr->bucket[b + 1]; g++) {                        \
      A acc = 0;                                                                           \
      bool have = false, dead = false;                                                     \
      for (int64_t k = csr->offsets[g]; k < csr->offsets[g + 1]; k++) {                    \
        int64_t i = csr->rows[k];                                                          \
        T x = v[i];                                                                        \
        bool ok = zb_column_is_valid(c, i) && x == x;                                      \
        dead = dead || (!ok && !skipna);                                                   \
        ok = ok && !dead;                                                                  \
        if (ok) {                                                                          \
          acc = have ? (A)F(acc, (A)x) : (A)x;                                             \
          have = true;                                                                     \
        }                                                                                  \
        out[i] = ok ? acc : (A)0;                                                          \
        j->okb[i] = ok;                                                                    \
      }                                                                                    \
    }                                                                                      \
  }

#define CUM_SIGNED(ID, T, NAME, U)       \
  CUM_STAMP(NAME, sum, T, int64_t, CUM_SUM_S)   \
  CUM_STAMP(NAME, prod, T, int64_t, CUM_PROD_S) \
  CUM_STAMP(NAME, min, T, T, CUM_MIN)           \
  CUM_STAMP(NAME, max, T, T, CUM_MAX)
#define CUM_UNSIGNED(ID, T, NAME, U)      \
  CUM_STAMP(NAME, sum, T, uint64_t, CUM_SUM)    \
  CUM_STAMP(NAME, prod, T, uint64_t, CUM_PROD)  \
  CUM_STAMP(NAME, min, T, T, CUM_MIN)           \
  CUM_STAMP(NAME, max, T, T, CUM_MAX)
#define CUM_FLOAT(ID, T, NAME, U)  \
  CUM_STAMP(NAME, sum, T, T, CUM_SUM)    \
  CUM_STAMP(NAME, prod, T, T, CUM_PROD)  \
  CUM_STAMP(NAME, min, T, T, CUM_MIN)    \
  CUM_STAMP(NAME, max, T, T, CUM_MAX)
#define CUM_TEMPORAL(ID, T, NAME, U) \
  CUM_STAMP(NAME, min, T, T, CUM_MIN)    \
  CUM_STAMP(NAME, max, T, T, CUM_MAX)

ZB_FOR_EACH_SIGNED_TYPE(CUM_SIGNED)
ZB_FOR_EACH_UNSIGNED_TYPE(CUM_UNSIGNED)
ZB_FOR_EACH_FLOAT_TYPE(CUM_FLOAT)
ZB_FOR_EACH_TEMPORAL_TYPE(CUM_TEMPORAL)

#define CUM_K(NAME, OP) \
  {total_##NAME##_##OP, write_##NAME##_##OP, group_##NAME##_##OP, carry_##NAME##_##OP}
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
    st = group_scan(&j, k, group_ids, n_groups, err);
    goto done;
  }
  j.M = zb__morsels(n);
  const int64_t M = j.M;
  uint64_t *acc = (uint64_t *)zb_calloc((size_t)M * 2, sizeof(uint64_t));
  uint8_t *flags = (uint8_t *)zb_calloc((size_t)M * 4, 1);
  if (acc == NULL || flags == NULL) {
    zb_free(acc);
    zb_free(flags);
    st = nomem(err, "morsel carries");
    goto done;
  }
  j.total = acc;
  j.carry = acc + M;
  j.have = flags;
  j.miss = flags + M;
  j.chave = flags + 2 * M;
  j.dead = flags + 3 * M;
  st = zb_parallel_for(M, k->total, &j, err);
  if (st == ZB_OK) {
    k->carry(&j);
    st = zb_parallel_for(M, k->write, &j, err);
  }
  zb_free(acc);
  zb_free(flags);
done:
  if (st != ZB_OK) {
    zb_column_release(j.o);
    return st;
  }
  zb_column_recount_nulls(j.o);
  *out = j.o;
  return ZB_OK;
}
