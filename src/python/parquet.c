/*
 * parquet.c -- the Parquet reader's and writer's bindings:
 * _core.read_parquet(source, columns=None, filters=None) -> (table, pandas
 * metadata str or None, row groups in the file, row groups read), the source being a path (str or bytes) or a bytes-like object
 * holding a whole file; _core.write_parquet(...) (below).  The GIL is
 * released while the engine reads or writes.
 */
#include <string.h>

#include "io_common.h"
#include "zambezi/io.h"

/* Row-group pruning terms from Python: a list of (group, column, op, kind,
 * values) tuples (zb_parquet_filter_term's fields; values a list of int,
 * float or str as kind says).  The strings stay owned by the list, which
 * the caller keeps alive for the read. */
typedef struct pq_filters {
  zb_parquet_filter_term *terms;
  int64_t n, groups;
  void **arrays; /* per term: its values array, and for strings its lengths */
} pq_filters;

static void filters_free(pq_filters *f) {
  if (f->arrays != NULL)
    for (int64_t i = 0; i < 2 * f->n; i++) PyMem_Free(f->arrays[i]);
  PyMem_Free(f->arrays);
  PyMem_Free(f->terms);
  memset(f, 0, sizeof *f);
}

static int filters_convert(zbpy_state *st, PyObject *list, pq_filters *f) {
  if (!PyList_Check(list)) {
    PyErr_SetString(st->InvalidValueError, "read_parquet: filters must be a list of terms");
    return -1;
  }
  Py_ssize_t n = PyList_GET_SIZE(list);
  f->terms = (zb_parquet_filter_term *)PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof *f->terms);
  f->arrays = (void **)PyMem_Calloc((size_t)(2 * n > 0 ? 2 * n : 1), sizeof(void *));
  if (f->terms == NULL || f->arrays == NULL) {
    PyErr_NoMemory();
    return -1;
  }
  f->n = n;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *it = PyList_GET_ITEM(list, i), *col, *vals;
    long long group;
    int op, kind;
    if (!PyTuple_Check(it) ||
        !PyArg_ParseTuple(it, "LUiiO!", &group, &col, &op, &kind, &PyList_Type, &vals)) {
      if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        PyErr_SetString(st->InvalidValueError,
                        "read_parquet: a filter term is (group, column, op, kind, values)");
      }
      return -1;
    }
    zb_parquet_filter_term *t = &f->terms[i];
    t->group = group;
    if (group >= f->groups) f->groups = group + 1;
    if ((t->column = PyUnicode_AsUTF8(col)) == NULL) return -1;
    t->op = op;
    t->kind = kind;
    Py_ssize_t nv = PyList_GET_SIZE(vals);
    t->num_values = nv;
    size_t cnt = (size_t)(nv > 0 ? nv : 1);
    if (kind == ZB_PQ_VALUE_INT) {
      int64_t *a = (int64_t *)PyMem_Malloc(cnt * sizeof(int64_t));
      f->arrays[2 * i] = a;
      if (a == NULL) return PyErr_NoMemory(), -1;
      for (Py_ssize_t k = 0; k < nv; k++) {
        a[k] = PyLong_AsLongLong(PyList_GET_ITEM(vals, k));
        if (a[k] == -1 && PyErr_Occurred()) return -1;
      }
      t->ints = a;
    } else if (kind == ZB_PQ_VALUE_FLOAT) {
      double *a = (double *)PyMem_Malloc(cnt * sizeof(double));
      f->arrays[2 * i] = a;
      if (a == NULL) return PyErr_NoMemory(), -1;
      for (Py_ssize_t k = 0; k < nv; k++) {
        a[k] = PyFloat_AsDouble(PyList_GET_ITEM(vals, k));
        if (a[k] == -1.0 && PyErr_Occurred()) return -1;
      }
      t->floats = a;
    } else if (kind == ZB_PQ_VALUE_STRING) {
      const char **a = (const char **)PyMem_Malloc(cnt * sizeof(char *));
      int64_t *lens = (int64_t *)PyMem_Malloc(cnt * sizeof(int64_t));
      f->arrays[2 * i] = (void *)a;
      f->arrays[2 * i + 1] = lens;
      if (a == NULL || lens == NULL) return PyErr_NoMemory(), -1;
      for (Py_ssize_t k = 0; k < nv; k++) {
        Py_ssize_t len;
        PyObject *v = PyList_GET_ITEM(vals, k);
        a[k] = PyUnicode_Check(v) ? PyUnicode_AsUTF8AndSize(v, &len) : NULL;
        if (a[k] == NULL) {
          if (!PyErr_Occurred())
            PyErr_SetString(st->InvalidValueError, "read_parquet: a string filter value");
          return -1;
        }
        lens[k] = (int64_t)len;
      }
      t->strs = a;
      t->str_lens = lens;
    } else {
      PyErr_Format(st->InvalidValueError, "read_parquet: filter value kind %d", kind);
      return -1;
    }
  }
  return 0;
}

static zb_status parquet_read(const char *path, const void *data, int64_t size, const void *opts,
                              zb_table **out, zb_error *err) {
  const zb_parquet_options *o = (const zb_parquet_options *)opts;
  if (path != NULL) return zb_parquet_read_file(path, o, out, err);
  return zb_parquet_read_buffer(data, size, "<buffer>", o, out, err);
}

