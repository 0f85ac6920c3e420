/*
 * csv_read.c -- the parallel CSV reader: zb_csv_read_buffer / _file.
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
 *      automaton (dfa_run / dfa_fast) from S, counting record terminators,
 *      and from Q where the chunk before it ended inside quotes.  A
 *      sequential walk fixes every chunk's real start state, its first
 *      record and an upper bound on its records; the bounds' prefix sums
 *      place each chunk's rows in the output.  The bound is exact unless
 *      blank lines, comment lines or dropped bad lines leave gaps, which a
 *      compaction step removes afterwards.
 *   4. parse (parallel per chunk): batches of records are tokenized into a
 *      small column-major field index (per worker, sized to stay in cache),
 *      and each column of the batch is converted right away, straight into
 *      the output buffers.  Type inference runs per chunk in the same pass:
 *      a chunk's column takes the narrowest type of its first value and
 *      widens when a value does not fit (int -> float and date -> timestamp
 *      in place; to string by re-tokenizing the chunk's earlier records),
 *      so every value is parsed once in the usual case.  Strings go to
 *      per-chunk character buffers.
 *   5. finish: each column's type is the one inference over the whole file
 *      gives (the chunks' inference bits combined); chunks that chose a
 *      narrower type are converted in place or re-tokenized; the chunks'
 *      characters are gathered into one buffer per string column; booleans
 *      are packed into bits and dates into int32.
 * The tokenizer (tok_record) and dfa_run implement the same automaton: a
 * quote opens a quoted field only at the start of a field; inside one, a
 * doubled quote (doublequote) or escapechar+char is literal; text after the
 * closing quote is appended; separators, '\n' and the comment char end
 * fields outside quotes; a '\r' before the end of a record is dropped.
 * dfa_fast is the same automaton for the usual dialect (no escape or
 * comment character, doublequote), driven by the positions of quotes only.
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
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
#if defined(__SSE2__)
  __m128i vsep, vnl, vquote, vesc, vcomment; /* the bytes below, broadcast */
#endif
  const char *d; /* the input after the BOM */
  int64_t n;
  char sep, quote, esc, comment;
  bool dq;
  uint8_t special[256];  /* stops the unquoted scan: sep, '\n', esc, comment */
  uint8_t qspecial[256]; /* stops the quoted scan: quote, esc */
  uint8_t rstart[256];   /* at a record start: maybe a blank or comment line */
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
  if (t->comment) t->special[(uint8_t)t->comment] = 1, t->rstart[(uint8_t)t->comment] = 1;
  if (t->quote) t->qspecial[(uint8_t)t->quote] = 1;
  t->rstart[(uint8_t)' '] = t->rstart[(uint8_t)'\t'] = 1;
  t->rstart[(uint8_t)'\r'] = t->rstart[(uint8_t)'\n'] = 1;
#if defined(__SSE2__)
  t->vsep = _mm_set1_epi8(t->sep);
  t->vnl = _mm_set1_epi8('\n');
  t->vquote = _mm_set1_epi8(t->quote);
  t->vesc = _mm_set1_epi8(t->esc);
  t->vcomment = _mm_set1_epi8(t->comment);
#endif
}

static inline int64_t line_end(const tok *t, int64_t p) {
  const char *q = (const char *)memchr(t->d + p, '\n', (size_t)(t->n - p));
  return q ? (int64_t)(q - t->d) + 1 : t->n;
}

/* The positions of special bytes, 64 at a time: bit i of mu (mq) is set
 * when byte base + i is in t->special (t->qspecial). */
typedef struct scanner {
  int64_t base;
  uint64_t mu, mq;
} scanner;

static inline void scanner_init(scanner *sc) {
  sc->base = -128;
  sc->mu = sc->mq = 0;
}

static inline void scan_block(const tok *t, int64_t b, scanner *sc) {
  const char *p = t->d + b;
  uint64_t mu = 0, mq = 0;
  sc->base = b;
  if (t->n - b >= 64) {
#if defined(__SSE2__)
    for (int i = 0; i < 4; i++) {
      __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
      __m128i u = _mm_or_si128(_mm_cmpeq_epi8(v, t->vsep), _mm_cmpeq_epi8(v, t->vnl));
      __m128i q = _mm_setzero_si128();
      if (t->quote) q = _mm_cmpeq_epi8(v, t->vquote);
      if (t->esc) {
        __m128i e = _mm_cmpeq_epi8(v, t->vesc);
        u = _mm_or_si128(u, e);
        q = _mm_or_si128(q, e);
      }
      if (t->comment) u = _mm_or_si128(u, _mm_cmpeq_epi8(v, t->vcomment));
      mu |= (uint64_t)(uint32_t)_mm_movemask_epi8(u) << (16 * i);
      mq |= (uint64_t)(uint32_t)_mm_movemask_epi8(q) << (16 * i);
    }
#else
    for (int i = 0; i < 64; i++) {
      mu |= (uint64_t)t->special[(uint8_t)p[i]] << i;
      mq |= (uint64_t)t->qspecial[(uint8_t)p[i]] << i;
    }
#endif
  } else {
    for (int64_t i = 0; i < t->n - b; i++) {
      mu |= (uint64_t)t->special[(uint8_t)p[i]] << i;
      mq |= (uint64_t)t->qspecial[(uint8_t)p[i]] << i;
    }
  }
  sc->mu = mu;
  sc->mq = mq;
}

/* The first position >= p of a byte in t->special (quoted: t->qspecial),
 * or t->n. */
static inline int64_t scan_next(const tok *t, scanner *sc, int64_t p, bool quoted) {
  for (;;) {
    uint64_t off = (uint64_t)p - (uint64_t)sc->base;
    if (off < 64) {
      uint64_t m = (quoted ? sc->mq : sc->mu) >> off;
      if (m != 0) return p + __builtin_ctzll(m);
      p = sc->base + 64;
    }
    if (p >= t->n) return t->n;
    scan_block(t, p, sc);
  }
}

/* Whether the line at pos is blank (spaces, tabs and CRs that are not the
 * separator) or a comment; *next: the position after it. */
static bool skip_line(const tok *t, int64_t pos, int64_t *next) {
  const char *d = t->d;
  int64_t n = t->n, p = pos;
  while (p < n && (d[p] == ' ' || d[p] == '\t' || d[p] == '\r') && d[p] != t->sep) p++;
  if (p >= n) {
    *next = n;
    return true;
  }
  if (d[p] == '\n') {
    *next = p + 1;
    return true;
  }
  if (t->comment && d[p] == t->comment) {
    *next = line_end(t, p);
    return true;
  }
  return false;
}

/* The field starting at fs: returns the position of the byte that ends it
 * (separator, '\n', comment character) or t->n; *flag: it needs unquoting
 * (it starts with a quote or holds an escape).  *unterminated: a quoted
 * field runs to the end of the input.  esc: t->esc is set (a constant where
 * it is inlined). */
