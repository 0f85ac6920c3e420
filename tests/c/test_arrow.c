/*
 * test_arrow.c -- unit tests for the Arrow C Data / Stream Interface
 * (src/core/arrow.c) and zb_column_concat (src/core/concat.c).
 *
 * Oracles: columns are built here from plain formulas, exported and imported
 * back, and compared element by element (validity and value) against the
 * formulas' columns; hand-built ArrowArrays (int32 offsets, int8/uint64
 * dictionary indices, date64) are checked against the values written into
 * them; concatenations are checked row by row against their inputs.  A
 * fault-injection loop fails the N-th allocation for every N and checks each
 * run fails cleanly with ZB_ENOMEM and leaks nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "zambezi/arrow.h"

/* ---- building columns from formulas ------------------------------------- */

static bool row_valid(int64_t i) { return i % 5 != 2; }

static zb_status clear_nulls(zb_column *c) {
  for (int64_t i = 0; i < c->length; i++)
    if (!row_valid(i)) zb_bit_set((uint8_t *)c->validity->data, i, false);
  zb_column_recount_nulls(c);
  return ZB_OK;
}

static int str_of(int64_t i, char *buf) {
  /* "", "a1", "bb2b", ... some empty, lengths vary */
  int n = (int)(i % 4) * 2;
  for (int k = 0; k < n; k++) buf[k] = (char)('a' + (i + k) % 26);
  if (n > 0) buf[n - 1] = (char)('0' + i % 10);
  return n;
}

static const char *const k_dict_words[] = {"red", "green", "", "blue", "yellow"};

static zb_status make_string_column(int64_t n, bool nulls, zb_column **out, zb_error *err) {
  char buf[16];
  int64_t total = 0;
  for (int64_t i = 0; i < n; i++) total += str_of(i, buf);
  ZB_RETURN_NOT_OK(zb_column_new(ZB_STRING, n, nulls, total, out, err));
  int64_t *o = (int64_t *)(*out)->data->data;
  char *ch = (char *)(*out)->chars->data;
  o[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    int len = str_of(i, buf);
    memcpy(ch + o[i], buf, (size_t)len);
    o[i + 1] = o[i] + len;
  }
  if (nulls) clear_nulls(*out);
  return ZB_OK;
}

/* A string column of the given words (no nulls). */
static zb_status make_words(const char *const *w, int64_t n, zb_column **out, zb_error *err) {
  int64_t total = 0;
  for (int64_t i = 0; i < n; i++) total += (int64_t)strlen(w[i]);
  ZB_RETURN_NOT_OK(zb_column_new(ZB_STRING, n, false, total, out, err));
  int64_t *o = (int64_t *)(*out)->data->data;
  char *ch = (char *)(*out)->chars->data;
  o[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t len = (int64_t)strlen(w[i]);
    memcpy(ch + o[i], w[i], (size_t)len);
    o[i + 1] = o[i] + len;
  }
  return ZB_OK;
}

/* Categorical over `dict_words` with codes code_of(i) = (i * 3 + shift) % ndict. */
static zb_status make_categorical(const char *const *dict_words, int64_t ndict, int64_t n,
                                  int64_t shift, bool nulls, zb_column **out, zb_error *err) {
  zb_column *dict = NULL;
  zb_buffer *codes = NULL, *validity = NULL;
  zb_status st = make_words(dict_words, ndict, &dict, err);
  if (st == ZB_OK) st = zb_buffer_new(ZB_CPU, n * 4, &codes, err);
  if (st == ZB_OK && nulls) st = zb_buffer_new_zeroed(ZB_CPU, (n + 7) / 8, &validity, err);
  if (st == ZB_OK) {
    int32_t *c = (int32_t *)codes->data;
    for (int64_t i = 0; i < n; i++) {
      c[i] = (int32_t)((i * 3 + shift) % ndict);
      if (validity != NULL) zb_bit_set((uint8_t *)validity->data, i, row_valid(i));
    }
    st = zb_column_make(ZB_CATEGORICAL, n, 0, validity, codes, NULL, dict, -1, out, err);
  }
  zb_column_release(dict);
  zb_buffer_release(codes);
  zb_buffer_release(validity);
  return st;
}

static zb_status make_column(zb_type_id type, int64_t n, zb_column **out, zb_error *err) {
  *out = NULL;
  if (type == ZB_STRING) return make_string_column(n, true, out, err);
  if (type == ZB_CATEGORICAL) return make_categorical(k_dict_words, 5, n, 1, true, out, err);
  ZB_RETURN_NOT_OK(zb_column_new(type, n, true, 0, out, err));
  void *d = (*out)->data->data;
  for (int64_t i = 0; i < n; i++) {
    int64_t v = i * 7 - 20;
    switch (type) {
      case ZB_BOOL: zb_bit_set((uint8_t *)d, i, (i * 3) % 4 == 1); break;
      case ZB_INT8: ((int8_t *)d)[i] = (int8_t)v; break;
      case ZB_UINT8: ((uint8_t *)d)[i] = (uint8_t)(i * 5); break;
      case ZB_INT16: ((int16_t *)d)[i] = (int16_t)(v * 300); break;
      case ZB_UINT16: ((uint16_t *)d)[i] = (uint16_t)(i * 1001); break;
      case ZB_INT32: ((int32_t *)d)[i] = (int32_t)(v * 100000); break;
      case ZB_UINT32: ((uint32_t *)d)[i] = (uint32_t)(i * 100000007u); break;
      case ZB_INT64: ((int64_t *)d)[i] = v * 1000000000000LL; break;
      case ZB_UINT64: ((uint64_t *)d)[i] = (uint64_t)i * 0x9e3779b97f4a7c15ull; break;
      case ZB_FLOAT32: ((float *)d)[i] = (float)v * 0.25f; break;
      case ZB_FLOAT64: ((double *)d)[i] = (double)v / 3.0; break;
      case ZB_DATE32: ((int32_t *)d)[i] = (int32_t)(v * 97); break;
      case ZB_TIMESTAMP: ((int64_t *)d)[i] = v * 1000003; break;
      case ZB_DURATION: ((int64_t *)d)[i] = -v * 7919; break;
      default: break;
    }
  }
  clear_nulls(*out);
  if (type == ZB_TIMESTAMP || type == ZB_DURATION) {
    zb_status st = zb_column_set_time(*out, type == ZB_TIMESTAMP ? ZB_NANO : ZB_MILLI,
                                      type == ZB_TIMESTAMP ? "Europe/Paris" : NULL, err);
    if (st != ZB_OK) {
      zb_column_release(*out);
      *out = NULL;
      return st;
    }
  }
  return ZB_OK;
}

/* ---- comparing ---------------------------------------------------------- */

static void str_at(const zb_column *c, int64_t i, const char **p, int64_t *len) {
  const int64_t *o = (const int64_t *)c->data->data;
  *p = (const char *)c->chars->data + o[c->offset + i];
  *len = o[c->offset + i + 1] - o[c->offset + i];
}

