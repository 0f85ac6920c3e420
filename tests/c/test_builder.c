/*
 * test_builder.c -- tests of the column builder (src/io/builder.h) by
 * itself, with no CSV: a toy source whose values are C strings laid out in
 * one text buffer (a value in single quotes is a flagged cell that decodes
 * to what is between them), handed over in parts and batches.  Covered:
 * inference of every type, widening within a part (in place and to string,
 * which refetches), parts that disagree (resolved at the end), nulls and
 * NA strings, decoding, columns of a given type with their errors (the
 * earliest kept, with its position and text), categoricals, compaction of
 * parts that filled less than their room, typed values, parts converted
 * in parallel, and a fail-every-allocation loop.  Expected values are
 * worked out by hand in the comments.  Also the per-worker pointers
 * (zb__worker_slots) that the builder and the readers keep scratch in.
 */
#define _GNU_SOURCE /* pthread_barrier_t */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "io/builder.h"
#include "test.h"

/* ---- a toy source ------------------------------------------------------- */

#define MAXP 4  /* parts */
#define MAXR 16 /* rows per part */
#define MAXC 4  /* columns */

typedef struct toy {
  char text[4096];
  int64_t len;
  uint64_t cells[MAXP][MAXC][MAXR]; /* kept for refetch */
  int refetches;                    /* rows handed again */
  zb__builder *b;
} toy;

/* A value's cell: NULL -> missing; '...' -> flagged.  Values are laid out
 * one byte apart, so a value's position is its offset in toy.text. */
static uint64_t toy_cell(toy *t, const char *v) {
  if (v == NULL) return ZB_CELL_NULL;
  int64_t n = (int64_t)strlen(v), off = t->len;
  memcpy(t->text + off, v, (size_t)n);
  t->text[off + n] = '|';
  t->len += n + 1;
  return zb__cell(off, n, n >= 2 && v[0] == '\'');
}

static int64_t toy_decode(void *ctx, const char *s, int64_t n, char *out, int64_t cap) {
  (void)ctx;
  int64_t m = n >= 2 ? n - 2 : 0;
  if (m > cap) m = cap;
  memcpy(out, s + 1, (size_t)m);
  return m;
}

static zb_status toy_refetch(void *ctx, int64_t part, const int64_t *cols, int64_t ncols,
                             int64_t nrows, int worker) {
  toy *t = (toy *)ctx;
  for (int64_t q = 0; q < ncols; q++) {
    __atomic_add_fetch(&t->refetches, (int)nrows, __ATOMIC_RELAXED);
    zb_status st = zb__builder_text_again(t->b, part, cols[q], t->cells[part][cols[q]], 0, nrows,
                                          worker);
    if (st != ZB_OK) return st;
  }
  return ZB_OK;
}

typedef struct colspec {
  const char *name;
  zb_type_id type;
  bool fixed;
} colspec;

/* A build: ncols columns, nparts parts of rows[k] rows (room: rows[k] +
 * extra), values v[k][row][col], handed over `batch` rows at a time. */
typedef struct build {
  int ncols, nparts;
  const colspec *cols;
  int rows[MAXP];
  const char *v[MAXP][MAXR][MAXC];
  int batch;
  int extra;
  const char *const *na;
  int64_t nna;
} build;

/* Run a build.  On ZB_OK out[0, ncols) are new columns (the caller
 * releases them); on a value error *verr is set and the status is the
 * error's; else the status of the failing call. */
static zb_status run_build(const build *bd, toy *t, zb_column **out, zb__build_error *verr,
                           zb_error *err) {
  memset(t, 0, sizeof *t);
  for (int k = 0; k < bd->nparts; k++)
    for (int j = 0; j < bd->ncols; j++)
      for (int r = 0; r < bd->rows[k]; r++) t->cells[k][j][r] = toy_cell(t, bd->v[k][r][j]);
  zb__builder_options o;
  zb__builder_options_init(&o);
  o.label = "toy";
  o.text.na_values = bd->na;
  o.text.num_na_values = bd->nna;
  o.source.ctx = t;
  o.source.decode = toy_decode;
  o.source.refetch = toy_refetch;
  zb_status st = zb__builder_new(bd->ncols, bd->nparts, &o, &t->b, err);
  if (st != ZB_OK) return st;
  zb__builder *b = t->b;
  for (int j = 0; j < bd->ncols; j++)
    zb__builder_set_column(b, j, bd->cols[j].name, bd->cols[j].type, bd->cols[j].fixed);
  zb__text_part tp = {t->text, t->text + t->len, t->text};
  for (int k = 0; k < bd->nparts; k++)
    zb__builder_set_part(b, k, bd->rows[k] + bd->extra, 1000 * k, &tp);
  st = zb__builder_alloc(b, err);
  for (int k = 0; k < bd->nparts && st == ZB_OK; k++) {
    int batch = bd->batch > 0 ? bd->batch : MAXR;
    for (int r0 = 0; r0 < bd->rows[k] && st == ZB_OK; r0 += batch) {
      int nb = bd->rows[k] - r0 < batch ? bd->rows[k] - r0 : batch;
      for (int j = 0; j < bd->ncols && st == ZB_OK; j++)
        st = zb__builder_text(b, k, j, t->cells[k][j] + r0, r0, nb, 0);
    }
    zb__builder_part_done(b, k, bd->rows[k]);
  }
  if (st == ZB_OK) st = zb__builder_resolve(b, err);
  if (st == ZB_OK) {
    const zb__build_error *best = NULL;
    for (int k = 0; k < bd->nparts; k++) {
      const zb__build_error *e = zb__builder_error(b, k);
      if (e != NULL && (best == NULL || e->pos < best->pos)) best = e;
    }
    if (best != NULL) {
      *verr = *best;
      st = best->st;
    }
  }
  if (st == ZB_OK) st = zb__builder_finish(b, out, err);
  zb__builder_release(b);
  t->b = NULL;
  return st;
}

