/*
 * regex_literal.c -- required literals of a regular expression (see
 * regex_literal.h): what polars' regex crate and RE2 call a prefilter.
 *
 * The pattern is read at its top level only, left to right, as a sequence
 * of atoms: a literal character (itself, or an escaped ASCII punctuation
 * character), '.', a class [...], a group (...) or (?:...) (skipped as a
 * whole: nothing inside is required, as the group may be optional), the
 * escapes \d \D \w \W \s \S \h \H \v \V \R and the assertions ^ $ \b \B \A
 * \z \Z \G, each perhaps followed by a quantifier (? * + {n} {n,} {n,m},
 * lazy or possessive).  A run of literal characters each occurring exactly
 * once (or n times, {n}) is a literal every match contains; a character
 * that may repeat (+, {n,m}) ends its run after it, one that may be
 * absent (?, *, {0,m}) ends it before it.  The characters matched before a
 * run's first byte are counted as the atoms' widths times their largest
 * repeat (-1 when a group or an unbounded repeat comes first): a search
 * may start that many characters before the run's first occurrence.
 *
 * Anything else -- a top-level '|', "(?" other than "(?:" (inline options
 * that change the meaning of later text, lookarounds), "(*" (verbs such as
 * (*ACCEPT), which ends a match early), \Q..\E, any other
 * backslash-letter or digit (backreferences, \x.., \p{..} ...), a '{' that
 * is not a quantifier, unbalanced brackets, caseless or verbose flags --
 * gives no literal: the regex runs on every row.
 */
#define _GNU_SOURCE
#include "cpu/regex_literal.h"

#include <string.h>

#include "zambezi/regex.h"

typedef struct parser {
  const unsigned char *p;
  int64_t n, i;
  zb__re_literals *out;
  unsigned char run[ZB__RE_LIT_BYTES];
  int run_len;
  int64_t run_prefix; /* chars before the run's first byte, -1: unbounded */
  int64_t width;      /* chars consumed so far, -1: unbounded */
  bool broken;        /* the whole pattern is not one plain run */
} parser;

static void add_width(parser *s, int64_t w) {
  if (s->width < 0 || w < 0) s->width = -1;
  else s->width += w;
}

/* Keep the current run among the longest ZB__RE_LITS, then start anew. */
static void end_run(parser *s) {
  zb__re_literals *o = s->out;
  if (s->run_len > 0) {
    int slot = o->n;
    if (slot == ZB__RE_LITS) { /* replace the shortest if this one is longer */
      slot = 0;
      for (int k = 1; k < ZB__RE_LITS; k++)
        if (o->len[k] < o->len[slot]) slot = k;
      if (o->len[slot] >= s->run_len) slot = -1;
    } else {
      o->n++;
    }
    if (slot >= 0) {
      memcpy(o->bytes[slot], s->run, (size_t)s->run_len);
      o->len[slot] = s->run_len;
      o->prefix[slot] = s->run_prefix;
    }
  }
  s->run_len = 0;
}

/* Append character c[0, k) to the run (bytes past the cap are dropped: a
 * part of a required literal is required as well). */
static void append(parser *s, const unsigned char *c, int k) {
  if (s->run_len == 0) s->run_prefix = s->width;
  if (s->run_len + k <= ZB__RE_LIT_BYTES) {
    memcpy(s->run + s->run_len, c, (size_t)k);
    s->run_len += k;
  }
}

static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* A quantifier at s->i, if any: its repeat bounds (max -1: unbounded), the
 * position after it; false for a '{' that is no quantifier. */
static bool quantifier(parser *s, int64_t *mn, int64_t *mx) {
  *mn = *mx = 1;
  if (s->i >= s->n) return true;
  unsigned char c = s->p[s->i];
  if (c == '?' || c == '*' || c == '+') {
    *mn = c == '+' ? 1 : 0;
    *mx = c == '?' ? 1 : -1;
    s->i++;
  } else if (c == '{') {
    int64_t q = s->i + 1, a = 0, b;
    if (q >= s->n || !is_digit(s->p[q])) return false;
    while (q < s->n && is_digit(s->p[q])) {
      if (a > 100000) return false;
      a = a * 10 + (s->p[q++] - '0');
    }
    b = a;
    if (q < s->n && s->p[q] == ',') {
      q++;
      if (q < s->n && is_digit(s->p[q])) {
        b = 0;
        while (q < s->n && is_digit(s->p[q])) {
          if (b > 100000) return false;
          b = b * 10 + (s->p[q++] - '0');
        }
      } else {
        b = -1;
      }
    }
    if (q >= s->n || s->p[q] != '}') return false;
    *mn = a;
    *mx = b;
    s->i = q + 1;
  } else {
    return true;
  }
  if (s->i < s->n && (s->p[s->i] == '?' || s->p[s->i] == '+')) s->i++; /* lazy, possessive */
  return true;
}

/* Skip a class starting at s->i ('['); false when it does not end. */
static bool skip_class(parser *s) {
  int64_t q = s->i + 1;
  if (q < s->n && s->p[q] == '^') q++;
  if (q < s->n && s->p[q] == ']') q++; /* a leading ']' is literal */
  while (q < s->n && s->p[q] != ']') {
    if (s->p[q] == '\\') q++;
    else if (s->p[q] == '[' && q + 1 < s->n && s->p[q + 1] == ':') { /* [:alpha:] */
      const unsigned char *e = memmem(s->p + q + 2, (size_t)(s->n - q - 2), ":]", 2);
      if (e == NULL) return false;
      q = e - s->p + 1;
    }
    q++;
  }
  if (q >= s->n) return false;
  s->i = q + 1;
  return true;
}

