/*
 * datetime.c -- CPU calendar fields of date32 and timestamp columns: year,
 * month, day, hour, minute, second, microsecond, nanosecond, day of week
 * (Monday = 0), day of the year and quarter, in the proleptic Gregorian
 * calendar.
 *
 * Each value is split and its field computed by src/core/calendar.h (the
 * GPU uses the same code): timestamps are floor-divided into days, second
 * of the day and units within the second after adding the fixed timezone
 * offset that src/core/strings_ops.c worked out.  Work runs in morsels on
 * the thread pool, in blocks of ZB_BLOCK rows: one loop splits the block,
 * then one loop computes the field.
 */
#include "core/calendar.h"
#include "cpu/kernels.h"
#include "cpu/strings_kernels.h"

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
  const zb_dt_field f = j->field;
  const int64_t per_sec = j->per_sec;
  j->bad[task] = -1;
  for (int64_t b = 0; b < n; b += ZB_BLOCK) {
    int64_t m = ZB_MIN((int64_t)ZB_BLOCK, n - b), row = start + b;
    if (per_sec == 0) {
      const int32_t *v = (const int32_t *)c->data->data + c->offset + row;
      for (int64_t k = 0; k < m; k++) {
        days[k] = v[k];
        sod[k] = 0;
        sub[k] = 0;
      }
    } else {
      const int64_t *v = (const int64_t *)c->data->data + c->offset + row;
      for (int64_t k = 0; k < m; k++)
        zb__dt_split(v[k], per_sec, j->offset_s, &days[k], &sod[k], &sub[k]);
    }
    int32_t *dst = o + row;
    for (int64_t k = 0; k < m; k++) {
      int64_t r = zb__dt_field_of(f, days[k], sod[k], sub[k], per_sec);
      if (f == ZB_DT_YEAR && (r < INT32_MIN || r > INT32_MAX) && j->bad[task] < 0 &&
          zb_column_is_valid(c, row + k))
        j->bad[task] = row + k;
      dst[k] = (int32_t)r;
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
