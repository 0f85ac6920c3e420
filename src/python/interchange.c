/*
 * interchange.c -- columns shared with array libraries without copies:
 * DLPack capsules both ways, the CUDA Array Interface both ways, the Arrow
 * C Device Data Interface export, and the CUDA memory pool's counters.
 * python/zambezi/_interchange.py puts these behind Series.__dlpack__,
 * __cuda_array_interface__, __arrow_c_device_array__ and the constructors.
 *
 * Lifetimes: an exported DLPack tensor holds a column reference until the
 * consumer calls its deleter; an unconsumed capsule calls it when collected.
 * Imported memory stays with its producer: the column's buffer, when its
 * last reference goes (possibly on an engine thread without the GIL), calls
 * the producer's DLPack deleter or drops the reference to the object that
 * exposed __cuda_array_interface__, taking the GIL for that.  Exports that
 * DLPack or the CUDA Array Interface cannot carry (nulls, strings, dates;
 * bool where no copy is allowed) raise BufferError.
 */
#include "zbpy.h"

#include <string.h>

#include "zambezi/interop.h"

/* Raise for an export failure: BufferError when the data cannot be carried
 * (ZB_ENOTSUP), else the usual mapping. */
static PyObject *export_error(zbpy_state *st, zb_status s, const zb_error *err) {
  if (s == ZB_ENOTSUP) {
    PyErr_SetString(PyExc_BufferError, err->message);
    return NULL;
  }
  return zbpy_raise(st, s, err);
}

/* ---- DLPack export ------------------------------------------------------------ */

/* Call the deleter of a managed tensor of either DLPack version. */
static void run_deleter(void *m, bool versioned) {
  if (m == NULL) return;
  if (versioned) {
    DLManagedTensorVersioned *v = (DLManagedTensorVersioned *)m;
    if (v->deleter != NULL) v->deleter(v);
  } else {
    DLManagedTensor *l = (DLManagedTensor *)m;
    if (l->deleter != NULL) l->deleter(l);
  }
}

static const char *capsule_name(bool versioned, bool used) {
  if (used) return versioned ? "used_dltensor_versioned" : "used_dltensor";
  return versioned ? "dltensor_versioned" : "dltensor";
}

/* An unconsumed capsule still owns its tensor. */
static void dlpack_capsule_free(PyObject *cap) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  bool versioned = PyCapsule_IsValid(cap, capsule_name(true, false));
  if (versioned || PyCapsule_IsValid(cap, capsule_name(false, false)))
    run_deleter(PyCapsule_GetPointer(cap, capsule_name(versioned, false)), versioned);
  PyErr_Restore(type, value, tb);
}

/* A new column over a copy of col's rows on col's device (fixed width). */
static void no_release(void *ctx, void *data, int64_t size) {}

static zb_status copy_rows(const zb_column *col, zb_column **out, zb_error *err) {
  int64_t width = zb_type_width(col->type);
  zb_buffer *view = NULL, *copy = NULL;
  zb_status s = zb_buffer_wrap(col->device, (char *)col->data->data + col->offset * width,
                               col->length * width, no_release, NULL, &view, err);
  if (s == ZB_OK) s = zb_buffer_copy_to(view, col->device, &copy, err);
  if (s == ZB_OK)
    s = zb_column_make(col->type, col->length, 0, NULL, copy, NULL, NULL, 0, out, err);
  zb_buffer_release(view);
  zb_buffer_release(copy);
  return s;
}

