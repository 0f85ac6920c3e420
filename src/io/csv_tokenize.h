/*
 * csv_tokenize.h -- the CSV tokenizer the reader's files share: the
 * dialect (csv_tok), the 64-byte block scanner and the field scanner the
 * parse loop inlines, and what csv_tokenize.c implements: records into
 * field lists, the automaton the scan stage runs over whole chunks, and
 * unquoting.  The automaton: a quote opens a quoted field only at the
 * start of a field; inside one, a doubled quote (doublequote) or
 * escapechar+char is literal; text after the closing quote is appended;
 * separators, '\n' and the comment character end fields outside quotes;
 * a '\r' before the end of a record is dropped.
 */
#ifndef ZAMBEZI_IO_CSV_TOKENIZE_H
#define ZAMBEZI_IO_CSV_TOKENIZE_H

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/internal.h"
#include "zambezi/io_csv.h"

/* The dialect, and the input (after the BOM) it applies to. */
typedef struct csv_tok {
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
} csv_tok;

/* zb__csv_tok_init, zb__csv_scan_bytes and zb__csv_run are exported from
 * libzambezi (declared only here, not in include/) so that tests/c can
 * hold the scan pass against the byte-by-byte automaton; not public API. */

/* t for d[0, n) in the dialect of o (borrowed: t points into d). */
ZB_API void zb__csv_tok_init(csv_tok *t, const char *d, int64_t n, const zb_csv_options *o);

/* The position after the '\n' that ends the line at p, or t->n. */
static inline int64_t csv_line_end(const csv_tok *t, int64_t p) {
  const char *q = (const char *)memchr(t->d + p, '\n', (size_t)(t->n - p));
  return q ? (int64_t)(q - t->d) + 1 : t->n;
}

/* The positions of special bytes, 64 at a time: bit i of mu (mq) is set
 * when byte base + i is in t->special (t->qspecial). */
typedef struct csv_scanner {
  int64_t base;
  uint64_t mu, mq;
} csv_scanner;

static inline void csv_scanner_init(csv_scanner *sc) {
  sc->base = -128;
  sc->mu = sc->mq = 0;
}

static inline void csv_scan_block(const csv_tok *t, int64_t b, csv_scanner *sc) {
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
static inline int64_t csv_scan_next(const csv_tok *t, csv_scanner *sc, int64_t p,
                                    bool quoted) {
  for (;;) {
    uint64_t off = (uint64_t)p - (uint64_t)sc->base;
    if (off < 64) {
      uint64_t m = (quoted ? sc->mq : sc->mu) >> off;
      if (m != 0) return p + __builtin_ctzll(m);
      p = sc->base + 64;
    }
    if (p >= t->n) return t->n;
    csv_scan_block(t, p, sc);
  }
}

/* Whether the line at pos is blank (spaces, tabs and CRs that are not the
 * separator) or a comment; *next: the position after it. */
static inline bool csv_skip_line(const csv_tok *t, int64_t pos, int64_t *next) {
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
    *next = csv_line_end(t, p);
    return true;
  }
  return false;
}

/* The field starting at fs: returns the position of the byte that ends it
 * (separator, '\n', comment character) or t->n; *flag: it needs unquoting
 * (it starts with a quote or holds an escape): 2 when it is a quoted field
 * whose only quotes are its first and last byte (its '\r' before a '\n'
 * aside), so that dropping them unquotes it; else 1.  *unterminated: a quoted
 * field runs to the end of the input.  esc: t->esc is set (a constant where
 * it is inlined). */
static inline __attribute__((always_inline)) int64_t csv_scan_field(const csv_tok *t,
                                                                    csv_scanner *sc, int64_t fs,
                                                                    int *flag,
                                                                    bool *unterminated,
                                                                    const bool esc) {
  const char *d = t->d;
  const int64_t n = t->n;
  int64_t p = fs;
  *flag = 0;
  if (t->quote && p < n && d[p] == t->quote) {
    *flag = esc ? 1 : 2;
    p++;
    for (;;) {
      p = csv_scan_next(t, sc, p, true);
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
        *flag = 1;
        continue;
      }
      p++;
      /* The closing quote ends the field: nothing but the quotes to drop
       * when no quote was doubled and no escape seen. */
      if (*flag == 2 && (p >= n || d[p] == t->sep || d[p] == '\n')) return p;
      if (*flag == 2 && d[p] == '\r' && p + 1 < n && d[p + 1] == '\n') return p + 1;
      *flag = 1;
      break;
    }
  }
  for (;;) {
    p = csv_scan_next(t, sc, p, false);
    if (esc && p < n && d[p] == t->esc) {
      *flag = 1;
      p = p + 2 > n ? n : p + 2;
      continue;
    }
    return p;
  }
}

