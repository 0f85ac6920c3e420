/*
 * cast.c -- CPU casts between zambezi types (the semantics are documented
 * at zb_column_cast in zambezi/compute.h).
 *
 * Casts that can fail (narrowing integers, float -> integer, string ->
 * number, timestamp unit changes) run in parallel morsels that each record
 * their first bad row; the smallest one is reported, so the error does not
 * depend on the thread count.  Number -> string formats every value twice
 * (once to size, once to write) so the output is allocated exactly.
 * Nulls stay null; null rows' values are never read as numbers.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/dtype_list.h"
#include "core/float_text.h"
#include "cpu/kernels.h"
#include "cpu/strcodes.h"

/* Per-morsel first bad row (INT64_MAX: none) and its kind. */
typedef struct bad_rows {
  int64_t *row;
  zb_status *code;
} bad_rows;

static zb_status bad_rows_new(int64_t n_morsels, bad_rows *b, zb_error *err) {
  int64_t m = n_morsels > 0 ? n_morsels : 1;
  b->row = (int64_t *)zb_malloc((size_t)m * sizeof(int64_t));
  b->code = (zb_status *)zb_malloc((size_t)m * sizeof(zb_status));
  if (b->row == NULL || b->code == NULL) {
    zb_free(b->row);
    zb_free(b->code);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (cast)");
  }
  for (int64_t i = 0; i < m; i++) {
    b->row[i] = INT64_MAX;
    b->code[i] = ZB_OK;
  }
  return ZB_OK;
}

static void bad_rows_free(bad_rows *b) {
  zb_free(b->row);
  zb_free(b->code);
}

/* The first bad morsel, or -1. */
static int64_t bad_rows_first(const bad_rows *b, int64_t n_morsels) {
  for (int64_t m = 0; m < n_morsels; m++)
    if (b->row[m] != INT64_MAX) return m;
  return -1;
}

/* Copy col's validity (if any) to o at offset 0. */
static zb_status copy_validity(const zb_column *col, zb_column *o, zb_error *err) {
  if (col->validity == NULL) return ZB_OK;
  if (o->validity == NULL)
    ZB_RETURN_NOT_OK(zb_buffer_new(ZB_CPU, (col->length + 7) / 8, &o->validity, err));
  zb__bitmap_copy((uint8_t *)o->validity->data, 0, (const uint8_t *)col->validity->data,
                  col->offset, col->length);
  zb_column_recount_nulls(o);
  return ZB_OK;
}

/* ---- numeric <-> numeric ------------------------------------------------- */

typedef struct num_job {
  const zb_column *c;
  zb_column *out;
  zb_type_id sp, tp; /* physical source and target */
  int64_t lo;        /* target range for checks */
  uint64_t hi;
  bad_rows bad;
} num_job;

static void target_range(zb_type_id t, int64_t *lo, uint64_t *hi) {
  switch (t) {
#define RANGE_S(ID, T, NAME, U) \
    case ID: *lo = ZB_SIGNED_MIN(T, U); *hi = (uint64_t)ZB_SIGNED_MAX(T, U); break;
#define RANGE_U(ID, T, NAME, U) case ID: *lo = 0; *hi = ZB_UNSIGNED_MAX(U); break;
    ZB_FOR_EACH_SIGNED_TYPE(RANGE_S)
    ZB_FOR_EACH_UNSIGNED_TYPE(RANGE_U)
#undef RANGE_S
#undef RANGE_U
    default: *lo = 0; *hi = UINT64_MAX; break;
  }
}

static void num_check_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  num_job *j = (num_job *)ctx;
  const zb_column *c = j->c;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, c->length - start);
  uint64_t buf[ZB_BLOCK];
  bool src_float = zb_type_is_float(j->sp), src_signed = zb_type_is_signed(j->sp);
  double lo_d = (double)j->lo;
  double hi_excl = j->hi == UINT64_MAX ? 18446744073709551616.0 : (double)j->hi + 1.0;
  for (int64_t blk = 0; blk < n; blk += ZB_BLOCK) {
    int64_t m = ZB_MIN((int64_t)ZB_BLOCK, n - blk), row = start + blk;
    zb_type_id as = src_float ? ZB_FLOAT64 : src_signed ? ZB_INT64 : ZB_UINT64;
    zb__convert_block(as, buf, j->sp, c->data->data, c->offset + row, m);
    for (int64_t k = 0; k < m; k += 64) {
      int mm = (int)ZB_MIN((int64_t)64, m - k);
      uint64_t v = zb__valid_word(c, row + k, mm), badw = 0;
      if (src_float) {
        const double *x = (const double *)buf + k;
        for (int q = 0; q < mm; q++) {
          double t = trunc(x[q]);
          badw |= (uint64_t)!(t >= lo_d && t < hi_excl) << q;
        }
      } else if (src_signed) {
        const int64_t *x = (const int64_t *)buf + k;
        for (int q = 0; q < mm; q++)
          badw |= (uint64_t)!(x[q] >= j->lo && (x[q] < 0 || (uint64_t)x[q] <= j->hi)) << q;
      } else {
        const uint64_t *x = (const uint64_t *)buf + k;
        for (int q = 0; q < mm; q++) badw |= (uint64_t)(x[q] > j->hi) << q;
      }
      badw &= v;
      if (badw != 0) {
        int q = __builtin_ctzll(badw);
        j->bad.row[task] = row + k + q;
        j->bad.code[task] = src_float && !isfinite(((const double *)buf)[k + q]) ? ZB_EINVAL
                                                                                 : ZB_EOVERFLOW;
        return;
      }
    }
  }
}

