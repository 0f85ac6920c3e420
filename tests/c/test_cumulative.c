/*
 * test_cumulative.c -- unit tests of cumsum / cumprod / cummin / cummax
 * (zb_column_cumulative, zb_column_group_cumulative).  Every result is
 * checked row by row against a plain sequential loop here, for every
 * numeric type and date32 / timestamp, with nulls (and NaN in floats),
 * through slices at an odd offset, at lengths around the 64-row words and
 * the morsel size (so carries cross morsels), with skipna true and false,
 * 1 and 3 threads, per group with null group ids; plus the overflow that
 * wraps as numpy's int64 / uint64 do, the result types, bad arguments and
 * the allocator failing each allocation in turn.
 *
 * Values are chosen so that every order of evaluation gives the same
 * result (small integers in floats, products of +-1 and rare powers of
 * two): the morsel scan folds in another order than the loop.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "zambezi/compute.h"

static uint64_t rng(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

#define OFF 5

enum { D_S, D_U, D_F }; /* the domain a value is read in */

static int domain(zb_type_id t) {
  if (zb_type_is_float(t)) return D_F;
  if (t >= ZB_UINT8 && t <= ZB_UINT64) return D_U;
  return D_S;
}

/* Value of row p (physical) of a buffer of type t, as int64 / uint64 /
 * double. */
static int64_t get_s(zb_type_id t, const void *d, int64_t p) {
  switch (t) {
    case ZB_INT8: return ((const int8_t *)d)[p];
    case ZB_INT16: return ((const int16_t *)d)[p];
    case ZB_INT32:
    case ZB_DATE32: return ((const int32_t *)d)[p];
    default: return ((const int64_t *)d)[p];
  }
}
static uint64_t get_u(zb_type_id t, const void *d, int64_t p) {
  switch (t) {
    case ZB_UINT8: return ((const uint8_t *)d)[p];
    case ZB_UINT16: return ((const uint16_t *)d)[p];
    case ZB_UINT32: return ((const uint32_t *)d)[p];
    default: return ((const uint64_t *)d)[p];
  }
}
static double get_f(zb_type_id t, const void *d, int64_t p) {
  return t == ZB_FLOAT32 ? (double)((const float *)d)[p] : ((const double *)d)[p];
}

static void put(zb_type_id t, void *d, int64_t p, int64_t v, double f) {
  switch (t) {
    case ZB_INT8: ((int8_t *)d)[p] = (int8_t)v; break;
    case ZB_INT16: ((int16_t *)d)[p] = (int16_t)v; break;
    case ZB_INT32:
    case ZB_DATE32: ((int32_t *)d)[p] = (int32_t)v; break;
    case ZB_INT64:
    case ZB_TIMESTAMP: ((int64_t *)d)[p] = v; break;
    case ZB_UINT8: ((uint8_t *)d)[p] = (uint8_t)v; break;
    case ZB_UINT16: ((uint16_t *)d)[p] = (uint16_t)v; break;
    case ZB_UINT32: ((uint32_t *)d)[p] = (uint32_t)v; break;
    case ZB_UINT64: ((uint64_t *)d)[p] = (uint64_t)v; break;
    case ZB_FLOAT32: ((float *)d)[p] = (float)f; break;
    default: ((double *)d)[p] = f; break;
  }
}

/* n rows of type t at offset OFF, about 1 in miss_every rows missing (0:
 * none); floats have NaN for every other missing row.  prod: values whose
 * products stay exact in every order. */
