/*
 * cast.cu -- casts on a CUDA device between numeric types, bool, date32 and
 * timestamp (the CUDA side of zb_column_cast; the rules are those of
 * src/cpu/cast.c and zambezi/compute.h).
 *
 * One pass converts every row and flags the rows a checked cast cannot
 * represent (narrowing integers, float -> integer out of range or not
 * finite, timestamp unit changes that overflow); only valid rows are
 * checked.  The smallest flagged row is reported with the same status and
 * message as the CPU, and no column is returned.  Conversions are C's, done
 * from the source value's own class (a 64-bit integer goes to float32 in a
 * single rounding, never through double).  Casts to and from strings and
 * categoricals are not in the backend's table (dispatch.cu): the CPU runs
 * them.
 */
#include <math.h>
#include <stdio.h>

#include "cuda/elementwise.cuh"

namespace {

bool zb_is_time(zb_type_id t) { return t == ZB_DATE32 || t == ZB_TIMESTAMP; }

__host__ __device__ __forceinline__ bool zb_is_unsigned_int(int t) {
  return t == ZB_UINT8 || t == ZB_UINT16 || t == ZB_UINT32 || t == ZB_UINT64;
}

/* Numeric conversion of one row to physical type tp (src/cpu/cast.c's
 * num_conv_morsel and num_check_morsel in one). */
struct zb_num_cast_fn {
  zb_operand a;
  int tp;
  void *out;  /* NULL when tp is bool (bits) */
  bool check; /* range-check valid rows (integer targets only) */
  long long lo;
  unsigned long long hi;  /* the target's integer range */
  double lo_d, hi_excl;   /* the same as doubles: [lo_d, hi_excl) */
  __device__ zb_row operator()(int64_t i) const {
    zb_row row;
    row.valid = zb_dvalid(a, i);
    row.bit = false;
    row.bad = false;
    const int sp = a.type;
    if (tp == ZB_BOOL) {
      row.bit = sp == ZB_BOOL ? zb_dload<unsigned>(a, i) != 0 : zb_dload<double>(a, i) != 0;
    } else if (sp == ZB_FLOAT32 || sp == ZB_FLOAT64) {
      const double x = zb_dload<double>(a, i);
      if (tp == ZB_FLOAT32 || tp == ZB_FLOAT64) {
        zb_dstore<double>(out, tp, i, x);
      } else {
        /* the range test is on the truncated value: -128.5 is int8's -128 */
        const double t = trunc(x);
        if (check) row.bad = row.valid && !(t >= lo_d && t < hi_excl);
        /* out-of-range values (null rows may hold anything) become 0 */
        unsigned long long bits = 0;
        if (t >= lo_d && t < hi_excl)
          bits = zb_is_unsigned_int(tp) ? (unsigned long long)t
                                        : (unsigned long long)(long long)t;
        zb_dstore_raw(out, tp, i, bits);
      }
    } else if (sp == ZB_INT8 || sp == ZB_INT16 || sp == ZB_INT32 || sp == ZB_INT64) {
      const long long x = zb_dload<long long>(a, i);
      if (check) row.bad = row.valid && !(x >= lo && (x < 0 || (unsigned long long)x <= hi));
      zb_dstore<long long>(out, tp, i, x);
    } else { /* unsigned or bool */
      const unsigned long long x = zb_dload<unsigned long long>(a, i);
      if (check) row.bad = row.valid && x > hi;
      zb_dstore<unsigned long long>(out, tp, i, x);
    }
    return row;
  }
};

/* date32 / timestamp unit changes (src/cpu/cast.c's time_morsel): multiply
 * (checked) or divide flooring, then to int32 days (checked) or int64. */
struct zb_time_cast_fn {
  zb_operand a;
  long long mul, div, lim; /* one of mul, div is 1; lim = INT64_MAX / mul */
  bool to_int32;
  void *out;
  __device__ zb_row operator()(int64_t i) const {
    zb_row row;
    row.valid = zb_dvalid(a, i);
    row.bit = false;
    const long long v = zb_dload<long long>(a, i);
    long long q;
    bool bad = false;
    if (mul > 1) {
      const bool ok = v <= lim && v >= -lim;
      q = ok ? v * mul : 0;
      bad = !ok;
    } else {
      q = v / div;
      if (v % div != 0 && v < 0) q--;
    }
    if (to_int32) {
      const bool ok = q >= -2147483647LL - 1 && q <= 2147483647LL;
      bad = bad || !ok;
      ((int32_t *)out)[i] = ok ? (int32_t)q : 0;
    } else {
      ((long long *)out)[i] = q;
    }
    row.bad = bad && row.valid;
    return row;
  }
};

/* Row `row` of col's values (a fixed-width, non-bool type) read back to the
 * host, as a double and as an int64 (for messages). */
zb_status zb_fetch_value(const zb_column *col, int64_t row, double *d, int64_t *i,
                         zb_error *err) {
  zb_type_id p = zb__physical(col->type);
  unsigned char buf[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  *d = 0;
  *i = 0;
  if (p == ZB_BOOL) return ZB_OK;
  int w = zb_type_width(p);
  const char *src = (const char *)col->data->data + (col->offset + row) * (int64_t)w;
  ZB_RETURN_NOT_OK(zb__cuda_read(col->device.id, buf, src, w,
                                 "cudaMemcpy (a value for a cast error)", err));
  zb__convert_block(ZB_FLOAT64, d, p, buf, 0, 1);
  zb__convert_block(ZB_INT64, i, p, buf, 0, 1);
  return ZB_OK;
}

/* Run f over r and wait; *bad_row = the first flagged row, or -1. */
template <typename F>
zb_status zb_run_checked(const F &f, zb_cuda_out *r, int64_t *bad_row, zb_error *err) {
  zb_status st = zb_cuda_rows(f, r, "cast", err);
  if (st == ZB_OK) st = zb__cuda_out_wait(r, "cast", err);
  *bad_row = r->first_bad;
  if (st != ZB_OK) zb__cuda_out_release(r);
  return st;
}

/* Give up r and name the bad row (src/cpu/cast.c's messages). */
zb_status zb_cast_error(zb_cuda_out *r, const zb_column *col, zb_type_id target, int64_t row,
                        bool time, zb_error *err) {
  zb__cuda_out_release(r);
  double d;
  int64_t v;
  ZB_RETURN_NOT_OK(zb_fetch_value(col, row, &d, &v, err));
  if (time)
    return zb_error_set(err, ZB_EOVERFLOW, "cannot cast %s to %s: row %lld (%lld) is out of range",
                        zb_type_name(col->type), zb_type_name(target), (long long)row,
                        (long long)v);
  zb_status code = zb_type_is_float(col->type) && !isfinite(d) ? ZB_EINVAL : ZB_EOVERFLOW;
  return zb_error_set(err, code, "cannot cast %s to %s: row %lld holds %.17g%s",
                      zb_type_name(col->type), zb_type_name(target), (long long)row, d,
                      code == ZB_EOVERFLOW ? ", out of range" : "");
}

/* The finished column, with a timestamp unit (and timezone tz) when target
 * is a timestamp. */
zb_status zb_cast_finish(zb_cuda_out *r, zb_type_id target, zb_time_unit unit, const char *tz,
                         zb_column **out, zb_error *err) {
  ZB_RETURN_NOT_OK(zb__cuda_out_finish(r, target, NULL, out, err));
  if (target != ZB_TIMESTAMP) return ZB_OK;
  zb_status st = zb_column_set_time(*out, unit, tz, err);
  if (st != ZB_OK) {
    zb_column_release(*out);
    *out = NULL;
  }
  return st;
}

zb_status zb_cast_numeric(const zb_column *col, zb_type_id target, zb_time_unit unit,
                          zb_column **out, zb_error *err) {
  const zb_type_id sp = zb__physical(col->type), tp = zb__physical(target);
  zb_num_cast_fn f;
  f.a = zb__cuda_operand(col, false);
  f.tp = (int)tp;
  /* the target's range, as src/cpu/cast.c's target_range */
  const int bits = zb_type_is_integer(tp) ? zb_type_width(tp) * 8 : 64;
  const bool tsigned = zb_type_is_signed(tp);
  f.lo = tsigned ? -(long long)((1ULL << (bits - 1)) - 1) - 1 : 0;
  f.hi = tsigned ? (1ULL << (bits - 1)) - 1 : (bits == 64 ? ~0ULL : (1ULL << bits) - 1);
  f.lo_d = (double)f.lo;
  f.hi_excl = f.hi == ~0ULL ? 18446744073709551616.0 : (double)f.hi + 1.0;
  bool check = zb_type_is_integer(tp) && sp != ZB_BOOL && sp != tp;
  if (check && zb_type_is_integer(sp) && zb_type_is_signed(sp) == tsigned &&
      zb_type_width(sp) <= zb_type_width(tp))
    check = false; /* widening within one signedness always fits */
  if (check && zb_type_is_integer(sp) && !zb_type_is_signed(sp) && tsigned &&
      zb_type_width(sp) < zb_type_width(tp))
    check = false; /* unsigned into a wider signed type always fits */
  f.check = check;
  zb_cuda_out r;
  ZB_RETURN_NOT_OK(
      zb__cuda_out_begin(col->device, target, col->length, col->validity != NULL, &r, err));
  f.out = tp == ZB_BOOL ? NULL : r.data->data;
  int64_t bad = -1;
  ZB_RETURN_NOT_OK(zb_run_checked(f, &r, &bad, err));
  if (bad >= 0) return zb_cast_error(&r, col, target, bad, false, err);
  return zb_cast_finish(&r, target, unit, NULL, out, err);
}

int64_t zb_units_per_second(zb_time_unit u) {
  static const int64_t k[4] = {1, 1000, 1000000, 1000000000};
  return k[(int)u & 3];
}

zb_status zb_cast_time(const zb_column *col, zb_type_id target, zb_time_unit unit,
                       zb_column **out, zb_error *err) {
  long long mul = 1, div = 1;
  if (col->type == ZB_DATE32) {
    mul = 86400LL * zb_units_per_second(unit);
  } else if (target == ZB_DATE32) {
    div = 86400LL * zb_units_per_second(col->unit);
  } else {
    long long a = zb_units_per_second(col->unit), b = zb_units_per_second(unit);
    if (b >= a)
      mul = b / a;
    else
      div = a / b;
  }
  zb_time_cast_fn f;
  f.a = zb__cuda_operand(col, false);
  f.mul = mul;
  f.div = div;
  f.lim = 0x7fffffffffffffffLL / mul;
  f.to_int32 = target == ZB_DATE32;
  zb_cuda_out r;
  ZB_RETURN_NOT_OK(
      zb__cuda_out_begin(col->device, target, col->length, col->validity != NULL, &r, err));
  f.out = r.data->data;
  int64_t bad = -1;
  ZB_RETURN_NOT_OK(zb_run_checked(f, &r, &bad, err));
  if (bad >= 0) return zb_cast_error(&r, col, target, bad, true, err);
  return zb_cast_finish(&r, target, unit, col->type == ZB_TIMESTAMP ? col->timezone : NULL,
                        out, err);
}

} /* namespace */

extern "C" zb_status zb__cuda_cast(const zb_column *col, zb_type_id target, zb_time_unit unit,
                                   zb_column **out, zb_error *err) {
  const zb_type_id s = col->type;
  if (s == target && (s != ZB_TIMESTAMP || col->unit == unit)) {
    *out = zb_column_retain((zb_column *)col);
    return ZB_OK;
  }
  const bool sn = zb_type_is_numeric(s), tn = zb_type_is_numeric(target);
  if ((sn && tn) || (zb_is_time(s) && zb_type_is_integer(target)) ||
      (zb_type_is_integer(s) && zb_is_time(target))) {
    *out = NULL;
    return zb_cast_numeric(col, target, unit, out, err);
  }
  if (zb_is_time(s) && zb_is_time(target)) {
    *out = NULL;
    return zb_cast_time(col, target, unit, out, err);
  }
  /* strings and categoricals are not in the support table (dispatch.cu) */
  return zb_error_set(err, ZB_ETYPE, "cast on cuda: no GPU cast from %s to %s",
                      zb_type_name(s), zb_type_name(target));
}
