/*
 * ewm.c -- pandas' exponentially weighted statistics on the CPU
 * (ZB__OP_EWM, the kernel behind zb_table_ewm).
 *
 * A statistic walks a sequence of rows -- the whole column, or the rows of
 * one group in row order (the group-by CSR) -- carrying pandas' state from
 * row to row, so that every result is pandas' to the last bit:
 *
 *   mean       the weighted mean and the weight of the values so far
 *              (aggregations.pyx ewm, normalize=True); a value equal to
 *              the mean leaves it as it is (pandas' guard for constant
 *              series); times age the weight by (1 - alpha) ^ delta
 *   sum        the decayed sum (ewm, normalize=False)
 *   var, std   ewmcov of a column with itself: the weighted means, the
 *   cov, corr  weighted co-moment, the sums of weights and of squared
 *              weights for the bias correction; corr runs three of them
 *              (x with y, x with x, y with y, each counting its own
 *              rows) in one pass and divides as pandas does.
 *
 * The recurrence is serial within a sequence; the sequences (result
 * column x bucket of groups) run as tasks on the thread pool, and a whole
 * column's mean, sum, var or std by morsels (below).  A long
 * sequence checks for cancellation every ZB_MORSEL_ROWS rows.  A missing
 * value is a null, a NaN or +-inf, as in pandas (core/window_values.h,
 * the rule rolling.c shares).  A result that is NaN (too few values so
 * far, or no value yet) is null.
 */
#include <math.h>
#include <stdlib.h>

#include "core/window_values.h"
#include "cpu/groupby.h"
#include "cpu/kernels.h"

typedef struct ewm_job {
  zb_ewm_op op;
  zb_ewm_options opt;
  double factor, new_wt; /* 1 - alpha; the weight of a new value */
  int64_t n, n_out;      /* rows; result columns */
  const zb_column *const *cols;
  const double *times;
  double **out;
  const zb__group_csr *csr; /* NULL: one sequence per column */
  volatile int cancelled;
} ewm_job;

/* One input column's values: NaN where missing for a window statistic
 * (null, NaN, +-inf: zb__window_value). */
typedef struct ewm_src {
  const double *v;
  const uint8_t *valid; /* NULL: no nulls */
  int64_t off;
} ewm_src;

static inline ewm_src src_of(const zb_column *c) {
  ewm_src s = {(const double *)c->data->data + c->offset, NULL, c->offset};
  if (c->validity != NULL && c->null_count > 0) s.valid = (const uint8_t *)c->validity->data;
  return s;
}

static inline double value_at(const ewm_src *s, int64_t r) {
  if (s->valid != NULL && !zb_bit_get(s->valid, s->off + r)) return NAN;
  return zb__window_value(s->v[r]);
}

/* The row of sequence position p: rows[p], or base + p when rows is NULL. */
static inline int64_t row_at(const int64_t *rows, int64_t base, int64_t p) {
  return rows != NULL ? rows[p] : base + p;
}

/* A cancellation check every morsel of a sequence: true when asked to stop. */
static inline bool stop_at(ewm_job *j, int64_t p) {
  if ((p & (ZB_MORSEL_ROWS - 1)) != 0 || !zb_cancel_requested()) return false;
  j->cancelled = 1;
  return true;
}

/* pandas' ewm state of a mean or sum: the weighted mean (or decayed sum)
 * and the weight of the values so far; nobs counts the values. */
typedef struct mean_state {
  double weighted, old_wt;
  int64_t nobs;
  bool started; /* the sequence's first row was seen */
} mean_state;

/* The state after one more value cur (NaN: missing).  decay ages the old
 * weight of a mean (f, or f ^ (time step / halflife) over times); a sum
 * decays by f. */