static zb_column *make(zb_type_id t, int64_t n, int miss_every, bool prod, uint64_t seed) {
  zb_error err = {{0}};
  zb_column *base = NULL, *s = NULL;
  int64_t len = n + OFF;
  ZB_CHECK_OK(zb_column_new(t, len, true, 0, &base, &err), &err);
  if (base == NULL) return NULL;
  for (int64_t p = 0; p < len; p++) {
    uint64_t r = rng(&seed);
    int64_t v = (int64_t)(r % 23) - (domain(t) == D_U ? 0 : 11);
    double f = (double)v;
    if (prod && domain(t) == D_F) f = (r & 1) ? 1.0 : -1.0, f *= (p % 997 == 1) ? 2.0 : (p % 997 == 500) ? 0.5 : 1.0;
    if (!prod && domain(t) == D_S && t != ZB_INT8) v = (int64_t)(r >> 20) - (int64_t)(r >> 21);
    if (domain(t) == D_U && t == ZB_UINT64) v = (int64_t)r;
    bool miss = miss_every > 0 && (r >> 40) % (uint64_t)miss_every == 0;
    bool nan = miss && domain(t) == D_F && (p & 1);
    put(t, base->data->data, p, v, nan ? NAN : f);
    if (miss && !nan) zb_bit_set((uint8_t *)base->validity->data, p, false);
  }
  zb_column_recount_nulls(base);
  ZB_CHECK_OK(zb_column_slice(base, OFF, n, &s, &err), &err);
  zb_column_release(base);
  return s;
}

static bool missing(const zb_column *c, int64_t i) {
  if (!zb_column_is_valid(c, i)) return true;
  if (domain(c->type) != D_F) return false;
  double v = get_f(c->type, c->data->data, c->offset + i);
  return v != v;
}

typedef struct acc {
  int64_t s;
  uint64_t u;
  double f;
  bool have, dead;
} acc;

static void fold(acc *a, zb_cum_op op, int d, int64_t s, uint64_t u, double f) {
  if (!a->have) {
    a->s = s, a->u = u, a->f = f, a->have = true;
    return;
  }
  switch (op) {
    case ZB_CUM_SUM: a->s = (int64_t)((uint64_t)a->s + (uint64_t)s), a->u += u, a->f += f; break;
    case ZB_CUM_PROD: a->s = (int64_t)((uint64_t)a->s * (uint64_t)s), a->u *= u, a->f *= f; break;
    case ZB_CUM_MIN:
      a->s = s < a->s ? s : a->s, a->u = u < a->u ? u : a->u, a->f = f < a->f ? f : a->f;
      break;
    default:
      a->s = s > a->s ? s : a->s, a->u = u > a->u ? u : a->u, a->f = f > a->f ? f : a->f;
      break;
  }
  (void)d;
}

/* The cumulative op of c (per group when ids is not NULL) checked row by
 * row against a sequential loop. */
static bool check(const zb_column *c, const zb_column *ids, int64_t G, zb_cum_op op,
                  bool skipna, const char *what) {
  zb_error err = {{0}};
  zb_column *r = NULL;
  zb_status st = ids ? zb_column_group_cumulative(c, ids, G, op, skipna, &r, &err)
                     : zb_column_cumulative(c, op, skipna, &r, &err);
  ZB_CHECK_OK(st, &err);
  if (r == NULL) return false;
  zb_type_id want;
  ZB_CHECK_OK(zb_cum_result_type(c->type, op, &want, &err), &err);
  bool ok = r->type == want && r->length == c->length;
  if (!ok) zb_test_fail(__FILE__, __LINE__, "%s: type or length", what);
  int d = domain(c->type);
  int64_t slots = ids ? G : 1;
  acc *a = (acc *)calloc((size_t)(slots > 0 ? slots : 1), sizeof(acc));
  for (int64_t i = 0; i < c->length && ok; i++) {
    bool valid_out;
    acc *x = NULL;
    if (ids && !zb_column_is_valid(ids, i)) {
      valid_out = false;
    } else {
      x = &a[ids ? ((const int64_t *)ids->data->data)[ids->offset + i] : 0];
      bool miss = missing(c, i);
      if (miss && !skipna) x->dead = true;
      valid_out = !miss && !x->dead;
      if (valid_out) {
        int64_t p = c->offset + i;
        fold(x, op, d, d == D_S ? get_s(c->type, c->data->data, p) : 0,
             d == D_U ? get_u(c->type, c->data->data, p) : 0,
             d == D_F ? get_f(c->type, c->data->data, p) : 0);
      }
    }
    ok = zb_column_is_valid(r, i) == valid_out;
    if (ok && valid_out) {
      int64_t p = r->offset + i;
      if (d == D_S) ok = get_s(r->type, r->data->data, p) == x->s;
      else if (d == D_U) ok = get_u(r->type, r->data->data, p) == x->u;
      else ok = get_f(r->type, r->data->data, p) == x->f;
    }
    if (!ok)
      zb_test_fail(__FILE__, __LINE__, "%s %s skipna=%d: row %lld of %lld wrong", what,
                   zb_cum_op_name(op), (int)skipna, (long long)i, (long long)c->length);
  }
  free(a);
  zb_column_release(r);
  return ok;
}