static inline __attribute__((always_inline)) int64_t scan_field(const tok *t, scanner *sc,
                                                                int64_t fs, int *flag,
                                                                bool *unterminated,
                                                                const bool esc) {
  const char *d = t->d;
  const int64_t n = t->n;
  int64_t p = fs;
  *flag = 0;
  if (t->quote && p < n && d[p] == t->quote) {
    *flag = 1;
    p++;
    for (;;) {
      p = scan_next(t, sc, p, true);
      if (p >= n) {
        *unterminated = true;
        return n;
      }
      if (esc && d[p] == t->esc) {
        p += 2;
        if (p > n) {
          *unterminated = true;
          return n;
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
    p = scan_next(t, sc, p, false);
    if (esc && p < n && d[p] == t->esc) {
      *flag = 1;
      p = p + 2 > n ? n : p + 2;
      continue;
    }
    return p;
  }
}

enum { REC_NONE = 0, REC_OK = 1, REC_UNTERMINATED = -1, REC_ABORT = -2, REC_NOMEM = -3 };

/* Receives field f of a record: bytes [s, e), flag as scan_field's.
 * Returns false to abort the record (REC_ABORT). */
typedef bool (*emit_fn)(void *ctx, int64_t f, int64_t s, int64_t e, int flag);

/* Tokenize the record starting at pos, handing its fields to emit.
 * Returns REC_OK (*nfields set), REC_NONE for a blank or comment line, or
 * an error (REC_UNTERMINATED: *errpos is where the quoted field started).
 * *next: the position after the record's terminator. */
static inline __attribute__((always_inline)) int tok_record(const tok *t, scanner *sc,
                                                             int64_t pos, emit_fn emit,
                                                             void *ctx, int64_t *nfields,
                                                             int64_t *next, int64_t *errpos) {
  const char *d = t->d;
  const int64_t n = t->n;
  if (pos >= n) {
    *next = n;
    return REC_NONE;
  }
  if (t->rstart[(uint8_t)d[pos]] && skip_line(t, pos, next)) return REC_NONE;
  int64_t fs = pos, f = 0;
  for (;;) {
    int flag;
    bool unterminated = false;
    int64_t p = scan_field(t, sc, fs, &flag, &unterminated, t->esc != 0);
    if (unterminated) {
      *errpos = fs;
      return REC_UNTERMINATED;
    }
    int64_t fe = p;
    bool last = p >= n || d[p] != t->sep;
    if (last && fe > fs && d[fe - 1] == '\r') fe--;
    if (!emit(ctx, f, fs, fe, flag)) return REC_ABORT;
    f++;
    if (last) {
      *nfields = f;
      *next = p >= n ? n : d[p] == '\n' ? p + 1 : line_end(t, p); /* else a comment */
      return REC_OK;
    }
    fs = p + 1; /* past the separator: another field follows, maybe empty */
  }
}

/* A growable list of raw fields: (start, end, needs_unquote) triples. */
typedef struct fieldbuf {
  int64_t *v;
  int64_t n, cap; /* in fields */
} fieldbuf;

static bool fb_push(void *ctx, int64_t f, int64_t s, int64_t e, int flag) {
  fieldbuf *fb = (fieldbuf *)ctx;
  (void)f;
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

/* tok_record into a fieldbuf (for the header and the row finders). */
static int parse_record(const tok *t, scanner *sc, int64_t pos, fieldbuf *fb, int64_t *next,
                        int64_t *errpos) {
  int64_t nf = 0;
  fb->n = 0;
  int rc = tok_record(t, sc, pos, fb_push, fb, &nf, next, errpos);
  return rc == REC_ABORT ? REC_NOMEM : rc;
}

/* The automaton tok_record implements, for the scan stage. */
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

/* Run the automaton over [a, b) from state s; returns the final state and
 * in *terms the number of '\n' bytes that end a record (or a blank or
 * comment line).  *first_rec receives the position right after the first
 * of them (b if none). */
static int dfa_run(const tok *t, int64_t a, int64_t b, int s, int64_t *first_rec,
                   int64_t *terms) {
  const char *d = t->d;
  int64_t p = a, nt = 0;
  *first_rec = b;
  while (p < b) {
    switch (s) {
      case S_QUO:
        while (p < b && !t->qspecial[(uint8_t)d[p]]) p++;
        if (p >= b) goto out;
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
        if (q == NULL) goto out;
        p = (int64_t)(q - d) + 1;
        s = S_REC;
        break;
      }
      case S_UNQ:
        while (p < b && !t->special[(uint8_t)d[p]]) p++;
        if (p >= b) goto out;
        s = step_out(t, s, d[p]);
        p++;
        break;
      default: /* S_REC, S_FIELD, S_QQ */
        s = step_out(t, s, d[p]);
        p++;
        break;
    }
    if (s == S_REC) {
      if (nt++ == 0) *first_rec = p;
    }
  }
out:
  *terms = nt;
  return s;
}

/* dfa_run for the usual dialect (a quote character, doublequote, no escape
 * or comment character), visiting only quotes: a quote outside quotes
 * opens a field only right after a separator or a '\n' (or at the start a,
 * from S_REC); record terminators are the '\n' bytes less those inside
 * quotes.  quote_step advances it over one block of up to 64 bytes at p
 * (qm, nm: its quote and '\n' bits) and returns 1 when a doubled quote
 * runs into the next block (whose bit 0 is then not a quote to look at). */
typedef struct qstate {
  int64_t a;      /* where the run started */
  int s0;         /* in state S_REC or S_QUO */
  bool in;        /* inside quotes */
  bool want_first; /* first record start not found yet (runs from S_QUO) */
  int64_t first, quoted_nl;
} qstate;

static inline int quote_step(const tok *t, qstate *qs, int64_t p, int64_t len, uint64_t qm,
                             uint64_t nm) {
  const char *d = t->d;
  int64_t i = 0;
  while (i < len) {
    uint64_t rest = qm >> i;
    int64_t q = rest ? i + __builtin_ctzll(rest) : len; /* next quote, or the end */
    if (qs->in || qs->want_first) {
      uint64_t lines = q - i >= 64 ? nm : (nm >> i) & ((UINT64_C(1) << (q - i)) - 1);
      if (lines && qs->in) {
        qs->quoted_nl += __builtin_popcountll(lines);
      } else if (lines) {
        qs->first = p + i + __builtin_ctzll(lines) + 1;
        qs->want_first = false;
      }
    }
    if (q >= len) return 0;
    int64_t at = p + q;
    if (qs->in) {
      if (at + 1 < t->n && d[at + 1] == t->quote) { /* a doubled quote */
        i = q + 2;
        if (i > len) return 1;
      } else {
        qs->in = false;
        i = q + 1;
      }
    } else {
      if (at == qs->a ? qs->s0 == S_REC : (d[at - 1] == t->sep || d[at - 1] == '\n'))
        qs->in = true;
      i = q + 1;
    }
  }
  return 0;
}

/* The state at the end of a run over [a, b) and its results. */
static int quote_end(const tok *t, const qstate *qs, int64_t a, int64_t b, int64_t nl,
                     int64_t *first_rec, int64_t *terms) {
  *first_rec = qs->first;
  *terms = nl - qs->quoted_nl;
  if (qs->in) return S_QUO;
  return b > a && t->d[b - 1] == '\n' ? S_REC : (b == a ? qs->s0 : S_UNQ);
}

/* Block bits of [p, p + len): quotes in *qm, '\n' in *nm. */
static inline void quote_bits(const tok *t, int64_t p, int64_t len, uint64_t *qm, uint64_t *nm) {
  const char *d = t->d;
  uint64_t q = 0, m = 0;
#if defined(__SSE2__)
  if (len == 64) {
    for (int i = 0; i < 4; i++) {
      __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(d + p + 16 * i));
      q |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, t->vquote)) << (16 * i);
      m |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, t->vnl)) << (16 * i);
    }
    *qm = q;
    *nm = m;
    return;
  }
#endif
  for (int64_t i = 0; i < len; i++) {
    q |= (uint64_t)(d[p + i] == t->quote) << i;
    m |= (uint64_t)(d[p + i] == '\n') << i;
  }
  *qm = q;
  *nm = m;
}

static int dfa_fast(const tok *t, int64_t a, int64_t b, int s, int64_t nl, int64_t *first_rec,
                    int64_t *terms) {
  qstate qs = {a, s, s == S_QUO, s == S_QUO, b, 0};
  uint64_t carry = 0;
  for (int64_t p = a; p < b; p += 64) {
    int64_t len = b - p < 64 ? b - p : 64;
    uint64_t qm, nm;
    quote_bits(t, p, len, &qm, &nm);
    carry = (uint64_t)quote_step(t, &qs, p, len, qm & ~carry, nm);
  }
  return quote_end(t, &qs, a, b, nl, first_rec, terms);
}

/* Undo quoting and escapes of a raw field into out (at most cap bytes;
 * the result never exceeds the raw length).  Returns the length. */
