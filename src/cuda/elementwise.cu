/*
 * elementwise.cu -- the CUDA side of the elementwise operations: arithmetic,
 * comparisons and logic (zb_column_binary and friends), neg / abs / invert,
 * isnull / notnull, fill_null, where / mask, clip and round; plus the
 * result-column helpers of elementwise.cuh.
 *
 * The CPU kernels (src/cpu/arith.c, compare.c, select.c, elementwise.c) are
 * the reference, and every rule here is theirs: operands are converted to
 * the compute type src/core chose; integer arithmetic wraps (computed on the
 * values widened to 64 bits, then truncated to the result's width, which
 * gives the same bits); integer // and % by zero and ** with a negative
 * exponent give null; 1 ** null and null ** 0 give 1; floats follow IEEE
 * and numpy's divmod; bool and / or are Kleene logic; a null condition in
 * where takes the other value.  float32 arithmetic is done in float, so it
 * rounds as the CPU does; ** goes through the device's pow, which may differ
 * from the host's in the last bits (float32 ** is computed in double and
 * rounded once).
 *
 * String comparisons, fill and where run in strings.cu.  Which types reach
 * these entries is the backend's table (dispatch.cu).
 */
#include <math.h>
#include <stdio.h>

#include "cuda/elementwise.cuh"

/* ------------------------------------------------------------------------ */
/* Result columns (elementwise.cuh)                                         */
/* ------------------------------------------------------------------------ */

static int64_t zb_words(int64_t n) { return (n + 31) / 32; }

zb_operand zb__cuda_operand(const zb_column *c, bool scalar) {
  zb_operand o;
  o.data = c->data != NULL ? c->data->data : NULL;
  o.valid = c->validity != NULL ? (const uint8_t *)c->validity->data : NULL;
  o.offset = c->offset;
  o.stride = scalar ? 0 : 1;
  o.type = (int)zb__physical(c->type);
  return o;
}

void zb__cuda_out_release(zb_cuda_out *r) {
  zb_buffer_release(r->data);
  zb_buffer_release(r->validity);
  zb_buffer_release(r->scratch);
  r->data = r->validity = r->scratch = NULL;
  r->bits = r->valid = NULL;
  r->acc = NULL;
}

zb_status zb__cuda_out_begin(zb_device dev, zb_type_id type, int64_t n, bool with_validity,
                             zb_cuda_out *r, zb_error *err) {
  memset(r, 0, sizeof *r);
  r->dev = dev;
  r->n = n;
  r->first_bad = -1;
  zb_type_id p = zb__physical(type);
  int64_t bytes = p == ZB_BOOL ? zb_words(n) * 4 : n * (int64_t)zb_type_width(p);
  zb_status st = zb_buffer_new(dev, bytes, &r->data, err);
  if (st == ZB_OK && with_validity) st = zb_buffer_new(dev, zb_words(n) * 4, &r->validity, err);
  if (st == ZB_OK)
    st = zb_buffer_new(dev, (int64_t)(2 * sizeof(unsigned long long)), &r->scratch, err);
  if (st == ZB_OK) st = zb__cuda_set_device(dev.id, err);
  if (st == ZB_OK) {
    const unsigned long long init[2] = {0ULL, ~0ULL};
    st = zb__cuda_check(
        cudaMemcpy(r->scratch->data, init, sizeof init, cudaMemcpyHostToDevice),
        "cudaMemcpy (kernel counters to the device)", dev.id, err);
  }
  if (st != ZB_OK) {
    zb__cuda_out_release(r);
    return st;
  }
  r->bits = p == ZB_BOOL ? (uint32_t *)r->data->data : NULL;
  r->valid = r->validity != NULL ? (uint32_t *)r->validity->data : NULL;
  r->acc = (unsigned long long *)r->scratch->data;
  return ZB_OK;
}

