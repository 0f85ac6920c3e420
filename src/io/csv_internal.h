/*
 * csv_internal.h -- what the CSV reader's files share: the text-to-value
 * parsers of csv_values.c (numbers, booleans, dates, timestamps, UTF-8
 * validation).  Every parser takes a field's bytes (not NUL-terminated),
 * ignores leading and trailing spaces and tabs where a number or date is
 * expected, and reports success without side effects on failure.
 */
#ifndef ZAMBEZI_CSV_INTERNAL_H
#define ZAMBEZI_CSV_INTERNAL_H

#include "core/internal.h"

/* Result of zb__csv_parse_int. */
enum {
  ZB_CSV_NOT_INT = 0, /* not integer syntax */
  ZB_CSV_INT64 = 1,   /* fits int64: *i set */
  ZB_CSV_UINT64 = 2,  /* > INT64_MAX but fits uint64: *u set */
  ZB_CSV_INT_BIG = 3  /* integer syntax, fits neither */
};

/* [+-]digits, with `thousands` (0: none) allowed between digits. */
int zb__csv_parse_int(const char *s, int64_t n, char thousands, int64_t *i, uint64_t *u);

/* Decimal floating point ([+-]digits[<decimal>digits][(e|E)[+-]digits], at
 * least one digit) or inf/infinity/nan in any case, correctly rounded.
 * scratch must hold at least n + 1 bytes (used by the slow path). */
bool zb__csv_parse_double(const char *s, int64_t n, char decimal, char thousands,
                          char *scratch, double *out);

/* True/true/TRUE/False/false/FALSE. */
bool zb__csv_parse_bool(const char *s, int64_t n, bool *out);

/* YYYY-MM-DD -> days since 1970-01-01. */
bool zb__csv_parse_date(const char *s, int64_t n, int32_t *days);

/* YYYY-MM-DD or YYYY-MM-DD[ T]HH:MM[:SS[.f{1,6}]] -> microseconds since the
 * epoch.  *date_only tells which form it was. */
bool zb__csv_parse_timestamp(const char *s, int64_t n, int64_t *us, bool *date_only);

/* Whether s[0, n) is well-formed UTF-8 (no overlongs, no surrogates). */
bool zb__csv_utf8_valid(const unsigned char *s, int64_t n);

#endif /* ZAMBEZI_CSV_INTERNAL_H */
