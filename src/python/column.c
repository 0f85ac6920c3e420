/*
 * column.c -- the heap types _core.Column (one engine zb_column) and
 * _core.BufferView (a read-only buffer-protocol window onto an engine
 * buffer, which numpy turns into an array without copying).
 *
 * Column methods convert once and release the GIL around every engine call
 * that does work (reduce, slice, device copies, unpacking bitmaps).
 */
#include "zbpy.h"

#include <math.h>
#include <string.h>

#include "core/dtype_list.h"
#include "zambezi/interop.h"

/* ------------------------------------------------------------------------ */
/* BufferView                                                               */
/* ------------------------------------------------------------------------ */

PyObject *zbpy_bufview_new(zbpy_state *st, zb_buffer *buf, void *ptr, Py_ssize_t n,
                           Py_ssize_t itemsize, const char *format) {
  zbpy_bufview *v = PyObject_New(zbpy_bufview, st->bufview_type);
  if (v == NULL) return NULL;
  v->buf = zb_buffer_retain(buf);
  v->shape = n;
  v->itemsize = itemsize;
  PyOS_snprintf(v->format, sizeof v->format, "%s", format);
  v->ptr = ptr != NULL ? (char *)ptr : v->format; /* any valid address for n == 0 */
  v->writable = false;
  return (PyObject *)v;
}

static void bufview_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  zb_buffer_release(((zbpy_bufview *)self)->buf);
  PyObject_Free(self);
  Py_DECREF(tp);
}

static int bufview_getbuffer(PyObject *self, Py_buffer *view, int flags) {
  zbpy_bufview *v = (zbpy_bufview *)self;
  if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE && !v->writable) {
    PyErr_SetString(PyExc_BufferError, "zambezi data is immutable (read-only buffer)");
    view->obj = NULL;
    return -1;
  }
  view->buf = v->ptr;
  view->obj = Py_NewRef(self);
  view->len = v->shape * v->itemsize;
  view->readonly = v->writable ? 0 : 1;
  view->itemsize = v->itemsize;
  view->format = (flags & PyBUF_FORMAT) ? v->format : NULL;
  view->ndim = 1;
  view->shape = (flags & PyBUF_ND) == PyBUF_ND ? &v->shape : NULL;
  view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? &v->itemsize : NULL;
  view->suboffsets = NULL;
  view->internal = NULL;
  return 0;
}

static PyObject *bufview_repr(PyObject *self) {
  zbpy_bufview *v = (zbpy_bufview *)self;
  return PyUnicode_FromFormat("<zambezi._core.BufferView format='%s' length=%zd>", v->format,
                              v->shape);
}

static PyType_Slot bufview_slots[] = {
    {Py_tp_dealloc, (void *)bufview_dealloc},
    {Py_tp_repr, (void *)bufview_repr},
    {Py_bf_getbuffer, (void *)bufview_getbuffer},
    {Py_tp_doc, (void *)"A read-only view of engine memory (buffer protocol)."},
    {0, NULL},
};

PyType_Spec zbpy_bufview_spec = {
    .name = "zambezi._core.BufferView",
    .basicsize = sizeof(zbpy_bufview),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = bufview_slots,
};

/* ------------------------------------------------------------------------ */
/* Column                                                                   */
/* ------------------------------------------------------------------------ */

PyObject *zbpy_column_wrap(zbpy_state *st, zb_column *col) {
  zbpy_column *c = PyObject_New(zbpy_column, st->column_type);
  if (c == NULL) {
    zb_column_release(col);
    return NULL;
  }
  c->col = col;
  c->cai_exported = false;
  return (PyObject *)c;
}

static void column_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  zbpy_column *c = (zbpy_column *)self;
  if (c->cai_exported) {
    /* a consumer's kernels on a non-blocking stream are not ordered before
     * the pool's stream-ordered free: wait for them (nothing to report) */
    ZBPY_BEGIN_ENGINE
    (void)zb_device_synchronize(c->col->device, NULL);
    ZBPY_END_ENGINE
  }
  zb_column_release(c->col);
  PyObject_Free(self);
  Py_DECREF(tp);
}

#define COL(self) (((zbpy_column *)(self))->col)

