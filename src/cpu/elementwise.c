/*
 * elementwise.c -- CPU kernels of the elementwise extras: clip to bounds,
 * numpy-style rounding, and where/mask selection between two columns (or a
 * column and a broadcast scalar).
 *
 * src/core/strings_ops.c has already converted everything to one type:
 * clip's bounds are scalars of the column's type, where's operands share a
 * type.  Work is split in morsels (multiples of 64 rows, so each morsel owns
 * whole bytes of every output bitmap) run on the thread pool; the type
 * switch sits outside the row loops.
 */
#include <math.h>

#include "core/dtype_list.h"
#include "cpu/kernels.h"
#include "cpu/strings_kernels.h"

static inline void morsel_of(int64_t length, int64_t task, int64_t *start, int64_t *n) {
  *start = task * ZB_MORSEL_ROWS;
  *n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, length - *start);
}

/* A copy of c's validity (if any) on the new column o of c's length. */
static zb_status copy_valid(const zb_column *c, zb_column *o, zb_error *err) {
  if (c->null_count == 0) return ZB_OK;
  ZB_RETURN_NOT_OK(zb_buffer_new(ZB_CPU, (c->length + 7) / 8, &o->validity, err));
  zb__bitmap_copy((uint8_t *)o->validity->data, 0, (const uint8_t *)c->validity->data,
                  c->offset, c->length);
  o->null_count = c->null_count;
  return ZB_OK;
}

/* ---- clip ------------------------------------------------------------------ */

typedef struct clip_job {
  const zb_column *c;
  const zb_scalar *lo, *hi;
  zb_column *out;
} clip_job;

#define CLIP_LOOP(T, FIELD)                                                     \
  do {                                                                          \
    const T *s = (const T *)c->data->data + c->offset + start;                  \
    T *d = (T *)j->out->data->data + start;                                     \
    bool hl = !j->lo->is_null, hh = !j->hi->is_null;                            \
    T lo = hl ? (T)j->lo->v.FIELD : (T)0, hi = hh ? (T)j->hi->v.FIELD : (T)0;   \
    for (int64_t k = 0; k < n; k++) {                                           \
      T x = s[k];                                                               \
      if (hl && x < lo) x = lo;                                                 \
      if (hh && x > hi) x = hi;                                                 \
      d[k] = x;                                                                 \
    }                                                                           \
  } while (0)

static void clip_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  clip_job *j = (clip_job *)ctx;
  const zb_column *c = j->c;
  int64_t start, n;
  morsel_of(c->length, task, &start, &n);
  switch (c->type) {
#define CLIP_S(ID, T, NAME, U) case ID: CLIP_LOOP(T, i); break;
#define CLIP_U(ID, T, NAME, U) case ID: CLIP_LOOP(T, u); break;
#define CLIP_F(ID, T, NAME, U) case ID: CLIP_LOOP(T, f); break;
    ZB_FOR_EACH_SIGNED_TYPE(CLIP_S)
    ZB_FOR_EACH_UNSIGNED_TYPE(CLIP_U)
    ZB_FOR_EACH_FLOAT_TYPE(CLIP_F)
#undef CLIP_S
#undef CLIP_U
#undef CLIP_F
    default: break; /* numeric but bool only (src/core) */
  }
}
#undef CLIP_LOOP

zb_status zb__cpu_clip(const zb_column *col, const zb_scalar *lower, const zb_scalar *upper,
                       zb_column **out, zb_error *err) {
  *out = NULL;
  zb_column *o = NULL;
  ZB_RETURN_NOT_OK(zb_column_new(col->type, col->length, false, 0, &o, err));
  clip_job j = {col, lower, upper, o};
  zb_status st = copy_valid(col, o, err);
  if (st == ZB_OK) st = zb_parallel_for(zb__morsels(col->length), clip_morsel, &j, err);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}

/* ---- round ------------------------------------------------------------------ */


typedef struct round_job {
  const zb_column *c;
  int decimals;
  zb_column *out;
} round_job;

/* double -> integer type T without undefined behaviour: through int64
 * (uint64 for unsigned 64), out-of-range values saturate, then wrap to T. */
#define ROUND_INT_LOOP(T, UNS64)                                                \
  do {                                                                          \
    const T *s = (const T *)c->data->data + c->offset + start;                  \
    T *d = (T *)j->out->data->data + start;                                     \
    for (int64_t k = 0; k < n; k++) {                                           \
      double r = rint((double)s[k] / f) * f;                                    \
      if (UNS64) {                                                              \
        d[k] = r >= 18446744073709551616.0 ? (T)UINT64_MAX                      \
               : r <= 0                     ? (T)0                              \
                                            : (T)(uint64_t)r;                   \
      } else {                                                                  \
        int64_t v = r >= 9223372036854775808.0 ? INT64_MAX                      \
                    : r < -9223372036854775808.0 ? INT64_MIN                    \
                                                 : (int64_t)r;                  \
        d[k] = (T)v;                                                            \
      }                                                                         \
    }                                                                           \
  } while (0)

