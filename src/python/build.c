/*
 * build.c -- building engine columns from Python data.
 *
 *   column_from_sequence: one C loop over a list / tuple / object ndarray,
 *     inferring the dtype (None and NaN are nulls, ints widen to float when
 *     floats are present, str -> string, date -> date32, datetime ->
 *     timestamp[us]; numpy scalars count as the Python values they stand
 *     for) or converting to an explicit dtype.  Errors name the column, the
 *     index and the Python type.
 *   column_from_buffer: copies a 1-D buffer (a numpy array, any strides)
 *     into engine memory with the GIL released; NaN and masked positions
 *     become nulls.
 *   categorical_from_codes: int codes (-1 = null) plus a dictionary of any flat
 *     dtype without nulls, and whether the categories are ordered (None: as
 *     the dictionary's flag says).
 */
#include "zbpy.h"

#include "core/dtype_list.h"

#include <math.h>
#include <string.h>

/* Run an engine call with the GIL released (the inputs are pinned C data). */
#define NOGIL(stmt)                                                             \
  do {                                                                          \
    ZBPY_BEGIN_ENGINE stmt;                                                \
    ZBPY_END_ENGINE                                                        \
  } while (0)

enum { K_NULL = 0, K_BOOL, K_INT, K_FLOAT, K_STR, K_DATE, K_DATETIME, K_OTHER };

static const char *kind_family_name(int k) {
  switch (k) {
    case K_BOOL: return "bool";
    case K_INT:
    case K_FLOAT: return "numbers";
    case K_STR: return "str";
    case K_DATE: return "datetime.date";
    case K_DATETIME: return "datetime.datetime";
    default: return "objects";
  }
}

static int family(int k) { return k == K_FLOAT ? K_INT : k; }

/* "column 'a'" or "column" for messages. */
static void make_label(PyObject *name, char *buf, size_t size) {
  const char *s = NULL;
  if (name != NULL && name != Py_None && PyUnicode_Check(name)) s = PyUnicode_AsUTF8(name);
  if (s == NULL) {
    PyErr_Clear();
    PyOS_snprintf(buf, size, "column");
  } else {
    PyOS_snprintf(buf, size, "column '%s'", s);
  }
}

/* Null flags from a mask: a buffer of 1-byte items or a sequence of truthy
 * values; n must match. */
static int read_mask(zbpy_state *st, PyObject *mask, Py_ssize_t n, uint8_t *flags,
                     const char *label) {
  if (mask == NULL || mask == Py_None) return 0;
  if (PyObject_CheckBuffer(mask)) {
    Py_buffer mv;
    if (PyObject_GetBuffer(mask, &mv, PyBUF_RECORDS_RO) < 0) return -1;
    int rc = -1;
    if (mv.ndim != 1 || mv.itemsize != 1) {
      PyErr_Format(st->InvalidValueError, "%s: mask must be a 1-D array of bools", label);
    } else if (mv.shape[0] != n) {
      PyErr_Format(st->InvalidValueError, "%s: mask has %zd values but the data has %zd",
                   label, mv.shape[0], n);
    } else {
      for (Py_ssize_t i = 0; i < n; i++)
        if (((const char *)mv.buf)[i * mv.strides[0]] != 0) flags[i] = 1;
      rc = 0;
    }
    PyBuffer_Release(&mv);
    return rc;
  }
  PyObject *fast = PySequence_Fast(mask, "mask must be a sequence of bools");
  if (fast == NULL) return -1;
  if (PySequence_Fast_GET_SIZE(fast) != n) {
    PyErr_Format(st->InvalidValueError, "%s: mask has %zd values but the data has %zd", label,
                 PySequence_Fast_GET_SIZE(fast), n);
    Py_DECREF(fast);
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    int t = PyObject_IsTrue(PySequence_Fast_GET_ITEM(fast, i));
    if (t < 0) {
      Py_DECREF(fast);
      return -1;
    }
    if (t) flags[i] = 1;
  }
  Py_DECREF(fast);
  return 0;
}

/* The kind of o; *saw_nan gets bit 1 for a float NaN, bit 2 for NaT (a
 * datetime subclass to Python, so tested before the datetimes). */
static int classify(PyObject *o, int *saw_nan) {
  if (o == Py_None) return K_NULL;
  if (zbpy_is_nat(o)) {
    *saw_nan |= 2;
    return K_NULL;
  }
  if (PyBool_Check(o)) return K_BOOL;
  if (PyLong_Check(o)) return K_INT;
  if (PyFloat_Check(o)) {
    if (isnan(PyFloat_AS_DOUBLE(o))) {
      *saw_nan |= 1;
      return K_NULL;
    }
    return K_FLOAT;
  }
  if (PyUnicode_Check(o)) return K_STR;
  int dk = zbpy_date_kind(o);
  if (dk == 1) return K_DATETIME;
  if (dk == 2) return K_DATE;
  if (PyIndex_Check(o)) return K_INT; /* numpy integers */
  return K_OTHER;
}

/* A numpy scalar (np.bool_, np.float32, np.datetime64...) as the Python
 * value it stands for (new reference), or NULL with no error set when o is
 * not one: numpy integers already pass as ints (__index__), the others
 * would be refused.  A datetime64 is read at microseconds first (a day's
 * item() is a date, a nanosecond's an int; Python datetimes hold no finer
 * unit: *nanos gets the nanoseconds past its microsecond); NaT becomes
 * None. */
static PyObject *numpy_scalar_value(PyObject *o, int *nanos) {
  *nanos = 0;
  if (strncmp(Py_TYPE(o)->tp_name, "numpy.", 6) != 0) return NULL;
  PyObject *v = PyObject_CallMethod(o, "item", NULL);
  if (v == NULL) {
    PyErr_Clear();
    return NULL;
  }
  /* datetime64 of any unit as a datetime (pandas reads np.datetime64("2024-01-01")
   * as a timestamp, not a date; finer than us, item() is an int of ns) */
  if (strcmp(Py_TYPE(o)->tp_name, "numpy.datetime64") == 0 && v != Py_None) {
    if (PyLong_Check(v)) { /* finer than us: its ns past the us */
      PyObject *ns = PyObject_CallMethod(o, "astype", "s", "datetime64[ns]");
      PyObject *iv = ns != NULL ? PyObject_CallMethod(ns, "item", NULL) : NULL;
      long long x = iv != NULL && PyLong_Check(iv) ? PyLong_AsLongLong(iv) : 0;
      if (PyErr_Occurred()) PyErr_Clear();
      *nanos = (int)(((x % 1000) + 1000) % 1000);
      Py_XDECREF(iv);
      Py_XDECREF(ns);
    }
    Py_DECREF(v);
    PyObject *us = PyObject_CallMethod(o, "astype", "s", "datetime64[us]");
    v = us != NULL ? PyObject_CallMethod(us, "item", NULL) : NULL;
    Py_XDECREF(us);
    if (v == NULL) PyErr_Clear();
  }
  return v;
}