static zb_status run_ok(const build *bd, toy *t, zb_column **out) {
  zb_error err = {{0}};
  zb__build_error ve;
  memset(&ve, 0, sizeof ve);
  zb_status st = run_build(bd, t, out, &ve, &err);
  if (st != ZB_OK)
    zb_test_fail(__FILE__, __LINE__, "build failed: %s: %s / value error at %lld '%s'",
                 zb_status_name(st), err.message, (long long)ve.pos, ve.text);
  return st;
}

static void release_all(zb_column **c, int n) {
  for (int j = 0; j < n; j++) zb_column_release(c[j]);
}

static int64_t i64(const zb_column *c, int64_t i) { return ((const int64_t *)c->data->data)[i]; }
static double f64(const zb_column *c, int64_t i) { return ((const double *)c->data->data)[i]; }
static int32_t i32(const zb_column *c, int64_t i) { return ((const int32_t *)c->data->data)[i]; }
static bool valid(const zb_column *c, int64_t i) { return zb_column_is_valid(c, i); }
static bool bit(const zb_column *c, int64_t i) {
  return zb_bit_get((const uint8_t *)c->data->data, c->offset + i);
}

/* Whether row i of a string or categorical column is the string s. */
static bool str_is(const zb_column *c, int64_t i, const char *s) {
  const zb_column *sc = c->type == ZB_CATEGORICAL ? c->dictionary : c;
  int64_t j = c->type == ZB_CATEGORICAL ? ((const int32_t *)c->data->data)[i] : i;
  const int64_t *off = (const int64_t *)sc->data->data;
  int64_t n = off[j + 1] - off[j];
  return n == (int64_t)strlen(s) &&
         memcmp((const char *)sc->chars->data + off[j], s, (size_t)n) == 0;
}

static const colspec k_inferred[MAXC] = {{"a", ZB_STRING, false}, {"b", ZB_STRING, false},
                                         {"c", ZB_STRING, false}, {"d", ZB_STRING, false}};

/* ---- inference ----------------------------------------------------------- */

ZB_TEST(builder_infers_each_type) {
  /* One part, one batch; "" and "NA" are NA strings; nulls do not vote. */
  static const char *const na[] = {"", "NA"};
  static const colspec cols[4] = {{"i", 0, false}, {"f", 0, false}, {"t", 0, false},
                                  {"d", 0, false}};
  build bd = {.ncols = 4, .nparts = 1, .cols = cols, .rows = {3}, .na = na, .nna = 2,
              .v = {{{"1", "1.5", "True", "2024-01-31"},
                     {"", "NA", "false", NULL},
                     {"-2", " 2e3 ", "TRUE", "1969-12-31"}}}};
  toy t;
  zb_column *c[4] = {0};
  if (run_ok(&bd, &t, c) != ZB_OK) return;
  ZB_CHECK_EQ_INT(c[0]->type, ZB_INT64); /* nulls stay int64 */
  ZB_CHECK_EQ_INT(c[0]->null_count, 1);
  ZB_CHECK_EQ_INT(i64(c[0], 0), 1);
  ZB_CHECK(!valid(c[0], 1));
  ZB_CHECK_EQ_INT(i64(c[0], 2), -2);
  ZB_CHECK_EQ_INT(c[1]->type, ZB_FLOAT64);
  ZB_CHECK(f64(c[1], 0) == 1.5 && !valid(c[1], 1) && f64(c[1], 2) == 2000.0);
  ZB_CHECK_EQ_INT(c[2]->type, ZB_BOOL);
  ZB_CHECK(bit(c[2], 0) && !bit(c[2], 1) && bit(c[2], 2));
  ZB_CHECK_EQ_INT(c[3]->type, ZB_DATE32);
  ZB_CHECK_EQ_INT(i32(c[3], 0), 19753); /* 2024-01-31 */
  ZB_CHECK(!valid(c[3], 1));
  ZB_CHECK_EQ_INT(i32(c[3], 2), -1);    /* 1969-12-31 */
  ZB_CHECK_EQ_INT(t.refetches, 0);
  release_all(c, 4);
}

