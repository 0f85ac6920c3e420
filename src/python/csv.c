/*
 * csv.c -- the CSV reader and writer as functions of zambezi._core.
 *
 *   read_csv(source, **options) -> (Table, [(line, message)...], bad_lines)
 *     source: a str/bytes path (the engine memory-maps it) or any object
 *     with the buffer protocol (bytes, mmap, memoryview slice: read in
 *     place).  options are the engine's zb_csv_options with pandas' names;
 *     python/zambezi/io/csv.py shapes pandas' arguments into them.
 *   csv_cr_lines(buffer, **options) -> bytes or None (zb_csv_cr_lines)
 *   csv_data_start(buffer, **options) -> (offset, lines)
 *   csv_find_rows(buffer, start, nrows, **options) -> (end, rows, lines)
 *     row boundaries for reading a buffer in pieces (chunksize).
 *   transcode_to_utf8(buffer, encoding) -> bytes  (latin-1 / cp1252)
 *   write_csv(table, target, **options) -> str or None
 *     target: None (return the text as str), a str path (written by the
 *     engine), or a callable receiving bytes pieces that end at line ends.
 *
 * The GIL is released for the whole engine call.  The engine calls the
 * progress hook (reader) or the sink (writer) on this same thread; the hook
 * takes the GIL back briefly with PyGILState_Ensure to run
 * PyErr_CheckSignals (so Ctrl-C cancels: KeyboardInterrupt) and the user's
 * progress callable.  An exception there stops the engine (ZB_ECANCEL) and
 * is re-raised as is; nothing is leaked.
 */
#include "io_common.h"

#include <string.h>

#include "zambezi/io.h"


/* ------------------------------------------------------------------------ */
/* Options                                                                  */
/* ------------------------------------------------------------------------ */

/* What the options point into: tuples and arrays kept alive for the call. */
typedef struct optstore {
  PyObject *keep; /* list of objects the borrowed char pointers live in */
  void *arrays[8];
  int narrays;
} optstore;

static void optstore_clear(optstore *s) {
  Py_CLEAR(s->keep);
  for (int i = 0; i < s->narrays; i++) zb_free(s->arrays[i]);
  s->narrays = 0;
}

static void *store_alloc(zbpy_state *st, optstore *s, size_t bytes) {
  if (s->narrays >= 8) {
    PyErr_SetString(PyExc_RuntimeError, "csv option store is full");
    return NULL;
  }
  void *p = zb_malloc(bytes ? bytes : 1);
  if (p == NULL) {
    zbpy_raise_nomem(st, "CSV options", bytes);
    return NULL;
  }
  s->arrays[s->narrays++] = p;
  return p;
}

/* Take the next item of kw (removing it, so leftovers are unknown keys). */
static PyObject *take(PyObject *kw, const char *key) {
  if (kw == NULL) return NULL;
  PyObject *k = PyUnicode_FromString(key);
  if (k == NULL) return NULL;
  PyObject *v = PyDict_GetItemWithError(kw, k);
  if (v != NULL) {
    Py_INCREF(v);
    if (PyDict_DelItem(kw, k) < 0) Py_CLEAR(v);
  }
  Py_DECREF(k);
  return v;
}

