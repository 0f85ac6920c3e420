/*
 * compute_ops.c -- the checked entry points of the columnar compute
 * operations declared in zambezi/compute.h.
 *
 * Each validates its arguments once (types, lengths, devices, units and
 * timezones), works out result types by the promotion rules documented in
 * compute.h, turns scalars into length-1 columns, and hands the call to
 * zb__dispatch (src/core/dispatch.c), which runs it where the data lives or
 * on the CPU.
 */
#include <stdio.h>
#include <string.h>

#include "core/dtype_list.h"
#include "core/internal.h"
#include "core/values.h"

const char *zb_binary_op_name(zb_binary_op op) {
  static const char *const names[ZB_BINARY_OP_COUNT] = {
      "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "eq",
      "ne",  "lt",  "le",  "gt",      "ge",       "and", "or",  "xor"};
  if ((int)op < 0 || op >= ZB_BINARY_OP_COUNT) return "unknown";
  return names[op];
}

const char *zb_unary_op_name(zb_unary_op op) {
  static const char *const names[ZB_UNARY_OP_COUNT] = {"neg", "abs", "invert"};
  if ((int)op < 0 || op >= ZB_UNARY_OP_COUNT) return "unknown";
  return names[op];
}

static bool is_cmp(zb_binary_op op) { return op >= ZB_OP_EQ && op <= ZB_OP_GE; }
static bool is_logic(zb_binary_op op) { return op >= ZB_OP_AND && op <= ZB_OP_XOR; }
static bool is_stringish(zb_type_id t) { return t == ZB_STRING || t == ZB_CATEGORICAL; }

/* numpy promotion of two numeric types (bool with bool stays bool). */
zb_type_id zb__promote_numeric(zb_type_id a, zb_type_id b) {
  if (a == b) return a;
  if (a == ZB_BOOL) return b;
  if (b == ZB_BOOL) return a;
  if (zb_type_is_float(a) || zb_type_is_float(b)) {
    if (a == ZB_FLOAT64 || b == ZB_FLOAT64) return ZB_FLOAT64;
    zb_type_id i = zb_type_is_float(a) ? b : a;
    return zb_type_width(i) <= 2 ? ZB_FLOAT32 : ZB_FLOAT64;
  }
  bool sa = zb_type_is_signed(a), sb = zb_type_is_signed(b);
  if (sa == sb) return zb_type_width(a) >= zb_type_width(b) ? a : b;
  zb_type_id s = sa ? a : b, u = sa ? b : a;
  if (zb_type_width(u) < zb_type_width(s)) return s;
  switch (zb_type_width(u)) {
    case 1: return ZB_INT16;
    case 2: return ZB_INT32;
    case 4: return ZB_INT64;
    default: return ZB_FLOAT64;
  }
}

/* Two dates or two timestamps: their difference is a duration (seconds for
 * dates, the finer of the two units for timestamps): zb_column_date_diff. */
static bool temporal_pair(zb_type_id a, zb_type_id b) {
  return a == b && (a == ZB_DATE32 || a == ZB_TIMESTAMP);
}

/* The compute type (both operands are converted to it) and result type. */
static zb_status binary_types(zb_binary_op op, zb_type_id a, zb_type_id b, zb_type_id *ct,
                              zb_type_id *rt, zb_error *err) {
  if ((int)op < 0 || op >= ZB_BINARY_OP_COUNT)
    return zb_error_set(err, ZB_EINVAL, "unknown binary operation %d", (int)op);
  if ((int)a < 0 || a >= ZB_TYPE_COUNT || (int)b < 0 || b >= ZB_TYPE_COUNT)
    return zb_error_set(err, ZB_ETYPE, "invalid type id");
  bool na = zb_type_is_numeric(a), nb = zb_type_is_numeric(b);
  if (is_cmp(op)) {
    *rt = ZB_BOOL;
    if (na && nb) {
      *ct = zb__promote_numeric(a, b);
      return ZB_OK;
    }
    if (is_stringish(a) && is_stringish(b)) {
      *ct = ZB_STRING;
      return ZB_OK;
    }
    if (a == b && (a == ZB_DATE32 || a == ZB_TIMESTAMP)) {
      *ct = a;
      return ZB_OK;
    }
  } else if (is_logic(op)) {
    if (a == ZB_BOOL && b == ZB_BOOL) {
      *ct = *rt = ZB_BOOL;
      return ZB_OK;
    }
    /* numpy: bitwise logic stays integer; int64 with uint64 promotes to
     * float64, where it is not defined (an error there too). */
    zb_type_id t = zb__promote_numeric(a, b);
    if ((zb_type_is_integer(a) || a == ZB_BOOL) && (zb_type_is_integer(b) || b == ZB_BOOL) &&
        (zb_type_is_integer(t) || t == ZB_BOOL)) {
      *ct = *rt = t;
      return ZB_OK;
    }
  } else if (op == ZB_OP_SUB && temporal_pair(a, b)) { /* see zb_column_binary */
    *ct = *rt = ZB_INT64;
    return ZB_OK;
  } else if (na && nb) {
    zb_type_id t = zb__promote_numeric(a, b);
    if (t == ZB_BOOL) t = ZB_INT64;
    if (op == ZB_OP_TRUEDIV && t != ZB_FLOAT32) t = ZB_FLOAT64; /* numpy: float32 stays */
    *ct = *rt = t;
    return ZB_OK;
  }
  return zb_error_set(err, ZB_ETYPE, "%s is not defined for %s and %s", zb_binary_op_name(op),
                      zb_type_name(a), zb_type_name(b));
}

zb_status zb_binary_result_type(zb_binary_op op, zb_type_id a, zb_type_id b, zb_type_id *out,
                                zb_error *err) {
  zb_type_id ct = ZB_BOOL;
  return binary_types(op, a, b, &ct, out, err);
}

/* ---- dispatch ------------------------------------------------------------ */

zb_status zb__result_to(zb_device dev, zb_column **res, zb_error *err) {
  if (dev.kind == ZB_DEVICE_CPU || *res == NULL) return ZB_OK;
  zb_column *moved = NULL;
  zb_status st = zb_column_to_device(*res, dev, &moved, err);
  zb_column_release(*res);
  *res = moved;
  return st;
}

static zb_status dispatch_binary(zb_binary_op op, const zb_column *a, bool as,
                                 const zb_column *b, bool bs, zb_type_id ct, zb_type_id rt,
                                 zb_column **out, zb_error *err) {
  zb__call c = {.op = ZB__OP_BINARY, .variant = (int32_t)op, .name = zb_binary_op_name(op)};
  c.in[0] = a;
  c.in[1] = b;
  c.scalar[0] = as;
  c.scalar[1] = bs;
  c.p.binary.compute = ct;
  c.p.binary.result = rt;
  return zb__dispatch_column(as ? b->device : a->device, &c, out, err);
}

