/*
 * ewm.c -- the binding of the exponentially weighted statistics
 * (zambezi/ewm.h): _core.ewm, with the GIL released around the engine
 * call.
 */
#include "zbpy.h"

#include <string.h>

#include "zambezi/ewm.h"

/* ewm(table, op, com, min_periods, adjust, ignore_na, bias, ids, n_groups,
 * times, halflife) -> Table of float64 columns; ids None or an int64
 * Column of group ids; times None or a float64 Column (mean only). */
static PyObject *zbpy_ewm(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *to, *ids_obj, *times_obj;
  const char *name;
  double com, halflife;
  long long min_periods, n_groups;
  int adjust, ignore_na, bias;
  if (!PyArg_ParseTuple(args, "OsdLpppOLOd:ewm", &to, &name, &com, &min_periods, &adjust,
                        &ignore_na, &bias, &ids_obj, &n_groups, &times_obj, &halflife))
    return NULL;
  zb_table *t = zbpy_arg_table(st, to, "table");
  if (t == NULL) return NULL;
  zb_column *ids = NULL, *times = NULL;
  if (ids_obj != Py_None && (ids = zbpy_arg_column(st, ids_obj, "group ids")) == NULL)
    return NULL;
  if (times_obj != Py_None && (times = zbpy_arg_column(st, times_obj, "times")) == NULL)
    return NULL;
  int op = -1;
  for (int k = 0; k < ZB_EWM_OP_COUNT; k++)
    if (strcmp(name, zb_ewm_op_name((zb_ewm_op)k)) == 0) op = k;
  if (op < 0) {
    PyErr_Format(st->InvalidValueError, "ewm: unknown statistic '%s'", name);
    return NULL;
  }
  zb_ewm_options opt = {com, (int64_t)min_periods, adjust != 0, ignore_na != 0, bias != 0,
                        halflife};
  zb_table *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_table_ewm(t, ids, (int64_t)n_groups, times, (zb_ewm_op)op, &opt, &out, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  return zbpy_table_wrap(st, out);
}

PyMethodDef zbpy_ewm_methods[] = {
    {"ewm", zbpy_ewm, METH_VARARGS,
     "ewm(table, op, com, min_periods, adjust, ignore_na, bias, ids, n_groups, times, "
     "halflife) -> Table: pandas' exponentially weighted statistic of every float64 column "
     "(cov / corr: of each pair of columns), per group when ids is int64 group ids"},
    {NULL, NULL, 0, NULL}};
