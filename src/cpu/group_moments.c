/*
 * group_moments.c -- pandas' group-by skew and kurt on the CPU
 * (ZB__OP_GROUP_MOMENT: zb_column_group_moment): the third and fourth
 * standardized moments of each group's values, by group ids made before
 * (zb_table_group_ids), with pandas' bias corrections.
 *
 * Per group, pandas' own online update in row order (group_skew /
 * group_kurt: algos.pxd moments_add_value, then calc_skew / calc_kurt),
 * so that the digits are pandas'; one pass, state of four doubles and a
 * count per group; values converted to float64 a block at a time.  The
 * Series' skew / kurt (ids NULL: the whole column one group) sum the
 * powers 1..4 of each value's deviation from the mean over two
 * morsel-parallel passes, the deviations' own sum (the mean's rounding)
 * taken out afterwards, as a corrected two-pass algorithm does
 * (moment_value).  A group with too few values (skew 3, kurt 4), with no
 * spread, or (skipna false) with a missing value is null.
 */
#include <math.h>
#include <string.h>

#include "cpu/groupby.h"
#include "cpu/kernels.h"

typedef struct moment_state {
  int64_t *cnt;
  double *mean, *m2, *m3, *m4;
  uint8_t *bad; /* a missing value seen (skipna false) */
} moment_state;

/* pandas' moments_add_value (algos.pxd) for the group of state s at g. */
static inline void moment_add(moment_state *s, int64_t g, double x, bool kurt) {
  const double delta = x - s->mean[g];
  const double n = (double)++s->cnt[g];
  const double delta_n = delta / n;
  const double term1 = delta * delta_n * (n - 1.0);
  if (kurt)
    s->m4[g] += delta_n * (-4.0 * s->m3[g] +
                           delta_n * (6.0 * s->m2[g] + term1 * (n * n - 3.0 * n + 3.0)));
  s->m3[g] += delta_n * (term1 * (n - 2.0) - 3.0 * s->m2[g]);
  s->m2[g] += term1;
  s->mean[g] += delta_n;
}

/* pandas' calc_skew / calc_kurt of k values; false when missing (too few
 * values, or NaN: no spread gives 0 / 0). */
static bool moment_calc(zb_moment_op op, int64_t k, double m2, double m3, double m4,
                        double *v) {
  const double n = (double)k;
  if (op == ZB_MOMENT_SKEW) {
    if (k < 3) return false;
    *v = (m3 / (m2 * sqrt(m2))) * ((n * sqrt(n - 1.0)) / (n - 2.0));
  } else {
    if (k < 4) return false;
    const double inner = n * (n + 1.0) * (m4 / (m2 * m2)) - 3.0 * (n - 1.0);
    *v = ((n - 1.0) / ((n - 2.0) * (n - 3.0))) * inner;
  }
  return !isnan(*v);
}

/* Whether row r (of col, with id v) takes part: id valid, value valid and
 * not NaN.  Sets bad[g] for a missing value of a valid id when !skipna. */
static inline bool moment_row(const zb_column *ids, const int64_t *idv, const zb_column *col,
                              double x, int64_t r, bool skipna, moment_state *s) {
  if (ids->null_count > 0 && !zb_column_is_valid(ids, r)) return false;
  int64_t g = idv[r];
  if ((col->null_count > 0 && !zb_column_is_valid(col, r)) || isnan(x)) {
    if (!skipna) s->bad[g] = 1;
    return false;
  }
  return true;
}

/* The moment of k values from the power sums s1..s4 of their deviations
 * from a first mean (the deviations' own mean s1 / k, the mean's rounding,
 * is taken out by binomial expansions of (d - c)^p): false when it is
 * missing -- too few values (skew 3, kurt 4) or no spread. */