/* The zb_time_unit pandas infers from a np.datetime64 (days, hours and
 * minutes as seconds, finer than ns as ns, NaT of no unit as ns), or -1
 * when o is not one. */
static int numpy_datetime_unit(PyObject *o) {
  if (strcmp(Py_TYPE(o)->tp_name, "numpy.datetime64") != 0) return -1;
  PyObject *dtype = PyObject_GetAttrString(o, "dtype");
  PyObject *str = dtype != NULL ? PyObject_GetAttrString(dtype, "str") : NULL;
  const char *t = str != NULL && PyUnicode_Check(str) ? PyUnicode_AsUTF8(str) : NULL;
  int unit = ZB_SECOND;
  const char *br = t != NULL ? strchr(t, '[') : NULL;
  if (t == NULL) PyErr_Clear();
  else if (br == NULL) unit = ZB_NANO; /* "<M8": generic NaT */
  else if (strncmp(br, "[ms]", 4) == 0) unit = ZB_MILLI;
  else if (strncmp(br, "[us]", 4) == 0) unit = ZB_MICRO;
  else if (strncmp(br, "[ns]", 4) == 0 || strncmp(br, "[ps]", 4) == 0 ||
           strncmp(br, "[fs]", 4) == 0 || strncmp(br, "[as]", 4) == 0)
    unit = ZB_NANO;
  Py_XDECREF(str);
  Py_XDECREF(dtype);
  return unit;
}

/* A validity bitmap for n values from null flags (NULL when none). */
static int make_validity(zbpy_state *st, const uint8_t *kinds, int64_t n, int64_t nulls,
                         zb_buffer **out) {
  *out = NULL;
  if (nulls == 0) return 0;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_buffer_new_zeroed(ZB_CPU, (n + 7) / 8, out, &err);
  if (s == ZB_OK) {
    uint8_t *bits = (uint8_t *)(*out)->data;
    for (int64_t i = 0; i < n; i++)
      if (kinds[i] != K_NULL) bits[i >> 3] |= (uint8_t)(1u << (i & 7));
  }
  ZBPY_END_ENGINE
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    return -1;
  }
  return 0;
}

/* Assemble and wrap; releases the given buffers in every case. */
static PyObject *finish(zbpy_state *st, zb_type_id type, int64_t n, zb_buffer *validity,
                        zb_buffer *data, zb_buffer *chars, zb_column *dict, int64_t nulls,
                        zb_time_unit unit, const char *tz) {
  zb_column *col = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_column_make(type, n, 0, validity, data, chars, dict, nulls, &col, &err);
  zb_buffer_release(validity);
  zb_buffer_release(data);
  zb_buffer_release(chars);
  if (s == ZB_OK && (type == ZB_TIMESTAMP || type == ZB_DURATION))
    s = zb_column_set_time(col, unit, (tz != NULL && tz[0] != '\0') ? tz : NULL, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) {
    zb_column_release(col);
    return zbpy_raise(st, s, &err);
  }
  return zbpy_column_wrap(st, col);
}

/* ------------------------------------------------------------------------ */
/* Numbers, bools, dates and timestamps                                     */
/* ------------------------------------------------------------------------ */

typedef struct number {
  int big;    /* the value is u (> INT64_MAX) */
  int64_t i;
  uint64_t u;
  double f;
  int is_float;
} number;

/* The integer value of an int-like object. */
static int get_int(zbpy_state *st, PyObject *o, number *v, const char *label, Py_ssize_t idx) {
  PyObject *lo = PyNumber_Index(o);
  if (lo == NULL) return -1;
  int ov = 0;
  v->big = 0;
  v->u = 0;
  v->f = 0;
  v->is_float = 0;
  v->i = PyLong_AsLongLongAndOverflow(lo, &ov);
  if (v->i == -1 && PyErr_Occurred()) goto error;
  if (ov > 0) {
    v->u = PyLong_AsUnsignedLongLong(lo);
    if (v->u == (uint64_t)-1 && PyErr_Occurred()) {
      PyErr_Clear();
      ov = -1;
    } else {
      v->big = 1;
    }
  }
  if (ov < 0) {
    PyErr_Format(st->ZambeziOverflowError,
                 "%s: the int at index %zd (%R) does not fit in 64 bits", label, idx, lo);
    goto error;
  }
  Py_DECREF(lo);
  return 0;
error:
  Py_DECREF(lo);
  return -1;
}

static int type_error_at(zbpy_state *st, const char *label, Py_ssize_t idx, PyObject *o,
                         const char *target) {
  PyErr_Format(st->DTypeError, "%s: cannot store the %s at index %zd (%R) in a %s column",
               label, Py_TYPE(o)->tp_name, idx, o, target);
  return -1;
}

static int overflow_at(zbpy_state *st, const char *label, Py_ssize_t idx, PyObject *o,
                       zb_type_id t) {
  PyErr_Format(st->ZambeziOverflowError, "%s: the value at index %zd (%R) does not fit in %s",
               label, idx, o, zb_type_name(t));
  return -1;
}