static void round_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  round_job *j = (round_job *)ctx;
  const zb_column *c = j->c;
  int64_t start, n;
  morsel_of(c->length, task, &start, &n);
  int dec = j->decimals;
  double f = zb__power_of_ten(dec >= 0 ? dec : -dec);
  if (c->type == ZB_FLOAT64) {
    const double *s = (const double *)c->data->data + c->offset + start;
    double *d = (double *)j->out->data->data + start;
    if (dec >= 0)
      for (int64_t k = 0; k < n; k++) d[k] = rint(s[k] * f) / f;
    else
      for (int64_t k = 0; k < n; k++) d[k] = rint(s[k] / f) * f;
    return;
  }
  if (c->type == ZB_FLOAT32) {
    const float *s = (const float *)c->data->data + c->offset + start;
    float *d = (float *)j->out->data->data + start;
    float ff = (float)f;
    if (dec >= 0)
      for (int64_t k = 0; k < n; k++) d[k] = rintf(s[k] * ff) / ff;
    else
      for (int64_t k = 0; k < n; k++) d[k] = rintf(s[k] / ff) * ff;
    return;
  }
  switch (c->type) {
#define ROUND_S(ID, T, NAME, U) case ID: ROUND_INT_LOOP(T, 0); break;
#define ROUND_U(ID, T, NAME, U) case ID: ROUND_INT_LOOP(T, sizeof(T) == 8); break;
    ZB_FOR_EACH_SIGNED_TYPE(ROUND_S)
    ZB_FOR_EACH_UNSIGNED_TYPE(ROUND_U)
#undef ROUND_S
#undef ROUND_U
    default: break; /* integers only (src/core) */
  }
}
#undef ROUND_INT_LOOP

zb_status zb__cpu_round(const zb_column *col, int decimals, zb_column **out, zb_error *err) {
  *out = NULL;
  zb_column *o = NULL;
  ZB_RETURN_NOT_OK(zb_column_new(col->type, col->length, false, 0, &o, err));
  round_job j = {col, decimals, o};
  zb_status st = copy_valid(col, o, err);
  if (st == ZB_OK) st = zb_parallel_for(zb__morsels(col->length), round_morsel, &j, err);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}

/* ---- where / mask ------------------------------------------------------------ */

typedef struct where_job {
  const zb_column *cond, *a, *b;
  bool mask, bs;
  zb_column *out;
  int64_t *bytes; /* strings: per morsel output bytes, then start */
} where_job;

/* Rows [row, row + m) that take a (cond valid and cond != mask). */
static inline uint64_t take_a_word(const where_job *j, int64_t row, int m) {
  uint64_t cv = zb__load_bits((const uint8_t *)j->cond->data->data, j->cond->offset + row, m);
  if (j->mask) cv = ~cv;
  return cv & zb__valid_word(j->cond, row, m) & zb__mask(m);
}

static inline uint64_t b_valid_word(const where_job *j, int64_t row, int m) {
  if (!j->bs) return zb__valid_word(j->b, row, m);
  return zb_column_is_valid(j->b, 0) ? zb__mask(m) : 0;
}

static inline uint64_t b_bits_word(const where_job *j, int64_t row, int m) {
  const uint8_t *bits = (const uint8_t *)j->b->data->data;
  if (!j->bs) return zb__load_bits(bits, j->b->offset + row, m);
  return zb_bit_get(bits, j->b->offset) ? zb__mask(m) : 0;
}

#define WHERE_LOOP(T)                                                           \
  do {                                                                          \
    const T *av = (const T *)a->data->data + a->offset;                         \
    const T *bv = (const T *)j->b->data->data + j->b->offset;                   \
    T *d = (T *)j->out->data->data;                                             \
    for (int q = 0; q < mm; q++) {                                              \
      int64_t i = row + q;                                                      \
      d[i] = ((t >> q) & 1) ? av[i] : bv[j->bs ? 0 : i];                        \
    }                                                                           \
  } while (0)

