/*
 * module.c -- the module object zambezi._core: multi-phase initialisation,
 * the module state (heap types and the ZambeziError hierarchy), the mapping
 * from zb_status to exceptions, device and dtype parsing, and the small
 * module-level functions (devices, build information, allocator counters,
 * thread settings, table_from_columns).
 */
#include "zbpy.h"

#include <string.h>

extern PyType_Spec zbpy_column_spec;
extern PyType_Spec zbpy_table_spec;
extern PyType_Spec zbpy_bufview_spec;
/* Each feature file exports its module functions as one method array. */
extern PyMethodDef zbpy_strings_methods[]; /* strings.c: .str, .dt, clip, round, where */
extern PyMethodDef zbpy_stats_methods[];   /* stats.c: statistics and hashing */
extern PyMethodDef zbpy_compute_methods[]; /* compute.c: arithmetic, casts, filter, sort */
extern PyMethodDef zbpy_csv_methods[];     /* csv.c: read_csv, to_csv */
extern PyMethodDef zbpy_json_methods[];    /* json.c: read_json, to_json */
extern PyMethodDef zbpy_parquet_methods[]; /* parquet.c: read_parquet */
extern PyMethodDef zbpy_join_methods[];    /* join.c: join_indices */
extern PyMethodDef zbpy_groupby_methods[]; /* groupby.c: groupby, group ids */
extern PyMethodDef zbpy_profile_methods[]; /* profile.c: zambezi.profile() */
extern PyMethodDef zbpy_interchange_methods[]; /* interchange.c: DLPack, CUDA arrays */
extern PyMethodDef zbpy_pickle_methods[];      /* pickle.c: _column_from_pickle */
extern PyMethodDef zbpy_window_methods[];      /* window.c: rolling, time_range, time_bins */
extern PyMethodDef zbpy_list_methods[];        /* list.c: list columns from Python */
extern PyMethodDef zbpy_ewm_methods[];         /* ewm.c: ewm */
extern PyMethodDef zbpy_regex_methods[];       /* regex.c: str pattern methods */
extern PyMethodDef zbpy_ipc_methods[];         /* ipc.c: read_ipc, write_ipc (Feather) */
extern PyMethodDef zbpy_reshape_methods[];     /* reshape.c: one_hot, repeat */
extern PyMethodDef zbpy_udf_methods[];         /* udf.c: buffers for compiled user functions */


zb_column *zbpy_arg_column(zbpy_state *st, PyObject *o, const char *what) {
  if (!PyObject_TypeCheck(o, st->column_type)) {
    PyErr_Format(PyExc_TypeError, "%s: expected a zambezi._core.Column, not %s", what,
                 Py_TYPE(o)->tp_name);
    return NULL;
  }
  return ((zbpy_column *)o)->col;
}

zb_table *zbpy_arg_table(zbpy_state *st, PyObject *o, const char *what) {
  if (!PyObject_TypeCheck(o, st->table_type)) {
    PyErr_Format(PyExc_TypeError, "%s: expected a zambezi._core.Table, not %s", what,
                 Py_TYPE(o)->tp_name);
    return NULL;
  }
  return ((zbpy_table *)o)->table;
}

PyObject *zbpy_column_result(zbpy_state *st, zb_status s, const zb_error *err, zb_column *out) {
  if (s != ZB_OK) return zbpy_raise(st, s, err);
  return zbpy_column_wrap(st, out);
}

PyObject *zbpy_table_result(zbpy_state *st, zb_status s, const zb_error *err, zb_table *out) {
  if (s != ZB_OK) return zbpy_raise(st, s, err);
  return zbpy_table_wrap(st, out);
}

int zbpy_int64_array(PyObject *o, const char *not_seq, int64_t **out, int64_t *n) {
  *out = NULL;
  *n = 0;
  PyObject *fast = PySequence_Fast(o, not_seq);
  if (fast == NULL) return -1;
  Py_ssize_t m = PySequence_Fast_GET_SIZE(fast);
  int64_t *k = (int64_t *)PyMem_Malloc((size_t)(m > 0 ? m : 1) * sizeof(int64_t));
  if (k == NULL) {
    Py_DECREF(fast);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < m; i++) {
    long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
    if (v == -1 && PyErr_Occurred()) {
      PyMem_Free(k);
      Py_DECREF(fast);
      return -1;
    }
    k[i] = v;
  }
  Py_DECREF(fast);
  *out = k;
  *n = m;
  return 0;
}