/* column_dlpack(col, versioned, allow_copy, force_copy, device or None) -> capsule */
static PyObject *py_column_dlpack(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *col_obj, *dev_obj;
  int versioned, allow_copy, force_copy;
  if (!PyArg_ParseTuple(args, "OpppO:column_dlpack", &col_obj, &versioned, &allow_copy,
                        &force_copy, &dev_obj))
    return NULL;
  zb_column *col = zbpy_arg_column(st, col_obj, "column_dlpack");
  if (col == NULL) return NULL;
  zb_device dev = col->device;
  if (dev_obj != Py_None && zbpy_parse_device(st, dev_obj, &dev) < 0) return NULL;
  bool move = !zb_device_equal(dev, col->device);
  if (move && !allow_copy) {
    PyErr_SetString(PyExc_BufferError,
                    "__dlpack__: the data lives on another device than requested, and "
                    "copy=False forbids the copy");
    return NULL;
  }
  zb_column *src = NULL;
  void *m = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  bool copied = move || (force_copy && col->type != ZB_BOOL);
  ZBPY_BEGIN_ENGINE
  if (move) {
    s = zb_column_to_device(col, dev, &src, &err);
  } else if (copied && zb_type_is_numeric(col->type) && col->null_count == 0) {
    s = copy_rows(col, &src, &err);
  } else {
    src = zb_column_retain(col);
    s = ZB_OK;
  }
  if (s == ZB_OK) s = zb_column_export_dlpack(src, versioned, allow_copy, &m, &err);
  zb_column_release(src);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return export_error(st, s, &err);
  if (versioned && copied) {
    DLManagedTensorVersioned *v = (DLManagedTensorVersioned *)m;
    v->flags = (v->flags & ~(uint64_t)DLPACK_FLAG_BITMASK_READ_ONLY) |
               DLPACK_FLAG_BITMASK_IS_COPIED;
  }
  PyObject *cap = PyCapsule_New(m, capsule_name(versioned, false), dlpack_capsule_free);
  if (cap == NULL) run_deleter(m, versioned);
  return cap;
}

/* ---- imports: the producer's memory, released under the GIL ---------------------- */

/* Producers' deleters may touch Python objects: call them with the GIL (a
 * buffer may be released on any thread).  After interpreter shutdown the
 * memory is left to the process's end. */
static void run_deleter_with_gil(void *m, bool versioned) {
  if (!Py_IsInitialized()) return;
  PyGILState_STATE g = PyGILState_Ensure();
  run_deleter(m, versioned);
  PyGILState_Release(g);
}

static void release_dlpack_legacy(void *ctx, void *data, int64_t size) {
  run_deleter_with_gil(ctx, false);
}

static void release_dlpack_versioned(void *ctx, void *data, int64_t size) {
  run_deleter_with_gil(ctx, true);
}

static void release_pyobject(void *ctx, void *data, int64_t size) {
  if (!Py_IsInitialized()) return;
  PyGILState_STATE g = PyGILState_Ensure();
  Py_DECREF((PyObject *)ctx);
  PyGILState_Release(g);
}

/* Wait for t's GPU (the producer's queued work; for pinned host memory, a
 * copy into it may still be queued), then import t, GIL
 * released: a new column, or NULL with an exception, in which case release
 * has not been called.  (Wrapping the column is the caller's, after it has
 * settled who owns the producer's memory.) */
static zb_column *import_tensor(zbpy_state *st, const DLTensor *t,
                                zb_buffer_release_fn release, void *ctx) {
  zb_device dev = {ZB_DEVICE_CUDA, (int)t->device.device_id};
  bool gpu = (t->device.device_type == kDLCUDA || t->device.device_type == kDLCUDAManaged ||
              t->device.device_type == kDLCUDAHost) &&
             zb_cuda_device_usable(dev.id);
  zb_column *col = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s = ZB_OK;
  ZBPY_BEGIN_ENGINE
  if (gpu) s = zb_device_synchronize(dev, &err);
  if (s == ZB_OK) s = zb_column_import_dlpack(t, release, ctx, &col, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    return NULL;
  }
  return col;
}

