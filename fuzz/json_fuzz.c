/*
 * json_fuzz.c -- libFuzzer target for the JSON reader and writer.  The
 * first input byte picks an option variant (lines or one array, numeric
 * coercion, tiny chunks, thread count); the rest is the JSON text.  Every
 * input must come back with a status -- a table or an error -- and leave no
 * engine memory allocated.  With tiny chunks the result (status and
 * message, or table) must also equal a read of the same text in one chunk
 * on one thread: chunk boundaries and per-chunk inference must not show.
 * A table read is written back as JSON (which must succeed).  Build: cmake
 * -DZAMBEZI_FUZZ=ON (clang), run ./json_fuzz fuzz/corpus/json.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zambezi/io_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_column(const zb_column *x, const zb_column *y) {
  if (x->type != y->type || x->length != y->length) return 0;
  for (int64_t i = 0; i < x->length; i++) {
    int vx = zb_column_is_valid(x, i), vy = zb_column_is_valid(y, i);
    if (vx != vy) return 0;
    if (!vx) continue;
    if (x->type == ZB_STRING) {
      const int64_t *ox = (const int64_t *)x->data->data + x->offset;
      const int64_t *oy = (const int64_t *)y->data->data + y->offset;
      int64_t n = ox[i + 1] - ox[i];
      if (n != oy[i + 1] - oy[i] ||
          memcmp((const char *)x->chars->data + ox[i], (const char *)y->chars->data + oy[i],
                 (size_t)n) != 0)
        return 0;
    } else if (x->type == ZB_BOOL) {
      if (zb_bit_get((const uint8_t *)x->data->data, x->offset + i) !=
          zb_bit_get((const uint8_t *)y->data->data, y->offset + i))
        return 0;
    } else {
      int w = zb_type_width(x->type);
      if (memcmp((const char *)x->data->data + (x->offset + i) * w,
                 (const char *)y->data->data + (y->offset + i) * w, (size_t)w) != 0)
        return 0;
    }
  }
  return 1;
}

static int same_tables(const zb_table *a, const zb_table *b) {
  if (a->num_columns != b->num_columns || a->num_rows != b->num_rows) return 0;
  for (int64_t j = 0; j < a->num_columns; j++)
    if (strcmp(a->names[j], b->names[j]) != 0 || !same_column(a->columns[j], b->columns[j]))
      return 0;
  return 1;
}

static zb_status discard(void *ctx, const char *d, int64_t n, zb_error *err) {
  (void)err;
  volatile char s = 0;
  for (int64_t i = 0; i < n; i++) s ^= d[i];
  *(int64_t *)ctx += n;
  return ZB_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  uint8_t v = data[0];
  const char *text = (const char *)data + 1;
  int64_t n = (int64_t)size - 1;

  zb_json_read_options o;
  zb_json_read_options_init(&o);
  o.lines = (v & 1) == 0;
  o.coerce_numbers = (v & 2) == 0;
  o.chunk_size = (v & 4) ? 1 + (v >> 3) % 23 : 0;
  if (v & 128) o.nrows = (v >> 3) & 7;
  zb_error err;
  int threads = 1 + ((v >> 6) & 1);
  zb_set_num_threads(threads, &err);

  zb_alloc_stats before, after;
  zb_alloc_get_stats(&before);
  zb_table *t = NULL;
  zb_status st = zb_json_read_buffer(text, n, &o, &t, &err);
  if (st == ZB_OK) {
    if (t == NULL) abort();
    for (int64_t j = 0; j < t->num_columns; j++)
      if (t->columns[j]->length != t->num_rows) abort();
    zb_json_write_options w;
    zb_json_write_options_init(&w);
    w.lines = (v & 8) == 0;
    w.force_ascii = (v & 16) == 0;
    int64_t written = 0;
    if (zb_json_write(t, &w, discard, &written, &err) != ZB_OK) abort();
    zb_table_release(t);
  } else if (t != NULL || st <= 0 || st >= ZB_STATUS_COUNT) {
    abort();
  }
  if (o.chunk_size > 0 && o.lines) { /* the same text in one chunk, on one thread */
    zb_json_read_options o1 = o;
    o1.chunk_size = 0;
    zb_error err1;
    zb_set_num_threads(1, &err1);
    zb_table *t1 = NULL, *t2 = NULL;
    zb_status s1 = zb_json_read_buffer(text, n, &o1, &t1, &err1);
    zb_set_num_threads(threads, &err);
    zb_status s2 = zb_json_read_buffer(text, n, &o, &t2, &err);
    if (s1 != s2) abort();
    if (s1 == ZB_OK ? !same_tables(t1, t2) : strcmp(err1.message, err.message) != 0) abort();
    zb_table_release(t1);
    zb_table_release(t2);
  }
  zb_alloc_get_stats(&after);
  if (after.host_bytes != before.host_bytes || after.host_allocations != before.host_allocations)
    abort();
  return 0;
}