zbpy_state *zbpy_state_of(PyObject *self) {
  PyObject *m = PyType_GetModuleByDef(Py_TYPE(self), &zbpy_module_def);
  if (m == NULL) return NULL;
  return (zbpy_state *)PyModule_GetState(m);
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

PyObject *zbpy_raise(zbpy_state *st, zb_status status, const zb_error *err) {
  const char *msg = (err != NULL && err->message[0] != '\0') ? err->message
                                                              : zb_status_name(status);
  PyObject *exc;
  switch (status) {
    case ZB_EINVAL: exc = st->InvalidValueError; break;
    case ZB_EPARSE: exc = st->ParseError; break;
    case ZB_ETYPE: exc = st->DTypeError; break;
    case ZB_ENOMEM: {
      zb_alloc_refusal r;
      if (zb_alloc_take_refusal(&r)) {
        PyErr_Format(st->OutOfMemoryError,
                     "%s%s%s: over the memory limit: asked for %lld bytes with %lld in use, "
                     "%lld allowed (zambezi.set_memory_limit or ZAMBEZI_MEMORY_LIMIT "
                     "raise it)",
                     r.op ? r.op : "", r.op ? ": " : "", msg, (long long)r.asked,
                     (long long)r.in_use, (long long)r.limit);
        return NULL;
      }
      exc = st->OutOfMemoryError;
      break;
    }
    case ZB_EINDEX: exc = st->ZambeziIndexError; break;
    case ZB_EKEY: exc = st->ColumnNotFoundError; break;
    case ZB_ENOTSUP: exc = st->UnsupportedError; break;
    case ZB_EDEVICE:
    case ZB_ENODEVICE: exc = st->DeviceError; break;
    case ZB_EIO: exc = st->ZambeziIOError; break;
    case ZB_EOVERFLOW: exc = st->ZambeziOverflowError; break;
    case ZB_ECANCEL:
      /* a Ctrl-C: run Python's handler now (it raises KeyboardInterrupt
       * unless the program installed another) */
      if (PyErr_CheckSignals() != 0) return NULL;
      exc = PyExc_KeyboardInterrupt;
      break;
    default: exc = st->ZambeziError; break;
  }
  PyErr_SetString(exc, msg);
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* Ctrl-C                                                                   */
/* ------------------------------------------------------------------------ */

/* Python's own SIGINT handler only marks the signal for the main thread's
 * next bytecode, which an engine call holding no GIL never reaches.  So
 * before each engine call the handler in place (Python's, or one the
 * program installed with signal.signal) is wrapped by one that first
 * cancels the running operations (zb_cancel_all, async-signal-safe) and
 * then calls it.  Checked on every call, since signal.signal may replace
 * the wrapper at any time; one sigaction query costs well under a
 * microsecond.  SIG_DFL and SIG_IGN are left alone. */
#ifndef _WIN32
#include <signal.h>

static struct sigaction g_prev_sigint;

static void zbpy_on_sigint(int sig, siginfo_t *info, void *uctx) {
  int saved = errno;
  zb_cancel_all();
  errno = saved;
  if (g_prev_sigint.sa_flags & SA_SIGINFO) {
    if (g_prev_sigint.sa_sigaction != NULL) g_prev_sigint.sa_sigaction(sig, info, uctx);
  } else if (g_prev_sigint.sa_handler != SIG_DFL && g_prev_sigint.sa_handler != SIG_IGN) {
    g_prev_sigint.sa_handler(sig);
  }
}

void zbpy_watch_sigint(void) {
  struct sigaction cur;
  if (sigaction(SIGINT, NULL, &cur) != 0) return;
  if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == zbpy_on_sigint) return;
  if (!(cur.sa_flags & SA_SIGINFO) && (cur.sa_handler == SIG_DFL || cur.sa_handler == SIG_IGN))
    return;
  g_prev_sigint = cur;
  struct sigaction mine = cur;
  mine.sa_sigaction = zbpy_on_sigint;
  mine.sa_flags = (cur.sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
  (void)sigaction(SIGINT, &mine, NULL);
}
#else
void zbpy_watch_sigint(void) {}
#endif

PyObject *zbpy_raise_nomem(zbpy_state *st, const char *what, size_t bytes) {
  PyErr_Format(st->OutOfMemoryError, "out of host memory allocating %zu bytes for %s",
               bytes, what);
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* Devices, dtypes, units                                                   */
/* ------------------------------------------------------------------------ */

int zbpy_parse_device(zbpy_state *st, PyObject *obj, zb_device *out) {
  if (!PyUnicode_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "device must be a str such as 'cpu' or 'cuda:0', not %s",
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  const char *s = PyUnicode_AsUTF8(obj);
  if (s == NULL) return -1;
  if (strcmp(s, "cpu") == 0) {
    *out = ZB_CPU;
    return 0;
  }
  int id = 0;
  bool any = false; /* plain "cuda": the first usable device */
  if (strcmp(s, "cuda") == 0 || strcmp(s, "gpu") == 0) {
    any = true;
  } else if (strncmp(s, "cuda:", 5) == 0 && s[5] >= '0' && s[5] <= '9') {
    char *end = NULL;
    long v = strtol(s + 5, &end, 10);
    if (*end != '\0' || v > 1024) goto error;
    id = (int)v;
  } else {
    goto error;
  }
  int count = zb_cuda_device_count();
  if (count == 0) {
    const char *why = zb_cuda_unavailable_reason();
    PyErr_Format(st->DeviceError, "cannot use device '%s': no GPU is available (%s)", s,
                 (why != NULL && why[0] != '\0') ? why : "no CUDA device found");
    return -1;
  }
  if (any) id = zb_cuda_default_device();
  if (!zb_cuda_device_usable(id)) {
    int total = zb_cuda_device_total();
    if (id < total)
      PyErr_Format(st->DeviceError, "cannot use device '%s': CUDA device %d is left out: %s",
                   s, id, zb_cuda_device_left_out_reason(id));
    else
      PyErr_Format(st->DeviceError,
                   "cannot use device '%s': this machine has %d GPU%s (cuda:0 to cuda:%d), "
                   "%d usable",
                   s, total, total == 1 ? "" : "s", total - 1, count);
    return -1;
  }
  out->kind = ZB_DEVICE_CUDA;
  out->id = id;
  return 0;
error:
  PyErr_Format(st->InvalidValueError,
               "unknown device '%s' (expected 'cpu', 'cuda' or 'cuda:N')", s);
  return -1;
}

PyObject *zbpy_device_str(zb_device d) {
  if (d.kind == ZB_DEVICE_CPU) return PyUnicode_FromString("cpu");
  return PyUnicode_FromFormat("cuda:%d", d.id);
}

const char *zbpy_unit_name(zb_time_unit unit) {
  switch (unit) {
    case ZB_SECOND: return "s";
    case ZB_MILLI: return "ms";
    case ZB_MICRO: return "us";
    case ZB_NANO: return "ns";
  }
  return "?";
}

int zbpy_parse_unit(const char *s, zb_time_unit *out) {
  if (strcmp(s, "s") == 0) *out = ZB_SECOND;
  else if (strcmp(s, "ms") == 0) *out = ZB_MILLI;
  else if (strcmp(s, "us") == 0) *out = ZB_MICRO;
  else if (strcmp(s, "ns") == 0) *out = ZB_NANO;
  else {
    PyErr_Format(PyExc_ValueError, "unknown time unit '%s' (expected s, ms, us or ns)", s);
    return -1;
  }
  return 0;
}

int zbpy_parse_dtype(zbpy_state *st, const char *name, zb_type_id *type,
                     zb_time_unit *unit, char *tz, size_t tz_size) {
  tz[0] = '\0';
  *unit = ZB_MICRO;
  /* Canonical names only: the spellings users write ("Int64", "str",
   * "datetime64[ns]", numpy and pandas dtypes ...) are turned into these by
   * zambezi._dtypes, the one alias table. */
  const size_t plen = 9;
  if (strncmp(name, "timestamp", plen) == 0 && (name[plen] == '\0' || name[plen] == '[')) {
    *type = ZB_TIMESTAMP;
    if (name[plen] == '\0') return 0;
    const char *p = name + plen + 1;
    char ubuf[4];
    size_t k = 0;
    while (*p != '\0' && *p != ',' && *p != ']' && *p != ' ' && k < 3) ubuf[k++] = *p++;
    ubuf[k] = '\0';
    if (zbpy_parse_unit(ubuf, unit) < 0) return -1;
    if (*p == ',') {
      p++;
      while (*p == ' ') p++;
      if (strncmp(p, "tz=", 3) == 0) p += 3;
      size_t n = 0;
      while (p[n] != '\0' && p[n] != ']') n++;
      if (n == 0 || n >= tz_size) goto error;
      memcpy(tz, p, n);
      tz[n] = '\0';
      p += n;
    }
    if (p[0] != ']' || p[1] != '\0') goto error;
    return 0;
  }
  const size_t dlen = 8;
  if (strncmp(name, "duration", dlen) == 0 && name[dlen] == '[') {
    *type = ZB_DURATION;
    const char *p = name + dlen + 1;
    char ubuf[4];
    size_t k = 0;
    while (*p != '\0' && *p != ']' && k < 3) ubuf[k++] = *p++;
    ubuf[k] = '\0';
    if (p[0] != ']' || p[1] != '\0') goto error;
    if (zbpy_parse_unit(ubuf, unit) < 0) return -1;
    return 0;
  }
  zb_error err;
  err.message[0] = '\0';
  zb_status s = zb_type_from_name(name, type, &err);
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    return -1;
  }
  if (strcmp(zb_type_name(*type), name) != 0) {
    PyErr_Format(st->DTypeError,
                 "unknown dtype '%s' (zambezi._core takes canonical dtype names; "
                 "this one is '%s')", name, zb_type_name(*type));
    return -1;
  }
  return 0;
error:
  PyErr_Format(st->DTypeError, "cannot parse dtype '%s' (expected e.g. 'timestamp[us, tz=UTC]')",
               name);
  return -1;
}

PyObject *zbpy_dtype_str(const zb_column *col) {
  if (col->type == ZB_TIMESTAMP) {
    if (col->timezone != NULL && col->timezone[0] != '\0')
      return PyUnicode_FromFormat("timestamp[%s, tz=%s]", zbpy_unit_name(col->unit),
                                  col->timezone);
    return PyUnicode_FromFormat("timestamp[%s]", zbpy_unit_name(col->unit));
  }
  if (col->type == ZB_DURATION)
    return PyUnicode_FromFormat("duration[%s]", zbpy_unit_name(col->unit));
  if (col->type == ZB_LIST) {
    char text[300];
    return PyUnicode_FromString(zb_column_type_text(col, text, sizeof text));
  }
  return PyUnicode_FromString(zb_type_name(col->type));
}

int zbpy_column_on_host(zbpy_state *st, zb_column *col, zb_column **out) {
  if (col->device.kind == ZB_DEVICE_CPU) {
    *out = zb_column_retain(col);
    return 0;
  }
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_column_to_device(col, ZB_CPU, out, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    return -1;
  }
  return 0;
}

int zbpy_table_on_host(zbpy_state *st, zb_table *t, zb_table **out) {
  if (zb_table_device(t).kind == ZB_DEVICE_CPU) {
    *out = zb_table_retain(t);
    return 0;
  }
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_table_to_device(t, ZB_CPU, out, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------------------ */
/* Module functions                                                         */
/* ------------------------------------------------------------------------ */


static int dict_set(PyObject *d, const char *key, PyObject *value) {
  if (value == NULL) return -1;
  int r = PyDict_SetItemString(d, key, value);
  Py_DECREF(value);
  return r;
}

static PyObject *device_info_dict(const zb_device_info *info) {
  PyObject *d = PyDict_New();
  if (d == NULL) return NULL;
  bool gpu = info->device.kind == ZB_DEVICE_CUDA;
  if (dict_set(d, "kind", PyUnicode_FromString(gpu ? "cuda" : "cpu")) < 0) goto error;
  if (dict_set(d, "id", PyLong_FromLong(info->device.id)) < 0) goto error;
  if (dict_set(d, "device", zbpy_device_str(info->device)) < 0) goto error;
  if (dict_set(d, "name", PyUnicode_DecodeUTF8(info->name, (Py_ssize_t)strnlen(info->name, sizeof info->name), "replace")) < 0)
    goto error;
  if (dict_set(d, "memory_total", PyLong_FromLongLong(info->total_memory)) < 0) goto error;
  if (dict_set(d, "memory_free", PyLong_FromLongLong(info->free_memory)) < 0) goto error;
  if (dict_set(d, "cores", PyLong_FromLong(info->cores)) < 0) goto error;
  if (gpu) {
    if (dict_set(d, "compute_capability",
                 PyUnicode_FromFormat("%d.%d", info->cc_major, info->cc_minor)) < 0)
      goto error;
    if (dict_set(d, "driver_version", PyLong_FromLong(info->driver_version)) < 0) goto error;
    if (dict_set(d, "runtime_version", PyLong_FromLong(info->runtime_version)) < 0) goto error;
  } else {
    if (PyDict_SetItemString(d, "compute_capability", Py_None) < 0) goto error;
    if (PyDict_SetItemString(d, "driver_version", Py_None) < 0) goto error;
    if (PyDict_SetItemString(d, "runtime_version", Py_None) < 0) goto error;
  }
  return d;
error:
  Py_DECREF(d);
  return NULL;
}

static PyObject *py_devices(PyObject *module, PyObject *unused) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *list = PyList_New(0);
  if (list == NULL) return NULL;
  int n = zb_cuda_device_total();
  for (int i = -1; i < n; i++) {
    if (i >= 0 && !zb_cuda_device_usable(i)) continue; /* cuda_devices_left_out */
    zb_device dev = i < 0 ? ZB_CPU : (zb_device){ZB_DEVICE_CUDA, i};
    zb_device_info info;
    memset(&info, 0, sizeof info);
    zb_error err;
    err.message[0] = '\0';
    zb_status s;
    ZBPY_BEGIN_ENGINE
    s = zb_device_get_info(dev, &info, &err);
    ZBPY_END_ENGINE
    if (s != ZB_OK) {
      zbpy_raise(st, s, &err);
      goto error;
    }
    PyObject *d = device_info_dict(&info);
    if (d == NULL) goto error;
    int r = PyList_Append(list, d);
    Py_DECREF(d);
    if (r < 0) goto error;
  }
  return list;
error:
  Py_DECREF(list);
  return NULL;
}

static PyObject *py_cuda_device_count(PyObject *module, PyObject *unused) {
  return PyLong_FromLong(zb_cuda_device_count());
}

/* [(ordinal, reason)] for each CUDA device the runtime reports that zambezi
 * leaves out. */
static PyObject *py_cuda_devices_left_out(PyObject *module, PyObject *unused) {
  PyObject *list = PyList_New(0);
  if (list == NULL) return NULL;
  int n = zb_cuda_device_total();
  for (int i = 0; i < n; i++) {
    if (zb_cuda_device_usable(i)) continue;
    PyObject *t = Py_BuildValue("(is)", i, zb_cuda_device_left_out_reason(i));
    if (t == NULL || PyList_Append(list, t) < 0) {
      Py_XDECREF(t);
      Py_DECREF(list);
      return NULL;
    }
    Py_DECREF(t);
  }
  return list;
}

static PyObject *py_cuda_unavailable_reason(PyObject *module, PyObject *unused) {
  const char *r = zb_cuda_unavailable_reason();
  return PyUnicode_FromString(r != NULL ? r : "");
}

static PyObject *py_build_info(PyObject *module, PyObject *unused) {
  PyObject *d = PyDict_New();
  if (d == NULL) return NULL;
  const char *archs = zb_cuda_architectures();
  if (dict_set(d, "version", PyUnicode_FromString(zb_version())) < 0) goto error;
  if (PyDict_SetItemString(d, "cuda_compiled", zb_cuda_compiled() ? Py_True : Py_False) < 0)
    goto error;
  if (dict_set(d, "cuda_architectures", PyUnicode_FromString(archs != NULL ? archs : "")) < 0)
    goto error;
  return d;
error:
  Py_DECREF(d);
  return NULL;
}

static PyObject *py_alloc_stats(PyObject *module, PyObject *unused) {
  zb_alloc_stats s;
  zb_alloc_get_stats(&s);
  PyObject *d = PyDict_New();
  if (d == NULL) return NULL;
  if (dict_set(d, "host_bytes", PyLong_FromLongLong(s.host_bytes)) < 0) goto error;
  if (dict_set(d, "host_allocations", PyLong_FromLongLong(s.host_allocations)) < 0) goto error;
  if (dict_set(d, "host_peak_bytes", PyLong_FromLongLong(s.host_peak_bytes)) < 0) goto error;
  if (dict_set(d, "device_bytes", PyLong_FromLongLong(s.device_bytes)) < 0) goto error;
  if (dict_set(d, "device_allocations", PyLong_FromLongLong(s.device_allocations)) < 0)
    goto error;
  if (dict_set(d, "device_peak_bytes", PyLong_FromLongLong(s.device_peak_bytes)) < 0)
    goto error;
  if (dict_set(d, "total_allocations", PyLong_FromLongLong(s.total_allocations)) < 0)
    goto error;
  if (dict_set(d, "host_cached_bytes", PyLong_FromLongLong(s.host_cached_bytes)) < 0)
    goto error;
  return d;
error:
  Py_DECREF(d);
  return NULL;
}

static PyObject *py_alloc_trim(PyObject *module, PyObject *unused) {
  zb_alloc_trim();
  Py_RETURN_NONE;
}

static PyObject *py_alloc_reset_peak(PyObject *module, PyObject *unused) {
  zb_alloc_reset_peak();
  Py_RETURN_NONE;
}

static PyObject *py_alloc_fail_after(PyObject *module, PyObject *arg) {
  long long n = PyLong_AsLongLong(arg);
  if (n == -1 && PyErr_Occurred()) return NULL;
  return PyLong_FromLongLong(zb_alloc_fail_after(n));
}

static PyObject *py_test_string_keys(PyObject *module, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"hash_bits", "max_codes", NULL};
  int hash_bits = 64;
  long long max_codes = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|iL:test_string_keys", kwlist, &hash_bits,
                                   &max_codes))
    return NULL;
  if (hash_bits < 0 || hash_bits > 64) {
    PyErr_Format(PyExc_ValueError, "test_string_keys: hash_bits must be in [0, 64], got %d",
                 hash_bits);
    return NULL;
  }
  if (max_codes < 0) {
    PyErr_Format(PyExc_ValueError, "test_string_keys: max_codes must be >= 0, got %lld",
                 max_codes);
    return NULL;
  }
  zb_test_string_keys(hash_bits, (int64_t)max_codes);
  Py_RETURN_NONE;
}

static PyObject *py_get_num_threads(PyObject *module, PyObject *unused) {
  return PyLong_FromLong(zb_get_num_threads());
}

static PyObject *py_set_num_threads(PyObject *module, PyObject *arg) {
  zbpy_state *st = zbpy_module_state(module);
  int overflow = 0;
  long n = PyLong_AsLongAndOverflow(arg, &overflow);
  if (n == -1 && PyErr_Occurred()) return NULL;
  if (overflow != 0 || n > 4096 || n < -4096) {
    PyErr_Format(st->InvalidValueError, "set_num_threads: %R threads is out of range", arg);
    return NULL;
  }
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_set_num_threads((int)n, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  Py_RETURN_NONE;
}

/* set_memory_limit(bytes: int | str) -> the limit now, in bytes */
static PyObject *py_set_memory_limit(PyObject *module, PyObject *arg) {
  zbpy_state *st = zbpy_module_state(module);
  zb_error err;
  err.message[0] = '\0';
  long long bytes = 0;
  if (PyUnicode_Check(arg)) {
    const char *text = PyUnicode_AsUTF8(arg);
    if (text == NULL) return NULL;
    int64_t v = 0;
    zb_status s = zb_parse_memory_size(text, &v, &err);
    if (s != ZB_OK) return zbpy_raise(st, s, &err);
    bytes = v;
  } else {
    bytes = PyLong_AsLongLong(arg);
    if (bytes == -1 && PyErr_Occurred()) return NULL;
  }
  zb_status s = zb_set_memory_limit(bytes, &err);
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  return PyLong_FromLongLong(zb_get_memory_limit());
}

static PyObject *py_get_memory_limit(PyObject *module, PyObject *unused) {
  return PyLong_FromLongLong(zb_get_memory_limit());
}

static PyObject *py_memory_total(PyObject *module, PyObject *unused) {
  return PyLong_FromLongLong(zb_memory_total());
}

static PyObject *py_available_cores(PyObject *module, PyObject *unused) {
  return PyLong_FromLong(zb_available_cores());
}

/* table_from_columns(columns, names) -> Table */
static PyObject *py_table_from_columns(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *cols_obj, *names_obj;
  PyObject *cols_fast = NULL, *names_fast = NULL, *result = NULL;
  zb_column **cols = NULL;
  const char **names = NULL;
  if (!PyArg_ParseTuple(args, "OO:table_from_columns", &cols_obj, &names_obj)) return NULL;
  cols_fast = PySequence_Fast(cols_obj, "table_from_columns: columns must be a sequence");
  if (cols_fast == NULL) goto error;
  names_fast = PySequence_Fast(names_obj, "table_from_columns: names must be a sequence");
  if (names_fast == NULL) goto error;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(cols_fast);
  if (PySequence_Fast_GET_SIZE(names_fast) != n) {
    PyErr_Format(st->InvalidValueError, "table_from_columns: %zd columns but %zd names", n,
                 PySequence_Fast_GET_SIZE(names_fast));
    goto error;
  }
  size_t nb = (size_t)(n > 0 ? n : 1);
  cols = (zb_column **)zb_malloc(nb * sizeof *cols);
  names = (const char **)zb_malloc(nb * sizeof *names);
  if (cols == NULL || names == NULL) {
    zbpy_raise_nomem(st, "the column list of a table", nb * sizeof *cols);
    goto error;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *c = PySequence_Fast_GET_ITEM(cols_fast, i);
    PyObject *nm = PySequence_Fast_GET_ITEM(names_fast, i);
    if (!PyObject_TypeCheck(c, st->column_type)) {
      PyErr_Format(PyExc_TypeError, "table_from_columns: column %zd is a %s, not a Column", i,
                   Py_TYPE(c)->tp_name);
      goto error;
    }
    if (!PyUnicode_Check(nm)) {
      PyErr_Format(PyExc_TypeError, "table_from_columns: name %zd is a %s, not a str", i,
                   Py_TYPE(nm)->tp_name);
      goto error;
    }
    cols[i] = ((zbpy_column *)c)->col;
    names[i] = PyUnicode_AsUTF8(nm);
    if (names[i] == NULL) goto error;
  }
  zb_table *t = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_table_make(n, cols, names, &t, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto error;
  }
  result = zbpy_table_wrap(st, t);
error:
  zb_free(cols);
  zb_free(names);
  Py_XDECREF(cols_fast);
  Py_XDECREF(names_fast);
  return result;
}

static PyObject *py_import_arrow_array(PyObject *module, PyObject *const *args,
                                       Py_ssize_t n) {
  return zbpy_import_arrow_array(module, args, n);
}

static PyMethodDef module_methods[] = {
    {"column_from_sequence", (PyCFunction)(void (*)(void))zbpy_column_from_sequence,
     METH_VARARGS | METH_KEYWORDS,
     "column_from_sequence(seq, dtype=None, mask=None, name=None) -> Column\n\n"
     "Build a column from a list, tuple or object ndarray, inferring the dtype."},
    {"column_from_buffer", (PyCFunction)(void (*)(void))zbpy_column_from_buffer,
     METH_VARARGS | METH_KEYWORDS,
     "column_from_buffer(obj, mask=None, dtype=None, unit=None, tz=None, name=None)"
     " -> Column\n\nCopy a 1-D buffer (numpy array) into a new column."},
    {"categorical_from_codes", (PyCFunction)(void (*)(void))zbpy_categorical_from_codes,
     METH_VARARGS | METH_KEYWORDS,
     "categorical_from_codes(codes, dictionary, name=None, ordered=None) -> Column"},
    {"table_from_columns", py_table_from_columns, METH_VARARGS,
     "table_from_columns(columns, names) -> Table"},
    {"import_arrow_array", (PyCFunction)(void (*)(void))py_import_arrow_array, METH_FASTCALL,
     "import_arrow_array(schema_capsule, array_capsule) -> Column, or Table for a struct"},
    {"import_arrow_stream", zbpy_import_arrow_stream, METH_O,
     "import_arrow_stream(stream_capsule) -> Table"},
    {"devices", py_devices, METH_NOARGS, "devices() -> list of dicts, the CPU first"},
    {"cuda_device_count", py_cuda_device_count, METH_NOARGS, "Usable CUDA devices."},
    {"cuda_devices_left_out", py_cuda_devices_left_out, METH_NOARGS,
     "cuda_devices_left_out() -> [(ordinal, reason)] for the GPUs zambezi cannot use."},
    {"cuda_unavailable_reason", py_cuda_unavailable_reason, METH_NOARGS,
     "Why there are no usable GPUs ('' when there are)."},
    {"build_info", py_build_info, METH_NOARGS,
     "build_info() -> dict(version, cuda_compiled, cuda_architectures)"},
    {"alloc_stats", py_alloc_stats, METH_NOARGS, "Counters of the engine allocator."},
    {"alloc_reset_peak", py_alloc_reset_peak, METH_NOARGS, "Reset the peak counters."},
    {"alloc_trim", py_alloc_trim, METH_NOARGS,
     "Give freed host blocks kept for reuse back to the system."},
    {"alloc_fail_after", py_alloc_fail_after, METH_O,
     "alloc_fail_after(n): the n-th allocation from now fails (n <= 0 disables)."},
    {"test_string_keys", (PyCFunction)(void (*)(void))py_test_string_keys,
     METH_VARARGS | METH_KEYWORDS,
     "test_string_keys(hash_bits=64, max_codes=0): for tests, narrow string key hashes to "
     "hash_bits bits and cap the dense string codes at max_codes (no arguments: reset)."},
    {"get_num_threads", py_get_num_threads, METH_NOARGS, "Threads used by the engine."},
    {"set_num_threads", py_set_num_threads, METH_O, "Set the threads used by the engine."},
    {"available_cores", py_available_cores, METH_NOARGS, "Cores this process may use."},
    {"set_memory_limit", py_set_memory_limit, METH_O,
     "Set the host memory limit (bytes, or a size such as '8GB' / '80%'); returns it."},
    {"get_memory_limit", py_get_memory_limit, METH_NOARGS, "The host memory limit (0: none)."},
    {"memory_total", py_memory_total, METH_NOARGS,
     "The memory this process may use (cgroup limit or physical)."},
    {NULL, NULL, 0, NULL},
};

/* ------------------------------------------------------------------------ */
/* Initialisation                                                           */
/* ------------------------------------------------------------------------ */

static int add_exception(PyObject *m, PyObject **slot, const char *name, PyObject *base1,
                         PyObject *base2, const char *doc) {
  char full[128];
  PyOS_snprintf(full, sizeof full, "zambezi.errors.%s", name);
  PyObject *bases = base2 != NULL ? PyTuple_Pack(2, base1, base2) : PyTuple_Pack(1, base1);
  if (bases == NULL) return -1;
  *slot = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
  Py_DECREF(bases);
  if (*slot == NULL) return -1;
  return PyModule_AddObjectRef(m, name, *slot);
}

static int module_exec(PyObject *m) {
#if defined(ZB_X86_BASELINE) && defined(__x86_64__)
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("popcnt") || !__builtin_cpu_supports("sse4.2")) {
    PyErr_SetString(PyExc_ImportError,
                    "zambezi's engine was built for " ZB_X86_BASELINE
                    " CPUs (SSE4.2 and POPCNT), which this CPU is not; rebuild it with "
                    "CMAKE_ARGS=\"-DZAMBEZI_X86_BASELINE=x86-64\" pip install .");
    return -1;
  }
#endif
  zbpy_state *st = zbpy_module_state(m);
  if (zbpy_dates_init() < 0) return -1;
  st->column_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &zbpy_column_spec, NULL);
  if (st->column_type == NULL || PyModule_AddType(m, st->column_type) < 0) return -1;
  st->table_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &zbpy_table_spec, NULL);
  if (st->table_type == NULL || PyModule_AddType(m, st->table_type) < 0) return -1;
  st->bufview_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &zbpy_bufview_spec, NULL);
  if (st->bufview_type == NULL || PyModule_AddType(m, st->bufview_type) < 0) return -1;
  if (PyModule_AddFunctions(m, zbpy_strings_methods) < 0 ||
      PyModule_AddFunctions(m, zbpy_stats_methods) < 0 ||
      PyModule_AddFunctions(m, zbpy_compute_methods) < 0 ||
      PyModule_AddFunctions(m, zbpy_csv_methods) < 0 ||
      PyModule_AddFunctions(m, zbpy_json_methods) < 0 ||
      PyModule_AddFunctions(m, zbpy_parquet_methods) < 0 ||
      PyModule_AddFunctions(m, zbpy_join_methods) < 0 ||
      PyModule_AddFunctions(m, zbpy_groupby_methods) < 0 ||
      PyModule_AddFunctions(m, zbpy_profile_methods) < 0 ||
      PyModule_AddFunctions(m, zbpy_interchange_methods) < 0 ||
      PyModule_AddFunctions(m, zbpy_pickle_methods) < 0 ||
      PyModule_AddFunctions(m, zbpy_window_methods) < 0 ||
      PyModule_AddFunctions(m, zbpy_ewm_methods) < 0 ||
      PyModule_AddFunctions(m, zbpy_regex_methods) < 0 ||
      PyModule_AddFunctions(m, zbpy_ipc_methods) < 0 ||
      PyModule_AddFunctions(m, zbpy_list_methods) < 0 ||
      PyModule_AddFunctions(m, zbpy_reshape_methods) < 0 ||
      PyModule_AddFunctions(m, zbpy_udf_methods) < 0)
    return -1;

  PyObject *E;
  if (add_exception(m, &st->ZambeziError, "ZambeziError", PyExc_Exception, NULL,
                    "Base class of every error raised by zambezi.") < 0)
    return -1;
  E = st->ZambeziError;
  if (add_exception(m, &st->InvalidValueError, "InvalidValueError", E, PyExc_ValueError,
                    "An argument or value is not acceptable.") < 0)
    return -1;
  if (add_exception(m, &st->ParseError, "ParseError", st->InvalidValueError, NULL,
                    "Malformed input data.") < 0)
    return -1;
  if (add_exception(m, &st->DTypeError, "DTypeError", E, PyExc_TypeError,
                    "A value or column has the wrong dtype.") < 0)
    return -1;
  if (add_exception(m, &st->OutOfMemoryError, "OutOfMemoryError", E, PyExc_MemoryError,
                    "Host or GPU memory is exhausted.") < 0)
    return -1;
  if (add_exception(m, &st->ZambeziIndexError, "ZambeziIndexError", E, PyExc_IndexError,
                    "A position is out of range.") < 0)
    return -1;
  if (add_exception(m, &st->ColumnNotFoundError, "ColumnNotFoundError", E, PyExc_KeyError,
                    "No column has this name.") < 0)
    return -1;
  if (add_exception(m, &st->UnsupportedError, "UnsupportedError", E,
                    PyExc_NotImplementedError, "Not supported (yet, or here).") < 0)
    return -1;
  if (add_exception(m, &st->DeviceError, "DeviceError", E, NULL,
                    "A GPU is missing or failed.") < 0)
    return -1;
  if (add_exception(m, &st->ZambeziIOError, "ZambeziIOError", E, PyExc_OSError,
                    "A file or stream failed.") < 0)
    return -1;
  if (add_exception(m, &st->ZambeziOverflowError, "ZambeziOverflowError", E,
                    PyExc_OverflowError, "A value does not fit its dtype.") < 0)
    return -1;
  if (PyModule_AddStringConstant(m, "__version__", zb_version()) < 0) return -1;
  return 0;
}

