/*
 * json.c -- the JSON reader and writer as functions of zambezi._core.
 *
 *   read_json(buffer, lines=True, nrows=-1, coerce_numbers=True) -> Table
 *     buffer: any object with the buffer protocol (bytes, mmap: read in
 *     place); python/zambezi/io/json.py shapes pandas' arguments.
 *   write_json(table, target, lines=True, double_precision=10,
 *              force_ascii=True, iso_dates=False, date_unit=1) -> str or None
 *     target: None (return the text as str), a str path (written by the
 *     engine), or a callable receiving bytes pieces that end at row ends.
 *
 * The GIL is released for the whole engine call; the writer's sink takes
 * it back briefly to check for Ctrl-C and to call a Python target.
 */
#include "io_common.h"

#include <string.h>

#include "zambezi/io.h"

static PyObject *zbpy_read_json(PyObject *module, PyObject *args, PyObject *kwargs) {
  zbpy_state *st = zbpy_module_state(module);
  static char *kwlist[] = {"buffer", "lines", "nrows", "coerce_numbers", NULL};
  Py_buffer view;
  int lines = 1, coerce = 1;
  long long nrows = -1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "y*|pLp:read_json", kwlist, &view, &lines,
                                   &nrows, &coerce))
    return NULL;
  zb_json_read_options o;
  zb_json_read_options_init(&o);
  o.lines = lines != 0;
  o.nrows = nrows;
  o.coerce_numbers = coerce != 0;
  zb_table *t = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  const char *data = (const char *)view.buf;
  int64_t size = (int64_t)view.len;
  ZBPY_BEGIN_ENGINE
  s = zb_json_read_buffer(data, size, &o, &t, &err);
  ZBPY_END_ENGINE
  PyBuffer_Release(&view);
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  return zbpy_table_wrap(st, t);
}

typedef struct sink {
  PyObject *callable; /* target callable, or NULL */
  zbpy_mem_sink mem;  /* target None: the text so far */
  int failed;         /* a Python exception is pending */
} sink;

static zb_status sink_write(void *ctx, const char *data, int64_t size, zb_error *err) {
  sink *s = (sink *)ctx;
  if (s->callable == NULL) ZB_RETURN_NOT_OK(zbpy_mem_sink_write(&s->mem, data, size, err));
  PyGILState_STATE g = PyGILState_Ensure();
  if (PyErr_CheckSignals() < 0) {
    s->failed = 1;
  } else if (s->callable != NULL) {
    PyObject *b = PyBytes_FromStringAndSize(data, (Py_ssize_t)size);
    PyObject *r = b ? PyObject_CallOneArg(s->callable, b) : NULL;
    Py_XDECREF(b);
    if (r == NULL) s->failed = 1;
    Py_XDECREF(r);
  }
  PyGILState_Release(g);
  if (s->failed) return zb_error_set(err, ZB_ECANCEL, "JSON write interrupted");
  return ZB_OK;
}

static PyObject *zbpy_write_json(PyObject *module, PyObject *args, PyObject *kwargs) {
  zbpy_state *st = zbpy_module_state(module);
  static char *kwlist[] = {"table",       "target",    "lines",     "double_precision",
                           "force_ascii", "iso_dates", "date_unit", NULL};
  PyObject *table, *target;
  int lines = 1, prec = 10, ascii = 1, iso = 0, unit = ZB_MILLI;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|pippi:write_json", kwlist, &table, &target,
                                   &lines, &prec, &ascii, &iso, &unit))
    return NULL;
  if (!PyObject_TypeCheck(table, st->table_type)) {
    PyErr_Format(PyExc_TypeError, "write_json: expected a Table, not %s",
                 Py_TYPE(table)->tp_name);
    return NULL;
  }
  zb_json_write_options o;
  zb_json_write_options_init(&o);
  o.lines = lines != 0;
  o.double_precision = prec;
  o.force_ascii = ascii != 0;
  o.iso_dates = iso != 0;
  o.date_unit = (zb_time_unit)unit;
  zb_table *host = NULL;
  if (zbpy_table_on_host(st, ((zbpy_table *)table)->table, &host) < 0) return NULL;
  PyObject *path = NULL, *result = NULL;
  sink sk;
  memset(&sk, 0, sizeof sk);
  sk.mem.what = "JSON text";
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  if (PyUnicode_Check(target)) {
    if (!PyUnicode_FSConverter(target, &path)) goto done;
    const char *p = PyBytes_AS_STRING(path);
    ZBPY_BEGIN_ENGINE
    s = zb_json_write_file(host, p, &o, &err);
    ZBPY_END_ENGINE
  } else {
    if (target != Py_None) {
      if (!PyCallable_Check(target)) {
        PyErr_Format(PyExc_TypeError, "write_json: target must be None, a path or a callable, "
                                      "not %s", Py_TYPE(target)->tp_name);
        goto done;
      }
      sk.callable = target;
    }
    ZBPY_BEGIN_ENGINE
    s = zb_json_write(host, &o, sink_write, &sk, &err);
    ZBPY_END_ENGINE
  }
  if (sk.failed) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_KeyboardInterrupt, "JSON write interrupted");
    goto done;
  }
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto done;
  }
  if (target == Py_None)
    result = PyUnicode_DecodeUTF8(sk.mem.p ? sk.mem.p : "", (Py_ssize_t)sk.mem.n, "surrogateescape");
  else
    result = Py_NewRef(Py_None);
done:
  zbpy_mem_sink_free(&sk.mem);
  Py_XDECREF(path);
  zb_table_release(host);
  return result;
}

PyMethodDef zbpy_json_methods[] = {
    {"read_json", (PyCFunction)(void (*)(void))zbpy_read_json, METH_VARARGS | METH_KEYWORDS,
     "read_json(buffer, lines=True, nrows=-1, coerce_numbers=True) -> Table"},
    {"write_json", (PyCFunction)(void (*)(void))zbpy_write_json, METH_VARARGS | METH_KEYWORDS,
     "write_json(table, target, **options) -> str (target None) or None"},
    {NULL, NULL, 0, NULL},
};
