/*
 * col_util.c -- the helpers of col_util.h.
 */
#include "col_util.h"

#include <string.h>

#include "test.h"

zb_column *zb_test_f64(const double *v, const bool *ok, int64_t n) {
  zb_error err = {{0}};
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, n, true, 0, &c, &err), &err);
  if (c == NULL) return NULL;
  uint8_t *bits = (uint8_t *)c->validity->data;
  memset(bits, 0, (size_t)((n + 7) / 8));
  for (int64_t i = 0; i < n; i++) {
    ((double *)c->data->data)[i] = v[i];
    if (ok == NULL || ok[i]) bits[i >> 3] |= (uint8_t)(1u << (i & 7));
  }
  zb_column_recount_nulls(c);
  return c;
}
