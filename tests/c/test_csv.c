/*
 * test_csv.c -- tests of the CSV reader (src/io): dialect handling, type
 * inference, options, every error with its exact line number, parallel
 * chunked parsing against single-threaded parsing and against the values
 * the generator wrote, float parsing against strtod, cancellation,
 * progress, files and a fail-every-allocation loop.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/csv_tokenize.h"
#include "test.h"
#include "zambezi/io.h"

/* ---- helpers ----------------------------------------------------------- */

static zb_status rd(const char *s, const zb_csv_options *o, zb_table **t, zb_error *err) {
  return zb_csv_read_buffer(s, (int64_t)strlen(s), o, t, err);
}

static zb_table *rd_ok(const char *s, const zb_csv_options *o) {
  zb_table *t = NULL;
  zb_error err = {{0}};
  zb_status st = rd(s, o, &t, &err);
  if (st != ZB_OK) zb_test_fail(__FILE__, __LINE__, "read failed: %s: %s", zb_status_name(st), err.message);
  return t;
}

static const zb_column *col(const zb_table *t, const char *name) {
  int64_t i = zb_table_find(t, name);
  if (i < 0) {
    zb_test_fail(__FILE__, __LINE__, "no column '%s'", name);
    return NULL;
  }
  return t->columns[i];
}

static int64_t i64(const zb_column *c, int64_t i) { return ((const int64_t *)c->data->data)[c->offset + i]; }
static double f64(const zb_column *c, int64_t i) { return ((const double *)c->data->data)[c->offset + i]; }
static bool valid(const zb_column *c, int64_t i) { return zb_column_is_valid(c, i); }

/* The string at row i (NUL-terminated copy in a static ring). */
static const char *str(const zb_column *c, int64_t i) {
  static char ring[8][512];
  static int k;
  char *b = ring[k++ & 7];
  const zb_column *sc = c->type == ZB_CATEGORICAL ? c->dictionary : c;
  int64_t j = c->offset + i;
  if (c->type == ZB_CATEGORICAL) j = ((const int32_t *)c->data->data)[j];
  const int64_t *off = (const int64_t *)sc->data->data;
  int64_t n = off[j + 1] - off[j];
  if (n > 511) n = 511;
  memcpy(b, (const char *)sc->chars->data + off[j], (size_t)n);
  b[n] = 0;
  return b;
}

#define CHECK_STR(a, b) \
  do { \
    const char *zb__x = (a), *zb__y = (b); \
    if (strcmp(zb__x, zb__y) != 0) zb_test_fail(__FILE__, __LINE__, "'%s' != '%s'", zb__x, zb__y); \
  } while (0)

/* Expect failure with code and a message containing `needle`. */
#define CHECK_FAILS(s, o, code, needle) \
  do { \
    zb_table *zb__t = NULL; \
    zb_error zb__e = {{0}}; \
    zb_status zb__st = rd((s), (o), &zb__t, &zb__e); \
    if (zb__st != (code)) \
      zb_test_fail(__FILE__, __LINE__, "expected %s, got %s: %s", zb_status_name(code), \
                   zb_status_name(zb__st), zb__e.message); \
    else if (strstr(zb__e.message, (needle)) == NULL) \
      zb_test_fail(__FILE__, __LINE__, "message '%s' lacks '%s'", zb__e.message, (needle)); \
    ZB_CHECK(zb__t == NULL); \
    zb_table_release(zb__t); \
  } while (0)

/* Equal tables: names, types, nulls and values. */
static bool tables_equal(const zb_table *a, const zb_table *b) {
  if (a->num_columns != b->num_columns || a->num_rows != b->num_rows) return false;
  for (int64_t j = 0; j < a->num_columns; j++) {
    const zb_column *x = a->columns[j], *y = b->columns[j];
    if (strcmp(a->names[j], b->names[j]) != 0 || x->type != y->type) return false;
    for (int64_t i = 0; i < a->num_rows; i++) {
      if (valid(x, i) != valid(y, i)) return false;
      if (!valid(x, i)) continue;
      switch (x->type) {
        case ZB_STRING:
        case ZB_CATEGORICAL:
          if (strcmp(str(x, i), str(y, i)) != 0) return false;
          break;
        case ZB_BOOL:
          if (zb_bit_get((const uint8_t *)x->data->data, i) !=
              zb_bit_get((const uint8_t *)y->data->data, i))
            return false;
          break;
        default: {
          int w = zb_type_width(x->type);
          if (memcmp((const char *)x->data->data + i * w, (const char *)y->data->data + i * w,
                     (size_t)w) != 0)
            return false;
        }
      }
    }
  }
  return true;
}

/* ---- dialect ------------------------------------------------------------- */

ZB_TEST(csv_basic_types) {
  zb_table *t = rd_ok("a,b,c,d\n1,2.5,x,True\n-3,4,y,false\n", NULL);
  if (!t) return;
  ZB_CHECK_EQ_INT(t->num_columns, 4);
  ZB_CHECK_EQ_INT(t->num_rows, 2);
  ZB_CHECK_EQ_INT(col(t, "a")->type, ZB_INT64);
  ZB_CHECK_EQ_INT(i64(col(t, "a"), 0), 1);
  ZB_CHECK_EQ_INT(i64(col(t, "a"), 1), -3);
  ZB_CHECK_EQ_INT(col(t, "b")->type, ZB_FLOAT64);
  ZB_CHECK(f64(col(t, "b"), 0) == 2.5 && f64(col(t, "b"), 1) == 4.0);
  ZB_CHECK_EQ_INT(col(t, "c")->type, ZB_STRING);
  CHECK_STR(str(col(t, "c"), 0), "x");
  CHECK_STR(str(col(t, "c"), 1), "y");
  ZB_CHECK_EQ_INT(col(t, "d")->type, ZB_BOOL);
  ZB_CHECK(zb_bit_get((const uint8_t *)col(t, "d")->data->data, 0) == true);
  ZB_CHECK(zb_bit_get((const uint8_t *)col(t, "d")->data->data, 1) == false);
  ZB_CHECK_EQ_INT(col(t, "a")->null_count, 0);
  zb_table_release(t);
}

ZB_TEST(csv_quotes_crlf_bom) {
  const char *s = "\xEF\xBB\xBFk,v\r\n\"x,y\",\"he said \"\"hi\"\"\"\r\n\"multi\r\nline\",z\r\n"
                  "\"ab\"cd,\"\"\r\nlast,\"q\"";
  zb_table *t = rd_ok(s, NULL);
  if (!t) return;
  ZB_CHECK_EQ_INT(t->num_rows, 4);
  CHECK_STR(t->names[0], "k");
  const zb_column *k = col(t, "k"), *v = col(t, "v");
  CHECK_STR(str(k, 0), "x,y");
  CHECK_STR(str(v, 0), "he said \"hi\"");
  CHECK_STR(str(k, 1), "multi\r\nline");
  CHECK_STR(str(v, 1), "z");
  CHECK_STR(str(k, 2), "abcd");
  ZB_CHECK(!valid(v, 2)); /* "" is the empty string: NA by default */
  CHECK_STR(str(k, 3), "last");
  CHECK_STR(str(v, 3), "q");
  zb_table_release(t);
}

ZB_TEST(csv_empty_header_only_blank) {
  zb_table *t = rd_ok("", NULL);
  if (t) {
    ZB_CHECK_EQ_INT(t->num_columns, 0);
    ZB_CHECK_EQ_INT(t->num_rows, 0);
    zb_table_release(t);
  }
  t = rd_ok("a,b\n", NULL);
  if (t) {
    ZB_CHECK_EQ_INT(t->num_columns, 2);
    ZB_CHECK_EQ_INT(t->num_rows, 0);
    ZB_CHECK_EQ_INT(t->columns[0]->type, ZB_STRING);
    ZB_CHECK_EQ_INT(t->columns[1]->type, ZB_STRING);
    zb_table_release(t);
  }
  t = rd_ok("\n\na,b\n\n1,2\n   \n\r\n3,4", NULL);
  if (t) {
    ZB_CHECK_EQ_INT(t->num_rows, 2);
    ZB_CHECK_EQ_INT(i64(col(t, "a"), 1), 3);
    ZB_CHECK_EQ_INT(i64(col(t, "b"), 1), 4);
    zb_table_release(t);
  }
}