ZB_TEST(builder_widens_in_place) {
  /* Batches of one row: each column's first value picks the narrowest
   * type, later ones widen it in place (no refetch). */
  build bd = {.ncols = 4, .nparts = 1, .cols = k_inferred, .rows = {3}, .batch = 1,
              .v = {{{"1", "-0", "2024-01-01", "1"},
                     {"2", "7", "2024-01-01 12:00", "18446744073709551615"},
                     {"2.5", "1.5", NULL, "3"}}}};
  toy t;
  zb_column *c[4] = {0};
  if (run_ok(&bd, &t, c) != ZB_OK) return;
  ZB_CHECK_EQ_INT(c[0]->type, ZB_FLOAT64); /* int -> float */
  ZB_CHECK(f64(c[0], 0) == 1.0 && f64(c[0], 1) == 2.0 && f64(c[0], 2) == 2.5);
  ZB_CHECK_EQ_INT(c[1]->type, ZB_FLOAT64); /* "-0" read as an integer, then as -0.0 */
  ZB_CHECK(f64(c[1], 0) == 0.0 && signbit(f64(c[1], 0)));
  ZB_CHECK(f64(c[1], 1) == 7.0 && f64(c[1], 2) == 1.5);
  ZB_CHECK_EQ_INT(c[2]->type, ZB_TIMESTAMP); /* date -> timestamp[us], dates at midnight */
  ZB_CHECK_EQ_INT(i64(c[2], 0), INT64_C(1704067200000000));
  ZB_CHECK_EQ_INT(i64(c[2], 1), INT64_C(1704110400000000));
  ZB_CHECK(!valid(c[2], 2));
  ZB_CHECK_EQ_INT(c[3]->type, ZB_UINT64); /* above INT64_MAX, none negative */
  ZB_CHECK(((const uint64_t *)c[3]->data->data)[1] == UINT64_MAX);
  ZB_CHECK_EQ_INT(i64(c[3], 2), 3);
  ZB_CHECK_EQ_INT(t.refetches, 0);
  release_all(c, 4);
}

ZB_TEST(builder_widens_to_string_with_refetch) {
  /* Column a: two ints in batch 1, "x" in batch 2 -> strings, the two
   * earlier rows handed again (2 rows refetched).  Column b: bool then
   * int: no type holds both -> strings ("True", "1"), by refetch too
   * (1 row).  Column c: negative and > INT64_MAX -> float64. */
  build bd = {.ncols = 3, .nparts = 1, .cols = k_inferred, .rows = {3}, .batch = 2,
              .v = {{{"1", "True", "-1"}, {"22", "true", "1"},
                     {"x", "1", "18446744073709551615"}}}};
  toy t;
  zb_column *c[3] = {0};
  if (run_ok(&bd, &t, c) != ZB_OK) return;
  ZB_CHECK_EQ_INT(c[0]->type, ZB_STRING);
  ZB_CHECK(str_is(c[0], 0, "1") && str_is(c[0], 1, "22") && str_is(c[0], 2, "x"));
  ZB_CHECK_EQ_INT(c[1]->type, ZB_STRING);
  ZB_CHECK(str_is(c[1], 0, "True") && str_is(c[1], 1, "true") && str_is(c[1], 2, "1"));
  ZB_CHECK_EQ_INT(c[2]->type, ZB_FLOAT64);
  ZB_CHECK(f64(c[2], 0) == -1.0 && f64(c[2], 2) == 18446744073709551615.0);
  ZB_CHECK_EQ_INT(t.refetches, 4); /* a: rows 0-1; b: rows 0-1 */
  release_all(c, 3);
}

ZB_TEST(builder_parts_settle_at_the_end) {
  /* Part 0 sees ints, part 1 floats -> float64 (part 0 converted in
   * place).  Column b: part 0 ints, part 1 text -> string (part 0
   * refetched whole: 2 rows).  Column c: only nulls in part 0 (no vote),
   * dates in part 1.  Column d: all null -> float64. */
  build bd = {.ncols = 4, .nparts = 2, .cols = k_inferred, .rows = {2, 2},
              .v = {{{"1", "5", NULL, NULL}, {"2", "6", NULL, NULL}},
                    {{"0.5", "seven", "2000-01-01", NULL}, {"3", "8", "2000-01-02", NULL}}}};
  toy t;
  zb_column *c[4] = {0};
  if (run_ok(&bd, &t, c) != ZB_OK) return;
  ZB_CHECK_EQ_INT(c[0]->type, ZB_FLOAT64);
  ZB_CHECK(f64(c[0], 0) == 1.0 && f64(c[0], 1) == 2.0 && f64(c[0], 2) == 0.5 &&
           f64(c[0], 3) == 3.0);
  ZB_CHECK_EQ_INT(c[1]->type, ZB_STRING);
  ZB_CHECK(str_is(c[1], 0, "5") && str_is(c[1], 1, "6") && str_is(c[1], 2, "seven") &&
           str_is(c[1], 3, "8"));
  ZB_CHECK_EQ_INT(c[2]->type, ZB_DATE32);
  ZB_CHECK_EQ_INT(c[2]->null_count, 2);
  ZB_CHECK_EQ_INT(i32(c[2], 2), 10957); /* 2000-01-01 */
  ZB_CHECK_EQ_INT(i32(c[2], 3), 10958);
  ZB_CHECK_EQ_INT(c[3]->type, ZB_FLOAT64);
  ZB_CHECK_EQ_INT(c[3]->null_count, 4);
  ZB_CHECK_EQ_INT(t.refetches, 2);
  release_all(c, 4);
}

