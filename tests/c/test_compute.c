/*
 * test_compute.c -- unit tests for the columnar compute operations of
 * zambezi/compute.h: elementwise arithmetic, comparisons and logic, casts,
 * null handling, filter/take and sort permutations.  Every result is checked
 * row by row against values computed here by plain loops, on columns with
 * nulls and odd offsets (slices), at several lengths and with 1 and 3
 * threads; failure paths are checked with the allocator's fault injection.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "zambezi/compute.h"

/* ---- helpers ------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static const int64_t k_lengths[] = {0, 1, 64, 65, 100003};
#define N_LENGTHS 5

/* Value of row i as int64 (unsigned values reinterpreted), uint64, double. */
static int64_t get_i(const zb_column *c, int64_t i) {
  const void *d = c->data->data;
  int64_t p = c->offset + i;
  switch (c->type) {
    case ZB_BOOL: return zb_bit_get((const uint8_t *)d, p);
    case ZB_INT8: return ((const int8_t *)d)[p];
    case ZB_INT16: return ((const int16_t *)d)[p];
    case ZB_INT32: case ZB_DATE32: case ZB_CATEGORICAL: return ((const int32_t *)d)[p];
    case ZB_INT64: case ZB_TIMESTAMP: return ((const int64_t *)d)[p];
    case ZB_UINT8: return ((const uint8_t *)d)[p];
    case ZB_UINT16: return ((const uint16_t *)d)[p];
    case ZB_UINT32: return ((const uint32_t *)d)[p];
    case ZB_UINT64: return (int64_t)((const uint64_t *)d)[p];
    case ZB_FLOAT32: return (int64_t)((const float *)d)[p];
    case ZB_FLOAT64: return (int64_t)((const double *)d)[p];
    default: return 0;
  }
}
static double get_f(const zb_column *c, int64_t i) {
  const void *d = c->data->data;
  int64_t p = c->offset + i;
  if (c->type == ZB_FLOAT32) return ((const float *)d)[p];
  if (c->type == ZB_FLOAT64) return ((const double *)d)[p];
  if (c->type == ZB_UINT64) return (double)((const uint64_t *)d)[p];
  return (double)get_i(c, i);
}
static void set_raw(zb_column *c, int64_t p, uint64_t bits, double f) {
  void *d = c->data->data;
  switch (c->type) {
    case ZB_BOOL: zb_bit_set((uint8_t *)d, p, bits & 1); break;
    case ZB_INT8: case ZB_UINT8: ((uint8_t *)d)[p] = (uint8_t)bits; break;
    case ZB_INT16: case ZB_UINT16: ((uint16_t *)d)[p] = (uint16_t)bits; break;
    case ZB_INT32: case ZB_UINT32: case ZB_DATE32: ((uint32_t *)d)[p] = (uint32_t)bits; break;
    case ZB_INT64: case ZB_UINT64: case ZB_TIMESTAMP: ((uint64_t *)d)[p] = bits; break;
    case ZB_FLOAT32: ((float *)d)[p] = (float)f; break;
    case ZB_FLOAT64: ((double *)d)[p] = f; break;
    default: break;
  }
}

/* A random fixed-width column of n rows seen through a slice at offset 3
 * (so bitmaps are not byte aligned), every 7th-ish row null when nulls.
 * range > 0: integer values in [-range, range] (unsigned: [0, range]);
 * range == 0: full-width random bits.  zero_every > 0 puts a 0 there. */
static zb_column *make_col(zb_type_id t, int64_t n, uint64_t seed, bool nulls, int64_t range,
                           int zero_every) {
  zb_error err = {{0}};
  zb_column *base = NULL, *s = NULL;
  const int64_t off = 3;
  ZB_CHECK_OK(zb_column_new(t, n + off, true, 0, &base, &err), &err);
  if (base == NULL) return NULL;
  if (t == ZB_TIMESTAMP) zb_column_set_time(base, ZB_MICRO, NULL, &err);
  uint8_t *v = (uint8_t *)base->validity->data;
  for (int64_t p = 0; p < n + off; p++) {
    uint64_t r = rng_next(&seed);
    uint64_t bits = r;
    double f = (double)(int64_t)(r % 2001) / 8.0 - 125.0;
    if (range > 0) {
      bool sgn = zb_type_is_signed(t) || zb_type_is_float(t) || t == ZB_DATE32 || t == ZB_TIMESTAMP;
      int64_t x = sgn ? (int64_t)(r % (uint64_t)(2 * range + 1)) - range
                      : (int64_t)(r % (uint64_t)(range + 1));
      bits = (uint64_t)x;
      f = (double)x;
    }
    if (zero_every > 0 && p % zero_every == 0) {
      bits = 0;
      f = 0.0;
    }
    set_raw(base, p, bits, f);
    if (nulls && (r >> 60) % 7 == 0) zb_bit_set(v, p, false);
  }
  zb_column_recount_nulls(base);
  ZB_CHECK_OK(zb_column_slice(base, off, n, &s, &err), &err);
  zb_column_release(base);
  return s;
}

/* A string column of n rows (slice at offset 3) drawn from a small vocabulary
 * including "" and strings sharing prefixes; nulls as above. */
static const char *const k_words[] = {"", "a", "ab", "abc", "abd", "b", "ba", "zz", "Z",
                                      "hello", "hello world", "hellp", "\xc3\xa9t\xc3\xa9",
                                      "abcdefghij", "abcdefghik", "abcdefgh"};
#define N_WORDS 16
static zb_column *make_str(int64_t n, uint64_t seed, bool nulls) {
  zb_error err = {{0}};
  const int64_t off = 3;
  int64_t total = 0;
  int *pick = (int *)malloc((size_t)(n + off + 1) * sizeof(int));
  bool *isnull = (bool *)malloc((size_t)(n + off + 1));
  for (int64_t p = 0; p < n + off; p++) {
    uint64_t r = rng_next(&seed);
    pick[p] = (int)(r % N_WORDS);
    isnull[p] = nulls && (r >> 60) % 7 == 0;
    total += (int64_t)strlen(k_words[pick[p]]);
  }
  zb_column *base = NULL, *s = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_STRING, n + off, true, total, &base, &err), &err);
  int64_t *o = (int64_t *)base->data->data;
  char *ch = (char *)base->chars->data;
  o[0] = 0;
  for (int64_t p = 0; p < n + off; p++) {
    size_t l = strlen(k_words[pick[p]]);
    memcpy(ch + o[p], k_words[pick[p]], l);
    o[p + 1] = o[p] + (int64_t)l;
    if (isnull[p]) zb_bit_set((uint8_t *)base->validity->data, p, false);
  }
  zb_column_recount_nulls(base);
  free(pick);
  free(isnull);
  ZB_CHECK_OK(zb_column_slice(base, off, n, &s, &err), &err);
  zb_column_release(base);
  return s;
}

static const char *get_s(const zb_column *c, int64_t i, int64_t *len) {
  const int64_t *o = (const int64_t *)c->data->data + c->offset + i;
  *len = o[1] - o[0];
  return (const char *)c->chars->data + o[0];
}

/* Row-by-row equality of two columns (floats bit-exact, NaN == NaN). */
static bool col_equal(const zb_column *a, const zb_column *b) {
  if (a->type != b->type || a->length != b->length || a->null_count != b->null_count)
    return false;
  for (int64_t i = 0; i < a->length; i++) {
    bool va = zb_column_is_valid(a, i), vb = zb_column_is_valid(b, i);
    if (va != vb) return false;
    if (!va) continue;
    if (a->type == ZB_STRING) {
      int64_t la, lb;
      const char *pa = get_s(a, i, &la), *pb = get_s(b, i, &lb);
      if (la != lb || memcmp(pa, pb, (size_t)la) != 0) return false;
    } else if (zb_type_is_float(a->type)) {
      double x = get_f(a, i), y = get_f(b, i);
      if (!(x == y || (isnan(x) && isnan(y)))) return false;
    } else if (get_i(a, i) != get_i(b, i)) {
      return false;
    }
  }
  return true;
}

/* Truncate v to type t's width (sign- or zero-extended back to 64 bits). */
static int64_t wrap_to(zb_type_id t, uint64_t v) {
  switch (t) {
    case ZB_BOOL: return (int64_t)(v & 1);
    case ZB_INT8: return (int8_t)v;
    case ZB_INT16: return (int16_t)v;
    case ZB_INT32: return (int32_t)v;
    case ZB_UINT8: return (uint8_t)v;
    case ZB_UINT16: return (uint16_t)v;
    case ZB_UINT32: return (uint32_t)v;
    default: return (int64_t)v;
  }
}

/* Run fn with 1 and 3 threads; check both give equal results. */
static void set_threads(int n) {
  zb_error err = {{0}};
  ZB_CHECK_OK(zb_set_num_threads(n, &err), &err);
}

/* ---- 1. elementwise ------------------------------------------------------ */

ZB_TEST(test_compute_promotion) {
  zb_error err = {{0}};
  struct {
    zb_binary_op op;
    zb_type_id a, b, r;
  } cases[] = {
      {ZB_OP_ADD, ZB_INT8, ZB_INT16, ZB_INT16},     {ZB_OP_ADD, ZB_INT8, ZB_UINT8, ZB_INT16},
      {ZB_OP_ADD, ZB_INT64, ZB_UINT64, ZB_FLOAT64}, {ZB_OP_ADD, ZB_INT32, ZB_FLOAT32, ZB_FLOAT64},
      {ZB_OP_ADD, ZB_INT16, ZB_FLOAT32, ZB_FLOAT32}, {ZB_OP_ADD, ZB_UINT32, ZB_INT32, ZB_INT64},
      {ZB_OP_ADD, ZB_UINT8, ZB_INT32, ZB_INT32},    {ZB_OP_ADD, ZB_BOOL, ZB_BOOL, ZB_INT64},
      {ZB_OP_MUL, ZB_BOOL, ZB_INT8, ZB_INT8},       {ZB_OP_SUB, ZB_BOOL, ZB_FLOAT32, ZB_FLOAT32},
      {ZB_OP_TRUEDIV, ZB_INT8, ZB_INT8, ZB_FLOAT64}, {ZB_OP_TRUEDIV, ZB_FLOAT32, ZB_FLOAT32, ZB_FLOAT32},
      {ZB_OP_TRUEDIV, ZB_FLOAT32, ZB_INT16, ZB_FLOAT32}, {ZB_OP_TRUEDIV, ZB_FLOAT32, ZB_INT32, ZB_FLOAT64},
      {ZB_OP_FLOORDIV, ZB_UINT16, ZB_UINT64, ZB_UINT64}, {ZB_OP_LT, ZB_INT8, ZB_FLOAT64, ZB_BOOL},
      {ZB_OP_EQ, ZB_STRING, ZB_CATEGORICAL, ZB_BOOL}, {ZB_OP_GE, ZB_DATE32, ZB_DATE32, ZB_BOOL},
      {ZB_OP_AND, ZB_BOOL, ZB_BOOL, ZB_BOOL},       {ZB_OP_XOR, ZB_INT8, ZB_UINT8, ZB_INT16},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    zb_type_id r = ZB_TYPE_COUNT;
    ZB_CHECK_OK(zb_binary_result_type(cases[k].op, cases[k].a, cases[k].b, &r, &err), &err);
    if (r != cases[k].r)
      zb_test_fail(__FILE__, __LINE__, "%s(%s, %s) -> %s, expected %s",
                   zb_binary_op_name(cases[k].op), zb_type_name(cases[k].a),
                   zb_type_name(cases[k].b), zb_type_name(r), zb_type_name(cases[k].r));
  }
  zb_type_id r;
  ZB_CHECK_EQ_INT(zb_binary_result_type(ZB_OP_ADD, ZB_STRING, ZB_INT8, &r, &err), ZB_ETYPE);
  ZB_CHECK(strstr(err.message, "add") && strstr(err.message, "string"));
  ZB_CHECK_EQ_INT(zb_binary_result_type(ZB_OP_AND, ZB_FLOAT64, ZB_BOOL, &r, &err), ZB_ETYPE);
  ZB_CHECK_EQ_INT(zb_binary_result_type(ZB_OP_LT, ZB_DATE32, ZB_TIMESTAMP, &r, &err), ZB_ETYPE);
  ZB_CHECK_EQ_INT(zb_binary_result_type(ZB_OP_ADD, ZB_DATE32, ZB_DATE32, &r, &err), ZB_ETYPE);
}