/* The decoded string of row i of a string or categorical column. */
static void text_at(const zb_column *c, int64_t i, const char **p, int64_t *len) {
  if (c->type == ZB_CATEGORICAL) {
    int32_t code = ((const int32_t *)c->data->data)[c->offset + i];
    str_at(c->dictionary, code, p, len);
  } else {
    str_at(c, i, p, len);
  }
}

static bool value_equal(const zb_column *a, int64_t i, const zb_column *b, int64_t j) {
  switch (a->type) {
    case ZB_BOOL:
      return zb_bit_get((const uint8_t *)a->data->data, a->offset + i) ==
             zb_bit_get((const uint8_t *)b->data->data, b->offset + j);
    case ZB_STRING:
    case ZB_CATEGORICAL: {
      const char *pa, *pb;
      int64_t la, lb;
      text_at(a, i, &pa, &la);
      text_at(b, j, &pb, &lb);
      return la == lb && memcmp(pa, pb, (size_t)la) == 0;
    }
    default: {
      int w = zb_type_width(a->type);
      return memcmp((const char *)a->data->data + (a->offset + i) * w,
                    (const char *)b->data->data + (b->offset + j) * w, (size_t)w) == 0;
    }
  }
}

/* Rows [ao, ao + n) of a equal rows [bo, bo + n) of b. */
static bool rows_equal(const zb_column *a, int64_t ao, const zb_column *b, int64_t bo,
                       int64_t n) {
  if (a->type != b->type) return false;
  for (int64_t k = 0; k < n; k++) {
    bool va = zb_column_is_valid(a, ao + k), vb = zb_column_is_valid(b, bo + k);
    if (va != vb) return false;
    if (va && !value_equal(a, ao + k, b, bo + k)) return false;
  }
  return true;
}

static bool columns_equal(const zb_column *a, const zb_column *b) {
  if (a->type != b->type || a->length != b->length || a->null_count != b->null_count)
    return false;
  if (a->type == ZB_DURATION && a->unit != b->unit) return false;
  if (a->type == ZB_TIMESTAMP) {
    if (a->unit != b->unit) return false;
    if ((a->timezone == NULL) != (b->timezone == NULL)) return false;
    if (a->timezone != NULL && strcmp(a->timezone, b->timezone) != 0) return false;
  }
  return rows_equal(a, 0, b, 0, a->length);
}

static const char *expected_format(const zb_column *c) {
  static char ts[300];
  switch (c->type) {
    case ZB_BOOL: return "b";
    case ZB_INT8: return "c";
    case ZB_UINT8: return "C";
    case ZB_INT16: return "s";
    case ZB_UINT16: return "S";
    case ZB_INT32: return "i";
    case ZB_UINT32: return "I";
    case ZB_INT64: return "l";
    case ZB_UINT64: return "L";
    case ZB_FLOAT32: return "f";
    case ZB_FLOAT64: return "g";
    case ZB_STRING: return "U";
    case ZB_CATEGORICAL: return "i";
    case ZB_DATE32: return "tdD";
    case ZB_TIMESTAMP:
      snprintf(ts, sizeof ts, "ts%c:%s", "smun"[c->unit], c->timezone ? c->timezone : "");
      return ts;
    case ZB_DURATION:
      snprintf(ts, sizeof ts, "tD%c", "smun"[c->unit]);
      return ts;
    default: return "?";
  }
}

/* ---- round trips -------------------------------------------------------- */

static void roundtrip_one(const zb_column *c, zb_type_id type) {
  zb_error err = {{0}};
  struct ArrowSchema schema;
  struct ArrowArray array;
  ZB_CHECK_OK(zb_column_export_arrow(c, "x", &schema, &array, &err), &err);
  ZB_CHECK(schema.release != NULL && array.release != NULL);
  ZB_CHECK(strcmp(schema.format, expected_format(c)) == 0);
  ZB_CHECK(strcmp(schema.name, "x") == 0);
  ZB_CHECK(schema.flags & ARROW_FLAG_NULLABLE);
  ZB_CHECK_EQ_INT(array.length, c->length);
  ZB_CHECK_EQ_INT(array.offset, c->offset);
  ZB_CHECK_EQ_INT(array.null_count, c->null_count);
  ZB_CHECK_EQ_INT(array.n_buffers, type == ZB_STRING ? 3 : 2);
  ZB_CHECK((array.buffers[0] == NULL) == (c->null_count == 0));
  if (type == ZB_CATEGORICAL) {
    ZB_CHECK(schema.dictionary != NULL && strcmp(schema.dictionary->format, "U") == 0);
    ZB_CHECK(array.dictionary != NULL && array.dictionary->length == c->dictionary->length);
  }
  /* Spec-level check of the exported buffers for strings: the offsets and
   * characters read through the ArrowArray give the original strings. */
  if (type == ZB_STRING) {
    const int64_t *o = (const int64_t *)array.buffers[1];
    const char *ch = (const char *)array.buffers[2];
    for (int64_t i = 0; i < array.length; i++) {
      const char *p;
      int64_t len;
      str_at(c, i, &p, &len);
      int64_t s = o[array.offset + i], e = o[array.offset + i + 1];
      ZB_CHECK(e - s == len && memcmp(ch + s, p, (size_t)len) == 0);
    }
  }
  zb_column *back = NULL;
  ZB_CHECK_OK(zb_column_import_arrow(&schema, &array, &back, &err), &err);
  ZB_CHECK(array.release == NULL); /* moved */
  schema.release(&schema);
  ZB_CHECK(schema.release == NULL);
  if (back == NULL) return;
  if (!columns_equal(c, back))
    zb_test_fail(__FILE__, __LINE__, "round trip of %s (offset %lld, length %lld) differs",
                 zb_type_name(type), (long long)c->offset, (long long)c->length);
  /* Zero-copy: the imported column shares the original data buffer. */
  ZB_CHECK(back->data->data == c->data->data);
  zb_column_release(back);
}

ZB_TEST(test_arrow_roundtrip_every_type) {
  zb_error err = {{0}};
  for (int t = 0; t < ZB_LIST; t++) { /* lists: test_list.c */
    zb_column *c = NULL, *s = NULL;
    ZB_CHECK_OK(make_column((zb_type_id)t, 40, &c, &err), &err);
    if (c == NULL) continue;
    ZB_CHECK(c->null_count > 0);
    roundtrip_one(c, (zb_type_id)t);
    ZB_CHECK_OK(zb_column_slice(c, 3, 13, &s, &err), &err);
    ZB_CHECK_EQ_INT(s->offset, 3);
    roundtrip_one(s, (zb_type_id)t);
    zb_column_release(s);
    /* A slice without nulls exports no validity bitmap. */
    ZB_CHECK_OK(zb_column_slice(c, 3, 2, &s, &err), &err);
    ZB_CHECK_EQ_INT(s->null_count, 0);
    roundtrip_one(s, (zb_type_id)t);
    zb_column_release(s);
    zb_column_release(c);
  }
}

