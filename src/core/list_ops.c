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

zb_status zb_list_repr(const zb_column *col, zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "list repr: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "list repr: NULL argument");
  if (col->type != ZB_LIST || col->child == NULL)
    return zb_error_set(err, ZB_ETYPE, "list repr: the column must hold lists, not %s",
                        zb_type_name(col->type));
  const zb_column *leaf = col->child;
  while (leaf->type == ZB_LIST && leaf->child != NULL) leaf = leaf->child;
  zb_type_id t = leaf->type;
  if (t != ZB_STRING && t != ZB_BOOL && (t < ZB_INT8 || t > ZB_FLOAT64)) {
    char text[300];
    return zb_error_set(err, ZB_ENOTSUP,
                        "the text of a %s column is not supported: only lists of numbers, "
                        "bools and strings are written as Python's list text",
                        zb_column_type_text(col, text, sizeof text));
  }
  zb__call c = {.op = ZB__OP_LIST_JOIN, .variant = 1, .name = "list repr"};
  c.in[0] = col;
  c.p.cat.sep = ", ";
  c.p.cat.sep_len = 2;
  return zb__dispatch_column(col->device, &c, out, err);
}
