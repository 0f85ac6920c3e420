/*
 * csv_read.c -- the parallel CSV reader: zb_csv_read_buffer / _file, and
 * the row finders for readers in pieces.  This file drives the stages and
 * holds the parse loop that tokenizes data records; the rest of the
 * tokenizer (the dialect, the automaton the scan stage runs, unquoting) is
 * csv_tokenize.c, and turning fields into typed columns is the column
 * builder's job (builder.h), shared with the other readers: this file
 * hands it each field as a text cell.
 *
 * Stages:
 *   1. prologue (sequential): skip the BOM and `skiprows` lines, read the
 *      header record, settle the column names and the selected columns.
 *   2. chunking: the data is cut into chunks of a few MB that each start
 *      right after a '\n' (one not preceded by the escape character).  At
 *      such a point the tokenizer is either at the start of a record (S) or
 *      inside a quoted field (Q) -- nothing else.
 *   3. scan (parallel per chunk): NUL bytes (an error), whether a quote or
 *      escape character occurs, whether every byte is ASCII, and the '\n'
 *      count.  A chunk holding quotes or escapes also runs the tokenizer's
 *      automaton (zb__csv_run) from S, counting record terminators,
 *      and from Q where the chunk before it ended inside quotes.  A
 *      sequential walk fixes every chunk's real start state, its first
 *      record and an upper bound on its records; the bounds' prefix sums
 *      place each chunk's rows in the output.  The bound is exact unless
 *      blank lines, comment lines or dropped bad lines leave gaps, which a
 *      compaction step removes afterwards.
 *   4. parse (parallel per chunk; a chunk is one part of the builder):
 *      batches of records are tokenized into a small column-major field
 *      index of text cells (per worker, sized to stay in cache), and each
 *      column of the batch goes to the builder right away, which converts
 *      it straight into the output buffers.  Type inference runs per chunk
 *      in the same pass: a chunk's column takes the narrowest type of its
 *      first value and widens when a value does not fit (to string by
 *      re-tokenizing the chunk's earlier records: csv_refetch), so every
 *      value is parsed once in the usual case.  Strings stay cells into
 *      the input until the end.
 *   5. finish (the builder): each column's type is the one inference over
 *      the whole file gives; chunks that chose a narrower type are
 *      converted in place or re-tokenized; the strings are copied (and
 *      unquoted) into one buffer per string column; booleans are packed
 *      into bits and dates into int32.
 * The parse loop (tokenize_loop) and csv_tokenize.c's record tokenizer
 * and scan-stage automaton implement the same dialect (csv_tokenize.h).
 *
 * Errors found by parallel tasks are kept per chunk and the one earliest in
 * the input is reported, so messages do not depend on the thread count.
 * Line numbers are computed on demand by counting '\n' bytes before the
 * offending byte.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/builder.h"
#include "io/csv_tokenize.h"
#include "io/text_values.h"
#include "zambezi/io.h"

/* ------------------------------------------------------------------------ */
/* Options                                                                  */
/* ------------------------------------------------------------------------ */

void zb_csv_options_init(zb_csv_options *o) {
  memset(o, 0, sizeof *o);
  o->sep = ',';
  o->quotechar = '"';
  o->doublequote = true;
  o->decimal = '.';
  o->header = 0;
  o->keep_default_na = true;
  o->infer_dates = true;
  o->nrows = -1;
  o->on_bad_lines = ZB_CSV_BAD_LINES_ERROR;
  o->first_line = 1;
}

static const char *const k_default_na[] = {
    "",     "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A",  "NA",       "NULL", "NaN",    "None",     "n/a",  "nan",  "null"};
#define N_DEFAULT_NA ((int64_t)(sizeof k_default_na / sizeof k_default_na[0]))

/* ------------------------------------------------------------------------ */
/* Reader state                                                             */
/* ------------------------------------------------------------------------ */

/* The field index holds text cells (builder.h): a field's start relative
 * to its chunk and its length, ZB_CELL_FLAG when it needs unquoting, or
 * ZB_CELL_NULL for a field the record lacks. */

typedef struct badline {
  int64_t pos, nfields;
} badline;

/* The tokenizer's errors (a value's errors are the builder's). */
enum { ERR_NONE, ERR_UNTERMINATED, ERR_FIELDS, ERR_TOOLONG, ERR_NOMEM, ERR_BOUND };

typedef struct chunk {
  int64_t start, end;
  /* scan */
  int64_t nul;        /* first NUL byte, or -1 */
  int64_t nl;         /* '\n' bytes */
  bool quoted, ascii; /* holds a quote or escape byte; only ASCII bytes */
  bool have_q;        /* the run from Q is done */
  int end_s, end_q;   /* state at the end, from S / from Q */
  int64_t term_s, term_q, first_q; /* record terminators; from Q: the first record */
  /* placement */
  int64_t first;      /* where its first record starts */
  int64_t ub;         /* records starting in it: at most ub */
  int64_t nrows;      /* records it holds */
  /* parse outcome: the tokenizer's earliest error */
  zb_status st;
  int kind;
  int64_t err_pos, err_nfields;
  badline *bad;       /* the first warnings->capacity bad lines */
  int64_t nbad, cap_bad;
} chunk;

/* A selected column: the builder's column of the same number. */
typedef struct colspec {
  const char *name;
  int64_t file_index;
  zb_type_id type;
  bool fixed; /* type given by dtype or parse_dates */
} colspec;

/* Per-worker scratch. */
typedef struct wscratch {
  uint64_t *idx, *idx2; /* batch x nsel field index (idx2: re-tokenizing) */
} wscratch;

#define MAX_WORKERS 4096

typedef struct reader {
  const zb_csv_options *o;
  csv_tok t;
  const char **na;  /* the NA strings: pandas' defaults and na_values */
  int64_t nna;
  int64_t data_start;
  int64_t ncols;    /* fields per record */
  char **names;     /* ncols final names (owned) */
  int64_t *first_of; /* file column -> the first column of its header name ("a" for "a.1") */
  int64_t *slot_of; /* file column -> selected slot or -1 */
  int64_t *cell_of; /* file column -> slot * batch (its cells in a batch index) or -1 */
  int64_t nsel;
  colspec *cols;
  chunk *chunks;
  int64_t nchunks;
  zb__builder *b;   /* the columns: nsel of them, one part per chunk */
  int64_t ub_total; /* output slots */
  int64_t limit;    /* max rows, -1 none */
  int64_t batch;    /* rows per batch */
  wscratch **ws;    /* MAX_WORKERS, allocated on first use by each worker */
  int64_t scanned, parsed; /* atomic: input bytes done per stage */
  int stop;                /* atomic: cancelled or out of memory */
} reader;

static bool cancelled(reader *r) {
  if (__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) return true;
  if (r->o->cancel != NULL && *r->o->cancel) {
    __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
    return true;
  }
  return false;
}

/* Progress from the calling thread (worker 0) only: the scan counts for a
 * quarter of the input, parsing for the rest. */
static void report_progress(reader *r, int worker) {
  if (worker != 0 || r->o->progress == NULL) return;
  int64_t total = r->t.n;
  int64_t s = __atomic_load_n(&r->scanned, __ATOMIC_RELAXED);
  int64_t p = __atomic_load_n(&r->parsed, __ATOMIC_RELAXED);
  int64_t done = s / 4 + p - p / 4;
  if (done > total) done = total;
  if (r->o->progress(r->o->progress_ctx, done, total) != 0)
    __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
}

