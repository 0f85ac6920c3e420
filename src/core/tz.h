/*
 * tz.h (core) -- the layout of a parsed zone and the per-row lookups on it,
 * shared by the CPU kernels (src/cpu/tz.c) and any device kernel: plain C,
 * static inline.
 *
 * Invariants: at[0 .. n) strictly ascending UTC seconds; off[i] is the
 * offset (seconds east of UTC) from at[i] on; off0 the offset before at[0]
 * (and everywhere when n == 0).  Every offset is within +-26 hours.
 */
#ifndef ZAMBEZI_CORE_TZ_H
#define ZAMBEZI_CORE_TZ_H

#include <stdint.h>

#include "zambezi/tz.h"

struct zb_tz {
  int64_t n;
  int64_t *at;
  int32_t *off;
  int32_t off0;
};

/* The number of transitions at or before UTC second t (0 .. n). */
static inline int64_t zb__tz_index(const zb_tz *z, int64_t t) {
  int64_t lo = 0, hi = z->n; /* answer in [lo, hi] */
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (z->at[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static inline int32_t zb__tz_off_of_index(const zb_tz *z, int64_t i) {
  return i == 0 ? z->off0 : z->off[i - 1];
}

static inline int32_t zb__tz_off(const zb_tz *z, int64_t t) {
  return zb__tz_off_of_index(z, zb__tz_index(z, t));
}

#endif /* ZAMBEZI_CORE_TZ_H */
