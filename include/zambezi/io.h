/*
 * io.h -- readers and writers of the zambezi engine: one header per format
 * (io_csv.h: the CSV reader and writer; io_json.h: JSON lines and records;
 * io_parquet.h: the Parquet reader; io_ipc.h: Arrow IPC / Feather),
 * included from here so that
 * including zambezi/io.h gives every format, plus what the formats share:
 * detecting compressed input and decompressing zstd.
 *
 * Conventions of every reader and writer: options structs are set to their
 * defaults by an _init function and borrowed for the duration of a call; on
 * success a reader's *out is a new table the caller releases with
 * zb_table_release; on failure *out is NULL, err (if not NULL) says where
 * in the input the problem is, and nothing is leaked.
 */
#ifndef ZAMBEZI_IO_H
#define ZAMBEZI_IO_H

#include "zambezi/io_csv.h"
#include "zambezi/io_json.h"
#include "zambezi/io_ipc.h"
#include "zambezi/io_parquet.h"
#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Compressed input                                                         */
/* ------------------------------------------------------------------------ */

typedef enum zb_compression {
  ZB_COMPRESSION_NONE = 0,
  ZB_COMPRESSION_GZIP = 1, /* magic 1f 8b */
  ZB_COMPRESSION_ZSTD = 2  /* magic 28 b5 2f fd */
} zb_compression;

/* The compression format of data, by its magic number. */
ZB_API zb_compression zb_compression_detect(const void *data, int64_t size);

/* Whether zstd input can be read: libzstd (libzstd.so.1, or the file named
 * by the environment variable ZAMBEZI_LIBZSTD) is loaded at run time, once;
 * no build of zambezi needs zstd's headers. */
ZB_API bool zb_zstd_available(void);

/* Decompress zstd data (one or more concatenated frames; borrowed) into a
 * new host buffer the caller releases.  cancel may be NULL; nonzero ->
 * ZB_ECANCEL.  ZB_ENOTSUP (saying how to install it) when libzstd is
 * missing; ZB_EPARSE for corrupt or truncated data. */
ZB_API zb_status zb_zstd_decompress(const void *data, int64_t size, volatile int *cancel,
                                    zb_buffer **out, zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_IO_H */