static int64_t count_lines(const char *d, int64_t a, int64_t b) {
  int64_t n = 0;
  for (const char *p = d + a, *e = d + b; p < e;) {
    const char *q = (const char *)memchr(p, '\n', (size_t)(e - p));
    if (q == NULL) break;
    n++;
    p = q + 1;
  }
  return n;
}

static int64_t line_of(const reader *r, int64_t pos) {
  return (r->o->first_line > 0 ? r->o->first_line : 1) + count_lines(r->t.d, 0, pos);
}

static wscratch *scratch_of(reader *r, int worker) {
  if (worker < 0 || worker >= MAX_WORKERS) return NULL;
  if (r->ws[worker] == NULL) r->ws[worker] = (wscratch *)zb_calloc(1, sizeof(wscratch));
  return r->ws[worker];
}

/* ------------------------------------------------------------------------ */
/* NA strings                                                               */
/* ------------------------------------------------------------------------ */

/* The NA strings the builder compares values with: pandas' defaults when
 * keep_default_na, then na_values (borrowed). */
static zb_status na_init(reader *r, const zb_csv_options *o, zb_error *err) {
  int64_t n = (o->keep_default_na ? N_DEFAULT_NA : 0) + o->num_na_values;
  r->na = (const char **)zb_malloc((size_t)(n > 0 ? n : 1) * sizeof(char *));
  if (r->na == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV NA values)");
  int64_t k = 0;
  if (o->keep_default_na)
    for (int64_t i = 0; i < N_DEFAULT_NA; i++) r->na[k++] = k_default_na[i];
  for (int64_t i = 0; i < o->num_na_values; i++) {
    if (o->na_values[i] == NULL)
      return zb_error_set(err, ZB_EINVAL, "na_values[%lld] is NULL", (long long)i);
    r->na[k++] = o->na_values[i];
  }
  r->nna = n;
  return ZB_OK;
}

/* ------------------------------------------------------------------------ */
/* Scan: NUL bytes, quotes, ASCII, lines; the automaton where quotes occur  */
/* ------------------------------------------------------------------------ */

static void run_from(const csv_tok *t, chunk *c, int s) {
  int64_t first, terms;
  int e = zb__csv_run(t, c->start, c->end, s, c->nl, &first, &terms);
  if (s == CSV_S_REC) {
    c->end_s = e;
    c->term_s = terms;
  } else {
    c->end_q = e;
    c->term_q = terms;
    c->first_q = first;
    c->have_q = true;
  }
}

/* Without quotes or escapes: from S every record ends in the chunk (but
 * the input's last); from Q the quoted field never closes. */
static void run_plain(const csv_tok *t, chunk *c) {
  c->end_s = c->end > c->start && t->d[c->end - 1] != '\n' ? CSV_S_UNQ : CSV_S_REC;
  c->term_s = c->nl;
  c->end_q = CSV_S_QUO;
  c->term_q = 0;
  c->first_q = c->end;
  c->have_q = true;
}

static void scan_task(void *ctx, int64_t k, int worker) {
  reader *r = (reader *)ctx;
  chunk *c = &r->chunks[k];
  if (!cancelled(r)) {
    csv_scan sr; /* for the usual dialect, with the run from S */
    zb__csv_scan_bytes(&r->t, c->start, c->end, &sr);
    c->nul = sr.nul;
    c->nl = sr.nl;
    c->quoted = sr.quoted;
    c->ascii = sr.ascii;
    c->end_s = sr.end_s;
    c->term_s = sr.term_s;
    if (c->nul < 0) {
      if (!c->quoted)
        run_plain(&r->t, c);
      else if (!csv_fast_dialect(&r->t))
        run_from(&r->t, c, CSV_S_REC);
    }
  }
  __atomic_add_fetch(&r->scanned, c->end - c->start, __ATOMIC_RELAXED);
  report_progress(r, worker);
}

/* The run from Q of chunks whose predecessor's run from S ended inside
 * quotes (the usual way a chunk starts in Q). */
static void scan_q_task(void *ctx, int64_t k, int worker) {
  reader *r = (reader *)ctx;
  chunk *c = &r->chunks[k];
  (void)worker;
  if (k > 0 && !c->have_q && !cancelled(r)) {
    int e = r->chunks[k - 1].end_s;
    if (e == CSV_S_QUO || e == CSV_S_EQUO) run_from(&r->t, c, CSV_S_QUO);
  }
}

/* ------------------------------------------------------------------------ */
/* Chunks: cutting, placing, output buffers                                 */
/* ------------------------------------------------------------------------ */

static zb_status make_chunks(reader *r, zb_error *err) {
  const csv_tok *t = &r->t;
  int64_t a = r->data_start, len = t->n - a;
  int64_t target = r->o->chunk_size;
  if (target <= 0) {
    int64_t per = len / ((int64_t)zb_get_num_threads() * 8) + 1;
    target = ZB_MAX(per, (int64_t)1 << 20);
    target = ZB_MIN(target, (int64_t)4 << 20);
  }
  if (r->limit >= 0) target = len + 1; /* nrows: one sequential chunk */
  int64_t cap = len / target + 2;
  r->chunks = (chunk *)zb_calloc((size_t)cap, sizeof(chunk));
  if (r->chunks == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV chunks)");
  int64_t k = 0, s = a;
  while (s < t->n && k < cap) {
    int64_t e = t->n;
    int64_t q = s + target;
    while (q < t->n) {
      const char *nl = (const char *)memchr(t->d + q, '\n', (size_t)(t->n - q));
      if (nl == NULL) break;
      int64_t p = (int64_t)(nl - t->d);
      if (!t->esc || p == 0 || t->d[p - 1] != t->esc) {
        e = p + 1;
        break;
      }
      q = p + 1;
    }
    r->chunks[k].start = s;
    r->chunks[k].end = e;
    k++;
    s = e;
  }
  r->nchunks = k;
  return ZB_OK;
}

/* Sequentially: each chunk's real start state, first record and bound on
 * its records (the builder places each chunk's rows after the bounds of
 * the chunks before it). */
static void place_chunks(reader *r) {
  int state = CSV_S_REC;
  int64_t row = 0;
  for (int64_t k = 0; k < r->nchunks; k++) {
    chunk *c = &r->chunks[k];
    int e;
    int64_t terms;
    if (state == CSV_S_REC) {
      c->first = c->start;
      e = c->end_s;
      terms = c->term_s;
    } else {
      if (!c->have_q) run_from(&r->t, c, CSV_S_QUO); /* a quoted field spanning chunks */
      c->first = c->first_q;
      e = c->end_q;
      terms = c->term_q > 0 ? c->term_q - 1 : 0; /* the first ends the record begun before */
    }
    c->ub = c->first >= c->end ? 0 : terms + (e != CSV_S_REC);
    if (r->limit >= 0 && c->ub > r->limit - row) c->ub = r->limit - row;
    row += c->ub;
    state = (e == CSV_S_QUO || e == CSV_S_EQUO) ? CSV_S_QUO : CSV_S_REC;
  }
  r->ub_total = row;
}

