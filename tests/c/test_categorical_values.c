/*
 * test_categorical_values.c -- categoricals whose dictionary is not a string
 * column: assembly checks, decoding by value, dictionary unification in
 * concat, the ordered flag, and the operations that read categories as
 * text refusing them by name (never misreading an integer's bytes as
 * string offsets) or, for writers, writing the values.
 */
#include <string.h>

#include "test.h"
#include "zambezi/compute.h"
#include "zambezi/groupby.h"
#include "zambezi/io_csv.h"

/* An int64 column of the n values v. */
static zb_column *ints(const int64_t *v, int64_t n) {
  zb_column *c = NULL;
  zb_error err;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n, false, 0, &c, &err), &err);
  memcpy(c->data->data, v, (size_t)n * sizeof(int64_t));
  return c;
}

/* A categorical of codes over dict (new reference). */
static zb_column *cat_of(const int32_t *codes, int64_t n, zb_column *dict) {
  zb_column *c = NULL, *out = NULL;
  zb_error err;
  ZB_CHECK_OK(zb_column_new(ZB_INT32, n, false, 0, &c, &err), &err);
  memcpy(c->data->data, codes, (size_t)n * sizeof(int32_t));
  ZB_CHECK_OK(zb_column_make(ZB_CATEGORICAL, n, 0, NULL, c->data, NULL, dict, 0, &out, &err),
              &err);
  zb_column_release(c);
  return out;
}

static void check_values(const zb_column *c, const int64_t *want, int64_t n) {
  zb_column *v = NULL;
  zb_error err;
  ZB_CHECK_OK(zb_column_cast(c, ZB_INT64, ZB_MICRO, &v, &err), &err);
  ZB_CHECK_EQ_INT(v->length, n);
  for (int64_t i = 0; i < n && i < v->length; i++)
    ZB_CHECK_EQ_INT(((const int64_t *)v->data->data)[v->offset + i], want[i]);
  zb_column_release(v);
}

ZB_TEST(test_categorical_int_dictionary_values_and_concat) {
  zb_error err;
  const int64_t d1[] = {10, 20, 30}, d2[] = {30, 40};
  const int32_t c1[] = {2, 0, 1, 0}, c2[] = {1, 0};
  zb_column *dict1 = ints(d1, 3), *dict2 = ints(d2, 2);
  zb_column *a = cat_of(c1, 4, dict1), *b = cat_of(c2, 2, dict2);
  const int64_t wa[] = {30, 10, 20, 10};
  check_values(a, wa, 4);
  /* concat unifies the dictionaries by value: 30 is one category */
  zb_column *parts[2] = {a, b}, *both = NULL;
  ZB_CHECK_OK(zb_column_concat(parts, 2, &both, &err), &err);
  ZB_CHECK_EQ_INT(both->type, ZB_CATEGORICAL);
  ZB_CHECK_EQ_INT(both->dictionary->type, ZB_INT64);
  ZB_CHECK_EQ_INT(both->dictionary->length, 4);
  const int64_t wboth[] = {30, 10, 20, 10, 40, 30};
  check_values(both, wboth, 6);
  /* a string categorical does not concatenate with an int one */
  zb_column *s = NULL, *scat = NULL, *mixed[2] = {a, NULL}, *bad = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_STRING, 1, false, 1, &s, &err), &err);
  ((int64_t *)s->data->data)[0] = 0;
  ((int64_t *)s->data->data)[1] = 1;
  ((char *)s->chars->data)[0] = 'x';
  const int32_t c0[] = {0};
  scat = cat_of(c0, 1, s);
  mixed[1] = scat;
  ZB_CHECK_EQ_INT(zb_column_concat(mixed, 2, &bad, &err), ZB_ETYPE);
  ZB_CHECK(bad == NULL);
  /* equality against a value compares the categories' values */
  zb_scalar twenty = {.type = ZB_INT64, .v.i = 20};
  zb_column *eq = NULL;
  ZB_CHECK_OK(zb_column_binary_scalar(ZB_OP_EQ, a, &twenty, false, &eq, &err), &err);
  ZB_CHECK_EQ_INT(eq->type, ZB_BOOL);
  for (int64_t i = 0; i < 4; i++)
    ZB_CHECK_EQ_INT(zb_bit_get((const uint8_t *)eq->data->data, eq->offset + i), i == 2);
  zb_column_release(eq);
  zb_column_release(scat);
  zb_column_release(s);
  zb_column_release(both);
  zb_column_release(a);
  zb_column_release(b);
  zb_column_release(dict1);
  zb_column_release(dict2);
}

