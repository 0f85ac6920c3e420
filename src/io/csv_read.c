/*
 * csv_read.c -- the parallel CSV reader: zb_csv_read_buffer / _file.
 *
 * Stages (each parallel stage is one zb_parallel_for):
 *   1. prologue (sequential): skip the BOM, reject NUL bytes, skip `skiprows`
 *      lines, read the header record, settle the column names and the
 *      selected columns.
 *   2. chunking: the data is cut into chunks that each start right after a
 *      '\n' (one not preceded by the escape character).  At such a point the
 *      tokenizer is either at the start of a record (S) or inside a quoted
 *      field (Q) -- nothing else.  Pass 1 runs the tokenizer's state machine
 *      (dfa_run) over every chunk from both S and Q, giving each chunk a map
 *      {S,Q} -> {S,Q} and, from Q, where its first record starts; a
 *      sequential walk over the chunks then fixes every chunk's real start.
 *   3. pass 2: each chunk tokenizes the records that START inside it (the
 *      last one may run past its end) into a row-major matrix of cells
 *      (start offset relative to the chunk, length + "needs unquoting" bit;
 *      missing fields are marked), one row per record, selected columns only.
 *      Blank and comment lines vanish here; rows with too many fields are
 *      handled per on_bad_lines.
 *   4. per column and morsel of ZB_MORSEL_ROWS rows (a multiple of 64, so
 *      morsels never share a bitmap byte): type inference over every value,
 *      then conversion into the column's buffers (strings: a sizing pass,
 *      then a copy pass).  Categoricals are dictionary-encoded afterwards.
 * The tokenizer (parse_record) and dfa_run implement the same automaton:
 * a quote opens a quoted field only at the start of a field; inside one,
 * a doubled quote (doublequote) or escapechar+char is literal; text after
 * the closing quote is appended; separators, '\n' and the comment char end
 * fields outside quotes; a '\r' before '\n' is dropped.
 *
 * Errors found by parallel tasks are kept per task and the one earliest in
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

#include "io/csv_internal.h"
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
  o->nrows = -1;
  o->on_bad_lines = ZB_CSV_BAD_LINES_ERROR;
  o->first_line = 1;
}

static const char *const k_default_na[] = {
    "",     "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A",  "NA",       "NULL", "NaN",    "None",     "n/a",  "nan",  "null"};
#define N_DEFAULT_NA ((int64_t)(sizeof k_default_na / sizeof k_default_na[0]))

/* ------------------------------------------------------------------------ */
/* Tokenizer                                                                */
/* ------------------------------------------------------------------------ */

typedef struct tok {
  const char *d; /* the input after the BOM */
  int64_t n;
  char sep, quote, esc, comment;
  bool dq;
  uint8_t special[256];  /* stops the unquoted scan: sep, '\n', esc, comment */
  uint8_t qspecial[256]; /* stops the quoted scan: quote, esc */
} tok;

static void tok_init(tok *t, const char *d, int64_t n, const zb_csv_options *o) {
  memset(t, 0, sizeof *t);
  t->d = d;
  t->n = n;
  t->sep = o->sep;
  t->quote = o->quotechar;
  t->esc = o->escapechar;
  t->comment = o->comment;
  t->dq = o->doublequote;
  t->special[(uint8_t)'\n'] = 1;
  t->special[(uint8_t)t->sep] = 1;
  if (t->esc) t->special[(uint8_t)t->esc] = 1, t->qspecial[(uint8_t)t->esc] = 1;
  if (t->comment) t->special[(uint8_t)t->comment] = 1;
  if (t->quote) t->qspecial[(uint8_t)t->quote] = 1;
}

/* A growable list of raw fields: (start, end, needs_unquote) triples. */
typedef struct fieldbuf {
  int64_t *v;
  int64_t n, cap; /* in fields */
} fieldbuf;

static bool fb_push(fieldbuf *fb, int64_t s, int64_t e, int64_t flag) {
  if (fb->n == fb->cap) {
    int64_t cap = fb->cap ? fb->cap * 2 : 64;
    int64_t *v = (int64_t *)zb_malloc((size_t)cap * 3 * sizeof(int64_t));
    if (v == NULL) return false;
    if (fb->n) memcpy(v, fb->v, (size_t)fb->n * 3 * sizeof(int64_t));
    zb_free(fb->v);
    fb->v = v;
    fb->cap = cap;
  }
  fb->v[fb->n * 3] = s;
  fb->v[fb->n * 3 + 1] = e;
  fb->v[fb->n * 3 + 2] = flag;
  fb->n++;
  return true;
}

enum { REC_NONE = 0, REC_OK = 1, REC_UNTERMINATED = -1, REC_NOMEM = -2 };

/* Tokenize the record starting at pos into fb.  Returns REC_OK, REC_NONE for
 * a blank or comment line, or an error (*errpos: where the quoted field
 * started).  *next: the position after the record's terminator. */
static int parse_record(const tok *t, int64_t pos, fieldbuf *fb, int64_t *next,
                        int64_t *errpos) {
  const char *d = t->d;
  const int64_t n = t->n;
  fb->n = 0;
  int64_t p = pos;
  while (p < n && (d[p] == ' ' || d[p] == '\t' || d[p] == '\r') && d[p] != t->sep) p++;
  if (p >= n) {
    *next = n;
    return REC_NONE;
  }
  if (d[p] == '\n') {
    *next = p + 1;
    return REC_NONE;
  }
  if (t->comment && d[p] == t->comment) {
    const char *q = (const char *)memchr(d + p, '\n', (size_t)(n - p));
    *next = q ? (int64_t)(q - d) + 1 : n;
    return REC_NONE;
  }
  p = pos;
  for (;;) {
    int64_t fs = p, flag = 0;
    if (p < n && t->quote && d[p] == t->quote) {
      flag = 1;
      p++;
      for (;;) {
        while (p < n && !t->qspecial[(uint8_t)d[p]]) p++;
        if (p >= n) {
          *errpos = fs;
          return REC_UNTERMINATED;
        }
        if (t->esc && d[p] == t->esc) {
          p += 2;
          if (p > n) {
            *errpos = fs;
            return REC_UNTERMINATED;
          }
          continue;
        }
        if (t->dq && p + 1 < n && d[p + 1] == t->quote) {
          p += 2;
          continue;
        }
        p++;
        break;
      }
    }
    for (;;) {
      while (p < n && !t->special[(uint8_t)d[p]]) p++;
      if (p < n && t->esc && d[p] == t->esc) {
        flag = 1;
        p = p + 2 > n ? n : p + 2;
        continue;
      }
      break;
    }
    int64_t fe = p;
    if (p >= n || d[p] != t->sep) {
      if (fe > fs && d[fe - 1] == '\r') fe--;
      if (!fb_push(fb, fs, fe, flag)) return REC_NOMEM;
      if (p >= n) {
        *next = n;
      } else if (d[p] == '\n') {
        *next = p + 1;
      } else { /* comment: skip the rest of the line */
        const char *q = (const char *)memchr(d + p, '\n', (size_t)(n - p));
        *next = q ? (int64_t)(q - d) + 1 : n;
      }
      return REC_OK;
    }
    if (!fb_push(fb, fs, fe, flag)) return REC_NOMEM;
    p++; /* past the separator: another field follows, maybe empty */
  }
}

/* The automaton parse_record implements, for pass 1. */
enum { S_REC, S_FIELD, S_UNQ, S_QUO, S_QQ, S_EUNQ, S_EQUO, S_COM };

