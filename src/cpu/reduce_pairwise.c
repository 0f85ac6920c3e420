/*
 * reduce_pairwise.c -- float sums added in numpy's pairwise order, the
 * order pandas' sum, mean and var add in, so that zambezi's results are
 * pandas' to the last bit.
 *
 * numpy sums a contiguous run of n values as: fewer than 8, one by one
 * from 0; up to 128, eight running sums (value j into sum j mod 8), joined
 * as ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)), then the last
 * n mod 8 values one by one; more than 128, the sum of the first n2 values
 * plus the sum of the rest, n2 = n / 2 rounded down to a multiple of 8.
 * pandas replaces missing values (nulls, NaN) by 0 before it sums, so a
 * skipped row adds 0 in its place.  float32 columns add in float32 (as
 * numpy does for them); everything else in double.
 *
 * The tree is cut into subtrees of at most ZB_MORSEL_ROWS rows, summed in
 * parallel, and the subtrees' sums are joined up the same tree in one
 * thread: the result does not depend on the thread count.
 */
#include <math.h>
#include <string.h>

#include "cpu/kernels.h"

#define PW_BLOCK 128

typedef struct pw_job {
  const zb_column *col;
  zb_pairwise_mode mode;
  double center;
  const int64_t *lo, *n; /* each subtree's first row and row count */
  double *sums;
  int64_t *counts;
} pw_job;

static inline int64_t pw_split(int64_t n) {
  int64_t n2 = n / 2;
  return n2 - n2 % 8;
}

typedef double pw_v4d __attribute__((vector_size(32)));
typedef int64_t pw_v4l __attribute__((vector_size(32)));
typedef uint64_t pw_v4u __attribute__((vector_size(32)));

/* Source rows [row, row + m) as doubles: float64 rows in place, others
 * converted into buf (room for PW_BLOCK). */
static const double *pw_source(const pw_job *j, int64_t row, int64_t m, double *buf) {
  const zb_column *c = j->col;
  if (c->type == ZB_FLOAT64) return (const double *)c->data->data + c->offset + row;
  zb__convert_block(ZB_FLOAT64, buf, c->type, c->data->data, c->offset + row, m);
  return buf;
}

/* The term of row i (validity bits w: rows 0..63, 64..127) as numpy adds
 * it: the mode's term of a valid, non-NaN value, else 0. */
static inline double pw_term1(const double *x, const uint64_t *w, int64_t i, bool sq,
                              double ctr, int64_t *count) {
  bool ok = ((w[i >> 6] >> (i & 63)) & 1) && x[i] == x[i];
  *count += ok;
  double d = x[i] - ctr;
  return ok ? (sq ? d * d : x[i]) : 0.0;
}

/* The terms of rows i..i+3 (i a multiple of 4) in vector lanes, added
 * to *acc (or stored there: add false).  Vectors travel by pointer:
 * passing one by value would change the ABI between target clones. */
static inline __attribute__((always_inline)) void pw_term4(const double *x, const uint64_t *w,
                                                           int64_t i, bool sq,
                                                           const pw_v4d *ctr, pw_v4l *cnt,
                                                           pw_v4d *acc, bool add) {
  pw_v4d v;
  memcpy(&v, x + i, sizeof v);
  uint64_t word = w[i >> 6], b = (uint64_t)(i & 63);
  pw_v4u ws = {word, word, word, word};
  pw_v4l ok = -(pw_v4l)((ws >> (pw_v4u){b, b + 1, b + 2, b + 3}) & 1) & (v == v);
  pw_v4d d = v - *ctr;
  pw_v4d t = (pw_v4d)((pw_v4l)(sq ? d * d : v) & ok);
  *cnt -= ok;
  if (add)
    *acc += t;
  else
    *acc = t;
}

/* numpy's sum of one block of m <= PW_BLOCK rows in double, computing each
 * term as it is added: eight running sums are two vectors of four lanes,
 * lane for lane the same additions. */
ZB_CLONES static double pw_leaf(const pw_job *j, int64_t row, int64_t m, int64_t *count) {
  double buf[PW_BLOCK];
  const double *x = pw_source(j, row, m, buf);
  uint64_t w[2] = {zb__valid_word(j->col, row, (int)ZB_MIN((int64_t)64, m)), 0};
  if (m > 64) w[1] = zb__valid_word(j->col, row + 64, (int)(m - 64));
  const bool sq = j->mode == ZB_PAIRWISE_SQDEV;
  const double c1 = j->center;
  if (m < 8) {
    double res = 0;
    for (int64_t i = 0; i < m; i++) res += pw_term1(x, w, i, sq, c1, count);
    return res;
  }
  const pw_v4d ctr = {c1, c1, c1, c1};
  pw_v4l cnt = {0, 0, 0, 0};
  pw_v4d r0, r1;
  pw_term4(x, w, 0, sq, &ctr, &cnt, &r0, false);
  pw_term4(x, w, 4, sq, &ctr, &cnt, &r1, false);
  int64_t i = 8;
  for (; i < m - m % 8; i += 8) {
    pw_term4(x, w, i, sq, &ctr, &cnt, &r0, true);
    pw_term4(x, w, i + 4, sq, &ctr, &cnt, &r1, true);
  }
  double res = ((r0[0] + r0[1]) + (r0[2] + r0[3])) + ((r1[0] + r1[1]) + (r1[2] + r1[3]));
  for (; i < m; i++) res += pw_term1(x, w, i, sq, c1, count);
  *count += cnt[0] + cnt[1] + cnt[2] + cnt[3];
  return res;
}