ZB_TEST(test_categorical_ordered_flag_travels) {
  zb_error err;
  const int64_t d[] = {3, 2, 1};
  const int32_t c[] = {0, 2, 1};
  zb_column *dict = ints(d, 3), *od = NULL;
  ZB_CHECK_OK(zb_column_dictionary_ordered(dict, true, &od, &err), &err);
  ZB_CHECK(od != dict && od->ordered == 1 && dict->ordered == 0);
  zb_column *a = cat_of(c, 3, od), *sl = NULL, *both = NULL, *parts[2];
  ZB_CHECK(zb_column_is_ordered(a));
  ZB_CHECK_OK(zb_column_slice(a, 1, 2, &sl, &err), &err);
  ZB_CHECK(zb_column_is_ordered(sl));
  parts[0] = a;
  parts[1] = sl;
  ZB_CHECK_OK(zb_column_concat(parts, 2, &both, &err), &err);
  ZB_CHECK(zb_column_is_ordered(both)); /* one dictionary: still ordered */
  zb_column *same = NULL;
  ZB_CHECK_OK(zb_column_dictionary_ordered(od, true, &same, &err), &err);
  ZB_CHECK(same == od);
  zb_column_release(same);
  zb_column_release(both);
  zb_column_release(sl);
  zb_column_release(a);
  zb_column_release(od);
  zb_column_release(dict);
}

static zb_status collect(void *ctx, const char *data, int64_t size, zb_error *err) {
  (void)err;
  char *buf = (char *)ctx;
  size_t have = strlen(buf);
  if (have + (size_t)size < 255) {
    memcpy(buf + have, data, (size_t)size);
    buf[have + (size_t)size] = '\0';
  }
  return ZB_OK;
}

ZB_TEST(test_categorical_text_operations_check_the_dictionary) {
  zb_error err;
  const int64_t d[] = {7, 8};
  const int32_t c[] = {1, 0, 1};
  zb_column *dict = ints(d, 2), *a = cat_of(c, 3, dict), *r = NULL;
  /* string functions refuse integer categories by name */
  zb_str_args up;
  memset(&up, 0, sizeof up);
  up.op = ZB_STR_UPPER;
  ZB_CHECK_EQ_INT(zb_column_str(a, &up, &r, &err), ZB_ENOTSUP);
  ZB_CHECK(r == NULL);
  ZB_CHECK(strstr(err.message, "str.upper") != NULL);
  ZB_CHECK(strstr(err.message, "int64") != NULL);
  /* a dictionary with nulls, or of lists, is refused at assembly */
  zb_column *nd = NULL, *codes = NULL, *bad = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, 2, true, 0, &nd, &err), &err);
  zb_bit_set((uint8_t *)nd->validity->data, 1, false);
  zb_column_recount_nulls(nd);
  ZB_CHECK_OK(zb_column_new(ZB_INT32, 1, false, 0, &codes, &err), &err);
  ((int32_t *)codes->data->data)[0] = 0;
  ZB_CHECK_EQ_INT(zb_column_make(ZB_CATEGORICAL, 1, 0, NULL, codes->data, NULL, nd, 0, &bad,
                                 &err),
                  ZB_EINVAL);
  ZB_CHECK(bad == NULL);
  /* the CSV writer writes the values */
  const char *name = "k";
  zb_table *t = NULL;
  ZB_CHECK_OK(zb_table_make(1, &a, &name, &t, &err), &err);
  char out[256] = "";
  ZB_CHECK_OK(zb_csv_write(t, NULL, collect, out, &err), &err);
  ZB_CHECK(strcmp(out, "k\n8\n7\n8\n") == 0);
  zb_table_release(t);
  zb_column_release(codes);
  zb_column_release(nd);
  zb_column_release(a);
  zb_column_release(dict);
}

/* The code of row g of a group-by result column that must be a categorical
 * over dict, or -1 where it is null. */
static int32_t result_code(const zb_column *c, const zb_column *dict, int64_t g) {
  ZB_CHECK_EQ_INT(c->type, ZB_CATEGORICAL);
  ZB_CHECK(c->dictionary == dict);
  if (!zb_column_is_valid(c, g)) return -1;
  return ((const int32_t *)c->data->data)[c->offset + g];
}

/* min / max of an ordered categorical follow the category order (the codes'
 * order, not the values'): by keys, keeping the ids, by ids and by segments;
 * the results are categoricals of the same categories; an unordered one is
 * refused by name. */
