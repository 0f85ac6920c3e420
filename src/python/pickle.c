/*
 * pickle.c -- pickling and copying of _core.Column and _core.Table.
 *
 * A column pickles as (its dtype text, length, null count, validity bitmap,
 * data, string bytes, dictionary): Column.__reduce_ex__ returns
 * _core._column_from_pickle and those fields.  Only the column's own rows
 * are written: a slice's data is a window onto the parent's buffers; a
 * bitmap whose first row is not on a byte boundary, and string offsets that
 * do not start at 0, are rebased into new (small) buffers.
 *
 * Protocol 5 and later: each buffer is a pickle.PickleBuffer over a
 * read-only BufferView, which holds a reference to the engine buffer, so a
 * pickler with a buffer_callback passes the memory out of band without
 * copying it (and an in-band pickle copies it once, into the stream).
 * Older protocols: bytes (a copy).  A table pickles as its names and its
 * columns (_core.table_from_columns).  A column on a GPU is copied to the
 * host and unpickles on the CPU.
 *
 * Unpickling shares the memory of each buffer object it is given (bytes,
 * PickleBuffer, memoryview, bytearray...): the engine buffer wraps a
 * Py_buffer view, released (under the GIL) with the last engine reference.
 * A buffer whose address is not a multiple of its element width is copied
 * (kernels load whole elements).  Every size is checked against what the
 * dtype and length imply, string offsets must start at 0 and never
 * decrease, categorical codes of valid rows must lie inside the dictionary
 * and the null count must match the bitmap: a corrupt payload raises
 * InvalidValueError instead of reading outside its memory.
 *
 * Columns and tables are immutable, so copy.copy and copy.deepcopy return
 * the object itself.
 */
#include "zbpy.h"

#include <string.h>

/* ------------------------------------------------------------------------ */
/* Pickling                                                                 */
/* ------------------------------------------------------------------------ */

/* nbytes of buf from byte off, as the pickler should see them: a
 * PickleBuffer over a BufferView (protocol >= 5) or a bytes copy. */
static PyObject *region(zbpy_state *st, zb_buffer *buf, int64_t off, int64_t nbytes,
                        int protocol) {
  char *ptr = (char *)buf->data + off;
  if (protocol < 5) return PyBytes_FromStringAndSize(nbytes > 0 ? ptr : NULL, nbytes);
  PyObject *view = zbpy_bufview_new(st, buf, ptr, (Py_ssize_t)nbytes, 1, "B");
  if (view == NULL) return NULL;
  PyObject *pb = PyPickleBuffer_FromObject(view);
  Py_DECREF(view);
  return pb;
}

/* dst[0, n) = src[off, off + n) for bitmaps, the bits past n cleared. */
static void bits_rebase(uint8_t *dst, const uint8_t *src, int64_t off, int64_t n) {
  int64_t nbytes = (n + 7) / 8, src_bytes = (off + n + 7) / 8, k = off / 8;
  int s = (int)(off % 8);
  for (int64_t i = 0; i < nbytes; i++) {
    unsigned lo = src[k + i] >> s;
    unsigned hi = (s != 0 && k + i + 1 < src_bytes) ? (unsigned)src[k + i + 1] << (8 - s) : 0;
    dst[i] = (uint8_t)(lo | hi);
  }
  if (n % 8 != 0) dst[nbytes - 1] &= (uint8_t)((1u << (n % 8)) - 1);
}

/* Bits [off, off + len) of a bitmap: shared when off is on a byte
 * boundary, else rebased into a new buffer. */
static PyObject *bitmap_region(zbpy_state *st, zb_buffer *bits, int64_t off, int64_t len,
                               int protocol) {
  int64_t nbytes = (len + 7) / 8;
  if (off % 8 == 0) return region(st, bits, off / 8, nbytes, protocol);
  zb_buffer *copy = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_buffer_new(ZB_CPU, nbytes, &copy, &err);
  if (s == ZB_OK) bits_rebase((uint8_t *)copy->data, (const uint8_t *)bits->data, off, len);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  PyObject *r = region(st, copy, 0, nbytes, protocol);
  zb_buffer_release(copy);
  return r;
}

/* The string offsets and bytes of rows [off, off + len): the offsets are
 * shared when they start at 0, else rebased into a new buffer. */
