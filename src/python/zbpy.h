/*
 * zbpy.h -- what the files of the extension module zambezi._core share.
 *
 * The module uses multi-phase initialisation; its state (heap types and the
 * exception classes) lives in the module object, never in C globals.  Every
 * object wraps one engine reference (zb_column *, zb_table *, zb_buffer *)
 * that it releases when it is collected.  Helpers here follow the CPython
 * convention: they return NULL or -1 with a Python exception set.
 */
#ifndef ZAMBEZI_ZBPY_H
#define ZAMBEZI_ZBPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "zambezi/arrow.h"
#include "zambezi/zambezi.h"

typedef struct zbpy_state {
  PyTypeObject *column_type;
  PyTypeObject *table_type;
  PyTypeObject *bufview_type;
  PyObject *ZambeziError;
  PyObject *InvalidValueError;
  PyObject *ParseError;
  PyObject *DTypeError;
  PyObject *OutOfMemoryError;
  PyObject *ZambeziIndexError;
  PyObject *ColumnNotFoundError;
  PyObject *UnsupportedError;
  PyObject *DeviceError;
  PyObject *ZambeziIOError;
  PyObject *ZambeziOverflowError;
} zbpy_state;

typedef struct zbpy_column {
  PyObject_HEAD
  zb_column *col; /* owned reference, never NULL after construction */
  /* its device memory was handed out through __cuda_array_interface__: the
   * consumer may still have work queued on its own streams when it lets go,
   * so the device is synchronized before the reference is dropped */
  bool cai_exported;
} zbpy_column;

typedef struct zbpy_table {
  PyObject_HEAD
  zb_table *table; /* owned reference */
} zbpy_table;

/* A read-only 1-D buffer-protocol view of (part of) an engine buffer on the
 * host.  Holds a reference to the buffer, so numpy arrays made from it keep
 * the data alive.  writable only for the fresh output buffer of a user
 * function (udf.c), before a column is made over it. */
typedef struct zbpy_bufview {
  PyObject_HEAD
  zb_buffer *buf;
  char *ptr;
  Py_ssize_t shape;    /* number of items */
  Py_ssize_t itemsize; /* also the stride */
  char format[4];
  bool writable;
} zbpy_bufview;

extern PyModuleDef zbpy_module_def;

/* The module state for an object of one of our types (NULL + exception if
 * the type's module is gone). */
zbpy_state *zbpy_state_of(PyObject *self);

/* Raise the exception for a non-OK status; returns NULL. */
PyObject *zbpy_raise(zbpy_state *st, zb_status status, const zb_error *err);
/* Raise OutOfMemoryError for a failed allocation in the extension. */
PyObject *zbpy_raise_nomem(zbpy_state *st, const char *what, size_t bytes);

/* Every engine call runs between these, instead of Py_BEGIN/END_ALLOW_THREADS:
 * the GIL is released, and the call is a cancellation scope (zambezi.h), so
 * a Ctrl-C arriving meanwhile (zbpy_watch_sigint) stops it at its next
 * morsel with ZB_ECANCEL, which zbpy_raise turns into the signal handler's
 * exception, KeyboardInterrupt by default. */
void zbpy_watch_sigint(void);
#define ZBPY_BEGIN_ENGINE                                                      \
  {                                                                            \
    zbpy_watch_sigint();                                                       \
    PyThreadState *zbpy_save_ = PyEval_SaveThread();                           \
    zb_cancel_scope_begin();
#define ZBPY_END_ENGINE                                                        \
  zb_cancel_scope_end();                                                       \
  PyEval_RestoreThread(zbpy_save_);                                            \
  }

/* s = call (an engine call returning zb_status), the GIL released around
 * it as ZBPY_BEGIN_ENGINE says. */
#define ZBPY_RUN_ENGINE(s, call) \
  ZBPY_BEGIN_ENGINE              \
  (s) = (call);                  \
  ZBPY_END_ENGINE