static inline int step_out(const tok *t, int s, char c) {
  if (c == '\n') return S_REC;
  if (c == t->sep) return S_FIELD;
  if (t->comment && c == t->comment) return S_COM;
  if (t->esc && c == t->esc) return S_EUNQ;
  if (t->quote && c == t->quote) {
    if (s == S_REC || s == S_FIELD) return S_QUO;
    if (s == S_QQ) return t->dq ? S_QUO : S_UNQ;
  }
  return S_UNQ;
}

/* Run the automaton over [a, b) from state s; returns the final state.  If
 * first_rec is not NULL it receives the position right after the first
 * '\n' that ends a record (b if none). */
static int dfa_run(const tok *t, int64_t a, int64_t b, int s, int64_t *first_rec) {
  const char *d = t->d;
  int64_t p = a;
  bool want = first_rec != NULL;
  if (want) *first_rec = b;
  while (p < b) {
    switch (s) {
      case S_QUO:
        while (p < b && !t->qspecial[(uint8_t)d[p]]) p++;
        if (p >= b) return s;
        s = (t->esc && d[p] == t->esc) ? S_EQUO : S_QQ;
        p++;
        continue;
      case S_EQUO:
        p++;
        s = S_QUO;
        continue;
      case S_EUNQ:
        p++;
        s = S_UNQ;
        continue;
      case S_COM: {
        const char *q = (const char *)memchr(d + p, '\n', (size_t)(b - p));
        if (q == NULL) return s;
        p = (int64_t)(q - d) + 1;
        s = S_REC;
        break;
      }
      case S_UNQ:
        while (p < b && !t->special[(uint8_t)d[p]]) p++;
        if (p >= b) return s;
        s = step_out(t, s, d[p]);
        p++;
        break;
      default: /* S_REC, S_FIELD, S_QQ */
        s = step_out(t, s, d[p]);
        p++;
        break;
    }
    if (want && s == S_REC) {
      *first_rec = p;
      want = false;
    }
  }
  return s;
}

/* Undo quoting and escapes of a raw field into out (at most cap bytes;
 * the result never exceeds the raw length).  Returns the length. */
static int64_t unquote(const tok *t, const char *s, int64_t n, char *out, int64_t cap) {
  int64_t i = 0, j = 0;
  if (t->quote && n > 0 && s[0] == t->quote) {
    i = 1;
    while (i < n && j < cap) {
      char c = s[i];
      if (t->esc && c == t->esc) {
        if (i + 1 < n) out[j++] = s[i + 1];
        i += 2;
        continue;
      }
      if (c == t->quote) {
        if (t->dq && i + 1 < n && s[i + 1] == t->quote) {
          out[j++] = c;
          i += 2;
          continue;
        }
        i++;
        break;
      }
      out[j++] = c;
      i++;
    }
  }
  while (i < n && j < cap) {
    char c = s[i];
    if (t->esc && c == t->esc) {
      if (i + 1 < n) out[j++] = s[i + 1];
      i += 2;
      continue;
    }
    out[j++] = c;
    i++;
  }
  return j;
}

/* ------------------------------------------------------------------------ */
/* Reader state                                                             */
/* ------------------------------------------------------------------------ */

#define CELL_MISSING 0xFFFFFFFFu
#define CELL_FLAG 0x80000000u
#define CELL_MAXLEN 0x7FFFFFFEu

typedef struct badline {
  int64_t pos, nfields;
} badline;

typedef struct chunk {
  int64_t start, end;
  int end_s, end_q;   /* pass 1: state at the end from S / from Q */
  int64_t first_q;    /* pass 1: first record start when starting in Q */
  int64_t first;      /* the real first record start */
  uint32_t *cells;    /* nrows x nsel x (start_rel, len|flag) */
  int64_t nrows, cap_rows;
  int64_t row0;       /* global index of the first row */
  zb_status st;       /* pass 2 outcome */
  int kind;           /* error kind */
  int64_t err_pos, err_nfields;
  badline *bad;       /* the first warnings->capacity bad lines */
  int64_t nbad, cap_bad;
} chunk;

enum { ERR_NONE, ERR_UNTERMINATED, ERR_FIELDS, ERR_TOOLONG, ERR_NOMEM, ERR_VALUE,
       ERR_OVERFLOW, ERR_UTF8 };

typedef struct na_set {
  const char *const *s;
  int64_t *len;
  int64_t n, maxlen;
  uint8_t first[256]; /* first bytes of non-empty NA strings */
  uint64_t lens;      /* bit k: some NA string has length k (k < 63); bit 63: longer */
  bool empty;         /* "" is NA */
} na_set;

/* Inference bits: the types every value seen so far parses as. */
enum { B_BOOL = 1, B_INT = 2, B_UINT = 4, B_FLOAT = 8, B_DATE = 16, B_TS = 32, B_ALL = 63 };

typedef struct colinfo {
  const char *name;
  int64_t file_index;
  zb_type_id type;
  bool fixed; /* type given by dtype or parse_dates */
  zb_column *col;
  int64_t *mbytes; /* strings: bytes per morsel, then the morsel's start */
} colinfo;

typedef struct taskres {
  zb_status st;
  int kind;
  int64_t pos, row; /* earliest failing field */
  int mask;         /* inference */
  bool has_value;
} taskres;

typedef struct reader {
  const zb_csv_options *o;
  tok t;
  na_set na;
  int64_t data_start;
  int64_t ncols;    /* fields per record */
  char **names;     /* ncols final names (owned) */
  int64_t *slot_of; /* file column -> selected slot or -1 */
  int64_t nsel;
  colinfo *cols;
  chunk *chunks;
  int64_t nchunks;
  int64_t nrows;
  int64_t limit; /* max rows, -1 none */
  int64_t nmorsels;
  taskres *res;
  int phase;
  int64_t progress_done; /* atomic */
  int64_t tasks_done;    /* atomic */
  int64_t tasks_total;
  int stop;              /* atomic: cancelled or out of memory */
} reader;

static bool cancelled(reader *r) {
  if (__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) return true;
  if (r->o->cancel != NULL && *r->o->cancel) {
    __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
    return true;
  }
  return false;
}

/* Progress from the calling thread (worker 0) only. */
static void report_progress(reader *r, int worker) {
  if (worker != 0 || r->o->progress == NULL) return;
  int64_t total = r->t.n;
  int64_t done = __atomic_load_n(&r->progress_done, __ATOMIC_RELAXED) / 2;
  if (r->phase >= 0 && r->tasks_total > 0)
    done = total / 2 + (int64_t)((double)(total - total / 2) *
                                 (double)__atomic_load_n(&r->tasks_done, __ATOMIC_RELAXED) /
                                 (double)r->tasks_total);
  if (r->o->progress(r->o->progress_ctx, done, total) != 0)
    __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
}

static int64_t line_of(const reader *r, int64_t pos) {
  int64_t line = r->o->first_line > 0 ? r->o->first_line : 1;
  const char *d = r->t.d, *p = d, *e = d + pos;
  while (p < e) {
    const char *q = (const char *)memchr(p, '\n', (size_t)(e - p));
    if (q == NULL) break;
    line++;
    p = q + 1;
  }
  return line;
}

/* ------------------------------------------------------------------------ */
/* NA strings                                                               */
/* ------------------------------------------------------------------------ */

