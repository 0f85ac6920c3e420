/*
 * csv_tokenize.c -- the CSV tokenizer's out-of-line parts (csv_tokenize.h):
 * the dialect's tables, whole records into field lists (the header, the
 * row finders), the automaton the scan stage runs over chunks -- byte by
 * byte for any dialect, or driven by the positions of quotes only
 * (dfa_fast) for the usual one -- the scan pass itself, and unquoting.
 * The parse loop that tokenizes the data records is the reader's
 * (csv_read.c), inlining the scanners of the header.
 */
#include "io/csv_tokenize.h"

/* ------------------------------------------------------------------------ */
/* The dialect                                                              */
/* ------------------------------------------------------------------------ */

void zb__csv_tok_init(csv_tok *t, const char *d, int64_t n, const zb_csv_options *o) {
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

/* ------------------------------------------------------------------------ */
/* Records into field lists                                                 */
/* ------------------------------------------------------------------------ */

/* Receives field f of a record: bytes [s, e), flag as csv_scan_field's.
 * Returns false to abort the record (CSV_REC_ABORT). */
typedef bool (*emit_fn)(void *ctx, int64_t f, int64_t s, int64_t e, int flag);

/* Tokenize the record starting at pos, handing its fields to emit.
 * Returns CSV_REC_OK (*nfields set), CSV_REC_NONE for a blank or comment line, or
 * an error (CSV_REC_UNTERMINATED: *errpos is where the quoted field started).
 * *next: the position after the record's terminator. */
static inline __attribute__((always_inline)) int tok_record(const csv_tok *t, csv_scanner *sc,
                                                             int64_t pos, emit_fn emit,
                                                             void *ctx, int64_t *nfields,
                                                             int64_t *next, int64_t *errpos) {
  const char *d = t->d;
  const int64_t n = t->n;
  if (pos >= n) {
    *next = n;
    return CSV_REC_NONE;
  }
  if (t->rstart[(uint8_t)d[pos]] && csv_skip_line(t, pos, next)) return CSV_REC_NONE;
  int64_t fs = pos, f = 0;
  for (;;) {
    int flag;
    bool unterminated = false;
    int64_t p = csv_scan_field(t, sc, fs, &flag, &unterminated, t->esc != 0);
    if (unterminated) {
      *errpos = fs;
      return CSV_REC_UNTERMINATED;
    }
    int64_t fe = p;
    bool last = p >= n || d[p] != t->sep;
    if (last && fe > fs && d[fe - 1] == '\r') fe--;
    if (!emit(ctx, f, fs, fe, flag)) return CSV_REC_ABORT;
    f++;
    if (last) {
      *nfields = f;
      *next = p >= n ? n : d[p] == '\n' ? p + 1 : csv_line_end(t, p); /* else a comment */
      return CSV_REC_OK;
    }
    fs = p + 1; /* past the separator: another field follows, maybe empty */
  }
}

static bool fb_push(void *ctx, int64_t f, int64_t s, int64_t e, int flag) {
  csv_fieldbuf *fb = (csv_fieldbuf *)ctx;
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

/* tok_record into a csv_fieldbuf (for the header and the row finders). */
int zb__csv_parse_record(const csv_tok *t, csv_scanner *sc, int64_t pos, csv_fieldbuf *fb,
                         int64_t *next,
                        int64_t *errpos) {
  int64_t nf = 0;
  fb->n = 0;
  int rc = tok_record(t, sc, pos, fb_push, fb, &nf, next, errpos);
  return rc == CSV_REC_ABORT ? CSV_REC_NOMEM : rc;
}

/* ------------------------------------------------------------------------ */
/* The automaton, for the scan stage                                        */
/* ------------------------------------------------------------------------ */

static inline int step_out(const csv_tok *t, int s, char c) {
  if (c == '\n') return CSV_S_REC;
  if (c == t->sep) return CSV_S_FIELD;
  if (t->comment && c == t->comment) return CSV_S_COM;
  if (t->esc && c == t->esc) return CSV_S_EUNQ;
  if (t->quote && c == t->quote) {
    if (s == CSV_S_REC || s == CSV_S_FIELD) return CSV_S_QUO;
    if (s == CSV_S_QQ) return t->dq ? CSV_S_QUO : CSV_S_UNQ;
  }
  return CSV_S_UNQ;
}

/* zb__csv_run for any dialect, byte by byte. */
static int dfa_run(const csv_tok *t, int64_t a, int64_t b, int s, int64_t *first_rec,
                   int64_t *terms) {
  const char *d = t->d;
  int64_t p = a, nt = 0;
  *first_rec = b;
  while (p < b) {
    switch (s) {
      case CSV_S_QUO:
        while (p < b && !t->qspecial[(uint8_t)d[p]]) p++;
        if (p >= b) goto out;
        s = (t->esc && d[p] == t->esc) ? CSV_S_EQUO : CSV_S_QQ;
        p++;
        continue;
      case CSV_S_EQUO:
        p++;
        s = CSV_S_QUO;
        continue;
      case CSV_S_EUNQ:
        p++;
        s = CSV_S_UNQ;
        continue;
      case CSV_S_COM: {
        const char *q = (const char *)memchr(d + p, '\n', (size_t)(b - p));
        if (q == NULL) goto out;
        p = (int64_t)(q - d) + 1;
        s = CSV_S_REC;
        break;
      }
      case CSV_S_UNQ:
        while (p < b && !t->special[(uint8_t)d[p]]) p++;
        if (p >= b) goto out;
        s = step_out(t, s, d[p]);
        p++;
        break;
      default: /* CSV_S_REC, CSV_S_FIELD, CSV_S_QQ */
        s = step_out(t, s, d[p]);
        p++;
        break;
    }
    if (s == CSV_S_REC) {
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
 * from CSV_S_REC); record terminators are the '\n' bytes less those inside
 * quotes.  quote_step advances it over one block of up to 64 bytes at p
 * (qm, nm: its quote and '\n' bits) and returns 1 when a doubled quote
 * runs into the next block (whose bit 0 is then not a quote to look at). */
typedef struct qstate {
  int64_t a;      /* where the run started */
  int s0;         /* in state CSV_S_REC or CSV_S_QUO */
  bool in;        /* inside quotes */
  bool want_first; /* first record start not found yet (runs from CSV_S_QUO) */
  int64_t first, quoted_nl;
} qstate;

static inline int quote_step(const csv_tok *t, qstate *qs, int64_t p, int64_t len, uint64_t qm,
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
      if (at == qs->a ? qs->s0 == CSV_S_REC : (d[at - 1] == t->sep || d[at - 1] == '\n'))
        qs->in = true;
      i = q + 1;
    }
  }
  return 0;
}

/* The state at the end of a run over [a, b) and its results. */
static int quote_end(const csv_tok *t, const qstate *qs, int64_t a, int64_t b, int64_t nl,
                     int64_t *first_rec, int64_t *terms) {
  *first_rec = qs->first;
  *terms = nl - qs->quoted_nl;
  if (qs->in) return CSV_S_QUO;
  return b > a && t->d[b - 1] == '\n' ? CSV_S_REC : (b == a ? qs->s0 : CSV_S_UNQ);
}

#if defined(__SSE2__)
/* Block bits of the 64 bytes in v: quotes in *qm, '\n' in *nm, separators
 * in *sm. */
static inline void quote_bits_v(const csv_tok *t, const __m128i v[4], uint64_t *qm,
                                uint64_t *nm, uint64_t *sm) {
  uint64_t q = 0, m = 0, s = 0;
  for (int i = 0; i < 4; i++) {
    q |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v[i], t->vquote)) << (16 * i);
    m |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v[i], t->vnl)) << (16 * i);
    s |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v[i], t->vsep)) << (16 * i);
  }
  *qm = q;
  *nm = m;
  *sm = s;
}
#endif

