/*
 * fill_scan.c -- pandas' ffill / bfill on the CPU (ZB__OP_FILL_SCAN, the
 * kernel behind zb_column_fill_forward / zb_column_fill_backward).
 *
 * A missing row (a null, or a NaN in a float column) takes the value of the
 * nearest valid row before it (forward) or after it (backward).  The work
 * is a scan of "the nearest valid position", done morsel by morsel on the
 * thread pool, and one take:
 *
 *   1. each morsel finds its first and last valid row and counts its
 *      missing rows (in parallel);
 *   2. a carry runs over the morsels in order: the nearest valid row
 *      before (forward) or after (backward) each morsel, and the column's
 *      last (first) valid row, which limit_area needs;
 *   3. each morsel writes, for each of its rows, the position whose value
 *      the row gets: its own for a valid row or a row left unfilled, else
 *      the carried valid row (in parallel);
 *   4. zb__cpu_take gathers those positions, so every type (strings,
 *      categoricals, timestamps ...) works alike; an unfilled row gathers
 *      itself and stays null (or NaN).
 *
 * A column with nothing missing is returned as it is (columns are
 * immutable).  Validity is read 64 rows at a time; the float NaN test is
 * the only per-type code, chosen once per column, outside the row loops.
 */
#include "cpu/kernels.h"

/* How a row's validity is read: the bitmap only, or also v == v. */
enum { VALID_BITS = 0, VALID_F32, VALID_F64 };

typedef struct scan_job {
  const zb_column *c;
  int kind;
  bool backward;
  int64_t limit;
  int64_t lo, hi;  /* rows a fill may write: [lo, hi) (limit_area) */
  int64_t *first;  /* per morsel: first valid row (n: none) */
  int64_t *last;   /* per morsel: last valid row (-1: none) */
  int64_t *missing;
  int64_t *carry;  /* per morsel: the nearest valid row before it (forward,
                    * -1: none) or after it (backward, n: none) */
  int64_t *pos;    /* the take positions, one per row */
} scan_job;

/* Bits of rows [row, row + m) that are valid: not null and, for floats,
 * not NaN (bit q is row + q). */
static inline uint64_t valid_word(const scan_job *j, int64_t row, int m) {
  const zb_column *c = j->c;
  uint64_t w = zb__valid_word(c, row, m);
  if (j->kind == VALID_BITS) return w;
  uint8_t ok[64];
  if (j->kind == VALID_F32) {
    const float *v = (const float *)c->data->data + c->offset + row;
    for (int q = 0; q < m; q++) ok[q] = v[q] == v[q];
  } else {
    const double *v = (const double *)c->data->data + c->offset + row;
    for (int q = 0; q < m; q++) ok[q] = v[q] == v[q];
  }
  return w & zb__pack_bools(ok, m);
}

/* Step 1: the morsel's first and last valid rows and its missing count. */
static void scan_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  scan_job *j = (scan_job *)ctx;
  const int64_t n = j->c->length, start = task * ZB_MORSEL_ROWS;
  const int64_t end = ZB_MIN(start + (int64_t)ZB_MORSEL_ROWS, n);
  int64_t first = n, last = -1, missing = 0;
  for (int64_t row = start; row < end; row += 64) {
    int m = (int)ZB_MIN((int64_t)64, end - row);
    uint64_t w = valid_word(j, row, m);
    missing += m - __builtin_popcountll(w);
    if (w == 0) continue;
    if (first == n) first = row + __builtin_ctzll(w);
    last = row + 63 - __builtin_clzll(w);
  }
  j->first[task] = first;
  j->last[task] = last;
  j->missing[task] = missing;
}