/* float -> integer conversion (toward zero) that never converts an
 * out-of-range value (null rows may hold anything): those become 0.  The
 * range test is on the truncated value, as the check's: -128.5 is int8's
 * -128. */
#define F2I(TID, T, NAME, U)                                                     \
  case TID: {                                                                    \
    T *d = (T *)dst;                                                             \
    for (int64_t i = 0; i < n; i++) {                                            \
      double t = trunc(x[i]);                                                    \
      d[i] = (t >= lo && t < hi) ? (T)t : 0;                                     \
    }                                                                            \
    break;                                                                       \
  }

static void float_to_int(zb_type_id tp, void *dst, const double *x, int64_t n, double lo,
                         double hi) {
  switch (tp) {
    ZB_FOR_EACH_INTEGER_TYPE(F2I)
    default: break;
  }
}

static void num_conv_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  num_job *j = (num_job *)ctx;
  const zb_column *c = j->c;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, c->length - start);
  double buf[ZB_BLOCK];
  int w = zb_type_width(j->tp);
  for (int64_t blk = 0; blk < n; blk += ZB_BLOCK) {
    int64_t m = ZB_MIN((int64_t)ZB_BLOCK, n - blk), row = start + blk;
    if (j->tp == ZB_BOOL) {
      if (j->sp == ZB_BOOL) {
        for (int64_t k = 0; k < m; k += 64) {
          int mm = (int)ZB_MIN((int64_t)64, m - k);
          zb__store_bits((uint8_t *)j->out->data->data, row + k,
                         zb__load_bits((const uint8_t *)c->data->data, c->offset + row + k, mm), mm);
        }
        continue;
      }
      zb__convert_block(ZB_FLOAT64, buf, j->sp, c->data->data, c->offset + row, m);
      for (int64_t k = 0; k < m; k += 64) {
        int mm = (int)ZB_MIN((int64_t)64, m - k);
        uint64_t bits = 0;
        for (int q = 0; q < mm; q++) bits |= (uint64_t)(buf[k + q] != 0) << q;
        zb__store_bits((uint8_t *)j->out->data->data, row + k, bits, mm);
      }
    } else if (zb_type_is_float(j->sp) && zb_type_is_integer(j->tp)) {
      zb__convert_block(ZB_FLOAT64, buf, j->sp, c->data->data, c->offset + row, m);
      double lo = (double)j->lo;
      double hi = j->hi == UINT64_MAX ? 18446744073709551616.0 : (double)j->hi + 1.0;
      float_to_int(j->tp, (char *)j->out->data->data + row * w, buf, m, lo, hi);
    } else {
      zb__convert_block(j->tp, (char *)j->out->data->data + row * w, j->sp, c->data->data,
                        c->offset + row, m);
    }
  }
}

static zb_status cast_numeric(const zb_column *col, zb_type_id target, zb_time_unit unit,
                              zb_column **out, zb_error *err) {
  zb_type_id sp = zb__physical(col->type), tp = zb__physical(target);
  int64_t nm = zb__morsels(col->length);
  num_job j = {col, NULL, sp, tp, 0, 0, {NULL, NULL}};
  target_range(tp, &j.lo, &j.hi);
  zb_status st = bad_rows_new(nm, &j.bad, err);
  if (st != ZB_OK) return st;
  bool need_check = zb_type_is_integer(tp) && sp != ZB_BOOL && sp != tp;
  if (need_check && zb_type_is_integer(sp) && zb_type_is_signed(sp) == zb_type_is_signed(tp) &&
      zb_type_width(sp) <= zb_type_width(tp))
    need_check = false; /* widening within one signedness always fits */
  if (need_check && zb_type_is_integer(sp) && !zb_type_is_signed(sp) && zb_type_is_signed(tp) &&
      zb_type_width(sp) < zb_type_width(tp))
    need_check = false; /* unsigned into a wider signed type always fits */
  if (need_check) {
    st = zb_parallel_for(nm, num_check_morsel, &j, err);
    int64_t m = st == ZB_OK ? bad_rows_first(&j.bad, nm) : -1;
    if (m >= 0) {
      int64_t r = j.bad.row[m];
      double v = 0;
      zb__convert_block(ZB_FLOAT64, &v, sp, col->data->data, col->offset + r, 1);
      st = zb_error_set(err, j.bad.code[m], "cannot cast %s to %s: row %lld holds %.17g%s",
                        zb_type_name(col->type), zb_type_name(target), (long long)r, v,
                        j.bad.code[m] == ZB_EOVERFLOW ? ", out of range" : "");
    }
  }
  zb_column *o = NULL;
  if (st == ZB_OK) st = zb__new_like(col, target, col->length, false, 0, &o, err);
  if (st == ZB_OK && target == ZB_TIMESTAMP && col->type != ZB_TIMESTAMP)
    st = zb_column_set_time(o, unit, NULL, err);
  if (st == ZB_OK) {
    j.out = o;
    st = zb_parallel_for(nm, num_conv_morsel, &j, err);
  }
  if (st == ZB_OK) st = copy_validity(col, o, err);
  bad_rows_free(&j.bad);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}

