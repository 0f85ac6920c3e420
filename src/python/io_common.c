/*
 * io_common.c -- helpers the I/O bindings share (io_common.h): the
 * in-memory output sink, the metadata pairs of the binary writers, the
 * target of the text writers, the binary readers' arguments, and the
 * binary readers' and writers' skeletons.
 */
#include "io_common.h"

#include <stdio.h>
#include <string.h>

zb_status zbpy_mem_sink_write(void *ctx, const char *data, int64_t size, zb_error *err) {
  zbpy_mem_sink *m = (zbpy_mem_sink *)ctx;
  if (m->n + size > m->cap) {
    int64_t cap = m->cap > 0 ? m->cap : 1 << 16;
    while (cap < m->n + size) cap *= 2;
    char *p = (char *)zb_malloc((size_t)cap);
    if (p == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (%s)", m->what);
    if (m->n > 0) memcpy(p, m->p, (size_t)m->n);
    zb_free(m->p);
    m->p = p;
    m->cap = cap;
  }
  if (size > 0) memcpy(m->p + m->n, data, (size_t)size);
  m->n += size;
  return ZB_OK;
}

void zbpy_mem_sink_free(zbpy_mem_sink *m) {
  zb_free(m->p);
  m->p = NULL;
  m->n = m->cap = 0;
}

void zbpy_kv_pairs_free(zbpy_kv_pairs *kv) {
  PyMem_Free(kv->keys);
  PyMem_Free(kv->vals);
  Py_CLEAR(kv->seq);
  kv->keys = kv->vals = NULL;
  kv->n = 0;
}

int zbpy_kv_pairs_parse(zbpy_state *st, PyObject *obj, const char *fn, zbpy_kv_pairs *kv) {
  memset(kv, 0, sizeof *kv);
  char msg[96];
  snprintf(msg, sizeof msg, "%s: metadata must be a list of pairs", fn);
  kv->seq = PySequence_Fast(obj, msg);
  if (kv->seq == NULL) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(kv->seq);
  kv->keys = (const char **)PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof(char *));
  kv->vals = (const char **)PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof(char *));
  if (kv->keys == NULL || kv->vals == NULL) {
    PyErr_NoMemory();
    goto fail;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *it = PySequence_Fast_GET_ITEM(kv->seq, i);
    PyObject *k, *v;
    if (!PyTuple_Check(it) || PyTuple_GET_SIZE(it) != 2 ||
        !PyUnicode_Check(k = PyTuple_GET_ITEM(it, 0)) ||
        !PyUnicode_Check(v = PyTuple_GET_ITEM(it, 1))) {
      PyErr_Format(st->InvalidValueError, "%s: metadata must be (str, str) pairs", fn);
      goto fail;
    }
    if ((kv->keys[i] = PyUnicode_AsUTF8(k)) == NULL || (kv->vals[i] = PyUnicode_AsUTF8(v)) == NULL)
      goto fail;
  }
  kv->n = (int64_t)n;
  return 0;
fail:
  zbpy_kv_pairs_free(kv);
  return -1;
}

int zbpy_text_target_init(zbpy_state *st, zbpy_text_target *tt, PyObject *table,
                          PyObject *target, const char *fn, const char *format) {
  memset(tt, 0, sizeof *tt);
  tt->format = format;
  snprintf(tt->what, sizeof tt->what, "%s text", format);
  tt->mem.what = tt->what;
  if (!PyObject_TypeCheck(table, st->table_type)) {
    PyErr_Format(PyExc_TypeError, "%s: expected a Table, not %s", fn, Py_TYPE(table)->tp_name);
    return -1;
  }
  if (PyUnicode_Check(target)) {
    if (!PyUnicode_FSConverter(target, &tt->path)) return -1;
  } else if (target != Py_None) {
    if (!PyCallable_Check(target)) {
      PyErr_Format(PyExc_TypeError, "%s: target must be None, a path or a callable, not %s", fn,
                   Py_TYPE(target)->tp_name);
      return -1;
    }
    tt->callable = target;
  }
  if (zbpy_table_on_host(st, ((zbpy_table *)table)->table, &tt->host) < 0) {
    Py_CLEAR(tt->path);
    return -1;
  }
  return 0;
}