ZB_TEST(csv_inference) {
  const char *s =
      "i,u,f,mix,d,ts,allnull,s,big\n"
      "1,18446744073709551615,1e3,1,2024-02-29,2024-01-02 03:04:05.25,,a,99999999999999999999\n"
      "NA,1,-0.5,x,1970-01-01,2024-01-02T00:00:00,NA,,-1\n"
      "-9223372036854775808,2,inf,2.5,,2024-01-03,nan,b,1\n";
  zb_table *t = rd_ok(s, NULL);
  if (!t) return;
  const zb_column *c = col(t, "i");
  ZB_CHECK_EQ_INT(c->type, ZB_INT64);
  ZB_CHECK_EQ_INT(c->null_count, 1);
  ZB_CHECK(!valid(c, 1));
  ZB_CHECK(i64(c, 2) == INT64_MIN);
  c = col(t, "u");
  ZB_CHECK_EQ_INT(c->type, ZB_UINT64);
  ZB_CHECK(((const uint64_t *)c->data->data)[0] == UINT64_MAX);
  c = col(t, "f");
  ZB_CHECK_EQ_INT(c->type, ZB_FLOAT64);
  ZB_CHECK(f64(c, 0) == 1000.0 && f64(c, 1) == -0.5 && isinf(f64(c, 2)));
  ZB_CHECK_EQ_INT(col(t, "mix")->type, ZB_STRING);
  c = col(t, "d");
  ZB_CHECK_EQ_INT(c->type, ZB_DATE32);
  ZB_CHECK_EQ_INT(((const int32_t *)c->data->data)[0], 19782); /* 2024-02-29 */
  ZB_CHECK_EQ_INT(((const int32_t *)c->data->data)[1], 0);
  ZB_CHECK(!valid(c, 2));
  c = col(t, "ts");
  ZB_CHECK_EQ_INT(c->type, ZB_TIMESTAMP);
  ZB_CHECK_EQ_INT(c->unit, ZB_MICRO);
  /* 2024-01-02 = day 19724 */
  ZB_CHECK_EQ_INT(i64(c, 0), (int64_t)19724 * 86400000000LL + 3 * 3600000000LL +
                                  4 * 60000000LL + 5250000LL);
  ZB_CHECK_EQ_INT(i64(c, 1), (int64_t)19724 * 86400000000LL);
  ZB_CHECK_EQ_INT(i64(c, 2), (int64_t)19725 * 86400000000LL);
  c = col(t, "allnull");
  ZB_CHECK_EQ_INT(c->type, ZB_FLOAT64);
  ZB_CHECK_EQ_INT(c->null_count, 3);
  c = col(t, "s");
  ZB_CHECK_EQ_INT(c->type, ZB_STRING);
  ZB_CHECK(!valid(c, 1));
  c = col(t, "big"); /* beyond uint64 and negative: float64 */
  ZB_CHECK_EQ_INT(c->type, ZB_FLOAT64);
  ZB_CHECK(f64(c, 0) == 1e20 && f64(c, 1) == -1.0);
  zb_table_release(t);
}

ZB_TEST(csv_na_values) {
  zb_csv_options o;
  zb_csv_options_init(&o);
  const char *s = "a,b\nNA,x\n,-\n1,n/a\n";
  zb_table *t = rd_ok(s, &o);
  if (t) {
    ZB_CHECK_EQ_INT(col(t, "a")->type, ZB_INT64);
    ZB_CHECK_EQ_INT(col(t, "a")->null_count, 2);
    ZB_CHECK_EQ_INT(col(t, "b")->null_count, 1);
    CHECK_STR(str(col(t, "b"), 1), "-");
    zb_table_release(t);
  }
  const char *na[] = {"-"};
  o.na_values = na;
  o.num_na_values = 1;
  o.keep_default_na = false;
  t = rd_ok(s, &o);
  if (t) {
    ZB_CHECK_EQ_INT(col(t, "a")->type, ZB_STRING);
    CHECK_STR(str(col(t, "a"), 0), "NA");
    CHECK_STR(str(col(t, "a"), 1), "");
    ZB_CHECK_EQ_INT(col(t, "b")->null_count, 1);
    ZB_CHECK(!valid(col(t, "b"), 1));
    CHECK_STR(str(col(t, "b"), 2), "n/a");
    zb_table_release(t);
  }
}

ZB_TEST(csv_dialect_options) {
  zb_csv_options o;
  zb_csv_options_init(&o);
  o.sep = ';';
  o.decimal = ',';
  o.thousands = '.';
  o.comment = '#';
  o.skiprows = 2;
  const char *s = "junk line 1\n\"junk, \"\"line 2\n# a comment\nx;y\n1.234,5;2 # tail\n#c\n-7;1.000.000\n";
  zb_table *t = rd_ok(s, &o);
  if (t) {
    ZB_CHECK_EQ_INT(t->num_rows, 2);
    ZB_CHECK_EQ_INT(col(t, "x")->type, ZB_FLOAT64);
    ZB_CHECK(f64(col(t, "x"), 0) == 1234.5 && f64(col(t, "x"), 1) == -7.0);
    ZB_CHECK_EQ_INT(col(t, "y")->type, ZB_INT64);
    ZB_CHECK_EQ_INT(i64(col(t, "y"), 0), 2);
    ZB_CHECK_EQ_INT(i64(col(t, "y"), 1), 1000000);
    zb_table_release(t);
  }
  /* escapechar without doublequote */
  zb_csv_options_init(&o);
  o.escapechar = '\\';
  o.doublequote = false;
  t = rd_ok("a,b\n\"x\\\"y\",p\\,q\n\"l1\\\nl2\",z\n", &o);
  if (t) {
    ZB_CHECK_EQ_INT(t->num_rows, 2);
    CHECK_STR(str(col(t, "a"), 0), "x\"y");
    CHECK_STR(str(col(t, "b"), 0), "p,q");
    CHECK_STR(str(col(t, "a"), 1), "l1\nl2");
    zb_table_release(t);
  }
}