/* ---- date32 / timestamp unit changes ------------------------------------- */

static int64_t units_per_second(zb_time_unit u) {
  static const int64_t k[4] = {1, 1000, 1000000, 1000000000};
  return k[(int)u & 3];
}

typedef struct time_job {
  const zb_column *c;
  zb_column *out;
  int64_t mul, div; /* one of them is 1 */
  bool to_int32;
  bad_rows bad;
} time_job;

static void time_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  time_job *j = (time_job *)ctx;
  const zb_column *c = j->c;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, c->length - start);
  int64_t buf[ZB_BLOCK];
  int64_t lim = INT64_MAX / j->mul;
  for (int64_t blk = 0; blk < n; blk += ZB_BLOCK) {
    int64_t m = ZB_MIN((int64_t)ZB_BLOCK, n - blk), row = start + blk;
    zb__convert_block(ZB_INT64, buf, c->type, c->data->data, c->offset + row, m);
    for (int64_t i = 0; i < m; i++) {
      int64_t v = buf[i], q;
      bool valid = zb_column_is_valid(c, row + i);
      if (j->mul > 1) {
        bool ok = v <= lim && v >= -lim;
        q = ok ? v * j->mul : 0;
        if (!ok && valid && j->bad.row[task] == INT64_MAX) j->bad.row[task] = row + i;
      } else {
        q = v / j->div;
        if (v % j->div != 0 && v < 0) q--;
      }
      if (j->to_int32) {
        bool ok = q >= INT32_MIN && q <= INT32_MAX;
        if (!ok && valid && j->bad.row[task] == INT64_MAX) j->bad.row[task] = row + i;
        ((int32_t *)j->out->data->data)[row + i] = ok ? (int32_t)q : 0;
      } else {
        ((int64_t *)j->out->data->data)[row + i] = q;
      }
    }
  }
}

static zb_status cast_time(const zb_column *col, zb_type_id target, zb_time_unit unit,
                           zb_column **out, zb_error *err) {
  int64_t mul = 1, div = 1;
  if (col->type == ZB_DATE32) {
    mul = 86400 * units_per_second(unit);
  } else if (target == ZB_DATE32) {
    div = 86400 * units_per_second(col->unit);
  } else {
    int64_t a = units_per_second(col->unit), b = units_per_second(unit);
    if (b >= a)
      mul = b / a;
    else
      div = a / b;
  }
  int64_t nm = zb__morsels(col->length);
  time_job j = {col, NULL, mul, div, target == ZB_DATE32, {NULL, NULL}};
  zb_column *o = NULL;
  zb_status st = bad_rows_new(nm, &j.bad, err);
  if (st != ZB_OK) return st;
  st = zb__new_like(NULL, target, col->length, false, 0, &o, err);
  if (st == ZB_OK && target == ZB_TIMESTAMP)
    st = zb_column_set_time(o, unit, col->type == ZB_TIMESTAMP ? col->timezone : NULL, err);
  if (st == ZB_OK) {
    j.out = o;
    st = zb_parallel_for(nm, time_morsel, &j, err);
  }
  int64_t m = st == ZB_OK ? bad_rows_first(&j.bad, nm) : -1;
  if (m >= 0) {
    int64_t r = j.bad.row[m], v = 0;
    zb__convert_block(ZB_INT64, &v, col->type, col->data->data, col->offset + r, 1);
    st = zb_error_set(err, ZB_EOVERFLOW, "cannot cast %s to %s: row %lld (%lld) is out of range",
                      zb_type_name(col->type), zb_type_name(target), (long long)r, (long long)v);
  }
  if (st == ZB_OK) st = copy_validity(col, o, err);
  bad_rows_free(&j.bad);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}

/* ---- numbers -> string --------------------------------------------------- */

/* Python-repr-like text of a double (or a float32 when single): the
 * shortest digits that read back exactly, fixed notation for decimal
 * exponents in [-4, 16) ([-4, 6) for float32, as numpy's str), else
 * d.ddde+XX.  Returns the length; buf holds at
 * least 40 bytes. */
