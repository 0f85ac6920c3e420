/*
 * json_write.c -- the JSON writer: zb_json_write / zb_json_write_file
 * (pandas' to_json(orient="records"), as JSON lines or one array).
 *
 * The table is cut into morsels of rows, formatted in parallel (one
 * scratch per worker); each morsel is handed to the caller's write function
 * by the worker that formatted it when its turn comes (morsels in row
 * order), so writing one overlaps formatting the next, and the caller's
 * write function may run on any worker thread, one call at a time.
 * Within a morsel each
 * column is formatted on its own first -- one loop per column, the type
 * switch outside the rows -- into a text buffer with one offset per row;
 * the rows are then assembled from the columns' texts and the keys'
 * prefixes ('{"name":' and ',"name":', escaped once).
 *
 * Text of values follows pandas' encoder (its vendored ujson):
 *   - floats: finite values in [1e-15, 1e16) (by magnitude) as the whole
 *     part, '.', and the fraction rounded to double_precision decimals
 *     (half to odd, as ujson rounds) with trailing zeros dropped ("1.0",
 *     "0.3333333333"); others as printf's %.{precision}g ("1e+20"); NaN
 *     and infinities as null.  float32 values are widened to double first.
 *   - strings: '"', '\\' and '/' escaped, \b \f \n \r \t, other control
 *     characters as \u00XX, and with force_ascii every non-ASCII character
 *     as \uXXXX (a surrogate pair beyond the BMP), lowercase hex.
 *   - timestamps, date32 and durations: see io_json.h.
 *   - lists (of any of these, lists of lists too): '[' the elements'
 *     texts joined by ',' ']', a null list as null (pandas' text of an
 *     object column of Python lists).  A list column's morsel formats the
 *     child rows its lists span first, in one call of the same per-column
 *     loop (recursing once per level), then joins each row's elements.
 */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/calendar.h"
#include "core/dtype_list.h"
#include "core/internal.h"
#include "io/file_sink.h"
#include "io/text_format.h"
#include "zambezi/io_json.h"

void zb_json_write_options_init(zb_json_write_options *o) {
  memset(o, 0, sizeof *o);
  o->lines = true;
  o->double_precision = 10;
  o->force_ascii = true;
  o->date_unit = ZB_MILLI;
}

/* ------------------------------------------------------------------------ */
/* Output buffers                                                           */
/* ------------------------------------------------------------------------ */

/* text_format.h's buffer */
typedef zb__text_buf obuf;

static inline bool ob_grow(obuf *b, int64_t extra) {
  return b->n + extra <= b->cap || zb__text_buf_grow(b, extra);
}

/* ------------------------------------------------------------------------ */
/* Value text                                                               */
/* ------------------------------------------------------------------------ */

