/*
 * float_text.c -- shortest round-trip digits of a float (float_text.h).
 *
 * Fast path: most floats in data are short decimals (prices, 0.1 steps,
 * measurements).  For k = 0, 1, ... the nearest integer t to |v| * 10^k
 * is found exactly (an fma gives the product's exact remainder), and if
 * t / 10^k reads back to v the digits are t's: t and 10^k are exact
 * (t < 2^53, k <= 22), so the division is the correctly rounded value of
 * the decimal t * 10^-k, which is what strtod returns for its text.  The
 * first such k gives the fewest digits, and t, the nearest integer, the
 * closest decimal of that length (at a power of two, where fewer values
 * read back below it than above, the one on the other side is tried
 * too).  float: the same in float arithmetic (t < 2^24, k <= 10).
 *
 * Other values (17-digit noise, huge or tiny magnitudes): widths of 15,
 * 16, then 17 significant digits (6..9 for float) are tried, and the
 * first that reads back is the shortest (any decimal of at most DBL_DIG
 * digits survives a round trip, so 15 digits or fewer are found by the
 * nearest 15-digit decimal with its zeros trimmed).  Subnormals have fewer
 * digits of precision: the search starts at one digit.  Text is read back
 * in the C locale whatever the process' locale.
 */
#define _GNU_SOURCE
#include "core/float_text.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Decimal digits of t > 0 into digits, trailing zeros dropped (they raise
 * the exponent instead); returns n and sets *exp10 for t * 10^-k. */
static int integer_digits(uint64_t t, int k, char *digits, int *exp10) {
  char tmp[24];
  int m = 0;
  while (t) {
    tmp[m++] = (char)('0' + t % 10);
    t /= 10;
  }
  *exp10 = m - 1 - k;
  int lo = 0;
  while (lo < m - 1 && tmp[lo] == '0') lo++;
  int n = 0;
  for (int i = m - 1; i >= lo; i--) digits[n++] = tmp[i];
  return n;
}

static int fast_double(double a, char *digits, int *exp10) {
  if (!(a >= 1e-5 && a < 9007199254740992.0)) return 0;
  for (int k = 0; k <= 22; k++) {
    double p = POW10[k];
    double s = a * p;
    if (s >= 9007199254740992.0) return 0;
    double t = nearbyint(s);
    if (t == 0) continue;
    /* exact a * p - t, rounded once: below 0.5 in magnitude only if t is
     * the nearest integer to the exact product */
    double r = fma(a, p, -t);
    if (fabs(r) >= 0.5) return 0;
    if (t / p == a) return integer_digits((uint64_t)t, k, digits, exp10);
    /* at a power of two the interval that reads back to a is narrower
     * below it than above: the decimal on the other side may read back */
    double u = r > 0 ? t + 1 : t - 1;
    if (u > 0 && u / p == a) return integer_digits((uint64_t)u, k, digits, exp10);
  }
  return 0;
}

static int fast_float(float a, char *digits, int *exp10) {
  if (!(a >= 1e-5f && a < 16777216.0f)) return 0;
  for (int k = 0; k <= 10; k++) {
    float p = (float)POW10[k];
    float s = a * p;
    if (s >= 16777216.0f) return 0;
    float t = nearbyintf(s);
    if (t == 0) continue;
    float r = fmaf(a, p, -t);
    if (fabsf(r) >= 0.5f) return 0;
    if (t / p == a) return integer_digits((uint64_t)t, k, digits, exp10);
    float u = r > 0 ? t + 1 : t - 1;
    if (u > 0 && u / p == a) return integer_digits((uint64_t)u, k, digits, exp10);
  }
  return 0;
}

static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static locale_t c_locale = (locale_t)0;
static void c_locale_init(void) { c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0); }

/* Does m * 10^e (m > 0) read back to a? */
static bool reads_back(uint64_t m, int e, double a, bool single) {
  char canon[48];
  snprintf(canon, sizeof canon, "%llue%d", (unsigned long long)m, e);
  double back;
  if (c_locale != (locale_t)0)
    back = single ? (double)strtof_l(canon, NULL, c_locale) : strtod_l(canon, NULL, c_locale);
  else /* no C locale object: the process' locale (digits only, no point) */
    back = single ? (double)strtof(canon, NULL) : strtod(canon, NULL);
  return back == a;
}

/* For p = 15, 16, 17 digits (6..9 for float; from 1 for subnormals): the
 * p-digit decimal nearest to a, then the one on a's other side (where the
 * interval that reads back to a is wider than a step of p digits, both may
 * lie in it: the nearest wins).  Both come from one exact print of 20
 * digits (glibc prints exactly); a tail of digits that sits on a rounding
 * tie after that print is resolved by printing at p digits directly. */
static int slow_digits(double a, bool single, char *digits, int *exp10) {
  pthread_once(&c_locale_once, c_locale_init);
  int lo = single ? 6 : 15, hi = single ? 9 : 17;
  if (single ? a < 1.17549435e-38 : a < 2.2250738585072014e-308) lo = 1;
  char buf[64];
  snprintf(buf, sizeof buf, "%.19e", a);
  char d20[24];
  int n20 = 0;
  const char *s = buf;
  for (; *s && *s != 'e'; s++)
    if (*s >= '0' && *s <= '9' && n20 < 20) d20[n20++] = *s;
  int e20 = *s == 'e' ? atoi(s + 1) : 0;
  for (int p = lo; p <= hi; p++) {
    uint64_t m = 0;
    for (int i = 0; i < p; i++) m = m * 10 + (uint64_t)(d20[i] - '0');
    /* the rest of the 20 digits against half a step */
    int cmp = 0; /* <0: below half, >0: above half, 0: exactly half */
    for (int i = p; i < n20 && cmp == 0; i++) {
      int h = i == p ? 5 : 0;
      cmp = (d20[i] - '0') - h;
    }
    bool tail_zero = true;
    for (int i = p; i < n20; i++) tail_zero = tail_zero && d20[i] == '0';
    int e = e20 - (p - 1);
    uint64_t near = m, other;
    if (cmp == 0) {
      /* on a tie after rounding to 20 digits: ask printf for p digits */
      char b2[64];
      snprintf(b2, sizeof b2, "%.*e", p - 1, a);
      uint64_t m2 = 0;
      int k2 = 0;
      const char *t = b2;
      for (; *t && *t != 'e'; t++)
        if (*t >= '0' && *t <= '9' && k2 < 20) m2 = m2 * 10 + (uint64_t)(*t - '0'), k2++;
      bool down = m2 == m && (*t == 'e' ? atoi(t + 1) : 0) == e20;
      near = down ? m : m + 1;
      other = down ? m + 1 : m;
    } else if (cmp > 0) {
      near = m + 1;
      other = m;
    } else {
      other = tail_zero ? 0 : m + 1;
    }
    if (reads_back(near, e, a, single)) return integer_digits(near, -e, digits, exp10);
    if (other > 0 && p < hi && reads_back(other, e, a, single))
      return integer_digits(other, -e, digits, exp10);
  }
  /* 17 (9) digits always read back; reached only if the C library's
   * conversions disagree with themselves */
  uint64_t m = 0;
  for (int i = 0; i < hi; i++) m = m * 10 + (uint64_t)(d20[i] - '0');
  return integer_digits(m, -(e20 - (hi - 1)), digits, exp10);
}

int zb__float_shortest(double v, bool single, char *digits, int *exp10) {
  double a = fabs(v);
  int n = single ? fast_float((float)a, digits, exp10) : fast_double(a, digits, exp10);
  return n > 0 ? n : slow_digits(a, single, digits, exp10);
}