static zb_status na_init(na_set *na, const zb_csv_options *o, const char *const **store,
                         zb_error *err) {
  int64_t n = (o->keep_default_na ? N_DEFAULT_NA : 0) + o->num_na_values;
  memset(na, 0, sizeof *na);
  const char **s = (const char **)zb_malloc((size_t)(n > 0 ? n : 1) * sizeof(char *));
  int64_t *len = (int64_t *)zb_malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  if (s == NULL || len == NULL) {
    zb_free(s);
    zb_free(len);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV NA values)");
  }
  int64_t k = 0;
  if (o->keep_default_na)
    for (int64_t i = 0; i < N_DEFAULT_NA; i++) s[k++] = k_default_na[i];
  for (int64_t i = 0; i < o->num_na_values; i++) {
    if (o->na_values[i] == NULL) {
      zb_free(s);
      zb_free(len);
      return zb_error_set(err, ZB_EINVAL, "na_values[%lld] is NULL", (long long)i);
    }
    s[k++] = o->na_values[i];
  }
  for (int64_t i = 0; i < n; i++) {
    len[i] = (int64_t)strlen(s[i]);
    if (len[i] == 0)
      na->empty = true;
    else
      na->first[(uint8_t)s[i][0]] = 1;
    if (len[i] > na->maxlen) na->maxlen = len[i];
    na->lens |= UINT64_C(1) << (len[i] < 63 ? len[i] : 63);
  }
  na->s = s;
  na->len = len;
  na->n = n;
  *store = s;
  return ZB_OK;
}

static inline bool is_na(const na_set *na, const char *s, int64_t n) {
  if (n == 0) return na->empty;
  if (n > na->maxlen || !na->first[(uint8_t)s[0]] ||
      !((na->lens >> (n < 63 ? n : 63)) & 1))
    return false;
  for (int64_t i = 0; i < na->n; i++)
    if (na->len[i] == n && na->s[i][0] == s[0] && memcmp(na->s[i], s, (size_t)n) == 0)
      return true;
  return false;
}

/* ------------------------------------------------------------------------ */
/* Pass 1 and pass 2 over chunks                                            */
/* ------------------------------------------------------------------------ */

static void pass1_task(void *ctx, int64_t k, int worker) {
  reader *r = (reader *)ctx;
  chunk *c = &r->chunks[k];
  const tok *t = &r->t;
  size_t len = (size_t)(c->end - c->start);
  bool plain = !t->quote || memchr(t->d + c->start, t->quote, len) == NULL;
  if (plain && t->esc) plain = memchr(t->d + c->start, t->esc, len) == NULL;
  if (plain) {
    /* No quote or escape: from S every record ends in the chunk; from Q the
     * quoted field never closes. */
    c->end_s = S_REC;
    c->end_q = S_QUO;
    c->first_q = c->end;
    return;
  }
  c->end_s = dfa_run(t, c->start, c->end, S_REC, NULL);
  c->end_q = k == 0 ? S_QUO : dfa_run(t, c->start, c->end, S_QUO, &c->first_q);
  (void)worker;
}

static bool chunk_grow(chunk *c, int64_t nsel) {
  int64_t cap = c->cap_rows ? c->cap_rows + c->cap_rows / 2 + 16 : 1024;
  size_t row = (size_t)(nsel > 0 ? nsel : 1) * 2 * sizeof(uint32_t);
  uint32_t *v = (uint32_t *)zb_malloc((size_t)cap * row);
  if (v == NULL) return false;
  if (c->nrows && nsel > 0) memcpy(v, c->cells, (size_t)c->nrows * row);
  zb_free(c->cells);
  c->cells = v;
  c->cap_rows = cap;
  return true;
}

static void pass2_task(void *ctx, int64_t k, int worker) {
  reader *r = (reader *)ctx;
  chunk *c = &r->chunks[k];
  const tok *t = &r->t;
  fieldbuf fb = {NULL, 0, 0};
  int64_t pos = c->first, nsel = r->nsel, ncols = r->ncols;
  int64_t wcap = r->o->warnings ? r->o->warnings->capacity : 0;
  int64_t count = 0;
  if (cancelled(r)) goto done;
  /* Records starting in [pos, end) <= '\n' bytes there + 1: one allocation. */
  if (c->end > pos) {
    c->cap_rows = 0;
    int64_t est = 1;
    for (const char *p = t->d + pos, *e = t->d + c->end; p < e; est++) {
      const char *q = (const char *)memchr(p, '\n', (size_t)(e - p));
      if (q == NULL) break;
      p = q + 1;
    }
    if (r->limit >= 0 && est > r->limit) est = r->limit;
    size_t row = (size_t)(nsel > 0 ? nsel : 1) * 2 * sizeof(uint32_t);
    c->cells = (uint32_t *)zb_malloc((size_t)est * row);
    if (c->cells == NULL) goto nomem;
    c->cap_rows = est;
  }
  while (pos < c->end) {
    if (r->limit >= 0 && c->nrows >= r->limit) break;
    if ((++count & 4095) == 0 && cancelled(r)) goto done;
    int64_t next = pos, errpos = pos;
    int rc = parse_record(t, pos, &fb, &next, &errpos);
    if (rc == REC_NOMEM) goto nomem;
    if (rc == REC_UNTERMINATED) {
      c->st = ZB_EPARSE;
      c->kind = ERR_UNTERMINATED;
      c->err_pos = errpos;
      goto done;
    }
    int64_t rec = pos;
    pos = next;
    if (rc == REC_NONE) continue;
    if (fb.n > ncols) {
      if (r->o->on_bad_lines == ZB_CSV_BAD_LINES_ERROR) {
        c->st = ZB_EPARSE;
        c->kind = ERR_FIELDS;
        c->err_pos = rec;
        c->err_nfields = fb.n;
        goto done;
      }
      if (r->o->on_bad_lines == ZB_CSV_BAD_LINES_WARN && c->nbad < wcap) {
        if (c->nbad == c->cap_bad) {
          int64_t cap = c->cap_bad ? c->cap_bad * 2 : 8;
          if (cap > wcap) cap = wcap;
          badline *b = (badline *)zb_malloc((size_t)cap * sizeof(badline));
          if (b == NULL) goto nomem;
          if (c->nbad) memcpy(b, c->bad, (size_t)c->nbad * sizeof(badline));
          zb_free(c->bad);
          c->bad = b;
          c->cap_bad = cap;
        }
        c->bad[c->nbad].pos = rec;
        c->bad[c->nbad].nfields = fb.n;
      }
      c->nbad++;
      continue;
    }
    if (c->nrows == c->cap_rows && !chunk_grow(c, nsel)) goto nomem;
    uint32_t *row = c->cells + c->nrows * nsel * 2;
    for (int64_t i = 0; i < nsel; i++) row[2 * i + 1] = CELL_MISSING, row[2 * i] = 0;
    for (int64_t f = 0; f < fb.n; f++) {
      int64_t slot = r->slot_of[f];
      if (slot < 0) continue;
      int64_t s = fb.v[3 * f], e = fb.v[3 * f + 1];
      if (e - c->start > (int64_t)UINT32_MAX || e - s > (int64_t)CELL_MAXLEN) {
        c->st = ZB_ENOTSUP;
        c->kind = ERR_TOOLONG;
        c->err_pos = s;
        goto done;
      }
      row[2 * slot] = (uint32_t)(s - c->start);
      row[2 * slot + 1] = (uint32_t)(e - s) | (fb.v[3 * f + 2] ? CELL_FLAG : 0);
    }
    c->nrows++;
  }
  goto done;
nomem:
  c->st = ZB_ENOMEM;
  c->kind = ERR_NOMEM;
  __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
done:
  zb_free(fb.v);
  __atomic_add_fetch(&r->progress_done, c->end - c->start, __ATOMIC_RELAXED);
  report_progress(r, worker);
}

/* ------------------------------------------------------------------------ */
/* Per-column morsel tasks                                                  */
/* ------------------------------------------------------------------------ */

