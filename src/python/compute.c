/*
 * compute.c -- the compute operations of zambezi/compute.h as functions of
 * the module zambezi._core: binary / binary_scalar / unary, cast, isnull /
 * notnull, fill_null, fill_scan (ffill / bfill), filter, take,
 * sort_indices and concat.
 *
 * Python scalars become zb_scalar values here, typed the way pandas types a
 * Python scalar next to a column (a "weak" scalar, as in numpy's NEP 50): an
 * int takes an integer column's type when it fits (arithmetic raises
 * OverflowError when it does not, as pandas does; comparisons and true
 * division widen it), a float takes a float column's type, a str goes
 * through the *_string variants, None is a null scalar, datetime.date /
 * datetime.datetime become
 * date32 days / timestamp ticks in the column's unit.  Every engine call
 * runs with the GIL released; the Column and Table arguments are immutable
 * and kept alive by the argument tuple while it runs.
 */
#include "zbpy.h"

#include <math.h>
#include <string.h>

#include "core/dtype_list.h"
#include "zambezi/compute.h"

/* Registered in module.c's method table. */
static PyObject *zbpy_compute_binary(PyObject *module, PyObject *args);
static PyObject *zbpy_compute_binary_scalar(PyObject *module, PyObject *args);
static PyObject *zbpy_compute_unary(PyObject *module, PyObject *args);
static PyObject *zbpy_compute_cast(PyObject *module, PyObject *args);
static PyObject *zbpy_compute_isnull(PyObject *module, PyObject *arg);
static PyObject *zbpy_compute_notnull(PyObject *module, PyObject *arg);
static PyObject *zbpy_compute_fill_null(PyObject *module, PyObject *args);
static PyObject *zbpy_compute_fill_scan(PyObject *module, PyObject *args);
static PyObject *zbpy_compute_cumulative(PyObject *module, PyObject *args);
static PyObject *zbpy_compute_rank(PyObject *module, PyObject *args);
static PyObject *zbpy_compute_filter(PyObject *module, PyObject *args);
static PyObject *zbpy_compute_take(PyObject *module, PyObject *args);
static PyObject *zbpy_compute_sort_indices(PyObject *module, PyObject *args);
static PyObject *zbpy_compute_sort_values(PyObject *module, PyObject *args);
static PyObject *zbpy_compute_concat(PyObject *module, PyObject *arg);


static int as_column(zbpy_state *st, PyObject *o, const char *what, zb_column **out) {
  *out = zbpy_arg_column(st, o, what);
  return *out == NULL ? -1 : 0;
}

static int parse_binary_op(zbpy_state *st, const char *name, zb_binary_op *op) {
  for (int i = 0; i < ZB_BINARY_OP_COUNT; i++) {
    if (strcmp(name, zb_binary_op_name((zb_binary_op)i)) == 0) {
      *op = (zb_binary_op)i;
      return 0;
    }
  }
  PyErr_Format(st->InvalidValueError, "unknown binary operation '%s'", name);
  return -1;
}

static bool is_cmp(zb_binary_op op) { return op >= ZB_OP_EQ && op <= ZB_OP_GE; }

/* Whether v (or, is_unsigned_big, a value above INT64_MAX) is in the range
 * of integer type t: v survives the round trip through t's C type. */
static bool int_fits(zb_type_id t, long long v, int is_unsigned_big) {
  if (is_unsigned_big) return t == ZB_UINT64;
  switch (t) {
#define FITS_S(ID, T, NAME, U) case ID: return (long long)(T)v == v;
#define FITS_U(ID, T, NAME, U) \
    case ID: return v >= 0 && (unsigned long long)(T)v == (unsigned long long)v;
    ZB_FOR_EACH_SIGNED_TYPE(FITS_S)
    ZB_FOR_EACH_UNSIGNED_TYPE(FITS_U)
#undef FITS_S
#undef FITS_U
    default: return false;
  }
}

