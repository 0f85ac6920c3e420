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

static zb_status ipc_read(const char *path, const void *data, int64_t size, const void *opts,
                          zb_table **out, zb_error *err) {
  const zb_ipc_options *o = (const zb_ipc_options *)opts;
  if (path != NULL) return zb_ipc_read_file(path, o, out, err);
  return zb_ipc_read_buffer(data, size, "<buffer>", o, out, err);
}

static PyObject *zbpy_read_ipc(PyObject *module, PyObject *args, PyObject *kwargs) {
  zbpy_state *st = zbpy_module_state(module);
  static char *kwlist[] = {"source", "columns", NULL};
  PyObject *src, *columns = Py_None, *tab, *m;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:read_ipc", kwlist, &src, &columns))
    return NULL;
  char *meta = NULL;
  zb_ipc_options o;
  zb_ipc_options_init(&o);
  o.pandas_metadata = &meta;
  zbpy_binary_reader r = {"read_ipc", ipc_read, &o, &o.columns, &o.num_columns, &meta};
  if (zbpy_read_binary(st, &r, src, columns, &tab, &m) < 0) return NULL;
  return Py_BuildValue("(NN)", tab, m);
}

static zb_status ipc_write(const zb_table *t, const char *path, const void *opts,
                           zb_ipc_write_fn write, void *ctx, zb_error *err) {
  const zb_ipc_write_options *o = (const zb_ipc_write_options *)opts;
  if (path != NULL) return zb_ipc_write_file(t, path, o, err);
  return zb_ipc_write(t, o, write, ctx, err);
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
  o.metadata_keys = kv.keys;
  o.metadata_values = kv.vals;
  o.num_metadata = kv.n;
  PyObject *result = zbpy_write_binary(st, t, pobj, "to_ipc", ipc_write, &o);
  zbpy_kv_pairs_free(&kv);
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