static const double k_pow10[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

/* A finite double as pandas' encoder writes it (file comment); out holds
 * 64 bytes. */
static int fmt_double(double value, int prec, char *out) {
  bool neg = value < 0;
  if (neg) value = -value;
  if (value > 1e16 - 1 || (value != 0.0 && value < 1e-15)) {
    int n = snprintf(out, 64, "%.*g", prec, neg ? -value : value);
    return n < 0 ? 0 : n >= 64 ? 63 : n;
  }
  double pow10 = k_pow10[prec];
  unsigned long long whole = (unsigned long long)value;
  double tmp = (value - (double)whole) * pow10;
  unsigned long long frac = (unsigned long long)tmp;
  double diff = tmp - (double)frac;
  if (diff > 0.5) {
    ++frac;
  } else if (diff == 0.5 && (frac == 0 || (frac & 1))) {
    ++frac;
  }
  if ((double)frac >= pow10) {
    frac = 0;
    ++whole;
  }
  int k = 0;
  if (neg) out[k++] = '-';
  if (prec == 0) {
    diff = value - (double)whole;
    if (diff > 0.5 || (diff == 0.5 && (whole & 1))) ++whole;
    return k + zb__fmt_u64(whole, out + k);
  }
  k += zb__fmt_u64(whole, out + k);
  out[k++] = '.';
  if (frac == 0) {
    out[k++] = '0';
    return k;
  }
  /* the fraction's prec digits, zero-padded, less its trailing zeros
   * (frac != 0: one digit at least stays) */
  zb__put_digits(frac, prec, out + k);
  k += prec;
  while (out[k - 1] == '0') k--;
  return k;
}

static const char k_hex[] = "0123456789abcdef";

static inline char *put_u4(char *p, unsigned u) {
  p[0] = '\\';
  p[1] = 'u';
  p[2] = k_hex[(u >> 12) & 15];
  p[3] = k_hex[(u >> 8) & 15];
  p[4] = k_hex[(u >> 4) & 15];
  p[5] = k_hex[u & 15];
  return p + 6;
}

/* Append s[0, n) as a JSON string (quotes included).  The text is UTF-8
 * (zambezi strings are); a malformed byte is written as \u00XX.  Bytes up
 * to lim (>= s + n) may be read (a short tail is read as eight bytes). */
static bool put_string(obuf *b, const char *s, int64_t n, const char *lim, bool ascii) {
  /* \uXXXX per byte at most (pairs: 12 per 4), and 8 for a tail's move */
  if (!ob_grow(b, 6 * n + 2 + 8)) return false;
  char *p = b->p + b->n;
  *p++ = '"';
  const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  const uint64_t high_mask = ascii ? highs : 0; /* non-ASCII bytes: plain unless force_ascii */
  for (int64_t i = 0; i < n;) {
    /* eight plain bytes at a time: none is '"', '\\', '/', a control byte
     * or (force_ascii) non-ASCII */
    while (n - i >= 8) {
      uint64_t w;
      memcpy(&w, s + i, 8);
      uint64_t q = w ^ (ones * '"'), bs = w ^ (ones * '\\'), sl = w ^ (ones * '/');
      uint64_t hit = ((q - ones) & ~q) | ((bs - ones) & ~bs) | ((sl - ones) & ~sl) |
                     ((w - ones * 0x20) & ~w);
      if ((hit & highs) | (w & high_mask)) break;
      memcpy(p, &w, 8);
      p += 8;
      i += 8;
    }
    if (i >= n) break;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n - i < 8 && lim - (s + i) >= 8) {
      /* the last n - i bytes, read as eight: plain ones move at once */
      uint64_t w;
      memcpy(&w, s + i, 8);
      uint64_t keep = ~0ull >> (8 * (8 - (n - i))); /* the low n - i bytes */
      uint64_t q = w ^ (ones * '"'), bs = w ^ (ones * '\\'), sl = w ^ (ones * '/');
      uint64_t hit = ((q - ones) & ~q) | ((bs - ones) & ~bs) | ((sl - ones) & ~sl) |
                     ((w - ones * 0x20) & ~w);
      if ((((hit & highs) | (w & high_mask)) & keep) == 0) {
        memcpy(p, &w, 8);
        p += n - i;
        break;
      }
    }
#endif
    uint8_t c = (uint8_t)s[i];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && c != '/') {
      *p++ = (char)c;
      i++;
      continue;
    }
    if (c < 0x80) {
      *p++ = '\\';
      switch (c) {
        case '"': *p++ = '"'; break;
        case '\\': *p++ = '\\'; break;
        case '/': *p++ = '/'; break;
        case '\b': *p++ = 'b'; break;
        case '\f': *p++ = 'f'; break;
        case '\n': *p++ = 'n'; break;
        case '\r': *p++ = 'r'; break;
        case '\t': *p++ = 't'; break;
        default: p = put_u4(p - 1, c); break;
      }
      i++;
      continue;
    }
    /* a multi-byte sequence */
    int len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (i + len > n) len = 1;
    if (!ascii) {
      memcpy(p, s + i, (size_t)len);
      p += len;
      i += len;
      continue;
    }
    unsigned u = len == 1 ? c
                 : len == 2 ? ((c & 0x1Fu) << 6) | ((uint8_t)s[i + 1] & 0x3Fu)
                 : len == 3 ? ((c & 0x0Fu) << 12) | (((uint8_t)s[i + 1] & 0x3Fu) << 6) |
                                  ((uint8_t)s[i + 2] & 0x3Fu)
                            : ((c & 0x07u) << 18) | (((uint8_t)s[i + 1] & 0x3Fu) << 12) |
                                  (((uint8_t)s[i + 2] & 0x3Fu) << 6) | ((uint8_t)s[i + 3] & 0x3Fu);
    if (u >= 0x10000) {
      u -= 0x10000;
      p = put_u4(p, 0xD800 + (u >> 10));
      p = put_u4(p, 0xDC00 + (u & 0x3FF));
    } else {
      p = put_u4(p, u);
    }
    i += len;
  }
  *p++ = '"';
  b->n = p - b->p;
  return true;
}

