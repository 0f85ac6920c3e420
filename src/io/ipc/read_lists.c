/*
 * read_lists.c -- the List and LargeList columns of an Arrow IPC record
 * batch (the rest of the reader is in read.c).  A list column of flat
 * values is its node, validity and offsets, then its child's node and
 * buffers (plan_list), imported as "+l" / "+L" with one child; its
 * offsets are checked against the child (check_list) before the import.
 */
#include <string.h>

#include "io/ipc/read_internal.h"
#include "zambezi/arrow.h"

static void child_schema_release(struct ArrowSchema *s) { s->release = NULL; }
static void child_array_release(struct ArrowArray *a) { a->release = NULL; }

/* A list column of a batch (node and buffers from node, buf): its
 * validity and offsets, then its child's node and buffers; each checked to
 * be as long as its length needs (the offsets' values are checked against
 * the child after the tasks ran: check_list). */
zb_status plan_list(reader *r, plan *p, const uint8_t *body, int64_t body_len,
                    const zb__fbv *nodes, const zb__fbv *bufs, int64_t node, int64_t buf,
                    int codec, const ipc_field *fd, ipc_col *c, const char *what) {
  int64_t length = c->length;
  for (int i = 0; i < 2; i++)
    ZB_RETURN_NOT_OK(plan_buffer(r, p, body, body_len, bufs, buf + i, codec, fd->name,
                                 &c->bufs[i], &c->lens[i]));
  int64_t need = length > 0 ? (length + 1) * fd->width : 0;
  if (c->lens[1] < need)
    return corrupt(r, "the offsets of list column '%s' in %s hold %lld bytes where %lld are "
                   "needed", fd->name, what, (long long)c->lens[1], (long long)need);
  if (c->null_count > 0 && c->lens[0] < (length + 7) / 8)
    return corrupt(r, "the validity bitmap of column '%s' in %s is too short", fd->name, what);
  if (c->null_count == 0) c->bufs[0] = NULL;
  if (node + 1 >= nodes->count)
    return corrupt(r, "%s lacks the child node of list column '%s'", what, fd->name);
  int64_t cl = zb__fb_vec_i64(nodes, node + 1, IPC_NODE_SIZE, 0);
  int64_t cn = zb__fb_vec_i64(nodes, node + 1, IPC_NODE_SIZE, 8);
  if (cl < 0 || cl > INT64_MAX / 16 || cn < 0 || cn > cl)
    return corrupt(r, "the child of list column '%s' in %s has %lld values and %lld nulls",
                   fd->name, what, (long long)cl, (long long)cn);
  c->child_length = cl;
  c->child_null_count = cn;
  int nb = fd->child_kind == K_STRING ? 3 : 2;
  for (int i = 0; i < 3; i++) {
    c->child_bufs[i] = NULL;
    c->child_lens[i] = 0;
  }
  for (int i = 0; i < nb; i++)
    ZB_RETURN_NOT_OK(plan_buffer(r, p, body, body_len, bufs, buf + 2 + i, codec, fd->name,
                                 &c->child_bufs[i], &c->child_lens[i]));
  int64_t cneed = fd->child_kind == K_BOOL ? (cl + 7) / 8 : cl * fd->child_width;
  if (fd->child_kind == K_STRING) cneed = cl > 0 ? (cl + 1) * fd->child_width : 0;
  if (c->child_lens[1] < cneed)
    return corrupt(r, "a buffer of the values of list column '%s' in %s holds %lld bytes "
                   "where %lld are needed", fd->name, what, (long long)c->child_lens[1],
                   (long long)cneed);
  if (cn > 0 && c->child_lens[0] < (cl + 7) / 8)
    return corrupt(r, "the validity bitmap of the values of list column '%s' in %s is too "
                   "short", fd->name, what);
  if (cn == 0) c->child_bufs[0] = NULL;
  return ZB_OK;
}

/* A list column's offsets (after the tasks ran): non-decreasing, from 0
 * or more to at most its child's length; a string child's last offset
 * inside its characters. */
zb_status check_list(reader *r, const ipc_field *fd, const ipc_col *c, const char *what) {
  if (fd->child_kind == K_STRING && c->child_length > 0) {
    ipc_col kid;
    memset(&kid, 0, sizeof kid);
    kid.length = c->child_length;
    for (int i = 0; i < 3; i++) {
      kid.bufs[i] = c->child_bufs[i];
      kid.lens[i] = c->child_lens[i];
    }
    ZB_RETURN_NOT_OK(check_strings(r, &kid, fd->child_width, fd->name, what));
  }
  if (c->length == 0) return ZB_OK;
  const uint8_t *o = (const uint8_t *)c->bufs[1];
  int64_t prev = -1;
  for (int64_t i = 0; i <= c->length; i++) {
    int64_t v;
    if (fd->width == 4) {
      int32_t x;
      memcpy(&x, o + 4 * i, 4);
      v = x;
    } else {
      memcpy(&v, o + 8 * i, 8);
    }
    if (v < 0 || v < prev || v > c->child_length)
      return corrupt(r, "the offsets of list column '%s' in %s are corrupt (offset %lld is "
                     "%lld, of %lld values)", fd->name, what, (long long)i, (long long)v,
                     (long long)c->child_length);
    prev = v;
  }
  return ZB_OK;
}

void list_schema(const ipc_field *fd, struct ArrowSchema *c, struct ArrowSchema *it,
                 struct ArrowSchema **it_ptr) {
  it->format = fd->child_format;
  it->name = "item";
  it->flags = 2; /* ARROW_FLAG_NULLABLE */
  it->release = child_schema_release;
  *it_ptr = it;
  c->n_children = 1;
  c->children = it_ptr;
}

void list_array(const ipc_field *fd, const ipc_col *c, struct ArrowArray *ca, const void **cb,
                struct ArrowArray *it, struct ArrowArray **it_ptr) {
  if (cb[1] == NULL) cb[1] = g_zeros; /* an empty batch: one zero offset */
  for (int i = 0; i < 3; i++) cb[3 + i] = c->child_bufs[i];
  if (cb[4] == NULL) cb[4] = g_zeros;
  if (cb[5] == NULL) cb[5] = g_zeros;
  it->length = c->child_length;
  it->null_count = c->child_null_count;
  it->n_buffers = fd->child_kind == K_STRING ? 3 : 2;
  it->buffers = cb + 3;
  it->release = child_array_release;
  *it_ptr = it;
  ca->n_children = 1;
  ca->children = it_ptr;
}
