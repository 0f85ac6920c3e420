/*
 * read_lists.c -- the List and LargeList columns of an Arrow IPC record
 * batch, nested to ZB_LIST_MAX_DEPTH levels (the rest of the reader is in
 * read.c).
 *
 * A list column of depth D (list<list<...<leaf>>>, D list levels) takes
 * D + 1 nodes of a batch in pre-order: its own, then each inner list's,
 * then its leaf's; and the buffers in the same order: validity and
 * offsets of each list level (List: int32, LargeList: int64, each level
 * its own), then the leaf's validity and values (and characters; a
 * utf8_view leaf: its views, then its variadic data buffers, converted to
 * large_utf8 as flat view columns are).  Level
 * 0 is the column itself (ipc_col's length, bufs), levels 1 .. D-1 are in
 * ipc_col.levels, the leaf in ipc_col.child_*.
 *
 * plan_list checks every buffer to be as long as its node's length needs
 * before anything reads it (the lengths come from the file: a length is
 * only compared, never used to size an allocation; what plan_buffer
 * allocates is sized by the buffer's own checked length).  check_list,
 * after the tasks decompressed the buffers, checks each level's offsets:
 * non-decreasing, from 0 or more to at most the next level's length; a
 * string leaf's last offset inside its characters.  The column is then
 * described to the importer as "+l" / "+L" arrays, one child each, down to
 * the leaf (list_schema, list_array), which shares the buffers (LargeList
 * offsets and the leaf's values without a copy; List offsets are widened).
 */
#include <stdio.h>
#include <string.h>

#include "io/ipc/read_internal.h"
#include "zambezi/arrow.h"

static void child_schema_release(struct ArrowSchema *s) { s->release = NULL; }
static void child_array_release(struct ArrowArray *a) { a->release = NULL; }

/* The node of level l (1 .. depth: an inner list, or the leaf) of a list
 * column: its length and null count, checked to be sane on their own. */
static zb_status level_node(reader *r, const zb__fbv *nodes, int64_t node, int l,
                            const ipc_field *fd, const char *what, int64_t *len,
                            int64_t *nulls) {
  if (node + l >= nodes->count)
    return corrupt(r, "%s lacks the nodes of list column '%s' (level %d of %d)", what,
                   fd->name, l, fd->depth);
  *len = zb__fb_vec_i64(nodes, node + l, IPC_NODE_SIZE, 0);
  *nulls = zb__fb_vec_i64(nodes, node + l, IPC_NODE_SIZE, 8);
  if (*len < 0 || *len > INT64_MAX / 16 || *nulls < 0 || *nulls > *len)
    return corrupt(r, "the %s of list column '%s' in %s has %lld values and %lld nulls",
                   l == fd->depth ? "values" : "inner lists", fd->name, what, (long long)*len,
                   (long long)*nulls);
  return ZB_OK;
}

/* The validity and offsets of one list level (length rows, offsets of
 * width bytes) from buffers bi, bi + 1, checked against the length. */
static zb_status plan_offsets(reader *r, plan *p, const uint8_t *body, int64_t body_len,
                              const zb__fbv *bufs, int64_t bi, int codec, const ipc_field *fd,
                              int64_t length, int64_t nulls, int width, const void **b,
                              int64_t *lens, const char *what) {
  for (int i = 0; i < 2; i++)
    ZB_RETURN_NOT_OK(plan_buffer(r, p, body, body_len, bufs, bi + i, codec, fd->name, &b[i],
                                 &lens[i]));
  int64_t need = length > 0 ? (length + 1) * width : 0;
  if (lens[1] < need)
    return corrupt(r, "the offsets of list column '%s' in %s hold %lld bytes where %lld are "
                   "needed", fd->name, what, (long long)lens[1], (long long)need);
  if (nulls > 0 && lens[0] < (length + 7) / 8)
    return corrupt(r, "the validity bitmap of column '%s' in %s is too short", fd->name, what);
  if (nulls == 0) b[0] = NULL;
  return ZB_OK;
}

/* The utf8_view values of a list column (cl of them, cn null; buffers
 * from bi: validity, views, then its variadic data buffers, as many as
 * variadic count `view` says) as the view column c->leaf, which read.c
 * converts to large_utf8 with the flat view columns. */
