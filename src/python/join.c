/*
 * join.c -- the module-level join function of zambezi._core
 * (zambezi/join.h), added to the module by module_exec
 * (zbpy_join_methods):
 *
 *   join_indices(left, right, left_keys, right_keys, how, sort=False,
 *                nulls_match=True)
 *       -> (left_idx Column, right_idx Column or None)
 *
 * left/right are _core.Table objects, the keys sequences of column indices
 * (empty for how="cross"); nulls_match: null keys match each other, as in
 * pandas (False: they match nothing).  The GIL is released around the
 * engine call.
 */
#include "zbpy.h"

#include "zambezi/join.h"

/* A sequence of column indices into a PyMem array (*n may be 0). */
static int parse_indices(PyObject *o, int64_t **out, int64_t *n) {
  return zbpy_int64_array(o, "join keys must be a sequence of column indices", out, n);
}

static PyObject *py_join_indices(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *lo, *ro, *lko, *rko;
  const char *how_name;
  int sort = 0, nulls_match = 1;
  if (!PyArg_ParseTuple(args, "OOOOs|pp:join_indices", &lo, &ro, &lko, &rko, &how_name, &sort,
                        &nulls_match))
    return NULL;
  zb_table *l = zbpy_arg_table(st, lo, "join_indices"), *r = zbpy_arg_table(st, ro, "join_indices");
  if (l == NULL || r == NULL) return NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_join_how how;
  zb_status s = zb_join_how_from_name(how_name, &how, &err);
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  int64_t *lk = NULL, *rk = NULL, nl = 0, nr = 0;
  if (parse_indices(lko, &lk, &nl) < 0) return NULL;
  if (parse_indices(rko, &rk, &nr) < 0) {
    PyMem_Free(lk);
    return NULL;
  }
  if (nl != nr) {
    PyMem_Free(lk);
    PyMem_Free(rk);
    return PyErr_Format(PyExc_ValueError,
                        "join_indices: %lld left keys but %lld right keys", (long long)nl,
                        (long long)nr);
  }
  zb_column *li = NULL, *ri = NULL;
  ZBPY_BEGIN_ENGINE
  s = zb_table_join_indices(l, r, nl, lk, rk, how, sort != 0, nulls_match != 0, &li, &ri, &err);
  ZBPY_END_ENGINE
  PyMem_Free(lk);
  PyMem_Free(rk);
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  PyObject *pl = zbpy_column_wrap(st, li);
  if (pl == NULL) {
    zb_column_release(ri);
    return NULL;
  }
  PyObject *pr = Py_None;
  if (ri != NULL) {
    pr = zbpy_column_wrap(st, ri);
    if (pr == NULL) {
      Py_DECREF(pl);
      return NULL;
    }
  } else {
    Py_INCREF(pr);
  }
  PyObject *res = PyTuple_Pack(2, pl, pr);
  Py_DECREF(pl);
  Py_DECREF(pr);
  return res;
}

PyMethodDef zbpy_join_methods[] = {
    {"join_indices", py_join_indices, METH_VARARGS,
     "join_indices(left, right, left_keys, right_keys, how, sort=False, nulls_match=True) -> "
     "(left_idx, right_idx or None): int64 row-index columns of the join (null: no row on "
     "that side); nulls_match: null keys match each other, as in pandas"},
    {NULL, NULL, 0, NULL},
};
