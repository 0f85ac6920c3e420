/*
 * csv_fuzz.c -- libFuzzer target for the CSV reader.  The first input byte
 * picks an option variant (dialect, header, dtypes, bad-line policy, chunk
 * size, thread count); the rest is the CSV text.  Every input must come back
 * with a status -- a table or an error -- and leave no engine memory
 * allocated.  Build: cmake -DZAMBEZI_FUZZ=ON (clang), run
 * ./csv_fuzz fuzz/corpus/csv.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zambezi/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
  } else if (t != NULL || st <= 0 || st >= ZB_STATUS_COUNT) {
    abort();
  }
  zb_alloc_get_stats(&after);
  if (after.host_bytes != before.host_bytes || after.host_allocations != before.host_allocations)
    abort();
  (void)dtypes;
  return 0;
}