/* ISO 8601 text of v ticks (per_sec per second) since the epoch, with
 * `digits` fraction digits (0, 3, 6, 9), 'Z' when utc. */
static int fmt_iso(int64_t v, int64_t per_sec, int digits, bool utc, char *out) {
  int64_t secs = zb__floor_div(v, per_sec);
  int64_t frac = v - secs * per_sec;
  int64_t days = zb__floor_div(secs, 86400), sod = secs - days * 86400;
  int k = 0;
  out[k++] = '"';
  k += zb__fmt_date(days, out + k);
  out[k++] = 'T';
  k += zb__fmt_clock(sod, frac, per_sec, digits, out + k);
  if (utc) out[k++] = 'Z';
  out[k++] = '"';
  return k;
}

/* ------------------------------------------------------------------------ */
/* The writer                                                               */
/* ------------------------------------------------------------------------ */

enum { W_NUM, W_TIME, W_OTHER };

typedef struct wcol {
  const zb_column *c;
  const uint8_t *valid; /* NULL: no nulls */
  const uint8_t *data;
  const int64_t *offsets; /* string; categorical: the dictionary's */
  const char *chars;
  const char *chars_end; /* the end of chars' buffer (readable up to there) */
  int64_t dict_off;
  int64_t per_sec; /* timestamp/duration ticks per second (date32: days) */
  bool utc;
  struct wcol *child; /* list: the child column's (NULL otherwise) */
  obuf key0, key;  /* '{"name":' and ',"name":' */
} wcol;

/* One worker's scratch: its morsel's column texts and rows. */
typedef struct wtask {
  obuf *text;      /* ncols */
  int64_t *off;    /* ncols x (morsel_rows + 1) */
  obuf out;
} wtask;

typedef struct writer {
  const zb_json_write_options *o;
  wcol *cols;
  int64_t ncols, nrows;
  int64_t morsel_rows;
  int64_t out_unit_per_sec; /* ticks of date_unit per second */
  int iso_digits;
  wtask *tasks;             /* one per worker */
  int nworkers;
  zb_json_write_fn write;
  void *write_ctx;
  zb_error *err;
  int64_t next;             /* atomic: the morsel whose turn it is to be written */
  int stop;                 /* atomic: an error or a cancel; st says which */
  zb_status st;             /* the first error (set by the morsel whose turn it is) */
} writer;

static const int64_t k_per_sec[4] = {1, 1000, 1000000, 1000000000};

/* v ticks of per_sec per second in the output unit, floored. */
static inline int64_t to_unit(int64_t v, int64_t per_sec, int64_t out_per_sec) {
  if (per_sec >= out_per_sec) return zb__floor_div(v, per_sec / out_per_sec);
  return v * (out_per_sec / per_sec);
}