static int format_float(double v, bool single, char *buf) {
  if (isnan(v)) return snprintf(buf, 40, "nan");
  if (isinf(v)) return snprintf(buf, 40, v < 0 ? "-inf" : "inf");
  if (v == 0) return snprintf(buf, 40, signbit(v) ? "-0.0" : "0.0");
  char digits[24];
  int exp10 = 0, pos = 0;
  int nd = zb__float_shortest(v, single, digits, &exp10);
  bool neg = signbit(v);
  if (neg) buf[pos++] = '-';
  /* positional as Python's repr (numpy's str for float32: below 1e6) */
  if (single ? fabs(v) >= 1e-4 && fabs(v) < 1e6 : exp10 >= -4 && exp10 < 16) {
    if (exp10 >= 0) {
      for (int i = 0; i <= exp10; i++) buf[pos++] = i < nd ? digits[i] : '0';
      buf[pos++] = '.';
      if (nd > exp10 + 1)
        for (int i = exp10 + 1; i < nd; i++) buf[pos++] = digits[i];
      else
        buf[pos++] = '0';
    } else {
      buf[pos++] = '0';
      buf[pos++] = '.';
      for (int i = 0; i < -exp10 - 1; i++) buf[pos++] = '0';
      for (int i = 0; i < nd; i++) buf[pos++] = digits[i];
    }
    buf[pos] = 0;
    return pos;
  }
  buf[pos++] = digits[0];
  if (nd > 1) {
    buf[pos++] = '.';
    for (int i = 1; i < nd; i++) buf[pos++] = digits[i];
  }
  pos += snprintf(buf + pos, 16, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
  return pos;
}

/* Decimal text of v into buf; its length. */
static int format_u64(uint64_t v, char *buf) {
  char tmp[24];
  int k = 0;
  do {
    tmp[k++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  for (int i = 0; i < k; i++) buf[i] = tmp[k - 1 - i];
  buf[k] = 0;
  return k;
}

/* Text of row i of a numeric column into buf (>= 40 bytes); its length. */
static int format_value(const zb_column *c, int64_t i, char *buf) {
  int64_t p = c->offset + i;
  const void *d = c->data->data;
  switch (zb__physical(c->type)) {
    case ZB_BOOL:
      return snprintf(buf, 40, zb_bit_get((const uint8_t *)d, p) ? "True" : "False");
    case ZB_FLOAT32: return format_float(((const float *)d)[p], true, buf);
    case ZB_FLOAT64: return format_float(((const double *)d)[p], false, buf);
#define UNSIGNED_CASE(ID, T, NAME, U) case ID:
    ZB_FOR_EACH_UNSIGNED_TYPE(UNSIGNED_CASE)
#undef UNSIGNED_CASE
    {
      uint64_t v = 0;
      zb__convert_block(ZB_UINT64, &v, c->type, d, p, 1);
      return format_u64(v, buf);
    }
    default: {
      int64_t v = 0;
      zb__convert_block(ZB_INT64, &v, c->type, d, p, 1);
      if (v >= 0) return format_u64((uint64_t)v, buf);
      buf[0] = '-';
      return 1 + format_u64((uint64_t)0 - (uint64_t)v, buf + 1);
    }
  }
}

/* Each morsel formats its rows once, into its own buffer (lengths into
 * offs[i + 1]); after a prefix sum over the lengths, the buffers are
 * copied into place, one memcpy per morsel. */
typedef struct fmt_job {
  const zb_column *c;
  int64_t *offs;
  char **text;  /* per morsel */
  char *chars;
  bool nomem;   /* a morsel's buffer could not be had */
} fmt_job;

static void fmt_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  fmt_job *j = (fmt_job *)ctx;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, j->c->length - start);
  size_t cap = (size_t)n * 8 + 64, used = 0;
  char *t = (char *)zb_malloc(cap);
  for (int64_t i = start; t != NULL && i < start + n; i++) {
    /* noisy floats take ~1 us each: a morsel is long enough to look */
    if ((i & 4095) == 0 && zb_cancel_requested()) break;
    if (!zb_column_is_valid(j->c, i)) {
      j->offs[i + 1] = 0;
      continue;
    }
    if (used + 64 > cap) {
      char *g = (char *)zb_malloc(cap * 2);
      if (g != NULL) memcpy(g, t, used);
      zb_free(t);
      t = g;
      cap *= 2;
      if (t == NULL) break;
    }
    int len = format_value(j->c, i, t + used);
    used += (size_t)len;
    j->offs[i + 1] = len;
  }
  if (t == NULL) j->nomem = true;
  j->text[task] = t;
}

static void fmt_copy_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  fmt_job *j = (fmt_job *)ctx;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t end = ZB_MIN(start + (int64_t)ZB_MORSEL_ROWS, j->c->length);
  memcpy(j->chars + j->offs[start], j->text[task], (size_t)(j->offs[end] - j->offs[start]));
}