zb_status zb__cuda_out_prepare(const zb_cuda_out *r, unsigned *blocks, zb_error *err) {
  ZB_RETURN_NOT_OK(zb__cuda_set_device(r->dev.id, err));
  *blocks = zb__cuda_blocks(r->dev.id, r->n, ZB_EW_THREADS);
  return ZB_OK;
}

zb_status zb__cuda_out_wait(zb_cuda_out *r, const char *what, zb_error *err) {
  unsigned long long acc[2] = {0ULL, ~0ULL};
  ZB_RETURN_NOT_OK(zb__cuda_set_device(r->dev.id, err));
  /* A device-to-host cudaMemcpy waits for the kernels before it on the
   * legacy default stream and reports their errors. */
  char call[160];
  snprintf(call, sizeof call, "%s kernel (or cudaMemcpy of its counters)", what);
  ZB_RETURN_NOT_OK(zb__cuda_read(r->dev.id, acc, r->acc, (int64_t)sizeof acc, call, err));
  r->valid_rows = (int64_t)acc[0];
  r->first_bad = acc[1] == ~0ULL ? -1 : (int64_t)acc[1];
  return ZB_OK;
}

zb_status zb__cuda_out_finish(zb_cuda_out *r, zb_type_id type, const zb_column *like,
                              zb_column **out, zb_error *err) {
  *out = NULL;
  int64_t nulls = 0;
  zb_status st = ZB_OK;
  if (r->validity != NULL) {
    nulls = r->n - r->valid_rows;
    if (nulls < 0 || nulls > r->n)
      st = zb_error_set(err, ZB_EDEVICE, "cuda:%d: a kernel counted %lld valid rows of %lld",
                        r->dev.id, (long long)r->valid_rows, (long long)r->n);
  }
  bool same = like != NULL && like->type == type;
  zb_column *c = NULL;
  if (st == ZB_OK)
    st = zb_column_make(type, r->n, 0, nulls > 0 ? r->validity : NULL, r->data, NULL,
                        same && type == ZB_CATEGORICAL ? like->dictionary : NULL, nulls, &c,
                        err);
  if (st == ZB_OK && same && (type == ZB_TIMESTAMP || type == ZB_DURATION))
    st = zb_column_set_time(c, like->unit, like->timezone, err);
  zb__cuda_out_release(r);
  if (st != ZB_OK) {
    zb_column_release(c);
    return st;
  }
  *out = c;
  return ZB_OK;
}

/* ------------------------------------------------------------------------ */
/* Arithmetic, comparisons, logic                                           */
/* ------------------------------------------------------------------------ */