static int string_regions(zbpy_state *st, const zb_column *col, int protocol, PyObject **offs_out,
                          PyObject **chars_out) {
  const int64_t *offs = (const int64_t *)col->data->data + col->offset;
  int64_t len = col->length, first = offs[0], last = offs[len];
  if (first == 0) {
    *offs_out = region(st, col->data, col->offset * 8, (len + 1) * 8, protocol);
  } else {
    zb_buffer *copy = NULL;
    zb_error err;
    err.message[0] = '\0';
    zb_status s;
    ZBPY_BEGIN_ENGINE
    s = zb_buffer_new(ZB_CPU, (len + 1) * 8, &copy, &err);
    if (s == ZB_OK) {
      int64_t *dst = (int64_t *)copy->data;
      for (int64_t i = 0; i <= len; i++) dst[i] = offs[i] - first;
    }
    ZBPY_END_ENGINE
    if (s != ZB_OK) {
      zbpy_raise(st, s, &err);
      return -1;
    }
    *offs_out = region(st, copy, 0, (len + 1) * 8, protocol);
    zb_buffer_release(copy);
  }
  if (*offs_out == NULL) return -1;
  *chars_out = region(st, col->chars, first, last - first, protocol);
  if (*chars_out == NULL) {
    Py_CLEAR(*offs_out);
    return -1;
  }
  return 0;
}

/* A host list column -> (zambezi._lists._from_pickle, (offsets, child,
 * mask)): its offsets rebased to 0 (int64 bytes), the child rows they span
 * (a column, pickled as columns are) and bytes with 1 per null list, or
 * None. */
static PyObject *list_reduce(zbpy_state *st, const zb_column *col) {
  int64_t n = col->length;
  const int64_t *o = (const int64_t *)col->data->data + col->offset;
  PyObject *mod = PyImport_ImportModule("zambezi._lists");
  PyObject *fn = mod != NULL ? PyObject_GetAttrString(mod, "_from_pickle") : NULL;
  Py_XDECREF(mod);
  PyObject *offs = NULL, *child = NULL, *mask = NULL, *result = NULL;
  if (fn == NULL) goto done;
  offs = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n + 1) * 8);
  if (offs == NULL) goto done;
  int64_t *d = (int64_t *)PyBytes_AS_STRING(offs);
  for (int64_t i = 0; i <= n; i++) d[i] = o[i] - o[0];
  zb_column *part = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s = zb_column_slice(col->child, o[0], o[n] - o[0], &part, &err);
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto done;
  }
  child = zbpy_column_wrap(st, part);
  if (child == NULL) goto done;
  if (col->null_count > 0) {
    mask = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
    if (mask == NULL) goto done;
    uint8_t *m = (uint8_t *)PyBytes_AS_STRING(mask);
    for (int64_t i = 0; i < n; i++) m[i] = !zb_column_is_valid(col, i);
  }
  result = Py_BuildValue("(O(OOO))", fn, offs, child, mask != NULL ? mask : Py_None);
done:
  Py_XDECREF(fn);
  Py_XDECREF(offs);
  Py_XDECREF(child);
  Py_XDECREF(mask);
  return result;
}

/* Column.__reduce_ex__(protocol) ->
 *   (_column_from_pickle, (dtype, length, null_count, validity, data, chars, dictionary,
 *    ordered)),
 *   or for a list column list_reduce's. */
PyObject *zbpy_column_reduce_ex(PyObject *self, PyObject *arg) {
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  long protocol = PyLong_AsLong(arg);
  if (protocol == -1 && PyErr_Occurred()) return NULL;
  zb_column *col = NULL;
  if (zbpy_column_on_host(st, ((zbpy_column *)self)->col, &col) < 0) return NULL;
  if (col->type == ZB_LIST) {
    PyObject *r = list_reduce(st, col);
    zb_column_release(col);
    return r;
  }
  PyObject *fn = NULL, *dtype = NULL, *validity = NULL, *data = NULL, *chars = NULL;
  PyObject *dict = NULL, *result = NULL;
  int64_t len = col->length, off = col->offset;
  PyObject *module = PyType_GetModuleByDef(Py_TYPE(self), &zbpy_module_def);
  if (module == NULL) goto done;
  fn = PyObject_GetAttrString(module, "_column_from_pickle");
  dtype = zbpy_dtype_str(col);
  if (fn == NULL || dtype == NULL) goto done;
  if (col->validity != NULL) {
    validity = bitmap_region(st, col->validity, off, len, (int)protocol);
    if (validity == NULL) goto done;
  }
  if (col->type == ZB_BOOL) {
    data = bitmap_region(st, col->data, off, len, (int)protocol);
  } else if (col->type == ZB_STRING) {
    if (string_regions(st, col, (int)protocol, &data, &chars) < 0) goto done;
  } else {
    int64_t w = zb_type_width(col->type);
    data = region(st, col->data, off * w, len * w, (int)protocol);
  }
  if (data == NULL) goto done;
  if (col->type == ZB_CATEGORICAL) {
    dict = zbpy_column_wrap(st, zb_column_retain(col->dictionary));
    if (dict == NULL) goto done;
  }
  result = Py_BuildValue("(O(OLLOOOOi))", fn, dtype, (long long)len, (long long)col->null_count,
                         validity != NULL ? validity : Py_None, data,
                         chars != NULL ? chars : Py_None, dict != NULL ? dict : Py_None,
                         (int)zb_column_is_ordered(col));
done:
  Py_XDECREF(fn);
  Py_XDECREF(dtype);
  Py_XDECREF(validity);
  Py_XDECREF(data);
  Py_XDECREF(chars);
  Py_XDECREF(dict);
  zb_column_release(col);
  return result;
}