static void set_int(zb_scalar *s, zb_type_id t, long long v, int big, unsigned long long u) {
  s->type = t;
  s->is_null = false;
  if (big) s->v.u = u;
  else if (zb_type_is_signed(t)) s->v.i = v;
  else s->v.u = (unsigned long long)v;
}

/* Ticks of a datetime in unit, from microseconds since the epoch. */
static int us_to_unit(zbpy_state *st, int64_t us, zb_time_unit unit, int64_t *out) {
  switch (unit) {
    case ZB_SECOND: *out = us >= 0 ? us / 1000000 : -((-us + 999999) / 1000000); return 0;
    case ZB_MILLI: *out = us >= 0 ? us / 1000 : -((-us + 999) / 1000); return 0;
    case ZB_MICRO: *out = us; return 0;
    case ZB_NANO:
      if (us > INT64_MAX / 1000 || us < INT64_MIN / 1000) {
        PyErr_SetString(st->ZambeziOverflowError,
                        "datetime is out of range for a timestamp[ns] column");
        return -1;
      }
      *out = us * 1000;
      return 0;
  }
  *out = us;
  return 0;
}

/* Convert a Python scalar (not str) for use next to col.  for_cmp widens
 * ints that do not fit col's type instead of raising (comparisons, true
 * division).  for_fill types
 * ints as int64 / uint64 and floats as float64 (fill_null converts). */
static int scalar_from_py(zbpy_state *st, PyObject *o, const zb_column *col, bool for_cmp,
                          bool for_fill, zb_scalar *s) {
  memset(s, 0, sizeof *s);
  zb_type_id ct = col->type;
  if (o == Py_None) {
    s->is_null = true;
    s->type = (zb_type_is_numeric(ct) || ct == ZB_DATE32 || ct == ZB_TIMESTAMP ||
               ct == ZB_DURATION)
                  ? ct
                  : ZB_INT64;
    return 0;
  }
  if (PyBool_Check(o)) {
    s->type = ZB_BOOL;
    s->v.b = o == Py_True;
    return 0;
  }
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    unsigned long long u = 0;
    int big = 0;
    if (overflow > 0) {
      u = PyLong_AsUnsignedLongLong(o);
      if (u == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        overflow = 2;
      } else {
        big = 1;
        overflow = 0;
      }
    }
    if (overflow != 0) { /* beyond 64 bits */
      if (for_cmp || zb_type_is_float(ct)) {
        s->type = zb_type_is_float(ct) ? ct : ZB_FLOAT64;
        s->v.f = PyLong_AsDouble(o);
        if (s->v.f == -1.0 && PyErr_Occurred()) return -1;
        return 0;
      }
      PyErr_Format(st->ZambeziOverflowError, "Python integer %R is out of bounds for %s", o,
                   zb_type_name(ct));
      return -1;
    }
    if (zb_type_is_float(ct) && !for_fill) {
      s->type = ct;
      s->v.f = big ? (double)u : (double)v;
      return 0;
    }
    if (zb_type_is_integer(ct) && !for_fill) {
      if (int_fits(ct, v, big)) {
        set_int(s, ct, v, big, u);
        return 0;
      }
      if (!for_cmp) {
        PyErr_Format(st->ZambeziOverflowError, "Python integer %R is out of bounds for %s", o,
                     zb_type_name(ct));
        return -1;
      }
    }
    set_int(s, big ? ZB_UINT64 : ZB_INT64, v, big, u);
    return 0;
  }
  if (PyFloat_Check(o)) {
    s->type = (zb_type_is_float(ct) && !for_fill) ? ct : ZB_FLOAT64;
    s->v.f = PyFloat_AS_DOUBLE(o);
    return 0;
  }
  if (zbpy_is_timedelta(o)) { /* datetime.timedelta, pd.Timedelta: in the column's unit */
    if (ct != ZB_DURATION && ct != ZB_TIMESTAMP) {
      PyErr_Format(st->DTypeError, "a timedelta scalar next to a %s column", zb_type_name(ct));
      return -1;
    }
    s->type = for_fill ? ZB_INT64 : ZB_DURATION;
    return zbpy_timedelta_to_unit(o, (int)col->unit, &s->v.i);
  }
  int kind = zbpy_date_kind(o);
  if (kind == 1) { /* datetime.datetime */
    int64_t us = 0;
    int aware = 0;
    if (zbpy_datetime_to_us(o, &us, &aware) < 0) return -1;
    if (ct != ZB_TIMESTAMP) {
      PyErr_Format(st->DTypeError, "a datetime scalar next to a %s column", zb_type_name(ct));
      return -1;
    }
    bool col_aware = col->timezone != NULL && col->timezone[0] != '\0';
    if ((bool)aware != col_aware) {
      PyErr_Format(st->DTypeError,
                   "cannot mix a timezone-%s datetime with a timezone-%s timestamp column",
                   aware ? "aware" : "naive", col_aware ? "aware" : "naive");
      return -1;
    }
    s->type = for_fill ? ZB_INT64 : ZB_TIMESTAMP;
    if (us_to_unit(st, us, col->unit, &s->v.i) < 0) return -1;
    if (col->unit == ZB_NANO) { /* a pd.Timestamp's nanoseconds past its microsecond */
      int unit_, nanos = 0;
      if (zbpy_datetime_unit(o, &unit_, &nanos) < 0) return -1;
      if (__builtin_add_overflow(s->v.i, (int64_t)nanos, &s->v.i)) {
        PyErr_SetString(st->ZambeziOverflowError,
                        "datetime is out of range for a timestamp[ns] column");
        return -1;
      }
    }
    return 0;
  }
  if (kind == 2) { /* datetime.date */
    if (ct == ZB_TIMESTAMP) {
      PyErr_Format(st->DTypeError,
                   "a date scalar next to a timestamp column (use a datetime)");
      return -1;
    }
    s->type = for_fill ? ZB_INT32 : ZB_DATE32;
    s->v.i = zbpy_date_to_days(o);
    if (ct != ZB_DATE32) {
      PyErr_Format(st->DTypeError, "a date scalar next to a %s column", zb_type_name(ct));
      return -1;
    }
    return 0;
  }
  PyErr_Format(st->DTypeError, "a scalar of type %s is not supported next to a %s column",
               Py_TYPE(o)->tp_name, zb_type_name(ct));
  return -1;
}

