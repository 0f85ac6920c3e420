/*
 * test_regex.c -- unit tests for the pattern operations of zambezi/regex.h
 * (zb_column_regex): hand-computed results of each op on a small column
 * with nulls, empty strings and multi-byte UTF-8 (Python's re gives the
 * same), a categorical giving what its strings give, the errors, and every
 * allocation failing in turn leaving nothing behind.  Skipped when
 * libpcre2-8 is not on the machine (the literal ops are still checked).
 */
#include <string.h>

#include "test.h"
#include "zambezi/compute.h"
#include "zambezi/regex.h"

/* A string column of the n rows (NULL: a null row). */
static zb_column *strings_of(const char *const *rows, int64_t n) {
  zb_error err;
  int64_t total = 0;
  for (int64_t i = 0; i < n; i++) total += rows[i] ? (int64_t)strlen(rows[i]) : 0;
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_STRING, n, true, total, &c, &err), &err);
  int64_t *o = (int64_t *)c->data->data, pos = 0;
  o[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t len = rows[i] ? (int64_t)strlen(rows[i]) : 0;
    if (len) memcpy((char *)c->chars->data + pos, rows[i], (size_t)len);
    pos += len;
    o[i + 1] = pos;
    zb_bit_set((uint8_t *)c->validity->data, i, rows[i] != NULL);
  }
  zb_column_recount_nulls(c);
  return c;
}

/* Row i of a string column equals want (NULL: null). */
static void check_row(const zb_column *c, int64_t i, const char *want) {
  if (want == NULL) {
    ZB_CHECK(!zb_column_is_valid(c, i));
    return;
  }
  ZB_CHECK(zb_column_is_valid(c, i));
  const int64_t *o = (const int64_t *)c->data->data + c->offset + i;
  int64_t len = o[1] - o[0];
  ZB_CHECK_EQ_INT(len, (int64_t)strlen(want));
  if (len == (int64_t)strlen(want))
    ZB_CHECK(memcmp((const char *)c->chars->data + o[0], want, (size_t)len) == 0);
}

static const char *const k_rows[] = {"ab12 c3", NULL, "", "é x ß 99", "xxaxx"};
#define N_ROWS 5

static zb_regex_args re_args(zb_regex_op op, const char *pat, uint32_t flags) {
  zb_regex_args a;
  memset(&a, 0, sizeof a);
  a.op = op;
  a.pat = pat;
  a.pat_len = pat ? (int64_t)strlen(pat) : 0;
  a.flags = flags;
  a.n = -1;
  return a;
}

ZB_TEST(test_regex_literal_ops) {
  zb_error err;
  zb_column *c = strings_of(k_rows, N_ROWS);
  zb_table *t = NULL;
  zb_regex_args a = re_args(ZB_RE_SPLIT, NULL, 0);
  ZB_CHECK_OK(zb_column_regex(c, &a, NULL, &t, &err), &err);
  ZB_CHECK_EQ_INT(t->num_columns, 4); /* "é x ß 99" */
  const char *want0[] = {"ab12", NULL, NULL, "é", "xxaxx"};
  const char *want3[] = {NULL, NULL, NULL, "99", NULL};
  for (int64_t i = 0; i < N_ROWS; i++) {
    check_row(t->columns[0], i, want0[i]);
    check_row(t->columns[3], i, want3[i]);
  }
  zb_table_release(t);
  a = re_args(ZB_RE_RPARTITION, "x", ZB_RE_LITERAL);
  ZB_CHECK_OK(zb_column_regex(c, &a, NULL, &t, &err), &err);
  const char *p0[] = {"", NULL, "", "é ", "xxax"}, *p2[] = {"ab12 c3", NULL, "", " ß 99", ""};
  for (int64_t i = 0; i < N_ROWS; i++) {
    check_row(t->columns[0], i, p0[i]);
    check_row(t->columns[2], i, p2[i]);
  }
  zb_table_release(t);
  a = re_args(ZB_RE_RSPLIT, "x", 0); /* rsplit takes literal text only */
  ZB_CHECK_EQ_INT(zb_column_regex(c, &a, NULL, &t, &err), ZB_ENOTSUP);
  ZB_CHECK(t == NULL);
  a = re_args(ZB_RE_SPLIT, "", ZB_RE_LITERAL);
  ZB_CHECK_EQ_INT(zb_column_regex(c, &a, NULL, &t, &err), ZB_EINVAL);
  zb_column_release(c);
}

