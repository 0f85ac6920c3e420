/*
 * tz.c -- CPU time zone conversions of timestamp columns: UTC instants to
 * wall times (an offset looked up per row by binary search in the zone's
 * table, src/core/tz.h), and wall times back to UTC (tz_localize), with
 * pandas' rules for wall times a fall-back hour repeats (ambiguous) and a
 * spring-forward gap skips (nonexistent).
 *
 * tz_localize of wall second s: the offsets in force a day before and a
 * day after s (as UTC) give at most two candidate instants s - off; a
 * candidate is real when its own offset is the one it was made with.  Two
 * real ones: ambiguous; none: nonexistent, the gap starting at the
 * transition between them.  (Zones change offset at most once in two
 * days, so the window holds at most one transition.)
 *
 * Work runs in morsels on the thread pool; a morsel records its first row
 * that a "raise" choice rejects, and the first such row of all is the
 * error.
 */
#include <stdio.h>

#include "core/calendar.h"
#include "core/tz.h"
#include "cpu/kernels.h"

enum { BAD_NONE = 0, BAD_AMBIGUOUS, BAD_NONEXISTENT, BAD_OVERFLOW };

typedef struct tz_job {
  const zb_column *c, *amb;
  const zb_tz *tz;
  int variant, ambiguous, nonexistent;
  int64_t per_sec;
  int64_t *out;
  uint8_t *valid; /* output bitmap (offset 0), or NULL when no row is null */
  int64_t *bad_row;
  int *bad_kind;
} tz_job;

static void tz_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  tz_job *j = (tz_job *)ctx;
  const zb_column *c = j->c;
  const zb_tz *z = j->tz;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, c->length - start);
  const int64_t *v = (const int64_t *)c->data->data + c->offset;
  /* bools are bits, as Arrow's */
  const uint8_t *amb = j->amb != NULL ? (const uint8_t *)j->amb->data->data : NULL;
  const int64_t aoff = j->amb != NULL ? j->amb->offset : 0;
  const int64_t per = j->per_sec;
  j->bad_row[task] = -1;
  j->bad_kind[task] = BAD_NONE;
  for (int64_t k = 0; k < n; k++) {
    int64_t row = start + k;
    if (!zb_column_is_valid(c, row)) {
      j->out[row] = v[row];
      continue;
    }
    int64_t x = v[row], s = zb__floor_div(x, per), r;
    int bad = BAD_NONE;
    if (j->variant == 0) {
      if (__builtin_add_overflow(x, (int64_t)zb__tz_off(z, s) * per, &r)) bad = BAD_OVERFLOW;
    } else {
      int64_t il = zb__tz_index(z, s > INT64_MIN + 86400 ? s - 86400 : s);
      int64_t ir = zb__tz_index(z, s < INT64_MAX - 86400 ? s + 86400 : s);
      int32_t ol = zb__tz_off_of_index(z, il), or_ = zb__tz_off_of_index(z, ir);
      int64_t a = s - ol, b = s - or_; /* |offsets| <= 26 h: no overflow past the guards */
      bool va = zb__tz_off(z, a) == ol, vb = ol != or_ && zb__tz_off(z, b) == or_;
      int64_t pick = a; /* in seconds */
      bool null = false;
      if (va && vb) {
        int choice = j->ambiguous;
        if (choice == ZB_TZ_AMBIGUOUS_ARRAY)
          choice = amb[(aoff + row) >> 3] >> ((aoff + row) & 7) & 1 ? ZB_TZ_AMBIGUOUS_EARLIER
                                                                    : ZB_TZ_AMBIGUOUS_LATER;
        if (choice == ZB_TZ_AMBIGUOUS_RAISE) bad = BAD_AMBIGUOUS;
        else if (choice == ZB_TZ_AMBIGUOUS_NAT) null = true;
        else pick = (choice == ZB_TZ_AMBIGUOUS_EARLIER) == (a < b) ? a : b;
      } else if (vb) {
        pick = b;
      } else if (!va) { /* in a gap: the transition is the last one of the window */
        int64_t t = ir > 0 ? z->at[ir - 1] : s;
        switch (j->nonexistent) {
          case ZB_TZ_NONEXISTENT_RAISE: bad = BAD_NONEXISTENT; break;
          case ZB_TZ_NONEXISTENT_NAT: null = true; break;
          default: break;
        }
        if (bad == BAD_NONE && !null) {
          bool fwd = j->nonexistent == ZB_TZ_NONEXISTENT_SHIFT_FORWARD;
          if (__builtin_mul_overflow(t, per, &r)) bad = BAD_OVERFLOW;
          else if (!fwd) r -= 1;
          if (bad == BAD_NONE) {
            j->out[row] = r;
            continue;
          }
        }
      }
      if (null) {
        zb_bit_set(j->valid, row, false);
        j->out[row] = INT64_MIN;
        continue;
      }
      if (bad == BAD_NONE && __builtin_sub_overflow(x, (s - pick) * per, &r)) bad = BAD_OVERFLOW;
    }
    if (bad != BAD_NONE) {
      if (j->bad_row[task] < 0) {
        j->bad_row[task] = row;
        j->bad_kind[task] = bad;
      }
      r = 0;
    }
    j->out[row] = r;
  }
}