ZB_TEST(csv_header_names_usecols_nrows) {
  zb_csv_options o;
  zb_csv_options_init(&o);
  o.header = -1;
  zb_table *t = rd_ok("1,2\n3,4\n", &o);
  if (t) {
    CHECK_STR(t->names[0], "0");
    CHECK_STR(t->names[1], "1");
    ZB_CHECK_EQ_INT(t->num_rows, 2);
    ZB_CHECK_EQ_INT(i64(t->columns[1], 1), 4);
    zb_table_release(t);
  }
  const char *names[] = {"p", "q", "r"};
  o.names = names;
  o.num_names = 3;
  t = rd_ok("1,2\n3,4,5\n", &o);
  if (t) {
    ZB_CHECK_EQ_INT(t->num_columns, 3);
    ZB_CHECK(!valid(col(t, "r"), 0)); /* short row: null */
    ZB_CHECK_EQ_INT(i64(col(t, "r"), 1), 5);
    zb_table_release(t);
  }
  zb_csv_options_init(&o);
  o.names = names;
  o.num_names = 2; /* replaces the header row */
  t = rd_ok("a,b\n1,2\n", &o);
  if (t) {
    CHECK_STR(t->names[0], "p");
    ZB_CHECK_EQ_INT(t->num_rows, 1);
    zb_table_release(t);
  }
  zb_csv_options_init(&o);
  t = rd_ok("a,a,,a.1\n1,2,3,4\n", &o);
  if (t) {
    CHECK_STR(t->names[0], "a");
    CHECK_STR(t->names[1], "a.2");
    CHECK_STR(t->names[2], "Unnamed: 2");
    CHECK_STR(t->names[3], "a.1");
    zb_table_release(t);
  }
  const char *uc[] = {"c", "a"};
  o.usecols_names = uc;
  o.num_usecols_names = 2;
  o.nrows = 2;
  t = rd_ok("a,b,c\n1,x,3\n4,y,6\n7,z,9\n", &o);
  if (t) {
    ZB_CHECK_EQ_INT(t->num_columns, 2);
    CHECK_STR(t->names[0], "a"); /* file order */
    CHECK_STR(t->names[1], "c");
    ZB_CHECK_EQ_INT(t->num_rows, 2);
    ZB_CHECK_EQ_INT(i64(t->columns[1], 1), 6);
    zb_table_release(t);
  }
  zb_csv_options_init(&o);
  int64_t ui[] = {1};
  o.usecols_index = ui;
  o.num_usecols_index = 1;
  t = rd_ok("a,b,c\n1,x,3\n", &o);
  if (t) {
    ZB_CHECK_EQ_INT(t->num_columns, 1);
    CHECK_STR(str(col(t, "b"), 0), "x");
    zb_table_release(t);
  }
  o.nrows = 0;
  t = rd_ok("a,b,c\n1,x,3\n", &o);
  if (t) {
    ZB_CHECK_EQ_INT(t->num_rows, 0);
    zb_table_release(t);
  }
  const char *bad[] = {"zz"};
  zb_csv_options_init(&o);
  o.usecols_names = bad;
  o.num_usecols_names = 1;
  CHECK_FAILS("a\n1\n", &o, ZB_EKEY, "zz");
}

ZB_TEST(csv_dtypes_and_parse_dates) {
  zb_csv_options o;
  zb_csv_options_init(&o);
  zb_csv_dtype dt[] = {{"a", ZB_INT8}, {"b", ZB_FLOAT32}, {"c", ZB_CATEGORICAL},
                       {"d", ZB_STRING}, {"e", ZB_DATE32}, {"f", ZB_UINT16}};
  const char *pd[] = {"g"};
  o.dtypes = dt;
  o.num_dtypes = 6;
  o.parse_dates = pd;
  o.num_parse_dates = 1;
  const char *s = "a,b,c,d,e,f,g\n-128,0.1,zeta,007,2000-03-01,65535,2020-01-01\n"
                  "127,,alpha,8,,0,2020-01-01 00:00:01\n5,2,zeta,,1969-12-31,1,\n";
  zb_table *t = rd_ok(s, &o);
  if (!t) return;
  const zb_column *c = col(t, "a");
  ZB_CHECK_EQ_INT(c->type, ZB_INT8);
  ZB_CHECK_EQ_INT(((const int8_t *)c->data->data)[0], -128);
  ZB_CHECK_EQ_INT(((const int8_t *)c->data->data)[1], 127);
  c = col(t, "b");
  ZB_CHECK_EQ_INT(c->type, ZB_FLOAT32);
  ZB_CHECK(((const float *)c->data->data)[0] == 0.1f);
  ZB_CHECK(!valid(c, 1));
  c = col(t, "c");
  ZB_CHECK_EQ_INT(c->type, ZB_CATEGORICAL);
  ZB_CHECK_EQ_INT(c->dictionary->length, 2);
  CHECK_STR(str(c->dictionary, 0), "alpha"); /* sorted categories */
  CHECK_STR(str(c->dictionary, 1), "zeta");
  ZB_CHECK_EQ_INT(((const int32_t *)c->data->data)[0], 1);
  ZB_CHECK_EQ_INT(((const int32_t *)c->data->data)[1], 0);
  CHECK_STR(str(c, 2), "zeta");
  c = col(t, "d");
  ZB_CHECK_EQ_INT(c->type, ZB_STRING);
  CHECK_STR(str(c, 0), "007");
  ZB_CHECK(!valid(c, 2));
  c = col(t, "e");
  ZB_CHECK_EQ_INT(c->type, ZB_DATE32);
  ZB_CHECK_EQ_INT(((const int32_t *)c->data->data)[0], 11017);
  ZB_CHECK_EQ_INT(((const int32_t *)c->data->data)[2], -1);
  c = col(t, "f");
  ZB_CHECK_EQ_INT(c->type, ZB_UINT16);
  ZB_CHECK_EQ_INT(((const uint16_t *)c->data->data)[0], 65535);
  c = col(t, "g");
  ZB_CHECK_EQ_INT(c->type, ZB_TIMESTAMP);
  ZB_CHECK_EQ_INT(i64(c, 0), 18262LL * 86400000000LL);
  ZB_CHECK_EQ_INT(i64(c, 1), 18262LL * 86400000000LL + 1000000LL);
  ZB_CHECK(!valid(c, 2));
  zb_table_release(t);
  /* The other fixed types, in tiny chunks (each value converted where its
   * chunk is parsed). */
  zb_csv_dtype dt2[] = {{"a", ZB_BOOL},   {"b", ZB_INT32},   {"c", ZB_UINT64},
                        {"d", ZB_INT16},  {"e", ZB_UINT8},   {"f", ZB_UINT32},
                        {"g", ZB_FLOAT64}};
  zb_csv_options o2;
  zb_csv_options_init(&o2);
  o2.dtypes = dt2;
  o2.num_dtypes = 7;
  o2.chunk_size = 40;
  s = "a,b,c,d,e,f,g\nTrue,-2147483648,18446744073709551615,-32768,255,4294967295,1e308\n"
      "false,2147483647,0,32767,0,0,-0.0\n,,,,,,\nTRUE,7,7,7,7,7,7\n";
  t = rd_ok(s, &o2);
  if (!t) return;
  c = col(t, "a");
  ZB_CHECK_EQ_INT(c->type, ZB_BOOL);
  ZB_CHECK(zb_bit_get((const uint8_t *)c->data->data, 0) && !zb_bit_get((const uint8_t *)c->data->data, 1));
  ZB_CHECK(!valid(c, 2) && zb_bit_get((const uint8_t *)c->data->data, 3));
  ZB_CHECK_EQ_INT(((const int32_t *)col(t, "b")->data->data)[0], INT32_MIN);
  ZB_CHECK_EQ_INT(((const int32_t *)col(t, "b")->data->data)[1], INT32_MAX);
  ZB_CHECK(((const uint64_t *)col(t, "c")->data->data)[0] == UINT64_MAX);
  ZB_CHECK_EQ_INT(((const int16_t *)col(t, "d")->data->data)[0], INT16_MIN);
  ZB_CHECK_EQ_INT(((const uint8_t *)col(t, "e")->data->data)[0], 255);
  ZB_CHECK(((const uint32_t *)col(t, "f")->data->data)[0] == UINT32_MAX);
  ZB_CHECK(f64(col(t, "g"), 0) == 1e308 && signbit(f64(col(t, "g"), 1)));
  for (int j = 0; j < 7; j++) ZB_CHECK(!valid(t->columns[j], 2) && valid(t->columns[j], 3));
  zb_table_release(t);
  t = NULL;
  zb_error err = {{0}};
  ZB_CHECK_EQ_INT(rd("a,b,c,d,e,f,g\nyes,1,1,1,1,1,1\n", &o2, &t, &err), ZB_EPARSE);
  CHECK_STR(err.message, "CSV line 2, column 'a': cannot parse 'yes' as bool");
  ZB_CHECK_EQ_INT(rd("a,b,c,d,e,f,g\nTrue,1,-1,1,1,1,1\n", &o2, &t, &err), ZB_EOVERFLOW);
  CHECK_STR(err.message, "CSV line 2, column 'c': value '-1' out of range for uint64");
}

/* ---- errors with line numbers ------------------------------------------- */

