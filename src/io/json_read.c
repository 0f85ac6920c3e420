/*
 * json_read.c -- the parallel JSON reader: zb_json_read_buffer (JSON lines,
 * or one array of objects).  This file finds where values are; turning
 * them into typed columns is the column builder's job (builder.h), shared
 * with the CSV reader: each value goes to it as a text cell.
 *
 * Stages:
 *   1. chunking: JSON lines are cut into chunks of a few MB that each start
 *      right after a '\n' (a raw newline cannot occur inside a JSON value,
 *      so every chunk starts at a record).  An array of objects is one
 *      chunk.
 *   The sample (JSON lines): the first SAMPLE_RECORDS records of the
 *   first chunk are scanned as stage 2 scans them; the scan of chunk 0
 *   later resumes where the sample stopped, and an error in the sample is
 *   the input's first.  Where the sample read the whole input (one chunk),
 *   it was the scan: stage 3 follows.
 *   The one pass (JSON lines): when the sample brought no new key in its
 *   second half, its keys and the kinds of their values give the
 *   columns (stage 3 on the sample alone); each chunk's records are
 *   counted (its non-blank lines, no parsing) and stage 4 parses and
 *   validates each record once.  A chunk that holds a key the sample did
 *   not, or a kind of value that would change a column's type, sends the
 *   read back to the two passes below (nothing reported): every chunk
 *   stops parsing at its next batch.
 *   2. scan (parallel per chunk): every record is parsed and validated in
 *      full (grammar, escapes, surrogate pairs, UTF-8 of keys, nesting
 *      depth); the chunk's keys are collected in first-seen order with the
 *      kinds of value each holds (string, number, bool, nested), and its
 *      records counted.  The first error of each chunk is kept; the one
 *      earliest in the input is reported, so messages do not depend on the
 *      thread count.
 *   3. merge (sequential): the chunks' keys, in chunk order, give the
 *      columns in first-seen order; each column's kinds decide its type
 *      (io_json.h).
 *   4. parse (parallel per chunk; a chunk is one part of the builder): the
 *      records are parsed again (known valid now) in batches into a small
 *      column-major index of text cells -- a string's cell is its bytes
 *      between the quotes, flagged when it holds escapes; a number's or a
 *      literal's its text; a nested value's its whole JSON text; a missing
 *      key or null a null cell -- and each column of the batch goes to the
 *      builder.  Keys are looked up by the key seen at the same place in
 *      the previous record first, then in the chunk's hash table.
 *   5. finish (the builder); a column of arrays of one kind of value
 *      becomes a list column by reading its elements again (arrays_to_list).
 * Line numbers are computed on demand by counting '\n' bytes before the
 * offending byte.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/builder.h"
#include "io/text_format.h"
#include "io/text_values.h"
#include "zambezi/io.h"

void zb_json_read_options_init(zb_json_read_options *o) {
  memset(o, 0, sizeof *o);
  o->lines = true;
  o->nrows = -1;
  o->coerce_numbers = true;
}

/* ------------------------------------------------------------------------ */
/* State                                                                    */
/* ------------------------------------------------------------------------ */

/* Kinds of value a key holds. */
enum { K_STR = 1, K_NUM = 2, K_BOOL = 4, K_NEST = 8 };

#define MAX_DEPTH 512
#define CHUNK_BYTES ((int64_t)4 << 20)

/* A key of a chunk (or of the merged dictionary). */
typedef struct jkey {
  const char *s; /* decoded bytes: into the input, or into own */
  int64_t n;
  uint64_t h;
  char *own;      /* decoded copy when the key held escapes (owned) */
  int kinds;      /* K_* */
  bool plain;     /* no '"', '\\' or control byte: its JSON text is its bytes */
  int64_t gid;    /* merged column number */
} jkey;

/* Keys in first-seen order plus an open-addressing table of their numbers. */
typedef struct kdict {
  jkey *keys;
  int64_t n, cap;
  int64_t *tab; /* slot -> key number, -1 empty */
  int64_t tcap; /* power of two */
} kdict;

typedef struct jchunk {
  int64_t start, end; /* input bytes [start, end) */
  int64_t nrows;      /* records (stage 2, or counted for the one pass) */
  kdict keys;
  kdict *look;        /* where parse mode looks keys up: &keys, or the merged
                         keys (one pass: their gid is their number) */
  int *kinds;         /* one pass: the K_* each column held here (ncols) */
  bool new_key;       /* one pass: a key the sample did not have */
  /* where the scan (stage 2) starts: the chunk's start, or (chunk 0) where
   * the sample stopped, with the records and keys it had found; scanned:
   * the sample read the whole chunk */
  int64_t resume, resume_rows;
  bool scanned;
  zb_status st;       /* first error */
  int64_t err_pos;
  char msg[160];
} jchunk;

typedef struct wscratch {
  uint64_t *idx, *idx2; /* batch x ncols cells (idx2: refetch) */
  int64_t *pred;        /* key number by field position in the previous record */
  int64_t npred;
  char *kbuf;           /* decoded key */
  int64_t kcap;
} wscratch;

typedef struct reader {
  const zb_json_read_options *o;
  const char *d;
  int64_t n;
  jchunk *chunks;
  int64_t nchunks;
  kdict all;        /* merged keys */
  char **names;     /* ncols NUL-terminated names (owned) */
  int64_t ncols;
  int64_t batch;
  zb__builder *b;
  zb__worker_slots ws; /* wscratch *, made on first use */
  int stop;         /* atomic */
  int abandon;      /* atomic: the one pass met what it cannot read */
} reader;

/* ------------------------------------------------------------------------ */
/* Key dictionary                                                           */
/* ------------------------------------------------------------------------ */

/* a[0, n) == b[0, n), inline for the short keys of most records. */
static inline bool same_bytes(const char *a, const char *b, int64_t n) {
  for (; n >= 8; n -= 8, a += 8, b += 8) {
    uint64_t x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    if (x != y) return false;
  }
  for (; n > 0; n--)
    if (*a++ != *b++) return false;
  return true;
}

static uint64_t hash_bytes(const char *s, int64_t n) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)n;
  for (int64_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
  return h ^ (h >> 29);
}

static void kdict_free(kdict *k) {
  for (int64_t i = 0; i < k->n; i++) zb_free(k->keys[i].own);
  zb_free(k->keys);
  zb_free(k->tab);
  memset(k, 0, sizeof *k);
}

static int64_t kdict_find(const kdict *k, const char *s, int64_t n, uint64_t h) {
  if (k->tcap == 0) return -1;
  for (uint64_t i = h & (uint64_t)(k->tcap - 1);; i = (i + 1) & (uint64_t)(k->tcap - 1)) {
    int64_t e = k->tab[i];
    if (e < 0) return -1;
    const jkey *q = &k->keys[e];
    if (q->h == h && q->n == n && memcmp(q->s, s, (size_t)n) == 0) return e;
  }
}

/* Add key s[0, n) (not present); copy: keep a copy of the bytes.  Returns
 * its number, or -1 when out of memory. */
