/*
 * table.c -- the heap type _core.Table: one engine zb_table (named columns
 * of one length on one device).  Selections and slices share buffers; the
 * GIL is released around every engine call.
 */
#include "zbpy.h"

#include <string.h>

PyObject *zbpy_table_wrap(zbpy_state *st, zb_table *table) {
  zbpy_table *t = PyObject_New(zbpy_table, st->table_type);
  if (t == NULL) {
    zb_table_release(table);
    return NULL;
  }
  t->table = table;
  return (PyObject *)t;
}

#define TBL(self) (((zbpy_table *)(self))->table)

static void table_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  zb_table_release(TBL(self));
  PyObject_Free(self);
  Py_DECREF(tp);
}

static PyObject *table_get_names(PyObject *self, void *c) {
  const zb_table *t = TBL(self);
  PyObject *list = PyList_New((Py_ssize_t)t->num_columns);
  if (list == NULL) return NULL;
  for (int64_t i = 0; i < t->num_columns; i++) {
    PyObject *s = PyUnicode_FromString(t->names[i]);
    if (s == NULL) {
      Py_DECREF(list);
      return NULL;
    }
    PyList_SET_ITEM(list, (Py_ssize_t)i, s);
  }
  return list;
}

static PyObject *table_get_num_rows(PyObject *self, void *c) {
  return PyLong_FromLongLong(TBL(self)->num_rows);
}
static PyObject *table_get_num_columns(PyObject *self, void *c) {
  return PyLong_FromLongLong(TBL(self)->num_columns);
}
static PyObject *table_get_device(PyObject *self, void *c) {
  return zbpy_device_str(zb_table_device(TBL(self)));
}

static Py_ssize_t table_len(PyObject *self) { return (Py_ssize_t)TBL(self)->num_rows; }

static PyObject *table_column(PyObject *self, PyObject *arg) {
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  const zb_table *t = TBL(self);
  int64_t i;
  if (PyUnicode_Check(arg)) {
    const char *name = PyUnicode_AsUTF8(arg);
    if (name == NULL) return NULL;
    i = zb_table_find(t, name);
    if (i < 0) {
      PyErr_Format(st->ColumnNotFoundError, "no column named '%s'", name);
      return NULL;
    }
  } else {
    long long v = PyLong_AsLongLong(arg);
    if (v == -1 && PyErr_Occurred()) return NULL;
    if (v < 0) v += t->num_columns;
    if (v < 0 || v >= t->num_columns) {
      PyErr_Format(st->ZambeziIndexError, "column index %R is out of range for %lld columns",
                   arg, (long long)t->num_columns);
      return NULL;
    }
    i = v;
  }
  return zbpy_column_wrap(st, zb_column_retain(t->columns[i]));
}

static PyObject *table_select(PyObject *self, PyObject *arg) {
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  const zb_table *t = TBL(self);
  PyObject *fast = PySequence_Fast(arg, "select(indices): indices must be a sequence");
  if (fast == NULL) return NULL;
  PyObject *result = NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  size_t nb = (size_t)(n > 0 ? n : 1) * sizeof(int64_t);
  int64_t *idx = (int64_t *)zb_malloc(nb);
  if (idx == NULL) {
    zbpy_raise_nomem(st, "column indices", nb);
    goto error;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *o = PySequence_Fast_GET_ITEM(fast, i);
    if (PyUnicode_Check(o)) {
      const char *name = PyUnicode_AsUTF8(o);
      if (name == NULL) goto error;
      idx[i] = zb_table_find(t, name);
      if (idx[i] < 0) {
        PyErr_Format(st->ColumnNotFoundError, "no column named '%s'", name);
        goto error;
      }
    } else {
      long long v = PyLong_AsLongLong(o);
      if (v == -1 && PyErr_Occurred()) goto error;
      idx[i] = v;
    }
  }
  zb_table *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_table_select(t, n, idx, &out, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto error;
  }
  result = zbpy_table_wrap(st, out);
error:
  zb_free(idx);
  Py_DECREF(fast);
  return result;
}

