/*
 * time_parse.h -- parsing one string as a point in time or a length of
 * time, in nanoseconds: the per-row code of zb_column_parse_time, shared by
 * the backends (plain C, no allocation, no locale).
 *
 *   zb__parse_datetime: ISO 8601 when fmt is NULL
 *     (YYYY-MM-DD[(T| )HH:MM[:SS[.f{1,9}]]][Z|(+|-)HH[:MM]|(+|-)HHMM]),
 *     else a strptime-style format: %Y %y %m %d %H %I %p %M %S %f %z %b %B
 *     %j %% and literal characters, matched exactly;
 *   zb__parse_timedelta: pandas' spellings ("1 days 02:00:00",
 *     "-1 days +01:00:00", "00:00:01.5", "1h30min", "1.5h", "3us", "2 days").
 *
 * Both return ZB__PARSE_OK, ZB__PARSE_NULL ("", "NaT", "nat", "NaN",
 * "None": a missing value, as pandas reads them) or ZB__PARSE_BAD.
 * Invariant: a value that does not fit int64 nanoseconds is BAD.
 */
#ifndef ZAMBEZI_CORE_TIME_PARSE_H
#define ZAMBEZI_CORE_TIME_PARSE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/calendar.h"

enum { ZB__PARSE_OK = 0, ZB__PARSE_NULL = 1, ZB__PARSE_BAD = 2 };

#define ZB__NS_PER_SEC INT64_C(1000000000)
#define ZB__NS_PER_DAY (INT64_C(86400) * ZB__NS_PER_SEC)

static inline bool zb__pt_digit(char c) { return c >= '0' && c <= '9'; }
static inline char zb__pt_lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c; }

