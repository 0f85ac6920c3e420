/*
 * strings_ops.c -- the checked entry points of the string, date/time and
 * elementwise-extra operations declared in the "Strings, dates and times,
 * elementwise extras" section of zambezi/compute.h.
 *
 * Each validates its arguments once, brings its inputs to the shape the
 * backend entries expect (categoricals: the operation runs on the
 * dictionary and the per-row result is taken through the codes; operands
 * converted to one type; timezones turned into a fixed offset), then
 * dispatches to the backend of the device where the data lives.  A backend
 * without the entry gets the operation run on the CPU over host copies, with
 * the result moved back to the data's device (zb__dispatch, src/core/
 * dispatch.c).  between and date_diff are
 * compositions of existing operations (comparisons, casts, subtraction) and
 * need no backend entry of their own.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "core/values.h"

const char *zb_str_op_name(zb_str_op op) {
  static const char *const names[ZB_STR_OP_COUNT] = {
      "len",    "contains", "startswith", "endswith", "lower", "upper",
      "strip",  "lstrip",   "rstrip",     "slice",    "replace",
      "title",  "capitalize", "swapcase", "casefold", "pad",  "repeat", "find", "rfind",
      "isalpha", "isdigit", "isnumeric", "isalnum", "isspace", "islower", "isupper",
      "istitle", "isdecimal"};
  if ((int)op < 0 || op >= ZB_STR_OP_COUNT) return "unknown";
  return names[op];
}

const char *zb_dt_field_name(zb_dt_field f) {
  static const char *const names[ZB_DT_FIELD_COUNT] = {
      "year",      "month",   "day",         "hour",      "minute",    "second",
      "dayofweek", "dayofyear", "quarter",   "microsecond", "nanosecond"};
  if ((int)f < 0 || f >= ZB_DT_FIELD_COUNT) return "unknown";
  return names[f];
}

/* ---- dispatch ------------------------------------------------------------- */

static bool is_stringish(zb_type_id t) { return t == ZB_STRING || t == ZB_CATEGORICAL; }

/* A string column: a new reference to c, or c's categories decoded. */
static zb_status as_string(const zb_column *c, zb_column **out, zb_error *err) {
  if (c->type == ZB_STRING) {
    *out = zb_column_retain((zb_column *)c);
    return ZB_OK;
  }
  return zb_column_cast(c, ZB_STRING, ZB_MICRO, out, err);
}

/* ---- strings -------------------------------------------------------------- */

/* The codes of a categorical as an int64 column (nulls kept): indices for
 * zb_column_take over the dictionary. */
static zb_status codes_as_indices(const zb_column *col, zb_column **out, zb_error *err) {
  zb_column *view = NULL;
  ZB_RETURN_NOT_OK(zb_column_make(ZB_INT32, col->length, col->offset, col->validity, col->data,
                                  NULL, NULL, col->null_count, &view, err));
  zb_status st = zb_column_cast(view, ZB_INT64, ZB_MICRO, out, err);
  zb_column_release(view);
  return st;
}