/* Oracle for an integer op on values already converted to result type t. */
static bool int_oracle(zb_binary_op op, zb_type_id t, int64_t x, int64_t y, int64_t *out) {
  bool sgn = zb_type_is_signed(t);
  uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
  switch (op) {
    case ZB_OP_ADD: *out = wrap_to(t, ux + uy); return true;
    case ZB_OP_SUB: *out = wrap_to(t, ux - uy); return true;
    case ZB_OP_MUL: *out = wrap_to(t, ux * uy); return true;
    case ZB_OP_AND: *out = wrap_to(t, ux & uy); return true;
    case ZB_OP_OR: *out = wrap_to(t, ux | uy); return true;
    case ZB_OP_XOR: *out = wrap_to(t, ux ^ uy); return true;
    case ZB_OP_FLOORDIV:
    case ZB_OP_MOD: {
      if (y == 0) return false;
      uint64_t q, r;
      if (!sgn) {
        q = ux / uy;
        r = ux % uy;
      } else if (y == -1) {
        q = 0 - ux;
        r = 0;
      } else {
        int64_t qq = x / y; /* truncates */
        if (qq * y != x && ((x < 0) != (y < 0))) qq -= 1;
        q = (uint64_t)qq;
        r = ux - q * uy;
      }
      *out = wrap_to(t, op == ZB_OP_FLOORDIV ? q : r);
      return true;
    }
    case ZB_OP_POW: {
      if (sgn && y < 0) return false;
      uint64_t r = 1;
      for (int64_t e = 0; e < y; e++) r *= ux;
      *out = wrap_to(t, r);
      return true;
    }
    default: return false;
  }
}

static void check_int_binary(zb_binary_op op, zb_type_id ta, zb_type_id tb, int64_t range,
                             int64_t range_b) {
  zb_error err = {{0}};
  zb_type_id rt;
  ZB_CHECK_OK(zb_binary_result_type(op, ta, tb, &rt, &err), &err);
  for (int li = 0; li < N_LENGTHS; li++) {
    int64_t n = k_lengths[li];
    zb_column *a = make_col(ta, n, 11 + (uint64_t)li, true, range, 0);
    zb_column *b = make_col(tb, n, 97 + (uint64_t)li, true, range_b, 13);
    zb_column *r1 = NULL, *r3 = NULL;
    set_threads(1);
    ZB_CHECK_OK(zb_column_binary(op, a, b, &r1, &err), &err);
    set_threads(3);
    ZB_CHECK_OK(zb_column_binary(op, a, b, &r3, &err), &err);
    if (r1 == NULL || r3 == NULL) goto next;
    ZB_CHECK(col_equal(r1, r3));
    ZB_CHECK_EQ_INT(r1->type, rt);
    ZB_CHECK_EQ_INT(r1->length, n);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
      bool valid = zb_column_is_valid(a, i) && zb_column_is_valid(b, i);
      int64_t x = wrap_to(rt, (uint64_t)get_i(a, i)), y = wrap_to(rt, (uint64_t)get_i(b, i));
      int64_t e = 0;
      if (valid && !int_oracle(op, rt, x, y, &e)) valid = false;
      if (op == ZB_OP_POW && !valid) {
        /* pandas: 1 ** NA == 1, NA ** 0 == 1 */
        if ((zb_column_is_valid(a, i) && !zb_column_is_valid(b, i) && x == 1) ||
            (zb_column_is_valid(b, i) && !zb_column_is_valid(a, i) && y == 0)) {
          valid = true;
          e = 1;
        }
      }
      if (zb_column_is_valid(r1, i) != valid || (valid && get_i(r1, i) != e)) {
        if (bad++ < 3)
          zb_test_fail(__FILE__, __LINE__, "%s %s,%s n=%lld row %lld: %lld op %lld -> %lld (valid %d), want %lld (valid %d)",
                       zb_binary_op_name(op), zb_type_name(ta), zb_type_name(tb), (long long)n,
                       (long long)i, (long long)x, (long long)y, (long long)get_i(r1, i),
                       zb_column_is_valid(r1, i), (long long)e, valid);
      }
    }
  next:
    zb_column_release(a);
    zb_column_release(b);
    zb_column_release(r1);
    zb_column_release(r3);
  }
  set_threads(zb_available_cores());
}

ZB_TEST(test_compute_int_arith) {
  zb_binary_op ops[] = {ZB_OP_ADD, ZB_OP_SUB, ZB_OP_MUL, ZB_OP_FLOORDIV, ZB_OP_MOD,
                        ZB_OP_AND, ZB_OP_OR, ZB_OP_XOR};
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
    check_int_binary(ops[k], ZB_INT32, ZB_INT32, 0, 0);
    check_int_binary(ops[k], ZB_INT64, ZB_INT64, 0, 0);
    check_int_binary(ops[k], ZB_INT8, ZB_INT16, 0, 0);
    check_int_binary(ops[k], ZB_UINT8, ZB_INT8, 0, 0);
    check_int_binary(ops[k], ZB_UINT64, ZB_UINT16, 0, 0);
    check_int_binary(ops[k], ZB_INT64, ZB_UINT32, 0, 0);
    check_int_binary(ops[k], ZB_INT16, ZB_INT16, 40, 5);
  }
  check_int_binary(ZB_OP_ADD, ZB_BOOL, ZB_BOOL, 0, 0);
  check_int_binary(ZB_OP_MUL, ZB_BOOL, ZB_INT8, 0, 0);
  check_int_binary(ZB_OP_POW, ZB_INT64, ZB_INT64, 50, 9);
  check_int_binary(ZB_OP_POW, ZB_INT8, ZB_INT8, 3, 2);
  check_int_binary(ZB_OP_POW, ZB_UINT32, ZB_UINT8, 0, 12);
}

ZB_TEST(test_compute_int_edge_cases) {
  zb_error err = {{0}};
  zb_column *a = NULL, *b = NULL, *r = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, 4, false, 0, &a, &err), &err);
  ZB_CHECK_OK(zb_column_new(ZB_INT64, 4, false, 0, &b, &err), &err);
  int64_t *x = (int64_t *)a->data->data, *y = (int64_t *)b->data->data;
  x[0] = INT64_MIN; y[0] = -1;
  x[1] = -7; y[1] = 2;
  x[2] = 7; y[2] = -2;
  x[3] = 5; y[3] = 0;
  ZB_CHECK_OK(zb_column_binary(ZB_OP_FLOORDIV, a, b, &r, &err), &err);
  ZB_CHECK_EQ_INT(get_i(r, 0), INT64_MIN);
  ZB_CHECK_EQ_INT(get_i(r, 1), -4);
  ZB_CHECK_EQ_INT(get_i(r, 2), -4);
  ZB_CHECK(!zb_column_is_valid(r, 3));
  ZB_CHECK_EQ_INT(r->null_count, 1);
  zb_column_release(r);
  ZB_CHECK_OK(zb_column_binary(ZB_OP_MOD, a, b, &r, &err), &err);
  ZB_CHECK_EQ_INT(get_i(r, 0), 0);
  ZB_CHECK_EQ_INT(get_i(r, 1), 1);
  ZB_CHECK_EQ_INT(get_i(r, 2), -1);
  ZB_CHECK(!zb_column_is_valid(r, 3));
  zb_column_release(r);
  ZB_CHECK_OK(zb_column_binary(ZB_OP_SUB, a, b, &r, &err), &err);
  ZB_CHECK_EQ_INT(get_i(r, 0), INT64_MIN + 1);
  zb_column_release(r);
  ZB_CHECK_OK(zb_column_unary(ZB_OP_NEG, a, &r, &err), &err);
  ZB_CHECK_EQ_INT(get_i(r, 0), INT64_MIN);
  ZB_CHECK_EQ_INT(get_i(r, 1), 7);
  zb_column_release(r);
  ZB_CHECK_OK(zb_column_unary(ZB_OP_ABS, a, &r, &err), &err);
  ZB_CHECK_EQ_INT(get_i(r, 0), INT64_MIN);
  ZB_CHECK_EQ_INT(get_i(r, 1), 7);
  zb_column_release(r);
  /* Length mismatch names both lengths. */
  zb_column *s = NULL;
  ZB_CHECK_OK(zb_column_slice(b, 0, 3, &s, &err), &err);
  ZB_CHECK_EQ_INT(zb_column_binary(ZB_OP_ADD, a, s, &r, &err), ZB_EINVAL);
  ZB_CHECK(r == NULL);
  ZB_CHECK(strstr(err.message, "4") && strstr(err.message, "3"));
  zb_column_release(s);
  zb_column_release(a);
  zb_column_release(b);
}

