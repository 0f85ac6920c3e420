/*
 * test_dispatch.c -- the backends' support tables as zb_backend_coverage
 * lists them: the CPU runs every operation for every type and variant; the
 * CUDA table (when compiled in) states what the GPU runs, checked here
 * against the GPU's coverage as documented (docs/gpu-coverage.md) for the
 * rows whose absence sends work to the CPU.
 */
#include <string.h>

#include "test.h"
#include "zambezi/profile.h"

/* The row for op whose variants and types lists mention both v and t
 * (either may be "*"), or NULL. */
static const zb_coverage_row *find_row(const zb_coverage_row *rows, int64_t n, const char *op,
                                       const char *v, const char *t) {
  for (int64_t i = 0; i < n; i++) {
    if (strcmp(rows[i].op, op) != 0) continue;
    bool vok = strcmp(rows[i].variants, "*") == 0;
    bool tok = strcmp(rows[i].types, "*") == 0;
    char buf[400];
    if (!vok) {
      snprintf(buf, sizeof buf, ",%s,", rows[i].variants);
      char want[64];
      snprintf(want, sizeof want, ",%s,", v);
      vok = strstr(buf, want) != NULL;
    }
    if (!tok) {
      snprintf(buf, sizeof buf, ",%s,", rows[i].types);
      char want[64];
      snprintf(want, sizeof want, ",%s,", t);
      tok = strstr(buf, want) != NULL;
    }
    if (vok && tok) return &rows[i];
  }
  return NULL;
}

ZB_TEST(dispatch_cpu_covers_everything) {
  zb_coverage_row *rows = NULL;
  int64_t n = 0;
  zb_error err;
  ZB_CHECK_OK(zb_backend_coverage(ZB_DEVICE_CPU, &rows, &n, &err), &err);
  ZB_CHECK(n >= 25);
  for (int64_t i = 0; i < n; i++) {
    ZB_CHECK(strcmp(rows[i].types, "*") == 0);
    ZB_CHECK(strcmp(rows[i].variants, "*") == 0 || strcmp(rows[i].variants, "") == 0);
  }
  ZB_CHECK(find_row(rows, n, "join_indices", "cross", "string") != NULL);
  ZB_CHECK(find_row(rows, n, "str_cat", "", "string") != NULL);
  ZB_CHECK(find_row(rows, n, "hash_rows", "", "float64") != NULL);
  zb_free(rows);
}

ZB_TEST(dispatch_cuda_table) {
  zb_coverage_row *rows = NULL;
  int64_t n = 0;
  zb_error err;
  zb_status st = zb_backend_coverage(ZB_DEVICE_CUDA, &rows, &n, &err);
  if (!zb_cuda_compiled()) {
    ZB_CHECK_EQ_INT(st, ZB_ENODEVICE);
    ZB_CHECK(rows == NULL && n == 0);
    return;
  }
  ZB_CHECK_OK(st, &err);
  /* what the GPU runs */
  ZB_CHECK(find_row(rows, n, "binary", "add", "int32") != NULL);
  ZB_CHECK(find_row(rows, n, "binary", "lt", "string") != NULL);
  ZB_CHECK(find_row(rows, n, "join_indices", "inner", "string") != NULL);
  ZB_CHECK(find_row(rows, n, "groupby_agg", "sum", "float64") != NULL);
  ZB_CHECK(find_row(rows, n, "groupby_agg", "count", "string") != NULL);
  ZB_CHECK(find_row(rows, n, "stat", "var", "bool") != NULL);
  ZB_CHECK(find_row(rows, n, "cast", "float32", "int64") != NULL);
  ZB_CHECK(find_row(rows, n, "cast", "timestamp", "int64") != NULL);
  /* what it leaves to the CPU */
  ZB_CHECK(find_row(rows, n, "binary", "add", "string") == NULL);
  ZB_CHECK(find_row(rows, n, "join_indices", "cross", "int64") == NULL);
  ZB_CHECK(find_row(rows, n, "groupby_agg", "nunique", "string") == NULL);
  ZB_CHECK(find_row(rows, n, "groupby_agg", "min", "string") == NULL);
  ZB_CHECK(find_row(rows, n, "stat", "median", "bool") == NULL);
  ZB_CHECK(find_row(rows, n, "quantile", "", "bool") == NULL);
  ZB_CHECK(find_row(rows, n, "cast", "string", "int64") == NULL);
  ZB_CHECK(find_row(rows, n, "cast", "int64", "string") == NULL);
  ZB_CHECK(find_row(rows, n, "unary", "neg", "string") == NULL);
  ZB_CHECK(find_row(rows, n, "clip", "", "bool") == NULL);
  ZB_CHECK(find_row(rows, n, "str_cat", "", "string") == NULL);
  ZB_CHECK(find_row(rows, n, "hash_rows", "", "int64") == NULL);
  ZB_CHECK(find_row(rows, n, "filter", "table", "int64") == NULL);
  ZB_CHECK(find_row(rows, n, "filter", "column", "string") != NULL);
  zb_free(rows);
}

ZB_TEST(dispatch_coverage_arguments) {
  zb_coverage_row *rows = (zb_coverage_row *)1;
  int64_t n = 7;
  zb_error err;
  ZB_CHECK_EQ_INT(zb_backend_coverage(ZB_DEVICE_CPU, NULL, &n, &err), ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_backend_coverage((zb_device_kind)9, &rows, &n, &err), ZB_ENODEVICE);
  ZB_CHECK(rows == NULL && n == 0);
}