zb_status zb__categorical_codes(const zb_column *col, zb_column **out, zb_error *err) {
  return zb_column_make(ZB_INT32, col->length, col->offset, col->validity, col->data, NULL,
                        NULL, col->null_count, out, err);
}

zb_status zb__categorical_values(const zb_column *col, zb_column **out, zb_error *err) {
  *out = NULL;
  zb_column *view = NULL, *idx = NULL;
  ZB_RETURN_NOT_OK(zb__categorical_codes(col, &view, err));
  zb_status st = zb_column_cast(view, ZB_INT64, ZB_MICRO, &idx, err);
  if (st == ZB_OK) st = zb_column_take(col->dictionary, idx, out, err);
  zb_column_release(view);
  zb_column_release(idx);
  return st;
}

zb_status zb__decode_valued(const zb_column *c, zb_column **out, zb_error *err) {
  if (!zb__cat_valued(c)) {
    *out = zb_column_retain((zb_column *)c);
    return ZB_OK;
  }
  return zb__categorical_values(c, out, err);
}

zb_status zb__table_decode_valued(const zb_table *t, zb_table **out, zb_error *err) {
  *out = NULL;
  if (t == NULL) return ZB_OK;
  bool any = false;
  for (int64_t i = 0; i < t->num_columns; i++) any = any || zb__cat_valued(t->columns[i]);
  if (!any) {
    *out = zb_table_retain((zb_table *)t);
    return ZB_OK;
  }
  int64_t n = t->num_columns;
  zb_column **cols = (zb_column **)zb_calloc((size_t)n, sizeof(zb_column *));
  if (cols == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (%lld columns)",
                                        (long long)n);
  zb_status st = ZB_OK;
  for (int64_t i = 0; i < n && st == ZB_OK; i++)
    st = zb__decode_valued(t->columns[i], &cols[i], err);
  if (st == ZB_OK) st = zb_table_make(n, cols, (const char *const *)t->names, out, err);
  for (int64_t i = 0; i < n; i++) zb_column_release(cols[i]);
  zb_free(cols);
  return st;
}

zb_status zb__need_string_categories(const zb_column *col, const char *what, zb_error *err) {
  if (!zb__cat_valued(col)) return ZB_OK;
  char buf[64];
  return zb_error_set(err, ZB_ENOTSUP,
                      "%s needs string categories; this categorical's categories are %s "
                      "(cast it to its categories' dtype or to string first)",
                      what, zb_column_type_text(col->dictionary, buf, sizeof buf));
}

/* Categoricals compare by their strings: decode them first. */
static zb_status decode_if_categorical(const zb_column *c, zb_column **out, zb_error *err) {
  if (c->type != ZB_CATEGORICAL) {
    *out = zb_column_retain((zb_column *)c);
    return ZB_OK;
  }
  return zb_column_cast(c, ZB_STRING, ZB_MICRO, out, err);
}

/* Shared tail of the binary entry points: check timestamp compatibility,
 * decode categoricals, dispatch. */
static zb_status duration_binary(zb_binary_op op, const zb_column *a, bool as,
                                 const zb_column *b, bool bs, zb_column **out, zb_error *err);

static zb_status binary_run(zb_binary_op op, const zb_column *a, bool as, const zb_column *b,
                            bool bs, zb_column **out, zb_error *err) {
  if (zb__cat_valued(a) || zb__cat_valued(b)) { /* by their values */
    zb_column *da = NULL, *db = NULL;
    zb_status st = zb__decode_valued(a, &da, err);
    if (st == ZB_OK) st = zb__decode_valued(b, &db, err);
    if (st == ZB_OK) st = binary_run(op, da, as, db, bs, out, err);
    zb_column_release(da);
    zb_column_release(db);
    return st;
  }
  if (a->type == ZB_DURATION || b->type == ZB_DURATION)
    return duration_binary(op, a, as, b, bs, out, err);
  zb_type_id ct = ZB_BOOL, rt = ZB_BOOL;
  ZB_RETURN_NOT_OK(binary_types(op, a->type, b->type, &ct, &rt, err));
  if (a->type == ZB_TIMESTAMP) {
    const char *ta = a->timezone ? a->timezone : "", *tb = b->timezone ? b->timezone : "";
    if (a->unit != b->unit)
      return zb_error_set(err, ZB_ETYPE, "%s: timestamps of different units (%d and %d)",
                          zb_binary_op_name(op), (int)a->unit, (int)b->unit);
    if (strcmp(ta, tb) != 0)
      return zb_error_set(err, ZB_ETYPE, "%s: timestamps of different timezones ('%s' and '%s')",
                          zb_binary_op_name(op), ta, tb);
  }
  if (ct != ZB_STRING) return dispatch_binary(op, a, as, b, bs, ct, rt, out, err);
  zb_column *da = NULL, *db = NULL;
  zb_status st = decode_if_categorical(a, &da, err);
  if (st == ZB_OK) st = decode_if_categorical(b, &db, err);
  if (st == ZB_OK) st = dispatch_binary(op, da, as, db, bs, ct, rt, out, err);
  zb_column_release(da);
  zb_column_release(db);
  return st;
}

/* ---- durations ------------------------------------------------------------ */

/* The result type of op on a duration and another operand (pandas'
 * timedelta64 rules), ZB_TYPE_COUNT when undefined:
 *   duration op duration: comparisons -> bool; + - % -> duration;
 *     / -> float64; // -> int64;
 *   timestamp + duration, duration + timestamp, timestamp - duration ->
 *     timestamp (its zone kept);
 *   duration * number, number * duration, duration / number,
 *     duration // number -> duration (a float result truncated to whole
 *     units, as numpy does). */
static zb_type_id duration_result(zb_binary_op op, zb_type_id a, zb_type_id b) {
  bool da = a == ZB_DURATION, db = b == ZB_DURATION;
  bool na = zb_type_is_integer(a) || zb_type_is_float(a);
  bool nb = zb_type_is_integer(b) || zb_type_is_float(b);
  if (da && db) {
    if (is_cmp(op)) return ZB_BOOL;
    switch (op) {
      case ZB_OP_ADD:
      case ZB_OP_SUB:
      case ZB_OP_MOD: return ZB_DURATION;
      case ZB_OP_TRUEDIV: return ZB_FLOAT64;
      case ZB_OP_FLOORDIV: return ZB_INT64;
      default: return ZB_TYPE_COUNT;
    }
  }
  if (op == ZB_OP_ADD && ((a == ZB_TIMESTAMP && db) || (da && b == ZB_TIMESTAMP)))
    return ZB_TIMESTAMP;
  if (op == ZB_OP_SUB && a == ZB_TIMESTAMP && db) return ZB_TIMESTAMP;
  if (op == ZB_OP_MUL && ((da && nb) || (na && db))) return ZB_DURATION;
  if ((op == ZB_OP_TRUEDIV || op == ZB_OP_FLOORDIV) && da && nb) return ZB_DURATION;
  return ZB_TYPE_COUNT;
}

