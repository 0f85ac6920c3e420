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
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "zambezi/io_csv.h"

/* The reader's internal consistency check failed (its message). */
static int internal_error(const zb_error *err) {
  long long line = 0;
  int end = 0;
  return sscanf(err->message, "CSV line %lld: more records than the scan counted%n", &line,
                &end) == 1 && end > 0;
}

/* One read of the text with the options (zb_fuzz_read_fn). */
typedef struct csv_read {
  const char *text;
  int64_t n;
  const zb_csv_options *o;
} csv_read;

static zb_status read_csv(void *ctx, zb_table **out, zb_error *err) {
  const csv_read *r = (const csv_read *)ctx;
  return zb_csv_read_buffer(r->text, r->n, r->o, out, err);
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

  zb_alloc_stats before;
  zb_fuzz_memory_begin(&before);
  zb_table *t = NULL;
  zb_status st = zb_csv_read_buffer(text, n, &o, &t, &err);
  zb_fuzz_check_result(st, t);
  if (st == ZB_OK) {
    zb_fuzz_touch_table(t);
    zb_table_release(t);
  } else if (internal_error(&err)) {
    abort(); /* never the internal record-count check */
  }
  if (o.chunk_size > 0) { /* the same text in one chunk, on one thread */
    zb_csv_warning items2[3];
    zb_csv_warnings w2 = {items2, 3, 0, 0};
    zb_csv_options o1 = o;
    o1.chunk_size = 0;
    o1.warnings = &w2;
    csv_read one = {text, n, &o1}, many = {text, n, &o};
    zb_fuzz_same_reads(read_csv, &one, read_csv, &many, threads);
    if (w.total != w2.total || w.count != w2.count) abort();
    for (int64_t i = 0; i < w.count; i++)
      if (w.items[i].line != w2.items[i].line) abort();
  }
  zb_fuzz_memory_check(&before);
  (void)dtypes;
  return 0;
}