static void where_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  where_job *j = (where_job *)ctx;
  const zb_column *a = j->a;
  int64_t start, n;
  morsel_of(j->out->length, task, &start, &n);
  uint8_t *ov = j->out->validity ? (uint8_t *)j->out->validity->data : NULL;
  int w = zb_type_width(a->type);
  for (int64_t k = 0; k < n; k += 64) {
    int mm = (int)ZB_MIN((int64_t)64, n - k);
    int64_t row = start + k;
    uint64_t t = take_a_word(j, row, mm);
    if (ov) {
      uint64_t v = (t & zb__valid_word(a, row, mm)) | (~t & b_valid_word(j, row, mm));
      zb__store_bits(ov, row, v & zb__mask(mm), mm);
    }
    if (a->type == ZB_BOOL) {
      uint64_t x = zb__load_bits((const uint8_t *)a->data->data, a->offset + row, mm);
      uint64_t v = (t & x) | (~t & b_bits_word(j, row, mm));
      zb__store_bits((uint8_t *)j->out->data->data, row, v & zb__mask(mm), mm);
      continue;
    }
    switch (w) {
      case 1: WHERE_LOOP(uint8_t); break;
      case 2: WHERE_LOOP(uint16_t); break;
      case 4: WHERE_LOOP(uint32_t); break;
      default: WHERE_LOOP(uint64_t); break;
    }
  }
}
#undef WHERE_LOOP

/* Strings, pass 1: validity, and each row's length in out offsets [i + 1]. */
static void where_str_size(void *ctx, int64_t task, int worker) {
  (void)worker;
  where_job *j = (where_job *)ctx;
  int64_t start, n;
  morsel_of(j->out->length, task, &start, &n);
  uint8_t *ov = j->out->validity ? (uint8_t *)j->out->validity->data : NULL;
  int64_t *oo = (int64_t *)j->out->data->data, total = 0;
  for (int64_t k = 0; k < n; k += 64) {
    int mm = (int)ZB_MIN((int64_t)64, n - k);
    int64_t row = start + k;
    uint64_t t = take_a_word(j, row, mm);
    uint64_t v = ((t & zb__valid_word(j->a, row, mm)) | (~t & b_valid_word(j, row, mm))) &
                 zb__mask(mm);
    if (ov) zb__store_bits(ov, row, v, mm);
    for (int q = 0; q < mm; q++) {
      int64_t i = row + q, len = 0;
      if ((v >> q) & 1) {
        if ((t >> q) & 1)
          zb__str(j->a, i, &len);
        else
          zb__str(j->b, j->bs ? 0 : i, &len);
      }
      oo[i + 1] = len;
      total += len;
    }
  }
  j->bytes[task] = total;
}

static void where_str_write(void *ctx, int64_t task, int worker) {
  (void)worker;
  where_job *j = (where_job *)ctx;
  int64_t start, n;
  morsel_of(j->out->length, task, &start, &n);
  int64_t *oo = (int64_t *)j->out->data->data, pos = j->bytes[task];
  char *ch = (char *)j->out->chars->data;
  for (int64_t k = 0; k < n; k += 64) {
    int mm = (int)ZB_MIN((int64_t)64, n - k);
    int64_t row = start + k;
    uint64_t t = take_a_word(j, row, mm);
    for (int q = 0; q < mm; q++) {
      int64_t i = row + q, m = oo[i + 1], len;
      if (m > 0) {
        const char *p = ((t >> q) & 1) ? zb__str(j->a, i, &len)
                                       : zb__str(j->b, j->bs ? 0 : i, &len);
        memcpy(ch + pos, p, (size_t)m);
      }
      pos += m;
      oo[i + 1] = pos;
    }
  }
}

zb_status zb__cpu_where(const zb_column *cond, bool mask, const zb_column *a,
                        const zb_column *b, bool b_scalar, zb_column **out, zb_error *err) {
  *out = NULL;
  int64_t n = a->length, nm = zb__morsels(n);
  bool nulls = a->null_count > 0 || b->null_count > 0 || cond->null_count > 0;
  where_job j = {cond, a, b, mask, b_scalar, NULL, NULL};
  zb_column *o = NULL;
  zb_status st = zb__new_like(a, a->type, n, false, 0, &o, err);
  if (st == ZB_OK && nulls) st = zb_buffer_new(ZB_CPU, (n + 7) / 8, &o->validity, err);
  j.out = o;
  if (st == ZB_OK && a->type == ZB_STRING) {
    j.bytes = (int64_t *)zb_malloc((size_t)(nm > 0 ? nm : 1) * sizeof(int64_t));
    if (j.bytes == NULL) st = zb_error_set(err, ZB_ENOMEM, "out of host memory (where)");
    if (st == ZB_OK) st = zb_parallel_for(nm, where_str_size, &j, err);
    if (st == ZB_OK) {
      int64_t total = 0;
      for (int64_t m = 0; m < nm; m++) {
        int64_t x = j.bytes[m];
        j.bytes[m] = total;
        total += x;
      }
      zb_buffer_release(o->chars);
      o->chars = NULL;
      st = zb_buffer_new(ZB_CPU, total, &o->chars, err);
    }
    if (st == ZB_OK) st = zb_parallel_for(nm, where_str_write, &j, err);
    zb_free(j.bytes);
  } else if (st == ZB_OK) {
    st = zb_parallel_for(nm, where_morsel, &j, err);
  }
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  zb_column_recount_nulls(o);
  *out = o;
  return ZB_OK;
}