ZB_TEST(builder_no_rows_and_compaction) {
  /* No rows at all: inferred columns are strings. */
  build none = {.ncols = 1, .nparts = 1, .cols = k_inferred, .rows = {0}, .extra = 5};
  toy t;
  zb_column *c[2] = {0};
  if (run_ok(&none, &t, c) != ZB_OK) return;
  ZB_CHECK_EQ_INT(c[0]->type, ZB_STRING);
  ZB_CHECK_EQ_INT(c[0]->length, 0);
  release_all(c, 1);
  /* Parts with room for 3 more rows than they fill: the rows of part 1
   * move up behind part 0's. */
  build gaps = {.ncols = 2, .nparts = 3, .cols = k_inferred, .rows = {2, 0, 1}, .extra = 3,
                .v = {{{"1", "a"}, {"2", NULL}}, {{0}}, {{"3", "c"}}}};
  if (run_ok(&gaps, &t, c) != ZB_OK) return;
  ZB_CHECK_EQ_INT(c[0]->length, 3);
  ZB_CHECK(i64(c[0], 0) == 1 && i64(c[0], 1) == 2 && i64(c[0], 2) == 3);
  ZB_CHECK(str_is(c[1], 0, "a") && !valid(c[1], 1) && str_is(c[1], 2, "c"));
  ZB_CHECK_EQ_INT(c[1]->null_count, 1);
  release_all(c, 2);
}

ZB_TEST(builder_decodes_flagged_cells) {
  /* 'x' decodes to x; NA strings are compared after decoding ('NA' is
   * null); a decoded number is a number. */
  static const char *const na[] = {"NA"};
  build bd = {.ncols = 2, .nparts = 1, .cols = k_inferred, .rows = {3}, .na = na, .nna = 1,
              .v = {{{"'a,b'", "'12'"}, {"'NA'", "7"}, {"''", "'-3'"}}}};
  toy t;
  zb_column *c[2] = {0};
  if (run_ok(&bd, &t, c) != ZB_OK) return;
  ZB_CHECK_EQ_INT(c[0]->type, ZB_STRING);
  ZB_CHECK(str_is(c[0], 0, "a,b") && !valid(c[0], 1) && str_is(c[0], 2, ""));
  ZB_CHECK_EQ_INT(c[1]->type, ZB_INT64);
  ZB_CHECK(i64(c[1], 0) == 12 && i64(c[1], 1) == 7 && i64(c[1], 2) == -3);
  release_all(c, 2);
}

/* ---- columns of a given type ------------------------------------------- */

ZB_TEST(builder_fixed_types) {
  static const colspec cols[4] = {{"i8", ZB_INT8, true}, {"f32", ZB_FLOAT32, true},
                                  {"ts", ZB_TIMESTAMP, true}, {"s", ZB_STRING, true}};
  build bd = {.ncols = 4, .nparts = 2, .cols = cols, .rows = {1, 2},
              .v = {{{"-128", "0.5", "2000-02-29 23:59:59.25", "1"}},
                    {{"127", NULL, "2024-01-01", "2.5"}, {"0", "3", NULL, "True"}}}};
  toy t;
  zb_column *c[4] = {0};
  if (run_ok(&bd, &t, c) != ZB_OK) return;
  ZB_CHECK_EQ_INT(c[0]->type, ZB_INT8);
  const int8_t *i8 = (const int8_t *)c[0]->data->data;
  ZB_CHECK(i8[0] == -128 && i8[1] == 127 && i8[2] == 0);
  ZB_CHECK_EQ_INT(c[1]->type, ZB_FLOAT32);
  const float *f = (const float *)c[1]->data->data;
  ZB_CHECK(f[0] == 0.5f && !valid(c[1], 1) && f[2] == 3.0f);
  ZB_CHECK_EQ_INT(c[2]->type, ZB_TIMESTAMP);
  ZB_CHECK_EQ_INT(i64(c[2], 0), INT64_C(951868799250000));
  ZB_CHECK_EQ_INT(i64(c[2], 1), INT64_C(1704067200000000));
  ZB_CHECK(!valid(c[2], 2));
  ZB_CHECK_EQ_INT(c[3]->type, ZB_STRING); /* numbers stay text */
  ZB_CHECK(str_is(c[3], 0, "1") && str_is(c[3], 1, "2.5") && str_is(c[3], 2, "True"));
  ZB_CHECK_EQ_INT(t.refetches, 0);
  release_all(c, 4);
}

