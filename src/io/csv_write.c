/*
 * csv_write.c -- the CSV writer: zb_csv_write / zb_csv_write_file.
 *
 * The table is cut into morsels of rows.  A batch of morsels (two per
 * thread) is formatted in parallel, each morsel into its own growable
 * buffer; the buffers are then handed to the caller's write function in
 * row order on the calling thread, and reused by the next batch, so memory
 * stays at a few morsels of text whatever the table's size.  Integer
 * columns are formatted a column at a time first (text_format.h, one loop
 * per dtype); the rows then take their texts from there.
 *
 * Text of values follows pandas.DataFrame.to_csv(index=False):
 *   - floats: the shortest digits that read back to the same value
 *     (src/core/float_text.h), laid out as numpy's str(): positional with at least one
 *     fractional digit when 1e-4 <= |x| < 1e16 (1e6 for float32), else
 *     d.ddde+XX; inf/-inf as such, NaN as na_rep.
 *   - a float_format is validated (one e/E/f/F/g/G conversion) and passed
 *     to snprintf.
 *   - timestamps: one layout per column (see io_csv.h), chosen by a first scan.
 * Quoting follows Python's csv module: QUOTE_MINIMAL quotes a field that
 * holds sep, quotechar, escapechar, CR or LF (and any byte of the line
 * terminator); QUOTE_NONNUMERIC leaves only unformatted numbers and bools
 * bare; inside quotes the quote char is doubled (doublequote) or escaped.
 * Errors found by tasks are kept per task and the earliest row reported.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/calendar.h"
#include "core/float_text.h"
#include "core/internal.h"
#include "io/file_sink.h"
#include "io/text_format.h"
#include "zambezi/io_csv.h"

void zb_csv_write_options_init(zb_csv_write_options *o) {
  memset(o, 0, sizeof *o);
  o->sep = ',';
  o->quotechar = '"';
  o->doublequote = true;
  o->header = true;
  o->na_rep = "";
  o->quoting = ZB_CSV_QUOTE_MINIMAL;
  o->lineterminator = "\n";
}

/* ------------------------------------------------------------------------ */
/* Output buffers                                                           */
/* ------------------------------------------------------------------------ */

/* text_format.h's buffer */
typedef zb__text_buf obuf;

static inline bool ob_grow(obuf *b, int64_t extra) { return zb__text_buf_grow(b, extra); }

static inline bool ob_put(obuf *b, const char *s, int64_t n) {
  if (b->n + n > b->cap && !ob_grow(b, n)) return false;
  if (n) memcpy(b->p + b->n, s, (size_t)n);
  b->n += n;
  return true;
}

/* ------------------------------------------------------------------------ */
/* Number and date text                                                     */
/* ------------------------------------------------------------------------ */

/* Shortest round-tripping text of v (see the file comment); out holds 64. */
static int fmt_float(double v, bool f32, char *out) {
  if (isinf(v)) {
    memcpy(out, v < 0 ? "-inf" : "inf", v < 0 ? 4 : 3);
    return v < 0 ? 4 : 3;
  }
  int k = 0;
  if (signbit(v)) out[k++] = '-';
  if (v == 0) {
    memcpy(out + k, "0.0", 3);
    return k + 3;
  }
  char digits[24];
  int e10 = 0;
  int nd = zb__float_shortest(v, f32, digits, &e10);
  double a = fabs(v);
  if (a >= 1e-4 && a < (f32 ? 1e6 : 1e16)) {
    int decpt = e10 + 1;
    if (decpt <= 0) {
      out[k++] = '0';
      out[k++] = '.';
      for (int i = 0; i < -decpt; i++) out[k++] = '0';
      for (int i = 0; i < nd; i++) out[k++] = digits[i];
    } else if (decpt >= nd) {
      for (int i = 0; i < nd; i++) out[k++] = digits[i];
      for (int i = nd; i < decpt; i++) out[k++] = '0';
      out[k++] = '.';
      out[k++] = '0';
    } else {
      for (int i = 0; i < decpt; i++) out[k++] = digits[i];
      out[k++] = '.';
      for (int i = decpt; i < nd; i++) out[k++] = digits[i];
    }
  } else {
    out[k++] = digits[0];
    if (nd > 1) {
      out[k++] = '.';
      for (int i = 1; i < nd; i++) out[k++] = digits[i];
    }
    out[k++] = 'e';
    out[k++] = e10 < 0 ? '-' : '+';
    int ae = e10 < 0 ? -e10 : e10;
    if (ae < 10) out[k++] = '0';
    k += zb__fmt_u64((uint64_t)ae, out + k);
  }
  return k;
}

