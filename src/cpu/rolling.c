/*
 * rolling.c -- pandas' moving-window statistics on the CPU (ZB__OP_ROLLING,
 * the kernel behind zb_column_rolling and zb_column_group_rolling).
 *
 * Every statistic walks a sequence of rows -- the whole column, or the rows
 * of one group in row order (the group-by CSR) -- and keeps the state of
 * the current window as rows enter at its end and leave at its start, so a
 * row costs O(1) (O(log n) for median / quantile) whatever the window:
 *
 *   count, sum, mean   running count and Kahan-compensated sum, one
 *                      compensation for adding and one for removing,
 *                      as pandas; a run of equal values gives exact
 *                      results (pandas' num_consecutive_same_value);
 *   var, std           Welford's mean and sum of squared deviations,
 *                      added and removed with compensation, as pandas;
 *                      a removal that cancels most digits (a large value
 *                      leaving) makes the window be summed again, as
 *                      pandas 3 does; over a whole column with fixed
 *                      windows, a present value leaving as another
 *                      enters is one fused update (roll_var_column);
 *   skew, kurt         Welford's central moments M2..M4 (Pebay's update
 *                      formulas, run backwards to remove a value) of the
 *                      values less an anchor (a value of the window); the
 *                      state is rebuilt from the window's values, about a
 *                      new anchor, each time the window has turned over
 *                      or lost digits, so removal errors cannot pile up;
 *   cov, corr          of two columns, over the rows where both have a
 *                      value: Welford's co-moment of the pairs (less an
 *                      anchor pair) with each side's sum of squares,
 *                      added and removed as pairs enter and leave, summed
 *                      again about a new anchor when the window has turned
 *                      over or a sum of squares fell far below its peak;
 *   min, max           a monotonic deque of the window's candidates;
 *   median, quantile   windows of up to 512 rows: the window's values in a
 *                      sorted buffer; longer ones: the values ranked once
 *                      (one sort of the sequence), a Fenwick tree of the
 *                      ranks present: add and remove update it, the k-th
 *                      value is a descent.
 *
 * A missing value (null, or NaN) is left out of the window's values; so is
 * +-inf in every statistic but count, as pandas (its window functions see
 * infinities as NaN; count counts them): seq_val maps them to NaN as it
 * reads, no extra pass over the column, by the rule every window kernel
 * shares (core/window_values.h).
 *
 * The window of sequence position k: with off = center ? (window-1)/2 : 0,
 * it ends (exclusive) at min(k + 1 + off, L) and starts at
 * max(k + 1 + off - window, 0) -- pandas' FixedWindowIndexer.  Both ends
 * only move forward, so a task that owns positions [lo, hi) starts with an
 * empty state at the window start of lo ("warming up" over up to window
 * rows before lo) and is then independent of every other task: the whole
 * column runs as morsels of ZB_MORSEL_ROWS on the thread pool (one task
 * when the window is longer than a morsel), groups as the CSR's buckets.
 * Results never depend on the thread count.
 *
 * Time-based windows come as explicit bounds (starts[i], ends[i]), both
 * non-decreasing, with window the longest one's rows: the same loop.
 *
 * The op is chosen once per sequence (one function per statistic with its
 * own loop): no per-row switch.
 */
#include <math.h>
#include <stdlib.h>

#include "core/window_values.h"
#include "cpu/groupby.h"
#include "cpu/kernels.h"

typedef struct roll_job {
  const zb_column *c;
  const double *v;
  const zb_column *c2; /* cov, corr: the column paired with c */
  const double *v2;
  zb_roll_op op;
  zb_rolling_options opt;
  int64_t off; /* rows of the window after its row (center) */
  double *out;
  uint8_t *okb; /* per row: the result is valid */
  int64_t n, task_rows;
  const int64_t *starts, *ends; /* explicit windows (time-based), or NULL */
  const zb__group_csr *csr;
  bool keep_inf; /* count: +-inf is a value; other statistics: missing */
  volatile int failed; /* a task could not allocate its scratch */
} roll_job;

/* One sequence: positions 0..L-1 are rows rows[p] (base + p when rows is
 * NULL); results for positions [lo, hi). */
typedef struct roll_seq {
  const roll_job *j;
  const int64_t *rows;
  int64_t L, lo, hi;
  int64_t base; /* rows NULL: position p is row base + p */
} roll_seq;

static inline int64_t seq_row(const roll_seq *q, int64_t p) {
  return q->rows != NULL ? q->rows[p] : q->base + p;
}

/* x as the statistic sees it: the window rule (zb__window_value), except
 * that count (keep_inf) counts +-inf. */
static inline double inf_missing(double x, bool keep_inf) {
  return keep_inf ? x : zb__window_value(x);
}

static inline double seq_val(const roll_seq *q, int64_t p) {
  int64_t r = seq_row(q, p);
  return zb_column_is_valid(q->j->c, r) ? inf_missing(q->j->v[r], q->j->keep_inf) : NAN;
}

