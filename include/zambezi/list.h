/*
 * list.h -- operations on list columns (ZB_LIST, Arrow large_list) beyond
 * the row selections every column has (take, filter, slice, concat).
 */
#ifndef ZAMBEZI_LIST_H
#define ZAMBEZI_LIST_H

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Each list of a list<string> column joined into one string with sep
 * (sep_len bytes) between its elements (pandas' str.join): "" for an empty
 * list, null for a null list or a list holding a null.  *out: a new string
 * column. */
ZB_API zb_status zb_list_join(const zb_column *col, const char *sep, int64_t sep_len,
                              zb_column **out, zb_error *err);

/* Each list as Python's repr of the list to_pylist gives (pandas' to_csv
 * text of an object column of lists): "[1, 2]", "[1.5, None]",
 * "['a', \"b'c\"]", "[[1], []]"; null for a null list.  The elements (at
 * the deepest level) must be numbers, bools or strings (ZB_ENOTSUP
 * otherwise).  *out: a new string column. */
ZB_API zb_status zb_list_repr(const zb_column *col, zb_column **out, zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_LIST_H */
