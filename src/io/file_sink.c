/*
 * file_sink.c -- writing encoded bytes into a file, in pieces, with a
 * cancellation check between pieces (file_sink.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/file_sink.h"

static pthread_mutex_t g_mapped_lock = PTHREAD_MUTEX_INITIALIZER;
static zb__mapped_file *g_mapped; /* a doubly linked list */

void zb__mapped_file_add(zb__mapped_file *m) {
  pthread_mutex_lock(&g_mapped_lock);
  m->prev = NULL;
  m->next = g_mapped;
  if (g_mapped != NULL) g_mapped->prev = m;
  g_mapped = m;
  pthread_mutex_unlock(&g_mapped_lock);
}

void zb__mapped_file_remove(zb__mapped_file *m) {
  pthread_mutex_lock(&g_mapped_lock);
  if (m->prev != NULL)
    m->prev->next = m->next;
  else if (g_mapped == m)
    g_mapped = m->next;
  if (m->next != NULL) m->next->prev = m->prev;
  m->prev = m->next = NULL;
  pthread_mutex_unlock(&g_mapped_lock);
}

static bool is_mapped(const struct stat *sb) {
  bool found = false;
  pthread_mutex_lock(&g_mapped_lock);
  for (const zb__mapped_file *m = g_mapped; m != NULL && !found; m = m->next)
    found = m->dev == (uint64_t)sb->st_dev && m->ino == (uint64_t)sb->st_ino;
  pthread_mutex_unlock(&g_mapped_lock);
  return found;
}

zb_status zb__file_sink_open(zb__file_sink *s, const char *path, zb_error *err) {
  s->path = path;
  struct stat sb;
  if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && is_mapped(&sb)) {
    /* columns of this process share the file's pages: truncating it would
     * pull them away (SIGBUS on the next read), so the name gets a new
     * file and the old one lives on, unnamed, while it is mapped (through
     * a symbolic link: the file it points at is replaced) */
    char real[PATH_MAX];
    int rc = realpath(path, real) != NULL ? unlink(real) : -1;
    int e = errno;
    if (rc != 0)
      return zb_error_set(err, ZB_EIO, "cannot replace '%s', which columns read from it still "
                          "use: %s", path, strerror(e));
  }
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
