/*
 * window.c -- the bindings of the moving-window statistics
 * (zambezi/rolling.h): _core.rolling, and of resample's time bins
 * (zambezi/resample.h): _core.time_range and _core.time_bins, with the GIL
 * released around each engine call.
 */
#include "zbpy.h"

#include <string.h>

#include "zambezi/resample.h"
#include "zambezi/rolling.h"

static const char *const k_interp_names[ZB_INTERP_COUNT] = {"linear", "lower", "higher",
                                                            "nearest", "midpoint"};

/* rolling(col, op, window, min_periods, center, ddof, q, interpolation,
 * ids, n_groups[, other]) -> float64 Column; ids None (the whole column), an int64
 * Column of group ids, or (starts, ends), int64 Columns: each row's
 * window given; other: the float64 Column paired with col ("cov", "corr"). */
static PyObject *zbpy_rolling(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co, *ids_obj, *other_obj = Py_None;
  const char *name, *interp;
  long long window, min_periods, n_groups;
  int center, ddof;
  double q;
  if (!PyArg_ParseTuple(args, "OsLLpidsOL|O:rolling", &co, &name, &window, &min_periods,
                        &center, &ddof, &q, &interp, &ids_obj, &n_groups, &other_obj))
    return NULL;
  zb_column *col = zbpy_arg_column(st, co, "column"), *ids = NULL, *starts = NULL, *ends = NULL;
  if (col == NULL) return NULL;
  zb_column *other = NULL; /* cov, corr: the paired column */
  if (other_obj != Py_None && (other = zbpy_arg_column(st, other_obj, "other")) == NULL)
    return NULL;
  if (PyTuple_Check(ids_obj)) { /* (starts, ends): windows given */
    if (PyTuple_GET_SIZE(ids_obj) != 2) {
      PyErr_SetString(st->InvalidValueError, "rolling: window bounds are (starts, ends)");
      return NULL;
    }
    starts = zbpy_arg_column(st, PyTuple_GET_ITEM(ids_obj, 0), "window starts");
    if (starts == NULL) return NULL;
    ends = zbpy_arg_column(st, PyTuple_GET_ITEM(ids_obj, 1), "window ends");
    if (ends == NULL) return NULL;
  } else if (ids_obj != Py_None &&
             (ids = zbpy_arg_column(st, ids_obj, "group ids")) == NULL) {
    return NULL;
  }
  int op = -1;
  for (int k = 0; k < ZB_ROLL_OP_COUNT; k++)
    if (strcmp(name, zb_roll_op_name((zb_roll_op)k)) == 0) op = k;
  if (op < 0) {
    PyErr_Format(st->InvalidValueError, "rolling: unknown statistic '%s'", name);
    return NULL;
  }
  int how = -1;
  for (int k = 0; k < ZB_INTERP_COUNT; k++)
    if (strcmp(interp, k_interp_names[k]) == 0) how = k;
  if (how < 0) {
    PyErr_Format(st->InvalidValueError,
                 "rolling quantile: interpolation must be 'linear', 'lower', 'higher', "
                 "'nearest' or 'midpoint', not '%s'",
                 interp);
    return NULL;
  }
  zb_rolling_options opt = {(int64_t)window, (int64_t)min_periods, center != 0, (int32_t)ddof,
                            q, (zb_roll_interp)how};
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  if (other != NULL && ids == NULL)
    s = zb_column_rolling_pair(col, other, starts, ends, (zb_roll_op)op, &opt, &out, &err);
  else if (other != NULL)
    s = zb_error_set(&err, ZB_ENOTSUP, "rolling %s of group-by windows is not supported",
                     name);
  else if (starts != NULL)
    s = zb_column_rolling_bounds(col, starts, ends, (zb_roll_op)op, &opt, &out, &err);
  else if (ids != NULL)
    s = zb_column_group_rolling(col, ids, (int64_t)n_groups, (zb_roll_op)op, &opt, &out, &err);
  else
    s = zb_column_rolling(col, (zb_roll_op)op, &opt, &out, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  return zbpy_column_wrap(st, out);
}

/* time_range(col) -> (valid, lo, hi, sorted) */
static PyObject *zbpy_time_range(PyObject *module, PyObject *arg) {
  zbpy_state *st = zbpy_module_state(module);
  zb_column *col = zbpy_arg_column(st, arg, "time_range");
  if (col == NULL) return NULL;
  zb_time_range r;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_column_time_range(col, &r, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  return Py_BuildValue("(LLLO)", (long long)r.valid, (long long)r.lo, (long long)r.hi,
                       r.sorted ? Py_True : Py_False);
}

/* time_bins(col, scale, base, width, n_bins) -> (ids Column, runs) */
static PyObject *zbpy_time_bins(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co;
  long long scale, base, width, n_bins;
  if (!PyArg_ParseTuple(args, "OLLLL:time_bins", &co, &scale, &base, &width, &n_bins))
    return NULL;
  zb_column *col = zbpy_arg_column(st, co, "time_bins");
  if (col == NULL) return NULL;
  zb_column *out = NULL;
  int64_t runs = 0;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_column_time_bins(col, scale, base, width, n_bins, &out, &runs, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  PyObject *c = zbpy_column_wrap(st, out);
  if (c == NULL) return NULL;
  return Py_BuildValue("(NL)", c, (long long)runs);
}

PyMethodDef zbpy_window_methods[] = {
    {"rolling", zbpy_rolling, METH_VARARGS,
     "rolling(col, op, window, min_periods, center, ddof, q, interpolation, ids, n_groups"
     "[, other]) -> float64 Column: a moving-window statistic of a float64 column, per group "
     "when ids is int64 group ids, over given windows when ids is (starts, ends); cov and corr "
     "pair col with other"},
    {"time_range", zbpy_time_range, METH_O,
     "time_range(col) -> (valid, lo, hi, sorted): the non-null count, smallest and largest "
     "ticks of a timestamp or int64 column, and whether they never decrease in row order"},
    {"time_bins", zbpy_time_bins, METH_VARARGS,
     "time_bins(col, scale, base, width, n_bins) -> (ids, runs): each row's bin "
     "floor((t * scale - base) / width) as int64 group ids in [0, n_bins) (null for a null "
     "time), and the runs of equal bins"},
    {NULL, NULL, 0, NULL}};
