/*
 * parquet.c -- the Parquet reader's binding: _core.read_parquet(source,
 * columns=None) -> (table, pandas metadata str or None), the source being
 * a path (str or bytes) or a bytes-like object holding a whole file.  The
 * GIL is released while the engine reads.
 */
#include <string.h>

#include "zbpy.h"
#include "zambezi/io.h"

static PyObject *zbpy_read_parquet(PyObject *module, PyObject *args, PyObject *kwargs) {
  zbpy_state *st = zbpy_module_state(module);
  static char *kwlist[] = {"source", "columns", NULL};
  PyObject *src, *columns = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:read_parquet", kwlist, &src, &columns))
    return NULL;
  PyObject *path = NULL, *seq = NULL, *result = NULL;
  const char **names = NULL;
  Py_buffer view;
  int is_buf = 0;
  char *meta = NULL;
  zb_table *t = NULL;
  zb_parquet_options o;
  zb_parquet_options_init(&o);
  o.pandas_metadata = &meta;
  if (columns != Py_None) {
    seq = PySequence_Fast(columns, "read_parquet: columns must be a list of names");
    if (seq == NULL) goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    names = (const char **)PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof(char *));
    if (names == NULL) {
      PyErr_NoMemory();
      goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
      PyObject *it = PySequence_Fast_GET_ITEM(seq, i);
      if (!PyUnicode_Check(it)) {
        PyErr_Format(st->InvalidValueError, "read_parquet: column names must be str, not %s",
                     Py_TYPE(it)->tp_name);
        goto done;
      }
      names[i] = PyUnicode_AsUTF8(it);
      if (names[i] == NULL) goto done;
    }
    o.columns = names;
    o.num_columns = (int64_t)n;
  }
  if (PyUnicode_Check(src) || PyBytes_Check(src)) {
    if (!PyUnicode_FSConverter(src, &path)) goto done;
  } else {
    if (PyObject_GetBuffer(src, &view, PyBUF_SIMPLE) < 0) goto done;
    is_buf = 1;
  }
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  if (is_buf) {
    const void *data = view.buf;
    int64_t size = (int64_t)view.len;
    ZBPY_BEGIN_ENGINE
    s = zb_parquet_read_buffer(data, size, "<buffer>", &o, &t, &err);
    ZBPY_END_ENGINE
  } else {
    const char *p = PyBytes_AS_STRING(path);
    ZBPY_BEGIN_ENGINE
    s = zb_parquet_read_file(p, &o, &t, &err);
    ZBPY_END_ENGINE
  }
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto done;
  }
  PyObject *tab = zbpy_table_wrap(st, t);
  t = NULL;
  if (tab == NULL) goto done;
  PyObject *m;
  if (meta != NULL) {
    m = PyUnicode_DecodeUTF8(meta, (Py_ssize_t)strlen(meta), "replace");
    if (m == NULL) {
      Py_DECREF(tab);
      goto done;
    }
  } else {
    m = Py_NewRef(Py_None);
  }
  result = Py_BuildValue("(NN)", tab, m);
done:
  zb_table_release(t);
  zb_free(meta);
  PyMem_Free(names);
  Py_XDECREF(seq);
  Py_XDECREF(path);
  if (is_buf) PyBuffer_Release(&view);
  return result;
}

static PyObject *zbpy_snappy_available(PyObject *module, PyObject *unused) {
  return PyBool_FromLong(zb_snappy_available());
}

PyMethodDef zbpy_parquet_methods[] = {
    {"read_parquet", (PyCFunction)(void (*)(void))zbpy_read_parquet, METH_VARARGS | METH_KEYWORDS,
     "read_parquet(source, columns=None) -> (table, pandas metadata or None)"},
    {"snappy_available", zbpy_snappy_available, METH_NOARGS,
     "Whether libsnappy could be loaded (snappy-compressed Parquet)."},
    {NULL, NULL, 0, NULL}};
