/*
 * io_csv.h -- the CSV reader and writer of the zambezi engine (included by
 * zambezi/io.h, which also declares what every format shares).
 *
 * The CSV reader turns a byte buffer or a file into a zb_table, in parallel
 * on the engine's thread pool, with pandas' defaults and pandas' names for
 * its options.  Usage, nanoarrow style:
 *
 *   zb_csv_options opts;
 *   zb_csv_options_init(&opts);          // pandas defaults
 *   opts.sep = ';';                      // then change what you need
 *   zb_table *t = NULL;
 *   zb_error err;
 *   zb_status st = zb_csv_read_file("data.csv", &opts, &t, &err);
 *
 * Every pointer in the options is borrowed for the duration of the call.
 * On success *out is a new table the caller releases with zb_table_release;
 * on failure *out is NULL, err (if not NULL) names the line (1-based, counted
 * as an editor counts physical lines, including lines inside quoted fields)
 * and column of the problem, and nothing is leaked.
 *
 * Semantics (pandas.read_csv unless stated):
 *   - a UTF-8 byte order mark is skipped; lines end in LF or CRLF; the last
 *     line needs no terminator; blank lines (only spaces/tabs) are skipped.
 *   - quoted fields may hold separators, newlines and doubled quotes
 *     (doublequote) or escapechar-escaped characters.  A quote that does not
 *     start a field is an ordinary character; text after a closing quote is
 *     appended to the field ("ab"cd -> abcd), as pandas does.
 *   - rows with fewer fields than columns are filled with nulls (as pandas);
 *     rows with more fields are "bad lines" handled per on_bad_lines.
 *   - type inference looks at EVERY value (not a sample); nulls do not vote.
 *     A column gets the first of bool, int64, uint64 (integers above INT64_MAX,
 *     none negative), float64, date32 (YYYY-MM-DD), timestamp[us]
 *     (YYYY-MM-DD[ T]HH:MM[:SS[.ffffff]]; dates mix in at midnight), string
 *     that all its values parse as.  Differences from pandas: integer columns
 *     with nulls stay int64 (every zambezi dtype is nullable; pandas gives
 *     float64), dates are inferred without parse_dates, integers that fit
 *     neither int64 nor uint64 (or mix negatives with values > INT64_MAX)
 *     make the column float64 (pandas: object), a column of only nulls is
 *     float64 and a header-only file gives string columns.
 *   - NA strings become nulls in every column type (missing fields too).
 *   - NUL bytes anywhere in the input are an error; string columns must be
 *     valid UTF-8.
 *   - a field or record may hold up to 2 GiB (ZB_ENOTSUP beyond).  Memory
 *     beyond the input: the table being built, a small field index per
 *     thread and, for a quoted field that must be checked or parsed as a
 *     number, one unquoted copy of it (so one huge quoted field needs about
 *     twice its size).
 */
#ifndef ZAMBEZI_IO_CSV_H
#define ZAMBEZI_IO_CSV_H

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* CSV reader                                                               */
/* ------------------------------------------------------------------------ */

/* What to do with a row that has more fields than there are columns. */
typedef enum zb_csv_bad_lines {
  ZB_CSV_BAD_LINES_ERROR = 0, /* fail with ZB_EPARSE naming the line */
  ZB_CSV_BAD_LINES_WARN = 1,  /* drop the row, record a zb_csv_warning */
  ZB_CSV_BAD_LINES_SKIP = 2   /* drop the row silently */
} zb_csv_bad_lines;

/* One dropped row (on_bad_lines = WARN). */
typedef struct zb_csv_warning {
  int64_t line; /* 1-based physical line where the row starts */
  char message[160];
} zb_csv_warning;

/* Caller-owned storage for warnings.  The caller sets items and capacity;
 * the reader sets count (warnings stored, <= capacity, in line order) and
 * total (rows dropped as bad lines, stored or not). */
typedef struct zb_csv_warnings {
  zb_csv_warning *items;
  int64_t capacity;
  int64_t count;
  int64_t total;
} zb_csv_warnings;

/* Progress: bytes_done of bytes_total (an estimate that only grows: input
 * bytes scanned count for a quarter, bytes parsed into values for the
 * rest).  Called only on the thread that called the reader, between chunks
 * of a few MB and at least once per stage, and a last time with
 * bytes_done == bytes_total.  Return nonzero to cancel the read
 * (ZB_ECANCEL). */
typedef int (*zb_csv_progress_fn)(void *ctx, int64_t bytes_done, int64_t bytes_total);

/* Per-column dtype override. */
typedef struct zb_csv_dtype {
  const char *name; /* column name (after names/header processing) */
  zb_type_id type;  /* any zb_type_id; ZB_TIMESTAMP is timestamp[us] */
} zb_csv_dtype;