/* A borrowed reference to option `name` (kept alive in s->keep), or NULL. */
#define TAKE(name)                                                              \
  PyObject *name = take(kw, #name);                                             \
  if (name == NULL && PyErr_Occurred()) return -1;                              \
  if (name != NULL) {                                                           \
    int r_ = PyList_Append(s->keep, name);                                      \
    Py_DECREF(name);                                                            \
    if (r_ < 0) return -1;                                                      \
  }

/* One ASCII character, or 0 for None. */
static int char_opt(zbpy_state *st, PyObject *v, const char *what, char *out) {
  if (v == NULL) return 0;
  if (v == Py_None) {
    *out = 0;
    return 0;
  }
  if (!PyUnicode_Check(v)) {
    PyErr_Format(PyExc_TypeError, "%s must be a str of one character, not %s", what,
                 Py_TYPE(v)->tp_name);
    return -1;
  }
  if (PyUnicode_GetLength(v) != 1 || PyUnicode_ReadChar(v, 0) >= 128) {
    PyErr_Format(st->UnsupportedError,
                 "%s must be one ASCII character, not %R (multi-character and regular "
                 "expression separators are not supported)",
                 what, v);
    return -1;
  }
  *out = (char)PyUnicode_ReadChar(v, 0);
  return 0;
}

static int int_opt(PyObject *v, const char *what, int64_t *out) {
  if (v == NULL) return 0;
  if (!PyLong_Check(v) || PyBool_Check(v)) {
    PyErr_Format(PyExc_TypeError, "%s must be an int, not %s", what, Py_TYPE(v)->tp_name);
    return -1;
  }
  long long x = PyLong_AsLongLong(v);
  if (x == -1 && PyErr_Occurred()) return -1;
  *out = x;
  return 0;
}

static int bool_opt(PyObject *v, bool *out) {
  if (v == NULL) return 0;
  int t = PyObject_IsTrue(v);
  if (t < 0) return -1;
  *out = t != 0;
  return 0;
}

/* A sequence of str -> array of UTF-8 pointers (kept alive by s->keep). */
static int str_list(zbpy_state *st, optstore *s, PyObject *v, const char *what,
                    const char *const **out, int64_t *n) {
  if (v == NULL || v == Py_None) return 0;
  PyObject *tup = PySequence_Tuple(v);
  if (tup == NULL) return -1;
  int r = PyList_Append(s->keep, tup);
  Py_DECREF(tup);
  if (r < 0) return -1;
  Py_ssize_t len = PyTuple_GET_SIZE(tup);
  const char **arr = (const char **)store_alloc(st, s, (size_t)len * sizeof(char *));
  if (arr == NULL) return -1;
  for (Py_ssize_t i = 0; i < len; i++) {
    PyObject *it = PyTuple_GET_ITEM(tup, i);
    if (!PyUnicode_Check(it)) {
      PyErr_Format(PyExc_TypeError, "%s must hold str, not %s (%R)", what,
                   Py_TYPE(it)->tp_name, it);
      return -1;
    }
    arr[i] = PyUnicode_AsUTF8(it);
    if (arr[i] == NULL) return -1;
  }
  *out = arr;
  *n = len;
  return 0;
}

/* Fill o from the keyword dict kw (consumed).  Unknown keys are an error. */
static int build_options(zbpy_state *st, PyObject *kw, zb_csv_options *o, optstore *s,
                         PyObject **progress_out, int64_t *max_warnings_out) {
  zb_csv_options_init(o);
  s->keep = PyList_New(0);
  if (s->keep == NULL) return -1;
  TAKE(sep);
  TAKE(quotechar);
  TAKE(doublequote);
  TAKE(escapechar);
  TAKE(comment);
  TAKE(thousands);
  TAKE(decimal);
  TAKE(header);
  TAKE(names);
  TAKE(usecols);
  TAKE(dtype);
  TAKE(parse_dates);
  TAKE(na_values);
  TAKE(keep_default_na);
  TAKE(infer_dates);
  TAKE(skiprows);
  TAKE(nrows);
  TAKE(on_bad_lines);
  TAKE(progress);
  TAKE(first_line);
  TAKE(chunk_size);
  TAKE(max_warnings);
  if (kw != NULL && PyDict_GET_SIZE(kw) > 0) {
    PyObject *key = NULL, *val = NULL;
    Py_ssize_t pos = 0;
    PyDict_Next(kw, &pos, &key, &val);
    PyErr_Format(PyExc_TypeError, "unknown CSV option %R", key);
    return -1;
  }
  if (char_opt(st, sep, "sep", &o->sep) < 0 || char_opt(st, quotechar, "quotechar", &o->quotechar) < 0 ||
      char_opt(st, escapechar, "escapechar", &o->escapechar) < 0 ||
      char_opt(st, comment, "comment", &o->comment) < 0 ||
      char_opt(st, thousands, "thousands", &o->thousands) < 0 ||
      char_opt(st, decimal, "decimal", &o->decimal) < 0)
    return -1;
  if (bool_opt(doublequote, &o->doublequote) < 0 ||
      bool_opt(keep_default_na, &o->keep_default_na) < 0 ||
      bool_opt(infer_dates, &o->infer_dates) < 0)
    return -1;
  if (int_opt(header, "header", &o->header) < 0 || int_opt(skiprows, "skiprows", &o->skiprows) < 0 ||
      int_opt(nrows, "nrows", &o->nrows) < 0 ||
      int_opt(first_line, "first_line", &o->first_line) < 0 ||
      int_opt(chunk_size, "chunk_size", &o->chunk_size) < 0 ||
      int_opt(max_warnings, "max_warnings", max_warnings_out) < 0)
    return -1;
  if (str_list(st, s, names, "names", &o->names, &o->num_names) < 0) return -1;
  if (str_list(st, s, parse_dates, "parse_dates", &o->parse_dates, &o->num_parse_dates) < 0)
    return -1;
  if (str_list(st, s, na_values, "na_values", &o->na_values, &o->num_na_values) < 0) return -1;
  if (usecols != NULL && usecols != Py_None) {
    PyObject *tup = PySequence_Tuple(usecols);
    if (tup == NULL) return -1;
    int r = PyList_Append(s->keep, tup);
    Py_DECREF(tup);
    if (r < 0) return -1;
    Py_ssize_t n = PyTuple_GET_SIZE(tup);
    bool by_name = n > 0 && PyUnicode_Check(PyTuple_GET_ITEM(tup, 0));
    if (by_name) {
      if (str_list(st, s, tup, "usecols", &o->usecols_names, &o->num_usecols_names) < 0)
        return -1;
    } else {
      int64_t *idx = (int64_t *)store_alloc(st, s, (size_t)n * sizeof(int64_t));
      if (idx == NULL) return -1;
      for (Py_ssize_t i = 0; i < n; i++)
        if (int_opt(PyTuple_GET_ITEM(tup, i), "usecols items", &idx[i]) < 0) return -1;
      o->usecols_index = idx;
      o->num_usecols_index = n;
    }
  }
  if (dtype != NULL && dtype != Py_None) {
    if (!PyDict_Check(dtype)) {
      PyErr_Format(PyExc_TypeError, "dtype must be a dict {column: dtype name}, not %s",
                   Py_TYPE(dtype)->tp_name);
      return -1;
    }
    Py_ssize_t n = PyDict_GET_SIZE(dtype), pos = 0, i = 0;
    zb_csv_dtype *dt = (zb_csv_dtype *)store_alloc(st, s, (size_t)n * sizeof(zb_csv_dtype));
    if (dt == NULL) return -1;
    PyObject *key, *val;
    while (PyDict_Next(dtype, &pos, &key, &val)) {
      if (!PyUnicode_Check(key) || !PyUnicode_Check(val)) {
        PyErr_Format(PyExc_TypeError, "dtype must map column names to dtype names, not %R: %R",
                     key, val);
        return -1;
      }
      dt[i].name = PyUnicode_AsUTF8(key);
      const char *tn = PyUnicode_AsUTF8(val);
      if (dt[i].name == NULL || tn == NULL) return -1;
      zb_time_unit unit;
      char tz[64];
      if (zbpy_parse_dtype(st, tn, &dt[i].type, &unit, tz, sizeof tz) < 0) return -1;
      i++;
    }
    o->dtypes = dt;
    o->num_dtypes = n;
  }
  if (on_bad_lines != NULL) {
    const char *b = PyUnicode_Check(on_bad_lines) ? PyUnicode_AsUTF8(on_bad_lines) : NULL;
    if (b != NULL && strcmp(b, "error") == 0) o->on_bad_lines = ZB_CSV_BAD_LINES_ERROR;
    else if (b != NULL && strcmp(b, "warn") == 0) o->on_bad_lines = ZB_CSV_BAD_LINES_WARN;
    else if (b != NULL && strcmp(b, "skip") == 0) o->on_bad_lines = ZB_CSV_BAD_LINES_SKIP;
    else {
      PyErr_Clear();
      PyErr_Format(st->InvalidValueError,
                   "on_bad_lines must be 'error', 'warn' or 'skip', not %R", on_bad_lines);
      return -1;
    }
  }
  if (progress != NULL && progress != Py_None) {
    if (!PyCallable_Check(progress)) {
      PyErr_Format(PyExc_TypeError, "progress must be callable, not %s",
                   Py_TYPE(progress)->tp_name);
      return -1;
    }
    *progress_out = progress;
  }
  return 0;
}

/* ------------------------------------------------------------------------ */
/* Progress and cancellation                                                */
/* ------------------------------------------------------------------------ */

typedef struct pyhook {
  PyObject *callable; /* borrowed; may be NULL */
  int failed;         /* a Python exception is pending on this thread */
} pyhook;

/* Runs on the thread that released the GIL; takes it back briefly. */
static int hook_check(pyhook *h, int64_t done, int64_t total, bool call) {
  if (h->failed) return 1;
  PyGILState_STATE g = PyGILState_Ensure();
  if (PyErr_CheckSignals() < 0) {
    h->failed = 1;
  } else if (call && h->callable != NULL) {
    PyObject *r = PyObject_CallFunction(h->callable, "LL", (long long)done, (long long)total);
    if (r == NULL) h->failed = 1;
    Py_XDECREF(r);
  }
  PyGILState_Release(g);
  return h->failed;
}

static int progress_hook(void *ctx, int64_t done, int64_t total) {
  return hook_check((pyhook *)ctx, done, total, true);
}

/* ------------------------------------------------------------------------ */
/* read_csv                                                                 */
/* ------------------------------------------------------------------------ */

/* The source as a path (fs bytes in *path) or a buffer (*view). */
static int get_source(PyObject *src, PyObject **path, Py_buffer *view, int *is_buf) {
  *is_buf = 0;
  if (PyUnicode_Check(src)) return PyUnicode_FSConverter(src, path) ? 0 : -1;
  if (PyObject_GetBuffer(src, view, PyBUF_SIMPLE) < 0) return -1;
  *is_buf = 1;
  return 0;
}

static PyObject *warnings_list(const zb_csv_warnings *w) {
  PyObject *list = PyList_New(0);
  if (list == NULL) return NULL;
  for (int64_t i = 0; i < w->count; i++) {
    PyObject *t = Py_BuildValue("(Ls)", (long long)w->items[i].line, w->items[i].message);
    if (t == NULL || PyList_Append(list, t) < 0) {
      Py_XDECREF(t);
      Py_DECREF(list);
      return NULL;
    }
    Py_DECREF(t);
  }
  return list;
}

static PyObject *zbpy_read_csv(PyObject *module, PyObject *args, PyObject *kwargs) {
  zbpy_state *st = zbpy_module_state(module);
  PyObject *src;
  if (!PyArg_ParseTuple(args, "O:read_csv", &src)) return NULL;
  PyObject *kw = kwargs ? PyDict_Copy(kwargs) : PyDict_New();
  if (kw == NULL) return NULL;
  optstore store = {NULL, {NULL}, 0};
  zb_csv_options o;
  PyObject *progress = NULL, *path = NULL, *result = NULL, *wl = NULL;
  int64_t max_warnings = 1000;
  Py_buffer view;
  int is_buf = 0;
  zb_csv_warnings warns = {NULL, 0, 0, 0};
  zb_table *t = NULL;
  if (build_options(st, kw, &o, &store, &progress, &max_warnings) < 0) goto done;
  if (o.on_bad_lines == ZB_CSV_BAD_LINES_WARN) {
    if (max_warnings < 0) max_warnings = 0;
    warns.items = (zb_csv_warning *)zb_malloc((size_t)(max_warnings > 0 ? max_warnings : 1) *
                                              sizeof(zb_csv_warning));
    if (warns.items == NULL) {
      zbpy_raise_nomem(st, "CSV warnings", (size_t)max_warnings * sizeof(zb_csv_warning));
      goto done;
    }
    warns.capacity = max_warnings;
    o.warnings = &warns;
  }
  pyhook hook = {progress, 0};
  o.progress = progress_hook;
  o.progress_ctx = &hook;
  if (get_source(src, &path, &view, &is_buf) < 0) goto done;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  if (is_buf) {
    const char *data = (const char *)view.buf;
    int64_t size = (int64_t)view.len;
    ZBPY_BEGIN_ENGINE
    s = zb_csv_read_buffer(data, size, &o, &t, &err);
    ZBPY_END_ENGINE
  } else {
    const char *p = PyBytes_AS_STRING(path);
    ZBPY_BEGIN_ENGINE
    s = zb_csv_read_file(p, &o, &t, &err);
    ZBPY_END_ENGINE
  }
  if (hook.failed) { /* the Python exception is pending: raise it */
    zb_table_release(t);
    t = NULL;
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_KeyboardInterrupt, "CSV read interrupted");
    goto done;
  }
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto done;
  }
  wl = warnings_list(&warns);
  if (wl == NULL) goto done;
  PyObject *tab = zbpy_table_wrap(st, t);
  t = NULL;
  if (tab == NULL) goto done;
  result = Py_BuildValue("(NOL)", tab, wl, (long long)warns.total);