/* New Python wrappers; they take over the reference (released on failure). */
PyObject *zbpy_column_wrap(zbpy_state *st, zb_column *col);
PyObject *zbpy_table_wrap(zbpy_state *st, zb_table *table);
/* New read-only view of nbytes at ptr inside buf (retained). */
PyObject *zbpy_bufview_new(zbpy_state *st, zb_buffer *buf, void *ptr, Py_ssize_t n,
                           Py_ssize_t itemsize, const char *format);

/* Parse "cpu", "cuda", "cuda:N", "gpu".  Raises DeviceError when the device
 * is a GPU that is not present, saying why. */
int zbpy_parse_device(zbpy_state *st, PyObject *obj, zb_device *out);
/* "cpu" or "cuda:N" as a new str. */
PyObject *zbpy_device_str(zb_device d);

/* Parse a canonical dtype name: "bool", "int8".."uint64", "float32",
 * "float64", "string", "category", "date32", "timestamp" (microseconds),
 * "timestamp[ns]", "timestamp[us, tz=UTC]".  Aliases ("Int64", "str",
 * "datetime64[ms]" ...) are DTypeError: zambezi._dtypes maps them.  The zone
 * is copied into tz, a caller buffer of tz_size bytes ("" if none). */
int zbpy_parse_dtype(zbpy_state *st, const char *name, zb_type_id *type,
                     zb_time_unit *unit, char *tz, size_t tz_size);
/* "s", "ms", "us", "ns"; parse returns -1 with ValueError when unknown. */
const char *zbpy_unit_name(zb_time_unit unit);
int zbpy_parse_unit(const char *s, zb_time_unit *out);
/* The dtype text of a column: "int64", "timestamp[us, tz=UTC]" ... */
PyObject *zbpy_dtype_str(const zb_column *col);

/* Arrow capsules (arrow.c). */
PyObject *zbpy_column_arrow_schema(zbpy_state *st, zb_column *col, const char *name);
PyObject *zbpy_column_arrow_array(zbpy_state *st, zb_column *col, const char *name);
PyObject *zbpy_table_arrow_schema(zbpy_state *st, zb_table *t, const char *metadata,
                                  Py_ssize_t metadata_size);
PyObject *zbpy_table_arrow_array(zbpy_state *st, zb_table *t);
PyObject *zbpy_table_arrow_stream(zbpy_state *st, zb_table *t, const char *metadata,
                                  Py_ssize_t metadata_size);
/* (schema, "arrow_device_array") capsules of a column on any device, its
 * buffers shared (C Device Data Interface). */
PyObject *zbpy_column_arrow_device_array(zbpy_state *st, zb_column *col, const char *name);
PyObject *zbpy_import_arrow_array(PyObject *module, PyObject *const *args, Py_ssize_t n);
PyObject *zbpy_import_arrow_stream(PyObject *module, PyObject *arg);

/* The state of the zambezi._core module object (a module function's first
 * argument). */
static inline zbpy_state *zbpy_module_state(PyObject *module) {
  return (zbpy_state *)PyModule_GetState(module);
}

/* The engine column / table of a _core.Column / _core.Table argument
 * (borrowed), or NULL with a TypeError naming `what` (module.c). */
zb_column *zbpy_arg_column(zbpy_state *st, PyObject *o, const char *what);
zb_table *zbpy_arg_table(zbpy_state *st, PyObject *o, const char *what);

/* The end of a binding whose engine call returned s and made out (NULL
 * when s is not ZB_OK): out's wrapper, or NULL with the exception for s
 * (err its message) (module.c). */
PyObject *zbpy_column_result(zbpy_state *st, zb_status s, const zb_error *err, zb_column *out);
PyObject *zbpy_table_result(zbpy_state *st, zb_status s, const zb_error *err, zb_table *out);

