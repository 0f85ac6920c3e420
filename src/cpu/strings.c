/*
 * strings.c -- CPU string kernels: length in characters, literal substring
 * tests (contains / startswith / endswith), case mapping, strip, slice in
 * characters, literal replace, and row-wise concatenation.
 *
 * Inputs are string columns (UTF-8, int64 offsets); categoricals were turned
 * into their dictionary by src/core/strings_ops.c.  Work is split in morsels
 * of ZB_MORSEL_ROWS rows run on the thread pool.  Fixed-width results (len,
 * the bool tests) are written in place.  Where the output length of a row
 * varies (strip, slice, replace, cat) a first pass stores each row's output
 * length in the offsets array and sums them per morsel, an exclusive scan
 * over morsels gives each morsel's first output byte, and a second pass
 * turns lengths into offsets and writes the bytes; the result is identical
 * for any thread count.  lower / upper map ASCII letters in place when the
 * bytes are all ASCII (offsets the input's, rebased); otherwise each
 * character goes through the Unicode simple case mappings of case_map.h
 * (whose UTF-8 widths may differ: "ı" -> "I") in the two passes.  Null
 * rows give null (and an empty string, or 0 / false, underneath).  Input
 * is assumed to be valid UTF-8 (as Arrow requires); a truncated sequence
 * counts as one character (case mapping copies it as it is).
 */
#define _GNU_SOURCE
#include <string.h>

#include "core/str_row.h"
#include "core/case_map.h"
#include "cpu/kernels.h"
#include "cpu/strings_kernels.h"
#include "cpu/str_text.h"

/* ---- job shared by the morsel functions ---------------------------------- */

typedef struct str_job {
  const zb_column *c;
  const zb_str_args *a;
  zb_column *out;
  int64_t *bytes; /* per morsel: output bytes, then first output byte */
  zb_strip_set set; /* strip */
  uint32_t *wide;   /* the set's non-ASCII members (zb_malloc) */
  const uint32_t (*table)[2]; /* upper / lower: the case table */
  int64_t n_table;
} str_job;

/* Output bytes of one row of a variable-length op; writes when dst. */
static inline int64_t vary_emit(const str_job *j, const unsigned char *p, int64_t len,
                                char *dst) {
  switch (j->a->op) {
    case ZB_STR_SLICE:
      return zb__slice_emit(j->a, p, len, dst);
    case ZB_STR_REPLACE:
      return zb__replace_emit(j->a, p, len, dst);
    case ZB_STR_UPPER:
    case ZB_STR_LOWER:
      return zb__case_emit(j->a->op == ZB_STR_UPPER, j->table, j->n_table, p, len, dst);
    case ZB_STR_TITLE:
    case ZB_STR_CAPITALIZE:
    case ZB_STR_SWAPCASE:
    case ZB_STR_CASEFOLD:
      return zb__recase_emit((int)(j->a->op - ZB_STR_TITLE), p, len, dst);
    case ZB_STR_PAD:
      return zb__pad_emit(j->a, p, len, dst);
    case ZB_STR_REPEAT:
      return zb__repeat_emit(j->a, p, len, dst);
    default: {
      int64_t b, e;
      zb__strip_range(j->a->op, &j->set, p, len, &b, &e);
      if (dst && e > b) memcpy(dst, p + b, (size_t)(e - b));
      return e - b;
    }
  }
}

/* Pass 1: lengths into out offsets [i + 1], morsel total into bytes. */
static void vary_size(void *ctx, int64_t task, int worker) {
  (void)worker;
  str_job *j = (str_job *)ctx;
  int64_t start, n;
  zb__morsel_range(j->c->length, task, &start, &n);
  int64_t *oo = (int64_t *)j->out->data->data;
  int64_t total = 0;
  for (int64_t i = start; i < start + n; i++) {
    int64_t len = 0, m = 0;
    const unsigned char *p = (const unsigned char *)zb__str(j->c, i, &len);
    if (zb_column_is_valid(j->c, i)) m = vary_emit(j, p, len, NULL);
    oo[i + 1] = m;
    total += m;
  }
  j->bytes[task] = total;
}

/* Pass 2: lengths to offsets, bytes written. */
static void vary_write(void *ctx, int64_t task, int worker) {
  (void)worker;
  str_job *j = (str_job *)ctx;
  int64_t start, n;
  zb__morsel_range(j->c->length, task, &start, &n);
  int64_t *oo = (int64_t *)j->out->data->data;
  char *ch = (char *)j->out->chars->data;
  int64_t pos = j->bytes[task];
  for (int64_t i = start; i < start + n; i++) {
    int64_t m = oo[i + 1];
    if (m > 0) {
      int64_t len;
      const unsigned char *p = (const unsigned char *)zb__str(j->c, i, &len);
      vary_emit(j, p, len, ch + pos);
    }
    pos += m;
    oo[i + 1] = pos;
  }
}