/* ------------------------------------------------------------------------ */
/* The writer                                                               */
/* ------------------------------------------------------------------------ */

typedef struct wcol {
  const zb_column *c;
  const char *name;
  const uint8_t *valid; /* NULL: no nulls */
  const uint8_t *data;
  const int64_t *offsets; /* string */
  const char *chars;
  const int64_t *doff; /* categorical dictionary */
  const char *dchars;
  int64_t dict_off;
  int64_t per_sec; /* timestamp ticks per second */
  int ts_digits;   /* -1: date only, else fraction digits 0/3/6/9 */
  bool tz;
  const int32_t *utc_off; /* tz: each row's UTC offset in seconds (NULL: 0) */
  int64_t slot; /* integer columns: which of the task's texts, else -1 */
} wcol;

/* A task's outcome, and the texts of the integer columns of its morsel
 * (formatted a column at a time before the rows are assembled). */
typedef struct wtask {
  zb_status st;
  int64_t row, col;
  obuf *ints;    /* nints */
  int64_t *ioff; /* nints x (morsel_rows + 1) */
} wtask;

typedef struct writer {
  const zb_table *t;
  const zb_csv_write_options *o;
  wcol *cols;
  int64_t ncols, nrows;
  uint8_t special[256];
  const char *na;
  int64_t na_len;
  const char *lt;
  int64_t lt_len;
  int64_t morsel_rows, batch0, nmorsels;
  int64_t nints; /* integer columns */
  obuf *bufs;
  wtask *res;
} writer;

enum { F_TEXT = 0, F_NUMBER = 1 };

/* Append one field, quoted or escaped as the options say. */
static zb_status put_field(const writer *w, obuf *b, const char *s, int64_t n, int kind) {
  const zb_csv_write_options *o = w->o;
  bool special = false;
  for (int64_t i = 0; i < n; i++)
    if (w->special[(uint8_t)s[i]]) {
      special = true;
      break;
    }
  bool quote;
  switch (o->quoting) {
    case ZB_CSV_QUOTE_ALL: quote = true; break;
    case ZB_CSV_QUOTE_NONNUMERIC: quote = kind == F_TEXT || special; break;
    case ZB_CSV_QUOTE_NONE: quote = false; break;
    default: quote = special; break;
  }
  if (n == 0 && w->ncols == 1 && o->quoting != ZB_CSV_QUOTE_NONE) quote = true;
  if (!quote && !special) return ob_put(b, s, n) ? ZB_OK : ZB_ENOMEM;
  if (!ob_grow(b, 2 * n + 2)) return ZB_ENOMEM;
  char *p = b->p + b->n;
  if (quote) {
    *p++ = o->quotechar;
    for (int64_t i = 0; i < n; i++) {
      char c = s[i];
      if (c == o->quotechar) {
        if (o->doublequote) *p++ = c;
        else if (o->escapechar) *p++ = o->escapechar;
        else return ZB_EINVAL;
      } else if (o->escapechar && c == o->escapechar) {
        *p++ = c;
      }
      *p++ = c;
    }
    *p++ = o->quotechar;
  } else { /* QUOTE_NONE with special bytes */
    if (!o->escapechar) return ZB_EINVAL;
    for (int64_t i = 0; i < n; i++) {
      if (w->special[(uint8_t)s[i]]) *p++ = o->escapechar;
      *p++ = s[i];
    }
  }
  b->n = p - b->p;
  return ZB_OK;
}