static inline void mean_step(const ewm_job *j, mean_state *s, double cur, double decay,
                             bool normalize) {
  if (!s->started) {
    s->started = true;
    s->weighted = cur;
    s->nobs += cur == cur;
    s->old_wt = 1.0;
    return;
  }
  const double f = j->factor, new_wt = j->new_wt;
  const bool adjust = j->opt.adjust, ignore_na = j->opt.ignore_na;
  const bool lost_weight = j->times != NULL;
  const bool obs = cur == cur;
  s->nobs += obs;
  if (s->weighted == s->weighted) {
    if (obs || !ignore_na) {
      if (normalize)
        s->old_wt *= decay;
      else
        s->weighted = f * s->weighted;
      if (obs) {
        if (normalize) {
          if (s->weighted != cur) {
            /* adjust=False over times: the new value weighs what the old
             * ones lost, 1 - old_wt (alpha after one row, more after a
             * longer time step), as pandas; without times it weighs alpha
             * (pandas up to 3.1.1 also took com == 1 for "times given") */
            const double nw = lost_weight && !adjust ? 1.0 - s->old_wt : new_wt;
            s->weighted = s->old_wt * s->weighted + nw * cur;
            s->weighted /= s->old_wt + nw;
          }
          s->old_wt = adjust ? s->old_wt + new_wt : 1.0;
        } else {
          s->weighted += cur;
        }
      }
    }
  } else if (obs) {
    s->weighted = cur;
  }
}

/* mean (normalize) or sum of one sequence: pandas' ewm. */
static void seq_mean(ewm_job *j, const ewm_src *x, const int64_t *rows, int64_t base, int64_t L,
                     double *out, bool normalize) {
  const double f = j->factor;
  const int64_t minp = j->opt.min_periods;
  const double *t = j->times;
  const double hl = j->opt.halflife;
  mean_state s;
  memset(&s, 0, sizeof s);
  int64_t prev = 0;
  for (int64_t p = 0; p < L; p++) {
    if (p > 0 && stop_at(j, p)) return;
    const int64_t r = row_at(rows, base, p);
    mean_step(j, &s, value_at(x, r),
              normalize && t != NULL && p > 0 ? pow(f, (t[r] - t[prev]) / hl) : f, normalize);
    out[r] = s.nobs >= minp ? s.weighted : NAN;
    prev = r;
  }
}

/* Rows [from, to) of a whole column (no groups, no times) from state s,
 * results written from row emit on. */
static void span_mean(ewm_job *j, const ewm_src *x, mean_state *state, int64_t from, int64_t to,
                      int64_t emit, double *out, bool normalize) {
  const double f = j->factor;
  const int64_t minp = j->opt.min_periods;
  mean_state own = *state, *s = &own; /* a local: stores to out cannot alias it */
  for (int64_t r = from; r < to; r++) {
    mean_step(j, s, value_at(x, r), f, normalize);
    if (r >= emit) out[r] = s->nobs >= minp ? s->weighted : NAN;
  }
  *state = own;
}

/* pandas' ewmcov state of one pair of columns. */
typedef struct cov_state {
  double mean_x, mean_y, cov, sum_wt, sum_wt2, old_wt;
  int64_t nobs;
  bool started; /* span_cov: the sequence's first row was seen */
} cov_state;

static inline void cov_first(cov_state *s, double x, double y) {
  const bool obs = x == x && y == y;
  s->nobs = obs;
  s->mean_x = obs ? x : NAN;
  s->mean_y = obs ? y : NAN;
  s->cov = 0.0;
  s->sum_wt = s->sum_wt2 = s->old_wt = 1.0;
}

static inline void cov_step(cov_state *s, double cx, double cy, double f, double new_wt,
                            bool adjust, bool ignore_na) {
  const bool obs = cx == cx && cy == cy;
  s->nobs += obs;
  if (s->mean_x == s->mean_x) {
    if (obs || !ignore_na) {
      s->sum_wt *= f;
      s->sum_wt2 *= f * f;
      s->old_wt *= f;
      if (obs) {
        const double omx = s->mean_x, omy = s->mean_y;
        if (s->mean_x != cx)
          s->mean_x = ((s->old_wt * omx) + (new_wt * cx)) / (s->old_wt + new_wt);
        if (s->mean_y != cy)
          s->mean_y = ((s->old_wt * omy) + (new_wt * cy)) / (s->old_wt + new_wt);
        s->cov = ((s->old_wt * (s->cov + ((omx - s->mean_x) * (omy - s->mean_y)))) +
                  (new_wt * ((cx - s->mean_x) * (cy - s->mean_y)))) /
                 (s->old_wt + new_wt);
        s->sum_wt += new_wt;
        s->sum_wt2 += new_wt * new_wt;
        s->old_wt += new_wt;
        if (!adjust) {
          s->sum_wt /= s->old_wt;
          s->sum_wt2 /= (s->old_wt * s->old_wt);
          s->old_wt = 1.0;
        }
      }
    }
  } else if (obs) {
    s->mean_x = cx;
    s->mean_y = cy;
  }
}