/* The builder's text callbacks: quoted fields are decoded by
 * zb__csv_unquote, and a chunk's earlier records are tokenized again when
 * a column becomes a string column. */
static int64_t csv_decode(void *ctx, const char *s, int64_t n, char *out, int64_t cap) {
  return zb__csv_unquote(&((const reader *)ctx)->t, s, n, out, cap);
}

static int64_t csv_unquoted_length(void *ctx, const char *s, int64_t n) {
  return zb__csv_unquoted_length(&((const reader *)ctx)->t, s, n);
}

static zb_status csv_refetch(void *ctx, int64_t k, const int64_t *cols, int64_t ncols,
                             int64_t nrows, int worker);

/* The builder: one column per selected column, one part per chunk with
 * room for its bound on records; and the field index's layout. */
static zb_status alloc_outputs(reader *r, zb_error *err) {
  zb__builder_options bo;
  zb__builder_options_init(&bo);
  bo.label = "CSV";
  bo.text.decimal = r->o->decimal;
  bo.text.thousands = r->o->thousands;
  bo.text.na_values = r->na;
  bo.text.num_na_values = r->nna;
  bo.source.ctx = r;
  bo.source.decode = csv_decode;
  /* Unquoting without an escape character keeps at least (n - 2) / 2 bytes. */
  bo.source.decoded_length = r->t.esc ? NULL : csv_unquoted_length;
  bo.source.refetch = csv_refetch;
  ZB_RETURN_NOT_OK(zb__builder_new(r->nsel, r->nchunks, &bo, &r->b, err));
  for (int64_t j = 0; j < r->nsel; j++) {
    zb__builder_set_column(r->b, j, r->cols[j].name, r->cols[j].type, r->cols[j].fixed);
    if (!r->o->infer_dates && !r->cols[j].fixed)
      zb__builder_set_inference(r->b, j, ZB_INFER_ALL & ~ZB_INFER_DATES);
  }
  for (int64_t k = 0; k < r->nchunks; k++) {
    const chunk *c = &r->chunks[k];
    zb__text_part tp = {r->t.d + c->start, r->t.d + r->t.n,
                        c->ascii ? r->t.d + c->end : r->t.d + c->start};
    zb__builder_set_part(r->b, k, c->ub, c->start, &tp);
  }
  ZB_RETURN_NOT_OK(zb__builder_alloc(r->b, err));
  int64_t per = ((int64_t)256 << 10) / ((r->nsel > 0 ? r->nsel : 1) * 8);
  r->batch = per < 16 ? 16 : per > 16384 ? 16384 : per;
  if (r->o->chunk_size > 0) /* testing: batches of a few rows too */
    r->batch = ZB_MIN(r->batch, ZB_MAX(r->o->chunk_size / 64, (int64_t)2));
  r->batch = ZB_MAX(ZB_MIN(r->batch, r->ub_total), (int64_t)1); /* small inputs: small index */
  r->cell_of = (int64_t *)zb_malloc((size_t)(r->ncols > 0 ? r->ncols : 1) * sizeof(int64_t));
  if (r->cell_of == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV)");
  for (int64_t f = 0; f < r->ncols; f++)
    r->cell_of[f] = r->slot_of[f] < 0 ? -1 : r->slot_of[f] * r->batch;
  return ZB_OK;
}

/* ------------------------------------------------------------------------ */
/* Parse: tokenizing a batch                                                */
/* ------------------------------------------------------------------------ */

static void chunk_fail(chunk *c, zb_status st, int kind, int64_t pos) {
  if (c->st == ZB_OK || pos < c->err_pos) {
    c->st = st;
    c->kind = kind;
    c->err_pos = pos;
  }
}

/* A record with nf > ncols fields at rec: true to go on (it is dropped),
 * false to stop (an error, recorded in the chunk). */
static bool bad_line(reader *r, chunk *c, int64_t rec, int64_t nf) {
  if (r->o->on_bad_lines == ZB_CSV_BAD_LINES_ERROR) {
    chunk_fail(c, ZB_EPARSE, ERR_FIELDS, rec);
    if (c->err_pos == rec) c->err_nfields = nf;
    return false;
  }
  int64_t wcap = r->o->warnings ? r->o->warnings->capacity : 0;
  if (r->o->on_bad_lines == ZB_CSV_BAD_LINES_WARN && c->nbad < wcap) {
    if (c->nbad == c->cap_bad) {
      int64_t cap = c->cap_bad ? c->cap_bad * 2 : 8;
      if (cap > wcap) cap = wcap;
      badline *nb = (badline *)zb_malloc((size_t)cap * sizeof(badline));
      if (nb == NULL) {
        chunk_fail(c, ZB_ENOMEM, ERR_NOMEM, rec);
        return false;
      }
      if (c->nbad) memcpy(nb, c->bad, (size_t)c->nbad * sizeof(badline));
      zb_free(c->bad);
      c->bad = nb;
      c->cap_bad = cap;
    }
    c->bad[c->nbad].pos = rec;
    c->bad[c->nbad].nfields = nf;
  }
  c->nbad++;
  return true;
}

/* Tokenize up to maxrows records starting at *pos (and in the chunk) into
 * idx (column-major, r->batch rows per column).  Records with too many
 * fields are handled per on_bad_lines (recorded only if `record`).  Returns
 * the rows stored; *pos moves past them.  On an error the chunk records it
 * and the rows before the failing record are returned.  The record loop is
 * tok_record's, with the field store inlined.  Inlined with constant
 * `plain` (a chunk without quote or escape bytes, a dialect without a
 * comment character: a field simply runs to the next separator or '\n')
 * and `esc` (the dialect has an escape character). */
static inline __attribute__((always_inline)) int64_t tokenize_loop(
    reader *r, chunk *c, uint64_t *idx, int64_t *pos, int64_t maxrows, bool record,
    const bool plain, const bool esc) {
  const csv_tok *t = &r->t;
  const char *d = t->d;
  const int64_t n = t->n, end = c->end, cstart = c->start, ncols = r->ncols;
  const int64_t *cell_of = r->cell_of;
  const char sep = t->sep;
  const bool small = n - cstart <= (int64_t)ZB_CELL_MAXLEN; /* no offset or length can overflow */
  csv_scanner sc;
  csv_scanner_init(&sc);
  int64_t p = *pos, rows = 0;
  while (rows < maxrows && p < end) {
    int64_t next, rec = p;
    if (t->rstart[(uint8_t)d[p]] && csv_skip_line(t, p, &next)) {
      p = next;
      continue;
    }
    uint64_t *row = idx + rows;
    int64_t f = 0, fs = p;
    for (;;) {
      int flag = 0;
      int64_t q;
      if (plain) {
        q = csv_scan_next(t, &sc, fs, false);
      } else {
        bool unterminated = false;
        q = csv_scan_field(t, &sc, fs, &flag, &unterminated, esc);
        if (unterminated) {
          chunk_fail(c, ZB_EPARSE, ERR_UNTERMINATED, fs);
          goto out;
        }
      }
      bool last = q >= n || d[q] != sep;
      int64_t fe = q;
      if (last && fe > fs && d[fe - 1] == '\r') fe--;
      int64_t at = f < ncols ? cell_of[f] : -1;
      if (at >= 0) {
        if (!small && (fe - cstart > (int64_t)UINT32_MAX || fe - fs > (int64_t)ZB_CELL_MAXLEN)) {
          chunk_fail(c, ZB_ENOTSUP, ERR_TOOLONG, fs);
          goto out;
        }
        if (flag == 2) /* a quoted field with nothing to unquote but its quotes */
          row[at] = (uint64_t)(fs + 1 - cstart) | (uint64_t)(uint32_t)(fe - fs - 2) << 32;
        else
          row[at] = (uint64_t)(fs - cstart) |
                    (uint64_t)((uint32_t)(fe - fs) | (flag ? ZB_CELL_FLAG : 0)) << 32;
      }
      f++;
      if (last) {
        next = q >= n ? n : d[q] == '\n' ? q + 1 : csv_line_end(t, q); /* else a comment */
        break;
      }
      fs = q + 1;
    }
    if (f > ncols) {
      if (record && !bad_line(r, c, rec, f)) goto out;
      p = next;
      continue;
    }
    for (; f < ncols; f++) /* missing fields: null */
      if (cell_of[f] >= 0) row[cell_of[f]] = ZB_CELL_NULL;
    rows++;
    p = next;
  }
out:
  *pos = p;
  return rows;
}