/* ---- fixed-width results ------------------------------------------------- */

static void len_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  str_job *j = (str_job *)ctx;
  int64_t start, n;
  zb__morsel_range(j->c->length, task, &start, &n);
  int64_t *d = (int64_t *)j->out->data->data;
  for (int64_t i = start; i < start + n; i++) {
    int64_t len;
    const unsigned char *p = (const unsigned char *)zb__str(j->c, i, &len);
    d[i] = zb_column_is_valid(j->c, i) ? zb__utf8_count(p, len) : 0;
  }
}

static void match_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  str_job *j = (str_job *)ctx;
  int64_t start, n;
  zb__morsel_range(j->c->length, task, &start, &n);
  uint8_t *d = (uint8_t *)j->out->data->data;
  for (int64_t k = 0; k < n; k += 64) {
    int mm = (int)ZB_MIN((int64_t)64, n - k);
    uint64_t v = zb__valid_word(j->c, start + k, mm), w = 0;
    for (int q = 0; q < mm; q++) {
      int64_t len;
      const unsigned char *p = (const unsigned char *)zb__str(j->c, start + k + q, &len);
      w |= (uint64_t)(((v >> q) & 1) && zb__str_match(j->a, p, len)) << q;
    }
    zb__store_bits(d, start + k, w, mm);
  }
}

static void find_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  str_job *j = (str_job *)ctx;
  int64_t start, n;
  zb__morsel_range(j->c->length, task, &start, &n);
  int64_t *d = (int64_t *)j->out->data->data;
  bool rev = j->a->op == ZB_STR_RFIND;
  for (int64_t i = start; i < start + n; i++) {
    int64_t len;
    const unsigned char *p = (const unsigned char *)zb__str(j->c, i, &len);
    d[i] = zb_column_is_valid(j->c, i) ? zb__find_row(j->a, rev, p, len) : 0;
  }
}

static void is_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  str_job *j = (str_job *)ctx;
  int64_t start, n;
  zb__morsel_range(j->c->length, task, &start, &n);
  uint8_t *d = (uint8_t *)j->out->data->data;
  for (int64_t k = 0; k < n; k += 64) {
    int mm = (int)ZB_MIN((int64_t)64, n - k);
    uint64_t v = zb__valid_word(j->c, start + k, mm), w = 0;
    for (int q = 0; q < mm; q++) {
      int64_t len;
      const unsigned char *p = (const unsigned char *)zb__str(j->c, start + k + q, &len);
      w |= (uint64_t)(((v >> q) & 1) && zb__str_is(j->a->op, p, len)) << q;
    }
    zb__store_bits(d, start + k, w, mm);
  }
}

static void case_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  str_job *j = (str_job *)ctx;
  int64_t start, n;
  zb__morsel_range(j->c->length, task, &start, &n);
  const zb_column *c = j->c;
  const int64_t *so = (const int64_t *)c->data->data + c->offset;
  int64_t *oo = (int64_t *)j->out->data->data;
  int64_t base = so[0];
  for (int64_t i = start; i < start + n; i++) oo[i + 1] = so[i + 1] - base;
  const unsigned char *src = (const unsigned char *)c->chars->data + so[start];
  unsigned char *dst = (unsigned char *)j->out->chars->data + (so[start] - base);
  int64_t nb = so[start + n] - so[start];
  /* two loops, each with the case fixed, so that each vectorizes */
  if (j->a->op == ZB_STR_UPPER)
    for (int64_t b = 0; b < nb; b++) dst[b] = zb__ascii_case(src[b], true);
  else
    for (int64_t b = 0; b < nb; b++) dst[b] = zb__ascii_case(src[b], false);
}

/* Whether the bytes of c's rows are all ASCII (null rows' bytes included:
 * only a faster path depends on it). */
static bool all_ascii(const zb_column *c) {
  const int64_t *so = (const int64_t *)c->data->data + c->offset;
  const unsigned char *p = (const unsigned char *)c->chars->data + so[0];
  int64_t nb = so[c->length] - so[0], b = 0;
  uint64_t any = 0;
  for (; b + 8 <= nb; b += 8) {
    uint64_t w;
    memcpy(&w, p + b, 8);
    any |= w;
  }
  for (; b < nb; b++) any |= p[b];
  return (any & UINT64_C(0x8080808080808080)) == 0;
}

