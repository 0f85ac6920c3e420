/*
 * read.c -- the Arrow IPC file (Feather v2) and stream reader (io_ipc.h).
 *
 * How a file is read:
 *   1. The bytes (a private read-only mapping of the file, or an owned copy
 *      of a caller's buffer) go into a reference-counted ipc_file, which
 *      also owns every block decompressed from them.
 *   2. The footer (file format: "ARROW1", padding, messages, footer
 *      flatbuffer, its int32 length, "ARROW1") or else the sequence of
 *      messages (stream format) gives the Schema, the DictionaryBatch and
 *      the RecordBatch messages.  Each message is encapsulated: 0xFFFFFFFF,
 *      an int32 metadata length, the Message flatbuffer, then its body.
 *   3. Every batch of the selected columns is planned: each buffer is
 *      checked to lie inside the body and to be as long as the column's
 *      length needs; an uncompressed 8-byte-aligned buffer is used where it
 *      is, a compressed one (an int64 uncompressed length, then an LZ4
 *      frame or a zstd frame; length -1: stored raw) or a misaligned one
 *      becomes a task.
 *   4. The tasks run on the thread pool (decompress, or copy), each into
 *      its own block.
 *   5. Each batch becomes an Arrow C Data Interface struct array over
 *      those bytes (its release drops a reference to the ipc_file) and is
 *      imported by zb_table_import_arrow (its list offsets, checked here,
 *      not walked again), which shares the buffers without
 *      copying and converts what zambezi stores otherwise (int32 string
 *      offsets, dictionary indices other than int32, date64).  Several
 *      batches are concatenated column by column.
 *   With several batches, fixed-width, bool, string and utf8_view columns
 *   skip steps 3-5: each is allocated whole and every batch's buffers are
 *   decompressed (or copied) straight into their place, string offsets
 *   rebased and checked in one pass, views counted then copied
 *   (read_assembled, in read_whole.c).
 *
 * List and LargeList columns are planned, checked and described to the
 * importer by read_lists.c.
 *
 * Nothing read from the file is trusted: offsets and lengths are checked
 * against the bytes that hold them (fb.c for the flatbuffers), string
 * offsets against their character buffer, every string value's UTF-8
 * once the table is whole (utf8_check.c), and what the importer checks
 * (monotonic offsets, dictionary codes in range) becomes an error naming
 * the file too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "io/codecs.h"
#include "io/ipc/fb.h"
#include "io/ipc/ipc.h"
#include "io/ipc/read_internal.h"
#include "io/text_values.h"
#include "zambezi/arrow.h"
#include "zambezi/io.h"


const int64_t g_zeros[2] = {0, 0};

/* ---- the file and the blocks it owns ------------------------------------- */


static void file_unref(ipc_file *f) {
  if (f == NULL || zb__atomic_dec(&f->refcount) != 0) return;
  for (int64_t i = 0; i < f->n_owned; i++) zb_free(f->owned[i]);
  zb_free(f->owned);
  if (f->registered) zb__mapped_file_remove(&f->node);
  if (f->map != NULL) munmap(f->map, (size_t)f->size);
  zb_free(f->copy);
  zb_free(f);
}

/* A new block of size bytes owned by f (NULL when out of memory). */
void *file_alloc(ipc_file *f, int64_t size) {
  if (f->n_owned == f->cap_owned) {
    int64_t cap = f->cap_owned ? f->cap_owned * 2 : 64;
    void **p = (void **)zb_malloc((size_t)cap * sizeof(void *));
    if (p == NULL) return NULL;
    if (f->n_owned > 0) memcpy(p, f->owned, (size_t)f->n_owned * sizeof(void *));
    zb_free(f->owned);
    f->owned = p;
    f->cap_owned = cap;
  }
  void *b = zb_malloc((size_t)(size > 0 ? size : 1));
  if (b != NULL) f->owned[f->n_owned++] = b;
  return b;
}

/* ---- messages ------------------------------------------------------------ */

/* The Message at byte `at`: its table, and where its body starts. */
zb_status read_message(reader *r, int64_t at, zb__fbt *msg, int64_t *body,
                              int64_t *body_len, bool *eos) {
  const uint8_t *b = r->f->base;
  const int64_t n = r->f->size;
  uint32_t cont;
  int32_t len;
  *eos = false;
  if (at < 0 || at > n - 4) return corrupt(r, "a message at byte %lld lies past the end", (long long)at);
  memcpy(&cont, b + at, 4);
  if (cont == 0xFFFFFFFFu) {
    if (at > n - 8) return corrupt(r, "truncated message at byte %lld", (long long)at);
    memcpy(&len, b + at + 4, 4);
    at += 8;
  } else {
    memcpy(&len, &cont, 4); /* before Arrow 0.15: no continuation marker */
    at += 4;
  }
  if (len == 0) {
    *eos = true;
    return ZB_OK;
  }
  if (len < 0 || len > n - at)
    return corrupt(r, "the message at byte %lld claims %d bytes of metadata", (long long)at,
                   (int)len);
  if (!zb__fb_root(b + at, len, msg))
    return corrupt(r, "bad message flatbuffer at byte %lld", (long long)at);
  int64_t bl;
  if (!zb__fb_i64(msg, IPC_MSG_BODY_LENGTH, 0, &bl))
    return corrupt(r, "bad message at byte %lld", (long long)at);
  *body = at + len;
  if (bl < 0 || bl > n - *body)
    return corrupt(r, "the message at byte %lld claims a body of %lld bytes, past the end",
                   (long long)at, (long long)bl);
  *body_len = bl;
  return ZB_OK;
}

zb_status message_header(reader *r, const zb__fbt *msg, int want, zb__fbt *hdr,
                                int64_t at) {
  uint8_t type;
  bool present;
  if (!zb__fb_u8(msg, IPC_MSG_HEADER_TYPE, 0, &type) ||
      !zb__fb_table(msg, IPC_MSG_HEADER, hdr, &present) || !present)
    return corrupt(r, "bad message at byte %lld", (long long)at);
  if (type != want)
    return corrupt(r, "the message at byte %lld is of kind %d where %d was expected",
                   (long long)at, (int)type, want);
  return ZB_OK;
}

static zb_status push(reader *r, int64_t **arr, int64_t *n, int64_t *cap, int64_t v) {
  if (*n == *cap) {
    int64_t nc = *cap ? *cap * 2 : 16;
    int64_t *p = (int64_t *)zb_malloc((size_t)nc * sizeof(int64_t));
    if (p == NULL) return oom(r);
    if (*n > 0) memcpy(p, *arr, (size_t)*n * sizeof(int64_t));
    zb_free(*arr);
    *arr = p;
    *cap = nc;
  }
  (*arr)[(*n)++] = v;
  return ZB_OK;
}