static PyObject *column_get_dtype(PyObject *self, void *c) { return zbpy_dtype_str(COL(self)); }
static PyObject *column_get_length(PyObject *self, void *c) {
  return PyLong_FromLongLong(COL(self)->length);
}
static PyObject *column_get_nbytes(PyObject *self, void *c) {
  return PyLong_FromLongLong(zb_column_nbytes(COL(self)));
}
static PyObject *column_get_null_count(PyObject *self, void *c) {
  return PyLong_FromLongLong(COL(self)->null_count);
}
static PyObject *column_get_device(PyObject *self, void *c) {
  return zbpy_device_str(COL(self)->device);
}
static PyObject *column_get_unit(PyObject *self, void *c) {
  if (COL(self)->type != ZB_TIMESTAMP && COL(self)->type != ZB_DURATION) Py_RETURN_NONE;
  return PyUnicode_FromString(zbpy_unit_name(COL(self)->unit));
}
static PyObject *column_get_timezone(PyObject *self, void *c) {
  const zb_column *col = COL(self);
  if (col->type != ZB_TIMESTAMP || col->timezone == NULL || col->timezone[0] == '\0')
    Py_RETURN_NONE;
  return PyUnicode_FromString(col->timezone);
}
static PyObject *column_get_dictionary(PyObject *self, void *c) {
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  const zb_column *col = COL(self);
  if (col->type != ZB_CATEGORICAL || col->dictionary == NULL) Py_RETURN_NONE;
  return zbpy_column_wrap(st, zb_column_retain(col->dictionary));
}

static PyObject *column_get_ordered(PyObject *self, void *c) {
  return PyBool_FromLong(zb_column_is_ordered(COL(self)));
}

static Py_ssize_t column_len(PyObject *self) { return (Py_ssize_t)COL(self)->length; }

PyObject *zbpy_scalar_to_py(const zb_scalar *s) {
  if (s->is_null) Py_RETURN_NONE;
  switch (s->type) {
    case ZB_BOOL: return PyBool_FromLong(s->v.b);
#define SCALAR_U(ID, T, NAME, U) case ID:
    ZB_FOR_EACH_UNSIGNED_TYPE(SCALAR_U)
#undef SCALAR_U
      return PyLong_FromUnsignedLongLong(s->v.u);
#define SCALAR_F(ID, T, NAME, U) case ID:
    ZB_FOR_EACH_FLOAT_TYPE(SCALAR_F)
#undef SCALAR_F
      return PyFloat_FromDouble(s->v.f);
    default: return PyLong_FromLongLong(s->v.i);
  }
}

static PyObject *column_reduce(PyObject *self, PyObject *arg) {
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  const char *name = PyUnicode_Check(arg) ? PyUnicode_AsUTF8(arg) : NULL;
  if (name == NULL) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "reduce(op): op must be a str");
    return NULL;
  }
  int op = -1;
  for (int i = 0; i < ZB_REDUCE_OP_COUNT; i++)
    if (strcmp(name, zb_reduce_op_name((zb_reduce_op)i)) == 0) op = i;
  if (op < 0) {
    PyErr_Format(st->InvalidValueError,
                 "unknown reduction '%s' (expected sum, min, max, mean or count)", name);
    return NULL;
  }
  zb_scalar out;
  memset(&out, 0, sizeof out);
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  zb_column *col = COL(self);
  ZBPY_BEGIN_ENGINE
  s = zb_column_reduce(col, (zb_reduce_op)op, &out, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  return zbpy_scalar_to_py(&out);
}

