/*
 * test_ipc_mapped.c -- the lifetime of an Arrow IPC file read over its
 * mapping (Linux: /proc/self/maps shows the mapping).  A file of one
 * uncompressed record batch becomes columns whose buffers lie in the
 * mapped file: a column outlives the reader call and the table, keeps the
 * file mapped (its name may go) and unmaps it when the last column holding
 * it is released.  Writing a file over the name of one that columns still
 * view leaves them their bytes (the writer replaces the file).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_util.h"
#include "test.h"
#include "zambezi/io.h"

/* Whether a mapping of the file at path (its name or "path (deleted)")
 * covers address p (NULL: any mapping of it); -1 when /proc/self/maps
 * cannot be read. */
static int mapped_at(const char *path, const void *p) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (f == NULL) return -1;
  char line[4096];
  int found = 0;
  const size_t n = strlen(path);
  while (!found && fgets(line, sizeof line, f) != NULL) {
    unsigned long lo, hi;
    char *name = strchr(line, '/');
    if (name == NULL || strncmp(name, path, n) != 0 ||
        (name[n] != '\n' && strncmp(name + n, " (deleted)", 10) != 0))
      continue;
    if (sscanf(line, "%lx-%lx", &lo, &hi) != 2) continue;
    found = p == NULL || ((uintptr_t)p >= lo && (uintptr_t)p < hi);
  }
  fclose(f);
  return found;
}

/* A table of n rows: a = i * 3 (int64), s = "r<i % 100>" (string). */
static zb_table *make_table(int64_t n) {
  zb_error err = {{0}};
  zb_column *c[2] = {NULL, NULL};
  zb_table *t = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n, false, 0, &c[0], &err), &err);
  ZB_CHECK_OK(zb_column_new(ZB_STRING, n, false, n * 4, &c[1], &err), &err);
  if (c[0] != NULL && c[1] != NULL) {
    int64_t *a = (int64_t *)c[0]->data->data, *o = (int64_t *)c[1]->data->data, at = 0;
    char *chars = (char *)c[1]->chars->data;
    for (int64_t i = 0; i < n; i++) {
      a[i] = i * 3;
      o[i] = at;
      at += snprintf(chars + at, 5, "r%d", (int)(i % 100));
    }
    o[n] = at;
    const char *names[2] = {"a", "s"};
    ZB_CHECK_OK(zb_table_make(2, c, names, &t, &err), &err);
  }
  zb_column_release(c[0]);
  zb_column_release(c[1]);
  return t;
}

static bool holds_table(const zb_column *a, const zb_column *s, int64_t n) {
  bool ok = a->length == n && s->length == n;
  const int64_t *v = (const int64_t *)a->data->data + a->offset;
  const int64_t *o = (const int64_t *)s->data->data + s->offset;
  const char *chars = (const char *)s->chars->data;
  for (int64_t i = 0; ok && i < n; i++) {
    char want[8];
    int len = snprintf(want, sizeof want, "r%d", (int)(i % 100));
    ok = v[i] == i * 3 && o[i + 1] - o[i] == len && memcmp(chars + o[i], want, (size_t)len) == 0;
  }
  return ok;
}