static inline void seq_emit(const roll_seq *q, int64_t k, double x, bool ok) {
  int64_t r = seq_row(q, k);
  q->j->out[r] = ok ? x : 0.0;
  q->j->okb[r] = ok;
}

/* The window of position k: [*s, *e). */
static inline void seq_bounds(const roll_seq *q, int64_t k, int64_t *s, int64_t *e) {
  if (q->j->starts != NULL) { /* the whole column, windows given */
    *s = q->j->starts[k];
    *e = q->j->ends[k];
    return;
  }
  int64_t eu = k + 1 + q->j->off;
  *e = eu < q->L ? eu : q->L;
  int64_t su = eu - q->j->opt.window;
  *s = su > 0 ? su : 0;
}

/* The loop every statistic shares: for each position k in [lo, hi), the
 * values leaving the window go through REMOVE and those entering through
 * ADD (x holds the value, p its position; missing values are skipped),
 * then the last argument writes the result for k (s, e: the window).
 * Only rows that entered are removed: a window of 0 rows stays empty. */
#define ROLL_LOOP(q, ADD, REMOVE, ...)                                \
  do {                                                                \
    int64_t ps_, pe_;                                                 \
    seq_bounds(q, (q)->lo, &ps_, &pe_);                               \
    pe_ = ps_;                                                        \
    for (int64_t k = (q)->lo; k < (q)->hi; k++) {                     \
      int64_t s, e;                                                   \
      seq_bounds(q, k, &s, &e);                                       \
      for (int64_t p = ps_; p < ZB_MIN(s, pe_); p++) {                \
        double x = seq_val(q, p);                                     \
        if (x == x) { REMOVE; }                                       \
      }                                                               \
      if (pe_ < s) pe_ = s; /* an empty window (window 0) */          \
      for (int64_t p = pe_; p < e; p++) {                             \
        double x = seq_val(q, p);                                     \
        if (x == x) { ADD; }                                          \
      }                                                               \
      ps_ = s;                                                        \
      pe_ = e;                                                        \
      (void)ps_;                                                      \
      __VA_ARGS__;                                                    \
    }                                                                 \
  } while (0)

/* Kahan-compensated x added to *sum. */
static inline void kahan_add(double x, double *sum, double *comp) {
  double y = x - *comp;
  double t = *sum + y;
  *comp = t - *sum - y;
  *sum = t;
}

/* ------------------------------------------------------------------------ */
/* count, sum, mean                                                          */

static void roll_sum(const roll_seq *q) {
  const int64_t minp = q->j->opt.min_periods;
  const zb_roll_op op = q->j->op;
  int64_t nobs = 0, neg = 0, same = 0;
  double sum = 0, cadd = 0, crem = 0, prev = NAN;
  ROLL_LOOP(
      q,
      {
        nobs++;
        kahan_add(x, &sum, &cadd);
        neg += signbit(x) != 0;
        same = x == prev ? same + 1 : 1;
        prev = x;
      },
      {
        nobs--;
        kahan_add(-x, &sum, &crem);
        neg -= signbit(x) != 0;
        if (nobs == 0) sum = cadd = crem = 0;
      },
      {
        if (op == ZB_ROLL_COUNT) {
          seq_emit(q, k, (double)nobs, e - s >= minp);
        } else if (op == ZB_ROLL_SUM) {
          bool ok = nobs >= minp;
          double r = nobs == 0 ? 0.0 : same >= nobs ? prev * (double)nobs : sum;
          seq_emit(q, k, r, ok);
        } else {
          bool ok = nobs >= minp && nobs > 0;
          double r = 0;
          if (ok) {
            r = same >= nobs ? prev : sum / (double)nobs;
            if (neg == 0 && r < 0) r = 0;
            else if (neg == nobs && r > 0) r = 0;
          }
          seq_emit(q, k, r, ok);
        }
      });
}

/* ------------------------------------------------------------------------ */
/* var, std                                                                  */

/* Welford's running mean and sum of squared deviations, with pandas'
 * compensation of the mean (one term for adding, one for removing). */
typedef struct welford {
  double nobs, mean, ssq, cadd, crem;
} welford;

static inline void wf_add(welford *w, double x) {
  w->nobs += 1;
  double pm = w->mean - w->cadd;
  double y = x - w->cadd;
  double t = y - w->mean;
  w->cadd = t + w->mean - y;
  w->mean = w->mean + t / w->nobs;
  w->ssq += (x - pm) * (x - w->mean);
}

static inline void wf_remove(welford *w, double x) {
  w->nobs -= 1;
  if (w->nobs > 0) {
    double pm = w->mean - w->crem;
    double y = x - w->crem;
    double t = y - w->mean;
    w->crem = t + w->mean - y;
    w->mean = w->mean - t / w->nobs;
    w->ssq -= (x - pm) * (x - w->mean);
  } else {
    memset(w, 0, sizeof *w);
  }
}

