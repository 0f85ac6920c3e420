/*
 * parquet_fuzz.c -- libFuzzer target for the Parquet reader.  The input is
 * the whole file; every input must come back with a status -- a table or
 * an error -- and leave no engine memory allocated.  Build: cmake
 * -DZAMBEZI_FUZZ=ON (clang), run ./parquet_fuzz fuzz/corpus/parquet.
 */
#include "harness.h"
#include "zambezi/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  zb_alloc_stats before;
  zb_fuzz_memory_begin(&before);
  zb_table *t = NULL;
  zb_error err;
  zb_status st = zb_parquet_read_buffer(data, (int64_t)size, "fuzz", NULL, &t, &err);
  zb_fuzz_check_result(st, t);
  zb_table_release(t);
  /* again with row-group pruning on the corpus' column names (statistics
   * are read from the footer only then) */
  static const int64_t five = 5;
  static const char *const str = "s3";
  static const int64_t str_len = 2;
  static const double half = 0.5;
  const zb_parquet_filter_term terms[4] = {
      {0, "i", ZB_PQ_GE, ZB_PQ_VALUE_INT, 1, &five, NULL, NULL, NULL},
      {0, "k", ZB_PQ_LT, ZB_PQ_VALUE_INT, 1, &five, NULL, NULL, NULL},
      {1, "s", ZB_PQ_IN, ZB_PQ_VALUE_STRING, 1, NULL, NULL, &str, &str_len},
      {1, "d", ZB_PQ_GT, ZB_PQ_VALUE_FLOAT, 1, NULL, &half, NULL, NULL}};
  zb_parquet_options o;
  zb_parquet_options_init(&o);
  o.filter = terms;
  o.num_filter_terms = 4;
  o.num_filter_groups = 2;
  t = NULL;
  st = zb_parquet_read_buffer(data, (int64_t)size, "fuzz", &o, &t, &err);
  zb_fuzz_check_result(st, t);
  zb_table_release(t);
  zb_fuzz_memory_check(&before);
  return 0;
}