/* binary(op, a, b) -> Column */
static PyObject *zbpy_compute_binary(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  const char *name;
  PyObject *ao, *bo;
  if (!PyArg_ParseTuple(args, "sOO:binary", &name, &ao, &bo)) return NULL;
  zb_binary_op op;
  zb_column *a, *b;
  if (parse_binary_op(st, name, &op) < 0 || as_column(st, ao, "left operand", &a) < 0 ||
      as_column(st, bo, "right operand", &b) < 0)
    return NULL;
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_binary(op, a, b, &out, &err));
  return zbpy_column_result(st, s, &err, out);
}

/* binary_scalar(op, col, value, scalar_first) -> Column */
static PyObject *zbpy_compute_binary_scalar(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  const char *name;
  PyObject *co, *value;
  int first = 0;
  if (!PyArg_ParseTuple(args, "sOOp:binary_scalar", &name, &co, &value, &first)) return NULL;
  zb_binary_op op;
  zb_column *col;
  if (parse_binary_op(st, name, &op) < 0 || as_column(st, co, "column", &col) < 0) return NULL;
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  bool stringish = col->type == ZB_STRING || col->type == ZB_CATEGORICAL;
  if (PyUnicode_Check(value) || (value == Py_None && stringish)) {
    const char *str = NULL;
    Py_ssize_t len = 0;
    if (value != Py_None) {
      str = PyUnicode_AsUTF8AndSize(value, &len);
      if (str == NULL) return NULL;
    }
    ZBPY_RUN_ENGINE(s, zb_column_binary_string(op, col, str, (int64_t)len, first != 0, &out, &err));
  } else {
    zb_scalar sc;
    /* comparisons and true division widen an int that does not fit the
     * column's type (the result is bool or a float either way, as pandas) */
    bool widen = is_cmp(op) || op == ZB_OP_TRUEDIV;
    if (scalar_from_py(st, value, col, widen, false, &sc) < 0) return NULL;
    ZBPY_RUN_ENGINE(s, zb_column_binary_scalar(op, col, &sc, first != 0, &out, &err));
  }
  return zbpy_column_result(st, s, &err, out);
}

