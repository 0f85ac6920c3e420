/*
 * list_ops.c -- checked entry points of the list operations (zambezi/list.h).
 */
#include "core/internal.h"
#include "zambezi/list.h"

zb_status zb_list_join(const zb_column *col, const char *sep, int64_t sep_len,
                       zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "str.join: NULL output");
  *out = NULL;
  if (col == NULL || (sep == NULL && sep_len > 0) || sep_len < 0)
    return zb_error_set(err, ZB_EINVAL, "str.join: NULL argument");
  if (col->type != ZB_LIST || col->child == NULL || col->child->type != ZB_STRING)
    return zb_error_set(err, ZB_ETYPE, "str.join: the column must hold lists of strings, not %s",
                        col->type == ZB_LIST && col->child != NULL
                            ? zb_type_name(col->child->type)
                            : zb_type_name(col->type));
  zb__call c = {.op = ZB__OP_LIST_JOIN, .name = "str.join"};
  c.in[0] = col;
  c.p.cat.sep = sep != NULL ? sep : "";
  c.p.cat.sep_len = sep_len;
  return zb__dispatch_column(col->device, &c, out, err);
}