static PyObject *column_slice(PyObject *self, PyObject *args) {
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  long long start, length;
  if (!PyArg_ParseTuple(args, "LL:slice", &start, &length)) return NULL;
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  zb_column *col = COL(self);
  ZBPY_BEGIN_ENGINE
  s = zb_column_slice(col, start, length, &out, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  return zbpy_column_wrap(st, out);
}

static PyObject *column_to_device(PyObject *self, PyObject *arg) {
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  zb_device dev;
  if (zbpy_parse_device(st, arg, &dev) < 0) return NULL;
  zb_column *col = COL(self);
  if (zb_device_equal(dev, col->device)) return zbpy_column_wrap(st, zb_column_retain(col));
  zb_column *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_column_to_device(col, dev, &out, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  return zbpy_column_wrap(st, out);
}

/* A list of str for a host string column (nulls -> None). */
static PyObject *strings_to_list(const zb_column *col) {
  PyObject *list = PyList_New((Py_ssize_t)col->length);
  if (list == NULL) return NULL;
  const int64_t *offs = (const int64_t *)col->data->data + col->offset;
  const char *chars = col->chars != NULL ? (const char *)col->chars->data : "";
  for (int64_t i = 0; i < col->length; i++) {
    PyObject *o;
    if (!zb_column_is_valid(col, i)) {
      o = Py_NewRef(Py_None);
    } else {
      o = PyUnicode_DecodeUTF8(chars + offs[i], (Py_ssize_t)(offs[i + 1] - offs[i]), "strict");
      if (o == NULL) goto error;
    }
    PyList_SET_ITEM(list, (Py_ssize_t)i, o);
  }
  return list;
error:
  Py_DECREF(list);
  return NULL;
}

static PyObject *host_column_to_list(const zb_column *col, bool raw_stamps);

/* A list column's rows as Python lists (None for a null list). */
static PyObject *lists_to_list(const zb_column *col, bool raw_stamps) {
  int64_t n = col->length;
  const int64_t *o = (const int64_t *)col->data->data + col->offset;
  zb_column *part = NULL;
  zb_error err;
  err.message[0] = '\0';
  if (zb_column_slice(col->child, o[0], o[n] - o[0], &part, &err) != ZB_OK) {
    PyErr_SetString(PyExc_MemoryError, err.message);
    return NULL;
  }
  PyObject *values = host_column_to_list(part, raw_stamps);
  zb_column_release(part);
  if (values == NULL) return NULL;
  PyObject *list = PyList_New((Py_ssize_t)n);
  for (int64_t i = 0; list != NULL && i < n; i++) {
    PyObject *item = zb_column_is_valid(col, i)
                         ? PyList_GetSlice(values, o[i] - o[0], o[i + 1] - o[0])
                         : Py_NewRef(Py_None);
    if (item == NULL) Py_CLEAR(list);
    else PyList_SET_ITEM(list, (Py_ssize_t)i, item);
  }
  Py_DECREF(values);
  return list;
}

static PyObject *host_column_to_list(const zb_column *col, bool raw_stamps) {
  int64_t n = col->length;
  if (col->type == ZB_STRING) return strings_to_list(col);
  if (col->type == ZB_LIST) return lists_to_list(col, raw_stamps);
  PyObject *dict = NULL;
  if (col->type == ZB_CATEGORICAL) {
    dict = host_column_to_list(col->dictionary, raw_stamps);
    if (dict == NULL) return NULL;
  }
  PyObject *zone = NULL; /* a timezone-aware column's zoneinfo.ZoneInfo */
  if (col->type == ZB_TIMESTAMP && !raw_stamps && col->timezone != NULL &&
      col->timezone[0] != '\0') {
    PyObject *zi = PyImport_ImportModule("zoneinfo");
    if (zi != NULL) {
      zone = PyObject_CallMethod(zi, "ZoneInfo", "s", col->timezone);
      Py_DECREF(zi);
    }
    if (zone == NULL) {
      Py_XDECREF(dict);
      return NULL;
    }
  }
  PyObject *list = PyList_New((Py_ssize_t)n);
  if (list == NULL) {
    Py_XDECREF(dict);
    Py_XDECREF(zone);
    return NULL;
  }
  const void *data = col->data != NULL ? col->data->data : NULL;
  int64_t off = col->offset;
  for (int64_t i = 0; i < n; i++) {
    PyObject *o = NULL;
    if (!zb_column_is_valid(col, i)) {
      o = Py_NewRef(Py_None);
    } else {
      int64_t j = off + i;
      switch (col->type) {
        case ZB_BOOL: o = PyBool_FromLong(zb_bit_get((const uint8_t *)data, j)); break;
#define TO_PY(ID, T, FROM, CT) case ID: o = FROM((CT)((const T *)data)[j]); break;
#define TO_PY_S(ID, T, NAME, U) TO_PY(ID, T, PyLong_FromLongLong, long long)
#define TO_PY_U(ID, T, NAME, U) TO_PY(ID, T, PyLong_FromUnsignedLongLong, unsigned long long)
#define TO_PY_F(ID, T, NAME, U) TO_PY(ID, T, PyFloat_FromDouble, double)
        ZB_FOR_EACH_SIGNED_TYPE(TO_PY_S)
        ZB_FOR_EACH_UNSIGNED_TYPE(TO_PY_U)
        ZB_FOR_EACH_FLOAT_TYPE(TO_PY_F)
#undef TO_PY_S
#undef TO_PY_U
#undef TO_PY_F
#undef TO_PY
        case ZB_TIMESTAMP:
          if (raw_stamps) {
            o = PyLong_FromLongLong(((const int64_t *)data)[j]);
            break;
          }
          o = zbpy_datetime_from(((const int64_t *)data)[j], (int)col->unit, zone != NULL);
          if (o != NULL && zone != NULL) {
            PyObject *local = PyObject_CallMethod(o, "astimezone", "O", zone);
            Py_DECREF(o);
            o = local;
          }
          break;
        case ZB_DURATION: {
          int64_t v = ((const int64_t *)data)[j];
          if (raw_stamps) {
            o = PyLong_FromLongLong(v);
            break;
          }
          o = zbpy_timedelta_from(v, (int)col->unit);
          break;
        }
        case ZB_DATE32: o = zbpy_date_from_days(((const int32_t *)data)[j]); break;
        case ZB_CATEGORICAL: {
          int32_t code = ((const int32_t *)data)[j];
          if (code < 0 || code >= PyList_GET_SIZE(dict)) {
            PyErr_Format(PyExc_ValueError, "categorical code %d at row %lld is out of range",
                         code, (long long)i);
          } else {
            o = Py_NewRef(PyList_GET_ITEM(dict, code));
          }
          break;
        }
        default:
          PyErr_Format(PyExc_TypeError, "to_pylist: unsupported dtype %s",
                       zb_type_name(col->type));
          break;
      }
      if (o == NULL) goto error;
    }
    PyList_SET_ITEM(list, (Py_ssize_t)i, o);
  }
  Py_XDECREF(dict);
  Py_XDECREF(zone);
  return list;
error:
  Py_XDECREF(dict);
  Py_XDECREF(zone);
  Py_DECREF(list);
  return NULL;
}

/* to_pylist(raw=False): raw gives timestamps as their int64 values. */
static PyObject *column_to_pylist(PyObject *self, PyObject *args) {
  int raw = 0;
  if (!PyArg_ParseTuple(args, "|p:to_pylist", &raw)) return NULL;
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  zb_column *host = NULL;
  if (zbpy_column_on_host(st, COL(self), &host) < 0) return NULL;
  PyObject *r = host_column_to_list(host, raw != 0);
  zb_column_release(host);
  return r;
}

static const char *buffer_format(zb_type_id t) {
  switch (t) {
    case ZB_INT8: return "b";
    case ZB_INT16: return "h";
    case ZB_INT32:
    case ZB_DATE32:
    case ZB_CATEGORICAL: return "i";
    case ZB_INT64:
    case ZB_TIMESTAMP:
    case ZB_DURATION: return "q";
    case ZB_UINT8: return "B";
    case ZB_UINT16: return "H";
    case ZB_UINT32: return "I";
    case ZB_UINT64: return "Q";
    case ZB_FLOAT32: return "f";
    case ZB_FLOAT64: return "d";
    default: return NULL;
  }
}

/* values(): a BufferView of the values.  Fixed-width host data is shared
 * (zero-copy); bools are unpacked into a new buffer of one byte each; GPU
 * data is copied to the host first.  Values under nulls are unspecified. */
static PyObject *column_values(PyObject *self, PyObject *unused) {
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  zb_column *col = COL(self);
  PyObject *result = NULL;
  zb_column *host = NULL;
  zb_buffer *bytes = NULL;
  if (col->type == ZB_STRING || col->type == ZB_LIST) {
    PyErr_Format(st->DTypeError,
                 "values(): %s columns have no fixed-width values; use to_pylist()",
                 col->type == ZB_LIST ? "list" : "string");
    return NULL;
  }
  if (zbpy_column_on_host(st, col, &host) < 0) return NULL;
  if (host->type == ZB_BOOL) {
    zb_error err;
    err.message[0] = '\0';
    zb_status s;
    int64_t n = host->length;
    ZBPY_BEGIN_ENGINE
    s = zb_buffer_new(ZB_CPU, n, &bytes, &err);
    if (s == ZB_OK) {
      const uint8_t *bits = (const uint8_t *)host->data->data;
      uint8_t *dst = (uint8_t *)bytes->data;
      for (int64_t i = 0; i < n; i++) dst[i] = zb_bit_get(bits, host->offset + i);
    }
    ZBPY_END_ENGINE
    if (s != ZB_OK) {
      zbpy_raise(st, s, &err);
      goto error;
    }
    result = zbpy_bufview_new(st, bytes, bytes->data, (Py_ssize_t)n, 1, "?");
  } else {
    int w = zb_type_width(host->type);
    const char *fmt = buffer_format(host->type);
    char *ptr = host->data != NULL ? (char *)host->data->data + host->offset * w : NULL;
    result = zbpy_bufview_new(st, host->data, ptr, (Py_ssize_t)host->length, w, fmt);
  }
error:
  zb_buffer_release(bytes);
  zb_column_release(host);
  return result;
}

/* null_mask(): bytes with 1 where the value is null, or None without nulls. */
static PyObject *column_null_mask(PyObject *self, PyObject *unused) {
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  zb_column *col = COL(self);
  if (col->null_count == 0 || col->validity == NULL) Py_RETURN_NONE;
  zb_column *host = NULL;
  if (zbpy_column_on_host(st, col, &host) < 0) return NULL;
  PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)host->length);
  if (b != NULL) {
    uint8_t *dst = (uint8_t *)PyBytes_AS_STRING(b);
    const uint8_t *bits = (const uint8_t *)host->validity->data;
    int64_t n = host->length, off = host->offset;
    ZBPY_BEGIN_ENGINE
    for (int64_t i = 0; i < n; i++) dst[i] = !zb_bit_get(bits, off + i);
    ZBPY_END_ENGINE
  }
  zb_column_release(host);
  return b;
}