ZB_TEST(test_arrow_export_timestamp_formats) {
  zb_error err = {{0}};
  static const char *const want[4] = {"tss:", "tsm:", "tsu:UTC", "tsn:+01:00"};
  static const char *const tz[4] = {NULL, NULL, "UTC", "+01:00"};
  for (int u = 0; u < 4; u++) {
    zb_column *c = NULL;
    ZB_CHECK_OK(make_column(ZB_TIMESTAMP, 10, &c, &err), &err);
    ZB_CHECK_OK(zb_column_set_time(c, (zb_time_unit)u, tz[u], &err), &err);
    struct ArrowSchema s;
    ZB_CHECK_OK(zb_column_export_schema(c, NULL, &s, &err), &err);
    ZB_CHECK(strcmp(s.format, want[u]) == 0);
    ZB_CHECK(s.name == NULL);
    s.release(&s);
    roundtrip_one(c, ZB_TIMESTAMP);
    zb_column_release(c);
  }
}

ZB_TEST(test_arrow_export_device_column_is_an_error) {
  zb_error err = {{0}};
  zb_column fake;
  memset(&fake, 0, sizeof fake);
  fake.type = ZB_INT32;
  fake.device.kind = ZB_DEVICE_CUDA;
  struct ArrowSchema s;
  struct ArrowArray a;
  s.release = (void (*)(struct ArrowSchema *))1;
  a.release = (void (*)(struct ArrowArray *))1;
  ZB_CHECK_EQ_INT(zb_column_export_arrow(&fake, "g", &s, &a, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "export needs host memory; call to(cpu) first") != NULL);
  ZB_CHECK(s.release == NULL && a.release == NULL);
}

/* ---- hand-built arrays -------------------------------------------------- */

/* A producer-side array: buffers owned by the test, release counts calls. */
typedef struct hand_array {
  struct ArrowArray array;
  const void *buffers[3];
  struct ArrowArray dict;
  const void *dict_buffers[3];
  int released;
} hand_array;

static int g_hand_releases;

static void hand_release(struct ArrowArray *a) {
  if (a->dictionary != NULL && a->dictionary->release != NULL)
    a->dictionary->release(a->dictionary);
  g_hand_releases++;
  a->release = NULL;
}

static void hand_child_release(struct ArrowArray *a) { a->release = NULL; }

static void hand_schema_release(struct ArrowSchema *s) { s->release = NULL; }

static struct ArrowSchema hand_schema(const char *format, const char *name) {
  struct ArrowSchema s;
  memset(&s, 0, sizeof s);
  s.format = format;
  s.name = name;
  s.flags = ARROW_FLAG_NULLABLE;
  s.release = hand_schema_release;
  return s;
}

static void hand_init(hand_array *h, int64_t length, int64_t offset, int64_t null_count,
                      int n_buffers, const void *b0, const void *b1, const void *b2) {
  memset(h, 0, sizeof *h);
  h->buffers[0] = b0;
  h->buffers[1] = b1;
  h->buffers[2] = b2;
  h->array.length = length;
  h->array.offset = offset;
  h->array.null_count = null_count;
  h->array.n_buffers = n_buffers;
  h->array.buffers = h->buffers;
  h->array.release = hand_release;
}

/* h's dictionary: a utf8 ("u") array of length strings. */
static void hand_set_dict(hand_array *h, const int32_t *offs, const char *chars,
                          int64_t length) {
  h->dict_buffers[1] = offs;
  h->dict_buffers[2] = chars;
  h->dict.length = length;
  h->dict.n_buffers = 3;
  h->dict.buffers = h->dict_buffers;
  h->dict.release = hand_child_release;
  h->array.dictionary = &h->dict;
}

ZB_TEST(test_arrow_import_utf8_int32_offsets) {
  zb_error err = {{0}};
  /* rows: "xx" "" "hello" null "é" "end"; offset 1 -> "", "hello", null, "é", "end" */
  static const int32_t offs[7] = {0, 2, 2, 7, 7, 9, 12};
  static const char chars[] = "xxhelloéend";
  static const uint8_t valid[1] = {0x37}; /* bit 3 clear */
  hand_array h;
  hand_init(&h, 5, 1, 1, 3, valid, offs, chars);
  struct ArrowSchema s = hand_schema("u", "words");
  zb_column *c = NULL;
  g_hand_releases = 0;
  ZB_CHECK_OK(zb_column_import_arrow(&s, &h.array, &c, &err), &err);
  ZB_CHECK(h.array.release == NULL);
  ZB_CHECK_EQ_INT(g_hand_releases, 0);
  if (c == NULL) return;
  ZB_CHECK_EQ_INT(c->type, ZB_STRING);
  ZB_CHECK_EQ_INT(c->length, 5);
  ZB_CHECK_EQ_INT(c->null_count, 1);
  static const char *const want[5] = {"", "hello", NULL, "\xc3\xa9", "end"};
  for (int64_t i = 0; i < 5; i++) {
    ZB_CHECK(zb_column_is_valid(c, i) == (want[i] != NULL));
    if (want[i] == NULL) continue;
    const char *p;
    int64_t len;
    str_at(c, i, &p, &len);
    ZB_CHECK(len == (int64_t)strlen(want[i]) && memcmp(p, want[i], (size_t)len) == 0);
  }
  ZB_CHECK(c->chars->data == (void *)chars); /* characters shared */
  zb_column *keep = NULL;
  ZB_CHECK_OK(zb_column_slice(c, 1, 2, &keep, &err), &err);
  zb_column_release(c);
  ZB_CHECK_EQ_INT(g_hand_releases, 0); /* the slice still shares the chars */
  zb_column_release(keep);
  ZB_CHECK_EQ_INT(g_hand_releases, 1);

  /* Decreasing offsets are rejected and the array stays with the caller. */
  static const int32_t bad[4] = {0, 5, 3, 7};
  hand_init(&h, 3, 0, 0, 3, NULL, bad, chars);
  ZB_CHECK_EQ_INT(zb_column_import_arrow(&s, &h.array, &c, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "words") != NULL);
  ZB_CHECK(h.array.release != NULL && c == NULL);
  h.array.release(&h.array);
  /* Wrong buffer count. */
  hand_init(&h, 3, 0, 0, 2, NULL, offs, NULL);
  ZB_CHECK_EQ_INT(zb_column_import_arrow(&s, &h.array, &c, &err), ZB_EINVAL);
  ZB_CHECK(h.array.release != NULL);
  h.array.release(&h.array);
}