static PyObject *zbpy_read_parquet(PyObject *module, PyObject *args, PyObject *kwargs) {
  zbpy_state *st = zbpy_module_state(module);
  static char *kwlist[] = {"source", "columns", "filters", NULL};
  PyObject *src, *columns = Py_None, *filters = Py_None, *tab, *m;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:read_parquet", kwlist, &src, &columns,
                                   &filters))
    return NULL;
  PyObject *result = NULL;
  pq_filters pf;
  memset(&pf, 0, sizeof pf);
  int64_t rg_total = 0, rg_read = 0;
  char *meta = NULL;
  zb_parquet_options o;
  zb_parquet_options_init(&o);
  o.pandas_metadata = &meta;
  o.row_groups_total = &rg_total;
  o.row_groups_read = &rg_read;
  zbpy_binary_reader r = {"read_parquet", parquet_read, &o, &o.columns, &o.num_columns, &meta};
  if (filters != Py_None) {
    if (filters_convert(st, filters, &pf) < 0) goto done;
    o.filter = pf.terms;
    o.num_filter_terms = pf.n;
    o.num_filter_groups = pf.groups;
  }
  if (zbpy_read_binary(st, &r, src, columns, &tab, &m) < 0) goto done;
  result = Py_BuildValue("(NNLL)", tab, m, (long long)rg_total, (long long)rg_read);
done:
  filters_free(&pf);
  return result;
}

static zb_status parquet_write(const zb_table *t, const char *path, const void *opts,
                               zb_parquet_write_fn write, void *ctx, zb_error *err) {
  const zb_parquet_write_options *o = (const zb_parquet_write_options *)opts;
  if (path != NULL) return zb_parquet_write_file(t, path, o, err);
  return zb_parquet_write(t, o, write, ctx, err);
}

/* write_parquet(table, path, codec, level, row_group_size, metadata, data_page_version=1,
 * page_checksum=False) -> None, or the file's bytes when path is None; codec: "none", "snappy", "gzip" or
 * "zstd"; metadata: a list of (key, value) str pairs. */
static PyObject *zbpy_write_parquet(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *tobj, *pobj, *meta;
  const char *codec;
  int level;
  long long rg;
  int page_version = 1, checksum = 0;
  if (!PyArg_ParseTuple(args, "OOsiLO|ip:write_parquet", &tobj, &pobj, &codec, &level, &rg, &meta,
                        &page_version, &checksum))
    return NULL;
  zb_table *t = zbpy_arg_table(st, tobj, "write_parquet: table");
  if (t == NULL) return NULL;
  zb_parquet_write_options o;
  zb_parquet_write_options_init(&o);
  if (strcmp(codec, "none") == 0)
    o.codec = ZB_PARQUET_UNCOMPRESSED;
  else if (strcmp(codec, "snappy") == 0)
    o.codec = ZB_PARQUET_SNAPPY;
  else if (strcmp(codec, "zstd") == 0)
    o.codec = ZB_PARQUET_ZSTD;
  else if (strcmp(codec, "gzip") == 0)
    o.codec = ZB_PARQUET_GZIP;
  else
    return PyErr_Format(st->InvalidValueError, "to_parquet: unknown compression '%s'", codec);
  o.compression_level = level;
  o.row_group_size = rg;
  o.data_page_version = page_version;
  o.page_checksum = checksum != 0;
  zbpy_kv_pairs kv;
  if (zbpy_kv_pairs_parse(st, meta, "write_parquet", &kv) < 0) return NULL;
  o.metadata_keys = kv.keys;
  o.metadata_values = kv.vals;
  o.num_metadata = kv.n;
  PyObject *result = zbpy_write_binary(st, t, pobj, "to_parquet", parquet_write, &o);
  zbpy_kv_pairs_free(&kv);
  return result;
}

static PyObject *zbpy_snappy_available(PyObject *module, PyObject *unused) {
  return PyBool_FromLong(zb_snappy_available());
}

static PyObject *zbpy_zlib_available(PyObject *module, PyObject *unused) {
  return PyBool_FromLong(zb_zlib_available());
}

PyMethodDef zbpy_parquet_methods[] = {
    {"read_parquet", (PyCFunction)(void (*)(void))zbpy_read_parquet, METH_VARARGS | METH_KEYWORDS,
     "read_parquet(source, columns=None, filters=None) -> (table, pandas metadata or None, "
     "row groups in the file, row groups read)"},
    {"write_parquet", zbpy_write_parquet, METH_VARARGS,
     "write_parquet(table, path, codec, level, row_group_size, metadata, data_page_version=1, "
     "page_checksum=False) -> None or bytes"},
    {"snappy_available", zbpy_snappy_available, METH_NOARGS,
     "Whether libsnappy could be loaded (snappy-compressed Parquet)."},
    {"zlib_available", zbpy_zlib_available, METH_NOARGS,
     "Whether zlib could be loaded (GZIP-compressed Parquet)."},
    {NULL, NULL, 0, NULL}};
