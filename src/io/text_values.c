/*
 * text_values.c -- text to value conversion for the readers (the CSV reader
 * and the column builder; any format whose values arrive as text):
 * integers with overflow detection, correctly rounded floats (an exact fast
 * path for short decimals, strtod in the "C" locale otherwise), booleans,
 * ISO dates and timestamps, and UTF-8 validation.  Pure functions, safe on
 * any thread.
 */
#define _GNU_SOURCE
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "io/text_values.h"

static inline bool is_blank(char c) { return c == ' ' || c == '\t'; }
static inline bool is_digit(char c) { return (unsigned char)(c - '0') < 10; }

static inline void trim(const char **s, int64_t *n) {
  const char *p = *s;
  int64_t m = *n;
  while (m > 0 && is_blank(p[0])) p++, m--;
  while (m > 0 && is_blank(p[m - 1])) m--;
  *s = p;
  *n = m;
}

int zb__text_parse_int(const char *s, int64_t n, char thousands, int64_t *i, uint64_t *u) {
  trim(&s, &n);
  int64_t k = 0;
  bool neg = false;
  if (k < n && (s[k] == '+' || s[k] == '-')) neg = s[k++] == '-';
  if (k >= n || !is_digit(s[k])) return ZB_TEXT_NOT_INT;
  uint64_t v = 0;
  bool big = false;
  for (; k < n; k++) {
    char c = s[k];
    if (is_digit(c)) {
      unsigned d = (unsigned)(c - '0');
      if (v > (UINT64_MAX - d) / 10) big = true;
      v = v * 10 + d;
    } else if (thousands != 0 && c == thousands && k + 1 < n && is_digit(s[k + 1])) {
      continue;
    } else {
      return ZB_TEXT_NOT_INT;
    }
  }
  if (big) return ZB_TEXT_INT_BIG;
  if (neg) {
    if (v > (uint64_t)INT64_MAX + 1) return ZB_TEXT_INT_BIG;
    *i = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    return ZB_TEXT_INT64;
  }
  if (v > (uint64_t)INT64_MAX) {
    *u = v;
    return ZB_TEXT_UINT64;
  }
  *i = (int64_t)v;
  return ZB_TEXT_INT64;
}

static bool ieq(const char *s, int64_t n, const char *lit) {
  int64_t m = (int64_t)strlen(lit);
  if (n != m) return false;
  for (int64_t k = 0; k < n; k++) {
    char c = s[k];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != lit[k]) return false;
  }
  return true;
}

/* strtod in the "C" locale whatever the process locale is. */
static pthread_once_t g_c_locale_once = PTHREAD_ONCE_INIT;
static locale_t g_c_locale = (locale_t)0;
static void c_locale_init(void) { g_c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0); }

static const double k_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

bool zb__text_parse_double(const char *s, int64_t n, char decimal, char thousands,
                           char *scratch, double *out) {
  /* The usual text first: [+-]digits[<decimal>digits], at most 15 digits:
   * the digits as an integer are exact in a double, so are 10^(fraction
   * digits), and one division rounds correctly. */
  if (n > 0 && n <= 17) {
    const char *p = s, *e = s + n;
    bool neg = *p == '-';
    p += neg || *p == '+';
    uint64_t m = 0;
    const char *d0 = p;
    while (p < e && is_digit(*p)) m = m * 10 + (uint64_t)(*p++ - '0');
    int64_t nd = p - d0, frac = 0;
    if (p < e && *p == decimal) {
      const char *f0 = ++p;
      while (p < e && is_digit(*p)) m = m * 10 + (uint64_t)(*p++ - '0');
      frac = p - f0;
    }
    nd += frac;
    if (p == e && nd > 0 && nd <= 15) {
      double v = (double)m;
      if (frac > 0) v /= k_pow10[frac];
      *out = neg ? -v : v;
      return true;
    }
  }
  trim(&s, &n);
  int64_t k = 0;
  bool neg = false;
  if (k < n && (s[k] == '+' || s[k] == '-')) neg = s[k++] == '-';
  if (k < n && !is_digit(s[k]) && s[k] != decimal) {
    const char *w = s + k;
    int64_t m = n - k;
    if (ieq(w, m, "inf") || ieq(w, m, "infinity")) {
      *out = neg ? -INFINITY : INFINITY;
      return true;
    }
    if (ieq(w, m, "nan")) {
      *out = NAN;
      return true;
    }
    return false;
  }
  /* Syntax check and the fast-path mantissa in one go. */
  uint64_t mant = 0;
  int nsig = 0;          /* significant digits accumulated (leading zeros skipped) */
  int64_t dropped = 0;   /* integer digits beyond 19 not accumulated */
  int64_t frac_used = 0; /* fraction digits accumulated into mant */
  int64_t ndigits = 0;
  bool has_sep = false;
  for (; k < n; k++) {
    char c = s[k];
    if (is_digit(c)) {
      ndigits++;
      if (nsig < 19) {
        mant = mant * 10 + (uint64_t)(c - '0');
        if (mant != 0) nsig++;
      } else {
        dropped++;
      }
    } else if (thousands != 0 && c == thousands && ndigits > 0 && k + 1 < n &&
               is_digit(s[k + 1])) {
      has_sep = true;
    } else {
      break;
    }
  }
  bool inexact = dropped != 0;
  if (k < n && s[k] == decimal) {
    k++;
    for (; k < n && is_digit(s[k]); k++) {
      ndigits++;
      if (nsig < 19) {
        mant = mant * 10 + (uint64_t)(s[k] - '0');
        if (mant != 0) nsig++;
        frac_used++;
      } else if (s[k] != '0') {
        inexact = true;
      }
    }
  }
  if (ndigits == 0) return false;
  int64_t exp10 = 0;
  if (k < n && (s[k] == 'e' || s[k] == 'E')) {
    k++;
    bool eneg = false;
    if (k < n && (s[k] == '+' || s[k] == '-')) eneg = s[k++] == '-';
    if (k >= n || !is_digit(s[k])) return false;
    for (; k < n && is_digit(s[k]); k++)
      if (exp10 < 100000) exp10 = exp10 * 10 + (s[k] - '0');
    if (eneg) exp10 = -exp10;
  }
  if (k != n) return false;
  int64_t e = exp10 - frac_used + dropped;
  if (!inexact && nsig <= 15 && e >= -22 && e <= 22) {
    /* mant < 10^15 < 2^53 and 10^|e| are exact doubles: one correctly
     * rounded operation gives the correctly rounded result. */
    double v = (double)mant;
    v = e >= 0 ? v * k_pow10[e] : v / k_pow10[-e];
    *out = neg ? -v : v;
    return true;
  }
  if (mant == 0 && !inexact) { /* zero with any exponent */
    *out = neg ? -0.0 : 0.0;
    return true;
  }
  /* Slow path: a clean copy ('.' decimal, no separators) for strtod. */
  int64_t j = 0;
  for (int64_t q = 0; q < n; q++) {
    char c = s[q];
    if (c == decimal)
      scratch[j++] = '.';
    else if (has_sep && c == thousands)
      continue;
    else
      scratch[j++] = c;
  }
  scratch[j] = '\0';
  pthread_once(&g_c_locale_once, c_locale_init);
  char *end = NULL;
  double v = g_c_locale != (locale_t)0 ? strtod_l(scratch, &end, g_c_locale)
                                       : strtod(scratch, &end);
  if (end != scratch + j) return false;
  *out = v;
  return true;
}