static int64_t kdict_add(kdict *k, const char *s, int64_t n, uint64_t h, bool copy) {
  if (k->n == k->cap) {
    int64_t cap = k->cap ? k->cap * 2 : 16;
    jkey *nk = (jkey *)zb_malloc((size_t)cap * sizeof(jkey));
    if (nk == NULL) return -1;
    if (k->n) memcpy(nk, k->keys, (size_t)k->n * sizeof(jkey));
    zb_free(k->keys);
    k->keys = nk;
    k->cap = cap;
  }
  if ((k->n + 1) * 2 > k->tcap) {
    int64_t tcap = k->tcap ? k->tcap * 2 : 32;
    int64_t *t = (int64_t *)zb_malloc((size_t)tcap * sizeof(int64_t));
    if (t == NULL) return -1;
    memset(t, 0xff, (size_t)tcap * sizeof(int64_t));
    for (int64_t e = 0; e < k->n; e++) {
      uint64_t i = k->keys[e].h & (uint64_t)(tcap - 1);
      while (t[i] >= 0) i = (i + 1) & (uint64_t)(tcap - 1);
      t[i] = e;
    }
    zb_free(k->tab);
    k->tab = t;
    k->tcap = tcap;
  }
  jkey *q = &k->keys[k->n];
  memset(q, 0, sizeof *q);
  if (copy) {
    q->own = (char *)zb_malloc((size_t)n + 1);
    if (q->own == NULL) return -1;
    memcpy(q->own, s, (size_t)n);
    q->own[n] = '\0';
    q->s = q->own;
  } else {
    q->s = s;
  }
  q->n = n;
  q->h = h;
  q->gid = -1;
  q->plain = true;
  for (int64_t i = 0; i < n; i++)
    if (s[i] == '"' || s[i] == '\\' || (uint8_t)s[i] < 0x20) q->plain = false;
  uint64_t i = h & (uint64_t)(k->tcap - 1);
  while (k->tab[i] >= 0) i = (i + 1) & (uint64_t)(k->tcap - 1);
  k->tab[i] = k->n;
  return k->n++;
}

/* ------------------------------------------------------------------------ */
/* Tokens                                                                   */
/* ------------------------------------------------------------------------ */

/* A parse position; err set (with the failing position) on the first
 * error. */
typedef struct jp {
  const char *base; /* the input */
  const char *p, *end;
  const char *err_at;
  const char *err;
} jp;

static bool fail(jp *j, const char *at, const char *why) {
  if (j->err == NULL) j->err = why, j->err_at = at;
  return false;
}

static inline void skip_ws(jp *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n'))
    j->p++;
}

static inline int hexv(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static bool hex4(const char *s, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    int h = hexv(s[i]);
    if (h < 0) return false;
    v = v * 16 + (unsigned)h;
  }
  *out = v;
  return true;
}

/* A string at j->p (on its '"'): on success j->p is past the closing quote,
 * [*s, *s + *n) its raw contents, *esc whether it holds escapes. */
static bool parse_string(jp *j, const char **s, int64_t *n, bool *esc) {
  const char *p = j->p + 1, *e = j->end;
  bool has = false;
  *s = p;
  for (;;) {
    /* eight bytes at a time while none is '"', '\\' or a control byte */
    while (e - p >= 8) {
      uint64_t w;
      memcpy(&w, p, 8);
      const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
      uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
      uint64_t hit = ((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w);
      if (hit & highs) break;
      p += 8;
    }
    while (p < e && *p != '"' && *p != '\\' && (uint8_t)*p >= 0x20) p++;
    if (p >= e) return fail(j, j->p, "unterminated string");
    if (*p == '"') break;
    if ((uint8_t)*p < 0x20) return fail(j, p, "control character in a string (escape it)");
    has = true;
    if (p + 1 >= e) return fail(j, p, "unterminated string");
    char c = p[1];
    if (c == 'u') {
      unsigned u, lo;
      if (p + 6 > e || !hex4(p + 2, &u)) return fail(j, p, "bad \\u escape (4 hex digits)");
      if (u >= 0xDC00 && u <= 0xDFFF) return fail(j, p, "lone low surrogate \\u escape");
      if (u >= 0xD800 && u <= 0xDBFF) {
        if (p + 12 > e || p[6] != '\\' || p[7] != 'u' || !hex4(p + 8, &lo) || lo < 0xDC00 ||
            lo > 0xDFFF)
          return fail(j, p, "high surrogate \\u escape not followed by a low one");
        p += 12;
      } else {
        p += 6;
      }
    } else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' ||
               c == 'r' || c == 't') {
      p += 2;
    } else {
      return fail(j, p, "bad escape in a string");
    }
  }
  *n = p - *s;
  *esc = has;
  j->p = p + 1;
  return true;
}

static bool parse_number(jp *j) {
  const char *p = j->p, *e = j->end, *s = p;
  if (p < e && *p == '-') p++;
  if (p >= e || *p < '0' || *p > '9') return fail(j, s, "bad number");
  if (*p == '0') {
    p++;
  } else {
    while (p < e && *p >= '0' && *p <= '9') p++;
  }
  if (p < e && *p == '.') {
    p++;
    if (p >= e || *p < '0' || *p > '9') return fail(j, s, "bad number");
    while (p < e && *p >= '0' && *p <= '9') p++;
  }
  if (p < e && (*p == 'e' || *p == 'E')) {
    p++;
    if (p < e && (*p == '+' || *p == '-')) p++;
    if (p >= e || *p < '0' || *p > '9') return fail(j, s, "bad number");
    while (p < e && *p >= '0' && *p <= '9') p++;
  }
  j->p = p;
  return true;
}

static bool literal(jp *j, const char *w, int64_t n) {
  if (j->end - j->p < n || memcmp(j->p, w, (size_t)n) != 0) return fail(j, j->p, "bad value");
  j->p += n;
  return true;
}

/* Any value at j->p (after whitespace); *kind is its K_* (0: null). */
static bool parse_value(jp *j, int depth, int *kind);