static const zb_type_id k_types[] = {ZB_INT8,   ZB_INT16,   ZB_INT32,  ZB_INT64,
                                     ZB_UINT8,  ZB_UINT16,  ZB_UINT32, ZB_UINT64,
                                     ZB_FLOAT32, ZB_FLOAT64, ZB_DATE32, ZB_TIMESTAMP};
#define N_TYPES ((int)(sizeof k_types / sizeof k_types[0]))

static bool takes(zb_type_id t, zb_cum_op op) {
  return !(t == ZB_DATE32 || t == ZB_TIMESTAMP) || op == ZB_CUM_MIN || op == ZB_CUM_MAX;
}

ZB_TEST(test_cumulative_all_types_morsels) {
  zb_error err = {{0}};
  const int64_t lengths[] = {0, 1, 63, 64, 65, 1000, ZB_MORSEL_ROWS - 1, ZB_MORSEL_ROWS + 1,
                             3 * ZB_MORSEL_ROWS + 77};
  const int threads[] = {1, 3};
  int before = zb_get_num_threads();
  for (int th = 0; th < 2; th++) {
    ZB_CHECK_OK(zb_set_num_threads(threads[th], &err), &err);
    for (int ti = 0; ti < N_TYPES; ti++)
      for (int li = 0; li < (int)(sizeof lengths / sizeof lengths[0]); li++) {
        int64_t n = lengths[li];
        /* the long lengths for a few types only: the loop is slow */
        if (n > 2000 && th == 1 && ti % 3 != 0) continue;
        for (int op = 0; op < ZB_CUM_OP_COUNT; op++) {
          if (!takes(k_types[ti], (zb_cum_op)op)) continue;
          for (int me = 0; me < 3; me++) {
            /* no missing; rare (one morsel may lack any); frequent */
            int every = me == 0 ? 0 : me == 1 ? 50000 : 4;
            zb_column *c = make(k_types[ti], n, every, op == ZB_CUM_PROD, 11 + (uint64_t)n);
            ZB_CHECK(check(c, NULL, 0, (zb_cum_op)op, true, zb_type_name(k_types[ti])));
            ZB_CHECK(check(c, NULL, 0, (zb_cum_op)op, false, zb_type_name(k_types[ti])));
            zb_column_release(c);
          }
        }
      }
  }
  ZB_CHECK_OK(zb_set_num_threads(before, &err), &err);
}

/* Group ids in [0, G), every 7th null, at offset OFF. */
static zb_column *make_ids(int64_t n, int64_t G, uint64_t seed) {
  zb_error err = {{0}};
  zb_column *base = NULL, *s = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n + OFF, true, 0, &base, &err), &err);
  for (int64_t p = 0; p < n + OFF; p++) {
    uint64_t r = rng(&seed);
    ((int64_t *)base->data->data)[p] = (int64_t)(r % (uint64_t)G);
    if ((r >> 32) % 7 == 0) zb_bit_set((uint8_t *)base->validity->data, p, false);
  }
  zb_column_recount_nulls(base);
  ZB_CHECK_OK(zb_column_slice(base, OFF, n, &s, &err), &err);
  zb_column_release(base);
  return s;
}

