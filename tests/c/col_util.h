/*
 * col_util.h -- column builders the C unit tests share.
 */
#ifndef ZB_TEST_COL_UTIL_H
#define ZB_TEST_COL_UTIL_H

#include <stdbool.h>

#include "zambezi/zambezi.h"

/* A FLOAT64 column of v[0, n); rows where ok[i] is false are null (ok
 * NULL: none).  The test releases it. */
zb_column *zb_test_f64(const double *v, const bool *ok, int64_t n);

#endif
