/*
 * calendar.h -- days since 1970-01-01 <-> proleptic Gregorian dates, and
 * the calendar fields of one date32 / timestamp value, shared by the CPU
 * kernels (src/cpu/datetime.c), the CUDA kernels (src/cuda/strings.cu), the
 * CSV writer and the Python conversions, so that every place splits a date
 * by the same code.
 *
 * Howard Hinnant's era-of-400-years algorithms (days_from_civil /
 * civil_from_days, reimplemented from his public description): exact for
 * every int64 day count a timestamp can hold, dates before 1970 included.
 * Plain C11 and CUDA C++ alike (static inline; __host__ __device__ under
 * nvcc).
 */
#ifndef ZAMBEZI_CORE_CALENDAR_H
#define ZAMBEZI_CORE_CALENDAR_H

#include <stdbool.h>
#include <stdint.h>

#include "zambezi/compute.h"

#ifdef __CUDACC__
#define ZB_CAL_HD __host__ __device__
#else
#define ZB_CAL_HD
#endif

static inline ZB_CAL_HD int64_t zb__floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Days since 1970-01-01 of the proleptic Gregorian date y-m-d. */
static inline ZB_CAL_HD int64_t zb__days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;                                    /* [0, 399] */
  int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1; /* [0, 365] */
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;            /* [0, 146096] */
  return era * 146097 + doe - 719468;
}

/* The proleptic Gregorian date of day z since 1970-01-01. */
static inline ZB_CAL_HD void zb__civil_from_days(int64_t z, int64_t *y, unsigned *m,
                                                 unsigned *d) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;                                      /* [0, 146096] */
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               /* [0, 365] */
  int64_t mp = (5 * doy + 2) / 153;                                    /* [0, 11] */
  *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
  *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

/* A timestamp value v (per_sec units per second) at a fixed offset of
 * offset_s seconds: its day since the epoch, second of the day and units
 * within the second (floored, so times before 1970 split right).  v may be
 * anything a null row holds (pandas' NaT is INT64_MIN): no overflow. */
static inline ZB_CAL_HD void zb__dt_split(int64_t v, int64_t per_sec, int64_t offset_s,
                                          int64_t *days, int32_t *sod, int32_t *sub) {
  int64_t s = zb__floor_div(v, per_sec), u = v % per_sec;
  *sub = (int32_t)(u < 0 ? u + per_sec : u);
  /* an offset that would overflow is ignored: such a time is beyond any
   * calendar */
  bool over = offset_s > 0 ? s > INT64_MAX - offset_s : s < INT64_MIN - offset_s;
  int64_t t = over ? s : s + offset_s;
  /* the second of the day as a remainder: days * 86400 overflows for t
   * near INT64_MIN */
  int64_t r = t % 86400;
  *days = zb__floor_div(t, 86400);
  *sod = (int32_t)(r < 0 ? r + 86400 : r);
}

/* Field f of the value split into (days, sod, sub) by zb__dt_split (date32:
 * the day, sod = sub = 0), per_sec the timestamp's units per second (0 for
 * date32).  YEAR may not fit int32: the caller checks. */
static inline ZB_CAL_HD int64_t zb__dt_field_of(zb_dt_field f, int64_t days, int32_t sod,
                                                int32_t sub, int64_t per_sec) {
  switch (f) {
    case ZB_DT_HOUR: return sod / 3600;
    case ZB_DT_MINUTE: return sod / 60 % 60;
    case ZB_DT_SECOND: return sod % 60;
    case ZB_DT_DAYOFWEEK: return (days % 7 + 7 + 3) % 7; /* 1970-01-01: a Thursday (3) */
    case ZB_DT_MICROSECOND:
      if (per_sec <= 1) return 0;
      return per_sec <= 1000000 ? sub * (1000000 / per_sec) : sub / (per_sec / 1000000);
    case ZB_DT_NANOSECOND: return per_sec == 1000000000 ? sub % 1000 : 0;
    default: break;
  }
  int64_t y;
  unsigned m, d;
  zb__civil_from_days(days, &y, &m, &d);
  switch (f) {
    case ZB_DT_YEAR: return y;
    case ZB_DT_MONTH: return m;
    case ZB_DT_DAY: return d;
    case ZB_DT_QUARTER: return (m + 2) / 3;
    default: /* ZB_DT_DAYOFYEAR */
      return days - zb__days_from_civil(y, 1, 1) + 1;
  }
}

#endif /* ZAMBEZI_CORE_CALENDAR_H */