ZB_TEST(test_arrow_import_dictionary_indices) {
  zb_error err = {{0}};
  static const int32_t doffs[4] = {0, 3, 8, 12};
  static const char dchars[] = "catmouse bird"; /* "cat" "mouse" " bir" */
  static const int8_t idx8[6] = {2, 0, 1, 1, 99, 0}; /* row 4 is null: 99 ignored */
  static const uint8_t valid[1] = {0x2f};
  hand_array h;
  hand_init(&h, 6, 0, -1, 2, valid, idx8, NULL);
  hand_set_dict(&h, doffs, dchars, 3);
  struct ArrowSchema s = hand_schema("c", "animal");
  struct ArrowSchema ds = hand_schema("u", NULL);
  s.dictionary = &ds;
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_import_arrow(&s, &h.array, &c, &err), &err);
  if (c != NULL) {
    ZB_CHECK_EQ_INT(c->type, ZB_CATEGORICAL);
    ZB_CHECK_EQ_INT(c->null_count, 1);
    static const char *const want[6] = {" bir", "cat", "mouse", "mouse", NULL, "cat"};
    for (int64_t i = 0; i < 6; i++) {
      ZB_CHECK(zb_column_is_valid(c, i) == (want[i] != NULL));
      if (want[i] == NULL) continue;
      const char *p;
      int64_t len;
      text_at(c, i, &p, &len);
      ZB_CHECK(len == (int64_t)strlen(want[i]) && memcmp(p, want[i], (size_t)len) == 0);
    }
    zb_column_release(c);
  }

  /* uint64 indices: one >= 2^31 is an overflow error, array not consumed. */
  static const uint64_t idx64[3] = {1, 0x80000000ull, 2};
  hand_init(&h, 3, 0, 0, 2, NULL, idx64, NULL);
  hand_set_dict(&h, doffs, dchars, 3);
  s.format = "L";
  ZB_CHECK_EQ_INT(zb_column_import_arrow(&s, &h.array, &c, &err), ZB_EOVERFLOW);
  ZB_CHECK(strstr(err.message, "animal") != NULL && strstr(err.message, "2^31") != NULL);
  ZB_CHECK(h.array.release != NULL && h.dict.release != NULL);
  /* An in-range uint64 index works. */
  static const uint64_t ok64[3] = {1, 0, 2};
  h.buffers[1] = ok64;
  ZB_CHECK_OK(zb_column_import_arrow(&s, &h.array, &c, &err), &err);
  ZB_CHECK(h.array.release == NULL);
  if (c != NULL) {
    ZB_CHECK_EQ_INT(((int32_t *)c->data->data)[c->offset + 2], 2);
    zb_column_release(c);
  }
  /* An index outside the dictionary. */
  static const int32_t idx32[2] = {0, 3};
  hand_init(&h, 2, 0, 0, 2, NULL, idx32, NULL);
  hand_set_dict(&h, doffs, dchars, 3);
  s.format = "i";
  ZB_CHECK_EQ_INT(zb_column_import_arrow(&s, &h.array, &c, &err), ZB_EINVAL);
  /* A dictionary holding a null. */
  static const uint8_t dvalid[1] = {0x5};
  h.dict_buffers[0] = dvalid;
  h.dict.null_count = 1;
  h.buffers[1] = idx8;
  s.format = "c";
  ZB_CHECK_EQ_INT(zb_column_import_arrow(&s, &h.array, &c, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "nulls") != NULL);
  ZB_CHECK(h.array.release != NULL);
  h.array.release(&h.array);
  ZB_CHECK(h.dict.release == NULL);
}

/* A dictionary that repeats a string ("cat" at 0 and 2), codes at an
 * offset with a null row: import folds the repeat onto the first code. */
static zb_status import_repeating_dictionary(zb_column **out, zb_error *err) {
  static const int32_t doffs[5] = {0, 3, 6, 9, 9};
  static const char dchars[] = "catdogcat";
  static const int32_t idx[7] = {1, 0, 1, 2, 2, 7, 3}; /* offset 1; row 4 null (7 ignored) */
  static const uint8_t valid[1] = {0x5f};              /* bit 5 clear */
  static hand_array h;
  hand_init(&h, 6, 1, 1, 2, valid, idx, NULL);
  hand_set_dict(&h, doffs, dchars, 4);
  struct ArrowSchema s = hand_schema("i", "pet");
  struct ArrowSchema ds = hand_schema("u", NULL);
  s.dictionary = &ds;
  zb_status st = zb_column_import_arrow(&s, &h.array, out, err);
  if (h.array.release != NULL) h.array.release(&h.array); /* not consumed on failure */
  return st;
}

ZB_TEST(test_arrow_import_dictionary_repeating_a_string) {
  zb_error err = {{0}};
  zb_column *c = NULL;
  ZB_CHECK_OK(import_repeating_dictionary(&c, &err), &err);
  if (c == NULL) return;
  /* distinct strings in order of first appearance: cat, dog, "" */
  ZB_CHECK_EQ_INT(c->dictionary->length, 3);
  static const char *const want[6] = {"cat", "dog", "cat", "cat", NULL, ""};
  static const int32_t codes[6] = {0, 1, 0, 0, -1, 2};
  for (int64_t i = 0; i < 6; i++) {
    ZB_CHECK(zb_column_is_valid(c, i) == (want[i] != NULL));
    if (want[i] == NULL) continue;
    ZB_CHECK_EQ_INT(((const int32_t *)c->data->data)[c->offset + i], codes[i]);
    const char *p;
    int64_t len;
    text_at(c, i, &p, &len);
    ZB_CHECK(len == (int64_t)strlen(want[i]) && memcmp(p, want[i], (size_t)len) == 0);
  }
  zb_column_release(c);
}

static zb_status fi_repeating_dictionary_run(zb_error *err) {
  zb_column *c = NULL;
  zb_status st = import_repeating_dictionary(&c, err);
  zb_column_release(c);
  return st;
}

ZB_TEST(test_arrow_import_dates_and_timestamps) {
  zb_error err = {{0}};
  static const int64_t ms[5] = {0, 86399999, 86400000, -1, -86400001};
  static const int32_t want[5] = {0, 0, 1, -1, -2};
  hand_array h;
  hand_init(&h, 5, 0, 0, 2, NULL, ms, NULL);
  struct ArrowSchema s = hand_schema("tdm", "d");
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_import_arrow(&s, &h.array, &c, &err), &err);
  if (c != NULL) {
    ZB_CHECK_EQ_INT(c->type, ZB_DATE32);
    for (int i = 0; i < 5; i++)
      ZB_CHECK_EQ_INT(((int32_t *)c->data->data)[c->offset + i], want[i]);
    zb_column_release(c);
  }
  static const char *const fmts[5] = {"tss:", "tsm:UTC", "tsu:America/New_York", "tsn:",
                                      "tdD"};
  for (int f = 0; f < 5; f++) {
    hand_init(&h, 4, 1, 0, 2, NULL, ms, NULL);
    s.format = fmts[f];
    ZB_CHECK_OK(zb_column_import_arrow(&s, &h.array, &c, &err), &err);
    if (c == NULL) continue;
    if (f < 4) {
      ZB_CHECK_EQ_INT(c->type, ZB_TIMESTAMP);
      ZB_CHECK_EQ_INT(c->unit, f);
      const char *tz = strchr(fmts[f], ':') + 1;
      ZB_CHECK(tz[0] == '\0' ? c->timezone == NULL : strcmp(c->timezone, tz) == 0);
      ZB_CHECK_EQ_INT(((int64_t *)c->data->data)[c->offset + 2], -1);
    } else {
      ZB_CHECK_EQ_INT(c->type, ZB_DATE32);
    }
    zb_column_release(c);
  }
}