static bool has_time_unit(zb_type_id t) { return t == ZB_TIMESTAMP || t == ZB_DURATION; }

/* c as an int64 view in `unit` (timestamps and durations), or c itself. */
static zb_status raw_in_unit(const zb_column *c, zb_time_unit unit, zb_column **out,
                             zb_error *err) {
  *out = NULL;
  if (!has_time_unit(c->type)) {
    *out = zb_column_retain((zb_column *)c);
    return ZB_OK;
  }
  zb_column *u = NULL;
  zb_status st = c->type == ZB_DURATION ? zb__duration_to_unit(c, unit, &u, err)
                 : c->unit == unit     ? (u = zb_column_retain((zb_column *)c), ZB_OK)
                                       : zb_column_cast(c, ZB_TIMESTAMP, unit, &u, err);
  if (st == ZB_OK) st = zb__column_retag(u, ZB_INT64, unit, NULL, out, err);
  zb_column_release(u);
  return st;
}

/* a / b rounded toward zero, for integer columns (numpy's timedelta64 by
 * integer division, / and // alike): the floor quotient, plus one where
 * the remainder is not zero and the signs differ.  Exact past 2^53, where
 * a float quotient would not be. */
static zb_status trunc_div(const zb_column *a, bool as, const zb_column *b, bool bs,
                           zb_column **out, zb_error *err) {
  *out = NULL;
  zb_column *q = NULL, *r = NULL, *x = NULL, *neg = NULL, *nz = NULL, *fix = NULL;
  zb_scalar zero = {.type = ZB_INT64, .v.i = 0};
  zb_status st = binary_run(ZB_OP_FLOORDIV, a, as, b, bs, &q, err);
  if (st == ZB_OK) st = binary_run(ZB_OP_MOD, a, as, b, bs, &r, err);
  if (st == ZB_OK) st = binary_run(ZB_OP_XOR, a, as, b, bs, &x, err);
  if (st == ZB_OK) st = zb_column_binary_scalar(ZB_OP_LT, x, &zero, false, &neg, err);
  if (st == ZB_OK) st = zb_column_binary_scalar(ZB_OP_NE, r, &zero, false, &nz, err);
  if (st == ZB_OK) st = zb_column_binary(ZB_OP_AND, neg, nz, &fix, err);
  if (st == ZB_OK) st = zb_column_binary(ZB_OP_ADD, q, fix, out, err);
  zb_column_release(q);
  zb_column_release(r);
  zb_column_release(x);
  zb_column_release(neg);
  zb_column_release(nz);
  zb_column_release(fix);
  return st;
}

__extension__ typedef __int128 co_i128;

/* The least and greatest valid value of integer column c (*any false when
 * it has none). */
static zb_status int_range(const zb_column *c, co_i128 *lo, co_i128 *hi, bool *any,
                           zb_error *err) {
  zb_scalar mn, mx;
  ZB_RETURN_NOT_OK(zb_column_reduce(c, ZB_REDUCE_MIN, &mn, err));
  ZB_RETURN_NOT_OK(zb_column_reduce(c, ZB_REDUCE_MAX, &mx, err));
  *any = !mn.is_null;
  bool u = zb_type_is_integer(c->type) && !zb_type_is_signed(c->type);
  *lo = mn.type == ZB_BOOL ? (co_i128)mn.v.b : u ? (co_i128)mn.v.u : (co_i128)mn.v.i;
  *hi = mx.type == ZB_BOOL ? (co_i128)mx.v.b : u ? (co_i128)mx.v.u : (co_i128)mx.v.i;
  return ZB_OK;
}

/* The least valid value of x op y (columns, or length-1 scalar columns). */
static zb_status least_of(zb_binary_op op, const zb_column *x, bool xs, const zb_column *y,
                          bool ys, zb_scalar *out, zb_error *err) {
  zb_column *t = NULL;
  zb_status st = binary_run(op, x, xs, y, ys, &t, err);
  if (st == ZB_OK) st = zb_column_reduce(t, ZB_REDUCE_MIN, out, err);
  zb_column_release(t);
  return st;
}

zb_status zb__time_overflow(zb_binary_op op, const zb_column *a, bool as, const zb_column *b,
                            bool bs, const zb_column *res, zb_error *err) {
  co_i128 la, ha, lb, hb;
  bool anya, anyb;
  ZB_RETURN_NOT_OK(int_range(a, &la, &ha, &anya, err));
  ZB_RETURN_NOT_OK(int_range(b, &lb, &hb, &anyb, err));
  if (!anya || !anyb) return ZB_OK;
  const co_i128 top = INT64_MAX, bottom = INT64_MIN;
  const char *what = op == ZB_OP_MUL ? "multiplication" : "addition";
  bool maybe;
  if (op == ZB_OP_MUL) {
    co_i128 ma = ZB_MAX(-la, ha), mb = ZB_MAX(-lb, hb);
    maybe = ma * mb > top;
  } else {
    co_i128 hi = op == ZB_OP_ADD ? ha + hb : ha - lb, lo = op == ZB_OP_ADD ? la + lb : la - hb;
    maybe = hi > top || lo <= bottom;
  }
  if (!maybe) return ZB_OK;
  bool bad = false;
  zb_status st = ZB_OK;
  if (op == ZB_OP_MUL) { /* the products in float64: past +-2^63 */
    zb_column *fa = NULL, *fb = NULL, *p = NULL;
    zb_scalar mn, mx;
    st = zb_column_cast(a, ZB_FLOAT64, ZB_MICRO, &fa, err);
    if (st == ZB_OK) st = zb_column_cast(b, ZB_FLOAT64, ZB_MICRO, &fb, err);
    if (st == ZB_OK) st = binary_run(ZB_OP_MUL, fa, as, fb, bs, &p, err);
    if (st == ZB_OK) st = zb_column_reduce(p, ZB_REDUCE_MIN, &mn, err);
    if (st == ZB_OK) st = zb_column_reduce(p, ZB_REDUCE_MAX, &mx, err);
    bad = st == ZB_OK && !mn.is_null && (mn.v.f <= -0x1p63 || mx.v.f >= 0x1p63);
    zb_column_release(fa);
    zb_column_release(fb);
    zb_column_release(p);
  } else { /* wrapped when the sign of res differs from both addends' */
    zb_column *x = NULL, *y = NULL;
    zb_scalar m, r;
    st = binary_run(ZB_OP_XOR, a, as, res, false, &x, err);
    if (st == ZB_OK)
      st = op == ZB_OP_ADD ? binary_run(ZB_OP_XOR, b, bs, res, false, &y, err)
                           : binary_run(ZB_OP_XOR, a, as, b, bs, &y, err);
    if (st == ZB_OK) st = least_of(ZB_OP_AND, x, false, y, false, &m, err);
    if (st == ZB_OK) st = zb_column_reduce(res, ZB_REDUCE_MIN, &r, err);
    bad = st == ZB_OK && ((!m.is_null && m.v.i < 0) || (!r.is_null && r.v.i == INT64_MIN));
    zb_column_release(x);
    zb_column_release(y);
  }
  if (st == ZB_OK && bad) st = zb_error_set(err, ZB_EOVERFLOW, "Overflow in int64 %s", what);
  return st;
}