static inline double cov_value(const cov_state *s, int64_t minp, bool bias) {
  if (s->nobs < minp) return NAN;
  if (bias) return s->cov;
  const double num = s->sum_wt * s->sum_wt, den = num - s->sum_wt2;
  return den > 0 ? (num / den) * s->cov : NAN;
}

static inline double zsqrt(double v) { return v < 0 ? 0.0 : sqrt(v); }

/* var / std (y == x), cov or corr of one sequence: pandas' ewmcov. */
static void seq_cov(ewm_job *j, const ewm_src *x, const ewm_src *y, const int64_t *rows, int64_t base,
                    int64_t L, double *out) {
  if (L == 0) return;
  const double f = j->factor, new_wt = j->new_wt;
  const bool adjust = j->opt.adjust, ignore_na = j->opt.ignore_na;
  const int64_t minp = j->opt.min_periods;
  const zb_ewm_op op = j->op;
  const bool corr = op == ZB_EWM_CORR;
  const bool bias = corr || j->opt.bias;
  cov_state s, sx, sy;
  memset(&s, 0, sizeof s);
  memset(&sx, 0, sizeof sx);
  memset(&sy, 0, sizeof sy);
  for (int64_t p = 0; p < L; p++) {
    if (p > 0 && stop_at(j, p)) return;
    const int64_t r = row_at(rows, base, p);
    double cx = value_at(x, r), cy = value_at(y, r);
    if (cx != cx || cy != cy) cx = cy = NAN; /* pandas pairs x + 0 * y with y + 0 * x */
    if (p == 0) {
      cov_first(&s, cx, cy);
      if (corr) {
        cov_first(&sx, cx, cx);
        cov_first(&sy, cy, cy);
      }
    } else {
      cov_step(&s, cx, cy, f, new_wt, adjust, ignore_na);
      if (corr) {
        cov_step(&sx, cx, cx, f, new_wt, adjust, ignore_na);
        cov_step(&sy, cy, cy, f, new_wt, adjust, ignore_na);
      }
    }
    double v = cov_value(&s, minp, bias);
    if (op == ZB_EWM_STD) {
      v = zsqrt(v);
    } else if (corr) {
      v = v / zsqrt(cov_value(&sx, minp, true) * cov_value(&sy, minp, true));
    }
    out[r] = v;
  }
}

/* var or std of rows [from, to) of a whole column (no groups, no times)
 * from state s, results written from row emit on: seq_cov's steps with
 * y = x. */
static void span_cov(ewm_job *j, const ewm_src *x, cov_state *state, int64_t from, int64_t to,
                     int64_t emit, double *out) {
  cov_state own = *state, *s = &own; /* a local: stores to out cannot alias it */
  const double f = j->factor, new_wt = j->new_wt;
  const bool adjust = j->opt.adjust, ignore_na = j->opt.ignore_na, bias = j->opt.bias;
  const bool std = j->op == ZB_EWM_STD;
  const int64_t minp = j->opt.min_periods;
  for (int64_t r = from; r < to; r++) {
    const double cx = value_at(x, r);
    if (!s->started) {
      const int64_t nobs = s->nobs;
      cov_first(s, cx, cx);
      s->nobs += nobs;
      s->started = true;
    } else {
      cov_step(s, cx, cx, f, new_wt, adjust, ignore_na);
    }
    if (r >= emit) {
      const double v = cov_value(s, minp, bias);
      out[r] = std ? zsqrt(v) : v;
    }
  }
  *state = own;
}

static void run_seq(ewm_job *j, int64_t k, const int64_t *rows, int64_t base, int64_t L) {
  double *out = j->out[k];
  switch (j->op) {
    case ZB_EWM_MEAN:
    case ZB_EWM_SUM:
    case ZB_EWM_VAR:
    case ZB_EWM_STD: {
      ewm_src x = src_of(j->cols[k]);
      const bool mean = j->op == ZB_EWM_MEAN || j->op == ZB_EWM_SUM;
      if (rows != NULL || (mean && j->times != NULL)) {
        if (mean)
          seq_mean(j, &x, rows, base, L, out, j->op == ZB_EWM_MEAN);
        else
          seq_cov(j, &x, &x, rows, base, L, out);
        break;
      }
      /* consecutive rows without times: span_mean's or span_cov's one
       * state, a morsel at a time (the same steps as seq_mean / seq_cov,
       * so the same bits as the morsels' pass, in fewer instructions) */
      mean_state ms;
      cov_state cs;
      memset(&ms, 0, sizeof ms);
      memset(&cs, 0, sizeof cs);
      for (int64_t p = 0; p < L; p += ZB_MORSEL_ROWS) {
        if (p > 0 && stop_at(j, p)) return;
        const int64_t from = base + p, to = base + ZB_MIN(L, p + (int64_t)ZB_MORSEL_ROWS);
        if (mean)
          span_mean(j, &x, &ms, from, to, from, out, j->op == ZB_EWM_MEAN);
        else
          span_cov(j, &x, &cs, from, to, from, out);
      }
      break;
    }
    default: {
      ewm_src x = src_of(j->cols[2 * k]), y = src_of(j->cols[2 * k + 1]);
      seq_cov(j, &x, &y, rows, base, L, out);
      break;
    }
  }
}

