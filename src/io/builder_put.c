/*
 * builder_put.c -- the column builder's typed path (builder.h): values a
 * binary format already decoded (Parquet's int64, double, boolean, date,
 * timestamp and byte-array columns) go straight into a fixed column's
 * slots, range-checked where the column is narrower.  Typed strings are
 * copied into a buffer of the part's own, and their slots hold cells into
 * it, so finishing (string characters, categoricals) is the text path's.
 */
#include <stdio.h>
#include <string.h>

#include "core/dtype_list.h"
#include "io/builder_internal.h"
#include "io/text_values.h"

/* The slots of rows [rows_done, rows_done + n) of part k, column j, when
 * the call is valid for a fixed column; else NULL. */
static char *put_slots(zb__builder *b, int64_t k, int64_t j, int64_t rows_done, int64_t n) {
  if (b == NULL || k < 0 || k >= b->nparts || j < 0 || j >= b->ncols || n < 0 ||
      rows_done < 0 || rows_done > b->parts[k].max_rows - n || !b->cols[j].fixed ||
      b->cols[j].vals == NULL)
    return NULL;
  zb__bcol *ci = &b->cols[j];
  return (char *)ci->vals->data + (b->parts[k].row0 + rows_done) * ci->width;
}

/* Row i of the batch is null: a zeroed slot, a cleared validity bit. */
static void put_null(zb__builder *b, int64_t k, int64_t j, int64_t rows_done, int64_t i,
                     char *slot) {
  zb__bcol *ci = &b->cols[j];
  memset(slot, 0, (size_t)ci->width);
  zb__set_null((uint8_t *)ci->valid->data, b->parts[k].row0 + rows_done + i);
  zb__pcol(b, k, j)->nulls++;
}

static void put_overflow(zb__builder *b, int64_t k, int64_t j, int64_t rows_done, int64_t i,
                         const char *fmt, long long v) {
  char text[32];
  int n = snprintf(text, sizeof text, fmt, v);
  zb__builder_fail(b, k, j, ZB_EOVERFLOW, ZB_BUILD_ERR_OVERFLOW,
                   b->parts[k].pos0 + rows_done + i, text, n);
}

/* The loop of a typed put over rows [0, n) of the batch: a null where
 * `valid` says so, else the statements STORE for row i at `slot` (they may
 * `break` out of the loop on an overflow); the part's column has a value
 * once a row was stored.  Returns ZB_OK. */
#define PUT_ROWS(width_, ...)                                                   \
  bool any = false;                                                             \
  for (int64_t i = 0; i < n; i++) {                                             \
    char *slot = slots + i * (width_);                                          \
    if (valid != NULL && !valid[i]) {                                           \
      put_null(b, k, j, rows_done, i, slot);                                    \
      continue;                                                                 \
    }                                                                           \
    __VA_ARGS__                                                                 \
    any = true;                                                                 \
  }                                                                             \
  if (any) zb__pcol(b, k, j)->has_value = true;                                 \
  return ZB_OK

/* The int64 values an integer column of type t holds. */
static void int_range(zb_type_id t, int64_t *lo, int64_t *hi) {
  switch (t) {
#define SIGNED_RANGE(ID, T, NAME, U) \
  case ID: *lo = ZB_SIGNED_MIN(T, U); *hi = ZB_SIGNED_MAX(T, U); break;
#define UNSIGNED_RANGE(ID, T, NAME, U)                                             \
  case ID:                                                                         \
    *lo = 0;                                                                       \
    *hi = ZB_UNSIGNED_MAX(U) > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)ZB_UNSIGNED_MAX(U); \
    break;
    ZB_FOR_EACH_SIGNED_TYPE(SIGNED_RANGE)
    ZB_FOR_EACH_UNSIGNED_TYPE(UNSIGNED_RANGE)
#undef SIGNED_RANGE
#undef UNSIGNED_RANGE
    default: *lo = INT64_MIN; *hi = INT64_MAX; break;
  }
}

zb_status zb__builder_put_int64(zb__builder *b, int64_t k, int64_t j, int64_t rows_done,
                                const int64_t *values, const uint8_t *valid, int64_t n) {
  char *slots = put_slots(b, k, j, rows_done, n);
  if (slots == NULL || (n > 0 && values == NULL)) return ZB_EINVAL;
  zb__bcol *ci = &b->cols[j];
  zb_type_id ty = ci->type;
  if (!zb_type_is_integer(ty) && !zb_type_is_float(ty)) return ZB_EINVAL;
  const int w = ci->width;
  int64_t lo, hi;
  int_range(ty, &lo, &hi);
  PUT_ROWS(w, {
    int64_t x = values[i];
    if (ty == ZB_FLOAT64) {
      *(double *)slot = (double)x;
    } else if (ty == ZB_FLOAT32) {
      *(float *)slot = (float)x;
    } else {
      if (x < lo || x > hi) {
        put_overflow(b, k, j, rows_done, i, "%lld", (long long)x);
        break;
      }
      switch (w) {
        case 1: *(int8_t *)slot = (int8_t)x; break;
        case 2: *(int16_t *)slot = (int16_t)x; break;
        case 4: *(int32_t *)slot = (int32_t)x; break;
        default: *(int64_t *)slot = x; break;
      }
    }
  });
}