/* op with a duration operand: both sides as int64 in the finer unit, the
 * int64 (or float64) kernels, and the result retagged (duration_result). */
static zb_status duration_binary(zb_binary_op op, const zb_column *a, bool as,
                                 const zb_column *b, bool bs, zb_column **out, zb_error *err) {
  zb_type_id rt = duration_result(op, a->type, b->type);
  if (rt == ZB_TYPE_COUNT)
    return zb_error_set(err, ZB_ETYPE, "%s is not defined for %s and %s", zb_binary_op_name(op),
                        zb_type_name(a->type), zb_type_name(b->type));
  zb_time_unit unit = has_time_unit(a->type) && has_time_unit(b->type) ? ZB_MAX(a->unit, b->unit)
                      : has_time_unit(a->type)                         ? a->unit
                                                                       : b->unit;
  const char *tz = a->type == ZB_TIMESTAMP ? a->timezone
                   : b->type == ZB_TIMESTAMP ? b->timezone
                                             : NULL;
  zb_column *ra = NULL, *rb = NULL, *res = NULL, *whole = NULL;
  zb_status st = raw_in_unit(a, unit, &ra, err);
  if (st == ZB_OK) st = raw_in_unit(b, unit, &rb, err);
  if (st == ZB_OK && rt == ZB_DURATION && (op == ZB_OP_TRUEDIV || op == ZB_OP_FLOORDIV) &&
      zb_type_is_integer(b->type))
    st = trunc_div(ra, as, rb, bs, &res, err);
  else if (st == ZB_OK)
    st = binary_run(op, ra, as, rb, bs, &res, err);
  if (st == ZB_OK && (op == ZB_OP_ADD || op == ZB_OP_SUB || op == ZB_OP_MUL) &&
      (rt == ZB_DURATION || rt == ZB_TIMESTAMP) && res->type == ZB_INT64)
    st = zb__time_overflow(op, ra, as, rb, bs, res, err);
  if (st == ZB_OK && (rt == ZB_DURATION || rt == ZB_TIMESTAMP)) {
    if (res->type != ZB_INT64) { /* a float factor: whole units, truncated */
      st = zb_column_cast(res, ZB_INT64, unit, &whole, err);
      zb_column_release(res);
      res = whole;
      whole = NULL;
    }
    if (st == ZB_OK) st = zb__column_retag(res, rt, unit, tz, &whole, err);
    zb_column_release(res);
    res = whole;
  }
  zb_column_release(ra);
  zb_column_release(rb);
  if (st != ZB_OK) {
    zb_column_release(res);
    res = NULL;
  }
  *out = res;
  return st;
}

zb_status zb_column_binary(zb_binary_op op, const zb_column *a, const zb_column *b,
                           zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "binary: NULL output");
  *out = NULL;
  if (a == NULL || b == NULL) return zb_error_set(err, ZB_EINVAL, "binary: NULL column");
  if (a->length != b->length)
    return zb_error_set(err, ZB_EINVAL,
                        "%s: length mismatch: left has %lld rows, right has %lld",
                        zb_binary_op_name(op), (long long)a->length, (long long)b->length);
  if (!zb_device_equal(a->device, b->device))
    return zb_error_set(err, ZB_EINVAL, "%s: operands on different devices",
                        zb_binary_op_name(op));
  if (op == ZB_OP_SUB && temporal_pair(a->type, b->type))
    return zb_column_date_diff(a, b, out, err);
  return binary_run(op, a, false, b, false, out, err);
}

/* A length-1 host column holding scalar s (timestamp unit and timezone from
 * like). */
static zb_status scalar_column(const zb_scalar *s, const zb_column *like, zb_column **out,
                               zb_error *err) {
  *out = NULL;
  zb_type_id t = s->type;
  if ((int)t < 0 || t >= ZB_TYPE_COUNT || is_stringish(t))
    return zb_error_set(err, ZB_ETYPE, "a %s scalar is not supported here (use the string variant)",
                        zb_type_name(t));
  int64_t i = s->v.i;
  uint64_t u = s->v.u;
  bool fits = true;
  switch (zb__physical(t)) {
#define FITS_SIGNED(ID, T, NAME, U) \
  case ID: fits = i >= ZB_SIGNED_MIN(T, U) && i <= ZB_SIGNED_MAX(T, U); break;
#define FITS_UNSIGNED(ID, T, NAME, U) \
  case ID: fits = u <= ZB_UNSIGNED_MAX(U); break;
    ZB_FOR_EACH_SIGNED_TYPE(FITS_SIGNED)
    ZB_FOR_EACH_UNSIGNED_TYPE(FITS_UNSIGNED)
#undef FITS_SIGNED
#undef FITS_UNSIGNED
    default: break;
  }
  if (!s->is_null && !fits)
    return zb_error_set(err, ZB_EOVERFLOW, "scalar value does not fit its type %s",
                        zb_type_name(t));
  zb_column *c = NULL;
  ZB_RETURN_NOT_OK(zb__new_like(like, t, 1, true, 0, &c, err));
  if (t == ZB_DURATION && like != NULL && like->type != ZB_DURATION) {
    /* a duration scalar is in the unit of the column next to it */
    zb_status st = zb_column_set_time(c, like->unit, NULL, err);
    if (st != ZB_OK) {
      zb_column_release(c);
      return st;
    }
  }
  void *d = c->data->data;
  zb__scalar_store(s, zb__physical(t), d);
  if (s->is_null) zb_bit_set((uint8_t *)c->validity->data, 0, false);
  zb_column_recount_nulls(c);
  *out = c;
  return ZB_OK;
}