/* A UTC offset of off seconds as pandas writes it: +00:00, -05:00,
 * +05:45, with :SS when it has seconds; its length. */
static int fmt_utc_offset(int32_t off, char *out) {
  int n = 0;
  out[n++] = off < 0 ? '-' : '+';
  int32_t a = off < 0 ? -off : off;
  n += snprintf(out + n, 10, "%02d:%02d", (int)(a / 3600), (int)(a % 3600 / 60));
  if (a % 60) n += snprintf(out + n, 5, ":%02d", (int)(a % 60));
  return n;
}

/* Row i of column wc, the i - r0'th of task tk's morsel. */
static zb_status put_cell(const writer *w, obuf *b, const wcol *wc, const wtask *tk, int64_t i,
                          int64_t r0) {
  const zb_column *c = wc->c;
  int64_t j = c->offset + i;
  char tmp[512];
  int n = 0;
  if (wc->valid != NULL && !zb_bit_get(wc->valid, j))
    return put_field(w, b, w->na, w->na_len, F_TEXT);
  if (wc->slot >= 0) {
    const int64_t *off = tk->ioff + wc->slot * (w->morsel_rows + 1) + (i - r0);
    return put_field(w, b, tk->ints[wc->slot].p + off[0], off[1] - off[0], F_NUMBER);
  }
  switch (c->type) {
    case ZB_BOOL: {
      bool v = zb_bit_get(wc->data, j);
      return put_field(w, b, v ? "True" : "False", v ? 4 : 5, F_NUMBER);
    }
    case ZB_FLOAT32:
    case ZB_FLOAT64: {
      double v = c->type == ZB_FLOAT32 ? (double)((const float *)wc->data)[j]
                                       : ((const double *)wc->data)[j];
      if (isnan(v)) return put_field(w, b, w->na, w->na_len, F_TEXT);
      if (w->o->float_format != NULL) {
        n = snprintf(tmp, sizeof tmp, w->o->float_format, v);
        if (n < 0 || n >= (int)sizeof tmp) n = (int)strlen(tmp);
        return put_field(w, b, tmp, n, F_TEXT);
      }
      n = fmt_float(v, c->type == ZB_FLOAT32, tmp);
      break;
    }
    case ZB_STRING: {
      const int64_t *off = wc->offsets;
      return put_field(w, b, wc->chars + off[j], off[j + 1] - off[j], F_TEXT);
    }
    case ZB_CATEGORICAL: {
      int64_t code = ((const int32_t *)wc->data)[j] + wc->dict_off;
      return put_field(w, b, wc->dchars + wc->doff[code], wc->doff[code + 1] - wc->doff[code],
                       F_TEXT);
    }
    case ZB_DATE32:
      n = zb__fmt_date(((const int32_t *)wc->data)[j], tmp);
      return put_field(w, b, tmp, n, F_TEXT);
    case ZB_TIMESTAMP: {
      int64_t v = ((const int64_t *)wc->data)[j];
      int32_t off = wc->utc_off != NULL ? wc->utc_off[j - wc->c->offset] : 0;
      int64_t secs = zb__floor_div(v, wc->per_sec);
      int64_t frac = v - secs * wc->per_sec;
      secs += off; /* the zone's wall clock */
      int64_t days = zb__floor_div(secs, 86400), sod = secs - days * 86400;
      n = zb__fmt_date(days, tmp);
      if (wc->ts_digits >= 0) {
        tmp[n++] = ' ';
        n += zb__fmt_clock(sod, frac, wc->per_sec, wc->ts_digits, tmp + n);
        if (wc->tz) n += fmt_utc_offset(off, tmp + n);
      }
      return put_field(w, b, tmp, n, F_TEXT);
    }
    case ZB_DURATION: { /* pandas: "1 days 02:00:00[.f]", "-1 days +21:00:00", "2 days" */
      int64_t v = ((const int64_t *)wc->data)[j];
      int64_t per_day = wc->per_sec * 86400;
      int64_t days = zb__floor_div(v, per_day), rem = v - days * per_day;
      n = snprintf(tmp, 40, "%lld days", (long long)days);
      if (wc->ts_digits >= 0) {
        int64_t sod = rem / wc->per_sec, frac = rem % wc->per_sec;
        tmp[n++] = ' ';
        if (days < 0) tmp[n++] = '+';
        n += zb__fmt_clock(sod, frac, wc->per_sec, wc->ts_digits, tmp + n);
      }
      return put_field(w, b, tmp, n, F_TEXT);
    }
    default: return ZB_ENOTSUP;
  }
  return put_field(w, b, tmp, n, F_NUMBER);
}

