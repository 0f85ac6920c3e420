/*
 * segment_agg.c -- aggregation over segments of consecutive rows on the
 * CPU (ZB__OP_GROUPBY_SEGMENTS: zb_table_groupby_segments).  Group g is
 * the rows [off[g], off[g + 1]): the bins of resample over times in
 * order, or any rows laid out by group.
 *
 * A task owns a range of segments (cut so that each range holds about a
 * morsel of rows; the cut never splits a segment, so every result is the
 * same for any thread count) and reduces each segment straight through
 * its rows: the state of one group lives in registers, with no group id
 * per row and no accumulator array to look up.  Values that are not the
 * compute type (int64, uint64 or double) are converted a block of
 * ZB_BLOCK rows at a time on the stack; validity is read a word of 64 rows
 * at a time.
 *
 * The semantics are those of src/cpu/groupby_agg.c, so results equal
 * zb_table_groupby_ids's over the same groups: nulls and NaN skipped;
 * integer sums exact in 128 bits (wrapping when narrowed), float sums and
 * means in pandas' digits as the group-by's (pandas' Kahan steps in row
 * order, zb__pd_kahan, or np.add.reduceat when the column has no missing
 * value: zb__reduceat_sum); means of integers
 * rounded once from the exact sum (zb__exact_mean); min / max / first /
 * last keep the row of the chosen value and take it from the column.
 */
#include <math.h>

#include "core/exact_mean.h"
#include "cpu/groupby.h"

__extension__ typedef __int128 seg_i128;

enum { K_NONE, K_I64, K_U64, K_F64 };

/* One aggregation's inputs and its per-group results. */
typedef struct seg_agg {
  zb_agg_op op;
  int kind;
  const zb_column *col; /* NULL for SIZE */
  bool direct;          /* col's values are the compute type already */
  bool reduceat;        /* float SUM / MEAN of a column without missing values */
  double *f;            /* SUM / MEAN of floats, MEAN of integers */
  uint64_t *u;          /* SUM of integers (two's complement, wrapped) */
  int64_t *cnt;         /* COUNT, SIZE; MEAN: values (0: null) */
  int64_t *row;         /* MIN, MAX, FIRST, LAST: the chosen row, or -1 */
} seg_agg;

typedef struct seg_job {
  const int64_t *off;
  int64_t n_groups;
  seg_agg *aggs;
  int64_t n_aggs;
  const int64_t *cut; /* n_tasks + 1 group boundaries */
} seg_job;

static bool is_float(zb_type_id t) { return t == ZB_FLOAT32 || t == ZB_FLOAT64; }
static bool is_unsigned(zb_type_id t) {
  return t == ZB_UINT8 || t == ZB_UINT16 || t == ZB_UINT32 || t == ZB_UINT64;
}
static zb_type_id kind_type(int kind) {
  return kind == K_I64 ? ZB_INT64 : kind == K_U64 ? ZB_UINT64 : ZB_FLOAT64;
}

/* The values of rows [b, e) of a (e - b <= ZB_BLOCK) as the compute type:
 * a pointer p with p[r] the value of row r (the column's own memory, or
 * buf converted). */
static const void *block_values(const seg_agg *a, int64_t b, int64_t e, uint64_t *buf) {
  const zb_column *c = a->col;
  if (a->direct) return (const char *)c->data->data + c->offset * 8;
  zb__convert_block(kind_type(a->kind), buf, zb__physical(c->type), c->data->data,
                    c->offset + b, e - b);
  return (const void *)((uintptr_t)buf - (uintptr_t)b * 8);
}

/* Rows [s, e) of one segment, a block of ZB_BLOCK at a time: in BODY, r is
 * the row, ok whether its value is present (valid, and not NaN for
 * floats: x holds it as V_T), and `stop = true` leaves the loop. */
#define SEG_ROWS(V_T, BODY)                                                         \
  do {                                                                              \
    uint64_t buf_[ZB_BLOCK];                                                        \
    bool stop = false;                                                              \
    for (int64_t b_ = s; b_ < e && !stop; b_ += ZB_BLOCK) {                         \
      int64_t be_ = ZB_MIN(e, b_ + ZB_BLOCK);                                       \
      const V_T *v_ = (const V_T *)block_values(a, b_, be_, buf_);                  \
      for (int64_t w_ = b_; w_ < be_ && !stop; w_ += 64) {                          \
        int m_ = (int)ZB_MIN((int64_t)64, be_ - w_);                                \
        uint64_t valid_ = zb__valid_word(a->col, w_, m_);                           \
        for (int q_ = 0; q_ < m_; q_++) {                                           \
          int64_t r = w_ + q_;                                                      \
          V_T x = v_[r];                                                            \
          bool ok = ((valid_ >> q_) & 1) && x == x;                                 \
          BODY                                                                      \
          if (stop) break;                                                          \
        }                                                                           \
      }                                                                             \
    }                                                                               \
  } while (0)