/* A removal that leaves a sum of squares below LOSS times what it was has
 * cancelled most of its digits (a large value left the window): the
 * window is then summed again from its values, as pandas 3 does. */
#define LOSS 1e-4

static void roll_var(const roll_seq *q) {
  const int64_t minp = ZB_MAX(q->j->opt.min_periods, 1);
  const double ddof = (double)q->j->opt.ddof;
  const bool sd = q->j->op == ZB_ROLL_STD;
  welford w;
  memset(&w, 0, sizeof w);
  bool redo = false;
  ROLL_LOOP(
      q, { wf_add(&w, x); },
      {
        double before = w.ssq;
        wf_remove(&w, x);
        redo = redo || w.ssq < before * LOSS;
      },
      {
        if (redo) {
          memset(&w, 0, sizeof w);
          for (int64_t p = s; p < e; p++) {
            double y = seq_val(q, p);
            if (y == y) wf_add(&w, y);
          }
          redo = false;
        }
        double nobs = w.nobs;
        bool ok = nobs >= (double)minp && nobs > ddof;
        double r = 0;
        if (ok) {
          r = nobs == 1 ? 0.0 : w.ssq / (nobs - ddof);
          if (r < 0) r = 0;
          if (sd) r = sqrt(r);
        }
        seq_emit(q, k, r, ok);
      });
}

/* var / std of the whole column with fixed windows (no group rows, no
 * explicit bounds): where one value leaves and one enters the window and
 * both are present, the count stays and the two updates fuse into one
 * (mean += (x_in - x_out) / n; ssq += (x_in - x_out) * (x_in - mean' +
 * x_out - mean)): one division and no compensation terms on the chain
 * from row to row, which is what made the separate add and remove slow.
 * Every other step (a missing value entering or leaving, the warm-up and
 * the windows cut by the column's ends) adds and removes as roll_var, and
 * a step that cancels most digits of the sum of squares sums the window
 * again, as there.  Results agree with roll_var within rounding (1e-9
 * relative to pandas at 10^7 rows: tests/python/test_rolling.py). */
static void roll_var_column(const roll_seq *q) {
  const int64_t minp = ZB_MAX(q->j->opt.min_periods, 1);
  const double ddof = (double)q->j->opt.ddof;
  const bool sd = q->j->op == ZB_ROLL_STD;
  const zb_column *c = q->j->c;
  const double *v = q->j->v;
  const bool nulls = c->validity != NULL && c->null_count > 0;
#define RAW_(p) (!nulls || zb_column_is_valid(c, (p)) ? inf_missing(v[(p)], false) : NAN)
  /* The values less K, an anchor: a variance does not move with a shift,
   * and values near 0 keep the fused update's running mean small, so its
   * rounding (uncompensated, unlike roll_var's) does not eat the sum of
   * squares' digits when the data sit far from 0 (a few units around
   * 1e11: 4e-3 absolute error on a std of 2 before, rounding now; pandas'
   * own error there is 3e-4).  K is the first finite value of the range,
   * and of the window each time it is summed again: values of another
   * magnitude (1e17, then units) leave by such a sum, and a stale anchor
   * would round the new ones away. */
  int64_t ps, pe, ls, le;
  seq_bounds(q, q->lo, &ps, &pe);
  seq_bounds(q, q->hi - 1, &ls, &le);
  double K = 0;
#define ANCHOR_(a, b)                            \
  do {                                           \
    K = 0;                                       \
    for (int64_t p_ = (a); p_ < (b); p_++) {     \
      double x_ = RAW_(p_);                      \
      if (isfinite(x_)) {                        \
        K = fabs(x_) < 1e300 ? x_ : 0;           \
        break;                                   \
      }                                          \
    }                                            \
  } while (0)
  ANCHOR_(ps, le);
#define VAL_(p) (RAW_(p) - K)
  welford w;
  memset(&w, 0, sizeof w);
  pe = ps;
  for (int64_t k = q->lo; k < q->hi; k++) {
    int64_t s, e;
    seq_bounds(q, k, &s, &e);
    bool redo = false;
    if (s == ps + 1 && e == pe + 1 && pe > ps) {
      double xo = VAL_(ps), xi = VAL_(pe);
      if (xo == xo && xi == xi && w.nobs > 1) {
        double before = w.ssq, m0 = w.mean, d = xi - xo;
        w.mean = m0 + d / w.nobs;
        w.ssq += d * (xi - w.mean + xo - m0);
        redo = w.ssq < before * LOSS;
        ps = s;
        pe = e;
        goto emit;
      }
    }
    for (int64_t p = ps; p < ZB_MIN(s, pe); p++) {
      double x = VAL_(p);
      if (x == x) {
        double before = w.ssq;
        wf_remove(&w, x);
        redo = redo || w.ssq < before * LOSS;
      }
    }
    if (pe < s) pe = s;
    for (int64_t p = pe; p < e; p++) {
      double x = VAL_(p);
      if (x == x) wf_add(&w, x);
    }
    ps = s;
    pe = e;
  emit:
    if (redo) {
      ANCHOR_(s, e);
      memset(&w, 0, sizeof w);
      for (int64_t p = s; p < e; p++) {
        double y = VAL_(p);
        if (y == y) wf_add(&w, y);
      }
    }
    double nobs = w.nobs;
    bool ok = nobs >= (double)minp && nobs > ddof;
    double r = 0;
    if (ok) {
      r = nobs == 1 ? 0.0 : w.ssq / (nobs - ddof);
      if (r < 0) r = 0;
      if (sd) r = sqrt(r);
    }
    q->j->out[k] = ok ? r : 0.0;
    q->j->okb[k] = ok;
  }
#undef VAL_
#undef ANCHOR_
#undef RAW_
}