static int64_t unquote(const tok *t, const char *s, int64_t n, char *out, int64_t cap) {
  int64_t i = 0, j = 0;
  if (!t->esc) { /* copy the runs between quotes */
    if (t->quote && n > 0 && s[0] == t->quote) {
      i = 1;
      for (;;) {
        const char *q = (const char *)memchr(s + i, t->quote, (size_t)(n - i));
        int64_t e = q ? (int64_t)(q - s) : n, m = ZB_MIN(e - i, cap - j);
        memcpy(out + j, s + i, (size_t)m);
        j += m;
        i = e + 1;
        if (q == NULL || j >= cap) return j;
        if (!(t->dq && i < n && s[i] == t->quote)) break; /* the closing quote */
        out[j++] = t->quote; /* a doubled quote */
        i++;
        if (j >= cap) return j;
      }
    }
    int64_t m = ZB_MIN(n - i, cap - j);
    if (m > 0) memcpy(out + j, s + i, (size_t)m);
    return j + (m > 0 ? m : 0);
  }
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

/* unquote's result length for a dialect without an escape character,
 * without copying: the raw length less the quotes that unquoting drops. */
static int64_t unquoted_length(const tok *t, const char *s, int64_t n) {
  if (!t->quote || n == 0 || s[0] != t->quote) return n;
  int64_t i = 1, dropped = 1;
  for (;;) {
    const char *q = (const char *)memchr(s + i, t->quote, (size_t)(n - i));
    if (q == NULL) return n - dropped;
    i = (int64_t)(q - s) + 1;
    dropped++;
    if (!(t->dq && i < n && s[i] == t->quote)) return n - dropped; /* the closing quote */
    i++; /* a doubled quote: one of the two stays */
  }
}

/* ------------------------------------------------------------------------ */
/* Reader state                                                             */
/* ------------------------------------------------------------------------ */

/* A cell of the field index: the field's start relative to its chunk (low
 * 32 bits) and its length with CELL_FLAG when it needs unquoting (high 32
 * bits), or a length of CELL_MISSING for a field the record lacks. */
#define CELL_MISSING 0xFFFFFFFFu
#define CELL_FLAG 0x80000000u
#define CELL_MAXLEN 0x7FFFFFFEu
#define MISSING_CELL ((uint64_t)CELL_MISSING << 32)

typedef struct badline {
  int64_t pos, nfields;
} badline;

enum { ERR_NONE, ERR_UNTERMINATED, ERR_FIELDS, ERR_TOOLONG, ERR_NOMEM, ERR_VALUE,
       ERR_OVERFLOW, ERR_UTF8, ERR_BOUND };

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
  int64_t row0;       /* its first row in the output */
  int64_t nrows;      /* records it holds */
  /* parse outcome: the earliest error */
  zb_status st;
  int kind;
  int64_t err_pos, err_nfields, err_slot;
  char snip[48];
  badline *bad;       /* the first warnings->capacity bad lines */
  int64_t nbad, cap_bad;
} chunk;

/* How a chunk stores a column's values in the column's 8-byte slots. */
enum { REP_NONE, REP_BOOL, REP_INT, REP_UINT, REP_FLOAT, REP_DATE, REP_TS, REP_STR };

/* Inference bits: the types every value seen so far parses as. */
enum { B_BOOL = 1, B_INT = 2, B_UINT = 4, B_FLOAT = 8, B_DATE = 16, B_TS = 32, B_ALL = 63 };

/* One column of one chunk. */
typedef struct ccol {
  int mask;        /* inference bits of its values */
  int rep;         /* REP_*: how its values are stored so far */
  bool has_value;  /* a value that is not null */
  int64_t nulls;
  int64_t nchars;  /* REP_STR: bytes of its strings (unquoted) */
  int64_t *negzero; /* REP_INT/UINT: rows whose text was a negative zero */
  int64_t nnz, cap_nz;
  int64_t base, end; /* strings: its part of the column's characters */
} ccol;

typedef struct colinfo {
  const char *name;
  int64_t file_index;
  zb_type_id type;
  bool fixed;       /* type given by dtype or parse_dates */
  int width;        /* bytes per slot of vals */
  zb_buffer *vals;  /* one slot per row (+1: string offsets) */
  zb_buffer *valid; /* one bit per row */
  zb_buffer *chars; /* strings: every chunk's characters */
  int64_t nulls;
  zb_column *col;
} colinfo;

/* Per-worker scratch. */
typedef struct wscratch {
  uint64_t *idx, *idx2; /* batch x nsel field index (idx2: re-tokenizing) */
  int64_t *cols;        /* nsel column numbers */
  char *u, *num;        /* unquoted text; the float parser's slow path */
  int64_t ucap, ncap;
  bool nomem;
} wscratch;

#define MAX_WORKERS 4096

typedef struct na_set {
  const char *const *s;
  int64_t *len;
  int64_t n;
  uint64_t lens[256]; /* per first byte: bit k, some NA string has length k (63: longer) */
  int64_t maxlen;     /* of the NA strings */
  bool empty;         /* "" is NA */
} na_set;

typedef struct reader {
  const zb_csv_options *o;
  tok t;
  na_set na;
  int64_t data_start;
  int64_t ncols;    /* fields per record */
  char **names;     /* ncols final names (owned) */
  int64_t *slot_of; /* file column -> selected slot or -1 */
  int64_t *cell_of; /* file column -> slot * batch (its cells in a batch index) or -1 */
  int64_t nsel;
  colinfo *cols;
  chunk *chunks;
  int64_t nchunks;
  ccol *cc;         /* nchunks x nsel */
  int64_t ub_total; /* output slots */
  int64_t nrows;
  int64_t limit;    /* max rows, -1 none */
  int64_t batch;    /* rows per batch */
  wscratch **ws;    /* MAX_WORKERS, allocated on first use by each worker */
  int64_t scanned, parsed; /* atomic: input bytes done per stage */
  int64_t *strcols, nstr;  /* the string columns, for gather_task */
  int stop;                /* atomic: cancelled or out of memory */
} reader;

static inline ccol *ccol_of(const reader *r, int64_t k, int64_t j) {
  return &r->cc[k * r->nsel + j];
}

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

static bool grow(char **p, int64_t *cap, int64_t need) {
  if (need <= *cap) return true;
  int64_t c = need < 256 ? 256 : need < ((int64_t)1 << 20) ? need * 2 : need + (need >> 4);
  char *q = (char *)zb_malloc((size_t)c);
  if (q == NULL) return false;
  zb_free(*p);
  *p = q;
  *cap = c;
  return true;
}

/* ------------------------------------------------------------------------ */
/* NA strings                                                               */
/* ------------------------------------------------------------------------ */

static zb_status na_init(na_set *na, const zb_csv_options *o, zb_error *err) {
  int64_t n = (o->keep_default_na ? N_DEFAULT_NA : 0) + o->num_na_values;
  memset(na, 0, sizeof *na);
  const char **s = (const char **)zb_malloc((size_t)(n > 0 ? n : 1) * sizeof(char *));
  int64_t *len = (int64_t *)zb_malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  if (s == NULL || len == NULL) {
    zb_free(s);
    zb_free(len);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV NA values)");
  }
  na->s = s;
  na->len = len;
  int64_t k = 0;
  if (o->keep_default_na)
    for (int64_t i = 0; i < N_DEFAULT_NA; i++) s[k++] = k_default_na[i];
  for (int64_t i = 0; i < o->num_na_values; i++) {
    if (o->na_values[i] == NULL)
      return zb_error_set(err, ZB_EINVAL, "na_values[%lld] is NULL", (long long)i);
    s[k++] = o->na_values[i];
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

static inline bool is_na(const na_set *na, const char *s, int64_t n) {
  if (n == 0) return na->empty;
  uint64_t lens = na->lens[(uint8_t)s[0]];
  if (lens == 0 || !((lens >> (n < 63 ? n : 63)) & 1)) return false;
  for (int64_t i = 0; i < na->n; i++)
    if (na->len[i] == n && na->s[i][0] == s[0] && memcmp(na->s[i], s, (size_t)n) == 0)
      return true;
  return false;
}

/* ------------------------------------------------------------------------ */
/* Scan: NUL bytes, quotes, ASCII, lines; the automaton where quotes occur  */
/* ------------------------------------------------------------------------ */

static bool fast_dialect(const tok *t) { return t->quote && t->dq && !t->esc && !t->comment; }

/* One pass over a chunk: NUL bytes, quote or escape bytes, bytes >= 0x80,
 * '\n' bytes and, for the usual dialect, the automaton's run from S (the
 * blocks without quotes, outside quotes, cost nothing more). */
static void scan_bytes(const tok *t, chunk *c) {
  const char *d = t->d;
  int64_t p = c->start, b = c->end, nl = 0;
  bool nul = false, special = false, high = false;
  const bool fast = fast_dialect(t);
  qstate qs = {c->start, S_REC, false, false, b, 0};
  uint64_t carry = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  __m128i acc0 = zero, accq = zero, acch = zero;
  while (p + 64 <= b) {
    __m128i cnt = zero; /* '\n' per byte lane: at most 4 x 63 */
    int64_t stop = p + 64 * 63 <= b - 64 ? p + 64 * 63 : b - 63;
    for (; p < stop; p += 64) {
      __m128i q4 = zero;
      uint64_t qm = 0;
      for (int i = 0; i < 4; i++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(d + p + 16 * i));
        __m128i q = _mm_or_si128(_mm_cmpeq_epi8(v, t->vquote), _mm_cmpeq_epi8(v, t->vesc));
        acc0 = _mm_or_si128(acc0, _mm_cmpeq_epi8(v, zero));
        acch = _mm_or_si128(acch, v);
        cnt = _mm_sub_epi8(cnt, _mm_cmpeq_epi8(v, t->vnl));
        q4 = _mm_or_si128(q4, q);
        if (fast) qm |= (uint64_t)(uint32_t)_mm_movemask_epi8(q) << (16 * i);
      }
      accq = _mm_or_si128(accq, q4);
      if (fast && ((qm & ~carry) || qs.in)) {
        uint64_t qq, nm;
        quote_bits(t, p, 64, &qq, &nm);
        carry = (uint64_t)quote_step(t, &qs, p, 64, qm & ~carry, nm);
      } else {
        carry = 0;
      }
    }
    __m128i sums = _mm_sad_epu8(cnt, zero);
    nl += _mm_cvtsi128_si64(sums) + _mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums));
  }
  nul = _mm_movemask_epi8(acc0) != 0;
  special = _mm_movemask_epi8(accq) != 0; /* a disabled quote/escape (0) matches NUL only */
  high = _mm_movemask_epi8(acch) != 0;