/* column_from_dlpack(capsule) -> Column; consumes the capsule on success. */
static PyObject *py_column_from_dlpack(PyObject *module, PyObject *cap) {
  zbpy_state *st = zbpy_module_state(module);
  bool versioned = PyCapsule_IsValid(cap, capsule_name(true, false));
  if (!versioned && !PyCapsule_IsValid(cap, capsule_name(false, false))) {
    PyErr_SetString(PyExc_TypeError,
                    "expected an unused DLPack capsule ('dltensor' or 'dltensor_versioned')");
    return NULL;
  }
  void *m = PyCapsule_GetPointer(cap, capsule_name(versioned, false));
  if (m == NULL) return NULL;
  const DLTensor *t;
  if (versioned) {
    DLManagedTensorVersioned *v = (DLManagedTensorVersioned *)m;
    if (v->version.major != DLPACK_MAJOR_VERSION) {
      PyErr_Format(PyExc_BufferError, "DLPack version %u.%u is not supported (1.x is)",
                   (unsigned)v->version.major, (unsigned)v->version.minor);
      return NULL;
    }
    t = &v->dl_tensor;
  } else {
    t = &((DLManagedTensor *)m)->dl_tensor;
  }
  /* The release may run inside the import (copied data), so the capsule is
   * renamed -- consumed -- before anything can free the tensor twice. */
  if (PyCapsule_SetName(cap, capsule_name(versioned, true)) < 0) return NULL;
  zb_column *col =
      import_tensor(st, t, versioned ? release_dlpack_versioned : release_dlpack_legacy, m);
  if (col == NULL) {
    /* Not consumed after all: hand the tensor back to the capsule. */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (PyCapsule_SetName(cap, capsule_name(versioned, false)) < 0) PyErr_Clear();
    PyErr_Restore(type, value, tb);
    return NULL;
  }
  return zbpy_column_wrap(st, col);
}

/* ---- the CUDA Array Interface ------------------------------------------------------ */

static const char *typestr_of(zb_type_id t) {
  switch (t) {
    case ZB_INT8: return "|i1";
    case ZB_INT16: return "<i2";
    case ZB_INT32: return "<i4";
    case ZB_INT64: return "<i8";
    case ZB_UINT8: return "|u1";
    case ZB_UINT16: return "<u2";
    case ZB_UINT32: return "<u4";
    case ZB_UINT64: return "<u8";
    case ZB_FLOAT32: return "<f4";
    case ZB_FLOAT64: return "<f8";
    default: return NULL;
  }
}