ZB_TEST(builder_fixed_errors_earliest_wins) {
  /* Values are laid out in order part, column, row ('|' after each), so
   * the value "128" (column 0, row 1) is at offset 5 (after "-128|") and
   * "x" (column 1, row 0) at offset 9 (after "128|"): the overflow is the
   * earlier -- and "300" in part 1 (pos0 1000) is later still. */
  static const colspec cols[2] = {{"i8", ZB_INT8, true}, {"d", ZB_DATE32, true}};
  build bd = {.ncols = 2, .nparts = 2, .cols = cols, .rows = {2, 1},
              .v = {{{"-128", "x"}, {"128", "2024-01-01"}}, {{"300", "2024-13-01"}}}};
  toy t;
  zb_column *c[2] = {0};
  zb__build_error ve;
  zb_error err = {{0}};
  zb_status st = run_build(&bd, &t, c, &ve, &err);
  ZB_CHECK_EQ_INT(st, ZB_EOVERFLOW);
  ZB_CHECK_EQ_INT(ve.kind, ZB_BUILD_ERR_OVERFLOW);
  ZB_CHECK_EQ_INT(ve.col, 0);
  ZB_CHECK_EQ_INT(ve.pos, 5);
  ZB_CHECK(strcmp(ve.text, "128") == 0);
  ZB_CHECK(c[0] == NULL && c[1] == NULL);
  /* Without the overflow: the date that does not parse, and a long value
   * cut to 40 characters in the message text. */
  bd.v[0][1][0] = "1";
  bd.v[1][0][0] = "3";
  bd.v[1][0][1] = "2024-01-01T00:00:00 is far too long to be shown in full";
  bd.v[0][0][1] = "2024-01-01";
  st = run_build(&bd, &t, c, &ve, &err);
  ZB_CHECK_EQ_INT(st, ZB_EPARSE);
  ZB_CHECK_EQ_INT(ve.kind, ZB_BUILD_ERR_VALUE);
  ZB_CHECK_EQ_INT(ve.col, 1);
  ZB_CHECK(ve.pos > 1000);
  ZB_CHECK_EQ_INT((int64_t)strlen(ve.text), 40);
  ZB_CHECK(strcmp(ve.text + 37, "...") == 0);
  ZB_CHECK(strncmp(ve.text, "2024-01-01T00:00:00 is far too long", 35) == 0);
}

ZB_TEST(builder_categorical) {
  /* Two parts; categories sorted: a, b, c; codes 1 0 - 1 | 2 1. */
  static const colspec cols[1] = {{"k", ZB_CATEGORICAL, true}};
  build bd = {.ncols = 1, .nparts = 2, .cols = cols, .rows = {4, 2},
              .v = {{{"b"}, {"a"}, {NULL}, {"b"}}, {{"c"}, {"'b'"}}}};
  toy t;
  zb_column *c[1] = {0};
  if (run_ok(&bd, &t, c) != ZB_OK) return;
  ZB_CHECK_EQ_INT(c[0]->type, ZB_CATEGORICAL);
  ZB_CHECK_EQ_INT(c[0]->dictionary->length, 3);
  ZB_CHECK(str_is(c[0]->dictionary, 0, "a") && str_is(c[0]->dictionary, 1, "b") &&
           str_is(c[0]->dictionary, 2, "c"));
  static const int32_t codes[6] = {1, 0, 0, 1, 2, 1};
  for (int i = 0; i < 6; i++)
    if (i != 2) ZB_CHECK_EQ_INT(i32(c[0], i), codes[i]);
  ZB_CHECK(!valid(c[0], 2));
  ZB_CHECK_EQ_INT(c[0]->null_count, 1);
  release_all(c, 1);
}

ZB_TEST(builder_invalid_utf8) {
  /* A string that is not UTF-8 is an error of its part (kind UTF8). */
  static const colspec cols[1] = {{"s", ZB_STRING, false}};
  build bd = {.ncols = 1, .nparts = 1, .cols = cols, .rows = {2},
              .v = {{{"ok"}, {"\xff\xfe"}}}};
  toy t;
  zb_column *c[1] = {0};
  zb__build_error ve;
  zb_error err = {{0}};
  ZB_CHECK_EQ_INT(run_build(&bd, &t, c, &ve, &err), ZB_EPARSE);
  ZB_CHECK_EQ_INT(ve.kind, ZB_BUILD_ERR_UTF8);
  ZB_CHECK_EQ_INT(ve.pos, 3);
}

/* ---- typed values ------------------------------------------------------ */

