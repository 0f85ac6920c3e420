/*
 * diff.c -- pandas' diff of a whole column on the CPU (ZB__OP_DIFF:
 * zb_column_diff) in one pass: each morsel of the result reads its rows
 * and the rows |periods| away (the same stream, a morsel apart at most for
 * small periods: mostly cache hits), subtracts, and writes the values and
 * the validity words -- no shifted copy, no concatenation.
 *
 * Values that are not the result type are converted a block of ZB_BLOCK
 * rows at a time on the stack (both operands), then subtracted in the
 * result type (float32 in float arithmetic, as pandas does for float32,
 * int8 and int16).  Unsigned, int32 and int64 values are subtracted in
 * their own width first (wrapping, as pandas does; int8 and int16 are
 * exact in float32) and the difference converted; a result
 * of the column's own integer type wraps in it (pandas' masked integers).
 * A row is valid when both of its operands are: the
 * validity words of the two are ANDed, 64 rows at a time; rows without a
 * partner are null (and 0 underneath).
 */
#include "cpu/kernels.h"

typedef struct diff_job {
  const zb_column *c;
  int64_t n, lag; /* lag: the partner of row i is row i - lag */
  zb_type_id result;
  char *out;
  uint8_t *bits;
} diff_job;

/* The difference in T's own width (computed in the unsigned type UT, so
 * it wraps without overflow), stored as OT. */
#define DIFF_WRAP(T, UT, OT)                                                  \
  do {                                                                        \
    const T *v = (const T *)c->data->data + c->offset;                        \
    OT *o = (OT *)j->out;                                                     \
    for (int64_t i = b; i < e; i++) o[i] = (OT)(T)(UT)((UT)v[i] - (UT)v[i - j->lag]); \
  } while (0)

/* Rows [b, e) of an integer result or of a 32- or 64-bit or unsigned
 * column's float64 result: all wrap in the column's width. */
static void diff_block_wrap(const diff_job *j, int64_t b, int64_t e) {
  const zb_column *c = j->c;
  const bool fl = j->result == ZB_FLOAT64;
  switch (zb__physical(c->type)) {
    case ZB_INT8: DIFF_WRAP(int8_t, uint8_t, int8_t); break;
    case ZB_INT16: DIFF_WRAP(int16_t, uint16_t, int16_t); break;
    case ZB_INT32:
      if (fl) DIFF_WRAP(int32_t, uint32_t, double); else DIFF_WRAP(int32_t, uint32_t, int32_t);
      break;
    case ZB_INT64:
      if (fl) DIFF_WRAP(int64_t, uint64_t, double); else DIFF_WRAP(int64_t, uint64_t, int64_t);
      break;
    case ZB_UINT8:
      if (fl) DIFF_WRAP(uint8_t, uint8_t, double); else DIFF_WRAP(uint8_t, uint8_t, uint8_t);
      break;
    case ZB_UINT16:
      if (fl) DIFF_WRAP(uint16_t, uint16_t, double); else DIFF_WRAP(uint16_t, uint16_t, uint16_t);
      break;
    case ZB_UINT32:
      if (fl) DIFF_WRAP(uint32_t, uint32_t, double); else DIFF_WRAP(uint32_t, uint32_t, uint32_t);
      break;
    case ZB_UINT64:
      if (fl) DIFF_WRAP(uint64_t, uint64_t, double); else DIFF_WRAP(uint64_t, uint64_t, uint64_t);
      break;
    default: break;
  }
}

/* Whether the result wraps in the column's width (see diff_block_wrap). */
static bool diff_wraps(const diff_job *j) {
  zb_type_id src = zb__physical(j->c->type);
  if (zb_type_is_integer(j->result)) return true;
  return j->result == ZB_FLOAT64 && zb_type_is_integer(src) &&
         (!zb_type_is_signed(src) || src == ZB_INT32 || src == ZB_INT64);
}