static int module_traverse(PyObject *m, visitproc visit, void *arg) {
  zbpy_state *st = zbpy_module_state(m);
  Py_VISIT(st->column_type);
  Py_VISIT(st->table_type);
  Py_VISIT(st->bufview_type);
  Py_VISIT(st->ZambeziError);
  Py_VISIT(st->InvalidValueError);
  Py_VISIT(st->ParseError);
  Py_VISIT(st->DTypeError);
  Py_VISIT(st->OutOfMemoryError);
  Py_VISIT(st->ZambeziIndexError);
  Py_VISIT(st->ColumnNotFoundError);
  Py_VISIT(st->UnsupportedError);
  Py_VISIT(st->DeviceError);
  Py_VISIT(st->ZambeziIOError);
  Py_VISIT(st->ZambeziOverflowError);
  return 0;
}

static int module_clear(PyObject *m) {
  zbpy_state *st = zbpy_module_state(m);
  Py_CLEAR(st->column_type);
  Py_CLEAR(st->table_type);
  Py_CLEAR(st->bufview_type);
  Py_CLEAR(st->ZambeziError);
  Py_CLEAR(st->InvalidValueError);
  Py_CLEAR(st->ParseError);
  Py_CLEAR(st->DTypeError);
  Py_CLEAR(st->OutOfMemoryError);
  Py_CLEAR(st->ZambeziIndexError);
  Py_CLEAR(st->ColumnNotFoundError);
  Py_CLEAR(st->UnsupportedError);
  Py_CLEAR(st->DeviceError);
  Py_CLEAR(st->ZambeziIOError);
  Py_CLEAR(st->ZambeziOverflowError);
  return 0;
}

static void module_free(void *m) { module_clear((PyObject *)m); }

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, (void *)module_exec},
    {0, NULL},
};

PyModuleDef zbpy_module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "zambezi._core",
    .m_doc = "The C extension of zambezi: engine columns and tables as Python objects.",
    .m_size = sizeof(zbpy_state),
    .m_methods = module_methods,
    .m_slots = module_slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__core(void) { return PyModuleDef_Init(&zbpy_module_def); }
