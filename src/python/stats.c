/*
 * stats.c -- the module-level functions of zambezi._core for statistics and
 * hash-based operations (zambezi/compute.h): stat, quantile, min_max,
 * hash, unique, nunique, value_counts, duplicated, drop_duplicates and
 * isin.  They are added to the module by module_exec (zbpy_stats_methods).
 *
 * Each converts its arguments once, releases the GIL around the engine
 * call, and maps a failed status to the ZambeziError hierarchy.  Columns
 * and tables arrive as _core.Column / _core.Table objects.
 */
#include "zbpy.h"

#include <math.h>
#include <string.h>

#include "zambezi/compute.h"

/* stat(col, op, ddof) -> int, float, bool or None */
static PyObject *py_stat(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co;
  const char *name;
  long long ddof = 1;
  if (!PyArg_ParseTuple(args, "Os|L:stat", &co, &name, &ddof)) return NULL;
  zb_column *col = zbpy_arg_column(st, co, "stat");
  if (col == NULL) return NULL;
  int op = -1;
  for (int i = 0; i < ZB_STAT_OP_COUNT; i++)
    if (strcmp(name, zb_stat_op_name((zb_stat_op)i)) == 0) op = i;
  if (op < 0)
    return PyErr_Format(st->InvalidValueError,
                        "unknown statistic '%s' (expected var, std, prod, any, all, argmin, "
                        "argmax or median)",
                        name);
  zb_scalar out;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_stat(col, (zb_stat_op)op, ddof, &out, &err));
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  return zbpy_scalar_to_py(&out);
}

/* quantile(col, [q, ...]) -> list of float or None */
static PyObject *py_quantile(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co, *qo;
  if (!PyArg_ParseTuple(args, "OO:quantile", &co, &qo)) return NULL;
  zb_column *col = zbpy_arg_column(st, co, "quantile");
  if (col == NULL) return NULL;
  PyObject *fast = PySequence_Fast(qo, "quantile: q must be a sequence of floats");
  if (fast == NULL) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  double *q = (double *)PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  zb_scalar *out = (zb_scalar *)PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(zb_scalar));
  PyObject *result = NULL;
  if (q == NULL || out == NULL) {
    PyErr_NoMemory();
    goto done;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    q[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(fast, i));
    if (q[i] == -1.0 && PyErr_Occurred()) goto done;
  }
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_quantile(col, n, q, out, &err));
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto done;
  }
  result = PyList_New(n);
  if (result == NULL) goto done;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *v = zbpy_scalar_to_py(&out[i]);
    if (v == NULL) {
      Py_CLEAR(result);
      goto done;
    }
    PyList_SET_ITEM(result, i, v);
  }
done:
  PyMem_Free(q);
  PyMem_Free(out);
  Py_DECREF(fast);
  return result;
}

/* corr_matrix(table, min_periods, ddof, cov) -> list of k * k floats (row-major) */
static PyObject *py_corr_matrix(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *to;
  long long min_periods, ddof;
  int cov;
  if (!PyArg_ParseTuple(args, "OLLp:corr_matrix", &to, &min_periods, &ddof, &cov)) return NULL;
  zb_table *t = zbpy_arg_table(st, to, "corr_matrix");
  if (t == NULL) return NULL;
  const int64_t k = t->num_columns;
  if (k > 0 && (uint64_t)k > (uint64_t)PY_SSIZE_T_MAX / sizeof(double) / (uint64_t)k)
    return PyErr_NoMemory();
  double *out = (double *)PyMem_Malloc((size_t)(k > 0 ? k * k : 1) * sizeof(double));
  if (out == NULL) return PyErr_NoMemory();
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_table_corr(t, (int64_t)min_periods, (int64_t)ddof, cov != 0, out, &err));
  PyObject *result = NULL;
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
  } else if ((result = PyList_New((Py_ssize_t)(k * k))) != NULL) {
    for (int64_t i = 0; i < k * k; i++) {
      PyObject *v = PyFloat_FromDouble(out[i]);
      if (v == NULL) {
        Py_CLEAR(result);
        break;
      }
      PyList_SET_ITEM(result, (Py_ssize_t)i, v);
    }
  }
  PyMem_Free(out);
  return result;
}

