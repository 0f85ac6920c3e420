/*
 * io_json.h -- the JSON reader and writer of the zambezi engine (included
 * by zambezi/io.h): JSON lines (one object per line, pandas'
 * orient="records", lines=True) and one top-level array of objects
 * (orient="records", lines=False).
 *
 *   zb_json_read_options o;
 *   zb_json_read_options_init(&o);          // pandas' defaults
 *   zb_table *t = NULL;
 *   zb_error err;
 *   zb_status st = zb_json_read_buffer(data, size, &o, &t, &err);
 *
 * Reading (pandas.read_json unless stated):
 *   - columns are the objects' keys in the order they are first seen in the
 *     input; a row that lacks a key, or holds null, has a null there;
 *   - a column of numbers is int64 (uint64 past int64) or float64; one of
 *     true/false is bool; one of strings is string, or numbers when every
 *     string parses as one and coerce_numbers is set (pandas' dtype=True);
 *     numbers and strings mixed: numbers when every value parses as one,
 *     else string (the numbers' text); a column whose values are all
 *     arrays (or null) whose elements are all numbers, all strings, all
 *     booleans or all such arrays (nulls aside) is a list column, its
 *     child typed by these rules (strings not coerced to numbers); other
 *     nested objects and arrays are kept as their JSON text in a string
 *     column, as are columns that mix booleans with other kinds; a column
 *     with no value is float64;
 *   - dates are not recognised here (the Python layer converts the columns
 *     pandas' convert_dates names);
 *   - strings are unescaped (\uXXXX and surrogate pairs to UTF-8) and must
 *     be UTF-8; a duplicate key in an object: the last value wins; blank
 *     lines are skipped; a byte order mark is skipped.
 * Errors: ZB_EPARSE with "line L, column C" (1-based, C in bytes) of the
 * first bad byte in the input (the same whatever the thread count), ZB_ENOMEM,
 * ZB_ECANCEL.  Parsing runs in parallel over chunks of lines.
 *
 * Writing (pandas.DataFrame.to_json(orient="records")): one object per row,
 * keys the column names; floats as pandas' encoder writes them (up to
 * double_precision decimals, trailing zeros dropped, %.{p}g beyond
 * [1e-15, 1e16)), NaN, inf and nulls as null; bools true/false;
 * timestamps as integer counts of date_unit since the epoch (floored) or
 * ISO 8601 ("2024-01-02T03:04:05.000", "Z" for a column with a timezone);
 * durations as counts of date_unit; date32 as a timestamp at midnight;
 * strings escaped as pandas does ('/' as "\/", control characters as
 * \u00XX, non-ASCII as \uXXXX when force_ascii); lists (lists of lists
 * too) as JSON arrays of their elements' text, a null list as null.
 * Lines end with '\n'
 * (also the last); lines=false writes "[{...},{...}]".
 */
#ifndef ZAMBEZI_IO_JSON_H
#define ZAMBEZI_IO_JSON_H

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zb_json_read_options {
  bool lines;          /* default true: JSON lines; false: one array of objects */
  int64_t nrows;       /* lines only: read at most this many lines; -1 (default): all */
  bool coerce_numbers; /* default true: string columns of numbers become numbers */
  int64_t chunk_size;  /* lines: bytes per parallel chunk; 0 (default): a few MB */
  volatile int *cancel; /* nonzero -> ZB_ECANCEL */
} zb_json_read_options;

ZB_API void zb_json_read_options_init(zb_json_read_options *opts);

/* Read data[0, size) (borrowed for the call).  On success *out is a new
 * table the caller releases; on failure it is NULL, err says where. */
ZB_API zb_status zb_json_read_buffer(const char *data, int64_t size,
                                     const zb_json_read_options *opts, zb_table **out,
                                     zb_error *err);

typedef struct zb_json_write_options {
  bool lines;           /* default true: one object per line; false: an array */
  int double_precision; /* decimals of floats, 0..15; default 10 */
  bool force_ascii;     /* default true: non-ASCII characters as \uXXXX */
  bool iso_dates;       /* default false: timestamps as epoch counts of date_unit */
  zb_time_unit date_unit; /* default ZB_MILLI */
  volatile int *cancel; /* nonzero -> ZB_ECANCEL between morsels */
} zb_json_write_options;

/* Receives the output in order, one call at a time, in pieces that end at
 * row ends -- on the calling thread or on a worker of the thread pool (so
 * writing overlaps formatting).  A non-OK status stops the writer, which
 * returns it. */
typedef zb_status (*zb_json_write_fn)(void *ctx, const char *data, int64_t size, zb_error *err);

ZB_API void zb_json_write_options_init(zb_json_write_options *opts);

/* Write table t (on the CPU) through write(ctx, ...); rows are formatted
 * in parallel by morsels.  ZB_EDEVICE if t is not on the CPU, ZB_EINVAL
 * for bad options, ZB_ENOTSUP for a column type it cannot write (naming
 * it). */
ZB_API zb_status zb_json_write(const zb_table *t, const zb_json_write_options *opts,
                               zb_json_write_fn write, void *ctx, zb_error *err);

/* zb_json_write into a file created or truncated at path (ZB_EIO names
 * it); a partial file is removed on failure. */
ZB_API zb_status zb_json_write_file(const zb_table *t, const char *path,
                                    const zb_json_write_options *opts, zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_IO_JSON_H */