/* Table.__reduce_ex__(protocol) -> (table_from_columns, ([columns], [names])):
 * the columns pickle themselves (on the host). */
PyObject *zbpy_table_reduce_ex(PyObject *self, PyObject *arg) {
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  long protocol = PyLong_AsLong(arg);
  if (protocol == -1 && PyErr_Occurred()) return NULL;
  zb_table *t = NULL;
  if (zbpy_table_on_host(st, ((zbpy_table *)self)->table, &t) < 0) return NULL;
  PyObject *fn = NULL, *cols = NULL, *names = NULL, *result = NULL;
  PyObject *module = PyType_GetModuleByDef(Py_TYPE(self), &zbpy_module_def);
  if (module == NULL) goto done;
  fn = PyObject_GetAttrString(module, "table_from_columns");
  cols = PyList_New((Py_ssize_t)t->num_columns);
  names = PyList_New((Py_ssize_t)t->num_columns);
  if (fn == NULL || cols == NULL || names == NULL) goto done;
  for (int64_t i = 0; i < t->num_columns; i++) {
    PyObject *c = zbpy_column_wrap(st, zb_column_retain(t->columns[i]));
    if (c == NULL) goto done;
    PyList_SET_ITEM(cols, (Py_ssize_t)i, c);
    PyObject *nm = PyUnicode_FromString(t->names[i]);
    if (nm == NULL) goto done;
    PyList_SET_ITEM(names, (Py_ssize_t)i, nm);
  }
  result = Py_BuildValue("(O(OO))", fn, cols, names);
done:
  Py_XDECREF(fn);
  Py_XDECREF(cols);
  Py_XDECREF(names);
  zb_table_release(t);
  return result;
}

/* __copy__() and __deepcopy__(memo) of an immutable object: itself. */
PyObject *zbpy_same_object(PyObject *self, PyObject *unused) { return Py_NewRef(self); }

/* ------------------------------------------------------------------------ */
/* Unpickling                                                               */
/* ------------------------------------------------------------------------ */

/* A Python buffer held by an engine buffer that shares its memory. */
typedef struct held_view {
  Py_buffer view;
} held_view;

static void release_held_view(void *ctx, void *data, int64_t size) {
  (void)data;
  (void)size;
  held_view *h = (held_view *)ctx;
  if (Py_IsInitialized()) { /* after shutdown the view is left to the process's end */
    PyGILState_STATE g = PyGILState_Ensure();
    PyBuffer_Release(&h->view);
    PyGILState_Release(g);
  }
  zb_free(h);
}

/* The engine buffer for the pickled buffer obj (any contiguous buffer
 * object), which must hold `want` bytes: shares obj's memory when its
 * address is a multiple of align, else a copy.  NULL with an exception. */