ZB_TEST(csv_errors) {
  /* too many fields on line 4 (line 3 holds a quoted newline) */
  CHECK_FAILS("a,b\n1,\"x\ny\"\n3,4,5\n", NULL, ZB_EPARSE, "CSV line 4: expected 2 fields, saw 3");
  CHECK_FAILS("a,b\n1,2\n3,\"open\n\nmore", NULL, ZB_EPARSE,
              "CSV line 3: quoted field is not terminated");
  CHECK_FAILS("a,b\n1,2\n3,x\xff\n", NULL, ZB_EPARSE, "CSV line 3, column 'b': invalid UTF-8");
  zb_table *t = NULL;
  zb_error e = {{0}};
  ZB_CHECK_EQ_INT(zb_csv_read_buffer("a\n1\n2,\0\n", 8, NULL, &t, &e), ZB_EPARSE);
  ZB_CHECK(strstr(e.message, "CSV line 3, character 3: NUL byte") != NULL);
  zb_csv_options o;
  zb_csv_options_init(&o);
  zb_csv_dtype dt[] = {{"b", ZB_INT8}};
  o.dtypes = dt;
  o.num_dtypes = 1;
  CHECK_FAILS("a,b\n1,2\n\n3,300\n", &o, ZB_EOVERFLOW,
              "CSV line 4, column 'b': value '300' out of range for int8");
  CHECK_FAILS("a,b\n1,2\n3,\"4\n5\"\n", &o, ZB_EPARSE,
              "CSV line 3, column 'b': cannot parse '4\n5' as int8");
  dt[0].type = ZB_INT64;
  CHECK_FAILS("a,b\n1,99999999999999999999\n", &o, ZB_EOVERFLOW, "CSV line 2, column 'b'");
  dt[0].type = ZB_FLOAT64;
  CHECK_FAILS("a,b\n1,2\n1,abcdefghijabcdefghijabcdefghijabcdefghijabcdefghij\n", &o, ZB_EPARSE,
              "CSV line 3, column 'b': cannot parse 'abcdefghijabcdefghijabcdefghijabcdefg...' "
              "as float64");
  dt[0].type = ZB_DATE32;
  CHECK_FAILS("a,b\n1,2023-02-29\n", &o, ZB_EPARSE, "CSV line 2, column 'b'");
  const char *pd[] = {"a"};
  zb_csv_options_init(&o);
  o.parse_dates = pd;
  o.num_parse_dates = 1;
  CHECK_FAILS("a\n2020-01-01\nlater\n", &o, ZB_EPARSE, "CSV line 3, column 'a': cannot parse 'later'");
  zb_csv_options_init(&o);
  o.sep = '"';
  CHECK_FAILS("a\n", &o, ZB_EINVAL, "same character");
  zb_csv_options_init(&o);
  zb_csv_dtype dk[] = {{"nope", ZB_INT64}};
  o.dtypes = dk;
  o.num_dtypes = 1;
  CHECK_FAILS("a\n1\n", &o, ZB_EKEY, "nope");
}

ZB_TEST(csv_bad_lines_warn_skip) {
  zb_csv_options o;
  zb_csv_options_init(&o);
  zb_csv_warning items[2];
  zb_csv_warnings w = {items, 2, 0, 0};
  o.on_bad_lines = ZB_CSV_BAD_LINES_WARN;
  o.warnings = &w;
  const char *s = "a,b\n1,2\n3,4,5\n5,\"q\nq\"\n7,8,9,10\n11,12\n13,14,15\n";
  zb_table *t = rd_ok(s, &o);
  if (t) {
    ZB_CHECK_EQ_INT(t->num_rows, 3);
    ZB_CHECK_EQ_INT(i64(col(t, "a"), 2), 11);
    zb_table_release(t);
  }
  ZB_CHECK_EQ_INT(w.total, 3);
  ZB_CHECK_EQ_INT(w.count, 2);
  ZB_CHECK_EQ_INT(items[0].line, 3);
  ZB_CHECK_EQ_INT(items[1].line, 6);
  CHECK_STR(items[1].message, "Skipping line 6: expected 2 fields, saw 4");
  o.on_bad_lines = ZB_CSV_BAD_LINES_SKIP;
  o.warnings = NULL;
  t = rd_ok(s, &o);
  if (t) {
    ZB_CHECK_EQ_INT(t->num_rows, 3);
    zb_table_release(t);
  }
}

/* ---- floats against strtod ---------------------------------------------- */

ZB_TEST(csv_float_exact) {
  static const char *cases[] = {
      "0.1", "0.3", "1e23", "8.98846567431158e307", "2.2250738585072011e-308",
      "4.9406564584124654e-324", "1.7976931348623157e308", "123456789012345678901234567890",
      "0.000000000000000000000000000001234", "9007199254740993", "3.14159265358979323846",
      "-0.0", "1e-5", "123.456e-2", "0.1e-22", "1.5e22", "999999999999999.9", "5e-324", "1e400",
      "2.5", "17.17", ".5", "5."};
  int n = (int)(sizeof cases / sizeof cases[0]);
  char buf[4096];
  size_t at = (size_t)snprintf(buf, sizeof buf, "x\n");
  for (int i = 0; i < n; i++) at += (size_t)snprintf(buf + at, sizeof buf - at, "%s\n", cases[i]);
  zb_table *t = rd_ok(buf, NULL);
  if (!t) return;
  const zb_column *c = t->columns[0];
  ZB_CHECK_EQ_INT(c->type, ZB_FLOAT64);
  for (int i = 0; i < n; i++) {
    double want = strtod(cases[i], NULL), got = f64(c, i);
    if (memcmp(&want, &got, 8) != 0) zb_test_fail(__FILE__, __LINE__, "%s: %.17g != %.17g", cases[i], got, want);
  }
  zb_table_release(t);
  /* random decimals: short ones take the fast path, long ones strtod */
  srand(7);
  size_t cap = 400000;
  char *big = (char *)malloc(cap);
  char (*txt)[40] = malloc(sizeof(char[40]) * 10000);
  at = (size_t)snprintf(big, cap, "x\n");
  for (int i = 0; i < 10000; i++) {
    int nd = 1 + rand() % 20, dot = rand() % (nd + 1), e = rand() % 60 - 30;
    char *p = txt[i];
    if (rand() & 1) *p++ = '-';
    for (int k = 0; k < nd; k++) {
      if (k == dot) *p++ = '.';
      *p++ = (char)('0' + rand() % 10);
    }
    if (rand() % 3 == 0) p += sprintf(p, "e%d", e);
    *p = 0;
    at += (size_t)snprintf(big + at, cap - at, "%s\n", txt[i]);
  }
  t = rd_ok(big, NULL);
  if (t) {
    c = t->columns[0];
    ZB_CHECK_EQ_INT(c->type, ZB_FLOAT64);
    int bad = 0;
    for (int i = 0; i < 10000 && bad < 5; i++) {
      double want = strtod(txt[i], NULL), got = f64(c, i);
      if (memcmp(&want, &got, 8) != 0) {
        zb_test_fail(__FILE__, __LINE__, "%s: %.17g != %.17g", txt[i], got, want);
        bad++;
      }
    }
    zb_table_release(t);
  }
  free(big);
  free(txt);
}

/* ---- parallel chunked parsing ------------------------------------------ */

/* ~1.5 MB: ints, floats, strings with quotes, separators and newlines (some
 * long enough to span small chunks), nulls. */
