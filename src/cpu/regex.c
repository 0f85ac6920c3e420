/*
 * regex.c -- CPU kernels of the pattern operations of zambezi/regex.h:
 * regular-expression tests, counts and replacement through PCRE2 (loaded
 * by src/cpu/pcre2.c), and the multi-column results of extract, split,
 * rsplit, partition and rpartition.
 *
 * The pattern is compiled once (UTF mode, Unicode properties unless
 * ZB_RE_ASCII, JIT-compiled when the library has a JIT); each worker
 * thread has its own match data.  Rows are processed in morsels of
 * ZB_MORSEL_ROWS on the thread pool.  Bool and count results are written
 * in place.  replace writes each morsel's output bytes into a buffer of its
 * own (one regex pass), then the buffers are joined.  The multi-column ops
 * record, per row, spans (byte ranges of the row; start < 0: null) in an
 * array per morsel; every result column is then gathered from the spans,
 * since each piece is a substring of its row.  Literal patterns (split
 * with regex=False, partition, rsplit) use memmem and a backward search;
 * whitespace splits use Python's str.isspace set.  Null rows give null.
 * One walker (piece_walk) finds the pieces of a split or rsplit row for
 * every result: the lists and tables record them all; part_only scans each
 * row only up to the piece asked for (to the end first where the index runs
 * against the scan, to count the pieces) and records one span per row,
 * gathered as one string column; count_only counts the pieces.
 *
 * contains, match, fullmatch and count first look for the literals every
 * match must contain (regex_literal.c): a row lacking one is no match
 * without a PCRE2 call, and contains / count start the search a bounded
 * number of characters before the first occurrence.  A pattern that is
 * plain text runs as a substring search.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/str_row.h"
#include "cpu/kernels.h"
#include "cpu/pcre2_lib.h"
#include "cpu/regex_literal.h"
#include "cpu/strings_kernels.h"
#include "zambezi/regex.h"

typedef struct re_job {
  const zb_column *c;
  const zb_regex_args *a;
  const zb__pcre2_api *api;
  void *code;  /* NULL: literal pattern (or whitespace when a->pat is NULL) */
  void **md;   /* match data per worker */
  zb_column *out;
  /* replace: output bytes per morsel */
  char **buf;
  int64_t *blen, *bcap;
  /* span ops: (start, end) pairs per morsel; cnt per row (-1: null row) */
  int64_t **sp;
  int64_t *sn, *scap;
  int64_t *cnt, *first;
  int64_t slots; /* fixed slots per row (extract, partition); 0: varies */
  int64_t groups; /* split: capture groups, kept between the pieces */
  int64_t *part;  /* split / rsplit part_only: (start, end) per row (start < 0: null) */
  atomic_int error; /* a PCRE2 match error code, or 1 for out of memory */
  zb__re_literals lits; /* required literals (lits.n 0: none known) */
  bool anchored;        /* match / fullmatch: the search starts at 0 only */
} re_job;

static void fail(re_job *j, int code) {
  int zero = 0;
  atomic_compare_exchange_strong(&j->error, &zero, code);
}

/* Grow a morsel buffer to hold need elements of size sz. */
static bool grow(void **b, int64_t *cap, int64_t need, size_t sz) {
  if (need <= *cap) return true;
  int64_t nc = ZB_MAX(need, ZB_MAX(*cap * 2, (int64_t)256));
  void *nb = zb_malloc((size_t)nc * sz);
  if (nb == NULL) return false;
  if (*b != NULL && *cap > 0) memcpy(nb, *b, (size_t)*cap * sz);
  zb_free(*b);
  *b = nb;
  *cap = nc;
  return true;
}

/* ---- finding matches ------------------------------------------------------ */

/* The next match in p[0, len) at or after pos: 1 with [*s, *e), 0 for none,
 * < 0 a PCRE2 error.  opt: PCRE2_NOTEMPTY_ATSTART after an empty match. */
static inline int find_next(const re_job *j, void *md, const unsigned char *p, int64_t len,
                            int64_t pos, uint32_t opt, int64_t *s, int64_t *e) {
  if (j->code == NULL) {
    int64_t pl = j->a->pat_len;
    if (pos > len - pl) return 0;
    const void *q = memmem(p + pos, (size_t)(len - pos), j->a->pat, (size_t)pl);
    if (q == NULL) return 0;
    *s = (const unsigned char *)q - p;
    *e = *s + pl;
    return 1;
  }
  /* the row's UTF-8 was checked by the call at pos 0 (or needs no check
   * with MATCH_INVALID_UTF): later calls on the row skip it */
  if (pos > 0) opt |= ZB_PCRE2_NO_UTF_CHECK;
  int rc = j->api->match(j->code, p, (size_t)len, (size_t)pos, opt, md, NULL);
  if (rc == ZB_PCRE2_ERROR_NOMATCH) return 0;
  if (rc < 0) return rc;
  const size_t *ov = j->api->get_ovector_pointer(md);
  *s = (int64_t)ov[0];
  *e = (int64_t)ov[1];
  return 1;
}

/* The first match of a row: -1 (no match, without calling PCRE2) when a
 * required literal is missing, else find_next from where the literals
 * allow, with the row's UTF-8 checked as at pos 0. */
static inline int find_first(const re_job *j, void *md, const unsigned char *p, int64_t len,
                             int64_t *s, int64_t *e) {
  int64_t from = 0;
  if (j->lits.n > 0) {
    from = zb__re_prefilter(&j->lits, p, len, j->anchored);
    if (from < 0) return 0;
  }
  if (from == 0 || j->code == NULL) return find_next(j, md, p, len, from, 0, s, e);
  int rc = j->api->match(j->code, p, (size_t)len, (size_t)from, 0, md, NULL);
  if (rc == ZB_PCRE2_ERROR_NOMATCH) return 0;
  if (rc < 0) return rc;
  const size_t *ov = j->api->get_ovector_pointer(md);
  *s = (int64_t)ov[0];
  *e = (int64_t)ov[1];
  return 1;
}