static zb_status parse_schema(reader *r, const zb__fbt *schema) {
  int16_t endian;
  zb__fbv fields, meta;
  if (!zb__fb_i16(schema, IPC_SCHEMA_ENDIANNESS, 0, &endian) ||
      !zb__fb_vector(schema, IPC_SCHEMA_FIELDS, 4, &fields) ||
      !zb__fb_vector(schema, IPC_SCHEMA_METADATA, 4, &meta))
    return corrupt(r, "bad schema");
  if (endian != 0)
    return zb_error_set(r->err, ZB_ENOTSUP,
                        "'%s' is a big-endian Arrow IPC file, which zambezi does not read",
                        r->name);
  r->fields = (ipc_field *)zb_calloc((size_t)(fields.count > 0 ? fields.count : 1),
                                     sizeof(ipc_field));
  if (r->fields == NULL) return oom(r);
  r->n_fields = fields.count;
  bool known = true;
  for (int64_t i = 0; i < fields.count; i++) {
    zb__fbt fb;
    if (!zb__fb_vec_table(&fields, i, &fb)) return corrupt(r, "bad field %lld", (long long)i);
    ZB_RETURN_NOT_OK(parse_field(r, &fb, i, &r->fields[i]));
    if (!known) r->fields[i].layout_known = false; /* after a field of unknown layout */
    known = known && r->fields[i].layout_known;
  }
  for (int64_t i = 0; i < meta.count; i++) {
    zb__fbt kv;
    const char *k, *v;
    int64_t kl, vl;
    if (!zb__fb_vec_table(&meta, i, &kv) || !zb__fb_string(&kv, 0, &k, &kl) ||
        !zb__fb_string(&kv, 1, &v, &vl))
      return corrupt(r, "bad schema metadata");
    if (k != NULL && kl == 6 && memcmp(k, "pandas", 6) == 0 && v != NULL && r->pandas == NULL) {
      r->pandas = (char *)zb_malloc((size_t)vl + 1);
      if (r->pandas == NULL) return oom(r);
      memcpy(r->pandas, v, (size_t)vl);
      r->pandas[vl] = '\0';
    }
  }
  return ZB_OK;
}

/* The footer of a file, or the messages of a stream. */
static zb_status find_messages(reader *r) {
  const uint8_t *b = r->f->base;
  const int64_t n = r->f->size;
  int64_t cap_b = 0, cap_d = 0;
  zb__fbt msg, hdr;
  int64_t body, body_len;
  bool eos;
  if (n >= 6 && memcmp(b, "ARROW1", 6) == 0) {
    if (n < 18 || memcmp(b + n - 6, "ARROW1", 6) != 0)
      return corrupt(r, "the file is truncated (it does not end with the footer and ARROW1)");
    int32_t flen;
    memcpy(&flen, b + n - 10, 4);
    if (flen <= 0 || flen > n - 18)
      return corrupt(r, "the footer claims %d bytes", (int)flen);
    zb__fbt footer, schema;
    bool present;
    zb__fbv dicts, batches;
    if (!zb__fb_root(b + n - 10 - flen, flen, &footer) ||
        !zb__fb_table(&footer, IPC_FOOTER_SCHEMA, &schema, &present) || !present ||
        !zb__fb_vector(&footer, IPC_FOOTER_DICTS, IPC_BLOCK_SIZE, &dicts) ||
        !zb__fb_vector(&footer, IPC_FOOTER_BATCHES, IPC_BLOCK_SIZE, &batches))
      return corrupt(r, "bad footer");
    ZB_RETURN_NOT_OK(parse_schema(r, &schema));
    for (int64_t i = 0; i < dicts.count; i++)
      ZB_RETURN_NOT_OK(push(r, &r->dict_at, &r->n_dicts, &cap_d,
                            zb__fb_vec_i64(&dicts, i, IPC_BLOCK_SIZE, 0)));
    for (int64_t i = 0; i < batches.count; i++)
      ZB_RETURN_NOT_OK(push(r, &r->batch_at, &r->n_batches, &cap_b,
                            zb__fb_vec_i64(&batches, i, IPC_BLOCK_SIZE, 0)));
    return ZB_OK;
  }
  if (n >= 4 && memcmp(b, "FEA1", 4) == 0)
    return zb_error_set(r->err, ZB_ENOTSUP,
                        "'%s' is a Feather version 1 file (before Arrow 0.17), which zambezi "
                        "does not read; rewrite it with pyarrow as Feather version 2",
                        r->name);
  /* a stream: Schema, then dictionaries and batches, then EOS or the end */
  int64_t at = 0;
  ZB_RETURN_NOT_OK(read_message(r, at, &msg, &body, &body_len, &eos));
  if (eos) return corrupt(r, "it holds no schema");
  ZB_RETURN_NOT_OK(message_header(r, &msg, IPC_MSG_SCHEMA, &hdr, at));
  ZB_RETURN_NOT_OK(parse_schema(r, &hdr));
  at = body + body_len;
  while (at < n) {
    if (zb_cancel_requested())
      return zb_error_set(r->err, ZB_ECANCEL, "reading '%s' cancelled", r->name);
    ZB_RETURN_NOT_OK(read_message(r, at, &msg, &body, &body_len, &eos));
    if (eos) break;
    uint8_t type;
    if (!zb__fb_u8(&msg, IPC_MSG_HEADER_TYPE, 0, &type))
      return corrupt(r, "bad message at byte %lld", (long long)at);
    if (type == IPC_MSG_DICTIONARY)
      ZB_RETURN_NOT_OK(push(r, &r->dict_at, &r->n_dicts, &cap_d, at));
    else if (type == IPC_MSG_RECORD_BATCH)
      ZB_RETURN_NOT_OK(push(r, &r->batch_at, &r->n_batches, &cap_b, at));
    else
      return corrupt(r, "unexpected message of kind %d at byte %lld", (int)type, (long long)at);
    at = body + body_len;
  }
  return ZB_OK;
}

/* ---- batches ------------------------------------------------------------- */

/* Where buffer bi of a batch lies (checked against the body): *src and
 * *n, its bytes in the file (after the 8-byte length of a compressed
 * one); *ulen, its size once decompressed (0: empty); *codec, -1 when it
 * is stored raw (then *n == *ulen). */
zb_status locate_buffer(reader *r, const uint8_t *body, int64_t body_len,
                               const zb__fbv *bufs, int64_t bi, int codec, const char *col,
                               const uint8_t **src_out, int64_t *n_out, int64_t *ulen_out,
                               int *codec_out) {
  if (bi >= bufs->count) return corrupt(r, "column '%s' lacks buffers", col);
  int64_t off = zb__fb_vec_i64(bufs, bi, IPC_BUF_SIZE, 0);
  int64_t len = zb__fb_vec_i64(bufs, bi, IPC_BUF_SIZE, 8);
  if (off < 0 || len < 0 || off > body_len || len > body_len - off)
    return corrupt(r, "a buffer of column '%s' lies outside its message body", col);
  const uint8_t *src = body + off;
  *src_out = src;
  *n_out = 0;
  *ulen_out = 0;
  *codec_out = -1;
  if (len == 0) return ZB_OK;
  int64_t ulen = len;
  if (codec >= 0) {
    if (len < 8) return corrupt(r, "a compressed buffer of column '%s' is too short", col);
    memcpy(&ulen, src, 8);
    src += 8;
    len -= 8;
    if (ulen == -1) {
      ulen = len; /* stored uncompressed */
      codec = -1;
    } else if (ulen < 0) {
      return corrupt(r, "a buffer of column '%s' claims %lld bytes", col, (long long)ulen);
    } else if (ulen == 0) {
      return ZB_OK;
    } else if ((codec == 0 && ulen / 256 > len + 65536) ||
               (codec == 1 && ulen / 65536 > len + 16)) {
      /* an LZ4 frame expands at most ~255 times, a zstd frame ~32768
       * times (a 128 KiB RLE block in 4 bytes): a larger claim is a lie,
       * not an allocation to attempt */
      return corrupt(r, "a compressed buffer of column '%s' claims %lld bytes from %lld",
                     col, (long long)ulen, (long long)len);
    }
  }
  *src_out = src;
  *n_out = len;
  *ulen_out = ulen;
  *codec_out = codec;
  return ZB_OK;
}