/* ------------------------------------------------------------------------ */
/* skew, kurt                                                                */

typedef struct moments {
  double n, mean, m2, m3, m4;
} moments;

static inline void mom_add(moments *m, double x) {
  double n1 = m->n;
  m->n += 1;
  double n = m->n;
  double d = x - m->mean, dn = d / n, dn2 = dn * dn, t1 = d * dn * n1;
  m->mean += dn;
  m->m4 += t1 * dn2 * (n * n - 3 * n + 3) + 6 * dn2 * m->m2 - 4 * dn * m->m3;
  m->m3 += t1 * dn * (n - 2) - 3 * dn * m->m2;
  m->m2 += t1;
}

/* mom_add run backwards: the moments without x (a value among them). */
static inline void mom_remove(moments *m, double x) {
  double n = m->n;
  if (n <= 1) {
    memset(m, 0, sizeof *m);
    return;
  }
  double n1 = n - 1;
  double mean0 = m->mean - (x - m->mean) / n1;
  double d = x - mean0, dn = d / n, dn2 = dn * dn, t1 = d * dn * n1;
  double m2 = m->m2 - t1;
  double m3 = m->m3 - t1 * dn * (n - 2) + 3 * dn * m2;
  m->m4 = m->m4 - t1 * dn2 * (n * n - 3 * n + 3) - 6 * dn2 * m2 + 4 * dn * m3;
  m->m3 = m3;
  m->m2 = m2 > 0 ? m2 : 0;
  m->mean = mean0;
  m->n = n1;
}

#define MOM_LOSS 1e-3

static void roll_moments(const roll_seq *q) {
  const bool kurt = q->j->op == ZB_ROLL_KURT;
  const int64_t minp = ZB_MAX(q->j->opt.min_periods, kurt ? 4 : 3);
  const int64_t w = q->j->opt.window;
  moments m;
  memset(&m, 0, sizeof m);
  /* Values enter as x - a, a being the first value the (empty or rebuilt)
   * state took: skew and kurt do not depend on location, and a level far
   * above the spread (1e10 + noise, timestamps as numbers) would otherwise
   * cost the mean and the deviations their low digits. */
  double a = 0;
  /* A removal leaves m3 and m4 an error of a rounding of their largest
   * values since the state was built (m4 ~ m2^2): the state is rebuilt when
   * m2 falls below MOM_LOSS times its peak, so that error stays under 1e-9
   * of the moments left (lognormal data, a large value leaving a window of
   * small ones). */
  double peak = 0;
  int64_t removed = 0;
  bool redo = false;
  ROLL_LOOP(
      q,
      {
        if (m.n == 0) {
          a = x;
          peak = 0;
        }
        mom_add(&m, x - a);
        peak = ZB_MAX(peak, m.m2);
      },
      {
        mom_remove(&m, x - a);
        removed++;
        redo = redo || m.m2 < peak * MOM_LOSS;
      },
      {
        /* the window turned over, or lost digits: rebuild it exactly, about
         * its own first value */
        if (redo || removed >= w) {
          memset(&m, 0, sizeof m);
          for (int64_t p = s; p < e; p++) {
            double y = seq_val(q, p);
            if (y != y) continue;
            if (m.n == 0) a = y;
            mom_add(&m, y - a);
          }
          peak = m.m2;
          removed = 0;
          redo = false;
        }
        double n = m.n;
        bool ok = n >= (double)minp;
        double r = 0;
        if (ok) {
          double B = m.m2 / n;
          /* no spread: m2 within rounding of the values' sum of squares about
           * a (m2 + n mean^2), a relative test as pandas 3.1's, so scaling the
           * values by 1e-20 changes nothing */
          if (!(m.m2 > 1e-14 * (m.m2 + n * m.mean * m.mean))) {
            ok = false;
          } else if (!kurt) {
            double C = m.m3 / n;
            r = sqrt(n * (n - 1)) * C / ((n - 2) * B * sqrt(B));
          } else {
            double D = m.m4 / n;
            double K = (n * n - 1) * D / (B * B) - 3 * ((n - 1) * (n - 1));
            r = K / ((n - 2) * (n - 3));
          }
        }
        seq_emit(q, k, r, ok);
      });
}