static char *gen_big(int64_t rows, int64_t *size) {
  size_t cap = (size_t)rows * 120 + 64;
  char *b = (char *)malloc(cap);
  size_t at = (size_t)sprintf(b, "id,val,txt,flag\n");
  for (int64_t i = 0; i < rows; i++) {
    at += (size_t)sprintf(b + at, "%lld,", (long long)i);
    if (i % 11 == 3)
      at += (size_t)sprintf(b + at, ",");
    else
      at += (size_t)sprintf(b + at, "%lld.25,", (long long)(i * 3));
    if (i % 5 == 0) {
      at += (size_t)sprintf(b + at, "\"q%lld, \"\"quoted\"\"\nline2", (long long)i);
      if (i % 50 == 0)
        for (int k = 0; k < 40; k++) at += (size_t)sprintf(b + at, "\n,long,\"\"%d", k);
      at += (size_t)sprintf(b + at, "\",");
    } else {
      at += (size_t)sprintf(b + at, "s%lld,", (long long)i);
    }
    at += (size_t)sprintf(b + at, "%s%s", i % 2 ? "true" : "False", i % 3 == 0 ? "\r\n" : "\n");
  }
  *size = (int64_t)at;
  return b;
}

static void check_big(const zb_table *t, int64_t rows, zb_type_id txt_type) {
  ZB_CHECK_EQ_INT(t->num_rows, rows);
  const zb_column *id = col(t, "id"), *val = col(t, "val"), *txt = col(t, "txt"),
                  *flag = col(t, "flag");
  ZB_CHECK_EQ_INT(id->type, ZB_INT64);
  ZB_CHECK_EQ_INT(val->type, ZB_FLOAT64);
  ZB_CHECK_EQ_INT(txt->type, txt_type);
  ZB_CHECK_EQ_INT(flag->type, ZB_BOOL);
  int bad = 0;
  char want[1024];
  for (int64_t i = 0; i < rows && bad < 5; i++) {
    bool ok = i64(id, i) == i;
    ok = ok && (i % 11 == 3 ? !valid(val, i) : (valid(val, i) && f64(val, i) == (double)(i * 3) + 0.25));
    size_t at;
    if (i % 5 == 0) {
      at = (size_t)sprintf(want, "q%lld, \"quoted\"\nline2", (long long)i);
      if (i % 50 == 0)
        for (int k = 0; k < 40; k++) at += (size_t)sprintf(want + at, "\n,long,\"%d", k);
    } else {
      sprintf(want, "s%lld", (long long)i);
    }
    const zb_column *sc = txt->type == ZB_CATEGORICAL ? txt->dictionary : txt;
    int64_t j = txt->type == ZB_CATEGORICAL ? ((const int32_t *)txt->data->data)[i] : i;
    const int64_t *off = (const int64_t *)sc->data->data;
    size_t n = (size_t)(off[j + 1] - off[j]);
    ok = ok && n == strlen(want) && memcmp((const char *)sc->chars->data + off[j], want, n) == 0;
    ok = ok && zb_bit_get((const uint8_t *)flag->data->data, i) == (i % 2 == 1);
    if (!ok) {
      zb_test_fail(__FILE__, __LINE__, "row %lld differs from the generator", (long long)i);
      bad++;
    }
  }
}

ZB_TEST(csv_parallel_matches_generator) {
  int64_t rows = 40000, size;
  char *buf = gen_big(rows, &size);
  ZB_CHECK(size > 1000000);
  int saved = zb_get_num_threads();
  zb_error err;
  zb_csv_options o;
  zb_csv_options_init(&o);
  zb_table *ref = NULL;
  zb_set_num_threads(1, &err);
  o.chunk_size = size * 2; /* one chunk, one thread */
  ZB_CHECK_OK(zb_csv_read_buffer(buf, size, &o, &ref, &err), &err);
  if (ref) check_big(ref, rows, ZB_STRING);
  int64_t sizes[] = {0, 997, 4096, 65536};
  int threads[] = {1, 3};
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 2; b++) {
      zb_set_num_threads(threads[b], &err);
      o.chunk_size = sizes[a];
      zb_table *t = NULL;
      ZB_CHECK_OK(zb_csv_read_buffer(buf, size, &o, &t, &err), &err);
      if (t && ref && !tables_equal(t, ref))
        zb_test_fail(__FILE__, __LINE__, "chunk %lld threads %d differs", (long long)sizes[a],
                     threads[b]);
      zb_table_release(t);
    }
  zb_table_release(ref);
  zb_set_num_threads(saved, &err);
  free(buf);
}

/* Random small inputs over a hostile alphabet: chunked parsing (tiny
 * chunks, 3 threads) must agree with one chunk, in status and content. */
ZB_TEST(csv_parallel_random_dialects) {
  static const char alpha[] = "ab1,,\"\"\n\n\r#\\ ";
  int saved = zb_get_num_threads();
  zb_error err;
  srand(12345);
  char buf[300];
  int mismatches = 0;
  for (int iter = 0; iter < 3000 && mismatches < 3; iter++) {
    int n = 1 + rand() % 200;
    for (int i = 0; i < n; i++) buf[i] = alpha[rand() % (int)(sizeof alpha - 1)];
    zb_csv_options o;
    zb_csv_options_init(&o);
    o.on_bad_lines = ZB_CSV_BAD_LINES_SKIP;
    if (iter % 3 == 1) o.comment = '#';
    if (iter % 4 == 2) o.escapechar = '\\';
    if (iter % 5 == 3) o.doublequote = false;
    zb_set_num_threads(1, &err);
    o.chunk_size = 1000;
    zb_table *a = NULL, *b = NULL;
    zb_error ea = {{0}}, eb = {{0}};
    zb_status sa = zb_csv_read_buffer(buf, n, &o, &a, &ea);
    zb_set_num_threads(3, &err);
    o.chunk_size = 1 + rand() % 8;
    zb_status sb = zb_csv_read_buffer(buf, n, &o, &b, &eb);
    bool same = sa == sb && (sa != ZB_OK ? strcmp(ea.message, eb.message) == 0 : tables_equal(a, b));
    if (!same) {
      mismatches++;
      zb_test_fail(__FILE__, __LINE__, "iter %d (chunk %lld): %s '%s' vs %s '%s' for [%.*s]", iter,
                   (long long)o.chunk_size, zb_status_name(sa), ea.message, zb_status_name(sb),
                   eb.message, n, buf);
    }
    zb_table_release(a);
    zb_table_release(b);
  }
  zb_set_num_threads(saved, &err);
}

/* Two reads of one input agree: the same status and message, or equal
 * tables; a failure names the iteration and chunk size.  Releases both. */
static bool reads_agree(int iter, int64_t chunk, zb_status sa, zb_table *a, const zb_error *ea,
                        zb_status sb, zb_table *b, const zb_error *eb) {
  bool same = sa == sb &&
              (sa != ZB_OK ? strcmp(ea->message, eb->message) == 0 : tables_equal(a, b));
  if (!same)
    zb_test_fail(__FILE__, __LINE__, "iter %d (chunk %lld): %s '%s' vs %s '%s'", iter,
                 (long long)chunk, zb_status_name(sa), ea->message, zb_status_name(sb),
                 eb->message);
  zb_table_release(a);
  zb_table_release(b);
  return same;
}

/* The usual dialect's scan finds quoted runs a 64-byte block at a time
 * (every quote toggling, when each opening quote follows a separator, a
 * line break or a doubled quote's first half), falling back to a quote at
 * a time otherwise.  An escape character that never occurs changes nothing
 * in the dialect but sends the read through the byte-by-byte automaton,
 * the oracle here: random inputs of a few hundred to a few thousand bytes,
 * dense in quotes (doubled, literal inside unquoted fields, text after a
 * closing quote, quoted line breaks), read in random chunks on 1-3
 * threads, must give the oracle's table or error. */