static void seg_sum(const seg_agg *a, int64_t g, int64_t s, int64_t e) {
  int64_t n = 0;
  if (a->kind == K_F64) {
    /* float32: pandas sums in float32, and a reduceat mean in double */
    bool f32 = a->col->type == ZB_FLOAT32;
    if (a->reduceat) { /* pandas' np.add.reduceat (groupby.h) */
      n = e - s;
      double v = n > 0 ? zb__reduceat_sum(a->col, s, n, f32 && a->op == ZB_AGG_SUM) : 0.0;
      a->f[g] = a->op == ZB_AGG_MEAN ? (n > 0 ? v / (double)n : 0.0) : v;
      if (a->op == ZB_AGG_MEAN) a->cnt[g] = n;
      return;
    }
    /* pandas' Kahan steps (zb__pd_kahan); a skipped row changes nothing */
    double sum = 0.0, comp = 0.0;
    zb__kahan_rule rule = a->op == ZB_AGG_MEAN ? ZB__KAHAN_MEAN : ZB__KAHAN_SUM;
    if (f32) {
      float sf = 0.0f, cf = 0.0f;
      SEG_ROWS(double, n += ok; float s2 = sf; float c2 = cf;
               zb__pd_kahanf(&s2, &c2, (float)x, rule); sf = ok ? s2 : sf; cf = ok ? c2 : cf;);
      sum = sf;
    } else {
      SEG_ROWS(double, n += ok; double s2 = sum; double c2 = comp;
               zb__pd_kahan(&s2, &c2, x, rule); sum = ok ? s2 : sum; comp = ok ? c2 : comp;);
    }
    a->f[g] = a->op == ZB_AGG_MEAN ? (n > 0 ? sum / (double)n : 0.0) : sum;
  } else {
    seg_i128 sum = 0;
    if (a->kind == K_U64)
      SEG_ROWS(uint64_t, n += ok; sum += (seg_i128)(ok ? x : 0););
    else
      SEG_ROWS(int64_t, n += ok; sum += (seg_i128)(ok ? x : 0););
    if (a->op == ZB_AGG_MEAN)
      a->f[g] = n > 0 ? zb__exact_mean((int64_t)(sum >> 64), (uint64_t)sum, n) : 0.0;
    else
      a->u[g] = (uint64_t)(unsigned __int128)sum;
  }
  if (a->op == ZB_AGG_MEAN) a->cnt[g] = n;
}

static void seg_count(const seg_agg *a, int64_t g, int64_t s, int64_t e) {
  int64_t n = 0;
  if (a->op == ZB_AGG_SIZE) {
    n = e - s;
  } else if (a->kind == K_F64) {
    SEG_ROWS(double, n += ok;);
  } else {
    for (int64_t w = s; w < e; w += 64) {
      int m = (int)ZB_MIN((int64_t)64, e - w);
      n += __builtin_popcountll(zb__valid_word(a->col, w, m));
    }
  }
  a->cnt[g] = n;
}

/* The row of the first (last) present value of the segment, or -1. */
static void seg_first_last(const seg_agg *a, int64_t g, int64_t s, int64_t e) {
  int64_t row = -1;
  const bool last = a->op == ZB_AGG_LAST;
  if (a->kind == K_F64) {
    if (!last) {
      SEG_ROWS(double, if (ok) { row = r; stop = true; });
    } else { /* backwards, a row at a time: stops at the last present value */
      for (int64_t r = e - 1; r >= s && row < 0; r--) {
        if (!zb_column_is_valid(a->col, r)) continue;
        uint64_t buf[1];
        const double *v = (const double *)block_values(a, r, r + 1, buf);
        if (v[r] == v[r]) row = r;
      }
    }
  } else {
    for (int64_t i = 0; i < e - s && row < 0; i++) {
      int64_t r = last ? e - 1 - i : s + i;
      if (zb_column_is_valid(a->col, r)) row = r;
    }
  }
  a->row[g] = row;
}

