/*
 * io_parquet.h -- the Parquet reader and writer of the zambezi engine (included by
 * zambezi/io.h).
 *
 * The reader maps a file, decodes its Thrift compact footer and decodes
 * every (row group, column) chunk on the engine's thread pool straight into
 * the columns of a table.  Usage:
 *
 *   zb_parquet_options opts;
 *   zb_parquet_options_init(&opts);
 *   zb_table *t = NULL;
 *   zb_error err;
 *   zb_status st = zb_parquet_read_file("data.parquet", &opts, &t, &err);
 *
 * What it reads (this first part): flat columns of BOOLEAN, INT32, INT64,
 * FLOAT, DOUBLE and BYTE_ARRAY (UTF-8 strings) with their logical types
 * (INT(8..64, signed or not), DATE, TIMESTAMP(ms/us/ns; UTC-adjusted ->
 * time zone "UTC"), STRING/ENUM/JSON, DECIMAL on INT32 / INT64 /
 * FIXED_LEN_BYTE_ARRAY(<= 16) as float64, FLOAT16 as float32), INT96
 * timestamps (as ns), page CRC-32s checked when present, nulls from definition levels, data
 * pages v1 and v2, dictionary pages, encodings PLAIN, PLAIN_DICTIONARY /
 * RLE_DICTIONARY, RLE (booleans), DELTA_BINARY_PACKED (integers),
 * DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY (strings) and
 * BYTE_STREAM_SPLIT (floats), and the codecs UNCOMPRESSED, SNAPPY
 * (libsnappy, loaded at run time), GZIP (zlib, loaded at run time) and
 * ZSTD (libzstd, loaded at run time).
 * Anything else -- nested columns, other FIXED_LEN_BYTE_ARRAY, binary,
 * other encodings or codecs -- is ZB_ENOTSUP naming the column.
 *
 * Robustness: every length and count read from the file is checked against
 * the bytes that hold it before it is used or sized an allocation; a
 * corrupt file is ZB_EPARSE with a message naming the file and, where it
 * applies, the column and row group.  The one size taken on trust is a row
 * count, which sizes the result (rows cost no bytes in an RLE run).
 */
#ifndef ZAMBEZI_IO_PARQUET_H
#define ZAMBEZI_IO_PARQUET_H

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A condition on a column for row-group pruning (pyarrow's filters): the
 * reader skips a row group whose statistics (min, max, null count) prove
 * that no row of it satisfies any of the filter's groups (a group: the
 * terms of equal `group`, all of which must hold).  Rows whose column is
 * null satisfy only ZB_PQ_NOT_IN.  Pruning is conservative: a term the
 * statistics cannot decide (no statistics, a column of another type than
 * numbers, booleans or strings, a column the file lacks) proves nothing.
 * The caller still filters the rows exactly. */
typedef enum zb_parquet_filter_op {
  ZB_PQ_EQ = 0, ZB_PQ_NE, ZB_PQ_LT, ZB_PQ_LE, ZB_PQ_GT, ZB_PQ_GE, ZB_PQ_IN, ZB_PQ_NOT_IN
} zb_parquet_filter_op;

typedef enum zb_parquet_value_kind {
  ZB_PQ_VALUE_INT = 0,    /* ints: int64 */
  ZB_PQ_VALUE_FLOAT = 1,  /* floats: double */
  ZB_PQ_VALUE_STRING = 2  /* strs / str_lens: UTF-8 bytes */
} zb_parquet_value_kind;

typedef struct zb_parquet_filter_term {
  int64_t group;          /* the conjunction it belongs to, 0.. */
  const char *column;
  int op;                 /* zb_parquet_filter_op */
  int kind;               /* zb_parquet_value_kind of every value */
  int64_t num_values;     /* 1, or the list's length for IN / NOT_IN */
  const int64_t *ints;
  const double *floats;
  const char *const *strs;
  const int64_t *str_lens;
} zb_parquet_filter_term;