/* unary(op, col) -> Column; op is "neg", "abs" or "invert". */
static PyObject *zbpy_compute_unary(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  const char *name;
  PyObject *co;
  if (!PyArg_ParseTuple(args, "sO:unary", &name, &co)) return NULL;
  zb_column *col;
  if (as_column(st, co, "column", &col) < 0) return NULL;
  int op = -1;
  for (int i = 0; i < ZB_UNARY_OP_COUNT; i++)
    if (strcmp(name, zb_unary_op_name((zb_unary_op)i)) == 0) op = i;
  if (op < 0) {
    PyErr_Format(st->InvalidValueError, "unknown unary operation '%s'", name);
    return NULL;
  }
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_unary((zb_unary_op)op, col, &out, &err));
  return zbpy_column_result(st, s, &err, out);
}

/* cast(col, dtype_name) -> Column */
static PyObject *zbpy_compute_cast(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  const char *name;
  PyObject *co;
  if (!PyArg_ParseTuple(args, "Os:cast", &co, &name)) return NULL;
  zb_column *col;
  if (as_column(st, co, "column", &col) < 0) return NULL;
  zb_type_id type;
  zb_time_unit unit;
  char tz[128];
  if (zbpy_parse_dtype(st, name, &type, &unit, tz, sizeof tz) < 0) return NULL;
  if (type == ZB_TIMESTAMP) {
    /* a categorical casts its categories' values: their zone counts */
    const zb_column *tc = col->type == ZB_CATEGORICAL && col->dictionary != NULL
                              ? col->dictionary : col;
    const char *have = (tc->type == ZB_TIMESTAMP && tc->timezone != NULL) ? tc->timezone : "";
    if (strcmp(have, tz) != 0) {
      PyErr_Format(st->UnsupportedError,
                   "cast to %s: changing the timezone ('%s' to '%s') is not supported",
                   name, have, tz);
      return NULL;
    }
  }
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_cast(col, type, unit, &out, &err));
  return zbpy_column_result(st, s, &err, out);
}

static PyObject *null_test(PyObject *module, PyObject *arg, bool valid) {
  zbpy_state *st = zbpy_module_state(module);
  zb_column *col;
  if (as_column(st, arg, "column", &col) < 0) return NULL;
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = valid ? zb_column_notnull(col, &out, &err) : zb_column_isnull(col, &out, &err);
  ZBPY_END_ENGINE
  return zbpy_column_result(st, s, &err, out);
}

static PyObject *zbpy_compute_isnull(PyObject *module, PyObject *arg) {
  return null_test(module, arg, false);
}

static PyObject *zbpy_compute_notnull(PyObject *module, PyObject *arg) {
  return null_test(module, arg, true);
}

/* fill_null(col, value) -> Column */
static PyObject *zbpy_compute_fill_null(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co, *value;
  if (!PyArg_ParseTuple(args, "OO:fill_null", &co, &value)) return NULL;
  zb_column *col;
  if (as_column(st, co, "column", &col) < 0) return NULL;
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  bool stringish = col->type == ZB_STRING || col->type == ZB_CATEGORICAL;
  if (PyUnicode_Check(value) || (value == Py_None && stringish)) {
    const char *str = NULL;
    Py_ssize_t len = 0;
    if (value != Py_None) {
      str = PyUnicode_AsUTF8AndSize(value, &len);
      if (str == NULL) return NULL;
    }
    ZBPY_RUN_ENGINE(s, zb_column_fill_null_string(col, str, (int64_t)len, &out, &err));
  } else {
    if (stringish) {
      PyErr_Format(st->DTypeError, "fillna: a %s value for a %s column",
                   Py_TYPE(value)->tp_name, zb_type_name(col->type));
      return NULL;
    }
    zb_scalar sc;
    if (scalar_from_py(st, value, col, false, true, &sc) < 0) return NULL;
    ZBPY_RUN_ENGINE(s, zb_column_fill_null(col, &sc, &out, &err));
  }
  return zbpy_column_result(st, s, &err, out);
}

