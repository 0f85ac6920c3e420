/*
 * arith.c -- CPU elementwise arithmetic (add, sub, mul, truediv, floordiv,
 * mod, pow), bitwise and/or/xor on integers, and the unary ops neg, abs,
 * invert.  zb__cpu_binary is also the backend entry for comparisons and
 * bool logic, which it hands to compare.c.
 *
 * Both operands are converted block by block (ZB_BLOCK rows, on the stack)
 * to the compute type chosen by src/core, so there is one loop per
 * (op, compute type), stamped out from the dtype list (core/dtype_list.h);
 * the switch is outside it.
 * Integer arithmetic is done in unsigned types, so overflow wraps without
 * undefined behaviour.  Integer // and % by zero set a per-row null flag;
 * so does integer ** with a negative exponent.
 */
#include <math.h>

#include "core/dtype_list.h"
#include "cpu/kernels.h"

/* ---- integer kernels ----------------------------------------------------- */

/* Sign tests that do not trip -Wtype-limits on unsigned types. */
#define NEG_S(v) ((v) < 0)
#define NEG_U(v) ((void)(v), 0)

/* v as an unsigned type of at least int's width (UT: T's bits), so that
 * +, - and * wrap rather than overflow after integer promotion. */
#define WRAP(UT, v) (0u + (UT)(v))

#define INT_KERNEL(NAME, T, UT, SIGNED, NEG)                                              \
  static void NAME(zb_binary_op op, const T *x, const T *y, T *o, int64_t n,             \
                   uint8_t *nf) {                                                        \
    switch (op) {                                                                        \
      case ZB_OP_ADD:                                                                    \
        for (int64_t i = 0; i < n; i++) o[i] = (T)(WRAP(UT, x[i]) + WRAP(UT, y[i]));     \
        break;                                                                           \
      case ZB_OP_SUB:                                                                    \
        for (int64_t i = 0; i < n; i++) o[i] = (T)(WRAP(UT, x[i]) - WRAP(UT, y[i]));     \
        break;                                                                           \
      case ZB_OP_MUL:                                                                    \
        for (int64_t i = 0; i < n; i++) o[i] = (T)(WRAP(UT, x[i]) * WRAP(UT, y[i]));     \
        break;                                                                           \
      case ZB_OP_AND:                                                                    \
        for (int64_t i = 0; i < n; i++) o[i] = (T)(x[i] & y[i]);                         \
        break;                                                                           \
      case ZB_OP_OR:                                                                     \
        for (int64_t i = 0; i < n; i++) o[i] = (T)(x[i] | y[i]);                         \
        break;                                                                           \
      case ZB_OP_XOR:                                                                    \
        for (int64_t i = 0; i < n; i++) o[i] = (T)(x[i] ^ y[i]);                         \
        break;                                                                           \
      case ZB_OP_FLOORDIV:                                                               \
      case ZB_OP_MOD: {                                                                  \
        bool want_div = op == ZB_OP_FLOORDIV;                                            \
        for (int64_t i = 0; i < n; i++) {                                                \
          T xv = x[i], yv = y[i];                                                        \
          nf[i] = yv == 0;                                                               \
          T d = yv == 0 ? (T)1 : yv;                                                     \
          T q, r;                                                                        \
          if (SIGNED && d == (T)-1) {                                                    \
            q = (T)(0u - WRAP(UT, xv));                                                  \
            r = 0;                                                                       \
          } else {                                                                       \
            q = (T)(xv / d);                                                             \
            r = (T)(xv % d);                                                             \
            if (SIGNED && r != 0 && (NEG(r) != NEG(d))) {                                 \
              q = (T)(q - 1);                                                            \
              r = (T)(r + d);                                                            \
            }                                                                            \
          }                                                                              \
          o[i] = want_div ? q : r;                                                       \
        }                                                                                \
        break;                                                                           \
      }                                                                                  \
      case ZB_OP_POW:                                                                    \
        for (int64_t i = 0; i < n; i++) {                                                \
          T e = y[i];                                                                    \
          nf[i] = NEG(e);                                                                \
          uint64_t base = (uint64_t)x[i], r = 1, k = nf[i] ? 0 : (uint64_t)e;            \
          while (k != 0) {                                                               \
            if (k & 1) r *= base;                                                        \
            base *= base;                                                                \
            k >>= 1;                                                                     \
          }                                                                              \
          o[i] = (T)r;                                                                   \
        }                                                                                \
        break;                                                                           \
      default:                                                                           \
        break;                                                                           \
    }                                                                                    \
  }

