/*
 * strings.c -- the _core functions behind Series.str, Series.dt and the
 * elementwise extras (clip, round, between, where / mask): argument
 * conversion from Python objects to engine arguments, then one engine call
 * with the GIL released.  Added to the module by module_exec through
 * zbpy_strings_methods.
 */
#include "zbpy.h"

#include <math.h>
#include <string.h>

#include "zambezi/compute.h"
#include "zambezi/tz.h"


/* UTF-8 of a str argument (None allowed when allow_none: *out NULL). */
static int str_arg(PyObject *o, const char *what, bool allow_none, const char **out,
                   Py_ssize_t *len) {
  *out = NULL;
  *len = 0;
  if (o == NULL || o == Py_None) {
    if (allow_none) return 0;
    PyErr_Format(PyExc_TypeError, "%s must be a str, not None", what);
    return -1;
  }
  if (!PyUnicode_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s must be a str, not %s", what, Py_TYPE(o)->tp_name);
    return -1;
  }
  *out = PyUnicode_AsUTF8AndSize(o, len);
  return *out == NULL ? -1 : 0;
}

/* An optional int argument (None: *has = false). */
static int opt_int(PyObject *o, const char *what, int64_t *v, bool *has) {
  *has = false;
  *v = 0;
  if (o == NULL || o == Py_None) return 0;
  PyObject *ix = PyNumber_Index(o);
  if (ix == NULL) {
    PyErr_Format(PyExc_TypeError, "%s must be an int or None, not %s", what, Py_TYPE(o)->tp_name);
    return -1;
  }
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(ix, &overflow);
  Py_DECREF(ix);
  if (x == -1 && PyErr_Occurred()) return -1;
  if (overflow) x = overflow > 0 ? INT64_MAX / 2 : -(INT64_MAX / 2); /* clamps like Python */
  *v = x;
  *has = true;
  return 0;
}

/* A Python scalar as an engine scalar for an operation on col: None -> null;
 * bool, int, float (NaN -> null when nan_is_null); datetime.date ->
 * days for date32 (midnight for timestamps); datetime.datetime /
 * pandas.Timestamp -> the column's unit (date32: the day); a timedelta ->
 * a duration column's unit. */
static int scalar_arg(zbpy_state *st, PyObject *o, const zb_column *col, bool nan_is_null,
                      zb_scalar *out) {
  memset(out, 0, sizeof *out);
  out->type = ZB_INT64;
  if (o == Py_None) {
    out->is_null = true;
    return 0;
  }
  if (PyBool_Check(o)) {
    out->type = ZB_BOOL;
    out->v.b = o == Py_True;
    return 0;
  }
  int kind = zbpy_date_kind(o);
  if (kind != 0) {
    int64_t us = 0;
    if (kind == 1) {
      int aware = 0;
      if (zbpy_datetime_to_us(o, &us, &aware) < 0) return -1;
      bool col_aware = col->type == ZB_TIMESTAMP && col->timezone != NULL &&
                       col->timezone[0] != '\0';
      if (col->type == ZB_TIMESTAMP && (bool)aware != col_aware) {
        PyErr_Format(st->DTypeError,
                     "cannot mix a timezone-%s datetime with a timezone-%s timestamp column",
                     aware ? "aware" : "naive", col_aware ? "aware" : "naive");
        return -1;
      }
      /* pandas.Timestamp carries nanoseconds: use them when present. */
      if (PyObject_HasAttrString(o, "nanosecond")) {
        PyObject *ns = PyObject_GetAttrString(o, "nanosecond");
        if (ns == NULL) return -1;
        long nsv = PyLong_AsLong(ns);
        Py_DECREF(ns);
        if (nsv == -1 && PyErr_Occurred()) return -1;
        if (col->type == ZB_TIMESTAMP && col->unit == ZB_NANO) {
          out->type = ZB_TIMESTAMP;
          out->v.i = us * 1000 + nsv;
          return 0;
        }
      }
    } else {
      us = (int64_t)zbpy_date_to_days(o) * 86400 * 1000000;
    }
    if (col->type == ZB_DATE32) {
      int64_t d = us / 86400000000LL;
      if (us % 86400000000LL != 0 && us < 0) d--;
      out->type = ZB_DATE32;
      out->v.i = d;
    } else if (col->type == ZB_TIMESTAMP) {
      out->type = ZB_TIMESTAMP;
      int64_t ps = zbpy_per_second[col->unit];
      if (ps >= 1000000) {
        out->v.i = us * (ps / 1000000);
      } else { /* floor to the coarser unit */
        int64_t div = 1000000 / ps, q = us / div;
        if (us % div != 0 && us < 0) q--;
        out->v.i = q;
      }
    } else {
      PyErr_Format(st->DTypeError, "a date/time value for a %s column", zb_type_name(col->type));
      return -1;
    }
    return 0;
  }
  if (zbpy_is_timedelta(o)) { /* datetime.timedelta, pd.Timedelta: in the column's unit */
    if (col->type != ZB_DURATION) {
      PyErr_Format(st->DTypeError, "a timedelta value for a %s column", zb_type_name(col->type));
      return -1;
    }
    out->type = ZB_DURATION;
    return zbpy_timedelta_to_unit(o, (int)col->unit, &out->v.i);
  }
  if (PyFloat_Check(o)) {
    out->type = ZB_FLOAT64;
    out->v.f = PyFloat_AsDouble(o);
    if (nan_is_null && isnan(out->v.f)) out->is_null = true;
    return 0;
  }
  if (PyLong_Check(o) || PyIndex_Check(o)) {
    PyObject *ix = PyNumber_Index(o);
    if (ix == NULL) return -1;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(ix, &overflow);
    if (overflow > 0) {
      unsigned long long u = PyLong_AsUnsignedLongLong(ix);
      Py_DECREF(ix);
      if (u == (unsigned long long)-1 && PyErr_Occurred()) return -1;
      out->type = ZB_UINT64;
      out->v.u = u;
      return 0;
    }
    Py_DECREF(ix);
    if (overflow < 0) {
      PyErr_SetString(st->ZambeziOverflowError, "integer too small for int64");
      return -1;
    }
    if (x == -1 && PyErr_Occurred()) return -1;
    out->v.i = x;
    return 0;
  }
  PyObject *f = PyNumber_Float(o); /* numpy float32 and friends */
  if (f != NULL) {
    out->type = ZB_FLOAT64;
    out->v.f = PyFloat_AsDouble(f);
    Py_DECREF(f);
    if (nan_is_null && isnan(out->v.f)) out->is_null = true;
    return 0;
  }
  PyErr_Clear();
  PyErr_Format(st->DTypeError, "a %s value is not supported here", Py_TYPE(o)->tp_name);
  return -1;
}