/* ------------------------------------------------------------------------ */
/* min, max                                                                  */

static bool roll_minmax(const roll_seq *q) {
  const int64_t minp = ZB_MAX(q->j->opt.min_periods, 1);
  const bool mx = q->j->op == ZB_ROLL_MAX;
  int64_t s0, e0, s1, e1;
  seq_bounds(q, q->lo, &s0, &e0);
  seq_bounds(q, q->hi - 1, &s1, &e1);
  int64_t span = e1 - s0 + 1;
  int64_t *pos = (int64_t *)zb_malloc((size_t)span * sizeof(int64_t));
  double *val = (double *)zb_malloc((size_t)span * sizeof(double));
  if (pos == NULL || val == NULL) {
    zb_free(pos);
    zb_free(val);
    return false;
  }
  int64_t head = 0, tail = 0, nobs = 0;
  ROLL_LOOP(
      q,
      {
        nobs++;
        if (mx)
          while (tail > head && val[tail - 1] <= x) tail--;
        else
          while (tail > head && val[tail - 1] >= x) tail--;
        pos[tail] = p;
        val[tail] = x;
        tail++;
      },
      { nobs--; },
      {
        while (head < tail && pos[head] < s) head++;
        bool ok = nobs >= minp && head < tail;
        seq_emit(q, k, ok ? val[head] : 0.0, ok);
      });
  zb_free(pos);
  zb_free(val);
  return true;
}

/* ------------------------------------------------------------------------ */
/* median, quantile                                                          */

typedef struct ranked {
  double v;
  int64_t p;
} ranked;

static int cmp_ranked(const void *a, const void *b) {
  double x = ((const ranked *)a)->v, y = ((const ranked *)b)->v;
  return (x > y) - (x < y);
}

typedef struct fenwick {
  int32_t *t; /* 1-based */
  int64_t m, top;
} fenwick;

static inline void fw_add(fenwick *f, int64_t i, int32_t d) {
  for (i++; i <= f->m; i += i & -i) f->t[i] += d;
}

/* The rank (0-based) of the k-th (0-based) present value. */
static inline int64_t fw_kth(const fenwick *f, int64_t k) {
  int64_t i = 0;
  for (int64_t b = f->top; b > 0; b >>= 1) {
    if (i + b <= f->m && f->t[i + b] <= k) {
      i += b;
      k -= f->t[i];
    }
  }
  return i;
}

/* The result of position k from nobs values whose i-th smallest is KTH(i)
 * (a macro of the caller): pandas' median, and its quantile with each
 * interpolation. */
#define ORDER_EMIT(KTH)                                                          \
  do {                                                                       \
    bool ok = nobs >= minp && nobs > 0;                                      \
    double res = 0;                                                          \
    if (ok && median) {                                                      \
      int64_t mid = nobs / 2;                                                \
      res = nobs % 2 ? KTH(mid) : (KTH(mid) + KTH(mid - 1)) / 2;             \
    } else if (ok) {                                                         \
      double idxf = qq * (double)(nobs - 1);                                 \
      int64_t idx = (int64_t)idxf;                                           \
      double frac = idxf - (double)idx;                                      \
      if (nobs == 1 || frac == 0) {                                          \
        res = KTH(idx);                                                      \
      } else {                                                               \
        double lo = KTH(idx), hi = KTH(idx + 1);                             \
        switch (how) {                                                       \
          case ZB_INTERP_LINEAR: res = lo + (hi - lo) * frac; break;         \
          case ZB_INTERP_LOWER: res = lo; break;                             \
          case ZB_INTERP_HIGHER: res = hi; break;                            \
          case ZB_INTERP_NEAREST:                                            \
            res = frac == 0.5 ? (idx % 2 == 0 ? lo : hi) : (frac < 0.5 ? lo : hi); \
            break;                                                           \
          default: res = (lo + hi) / 2; break;                               \
        }                                                                    \
      }                                                                      \
    }                                                                        \
    seq_emit(q, k, res, ok);                                                 \
  } while (0)

/* Small windows: the window's values kept sorted in a buffer (binary
 * searches and moves of at most `window` values per row, cheaper than
 * ranking the whole sequence while the window is short).  A removed value
 * leaves a hole that the next added value fills: the values between the
 * two places move by one, not every value after each. */
