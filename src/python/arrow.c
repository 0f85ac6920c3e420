/*
 * arrow.c -- the Arrow PyCapsule interface: exporting columns and tables as
 * "arrow_schema" / "arrow_array" / "arrow_array_stream" capsules, and
 * importing such capsules from pyarrow, polars, duckdb and friends.
 *
 * An exported capsule owns a struct allocated here; its destructor calls the
 * struct's release callback if no consumer moved it out, then frees it.
 * Device data is copied to the host before export (the C Data Interface is
 * host memory).  Imports move the producer's ArrowArray into the engine.
 */
#include "zbpy.h"

#include <string.h>

static void schema_capsule_free(PyObject *cap) {
  struct ArrowSchema *s = (struct ArrowSchema *)PyCapsule_GetPointer(cap, "arrow_schema");
  if (s == NULL) {
    PyErr_Clear();
    return;
  }
  if (s->release != NULL) s->release(s);
  zb_free(s);
}

static void array_capsule_free(PyObject *cap) {
  struct ArrowArray *a = (struct ArrowArray *)PyCapsule_GetPointer(cap, "arrow_array");
  if (a == NULL) {
    PyErr_Clear();
    return;
  }
  if (a->release != NULL) a->release(a);
  zb_free(a);
}

/* An ArrowDeviceArray starts with its ArrowArray, so the pointer is both. */
static void device_array_capsule_free(PyObject *cap) {
  struct ArrowDeviceArray *d =
      (struct ArrowDeviceArray *)PyCapsule_GetPointer(cap, "arrow_device_array");
  if (d == NULL) {
    PyErr_Clear();
    return;
  }
  if (d->array.release != NULL) d->array.release(&d->array);
  zb_free(d);
}

static void stream_capsule_free(PyObject *cap) {
  struct ArrowArrayStream *s =
      (struct ArrowArrayStream *)PyCapsule_GetPointer(cap, "arrow_array_stream");
  if (s == NULL) {
    PyErr_Clear();
    return;
  }
  if (s->release != NULL) s->release(s);
  zb_free(s);
}

/* Capsule around a filled struct; on failure releases and frees it. */
static PyObject *schema_capsule(struct ArrowSchema *s) {
  PyObject *cap = PyCapsule_New(s, "arrow_schema", schema_capsule_free);
  if (cap == NULL) {
    if (s->release != NULL) s->release(s);
    zb_free(s);
  }
  return cap;
}

/* device: a is the first member of an ArrowDeviceArray. */
static PyObject *array_capsule(struct ArrowArray *a, bool device) {
  PyObject *cap = device ? PyCapsule_New(a, "arrow_device_array", device_array_capsule_free)
                         : PyCapsule_New(a, "arrow_array", array_capsule_free);
  if (cap == NULL) {
    if (a->release != NULL) a->release(a);
    zb_free(a);
  }
  return cap;
}

/* Allocate a zeroed struct of size bytes for a capsule. */
static void *new_struct(zbpy_state *st, size_t size, const char *what) {
  void *p = zb_calloc(1, size);
  if (p == NULL) zbpy_raise_nomem(st, what, size);
  return p;
}

PyObject *zbpy_column_arrow_schema(zbpy_state *st, zb_column *col, const char *name) {
  struct ArrowSchema *s = new_struct(st, sizeof *s, "an ArrowSchema");
  if (s == NULL) return NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status rc;
  ZBPY_BEGIN_ENGINE
  rc = zb_column_export_schema(col, name, s, &err);
  ZBPY_END_ENGINE
  if (rc != ZB_OK) {
    zb_free(s);
    return zbpy_raise(st, rc, &err);
  }
  return schema_capsule(s);
}

/* The pair (schema capsule, array capsule) taking both exported structs; on
 * failure both are released and freed (neither leaks the references an
 * export holds). */