static bool moment_value(zb_moment_op op, int64_t k, double s1, double s2, double s3,
                         double s4, double *v) {
  if (k < (op == ZB_MOMENT_SKEW ? 3 : 4)) return false;
  const double nn = (double)k, c = s1 / nn;
  const double m2 = s2 - c * s1;
  const double m3 = s3 - 3.0 * c * s2 + 3.0 * c * c * s1 - nn * c * c * c;
  const double m4 =
      s4 - 4.0 * c * s3 + 6.0 * c * c * s2 - 4.0 * c * c * c * s1 + nn * c * c * c * c;
  /* no spread: missing, as pandas 3 gives NaN.  Equal values leave
   * deviations all equal to their mean c, so m2 is only the round-off of
   * s2 - c * s1: judged against s2, not an absolute level, so values of
   * any scale with a real spread keep their moment (and a power of m2
   * that underflows is missing, as pandas' 0 / 0) */
  if (!(m2 > 1e-14 * s2)) return false;
  if (op == ZB_MOMENT_SKEW ? pow(m2, 1.5) == 0.0 : m2 * m2 == 0.0) return false;
  if (op == ZB_MOMENT_SKEW) {
    *v = (nn * sqrt(nn - 1.0) / (nn - 2.0)) * (m3 / pow(m2, 1.5));
  } else {
    const double adj = 3.0 * (nn - 1.0) * (nn - 1.0) / ((nn - 2.0) * (nn - 3.0));
    *v = nn * (nn + 1.0) * (nn - 1.0) * m4 / ((nn - 2.0) * (nn - 3.0) * m2 * m2) - adj;
  }
  return true;
}

/* ---- the whole column as one group (ids NULL: Series.skew / kurt) ------ */
/* Two passes over the column, each over every core by morsel: the first
 * counts and sums the values (the mean), the second sums the powers of
 * the deviations.  Within a block of ZB_BLOCK rows, 8 lanes of partial
 * sums, without a branch per row; partials add up in morsel order, so the
 * result does not depend on the number of threads. */
enum { W_CNT, W_S1, W_S2, W_S3, W_S4, W_SUMS };

typedef struct whole_part {
  double acc[W_SUMS][8];
} whole_part;

typedef struct whole_job {
  const zb_column *col;
  whole_part *parts;
  double mean;
  int pass;
} whole_job;

typedef double zb_mo_v4d __attribute__((vector_size(32)));
typedef int64_t zb_mo_v4l __attribute__((vector_size(32)));

/* Adds rows [0, m) of x to the 8 lanes of acc: a value counts when it is
 * not NaN and (valid not NULL) its validity bit, valid from bit voff, is
 * set; pass 0 sums the values, pass 1 the powers of their deviations from
 * mean.  Two vectors of four lanes, without a branch per row. */
ZB_CLONES
static void whole_block(const double *x, const uint8_t *valid, int64_t voff, int64_t m,
                        int pass, double mean, double acc[W_SUMS][8]) {
  const int64_t m8 = m / 8 * 8;
  const zb_mo_v4d zero = {0, 0, 0, 0}, one = zero + 1.0, sh = zero + (pass ? mean : 0.0);
  const zb_mo_v4l lo = {0, 1, 2, 3}, hi = {4, 5, 6, 7}, zero_l = {0, 0, 0, 0};
  zb_mo_v4d a[W_SUMS][2];
  for (int w = 0; w < W_SUMS; w++) {
    memcpy(&a[w][0], acc[w], sizeof a[w][0]);
    memcpy(&a[w][1], acc[w] + 4, sizeof a[w][1]);
  }
  uint64_t word = 0;
  for (int64_t k = 0; k < m8; k += 8) {
    zb_mo_v4d v0, v1;
    memcpy(&v0, x + k, sizeof v0);
    memcpy(&v1, x + k + 4, sizeof v1);
    zb_mo_v4l ok0 = v0 == v0, ok1 = v1 == v1;
    if (valid != NULL) {
      if ((k & 63) == 0) word = zb__load_bits(valid, voff + k, (int)ZB_MIN((int64_t)64, m - k));
      const zb_mo_v4l bits = zero_l + (int64_t)((word >> (k & 63)) & 0xff);
      ok0 &= -((bits >> lo) & 1);
      ok1 &= -((bits >> hi) & 1);
    }
    const zb_mo_v4d d0 = (zb_mo_v4d)((zb_mo_v4l)(v0 - sh) & ok0);
    const zb_mo_v4d d1 = (zb_mo_v4d)((zb_mo_v4l)(v1 - sh) & ok1);
    a[W_CNT][0] += (zb_mo_v4d)((zb_mo_v4l)one & ok0);
    a[W_CNT][1] += (zb_mo_v4d)((zb_mo_v4l)one & ok1);
    a[W_S1][0] += d0;
    a[W_S1][1] += d1;
    if (pass) {
      const zb_mo_v4d e0 = d0 * d0, e1 = d1 * d1;
      a[W_S2][0] += e0;
      a[W_S2][1] += e1;
      a[W_S3][0] += e0 * d0;
      a[W_S3][1] += e1 * d1;
      a[W_S4][0] += e0 * e0;
      a[W_S4][1] += e1 * e1;
    }
  }
  for (int w = 0; w < W_SUMS; w++) {
    memcpy(acc[w], &a[w][0], sizeof a[w][0]);
    memcpy(acc[w] + 4, &a[w][1], sizeof a[w][1]);
  }
  for (int64_t i = m8; i < m; i++) { /* the tail, in lane 0 */
    if (!(x[i] == x[i]) || (valid != NULL && !zb__load_bits(valid, voff + i, 1))) continue;
    const double d = x[i] - (pass ? mean : 0.0), d2 = d * d;
    acc[W_CNT][0] += 1.0;
    acc[W_S1][0] += d;
    if (pass) {
      acc[W_S2][0] += d2;
      acc[W_S3][0] += d2 * d;
      acc[W_S4][0] += d2 * d2;
    }
  }
}

