/*
 * reshape.c -- the module-level functions of zambezi._core for reshaping
 * (zambezi/reshape.h): one_hot (get_dummies) and repeat (melt).  They are
 * added to the module by module_exec (zbpy_reshape_methods).  Each
 * releases the GIL around the engine call and maps a failed status to the
 * ZambeziError hierarchy.
 */
#include "zbpy.h"

#include "zambezi/reshape.h"

/* one_hot(codes, n_codes) -> Table */
static PyObject *py_one_hot(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co;
  long long k;
  if (!PyArg_ParseTuple(args, "OL:one_hot", &co, &k)) return NULL;
  zb_column *col = zbpy_arg_column(st, co, "one_hot");
  if (col == NULL) return NULL;
  zb_table *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_one_hot(col, k, &out, &err));
  return zbpy_table_result(st, s, &err, out);
}

/* repeat(col, times) -> Column */
static PyObject *py_repeat(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *co;
  long long times;
  if (!PyArg_ParseTuple(args, "OL:repeat", &co, &times)) return NULL;
  zb_column *col = zbpy_arg_column(st, co, "repeat");
  if (col == NULL) return NULL;
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_column_repeat(col, times, &out, &err));
  return zbpy_column_result(st, s, &err, out);
}

PyMethodDef zbpy_reshape_methods[] = {
    {"one_hot", py_one_hot, METH_VARARGS,
     "one_hot(codes, n_codes) -> Table: n_codes bool columns '0'.., column j true where the "
     "int64 code is j (null or negative: none)."},
    {"repeat", py_repeat, METH_VARARGS,
     "repeat(col, times) -> Column: each row repeated times times in a row (np.repeat)."},
    {NULL, NULL, 0, NULL},
};
