/*
 * corr.c -- the correlation or covariance matrix of float64 columns on the
 * CPU (ZB__OP_CORR_MATRIX: zb_table_corr, DataFrame.corr / cov).
 *
 * pandas' nancorr (algos.pyx) step for step, so that the digits are
 * pandas': per pair of columns, Welford's updates in row order over the
 * rows where both values are valid and finite (mean += 1 / n * d; the
 * sums of squares and the co-moment from the new mean), then the
 * co-moment over sqrt(ssx * ssy), clipped to [-1, 1], or over n - ddof.
 * A column correlates with itself to exactly 1: its co-moment and its sum
 * of squares are the same operations, and sqrt(s * s) is s.
 *
 * Each update depends on the one before (a chain of a subtraction, a
 * multiply and an add per row), so one pair runs at the chain's latency.
 * A task takes one column x and up to LANES columns y and runs their
 * chains side by side over the same rows (x read once, its own chain run
 * once where no value is missing); tasks run in parallel.  Rows where some column of the task has a missing value take
 * the branchy loop; tasks over columns with none take a loop without tests
 * (pandas' own no-NaN loop, the same arithmetic: n is the row number).
 */
#include <math.h>
#include <string.h>

#include "cpu/hash.h"
#include "cpu/kernels.h"

#define LANES 4

typedef struct corr_job {
  const zb_table *t;
  int64_t k, n, min_periods, ddof;
  bool cov;
  const uint8_t *clean; /* per column: no null, every value finite */
  const int64_t *task_x, *task_y; /* each task: column x, first column y */
  double *out;
} corr_job;

static inline const double *values_of(const zb_column *c) {
  return (const double *)c->data->data + c->offset;
}

static inline bool ok_at(const zb_column *c, const double *v, int64_t i) {
  return isfinite(v[i]) && zb_column_is_valid(c, i);
}

typedef struct welford {
  double ssx[LANES], ssy[LANES], cxy[LANES]; /* what finish() needs */
  int64_t nobs[LANES];
} welford;

/* Rows where every value of the task is present: x's own chain (its mean
 * and sum of squares: the same in every lane) once per row, then each
 * lane's; pandas' arithmetic, n the row number. */
static void lanes_clean(const double *x, const double *const *y, int m, int64_t n, welford *w) {
  double mx = 0, ssx = 0;
  double my[LANES] = {0}, ssy[LANES] = {0}, cxy[LANES] = {0};
  const double *y0 = y[0], *y1 = m > 1 ? y[1] : y[0], *y2 = m > 2 ? y[2] : y[0],
               *y3 = m > 3 ? y[3] : y[0];
#define ZB__LANE(l, yl)                  \
  do {                                   \
    const double vy = (yl)[i];           \
    const double dy = vy - my[l];        \
    my[l] += r * dy;                     \
    ssy[l] += (vy - my[l]) * dy;         \
    cxy[l] += ex * dy;                   \
  } while (0)
  for (int64_t i = 0; i < n; i++) {
    const double vx = x[i], r = 1. / (double)(i + 1);
    const double dx = vx - mx;
    mx += r * dx;
    const double ex = vx - mx;
    ssx += ex * dx;
    /* lanes past m repeat lane 0's column: computed, not kept */
    ZB__LANE(0, y0);
    ZB__LANE(1, y1);
    ZB__LANE(2, y2);
    ZB__LANE(3, y3);
  }
#undef ZB__LANE
  for (int l = 0; l < m; l++) {
    w->ssx[l] = ssx;
    w->ssy[l] = ssy[l];
    w->cxy[l] = cxy[l];
    w->nobs[l] = n;
  }
}

/* Rows with missing values: each lane counts its own rows (both values
 * present), so every lane runs x's chain too. */
static void lanes_masked(const zb_column *cx, const double *x, const zb_column *const *cy,
                         const double *const *y, int m, int64_t n, welford *w) {
  double mx[LANES] = {0}, my[LANES] = {0}, ssx[LANES] = {0}, ssy[LANES] = {0},
         cxy[LANES] = {0};
  int64_t nobs[LANES] = {0};
  const zb_column *c1 = m > 1 ? cy[1] : cy[0], *c2 = m > 2 ? cy[2] : cy[0],
                  *c3 = m > 3 ? cy[3] : cy[0];
  const double *y1 = m > 1 ? y[1] : y[0], *y2 = m > 2 ? y[2] : y[0], *y3 = m > 3 ? y[3] : y[0];
#define ZB__LANE(l, cl, yl)                    \
  do {                                         \
    if ((l) < m && ok_at((cl), (yl), i)) {     \
      const double vy = (yl)[i];               \
      const double r = 1. / (double)++nobs[l]; \
      const double dx = vx - mx[l];            \
      const double dy = vy - my[l];            \
      mx[l] += r * dx;                         \
      my[l] += r * dy;                         \
      const double ex = vx - mx[l];            \
      ssx[l] += ex * dx;                       \
      ssy[l] += (vy - my[l]) * dy;             \
      cxy[l] += ex * dy;                       \
    }                                          \
  } while (0)
  for (int64_t i = 0; i < n; i++) {
    if (!ok_at(cx, x, i)) continue;
    const double vx = x[i];
    ZB__LANE(0, cy[0], y[0]);
    ZB__LANE(1, c1, y1);
    ZB__LANE(2, c2, y2);
    ZB__LANE(3, c3, y3);
  }
#undef ZB__LANE
  for (int l = 0; l < m; l++) {
    w->ssx[l] = ssx[l];
    w->ssy[l] = ssy[l];
    w->cxy[l] = cxy[l];
    w->nobs[l] = nobs[l];
  }
}