static int64_t tokenize_batch(reader *r, chunk *c, uint64_t *idx, int64_t *pos,
                              int64_t maxrows, bool record) {
  if (r->t.esc) return tokenize_loop(r, c, idx, pos, maxrows, record, false, true);
  if (!c->quoted && !r->t.comment)
    return tokenize_loop(r, c, idx, pos, maxrows, record, true, false);
  return tokenize_loop(r, c, idx, pos, maxrows, record, false, false);
}

/* Tokenize the chunk's first nrows records again and hand the columns
 * cols[0, ncols) to the builder as strings (the builder's refetch). */
static zb_status csv_refetch(void *ctx, int64_t k, const int64_t *cols, int64_t ncols,
                             int64_t nrows, int worker) {
  reader *r = (reader *)ctx;
  chunk *c = &r->chunks[k];
  if (cancelled(r)) return ZB_OK; /* the read fails anyway */
  wscratch *ws = scratch_of(r, worker);
  if (ws == NULL) return ZB_ENOMEM;
  if (ws->idx2 == NULL) {
    ws->idx2 = (uint64_t *)zb_malloc((size_t)(r->batch * r->nsel) * sizeof(uint64_t));
    if (ws->idx2 == NULL) return ZB_ENOMEM;
  }
  int64_t pos = c->first, done = 0;
  while (done < nrows) {
    int64_t nb = tokenize_batch(r, c, ws->idx2, &pos, ZB_MIN(r->batch, nrows - done), false);
    if (nb == 0) break; /* cannot happen: these records were read before */
    for (int64_t q = 0; q < ncols; q++)
      ZB_RETURN_NOT_OK(zb__builder_text_again(r->b, k, cols[q], ws->idx2 + cols[q] * r->batch,
                                              done, nb, worker));
    done += nb;
  }
  return ZB_OK;
}

/* ------------------------------------------------------------------------ */
/* Parse: a chunk                                                           */
/* ------------------------------------------------------------------------ */

static void parse_task(void *ctx, int64_t k, int worker) {
  reader *r = (reader *)ctx;
  chunk *c = &r->chunks[k];
  wscratch *ws = scratch_of(r, worker);
  int64_t pos = c->first, rows = 0;
  if (ws == NULL) goto nomem;
  if (c->ub > 0 && ws->idx == NULL) {
    ws->idx = (uint64_t *)zb_malloc((size_t)(r->batch * r->nsel) * sizeof(uint64_t));
    if (ws->idx == NULL) goto nomem;
  }
  while (rows < c->ub && pos < c->end) {
    if (cancelled(r)) goto done;
    int64_t nb = tokenize_batch(r, c, ws->idx, &pos, ZB_MIN(r->batch, c->ub - rows), true);
    for (int64_t j = 0; j < r->nsel; j++)
      if (zb__builder_text(r->b, k, j, ws->idx + j * r->batch, rows, nb, worker) != ZB_OK)
        goto nomem;
    rows += nb;
    if (c->st != ZB_OK || zb__builder_error(r->b, k) != NULL) break;
  }
  c->nrows = rows;
  zb__builder_part_done(r->b, k, rows);
  if (c->st == ZB_OK && zb__builder_error(r->b, k) == NULL && r->limit < 0) {
    /* Nothing but blank or comment lines may remain (else the bound was wrong). */
    int64_t next;
    while (pos < c->end && r->t.rstart[(uint8_t)r->t.d[pos]] && csv_skip_line(&r->t, pos, &next))
      pos = next;
    if (pos < c->end) chunk_fail(c, ZB_EPARSE, ERR_BOUND, pos);
  }
  goto done;
nomem:
  chunk_fail(c, ZB_ENOMEM, ERR_NOMEM, c->start);
  __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
done:
  __atomic_add_fetch(&r->parsed, c->end - c->start, __ATOMIC_RELAXED);
  report_progress(r, worker);
}

/* ------------------------------------------------------------------------ */
/* Prologue: options, header, names                                         */
/* ------------------------------------------------------------------------ */

static zb_status check_options(const zb_csv_options *o, zb_error *err) {
  char cs[6] = {o->sep, o->quotechar, o->escapechar, o->comment, o->thousands, o->decimal};
  static const char *const what[6] = {"sep", "quotechar", "escapechar", "comment",
                                      "thousands", "decimal"};
  if (o->sep == 0) return zb_error_set(err, ZB_EINVAL, "CSV sep must not be NUL");
  if (o->decimal == 0) return zb_error_set(err, ZB_EINVAL, "CSV decimal must not be NUL");
  for (int i = 0; i < 6; i++) {
    if (cs[i] == '\n' || cs[i] == '\r')
      return zb_error_set(err, ZB_EINVAL, "CSV %s must not be a line break", what[i]);
    for (int j = 0; j < i; j++)
      if (cs[i] != 0 && cs[i] == cs[j])
        return zb_error_set(err, ZB_EINVAL, "CSV %s and %s are the same character '%c'",
                            what[j], what[i], cs[i]);
  }
  if (o->header < -1) return zb_error_set(err, ZB_EINVAL, "CSV header must be >= -1");
  if (o->skiprows < 0) return zb_error_set(err, ZB_EINVAL, "CSV skiprows must be >= 0");
  if (o->nrows < -1) return zb_error_set(err, ZB_EINVAL, "CSV nrows must be >= -1");
  if (o->num_names < 0 || (o->num_names > 0 && o->names == NULL) || o->num_usecols_index < 0 ||
      (o->num_usecols_index > 0 && o->usecols_index == NULL) || o->num_usecols_names < 0 ||
      (o->num_usecols_names > 0 && o->usecols_names == NULL) || o->num_dtypes < 0 ||
      (o->num_dtypes > 0 && o->dtypes == NULL) || o->num_parse_dates < 0 ||
      (o->num_parse_dates > 0 && o->parse_dates == NULL) || o->num_na_values < 0 ||
      (o->num_na_values > 0 && o->na_values == NULL))
    return zb_error_set(err, ZB_EINVAL, "CSV option list with a negative count or no items");
  if (o->num_usecols_index > 0 && o->num_usecols_names > 0)
    return zb_error_set(err, ZB_EINVAL, "CSV usecols by index and by name are exclusive");
  if ((int)o->on_bad_lines < 0 || o->on_bad_lines > ZB_CSV_BAD_LINES_SKIP)
    return zb_error_set(err, ZB_EINVAL, "CSV on_bad_lines is invalid");
  for (int64_t i = 0; i < o->num_names; i++)
    if (o->names[i] == NULL)
      return zb_error_set(err, ZB_EINVAL, "CSV names[%lld] is NULL", (long long)i);
  for (int64_t i = 0; i < o->num_dtypes; i++)
    if (o->dtypes[i].name == NULL || (int)o->dtypes[i].type < 0 ||
        o->dtypes[i].type >= ZB_TYPE_COUNT)
      return zb_error_set(err, ZB_EINVAL, "CSV dtypes[%lld] has no name or a bad type",
                          (long long)i);
  return ZB_OK;
}