ZB_TEST(test_regex_ops) {
  if (!zb_regex_available()) ZB_SKIP("libpcre2-8 is not installed");
  zb_error err;
  zb_column *c = strings_of(k_rows, N_ROWS), *r = NULL;
  for (int t = 1; t <= 3; t += 2) {
    ZB_CHECK_OK(zb_set_num_threads(t, &err), &err);
    zb_regex_args a = re_args(ZB_RE_CONTAINS, "\\d\\b", 0);
    ZB_CHECK_OK(zb_column_regex(c, &a, &r, NULL, &err), &err);
    const int want_c[] = {1, -1, 0, 1, 0};
    for (int64_t i = 0; i < N_ROWS; i++) {
      ZB_CHECK_EQ_INT(zb_column_is_valid(r, i) ? zb_bit_get(r->data->data, i) : -1, want_c[i]);
    }
    zb_column_release(r);
    a = re_args(ZB_RE_COUNT, "x*", 0); /* empty matches as Python's re.findall */
    ZB_CHECK_OK(zb_column_regex(c, &a, &r, NULL, &err), &err);
    const int64_t want_n[] = {8, 0, 1, 9, 4};
    for (int64_t i = 0; i < N_ROWS; i++)
      if (i != 1) ZB_CHECK_EQ_INT(((int64_t *)r->data->data)[i], want_n[i]);
    ZB_CHECK(!zb_column_is_valid(r, 1));
    zb_column_release(r);
    a = re_args(ZB_RE_FULLMATCH, "X+A\\w+", ZB_RE_IGNORECASE);
    ZB_CHECK_OK(zb_column_regex(c, &a, &r, NULL, &err), &err);
    ZB_CHECK(zb_bit_get(r->data->data, 4) && !zb_bit_get(r->data->data, 0));
    zb_column_release(r);
    /* re.sub(r"(\d)(\d)?", r"<\2\1>", row, count=2) */
    a = re_args(ZB_RE_REPLACE, "(\\d)(\\d)?", 0);
    a.n = 2;
    const int64_t tmpl[] = {1, 2, 0, 1, 1, -1};
    a.repl = "<>";
    a.repl_len = 2;
    a.tmpl = tmpl;
    a.n_tmpl = 3;
    ZB_CHECK_OK(zb_column_regex(c, &a, &r, NULL, &err), &err);
    const char *want_r[] = {"ab<21> c<3>", NULL, "", "é x ß <99>", "xxaxx"};
    for (int64_t i = 0; i < N_ROWS; i++) check_row(r, i, want_r[i]);
    zb_column_release(r);
    zb_table *tb = NULL;
    a = re_args(ZB_RE_EXTRACT, "(\\w)(\\d)?", 0);
    ZB_CHECK_OK(zb_column_regex(c, &a, NULL, &tb, &err), &err);
    ZB_CHECK_EQ_INT(tb->num_columns, 2);
    const char *e0[] = {"a", NULL, NULL, "é", "x"};
    for (int64_t i = 0; i < N_ROWS; i++) {
      check_row(tb->columns[0], i, e0[i]);
      check_row(tb->columns[1], i, NULL);
    }
    zb_table_release(tb);
    a = re_args(ZB_RE_SPLIT, "(\\d)", 0); /* groups kept, as re.split */
    ZB_CHECK_OK(zb_column_regex(c, &a, NULL, &tb, &err), &err);
    ZB_CHECK_EQ_INT(tb->num_columns, 7); /* "ab", "1", "", "2", " c", "3", "" */
    check_row(tb->columns[1], 0, "1");
    check_row(tb->columns[4], 0, " c");
    check_row(tb->columns[6], 0, "");
    check_row(tb->columns[1], 4, NULL);
    zb_table_release(tb);
  }
  ZB_CHECK_OK(zb_set_num_threads(zb_available_cores(), &err), &err);
  /* a categorical gives what its strings give */
  zb_column *cat = NULL, *r2 = NULL, *eq = NULL;
  ZB_CHECK_OK(zb_column_cast(c, ZB_CATEGORICAL, ZB_MICRO, &cat, &err), &err);
  zb_regex_args a = re_args(ZB_RE_REPLACE, "x", 0);
  const int64_t t0[] = {1, -1};
  a.repl = "#";
  a.repl_len = 1;
  a.tmpl = t0;
  a.n_tmpl = 1;
  ZB_CHECK_OK(zb_column_regex(cat, &a, &r, NULL, &err), &err);
  ZB_CHECK_OK(zb_column_regex(c, &a, &r2, NULL, &err), &err);
  ZB_CHECK_OK(zb_column_binary(ZB_OP_EQ, r, r2, &eq, &err), &err);
  for (int64_t i = 0; i < N_ROWS; i++)
    if (i != 1) ZB_CHECK(zb_bit_get(eq->data->data, i));
  zb_column_release(eq);
  zb_column_release(r);
  zb_column_release(r2);
  /* errors: a bad pattern, a non-string column */
  a = re_args(ZB_RE_CONTAINS, "(a", 0);
  ZB_CHECK_EQ_INT(zb_column_regex(c, &a, &r, NULL, &err), ZB_EINVAL);
  ZB_CHECK(r == NULL && strstr(err.message, "(a") != NULL);
  zb_column *ints = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, 2, false, 0, &ints, &err), &err);
  a = re_args(ZB_RE_CONTAINS, "a", 0);
  ZB_CHECK_EQ_INT(zb_column_regex(ints, &a, &r, NULL, &err), ZB_ETYPE);
  zb_column_release(ints);
  /* every allocation failing in turn */
  zb_regex_args ops[4] = {a, re_args(ZB_RE_EXTRACT, "(\\w)(\\d)", 0),
                          re_args(ZB_RE_SPLIT, "\\s", 0), re_args(ZB_RE_PARTITION, " ", ZB_RE_LITERAL)};
  ops[0] = re_args(ZB_RE_REPLACE, "x", 0);
  ops[0].repl = "#";
  ops[0].repl_len = 1;
  ops[0].tmpl = t0;
  ops[0].n_tmpl = 1;
  for (int k = 0; k < 4; k++) {
    for (int64_t nth = 1; nth < 80; nth++) {
      zb_column *o = NULL;
      zb_table *tb = NULL;
      bool multi = k > 0;
      zb_alloc_fail_after(nth);
      zb_status st = zb_column_regex(cat, &ops[k], multi ? NULL : &o, multi ? &tb : NULL, &err);
      zb_alloc_fail_after(0);
      if (st == ZB_OK) {
        zb_column_release(o);
        zb_table_release(tb);
        break;
      }
      ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
      ZB_CHECK(o == NULL && tb == NULL);
    }
  }
  zb_column_release(cat);
  zb_column_release(c);
}