/* The last occurrence of the literal pattern in p[0, end): its start, or -1. */
static inline int64_t rfind_lit(const re_job *j, const unsigned char *p, int64_t end) {
  int64_t pl = j->a->pat_len;
  for (int64_t q = end - pl; q >= 0; q--)
    if (p[q] == (unsigned char)j->a->pat[0] && memcmp(p + q, j->a->pat, (size_t)pl) == 0)
      return q;
  return -1;
}

/* Whether the character at p[q] (width *w) is whitespace. */
static inline bool space_at(const unsigned char *p, int64_t q, int64_t e, int64_t *w) {
  if (p[q] < 0x80) { /* ASCII: one byte, no decoding */
    *w = 1;
    return zb__is_space_cp(p[q]);
  }
  *w = zb__utf8_width(p, q, e);
  return zb__is_space_cp(zb__utf8_decode(p, q, *w));
}

/* ---- per-row work ---------------------------------------------------------- */

static void test_morsel(void *ctx, int64_t task, int worker) {
  re_job *j = (re_job *)ctx;
  int64_t start, n;
  zb__morsel_range(j->c->length, task, &start, &n);
  void *md = j->md != NULL ? j->md[worker] : NULL;
  uint8_t *d = (uint8_t *)j->out->data->data;
  for (int64_t k = 0; k < n; k += 64) {
    int mm = (int)ZB_MIN((int64_t)64, n - k);
    uint64_t v = zb__valid_word(j->c, start + k, mm), w = 0;
    for (int q = 0; q < mm; q++) {
      if (!((v >> q) & 1)) continue;
      int64_t len, s, e;
      const unsigned char *p = (const unsigned char *)zb__str(j->c, start + k + q, &len);
      int rc = find_first(j, md, p, len, &s, &e);
      if (rc < 0) fail(j, rc);
      w |= (uint64_t)(rc > 0) << q;
    }
    zb__store_bits(d, start + k, w, mm);
  }
}

static void count_morsel(void *ctx, int64_t task, int worker) {
  re_job *j = (re_job *)ctx;
  int64_t start, n;
  zb__morsel_range(j->c->length, task, &start, &n);
  void *md = j->md != NULL ? j->md[worker] : NULL;
  int64_t *d = (int64_t *)j->out->data->data;
  for (int64_t i = start; i < start + n; i++) {
    int64_t cnt = 0;
    if (zb_column_is_valid(j->c, i)) {
      int64_t len, s, e, pos = 0;
      uint32_t opt = 0;
      const unsigned char *p = (const unsigned char *)zb__str(j->c, i, &len);
      for (bool first = true;; first = false) {
        int rc = first ? find_first(j, md, p, len, &s, &e)
                       : find_next(j, md, p, len, pos, opt, &s, &e);
        if (rc <= 0) {
          if (rc < 0) fail(j, rc);
          break;
        }
        cnt++;
        opt = e == s ? ZB_PCRE2_NOTEMPTY_ATSTART : 0;
        pos = e;
      }
    }
    d[i] = cnt;
  }
}

/* Append src[0, k) to morsel m's buffer. */
static inline bool put(re_job *j, int64_t m, const void *src, int64_t k) {
  if (k <= 0) return true;
  if (!grow((void **)&j->buf[m], &j->bcap[m], j->blen[m] + k, 1)) return false;
  memcpy(j->buf[m] + j->blen[m], src, (size_t)k);
  j->blen[m] += k;
  return true;
}

static void replace_morsel(void *ctx, int64_t task, int worker) {
  re_job *j = (re_job *)ctx;
  int64_t start, n;
  zb__morsel_range(j->c->length, task, &start, &n);
  void *md = j->md[worker];
  const zb_regex_args *a = j->a;
  int64_t *oo = (int64_t *)j->out->data->data;
  bool ok = true;
  for (int64_t i = start; i < start + n && ok; i++) {
    int64_t before = j->blen[task];
    if (zb_column_is_valid(j->c, i)) {
      int64_t len, s, e, pos = 0, last = 0, done = 0;
      uint32_t opt = 0;
      const unsigned char *p = (const unsigned char *)zb__str(j->c, i, &len);
      while (a->n < 0 || done < a->n) {
        int rc = find_next(j, md, p, len, pos, opt, &s, &e);
        if (rc <= 0) {
          if (rc < 0) fail(j, rc);
          break;
        }
        ok = ok && put(j, task, p + last, s - last);
        const size_t *ov = j->code ? j->api->get_ovector_pointer(md) : NULL;
        int64_t off = 0;
        for (int64_t t = 0; t < a->n_tmpl && ok; t++) {
          int64_t k = a->tmpl[2 * t], g = a->tmpl[2 * t + 1];
          ok = put(j, task, a->repl + off, k);
          off += k;
          if (g == 0) ok = ok && put(j, task, p + s, e - s);
          else if (g > 0 && ov != NULL && ov[2 * g] != ZB_PCRE2_UNSET)
            ok = ok && put(j, task, p + ov[2 * g], (int64_t)(ov[2 * g + 1] - ov[2 * g]));
        }
        last = e;
        done++;
        opt = e == s ? ZB_PCRE2_NOTEMPTY_ATSTART : 0;
        pos = e;
      }
      ok = ok && put(j, task, p + last, len - last);
    }
    oo[i + 1] = j->blen[task] - before; /* length for now */
  }
  if (!ok) fail(j, 1);
}

/* After the scan (blen[m]: morsel m's first output byte; bcap[0]: the
 * total): morsel m's bytes into the result, its lengths into offsets. */
static void replace_join(void *ctx, int64_t task, int worker) {
  (void)worker;
  re_job *j = (re_job *)ctx;
  int64_t start, n;
  zb__morsel_range(j->c->length, task, &start, &n);
  int64_t nm = zb__morsels(j->c->length), pos = j->blen[task];
  int64_t nb = (task + 1 < nm ? j->blen[task + 1] : j->bcap[0]) - pos;
  if (nb > 0) memcpy((char *)j->out->chars->data + pos, j->buf[task], (size_t)nb);
  int64_t *oo = (int64_t *)j->out->data->data;
  for (int64_t i = start; i < start + n; i++) {
    pos += oo[i + 1];
    oo[i + 1] = pos;
  }
}