static PyObject *table_slice(PyObject *self, PyObject *args) {
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  long long start, length;
  if (!PyArg_ParseTuple(args, "LL:slice", &start, &length)) return NULL;
  zb_table *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  zb_table *t = TBL(self);
  ZBPY_BEGIN_ENGINE
  s = zb_table_slice(t, start, length, &out, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  return zbpy_table_wrap(st, out);
}

static PyObject *table_to_device(PyObject *self, PyObject *arg) {
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  zb_device dev;
  if (zbpy_parse_device(st, arg, &dev) < 0) return NULL;
  zb_table *t = TBL(self);
  zb_table *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_table_to_device(t, dev, &out, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  return zbpy_table_wrap(st, out);
}

/* metadata: None, or bytes of schema metadata in the C Data Interface's
 * encoding (zambezi._arrow_index builds them). */
static int metadata_arg(PyObject *obj, const char **data, Py_ssize_t *size) {
  *data = NULL;
  *size = 0;
  if (obj == Py_None) return 0;
  if (!PyBytes_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "metadata must be bytes or None, not %s",
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  *data = PyBytes_AS_STRING(obj);
  *size = PyBytes_GET_SIZE(obj);
  return 0;
}

static PyObject *table_arrow_c_schema(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"metadata", NULL};
  PyObject *metadata = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:__arrow_c_schema__", kwlist, &metadata))
    return NULL;
  const char *md;
  Py_ssize_t md_size;
  if (metadata_arg(metadata, &md, &md_size) < 0) return NULL;
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  return zbpy_table_arrow_schema(st, TBL(self), md, md_size);
}

static PyObject *table_arrow_c_array(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"requested_schema", NULL};
  PyObject *requested = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:__arrow_c_array__", kwlist, &requested))
    return NULL;
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  return zbpy_table_arrow_array(st, TBL(self));
}

static PyObject *table_arrow_c_stream(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"requested_schema", "metadata", NULL};
  PyObject *requested = Py_None, *metadata = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO:__arrow_c_stream__", kwlist, &requested,
                                   &metadata))
    return NULL;
  const char *md;
  Py_ssize_t md_size;
  if (metadata_arg(metadata, &md, &md_size) < 0) return NULL;
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  return zbpy_table_arrow_stream(st, TBL(self), md, md_size);
}

static PyObject *table_get_nbytes(PyObject *self, void *c) {
  return PyLong_FromLongLong(zb_table_nbytes(TBL(self)));
}

static PyObject *table_repr(PyObject *self) {
  const zb_table *t = TBL(self);
  return PyUnicode_FromFormat("<zambezi._core.Table rows=%lld columns=%lld>",
                              (long long)t->num_rows, (long long)t->num_columns);
}

static PyGetSetDef table_getset[] = {
    {"names", table_get_names, NULL, "column names (list of str)", NULL},
    {"num_rows", table_get_num_rows, NULL, "number of rows", NULL},
    {"num_columns", table_get_num_columns, NULL, "number of columns", NULL},
    {"device", table_get_device, NULL, "'cpu' or 'cuda:N'", NULL},
    {"nbytes", table_get_nbytes, NULL, "bytes the columns occupy (zb_table_nbytes)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef table_methods[] = {
    {"column", table_column, METH_O, "column(i or name) -> Column"},
    {"select", table_select, METH_O, "select(indices or names) -> Table (zero-copy)"},
    {"slice", table_slice, METH_VARARGS, "slice(start, length) -> Table (zero-copy)"},
    {"to_device", table_to_device, METH_O, "to_device('cpu' | 'cuda' | 'cuda:N') -> Table"},
    {"__arrow_c_schema__", (PyCFunction)(void (*)(void))table_arrow_c_schema,
     METH_VARARGS | METH_KEYWORDS,
     "Arrow PyCapsule interface: the schema (a struct); metadata=bytes adds schema "
     "metadata (C Data Interface encoding)."},
    {"__arrow_c_array__", (PyCFunction)(void (*)(void))table_arrow_c_array,
     METH_VARARGS | METH_KEYWORDS, "Arrow PyCapsule interface: one record batch."},
    {"__arrow_c_stream__", (PyCFunction)(void (*)(void))table_arrow_c_stream,
     METH_VARARGS | METH_KEYWORDS, "Arrow PyCapsule interface: a stream capsule; metadata=bytes adds schema metadata "
     "(C Data Interface encoding)."},
    {"__reduce_ex__", zbpy_table_reduce_ex, METH_O,
     "Pickle support: the names and the columns (which pickle their buffers)."},
    {"__copy__", zbpy_same_object, METH_NOARGS, "The table itself (it is immutable)."},
    {"__deepcopy__", zbpy_same_object, METH_O, "The table itself (it is immutable)."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot table_slots[] = {
    {Py_tp_dealloc, (void *)table_dealloc},
    {Py_tp_repr, (void *)table_repr},
    {Py_tp_getset, table_getset},
    {Py_tp_methods, table_methods},
    {Py_sq_length, (void *)table_len},
    {Py_tp_doc, (void *)"An immutable engine table: named columns on one device."},
    {0, NULL},
};

PyType_Spec zbpy_table_spec = {
    .name = "zambezi._core.Table",
    .basicsize = sizeof(zbpy_table),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = table_slots,
};
