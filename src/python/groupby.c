/*
 * groupby.c -- the module-level functions of zambezi._core for group-by
 * (zambezi/groupby.h): groupby, groupby_ids, groupby_segments, group_ids,
 * group_order, group_cumcount and group_lag.  They are added to the module by
 * module_exec (zbpy_groupby_methods).
 *
 * Each converts its arguments once (key indices, aggregation tuples),
 * releases the GIL around the engine call, and maps a failed status to the
 * ZambeziError hierarchy.
 */
#include "zbpy.h"

#include <string.h>

#include "zambezi/groupby.h"

/* The aggregation tuples of aggs_o ((op name, column, column2, ddof, q,
 * count_na, output name)) -> *out (PyMem; names borrowed from *fast, which
 * the caller releases after the engine call).  -1 with an exception. */
static int parse_aggs(zbpy_state *st, PyObject *aggs_o, PyObject **fast, zb_agg **out,
                      Py_ssize_t *n_out) {
  *out = NULL;
  *fast = PySequence_Fast(aggs_o, "aggs must be a sequence of tuples");
  if (*fast == NULL) return -1;
  Py_ssize_t n_aggs = PySequence_Fast_GET_SIZE(*fast);
  zb_agg *aggs = (zb_agg *)PyMem_Calloc((size_t)(n_aggs > 0 ? n_aggs : 1), sizeof(zb_agg));
  if (aggs == NULL) {
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < n_aggs; i++) {
    const char *op_name, *name;
    long long column, column2, ddof;
    double q;
    int count_na;
    if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(*fast, i), "sLLLdps:groupby aggregation",
                          &op_name, &column, &column2, &ddof, &q, &count_na, &name)) {
      PyMem_Free(aggs);
      return -1;
    }
    zb_error err;
    err.message[0] = '\0';
    zb_status s = zb_agg_op_from_name(op_name, &aggs[i].op, &err);
    if (s != ZB_OK) {
      PyMem_Free(aggs);
      zbpy_raise(st, s, &err);
      return -1;
    }
    aggs[i].column = column;
    aggs[i].column2 = column2;
    aggs[i].ddof = ddof;
    aggs[i].q = q;
    aggs[i].count_na = count_na != 0;
    aggs[i].name = name; /* borrowed from the tuple, alive while fast is */
  }
  *out = aggs;
  *n_out = n_aggs;
  return 0;
}

/* groupby(table, keys, dropna, sort, aggs, keep_ids=False) -> Table, or
 * with keep_ids (Table, ids Column, n_groups): the rows' group ids from
 * the same grouping, for groupby_ids.  aggs: a list of (op name, column,
 * column2, ddof, q, count_na, output name) tuples. */
static PyObject *py_groupby(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *to, *keys_o, *aggs_o;
  int dropna, sort, keep_ids = 0;
  if (!PyArg_ParseTuple(args, "OOppO|p:groupby", &to, &keys_o, &dropna, &sort, &aggs_o,
                        &keep_ids))
    return NULL;
  zb_table *t = zbpy_arg_table(st, to, "groupby");
  if (t == NULL) return NULL;
  int64_t *keys = NULL;
  int64_t n_keys = 0;
  if (zbpy_int64_array(keys_o, "keys must be a sequence of column indices", &keys, &n_keys) < 0)
    return NULL;
  PyObject *fast = NULL, *result = NULL;
  zb_agg *aggs = NULL;
  Py_ssize_t n_aggs = 0;
  if (parse_aggs(st, aggs_o, &fast, &aggs, &n_aggs) < 0) goto done;
  zb_table *out = NULL;
  zb_column *ids = NULL;
  int64_t n_groups = 0;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  if (keep_ids)
    s = zb_table_groupby_keep_ids(t, n_keys, keys, dropna != 0, sort != 0, n_aggs, aggs, &out,
                                  &ids, &n_groups, &err);
  else
    s = zb_table_groupby(t, n_keys, keys, dropna != 0, sort != 0, n_aggs, aggs, &out, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto done;
  }
  result = zbpy_table_wrap(st, out);
  if (keep_ids) {
    PyObject *ic = zbpy_column_wrap(st, ids);
    if (result == NULL || ic == NULL) {
      Py_XDECREF(result);
      Py_XDECREF(ic);
      result = NULL;
      goto done;
    }
    result = Py_BuildValue("(NNL)", result, ic, (long long)n_groups);
  }
done:
  PyMem_Free(aggs);
  PyMem_Free(keys);
  Py_XDECREF(fast);
  return result;
}

