/*
 * test_csv_write.c -- the CSV writer (zb_csv_write) and the row-boundary
 * helpers of the reader (zb_csv_data_start, zb_csv_find_rows): exact text
 * for small tables, float text that is the shortest that round-trips
 * (checked against strtod and a brute-force search), round trips through
 * zb_csv_read_buffer, quoting modes, thread counts 1 and 3 giving the same
 * bytes, and failing the Nth allocation in a loop.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io_util.h"
#include "test.h"
#include "zambezi/io_csv.h"

typedef zb_test_text text;

static zb_table *read_text(const char *s, const zb_csv_options *o) {
  zb_table *t = NULL;
  zb_error err;
  err.message[0] = '\0';
  ZB_CHECK_OK(zb_csv_read_buffer(s, (int64_t)strlen(s), o, &t, &err), &err);
  return t;
}

/* Write t with opts into a malloc'ed string (caller frees). */
static char *write_text(const zb_table *t, const zb_csv_write_options *o) {
  text out = {NULL, 0, 0};
  zb_error err;
  err.message[0] = '\0';
  ZB_CHECK_OK(zb_csv_write(t, o, zb_test_text_write, &out, &err), &err);
  if (out.p == NULL) out.p = (char *)calloc(1, 1);
  return out.p;
}

#define CHECK_TEXT(got, want)                                                   \
  do {                                                                          \
    if (strcmp((got), (want)) != 0)                                             \
      zb_test_fail(__FILE__, __LINE__, "text:\n%s\n!= want:\n%s", (got), (want)); \
  } while (0)

ZB_TEST(csv_write_exact_text) {
  const char *in =
      "i,f,s,b,d,t\n"
      "1,0.1,plain,True,2020-01-02,2020-01-02 03:04:05\n"
      ",1e16,\"a,b\",False,,2020-01-02 03:04:05.25\n"
      "-7,,\"q\"\"x\",,1969-12-31,\n"
      "3,1e-05,\"line\nbreak\",True,2000-02-29,1900-01-01\n";
  zb_table *t = read_text(in, NULL);
  if (!t) return;
  char *s = write_text(t, NULL);
  CHECK_TEXT(s,
             "i,f,s,b,d,t\n"
             "1,0.1,plain,True,2020-01-02,2020-01-02 03:04:05.000\n"
             ",1e+16,\"a,b\",False,,2020-01-02 03:04:05.250\n"
             "-7,,\"q\"\"x\",,1969-12-31,\n"
             "3,1e-05,\"line\nbreak\",True,2000-02-29,1900-01-01 00:00:00.000\n");
  free(s);
  zb_csv_write_options o;
  zb_csv_write_options_init(&o);
  o.quoting = ZB_CSV_QUOTE_NONNUMERIC;
  o.na_rep = "NA";
  o.header = false;
  o.sep = ';';
  o.lineterminator = "\r\n";
  s = write_text(t, &o);
  CHECK_TEXT(s,
             "1;0.1;\"plain\";True;\"2020-01-02\";\"2020-01-02 03:04:05.000\"\r\n"
             "\"NA\";1e+16;\"a,b\";False;\"NA\";\"2020-01-02 03:04:05.250\"\r\n"
             "-7;\"NA\";\"q\"\"x\";\"NA\";\"1969-12-31\";\"NA\"\r\n"
             "3;1e-05;\"line\nbreak\";True;\"2000-02-29\";\"1900-01-01 00:00:00.000\"\r\n");
  free(s);
  zb_table_release(t);
}

ZB_TEST(csv_write_float_shortest) {
  /* Random bit patterns: the text reads back to the value, and no shorter
   * digit string does (checked by rounding to fewer digits). */
  const int n = 20000;
  zb_column *c = NULL;
  zb_error err;
  err.message[0] = '\0';
  ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, n, false, 0, &c, &err), &err);
  if (!c) return;
  double *v = (double *)c->data->data;
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < n; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    double d;
    memcpy(&d, &x, sizeof d);
    if (!isfinite(d)) d = (double)i * 0.1;
    v[i] = d;
  }
  const char *name = "f";
  zb_table *t = NULL;
  ZB_CHECK_OK(zb_table_make(1, &c, &name, &t, &err), &err);
  zb_column_release(c);
  if (!t) return;
  zb_csv_write_options o;
  zb_csv_write_options_init(&o);
  o.header = false;
  char *s = write_text(t, &o);
  char *p = s;
  for (int i = 0; i < n; i++) {
    char *nl = strchr(p, '\n');
    if (nl == NULL) {
      ZB_CHECK(nl != NULL);
      break;
    }
    *nl = '\0';
    double back = strtod(p, NULL);
    if (back != v[i]) zb_test_fail(__FILE__, __LINE__, "%s != %.17g", p, v[i]);
    int digits = 0;
    for (char *q = p; *q && *q != 'e'; q++) digits += *q >= '0' && *q <= '9';
    char shorter[64];
    snprintf(shorter, sizeof shorter, "%.*e", digits > 2 ? digits - 2 : 0, v[i]);
    if (digits > 2 && strtod(shorter, NULL) == v[i] && strchr(p, 'e') != NULL)
      zb_test_fail(__FILE__, __LINE__, "%s is not the shortest (%s)", p, shorter);
    p = nl + 1;
  }
  free(s);
  zb_table_release(t);
}

