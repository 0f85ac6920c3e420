/*
 * list.c -- the module-level functions of zambezi._core that make list
 * columns (Arrow large_list) from Python objects (zbpy_list_methods):
 *
 *   list_from_sequence(seq, name=None): one C loop over a sequence of
 *     lists / tuples / 1-D arrays and missing values (None, NaN, pd.NA),
 *     flattening the elements into one child (typed as column_from_sequence
 *     types a flat list; elements that are lists themselves make the child
 *     a list column, built the same way: a list of lists) and recording the
 *     offsets and nulls;
 *   list_from_parts(offsets, child, mask=None): a list column over an
 *     existing child column from int64 offsets (n + 1 of them, into the
 *     child's rows) and an optional bool mask (True = null list);
 *   list_join(col, sep): zb_list_join (pandas' str.join of lists);
 *   list_repr(col): zb_list_repr (each list's Python text, for to_csv).
 */
#include "zbpy.h"

#include <math.h>
#include <string.h>

#include "zambezi/list.h"

PyObject *zbpy_column_from_sequence(PyObject *module, PyObject *args, PyObject *kwargs);

/* Whether o is a missing value: None, a float NaN, pd.NA or NaT. */
static int is_missing(PyObject *o) {
  if (o == Py_None) return 1;
  if (PyFloat_Check(o)) return isnan(PyFloat_AS_DOUBLE(o));
  const char *tn = Py_TYPE(o)->tp_name;
  return strcmp(tn, "NAType") == 0 || strcmp(tn, "NaTType") == 0;
}

/* Make a list column over child from offsets[0, n] and valid (NULL: no
 * nulls; else 1 = valid per row); consumes nothing. */
static PyObject *make_list(zbpy_state *st, const int64_t *offsets, const uint8_t *valid,
                           int64_t n, zb_column *child) {
  zb_error err;
  err.message[0] = '\0';
  zb_buffer *ob = NULL, *vb = NULL;
  zb_column *col = NULL;
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_buffer_new(ZB_CPU, (n + 1) * 8, &ob, &err);
  if (s == ZB_OK) memcpy(ob->data, offsets, (size_t)(n + 1) * 8);
  if (s == ZB_OK && valid != NULL) {
    s = zb_buffer_new_zeroed(ZB_CPU, (n + 7) / 8, &vb, &err);
    for (int64_t i = 0; s == ZB_OK && i < n; i++)
      if (valid[i]) zb_bit_set((uint8_t *)vb->data, i, true);
  }
  if (s == ZB_OK) s = zb_column_make_list(n, 0, vb, ob, child, -1, &col, &err);
  zb_buffer_release(ob);
  zb_buffer_release(vb);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  return zbpy_column_wrap(st, col);
}

static int is_listlike(PyObject *o) {
  return PyList_Check(o) || PyTuple_Check(o) || strcmp(Py_TYPE(o)->tp_name, "numpy.ndarray") == 0;
}

/* Record whether element e of row i is a list (the rows' elements then
 * make a list of lists) or a value; a column mixing both is refused,
 * naming the rows.  Missing elements are either. */
static int note_kind(zbpy_state *st, PyObject *e, Py_ssize_t i, Py_ssize_t *saw_list,
                     Py_ssize_t *saw_scalar) {
  if (is_missing(e)) return 0;
  Py_ssize_t *mine = is_listlike(e) ? saw_list : saw_scalar;
  if (*mine < 0) *mine = i;
  if (*saw_list >= 0 && *saw_scalar >= 0) {
    PyErr_Format(st->DTypeError,
                 "the lists at index %zd and %zd mix lists and other values: the elements of "
                 "a list column are all lists (a list of lists) or all values",
                 *saw_list < *saw_scalar ? *saw_list : *saw_scalar,
                 *saw_list < *saw_scalar ? *saw_scalar : *saw_list);
    return -1;
  }
  return 0;
}