/* ---- strings ---------------------------------------------------------------- */

static int str_op_from_name(const char *name, zb_str_op *op) {
  for (int k = 0; k < ZB_STR_OP_COUNT; k++)
    if (strcmp(name, zb_str_op_name((zb_str_op)k)) == 0) {
      *op = (zb_str_op)k;
      return 0;
    }
  PyErr_Format(PyExc_ValueError, "unknown string operation '%s'", name);
  return -1;
}

static PyObject *py_str_op(PyObject *module, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"col", "op", "pat", "repl", "n", "start", "stop", "step",
                           "width", "side", "fill", NULL};
  zbpy_state *st = zbpy_module_state(module);
  PyObject *colo, *pat = Py_None, *repl = Py_None, *start = Py_None, *stop = Py_None,
                  *step = Py_None;
  const char *opname;
  Py_ssize_t n = -1, width = 0;
  int side = 0;
  unsigned int fill = ' ';
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Os|OOnOOOniI", kwlist, &colo, &opname, &pat,
                                   &repl, &n, &start, &stop, &step, &width, &side, &fill))
    return NULL;
  zb_column *col = zbpy_arg_column(st, colo, "col");
  if (col == NULL) return NULL;
  zb_str_args a;
  memset(&a, 0, sizeof a);
  if (str_op_from_name(opname, &a.op) < 0) return NULL;
  const char *p, *r;
  Py_ssize_t pl, rl;
  if (str_arg(pat, "pat", true, &p, &pl) < 0) return NULL;
  if (str_arg(repl, "repl", true, &r, &rl) < 0) return NULL;
  a.pat = p;
  a.pat_len = pl;
  a.repl = r;
  a.repl_len = rl;
  a.n = n;
  a.width = width;
  a.side = side;
  a.fill = fill;
  bool has_step;
  if (opt_int(start, "start", &a.start, &a.has_start) < 0) return NULL;
  if (opt_int(stop, "stop", &a.stop, &a.has_stop) < 0) return NULL;
  if (opt_int(step, "step", &a.step, &has_step) < 0) return NULL;
  if (!has_step) a.step = 1;
  zb_column *res = NULL;
  zb_error err;
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_str(col, &a, &res, &err));
  return zbpy_column_result(st, s, &err, res);
}