/* Patterns whose required literals let rows be skipped, or the search
 * start late (regex_literal.c): the results are the regex's.  Rows with
 * multi-byte digits before the literal, the literal only late in the row,
 * an optional or repeated literal character, a group, plain text, and
 * patterns whose syntax is not read. */
ZB_TEST(test_regex_required_literals) {
  if (!zb_regex_available()) ZB_SKIP("libpcre2-8 is not installed");
  static const char *const rows[] = {
      "ab \xd9\xa1\xd9\xa2-x", /* two Arabic-Indic digits, "-x" */
      "1-x 22-y 33-x", "ac abbc", NULL, "-x", "zz foo", "", "xyzyzw ab|"};
  enum { NR = 8 };
  static const struct {
    const char *pat;
    zb_regex_op op;
    int want[NR]; /* -1: null row; count for ZB_RE_COUNT */
  } cases[] = {
      {"\\d{2}-x", ZB_RE_CONTAINS, {1, 1, 0, -1, 0, 0, 0, 0}},
      {"\\d{2}-[xy]", ZB_RE_COUNT, {1, 2, 0, -1, 0, 0, 0, 0}},
      {"\\d-x", ZB_RE_COUNT, {1, 2, 0, -1, 0, 0, 0, 0}},
      {"\\d+-x", ZB_RE_MATCH, {0, 1, 0, -1, 0, 0, 0, 0}},
      {"-x", ZB_RE_FULLMATCH, {0, 0, 0, -1, 1, 0, 0, 0}},
      {"-x", ZB_RE_COUNT, {1, 2, 0, -1, 1, 0, 0, 0}},
      {"ab?c", ZB_RE_COUNT, {0, 0, 1, -1, 0, 0, 0, 0}},
      {"ab+c", ZB_RE_CONTAINS, {0, 0, 1, -1, 0, 0, 0, 0}},
      {"x(?:yz)*w", ZB_RE_CONTAINS, {0, 0, 0, -1, 0, 0, 0, 1}},
      {"[)|]", ZB_RE_CONTAINS, {0, 0, 0, -1, 0, 0, 0, 1}},
      {"b|foo", ZB_RE_COUNT, {1, 0, 2, -1, 0, 1, 0, 1}},
      {"(?i)FOO", ZB_RE_CONTAINS, {0, 0, 0, -1, 0, 1, 0, 0}},
      {"^.*foo$", ZB_RE_CONTAINS, {0, 0, 0, -1, 0, 1, 0, 0}},
      {"\\bab\\b", ZB_RE_CONTAINS, {1, 0, 0, -1, 0, 0, 0, 1}},
      {"(?:a(*ACCEPT))bc", ZB_RE_CONTAINS, {1, 0, 1, -1, 0, 0, 0, 1}}, /* "a" is enough */
  };
  zb_error err;
  zb_column *c = strings_of(rows, NR), *r = NULL;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    zb_regex_args a = re_args(cases[k].op, cases[k].pat, 0);
    ZB_CHECK_OK(zb_column_regex(c, &a, &r, NULL, &err), &err);
    for (int64_t i = 0; i < NR; i++) {
      int64_t got = !zb_column_is_valid(r, i) ? -1
                    : cases[k].op == ZB_RE_COUNT ? ((int64_t *)r->data->data)[i]
                                                 : zb_bit_get(r->data->data, i);
      if (got != cases[k].want[i]) fprintf(stderr, "  pattern %s row %d\n", cases[k].pat, (int)i);
      ZB_CHECK_EQ_INT(got, cases[k].want[i]);
    }
    zb_column_release(r);
  }
  zb_column_release(c);
}

