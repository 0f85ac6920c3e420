/*
 * regex_literal.h -- the literal text every match of a regular expression
 * must contain, read from the pattern, so that the regex kernels skip rows
 * lacking it with memchr / memmem before running PCRE2, and start the
 * search near its first occurrence.  See regex_literal.c for the subset of
 * the syntax that is read (anything else: no literal, the regex runs on
 * every row as before).
 */
#ifndef ZAMBEZI_CPU_REGEX_LITERAL_H
#define ZAMBEZI_CPU_REGEX_LITERAL_H

#include <stdbool.h>
#include <stdint.h>

#define ZB__RE_LITS 4        /* required literals kept (the longest) */
#define ZB__RE_LIT_BYTES 64  /* bytes kept of each (a part of one is required too) */

typedef struct zb__re_literals {
  int n;                                     /* 0: nothing known */
  unsigned char bytes[ZB__RE_LITS][ZB__RE_LIT_BYTES];
  int len[ZB__RE_LITS];
  /* the most characters a match has before the literal's first byte;
   * -1: no bound */
  int64_t prefix[ZB__RE_LITS];
  /* the whole pattern is bytes[0] as it stands (no escape, no operator):
   * a plain substring search gives the regex's answer */
  bool whole;
} zb__re_literals;

/* Fill out with the literals every match of pattern pat[0, len) must
 * contain, as compiled by regex.c (UTF mode) with the engine's flags
 * (ZB_RE_*): none for a pattern with an alternation at its top level,
 * inline options, \Q..\E, caseless or verbose matching, or any syntax not
 * read.  Never fails. */
void zb__re_required_literals(const char *pat, int64_t len, uint32_t flags,
                              zb__re_literals *out);

/* Where a search of p[0, len) may start (>= 0), or -1 when a required
 * literal is missing (no match is possible).  anchored: the pattern is
 * matched at 0 only (match, fullmatch), so the start stays 0. */
int64_t zb__re_prefilter(const zb__re_literals *l, const unsigned char *p, int64_t len,
                         bool anchored);

#endif /* ZAMBEZI_CPU_REGEX_LITERAL_H */