static void check_float_binary(zb_binary_op op, zb_type_id ta, zb_type_id tb) {
  zb_error err = {{0}};
  zb_type_id rt;
  ZB_CHECK_OK(zb_binary_result_type(op, ta, tb, &rt, &err), &err);
  for (int li = 0; li < N_LENGTHS; li++) {
    int64_t n = k_lengths[li];
    zb_column *a = make_col(ta, n, 5 + (uint64_t)li, true, 0, 0);
    zb_column *b = make_col(tb, n, 55 + (uint64_t)li, true, 0, 17);
    zb_column *r1 = NULL, *r3 = NULL;
    set_threads(1);
    ZB_CHECK_OK(zb_column_binary(op, a, b, &r1, &err), &err);
    set_threads(3);
    ZB_CHECK_OK(zb_column_binary(op, a, b, &r3, &err), &err);
    if (r1 == NULL || r3 == NULL) goto next;
    ZB_CHECK(col_equal(r1, r3));
    ZB_CHECK_EQ_INT(r1->type, rt);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
      bool valid = zb_column_is_valid(a, i) && zb_column_is_valid(b, i);
      double x = get_f(a, i), y = get_f(b, i), e = 0, got = get_f(r1, i);
      bool ok = zb_column_is_valid(r1, i) == valid;
      if (valid && rt == ZB_FLOAT32) {
        float fx = (float)x, fy = (float)y;
        e = op == ZB_OP_ADD ? fx + fy : op == ZB_OP_SUB ? fx - fy : fx * fy;
        ok = ok && (float)got == (float)e;
      } else if (valid) {
        switch (op) {
          case ZB_OP_ADD: e = x + y; break;
          case ZB_OP_SUB: e = x - y; break;
          case ZB_OP_MUL: e = x * y; break;
          case ZB_OP_TRUEDIV: e = x / y; break;
          case ZB_OP_MOD: e = y == 0 ? NAN : x - floor(x / y) * y; break;
          case ZB_OP_FLOORDIV: e = y == 0 ? x / y : floor(x / y); break;
          default: break;
        }
        if (op == ZB_OP_MOD || op == ZB_OP_FLOORDIV)
          ok = ok && ((isnan(e) && isnan(got)) || got == e || fabs(got - e) <= 1e-9 * (1 + fabs(e)));
        else
          ok = ok && ((isnan(e) && isnan(got)) || got == e);
        if (op == ZB_OP_MOD && y != 0 && got != 0) ok = ok && ((got < 0) == (y < 0));
      }
      if (!ok && bad++ < 3)
        zb_test_fail(__FILE__, __LINE__, "%s %s,%s row %lld: %g op %g -> %g, want %g (valid %d)",
                     zb_binary_op_name(op), zb_type_name(ta), zb_type_name(tb), (long long)i, x,
                     y, got, e, valid);
    }
  next:
    zb_column_release(a);
    zb_column_release(b);
    zb_column_release(r1);
    zb_column_release(r3);
  }
  set_threads(zb_available_cores());
}

ZB_TEST(test_compute_float_arith) {
  zb_binary_op ops[] = {ZB_OP_ADD, ZB_OP_SUB, ZB_OP_MUL, ZB_OP_TRUEDIV, ZB_OP_FLOORDIV, ZB_OP_MOD};
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
    check_float_binary(ops[k], ZB_FLOAT64, ZB_FLOAT64);
    check_float_binary(ops[k], ZB_INT32, ZB_FLOAT64);
    check_float_binary(ops[k], ZB_FLOAT32, ZB_INT64);
  }
  check_float_binary(ZB_OP_ADD, ZB_FLOAT32, ZB_FLOAT32);
  check_float_binary(ZB_OP_MUL, ZB_FLOAT32, ZB_INT8);
  check_float_binary(ZB_OP_TRUEDIV, ZB_INT64, ZB_INT64);
  check_float_binary(ZB_OP_ADD, ZB_INT64, ZB_UINT64);
}

static int cmp3(double x, double y) { return x < y ? -1 : x > y ? 1 : 0; }
static bool cmp_holds(zb_binary_op op, int c, bool unordered) {
  if (unordered) return op == ZB_OP_NE;
  switch (op) {
    case ZB_OP_EQ: return c == 0;
    case ZB_OP_NE: return c != 0;
    case ZB_OP_LT: return c < 0;
    case ZB_OP_LE: return c <= 0;
    case ZB_OP_GT: return c > 0;
    default: return c >= 0;
  }
}

ZB_TEST(test_compute_compare) {
  zb_error err = {{0}};
  zb_type_id pairs[][2] = {{ZB_INT32, ZB_INT32}, {ZB_INT8, ZB_FLOAT64}, {ZB_UINT16, ZB_INT16},
                           {ZB_FLOAT32, ZB_FLOAT32}, {ZB_BOOL, ZB_BOOL}, {ZB_DATE32, ZB_DATE32}};
  for (int op = ZB_OP_EQ; op <= ZB_OP_GE; op++) {
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
      for (int li = 0; li < N_LENGTHS; li++) {
        int64_t n = k_lengths[li];
        zb_column *a = make_col(pairs[p][0], n, 3 + (uint64_t)li, true, 20, 0);
        zb_column *b = make_col(pairs[p][1], n, 4 + (uint64_t)li, true, 20, 0);
        zb_column *r1 = NULL, *r3 = NULL;
        set_threads(1);
        ZB_CHECK_OK(zb_column_binary((zb_binary_op)op, a, b, &r1, &err), &err);
        set_threads(3);
        ZB_CHECK_OK(zb_column_binary((zb_binary_op)op, a, b, &r3, &err), &err);
        if (r1 && r3) {
          ZB_CHECK(col_equal(r1, r3));
          ZB_CHECK_EQ_INT(r1->type, ZB_BOOL);
          int64_t bad = 0;
          for (int64_t i = 0; i < n; i++) {
            bool valid = zb_column_is_valid(a, i) && zb_column_is_valid(b, i);
            double x = get_f(a, i), y = get_f(b, i);
            bool e = cmp_holds((zb_binary_op)op, cmp3(x, y), false);
            if ((zb_column_is_valid(r1, i) != valid || (valid && get_i(r1, i) != e)) && bad++ < 3)
              zb_test_fail(__FILE__, __LINE__, "%s row %lld", zb_binary_op_name((zb_binary_op)op),
                           (long long)i);
          }
        }
        zb_column_release(a);
        zb_column_release(b);
        zb_column_release(r1);
        zb_column_release(r3);
      }
    }
  }
  set_threads(zb_available_cores());
}

static int str_cmp3(const char *p, int64_t lp, const char *q, int64_t lq) {
  for (int64_t i = 0; i < lp && i < lq; i++)
    if (p[i] != q[i]) return (unsigned char)p[i] < (unsigned char)q[i] ? -1 : 1;
  return lp < lq ? -1 : lp > lq ? 1 : 0;
}

ZB_TEST(test_compute_compare_strings) {
  zb_error err = {{0}};
  for (int op = ZB_OP_EQ; op <= ZB_OP_GE; op++) {
    for (int li = 0; li < N_LENGTHS; li++) {
      int64_t n = k_lengths[li];
      zb_column *a = make_str(n, 8 + (uint64_t)li, true);
      zb_column *b = make_str(n, 9 + (uint64_t)li, true);
      zb_column *r = NULL, *rs = NULL, *rf = NULL;
      ZB_CHECK_OK(zb_column_binary((zb_binary_op)op, a, b, &r, &err), &err);
      ZB_CHECK_OK(zb_column_binary_string((zb_binary_op)op, a, "abd", 3, false, &rs, &err), &err);
      ZB_CHECK_OK(zb_column_binary_string((zb_binary_op)op, a, "hello", 5, true, &rf, &err), &err);
      for (int64_t i = 0; r && rs && rf && i < n; i++) {
        int64_t la, lb;
        const char *pa = get_s(a, i, &la), *pb = get_s(b, i, &lb);
        bool va = zb_column_is_valid(a, i), valid = va && zb_column_is_valid(b, i);
        bool e = cmp_holds((zb_binary_op)op, str_cmp3(pa, la, pb, lb), false);
        ZB_CHECK(zb_column_is_valid(r, i) == valid);
        if (valid) ZB_CHECK(get_i(r, i) == e);
        ZB_CHECK(zb_column_is_valid(rs, i) == va);
        if (va) ZB_CHECK(get_i(rs, i) == cmp_holds((zb_binary_op)op, str_cmp3(pa, la, "abd", 3), false));
        if (va) ZB_CHECK(get_i(rf, i) == cmp_holds((zb_binary_op)op, str_cmp3("hello", 5, pa, la), false));
      }
      zb_column_release(a);
      zb_column_release(b);
      zb_column_release(r);
      zb_column_release(rs);
      zb_column_release(rf);
    }
  }
  /* A null string scalar gives all nulls. */
  zb_column *a = make_str(10, 1, false), *r = NULL;
  ZB_CHECK_OK(zb_column_binary_string(ZB_OP_EQ, a, NULL, 0, false, &r, &err), &err);
  ZB_CHECK_EQ_INT(r->null_count, 10);
  zb_column_release(r);
  ZB_CHECK_EQ_INT(zb_column_binary_string(ZB_OP_ADD, a, "x", 1, false, &r, &err), ZB_ETYPE);
  zb_column_release(a);
}

ZB_TEST(test_compute_nan_and_scalars) {
  zb_error err = {{0}};
  zb_column *a = NULL, *r = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, 3, true, 0, &a, &err), &err);
  double *x = (double *)a->data->data;
  x[0] = NAN; x[1] = 1.5; x[2] = -2.0;
  zb_bit_set((uint8_t *)a->validity->data, 2, false);
  zb_column_recount_nulls(a);
  zb_scalar s = {ZB_FLOAT64, false, {.f = 1.5}};
  ZB_CHECK_OK(zb_column_binary_scalar(ZB_OP_NE, a, &s, false, &r, &err), &err);
  ZB_CHECK_EQ_INT(get_i(r, 0), 1); /* NaN != 1.5 */
  ZB_CHECK_EQ_INT(get_i(r, 1), 0);
  ZB_CHECK(!zb_column_is_valid(r, 2));
  zb_column_release(r);
  ZB_CHECK_OK(zb_column_binary_scalar(ZB_OP_EQ, a, &s, false, &r, &err), &err);
  ZB_CHECK_EQ_INT(get_i(r, 0), 0);
  ZB_CHECK_EQ_INT(get_i(r, 1), 1);
  zb_column_release(r);
  /* scalar - column */
  zb_scalar ten = {ZB_INT64, false, {.i = 10}};
  ZB_CHECK_OK(zb_column_binary_scalar(ZB_OP_SUB, a, &ten, true, &r, &err), &err);
  ZB_CHECK_EQ_INT(r->type, ZB_FLOAT64);
  ZB_CHECK(get_f(r, 1) == 8.5);
  ZB_CHECK(isnan(get_f(r, 0)));
  zb_column_release(r);
  /* null scalar: everything null */
  zb_scalar nul = {ZB_INT64, true, {.i = 0}};
  ZB_CHECK_OK(zb_column_binary_scalar(ZB_OP_ADD, a, &nul, false, &r, &err), &err);
  ZB_CHECK_EQ_INT(r->null_count, 3);
  zb_column_release(r);
  zb_column_release(a);
  /* scalar ops over long columns, both sides, match column ops */
  for (int li = 0; li < N_LENGTHS; li++) {
    int64_t n = k_lengths[li];
    zb_column *c = make_col(ZB_INT32, n, 77, true, 1000, 0), *q = NULL, *q2 = NULL;
    zb_scalar k7 = {ZB_INT8, false, {.i = 7}};
    ZB_CHECK_OK(zb_column_binary_scalar(ZB_OP_FLOORDIV, c, &k7, false, &q, &err), &err);
    ZB_CHECK_OK(zb_column_binary_scalar(ZB_OP_MOD, c, &k7, true, &q2, &err), &err);
    for (int64_t i = 0; q && q2 && i < n; i++) {
      bool v = zb_column_is_valid(c, i);
      int64_t y = get_i(c, i), e = 0;
      ZB_CHECK(zb_column_is_valid(q, i) == v);
      if (v) {
        int_oracle(ZB_OP_FLOORDIV, ZB_INT32, y, 7, &e);
        ZB_CHECK_EQ_INT(get_i(q, i), e);
        bool ok = int_oracle(ZB_OP_MOD, ZB_INT32, 7, y, &e);
        ZB_CHECK(zb_column_is_valid(q2, i) == ok);
        if (ok) ZB_CHECK_EQ_INT(get_i(q2, i), e);
      }
    }
    zb_column_release(q);
    zb_column_release(q2);
    zb_column_release(c);
  }
  zb_scalar big = {ZB_INT8, false, {.i = 300}};
  a = make_col(ZB_INT8, 4, 1, false, 0, 0);
  ZB_CHECK_EQ_INT(zb_column_binary_scalar(ZB_OP_ADD, a, &big, false, &r, &err), ZB_EOVERFLOW);
  zb_column_release(a);
}