/* SPLIT with part_only: one piece of every row, as Python's
 * str.split(...)[part] / re.split(...)[part] give it (hand-checked there),
 * null for a null row, a row with fewer pieces, or a group that took no
 * part; the same with one and three threads, and every allocation failing
 * in turn leaving nothing behind. */
ZB_TEST(test_regex_split_part) {
  static const char *const rows[] = {"a b  c", NULL, "", "\xc3\xa9 x \xc3\x9f 99", "a,b,,c",
                                     "  lead"};
  enum { NR = 6 };
  static const struct {
    const char *pat; /* NULL: whitespace */
    uint32_t flags;
    int64_t n, part;
    const char *want[NR]; /* "\1": null */
  } cases[] = {
      {NULL, 0, -1, 0, {"a", "\1", "\1", "\xc3\xa9", "a,b,,c", "lead"}},
      {NULL, 0, -1, -1, {"c", "\1", "\1", "99", "a,b,,c", "lead"}},
      {NULL, 0, 1, 1, {"b  c", "\1", "\1", "x \xc3\x9f 99", "\1", "\1"}},
      {NULL, 0, -1, 7, {"\1", "\1", "\1", "\1", "\1", "\1"}},
      {",", ZB_RE_LITERAL, -1, 2, {"\1", "\1", "\1", "\1", "", "\1"}},
      {",", ZB_RE_LITERAL, -1, -1, {"a b  c", "\1", "", "\xc3\xa9 x \xc3\x9f 99", "c", "  lead"}},
      {",", ZB_RE_LITERAL, 1, -1, {"a b  c", "\1", "", "\xc3\xa9 x \xc3\x9f 99", "b,,c", "  lead"}},
      {",", ZB_RE_LITERAL, -1, -5, {"\1", "\1", "\1", "\1", "\1", "\1"}},
      /* patterns (PCRE2): the groups are pieces too */
      {"(,)|(x)", 0, -1, 1, {"\1", "\1", "\1", "\1", ",", "\1"}},
      {"(,)|(x)", 0, -1, 2, {"\1", "\1", "\1", "x", "\1", "\1"}},
      {"(,)|(x)", 0, -1, -1, {"a b  c", "\1", "", " \xc3\x9f 99", "c", "  lead"}},
      {"(,)|(x)", 0, -1, -2, {"\1", "\1", "\1", "x", "\1", "\1"}},
      {"\\s+", 0, 1, -1, {"b  c", "\1", "", "x \xc3\x9f 99", "a,b,,c", "lead"}},
  };
  zb_error err;
  zb_column *c = strings_of(rows, NR);
  bool pcre = zb_regex_available();
  for (int t = 1; t <= 3; t += 2) {
    ZB_CHECK_OK(zb_set_num_threads(t, &err), &err);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
      if (!pcre && cases[k].pat != NULL && !(cases[k].flags & ZB_RE_LITERAL)) continue;
      zb_regex_args a = re_args(ZB_RE_SPLIT, cases[k].pat, cases[k].flags);
      a.n = cases[k].n;
      a.part_only = true;
      a.part = cases[k].part;
      zb_column *r = NULL;
      ZB_CHECK_OK(zb_column_regex(c, &a, &r, NULL, &err), &err);
      ZB_CHECK(r->type == ZB_STRING && r->length == NR);
      for (int64_t i = 0; i < NR; i++)
        check_row(r, i, strcmp(cases[k].want[i], "\1") == 0 ? NULL : cases[k].want[i]);
      zb_column_release(r);
    }
  }
  ZB_CHECK_OK(zb_set_num_threads(zb_available_cores(), &err), &err);
  /* part_only is not for lists */
  zb_regex_args a = re_args(ZB_RE_RSPLIT, ",", ZB_RE_LITERAL);
  a.part_only = true;
  a.as_list = true;
  zb_column *r = NULL;
  ZB_CHECK_EQ_INT(zb_column_regex(c, &a, &r, NULL, &err), ZB_EINVAL);
  ZB_CHECK(r == NULL);
  a = re_args(ZB_RE_SPLIT, ",", ZB_RE_LITERAL);
  a.part_only = true;
  a.part = -1;
  for (int64_t nth = 1; nth < 40; nth++) {
    zb_alloc_fail_after(nth);
    zb_status st = zb_column_regex(c, &a, &r, NULL, &err);
    zb_alloc_fail_after(0);
    if (st == ZB_OK) {
      zb_column_release(r);
      break;
    }
    ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
    ZB_CHECK(r == NULL);
  }
  zb_column_release(c);
}