zb_status zb_column_str(const zb_column *col, const zb_str_args *args, zb_column **out,
                        zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "str: NULL output");
  *out = NULL;
  if (col == NULL || args == NULL) return zb_error_set(err, ZB_EINVAL, "str: NULL argument");
  zb_str_op op = args->op;
  if ((int)op < 0 || op >= ZB_STR_OP_COUNT)
    return zb_error_set(err, ZB_EINVAL, "unknown string operation %d", (int)op);
  if (!is_stringish(col->type))
    return zb_error_set(err, ZB_ETYPE, "str.%s needs a string column, not %s",
                        zb_str_op_name(op), zb_type_name(col->type));
  {
    char what[48];
    snprintf(what, sizeof what, "str.%s", zb_str_op_name(op));
    ZB_RETURN_NOT_OK(zb__need_string_categories(col, what, err));
  }
  bool needs_pat = op == ZB_STR_CONTAINS || op == ZB_STR_STARTSWITH || op == ZB_STR_ENDSWITH ||
                   op == ZB_STR_REPLACE || op == ZB_STR_FIND || op == ZB_STR_RFIND;
  if (op == ZB_STR_PAD && (args->side < 0 || args->side > 3 || args->fill > 0x10FFFF ||
                           (args->fill >= 0xD800 && args->fill <= 0xDFFF)))
    return zb_error_set(err, ZB_EINVAL, "str.pad: bad side or fill character");
  if (needs_pat && args->pat == NULL)
    return zb_error_set(err, ZB_EINVAL, "str.%s needs a pattern", zb_str_op_name(op));
  if ((args->pat != NULL && args->pat_len < 0) ||
      (op == ZB_STR_REPLACE && (args->repl_len < 0 || (args->repl == NULL && args->repl_len > 0))))
    return zb_error_set(err, ZB_EINVAL, "str.%s: negative string length", zb_str_op_name(op));
  if (op == ZB_STR_REPEAT && args->n > (INT64_C(1) << 32))
    return zb_error_set(err, ZB_EINVAL, "str.repeat: %lld repeats are too many",
                        (long long)args->n);
  if (op == ZB_STR_SLICE && args->step == 0)
    return zb_error_set(err, ZB_EINVAL, "str.slice: slice step cannot be zero");
  if (op == ZB_STR_SLICE && args->step == INT64_MIN)
    return zb_error_set(err, ZB_EINVAL, "str.slice: step out of range");
  zb_str_args a = *args;
  if (op == ZB_STR_REPLACE && a.repl == NULL) a.repl = "";
  zb__call c = {.op = ZB__OP_STR, .variant = (int32_t)op, .name = zb_str_op_name(op)};
  c.p.str.args = &a;
  if (col->type == ZB_STRING) {
    c.in[0] = col;
    return zb__dispatch_column(col->device, &c, out, err);
  }
  /* Categorical: on the dictionary, then through the codes. */
  zb_column *dres = NULL, *idx = NULL;
  c.in[0] = col->dictionary;
  zb_status st = zb__dispatch_column(col->device, &c, &dres, err);
  if (st == ZB_OK) st = codes_as_indices(col, &idx, err);
  if (st == ZB_OK) st = zb_column_take(dres, idx, out, err);
  zb_column_release(dres);
  zb_column_release(idx);
  return st;
}

static zb_status check_sep(const char **sep, int64_t *sep_len, zb_error *err) {
  if (*sep == NULL) {
    if (*sep_len > 0) return zb_error_set(err, ZB_EINVAL, "str.cat: NULL separator");
    *sep = "";
    *sep_len = 0;
  }
  if (*sep_len < 0) return zb_error_set(err, ZB_EINVAL, "str.cat: negative separator length");
  return ZB_OK;
}

zb_status zb_column_str_cat(const zb_column *a, const zb_column *b, const char *sep,
                            int64_t sep_len, zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "str.cat: NULL output");
  *out = NULL;
  if (a == NULL || b == NULL) return zb_error_set(err, ZB_EINVAL, "str.cat: NULL column");
  ZB_RETURN_NOT_OK(check_sep(&sep, &sep_len, err));
  if (!is_stringish(a->type) || !is_stringish(b->type))
    return zb_error_set(err, ZB_ETYPE, "str.cat needs string columns, not %s and %s",
                        zb_type_name(a->type), zb_type_name(b->type));
  if (a->length != b->length)
    return zb_error_set(err, ZB_EINVAL, "str.cat: length mismatch: %lld and %lld rows",
                        (long long)a->length, (long long)b->length);
  if (!zb_device_equal(a->device, b->device))
    return zb_error_set(err, ZB_EINVAL, "str.cat: columns on different devices");
  zb_column *sa = NULL, *sb = NULL;
  zb_status st = as_string(a, &sa, err);
  if (st == ZB_OK) st = as_string(b, &sb, err);
  if (st == ZB_OK) {
    zb__call c = {.op = ZB__OP_STR_CAT};
    c.in[0] = sa;
    c.in[1] = sb;
    c.p.cat.sep = sep;
    c.p.cat.sep_len = sep_len;
    st = zb__dispatch_column(a->device, &c, out, err);
  }
  zb_column_release(sa);
  zb_column_release(sb);
  return st;
}