/* A buffer of a batch: the place in the file (checked), or a task's block. */
zb_status plan_buffer(reader *r, plan *p, const uint8_t *body, int64_t body_len,
                      const zb__fbv *bufs, int64_t bi, int codec, const char *col,
                      const void **out, int64_t *out_len) {
  const uint8_t *src;
  int64_t len, ulen;
  ZB_RETURN_NOT_OK(locate_buffer(r, body, body_len, bufs, bi, codec, col, &src, &len, &ulen,
                                 &codec));
  *out = g_zeros;
  *out_len = 0;
  if (ulen == 0) return ZB_OK;
  if (codec < 0 && ((uintptr_t)src & 7) == 0) { /* used where it is */
    *out = src;
    *out_len = len;
    return ZB_OK;
  }
  if (p->n_tasks == p->cap_tasks) {
    int64_t nc = p->cap_tasks ? p->cap_tasks * 2 : 64;
    ipc_task *t = (ipc_task *)zb_malloc((size_t)nc * sizeof(ipc_task));
    if (t == NULL) return oom(r);
    if (p->n_tasks > 0) memcpy(t, p->tasks, (size_t)p->n_tasks * sizeof(ipc_task));
    zb_free(p->tasks);
    p->tasks = t;
    p->cap_tasks = nc;
  }
  uint8_t *dst = (uint8_t *)file_alloc(r->f, ulen);
  if (dst == NULL)
    return zb_error_set(r->err, ZB_ENOMEM,
                        "out of host memory reading '%s' (%lld bytes for column '%s')", r->name,
                        (long long)ulen, col);
  ipc_task *t = &p->tasks[p->n_tasks++];
  t->src = src;
  t->n = len;
  t->dst = dst;
  t->cap = ulen;
  t->codec = codec;
  *out = dst;
  *out_len = ulen;
  return ZB_OK;
}

/* The header of RecordBatch rb: its rows, nodes, buffers, variadic buffer
 * counts and codec (-1: none). */
zb_status batch_header(reader *r, const zb__fbt *rb, const char *what, int64_t *length,
                              zb__fbv *nodes, zb__fbv *bufs, zb__fbv *variadic, int *codec) {
  zb__fbt comp;
  bool has_comp;
  *codec = -1;
  if (!zb__fb_i64(rb, IPC_RB_LENGTH, 0, length) ||
      !zb__fb_vector(rb, 4, 8, variadic) || /* variadicBufferCounts */
      !zb__fb_vector(rb, IPC_RB_NODES, IPC_NODE_SIZE, nodes) ||
      !zb__fb_vector(rb, IPC_RB_BUFFERS, IPC_BUF_SIZE, bufs) ||
      !zb__fb_table(rb, IPC_RB_COMPRESSION, &comp, &has_comp))
    return corrupt(r, "bad %s", what);
  if (has_comp) {
    uint8_t c, method;
    if (!zb__fb_u8(&comp, 0, 0, &c) || !zb__fb_u8(&comp, 1, 0, &method))
      return corrupt(r, "bad compression of %s", what);
    if (c > 1 || method != 0)
      return zb_error_set(r->err, ZB_ENOTSUP,
                          "'%s': %s uses compression codec %d, method %d; zambezi reads "
                          "LZ4_FRAME and ZSTD buffers",
                          r->name, what, (int)c, (int)method);
    *codec = c;
  }
  if (*length < 0 || *length > INT64_MAX / 16)
    return corrupt(r, "%s has %lld rows", what, (long long)*length);
  return ZB_OK;
}

/* The first node, buffer and view column of field f in a batch (the
 * fields before it skipped). */
zb_status field_start(reader *r, int64_t f, const zb__fbv *variadic, const char *what,
                             int64_t *node, int64_t *buf, int64_t *view) {
  const ipc_field *fd = &r->fields[f];
  if (!fd->layout_known)
    return zb_error_set(r->err, ZB_ENOTSUP,
                        "'%s': column '%s' follows a column whose Arrow type zambezi cannot "
                        "skip (%s)",
                        r->name, fd->name, fd->why);
  *node = 0;
  *buf = 0;
  *view = 0;
  for (int64_t j = 0; j < f; j++) {
    *node += r->fields[j].n_nodes;
    *buf += r->fields[j].n_buffers;
    for (int64_t v = 0; v < r->fields[j].n_views; v++, (*view)++) {
      if (*view >= variadic->count) return corrupt(r, "%s lacks variadic buffer counts", what);
      int64_t nv = zb__fb_vec_i64(variadic, *view, 8, 0);
      if (nv < 0 || nv > (1 << 30)) return corrupt(r, "bad variadic buffer count in %s", what);
      *buf += nv;
    }
  }
  return ZB_OK;
}

/* Plan the RecordBatch rb (body at body) for the fields fsel[0, nsel) into
 * b.  what: "record batch 3" or "dictionary 0", for messages. */