static PyObject *py_str_cat(PyObject *module, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"col", "other", "sep", "scalar_first", NULL};
  zbpy_state *st = zbpy_module_state(module);
  PyObject *colo, *other, *sepo = Py_None;
  int scalar_first = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|Op", kwlist, &colo, &other, &sepo,
                                   &scalar_first))
    return NULL;
  zb_column *col = zbpy_arg_column(st, colo, "col");
  if (col == NULL) return NULL;
  const char *sep;
  Py_ssize_t sl;
  if (str_arg(sepo, "sep", true, &sep, &sl) < 0) return NULL;
  zb_column *res = NULL;
  zb_error err;
  zb_status s;
  if (PyObject_TypeCheck(other, st->column_type)) {
    zb_column *b = ((zbpy_column *)other)->col;
    ZBPY_BEGIN_ENGINE
    s = scalar_first ? zb_column_str_cat(b, col, sep, sl, &res, &err)
                     : zb_column_str_cat(col, b, sep, sl, &res, &err);
    ZBPY_END_ENGINE
  } else {
    const char *o;
    Py_ssize_t ol;
    if (str_arg(other, "other", true, &o, &ol) < 0) return NULL;
    ZBPY_RUN_ENGINE(s, zb_column_str_cat_scalar(col, o, ol, scalar_first, sep, sl, &res, &err));
  }
  return zbpy_column_result(st, s, &err, res);
}

static PyObject *py_str_join(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *colo, *sepo = Py_None;
  if (!PyArg_ParseTuple(args, "O|O", &colo, &sepo)) return NULL;
  zb_column *col = zbpy_arg_column(st, colo, "col");
  if (col == NULL) return NULL;
  const char *sep;
  Py_ssize_t sl;
  if (str_arg(sepo, "sep", true, &sep, &sl) < 0) return NULL;
  char *buf = NULL;
  int64_t len = 0;
  zb_error err;
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_str_join(col, sep, sl, &buf, &len, &err));
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  PyObject *r = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)len, "strict");
  zb_free(buf);
  return r;
}

/* ---- dates -------------------------------------------------------------------- */

static PyObject *py_dt_field(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *colo;
  const char *name;
  if (!PyArg_ParseTuple(args, "Os", &colo, &name)) return NULL;
  zb_column *col = zbpy_arg_column(st, colo, "col");
  if (col == NULL) return NULL;
  int f = -1;
  for (int k = 0; k < ZB_DT_FIELD_COUNT; k++)
    if (strcmp(name, zb_dt_field_name((zb_dt_field)k)) == 0) f = k;
  if (f < 0) return PyErr_Format(PyExc_ValueError, "unknown date/time field '%s'", name);
  zb_column *res = NULL;
  zb_error err;
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_dt_field(col, (zb_dt_field)f, &res, &err));
  return zbpy_column_result(st, s, &err, res);
}

static PyObject *py_date_diff(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *ao, *bo;
  if (!PyArg_ParseTuple(args, "OO", &ao, &bo)) return NULL;
  zb_column *a = zbpy_arg_column(st, ao, "a"), *b = a ? zbpy_arg_column(st, bo, "b") : NULL;
  if (b == NULL) return NULL;
  zb_column *res = NULL;
  zb_error err;
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_date_diff(a, b, &res, &err));
  return zbpy_column_result(st, s, &err, res);
}

/* parse_time(col, kind, format=None) -> (Column, info dict); kind
 * "datetime" or "timedelta". */
static PyObject *py_parse_time(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co;
  const char *kind_s, *format = NULL;
  if (!PyArg_ParseTuple(args, "Os|z", &co, &kind_s, &format)) return NULL;
  zb_column *col = zbpy_arg_column(st, co, "col");
  if (col == NULL) return NULL;
  zb_parse_kind kind;
  if (strcmp(kind_s, "datetime") == 0) kind = ZB_PARSE_DATETIME;
  else if (strcmp(kind_s, "timedelta") == 0) kind = ZB_PARSE_TIMEDELTA;
  else return PyErr_Format(PyExc_ValueError, "parse_time: unknown kind '%s'", kind_s);
  zb_column *res = NULL;
  zb_parse_info info;
  zb_error err;
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_parse_time(col, kind, format, &res, &info, &err));
  PyObject *c = zbpy_column_result(st, s, &err, res);
  if (c == NULL) return NULL;
  return Py_BuildValue("N{sLsOsOsOsi}", c, "bad_row", (long long)info.bad_row, "any_offset",
                       info.any_offset ? Py_True : Py_False, "any_naive",
                       info.any_naive ? Py_True : Py_False, "mixed_offsets",
                       info.mixed_offsets ? Py_True : Py_False, "offset_min",
                       (int)info.offset_min);
}

/* ---- clip, round, between, where -------------------------------------------------- */