static zb_buffer *take_buffer(zbpy_state *st, PyObject *obj, const char *what, const char *dtype,
                              int64_t length, int64_t want, int64_t align) {
  held_view *h = (held_view *)zb_malloc(sizeof *h);
  if (h == NULL) {
    zbpy_raise_nomem(st, "a pickled buffer", sizeof *h);
    return NULL;
  }
  if (PyObject_GetBuffer(obj, &h->view, PyBUF_SIMPLE) < 0) {
    zb_free(h);
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyErr_Format(st->InvalidValueError,
                 "unpickling a %s column: its %s is a %s, not a contiguous buffer (%S)", dtype,
                 what, Py_TYPE(obj)->tp_name, value != NULL ? value : Py_None);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return NULL;
  }
  int64_t n = (int64_t)h->view.len;
  if (n != want) {
    PyErr_Format(st->InvalidValueError,
                 "unpickling a %s column of %lld rows: its %s holds %lld bytes, not the %lld "
                 "it needs (the pickled data is corrupt or was altered)",
                 dtype, (long long)length, what, (long long)n, (long long)want);
    goto error;
  }
  zb_buffer *buf = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  if ((uintptr_t)h->view.buf % (uintptr_t)align == 0) {
    s = zb_buffer_wrap(ZB_CPU, h->view.buf, n, release_held_view, h, &buf, &err);
    if (s != ZB_OK) {
      zbpy_raise(st, s, &err);
      goto error;
    }
    return buf; /* h is the buffer's now */
  }
  /* Misaligned (a window at an odd address): an aligned copy. */
  ZBPY_BEGIN_ENGINE
  s = zb_buffer_new(ZB_CPU, n, &buf, &err);
  if (s == ZB_OK && n > 0) memcpy(buf->data, h->view.buf, (size_t)n);
  ZBPY_END_ENGINE
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto error;
  }
  PyBuffer_Release(&h->view);
  zb_free(h);
  return buf;
error:
  PyBuffer_Release(&h->view);
  zb_free(h);
  return NULL;
}

/* What the checks of a pickled column's contents found (GIL released). */
typedef enum check_result {
  CHECK_OK = 0,
  CHECK_NULLS,      /* bad: the bitmap's nulls differ from null_count */
  CHECK_FIRST,      /* bad: string offsets do not start at 0 */
  CHECK_OFFSETS,    /* bad: string offsets decrease at row *at */
  CHECK_CODES,      /* bad: a categorical code outside the dictionary at row *at */
} check_result;

typedef struct check_job {
  zb_type_id type;
  int64_t length, null_count, dict_length;
  const zb_buffer *validity, *data;
} check_job;

static check_result check_contents(const check_job *j, int64_t *at) {
  const uint8_t *bits = j->validity != NULL ? (const uint8_t *)j->validity->data : NULL;
  int64_t n = j->length;
  if (bits != NULL && n - zb_bitmap_count(bits, 0, n) != j->null_count) {
    *at = n - zb_bitmap_count(bits, 0, n);
    return CHECK_NULLS;
  }
  if (j->type == ZB_STRING) {
    const int64_t *o = (const int64_t *)j->data->data;
    if (o[0] != 0) return CHECK_FIRST;
    for (int64_t i = 0; i < n; i++)
      if (o[i + 1] < o[i]) {
        *at = i;
        return CHECK_OFFSETS;
      }
  } else if (j->type == ZB_CATEGORICAL) {
    const int32_t *c = (const int32_t *)j->data->data;
    for (int64_t i = 0; i < n; i++)
      if ((c[i] < 0 || c[i] >= j->dict_length) && (bits == NULL || zb_bit_get(bits, i))) {
        *at = i;
        return CHECK_CODES;
      }
  }
  return CHECK_OK;
}

/* _column_from_pickle(dtype, length, null_count, validity, data, chars,
 * dictionary[, ordered]) -> Column over the given buffers (shared where
 * aligned). */