static PyObject *capsule_pair(struct ArrowSchema *s, struct ArrowArray *a, bool device) {
  PyObject *scap = schema_capsule(s);
  if (scap == NULL) {
    if (a->release != NULL) a->release(a);
    zb_free(a);
    return NULL;
  }
  PyObject *acap = array_capsule(a, device);
  PyObject *result = acap == NULL ? NULL : PyTuple_Pack(2, scap, acap);
  Py_DECREF(scap);
  Py_XDECREF(acap);
  return result;
}

PyObject *zbpy_column_arrow_array(zbpy_state *st, zb_column *col, const char *name) {
  PyObject *result = NULL;
  struct ArrowSchema *s = NULL;
  struct ArrowArray *a = NULL;
  zb_column *host = NULL;
  if (zbpy_column_on_host(st, col, &host) < 0) goto error;
  s = new_struct(st, sizeof *s, "an ArrowSchema");
  if (s == NULL) goto error;
  a = new_struct(st, sizeof *a, "an ArrowArray");
  if (a == NULL) goto error;
  zb_error err;
  err.message[0] = '\0';
  zb_status rc;
  ZBPY_BEGIN_ENGINE
  rc = zb_column_export_arrow(host, name, s, a, &err);
  ZBPY_END_ENGINE
  if (rc != ZB_OK) {
    zbpy_raise(st, rc, &err);
    goto error;
  }
  result = capsule_pair(s, a, false);
  s = NULL; /* owned by the capsules, or released */
  a = NULL;
error:
  zb_free(s);
  zb_free(a);
  zb_column_release(host);
  return result;
}

PyObject *zbpy_column_arrow_device_array(zbpy_state *st, zb_column *col, const char *name) {
  struct ArrowSchema *s = new_struct(st, sizeof *s, "an ArrowSchema");
  if (s == NULL) return NULL;
  struct ArrowDeviceArray *d = new_struct(st, sizeof *d, "an ArrowDeviceArray");
  if (d == NULL) {
    zb_free(s);
    return NULL;
  }
  zb_error err;
  err.message[0] = '\0';
  zb_status rc;
  ZBPY_BEGIN_ENGINE
  rc = zb_column_export_device_arrow(col, name, s, d, &err);
  ZBPY_END_ENGINE
  if (rc != ZB_OK) {
    zb_free(s);
    zb_free(d);
    return zbpy_raise(st, rc, &err);
  }
  return capsule_pair(s, &d->array, true);
}

PyObject *zbpy_table_arrow_schema(zbpy_state *st, zb_table *t, const char *metadata,
                                  Py_ssize_t metadata_size) {
  struct ArrowSchema *s = new_struct(st, sizeof *s, "an ArrowSchema");
  if (s == NULL) return NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status rc;
  ZBPY_BEGIN_ENGINE
  rc = zb_table_export_schema_with_metadata(t, metadata, (int64_t)metadata_size, s, &err);
  ZBPY_END_ENGINE
  if (rc != ZB_OK) {
    zb_free(s);
    return zbpy_raise(st, rc, &err);
  }
  return schema_capsule(s);
}

PyObject *zbpy_table_arrow_array(zbpy_state *st, zb_table *t) {
  PyObject *result = NULL;
  struct ArrowSchema *s = NULL;
  struct ArrowArray *a = NULL;
  zb_table *host = NULL;
  if (zbpy_table_on_host(st, t, &host) < 0) goto error;
  s = new_struct(st, sizeof *s, "an ArrowSchema");
  if (s == NULL) goto error;
  a = new_struct(st, sizeof *a, "an ArrowArray");
  if (a == NULL) goto error;
  zb_error err;
  err.message[0] = '\0';
  zb_status rc;
  ZBPY_BEGIN_ENGINE
  rc = zb_table_export_arrow(host, s, a, &err);
  ZBPY_END_ENGINE
  if (rc != ZB_OK) {
    zbpy_raise(st, rc, &err);
    goto error;
  }
  result = capsule_pair(s, a, false);
  s = NULL; /* owned by the capsules, or released */
  a = NULL;
error:
  zb_free(s);
  zb_free(a);
  zb_table_release(host);
  return result;
}