/* Block bits of [p, p + len): quotes in *qm, '\n' in *nm, separators in
 * *sm. */
static inline void quote_bits(const csv_tok *t, int64_t p, int64_t len, uint64_t *qm,
                              uint64_t *nm, uint64_t *sm) {
  const char *d = t->d;
  uint64_t q = 0, m = 0, s = 0;
#if defined(__SSE2__)
  if (len == 64) {
    __m128i v[4];
    for (int i = 0; i < 4; i++)
      v[i] = _mm_loadu_si128((const __m128i *)(const void *)(d + p + 16 * i));
    quote_bits_v(t, v, qm, nm, sm);
    return;
  }
#endif
  for (int64_t i = 0; i < len; i++) {
    q |= (uint64_t)(d[p + i] == t->quote) << i;
    m |= (uint64_t)(d[p + i] == '\n') << i;
    s |= (uint64_t)(d[p + i] == t->sep) << i;
  }
  *qm = q;
  *nm = m;
  *sm = s;
}

/* Bit i of the result: an odd number of x's bits 0..i are set. */
static inline uint64_t prefix_xor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

/* quote_step over a whole block of 64 bytes at p, without a loop over its
 * quotes: every quote toggles "inside", which is quote_step's automaton
 * as long as each quote that takes the run inside comes right after a
 * separator, a '\n' or a quote that just left (a doubled quote); qm has
 * the quotes (less bit 0 when *carry), nm the '\n' and sm the separator
 * bytes.  Returns false, changing nothing, when some quote would be
 * literal text (quote_step then takes the block); else the state and
 * *carry are quote_step's after the block. */
