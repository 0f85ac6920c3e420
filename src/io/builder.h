/*
 * builder.h -- the column builder the readers share (internal API): values
 * handed over in parts, in parallel, become the columns of a table.  A
 * reader (CSV today; Parquet and JSON next) finds where values are; the
 * builder does the rest -- type inference over every value (a column gets
 * the first of bool, int64, uint64, float64, date32, timestamp[us] and
 * string that all its values parse as), nulls, strings, dates and
 * timestamps, columns of a given type, and categoricals (a sorted
 * dictionary built at the end).
 *
 * The shape of a build, nanoarrow style:
 *
 *   zb__builder *b;
 *   zb__builder_new(ncols, nparts, &opts, &b, err);
 *   zb__builder_set_column(b, j, name, type, fixed);    // every column
 *   zb__builder_set_part(b, k, max_rows, pos0, &text);  // every part
 *   zb__builder_alloc(b, err);
 *   // in parallel over parts (one thread per part at a time), batch by
 *   // batch, every column of a batch before the next batch:
 *   zb__builder_text(b, k, j, cells, rows_done, n, worker);  // or _put_*
 *   zb__builder_part_done(b, k, rows);
 *   zb__builder_resolve(b, err);     // then check zb__builder_error(b, k)
 *   zb__builder_finish(b, columns, err);
 *   zb__builder_release(b);
 *
 * A part is a run of rows the source parses on its own (a CSV chunk, a
 * Parquet row group); each gets room for max_rows rows, placed after the
 * previous parts', and says how many it filled at the end (rows a source
 * over-counted are compacted away).  Values come either as text cells --
 * (offset, length) pairs into the part's text, parsed here -- or as typed
 * values (zb__builder_put_*) for formats whose values are already binary.
 * Text parsing options (decimal point, thousands separator, NA strings)
 * are a parameter; nothing here knows about delimiters or quotes: a source
 * whose text needs decoding (CSV quotes, JSON escapes) flags those cells
 * and supplies a decode function.
 *
 * Inference looks at every value; nulls do not vote.  A part's column
 * takes the narrowest type of its first value and widens in place when a
 * value does not fit (int -> float, date -> timestamp); widening to string
 * asks the source for the part's earlier cells again (refetch).  At the
 * end each inferred column takes the type that every part's values parse
 * as, parts that chose a narrower one are converted, and a column without
 * a value is float64 (string when there are no rows at all).
 *
 * Errors: functions that can fail return a zb_status.  A value that does
 * not parse as a column's given type, an integer out of its range or text
 * that is not UTF-8 is recorded in its part (the one earliest in the part,
 * by position, is kept; see zb__build_error) so that a parallel reader can
 * report the error earliest in its input whatever the thread count; the
 * reader formats the message with its own notion of where it was.
 *
 * The functions are exported from libzambezi (not part of the public API)
 * so that the C tests can test the builder by itself.
 */
#ifndef ZAMBEZI_IO_BUILDER_H
#define ZAMBEZI_IO_BUILDER_H

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exported from libzambezi (though declared only here, not in include/) so
 * that tests/c can test the builder by itself; not part of the public API. */
#define ZB__BUILDER_API ZB_API

/* A build in progress (builder_internal.h). */
typedef struct zb__builder zb__builder;

/* ------------------------------------------------------------------------ */
/* Text cells                                                               */
/* ------------------------------------------------------------------------ */

/* A text cell (uint64_t) locates one value in its part's text: the offset
 * from the part's base in the low 32 bits, the length in bits 32..62 and
 * ZB_CELL_FLAG when the bytes need decoding (zb__text_source.decode), or
 * the length ZB_CELL_MISSING for a value that is absent (null).  So a
 * part's text spans at most 4 GiB and a value at most ZB_CELL_MAXLEN. */
#define ZB_CELL_MISSING 0xFFFFFFFFu
#define ZB_CELL_FLAG 0x80000000u
#define ZB_CELL_MAXLEN 0x7FFFFFFEu
#define ZB_CELL_NULL ((uint64_t)ZB_CELL_MISSING << 32)

static inline uint64_t zb__cell(int64_t offset, int64_t length, bool flagged) {
  return (uint64_t)(uint32_t)offset |
         (uint64_t)((uint32_t)length | (flagged ? ZB_CELL_FLAG : 0u)) << 32;
}