zb_status zbpy_text_target_write(void *ctx, const char *data, int64_t size, zb_error *err) {
  zbpy_text_target *tt = (zbpy_text_target *)ctx;
  if (tt->callable == NULL) ZB_RETURN_NOT_OK(zbpy_mem_sink_write(&tt->mem, data, size, err));
  if (!tt->failed) {
    PyGILState_STATE g = PyGILState_Ensure();
    if (PyErr_CheckSignals() < 0) {
      tt->failed = 1;
    } else if (tt->callable != NULL) {
      PyObject *b = PyBytes_FromStringAndSize(data, (Py_ssize_t)size);
      PyObject *r = b ? PyObject_CallOneArg(tt->callable, b) : NULL;
      Py_XDECREF(b);
      if (r == NULL) tt->failed = 1;
      Py_XDECREF(r);
    }
    /* the exception lives in this thread's state, which may be a pool
     * worker's: keep it for zbpy_text_target_finish */
    if (tt->failed && tt->exc_type == NULL && PyErr_Occurred())
      PyErr_Fetch(&tt->exc_type, &tt->exc_value, &tt->exc_tb);
    PyGILState_Release(g);
  }
  if (tt->failed) return zb_error_set(err, ZB_ECANCEL, "%s write interrupted", tt->format);
  return ZB_OK;
}

PyObject *zbpy_text_target_run(zbpy_state *st, zbpy_text_target *tt, zbpy_write_fn write,
                               const void *opts) {
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  const char *path = tt->path != NULL ? PyBytes_AS_STRING(tt->path) : NULL;
  ZBPY_RUN_ENGINE(s, write(tt->host, path, opts, zbpy_text_target_write, tt, &err));
  return zbpy_text_target_finish(st, tt, s, &err);
}

PyObject *zbpy_text_target_finish(zbpy_state *st, zbpy_text_target *tt, zb_status s,
                                  const zb_error *err) {
  PyObject *result = NULL;
  if (tt->failed) {
    if (tt->exc_type != NULL) {
      PyErr_Restore(tt->exc_type, tt->exc_value, tt->exc_tb);
      tt->exc_type = tt->exc_value = tt->exc_tb = NULL;
    }
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_KeyboardInterrupt, "%s write interrupted", tt->format);
  } else if (s != ZB_OK) {
    zbpy_raise(st, s, err);
  } else if (tt->path == NULL && tt->callable == NULL) {
    result = PyUnicode_DecodeUTF8(tt->mem.p ? tt->mem.p : "", (Py_ssize_t)tt->mem.n,
                                  "surrogateescape");
  } else {
    result = Py_NewRef(Py_None);
  }
  zbpy_mem_sink_free(&tt->mem);
  Py_CLEAR(tt->exc_type);
  Py_CLEAR(tt->exc_value);
  Py_CLEAR(tt->exc_tb);
  Py_CLEAR(tt->path);
  zb_table_release(tt->host);
  tt->host = NULL;
  return result;
}

void zbpy_names_free(zbpy_names *nm) {
  PyMem_Free(nm->names);
  Py_CLEAR(nm->seq);
  nm->names = NULL;
  nm->n = 0;
}

int zbpy_names_parse(zbpy_state *st, PyObject *columns, const char *fn, zbpy_names *out) {
  memset(out, 0, sizeof *out);
  char msg[96];
  snprintf(msg, sizeof msg, "%s: columns must be a list of names", fn);
  out->seq = PySequence_Fast(columns, msg);
  if (out->seq == NULL) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(out->seq);
  out->names = (const char **)PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof(char *));
  if (out->names == NULL) {
    PyErr_NoMemory();
    goto fail;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *it = PySequence_Fast_GET_ITEM(out->seq, i);
    if (!PyUnicode_Check(it)) {
      PyErr_Format(st->InvalidValueError, "%s: column names must be str, not %s", fn,
                   Py_TYPE(it)->tp_name);
      goto fail;
    }
    if ((out->names[i] = PyUnicode_AsUTF8(it)) == NULL) goto fail;
  }
  out->n = (int64_t)n;
  return 0;