/* Results of tokenizing a record. */
enum {
  CSV_REC_NONE = 0,
  CSV_REC_OK = 1,
  CSV_REC_UNTERMINATED = -1,
  CSV_REC_ABORT = -2,
  CSV_REC_NOMEM = -3
};

/* A growable list of raw fields: (start, end, needs_unquote) triples. */
typedef struct csv_fieldbuf {
  int64_t *v;
  int64_t n, cap; /* in fields */
} csv_fieldbuf;

/* Tokenize the record at pos into fb (cleared first; its fields are
 * (start, end, needs_unquote) triples).  Returns CSV_REC_OK, CSV_REC_NONE
 * for a blank or comment line, CSV_REC_UNTERMINATED (*errpos: where the
 * quoted field started) or CSV_REC_NOMEM; *next: the position after the
 * record.  fb's items are the caller's to zb_free. */
int zb__csv_parse_record(const csv_tok *t, csv_scanner *sc, int64_t pos, csv_fieldbuf *fb,
                         int64_t *next, int64_t *errpos);

/* The states of the automaton the tokenizer implements, for the scan
 * stage: at a record start, at a field start, in an unquoted field, in a
 * quoted one, right after a quote in one, after an escape character
 * outside / inside quotes, in a comment. */
enum {
  CSV_S_REC,
  CSV_S_FIELD,
  CSV_S_UNQ,
  CSV_S_QUO,
  CSV_S_QQ,
  CSV_S_EUNQ,
  CSV_S_EQUO,
  CSV_S_COM
};


/* The usual dialect: a quote character, doublequote, no escape or comment
 * character (the scan stage then looks at quotes only). */
static inline bool csv_fast_dialect(const csv_tok *t) {
  return t->quote && t->dq && !t->esc && !t->comment;
}

/* What one pass over the bytes [start, end) finds. */
typedef struct csv_scan {
  int64_t nul;        /* the first NUL byte, or -1 */
  int64_t nl;         /* '\n' bytes */
  bool quoted, ascii; /* holds a quote or escape byte; only ASCII bytes */
  int end_s;          /* the usual dialect: the automaton's state at end from CSV_S_REC */
  int64_t term_s;     /* ... and the record terminators it passed */
} csv_scan;

/* One pass over [start, end) (the start of a record): NUL bytes, quote or
 * escape bytes, bytes >= 0x80, '\n' bytes and, for the usual dialect, the
 * automaton's run from CSV_S_REC (blocks without quotes, outside quotes,
 * cost nothing more). */
ZB_API void zb__csv_scan_bytes(const csv_tok *t, int64_t start, int64_t end, csv_scan *out);

/* Run the automaton over [a, b) from state s; returns the final state,
 * in *terms the number of '\n' bytes that end a record (or a blank or
 * comment line) and in *first_rec the position right after the first of
 * them (b if none).  nl: the '\n' bytes in [a, b). */
ZB_API int zb__csv_run(const csv_tok *t, int64_t a, int64_t b, int s, int64_t nl,
                       int64_t *first_rec, int64_t *terms);

/* Undo quoting and escapes of a raw field s[0, n) into out (at most cap
 * bytes; the result never exceeds the raw length).  Returns the length. */
int64_t zb__csv_unquote(const csv_tok *t, const char *s, int64_t n, char *out, int64_t cap);

/* zb__csv_unquote's result length without copying, for a dialect without
 * an escape character: the raw length less the quotes unquoting drops. */
int64_t zb__csv_unquoted_length(const csv_tok *t, const char *s, int64_t n);

#endif /* ZAMBEZI_IO_CSV_TOKENIZE_H */