zb_status zb__builder_put_double(zb__builder *b, int64_t k, int64_t j, int64_t rows_done,
                                 const double *values, const uint8_t *valid, int64_t n) {
  char *slots = put_slots(b, k, j, rows_done, n);
  if (slots == NULL || (n > 0 && values == NULL)) return ZB_EINVAL;
  zb_type_id ty = b->cols[j].type;
  if (ty != ZB_FLOAT64 && ty != ZB_FLOAT32) return ZB_EINVAL;
  const int w = b->cols[j].width;
  PUT_ROWS(w, {
    if (ty == ZB_FLOAT64)
      *(double *)slot = values[i];
    else
      *(float *)slot = (float)values[i];
  });
}

zb_status zb__builder_put_bool(zb__builder *b, int64_t k, int64_t j, int64_t rows_done,
                               const uint8_t *values, const uint8_t *valid, int64_t n) {
  char *slots = put_slots(b, k, j, rows_done, n);
  if (slots == NULL || (n > 0 && values == NULL) || b->cols[j].type != ZB_BOOL)
    return ZB_EINVAL;
  PUT_ROWS(8 /* booleans: 8-byte slots until packed */, { *(int64_t *)slot = values[i] != 0; });
}

zb_status zb__builder_put_days(zb__builder *b, int64_t k, int64_t j, int64_t rows_done,
                               const int32_t *days, const uint8_t *valid, int64_t n) {
  char *slots = put_slots(b, k, j, rows_done, n);
  if (slots == NULL || (n > 0 && days == NULL)) return ZB_EINVAL;
  zb_type_id ty = b->cols[j].type;
  if (ty != ZB_DATE32 && ty != ZB_TIMESTAMP) return ZB_EINVAL;
  const int w = b->cols[j].width;
  PUT_ROWS(w, {
    if (ty == ZB_DATE32) {
      *(int32_t *)slot = days[i];
    } else {
      /* |days| < 2^31 and 86400e6 < 2^37: the product fits only below
       * about 106 million days. */
      if (days[i] > INT64_MAX / INT64_C(86400000000) ||
          days[i] < INT64_MIN / INT64_C(86400000000)) {
        put_overflow(b, k, j, rows_done, i, "%lld days", (long long)days[i]);
        break;
      }
      *(int64_t *)slot = (int64_t)days[i] * INT64_C(86400000000);
    }
  });
}

zb_status zb__builder_put_timestamps(zb__builder *b, int64_t k, int64_t j, int64_t rows_done,
                                     const int64_t *us, const uint8_t *valid, int64_t n) {
  char *slots = put_slots(b, k, j, rows_done, n);
  if (slots == NULL || (n > 0 && us == NULL) || b->cols[j].type != ZB_TIMESTAMP)
    return ZB_EINVAL;
  PUT_ROWS(8, { *(int64_t *)slot = us[i]; });
}

/* The part's own string bytes grown to hold need bytes, keeping them. */
static bool own_reserve(zb__bpcol *cc, int64_t need) {
  if (need <= cc->own_cap) return true;
  int64_t cap = cc->own_cap > 0 ? cc->own_cap : 256;
  while (cap < need) cap *= 2;
  char *p = (char *)zb_malloc((size_t)cap);
  if (p == NULL) return false;
  if (cc->nchars > 0) memcpy(p, cc->own, (size_t)cc->nchars);
  zb_free(cc->own);
  cc->own = p;
  cc->own_cap = cap;
  return true;
}

zb_status zb__builder_put_strings(zb__builder *b, int64_t k, int64_t j, int64_t rows_done,
                                  const int64_t *offsets, const char *chars,
                                  const uint8_t *valid, int64_t n) {
  char *slots = put_slots(b, k, j, rows_done, n);
  if (slots == NULL || (n > 0 && (offsets == NULL || chars == NULL))) return ZB_EINVAL;
  zb_type_id ty = b->cols[j].type;
  zb__bpcol *cc = zb__pcol(b, k, j);
  if ((ty != ZB_STRING && ty != ZB_CATEGORICAL) || (cc->nchars > 0 && cc->own == NULL))
    return ZB_EINVAL; /* not strings, or text cells already */
  int64_t bytes = 0;
  for (int64_t i = 0; i < n; i++) {
    if (offsets[i + 1] < offsets[i]) return ZB_EINVAL;
    if (valid == NULL || valid[i]) bytes += offsets[i + 1] - offsets[i];
  }
  /* Cells hold 32-bit offsets into the part's bytes (and 32 more bytes may
   * be read past a string when they are copied out). */
  if (cc->nchars + bytes > (int64_t)UINT32_MAX - 32) return ZB_ENOTSUP;
  if (!own_reserve(cc, cc->nchars + bytes + 32)) return ZB_ENOMEM;
  uint64_t *v = (uint64_t *)slots;
  bool any = false;
  for (int64_t i = 0; i < n; i++) {
    if (valid != NULL && !valid[i]) {
      v[i] = ZB_CELL_NULL;
      zb__set_null((uint8_t *)b->cols[j].valid->data, b->parts[k].row0 + rows_done + i);
      cc->nulls++;
      continue;
    }
    const char *s = chars + offsets[i];
    int64_t m = offsets[i + 1] - offsets[i];
    if (!zb__text_utf8_valid((const unsigned char *)s, m)) {
      zb__builder_fail(b, k, j, ZB_EPARSE, ZB_BUILD_ERR_UTF8, b->parts[k].pos0 + rows_done + i,
                       s, ZB_MIN(m, (int64_t)41));
      v[i] = ZB_CELL_NULL; /* keeps the part's cells well-formed */
      continue;
    }
    memcpy(cc->own + cc->nchars, s, (size_t)m);
    v[i] = zb__cell(cc->nchars, m, false);
    cc->nchars += m;
    any = true;
  }
  if (any) cc->has_value = true;
  return ZB_OK;
}