/* Per-task scratch: unquoted text and the float slow path. */
typedef struct scratch {
  char *u, *num;
  int64_t ucap, ncap;
  bool nomem;
} scratch;

static bool grow(char **p, int64_t *cap, int64_t need) {
  if (need <= *cap) return true;
  int64_t c = need < 256 ? 256 : need * 2;
  char *q = (char *)zb_malloc((size_t)c);
  if (q == NULL) return false;
  zb_free(*p);
  *p = q;
  *cap = c;
  return true;
}

/* A cursor over global rows [g, g1) across chunks. */
typedef struct cursor {
  const reader *r;
  int64_t ci;  /* chunk */
  int64_t lr;  /* local row */
} cursor;

static void cursor_seek(cursor *cu, const reader *r, int64_t g) {
  int64_t lo = 0, hi = r->nchunks - 1;
  while (lo < hi) { /* last chunk with row0 <= g and rows */
    int64_t mid = (lo + hi + 1) / 2;
    if (r->chunks[mid].row0 <= g)
      lo = mid;
    else
      hi = mid - 1;
  }
  while (lo < r->nchunks && g - r->chunks[lo].row0 >= r->chunks[lo].nrows) lo++;
  cu->r = r;
  cu->ci = lo;
  cu->lr = lo < r->nchunks ? g - r->chunks[lo].row0 : 0;
}

static inline void cursor_next(cursor *cu) {
  if (++cu->lr >= cu->r->chunks[cu->ci].nrows) {
    cu->lr = 0;
    do
      cu->ci++;
    while (cu->ci < cu->r->nchunks && cu->r->chunks[cu->ci].nrows == 0);
  }
}

/* The text of the cell of slot in the cursor's row.  Returns false for a
 * null (missing field or NA string); sets sc->nomem on allocation failure
 * (and returns false). */
static inline bool cell_text(const reader *r, const cursor *cu, int64_t slot, scratch *sc,
                             const char **s, int64_t *n, int64_t *pos) {
  const chunk *c = &r->chunks[cu->ci];
  const uint32_t *cell = c->cells + (cu->lr * r->nsel + slot) * 2;
  *pos = c->start + cell[0];
  if (cell[1] == CELL_MISSING) return false;
  int64_t len = cell[1] & ~CELL_FLAG;
  const char *p = r->t.d + *pos;
  if (cell[1] & CELL_FLAG) {
    if (!grow(&sc->u, &sc->ucap, len + 1)) {
      sc->nomem = true;
      return false;
    }
    len = unquote(&r->t, p, len, sc->u, len);
    p = sc->u;
  }
  *s = p;
  *n = len;
  return !is_na(&r->na, p, len);
}

static inline void fail(taskres *tr, zb_status st, int kind, int64_t pos, int64_t row) {
  if (tr->st == ZB_OK) {
    tr->st = st;
    tr->kind = kind;
    tr->pos = pos;
    tr->row = row;
  }
}

static int classify(const char *s, int64_t n, int mask, char dec, char th, scratch *sc) {
  int bits = 0;
  bool b;
  if ((mask & B_BOOL) && zb__csv_parse_bool(s, n, &b)) bits |= B_BOOL;
  if (mask & (B_INT | B_UINT | B_FLOAT)) {
    int64_t i = 0;
    uint64_t u = 0;
    /* Once no integer type is possible, go straight to the float parser. */
    int rc = (mask & (B_INT | B_UINT)) ? zb__csv_parse_int(s, n, th, &i, &u) : ZB_CSV_NOT_INT;
    if (rc == ZB_CSV_INT64)
      bits |= B_INT | B_FLOAT | (i >= 0 ? B_UINT : 0);
    else if (rc == ZB_CSV_UINT64)
      bits |= B_UINT | B_FLOAT;
    else if (mask & B_FLOAT) {
      double v;
      if (n + 1 <= sc->ncap || grow(&sc->num, &sc->ncap, n + 1)) {
        if (zb__csv_parse_double(s, n, dec, th, sc->num, &v)) bits |= B_FLOAT;
      } else {
        sc->nomem = true;
      }
    }
  }
  if ((mask & (B_DATE | B_TS)) && n >= 10) {
    int64_t us;
    bool date_only;
    if (zb__csv_parse_timestamp(s, n, &us, &date_only)) bits |= date_only ? B_DATE | B_TS : B_TS;
  }
  return bits;
}

typedef struct morsel {
  int64_t col, m, g0, g1;
} morsel;

static void morsel_of(const reader *r, int64_t task, morsel *ms) {
  ms->col = task / r->nmorsels;
  ms->m = task % r->nmorsels;
  ms->g0 = ms->m * ZB_MORSEL_ROWS;
  ms->g1 = ZB_MIN(ms->g0 + ZB_MORSEL_ROWS, r->nrows);
}

enum { PH_INFER, PH_CONVERT, PH_STRSIZE, PH_STRCOPY };

static void infer_morsel(reader *r, morsel *ms, taskres *tr, scratch *sc) {
  cursor cu;
  cursor_seek(&cu, r, ms->g0);
  int mask = B_ALL;
  const char *s;
  int64_t n, pos;
  for (int64_t g = ms->g0; g < ms->g1; g++, cursor_next(&cu)) {
    if (!cell_text(r, &cu, ms->col, sc, &s, &n, &pos)) {
      if (sc->nomem) break;
      continue;
    }
    tr->has_value = true;
    mask &= classify(s, n, mask, r->o->decimal, r->o->thousands, sc);
    if (sc->nomem || mask == 0) break;
  }
  tr->mask = mask;
}

