/*
 * text_values.h -- the text-to-value parsers of text_values.c (numbers,
 * booleans, dates, timestamps, UTF-8 validation), shared by the readers and
 * the column builder (builder.h); nothing in them is specific to a format.
 * Every parser takes a value's bytes (not NUL-terminated), ignores leading
 * and trailing spaces and tabs where a number or date is expected, and
 * reports success without side effects on failure.
 */
#ifndef ZAMBEZI_IO_TEXT_VALUES_H
#define ZAMBEZI_IO_TEXT_VALUES_H

#include "core/internal.h"

/* Result of zb__text_parse_int. */
enum {
  ZB_TEXT_NOT_INT = 0, /* not integer syntax */
  ZB_TEXT_INT64 = 1,   /* fits int64: *i set */
  ZB_TEXT_UINT64 = 2,  /* > INT64_MAX but fits uint64: *u set */
  ZB_TEXT_INT_BIG = 3  /* integer syntax, fits neither */
};

/* [+-]digits, with `thousands` (0: none) allowed between digits. */
int zb__text_parse_int(const char *s, int64_t n, char thousands, int64_t *i, uint64_t *u);

/* Decimal floating point ([+-]digits[<decimal>digits][(e|E)[+-]digits], at
 * least one digit) or inf/infinity/nan in any case, correctly rounded.
 * scratch must hold at least n + 1 bytes (used by the slow path). */
bool zb__text_parse_double(const char *s, int64_t n, char decimal, char thousands,
                           char *scratch, double *out);

/* True/true/TRUE/False/false/FALSE. */
bool zb__text_parse_bool(const char *s, int64_t n, bool *out);

/* YYYY-MM-DD -> days since 1970-01-01. */
bool zb__text_parse_date(const char *s, int64_t n, int32_t *days);

/* YYYY-MM-DD or YYYY-MM-DD[ T]HH:MM[:SS[.f{1,6}]] -> microseconds since the
 * epoch.  *date_only tells which form it was. */
bool zb__text_parse_timestamp(const char *s, int64_t n, int64_t *us, bool *date_only);

/* Whether s[0, n) is well-formed UTF-8 (no overlongs, no surrogates). */
bool zb__text_utf8_valid(const unsigned char *s, int64_t n);

/* Whether every string value of t (string columns, string categories,
 * string list values; host columns; null slots not looked at) is valid
 * UTF-8, checked on the pool (utf8_check.c).  ZB_OK with msg "" when so;
 * ZB_OK with msg naming the first bad value (column, row) when not; an
 * error only for out-of-memory or cancellation. */
zb_status zb__table_utf8_check(const zb_table *t, char *msg, size_t msg_size, zb_error *err);

#endif /* ZAMBEZI_IO_TEXT_VALUES_H */
