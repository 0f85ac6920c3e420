/*
 * window_values.h -- which values a window statistic leaves out, the one
 * rule shared by every window kernel (rolling, expanding and ewm, plain and
 * per group; CPU code in C, and CUDA host or device code should a backend
 * grow its own window kernels).
 *
 * pandas' window functions see +-inf as NaN (its window code replaces
 * infinities by NaN before any statistic runs), so a window statistic
 * leaves out a null, a NaN and +-inf alike; rolling / expanding count
 * alone counts the infinities (the caller keeps them for count).  The
 * test is x - x == 0, true only for finite x: one subtraction and one
 * compare, no branch, vectorizable.
 */
#ifndef ZAMBEZI_CORE_WINDOW_VALUES_H
#define ZAMBEZI_CORE_WINDOW_VALUES_H

#include <math.h>
#include <stdbool.h>

#if defined(__CUDACC__)
#define ZB_WINDOW_HD __host__ __device__
#else
#define ZB_WINDOW_HD
#endif

/* True when a present (non-null) value x is missing for a window
 * statistic: NaN or +-inf. */
static inline ZB_WINDOW_HD bool zb__window_missing(double x) { return !(x - x == 0.0); }

/* x as a window statistic sees it: NaN when zb__window_missing(x). */
static inline ZB_WINDOW_HD double zb__window_value(double x) {
  return x - x == 0.0 ? x : (double)NAN;
}

#endif /* ZAMBEZI_CORE_WINDOW_VALUES_H */
