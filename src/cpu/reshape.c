/*
 * reshape.c -- CPU kernels of zambezi/reshape.h: the indicator columns of
 * get_dummies (one_hot) and the repeated rows of melt (repeat).
 *
 * one_hot runs over morsels of rows (ZB_MORSEL_ROWS, a multiple of 64, so
 * a morsel owns whole bytes of every output bitmap).  For each 64-row word
 * it ORs each row's bit into that code's word of the morsel's array of
 * n_codes words, then stores the n_codes words, one into each column: the
 * codes are read once and every output byte is written once, whatever the
 * number of columns.
 *
 * repeat runs over morsels of output rows, walking the source row and the
 * copy number along: output row o is source row o / times.  A string's
 * output offset is known without a scan (every copy of row i has row i's
 * length), so the morsels are independent.  A string row's copies are
 * written as one copy and then the bytes written so far copied after
 * themselves (doubling: log2(copies) memcpy calls, not one per copy), and
 * the offsets of the copies are an arithmetic sequence.
 */
#include <stdio.h>
#include <string.h>

#include "core/dtype_list.h"
#include "cpu/kernels.h"
#include "cpu/reshape.h"

/* ---- one_hot ------------------------------------------------------------- */

typedef struct one_hot_job {
  const zb_column *codes;
  int64_t k;
  uint8_t **bits;     /* k output bitmaps */
  uint64_t *acc;      /* per morsel, k words (1/1024 of the output's bytes) */
  int64_t bad_row;    /* smallest row holding a code >= k (atomic); -1 none */
} one_hot_job;

static void one_hot_morsel(void *ctx, int64_t task, int worker) {
  one_hot_job *j = (one_hot_job *)ctx;
  const zb_column *c = j->codes;
  int64_t n = c->length, k = j->k;
  int64_t start = task * ZB_MORSEL_ROWS, end = ZB_MIN(start + ZB_MORSEL_ROWS, n);
  const int64_t *cv = (const int64_t *)c->data->data + c->offset;
  (void)worker;
  uint64_t *acc = j->acc + task * k;
  for (int64_t w = start; w < end; w += 64) {
    int m = (int)ZB_MIN((int64_t)64, end - w);
    uint64_t valid = zb__valid_word(c, w, m);
    for (int q = 0; q < m; q++) {
      int64_t code = cv[w + q];
      if (!((valid >> q) & 1) || code < 0) continue;
      if (code >= k) {
        int64_t row = w + q, seen = __atomic_load_n(&j->bad_row, __ATOMIC_RELAXED);
        while ((seen < 0 || row < seen) &&
               !__atomic_compare_exchange_n(&j->bad_row, &seen, row, false, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED)) {
        }
        return;
      }
      acc[code] |= UINT64_C(1) << q;
    }
    for (int64_t g = 0; g < k; g++) {
      zb__store_bits(j->bits[g], w, acc[g], m);
      acc[g] = 0;
    }
  }
}

zb_status zb__cpu_one_hot(const zb_column *codes, int64_t n_codes, zb_table **out,
                          zb_error *err) {
  *out = NULL;
  int64_t n = codes->length, k = n_codes;
  int64_t nm = zb__morsels(n);
  if (k > 0 && k > INT64_MAX / 32 / (nm + 1)) /* the sizes below would overflow */
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (one_hot: %lld columns)",
                        (long long)k);
  zb_column **cols = (zb_column **)zb_calloc((size_t)(k + 1), sizeof *cols);
  char **names = (char **)zb_calloc((size_t)(k + 1), sizeof *names);
  char *name_chars = (char *)zb_malloc((size_t)(k + 1) * 24);
  uint8_t **bits = (uint8_t **)zb_malloc((size_t)(k + 1) * sizeof *bits);
  uint64_t *acc = (uint64_t *)zb_calloc((size_t)(nm * k + 1), sizeof *acc);
  zb_status st = ZB_OK;
  if (cols == NULL || names == NULL || name_chars == NULL || bits == NULL || acc == NULL)
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (one_hot: %lld columns)",
                      (long long)k);
  for (int64_t g = 0; g < k && st == ZB_OK; g++) {
    st = zb_column_new(ZB_BOOL, n, false, 0, &cols[g], err);
    if (st != ZB_OK) break;
    bits[g] = (uint8_t *)cols[g]->data->data;
    names[g] = name_chars + g * 24;
    snprintf(names[g], 24, "%lld", (long long)g);
  }
  one_hot_job j = {codes, k, bits, acc, -1};
  if (st == ZB_OK && k > 0) st = zb_parallel_for(nm, one_hot_morsel, &j, err);
  if (st == ZB_OK && j.bad_row >= 0)
    st = zb_error_set(err, ZB_EINDEX, "one_hot: code %lld at row %lld is not below %lld",
                      (long long)((const int64_t *)codes->data->data)[codes->offset + j.bad_row],
                      (long long)j.bad_row, (long long)k);
  if (st == ZB_OK) st = zb_table_make(k, cols, (const char *const *)names, out, err);
  if (st == ZB_OK && k == 0) (*out)->num_rows = n; /* no columns, the codes' rows */
  for (int64_t g = 0; cols != NULL && g < k; g++) zb_column_release(cols[g]);
  zb_free(cols);
  zb_free(names);
  zb_free(name_chars);
  zb_free(bits);
  zb_free(acc);
  return st;
}