static bool roll_order_small(const roll_seq *q) {
  const zb_rolling_options *o = &q->j->opt;
  const int64_t minp = ZB_MAX(o->min_periods, 1);
  const bool median = q->j->op == ZB_ROLL_MEDIAN;
  double *b = (double *)zb_malloc((size_t)ZB_MAX(o->window, 1) * sizeof(double));
  if (b == NULL) return false;
  int64_t nobs = 0, cnt = 0, hole = -1; /* b[0..cnt) sorted; b[hole] removed */
  const double qq = o->q;
  const zb_roll_interp how = o->interp;
#define CLOSE_HOLE()                                                            \
  do {                                                                          \
    if (hole >= 0) {                                                            \
      memmove(b + hole, b + hole + 1, (size_t)(cnt - hole - 1) * sizeof(double)); \
      cnt--;                                                                    \
      hole = -1;                                                                \
    }                                                                           \
  } while (0)
#define KTH(i) (b[(i)])
  ROLL_LOOP(
      q,
      {
        int64_t lo = 0; /* the first value > x */
        int64_t hi = cnt;
        while (lo < hi) {
          int64_t mid = (lo + hi) >> 1;
          if (b[mid] <= x) lo = mid + 1;
          else hi = mid;
        }
        if (hole < 0) {
          memmove(b + lo + 1, b + lo, (size_t)(cnt - lo) * sizeof(double));
          b[lo] = x;
          cnt++;
        } else if (lo <= hole) {
          memmove(b + lo + 1, b + lo, (size_t)(hole - lo) * sizeof(double));
          b[lo] = x;
          hole = -1;
        } else {
          memmove(b + hole, b + hole + 1, (size_t)(lo - 1 - hole) * sizeof(double));
          b[lo - 1] = x;
          hole = -1;
        }
        nobs++;
      },
      {
        CLOSE_HOLE();
        int64_t lo = 0; /* the first value >= x: x itself */
        int64_t hi = cnt;
        while (lo < hi) {
          int64_t mid = (lo + hi) >> 1;
          if (b[mid] < x) lo = mid + 1;
          else hi = mid;
        }
        hole = lo;
        nobs--;
      },
      {
        CLOSE_HOLE();
        ORDER_EMIT(KTH);
      });
#undef KTH
#undef CLOSE_HOLE
  zb_free(b);
  return true;
}

static bool roll_order(const roll_seq *q) {
  const zb_rolling_options *o = &q->j->opt;
  const int64_t minp = ZB_MAX(o->min_periods, 1);
  const bool median = q->j->op == ZB_ROLL_MEDIAN;
  int64_t s0, e0, s1, e1;
  seq_bounds(q, q->lo, &s0, &e0);
  seq_bounds(q, q->hi - 1, &s1, &e1);
  const int64_t span = e1 - s0;
  ranked *r = (ranked *)zb_malloc((size_t)ZB_MAX(span, 1) * sizeof(ranked));
  int64_t *rank = (int64_t *)zb_malloc((size_t)ZB_MAX(span, 1) * sizeof(int64_t));
  fenwick f = {NULL, 0, 0};
  bool ok_alloc = r != NULL && rank != NULL;
  int64_t m = 0;
  if (ok_alloc) {
    for (int64_t p = s0; p < e1; p++) {
      double x = seq_val(q, p);
      if (x == x) {
        r[m].v = x;
        r[m].p = p;
        m++;
      }
    }
    qsort(r, (size_t)m, sizeof(ranked), cmp_ranked);
    for (int64_t i = 0; i < m; i++) rank[r[i].p - s0] = i;
    f.m = m;
    f.t = (int32_t *)zb_calloc((size_t)(m + 1), sizeof(int32_t));
    ok_alloc = f.t != NULL;
    f.top = 1;
    while (f.top * 2 <= m) f.top *= 2;
  }
  if (!ok_alloc) {
    zb_free(r);
    zb_free(rank);
    zb_free(f.t);
    return false;
  }
  int64_t nobs = 0;
  const double qq = o->q;
  const zb_roll_interp how = o->interp;
#define KTH(i) (r[fw_kth(&f, (i))].v)
  ROLL_LOOP(
      q,
      {
        nobs++;
        fw_add(&f, rank[p - s0], 1);
      },
      {
        nobs--;
        fw_add(&f, rank[p - s0], -1);
      },
      { ORDER_EMIT(KTH); });
#undef KTH
  zb_free(r);
  zb_free(rank);
  zb_free(f.t);
  return true;
}

/* ------------------------------------------------------------------------ */
/* cov, corr of two columns                                                  */

/* The paired value of position p (y), by the same rule as seq_val. */
static inline double seq_val2(const roll_seq *q, int64_t p) {
  int64_t r = seq_row(q, p);
  return zb_column_is_valid(q->j->c2, r) ? zb__window_value(q->j->v2[r]) : NAN;
}

/* Welford's running means of x and y, their co-moment and (corr) each
 * side's sum of squared deviations. */
typedef struct comoment {
  double n, mx, my, cxy, sxx, syy;
} comoment;