done:
  zb_table_release(t);
  Py_XDECREF(wl);
  if (is_buf) PyBuffer_Release(&view);
  Py_XDECREF(path);
  zb_free(warns.items);
  optstore_clear(&store);
  Py_DECREF(kw);
  return result;
}

/* ------------------------------------------------------------------------ */
/* Row boundaries                                                           */
/* ------------------------------------------------------------------------ */

/* The options of a row-boundary call (its keywords: the dialect), shared
 * by the three calls below. */
typedef struct {
  PyObject *kw;
  optstore store;
  zb_csv_options o;
} dialect_args;

static int dialect_begin(zbpy_state *st, PyObject *kwargs, dialect_args *a) {
  PyObject *progress = NULL;
  int64_t mw = 0;
  a->store = (optstore){NULL, {NULL}, 0};
  a->kw = kwargs ? PyDict_Copy(kwargs) : PyDict_New();
  return a->kw == NULL || build_options(st, a->kw, &a->o, &a->store, &progress, &mw) < 0 ? -1
                                                                                        : 0;
}

static void dialect_end(dialect_args *a, Py_buffer *view) {
  PyBuffer_Release(view);
  optstore_clear(&a->store);
  Py_XDECREF(a->kw);
}

static PyObject *zbpy_csv_data_start(PyObject *module, PyObject *args, PyObject *kwargs) {
  zbpy_state *st = zbpy_module_state(module);
  Py_buffer view;
  if (!PyArg_ParseTuple(args, "y*:csv_data_start", &view)) return NULL;
  dialect_args a;
  PyObject *result = NULL;
  if (dialect_begin(st, kwargs, &a) == 0) {
    int64_t off = 0, lines = 0;
    zb_error err;
    err.message[0] = '\0';
    zb_status s;
    ZBPY_BEGIN_ENGINE
    s = zb_csv_data_start((const char *)view.buf, (int64_t)view.len, &a.o, &off, &lines, &err);
    ZBPY_END_ENGINE
    result = s != ZB_OK ? zbpy_raise(st, s, &err)
                        : Py_BuildValue("(LL)", (long long)off, (long long)lines);
  }
  dialect_end(&a, &view);
  return result;
}

