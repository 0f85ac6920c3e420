/*
 * datetime.c -- CPU calendar fields of date32 and timestamp columns: year,
 * month, day, hour, minute, second, day of week (Monday = 0) and day of the
 * year, in the proleptic Gregorian calendar.
 *
 * Days since the epoch become civil dates with Howard Hinnant's
 * era-of-400-years algorithms (days_from_civil / civil_from_days,
 * reimplemented from his public description): exact for every int64 day
 * count a timestamp can hold, dates before 1970 included.  Timestamps are
 * floor-divided into days and seconds of the day after adding the fixed
 * timezone offset that src/core/strings_ops.c worked out.  Work runs in
 * morsels on the thread pool, in blocks of ZB_BLOCK rows: one loop splits
 * the block into (days, second of day), then one loop per field.
 */
#include "cpu/kernels.h"
#include "cpu/strings_kernels.h"

static inline int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t zb__days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;                                       /* [0, 399] */
  int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;    /* [0, 365] */
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;               /* [0, 146096] */
  return era * 146097 + doe - 719468;
}

void zb__civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;                                    /* [0, 146096] */
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);             /* [0, 365] */
  int64_t mp = (5 * doy + 2) / 153;                                  /* [0, 11] */
  *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
  *m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

static const int k_cum_days[12] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};

static inline bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

typedef struct dt_job {
  const zb_column *c;
  zb_dt_field field;
  int64_t offset_s;
  int64_t per_sec; /* timestamp units per second; 0 for date32 */
  zb_column *out;
  int64_t *bad; /* per morsel: first row whose year does not fit int32, or -1 */
} dt_job;

static void dt_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  dt_job *j = (dt_job *)ctx;
  const zb_column *c = j->c;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, c->length - start);
  int32_t *o = (int32_t *)j->out->data->data;
  int64_t days[ZB_BLOCK];
  int32_t sod[ZB_BLOCK];
  int32_t sub[ZB_BLOCK]; /* units within the second, 0 <= sub < per_sec */
  j->bad[task] = -1;
  for (int64_t b = 0; b < n; b += ZB_BLOCK) {
    int64_t m = ZB_MIN((int64_t)ZB_BLOCK, n - b), row = start + b;
    if (j->per_sec == 0) {
      const int32_t *v = (const int32_t *)c->data->data + c->offset + row;
      for (int64_t k = 0; k < m; k++) {
        days[k] = v[k];
        sod[k] = 0;
        sub[k] = 0;
      }
    } else {
      const int64_t *v = (const int64_t *)c->data->data + c->offset + row;
      for (int64_t k = 0; k < m; k++) {
        int64_t s = floor_div(v[k], j->per_sec), t, u = v[k] % j->per_sec;
        sub[k] = (int32_t)(u < 0 ? u + j->per_sec : u);
        if (__builtin_add_overflow(s, j->offset_s, &t)) t = s; /* beyond any calendar */
        /* the second of the day as a remainder: dd * 86400 overflows for
         * t near INT64_MIN (a null row of pandas' NaT holds it) */
        int64_t r = t % 86400;
        days[k] = floor_div(t, 86400);
        sod[k] = (int32_t)(r < 0 ? r + 86400 : r);
      }
    }
    int32_t *dst = o + row;
    switch (j->field) {
      case ZB_DT_HOUR:
        for (int64_t k = 0; k < m; k++) dst[k] = sod[k] / 3600;
        break;
      case ZB_DT_MINUTE:
        for (int64_t k = 0; k < m; k++) dst[k] = sod[k] / 60 % 60;
        break;
      case ZB_DT_SECOND:
        for (int64_t k = 0; k < m; k++) dst[k] = sod[k] % 60;
        break;
      case ZB_DT_MICROSECOND: {
        int64_t per = j->per_sec; /* 1, 1e3, 1e6 or 1e9 */
        int32_t mul = per == 0 || per >= 1000000 ? 1 : (int32_t)(1000000 / per);
        int32_t div = per <= 1000000 ? 1 : (int32_t)(per / 1000000);
        for (int64_t k = 0; k < m; k++) dst[k] = sub[k] / div * mul;
        break;
      }
      case ZB_DT_NANOSECOND:
        for (int64_t k = 0; k < m; k++) dst[k] = j->per_sec == 1000000000 ? sub[k] % 1000 : 0;
        break;
      case ZB_DT_DAYOFWEEK: /* 1970-01-01 was a Thursday (3) */
        for (int64_t k = 0; k < m; k++) dst[k] = (int32_t)((days[k] % 7 + 7 + 3) % 7);
        break;
      default:
        for (int64_t k = 0; k < m; k++) {
          int64_t y;
          unsigned mo, d;
          zb__civil_from_days(days[k], &y, &mo, &d);
          int32_t r;
          if (j->field == ZB_DT_YEAR) {
            if ((y < INT32_MIN || y > INT32_MAX) && j->bad[task] < 0 &&
                zb_column_is_valid(c, row + k))
              j->bad[task] = row + k;
            r = (int32_t)y;
          } else if (j->field == ZB_DT_MONTH) {
            r = (int32_t)mo;
          } else if (j->field == ZB_DT_DAY) {
            r = (int32_t)d;
          } else if (j->field == ZB_DT_QUARTER) {
            r = (int32_t)(mo + 2) / 3;
          } else {
            r = k_cum_days[mo - 1] + (int32_t)d + (mo > 2 && is_leap(y));
          }
          dst[k] = r;
        }
        break;
    }
  }
}

zb_status zb__cpu_dt_field(const zb_column *col, zb_dt_field field, int64_t offset_s,
                           zb_column **out, zb_error *err) {
  *out = NULL;
  static const int64_t per_sec[4] = {1, 1000, 1000000, 1000000000};
  int64_t n = col->length, nm = zb__morsels(n);
  dt_job j = {col, field, offset_s,
              col->type == ZB_TIMESTAMP ? per_sec[col->unit] : 0, NULL, NULL};
  zb_column *o = NULL;
  zb_status st = zb_column_new(ZB_INT32, n, false, 0, &o, err);
  if (st == ZB_OK && col->null_count > 0) {
    st = zb_buffer_new(ZB_CPU, (n + 7) / 8, &o->validity, err);
    if (st == ZB_OK) {
      zb__bitmap_copy((uint8_t *)o->validity->data, 0, (const uint8_t *)col->validity->data,
                      col->offset, n);
      o->null_count = col->null_count;
    }
  }
  if (st == ZB_OK) {
    j.out = o;
    j.bad = (int64_t *)zb_malloc((size_t)(nm > 0 ? nm : 1) * sizeof(int64_t));
    if (j.bad == NULL) st = zb_error_set(err, ZB_ENOMEM, "out of host memory (dt field)");
  }
  if (st == ZB_OK) st = zb_parallel_for(nm, dt_morsel, &j, err);
  for (int64_t m = 0; st == ZB_OK && m < nm; m++)
    if (j.bad[m] >= 0)
      st = zb_error_set(err, ZB_EOVERFLOW, "row %lld: the year does not fit in int32",
                        (long long)j.bad[m]);
  zb_free(j.bad);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}