static void convert_morsel(reader *r, morsel *ms, taskres *tr, scratch *sc) {
  colinfo *ci = &r->cols[ms->col];
  zb_column *col = ci->col;
  uint8_t *valid = (uint8_t *)col->validity->data;
  void *data = col->data->data;
  zb_type_id ty = ci->type;
  char dec = r->o->decimal, th = r->o->thousands;
  cursor cu;
  cursor_seek(&cu, r, ms->g0);
  const char *s;
  int64_t n, pos;
  for (int64_t g = ms->g0; g < ms->g1; g++, cursor_next(&cu)) {
    if (!cell_text(r, &cu, ms->col, sc, &s, &n, &pos)) {
      if (sc->nomem) return;
      zb_bit_set(valid, g, false);
      switch (ty) { /* defined bytes under nulls */
        case ZB_BOOL: zb_bit_set((uint8_t *)data, g, false); break;
        case ZB_INT8: case ZB_UINT8: ((uint8_t *)data)[g] = 0; break;
        case ZB_INT16: case ZB_UINT16: ((uint16_t *)data)[g] = 0; break;
        case ZB_INT32: case ZB_UINT32: case ZB_FLOAT32: case ZB_DATE32:
          ((uint32_t *)data)[g] = 0; break;
        default: ((uint64_t *)data)[g] = 0; break;
      }
      continue;
    }
    bool ok = true, over = false;
    switch (ty) {
      case ZB_BOOL: {
        bool b = false;
        ok = zb__csv_parse_bool(s, n, &b);
        zb_bit_set((uint8_t *)data, g, b);
        break;
      }
      case ZB_INT8: case ZB_INT16: case ZB_INT32: case ZB_INT64:
      case ZB_UINT8: case ZB_UINT16: case ZB_UINT32: case ZB_UINT64: {
        int64_t i = 0;
        uint64_t u = 0;
        int rc = zb__csv_parse_int(s, n, th, &i, &u);
        if (rc == ZB_CSV_NOT_INT) {
          ok = false;
          break;
        }
        if (rc == ZB_CSV_INT_BIG) {
          over = true;
          break;
        }
        bool neg = rc == ZB_CSV_INT64 && i < 0;
        uint64_t uv = rc == ZB_CSV_UINT64 ? u : (uint64_t)i;
        int64_t lo = 0, hi = 0; /* signed range; unsigned: hi as uint64 */
        uint64_t uhi = 0;
        bool is_signed = ty <= ZB_INT64;
        switch (ty) {
          case ZB_INT8: lo = INT8_MIN, hi = INT8_MAX; break;
          case ZB_INT16: lo = INT16_MIN, hi = INT16_MAX; break;
          case ZB_INT32: lo = INT32_MIN, hi = INT32_MAX; break;
          case ZB_INT64: lo = INT64_MIN, hi = INT64_MAX; break;
          case ZB_UINT8: uhi = UINT8_MAX; break;
          case ZB_UINT16: uhi = UINT16_MAX; break;
          case ZB_UINT32: uhi = UINT32_MAX; break;
          default: uhi = UINT64_MAX; break;
        }
        if (is_signed)
          over = rc != ZB_CSV_INT64 || i < lo || i > hi;
        else
          over = neg || uv > uhi;
        if (over) break;
        switch (ty) {
          case ZB_INT8: ((int8_t *)data)[g] = (int8_t)i; break;
          case ZB_INT16: ((int16_t *)data)[g] = (int16_t)i; break;
          case ZB_INT32: ((int32_t *)data)[g] = (int32_t)i; break;
          case ZB_INT64: ((int64_t *)data)[g] = i; break;
          case ZB_UINT8: ((uint8_t *)data)[g] = (uint8_t)uv; break;
          case ZB_UINT16: ((uint16_t *)data)[g] = (uint16_t)uv; break;
          case ZB_UINT32: ((uint32_t *)data)[g] = (uint32_t)uv; break;
          default: ((uint64_t *)data)[g] = uv; break;
        }
        break;
      }
      case ZB_FLOAT32: case ZB_FLOAT64: {
        double v = 0;
        if (n + 1 > sc->ncap && !grow(&sc->num, &sc->ncap, n + 1)) {
          sc->nomem = true;
          return;
        }
        ok = zb__csv_parse_double(s, n, dec, th, sc->num, &v);
        if (ty == ZB_FLOAT32)
          ((float *)data)[g] = (float)v;
        else
          ((double *)data)[g] = v;
        break;
      }
      case ZB_DATE32: {
        int32_t dd = 0;
        ok = zb__csv_parse_date(s, n, &dd);
        ((int32_t *)data)[g] = dd;
        break;
      }
      default: { /* ZB_TIMESTAMP */
        int64_t us = 0;
        bool date_only;
        ok = zb__csv_parse_timestamp(s, n, &us, &date_only);
        ((int64_t *)data)[g] = us;
        break;
      }
    }
    if (!ok || over) {
      fail(tr, over ? ZB_EOVERFLOW : ZB_EPARSE, over ? ERR_OVERFLOW : ERR_VALUE, pos, g);
      return;
    }
  }
}

/* Strings: sizing (validates UTF-8, sums bytes) and copying. */
static void strsize_morsel(reader *r, morsel *ms, taskres *tr, scratch *sc) {
  cursor cu;
  cursor_seek(&cu, r, ms->g0);
  const char *s;
  int64_t n, pos, total = 0;
  for (int64_t g = ms->g0; g < ms->g1; g++, cursor_next(&cu)) {
    if (!cell_text(r, &cu, ms->col, sc, &s, &n, &pos)) {
      if (sc->nomem) return;
      continue;
    }
    if (!zb__csv_utf8_valid((const unsigned char *)s, n)) {
      fail(tr, ZB_EPARSE, ERR_UTF8, pos, g);
      return;
    }
    total += n;
  }
  r->cols[ms->col].mbytes[ms->m] = total;
}

static void strcopy_morsel(reader *r, morsel *ms, taskres *tr, scratch *sc) {
  zb_column *col = r->cols[ms->col].col;
  uint8_t *valid = (uint8_t *)col->validity->data;
  int64_t *off = (int64_t *)col->data->data;
  char *chars = (char *)col->chars->data;
  int64_t at = r->cols[ms->col].mbytes[ms->m];
  cursor cu;
  cursor_seek(&cu, r, ms->g0);
  const char *s;
  int64_t n, pos;
  (void)tr;
  for (int64_t g = ms->g0; g < ms->g1; g++, cursor_next(&cu)) {
    if (!cell_text(r, &cu, ms->col, sc, &s, &n, &pos)) {
      if (sc->nomem) return;
      zb_bit_set(valid, g, false);
    } else {
      memcpy(chars + at, s, (size_t)n);
      at += n;
    }
    off[g + 1] = at;
  }
}

static void column_task(void *ctx, int64_t task, int worker) {
  reader *r = (reader *)ctx;
  taskres *tr = &r->res[task];
  memset(tr, 0, sizeof *tr);
  morsel ms;
  morsel_of(r, task, &ms);
  colinfo *ci = &r->cols[ms.col];
  bool mine;
  switch (r->phase) {
    case PH_INFER: mine = !ci->fixed; break;
    case PH_CONVERT: mine = ci->type != ZB_STRING && ci->type != ZB_CATEGORICAL; break;
    default: mine = ci->type == ZB_STRING || ci->type == ZB_CATEGORICAL; break;
  }
  if (mine && !cancelled(r)) {
    scratch sc = {NULL, NULL, 0, 0, false};
    switch (r->phase) {
      case PH_INFER: infer_morsel(r, &ms, tr, &sc); break;
      case PH_CONVERT: convert_morsel(r, &ms, tr, &sc); break;
      case PH_STRSIZE: strsize_morsel(r, &ms, tr, &sc); break;
      default: strcopy_morsel(r, &ms, tr, &sc); break;
    }
    zb_free(sc.u);
    zb_free(sc.num);
    if (sc.nomem) {
      tr->st = ZB_ENOMEM;
      tr->kind = ERR_NOMEM;
      __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
    }
  }
  __atomic_add_fetch(&r->tasks_done, 1, __ATOMIC_RELAXED);
  report_progress(r, worker);
}

/* ------------------------------------------------------------------------ */
/* Error messages                                                           */
/* ------------------------------------------------------------------------ */

/* The (unquoted) text at a cell, truncated to 40 bytes, for messages. */
static void cell_snippet(const reader *r, int64_t g, int64_t slot, char *buf, size_t cap) {
  cursor cu;
  cursor_seek(&cu, r, g);
  const chunk *c = &r->chunks[cu.ci];
  const uint32_t *cell = c->cells + (cu.lr * r->nsel + slot) * 2;
  int64_t len = cell[1] == CELL_MISSING ? 0 : (cell[1] & ~CELL_FLAG);
  char tmp[64];
  int64_t n = unquote(&r->t, r->t.d + c->start + cell[0], len, tmp, 41);
  if (n > 40) {
    memcpy(tmp + 37, "...", 3);
    n = 40;
  }
  snprintf(buf, cap, "%.*s", (int)n, tmp);
}