/* The aggregations aggs_o over table `to` by the groups column `co` gives:
 * the offsets of runs of consecutive rows (segments,
 * zb_table_groupby_segments) or group ids in [0, n_groups)
 * (zb_table_groupby_ids).  `what` names the call and `col_what` the
 * column in errors. */
static PyObject *groupby_by_column(PyObject *module, PyObject *to, PyObject *co, bool segments,
                                   long long n_groups, PyObject *aggs_o, const char *what,
                                   const char *col_what) {
  zbpy_state *st = zbpy_module_state(module);
  zb_table *t = zbpy_arg_table(st, to, what);
  if (t == NULL) return NULL;
  if (!PyObject_TypeCheck(co, st->column_type))
    return PyErr_Format(PyExc_TypeError, "%s: expected a zambezi._core.Column of %s, not %s",
                        what, col_what, Py_TYPE(co)->tp_name);
  PyObject *fast = NULL, *result = NULL;
  zb_agg *aggs = NULL;
  Py_ssize_t n_aggs = 0;
  if (parse_aggs(st, aggs_o, &fast, &aggs, &n_aggs) < 0) goto done;
  zb_table *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  const zb_column *c = ((zbpy_column *)co)->col;
  ZBPY_BEGIN_ENGINE
  s = segments ? zb_table_groupby_segments(t, c, n_aggs, aggs, &out, &err)
                   : zb_table_groupby_ids(t, c, n_groups, n_aggs, aggs, &out, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto done;
  }
  result = zbpy_table_wrap(st, out);
done:
  PyMem_Free(aggs);
  Py_XDECREF(fast);
  return result;
}

/* groupby_segments(table, offsets, aggs) -> Table: one column per
 * aggregation over the groups of consecutive rows [offsets[g],
 * offsets[g + 1]) (zb_table_groupby_segments). */
static PyObject *py_groupby_segments(PyObject *module, PyObject *args) {
  PyObject *to, *co, *aggs_o;
  if (!PyArg_ParseTuple(args, "OOO:groupby_segments", &to, &co, &aggs_o)) return NULL;
  return groupby_by_column(module, to, co, true, 0, aggs_o, "groupby_segments", "offsets");
}

/* groupby_ids(table, ids, n_groups, aggs) -> Table: one column per
 * aggregation (no keys) over the groups the ids give (as group_ids or
 * groupby(..., keep_ids=True) made them). */
static PyObject *py_groupby_ids(PyObject *module, PyObject *args) {
  PyObject *to, *co, *aggs_o;
  long long n_groups;
  if (!PyArg_ParseTuple(args, "OOLO:groupby_ids", &to, &co, &n_groups, &aggs_o)) return NULL;
  return groupby_by_column(module, to, co, false, n_groups, aggs_o, "groupby_ids", "ids");
}

/* group_ids(table, keys, dropna, sort) -> (Column, n_groups) */
static PyObject *py_group_ids(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *to, *keys_o;
  int dropna, sort;
  if (!PyArg_ParseTuple(args, "OOpp:group_ids", &to, &keys_o, &dropna, &sort)) return NULL;
  zb_table *t = zbpy_arg_table(st, to, "group_ids");
  if (t == NULL) return NULL;
  int64_t *keys = NULL;
  int64_t n_keys = 0;
  if (zbpy_int64_array(keys_o, "keys must be a sequence of column indices", &keys, &n_keys) < 0)
    return NULL;
  zb_column *out = NULL;
  int64_t n_groups = 0;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_table_group_ids(t, n_keys, keys, dropna != 0, sort != 0, &out, &n_groups, &err);
  ZBPY_END_ENGINE
  PyMem_Free(keys);
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  PyObject *c = zbpy_column_wrap(st, out);
  if (c == NULL) return NULL;
  return Py_BuildValue("(NL)", c, (long long)n_groups);
}