/* A copy of c's validity for a new column o of the same length. */
static zb_status copy_validity(const zb_column *c, zb_column *o, zb_error *err) {
  if (c->validity == NULL || c->null_count == 0) return ZB_OK;
  ZB_RETURN_NOT_OK(zb_buffer_new(ZB_CPU, (c->length + 7) / 8, &o->validity, err));
  zb__bitmap_copy((uint8_t *)o->validity->data, 0, (const uint8_t *)c->validity->data,
                  c->offset, c->length);
  o->null_count = c->null_count;
  return ZB_OK;
}

/* Decode the strip set into the job (wide members in a zb_malloc array). */
static zb_status strip_set(str_job *j, zb_error *err) {
  const zb_str_args *a = j->a;
  int64_t len = a->pat != NULL ? ZB_MAX(a->pat_len, 1) : 1; /* NULL: whitespace */
  j->wide = (uint32_t *)zb_malloc((size_t)len * sizeof(uint32_t));
  if (j->wide == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (strip set)");
  zb__strip_set_init(&j->set, a->pat, a->pat_len, j->wide);
  return ZB_OK;
}

zb_status zb__cpu_str(const zb_column *col, const zb_str_args *args, zb_column **out,
                      zb_error *err) {
  *out = NULL;
  int64_t n = col->length, nm = zb__morsels(n);
  str_job j;
  memset(&j, 0, sizeof j);
  j.c = col;
  j.a = args;
  zb_column *o = NULL;
  zb_status st = ZB_OK;
  switch (args->op) {
    case ZB_STR_LEN:
      st = zb_column_new(ZB_INT64, n, false, 0, &o, err);
      if (st == ZB_OK) st = copy_validity(col, o, err);
      j.out = o;
      if (st == ZB_OK) st = zb_parallel_for(nm, len_morsel, &j, err);
      break;
    case ZB_STR_CONTAINS:
    case ZB_STR_STARTSWITH:
    case ZB_STR_ENDSWITH:
      st = zb_column_new(ZB_BOOL, n, false, 0, &o, err);
      if (st == ZB_OK) st = copy_validity(col, o, err);
      j.out = o;
      if (st == ZB_OK) st = zb_parallel_for(nm, match_morsel, &j, err);
      break;
    case ZB_STR_FIND:
    case ZB_STR_RFIND:
      st = zb_column_new(ZB_INT64, n, false, 0, &o, err);
      if (st == ZB_OK) st = copy_validity(col, o, err);
      j.out = o;
      if (st == ZB_OK) st = zb_parallel_for(nm, find_morsel, &j, err);
      break;
    case ZB_STR_ISALPHA:
    case ZB_STR_ISDIGIT:
    case ZB_STR_ISNUMERIC:
    case ZB_STR_ISALNUM:
    case ZB_STR_ISSPACE:
    case ZB_STR_ISLOWER:
    case ZB_STR_ISUPPER:
    case ZB_STR_ISTITLE:
    case ZB_STR_ISDECIMAL:
      st = zb_column_new(ZB_BOOL, n, false, 0, &o, err);
      if (st == ZB_OK) st = copy_validity(col, o, err);
      j.out = o;
      if (st == ZB_OK) st = zb_parallel_for(nm, is_morsel, &j, err);
      break;
    case ZB_STR_LOWER:
    case ZB_STR_UPPER:
      if (all_ascii(col)) { /* every byte count kept: one pass in place */
        const int64_t *so = (const int64_t *)col->data->data + col->offset;
        st = zb_column_new(ZB_STRING, n, false, so[n] - so[0], &o, err);
        if (st == ZB_OK) st = copy_validity(col, o, err);
        j.out = o;
        if (st == ZB_OK) st = zb_parallel_for(nm, case_morsel, &j, err);
        break;
      }
      /* characters whose UTF-8 width may change: the two passes below */
      __attribute__((fallthrough));
    default: { /* strip, slice, replace, case of non-ASCII: two passes */
      if (args->op == ZB_STR_STRIP || args->op == ZB_STR_LSTRIP || args->op == ZB_STR_RSTRIP)
        st = strip_set(&j, err);
      bool up = args->op == ZB_STR_UPPER;
      j.table = up ? zb__case_upper : zb__case_lower;
      j.n_table = up ? (int64_t)(sizeof zb__case_upper / sizeof zb__case_upper[0])
                     : (int64_t)(sizeof zb__case_lower / sizeof zb__case_lower[0]);
      if (st == ZB_OK) {
        j.bytes = (int64_t *)zb_malloc((size_t)(nm > 0 ? nm : 1) * sizeof(int64_t));
        if (j.bytes == NULL) st = zb_error_set(err, ZB_ENOMEM, "out of host memory (%s)",
                                               zb_str_op_name(args->op));
      }
      if (st == ZB_OK) st = zb_column_new(ZB_STRING, n, false, 0, &o, err);
      if (st == ZB_OK) st = copy_validity(col, o, err);
      j.out = o;
      if (st == ZB_OK) st = zb_parallel_for(nm, vary_size, &j, err);
      if (st == ZB_OK) {
        int64_t total = zb__exclusive_scan(j.bytes, nm);
        zb_buffer_release(o->chars);
        o->chars = NULL;
        st = zb_buffer_new(ZB_CPU, total, &o->chars, err);
      }
      if (st == ZB_OK) st = zb_parallel_for(nm, vary_write, &j, err);
      zb_free(j.bytes);
      zb_free(j.wide);
      break;
    }
  }
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}

/* ---- cat ------------------------------------------------------------------ */

typedef struct cat_job {
  const zb_column *a, *b;
  bool as, bs;
  const char *sep;
  int64_t sep_len;
  zb_column *out;
  int64_t *bytes;
} cat_job;

static inline bool cat_valid(const cat_job *j, int64_t i) {
  return zb_column_is_valid(j->a, j->as ? 0 : i) && zb_column_is_valid(j->b, j->bs ? 0 : i);
}

static void cat_size(void *ctx, int64_t task, int worker) {
  (void)worker;
  cat_job *j = (cat_job *)ctx;
  int64_t start, n;
  zb__morsel_range(j->out->length, task, &start, &n);
  int64_t *oo = (int64_t *)j->out->data->data;
  uint8_t *ov = j->out->validity ? (uint8_t *)j->out->validity->data : NULL;
  int64_t total = 0;
  for (int64_t k = 0; k < n; k += 64) {
    int mm = (int)ZB_MIN((int64_t)64, n - k);
    uint64_t v = 0;
    for (int q = 0; q < mm; q++) {
      int64_t i = start + k + q, la, lb, m = 0;
      if (cat_valid(j, i)) {
        zb__str(j->a, j->as ? 0 : i, &la);
        zb__str(j->b, j->bs ? 0 : i, &lb);
        m = la + j->sep_len + lb;
        v |= UINT64_C(1) << q;
      }
      oo[i + 1] = m;
      total += m;
    }
    if (ov) zb__store_bits(ov, start + k, v, mm);
  }
  j->bytes[task] = total;
}

static void cat_write(void *ctx, int64_t task, int worker) {
  (void)worker;
  cat_job *j = (cat_job *)ctx;
  int64_t start, n;
  zb__morsel_range(j->out->length, task, &start, &n);
  int64_t *oo = (int64_t *)j->out->data->data;
  char *ch = (char *)j->out->chars->data;
  int64_t pos = j->bytes[task];
  for (int64_t i = start; i < start + n; i++) {
    int64_t m = oo[i + 1];
    if (m > 0) {
      int64_t la, lb;
      const char *pa = zb__str(j->a, j->as ? 0 : i, &la);
      const char *pb = zb__str(j->b, j->bs ? 0 : i, &lb);
      char *d = ch + pos;
      if (la > 0) memcpy(d, pa, (size_t)la);
      if (j->sep_len > 0) memcpy(d + la, j->sep, (size_t)j->sep_len);
      if (lb > 0) memcpy(d + la + j->sep_len, pb, (size_t)lb);
    }
    pos += m;
    oo[i + 1] = pos;
  }
}

zb_status zb__cpu_str_cat(const zb_column *a, bool a_scalar, const zb_column *b,
                          bool b_scalar, const char *sep, int64_t sep_len, zb_column **out,
                          zb_error *err) {
  *out = NULL;
  int64_t n = a_scalar ? b->length : a->length, nm = zb__morsels(n);
  bool nulls = a->null_count > 0 || b->null_count > 0;
  cat_job j = {a, b, a_scalar, b_scalar, sep, sep_len, NULL, NULL};
  zb_column *o = NULL;
  zb_status st = zb_column_new(ZB_STRING, n, nulls, 0, &o, err);
  j.out = o;
  if (st == ZB_OK) {
    j.bytes = (int64_t *)zb_malloc((size_t)(nm > 0 ? nm : 1) * sizeof(int64_t));
    if (j.bytes == NULL) st = zb_error_set(err, ZB_ENOMEM, "out of host memory (str_cat)");
  }
  if (st == ZB_OK) st = zb_parallel_for(nm, cat_size, &j, err);
  if (st == ZB_OK) {
    int64_t total = zb__exclusive_scan(j.bytes, nm);
    zb_buffer_release(o->chars);
    o->chars = NULL;
    st = zb_buffer_new(ZB_CPU, total, &o->chars, err);
  }
  if (st == ZB_OK) st = zb_parallel_for(nm, cat_write, &j, err);
  zb_free(j.bytes);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  zb_column_recount_nulls(o);
  *out = o;
  return ZB_OK;
}