static zb_status plan_batch(reader *r, plan *p, const zb__fbt *rb, const uint8_t *body,
                            int64_t body_len, const int64_t *fsel, int64_t nsel,
                            ipc_batch *b, const char *what) {
  int64_t length;
  zb__fbv nodes, bufs, variadic;
  int codec;
  ZB_RETURN_NOT_OK(batch_header(r, rb, what, &length, &nodes, &bufs, &variadic, &codec));
  b->length = length;
  /* walk the fields in order, taking the selected ones */
  for (int64_t k = 0; k < nsel; k++) {
    const ipc_field *fd = &r->fields[fsel[k]];
    int64_t node, buf, view;
    ZB_RETURN_NOT_OK(field_start(r, fsel[k], &variadic, what, &node, &buf, &view));
    if (node >= nodes.count) return corrupt(r, "%s lacks the node of column '%s'", what, fd->name);
    ipc_col *c = &b->cols[k];
    c->length = zb__fb_vec_i64(&nodes, node, IPC_NODE_SIZE, 0);
    c->null_count = zb__fb_vec_i64(&nodes, node, IPC_NODE_SIZE, 8);
    if (c->length != length)
      return corrupt(r, "column '%s' of %s has %lld rows where the batch has %lld", fd->name,
                     what, (long long)c->length, (long long)length);
    if (c->null_count < 0 || c->null_count > length)
      return corrupt(r, "column '%s' of %s has %lld nulls", fd->name, what,
                     (long long)c->null_count);
    for (int i = 0; i < 3; i++) {
      c->bufs[i] = NULL;
      c->lens[i] = 0;
    }
    if (fd->kind == K_NULL) {
      /* an all-null string column: a zero bitmap and zero int32 offsets */
      int64_t bm = (length + 7) / 8, ob = (length + 1) * 4;
      uint8_t *z = (uint8_t *)file_alloc(r->f, bm + ob + 8);
      if (z == NULL) return oom(r);
      memset(z, 0, (size_t)(bm + ob + 8));
      c->null_count = length;
      c->bufs[0] = z + ob;
      c->bufs[1] = z;
      c->bufs[2] = g_zeros;
      continue;
    }
    if (fd->kind == K_VIEW) {
      if (view >= variadic.count) return corrupt(r, "%s lacks variadic buffer counts", what);
      int64_t nv = zb__fb_vec_i64(&variadic, view, 8, 0);
      if (nv < 0 || nv > bufs.count) return corrupt(r, "bad variadic buffer count in %s", what);
      c->n_v = nv;
      c->vbufs = (const void **)file_alloc(r->f, (nv + 1) * (int64_t)sizeof(void *));
      c->vlens = (int64_t *)file_alloc(r->f, (nv + 1) * 8);
      if (c->vbufs == NULL || c->vlens == NULL) return oom(r);
      for (int i = 0; i < 2; i++)
        ZB_RETURN_NOT_OK(plan_buffer(r, p, body, body_len, &bufs, buf + i, codec, fd->name,
                                     &c->bufs[i], &c->lens[i]));
      for (int64_t v = 0; v < nv; v++)
        ZB_RETURN_NOT_OK(plan_buffer(r, p, body, body_len, &bufs, buf + 2 + v, codec, fd->name,
                                     &c->vbufs[v], &c->vlens[v]));
      if (c->lens[1] < length * 16)
        return corrupt(r, "the views of column '%s' in %s are too short", fd->name, what);
      if (c->null_count > 0 && c->lens[0] < (length + 7) / 8)
        return corrupt(r, "the validity bitmap of column '%s' in %s is too short", fd->name,
                       what);
      if (c->null_count == 0) c->bufs[0] = NULL;
      continue;
    }
    if (fd->kind == K_LIST) {
      ZB_RETURN_NOT_OK(plan_list(r, p, body, body_len, &nodes, &bufs, &variadic, node, buf,
                                 view, codec, fd, c, what));
      continue;
    }
    int nb = fd->kind == K_STRING ? 3 : 2;
    const uint8_t *bb = body;
    for (int i = 0; i < nb; i++) {
      ZB_RETURN_NOT_OK(plan_buffer(r, p, bb, body_len, &bufs, buf + i, codec, fd->name,
                                   &c->bufs[i], &c->lens[i]));
    }
    int64_t need = fd->kind == K_BOOL ? (length + 7) / 8 : length * fd->width;
    if (fd->kind == K_STRING) need = length > 0 ? (length + 1) * fd->width : 0;
    if (c->lens[1] < need)
      return corrupt(r, "a buffer of column '%s' in %s holds %lld bytes where %lld are needed",
                     fd->name, what, (long long)c->lens[1], (long long)need);
    if (c->null_count > 0 && c->lens[0] < (length + 7) / 8)
      return corrupt(r, "the validity bitmap of column '%s' in %s is too short", fd->name,
                     what);
    if (c->null_count == 0) c->bufs[0] = NULL;
  }
  return ZB_OK;
}

/* Strings' last offset inside their characters (after the tasks ran). */
zb_status check_strings(reader *r, const ipc_col *c, int width, const char *col,
                        const char *what) {
  if (c->length == 0) return ZB_OK;
  int64_t last;
  if (width == 4) {
    int32_t v;
    memcpy(&v, (const uint8_t *)c->bufs[1] + c->length * 4, 4);
    last = v;
  } else {
    memcpy(&last, (const uint8_t *)c->bufs[1] + c->length * 8, 8);
  }
  if (last < 0 || last > c->lens[2])
    return corrupt(r, "the strings of column '%s' in %s end at byte %lld of %lld", col, what,
                   (long long)last, (long long)c->lens[2]);
  return ZB_OK;
}

static void run_task(void *ctx, int64_t i, int worker) {
  (void)worker;
  plan *p = (plan *)ctx;
  ipc_task *t = &p->tasks[i];
  zb_error e;
  zb_status st;
  if (t->codec < 0) {
    memcpy(t->dst, t->src, (size_t)t->cap);
    return;
  }
  if (t->codec == 0)
    st = zb__lz4frame_block(t->src, t->n, t->dst, t->cap, &e);
  else
    st = zb__zstd_block(t->src, t->n, t->dst, t->cap, &e);
  if (st != ZB_OK) {
    pthread_mutex_lock(&p->lock);
    if (p->status == ZB_OK) {
      p->status = st;
      p->err = e;
    }
    pthread_mutex_unlock(&p->lock);
  }
}

/* utf8_view -> large_utf8: each view is an int32 length, then the string
 * itself when it fits in 12 bytes, else a 4-byte prefix, the int32 index
 * of a variadic buffer and the int32 offset in it. */
typedef struct view_job {
  reader *r;
  ipc_col **cols;
  const char **names;
  zb_status status;
  zb_error err;
  pthread_mutex_t lock;
} view_job;