ZB_TEST(ipc_mapped_columns_outlive_the_read) {
  char path[] = "/tmp/zb_ipc_mappedXXXXXX";
  int fd = mkstemp(path);
  ZB_CHECK(fd >= 0);
  if (fd < 0) return;
  close(fd);
  const int64_t n = 200000;
  zb_error err = {{0}};
  zb_table *w = make_table(n), *t = NULL;
  if (w == NULL) return;
  ZB_CHECK_OK(zb_ipc_write_file(w, path, NULL, &err), &err); /* one uncompressed batch */
  ZB_CHECK_OK(zb_ipc_read_file(path, NULL, &t, &err), &err);
  if (t == NULL) {
    zb_table_release(w);
    unlink(path);
    return;
  }
  if (mapped_at(path, NULL) < 0) {
    zb_table_release(t);
    zb_table_release(w);
    unlink(path);
    ZB_SKIP("no /proc/self/maps here");
  }
  zb_column *a = zb_column_retain(t->columns[0]), *s = zb_column_retain(t->columns[1]);
  /* the values, offsets and characters are views of the mapping */
  ZB_CHECK_EQ_INT(mapped_at(path, a->data->data), 1);
  ZB_CHECK_EQ_INT(mapped_at(path, s->data->data), 1);
  ZB_CHECK_EQ_INT(mapped_at(path, s->chars->data), 1);
  zb_table_release(t); /* the columns keep the mapping */
  ZB_CHECK_EQ_INT(mapped_at(path, a->data->data), 1);
  ZB_CHECK(holds_table(a, s, n));
  /* a new file written over the name: the columns keep the old bytes */
  zb_table *small = make_table(10), *back = NULL;
  if (small != NULL) {
    ZB_CHECK_OK(zb_ipc_write_file(small, path, NULL, &err), &err);
    ZB_CHECK(holds_table(a, s, n));
    ZB_CHECK_OK(zb_ipc_read_file(path, NULL, &back, &err), &err);
    if (back != NULL) ZB_CHECK(holds_table(back->columns[0], back->columns[1], 10));
    zb_table_release(back);
    zb_table_release(small);
  }
  /* the name goes: the mapping stays while a column uses it */
  unlink(path);
  ZB_CHECK(holds_table(a, s, n));
  zb_column_release(a);
  ZB_CHECK_EQ_INT(mapped_at(path, s->data->data), 1);
  zb_column_release(s); /* the last one: unmapped */
  ZB_CHECK_EQ_INT(mapped_at(path, NULL), 0);
  zb_table_release(w);
}

/* A slice taken from a mapped column holds the mapping too. */
ZB_TEST(ipc_mapped_slice_holds_the_mapping) {
  char path[] = "/tmp/zb_ipc_mappedXXXXXX";
  int fd = mkstemp(path);
  ZB_CHECK(fd >= 0);
  if (fd < 0) return;
  close(fd);
  zb_error err = {{0}};
  zb_table *w = make_table(1000), *t = NULL;
  if (w == NULL) return;
  ZB_CHECK_OK(zb_ipc_write_file(w, path, NULL, &err), &err);
  ZB_CHECK_OK(zb_ipc_read_file(path, NULL, &t, &err), &err);
  unlink(path);
  zb_table_release(w);
  if (t == NULL) return;
  zb_column *part = NULL;
  ZB_CHECK_OK(zb_column_slice(t->columns[0], 10, 5, &part, &err), &err);
  zb_table_release(t);
  if (part == NULL) return;
  const int64_t *v = (const int64_t *)part->data->data + part->offset;
  ZB_CHECK_EQ_INT(v[0], 30);
  ZB_CHECK_EQ_INT(v[4], 42);
  int m = mapped_at(path, NULL);
  ZB_CHECK(m != 0);
  zb_column_release(part);
  if (m > 0) ZB_CHECK_EQ_INT(mapped_at(path, NULL), 0);
}

/* A one-batch file (its columns shared, not copied) truncated at every
 * byte and with every byte set to 0x00, 0xFF or 0x80 (lying lengths,
 * counts and offsets among them): a table or an error, never a crash or
 * a leak (ASan in CI). */
static zb_status read_one(const unsigned char *data, int64_t n, const char *name,
                          zb_table **out, zb_error *err) {
  return zb_ipc_read_buffer(data, n, name, NULL, out, err);
}

ZB_TEST(ipc_one_batch_damaged_fails_cleanly) {
  zb_error err = {{0}};
  zb_table *w = make_table(40);
  if (w == NULL) return;
  zb_test_mem_out m = {NULL, 0, 0};
  ZB_CHECK_OK(zb_ipc_write(w, NULL, zb_test_mem_write, &m, &err), &err);
  zb_table_release(w);
  if (m.p == NULL) return;
  zb_table *t = NULL;
  ZB_CHECK_OK(zb_ipc_read_buffer(m.p, m.n, "one", NULL, &t, &err), &err);
  if (t != NULL) ZB_CHECK(holds_table(t->columns[0], t->columns[1], 40));
  zb_table_release(t);
  static const unsigned char vals[3] = {0x00, 0xFF, 0x80};
  const zb_test_damage d = {read_one, "damaged.arrow", 1, NULL, true, NULL, 0, vals, 3};
  ZB_CHECK(zb_test_read_damaged((const unsigned char *)m.p, m.n, &d) > 100);
  zb_free(m.p);
}