/* ---- repeat -------------------------------------------------------------- */

typedef struct repeat_job {
  const zb_column *src;
  int64_t times;
  zb_column *out;
} repeat_job;

/* The output validity of rows [start, end): each row's source row's bit. */
static void repeat_validity(const repeat_job *j, int64_t start, int64_t end) {
  uint8_t *ob = (uint8_t *)j->out->validity->data;
  int64_t i = start / j->times, r = start - i * j->times;
  for (int64_t w = start; w < end; w += 64) {
    int m = (int)ZB_MIN((int64_t)64, end - w);
    uint64_t word = 0;
    for (int q = 0; q < m; q++) {
      word |= (uint64_t)zb_column_is_valid(j->src, i) << q;
      if (++r == j->times) {
        r = 0;
        i++;
      }
    }
    zb__store_bits(ob, w, word, m);
  }
}

#define REPEAT_FIXED(ID, T, NAME, U)                                                  \
  static void repeat_##NAME(const repeat_job *j, int64_t start, int64_t end) {        \
    const T *in = (const T *)j->src->data->data + j->src->offset;                     \
    T *o = (T *)j->out->data->data;                                                   \
    int64_t i = start / j->times, r = start - i * j->times;                           \
    for (int64_t p = start; p < end;) {                                               \
      int64_t run = ZB_MIN(j->times - r, end - p);                                    \
      T v = in[i];                                                                    \
      for (int64_t q = 0; q < run; q++) o[p + q] = v;                                 \
      p += run;                                                                       \
      r = 0;                                                                          \
      i++;                                                                            \
    }                                                                                 \
  }
ZB_FOR_EACH_FIXED_TYPE(REPEAT_FIXED)
#undef REPEAT_FIXED

static void repeat_string(const repeat_job *j, int64_t start, int64_t end) {
  const int64_t *so = (const int64_t *)j->src->data->data + j->src->offset;
  const char *cs = j->src->chars != NULL ? (const char *)j->src->chars->data : NULL;
  int64_t *oo = (int64_t *)j->out->data->data;
  char *oc = j->out->chars != NULL ? (char *)j->out->chars->data : NULL;
  int64_t t = j->times, i = start / t, r = start - i * t;
  for (int64_t p = start; p < end;) {
    int64_t run = ZB_MIN(t - r, end - p), len = so[i + 1] - so[i];
    int64_t pos = t * (so[i] - so[0]) + r * len; /* where copy r of row i starts */
    for (int64_t q = 0; q < run; q++) oo[p + q + 1] = pos + (q + 1) * len;
    if (len > 0 && run > 0) { /* one copy, then the written bytes doubled */
      int64_t total = run * len, done = len;
      memcpy(oc + pos, cs + so[i], (size_t)len);
      while (done < total) {
        int64_t c = ZB_MIN(done, total - done);
        memcpy(oc + pos + done, oc + pos, (size_t)c);
        done += c;
      }
    }
    p += run;
    r = 0;
    i++;
  }
}

static void repeat_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  repeat_job *j = (repeat_job *)ctx;
  int64_t start = task * ZB_MORSEL_ROWS, end = ZB_MIN(start + ZB_MORSEL_ROWS, j->out->length);
  switch (j->src->type) { /* per morsel, outside the rows */
#define REPEAT_CASE(ID, T, NAME, U) \
  case ID: repeat_##NAME(j, start, end); break;
    ZB_FOR_EACH_FIXED_TYPE(REPEAT_CASE)
#undef REPEAT_CASE
    case ZB_STRING: repeat_string(j, start, end); break;
    default: break; /* the entry point admits no other type */
  }
  if (j->out->validity != NULL) repeat_validity(j, start, end);
}

zb_status zb__cpu_repeat(const zb_column *col, int64_t times, zb_column **out, zb_error *err) {
  *out = NULL;
  int64_t n = col->length, n_out = n * times, bytes = 0;
  if (col->type == ZB_STRING) {
    const int64_t *so = (const int64_t *)col->data->data + col->offset;
    bytes = (so[n] - so[0]) * times;
  }
  zb_column *o = NULL;
  ZB_RETURN_NOT_OK(zb__new_like(col, col->type, n_out, col->null_count > 0, bytes, &o, err));
  if (col->type == ZB_STRING) ((int64_t *)o->data->data)[0] = 0;
  repeat_job j = {col, times, o};
  zb_status st = n_out > 0 ? zb_parallel_for(zb__morsels(n_out), repeat_morsel, &j, err) : ZB_OK;
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  if (o->validity != NULL) zb_column_recount_nulls(o);
  *out = o;
  return ZB_OK;
}