static bool parse_nested(jp *j, int depth) {
  if (depth >= MAX_DEPTH) return fail(j, j->p, "values nested too deeply");
  bool obj = *j->p == '{';
  char close = obj ? '}' : ']';
  j->p++;
  skip_ws(j);
  if (j->p < j->end && *j->p == close) {
    j->p++;
    return true;
  }
  for (;;) {
    int kind;
    if (obj) {
      skip_ws(j);
      if (j->p >= j->end || *j->p != '"') return fail(j, j->p, "expected a key string");
      const char *s;
      int64_t n;
      bool esc;
      if (!parse_string(j, &s, &n, &esc)) return false;
      skip_ws(j);
      if (j->p >= j->end || *j->p != ':') return fail(j, j->p, "expected ':'");
      j->p++;
    }
    if (!parse_value(j, depth + 1, &kind)) return false;
    skip_ws(j);
    if (j->p >= j->end) return fail(j, j->p, obj ? "unterminated object" : "unterminated array");
    if (*j->p == ',') {
      j->p++;
      continue;
    }
    if (*j->p == close) {
      j->p++;
      return true;
    }
    return fail(j, j->p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
  }
}

static bool parse_value(jp *j, int depth, int *kind) {
  skip_ws(j);
  if (j->p >= j->end) return fail(j, j->p, "expected a value");
  char c = *j->p;
  const char *s;
  int64_t n;
  bool esc;
  switch (c) {
    case '"': *kind = K_STR; return parse_string(j, &s, &n, &esc);
    case '{':
    case '[': *kind = K_NEST; return parse_nested(j, depth);
    case 't': *kind = K_BOOL; return literal(j, "true", 4);
    case 'f': *kind = K_BOOL; return literal(j, "false", 5);
    case 'n': *kind = 0; return literal(j, "null", 4);
    default: *kind = K_NUM; return parse_number(j);
  }
}

/* Decode a validated string's raw bytes s[0, n) into out, at most cap
 * bytes (an escape's character whole; cap >= n always fits: decoding never
 * lengthens). */
static int64_t unescape(const char *s, int64_t n, char *out, int64_t cap) {
  int64_t k = 0;
  for (int64_t i = 0; i < n;) {
    char c = s[i];
    if (cap < n) { /* output never outgrows the input read: check only a short cap */
      int len = 1;
      if (c == '\\' && s[i + 1] == 'u') {
        unsigned u = 0;
        hex4(s + i + 2, &u);
        len = u < 0x80 ? 1 : u < 0x800 ? 2 : (u < 0xD800 || u > 0xDFFF) ? 3 : 4;
      }
      if (k + len > cap) break;
    }
    if (c != '\\') {
      out[k++] = c;
      i++;
      continue;
    }
    char e = s[i + 1];
    i += 2;
    switch (e) {
      case 'b': out[k++] = '\b'; break;
      case 'f': out[k++] = '\f'; break;
      case 'n': out[k++] = '\n'; break;
      case 'r': out[k++] = '\r'; break;
      case 't': out[k++] = '\t'; break;
      case 'u': {
        unsigned u = 0, lo = 0;
        hex4(s + i, &u);
        i += 4;
        if (u >= 0xD800 && u <= 0xDBFF) {
          hex4(s + i + 2, &lo);
          i += 6;
          u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
        }
        if (u < 0x80) {
          out[k++] = (char)u;
        } else if (u < 0x800) {
          out[k++] = (char)(0xC0 | (u >> 6));
          out[k++] = (char)(0x80 | (u & 0x3F));
        } else if (u < 0x10000) {
          out[k++] = (char)(0xE0 | (u >> 12));
          out[k++] = (char)(0x80 | ((u >> 6) & 0x3F));
          out[k++] = (char)(0x80 | (u & 0x3F));
        } else {
          out[k++] = (char)(0xF0 | (u >> 18));
          out[k++] = (char)(0x80 | ((u >> 12) & 0x3F));
          out[k++] = (char)(0x80 | ((u >> 6) & 0x3F));
          out[k++] = (char)(0x80 | (u & 0x3F));
        }
        break;
      }
      default: out[k++] = e; break; /* " \ / */
    }
  }
  return k;
}

static int64_t json_decode(void *ctx, const char *s, int64_t n, char *out, int64_t cap) {
  (void)ctx;
  return unescape(s, n, out, cap);
}

/* ------------------------------------------------------------------------ */
/* Records                                                                  */
/* ------------------------------------------------------------------------ */

static bool cancelled(reader *r) {
  if (__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) return true;
  if ((r->o->cancel != NULL && *r->o->cancel) || zb_cancel_requested()) {
    __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
    return true;
  }
  return false;
}

static wscratch *scratch_of(reader *r, int worker) {
  void **slot = zb__worker_slot(&r->ws, worker);
  if (slot == NULL) return NULL;
  if (*slot == NULL) *slot = zb_calloc(1, sizeof(wscratch));
  return (wscratch *)*slot;
}

/* Record iteration over a chunk.  Lines: records are the non-blank lines.
 * Array: '[' record (',' record)* ']' with whitespace anywhere.  Sets
 * j->p to the record's '{' and j->end to where it may extend; false at the
 * end of the chunk (or on an error: j->err). */
typedef struct riter {
  int64_t pos;  /* next byte to look at */
  int state;    /* array: 0 before '[', 1 after '[' or ',', 2 after a record, 3 done */
} riter;

static bool next_record(const reader *r, const jchunk *c, riter *it, jp *j) {
  const char *d = r->d;
  if (r->o->lines) {
    while (it->pos < c->end) {
      const char *p = d + it->pos, *e = d + c->end;
      const char *nl = (const char *)memchr(p, '\n', (size_t)(e - p));
      const char *le = nl ? nl : e;
      it->pos = (le - d) + (nl ? 1 : 0);
      j->p = p;
      j->end = le;
      skip_ws(j);
      if (j->p == le) continue; /* blank line */
      if (*j->p != '{') return fail(j, j->p, "a line that is not a JSON object");
      return true;
    }
    return false;
  }
  j->p = d + it->pos;
  j->end = d + c->end;
  for (;;) {
    skip_ws(j);
    if (it->state == 3) {
      if (j->p < j->end) return fail(j, j->p, "extra data after the array");
      return false;
    }
    if (j->p >= j->end)
      return fail(j, j->p,
                  it->state == 0 ? "expected '[' (an array of objects)" : "unterminated array");
    char ch = *j->p;
    if (it->state == 0) {
      if (ch != '[') return fail(j, j->p, "expected '[' (an array of objects)");
      j->p++;
      it->state = 1;
      skip_ws(j);
      if (j->p < j->end && *j->p == ']') {
        j->p++;
        it->state = 3;
      }
      continue;
    }
    if (it->state == 1) {
      if (ch != '{') return fail(j, j->p, "an array element that is not a JSON object");
      it->state = 2;
      return true;
    }
    /* state 2: after a record */
    if (ch == ',') {
      j->p++;
      it->state = 1;
    } else if (ch == ']') {
      j->p++;
      it->state = 3;
    } else {
      return fail(j, j->p, "expected ',' or ']' after an array element");
    }
  }
}

/* After a record ends at j->p: the rest of the line must be blank (lines);
 * the iterator continues from j->p (array). */
static bool end_record(const reader *r, riter *it, jp *j) {
  if (r->o->lines) {
    skip_ws(j);
    if (j->p < j->end) return fail(j, j->p, "extra data after the object on its line");
    return true;
  }
  it->pos = j->p - r->d;
  return true;
}

/* One object at j->p (its '{').  Scan mode (cells NULL): validate and
 * collect keys and kinds into c->keys.  Parse mode: put the values' cells
 * into cells[col * batch + row] (col: the merged column), cell offsets from
 * c->start; keys are looked up in c->look, and a key not there fails (the
 * one pass: c->new_key set, and the kinds seen go to c->kinds).  Both
 * validate in full. */
static bool parse_object(reader *r, jchunk *c, jp *j, wscratch *ws, uint64_t *cells,
                         int64_t row) {
  j->p++;
  skip_ws(j);
  if (j->p < j->end && *j->p == '}') {
    j->p++;
    return true;
  }
  const char *base = r->d + c->start;
  kdict *kd = cells != NULL ? c->look : &c->keys;
  for (int64_t f = 0;; f++) {
    skip_ws(j);
    if (j->p >= j->end || *j->p != '"') return fail(j, j->p, "expected a key string");
    const char *kat = j->p;
    int64_t id = -1;
    /* the key at this place in the previous record, matched on the raw
     * text when it is plain (then its text is its bytes): no scan */
    if (f < ws->npred) {
      int64_t g = ws->pred[f];
      if (g >= 0 && g < kd->n && kd->keys[g].plain) {
        const jkey *q = &kd->keys[g];
        if (j->end - j->p > q->n + 1 && j->p[1 + q->n] == '"' && same_bytes(j->p + 1, q->s, q->n)) {
          id = g;
          j->p += q->n + 2;
        }
      }
    }
    if (id < 0) { /* scanned, decoded, predicted again or looked up */
      const char *ks;
      int64_t kn;
      bool kesc;
      if (!parse_string(j, &ks, &kn, &kesc)) return false;
      if (kesc) {
        if (kn + 1 > ws->kcap) {
          char *nb = (char *)zb_malloc((size_t)kn + 1);
          if (nb == NULL) return fail(j, NULL, "nomem");
          zb_free(ws->kbuf);
          ws->kbuf = nb;
          ws->kcap = kn + 1;
        }
        kn = unescape(ks, kn, ws->kbuf, kn);
        ks = ws->kbuf;
      }
      /* the key's number: as at this place in the previous record, else looked up */
      if (f < ws->npred) {
        int64_t g = ws->pred[f];
        if (g >= 0 && g < kd->n && kd->keys[g].n == kn && same_bytes(kd->keys[g].s, ks, kn))
          id = g;
      }
      if (id < 0) {
        uint64_t h = hash_bytes(ks, kn);
        id = kdict_find(kd, ks, kn, h);
        if (id < 0) {
          if (cells != NULL) {
            c->new_key = true; /* the one pass: the caller starts again with two */
            return fail(j, kat, "key not seen by the scan");
          }
          if (!zb__text_utf8_valid((const unsigned char *)ks, kn))
            return fail(j, kat, "invalid UTF-8 in a key");
          id = kdict_add(kd, ks, kn, h, kesc);
          if (id < 0) return fail(j, NULL, "nomem");
        }
        if (f >= ws->npred) {
          if (f >= 1 << 20) {
            /* no prediction past a million fields */
          } else {
            int64_t cap = ws->npred ? ws->npred * 2 : 64;
            while (cap <= f) cap *= 2;
            int64_t *np = (int64_t *)zb_malloc((size_t)cap * sizeof(int64_t));
            if (np == NULL) return fail(j, NULL, "nomem");
            memset(np, 0xff, (size_t)cap * sizeof(int64_t));
            if (ws->npred) memcpy(np, ws->pred, (size_t)ws->npred * sizeof(int64_t));
            zb_free(ws->pred);
            ws->pred = np;
            ws->npred = cap;
          }
        }
        if (f < ws->npred) ws->pred[f] = id;
      }
    }
    skip_ws(j);
    if (j->p >= j->end || *j->p != ':') return fail(j, j->p, "expected ':' after a key");
    j->p++;
    skip_ws(j);
    const char *vs = j->p;
    int kind = 0;
    if (j->p < j->end && *j->p == '"') {
      const char *s;
      int64_t n;
      bool esc;
      if (!parse_string(j, &s, &n, &esc)) return false;
      kind = K_STR;
      if (cells != NULL) {
        if (n > ZB_CELL_MAXLEN) return fail(j, vs, "a string longer than 2 GiB");
        cells[kd->keys[id].gid * r->batch + row] = zb__cell(s - base, n, esc);
      }
    } else {
      if (!parse_value(j, 0, &kind)) return false;
      if (cells != NULL) {
        int64_t n = j->p - vs;
        if (n > ZB_CELL_MAXLEN) return fail(j, vs, "a value longer than 2 GiB");
        cells[kd->keys[id].gid * r->batch + row] =
            kind == 0 ? ZB_CELL_NULL : zb__cell(vs - base, n, false);
      }
    }
    if (cells == NULL)
      kd->keys[id].kinds |= kind;
    else if (c->kinds != NULL)
      c->kinds[kd->keys[id].gid] |= kind;
    skip_ws(j);
    if (j->p >= j->end) return fail(j, j->p, "unterminated object");
    if (*j->p == ',') {
      j->p++;
      continue;
    }
    if (*j->p == '}') {
      j->p++;
      return true;
    }
    return fail(j, j->p, "expected ',' or '}'");
  }
}

static void chunk_fail(reader *r, jchunk *c, jp *j) {
  if (j->err_at == NULL) { /* out of memory */
    c->st = ZB_ENOMEM;
    c->err_pos = c->start;
    return;
  }
  c->st = ZB_EPARSE;
  c->err_pos = j->err_at - r->d;
  snprintf(c->msg, sizeof c->msg, "%s", j->err);
}

static void scan_task(void *ctx, int64_t k, int worker) {
  reader *r = (reader *)ctx;
  jchunk *c = &r->chunks[k];
  wscratch *ws = scratch_of(r, worker);
  if (ws == NULL) {
    c->st = ZB_ENOMEM;
    c->err_pos = c->start;
    return;
  }
  if (c->scanned) { /* by the sample */
    c->nrows = c->resume_rows;
    return;
  }
  riter it = {c->resume, 0};
  jp j = {r->d, NULL, NULL, NULL, NULL};
  int64_t rows = c->resume_rows;
  while (next_record(r, c, &it, &j)) {
    if (!parse_object(r, c, &j, ws, NULL, 0) || !end_record(r, &it, &j)) break;
    rows++;
    if ((rows & 1023) == 0 && cancelled(r)) {
      c->st = ZB_ECANCEL;
      return;
    }
  }
  if (j.err != NULL) chunk_fail(r, c, &j);
  c->nrows = rows;
}

static int kinds_class(int kinds, bool coerce_numbers);

/* The one pass: whether the kinds of value chunk c held change a column's
 * type from the sample's. */
static bool kinds_changed(const reader *r, const jchunk *c) {
  for (int64_t g = 0; g < r->ncols; g++) {
    int was = r->all.keys[g].kinds, now = was | c->kinds[g];
    if (now != was &&
        kinds_class(now, r->o->coerce_numbers) != kinds_class(was, r->o->coerce_numbers))
      return true;
  }
  return false;
}

/* Parse a chunk's records [0, nrows) again into idx in batches, calling
 * fn after each batch.  Returns ZB_OK or the first failure.  The one pass
 * stops early (ZB_ECANCEL, r->abandon set) once a chunk holds a key or a
 * kind of value the sample did not: the read starts again with two
 * passes, so the rest of its records need not be parsed. */
typedef zb_status (*batch_fn)(reader *r, int64_t k, uint64_t *idx, int64_t rows_done, int64_t nb,
                              void *arg, int worker);

static zb_status run_batches(reader *r, int64_t k, uint64_t *idx, int64_t nrows, wscratch *ws,
                             batch_fn fn, void *arg, int worker) {
  jchunk *c = &r->chunks[k];
  riter it = {c->start, 0};
  jp j = {r->d, NULL, NULL, NULL, NULL};
  int64_t done = 0;
  zb_status fst = ZB_OK;
  while (done < nrows) {
    int64_t nb = ZB_MIN(r->batch, nrows - done);
    for (int64_t g = 0; g < r->ncols; g++) { /* the batch's rows only */
      uint64_t *col = idx + g * r->batch;
      for (int64_t i = 0; i < nb; i++) col[i] = ZB_CELL_NULL;
    }
    for (int64_t i = 0; i < nb; i++) {
      if (!next_record(r, c, &it, &j) || !parse_object(r, c, &j, ws, idx, i) ||
          !end_record(r, &it, &j)) {
        if (j.err == NULL) { /* fewer records than counted: cannot happen */
          c->st = ZB_EINVAL;
          c->err_pos = c->start;
          return ZB_EINVAL;
        }
        if (j.err_at == NULL) return ZB_ENOMEM;
        if (c->new_key) {
          __atomic_store_n(&r->abandon, 1, __ATOMIC_RELAXED);
          return ZB_ECANCEL;
        }
        chunk_fail(r, c, &j); /* the one pass validates as it goes */
        return ZB_EPARSE;
      }
    }
    if (c->kinds != NULL) {
      if (!__atomic_load_n(&r->abandon, __ATOMIC_RELAXED) && kinds_changed(r, c))
        __atomic_store_n(&r->abandon, 1, __ATOMIC_RELAXED);
      if (__atomic_load_n(&r->abandon, __ATOMIC_RELAXED)) return ZB_ECANCEL;
    }
    if (fst == ZB_OK) fst = fn(r, k, idx, done, nb, arg, worker);
    /* after a value error the one pass reads on, only to validate: the
     * input's grammar errors come first, as with two passes */
    if (fst != ZB_OK && (fst != ZB_EPARSE || c->kinds == NULL)) return fst;
    done += nb;
    if (cancelled(r)) return ZB_ECANCEL;
  }
  return fst;
}

static zb_status give_batch(reader *r, int64_t k, uint64_t *idx, int64_t rows_done, int64_t nb,
                            void *arg, int worker) {
  (void)arg;
  for (int64_t g = 0; g < r->ncols; g++)
    ZB_RETURN_NOT_OK(zb__builder_text(r->b, k, g, idx + g * r->batch, rows_done, nb, worker));
  return zb__builder_error(r->b, k) != NULL ? ZB_EPARSE : ZB_OK;
}

typedef struct again_arg {
  const int64_t *cols;
  int64_t ncols;
} again_arg;

static zb_status give_again(reader *r, int64_t k, uint64_t *idx, int64_t rows_done, int64_t nb,
                            void *arg, int worker) {
  again_arg *a = (again_arg *)arg;
  for (int64_t q = 0; q < a->ncols; q++)
    ZB_RETURN_NOT_OK(zb__builder_text_again(r->b, k, a->cols[q], idx + a->cols[q] * r->batch,
                                            rows_done, nb, worker));
  return ZB_OK;
}

static bool ensure_idx(reader *r, uint64_t **p) {
  if (*p == NULL)
    *p = (uint64_t *)zb_malloc((size_t)(r->ncols * r->batch) * sizeof(uint64_t));
  return *p != NULL;
}

static zb_status json_refetch(void *ctx, int64_t k, const int64_t *cols, int64_t ncols,
                              int64_t nrows, int worker) {
  reader *r = (reader *)ctx;
  wscratch *ws = scratch_of(r, worker);
  if (ws == NULL || !ensure_idx(r, &ws->idx2)) return ZB_ENOMEM;
  again_arg a = {cols, ncols};
  return run_batches(r, k, ws->idx2, nrows, ws, give_again, &a, worker);
}

static void parse_task(void *ctx, int64_t k, int worker) {
  reader *r = (reader *)ctx;
  jchunk *c = &r->chunks[k];
  wscratch *ws = scratch_of(r, worker);
  zb_status st = ZB_ENOMEM;
  if (ws != NULL && ensure_idx(r, &ws->idx))
    st = run_batches(r, k, ws->idx, c->nrows, ws, give_batch, NULL, worker);
  zb__builder_part_done(r->b, k, c->nrows);
  if (st == ZB_EPARSE) st = ZB_OK; /* a value error, recorded in the builder */
  if (st != ZB_OK) {
    c->st = st;
    c->err_pos = c->start;
  }
}

/* ------------------------------------------------------------------------ */
/* Driver                                                                   */
/* ------------------------------------------------------------------------ */

static void where(const reader *r, int64_t pos, int64_t *line, int64_t *col) {
  int64_t l = 1, ls = 0;
  for (const char *p = r->d, *e = r->d + pos; p < e;) {
    const char *q = (const char *)memchr(p, '\n', (size_t)(e - p));
    if (q == NULL) break;
    l++;
    ls = (q - r->d) + 1;
    p = q + 1;
  }
  *line = l;
  *col = pos - ls + 1;
}

static zb_status chunk_error(reader *r, zb_error *err) {
  const jchunk *worst = NULL;
  for (int64_t k = 0; k < r->nchunks; k++) {
    const jchunk *c = &r->chunks[k];
    if (c->st == ZB_OK) continue;
    if (c->st != ZB_EPARSE) {
      if (c->st == ZB_ENOMEM) return zb_error_set(err, ZB_ENOMEM, "out of host memory (JSON)");
      if (c->st == ZB_ECANCEL) return zb_error_set(err, ZB_ECANCEL, "JSON read cancelled");
      return zb_error_set(err, c->st, "JSON read failed");
    }
    if (worst == NULL) worst = c;
    break; /* chunks are in input order: the first failing one is earliest */
  }
  if (worst == NULL) return ZB_OK;
  int64_t line, col;
  where(r, worst->err_pos, &line, &col);
  return zb_error_set(err, ZB_EPARSE, "JSON: line %lld, column %lld: %s", (long long)line,
                      (long long)col, worst->msg);
}

static zb_status value_error(reader *r, zb_error *err) {
  for (int64_t k = 0; k < r->nchunks; k++) {
    const zb__build_error *e = zb__builder_error(r->b, k);
    if (e == NULL) continue;
    int64_t line, col;
    where(r, e->pos, &line, &col);
    const char *what = e->kind == ZB_BUILD_ERR_UTF8 ? "invalid UTF-8 in a string"
                       : e->kind == ZB_BUILD_ERR_OVERFLOW ? "number out of range"
                                                          : "bad value";
    return zb_error_set(err, e->st, "JSON: line %lld, column %lld: %s (key '%s')",
                        (long long)line, (long long)col, what,
                        r->names[e->col]);
  }
  return ZB_OK;
}

static zb_status make_chunks(reader *r, zb_error *err) {
  int64_t n = r->n;
  int64_t want = 1;
  int64_t per = r->o->chunk_size > 0 ? r->o->chunk_size : CHUNK_BYTES;
  if (r->o->lines && n > per) {
    int64_t threads = zb_get_num_threads();
    want = (n + per - 1) / per;
    if (r->o->chunk_size <= 0 && want < threads * 2 && n > (int64_t)threads * (256 << 10))
      want = threads * 2;
  }
  r->chunks = (jchunk *)zb_calloc((size_t)want, sizeof(jchunk));
  if (r->chunks == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (JSON)");
  int64_t pos = 0, k = 0;
  while (pos < n && k < want) {
    int64_t target = k == want - 1 ? n : ZB_MAX(pos + 1, n / want * (k + 1));
    if (target > n) target = n;
    const char *nl = target < n ? (const char *)memchr(r->d + target, '\n', (size_t)(n - target))
                                : NULL;
    int64_t e = nl ? (nl - r->d) + 1 : n;
    r->chunks[k].start = pos;
    r->chunks[k].end = e;
    r->chunks[k].look = &r->chunks[k].keys;
    r->chunks[k].resume = pos;
    pos = e;
    k++;
  }
  if (pos < n) r->chunks[k - 1].end = n;
  r->nchunks = k;
  for (k = 0; k < r->nchunks; k++)
    if (r->chunks[k].end - r->chunks[k].start > (int64_t)0xFFFFFFFF)
      return zb_error_set(err, ZB_ENOTSUP,
                          "JSON: a single array of objects larger than 4 GiB is not supported; "
                          "write it as JSON lines");
  return ZB_OK;
}

/* Stage 3: the merged keys, the column names and types. */
static zb_status merge_keys(reader *r, zb_error *err) {
  for (int64_t k = 0; k < r->nchunks; k++) {
    kdict *kd = &r->chunks[k].keys;
    for (int64_t i = 0; i < kd->n; i++) {
      jkey *q = &kd->keys[i];
      int64_t g = kdict_find(&r->all, q->s, q->n, q->h);
      if (g < 0) {
        g = kdict_add(&r->all, q->s, q->n, q->h, true);
        if (g < 0) return zb_error_set(err, ZB_ENOMEM, "out of host memory (JSON keys)");
      }
      r->all.keys[g].kinds |= q->kinds;
      q->gid = g;
    }
  }
  r->ncols = r->all.n;
  r->names = (char **)zb_calloc((size_t)(r->ncols > 0 ? r->ncols : 1), sizeof(char *));
  if (r->names == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (JSON keys)");
  for (int64_t g = 0; g < r->ncols; g++) r->names[g] = r->all.keys[g].own;
  return ZB_OK;
}

/* What a column holding values of `kinds` (K_*) becomes: the builder's
 * type and whether it is raw text, and whether it may become a list. */
enum { C_ARRAYS, C_TEXT, C_BOOL, C_STRING, C_NUMBERS };

static int kinds_class(int kinds, bool coerce_numbers) {
  if (kinds == K_NEST) return C_ARRAYS; /* JSON text, then perhaps a list */
  if ((kinds & K_NEST) || ((kinds & K_BOOL) && (kinds & ~K_BOOL))) return C_TEXT;
  if (kinds == K_BOOL) return C_BOOL;
  if ((kinds & K_STR) && !coerce_numbers) return C_STRING;
  return C_NUMBERS; /* strings coerced too, when they all read as numbers */
}

/* Stages 4 and 5 up to the builder's resolve.  one_pass: the columns come
 * from a sample and the chunks' records were counted, not scanned; the
 * parse validates, and *fallback is set (nothing reported) when a chunk
 * held a key the sample did not, or a kind of value that changes a
 * column's type. */
static zb_status build(reader *r, bool one_pass, bool *fallback, zb_error *err) {
  zb__builder_options bo;
  zb__builder_options_init(&bo);
  bo.label = "JSON";
  bo.source.ctx = r;
  bo.source.decode = json_decode;
  bo.source.refetch = json_refetch;
  ZB_RETURN_NOT_OK(zb__builder_new(r->ncols, r->nchunks, &bo, &r->b, err));
  for (int64_t g = 0; g < r->ncols; g++) {
    int cls = kinds_class(r->all.keys[g].kinds, r->o->coerce_numbers);
    if (cls == C_ARRAYS || cls == C_TEXT || cls == C_STRING) {
      zb__builder_set_column(r->b, g, r->names[g], ZB_STRING, true);
    } else if (cls == C_BOOL) {
      zb__builder_set_column(r->b, g, r->names[g], ZB_BOOL, true);
    } else {
      zb__builder_set_column(r->b, g, r->names[g], ZB_STRING, false);
      zb__builder_set_inference(r->b, g, ZB_INFER_NUMBERS);
    }
  }
  for (int64_t k = 0; k < r->nchunks; k++) {
    jchunk *c = &r->chunks[k];
    zb__text_part tp = {r->d + c->start, r->d + r->n, r->d + c->start};
    zb__builder_set_part(r->b, k, c->nrows, c->start, &tp);
  }
  ZB_RETURN_NOT_OK(zb__builder_alloc(r->b, err));
  if (r->ncols > 0) {
    /* batches of at most 128K cells, and no more rows than a chunk holds
     * (the cells of a batch are made null before it) */
    int64_t per = ((int64_t)1 << 17) / r->ncols, most = 1;
    for (int64_t k = 0; k < r->nchunks; k++) most = ZB_MAX(most, r->chunks[k].nrows);
    r->batch = ZB_MIN(ZB_MAX(16, ZB_MIN(4096, per)), most);
    ZB_RETURN_NOT_OK(zb_parallel_for(r->nchunks, parse_task, r, err));
    if (one_pass) {
      *fallback = __atomic_load_n(&r->abandon, __ATOMIC_RELAXED) != 0;
      for (int64_t k = 0; k < r->nchunks && !*fallback; k++)
        *fallback = r->chunks[k].new_key || kinds_changed(r, &r->chunks[k]);
      if (*fallback) return ZB_OK;
    }
    ZB_RETURN_NOT_OK(chunk_error(r, err));
    if (cancelled(r)) return zb_error_set(err, ZB_ECANCEL, "JSON read cancelled");
    ZB_RETURN_NOT_OK(value_error(r, err));
  }
  ZB_RETURN_NOT_OK(zb__builder_resolve(r->b, err));
  ZB_RETURN_NOT_OK(value_error(r, err));
  return ZB_OK;
}

/* ------------------------------------------------------------------------ */
/* Arrays to lists                                                          */
/* ------------------------------------------------------------------------ */

/* A column whose values were all nested (its cells the values' JSON text)
 * becomes a list column (pandas' Python lists) when every value is an
 * array and the arrays' elements (nulls aside) are of one kind: numbers,
 * strings, booleans, or arrays again.  The elements are re-read by this
 * reader as JSON lines '{"v":<element>}' (so they take its types, escapes
 * and numbers; strings stay strings), which turns arrays of arrays into
 * lists of lists the same way.  Anything else (objects, mixed kinds,
 * lists nested deeper than ZB_LIST_MAX_DEPTH) stays JSON text.  *col is
 * replaced on success, left as it was otherwise. */
static zb_status arrays_to_list(zb_column **col, zb_error *err) {
  const zb_column *c = *col;
  if (c->type != ZB_STRING || c->length == 0 || c->offset != 0) return ZB_OK;
  const int64_t *so = (const int64_t *)c->data->data + c->offset;
  const char *chars = c->chars ? (const char *)c->chars->data : "";
  zb__text_buf lines = {0};
  zb_buffer *offs = NULL;
  zb_table *child = NULL;
  zb_column *list = NULL, *empty = NULL;
  int kinds = 0;
  zb_status st = zb_buffer_new(ZB_CPU, (c->length + 1) * (int64_t)sizeof(int64_t), &offs, err);
  if (st != ZB_OK) return st;
  int64_t *o = (int64_t *)offs->data, count = 0;
  o[0] = 0;
  for (int64_t i = 0; i < c->length; i++) {
    o[i + 1] = count;
    if (!zb_column_is_valid(c, i)) continue;
    jp j = {chars, chars + so[i], chars + so[i + 1], NULL, NULL};
    skip_ws(&j);
    if (j.p >= j.end || *j.p != '[') goto keep;
    j.p++;
    skip_ws(&j);
    if (j.p < j.end && *j.p == ']') continue;
    for (;;) {
      skip_ws(&j);
      const char *e0 = j.p;
      int kind = 0;
      if (j.p < j.end && *j.p == '{') goto keep;
      if (!parse_value(&j, 1, &kind)) goto keep; /* validated before: not reached */
      kinds |= kind;
      int64_t n = j.p - e0;
      if (!zb__text_buf_grow(&lines, n + 7)) goto nomem;
      memcpy(lines.p + lines.n, "{\"v\":", 5);
      char *ep = lines.p + lines.n + 5;
      memcpy(ep, e0, (size_t)n);
      for (int64_t q = 0; q < n; q++) /* raw line breaks are only whitespace here */
        if (ep[q] == '\n' || ep[q] == '\r') ep[q] = ' ';
      memcpy(ep + n, "}\n", 2);
      lines.n += n + 7;
      o[i + 1] = ++count;
      skip_ws(&j);
      if (j.p < j.end && *j.p == ',') {
        j.p++;
        continue;
      }
      break;
    }
  }
  if (kinds != 0 && kinds != K_NUM && kinds != K_STR && kinds != K_BOOL && kinds != K_NEST)
    goto keep;
  zb_json_read_options ro;
  zb_json_read_options_init(&ro);
  ro.coerce_numbers = false;
  st = zb_json_read_buffer(lines.p, lines.n, &ro, &child, err);
  if (st != ZB_OK) goto done;
  const zb_column *v = NULL;
  if (child->num_columns == 1) {
    v = child->columns[0];
  } else { /* no element at all: an empty float64 child, as a column without a value */
    st = zb_column_new(ZB_FLOAT64, 0, false, 0, &empty, err);
    if (st != ZB_OK) goto done;
    v = empty;
  }
  if (kinds == K_NEST && v->type != ZB_LIST) goto keep; /* the inner arrays stayed text */
  st = zb_column_make_list(c->length, 0, c->null_count > 0 ? c->validity : NULL, offs,
                           (zb_column *)v, c->null_count, &list, err);
  if (st == ZB_ENOTSUP) goto keep; /* nested too deeply for a list */
  if (st != ZB_OK) goto done;
  zb_column_release(*col);
  *col = list;
  list = NULL;
  goto done;
nomem:
  st = zb_error_set(err, ZB_ENOMEM, "out of host memory (JSON lists)");
  goto done;
keep:
  st = ZB_OK;
  if (err != NULL) err->message[0] = '\0';
done:
  zb_free(lines.p);
  zb_buffer_release(offs);
  zb_table_release(child);
  zb_column_release(list);
  zb_column_release(empty);
  return st;
}

static zb_status finish(reader *r, zb_table **out, zb_error *err);

/* ------------------------------------------------------------------------ */
/* The one pass                                                             */
/* ------------------------------------------------------------------------ */

/* Records the sample reads (from the start of the first chunk). */
#define SAMPLE_RECORDS 1000

/* Scan the sample into chunk 0's keys, as stage 2 does (the scan later
 * resumes where the sample stopped: chunk 0's resume, resume_rows and
 * scanned); *regular when it has a key and its second half brought no new
 * key -- so the rest is likely to have no other keys either (else the two
 * passes are cheaper than a one pass that starts again).  Records may lack
 * keys (nulls) or repeat one (the last value wins, as with two passes).
 * An error in the sample is the first of the input (chunk 0's): it is
 * returned, as the two passes report it. */
static zb_status scan_sample(reader *r, bool *regular, zb_error *err) {
  *regular = false;
  jchunk *c = &r->chunks[0];
  wscratch *ws = scratch_of(r, 0);
  if (ws == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (JSON)");
  riter it = {c->start, 0};
  jp j = {r->d, NULL, NULL, NULL, NULL};
  int64_t rows = 0, last_new = 0; /* the last record that brought a key */
  while (rows < SAMPLE_RECORDS && next_record(r, c, &it, &j)) {
    int64_t before = c->keys.n;
    if (!parse_object(r, c, &j, ws, NULL, 0) || !end_record(r, &it, &j)) break;
    if (c->keys.n != before) last_new = rows;
    rows++;
  }
  if (j.err != NULL) {
    chunk_fail(r, c, &j);
    return chunk_error(r, err);
  }
  c->resume = it.pos;
  c->resume_rows = rows;
  c->scanned = rows < SAMPLE_RECORDS; /* next_record found the chunk's end */
  *regular = c->keys.n > 0 && last_new * 2 < rows;
  return ZB_OK;
}

/* The records of a chunk of JSON lines (its non-blank lines, as
 * next_record sees them), and its one-pass state. */
static void count_task(void *ctx, int64_t k, int worker) {
  (void)worker;
  reader *r = (reader *)ctx;
  jchunk *c = &r->chunks[k];
  const char *p = r->d + c->start, *e = r->d + c->end;
  int64_t rows = 0;
  while (p < e) {
    const char *nl = (const char *)memchr(p, '\n', (size_t)(e - p));
    const char *le = nl ? nl : e;
    while (p < le && (*p == ' ' || *p == '\t' || *p == '\r')) p++;
    rows += p < le;
    p = nl ? nl + 1 : e;
  }
  c->nrows = rows;
  c->look = &r->all;
  c->kinds = (int *)zb_calloc((size_t)(r->ncols > 0 ? r->ncols : 1), sizeof(int));
  if (c->kinds == NULL) {
    c->st = ZB_ENOMEM;
    c->err_pos = c->start;
  }
}

/* Back to the state after the sample, for the two passes (chunk 0 keeps
 * the sample's scan). */
static void reset_chunks(reader *r) {
  zb__builder_release(r->b);
  r->b = NULL;
  __atomic_store_n(&r->abandon, 0, __ATOMIC_RELAXED);
  for (int64_t k = 0; k < r->nchunks; k++) {
    jchunk *c = &r->chunks[k];
    if (k > 0) kdict_free(&c->keys);
    zb_free(c->kinds);
    c->kinds = NULL;
    c->look = &c->keys;
    c->nrows = 0;
    c->new_key = false;
    c->st = ZB_OK;
    c->err_pos = 0;
    c->msg[0] = '\0';
  }
  kdict_free(&r->all);
  zb_free(r->names);
  r->names = NULL;
  r->ncols = 0;
  for (int w = 0; w < r->ws.n; w++) { /* sized for the columns: made again */
    wscratch *ws = (wscratch *)zb__worker_at(&r->ws, w);
    if (ws != NULL) {
      zb_free(ws->idx);
      zb_free(ws->idx2);
      ws->idx = ws->idx2 = NULL;
    }
  }
}

/* JSON lines in one pass after a regular sample (scan_sample): the
 * sample's keys and kinds give the columns, the chunks' records are
 * counted (not parsed), and the parse validates as it goes.  *fallback:
 * the input did not fit the sample (nothing reported; reset_chunks undoes
 * what was done). */
static zb_status read_one_pass(reader *r, zb_table **out, bool *fallback, zb_error *err) {
  *fallback = true;
  ZB_RETURN_NOT_OK(merge_keys(r, err));
  for (int64_t g = 0; g < r->ncols; g++) r->all.keys[g].gid = g;
  ZB_RETURN_NOT_OK(zb_parallel_for(r->nchunks, count_task, r, err));
  ZB_RETURN_NOT_OK(chunk_error(r, err));
  if (cancelled(r)) return zb_error_set(err, ZB_ECANCEL, "JSON read cancelled");
  *fallback = false;
  ZB_RETURN_NOT_OK(build(r, true, fallback, err));
  if (*fallback) return ZB_OK;
  return finish(r, out, err);
}

static zb_status read_impl(reader *r, zb_table **out, zb_error *err) {
  if (memchr(r->d, 0, (size_t)r->n) != NULL) {
    int64_t line, col;
    where(r, (const char *)memchr(r->d, 0, (size_t)r->n) - r->d, &line, &col);
    return zb_error_set(err, ZB_EPARSE, "JSON: line %lld, column %lld: NUL byte",
                        (long long)line, (long long)col);
  }
  ZB_RETURN_NOT_OK(make_chunks(r, err));
  if (r->o->lines) {
    /* the sample; where it read the whole input, it was the scan */
    bool regular;
    ZB_RETURN_NOT_OK(scan_sample(r, &regular, err));
    if (regular && !(r->nchunks == 1 && r->chunks[0].scanned)) {
      bool fallback = true;
      ZB_RETURN_NOT_OK(read_one_pass(r, out, &fallback, err));
      if (!fallback) return ZB_OK;
      reset_chunks(r);
    }
  }
  ZB_RETURN_NOT_OK(zb_parallel_for(r->nchunks, scan_task, r, err));
  ZB_RETURN_NOT_OK(chunk_error(r, err));
  if (cancelled(r)) return zb_error_set(err, ZB_ECANCEL, "JSON read cancelled");
  ZB_RETURN_NOT_OK(merge_keys(r, err));
  ZB_RETURN_NOT_OK(build(r, false, NULL, err));
  return finish(r, out, err);
}

/* The builder's columns into *out (arrays of one kind of value to lists). */
static zb_status finish(reader *r, zb_table **out, zb_error *err) {
  size_t nout = (size_t)(r->ncols > 0 ? r->ncols : 1);
  zb_column **cols = (zb_column **)zb_calloc(nout, sizeof(zb_column *));
  zb_status st;
  if (cols == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (JSON table)");
  } else {
    st = zb__builder_finish(r->b, cols, err);
    for (int64_t g = 0; st == ZB_OK && g < r->ncols; g++)
      if (r->all.keys[g].kinds == K_NEST) st = arrays_to_list(&cols[g], err);
    if (st == ZB_OK) st = zb_table_make(r->ncols, cols, (const char *const *)r->names, out, err);
    for (int64_t g = 0; g < r->ncols; g++) zb_column_release(cols[g]);
  }
  zb_free(cols);
  return st;
}

static void reader_free(reader *r) {
  zb__builder_release(r->b);
  if (r->chunks)
    for (int64_t k = 0; k < r->nchunks; k++) {
      kdict_free(&r->chunks[k].keys);
      zb_free(r->chunks[k].kinds);
    }
  zb_free(r->chunks);
  kdict_free(&r->all);
  zb_free(r->names);
  for (int w = 0; w < r->ws.n; w++) {
    wscratch *ws = (wscratch *)zb__worker_at(&r->ws, w);
    if (ws == NULL) continue;
    zb_free(ws->idx);
    zb_free(ws->idx2);
    zb_free(ws->pred);
    zb_free(ws->kbuf);
    zb_free(ws);
  }
  zb__worker_slots_reset(&r->ws);
}

zb_status zb_json_read_buffer(const char *data, int64_t size, const zb_json_read_options *opts,
                              zb_table **out, zb_error *err) {
  ZB_NAME_OP("read_json");
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "JSON: out is NULL");
  *out = NULL;
  if (size < 0 || (data == NULL && size > 0))
    return zb_error_set(err, ZB_EINVAL, "JSON: invalid buffer (size %lld)", (long long)size);
  zb_json_read_options defaults;
  if (opts == NULL) {
    zb_json_read_options_init(&defaults);
    opts = &defaults;
  }
  if (data == NULL) data = "";
  if (size >= 3 && (uint8_t)data[0] == 0xEF && (uint8_t)data[1] == 0xBB &&
      (uint8_t)data[2] == 0xBF)
    data += 3, size -= 3;
  if (opts->lines && opts->nrows >= 0) { /* only the first nrows non-blank lines */
    int64_t pos = 0, rows = 0;
    while (pos < size && rows < opts->nrows) {
      const char *nl = (const char *)memchr(data + pos, '\n', (size_t)(size - pos));
      int64_t e = nl ? (nl - data) + 1 : size;
      bool blank = true;
      for (int64_t i = pos; i < e && blank; i++)
        blank = data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n';
      rows += !blank;
      pos = e;
    }
    size = pos;
  }
  reader *r = (reader *)zb_calloc(1, sizeof(reader));
  if (r == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (JSON)");
  r->o = opts;
  r->d = data;
  r->n = size;
  zb_status st = read_impl(r, out, err);
  reader_free(r);
  zb_free(r);
  return st;
}
