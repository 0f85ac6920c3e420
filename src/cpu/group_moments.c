/*
 * group_moments.c -- pandas' group-by skew and kurt on the CPU
 * (ZB__OP_GROUP_MOMENT: zb_column_group_moment): the third and fourth
 * standardized moments of each group's values, by group ids made before
 * (zb_table_group_ids), with pandas' bias corrections.
 *
 * Two passes over the rows in order: the first counts and sums each
 * group's values (the mean), the second sums the powers 1..4 of each
 * value's deviation from its group's mean.  The deviations' own sum
 * (the mean's rounding) is taken out of the power sums afterwards, as a
 * corrected two-pass algorithm does, so that results agree with the
 * Series' skew / kurt (zambezi._moments) to rounding.  State is five
 * doubles and a count per group; values are converted to float64 a
 * block at a time.  A group with too few values (skew 3, kurt 4), with
 * no spread, or (skipna false) with a missing value is null.
 */
#include <math.h>
#include <string.h>

#include "cpu/groupby.h"
#include "cpu/kernels.h"

typedef struct moment_state {
  int64_t *cnt;
  double *mean, *s1, *s2, *s3, *s4;
  uint8_t *bad; /* a missing value seen (skipna false) */
} moment_state;

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

zb_status zb__cpu_group_moment(const zb_column *col, const zb_column *ids, int64_t n_groups,
                               zb_moment_op op, bool skipna, zb_column **out, zb_error *err) {
  *out = NULL;
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
  s.s1 = (double *)zb_calloc(G, sizeof(double));
  s.s2 = (double *)zb_calloc(G, sizeof(double));
  s.s3 = (double *)zb_calloc(G, sizeof(double));
  s.s4 = (double *)zb_calloc(G, sizeof(double));
  s.bad = (uint8_t *)zb_calloc(G, 1);
  if (s.cnt == NULL || s.mean == NULL || s.s1 == NULL || s.s2 == NULL || s.s3 == NULL ||
      s.s4 == NULL || s.bad == NULL) {
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
  for (int pass = 0; pass < 2; pass++) {
    for (int64_t b = 0; b < n; b += ZB_BLOCK) {
      const int64_t m = ZB_MIN((int64_t)ZB_BLOCK, n - b);
      zb__convert_block(ZB_FLOAT64, x, src, col->data->data, col->offset + b, m);
      for (int64_t i = 0; i < m; i++) {
        if (!moment_row(ids, idv, col, x[i], b + i, skipna || pass > 0, &s)) continue;
        const int64_t g = idv[b + i];
        if (pass == 0) {
          s.cnt[g]++;
          s.mean[g] += x[i];
        } else {
          const double d = x[i] - s.mean[g], d2 = d * d;
          s.s1[g] += d;
          s.s2[g] += d2;
          s.s3[g] += d2 * d;
          s.s4[g] += d2 * d2;
        }
      }
    }
    if (pass == 0)
      for (size_t g = 0; g < (size_t)n_groups; g++)
        if (s.cnt[g] > 0) s.mean[g] /= (double)s.cnt[g];
  }
  st = zb_column_new(ZB_FLOAT64, n_groups, true, 0, &o, err);
  if (st != ZB_OK) goto done;
  double *res = (double *)o->data->data;
  uint8_t *bits = (uint8_t *)o->validity->data;
  memset(bits, 0, (size_t)((n_groups + 7) / 8));
  const int64_t need = op == ZB_MOMENT_SKEW ? 3 : 4;
  for (int64_t g = 0; g < n_groups; g++) {
    res[g] = 0.0;
    const int64_t k = s.cnt[g];
    if (s.bad[g] || k < need) continue;
    const double nn = (double)k, c = s.s1[g] / nn;
    /* the power sums of the deviations from their own mean c (a rounding
     * residue): binomial expansions of (d - c)^p */
    const double m2 = s.s2[g] - c * s.s1[g];
    const double m3 = s.s3[g] - 3.0 * c * s.s2[g] + 3.0 * c * c * s.s1[g] - nn * c * c * c;
    const double m4 = s.s4[g] - 4.0 * c * s.s3[g] + 6.0 * c * c * s.s2[g] -
                      4.0 * c * c * c * s.s1[g] + nn * c * c * c * c;
    /* no spread: missing, as pandas 3 gives NaN.  Equal values leave
     * deviations all equal to their mean c, so m2 is only the round-off
     * of s2 - c * s1: judged against s2, not an absolute level, so values
     * of any scale with a real spread keep their moment (and a power of
     * m2 that underflows is missing, as pandas' 0 / 0) */
    if (!(m2 > 1e-14 * s.s2[g])) continue;
    if (op == ZB_MOMENT_SKEW ? pow(m2, 1.5) == 0.0 : m2 * m2 == 0.0) continue;
    double v;
    if (op == ZB_MOMENT_SKEW) {
      v = (nn * sqrt(nn - 1.0) / (nn - 2.0)) * (m3 / pow(m2, 1.5));
    } else {
      const double adj = 3.0 * (nn - 1.0) * (nn - 1.0) / ((nn - 2.0) * (nn - 3.0));
      v = nn * (nn + 1.0) * (nn - 1.0) * m4 / ((nn - 2.0) * (nn - 3.0) * m2 * m2) - adj;
    }
    res[g] = v;
    bits[g >> 3] |= (uint8_t)(1u << (g & 7));
  }
  zb_column_recount_nulls(o);
  *out = o;
  o = NULL;
done:
  zb_column_release(o);
  zb_free(s.cnt);
  zb_free(s.mean);
  zb_free(s.s1);
  zb_free(s.s2);
  zb_free(s.s3);
  zb_free(s.s4);
  zb_free(s.bad);
  return st;
}