/* Store v at data[idx] as type t with range checks. */
static int store_number(zbpy_state *st, zb_type_id t, void *data, Py_ssize_t idx,
                        const number *v, PyObject *o, const char *label) {
  if (t == ZB_FLOAT64 || t == ZB_FLOAT32) {
    double f = v->is_float ? v->f : v->big ? (double)v->u : (double)v->i;
    if (t == ZB_FLOAT64) ((double *)data)[idx] = f;
    else ((float *)data)[idx] = (float)f;
    return 0;
  }
  if (t == ZB_BOOL) {
    bool b = v->is_float ? v->f != 0 : v->big ? true : v->i != 0;
    if (b) ((uint8_t *)data)[idx >> 3] |= (uint8_t)(1u << (idx & 7));
    return 0;
  }
  /* integer targets */
  int64_t si = 0;
  uint64_t uu = 0;
  int neg = 0, big = v->big;
  if (v->is_float) {
    double f = v->f;
    if (!isfinite(f) || f != floor(f)) {
      PyErr_Format(st->InvalidValueError,
                   "%s: the float at index %zd (%R) is not a whole number, so it cannot be "
                   "stored as %s",
                   label, idx, o, zb_type_name(t));
      return -1;
    }
    if (f >= 18446744073709551616.0 || f < -9223372036854775808.0) return overflow_at(st, label, idx, o, t);
    if (f >= 9223372036854775808.0) {
      big = 1;
      uu = (uint64_t)f;
    } else {
      si = (int64_t)f;
    }
  } else if (big) {
    uu = v->u;
  } else {
    si = v->i;
  }
  if (!big) {
    neg = si < 0;
    uu = (uint64_t)si;
  }
  int w = zb_type_width(t) * 8;
  if (zb_type_is_signed(t) || t == ZB_DATE32 || t == ZB_TIMESTAMP || t == ZB_DURATION) {
    int64_t lo = w == 64 ? INT64_MIN : -((int64_t)1 << (w - 1));
    int64_t hi = w == 64 ? INT64_MAX : ((int64_t)1 << (w - 1)) - 1;
    if (big || si < lo || si > hi) return overflow_at(st, label, idx, o, t);
  } else {
    uint64_t hi = w == 64 ? UINT64_MAX : (((uint64_t)1 << w) - 1);
    if (neg || uu > hi) return overflow_at(st, label, idx, o, t);
  }
  switch (t) {
#define STORE_S(ID, T, NAME, U) case ID: ((T *)data)[idx] = (T)si; break;
#define STORE_U(ID, T, NAME, U) case ID: ((T *)data)[idx] = (T)uu; break;
    ZB_FOR_EACH_SIGNED_TYPE(STORE_S)
    ZB_FOR_EACH_TEMPORAL_TYPE(STORE_S)
    ZB_FOR_EACH_UNSIGNED_TYPE(STORE_U)
#undef STORE_S
#undef STORE_U
    default: return type_error_at(st, label, idx, o, zb_type_name(t));
  }
  return 0;
}


/* Microseconds -> unit, flooring for coarser units. */
static int us_to_unit(int64_t us, zb_time_unit unit, int64_t *out) {
  if (unit == ZB_MICRO) {
    *out = us;
  } else if (unit == ZB_NANO) {
    if (us > INT64_MAX / 1000 || us < INT64_MIN / 1000) return -1;
    *out = us * 1000;
  } else {
    int64_t d = unit == ZB_MILLI ? 1000 : 1000000;
    int64_t q = us / d;
    if (us % d != 0 && us < 0) q--;
    *out = q;
  }
  return 0;
}

/* Build a fixed-width column of type t from items.  kinds[i] is K_NULL for
 * nulls.  tz_io: for timestamps, in: the requested timezone ("" none);
 * out: "UTC" when aware datetimes were converted. */
static PyObject *build_fixed(zbpy_state *st, zb_type_id t, zb_time_unit unit, char *tz,
                             PyObject *const *items, const uint8_t *kinds, Py_ssize_t n,
                             int64_t nulls, const char *label, const int16_t *np_nanos) {
  zb_buffer *data = NULL, *validity = NULL;
  zb_error err;
  err.message[0] = '\0';
  int64_t bytes = t == ZB_BOOL ? (n + 7) / 8 : (int64_t)n * zb_type_width(t);
  zb_status s;
  NOGIL(s = zb_buffer_new_zeroed(ZB_CPU, bytes, &data, &err));
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  void *d = data->data;
  int aware_seen = -1; /* -1 unknown, 0 naive, 1 aware */
  PyObject *zone = NULL; /* the aware datetimes' one tzinfo (borrowed), Py_None if several */
  for (Py_ssize_t i = 0; i < n; i++) {
    int k = kinds[i];
    if (k == K_NULL) continue;
    PyObject *o = items[i];
    number v;
    memset(&v, 0, sizeof v);
    if (t == ZB_DATE32) {
      if (k == K_DATE || k == K_DATETIME) {
        ((int32_t *)d)[i] = zbpy_date_to_days(o);
        continue;
      }
      if (k != K_INT) {
        type_error_at(st, label, i, o, "date32");
        goto error;
      }
    } else if (t == ZB_TIMESTAMP) {
      if (k == K_DATETIME || k == K_DATE) {
        int64_t us;
        int aware = 0;
        if (k == K_DATETIME) {
          if (zbpy_datetime_to_us(o, &us, &aware) < 0) goto error;
        } else {
          us = (int64_t)zbpy_date_to_days(o) * 86400 * 1000000;
        }
        if (k == K_DATETIME) {
          if (aware_seen >= 0 && aware_seen != aware) {
            PyErr_Format(st->DTypeError,
                         "%s: the datetime at index %zd is %s but earlier ones are %s "
                         "(cannot mix timezone-aware and naive datetimes)",
                         label, i, aware ? "timezone-aware" : "naive",
                         aware ? "naive" : "timezone-aware");
            goto error;
          }
          aware_seen = aware;
          if (aware) {
            PyObject *z = zbpy_datetime_tzinfo(o);
            zone = zone == NULL || zone == z ? z : Py_None;
          }
        }
        int64_t *slot = &((int64_t *)d)[i], nanos_ = 0;
        if (k == K_DATETIME && unit == ZB_NANO && np_nanos != NULL) { /* np.datetime64's */
          nanos_ = np_nanos[i];
        } else if (k == K_DATETIME && unit == ZB_NANO) { /* pd.Timestamp's nanoseconds */
          int u_, ns_;
          if (zbpy_datetime_unit(o, &u_, &ns_) < 0) goto error;
          nanos_ = ns_;
        }
        if (us_to_unit(us, unit, slot) < 0 || __builtin_add_overflow(*slot, nanos_, slot)) {
          PyErr_Format(st->ZambeziOverflowError,
                       "%s: the datetime at index %zd does not fit in timestamp[%s]", label, i,
                       zbpy_unit_name(unit));
          goto error;
        }
        continue;
      }
      if (k != K_INT) {
        type_error_at(st, label, i, o, "timestamp");
        goto error;
      }
    }
    if (k == K_BOOL) {
      v.i = o == Py_True;
    } else if (k == K_INT) {
      if (get_int(st, o, &v, label, i) < 0) goto error;
    } else if (k == K_FLOAT) {
      v.is_float = 1;
      v.f = PyFloat_AS_DOUBLE(o);
    } else {
      type_error_at(st, label, i, o, zb_type_name(t));
      goto error;
    }
    if (store_number(st, t, d, i, &v, o, label) < 0) goto error;
  }
  if (t == ZB_TIMESTAMP && aware_seen == 1 && tz[0] == '\0') {
    strcpy(tz, "UTC");
    /* one named zone (zoneinfo's key, pytz's zone) for them all: keep it, as pandas */
    if (zone != NULL && zone != Py_None) {
      PyObject *key = PyObject_GetAttrString(zone, "key");
      if (key == NULL) {
        PyErr_Clear();
        key = PyObject_GetAttrString(zone, "zone");
      }
      if (key == NULL) {
        PyErr_Clear();
        /* a fixed offset (datetime.timezone): pandas keeps it too */
        zbpy_fixed_offset_name(zone, tz, 128);
      }
      const char *name = key != NULL && PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
      if (name == NULL) PyErr_Clear();
      else if (strlen(name) < 128) strcpy(tz, name);
      Py_XDECREF(key);
    }
  }
  if (make_validity(st, kinds, n, nulls, &validity) < 0) goto error;
  return finish(st, t, n, validity, data, NULL, NULL, nulls, unit, tz);
error:
  zb_buffer_release(data);
  return NULL;
}