static void write_task(void *ctx, int64_t task, int worker) {
  (void)worker;
  writer *w = (writer *)ctx;
  int64_t m = w->batch0 + task;
  int64_t r0 = m * w->morsel_rows, r1 = ZB_MIN(r0 + w->morsel_rows, w->nrows);
  obuf *b = &w->bufs[task];
  wtask *res = &w->res[task];
  b->n = 0;
  res->st = ZB_OK;
  for (int64_t k = 0; k < w->ncols; k++) {
    const wcol *wc = &w->cols[k];
    if (wc->slot < 0) continue;
    obuf *t = &res->ints[wc->slot];
    t->n = 0;
    if (!zb__text_format_integers(wc->c, wc->valid, r0, r1, "", 0, t,
                                  res->ioff + wc->slot * (w->morsel_rows + 1)))
      goto nomem;
  }
  for (int64_t i = r0; i < r1; i++) {
    for (int64_t k = 0; k < w->ncols; k++) {
      if (k > 0 && !ob_put(b, &w->o->sep, 1)) goto nomem;
      zb_status st = put_cell(w, b, &w->cols[k], res, i, r0);
      if (st != ZB_OK) {
        res->st = st;
        res->row = i;
        res->col = k;
        return;
      }
    }
    if (!ob_put(b, w->lt, w->lt_len)) goto nomem;
  }
  return;
nomem:
  res->st = ZB_ENOMEM;
  res->row = r0;
  res->col = 0;
}

static zb_status cell_error(const writer *w, zb_status st, int64_t row, int64_t col,
                            zb_error *err) {
  const char *name = col >= 0 ? w->cols[col].name : "";
  switch (st) {
    case ZB_ENOMEM: return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV writer)");
    case ZB_EINVAL:
      return zb_error_set(err, ZB_EINVAL,
                          "CSV write: %s %lld, column '%s' needs escaping (it holds the "
                          "separator, the quote character or a line break) but no "
                          "escapechar is set",
                          row < 0 ? "header" : "row", (long long)(row < 0 ? 0 : row), name);
    default:
      return zb_error_set(err, st, "CSV write: column '%s' has an unsupported dtype %s", name,
                          zb_type_name(w->cols[col].c->type));
  }
}

/* Validate a printf float format: one e/E/f/F/g/G conversion. */
static zb_status check_float_format(const char *f, zb_error *err) {
  int convs = 0;
  for (const char *p = f; *p; p++) {
    if (*p != '%') continue;
    if (p[1] == '%') {
      p++;
      continue;
    }
    const char *q = p + 1;
    while (*q && strchr("-+ #0", *q)) q++;
    int width = 0, prec = 0;
    while (*q >= '0' && *q <= '9') width = width * 10 + (*q++ - '0');
    if (*q == '.') {
      q++;
      while (*q >= '0' && *q <= '9') prec = prec * 10 + (*q++ - '0');
    }
    if (!*q || !strchr("eEfFgG", *q) || width > 100 || prec > 100)
      return zb_error_set(err, ZB_EINVAL,
                          "CSV float_format '%s' must hold one conversion such as %%.2f "
                          "(e, E, f, F, g or G; width and precision <= 100)",
                          f);
    convs++;
    p = q;
  }
  if (convs != 1)
    return zb_error_set(err, ZB_EINVAL,
                        "CSV float_format '%s' must hold exactly one conversion such as %%.2f", f);
  return ZB_OK;
}