typedef struct zb_csv_options {
  char sep;        /* field separator; default ',' */
  char quotechar;  /* default '"'; 0 disables quoting */
  bool doublequote;/* "" inside a quoted field is one quote; default true */
  char escapechar; /* 0 (default): none */
  char comment;    /* 0 (default): none; else the rest of a line is ignored */
  char thousands;  /* 0 (default): none; e.g. ',' with sep ';' */
  char decimal;    /* default '.' */

  /* Header: the index of the header row among the non-blank rows after
   * skiprows (default 0), or -1 for no header (columns are then named
   * "0", "1", ...).  Rows before the header are discarded.  Empty header
   * names become "Unnamed: i"; duplicates become "a.1", "a.2" (pandas). */
  int64_t header;
  /* Column names to use instead (replacing the header row if there is one);
   * num_names columns are read.  NULL/0: from the header. */
  const char *const *names;
  int64_t num_names;

  /* Columns to read, by 0-based position in the file or by name (not both;
   * NULL/0 = all).  The table keeps file order, as pandas does. */
  const int64_t *usecols_index;
  int64_t num_usecols_index;
  const char *const *usecols_names;
  int64_t num_usecols_names;

  /* Explicit dtypes by column name (names must exist in the file; as in
   * pandas, a name's dtype is also its renamed repeats' ("a.1"), unless
   * they are named here themselves).  A value
   * that does not parse is ZB_EPARSE (ZB_EOVERFLOW when an integer is out of
   * the type's range), naming line, column and text. */
  const zb_csv_dtype *dtypes;
  int64_t num_dtypes;

  /* Columns parsed as timestamp[us] (date-only values at midnight); a value
   * that is not a date or timestamp is ZB_EPARSE. */
  const char *const *parse_dates;
  int64_t num_parse_dates;
  /* Whether columns without a dtype or parse_dates may be inferred as
   * date32 / timestamp (default true); false: their dates stay text, as
   * pandas reads them. */
  bool infer_dates;

  /* Strings read as null: na_values, plus pandas' defaults ("", "#N/A",
   * "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
   * "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan",
   * "null") when keep_default_na (default true).  Compared after unquoting. */
  const char *const *na_values;
  int64_t num_na_values;
  bool keep_default_na;

  int64_t skiprows; /* physical lines skipped at the start; default 0 */
  int64_t nrows;    /* data rows to read; -1 (default) = all */

  zb_csv_bad_lines on_bad_lines; /* default ZB_CSV_BAD_LINES_ERROR */
  zb_csv_warnings *warnings;     /* NULL: warnings are counted nowhere */

  volatile int *cancel;          /* nonzero -> ZB_ECANCEL (checked per morsel) */
  zb_csv_progress_fn progress;   /* NULL: none */
  void *progress_ctx;

  /* Testing knob: bytes per parse chunk (0 = automatic); it also caps the
   * records tokenized at a time to chunk_size / 64 (at least 2).  Tests set
   * it small to put many chunk boundaries inside quoted fields and to make
   * type inference widen across batches and chunks. */
  int64_t chunk_size;

  /* The line number of the buffer's first line in messages and warnings
   * (default 1); a reader of a file in pieces sets it per piece. */
  int64_t first_line;
} zb_csv_options;

/* Set every option to its default (pandas' defaults). */
ZB_API void zb_csv_options_init(zb_csv_options *opts);

/* Parse size bytes of CSV text (borrowed; not modified) into a new table.
 * opts may be NULL (defaults). */
ZB_API zb_status zb_csv_read_buffer(const char *data, int64_t size,
                                    const zb_csv_options *opts, zb_table **out,
                                    zb_error *err);

/* Read a CSV file: a regular file is memory-mapped read-only, anything else
 * (a pipe, /dev/stdin) is read with read().  A file that starts with the
 * zstd magic number is decompressed first (zb_zstd_decompress); a gzip file
 * is ZB_ENOTSUP (decompress it first).  ZB_EIO names the path and the
 * system error when it cannot be opened or read. */
ZB_API zb_status zb_csv_read_file(const char *path, const zb_csv_options *opts,
                                  zb_table **out, zb_error *err);

/* Where the data rows of a CSV buffer start: after the byte order mark,
 * opts->skiprows lines and (opts->header >= 0) the header record, exactly as
 * zb_csv_read_buffer counts them.  *offset receives the byte offset and
 * *lines the number of '\n' bytes before it.  For readers in pieces. */
ZB_API zb_status zb_csv_data_start(const char *data, int64_t size, const zb_csv_options *opts,
                                   int64_t *offset, int64_t *lines, zb_error *err);

/* Starting at byte `start` (the start of a record), pass over up to nrows
 * records that are not blank or comment lines (quote-aware, with opts'
 * sep, quotechar, doublequote, escapechar and comment).  *end receives the
 * offset right after the last record passed over (size at the end of the
 * input), *rows how many were passed over and *lines the '\n' bytes in
 * [start, *end).  Records with too many fields count as rows.  An
 * unterminated quoted field runs to the end of the input (the reader then
 * reports it). */