ZB_TEST(csv_quote_blocks_match_the_automaton) {
  static const char *const piece[] = {"\"", "\"\"", "ab", ",", ",", "\n", "\r\n", "\"x,\ny\"",
                                      "\"p\"\"q\"", "7", "\"\"\"", "a\"b", "\"s\"t"};
  enum { NP = sizeof piece / sizeof piece[0] };
  int saved = zb_get_num_threads();
  zb_error err;
  srand(4242);
  static char buf[8192];
  int mismatches = 0;
  for (int iter = 0; iter < 1500 && mismatches < 3; iter++) {
    int target = 100 + rand() % 3000, n = 0;
    /* mostly well-formed quoted fields, now and then a stray piece */
    while (n < target) {
      const char *s = rand() % 4 ? piece[5 + rand() % 8] : piece[rand() % NP];
      n += sprintf(buf + n, "%s", s);
    }
    zb_csv_options o;
    zb_csv_options_init(&o);
    o.header = -1;
    o.on_bad_lines = ZB_CSV_BAD_LINES_SKIP;
    zb_set_num_threads(1, &err);
    o.escapechar = '\x01';
    o.chunk_size = 1 + rand() % 600;
    zb_table *a = NULL, *b = NULL;
    zb_error ea = {{0}}, eb = {{0}};
    zb_status sa = zb_csv_read_buffer(buf, n, &o, &a, &ea);
    zb_set_num_threads(1 + iter % 3, &err);
    o.escapechar = 0;
    o.chunk_size = iter % 2 ? 1 << 30 : 1 + rand() % 600;
    zb_status sb = zb_csv_read_buffer(buf, n, &o, &b, &eb);
    if (!reads_agree(iter, o.chunk_size, sa, a, &ea, sb, b, &eb)) mismatches++;
  }
  zb_set_num_threads(saved, &err);
}

/* The same, one level down: the scan pass's state and record count over
 * random ranges, and the usual dialect's run from inside quotes, against
 * the byte-by-byte automaton (escape character '\x01', never present). */
static bool scan_inside(int s) { return s == CSV_S_QUO || s == CSV_S_EQUO; }

/* The automaton's state after [a, b) as inside quotes or not; right after
 * a quote inside quotes (CSV_S_QQ) it depends on the byte at b, which the
 * block scan looks at (a doubled quote) and the automaton leaves for
 * later. */
static bool run_inside(const char *d, int64_t b, int64_t n, int s) {
  return scan_inside(s) || (s == CSV_S_QQ && b < n && d[b] == '"');
}

ZB_TEST(csv_scan_blocks_match_the_automaton) {
  static const char *const piece[] = {"\"", "\"\"", "ab", ",", "\n", "\"x,\ny\"", "\"p\"\"q\"",
                                      "\"\"\"", "a\"b", "\"s\"t", ",\"", "\"\n"};
  static const char *const field[] = {"ab", "7", "", "\"x,\ny\"", "\"p\"\"q\"", "\"\"\"\"",
                                      "\"\"", "\"a\"\"\"\"b\"", "\"0123456789abcdefghij\""};
  enum { NP = sizeof piece / sizeof piece[0], NF = sizeof field / sizeof field[0] };
  srand(99);
  static char buf[4096];
  zb_csv_options o;
  zb_csv_options_init(&o);
  int bad = 0;
  for (int iter = 0; iter < 4000 && bad < 3; iter++) {
    int target = 64 + rand() % 1500, n = 0;
    if (iter % 2) {
      while (n < target) n += sprintf(buf + n, "%s", piece[rand() % NP]);
    } else { /* well-formed fields only: the block step takes every block */
      while (n < target)
        n += sprintf(buf + n, "%s%s", field[rand() % NF], rand() % 3 ? "," : "\n");
    }
    csv_tok fast, slow;
    o.escapechar = 0;
    zb__csv_tok_init(&fast, buf, n, &o);
    o.escapechar = '\x01';
    zb__csv_tok_init(&slow, buf, n, &o);
    int64_t a = rand() % 3 ? 0 : rand() % (n / 2), b = n - (rand() % 2 ? 0 : rand() % (n / 4));
    csv_scan sc;
    zb__csv_scan_bytes(&fast, a, b, &sc);
    int64_t f1, t1, f2, t2, f3, t3;
    int s1 = zb__csv_run(&slow, a, b, CSV_S_REC, sc.nl, &f1, &t1);
    bool ok = scan_inside(sc.end_s) == run_inside(buf, b, n, s1) && sc.term_s == t1;
    /* from inside quotes: the fast run (its first record too) */
    int s2 = zb__csv_run(&fast, a, b, CSV_S_QUO, sc.nl, &f2, &t2);
    int s3 = zb__csv_run(&slow, a, b, CSV_S_QUO, sc.nl, &f3, &t3);
    ok = ok && scan_inside(s2) == run_inside(buf, b, n, s3) && t2 == t3 && (t3 == 0 || f2 == f3);
    if (!ok) {
      bad++;
      zb_test_fail(__FILE__, __LINE__, "iter %d [%lld, %lld): scan %d/%lld vs %d/%lld; "
                   "from a quote %d/%lld/%lld vs %d/%lld/%lld", iter, (long long)a, (long long)b,
                   sc.end_s, (long long)sc.term_s, s1, (long long)t1, s2, (long long)t2,
                   (long long)f2, s3, (long long)t3, (long long)f3);
    }
  }
}

/* Type inference runs per chunk and widens when a value does not fit; the
 * result must not depend on where chunk and batch boundaries fall.  Random
 * typed columns, each mostly of one kind with a few values of another at
 * random rows, read in tiny chunks (2-row batches) on 1-3 threads, must
 * equal one read in one chunk. */
ZB_TEST(csv_widening_random_chunks) {
  static const char *const vocab[] = {
      "1", "-7", "0", "-0", "+3", "2.5", "-0.0", "1e3", "True", "false", "2020-01-01",
      "2020-01-01 10:00:00", "18446744073709551615", "9223372036854775808",
      "-9223372036854775808", "", "NA", "x", "\"4\"", "\"a,b\"", " 5 ", "1,5", "1.#IND"};
  enum { NV = sizeof vocab / sizeof vocab[0] };
  int saved = zb_get_num_threads();
  zb_error err;
  srand(777);
  static char buf[1 << 15];
  int mismatches = 0;
  for (int iter = 0; iter < 400 && mismatches < 3; iter++) {
    int ncols = 1 + rand() % 3, rows = 50 + rand() % 300, base[3], n = 0;
    for (int j = 0; j < ncols; j++) base[j] = rand() % NV;
    for (int j = 0; j < ncols; j++) n += sprintf(buf + n, j ? ",c%d" : "c%d", j);
    buf[n++] = '\n';
    for (int i = 0; i < rows && n < (int)sizeof buf - 200; i++) {
      for (int j = 0; j < ncols; j++) {
        int v = rand() % 40 == 0 ? rand() % NV : base[j];
        if (vocab[v][0] == '1' && vocab[v][1] == ',') v = 0; /* keep the field count */
        n += sprintf(buf + n, j ? ",%s" : "%s", vocab[v]);
      }
      n += sprintf(buf + n, rand() % 9 == 0 ? "\r\n" : rand() % 17 == 0 ? "\n\n" : "\n");
    }
    zb_csv_options o;
    zb_csv_options_init(&o);
    zb_set_num_threads(1, &err);
    o.chunk_size = 1 << 30;
    zb_table *a = NULL, *b = NULL;
    zb_error ea = {{0}}, eb = {{0}};
    zb_status sa = zb_csv_read_buffer(buf, n, &o, &a, &ea);
    zb_set_num_threads(1 + iter % 3, &err);
    o.chunk_size = 1 + rand() % 400;
    zb_status sb = zb_csv_read_buffer(buf, n, &o, &b, &eb);
    if (!reads_agree(iter, o.chunk_size, sa, a, &ea, sb, b, &eb)) mismatches++;
  }
  zb_set_num_threads(saved, &err);
}

/* Widening with known answers, in chunks of ~200 bytes (3-row batches):
 * a late text value makes an integer column strings (earlier batches and
 * earlier chunks are re-read as text); "-0" stays -0.0 when the column
 * becomes float; dates become timestamps; a huge integer then a negative
 * one give float64; booleans then numbers give strings. */