zb_status zb_column_str_cat_scalar(const zb_column *col, const char *s, int64_t len,
                                   bool scalar_first, const char *sep, int64_t sep_len,
                                   zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "str.cat: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "str.cat: NULL column");
  ZB_RETURN_NOT_OK(check_sep(&sep, &sep_len, err));
  if (!is_stringish(col->type))
    return zb_error_set(err, ZB_ETYPE, "str.cat needs a string column, not %s",
                        zb_type_name(col->type));
  zb_column *sc = NULL, *sa = NULL;
  zb_status st = zb__string_scalar_column(s, len, &sc, err);
  if (st == ZB_OK) st = as_string(col, &sa, err);
  if (st == ZB_OK) {
    zb__call c = {.op = ZB__OP_STR_CAT};
    c.in[0] = scalar_first ? sc : sa;
    c.in[1] = scalar_first ? sa : sc;
    c.scalar[0] = scalar_first;
    c.scalar[1] = !scalar_first;
    c.p.cat.sep = sep;
    c.p.cat.sep_len = sep_len;
    st = zb__dispatch_column(col->device, &c, out, err);
  }
  zb_column_release(sc);
  zb_column_release(sa);
  return st;
}

zb_status zb_column_str_join(const zb_column *col, const char *sep, int64_t sep_len,
                             char **out, int64_t *out_len, zb_error *err) {
  if (out == NULL || out_len == NULL) return zb_error_set(err, ZB_EINVAL, "str.cat: NULL output");
  *out = NULL;
  *out_len = 0;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "str.cat: NULL column");
  ZB_RETURN_NOT_OK(check_sep(&sep, &sep_len, err));
  if (!is_stringish(col->type))
    return zb_error_set(err, ZB_ETYPE, "str.cat needs a string column, not %s",
                        zb_type_name(col->type));
  zb_column *s = NULL, *h = NULL;
  zb_status st = as_string(col, &s, err);
  if (st == ZB_OK) st = zb_column_to_device(s, ZB_CPU, &h, err);
  zb_column_release(s);
  if (st != ZB_OK) return st;
  int64_t total = 0, valid = 0;
  for (int64_t i = 0; i < h->length; i++) {
    if (!zb_column_is_valid(h, i)) continue;
    int64_t len;
    zb__str(h, i, &len);
    total += len;
    valid++;
  }
  if (valid > 1) total += (valid - 1) * sep_len;
  char *buf = (char *)zb_malloc((size_t)total + 1);
  if (buf == NULL) {
    zb_column_release(h);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (str.cat: %lld bytes)",
                        (long long)total + 1);
  }
  int64_t pos = 0, seen = 0;
  for (int64_t i = 0; i < h->length; i++) {
    if (!zb_column_is_valid(h, i)) continue;
    if (seen++ > 0 && sep_len > 0) {
      memcpy(buf + pos, sep, (size_t)sep_len);
      pos += sep_len;
    }
    int64_t len;
    const char *p = zb__str(h, i, &len);
    if (len > 0) memcpy(buf + pos, p, (size_t)len);
    pos += len;
  }
  buf[pos] = '\0';
  zb_column_release(h);
  *out = buf;
  *out_len = pos;
  return ZB_OK;
}

/* ---- dates and times ------------------------------------------------------ */

/* The fixed offset in seconds of timezone tz, or ZB_ENOTSUP. */
static zb_status tz_offset(const char *tz, int64_t *off, zb_error *err) {
  *off = 0;
  if (tz == NULL || tz[0] == '\0' || strcmp(tz, "UTC") == 0 || strcmp(tz, "utc") == 0 ||
      strcmp(tz, "Etc/UTC") == 0 || strcmp(tz, "GMT") == 0 || strcmp(tz, "Etc/GMT") == 0 ||
      strcmp(tz, "Z") == 0)
    return ZB_OK;
  /* "+HH:MM", "-HH:MM", "+HHMM", "+HH" (optionally prefixed "UTC"). */
  const char *p = tz;
  if (strncmp(p, "UTC", 3) == 0) p += 3;
  if ((p[0] == '+' || p[0] == '-') && p[1] >= '0' && p[1] <= '9' && p[2] >= '0' &&
      p[2] <= '9') {
    int sign = p[0] == '-' ? -1 : 1, hh = (p[1] - '0') * 10 + (p[2] - '0'), mm = 0;
    const char *q = p + 3;
    if (*q == ':') q++;
    if (q[0] >= '0' && q[0] <= '9' && q[1] >= '0' && q[1] <= '9') {
      mm = (q[0] - '0') * 10 + (q[1] - '0');
      q += 2;
    }
    if (*q == '\0' && hh <= 23 && mm <= 59) {
      *off = sign * (hh * 3600 + mm * 60);
      return ZB_OK;
    }
  }
  return zb_error_set(err, ZB_ENOTSUP,
                      "timezone '%s' needs a timezone database, which zambezi does not have: "
                      "fields are available for naive, UTC and fixed-offset timestamps "
                      "(convert to UTC first)",
                      tz);
}