/* Infer int64 or uint64 for a column of ints (and nulls), then build it. */
static PyObject *build_ints(zbpy_state *st, PyObject *const *items, const uint8_t *kinds,
                            Py_ssize_t n, int64_t nulls, const char *label) {
  zb_buffer *data = NULL, *validity = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  NOGIL(s = zb_buffer_new_zeroed(ZB_CPU, (int64_t)n * 8, &data, &err));
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  uint64_t *d = (uint64_t *)data->data;
  Py_ssize_t first_big = -1, first_neg = -1;
  for (Py_ssize_t i = 0; i < n; i++) {
    if (kinds[i] == K_NULL) continue;
    number v;
    if (get_int(st, items[i], &v, label, i) < 0) goto error;
    if (v.big) {
      d[i] = v.u;
      if (first_big < 0) first_big = i;
    } else {
      d[i] = (uint64_t)v.i;
      if (v.i < 0 && first_neg < 0) first_neg = i;
    }
  }
  if (first_big >= 0 && first_neg >= 0) {
    Py_ssize_t later = first_big > first_neg ? first_big : first_neg;
    PyErr_Format(st->ZambeziOverflowError,
                 "%s: the int at index %zd (%R) does not fit in int64 or uint64 together with "
                 "the other values (index %zd is above 2**63-1, index %zd is negative)",
                 label, later, items[later], first_big, first_neg);
    goto error;
  }
  if (make_validity(st, kinds, n, nulls, &validity) < 0) goto error;
  return finish(st, first_big >= 0 ? ZB_UINT64 : ZB_INT64, n, validity, data, NULL, NULL, nulls,
                ZB_MICRO, NULL);
error:
  zb_buffer_release(data);
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* Strings and categoricals                                                 */
/* ------------------------------------------------------------------------ */

/* A string column from items that are str wherever kinds[i] != K_NULL. */
static int build_string_column(zbpy_state *st, PyObject *const *items, const uint8_t *kinds,
                               Py_ssize_t n, int64_t nulls, zb_column **out) {
  zb_buffer *offsets = NULL, *chars = NULL, *validity = NULL;
  zb_error err;
  err.message[0] = '\0';
  *out = NULL;
  int64_t total = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    if (kinds != NULL && kinds[i] == K_NULL) continue;
    Py_ssize_t len;
    if (PyUnicode_AsUTF8AndSize(items[i], &len) == NULL) return -1;
    total += len;
  }
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_buffer_new(ZB_CPU, ((int64_t)n + 1) * 8, &offsets, &err);
  if (s == ZB_OK) s = zb_buffer_new(ZB_CPU, total, &chars, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto error;
  }
  int64_t *offs = (int64_t *)offsets->data;
  char *c = (char *)chars->data;
  int64_t pos = 0;
  offs[0] = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    if (kinds == NULL || kinds[i] != K_NULL) {
      Py_ssize_t len;
      const char *u = PyUnicode_AsUTF8AndSize(items[i], &len);
      memcpy(c + pos, u, (size_t)len);
      pos += len;
    }
    offs[i + 1] = pos;
  }
  if (kinds != NULL && make_validity(st, kinds, n, nulls, &validity) < 0) goto error;
  NOGIL(s = zb_column_make(ZB_STRING, n, 0, validity, offsets, chars, NULL, nulls, out, &err));
  if (s != ZB_OK) zbpy_raise(st, s, &err);
error:
  zb_buffer_release(validity);
  zb_buffer_release(offsets);
  zb_buffer_release(chars);
  return *out != NULL ? 0 : -1;
}

static PyObject *build_categorical(zbpy_state *st, PyObject *const *items,
                                   const uint8_t *kinds, Py_ssize_t n, int64_t nulls) {
  PyObject *lookup = PyDict_New(), *cats = PyList_New(0), *result = NULL;
  zb_buffer *codes = NULL, *validity = NULL;
  zb_column *dict = NULL;
  zb_error err;
  err.message[0] = '\0';
  if (lookup == NULL || cats == NULL) goto error;
  zb_status s;
  NOGIL(s = zb_buffer_new_zeroed(ZB_CPU, (int64_t)n * 4, &codes, &err));
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto error;
  }
  int32_t *cd = (int32_t *)codes->data;
  for (Py_ssize_t i = 0; i < n; i++) {
    if (kinds[i] == K_NULL) continue;
    PyObject *code = PyDict_GetItemWithError(lookup, items[i]);
    if (code == NULL) {
      if (PyErr_Occurred()) goto error;
      Py_ssize_t next = PyList_GET_SIZE(cats);
      if (next >= INT32_MAX) {
        PyErr_SetString(st->ZambeziOverflowError, "too many categories for int32 codes");
        goto error;
      }
      PyObject *c = PyLong_FromSsize_t(next);
      if (c == NULL) goto error;
      int r = PyDict_SetItem(lookup, items[i], c);
      Py_DECREF(c);
      if (r < 0 || PyList_Append(cats, items[i]) < 0) goto error;
      cd[i] = (int32_t)next;
    } else {
      cd[i] = (int32_t)PyLong_AsLong(code);
    }
  }
  if (build_string_column(st, &PyList_GET_ITEM(cats, 0), NULL, PyList_GET_SIZE(cats), 0,
                          &dict) < 0)
    goto error;
  if (make_validity(st, kinds, n, nulls, &validity) < 0) goto error;
  result = finish(st, ZB_CATEGORICAL, n, validity, codes, NULL, dict, nulls, ZB_MICRO, NULL);
  codes = NULL; /* released by finish */
error:
  zb_buffer_release(codes);
  zb_column_release(dict);
  Py_XDECREF(lookup);
  Py_XDECREF(cats);
  return result;
}

/* ------------------------------------------------------------------------ */
/* column_from_sequence                                                     */
/* ------------------------------------------------------------------------ */