fail:
  zbpy_names_free(out);
  return -1;
}

int zbpy_source_open(PyObject *src, zbpy_source *s) {
  memset(s, 0, sizeof *s);
  if (PyUnicode_Check(src) || PyBytes_Check(src))
    return PyUnicode_FSConverter(src, &s->path) ? 0 : -1;
  if (PyObject_GetBuffer(src, &s->view, PyBUF_SIMPLE) < 0) return -1;
  s->is_buf = 1;
  return 0;
}

void zbpy_source_close(zbpy_source *s) {
  Py_CLEAR(s->path);
  if (s->is_buf) PyBuffer_Release(&s->view);
  s->is_buf = 0;
}

PyObject *zbpy_metadata_str(const char *meta) {
  if (meta == NULL) return Py_NewRef(Py_None);
  return PyUnicode_DecodeUTF8(meta, (Py_ssize_t)strlen(meta), "replace");
}

int zbpy_read_binary(zbpy_state *st, const zbpy_binary_reader *r, PyObject *src,
                     PyObject *columns, PyObject **tab, PyObject **meta_str) {
  *tab = *meta_str = NULL;
  int rc = -1;
  zbpy_names names = {NULL, NULL, 0};
  zbpy_source source = {NULL, {0}, 0};
  zb_table *t = NULL;
  if (columns != Py_None) {
    if (zbpy_names_parse(st, columns, r->fn, &names) < 0) goto done;
    *r->columns = names.names;
    *r->num_columns = names.n;
  }
  if (zbpy_source_open(src, &source) < 0) goto done;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  const void *data = source.view.buf;
  int64_t size = (int64_t)source.view.len;
  const char *p = source.path != NULL ? PyBytes_AS_STRING(source.path) : NULL;
  ZBPY_BEGIN_ENGINE
  s = r->read(p, data, size, r->opts, &t, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK) {
    zbpy_raise(st, s, &err);
    goto done;
  }
  *tab = zbpy_table_wrap(st, t);
  t = NULL;
  if (*tab == NULL) goto done;
  *meta_str = zbpy_metadata_str(*r->meta);
  if (*meta_str == NULL) {
    Py_CLEAR(*tab);
    goto done;
  }
  rc = 0;
done:
  if (columns != Py_None) { /* the names die with names */
    *r->columns = NULL;
    *r->num_columns = 0;
  }
  zb_table_release(t);
  zb_free(*r->meta);
  *r->meta = NULL;
  zbpy_names_free(&names);
  zbpy_source_close(&source);
  return rc;
}

PyObject *zbpy_write_binary(zbpy_state *st, const zb_table *t, PyObject *path, const char *what,
                            zbpy_write_fn write, const void *opts) {
  PyObject *fs = NULL, *result = NULL;
  zbpy_mem_sink mem = {NULL, 0, 0, what};
  if (path != Py_None && !PyUnicode_FSConverter(path, &fs)) return NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s;
  const char *p = fs != NULL ? PyBytes_AS_STRING(fs) : NULL;
  ZBPY_BEGIN_ENGINE
  s = write(t, p, opts, zbpy_mem_sink_write, &mem, &err);
  ZBPY_END_ENGINE
  if (s != ZB_OK)
    zbpy_raise(st, s, &err);
  else
    result = fs != NULL ? Py_NewRef(Py_None) : PyBytes_FromStringAndSize(mem.p, (Py_ssize_t)mem.n);
  zbpy_mem_sink_free(&mem);
  Py_XDECREF(fs);
  return result;
}
