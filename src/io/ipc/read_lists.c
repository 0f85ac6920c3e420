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
 * large_utf8 as flat view columns are).  Level 0 is the column itself
 * (ipc_col's length, bufs), levels 1 .. D-1 are in ipc_col.levels, the
 * leaf in ipc_col.child_*.
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
 *
 * Several batches of list columns only (read_mixed reads them apart) are
 * joined first (merge_list): level by level, each batch's rows that the
 * level above uses, so one import makes one whole column; its sizes are
 * sums of lengths already checked against their buffers.
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

/* Offsets o[0, length] of width bytes: non-decreasing, within [0, next].
 * One branch-free pass (the width hoisted); the place of a fault is
 * looked for only when there is one. */
static zb_status check_offsets(reader *r, const ipc_field *fd, const uint8_t *o, int width,
                               int64_t length, int64_t next, int level, const char *what) {
  if (length == 0) return ZB_OK;
  bool bad = false;
  if (width == 4) {
    int32_t prev, x;
    memcpy(&prev, o, 4);
    bad = prev < 0;
    for (int64_t i = 1; i <= length; i++) {
      memcpy(&x, o + 4 * i, 4);
      bad |= x < prev;
      prev = x;
    }
    bad |= prev > next;
  } else {
    int64_t prev, x;
    memcpy(&prev, o, 8);
    bad = prev < 0;
    for (int64_t i = 1; i <= length; i++) {
      memcpy(&x, o + 8 * i, 8);
      bad |= x < prev;
      prev = x;
    }
    bad |= prev > next;
  }
  if (!bad) return ZB_OK;
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

/* ---- several batches: one whole column --------------------------------- */

typedef struct span { /* rows [start, end) of one batch at one level */
  int64_t start, end;
} span;

static int64_t offset_at(const void *o, int width, int64_t i) {
  if (width == 4) {
    int32_t x;
    memcpy(&x, (const uint8_t *)o + 4 * i, 4);
    return x;
  }
  int64_t x;
  memcpy(&x, (const uint8_t *)o + 8 * i, 8);
  return x;
}

/* Bits [from, from + n) of src (NULL: all set) to dst from bit `at`; the
 * number of zeros among them.  Bit by bit until dst reaches a byte, then
 * a byte at a time (two source bytes shifted together), the last few bit
 * by bit: src is read only inside bits [from, from + n). */
static int64_t copy_bits(uint8_t *dst, int64_t at, const uint8_t *src, int64_t from, int64_t n) {
  int64_t zeros = 0, i = 0;
  for (; i < n && ((at + i) & 7) != 0; i++) {
    bool v = src == NULL || zb_bit_get(src, from + i);
    zb_bit_set(dst, at + i, v);
    zeros += !v;
  }
  const int64_t i0 = i;
  int64_t ones = 0;
  uint8_t *d = dst + ((at + i) >> 3);
  if (src == NULL) {
    int64_t whole = (n - i) / 8;
    memset(d, 0xFF, (size_t)whole);
    i += whole * 8;
    ones = whole * 8;
  } else if (((from + i) & 7) == 0) {
    int64_t whole = (n - i) / 8;
    memcpy(d, src + ((from + i) >> 3), (size_t)whole);
    for (int64_t q = 0; q < whole; q++) ones += __builtin_popcount(d[q]);
    i += whole * 8;
  } else {
    /* each byte takes bits from two source bytes; the second lies inside
     * the range while 16 bits remain */
    const int sh = (int)((from + i) & 7);
    for (; i + 16 <= n; i += 8) {
      int64_t j = (from + i) >> 3;
      uint8_t v = (uint8_t)((src[j] >> sh) | (src[j + 1] << (8 - sh)));
      *d++ = v;
      ones += __builtin_popcount(v);
    }
  }
  zeros += (i - i0) - ones;
  for (; i < n; i++) {
    bool v = src == NULL || zb_bit_get(src, from + i);
    zb_bit_set(dst, at + i, v);
    zeros += !v;
  }
  return zeros;
}

/* Level l (0 .. depth-1) of list column k of batch b: its validity and
 * offsets, and the offsets' width. */
static void level_of(const ipc_field *fd, const ipc_batch *batches, int64_t b, int64_t k, int l,
                     const void *const **bufs, int *width) {
  const ipc_col *c = &batches[b].cols[k];
  *bufs = l == 0 ? c->bufs : c->levels[l - 1].bufs;
  *width = fd->level_width[l];
}

zb_status merge_list(reader *r, ipc_file *own, ipc_field *fd, const ipc_batch *batches,
                     int64_t nb, int64_t k, ipc_col *out) {
  const int depth = fd->depth;
  memset(out, 0, sizeof *out);
  span *sp = (span *)zb_malloc((size_t)nb * sizeof(span));
  if (sp == NULL) return oom(r);
  zb_status st = ZB_OK;
  if (depth > 1) {
    out->levels = (ipc_level *)zb_calloc((size_t)(depth - 1), sizeof(ipc_level));
    if (out->levels == NULL) {
      zb_free(sp);
      return oom(r);
    }
    out->n_levels = depth - 1;
  }
  for (int64_t b = 0; b < nb; b++) {
    sp[b].start = 0;
    sp[b].end = batches[b].cols[k].length;
  }
  /* the list levels, top down: each batch's rows at level l + 1 are the
   * ones its rows at level l point at */
  for (int l = 0; l < depth; l++) {
    int64_t total = 0;
    bool has_valid = false;
    for (int64_t b = 0; b < nb; b++) {
      const void *const *bufs;
      int w;
      level_of(fd, batches, b, k, l, &bufs, &w);
      total += sp[b].end - sp[b].start;
      has_valid = has_valid || bufs[0] != NULL;
    }
    int64_t *offs = (int64_t *)file_alloc(own, (total + 1) * 8);
    uint8_t *valid = has_valid ? (uint8_t *)file_alloc(own, (total + 7) / 8) : NULL;
    if (offs == NULL || (has_valid && valid == NULL)) {
      st = oom(r);
      goto done;
    }
    int64_t pos = 0, base = 0, nulls = 0;
    for (int64_t b = 0; b < nb; b++) {
      const void *const *bufs;
      int w;
      level_of(fd, batches, b, k, l, &bufs, &w);
      const int64_t s = sp[b].start, e = sp[b].end;
      span next = {0, 0};
      if (e > s) {
        const int64_t o0 = offset_at(bufs[1], w, s);
        int64_t *dst = offs + pos;
        if (w == 4) {
          const uint8_t *o = (const uint8_t *)bufs[1];
          for (int64_t i = s; i < e; i++) {
            int32_t x;
            memcpy(&x, o + 4 * i, 4);
            dst[i - s] = x - o0 + base;
          }
        } else {
          const uint8_t *o = (const uint8_t *)bufs[1];
          for (int64_t i = s; i < e; i++) {
            int64_t x;
            memcpy(&x, o + 8 * i, 8);
            dst[i - s] = x - o0 + base;
          }
        }
        next.start = o0;
        next.end = offset_at(bufs[1], w, e);
        base += next.end - o0;
      }
      if (valid != NULL) nulls += copy_bits(valid, pos, (const uint8_t *)bufs[0], s, e - s);
      pos += e - s;
      sp[b] = next;
    }
    offs[total] = base;
    if (l == 0) {
      out->length = total;
      out->null_count = nulls;
      out->bufs[0] = nulls > 0 ? valid : NULL;
      out->bufs[1] = offs;
      out->lens[1] = (total + 1) * 8;
    } else {
      ipc_level *lv = &out->levels[l - 1];
      lv->length = total;
      lv->null_count = nulls;
      lv->bufs[0] = nulls > 0 ? valid : NULL;
      lv->bufs[1] = offs;
      lv->lens[1] = (total + 1) * 8;
    }
  }
  /* the leaf: the rows of each batch the deepest level points at */
  {
    const bool str = fd->child_kind == K_STRING || fd->child_kind == K_VIEW;
    const int sw = fd->child_kind == K_VIEW ? 8 : fd->child_width;
    int64_t total = 0, nchars = 0;
    bool has_valid = false;
    for (int64_t b = 0; b < nb; b++) {
      const ipc_col *c = &batches[b].cols[k];
      total += sp[b].end - sp[b].start;
      has_valid = has_valid || c->child_bufs[0] != NULL;
      if (str && sp[b].end > sp[b].start) {
        /* the strings' offsets, checked before they size or move anything */
        int64_t prev = -1;
        for (int64_t i = sp[b].start; i <= sp[b].end; i++) {
          int64_t v = offset_at(c->child_bufs[1], sw, i);
          if (v < prev || v < 0 || v > c->child_lens[2]) {
            st = corrupt(r, "the strings of list column '%s' in record batch %lld are corrupt "
                         "(offset %lld of %lld characters)", fd->name, (long long)b,
                         (long long)v, (long long)c->child_lens[2]);
            goto done;
          }
          prev = v;
        }
        nchars += offset_at(c->child_bufs[1], sw, sp[b].end) -
                  offset_at(c->child_bufs[1], sw, sp[b].start);
      }
    }
    uint8_t *valid = has_valid ? (uint8_t *)file_alloc(own, (total + 7) / 8) : NULL;
    int64_t vbytes = fd->child_kind == K_BOOL ? (total + 7) / 8
                     : str                    ? (total + 1) * 8
                                              : total * fd->child_width;
    uint8_t *vals = (uint8_t *)file_alloc(own, vbytes);
    uint8_t *chars = str ? (uint8_t *)file_alloc(own, nchars) : NULL;
    if (vals == NULL || (has_valid && valid == NULL) || (str && chars == NULL)) {
      st = oom(r);
      goto done;
    }
    int64_t pos = 0, nulls = 0, cpos = 0;
    for (int64_t b = 0; b < nb; b++) {
      const ipc_col *c = &batches[b].cols[k];
      const int64_t s = sp[b].start, n = sp[b].end - sp[b].start;
      if (valid != NULL) nulls += copy_bits(valid, pos, (const uint8_t *)c->child_bufs[0], s, n);
      if (fd->child_kind == K_BOOL) {
        copy_bits(vals, pos, (const uint8_t *)c->child_bufs[1], s, n);
      } else if (str) {
        int64_t *o = (int64_t *)vals;
        if (n > 0) {
          const int64_t c0 = offset_at(c->child_bufs[1], sw, s);
          for (int64_t i = 0; i < n; i++)
            o[pos + i] = offset_at(c->child_bufs[1], sw, s + i) - c0 + cpos;
          const int64_t ce = offset_at(c->child_bufs[1], sw, s + n);
          if (ce > c0) memcpy(chars + cpos, (const uint8_t *)c->child_bufs[2] + c0, (size_t)(ce - c0));
          cpos += ce - c0;
        }
      } else if (n > 0) {
        memcpy(vals + pos * fd->child_width,
               (const uint8_t *)c->child_bufs[1] + s * fd->child_width,
               (size_t)(n * fd->child_width));
      }
      pos += n;
    }
    if (str) ((int64_t *)vals)[total] = cpos;
    out->child_length = total;
    out->child_null_count = nulls;
    out->child_bufs[0] = nulls > 0 ? valid : NULL;
    out->child_bufs[1] = vals;
    out->child_lens[1] = vbytes;
    out->child_bufs[2] = chars;
    out->child_lens[2] = nchars;
  }
  /* the whole column's offsets are int64 at every level, its strings large */
  fd->width = 8;
  memcpy(fd->format, "+L", 3);
  memset(fd->level_width, 8, sizeof fd->level_width);
  if (fd->child_kind == K_STRING) {
    fd->child_width = 8;
    memcpy(fd->child_format, "U", 2);
  }
done:
  zb_free(sp);
  return st;
}