static zb_status task_error(reader *r, zb_error *err) {
  int64_t ntasks = r->nsel * r->nmorsels;
  taskres *best = NULL;
  int64_t best_task = -1;
  for (int64_t i = 0; i < ntasks; i++) {
    taskres *tr = &r->res[i];
    if (tr->st == ZB_OK) continue;
    if (tr->st == ZB_ENOMEM)
      return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV column '%s')",
                          r->cols[i / r->nmorsels].name);
    if (best == NULL || tr->pos < best->pos) best = tr, best_task = i;
  }
  if (cancelled(r)) return zb_error_set(err, ZB_ECANCEL, "CSV read cancelled");
  if (best == NULL) return ZB_OK;
  colinfo *ci = &r->cols[best_task / r->nmorsels];
  int64_t line = line_of(r, best->pos);
  if (best->kind == ERR_UTF8)
    return zb_error_set(err, ZB_EPARSE, "CSV line %lld, column '%s': invalid UTF-8",
                        (long long)line, ci->name);
  char snip[64];
  cell_snippet(r, best->row, best_task / r->nmorsels, snip, sizeof snip);
  if (best->kind == ERR_OVERFLOW)
    return zb_error_set(err, ZB_EOVERFLOW,
                        "CSV line %lld, column '%s': value '%s' out of range for %s",
                        (long long)line, ci->name, snip, zb_type_name(ci->type));
  return zb_error_set(err, ZB_EPARSE, "CSV line %lld, column '%s': cannot parse '%s' as %s",
                      (long long)line, ci->name, snip, zb_type_name(ci->type));
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

/* Make names[0..n) unique the way pandas does: "a", "a.1", "a.2". */
static zb_status dedupe_names(char **names, int64_t n, zb_error *err) {
  for (int64_t i = 1; i < n; i++) {
    if (!name_taken(names, i, names[i])) continue;
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
  const tok *t = &r->t;
  fieldbuf fb = {NULL, 0, 0};
  zb_status st = ZB_OK;
  int64_t next = pos, errpos = pos, hdr_fields = -1, nrec = 0;
  int rc = REC_NONE;
  /* The header record (header >= 0) or the first record (to count fields). */
  while (pos < t->n) {
    rc = parse_record(t, pos, &fb, &next, &errpos);
    if (rc == REC_NOMEM) {
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV header)");
      goto done;
    }
    if (rc == REC_UNTERMINATED) {
      st = zb_error_set(err, ZB_EPARSE, "CSV line %lld: unterminated quoted field",
                        (long long)line_of(r, errpos));
      goto done;
    }
    if (rc == REC_OK) {
      if (o->header < 0 || nrec == o->header) break;
      nrec++;
    }
    pos = next;
    rc = REC_NONE;
  }
  if (rc == REC_OK) hdr_fields = fb.n;
  if (o->header >= 0) r->data_start = rc == REC_OK ? next : t->n;
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
        int64_t len = unquote(t, t->d + s, e - s, r->names[i], e - s);
        r->names[i][len] = '\0';
        if (!zb__csv_utf8_valid((const unsigned char *)r->names[i], len)) {
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
  st = dedupe_names(r->names, nc, err);
done:
  zb_free(fb.v);
  return st;
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
  r->cols = (colinfo *)zb_calloc((size_t)(r->nsel > 0 ? r->nsel : 1), sizeof(colinfo));
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
    if (r->slot_of[i] >= 0) {
      r->cols[r->slot_of[i]].type = o->dtypes[k].type;
      r->cols[r->slot_of[i]].fixed = true;
    }
  }
  return ZB_OK;
}

/* ------------------------------------------------------------------------ */
/* Chunking and tokenizing                                                  */
/* ------------------------------------------------------------------------ */

static zb_status make_chunks(reader *r, zb_error *err) {
  const tok *t = &r->t;
  int64_t a = r->data_start, len = t->n - a;
  int64_t target = r->o->chunk_size;
  if (target <= 0) {
    int64_t per = len / ((int64_t)zb_get_num_threads() * 4) + 1;
    target = ZB_MAX(per, (int64_t)1 << 20);
    target = ZB_MIN(target, (int64_t)64 << 20);
  }
  if (r->limit >= 0) target = len + 1; /* nrows: one sequential chunk */
  int64_t cap = len / target + 2;
  r->chunks = (chunk *)zb_calloc((size_t)cap, sizeof(chunk));
  if (r->chunks == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV chunks)");
  int64_t k = 0, s = a;
  while (s < t->n || k == 0) {
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
    if (k == cap) break; /* cannot happen: chunks are >= target bytes */
    r->chunks[k].start = s;
    r->chunks[k].end = e;
    k++;
    s = e;
    if (s >= t->n) break;
  }
  r->nchunks = k;
  return ZB_OK;
}

static zb_status tokenize(reader *r, zb_error *err) {
  ZB_RETURN_NOT_OK(zb_parallel_for(r->nchunks, pass1_task, r, err));
  int state = S_REC;
  for (int64_t k = 0; k < r->nchunks; k++) {
    chunk *c = &r->chunks[k];
    c->first = state == S_REC ? c->start : c->first_q;
    int e = state == S_REC ? c->end_s : c->end_q;
    state = (e == S_QUO || e == S_EQUO) ? S_QUO : S_REC;
  }
  ZB_RETURN_NOT_OK(zb_parallel_for(r->nchunks, pass2_task, r, err));
  report_progress(r, 0); /* at least once per stage, whoever ran the tasks */
  if (cancelled(r)) {
    for (int64_t k = 0; k < r->nchunks; k++)
      if (r->chunks[k].st == ZB_ENOMEM)
        return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV tokenizer)");
    return zb_error_set(err, ZB_ECANCEL, "CSV read cancelled");
  }
  int64_t rows = 0;
  for (int64_t k = 0; k < r->nchunks; k++) {
    chunk *c = &r->chunks[k];
    switch (c->kind) {
      case ERR_NONE: break;
      case ERR_NOMEM: return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV tokenizer)");
      case ERR_UNTERMINATED:
        return zb_error_set(err, ZB_EPARSE,
                            "CSV line %lld: quoted field is not terminated before the end of "
                            "the input",
                            (long long)line_of(r, c->err_pos));
      case ERR_FIELDS:
        return zb_error_set(err, ZB_EPARSE, "CSV line %lld: expected %lld fields, saw %lld",
                            (long long)line_of(r, c->err_pos), (long long)r->ncols,
                            (long long)c->err_nfields);
      default:
        return zb_error_set(err, ZB_ENOTSUP, "CSV line %lld: field or record longer than 2 GiB",
                            (long long)line_of(r, c->err_pos));
    }
    c->row0 = rows;
    rows += c->nrows;
  }
  if (r->limit >= 0 && rows > r->limit) rows = r->limit; /* (single chunk) */
  r->nrows = rows;
  /* Warnings, in line order. */
  zb_csv_warnings *w = r->o->warnings;
  if (w != NULL) {
    w->count = 0;
    w->total = 0;
    int64_t line = r->o->first_line > 0 ? r->o->first_line : 1, at = 0;
    for (int64_t k = 0; k < r->nchunks; k++) {
      chunk *c = &r->chunks[k];
      w->total += c->nbad;
      for (int64_t i = 0; i < c->nbad && i < c->cap_bad && w->count < w->capacity; i++) {
        badline *b = &c->bad[i];
        for (const char *p = r->t.d + at, *e = r->t.d + b->pos; p < e;) {
          const char *q = (const char *)memchr(p, '\n', (size_t)(e - p));
          if (q == NULL) break;
          line++;
          p = q + 1;
        }
        at = b->pos;
        zb_csv_warning *wi = &w->items[w->count++];
        wi->line = line;
        snprintf(wi->message, sizeof wi->message, "Skipping line %lld: expected %lld fields, saw %lld",
                 (long long)line, (long long)r->ncols, (long long)b->nfields);
      }
    }
  }
  return ZB_OK;
}

/* ------------------------------------------------------------------------ */
/* Columns                                                                  */
/* ------------------------------------------------------------------------ */