static PyObject *py_column_from_pickle(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  const char *dtype;
  long long length, nulls;
  PyObject *validity_obj, *data_obj, *chars_obj, *dict_obj;
  int ordered = 0;
  if (!PyArg_ParseTuple(args, "sLLOOOO|p:_column_from_pickle", &dtype, &length, &nulls,
                        &validity_obj, &data_obj, &chars_obj, &dict_obj, &ordered))
    return NULL;
  zb_type_id type;
  zb_time_unit unit;
  char tz[128];
  if (zbpy_parse_dtype(st, dtype, &type, &unit, tz, sizeof tz) < 0) return NULL;
  if (length < 0 || length > INT64_MAX / 16 || nulls < 0 || nulls > length) {
    PyErr_Format(st->InvalidValueError,
                 "unpickling a %s column: invalid length %lld or null count %lld (the pickled "
                 "data is corrupt or was altered)",
                 dtype, length, nulls);
    return NULL;
  }
  if (nulls > 0 && validity_obj == Py_None) {
    PyErr_Format(st->InvalidValueError,
                 "unpickling a %s column: %lld nulls but no validity bitmap", dtype, nulls);
    return NULL;
  }
  if ((type == ZB_STRING) != (chars_obj != Py_None)) {
    PyErr_Format(st->InvalidValueError, "unpickling a %s column: %s", dtype,
                 type == ZB_STRING ? "the string bytes are missing"
                                   : "only string columns have string bytes");
    return NULL;
  }
  zb_column *dict = NULL;
  if (type == ZB_CATEGORICAL) {
    if (!PyObject_TypeCheck(dict_obj, st->column_type)) {
      PyErr_Format(st->InvalidValueError,
                   "unpickling a category column: its dictionary is a %s, not a Column",
                   Py_TYPE(dict_obj)->tp_name);
      return NULL;
    }
    dict = ((zbpy_column *)dict_obj)->col;
    if (dict->type == ZB_CATEGORICAL || dict->type == ZB_LIST || dict->null_count != 0 ||
        dict->device.kind != ZB_DEVICE_CPU) {
      PyErr_SetString(st->InvalidValueError,
                      "unpickling a category column: its dictionary must be a column of a "
                      "flat dtype without nulls on the CPU");
      return NULL;
    }
  } else if (dict_obj != Py_None) {
    PyErr_Format(st->InvalidValueError,
                 "unpickling a %s column: only category columns have a dictionary", dtype);
    return NULL;
  }

  zb_buffer *validity = NULL, *data = NULL, *chars = NULL;
  zb_column *col = NULL;
  PyObject *result = NULL;
  if (validity_obj != Py_None) {
    validity = take_buffer(st, validity_obj, "validity bitmap", dtype, length, (length + 7) / 8, 1);
    if (validity == NULL) goto done;
  }
  int64_t want, align;
  if (type == ZB_BOOL) {
    want = (length + 7) / 8;
    align = 1;
  } else if (type == ZB_STRING) {
    want = (length + 1) * 8;
    align = 8;
  } else {
    align = zb_type_width(type);
    want = length * align;
  }
  data = take_buffer(st, data_obj, type == ZB_STRING ? "offsets buffer" : "data buffer", dtype,
                     length, want, align);
  if (data == NULL) goto done;
  check_job j = {type, length, nulls, dict != NULL ? dict->length : 0, validity, data};
  int64_t at = 0;
  check_result bad;
  ZBPY_BEGIN_ENGINE
  bad = check_contents(&j, &at);
  ZBPY_END_ENGINE
  switch (bad) {
    case CHECK_OK: break;
    case CHECK_NULLS:
      PyErr_Format(st->InvalidValueError,
                   "unpickling a %s column: the validity bitmap has %lld nulls but the null "
                   "count is %lld (the pickled data is corrupt or was altered)",
                   dtype, (long long)at, nulls);
      goto done;
    case CHECK_FIRST:
      PyErr_SetString(st->InvalidValueError,
                      "unpickling a string column: its offsets do not start at 0 (the pickled "
                      "data is corrupt or was altered)");
      goto done;
    case CHECK_OFFSETS:
      PyErr_Format(st->InvalidValueError,
                   "unpickling a string column: its offsets decrease at row %lld (the pickled "
                   "data is corrupt or was altered)",
                   (long long)at);
      goto done;
    case CHECK_CODES:
      PyErr_Format(st->InvalidValueError,
                   "unpickling a category column: the code at row %lld is outside its %lld "
                   "categories (the pickled data is corrupt or was altered)",
                   (long long)at, (long long)dict->length);
      goto done;
  }
  if (type == ZB_STRING) {
    int64_t nchars = ((const int64_t *)data->data)[length];
    chars = take_buffer(st, chars_obj, "string bytes", dtype, length, nchars, 1);
    if (chars == NULL) goto done;
  }
  zb_error err;
  err.message[0] = '\0';
  zb_column *odict = NULL;
  zb_status s = ZB_OK;
  if (dict != NULL) s = zb_column_dictionary_ordered(dict, ordered != 0, &odict, &err);
  if (s == ZB_OK)
    s = zb_column_make(type, length, 0, validity, data, chars, odict, nulls, &col, &err);
  zb_column_release(odict);
  if (s == ZB_OK && (type == ZB_TIMESTAMP || type == ZB_DURATION))
    s = zb_column_set_time(col, unit, tz[0] != '\0' ? tz : NULL, &err);
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto done;
  }
  result = zbpy_column_wrap(st, col);
  col = NULL;
done:
  zb_column_release(col);
  zb_buffer_release(validity);
  zb_buffer_release(data);
  zb_buffer_release(chars);
  return result;
}

PyMethodDef zbpy_pickle_methods[] = {
    {"_column_from_pickle", py_column_from_pickle, METH_VARARGS,
     "_column_from_pickle(dtype, length, null_count, validity, data, chars, dictionary"
     "[, ordered]) -> "
     "Column\n\nRebuild a pickled column (Column.__reduce_ex__) over the given buffers, "
     "sharing their memory where it is aligned."},
    {NULL, NULL, 0, NULL},
};