static char *dup_n(const char *s, int64_t n) {
  char *p = (char *)zb_malloc((size_t)n + 1);
  if (p == NULL) return NULL;
  memcpy(p, s, (size_t)n);
  p[n] = '\0';
  return p;
}

static bool name_taken(char **names, int64_t upto, const char *s) {
  for (int64_t j = 0; j < upto; j++)
    if (strcmp(names[j], s) == 0) return true;
  return false;
}

/* Make names[0..n) unique the way pandas does: "a", "a.1", "a.2";
 * first_of[i]: the column whose name column i repeated (i itself if none).
 * A new name differs from every name in the header, so the earlier column
 * with column i's name is the first of that name. */
static zb_status dedupe_names(char **names, int64_t n, int64_t *first_of, zb_error *err) {
  for (int64_t i = 0; i < n; i++) first_of[i] = i;
  for (int64_t i = 1; i < n; i++) {
    int64_t j = 0;
    while (j < i && strcmp(names[j], names[i]) != 0) j++;
    if (j == i) continue;
    first_of[i] = j;
    size_t len = strlen(names[i]);
    char *nn = (char *)zb_malloc(len + 24);
    if (nn == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV names)");
    for (long long k = 1;; k++) {
      snprintf(nn, len + 24, "%s.%lld", names[i], k);
      if (!name_taken(names, i, nn) && !name_taken(names + i + 1, n - i - 1, nn)) break;
    }
    zb_free(names[i]);
    names[i] = nn;
  }
  return ZB_OK;
}

static zb_status read_header(reader *r, int64_t pos, zb_error *err) {
  const zb_csv_options *o = r->o;
  const csv_tok *t = &r->t;
  csv_fieldbuf fb = {NULL, 0, 0};
  csv_scanner sc;
  csv_scanner_init(&sc);
  zb_status st = ZB_OK;
  int64_t next = pos, errpos = pos, hdr_fields = -1, nrec = 0;
  int rc = CSV_REC_NONE;
  /* The header record (header >= 0) or the first record (to count fields). */
  while (pos < t->n) {
    rc = zb__csv_parse_record(t, &sc, pos, &fb, &next, &errpos);
    if (rc == CSV_REC_NOMEM) {
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV header)");
      goto done;
    }
    if (rc == CSV_REC_UNTERMINATED) {
      st = zb_error_set(err, ZB_EPARSE, "CSV line %lld: unterminated quoted field",
                        (long long)line_of(r, errpos));
      goto done;
    }
    if (rc == CSV_REC_OK) {
      if (o->header < 0 || nrec == o->header) break;
      nrec++;
    }
    pos = next;
    rc = CSV_REC_NONE;
  }
  if (rc == CSV_REC_OK) hdr_fields = fb.n;
  if (o->header >= 0) r->data_start = rc == CSV_REC_OK ? next : t->n;
  else r->data_start = pos;
  if (o->num_names > 0)
    r->ncols = o->num_names;
  else
    r->ncols = hdr_fields < 0 ? 0 : hdr_fields;
  int64_t nc = r->ncols;
  r->names = (char **)zb_calloc((size_t)(nc > 0 ? nc : 1), sizeof(char *));
  if (r->names == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV names)");
    goto done;
  }
  for (int64_t i = 0; i < nc; i++) {
    char buf[48];
    if (o->num_names > 0) {
      r->names[i] = dup_n(o->names[i], (int64_t)strlen(o->names[i]));
    } else if (o->header >= 0) {
      int64_t s = fb.v[3 * i], e = fb.v[3 * i + 1];
      r->names[i] = (char *)zb_malloc((size_t)(e - s) + 1);
      if (r->names[i] != NULL) {
        int64_t len = zb__csv_unquote(t, t->d + s, e - s, r->names[i], e - s);
        r->names[i][len] = '\0';
        if (!zb__text_utf8_valid((const unsigned char *)r->names[i], len)) {
          st = zb_error_set(err, ZB_EPARSE, "CSV line %lld: header column %lld is not valid UTF-8",
                            (long long)line_of(r, s), (long long)i);
          goto done;
        }
        if (len == 0) {
          zb_free(r->names[i]);
          snprintf(buf, sizeof buf, "Unnamed: %lld", (long long)i);
          r->names[i] = dup_n(buf, (int64_t)strlen(buf));
        }
      }
    } else {
      snprintf(buf, sizeof buf, "%lld", (long long)i);
      r->names[i] = dup_n(buf, (int64_t)strlen(buf));
    }
    if (r->names[i] == NULL) {
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV names)");
      goto done;
    }
  }
  r->first_of = (int64_t *)zb_malloc((size_t)(nc > 0 ? nc : 1) * sizeof(int64_t));
  st = r->first_of == NULL ? zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV names)")
                           : dedupe_names(r->names, nc, r->first_of, err);
done:
  zb_free(fb.v);
  return st;
}

static bool dtype_named(const zb_csv_options *o, const char *name) {
  for (int64_t k = 0; k < o->num_dtypes; k++)
    if (strcmp(o->dtypes[k].name, name) == 0) return true;
  return false;
}

static int64_t find_name(const reader *r, const char *name) {
  for (int64_t i = 0; i < r->ncols; i++)
    if (strcmp(r->names[i], name) == 0) return i;
  return -1;
}