ZB_TEST(builder_typed_values) {
  static const colspec cols[6] = {{"i32", ZB_INT32, true},     {"f", ZB_FLOAT64, true},
                                  {"b", ZB_BOOL, true},        {"d", ZB_DATE32, true},
                                  {"ts", ZB_TIMESTAMP, true},  {"k", ZB_CATEGORICAL, true}};
  zb_error err = {{0}};
  zb__builder_options o;
  zb__builder_options_init(&o);
  zb__builder *b = NULL;
  ZB_CHECK_OK(zb__builder_new(6, 2, &o, &b, &err), &err);
  if (b == NULL) return;
  for (int j = 0; j < 6; j++) zb__builder_set_column(b, j, cols[j].name, cols[j].type, true);
  zb__builder_set_part(b, 0, 3, 0, NULL);
  zb__builder_set_part(b, 1, 2, 100, NULL);
  ZB_CHECK_OK(zb__builder_alloc(b, &err), &err);
  static const uint8_t valid3[3] = {1, 0, 1};
  static const int64_t iv0[3] = {-5, 99, INT32_MAX}, iv1[2] = {7, 8};
  static const double fv[3] = {0.25, 0, -1e300};
  static const uint8_t bv[3] = {1, 1, 0};
  static const int32_t dv[3] = {19753, 0, -1};
  static const int64_t tv[3] = {1, 2, -3};
  static const int64_t off[4] = {0, 2, 2, 4}; /* in "zzaa": "zz", (null), "aa" */
  static const int64_t poff[3] = {2, 2, 4};   /* in "zzxx": "", "xx" */
  ZB_CHECK_OK(zb__builder_put_int64(b, 0, 0, 0, iv0, valid3, 3), &err);
  ZB_CHECK_OK(zb__builder_put_double(b, 0, 1, 0, fv, valid3, 3), &err);
  ZB_CHECK_OK(zb__builder_put_bool(b, 0, 2, 0, bv, NULL, 3), &err);
  ZB_CHECK_OK(zb__builder_put_days(b, 0, 3, 0, dv, valid3, 3), &err);
  ZB_CHECK_OK(zb__builder_put_days(b, 0, 4, 0, dv, NULL, 1), &err); /* at midnight */
  ZB_CHECK_OK(zb__builder_put_timestamps(b, 0, 4, 1, tv + 1, NULL, 2), &err);
  ZB_CHECK_OK(zb__builder_put_strings(b, 0, 5, 0, off, "zzaa", valid3, 3), &err);
  /* Part 1: a row at a time. */
  for (int r = 0; r < 2; r++) {
    ZB_CHECK_OK(zb__builder_put_int64(b, 1, 0, r, iv1 + r, NULL, 1), &err);
    ZB_CHECK_OK(zb__builder_put_double(b, 1, 1, r, fv, NULL, 1), &err);
    ZB_CHECK_OK(zb__builder_put_bool(b, 1, 2, r, bv, NULL, 1), &err);
    ZB_CHECK_OK(zb__builder_put_days(b, 1, 3, r, dv, NULL, 1), &err);
    ZB_CHECK_OK(zb__builder_put_timestamps(b, 1, 4, r, tv, NULL, 1), &err);
    ZB_CHECK_OK(zb__builder_put_strings(b, 1, 5, r, poff + r, "zzxx", NULL, 1), &err);
  }
  /* Wrong kinds, an inferred column and rows past the room: EINVAL. */
  ZB_CHECK_EQ_INT(zb__builder_put_double(b, 0, 0, 0, fv, NULL, 1), ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb__builder_put_timestamps(b, 0, 3, 0, tv, NULL, 1), ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb__builder_put_int64(b, 1, 0, 2, iv1, NULL, 1), ZB_EINVAL);
  zb__builder_part_done(b, 0, 3);
  zb__builder_part_done(b, 1, 2);
  ZB_CHECK_OK(zb__builder_resolve(b, &err), &err);
  ZB_CHECK(zb__builder_error(b, 0) == NULL && zb__builder_error(b, 1) == NULL);
  zb_column *c[6] = {0};
  ZB_CHECK_OK(zb__builder_finish(b, c, &err), &err);
  zb__builder_release(b);
  if (c[0] == NULL) return;
  ZB_CHECK(i32(c[0], 0) == -5 && !valid(c[0], 1) && i32(c[0], 2) == INT32_MAX &&
           i32(c[0], 3) == 7 && i32(c[0], 4) == 8);
  ZB_CHECK(f64(c[1], 0) == 0.25 && !valid(c[1], 1) && f64(c[1], 2) == -1e300);
  ZB_CHECK_EQ_INT(c[1]->null_count, 1);
  ZB_CHECK(bit(c[2], 0) && bit(c[2], 1) && !bit(c[2], 2) && bit(c[2], 3) && bit(c[2], 4));
  ZB_CHECK(i32(c[3], 0) == 19753 && !valid(c[3], 1) && i32(c[3], 2) == -1 &&
           i32(c[3], 4) == 19753);
  ZB_CHECK_EQ_INT(i64(c[4], 0), INT64_C(19753) * 86400000000);
  ZB_CHECK(i64(c[4], 1) == 2 && i64(c[4], 2) == -3 && i64(c[4], 3) == 1);
  ZB_CHECK_EQ_INT(c[5]->type, ZB_CATEGORICAL); /* zz - aa | (empty) xx */
  ZB_CHECK_EQ_INT(c[5]->dictionary->length, 4);
  ZB_CHECK(str_is(c[5], 0, "zz") && !valid(c[5], 1) && str_is(c[5], 2, "aa") &&
           str_is(c[5], 3, "") && str_is(c[5], 4, "xx"));
  release_all(c, 6);
}

ZB_TEST(builder_typed_errors) {
  zb_error err = {{0}};
  zb__builder_options o;
  zb__builder_options_init(&o);
  zb__builder *b = NULL;
  ZB_CHECK_OK(zb__builder_new(2, 1, &o, &b, &err), &err);
  if (b == NULL) return;
  zb__builder_set_column(b, 0, "u8", ZB_UINT8, true);
  zb__builder_set_column(b, 1, "s", ZB_STRING, true);
  zb__builder_set_part(b, 0, 4, 10, NULL);
  ZB_CHECK_OK(zb__builder_alloc(b, &err), &err);
  static const int64_t v[3] = {255, 0, -1};
  static const int64_t off[3] = {0, 1, 3};
  ZB_CHECK_OK(zb__builder_put_int64(b, 0, 0, 1, v, NULL, 3), &err);
  ZB_CHECK_OK(zb__builder_put_strings(b, 0, 1, 0, off, "a\xc3(", NULL, 2), &err);
  const zb__build_error *e = zb__builder_error(b, 0);
  /* The bad UTF-8 at row 1 (pos 11) comes before -1 at row 3 (pos 13). */
  ZB_CHECK(e != NULL && e->kind == ZB_BUILD_ERR_UTF8 && e->pos == 11 && e->col == 1);
  zb__builder_release(b);
  /* The overflow alone: its text. */
  ZB_CHECK_OK(zb__builder_new(1, 1, &o, &b, &err), &err);
  if (b == NULL) return;
  zb__builder_set_column(b, 0, "u8", ZB_UINT8, true);
  zb__builder_set_part(b, 0, 4, 10, NULL);
  ZB_CHECK_OK(zb__builder_alloc(b, &err), &err);
  ZB_CHECK_OK(zb__builder_put_int64(b, 0, 0, 1, v, NULL, 3), &err);
  e = zb__builder_error(b, 0);
  ZB_CHECK(e != NULL && e->st == ZB_EOVERFLOW && e->pos == 13 && strcmp(e->text, "-1") == 0);
  /* Rows past the part's room, or no such part or column: nothing done. */
  static const uint64_t cells[2] = {ZB_CELL_NULL, ZB_CELL_NULL};
  ZB_CHECK_EQ_INT(zb__builder_text(b, 0, 0, cells, 3, 2, 0), ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb__builder_text(b, 1, 0, cells, 0, 1, 0), ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb__builder_text_again(b, 0, 1, cells, 0, 1, 0), ZB_EINVAL);
  zb__builder_release(b);
}

