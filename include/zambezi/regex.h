/*
 * regex.h -- pattern operations on string columns: regular expressions
 * (PCRE2, loaded at run time) and the literal splits and partitions that
 * share their multi-column results.  Entry point in src/core/regex_ops.c,
 * CPU kernels in src/cpu/regex.c, the PCRE2 loader in src/cpu/pcre2.c.
 *
 * Patterns follow PCRE2 syntax in UTF mode with Unicode properties
 * (\d, \w, \s, \b match non-ASCII characters, as Python's re does for str
 * patterns) unless ZB_RE_ASCII.  The Python layer translates the few
 * differences of Python's re syntax that matter (\Z).  Matches are found
 * left to right as Python's re.finditer finds them: non-overlapping, and
 * an empty match is allowed right after a non-empty one but not at the
 * position of the previous empty match.  Nulls propagate: a null row
 * gives a null result (every column null for the multi-column ops).
 * Categoricals are processed on their dictionary.
 */
#ifndef ZAMBEZI_REGEX_H
#define ZAMBEZI_REGEX_H

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

/*   ZB_RE_CONTAINS   bool: a match anywhere (re.search).
 *   ZB_RE_MATCH      bool: a match starting at the row's start (re.match).
 *   ZB_RE_FULLMATCH  bool: the whole row matches (re.fullmatch).
 *   ZB_RE_COUNT      int64: the number of matches (len(re.findall)).
 *   ZB_RE_REPLACE    string: re.sub with the template in repl/tmpl, at
 *                    most n replacements (n < 0: all).
 *   ZB_RE_EXTRACT    table: one string column per capture group, from the
 *                    first match; no match or a group that took no part
 *                    in it gives null.
 *   ZB_RE_SPLIT      table: the pieces between matches (re.split without
 *                    the groups), at most n splits (n < 0: all); columns
 *                    as many as the row with the most pieces, rows with
 *                    fewer padded with null.  pat NULL: runs of
 *                    whitespace, leading and trailing whitespace dropped
 *                    (Python's str.split()).
 *   ZB_RE_RSPLIT     table: as SPLIT counting splits from the right
 *                    (literal or whitespace only, as Python's str.rsplit).
 *   ZB_RE_PARTITION  table of 3 columns: before, the first literal pat,
 *                    after (str.partition).
 *   ZB_RE_RPARTITION table of 3: around the last occurrence (rpartition).
 *   ZB_RE_FINDALL    list<string>: every non-overlapping match (re.findall):
 *                    the whole match, or the text of the pattern's one
 *                    capture group ("" where it took no part); a pattern
 *                    with several groups is ZB_ENOTSUP (pandas gives
 *                    tuples).  n >= 0 takes group n of every match
 *                    instead (0: the whole match), null where the group
 *                    took no part (extractall).
 * With as_list, SPLIT and RSPLIT set *out to a list<string> column of each
 * row's pieces (a null row: a null list) instead of a table.
 * With part_only, SPLIT and RSPLIT set *out to a string column of one
 * piece of each row: piece `part` of the pieces they give (with the groups
 * of a pattern among them; part < 0 counts from the end), null where the
 * row is null, has fewer pieces, or the piece is a group that took no part
 * -- pandas' s.str.split(pat, n=n).str[part], without building the lists.
 * With count_only, SPLIT and RSPLIT set *out to an int64 column of each
 * row's number of pieces (null where the row is null): the lengths of the
 * lists as_list would give. */
typedef enum zb_regex_op {
  ZB_RE_CONTAINS = 0,
  ZB_RE_MATCH,
  ZB_RE_FULLMATCH,
  ZB_RE_COUNT,
  ZB_RE_REPLACE,
  ZB_RE_EXTRACT,
  ZB_RE_SPLIT,
  ZB_RE_RSPLIT,
  ZB_RE_PARTITION,
  ZB_RE_RPARTITION,
  ZB_RE_FINDALL,
  ZB_RE_OP_COUNT
} zb_regex_op;

/* Flags (Python's re flags of the same names). */
#define ZB_RE_IGNORECASE 1u
#define ZB_RE_MULTILINE 2u
#define ZB_RE_DOTALL 4u
#define ZB_RE_VERBOSE 8u
#define ZB_RE_ASCII 16u   /* \d \w \s \b and case folding ASCII only */
#define ZB_RE_LITERAL 32u /* pat is plain text, not a pattern */

/* Arguments; the strings and arrays are borrowed for the call. */
typedef struct zb_regex_args {
  zb_regex_op op;
  const char *pat; /* UTF-8 pattern (NULL only for whitespace SPLIT/RSPLIT) */
  int64_t pat_len;
  uint32_t flags;
  int64_t n; /* REPLACE: replacements per row; SPLIT/RSPLIT: splits; < 0: all;
              * FINDALL: the group to take (< 0: as re.findall) */
  /* REPLACE: the template as n_tmpl pairs (k, g): copy the next k bytes of
   * repl, then group g of the match (g < 0: nothing; a group that took no
   * part: nothing, as Python's re.sub). */
  const char *repl;
  int64_t repl_len;
  const int64_t *tmpl;
  int64_t n_tmpl;
  bool as_list; /* SPLIT / RSPLIT: one list<string> column, not a table */
  bool part_only; /* SPLIT / RSPLIT: only piece `part` of each row, a string column */
  int64_t part;
  bool count_only; /* SPLIT / RSPLIT: each row's number of pieces, an int64 column */
} zb_regex_args;

/* "contains", "match", ... */
ZB_API const char *zb_regex_op_name(zb_regex_op op);

/* Whether the PCRE2 library (libpcre2-8) could be loaded.  ZAMBEZI_LIBPCRE2
 * names another file to load instead of libpcre2-8.so.0. */
ZB_API bool zb_regex_available(void);

/* Apply op to every row of col (string or categorical).  Single-column ops
 * (and FINDALL, SPLIT / RSPLIT with as_list, part_only or count_only) set *out (out_table may be
 * NULL); EXTRACT, SPLIT, RSPLIT, PARTITION and RPARTITION set *out_table with columns named "0", "1", ...  A pattern
 * PCRE2 refuses is ZB_EINVAL naming the pattern and the reason; a missing
 * PCRE2 library is ZB_ENOTSUP saying how to install it.  Literal ops
 * (ZB_RE_LITERAL with case kept, PARTITION, RPARTITION, RSPLIT, SPLIT of
 * whitespace) do not need PCRE2. */
ZB_API zb_status zb_column_regex(const zb_column *col, const zb_regex_args *args,
                                 zb_column **out, zb_table **out_table, zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_REGEX_H */