/* Append the span [s, e) to morsel m's span array. */
static inline bool span(re_job *j, int64_t m, int64_t s, int64_t e) {
  if (!grow((void **)&j->sp[m], &j->scap[m], j->sn[m] + 2, sizeof(int64_t))) return false;
  j->sp[m][j->sn[m]++] = s;
  j->sp[m][j->sn[m]++] = e;
  return true;
}

/* Reverse the last k spans of morsel m (rsplit collects them backwards). */
static void reverse_spans(re_job *j, int64_t m, int64_t k) {
  int64_t *b = j->sp[m] + j->sn[m] - 2 * k;
  for (int64_t x = 0, y = k - 1; x < y; x++, y--) {
    int64_t s = b[2 * x], e = b[2 * x + 1];
    b[2 * x] = b[2 * y];
    b[2 * x + 1] = b[2 * y + 1];
    b[2 * y] = s;
    b[2 * y + 1] = e;
  }
}

/* ---- the pieces of one row of split / rsplit --------------------------------- */

/* A walk over the pieces of one row in the order the scan meets them:
 * split from the left (with a pattern's groups between the pieces, as
 * re.split gives them; pat NULL: runs of whitespace as Python's
 * str.split()), rsplit from the right (a literal, or whitespace as
 * str.rsplit()); at most n splits (n < 0: all).  One walker serves every
 * result: the lists and tables record each piece, the one-piece and count
 * results record none. */
typedef struct piece_walk {
  re_job *j;
  void *md;
  const unsigned char *p;
  int64_t len;
  int64_t pos;    /* split: where the next search starts; rsplit: end of the unscanned part */
  int64_t last;   /* split with a separator: where the current piece starts */
  int64_t splits; /* splits made so far */
  int64_t group;  /* > 0: the next piece is this group of the last match */
  uint32_t opt;   /* PCRE2_NOTEMPTY_ATSTART after an empty match */
  bool right, done;
} piece_walk;

static inline void walk_init(piece_walk *w, re_job *j, void *md, const unsigned char *p,
                             int64_t len) {
  memset(w, 0, sizeof *w);
  w->j = j;
  w->md = md;
  w->p = p;
  w->len = len;
  w->right = j->a->op == ZB_RE_RSPLIT;
  w->pos = w->right ? len : 0;
}

/* Whitespace pieces: Python's str.split() / str.rsplit() with at most n splits. */
static inline __attribute__((always_inline)) bool walk_space(piece_walk *w, int64_t *s,
                                                             int64_t *e) {
  const unsigned char *p = w->p;
  int64_t len = w->len, n = w->j->a->n, q = w->pos, k;
  bool last = n >= 0 && w->splits == n; /* the rest of the row is the last piece */
  if (!w->right) {
    while (q < len && space_at(p, q, len, &k)) q += k;
    if (q >= len) return false;
    *s = q;
    if (!last)
      while (q < len && !space_at(p, q, len, &k)) q += k;
    *e = last ? len : q;
  } else {
    for (int64_t r; q > 0 && space_at(p, r = zb__utf8_back(p, 0, q), q, &k);) q = r;
    if (q <= 0) return false;
    *e = q;
    if (!last)
      for (int64_t r; q > 0 && !space_at(p, r = zb__utf8_back(p, 0, q), q, &k);) q = r;
    *s = last ? 0 : q;
  }
  w->pos = q;
  w->splits++;
  w->done = last;
  return true;
}

/* The next piece: true with its span [*s, *e) of the row (*s < 0: a group
 * that took no part), false when the row has no more. */
static inline __attribute__((always_inline)) bool walk_next(piece_walk *w, int64_t *s,
                                                            int64_t *e) {
  if (w->done) return false;
  re_job *j = w->j;
  const zb_regex_args *a = j->a;
  if (a->pat == NULL) {
    bool got = walk_space(w, s, e);
    if (!got) w->done = true;
    return got;
  }
  bool more = a->n < 0 || w->splits < a->n;
  if (w->right) { /* a literal, searched backwards */
    int64_t q = more ? rfind_lit(j, w->p, w->pos) : -1;
    if (q < 0) {
      *s = 0;
      *e = w->pos;
      w->done = true;
      return true;
    }
    *s = q + a->pat_len;
    *e = w->pos;
    w->pos = q;
    w->splits++;
    return true;
  }
  if (w->group > 0) { /* a group of the last match, between two pieces */
    const size_t *ov = j->api->get_ovector_pointer(w->md);
    int64_t g = w->group;
    bool set = ov[2 * g] != ZB_PCRE2_UNSET;
    *s = set ? (int64_t)ov[2 * g] : -1;
    *e = set ? (int64_t)ov[2 * g + 1] : -1;
    w->group = g < j->groups ? g + 1 : 0;
    return true;
  }
  int64_t ms = 0, me = 0;
  int rc = more ? find_next(j, w->md, w->p, w->len, w->pos, w->opt, &ms, &me) : 0;
  if (rc <= 0) { /* the rest of the row is the last piece */
    if (rc < 0) fail(j, rc);
    *s = w->last;
    *e = w->len;
    w->done = true;
    return true;
  }
  *s = w->last;
  *e = ms;
  w->group = j->groups > 0 ? 1 : 0;
  w->splits++;
  w->last = me;
  w->opt = me == ms ? ZB_PCRE2_NOTEMPTY_ATSTART : 0;
  w->pos = me;
  return true;
}

/* The number of pieces of a row. */
static int64_t walk_count(re_job *j, void *md, const unsigned char *p, int64_t len) {
  piece_walk w;
  walk_init(&w, j, md, p, len);
  int64_t k = 0, s, e;
  while (walk_next(&w, &s, &e)) k++;
  return k;
}

/* Pieces from the end of the scan that walk_part keeps in a ring while it
 * scans once; further back, it counts the pieces first and scans again. */