ZB_TEST(test_compute_kleene) {
  zb_error err = {{0}};
  /* a, b over {T, F, NA} x {T, F, NA}; 0 false, 1 true, 2 null. */
  zb_column *a = NULL, *b = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_BOOL, 9, true, 0, &a, &err), &err);
  ZB_CHECK_OK(zb_column_new(ZB_BOOL, 9, true, 0, &b, &err), &err);
  for (int i = 0; i < 9; i++) {
    int x = i / 3, y = i % 3;
    zb_bit_set((uint8_t *)a->data->data, i, x == 1);
    zb_bit_set((uint8_t *)b->data->data, i, y == 1);
    if (x == 2) zb_bit_set((uint8_t *)a->validity->data, i, false);
    if (y == 2) zb_bit_set((uint8_t *)b->validity->data, i, false);
  }
  zb_column_recount_nulls(a);
  zb_column_recount_nulls(b);
  /* expected per op, row-major over (x, y) */
  static const int want_and[9] = {0, 0, 0, 0, 1, 2, 0, 2, 2};
  static const int want_or[9] = {0, 1, 2, 1, 1, 1, 2, 1, 2};
  static const int want_xor[9] = {0, 1, 2, 1, 0, 2, 2, 2, 2};
  const int *wants[3] = {want_and, want_or, want_xor};
  for (int k = 0; k < 3; k++) {
    zb_column *r = NULL;
    ZB_CHECK_OK(zb_column_binary((zb_binary_op)(ZB_OP_AND + k), a, b, &r, &err), &err);
    for (int i = 0; r && i < 9; i++) {
      int got = zb_column_is_valid(r, i) ? (int)get_i(r, i) : 2;
      if (got != wants[k][i])
        zb_test_fail(__FILE__, __LINE__, "%s row %d: %d want %d",
                     zb_binary_op_name((zb_binary_op)(ZB_OP_AND + k)), i, got, wants[k][i]);
    }
    zb_column_release(r);
  }
  /* Null scalar: False & NA = False, True | NA = True. */
  zb_scalar na = {ZB_BOOL, true, {.b = false}};
  zb_column *r = NULL;
  ZB_CHECK_OK(zb_column_binary_scalar(ZB_OP_AND, a, &na, true, &r, &err), &err);
  for (int i = 0; r && i < 9; i++) {
    int x = i / 3, got = zb_column_is_valid(r, i) ? (int)get_i(r, i) : 2;
    ZB_CHECK_EQ_INT(got, x == 0 ? 0 : 2);
  }
  zb_column_release(r);
  ZB_CHECK_OK(zb_column_binary_scalar(ZB_OP_OR, a, &na, false, &r, &err), &err);
  for (int i = 0; r && i < 9; i++) {
    int x = i / 3, got = zb_column_is_valid(r, i) ? (int)get_i(r, i) : 2;
    ZB_CHECK_EQ_INT(got, x == 1 ? 1 : 2);
  }
  zb_column_release(r);
  ZB_CHECK_OK(zb_column_unary(ZB_OP_INVERT, a, &r, &err), &err);
  for (int i = 0; r && i < 9; i++) {
    int x = i / 3, got = zb_column_is_valid(r, i) ? (int)get_i(r, i) : 2;
    ZB_CHECK_EQ_INT(got, x == 2 ? 2 : 1 - x);
  }
  zb_column_release(r);
  ZB_CHECK_EQ_INT(zb_column_unary(ZB_OP_NEG, a, &r, &err), ZB_ETYPE);
  zb_column_release(a);
  zb_column_release(b);
  /* Long Kleene: compare with the table on random columns, 1 and 3 threads. */
  for (int li = 0; li < N_LENGTHS; li++) {
    int64_t n = k_lengths[li];
    zb_column *x = make_col(ZB_BOOL, n, 21, true, 0, 0), *y = make_col(ZB_BOOL, n, 22, true, 0, 0);
    for (int k = 0; k < 3; k++) {
      zb_column *r1 = NULL, *r3 = NULL;
      set_threads(1);
      ZB_CHECK_OK(zb_column_binary((zb_binary_op)(ZB_OP_AND + k), x, y, &r1, &err), &err);
      set_threads(3);
      ZB_CHECK_OK(zb_column_binary((zb_binary_op)(ZB_OP_AND + k), x, y, &r3, &err), &err);
      if (r1 && r3) ZB_CHECK(col_equal(r1, r3));
      for (int64_t i = 0; r1 && i < n; i++) {
        int xv = zb_column_is_valid(x, i) ? (int)get_i(x, i) : 2;
        int yv = zb_column_is_valid(y, i) ? (int)get_i(y, i) : 2;
        int got = zb_column_is_valid(r1, i) ? (int)get_i(r1, i) : 2;
        if (got != wants[k][xv * 3 + yv]) {
          zb_test_fail(__FILE__, __LINE__, "kleene row %lld", (long long)i);
          break;
        }
      }
      zb_column_release(r1);
      zb_column_release(r3);
    }
    zb_column_release(x);
    zb_column_release(y);
  }
  set_threads(zb_available_cores());
}

ZB_TEST(test_compute_unary) {
  zb_error err = {{0}};
  zb_type_id types[] = {ZB_INT8, ZB_INT32, ZB_INT64, ZB_UINT16, ZB_FLOAT32, ZB_FLOAT64};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    for (int li = 0; li < N_LENGTHS; li++) {
      int64_t n = k_lengths[li];
      zb_column *a = make_col(types[t], n, 31, true, 0, 0);
      for (int op = 0; op < ZB_UNARY_OP_COUNT; op++) {
        zb_column *r = NULL;
        zb_status st = zb_column_unary((zb_unary_op)op, a, &r, &err);
        if (zb_type_is_float(types[t]) && op == ZB_OP_INVERT) {
          ZB_CHECK_EQ_INT(st, ZB_ETYPE);
          continue;
        }
        ZB_CHECK_OK(st, &err);
        for (int64_t i = 0; r && i < n; i++) {
          bool v = zb_column_is_valid(a, i);
          ZB_CHECK(zb_column_is_valid(r, i) == v);
          if (!v) continue;
          if (zb_type_is_float(types[t])) {
            double x = get_f(a, i), e = op == ZB_OP_NEG ? -x : fabs(x);
            ZB_CHECK(get_f(r, i) == e);
          } else {
            int64_t x = get_i(a, i);
            uint64_t e = op == ZB_OP_NEG ? 0 - (uint64_t)x
                         : op == ZB_OP_INVERT ? ~(uint64_t)x
                         : (x < 0 ? 0 - (uint64_t)x : (uint64_t)x);
            ZB_CHECK_EQ_INT(get_i(r, i), wrap_to(types[t], e));
          }
        }
        zb_column_release(r);
      }
      zb_column_release(a);
    }
  }
}

ZB_TEST(test_compute_timestamps) {
  zb_error err = {{0}};
  zb_column *a = make_col(ZB_TIMESTAMP, 100, 1, true, 1000, 0);
  zb_column *b = make_col(ZB_TIMESTAMP, 100, 2, true, 1000, 0);
  zb_column *r = NULL;
  ZB_CHECK_OK(zb_column_binary(ZB_OP_LT, a, b, &r, &err), &err);
  for (int64_t i = 0; r && i < 100; i++)
    if (zb_column_is_valid(r, i)) ZB_CHECK(get_i(r, i) == (get_i(a, i) < get_i(b, i)));
  zb_column_release(r);
  zb_scalar ts = {ZB_TIMESTAMP, false, {.i = 0}};
  ZB_CHECK_OK(zb_column_binary_scalar(ZB_OP_GE, a, &ts, false, &r, &err), &err);
  for (int64_t i = 0; r && i < 100; i++)
    if (zb_column_is_valid(r, i)) ZB_CHECK(get_i(r, i) == (get_i(a, i) >= 0));
  zb_column_release(r);
  /* tz must match */
  zb_column *base = NULL, *c = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_TIMESTAMP, 100, false, 0, &base, &err), &err);
  memset(base->data->data, 0, 800);
  ZB_CHECK_OK(zb_column_set_time(base, ZB_MICRO, "UTC", &err), &err);
  ZB_CHECK_EQ_INT(zb_column_binary(ZB_OP_EQ, a, base, &r, &err), ZB_ETYPE);
  ZB_CHECK(strstr(err.message, "UTC") != NULL);
  ZB_CHECK_OK(zb_column_set_time(base, ZB_NANO, NULL, &err), &err);
  ZB_CHECK_EQ_INT(zb_column_binary(ZB_OP_EQ, a, base, &r, &err), ZB_ETYPE);
  ZB_CHECK_EQ_INT(zb_column_binary(ZB_OP_ADD, a, b, &r, &err), ZB_ETYPE);
  (void)c;
  zb_column_release(base);
  zb_column_release(a);
  zb_column_release(b);
}