ZB_TEST(test_arrow_import_unsupported_formats) {
  zb_error err = {{0}};
  static const char *const fmts[5] = {"e", "vu", "+m", "n", "w:16"};
  static const int64_t zeros[4] = {0};
  for (int f = 0; f < 5; f++) {
    hand_array h;
    hand_init(&h, 0, 0, 0, 2, NULL, zeros, NULL);
    struct ArrowSchema s = hand_schema(fmts[f], "weird");
    zb_column *c = NULL;
    ZB_CHECK_EQ_INT(zb_column_import_arrow(&s, &h.array, &c, &err), ZB_ENOTSUP);
    ZB_CHECK(strstr(err.message, "weird") != NULL);
    if (f != 3) ZB_CHECK(strstr(err.message, fmts[f]) != NULL);
    ZB_CHECK(h.array.release != NULL);
    h.array.release(&h.array);
  }
}

/* ---- tables and streams ------------------------------------------------- */

static zb_status make_table(int64_t n, zb_table **out, zb_error *err) {
  static const zb_type_id types[5] = {ZB_INT64, ZB_STRING, ZB_CATEGORICAL, ZB_BOOL,
                                      ZB_TIMESTAMP};
  static const char *const names[5] = {"id", "name", "color", "flag", "when"};
  zb_column *cols[5] = {NULL};
  zb_status st = ZB_OK;
  for (int i = 0; i < 5 && st == ZB_OK; i++) st = make_column(types[i], n, &cols[i], err);
  if (st == ZB_OK) st = zb_table_make(5, cols, names, out, err);
  for (int i = 0; i < 5; i++) zb_column_release(cols[i]);
  return st;
}

static bool tables_equal(const zb_table *a, const zb_table *b) {
  if (a->num_columns != b->num_columns || a->num_rows != b->num_rows) return false;
  for (int64_t i = 0; i < a->num_columns; i++) {
    if (strcmp(a->names[i], b->names[i]) != 0) return false;
    if (!columns_equal(a->columns[i], b->columns[i])) return false;
  }
  return true;
}

ZB_TEST(test_arrow_table_roundtrip_and_moves) {
  zb_error err = {{0}};
  zb_table *t = NULL, *back = NULL;
  ZB_CHECK_OK(make_table(30, &t, &err), &err);
  if (t == NULL) return;
  struct ArrowSchema s;
  struct ArrowArray a;
  ZB_CHECK_OK(zb_table_export_arrow(t, &s, &a, &err), &err);
  ZB_CHECK(strcmp(s.format, "+s") == 0 && s.n_children == 5 && a.n_children == 5);
  ZB_CHECK(strcmp(s.children[2]->name, "color") == 0);
  ZB_CHECK(strcmp(s.children[4]->format, "tsn:Europe/Paris") == 0);
  ZB_CHECK_OK(zb_table_import_arrow(&s, &a, &back, &err), &err);
  ZB_CHECK(back != NULL && tables_equal(t, back));
  zb_table_release(back);
  s.release(&s);

  /* Consumer moves a child out, releases the parent, then the child. */
  ZB_CHECK_OK(zb_table_export_arrow(t, &s, &a, &err), &err);
  struct ArrowArray child = *a.children[1];
  a.children[1]->release = NULL;
  struct ArrowSchema cs = *s.children[1];
  s.children[1]->release = NULL;
  a.release(&a);
  s.release(&s);
  ZB_CHECK(a.release == NULL && s.release == NULL);
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_import_arrow(&cs, &child, &c, &err), &err);
  ZB_CHECK(c != NULL && columns_equal(c, t->columns[1]));
  zb_column_release(c);
  cs.release(&cs);
  zb_table_release(t);
}

ZB_TEST(test_arrow_table_import_struct_offset_and_duplicates) {
  zb_error err = {{0}};
  zb_table *t = NULL, *back = NULL;
  ZB_CHECK_OK(make_table(30, &t, &err), &err);
  if (t == NULL) return;
  struct ArrowSchema s;
  struct ArrowArray a;
  /* A struct array with its own offset/length slices every child. */
  ZB_CHECK_OK(zb_table_export_arrow(t, &s, &a, &err), &err);
  a.offset = 5;
  a.length = 11;
  ZB_CHECK_OK(zb_table_import_arrow(&s, &a, &back, &err), &err);
  if (back != NULL) {
    ZB_CHECK_EQ_INT(back->num_rows, 11);
    for (int64_t i = 0; i < 5; i++)
      ZB_CHECK(rows_equal(t->columns[i], 5, back->columns[i], 0, 11));
    zb_table_release(back);
  }
  s.release(&s);
  /* Duplicate names are an error naming the column. */
  ZB_CHECK_OK(zb_table_export_arrow(t, &s, &a, &err), &err);
  const char *saved = s.children[3]->name;
  s.children[3]->name = "name";
  ZB_CHECK_EQ_INT(zb_table_import_arrow(&s, &a, &back, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "'name'") != NULL);
  ZB_CHECK(a.release != NULL && back == NULL);
  s.children[3]->name = saved;
  /* A non-struct root is refused. */
  ZB_CHECK_EQ_INT(zb_table_import_arrow(s.children[0], &a, &back, &err), ZB_EINVAL);
  a.release(&a);
  s.release(&s);
  zb_table_release(t);
}

ZB_TEST(test_arrow_stream_roundtrip) {
  zb_error err = {{0}};
  zb_table *t = NULL, *back = NULL;
  ZB_CHECK_OK(make_table(50, &t, &err), &err);
  if (t == NULL) return;
  struct ArrowArrayStream st;
  ZB_CHECK_OK(zb_table_export_stream(t, &st, &err), &err);
  ZB_CHECK_OK(zb_table_import_stream(&st, &back, &err), &err);
  ZB_CHECK(st.release == NULL);
  ZB_CHECK(back != NULL && tables_equal(t, back));
  /* One batch: no copy. */
  if (back != NULL) ZB_CHECK(back->columns[0]->data->data == t->columns[0]->data->data);
  zb_table_release(back);
  zb_table_release(t);
}

/* Schema metadata in the C Data Interface encoding: {"pandas": "{}", "k": ""}. */
static const unsigned char k_meta[] = {
    2, 0, 0, 0,                         /* two pairs (little-endian int32) */
    6, 0, 0, 0, 'p', 'a', 'n', 'd', 'a', 's', 2, 0, 0, 0, '{', '}',
    1, 0, 0, 0, 'k', 0, 0, 0, 0,        /* an empty value */
};

