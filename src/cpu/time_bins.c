/*
 * time_bins.c -- the time bins of resample with a fixed span on the CPU
 * (ZB__OP_TIME_BINS: zb_column_time_range and zb_column_time_bins).
 *
 * Both are one morsel-parallel pass over the int64 ticks.  The range pass
 * keeps per morsel the count, smallest and largest non-null value, its
 * first and last, and whether they never decrease (without nulls: the
 * order is checked first, and a sorted morsel's range is its ends); the
 * morsels are then combined in order (sorted also needs each morsel's first value to be at
 * least the last value of the morsels before).
 *
 * The bins pass divides t * scale - base by the width only when a row
 * leaves the bin of the row before: the bin's [lo, hi) is kept, so sorted
 * times (the usual case: a time index) cost one division per bin, not per
 * row.  Runs (changes of bin between consecutive non-null rows) are counted
 * per morsel and joined at the morsel edges.
 */
#include "cpu/time_bins.h"
#include "cpu/kernels.h"

typedef struct range_part {
  int64_t valid, lo, hi, first, last;
  bool sorted;
} range_part;

typedef struct range_job {
  const zb_column *c;
  range_part *part;
} range_job;

static void range_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  range_job *j = (range_job *)ctx;
  const zb_column *c = j->c;
  const int64_t *v = (const int64_t *)c->data->data + c->offset;
  const int64_t start = task * ZB_MORSEL_ROWS;
  const int64_t end = ZB_MIN(start + (int64_t)ZB_MORSEL_ROWS, c->length);
  range_part p = {0, INT64_MAX, INT64_MIN, 0, INT64_MIN, true};
  if (c->validity == NULL) {
    /* order first (one compare a row, vectorized); sorted: the ends are
     * the range, else a second pass finds it */
    uint64_t down = 0;
    for (int64_t i = start + 1; i < end; i++) down |= (uint64_t)(v[i] < v[i - 1]);
    int64_t lo = v[start], hi = v[end - 1];
    if (down != 0)
      for (int64_t i = start; i < end; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
      }
    p = (range_part){end - start, lo, hi, v[start], v[end - 1], down == 0};
  } else {
    for (int64_t row = start; row < end; row += 64) {
      int m = (int)ZB_MIN((int64_t)64, end - row);
      uint64_t w = zb__valid_word(c, row, m);
      for (int q = 0; q < m; q++) {
        if (!((w >> q) & 1)) continue;
        int64_t x = v[row + q];
        if (p.valid == 0) p.first = x;
        else if (x < p.last) p.sorted = false;
        p.lo = x < p.lo ? x : p.lo;
        p.hi = x > p.hi ? x : p.hi;
        p.last = x;
        p.valid++;
      }
    }
  }
  j->part[task] = p;
}

zb_status zb__cpu_time_range(const zb_column *times, zb_time_range *out, zb_error *err) {
  const int64_t nm = zb__morsels(times->length);
  out->valid = out->lo = out->hi = 0;
  out->sorted = true;
  if (nm == 0) return ZB_OK;
  range_job j = {times, (range_part *)zb_malloc((size_t)nm * sizeof(range_part))};
  if (j.part == NULL)
    return zb_error_set(err, ZB_ENOMEM, "out of host memory in time_range (%lld rows)",
                        (long long)times->length);
  zb_status st = zb_parallel_for(nm, range_morsel, &j, err);
  int64_t last = INT64_MIN;
  for (int64_t m = 0; st == ZB_OK && m < nm; m++) {
    const range_part *p = &j.part[m];
    if (p->valid == 0) continue;
    if (out->valid == 0) {
      out->lo = p->lo;
      out->hi = p->hi;
    } else {
      out->lo = ZB_MIN(out->lo, p->lo);
      out->hi = ZB_MAX(out->hi, p->hi);
    }
    out->sorted = out->sorted && p->sorted && p->first >= last;
    last = p->last;
    out->valid += p->valid;
  }
  zb_free(j.part);
  return st;
}

typedef struct bins_job {
  const zb_column *c;
  int64_t scale, base, width, n_bins;
  int64_t *ids;
  uint8_t *bits;   /* the result's validity (NULL without nulls) */
  int64_t *first;  /* per morsel: the first non-null row's bin, or -1 */
  int64_t *last;   /* per morsel: the last one's */
  int64_t *runs;   /* per morsel: changes of bin inside it */
  int64_t *bad;    /* per morsel: the first row out of range, or -1 */
} bins_job;

