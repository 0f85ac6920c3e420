/*
 * io_ipc.h -- the Arrow IPC file format (Feather v2) reader and writer of
 * the zambezi engine (included by zambezi/io.h).
 *
 * The reader maps the file, reads the footer and Schema (FlatBuffers,
 * decoded by src/io/ipc/fb.c) and turns each record batch into an Arrow C
 * Data Interface array whose buffers point into the mapping, which the
 * Arrow import (src/core/arrow.c) shares without copies: a file of one
 * uncompressed record batch becomes columns over the mapped pages (kept
 * mapped while a column uses them).  Compressed buffers (LZ4_FRAME through
 * liblz4, ZSTD through libzstd, both loaded at run time) are decompressed
 * on the thread pool; several record batches are concatenated.  An Arrow
 * IPC stream (no footer) is read too.
 *
 * Types: every zambezi dtype (int8..uint64, float32/64, bool, utf8 and
 * large_utf8, dictionary-encoded strings -> categorical, timestamp with
 * unit and time zone, date32/date64, duration); the Arrow null type
 * becomes an all-null string column.  Other types (nested, decimal,
 * binary...) are ZB_ENOTSUP naming the column when it is read, and are
 * skipped when not selected.
 *
 * Lifetime of a mapped file: columns that share its pages keep it mapped
 * (MAP_PRIVATE, read-only) until the last of them is released; the name
 * may go meanwhile (unlink, rename over it).  zambezi's own writers, asked
 * to write to the name of a file this process maps, write a new file under
 * that name and leave the mapped one to its readers.  Another program that
 * truncates the file in place makes reading those columns fault (SIGBUS:
 * the process dies), and one that rewrites it in place changes what they
 * hold, as with pyarrow's memory_map=True; read from a bytes object
 * (zb_ipc_read_buffer copies it) when the file may change under you.
 *
 * Robustness: every offset and length in the file is checked against the
 * bytes that hold it before use; a corrupt file is ZB_EPARSE naming the
 * file and, where it applies, the record batch and column.
 */
#ifndef ZAMBEZI_IO_IPC_H
#define ZAMBEZI_IO_IPC_H

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zb_ipc_options {
  /* Columns to read, by name, in this order (NULL: every column).  A name
   * the file lacks is ZB_EKEY. */
  const char *const *columns;
  int64_t num_columns;
  /* If not NULL, receives the value of the schema's "pandas" custom
   * metadata as a NUL-terminated string from zb_malloc (the caller frees it
   * with zb_free), or NULL when there is none. */
  char **pandas_metadata;
} zb_ipc_options;

/* Defaults: every column, no metadata wanted. */
ZB_API void zb_ipc_options_init(zb_ipc_options *o);

/* Read the Arrow IPC file (or stream) at path.  On success *out is a new
 * table the caller releases; on failure *out is NULL and err names the
 * file. */
ZB_API zb_status zb_ipc_read_file(const char *path, const zb_ipc_options *opts, zb_table **out,
                                  zb_error *err);
/* The same for a whole file's bytes in memory (borrowed for the call: what
 * the table shares is copied first); name is used in messages. */
ZB_API zb_status zb_ipc_read_buffer(const void *data, int64_t size, const char *name,
                                    const zb_ipc_options *opts, zb_table **out, zb_error *err);

/* Whether LZ4-compressed input can be read and written: liblz4
 * (liblz4.so.1, or the file named by ZAMBEZI_LIBLZ4) is loaded at run
 * time, once. */
ZB_API bool zb_lz4_available(void);

/* ---- writing ------------------------------------------------------------ */

typedef enum zb_ipc_codec {
  ZB_IPC_UNCOMPRESSED = -1,
  ZB_IPC_LZ4_FRAME = 0, /* the Arrow BodyCompression codec numbers */
  ZB_IPC_ZSTD = 1
} zb_ipc_codec;

typedef struct zb_ipc_write_options {
  int codec;              /* a zb_ipc_codec; default ZB_IPC_UNCOMPRESSED */
  int compression_level;  /* zstd's level (0: 1) */
  int64_t batch_size;     /* rows per record batch; 0: every row in one */
  /* custom metadata of the schema (e.g. "pandas"), borrowed, NUL-terminated */
  const char *const *metadata_keys;
  const char *const *metadata_values;
  int64_t num_metadata;
} zb_ipc_write_options;

ZB_API void zb_ipc_write_options_init(zb_ipc_write_options *o);

/* Receives the file in order, on the calling thread (data borrowed for the
 * call); a non-OK status stops the writer, which returns it. */
typedef zb_status (*zb_ipc_write_fn)(void *ctx, const char *data, int64_t size, zb_error *err);

/* Write table t (on the CPU) as an Arrow IPC file (Feather v2): strings as
 * large_utf8, categoricals as dictionary<int32, large_utf8> (one
 * DictionaryBatch each), the other types as themselves.  Buffers are
 * compressed in parallel.  A missing codec library is ZB_ENOTSUP saying how
 * to install it. */
ZB_API zb_status zb_ipc_write(const zb_table *t, const zb_ipc_write_options *opts,
                              zb_ipc_write_fn write, void *ctx, zb_error *err);
/* zb_ipc_write into a file created or truncated at path (removed again on
 * failure); ZB_EIO names the path. */
ZB_API zb_status zb_ipc_write_file(const zb_table *t, const char *path,
                                   const zb_ipc_write_options *opts, zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_IO_IPC_H */