static void whole_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  whole_job *j = (whole_job *)ctx;
  const zb_column *c = j->col;
  const int64_t start = task * ZB_MORSEL_ROWS;
  const int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, c->length - start);
  whole_part *p = &j->parts[task];
  const zb_type_id src = zb__physical(c->type);
  const uint8_t *valid = c->null_count > 0 ? (const uint8_t *)c->validity->data : NULL;
  double buf[ZB_BLOCK];
  for (int64_t b = 0; b < n; b += ZB_BLOCK) {
    const int64_t m = ZB_MIN((int64_t)ZB_BLOCK, n - b);
    const double *x = buf;
    if (src == ZB_FLOAT64)
      x = (const double *)c->data->data + c->offset + start + b;
    else
      zb__convert_block(ZB_FLOAT64, buf, src, c->data->data, c->offset + start + b, m);
    whole_block(x, valid, c->offset + start + b, m, j->pass, j->mean, p->acc);
  }
}

static double lanes(const double a[8]) {
  return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

static zb_status whole_moment(const zb_column *col, zb_moment_op op, bool skipna,
                              zb_column **out, zb_error *err) {
  const int64_t n_morsels = zb__morsels(col->length);
  whole_job j = {col, NULL, 0.0, 0};
  double tot[W_SUMS] = {0};
  bool missing = false;
  zb_status st = ZB_OK;
  if (n_morsels > 0) {
    j.parts = (whole_part *)zb_calloc((size_t)n_morsels, sizeof(whole_part));
    if (j.parts == NULL)
      return zb_error_set(err, ZB_ENOMEM, "out of host memory in %s (%lld partials)",
                          op == ZB_MOMENT_SKEW ? "skew" : "kurt", (long long)n_morsels);
  }
  for (int pass = 0; pass < 2 && n_morsels > 0; pass++) {
    j.pass = pass;
    for (int64_t t = 0; t < n_morsels; t++) memset(j.parts[t].acc, 0, sizeof j.parts[t].acc);
    st = zb_parallel_for(n_morsels, whole_morsel, &j, err);
    if (st != ZB_OK) break;
    memset(tot, 0, sizeof tot);
    for (int64_t t = 0; t < n_morsels; t++)
      for (int w = 0; w < W_SUMS; w++) tot[w] += lanes(j.parts[t].acc[w]);
    if (pass == 0) {
      missing = tot[W_CNT] < (double)col->length;
      if (missing && !skipna) break; /* missing, whatever the values */
      j.mean = tot[W_CNT] > 0 ? tot[W_S1] / tot[W_CNT] : 0.0;
    }
  }
  zb_free(j.parts);
  if (st != ZB_OK) return st;
  zb_column *o = NULL;
  ZB_RETURN_NOT_OK(zb_column_new(ZB_FLOAT64, 1, true, 0, &o, err));
  double *res = (double *)o->data->data;
  uint8_t *bits = (uint8_t *)o->validity->data;
  bits[0] = 0;
  res[0] = 0.0;
  if (n_morsels > 0 && !(missing && !skipna) &&
      moment_value(op, (int64_t)tot[W_CNT], tot[W_S1], tot[W_S2], tot[W_S3], tot[W_S4], res))
    bits[0] = 1;
  zb_column_recount_nulls(o);
  *out = o;
  return ZB_OK;
}

zb_status zb__cpu_group_moment(const zb_column *col, const zb_column *ids, int64_t n_groups,
                               zb_moment_op op, bool skipna, zb_column **out, zb_error *err) {
  *out = NULL;
  if (ids == NULL) return whole_moment(col, op, skipna, out, err);
  const int64_t n = col->length;
  const int64_t *idv = (const int64_t *)ids->data->data + ids->offset;
  const zb_type_id src = zb__physical(col->type);
  const size_t G = (size_t)ZB_MAX(n_groups, 1);
  moment_state s;
  memset(&s, 0, sizeof s);
  zb_column *o = NULL;
  zb_status st = ZB_OK;
  s.cnt = (int64_t *)zb_calloc(G, sizeof(int64_t));
  s.mean = (double *)zb_calloc(G, sizeof(double));
  s.m2 = (double *)zb_calloc(G, sizeof(double));
  s.m3 = (double *)zb_calloc(G, sizeof(double));
  s.m4 = (double *)zb_calloc(G, sizeof(double));
  s.bad = (uint8_t *)zb_calloc(G, 1);
  if (s.cnt == NULL || s.mean == NULL || s.m2 == NULL || s.m3 == NULL || s.m4 == NULL ||
      s.bad == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory in group-by %s (%lld groups)",
                      op == ZB_MOMENT_SKEW ? "skew" : "kurt", (long long)n_groups);
    goto done;
  }
  /* ids in range (the core checked the type; the values are checked here,
   * once, before they index the state) */
  for (int64_t r = 0; r < n; r++) {
    if (ids->null_count > 0 && !zb_column_is_valid(ids, r)) continue;
    if ((uint64_t)idv[r] >= (uint64_t)n_groups) {
      st = zb_error_set(err, ZB_EINDEX, "group-by %s: group id %lld at row %lld is outside "
                        "[0, %lld)", op == ZB_MOMENT_SKEW ? "skew" : "kurt",
                        (long long)idv[r], (long long)r, (long long)n_groups);
      goto done;
    }
  }
  double x[ZB_BLOCK];
  const bool kurt = op == ZB_MOMENT_KURT;
  for (int64_t b = 0; b < n; b += ZB_BLOCK) {
    const int64_t m = ZB_MIN((int64_t)ZB_BLOCK, n - b);
    zb__convert_block(ZB_FLOAT64, x, src, col->data->data, col->offset + b, m);
    for (int64_t i = 0; i < m; i++)
      if (moment_row(ids, idv, col, x[i], b + i, skipna, &s))
        moment_add(&s, idv[b + i], x[i], kurt);
  }
  st = zb_column_new(ZB_FLOAT64, n_groups, true, 0, &o, err);
  if (st != ZB_OK) goto done;
  double *res = (double *)o->data->data;
  uint8_t *bits = (uint8_t *)o->validity->data;
  memset(bits, 0, (size_t)((n_groups + 7) / 8));
  for (int64_t g = 0; g < n_groups; g++) {
    res[g] = 0.0;
    if (s.bad[g]) continue;
    if (moment_calc(op, s.cnt[g], s.m2[g], s.m3[g], s.m4[g], &res[g]))
      bits[g >> 3] |= (uint8_t)(1u << (g & 7));
  }
  zb_column_recount_nulls(o);
  *out = o;
  o = NULL;
done:
  zb_column_release(o);
  zb_free(s.cnt);
  zb_free(s.mean);
  zb_free(s.m2);
  zb_free(s.m3);
  zb_free(s.m4);
  zb_free(s.bad);
  return st;
}