PyObject *zbpy_column_from_sequence(PyObject *module, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"seq", "dtype", "mask", "name", NULL};
  zbpy_state *st = (zbpy_state *)PyModule_GetState(module);
  PyObject *seq, *dtype = Py_None, *mask = Py_None, *name = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOO:column_from_sequence", kwlist, &seq,
                                   &dtype, &mask, &name))
    return NULL;
  char label[300];
  make_label(name, label, sizeof label);
  PyObject *fast = NULL, *converted = NULL, *result = NULL;
  uint8_t *kinds = NULL;
  int16_t *np_nanos = NULL; /* np.datetime64s' ns past their us (NULL when none) */
  zb_type_id target = ZB_TYPE_COUNT;
  zb_time_unit unit = ZB_MICRO;
  char tz[128];
  tz[0] = '\0';
  if (dtype != Py_None) {
    if (!PyUnicode_Check(dtype)) {
      PyErr_Format(PyExc_TypeError, "%s: dtype must be a str, not %s", label,
                   Py_TYPE(dtype)->tp_name);
      return NULL;
    }
    const char *dn = PyUnicode_AsUTF8(dtype);
    if (dn == NULL || zbpy_parse_dtype(st, dn, &target, &unit, tz, sizeof tz) < 0) return NULL;
  }
  fast = PySequence_Fast(seq, "column_from_sequence: expected a list, tuple or sequence");
  if (fast == NULL) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  PyObject **items = PySequence_Fast_ITEMS(fast);
  size_t kb = (size_t)(n > 0 ? n : 1);
  kinds = (uint8_t *)zb_calloc(kb, 1);
  if (kinds == NULL) {
    zbpy_raise_nomem(st, "the dtype of each value", kb);
    goto error;
  }
  if (read_mask(st, mask, n, kinds, label) < 0) goto error;
  /* read_mask wrote 1 for nulls; turn that into K_NULL / classified kinds. */
  int saw_nan = 0, first = K_NULL, finest = ZB_SECOND;
  Py_ssize_t first_idx = -1;
  int64_t nulls = 0;
  int any_float = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    int k = kinds[i] ? K_NULL : classify(items[i], &saw_nan);
    int np_unit = -1;
    if (k == K_OTHER && target == ZB_TYPE_COUNT) { /* np.datetime64: its unit, as pandas */
      int u_ = np_unit = numpy_datetime_unit(items[i]);
      if (u_ >= 0) {
        saw_nan |= 2;
        if (u_ > finest) finest = u_;
      }
    }
    int nanos = 0;
    PyObject *pv = k == K_OTHER ? numpy_scalar_value(items[i], &nanos) : NULL;
    if (pv != NULL && nanos != 0) { /* kept beside the datetime, which holds us */
      if (np_nanos == NULL) {
        np_nanos = (int16_t *)zb_calloc(kb, sizeof(int16_t));
        if (np_nanos == NULL) {
          Py_DECREF(pv);
          zbpy_raise_nomem(st, "the nanoseconds of numpy datetimes", kb * sizeof(int16_t));
          goto error;
        }
      }
      np_nanos[i] = (int16_t)nanos;
    }
    int pk = pv != NULL ? classify(pv, &saw_nan) : K_OTHER;
    if (pv != NULL && pk == K_OTHER) Py_CLEAR(pv); /* errors name the numpy type */
    if (pv != NULL) {
      /* hold the Python value in a list of our own (the caller's sequence
       * is not changed), made on the first numpy scalar */
      if (fast == seq) { /* PySequence_Fast made no list of its own */
        PyObject *own = PyList_New(n);
        if (own == NULL) {
          Py_DECREF(pv);
          goto error;
        }
        for (Py_ssize_t j = 0; j < n; j++) {
          Py_INCREF(items[j]);
          PyList_SET_ITEM(own, j, items[j]);
        }
        Py_DECREF(fast);
        fast = own;
        items = PySequence_Fast_ITEMS(fast);
      }
      Py_SETREF(items[i], pv);
      k = pk;
    }
    kinds[i] = (uint8_t)k;
    if (k == K_NULL) {
      nulls++;
      continue;
    }
    if (k == K_FLOAT) any_float = 1;
    if (target != ZB_TYPE_COUNT) continue; /* explicit dtype: converted below */
    if (k == K_DATETIME && np_unit < 0) { /* pandas' unit: the finest the values ask for */
      int u_, ns_;
      if (zbpy_datetime_unit(items[i], &u_, &ns_) < 0) goto error;
      if (u_ > finest) finest = u_;
    }
    if (k == K_OTHER) {
      PyErr_Format(st->DTypeError,
                   "%s: the value at index %zd is a %s (%R), which zambezi cannot store "
                   "(expected bool, int, float, str, datetime.date or datetime.datetime)",
                   label, i, Py_TYPE(items[i])->tp_name, items[i]);
      goto error;
    }
    if (first == K_NULL) {
      first = k;
      first_idx = i;
    } else if (family(k) != family(first)) {
      PyErr_Format(st->DTypeError,
                   "%s: the value at index %zd is a %s (%R) but the values before it are %s "
                   "(from index %zd); a column holds one type",
                   label, i, Py_TYPE(items[i])->tp_name, items[i], kind_family_name(first),
                   first_idx);
      goto error;
    }
  }
  if (target == ZB_TYPE_COUNT) {
    switch (first) {
      case K_NULL: /* all missing: NaT makes them timestamps[s], as pandas */
        target = saw_nan & 2 ? ZB_TIMESTAMP : saw_nan ? ZB_FLOAT64 : ZB_STRING;
        unit = (zb_time_unit)finest;
        break;
      case K_BOOL: target = ZB_BOOL; break;
      case K_INT:
        if (!any_float) {
          result = build_ints(st, items, kinds, n, nulls, label);
          goto error; /* done */
        }
        target = ZB_FLOAT64;
        break;
      case K_FLOAT: target = ZB_FLOAT64; break;
      case K_STR: target = ZB_STRING; break;
      case K_DATE: target = ZB_DATE32; break;
      case K_DATETIME:
        target = ZB_TIMESTAMP;
        unit = (zb_time_unit)finest;
        break;
      default: break;
    }
  }
  if (target == ZB_STRING || target == ZB_CATEGORICAL) {
    /* Values that are not str are converted with str(). */
    PyObject **src = items;
    for (Py_ssize_t i = 0; i < n; i++) {
      if (kinds[i] == K_NULL || kinds[i] == K_STR) continue;
      if (converted == NULL) {
        converted = PyList_New(n);
        if (converted == NULL) goto error;
        for (Py_ssize_t j = 0; j < n; j++)
          PyList_SET_ITEM(converted, j, Py_NewRef(items[j]));
      }
      PyObject *s = PyObject_Str(items[i]);
      if (s == NULL) goto error;
      Py_SETREF(PyList_GET_ITEM(converted, i), s);
    }
    if (converted != NULL) src = &PyList_GET_ITEM(converted, 0);
    if (target == ZB_CATEGORICAL) {
      result = build_categorical(st, src, kinds, n, nulls);
    } else {
      zb_column *col = NULL;
      if (build_string_column(st, src, kinds, n, nulls, &col) == 0)
        result = zbpy_column_wrap(st, col);
    }
    goto error;
  }
  result = build_fixed(st, target, unit, tz, items, kinds, n, nulls, label, np_nanos);