#define ZB_RING_PIECES 16

/* Piece `part` of a row as split / rsplit number them (0 the first from the
 * left, < 0 from the end): true with its span, false if the row has fewer
 * pieces.  The scan meets the pieces from the right for rsplit, so where
 * the index runs against the scan (split's part < 0, rsplit's part >= 0)
 * the last pieces met are what is asked for. */
static bool walk_part(re_job *j, void *md, const unsigned char *p, int64_t len, int64_t part,
                      int64_t *s, int64_t *e) {
  piece_walk w;
  walk_init(&w, j, md, p, len);
  int64_t k = w.right ? -part - 1 : part; /* the piece's place in scan order */
  if (k < 0 && -k <= ZB_RING_PIECES) { /* one scan, the last -k spans kept */
    int64_t back = -k, ring[2 * ZB_RING_PIECES], cnt = 0, ps, pe;
    while (walk_next(&w, &ps, &pe)) {
      int64_t slot = cnt % back;
      ring[2 * slot] = ps;
      ring[2 * slot + 1] = pe;
      cnt++;
    }
    if (cnt < back) return false;
    int64_t slot = (cnt - back) % back;
    *s = ring[2 * slot];
    *e = ring[2 * slot + 1];
    return true;
  }
  if (k < 0) k += walk_count(j, md, p, len);
  if (k < 0) return false;
  for (int64_t x = 0; x <= k; x++)
    if (!walk_next(&w, s, e)) return false;
  return true;
}

/* The spans of one valid row; returns their number. */
static int64_t row_spans(re_job *j, int64_t m, void *md, const unsigned char *p, int64_t len,
                         bool *ok) {
  const zb_regex_args *a = j->a;
  int64_t s = 0, e = 0;
  switch (a->op) {
    case ZB_RE_EXTRACT: {
      int rc = find_next(j, md, p, len, 0, 0, &s, &e);
      if (rc < 0) fail(j, rc);
      const size_t *ov = j->api->get_ovector_pointer(md);
      for (int64_t g = 1; g <= j->slots; g++) {
        bool set = rc > 0 && ov[2 * g] != ZB_PCRE2_UNSET;
        *ok = *ok && span(j, m, set ? (int64_t)ov[2 * g] : -1, set ? (int64_t)ov[2 * g + 1] : -1);
      }
      return j->slots;
    }
    case ZB_RE_PARTITION:
    case ZB_RE_RPARTITION: {
      int64_t pl = a->pat_len;
      if (a->op == ZB_RE_PARTITION) {
        if (find_next(j, md, p, len, 0, 0, &s, &e) <= 0) s = e = -1;
      } else {
        s = rfind_lit(j, p, len);
        e = s + pl;
      }
      if (s < 0) { /* not found: (row, "", "") or ("", "", row) */
        bool left = a->op == ZB_RE_PARTITION;
        *ok = *ok && span(j, m, 0, left ? len : 0) && span(j, m, 0, 0) &&
              span(j, m, left ? len : 0, len);
      } else {
        *ok = *ok && span(j, m, 0, s) && span(j, m, s, e) && span(j, m, e, len);
      }
      return 3;
    }
    case ZB_RE_SPLIT:
    case ZB_RE_RSPLIT: {
      piece_walk w;
      walk_init(&w, j, md, p, len);
      int64_t k = 0;
      while (walk_next(&w, &s, &e)) {
        *ok = *ok && span(j, m, s, e);
        k++;
      }
      if (w.right && *ok) reverse_spans(j, m, k); /* met from the right */
      return k;
    }
    case ZB_RE_FINDALL: { /* every match, or its one group */
      int64_t cnt = 0, pos = 0;
      uint32_t opt = 0;
      for (;;) {
        int rc = find_next(j, md, p, len, pos, opt, &s, &e);
        if (rc <= 0) {
          if (rc < 0) fail(j, rc);
          break;
        }
        /* n >= 0: group n, null where it took no part (extractall) */
        int64_t g = a->n >= 0 ? a->n : j->groups == 1 ? 1 : 0;
        if (g > 0) {
          const size_t *ov = j->api->get_ovector_pointer(md);
          bool set = ov[2 * g] != ZB_PCRE2_UNSET;
          int64_t none = a->n >= 0 ? -1 : 0;
          *ok = *ok && span(j, m, set ? (int64_t)ov[2 * g] : none,
                            set ? (int64_t)ov[2 * g + 1] : none);
        } else {
          *ok = *ok && span(j, m, s, e);
        }
        cnt++;
        opt = e == s ? ZB_PCRE2_NOTEMPTY_ATSTART : 0;
        pos = e;
      }
      return cnt;
    }
    default:
      return 0;
  }
}

static void span_morsel(void *ctx, int64_t task, int worker) {
  re_job *j = (re_job *)ctx;
  int64_t start, n;
  zb__morsel_range(j->c->length, task, &start, &n);
  void *md = j->md != NULL ? j->md[worker] : NULL;
  bool ok = true;
  for (int64_t i = start; i < start + n && ok; i++) {
    j->first[i] = j->sn[task];
    j->cnt[i] = -1;
    if (!zb_column_is_valid(j->c, i)) continue;
    int64_t len;
    const unsigned char *p = (const unsigned char *)zb__str(j->c, i, &len);
    j->cnt[i] = row_spans(j, task, md, p, len, &ok);
  }
  if (!ok) fail(j, 1);
}

/* ---- one piece, or the number of pieces, of each row of a split ------------- */

/* Each row's piece into j->part (what gather_column reads as slot 0). */
static void part_morsel(void *ctx, int64_t task, int worker) {
  re_job *j = (re_job *)ctx;
  int64_t start, n;
  zb__morsel_range(j->c->length, task, &start, &n);
  void *md = j->md != NULL ? j->md[worker] : NULL;
  for (int64_t i = start; i < start + n; i++) {
    int64_t s = -1, e = -1;
    if (zb_column_is_valid(j->c, i)) {
      int64_t len;
      const unsigned char *p = (const unsigned char *)zb__str(j->c, i, &len);
      if (!walk_part(j, md, p, len, j->a->part, &s, &e)) s = e = -1;
    }
    j->part[2 * i] = s;
    j->part[2 * i + 1] = e;
  }
}