/* How text values are read. */
typedef struct zb__text_options {
  char decimal;   /* the decimal point of floats; default '.' */
  char thousands; /* allowed between digits of numbers; 0 (default): none */
  /* Texts read as null in every column (after decoding), borrowed until
   * zb__builder_release; "" among them makes empty values null.  Default
   * none. */
  const char *const *na_values;
  int64_t num_na_values;
  /* Fixed for now: booleans are True/true/TRUE/False/false/FALSE, dates
   * YYYY-MM-DD, timestamps YYYY-MM-DD[ T]HH:MM[:SS[.ffffff]] (text_values.h). */
} zb__text_options;

/* What the builder asks of a source of text cells.  Every callback may be
 * called from the worker threads, for different parts at once. */
typedef struct zb__text_source {
  void *ctx; /* passed to the callbacks */
  /* Decode a flagged cell's raw bytes s[0, n) into out (at most cap bytes)
   * and return the decoded length.  Decoding never lengthens a text.
   * Required when any cell is flagged. */
  int64_t (*decode)(void *ctx, const char *s, int64_t n, char *out, int64_t cap);
  /* Optional (NULL: none): decode's result length without copying, for a
   * source whose decoding keeps at least (n - 2) / 2 bytes (so a long
   * flagged cell is known not to be an NA string) and keeps valid UTF-8
   * valid; lets long flagged strings be checked and counted in place. */
  int64_t (*decoded_length)(void *ctx, const char *s, int64_t n);
  /* Hand the cells of the part's first nrows rows again, for columns
   * cols[0, ncols), through zb__builder_text_again on this worker.  Called
   * when a part's column that held numbers, booleans or dates must become
   * a string column (the values' texts were not kept): from
   * zb__builder_text (for rows before the current batch) and from
   * zb__builder_resolve (for whole parts).  Returns ZB_OK, or ZB_ENOMEM
   * (or another status) to stop the build.  Required unless every column
   * is fixed. */
  zb_status (*refetch)(void *ctx, int64_t part, const int64_t *cols, int64_t ncols,
                       int64_t nrows, int worker);
} zb__text_source;

typedef struct zb__builder_options {
  const char *label;      /* names the format in messages ("CSV"); default "read" */
  zb__text_options text;
  zb__text_source source; /* all NULL for a source of typed values only */
} zb__builder_options;

/* Where a part's text cells point. */
typedef struct zb__text_part {
  const char *base;      /* cell offsets count from here */
  const char *end;       /* reading up to here is safe (may lie past the part) */
  const char *ascii_end; /* [base, ascii_end) is known to be ASCII (no UTF-8
                            check needed there); base when unknown */
} zb__text_part;

/* A value error recorded in a part (the earliest, by pos). */
enum {
  ZB_BUILD_ERR_VALUE = 1,    /* ZB_EPARSE: does not parse as the column's type */
  ZB_BUILD_ERR_OVERFLOW = 2, /* ZB_EOVERFLOW: out of the column's integer range */
  ZB_BUILD_ERR_UTF8 = 3      /* ZB_EPARSE: a string that is not valid UTF-8 */
};

typedef struct zb__build_error {
  zb_status st;   /* ZB_OK: none */
  int kind;       /* ZB_BUILD_ERR_* */
  int64_t pos;    /* text: the part's pos0 + the cell's offset; typed: pos0 + row */
  int64_t col;    /* the column */
  char text[48];  /* the value (decoded, at most 40 bytes; "..." when cut) */
} zb__build_error;

/* ------------------------------------------------------------------------ */
/* Lifecycle                                                                */
/* ------------------------------------------------------------------------ */

/* Defaults: label "read", decimal '.', no thousands separator, no NA
 * strings, no source callbacks. */
ZB__BUILDER_API void zb__builder_options_init(zb__builder_options *o);

/* A new builder of ncols columns from nparts parts.  opts is copied; what
 * it points to (label, na_values, the source's ctx) is borrowed until
 * zb__builder_release.  On success *out is the caller's to release; on
 * failure *out is NULL and nothing is leaked. */
ZB__BUILDER_API zb_status zb__builder_new(int64_t ncols, int64_t nparts,
                                          const zb__builder_options *opts, zb__builder **out,
                                          zb_error *err);

/* Free the builder and everything it still holds (NULL is a no-op). */
ZB__BUILDER_API void zb__builder_release(zb__builder *b);