static PyObject *zbpy_csv_cr_lines(PyObject *module, PyObject *args, PyObject *kwargs) {
  zbpy_state *st = zbpy_module_state(module);
  Py_buffer view;
  if (!PyArg_ParseTuple(args, "y*:csv_cr_lines", &view)) return NULL;
  dialect_args a;
  PyObject *result = NULL;
  if (dialect_begin(st, kwargs, &a) == 0) {
    char *lf = NULL;
    zb_error err;
    err.message[0] = '\0';
    zb_status s;
    ZBPY_BEGIN_ENGINE
    s = zb_csv_cr_lines((const char *)view.buf, (int64_t)view.len, &a.o, &lf, &err);
    ZBPY_END_ENGINE
    if (s != ZB_OK)
      result = zbpy_raise(st, s, &err);
    else if (lf == NULL)
      result = Py_NewRef(Py_None);
    else
      result = PyBytes_FromStringAndSize(lf, (Py_ssize_t)view.len);
    zb_free(lf);
  }
  dialect_end(&a, &view);
  return result;
}

static PyObject *zbpy_csv_find_rows(PyObject *module, PyObject *args, PyObject *kwargs) {
  zbpy_state *st = zbpy_module_state(module);
  Py_buffer view;
  long long start, nrows;
  if (!PyArg_ParseTuple(args, "y*LL:csv_find_rows", &view, &start, &nrows)) return NULL;
  dialect_args a;
  PyObject *result = NULL;
  if (dialect_begin(st, kwargs, &a) == 0) {
    int64_t end = 0, rows = 0, lines = 0;
    zb_error err;
    err.message[0] = '\0';
    zb_status s;
    ZBPY_BEGIN_ENGINE
    s = zb_csv_find_rows((const char *)view.buf, (int64_t)view.len, &a.o, start, nrows, &end,
                         &rows, &lines, &err);
    ZBPY_END_ENGINE
    result = s != ZB_OK ? zbpy_raise(st, s, &err)
                        : Py_BuildValue("(LLL)", (long long)end, (long long)rows,
                                        (long long)lines);
  }
  dialect_end(&a, &view);
  return result;
}