ZB_TEST(csv_write_round_trip_threads) {
  /* Build a text with quotes, separators and newlines; read, write, read:
   * the second text equals the first write, for 1 and 3 threads. */
  int64_t rows = 150000;
  text in = {NULL, 0, 0};
  zb_error err;
  zb_test_text_write(&in, "a,b,c\n", 6, &err);
  char line[128];
  for (int64_t i = 0; i < rows; i++) {
    int k = snprintf(line, sizeof line, "%lld,\"s%lld,\"\"q\"\"\n x\",%g\n", (long long)(i * 7919 % 1000003),
                     (long long)i, (double)i / 7.0);
    zb_test_text_write(&in, line, k, &err);
  }
  int saved = zb_get_num_threads();
  char *first = NULL;
  for (int th = 1; th <= 3; th += 2) {
    zb_set_num_threads(th, NULL);
    zb_table *t = read_text(in.p, NULL);
    if (!t) break;
    char *s = write_text(t, NULL);
    zb_table *t2 = read_text(s, NULL);
    char *s2 = t2 ? write_text(t2, NULL) : NULL;
    if (s2) CHECK_TEXT(s2, s);
    if (first == NULL) first = s;
    else {
      ZB_CHECK(strcmp(first, s) == 0);
      free(s);
    }
    free(s2);
    zb_table_release(t);
    zb_table_release(t2);
  }
  zb_set_num_threads(saved, NULL);
  free(first);
  free(in.p);
}

ZB_TEST(csv_write_quote_none_and_errors) {
  zb_table *t = read_text("a,b\n\"x,y\",1\n", NULL);
  if (!t) return;
  zb_csv_write_options o;
  zb_csv_write_options_init(&o);
  o.quoting = ZB_CSV_QUOTE_NONE;
  text out = {NULL, 0, 0};
  zb_error err;
  err.message[0] = '\0';
  ZB_CHECK_EQ_INT(zb_csv_write(t, &o, zb_test_text_write, &out, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "row 0, column 'a'") != NULL);
  o.escapechar = '\\';
  char *s = write_text(t, &o);
  CHECK_TEXT(s, "a,b\nx\\,y,1\n");
  free(s);
  zb_csv_write_options_init(&o);
  o.float_format = "%d";
  ZB_CHECK_EQ_INT(zb_csv_write(t, &o, zb_test_text_write, &out, &err), ZB_EINVAL);
  o.float_format = "%.2f%s";
  ZB_CHECK_EQ_INT(zb_csv_write(t, &o, zb_test_text_write, &out, &err), ZB_EINVAL);
  free(out.p);
  zb_table_release(t);
}

ZB_TEST(csv_write_alloc_failures) {
  zb_table *t = read_text("a,b,c\n1,x,2.5\n,\"y\"\"\",\n3,z,1e300\n", NULL);
  if (!t) return;
  char *want = write_text(t, NULL);
  for (int64_t k = 1; k < 200; k++) {
    text out = {NULL, 0, 0};
    zb_error err;
    zb_alloc_fail_after(k);
    zb_status s = zb_csv_write(t, NULL, zb_test_text_write, &out, &err);
    zb_alloc_fail_after(0);
    if (s == ZB_OK) {
      CHECK_TEXT(out.p, want);
      free(out.p);
      break;
    }
    ZB_CHECK_EQ_INT(s, ZB_ENOMEM);
    free(out.p);
  }
  free(want);
  zb_table_release(t);
}

ZB_TEST(csv_find_rows_quote_aware) {
  const char *d = "skip me\nh1,h2\n1,\"a\nb\"\n\n2,x\n3,\"\"\"\"\n4,y";
  int64_t size = (int64_t)strlen(d);
  zb_csv_options o;
  zb_csv_options_init(&o);
  o.skiprows = 1;
  int64_t off = 0, lines = 0, end = 0, rows = 0;
  zb_error err;
  ZB_CHECK_OK(zb_csv_data_start(d, size, &o, &off, &lines, &err), &err);
  ZB_CHECK_EQ_INT(off, 14);
  ZB_CHECK_EQ_INT(lines, 2);
  ZB_CHECK_OK(zb_csv_find_rows(d, size, &o, off, 1, &end, &rows, &lines, &err), &err);
  ZB_CHECK_EQ_INT(rows, 1);
  ZB_CHECK_EQ_INT(end, 22); /* after "1,\"a\nb\"\n" */
  ZB_CHECK_EQ_INT(lines, 2);
  ZB_CHECK_OK(zb_csv_find_rows(d, size, &o, end, 2, &end, &rows, &lines, &err), &err);
  ZB_CHECK_EQ_INT(rows, 2); /* the blank line does not count */
  ZB_CHECK_EQ_INT(lines, 3);
  ZB_CHECK_OK(zb_csv_find_rows(d, size, &o, end, 10, &end, &rows, &lines, &err), &err);
  ZB_CHECK_EQ_INT(rows, 1);
  ZB_CHECK_EQ_INT(end, size);
  /* first_line shifts line numbers in messages */
  zb_csv_options_init(&o);
  o.first_line = 100;
  o.header = -1;
  zb_table *t = NULL;
  ZB_CHECK_EQ_INT(zb_csv_read_buffer("1,2\n3\n4,5,6\n", 12, &o, &t, &err), ZB_EPARSE);
  ZB_CHECK(strstr(err.message, "line 102") != NULL);
}