static PyObject *column_arrow_c_schema(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"name", NULL};
  const char *name = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|z:__arrow_c_schema__", kwlist, &name))
    return NULL;
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  return zbpy_column_arrow_schema(st, COL(self), name);
}

static PyObject *column_arrow_c_array(PyObject *self, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"requested_schema", "name", NULL};
  PyObject *requested = Py_None;
  const char *name = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|Oz:__arrow_c_array__", kwlist, &requested,
                                   &name))
    return NULL;
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  /* requested_schema is a request, not a requirement: the producer may
   * answer with its own schema, which the consumer then casts. */
  return zbpy_column_arrow_array(st, COL(self), name);
}

static PyObject *column_repr(PyObject *self) {
  const zb_column *col = COL(self);
  PyObject *dt = zbpy_dtype_str(col);
  if (dt == NULL) return NULL;
  PyObject *dev = zbpy_device_str(col->device);
  if (dev == NULL) {
    Py_DECREF(dt);
    return NULL;
  }
  PyObject *r = PyUnicode_FromFormat("<zambezi._core.Column dtype=%U length=%lld nulls=%lld %U>",
                                     dt, (long long)col->length, (long long)col->null_count, dev);
  Py_DECREF(dt);
  Py_DECREF(dev);
  return r;
}

static PyObject *column_get_child(PyObject *self, void *c) {
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  const zb_column *col = COL(self);
  if (col->type != ZB_LIST || col->child == NULL) Py_RETURN_NONE;
  return zbpy_column_wrap(st, zb_column_retain(col->child));
}

