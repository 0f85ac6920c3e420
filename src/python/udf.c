/*
 * udf.c -- the _core functions that let a compiled user function
 * (engine="numba", python/zambezi/_numba.py) read and write engine memory
 * directly, with no copy on either side:
 *
 *   udf_validity(col)  -> (BufferView of the validity bitmap's bytes, bit
 *                         offset of row 0), or None without nulls: the
 *                         kernel tests each row's bit itself.
 *   udf_buffer(dtype, n) -> a writable BufferView of a new, uninitialised
 *                         (not zero-filled) host buffer of n values: the
 *                         kernel writes every value into it.
 *   udf_column(view, dtype, valid=None, length=None) -> Column over that
 *                         buffer (no copy); valid, another udf_buffer
 *                         (uint8), holds its validity bitmap, written by
 *                         the same kernel (a null row's bit clear); the
 *                         nulls are counted here and a bitmap without any
 *                         is dropped.  dtype "bool": view is a uint8
 *                         udf_buffer holding the values as a bitmap (bit i
 *                         of byte i / 8 for row i), length the rows.
 *
 * Only the Python layer's numba path calls these; the writable view is
 * dropped there before the column is shared, so the column's values do not
 * change after it is made (DESIGN.md: buffers are immutable once built).
 */
#include "zbpy.h"

#include <string.h>

/* The fixed-width types a compiled function's output may have (bool, a
 * bitmap in uint8 bytes, where allow_bool). */
static int udf_type(zbpy_state *st, const char *name, zb_type_id *type, bool allow_bool) {
  /* uint8 is also the validity bitmap's bytes */
  zb_time_unit unit;
  char tz[64];
  if (zbpy_parse_dtype(st, name, type, &unit, tz, sizeof tz) < 0) return -1;
  if (allow_bool && *type == ZB_BOOL) return 0;
  if (*type == ZB_BOOL || zb_type_width(*type) <= 0 || !(zb_type_is_float(*type) ||
      zb_type_is_integer(*type))) {
    PyErr_Format(st->DTypeError, "udf_buffer: %s is not a fixed-width number type", name);
    return -1;
  }
  return 0;
}

static PyObject *py_udf_validity(PyObject *module, PyObject *arg) {
  zbpy_state *st = zbpy_module_state(module);
  zb_column *col = zbpy_arg_column(st, arg, "udf_validity");
  if (col == NULL) return NULL;
  if (col->device.kind != ZB_DEVICE_CPU)
    return PyErr_Format(st->DTypeError, "udf_validity: the column is not on the host");
  if (col->validity == NULL || col->null_count == 0) Py_RETURN_NONE;
  int64_t first = col->offset / 8, nbytes = (col->offset + col->length + 7) / 8 - first;
  PyObject *view = zbpy_bufview_new(st, col->validity, (char *)col->validity->data + first,
                                    (Py_ssize_t)nbytes, 1, "B");
  if (view == NULL) return NULL;
  return Py_BuildValue("(NL)", view, (long long)(col->offset % 8));
}

static PyObject *py_udf_buffer(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  const char *name;
  long long n;
  if (!PyArg_ParseTuple(args, "sL:udf_buffer", &name, &n)) return NULL;
  zb_type_id type;
  if (udf_type(st, name, &type, false) < 0) return NULL;
  if (n < 0) return PyErr_Format(PyExc_ValueError, "udf_buffer: negative length %lld", n);
  int w = zb_type_width(type);
  if (n > INT64_MAX / w) return PyErr_NoMemory();
  zb_buffer *buf = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_RUN_ENGINE(s, zb_buffer_new(ZB_CPU, (int64_t)n * w, &buf, &err));
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  static const char *const fmts[] = {"b", "h", "i", "q", "B", "H", "I", "Q", "f", "d"};
  static const zb_type_id types[] = {ZB_INT8,  ZB_INT16,  ZB_INT32,  ZB_INT64,   ZB_UINT8,
                                     ZB_UINT16, ZB_UINT32, ZB_UINT64, ZB_FLOAT32, ZB_FLOAT64};
  const char *fmt = NULL;
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
    if (types[k] == type) fmt = fmts[k];
  if (fmt == NULL) {
    zb_buffer_release(buf);
    return PyErr_Format(st->DTypeError, "udf_buffer: %s is not a number type", name);
  }
  PyObject *view = zbpy_bufview_new(st, buf, buf->data, (Py_ssize_t)n, w, fmt);
  zb_buffer_release(buf); /* the view holds its own reference */
  if (view != NULL) ((zbpy_bufview *)view)->writable = true;
  return view;
}

