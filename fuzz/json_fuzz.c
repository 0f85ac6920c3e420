/*
 * json_fuzz.c -- libFuzzer target for the JSON reader and writer.  The
 * first input byte picks an option variant (lines or one array, numeric
 * coercion, tiny chunks, thread count); the rest is the JSON text.  Every
 * input must come back with a status -- a table or an error -- and leave no
 * engine memory allocated.  With tiny chunks the result (status and
 * message, or table) must also equal a read of the same text in one chunk
 * on one thread: chunk boundaries and per-chunk inference must not show
 * (the first read is the one compared: each input is read at most twice).
 * A table read is written back as JSON (which must succeed).  Build: cmake
 * -DZAMBEZI_FUZZ=ON (clang), run ./json_fuzz fuzz/corpus/json.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "zambezi/io_json.h"

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

  zb_alloc_stats before;
  zb_fuzz_memory_begin(&before);
  zb_table *t = NULL;
  zb_status st = zb_json_read_buffer(text, n, &o, &t, &err);
  zb_fuzz_check_result(st, t);
  if (st == ZB_OK) {
    zb_fuzz_touch_table(t);
    zb_json_write_options w;
    zb_json_write_options_init(&w);
    w.lines = (v & 8) == 0;
    w.force_ascii = (v & 16) == 0;
    int64_t written = 0;
    zb_error werr;
    if (zb_json_write(t, &w, discard, &written, &werr) != ZB_OK) abort();
  }
  if (o.chunk_size > 0 && o.lines) { /* the same text in one chunk, on one thread */
    zb_json_read_options o1 = o;
    o1.chunk_size = 0;
    zb_error err1;
    zb_set_num_threads(1, &err1);
    zb_table *t1 = NULL;
    zb_status st1 = zb_json_read_buffer(text, n, &o1, &t1, &err1);
    if (st1 != st) abort();
    if (st == ZB_OK ? !zb_fuzz_same_tables(t1, t) : strcmp(err1.message, err.message) != 0)
      abort();
    zb_table_release(t1);
  }
  zb_table_release(t);
  zb_fuzz_memory_check(&before);
  return 0;
}
