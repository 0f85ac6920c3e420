/*
 * harness.c -- the checks the libFuzzer targets share (harness.h).
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

/* A small file may rightly declare far more rows than it stores (a run
 * of a billion nulls takes a few bytes), so a target reads under a
 * memory limit well inside libFuzzer's: past it, the reader must answer
 * ZB_ENOMEM, as it must for a user's limit. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  zb_error err;
  if (zb_set_memory_limit((int64_t)1 << 30, &err) != ZB_OK) abort();
  return 0;
}

void zb_fuzz_check_result(zb_status st, const zb_table *t) {
  if (st == ZB_OK ? t == NULL : t != NULL || st <= 0 || st >= ZB_STATUS_COUNT) abort();
}

void zb_fuzz_touch_table(const zb_table *t) {
  for (int64_t j = 0; j < t->num_columns; j++) {
    const zb_column *c = t->columns[j];
    if (c->length != t->num_rows) abort();
    if (c->type == ZB_STRING) {
      const int64_t *off = (const int64_t *)c->data->data;
      if (off[c->length] > c->chars->size) abort();
      volatile char sink = 0;
      for (int64_t i = 0; i < off[c->length]; i++) sink ^= ((const char *)c->chars->data)[i];
      (void)sink;
    }
  }
}

void zb_fuzz_memory_begin(zb_alloc_stats *before) { zb_alloc_get_stats(before); }

void zb_fuzz_memory_check(const zb_alloc_stats *before) {
  zb_alloc_stats after;
  zb_alloc_get_stats(&after);
  if (after.host_bytes != before->host_bytes ||
      after.host_allocations != before->host_allocations)
    abort();
}

/* Whether two columns hold the same type, nulls and values. */
static int same_column(const zb_column *x, const zb_column *y) {
  if (x->type != y->type || x->length != y->length) return 0;
  if (x->type == ZB_CATEGORICAL && !same_column(x->dictionary, y->dictionary)) return 0;
  for (int64_t i = 0; i < x->length; i++) {
    int vx = zb_column_is_valid(x, i), vy = zb_column_is_valid(y, i);
    if (vx != vy) return 0;
    if (!vx) continue;
    if (x->type == ZB_STRING) {
      const int64_t *ox = (const int64_t *)x->data->data + x->offset;
      const int64_t *oy = (const int64_t *)y->data->data + y->offset;
      int64_t n = ox[i + 1] - ox[i];
      if (n != oy[i + 1] - oy[i] ||
          memcmp((const char *)x->chars->data + ox[i], (const char *)y->chars->data + oy[i],
                 (size_t)n) != 0)
        return 0;
    } else if (x->type == ZB_BOOL) {
      if (zb_bit_get((const uint8_t *)x->data->data, x->offset + i) !=
          zb_bit_get((const uint8_t *)y->data->data, y->offset + i))
        return 0;
    } else {
      int w = x->type == ZB_CATEGORICAL ? 4 : zb_type_width(x->type);
      if (memcmp((const char *)x->data->data + (x->offset + i) * w,
                 (const char *)y->data->data + (y->offset + i) * w, (size_t)w) != 0)
        return 0;
    }
  }
  return 1;
}

int zb_fuzz_same_tables(const zb_table *a, const zb_table *b) {
  if (a->num_columns != b->num_columns || a->num_rows != b->num_rows) return 0;
  for (int64_t j = 0; j < a->num_columns; j++)
    if (strcmp(a->names[j], b->names[j]) != 0 || !same_column(a->columns[j], b->columns[j]))
      return 0;
  return 1;
}

void zb_fuzz_same_reads(zb_fuzz_read_fn one, void *one_ctx, zb_fuzz_read_fn many,
                        void *many_ctx, int threads) {
  zb_error err1, err2;
  zb_set_num_threads(1, &err1);
  zb_table *t1 = NULL, *t2 = NULL;
  zb_status s1 = one(one_ctx, &t1, &err1);
  zb_set_num_threads(threads, &err2);
  zb_status s2 = many(many_ctx, &t2, &err2);
  if (s1 != s2) abort();
  if (s1 == ZB_OK ? !zb_fuzz_same_tables(t1, t2) : strcmp(err1.message, err2.message) != 0)
    abort();
  zb_table_release(t1);
  zb_table_release(t2);
}