/* ------------------------------------------------------------------------ */
/* zstd                                                                     */
/* ------------------------------------------------------------------------ */

/* zstd_decompress(buffer) -> BufferView of the decompressed bytes. */
static PyObject *zbpy_zstd_decompress(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  Py_buffer view;
  if (!PyArg_ParseTuple(args, "y*:zstd_decompress", &view)) return NULL;
  zb_buffer *out = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_zstd_decompress(view.buf, (int64_t)view.len, NULL, &out, &err);
  ZBPY_END_ENGINE
  PyBuffer_Release(&view);
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    return NULL;
  }
  PyObject *r = zbpy_bufview_new(st, out, out->data, (Py_ssize_t)out->size, 1, "B");
  zb_buffer_release(out);
  return r;
}

static PyObject *zbpy_zstd_available(PyObject *module, PyObject *unused) {
  return PyBool_FromLong(zb_zstd_available());
}

/* ------------------------------------------------------------------------ */
/* Transcoding                                                              */
/* ------------------------------------------------------------------------ */

/* cp1252 0x80..0x9F; 0 = undefined (an error, as Python's codec). */
static const uint16_t k_cp1252[32] = {
    0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0,      0x017D, 0,      0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

static inline uint32_t cp_of(uint8_t b, bool cp1252) {
  if (cp1252 && b >= 0x80 && b < 0xA0) return k_cp1252[b - 0x80];
  return b;
}

static inline int utf8_len(uint32_t cp) { return cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3; }

/* Returns the output size, or -1 - (position of an undefined byte). */
static int64_t transcode(const uint8_t *in, int64_t n, bool cp1252, char *out) {
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    uint8_t b = in[i];
    if (b < 0x80) {
      if (out) out[k] = (char)b;
      k++;
      continue;
    }
    uint32_t cp = cp_of(b, cp1252);
    if (cp == 0) return -1 - i;
    int L = utf8_len(cp);
    if (out) {
      if (L == 2) {
        out[k] = (char)(0xC0 | (cp >> 6));
        out[k + 1] = (char)(0x80 | (cp & 0x3F));
      } else {
        out[k] = (char)(0xE0 | (cp >> 12));
        out[k + 1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[k + 2] = (char)(0x80 | (cp & 0x3F));
      }
    }
    k += L;
  }
  return k;
}

static PyObject *zbpy_transcode_to_utf8(PyObject *module, PyObject *args) {
  zbpy_state *st = zbpy_module_state(module);
  Py_buffer view;
  const char *enc;
  if (!PyArg_ParseTuple(args, "y*s:transcode_to_utf8", &view, &enc)) return NULL;
  PyObject *result = NULL;
  bool cp1252;
  if (strcmp(enc, "latin-1") == 0 || strcmp(enc, "iso8859-1") == 0) {
    cp1252 = false;
  } else if (strcmp(enc, "cp1252") == 0) {
    cp1252 = true;
  } else {
    PyErr_Format(st->UnsupportedError, "transcode_to_utf8: encoding '%s' (latin-1 or cp1252)",
                 enc);
    goto done;
  }
  const uint8_t *in = (const uint8_t *)view.buf;
  int64_t n = (int64_t)view.len, size;
  ZBPY_BEGIN_ENGINE
  size = transcode(in, n, cp1252, NULL);
  ZBPY_END_ENGINE
  if (size < 0) {
    int64_t pos = -1 - size, line = 1;
    for (int64_t i = 0; i < pos; i++) line += in[i] == '\n';
    PyErr_Format(st->ParseError,
                 "CSV line %lld: byte 0x%02x (at offset %lld) is not defined in %s",
                 (long long)line, in[pos], (long long)pos, enc);
    goto done;
  }
  result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
  if (result == NULL) goto done;
  char *out = PyBytes_AS_STRING(result);
  ZBPY_BEGIN_ENGINE
  transcode(in, n, cp1252, out);
  ZBPY_END_ENGINE
done:
  PyBuffer_Release(&view);
  return result;
}

/* ------------------------------------------------------------------------ */
/* write_csv                                                                */
/* ------------------------------------------------------------------------ */

static zb_status csv_write(const zb_table *t, const char *path, const void *opts,
                           zb_csv_write_fn write, void *ctx, zb_error *err) {
  const zb_csv_write_options *o = (const zb_csv_write_options *)opts;
  if (path != NULL) return zb_csv_write_file(t, path, o, err);
  return zb_csv_write(t, o, write, ctx, err);
}

static PyObject *zbpy_write_csv(PyObject *module, PyObject *args, PyObject *kwargs) {
  zbpy_state *st = zbpy_module_state(module);
  static char *kwlist[] = {"table",    "target",       "sep",     "quotechar",
                           "escapechar", "doublequote", "header", "na_rep",
                           "float_format", "quoting",  "lineterminator", "utc_offsets", NULL};
  PyObject *table, *target, *sep = NULL, *quotechar = NULL, *escapechar = NULL;
  PyObject *offsets = NULL;
  int doublequote = 1, header = 1, quoting = 0;
  const char *na_rep = "", *float_format = NULL, *lineterminator = "\n";
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OOOppszisO:write_csv", kwlist, &table,
                                   &target, &sep, &quotechar, &escapechar, &doublequote,
                                   &header, &na_rep, &float_format, &quoting, &lineterminator,
                                   &offsets))
    return NULL;
  zb_csv_write_options o;
  zb_csv_write_options_init(&o);
  if (char_opt(st, sep, "sep", &o.sep) < 0 || char_opt(st, quotechar, "quotechar", &o.quotechar) < 0 ||
      char_opt(st, escapechar, "escapechar", &o.escapechar) < 0)
    return NULL;
  o.doublequote = doublequote != 0;
  o.header = header != 0;
  o.na_rep = na_rep;
  o.float_format = float_format;
  o.quoting = (zb_csv_quoting)quoting;
  o.lineterminator = lineterminator;
  /* utc_offsets: None, or a list (one entry per table column) of None or
   * an int32 Column (borrowed: the list holds them during the write) */
  const zb_column **offs = NULL;
  if (offsets != NULL && offsets != Py_None) {
    if (!PyList_Check(offsets))
      return PyErr_Format(PyExc_TypeError, "write_csv: utc_offsets must be a list or None");
    Py_ssize_t k = PyList_GET_SIZE(offsets);
    offs = (const zb_column **)PyMem_Calloc((size_t)(k > 0 ? k : 1), sizeof *offs);
    if (offs == NULL) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < k; i++) {
      PyObject *x = PyList_GET_ITEM(offsets, i);
      if (x == Py_None) continue;
      offs[i] = zbpy_arg_column(st, x, "write_csv utc_offsets");
      if (offs[i] == NULL) {
        PyMem_Free(offs);
        return NULL;
      }
    }
    o.utc_offsets = offs;
    zb_table *t = zbpy_arg_table(st, table, "write_csv");
    if (t == NULL || (int64_t)k != t->num_columns) {
      PyMem_Free(offs);
      if (t == NULL) return NULL;
      return PyErr_Format(PyExc_ValueError, "write_csv: utc_offsets has %zd entries for %lld "
                          "columns", k, (long long)t->num_columns);
    }
  }
  zbpy_text_target tt;
  if (zbpy_text_target_init(st, &tt, table, target, "write_csv", "CSV") < 0) {
    PyMem_Free(offs);
    return NULL;
  }
  PyObject *res = zbpy_text_target_run(st, &tt, csv_write, &o);
  PyMem_Free(offs);
  return res;
}