zb_status zb_column_dt_field(const zb_column *col, zb_dt_field field, zb_column **out,
                             zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "dt: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "dt: NULL column");
  if ((int)field < 0 || field >= ZB_DT_FIELD_COUNT)
    return zb_error_set(err, ZB_EINVAL, "unknown date/time field %d", (int)field);
  if (col->type != ZB_DATE32 && col->type != ZB_TIMESTAMP)
    return zb_error_set(err, ZB_ETYPE, "dt.%s needs a date32 or timestamp column, not %s",
                        zb_dt_field_name(field), zb_type_name(col->type));
  if (col->type == ZB_DATE32 &&
      (field == ZB_DT_HOUR || field == ZB_DT_MINUTE || field == ZB_DT_SECOND ||
       field == ZB_DT_MICROSECOND || field == ZB_DT_NANOSECOND))
    return zb_error_set(err, ZB_ETYPE, "dt.%s is not defined for a date32 column (no time of day)",
                        zb_dt_field_name(field));
  if (col->type == ZB_TIMESTAMP && ((int)col->unit < ZB_SECOND || col->unit > ZB_NANO))
    return zb_error_set(err, ZB_EINVAL, "invalid time unit %d", (int)col->unit);
  zb__call c = {.op = ZB__OP_DT_FIELD, .variant = (int32_t)field, .name = zb_dt_field_name(field)};
  c.in[0] = col;
  if (col->type == ZB_TIMESTAMP) ZB_RETURN_NOT_OK(tz_offset(col->timezone, &c.p.dt.offset_s, err));
  return zb__dispatch_column(col->device, &c, out, err);
}

zb_status zb_column_date_diff(const zb_column *a, const zb_column *b, zb_column **out,
                              zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "date difference: NULL output");
  *out = NULL;
  if (a == NULL || b == NULL) return zb_error_set(err, ZB_EINVAL, "date difference: NULL column");
  bool dates = a->type == ZB_DATE32 && b->type == ZB_DATE32;
  bool stamps = a->type == ZB_TIMESTAMP && b->type == ZB_TIMESTAMP;
  if (!dates && !stamps)
    return zb_error_set(err, ZB_ETYPE,
                        "date difference needs two date32 or two timestamp columns, not %s and %s",
                        zb_type_name(a->type), zb_type_name(b->type));
  if (stamps) {
    bool aa = a->timezone != NULL && a->timezone[0] != '\0';
    bool ba = b->timezone != NULL && b->timezone[0] != '\0';
    if (aa != ba)
      return zb_error_set(err, ZB_ETYPE,
                          "cannot subtract a timezone-naive and a timezone-aware timestamp");
  }
  zb_time_unit unit = ZB_MAX(a->unit, b->unit);
  zb_column *ca = NULL, *cb = NULL, *ia = NULL, *ib = NULL;
  zb_status st = ZB_OK;
  if (stamps) {
    st = a->unit == unit ? (ca = zb_column_retain((zb_column *)a), ZB_OK)
                         : zb_column_cast(a, ZB_TIMESTAMP, unit, &ca, err);
    if (st == ZB_OK)
      st = b->unit == unit ? (cb = zb_column_retain((zb_column *)b), ZB_OK)
                           : zb_column_cast(b, ZB_TIMESTAMP, unit, &cb, err);
  } else {
    ca = zb_column_retain((zb_column *)a);
    cb = zb_column_retain((zb_column *)b);
  }
  if (st == ZB_OK) st = zb_column_cast(ca, ZB_INT64, unit, &ia, err);
  if (st == ZB_OK) st = zb_column_cast(cb, ZB_INT64, unit, &ib, err);
  zb_column *diff = NULL;
  if (st == ZB_OK) st = zb_column_binary(ZB_OP_SUB, ia, ib, &diff, err);
  if (st == ZB_OK && stamps) st = zb__time_overflow(ZB_OP_SUB, ia, false, ib, false, diff, err);
  if (st == ZB_OK && dates) { /* days -> seconds, Arrow's unit for date32 - date32 */
    zb_column *secs = NULL;
    zb_scalar day = {.type = ZB_INT64, .v.i = 86400};
    st = zb_column_binary_scalar(ZB_OP_MUL, diff, &day, false, &secs, err);
    zb_column_release(diff);
    diff = secs;
  }
  if (st == ZB_OK)
    st = zb__column_retag(diff, ZB_DURATION, dates ? ZB_SECOND : unit, NULL, out, err);
  zb_column_release(diff);
  zb_column_release(ca);
  zb_column_release(cb);
  zb_column_release(ia);
  zb_column_release(ib);
  return st;
}