/* A length-1 host string column holding s[0, len) (s NULL: null). */
zb_status zb__string_scalar_column(const char *s, int64_t len, zb_column **out, zb_error *err) {
  *out = NULL;
  if (s == NULL) len = 0;
  if (len < 0) return zb_error_set(err, ZB_EINVAL, "negative string length %lld", (long long)len);
  zb_column *c = NULL;
  ZB_RETURN_NOT_OK(zb_column_new(ZB_STRING, 1, true, len, &c, err));
  int64_t *o = (int64_t *)c->data->data;
  o[0] = 0;
  o[1] = len;
  if (len > 0) memcpy(c->chars->data, s, (size_t)len);
  if (s == NULL) zb_bit_set((uint8_t *)c->validity->data, 0, false);
  zb_column_recount_nulls(c);
  *out = c;
  return ZB_OK;
}

zb_status zb_column_binary_scalar(zb_binary_op op, const zb_column *col, const zb_scalar *s,
                                  bool scalar_first, zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "binary: NULL output");
  *out = NULL;
  if (col == NULL || s == NULL) return zb_error_set(err, ZB_EINVAL, "binary: NULL argument");
  if (op == ZB_OP_SUB && temporal_pair(col->type, s->type)) {
    /* the scalar is in the column's unit: the difference of the raw values */
    zb_column *raw = NULL;
    ZB_RETURN_NOT_OK(zb_column_cast(col, ZB_INT64, col->unit, &raw, err));
    zb_scalar v = *s;
    v.type = ZB_INT64;
    zb_column *diff = NULL, *sc = NULL;
    zb_status st = zb_column_binary_scalar(op, raw, &v, scalar_first, &diff, err);
    if (st == ZB_OK && col->type == ZB_TIMESTAMP) st = scalar_column(&v, raw, &sc, err);
    if (st == ZB_OK && col->type == ZB_TIMESTAMP)
      st = scalar_first ? zb__time_overflow(op, sc, true, raw, false, diff, err)
                        : zb__time_overflow(op, raw, false, sc, true, diff, err);
    zb_column_release(sc);
    zb_column_release(raw);
    /* a duration in the column's unit: date32 differences are days, so
     * seconds (Arrow's unit for date32 - date32) */
    if (st == ZB_OK && col->type == ZB_DATE32) {
      zb_column *secs = NULL;
      zb_scalar day = {.type = ZB_INT64, .v.i = 86400};
      st = zb_column_binary_scalar(ZB_OP_MUL, diff, &day, false, &secs, err);
      zb_column_release(diff);
      diff = secs;
    }
    if (st == ZB_OK)
      st = zb__column_retag(diff, ZB_DURATION, col->type == ZB_DATE32 ? ZB_SECOND : col->unit,
                            NULL, out, err);
    zb_column_release(diff);
    return st;
  }
  zb_column *sc = NULL;
  ZB_RETURN_NOT_OK(scalar_column(s, col, &sc, err));
  zb_status st = scalar_first ? binary_run(op, sc, true, col, false, out, err)
                              : binary_run(op, col, false, sc, true, out, err);
  zb_column_release(sc);
  return st;
}

zb_status zb_column_binary_string(zb_binary_op op, const zb_column *col, const char *s,
                                  int64_t len, bool scalar_first, zb_column **out,
                                  zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "binary: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "binary: NULL column");
  if (!is_cmp(op))
    return zb_error_set(err, ZB_ETYPE, "%s is not defined for strings", zb_binary_op_name(op));
  zb_column *sc = NULL;
  ZB_RETURN_NOT_OK(zb__string_scalar_column(s, len, &sc, err));
  zb_status st = scalar_first ? binary_run(op, sc, true, col, false, out, err)
                              : binary_run(op, col, false, sc, true, out, err);
  zb_column_release(sc);
  return st;
}

zb_status zb_column_unary(zb_unary_op op, const zb_column *col, zb_column **out,
                          zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "unary: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "unary: NULL column");
  if ((int)op < 0 || op >= ZB_UNARY_OP_COUNT)
    return zb_error_set(err, ZB_EINVAL, "unknown unary operation %d", (int)op);
  zb_type_id t = col->type;
  if (t == ZB_DURATION && (op == ZB_OP_NEG || op == ZB_OP_ABS)) {
    zb_column *raw = NULL, *res = NULL;
    zb_status st = zb__column_retag(col, ZB_INT64, col->unit, NULL, &raw, err);
    if (st == ZB_OK) st = zb_column_unary(op, raw, &res, err);
    if (st == ZB_OK) st = zb__column_retag(res, ZB_DURATION, col->unit, NULL, out, err);
    zb_column_release(raw);
    zb_column_release(res);
    return st;
  }
  bool ok = (op == ZB_OP_NEG && (zb_type_is_integer(t) || zb_type_is_float(t))) ||
            (op == ZB_OP_ABS && zb_type_is_numeric(t)) ||
            (op == ZB_OP_INVERT && (zb_type_is_integer(t) || t == ZB_BOOL));
  if (!ok)
    return zb_error_set(err, ZB_ETYPE, "%s is not defined for a %s column",
                        zb_unary_op_name(op), zb_type_name(t));
  zb__call c = {.op = ZB__OP_UNARY, .variant = (int32_t)op, .name = zb_unary_op_name(op)};
  c.in[0] = col;
  return zb__dispatch_column(col->device, &c, out, err);
}

/* ---- casts ---------------------------------------------------------------- */

/* Casts from and to durations, through int64 views: duration <-> duration
 * in another unit, duration -> integer or float (its count of units), and
 * integer -> duration (the integers as counts of `unit`).  Strings and
 * floats become durations in the Python layer (to_timedelta). */
static zb_status duration_cast(const zb_column *col, zb_type_id target, zb_time_unit unit,
                               zb_column **out, zb_error *err) {
  *out = NULL;
  zb_type_id s = col->type;
  if (s == ZB_DURATION && target == ZB_DURATION) return zb__duration_to_unit(col, unit, out, err);
  zb_column *raw = NULL;
  zb_status st = ZB_OK;
  if (s == ZB_DURATION && (zb_type_is_integer(target) || zb_type_is_float(target))) {
    st = zb__column_retag(col, ZB_INT64, col->unit, NULL, &raw, err);
    if (st == ZB_OK) st = zb_column_cast(raw, target, unit, out, err);
  } else if (target == ZB_DURATION && (zb_type_is_integer(s) || s == ZB_BOOL)) {
    st = zb_column_cast(col, ZB_INT64, unit, &raw, err);
    if (st == ZB_OK) st = zb__column_retag(raw, ZB_DURATION, unit, NULL, out, err);
  } else {
    st = zb_error_set(err, ZB_ETYPE, "cannot cast %s to %s", zb_type_name(s),
                      zb_type_name(target));
  }
  zb_column_release(raw);
  return st;
}