/* column_cuda_array_interface(col) -> dict (version 3) */
static PyObject *py_column_cai(PyObject *module, PyObject *arg) {
  zbpy_state *st = zbpy_module_state(module);
  zb_column *col = zbpy_arg_column(st, arg, "column_cuda_array_interface");
  if (col == NULL) return NULL;
  if (col->device.kind != ZB_DEVICE_CUDA) {
    PyErr_SetString(PyExc_AttributeError,
                    "__cuda_array_interface__ is only for columns on a GPU; this one is on "
                    "the CPU (use numpy.asarray or __dlpack__)");
    return NULL;
  }
  const char *ts = typestr_of(col->type);
  if (ts == NULL) {
    PyErr_Format(PyExc_BufferError,
                 "__cuda_array_interface__ carries numbers, not a %s column%s",
                 zb_type_name(col->type),
                 col->type == ZB_BOOL
                     ? " (bools are bitmaps here: use __dlpack__, which copies them to "
                       "bytes, or cast to uint8)"
                     : "");
    return NULL;
  }
  if (col->null_count > 0) {
    PyErr_Format(PyExc_BufferError,
                 "the column has %lld null(s); the CUDA Array Interface export has no mask: "
                 "fill them first (fillna) or use __arrow_c_device_array__",
                 (long long)col->null_count);
    return NULL;
  }
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_device_synchronize(col->device, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  ((zbpy_column *)arg)->cai_exported = true;
  /* The interface asks for a 0 pointer for zero-size arrays. */
  char *ptr = col->length == 0 ? NULL
                               : (char *)col->data->data + col->offset * zb_type_width(col->type);
  /* The work is finished (synchronized), so no stream is named. */
  return Py_BuildValue("{s:(L),s:s,s:(NO),s:O,s:i,s:O}", "shape", (long long)col->length,
                       "typestr", ts, "data", PyLong_FromVoidPtr(ptr), Py_True, "strides",
                       Py_None, "version", 3, "stream", Py_None);
}

/* Parse a CAI typestr ("<f8", "|u1", "|b1") into a DLPack type. */
static int parse_typestr(const char *ts, DLDataType *out) {
  if (ts == NULL || strlen(ts) < 3 || (ts[0] != '<' && ts[0] != '|' && ts[0] != '='))
    return -1;
  char *end = NULL;
  long size = strtol(ts + 2, &end, 10);
  if (*end != '\0' || size <= 0 || size > 8) return -1;
  out->bits = (uint8_t)(size * 8);
  out->lanes = 1;
  switch (ts[1]) {
    case 'i': out->code = kDLInt; return 0;
    case 'u': out->code = kDLUInt; return 0;
    case 'f': out->code = kDLFloat; return 0;
    case 'b': out->code = kDLBool; return 0;
    default: return -1;
  }
}

/* An item of the interface dict (borrowed; NULL if absent or None). */
static PyObject *cai_item(PyObject *d, const char *key) {
  PyObject *v = PyDict_GetItemString(d, key);
  return v == Py_None ? NULL : v;
}

/* column_from_cuda_array(obj) -> Column over obj's device memory, holding
 * a reference to obj. */
static PyObject *py_column_from_cai(PyObject *module, PyObject *obj) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *d = PyObject_GetAttrString(obj, "__cuda_array_interface__");
  if (d == NULL) return NULL;
  PyObject *result = NULL;
  if (!PyDict_Check(d)) {
    PyErr_SetString(PyExc_TypeError, "__cuda_array_interface__ is not a dict");
    goto done;
  }
  PyObject *shape = cai_item(d, "shape"), *data = cai_item(d, "data");
  PyObject *strides = cai_item(d, "strides"), *ts_obj = cai_item(d, "typestr");
  if (cai_item(d, "mask") != NULL) {
    PyErr_SetString(PyExc_BufferError,
                    "arrays with a __cuda_array_interface__ mask are not supported");
    goto done;
  }
  if (shape == NULL || !PyTuple_Check(shape) || PyTuple_GET_SIZE(shape) != 1) {
    PyErr_SetString(st->InvalidValueError,
                    "a column needs a 1-D array (__cuda_array_interface__ shape)");
    goto done;
  }
  long long n = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, 0));
  if (n == -1 && PyErr_Occurred()) goto done;
  DLDataType dt;
  const char *ts = ts_obj != NULL && PyUnicode_Check(ts_obj) ? PyUnicode_AsUTF8(ts_obj) : NULL;
  if (ts == NULL || parse_typestr(ts, &dt) < 0) {
    PyErr_Clear();
    PyErr_Format(st->DTypeError, "__cuda_array_interface__ typestr %R is not supported",
                 ts_obj != NULL ? ts_obj : Py_None);
    goto done;
  }
  if (data == NULL || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) < 1) {
    PyErr_SetString(st->InvalidValueError, "__cuda_array_interface__ has no data pointer");
    goto done;
  }
  void *ptr = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
  if (ptr == NULL && PyErr_Occurred()) goto done;
  int64_t stride = 1;
  if (strides != NULL) {
    long long sb = PyTuple_Check(strides) && PyTuple_GET_SIZE(strides) == 1
                       ? PyLong_AsLongLong(PyTuple_GET_ITEM(strides, 0))
                       : 0;
    if (sb == -1 && PyErr_Occurred()) goto done;
    stride = sb % (dt.bits / 8) == 0 ? sb / (dt.bits / 8) : 0;
  }
  zb_error err;
  err.message[0] = '\0';
  zb_status s = ZB_OK;
  zb_device dev = ZB_CPU;
  if (n == 0) {
    /* Nothing to share: an empty column of the type, on the first GPU. */
    static const int64_t none = 0;
    int64_t zero = 0;
    DLTensor e = {(void *)&none, {kDLCPU, 0}, 1, dt, &zero, NULL, 0};
    zb_column *empty = NULL, *moved = NULL;
    zb_device gpu = {ZB_DEVICE_CUDA, zb_cuda_default_device()};
    s = zb_column_import_dlpack(&e, no_release, NULL, &empty, &err);
    if (s == ZB_OK) s = zb_column_to_device(empty, gpu, &moved, &err);
    zb_column_release(empty);
    if (s != ZB_OK) {
      zbpy_raise(st, s, &err);
      goto done;
    }
    result = zbpy_column_wrap(st, moved);
    goto done;
  }
  /* A "stream" needs no wait of its own: the import waits for the whole
   * device, which covers the producer's streams. */
  s = zb_cuda_pointer_device(ptr, &dev, &err);
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto done;
  }
  int64_t len = n;
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = ptr;
  t.device.device_type = dev.kind == ZB_DEVICE_CPU ? kDLCPU : kDLCUDA;
  t.device.device_id = dev.kind == ZB_DEVICE_CPU ? 0 : dev.id;
  t.ndim = 1;
  t.dtype = dt;
  t.shape = &len;
  t.strides = &stride;
  Py_INCREF(obj);
  zb_column *col = import_tensor(st, &t, release_pyobject, obj);
  if (col == NULL)
    Py_DECREF(obj);
  else
    result = zbpy_column_wrap(st, col);