#define INT_KERNEL_S(ID, T, NAME, U) INT_KERNEL(k_##NAME, T, U, 1, NEG_S)
#define INT_KERNEL_U(ID, T, NAME, U) INT_KERNEL(k_##NAME, T, U, 0, NEG_U)
ZB_FOR_EACH_SIGNED_TYPE(INT_KERNEL_S)
ZB_FOR_EACH_UNSIGNED_TYPE(INT_KERNEL_U)
#undef INT_KERNEL_S
#undef INT_KERNEL_U

/* ---- float kernels ------------------------------------------------------- */

#define FLOAT_KERNEL(NAME, T, FMOD, FLOOR, POW, COPYSIGN)                               \
  static void NAME(zb_binary_op op, const T *x, const T *y, T *o, int64_t n) {          \
    switch (op) {                                                                       \
      case ZB_OP_ADD:                                                                   \
        for (int64_t i = 0; i < n; i++) o[i] = x[i] + y[i];                             \
        break;                                                                          \
      case ZB_OP_SUB:                                                                   \
        for (int64_t i = 0; i < n; i++) o[i] = x[i] - y[i];                             \
        break;                                                                          \
      case ZB_OP_MUL:                                                                   \
        for (int64_t i = 0; i < n; i++) o[i] = x[i] * y[i];                             \
        break;                                                                          \
      case ZB_OP_TRUEDIV:                                                               \
        for (int64_t i = 0; i < n; i++) o[i] = x[i] / y[i];                             \
        break;                                                                          \
      case ZB_OP_FLOORDIV:                                                              \
      case ZB_OP_MOD: {                                                                 \
        /* numpy's npy_divmod. */                                                       \
        bool want_div = op == ZB_OP_FLOORDIV;                                           \
        for (int64_t i = 0; i < n; i++) {                                               \
          T a = x[i], b = y[i], mod = FMOD(a, b), div, fl;                              \
          if (b == 0) {                                                                 \
            o[i] = want_div ? a / b : mod;                                              \
            continue;                                                                   \
          }                                                                             \
          div = (a - mod) / b;                                                          \
          if (mod != 0) {                                                               \
            if ((b < 0) != (mod < 0)) {                                                 \
              mod += b;                                                                 \
              div -= 1;                                                                 \
            }                                                                           \
          } else {                                                                      \
            mod = COPYSIGN((T)0, b);                                                    \
          }                                                                             \
          if (div != 0) {                                                               \
            fl = FLOOR(div);                                                            \
            if (div - fl > (T)0.5) fl += 1;                                             \
          } else {                                                                      \
            fl = COPYSIGN((T)0, a / b);                                                 \
          }                                                                             \
          o[i] = want_div ? fl : mod;                                                   \
        }                                                                               \
        break;                                                                          \
      }                                                                                 \
      case ZB_OP_POW:                                                                   \
        for (int64_t i = 0; i < n; i++) o[i] = POW(x[i], y[i]);                         \
        break;                                                                          \
      default:                                                                          \
        break;                                                                          \
    }                                                                                   \
  }

FLOAT_KERNEL(k_float32, float, fmodf, floorf, powf, copysignf)
FLOAT_KERNEL(k_float64, double, fmod, floor, pow, copysign)

/* Run the kernel of compute type t on n values. */
static void arith_block(zb_binary_op op, zb_type_id t, const void *x, const void *y, void *o,
                        int64_t n, uint8_t *nf) {
  switch (t) {
#define CASE_INT(ID, T, NAME, U) \
  case ID: k_##NAME(op, (const T *)x, (const T *)y, (T *)o, n, nf); break;
#define CASE_FLOAT(ID, T, NAME, U) \
  case ID: k_##NAME(op, (const T *)x, (const T *)y, (T *)o, n); break;
    ZB_FOR_EACH_INTEGER_TYPE(CASE_INT)
    ZB_FOR_EACH_FLOAT_TYPE(CASE_FLOAT)
#undef CASE_INT
#undef CASE_FLOAT
    default: break;
  }
}

/* Bit q of the result: value k + q of the block (compute type t) equals v
 * (0 or 1), q < m. */