static inline void zb__pt_trim(const char **s, int64_t *n) {
  while (*n > 0 && (**s == ' ' || **s == '\t')) (*s)++, (*n)--;
  while (*n > 0 && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t')) (*n)--;
}

/* Whether s[0, n) is a spelling of a missing value. */
static inline bool zb__pt_is_null(const char *s, int64_t n) {
  if (n == 0) return true;
  if (n == 3 && zb__pt_lower(s[0]) == 'n' && zb__pt_lower(s[1]) == 'a' &&
      zb__pt_lower(s[2]) == 't')
    return true;
  if (n == 3 && s[0] == 'N' && s[1] == 'a' && s[2] == 'N') return true;
  if (n == 4 && memcmp(s, "None", 4) == 0) return true;
  return false;
}

/* Up to max digits at s[*k] (at least min): their value; -1 if fewer. */
static inline int64_t zb__pt_num(const char *s, int64_t n, int64_t *k, int min, int max) {
  int64_t v = 0;
  int d = 0;
  while (*k < n && d < max && zb__pt_digit(s[*k])) {
    v = v * 10 + (s[*k] - '0');
    (*k)++;
    d++;
  }
  return d >= min ? v : -1;
}

/* Fraction digits at s[*k] (1..9 used, more ignored) as nanoseconds. */
static inline int64_t zb__pt_frac(const char *s, int64_t n, int64_t *k) {
  int64_t v = 0;
  int d = 0;
  while (*k < n && zb__pt_digit(s[*k])) {
    if (d < 9) v = v * 10 + (s[*k] - '0');
    d++;
    (*k)++;
  }
  if (d == 0) return -1;
  for (; d < 9; d++) v *= 10;
  return v;
}

/* A UTC offset at s[*k]: Z, +HH, +HH:MM, +HHMM (or -): minutes east. */
static inline bool zb__pt_offset(const char *s, int64_t n, int64_t *k, int32_t *minutes) {
  if (*k < n && (s[*k] == 'Z' || s[*k] == 'z')) {
    (*k)++;
    *minutes = 0;
    return true;
  }
  if (*k >= n || (s[*k] != '+' && s[*k] != '-')) return false;
  int sign = s[*k] == '-' ? -1 : 1;
  (*k)++;
  int64_t hh = zb__pt_num(s, n, k, 2, 2);
  if (hh < 0 || hh > 23) return false;
  int64_t mm = 0;
  if (*k < n && s[*k] == ':') (*k)++;
  if (*k < n && zb__pt_digit(s[*k])) mm = zb__pt_num(s, n, k, 2, 2);
  if (mm < 0 || mm > 59) return false;
  *minutes = (int32_t)(sign * (hh * 60 + mm));
  return true;
}

static inline int zb__pt_days_in_month(int64_t y, int64_t m) {
  static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return mdays[m - 1] + (m == 2 && leap);
}

/* A month name (3 letters or full, any case) at s[*k]: 1..12, or 0. */
static inline int zb__pt_month_name(const char *s, int64_t n, int64_t *k) {
  static const char *const names[12] = {"january", "february", "march",     "april",
                                        "may",     "june",     "july",      "august",
                                        "september", "october", "november", "december"};
  for (int m = 0; m < 12; m++) {
    const char *nm = names[m];
    int64_t len = (int64_t)strlen(nm), j = 0;
    while (j < len && *k + j < n && zb__pt_lower(s[*k + j]) == nm[j]) j++;
    if (j == len || j == 3) {
      /* full name, or its 3-letter abbreviation not followed by more letters */
      if (j == 3 && j < len && *k + j < n && zb__pt_lower(s[*k + j]) >= 'a' &&
          zb__pt_lower(s[*k + j]) <= 'z')
        continue;
      *k += j;
      return m + 1;
    }
  }
  return 0;
}

/* The nanoseconds since the epoch of y-m-d h:mi:s + ns, checked. */
static inline bool zb__pt_compose(int64_t y, int64_t m, int64_t d, int64_t h, int64_t mi,
                                  int64_t s, int64_t ns, int32_t offset_min, int64_t *out) {
  if (m < 1 || m > 12 || d < 1 || d > zb__pt_days_in_month(y, m) || h > 23 || mi > 59 ||
      s > 59)
    return false;
  int64_t days = zb__days_from_civil(y, (unsigned)m, (unsigned)d);
  /* int64 nanoseconds reach 1677-09-21 .. 2262-04-11 */
  if (days < -106751 || days > 106750) return false;
  int64_t secs = days * 86400 + h * 3600 + mi * 60 + s - (int64_t)offset_min * 60;
  if (secs > INT64_MAX / ZB__NS_PER_SEC - 1 || secs < INT64_MIN / ZB__NS_PER_SEC + 1) return false;
  *out = secs * ZB__NS_PER_SEC + ns;
  return true;
}

/* One point in time; *has_offset and *offset_min say whether the text
 * named its UTC offset (the value is then UTC). */
static inline int zb__parse_datetime(const char *s, int64_t n, const char *fmt, int64_t *out,
                                     bool *has_offset, int32_t *offset_min) {
  zb__pt_trim(&s, &n);
  *has_offset = false;
  *offset_min = 0;
  if (zb__pt_is_null(s, n)) return ZB__PARSE_NULL;
  int64_t y = 1900, m = 1, d = 1, h = 0, mi = 0, sec = 0, ns = 0, yday = -1, k = 0;
  int pm = -1; /* %p: 0 AM, 1 PM */
  if (fmt == NULL) {
    y = zb__pt_num(s, n, &k, 4, 4);
    if (y < 0 || k >= n || s[k] != '-') return ZB__PARSE_BAD;
    k++;
    m = zb__pt_num(s, n, &k, 2, 2);
    if (m < 0 || k >= n || s[k] != '-') return ZB__PARSE_BAD;
    k++;
    d = zb__pt_num(s, n, &k, 2, 2);
    if (d < 0) return ZB__PARSE_BAD;
    if (k < n && (s[k] == 'T' || s[k] == ' ')) {
      k++;
      h = zb__pt_num(s, n, &k, 2, 2);
      if (h < 0 || k >= n || s[k] != ':') return ZB__PARSE_BAD;
      k++;
      mi = zb__pt_num(s, n, &k, 2, 2);
      if (mi < 0) return ZB__PARSE_BAD;
      if (k < n && s[k] == ':') {
        k++;
        sec = zb__pt_num(s, n, &k, 2, 2);
        if (sec < 0) return ZB__PARSE_BAD;
        if (k < n && (s[k] == '.' || s[k] == ',')) {
          k++;
          ns = zb__pt_frac(s, n, &k);
          if (ns < 0) return ZB__PARSE_BAD;
        }
      }
      while (k < n && s[k] == ' ') k++;
      if (k < n) {
        if (!zb__pt_offset(s, n, &k, offset_min)) return ZB__PARSE_BAD;
        *has_offset = true;
      }
    } else if (k < n) { /* a date with an offset: "2024-01-02Z" */
      if (!zb__pt_offset(s, n, &k, offset_min)) return ZB__PARSE_BAD;
      *has_offset = true;
    }
    if (k != n) return ZB__PARSE_BAD;
  } else {
    for (const char *f = fmt; *f != '\0'; f++) {
      if (*f != '%') {
        if (k >= n || s[k] != *f) return ZB__PARSE_BAD;
        k++;
        continue;
      }
      f++;
      int64_t v = 0;
      switch (*f) {
        case 'Y': v = y = zb__pt_num(s, n, &k, 4, 4); break;
        case 'y':
          v = zb__pt_num(s, n, &k, 2, 2);
          y = v < 69 ? 2000 + v : 1900 + v;
          break;
        case 'm': v = m = zb__pt_num(s, n, &k, 1, 2); break;
        case 'd': v = d = zb__pt_num(s, n, &k, 1, 2); break;
        case 'H': v = h = zb__pt_num(s, n, &k, 1, 2); break;
        case 'I':
          v = h = zb__pt_num(s, n, &k, 1, 2);
          if (v == 0 || v > 12) return ZB__PARSE_BAD;
          break;
        case 'M': v = mi = zb__pt_num(s, n, &k, 1, 2); break;
        case 'S': v = sec = zb__pt_num(s, n, &k, 1, 2); break;
        case 'j': v = yday = zb__pt_num(s, n, &k, 1, 3); break;
        case 'f': v = ns = zb__pt_frac(s, n, &k); break;
        case 'b':
        case 'B':
        case 'h':
          v = m = zb__pt_month_name(s, n, &k);
          if (v == 0) return ZB__PARSE_BAD;
          break;
        case 'p':
          if (k + 2 > n) return ZB__PARSE_BAD;
          if (zb__pt_lower(s[k]) == 'a') pm = 0;
          else if (zb__pt_lower(s[k]) == 'p') pm = 1;
          else return ZB__PARSE_BAD;
          if (zb__pt_lower(s[k + 1]) != 'm') return ZB__PARSE_BAD;
          k += 2;
          break;
        case 'z':
          if (!zb__pt_offset(s, n, &k, offset_min)) return ZB__PARSE_BAD;
          *has_offset = true;
          break;
        case '%':
          if (k >= n || s[k] != '%') return ZB__PARSE_BAD;
          k++;
          break;
        default: return ZB__PARSE_BAD; /* the caller checked the format */
      }
      if (v < 0) return ZB__PARSE_BAD;
    }
    if (k != n) return ZB__PARSE_BAD;
    if (pm >= 0) h = (h % 12) + (pm ? 12 : 0);
    if (yday >= 0) {
      bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
      if (yday < 1 || yday > 365 + leap) return ZB__PARSE_BAD;
      int64_t days = zb__days_from_civil(y, 1, 1) + yday - 1;
      int64_t yy;
      unsigned mm, dd;
      zb__civil_from_days(days, &yy, &mm, &dd);
      m = mm;
      d = dd;
    }
  }
  return zb__pt_compose(y, m, d, h, mi, sec, ns, *offset_min, out) ? ZB__PARSE_OK
                                                                    : ZB__PARSE_BAD;
}

/* Nanoseconds of one unit spelled s[0, len), or 0 if unknown. */
static inline int64_t zb__pt_unit_ns(const char *s, int64_t len) {
  static const struct {
    const char *name;
    int64_t ns;
  } units[] = {
      {"w", 7 * ZB__NS_PER_DAY}, {"week", 7 * ZB__NS_PER_DAY}, {"weeks", 7 * ZB__NS_PER_DAY},
      {"d", ZB__NS_PER_DAY}, {"day", ZB__NS_PER_DAY}, {"days", ZB__NS_PER_DAY},
      {"h", 3600 * ZB__NS_PER_SEC}, {"hr", 3600 * ZB__NS_PER_SEC},
      {"hour", 3600 * ZB__NS_PER_SEC}, {"hours", 3600 * ZB__NS_PER_SEC},
      {"m", 60 * ZB__NS_PER_SEC}, {"min", 60 * ZB__NS_PER_SEC}, {"mins", 60 * ZB__NS_PER_SEC},
      {"minute", 60 * ZB__NS_PER_SEC}, {"minutes", 60 * ZB__NS_PER_SEC},
      {"t", 60 * ZB__NS_PER_SEC},
      {"s", ZB__NS_PER_SEC}, {"sec", ZB__NS_PER_SEC}, {"secs", ZB__NS_PER_SEC},
      {"second", ZB__NS_PER_SEC}, {"seconds", ZB__NS_PER_SEC},
      {"ms", 1000000}, {"milli", 1000000}, {"millis", 1000000}, {"millisecond", 1000000},
      {"milliseconds", 1000000}, {"l", 1000000},
      {"us", 1000}, {"micro", 1000}, {"micros", 1000}, {"microsecond", 1000},
      {"microseconds", 1000}, {"u", 1000},
      {"ns", 1}, {"nano", 1}, {"nanos", 1}, {"nanosecond", 1}, {"nanoseconds", 1}, {"n", 1},
  };
  char low[16];
  if (len <= 0 || len >= (int64_t)sizeof low) return 0;
  for (int64_t i = 0; i < len; i++) low[i] = zb__pt_lower(s[i]);
  low[len] = '\0';
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strcmp(low, units[i].name) == 0) return units[i].ns;
  return 0;
}

