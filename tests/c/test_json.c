/*
 * test_json.c -- the JSON reader and writer (io_json.h): types, missing
 * keys, escapes, errors with their line and column, chunked parsing equal
 * to one chunk, the writer's exact text (hand-computed, as pandas writes
 * it), and allocation failures at every allocation of a read and a write
 * (ZB_ENOMEM, nothing leaked: the harness checks the counters).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io_util.h"
#include "test.h"
#include "zambezi/io_json.h"

typedef zb_test_text text;

static const char k_doc[] =
    "{\"a\": 1, \"s\": \"x\\u00e9\\ud83d\\ude00\", \"b\": true, \"n\": [1, {\"k\": null}]}\n"
    "\n"
    "{\"s\": \"t\\\"\\\\\\/\\n\", \"a\": 2.5, \"b\": false, \"late\": 7}\r\n"
    "{\"a\": null, \"s\": \"12\", \"b\": null, \"a\": -3}\n";

static int64_t i64(const zb_column *c, int64_t i) {
  return ((const int64_t *)c->data->data)[c->offset + i];
}

static double f64(const zb_column *c, int64_t i) {
  return ((const double *)c->data->data)[c->offset + i];
}

static int str_eq(const zb_column *c, int64_t i, const char *want) {
  const int64_t *off = (const int64_t *)c->data->data + c->offset;
  int64_t n = off[i + 1] - off[i];
  return n == (int64_t)strlen(want) &&
         memcmp((const char *)c->chars->data + off[i], want, (size_t)n) == 0;
}

ZB_TEST(json_read_types_keys_escapes) {
  zb_json_read_options o;
  zb_json_read_options_init(&o);
  zb_table *t = NULL;
  zb_error err = {{0}};
  ZB_CHECK_OK(zb_json_read_buffer(k_doc, (int64_t)strlen(k_doc), &o, &t, &err), &err);
  if (t == NULL) return;
  ZB_CHECK_EQ_INT(t->num_rows, 3);
  ZB_CHECK_EQ_INT(t->num_columns, 5);
  static const char *names[5] = {"a", "s", "b", "n", "late"};
  for (int j = 0; j < 5 && j < t->num_columns; j++) ZB_CHECK(strcmp(t->names[j], names[j]) == 0);
  const zb_column *a = t->columns[0], *s = t->columns[1], *b = t->columns[2], *n = t->columns[3],
                  *late = t->columns[4];
  ZB_CHECK_EQ_INT(a->type, ZB_FLOAT64);
  ZB_CHECK(f64(a, 0) == 1.0 && f64(a, 1) == 2.5 && f64(a, 2) == -3.0); /* last duplicate wins */
  ZB_CHECK_EQ_INT(s->type, ZB_STRING); /* "12" among words stays text */
  ZB_CHECK(str_eq(s, 0, "x\xc3\xa9\xf0\x9f\x98\x80"));
  ZB_CHECK(str_eq(s, 1, "t\"\\/\n"));
  ZB_CHECK(str_eq(s, 2, "12"));
  ZB_CHECK_EQ_INT(b->type, ZB_BOOL);
  ZB_CHECK_EQ_INT(b->null_count, 1);
  ZB_CHECK_EQ_INT(n->type, ZB_STRING);
  ZB_CHECK(str_eq(n, 0, "[1, {\"k\": null}]"));
  ZB_CHECK_EQ_INT(n->null_count, 2);
  ZB_CHECK_EQ_INT(late->type, ZB_INT64);
  ZB_CHECK_EQ_INT(late->null_count, 2);
  ZB_CHECK_EQ_INT(i64(late, 1), 7);
  zb_table_release(t);
}

