/*
 * ipc.c -- the Arrow IPC (Feather v2) reader's and writer's bindings:
 * _core.read_ipc(source, columns=None) -> (table, pandas metadata str or
 * None), the source a path (str or bytes) or a bytes-like object holding a
 * whole file; _core.write_ipc(table, path, codec, level, batch_size,
 * metadata) -> None, or the file's bytes when path is None.  The GIL is
 * released while the engine reads or writes.
 */
#include <string.h>

#include "io_common.h"
#include "zambezi/io.h"

static PyObject *zbpy_read_ipc(PyObject *module, PyObject *args, PyObject *kwargs) {
  zbpy_state *st = zbpy_module_state(module);
  static char *kwlist[] = {"source", "columns", NULL};
  PyObject *src, *columns = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:read_ipc", kwlist, &src, &columns))
    return NULL;
  PyObject *path = NULL, *seq = NULL, *result = NULL;
  const char **names = NULL;
  Py_buffer view;
  int is_buf = 0;
  char *meta = NULL;
  zb_table *t = NULL;
  zb_ipc_options o;
  zb_ipc_options_init(&o);
  o.pandas_metadata = &meta;
  if (columns != Py_None) {
    seq = PySequence_Fast(columns, "read_ipc: columns must be a list of names");
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
        PyErr_Format(st->InvalidValueError, "read_ipc: column names must be str, not %s",
                     Py_TYPE(it)->tp_name);
        goto done;
      }
      if ((names[i] = PyUnicode_AsUTF8(it)) == NULL) goto done;
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
    s = zb_ipc_read_buffer(data, size, "<buffer>", &o, &t, &err);
    ZBPY_END_ENGINE
  } else {
    const char *p = PyBytes_AS_STRING(path);
    ZBPY_BEGIN_ENGINE
    s = zb_ipc_read_file(p, &o, &t, &err);
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

static PyObject *zbpy_write_ipc(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *tobj, *pobj, *meta;
  const char *codec;
  int level;
  long long bs;
  if (!PyArg_ParseTuple(args, "OOsiLO:write_ipc", &tobj, &pobj, &codec, &level, &bs, &meta))
    return NULL;
  zb_table *t = zbpy_arg_table(st, tobj, "write_ipc: table");
  if (t == NULL) return NULL;
  zb_ipc_write_options o;
  zb_ipc_write_options_init(&o);
  if (strcmp(codec, "none") == 0)
    o.codec = ZB_IPC_UNCOMPRESSED;
  else if (strcmp(codec, "lz4") == 0)
    o.codec = ZB_IPC_LZ4_FRAME;
  else if (strcmp(codec, "zstd") == 0)
    o.codec = ZB_IPC_ZSTD;
  else
    return PyErr_Format(st->InvalidValueError, "to_ipc: unknown compression '%s'", codec);
  o.compression_level = level;
  o.batch_size = bs;
  zbpy_kv_pairs kv;
  if (zbpy_kv_pairs_parse(st, meta, "write_ipc", &kv) < 0) return NULL;
  PyObject *path = NULL, *result = NULL;
  zbpy_mem_sink mem = {NULL, 0, 0, "to_ipc"};
  o.metadata_keys = kv.keys;
  o.metadata_values = kv.vals;
  o.num_metadata = kv.n;
  if (pobj != Py_None && !PyUnicode_FSConverter(pobj, &path)) goto done;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  if (path != NULL) {
    const char *p = PyBytes_AS_STRING(path);
    ZBPY_BEGIN_ENGINE
    s = zb_ipc_write_file(t, p, &o, &err);
    ZBPY_END_ENGINE
  } else {
    ZBPY_BEGIN_ENGINE
    s = zb_ipc_write(t, &o, zbpy_mem_sink_write, &mem, &err);
    ZBPY_END_ENGINE
  }
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto done;
  }
  result = path != NULL ? Py_NewRef(Py_None) : PyBytes_FromStringAndSize(mem.p, (Py_ssize_t)mem.n);
done:
  zbpy_mem_sink_free(&mem);
  zbpy_kv_pairs_free(&kv);
  Py_XDECREF(path);
  return result;
}

static PyObject *zbpy_lz4_available(PyObject *module, PyObject *unused) {
  (void)module;
  (void)unused;
  return PyBool_FromLong(zb_lz4_available());
}

PyMethodDef zbpy_ipc_methods[] = {
    {"read_ipc", (PyCFunction)(void (*)(void))zbpy_read_ipc, METH_VARARGS | METH_KEYWORDS,
     "read_ipc(source, columns=None) -> (table, pandas metadata or None)"},
    {"write_ipc", zbpy_write_ipc, METH_VARARGS,
     "write_ipc(table, path, codec, level, batch_size, metadata) -> None or bytes"},
    {"lz4_available", zbpy_lz4_available, METH_NOARGS,
     "Whether liblz4 could be loaded (LZ4-compressed Arrow IPC files)."},
    {NULL, NULL, 0, NULL}};