ZB_TEST(csv_widening_known_answers) {
  static char buf[1 << 15];
  int n = sprintf(buf, "i,z,d,u,b\n");
  for (int r = 0; r < 300; r++)
    n += sprintf(buf + n, "%s,%s,%s,%s,%s\n", r == 250 ? "x" : r == 20 ? "" : r % 2 ? "7" : "-12",
                 r == 0 ? "-0" : r == 200 ? "1.5" : "3",
                 r == 290 ? "2021-03-04 05:06:07" : "2021-03-04",
                 r == 5 ? "18446744073709551615" : r == 280 ? "-1" : "9",
                 r == 260 ? "12" : r % 3 ? "True" : "false");
  zb_csv_options o;
  zb_csv_options_init(&o);
  o.chunk_size = 200;
  int saved = zb_get_num_threads();
  zb_error err;
  for (int threads = 1; threads <= 3; threads += 2) {
    zb_set_num_threads(threads, &err);
    zb_table *t = NULL;
    ZB_CHECK_OK(zb_csv_read_buffer(buf, n, &o, &t, &err), &err);
    if (t == NULL) continue;
    ZB_CHECK_EQ_INT(t->num_rows, 300);
    const zb_column *ci = col(t, "i"), *cz = col(t, "z"), *cd = col(t, "d"), *cu = col(t, "u"),
                    *cb = col(t, "b");
    ZB_CHECK_EQ_INT(ci->type, ZB_STRING);
    ZB_CHECK_EQ_INT(cz->type, ZB_FLOAT64);
    ZB_CHECK_EQ_INT(cd->type, ZB_TIMESTAMP);
    ZB_CHECK_EQ_INT(cu->type, ZB_FLOAT64);
    ZB_CHECK_EQ_INT(cb->type, ZB_STRING);
    bool ok = true;
    for (int r = 0; r < 300; r++) {
      ok &= valid(ci, r) == (r != 20);
      if (r != 20) ok &= strcmp(str(ci, r), r == 250 ? "x" : r % 2 ? "7" : "-12") == 0;
      double z = f64(cz, r);
      ok &= r == 0 ? (z == 0 && signbit(z)) : z == (r == 200 ? 1.5 : 3.0);
      int64_t us = ((const int64_t *)cd->data->data)[r];
      ok &= us == (int64_t)18690 * 86400000000LL + (r == 290 ? (5 * 3600 + 6 * 60 + 7) * 1000000LL : 0);
      double u = f64(cu, r);
      ok &= u == (r == 5 ? 18446744073709551615.0 : r == 280 ? -1.0 : 9.0);
      ok &= strcmp(str(cb, r), r == 260 ? "12" : r % 3 ? "True" : "false") == 0;
      if (!ok) {
        zb_test_fail(__FILE__, __LINE__, "threads %d: row %d differs", threads, r);
        break;
      }
    }
    zb_table_release(t);
  }
  zb_set_num_threads(saved, &err);
}

/* ---- cancellation, progress, files, allocation failures ----------------- */

static int g_progress_calls;
static int64_t g_progress_last;
static int progress_cb(void *ctx, int64_t done, int64_t total) {
  g_progress_calls++;
  if (done < g_progress_last || done > total) g_progress_last = -1000000000;
  else g_progress_last = done;
  return ctx != NULL && g_progress_calls >= *(int *)ctx;
}

ZB_TEST(csv_cancel_and_progress) {
  int64_t rows = 4000, size;
  char *buf = gen_big(rows, &size);
  zb_csv_options o;
  zb_csv_options_init(&o);
  o.chunk_size = 8192;
  volatile int flag = 1;
  o.cancel = &flag;
  zb_table *t = NULL;
  zb_error err = {{0}};
  ZB_CHECK_EQ_INT(zb_csv_read_buffer(buf, size, &o, &t, &err), ZB_ECANCEL);
  ZB_CHECK(t == NULL);
  flag = 0;
  o.progress = progress_cb;
  g_progress_calls = 0;
  g_progress_last = 0;
  ZB_CHECK_OK(zb_csv_read_buffer(buf, size, &o, &t, &err), &err);
  ZB_CHECK(g_progress_calls > 2);
  ZB_CHECK_EQ_INT(g_progress_last, size); /* last call: (size, size) */
  zb_table_release(t);
  t = NULL;
  int stop_at = 3;
  o.progress_ctx = &stop_at;
  g_progress_calls = 0;
  g_progress_last = 0;
  ZB_CHECK_EQ_INT(zb_csv_read_buffer(buf, size, &o, &t, &err), ZB_ECANCEL);
  ZB_CHECK(t == NULL);
  free(buf);
}

ZB_TEST(csv_read_file) {
  char path[] = "/tmp/zb_csv_testXXXXXX";
  int fd = mkstemp(path);
  ZB_CHECK(fd >= 0);
  if (fd < 0) return;
  const char *s = "a,b\n1,x\n2,y";
  ZB_CHECK(write(fd, s, strlen(s)) == (ssize_t)strlen(s));
  close(fd);
  zb_table *t = NULL;
  zb_error err = {{0}};
  ZB_CHECK_OK(zb_csv_read_file(path, NULL, &t, &err), &err);
  if (t) {
    ZB_CHECK_EQ_INT(t->num_rows, 2);
    CHECK_STR(str(col(t, "b"), 1), "y");
    zb_table_release(t);
    t = NULL;
  }
  fd = open(path, O_WRONLY | O_TRUNC);
  close(fd);
  ZB_CHECK_OK(zb_csv_read_file(path, NULL, &t, &err), &err); /* empty: read() path */
  if (t) ZB_CHECK_EQ_INT(t->num_columns, 0);
  zb_table_release(t);
  unlink(path);
  t = NULL;
  ZB_CHECK_EQ_INT(zb_csv_read_file("/nonexistent/x.csv", NULL, &t, &err), ZB_EIO);
  ZB_CHECK(strstr(err.message, "/nonexistent/x.csv") != NULL);
  ZB_CHECK_EQ_INT(zb_csv_read_file("/tmp", NULL, &t, &err), ZB_EIO);
}

ZB_TEST(csv_fail_every_allocation) {
  int64_t rows = 300, size;
  char *buf = gen_big(rows, &size);
  int saved = zb_get_num_threads();
  zb_error err;
  zb_set_num_threads(2, &err);
  zb_csv_options o;
  zb_csv_options_init(&o);
  o.chunk_size = 2000;
  zb_csv_dtype dt[] = {{"txt", ZB_CATEGORICAL}};
  zb_csv_warning w[4];
  zb_csv_warnings ws = {w, 4, 0, 0};
  o.warnings = &ws;
  o.on_bad_lines = ZB_CSV_BAD_LINES_WARN;
  zb_alloc_stats before, after;
  bool done = false;
  for (int pass = 0; pass < 3; pass++) {
    o.dtypes = pass == 1 ? dt : NULL;
    o.num_dtypes = pass == 1 ? 1 : 0;
    const char *data = buf;
    int64_t dsize = size;
    if (pass == 2) { /* inference that widens across batches and chunks */
      data = "i,z,s\n-0,1,a\n2,2,b\n3,3,c\n4,4.5,d\n5,5,e\n6,6,7\nx,7,f\n8,8,g\n\n9,9,h\n";
      dsize = (int64_t)strlen(data);
      o.chunk_size = 20;
    }
    done = false;
    int64_t iters = 0;
    for (int64_t n = 1; n < 100000 && !done; n++, iters++) {
      zb_alloc_get_stats(&before);
      zb_alloc_fail_after(n);
      zb_table *t = NULL;
      zb_status st = zb_csv_read_buffer(data, dsize, &o, &t, &err);
      zb_alloc_fail_after(0);
      if (st == ZB_OK) {
        done = true;
        if (pass < 2) {
          check_big(t, rows, pass ? ZB_CATEGORICAL : ZB_STRING);
        } else {
          ZB_CHECK_EQ_INT(col(t, "i")->type, ZB_STRING);
          ZB_CHECK_EQ_INT(col(t, "z")->type, ZB_FLOAT64);
          CHECK_STR(str(col(t, "i"), 0), "-0");
          CHECK_STR(str(col(t, "s"), 5), "7");
        }
        zb_table_release(t);
      } else if (st != ZB_ENOMEM) {
        zb_test_fail(__FILE__, __LINE__, "allocation %lld: %s: %s", (long long)n,
                     zb_status_name(st), err.message);
        break;
      } else {
        ZB_CHECK(t == NULL);
      }
      zb_alloc_get_stats(&after);
      if (after.host_bytes != before.host_bytes ||
          after.host_allocations != before.host_allocations) {
        zb_test_fail(__FILE__, __LINE__, "allocation %lld leaked %lld bytes", (long long)n,
                     (long long)(after.host_bytes - before.host_bytes));
        break;
      }
    }
    ZB_CHECK(done);
    if (pass == 2) printf("     (csv_fail_every_allocation: %lld allocations failed in turn)\n", (long long)iters);
    ZB_CHECK(iters > 20);
  }
  zb_set_num_threads(saved, &err);
  free(buf);
}