/* ---- parallel parts, allocation failures -------------------------------- */

typedef struct par {
  toy *t;
  const build *bd;
  zb_status st[MAXP];
} par;

static void par_task(void *ctx, int64_t k, int worker) {
  par *p = (par *)ctx;
  const build *bd = p->bd;
  zb_status st = ZB_OK;
  for (int r0 = 0; r0 < bd->rows[k] && st == ZB_OK; r0 += bd->batch) {
    int nb = bd->rows[k] - r0 < bd->batch ? bd->rows[k] - r0 : bd->batch;
    for (int j = 0; j < bd->ncols && st == ZB_OK; j++)
      st = zb__builder_text(p->t->b, k, j, p->t->cells[k][j] + r0, r0, nb, worker);
  }
  zb__builder_part_done(p->t->b, k, bd->rows[k]);
  p->st[k] = st;
}

ZB_TEST(builder_parts_in_parallel) {
  /* Four parts converted at once on 3 threads give the single-threaded
   * result: column a widens to string in part 2 only. */
  build bd = {.ncols = 2, .nparts = 4, .cols = k_inferred, .rows = {3, 3, 3, 3}, .batch = 2};
  static const char *const a[12] = {"1", "2", "3", "4", "5", "6", "7", "x", "9", "10", "11", "12"};
  static const char *const f[12] = {"1", "2.5", NULL, "4", "5", "6", "7", "8", "9", "1e1",
                                    "11", "12"};
  for (int k = 0; k < 4; k++)
    for (int r = 0; r < 3; r++) bd.v[k][r][0] = a[k * 3 + r], bd.v[k][r][1] = f[k * 3 + r];
  zb_error err = {{0}};
  int saved = zb_get_num_threads();
  ZB_CHECK_OK(zb_set_num_threads(3, &err), &err);
  toy t;
  memset(&t, 0, sizeof t);
  for (int k = 0; k < 4; k++)
    for (int j = 0; j < 2; j++)
      for (int r = 0; r < 3; r++) t.cells[k][j][r] = toy_cell(&t, bd.v[k][r][j]);
  zb__builder_options o;
  zb__builder_options_init(&o);
  o.source.ctx = &t;
  o.source.decode = toy_decode;
  o.source.refetch = toy_refetch;
  ZB_CHECK_OK(zb__builder_new(2, 4, &o, &t.b, &err), &err);
  zb__text_part tp = {t.text, t.text + t.len, t.text};
  for (int k = 0; k < 4; k++) zb__builder_set_part(t.b, k, 3, 0, &tp);
  ZB_CHECK_OK(zb__builder_alloc(t.b, &err), &err);
  par p = {&t, &bd, {0}};
  ZB_CHECK_OK(zb_parallel_for(4, par_task, &p, &err), &err);
  for (int k = 0; k < 4; k++) ZB_CHECK_EQ_INT(p.st[k], ZB_OK);
  ZB_CHECK_OK(zb__builder_resolve(t.b, &err), &err);
  zb_column *c[2] = {0};
  ZB_CHECK_OK(zb__builder_finish(t.b, c, &err), &err);
  zb__builder_release(t.b);
  zb_set_num_threads(saved, &err);
  if (c[0] == NULL) return;
  ZB_CHECK_EQ_INT(c[0]->type, ZB_STRING);
  for (int i = 0; i < 12; i++) ZB_CHECK(str_is(c[0], i, a[i]));
  ZB_CHECK_EQ_INT(c[1]->type, ZB_FLOAT64);
  ZB_CHECK(f64(c[1], 1) == 2.5 && !valid(c[1], 2) && f64(c[1], 9) == 10.0);
  release_all(c, 2);
}

