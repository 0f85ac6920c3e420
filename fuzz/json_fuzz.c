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
#include <stdlib.h>

#include "harness.h"
#include "zambezi/io_json.h"

/* One read of the text with the options (zb_fuzz_read_fn). */
typedef struct json_read {
  const char *text;
  int64_t n;
  const zb_json_read_options *o;
} json_read;

static zb_status read_json(void *ctx, zb_table **out, zb_error *err) {
  const json_read *r = (const json_read *)ctx;
  return zb_json_read_buffer(r->text, r->n, r->o, out, err);
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
    if (zb_json_write(t, &w, discard, &written, &err) != ZB_OK) abort();
    zb_table_release(t);
  }
  if (o.chunk_size > 0 && o.lines) { /* the same text in one chunk, on one thread */
    zb_json_read_options o1 = o;
    o1.chunk_size = 0;
    json_read one = {text, n, &o1}, many = {text, n, &o};
    zb_fuzz_same_reads(read_json, &one, read_json, &many, threads);
  }
  zb_fuzz_memory_check(&before);
  return 0;
}