/* "k,v\n" then 100 lines "7,zambezi\n", as `zstd -c` wrote it (the frame
 * records its content size, 1004 bytes, and holds one compressed block). */
static const unsigned char k_zstd_frame[] = {
    0x28, 0xb5, 0x2f, 0xfd, 0x64, 0xec, 0x02, 0xa5, 0x00, 0x00, 0x68, 0x6b,
    0x2c, 0x76, 0x0a, 0x37, 0x2c, 0x7a, 0x61, 0x6d, 0x62, 0x65, 0x7a, 0x69,
    0x01, 0x00, 0xdc, 0x5b, 0x95, 0x2f, 0xf5, 0x2f, 0x99, 0xcf};

ZB_TEST(csv_zstd) {
  ZB_CHECK_EQ_INT(zb_compression_detect(k_zstd_frame, sizeof k_zstd_frame), ZB_COMPRESSION_ZSTD);
  ZB_CHECK_EQ_INT(zb_compression_detect("\x1f\x8b\x08", 3), ZB_COMPRESSION_GZIP);
  ZB_CHECK_EQ_INT(zb_compression_detect("a,b\n", 4), ZB_COMPRESSION_NONE);
  ZB_CHECK_EQ_INT(zb_compression_detect("\x28\xb5\x2f", 3), ZB_COMPRESSION_NONE);
  if (!zb_zstd_available()) ZB_SKIP("libzstd not installed; decompression not tested");
  zb_error err = {{0}};
  zb_buffer *b = NULL;
  ZB_CHECK_OK(zb_zstd_decompress(k_zstd_frame, sizeof k_zstd_frame, NULL, &b, &err), &err);
  if (b != NULL) {
    ZB_CHECK_EQ_INT(b->size, 4 + 100 * 10);
    const char *p = (const char *)b->data;
    bool same = b->size == 1004 && memcmp(p, "k,v\n", 4) == 0;
    for (int i = 0; same && i < 100; i++) same = memcmp(p + 4 + 10 * i, "7,zambezi\n", 10) == 0;
    ZB_CHECK(same);
    zb_buffer_release(b);
  }
  /* Truncated, and with a corrupted block. */
  ZB_CHECK_EQ_INT(zb_zstd_decompress(k_zstd_frame, sizeof k_zstd_frame - 6, NULL, &b, &err),
                  ZB_EPARSE);
  ZB_CHECK(b == NULL && strstr(err.message, "truncated zstd data") != NULL);
  unsigned char bad[sizeof k_zstd_frame];
  memcpy(bad, k_zstd_frame, sizeof bad);
  bad[20] ^= 0x01; /* a literal byte: the frame checksum no longer matches */
  ZB_CHECK_EQ_INT(zb_zstd_decompress(bad, sizeof bad, NULL, &b, &err), ZB_EPARSE);
  ZB_CHECK(b == NULL && strstr(err.message, "corrupt zstd data") != NULL);
  /* A .zst file read by zb_csv_read_file, and allocation failures. */
  char path[] = "/tmp/zb_csv_zstXXXXXX";
  int fd = mkstemp(path);
  ZB_CHECK(fd >= 0);
  if (fd < 0) return;
  ZB_CHECK(write(fd, k_zstd_frame, sizeof k_zstd_frame) == (ssize_t)sizeof k_zstd_frame);
  close(fd);
  zb_table *t = NULL;
  ZB_CHECK_OK(zb_csv_read_file(path, NULL, &t, &err), &err);
  if (t != NULL) {
    ZB_CHECK_EQ_INT(t->num_rows, 100);
    ZB_CHECK_EQ_INT(col(t, "k")->type, ZB_INT64);
    ZB_CHECK_EQ_INT(i64(col(t, "k"), 99), 7);
    CHECK_STR(str(col(t, "v"), 42), "zambezi");
    zb_table_release(t);
    t = NULL;
  }
  zb_alloc_stats before, after;
  zb_alloc_get_stats(&before);
  zb_alloc_fail_after(1);
  ZB_CHECK_EQ_INT(zb_csv_read_file(path, NULL, &t, &err), ZB_ENOMEM);
  zb_alloc_fail_after(0);
  fd = open(path, O_WRONLY | O_TRUNC);
  ZB_CHECK(write(fd, "\x1f\x8b\x08\x00", 4) == 4); /* a gzip header */
  close(fd);
  ZB_CHECK_EQ_INT(zb_csv_read_file(path, NULL, &t, &err), ZB_ENOTSUP);
  ZB_CHECK(t == NULL && strstr(err.message, "is gzip-compressed") != NULL);
  zb_alloc_fail_after(1);
  ZB_CHECK_EQ_INT(zb_csv_read_file(path, NULL, &t, &err), ZB_ENOTSUP); /* no allocation */
  zb_alloc_fail_after(0);
  zb_alloc_get_stats(&after);
  ZB_CHECK(t == NULL && after.host_bytes == before.host_bytes);
  unlink(path);
}

/* As pandas: a dtype given for a header name also reaches its renamed
 * repeats ("a.2", "a.3" here; "a.1" is the file's own name), unless the
 * dtypes name a repeat itself. */
ZB_TEST(csv_dtype_reaches_repeated_names) {
  zb_csv_options o;
  zb_csv_options_init(&o);
  zb_csv_dtype dt[] = {{"a", ZB_FLOAT64}, {"a.3", ZB_INT8}};
  o.dtypes = dt;
  o.num_dtypes = 1;
  const char *s = "a,a,a,a.1,a\n1,2,3,4,5\n";
  zb_table *t = rd_ok(s, &o);
  if (t) {
    ZB_CHECK_EQ_INT(col(t, "a")->type, ZB_FLOAT64);
    ZB_CHECK_EQ_INT(col(t, "a.2")->type, ZB_FLOAT64);
    ZB_CHECK_EQ_INT(col(t, "a.3")->type, ZB_FLOAT64);
    ZB_CHECK_EQ_INT(col(t, "a.4")->type, ZB_FLOAT64);
    ZB_CHECK_EQ_INT(col(t, "a.1")->type, ZB_INT64);
    ZB_CHECK(f64(col(t, "a.4"), 0) == 5.0);
    zb_table_release(t);
  }
  o.num_dtypes = 2;
  t = rd_ok(s, &o);
  if (t) {
    ZB_CHECK_EQ_INT(col(t, "a.3")->type, ZB_INT8);
    ZB_CHECK_EQ_INT(col(t, "a.4")->type, ZB_FLOAT64);
    ZB_CHECK_EQ_INT(col(t, "a.1")->type, ZB_INT64);
    zb_table_release(t);
  }
}