/* acc += sign * (whole + frac / 10^9) units of unit_ns, checked. */
static inline bool zb__pt_add(int64_t *acc, int sign, int64_t whole, int64_t frac9,
                              int64_t unit_ns) {
  if (whole > INT64_MAX / unit_ns) return false;
  int64_t v = whole * unit_ns;
  int64_t f = unit_ns % ZB__NS_PER_SEC == 0
                  ? frac9 * (unit_ns / ZB__NS_PER_SEC)
                  : (int64_t)((double)frac9 * (double)unit_ns / 1e9 + 0.5);
  if (v > INT64_MAX - f) return false;
  v += f;
  if (sign < 0) v = -v;
  if ((v > 0 && *acc > INT64_MAX - v) || (v < 0 && *acc < INT64_MIN + 1 - v)) return false;
  *acc += v;
  return true;
}

/* [+-]HH:MM:SS[.f] at s[*k] added to *acc with sign. */
static inline bool zb__pt_clock(const char *s, int64_t n, int64_t *k, int sign, int64_t *acc) {
  if (*k < n && (s[*k] == '+' || s[*k] == '-')) {
    if (s[*k] == '-') sign = -sign;
    (*k)++;
  }
  int64_t h = zb__pt_num(s, n, k, 1, 9);
  if (h < 0 || *k >= n || s[*k] != ':') return false;
  (*k)++;
  int64_t mi = zb__pt_num(s, n, k, 2, 2);
  if (mi < 0 || mi > 59) return false;
  int64_t sec = 0, frac = 0;
  if (*k < n && s[*k] == ':') {
    (*k)++;
    sec = zb__pt_num(s, n, k, 2, 2);
    if (sec < 0 || sec > 59) return false;
    if (*k < n && s[*k] == '.') {
      (*k)++;
      frac = zb__pt_frac(s, n, k);
      if (frac < 0) return false;
    }
  }
  if (h > INT64_MAX / (3600 * ZB__NS_PER_SEC) - 1) return false;
  return zb__pt_add(acc, sign, (h * 3600 + mi * 60 + sec), frac, ZB__NS_PER_SEC);
}