/* min_max(col, want_max) -> Column of one row */
static PyObject *py_min_max(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co;
  int want_max;
  if (!PyArg_ParseTuple(args, "Op:min_max", &co, &want_max)) return NULL;
  zb_column *col = zbpy_arg_column(st, co, "min_max");
  if (col == NULL) return NULL;
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_min_max(col, want_max != 0, &out, &err));
  return zbpy_column_result(st, s, &err, out);
}

typedef zb_status (*col_to_col)(const zb_column *, zb_column **, zb_error *);

static PyObject *column_op(PyObject *module, PyObject *arg, col_to_col fn, const char *what) {
  zbpy_state *st = zbpy_module_state(module);
  zb_column *col = zbpy_arg_column(st, arg, what);
  if (col == NULL) return NULL;
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_RUN_ENGINE(s, fn(col, &out, &err));
  return zbpy_column_result(st, s, &err, out);
}

static PyObject *py_hash(PyObject *module, PyObject *arg) {
  return column_op(module, arg, zb_column_hash, "hash");
}

/* hash_rows(table) -> uint64 Column: each row's hash over all the table's
 * columns in order (zb_table_hash_rows); Dask's partitioning of rows. */
static PyObject *py_hash_rows(PyObject *module, PyObject *arg) {
  zbpy_state *st = zbpy_module_state(module);
  zb_table *t = zbpy_arg_table(st, arg, "hash_rows");
  if (t == NULL) return NULL;
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_table_hash_rows(t, 0, NULL, &out, &err));
  return zbpy_column_result(st, s, &err, out);
}

static PyObject *py_unique(PyObject *module, PyObject *arg) {
  return column_op(module, arg, zb_column_unique, "unique");
}

/* nunique(col, dropna) -> int */
static PyObject *py_nunique(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co;
  int dropna = 1;
  if (!PyArg_ParseTuple(args, "O|p:nunique", &co, &dropna)) return NULL;
  zb_column *col = zbpy_arg_column(st, co, "nunique");
  if (col == NULL) return NULL;
  int64_t n = 0;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_nunique(col, dropna != 0, &n, &err));
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  return PyLong_FromLongLong(n);
}

/* value_counts(col, sort, ascending, dropna, normalize) -> (values, counts) */
static PyObject *py_value_counts(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co;
  int sort = 1, ascending = 0, dropna = 1, normalize = 0;
  if (!PyArg_ParseTuple(args, "O|pppp:value_counts", &co, &sort, &ascending, &dropna,
                        &normalize))
    return NULL;
  zb_column *col = zbpy_arg_column(st, co, "value_counts");
  if (col == NULL) return NULL;
  zb_column *v = NULL, *c = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_column_value_counts(col, sort != 0, ascending != 0, dropna != 0, normalize != 0, &v, &c,
                             &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  PyObject *pv = zbpy_column_wrap(st, v);
  if (pv == NULL) {
    zb_column_release(c);
    return NULL;
  }
  PyObject *pc = zbpy_column_wrap(st, c);
  if (pc == NULL) {
    Py_DECREF(pv);
    return NULL;
  }
  PyObject *r = PyTuple_Pack(2, pv, pc);
  Py_DECREF(pv);
  Py_DECREF(pc);
  return r;
}

static int parse_keep(zbpy_state *st, PyObject *o, zb_keep *out) {
  if (o == Py_False) {
    *out = ZB_KEEP_NONE;
    return 0;
  }
  const char *s = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
  if (s != NULL && strcmp(s, "first") == 0) {
    *out = ZB_KEEP_FIRST;
    return 0;
  }
  if (s != NULL && strcmp(s, "last") == 0) {
    *out = ZB_KEEP_LAST;
    return 0;
  }
  if (!PyErr_Occurred())
    PyErr_SetString(st->InvalidValueError, "keep must be 'first', 'last' or False");
  return -1;
}

/* keys: None (all columns) or a sequence of column indices; *keys is
 * PyMem-allocated (NULL when none). */
static int parse_keys(PyObject *o, int64_t **keys, int64_t *n) {
  *keys = NULL;
  *n = 0;
  if (o == Py_None) return 0;
  if (zbpy_int64_array(o, "keys must be None or a sequence of column indices", keys, n) < 0)
    return -1;
  if (*n == 0) {
    PyErr_SetString(PyExc_ValueError, "keys: an empty subset of columns");
    PyMem_Free(*keys);
    *keys = NULL;
    return -1;
  }
  return 0;
}

/* duplicated(table, keys, keep) -> bool Column;
 * drop_duplicates(table, keys, keep) -> Table */
static PyObject *keyed(PyObject *module, PyObject *args, bool drop) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *to, *ko = Py_None, *keepo = NULL;
  if (!PyArg_ParseTuple(args, drop ? "O|OO:drop_duplicates" : "O|OO:duplicated", &to, &ko,
                        &keepo))
    return NULL;
  zb_table *t = zbpy_arg_table(st, to, drop ? "drop_duplicates" : "duplicated");
  if (t == NULL) return NULL;
  zb_keep keep = ZB_KEEP_FIRST;
  if (keepo != NULL && parse_keep(st, keepo, &keep) < 0) return NULL;
  int64_t *keys = NULL, n = 0;
  if (parse_keys(ko, &keys, &n) < 0) return NULL;
  zb_column *oc = NULL;
  zb_table *ot = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  if (drop)
    s = zb_table_drop_duplicates(t, n, keys, keep, &ot, &err);
  else
    s = zb_table_duplicated(t, n, keys, keep, &oc, &err);
  ZBPY_END_ENGINE
  PyMem_Free(keys);
  return drop ? zbpy_table_result(st, s, &err, ot) : zbpy_column_result(st, s, &err, oc);
}