/* Each row's number of pieces into the int64 result (0 under a null). */
static void pieces_morsel(void *ctx, int64_t task, int worker) {
  re_job *j = (re_job *)ctx;
  int64_t start, n;
  zb__morsel_range(j->c->length, task, &start, &n);
  void *md = j->md != NULL ? j->md[worker] : NULL;
  int64_t *d = (int64_t *)j->out->data->data;
  for (int64_t i = start; i < start + n; i++) {
    int64_t k = 0;
    if (zb_column_is_valid(j->c, i)) {
      int64_t len;
      const unsigned char *p = (const unsigned char *)zb__str(j->c, i, &len);
      k = walk_count(j, md, p, len);
    }
    d[i] = k;
  }
}

/* ---- building the span columns --------------------------------------------- */

typedef struct gather_job {
  const re_job *j;
  int64_t slot;
  zb_column *out;
  int64_t *bytes;
} gather_job;

/* The span of slot g.slot of row i: false for null. */
static inline bool slot_span(const gather_job *g, int64_t i, int64_t *s, int64_t *e) {
  const re_job *j = g->j;
  if (j->part != NULL) { /* one piece per row */
    *s = j->part[2 * i];
    *e = j->part[2 * i + 1];
    return *s >= 0;
  }
  if (j->cnt[i] <= g->slot) return false;
  const int64_t *sp = j->sp[i / ZB_MORSEL_ROWS] + j->first[i] + 2 * g->slot;
  *s = sp[0];
  *e = sp[1];
  return *s >= 0;
}

static void gather_size(void *ctx, int64_t task, int worker) {
  (void)worker;
  gather_job *g = (gather_job *)ctx;
  int64_t start, n;
  zb__morsel_range(g->out->length, task, &start, &n);
  int64_t *oo = (int64_t *)g->out->data->data;
  uint8_t *ov = (uint8_t *)g->out->validity->data;
  int64_t total = 0;
  for (int64_t k = 0; k < n; k += 64) {
    int mm = (int)ZB_MIN((int64_t)64, n - k);
    uint64_t v = 0;
    for (int q = 0; q < mm; q++) {
      int64_t i = start + k + q, s, e, m = 0;
      if (slot_span(g, i, &s, &e)) {
        m = e - s;
        v |= UINT64_C(1) << q;
      }
      oo[i + 1] = m;
      total += m;
    }
    zb__store_bits(ov, start + k, v, mm);
  }
  g->bytes[task] = total;
}

static void gather_write(void *ctx, int64_t task, int worker) {
  (void)worker;
  gather_job *g = (gather_job *)ctx;
  int64_t start, n;
  zb__morsel_range(g->out->length, task, &start, &n);
  int64_t *oo = (int64_t *)g->out->data->data;
  char *ch = (char *)g->out->chars->data;
  int64_t pos = g->bytes[task];
  for (int64_t i = start; i < start + n; i++) {
    int64_t m = oo[i + 1], s, e, len;
    if (m > 0 && slot_span(g, i, &s, &e)) {
      const char *p = zb__str(g->j->c, i, &len);
      memcpy(ch + pos, p + s, (size_t)m);
    }
    pos += m;
    oo[i + 1] = pos;
  }
}

static zb_status gather_column(const re_job *j, int64_t slot, int64_t *bytes,
                               zb_column **out, zb_error *err) {
  int64_t n = j->c->length, nm = zb__morsels(n);
  gather_job g = {j, slot, NULL, bytes};
  zb_status st = zb_column_new(ZB_STRING, n, true, 0, &g.out, err);
  if (st == ZB_OK) {
    ((int64_t *)g.out->data->data)[0] = 0;
    st = zb_parallel_for(nm, gather_size, &g, err);
  }
  if (st == ZB_OK) {
    int64_t total = zb__exclusive_scan(bytes, nm);
    zb_buffer_release(g.out->chars);
    g.out->chars = NULL;
    st = zb_buffer_new(ZB_CPU, total, &g.out->chars, err);
  }
  if (st == ZB_OK) st = zb_parallel_for(nm, gather_write, &g, err);
  if (st != ZB_OK) {
    zb_column_release(g.out);
    return st;
  }
  zb_column_recount_nulls(g.out);
  *out = g.out;
  return ZB_OK;
}

/* ---- compiling ---------------------------------------------------------------- */