bool zb__text_parse_bool(const char *s, int64_t n, bool *out) {
  trim(&s, &n);
  if (n == 4 && (memcmp(s, "True", 4) == 0 || memcmp(s, "true", 4) == 0 ||
                 memcmp(s, "TRUE", 4) == 0)) {
    *out = true;
    return true;
  }
  if (n == 5 && (memcmp(s, "False", 5) == 0 || memcmp(s, "false", 5) == 0 ||
                 memcmp(s, "FALSE", 5) == 0)) {
    *out = false;
    return true;
  }
  return false;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (the era/day-of-era
 * decomposition: 400-year eras of 146097 days, years starting in March). */
static int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static inline int digits(const char *s, int count) {
  int v = 0;
  for (int k = 0; k < count; k++) {
    if (!is_digit(s[k])) return -1;
    v = v * 10 + (s[k] - '0');
  }
  return v;
}

static bool parse_ymd(const char *s, int64_t *days) {
  if (s[4] != '-' || s[7] != '-') return false;
  int y = digits(s, 4), m = digits(s + 5, 2), d = digits(s + 8, 2);
  /* year 0 is no date of the proleptic Gregorian calendar of Python and
   * pandas (years 1-9999): its text stays text */
  if (y < 1 || m < 1 || m > 12 || d < 1) return false;
  static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  int dim = mdays[m - 1] + (m == 2 && leap);
  if (d > dim) return false;
  *days = days_from_civil(y, m, d);
  return true;
}

bool zb__text_parse_date(const char *s, int64_t n, int32_t *days) {
  trim(&s, &n);
  int64_t dd;
  if (n != 10 || !parse_ymd(s, &dd)) return false;
  *days = (int32_t)dd;
  return true;
}

bool zb__text_parse_timestamp(const char *s, int64_t n, int64_t *us, bool *date_only) {
  trim(&s, &n);
  int64_t dd;
  if (n < 10 || !parse_ymd(s, &dd)) return false;
  if (n == 10) {
    *us = dd * INT64_C(86400000000);
    *date_only = true;
    return true;
  }
  if (n < 16 || (s[10] != ' ' && s[10] != 'T') || s[13] != ':') return false;
  int hh = digits(s + 11, 2), mi = digits(s + 14, 2), ss = 0;
  if (hh < 0 || hh > 23 || mi < 0 || mi > 59) return false;
  int64_t frac = 0;
  int64_t k = 16;
  if (k < n) {
    if (s[k] != ':' || k + 3 > n) return false;
    ss = digits(s + k + 1, 2);
    if (ss < 0 || ss > 59) return false;
    k += 3;
    if (k < n) {
      if (s[k] != '.') return false;
      k++;
      int nd = 0;
      for (; k < n && is_digit(s[k]); k++, nd++) {
        if (nd >= 6) return false;
        frac = frac * 10 + (s[k] - '0');
      }
      if (nd == 0 || k != n) return false;
      for (; nd < 6; nd++) frac *= 10;
    }
  }
  *us = ((dd * 24 + hh) * 60 + mi) * INT64_C(60000000) + ss * INT64_C(1000000) + frac;
  *date_only = false;
  return true;
}

bool zb__text_utf8_valid(const unsigned char *s, int64_t n) {
  int64_t k = 0;
  while (k < n) {
    /* ASCII fast path, 8 bytes at a time. */
    while (k + 8 <= n) {
      uint64_t w;
      memcpy(&w, s + k, 8);
      if (w & UINT64_C(0x8080808080808080)) break;
      k += 8;
    }
    if (k >= n) break;
    unsigned c = s[k];
    if (c < 0x80) {
      k++;
      continue;
    }
    int len;
    unsigned min;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2, min = 0x80, cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3, min = 0x800, cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4, min = 0x10000, cp = c & 0x07;
    } else {
      return false;
    }
    if (k + len > n) return false;
    for (int q = 1; q < len; q++) {
      unsigned cc = s[k + q];
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    k += len;
  }
  return true;
}