/* The bin of tick x, or -1 when it lies outside [0, n_bins) (or the
 * arithmetic leaves int64); *lo / *hi / *cur cache the last bin found. */
static inline int64_t bin_of(const bins_job *j, int64_t x, int64_t *lo, int64_t *hi,
                             int64_t *cur) {
  int64_t d;
  if (j->scale == 1) {
    if (__builtin_sub_overflow(x, j->base, &d)) return -1;
  } else if (__builtin_mul_overflow(x, j->scale, &d) || __builtin_sub_overflow(d, j->base, &d)) {
    return -1;
  }
  if (d >= *lo && d < *hi) return *cur;
  if (d < 0) return -1;
  int64_t q = d / j->width;
  if (q >= j->n_bins) return -1;
  *cur = q;
  *lo = q * j->width;
  *hi = *lo > INT64_MAX - j->width ? INT64_MAX : *lo + j->width;
  return q;
}

static void bins_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  bins_job *j = (bins_job *)ctx;
  const zb_column *c = j->c;
  const int64_t *v = (const int64_t *)c->data->data + c->offset;
  const int64_t start = task * ZB_MORSEL_ROWS;
  const int64_t end = ZB_MIN(start + (int64_t)ZB_MORSEL_ROWS, c->length);
  int64_t lo = 0, hi = 0, cur = -1, prev = -1, first = -1, runs = 0;
  j->bad[task] = -1;
  for (int64_t row = start; row < end; row += 64) {
    int m = (int)ZB_MIN((int64_t)64, end - row);
    uint64_t w = zb__valid_word(c, row, m);
    for (int q = 0; q < m; q++) {
      if (!((w >> q) & 1)) {
        j->ids[row + q] = 0;
        continue;
      }
      int64_t b = bin_of(j, v[row + q], &lo, &hi, &cur);
      if (b < 0) {
        j->bad[task] = row + q;
        return;
      }
      j->ids[row + q] = b;
      if (first < 0) first = b;
      runs += prev >= 0 && b != prev;
      prev = b;
    }
    if (j->bits != NULL) zb__store_bits(j->bits, row, w, m);
  }
  j->first[task] = first;
  j->last[task] = prev;
  j->runs[task] = runs;
}

zb_status zb__cpu_time_bins(const zb_column *times, int64_t scale, int64_t base, int64_t width,
                            int64_t n_bins, zb_column **ids, int64_t *runs, zb_error *err) {
  *ids = NULL;
  *runs = 0;
  const int64_t n = times->length, nm = zb__morsels(n);
  const bool nulls = times->null_count > 0;
  zb_column *o = NULL;
  ZB_RETURN_NOT_OK(zb_column_new(ZB_INT64, n, nulls, 0, &o, err));
  bins_job j = {times, scale, base, width, n_bins, (int64_t *)o->data->data,
                nulls ? (uint8_t *)o->validity->data : NULL, NULL, NULL, NULL, NULL};
  int64_t *scratch = (int64_t *)zb_malloc((size_t)ZB_MAX(4 * nm, 1) * sizeof(int64_t));
  zb_status st = ZB_OK;
  if (scratch == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory in time_bins (%lld rows)",
                      (long long)n);
    goto done;
  }
  j.first = scratch;
  j.last = scratch + nm;
  j.runs = scratch + 2 * nm;
  j.bad = scratch + 3 * nm;
  st = zb_parallel_for(nm, bins_morsel, &j, err);
  if (st != ZB_OK) goto done;
  int64_t total = 0, prev = -1;
  for (int64_t m = 0; m < nm; m++) {
    if (j.bad[m] >= 0) {
      int64_t r = j.bad[m];
      st = zb_error_set(err, ZB_EINDEX, "time_bins: the time at row %lld (%lld) falls outside "
                        "the %lld bins", (long long)r,
                        (long long)((const int64_t *)times->data->data)[times->offset + r],
                        (long long)n_bins);
      goto done;
    }
    if (j.first[m] < 0) continue;
    total += j.runs[m] + (prev < 0 || j.first[m] != prev);
    prev = j.last[m];
  }
  if (nulls) zb_column_recount_nulls(o);
  *ids = o;
  *runs = total;
  o = NULL;
done:
  zb_column_release(o);
  zb_free(scratch);
  return st;
}