/* fill_scan(col, backward, limit, area) -> Column: ffill (backward false)
 * or bfill; limit None or an int >= 0; area None, "inside" or "outside". */
static PyObject *zbpy_compute_fill_scan(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co, *limit_obj, *area_obj;
  int backward = 0;
  if (!PyArg_ParseTuple(args, "OpOO:fill_scan", &co, &backward, &limit_obj, &area_obj))
    return NULL;
  zb_column *col;
  if (as_column(st, co, "column", &col) < 0) return NULL;
  int64_t limit = -1;
  if (limit_obj != Py_None) {
    long long v = PyLong_AsLongLong(limit_obj);
    if (v == -1 && PyErr_Occurred()) return NULL;
    if (v < 0) {
      PyErr_Format(st->InvalidValueError, "fill_scan: limit must be >= 0, not %lld", v);
      return NULL;
    }
    limit = (int64_t)v;
  }
  zb_fill_area area = ZB_FILL_ANYWHERE;
  if (area_obj != Py_None) {
    const char *a = PyUnicode_Check(area_obj) ? PyUnicode_AsUTF8(area_obj) : NULL;
    if (a != NULL && strcmp(a, "inside") == 0) {
      area = ZB_FILL_INSIDE;
    } else if (a != NULL && strcmp(a, "outside") == 0) {
      area = ZB_FILL_OUTSIDE;
    } else {
      if (!PyErr_Occurred())
        PyErr_Format(st->InvalidValueError,
                     "fill_scan: area must be None, 'inside' or 'outside', not %R", area_obj);
      return NULL;
    }
  }
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = backward ? zb_column_fill_backward(col, limit, area, &out, &err)
               : zb_column_fill_forward(col, limit, area, &out, &err);
  ZBPY_END_ENGINE
  return zbpy_column_result(st, s, &err, out);
}

/* cumulative(col, op, skipna, ids, n_groups) -> Column: op one of "cumsum",
 * "cumprod", "cummin", "cummax"; ids None (the whole column) or an int64
 * Column of group ids in [0, n_groups). */
static PyObject *zbpy_compute_cumulative(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co, *ids_obj;
  const char *name;
  int skipna = 1;
  long long n_groups = 0;
  if (!PyArg_ParseTuple(args, "OspOL:cumulative", &co, &name, &skipna, &ids_obj, &n_groups))
    return NULL;
  zb_column *col, *ids = NULL;
  if (as_column(st, co, "column", &col) < 0) return NULL;
  if (ids_obj != Py_None && as_column(st, ids_obj, "group ids", &ids) < 0) return NULL;
  int op = -1;
  for (int k = 0; k < ZB_CUM_OP_COUNT; k++)
    if (strcmp(name, zb_cum_op_name((zb_cum_op)k)) == 0) op = k;
  if (op < 0) {
    PyErr_Format(st->InvalidValueError,
                 "cumulative: unknown operation '%s' (cumsum, cumprod, cummin or cummax)", name);
    return NULL;
  }
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = ids == NULL ? zb_column_cumulative(col, (zb_cum_op)op, skipna != 0, &out, &err)
                  : zb_column_group_cumulative(col, ids, (int64_t)n_groups, (zb_cum_op)op,
                                               skipna != 0, &out, &err);
  ZBPY_END_ENGINE
  return zbpy_column_result(st, s, &err, out);
}

/* diff(col, periods, result) -> Column: col[i] - col[i - periods] in one
 * pass, result "float64" or "float32" (zb_column_diff). */