static PyObject *py_clip(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *colo, *lo = Py_None, *hi = Py_None;
  if (!PyArg_ParseTuple(args, "O|OO", &colo, &lo, &hi)) return NULL;
  zb_column *col = zbpy_arg_column(st, colo, "col");
  if (col == NULL) return NULL;
  zb_scalar l, h;
  if (scalar_arg(st, lo, col, true, &l) < 0 || scalar_arg(st, hi, col, true, &h) < 0)
    return NULL;
  zb_column *res = NULL;
  zb_error err;
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_clip(col, &l, &h, &res, &err));
  return zbpy_column_result(st, s, &err, res);
}

static PyObject *py_round(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *colo;
  int decimals = 0;
  if (!PyArg_ParseTuple(args, "O|i", &colo, &decimals)) return NULL;
  zb_column *col = zbpy_arg_column(st, colo, "col");
  if (col == NULL) return NULL;
  zb_column *res = NULL;
  zb_error err;
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_round(col, decimals, &res, &err));
  return zbpy_column_result(st, s, &err, res);
}

static PyObject *py_between(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *colo, *lo, *hi;
  const char *inc = "both";
  if (!PyArg_ParseTuple(args, "OOO|s", &colo, &lo, &hi, &inc)) return NULL;
  zb_column *col = zbpy_arg_column(st, colo, "col");
  if (col == NULL) return NULL;
  zb_inclusive in;
  if (strcmp(inc, "both") == 0) in = ZB_INCLUSIVE_BOTH;
  else if (strcmp(inc, "neither") == 0) in = ZB_INCLUSIVE_NEITHER;
  else if (strcmp(inc, "left") == 0) in = ZB_INCLUSIVE_LEFT;
  else if (strcmp(inc, "right") == 0) in = ZB_INCLUSIVE_RIGHT;
  else
    return PyErr_Format(st->InvalidValueError,
                        "inclusive has to be either string of 'both', 'left', 'right', or "
                        "'neither', not '%s'", inc);
  zb_column *res = NULL;
  zb_error err;
  zb_status s;
  if (col->type == ZB_STRING || col->type == ZB_CATEGORICAL) {
    const char *l, *h;
    Py_ssize_t ll, hl;
    if (str_arg(lo, "left", true, &l, &ll) < 0 || str_arg(hi, "right", true, &h, &hl) < 0)
      return NULL;
    ZBPY_RUN_ENGINE(s, zb_column_between_string(col, l, ll, h, hl, in, &res, &err));
  } else {
    zb_scalar l, h;
    if (scalar_arg(st, lo, col, false, &l) < 0 || scalar_arg(st, hi, col, false, &h) < 0)
      return NULL;
    ZBPY_RUN_ENGINE(s, zb_column_between(col, &l, &h, in, &res, &err));
  }
  return zbpy_column_result(st, s, &err, res);
}

static PyObject *py_where(PyObject *module, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"col", "cond", "other", "mask", NULL};
  zbpy_state *st = zbpy_module_state(module);
  PyObject *colo, *condo, *other = Py_None;
  int mask = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|Op", kwlist, &colo, &condo, &other, &mask))
    return NULL;
  zb_column *col = zbpy_arg_column(st, colo, "col");
  zb_column *cond = col ? zbpy_arg_column(st, condo, "cond") : NULL;
  if (cond == NULL) return NULL;
  zb_column *res = NULL;
  zb_error err;
  zb_status s;
  if (PyObject_TypeCheck(other, st->column_type)) {
    zb_column *o = ((zbpy_column *)other)->col;
    ZBPY_RUN_ENGINE(s, zb_column_where(col, cond, mask, o, &res, &err));
  } else if (PyUnicode_Check(other)) {
    const char *o;
    Py_ssize_t ol;
    if (str_arg(other, "other", false, &o, &ol) < 0) return NULL;
    ZBPY_RUN_ENGINE(s, zb_column_where_string(col, cond, mask, o, ol, &res, &err));
  } else {
    zb_scalar o;
    if (scalar_arg(st, other, col, true, &o) < 0) return NULL;
    ZBPY_RUN_ENGINE(s, zb_column_where_scalar(col, cond, mask, &o, &res, &err));
  }
  return zbpy_column_result(st, s, &err, res);
}

/* ---- named time zones: the zone's TZif bytes come from Python ---------- */

/* Parse the TZif bytes object data of zone name (a Python exception on
 * failure: NULL). */