ZB_TEST(json_read_errors_name_line_and_column) {
  static const struct {
    const char *doc;
    const char *msg;
  } cases[] = {
      {"{\"a\": 1}\n{\"a\": \"\\x\"}\n", "JSON: line 2, column 8: bad escape in a string"},
      {"{\"a\": 1}\n{\"a\": ", "JSON: line 2, column 7: expected a value"},
      {"{\"a\": 1}\n\n[1]\n", "JSON: line 3, column 1: a line that is not a JSON object"},
      {"{\"a\": \"\\ud800x\"}", "JSON: line 1, column 8: high surrogate \\u escape not followed "
                             "by a low one"},
      {"{\"a\": \"\xc3\x28\"}", "JSON: line 1, column 8: invalid UTF-8 in a string (key 'a')"},
      {"{\"a\" 1}", "JSON: line 1, column 6: expected ':' after a key"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    zb_table *t = NULL;
    zb_error err = {{0}};
    zb_status st = zb_json_read_buffer(cases[i].doc, (int64_t)strlen(cases[i].doc), NULL, &t, &err);
    ZB_CHECK_EQ_INT(st, ZB_EPARSE);
    ZB_CHECK(t == NULL);
    if (strcmp(err.message, cases[i].msg) != 0)
      zb_test_fail(__FILE__, __LINE__, "case %zu: %s", i, err.message);
  }
}

/* Many tiny chunks on several threads give the same table as one chunk. */
ZB_TEST(json_read_chunks_equal_one_chunk) {
  char doc[8192];
  int64_t n = 0;
  for (int i = 0; i < 120; i++)
    n += snprintf(doc + n, sizeof doc - (size_t)n,
                  i == 100 ? "{\"w\": 0.5, \"k%d\": \"v\", \"s\": \"word\"}\n"
                  : i == 0 ? "{\"w\": %d, \"first\": 1, \"s\": \"%d\"}\n"
                           : "{\"w\": %d, \"s\": \"%d\"}\n",
                  i, i);
  zb_json_read_options o;
  zb_json_read_options_init(&o);
  zb_table *one = NULL, *many = NULL;
  zb_error err = {{0}};
  ZB_CHECK_OK(zb_json_read_buffer(doc, n, &o, &one, &err), &err);
  o.chunk_size = 40;
  ZB_CHECK_OK(zb_json_read_buffer(doc, n, &o, &many, &err), &err);
  if (one && many) {
    ZB_CHECK_EQ_INT(one->num_columns, 4);
    ZB_CHECK_EQ_INT(many->num_columns, 4);
    ZB_CHECK_EQ_INT(many->num_rows, 120);
    ZB_CHECK_EQ_INT(many->columns[0]->type, ZB_FLOAT64);
    ZB_CHECK_EQ_INT(many->columns[2]->type, ZB_STRING);
    ZB_CHECK(strcmp(many->names[1], "first") == 0); /* keys in first-seen order */
    ZB_CHECK(strcmp(many->names[3], "k100") == 0);
    ZB_CHECK(f64(many->columns[0], 100) == 0.5 && f64(many->columns[0], 119) == 119.0);
    ZB_CHECK(str_eq(many->columns[2], 100, "word") && str_eq(many->columns[2], 99, "99"));
  }
  zb_table_release(one);
  zb_table_release(many);
}

ZB_TEST(json_write_exact_text) {
  zb_json_read_options o;
  zb_json_read_options_init(&o);
  const char *doc = "{\"f\": 0.1, \"s\": \"\\u00e9/\\u0001\", \"i\": -5}\n"
                    "{\"f\": 1e20, \"s\": null, \"i\": 3}\n"
                    "{\"f\": 0.333333333333, \"s\": \"q\\\"\", \"i\": 0}\n";
  zb_table *t = NULL;
  zb_error err = {{0}};
  ZB_CHECK_OK(zb_json_read_buffer(doc, (int64_t)strlen(doc), &o, &t, &err), &err);
  if (t == NULL) return;
  zb_json_write_options w;
  zb_json_write_options_init(&w);
  text out = {NULL, 0, 0};
  ZB_CHECK_OK(zb_json_write(t, &w, zb_test_text_write, &out, &err), &err);
  const char *want = "{\"f\":0.1,\"s\":\"\\u00e9\\/\\u0001\",\"i\":-5}\n"
                     "{\"f\":1e+20,\"s\":null,\"i\":3}\n"
                     "{\"f\":0.3333333333,\"s\":\"q\\\"\",\"i\":0}\n";
  if (out.p == NULL || strcmp(out.p, want) != 0)
    zb_test_fail(__FILE__, __LINE__, "got:\n%s", out.p ? out.p : "(null)");
  out.n = 0;
  w.lines = false;
  w.force_ascii = false;
  ZB_CHECK_OK(zb_json_write(t, &w, zb_test_text_write, &out, &err), &err);
  const char *want2 = "[{\"f\":0.1,\"s\":\"\xc3\xa9\\/\\u0001\",\"i\":-5},"
                      "{\"f\":1e+20,\"s\":null,\"i\":3},"
                      "{\"f\":0.3333333333,\"s\":\"q\\\"\",\"i\":0}]";
  if (out.p == NULL || strcmp(out.p, want2) != 0)
    zb_test_fail(__FILE__, __LINE__, "got:\n%s", out.p ? out.p : "(null)");
  free(out.p);
  zb_table_release(t);
}

/* Every allocation of a chunked read and of a write fails in turn: each
 * failure is ZB_ENOMEM with no table, and nothing leaks. */
ZB_TEST(json_alloc_failures) {
  char doc[4096];
  int64_t n = 0;
  for (int i = 0; i < 40; i++)
    n += snprintf(doc + n, sizeof doc - (size_t)n,
                  "{\"a\": %d, \"s\": \"v\\u00e9%d\", \"k%d\": [%d], \"w\": %s}\n", i, i, i % 3,
                  i, i == 30 ? "\"x\"" : "1");
  zb_json_read_options o;
  zb_json_read_options_init(&o);
  o.chunk_size = 200;
  bool done = false;
  int fails = 0;
  for (int64_t k = 1; k < 100000 && !done; k++) {
    zb_table *t = NULL;
    zb_error err = {{0}};
    zb_alloc_fail_after(k);
    zb_status st = zb_json_read_buffer(doc, n, &o, &t, &err);
    zb_alloc_fail_after(0);
    if (st == ZB_OK) {
      done = true;
      ZB_CHECK_EQ_INT(t->num_rows, 40);
      ZB_CHECK_EQ_INT(t->num_columns, 6);
      /* and the writer, failing each allocation in turn */
      bool wdone = false;
      for (int64_t q = 1; q < 100000 && !wdone; q++) {
        text out = {NULL, 0, 0};
        zb_alloc_fail_after(q);
        zb_status ws = zb_json_write(t, NULL, zb_test_text_write, &out, &err);
        zb_alloc_fail_after(0);
        free(out.p);
        if (ws == ZB_OK) wdone = true;
        else if (ws != ZB_ENOMEM) {
          zb_test_fail(__FILE__, __LINE__, "write allocation %lld: %s", (long long)q, err.message);
          break;
        }
      }
      ZB_CHECK(wdone);
      zb_table_release(t);
    } else if (st != ZB_ENOMEM || t != NULL) {
      zb_test_fail(__FILE__, __LINE__, "allocation %lld: %s: %s", (long long)k,
                   zb_status_name(st), err.message);
      break;
    } else {
      fails++;
    }
  }
  ZB_CHECK(done);
  ZB_CHECK(fails > 20);
}

/* The one pass (a regular sample of 1000 records) and its way back to two
 * passes (a key first seen at record 1100, a bool column meeting a number
 * at record 1150): the same table as two passes give, and every failed
 * allocation is ZB_ENOMEM with nothing leaked.  In several chunks (the
 * sample reads the first whole), and in one (the scan resumes where the
 * sample stopped). */
ZB_TEST(json_one_pass_fallback_and_alloc_failures) {
  for (int variant = 0; variant < 6; variant++) {
    int64_t cap = 1300 * 64, n = 0;
    char *doc = (char *)malloc((size_t)cap);
    ZB_CHECK(doc != NULL);
    if (doc == NULL) return;
    for (int i = 0; i < 1300; i++) {
      const char *extra = variant % 3 == 1 && i == 1100 ? ", \"new\": 5" : "";
      const char *b = variant % 3 == 2 && i == 1150 ? "3" : "true";
      n += snprintf(doc + n, (size_t)(cap - n), "{\"a\": %d, \"s\": \"v\\u00e9%d\", \"b\": %s%s}\n",
                    i, i, b, extra);
    }
    zb_json_read_options o;
    zb_json_read_options_init(&o);
    o.chunk_size = variant < 3 ? 4096 : 0; /* several chunks, parsed in parallel; or one */
    bool done = false;
    int fails = 0;
    for (int64_t k = 1; k < 100000 && !done; k++) {
      zb_table *t = NULL;
      zb_error err = {{0}};
      zb_alloc_fail_after(k);
      zb_status st = zb_json_read_buffer(doc, n, &o, &t, &err);
      zb_alloc_fail_after(0);
      if (st == ZB_OK) {
        done = true;
        ZB_CHECK_EQ_INT(t->num_rows, 1300);
        ZB_CHECK_EQ_INT(t->num_columns, variant % 3 == 1 ? 4 : 3);
        ZB_CHECK_EQ_INT(i64(t->columns[0], 1299), 1299);
        ZB_CHECK_EQ_INT(t->columns[2]->type, variant % 3 == 2 ? ZB_STRING : ZB_BOOL);
        if (variant % 3 == 1) {
          ZB_CHECK_EQ_INT(t->columns[3]->null_count, 1299);
          ZB_CHECK_EQ_INT(i64(t->columns[3], 1100), 5);
        }
        const zb_column *s = t->columns[1];
        const int64_t *so = (const int64_t *)s->data->data;
        ZB_CHECK(so[1300] - so[1299] == 7 &&
                 memcmp((const char *)s->chars->data + so[1299], "v\xc3\xa9" "1299", 7) == 0);
        zb_table_release(t);
      } else if (st != ZB_ENOMEM || t != NULL) {
        zb_test_fail(__FILE__, __LINE__, "variant %d allocation %lld: %s: %s", variant,
                     (long long)k, zb_status_name(st), err.message);
        break;
      } else {
        fails++;
      }
    }
    ZB_CHECK(done);
    ZB_CHECK(fails > 20);
    free(doc);
  }
}
