/*
 * rules.c -- numeric rules every backend applies the same way, so that a
 * result does not depend on where it was computed: a statistic's scalar from
 * its totals, the rank and interpolation of a quantile (numpy's linear
 * method), and the power of ten round scales by.  The backends call these
 * on the host after their own scans; nothing here touches column memory.
 */
#include <math.h>

#include "core/internal.h"

zb_status zb__stat_scalar(zb_stat_op op, zb_type_id t, int64_t ddof, const zb_stat_totals *a,
                          zb_scalar *out, zb_error *err) {
  switch (op) {
    case ZB_STAT_VAR:
    case ZB_STAT_STD: {
      out->type = ZB_FLOAT64;
      if (a->count - ddof <= 0) {
        out->is_null = true;
        out->v.f = NAN;
        break;
      }
      double m2 = a->m2;
      if (!isfinite(a->mean)) m2 = NAN;
      if (m2 < 0) m2 = 0;
      double var = m2 / (double)(a->count - ddof);
      if (t == ZB_FLOAT32) {
        /* pandas rounds a float32 column's variance to float32 and takes
         * the square root of that in float32 */
        float v32 = (float)var;
        out->v.f = op == ZB_STAT_STD ? (double)sqrtf(v32) : (double)v32;
        break;
      }
      out->v.f = op == ZB_STAT_STD ? sqrt(var) : var;
      break;
    }
    case ZB_STAT_PROD:
      if (zb_type_is_float(t)) {
        out->type = ZB_FLOAT64;
        out->v.f = a->fprod;
      } else if (zb_type_is_integer(t) && !zb_type_is_signed(t)) {
        out->type = ZB_UINT64;
        out->v.u = a->iprod;
      } else {
        out->type = ZB_INT64;
        out->v.i = (int64_t)a->iprod;
      }
      break;
    case ZB_STAT_ANY:
      out->type = ZB_BOOL;
      out->v.b = a->any;
      break;
    case ZB_STAT_ALL:
      out->type = ZB_BOOL;
      out->v.b = a->all;
      break;
    case ZB_STAT_ARGMIN:
    case ZB_STAT_ARGMAX:
      out->type = ZB_INT64;
      out->is_null = a->pos < 0;
      out->v.i = a->pos;
      break;
    default:
      return zb_error_set(err, ZB_EINVAL, "unknown statistic %d", (int)op);
  }
  return ZB_OK;
}

int64_t zb__quantile_rank(int64_t cnt, double q, double *t) {
  double h = (double)(cnt - 1) * q;
  double fl = floor(h);
  int64_t k = (int64_t)fl;
  if (k > cnt - 1) k = cnt - 1;
  if (k < 0) k = 0;
  *t = h - fl;
  return k;
}

double zb__quantile_lerp(double lo, double hi, double t, bool median) {
  /* numpy's _lerp */
  double diff = hi - lo;
  double r = t >= 0.5 ? hi - diff * (1.0 - t) : lo + diff * t;
  if (median && t == 0.5) r = (lo + hi) / 2.0;
  if (t == 0) r = lo;
  return r;
}

/* numpy's power_of_ten (exactly: repeated multiplication past 1e9). */
double zb__power_of_ten(int n) {
  static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
  if (n > 400) n = 400; /* already inf: same result, bounded loop */
  if (n < 9) return p10[n];
  double r = 1e9;
  while (n-- > 9) r *= 10.;
  return r;
}