#define NULL_AT(wc, j) ((wc)->valid != NULL && !zb_bit_get((wc)->valid, (j)))

static bool format_lists(const writer *w, const wcol *wc, int64_t r0, int64_t r1, obuf *t,
                         int64_t *off);

/* Format rows [r0, r1) of column wc into t (one offset per row in off). */
static bool format_column(const writer *w, const wcol *wc, int64_t r0, int64_t r1, obuf *t,
                          int64_t *off) {
  const zb_column *c = wc->c;
  int64_t m = r1 - r0;
  t->n = 0;
  off[0] = 0;
  char tmp[80];
  switch (c->type) {
#define INT_CASE(ID, T, NAME, U) case ID:
    ZB_FOR_EACH_INTEGER_TYPE(INT_CASE)
#undef INT_CASE
      return zb__text_format_integers(c, wc->valid, r0, r1, "null", 4, t, off);
#define FLOAT_CASE(ID, T)                                                  \
  case ID: {                                                               \
    if (!ob_grow(t, m * 64)) return false;                                 \
    const T *v = (const T *)wc->data;                                      \
    int prec = w->o->double_precision;                                     \
    for (int64_t i = 0; i < m; i++) {                                      \
      int64_t j = c->offset + r0 + i;                                      \
      double x = (double)v[j];                                             \
      if (NULL_AT(wc, j) || !isfinite(x)) {                                \
        memcpy(t->p + t->n, "null", 4);                                    \
        t->n += 4;                                                         \
      } else {                                                             \
        t->n += fmt_double(x, prec, t->p + t->n);                          \
      }                                                                    \
      off[i + 1] = t->n;                                                   \
    }                                                                      \
    return true;                                                           \
  }
    FLOAT_CASE(ZB_FLOAT32, float)
    FLOAT_CASE(ZB_FLOAT64, double)
#undef FLOAT_CASE
    case ZB_BOOL: {
      if (!ob_grow(t, m * 5)) return false;
      for (int64_t i = 0; i < m; i++) {
        int64_t j = c->offset + r0 + i;
        const char *s = NULL_AT(wc, j) ? "null" : zb_bit_get(wc->data, j) ? "true" : "false";
        int64_t n = (int64_t)strlen(s);
        memcpy(t->p + t->n, s, (size_t)n);
        t->n += n;
        off[i + 1] = t->n;
      }
      return true;
    }
    case ZB_STRING:
    case ZB_CATEGORICAL: {
      bool cat = c->type == ZB_CATEGORICAL;
      for (int64_t i = 0; i < m; i++) {
        int64_t j = c->offset + r0 + i;
        if (NULL_AT(wc, j)) {
          if (!ob_grow(t, 4)) return false;
          memcpy(t->p + t->n, "null", 4);
          t->n += 4;
        } else {
          int64_t q = cat ? ((const int32_t *)wc->data)[j] + wc->dict_off : j;
          if (!put_string(t, wc->chars + wc->offsets[q], wc->offsets[q + 1] - wc->offsets[q],
                          wc->chars_end, w->o->force_ascii))
            return false;
        }
        off[i + 1] = t->n;
      }
      return true;
    }
    case ZB_DATE32:
    case ZB_TIMESTAMP:
    case ZB_DURATION: {
      if (!ob_grow(t, m * 48)) return false;
      for (int64_t i = 0; i < m; i++) {
        int64_t j = c->offset + r0 + i;
        if (NULL_AT(wc, j)) {
          memcpy(t->p + t->n, "null", 4);
          t->n += 4;
        } else {
          int64_t v = c->type == ZB_DATE32 ? (int64_t)((const int32_t *)wc->data)[j] * 86400
                                           : ((const int64_t *)wc->data)[j];
          int n;
          if (w->o->iso_dates)
            n = fmt_iso(v, wc->per_sec, w->iso_digits, wc->utc, tmp);
          else
            n = zb__fmt_i64(to_unit(v, wc->per_sec, w->out_unit_per_sec), tmp);
          memcpy(t->p + t->n, tmp, (size_t)n);
          t->n += n;
        }
        off[i + 1] = t->n;
      }
      return true;
    }
    case ZB_LIST: return format_lists(w, wc, r0, r1, t, off);
    default: return false; /* checked before */
  }
}

