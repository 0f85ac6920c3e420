/*
 * text_format.h -- value-to-text pieces the text writers share (internal):
 * to_csv (csv_write.c) and to_json (json_write.c).  A growable output
 * buffer, integer, date and clock digits, and one formatter per integer dtype,
 * stamped from the dtype list, that writes a morsel of a column at a time
 * (the type switch outside the rows).  The inverse, text to values, is
 * text_values.h.
 */
#ifndef ZAMBEZI_IO_TEXT_FORMAT_H
#define ZAMBEZI_IO_TEXT_FORMAT_H

#include <stdbool.h>
#include <string.h>

#include "core/calendar.h"
#include "core/internal.h"

/* A growable text buffer: n bytes used of cap at p (zb_malloc'ed; the
 * owner zb_frees p). */
typedef struct zb__text_buf {
  char *p;
  int64_t n, cap;
} zb__text_buf;

/* Make room for `extra` more bytes (doubling from 4 KiB); false when out
 * of memory, the buffer unchanged. */
bool zb__text_buf_grow(zb__text_buf *b, int64_t extra);

/* Decimal digits of v into out (20 bytes at most: 21 with the sign);
 * returns their count. */
static const char zb__digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Write the n low decimal digits of v ending at out + n (zero-padded to
 * n), two at a time. */
static inline void zb__put_digits(uint64_t v, int n, char *out) {
  char *p = out + n;
  while (n >= 2) {
    unsigned r = (unsigned)(v % 100);
    v /= 100;
    p -= 2;
    memcpy(p, zb__digit_pairs + 2 * r, 2);
    n -= 2;
  }
  if (n) *--p = (char)('0' + v % 10);
}

static inline int zb__fmt_u64(uint64_t v, char *out) {
  int n = 1;
  for (uint64_t x = 10; n < 20 && v >= x; x *= 10) n++;
  zb__put_digits(v, n, out);
  return n;
}

static inline int zb__fmt_i64(int64_t v, char *out) {
  if (v < 0) {
    out[0] = '-';
    return 1 + zb__fmt_u64((uint64_t)0 - (uint64_t)v, out + 1);
  }
  return zb__fmt_u64((uint64_t)v, out);
}

/* Two digits of v (0..99). */
static inline void zb__put2(char *o, int v) {
  o[0] = (char)('0' + v / 10);
  o[1] = (char)('0' + v % 10);
}

/* YYYY-MM-DD of days since 1970-01-01 (at least four year digits, '-'
 * before a negative year); returns the length (out holds 32). */
static inline int zb__fmt_date(int64_t days, char *out) {
  int64_t y;
  unsigned m, d;
  int k = 0;
  zb__civil_from_days(days, &y, &m, &d);
  if (y < 0) out[k++] = '-', y = -y;
  if (y < 1000) out[k++] = '0';
  if (y < 100) out[k++] = '0';
  if (y < 10) out[k++] = '0';
  k += zb__fmt_u64((uint64_t)y, out + k);
  out[k++] = '-';
  zb__put2(out + k, (int)m);
  out[k + 2] = '-';
  zb__put2(out + k + 3, (int)d);
  return k + 5;
}

/* HH:MM:SS of sod seconds into a day, then, when digits (0, 3, 6 or 9) is
 * not 0, '.' and that many digits of frac ticks of per_sec a second;
 * returns the length (out holds 18). */
static inline int zb__fmt_clock(int64_t sod, int64_t frac, int64_t per_sec, int digits,
                                char *out) {
  zb__put2(out, (int)(sod / 3600));
  out[2] = ':';
  zb__put2(out + 3, (int)(sod / 60 % 60));
  out[5] = ':';
  zb__put2(out + 6, (int)(sod % 60));
  int k = 8;
  if (digits > 0) {
    int64_t ns = frac * (1000000000 / per_sec);
    char f[9];
    for (int q = 8; q >= 0; q--) f[q] = (char)('0' + ns % 10), ns /= 10;
    out[k++] = '.';
    memcpy(out + k, f, (size_t)digits);
    k += digits;
  }
  return k;
}

/* Rows [r0, r1) of integer column c (int8 .. uint64) as decimal text,
 * appended to t: row r0 + i's text is t->p[off[i], off[i + 1]), off[0] =
 * t->n on entry.  A row whose bit in valid is clear (valid NULL: none) is
 * null_text (null_len bytes, possibly 0).  Returns false when t cannot
 * grow or c is not an integer column. */
bool zb__text_format_integers(const zb_column *c, const uint8_t *valid, int64_t r0, int64_t r1,
                              const char *null_text, int64_t null_len, zb__text_buf *t,
                              int64_t *off);

#endif /* ZAMBEZI_IO_TEXT_FORMAT_H */