error:
  zb_free(kinds);
  zb_free(np_nanos);
  Py_XDECREF(converted);
  Py_XDECREF(fast);
  return result;
}

/* ------------------------------------------------------------------------ */
/* column_from_buffer                                                       */
/* ------------------------------------------------------------------------ */

/* The engine type of a buffer format, or ZB_TYPE_COUNT. */
static zb_type_id format_type(const char *fmt, Py_ssize_t itemsize) {
  if (fmt == NULL) fmt = "B";
  while (*fmt == '@' || *fmt == '=' || *fmt == '<' || *fmt == '|') fmt++;
  if (*fmt == '>' || *fmt == '!') {
    if (itemsize != 1) return ZB_TYPE_COUNT;
    fmt++;
  }
  if (fmt[0] == '\0' || fmt[1] != '\0') return ZB_TYPE_COUNT;
  static const zb_type_id sints[9] = {ZB_TYPE_COUNT, ZB_INT8,       ZB_INT16,
                                      ZB_TYPE_COUNT, ZB_INT32,      ZB_TYPE_COUNT,
                                      ZB_TYPE_COUNT, ZB_TYPE_COUNT, ZB_INT64};
  static const zb_type_id uints[9] = {ZB_TYPE_COUNT, ZB_UINT8,      ZB_UINT16,
                                      ZB_TYPE_COUNT, ZB_UINT32,     ZB_TYPE_COUNT,
                                      ZB_TYPE_COUNT, ZB_TYPE_COUNT, ZB_UINT64};
  if (itemsize < 1 || itemsize > 8) return ZB_TYPE_COUNT;
  switch (fmt[0]) {
    case '?': return itemsize == 1 ? ZB_BOOL : ZB_TYPE_COUNT;
    case 'b':
    case 'h':
    case 'i':
    case 'l':
    case 'q':
    case 'n': return sints[itemsize];
    case 'B':
    case 'H':
    case 'I':
    case 'L':
    case 'Q':
    case 'N': return uints[itemsize];
    case 'f': return itemsize == 4 ? ZB_FLOAT32 : ZB_TYPE_COUNT;
    case 'd': return itemsize == 8 ? ZB_FLOAT64 : ZB_TYPE_COUNT;
    default: return ZB_TYPE_COUNT;
  }
}

typedef struct fb_job {
  const char *src;
  Py_ssize_t n, stride, itemsize;
  const char *mask;
  Py_ssize_t mask_stride;
  zb_type_id src_type, type;
  zb_time_unit unit;
  const char *tz;
  bool nat_is_null; /* INT64_MIN is null (numpy NaT) */
} fb_job;

/* Null tests of row k, one per kind of source (the kind is chosen once per
 * morsel, outside the rows). */
static inline bool fb_nan64(const fb_job *j, int64_t k) {
  double v;
  memcpy(&v, j->src + k * j->stride, 8);
  return isnan(v);
}
static inline bool fb_nan32(const fb_job *j, int64_t k) {
  float v;
  memcpy(&v, j->src + k * j->stride, 4);
  return isnan(v);
}
static inline bool fb_nat(const fb_job *j, int64_t k) {
  int64_t v;
  memcpy(&v, j->src + k * j->stride, 8);
  return v == INT64_MIN;
}
static inline bool fb_never(const fb_job *j, int64_t k) {
  (void)j, (void)k;
  return false;
}
static inline bool fb_masked(const fb_job *j, int64_t k) { return j->mask[k * j->mask_stride] != 0; }

/* Validity bits of rows [lo, hi) (lo a multiple of 8), a byte at a time,
 * counting the nulls; WITH_MASK also reads the mask. */
#define FB_VALIDITY_LOOP(IS_NULL, WITH_MASK)                                    \
  for (int64_t i = lo; i < hi; i += 8) {                                       \
    int64_t e = i + 8 < hi ? i + 8 : hi;                                       \
    unsigned b = 0;                                                            \
    for (int64_t k = i; k < e; k++)                                            \
      b |= (unsigned)!((WITH_MASK && fb_masked(j, k)) || IS_NULL(j, k)) << (k & 7); \
    validity[i >> 3] = (uint8_t)b;                                             \
    nulls += (e - i) - __builtin_popcount(b);                                  \
  }

static int64_t fb_validity(const fb_job *j, int64_t lo, int64_t hi, uint8_t *validity) {
  int64_t nulls = 0;
  bool m = j->mask != NULL;
  if (j->src_type == ZB_FLOAT64) {
    if (m) { FB_VALIDITY_LOOP(fb_nan64, true) } else { FB_VALIDITY_LOOP(fb_nan64, false) }
  } else if (j->src_type == ZB_FLOAT32) {
    if (m) { FB_VALIDITY_LOOP(fb_nan32, true) } else { FB_VALIDITY_LOOP(fb_nan32, false) }
  } else if (j->nat_is_null) {
    if (m) { FB_VALIDITY_LOOP(fb_nat, true) } else { FB_VALIDITY_LOOP(fb_nat, false) }
  } else {
    FB_VALIDITY_LOOP(fb_never, m) /* only a mask makes nulls here */
  }
  return nulls;
}

/* One morsel of fb_run: copy rows [lo, hi) and mark their nulls.  Morsels
 * are multiples of 8 rows, so no two write the same bitmap byte. */
typedef struct fb_task {
  const fb_job *j;
  char *data;        /* values, or the bool bitmap */
  uint8_t *validity; /* NULL: no nulls possible */
  int64_t *nulls;    /* per morsel */
} fb_task;

static void fb_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  const fb_task *t = (const fb_task *)ctx;
  const fb_job *j = t->j;
  int64_t lo = task * ZB_MORSEL_ROWS, hi = lo + ZB_MORSEL_ROWS < j->n ? lo + ZB_MORSEL_ROWS : j->n;
  int64_t w = j->itemsize;
  if (j->type == ZB_BOOL) {
    uint8_t *bits = (uint8_t *)t->data;
    for (int64_t i = lo; i < hi; i++)
      if (j->src[i * j->stride] != 0) bits[i >> 3] |= (uint8_t)(1u << (i & 7));
  } else if (j->stride == w) {
    memcpy(t->data + lo * w, j->src + lo * w, (size_t)((hi - lo) * w));
  } else {
    char *d = t->data;
    for (int64_t i = lo; i < hi; i++) memcpy(d + w * i, j->src + i * j->stride, (size_t)w);
  }
  if (t->validity == NULL) return;
  t->nulls[task] = fb_validity(j, lo, hi, t->validity);
}