static inline void co_add(comoment *m, double x, double y) {
  m->n += 1;
  const double dx = x - m->mx, dy = y - m->my;
  m->mx += dx / m->n;
  m->my += dy / m->n;
  m->cxy += dx * (y - m->my);
  m->sxx += dx * (x - m->mx);
  m->syy += dy * (y - m->my);
}

/* co_add run backwards: the means before the pair came are taken back
 * first, then the pair's terms, which used them. */
static inline void co_remove(comoment *m, double x, double y) {
  m->n -= 1;
  if (m->n <= 0) {
    memset(m, 0, sizeof *m);
    return;
  }
  const double mx1 = m->mx, my1 = m->my;
  m->mx = mx1 - (x - mx1) / m->n;
  m->my = my1 - (y - my1) / m->n;
  m->cxy -= (x - m->mx) * (y - my1);
  m->sxx -= (x - m->mx) * (x - mx1);
  m->syy -= (y - m->my) * (y - my1);
}

static void roll_pair(const roll_seq *q) {
  const int64_t minp = ZB_MAX(q->j->opt.min_periods, 1);
  const double ddof = (double)q->j->opt.ddof;
  const bool corr = q->j->op == ZB_ROLL_CORR;
  const int64_t w = q->j->opt.window;
  comoment m;
  memset(&m, 0, sizeof m);
  /* As roll_moments: pairs enter less an anchor pair (the first the empty
   * or rebuilt state took), so a level shared by a side (prices, epoch
   * times) keeps its digits; the state is rebuilt about a new anchor when
   * the window has turned over or a side's sum of squares falls below
   * MOM_LOSS times its peak (a large value left: its rounding stays in
   * cxy). */
  double ax = 0, ay = 0, px = 0, py = 0;
  int64_t removed = 0;
  bool redo = false;
  ROLL_LOOP(
      q,
      {
        double y = seq_val2(q, p);
        if (y == y) {
          if (m.n == 0) {
            ax = x;
            ay = y;
            px = py = 0;
          }
          co_add(&m, x - ax, y - ay);
          px = ZB_MAX(px, m.sxx);
          py = ZB_MAX(py, m.syy);
        }
      },
      {
        double y = seq_val2(q, p);
        if (y == y) {
          co_remove(&m, x - ax, y - ay);
          removed++;
          redo = redo || m.sxx < px * MOM_LOSS || m.syy < py * MOM_LOSS;
        }
      },
      {
        if (redo || removed >= w) {
          memset(&m, 0, sizeof m);
          for (int64_t i = s; i < e; i++) {
            double a = seq_val(q, i);
            double b = seq_val2(q, i);
            if (a != a || b != b) continue;
            if (m.n == 0) {
              ax = a;
              ay = b;
            }
            co_add(&m, a - ax, b - ay);
          }
          px = m.sxx;
          py = m.syy;
          removed = 0;
          redo = false;
        }
        bool ok = m.n >= (double)minp && m.n > ddof;
        double r = 0;
        if (ok && corr) {
          /* no spread on a side: missing, as pandas (0 / 0) */
          const double den = m.sxx * m.syy;
          ok = m.sxx > 0 && m.syy > 0 && den > 0;
          if (ok) r = m.cxy / sqrt(den);
        } else if (ok) {
          r = m.cxy / (m.n - ddof);
        }
        seq_emit(q, k, r, ok);
      });
}

/* ------------------------------------------------------------------------ */
/* tasks                                                                     */

static bool run_seq(const roll_seq *q) {
  if (q->hi <= q->lo) return true;
  switch (q->j->op) {
    case ZB_ROLL_COUNT:
    case ZB_ROLL_SUM:
    case ZB_ROLL_MEAN: roll_sum(q); return true;
    case ZB_ROLL_VAR:
    case ZB_ROLL_STD:
      if (q->rows == NULL && q->j->starts == NULL && q->j->csr == NULL) roll_var_column(q);
      else roll_var(q);
      return true;
    case ZB_ROLL_SKEW:
    case ZB_ROLL_KURT: roll_moments(q); return true;
    case ZB_ROLL_MIN:
    case ZB_ROLL_MAX: return roll_minmax(q);
    case ZB_ROLL_COV:
    case ZB_ROLL_CORR: roll_pair(q); return true;
    default: return q->j->opt.window <= 512 ? roll_order_small(q) : roll_order(q);
  }
}

static void column_task(void *ctx, int64_t task, int worker) {
  (void)worker;
  roll_job *j = (roll_job *)ctx;
  roll_seq q = {j, NULL, j->n, task * j->task_rows, ZB_MIN((task + 1) * j->task_rows, j->n), 0};
  if (!run_seq(&q)) j->failed = 1;
}