static zb_status plan_view_leaf(reader *r, plan *p, const uint8_t *body, int64_t body_len,
                                const zb__fbv *bufs, const zb__fbv *variadic, int64_t bi,
                                int64_t view, int codec, const ipc_field *fd, ipc_col *c,
                                int64_t cl, int64_t cn, const char *what) {
  if (view >= variadic->count) return corrupt(r, "%s lacks variadic buffer counts", what);
  int64_t nv = zb__fb_vec_i64(variadic, view, 8, 0);
  if (nv < 0 || nv > bufs->count) return corrupt(r, "bad variadic buffer count in %s", what);
  ipc_col *v = (ipc_col *)zb_calloc(1, sizeof(ipc_col));
  if (v == NULL) return oom(r);
  c->leaf = v;
  v->length = cl;
  v->null_count = cn;
  v->n_v = nv;
  v->vbufs = (const void **)file_alloc(r->f, (nv + 1) * (int64_t)sizeof(void *));
  v->vlens = (int64_t *)file_alloc(r->f, (nv + 1) * 8);
  if (v->vbufs == NULL || v->vlens == NULL) return oom(r);
  for (int i = 0; i < 2; i++)
    ZB_RETURN_NOT_OK(plan_buffer(r, p, body, body_len, bufs, bi + i, codec, fd->name,
                                 &v->bufs[i], &v->lens[i]));
  for (int64_t k = 0; k < nv; k++)
    ZB_RETURN_NOT_OK(plan_buffer(r, p, body, body_len, bufs, bi + 2 + k, codec, fd->name,
                                 &v->vbufs[k], &v->vlens[k]));
  if (v->lens[1] < cl * 16)
    return corrupt(r, "the views of the values of list column '%s' in %s are too short",
                   fd->name, what);
  if (cn > 0 && v->lens[0] < (cl + 7) / 8)
    return corrupt(r, "the validity bitmap of the values of list column '%s' in %s is too "
                   "short", fd->name, what);
  if (cn == 0) v->bufs[0] = NULL;
  c->child_bufs[0] = v->bufs[0];
  return ZB_OK;
}

zb_status plan_list(reader *r, plan *p, const uint8_t *body, int64_t body_len,
                    const zb__fbv *nodes, const zb__fbv *bufs, const zb__fbv *variadic,
                    int64_t node, int64_t buf, int64_t view, int codec, const ipc_field *fd,
                    ipc_col *c, const char *what) {
  const int depth = fd->depth;
  ZB_RETURN_NOT_OK(plan_offsets(r, p, body, body_len, bufs, buf, codec, fd, c->length,
                                c->null_count, fd->width, c->bufs, c->lens, what));
  if (depth > 1) {
    c->levels = (ipc_level *)zb_calloc((size_t)(depth - 1), sizeof(ipc_level));
    if (c->levels == NULL) return oom(r);
    c->n_levels = depth - 1;
  }
  for (int l = 1; l < depth; l++) {
    ipc_level *lv = &c->levels[l - 1];
    ZB_RETURN_NOT_OK(level_node(r, nodes, node, l, fd, what, &lv->length, &lv->null_count));
    ZB_RETURN_NOT_OK(plan_offsets(r, p, body, body_len, bufs, buf + 2 * l, codec, fd,
                                  lv->length, lv->null_count, fd->level_width[l], lv->bufs,
                                  lv->lens, what));
  }
  int64_t cl, cn;
  ZB_RETURN_NOT_OK(level_node(r, nodes, node, depth, fd, what, &cl, &cn));
  c->child_length = cl;
  c->child_null_count = cn;
  int nb = fd->child_kind == K_STRING ? 3 : 2;
  for (int i = 0; i < 3; i++) {
    c->child_bufs[i] = NULL;
    c->child_lens[i] = 0;
  }
  if (fd->child_kind == K_VIEW)
    return plan_view_leaf(r, p, body, body_len, bufs, variadic, buf + 2 * depth, view, codec,
                          fd, c, cl, cn, what);
  for (int i = 0; i < nb; i++)
    ZB_RETURN_NOT_OK(plan_buffer(r, p, body, body_len, bufs, buf + 2 * depth + i, codec,
                                 fd->name, &c->child_bufs[i], &c->child_lens[i]));
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

/* Offsets o[0, length] of width bytes: non-decreasing, within [0, next]. */
static zb_status check_offsets(reader *r, const ipc_field *fd, const uint8_t *o, int width,
                               int64_t length, int64_t next, int level, const char *what) {
  if (length == 0) return ZB_OK;
  int64_t prev = -1;
  for (int64_t i = 0; i <= length; i++) {
    int64_t v;
    if (width == 4) {
      int32_t x;
      memcpy(&x, o + 4 * i, 4);
      v = x;
    } else {
      memcpy(&v, o + 8 * i, 8);
    }
    if (v < 0 || v < prev || v > next) {
      char lv[48] = "";
      if (fd->depth > 1) snprintf(lv, sizeof lv, " (level %d of %d)", level, fd->depth);
      return corrupt(r, "the offsets of list column '%s'%s in %s are corrupt (offset %lld is "
                     "%lld, of %lld values)", fd->name, lv, what, (long long)i, (long long)v,
                     (long long)next);
    }
    prev = v;
  }
  return ZB_OK;
}

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
  if (c->n_levels != fd->depth - 1)
    return corrupt(r, "list column '%s' in %s lacks its inner lists", fd->name, what);
  for (int l = 0; l < fd->depth; l++) {
    const void *o = l == 0 ? c->bufs[1] : c->levels[l - 1].bufs[1];
    int64_t len = l == 0 ? c->length : c->levels[l - 1].length;
    int64_t next = l + 1 < fd->depth ? c->levels[l].length : c->child_length;
    ZB_RETURN_NOT_OK(check_offsets(r, fd, (const uint8_t *)o, fd->level_width[l], len, next,
                                   l, what));
  }
  return ZB_OK;
}

