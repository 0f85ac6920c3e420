/*
 * delta.c -- Parquet's DELTA_BINARY_PACKED integers (also the lengths of
 * DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY): a header (block size,
 * miniblocks per block, value count, first value), then blocks of a
 * minimum delta, one bit width per miniblock and the bit-packed deltas.
 * Arithmetic wraps, as the format defines it.  Every width and size is
 * checked against the bytes left before it is read.
 */
#include <string.h>

#include "io/parquet/parquet.h"

typedef struct rd {
  const uint8_t *p, *end;
  bool bad;
} rd;

static uint64_t uvar(rd *r) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (r->p >= r->end) break;
    uint8_t b = *r->p++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  r->bad = true;
  return 0;
}

static uint64_t zz(rd *r) {
  uint64_t u = uvar(r);
  return (u >> 1) ^ (0 - (u & 1));
}

/* w bits (1..64) at bit position pos of p (all of them within bounds). */
static inline uint64_t bits_at(const uint8_t *p, uint64_t pos, int w) {
  uint64_t v = 0, byte = pos >> 3;
  int got = 0, shift = (int)(pos & 7);
  while (got < w) {
    v |= (uint64_t)(p[byte++] >> shift) << got;
    got += 8 - shift;
    shift = 0;
  }
  return w == 64 ? v : v & (((uint64_t)1 << w) - 1);
}

zb_status zb__pq_delta_decode(const uint8_t *p, int64_t len, int64_t n, uint64_t *out,
                              int64_t *used, zb_error *err) {
  rd r = {p, p + len, false};
  uint64_t block = uvar(&r), mbs = uvar(&r), total = uvar(&r);
  uint64_t prev = zz(&r);
  if (r.bad || block == 0 || block % 128 != 0 || block > (1u << 20) || mbs == 0 ||
      block % mbs != 0 || (block / mbs) % 32 != 0)
    return zb_error_set(err, ZB_EPARSE, "corrupt DELTA_BINARY_PACKED header");
  if (total != (uint64_t)n)
    return zb_error_set(err, ZB_EPARSE, "DELTA_BINARY_PACKED holds %llu values where %lld are expected",
                        (unsigned long long)total, (long long)n);
  uint64_t per = block / mbs;
  int64_t got = 0;
  if (n > 0) out[got++] = prev;
  while (got < n) {
    uint64_t min_delta = zz(&r);
    if (r.bad || (uint64_t)(r.end - r.p) < mbs)
      return zb_error_set(err, ZB_EPARSE, "DELTA_BINARY_PACKED block header runs past the page");
    const uint8_t *widths = r.p;
    r.p += mbs;
    for (uint64_t m = 0; m < mbs && got < n; m++) {
      int w = widths[m];
      if (w > 64) return zb_error_set(err, ZB_EPARSE, "DELTA_BINARY_PACKED bit width %d", w);
      uint64_t bytes = per * (uint64_t)w / 8;
      if (bytes > (uint64_t)(r.end - r.p))
        return zb_error_set(err, ZB_EPARSE, "DELTA_BINARY_PACKED miniblock runs past the page");
      int64_t take = (int64_t)per < n - got ? (int64_t)per : n - got;
      for (int64_t i = 0; i < take; i++) {
        uint64_t d = w == 0 ? 0 : bits_at(r.p, (uint64_t)i * (uint64_t)w, w);
        prev += min_delta + d;
        out[got++] = prev;
      }
      r.p += bytes;
    }
  }
  *used = (int64_t)(r.p - p);
  return ZB_OK;
}