static inline bool quote_block(const csv_tok *t, qstate *qs, int64_t p, uint64_t qm,
                               uint64_t nm, uint64_t sm, uint64_t *carry) {
  const char *d = t->d;
  uint64_t inside = prefix_xor(qm) ^ (qs->in ? ~UINT64_C(0) : 0);
  uint64_t opens = qm & inside, closes = qm & ~inside;
  uint64_t start = p == qs->a ? qs->s0 == CSV_S_REC : d[p - 1] == t->sep || d[p - 1] == '\n';
  if (opens & ~(((sm | nm | closes) << 1) | start)) return false;
  if (qs->want_first) return false;
  qs->quoted_nl += __builtin_popcountll(nm & inside);
  qs->in = inside >> 63;
  *carry = 0;
  if (!qs->in && (closes >> 63) && p + 64 < t->n && d[p + 64] == t->quote) {
    qs->in = true; /* a doubled quote runs into the next block */
    *carry = 1;
  }
  return true;
}

static int dfa_fast(const csv_tok *t, int64_t a, int64_t b, int s, int64_t nl, int64_t *first_rec,
                    int64_t *terms) {
  qstate qs = {a, s, s == CSV_S_QUO, s == CSV_S_QUO, b, 0};
  uint64_t carry = 0;
  for (int64_t p = a; p < b; p += 64) {
    int64_t len = b - p < 64 ? b - p : 64;
    uint64_t qm, nm, sm;
    quote_bits(t, p, len, &qm, &nm, &sm);
    if (len < 64 || !quote_block(t, &qs, p, qm & ~carry, nm, sm, &carry))
      carry = (uint64_t)quote_step(t, &qs, p, len, qm & ~carry, nm);
  }
  return quote_end(t, &qs, a, b, nl, first_rec, terms);
}


int zb__csv_run(const csv_tok *t, int64_t a, int64_t b, int s, int64_t nl, int64_t *first_rec,
                int64_t *terms) {
  return csv_fast_dialect(t) ? dfa_fast(t, a, b, s, nl, first_rec, terms)
                             : dfa_run(t, a, b, s, first_rec, terms);
}

