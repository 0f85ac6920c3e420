/*
 * file_sink.c -- writing encoded bytes into a file, in pieces, with a
 * cancellation check between pieces (file_sink.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "io/file_sink.h"

zb_status zb__file_sink_open(zb__file_sink *s, const char *path, zb_error *err) {
  s->path = path;
  s->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (s->fd < 0) return zb_error_set(err, ZB_EIO, "cannot create '%s': %s", path, strerror(errno));
  return ZB_OK;
}

zb_status zb__file_sink_begin(zb__file_sink *s, const zb_table *t, const char *path,
                              const char *what, zb_error *err) {
  if (path == NULL) return zb_error_set(err, ZB_EINVAL, "%s: path is NULL", what);
  if (t == NULL) return zb_error_set(err, ZB_EINVAL, "%s: table is NULL", what);
  return zb__file_sink_open(s, path, err);
}

zb_status zb__file_sink_write(void *ctx, const char *data, int64_t size, zb_error *err) {
  zb__file_sink *s = (zb__file_sink *)ctx;
  while (size > 0) {
    if (zb_cancel_requested()) return zb_error_set(err, ZB_ECANCEL, "interrupted");
    ssize_t k = write(s->fd, data, (size_t)ZB_MIN(size, ZB__SINK_PIECE));
    if (k < 0) {
      if (errno == EINTR) continue;
      return zb_error_set(err, ZB_EIO, "cannot write '%s': %s", s->path, strerror(errno));
    }
    data += k;
    size -= k;
  }
  return ZB_OK;
}

static void *close_in_background(void *arg) {
  close((int)(intptr_t)arg);
  return NULL;
}

zb_status zb__file_sink_close(zb__file_sink *s, zb_status st, bool remove_on_error,
                              zb_error *err) {
  if (st != ZB_OK && remove_on_error) {
    /* A failed (or interrupted) write: the name goes at once, and the last
     * close, which drops the file's fresh dirty pages (tens of milliseconds
     * for a few hundred MB, more on a slow disk), runs on a thread of its
     * own, so Ctrl-C reaches Python without waiting for it. */
    unlink(s->path);
    pthread_t th;
    pthread_attr_t attr;
    bool handed = false;
    if (pthread_attr_init(&attr) == 0) {
      pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
      handed = pthread_create(&th, &attr, close_in_background, (void *)(intptr_t)s->fd) == 0;
      pthread_attr_destroy(&attr);
    }
    if (!handed) close(s->fd);
    s->fd = -1;
    return st;
  }
  if (close(s->fd) != 0 && st == ZB_OK) {
    st = zb_error_set(err, ZB_EIO, "cannot write '%s': %s", s->path, strerror(errno));
    if (remove_on_error) unlink(s->path);
  }
  s->fd = -1;
  return st;
}