static PyObject *zbpy_compute_diff(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co;
  long long periods;
  const char *result;
  if (!PyArg_ParseTuple(args, "OLs:diff", &co, &periods, &result)) return NULL;
  zb_column *col;
  if (as_column(st, co, "column", &col) < 0) return NULL;
  zb_type_id rt;
  zb_time_unit unit;
  char tz[128];
  if (zbpy_parse_dtype(st, result, &rt, &unit, tz, sizeof tz) < 0) return NULL;
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_column_diff(col, (int64_t)periods, rt, &out, &err);
  ZBPY_END_ENGINE
  return zbpy_column_result(st, s, &err, out);
}

/* rank(col, method, ascending, na_option, pct, ids, n_groups) -> float64
 * Column: method "average", "min", "max", "first" or "dense"; na_option
 * "keep", "top" or "bottom"; ids None (the whole column) or an int64
 * Column of group ids in [0, n_groups). */
static PyObject *zbpy_compute_rank(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co, *ids_obj;
  const char *name, *na;
  int ascending = 1, pct = 0;
  long long n_groups = 0;
  if (!PyArg_ParseTuple(args, "OspspOL:rank", &co, &name, &ascending, &na, &pct, &ids_obj,
                        &n_groups))
    return NULL;
  zb_column *col, *ids = NULL;
  if (as_column(st, co, "column", &col) < 0) return NULL;
  if (ids_obj != Py_None && as_column(st, ids_obj, "group ids", &ids) < 0) return NULL;
  int method = -1;
  for (int k = 0; k < ZB_RANK_METHOD_COUNT; k++)
    if (strcmp(name, zb_rank_method_name((zb_rank_method)k)) == 0) method = k;
  if (method < 0) {
    PyErr_Format(st->InvalidValueError,
                 "rank: unknown method '%s' (average, min, max, first or dense)", name);
    return NULL;
  }
  static const char *const na_names[ZB_RANK_NA_COUNT] = {"keep", "top", "bottom"};
  int na_option = -1;
  for (int k = 0; k < ZB_RANK_NA_COUNT; k++)
    if (strcmp(na, na_names[k]) == 0) na_option = k;
  if (na_option < 0) {
    PyErr_Format(st->InvalidValueError, "rank: unknown na_option '%s' (keep, top or bottom)",
                 na);
    return NULL;
  }
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = ids == NULL ? zb_column_rank(col, (zb_rank_method)method, ascending != 0,
                                   (zb_rank_na)na_option, pct != 0, &out, &err)
                  : zb_column_group_rank(col, ids, (int64_t)n_groups, (zb_rank_method)method,
                                         ascending != 0, (zb_rank_na)na_option, pct != 0,
                                         &out, &err);
  ZBPY_END_ENGINE
  return zbpy_column_result(st, s, &err, out);
}

/* Rows of a Column or Table chosen by a second column (filter: a bool mask,
 * take: int64 positions): one engine call with the GIL released. */
typedef zb_status (*table_rows_fn)(const zb_table *, const zb_column *, zb_table **,
                                   zb_error *);
typedef zb_status (*column_rows_fn)(const zb_column *, const zb_column *, zb_column **,
                                    zb_error *);

static PyObject *select_rows(PyObject *module, PyObject *args, const char *format,
                             const char *what, table_rows_fn table_fn,
                             column_rows_fn column_fn) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *data, *so;
  if (!PyArg_ParseTuple(args, format, &data, &so)) return NULL;
  zb_column *sel;
  if (as_column(st, so, what, &sel) < 0) return NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  if (PyObject_TypeCheck(data, st->table_type)) {
    zb_table *t = ((zbpy_table *)data)->table, *out = NULL;
    ZBPY_RUN_ENGINE(s, table_fn(t, sel, &out, &err));
    return zbpy_table_result(st, s, &err, out);
  }
  zb_column *col, *out = NULL;
  if (as_column(st, data, "data", &col) < 0) return NULL;
  ZBPY_RUN_ENGINE(s, column_fn(col, sel, &out, &err));
  return zbpy_column_result(st, s, &err, out);
}

/* filter(column_or_table, mask) -> Column or Table */
static PyObject *zbpy_compute_filter(PyObject *module, PyObject *args) {
  return select_rows(module, args, "OO:filter", "mask", zb_table_filter, zb_column_filter);
}

