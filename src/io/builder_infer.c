/*
 * builder_infer.c -- the column builder's text path: text cells to values.
 * NA strings; the fast integer and float parsers (SWAR digits) in front of
 * text_values.c's; per part and column, type inference while converting
 * (a part's column takes the narrowest type of its first value and widens
 * when a value does not fit: int -> float and date -> timestamp in place,
 * to string by asking the source for the earlier cells again), so every
 * value is parsed once in the usual case; columns of a given type; and,
 * once every part is done, each column's final type and the conversion of
 * the parts that chose a narrower one.
 *
 * The conversion loops are inlined per representation and per fixed type
 * (no per-value type switch); strings are only checked (UTF-8, NA) and
 * counted here: builder.c copies them once, at the end.
 */
#include <stdio.h>
#include <string.h>

#include "core/dtype_list.h"
#include "io/builder_internal.h"
#include "io/text_values.h"

/* ------------------------------------------------------------------------ */
/* NA strings                                                               */
/* ------------------------------------------------------------------------ */

zb_status zb__na_init(zb__na_set *na, const zb__text_options *o, const char *label,
                      zb_error *err) {
  int64_t n = o->num_na_values;
  memset(na, 0, sizeof *na);
  const char **s = (const char **)zb_malloc((size_t)(n > 0 ? n : 1) * sizeof(char *));
  int64_t *len = (int64_t *)zb_malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  if (s == NULL || len == NULL) {
    zb_free(s);
    zb_free(len);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (%s NA values)", label);
  }
  na->s = s;
  na->len = len;
  for (int64_t i = 0; i < n; i++) {
    if (o->na_values[i] == NULL)
      return zb_error_set(err, ZB_EINVAL, "%s na_values[%lld] is NULL", label, (long long)i);
    s[i] = o->na_values[i];
  }
  for (int64_t i = 0; i < n; i++) {
    len[i] = (int64_t)strlen(s[i]);
    if (len[i] > na->maxlen) na->maxlen = len[i];
    if (len[i] == 0)
      na->empty = true;
    else
      na->lens[(uint8_t)s[i][0]] |= UINT64_C(1) << (len[i] < 63 ? len[i] : 63);
  }
  na->n = n;
  return ZB_OK;
}

static inline bool is_na(const zb__na_set *na, const char *s, int64_t n) {
  if (n == 0) return na->empty;
  uint64_t lens = na->lens[(uint8_t)s[0]];
  if (lens == 0 || !((lens >> (n < 63 ? n : 63)) & 1)) return false;
  for (int64_t i = 0; i < na->n; i++)
    if (na->len[i] == n && na->s[i][0] == s[0] && memcmp(na->s[i], s, (size_t)n) == 0)
      return true;
  return false;
}

/* ------------------------------------------------------------------------ */
/* Cells                                                                    */
/* ------------------------------------------------------------------------ */

/* Where a part's cells point: its base and the end of readable text (kept
 * in registers by the conversion loops). */
typedef struct cview {
  const char *base, *dend;
} cview;

static inline cview cview_of(const zb__bpart *pt) {
  cview v = {pt->text.base, pt->text.end};
  return v;
}

/* The text of a cell: 1 = a value (*s, *n), of which at least 32 bytes
 * may be read; 0 = null (missing or an NA string); -1 = out of memory. */
static inline int cell_text(const zb__builder *b, cview cv, uint64_t cell, zb__bscratch *ws,
                            const char **s, int64_t *n) {
  uint32_t len = (uint32_t)(cell >> 32);
  if (len == ZB_CELL_MISSING) return 0;
  const char *p = cv.base + (uint32_t)cell;
  int64_t m = len & ~ZB_CELL_FLAG;
  if ((len & ZB_CELL_FLAG) || p + 32 > cv.dend) {
    /* In scratch, decoded, with 32 bytes readable after the start. */
    if (m + 32 > ws->ucap && !zb__builder_grow(&ws->u, &ws->ucap, m + 32)) return -1;
    if (len & ZB_CELL_FLAG)
      m = b->o.source.decode(b->o.source.ctx, p, m, ws->u, m);
    else
      memcpy(ws->u, p, (size_t)m);
    p = ws->u;
  }
  if (is_na(&b->na, p, m)) return 0;
  *s = p;
  *n = m;
  return 1;
}