/* Column col: its name (borrowed until release; used in messages) and,
 * when fixed, its type: any zb_type_id (ZB_TIMESTAMP is timestamp[us]).
 * Not fixed: inferred (type is ignored).  Default: inferred, unnamed.
 * Before zb__builder_alloc. */
ZB__BUILDER_API void zb__builder_set_column(zb__builder *b, int64_t col, const char *name,
                                            zb_type_id type, bool fixed);

/* The types inference may give column col (an inferred one): ZB_INFER_*
 * bits, default ZB_INFER_ALL.  A value that parses as none of them makes
 * the column a string column.  (JSON: numbers only, so that the text of
 * "true" or "2024-01-02" in a string stays a string.)  Before
 * zb__builder_alloc. */
enum {
  ZB_INFER_BOOL = 1,
  ZB_INFER_NUMBERS = 2 | 4 | 8, /* int64, uint64, float64 */
  ZB_INFER_DATES = 16 | 32,     /* date32, timestamp */
  ZB_INFER_ALL = 63
};
ZB__BUILDER_API void zb__builder_set_inference(zb__builder *b, int64_t col, int allowed);

/* Part part: room for max_rows rows; pos0 is its position in the source
 * (error positions add to it); text may be NULL for typed values only
 * (copied).  Default: no rows.  Before zb__builder_alloc. */
ZB__BUILDER_API void zb__builder_set_part(zb__builder *b, int64_t part, int64_t max_rows,
                                          int64_t pos0, const zb__text_part *text);

/* Allocate the columns' slots for every part's max_rows.  On failure the
 * builder can only be released. */
ZB__BUILDER_API zb_status zb__builder_alloc(zb__builder *b, zb_error *err);

/* ------------------------------------------------------------------------ */
/* Values                                                                   */
/* ------------------------------------------------------------------------ */

/* Convert a batch of text cells of column col: rows [rows_done, rows_done
 * + n) of part `part`, rows_done being the rows of this column already
 * handed over for the part (each row once, in order).  cells is borrowed
 * for the call; the text it points to must stay until zb__builder_finish
 * (strings are copied out of it then).  worker (< 4096) names the calling
 * thread's scratch: zb_parallel_for's worker; 0 when sequential.  Returns
 * ZB_OK -- also when a value error was recorded in the part (check
 * zb__builder_error after the batch's columns, so that the error earliest
 * in the batch is the one kept) -- or ZB_EINVAL for rows outside the
 * part's room (nothing done), ZB_ENOMEM, or the refetch's status: then
 * the build can only be released. */
ZB__BUILDER_API zb_status zb__builder_text(zb__builder *b, int64_t part, int64_t col,
                                           const uint64_t *cells, int64_t rows_done, int64_t n,
                                           int worker);

/* For refetch only: the cells of rows [rows_done, rows_done + n) of a part
 * whose column col is becoming a string column, again (their nulls are
 * already counted).  Returns ZB_OK, ZB_EINVAL (outside the part's room)
 * or ZB_ENOMEM. */
ZB__BUILDER_API zb_status zb__builder_text_again(zb__builder *b, int64_t part, int64_t col,
                                                 const uint64_t *cells, int64_t rows_done,
                                                 int64_t n, int worker);

/* Typed values, for formats whose values are binary: rows [rows_done,
 * rows_done + n) of part `part` of column col, which must be fixed (else
 * ZB_EINVAL) and of a type the values convert to (else ZB_EINVAL):
 *   put_int64       any integer type (out of its range:
 *                   ZB_BUILD_ERR_OVERFLOW) or float type;
 *   put_double      float32 or float64;
 *   put_bool        bool (nonzero = true);
 *   put_days        date32, or timestamp (days since 1970-01-01);
 *   put_timestamps  timestamp (microseconds since the epoch);
 *   put_strings     string or categorical: value i is chars[offsets[i],
 *                   offsets[i + 1]) and must be UTF-8 (else
 *                   ZB_BUILD_ERR_UTF8); a part's column takes either text
 *                   cells or typed strings, and at most 4 GiB of the
 *                   latter (ZB_ENOTSUP beyond).
 * valid: NULL, or n bytes (0 = null); NA strings apply to text only.
 * Everything is borrowed for the call (strings are copied).  As for text:
 * rows in order, one thread per part at a time, and ZB_OK also when a
 * value error was recorded (its pos is the part's pos0 + the row); else
 * ZB_EINVAL (nothing done), ZB_ENOMEM or ZB_ENOTSUP. */
