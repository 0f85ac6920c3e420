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
 *
 * ambiguous "infer" (pandas' _get_dst_hours): the morsels write each
 * ambiguous row's earlier instant, flag the row and keep the gap to its
 * later one; then one pass over the flags takes each run of adjacent
 * flagged rows: its earlier instants must fall back exactly once (one row
 * not after its predecessor), and the rows from there on take the later
 * instant.  A run of one row, one that never falls back or one that falls
 * back twice cannot be inferred: an error naming its first row, as pandas
 * raises before looking at any other row.
 */
#include <stdio.h>
#include <string.h>

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
  uint8_t *infer;   /* "infer": 1 on ambiguous rows, else 0 (else NULL) */
  int32_t *gap_s;   /* "infer": later - earlier instant of them, seconds */
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
  if (j->infer != NULL) memset(j->infer + start, 0, (size_t)n);
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
        if (choice == ZB_TZ_AMBIGUOUS_INFER) { /* the earlier now; the run pass decides */
          j->infer[row] = 1;
          j->gap_s[row] = (int32_t)(ol - or_);
          pick = a < b ? a : b;
        } else if (choice == ZB_TZ_AMBIGUOUS_RAISE) bad = BAD_AMBIGUOUS;
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

/* "YYYY-MM-DD HH:MM:SS" of wall value x (per ticks a second), for messages. */
static void wall_text(int64_t x, int64_t per, char *buf, size_t size) {
  int64_t days, y;
  int32_t sod, sub;
  unsigned mo, d;
  zb__dt_split(x, per, 0, &days, &sod, &sub);
  zb__civil_from_days(days, &y, &mo, &d);
  snprintf(buf, size, "%04lld-%02u-%02u %02d:%02d:%02d", (long long)y, mo, d,
           (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60));
}

/* ambiguous "infer": each run of adjacent ambiguous rows (flags) falls
 * back exactly once in its earlier instants (out); the rows from the
 * fall-back on move to their later instant (gap_s).  Serial: a run can
 * span morsels.  On failure the error names the run's first row. */
static zb_status infer_runs(const zb_column *col, const char *name, int64_t per,
                            const uint8_t *flags, const int32_t *gap_s, int64_t *out,
                            zb_error *err) {
  int64_t n = col->length, total = 0;
  const int64_t *v = (const int64_t *)col->data->data + col->offset;
  for (int64_t i = 0, check = 0; i < n;) {
    if (i >= check) { /* a serial pass: Ctrl-C every morsel's worth of rows */
      if (zb_cancel_requested()) return zb_error_set(err, ZB_ECANCEL, "tz_localize: interrupted");
      check = i + ZB_MORSEL_ROWS;
    }
    const uint8_t *hit = flags[i] ? flags + i : memchr(flags + i, 1, (size_t)(n - i));
    if (hit == NULL) break;
    int64_t first = hit - flags, end = first;
    while (end < n && flags[end]) end++;
    total += end - first;
    int64_t falls = 0, at = -1;
    for (int64_t r = first + 1; r < end; r++)
      if (out[r] <= out[r - 1]) {
        if (falls++ == 0) at = r;
      }
    if (end - first == 1 || falls != 1) {
      char when[64];
      wall_text(v[first], per, when, sizeof when);
      bool alone = end - first == 1 && total == 1 &&
                   memchr(flags + end, 1, (size_t)(n - end)) == NULL;
      if (falls > 1)
        return zb_error_set(err, ZB_EINVAL,
                            "row %lld: cannot infer DST in time zone '%s': the ambiguous wall "
                            "times from %s fall back %lld times where a clock change repeats "
                            "them once; pass ambiguous='NaT', True/False or a bool array",
                            (long long)first, name, when, (long long)falls);
      return zb_error_set(err, ZB_EINVAL,
                          "row %lld: cannot infer DST for %s in time zone '%s': %s; pass "
                          "ambiguous='NaT', True/False or a bool array",
                          (long long)first, when, name,
                          alone ? "it is the only ambiguous time, with no repeat to go by"
                                : "its ambiguous wall times are not repeated");
    }
    for (int64_t r = at; r < end; r++) out[r] += (int64_t)gap_s[r] * per;
    i = end;
  }
  return ZB_OK;
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
              NULL, NULL, NULL, NULL, NULL, NULL};
  bool infer = variant == 1 && ambiguous == ZB_TZ_AMBIGUOUS_INFER;
  if (st == ZB_OK) {
    j.out = (int64_t *)o->data->data;
    j.valid = may_null ? (uint8_t *)o->validity->data : NULL;
    j.bad_row = (int64_t *)zb_malloc((size_t)(nm > 0 ? nm : 1) * sizeof(int64_t));
    j.bad_kind = (int *)zb_malloc((size_t)(nm > 0 ? nm : 1) * sizeof(int));
    if (infer) {
      j.infer = (uint8_t *)zb_malloc((size_t)(n > 0 ? n : 1));
      j.gap_s = (int32_t *)zb_malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
    }
    if (j.bad_row == NULL || j.bad_kind == NULL || (infer && (j.infer == NULL || j.gap_s == NULL)))
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory (time zone conversion)");
  }
  if (st == ZB_OK) st = zb_parallel_for(nm, tz_morsel, &j, err);
  /* pandas infers before it looks for nonexistent times: its errors come first */
  if (st == ZB_OK && infer) st = infer_runs(col, name, j.per_sec, j.infer, j.gap_s, j.out, err);
  for (int64_t m = 0; st == ZB_OK && m < nm; m++) {
    if (j.bad_row[m] < 0) continue;
    int64_t row = j.bad_row[m];
    char when[64];
    wall_text(((const int64_t *)col->data->data)[col->offset + row], j.per_sec, when,
              sizeof when);
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
  zb_free(j.infer);
  zb_free(j.gap_s);
  if (st == ZB_OK && may_null) zb_column_recount_nulls(o);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}