static zb_status cast_to_string(const zb_column *col, zb_column **out, zb_error *err) {
  int64_t n = col->length, nm = zb__morsels(n);
  zb_buffer *offs = NULL, *chars = NULL;
  zb_column *o = NULL;
  zb_status st = zb_buffer_new(ZB_CPU, (n + 1) * 8, &offs, err);
  if (st != ZB_OK) return st;
  fmt_job j = {col, (int64_t *)offs->data, NULL, NULL, false};
  j.offs[0] = 0;
  j.text = (char **)zb_calloc((size_t)ZB_MAX(nm, 1), sizeof(char *));
  if (j.text == NULL) st = zb_error_set(err, ZB_ENOMEM, "out of host memory (cast to string)");
  if (st == ZB_OK) st = zb_parallel_for(nm, fmt_morsel, &j, err);
  if (st == ZB_OK && j.nomem)
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (cast to string: text of a morsel)");
  if (st == ZB_OK) {
    for (int64_t i = 0; i < n; i++) j.offs[i + 1] += j.offs[i];
    st = zb_buffer_new(ZB_CPU, j.offs[n], &chars, err);
  }
  if (st == ZB_OK) {
    j.chars = (char *)chars->data;
    st = zb_parallel_for(nm, fmt_copy_morsel, &j, err);
  }
  if (j.text != NULL)
    for (int64_t m = 0; m < nm; m++) zb_free(j.text[m]);
  zb_free(j.text);
  if (st == ZB_OK) st = zb_column_make(ZB_STRING, n, 0, NULL, offs, chars, NULL, 0, &o, err);
  if (st == ZB_OK) st = copy_validity(col, o, err);
  zb_buffer_release(offs);
  zb_buffer_release(chars);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}

/* ---- string -> numbers --------------------------------------------------- */

static bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }

/* Parse s[0, len) as type t (physical numeric) into dst[0]; ZB_OK,
 * ZB_EPARSE or ZB_EOVERFLOW. */
static zb_status parse_value(const char *s, int64_t len, zb_type_id t, void *dst) {
  while (len > 0 && is_space(*s)) s++, len--;
  while (len > 0 && is_space(s[len - 1])) len--;
  if (len == 0) return ZB_EPARSE;
  if (t == ZB_BOOL) {
    bool v;
    if ((len == 4 && (memcmp(s, "True", 4) == 0 || memcmp(s, "true", 4) == 0)) ||
        (len == 1 && s[0] == '1'))
      v = true;
    else if ((len == 5 && (memcmp(s, "False", 5) == 0 || memcmp(s, "false", 5) == 0)) ||
             (len == 1 && s[0] == '0'))
      v = false;
    else
      return ZB_EPARSE;
    *(uint8_t *)dst = v;
    return ZB_OK;
  }
  if (zb_type_is_float(t)) {
    char tmp[512];
    if (len >= (int64_t)sizeof tmp) return ZB_EPARSE;
    memcpy(tmp, s, (size_t)len);
    tmp[len] = 0;
    char *end = NULL;
    double v = strtod(tmp, &end);
    if (end != tmp + len) return ZB_EPARSE;
    if (t == ZB_FLOAT32)
      *(float *)dst = (float)v;
    else
      *(double *)dst = v;
    return ZB_OK;
  }
  bool neg = false;
  int64_t i = 0;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    i = 1;
  }
  if (i == len) return ZB_EPARSE;
  uint64_t mag = 0;
  bool over = false;
  for (; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return ZB_EPARSE;
    unsigned dgt = (unsigned)(s[i] - '0');
    if (mag > (UINT64_MAX - dgt) / 10) over = true;
    mag = mag * 10 + dgt;
  }
  int64_t lo;
  uint64_t hi;
  target_range(t, &lo, &hi);
  if (over) return ZB_EOVERFLOW;
  if (neg) {
    /* -mag must be >= lo */
    if (mag > (uint64_t)0 - (uint64_t)lo && !(lo == 0 && mag == 0)) return ZB_EOVERFLOW;
    int64_t v = mag == 0 ? 0 : (int64_t)(0 - mag);
    zb__convert_block(t, dst, ZB_INT64, &v, 0, 1);
  } else {
    if (mag > hi) return ZB_EOVERFLOW;
    zb__convert_block(t, dst, ZB_UINT64, &mag, 0, 1);
  }
  return ZB_OK;
}

typedef struct parse_job {
  const zb_column *c;
  zb_column *out;
  zb_type_id tp;
  bad_rows bad;
} parse_job;

static void parse_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  parse_job *j = (parse_job *)ctx;
  const zb_column *c = j->c;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, c->length - start);
  int w = j->tp == ZB_BOOL ? 1 : zb_type_width(j->tp);
  uint8_t *bits = (uint8_t *)j->out->data->data;
  for (int64_t i = start; i < start + n; i++) {
    uint64_t v = 0;
    if (zb_column_is_valid(c, i)) {
      int64_t len;
      const char *s = zb__str(c, i, &len);
      zb_status st = parse_value(s, len, j->tp, &v);
      if (st != ZB_OK) {
        j->bad.row[task] = i;
        j->bad.code[task] = st;
        return;
      }
    }
    if (j->tp == ZB_BOOL)
      zb_bit_set(bits, i, (v & 1) != 0);
    else
      memcpy((char *)j->out->data->data + i * w, &v, (size_t)w);
  }
}