static inline int zb__parse_timedelta(const char *s, int64_t n, int64_t *out) {
  zb__pt_trim(&s, &n);
  if (zb__pt_is_null(s, n)) return ZB__PARSE_NULL;
  int64_t k = 0, acc = 0;
  int sign = 1;
  if (s[k] == '-' || s[k] == '+') {
    sign = s[k] == '-' ? -1 : 1;
    k++;
  }
  /* a clock alone: [-]HH:MM:SS[.f] */
  int64_t probe = k;
  while (probe < n && zb__pt_digit(s[probe])) probe++;
  if (probe < n && s[probe] == ':') {
    if (!zb__pt_clock(s, n, &k, sign, &acc) || k != n) return ZB__PARSE_BAD;
    *out = acc;
    return ZB__PARSE_OK;
  }
  bool any = false;
  while (k < n) {
    while (k < n && s[k] == ' ') k++;
    if (k >= n) break;
    int part_sign = sign;
    if (any && (s[k] == '+' || s[k] == '-')) { /* "-1 days +01:00:00" */
      if (!zb__pt_clock(s, n, &k, 1, &acc)) return ZB__PARSE_BAD;
      any = true;
      continue;
    }
    if (any) {
      int64_t p2 = k;
      while (p2 < n && zb__pt_digit(s[p2])) p2++;
      if (p2 < n && s[p2] == ':') { /* "1 days 02:00:00": the clock has the day's sign */
        if (!zb__pt_clock(s, n, &k, sign, &acc)) return ZB__PARSE_BAD;
        continue;
      }
    }
    int64_t whole = zb__pt_num(s, n, &k, 0, 18), frac = 0;
    if (whole < 0) return ZB__PARSE_BAD;
    bool had_digits = k > 0 && zb__pt_digit(s[k - 1]);
    if (k < n && s[k] == '.') {
      k++;
      frac = zb__pt_frac(s, n, &k);
      if (frac < 0) frac = 0;
    } else if (!had_digits) {
      return ZB__PARSE_BAD;
    }
    while (k < n && s[k] == ' ') k++;
    int64_t u0 = k;
    while (k < n && ((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z') ||
                     (unsigned char)s[k] == 0xC2 || (unsigned char)s[k] == 0xB5))
      k++;
    int64_t unit = zb__pt_unit_ns(s + u0, k - u0);
    if (unit == 0 && k - u0 == 3 && (unsigned char)s[u0] == 0xC2 &&
        (unsigned char)s[u0 + 1] == 0xB5 && zb__pt_lower(s[u0 + 2]) == 's')
      unit = 1000; /* µs */
    if (unit == 0) return ZB__PARSE_BAD;
    if (!zb__pt_add(&acc, part_sign, whole, frac, unit)) return ZB__PARSE_BAD;
    any = true;
    if (k < n && s[k] == ',') k++;
  }
  if (!any) return ZB__PARSE_BAD;
  *out = acc;
  return ZB__PARSE_OK;
}

#endif /* ZAMBEZI_CORE_TIME_PARSE_H */