static void prepare_timestamp(wcol *wc) {
  const zb_column *c = wc->c;
  static const int64_t per[4] = {1, 1000, 1000000, 1000000000};
  wc->per_sec = per[c->unit <= ZB_NANO ? c->unit : ZB_MICRO];
  wc->tz = c->timezone != NULL && c->timezone[0] != '\0';
  const int64_t *v = (const int64_t *)wc->data;
  int64_t per_day = wc->per_sec * 86400;
  bool dates_only = !wc->tz;
  int digits = 0;
  for (int64_t i = 0; i < c->length; i++) {
    int64_t j = c->offset + i;
    if (wc->valid != NULL && !zb_bit_get(wc->valid, j)) continue;
    if (dates_only && v[j] % per_day != 0) dates_only = false;
    int64_t frac = v[j] - zb__floor_div(v[j], wc->per_sec) * wc->per_sec;
    int64_t ns = frac * (1000000000 / wc->per_sec);
    int d = ns % 1000 ? 9 : ns % 1000000 ? 6 : ns ? 3 : 0;
    if (d > digits) digits = d;
    if (!dates_only && digits == 9) break;
  }
  wc->ts_digits = dates_only ? -1 : digits;
}

/* Durations: -1 (ts_digits) when every value is whole days, else the
 * fraction digits pandas writes: 0, 6, or 9 when a value has nanoseconds. */
static void prepare_duration(wcol *wc) {
  const zb_column *c = wc->c;
  static const int64_t per[4] = {1, 1000, 1000000, 1000000000};
  wc->per_sec = per[c->unit <= ZB_NANO ? c->unit : ZB_MICRO];
  wc->tz = false;
  const int64_t *v = (const int64_t *)wc->data;
  int64_t per_day = wc->per_sec * 86400;
  bool days_only = true;
  int digits = 0;
  for (int64_t i = 0; i < c->length; i++) {
    int64_t j = c->offset + i;
    if (wc->valid != NULL && !zb_bit_get(wc->valid, j)) continue;
    if (v[j] % per_day != 0) days_only = false;
    int64_t frac = v[j] - zb__floor_div(v[j], wc->per_sec) * wc->per_sec;
    int64_t ns = frac * (1000000000 / wc->per_sec);
    int d = ns % 1000 ? 9 : ns ? 6 : 0;
    if (d > digits) digits = d;
    if (!days_only && digits == 9) break;
  }
  wc->ts_digits = days_only ? -1 : digits;
}