/* One block per list column: the schemas of its levels 1 .. depth-1 and
 * of its leaf, and each one's child pointer. */
zb_status list_schema(reader *r, const ipc_field *fd, struct ArrowSchema *c, void **block) {
  const int depth = fd->depth;
  struct ArrowSchema *s = (struct ArrowSchema *)zb_calloc(
      1, (size_t)depth * (sizeof(struct ArrowSchema) + sizeof(struct ArrowSchema *)));
  if (s == NULL) return oom(r);
  *block = s;
  struct ArrowSchema **ptrs = (struct ArrowSchema **)(s + depth);
  struct ArrowSchema *parent = c;
  for (int l = 1; l <= depth; l++) {
    struct ArrowSchema *it = &s[l - 1];
    it->format = l < depth ? (fd->level_width[l] == 4 ? "+l" : "+L") : fd->child_format;
    it->name = "item";
    it->flags = 2; /* ARROW_FLAG_NULLABLE */
    it->release = child_schema_release;
    ptrs[l - 1] = it;
    parent->n_children = 1;
    parent->children = &ptrs[l - 1];
    parent = it;
  }
  return ZB_OK;
}

/* One block per list column and batch: the arrays of its levels 1 ..
 * depth-1 and of its leaf, each one's child pointer and three buffer
 * slots.  An empty batch (no levels planned) gets empty levels. */
zb_status list_array(reader *r, const ipc_field *fd, const ipc_col *c, struct ArrowArray *ca,
                     const void **cb, void **block) {
  const int depth = fd->depth;
  const size_t per = sizeof(struct ArrowArray) + 4 * sizeof(void *);
  struct ArrowArray *a = (struct ArrowArray *)zb_calloc(1, (size_t)depth * per);
  if (a == NULL) return oom(r);
  *block = a;
  struct ArrowArray **ptrs = (struct ArrowArray **)(a + depth);
  const void **slots = (const void **)(ptrs + depth);
  if (cb[1] == NULL) cb[1] = g_zeros; /* an empty batch: one zero offset */
  struct ArrowArray *parent = ca;
  for (int l = 1; l <= depth; l++) {
    struct ArrowArray *it = &a[l - 1];
    const void **sb = slots + 3 * (l - 1);
    if (l < depth) {
      const ipc_level *lv = c->n_levels >= l ? &c->levels[l - 1] : NULL;
      it->length = lv != NULL ? lv->length : 0;
      it->null_count = lv != NULL ? lv->null_count : 0;
      sb[0] = lv != NULL ? lv->bufs[0] : NULL;
      sb[1] = lv != NULL && lv->bufs[1] != NULL ? lv->bufs[1] : g_zeros;
      it->n_buffers = 2;
    } else {
      it->length = c->child_length;
      it->null_count = c->child_null_count;
      for (int i = 0; i < 3; i++) sb[i] = c->child_bufs[i];
      if (sb[1] == NULL) sb[1] = g_zeros;
      if (sb[2] == NULL) sb[2] = g_zeros;
      it->n_buffers = fd->child_kind == K_STRING || fd->child_kind == K_VIEW ? 3 : 2;
    }
    it->buffers = sb;
    it->release = child_array_release;
    ptrs[l - 1] = it;
    parent->n_children = 1;
    parent->children = &ptrs[l - 1];
    parent = it;
  }
  return ZB_OK;
}