/* The ints of sequence o as a new PyMem array *out (free with PyMem_Free)
 * of *n values; not_seq is the TypeError's message when o is no sequence.
 * -1 with the exception and *out NULL on failure (module.c). */
int zbpy_int64_array(PyObject *o, const char *not_seq, int64_t **out, int64_t *n);

/* A zb_scalar as a Python int, float, bool or None (column.c). */
PyObject *zbpy_scalar_to_py(const zb_scalar *s);

/* Constructors (build.c). */
PyObject *zbpy_column_from_sequence(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *zbpy_column_from_buffer(PyObject *module, PyObject *args, PyObject *kwargs);
PyObject *zbpy_categorical_from_codes(PyObject *module, PyObject *args, PyObject *kwargs);

/* Pickling and copying (pickle.c): Column/Table.__reduce_ex__(protocol),
 * __copy__ / __deepcopy__ (the object itself: it is immutable), and the
 * module's _column_from_pickle (in zbpy_pickle_methods). */
PyObject *zbpy_column_reduce_ex(PyObject *self, PyObject *protocol);
PyObject *zbpy_table_reduce_ex(PyObject *self, PyObject *protocol);
PyObject *zbpy_same_object(PyObject *self, PyObject *unused);

/* datetime helpers (dates.c, the only file using the datetime C API). */
int zbpy_dates_init(void);
PyObject *zbpy_date_from_days(int32_t days);
/* Ticks per second of each zb_time_unit (s, ms, us, ns). */
extern const int64_t zbpy_per_second[4];
/* A timestamp value of unit (zb_time_unit) as datetime.datetime: naive, or
 * aware in UTC when utc (see dates.c). */
PyObject *zbpy_datetime_from(int64_t v, int unit, bool utc);
/* A duration value of unit (zb_time_unit) as datetime.timedelta (whole
 * microseconds, rounded down). */
PyObject *zbpy_timedelta_from(int64_t v, int unit);
/* 1 if o is a datetime.timedelta (pd.Timedelta too), else 0. */
int zbpy_is_timedelta(PyObject *o);
/* o (a timedelta) in `unit`; pd.Timedelta's nanoseconds (its .value) are
 * used when present.  -1 with an exception on overflow. */
int zbpy_timedelta_to_unit(PyObject *o, int unit, int64_t *out);
/* 1 if o is a datetime.datetime, 2 if a datetime.date, else 0. */
int zbpy_date_kind(PyObject *o);
int32_t zbpy_date_to_days(PyObject *date);
/* Microseconds since the epoch; *aware set if it has a tzinfo (then the
 * value is UTC).  -1 with an exception on failure. */
int zbpy_datetime_to_us(PyObject *dt, int64_t *out, int *aware);
/* The tzinfo of a datetime (borrowed; Py_None when naive). */
PyObject *zbpy_datetime_tzinfo(PyObject *dt);
/* out = "+HH:MM" / "-HH:MM" (the name _tz.zone_name gives) when zone is a
 * datetime.timezone of a non-zero offset of whole minutes, returning 1;
 * else 0, out untouched. */
int zbpy_fixed_offset_name(PyObject *zone, char *out, size_t size);
/* The zb_time_unit a datetime asks for, as pandas infers it: a
 * pd.Timestamp's own unit (its .unit), else microseconds; and its
 * nanoseconds past the microsecond (pd.Timestamp.nanosecond, else 0).
 * -1 with an exception on failure. */
int zbpy_datetime_unit(PyObject *dt, int *unit, int *nanos);
/* 1 if o is pandas' NaT (a datetime subclass whose fields mean nothing). */
int zbpy_is_nat(PyObject *o);

/* A host copy of col (a new reference to col itself when it is already on
 * the host).  The GIL is released around the copy. */
int zbpy_column_on_host(zbpy_state *st, zb_column *col, zb_column **out);
int zbpy_table_on_host(zbpy_state *st, zb_table *t, zb_table **out);

#endif /* ZAMBEZI_ZBPY_H */
