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
  PyObject *result = NULL;
  zbpy_names names = {NULL, NULL, 0};
  zbpy_source source = {NULL, {0}, 0};
  char *meta = NULL;
  zb_table *t = NULL;
  zb_ipc_options o;
  zb_ipc_options_init(&o);
  o.pandas_metadata = &meta;
  if (columns != Py_None) {
    if (zbpy_names_parse(st, columns, "read_ipc", &names) < 0) goto done;
    o.columns = names.names;
    o.num_columns = names.n;
  }
  if (zbpy_source_open(src, &source) < 0) goto done;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  const void *data = source.view.buf;
  int64_t size = (int64_t)source.view.len;
  const char *p = source.path != NULL ? PyBytes_AS_STRING(source.path) : NULL;
  ZBPY_BEGIN_ENGINE
  if (p == NULL)
    s = zb_ipc_read_buffer(data, size, "<buffer>", &o, &t, &err);
  else
    s = zb_ipc_read_file(p, &o, &t, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto done;
  }
  PyObject *tab = zbpy_table_wrap(st, t);
  t = NULL;
  if (tab == NULL) goto done;
  PyObject *m = zbpy_metadata_str(meta);
  if (m == NULL) {
    Py_DECREF(tab);
    goto done;
  }
  result = Py_BuildValue("(NN)", tab, m);
done:
  zb_table_release(t);
  zb_free(meta);
  zbpy_names_free(&names);
  zbpy_source_close(&source);
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