ZB_TEST(test_cumulative_groups) {
  /* several chunks of rows scanned in row order with carries between
   * them; and groups outnumbering rows (the group-by CSR) */
  const int64_t lengths[] = {0, 1, 100, ZB_MORSEL_ROWS + 3, 3 * ZB_MORSEL_ROWS + 5};
  const int64_t groups[] = {1, 3, 1000, 400000};
  for (int li = 0; li < 5; li++)
    for (int gi = 0; gi < 4; gi++) {
      int64_t n = lengths[li], G = groups[gi];
      zb_column *ids = make_ids(n, G, 7 + (uint64_t)G);
      for (int ti = 0; ti < N_TYPES; ti += (n > 1000 ? 3 : 1))
        for (int op = 0; op < ZB_CUM_OP_COUNT; op++) {
          if (!takes(k_types[ti], (zb_cum_op)op)) continue;
          zb_column *c = make(k_types[ti], n, 5, op == ZB_CUM_PROD, 3 + (uint64_t)ti);
          ZB_CHECK(check(c, ids, G, (zb_cum_op)op, true, "groups"));
          ZB_CHECK(check(c, ids, G, (zb_cum_op)op, false, "groups"));
          zb_column_release(c);
        }
      zb_column_release(ids);
    }
}

ZB_TEST(test_cumulative_overflow_wraps) {
  zb_error err = {{0}};
  zb_column *c = NULL, *r = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, 3, false, 0, &c, &err), &err);
  int64_t *v = (int64_t *)c->data->data;
  v[0] = INT64_MAX, v[1] = 1, v[2] = 2;
  ZB_CHECK_OK(zb_column_cumulative(c, ZB_CUM_SUM, true, &r, &err), &err);
  const int64_t *o = (const int64_t *)r->data->data;
  ZB_CHECK(o[0] == INT64_MAX && o[1] == INT64_MIN && o[2] == INT64_MIN + 2);
  zb_column_release(r);
  ZB_CHECK_OK(zb_column_cumulative(c, ZB_CUM_PROD, true, &r, &err), &err);
  o = (const int64_t *)r->data->data;
  ZB_CHECK(o[1] == INT64_MAX && o[2] == -2); /* 2 * (2^63 - 1) = 2^64 - 2 -> -2 */
  zb_column_release(r);
  zb_column_release(c);
  /* uint8 sums widen to uint64: 200 + 100 is 300, not 44 */
  ZB_CHECK_OK(zb_column_new(ZB_UINT8, 2, false, 0, &c, &err), &err);
  ((uint8_t *)c->data->data)[0] = 200;
  ((uint8_t *)c->data->data)[1] = 100;
  ZB_CHECK_OK(zb_column_cumulative(c, ZB_CUM_SUM, true, &r, &err), &err);
  ZB_CHECK(r->type == ZB_UINT64 && ((const uint64_t *)r->data->data)[1] == 300);
  zb_column_release(r);
  /* min and max keep the type */
  ZB_CHECK_OK(zb_column_cumulative(c, ZB_CUM_MIN, true, &r, &err), &err);
  ZB_CHECK(r->type == ZB_UINT8 && ((const uint8_t *)r->data->data)[1] == 100);
  zb_column_release(r);
  zb_column_release(c);
}