/* Rows [r0, r1) of list column wc: its child rows [o[r0], o[r1]) are
 * formatted first (all the lists of these rows span them, a null list's
 * too), then each row is '[' its elements joined by ',' ']', or null. */
static bool format_lists(const writer *w, const wcol *wc, int64_t r0, int64_t r1, obuf *t,
                         int64_t *off) {
  const zb_column *c = wc->c;
  const int64_t *o = (const int64_t *)wc->data + c->offset;
  int64_t cs = o[r0], ce = o[r1];
  obuf ct = {0};
  int64_t *coff = (int64_t *)zb_malloc((size_t)(ce - cs + 1) * sizeof(int64_t));
  bool ok = coff != NULL && format_column(w, wc->child, cs, ce, &ct, coff);
  for (int64_t i = 0; ok && i < r1 - r0; i++) {
    int64_t j = r0 + i;
    if (NULL_AT(wc, c->offset + j)) {
      ok = ob_grow(t, 4);
      if (ok) {
        memcpy(t->p + t->n, "null", 4);
        t->n += 4;
      }
    } else {
      int64_t a = o[j] - cs, e = o[j + 1] - cs;
      ok = ob_grow(t, coff[e] - coff[a] + (e - a) + 2);
      if (ok) {
        char *p = t->p + t->n;
        *p++ = '[';
        for (int64_t k = a; k < e; k++) {
          if (k > a) *p++ = ',';
          memcpy(p, ct.p + coff[k], (size_t)(coff[k + 1] - coff[k]));
          p += coff[k + 1] - coff[k];
        }
        *p++ = ']';
        t->n = p - t->p;
      }
    }
    off[i + 1] = t->n;
  }
  zb_free(ct.p);
  zb_free(coff);
  return ok;
}

/* Bytes readable past the end of every piece the rows are assembled from
 * (the column texts, the keys) and writable past the end of the rows. */
#define COPY_SLACK 32

/* Copy n bytes to dst, returning dst + n: a piece of up to COPY_SLACK
 * bytes (most values and keys) as two fixed 16-byte moves, which may read
 * and write up to COPY_SLACK - n bytes past the ends (the slack). */
static inline char *copy_short(char *dst, const char *src, int64_t n) {
  if (n <= COPY_SLACK) {
    memcpy(dst, src, 16);
    memcpy(dst + 16, src + 16, 16);
  } else {
    memcpy(dst, src, (size_t)n);
  }
  return dst + n;
}

/* Format morsel m's rows into tk->out; false when out of memory. */
static bool format_morsel(writer *w, wtask *tk, int64_t m) {
  int64_t r0 = m * w->morsel_rows, r1 = ZB_MIN(r0 + w->morsel_rows, w->nrows);
  int64_t stride = w->morsel_rows + 1;
  tk->out.n = 0;
  int64_t total = 0;
  for (int64_t k = 0; k < w->ncols; k++) {
    if (!format_column(w, &w->cols[k], r0, r1, &tk->text[k], tk->off + k * stride) ||
        !ob_grow(&tk->text[k], COPY_SLACK))
      return false;
    total += tk->text[k].n + (r1 - r0) * w->cols[k].key.n;
  }
  total += (r1 - r0) * 3;
  if (!ob_grow(&tk->out, total + COPY_SLACK)) return false;
  char *p = tk->out.p;
  char sep = w->o->lines ? '\n' : ',';
  for (int64_t i = 0; i < r1 - r0; i++) {
    if (w->ncols == 0) *p++ = '{';
    for (int64_t k = 0; k < w->ncols; k++) {
      const obuf *key = k == 0 ? &w->cols[k].key0 : &w->cols[k].key;
      p = copy_short(p, key->p, key->n);
      const int64_t *off = tk->off + k * stride;
      p = copy_short(p, tk->text[k].p + off[i], off[i + 1] - off[i]);
    }
    *p++ = '}';
    if (w->o->lines || r0 + i + 1 < w->nrows) *p++ = sep;
  }
  tk->out.n = p - tk->out.p;
  return true;
}