static void group_task(void *ctx, int64_t b, int worker) {
  (void)worker;
  roll_job *j = (roll_job *)ctx;
  const zb__group_csr *csr = j->csr;
  for (int64_t g = csr->bucket[b]; g < csr->bucket[b + 1]; g++) {
    int64_t L = csr->offsets[g + 1] - csr->offsets[g];
    roll_seq q = {j, csr->rows != NULL ? csr->rows + csr->offsets[g] : NULL, L, 0, L,
                  csr->offsets[g]};
    if (!run_seq(&q)) j->failed = 1;
  }
}

typedef struct pack_job {
  const uint8_t *okb;
  uint8_t *bits;
  int64_t n;
} pack_job;

static void pack_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  pack_job *pj = (pack_job *)ctx;
  const int64_t start = task * ZB_MORSEL_ROWS;
  const int64_t end = ZB_MIN(start + (int64_t)ZB_MORSEL_ROWS, pj->n);
  for (int64_t row = start; row < end; row += 64) {
    int m = (int)ZB_MIN((int64_t)64, end - row);
    zb__store_bits(pj->bits, row, zb__pack_bools(pj->okb + row, m), m);
  }
}

static zb_status nomem(zb_error *err, const char *what) {
  return zb_error_set(err, ZB_ENOMEM, "out of host memory (rolling: %s)", what);
}

/* The rows of each group in row order (CSR) from the group ids, then the
 * groups' windows.  Ids already in group order (non-decreasing, no nulls)
 * skip the counting sort: each group is a run of consecutive rows, read
 * and written in place. */
static zb_status group_run(roll_job *j, const zb_column *ids, int64_t n_groups, zb_error *err) {
  zb__grouping g;
  zb__group_csr csr;
  memset(&g, 0, sizeof g);
  bool sorted = false;
  zb_status st = zb__group_csr_sorted(ids, n_groups, &sorted, &csr, err);
  if (st != ZB_OK) return st;
  if (sorted) { /* the rows are in group order already: no counting sort */
    j->csr = &csr;
    st = zb_parallel_for(csr.n_buckets, group_task, j, err);
    goto done;
  }
  st = zb__grouping_from_ids(ids, n_groups, "rolling", &g, err);
  if (st != ZB_OK) return st;
  st = zb__group_csr_init(&g, &csr, err);
  if (st != ZB_OK) goto done;
  j->csr = &csr;
  st = zb_parallel_for(csr.n_buckets, group_task, j, err);
done:
  zb__group_csr_reset(&csr);
  zb__grouping_reset(&g);
  return st;
}

zb_status zb__cpu_rolling(const zb_column *col, const zb_column *other,
                          const zb_column *group_ids, int64_t n_groups,
                          const zb_column *starts, const zb_column *ends, zb_roll_op op,
                          const zb_rolling_options *opt, zb_column **out, zb_error *err) {
  *out = NULL;
  const int64_t n = col->length;
  roll_job j;
  memset(&j, 0, sizeof j);
  j.c = col;
  j.v = (const double *)col->data->data + col->offset;
  if (other != NULL) {
    j.c2 = other;
    j.v2 = (const double *)other->data->data + other->offset;
  }
  j.op = op;
  j.keep_inf = op == ZB_ROLL_COUNT;
  j.opt = *opt;
  j.off = opt->center ? (opt->window - 1) / 2 : 0;
  j.n = n;
  if (starts != NULL) {
    j.starts = (const int64_t *)starts->data->data + starts->offset;
    j.ends = (const int64_t *)ends->data->data + ends->offset;
    j.off = 0;
  }
  zb_column *o = NULL;
  zb_status st = zb_column_new(ZB_FLOAT64, n, true, 0, &o, err);
  if (st != ZB_OK) return st;
  if (n == 0) {
    *out = o;
    return ZB_OK;
  }
  j.out = (double *)o->data->data;
  j.okb = (uint8_t *)zb_calloc((size_t)n, 1);
  if (j.okb == NULL) {
    st = nomem(err, "row flags");
    goto done;
  }
  memset(j.out, 0, (size_t)n * sizeof(double));
  if (group_ids != NULL) {
    st = group_run(&j, group_ids, n_groups, err);
  } else {
    /* morsels warm up over up to `window` rows: one task when the window
     * is longer than a morsel (an expanding window) */
    j.task_rows =
        opt->window <= ZB_MORSEL_ROWS || starts != NULL ? (int64_t)ZB_MORSEL_ROWS : n;
    st = zb_parallel_for((n + j.task_rows - 1) / j.task_rows, column_task, &j, err);
  }
  if (st == ZB_OK && j.failed) st = nomem(err, "window scratch");
  if (st == ZB_OK) {
    pack_job pj = {j.okb, (uint8_t *)o->validity->data, n};
    st = zb_parallel_for(zb__morsels(n), pack_morsel, &pj, err);
  }
done:
  zb_free(j.okb);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  zb_column_recount_nulls(o);
  *out = o;
  return ZB_OK;
}