static void seg_min_max(const seg_agg *a, int64_t g, int64_t s, int64_t e) {
  int64_t row = -1;
  const bool mx = a->op == ZB_AGG_MAX;
  switch (a->kind) {
    case K_F64: {
      double best = 0;
      SEG_ROWS(double, if (ok && (row < 0 || (mx ? x > best : x < best))) {
        best = x;
        row = r;
      });
      break;
    }
    case K_U64: {
      uint64_t best = 0;
      SEG_ROWS(uint64_t, if (ok && (row < 0 || (mx ? x > best : x < best))) {
        best = x;
        row = r;
      });
      break;
    }
    default: {
      int64_t best = 0;
      SEG_ROWS(int64_t, if (ok && (row < 0 || (mx ? x > best : x < best))) {
        best = x;
        row = r;
      });
      break;
    }
  }
  a->row[g] = row;
}

static void seg_task(void *ctx, int64_t task, int worker) {
  (void)worker;
  seg_job *j = (seg_job *)ctx;
  for (int64_t x = 0; x < j->n_aggs; x++) {
    const seg_agg *a = &j->aggs[x];
    for (int64_t g = j->cut[task]; g < j->cut[task + 1]; g++) {
      int64_t s = j->off[g], e = j->off[g + 1];
      switch (a->op) {
        case ZB_AGG_SUM:
        case ZB_AGG_MEAN: seg_sum(a, g, s, e); break;
        case ZB_AGG_COUNT:
        case ZB_AGG_SIZE: seg_count(a, g, s, e); break;
        case ZB_AGG_FIRST:
        case ZB_AGG_LAST: seg_first_last(a, g, s, e); break;
        default: seg_min_max(a, g, s, e); break;
      }
    }
  }
}