static bool little_endian(void) {
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

ZB_TEST(test_arrow_schema_metadata) {
  if (!little_endian()) return; /* the bytes above are written little-endian */
  zb_error err = {{0}};
  zb_table *t = NULL, *back = NULL;
  ZB_CHECK_OK(make_table(7, &t, &err), &err);
  if (t == NULL) return;
  /* the schema of a stream carries a copy of the bytes, freed with it */
  unsigned char copy[sizeof k_meta];
  memcpy(copy, k_meta, sizeof k_meta);
  struct ArrowArrayStream st;
  ZB_CHECK_OK(zb_table_export_stream_with_metadata(t, copy, (int64_t)sizeof copy, &st, &err),
              &err);
  memset(copy, 0xff, sizeof copy); /* the stream does not point at the caller's bytes */
  struct ArrowSchema schema;
  ZB_CHECK_EQ_INT(st.get_schema(&st, &schema), 0);
  ZB_CHECK(schema.metadata != NULL && memcmp(schema.metadata, k_meta, sizeof k_meta) == 0);
  ZB_CHECK_EQ_INT(schema.n_children, t->num_columns);
  schema.release(&schema);
  ZB_CHECK_OK(zb_table_import_stream(&st, &back, &err), &err);
  ZB_CHECK(back != NULL && tables_equal(t, back));
  zb_table_release(back);
  /* without metadata the field stays NULL */
  ZB_CHECK_OK(zb_table_export_schema(t, &schema, &err), &err);
  ZB_CHECK(schema.metadata == NULL);
  schema.release(&schema);
  /* malformed bytes are refused: a length past the end, trailing bytes, a
   * negative count, a size without bytes */
  unsigned char bad[sizeof k_meta + 1];
  memcpy(bad, k_meta, sizeof k_meta);
  bad[sizeof k_meta] = 0;
  ZB_CHECK_EQ_INT(zb_table_export_schema_with_metadata(t, bad, (int64_t)sizeof bad, &schema,
                                                       &err),
                  ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "metadata") != NULL);
  ZB_CHECK_EQ_INT(zb_table_export_schema_with_metadata(t, k_meta, (int64_t)sizeof k_meta - 1,
                                                       &schema, &err),
                  ZB_EINVAL);
  const unsigned char negative[4] = {0xff, 0xff, 0xff, 0xff};
  ZB_CHECK_EQ_INT(zb_table_export_schema_with_metadata(t, negative, 4, &schema, &err),
                  ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_table_export_stream_with_metadata(t, NULL, 4, &st, &err), ZB_EINVAL);
  ZB_CHECK(st.release == NULL);
  zb_table_release(t);
}

static zb_status fi_metadata_run(zb_error *err) {
  zb_table *t = NULL, *back = NULL;
  struct ArrowArrayStream s;
  zb_status st = make_table(6, &t, err);
  if (st == ZB_OK) st = zb_table_export_stream_with_metadata(t, k_meta, sizeof k_meta, &s, err);
  if (st == ZB_OK) {
    struct ArrowSchema schema;
    int rc = s.get_schema(&s, &schema);
    if (rc == 0) {
      ZB_CHECK(memcmp(schema.metadata, k_meta, sizeof k_meta) == 0);
      schema.release(&schema);
    } else {
      st = ZB_ENOMEM;
    }
    if (st == ZB_OK) {
      st = zb_table_import_stream(&s, &back, err);
      if (st == ZB_EIO && strstr(err->message, "(errno 12)") != NULL) st = ZB_ENOMEM;
    } else {
      s.release(&s);
    }
  }
  zb_table_release(back);
  zb_table_release(t);
  return st;
}

static void fault_loop(zb_status (*run)(zb_error *), const char *what);

ZB_TEST(test_arrow_fault_injection_metadata) {
  if (!little_endian()) return;
  fault_loop(fi_metadata_run, "stream export with schema metadata");
}

/* A producer stream yielding slices of a table as separate batches, the
 * categorical column of each batch with a different dictionary. */
typedef struct multi_stream {
  zb_table *parts[3];
  int next;
  int fail_at; /* -1: never */
} multi_stream;

static int ms_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  multi_stream *m = (multi_stream *)s->private_data;
  zb_status st = zb_table_export_schema(m->parts[0], out, NULL);
  return st == ZB_OK ? 0 : st == ZB_ENOMEM ? ENOMEM : EINVAL;
}
static int ms_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  multi_stream *m = (multi_stream *)s->private_data;
  if (m->next == m->fail_at) return EIO;
  if (m->next == 3) {
    out->release = NULL;
    return 0;
  }
  struct ArrowSchema tmp;
  zb_status st = zb_table_export_arrow(m->parts[m->next++], &tmp, out, NULL);
  if (st != ZB_OK) return ENOMEM;
  tmp.release(&tmp);
  return 0;
}
static const char *ms_last_error(struct ArrowArrayStream *s) {
  (void)s;
  return "disk on fire";
}
static void ms_release(struct ArrowArrayStream *s) {
  multi_stream *m = (multi_stream *)s->private_data;
  for (int i = 0; i < 3; i++) zb_table_release(m->parts[i]);
  s->release = NULL;
}

static zb_status make_batch(int64_t n, int64_t shift, zb_table **out, zb_error *err) {
  static const char *const d1[3] = {"ant", "bee", "cow"};
  static const char *const d2[4] = {"cow", "dog", "ant", "elk"};
  zb_column *cols[3] = {NULL};
  static const char *const names[3] = {"s", "c", "b"};
  zb_status st = make_string_column(n, true, &cols[0], err);
  if (st == ZB_OK)
    st = make_categorical(shift % 2 ? d2 : d1, shift % 2 ? 4 : 3, n, shift, true, &cols[1],
                          err);
  if (st == ZB_OK) st = make_column(ZB_BOOL, n, &cols[2], err);
  if (st == ZB_OK) st = zb_table_make(3, cols, names, out, err);
  for (int i = 0; i < 3; i++) zb_column_release(cols[i]);
  return st;
}