static zb_type_id resolve(int mask) {
  if (mask & B_BOOL) return ZB_BOOL;
  if (mask & B_INT) return ZB_INT64;
  if (mask & B_UINT) return ZB_UINT64;
  if (mask & B_FLOAT) return ZB_FLOAT64;
  if (mask & B_DATE) return ZB_DATE32;
  if (mask & B_TS) return ZB_TIMESTAMP;
  return ZB_STRING;
}

static zb_status run_phase(reader *r, int phase, zb_error *err) {
  r->phase = phase;
  ZB_RETURN_NOT_OK(zb_parallel_for(r->nsel * r->nmorsels, column_task, r, err));
  report_progress(r, 0);
  return task_error(r, err);
}

typedef struct dict_entry {
  const char *s;
  int64_t n;
  int32_t code; /* first-seen code */
} dict_entry;

static int dict_cmp(const void *a, const void *b) {
  const dict_entry *x = (const dict_entry *)a, *y = (const dict_entry *)b;
  int64_t m = x->n < y->n ? x->n : y->n;
  int c = memcmp(x->s, y->s, (size_t)m);
  if (c != 0) return c;
  return x->n < y->n ? -1 : x->n > y->n;
}

static uint64_t hash_bytes(const char *s, int64_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int64_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
  return h ^ (h >> 29);
}

/* Replace the string column *colp with a categorical of sorted categories. */
static zb_status encode_categorical(zb_column **colp, const char *name, zb_error *err) {
  zb_column *sc = *colp;
  int64_t n = sc->length;
  const int64_t *off = (const int64_t *)sc->data->data;
  const char *chars = (const char *)sc->chars->data;
  zb_status st = ZB_OK;
  int64_t cap = 64, nuniq = 0;
  int32_t *table = NULL, *remap = NULL;
  dict_entry *u = NULL;
  zb_buffer *codes = NULL;
  zb_column *dict = NULL, *cat = NULL;
  table = (int32_t *)zb_malloc((size_t)cap * sizeof(int32_t));
  u = (dict_entry *)zb_malloc((size_t)(cap / 2) * sizeof(dict_entry));
  if (table == NULL || u == NULL) goto nomem;
  memset(table, 0xff, (size_t)cap * sizeof(int32_t));
  st = zb_buffer_new(ZB_CPU, n * (int64_t)sizeof(int32_t), &codes, err);
  if (st != ZB_OK) goto done;
  int32_t *cv = (int32_t *)codes->data;
  for (int64_t i = 0; i < n; i++) {
    if (!zb_column_is_valid(sc, i)) {
      cv[i] = 0;
      continue;
    }
    const char *s = chars + off[i];
    int64_t len = off[i + 1] - off[i];
    uint64_t h = hash_bytes(s, len);
    int64_t slot = (int64_t)(h & (uint64_t)(cap - 1));
    while (table[slot] >= 0) {
      dict_entry *e = &u[table[slot]];
      if (e->n == len && memcmp(e->s, s, (size_t)len) == 0) break;
      slot = (slot + 1) & (cap - 1);
    }
    if (table[slot] < 0) {
      if (nuniq >= INT32_MAX - 1) {
        st = zb_error_set(err, ZB_EOVERFLOW, "CSV column '%s': too many categories", name);
        goto done;
      }
      u[nuniq].s = s;
      u[nuniq].n = len;
      u[nuniq].code = (int32_t)nuniq;
      table[slot] = (int32_t)nuniq++;
      if (nuniq * 2 >= cap) { /* grow and rehash */
        int64_t ncap = cap * 2;
        int32_t *nt = (int32_t *)zb_malloc((size_t)ncap * sizeof(int32_t));
        dict_entry *nu = (dict_entry *)zb_malloc((size_t)(ncap / 2) * sizeof(dict_entry));
        if (nt == NULL || nu == NULL) {
          zb_free(nt);
          zb_free(nu);
          goto nomem;
        }
        memset(nt, 0xff, (size_t)ncap * sizeof(int32_t));
        memcpy(nu, u, (size_t)nuniq * sizeof(dict_entry));
        for (int64_t j = 0; j < nuniq; j++) {
          int64_t sl = (int64_t)(hash_bytes(nu[j].s, nu[j].n) & (uint64_t)(ncap - 1));
          while (nt[sl] >= 0) sl = (sl + 1) & (ncap - 1);
          nt[sl] = (int32_t)j;
        }
        zb_free(table);
        zb_free(u);
        table = nt;
        u = nu;
        cap = ncap;
        cv[i] = u[nuniq - 1].code;
        continue;
      }
    }
    cv[i] = table[slot];
  }
  /* Sort categories; remap codes. */
  qsort(u, (size_t)nuniq, sizeof(dict_entry), dict_cmp);
  remap = (int32_t *)zb_malloc((size_t)(nuniq > 0 ? nuniq : 1) * sizeof(int32_t));
  if (remap == NULL) goto nomem;
  int64_t total = 0;
  for (int64_t j = 0; j < nuniq; j++) {
    remap[u[j].code] = (int32_t)j;
    total += u[j].n;
  }
  for (int64_t i = 0; i < n; i++)
    if (zb_column_is_valid(sc, i)) cv[i] = remap[cv[i]];
  st = zb_column_new(ZB_STRING, nuniq, false, total, &dict, err);
  if (st != ZB_OK) goto done;
  {
    int64_t *doff = (int64_t *)dict->data->data;
    char *dch = (char *)dict->chars->data;
    int64_t at = 0;
    doff[0] = 0;
    for (int64_t j = 0; j < nuniq; j++) {
      memcpy(dch + at, u[j].s, (size_t)u[j].n);
      at += u[j].n;
      doff[j + 1] = at;
    }
  }
  st = zb_column_make(ZB_CATEGORICAL, n, 0, sc->validity, codes, NULL, dict, sc->null_count,
                      &cat, err);
  if (st != ZB_OK) goto done;
  zb_column_release(sc);
  *colp = cat;
  goto done;
nomem:
  st = zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV categorical '%s')", name);
done:
  zb_free(table);
  zb_free(u);
  zb_free(remap);
  zb_buffer_release(codes);
  zb_column_release(dict);
  return st;
}