/* take(column_or_table, indices) -> Column or Table */
static PyObject *zbpy_compute_take(PyObject *module, PyObject *args) {
  return select_rows(module, args, "OO:take", "indices", zb_table_take, zb_column_take);
}

/* sort_values(column, ascending, nulls_first[, with_indices]) -> Column, or
 * with_indices: (values Column, int64 permutation Column) from one sort */
static PyObject *zbpy_compute_sort_values(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  zb_column *out = NULL, *idx = NULL, *col;
  PyObject *co;
  int asc = 1, nf = 0, wi = 0;
  if (!PyArg_ParseTuple(args, "Opp|p:sort_values", &co, &asc, &nf, &wi)) return NULL;
  if (as_column(st, co, "column", &col) < 0) return NULL;
  ZBPY_BEGIN_ENGINE
  if (wi)
    s = zb_column_sort_values_indices(col, asc != 0, nf != 0, &out, &idx, &err);
  else
    s = zb_column_sort_values(col, asc != 0, nf != 0, &out, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  if (!wi) return zbpy_column_wrap(st, out);
  PyObject *v = zbpy_column_wrap(st, out);
  if (v == NULL) {
    zb_column_release(idx);
    return NULL;
  }
  PyObject *i = zbpy_column_wrap(st, idx);
  if (i == NULL) {
    Py_DECREF(v);
    return NULL;
  }
  PyObject *r = PyTuple_Pack(2, v, i);
  Py_DECREF(v);
  Py_DECREF(i);
  return r;
}

/* sort_indices(column, ascending, nulls_first) -> Column, or
 * sort_indices(table, keys, ascending_list, nulls_first) -> Column */
static PyObject *zbpy_compute_sort_indices(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  Py_ssize_t nargs = PyTuple_GET_SIZE(args);
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  zb_column *out = NULL;
  if (nargs == 3) {
    PyObject *co;
    int asc = 1, nf = 0;
    if (!PyArg_ParseTuple(args, "Opp:sort_indices", &co, &asc, &nf)) return NULL;
    zb_column *col;
    if (as_column(st, co, "column", &col) < 0) return NULL;
    ZBPY_RUN_ENGINE(s, zb_column_sort_indices(col, asc != 0, nf != 0, &out, &err));
    return zbpy_column_result(st, s, &err, out);
  }
  PyObject *to, *keys_obj, *asc_obj;
  int nf = 0;
  if (!PyArg_ParseTuple(args, "OOOp:sort_indices", &to, &keys_obj, &asc_obj, &nf)) return NULL;
  if (!PyObject_TypeCheck(to, st->table_type)) {
    PyErr_Format(PyExc_TypeError, "sort_indices: expected a Table, not %s",
                 Py_TYPE(to)->tp_name);
    return NULL;
  }
  zb_table *t = ((zbpy_table *)to)->table;
  PyObject *kf = NULL, *af = NULL, *result = NULL;
  int64_t *keys = NULL;
  bool *asc = NULL;
  kf = PySequence_Fast(keys_obj, "sort_indices: keys must be a sequence");
  if (kf == NULL) goto error;
  af = PySequence_Fast(asc_obj, "sort_indices: ascending must be a sequence");
  if (af == NULL) goto error;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(kf);
  if (PySequence_Fast_GET_SIZE(af) != n) {
    PyErr_Format(st->InvalidValueError, "sort_indices: %zd keys but %zd ascending flags", n,
                 PySequence_Fast_GET_SIZE(af));
    goto error;
  }
  size_t nb = (size_t)(n > 0 ? n : 1);
  keys = (int64_t *)zb_malloc(nb * sizeof *keys);
  asc = (bool *)zb_malloc(nb * sizeof *asc);
  if (keys == NULL || asc == NULL) {
    zbpy_raise_nomem(st, "sort keys", nb * sizeof *keys);
    goto error;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    long long k = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(kf, i));
    if (k == -1 && PyErr_Occurred()) goto error;
    int a = PyObject_IsTrue(PySequence_Fast_GET_ITEM(af, i));
    if (a < 0) goto error;
    keys[i] = k;
    asc[i] = a != 0;
  }
  ZBPY_RUN_ENGINE(s, zb_table_sort_indices(t, (int64_t)n, keys, asc, nf != 0, &out, &err));
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto error;
  }
  result = zbpy_column_wrap(st, out);