ZB_TEST(test_cumulative_timestamp_keeps_unit_and_zone) {
  zb_error err = {{0}};
  zb_column *c = make(ZB_TIMESTAMP, 10, 3, false, 1), *base = NULL, *r = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_TIMESTAMP, 4, false, 0, &base, &err), &err);
  ZB_CHECK_OK(zb_column_set_time(base, ZB_MILLI, "UTC", &err), &err);
  for (int i = 0; i < 4; i++) ((int64_t *)base->data->data)[i] = 10 - 3 * i;
  ZB_CHECK_OK(zb_column_cumulative(base, ZB_CUM_MAX, true, &r, &err), &err);
  ZB_CHECK(r->unit == ZB_MILLI && r->timezone != NULL && strcmp(r->timezone, "UTC") == 0);
  ZB_CHECK(((const int64_t *)r->data->data)[3] == 10);
  zb_column_release(r);
  zb_column_release(base);
  zb_column_release(c);
}

ZB_TEST(test_cumulative_bad_arguments) {
  zb_error err = {{0}};
  zb_column *c = make(ZB_INT64, 10, 3, false, 2), *r = NULL, *s = NULL, *ids = make_ids(10, 2, 1);
  zb_column *short_ids = make_ids(9, 2, 1);
  ZB_CHECK_EQ_INT(zb_column_cumulative(NULL, ZB_CUM_SUM, true, &r, &err), ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_column_cumulative(c, ZB_CUM_SUM, true, NULL, &err), ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_column_cumulative(c, (zb_cum_op)9, true, &r, &err), ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_column_group_cumulative(c, NULL, 2, ZB_CUM_SUM, true, &r, &err), ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_column_group_cumulative(c, short_ids, 2, ZB_CUM_SUM, true, &r, &err),
                  ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_column_group_cumulative(c, c, 2, ZB_CUM_SUM, true, &r, &err), ZB_EINDEX);
  ZB_CHECK_EQ_INT(zb_column_group_cumulative(ids, c, 2, ZB_CUM_SUM, true, &r, &err),
                  ZB_EINDEX);
  ZB_CHECK_EQ_INT(zb_column_group_cumulative(c, ids, 1, ZB_CUM_SUM, true, &r, &err), ZB_EINDEX);
  ZB_CHECK(strstr(err.message, "group id") != NULL);
  ZB_CHECK_OK(zb_column_new(ZB_STRING, 0, false, 0, &s, &err), &err);
  ZB_CHECK_EQ_INT(zb_column_cumulative(s, ZB_CUM_MIN, true, &r, &err), ZB_ETYPE);
  ZB_CHECK(strstr(err.message, "cummin") != NULL && strstr(err.message, "string") != NULL);
  zb_column_release(s);
  zb_column *d = make(ZB_DATE32, 3, 0, false, 1);
  ZB_CHECK_EQ_INT(zb_column_cumulative(d, ZB_CUM_SUM, true, &r, &err), ZB_ETYPE);
  ZB_CHECK(r == NULL);
  zb_column_release(d);
  zb_column_release(c);
  zb_column_release(ids);
  zb_column_release(short_ids);
}

ZB_TEST(test_cumulative_allocation_failures) {
  zb_error err = {{0}};
  zb_column *c = make(ZB_FLOAT64, 2 * ZB_MORSEL_ROWS + 9, 4, false, 5);
  zb_column *ids = make_ids(c->length, 50, 3);
  for (int grouped = 0; grouped < 2; grouped++) {
    bool ok = false;
    for (int64_t k = 1; k < 80 && !ok; k++) {
      zb_column *r = NULL;
      zb_alloc_fail_after(k);
      zb_status st = grouped ? zb_column_group_cumulative(c, ids, 50, ZB_CUM_SUM, true, &r, &err)
                             : zb_column_cumulative(c, ZB_CUM_MAX, false, &r, &err);
      zb_alloc_fail_after(0);
      ZB_CHECK(st == ZB_OK || st == ZB_ENOMEM);
      ZB_CHECK((st == ZB_OK) == (r != NULL));
      ok = st == ZB_OK;
      zb_column_release(r);
    }
    ZB_CHECK(ok);
  }
  zb_column_release(c);
  zb_column_release(ids);
}