typedef struct zb_parquet_options {
  /* Columns to read, by name, in this order (NULL: every column, in the
   * file's order).  A name the file lacks is ZB_EKEY. */
  const char *const *columns;
  int64_t num_columns;
  volatile int *cancel; /* nonzero -> ZB_ECANCEL (checked per page) */
  /* If not NULL, receives the value of the footer's "pandas" key-value
   * metadata as a NUL-terminated string from zb_malloc (the caller frees
   * it with zb_free), or NULL when there is none. */
  char **pandas_metadata;
  /* Row-group pruning (see zb_parquet_filter_term): num_filter_groups
   * conjunctions of which one must hold; none (0) reads every row group. */
  const zb_parquet_filter_term *filter;
  int64_t num_filter_terms;
  int64_t num_filter_groups;
  /* If not NULL, receive the row groups the file has and those read. */
  int64_t *row_groups_total;
  int64_t *row_groups_read;
} zb_parquet_options;

/* Defaults: every column, no cancel flag, no metadata wanted. */
ZB_API void zb_parquet_options_init(zb_parquet_options *o);

/* Read the Parquet file at path.  On success *out is a new table the caller
 * releases; on failure *out is NULL (and *opts->pandas_metadata too) and
 * err names the file, column and row group of the problem. */
ZB_API zb_status zb_parquet_read_file(const char *path, const zb_parquet_options *opts,
                                      zb_table **out, zb_error *err);

/* The same for a whole file's bytes in memory (borrowed for the call);
 * name is used in messages. */
ZB_API zb_status zb_parquet_read_buffer(const void *data, int64_t size, const char *name,
                                        const zb_parquet_options *opts, zb_table **out,
                                        zb_error *err);

/* Whether snappy-compressed input can be read: libsnappy (libsnappy.so.1,
 * or the file named by ZAMBEZI_LIBSNAPPY) is loaded at run time, once. */
ZB_API bool zb_snappy_available(void);
/* Whether GZIP-compressed pages can be read and written: zlib (libz.so.1,
 * or the file named by ZAMBEZI_LIBZ) is loaded at run time, once. */
ZB_API bool zb_zlib_available(void);

/* ---- writing ------------------------------------------------------------ */

/* Codecs the writer uses (their Parquet CompressionCodec numbers). */
typedef enum zb_parquet_codec {
  ZB_PARQUET_UNCOMPRESSED = 0,
  ZB_PARQUET_SNAPPY = 1, /* libsnappy, loaded at run time */
  ZB_PARQUET_GZIP = 2,   /* zlib, loaded at run time */
  ZB_PARQUET_ZSTD = 6    /* libzstd, loaded at run time */
} zb_parquet_codec;

typedef struct zb_parquet_write_options {
  int codec;               /* a zb_parquet_codec; default ZB_PARQUET_SNAPPY */
  int compression_level;   /* zstd's level (0: 1, pyarrow's default); gzip's 1..9 (0: 6) */
  int64_t row_group_size;  /* rows per row group; 0: 1048576 (pyarrow's default) */
  /* key-value metadata for the footer (e.g. "pandas"), borrowed, NUL-terminated */
  const char *const *metadata_keys;
  const char *const *metadata_values;
  int64_t num_metadata;
  int data_page_version;   /* 1 (0 means 1) or 2: DataPageHeaderV2, levels uncompressed */
  bool page_checksum;      /* store each page's CRC-32 in its header (pyarrow's
                              write_page_checksum) */
} zb_parquet_write_options;

/* Defaults: snappy, row groups of 1048576 rows, no metadata. */
ZB_API void zb_parquet_write_options_init(zb_parquet_write_options *o);

/* Receives the file in order, on the calling thread; data is borrowed for
 * the call.  A non-OK status stops the writer, which returns it. */
typedef zb_status (*zb_parquet_write_fn)(void *ctx, const char *data, int64_t size,
                                         zb_error *err);

/* Write table t (on the CPU) as a Parquet file through write(ctx, ...).
 * Chunks (row group x column) are encoded and compressed in parallel; see
 * src/io/parquet/write.c for the layout (data pages v1, PLAIN numbers,
 * dictionary-encoded strings and categoricals, statistics).  Every type of
 * the engine is written; a string longer than 2^31 - 1 bytes is
 * ZB_EOVERFLOW; a missing codec library ZB_ENOTSUP saying how to install
 * it. */
ZB_API zb_status zb_parquet_write(const zb_table *t, const zb_parquet_write_options *opts,
                                  zb_parquet_write_fn write, void *ctx, zb_error *err);

/* zb_parquet_write into a file created or truncated at path (removed
 * again on failure).  ZB_EIO names the path and the system error. */
ZB_API zb_status zb_parquet_write_file(const zb_table *t, const char *path,
                                       const zb_parquet_write_options *opts, zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_IO_PARQUET_H */