/* Step 3: the take position of each row of the morsel. */
static void position_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  scan_job *j = (scan_job *)ctx;
  const int64_t n = j->c->length, start = task * ZB_MORSEL_ROWS;
  const int64_t end = ZB_MIN(start + (int64_t)ZB_MORSEL_ROWS, n);
  const int64_t limit = j->limit, lo = j->lo, hi = j->hi;
  int64_t *pos = j->pos;
  int64_t p = j->carry[task];
  if (!j->backward) {
    for (int64_t row = start; row < end; row += 64) {
      int m = (int)ZB_MIN((int64_t)64, end - row);
      uint64_t w = valid_word(j, row, m);
      if (w == zb__mask(m)) { /* all valid: each row keeps its value */
        for (int q = 0; q < m; q++) pos[row + q] = row + q;
        p = row + m - 1;
        continue;
      }
      for (int q = 0; q < m; q++) {
        int64_t i = row + q;
        bool valid = (w >> q) & 1;
        p = valid ? i : p;
        bool fill = p >= 0 && i - p <= limit && i >= lo && i < hi;
        pos[i] = fill ? p : i;
      }
    }
    return;
  }
  /* backward: the morsel's words from the last, each from its last row */
  int64_t words = (end - start + 63) / 64;
  for (int64_t k = words - 1; k >= 0; k--) {
    int64_t row = start + k * 64;
    int m = (int)ZB_MIN((int64_t)64, end - row);
    uint64_t w = valid_word(j, row, m);
    if (w == zb__mask(m)) {
      for (int q = 0; q < m; q++) pos[row + q] = row + q;
      p = row;
      continue;
    }
    for (int q = m - 1; q >= 0; q--) {
      int64_t i = row + q;
      bool valid = (w >> q) & 1;
      p = valid ? i : p;
      bool fill = p < n && p - i <= limit && i >= lo && i < hi;
      pos[i] = fill ? p : i;
    }
  }
}

zb_status zb__cpu_fill_scan(const zb_column *col, bool backward, int64_t limit,
                            zb_fill_area area, zb_column **out, zb_error *err) {
  *out = NULL;
  const int64_t n = col->length;
  scan_job j = {.c = col, .backward = backward, .limit = limit};
  j.kind = col->type == ZB_FLOAT32 ? VALID_F32 : col->type == ZB_FLOAT64 ? VALID_F64 : VALID_BITS;
  bool nulls = col->validity != NULL && col->null_count > 0;
  if (n == 0 || limit == 0 || (!nulls && j.kind == VALID_BITS)) {
    *out = zb_column_retain((zb_column *)col);
    return ZB_OK;
  }
  const int64_t M = zb__morsels(n);
  int64_t *per = (int64_t *)zb_calloc((size_t)M * 4, sizeof(int64_t));
  if (per == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (%s)",
                                       backward ? "bfill" : "ffill");
  j.first = per;
  j.last = per + M;
  j.missing = per + 2 * M;
  j.carry = per + 3 * M;
  zb_column *idx = NULL;
  zb_status st = zb_parallel_for(M, scan_morsel, &j, err);
  int64_t missing = 0;
  for (int64_t m = 0; m < M && st == ZB_OK; m++) missing += j.missing[m];
  if (st != ZB_OK || missing == 0) {
    zb_free(per);
    if (st == ZB_OK) *out = zb_column_retain((zb_column *)col);
    return st;
  }
  /* step 2: the carries, and the edge limit_area measures from (forward:
   * the last valid row of the column; backward: the first) */
  int64_t edge;
  if (!backward) {
    int64_t p = -1;
    for (int64_t m = 0; m < M; m++) {
      j.carry[m] = p;
      if (j.last[m] >= 0) p = j.last[m];
    }
    edge = p;
    /* inside: rows before the last valid one; outside: rows after it */
    j.lo = area == ZB_FILL_OUTSIDE ? edge + 1 : 0;
    j.hi = area == ZB_FILL_INSIDE ? edge : n;
  } else {
    int64_t p = n;
    for (int64_t m = M - 1; m >= 0; m--) {
      j.carry[m] = p;
      if (j.first[m] < n) p = j.first[m];
    }
    edge = p;
    /* inside: rows after the first valid one; outside: rows before it */
    j.lo = area == ZB_FILL_INSIDE ? edge + 1 : 0;
    j.hi = area == ZB_FILL_OUTSIDE ? edge : n;
  }
  st = zb_column_new(ZB_INT64, n, false, 0, &idx, err);
  if (st == ZB_OK) {
    j.pos = (int64_t *)idx->data->data;
    st = zb_parallel_for(M, position_morsel, &j, err);
  }
  zb_free(per);
  if (st == ZB_OK) st = zb__cpu_take(col, idx, out, err);
  zb_column_release(idx);
  return st;
}