zb_status zb_column_cast(const zb_column *col, zb_type_id target, zb_time_unit unit,
                         zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "cast: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "cast: NULL column");
  if ((int)target < 0 || target >= ZB_TYPE_COUNT)
    return zb_error_set(err, ZB_ETYPE, "cast: invalid target type id %d", (int)target);
  if ((int)unit < ZB_SECOND || unit > ZB_NANO) unit = ZB_MICRO;
  if (col->type == target && (!has_time_unit(target) || col->unit == unit)) {
    *out = zb_column_retain((zb_column *)col); /* columns are immutable */
    return ZB_OK;
  }
  /* the categories' values, then as those; on a GPU also for string
   * categories (a take of the dictionary, which the GPU runs) */
  if (zb__cat_valued(col) ||
      (col->type == ZB_CATEGORICAL && col->device.kind != ZB_DEVICE_CPU &&
       col->dictionary != NULL && zb_device_equal(col->dictionary->device, col->device))) {
    zb_column *v = NULL;
    ZB_RETURN_NOT_OK(zb__categorical_values(col, &v, err));
    zb_status st = zb_column_cast(v, target, unit, out, err);
    zb_column_release(v);
    return st;
  }
  if (col->type == ZB_DURATION || target == ZB_DURATION) return duration_cast(col, target, unit, out, err);
  zb__call c = {.op = ZB__OP_CAST, .variant = (int32_t)target};
  c.in[0] = col;
  c.p.cast.unit = unit;
  return zb__dispatch_column(col->device, &c, out, err);
}

/* ---- nulls and selection ------------------------------------------------- */

static zb_status is_null_common(const zb_column *col, bool want_valid, zb_column **out,
                                zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "isnull: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "isnull: NULL column");
  zb__call c = {.op = ZB__OP_IS_NULL, .variant = want_valid, .name = want_valid ? "notnull" : "isnull"};
  c.in[0] = col;
  return zb__dispatch_column(col->device, &c, out, err);
}

zb_status zb_column_isnull(const zb_column *col, zb_column **out, zb_error *err) {
  return is_null_common(col, false, out, err);
}

zb_status zb_column_notnull(const zb_column *col, zb_column **out, zb_error *err) {
  return is_null_common(col, true, out, err);
}

/* fill with a length-1 host column `value` of col's type (string for
 * categoricals: translated to a code here). */
static zb_status fill_run(const zb_column *col, const zb_column *value, zb_column **out,
                          zb_error *err) {
  if (col->null_count == 0) {
    *out = zb_column_retain((zb_column *)col);
    return ZB_OK;
  }
  zb_column *v = zb_column_retain((zb_column *)value);
  zb_status st = ZB_OK;
  if (col->type == ZB_CATEGORICAL)
    st = zb__need_string_categories(col, "fill_null with a string value", err);
  if (st == ZB_OK && col->type == ZB_CATEGORICAL) {
    /* The code of the fill string in the dictionary (on the host). */
    zb_column *hd = NULL, *code = NULL;
    st = zb_column_to_device(col->dictionary, ZB_CPU, &hd, err);
    int64_t flen, found = -1;
    const char *f = zb__str(value, 0, &flen);
    for (int64_t k = 0; st == ZB_OK && k < hd->length && found < 0; k++) {
      int64_t len;
      const char *p = zb__str(hd, k, &len);
      if (len == flen && (len == 0 || memcmp(p, f, (size_t)len) == 0)) found = k;
    }
    zb_column_release(hd);
    if (st == ZB_OK && found < 0)
      st = zb_error_set(err, ZB_EINVAL, "fill value '%.*s' is not among the categories",
                        (int)ZB_MIN(flen, (int64_t)64), f);
    if (st == ZB_OK) st = zb__new_like(col, ZB_CATEGORICAL, 1, false, 0, &code, err);
    if (st == ZB_OK) ((int32_t *)code->data->data)[0] = (int32_t)found;
    zb_column_release(v);
    v = code;
  }
  if (st == ZB_OK) {
    zb__call c = {.op = ZB__OP_FILL_NULL};
    c.in[0] = col;
    c.in[1] = v;
    st = zb__dispatch_column(col->device, &c, out, err);
  }
  zb_column_release(v);
  return st;
}

zb_status zb_column_fill_null(const zb_column *col, const zb_scalar *value, zb_column **out,
                              zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "fill_null: NULL output");
  *out = NULL;
  if (col == NULL || value == NULL) return zb_error_set(err, ZB_EINVAL, "fill_null: NULL argument");
  zb_type_id t = col->type;
  if (t == ZB_LIST) return zb_error_set(err, ZB_ETYPE, "fill_null is not supported for list columns");
  if (!(zb_type_is_numeric(t) || t == ZB_DATE32 || t == ZB_TIMESTAMP || t == ZB_DURATION))
    return zb_error_set(err, ZB_ETYPE, "fill_null: a %s column needs a string fill value",
                        zb_type_name(t));
  if (value->is_null) {
    *out = zb_column_retain((zb_column *)col);
    return ZB_OK;
  }
  zb_scalar s = *value;
  if (t == ZB_DATE32 || t == ZB_TIMESTAMP || t == ZB_DURATION) {
    if (!zb_type_is_integer(s.type) && s.type != t)
      return zb_error_set(err, ZB_ETYPE, "fill_null: a %s scalar for a %s column",
                          zb_type_name(s.type), zb_type_name(t));
    s.type = t == ZB_DATE32 ? ZB_INT32 : ZB_INT64;
    if (zb_type_is_integer(value->type) && !zb_type_is_signed(value->type)) {
      if (value->v.u > INT64_MAX) return zb_error_set(err, ZB_EOVERFLOW, "fill value too large");
      s.v.i = (int64_t)value->v.u;
    }
  } else if (!zb_type_is_numeric(s.type)) {
    return zb_error_set(err, ZB_ETYPE, "fill_null: a %s scalar for a %s column",
                        zb_type_name(s.type), zb_type_name(t));
  }
  if (zb_type_is_float(s.type) && zb_type_is_integer(t) && s.v.f != (double)(int64_t)s.v.f)
    return zb_error_set(err, ZB_ETYPE, "fill_null: %g is not an integer (column is %s)", s.v.f,
                        zb_type_name(t));
  zb_column *sc = NULL, *conv = NULL;
  zb_status st = scalar_column(&s, col, &sc, err);
  if (st == ZB_OK) st = zb_column_cast(sc, zb__physical(t), col->unit, &conv, err);
  if (st == ZB_OK && conv->type != t) {
    /* date32 / timestamp: same bytes, relabel via a fresh column */
    zb_column *lab = NULL;
    st = zb__new_like(col, t, 1, false, 0, &lab, err);
    if (st == ZB_OK) memcpy(lab->data->data, conv->data->data, (size_t)zb_type_width(t));
    zb_column_release(conv);
    conv = lab;
  }
  if (st == ZB_OK) st = fill_run(col, conv, out, err);
  zb_column_release(sc);
  zb_column_release(conv);
  return st;
}

