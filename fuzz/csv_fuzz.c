/*
 * csv_fuzz.c -- libFuzzer target for the CSV reader.  The first input byte
 * picks an option variant (dialect, header, dtypes, bad-line policy, chunk
 * size, thread count); the rest is the CSV text.  Every input must come back
 * with a status -- a table or an error -- and leave no engine memory
 * allocated.  With tiny chunks the result (status and message, or table)
 * must also equal a read of the same text in one chunk on one thread: the
 * chunk boundaries, the per-chunk type inference and its widening must not
 * show.  Build: cmake -DZAMBEZI_FUZZ=ON (clang), run
 * ./csv_fuzz fuzz/corpus/csv.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zambezi/io_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether two columns hold the same type, nulls and values. */
static int same_column(const zb_column *x, const zb_column *y) {
  if (x->type != y->type || x->length != y->length) return 0;
  if (x->type == ZB_CATEGORICAL && !same_column(x->dictionary, y->dictionary)) return 0;
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
      int w = x->type == ZB_CATEGORICAL ? 4 : zb_type_width(x->type);
      if (memcmp((const char *)x->data->data + (x->offset + i) * w,
                 (const char *)y->data->data + (y->offset + i) * w, (size_t)w) != 0)
        return 0;
    }
  }
  return 1;
}

/* The reader's internal consistency check failed (its message). */
static int internal_error(const zb_error *err) {
  long long line = 0;
  int end = 0;
  return sscanf(err->message, "CSV line %lld: more records than the scan counted%n", &line,
                &end) == 1 && end > 0;
}

static int same_tables(const zb_table *a, const zb_table *b) {
  if (a->num_columns != b->num_columns || a->num_rows != b->num_rows) return 0;
  for (int64_t j = 0; j < a->num_columns; j++)
    if (strcmp(a->names[j], b->names[j]) != 0 || !same_column(a->columns[j], b->columns[j]))
      return 0;
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  uint8_t v = data[0];
  const char *text = (const char *)data + 1;
  int64_t n = (int64_t)size - 1;

  zb_csv_options o;
  zb_csv_options_init(&o);
  static const char seps[4] = {',', ';', '\t', '|'};
  o.sep = seps[v & 3];
  if (v & 4) o.comment = '#';
  if (v & 8) {
    o.escapechar = '\\';
    o.doublequote = (v & 16) != 0;
  }
  if (v & 32) o.header = -1;
  o.on_bad_lines = (zb_csv_bad_lines)((v >> 6) % 3);
  zb_csv_warning items[3];
  zb_csv_warnings w = {items, 3, 0, 0};
  o.warnings = &w;
  o.chunk_size = (v & 64) ? 1 + (v % 17) : 0; /* many chunk boundaries */
  static const zb_csv_dtype dtypes[] = {{"0", ZB_INT32}, {"1", ZB_CATEGORICAL}, {"2", ZB_TIMESTAMP},
                                        {"3", ZB_FLOAT32}};
  if ((v & 32) && (v & 128)) { /* header -1: columns are "0", "1", ... (may be absent) */
    o.dtypes = dtypes;
    o.num_dtypes = 1;
  }
  if ((v & 0x30) == 0x10) {
    o.thousands = '_';
    o.decimal = '.';
  }
  zb_error err;
  int threads = 1 + (v & 1);
  zb_set_num_threads(threads, &err);

  zb_alloc_stats before, after;
  zb_alloc_get_stats(&before);
  zb_table *t = NULL;
  zb_status st = zb_csv_read_buffer(text, n, &o, &t, &err);
  if (st == ZB_OK) {
    if (t == NULL) abort();
    /* Touch every string so ASan sees any bad offset. */
    for (int64_t j = 0; j < t->num_columns; j++) {
      const zb_column *c = t->columns[j];
      if (c->length != t->num_rows) abort();
      if (c->type == ZB_STRING) {
        const int64_t *off = (const int64_t *)c->data->data;
        if (off[c->length] > c->chars->size) abort();
        volatile char sink = 0;
        for (int64_t i = 0; i < off[c->length]; i++) sink ^= ((const char *)c->chars->data)[i];
        (void)sink;
      }
    }
    zb_table_release(t);
  } else if (t != NULL || st <= 0 || st >= ZB_STATUS_COUNT || internal_error(&err)) {
    abort(); /* no table on failure; never the internal record-count check */
  }
  if (o.chunk_size > 0) { /* the same text in one chunk, on one thread */
    zb_csv_warning items2[3];
    zb_csv_warnings w2 = {items2, 3, 0, 0};
    zb_csv_options o1 = o;
    o1.chunk_size = 0;
    o1.warnings = &w2;
    zb_error err1;
    zb_set_num_threads(1, &err1);
    zb_table *t1 = NULL, *t2 = NULL;
    zb_status s1 = zb_csv_read_buffer(text, n, &o1, &t1, &err1);
    zb_set_num_threads(threads, &err);
    zb_status s2 = zb_csv_read_buffer(text, n, &o, &t2, &err);
    if (s1 != s2) abort();
    if (s1 == ZB_OK ? !same_tables(t1, t2) : strcmp(err1.message, err.message) != 0) abort();
    if (w.total != w2.total || w.count != w2.count) abort();
    for (int64_t i = 0; i < w.count; i++)
      if (w.items[i].line != w2.items[i].line) abort();
    zb_table_release(t1);
    zb_table_release(t2);
  }
  zb_alloc_get_stats(&after);
  if (after.host_bytes != before.host_bytes || after.host_allocations != before.host_allocations)
    abort();
  (void)dtypes;
  return 0;
}