static zb_status cast_from_string(const zb_column *col, zb_type_id target, zb_time_unit unit,
                                  zb_column **out, zb_error *err) {
  int64_t nm = zb__morsels(col->length);
  parse_job j = {col, NULL, zb__physical(target), {NULL, NULL}};
  zb_column *o = NULL;
  zb_status st = bad_rows_new(nm, &j.bad, err);
  if (st != ZB_OK) return st;
  st = zb__new_like(NULL, target, col->length, false, 0, &o, err);
  if (st == ZB_OK && target == ZB_TIMESTAMP) st = zb_column_set_time(o, unit, NULL, err);
  if (st == ZB_OK) {
    j.out = o;
    st = zb_parallel_for(nm, parse_morsel, &j, err);
  }
  int64_t m = st == ZB_OK ? bad_rows_first(&j.bad, nm) : -1;
  if (m >= 0) {
    int64_t r = j.bad.row[m], len;
    const char *s = zb__str(col, r, &len);
    st = zb_error_set(err, j.bad.code[m], "cannot cast string to %s: row %lld holds '%.*s'%s%s",
                      zb_type_name(target), (long long)r, (int)ZB_MIN(len, (int64_t)64), s,
                      len > 64 ? "..." : "", j.bad.code[m] == ZB_EOVERFLOW ? " (out of range)" : "");
  }
  if (st == ZB_OK) st = copy_validity(col, o, err);
  bad_rows_free(&j.bad);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}

/* ---- categorical <-> string ---------------------------------------------- */

typedef struct gather_job {
  const zb_column *src;
  const int32_t *i32;
  const int64_t *i64;
  const zb_column *valid; /* rows where this is null gather "" (may be NULL) */
  int64_t *offs;
  int64_t *morsel_bytes; /* per morsel: its bytes, then where they start */
  char *chars;
  int64_t n;
} gather_job;

static inline int64_t gather_index(const gather_job *j, int64_t i) {
  return j->i32 != NULL ? (int64_t)j->i32[i] : j->i64[i];
}

/* Rows are gathered in index order, so the source offsets and bytes are
 * random accesses: offsets are prefetched GATHER_AHEAD rows ahead, and the
 * bytes half as far ahead (their address needs the offset, which by then
 * is in cache). */
#define GATHER_AHEAD 64

/* Row i's index when it lies inside the source, else -1: a null row may
 * hold any index (a categorical's null rows any code), and a prefetch must
 * not read an offset outside the source for it. */
static inline int64_t index_inside(const gather_job *j, int64_t i) {
  int64_t k = gather_index(j, i);
  return (uint64_t)k < (uint64_t)j->src->length ? k : -1;
}

/* Pass 1: each row's length into offs[i + 1]; the morsel's total. */
static void gather_len_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  gather_job *j = (gather_job *)ctx;
  int64_t start = task * ZB_MORSEL_ROWS, end = ZB_MIN(start + ZB_MORSEL_ROWS, j->n);
  const int64_t *so = (const int64_t *)j->src->data->data + j->src->offset;
  int64_t total = 0;
  for (int64_t i = start; i < end; i++) {
    int64_t ahead = i + GATHER_AHEAD < end ? index_inside(j, i + GATHER_AHEAD) : -1;
    if (ahead >= 0) __builtin_prefetch(so + ahead);
    int64_t len = 0;
    if (j->valid == NULL || zb_column_is_valid(j->valid, i)) zb__str(j->src, gather_index(j, i), &len);
    j->offs[i + 1] = len;
    total += len;
  }
  j->morsel_bytes[task] = total;
}

/* Pass 2: lengths become offsets from the morsel's start, and the bytes
 * move (16 at a time where the source and this morsel's output have room). */
static void gather_copy_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  gather_job *j = (gather_job *)ctx;
  int64_t start = task * ZB_MORSEL_ROWS, end = ZB_MIN(start + ZB_MORSEL_ROWS, j->n);
  const int64_t *so = (const int64_t *)j->src->data->data + j->src->offset;
  const char *cs = j->src->chars != NULL ? (const char *)j->src->chars->data : NULL;
  int64_t cs_size = j->src->chars != NULL ? j->src->chars->size : 0;
  int64_t pos = j->morsel_bytes[task], stop = j->morsel_bytes[task + 1];
  for (int64_t i = start; i < end; i++) {
    int64_t ahead = i + GATHER_AHEAD < end ? index_inside(j, i + GATHER_AHEAD) : -1;
    if (ahead >= 0) __builtin_prefetch(so + ahead);
    ahead = i + GATHER_AHEAD / 2 < end ? index_inside(j, i + GATHER_AHEAD / 2) : -1;
    if (ahead >= 0) __builtin_prefetch(cs + so[ahead]);
    int64_t len = j->offs[i + 1];
    if (len > 0) {
      int64_t s0 = so[gather_index(j, i)];
      if (len <= 16 && s0 + 16 <= cs_size && pos + 16 <= stop)
        memcpy(j->chars + pos, cs + s0, 16);
      else if (len <= 16)
        zb__copy_short(j->chars + pos, cs + s0, len);
      else
        memcpy(j->chars + pos, cs + s0, (size_t)len);
    }
    pos += len;
    j->offs[i + 1] = pos;
  }
}