ZB_API zb_status zb_csv_find_rows(const char *data, int64_t size, const zb_csv_options *opts,
                                  int64_t start, int64_t nrows, int64_t *end, int64_t *rows,
                                  int64_t *lines, zb_error *err);

/* Text whose lines end in a lone '\r' (classic Mac OS files: no '\n' at
 * all, some '\r') is read as pandas reads it: zb_csv_read_buffer and the
 * row finders above read a copy in which every '\r' outside quoted fields
 * (opts' quotechar, doublequote, escapechar) is '\n', so byte offsets are
 * unchanged.  This makes that copy: *out is NULL, and nothing copied, for
 * any other text; else the caller zb_free's it.  A reader in pieces
 * converts once, so that its zb_csv_find_rows calls do not copy each. */
ZB_API zb_status zb_csv_cr_lines(const char *data, int64_t size, const zb_csv_options *opts,
                                 char **out, zb_error *err);

/* ------------------------------------------------------------------------ */
/* CSV writer                                                               */
/* ------------------------------------------------------------------------ */

/* Field quoting; the values are those of Python's csv module. */
typedef enum zb_csv_quoting {
  ZB_CSV_QUOTE_MINIMAL = 0,    /* quote fields holding sep, quotechar, CR or LF */
  ZB_CSV_QUOTE_ALL = 1,        /* quote every field */
  ZB_CSV_QUOTE_NONNUMERIC = 2, /* quote every field but unformatted numbers/bools */
  ZB_CSV_QUOTE_NONE = 3        /* never quote; escape with escapechar or fail */
} zb_csv_quoting;

typedef struct zb_csv_write_options {
  char sep;                   /* default ',' */
  char quotechar;             /* default '"' */
  char escapechar;            /* 0 (default): none */
  bool doublequote;           /* default true: a quote in a quoted field is doubled */
  bool header;                /* default true: a first line of column names */
  const char *na_rep;         /* text of a null (and of a float NaN); default "" */
  /* printf-style format of float values with one conversion of e, E, f, F,
   * g or G (flags, width <= 100 and precision <= 100 allowed; "%%" allowed),
   * e.g. "%.2f" as pandas' float_format.  NULL (default): the shortest text
   * that reads back to the same value, as Python's repr / numpy's str. */
  const char *float_format;
  zb_csv_quoting quoting;     /* default ZB_CSV_QUOTE_MINIMAL */
  const char *lineterminator; /* default "\n" */
  volatile int *cancel;       /* nonzero -> ZB_ECANCEL between batches */
  /* NULL (default), or one entry per column of the table: NULL, or for a
   * time-zone-aware timestamp column an INT32 column of its length holding
   * each row's UTC offset in seconds in its zone (|offset| < 1 day).  Such
   * a column is written as pandas writes it: the zone's wall clock and the
   * offset ("2020-01-01 05:00:00-05:00"); an aware column without one is
   * written in UTC ("+00:00"). */
  const zb_column *const *utc_offsets;
} zb_csv_write_options;

/* Receives the output in order, on the calling thread, in pieces that end
 * at line ends.  data is borrowed for the call.  A non-OK status stops the
 * writer, which returns it. */
typedef zb_status (*zb_csv_write_fn)(void *ctx, const char *data, int64_t size, zb_error *err);

/* pandas' defaults (to_csv with index=False). */
ZB_API void zb_csv_write_options_init(zb_csv_write_options *opts);

/* Write table t (on the CPU) as CSV text through write(ctx, ...).  Rows are
 * formatted in parallel by morsels; output order is row order.  Values:
 * integers in decimal; floats per float_format; bools True/False; strings
 * and categoricals as their text; date32 YYYY-MM-DD; timestamps as pandas
 * writes them: YYYY-MM-DD when every value of the column is at midnight
 * (and no timezone), else YYYY-MM-DD HH:MM:SS plus .fff, .ffffff or
 * .fffffffff as the finest value of the column needs, plus "+00:00" for a
 * column with a timezone (values are written in UTC).  A row of one empty
 * field is written as "" (unless QUOTE_NONE), as Python's csv module does.
 * ZB_EDEVICE if t is not on the CPU; ZB_EINVAL for bad options or a field
 * that needs escaping under QUOTE_NONE with no escapechar (naming the row
 * and column). */
ZB_API zb_status zb_csv_write(const zb_table *t, const zb_csv_write_options *opts,
                              zb_csv_write_fn write, void *ctx, zb_error *err);

/* zb_csv_write into a file created or truncated at path.  ZB_EIO names the
 * path and the system error. */
ZB_API zb_status zb_csv_write_file(const zb_table *t, const char *path,
                                   const zb_csv_write_options *opts, zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_IO_CSV_H */