/* Task: result column task % n_out, over the groups of bucket task / n_out
 * (the whole column without groups). */
static void ewm_task(void *ctx, int64_t task, int worker) {
  (void)worker;
  ewm_job *j = (ewm_job *)ctx;
  const int64_t k = task % j->n_out, b = task / j->n_out;
  const zb__group_csr *csr = j->csr;
  if (csr == NULL) {
    run_seq(j, k, NULL, 0, j->n);
    return;
  }
  for (int64_t g = csr->bucket[b]; g < csr->bucket[b + 1] && !j->cancelled; g++)
    run_seq(j, k, csr->rows != NULL ? csr->rows + csr->offsets[g] : NULL, csr->offsets[g],
            csr->offsets[g + 1] - csr->offsets[g]);
}

/* ---- a whole column's mean, sum, var or std by morsels ----------------------
 * The recurrence is serial, but a row's effect fades: after W rows it
 * weighs f^W of the state.  Each morsel but the first starts from a
 * warm-up over the W rows before it (from the state of a fresh sequence)
 * and records that state (warm) and its own end state; a serial pass then
 * compares each morsel's warm-up state with the true end state of the one
 * before, bit for bit.  Equal, and the morsel's results are the serial
 * recurrence's (the step is a function of the state and the row); else
 * the morsel is computed again from the true state.  So the results are
 * the serial pass's to the last bit, and a warm-up that did not converge
 * (an outlier whose weight outlives W rows, a long run of missing values
 * under ignore_na) costs that morsel a second pass.  The count of values
 * is taken as reached min_periods in the morsels (it only decides whether
 * a result shows) and checked in the serial pass too.  var and std carry
 * ewmcov's state (means, co-moment, sums of weights), whose sums of
 * weights converge as the mean does. */
static zb_status nomem(zb_error *err, const char *what);

typedef union ewm_state {
  mean_state m; /* mean, sum */
  cov_state c;  /* var, std */
} ewm_state;

typedef struct state_morsel {
  ewm_state warm, end;
  int64_t count; /* values in the morsel */
} state_morsel;

typedef struct morsel_job {
  ewm_job *j;
  state_morsel *mm; /* n_out * nm */
  int64_t nm, warm;
} morsel_job;

static inline bool is_mean(const ewm_job *j) { return j->op == ZB_EWM_MEAN || j->op == ZB_EWM_SUM; }

static inline int64_t *nobs_of(const ewm_job *j, ewm_state *s) {
  return is_mean(j) ? &s->m.nobs : &s->c.nobs;
}

/* Rows [from, to) of column x from state s, written from row emit on. */
static void span_state(ewm_job *j, const ewm_src *x, ewm_state *s, int64_t from, int64_t to,
                       int64_t emit, double *out) {
  if (is_mean(j))
    span_mean(j, x, &s->m, from, to, emit, out, j->op == ZB_EWM_MEAN);
  else
    span_cov(j, x, &s->c, from, to, emit, out);
}

static void morsel_task(void *ctx, int64_t task, int worker) {
  (void)worker;
  morsel_job *mj = (morsel_job *)ctx;
  ewm_job *j = mj->j;
  if (j->cancelled) return;
  if (zb_cancel_requested()) {
    j->cancelled = 1;
    return;
  }
  const int64_t k = task / mj->nm, m = task % mj->nm;
  const int64_t s = m * ZB_MORSEL_ROWS, e = ZB_MIN(j->n, s + (int64_t)ZB_MORSEL_ROWS);
  ewm_src x = src_of(j->cols[k]);
  state_morsel *q = &mj->mm[task];
  ewm_state st;
  memset(&st, 0, sizeof st);
  if (m > 0) {
    span_state(j, &x, &st, ZB_MAX((int64_t)0, s - mj->warm), s, s, j->out[k]);
    q->warm = st;
    *nobs_of(j, &st) = INT64_MAX / 4; /* taken as past min_periods: checked later */
  }
  const int64_t before = *nobs_of(j, &st);
  span_state(j, &x, &st, s, e, s, j->out[k]);
  q->count = *nobs_of(j, &st) - before;
  q->end = st;
}