/* Pure C, run with the GIL released: copy, find nulls, assemble -- on the
 * thread pool, a morsel at a time. */
static zb_status fb_run(const fb_job *j, zb_column **out, zb_error *err) {
  zb_buffer *data = NULL, *validity = NULL;
  int64_t *per = NULL;
  zb_status s;
  int64_t n = j->n, nulls = 0, nm = (n + ZB_MORSEL_ROWS - 1) / ZB_MORSEL_ROWS;
  bool may_null = j->mask != NULL || zb_type_is_float(j->src_type) || j->nat_is_null;
  if (j->type == ZB_BOOL)
    s = zb_buffer_new_zeroed(ZB_CPU, (n + 7) / 8, &data, err);
  else
    s = zb_buffer_new(ZB_CPU, n * j->itemsize, &data, err);
  if (s != ZB_OK) goto error;
  if (may_null && n > 0) {
    s = zb_buffer_new_zeroed(ZB_CPU, (n + 7) / 8, &validity, err);
    if (s != ZB_OK) goto error;
    per = (int64_t *)zb_calloc((size_t)nm, sizeof(int64_t));
    if (per == NULL) {
      s = zb_error_set(err, ZB_ENOMEM, "out of host memory (null counts)");
      goto error;
    }
  }
  fb_task t = {j, (char *)data->data, validity ? (uint8_t *)validity->data : NULL, per};
  s = zb_parallel_for(nm, fb_morsel, &t, err);
  if (s != ZB_OK) goto error;
  for (int64_t m = 0; per != NULL && m < nm; m++) nulls += per[m];
  if (nulls == 0) {
    zb_buffer_release(validity);
    validity = NULL;
  }
  s = zb_column_make(j->type, n, 0, validity, data, NULL, NULL, nulls, out, err);
  if (s == ZB_OK && (j->type == ZB_TIMESTAMP || j->type == ZB_DURATION)) {
    s = zb_column_set_time(*out, j->unit, j->type == ZB_TIMESTAMP ? j->tz : NULL, err);
    if (s != ZB_OK) {
      zb_column_release(*out);
      *out = NULL;
    }
  }
error:
  zb_free(per);
  zb_buffer_release(data);
  zb_buffer_release(validity);
  return s;
}

PyObject *zbpy_column_from_buffer(PyObject *module, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"obj", "mask", "dtype", "unit", "tz", "name", NULL};
  zbpy_state *st = (zbpy_state *)PyModule_GetState(module);
  PyObject *obj, *mask = Py_None, *name = Py_None;
  const char *dtype = NULL, *unit_s = NULL, *tz_s = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OzzzO:column_from_buffer", kwlist, &obj,
                                   &mask, &dtype, &unit_s, &tz_s, &name))
    return NULL;
  char label[300];
  make_label(name, label, sizeof label);
  Py_buffer view, mview;
  int have_view = 0, have_mask = 0;
  PyObject *result = NULL;
  fb_job j;
  memset(&j, 0, sizeof j);
  if (PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO) < 0) goto error;
  have_view = 1;
  if (view.ndim != 1) {
    PyErr_Format(st->InvalidValueError, "%s: expected a 1-D array, got %d dimensions", label,
                 view.ndim);
    goto error;
  }
  j.src_type = format_type(view.format, view.itemsize);
  if (j.src_type == ZB_TYPE_COUNT) {
    PyErr_Format(st->DTypeError,
                 "%s: unsupported array format '%s' (itemsize %zd); zambezi takes bool, "
                 "int8..int64, uint8..uint64, float32 and float64",
                 label, view.format != NULL ? view.format : "B", view.itemsize);
    goto error;
  }
  j.src = (const char *)view.buf;
  j.n = view.shape[0];
  j.stride = view.strides[0];
  j.itemsize = view.itemsize;
  j.type = j.src_type;
  j.unit = ZB_MICRO;
  j.tz = (tz_s != NULL && tz_s[0] != '\0') ? tz_s : NULL;
  if (dtype != NULL) {
    zb_type_id t;
    zb_time_unit u;
    char dtz[128];
    if (zbpy_parse_dtype(st, dtype, &t, &u, dtz, sizeof dtz) < 0) goto error;
    if (t == ZB_DATE32 && j.src_type == ZB_INT32) {
      j.type = ZB_DATE32;
    } else if (t == ZB_DURATION && j.src_type == ZB_INT64) {
      j.type = ZB_DURATION;
      j.unit = u;
    } else if (t == ZB_TIMESTAMP && j.src_type == ZB_INT64) {
      j.type = ZB_TIMESTAMP;
      j.unit = u;
      if (dtz[0] != '\0' && j.tz == NULL) {
        PyErr_Format(st->InvalidValueError,
                     "%s: pass the timezone as tz=, not inside dtype '%s'", label, dtype);
        goto error;
      }
    } else if (t != j.src_type) {
      PyErr_Format(st->DTypeError, "%s: cannot build a %s column from an array of %s", label,
                   dtype, zb_type_name(j.src_type));
      goto error;
    }
  }
  if (unit_s != NULL) {
    if (j.src_type != ZB_INT64) {
      PyErr_Format(st->DTypeError, "%s: unit= needs an int64 array, not %s", label,
                   zb_type_name(j.src_type));
      goto error;
    }
    if (zbpy_parse_unit(unit_s, &j.unit) < 0) goto error;
    if (j.type != ZB_DURATION) j.type = ZB_TIMESTAMP;
  }
  if (j.tz != NULL && j.type != ZB_TIMESTAMP) {
    PyErr_Format(st->DTypeError, "%s: tz= applies to timestamps only (give unit=)", label);
    goto error;
  }
  j.nat_is_null = j.type == ZB_TIMESTAMP || j.type == ZB_DURATION;
  if (mask != Py_None) {
    if (PyObject_GetBuffer(mask, &mview, PyBUF_RECORDS_RO) < 0) goto error;
    have_mask = 1;
    if (mview.ndim != 1 || mview.itemsize != 1) {
      PyErr_Format(st->InvalidValueError, "%s: mask must be a 1-D bool array", label);
      goto error;
    }
    if (mview.shape[0] != j.n) {
      PyErr_Format(st->InvalidValueError, "%s: mask has %zd values but the data has %zd",
                   label, mview.shape[0], j.n);
      goto error;
    }
    j.mask = (const char *)mview.buf;
    j.mask_stride = mview.strides[0];
  }
  zb_column *col = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = fb_run(&j, &col, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto error;
  }
  result = zbpy_column_wrap(st, col);