static PyObject *py_list_from_sequence(PyObject *module, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"seq", "name", NULL};
  zbpy_state *st = zbpy_module_state(module);
  PyObject *seq, *name = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:list_from_sequence", kwlist, &seq, &name))
    return NULL;
  PyObject *fast = PySequence_Fast(seq, "list_from_sequence: expected a sequence of lists");
  if (fast == NULL) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  PyObject **items = PySequence_Fast_ITEMS(fast);
  PyObject *flat = PyList_New(0), *result = NULL, *child = NULL;
  int64_t *offsets = (int64_t *)PyMem_Malloc((size_t)(n + 1) * sizeof(int64_t));
  uint8_t *valid = (uint8_t *)PyMem_Malloc((size_t)(n > 0 ? n : 1));
  int64_t nulls = 0;
  Py_ssize_t saw_list = -1, saw_scalar = -1; /* the first row whose elements are lists / not */
  if (flat == NULL) goto done;
  if (offsets == NULL || valid == NULL) {
    PyErr_NoMemory();
    goto done;
  }
  offsets[0] = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *o = items[i];
    valid[i] = 1;
    if (is_missing(o)) {
      valid[i] = 0;
      nulls++;
    } else if (PyList_Check(o) || PyTuple_Check(o)) {
      PyObject *f = PySequence_Fast(o, "");
      if (f == NULL) goto done;
      Py_ssize_t m = PySequence_Fast_GET_SIZE(f);
      PyObject **e = PySequence_Fast_ITEMS(f);
      for (Py_ssize_t k = 0; k < m; k++) {
        if (note_kind(st, e[k], i, &saw_list, &saw_scalar) < 0 || PyList_Append(flat, e[k]) < 0) {
          Py_DECREF(f);
          goto done;
        }
      }
      Py_DECREF(f);
    } else if (strcmp(Py_TYPE(o)->tp_name, "numpy.ndarray") == 0) {
      PyObject *l = PyObject_CallMethod(o, "tolist", NULL);
      if (l == NULL) goto done;
      int bad = !PyList_Check(l);
      if (bad) {
        Py_DECREF(l);
        PyErr_Format(st->DTypeError, "the array at index %zd is 0-dimensional, not a list", i);
        goto done;
      }
      Py_ssize_t m = PyList_GET_SIZE(l);
      for (Py_ssize_t k = 0; k < m && !bad; k++)
        bad = note_kind(st, PyList_GET_ITEM(l, k), i, &saw_list, &saw_scalar) < 0;
      if (bad || PyList_SetSlice(flat, PyList_GET_SIZE(flat), PyList_GET_SIZE(flat), l) < 0) {
        Py_DECREF(l);
        goto done;
      }
      Py_DECREF(l);
    } else {
      PyErr_Format(st->DTypeError,
                   "the value at index %zd is a %s (%R), not a list: a list column holds "
                   "lists, tuples, 1-D arrays or missing values",
                   i, Py_TYPE(o)->tp_name, o);
      goto done;
    }
    offsets[i + 1] = (int64_t)PyList_GET_SIZE(flat);
  }
  {
    PyObject *cargs = PyTuple_Pack(1, flat);
    PyObject *ckw = cargs != NULL ? Py_BuildValue("{s:O}", "name", name) : NULL;
    if (ckw != NULL && saw_list >= 0) { /* a list of lists: the elements are a list column */
      if (Py_EnterRecursiveCall(" building a list of lists") == 0) {
        child = py_list_from_sequence(module, cargs, ckw);
        Py_LeaveRecursiveCall();
      }
    } else if (ckw != NULL) {
      child = zbpy_column_from_sequence(module, cargs, ckw);
    }
    Py_XDECREF(cargs);
    Py_XDECREF(ckw);
  }
  if (child == NULL) goto done;
  result = make_list(st, offsets, nulls > 0 ? valid : NULL, (int64_t)n,
                     ((zbpy_column *)child)->col);