static zb_status write_table(const zb_table *t, const zb_csv_write_options *opts,
                              zb_csv_write_fn write, void *ctx, zb_error *err) {
  ZB_NAME_OP("to_csv");
  if (t == NULL || write == NULL)
    return zb_error_set(err, ZB_EINVAL, "CSV write: table or write function is NULL");
  zb_csv_write_options defaults;
  if (opts == NULL) {
    zb_csv_write_options_init(&defaults);
    opts = &defaults;
  }
  const zb_csv_write_options *o = opts;
  if (o->sep == 0 || o->sep == '\n' || o->sep == '\r')
    return zb_error_set(err, ZB_EINVAL, "CSV write: sep must be a character other than NUL, CR, LF");
  if ((o->quoting != ZB_CSV_QUOTE_NONE && (o->quotechar == 0 || o->quotechar == o->sep)) ||
      o->quotechar == '\n' || o->quotechar == '\r')
    return zb_error_set(err, ZB_EINVAL,
                        "CSV write: quotechar must be set and differ from sep and line breaks");
  if ((int)o->quoting < 0 || o->quoting > ZB_CSV_QUOTE_NONE)
    return zb_error_set(err, ZB_EINVAL, "CSV write: quoting %d is not 0..3", (int)o->quoting);
  if (o->escapechar != 0 && (o->escapechar == o->sep || o->escapechar == o->quotechar))
    return zb_error_set(err, ZB_EINVAL, "CSV write: escapechar must differ from sep and quotechar");
  if (o->float_format != NULL) ZB_RETURN_NOT_OK(check_float_format(o->float_format, err));
  if (zb_table_device(t).kind != ZB_DEVICE_CPU)
    return zb_error_set(err, ZB_EDEVICE, "CSV write: the table is on a GPU; copy it to the CPU "
                                         "first");

  writer w;
  memset(&w, 0, sizeof w);
  w.t = t;
  w.o = o;
  w.ncols = t->num_columns;
  w.nrows = t->num_columns > 0 ? t->num_rows : 0;
  w.na = o->na_rep ? o->na_rep : "";
  w.na_len = (int64_t)strlen(w.na);
  w.lt = o->lineterminator ? o->lineterminator : "\n";
  w.lt_len = (int64_t)strlen(w.lt);
  if (w.lt_len == 0) return zb_error_set(err, ZB_EINVAL, "CSV write: empty lineterminator");
  w.special[(uint8_t)o->sep] = 1;
  w.special['\n'] = 1;
  w.special['\r'] = 1;
  if (o->quotechar) w.special[(uint8_t)o->quotechar] = 1;
  if (o->escapechar) w.special[(uint8_t)o->escapechar] = 1;
  for (int64_t i = 0; i < w.lt_len; i++) w.special[(uint8_t)w.lt[i]] = 1;

  zb_status st = ZB_OK;
  obuf head = {NULL, 0, 0};
  int64_t batch = (int64_t)zb_get_num_threads() * 2;
  w.cols = (wcol *)zb_calloc((size_t)(w.ncols > 0 ? w.ncols : 1), sizeof(wcol));
  w.bufs = (obuf *)zb_calloc((size_t)batch, sizeof(obuf));
  w.res = (wtask *)zb_calloc((size_t)batch, sizeof(wtask));
  if (w.cols == NULL || w.bufs == NULL || w.res == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV writer)");
    goto done;
  }
  for (int64_t k = 0; k < w.ncols; k++) {
    wcol *wc = &w.cols[k];
    const zb_column *c = t->columns[k];
    wc->c = c;
    wc->name = t->names[k];
    wc->valid = c->validity && c->null_count > 0 ? (const uint8_t *)c->validity->data : NULL;
    wc->data = c->data ? (const uint8_t *)c->data->data : NULL;
    if (c->type == ZB_STRING) {
      wc->offsets = (const int64_t *)c->data->data;
      wc->chars = c->chars ? (const char *)c->chars->data : "";
    } else if (c->type == ZB_CATEGORICAL) {
      const zb_column *d = c->dictionary;
      wc->doff = (const int64_t *)d->data->data;
      wc->dchars = d->chars ? (const char *)d->chars->data : "";
      wc->dict_off = d->offset;
    } else if (c->type == ZB_TIMESTAMP) {
      prepare_timestamp(wc);
      const zb_column *u = o->utc_offsets != NULL ? o->utc_offsets[k] : NULL;
      if (wc->tz && u != NULL) {
        if (u->type != ZB_INT32 || u->length != c->length || u->null_count > 0 ||
            !zb_device_equal(u->device, ZB_CPU)) {
          st = zb_error_set(err, ZB_EINVAL,
                            "CSV write: the UTC offsets of column '%s' must be %lld int32 "
                            "values without nulls on the CPU", wc->name, (long long)c->length);
          goto done;
        }
        wc->utc_off = (const int32_t *)u->data->data + u->offset;
        for (int64_t i = 0; i < u->length; i++)
          if (wc->utc_off[i] <= -86400 || wc->utc_off[i] >= 86400) {
            st = zb_error_set(err, ZB_EINVAL,
                              "CSV write: UTC offset %d s of column '%s' (row %lld) is not "
                              "within a day", (int)wc->utc_off[i], wc->name, (long long)i);
            goto done;
          }
      }
    } else if (c->type == ZB_DURATION) {
      prepare_duration(wc);
    }
    wc->slot = zb_type_is_integer(c->type) ? w.nints++ : -1;
  }
  /* the integer texts' offsets stay within 8 MiB a task */
  w.morsel_rows = ZB_MAX(64, ZB_MIN(ZB_MORSEL_ROWS / 4, ((int64_t)1 << 20) / ZB_MAX(w.nints, 1)));
  for (int64_t q = 0; q < batch && w.nints > 0; q++) {
    wtask *tk = &w.res[q];
    tk->ints = (obuf *)zb_calloc((size_t)w.nints, sizeof(obuf));
    tk->ioff = (int64_t *)zb_malloc((size_t)(w.nints * (w.morsel_rows + 1)) * sizeof(int64_t));
    if (tk->ints == NULL || tk->ioff == NULL) {
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV writer)");
      goto done;
    }
  }
  if (o->header && w.ncols > 0) {
    for (int64_t k = 0; k < w.ncols; k++) {
      if (k > 0 && !ob_put(&head, &o->sep, 1)) st = ZB_ENOMEM;
      if (st == ZB_OK)
        st = put_field(&w, &head, w.cols[k].name, (int64_t)strlen(w.cols[k].name), F_TEXT);
      if (st != ZB_OK) {
        st = cell_error(&w, st, -1, k, err);
        goto done;
      }
    }
    if (!ob_put(&head, w.lt, w.lt_len)) {
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV writer)");
      goto done;
    }
    st = write(ctx, head.p, head.n, err);
    if (st != ZB_OK) goto done;
  }
  w.nmorsels = (w.nrows + w.morsel_rows - 1) / w.morsel_rows;
  for (w.batch0 = 0; w.batch0 < w.nmorsels; w.batch0 += batch) {
    if (o->cancel != NULL && *o->cancel) {
      st = zb_error_set(err, ZB_ECANCEL, "CSV write cancelled");
      goto done;
    }
    int64_t n = ZB_MIN(batch, w.nmorsels - w.batch0);
    st = zb_parallel_for(n, write_task, &w, err);
    if (st != ZB_OK) goto done;
    for (int64_t k = 0; k < n; k++)
      if (w.res[k].st != ZB_OK) {
        st = cell_error(&w, w.res[k].st, w.res[k].row, w.res[k].col, err);
        goto done;
      }
    for (int64_t k = 0; k < n; k++) {
      if (w.bufs[k].n == 0) continue;
      st = write(ctx, w.bufs[k].p, w.bufs[k].n, err);
      if (st != ZB_OK) goto done;
    }
  }