ZB_TEST(test_compute_binary_faults) {
  zb_error err = {{0}};
  zb_column *a = make_col(ZB_INT32, 1000, 1, true, 0, 0);
  zb_column *b = make_col(ZB_FLOAT64, 1000, 2, true, 0, 0);
  for (int64_t k = 1; k < 50; k++) {
    zb_column *r = NULL;
    zb_scalar s = {ZB_INT64, false, {.i = 3}};
    zb_alloc_fail_after(k);
    zb_status st1 = zb_column_binary(ZB_OP_MUL, a, b, &r, &err);
    zb_column_release(r);
    r = NULL;
    zb_status st2 = zb_column_binary_scalar(ZB_OP_LT, a, &s, true, &r, &err);
    zb_column_release(r);
    r = NULL;
    zb_status st3 = zb_column_binary_string(ZB_OP_LT, a, "x", 1, true, &r, &err);
    zb_column_release(r);
    zb_alloc_fail_after(0);
    ZB_CHECK(st1 == ZB_OK || st1 == ZB_ENOMEM);
    ZB_CHECK(st2 == ZB_OK || st2 == ZB_ENOMEM);
    ZB_CHECK(st3 == ZB_ETYPE || st3 == ZB_ENOMEM);
  }
  zb_column_release(a);
  zb_column_release(b);
}

/* ---- 2. casts ------------------------------------------------------------ */

static zb_column *col_from_doubles(zb_type_id t, const double *v, int n) {
  zb_error err = {{0}};
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_new(t, n, false, 0, &c, &err), &err);
  for (int i = 0; i < n; i++) set_raw(c, i, (uint64_t)(int64_t)v[i], v[i]);
  return c;
}

static zb_column *col_from_strings(const char *const *s, int n) {
  zb_error err = {{0}};
  int64_t total = 0;
  for (int i = 0; i < n; i++) total += s[i] ? (int64_t)strlen(s[i]) : 0;
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_STRING, n, true, total, &c, &err), &err);
  int64_t *o = (int64_t *)c->data->data;
  o[0] = 0;
  for (int i = 0; i < n; i++) {
    size_t l = s[i] ? strlen(s[i]) : 0;
    memcpy((char *)c->chars->data + o[i], s[i] ? s[i] : "", l);
    o[i + 1] = o[i] + (int64_t)l;
    if (!s[i]) zb_bit_set((uint8_t *)c->validity->data, i, false);
  }
  zb_column_recount_nulls(c);
  return c;
}

static bool str_is(const zb_column *c, int64_t i, const char *want) {
  int64_t l;
  const char *p = get_s(c, i, &l);
  return l == (int64_t)strlen(want) && memcmp(p, want, (size_t)l) == 0;
}

ZB_TEST(test_cast_numeric) {
  zb_error err = {{0}};
  zb_column *r = NULL;
  /* float -> int truncates; NaN names the row; out of range is EOVERFLOW */
  double fv[] = {1.9, -2.9, 0.0, 127.0, -128.0};
  zb_column *f = col_from_doubles(ZB_FLOAT64, fv, 5);
  ZB_CHECK_OK(zb_column_cast(f, ZB_INT8, ZB_MICRO, &r, &err), &err);
  ZB_CHECK_EQ_INT(r->type, ZB_INT8);
  ZB_CHECK_EQ_INT(get_i(r, 0), 1);
  ZB_CHECK_EQ_INT(get_i(r, 1), -2);
  ZB_CHECK_EQ_INT(get_i(r, 4), -128);
  zb_column_release(r);
  ((double *)f->data->data)[3] = 128.0;
  ZB_CHECK_EQ_INT(zb_column_cast(f, ZB_INT8, ZB_MICRO, &r, &err), ZB_EOVERFLOW);
  ZB_CHECK(r == NULL && strstr(err.message, "row 3") != NULL);
  ((double *)f->data->data)[2] = NAN;
  ZB_CHECK_EQ_INT(zb_column_cast(f, ZB_INT64, ZB_MICRO, &r, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "row 2") != NULL);
  ((double *)f->data->data)[2] = INFINITY;
  ZB_CHECK_EQ_INT(zb_column_cast(f, ZB_UINT64, ZB_MICRO, &r, &err), ZB_EOVERFLOW);
  ZB_CHECK(strstr(err.message, "row 1") != NULL); /* -2.9 -> -2 does not fit uint64 first */
  zb_column_release(f);
  /* Random ints: widening exact, narrowing checked, nulls not checked. */
  for (int li = 0; li < N_LENGTHS; li++) {
    int64_t n = k_lengths[li];
    zb_column *a = make_col(ZB_INT64, n, 41, true, 100, 0);
    zb_type_id targets[] = {ZB_INT8, ZB_INT16, ZB_INT32, ZB_FLOAT32, ZB_FLOAT64, ZB_BOOL, ZB_UINT64};
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
      zb_column *r1 = NULL, *r3 = NULL;
      set_threads(1);
      zb_status st = zb_column_cast(a, targets[t], ZB_MICRO, &r1, &err);
      set_threads(3);
      zb_status st3 = zb_column_cast(a, targets[t], ZB_MICRO, &r3, &err);
      ZB_CHECK_EQ_INT(st, st3);
      if (targets[t] == ZB_UINT64) {
        /* negatives do not fit: the first valid negative row is named */
        int64_t first = -1;
        for (int64_t i = 0; i < n && first < 0; i++)
          if (zb_column_is_valid(a, i) && get_i(a, i) < 0) first = i;
        if (first >= 0) {
          char want[64];
          snprintf(want, sizeof want, "row %lld ", (long long)first);
          ZB_CHECK_EQ_INT(st, ZB_EOVERFLOW);
          ZB_CHECK(strstr(err.message, want) != NULL);
          continue;
        }
      }
      ZB_CHECK_OK(st, &err);
      if (r1 && r3) ZB_CHECK(col_equal(r1, r3));
      for (int64_t i = 0; r1 && i < n; i++) {
        bool v = zb_column_is_valid(a, i);
        ZB_CHECK(zb_column_is_valid(r1, i) == v);
        if (!v) continue;
        int64_t x = get_i(a, i);
        if (targets[t] == ZB_BOOL)
          ZB_CHECK_EQ_INT(get_i(r1, i), x != 0);
        else if (zb_type_is_float(targets[t]))
          ZB_CHECK(get_f(r1, i) == (double)x);
        else
          ZB_CHECK_EQ_INT(get_i(r1, i), x);
      }
      zb_column_release(r1);
      zb_column_release(r3);
    }
    zb_column_release(a);
  }
  set_threads(zb_available_cores());
  /* uint64 above INT64_MAX does not fit int64 */
  zb_column *u = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_UINT64, 2, false, 0, &u, &err), &err);
  ((uint64_t *)u->data->data)[0] = 5;
  ((uint64_t *)u->data->data)[1] = UINT64_MAX;
  ZB_CHECK_EQ_INT(zb_column_cast(u, ZB_INT64, ZB_MICRO, &r, &err), ZB_EOVERFLOW);
  ZB_CHECK(strstr(err.message, "row 1") != NULL);
  ZB_CHECK_OK(zb_column_cast(u, ZB_FLOAT64, ZB_MICRO, &r, &err), &err);
  ZB_CHECK(get_f(r, 1) == 18446744073709551616.0);
  zb_column_release(r);
  zb_column_release(u);
}

ZB_TEST(test_cast_to_string) {
  zb_error err = {{0}};
  double v[] = {0.1, 3.0, 1e20, 1e16, 1e15, 1.5e-7, 0.0001, -0.0, NAN, -INFINITY,
                123456789.123, 2.5, -1.0 / 3.0, 5e-324, 1.7976931348623157e308};
  const char *want[] = {"0.1", "3.0", "1e+20", "1e+16", "1000000000000000.0", "1.5e-07",
                        "0.0001", "-0.0", "nan", "-inf", "123456789.123", "2.5",
                        "-0.3333333333333333", "5e-324", "1.7976931348623157e+308"};
  zb_column *f = col_from_doubles(ZB_FLOAT64, v, 15), *r = NULL;
  ZB_CHECK_OK(zb_column_cast(f, ZB_STRING, ZB_MICRO, &r, &err), &err);
  for (int i = 0; r && i < 15; i++) {
    if (!str_is(r, i, want[i])) {
      int64_t l;
      const char *p = get_s(r, i, &l);
      zb_test_fail(__FILE__, __LINE__, "row %d: '%.*s' want '%s'", i, (int)l, p, want[i]);
    }
  }
  zb_column_release(r);
  zb_column_release(f);
  /* float32 as numpy's str: positional for 1e-4 <= |x| < 1e6 (float32(1e-4)
   * is just below 1e-4) */
  double fv[] = {0.1, 1.0 / 3.0, 16777216.0, 999999.9375, 1e-4, 1.5e7};
  const char *fwant[] = {"0.1", "0.33333334", "1.6777216e+07", "999999.94", "1e-04", "1.5e+07"};
  f = col_from_doubles(ZB_FLOAT32, fv, 6);
  ZB_CHECK_OK(zb_column_cast(f, ZB_STRING, ZB_MICRO, &r, &err), &err);
  for (int i = 0; r && i < 6; i++) ZB_CHECK(str_is(r, i, fwant[i]));
  zb_column_release(r);
  zb_column_release(f);
  /* ints, bools, nulls; random doubles round-trip through text */
  for (int li = 0; li < N_LENGTHS; li++) {
    int64_t n = k_lengths[li];
    zb_column *a = make_col(ZB_INT64, n, 3, true, 0, 0), *b = make_col(ZB_BOOL, n, 4, true, 0, 0);
    zb_column *d = make_col(ZB_FLOAT64, n, 5, true, 0, 0);
    for (int64_t i = 0; i < n; i++) { /* random bit patterns -> finite doubles */
      uint64_t bits = rng_next((uint64_t[]){(uint64_t)i});
      double x;
      memcpy(&x, &bits, 8);
      if (!isfinite(x)) x = (double)i / 7.0;
      ((double *)d->data->data)[d->offset + i] = x;
    }
    zb_column *ra = NULL, *rb = NULL, *rd = NULL, *back = NULL;
    set_threads(li % 2 ? 3 : 1);
    ZB_CHECK_OK(zb_column_cast(a, ZB_STRING, ZB_MICRO, &ra, &err), &err);
    ZB_CHECK_OK(zb_column_cast(b, ZB_STRING, ZB_MICRO, &rb, &err), &err);
    ZB_CHECK_OK(zb_column_cast(d, ZB_STRING, ZB_MICRO, &rd, &err), &err);
    ZB_CHECK_OK(zb_column_cast(rd, ZB_FLOAT64, ZB_MICRO, &back, &err), &err);
    if (back) ZB_CHECK(col_equal(back, d));
    for (int64_t i = 0; ra && rb && i < n; i++) {
      ZB_CHECK(zb_column_is_valid(ra, i) == zb_column_is_valid(a, i));
      ZB_CHECK(zb_column_is_valid(rb, i) == zb_column_is_valid(b, i));
      if (zb_column_is_valid(a, i)) {
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", (long long)get_i(a, i));
        ZB_CHECK(str_is(ra, i, buf));
      }
      if (zb_column_is_valid(b, i)) ZB_CHECK(str_is(rb, i, get_i(b, i) ? "True" : "False"));
    }
    zb_column_release(a);
    zb_column_release(b);
    zb_column_release(d);
    zb_column_release(ra);
    zb_column_release(rb);
    zb_column_release(rd);
    zb_column_release(back);
  }
  set_threads(zb_available_cores());
}