done:
  Py_DECREF(d);
  return result;
}

/* ---- Arrow C Device Data Interface ----------------------------------------------------- */

/* column_arrow_device_array(col, name or None) -> (schema capsule, device array capsule) */
static PyObject *py_column_arrow_device_array(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *col_obj;
  const char *name = NULL;
  if (!PyArg_ParseTuple(args, "Oz:column_arrow_device_array", &col_obj, &name)) return NULL;
  zb_column *col = zbpy_arg_column(st, col_obj, "column_arrow_device_array");
  if (col == NULL) return NULL;
  return zbpy_column_arrow_device_array(st, col, name);
}

/* ---- the CUDA memory pool ------------------------------------------------------------- */

/* The GPU named by a device string ("cuda", "cuda:N"); -1 with an
 * exception for the CPU or a GPU that is not there. */
static int gpu_arg(zbpy_state *st, PyObject *arg) {
  zb_device dev;
  if (zbpy_parse_device(st, arg, &dev) < 0) return -1;
  if (dev.kind != ZB_DEVICE_CUDA) {
    PyErr_Format(st->InvalidValueError, "%R is not a GPU (expected 'cuda' or 'cuda:N')", arg);
    return -1;
  }
  return dev.id;
}

static PyObject *py_cuda_memory_info(PyObject *module, PyObject *arg) {
  zbpy_state *st = zbpy_module_state(module);
  int id = gpu_arg(st, arg);
  if (id < 0) return NULL;
  zb_cuda_memory_info info;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_cuda_get_memory_info(id, &info, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  zb_alloc_stats a;
  zb_alloc_get_stats(&a);
  return Py_BuildValue("{s:O,s:L,s:L,s:L,s:L,s:L,s:L,s:L}", "pool_enabled",
                       info.pool_enabled ? Py_True : Py_False, "pool_reserved",
                       (long long)info.pool_reserved, "pool_used", (long long)info.pool_used,
                       "release_threshold", (long long)info.release_threshold, "staging_bytes",
                       (long long)info.staging_bytes, "engine_bytes",
                       (long long)a.device_bytes, "free", (long long)info.free_memory, "total",
                       (long long)info.total_memory);
}

static PyObject *py_cuda_release_cached_memory(PyObject *module, PyObject *arg) {
  zbpy_state *st = zbpy_module_state(module);
  int id = gpu_arg(st, arg);
  if (id < 0) return NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_cuda_release_cached_memory(id, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  Py_RETURN_NONE;
}

PyMethodDef zbpy_interchange_methods[] = {
    {"column_dlpack", py_column_dlpack, METH_VARARGS,
     "column_dlpack(col, versioned, allow_copy, force_copy, device) -> DLPack capsule"},
    {"column_from_dlpack", py_column_from_dlpack, METH_O,
     "column_from_dlpack(capsule) -> Column sharing the tensor's memory"},
    {"column_cuda_array_interface", py_column_cai, METH_O,
     "column_cuda_array_interface(col) -> dict (CUDA Array Interface v3)"},
    {"column_from_cuda_array", py_column_from_cai, METH_O,
     "column_from_cuda_array(obj) -> Column sharing obj's device memory"},
    {"column_arrow_device_array", py_column_arrow_device_array, METH_VARARGS,
     "column_arrow_device_array(col, name) -> (arrow_schema, arrow_device_array) capsules"},
    {"cuda_memory_info", py_cuda_memory_info, METH_O,
     "cuda_memory_info(device) -> dict of the CUDA memory pool's counters"},
    {"cuda_release_cached_memory", py_cuda_release_cached_memory, METH_O,
     "cuda_release_cached_memory(device): give the pool's unused memory back"},
    {NULL, NULL, 0, NULL},
};