static zb_status compile(re_job *j, zb_error *err) {
  const zb_regex_args *a = j->a;
  /* ALT_CIRCUMFLEX: a multiline ^ also matches after a newline that ends
   * the row, as Python's re does */
  uint32_t opts = ZB_PCRE2_UTF | ZB_PCRE2_ALT_BSUX | ZB_PCRE2_ALT_CIRCUMFLEX;
  if (!(a->flags & ZB_RE_ASCII)) opts |= ZB_PCRE2_UCP;
  if (a->flags & ZB_RE_IGNORECASE) opts |= ZB_PCRE2_CASELESS;
  if (a->flags & ZB_RE_MULTILINE) opts |= ZB_PCRE2_MULTILINE;
  if (a->flags & ZB_RE_DOTALL) opts |= ZB_PCRE2_DOTALL;
  if (a->flags & ZB_RE_VERBOSE) opts |= ZB_PCRE2_EXTENDED;
  /* LITERAL admits few options: caseless matching stays (Unicode in UTF mode) */
  if (a->flags & ZB_RE_LITERAL)
    opts = ZB_PCRE2_UTF | ZB_PCRE2_LITERAL | (opts & ZB_PCRE2_CASELESS);
  if (a->op == ZB_RE_MATCH) opts |= ZB_PCRE2_ANCHORED;
  if (a->op == ZB_RE_FULLMATCH) opts |= ZB_PCRE2_ANCHORED | ZB_PCRE2_ENDANCHORED;
  int code = 0;
  size_t at = 0;
  /* MATCH_INVALID_UTF (PCRE2 >= 10.34) keeps malformed input safe; an
   * older library refuses the option: compile without it. */
  j->code = j->api->compile((const unsigned char *)a->pat, (size_t)a->pat_len,
                            opts | ZB_PCRE2_MATCH_INVALID_UTF, &code, &at, NULL);
  if (j->code == NULL)
    j->code = j->api->compile((const unsigned char *)a->pat, (size_t)a->pat_len, opts, &code,
                              &at, NULL);
  if (j->code == NULL) {
    unsigned char msg[160];
    if (j->api->get_error_message(code, msg, sizeof msg) < 0) strcpy((char *)msg, "error");
    return zb_error_set(err, ZB_EINVAL, "invalid regular expression '%.*s': %s at position %zu",
                        (int)ZB_MIN(a->pat_len, (int64_t)200), a->pat, (const char *)msg, at);
  }
  (void)j->api->jit_compile(j->code, ZB_PCRE2_JIT_COMPLETE); /* interpreted without a JIT */
  int workers = zb_get_num_threads();
  j->md = (void **)zb_calloc((size_t)workers, sizeof(void *));
  if (j->md == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (regex)");
  for (int w = 0; w < workers; w++) {
    j->md[w] = j->api->match_data_create_from_pattern(j->code, NULL);
    if (j->md[w] == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (regex)");
  }
  return ZB_OK;
}

/* Capture groups of the compiled pattern. */
static int64_t capture_count(const re_job *j) {
  uint32_t n = 0;
  j->api->pattern_info(j->code, ZB_PCRE2_INFO_CAPTURECOUNT, &n);
  return (int64_t)n;
}

static void job_free(re_job *j, int64_t nm) {
  if (j->md != NULL) {
    for (int w = 0; w < zb_get_num_threads(); w++)
      if (j->md[w] != NULL) j->api->match_data_free(j->md[w]);
    zb_free(j->md);
  }
  if (j->code != NULL) j->api->code_free(j->code);
  for (int64_t m = 0; m < nm; m++) {
    if (j->buf) zb_free(j->buf[m]);
    if (j->sp) zb_free(j->sp[m]);
  }
  zb_free(j->buf);
  zb_free(j->blen);
  zb_free(j->bcap);
  zb_free(j->sp);
  zb_free(j->sn);
  zb_free(j->scap);
  zb_free(j->cnt);
  zb_free(j->first);
  zb_free(j->part);
}

static zb_status job_error(re_job *j, zb_error *err) {
  int e = atomic_load(&j->error);
  if (e == 0) return ZB_OK;
  if (e == 1) return zb_error_set(err, ZB_ENOMEM, "out of host memory (str.%s)",
                                  zb_regex_op_name(j->a->op));
  unsigned char msg[160];
  if (j->api == NULL || j->api->get_error_message(e, msg, sizeof msg) < 0)
    strcpy((char *)msg, "error");
  return zb_error_set(err, ZB_EINVAL, "str.%s: regular expression matching failed: %s",
                      zb_regex_op_name(j->a->op), (const char *)msg);
}

/* A copy of c's validity for o. */
static zb_status copy_validity(const zb_column *c, zb_column *o, zb_error *err) {
  if (c->validity == NULL || c->null_count == 0) return ZB_OK;
  ZB_RETURN_NOT_OK(zb_buffer_new(ZB_CPU, (c->length + 7) / 8, &o->validity, err));
  zb__bitmap_copy((uint8_t *)o->validity->data, 0, (const uint8_t *)c->validity->data,
                  c->offset, c->length);
  o->null_count = c->null_count;
  return ZB_OK;
}

/* ---- list output: every row's spans as one list ------------------------------ */

typedef struct list_job {
  const re_job *j;
  int64_t *elems, *bytes; /* per morsel: counts, then starting positions */
  int64_t *nulls;         /* per morsel: spans that do not exist (null pieces) */
  int64_t *offsets;       /* list offsets (rows + 1) */
  int64_t *coffs;         /* child string offsets (elements + 1) */
  uint8_t *cvalid;        /* child validity: set bits for spans that exist (NULL: all do) */
  char *chars;
  int64_t nbytes;         /* the child's bytes */
} list_job;

static void list_count(void *ctx, int64_t task, int worker) {
  (void)worker;
  list_job *l = (list_job *)ctx;
  const re_job *j = l->j;
  int64_t b = 0, k = j->sn[task] / 2, none = 0;
  for (int64_t x = 0; x < k; x++) {
    if (j->sp[task][2 * x] >= 0)
      b += j->sp[task][2 * x + 1] - j->sp[task][2 * x];
    else
      none++;
  }
  l->elems[task] = k;
  l->bytes[task] = b;
  l->nulls[task] = none;
}

static void list_write(void *ctx, int64_t task, int worker) {
  (void)worker;
  list_job *l = (list_job *)ctx;
  const re_job *j = l->j;
  int64_t start, n;
  zb__morsel_range(j->c->length, task, &start, &n);
  int64_t el = l->elems[task], pos = l->bytes[task];
  /* a piece of up to 16 bytes moves as one 16-byte copy where the source
   * and this morsel's output have room for it */
  int64_t stop = task + 1 < zb__morsels(j->c->length) ? l->bytes[task + 1] : l->nbytes;
  const char *cend = j->c->chars != NULL ? (const char *)j->c->chars->data + j->c->chars->size
                                         : NULL;
  const int64_t *sp = j->sp[task];
  for (int64_t i = start; i < start + n; i++) {
    l->offsets[i] = el;
    if (j->cnt[i] <= 0) continue;
    int64_t len;
    const char *p = zb__str(j->c, i, &len);
    const int64_t *r = sp + j->first[i];
    for (int64_t x = 0; x < j->cnt[i]; x++, el++) {
      l->coffs[el] = pos;
      int64_t s = r[2 * x], e = r[2 * x + 1];
      if (s < 0) continue; /* a group that took no part: a null piece */
      if (l->cvalid != NULL)
        __atomic_fetch_or(&l->cvalid[el >> 3], (uint8_t)(1u << (el & 7)), __ATOMIC_RELAXED);
      if (e - s <= 16 && pos + 16 <= stop && p + s + 16 <= cend)
        memcpy(l->chars + pos, p + s, 16);
      else
        memcpy(l->chars + pos, p + s, (size_t)(e - s));
      pos += e - s;
    }
  }
}

/* *out = a list<string> column of each row's spans (a null row: null). */
static zb_status spans_to_list(const re_job *j, zb_column **out, zb_error *err) {
  const zb_column *c = j->c;
  int64_t n = c->length, nm = zb__morsels(n);
  list_job l;
  memset(&l, 0, sizeof l);
  l.j = j;
  zb_buffer *offsets = NULL, *validity = NULL, *coffs = NULL, *cvalid = NULL, *chars = NULL;
  zb_column *child = NULL;
  zb_status st = ZB_OK;
  l.elems = (int64_t *)zb_malloc((size_t)ZB_MAX(3 * nm, 1) * sizeof(int64_t));
  if (l.elems == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (str lists)");
  l.bytes = l.elems + nm;
  l.nulls = l.elems + 2 * nm;
  st = zb_parallel_for(nm, list_count, &l, err);
  int64_t total = 0, nbytes = 0, none = 0;
  if (st == ZB_OK) {
    total = zb__exclusive_scan(l.elems, nm);
    nbytes = zb__exclusive_scan(l.bytes, nm);
    none = zb__exclusive_scan(l.nulls, nm);
    st = zb_buffer_new(ZB_CPU, (n + 1) * 8, &offsets, err);
  }
  if (st == ZB_OK) st = zb_buffer_new(ZB_CPU, (total + 1) * 8, &coffs, err);
  /* a validity bitmap only where some piece is null (a group that took no part) */
  if (st == ZB_OK && none > 0) st = zb_buffer_new_zeroed(ZB_CPU, (total + 7) / 8, &cvalid, err);
  if (st == ZB_OK) st = zb_buffer_new(ZB_CPU, nbytes, &chars, err);
  if (st == ZB_OK && c->validity != NULL && c->null_count > 0) {
    st = zb_buffer_new(ZB_CPU, (n + 7) / 8, &validity, err);
    if (st == ZB_OK)
      zb__bitmap_copy((uint8_t *)validity->data, 0, (const uint8_t *)c->validity->data,
                      c->offset, n);
  }
  if (st == ZB_OK) {
    l.offsets = (int64_t *)offsets->data;
    l.coffs = (int64_t *)coffs->data;
    l.cvalid = cvalid != NULL ? (uint8_t *)cvalid->data : NULL;
    l.chars = (char *)chars->data;
    l.nbytes = nbytes;
    l.offsets[n] = total;
    l.coffs[total] = nbytes;
    st = zb_parallel_for(nm, list_write, &l, err);
  }
  if (st == ZB_OK)
    st = zb_column_make(ZB_STRING, total, 0, cvalid, coffs, chars, NULL, none > 0 ? -1 : 0,
                        &child, err);
  if (st == ZB_OK)
    st = zb_column_make_list(n, 0, validity, offsets, child, c->null_count, out, err);
  zb_free(l.elems);
  zb_buffer_release(offsets);
  zb_buffer_release(validity);
  zb_buffer_release(coffs);
  zb_buffer_release(cvalid);
  zb_buffer_release(chars);
  zb_column_release(child);
  return st;
}

static bool multi_column(zb_regex_op op) {
  return op == ZB_RE_EXTRACT || op == ZB_RE_SPLIT || op == ZB_RE_RSPLIT ||
         op == ZB_RE_PARTITION || op == ZB_RE_RPARTITION;
}

zb_status zb__cpu_regex(const zb_column *col, const zb_regex_args *args, zb_column **out,
                        zb_table **out_table, zb_error *err) {
  const zb_regex_op op = args->op;
  int64_t n = col->length, nm = zb__morsels(n);
  re_job j;
  memset(&j, 0, sizeof j);
  j.c = col;
  j.a = args;
  atomic_init(&j.error, 0);
  bool literal = args->pat == NULL || op == ZB_RE_PARTITION || op == ZB_RE_RPARTITION ||
                 op == ZB_RE_RSPLIT ||
                 ((args->flags & ZB_RE_LITERAL) && !(args->flags & ZB_RE_IGNORECASE));
  zb_status st = ZB_OK;
  if (!literal && (op == ZB_RE_CONTAINS || op == ZB_RE_MATCH || op == ZB_RE_FULLMATCH ||
                   op == ZB_RE_COUNT) && !(args->flags & ZB_RE_LITERAL)) {
    zb__re_required_literals(args->pat, args->pat_len, args->flags, &j.lits);
    j.anchored = op == ZB_RE_MATCH || op == ZB_RE_FULLMATCH;
    /* plain text: a substring search is the regex's answer */
    if (j.lits.whole && !j.anchored) {
      literal = true;
      j.lits.n = 0;
    }
  }
  if (!literal) {
    j.api = zb__pcre2(err);
    if (j.api == NULL) return ZB_ENOTSUP;
    st = compile(&j, err);
  }
  zb_column *o = NULL;
  zb_column **cols = NULL;
  char **names = NULL;
  int64_t k = 0;
  const bool list_out =
      op == ZB_RE_FINDALL || (args->as_list && (op == ZB_RE_SPLIT || op == ZB_RE_RSPLIT));
  if (st == ZB_OK && op == ZB_RE_FINDALL && j.code != NULL) {
    j.groups = capture_count(&j);
    if (j.groups > 1 && args->n < 0)
      st = zb_error_set(err, ZB_ENOTSUP, "str.findall: the pattern has %lld groups; findall "
                        "of several groups gives tuples, which zambezi cannot hold",
                        (long long)j.groups);
    if (args->n > j.groups)
      st = zb_error_set(err, ZB_EINVAL, "str.findall: group %lld of a pattern with %lld",
                        (long long)args->n, (long long)j.groups);
  }
  const bool splits = op == ZB_RE_SPLIT || op == ZB_RE_RSPLIT;
  const bool part_out = args->part_only && splits;
  const bool pieces_out = args->count_only && splits;
  if (st == ZB_OK && splits && j.code != NULL) j.groups = capture_count(&j);
  if (st == ZB_OK && ((!multi_column(op) && !list_out) || pieces_out) && !part_out) {
    zb_type_id t = op == ZB_RE_COUNT || pieces_out ? ZB_INT64
                   : op == ZB_RE_REPLACE           ? ZB_STRING
                                                   : ZB_BOOL;
    st = zb_column_new(t, n, false, 0, &o, err);
    if (st == ZB_OK) st = copy_validity(col, o, err);
    j.out = o;
    if (st == ZB_OK && op == ZB_RE_REPLACE) {
      j.buf = (char **)zb_calloc((size_t)ZB_MAX(nm, 1), sizeof(char *));
      j.blen = (int64_t *)zb_calloc((size_t)ZB_MAX(nm, 1), sizeof(int64_t));
      j.bcap = (int64_t *)zb_calloc((size_t)ZB_MAX(nm, 1), sizeof(int64_t));
      if (j.buf == NULL || j.blen == NULL || j.bcap == NULL)
        st = zb_error_set(err, ZB_ENOMEM, "out of host memory (str.replace)");
      if (st == ZB_OK) st = zb_parallel_for(nm, replace_morsel, &j, err);
      if (st == ZB_OK) st = job_error(&j, err);
      int64_t total = 0;
      if (st == ZB_OK) {
        total = zb__exclusive_scan(j.blen, nm);
        zb_buffer_release(o->chars);
        o->chars = NULL;
        st = zb_buffer_new(ZB_CPU, total, &o->chars, err);
      }
      if (st == ZB_OK) {
        ((int64_t *)o->data->data)[0] = 0;
        j.bcap[0] = total; /* the capacities are spent: replace_join reads the total here */
        st = zb_parallel_for(nm, replace_join, &j, err);
      }
    } else if (st == ZB_OK) {
      st = zb_parallel_for(nm, pieces_out ? pieces_morsel
                               : op == ZB_RE_COUNT ? count_morsel
                                                   : test_morsel, &j, err);
      if (st == ZB_OK) st = job_error(&j, err);
    }
  } else if (st == ZB_OK && part_out) {
    j.part = (int64_t *)zb_malloc((size_t)ZB_MAX(2 * n, 1) * sizeof(int64_t));
    int64_t *bytes = (int64_t *)zb_malloc((size_t)ZB_MAX(nm, 1) * sizeof(int64_t));
    if (!j.part || !bytes) st = zb_error_set(err, ZB_ENOMEM, "out of host memory (str.split)");
    if (st == ZB_OK) st = zb_parallel_for(nm, part_morsel, &j, err);
    if (st == ZB_OK) st = job_error(&j, err);
    if (st == ZB_OK) st = gather_column(&j, 0, bytes, &o, err);
    zb_free(bytes);
  } else if (st == ZB_OK) {
    if (op == ZB_RE_EXTRACT) j.slots = capture_count(&j);
    if (op == ZB_RE_PARTITION || op == ZB_RE_RPARTITION) j.slots = 3;
    size_t m1 = (size_t)ZB_MAX(nm, 1), n1 = (size_t)ZB_MAX(n, 1);
    j.sp = (int64_t **)zb_calloc(m1, sizeof(int64_t *));
    j.sn = (int64_t *)zb_calloc(m1, sizeof(int64_t));
    j.scap = (int64_t *)zb_calloc(m1, sizeof(int64_t));
    j.cnt = (int64_t *)zb_malloc(n1 * sizeof(int64_t));
    j.first = (int64_t *)zb_malloc(n1 * sizeof(int64_t));
    if (!j.sp || !j.sn || !j.scap || !j.cnt || !j.first)
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory (str.%s)", zb_regex_op_name(op));
    if (st == ZB_OK) st = zb_parallel_for(nm, span_morsel, &j, err);
    if (st == ZB_OK) st = job_error(&j, err);
    if (list_out) {
      if (st == ZB_OK) st = spans_to_list(&j, &o, err);
      goto finish;
    }
    k = j.slots;
    if (st == ZB_OK && k == 0)
      for (int64_t i = 0; i < n; i++) k = ZB_MAX(k, j.cnt[i]);
    int64_t *bytes = NULL;
    if (st == ZB_OK) {
      cols = (zb_column **)zb_calloc((size_t)ZB_MAX(k, 1), sizeof(zb_column *));
      names = (char **)zb_calloc((size_t)ZB_MAX(k, 1), sizeof(char *));
      bytes = (int64_t *)zb_malloc((size_t)ZB_MAX(nm, 1) * sizeof(int64_t));
      if (!cols || !names || !bytes)
        st = zb_error_set(err, ZB_ENOMEM, "out of host memory (str.%s)", zb_regex_op_name(op));
    }
    for (int64_t s = 0; s < k && st == ZB_OK; s++) {
      names[s] = (char *)zb_malloc(24);
      if (names[s] == NULL) {
        st = zb_error_set(err, ZB_ENOMEM, "out of host memory (str.%s)", zb_regex_op_name(op));
        break;
      }
      snprintf(names[s], 24, "%lld", (long long)s);
      st = gather_column(&j, s, bytes, &cols[s], err);
    }
    if (st == ZB_OK) st = zb_table_make(k, cols, (const char *const *)names, out_table, err);
    if (st == ZB_OK && k == 0) (*out_table)->num_rows = n;
    zb_free(bytes);
  }
finish:
  job_free(&j, nm);
  for (int64_t s = 0; cols != NULL && s < k; s++) zb_column_release(cols[s]);
  for (int64_t s = 0; names != NULL && s < k; s++) zb_free(names[s]);
  zb_free(cols);
  zb_free(names);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  if (!multi_column(op) || list_out || part_out || pieces_out) *out = o;
  return ZB_OK;
}