PyMethodDef zbpy_csv_methods[] = {
    {"read_csv", (PyCFunction)(void (*)(void))zbpy_read_csv, METH_VARARGS | METH_KEYWORDS,
     "read_csv(source, **options) -> (Table, warnings, bad_lines)"},
    {"csv_cr_lines", (PyCFunction)(void (*)(void))zbpy_csv_cr_lines,
     METH_VARARGS | METH_KEYWORDS,
     "csv_cr_lines(buffer, **options) -> bytes or None: lone-CR line ends as LF"},
    {"csv_data_start", (PyCFunction)(void (*)(void))zbpy_csv_data_start,
     METH_VARARGS | METH_KEYWORDS, "csv_data_start(buffer, **options) -> (offset, lines)"},
    {"csv_find_rows", (PyCFunction)(void (*)(void))zbpy_csv_find_rows,
     METH_VARARGS | METH_KEYWORDS,
     "csv_find_rows(buffer, start, nrows, **options) -> (end, rows, lines)"},
    {"zstd_decompress", zbpy_zstd_decompress, METH_VARARGS,
     "zstd_decompress(buffer) -> BufferView (libzstd loaded at run time)"},
    {"zstd_available", zbpy_zstd_available, METH_NOARGS,
     "zstd_available() -> bool: whether libzstd could be loaded"},
    {"transcode_to_utf8", zbpy_transcode_to_utf8, METH_VARARGS,
     "transcode_to_utf8(buffer, encoding) -> bytes (latin-1 or cp1252)"},
    {"write_csv", (PyCFunction)(void (*)(void))zbpy_write_csv, METH_VARARGS | METH_KEYWORDS,
     "write_csv(table, target, **options) -> str (target None) or None"},
    {NULL, NULL, 0, NULL},
};