done:
  Py_XDECREF(child);
  Py_XDECREF(flat);
  Py_DECREF(fast);
  PyMem_Free(offsets);
  PyMem_Free(valid);
  return result;
}

static PyObject *py_list_from_parts(PyObject *module, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"offsets", "child", "mask", NULL};
  zbpy_state *st = zbpy_module_state(module);
  PyObject *offs_o, *child_o, *mask_o = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O:list_from_parts", kwlist, &offs_o,
                                   &child_o, &mask_o))
    return NULL;
  zb_column *child = zbpy_arg_column(st, child_o, "list_from_parts");
  if (child == NULL) return NULL;
  Py_buffer ob, mb;
  if (PyObject_GetBuffer(offs_o, &ob, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
  PyObject *result = NULL;
  int have_mask = 0;
  if (ob.itemsize != 8 || ob.format == NULL || (strcmp(ob.format, "q") != 0 &&
                                                strcmp(ob.format, "l") != 0) ||
      ob.len < 8) {
    PyErr_SetString(PyExc_TypeError, "list_from_parts: offsets must be a non-empty int64 array");
    goto done;
  }
  int64_t n = (int64_t)(ob.len / 8) - 1;
  uint8_t *valid = NULL;
  if (mask_o != Py_None) {
    if (PyObject_GetBuffer(mask_o, &mb, PyBUF_C_CONTIGUOUS) < 0) goto done;
    have_mask = 1;
    if (mb.len != n) {
      PyErr_Format(PyExc_ValueError, "list_from_parts: mask has %zd values for %lld rows",
                   mb.len, (long long)n);
      goto done;
    }
    valid = (uint8_t *)PyMem_Malloc((size_t)(n > 0 ? n : 1));
    if (valid == NULL) {
      PyErr_NoMemory();
      goto done;
    }
    for (int64_t i = 0; i < n; i++) valid[i] = ((const uint8_t *)mb.buf)[i] == 0;
  }
  result = make_list(st, (const int64_t *)ob.buf, valid, n, child);
  PyMem_Free(valid);
done:
  if (have_mask) PyBuffer_Release(&mb);
  PyBuffer_Release(&ob);
  return result;
}

static PyObject *py_list_join(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *col_o;
  const char *sep;
  Py_ssize_t sep_len;
  if (!PyArg_ParseTuple(args, "Os#:list_join", &col_o, &sep, &sep_len)) return NULL;
  zb_column *col = zbpy_arg_column(st, col_o, "str.join");
  if (col == NULL) return NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_column *out = NULL;
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_list_join(col, sep, (int64_t)sep_len, &out, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  return zbpy_column_wrap(st, out);
}

static PyObject *py_list_repr(PyObject *module, PyObject *col_o) {
  zbpy_state *st = zbpy_module_state(module);
  zb_column *col = zbpy_arg_column(st, col_o, "list_repr");
  if (col == NULL) return NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_column *out = NULL;
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_list_repr(col, &out, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  return zbpy_column_wrap(st, out);
}

PyMethodDef zbpy_list_methods[] = {
    {"list_repr", py_list_repr, METH_O,
     "list_repr(col) -> string Column: each list as Python's repr of it (to_csv)"},
    {"list_join", py_list_join, METH_VARARGS,
     "list_join(col, sep) -> string Column: each list of strings joined with sep"},
    {"list_from_sequence", (PyCFunction)(void (*)(void))py_list_from_sequence,
     METH_VARARGS | METH_KEYWORDS,
     "list_from_sequence(seq, name=None) -> Column of dtype list<T>"},
    {"list_from_parts", (PyCFunction)(void (*)(void))py_list_from_parts,
     METH_VARARGS | METH_KEYWORDS,
     "list_from_parts(offsets, child, mask=None) -> Column of dtype list<T>"},
    {NULL, NULL, 0, NULL},
};