/* numpy's sum of one block of m <= PW_BLOCK float32 rows, in float. */
static float pw_leaf_f32(const pw_job *j, int64_t row, int64_t m, int64_t *count) {
  double buf[PW_BLOCK];
  const double *x = pw_source(j, row, m, buf);
  uint64_t w[2] = {zb__valid_word(j->col, row, (int)ZB_MIN((int64_t)64, m)), 0};
  if (m > 64) w[1] = zb__valid_word(j->col, row + 64, (int)(m - 64));
  float a[PW_BLOCK];
  for (int64_t i = 0; i < m; i++) a[i] = (float)pw_term1(x, w, i, false, 0.0, count);
  if (m < 8) {
    float res = 0;
    for (int64_t i = 0; i < m; i++) res += a[i];
    return res;
  }
  float r[8];
  for (int k = 0; k < 8; k++) r[k] = a[k];
  int64_t i = 8;
  for (; i < m - m % 8; i += 8)
    for (int k = 0; k < 8; k++) r[k] += a[i + k];
  float res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
  for (; i < m; i++) res += a[i];
  return res;
}

/* numpy's pairwise sum of rows [row, row + n), in double or (f32) float. */
static double pw_rows(const pw_job *j, int64_t row, int64_t n, bool f32, int64_t *count) {
  if (n > PW_BLOCK) {
    int64_t n2 = pw_split(n);
    if (f32) {
      float a = (float)pw_rows(j, row, n2, true, count);
      float b = (float)pw_rows(j, row + n2, n - n2, true, count);
      return (double)(a + b);
    }
    double a = pw_rows(j, row, n2, false, count);
    return a + pw_rows(j, row + n2, n - n2, false, count);
  }
  return f32 ? (double)pw_leaf_f32(j, row, n, count) : pw_leaf(j, row, n, count);
}

double zb__pairwise_rows(const zb_column *col, int64_t row, int64_t n, bool f32) {
  pw_job j = {col, ZB_PAIRWISE_SUM, 0.0, NULL, NULL, NULL, NULL};
  int64_t count = 0;
  return pw_rows(&j, row, n, f32, &count);
}

static bool pw_f32(const pw_job *j) {
  return j->mode == ZB_PAIRWISE_SUM && j->col->type == ZB_FLOAT32;
}

static void pw_task(void *ctx, int64_t task, int worker) {
  (void)worker;
  pw_job *j = (pw_job *)ctx;
  int64_t count = 0;
  j->sums[task] = pw_rows(j, j->lo[task], j->n[task], pw_f32(j), &count);
  j->counts[task] = count;
}

/* The subtrees of at most ZB_MORSEL_ROWS rows, in row order (k counts). */
static void pw_plan(int64_t row, int64_t n, int64_t *lo, int64_t *len, int64_t *k) {
  if (n <= ZB_MORSEL_ROWS || n <= PW_BLOCK) {
    lo[*k] = row;
    len[*k] = n;
    (*k)++;
    return;
  }
  int64_t n2 = pw_split(n);
  pw_plan(row, n2, lo, len, k);
  pw_plan(row + n2, n - n2, lo, len, k);
}

/* The subtrees' sums joined up the tree pw_plan cut. */
static double pw_join(const double *sums, int64_t n, bool f32, int64_t *k) {
  if (n <= ZB_MORSEL_ROWS || n <= PW_BLOCK) return sums[(*k)++];
  int64_t n2 = pw_split(n);
  double a = pw_join(sums, n2, f32, k);
  double b = pw_join(sums, n - n2, f32, k);
  return f32 ? (double)((float)a + (float)b) : a + b;
}

zb_status zb__cpu_pairwise_sum(const zb_column *col, zb_pairwise_mode mode, double center,
                               double *sum, int64_t *count, zb_error *err) {
  *sum = 0.0;
  *count = 0;
  int64_t n = col->length;
  if (n == 0) return ZB_OK;
  int64_t cap = 2 * (n / ZB_MORSEL_ROWS) + 2;
  int64_t *lo = (int64_t *)zb_malloc((size_t)cap * 2 * sizeof(int64_t));
  double *sums = (double *)zb_malloc((size_t)cap * sizeof(double));
  int64_t *counts = (int64_t *)zb_malloc((size_t)cap * sizeof(int64_t));
  if (lo == NULL || sums == NULL || counts == NULL) {
    zb_free(lo);
    zb_free(sums);
    zb_free(counts);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (%lld partial sums)",
                        (long long)cap);
  }
  int64_t tasks = 0;
  pw_plan(0, n, lo, lo + cap, &tasks);
  pw_job j = {col, mode, center, lo, lo + cap, sums, counts};
  zb_status st = zb_parallel_for(tasks, pw_task, &j, err);
  if (st == ZB_OK) {
    int64_t k = 0;
    *sum = pw_join(sums, n, pw_f32(&j), &k);
    for (int64_t t = 0; t < tasks; t++) *count += counts[t];
  }
  zb_free(lo);
  zb_free(sums);
  zb_free(counts);
  return st;
}