/* Skip a group starting at s->i ('('); false when it does not end. */
static bool skip_group(parser *s) {
  int depth = 0;
  while (s->i < s->n) {
    unsigned char c = s->p[s->i];
    if (c == '\\') {
      s->i += 2;
      continue;
    }
    if (c == '[') {
      if (!skip_class(s)) return false;
      continue;
    }
    s->i++;
    if (c == '(') depth++;
    else if (c == ')' && --depth == 0) return true;
  }
  return false;
}

/* The width in characters of a backslash-letter atom, or -2 for one not read. */
static int64_t escape_width(unsigned char c) {
  if (strchr("dDwWsShHvV", c) != NULL) return 1;
  if (strchr("bBAzZG", c) != NULL) return 0;
  if (c == 'R') return 2;
  return -2;
}

static int utf8_len(unsigned char c) {
  return c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
}

static bool parse(parser *s) {
  while (s->i < s->n) {
    unsigned char c = s->p[s->i];
    int64_t atom = -2; /* width of a non-literal atom; -2: a literal char */
    const unsigned char *lit = NULL;
    int k = 0;
    switch (c) {
      case '|':
      case ')':
      case '*':
      case '+':
      case '?':
      case '{':
        return false; /* alternation, or a quantifier with nothing before it */
      case '(':
        if (s->i + 1 < s->n && s->p[s->i + 1] == '?' &&
            (s->i + 2 >= s->n || s->p[s->i + 2] != ':'))
          return false;
        if (!skip_group(s)) return false;
        atom = -1;
        break;
      case '[':
        if (!skip_class(s)) return false;
        atom = 1;
        break;
      case '.':
        s->i++;
        atom = 1;
        break;
      case '^':
      case '$':
        s->i++;
        atom = 0;
        break;
      case '\\': {
        if (s->i + 1 >= s->n) return false;
        unsigned char d = s->p[s->i + 1];
        if ((d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z') || is_digit(d)) {
          atom = escape_width(d);
          if (atom == -2) return false;
          s->i += 2;
        } else {
          lit = s->p + s->i + 1;
          k = utf8_len(d);
          if (s->i + 1 + k > s->n) return false;
          s->i += 1 + k;
          s->broken = true; /* the pattern's bytes are not the literal's */
        }
        break;
      }
      default:
        lit = s->p + s->i;
        k = utf8_len(c);
        if (s->i + k > s->n) return false;
        s->i += k;
        break;
    }
    int64_t mn, mx;
    int64_t before = s->i;
    if (!quantifier(s, &mn, &mx)) return false;
    if (s->i != before) s->broken = true;
    if (lit == NULL) { /* an atom that is no literal ends the run */
      s->broken = true;
      end_run(s);
      add_width(s, atom < 0 || mx < 0 ? -1 : atom * mx);
      continue;
    }
    if (mn == mx) { /* exactly mn times: still one run */
      if (mn == 0) end_run(s);
      for (int64_t r = 0; r < mn && r < ZB__RE_LIT_BYTES; r++) append(s, lit, k);
      if (mn > ZB__RE_LIT_BYTES) end_run(s);
    } else {
      if (mn > 0) append(s, lit, k);
      end_run(s);
    }
    add_width(s, mx < 0 ? -1 : mx);
  }
  end_run(s);
  return true;
}

void zb__re_required_literals(const char *pat, int64_t len, uint32_t flags,
                              zb__re_literals *out) {
  memset(out, 0, sizeof *out);
  if (pat == NULL || len <= 0 || (flags & (ZB_RE_IGNORECASE | ZB_RE_VERBOSE))) return;
  if (memmem(pat, (size_t)len, "\\Q", 2) != NULL) return;
  /* PCRE2's verbs: (*ACCEPT) ends a match early, before later literals */
  if (memmem(pat, (size_t)len, "(*", 2) != NULL) return;
  parser s;
  memset(&s, 0, sizeof s);
  s.p = (const unsigned char *)pat;
  s.n = len;
  s.out = out;
  if (!parse(&s)) {
    memset(out, 0, sizeof *out);
    return;
  }
  out->whole = !s.broken && out->n == 1 && out->len[0] == len;
}

int64_t zb__re_prefilter(const zb__re_literals *l, const unsigned char *p, int64_t len,
                         bool anchored) {
  int64_t from = 0;
  for (int k = 0; k < l->n; k++) {
    const unsigned char *q =
        l->len[k] == 1 ? memchr(p, l->bytes[k][0], (size_t)len)
                       : memmem(p, (size_t)len, l->bytes[k], (size_t)l->len[k]);
    if (q == NULL) return -1;
    int64_t at = q - p, back = l->prefix[k];
    if (anchored || back < 0 || at <= from) continue;
    /* back characters before the first occurrence (the match's characters
     * there are well-formed UTF-8, so stepping over them is exact) */
    while (back-- > 0 && at > from) {
      at--;
      for (int c = 0; c < 3 && at > 0 && (p[at] & 0xC0) == 0x80; c++) at--;
    }
    if (at > from) from = at;
  }
  return from;
}
