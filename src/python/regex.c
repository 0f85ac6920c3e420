/*
 * regex.c -- the _core functions behind the pattern methods of Series.str
 * (contains / match / fullmatch / count / replace with regular
 * expressions, extract, split, rsplit, partition, rpartition): argument
 * conversion, then one zb_column_regex call with the GIL released.  Added
 * to the module by module_exec through zbpy_regex_methods.
 */
#include "zbpy.h"

#include <string.h>

#include "zambezi/regex.h"

static int regex_op_from_name(const char *name, zb_regex_op *op) {
  for (int k = 0; k < ZB_RE_OP_COUNT; k++)
    if (strcmp(name, zb_regex_op_name((zb_regex_op)k)) == 0) {
      *op = (zb_regex_op)k;
      return 0;
    }
  PyErr_Format(PyExc_ValueError, "unknown pattern operation '%s'", name);
  return -1;
}

/* regex_op(col, op, pat=None, flags=0, n=-1, repl=None, tmpl=(), as_list=False,
 *          part=None, pieces=False)
 * -> a Column, or a Table for the multi-column ops (a list<string> Column
 * for findall, and for split / rsplit with as_list; a string Column of
 * piece `part` of every row for split / rsplit with part; an int64 Column
 * of each row's number of pieces for split / rsplit with pieces).  tmpl: flat (bytes, group)
 * pairs of the replacement template (zambezi/regex.h). */
static PyObject *py_regex_op(PyObject *module, PyObject *args, PyObject *kwargs) {
  static char *kwlist[] = {"col", "op",      "pat",  "flags", "n",
                           "repl", "tmpl", "as_list", "part", "pieces", NULL};
  zbpy_state *st = zbpy_module_state(module);
  PyObject *colo, *pat = Py_None, *repl = Py_None, *tmpl = NULL, *part = Py_None;
  const char *opname;
  unsigned int flags = 0;
  Py_ssize_t n = -1;
  int as_list = 0, pieces = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Os|OInOOpOp", kwlist, &colo, &opname, &pat,
                                   &flags, &n, &repl, &tmpl, &as_list, &part, &pieces))
    return NULL;
  zb_column *col = zbpy_arg_column(st, colo, "col");
  if (col == NULL) return NULL;
  zb_regex_args a;
  memset(&a, 0, sizeof a);
  if (regex_op_from_name(opname, &a.op) < 0) return NULL;
  a.flags = flags;
  a.n = n;
  a.as_list = as_list != 0;
  a.count_only = pieces != 0;
  if (part != Py_None) {
    a.part_only = true;
    a.part = PyLong_AsLongLong(part);
    if (a.part == -1 && PyErr_Occurred()) return NULL;
  }
  if (pat != Py_None) {
    Py_ssize_t len;
    if (!PyUnicode_Check(pat)) return PyErr_Format(PyExc_TypeError, "pat must be a str");
    a.pat = PyUnicode_AsUTF8AndSize(pat, &len);
    if (a.pat == NULL) return NULL;
    a.pat_len = len;
  }
  if (repl != Py_None) {
    Py_ssize_t len;
    if (!PyUnicode_Check(repl)) return PyErr_Format(PyExc_TypeError, "repl must be a str");
    a.repl = PyUnicode_AsUTF8AndSize(repl, &len);
    if (a.repl == NULL) return NULL;
    a.repl_len = len;
  }
  int64_t *t = NULL;
  if (tmpl != NULL && tmpl != Py_None) {
    PyObject *seq = PySequence_Fast(tmpl, "tmpl must be a sequence of ints");
    if (seq == NULL) return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    if (k % 2 != 0) {
      Py_DECREF(seq);
      return PyErr_Format(PyExc_ValueError, "tmpl must hold (bytes, group) pairs");
    }
    t = (int64_t *)PyMem_Malloc((size_t)(k > 0 ? k : 1) * sizeof(int64_t));
    if (t == NULL) {
      Py_DECREF(seq);
      return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < k; i++) {
      t[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
      if (t[i] == -1 && PyErr_Occurred()) {
        Py_DECREF(seq);
        PyMem_Free(t);
        return NULL;
      }
    }
    Py_DECREF(seq);
    a.tmpl = t;
    a.n_tmpl = k / 2;
  }
  zb_column *res = NULL;
  zb_table *tab = NULL;
  zb_error err;
  zb_status s;
  ZBPY_BEGIN_ENGINE
  s = zb_column_regex(col, &a, &res, &tab, &err);
  ZBPY_END_ENGINE
  PyMem_Free(t);
  if (s != ZB_OK) return zbpy_raise(st, s, &err);
  if (tab != NULL) return zbpy_table_wrap(st, tab);
  return zbpy_column_wrap(st, res);
}

static PyObject *py_regex_available(PyObject *module, PyObject *unused) {
  (void)module;
  (void)unused;
  return PyBool_FromLong(zb_regex_available());
}

PyMethodDef zbpy_regex_methods[] = {
    {"regex_op", (PyCFunction)(void (*)(void))py_regex_op, METH_VARARGS | METH_KEYWORDS,
     "regex_op(col, op, pat=None, flags=0, n=-1, repl=None, tmpl=(), as_list=False, part=None, "
     "pieces=False)"
     "\n--\n\n"
     "A pattern operation of Series.str on a string column (zambezi/regex.h)."},
    {"regex_available", py_regex_available, METH_NOARGS,
     "regex_available()\n--\n\nWhether libpcre2-8 could be loaded."},
    {NULL, NULL, 0, NULL}};
