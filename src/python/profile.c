/*
 * profile.c -- zambezi.profile()'s C side: profile_start returns a capsule
 * owning an active engine profile (zambezi/profile.h); profile_stop stops it
 * and returns its records as tuples
 *   (op, device, data_device, rows, start_s, seconds, thread, depth,
 *    fallback, reason)
 * which python/zambezi/_profile.py turns into ProfileRecord objects.  A
 * capsule collected without profile_stop frees its profile (stopping it).
 * coverage lists a backend's support table (zb_backend_coverage).
 */
#include "zbpy.h"

#include "zambezi/profile.h"

#define PROFILE_CAPSULE "zambezi.profile"

static void profile_capsule_free(PyObject *cap) {
  zb_profile *p = (zb_profile *)PyCapsule_GetPointer(cap, PROFILE_CAPSULE);
  if (p == NULL) {
    PyErr_Clear();
    return;
  }
  zb_profile_free(p);
}

static PyObject *py_profile_start(PyObject *module, PyObject *arg) {
  zbpy_state *st = zbpy_module_state(module);
  int all_threads = PyObject_IsTrue(arg);
  if (all_threads < 0) return NULL;
  zb_profile *p = NULL;
  zb_error err;
  err.message[0] = '\0';
  zb_status s = zb_profile_start(all_threads != 0, &p, &err);
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  PyObject *cap = PyCapsule_New(p, PROFILE_CAPSULE, profile_capsule_free);
  if (cap == NULL) zb_profile_free(p);
  return cap;
}

static PyObject *record_tuple(const zb_profile_record *r) {
  return Py_BuildValue("(sNNLddLiOs)", r->op, zbpy_device_str(r->device),
                       zbpy_device_str(r->data_device), (long long)r->rows,
                       (double)r->start_ns * 1e-9, (double)r->wall_ns * 1e-9,
                       (long long)r->thread, (int)r->depth, r->fallback ? Py_True : Py_False,
                       r->reason);
}

static PyObject *py_profile_stop(PyObject *module, PyObject *cap) {
  zb_profile *p = (zb_profile *)PyCapsule_GetPointer(cap, PROFILE_CAPSULE);
  if (p == NULL) return NULL;
  zb_profile_stop(p);
  int64_t n = 0;
  const zb_profile_record *recs = zb_profile_records(p, &n);
  PyObject *list = PyList_New((Py_ssize_t)n);
  if (list == NULL) return NULL;
  for (int64_t i = 0; i < n; i++) {
    PyObject *t = record_tuple(&recs[i]);
    if (t == NULL) {
      Py_DECREF(list);
      return NULL;
    }
    PyList_SET_ITEM(list, (Py_ssize_t)i, t);
  }
  PyObject *result = Py_BuildValue("(NL)", list, (long long)zb_profile_dropped(p));
  return result;
}

/* coverage(kind) -> [(op, variants, types)]: kind 0 the CPU, 1 CUDA. */
static PyObject *py_coverage(PyObject *module, PyObject *arg) {
  zbpy_state *st = zbpy_module_state(module);
  long kind = PyLong_AsLong(arg);
  if (kind == -1 && PyErr_Occurred()) return NULL;
  if (kind != ZB_DEVICE_CPU && kind != ZB_DEVICE_CUDA)
    return PyErr_Format(PyExc_ValueError, "coverage: unknown device kind %ld", kind);
  zb_coverage_row *rows = NULL;
  int64_t n = 0;
  zb_error err;
  err.message[0] = '\0';
  zb_status s = zb_backend_coverage((zb_device_kind)kind, &rows, &n, &err);
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  PyObject *list = PyList_New((Py_ssize_t)n);
  for (int64_t i = 0; list != NULL && i < n; i++) {
    PyObject *t = Py_BuildValue("(sss)", rows[i].op, rows[i].variants, rows[i].types);
    if (t == NULL) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, (Py_ssize_t)i, t);
  }
  zb_free(rows);
  return list;
}

PyMethodDef zbpy_profile_methods[] = {
    {"coverage", py_coverage, METH_O,
     "coverage(kind) -> [(op, variants, types)]: what a backend (0 cpu, 1 cuda) runs natively."},
    {"profile_start", py_profile_start, METH_O,
     "profile_start(all_threads) -> capsule: start recording engine operations."},
    {"profile_stop", py_profile_stop, METH_O,
     "profile_stop(capsule) -> (records, dropped): stop recording; records are tuples\n"
     "(op, device, data_device, rows, start_s, seconds, thread, depth, fallback, reason)."},
    {NULL, NULL, 0, NULL},
};