static uint64_t block_equals(zb_type_id t, const void *x, int64_t k, int m, int v) {
  uint8_t r[64];
  switch (t) {
#define EQ_CASE(ID, T, NAME, U)                                              \
  case ID:                                                                   \
    for (int q = 0; q < m; q++) r[q] = ((const T *)x)[k + q] == (T)v;        \
    break;
    ZB_FOR_EACH_NUMERIC_TYPE(EQ_CASE)
#undef EQ_CASE
    default: return 0;
  }
  return zb__pack_bools(r, m);
}

/* Write 1 into result k + q for each bit q of ones. */
static void block_set_ones(zb_type_id t, void *o, int64_t k, uint64_t ones) {
  switch (t) {
#define ONE_CASE(ID, T, NAME, U)                                             \
  case ID:                                                                   \
    for (; ones != 0; ones &= ones - 1) ((T *)o)[k + __builtin_ctzll(ones)] = (T)1; \
    break;
    ZB_FOR_EACH_NUMERIC_TYPE(ONE_CASE)
#undef ONE_CASE
    default: break;
  }
}

typedef struct bin_job {
  zb_binary_op op;
  const zb_column *a, *b;
  bool as, bs;
  zb_type_id t;
  zb_column *out;
} bin_job;

static void bin_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  const bin_job *j = (const bin_job *)ctx;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, j->out->length - start);
  uint64_t abuf[ZB_BLOCK], bbuf[ZB_BLOCK];
  uint8_t nf[ZB_BLOCK];
  int w = zb_type_width(j->t);
  bool int_nulls = zb_type_is_integer(j->t) &&
                   (j->op == ZB_OP_FLOORDIV || j->op == ZB_OP_MOD || j->op == ZB_OP_POW);
  uint64_t a_scalar_valid = 0, b_scalar_valid = 0;
  if (j->as) {
    zb__fill_scalar_block(j->t, abuf, j->a);
    a_scalar_valid = zb_column_is_valid(j->a, 0) ? ~UINT64_C(0) : 0;
  }
  if (j->bs) {
    zb__fill_scalar_block(j->t, bbuf, j->b);
    b_scalar_valid = zb_column_is_valid(j->b, 0) ? ~UINT64_C(0) : 0;
  }
  uint8_t *ov = (uint8_t *)j->out->validity->data;
  for (int64_t blk = 0; blk < n; blk += ZB_BLOCK) {
    int64_t m = ZB_MIN((int64_t)ZB_BLOCK, n - blk), row = start + blk;
    const void *x = j->as ? (const void *)abuf : zb__block_values(j->a, j->t, row, m, abuf);
    const void *y = j->bs ? (const void *)bbuf : zb__block_values(j->b, j->t, row, m, bbuf);
    void *o = (char *)j->out->data->data + row * w;
    arith_block(j->op, j->t, x, y, o, m, nf);
    for (int64_t k = 0; k < m; k += 64) {
      int mm = (int)ZB_MIN((int64_t)64, m - k);
      uint64_t va = j->as ? a_scalar_valid & zb__mask(mm) : zb__valid_word(j->a, row + k, mm);
      uint64_t vb = j->bs ? b_scalar_valid & zb__mask(mm) : zb__valid_word(j->b, row + k, mm);
      uint64_t v = va & vb;
      if (int_nulls) {
        uint64_t bad = 0;
        for (int q = 0; q < mm; q++) bad |= (uint64_t)(nf[k + q] & 1) << q;
        v &= ~bad;
      }
      if (j->op == ZB_OP_POW && (va ^ vb) != 0) {
        /* pandas: 1 ** NA == 1 and NA ** 0 == 1. */
        uint64_t ones = (va & ~vb & block_equals(j->t, x, k, mm, 1)) |
                        (vb & ~va & block_equals(j->t, y, k, mm, 0));
        block_set_ones(j->t, o, k, ones);
        v |= ones;
      }
      zb__store_bits(ov, row + k, v, mm);
    }
  }
}

zb_status zb__cpu_binary(zb_binary_op op, const zb_column *a, bool a_scalar,
                         const zb_column *b, bool b_scalar, zb_type_id compute,
                         zb_type_id result, zb_column **out, zb_error *err) {
  *out = NULL;
  if (op >= ZB_OP_EQ && op <= ZB_OP_GE)
    return zb__cpu_compare(op, a, a_scalar, b, b_scalar, compute, out, err);
  if (result == ZB_BOOL) return zb__cpu_logical(op, a, a_scalar, b, b_scalar, out, err);
  int64_t n = a_scalar ? b->length : a->length;
  zb_column *o = NULL;
  ZB_RETURN_NOT_OK(zb__new_like(NULL, result, n, true, 0, &o, err));
  bin_job j = {op, a, b, a_scalar, b_scalar, compute, o};
  zb_status st = zb_parallel_for(zb__morsels(n), bin_morsel, &j, err);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  zb_column_recount_nulls(o);
  *out = o;
  return ZB_OK;
}