/* ---- clip, round ------------------------------------------------------------ */

static bool scalar_is_float(const zb_scalar *s) {
  return s != NULL && !s->is_null && zb_type_is_float(s->type);
}

/* s as a bound of type t (a numeric, non-bool type): *out has type t;
 * is_null when there is no bound.  upper selects which side. */
static zb_status clip_bound(const zb_scalar *s, zb_type_id t, bool upper, zb_scalar *out,
                            zb_error *err) {
  memset(out, 0, sizeof *out);
  out->type = t;
  out->is_null = true;
  if (s == NULL || s->is_null) return ZB_OK;
  const char *side = upper ? "upper" : "lower";
  if (!zb_type_is_numeric(s->type))
    return zb_error_set(err, ZB_ETYPE, "clip: the %s bound is a %s, not a number", side,
                        zb_type_name(s->type));
  if (zb_type_is_float(t)) {
    double f = zb_type_is_float(s->type) ? s->v.f
               : s->type == ZB_BOOL      ? (double)s->v.b
               : zb_type_is_signed(s->type) ? (double)s->v.i
                                           : (double)s->v.u;
    if (isnan(f)) return ZB_OK; /* pandas: NaN is no bound */
    out->v.f = f;
    out->is_null = false;
    return ZB_OK;
  }
  /* Integer column, integer (or bool) bound. */
  bool neg = zb_type_is_signed(s->type) && s->v.i < 0;
  uint64_t mag = s->type == ZB_BOOL ? (uint64_t)s->v.b
                 : neg              ? (uint64_t)0 - (uint64_t)s->v.i
                 : zb_type_is_signed(s->type) ? (uint64_t)s->v.i
                                              : s->v.u;
  int bits = zb_type_width(t) * 8;
  bool tsigned = zb_type_is_signed(t);
  uint64_t tmax = tsigned ? (UINT64_C(1) << (bits - 1)) - 1
                          : (bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1);
  uint64_t tmin_mag = tsigned ? UINT64_C(1) << (bits - 1) : 0; /* |min| */
  bool below = neg ? mag > tmin_mag : false;
  bool above = !neg && mag > tmax;
  if ((upper && below) || (!upper && above))
    return zb_error_set(err, ZB_EOVERFLOW,
                        "clip: the %s bound %s%llu is outside the range of the %s column", side,
                        neg ? "-" : "", (unsigned long long)mag, zb_type_name(t));
  if (below || above) return ZB_OK; /* saturates to the type's limit: no bound */
  out->is_null = false;
  if (tsigned)
    out->v.i = neg ? (int64_t)((uint64_t)0 - mag) : (int64_t)mag;
  else
    out->v.u = mag;
  return ZB_OK;
}

zb_status zb_column_clip(const zb_column *col, const zb_scalar *lower, const zb_scalar *upper,
                         zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "clip: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "clip: NULL column");
  zb_type_id t = col->type;
  if (!zb_type_is_numeric(t) || t == ZB_BOOL)
    return zb_error_set(err, ZB_ETYPE, "clip needs a numeric column, not %s", zb_type_name(t));
  zb_type_id rt = t;
  if (zb_type_is_integer(t) && (scalar_is_float(lower) || scalar_is_float(upper))) rt = ZB_FLOAT64;
  zb_scalar lo, hi;
  ZB_RETURN_NOT_OK(clip_bound(lower, rt, false, &lo, err));
  ZB_RETURN_NOT_OK(clip_bound(upper, rt, true, &hi, err));
  zb_column *src = NULL;
  if (rt != t)
    ZB_RETURN_NOT_OK(zb_column_cast(col, rt, ZB_MICRO, &src, err));
  else
    src = zb_column_retain((zb_column *)col);
  zb__call c = {.op = ZB__OP_CLIP};
  c.in[0] = src;
  c.p.clip.lower = &lo;
  c.p.clip.upper = &hi;
  zb_status st = zb__dispatch_column(col->device, &c, out, err);
  zb_column_release(src);
  return st;
}