static PyObject *py_duplicated(PyObject *module, PyObject *args) {
  return keyed(module, args, false);
}

static PyObject *py_drop_duplicates(PyObject *module, PyObject *args) {
  return keyed(module, args, true);
}

/* isin(col, values) -> bool Column */
static PyObject *py_isin(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co, *vo;
  if (!PyArg_ParseTuple(args, "OO:isin", &co, &vo)) return NULL;
  zb_column *col = zbpy_arg_column(st, co, "isin");
  zb_column *values = col != NULL ? zbpy_arg_column(st, vo, "isin") : NULL;
  if (values == NULL) return NULL;
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_isin(col, values, &out, &err));
  return zbpy_column_result(st, s, &err, out);
}

PyMethodDef zbpy_stats_methods[] = {
    {"stat", py_stat, METH_VARARGS,
     "stat(col, op, ddof=1) -> scalar or None; op: var, std, prod, any, all, argmin, argmax, "
     "median"},
    {"quantile", py_quantile, METH_VARARGS, "quantile(col, qs) -> list of float or None"},
    {"corr_matrix", py_corr_matrix, METH_VARARGS,
     "corr_matrix(table, min_periods, ddof, cov) -> list of k * k floats: pandas' nancorr of "
     "the table's float64 columns (row-major)"},
    {"min_max", py_min_max, METH_VARARGS, "min_max(col, want_max) -> Column of one row"},
    {"hash", py_hash, METH_O, "hash(col) -> uint64 Column"},
    {"hash_rows", py_hash_rows, METH_O, "hash_rows(table) -> uint64 Column (all columns)"},
    {"unique", py_unique, METH_O, "unique(col) -> Column (first-appearance order)"},
    {"nunique", py_nunique, METH_VARARGS, "nunique(col, dropna=True) -> int"},
    {"value_counts", py_value_counts, METH_VARARGS,
     "value_counts(col, sort, ascending, dropna, normalize) -> (values, counts)"},
    {"duplicated", py_duplicated, METH_VARARGS,
     "duplicated(table, keys=None, keep='first') -> bool Column"},
    {"drop_duplicates", py_drop_duplicates, METH_VARARGS,
     "drop_duplicates(table, keys=None, keep='first') -> Table"},
    {"isin", py_isin, METH_VARARGS, "isin(col, values) -> bool Column"},
    {NULL, NULL, 0, NULL},
};