/* Rows [b, e) of the result: in-range partners only (the caller clips). */
static void diff_block(const diff_job *j, int64_t b, int64_t e) {
  const zb_column *c = j->c;
  const zb_type_id src = zb__physical(c->type);
  const int64_t m = e - b;
  if (diff_wraps(j)) {
    diff_block_wrap(j, b, e);
    return;
  }
  if (j->result == ZB_FLOAT64) {
    double *o = (double *)j->out;
    if (src == ZB_FLOAT64) {
      const double *v = (const double *)c->data->data + c->offset;
      for (int64_t i = b; i < e; i++) o[i] = v[i] - v[i - j->lag];
      return;
    }
    double x[ZB_BLOCK], y[ZB_BLOCK];
    zb__convert_block(ZB_FLOAT64, x, src, c->data->data, c->offset + b, m);
    zb__convert_block(ZB_FLOAT64, y, src, c->data->data, c->offset + b - j->lag, m);
    for (int64_t i = 0; i < m; i++) o[b + i] = x[i] - y[i];
    return;
  }
  float *o = (float *)j->out;
  if (src == ZB_FLOAT32) {
    const float *v = (const float *)c->data->data + c->offset;
    for (int64_t i = b; i < e; i++) o[i] = v[i] - v[i - j->lag];
    return;
  }
  float x[ZB_BLOCK], y[ZB_BLOCK];
  zb__convert_block(ZB_FLOAT32, x, src, c->data->data, c->offset + b, m);
  zb__convert_block(ZB_FLOAT32, y, src, c->data->data, c->offset + b - j->lag, m);
  for (int64_t i = 0; i < m; i++) o[b + i] = x[i] - y[i];
}

static void diff_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  diff_job *j = (diff_job *)ctx;
  const int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(j->n, s + (int64_t)ZB_MORSEL_ROWS);
  /* rows with a partner: [lo, hi) */
  const int64_t lo = j->lag > 0 ? ZB_MIN(j->lag, j->n) : 0;
  const int64_t hi = j->lag < 0 ? ZB_MAX(j->n + j->lag, 0) : j->n;
  const size_t w = (size_t)zb_type_width(j->result);
  for (int64_t b = s; b < e; b += ZB_BLOCK) {
    int64_t be = ZB_MIN(e, b + ZB_BLOCK);
    int64_t vb = ZB_MAX(b, lo), ve = ZB_MIN(be, hi);
    if (vb > b) memset(j->out + b * w, 0, (size_t)(ZB_MIN(vb, be) - b) * w);
    if (ve < be) memset(j->out + ZB_MAX(ve, b) * w, 0, (size_t)(be - ZB_MAX(ve, b)) * w);
    if (vb < ve) diff_block(j, vb, ve);
  }
  const bool nulls = j->c->validity != NULL && j->c->null_count > 0;
  for (int64_t r = s; r < e; r += 64) {
    int m = (int)ZB_MIN((int64_t)64, e - r);
    uint64_t word = zb__mask(m);
    /* rows without a partner */
    for (int q = 0; q < m && r + q < lo; q++) word &= ~((uint64_t)1 << q);
    for (int q = m - 1; q >= 0 && r + q >= hi; q--) word &= ~((uint64_t)1 << q);
    if (nulls && word != 0) {
      word &= zb__valid_word(j->c, r, m);
      /* the partners' validity: rows r - lag .. (clipped: those rows are
       * already cleared above) */
      int64_t pr = r - j->lag, ps = ZB_MAX(pr, 0), pe = ZB_MIN(pr + m, j->n);
      if (pe > ps) {
        uint64_t pw = zb__valid_word(j->c, ps, (int)(pe - ps));
        int sh = (int)(ps - pr);
        word &= (pw << sh) | (sh > 0 ? zb__mask(sh) : 0) |
                (pe - pr < m ? ~zb__mask((int)(pe - pr)) : 0);
      }
    }
    zb__store_bits(j->bits, r, word, m);
  }
}

zb_status zb__cpu_diff(const zb_column *col, int64_t periods, zb_type_id result,
                       zb_column **out, zb_error *err) {
  *out = NULL;
  const int64_t n = col->length;
  zb_column *o = NULL;
  ZB_RETURN_NOT_OK(zb_column_new(result, n, true, 0, &o, err));
  diff_job j = {col, n, periods, result, (char *)o->data->data, (uint8_t *)o->validity->data};
  zb_status st = zb_parallel_for(zb__morsels(n), diff_morsel, &j, err);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  zb_column_recount_nulls(o);
  *out = o;
  return ZB_OK;
}