static zb_tz *tz_from_bytes(zbpy_state *st, PyObject *data, const char *name) {
  char *p;
  Py_ssize_t n;
  if (PyBytes_AsStringAndSize(data, &p, &n) < 0) return NULL;
  zb_tz *z = NULL;
  zb_error err;
  zb_status s = zb_tz_parse((const uint8_t *)p, (size_t)n, name, &z, &err);
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    return NULL;
  }
  return z;
}

static PyObject *py_tz_to_wall(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *colo, *data;
  const char *name;
  if (!PyArg_ParseTuple(args, "OSs", &colo, &data, &name)) return NULL;
  zb_column *col = zbpy_arg_column(st, colo, "col");
  if (col == NULL) return NULL;
  zb_tz *z = tz_from_bytes(st, data, name);
  if (z == NULL) return NULL;
  zb_column *res = NULL;
  zb_error err;
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_tz_to_wall(col, z, &res, &err));
  zb_tz_release(z);
  return zbpy_column_result(st, s, &err, res);
}

static PyObject *py_tz_localize(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *colo, *data, *ambo;
  const char *name;
  int amb, nonexistent;
  if (!PyArg_ParseTuple(args, "OSsiOi", &colo, &data, &name, &amb, &ambo, &nonexistent))
    return NULL;
  zb_column *col = zbpy_arg_column(st, colo, "col");
  if (col == NULL) return NULL;
  zb_column *ambc = NULL;
  if (ambo != Py_None && (ambc = zbpy_arg_column(st, ambo, "ambiguous")) == NULL) return NULL;
  zb_tz *z = tz_from_bytes(st, data, name);
  if (z == NULL) return NULL;
  zb_column *res = NULL;
  zb_error err;
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_column_tz_localize(col, z, name, (zb_tz_ambiguous)amb, ambc,
                            (zb_tz_nonexistent)nonexistent, &res, &err);
  ZBPY_END_ENGINE
  zb_tz_release(z);
  return zbpy_column_result(st, s, &err, res);
}

PyMethodDef zbpy_strings_methods[] = {
    {"str_op", (PyCFunction)(void (*)(void))py_str_op, METH_VARARGS | METH_KEYWORDS,
     "str_op(col, op, pat=None, repl=None, n=-1, start=None, stop=None, step=None) -> Column\n\n"
     "op: len, contains, startswith, endswith, lower, upper, strip, lstrip, rstrip, slice,"
     " replace (patterns are literal)."},
    {"str_cat", (PyCFunction)(void (*)(void))py_str_cat, METH_VARARGS | METH_KEYWORDS,
     "str_cat(col, other, sep=None, scalar_first=False) -> Column; other a Column, str or None"},
    {"str_join", py_str_join, METH_VARARGS,
     "str_join(col, sep=None) -> str: the valid rows joined with sep"},
    {"tz_to_wall", py_tz_to_wall, METH_VARARGS,
     "tz_to_wall(col, tzif, name) -> naive timestamp Column: the wall times in the zone whose "
     "TZif file bytes are tzif"},
    {"tz_localize", py_tz_localize, METH_VARARGS,
     "tz_localize(col, tzif, name, ambiguous, ambiguous_rows, nonexistent) -> Column: wall "
     "times to UTC; ambiguous 0 raise, 1 NaT, 2 earlier, 3 later, 4 per row (a bool Column); "
     "nonexistent 0 raise, 1 NaT, 2 shift_forward, 3 shift_backward"},
    {"dt_field", py_dt_field, METH_VARARGS,
     "dt_field(col, name) -> int32 Column; name: year, month, day, hour, minute, second,"
     " dayofweek, dayofyear, quarter, microsecond, nanosecond"},
    {"date_diff", py_date_diff, METH_VARARGS,
     "date_diff(a, b) -> duration Column: a - b in seconds (date32) or the finer timestamp "
     "unit"},
    {"parse_time", py_parse_time, METH_VARARGS,
     "parse_time(col, kind, format=None) -> (Column, info): kind 'datetime' (timestamp[ns]) "
     "or 'timedelta' (duration[ns]); rows that do not parse are null, info['bad_row'] the "
     "first"},
    {"column_clip", py_clip, METH_VARARGS, "column_clip(col, lower=None, upper=None) -> Column"},
    {"column_round", py_round, METH_VARARGS, "column_round(col, decimals=0) -> Column (half to even)"},
    {"column_between", py_between, METH_VARARGS,
     "column_between(col, left, right, inclusive='both') -> bool Column"},
    {"column_where", (PyCFunction)(void (*)(void))py_where, METH_VARARGS | METH_KEYWORDS,
     "column_where(col, cond, other=None, mask=False) -> Column: col where cond (not cond when mask),"
     " else other; a null cond takes other"},
    {NULL, NULL, 0, NULL},
};