zb_status zb__gather_strings(const zb_column *src, const int32_t *i32, const int64_t *i64,
                             int64_t n, const zb_column *valid, zb_column **out,
                             zb_error *err) {
  *out = NULL;
  int64_t nm = zb__morsels(n);
  zb_buffer *offs = NULL, *chars = NULL;
  zb_column *o = NULL;
  int64_t *mb = (int64_t *)zb_malloc((size_t)(nm + 1) * sizeof(int64_t));
  if (mb == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (string gather)");
  zb_status st = zb_buffer_new(ZB_CPU, (n + 1) * 8, &offs, err);
  gather_job j = {src, i32, i64, valid, NULL, mb, NULL, n};
  if (st == ZB_OK) {
    j.offs = (int64_t *)offs->data;
    j.offs[0] = 0;
    st = zb_parallel_for(nm, gather_len_morsel, &j, err);
  }
  if (st == ZB_OK) {
    int64_t total = 0;
    for (int64_t m = 0; m < nm; m++) {
      int64_t b = mb[m];
      mb[m] = total;
      total += b;
    }
    mb[nm] = total;
    st = zb_buffer_new(ZB_CPU, total, &chars, err);
  }
  if (st == ZB_OK) {
    j.chars = (char *)chars->data;
    st = zb_parallel_for(nm, gather_copy_morsel, &j, err);
  }
  if (st == ZB_OK) st = zb_column_make(ZB_STRING, n, 0, NULL, offs, chars, NULL, 0, &o, err);
  zb_free(mb);
  zb_buffer_release(offs);
  zb_buffer_release(chars);
  if (st != ZB_OK) return st;
  *out = o;
  return ZB_OK;
}

static zb_status cast_decode(const zb_column *col, zb_column **out, zb_error *err) {
  /* Null rows may hold any code: gather "" for them. */
  const int32_t *codes = (const int32_t *)col->data->data + col->offset;
  zb_column *o = NULL;
  ZB_RETURN_NOT_OK(zb__gather_strings(col->dictionary, codes, NULL, col->length,
                                      col->validity ? col : NULL, &o, err));
  zb_status st = copy_validity(col, o, err);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}

static uint64_t hash_bytes(const char *s, int64_t len) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (int64_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 32);
}

static bool str_eq(const zb_column *c, int64_t a, int64_t b) {
  int64_t la, lb;
  const char *pa = zb__str(c, a, &la), *pb = zb__str(c, b, &lb);
  return la == lb && (la == 0 || memcmp(pa, pb, (size_t)la) == 0);
}

/* Distinct strings (by first row) of the valid rows; codes[i] = the distinct
 * number of row i (0 for nulls). */
static zb_status distinct_strings(const zb_column *col, int32_t *codes, int64_t **rows_out,
                                  int64_t *n_out, zb_error *err) {
  int64_t cap = 64, count = 0, n = col->length;
  int64_t *slots = NULL, *rows = NULL;
  int64_t rows_cap = 64;
  zb_status st = ZB_OK;
  slots = (int64_t *)zb_malloc((size_t)cap * sizeof(int64_t));
  rows = (int64_t *)zb_malloc((size_t)rows_cap * sizeof(int64_t));
  if (slots == NULL || rows == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (categorical encoding)");
    goto fail;
  }
  for (int64_t s = 0; s < cap; s++) slots[s] = -1;
  for (int64_t i = 0; i < n; i++) {
    if ((i & (ZB_MORSEL_ROWS - 1)) == 0 && zb_cancel_requested()) { /* one serial pass */
      st = zb_error_set(err, ZB_ECANCEL, "interrupted");
      goto fail;
    }
    codes[i] = 0;
    if (!zb_column_is_valid(col, i)) continue;
    if (2 * (count + 1) > cap) { /* grow and rehash */
      int64_t ncap = cap * 2;
      int64_t *ns = (int64_t *)zb_malloc((size_t)ncap * sizeof(int64_t));
      if (ns == NULL) {
        st = zb_error_set(err, ZB_ENOMEM, "out of host memory (categorical encoding)");
        goto fail;
      }
      for (int64_t s = 0; s < ncap; s++) ns[s] = -1;
      for (int64_t u = 0; u < count; u++) {
        int64_t len;
        const char *p = zb__str(col, rows[u], &len);
        uint64_t h = hash_bytes(p, len) & (uint64_t)(ncap - 1);
        while (ns[h] >= 0) h = (h + 1) & (uint64_t)(ncap - 1);
        ns[h] = u;
      }
      zb_free(slots);
      slots = ns;
      cap = ncap;
    }
    int64_t len;
    const char *p = zb__str(col, i, &len);
    uint64_t h = hash_bytes(p, len) & (uint64_t)(cap - 1);
    while (slots[h] >= 0 && !str_eq(col, rows[slots[h]], i)) h = (h + 1) & (uint64_t)(cap - 1);
    if (slots[h] < 0) {
      if (count == INT32_MAX) {
        st = zb_error_set(err, ZB_EOVERFLOW, "more than 2^31 - 1 categories");
        goto fail;
      }
      if (count == rows_cap) {
        int64_t *nr = (int64_t *)zb_malloc((size_t)rows_cap * 2 * sizeof(int64_t));
        if (nr == NULL) {
          st = zb_error_set(err, ZB_ENOMEM, "out of host memory (categorical encoding)");
          goto fail;
        }
        memcpy(nr, rows, (size_t)count * sizeof(int64_t));
        zb_free(rows);
        rows = nr;
        rows_cap *= 2;
      }
      rows[count] = i;
      slots[h] = count++;
    }
    codes[i] = (int32_t)slots[h];
  }
  zb_free(slots);
  *rows_out = rows;
  *n_out = count;
  return ZB_OK;
fail:
  zb_free(slots);
  zb_free(rows);
  return st;
}