/* The two states equal bit for bit, but for their counts of values. */
static bool same_state(const ewm_job *j, const ewm_state *a, const ewm_state *b) {
  if (is_mean(j))
    return a->m.started == b->m.started &&
           memcmp(&a->m.weighted, &b->m.weighted, sizeof(double)) == 0 &&
           memcmp(&a->m.old_wt, &b->m.old_wt, sizeof(double)) == 0;
  return a->c.started == b->c.started && memcmp(&a->c.mean_x, &b->c.mean_x, 6 * sizeof(double)) == 0;
}

/* The rows a warm-up needs for a row's weight to fall under 2^-60 of the
 * state, or -1 when that is more than a quarter morsel (a slow decay:
 * the serial pass is as fast). */
static int64_t warm_rows(double f) {
  if (f <= 0.0) return 1;
  const double w = ceil(-60.0 * log(2.0) / log(f));
  return w <= (double)(ZB_MORSEL_ROWS / 4) ? (int64_t)w : -1;
}

/* Every result column of a whole column by morsels (see above); the serial
 * check and repairs in this thread. */
static zb_status by_morsels(ewm_job *j, int64_t warm, zb_error *err) {
  const int64_t nm = zb__morsels(j->n), minp = j->opt.min_periods;
  morsel_job mj = {j, (state_morsel *)zb_calloc((size_t)(j->n_out * nm), sizeof(state_morsel)),
                   nm, warm};
  if (mj.mm == NULL) return nomem(err, "morsel states");
  zb_status st = zb_parallel_for(j->n_out * nm, morsel_task, &mj, err);
  for (int64_t k = 0; k < j->n_out && st == ZB_OK && !j->cancelled; k++) {
    ewm_src x = src_of(j->cols[k]);
    ewm_state truth = mj.mm[k * nm].end;
    for (int64_t m = 1; m < nm; m++) {
      state_morsel *q = &mj.mm[k * nm + m];
      if (*nobs_of(j, &truth) >= minp && same_state(j, &q->warm, &truth)) {
        const int64_t nobs = *nobs_of(j, &truth) + q->count;
        truth = q->end;
        *nobs_of(j, &truth) = nobs;
      } else { /* the morsel again, from the true state */
        const int64_t s = m * ZB_MORSEL_ROWS, e = ZB_MIN(j->n, s + (int64_t)ZB_MORSEL_ROWS);
        span_state(j, &x, &truth, s, e, s, j->out[k]);
      }
    }
  }
  zb_free(mj.mm);
  return st;
}

typedef struct mask_job {
  double *const *out;
  zb_column *const *cols;
  int64_t n, n_morsels;
} mask_job;

/* Validity of a morsel of a result column: the non-NaN values. */
static void mask_task(void *ctx, int64_t task, int worker) {
  (void)worker;
  mask_job *m = (mask_job *)ctx;
  const int64_t k = task / m->n_morsels, start = (task % m->n_morsels) * ZB_MORSEL_ROWS;
  const int64_t end = ZB_MIN(start + (int64_t)ZB_MORSEL_ROWS, m->n);
  const double *v = m->out[k];
  uint8_t *bits = (uint8_t *)m->cols[k]->validity->data;
  for (int64_t row = start; row < end; row += 64) {
    int cnt = (int)ZB_MIN((int64_t)64, end - row);
    uint64_t w = 0;
    for (int q = 0; q < cnt; q++) w |= (uint64_t)(v[row + q] == v[row + q]) << q;
    zb__store_bits(bits, row, w, cnt);
  }
}

static zb_status nomem(zb_error *err, const char *what) {
  return zb_error_set(err, ZB_ENOMEM, "out of host memory (ewm: %s)", what);
}

/* The group ids as a grouping (null ids: -1), checked against n_groups,
 * and the rows of each group (their boundaries only when the ids are in
 * group order already: non-decreasing, no nulls). */
