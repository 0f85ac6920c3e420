/*
 * reshape.h -- kernels behind pandas' reshaping functions that a gather
 * cannot express cheaply: the indicator columns of get_dummies and the
 * repeated rows of melt (src/core/reshape_ops.c checks and dispatches; the
 * CPU kernels are in src/cpu/reshape.c).
 */
#ifndef ZAMBEZI_RESHAPE_H
#define ZAMBEZI_RESHAPE_H

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The one-hot (indicator) columns of codes: a table of n_codes BOOL
 * columns named "0" .. "n_codes - 1" without nulls, column j true where
 * codes holds j.  A null or negative code sets no column.  codes is an
 * INT64 column; a code >= n_codes is ZB_EINDEX naming its row.  One pass
 * over the codes writes every column.  On success *out is a new table the
 * caller owns; on failure *out is NULL. */
ZB_API zb_status zb_column_one_hot(const zb_column *codes, int64_t n_codes, zb_table **out,
                                   zb_error *err);

/* Each row of col repeated `times` times in a row (numpy's np.repeat with
 * a scalar count): row i of col becomes rows [i * times, (i + 1) * times)
 * of *out, nulls included.  col is a STRING column or one of fixed width
 * (not bool, categorical or list: ZB_ETYPE).  times >= 0.  On success *out
 * is a new column the caller owns; on failure *out is NULL. */
ZB_API zb_status zb_column_repeat(const zb_column *col, int64_t times, zb_column **out,
                                  zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_RESHAPE_H */