static zb_status select_columns(reader *r, zb_error *err) {
  const zb_csv_options *o = r->o;
  int64_t nc = r->ncols;
  r->slot_of = (int64_t *)zb_malloc((size_t)(nc > 0 ? nc : 1) * sizeof(int64_t));
  if (r->slot_of == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV)");
  bool all = o->num_usecols_index == 0 && o->num_usecols_names == 0;
  for (int64_t i = 0; i < nc; i++) r->slot_of[i] = all ? 0 : -1;
  for (int64_t k = 0; k < o->num_usecols_index; k++) {
    int64_t i = o->usecols_index[k];
    if (i < 0 || i >= nc)
      return zb_error_set(err, ZB_EINDEX, "CSV usecols index %lld out of range (%lld columns)",
                          (long long)i, (long long)nc);
    r->slot_of[i] = 0;
  }
  for (int64_t k = 0; k < o->num_usecols_names; k++) {
    if (o->usecols_names[k] == NULL)
      return zb_error_set(err, ZB_EINVAL, "CSV usecols name %lld is NULL", (long long)k);
    int64_t i = find_name(r, o->usecols_names[k]);
    if (i < 0)
      return zb_error_set(err, ZB_EKEY, "CSV usecols: no column named '%s'", o->usecols_names[k]);
    r->slot_of[i] = 0;
  }
  r->nsel = 0;
  for (int64_t i = 0; i < nc; i++)
    if (r->slot_of[i] == 0) r->slot_of[i] = r->nsel++;
  r->cols = (colspec *)zb_calloc((size_t)(r->nsel > 0 ? r->nsel : 1), sizeof(colspec));
  if (r->cols == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV)");
  for (int64_t i = 0; i < nc; i++) {
    int64_t s = r->slot_of[i];
    if (s < 0) continue;
    r->cols[s].name = r->names[i];
    r->cols[s].file_index = i;
    r->cols[s].type = ZB_STRING;
  }
  for (int64_t k = 0; k < o->num_parse_dates; k++) {
    const char *nm = o->parse_dates[k];
    int64_t i = nm ? find_name(r, nm) : -1;
    if (i < 0)
      return zb_error_set(err, ZB_EKEY, "CSV parse_dates: no column named '%s'", nm ? nm : "");
    if (r->slot_of[i] >= 0) {
      r->cols[r->slot_of[i]].type = ZB_TIMESTAMP;
      r->cols[r->slot_of[i]].fixed = true;
    }
  }
  for (int64_t k = 0; k < o->num_dtypes; k++) {
    int64_t i = find_name(r, o->dtypes[k].name);
    if (i < 0)
      return zb_error_set(err, ZB_EKEY, "CSV dtype: no column named '%s'", o->dtypes[k].name);
    /* as pandas: a header name's dtype is also its repeats' ("a.1", "a.2"),
     * unless the dtypes name a repeat itself */
    for (int64_t j = i; j < r->ncols; j++) {
      if (j != i && (r->first_of[j] != i || dtype_named(o, r->names[j]))) continue;
      if (r->slot_of[j] >= 0) {
        r->cols[r->slot_of[j]].type = o->dtypes[k].type;
        r->cols[r->slot_of[j]].fixed = true;
      }
    }
  }
  return ZB_OK;
}

/* ------------------------------------------------------------------------ */
/* Finish: errors, warnings, the builder's columns                          */
/* ------------------------------------------------------------------------ */

static zb_status nul_error(const reader *r, int64_t pos, zb_error *err) {
  const char *d = r->t.d;
  int64_t ls = pos;
  while (ls > 0 && d[ls - 1] != '\n') ls--;
  return zb_error_set(err, ZB_EPARSE, "CSV line %lld, character %lld: NUL byte in the input",
                      (long long)line_of(r, pos), (long long)(pos - ls + 1));
}

/* The earliest error of the parse, if any: the tokenizer's (per chunk)
 * and the builder's (per part, a chunk's values). */
static zb_status parse_error(reader *r, zb_error *err) {
  for (int64_t k = 0; k < r->nchunks; k++)
    if (r->chunks[k].kind == ERR_NOMEM)
      return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV parser)");
  if (cancelled(r)) return zb_error_set(err, ZB_ECANCEL, "CSV read cancelled");
  const chunk *best = NULL;
  const zb__build_error *bv = NULL;
  int64_t at = 0;
  for (int64_t k = 0; k < r->nchunks; k++) {
    const chunk *c = &r->chunks[k];
    const zb__build_error *e = r->b ? zb__builder_error(r->b, k) : NULL;
    /* The earliest; at one position the tokenizer's (it was recorded first). */
    if (c->st != ZB_OK && ((best == NULL && bv == NULL) || c->err_pos < at))
      best = c, bv = NULL, at = c->err_pos;
    if (e != NULL && ((best == NULL && bv == NULL) || e->pos < at))
      best = NULL, bv = e, at = e->pos;
  }
  if (best == NULL && bv == NULL) return ZB_OK;
  long long line = (long long)line_of(r, at);
  if (bv != NULL) {
    const colspec *ci = &r->cols[bv->col];
    switch (bv->kind) {
      case ZB_BUILD_ERR_UTF8:
        return zb_error_set(err, ZB_EPARSE, "CSV line %lld, column '%s': invalid UTF-8", line,
                            ci->name);
      case ZB_BUILD_ERR_OVERFLOW:
        return zb_error_set(err, ZB_EOVERFLOW,
                            "CSV line %lld, column '%s': value '%s' out of range for %s", line,
                            ci->name, bv->text, zb_type_name(ci->type));
      default:
        return zb_error_set(err, ZB_EPARSE,
                            "CSV line %lld, column '%s': cannot parse '%s' as %s", line, ci->name,
                            bv->text, zb_type_name(ci->type));
    }
  }
  switch (best->kind) {
    case ERR_UNTERMINATED:
      return zb_error_set(err, ZB_EPARSE,
                          "CSV line %lld: quoted field is not terminated before the end of the "
                          "input",
                          line);
    case ERR_FIELDS:
      return zb_error_set(err, ZB_EPARSE, "CSV line %lld: expected %lld fields, saw %lld", line,
                          (long long)r->ncols, (long long)best->err_nfields);
    case ERR_TOOLONG:
      return zb_error_set(err, ZB_ENOTSUP, "CSV line %lld: field or record longer than 2 GiB",
                          line);
    default:
      return zb_error_set(err, ZB_EPARSE,
                          "CSV line %lld: more records than the scan counted (a reader bug)",
                          line);
  }
}

static void collect_warnings(reader *r) {
  zb_csv_warnings *w = r->o->warnings;
  if (w == NULL) return;
  w->count = 0;
  w->total = 0;
  int64_t line = r->o->first_line > 0 ? r->o->first_line : 1, at = 0;
  for (int64_t k = 0; k < r->nchunks; k++) {
    chunk *c = &r->chunks[k];
    w->total += c->nbad;
    for (int64_t i = 0; i < c->nbad && i < c->cap_bad && w->count < w->capacity; i++) {
      badline *b = &c->bad[i];
      line += count_lines(r->t.d, at, b->pos);
      at = b->pos;
      zb_csv_warning *wi = &w->items[w->count++];
      wi->line = line;
      snprintf(wi->message, sizeof wi->message, "Skipping line %lld: expected %lld fields, saw %lld",
               (long long)line, (long long)r->ncols, (long long)b->nfields);
    }
  }
}

/* The columns: the builder moves the chunks' rows together (blank and
 * comment lines and dropped bad lines leave gaps), settles each inferred
 * column's type over the whole file and converts the chunks that chose a
 * narrower one (re-tokenizing them for string columns), then copies the
 * strings out of the input.  On success cols[0, nsel) are the caller's. */