/* group_cumcount(ids, n_groups, ascending) -> Column */
static PyObject *py_group_cumcount(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co;
  long long n_groups;
  int ascending;
  if (!PyArg_ParseTuple(args, "OLp:group_cumcount", &co, &n_groups, &ascending)) return NULL;
  if (!PyObject_TypeCheck(co, st->column_type))
    return PyErr_Format(PyExc_TypeError, "group_cumcount: expected a zambezi._core.Column, "
                        "not %s", Py_TYPE(co)->tp_name);
  zb_column *col = ((zbpy_column *)co)->col;
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_column_group_cumcount(col, n_groups, ascending != 0, &out, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  return zbpy_column_wrap(st, out);
}

/* group_moment(col, ids | None, n_groups, "skew" | "kurt", skipna) -> float64 Column */
static PyObject *py_group_moment(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co, *io;
  long long n_groups;
  const char *name;
  int skipna = 1;
  if (!PyArg_ParseTuple(args, "OOLsp:group_moment", &co, &io, &n_groups, &name, &skipna))
    return NULL;
  zb_moment_op op;
  if (strcmp(name, "skew") == 0) {
    op = ZB_MOMENT_SKEW;
  } else if (strcmp(name, "kurt") == 0) {
    op = ZB_MOMENT_KURT;
  } else {
    return PyErr_Format(st->InvalidValueError, "group_moment: expected 'skew' or 'kurt', "
                        "not '%s'", name);
  }
  zb_column *col = zbpy_arg_column(st, co, "group_moment");
  if (col == NULL) return NULL;
  zb_column *ids = NULL; /* None: the whole column, one group */
  if (io != Py_None && (ids = zbpy_arg_column(st, io, "group_moment")) == NULL) return NULL;
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_column_group_moment(col, ids, n_groups, op, skipna != 0, &out, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  return zbpy_column_wrap(st, out);
}

/* group_lag(ids, n_groups, periods) -> Column */
static PyObject *py_group_lag(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co;
  long long n_groups, periods;
  if (!PyArg_ParseTuple(args, "OLL:group_lag", &co, &n_groups, &periods)) return NULL;
  zb_column *col = zbpy_arg_column(st, co, "group_lag");
  if (col == NULL) return NULL;
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_column_group_lag(col, n_groups, periods, &out, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  return zbpy_column_wrap(st, out);
}

/* group_order(ids, n_groups) -> (order, sorted_ids): the rows by group
 * (null ids left out) and their ids, from one counting sort
 * (zb_column_group_order). */
static PyObject *py_group_order(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co;
  long long n_groups;
  if (!PyArg_ParseTuple(args, "OL:group_order", &co, &n_groups)) return NULL;
  zb_column *col = zbpy_arg_column(st, co, "group_order");
  if (col == NULL) return NULL;
  zb_column *order = NULL, *ids = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_column_group_order(col, n_groups, &order, &ids, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  PyObject *a = zbpy_column_wrap(st, order);
  PyObject *b = zbpy_column_wrap(st, ids);
  if (a == NULL || b == NULL) {
    Py_XDECREF(a);
    Py_XDECREF(b);
    return NULL;
  }
  return Py_BuildValue("(NN)", a, b);
}

PyMethodDef zbpy_groupby_methods[] = {
    {"groupby", py_groupby, METH_VARARGS,
     "groupby(table, keys, dropna, sort, aggs, keep_ids=False) -> Table: one row per group, "
     "the key columns then one column per (op, column, column2, ddof, q, count_na, name) "
     "aggregation; keep_ids: (Table, ids Column, n_groups)."},
    {"groupby_segments", py_groupby_segments, METH_VARARGS,
     "groupby_segments(table, offsets, aggs) -> Table: one column per aggregation over "
     "the groups of consecutive rows [offsets[g], offsets[g + 1])."},
    {"groupby_ids", py_groupby_ids, METH_VARARGS,
     "groupby_ids(table, ids, n_groups, aggs) -> Table: one column per aggregation over "
     "the groups of precomputed ids (groupby(..., keep_ids=True), group_ids)."},
    {"group_ids", py_group_ids, METH_VARARGS,
     "group_ids(table, keys, dropna, sort) -> (Column, n_groups): each row's group (null "
     "where dropped), numbered like groupby's rows."},
    {"group_moment", py_group_moment, METH_VARARGS,
     "group_moment(col, ids, n_groups, 'skew' | 'kurt', skipna) -> float64 Column: each "
     "group's skewness or kurtosis, as pandas (null: too few values or no spread)."},
    {"group_cumcount", py_group_cumcount, METH_VARARGS,
     "group_cumcount(ids, n_groups, ascending) -> Column: each row's position in its group."},
    {"group_order", py_group_order, METH_VARARGS,
     "group_order(ids, n_groups) -> (order, sorted_ids): the rows by group then row (null "
     "ids left out) and their ids, from one counting sort."},
    {"group_lag", py_group_lag, METH_VARARGS,
     "group_lag(ids, n_groups, periods) -> Column: the row periods before each row in its "
     "group (after it when negative), null where none."},
    {NULL, NULL, 0, NULL},
};