ZB__BUILDER_API zb_status zb__builder_put_int64(zb__builder *b, int64_t part, int64_t col,
                                                int64_t rows_done, const int64_t *values,
                                                const uint8_t *valid, int64_t n);
ZB__BUILDER_API zb_status zb__builder_put_double(zb__builder *b, int64_t part, int64_t col,
                                                 int64_t rows_done, const double *values,
                                                 const uint8_t *valid, int64_t n);
ZB__BUILDER_API zb_status zb__builder_put_bool(zb__builder *b, int64_t part, int64_t col,
                                               int64_t rows_done, const uint8_t *values,
                                               const uint8_t *valid, int64_t n);
ZB__BUILDER_API zb_status zb__builder_put_days(zb__builder *b, int64_t part, int64_t col,
                                               int64_t rows_done, const int32_t *days,
                                               const uint8_t *valid, int64_t n);
ZB__BUILDER_API zb_status zb__builder_put_timestamps(zb__builder *b, int64_t part, int64_t col,
                                                     int64_t rows_done, const int64_t *us,
                                                     const uint8_t *valid, int64_t n);
ZB__BUILDER_API zb_status zb__builder_put_strings(zb__builder *b, int64_t part, int64_t col,
                                                  int64_t rows_done, const int64_t *offsets,
                                                  const char *chars, const uint8_t *valid,
                                                  int64_t n);

/* The part holds nrows rows (<= its max_rows; 0 if never called). */
ZB__BUILDER_API void zb__builder_part_done(zb__builder *b, int64_t part, int64_t nrows);

/* The part's earliest value error, or NULL (borrowed from the builder). */
ZB__BUILDER_API const zb__build_error *zb__builder_error(const zb__builder *b, int64_t part);

/* ------------------------------------------------------------------------ */
/* Finishing                                                                */
/* ------------------------------------------------------------------------ */

/* After every part is done: move the parts' rows together, settle each
 * inferred column's type and convert the parts that chose a narrower one
 * (in parallel; refetching strings).  Returns ZB_OK -- the source then
 * checks zb__builder_error of every part -- or ZB_ENOMEM or a refetch's
 * status, with a message; then the builder can only be released. */
ZB__BUILDER_API zb_status zb__builder_resolve(zb__builder *b, zb_error *err);

/* The type of column col: after zb__builder_resolve, what the column will
 * be; before, the fixed type or ZB_STRING. */
ZB__BUILDER_API zb_type_id zb__builder_column_type(const zb__builder *b, int64_t col);

/* After zb__builder_resolve with no value error: the columns.  On success
 * cols[0, ncols) receive new columns the caller releases; on failure they
 * are NULL and nothing is leaked.  Either way the builder can then only be
 * released. */
ZB__BUILDER_API zb_status zb__builder_finish(zb__builder *b, zb_column **cols, zb_error *err);

/* ------------------------------------------------------------------------ */
/* Per-worker pointers                                                      */
/* ------------------------------------------------------------------------ */

/* A pointer per worker of the thread pool (worker < ZB_WORKER_SLOTS_MAX),
 * for a reader's or the builder's scratch: the first ZB_WORKER_SLOTS_FEW
 * held inline, so a small read clears no table of every possible worker;
 * the rest in a table made by the first worker past them.  Zeroed memory
 * is an empty set. */
#define ZB_WORKER_SLOTS_FEW 64
#define ZB_WORKER_SLOTS_MAX 4096
typedef struct zb__worker_slots {
  void *few[ZB_WORKER_SLOTS_FEW];
  void **more; /* atomic: ZB_WORKER_SLOTS_MAX slots, or NULL */
  int n;       /* atomic: workers [0, n) may have asked for their slot */
} zb__worker_slots;

/* Where the worker's pointer lives (NULL until the worker sets it), or
 * NULL when worker is out of range or the table cannot be allocated.
 * Safe from every worker at once, each asking for its own slot. */
ZB__BUILDER_API void **zb__worker_slot(zb__worker_slots *s, int worker);

/* The worker's pointer, or NULL; once no worker runs (as the release of
 * what they point to walks workers [0, s->n)). */
ZB__BUILDER_API void *zb__worker_at(const zb__worker_slots *s, int worker);

/* Frees the table (not what the pointers point to); s is empty again. */
ZB__BUILDER_API void zb__worker_slots_reset(zb__worker_slots *s);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_IO_BUILDER_H */