/* The nulls of a validity bitmap of n rows (bits past n ignored). */
static int64_t count_nulls(const uint8_t *bits, int64_t n) {
  int64_t valid = 0, full = n / 8;
  for (int64_t i = 0; i < full; i++) valid += __builtin_popcount(bits[i]);
  if (n % 8) valid += __builtin_popcount(bits[full] & ((1u << (n % 8)) - 1u));
  return n - valid;
}

static PyObject *py_udf_column(PyObject *module, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"view", "dtype", "valid", "length", NULL};
  zbpy_state *st = zbpy_module_state(module);
  PyObject *vo, *bo = Py_None;
  const char *name;
  long long length = -1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Os|OL:udf_column", kwlist, &vo, &name, &bo,
                                   &length))
    return NULL;
  if (!PyObject_TypeCheck(vo, st->bufview_type) || !((zbpy_bufview *)vo)->writable ||
      (bo != Py_None &&
       (!PyObject_TypeCheck(bo, st->bufview_type) || !((zbpy_bufview *)bo)->writable)))
    return PyErr_Format(PyExc_TypeError, "udf_column: the views must come from udf_buffer");
  zbpy_bufview *v = (zbpy_bufview *)vo, *b = bo != Py_None ? (zbpy_bufview *)bo : NULL;
  zb_type_id type;
  if (udf_type(st, name, &type, true) < 0) return NULL;
  int64_t n = v->shape;
  if (type == ZB_BOOL) { /* a bitmap of `length` rows in uint8 bytes */
    if (v->itemsize != 1 || length < 0 || (length + 7) / 8 > v->shape)
      return PyErr_Format(PyExc_ValueError, "udf_column: a bool column needs length and a "
                          "uint8 buffer of (length + 7) / 8 bytes");
    n = length;
  } else if (zb_type_width(type) != v->itemsize || (length >= 0 && length != n)) {
    return PyErr_Format(st->DTypeError, "udf_column: %s does not match the buffer", name);
  }
  if (b != NULL && b->shape * b->itemsize < (n + 7) / 8)
    return PyErr_Format(PyExc_ValueError, "udf_column: the validity bitmap is too short");
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  int64_t nulls = b != NULL ? count_nulls((const uint8_t *)b->ptr, n) : 0;
  s = zb_column_make(type, n, 0, nulls > 0 ? b->buf : NULL, v->buf, NULL, NULL, nulls, &out,
                     &err);
  ZBPY_END_ENGINE
  return zbpy_column_result(st, s, &err, out);
}

PyMethodDef zbpy_udf_methods[] = {
    {"udf_validity", py_udf_validity, METH_O,
     "udf_validity(col)\n--\n\n(bitmap bytes view, bit offset) of a host column's validity, "
     "or None without nulls."},
    {"udf_buffer", py_udf_buffer, METH_VARARGS,
     "udf_buffer(dtype, n)\n--\n\nA writable view of a new uninitialised host buffer of n "
     "values."},
    {"udf_column", (PyCFunction)(void (*)(void))py_udf_column, METH_VARARGS | METH_KEYWORDS,
     "udf_column(view, dtype, valid=None, length=None)\n--\n\nA Column over a udf_buffer's "
     "memory, valid (a udf_buffer of uint8) its validity bitmap; a bool column's values are "
     "a bitmap of length rows."},
    {NULL, NULL, 0, NULL}};