ZB_TEST(builder_fail_every_allocation) {
  /* Widening, refetch, categoricals and compaction under a failing Nth
   * allocation: every failure is ZB_ENOMEM and leaks nothing (the harness
   * checks the counters after the test). */
  static const colspec cols[3] = {{"a", 0, false}, {"b", 0, false}, {"k", ZB_CATEGORICAL, true}};
  build bd = {.ncols = 3, .nparts = 2, .cols = cols, .rows = {3, 2}, .batch = 1, .extra = 2,
              .v = {{{"1", "-0", "x"}, {"2", "1.5", "y"}, {"z", NULL, "x"}},
                    {{"4", "2", NULL}, {"5", "3", "w"}}}};
  bool done = false;
  int fails = 0;
  for (int64_t n = 1; n < 10000 && !done; n++) {
    toy t;
    zb_column *c[3] = {0};
    zb__build_error ve;
    zb_error err = {{0}};
    zb_alloc_fail_after(n);
    zb_status st = run_build(&bd, &t, c, &ve, &err);
    zb_alloc_fail_after(0);
    if (st == ZB_OK) {
      done = true;
      ZB_CHECK_EQ_INT(c[0]->type, ZB_STRING);
      ZB_CHECK_EQ_INT(c[1]->type, ZB_FLOAT64);
      ZB_CHECK(signbit(f64(c[1], 0)));
      ZB_CHECK_EQ_INT(c[2]->dictionary->length, 3); /* w x y */
      release_all(c, 3);
    } else if (st != ZB_ENOMEM) {
      zb_test_fail(__FILE__, __LINE__, "allocation %lld: %s: %s", (long long)n,
                   zb_status_name(st), err.message);
      break;
    } else {
      fails++;
    }
  }
  ZB_CHECK(done);
  ZB_CHECK(fails > 10);
}

/* ---- per-worker pointers ------------------------------------------------ */

/* The first 64 workers' slots are inline; a worker past them makes the
 * table of all 4096 (once, whoever comes first); out of range or out of
 * memory is NULL; nothing leaks (the harness checks the counters). */
ZB_TEST(worker_slots_inline_then_table) {
  zb__worker_slots s;
  memset(&s, 0, sizeof s);
  int m[3];
  ZB_CHECK(zb__worker_slot(&s, -1) == NULL);
  ZB_CHECK(zb__worker_slot(&s, ZB_WORKER_SLOTS_MAX) == NULL);
  void **a = zb__worker_slot(&s, 3);
  ZB_CHECK(a == &s.few[3] && *a == NULL && s.more == NULL);
  ZB_CHECK_EQ_INT(s.n, 4);
  *a = &m[0];
  void **b = zb__worker_slot(&s, 64);
  ZB_CHECK(b != NULL && s.more != NULL && b == &s.more[64]);
  if (b == NULL) return;
  *b = &m[1];
  void **c = zb__worker_slot(&s, ZB_WORKER_SLOTS_MAX - 1);
  ZB_CHECK(c == &s.more[ZB_WORKER_SLOTS_MAX - 1]);
  *c = &m[2];
  ZB_CHECK_EQ_INT(s.n, ZB_WORKER_SLOTS_MAX);
  ZB_CHECK(zb__worker_at(&s, 3) == &m[0] && zb__worker_at(&s, 64) == &m[1] &&
           zb__worker_at(&s, ZB_WORKER_SLOTS_MAX - 1) == &m[2]);
  ZB_CHECK(zb__worker_at(&s, 2) == NULL && zb__worker_at(&s, 65) == NULL);
  zb__worker_slots_reset(&s);
  ZB_CHECK(s.more == NULL && s.n == 0 && s.few[3] == NULL);
  /* the table cannot be made: NULL; the inline slots still answer */
  zb_alloc_fail_after(1);
  void **d = zb__worker_slot(&s, 100);
  zb_alloc_fail_after(0);
  ZB_CHECK(d == NULL && s.more == NULL);
  ZB_CHECK(zb__worker_slot(&s, 5) == &s.few[5]);
  ZB_CHECK(zb__worker_at(&s, 100) == NULL);
  zb__worker_slots_reset(&s);
}

typedef struct slot_arg {
  zb__worker_slots *s;
  pthread_barrier_t *go;
  int worker;
  void **got;
} slot_arg;

static void *ask_slot(void *p) {
  slot_arg *a = (slot_arg *)p;
  pthread_barrier_wait(a->go);
  a->got = zb__worker_slot(a->s, a->worker);
  if (a->got != NULL) *a->got = a;
  return NULL;
}

/* Eight threads past the inline slots ask at once (released together by
 * a barrier): one table is kept (the others freed: the counters return to
 * zero), every slot is its own. */
ZB_TEST(worker_slots_table_made_once_under_a_race) {
  for (int round = 0; round < 200; round++) {
    zb__worker_slots s;
    memset(&s, 0, sizeof s);
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, 8);
    pthread_t th[8];
    slot_arg args[8];
    for (int i = 0; i < 8; i++) {
      args[i] = (slot_arg){&s, &go, 64 + i * 500, NULL};
      ZB_CHECK(pthread_create(&th[i], NULL, ask_slot, &args[i]) == 0);
    }
    for (int i = 0; i < 8; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&go);
    for (int i = 0; i < 8; i++) {
      ZB_CHECK(args[i].got == &s.more[64 + i * 500]);
      ZB_CHECK(zb__worker_at(&s, 64 + i * 500) == &args[i]);
    }
    ZB_CHECK_EQ_INT(s.n, 64 + 7 * 500 + 1);
    zb__worker_slots_reset(&s);
  }
}