static void value_fail(zb__builder *b, const zb__bpart *pt, int64_t j, uint64_t cell,
                       zb_status st, int kind) {
  int64_t k = pt - b->parts, pos = pt->pos0 + (uint32_t)cell;
  if (pt->err.st != ZB_OK && pt->err.pos <= pos) return;
  uint32_t len = (uint32_t)(cell >> 32);
  int64_t m = len == ZB_CELL_MISSING ? 0 : (len & ~ZB_CELL_FLAG);
  const char *p = pt->text.base + (uint32_t)cell;
  char tmp[64];
  int64_t n;
  if (len != ZB_CELL_MISSING && (len & ZB_CELL_FLAG)) {
    n = b->o.source.decode(b->o.source.ctx, p, m, tmp, 41);
  } else {
    n = ZB_MIN(m, (int64_t)41);
    memcpy(tmp, p, (size_t)n);
  }
  zb__builder_fail(b, k, j, st, kind, pos, tmp, n);
}

/* ------------------------------------------------------------------------ */
/* Numbers                                                                  */
/* ------------------------------------------------------------------------ */

/* The value of the nd (1..8) decimal digits at p, read as one 64-bit word
 * (p + 8 must be readable); false if one of them is not a digit. */
static inline bool swar_digits(const char *p, int64_t nd, uint64_t *out) {
  uint64_t w;
  memcpy(&w, p, 8);
  w <<= 8 * (8 - nd); /* the digits in the top nd bytes, the last one highest */
  if (nd < 8) w |= UINT64_C(0x3030303030303030) >> (8 * nd); /* leading '0's */
  if (((w & UINT64_C(0xF0F0F0F0F0F0F0F0)) |
       (((w + UINT64_C(0x0606060606060606)) & UINT64_C(0xF0F0F0F0F0F0F0F0)) >> 4)) !=
      UINT64_C(0x3333333333333333))
    return false;
  w -= UINT64_C(0x3030303030303030);
  w = w * 10 + (w >> 8);
  w = ((w & UINT64_C(0x000000FF000000FF)) * (100 + (UINT64_C(1000000) << 32)) +
       ((w >> 16) & UINT64_C(0x000000FF000000FF)) * (1 + (UINT64_C(10000) << 32))) >> 32;
  *out = (uint32_t)w;
  return true;
}

/* [+-]digits, at most 18 of them, nothing else: the common integer.  s
 * must allow reading 32 bytes (cell_text's texts do). */
static inline bool fast_i64(const char *s, int64_t n, int64_t *out) {
  if (n <= 0 || n > 18) return false;
  bool neg = s[0] == '-';
  int64_t k = neg || s[0] == '+', nd = n - k;
  uint64_t v;
  if (nd >= 1 && nd <= 8) {
    if (!swar_digits(s + k, nd, &v)) return false;
  } else {
    if (nd <= 0) return false;
    v = 0;
    for (; k < n; k++) {
      unsigned d = (unsigned)(unsigned char)s[k] - '0';
      if (d > 9) return false;
      v = v * 10 + d;
    }
  }
  *out = neg ? -(int64_t)v : (int64_t)v;
  return true;
}