/* list_offsets(): a list column's length + 1 int64 offsets into its child
 * (zero-copy on the host), for vectorised numpy work on list rows. */
static PyObject *column_list_offsets(PyObject *self, PyObject *unused) {
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  zb_column *col = COL(self);
  if (col->type != ZB_LIST) {
    PyErr_Format(st->DTypeError, "list_offsets(): a %s column is not a list",
                 zb_type_name(col->type));
    return NULL;
  }
  zb_column *host = NULL;
  if (zbpy_column_on_host(st, col, &host) < 0) return NULL;
  PyObject *r = zbpy_bufview_new(st, host->data, (int64_t *)host->data->data + host->offset,
                                 (Py_ssize_t)host->length + 1, 8, "q");
  zb_column_release(host);
  return r;
}

static PyGetSetDef column_getset[] = {
    {"child", column_get_child, NULL, "values of a list column's lists, or None", NULL},
    {"dtype", column_get_dtype, NULL, "dtype name, e.g. 'int64' or 'timestamp[us, tz=UTC]'",
     NULL},
    {"length", column_get_length, NULL, "number of values", NULL},
    {"null_count", column_get_null_count, NULL, "number of nulls", NULL},
    {"nbytes", column_get_nbytes, NULL, "bytes the values occupy (zb_column_nbytes)", NULL},
    {"device", column_get_device, NULL, "'cpu' or 'cuda:N'", NULL},
    {"unit", column_get_unit, NULL, "timestamp unit ('s', 'ms', 'us', 'ns') or None", NULL},
    {"timezone", column_get_timezone, NULL, "timestamp timezone or None", NULL},
    {"dictionary", column_get_dictionary, NULL, "categories of a categorical, or None", NULL},
    {"ordered", column_get_ordered, NULL, "whether a categorical's categories are ordered",
     NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* Whether other is a view of the same memory as this column: the same
 * type, rows and buffers (so, columns being immutable, the same values).
 * A test that costs nothing, where comparing values costs a pass; pandas
 * asks the same of a group-by key Series (is it the frame's own column?). */
static PyObject *column_same_data(PyObject *self, PyObject *arg) {
  zbpy_state *st = zbpy_state_of(self);
  if (st == NULL) return NULL;
  const zb_column *b = zbpy_arg_column(st, arg, "Column.same_data");
  if (b == NULL) return NULL;
  const zb_column *a = COL(self);
  bool tz = (a->timezone == NULL) == (b->timezone == NULL) &&
            (a->timezone == NULL || strcmp(a->timezone, b->timezone) == 0);
  return PyBool_FromLong(a == b || (a->type == b->type && a->unit == b->unit && tz &&
                                    a->length == b->length && a->offset == b->offset &&
                                    a->data == b->data && a->validity == b->validity &&
                                    a->chars == b->chars && a->dictionary == b->dictionary &&
                                    a->child == b->child));
}

static PyMethodDef column_methods[] = {
    {"same_data", column_same_data, METH_O,
     "same_data(other) -> bool: the same type, rows and memory (no values compared)"},
    {"reduce", column_reduce, METH_O,
     "reduce(op) -> int, float, bool or None; op is sum, min, max, mean or count"},
    {"slice", column_slice, METH_VARARGS, "slice(start, length) -> Column (zero-copy)"},
    {"to_device", column_to_device, METH_O, "to_device('cpu' | 'cuda' | 'cuda:N') -> Column"},
    {"to_pylist", column_to_pylist, METH_VARARGS,
     "to_pylist(raw=False) -> list (None for nulls; dates as datetime.date; timestamps as "
     "datetime.datetime, in their zone if they have one, or as int64 values when raw)"},
    {"values", column_values, METH_NOARGS,
     "values() -> BufferView of the values (zero-copy for fixed-width host data)"},
    {"list_offsets", column_list_offsets, METH_NOARGS,
     "list_offsets() -> BufferView of a list column's length + 1 int64 offsets into child"},
    {"null_mask", column_null_mask, METH_NOARGS,
     "null_mask() -> bytes, 1 where null, or None when there are no nulls"},
    {"__arrow_c_schema__", (PyCFunction)(void (*)(void))column_arrow_c_schema,
     METH_VARARGS | METH_KEYWORDS,
     "Arrow PyCapsule interface: the schema."},
    {"__arrow_c_array__", (PyCFunction)(void (*)(void))column_arrow_c_array,
     METH_VARARGS | METH_KEYWORDS, "Arrow PyCapsule interface: (schema, array) capsules."},
    {"__reduce_ex__", zbpy_column_reduce_ex, METH_O,
     "Pickle support: the dtype, length, null count and buffers of the column's rows "
     "(PickleBuffers from protocol 5, so they can travel out of band; a GPU column is "
     "pickled from a host copy and unpickles on the CPU)."},
    {"__copy__", zbpy_same_object, METH_NOARGS, "The column itself (it is immutable)."},
    {"__deepcopy__", zbpy_same_object, METH_O, "The column itself (it is immutable)."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot column_slots[] = {
    {Py_tp_dealloc, (void *)column_dealloc},
    {Py_tp_repr, (void *)column_repr},
    {Py_tp_getset, column_getset},
    {Py_tp_methods, column_methods},
    {Py_sq_length, (void *)column_len},
    {Py_tp_doc, (void *)"An immutable engine column (Arrow layout) on one device."},
    {0, NULL},
};

PyType_Spec zbpy_column_spec = {
    .name = "zambezi._core.Column",
    .basicsize = sizeof(zbpy_column),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = column_slots,
};