/* RSPLIT with part_only, and SPLIT / RSPLIT with count_only: piece `part`
 * of Python's str.rsplit(sep, n) and the number of pieces of str.split /
 * str.rsplit / re.split (hand-checked there), null for a null row. */
ZB_TEST(test_regex_rsplit_part_and_piece_counts) {
  static const char *const rows[] = {"a b  c", NULL, "", "\xc3\xa9 x \xc3\x9f 99", "a,b,,c",
                                     "  lead"};
  enum { NR = 6 };
  static const struct {
    const char *pat; /* NULL: whitespace */
    int64_t n, part;
    const char *want[NR]; /* "\1": null */
  } parts[] = {
      {NULL, -1, 0, {"a", "\1", "\1", "\xc3\xa9", "a,b,,c", "lead"}},
      {NULL, -1, 1, {"b", "\1", "\1", "x", "\1", "\1"}},
      {NULL, 1, 0, {"a b", "\1", "\1", "\xc3\xa9 x \xc3\x9f", "a,b,,c", "lead"}},
      {NULL, 1, -1, {"c", "\1", "\1", "99", "a,b,,c", "lead"}},
      {NULL, 1, 1, {"c", "\1", "\1", "99", "\1", "\1"}},
      {",", -1, 0, {"a b  c", "\1", "", "\xc3\xa9 x \xc3\x9f 99", "a", "  lead"}},
      {",", -1, 1, {"\1", "\1", "\1", "\1", "b", "\1"}},
      {",", 1, 0, {"a b  c", "\1", "", "\xc3\xa9 x \xc3\x9f 99", "a,b,", "  lead"}},
      {",", 1, -1, {"a b  c", "\1", "", "\xc3\xa9 x \xc3\x9f 99", "c", "  lead"}},
      {",", 1, -3, {"\1", "\1", "\1", "\1", "\1", "\1"}},
  };
  static const struct {
    zb_regex_op op;
    const char *pat;
    uint32_t flags;
    int64_t n;
    int64_t want[NR]; /* -1: null */
  } counts[] = {
      {ZB_RE_SPLIT, NULL, 0, -1, {3, -1, 0, 4, 1, 1}},
      {ZB_RE_RSPLIT, NULL, 0, 1, {2, -1, 0, 2, 1, 1}},
      {ZB_RE_SPLIT, ",", ZB_RE_LITERAL, -1, {1, -1, 1, 1, 4, 1}},
      {ZB_RE_RSPLIT, ",", ZB_RE_LITERAL, 1, {1, -1, 1, 1, 2, 1}},
      {ZB_RE_SPLIT, "(,)|(x)", 0, -1, {1, -1, 1, 4, 10, 1}},
  };
  zb_error err;
  zb_column *c = strings_of(rows, NR);
  for (int t = 1; t <= 3; t += 2) {
    ZB_CHECK_OK(zb_set_num_threads(t, &err), &err);
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
      zb_regex_args a = re_args(ZB_RE_RSPLIT, parts[k].pat, parts[k].pat ? ZB_RE_LITERAL : 0);
      a.n = parts[k].n;
      a.part_only = true;
      a.part = parts[k].part;
      zb_column *r = NULL;
      ZB_CHECK_OK(zb_column_regex(c, &a, &r, NULL, &err), &err);
      ZB_CHECK(r->type == ZB_STRING && r->length == NR);
      for (int64_t i = 0; i < NR; i++)
        check_row(r, i, strcmp(parts[k].want[i], "\1") == 0 ? NULL : parts[k].want[i]);
      zb_column_release(r);
    }
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
      if (!zb_regex_available() && counts[k].pat != NULL && !counts[k].flags) continue;
      zb_regex_args a = re_args(counts[k].op, counts[k].pat, counts[k].flags);
      a.n = counts[k].n;
      a.count_only = true;
      zb_column *r = NULL;
      ZB_CHECK_OK(zb_column_regex(c, &a, &r, NULL, &err), &err);
      ZB_CHECK(r->type == ZB_INT64 && r->length == NR);
      for (int64_t i = 0; i < NR; i++)
        ZB_CHECK_EQ_INT(zb_column_is_valid(r, i) ? ((int64_t *)r->data->data)[i] : -1,
                        counts[k].want[i]);
      zb_column_release(r);
    }
  }
  ZB_CHECK_OK(zb_set_num_threads(zb_available_cores(), &err), &err);
  /* count_only is for split and rsplit without a list or a piece */
  zb_regex_args a = re_args(ZB_RE_SPLIT, ",", ZB_RE_LITERAL);
  a.count_only = true;
  a.part_only = true;
  zb_column *r = NULL;
  ZB_CHECK_EQ_INT(zb_column_regex(c, &a, &r, NULL, &err), ZB_EINVAL);
  ZB_CHECK(r == NULL);
  a = re_args(ZB_RE_COUNT, ",", 0);
  a.count_only = true;
  ZB_CHECK_EQ_INT(zb_column_regex(c, &a, &r, NULL, &err), ZB_EINVAL);
  /* every allocation failing in turn: rsplit's lists (spans reversed per
   * row), its pieces counted and one piece, nothing left behind */
  for (int v = 0; v < 3; v++) {
    a = re_args(ZB_RE_RSPLIT, NULL, 0);
    a.as_list = v == 0;
    a.count_only = v == 1;
    a.part_only = v == 2;
    a.part = 1;
    for (int64_t nth = 1; nth < 60; nth++) {
      zb_alloc_fail_after(nth);
      zb_status st = zb_column_regex(c, &a, &r, NULL, &err);
      zb_alloc_fail_after(0);
      if (st == ZB_OK) {
        zb_column_release(r);
        break;
      }
      ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
      ZB_CHECK(r == NULL);
    }
  }
  zb_column_release(c);
}
