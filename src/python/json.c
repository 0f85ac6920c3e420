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

static zb_status json_write(const zb_table *t, const char *path, const void *opts,
                            zb_json_write_fn write, void *ctx, zb_error *err) {
  const zb_json_write_options *o = (const zb_json_write_options *)opts;
  if (path != NULL) return zb_json_write_file(t, path, o, err);
  return zb_json_write(t, o, write, ctx, err);
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
  zb_json_write_options o;
  zb_json_write_options_init(&o);
  o.lines = lines != 0;
  o.double_precision = prec;
  o.force_ascii = ascii != 0;
  o.iso_dates = iso != 0;
  o.date_unit = (zb_time_unit)unit;
  zbpy_text_target tt;
  if (zbpy_text_target_init(st, &tt, table, target, "write_json", "JSON") < 0) return NULL;
  return zbpy_text_target_run(st, &tt, json_write, &o);
}

PyMethodDef zbpy_json_methods[] = {
    {"read_json", (PyCFunction)(void (*)(void))zbpy_read_json, METH_VARARGS | METH_KEYWORDS,
     "read_json(buffer, lines=True, nrows=-1, coerce_numbers=True) -> Table"},
    {"write_json", (PyCFunction)(void (*)(void))zbpy_write_json, METH_VARARGS | METH_KEYWORDS,
     "write_json(table, target, **options) -> str (target None) or None"},
    {NULL, NULL, 0, NULL},
};