static zb_status cast_encode(const zb_column *col, zb_column **out, zb_error *err) {
  int64_t n = col->length, k = 0;
  int64_t *rows = NULL, *tmp = NULL;
  int32_t *rank = NULL;
  zb_column *o = NULL, *dict = NULL;
  zb_status st = zb_column_new(ZB_CATEGORICAL, n, false, 0, &o, err);
  if (st != ZB_OK) return st;
  int32_t *codes = (int32_t *)o->data->data;
  /* Few enough distinct strings: parallel codes already in string order. */
  bool fits = false;
  st = zb__string_codes(col, true, ZB_STRING_CODES_MAX_GROUPS, codes, &rows, &k, &fits, err);
  if (st == ZB_OK && fits) {
    if (col->null_count > 0)
      for (int64_t i = 0; i < n; i++) codes[i] = codes[i] < 0 ? 0 : codes[i];
    st = zb__gather_strings(col, NULL, rows, k, NULL, &dict, err);
    goto finish;
  }
  if (st == ZB_OK) st = distinct_strings(col, codes, &rows, &k, err);
  if (st == ZB_OK) {
    tmp = (int64_t *)zb_malloc((size_t)(k + 1) * sizeof(int64_t));
    rank = (int32_t *)zb_malloc((size_t)(k + 1) * sizeof(int32_t));
    if (tmp == NULL || rank == NULL)
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory (categorical encoding)");
  }
  if (st == ZB_OK) {
    /* Sort the distinct rows by their strings; rank[u] = sorted position. */
    for (int64_t u = 0; u < k; u++) tmp[u] = u;
    st = zb__sort_rows_by_string(col, rows, tmp, k, err);
  }
  if (st == ZB_OK) {
    for (int64_t r = 0; r < k; r++) rank[tmp[r]] = (int32_t)r;
    for (int64_t r = 0; r < k; r++) tmp[r] = rows[tmp[r]];
    if (k > 0)
      for (int64_t i = 0; i < n; i++) codes[i] = rank[codes[i]];
    st = zb__gather_strings(col, NULL, tmp, k, NULL, &dict, err);
  }
finish:
  if (st == ZB_OK) {
    o->dictionary = dict;
    dict = NULL;
    st = copy_validity(col, o, err);
  }
  zb_free(rows);
  zb_free(tmp);
  zb_free(rank);
  zb_column_release(dict);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}

/* ---- dispatch ------------------------------------------------------------ */

static bool is_time(zb_type_id t) { return t == ZB_DATE32 || t == ZB_TIMESTAMP; }

zb_status zb__cpu_cast(const zb_column *col, zb_type_id target, zb_time_unit unit,
                       zb_column **out, zb_error *err) {
  *out = NULL;
  zb_type_id s = col->type;
  if (s == target && (s != ZB_TIMESTAMP || col->unit == unit)) {
    *out = zb_column_retain((zb_column *)col);
    return ZB_OK;
  }
  if (s == ZB_CATEGORICAL) {
    zb_column *str = NULL;
    ZB_RETURN_NOT_OK(cast_decode(col, &str, err));
    if (target == ZB_STRING) {
      *out = str;
      return ZB_OK;
    }
    zb_status st = zb__cpu_cast(str, target, unit, out, err);
    zb_column_release(str);
    return st;
  }
  if (target == ZB_STRING && (zb_type_is_numeric(s) || s == ZB_DATE32 || s == ZB_TIMESTAMP)) {
    if (is_time(s))
      return zb_error_set(err, ZB_ENOTSUP, "cast from %s to string is not supported yet",
                          zb_type_name(s));
    return cast_to_string(col, out, err);
  }
  if (s == ZB_STRING && target == ZB_CATEGORICAL) return cast_encode(col, out, err);
  if (s == ZB_STRING && zb_type_is_numeric(target))
    return cast_from_string(col, target, unit, out, err);
  if (zb_type_is_numeric(s) && zb_type_is_numeric(target))
    return cast_numeric(col, target, unit, out, err);
  if ((is_time(s) && zb_type_is_integer(target)) || (zb_type_is_integer(s) && is_time(target)))
    return cast_numeric(col, target, unit, out, err);
  if (is_time(s) && is_time(target)) return cast_time(col, target, unit, out, err);
  return zb_error_set(err, ZB_ETYPE, "cannot cast %s to %s", zb_type_name(s),
                      zb_type_name(target));
}