zb_status zb_column_round(const zb_column *col, int decimals, zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "round: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "round: NULL column");
  zb_type_id t = col->type;
  if (!zb_type_is_numeric(t) || t == ZB_BOOL)
    return zb_error_set(err, ZB_ETYPE, "round needs a numeric column, not %s", zb_type_name(t));
  if (zb_type_is_integer(t) && decimals >= 0) {
    *out = zb_column_retain((zb_column *)col);
    return ZB_OK;
  }
  zb__call c = {.op = ZB__OP_ROUND};
  c.in[0] = col;
  c.p.round.decimals = decimals;
  return zb__dispatch_column(col->device, &c, out, err);
}

/* ---- between ------------------------------------------------------------------ */

static zb_status between_ops(zb_inclusive inc, zb_binary_op *lop, zb_binary_op *rop,
                             zb_error *err) {
  switch (inc) {
    case ZB_INCLUSIVE_BOTH: *lop = ZB_OP_GE; *rop = ZB_OP_LE; return ZB_OK;
    case ZB_INCLUSIVE_NEITHER: *lop = ZB_OP_GT; *rop = ZB_OP_LT; return ZB_OK;
    case ZB_INCLUSIVE_LEFT: *lop = ZB_OP_GE; *rop = ZB_OP_LT; return ZB_OK;
    case ZB_INCLUSIVE_RIGHT: *lop = ZB_OP_GT; *rop = ZB_OP_LE; return ZB_OK;
  }
  return zb_error_set(err, ZB_EINVAL,
                      "between: inclusive must be both, neither, left or right (got %d)",
                      (int)inc);
}

/* l AND r, consuming both. */
static zb_status and_consume(zb_column *l, zb_column *r, zb_column **out, zb_error *err) {
  zb_status st = zb_column_binary(ZB_OP_AND, l, r, out, err);
  zb_column_release(l);
  zb_column_release(r);
  return st;
}

zb_status zb_column_between(const zb_column *col, const zb_scalar *left, const zb_scalar *right,
                            zb_inclusive inclusive, zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "between: NULL output");
  *out = NULL;
  if (col == NULL || left == NULL || right == NULL)
    return zb_error_set(err, ZB_EINVAL, "between: NULL argument");
  zb_binary_op lop = ZB_OP_GE, rop = ZB_OP_LE;
  ZB_RETURN_NOT_OK(between_ops(inclusive, &lop, &rop, err));
  zb_column *l = NULL, *r = NULL;
  zb_status st = zb_column_binary_scalar(lop, col, left, false, &l, err);
  if (st == ZB_OK) st = zb_column_binary_scalar(rop, col, right, false, &r, err);
  if (st != ZB_OK) {
    zb_column_release(l);
    zb_column_release(r);
    return st;
  }
  return and_consume(l, r, out, err);
}

zb_status zb_column_between_string(const zb_column *col, const char *left, int64_t left_len,
                                   const char *right, int64_t right_len, zb_inclusive inclusive,
                                   zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "between: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "between: NULL column");
  zb_binary_op lop = ZB_OP_GE, rop = ZB_OP_LE;
  ZB_RETURN_NOT_OK(between_ops(inclusive, &lop, &rop, err));
  zb_column *l = NULL, *r = NULL;
  zb_status st = zb_column_binary_string(lop, col, left, left_len, false, &l, err);
  if (st == ZB_OK) st = zb_column_binary_string(rop, col, right, right_len, false, &r, err);
  if (st != ZB_OK) {
    zb_column_release(l);
    zb_column_release(r);
    return st;
  }
  return and_consume(l, r, out, err);
}

/* ---- where / mask --------------------------------------------------------------- */