ZB_TEST(test_arrow_stream_multiple_batches) {
  zb_error err = {{0}};
  multi_stream m;
  memset(&m, 0, sizeof m);
  m.fail_at = -1;
  static const int64_t lens[3] = {7, 0, 13};
  for (int i = 0; i < 3; i++) ZB_CHECK_OK(make_batch(lens[i], i + 1, &m.parts[i], &err), &err);
  /* Keep references to check the result against. */
  zb_table *parts[3];
  for (int i = 0; i < 3; i++) parts[i] = zb_table_retain(m.parts[i]);
  struct ArrowArrayStream s = {ms_get_schema, ms_get_next, ms_last_error, ms_release, &m};
  zb_table *t = NULL;
  ZB_CHECK_OK(zb_table_import_stream(&s, &t, &err), &err);
  ZB_CHECK(s.release == NULL);
  if (t != NULL) {
    ZB_CHECK_EQ_INT(t->num_rows, 20);
    int64_t pos = 0;
    for (int i = 0; i < 3; i++) {
      for (int64_t j = 0; j < 3; j++)
        ZB_CHECK(rows_equal(parts[i]->columns[j], 0, t->columns[j], pos, lens[i]));
      pos += lens[i];
    }
    zb_table_release(t);
  }
  /* A failing get_next becomes ZB_EIO with the stream's message. */
  memset(&m, 0, sizeof m);
  for (int i = 0; i < 3; i++) m.parts[i] = zb_table_retain(parts[i]);
  m.fail_at = 1;
  s.release = ms_release;
  ZB_CHECK_EQ_INT(zb_table_import_stream(&s, &t, &err), ZB_EIO);
  ZB_CHECK(strstr(err.message, "disk on fire") != NULL);
  ZB_CHECK(s.release == NULL && t == NULL);
  /* An empty stream gives a table with the schema and no rows. */
  memset(&m, 0, sizeof m);
  for (int i = 0; i < 3; i++) m.parts[i] = zb_table_retain(parts[i]);
  m.next = 3;
  m.fail_at = -1;
  s.release = ms_release;
  ZB_CHECK_OK(zb_table_import_stream(&s, &t, &err), &err);
  if (t != NULL) {
    ZB_CHECK_EQ_INT(t->num_rows, 0);
    ZB_CHECK_EQ_INT(t->num_columns, 3);
    ZB_CHECK_EQ_INT(t->columns[1]->type, ZB_CATEGORICAL);
    zb_table_release(t);
  }
  for (int i = 0; i < 3; i++) zb_table_release(parts[i]);
}

/* ---- concat ------------------------------------------------------------- */

static void check_concat(zb_column *const *in, int64_t n, const zb_column *out) {
  int64_t pos = 0, nulls = 0;
  for (int64_t i = 0; i < n; i++) {
    if (!rows_equal(in[i], 0, out, pos, in[i]->length))
      zb_test_fail(__FILE__, __LINE__, "concat part %lld differs", (long long)i);
    pos += in[i]->length;
    nulls += in[i]->null_count;
  }
  ZB_CHECK_EQ_INT(out->length, pos);
  ZB_CHECK_EQ_INT(out->null_count, nulls);
  ZB_CHECK((out->validity == NULL) == (nulls == 0));
}

ZB_TEST(test_concat_bools_at_odd_offsets) {
  zb_error err = {{0}};
  zb_column *base = NULL, *parts[4] = {NULL}, *out = NULL;
  ZB_CHECK_OK(make_column(ZB_BOOL, 200, &base, &err), &err);
  if (base == NULL) return;
  static const int64_t starts[4] = {3, 5, 1, 64}, lens[4] = {13, 70, 1, 99};
  for (int i = 0; i < 4; i++)
    ZB_CHECK_OK(zb_column_slice(base, starts[i], lens[i], &parts[i], &err), &err);
  ZB_CHECK_OK(zb_column_concat(parts, 4, &out, &err), &err);
  if (out != NULL) check_concat(parts, 4, out);
  zb_column_release(out);
  /* All-valid inputs give no validity bitmap. */
  zb_column *nn[2] = {NULL};
  ZB_CHECK_OK(zb_column_slice(base, 3, 2, &nn[0], &err), &err);
  ZB_CHECK_OK(zb_column_slice(base, 8, 2, &nn[1], &err), &err);
  ZB_CHECK_OK(zb_column_concat(nn, 2, &out, &err), &err);
  if (out != NULL) check_concat(nn, 2, out);
  zb_column_release(out);
  for (int i = 0; i < 2; i++) zb_column_release(nn[i]);
  for (int i = 0; i < 4; i++) zb_column_release(parts[i]);
  zb_column_release(base);
}

ZB_TEST(test_concat_every_fixed_type_and_strings) {
  zb_error err = {{0}};
  for (int t = 0; t < ZB_LIST; t++) { /* lists: test_list.c */
    zb_column *a = NULL, *b = NULL, *parts[3] = {NULL}, *out = NULL;
    ZB_CHECK_OK(make_column((zb_type_id)t, 40, &a, &err), &err);
    ZB_CHECK_OK(make_column((zb_type_id)t, 17, &b, &err), &err);
    if (a == NULL || b == NULL) continue;
    ZB_CHECK_OK(zb_column_slice(a, 3, 13, &parts[0], &err), &err);
    parts[1] = zb_column_retain(b);
    ZB_CHECK_OK(zb_column_slice(a, 39, 5, &parts[2], &err), &err);
    ZB_CHECK_OK(zb_column_concat(parts, 3, &out, &err), &err);
    if (out != NULL) {
      check_concat(parts, 3, out);
      if (t == ZB_TIMESTAMP)
        ZB_CHECK(out->unit == ZB_NANO && strcmp(out->timezone, "Europe/Paris") == 0);
      if (t == ZB_CATEGORICAL) ZB_CHECK(out->dictionary == a->dictionary ||
                                        out->dictionary->length == 5);
    }
    zb_column_release(out);
    /* One input: the same column back. */
    ZB_CHECK_OK(zb_column_concat(&a, 1, &out, &err), &err);
    ZB_CHECK(out == a);
    zb_column_release(out);
    for (int i = 0; i < 3; i++) zb_column_release(parts[i]);
    zb_column_release(a);
    zb_column_release(b);
  }
}

ZB_TEST(test_concat_categoricals_with_different_dictionaries) {
  zb_error err = {{0}};
  static const char *const d1[3] = {"ant", "bee", "cow"};
  static const char *const d2[4] = {"cow", "dog", "ant", ""};
  static const char *const d3[3] = {"ant", "bee", "cow"};
  zb_column *c[3] = {NULL}, *out = NULL;
  ZB_CHECK_OK(make_categorical(d1, 3, 20, 0, true, &c[0], &err), &err);
  ZB_CHECK_OK(make_categorical(d2, 4, 15, 1, true, &c[1], &err), &err);
  ZB_CHECK_OK(make_categorical(d3, 3, 9, 2, false, &c[2], &err), &err);
  ZB_CHECK_OK(zb_column_concat(c, 3, &out, &err), &err);
  if (out != NULL) {
    check_concat(c, 3, out);
    /* Merged dictionary in first-seen order, each word once. */
    static const char *const want[5] = {"ant", "bee", "cow", "dog", ""};
    ZB_CHECK_EQ_INT(out->dictionary->length, 5);
    for (int64_t i = 0; i < 5 && i < out->dictionary->length; i++) {
      const char *p;
      int64_t len;
      str_at(out->dictionary, i, &p, &len);
      ZB_CHECK(len == (int64_t)strlen(want[i]) && memcmp(p, want[i], (size_t)len) == 0);
    }
  }
  zb_column_release(out);
  /* Identical dictionaries (distinct objects): the first is reused. */
  zb_column *same[2] = {c[0], c[2]};
  ZB_CHECK_OK(zb_column_concat(same, 2, &out, &err), &err);
  if (out != NULL) {
    check_concat(same, 2, out);
    ZB_CHECK(out->dictionary == c[0]->dictionary);
  }
  zb_column_release(out);
  for (int i = 0; i < 3; i++) zb_column_release(c[i]);
}