static const double k_pow10d[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
static const uint64_t k_pow10u[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                     100000000};

/* [+-]digits[<dec>digits] with at most 8 digits on each side and 15 in
 * all, nothing else: the common float, correctly rounded (the digits as an
 * integer and the power of ten are exact doubles; one division rounds).
 * s must allow reading 32 bytes. */
static inline bool fast_f64(const char *s, int64_t n, char dec, double *out) {
  if (n <= 0 || n > 18) return false;
  bool neg = s[0] == '-';
  int64_t k = neg || s[0] == '+';
  const char *p = s + k;
  int64_t len = n - k, ni = len;
  for (int64_t i = 0; i < len && i < 9; i++)
    if (p[i] == dec) {
      ni = i;
      break;
    }
  int64_t nf = ni < len ? len - ni - 1 : 0;
  if (ni > 8 || nf > 8 || ni + nf == 0 || ni + nf > 15) return false;
  uint64_t ip = 0, fp = 0;
  if (ni > 0 && !swar_digits(p, ni, &ip)) return false;
  if (nf > 0 && !swar_digits(p + ni + 1, nf, &fp)) return false;
  double v = (double)(ip * k_pow10u[nf] + fp);
  if (nf > 0) v /= k_pow10d[nf];
  *out = neg ? -v : v;
  return true;
}

/* An integer as int64 (ZB_TEXT_INT64) or uint64 (ZB_TEXT_UINT64), else
 * ZB_TEXT_NOT_INT / ZB_TEXT_INT_BIG. */
static inline int parse_integer(const char *s, int64_t n, char th, int64_t *i, uint64_t *u) {
  if (fast_i64(s, n, i)) return ZB_TEXT_INT64;
  return zb__text_parse_int(s, n, th, i, u);
}

/* Whether an integer's text is negative zero ("-0", " -00"): read as a
 * float it is -0.0. */
static bool negative_zero(const char *s, int64_t n) {
  for (int64_t k = 0; k < n; k++) {
    if (s[k] == ' ' || s[k] == '\t') continue;
    return s[k] == '-';
  }
  return false;
}

static bool note_negzero(zb__bpcol *cc, int64_t g) {
  if (cc->nnz == cc->cap_nz) {
    int64_t cap = cc->cap_nz ? cc->cap_nz * 2 : 8;
    int64_t *v = (int64_t *)zb_malloc((size_t)cap * sizeof(int64_t));
    if (v == NULL) return false;
    if (cc->nnz) memcpy(v, cc->negzero, (size_t)cc->nnz * sizeof(int64_t));
    zb_free(cc->negzero);
    cc->negzero = v;
    cc->cap_nz = cap;
  }
  cc->negzero[cc->nnz++] = g;
  return true;
}

static inline bool parse_float(const char *s, int64_t n, char dec, char th, zb__bscratch *ws,
                               double *v) {
  if (fast_f64(s, n, dec, v)) return true;
  if (n > 64) { /* long: a number only if it starts like one (inf and nan are short) */
    int64_t k = 0;
    while (k < n && (s[k] == ' ' || s[k] == '\t')) k++;
    if (k < n && s[k] != '+' && s[k] != '-' && s[k] != dec && (unsigned)(s[k] - '0') > 9)
      return false;
  }
  if (n + 1 > ws->ncap && !zb__builder_grow(&ws->num, &ws->ncap, n + 1)) {
    ws->nomem = true;
    return false;
  }
  return zb__text_parse_double(s, n, dec, th, ws->num, v);
}

/* ------------------------------------------------------------------------ */
/* Inference                                                                */
/* ------------------------------------------------------------------------ */

/* Bits of the inference types s[0, n) parses as, among those in mask. */
static int classify(const char *s, int64_t n, int mask, char dec, char th, zb__bscratch *ws) {
  int bits = 0;
  bool b;
  if ((mask & B_BOOL) && zb__text_parse_bool(s, n, &b)) bits |= B_BOOL;
  if (mask & (B_INT | B_UINT | B_FLOAT)) {
    int64_t i = 0;
    uint64_t u = 0;
    int rc = (mask & (B_INT | B_UINT)) ? parse_integer(s, n, th, &i, &u) : ZB_TEXT_NOT_INT;
    if (rc == ZB_TEXT_INT64)
      bits |= B_INT | B_FLOAT | (i >= 0 ? B_UINT : 0);
    else if (rc == ZB_TEXT_UINT64)
      bits |= B_UINT | B_FLOAT;
    else if (mask & B_FLOAT) {
      double v;
      if (parse_float(s, n, dec, th, ws, &v)) bits |= B_FLOAT;
    }
  }
  if ((mask & (B_DATE | B_TS)) && n >= 10) {
    int64_t us;
    bool date_only;
    if (zb__text_parse_timestamp(s, n, &us, &date_only)) bits |= date_only ? B_DATE | B_TS : B_TS;
  }
  return bits;
}

static zb_type_id type_of(int mask) {
  if (mask & B_BOOL) return ZB_BOOL;
  if (mask & B_INT) return ZB_INT64;
  if (mask & B_UINT) return ZB_UINT64;
  if (mask & B_FLOAT) return ZB_FLOAT64;
  if (mask & B_DATE) return ZB_DATE32;
  if (mask & B_TS) return ZB_TIMESTAMP;
  return ZB_STRING;
}

int zb__rep_of_type(zb_type_id ty) {
  switch (ty) {
    case ZB_BOOL: return REP_BOOL;
    case ZB_INT64: return REP_INT;
    case ZB_UINT64: return REP_UINT;
    case ZB_FLOAT64: return REP_FLOAT;
    case ZB_DATE32: return REP_DATE;
    case ZB_TIMESTAMP: return REP_TS;
    default: return REP_STR;
  }
}

/* ------------------------------------------------------------------------ */
/* Converting a batch of one column                                         */
/* ------------------------------------------------------------------------ */

/* Strings: cells [i, nb) stay as cells in the slots (NA strings become
 * missing cells), to be copied once from the text when the column's
 * characters are gathered (builder.c); here they are checked (UTF-8) and
 * their bytes counted.  count: record nulls (false when converting rows
 * again). */
static void run_strings(zb__builder *b, zb__bpart *pt, int64_t j, const uint64_t *cells,
                        int64_t i, int64_t nb, int64_t g0, zb__bscratch *ws, bool count) {
  zb__bpcol *cc = zb__pcol(b, pt - b->parts, j);
  zb__bcol *ci = &b->cols[j];
  uint64_t *v = (uint64_t *)ci->vals->data;
  uint8_t *valid = (uint8_t *)ci->valid->data;
  const zb__text_source *src = &b->o.source;
  const char *base = pt->text.base, *aend = pt->text.ascii_end;
  int64_t bytes = 0;
  bool has = false;
  for (; i < nb; i++) {
    int64_t g = g0 + i;
    uint64_t cell = cells[i];
    uint32_t len = (uint32_t)(cell >> 32);
    if (len != ZB_CELL_MISSING) {
      const char *p = base + (uint32_t)cell;
      int64_t m = len & ~ZB_CELL_FLAG;
      bool check = p + m > aend;
      if ((len & ZB_CELL_FLAG) && src->decoded_length && m > 2 * b->na.maxlen + 2 &&
          (!check || zb__text_utf8_valid((const unsigned char *)p, m))) {
        /* Too long to be an NA string, valid UTF-8 encoded (so decoded):
         * only its decoded length is needed, not a copy. */
        v[g] = cell;
        bytes += src->decoded_length(src->ctx, p, m);
        has = true;
        continue;
      }
      if (len & ZB_CELL_FLAG) {
        if (m + 1 > ws->ucap && !zb__builder_grow(&ws->u, &ws->ucap, m + 1)) {
          ws->nomem = true;
          break;
        }
        m = src->decode(src->ctx, p, m, ws->u, m);
        p = ws->u;
      }
      if (!is_na(&b->na, p, m)) {
        if (check && !zb__text_utf8_valid((const unsigned char *)p, m)) {
          value_fail(b, pt, j, cell, ZB_EPARSE, ZB_BUILD_ERR_UTF8);
          break;
        }
        v[g] = cell;
        bytes += m;
        has = true;
        continue;
      }
    }
    v[g] = ZB_CELL_NULL;
    if (count) zb__set_null(valid, g), cc->nulls++;
  }
  cc->nchars += bytes;
  if (has) cc->has_value = true;
}

/* Inferred column, representation rep: convert cells [i, nb) into slots
 * g0 + i.. until a value does not fit rep; returns its index (or nb).
 * Always inlined with a constant rep, so each loop is type-specific. */
static inline __attribute__((always_inline)) int64_t run_values(
    zb__builder *b, zb__bpart *pt, zb__bpcol *cc, zb__bcol *ci, const uint64_t *cells,
    int64_t i, int64_t nb, int64_t g0, zb__bscratch *ws, const int rep) {
  int64_t *v = (int64_t *)ci->vals->data;
  uint8_t *valid = (uint8_t *)ci->valid->data;
  const char dec = b->o.text.decimal, th = b->o.text.thousands;
  const cview cv = cview_of(pt);
  bool neg = false, any = false;
  for (; i < nb; i++) {
    int64_t g = g0 + i;
    const char *s;
    int64_t n;
    int k = cell_text(b, cv, cells[i], ws, &s, &n);
    if (k <= 0) {
      if (k < 0) {
        ws->nomem = true;
        break;
      }
      v[g] = 0;
      zb__set_null(valid, g);
      cc->nulls++;
      continue;
    }
    if (rep == REP_INT || rep == REP_UINT) {
      int64_t x = 0;
      uint64_t u = 0;
      int rc = parse_integer(s, n, th, &x, &u);
      if (rep == REP_INT ? rc != ZB_TEXT_INT64
                         : !(rc == ZB_TEXT_UINT64 || (rc == ZB_TEXT_INT64 && x >= 0)))
        break;
      if (rc == ZB_TEXT_UINT64) x = (int64_t)u;
      if (x == 0 && negative_zero(s, n) && !note_negzero(cc, g)) {
        ws->nomem = true;
        break;
      }
      neg |= rc == ZB_TEXT_INT64 && x < 0;
      v[g] = x;
    } else if (rep == REP_FLOAT) {
      double d;
      if (!parse_float(s, n, dec, th, ws, &d)) break;
      memcpy(&v[g], &d, sizeof d);
    } else if (rep == REP_BOOL) {
      bool bv;
      if (!zb__text_parse_bool(s, n, &bv)) break;
      v[g] = bv;
    } else if (rep == REP_DATE) {
      int32_t days;
      if (!zb__text_parse_date(s, n, &days)) break;
      v[g] = days;
    } else { /* REP_TS */
      int64_t us;
      bool date_only;
      if (!zb__text_parse_timestamp(s, n, &us, &date_only)) break;
      v[g] = us;
    }
    any = true;
  }
  if (any) cc->has_value = true;
  if (neg) cc->mask &= ~B_UINT;
  return i;
}

/* Fixed column of type TY (not string or categorical): convert cells
 * [0, nb); a value that does not parse is the part's error. */
static inline __attribute__((always_inline)) void run_fixed(zb__builder *b, zb__bpart *pt,
                                                            int64_t j, const uint64_t *cells,
                                                            int64_t nb, int64_t g0,
                                                            zb__bscratch *ws,
                                                            const zb_type_id ty) {
  zb__bpcol *cc = zb__pcol(b, pt - b->parts, j);
  zb__bcol *ci = &b->cols[j];
  char *data = (char *)ci->vals->data;
  uint8_t *valid = (uint8_t *)ci->valid->data;
  const char dec = b->o.text.decimal, th = b->o.text.thousands;
  const cview cv = cview_of(pt);
  const int w = ci->width;
  for (int64_t i = 0; i < nb; i++) {
    int64_t g = g0 + i;
    char *slot = data + g * w;
    const char *s;
    int64_t n;
    int k = cell_text(b, cv, cells[i], ws, &s, &n);
    if (k <= 0) {
      if (k < 0) {
        ws->nomem = true;
        return;
      }
      memset(slot, 0, (size_t)w);
      zb__set_null(valid, g);
      cc->nulls++;
      continue;
    }
    bool ok = true, over = false;
    if (ty == ZB_BOOL) {
      bool bv = false;
      ok = zb__text_parse_bool(s, n, &bv);
      *(int64_t *)slot = bv;
    } else if (ty == ZB_FLOAT32 || ty == ZB_FLOAT64) {
      double d = 0;
      ok = parse_float(s, n, dec, th, ws, &d);
      if (ws->nomem) return;
      if (ty == ZB_FLOAT32)
        *(float *)slot = (float)d;
      else
        *(double *)slot = d;
    } else if (ty == ZB_DATE32) {
      int32_t days = 0;
      ok = zb__text_parse_date(s, n, &days);
      *(int32_t *)slot = days;
    } else if (ty == ZB_TIMESTAMP) {
      int64_t us = 0;
      bool date_only;
      ok = zb__text_parse_timestamp(s, n, &us, &date_only);
      *(int64_t *)slot = us;
    } else { /* integers */
      int64_t x = 0;
      uint64_t u = 0;
      int rc = parse_integer(s, n, th, &x, &u);
      if (rc == ZB_TEXT_NOT_INT) {
        ok = false;
      } else if (rc == ZB_TEXT_INT_BIG) {
        over = true;
      } else if (zb_type_is_signed(ty)) {
        int64_t lo = ty == ZB_INT8 ? INT8_MIN : ty == ZB_INT16 ? INT16_MIN
                     : ty == ZB_INT32 ? INT32_MIN : INT64_MIN;
        int64_t hi = ty == ZB_INT8 ? INT8_MAX : ty == ZB_INT16 ? INT16_MAX
                     : ty == ZB_INT32 ? INT32_MAX : INT64_MAX;
        over = rc != ZB_TEXT_INT64 || x < lo || x > hi;
      } else {
        uint64_t uv = rc == ZB_TEXT_UINT64 ? u : (uint64_t)x;
        uint64_t hi = ty == ZB_UINT8 ? UINT8_MAX : ty == ZB_UINT16 ? UINT16_MAX
                      : ty == ZB_UINT32 ? UINT32_MAX : UINT64_MAX;
        over = (rc == ZB_TEXT_INT64 && x < 0) || uv > hi;
        x = (int64_t)uv;
      }
      if (ok && !over) {
        switch (w) {
          case 1: *(int8_t *)slot = (int8_t)x; break;
          case 2: *(int16_t *)slot = (int16_t)x; break;
          case 4: *(int32_t *)slot = (int32_t)x; break;
          default: *(int64_t *)slot = x; break;
        }
      }
    }
    if (!ok || over) {
      value_fail(b, pt, j, cells[i], over ? ZB_EOVERFLOW : ZB_EPARSE,
                 over ? ZB_BUILD_ERR_OVERFLOW : ZB_BUILD_ERR_VALUE);
      return;
    }
    cc->has_value = true;
  }
}

static void convert_fixed(zb__builder *b, zb__bpart *pt, int64_t j, const uint64_t *cells,
                          int64_t nb, int64_t g0, zb__bscratch *ws) {
#define RUN_FIXED(ID, T, NAME, U) \
  case ID:                        \
    run_fixed(b, pt, j, cells, nb, g0, ws, ID); \
    break;
  switch (b->cols[j].type) {
    case ZB_BOOL: run_fixed(b, pt, j, cells, nb, g0, ws, ZB_BOOL); break;
    ZB_FOR_EACH_NUMERIC_TYPE(RUN_FIXED)
    case ZB_DATE32: run_fixed(b, pt, j, cells, nb, g0, ws, ZB_DATE32); break;
    default: run_fixed(b, pt, j, cells, nb, g0, ws, ZB_TIMESTAMP); break;
  }
#undef RUN_FIXED
}

/* The part's first nrows rows of columns cols[0, ncols) as strings, from
 * the source again (their nulls are already counted).  A failure sets
 * ws->nomem, and ws->fail unless it is ZB_ENOMEM. */
static void refetch_strings(zb__builder *b, int64_t k, const int64_t *cols, int64_t ncols,
                            int64_t nrows, zb__bscratch *ws) {
  zb_status st = b->o.source.refetch == NULL
                     ? ZB_EINVAL
                     : b->o.source.refetch(b->o.source.ctx, k, cols, ncols, nrows, ws->worker);
  if (st == ZB_OK) return;
  ws->nomem = true;
  if (st != ZB_ENOMEM) ws->fail = st;
}

/* In place, slots [a, e) of column j from representation `from` to `to`
 * (numbers only; see widen and zb__builder_fix_task). */
static void convert_slots(zb__builder *b, int64_t k, int64_t j, int from, int to, int64_t a,
                          int64_t e) {
  int64_t *v = (int64_t *)b->cols[j].vals->data;
  zb__bpcol *cc = zb__pcol(b, k, j);
  if (to == REP_FLOAT && (from == REP_INT || from == REP_UINT)) {
    for (int64_t g = a; g < e; g++) {
      double d = from == REP_INT ? (double)v[g] : (double)(uint64_t)v[g];
      memcpy(&v[g], &d, sizeof d);
    }
    for (int64_t q = 0; q < cc->nnz; q++) {
      double d = -0.0;
      if (cc->negzero[q] >= a && cc->negzero[q] < e) memcpy(&v[cc->negzero[q]], &d, sizeof d);
    }
  } else if (to == REP_TS && from == REP_DATE) {
    for (int64_t g = a; g < e; g++) v[g] *= INT64_C(86400000000);
  }
}

/* The value at cells[i] (not null) does not fit the part's representation
 * of column j: narrow the inference bits by it and convert the part's
 * rows so far (rows_done before this batch, i in it) to the new one. */
static void widen(zb__builder *b, zb__bpart *pt, int64_t j, const uint64_t *cells, int64_t i,
                  int64_t rows_done, zb__bscratch *ws) {
  int64_t k = pt - b->parts;
  zb__bpcol *cc = zb__pcol(b, k, j);
  const char *s = "";
  int64_t n = 0;
  if (cell_text(b, cview_of(pt), cells[i], ws, &s, &n) < 0) {
    ws->nomem = true;
    return;
  }
  int mask = cc->mask & classify(s, n, cc->mask, b->o.text.decimal, b->o.text.thousands, ws);
  int rep = zb__rep_of_type(type_of(mask));
  if (rep == cc->rep) rep = REP_STR, mask = 0; /* cannot happen; never loop */
  int from = cc->rep;
  cc->mask = mask;
  cc->rep = rep;
  if (from == REP_NONE) return;
  int64_t g0 = pt->row0 + rows_done;
  if (rep != REP_STR) {
    convert_slots(b, k, j, from, rep, pt->row0, g0 + i);
    return;
  }
  /* To strings: the text of every earlier row, from the source again. */
  if (rows_done > 0) refetch_strings(b, k, &j, 1, rows_done, ws);
  if (i > 0 && !ws->nomem) run_strings(b, pt, j, cells, 0, i, g0, ws, false);
}

static void convert_batch(zb__builder *b, zb__bpart *pt, int64_t j, const uint64_t *cells,
                          int64_t rows_done, int64_t nb, zb__bscratch *ws) {
  zb__bcol *ci = &b->cols[j];
  zb__bpcol *cc = zb__pcol(b, pt - b->parts, j);
  int64_t g0 = pt->row0 + rows_done;
  if (ci->fixed && cc->rep != REP_STR) {
    convert_fixed(b, pt, j, cells, nb, g0, ws);
    return;
  }
  int64_t i = 0;
  while (i < nb && !ws->nomem) {
    int64_t stop;
    switch (cc->rep) {
      case REP_STR: run_strings(b, pt, j, cells, i, nb, g0, ws, true); return;
      case REP_BOOL: stop = run_values(b, pt, cc, ci, cells, i, nb, g0, ws, REP_BOOL); break;
      case REP_INT: stop = run_values(b, pt, cc, ci, cells, i, nb, g0, ws, REP_INT); break;
      case REP_UINT: stop = run_values(b, pt, cc, ci, cells, i, nb, g0, ws, REP_UINT); break;
      case REP_FLOAT: stop = run_values(b, pt, cc, ci, cells, i, nb, g0, ws, REP_FLOAT); break;
      case REP_DATE: stop = run_values(b, pt, cc, ci, cells, i, nb, g0, ws, REP_DATE); break;
      case REP_TS: stop = run_values(b, pt, cc, ci, cells, i, nb, g0, ws, REP_TS); break;
      default: { /* REP_NONE: nulls until the first value */
        int64_t *v = (int64_t *)ci->vals->data;
        uint8_t *valid = (uint8_t *)ci->valid->data;
        const char *s;
        int64_t n;
        for (stop = i; stop < nb; stop++) {
          int k = cell_text(b, cview_of(pt), cells[stop], ws, &s, &n);
          if (k < 0) {
            ws->nomem = true;
            return;
          }
          if (k > 0) break;
          v[g0 + stop] = 0;
          zb__set_null(valid, g0 + stop);
          cc->nulls++;
        }
        break;
      }
    }
    if (stop >= nb || ws->nomem) return;
    widen(b, pt, j, cells, stop, rows_done, ws);
    i = stop;
  }
}

/* The status of a conversion that used ws: ZB_ENOMEM (or a refetch's
 * status) if it failed, the scratch then reset for the next task. */
static zb_status scratch_status(zb__bscratch *ws) {
  if (!ws->nomem) return ZB_OK;
  zb_status st = ws->fail != ZB_OK ? ws->fail : ZB_ENOMEM;
  ws->nomem = false;
  ws->fail = ZB_OK;
  return st;
}

/* Whether rows [rows_done, rows_done + n) of part `part`, column col, are
 * in the builder's room. */
static bool in_room(const zb__builder *b, int64_t part, int64_t col, int64_t rows_done,
                    int64_t n) {
  return part >= 0 && part < b->nparts && col >= 0 && col < b->ncols && n >= 0 &&
         rows_done >= 0 && rows_done <= b->parts[part].max_rows - n &&
         b->cols[col].vals != NULL;
}

zb_status zb__builder_text(zb__builder *b, int64_t part, int64_t col, const uint64_t *cells,
                           int64_t rows_done, int64_t n, int worker) {
  if (!in_room(b, part, col, rows_done, n)) return ZB_EINVAL;
  zb__bscratch *ws = zb__builder_scratch(b, worker);
  if (ws == NULL) return ZB_ENOMEM;
  convert_batch(b, &b->parts[part], col, cells, rows_done, n, ws);
  return scratch_status(ws);
}

zb_status zb__builder_text_again(zb__builder *b, int64_t part, int64_t col,
                                 const uint64_t *cells, int64_t rows_done, int64_t n,
                                 int worker) {
  if (!in_room(b, part, col, rows_done, n)) return ZB_EINVAL;
  zb__bscratch *ws = zb__builder_scratch(b, worker);
  if (ws == NULL) return ZB_ENOMEM;
  zb__bpart *pt = &b->parts[part];
  run_strings(b, pt, col, cells, 0, n, pt->row0 + rows_done, ws, false);
  return scratch_status(ws);
}

/* ------------------------------------------------------------------------ */
/* Final types                                                              */
/* ------------------------------------------------------------------------ */

void zb__builder_infer_types(zb__builder *b) {
  for (int64_t j = 0; j < b->ncols; j++) {
    zb__bcol *ci = &b->cols[j];
    if (ci->fixed) continue;
    bool any = false;
    int mask = B_ALL;
    for (int64_t k = 0; k < b->nparts; k++) {
      const zb__bpcol *cc = zb__pcol(b, k, j);
      if (cc->has_value) any = true, mask &= cc->mask;
    }
    ci->type = b->nrows == 0 ? ZB_STRING : any ? type_of(mask) : ZB_FLOAT64;
  }
}

/* A part whose columns chose a narrower type than the column's: convert in
 * place, or refetch it for the columns that are strings. */
void zb__builder_fix_task(void *ctx, int64_t k, int worker) {
  zb__builder *b = (zb__builder *)ctx;
  zb__bpart *pt = &b->parts[k];
  zb__bscratch *ws = zb__builder_scratch(b, worker);
  if (ws != NULL && ws->cols == NULL)
    ws->cols = (int64_t *)zb_malloc((size_t)(b->ncols > 0 ? b->ncols : 1) * sizeof(int64_t));
  if (ws == NULL || ws->cols == NULL) {
    zb__builder_stop(b, ZB_ENOMEM);
    return;
  }
  int64_t nstr = 0;
  for (int64_t j = 0; j < b->ncols; j++) {
    zb__bcol *ci = &b->cols[j];
    zb__bpcol *cc = zb__pcol(b, k, j);
    if (ci->fixed) continue;
    int want = zb__rep_of_type(ci->type);
    if (cc->rep == want || cc->rep == REP_NONE) {
      cc->rep = want;
      continue;
    }
    if (want == REP_STR)
      ws->cols[nstr++] = j;
    else
      convert_slots(b, k, j, cc->rep, want, pt->row0, pt->row0 + pt->nrows);
    cc->rep = want;
  }
  if (nstr > 0 && __atomic_load_n(&b->stop, __ATOMIC_RELAXED) == ZB_OK)
    refetch_strings(b, k, ws->cols, nstr, pt->nrows, ws);
  zb_status st = scratch_status(ws);
  if (st != ZB_OK) zb__builder_stop(b, st);
}