done:
  zb_free(head.p);
  if (w.bufs)
    for (int64_t k = 0; k < batch; k++) zb_free(w.bufs[k].p);
  zb_free(w.bufs);
  if (w.res)
    for (int64_t q = 0; q < batch; q++) {
      if (w.res[q].ints)
        for (int64_t k = 0; k < w.nints; k++) zb_free(w.res[q].ints[k].p);
      zb_free(w.res[q].ints);
      zb_free(w.res[q].ioff);
    }
  zb_free(w.res);
  zb_free(w.cols);
  return st;
}

/* Categoricals whose categories are not strings are written as their
 * values (the writer reads a categorical's categories as text). */
zb_status zb_csv_write(const zb_table *t, const zb_csv_write_options *opts, zb_csv_write_fn write,
                       void *ctx, zb_error *err) {
  zb_table *d = NULL;
  ZB_RETURN_NOT_OK(zb__table_decode_valued(t, &d, err));
  zb_status st = write_table(d, opts, write, ctx, err);
  zb_table_release(d);
  return st;
}

zb_status zb_csv_write_file(const zb_table *t, const char *path, const zb_csv_write_options *opts,
                            zb_error *err) {
  ZB_NAME_OP("to_csv");
  zb__file_sink s;
  ZB_RETURN_NOT_OK(zb__file_sink_begin(&s, t, path, "CSV write", err));
  return zb__file_sink_close(&s, zb_csv_write(t, opts, zb__file_sink_write, &s, err), false, err);
}