error:
  if (have_mask) PyBuffer_Release(&mview);
  if (have_view) PyBuffer_Release(&view);
  return result;
}

/* ------------------------------------------------------------------------ */
/* categorical_from_codes                                                   */
/* ------------------------------------------------------------------------ */

typedef struct cat_job {
  const char *src;
  Py_ssize_t n, stride;
  zb_type_id src_type;
  zb_column *dict;
} cat_job;

#define CAT_BLOCK 1024

/* v as int64, saturated. */
static inline int64_t sat_int64(uint64_t v) { return v > INT64_MAX ? INT64_MAX : (int64_t)v; }

/* dst[0, m) = codes [i0, i0 + m) of the (integer) source as int64, uint64
 * codes above INT64_MAX as INT64_MAX: one loop per source type, the type
 * switch once per block. */
static void cat_codes(const cat_job *j, int64_t i0, int64_t m, int64_t *dst) {
  const char *p = j->src + i0 * j->stride;
  switch (j->src_type) {
#define CAT_S(ID, T, NAME, U)                                                   \
    case ID:                                                                    \
      for (int64_t k = 0; k < m; k++) {                                         \
        T v;                                                                    \
        memcpy(&v, p + k * j->stride, sizeof v);                                \
        dst[k] = (int64_t)v;                                                    \
      }                                                                         \
      break;
#define CAT_U(ID, T, NAME, U)                                                   \
    case ID:                                                                    \
      for (int64_t k = 0; k < m; k++) {                                         \
        T v;                                                                    \
        memcpy(&v, p + k * j->stride, sizeof v);                                \
        dst[k] = sat_int64(v);                                                  \
      }                                                                         \
      break;
    ZB_FOR_EACH_SIGNED_TYPE(CAT_S)
    ZB_FOR_EACH_UNSIGNED_TYPE(CAT_U)
#undef CAT_S
#undef CAT_U
    default:
      for (int64_t k = 0; k < m; k++) dst[k] = -1; /* not an integer source */
      break;
  }
}

static zb_status cat_run(const cat_job *j, const char *label, zb_column **out, zb_error *err) {
  zb_buffer *codes = NULL, *validity = NULL;
  int64_t n = j->n, nulls = 0, ndict = j->dict->length;
  zb_status s = zb_buffer_new(ZB_CPU, n * 4, &codes, err);
  if (s != ZB_OK) goto error;
  int32_t *cd = (int32_t *)codes->data;
  int64_t buf[CAT_BLOCK];
  for (int64_t b = 0; b < n; b += CAT_BLOCK) {
    int64_t m = n - b < CAT_BLOCK ? n - b : CAT_BLOCK;
    cat_codes(j, b, m, buf);
    for (int64_t k = 0; k < m; k++) {
      int64_t c = buf[k], i = b + k;
      if (c == -1) {
        nulls++;
        cd[i] = 0;
      } else if (c < 0 || c >= ndict) {
        s = zb_error_set(err, ZB_EINVAL,
                         "%s: code %lld at index %lld is out of range for %lld categories",
                         label, (long long)c, (long long)i, (long long)ndict);
        goto error;
      } else {
        cd[i] = (int32_t)c;
      }
    }
  }
  if (nulls > 0) {
    s = zb_buffer_new_zeroed(ZB_CPU, (n + 7) / 8, &validity, err);
    if (s != ZB_OK) goto error;
    uint8_t *bits = (uint8_t *)validity->data;
    for (int64_t b = 0; b < n; b += CAT_BLOCK) {
      int64_t m = n - b < CAT_BLOCK ? n - b : CAT_BLOCK;
      cat_codes(j, b, m, buf);
      for (int64_t k = 0; k < m; k++)
        if (buf[k] != -1) bits[(b + k) >> 3] |= (uint8_t)(1u << ((b + k) & 7));
    }
  }
  s = zb_column_make(ZB_CATEGORICAL, n, 0, validity, codes, NULL, j->dict, nulls, out, err);
error:
  zb_buffer_release(codes);
  zb_buffer_release(validity);
  return s;
}

PyObject *zbpy_categorical_from_codes(PyObject *module, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"codes", "dictionary", "name", "ordered", NULL};
  zbpy_state *st = (zbpy_state *)PyModule_GetState(module);
  PyObject *codes, *dict_obj, *name = Py_None;
  PyObject *ordered_obj = Py_None; /* None: the dictionary's own flag */
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OO:categorical_from_codes", kwlist,
                                   &codes, &dict_obj, &name, &ordered_obj))
    return NULL;
  int ordered = -1;
  if (ordered_obj != Py_None && (ordered = PyObject_IsTrue(ordered_obj)) < 0) return NULL;
  char label[300];
  make_label(name, label, sizeof label);
  if (!PyObject_TypeCheck(dict_obj, st->column_type)) {
    PyErr_Format(PyExc_TypeError, "%s: dictionary must be a Column, not %s", label,
                 Py_TYPE(dict_obj)->tp_name);
    return NULL;
  }
  zb_column *dict = ((zbpy_column *)dict_obj)->col;
  if (dict->type == ZB_CATEGORICAL || dict->type == ZB_LIST || dict->null_count != 0 ||
      dict->device.kind != ZB_DEVICE_CPU) {
    PyErr_Format(st->DTypeError,
                 "%s: the categories must be a host column of a flat dtype without nulls "
                 "(got %s with %lld nulls)",
                 label, zb_type_name(dict->type), (long long)dict->null_count);
    return NULL;
  }
  Py_buffer view;
  if (PyObject_GetBuffer(codes, &view, PyBUF_RECORDS_RO) < 0) return NULL;
  PyObject *result = NULL;
  cat_job j;
  j.src_type = format_type(view.format, view.itemsize);
  if (view.ndim != 1 || !zb_type_is_integer(j.src_type)) {
    PyErr_Format(st->DTypeError, "%s: codes must be a 1-D integer array (format '%s')", label,
                 view.format != NULL ? view.format : "B");
    goto error;
  }
  j.src = (const char *)view.buf;
  j.n = view.shape[0];
  j.stride = view.strides[0];
  zb_column *col = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_column_dictionary_ordered(dict, ordered < 0 ? dict->ordered != 0 : ordered != 0,
                                   &j.dict, &err);
  if (s == ZB_OK) s = cat_run(&j, label, &col, &err);
  zb_column_release(j.dict);
  ZBPY_END_ENGINE
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto error;
  }
  result = zbpy_column_wrap(st, col);
error:
  PyBuffer_Release(&view);
  return result;
}
