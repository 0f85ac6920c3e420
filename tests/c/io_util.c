/*
 * io_util.c -- the helpers of io_util.h.
 */
#include "io_util.h"

#include <stdlib.h>
#include <string.h>

#include "test.h"

zb_status zb_test_mem_write(void *ctx, const char *data, int64_t size, zb_error *err) {
  zb_test_mem_out *m = (zb_test_mem_out *)ctx;
  if (m->n + size > m->cap) {
    int64_t cap = m->cap > 0 ? m->cap * 2 : 4096;
    while (cap < m->n + size) cap *= 2;
    char *p = (char *)zb_malloc((size_t)cap);
    if (p == NULL) return zb_error_set(err, ZB_ENOMEM, "test: out of memory");
    if (m->n > 0) memcpy(p, m->p, (size_t)m->n);
    zb_free(m->p);
    m->p = p;
    m->cap = cap;
  }
  if (size > 0) memcpy(m->p + m->n, data, (size_t)size);
  m->n += size;
  return ZB_OK;
}

zb_status zb_test_text_write(void *ctx, const char *data, int64_t size, zb_error *err) {
  zb_test_text *t = (zb_test_text *)ctx;
  if (t->n + size + 1 > t->cap) {
    int64_t cap = (t->n + size + 1) * 2;
    char *p = (char *)realloc(t->p, (size_t)cap);
    if (p == NULL) return zb_error_set(err, ZB_ENOMEM, "test sink");
    t->p = p;
    t->cap = cap;
  }
  memcpy(t->p + t->n, data, (size_t)size);
  t->n += size;
  t->p[t->n] = '\0';
  return ZB_OK;
}

/* Read one damaged copy; returns whether the read failed. */
static bool read_one(const zb_test_damage *d, const unsigned char *data, int64_t n,
                     const char *what, int64_t at, bool must_fail) {
  zb_alloc_stats before, after;
  zb_alloc_get_stats(&before);
  zb_table *t = NULL;
  zb_error err = {{0}};
  zb_status st = d->read(data, n, d->name, &t, &err);
  if (st == ZB_OK) {
    if (t == NULL) zb_test_fail(__FILE__, __LINE__, "%s at %lld: OK but no table", what,
                                (long long)at);
    if (must_fail) zb_test_fail(__FILE__, __LINE__, "%s at %lld: read as a table", what,
                                (long long)at);
    zb_table_release(t);
  } else {
    if (t != NULL) {
      zb_test_fail(__FILE__, __LINE__, "%s at %lld: an error and a table", what, (long long)at);
      zb_table_release(t);
    }
    if (st != ZB_EPARSE && st != ZB_ENOTSUP && st != ZB_ENOMEM)
      zb_test_fail(__FILE__, __LINE__, "%s at %lld: %s: %s", what, (long long)at,
                   zb_status_name(st), err.message);
    if (st == ZB_EPARSE && strstr(err.message, d->name) == NULL)
      zb_test_fail(__FILE__, __LINE__, "%s at %lld: the message does not name the file: %s",
                   what, (long long)at, err.message);
  }
  zb_alloc_get_stats(&after);
  if (after.host_bytes != before.host_bytes)
    zb_test_fail(__FILE__, __LINE__, "%s at %lld: leaked %lld bytes", what, (long long)at,
                 (long long)(after.host_bytes - before.host_bytes));
  return st != ZB_OK;
}

int64_t zb_test_read_damaged(const unsigned char *file, int64_t n, const zb_test_damage *d) {
  unsigned char *copy = (unsigned char *)zb_malloc((size_t)(n > 0 ? n : 1));
  ZB_CHECK(copy != NULL);
  if (copy == NULL) return 0;
  int64_t failed = 0;
  int64_t tail = d->tail != NULL ? (int64_t)strlen(d->tail) : 0;
  for (int64_t cut = 0; d->cut_step > 0 && cut < n; cut += d->cut_step) {
    memcpy(copy, file, (size_t)cut);
    if (tail > 0 && cut >= tail) memcpy(copy + cut - tail, d->tail, (size_t)tail);
    failed += read_one(d, copy, cut, "truncated", cut, d->cuts_fail);
  }
  for (int64_t at = 0; at < n; at++) {
    for (int k = 0; k < d->num_xors; k++) {
      memcpy(copy, file, (size_t)n);
      copy[at] ^= d->xors[k];
      failed += read_one(d, copy, n, "flipped", at, false);
    }
    for (int k = 0; k < d->num_sets; k++) {
      if (file[at] == d->sets[k]) continue;
      memcpy(copy, file, (size_t)n);
      copy[at] = d->sets[k];
      failed += read_one(d, copy, n, "set", at, false);
    }
  }
  zb_free(copy);
  return failed;
}