/* One morsel: formatted in parallel with the others, then handed to the
 * write function when its turn comes (morsels are claimed in order, so the
 * ones before it are running or done: the wait ends), so formatting and
 * writing overlap.  A morsel skipped by a cancelled job is never written:
 * a waiting one sees the cancel and stops. */
static void write_task(void *ctx, int64_t m, int worker) {
  writer *w = (writer *)ctx;
  zb_status st = ZB_OK;
  if (__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) return;
  if ((w->o->cancel != NULL && *w->o->cancel) || zb_cancel_requested())
    st = ZB_ECANCEL;
  else if (worker < 0 || worker >= w->nworkers)
    st = ZB_EINVAL; /* the thread count grew during the call */
  else if (!format_morsel(w, &w->tasks[worker], m))
    st = ZB_ENOMEM;
  while (__atomic_load_n(&w->next, __ATOMIC_ACQUIRE) != m) {
    if (__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) return;
    if (zb_cancel_requested()) {
      __atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
      return;
    }
    sched_yield();
  }
  if (__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) return;
  if (st == ZB_OK && w->tasks[worker].out.n > 0)
    st = w->write(w->write_ctx, w->tasks[worker].out.p, w->tasks[worker].out.n, w->err);
  if (st != ZB_OK) {
    w->st = st;
    __atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&w->next, m + 1, __ATOMIC_RELEASE);
}

/* Whether to_json writes column c's dtype (a list: its elements'). */
static bool json_type_ok(const zb_column *c) {
  if (c->type == ZB_LIST) return c->child != NULL && json_type_ok(c->child);
  return (c->type >= ZB_INT8 && c->type <= ZB_FLOAT64) || c->type == ZB_BOOL ||
         c->type == ZB_STRING || c->type == ZB_DATE32 || c->type == ZB_TIMESTAMP ||
         c->type == ZB_DURATION ||
         (c->type == ZB_CATEGORICAL && c->dictionary && c->dictionary->type == ZB_STRING);
}

static bool holds_duration(const zb_column *c) {
  while (c->type == ZB_LIST) c = c->child;
  return c->type == ZB_DURATION;
}

/* Fill wc for column c (json_type_ok), a list's child wcol too; false
 * when out of memory (what was allocated is freed by wcol_free). */
static bool wcol_init(wcol *wc, const zb_column *c) {
  wc->c = c;
  wc->valid = c->validity && c->null_count > 0 ? (const uint8_t *)c->validity->data : NULL;
  wc->data = c->data ? (const uint8_t *)c->data->data : NULL;
  if (c->type == ZB_STRING) {
    wc->offsets = (const int64_t *)c->data->data;
    wc->chars = c->chars ? (const char *)c->chars->data : "";
    wc->chars_end = c->chars ? wc->chars + c->chars->size : wc->chars;
  } else if (c->type == ZB_CATEGORICAL) {
    const zb_column *dc = c->dictionary;
    wc->offsets = (const int64_t *)dc->data->data;
    wc->chars = dc->chars ? (const char *)dc->chars->data : "";
    wc->chars_end = dc->chars ? wc->chars + dc->chars->size : wc->chars;
    wc->dict_off = dc->offset;
  } else if (c->type == ZB_TIMESTAMP || c->type == ZB_DURATION) {
    wc->per_sec = k_per_sec[c->unit <= ZB_NANO ? c->unit : ZB_MICRO];
    wc->utc = c->type == ZB_TIMESTAMP && c->timezone != NULL && c->timezone[0] != '\0';
  } else if (c->type == ZB_DATE32) {
    wc->per_sec = 1;
  } else if (c->type == ZB_LIST) {
    wc->child = (wcol *)zb_calloc(1, sizeof(wcol));
    if (wc->child == NULL) return false;
    return wcol_init(wc->child, c->child);
  }
  return true;
}

