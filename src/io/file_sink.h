/*
 * file_sink.h -- the file end of the writers (internal): to_csv and
 * to_parquet encode into memory in parallel and hand the bytes to a write
 * function; this one puts them into a file.  A write goes out in pieces of
 * at most ZB__SINK_PIECE bytes with a cancellation check between them, so
 * Ctrl-C is seen within one piece even when the kernel throttles a large
 * write (dirty pages waiting for the disk).
 */
#ifndef ZAMBEZI_IO_FILE_SINK_H
#define ZAMBEZI_IO_FILE_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "core/internal.h"

#define ZB__SINK_PIECE ((int64_t)4 << 20)

typedef struct zb__file_sink {
  int fd;
  const char *path;
} zb__file_sink;

/* A file that a reader has mapped and whose pages columns may share (the
 * Arrow IPC reader's zero-copy columns): registered while mapped, so a
 * writer asked to replace it writes a new file under the name instead of
 * truncating the pages under those columns (which would make reading
 * them raise SIGBUS).  The node lives in the reader's own struct: no
 * allocation. */
typedef struct zb__mapped_file {
  uint64_t dev, ino;
  struct zb__mapped_file *prev, *next;
} zb__mapped_file;

/* Register / unregister m (dev and ino set by the caller). */
void zb__mapped_file_add(zb__mapped_file *m);
void zb__mapped_file_remove(zb__mapped_file *m);

/* Create (or truncate) path for writing; ZB_EIO naming it on failure.
 * When path names a file this process has mapped (zb__mapped_file), that
 * file is unlinked first and path created anew: the mapping keeps the old
 * contents, the name gets the new ones. */
zb_status zb__file_sink_open(zb__file_sink *s, const char *path, zb_error *err);

/* The start of a text writer's zb_*_write_file: ZB_EINVAL ("<what>: path
 * is NULL", "<what>: table is NULL") when path or t is NULL, else
 * zb__file_sink_open. */
zb_status zb__file_sink_begin(zb__file_sink *s, const zb_table *t, const char *path,
                              const char *what, zb_error *err);

/* The write function the writers take (ctx: a zb__file_sink).  ZB_EIO
 * naming the file, or ZB_ECANCEL when Ctrl-C came between pieces. */
zb_status zb__file_sink_write(void *ctx, const char *data, int64_t size, zb_error *err);

/* Close the file.  st is the status of the writing: a failed close turns
 * ZB_OK into ZB_EIO; when the result is not ZB_OK and remove_on_error is
 * set, the partial file is removed at once and the last close (dropping
 * its pages) runs on a detached thread.  Returns the final status. */
zb_status zb__file_sink_close(zb__file_sink *s, zb_status st, bool remove_on_error,
                              zb_error *err);

#endif