ZB_TEST(test_cast_from_string) {
  zb_error err = {{0}};
  const char *s[] = {" 42 ", "-9223372036854775808", NULL, "+7", "0"};
  zb_column *c = col_from_strings(s, 5), *r = NULL;
  ZB_CHECK_OK(zb_column_cast(c, ZB_INT64, ZB_MICRO, &r, &err), &err);
  ZB_CHECK_EQ_INT(get_i(r, 0), 42);
  ZB_CHECK_EQ_INT(get_i(r, 1), INT64_MIN);
  ZB_CHECK(!zb_column_is_valid(r, 2));
  ZB_CHECK_EQ_INT(get_i(r, 3), 7);
  zb_column_release(r);
  ZB_CHECK_EQ_INT(zb_column_cast(c, ZB_INT32, ZB_MICRO, &r, &err), ZB_EOVERFLOW);
  ZB_CHECK(strstr(err.message, "row 1") != NULL);
  ZB_CHECK_OK(zb_column_cast(c, ZB_FLOAT64, ZB_MICRO, &r, &err), &err);
  ZB_CHECK(get_f(r, 0) == 42.0 && get_f(r, 1) == -9223372036854775808.0);
  zb_column_release(r);
  zb_column_release(c);
  const char *bad[] = {"1", "2", "x1", "3.5"};
  c = col_from_strings(bad, 4);
  ZB_CHECK_EQ_INT(zb_column_cast(c, ZB_INT16, ZB_MICRO, &r, &err), ZB_EPARSE);
  ZB_CHECK(strstr(err.message, "row 2") != NULL && strstr(err.message, "'x1'") != NULL);
  ZB_CHECK_EQ_INT(zb_column_cast(c, ZB_FLOAT32, ZB_MICRO, &r, &err), ZB_EPARSE);
  ZB_CHECK_EQ_INT(zb_column_cast(c, ZB_UINT8, ZB_MICRO, &r, &err), ZB_EPARSE);
  zb_column_release(c);
  const char *bools[] = {"True", "false", "1", "0", " true"};
  c = col_from_strings(bools, 5);
  ZB_CHECK_OK(zb_column_cast(c, ZB_BOOL, ZB_MICRO, &r, &err), &err);
  for (int i = 0; r && i < 5; i++) ZB_CHECK_EQ_INT(get_i(r, i), i % 2 == 0);
  zb_column_release(r);
  zb_column_release(c);
  const char *fl[] = {"1.5", "-inf", "nan", "1e-3", "-0"};
  c = col_from_strings(fl, 5);
  ZB_CHECK_OK(zb_column_cast(c, ZB_FLOAT64, ZB_MICRO, &r, &err), &err);
  ZB_CHECK(get_f(r, 0) == 1.5 && isinf(get_f(r, 1)) && isnan(get_f(r, 2)) && get_f(r, 3) == 1e-3);
  zb_column_release(r);
  ZB_CHECK_EQ_INT(zb_column_cast(c, ZB_UINT8, ZB_MICRO, &r, &err), ZB_EPARSE);
  ZB_CHECK(strstr(err.message, "row 0") != NULL);
  zb_column_release(c);
}

ZB_TEST(test_cast_categorical) {
  zb_error err = {{0}};
  for (int li = 0; li < N_LENGTHS; li++) {
    int64_t n = k_lengths[li];
    zb_column *s = make_str(n, 12, true), *cat = NULL, *back = NULL, *num = NULL;
    set_threads(li % 2 ? 3 : 1);
    ZB_CHECK_OK(zb_column_cast(s, ZB_CATEGORICAL, ZB_MICRO, &cat, &err), &err);
    if (cat == NULL) {
      zb_column_release(s);
      continue;
    }
    ZB_CHECK_EQ_INT(cat->type, ZB_CATEGORICAL);
    ZB_CHECK_EQ_INT(cat->null_count, s->null_count);
    const zb_column *d = cat->dictionary;
    for (int64_t k = 1; k < d->length; k++) { /* sorted, distinct */
      int64_t la, lb;
      const char *pa = get_s(d, k - 1, &la), *pb = get_s(d, k, &lb);
      ZB_CHECK(str_cmp3(pa, la, pb, lb) < 0);
    }
    for (int64_t i = 0; i < n; i++) {
      if (!zb_column_is_valid(s, i)) continue;
      int64_t la, lb;
      const char *pa = get_s(s, i, &la), *pb = get_s(d, get_i(cat, i), &lb);
      ZB_CHECK(la == lb && memcmp(pa, pb, (size_t)la) == 0);
    }
    ZB_CHECK_OK(zb_column_cast(cat, ZB_STRING, ZB_MICRO, &back, &err), &err);
    if (back) ZB_CHECK(col_equal(back, s));
    /* categorical compares by its strings */
    zb_column *eq = NULL;
    ZB_CHECK_OK(zb_column_binary_string(ZB_OP_LT, cat, "b", 1, false, &eq, &err), &err);
    for (int64_t i = 0; eq && i < n; i++) {
      if (!zb_column_is_valid(s, i)) continue;
      int64_t la;
      const char *pa = get_s(s, i, &la);
      ZB_CHECK_EQ_INT(get_i(eq, i), str_cmp3(pa, la, "b", 1) < 0);
    }
    ZB_CHECK_EQ_INT(zb_column_cast(cat, ZB_INT64, ZB_MICRO, &num, &err),
                    n > 0 && d->length > 1 ? ZB_EPARSE : ZB_OK);
    zb_column_release(num);
    zb_column_release(eq);
    zb_column_release(s);
    zb_column_release(cat);
    zb_column_release(back);
  }
  set_threads(zb_available_cores());
}

ZB_TEST(test_cast_dates) {
  zb_error err = {{0}};
  double days[] = {0, 1, -1, 18262, -100000};
  zb_column *d = col_from_doubles(ZB_DATE32, days, 5), *r = NULL, *r2 = NULL;
  ZB_CHECK_OK(zb_column_cast(d, ZB_INT64, ZB_MICRO, &r, &err), &err);
  ZB_CHECK_EQ_INT(r->type, ZB_INT64);
  ZB_CHECK_EQ_INT(get_i(r, 3), 18262);
  ZB_CHECK_OK(zb_column_cast(r, ZB_DATE32, ZB_MICRO, &r2, &err), &err);
  ZB_CHECK(col_equal(r2, d));
  zb_column_release(r);
  zb_column_release(r2);
  ZB_CHECK_OK(zb_column_cast(d, ZB_TIMESTAMP, ZB_NANO, &r, &err), &err);
  ZB_CHECK_EQ_INT(r->unit, ZB_NANO);
  ZB_CHECK_EQ_INT(get_i(r, 2), -86400LL * 1000000000LL);
  ZB_CHECK_OK(zb_column_cast(r, ZB_TIMESTAMP, ZB_SECOND, &r2, &err), &err);
  ZB_CHECK_EQ_INT(get_i(r2, 3), 18262LL * 86400);
  zb_column_release(r2);
  ZB_CHECK_OK(zb_column_cast(r, ZB_DATE32, ZB_MICRO, &r2, &err), &err);
  ZB_CHECK(col_equal(r2, d));
  zb_column_release(r2);
  zb_column_release(r);
  /* floor toward -inf: -1 ns is the day before the epoch */
  double ns[] = {-1, 1, 86400e9};
  zb_column *t = col_from_doubles(ZB_INT64, ns, 3), *ts = NULL;
  ZB_CHECK_OK(zb_column_cast(t, ZB_TIMESTAMP, ZB_NANO, &ts, &err), &err);
  ZB_CHECK_OK(zb_column_cast(ts, ZB_DATE32, ZB_MICRO, &r, &err), &err);
  ZB_CHECK_EQ_INT(get_i(r, 0), -1);
  ZB_CHECK_EQ_INT(get_i(r, 1), 0);
  ZB_CHECK_EQ_INT(get_i(r, 2), 1);
  zb_column_release(r);
  ZB_CHECK_OK(zb_column_cast(ts, ZB_TIMESTAMP, ZB_MILLI, &r, &err), &err);
  ZB_CHECK_EQ_INT(get_i(r, 0), -1);
  zb_column_release(r);
  zb_column_release(ts);
  zb_column_release(t);
  /* overflow: date far out to ns */
  ((int32_t *)d->data->data)[4] = 2000000000;
  ZB_CHECK_EQ_INT(zb_column_cast(d, ZB_TIMESTAMP, ZB_NANO, &r, &err), ZB_EOVERFLOW);
  ZB_CHECK(strstr(err.message, "row 4") != NULL);
  ZB_CHECK_EQ_INT(zb_column_cast(d, ZB_FLOAT64, ZB_MICRO, &r, &err), ZB_ETYPE);
  zb_column_release(d);
}

ZB_TEST(test_cast_faults) {
  zb_error err = {{0}};
  zb_column *s = make_str(3000, 5, true), *f = make_col(ZB_FLOAT64, 3000, 6, true, 0, 0);
  for (int64_t k = 1; k < 40; k++) {
    zb_column *r = NULL;
    zb_alloc_fail_after(k);
    zb_status st1 = zb_column_cast(s, ZB_CATEGORICAL, ZB_MICRO, &r, &err);
    zb_column_release(r);
    r = NULL;
    zb_status st2 = zb_column_cast(f, ZB_STRING, ZB_MICRO, &r, &err);
    zb_column_release(r);
    r = NULL;
    zb_status st3 = zb_column_cast(f, ZB_INT8, ZB_MICRO, &r, &err);
    zb_column_release(r);
    zb_alloc_fail_after(0);
    ZB_CHECK(st1 == ZB_OK || st1 == ZB_ENOMEM);
    ZB_CHECK(st2 == ZB_OK || st2 == ZB_ENOMEM);
    ZB_CHECK(st3 == ZB_OK || st3 == ZB_ENOMEM || st3 == ZB_EOVERFLOW);
  }
  zb_column_release(s);
  zb_column_release(f);
}

/* ---- 3. nulls, filter, take ---------------------------------------------- */