zb_status zb__cpu_tz(const zb_column *col, const zb_column *amb, int variant, const zb_tz *tz,
                     const char *name, int ambiguous, int nonexistent, zb_column **out,
                     zb_error *err) {
  *out = NULL;
  static const int64_t per_sec[4] = {1, 1000, 1000000, 1000000000};
  int64_t n = col->length, nm = zb__morsels(n);
  bool may_null = col->null_count > 0 ||
                  (variant == 1 && (ambiguous == ZB_TZ_AMBIGUOUS_NAT ||
                                    nonexistent == ZB_TZ_NONEXISTENT_NAT));
  zb_column *o = NULL;
  zb_status st = zb_column_new(ZB_TIMESTAMP, n, may_null, 0, &o, err);
  if (st == ZB_OK && col->null_count > 0)
    zb__bitmap_copy((uint8_t *)o->validity->data, 0, (const uint8_t *)col->validity->data,
                    col->offset, n);
  if (st == ZB_OK)
    st = zb_column_set_time(o, col->unit, variant == 1 ? name : NULL, err);
  tz_job j = {col, amb, tz, variant, ambiguous, nonexistent, per_sec[col->unit],
              NULL, NULL, NULL, NULL};
  if (st == ZB_OK) {
    j.out = (int64_t *)o->data->data;
    j.valid = may_null ? (uint8_t *)o->validity->data : NULL;
    j.bad_row = (int64_t *)zb_malloc((size_t)(nm > 0 ? nm : 1) * sizeof(int64_t));
    j.bad_kind = (int *)zb_malloc((size_t)(nm > 0 ? nm : 1) * sizeof(int));
    if (j.bad_row == NULL || j.bad_kind == NULL)
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory (time zone conversion)");
  }
  if (st == ZB_OK) st = zb_parallel_for(nm, tz_morsel, &j, err);
  for (int64_t m = 0; st == ZB_OK && m < nm; m++) {
    if (j.bad_row[m] < 0) continue;
    int64_t row = j.bad_row[m];
    int64_t days;
    int32_t sod, sub;
    zb__dt_split(((const int64_t *)col->data->data)[col->offset + row], j.per_sec, 0, &days,
                 &sod, &sub);
    int64_t y;
    unsigned mo, d;
    zb__civil_from_days(days, &y, &mo, &d);
    char when[64];
    snprintf(when, sizeof when, "%04lld-%02u-%02u %02d:%02d:%02d", (long long)y, mo, d,
             (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60));
    if (j.bad_kind[m] == BAD_AMBIGUOUS)
      st = zb_error_set(err, ZB_EINVAL,
                        "row %lld: %s is ambiguous in time zone '%s' (it occurs twice): "
                        "pass ambiguous='NaT', True/False or a bool array",
                        (long long)row, when, name);
    else if (j.bad_kind[m] == BAD_NONEXISTENT)
      st = zb_error_set(err, ZB_EINVAL,
                        "row %lld: %s does not exist in time zone '%s' (a clock change skips "
                        "it): pass nonexistent='NaT', 'shift_forward' or 'shift_backward'",
                        (long long)row, when, name);
    else
      st = zb_error_set(err, ZB_EOVERFLOW, "row %lld: the time zone offset overflows the "
                        "timestamp", (long long)row);
  }
  zb_free(j.bad_row);
  zb_free(j.bad_kind);
  if (st == ZB_OK && may_null) zb_column_recount_nulls(o);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}