static zb_status finish_columns(reader *r, zb_column **cols, zb_error *err) {
  ZB_RETURN_NOT_OK(zb__builder_resolve(r->b, err));
  if (r->nchunks > 0) ZB_RETURN_NOT_OK(parse_error(r, err));
  return zb__builder_finish(r->b, cols, err);
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */
/* ------------------------------------------------------------------------ */

static void reader_free(reader *r) {
  if (r->names)
    for (int64_t i = 0; i < r->ncols; i++) zb_free(r->names[i]);
  zb_free(r->names);
  zb_free(r->first_of);
  zb_free(r->slot_of);
  zb_free(r->cell_of);
  zb_free(r->cols);
  zb__builder_release(r->b);
  if (r->chunks)
    for (int64_t k = 0; k < r->nchunks; k++) zb_free(r->chunks[k].bad);
  zb_free(r->chunks);
  if (r->ws)
    for (int w = 0; w < MAX_WORKERS; w++) {
      wscratch *ws = r->ws[w];
      if (ws == NULL) continue;
      zb_free(ws->idx);
      zb_free(ws->idx2);
      zb_free(ws);
    }
  zb_free(r->ws);
  zb_free((void *)r->na);
}

static zb_status find_nul(const reader *r, int64_t a, int64_t b, zb_error *err) {
  if (b <= a) return ZB_OK;
  const char *z = (const char *)memchr(r->t.d + a, 0, (size_t)(b - a));
  return z ? nul_error(r, (int64_t)(z - r->t.d), err) : ZB_OK;
}

/* Stages 2-4: chunks, scan, placement, parse. */
static zb_status parse_chunks(reader *r, zb_error *err) {
  ZB_RETURN_NOT_OK(make_chunks(r, err));
  ZB_RETURN_NOT_OK(zb_parallel_for(r->nchunks, scan_task, r, err));
  report_progress(r, 0);
  if (cancelled(r)) return zb_error_set(err, ZB_ECANCEL, "CSV read cancelled");
  for (int64_t k = 0; k < r->nchunks; k++)
    if (r->chunks[k].nul >= 0) return nul_error(r, r->chunks[k].nul, err);
  bool spans = false;
  for (int64_t k = 0; k + 1 < r->nchunks; k++)
    spans |= r->chunks[k].end_s == CSV_S_QUO || r->chunks[k].end_s == CSV_S_EQUO;
  if (spans) ZB_RETURN_NOT_OK(zb_parallel_for(r->nchunks, scan_q_task, r, err));
  place_chunks(r);
  ZB_RETURN_NOT_OK(alloc_outputs(r, err));
  ZB_RETURN_NOT_OK(zb_parallel_for(r->nchunks, parse_task, r, err));
  report_progress(r, 0);
  ZB_RETURN_NOT_OK(parse_error(r, err));
  collect_warnings(r);
  return ZB_OK;
}

static zb_status read_impl(reader *r, const char *data, int64_t size, zb_table **out,
                           zb_error *err) {
  const zb_csv_options *o = r->o;
  if (size >= 3 && (uint8_t)data[0] == 0xEF && (uint8_t)data[1] == 0xBB &&
      (uint8_t)data[2] == 0xBF)
    data += 3, size -= 3;
  zb__csv_tok_init(&r->t, data, size, o);
  r->ws = (wscratch **)zb_calloc(MAX_WORKERS, sizeof(wscratch *));
  if (r->ws == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV)");
  ZB_RETURN_NOT_OK(na_init(r, o, err));
  int64_t pos = 0;
  for (int64_t i = 0; i < o->skiprows && pos < size; i++) pos = csv_line_end(&r->t, pos);
  r->limit = o->nrows;
  zb_status st = read_header(r, pos, err);
  if (st != ZB_OK) {
    /* A NUL byte anywhere is reported first, as when the header is fine. */
    ZB_RETURN_NOT_OK(find_nul(r, 0, size, err));
    return st;
  }
  ZB_RETURN_NOT_OK(find_nul(r, 0, r->data_start, err));
  ZB_RETURN_NOT_OK(select_columns(r, err));
  if (r->ncols > 0 && r->data_start < size && r->limit != 0) {
    ZB_RETURN_NOT_OK(parse_chunks(r, err));
  } else {
    ZB_RETURN_NOT_OK(find_nul(r, r->data_start, size, err));
    ZB_RETURN_NOT_OK(alloc_outputs(r, err));
  }
  size_t nout = (size_t)(r->nsel > 0 ? r->nsel : 1);
  zb_column **cols = (zb_column **)zb_calloc(nout, sizeof(zb_column *));
  const char **names = (const char **)zb_malloc(nout * sizeof(char *));
  if (cols == NULL || names == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV table)");
  } else {
    st = finish_columns(r, cols, err);
    report_progress(r, 0);
    if (st == ZB_OK && cancelled(r)) st = zb_error_set(err, ZB_ECANCEL, "CSV read cancelled");
    for (int64_t j = 0; j < r->nsel; j++) names[j] = r->cols[j].name;
    if (st == ZB_OK) st = zb_table_make(r->nsel, cols, names, out, err);
    for (int64_t j = 0; j < r->nsel; j++) zb_column_release(cols[j]);
  }
  zb_free(cols);
  zb_free((void *)names);
  if (st == ZB_OK && o->progress && o->progress(o->progress_ctx, size, size) != 0) {
    zb_table_release(*out);
    *out = NULL;
    st = zb_error_set(err, ZB_ECANCEL, "CSV read cancelled");
  }
  return st;
}

zb_status zb_csv_read_buffer(const char *data, int64_t size, const zb_csv_options *opts,
                             zb_table **out, zb_error *err) {
  ZB_NAME_OP("read_csv");
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "CSV: out is NULL");
  *out = NULL;
  if (size < 0 || (data == NULL && size > 0))
    return zb_error_set(err, ZB_EINVAL, "CSV: invalid buffer (size %lld)", (long long)size);
  zb_csv_options defaults;
  if (opts == NULL) {
    zb_csv_options_init(&defaults);
    opts = &defaults;
  }
  ZB_RETURN_NOT_OK(check_options(opts, err));
  reader *r = (reader *)zb_calloc(1, sizeof(reader));
  if (r == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV)");
  r->o = opts;
  char *lf = NULL; /* lines ending in a lone '\r', as '\n' */
  zb_status st = zb_csv_cr_lines(data, size, opts, &lf, err);
  if (st == ZB_OK) st = read_impl(r, lf ? lf : data ? data : "", size, out, err);
  reader_free(r);
  zb_free(r);
  zb_free(lf);
  return st;
}

/* The contents of file `path`, decompressed first if they are zstd. */
static zb_status read_data(const char *path, const char *data, int64_t size,
                           const zb_csv_options *opts, zb_table **out, zb_error *err) {
  zb_compression c = zb_compression_detect(data, size);
  if (c == ZB_COMPRESSION_GZIP)
    return zb_error_set(err, ZB_ENOTSUP,
                        "'%s' is gzip-compressed: the reader decompresses zstd but not "
                        "gzip; decompress it first (from Python: read_csv(..., "
                        "compression='gzip'), which a name ending in .gz implies)",
                        path);
  if (c != ZB_COMPRESSION_ZSTD) return zb_csv_read_buffer(data, size, opts, out, err);
  zb_buffer *plain = NULL;
  zb_status st = zb_zstd_decompress(data, size, opts ? opts->cancel : NULL, &plain, err);
  if (st != ZB_OK) {
    if (err != NULL && st != ZB_ECANCEL && st != ZB_ENOMEM) {
      char msg[sizeof err->message];
      snprintf(msg, sizeof msg, "%s", err->message);
      zb_error_set(err, st, "'%s': %s", path, msg);
    }
    return st;
  }
  st = zb_csv_read_buffer((const char *)plain->data, plain->size, opts, out, err);
  zb_buffer_release(plain);
  return st;
}