ZB_TEST(test_isnull_fill_null) {
  zb_error err = {{0}};
  for (int li = 0; li < N_LENGTHS; li++) {
    int64_t n = k_lengths[li];
    zb_column *a = make_col(ZB_INT32, n, 61, true, 0, 0), *isn = NULL, *nn = NULL, *f = NULL;
    ZB_CHECK_OK(zb_column_isnull(a, &isn, &err), &err);
    ZB_CHECK_OK(zb_column_notnull(a, &nn, &err), &err);
    zb_scalar v = {ZB_INT64, false, {.i = -5}};
    ZB_CHECK_OK(zb_column_fill_null(a, &v, &f, &err), &err);
    ZB_CHECK(isn && nn && f);
    if (!(isn && nn && f)) return;
    ZB_CHECK_EQ_INT(isn->null_count, 0);
    ZB_CHECK_EQ_INT(f->null_count, 0);
    ZB_CHECK_EQ_INT(f->type, ZB_INT32);
    for (int64_t i = 0; i < n; i++) {
      bool valid = zb_column_is_valid(a, i);
      ZB_CHECK_EQ_INT(get_i(isn, i), !valid);
      ZB_CHECK_EQ_INT(get_i(nn, i), valid);
      ZB_CHECK_EQ_INT(get_i(f, i), valid ? get_i(a, i) : -5);
    }
    zb_column_release(isn);
    zb_column_release(nn);
    zb_column_release(f);
    zb_column_release(a);
    /* bool and string */
    zb_column *b = make_col(ZB_BOOL, n, 62, true, 0, 0), *s = make_str(n, 63, true);
    zb_scalar t = {ZB_BOOL, false, {.b = true}};
    zb_column *fb = NULL, *fs = NULL, *cat = NULL, *fc = NULL;
    ZB_CHECK_OK(zb_column_fill_null(b, &t, &fb, &err), &err);
    ZB_CHECK_OK(zb_column_fill_null_string(s, "<NA>", 4, &fs, &err), &err);
    ZB_CHECK_OK(zb_column_cast(s, ZB_CATEGORICAL, ZB_MICRO, &cat, &err), &err);
    zb_status st = zb_column_fill_null_string(cat, "zz", 2, &fc, &err);
    for (int64_t i = 0; fb && fs && i < n; i++) {
      ZB_CHECK_EQ_INT(get_i(fb, i), zb_column_is_valid(b, i) ? get_i(b, i) : 1);
      if (zb_column_is_valid(s, i)) {
        int64_t l;
        const char *p = get_s(s, i, &l);
        char buf[64];
        snprintf(buf, sizeof buf, "%.*s", (int)l, p);
        ZB_CHECK(str_is(fs, i, buf));
      } else {
        ZB_CHECK(str_is(fs, i, "<NA>"));
      }
    }
    if (cat && cat->null_count > 0 && st == ZB_OK) {
      bool has_zz = false;
      for (int64_t k = 0; k < cat->dictionary->length; k++) has_zz |= str_is(cat->dictionary, k, "zz");
      ZB_CHECK(has_zz);
      for (int64_t i = 0; fc && i < n; i++)
        if (!zb_column_is_valid(cat, i)) ZB_CHECK(str_is(cat->dictionary, get_i(fc, i), "zz"));
    }
    zb_column_release(fc);
    fc = NULL;
    if (cat && cat->null_count > 0)
      ZB_CHECK_EQ_INT(zb_column_fill_null_string(cat, "nope", 4, &fc, &err), ZB_EINVAL);
    zb_column_release(b);
    zb_column_release(s);
    zb_column_release(fb);
    zb_column_release(fs);
    zb_column_release(cat);
  }
  zb_column *a = make_col(ZB_INT8, 100, 1, true, 0, 0), *r = NULL;
  zb_scalar big = {ZB_INT64, false, {.i = 1000}};
  ZB_CHECK_EQ_INT(zb_column_fill_null(a, &big, &r, &err), ZB_EOVERFLOW);
  zb_scalar frac = {ZB_FLOAT64, false, {.f = 1.5}};
  ZB_CHECK_EQ_INT(zb_column_fill_null(a, &frac, &r, &err), ZB_ETYPE);
  ZB_CHECK(r == NULL);
  zb_column_release(a);
}

/* Oracle: the kept rows of a mask (null -> false). */
static int64_t mask_rows(const zb_column *mask, int64_t *rows) {
  int64_t k = 0;
  for (int64_t i = 0; i < mask->length; i++)
    if (zb_column_is_valid(mask, i) && get_i(mask, i)) rows[k++] = i;
  return k;
}

/* Row r of src equals row i of got (validity and value). */
static bool row_equal(const zb_column *src, int64_t r, const zb_column *got, int64_t i) {
  bool v = zb_column_is_valid(src, r);
  if (zb_column_is_valid(got, i) != v) return false;
  if (!v) return true;
  if (src->type == ZB_STRING) {
    int64_t la, lb;
    const char *pa = get_s(src, r, &la), *pb = get_s(got, i, &lb);
    return la == lb && memcmp(pa, pb, (size_t)la) == 0;
  }
  if (zb_type_is_float(src->type)) return get_f(src, r) == get_f(got, i);
  return get_i(src, r) == get_i(got, i);
}

ZB_TEST(test_filter_take) {
  zb_error err = {{0}};
  zb_type_id types[] = {ZB_BOOL, ZB_INT8, ZB_INT16, ZB_FLOAT32, ZB_INT64, ZB_FLOAT64,
                        ZB_STRING, ZB_TIMESTAMP};
  for (int li = 0; li < N_LENGTHS; li++) {
    int64_t n = k_lengths[li];
    zb_column *mask = make_col(ZB_BOOL, n, 71, true, 0, 0);
    int64_t *rows = (int64_t *)malloc((size_t)(n + 1) * sizeof(int64_t));
    int64_t kept = mask_rows(mask, rows);
    /* indices: random positions, some null */
    zb_column *idx = make_col(ZB_INT64, n, 72, true, 0, 0);
    for (int64_t i = 0; i < n; i++)
      ((int64_t *)idx->data->data)[idx->offset + i] = (int64_t)(rng_next((uint64_t[]){(uint64_t)i * 7}) % (uint64_t)n);
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
      zb_column *c = types[t] == ZB_STRING ? make_str(n, 73, true) : make_col(types[t], n, 73, true, 0, 0);
      zb_column *f1 = NULL, *f3 = NULL, *t1 = NULL, *t3 = NULL;
      set_threads(1);
      ZB_CHECK_OK(zb_column_filter(c, mask, &f1, &err), &err);
      ZB_CHECK_OK(zb_column_take(c, idx, &t1, &err), &err);
      set_threads(3);
      ZB_CHECK_OK(zb_column_filter(c, mask, &f3, &err), &err);
      ZB_CHECK_OK(zb_column_take(c, idx, &t3, &err), &err);
      if (f1 && f3 && t1 && t3) {
        ZB_CHECK(col_equal(f1, f3));
        ZB_CHECK(col_equal(t1, t3));
        ZB_CHECK_EQ_INT(f1->length, kept);
        ZB_CHECK_EQ_INT(f1->type, types[t]);
        int64_t bad = 0;
        for (int64_t k = 0; k < kept; k++)
          if (!row_equal(c, rows[k], f1, k) && bad++ < 3)
            zb_test_fail(__FILE__, __LINE__, "filter %s n=%lld row %lld", zb_type_name(types[t]),
                         (long long)n, (long long)k);
        for (int64_t i = 0; i < n; i++) {
          if (!zb_column_is_valid(idx, i)) {
            ZB_CHECK(!zb_column_is_valid(t1, i));
            continue;
          }
          if (!row_equal(c, get_i(idx, i), t1, i) && bad++ < 3)
            zb_test_fail(__FILE__, __LINE__, "take %s row %lld", zb_type_name(types[t]), (long long)i);
        }
      }
      zb_column_release(f1);
      zb_column_release(f3);
      zb_column_release(t1);
      zb_column_release(t3);
      zb_column_release(c);
    }
    free(rows);
    zb_column_release(mask);
    zb_column_release(idx);
  }
  set_threads(zb_available_cores());
}

ZB_TEST(test_table_filter_take_errors) {
  zb_error err = {{0}};
  zb_column *a = make_col(ZB_INT32, 100, 1, true, 0, 0), *s = make_str(100, 2, true);
  zb_column *cols[2] = {a, s};
  const char *names[2] = {"a", "s"};
  zb_table *t = NULL, *f = NULL, *tk = NULL;
  ZB_CHECK_OK(zb_table_make(2, cols, names, &t, &err), &err);
  zb_column *mask = make_col(ZB_BOOL, 100, 3, true, 0, 0);
  ZB_CHECK_OK(zb_table_filter(t, mask, &f, &err), &err);
  int64_t rows[100];
  int64_t kept = mask_rows(mask, rows);
  ZB_CHECK_EQ_INT(f->num_rows, kept);
  for (int64_t k = 0; k < kept; k++) {
    ZB_CHECK(row_equal(a, rows[k], f->columns[0], k));
    ZB_CHECK(row_equal(s, rows[k], f->columns[1], k));
  }
  zb_column *idx = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, 3, false, 0, &idx, &err), &err);
  int64_t *ix = (int64_t *)idx->data->data;
  ix[0] = 99; ix[1] = 0; ix[2] = 5;
  ZB_CHECK_OK(zb_table_take(t, idx, &tk, &err), &err);
  ZB_CHECK_EQ_INT(tk->num_rows, 3);
  ZB_CHECK(row_equal(s, 99, tk->columns[1], 0));
  ZB_CHECK(strcmp(tk->names[1], "s") == 0);
  zb_table_release(tk);
  tk = NULL;
  ix[2] = 100;
  ZB_CHECK_EQ_INT(zb_table_take(t, idx, &tk, &err), ZB_EINDEX);
  ZB_CHECK(strstr(err.message, "100") && strstr(err.message, "position 2"));
  ix[2] = -1;
  zb_column *tc = NULL;
  ZB_CHECK_EQ_INT(zb_column_take(a, idx, &tc, &err), ZB_EINDEX);
  ZB_CHECK(tc == NULL);
  ZB_CHECK(strstr(err.message, "negative") != NULL);
  zb_column *short_mask = NULL, *r = NULL;
  ZB_CHECK_OK(zb_column_slice(mask, 0, 50, &short_mask, &err), &err);
  ZB_CHECK_EQ_INT(zb_column_filter(a, short_mask, &r, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "50") && strstr(err.message, "100"));
  ZB_CHECK_EQ_INT(zb_column_filter(a, a, &r, &err), ZB_ETYPE);
  zb_column_release(short_mask);
  zb_column_release(idx);
  zb_column_release(mask);
  zb_table_release(f);
  zb_table_release(t);
  zb_column_release(a);
  zb_column_release(s);
}