ZB_TEST(test_concat_errors) {
  zb_error err = {{0}};
  zb_column *a = NULL, *b = NULL, *out = NULL;
  ZB_CHECK_OK(make_column(ZB_INT32, 4, &a, &err), &err);
  ZB_CHECK_OK(make_column(ZB_INT64, 4, &b, &err), &err);
  zb_column *ab[2] = {a, b};
  ZB_CHECK_EQ_INT(zb_column_concat(ab, 2, &out, &err), ZB_ETYPE);
  ZB_CHECK(out == NULL && strstr(err.message, "int64") != NULL);
  ZB_CHECK_EQ_INT(zb_column_concat(ab, 0, &out, &err), ZB_EINVAL);
  zb_column_release(a);
  zb_column_release(b);
  ZB_CHECK_OK(make_column(ZB_TIMESTAMP, 4, &a, &err), &err);
  ZB_CHECK_OK(make_column(ZB_TIMESTAMP, 4, &b, &err), &err);
  ZB_CHECK_OK(zb_column_set_time(b, ZB_NANO, "UTC", &err), &err);
  ab[0] = a;
  ab[1] = b;
  ZB_CHECK_EQ_INT(zb_column_concat(ab, 2, &out, &err), ZB_ETYPE);
  ZB_CHECK(strstr(err.message, "UTC") != NULL);
  ZB_CHECK_OK(zb_column_set_time(b, ZB_MICRO, "Europe/Paris", &err), &err);
  ZB_CHECK_EQ_INT(zb_column_concat(ab, 2, &out, &err), ZB_ETYPE);
  zb_column_release(a);
  zb_column_release(b);
}

/* ---- fault injection ---------------------------------------------------- */

/* Build, slice, export and import a string column with nulls; verify. */
static zb_status fi_string_run(zb_error *err) {
  zb_column *c = NULL, *s = NULL, *back = NULL;
  struct ArrowSchema schema;
  struct ArrowArray array;
  zb_status st = make_string_column(40, true, &c, err);
  if (st == ZB_OK) st = zb_column_slice(c, 3, 13, &s, err);
  if (st == ZB_OK) {
    st = zb_column_export_arrow(s, "s", &schema, &array, err);
    if (st != ZB_OK) ZB_CHECK(schema.release == NULL && array.release == NULL);
  }
  if (st == ZB_OK) {
    st = zb_column_import_arrow(&schema, &array, &back, err);
    if (st != ZB_OK) {
      ZB_CHECK(array.release != NULL && back == NULL);
      array.release(&array);
    } else {
      ZB_CHECK(array.release == NULL);
      ZB_CHECK(columns_equal(s, back));
    }
    schema.release(&schema);
  }
  zb_column_release(back);
  zb_column_release(s);
  zb_column_release(c);
  return st;
}

/* Export a table as a stream of one batch plus a 3-batch stream; import. */
static zb_status fi_stream_run(zb_error *err) {
  zb_table *t = NULL, *back = NULL;
  struct ArrowArrayStream s;
  zb_status st = make_table(12, &t, err);
  if (st == ZB_OK) st = zb_table_export_stream(t, &s, err);
  if (st == ZB_OK) {
    st = zb_table_import_stream(&s, &back, err);
    ZB_CHECK(s.release == NULL);
    /* The producer's ENOMEM (errno 12) arrives as ZB_EIO carrying its text. */
    if (st == ZB_EIO && strstr(err->message, "(errno 12): out of host memory") != NULL)
      st = ZB_ENOMEM;
    if (st == ZB_OK) ZB_CHECK(tables_equal(t, back));
  }
  zb_table_release(back);
  zb_table_release(t);
  back = NULL;
  if (st != ZB_OK) return st;
  multi_stream *m = (multi_stream *)zb_calloc(1, sizeof *m);
  if (m == NULL) return ZB_ENOMEM;
  m->fail_at = -1;
  for (int i = 0; i < 3 && st == ZB_OK; i++) st = make_batch(5 + i, i, &m->parts[i], err);
  struct ArrowArrayStream ms = {ms_get_schema, ms_get_next, ms_last_error, ms_release, m};
  if (st != ZB_OK) {
    ms_release(&ms);
  } else {
    st = zb_table_import_stream(&ms, &back, err);
    ZB_CHECK(ms.release == NULL);
    /* The test producer reports our export's ZB_ENOMEM as errno ENOMEM. */
    if (st == ZB_EIO && strstr(err->message, "(errno 12)") != NULL) st = ZB_ENOMEM;
    if (st == ZB_OK) ZB_CHECK_EQ_INT(back->num_rows, 18);
  }
  zb_free(m);
  zb_table_release(back);
  return st;
}

static void fault_loop(zb_status (*run)(zb_error *), const char *what) {
  zb_alloc_stats base, now;
  zb_alloc_get_stats(&base);
  int64_t n;
  int failures = 0;
  for (n = 1; n < 100000; n++) {
    zb_error err = {{0}};
    zb_alloc_fail_after(n);
    zb_status st = run(&err);
    int64_t left = zb_alloc_fail_after(0);
    zb_alloc_get_stats(&now);
    if (st != ZB_OK && st != ZB_ENOMEM)
      zb_test_fail(__FILE__, __LINE__, "%s: run %lld -> %s: %s", what, (long long)n,
                   zb_status_name(st), err.message);
    if (now.host_bytes != base.host_bytes || now.host_allocations != base.host_allocations) {
      zb_test_fail(__FILE__, __LINE__, "%s: run %lld leaked %lld bytes in %lld allocations",
                   what, (long long)n, (long long)(now.host_bytes - base.host_bytes),
                   (long long)(now.host_allocations - base.host_allocations));
      break;
    }
    if (st != ZB_OK) failures++;
    if (st == ZB_OK && left > 0) break;
  }
  printf("     %s: %lld runs, %d failed cleanly with ZB_ENOMEM\n", what, (long long)n,
         failures);
  ZB_CHECK(failures > 10);
  ZB_CHECK(n < 100000);
  ZB_CHECK_EQ_INT(base.host_bytes, 0);
  ZB_CHECK_EQ_INT(base.host_allocations, 0);
}

ZB_TEST(test_arrow_fault_injection_string_column) {
  fault_loop(fi_string_run, "string export/import");
}

ZB_TEST(test_arrow_fault_injection_repeating_dictionary) {
  fault_loop(fi_repeating_dictionary_run, "import folding a repeated category");
}

ZB_TEST(test_arrow_fault_injection_streams) {
  fault_loop(fi_stream_run, "stream export/import with concat");
}