static zb_status convert_views(reader *r, ipc_col *c, const char *col, zb_error *err) {
  const uint8_t *v = (const uint8_t *)c->bufs[1];
  const uint8_t *valid = (const uint8_t *)c->bufs[0];
  const int64_t n = c->length;
  int64_t *offs;
  int64_t total = 0;
  pthread_mutex_lock(&((view_job *)r->view_ctx)->lock);
  offs = (int64_t *)file_alloc(r->f, (n + 1) * 8);
  pthread_mutex_unlock(&((view_job *)r->view_ctx)->lock);
  if (offs == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory reading '%s'", r->name);
  offs[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    int32_t len = 0;
    if (valid == NULL || zb_bit_get(valid, i)) {
      memcpy(&len, v + 16 * i, 4);
      if (len < 0)
        return zb_error_set(err, ZB_EPARSE, "'%s' is not a valid Arrow IPC file: a string of "
                            "column '%s' has length %d", r->name, col, (int)len);
      if (len > 12) {
        int32_t bi, off;
        memcpy(&bi, v + 16 * i + 8, 4);
        memcpy(&off, v + 16 * i + 12, 4);
        if (bi < 0 || bi >= c->n_v || off < 0 || (int64_t)off + len > c->vlens[bi])
          return zb_error_set(err, ZB_EPARSE, "'%s' is not a valid Arrow IPC file: a string "
                              "of column '%s' lies outside its data buffers", r->name, col);
      }
    }
    total += len;
    offs[i + 1] = total;
  }
  pthread_mutex_lock(&((view_job *)r->view_ctx)->lock);
  uint8_t *chars = (uint8_t *)file_alloc(r->f, total);
  pthread_mutex_unlock(&((view_job *)r->view_ctx)->lock);
  if (chars == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory reading '%s'", r->name);
  for (int64_t i = 0; i < n; i++) {
    int64_t len = offs[i + 1] - offs[i];
    if (len == 0) continue;
    const uint8_t *src;
    if (len <= 12) {
      src = v + 16 * i + 4;
    } else {
      int32_t bi, off;
      memcpy(&bi, v + 16 * i + 8, 4);
      memcpy(&off, v + 16 * i + 12, 4);
      src = (const uint8_t *)c->vbufs[bi] + off;
    }
    memcpy(chars + offs[i], src, (size_t)len);
  }
  c->bufs[1] = offs;
  c->lens[1] = (n + 1) * 8;
  c->bufs[2] = chars;
  c->lens[2] = total;
  return ZB_OK;
}

static void view_task(void *ctx, int64_t i, int worker) {
  (void)worker;
  view_job *j = (view_job *)ctx;
  zb_error e;
  zb_status st = convert_views(j->r, j->cols[i], j->names[i], &e);
  if (st != ZB_OK) {
    pthread_mutex_lock(&j->lock);
    if (j->status == ZB_OK) {
      j->status = st;
      j->err = e;
    }
    pthread_mutex_unlock(&j->lock);
  }
}

/* ---- C Data Interface views ---------------------------------------------- */

typedef struct schema_priv {
  struct ArrowSchema *kids;
  struct ArrowSchema **kid_ptrs;
  struct ArrowSchema *dicts;
  void **lists; /* list columns: their children's schemas (list_schema) */
  int64_t n;
} schema_priv;

static void child_schema_release(struct ArrowSchema *s) { s->release = NULL; }

static void schema_release(struct ArrowSchema *s) {
  schema_priv *p = (schema_priv *)s->private_data;
  zb_free(p->kids);
  zb_free(p->kid_ptrs);
  zb_free(p->dicts);
  for (int64_t k = 0; p->lists != NULL && k < p->n; k++) zb_free(p->lists[k]);
  zb_free(p->lists);
  zb_free(p);
  s->release = NULL;
}

static zb_status make_schema(reader *r, struct ArrowSchema *s) {
  int64_t n = r->n_sel;
  schema_priv *p = (schema_priv *)zb_calloc(1, sizeof *p);
  if (p == NULL) return oom(r);
  p->kids = (struct ArrowSchema *)zb_calloc((size_t)(n ? n : 1), sizeof(struct ArrowSchema));
  p->kid_ptrs = (struct ArrowSchema **)zb_calloc((size_t)(n ? n : 1), sizeof(void *));
  p->dicts = (struct ArrowSchema *)zb_calloc((size_t)(n ? n : 1), sizeof(struct ArrowSchema));
  p->lists = (void **)zb_calloc((size_t)(n ? n : 1), sizeof(void *));
  p->n = n;
  memset(s, 0, sizeof *s);
  s->format = "+s";
  s->name = "";
  s->n_children = n;
  s->children = p->kid_ptrs;
  s->private_data = p;
  s->release = schema_release;
  if (p->kids == NULL || p->kid_ptrs == NULL || p->dicts == NULL || p->lists == NULL) {
    schema_release(s);
    return oom(r);
  }
  for (int64_t k = 0; k < n; k++) {
    ipc_field *fd = &r->fields[r->sel[k]];
    struct ArrowSchema *c = &p->kids[k];
    p->kid_ptrs[k] = c;
    c->format = fd->kind == K_NULL ? "u" : fd->format;
    c->name = fd->name;
    c->flags = 2; /* ARROW_FLAG_NULLABLE */
    c->release = child_schema_release;
    if (fd->kind == K_LIST && list_schema(r, fd, c, &p->lists[k]) != ZB_OK) {
      schema_release(s);
      return oom(r);
    }
    if (fd->kind == K_DICT) {
      struct ArrowSchema *d = &p->dicts[k];
      d->format = fd->value_format;
      d->name = "";
      d->release = child_schema_release;
      c->dictionary = d;
    }
  }
  return ZB_OK;
}

typedef struct array_priv {
  ipc_file *f;
  struct ArrowArray *kids, **kid_ptrs, *dicts;
  void **lists; /* list columns: their children (list_array) */
  int64_t n;
  const void **bufs; /* 3 per child, 3 per dictionary */
} array_priv;

static void child_array_release(struct ArrowArray *a) { a->release = NULL; }

static void array_release(struct ArrowArray *a) {
  array_priv *p = (array_priv *)a->private_data;
  file_unref(p->f);
  zb_free(p->kids);
  zb_free(p->kid_ptrs);
  zb_free(p->dicts);
  for (int64_t k = 0; p->lists != NULL && k < p->n; k++) zb_free(p->lists[k]);
  zb_free(p->lists);
  zb_free(p->bufs);
  zb_free(p);
  a->release = NULL;
}

static const void *g_struct_bufs[1] = {NULL};

/* The struct array of batch b; dicts[k]: the dictionary of selected column
 * k (NULL unless a dictionary column). */
static zb_status make_array(reader *r, ipc_file *owner, const ipc_batch *b,
                            ipc_batch *const *dicts, struct ArrowArray *a) {
  int64_t n = r->n_sel;
  array_priv *p = (array_priv *)zb_calloc(1, sizeof *p);
  if (p == NULL) return oom(r);
  p->kids = (struct ArrowArray *)zb_calloc((size_t)(n ? n : 1), sizeof(struct ArrowArray));
  p->kid_ptrs = (struct ArrowArray **)zb_calloc((size_t)(n ? n : 1), sizeof(void *));
  p->dicts = (struct ArrowArray *)zb_calloc((size_t)(n ? n : 1), sizeof(struct ArrowArray));
  p->bufs = (const void **)zb_calloc((size_t)(n ? n : 1) * 6, sizeof(void *));
  p->lists = (void **)zb_calloc((size_t)(n ? n : 1), sizeof(void *));
  p->n = n;
  memset(a, 0, sizeof *a);
  a->length = b->length;
  a->n_buffers = 1;
  a->buffers = g_struct_bufs;
  a->n_children = n;
  a->children = p->kid_ptrs;
  a->private_data = p;
  a->release = array_release;
  if (p->kids == NULL || p->kid_ptrs == NULL || p->dicts == NULL || p->bufs == NULL ||
      p->lists == NULL) {
    array_release(a);
    return oom(r);
  }
  p->f = owner;
  zb__atomic_inc(&owner->refcount);
  for (int64_t k = 0; k < n; k++) {
    const ipc_field *fd = &r->fields[r->sel[k]];
    const ipc_col *c = &b->cols[k];
    struct ArrowArray *ca = &p->kids[k];
    p->kid_ptrs[k] = ca;
    const void **cb = p->bufs + 6 * k;
    ca->length = c->length;
    ca->null_count = c->null_count;
    ca->n_buffers = fd->kind == K_STRING || fd->kind == K_VIEW || fd->kind == K_NULL ? 3 : 2;
    for (int i = 0; i < 3; i++) cb[i] = c->bufs[i];
    ca->buffers = cb;
    ca->release = child_array_release;
    if (fd->kind == K_LIST && list_array(r, fd, c, ca, cb, &p->lists[k]) != ZB_OK) {
      array_release(a);
      return oom(r);
    }
    if (fd->kind == K_DICT) {
      const ipc_col *dc = &dicts[k]->cols[0];
      struct ArrowArray *da = &p->dicts[k];
      for (int i = 0; i < 3; i++) cb[3 + i] = dc->bufs[i];
      da->length = dc->length;
      da->null_count = dc->null_count;
      da->n_buffers = 3;
      da->buffers = cb + 3;
      da->release = child_array_release;
      ca->dictionary = da;
    }
  }
  return ZB_OK;
}

/* Prefix an import error with the file and batch. */
zb_status import_failed(reader *r, zb_status st, const char *what) {
  if (st == ZB_ENOMEM || st == ZB_ECANCEL || r->err == NULL) return st;
  char msg[ZB_ERROR_MESSAGE_SIZE];
  memcpy(msg, r->err->message, sizeof msg);
  const char *m = strncmp(msg, "import: ", 8) == 0 ? msg + 8 : msg;
  if (st == ZB_EINVAL) st = ZB_EPARSE; /* the data broke a rule of the format */
  return zb_error_set(r->err, st, "'%s' (%s): %s", r->name, what, m);
}

/* ---- the read ------------------------------------------------------------ */

static zb_status select_columns(reader *r, const zb_ipc_options *o) {
  bool all = o == NULL || o->columns == NULL;
  r->n_sel = all ? r->n_fields : o->num_columns;
  r->sel = (int64_t *)zb_malloc((size_t)(r->n_sel > 0 ? r->n_sel : 1) * sizeof(int64_t));
  if (r->sel == NULL) return oom(r);
  for (int64_t k = 0; k < r->n_sel; k++) {
    int64_t j = k;
    if (!all) {
      const char *want = o->columns[k];
      if (want == NULL) return zb_error_set(r->err, ZB_EINVAL, "read_ipc: column name is NULL");
      for (j = 0; j < r->n_fields && strcmp(r->fields[j].name, want) != 0; j++) {
      }
      if (j == r->n_fields)
        return zb_error_set(r->err, ZB_EKEY, "'%s' has no column '%s'", r->name, want);
    }
    r->sel[k] = j;
    const ipc_field *fd = &r->fields[j];
    if (fd->kind == K_UNSUPPORTED)
      return zb_error_set(r->err, ZB_ENOTSUP,
                          "'%s': column '%s' has %s, which zambezi does not read (select "
                          "other columns with columns=)",
                          r->name, fd->name, fd->why);
  }
  return ZB_OK;
}

/* Record batch b's header and body (what: "record batch b", for
 * messages), after a Ctrl-C check. */
zb_status batch_message(reader *r, int64_t b, zb__fbt *hdr, int64_t *body, int64_t *body_len,
                        char *what, size_t what_size) {
  if (zb_cancel_requested())
    return zb_error_set(r->err, ZB_ECANCEL, "reading '%s' cancelled", r->name);
  snprintf(what, what_size, "record batch %lld", (long long)b);
  zb__fbt msg;
  bool eos;
  ZB_RETURN_NOT_OK(read_message(r, r->batch_at[b], &msg, body, body_len, &eos));
  if (eos) return corrupt(r, "%s is missing", what);
  return message_header(r, &msg, IPC_MSG_RECORD_BATCH, hdr, r->batch_at[b]);
}

/* Every batch of the selected columns, imported batch by batch and
 * concatenated (one batch: shared where it lies in the file). */
zb_status read_batches(reader *r, zb_table **out) {
  zb_status st = ZB_OK;
  plan p;
  memset(&p, 0, sizeof p);
  pthread_mutex_init(&p.lock, NULL);
  ipc_batch *batches = NULL, *dbatches = NULL, **col_dicts = NULL;
  zb_table **tables = NULL;
  zb_column **parts = NULL, **cols = NULL;
  const char **names = NULL;
  int64_t nb = 0, ntab = 0;
  struct ArrowSchema schema;
  schema.release = NULL;
  bool merge = false;
  ipc_batch merged;
  ipc_col *mcols = NULL;
  ipc_file *own = NULL; /* the merged columns' blocks */

  const int64_t ns = r->n_sel;
  nb = r->n_batches;
  batches = (ipc_batch *)zb_calloc((size_t)(nb > 0 ? nb : 1), sizeof(ipc_batch));
  dbatches = (ipc_batch *)zb_calloc((size_t)(r->n_dicts > 0 ? r->n_dicts : 1), sizeof(ipc_batch));
  col_dicts = (ipc_batch **)zb_calloc((size_t)(ns > 0 ? ns : 1), sizeof(ipc_batch *));
  if (batches == NULL || dbatches == NULL || col_dicts == NULL) {
    st = oom(r);
    goto done;
  }
  for (int64_t i = 0; i < nb; i++) {
    batches[i].cols = (ipc_col *)zb_calloc((size_t)(ns > 0 ? ns : 1), sizeof(ipc_col));
    if (batches[i].cols == NULL) {
      st = oom(r);
      goto done;
    }
  }
  /* dictionaries of the selected columns */
  for (int64_t i = 0; i < r->n_dicts; i++) {
    zb__fbt msg, hdr, rb;
    int64_t body, body_len, id;
    bool eos, present, delta_b;
    uint8_t delta;
    char what[64];
    snprintf(what, sizeof what, "dictionary batch %lld", (long long)i);
    if ((st = read_message(r, r->dict_at[i], &msg, &body, &body_len, &eos)) != ZB_OK) goto done;
    if (eos) {
      st = corrupt(r, "%s is missing", what);
      goto done;
    }
    if ((st = message_header(r, &msg, IPC_MSG_DICTIONARY, &hdr, r->dict_at[i])) != ZB_OK)
      goto done;
    if (!zb__fb_i64(&hdr, IPC_DB_ID, 0, &id) || !zb__fb_u8(&hdr, IPC_DB_DELTA, 0, &delta) ||
        !zb__fb_table(&hdr, IPC_DB_DATA, &rb, &present) || !present) {
      st = corrupt(r, "bad %s", what);
      goto done;
    }
    delta_b = delta != 0;
    int64_t k;
    for (k = 0; k < ns; k++) {
      const ipc_field *fd = &r->fields[r->sel[k]];
      if (fd->kind == K_DICT && fd->dict_id == id) break;
    }
    if (k == ns) continue; /* not wanted */
    const ipc_field *fd = &r->fields[r->sel[k]];
    if (delta_b || col_dicts[k] != NULL) {
      st = zb_error_set(r->err, ZB_ENOTSUP,
                        "'%s': the dictionary of column '%s' is sent in several parts (delta "
                        "or replacement dictionaries), which zambezi does not read yet",
                        r->name, fd->name);
      goto done;
    }
    dbatches[i].cols = (ipc_col *)zb_calloc(1, sizeof(ipc_col));
    if (dbatches[i].cols == NULL) {
      st = oom(r);
      goto done;
    }
    /* the dictionary's one column, planned as a string field */
    ipc_field vf = *fd;
    vf.kind = fd->value_kind;
    vf.width = fd->value_width;
    vf.n_nodes = 1;
    vf.n_buffers = vf.kind == K_VIEW ? 2 : 3;
    vf.n_views = vf.kind == K_VIEW ? 1 : 0;
    vf.layout_known = true;
    ipc_field *saved = r->fields;
    int64_t saved_n = r->n_fields;
    int64_t zero = 0;
    r->fields = &vf;
    r->n_fields = 1;
    st = plan_batch(r, &p, &rb, r->f->base + body, body_len, &zero, 1, &dbatches[i], what);
    r->fields = saved;
    r->n_fields = saved_n;
    if (st != ZB_OK) goto done;
    if (dbatches[i].cols[0].null_count != 0) {
      st = corrupt(r, "the dictionary of column '%s' holds nulls", fd->name);
      goto done;
    }
    col_dicts[k] = &dbatches[i];
    for (int64_t k2 = k + 1; k2 < ns; k2++) { /* columns sharing the dictionary */
      const ipc_field *f2 = &r->fields[r->sel[k2]];
      if (f2->kind == K_DICT && f2->dict_id == id) col_dicts[k2] = &dbatches[i];
    }
  }
  for (int64_t i = 0; i < nb; i++) {
    zb__fbt hdr;
    int64_t body, body_len;
    char what[64];
    if ((st = batch_message(r, i, &hdr, &body, &body_len, what, sizeof what)) != ZB_OK) goto done;
    if ((st = plan_batch(r, &p, &hdr, r->f->base + body, body_len, r->sel, ns, &batches[i],
                         what)) != ZB_OK)
      goto done;
    if (batches[i].length > 0)
      for (int64_t k = 0; k < ns; k++)
        if (r->fields[r->sel[k]].kind == K_DICT && col_dicts[k] == NULL) {
          st = corrupt(r, "column '%s' has no dictionary", r->fields[r->sel[k]].name);
          goto done;
        }
  }
  /* decompress and realign */
  if (p.n_tasks > 0) {
    st = zb_parallel_for(p.n_tasks, run_task, &p, r->err);
    if (st == ZB_OK && p.status != ZB_OK) {
      st = zb_error_set(r->err, p.status, "'%s': %s", r->name, p.err.message);
    }
    if (st != ZB_OK) goto done;
  }
  /* utf8_view columns become large_utf8 (in parallel over batches and columns) */
  {
    int64_t nv = 0;
    for (int64_t k = 0; k < ns; k++)
      if (r->fields[r->sel[k]].kind == K_VIEW ||
          (r->fields[r->sel[k]].kind == K_LIST && r->fields[r->sel[k]].child_kind == K_VIEW))
        nv += nb;
    for (int64_t i = 0; i < r->n_dicts; i++) nv += dbatches[i].cols != NULL;
    if (nv > 0) {
      view_job job;
      memset(&job, 0, sizeof job);
      job.r = r;
      job.cols = (ipc_col **)zb_malloc((size_t)nv * sizeof(ipc_col *));
      job.names = (const char **)zb_malloc((size_t)nv * sizeof(char *));
      if (job.cols == NULL || job.names == NULL) {
        zb_free(job.cols);
        zb_free((void *)job.names);
        st = oom(r);
        goto done;
      }
      int64_t m = 0;
      for (int64_t k = 0; k < ns; k++)
        if (r->fields[r->sel[k]].kind == K_VIEW)
          for (int64_t i = 0; i < nb; i++) {
            job.cols[m] = &batches[i].cols[k];
            job.names[m++] = r->fields[r->sel[k]].name;
          }
      for (int64_t k = 0; k < ns; k++) /* the values of lists of views */
        if (r->fields[r->sel[k]].kind == K_LIST && r->fields[r->sel[k]].child_kind == K_VIEW)
          for (int64_t i = 0; i < nb; i++)
            if (batches[i].cols[k].leaf != NULL) {
              job.cols[m] = batches[i].cols[k].leaf;
              job.names[m++] = r->fields[r->sel[k]].name;
            }
      for (int64_t k = 0; k < ns; k++) { /* dictionaries of views */
        const ipc_field *fd = &r->fields[r->sel[k]];
        if (fd->kind != K_DICT || fd->value_kind != K_VIEW || col_dicts[k] == NULL) continue;
        bool seen = false;
        for (int64_t q = 0; q < m; q++) seen = seen || job.cols[q] == &col_dicts[k]->cols[0];
        if (!seen) {
          job.cols[m] = &col_dicts[k]->cols[0];
          job.names[m++] = fd->name;
        }
      }
      nv = m;
      pthread_mutex_init(&job.lock, NULL);
      r->view_ctx = &job;
      st = zb_parallel_for(nv, view_task, &job, r->err);
      r->view_ctx = NULL;
      pthread_mutex_destroy(&job.lock);
      zb_free(job.cols);
      zb_free((void *)job.names);
      if (st == ZB_OK && job.status != ZB_OK)
        st = zb_error_set(r->err, job.status, "%s", job.err.message);
      if (st != ZB_OK) goto done;
      for (int64_t k = 0; k < ns; k++) /* converted list values: now large_utf8 */
        for (int64_t i = 0; i < nb; i++) {
          ipc_col *c = &batches[i].cols[k];
          if (r->fields[r->sel[k]].kind != K_LIST || c->leaf == NULL) continue;
          for (int b = 1; b < 3; b++) {
            c->child_bufs[b] = c->leaf->bufs[b];
            c->child_lens[b] = c->leaf->lens[b];
          }
        }
    }
  }
  /* strings end inside their characters */
  for (int64_t k = 0; k < ns; k++) {
    const ipc_field *fd = &r->fields[r->sel[k]];
    if (fd->kind == K_DICT && col_dicts[k] != NULL &&
        (st = check_strings(r, &col_dicts[k]->cols[0], fd->value_width, fd->name,
                            "its dictionary")) != ZB_OK)
      goto done;
    if (fd->kind == K_LIST)
      for (int64_t i = 0; i < nb; i++)
        if ((st = check_list(r, fd, &batches[i].cols[k], "a record batch")) != ZB_OK) goto done;
    if (fd->kind != K_STRING) continue;
    for (int64_t i = 0; i < nb; i++)
      if ((st = check_strings(r, &batches[i].cols[k], fd->width, fd->name, "a record batch")) !=
          ZB_OK)
        goto done;
  }
  /* several batches of list columns only (read_mixed sends them here
   * apart): each merged into one whole column, imported once */
  merge = nb > 1 && ns > 0;
  for (int64_t k = 0; k < ns; k++) merge = merge && r->fields[r->sel[k]].kind == K_LIST;
  if (merge) {
    merged.length = 0;
    for (int64_t i = 0; i < nb; i++) merged.length += batches[i].length;
    merged.cols = mcols = (ipc_col *)zb_calloc((size_t)ns, sizeof(ipc_col));
    own = (ipc_file *)zb_calloc(1, sizeof *own);
    if (own != NULL) own->refcount = 1; /* file_unref'ed at the end */
    if (mcols == NULL || own == NULL) {
      st = oom(r);
      goto done;
    }
    for (int64_t k = 0; k < ns; k++)
      if ((st = merge_list(r, own, &r->fields[r->sel[k]], batches, nb, k, &mcols[k])) != ZB_OK)
        goto done;
  }
  /* import */
  if ((st = make_schema(r, &schema)) != ZB_OK) goto done;
  ipc_batch empty;
  ipc_col *empty_cols = NULL;
  int64_t n_imp = merge ? 1 : nb > 0 ? nb : 1;
  tables = (zb_table **)zb_calloc((size_t)n_imp, sizeof(zb_table *));
  empty_cols = nb > 0 ? NULL : (ipc_col *)zb_calloc((size_t)(ns > 0 ? ns : 1), sizeof(ipc_col));
  if (tables == NULL || (nb == 0 && empty_cols == NULL)) {
    zb_free(empty_cols);
    st = oom(r);
    goto done;
  }
  ipc_batch empty_dict;
  ipc_col empty_dict_col;
  memset(&empty_dict_col, 0, sizeof empty_dict_col);
  empty_dict_col.bufs[1] = g_zeros;
  empty_dict_col.bufs[2] = g_zeros;
  empty_dict.length = 0;
  empty_dict.cols = &empty_dict_col;
  if (nb == 0) {
    empty.length = 0;
    empty.cols = empty_cols;
    for (int64_t k = 0; k < ns; k++) {
      empty_cols[k].bufs[1] = g_zeros;
      empty_cols[k].bufs[2] = g_zeros;
    }
  }
  for (int64_t k = 0; k < ns; k++)
    if (col_dicts[k] == NULL) col_dicts[k] = &empty_dict;
  for (int64_t i = 0; i < n_imp; i++) {
    if (zb_cancel_requested()) {
      st = zb_error_set(r->err, ZB_ECANCEL, "reading '%s' cancelled", r->name);
      zb_free(empty_cols);
      goto done;
    }
    struct ArrowArray arr;
    st = make_array(r, merge ? own : r->f, merge ? &merged : nb > 0 ? &batches[i] : &empty,
                    col_dicts, &arr);
    if (st == ZB_OK) {
      st = zb__table_import_arrow_checked(&schema, &arr, &tables[i], r->err);
      if (arr.release != NULL) arr.release(&arr);
    }
    if (st != ZB_OK) {
      char what[64];
      snprintf(what, sizeof what, "record batch %lld", (long long)i);
      st = import_failed(r, st, what);
      zb_free(empty_cols);
      goto done;
    }
    ntab++;
  }
  zb_free(empty_cols);
  if (ntab == 1) {
    *out = tables[0];
    tables[0] = NULL;
    goto done;
  }
  cols = (zb_column **)zb_calloc((size_t)(ns > 0 ? ns : 1), sizeof(zb_column *));
  names = (const char **)zb_calloc((size_t)(ns > 0 ? ns : 1), sizeof(char *));
  parts = (zb_column **)zb_calloc((size_t)ntab, sizeof(zb_column *));
  if (cols == NULL || names == NULL || parts == NULL) {
    st = oom(r);
    goto done;
  }
  for (int64_t k = 0; k < ns; k++) {
    names[k] = r->fields[r->sel[k]].name;
    for (int64_t i = 0; i < ntab; i++) parts[i] = tables[i]->columns[k];
    if ((st = zb_column_concat(parts, ntab, &cols[k], r->err)) != ZB_OK) goto done;
  }
  st = zb_table_make(ns, cols, names, out, r->err);

done:
  if (cols != NULL)
    for (int64_t k = 0; k < r->n_sel; k++) zb_column_release(cols[k]);
  zb_free(cols);
  zb_free((void *)names);
  zb_free(parts);
  for (int64_t i = 0; i < ntab; i++) zb_table_release(tables[i]);
  zb_free(tables);
  if (schema.release != NULL) schema.release(&schema);
  for (int64_t i = 0; i < nb && batches != NULL; i++) {
    for (int64_t k = 0; batches[i].cols != NULL && k < r->n_sel; k++) {
      zb_free(batches[i].cols[k].levels);
      zb_free(batches[i].cols[k].leaf);
    }
    zb_free(batches[i].cols);
  }
  zb_free(batches);
  for (int64_t i = 0; i < r->n_dicts && dbatches != NULL; i++) zb_free(dbatches[i].cols);
  zb_free(dbatches);
  for (int64_t k = 0; mcols != NULL && k < ns; k++) zb_free(mcols[k].levels);
  zb_free(mcols);
  file_unref(own);
  zb_free(col_dicts);
  zb_free(p.tasks);
  pthread_mutex_destroy(&p.lock);
  return st;
}


static zb_status read_all(reader *r, const zb_ipc_options *o, zb_table **out) {
  ZB_RETURN_NOT_OK(find_messages(r));
  ZB_RETURN_NOT_OK(select_columns(r, o));
  if (r->n_batches > 1 && r->n_sel > 0) return read_mixed(r, out);
  return read_batches(r, out);
}

void zb_ipc_options_init(zb_ipc_options *o) { memset(o, 0, sizeof *o); }

/* Read from f (one reference, handed over). */
static zb_status read_file_bytes(ipc_file *f, const char *name, const zb_ipc_options *opts,
                                 zb_table **out, zb_error *err) {
  reader r;
  memset(&r, 0, sizeof r);
  r.name = name;
  r.f = f;
  r.err = err;
  zb_status st = read_all(&r, opts, out);
  if (st == ZB_OK) { /* Arrow's strings are UTF-8, but nothing in a file says they are */
    char msg[400];
    st = zb__table_utf8_check(*out, msg, sizeof msg, err);
    if (st == ZB_OK && msg[0] != '\0') st = corrupt(&r, "%s", msg);
  }
  if (st == ZB_OK && opts != NULL && opts->pandas_metadata != NULL) {
    *opts->pandas_metadata = r.pandas;
    r.pandas = NULL;
  }
  if (st != ZB_OK) {
    zb_table_release(*out);
    *out = NULL;
  }
  for (int64_t i = 0; i < r.n_fields; i++) zb_free(r.fields[i].name);
  zb_free(r.fields);
  zb_free(r.pandas);
  zb_free(r.sel);
  zb_free(r.batch_at);
  zb_free(r.dict_at);
  file_unref(f);
  return st;
}

zb_status zb_ipc_read_buffer(const void *data, int64_t size, const char *name,
                             const zb_ipc_options *opts, zb_table **out, zb_error *err) {
  ZB_NAME_OP("read_ipc");
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "read_ipc: out is NULL");
  *out = NULL;
  if (opts != NULL && opts->pandas_metadata != NULL) *opts->pandas_metadata = NULL;
  if (size < 0 || (data == NULL && size > 0))
    return zb_error_set(err, ZB_EINVAL, "read_ipc: invalid buffer");
  if (name == NULL) name = "<buffer>";
  ipc_file *f = (ipc_file *)zb_calloc(1, sizeof *f);
  void *copy = zb_malloc((size_t)(size > 0 ? size : 1));
  if (f == NULL || copy == NULL) {
    zb_free(f);
    zb_free(copy);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory reading '%s'", name);
  }
  if (size > 0) memcpy(copy, data, (size_t)size);
  f->copy = copy;
  f->base = (const uint8_t *)copy;
  f->size = size;
  f->refcount = 1;
  return read_file_bytes(f, name, opts, out, err);
}

zb_status zb_ipc_read_file(const char *path, const zb_ipc_options *opts, zb_table **out,
                           zb_error *err) {
  ZB_NAME_OP("read_ipc");
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "read_ipc: out is NULL");
  *out = NULL;
  if (opts != NULL && opts->pandas_metadata != NULL) *opts->pandas_metadata = NULL;
  if (path == NULL) return zb_error_set(err, ZB_EINVAL, "read_ipc: path is NULL");
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return zb_error_set(err, ZB_EIO, "cannot open '%s': %s", path, strerror(errno));
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    close(fd);
    return zb_error_set(err, ZB_EIO, "'%s' is not a regular file", path);
  }
  if (sb.st_size < 8) {
    close(fd);
    return zb_error_set(err, ZB_EPARSE, "'%s' is not an Arrow IPC file (%lld bytes)", path,
                        (long long)sb.st_size);
  }
  void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  int e = errno;
  close(fd);
  if (m == MAP_FAILED) return zb_error_set(err, ZB_EIO, "cannot map '%s': %s", path, strerror(e));
  ipc_file *f = (ipc_file *)zb_calloc(1, sizeof *f);
  if (f == NULL) {
    munmap(m, (size_t)sb.st_size);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory reading '%s'", path);
  }
  f->map = m;
  f->base = (const uint8_t *)m;
  f->size = (int64_t)sb.st_size;
  f->refcount = 1;
  f->node.dev = (uint64_t)sb.st_dev;
  f->node.ino = (uint64_t)sb.st_ino;
  zb__mapped_file_add(&f->node);
  f->registered = true;
  return read_file_bytes(f, path, opts, out, err);
}
