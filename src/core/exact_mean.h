/*
 * exact_mean.h -- the mean of integers from their exact 128-bit sum, shared
 * by the CPU code (C) and the CUDA code (host and device), so that every
 * backend's integer means agree bit for bit.
 *
 * Converting the sum to double and then dividing rounds twice, and misses
 * the nearest double about one time in four once the sum passes 2^53.
 * Instead: an integer quotient of at least 56 significant bits (the sum's
 * magnitude shifted left as far as needed; it stays under 2^120), its
 * lowest bit set if the division left a remainder, converted once (the
 * conversion rounds to nearest, and the bits below the rounding position
 * decide it as the infinite quotient's would), then scaled back.
 */
#ifndef ZAMBEZI_EXACT_MEAN_H
#define ZAMBEZI_EXACT_MEAN_H

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define ZB_HOST_DEVICE __host__ __device__
#else
#define ZB_HOST_DEVICE
#endif

static inline ZB_HOST_DEVICE int zb__clz64(uint64_t x) { /* x != 0 */
#if defined(__CUDA_ARCH__)
  return __clzll((long long)x);
#else
  return __builtin_clzll(x);
#endif
}

/* The double nearest to (hi * 2^64 + lo) / count, for count > 0: hi:lo is
 * a two's complement 128-bit sum. */
static inline ZB_HOST_DEVICE double zb__exact_mean(int64_t hi, uint64_t lo, int64_t count) {
  __extension__ typedef unsigned __int128 zb_u128;
  zb_u128 m = ((zb_u128)(uint64_t)hi << 64) | lo;
  int neg = hi < 0;
  if (neg) m = -m;
  if (m == 0) return 0.0;
  uint64_t top = (uint64_t)(m >> 64);
  int bits_m = top != 0 ? 128 - zb__clz64(top) : 64 - zb__clz64((uint64_t)m);
  int bits_d = 64 - zb__clz64((uint64_t)count);
  int s = 56 - (bits_m - bits_d);
  if (s < 0) s = 0;
  zb_u128 num = m << s;
  zb_u128 q = num / (uint64_t)count;
  q |= (num % (uint64_t)count) != 0;
  double v = ldexp((double)q, -s);
  return neg ? -v : v;
}

#endif