ZB_TEST(test_filter_take_faults) {
  zb_error err = {{0}};
  zb_column *a = make_col(ZB_INT32, 70000, 1, true, 0, 0), *s = make_str(70000, 2, true);
  zb_column *cols[2] = {a, s};
  const char *names[2] = {"a", "s"};
  zb_table *t = NULL;
  ZB_CHECK_OK(zb_table_make(2, cols, names, &t, &err), &err);
  zb_column *mask = make_col(ZB_BOOL, 70000, 3, true, 0, 0);
  zb_column *idx = make_col(ZB_INT64, 1000, 4, true, 60000, 0);
  zb_column *abs_idx = NULL;
  ZB_CHECK_OK(zb_column_unary(ZB_OP_ABS, idx, &abs_idx, &err), &err);
  int ok = 0;
  for (int64_t k = 1; k < 60; k++) {
    zb_table *r = NULL, *r2 = NULL;
    zb_alloc_fail_after(k);
    zb_status st = zb_table_filter(t, mask, &r, &err);
    zb_status st2 = zb_table_take(t, abs_idx, &r2, &err);
    zb_alloc_fail_after(0);
    ZB_CHECK(st == ZB_OK || st == ZB_ENOMEM);
    ZB_CHECK(st2 == ZB_OK || st2 == ZB_ENOMEM);
    ZB_CHECK((st == ZB_OK) == (r != NULL));
    ok += st == ZB_OK;
    zb_table_release(r);
    zb_table_release(r2);
  }
  ZB_CHECK(ok > 0);
  zb_column_release(abs_idx);
  zb_column_release(idx);
  zb_column_release(mask);
  zb_table_release(t);
  zb_column_release(a);
  zb_column_release(s);
}

/* ---- 4. sorting ----------------------------------------------------------- */

static struct {
  const zb_table *t;
  int64_t n_keys;
  const int64_t *keys;
  const bool *asc;
  bool nulls_first;
} g_sort;

static bool oracle_missing(const zb_column *c, int64_t i) {
  if (!zb_column_is_valid(c, i)) return true;
  return zb_type_is_float(c->type) && isnan(get_f(c, i));
}

static int oracle_cmp_col(const zb_column *c, int64_t i, int64_t j, bool asc, bool nulls_first) {
  bool mi = oracle_missing(c, i), mj = oracle_missing(c, j);
  if (mi || mj) {
    if (mi && mj) return 0;
    return (mi ? -1 : 1) * (nulls_first ? 1 : -1);
  }
  int r;
  if (c->type == ZB_STRING || c->type == ZB_CATEGORICAL) {
    const zb_column *s = c->type == ZB_STRING ? c : c->dictionary;
    int64_t ri = c->type == ZB_STRING ? i : get_i(c, i), rj = c->type == ZB_STRING ? j : get_i(c, j);
    int64_t la, lb;
    const char *pa = get_s(s, ri, &la), *pb = get_s(s, rj, &lb);
    r = str_cmp3(pa, la, pb, lb);
  } else if (zb_type_is_float(c->type)) {
    double x = get_f(c, i), y = get_f(c, j);
    r = x < y ? -1 : x > y ? 1 : 0;
  } else if (c->type == ZB_UINT64) {
    uint64_t x = (uint64_t)get_i(c, i), y = (uint64_t)get_i(c, j);
    r = x < y ? -1 : x > y ? 1 : 0;
  } else {
    int64_t x = get_i(c, i), y = get_i(c, j);
    r = x < y ? -1 : x > y ? 1 : 0;
  }
  return asc ? r : -r;
}

static int oracle_cmp(const void *pa, const void *pb) {
  int64_t i = *(const int64_t *)pa, j = *(const int64_t *)pb;
  for (int64_t k = 0; k < g_sort.n_keys; k++) {
    int r = oracle_cmp_col(g_sort.t->columns[g_sort.keys[k]], i, j, g_sort.asc[k], g_sort.nulls_first);
    if (r != 0) return r;
  }
  return i < j ? -1 : i > j;
}

/* Sort with 1 and 3 threads and compare with the oracle permutation. */
static void check_sort(const zb_table *t, int64_t n_keys, const int64_t *keys, const bool *asc,
                       bool nulls_first, const char *what) {
  zb_error err = {{0}};
  zb_column *p1 = NULL, *p3 = NULL;
  set_threads(1);
  ZB_CHECK_OK(zb_table_sort_indices(t, n_keys, keys, asc, nulls_first, &p1, &err), &err);
  set_threads(3);
  ZB_CHECK_OK(zb_table_sort_indices(t, n_keys, keys, asc, nulls_first, &p3, &err), &err);
  int64_t n = t->num_rows;
  if (p1 && p3) {
    ZB_CHECK(col_equal(p1, p3));
    ZB_CHECK_EQ_INT(p1->length, n);
    int64_t *want = (int64_t *)malloc((size_t)(n + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) want[i] = i;
    g_sort.t = t;
    g_sort.n_keys = n_keys;
    g_sort.keys = keys;
    g_sort.asc = asc;
    g_sort.nulls_first = nulls_first;
    qsort(want, (size_t)n, sizeof(int64_t), oracle_cmp);
    for (int64_t i = 0; i < n; i++) {
      if (get_i(p1, i) != want[i]) {
        zb_test_fail(__FILE__, __LINE__, "sort %s n=%lld asc=%d nulls_first=%d: position %lld is row %lld, want %lld",
                     what, (long long)n, asc[0], nulls_first, (long long)i, (long long)get_i(p1, i),
                     (long long)want[i]);
        break;
      }
    }
    free(want);
  }
  zb_column_release(p1);
  zb_column_release(p3);
}

ZB_TEST(test_sort_single_keys) {
  zb_error err = {{0}};
  zb_type_id types[] = {ZB_BOOL, ZB_INT8, ZB_INT16, ZB_INT32, ZB_INT64, ZB_UINT8, ZB_UINT64,
                        ZB_FLOAT32, ZB_FLOAT64, ZB_DATE32, ZB_TIMESTAMP, ZB_STRING, ZB_CATEGORICAL};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    for (int li = 0; li < N_LENGTHS; li++) {
      int64_t n = k_lengths[li];
      zb_column *c = NULL;
      if (types[t] == ZB_STRING || types[t] == ZB_CATEGORICAL) {
        zb_column *s = make_str(n, 91 + (uint64_t)li, true);
        if (types[t] == ZB_STRING) {
          c = s;
        } else {
          ZB_CHECK_OK(zb_column_cast(s, ZB_CATEGORICAL, ZB_MICRO, &c, &err), &err);
          zb_column_release(s);
        }
      } else {
        /* full range for some, small ranges (many ties) for others */
        c = make_col(types[t], n, 91 + (uint64_t)li, true, (li & 1) ? 0 : 50, 0);
        if (zb_type_is_float(types[t]) && n > 10) { /* NaN, -0.0 and 0.0 */
          for (int64_t i = 0; i < n; i += 9) set_raw(c, c->offset + i, 0, (i % 27 == 0) ? NAN : (i % 2 ? -0.0 : 0.0));
        }
      }
      const char *name = "k";
      zb_table *tb = NULL;
      ZB_CHECK_OK(zb_table_make(1, &c, &name, &tb, &err), &err);
      int64_t key = 0;
      for (int a = 0; a < 2; a++)
        for (int nf = 0; nf < 2; nf++) {
          bool asc = a == 0;
          check_sort(tb, 1, &key, &asc, nf == 1, zb_type_name(types[t]));
        }
      zb_table_release(tb);
      zb_column_release(c);
    }
  }
  set_threads(zb_available_cores());
}

ZB_TEST(test_sort_multi_keys) {
  zb_error err = {{0}};
  for (int li = 0; li < N_LENGTHS; li++) {
    int64_t n = k_lengths[li];
    zb_column *cols[4] = {make_col(ZB_INT16, n, 1, true, 3, 0), make_str(n, 2, true),
                          make_col(ZB_FLOAT64, n, 3, true, 5, 0), make_col(ZB_BOOL, n, 4, true, 0, 0)};
    const char *names[4] = {"a", "b", "c", "d"};
    zb_table *t = NULL;
    ZB_CHECK_OK(zb_table_make(4, cols, names, &t, &err), &err);
    int64_t keys[4] = {0, 1, 2, 3};
    bool asc[4] = {true, false, true, false};
    check_sort(t, 4, keys, asc, false, "multi");
    int64_t keys2[3] = {3, 2, 0};
    bool asc2[3] = {false, false, true};
    check_sort(t, 3, keys2, asc2, true, "multi2");
    zb_table_release(t);
    for (int k = 0; k < 4; k++) zb_column_release(cols[k]);
  }
  set_threads(zb_available_cores());
  /* errors */
  zb_column *c = make_col(ZB_INT32, 10, 1, false, 0, 0), *p = NULL;
  const char *name = "x";
  zb_table *t = NULL;
  ZB_CHECK_OK(zb_table_make(1, &c, &name, &t, &err), &err);
  int64_t bad = 3;
  ZB_CHECK_EQ_INT(zb_table_sort_indices(t, 1, &bad, NULL, false, &p, &err), ZB_EINDEX);
  ZB_CHECK(p == NULL);
  ZB_CHECK_OK(zb_column_sort_indices(c, true, false, &p, &err), &err);
  for (int64_t i = 1; p && i < 10; i++) ZB_CHECK(get_i(c, get_i(p, i - 1)) <= get_i(c, get_i(p, i)));
  zb_column_release(p);
  zb_table_release(t);
  zb_column_release(c);
}

ZB_TEST(test_sort_faults) {
  zb_error err = {{0}};
  zb_column *cols[3] = {make_col(ZB_INT64, 70000, 1, true, 0, 0), make_str(70000, 2, true), NULL};
  ZB_CHECK_OK(zb_column_cast(cols[1], ZB_CATEGORICAL, ZB_MICRO, &cols[2], &err), &err);
  const char *names[3] = {"a", "b", "c"};
  zb_table *t = NULL;
  ZB_CHECK_OK(zb_table_make(3, cols, names, &t, &err), &err);
  int64_t keys[3] = {2, 1, 0};
  int ok = 0;
  for (int64_t k = 1; k < 40; k++) {
    zb_column *p = NULL;
    zb_alloc_fail_after(k);
    zb_status st = zb_table_sort_indices(t, 3, keys, NULL, true, &p, &err);
    zb_alloc_fail_after(0);
    ZB_CHECK(st == ZB_OK || st == ZB_ENOMEM);
    ZB_CHECK((st == ZB_OK) == (p != NULL));
    ok += st == ZB_OK;
    zb_column_release(p);
  }
  ZB_CHECK(ok > 0);
  zb_table_release(t);
  for (int k = 0; k < 3; k++) zb_column_release(cols[k]);
}