static zb_status group_csr(const zb_column *ids, int64_t n_groups, zb__grouping *g,
                           zb__group_csr *csr, zb_error *err) {
  bool sorted = false;
  ZB_RETURN_NOT_OK(zb__group_csr_sorted(ids, n_groups, &sorted, csr, err));
  if (sorted) return ZB_OK; /* runs of consecutive rows: no counting sort */
  ZB_RETURN_NOT_OK(zb__grouping_from_ids(ids, n_groups, "ewm", g, err));
  return zb__group_csr_init(g, csr, err);
}

zb_status zb__cpu_ewm(const zb_table *t, const zb_column *group_ids, int64_t n_groups,
                      const zb_column *times, zb_ewm_op op, const zb_ewm_options *opt,
                      zb_table **out, zb_error *err) {
  *out = NULL;
  const bool pairs = op == ZB_EWM_COV || op == ZB_EWM_CORR;
  const int64_t n = t->num_rows, n_out = pairs ? t->num_columns / 2 : t->num_columns;
  ewm_job j;
  memset(&j, 0, sizeof j);
  j.op = op;
  j.opt = *opt;
  if (j.opt.min_periods < 1) j.opt.min_periods = 1; /* pandas counts at least one value */
  const double alpha = 1.0 / (1.0 + opt->com);
  j.factor = 1.0 - alpha;
  j.new_wt = opt->adjust ? 1.0 : alpha;
  j.n = n;
  j.n_out = n_out;
  j.cols = (const zb_column *const *)t->columns;
  j.times = times != NULL ? (const double *)times->data->data + times->offset : NULL;
  zb__grouping g;
  memset(&g, 0, sizeof g);
  zb__group_csr csr;
  memset(&csr, 0, sizeof csr);
  zb_column **cols = (zb_column **)zb_calloc((size_t)ZB_MAX(n_out, 1), sizeof(zb_column *));
  j.out = (double **)zb_calloc((size_t)ZB_MAX(n_out, 1), sizeof(double *));
  const char **names = (const char **)zb_calloc((size_t)ZB_MAX(n_out, 1), sizeof(char *));
  zb_status st = ZB_OK;
  if (cols == NULL || j.out == NULL || names == NULL) {
    st = nomem(err, "results");
    goto done;
  }
  for (int64_t k = 0; k < n_out && st == ZB_OK; k++) {
    names[k] = t->names[pairs ? 2 * k : k];
    st = zb_column_new(ZB_FLOAT64, n, true, 0, &cols[k], err);
    if (st == ZB_OK) {
      j.out[k] = (double *)cols[k]->data->data;
      if (group_ids != NULL && group_ids->null_count > 0) /* rows of no group */
        for (int64_t r = 0; r < n; r++) j.out[k][r] = NAN;
    }
  }
  if (st != ZB_OK || n == 0 || n_out == 0) goto finish;
  int64_t n_tasks = n_out;
  if (group_ids != NULL) {
    st = group_csr(group_ids, n_groups, &g, &csr, err);
    if (st != ZB_OK) goto done;
    j.csr = &csr;
    n_tasks = n_out * csr.n_buckets;
  }
  const int64_t warm = warm_rows(j.factor);
  if (group_ids == NULL && times == NULL && op != ZB_EWM_COV && op != ZB_EWM_CORR &&
      warm > 0 && zb__morsels(n) > 1 && zb_get_num_threads() > 1)
    st = by_morsels(&j, warm, err);
  else
    st = zb_parallel_for(n_tasks, ewm_task, &j, err);
  if (st == ZB_OK && j.cancelled) st = zb_error_set(err, ZB_ECANCEL, "interrupted");
  if (st == ZB_OK) {
    mask_job m = {j.out, cols, n, zb__morsels(n)};
    st = zb_parallel_for(n_out * m.n_morsels, mask_task, &m, err);
  }
finish:
  if (st == ZB_OK) {
    for (int64_t k = 0; k < n_out; k++) zb_column_recount_nulls(cols[k]);
    st = zb_table_make(n_out, cols, names, out, err);
  }
done:
  for (int64_t k = 0; cols != NULL && k < n_out; k++) zb_column_release(cols[k]);
  zb_free(cols);
  zb_free(j.out);
  zb_free(names);
  zb__group_csr_reset(&csr);
  zb__grouping_reset(&g);
  return st;
}