/* ---- unary --------------------------------------------------------------- */

#define UNARY_INT(NAME, T, UT, NEG)                                                  \
  static void NAME(zb_unary_op op, const T *x, T *o, int64_t n) {                       \
    if (op == ZB_OP_NEG)                                                                \
      for (int64_t i = 0; i < n; i++) o[i] = (T)(0u - WRAP(UT, x[i]));                  \
    else if (op == ZB_OP_ABS)                                                           \
      for (int64_t i = 0; i < n; i++)                                                   \
        o[i] = NEG(x[i]) ? (T)(0u - WRAP(UT, x[i])) : x[i];                             \
    else                                                                                \
      for (int64_t i = 0; i < n; i++) o[i] = (T)~x[i];                                  \
  }
#define UNARY_INT_S(ID, T, NAME, U) UNARY_INT(u_##NAME, T, U, NEG_S)
#define UNARY_INT_U(ID, T, NAME, U) UNARY_INT(u_##NAME, T, U, NEG_U)
ZB_FOR_EACH_SIGNED_TYPE(UNARY_INT_S)
ZB_FOR_EACH_UNSIGNED_TYPE(UNARY_INT_U)
#undef UNARY_INT_S
#undef UNARY_INT_U

typedef struct un_job {
  zb_unary_op op;
  const zb_column *c;
  zb_column *out;
} un_job;

static void un_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  const un_job *j = (const un_job *)ctx;
  const zb_column *c = j->c;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, c->length - start);
  if (c->type == ZB_BOOL) {
    uint8_t *o = (uint8_t *)j->out->data->data;
    const uint8_t *x = (const uint8_t *)c->data->data;
    for (int64_t k = 0; k < n; k += 64) {
      int mm = (int)ZB_MIN((int64_t)64, n - k);
      uint64_t w = zb__load_bits(x, c->offset + start + k, mm);
      if (j->op == ZB_OP_INVERT) w = ~w & zb__mask(mm);
      zb__store_bits(o, start + k, w, mm);
    }
    return;
  }
  int wd = zb_type_width(c->type);
  const void *x = (const char *)c->data->data + (c->offset + start) * wd;
  void *o = (char *)j->out->data->data + start * wd;
  switch (c->type) {
#define UNARY_CASE(ID, T, NAME, U) \
    case ID: u_##NAME(j->op, (const T *)x, (T *)o, n); break;
    ZB_FOR_EACH_INTEGER_TYPE(UNARY_CASE)
#undef UNARY_CASE
    case ZB_FLOAT32: {
      const float *xf = (const float *)x;
      float *of = (float *)o;
      if (j->op == ZB_OP_NEG)
        for (int64_t i = 0; i < n; i++) of[i] = -xf[i];
      else
        for (int64_t i = 0; i < n; i++) of[i] = fabsf(xf[i]);
      break;
    }
    case ZB_FLOAT64: {
      const double *xf = (const double *)x;
      double *of = (double *)o;
      if (j->op == ZB_OP_NEG)
        for (int64_t i = 0; i < n; i++) of[i] = -xf[i];
      else
        for (int64_t i = 0; i < n; i++) of[i] = fabs(xf[i]);
      break;
    }
    default: break;
  }
}

zb_status zb__cpu_unary(zb_unary_op op, const zb_column *col, zb_column **out, zb_error *err) {
  *out = NULL;
  zb_column *o = NULL;
  ZB_RETURN_NOT_OK(zb__new_like(col, col->type, col->length, false, 0, &o, err));
  un_job j = {op, col, o};
  zb_status st = zb_parallel_for(zb__morsels(col->length), un_morsel, &j, err);
  if (st == ZB_OK && col->validity != NULL) {
    /* Same nulls as the input: share nothing, copy the bits to offset 0. */
    st = zb_buffer_new(ZB_CPU, (col->length + 7) / 8, &o->validity, err);
    if (st == ZB_OK) {
      zb__bitmap_copy((uint8_t *)o->validity->data, 0, (const uint8_t *)col->validity->data,
                      col->offset, col->length);
      zb_column_recount_nulls(o);
    }
  }
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}