zb_status zb_column_fill_null_string(const zb_column *col, const char *s, int64_t len,
                                     zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "fill_null: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "fill_null: NULL column");
  if (!is_stringish(col->type))
    return zb_error_set(err, ZB_ETYPE, "fill_null: a string fill value for a %s column",
                        zb_type_name(col->type));
  if (s == NULL) {
    *out = zb_column_retain((zb_column *)col);
    return ZB_OK;
  }
  zb_column *sc = NULL;
  ZB_RETURN_NOT_OK(zb__string_scalar_column(s, len, &sc, err));
  zb_status st = fill_run(col, sc, out, err);
  zb_column_release(sc);
  return st;
}

/* ffill / bfill: one checked entry, the direction as the call's variant. */
static zb_status fill_scan(const zb_column *col, int64_t limit, zb_fill_area area,
                           bool backward, zb_column **out, zb_error *err) {
  const char *name = backward ? "bfill" : "ffill";
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "%s: NULL output", name);
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "%s: NULL column", name);
  if ((int)area < 0 || area >= ZB_FILL_AREA_COUNT)
    return zb_error_set(err, ZB_EINVAL, "%s: unknown fill area %d", name, (int)area);
  zb__call c = {.op = ZB__OP_FILL_SCAN, .variant = backward ? 1 : 0, .name = name};
  c.in[0] = col;
  c.p.fill_scan.limit = limit < 0 ? INT64_MAX : limit;
  c.p.fill_scan.area = area;
  return zb__dispatch_column(col->device, &c, out, err);
}

zb_status zb_column_fill_forward(const zb_column *col, int64_t limit, zb_fill_area area,
                                 zb_column **out, zb_error *err) {
  return fill_scan(col, limit, area, false, out, err);
}

zb_status zb_column_fill_backward(const zb_column *col, int64_t limit, zb_fill_area area,
                                  zb_column **out, zb_error *err) {
  return fill_scan(col, limit, area, true, out, err);
}

static zb_status check_mask(const zb_column *col_or_null, int64_t length, zb_device dev,
                            const zb_column *mask, zb_error *err) {
  if (mask == NULL) return zb_error_set(err, ZB_EINVAL, "filter: NULL mask");
  if (mask->type != ZB_BOOL)
    return zb_error_set(err, ZB_ETYPE, "filter: the mask must be bool, not %s",
                        zb_type_name(mask->type));
  if (mask->length != length)
    return zb_error_set(err, ZB_EINVAL, "filter: mask has %lld rows, the data %lld",
                        (long long)mask->length, (long long)length);
  if (!zb_device_equal(mask->device, dev))
    return zb_error_set(err, ZB_EINVAL, "filter: mask and data on different devices");
  return ZB_OK;
}

zb_status zb_column_filter(const zb_column *col, const zb_column *mask, zb_column **out,
                           zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "filter: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "filter: NULL column");
  ZB_RETURN_NOT_OK(check_mask(col, col->length, col->device, mask, err));
  zb__call c = {.op = ZB__OP_FILTER};
  c.in[0] = col;
  c.in[1] = mask;
  return zb__dispatch_column(col->device, &c, out, err);
}

/* Build a table of t's names over new columns (consumes cols). */
static zb_status table_from(const zb_table *t, zb_column **cols, zb_table **out, zb_error *err) {
  zb_status st = zb_table_make(t->num_columns, cols, (const char *const *)t->names, out, err);
  for (int64_t c = 0; c < t->num_columns; c++) zb_column_release(cols[c]);
  zb_free(cols);
  return st;
}

typedef zb_status (*column_op)(const zb_column *col, const zb_column *arg, zb_column **out,
                               zb_error *err);

/* Prefixes err's message with the column it is about. */
static void name_column(zb_error *err, zb_status st, const char *name) {
  if (err == NULL) return;
  char msg[ZB_ERROR_MESSAGE_SIZE];
  snprintf(msg, sizeof msg, "%s", err->message);
  zb_error_set(err, st, "column '%s': %s", name, msg);
}

static zb_status table_apply(const zb_table *t, const zb_column *arg, column_op fn,
                             zb_table **out, zb_error *err) {
  int64_t n = t->num_columns;
  zb_column **cols = (zb_column **)zb_calloc((size_t)(n > 0 ? n : 1), sizeof(zb_column *));
  if (cols == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (table)");
  zb_status st = ZB_OK;
  for (int64_t c = 0; c < n && st == ZB_OK; c++) {
    st = fn(t->columns[c], arg, &cols[c], err);
    if (st != ZB_OK) name_column(err, st, t->names[c]);
  }
  if (st != ZB_OK) {
    for (int64_t c = 0; c < n; c++) zb_column_release(cols[c]);
    zb_free(cols);
    return st;
  }
  return table_from(t, cols, out, err);
}

zb_status zb_table_filter(const zb_table *t, const zb_column *mask, zb_table **out,
                          zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "filter: NULL output");
  *out = NULL;
  if (t == NULL) return zb_error_set(err, ZB_EINVAL, "filter: NULL table");
  ZB_RETURN_NOT_OK(check_mask(NULL, t->num_rows, zb_table_device(t), mask, err));
  zb_device dev = mask->device;
  zb__call c = {.op = ZB__OP_FILTER, .variant = 1, .name = "table_filter"};
  c.table = t;
  c.in[1] = mask;
  const zb_backend *be = zb__backend_for(dev.kind);
  if (t->num_columns > 0 && zb__backend_supports(be, &c)) {
    /* all columns in one pass */
    ZB_RETURN_NOT_OK(zb__dispatch(dev, &c, err));
    *out = c.out_table;
    return ZB_OK;
  }
  ZB_PROFILE_OP("table_filter", be, ZB__OP_FILTER, dev, t->num_rows);
  return table_apply(t, mask, zb_column_filter, out, err);
}

/* Per morsel of an index column: any index outside [0, length) among the
 * valid ones (bad), any index not equal to its position (off). */
typedef struct index_check {
  const zb_column *h;
  int64_t length;
  uint8_t *bad, *off; /* per morsel */
} index_check;

static void check_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  index_check *j = (index_check *)ctx;
  const zb_column *h = j->h;
  const int64_t *ix = (const int64_t *)h->data->data + h->offset;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(h->length, s + ZB_MORSEL_ROWS);
  uint64_t bad = 0, off = 0, length = (uint64_t)j->length;
  if (h->null_count == 0) { /* branch-free */
    for (int64_t i = s; i < e; i++) {
      bad |= (uint64_t)((uint64_t)ix[i] >= length);
      off |= (uint64_t)ix[i] ^ (uint64_t)i;
    }
  } else {
    off = 1;
    for (int64_t i = s; i < e; i++)
      bad |= (uint64_t)((uint64_t)ix[i] >= length && zb_column_is_valid(h, i));
  }
  j->bad[task] = bad != 0;
  j->off[task] = off != 0;
}