#endif
  int64_t tail = p;
  for (; p < b; p++) {
    unsigned char ch = (unsigned char)d[p];
    nl += ch == '\n';
    nul |= ch == 0;
    special |= (t->quote && ch == (unsigned char)t->quote) || (t->esc && ch == (unsigned char)t->esc);
    high |= ch >= 0x80;
  }
  if (fast) /* the rest of the run from S, 64 bytes at a time */
    for (int64_t q = tail; q < b; q += 64) {
      int64_t len = b - q < 64 ? b - q : 64;
      uint64_t qm, nm;
      quote_bits(t, q, len, &qm, &nm);
      carry = (uint64_t)quote_step(t, &qs, q, len, qm & ~carry, nm);
    }
  c->nl = nl;
  c->quoted = special;
  c->ascii = !high;
  c->nul = -1;
  if (nul) {
    const char *z = (const char *)memchr(d + c->start, 0, (size_t)(b - c->start));
    c->nul = z ? (int64_t)(z - d) : -1;
  }
  if (fast) {
    int64_t first;
    c->end_s = quote_end(t, &qs, c->start, b, nl, &first, &c->term_s);
  }
}

static void run_from(const tok *t, chunk *c, int s) {
  int64_t first, terms;
  int e = fast_dialect(t) ? dfa_fast(t, c->start, c->end, s, c->nl, &first, &terms)
                          : dfa_run(t, c->start, c->end, s, &first, &terms);
  if (s == S_REC) {
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
static void run_plain(const tok *t, chunk *c) {
  c->end_s = c->end > c->start && t->d[c->end - 1] != '\n' ? S_UNQ : S_REC;
  c->term_s = c->nl;
  c->end_q = S_QUO;
  c->term_q = 0;
  c->first_q = c->end;
  c->have_q = true;
}

static void scan_task(void *ctx, int64_t k, int worker) {
  reader *r = (reader *)ctx;
  chunk *c = &r->chunks[k];
  if (!cancelled(r)) {
    scan_bytes(&r->t, c); /* for the usual dialect, with the run from S */
    if (c->nul < 0) {
      if (!c->quoted)
        run_plain(&r->t, c);
      else if (!fast_dialect(&r->t))
        run_from(&r->t, c, S_REC);
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
    if (e == S_QUO || e == S_EQUO) run_from(&r->t, c, S_QUO);
  }
}

/* ------------------------------------------------------------------------ */
/* Chunks: cutting, placing, output buffers                                 */
/* ------------------------------------------------------------------------ */

static zb_status make_chunks(reader *r, zb_error *err) {
  const tok *t = &r->t;
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
 * its records; their prefix sums are the chunks' first output rows. */
static void place_chunks(reader *r) {
  int state = S_REC;
  int64_t row = 0;
  for (int64_t k = 0; k < r->nchunks; k++) {
    chunk *c = &r->chunks[k];
    int e;
    int64_t terms;
    if (state == S_REC) {
      c->first = c->start;
      e = c->end_s;
      terms = c->term_s;
    } else {
      if (!c->have_q) run_from(&r->t, c, S_QUO); /* a quoted field spanning chunks */
      c->first = c->first_q;
      e = c->end_q;
      terms = c->term_q > 0 ? c->term_q - 1 : 0; /* the first ends the record begun before */
    }
    c->ub = c->first >= c->end ? 0 : terms + (e != S_REC);
    if (r->limit >= 0 && c->ub > r->limit - row) c->ub = r->limit - row;
    c->row0 = row;
    row += c->ub;
    state = (e == S_QUO || e == S_EQUO) ? S_QUO : S_REC;
  }
  r->ub_total = row;
}

static zb_status alloc_outputs(reader *r, zb_error *err) {
  int64_t n = r->ub_total;
  for (int64_t j = 0; j < r->nsel; j++) {
    colinfo *ci = &r->cols[j];
    zb_type_id ty = ci->type;
    bool slots8 = !ci->fixed || ty == ZB_BOOL || ty == ZB_STRING || ty == ZB_CATEGORICAL;
    ci->width = slots8 ? 8 : zb_type_width(ty);
    ZB_RETURN_NOT_OK(zb_buffer_new(ZB_CPU, (n + 1) * ci->width, &ci->vals, err));
    ZB_RETURN_NOT_OK(zb_buffer_new(ZB_CPU, (n + 7) / 8, &ci->valid, err));
    memset(ci->valid->data, 0xff, (size_t)((n + 7) / 8));
  }
  int64_t ncc = r->nchunks * r->nsel;
  r->cc = (ccol *)zb_calloc((size_t)(ncc > 0 ? ncc : 1), sizeof(ccol));
  if (r->cc == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV)");
  for (int64_t k = 0; k < r->nchunks; k++)
    for (int64_t j = 0; j < r->nsel; j++) {
      ccol *cc = ccol_of(r, k, j);
      zb_type_id ty = r->cols[j].type;
      cc->mask = B_ALL;
      cc->rep = !r->cols[j].fixed ? REP_NONE
                : (ty == ZB_STRING || ty == ZB_CATEGORICAL) ? REP_STR
                : ty == ZB_BOOL ? REP_BOOL : REP_NONE;
    }
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
  const tok *t = &r->t;
  const char *d = t->d;
  const int64_t n = t->n, end = c->end, cstart = c->start, ncols = r->ncols;
  const int64_t *cell_of = r->cell_of;
  const char sep = t->sep;
  const bool small = n - cstart <= (int64_t)CELL_MAXLEN; /* no offset or length can overflow */
  scanner sc;
  scanner_init(&sc);
  int64_t p = *pos, rows = 0;
  while (rows < maxrows && p < end) {
    int64_t next, rec = p;
    if (t->rstart[(uint8_t)d[p]] && skip_line(t, p, &next)) {
      p = next;
      continue;
    }
    uint64_t *row = idx + rows;
    int64_t f = 0, fs = p;
    for (;;) {
      int flag = 0;
      int64_t q;
      if (plain) {
        q = scan_next(t, &sc, fs, false);
      } else {
        bool unterminated = false;
        q = scan_field(t, &sc, fs, &flag, &unterminated, esc);
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
        if (!small && (fe - cstart > (int64_t)UINT32_MAX || fe - fs > (int64_t)CELL_MAXLEN)) {
          chunk_fail(c, ZB_ENOTSUP, ERR_TOOLONG, fs);
          goto out;
        }
        row[at] = (uint64_t)(fs - cstart) |
                  (uint64_t)((uint32_t)(fe - fs) | (flag ? CELL_FLAG : 0)) << 32;
      }
      f++;
      if (last) {
        next = q >= n ? n : d[q] == '\n' ? q + 1 : line_end(t, q); /* else a comment */
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
      if (cell_of[f] >= 0) row[cell_of[f]] = MISSING_CELL;
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

/* ------------------------------------------------------------------------ */
/* Parse: converting a batch's column                                       */
/* ------------------------------------------------------------------------ */

/* Where a chunk's cells point: its first byte and the input's end (kept in
 * registers by the conversion loops). */
typedef struct cview {
  const char *base, *dend;
} cview;

static inline cview cview_of(const reader *r, const chunk *c) {
  cview v = {r->t.d + c->start, r->t.d + r->t.n};
  return v;
}

/* The text of a cell: 1 = a value (*s, *n), of which at least 32 bytes
 * may be read; 0 = null (missing or an NA string); -1 = out of memory. */
static inline int cell_text(const reader *r, cview cv, uint64_t cell, wscratch *ws,
                            const char **s, int64_t *n) {
  uint32_t len = (uint32_t)(cell >> 32);
  if (len == CELL_MISSING) return 0;
  const char *p = cv.base + (uint32_t)cell;
  int64_t m = len & ~CELL_FLAG;
  if ((len & CELL_FLAG) || p + 32 > cv.dend) {
    /* In scratch, unquoted, with 32 bytes readable after the start. */
    if (m + 32 > ws->ucap && !grow(&ws->u, &ws->ucap, m + 32)) return -1;
    if (len & CELL_FLAG)
      m = unquote(&r->t, p, m, ws->u, m);
    else
      memcpy(ws->u, p, (size_t)m);
    p = ws->u;
  }
  if (is_na(&r->na, p, m)) return 0;
  *s = p;
  *n = m;
  return 1;
}

static inline void set_null(uint8_t *valid, int64_t g) {
  __atomic_fetch_and(&valid[g >> 3], (uint8_t) ~(1u << (g & 7)), __ATOMIC_RELAXED);
}

/* The unquoted text of a cell, cut to 40 bytes, for messages. */
static void cell_snippet(const reader *r, const chunk *c, uint64_t cell, char *buf, size_t cap) {
  uint32_t len = (uint32_t)(cell >> 32);
  int64_t m = len == CELL_MISSING ? 0 : (len & ~CELL_FLAG);
  char tmp[64];
  int64_t n = unquote(&r->t, r->t.d + c->start + (uint32_t)cell, m, tmp, 41);
  if (n > 40) {
    memcpy(tmp + 37, "...", 3);
    n = 40;
  }
  snprintf(buf, cap, "%.*s", (int)n, tmp);
}

static void value_fail(const reader *r, chunk *c, int64_t slot, uint64_t cell, zb_status st,
                       int kind) {
  int64_t pos = c->start + (uint32_t)cell;
  if (c->st != ZB_OK && c->err_pos <= pos) return;
  chunk_fail(c, st, kind, pos);
  c->err_slot = slot;
  cell_snippet(r, c, cell, c->snip, sizeof c->snip);
}

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

static bool note_negzero(ccol *cc, int64_t g) {
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

static inline bool parse_float(const char *s, int64_t n, char dec, char th, wscratch *ws,
                               double *v) {
  if (fast_f64(s, n, dec, v)) return true;
  if (n > 64) { /* long: a number only if it starts like one (inf and nan are short) */
    int64_t k = 0;
    while (k < n && (s[k] == ' ' || s[k] == '\t')) k++;
    if (k < n && s[k] != '+' && s[k] != '-' && s[k] != dec && (unsigned)(s[k] - '0') > 9)
      return false;
  }
  if (n + 1 > ws->ncap && !grow(&ws->num, &ws->ncap, n + 1)) {
    ws->nomem = true;
    return false;
  }
  return zb__text_parse_double(s, n, dec, th, ws->num, v);
}

/* Bits of the inference types s[0, n) parses as, among those in mask. */
static int classify(const char *s, int64_t n, int mask, char dec, char th, wscratch *ws) {
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

static int rep_of_type(zb_type_id ty) {
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

/* Strings: cells [i, nb) stay as cells in the slots (NA strings become
 * missing cells), to be copied once from the input when the column's
 * characters are gathered (gather_task); here they are checked (UTF-8) and
 * their bytes counted.  count: record nulls (false when converting rows
 * again). */
static void run_strings(reader *r, chunk *c, int64_t j, const uint64_t *cells, int64_t i,
                        int64_t nb, int64_t g0, wscratch *ws, bool count) {
  ccol *cc = ccol_of(r, c - r->chunks, j);
  colinfo *ci = &r->cols[j];
  uint64_t *v = (uint64_t *)ci->vals->data;
  uint8_t *valid = (uint8_t *)ci->valid->data;
  const tok *t = &r->t;
  const char *base = t->d + c->start, *cend = t->d + c->end;
  int64_t bytes = 0;
  bool has = false;
  for (; i < nb; i++) {
    int64_t g = g0 + i;
    uint64_t cell = cells[i];
    uint32_t len = (uint32_t)(cell >> 32);
    if (len != CELL_MISSING) {
      const char *p = base + (uint32_t)cell;
      int64_t m = len & ~CELL_FLAG;
      bool check = !c->ascii || p + m > cend;
      if ((len & CELL_FLAG) && !t->esc && m > 2 * r->na.maxlen + 2 &&
          (!check || zb__text_utf8_valid((const unsigned char *)p, m))) {
        /* Too long to be an NA string, valid UTF-8 with its quotes (so
         * without them): only its unquoted length is needed, not a copy. */
        v[g] = cell;
        bytes += unquoted_length(t, p, m);
        has = true;
        continue;
      }
      if (len & CELL_FLAG) {
        if (m + 1 > ws->ucap && !grow(&ws->u, &ws->ucap, m + 1)) {
          ws->nomem = true;
          break;
        }
        m = unquote(t, p, m, ws->u, m);
        p = ws->u;
      }
      if (!is_na(&r->na, p, m)) {
        if (check && !zb__text_utf8_valid((const unsigned char *)p, m)) {
          value_fail(r, c, j, cell, ZB_EPARSE, ERR_UTF8);
          break;
        }
        v[g] = cell;
        bytes += m;
        has = true;
        continue;
      }
    }
    v[g] = MISSING_CELL;
    if (count) set_null(valid, g), cc->nulls++;
  }
  cc->nchars += bytes;
  if (has) cc->has_value = true;
}

/* Inferred column, representation rep: convert cells [i, nb) into slots
 * g0 + i.. until a value does not fit rep; returns its index (or nb).
 * Always inlined with a constant rep, so each loop is type-specific. */
static inline __attribute__((always_inline)) int64_t run_values(
    reader *r, chunk *c, ccol *cc, colinfo *ci, const uint64_t *cells, int64_t i, int64_t nb,
    int64_t g0, wscratch *ws, const int rep) {
  int64_t *v = (int64_t *)ci->vals->data;
  uint8_t *valid = (uint8_t *)ci->valid->data;
  const char dec = r->o->decimal, th = r->o->thousands;
  const cview cv = cview_of(r, c);
  bool neg = false, any = false;
  for (; i < nb; i++) {
    int64_t g = g0 + i;
    const char *s;
    int64_t n;
    int k = cell_text(r, cv, cells[i], ws, &s, &n);
    if (k <= 0) {
      if (k < 0) {
        ws->nomem = true;
        break;
      }
      v[g] = 0;
      set_null(valid, g);
      cc->nulls++;
      continue;
    }
    if (rep == REP_INT || rep == REP_UINT) {
      int64_t x = 0;
      uint64_t u = 0;
      int rc = parse_integer(s, n, th, &x, &u);
      if (rep == REP_INT ? rc != ZB_TEXT_INT64 : !(rc == ZB_TEXT_UINT64 || (rc == ZB_TEXT_INT64 && x >= 0)))
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
      bool b;
      if (!zb__text_parse_bool(s, n, &b)) break;
      v[g] = b;
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
 * [0, nb); a value that does not parse is the chunk's error. */
static inline __attribute__((always_inline)) void run_fixed(reader *r, chunk *c, int64_t j,
                                                            const uint64_t *cells, int64_t nb,
                                                            int64_t g0, wscratch *ws,
                                                            const zb_type_id ty) {
  ccol *cc = ccol_of(r, c - r->chunks, j);
  colinfo *ci = &r->cols[j];
  char *data = (char *)ci->vals->data;
  uint8_t *valid = (uint8_t *)ci->valid->data;
  const char dec = r->o->decimal, th = r->o->thousands;
  const cview cv = cview_of(r, c);
  const int w = ci->width;
  for (int64_t i = 0; i < nb; i++) {
    int64_t g = g0 + i;
    char *slot = data + g * w;
    const char *s;
    int64_t n;
    int k = cell_text(r, cv, cells[i], ws, &s, &n);
    if (k <= 0) {
      if (k < 0) {
        ws->nomem = true;
        return;
      }
      memset(slot, 0, (size_t)w);
      set_null(valid, g);
      cc->nulls++;
      continue;
    }
    bool ok = true, over = false;
    if (ty == ZB_BOOL) {
      bool b = false;
      ok = zb__text_parse_bool(s, n, &b);
      *(int64_t *)slot = b;
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
      value_fail(r, c, j, cells[i], over ? ZB_EOVERFLOW : ZB_EPARSE, over ? ERR_OVERFLOW : ERR_VALUE);
      return;
    }
    cc->has_value = true;
  }
}

static void convert_fixed(reader *r, chunk *c, int64_t j, const uint64_t *cells, int64_t nb,
                          int64_t g0, wscratch *ws) {
  switch (r->cols[j].type) {
    case ZB_BOOL: run_fixed(r, c, j, cells, nb, g0, ws, ZB_BOOL); break;
    case ZB_INT8: run_fixed(r, c, j, cells, nb, g0, ws, ZB_INT8); break;
    case ZB_INT16: run_fixed(r, c, j, cells, nb, g0, ws, ZB_INT16); break;
    case ZB_INT32: run_fixed(r, c, j, cells, nb, g0, ws, ZB_INT32); break;
    case ZB_INT64: run_fixed(r, c, j, cells, nb, g0, ws, ZB_INT64); break;
    case ZB_UINT8: run_fixed(r, c, j, cells, nb, g0, ws, ZB_UINT8); break;
    case ZB_UINT16: run_fixed(r, c, j, cells, nb, g0, ws, ZB_UINT16); break;
    case ZB_UINT32: run_fixed(r, c, j, cells, nb, g0, ws, ZB_UINT32); break;
    case ZB_UINT64: run_fixed(r, c, j, cells, nb, g0, ws, ZB_UINT64); break;
    case ZB_FLOAT32: run_fixed(r, c, j, cells, nb, g0, ws, ZB_FLOAT32); break;
    case ZB_FLOAT64: run_fixed(r, c, j, cells, nb, g0, ws, ZB_FLOAT64); break;
    case ZB_DATE32: run_fixed(r, c, j, cells, nb, g0, ws, ZB_DATE32); break;
    default: run_fixed(r, c, j, cells, nb, g0, ws, ZB_TIMESTAMP); break;
  }
}

/* Tokenize the chunk's first nrows records again and convert the columns
 * cols[0, ncols) as strings (their nulls are already counted). */
static void retokenize_strings(reader *r, chunk *c, const int64_t *cols, int64_t ncols,
                               int64_t nrows, wscratch *ws) {
  if (ws->idx2 == NULL) {
    ws->idx2 = (uint64_t *)zb_malloc((size_t)(r->batch * r->nsel) * sizeof(uint64_t));
    if (ws->idx2 == NULL) {
      ws->nomem = true;
      return;
    }
  }
  int64_t pos = c->first, done = 0;
  while (done < nrows && !ws->nomem) {
    int64_t nb = tokenize_batch(r, c, ws->idx2, &pos, ZB_MIN(r->batch, nrows - done), false);
    if (nb == 0) break; /* cannot happen: these records were read before */
    for (int64_t q = 0; q < ncols; q++)
      run_strings(r, c, cols[q], ws->idx2 + cols[q] * r->batch, 0, nb, c->row0 + done, ws,
                  false);
    done += nb;
  }
}

/* In place, slots [a, b) of column j from representation `from` to `to`
 * (numbers only; see widen and fix_chunk). */
static void convert_slots(reader *r, int64_t k, int64_t j, int from, int to, int64_t a,
                          int64_t b) {
  int64_t *v = (int64_t *)r->cols[j].vals->data;
  ccol *cc = ccol_of(r, k, j);
  if (to == REP_FLOAT && (from == REP_INT || from == REP_UINT)) {
    for (int64_t g = a; g < b; g++) {
      double d = from == REP_INT ? (double)v[g] : (double)(uint64_t)v[g];
      memcpy(&v[g], &d, sizeof d);
    }
    for (int64_t q = 0; q < cc->nnz; q++) {
      double d = -0.0;
      if (cc->negzero[q] >= a && cc->negzero[q] < b) memcpy(&v[cc->negzero[q]], &d, sizeof d);
    }
  } else if (to == REP_TS && from == REP_DATE) {
    for (int64_t g = a; g < b; g++) v[g] *= INT64_C(86400000000);
  }
}

/* The value at cells[i] (not null) does not fit the chunk's representation
 * of column j: narrow the inference bits by it and convert the chunk's
 * rows so far (rows_done before this batch, i in it) to the new one. */
static void widen(reader *r, chunk *c, int64_t j, const uint64_t *cells, int64_t i,
                  int64_t rows_done, wscratch *ws) {
  int64_t k = c - r->chunks;
  ccol *cc = ccol_of(r, k, j);
  const char *s = "";
  int64_t n = 0;
  if (cell_text(r, cview_of(r, c), cells[i], ws, &s, &n) < 0) {
    ws->nomem = true;
    return;
  }
  int mask = cc->mask & classify(s, n, cc->mask, r->o->decimal, r->o->thousands, ws);
  int rep = rep_of_type(type_of(mask));
  if (rep == cc->rep) rep = REP_STR, mask = 0; /* cannot happen; never loop */
  int from = cc->rep;
  cc->mask = mask;
  cc->rep = rep;
  if (from == REP_NONE) return;
  int64_t g0 = c->row0 + rows_done;
  if (rep != REP_STR) {
    convert_slots(r, k, j, from, rep, c->row0, g0 + i);
    return;
  }
  /* To strings: the text of every earlier row, from the input again. */
  if (rows_done > 0) retokenize_strings(r, c, &j, 1, rows_done, ws);
  if (i > 0 && !ws->nomem) run_strings(r, c, j, cells, 0, i, g0, ws, false);
}

static void convert_batch(reader *r, chunk *c, int64_t j, const uint64_t *cells,
                          int64_t rows_done, int64_t nb, wscratch *ws) {
  colinfo *ci = &r->cols[j];
  ccol *cc = ccol_of(r, c - r->chunks, j);
  int64_t g0 = c->row0 + rows_done;
  if (ci->fixed && cc->rep != REP_STR) {
    convert_fixed(r, c, j, cells, nb, g0, ws);
    return;
  }
  int64_t i = 0;
  while (i < nb && !ws->nomem) {
    int64_t stop;
    switch (cc->rep) {
      case REP_STR: run_strings(r, c, j, cells, i, nb, g0, ws, true); return;
      case REP_BOOL: stop = run_values(r, c, cc, ci, cells, i, nb, g0, ws, REP_BOOL); break;
      case REP_INT: stop = run_values(r, c, cc, ci, cells, i, nb, g0, ws, REP_INT); break;
      case REP_UINT: stop = run_values(r, c, cc, ci, cells, i, nb, g0, ws, REP_UINT); break;
      case REP_FLOAT: stop = run_values(r, c, cc, ci, cells, i, nb, g0, ws, REP_FLOAT); break;
      case REP_DATE: stop = run_values(r, c, cc, ci, cells, i, nb, g0, ws, REP_DATE); break;
      case REP_TS: stop = run_values(r, c, cc, ci, cells, i, nb, g0, ws, REP_TS); break;
      default: { /* REP_NONE: nulls until the first value */
        int64_t *v = (int64_t *)ci->vals->data;
        uint8_t *valid = (uint8_t *)ci->valid->data;
        const char *s;
        int64_t n;
        for (stop = i; stop < nb; stop++) {
          int k = cell_text(r, cview_of(r, c), cells[stop], ws, &s, &n);
          if (k < 0) {
            ws->nomem = true;
            return;
          }
          if (k > 0) break;
          v[g0 + stop] = 0;
          set_null(valid, g0 + stop);
          cc->nulls++;
        }
        break;
      }
    }
    if (stop >= nb || ws->nomem) return;
    widen(r, c, j, cells, stop, rows_done, ws);
    i = stop;
  }
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
    for (int64_t j = 0; j < r->nsel && !ws->nomem; j++)
      convert_batch(r, c, j, ws->idx + j * r->batch, rows, nb, ws);
    if (ws->nomem) goto nomem;
    rows += nb;
    if (c->st != ZB_OK) break;
  }
  c->nrows = rows;
  if (c->st == ZB_OK && r->limit < 0) {
    /* Nothing but blank or comment lines may remain (else the bound was wrong). */
    int64_t next;
    while (pos < c->end && r->t.rstart[(uint8_t)r->t.d[pos]] && skip_line(&r->t, pos, &next))
      pos = next;
    if (pos < c->end) chunk_fail(c, ZB_EPARSE, ERR_BOUND, pos);
  }
  goto done;
nomem:
  chunk_fail(c, ZB_ENOMEM, ERR_NOMEM, c->start);
  if (ws != NULL) ws->nomem = false;
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
  scanner sc;
  scanner_init(&sc);
  zb_status st = ZB_OK;
  int64_t next = pos, errpos = pos, hdr_fields = -1, nrec = 0;
  int rc = REC_NONE;
  /* The header record (header >= 0) or the first record (to count fields). */
  while (pos < t->n) {
    rc = parse_record(t, &sc, pos, &fb, &next, &errpos);
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
/* ------------------------------------------------------------------------ */
/* Categoricals                                                             */
/* ------------------------------------------------------------------------ */

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


/* ------------------------------------------------------------------------ */
/* Finish: errors, gaps, types, strings, packing                            */
/* ------------------------------------------------------------------------ */

static zb_status nul_error(const reader *r, int64_t pos, zb_error *err) {
  const char *d = r->t.d;
  int64_t ls = pos;
  while (ls > 0 && d[ls - 1] != '\n') ls--;
  return zb_error_set(err, ZB_EPARSE, "CSV line %lld, character %lld: NUL byte in the input",
                      (long long)line_of(r, pos), (long long)(pos - ls + 1));
}

/* The earliest error of the parse, if any. */
static zb_status parse_error(reader *r, zb_error *err) {
  for (int64_t k = 0; k < r->nchunks; k++)
    if (r->chunks[k].kind == ERR_NOMEM)
      return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV parser)");
  if (cancelled(r)) return zb_error_set(err, ZB_ECANCEL, "CSV read cancelled");
  const chunk *best = NULL;
  for (int64_t k = 0; k < r->nchunks; k++) {
    const chunk *c = &r->chunks[k];
    if (c->st != ZB_OK && (best == NULL || c->err_pos < best->err_pos)) best = c;
  }
  if (best == NULL) return ZB_OK;
  long long line = (long long)line_of(r, best->err_pos);
  const colinfo *ci = best->kind >= ERR_VALUE && best->kind <= ERR_UTF8 ? &r->cols[best->err_slot]
                                                                         : NULL;
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
    case ERR_UTF8:
      return zb_error_set(err, ZB_EPARSE, "CSV line %lld, column '%s': invalid UTF-8", line,
                          ci->name);
    case ERR_OVERFLOW:
      return zb_error_set(err, ZB_EOVERFLOW,
                          "CSV line %lld, column '%s': value '%s' out of range for %s", line,
                          ci->name, best->snip, zb_type_name(ci->type));
    case ERR_VALUE:
      return zb_error_set(err, ZB_EPARSE, "CSV line %lld, column '%s': cannot parse '%s' as %s",
                          line, ci->name, best->snip, zb_type_name(ci->type));
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

/* Rows are placed by upper bounds; where blank or comment lines or bad
 * lines left gaps (or much unused room), move them together into buffers
 * of the right size. */
static zb_status compact(reader *r, zb_error *err) {
  int64_t n = 0;
  bool gaps = false;
  for (int64_t k = 0; k < r->nchunks; k++) {
    const chunk *c = &r->chunks[k];
    if (c->nrows > 0 && c->row0 != n) gaps = true;
    n += c->nrows;
  }
  r->nrows = n;
  int64_t slack = r->ub_total - n;
  if (!gaps && !(slack > 4096 && slack > n / 4)) return ZB_OK;
  for (int64_t j = 0; j < r->nsel; j++) {
    colinfo *ci = &r->cols[j];
    zb_buffer *vals = NULL, *valid = NULL;
    zb_status st = zb_buffer_new(ZB_CPU, (n + 1) * ci->width, &vals, err);
    if (st == ZB_OK) st = zb_buffer_new(ZB_CPU, (n + 7) / 8, &valid, err);
    if (st != ZB_OK) {
      zb_buffer_release(vals);
      return st;
    }
    memset(valid->data, 0xff, (size_t)((n + 7) / 8));
    int64_t at = 0;
    for (int64_t k = 0; k < r->nchunks; k++) {
      const chunk *c = &r->chunks[k];
      memcpy((char *)vals->data + at * ci->width, (const char *)ci->vals->data + c->row0 * ci->width,
             (size_t)(c->nrows * ci->width));
      zb__bitmap_copy((uint8_t *)valid->data, at, (const uint8_t *)ci->valid->data, c->row0,
                      c->nrows);
      ccol *cc = ccol_of(r, k, j);
      for (int64_t q = 0; q < cc->nnz; q++) cc->negzero[q] += at - c->row0;
      at += c->nrows;
    }
    zb_buffer_release(ci->vals);
    zb_buffer_release(ci->valid);
    ci->vals = vals;
    ci->valid = valid;
  }
  int64_t at = 0;
  for (int64_t k = 0; k < r->nchunks; k++) {
    r->chunks[k].row0 = at;
    at += r->chunks[k].nrows;
  }
  return ZB_OK;
}

/* Inferred columns: the type every value of the file parses as. */
static void resolve_types(reader *r) {
  for (int64_t j = 0; j < r->nsel; j++) {
    colinfo *ci = &r->cols[j];
    if (ci->fixed) continue;
    bool any = false;
    int mask = B_ALL;
    for (int64_t k = 0; k < r->nchunks; k++) {
      const ccol *cc = ccol_of(r, k, j);
      if (cc->has_value) any = true, mask &= cc->mask;
    }
    ci->type = r->nrows == 0 ? ZB_STRING : any ? type_of(mask) : ZB_FLOAT64;
  }
}

/* A chunk whose columns chose a narrower type than the file's: convert in
 * place, or re-tokenize it for the columns that are strings. */
static void fix_task(void *ctx, int64_t k, int worker) {
  reader *r = (reader *)ctx;
  chunk *c = &r->chunks[k];
  wscratch *ws = scratch_of(r, worker);
  if (ws != NULL && ws->cols == NULL)
    ws->cols = (int64_t *)zb_malloc((size_t)(r->nsel > 0 ? r->nsel : 1) * sizeof(int64_t));
  if (ws == NULL || ws->cols == NULL) goto nomem;
  int64_t nstr = 0;
  for (int64_t j = 0; j < r->nsel; j++) {
    colinfo *ci = &r->cols[j];
    ccol *cc = ccol_of(r, k, j);
    if (ci->fixed) continue;
    int want = rep_of_type(ci->type);
    if (cc->rep == want || cc->rep == REP_NONE) {
      cc->rep = want;
      continue;
    }
    if (want == REP_STR)
      ws->cols[nstr++] = j;
    else
      convert_slots(r, k, j, cc->rep, want, c->row0, c->row0 + c->nrows);
    cc->rep = want;
  }
  if (nstr > 0 && !cancelled(r)) retokenize_strings(r, c, ws->cols, nstr, c->nrows, ws);
  if (!ws->nomem) return;
nomem:
  chunk_fail(c, ZB_ENOMEM, ERR_NOMEM, c->start);
  if (ws != NULL) ws->nomem = false;
  __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
}

/* A chunk's strings of every string column: copied (unquoted) from the
 * input into the columns' characters, a few thousand rows at a time across
 * the columns so the input is read once from memory; each slot's cell
 * becomes the row's start offset. */
static void gather_task(void *ctx, int64_t k, int worker) {
  reader *r = (reader *)ctx;
  const chunk *c = &r->chunks[k];
  const tok *t = &r->t;
  const char *base = t->d + c->start, *dend = t->d + t->n;
  (void)worker;
  for (int64_t g0 = c->row0; g0 < c->row0 + c->nrows; g0 += 4096) {
    int64_t g1 = ZB_MIN(g0 + 4096, c->row0 + c->nrows);
    for (int64_t q = 0; q < r->nstr; q++) {
      colinfo *ci = &r->cols[r->strcols[q]];
      ccol *cc = ccol_of(r, k, r->strcols[q]);
      char *chars = (char *)ci->chars->data;
      uint64_t *v = (uint64_t *)ci->vals->data;
      int64_t at = cc->base, stop = cc->end - 32; /* 32-byte copies stay in this chunk's part */
      for (int64_t g = g0; g < g1; g++) {
        uint64_t cell = v[g];
        uint32_t len = (uint32_t)(cell >> 32);
        v[g] = (uint64_t)at;
        if (len == CELL_MISSING) continue;
        const char *p = base + (uint32_t)cell;
        int64_t m = len & ~CELL_FLAG;
        if (len & CELL_FLAG)
          m = unquote(t, p, m, chars + at, m);
        else if (m <= 16 && at <= stop && p + 16 <= dend)
          memcpy(chars + at, p, 16);
        else if (m <= 32 && at <= stop && p + 32 <= dend)
          memcpy(chars + at, p, 32);
        else
          memcpy(chars + at, p, (size_t)m);
        at += m;
      }
      cc->base = at;
    }
  }
}

/* Every string column's characters, gathered from the chunks. */
static zb_status gather_strings(reader *r, zb_error *err) {
  r->strcols = (int64_t *)zb_malloc((size_t)(r->nsel > 0 ? r->nsel : 1) * sizeof(int64_t));
  if (r->strcols == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV)");
  r->nstr = 0;
  for (int64_t j = 0; j < r->nsel; j++) {
    colinfo *ci = &r->cols[j];
    if (ci->type != ZB_STRING && ci->type != ZB_CATEGORICAL) continue;
    r->strcols[r->nstr++] = j;
    int64_t total = 0;
    for (int64_t k = 0; k < r->nchunks; k++) {
      ccol *cc = ccol_of(r, k, j);
      cc->base = total;
      total += cc->nchars;
      cc->end = total;
    }
    ZB_RETURN_NOT_OK(zb_buffer_new(ZB_CPU, total, &ci->chars, err));
    ((int64_t *)ci->vals->data)[r->nrows] = total;
  }
  if (r->nstr > 0) ZB_RETURN_NOT_OK(zb_parallel_for(r->nchunks, gather_task, r, err));
  return ZB_OK;
}

/* Booleans held in 8-byte slots -> bits; dates -> int32. */
static zb_status pack_column(reader *r, colinfo *ci, zb_error *err) {
  int64_t n = r->nrows;
  const int64_t *v = (const int64_t *)ci->vals->data;
  zb_buffer *out = NULL;
  if (ci->type == ZB_BOOL) {
    ZB_RETURN_NOT_OK(zb_buffer_new_zeroed(ZB_CPU, (n + 7) / 8, &out, err));
    uint8_t *bits = (uint8_t *)out->data;
    for (int64_t g = 0; g < n; g++) bits[g >> 3] |= (uint8_t)((v[g] != 0) << (g & 7));
  } else {
    ZB_RETURN_NOT_OK(zb_buffer_new(ZB_CPU, n * 4, &out, err));
    int32_t *days = (int32_t *)out->data;
    for (int64_t g = 0; g < n; g++) days[g] = (int32_t)v[g];
  }
  zb_buffer_release(ci->vals);
  ci->vals = out;
  ci->width = 0;
  return ZB_OK;
}

static zb_status finish_columns(reader *r, zb_error *err) {
  ZB_RETURN_NOT_OK(compact(r, err));
  resolve_types(r);
  if (r->nchunks > 0) {
    ZB_RETURN_NOT_OK(zb_parallel_for(r->nchunks, fix_task, r, err));
    ZB_RETURN_NOT_OK(parse_error(r, err));
  }
  ZB_RETURN_NOT_OK(gather_strings(r, err));
  for (int64_t j = 0; j < r->nsel; j++) {
    colinfo *ci = &r->cols[j];
    ci->nulls = 0;
    for (int64_t k = 0; k < r->nchunks; k++) ci->nulls += ccol_of(r, k, j)->nulls;
    zb_type_id ty = ci->type;
    if (ty == ZB_BOOL || (ty == ZB_DATE32 && ci->width == 8))
      ZB_RETURN_NOT_OK(pack_column(r, ci, err));
    zb_type_id as = ty == ZB_CATEGORICAL ? ZB_STRING : ty;
    ZB_RETURN_NOT_OK(zb_column_make(as, r->nrows, 0, ci->valid, ci->vals,
                                    as == ZB_STRING ? ci->chars : NULL, NULL, ci->nulls, &ci->col,
                                    err));
    if (ty == ZB_CATEGORICAL) ZB_RETURN_NOT_OK(encode_categorical(&ci->col, ci->name, err));
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
  zb_free(r->cell_of);
  if (r->cols)
    for (int64_t j = 0; j < r->nsel; j++) {
      zb_column_release(r->cols[j].col);
      zb_buffer_release(r->cols[j].vals);
      zb_buffer_release(r->cols[j].valid);
      zb_buffer_release(r->cols[j].chars);
    }
  zb_free(r->cols);
  if (r->cc)
    for (int64_t i = 0; i < r->nchunks * r->nsel; i++) zb_free(r->cc[i].negzero);
  zb_free(r->cc);
  zb_free(r->strcols);
  if (r->chunks)
    for (int64_t k = 0; k < r->nchunks; k++) zb_free(r->chunks[k].bad);
  zb_free(r->chunks);
  if (r->ws)
    for (int w = 0; w < MAX_WORKERS; w++) {
      wscratch *ws = r->ws[w];
      if (ws == NULL) continue;
      zb_free(ws->idx);
      zb_free(ws->idx2);
      zb_free(ws->cols);
      zb_free(ws->u);
      zb_free(ws->num);
      zb_free(ws);
    }
  zb_free(r->ws);
  zb_free((void *)r->na.s);
  zb_free(r->na.len);
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
    spans |= r->chunks[k].end_s == S_QUO || r->chunks[k].end_s == S_EQUO;
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
  tok_init(&r->t, data, size, o);
  r->ws = (wscratch **)zb_calloc(MAX_WORKERS, sizeof(wscratch *));
  if (r->ws == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV)");
  ZB_RETURN_NOT_OK(na_init(&r->na, o, err));
  int64_t pos = 0;
  for (int64_t i = 0; i < o->skiprows && pos < size; i++) pos = line_end(&r->t, pos);
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
  ZB_RETURN_NOT_OK(finish_columns(r, err));
  report_progress(r, 0);
  if (cancelled(r)) return zb_error_set(err, ZB_ECANCEL, "CSV read cancelled");
  zb_column **cols = (zb_column **)zb_malloc((size_t)(r->nsel > 0 ? r->nsel : 1) * sizeof(zb_column *));
  const char **names = (const char **)zb_malloc((size_t)(r->nsel > 0 ? r->nsel : 1) * sizeof(char *));
  if (cols == NULL || names == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV table)");
  } else {
    for (int64_t j = 0; j < r->nsel; j++) cols[j] = r->cols[j].col, names[j] = r->cols[j].name;
    st = zb_table_make(r->nsel, cols, names, out, err);
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
  zb_status st = read_impl(r, data ? data : "", size, out, err);
  reader_free(r);
  zb_free(r);
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
    scanner sc;
    scanner_init(&sc);
    int64_t nrec = 0, next = pos, errpos = pos;
    while (pos < t.n) {
      int rc = parse_record(&t, &sc, pos, &fb, &next, &errpos);
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
  scanner sc;
  scanner_init(&sc);
  int64_t pos = start, n = 0;
  while (n < nrows && pos < size) {
    int64_t next = pos, errpos = pos;
    int rc = parse_record(&t, &sc, pos, &fb, &next, &errpos);
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