static void wcol_free(wcol *wc) {
  zb_free(wc->key0.p);
  zb_free(wc->key.p);
  if (wc->child != NULL) {
    wcol_free(wc->child);
    zb_free(wc->child);
  }
}

static void writer_free(writer *w, int64_t ntasks) {
  if (w->cols)
    for (int64_t k = 0; k < w->ncols; k++) wcol_free(&w->cols[k]);
  if (w->tasks)
    for (int64_t q = 0; q < ntasks; q++) {
      wtask *tk = &w->tasks[q];
      if (tk->text)
        for (int64_t k = 0; k < w->ncols; k++) zb_free(tk->text[k].p);
      zb_free(tk->text);
      zb_free(tk->off);
      zb_free(tk->out.p);
    }
  zb_free(w->tasks);
  zb_free(w->cols);
}

static zb_status write_table(const zb_table *t, const zb_json_write_options *opts,
                              zb_json_write_fn write, void *ctx, zb_error *err) {
  ZB_NAME_OP("to_json");
  if (t == NULL || write == NULL)
    return zb_error_set(err, ZB_EINVAL, "JSON write: table or write function is NULL");
  zb_json_write_options defaults;
  if (opts == NULL) {
    zb_json_write_options_init(&defaults);
    opts = &defaults;
  }
  if (opts->double_precision < 0 || opts->double_precision > 15)
    return zb_error_set(err, ZB_EINVAL, "JSON write: double_precision %d is not 0..15",
                        opts->double_precision);
  if ((unsigned)opts->date_unit > (unsigned)ZB_NANO)
    return zb_error_set(err, ZB_EINVAL, "JSON write: bad date_unit %d", (int)opts->date_unit);
  if (zb_table_device(t).kind != ZB_DEVICE_CPU)
    return zb_error_set(err, ZB_EDEVICE, "JSON write: the table is on a GPU; copy it to the CPU "
                                         "first");
  for (int64_t k = 0; k < t->num_columns; k++) {
    const zb_column *c = t->columns[k];
    if (!json_type_ok(c)) {
      char tb[128];
      return zb_error_set(err, ZB_ENOTSUP, "JSON write: column '%s' has a dtype (%s) to_json "
                                           "cannot write", t->names[k],
                          zb_column_type_text(c, tb, sizeof tb));
    }
    if (holds_duration(c) && opts->iso_dates)
      return zb_error_set(err, ZB_ENOTSUP, "JSON write: column '%s' holds durations: "
                                           "date_format='iso' is not supported for durations "
                                           "(use date_format='epoch')", t->names[k]);
  }
  writer w;
  memset(&w, 0, sizeof w);
  w.o = opts;
  w.ncols = t->num_columns;
  w.nrows = t->num_columns > 0 ? t->num_rows : 0;
  w.out_unit_per_sec = k_per_sec[opts->date_unit];
  w.iso_digits = (int)opts->date_unit * 3;
  w.write = write;
  w.write_ctx = ctx;
  w.err = err;
  w.nworkers = zb_get_num_threads();
  int64_t ntasks = w.nworkers;
  zb_status st = ZB_OK;
  w.morsel_rows = ZB_MAX(64, ZB_MIN(16384, ((int64_t)1 << 20) / (w.ncols > 0 ? w.ncols : 1)));
  w.cols = (wcol *)zb_calloc((size_t)(w.ncols > 0 ? w.ncols : 1), sizeof(wcol));
  w.tasks = (wtask *)zb_calloc((size_t)ntasks, sizeof(wtask));
  if (w.cols == NULL || w.tasks == NULL) goto nomem;
  for (int64_t q = 0; q < ntasks; q++) {
    wtask *tk = &w.tasks[q];
    tk->text = (obuf *)zb_calloc((size_t)(w.ncols > 0 ? w.ncols : 1), sizeof(obuf));
    tk->off = (int64_t *)zb_malloc((size_t)((w.ncols > 0 ? w.ncols : 1) * (w.morsel_rows + 1)) *
                                   sizeof(int64_t));
    if (tk->text == NULL || tk->off == NULL) goto nomem;
  }
  for (int64_t k = 0; k < w.ncols; k++) {
    wcol *wc = &w.cols[k];
    if (!wcol_init(wc, t->columns[k])) goto nomem;
    const char *name = t->names[k] ? t->names[k] : "";
    for (int f = 0; f < 2; f++) {
      obuf *kb = f == 0 ? &wc->key0 : &wc->key;
      if (!ob_grow(kb, 1)) goto nomem;
      kb->p[kb->n++] = f == 0 ? '{' : ',';
      int64_t nn = (int64_t)strlen(name);
      if (!put_string(kb, name, nn, name + nn, opts->force_ascii) || !ob_grow(kb, 1))
        goto nomem;
      kb->p[kb->n++] = ':';
      if (!ob_grow(kb, COPY_SLACK)) goto nomem; /* copy_short's slack */
    }
  }
  if (!opts->lines) {
    st = write(ctx, "[", 1, err);
    if (st != ZB_OK) goto done;
  }
  int64_t nmorsels = (w.nrows + w.morsel_rows - 1) / w.morsel_rows;
  st = zb_parallel_for(nmorsels, write_task, &w, err);
  if (w.st == ZB_ENOMEM) goto nomem;
  if (w.st == ZB_EINVAL) {
    st = zb_error_set(err, ZB_EINVAL, "JSON write: the thread count changed during the write");
    goto done;
  }
  if (w.st == ZB_ECANCEL && st == ZB_OK) {
    st = zb_error_set(err, ZB_ECANCEL, "JSON write cancelled");
    goto done;
  }
  if (w.st != ZB_OK) {
    st = w.st; /* the write function's error, its message in err */
    goto done;
  }
  if (st == ZB_OK && __atomic_load_n(&w.next, __ATOMIC_ACQUIRE) != nmorsels)
    st = zb_error_set(err, ZB_ECANCEL, "JSON write cancelled");
  if (st != ZB_OK) goto done;
  if (!opts->lines)
    st = write(ctx, "]", 1, err);
  else if (nmorsels == 0)
    st = write(ctx, "\n", 1, err); /* pandas writes an empty frame as one newline */
  goto done;
nomem:
  st = zb_error_set(err, ZB_ENOMEM, "out of host memory (JSON writer)");
done:
  writer_free(&w, ntasks);
  return st;
}

/* Categoricals whose categories are not strings are written as their
 * values (the writer reads a categorical's categories as text). */
zb_status zb_json_write(const zb_table *t, const zb_json_write_options *opts, zb_json_write_fn write,
                       void *ctx, zb_error *err) {
  zb_table *d = NULL;
  ZB_RETURN_NOT_OK(zb__table_decode_valued(t, &d, err));
  zb_status st = write_table(d, opts, write, ctx, err);
  zb_table_release(d);
  return st;
}

zb_status zb_json_write_file(const zb_table *t, const char *path, const zb_json_write_options *opts,
                             zb_error *err) {
  ZB_NAME_OP("to_json");
  zb__file_sink s;
  ZB_RETURN_NOT_OK(zb__file_sink_begin(&s, t, path, "JSON write", err));
  return zb__file_sink_close(&s, zb_json_write(t, opts, zb__file_sink_write, &s, err), true, err);
}