/* The first group whose segment starts at or after row r. */
static int64_t group_at(const int64_t *off, int64_t G, int64_t r) {
  int64_t lo = 0, hi = G;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (off[mid] < r)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static zb_status nomem(zb_error *err, int64_t n) {
  return zb_error_set(err, ZB_ENOMEM, "out of host memory in group-by by segments (%lld "
                      "groups)", (long long)n);
}

/* The result column of aggregation a over G groups; consumes a's arrays. */
static zb_status seg_result(seg_agg *a, int64_t G, zb_column **out, zb_error *err) {
  zb_column *o = NULL;
  switch (a->op) {
    case ZB_AGG_SUM:
      if (a->kind == K_F64) {
        ZB_RETURN_NOT_OK(zb_column_new(ZB_FLOAT64, G, false, 0, &o, err));
        memcpy(o->data->data, a->f, (size_t)G * 8);
      } else {
        ZB_RETURN_NOT_OK(zb_column_new(a->kind == K_U64 ? ZB_UINT64 : ZB_INT64, G, false, 0, &o,
                                       err));
        memcpy(o->data->data, a->u, (size_t)G * 8);
      }
      break;
    case ZB_AGG_MEAN: {
      ZB_RETURN_NOT_OK(zb_column_new(ZB_FLOAT64, G, true, 0, &o, err));
      memcpy(o->data->data, a->f, (size_t)G * 8);
      uint8_t *bits = (uint8_t *)o->validity->data;
      for (int64_t g = 0; g < G; g++) zb_bit_set(bits, g, a->cnt[g] > 0);
      zb_column_recount_nulls(o);
      break;
    }
    case ZB_AGG_COUNT:
    case ZB_AGG_SIZE:
      ZB_RETURN_NOT_OK(zb_column_new(ZB_INT64, G, false, 0, &o, err));
      memcpy(o->data->data, a->cnt, (size_t)G * 8);
      break;
    default: { /* the chosen rows, taken from the column (null: none) */
      zb_column *idx = NULL;
      ZB_RETURN_NOT_OK(zb_column_new(ZB_INT64, G, true, 0, &idx, err));
      int64_t *iv = (int64_t *)idx->data->data;
      uint8_t *bits = (uint8_t *)idx->validity->data;
      for (int64_t g = 0; g < G; g++) {
        iv[g] = a->row[g] < 0 ? 0 : a->row[g];
        zb_bit_set(bits, g, a->row[g] >= 0);
      }
      zb_column_recount_nulls(idx);
      zb_status st = zb__cpu_take(a->col, idx, &o, err);
      zb_column_release(idx);
      ZB_RETURN_NOT_OK(st);
      break;
    }
  }
  *out = o;
  return ZB_OK;
}

zb_status zb__cpu_groupby_segments(const zb_table *t, const zb_column *offsets, int64_t n_aggs,
                                   const zb_agg *aggs, zb_table **out, zb_error *err) {
  *out = NULL;
  const int64_t G = offsets->length - 1;
  const int64_t *off = (const int64_t *)offsets->data->data + offsets->offset;
  const int64_t rows = off[G] - off[0];
  /* tasks of about a morsel of rows each, cut at segment starts */
  const int64_t n_tasks = ZB_MAX(ZB_MIN(G, zb__morsels(rows)), 1);
  seg_agg *sa = (seg_agg *)zb_calloc((size_t)ZB_MAX(n_aggs, 1), sizeof(seg_agg));
  int64_t *cut = (int64_t *)zb_malloc((size_t)(n_tasks + 1) * sizeof(int64_t));
  zb_column **cols = (zb_column **)zb_calloc((size_t)ZB_MAX(n_aggs, 1), sizeof(zb_column *));
  const char **names = (const char **)zb_calloc((size_t)ZB_MAX(n_aggs, 1), sizeof(char *));
  zb_status st = ZB_OK;
  if (sa == NULL || cut == NULL || cols == NULL || names == NULL) {
    st = nomem(err, G);
    goto done;
  }
  for (int64_t x = 0; x < n_aggs && st == ZB_OK; x++) {
    seg_agg *a = &sa[x];
    const zb_agg *ag = &aggs[x];
    a->op = ag->op;
    a->col = ag->op == ZB_AGG_SIZE ? NULL : t->columns[ag->column];
    zb_type_id ty = a->col != NULL ? a->col->type : ZB_INT64;
    a->kind = is_float(ty) ? K_F64 : is_unsigned(ty) ? K_U64 : K_I64;
    if (a->op == ZB_AGG_COUNT || a->op == ZB_AGG_FIRST || a->op == ZB_AGG_LAST)
      a->kind = is_float(ty) ? K_F64 : K_NONE; /* only NaN needs the values */
    a->direct = a->kind != K_NONE && zb__physical(ty) == kind_type(a->kind) && ty != ZB_BOOL;
    if ((a->op == ZB_AGG_SUM || a->op == ZB_AGG_MEAN) && a->kind == K_F64)
      st = zb__float_complete(a->col, &a->reduceat, err);
    size_t bytes = (size_t)ZB_MAX(G, 1) * 8;
    switch (a->op) {
      case ZB_AGG_SUM:
        if (a->kind == K_F64)
          a->f = (double *)zb_malloc(bytes);
        else
          a->u = (uint64_t *)zb_malloc(bytes);
        if (a->f == NULL && a->u == NULL) st = nomem(err, G);
        break;
      case ZB_AGG_MEAN:
        a->f = (double *)zb_malloc(bytes);
        a->cnt = (int64_t *)zb_malloc(bytes);
        if (a->f == NULL || a->cnt == NULL) st = nomem(err, G);
        break;
      case ZB_AGG_COUNT:
      case ZB_AGG_SIZE:
        a->cnt = (int64_t *)zb_malloc(bytes);
        if (a->cnt == NULL) st = nomem(err, G);
        break;
      default:
        a->row = (int64_t *)zb_malloc(bytes);
        if (a->row == NULL) st = nomem(err, G);
        break;
    }
  }
  if (st != ZB_OK) goto done;
  for (int64_t k = 0; k <= n_tasks; k++)
    cut[k] = k == n_tasks ? G : group_at(off, G, off[0] + rows * k / n_tasks);
  if (G > 0) {
    seg_job j = {off, G, sa, n_aggs, cut};
    st = zb_parallel_for(n_tasks, seg_task, &j, err);
  }
  for (int64_t x = 0; x < n_aggs && st == ZB_OK; x++) {
    st = seg_result(&sa[x], G, &cols[x], err);
    names[x] = zb__groupby_result_name(t, 0, NULL, aggs, x);
  }
  if (st == ZB_OK) st = zb_table_make(n_aggs, cols, names, out, err);
done:
  for (int64_t x = 0; sa != NULL && x < n_aggs; x++) {
    zb_free(sa[x].f);
    zb_free(sa[x].u);
    zb_free(sa[x].cnt);
    zb_free(sa[x].row);
    if (cols != NULL) zb_column_release(cols[x]);
  }
  zb_free(sa);
  zb_free(cut);
  zb_free(cols);
  zb_free(names);
  return st;
}