error:
  zb_free(keys);
  zb_free(asc);
  Py_XDECREF(kf);
  Py_XDECREF(af);
  return result;
}

/* concat(columns) -> Column */
static PyObject *zbpy_compute_concat(PyObject *module, PyObject *arg) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *fast = PySequence_Fast(arg, "concat: expected a sequence of Columns");
  if (fast == NULL) return NULL;
  PyObject *result = NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  size_t nb = (size_t)(n > 0 ? n : 1) * sizeof(zb_column *);
  zb_column **cols = (zb_column **)zb_malloc(nb);
  if (cols == NULL) {
    zbpy_raise_nomem(st, "the column list of concat", nb);
    goto error;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    if (as_column(st, PySequence_Fast_GET_ITEM(fast, i), "concat item", &cols[i]) < 0)
      goto error;
  }
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_concat(cols, (int64_t)n, &out, &err));
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto error;
  }
  result = zbpy_column_wrap(st, out);
error:
  zb_free(cols);
  Py_DECREF(fast);
  return result;
}

PyMethodDef zbpy_compute_methods[] = {
    {"binary", zbpy_compute_binary, METH_VARARGS, "binary(op, a, b) -> Column"},
    {"binary_scalar", zbpy_compute_binary_scalar, METH_VARARGS,
     "binary_scalar(op, col, value, scalar_first) -> Column"},
    {"unary", zbpy_compute_unary, METH_VARARGS, "unary('neg'|'abs'|'invert', col) -> Column"},
    {"cast", zbpy_compute_cast, METH_VARARGS, "cast(col, dtype_name) -> Column"},
    {"isnull", zbpy_compute_isnull, METH_O, "isnull(col) -> bool Column"},
    {"notnull", zbpy_compute_notnull, METH_O, "notnull(col) -> bool Column"},
    {"fill_null", zbpy_compute_fill_null, METH_VARARGS, "fill_null(col, value) -> Column"},
    {"diff", zbpy_compute_diff, METH_VARARGS,
     "diff(col, periods, result) -> Column: col[i] - col[i - periods] in one pass (result "
     "'float64' or 'float32', or the column's own integer dtype: wrapping as pandas' masked "
     "integers; null without a partner)."},
    {"cumulative", zbpy_compute_cumulative, METH_VARARGS,
     "cumulative(col, op, skipna, ids, n_groups) -> Column: cumsum / cumprod / cummin / "
     "cummax, per group when ids (int64 group ids) is not None"},
    {"rank", zbpy_compute_rank, METH_VARARGS,
     "rank(col, method, ascending, na_option, pct, ids, n_groups) -> float64 Column: pandas' "
     "rank, per group when ids (int64 group ids) is not None"},
    {"fill_scan", zbpy_compute_fill_scan, METH_VARARGS,
     "fill_scan(col, backward, limit, area) -> Column: ffill / bfill (limit None or >= 0; "
     "area None, 'inside' or 'outside')"},
    {"filter", zbpy_compute_filter, METH_VARARGS,
     "filter(column_or_table, mask) -> Column or Table"},
    {"take", zbpy_compute_take, METH_VARARGS,
     "take(column_or_table, int64 indices) -> Column or Table"},
    {"sort_indices", zbpy_compute_sort_indices, METH_VARARGS,
     "sort_indices(col, ascending, nulls_first) or sort_indices(table, keys, ascending, "
     "nulls_first) -> int64 Column"},
    {"sort_values", zbpy_compute_sort_values, METH_VARARGS,
     "sort_values(col, ascending, nulls_first[, with_indices]) -> Column, or (values, "
     "indices) with with_indices"},
    {"concat", zbpy_compute_concat, METH_O, "concat(columns) -> Column"},
    {NULL, NULL, 0, NULL},
};