namespace {

/* Compute classes: what a physical type's values are held in. */
enum zb_class { ZB_CLASS_I64, ZB_CLASS_U64, ZB_CLASS_F32, ZB_CLASS_F64 };

zb_class zb_class_of(zb_type_id physical) {
  switch (physical) {
    case ZB_INT8: case ZB_INT16: case ZB_INT32: case ZB_INT64: return ZB_CLASS_I64;
    case ZB_FLOAT32: return ZB_CLASS_F32;
    case ZB_FLOAT64: return ZB_CLASS_F64;
    default: return ZB_CLASS_U64; /* bool and unsigned */
  }
}

bool zb_fixed_width(zb_type_id t) {
  return zb_type_is_numeric(t) || t == ZB_DATE32 || t == ZB_TIMESTAMP || t == ZB_DURATION ||
         t == ZB_CATEGORICAL;
}

__device__ __forceinline__ bool zb_is_neg(long long v) { return v < 0; }
__device__ __forceinline__ bool zb_is_neg(unsigned long long) { return false; }

/* base ** k modulo 2^64 (square and multiply). */
__device__ __forceinline__ unsigned long long zb_ipow(unsigned long long base,
                                                      unsigned long long k) {
  unsigned long long r = 1;
  while (k != 0) {
    if (k & 1) r *= base;
    base *= base;
    k >>= 1;
  }
  return r;
}

/* Integer op on values of compute class C (long long: signed types), as
 * src/cpu/arith.c's INT_KERNEL; *nf is set where the row becomes null.
 * Only the low bits matter: the caller truncates to the result width. */
template <typename C>
__device__ __forceinline__ C zb_int_arith(int op, C x, C y, bool *nf) {
  typedef unsigned long long U;
  switch (op) {
    case ZB_OP_ADD: return (C)((U)x + (U)y);
    case ZB_OP_SUB: return (C)((U)x - (U)y);
    case ZB_OP_MUL: return (C)((U)x * (U)y);
    case ZB_OP_AND: return (C)((U)x & (U)y);
    case ZB_OP_OR: return (C)((U)x | (U)y);
    case ZB_OP_XOR: return (C)((U)x ^ (U)y);
    case ZB_OP_FLOORDIV:
    case ZB_OP_MOD: {
      *nf = y == 0;
      C d = y == 0 ? (C)1 : y;
      C q, r;
      if (zb_is_neg(d) && d == (C)-1) { /* signed only; avoids MIN / -1 */
        q = (C)((U)0 - (U)x);
        r = 0;
      } else {
        q = x / d;
        r = x % d;
        if (r != 0 && zb_is_neg(r) != zb_is_neg(d)) {
          q = (C)(q - 1);
          r = (C)(r + d);
        }
      }
      return op == ZB_OP_FLOORDIV ? q : r;
    }
    case ZB_OP_POW: {
      bool neg = zb_is_neg(y);
      *nf = neg;
      return (C)zb_ipow((U)x, neg ? 0 : (U)y);
    }
    default: return 0;
  }
}

__device__ __forceinline__ float zb_fmod(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double zb_fmod(double a, double b) { return fmod(a, b); }
__device__ __forceinline__ float zb_floor(float a) { return floorf(a); }
__device__ __forceinline__ double zb_floor(double a) { return floor(a); }
__device__ __forceinline__ float zb_copysign(float a, float b) { return copysignf(a, b); }
__device__ __forceinline__ double zb_copysign(double a, double b) { return copysign(a, b); }
/* float ** in double, rounded once: within an ulp of the host's powf. */
__device__ __forceinline__ float zb_pow(float a, float b) {
  return (float)pow((double)a, (double)b);
}
__device__ __forceinline__ double zb_pow(double a, double b) { return pow(a, b); }

/* Float op in type F, as src/cpu/arith.c's FLOAT_KERNEL (numpy's divmod). */
template <typename F> __device__ __forceinline__ F zb_float_arith(int op, F a, F b) {
  switch (op) {
    case ZB_OP_ADD: return a + b;
    case ZB_OP_SUB: return a - b;
    case ZB_OP_MUL: return a * b;
    case ZB_OP_TRUEDIV: return a / b;
    case ZB_OP_FLOORDIV:
    case ZB_OP_MOD: {
      bool want_div = op == ZB_OP_FLOORDIV;
      F mod = zb_fmod(a, b);
      if (b == 0) return want_div ? a / b : mod;
      F div = (a - mod) / b;
      if (mod != 0) {
        if ((b < 0) != (mod < 0)) {
          mod += b;
          div -= 1;
        }
      } else {
        mod = zb_copysign((F)0, b);
      }
      F fl;
      if (div != 0) {
        fl = zb_floor(div);
        if (div - fl > (F)0.5) fl += 1;
      } else {
        fl = zb_copysign((F)0, a / b);
      }
      return want_div ? fl : mod;
    }
    case ZB_OP_POW: return zb_pow(a, b);
    default: return 0;
  }
}

__device__ __forceinline__ long long zb_arith(int op, long long x, long long y, bool *nf) {
  return zb_int_arith<long long>(op, x, y, nf);
}
__device__ __forceinline__ unsigned long long zb_arith(int op, unsigned long long x,
                                                       unsigned long long y, bool *nf) {
  return zb_int_arith<unsigned long long>(op, x, y, nf);
}
__device__ __forceinline__ float zb_arith(int op, float x, float y, bool *) {
  return zb_float_arith<float>(op, x, y);
}
__device__ __forceinline__ double zb_arith(int op, double x, double y, bool *) {
  return zb_float_arith<double>(op, x, y);
}

/* Arithmetic and integer bitwise ops in compute class C. */
template <typename C> struct zb_arith_fn {
  int op;
  zb_operand a, b;
  void *out;
  int out_type;
  __device__ zb_row operator()(int64_t i) const {
    const C x = zb_dload<C>(a, i), y = zb_dload<C>(b, i);
    const bool va = zb_dvalid(a, i), vb = zb_dvalid(b, i);
    bool nf = false;
    C r = zb_arith(op, x, y, &nf);
    zb_row row;
    row.bit = false;
    row.bad = false;
    row.valid = va && vb && !nf;
    /* pandas: 1 ** NA == 1 and NA ** 0 == 1 */
    if (op == ZB_OP_POW && va != vb && ((va && x == (C)1) || (vb && y == (C)0))) {
      r = (C)1;
      row.valid = true;
    }
    zb_dstore<C>(out, out_type, i, r);
    return row;
  }
};

/* Comparisons in class C (float32 compares exactly as double). */
template <typename C> struct zb_cmp_fn {
  int op;
  zb_operand a, b;
  __device__ zb_row operator()(int64_t i) const {
    const C x = zb_dload<C>(a, i), y = zb_dload<C>(b, i);
    bool r;
    switch (op) {
      case ZB_OP_EQ: r = x == y; break;
      case ZB_OP_NE: r = x != y; break;
      case ZB_OP_LT: r = x < y; break;
      case ZB_OP_LE: r = x <= y; break;
      case ZB_OP_GT: r = x > y; break;
      default: r = x >= y; break;
    }
    zb_row row;
    row.valid = zb_dvalid(a, i) && zb_dvalid(b, i);
    row.bit = r && row.valid;
    row.bad = false;
    return row;
  }
};

/* Kleene and / or, and xor, of bool operands (src/cpu/compare.c). */
struct zb_logic_fn {
  int op;
  zb_operand a, b;
  __device__ zb_row operator()(int64_t i) const {
    const bool va = zb_dvalid(a, i), vb = zb_dvalid(b, i);
    const bool xa = va && zb_dload<unsigned>(a, i) != 0;
    const bool xb = vb && zb_dload<unsigned>(b, i) != 0;
    bool val, valid;
    if (op == ZB_OP_AND) {
      val = xa && xb;
      valid = (va && vb) || (va && !xa) || (vb && !xb);
    } else if (op == ZB_OP_OR) {
      val = xa || xb;
      valid = (va && vb) || xa || xb;
    } else {
      val = xa != xb;
      valid = va && vb;
    }
    zb_row row;
    row.bit = val && valid;
    row.valid = valid;
    row.bad = false;
    return row;
  }
};

template <typename C>
zb_status zb_run_arith(zb_binary_op op, const zb_operand &a, const zb_operand &b,
                       zb_type_id result, zb_cuda_out *r, zb_column **out, zb_error *err) {
  zb_arith_fn<C> f;
  f.op = (int)op;
  f.a = a;
  f.b = b;
  f.out = r->data->data;
  f.out_type = (int)zb__physical(result);
  return zb_cuda_rows_finish(f, r, "arithmetic", result, NULL, out, err);
}

template <typename C>
zb_status zb_run_cmp(zb_binary_op op, const zb_operand &a, const zb_operand &b,
                     zb_cuda_out *r, zb_column **out, zb_error *err) {
  zb_cmp_fn<C> f;
  f.op = (int)op;
  f.a = a;
  f.b = b;
  return zb_cuda_rows_finish(f, r, "comparison", ZB_BOOL, NULL, out, err);
}

} /* namespace */

extern "C" zb_status zb__cuda_binary(zb_binary_op op, const zb_column *a, bool a_scalar,
                                     const zb_column *b, bool b_scalar, zb_type_id compute,
                                     zb_type_id result, zb_column **out, zb_error *err) {
  const zb_type_id ct = zb__physical(compute);
  const bool cmp = op >= ZB_OP_EQ && op <= ZB_OP_GE;
  const bool logic = op >= ZB_OP_AND && op <= ZB_OP_XOR;
  if (cmp && compute == ZB_STRING && a->type == ZB_STRING && b->type == ZB_STRING)
    return zb__cuda_str_compare(op, a, a_scalar, b, b_scalar, out, err);
  /* the table (dispatch.cu) sends only fixed-width compute types here, and
   * the core refuses bitwise logic on float-promoted integers */
  if (!zb_fixed_width(compute) || !zb_fixed_width(a->type) || !zb_fixed_width(b->type) ||
      !zb_fixed_width(result) || (logic && result != ZB_BOOL && zb_type_is_float(ct)))
    return zb_error_set(err, ZB_ETYPE, "%s on cuda: no GPU kernel for %s and %s",
                        zb_binary_op_name(op), zb_type_name(a->type), zb_type_name(b->type));
  *out = NULL;
  const int64_t n = a_scalar ? b->length : a->length;
  const zb_device dev = a_scalar ? b->device : a->device;
  const zb_operand oa = zb__cuda_operand(a, a_scalar), ob = zb__cuda_operand(b, b_scalar);
  zb_cuda_out r;
  ZB_RETURN_NOT_OK(zb__cuda_out_begin(dev, result, n, true, &r, err));
  const zb_class k = zb_class_of(ct);
  if (cmp) {
    if (k == ZB_CLASS_I64) return zb_run_cmp<long long>(op, oa, ob, &r, out, err);
    if (k == ZB_CLASS_U64) return zb_run_cmp<unsigned long long>(op, oa, ob, &r, out, err);
    return zb_run_cmp<double>(op, oa, ob, &r, out, err);
  }
  if (result == ZB_BOOL) {
    zb_logic_fn f;
    f.op = (int)op;
    f.a = oa;
    f.b = ob;
    return zb_cuda_rows_finish(f, &r, "bool logic", ZB_BOOL, NULL, out, err);
  }
  switch (k) {
    case ZB_CLASS_I64: return zb_run_arith<long long>(op, oa, ob, result, &r, out, err);
    case ZB_CLASS_U64: return zb_run_arith<unsigned long long>(op, oa, ob, result, &r, out, err);
    case ZB_CLASS_F32: return zb_run_arith<float>(op, oa, ob, result, &r, out, err);
    default: return zb_run_arith<double>(op, oa, ob, result, &r, out, err);
  }
}

/* ------------------------------------------------------------------------ */
/* Unary: neg, abs, invert                                                  */
/* ------------------------------------------------------------------------ */

namespace {

__device__ __forceinline__ long long zb_unop(int op, long long x) {
  typedef unsigned long long U;
  if (op == ZB_OP_NEG) return (long long)((U)0 - (U)x);
  if (op == ZB_OP_ABS) return x < 0 ? (long long)((U)0 - (U)x) : x;
  return (long long)~(U)x;
}
__device__ __forceinline__ unsigned long long zb_unop(int op, unsigned long long x) {
  if (op == ZB_OP_NEG) return 0ULL - x;
  if (op == ZB_OP_ABS) return x;
  return ~x;
}
__device__ __forceinline__ float zb_unop(int op, float x) {
  return op == ZB_OP_NEG ? -x : fabsf(x);
}
__device__ __forceinline__ double zb_unop(int op, double x) {
  return op == ZB_OP_NEG ? -x : fabs(x);
}

template <typename C> struct zb_unary_fn {
  int op;
  zb_operand a;
  void *out;
  __device__ zb_row operator()(int64_t i) const {
    zb_dstore<C>(out, a.type, i, zb_unop(op, zb_dload<C>(a, i)));
    zb_row row;
    row.bit = false;
    row.valid = zb_dvalid(a, i);
    row.bad = false;
    return row;
  }
};

/* bool: abs is the identity, invert is logical not. */
struct zb_unary_bool_fn {
  bool invert;
  zb_operand a;
  __device__ zb_row operator()(int64_t i) const {
    zb_row row;
    row.bit = (zb_dload<unsigned>(a, i) != 0) != invert;
    row.valid = zb_dvalid(a, i);
    row.bad = false;
    return row;
  }
};

template <typename C>
zb_status zb_run_unary(zb_unary_op op, const zb_column *col, zb_cuda_out *r, zb_column **out,
                       zb_error *err) {
  zb_unary_fn<C> f;
  f.op = (int)op;
  f.a = zb__cuda_operand(col, false);
  f.out = r->data->data;
  return zb_cuda_rows_finish(f, r, "unary", col->type, col, out, err);
}

} /* namespace */

extern "C" zb_status zb__cuda_unary(zb_unary_op op, const zb_column *col, zb_column **out,
                                    zb_error *err) {
  *out = NULL;
  zb_cuda_out r;
  ZB_RETURN_NOT_OK(
      zb__cuda_out_begin(col->device, col->type, col->length, col->validity != NULL, &r, err));
  if (col->type == ZB_BOOL) {
    zb_unary_bool_fn f;
    f.invert = op == ZB_OP_INVERT;
    f.a = zb__cuda_operand(col, false);
    return zb_cuda_rows_finish(f, &r, "unary", ZB_BOOL, col, out, err);
  }
  switch (zb_class_of(col->type)) {
    case ZB_CLASS_I64: return zb_run_unary<long long>(op, col, &r, out, err);
    case ZB_CLASS_U64: return zb_run_unary<unsigned long long>(op, col, &r, out, err);
    case ZB_CLASS_F32: return zb_run_unary<float>(op, col, &r, out, err);
    default: return zb_run_unary<double>(op, col, &r, out, err);
  }
}

/* ------------------------------------------------------------------------ */
/* Null tests and fill                                                      */
/* ------------------------------------------------------------------------ */

namespace {

struct zb_is_null_fn {
  bool want_valid;
  zb_operand a;
  __device__ zb_row operator()(int64_t i) const {
    zb_row row;
    row.bit = zb_dvalid(a, i) == want_valid;
    row.valid = true;
    row.bad = false;
    return row;
  }
};

/* The value of row i of a where it is valid, else of b (a scalar in
 * fill_null, a column or scalar in where); take_a decides per row. */
__device__ __forceinline__ void zb_select_value(const zb_operand &a, const zb_operand &b,
                                                bool take_a, int64_t i, void *out,
                                                zb_row *row) {
  const zb_operand &src = take_a ? a : b;
  if (a.type == ZB_BOOL)
    row->bit = zb_dload<unsigned>(src, i) != 0;
  else
    zb_dstore_raw(out, a.type, i, zb_dload_raw(src, i));
}

struct zb_fill_fn {
  zb_operand a, value;
  void *out; /* NULL for bool (bits) */
  __device__ zb_row operator()(int64_t i) const {
    zb_row row;
    row.bit = false;
    row.valid = true;
    row.bad = false;
    zb_select_value(a, value, zb_dvalid(a, i), i, out, &row);
    return row;
  }
};

/* where / mask: a where cond (not cond when mask) is true, else b. */
struct zb_where_fn {
  bool mask;
  zb_operand cond, a, b;
  void *out;
  __device__ zb_row operator()(int64_t i) const {
    const bool t = zb_dvalid(cond, i) && ((zb_dload<unsigned>(cond, i) != 0) != mask);
    zb_row row;
    row.bit = false;
    row.bad = false;
    row.valid = t ? zb_dvalid(a, i) : zb_dvalid(b, i);
    zb_select_value(a, b, t, i, out, &row);
    return row;
  }
};

} /* namespace */

extern "C" zb_status zb__cuda_is_null(const zb_column *col, bool want_valid, zb_column **out,
                                      zb_error *err) {
  *out = NULL;
  zb_cuda_out r;
  ZB_RETURN_NOT_OK(zb__cuda_out_begin(col->device, ZB_BOOL, col->length, false, &r, err));
  zb_is_null_fn f;
  f.want_valid = want_valid;
  f.a = zb__cuda_operand(col, false);
  return zb_cuda_rows_finish(f, &r, want_valid ? "notnull" : "isnull", ZB_BOOL, NULL, out,
                             err);
}

extern "C" zb_status zb__cuda_fill_null(const zb_column *col, const zb_column *value,
                                        zb_column **out, zb_error *err) {
  if (col->type == ZB_STRING && value->type == ZB_STRING)
    return zb__cuda_str_fill_null(col, value, out, err);
  if (!zb_fixed_width(col->type) || value->type != col->type)
    return zb_error_set(err, ZB_ETYPE, "fill_null on cuda: a %s fill for a %s column",
                        zb_type_name(value->type), zb_type_name(col->type));
  *out = NULL;
  zb_cuda_out r;
  ZB_RETURN_NOT_OK(zb__cuda_out_begin(col->device, col->type, col->length, false, &r, err));
  zb_fill_fn f;
  f.a = zb__cuda_operand(col, false);
  f.value = zb__cuda_operand(value, true);
  f.out = col->type == ZB_BOOL ? NULL : r.data->data;
  return zb_cuda_rows_finish(f, &r, "fill_null", col->type, col, out, err);
}

extern "C" zb_status zb__cuda_where(const zb_column *cond, bool mask, const zb_column *a,
                                    const zb_column *b, bool b_scalar, zb_column **out,
                                    zb_error *err) {
  if (a->type == ZB_STRING && b->type == ZB_STRING && cond->type == ZB_BOOL)
    return zb__cuda_str_where(cond, mask, a, b, b_scalar, out, err);
  if (!zb_fixed_width(a->type) || b->type != a->type || cond->type != ZB_BOOL)
    return zb_error_set(err, ZB_ETYPE, "where on cuda: %s and %s values", zb_type_name(a->type),
                        zb_type_name(b->type));
  *out = NULL;
  const bool nulls = a->validity != NULL || b->validity != NULL || cond->validity != NULL;
  zb_cuda_out r;
  ZB_RETURN_NOT_OK(zb__cuda_out_begin(a->device, a->type, a->length, nulls, &r, err));
  zb_where_fn f;
  f.mask = mask;
  f.cond = zb__cuda_operand(cond, false);
  f.a = zb__cuda_operand(a, false);
  f.b = zb__cuda_operand(b, b_scalar);
  f.out = a->type == ZB_BOOL ? NULL : r.data->data;
  return zb_cuda_rows_finish(f, &r, mask ? "mask" : "where", a->type, a, out, err);
}

/* ------------------------------------------------------------------------ */
/* clip and round                                                           */
/* ------------------------------------------------------------------------ */

namespace {

/* Values limited to [lo, hi] in class C (float32: bounds rounded to float
 * first, then compared exactly in double, as the CPU compares in float). */
template <typename C> struct zb_clip_fn {
  zb_operand a;
  bool has_lo, has_hi;
  C lo, hi;
  void *out;
  __device__ zb_row operator()(int64_t i) const {
    C x = zb_dload<C>(a, i);
    if (has_lo && x < lo) x = lo;
    if (has_hi && x > hi) x = hi;
    zb_dstore<C>(out, a.type, i, x);
    zb_row row;
    row.bit = false;
    row.valid = zb_dvalid(a, i);
    row.bad = false;
    return row;
  }
};

/* A clip bound in class C: v.i for signed, v.u for unsigned, v.f (rounded to
 * the column's float width) for floats. */
void zb_bound(const zb_scalar *s, zb_type_id, long long *out) { *out = (long long)s->v.i; }
void zb_bound(const zb_scalar *s, zb_type_id, unsigned long long *out) {
  *out = (unsigned long long)s->v.u;
}
void zb_bound(const zb_scalar *s, zb_type_id t, double *out) {
  *out = t == ZB_FLOAT32 ? (double)(float)s->v.f : s->v.f;
}

template <typename C>
zb_status zb_run_clip(const zb_column *col, const zb_scalar *lower, const zb_scalar *upper,
                      zb_cuda_out *r, zb_column **out, zb_error *err) {
  zb_clip_fn<C> f;
  f.a = zb__cuda_operand(col, false);
  f.has_lo = !lower->is_null;
  f.has_hi = !upper->is_null;
  f.lo = 0;
  f.hi = 0;
  if (f.has_lo) zb_bound(lower, col->type, &f.lo);
  if (f.has_hi) zb_bound(upper, col->type, &f.hi);
  f.out = r->data->data;
  return zb_cuda_rows_finish(f, r, "clip", col->type, col, out, err);
}

/* numpy rounding, as src/cpu/elementwise.c: half to even at 10^-decimals;
 * f = 10 ** |decimals|. */
struct zb_round_fn {
  zb_operand a;
  bool up; /* decimals >= 0 */
  double f;
  void *out;
  __device__ zb_row operator()(int64_t i) const {
    if (a.type == ZB_FLOAT64) {
      const double x = zb_dload<double>(a, i);
      ((double *)out)[i] = up ? rint(x * f) / f : rint(x / f) * f;
    } else if (a.type == ZB_FLOAT32) {
      const float x = zb_dload<float>(a, i), ff = (float)f;
      ((float *)out)[i] = up ? rintf(x * ff) / ff : rintf(x / ff) * ff;
    } else {
      /* integers, decimals < 0: through double, saturating, then wrapping
       * to the width (unsigned 64-bit saturates at both ends) */
      const double r = rint(zb_dload<double>(a, i) / f) * f;
      unsigned long long bits;
      if (a.type == ZB_UINT64) {
        bits = r >= 18446744073709551616.0 ? ~0ULL : r <= 0 ? 0ULL : (unsigned long long)r;
      } else {
        long long v = r >= 9223372036854775808.0    ? 0x7fffffffffffffffLL
                      : r < -9223372036854775808.0 ? -0x7fffffffffffffffLL - 1
                                                   : (long long)r;
        bits = (unsigned long long)v;
      }
      zb_dstore_raw(out, a.type, i, bits);
    }
    zb_row row;
    row.bit = false;
    row.valid = zb_dvalid(a, i);
    row.bad = false;
    return row;
  }
};

} /* namespace */

extern "C" zb_status zb__cuda_clip(const zb_column *col, const zb_scalar *lower,
                                   const zb_scalar *upper, zb_column **out, zb_error *err) {
  *out = NULL;
  zb_cuda_out r;
  ZB_RETURN_NOT_OK(
      zb__cuda_out_begin(col->device, col->type, col->length, col->validity != NULL, &r, err));
  switch (zb_class_of(col->type)) {
    case ZB_CLASS_I64: return zb_run_clip<long long>(col, lower, upper, &r, out, err);
    case ZB_CLASS_U64: return zb_run_clip<unsigned long long>(col, lower, upper, &r, out, err);
    default: return zb_run_clip<double>(col, lower, upper, &r, out, err);
  }
}

extern "C" zb_status zb__cuda_round(const zb_column *col, int decimals, zb_column **out,
                                    zb_error *err) {
  *out = NULL;
  zb_cuda_out r;
  ZB_RETURN_NOT_OK(
      zb__cuda_out_begin(col->device, col->type, col->length, col->validity != NULL, &r, err));
  zb_round_fn f;
  f.a = zb__cuda_operand(col, false);
  f.up = decimals >= 0;
  /* |decimals| without overflowing INT_MIN */
  f.f = zb__power_of_ten(decimals >= 0 ? decimals : (decimals < -400 ? 400 : -decimals));
  f.out = r.data->data;
  return zb_cuda_rows_finish(f, &r, "round", col->type, col, out, err);
}