ZB_TEST(test_group_min_max_of_ordered_categoricals) {
  zb_error err;
  const int64_t dv[] = {30, 10, 20}; /* categories in the order 30 < 10 < 20 */
  zb_column *plain = ints(dv, 3), *dict = NULL;
  ZB_CHECK_OK(zb_column_dictionary_ordered(plain, true, &dict, &err), &err);
  const int32_t codes[] = {2, 0, 1, 1, 2, 0, 2, 2};
  const int64_t keys_v[] = {0, 0, 0, 1, 1, 2, 2, 3}; /* sorted: segments too */
  zb_column *cat = cat_of(codes, 8, dict), *k = ints(keys_v, 8);
  /* row 7 (group 3's only row) null */
  zb_column *cat_n = NULL;
  zb_buffer *valid = NULL;
  ZB_CHECK_OK(zb_buffer_new(ZB_CPU, 1, &valid, &err), &err);
  ((uint8_t *)valid->data)[0] = 0x7f;
  ZB_CHECK_OK(zb_column_make(ZB_CATEGORICAL, 8, 0, valid, cat->data, NULL, dict, 1, &cat_n, &err),
              &err);
  zb_column *cols[2] = {k, cat_n};
  const char *names[2] = {"k", "c"};
  zb_table *t = NULL;
  ZB_CHECK_OK(zb_table_make(2, cols, names, &t, &err), &err);
  const int64_t key = 0;
  zb_agg aggs[3] = {{.op = ZB_AGG_MIN, .column = 1, .name = "lo"},
                    {.op = ZB_AGG_MAX, .column = 1, .name = "hi"},
                    {.op = ZB_AGG_FIRST, .column = 1}};
  /* group 0: codes 2 0 1 -> min 0, max 2; group 1: 1 2; group 2: 0 2; group 3: null */
  const int32_t lo[] = {0, 1, 0, -1}, hi[] = {2, 2, 2, -1};
  zb_table *res[4] = {NULL, NULL, NULL, NULL};
  zb_column *ids = NULL, *off = NULL;
  int64_t ng = 0;
  ZB_CHECK_OK(zb_table_groupby(t, 1, &key, true, true, 3, aggs, &res[0], &err), &err);
  ZB_CHECK_OK(zb_table_groupby_keep_ids(t, 1, &key, true, true, 3, aggs, &res[1], &ids, &ng,
                                        &err), &err);
  ZB_CHECK_EQ_INT(ng, 4);
  ZB_CHECK_OK(zb_table_groupby_ids(t, ids, ng, 3, aggs, &res[2], &err), &err);
  const int64_t bounds[] = {0, 3, 5, 7, 8};
  off = ints(bounds, 5);
  ZB_CHECK_OK(zb_table_groupby_segments(t, off, 2, aggs, &res[3], &err), &err);
  for (int r = 0; r < 4; r++) {
    if (res[r] == NULL) continue;
    int64_t base = r < 2 ? 1 : 0; /* the key column first */
    ZB_CHECK(strcmp(res[r]->names[base], "lo") == 0 && strcmp(res[r]->names[base + 1], "hi") == 0);
    ZB_CHECK_EQ_INT(res[r]->num_rows, 4);
    for (int64_t g = 0; g < 4 && res[r]->num_rows == 4; g++) {
      ZB_CHECK_EQ_INT(result_code(res[r]->columns[base], dict, g), lo[g]);
      ZB_CHECK_EQ_INT(result_code(res[r]->columns[base + 1], dict, g), hi[g]);
    }
    if (r != 3) ZB_CHECK_EQ_INT(res[r]->columns[base + 2]->type, ZB_CATEGORICAL); /* first */
    ZB_CHECK_EQ_INT(res[r]->num_columns, base + (r == 3 ? 2 : 3));
    zb_table_release(res[r]);
    res[r] = NULL;
  }
  /* a failed allocation anywhere: ENOMEM, nothing left behind */
  bool done = false;
  for (int64_t n = 1; n < 400 && !done; n++) {
    zb_alloc_fail_after(n);
    zb_status st = zb_table_groupby(t, 1, &key, true, true, 3, aggs, &res[0], &err);
    zb_alloc_fail_after(0);
    if (st == ZB_OK) {
      done = true;
      zb_table_release(res[0]);
      res[0] = NULL;
    } else {
      ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
      ZB_CHECK(res[0] == NULL);
    }
  }
  ZB_CHECK(done);
  /* unordered: refused, by name */
  zb_column *cols_u[2] = {k, cat};
  zb_table *tu = NULL;
  zb_column *plain_cat = NULL;
  ZB_CHECK_OK(zb_column_make(ZB_CATEGORICAL, 8, 0, NULL, cat->data, NULL, plain, 0, &plain_cat,
                             &err), &err);
  cols_u[1] = plain_cat;
  ZB_CHECK_OK(zb_table_make(2, cols_u, names, &tu, &err), &err);
  ZB_CHECK_EQ_INT(zb_table_groupby(tu, 1, &key, true, true, 1, aggs, &res[0], &err), ZB_ETYPE);
  ZB_CHECK(strstr(err.message, "unordered") != NULL);
  zb_table_release(tu);
  zb_column_release(plain_cat);
  zb_table_release(t);
  zb_column_release(ids);
  zb_column_release(off);
  zb_column_release(cat_n);
  zb_buffer_release(valid);
  zb_column_release(cat);
  zb_column_release(k);
  zb_column_release(dict);
  zb_column_release(plain);
}
