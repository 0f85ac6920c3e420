/*
 * io_common.h -- what the readers' and writers' bindings (csv.c, json.c,
 * parquet.c, ipc.c) share: the in-memory sink a writer fills when no path
 * is given, the (key, value) metadata pairs of to_parquet and to_ipc, the
 * target of a text writer (to_csv, to_json), the source, column names
 * and pandas metadata of read_parquet and read_ipc, and the skeletons of
 * those two readers and of their writers (the format's engine calls passed
 * in).  Helpers follow zbpy.h's
 * convention: -1 or NULL with a Python exception set.
 */
#ifndef ZAMBEZI_PY_IO_COMMON_H
#define ZAMBEZI_PY_IO_COMMON_H

#include "zbpy.h"

/* Output gathered in host memory, grown by doubling from 64 KiB.  A writer's
 * write function's context; zbpy_mem_sink_free releases p. */
typedef struct zbpy_mem_sink {
  char *p;
  int64_t n, cap;
  const char *what; /* names the writer in the out-of-memory message */
} zbpy_mem_sink;

/* Append data[0, size) (a zb_*_write_fn); ZB_ENOMEM when the buffer cannot
 * grow, the bytes so far kept. */
zb_status zbpy_mem_sink_write(void *ctx, const char *data, int64_t size, zb_error *err);
void zbpy_mem_sink_free(zbpy_mem_sink *m);

/* A writer's engine call, the format's adapter: t to the file at path, or
 * (path NULL) through write into ctx; opts is the format's options. */
typedef zb_status (*zbpy_write_fn)(const zb_table *t, const char *path, const void *opts,
                                   zb_status (*write)(void *, const char *, int64_t, zb_error *),
                                   void *ctx, zb_error *err);

/* The metadata argument of write_parquet / write_ipc: a sequence of
 * (str, str) tuples.  keys and vals borrow UTF-8 from the strings, which
 * seq keeps alive; zbpy_kv_pairs_free releases everything (also after a
 * failed parse, and on a zeroed struct). */
typedef struct zbpy_kv_pairs {
  PyObject *seq;
  const char **keys, **vals;
  int64_t n;
} zbpy_kv_pairs;

/* Parse obj into kv (zeroed first); fn names the function in errors:
 * TypeError when obj is no sequence, InvalidValueError for an item that is
 * not a (str, str) tuple. */
int zbpy_kv_pairs_parse(zbpy_state *st, PyObject *obj, const char *fn, zbpy_kv_pairs *kv);
void zbpy_kv_pairs_free(zbpy_kv_pairs *kv);

/* A text writer's table, on the host, and where its output goes: target
 * None (gathered in mem and returned as str), a str path (path: its
 * file-system bytes, the engine writes the file), or a callable receiving
 * bytes pieces.  The write function takes the GIL back briefly per piece
 * to check for Ctrl-C and to call the callable; an exception there stops
 * the writer (failed). */
typedef struct zbpy_text_target {
  zb_table *host;     /* owned: the table, copied to the host if need be */
  zbpy_mem_sink mem;
  PyObject *path;     /* owned, or NULL */
  PyObject *callable; /* borrowed, or NULL */
  const char *format; /* "CSV", "JSON": in messages */
  char what[24];      /* "CSV text": mem's out-of-memory message */
  int failed;         /* a Python exception is pending */
  /* owned: the exception of a write that failed on a worker thread (the
   * JSON writer calls the target there), raised again on the caller's */
  PyObject *exc_type, *exc_value, *exc_tb;
} zbpy_text_target;

/* Fill tt from table (a _core.Table, else TypeError) and target; fn names
 * the function in the TypeErrors (also for a target that is none of the
 * three).  On failure tt needs no clean-up. */
int zbpy_text_target_init(zbpy_state *st, zbpy_text_target *tt, PyObject *table,
                          PyObject *target, const char *fn, const char *format);
/* The write function for a target that is not a path (ctx: the target). */
zb_status zbpy_text_target_write(void *ctx, const char *data, int64_t size, zb_error *err);
/* Run write (to the file at tt's path, else through zbpy_text_target_write
 * into tt) with the GIL released, then zbpy_text_target_finish. */
PyObject *zbpy_text_target_run(zbpy_state *st, zbpy_text_target *tt, zbpy_write_fn write,
                               const void *opts);
/* After the engine call that returned s (err its message): the text as str
 * (target None) or None, or NULL with the exception (the callable's, a
 * KeyboardInterrupt, or s's).  Releases what tt holds. */
PyObject *zbpy_text_target_finish(zbpy_state *st, zbpy_text_target *tt, zb_status s,
                                  const zb_error *err);

/* The columns argument of a reader: a sequence of str.  names borrow
 * UTF-8 from the strings, which seq keeps alive; zbpy_names_free releases
 * everything (also after a failed parse, and on a zeroed struct). */
typedef struct zbpy_names {
  PyObject *seq;
  const char **names;
  int64_t n;
} zbpy_names;

/* Parse columns into out (zeroed first); fn names the function in errors:
 * TypeError when columns is no sequence, InvalidValueError for a name that
 * is not a str. */
int zbpy_names_parse(zbpy_state *st, PyObject *columns, const char *fn, zbpy_names *out);
void zbpy_names_free(zbpy_names *nm);

/* A reader's source: a path (str or bytes: path holds its file-system
 * bytes) or a bytes-like object holding a whole file (is_buf: view). */
typedef struct zbpy_source {
  PyObject *path;
  Py_buffer view;
  int is_buf;
} zbpy_source;

int zbpy_source_open(PyObject *src, zbpy_source *s);
void zbpy_source_close(zbpy_source *s);

/* The pandas metadata a reader found (NUL-terminated UTF-8, or NULL) as a
 * new str (undecodable bytes replaced), or None. */
PyObject *zbpy_metadata_str(const char *meta);

/* A binary reader's engine call: the file at path, or (path NULL) the size
 * bytes at data; opts is the format's options. */
typedef zb_status (*zbpy_read_fn)(const char *path, const void *data, int64_t size,
                                  const void *opts, zb_table **out, zb_error *err);

/* What read_parquet and read_ipc share around their engine call: the
 * format's options (opts) and the fields of them this fills. */
typedef struct zbpy_binary_reader {
  const char *fn; /* "read_ipc": in messages */
  zbpy_read_fn read;
  const void *opts;
  const char *const **columns; /* the options' columns, num_columns */
  int64_t *num_columns;
  char **meta; /* where the options put the pandas metadata */
} zbpy_binary_reader;

/* Parse columns (None: all) into r's options, open src (zbpy_source) and
 * run r->read with the GIL released.  On success 0, *tab the Table and
 * *meta_str the pandas metadata (zbpy_metadata_str), new references; else
 * -1 with the exception.  *r->meta is freed either way. */
int zbpy_read_binary(zbpy_state *st, const zbpy_binary_reader *r, PyObject *src,
                     PyObject *columns, PyObject **tab, PyObject **meta_str);

/* write_parquet / write_ipc once opts is filled: path (None, or a str
 * path) -> None, or the file's bytes when path is None, or NULL with the
 * exception; what ("to_ipc") names the writer in the out-of-memory
 * message.  The GIL is released around write. */
PyObject *zbpy_write_binary(zbpy_state *st, const zb_table *t, PyObject *path, const char *what,
                            zbpy_write_fn write, const void *opts);

#endif /* ZAMBEZI_PY_IO_COMMON_H */