static zb_status build_columns(reader *r, zb_error *err) {
  r->nmorsels = (r->nrows + ZB_MORSEL_ROWS - 1) / ZB_MORSEL_ROWS;
  int64_t ntasks = r->nsel * r->nmorsels;
  r->res = (taskres *)zb_calloc((size_t)(ntasks > 0 ? ntasks : 1), sizeof(taskres));
  if (r->res == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV)");
  r->tasks_total = ntasks * 4;
  /* Inference. */
  bool any_infer = false;
  for (int64_t j = 0; j < r->nsel; j++) any_infer |= !r->cols[j].fixed;
  if (any_infer && ntasks > 0) {
    ZB_RETURN_NOT_OK(run_phase(r, PH_INFER, err));
    for (int64_t j = 0; j < r->nsel; j++) {
      colinfo *ci = &r->cols[j];
      if (ci->fixed) continue;
      int mask = B_ALL;
      bool any = false;
      for (int64_t m = 0; m < r->nmorsels; m++) {
        taskres *tr = &r->res[j * r->nmorsels + m];
        if (tr->has_value) any = true, mask &= tr->mask;
      }
      ci->type = any ? resolve(mask) : ZB_FLOAT64;
    }
  }
  /* Allocate columns. */
  bool any_fixed = false, any_str = false;
  for (int64_t j = 0; j < r->nsel; j++) {
    colinfo *ci = &r->cols[j];
    if (ci->type == ZB_STRING || ci->type == ZB_CATEGORICAL) {
      any_str = true;
      ci->mbytes = (int64_t *)zb_calloc((size_t)(r->nmorsels + 1), sizeof(int64_t));
      if (ci->mbytes == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV)");
    } else {
      any_fixed = true;
      ZB_RETURN_NOT_OK(zb_column_new(ci->type, r->nrows, true, 0, &ci->col, err));
    }
  }
  if (any_fixed && ntasks > 0) ZB_RETURN_NOT_OK(run_phase(r, PH_CONVERT, err));
  if (any_str) {
    if (ntasks > 0) ZB_RETURN_NOT_OK(run_phase(r, PH_STRSIZE, err));
    for (int64_t j = 0; j < r->nsel; j++) {
      colinfo *ci = &r->cols[j];
      if (ci->mbytes == NULL) continue;
      int64_t total = 0;
      for (int64_t m = 0; m < r->nmorsels; m++) {
        int64_t b = ci->mbytes[m];
        ci->mbytes[m] = total;
        total += b;
      }
      ZB_RETURN_NOT_OK(zb_column_new(ZB_STRING, r->nrows, true, total, &ci->col, err));
    }
    if (ntasks > 0) ZB_RETURN_NOT_OK(run_phase(r, PH_STRCOPY, err));
  }
  for (int64_t j = 0; j < r->nsel; j++) {
    colinfo *ci = &r->cols[j];
    zb_column_recount_nulls(ci->col);
    if (ci->type == ZB_CATEGORICAL) ZB_RETURN_NOT_OK(encode_categorical(&ci->col, ci->name, err));
  }
  return ZB_OK;
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */
/* ------------------------------------------------------------------------ */

static void reader_free(reader *r) {
  if (r->names)
    for (int64_t i = 0; i < r->ncols; i++) zb_free(r->names[i]);
  zb_free(r->names);
  zb_free(r->slot_of);
  if (r->cols)
    for (int64_t j = 0; j < r->nsel; j++) {
      zb_column_release(r->cols[j].col);
      zb_free(r->cols[j].mbytes);
    }
  zb_free(r->cols);
  if (r->chunks)
    for (int64_t k = 0; k < r->nchunks; k++) {
      zb_free(r->chunks[k].cells);
      zb_free(r->chunks[k].bad);
    }
  zb_free(r->chunks);
  zb_free(r->res);
  zb_free((void *)r->na.s);
  zb_free(r->na.len);
}

static zb_status read_impl(reader *r, const char *data, int64_t size, zb_table **out,
                           zb_error *err) {
  const zb_csv_options *o = r->o;
  if (size >= 3 && (uint8_t)data[0] == 0xEF && (uint8_t)data[1] == 0xBB &&
      (uint8_t)data[2] == 0xBF)
    data += 3, size -= 3;
  tok_init(&r->t, data, size, o);
  const char *nul = size > 0 ? (const char *)memchr(data, 0, (size_t)size) : NULL;
  if (nul != NULL) {
    int64_t pos = (int64_t)(nul - data), ls = pos;
    while (ls > 0 && data[ls - 1] != '\n') ls--;
    return zb_error_set(err, ZB_EPARSE, "CSV line %lld, character %lld: NUL byte in the input",
                        (long long)line_of(r, pos), (long long)(pos - ls + 1));
  }
  const char *const *na_store = NULL;
  ZB_RETURN_NOT_OK(na_init(&r->na, o, &na_store, err));
  int64_t pos = 0;
  for (int64_t i = 0; i < o->skiprows && pos < size; i++) {
    const char *q = (const char *)memchr(data + pos, '\n', (size_t)(size - pos));
    pos = q ? (int64_t)(q - data) + 1 : size;
  }
  r->limit = o->nrows;
  r->phase = -1;
  ZB_RETURN_NOT_OK(read_header(r, pos, err));
  ZB_RETURN_NOT_OK(select_columns(r, err));
  if (r->ncols > 0 && r->data_start < size && r->limit != 0) {
    ZB_RETURN_NOT_OK(make_chunks(r, err));
    ZB_RETURN_NOT_OK(tokenize(r, err));
  }
  ZB_RETURN_NOT_OK(build_columns(r, err));
  if (cancelled(r)) return zb_error_set(err, ZB_ECANCEL, "CSV read cancelled");
  zb_column **cols = (zb_column **)zb_malloc((size_t)(r->nsel > 0 ? r->nsel : 1) * sizeof(zb_column *));
  const char **names = (const char **)zb_malloc((size_t)(r->nsel > 0 ? r->nsel : 1) * sizeof(char *));
  zb_status st = ZB_OK;
  if (cols == NULL || names == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV table)");
  } else {
    for (int64_t j = 0; j < r->nsel; j++) cols[j] = r->cols[j].col, names[j] = r->cols[j].name;
    st = zb_table_make(r->nsel, cols, names, out, err);
  }
  zb_free(cols);
  zb_free((void *)names);
  if (st == ZB_OK && o->progress) o->progress(o->progress_ctx, size, size);
  return st;
}

zb_status zb_csv_read_buffer(const char *data, int64_t size, const zb_csv_options *opts,
                             zb_table **out, zb_error *err) {
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
  reader r;
  memset(&r, 0, sizeof r);
  r.o = opts;
  zb_status st = read_impl(&r, data ? data : "", size, out, err);
  reader_free(&r);
  return st;
}

zb_status zb_csv_read_file(const char *path, const zb_csv_options *opts, zb_table **out,
                           zb_error *err) {
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
      st = zb_csv_read_buffer((const char *)m, (int64_t)sb.st_size, opts, out, err);
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
  st = zb_csv_read_buffer(buf, n, opts, out, err);
  zb_free(buf);
  return st;
}

/* ------------------------------------------------------------------------ */
/* Row boundaries, for readers in pieces                                    */
/* ------------------------------------------------------------------------ */

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
  int64_t bom = 0;
  if (size >= 3 && (uint8_t)data[0] == 0xEF && (uint8_t)data[1] == 0xBB &&
      (uint8_t)data[2] == 0xBF)
    bom = 3;
  tok t;
  tok_init(&t, data + bom, size - bom, opts);
  int64_t pos = 0;
  for (int64_t i = 0; i < opts->skiprows && pos < t.n; i++) {
    const char *q = (const char *)memchr(t.d + pos, '\n', (size_t)(t.n - pos));
    pos = q ? (int64_t)(q - t.d) + 1 : t.n;
  }
  if (opts->header >= 0) {
    fieldbuf fb = {NULL, 0, 0};
    int64_t nrec = 0, next = pos, errpos = pos;
    while (pos < t.n) {
      int rc = parse_record(&t, pos, &fb, &next, &errpos);
      if (rc == REC_NOMEM) {
        zb_free(fb.v);
        return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV header)");
      }
      if (rc == REC_UNTERMINATED) {
        next = t.n;
      }
      pos = next;
      if (rc != REC_NONE && nrec++ == opts->header) break;
    }
    zb_free(fb.v);
  }
  *offset = bom + pos;
  *lines = count_lines(t.d, 0, pos);
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
  tok t;
  tok_init(&t, data, size, opts);
  fieldbuf fb = {NULL, 0, 0};
  int64_t pos = start, n = 0;
  while (n < nrows && pos < size) {
    int64_t next = pos, errpos = pos;
    int rc = parse_record(&t, pos, &fb, &next, &errpos);
    if (rc == REC_NOMEM) {
      zb_free(fb.v);
      return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV rows)");
    }
    if (rc == REC_UNTERMINATED) {
      next = size;
      rc = REC_OK;
    }
    if (rc == REC_OK) n++;
    pos = next;
  }
  zb_free(fb.v);
  *end = pos;
  *rows = n;
  *lines = count_lines(data, start, pos);
  return ZB_OK;
}