static zb_status check_cond(const zb_column *col, const zb_column *cond, zb_error *err) {
  if (col != NULL && col->type == ZB_LIST)
    return zb_error_set(err, ZB_ETYPE, "where is not supported for list columns");
  if (cond == NULL) return zb_error_set(err, ZB_EINVAL, "where: NULL condition");
  if (cond->type != ZB_BOOL)
    return zb_error_set(err, ZB_ETYPE, "where: the condition must be bool, not %s",
                        zb_type_name(cond->type));
  if (cond->length != col->length)
    return zb_error_set(err, ZB_EINVAL, "where: the condition has %lld rows, the data %lld",
                        (long long)cond->length, (long long)col->length);
  if (!zb_device_equal(cond->device, col->device))
    return zb_error_set(err, ZB_EINVAL, "where: condition and data on different devices");
  return ZB_OK;
}

/* c converted to type t (a new reference). */
static zb_status to_type(const zb_column *c, zb_type_id t, zb_column **out, zb_error *err) {
  if (c->type == t) {
    *out = zb_column_retain((zb_column *)c);
    return ZB_OK;
  }
  return zb_column_cast(c, t, c->unit, out, err);
}

/* Run where over a and b of one type (b a length-1 host column when
 * b_scalar); consumes a and b. */
static zb_status where_run(const zb_column *cond, bool mask, zb_column *a, zb_column *b,
                           bool b_scalar, zb_column **out, zb_error *err) {
  zb__call c = {.op = ZB__OP_WHERE};
  c.in[0] = cond;
  c.in[1] = a;
  c.in[2] = b;
  c.scalar[2] = b_scalar;
  c.p.where.mask = mask;
  zb_status st = zb__dispatch_column(a->device, &c, out, err);
  zb_column_release(a);
  zb_column_release(b);
  return st;
}

/* A null length-1 host column of type t shaped like `like`. */
static zb_status null_scalar(const zb_column *like, zb_type_id t, zb_column **out,
                             zb_error *err) {
  if (t == ZB_STRING) return zb__string_scalar_column(NULL, 0, out, err);
  zb_column *c = NULL;
  ZB_RETURN_NOT_OK(zb__new_like(like, t, 1, true, 0, &c, err));
  memset(c->data->data, 0, (size_t)(zb_type_width(t) > 0 ? zb_type_width(t) : 1));
  zb_bit_set((uint8_t *)c->validity->data, 0, false);
  zb_column_recount_nulls(c);
  *out = c;
  return ZB_OK;
}

zb_status zb_column_where(const zb_column *col, const zb_column *cond, bool mask,
                          const zb_column *other, zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "where: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "where: NULL column");
  ZB_RETURN_NOT_OK(check_cond(col, cond, err));
  zb_column *a = NULL, *b = NULL;
  zb_status st = ZB_OK;
  bool b_scalar = other == NULL;
  if (other != NULL) {
    if (other->length != col->length)
      return zb_error_set(err, ZB_EINVAL, "where: other has %lld rows, the data %lld",
                          (long long)other->length, (long long)col->length);
    if (!zb_device_equal(other->device, col->device))
      return zb_error_set(err, ZB_EINVAL, "where: other and data on different devices");
  }
  zb_type_id ta = col->type, tb = other ? other->type : col->type;
  if (is_stringish(ta)) {
    if (!is_stringish(tb))
      return zb_error_set(err, ZB_ETYPE, "where: a %s other for a %s column", zb_type_name(tb),
                          zb_type_name(ta));
    st = as_string(col, &a, err);
    if (st == ZB_OK) st = other ? as_string(other, &b, err) : null_scalar(col, ZB_STRING, &b, err);
  } else if (zb_type_is_numeric(ta)) {
    if (!zb_type_is_numeric(tb))
      return zb_error_set(err, ZB_ETYPE, "where: a %s other for a %s column", zb_type_name(tb),
                          zb_type_name(ta));
    zb_type_id t = zb__promote_numeric(ta, tb);
    st = to_type(col, t, &a, err);
    if (st == ZB_OK) st = other ? to_type(other, t, &b, err) : null_scalar(col, t, &b, err);
  } else {
    if (other != NULL) {
      const char *za = col->timezone ? col->timezone : "";
      const char *zo = other->timezone ? other->timezone : "";
      if (tb != ta || ((ta == ZB_TIMESTAMP || ta == ZB_DURATION) && (other->unit != col->unit || strcmp(za, zo) != 0)))
        return zb_error_set(err, ZB_ETYPE, "where: other must have the column's dtype %s",
                            zb_type_name(ta));
    }
    a = zb_column_retain((zb_column *)col);
    st = other ? (b = zb_column_retain((zb_column *)other), ZB_OK) : null_scalar(col, ta, &b, err);
  }
  if (st != ZB_OK) {
    zb_column_release(a);
    zb_column_release(b);
    return st;
  }
  return where_run(cond, mask, a, b, b_scalar, out, err);
}

