/*
 * float_text.h -- the shortest decimal digits of a float that read back to
 * the same float: what Python's repr, numpy's str and pandas' to_csv print.
 * One implementation for every writer of float text (casts to string, the
 * CSV writer), each laying the digits out its own way.
 */
#ifndef ZAMBEZI_CORE_FLOAT_TEXT_H
#define ZAMBEZI_CORE_FLOAT_TEXT_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The shortest digits of |v| (finite, nonzero) that read back to v as a
 * double (as a float when single), the closest to v among those of that
 * length: digits[0 .. n) with no trailing zeros, and |v| ~ 0.d1d2... *
 * 10^(*exp10 + 1), i.e. d1 is the digit of 10^*exp10.  digits holds 24
 * bytes.  Returns n.  Independent of the C locale. */
int zb__float_shortest(double v, bool single, char *digits, int *exp10);

#ifdef __cplusplus
}
#endif

#endif