/* Indices must be int64 in [0, length) where valid; *identity: they are
 * exactly 0, 1, ..., length - 1 (no nulls), so a take is the data itself.
 * The check runs in parallel morsels (a join's 9 * 10^6 indices were a
 * serial pass of a few ms); only a bad index is then looked for in order,
 * to name the first. */
static zb_status check_indices(const zb_column *indices, int64_t length, bool *identity,
                               zb_error *err) {
  *identity = false;
  if (indices == NULL) return zb_error_set(err, ZB_EINVAL, "take: NULL indices");
  if (indices->type != ZB_INT64)
    return zb_error_set(err, ZB_ETYPE, "take: indices must be int64, not %s",
                        zb_type_name(indices->type));
  if (indices->device.kind != ZB_DEVICE_CPU) {
    /* On the device: its min and max say whether all valid indices are in
     * range, without copying them home (a take of device data stays
     * device-bound); only a bad index is then looked for on the host, to
     * name the first.  Identity is not looked for here. */
    zb_scalar lo, hi;
    ZB_RETURN_NOT_OK(zb_column_reduce(indices, ZB_REDUCE_MIN, &lo, err));
    ZB_RETURN_NOT_OK(zb_column_reduce(indices, ZB_REDUCE_MAX, &hi, err));
    if (lo.is_null || (lo.v.i >= 0 && hi.v.i < length)) return ZB_OK;
  }
  zb_column *h = NULL;
  ZB_RETURN_NOT_OK(zb_column_to_device(indices, ZB_CPU, &h, err));
  const int64_t *ix = (const int64_t *)h->data->data + h->offset;
  int64_t n = h->length, nm = zb__morsels(n);
  index_check j = {h, length, (uint8_t *)zb_malloc((size_t)ZB_MAX(2 * nm, 1)), NULL};
  zb_status st = ZB_OK;
  if (j.bad == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (take)");
    goto done;
  }
  j.off = j.bad + nm;
  st = zb_parallel_for(nm, check_morsel, &j, err);
  if (st != ZB_OK) goto done;
  bool any_bad = false, any_off = false;
  for (int64_t m = 0; m < nm; m++) {
    any_bad |= j.bad[m];
    any_off |= j.off[m];
  }
  *identity = !any_bad && !any_off && h->null_count == 0 && n == length;
  for (int64_t i = 0; any_bad && i < n; i++) {
    if ((uint64_t)ix[i] < (uint64_t)length || !zb_column_is_valid(h, i)) continue;
    st = zb_error_set(err, ZB_EINDEX, "take: index %lld at position %lld is %s (%lld rows)",
                      (long long)ix[i], (long long)i, ix[i] < 0 ? "negative" : "out of range",
                      (long long)length);
    break;
  }
done:
  zb_free(j.bad);
  zb_column_release(h);
  return st;
}

static zb_status retain_column(const zb_column *col, const zb_column *unused, zb_column **out,
                               zb_error *err) {
  (void)unused;
  (void)err;
  *out = zb_column_retain((zb_column *)col);
  return ZB_OK;
}

static zb_status take_checked(const zb_column *col, const zb_column *indices, zb_column **out,
                              zb_error *err) {
  zb__call c = {.op = ZB__OP_TAKE};
  c.in[0] = col;
  c.in[1] = indices;
  return zb__dispatch_column(col->device, &c, out, err);
}

zb_status zb_column_take(const zb_column *col, const zb_column *indices, zb_column **out,
                         zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "take: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "take: NULL column");
  bool identity;
  ZB_RETURN_NOT_OK(check_indices(indices, col->length, &identity, err));
  if (!zb_device_equal(indices->device, col->device))
    return zb_error_set(err, ZB_EINVAL, "take: indices and data on different devices");
  if (identity) return retain_column(col, NULL, out, err); /* columns are immutable */
  return take_checked(col, indices, out, err);
}

zb_status zb_table_take(const zb_table *t, const zb_column *indices, zb_table **out,
                        zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "take: NULL output");
  *out = NULL;
  if (t == NULL) return zb_error_set(err, ZB_EINVAL, "take: NULL table");
  bool identity;
  ZB_RETURN_NOT_OK(check_indices(indices, t->num_rows, &identity, err));
  if (t->num_columns > 0 && !zb_device_equal(indices->device, zb_table_device(t)))
    return zb_error_set(err, ZB_EINVAL, "take: indices and data on different devices");
  zb_device dev = indices->device;
  const zb_backend *be = zb__backend_for(dev.kind);
  zb__call c = {.op = ZB__OP_TAKE, .variant = 1, .name = "table_take"};
  c.table = t;
  c.in[1] = indices;
  if (!identity && t->num_columns > 0 && zb__backend_supports(be, &c)) {
    /* all columns in one pass */
    ZB_RETURN_NOT_OK(zb__dispatch(dev, &c, err));
    *out = c.out_table;
    return ZB_OK;
  }
  ZB_PROFILE_OP("table_take", be, ZB__OP_TAKE, dev, t->num_rows);
  return table_apply(t, indices, identity ? retain_column : take_checked, out, err);
}

/* ---- sorting ------------------------------------------------------------- */

zb_status zb_table_sort_indices(const zb_table *t, int64_t n_keys, const int64_t *keys,
                                const bool *ascending, bool nulls_first, zb_column **out,
                                zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "sort: NULL output");
  *out = NULL;
  if (t == NULL || (n_keys > 0 && keys == NULL))
    return zb_error_set(err, ZB_EINVAL, "sort: NULL argument");
  if (n_keys < 1) return zb_error_set(err, ZB_EINVAL, "sort: no key columns");
  for (int64_t k = 0; k < n_keys; k++) {
    if (keys[k] < 0 || keys[k] >= t->num_columns)
      return zb_error_set(err, ZB_EINDEX, "sort: key %lld is column %lld of %lld",
                          (long long)k, (long long)keys[k], (long long)t->num_columns);
  }
  zb__call c = {.op = ZB__OP_SORT_INDICES,
                .table = t,
                .p.sort = {n_keys, keys, ascending, nulls_first}};
  return zb__dispatch_column(zb_table_device(t), &c, out, err);
}

zb_status zb_column_sort_indices(const zb_column *col, bool ascending, bool nulls_first,
                                 zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "sort: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "sort: NULL column");
  zb_table *t = NULL;
  const char *name = "key";
  zb_column *c = (zb_column *)col;
  ZB_RETURN_NOT_OK(zb_table_make(1, &c, &name, &t, err));
  int64_t key = 0;
  zb_status st = zb_table_sort_indices(t, 1, &key, &ascending, nulls_first, out, err);
  zb_table_release(t);
  return st;
}