PyObject *zbpy_table_arrow_stream(zbpy_state *st, zb_table *t, const char *metadata,
                                  Py_ssize_t metadata_size) {
  PyObject *cap = NULL;
  zb_table *host = NULL;
  if (zbpy_table_on_host(st, t, &host) < 0) return NULL;
  struct ArrowArrayStream *s = new_struct(st, sizeof *s, "an ArrowArrayStream");
  if (s == NULL) goto error;
  zb_error err;
  err.message[0] = '\0';
  zb_status rc;
  ZBPY_BEGIN_ENGINE
  rc = zb_table_export_stream_with_metadata(host, metadata, (int64_t)metadata_size, s, &err);
  ZBPY_END_ENGINE
  if (rc != ZB_OK) {
    zb_free(s);
    zbpy_raise(st, rc, &err);
    goto error;
  }
  cap = PyCapsule_New(s, "arrow_array_stream", stream_capsule_free);
  if (cap == NULL) {
    if (s->release != NULL) s->release(s);
    zb_free(s);
  }
error:
  zb_table_release(host);
  return cap;
}

/* import_arrow_array(schema_capsule, array_capsule) -> Column, or Table when
 * the schema is a struct (a record batch). */
PyObject *zbpy_import_arrow_array(PyObject *module, PyObject *const *args, Py_ssize_t n) {
  zbpy_state *st = (zbpy_state *)PyModule_GetState(module);
  if (n != 2) {
    PyErr_SetString(PyExc_TypeError,
                    "import_arrow_array(schema_capsule, array_capsule) takes 2 arguments");
    return NULL;
  }
  struct ArrowSchema *s = (struct ArrowSchema *)PyCapsule_GetPointer(args[0], "arrow_schema");
  if (s == NULL) return NULL;
  struct ArrowArray *a = (struct ArrowArray *)PyCapsule_GetPointer(args[1], "arrow_array");
  if (a == NULL) return NULL;
  if (s->release == NULL || a->release == NULL) {
    PyErr_SetString(st->InvalidValueError,
                    "import_arrow_array: the Arrow schema or array was already consumed");
    return NULL;
  }
  bool is_struct = s->format != NULL && strcmp(s->format, "+s") == 0;
  zb_error err;
  err.message[0] = '\0';
  zb_status rc;
  if (is_struct) {
    zb_table *t = NULL;
    ZBPY_BEGIN_ENGINE
    rc = zb_table_import_arrow(s, a, &t, &err);
    ZBPY_END_ENGINE
    if (rc != ZB_OK) return zbpy_raise(st, rc, &err);
    return zbpy_table_wrap(st, t);
  }
  zb_column *c = NULL;
  ZBPY_BEGIN_ENGINE
  rc = zb_column_import_arrow(s, a, &c, &err);
  ZBPY_END_ENGINE
  if (rc != ZB_OK) return zbpy_raise(st, rc, &err);
  return zbpy_column_wrap(st, c);
}

/* import_arrow_stream(stream_capsule) -> Table.  The stream is consumed. */
PyObject *zbpy_import_arrow_stream(PyObject *module, PyObject *arg) {
  zbpy_state *st = (zbpy_state *)PyModule_GetState(module);
  struct ArrowArrayStream *s =
      (struct ArrowArrayStream *)PyCapsule_GetPointer(arg, "arrow_array_stream");
  if (s == NULL) return NULL;
  if (s->release == NULL) {
    PyErr_SetString(st->InvalidValueError,
                    "import_arrow_stream: the Arrow stream was already consumed");
    return NULL;
  }
  zb_table *t = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status rc;
  ZBPY_BEGIN_ENGINE
  rc = zb_table_import_stream(s, &t, &err);
  ZBPY_END_ENGINE
  if (rc != ZB_OK) return zbpy_raise(st, rc, &err);
  return zbpy_table_wrap(st, t);
}