void zb__csv_scan_bytes(const csv_tok *t, int64_t start, int64_t end, csv_scan *out) {
  const char *d = t->d;
  int64_t p = start, b = end, nl = 0;
  bool nul = false, special = false, high = false;
  const bool fast = csv_fast_dialect(t);
  qstate qs = {start, CSV_S_REC, false, false, b, 0};
  uint64_t carry = 0;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  __m128i acc0 = zero, accq = zero, acch = zero;
  while (p + 64 <= b) {
    __m128i cnt = zero; /* '\n' per byte lane: at most 4 x 63 */
    int64_t stop = p + 64 * 63 <= b - 64 ? p + 64 * 63 : b - 63;
    for (; p < stop; p += 64) {
      __m128i q4 = zero, v[4];
      uint64_t qm = 0;
      for (int i = 0; i < 4; i++) {
        v[i] = _mm_loadu_si128((const __m128i *)(const void *)(d + p + 16 * i));
        __m128i q = _mm_or_si128(_mm_cmpeq_epi8(v[i], t->vquote), _mm_cmpeq_epi8(v[i], t->vesc));
        acc0 = _mm_or_si128(acc0, _mm_cmpeq_epi8(v[i], zero));
        acch = _mm_or_si128(acch, v[i]);
        cnt = _mm_sub_epi8(cnt, _mm_cmpeq_epi8(v[i], t->vnl));
        q4 = _mm_or_si128(q4, q);
        if (fast) qm |= (uint64_t)(uint32_t)_mm_movemask_epi8(q) << (16 * i);
      }
      accq = _mm_or_si128(accq, q4);
      if (fast && ((qm & ~carry) || qs.in)) { /* the block's bits from the vectors held */
        uint64_t qq, nm, sm;
        quote_bits_v(t, v, &qq, &nm, &sm);
        if (!quote_block(t, &qs, p, qq & ~carry, nm, sm, &carry))
          carry = (uint64_t)quote_step(t, &qs, p, 64, qq & ~carry, nm);
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
    special |= (t->quote && ch == (unsigned char)t->quote) ||
               (t->esc && ch == (unsigned char)t->esc);
    high |= ch >= 0x80;
  }
  if (fast) /* the rest of the run from S, 64 bytes at a time */
    for (int64_t q = tail; q < b; q += 64) {
      int64_t len = b - q < 64 ? b - q : 64;
      uint64_t qm, nm, sm;
      quote_bits(t, q, len, &qm, &nm, &sm);
      carry = (uint64_t)quote_step(t, &qs, q, len, qm & ~carry, nm);
    }
  out->nl = nl;
  out->quoted = special;
  out->ascii = !high;
  out->nul = -1;
  if (nul) {
    const char *z = (const char *)memchr(d + start, 0, (size_t)(b - start));
    out->nul = z ? (int64_t)(z - d) : -1;
  }
  out->end_s = CSV_S_REC;
  out->term_s = 0;
  if (fast) {
    int64_t first;
    out->end_s = quote_end(t, &qs, start, b, nl, &first, &out->term_s);
  }
}

/* ------------------------------------------------------------------------ */
/* Unquoting                                                                */
/* ------------------------------------------------------------------------ */

int64_t zb__csv_unquote(const csv_tok *t, const char *s, int64_t n, char *out, int64_t cap) {
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

int64_t zb__csv_unquoted_length(const csv_tok *t, const char *s, int64_t n) {
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
/* Lines that end in a lone '\r'                                            */
/* ------------------------------------------------------------------------ */

zb_status zb_csv_cr_lines(const char *d, int64_t n, const zb_csv_options *o, char **out,
                           zb_error *err) {
  *out = NULL;
  if (n <= 0 || memchr(d, '\n', (size_t)n) != NULL || memchr(d, '\r', (size_t)n) == NULL)
    return ZB_OK;
  char *c = (char *)zb_malloc((size_t)n);
  if (c == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (CSV line ends)");
  memcpy(c, d, (size_t)n);
  /* the tokenizer's states, enough of them to tell a quoted '\r' */
  enum { OUT, QUO, QQ } s = OUT;
  bool field_start = true;
  const char q = o->quotechar, e = o->escapechar;
  for (int64_t i = 0; i < n; i++) {
    char ch = c[i];
    if (e && ch == e) { /* the escaped byte is taken as it is */
      i++;
      field_start = false;
      if (s == QQ) s = OUT;
      continue;
    }
    if (s == QUO) {
      if (ch == q) s = QQ;
      continue;
    }
    if (s == QQ) {
      s = OUT;
      if (ch == q && o->doublequote) {
        s = QUO;
        continue;
      }
      field_start = false;
    }
    if (q && ch == q && field_start) {
      s = QUO;
    } else if (o->comment && ch == o->comment) { /* a comment runs to the line's end */
      while (i + 1 < n && c[i + 1] != '\r') i++;
      field_start = false;
    } else if (ch == '\r') {
      c[i] = '\n';
      field_start = true;
    } else {
      field_start = ch == o->sep;
    }
  }
  *out = c;
  return ZB_OK;
}
