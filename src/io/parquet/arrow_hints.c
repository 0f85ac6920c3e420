/*
 * arrow_hints.c -- the Arrow schema a Parquet file's writer stored in its
 * footer (key "ARROW:schema": the base64 of an Arrow IPC Schema message;
 * pyarrow, polars and zambezi write it).  It names what Parquet's own
 * types cannot say, which readers of Arrow restore: a duration column
 * (stored as a plain INT64), a timestamp's time zone (Parquet keeps only
 * "adjusted to UTC") and a dictionary (categorical) column.
 *
 * The message is read by the IPC reader as a stream of that schema and
 * no batches, giving an empty table of the writer's column types.  A
 * hint is only a hint: one that cannot be read is ignored (the columns
 * keep their Parquet types), never an error, unless memory runs out.
 */
#include <string.h>

#include "io/parquet/parquet.h"
#include "zambezi/io.h"

static int b64_value(uint8_t ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
  if (ch >= '0' && ch <= '9') return ch - '0' + 52;
  if (ch == '+') return 62;
  if (ch == '/') return 63;
  return -1;
}

/* base64 (padded or not) into out (room for n * 3 / 4 bytes); the decoded
 * length, or -1 when s is not base64. */
static int64_t b64_decode(const uint8_t *s, int64_t n, uint8_t *out) {
  while (n > 0 && s[n - 1] == '=') n--;
  uint32_t acc = 0;
  int bits = 0;
  int64_t o = 0;
  for (int64_t i = 0; i < n; i++) {
    int v = b64_value(s[i]);
    if (v < 0) return -1;
    acc = (acc << 6) | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (uint8_t)(acc >> bits);
    }
  }
  return o;
}

zb_status zb__pq_arrow_types(const pq_str *b64, zb_table **types, zb_error *err) {
  *types = NULL;
  if (b64->p == NULL || b64->n < 8) return ZB_OK;
  /* the message, then the stream's end (a continuation marker, length 0) */
  uint8_t *buf = (uint8_t *)zb_malloc((size_t)(b64->n / 4 * 3 + 3 + 8));
  if (buf == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (Arrow schema)");
  int64_t n = b64_decode((const uint8_t *)b64->p, b64->n, buf);
  if (n < 8) {
    zb_free(buf);
    return ZB_OK;
  }
  static const uint8_t end[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
  memcpy(buf + n, end, 8);
  zb_error e;
  zb_status st = zb_ipc_read_buffer(buf, n + 8, "ARROW:schema", NULL, types, &e);
  zb_free(buf);
  if (st == ZB_ENOMEM) return zb_error_set(err, st, "%s", e.message);
  if (st != ZB_OK) *types = NULL; /* not a schema zambezi reads: no hints */
  return ZB_OK;
}