static double finish(const corr_job *j, const welford *w, int l) {
  if (w->nobs[l] < j->min_periods) return NAN;
  if (j->cov) {
    const double divisor = (double)w->nobs[l] - (double)j->ddof;
    return divisor > 0 ? w->cxy[l] / divisor : NAN;
  }
  const double divisor = sqrt(w->ssx[l] * w->ssy[l]);
  if (divisor == 0) return NAN;
  const double v = w->cxy[l] / divisor;
  return v > 1.0 ? 1.0 : v < -1.0 ? -1.0 : v;
}

static void corr_task(void *ctx, int64_t task, int worker) {
  (void)worker;
  const corr_job *j = (const corr_job *)ctx;
  const int64_t xi = j->task_x[task], y0 = j->task_y[task];
  const int m = (int)ZB_MIN((int64_t)LANES, xi + 1 - y0);
  const zb_column *cx = j->t->columns[xi];
  const zb_column *cy[LANES];
  const double *y[LANES];
  bool clean = j->clean[xi];
  for (int l = 0; l < m; l++) {
    cy[l] = j->t->columns[y0 + l];
    y[l] = values_of(cy[l]);
    clean = clean && j->clean[y0 + l];
  }
  welford w;
  memset(&w, 0, sizeof w);
  if (clean)
    lanes_clean(values_of(cx), y, m, j->n, &w);
  else
    lanes_masked(cx, values_of(cx), cy, y, m, j->n, &w);
  for (int l = 0; l < m; l++) {
    const int64_t yi = y0 + l;
    j->out[xi * j->k + yi] = j->out[yi * j->k + xi] = finish(j, &w, l);
  }
}

static void clean_task(void *ctx, int64_t c, int worker) {
  (void)worker;
  corr_job *j = (corr_job *)ctx;
  const zb_column *col = j->t->columns[c];
  const double *v = values_of(col);
  bool ok = col->null_count == 0;
  for (int64_t i = 0; ok && i < j->n; i += 4096) {
    const int64_t e = ZB_MIN(j->n, i + 4096);
    double acc = 0; /* x - x is 0 for finite x, NaN for NaN and +-inf */
    for (int64_t r = i; r < e; r++) acc += v[r] - v[r];
    ok = acc == 0;
  }
  ((uint8_t *)j->clean)[c] = ok;
}

zb_status zb__cpu_corr_matrix(const zb_table *t, int64_t min_periods, int64_t ddof, bool cov,
                              double *out, zb_error *err) {
  const int64_t k = t->num_columns;
  int64_t n_tasks = 0;
  for (int64_t xi = 0; xi < k; xi++) n_tasks += (xi + LANES) / LANES;
  uint8_t *clean = (uint8_t *)zb_malloc((size_t)k);
  int64_t *tx = (int64_t *)zb_malloc((size_t)n_tasks * sizeof(int64_t));
  int64_t *ty = (int64_t *)zb_malloc((size_t)n_tasks * sizeof(int64_t));
  zb_status st = ZB_OK;
  if (clean == NULL || tx == NULL || ty == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (%s of %lld columns)",
                      cov ? "cov" : "corr", (long long)k);
  } else {
    for (int64_t xi = 0, task = 0; xi < k; xi++)
      for (int64_t y0 = 0; y0 <= xi; y0 += LANES, task++) {
        tx[task] = xi;
        ty[task] = y0;
      }
    corr_job j = {.t = t, .k = k, .n = t->num_rows, .min_periods = min_periods, .ddof = ddof,
                  .cov = cov, .clean = clean, .task_x = tx, .task_y = ty, .out = out};
    st = zb_parallel_for(k, clean_task, &j, err);
    if (st == ZB_OK) st = zb_parallel_for(n_tasks, corr_task, &j, err);
  }
  zb_free(clean);
  zb_free(tx);
  zb_free(ty);
  return st;
}