zb_status zb_csv_read_file(const char *path, const zb_csv_options *opts, zb_table **out,
                           zb_error *err) {
  ZB_NAME_OP("read_csv");
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "CSV: out is NULL");
  *out = NULL;
  if (path == NULL) return zb_error_set(err, ZB_EINVAL, "CSV: path is NULL");
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return zb_error_set(err, ZB_EIO, "cannot open '%s': %s", path, strerror(errno));
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    int e = errno;
    close(fd);
    return zb_error_set(err, ZB_EIO, "cannot stat '%s': %s", path, strerror(e));
  }
  if (S_ISDIR(sb.st_mode)) {
    close(fd);
    return zb_error_set(err, ZB_EIO, "'%s' is a directory", path);
  }
  zb_status st;
  if (S_ISREG(sb.st_mode) && sb.st_size > 0) {
    void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m != MAP_FAILED) {
      close(fd);
      madvise(m, (size_t)sb.st_size, MADV_SEQUENTIAL);
      st = read_data(path, (const char *)m, (int64_t)sb.st_size, opts, out, err);
      munmap(m, (size_t)sb.st_size);
      return st;
    }
  }
  /* Not mappable (pipe, device, empty or special file): read() it all. */
  int64_t cap = 1 << 16, n = 0;
  char *buf = (char *)zb_malloc((size_t)cap);
  if (buf == NULL) {
    close(fd);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (reading '%s')", path);
  }
  for (;;) {
    if (n == cap) {
      char *nb = (char *)zb_malloc((size_t)cap * 2);
      if (nb == NULL) {
        zb_free(buf);
        close(fd);
        return zb_error_set(err, ZB_ENOMEM, "out of host memory (reading '%s')", path);
      }
      memcpy(nb, buf, (size_t)n);
      zb_free(buf);
      buf = nb;
      cap *= 2;
    }
    ssize_t got = read(fd, buf + n, (size_t)(cap - n));
    if (got < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      zb_free(buf);
      close(fd);
      return zb_error_set(err, ZB_EIO, "cannot read '%s': %s", path, strerror(e));
    }
    if (got == 0) break;
    n += got;
  }
  close(fd);
  st = read_data(path, buf, n, opts, out, err);
  zb_free(buf);
  return st;
}

/* ------------------------------------------------------------------------ */
/* Row boundaries, for readers in pieces                                    */
/* ------------------------------------------------------------------------ */

zb_status zb_csv_data_start(const char *data, int64_t size, const zb_csv_options *opts,
                            int64_t *offset, int64_t *lines, zb_error *err) {
  if (offset == NULL || lines == NULL)
    return zb_error_set(err, ZB_EINVAL, "CSV: offset or lines is NULL");
  if (size < 0 || (data == NULL && size > 0))
    return zb_error_set(err, ZB_EINVAL, "CSV: invalid buffer (size %lld)", (long long)size);
  zb_csv_options defaults;
  if (opts == NULL) {
    zb_csv_options_init(&defaults);
    opts = &defaults;
  }
  ZB_RETURN_NOT_OK(check_options(opts, err));
  if (data == NULL) data = "";
  char *lf = NULL; /* lines ending in a lone '\r', as '\n' */
  ZB_RETURN_NOT_OK(zb_csv_cr_lines(data, size, opts, &lf, err));
  if (lf != NULL) data = lf;
  int64_t bom = 0;
  if (size >= 3 && (uint8_t)data[0] == 0xEF && (uint8_t)data[1] == 0xBB &&
      (uint8_t)data[2] == 0xBF)
    bom = 3;
  csv_tok t;
  zb__csv_tok_init(&t, data + bom, size - bom, opts);
  int64_t pos = 0;
  for (int64_t i = 0; i < opts->skiprows && pos < t.n; i++) {
    const char *q = (const char *)memchr(t.d + pos, '\n', (size_t)(t.n - pos));
    pos = q ? (int64_t)(q - t.d) + 1 : t.n;
  }
  if (opts->header >= 0) {
    csv_fieldbuf fb = {NULL, 0, 0};
    csv_scanner sc;
    csv_scanner_init(&sc);
    int64_t nrec = 0, next = pos, errpos = pos;
    while (pos < t.n) {
      int rc = zb__csv_parse_record(&t, &sc, pos, &fb, &next, &errpos);
      if (rc == CSV_REC_NOMEM) {
        zb_free(fb.v);
        zb_free(lf);
        return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV header)");
      }
      if (rc == CSV_REC_UNTERMINATED) {
        next = t.n;
      }
      pos = next;
      if (rc != CSV_REC_NONE && nrec++ == opts->header) break;
    }
    zb_free(fb.v);
  }
  *offset = bom + pos;
  *lines = count_lines(t.d, 0, pos);
  zb_free(lf);
  return ZB_OK;
}

zb_status zb_csv_find_rows(const char *data, int64_t size, const zb_csv_options *opts,
                           int64_t start, int64_t nrows, int64_t *end, int64_t *rows,
                           int64_t *lines, zb_error *err) {
  if (end == NULL || rows == NULL || lines == NULL)
    return zb_error_set(err, ZB_EINVAL, "CSV: end, rows or lines is NULL");
  if (size < 0 || (data == NULL && size > 0) || start < 0 || start > size || nrows < 0)
    return zb_error_set(err, ZB_EINVAL, "CSV: invalid buffer, start or nrows (%lld, %lld, %lld)",
                        (long long)size, (long long)start, (long long)nrows);
  zb_csv_options defaults;
  if (opts == NULL) {
    zb_csv_options_init(&defaults);
    opts = &defaults;
  }
  ZB_RETURN_NOT_OK(check_options(opts, err));
  if (data == NULL) data = "";
  char *lf = NULL; /* lines ending in a lone '\r', as '\n' */
  ZB_RETURN_NOT_OK(zb_csv_cr_lines(data, size, opts, &lf, err));
  if (lf != NULL) data = lf;
  csv_tok t;
  zb__csv_tok_init(&t, data, size, opts);
  csv_fieldbuf fb = {NULL, 0, 0};
  csv_scanner sc;
  csv_scanner_init(&sc);
  int64_t pos = start, n = 0;
  while (n < nrows && pos < size) {
    int64_t next = pos, errpos = pos;
    int rc = zb__csv_parse_record(&t, &sc, pos, &fb, &next, &errpos);
    if (rc == CSV_REC_NOMEM) {
      zb_free(fb.v);
      zb_free(lf);
      return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV rows)");
    }
    if (rc == CSV_REC_UNTERMINATED) {
      next = size;
      rc = CSV_REC_OK;
    }
    if (rc == CSV_REC_OK) n++;
    pos = next;
  }
  zb_free(fb.v);
  *end = pos;
  *rows = n;
  *lines = count_lines(data, start, pos);
  zb_free(lf);
  return ZB_OK;
}