zb_status zb_column_where_scalar(const zb_column *col, const zb_column *cond, bool mask,
                                 const zb_scalar *other, zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "where: NULL output");
  *out = NULL;
  if (col == NULL || other == NULL) return zb_error_set(err, ZB_EINVAL, "where: NULL argument");
  ZB_RETURN_NOT_OK(check_cond(col, cond, err));
  zb_type_id t = col->type;
  if (other->is_null) return zb_column_where(col, cond, mask, NULL, out, err);
  if ((int)other->type < 0 || other->type >= ZB_TYPE_COUNT || is_stringish(other->type))
    return zb_error_set(err, ZB_ETYPE, "where: a %s scalar (use zb_column_where_string)",
                        zb_type_name(other->type));
  zb_column *a = NULL, *b = NULL;
  zb_status st = ZB_OK;
  if (zb_type_is_numeric(t)) {
    if (!zb_type_is_numeric(other->type))
      return zb_error_set(err, ZB_ETYPE, "where: a %s other for a %s column",
                          zb_type_name(other->type), zb_type_name(t));
    zb_type_id rt = t;
    if (zb_type_is_float(other->type) && !zb_type_is_float(t)) rt = ZB_FLOAT64;
    if (t == ZB_BOOL && other->type != ZB_BOOL) rt = zb__promote_numeric(t, other->type);
    /* The scalar as a length-1 column of its own type, then cast. */
    zb_column *raw = NULL;
    st = zb_column_new(other->type, 1, false, 0, &raw, err);
    if (st == ZB_OK) {
      void *d = raw->data->data;
      zb__scalar_store(other, other->type, d);
      st = to_type(raw, rt, &b, err);
    }
    zb_column_release(raw);
    if (st == ZB_OK) st = to_type(col, rt, &a, err);
  } else if (t == ZB_DATE32 || t == ZB_TIMESTAMP || t == ZB_DURATION) {
    if (!zb_type_is_integer(other->type) && other->type != t)
      return zb_error_set(err, ZB_ETYPE, "where: a %s other for a %s column",
                          zb_type_name(other->type), zb_type_name(t));
    int64_t v = other->v.i;
    if (zb_type_is_integer(other->type) && !zb_type_is_signed(other->type)) {
      if (other->v.u > INT64_MAX) return zb_error_set(err, ZB_EOVERFLOW, "where: value too large");
      v = (int64_t)other->v.u;
    }
    if (t == ZB_DATE32 && (v < INT32_MIN || v > INT32_MAX))
      return zb_error_set(err, ZB_EOVERFLOW, "where: %lld days does not fit a date32",
                          (long long)v);
    st = zb__new_like(col, t, 1, false, 0, &b, err);
    if (st == ZB_OK) {
      if (t == ZB_DATE32)
        *(int32_t *)b->data->data = (int32_t)v;
      else
        *(int64_t *)b->data->data = v;
      a = zb_column_retain((zb_column *)col);
    }
  } else {
    return zb_error_set(err, ZB_ETYPE, "where: a %s scalar for a %s column",
                        zb_type_name(other->type), zb_type_name(t));
  }
  if (st != ZB_OK) {
    zb_column_release(a);
    zb_column_release(b);
    return st;
  }
  return where_run(cond, mask, a, b, true, out, err);
}

zb_status zb_column_where_string(const zb_column *col, const zb_column *cond, bool mask,
                                 const char *s, int64_t len, zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "where: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "where: NULL column");
  ZB_RETURN_NOT_OK(check_cond(col, cond, err));
  if (!is_stringish(col->type))
    return zb_error_set(err, ZB_ETYPE, "where: a string other for a %s column",
                        zb_type_name(col->type));
  zb_column *a = NULL, *b = NULL;
  zb_status st = zb__string_scalar_column(s, len, &b, err);
  if (st == ZB_OK) st = as_string(col, &a, err);
  if (st != ZB_OK) {
    zb_column_release(a);
    zb_column_release(b);
    return st;
  }
  return where_run(cond, mask, a, b, true, out, err);
}
