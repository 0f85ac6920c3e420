/*
 * write.c -- the Arrow IPC file (Feather v2) writer (io_ipc.h).
 *
 * The file: "ARROW1" and two bytes of padding; the Schema message; one
 * DictionaryBatch per categorical column (its id: the column's position);
 * the RecordBatch messages; the end-of-stream marker; the Footer
 * flatbuffer (the schema again and the Blocks saying where each batch
 * is), its int32 length, and "ARROW1".  Each message is 0xFFFFFFFF, the
 * int32 length of the flatbuffer (padded to 8), the flatbuffer, then the
 * body: the buffers one after another, each padded to 8 bytes.
 *
 * Buffers are taken from the columns as they are when their rows start at
 * a byte (validity and bool bitmaps) or at offset 0 (string offsets);
 * otherwise (a slice, or a record batch after the first) a shifted or
 * rebased copy is made.  Compressed bodies hold, per buffer, its int64
 * uncompressed length then one LZ4 frame or zstd frame; every buffer is
 * compressed on the thread pool before the first byte is written.  A list
 * column is a LargeList: its node, validity and (rebased) offsets, then
 * its child's rows that its lists span, as a column of their own (a list
 * of lists recursing, to the list dtype's depth).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>

#include "core/internal.h"
#include "core/dtype_list.h"
#include "io/codecs.h"
#include "io/file_sink.h"
#include "io/ipc/fb.h"
#include "io/ipc/ipc.h"
#include "zambezi/io.h"

static const uint8_t g_pad[8] = {0};

typedef struct piece {
  const uint8_t *p; /* the bytes to write */
  int64_t n;
  uint8_t *tmp;     /* a copy made for them (freed at the end) */
  uint8_t *z;       /* compressed: the frame (without the length) */
  int64_t zn;
} piece;

typedef struct wnode {
  int64_t length, null_count; /* as struct FieldNode */
} wnode;

typedef struct wmsg {
  int kind; /* IPC_MSG_DICTIONARY or IPC_MSG_RECORD_BATCH */
  int64_t length, dict_id;
  int64_t first_piece, n_pieces, first_node, n_nodes;
} wmsg;

typedef struct writer {
  const zb_table *t;
  const zb_ipc_write_options *o;
  zb_error *err;
  piece *pieces;
  int64_t n_pieces, cap_pieces;
  wnode *nodes;
  int64_t n_nodes, cap_nodes;
  wmsg *msgs;
  int64_t n_msgs, cap_msgs;
  /* compression results */
  zb_status status;
  zb_error task_err;
  pthread_mutex_t lock;
  /* output */
  zb_ipc_write_fn write;
  void *ctx;
  int64_t pos;
} writer;

static zb_status w_oom(writer *w) {
  return zb_error_set(w->err, ZB_ENOMEM, "out of host memory (write_ipc)");
}

#define GROW(w, arr, n, cap, type)                                              \
  do {                                                                          \
    if ((n) == (cap)) {                                                         \
      int64_t nc_ = (cap) ? (cap) * 2 : 32;                                     \
      type *p_ = (type *)zb_malloc((size_t)nc_ * sizeof(type));                 \
      if (p_ == NULL) return w_oom(w);                                          \
      if ((n) > 0) memcpy(p_, (arr), (size_t)(n) * sizeof(type));              \
      zb_free(arr);                                                             \
      (arr) = p_;                                                               \
      (cap) = nc_;                                                              \
    }                                                                           \
  } while (0)

static zb_status add_piece(writer *w, const void *p, int64_t n, uint8_t *tmp) {
  if (w->n_pieces == w->cap_pieces) {
    int64_t nc = w->cap_pieces ? w->cap_pieces * 2 : 32;
    piece *np = (piece *)zb_malloc((size_t)nc * sizeof(piece));
    if (np == NULL) {
      zb_free(tmp);
      return w_oom(w);
    }
    if (w->n_pieces > 0) memcpy(np, w->pieces, (size_t)w->n_pieces * sizeof(piece));
    zb_free(w->pieces);
    w->pieces = np;
    w->cap_pieces = nc;
  }
  piece *pc = &w->pieces[w->n_pieces++];
  pc->p = (const uint8_t *)p;
  pc->n = n;
  pc->tmp = tmp;
  pc->z = NULL;
  pc->zn = 0;
  return ZB_OK;
}

/* A bitmap of rows [off, off + len): shared when off is a multiple of 8. */
static zb_status add_bitmap(writer *w, const uint8_t *bits, int64_t off, int64_t len) {
  int64_t nbytes = (len + 7) / 8;
  if (off % 8 == 0) return add_piece(w, bits + off / 8, nbytes, NULL);
  uint8_t *tmp = (uint8_t *)zb_malloc((size_t)(nbytes > 0 ? nbytes : 1));
  if (tmp == NULL) return w_oom(w);
  if (nbytes > 0) {
    tmp[nbytes - 1] = 0;
    zb__bitmap_copy(tmp, 0, bits, off, len);
  }
  return add_piece(w, tmp, nbytes, tmp);
}

static zb_status add_list(writer *w, const zb_column *c, int64_t off, int64_t len);

/* The buffers and node of rows [off, off + len) of column c (its own
 * offset added); a list's child follows it (node and buffers). */
static zb_status add_column(writer *w, const zb_column *c, int64_t start, int64_t len) {
  const int64_t off = c->offset + start;
  int64_t nulls = 0;
  if (c->validity != NULL && c->null_count != 0)
    nulls = (start == 0 && len == c->length)
                ? c->null_count
                : len - zb_bitmap_count((const uint8_t *)c->validity->data, off, len);
  GROW(w, w->nodes, w->n_nodes, w->cap_nodes, wnode);
  w->nodes[w->n_nodes].length = len;
  w->nodes[w->n_nodes].null_count = nulls;
  w->n_nodes++;
  if (nulls > 0)
    ZB_RETURN_NOT_OK(add_bitmap(w, (const uint8_t *)c->validity->data, off, len));
  else
    ZB_RETURN_NOT_OK(add_piece(w, NULL, 0, NULL));
  const uint8_t *data = c->data != NULL ? (const uint8_t *)c->data->data : NULL;
  if (c->type == ZB_BOOL) return add_bitmap(w, data, off, len);
  if (c->type == ZB_STRING) {
    const int64_t *o = (const int64_t *)data;
    int64_t first = len > 0 ? o[off] : 0, last = len > 0 ? o[off + len] : 0;
    if (len == 0) { /* one offset, as pyarrow writes it (polars needs it) */
      ZB_RETURN_NOT_OK(add_piece(w, g_pad, 8, NULL));
    } else if (first == 0) {
      ZB_RETURN_NOT_OK(add_piece(w, o + off, (len + 1) * 8, NULL));
    } else {
      int64_t *tmp = (int64_t *)zb_malloc((size_t)(len + 1) * 8);
      if (tmp == NULL) return w_oom(w);
      for (int64_t i = 0; i <= len; i++) tmp[i] = o[off + i] - first;
      ZB_RETURN_NOT_OK(add_piece(w, tmp, (len + 1) * 8, (uint8_t *)tmp));
    }
    const uint8_t *chars = c->chars != NULL ? (const uint8_t *)c->chars->data : NULL;
    return add_piece(w, last > first ? chars + first : NULL, last - first, NULL);
  }
  if (c->type == ZB_LIST) return add_list(w, c, off, len);
  int width = c->type == ZB_CATEGORICAL ? 4 : zb_type_width(c->type);
  return add_piece(w, len > 0 ? data + off * width : NULL, len * width, NULL);
}

/* A list column's offsets of rows [off, off + len) (rebased to start at 0
 * when they do not), then its child's rows that those lists span. */
static zb_status add_list(writer *w, const zb_column *c, int64_t off, int64_t len) {
  const int64_t *o = (const int64_t *)c->data->data;
  int64_t first = len > 0 ? o[off] : 0, last = len > 0 ? o[off + len] : 0;
  if (len == 0) {
    ZB_RETURN_NOT_OK(add_piece(w, g_pad, 8, NULL));
  } else if (first == 0) {
    ZB_RETURN_NOT_OK(add_piece(w, o + off, (len + 1) * 8, NULL));
  } else {
    int64_t *tmp = (int64_t *)zb_malloc((size_t)(len + 1) * 8);
    if (tmp == NULL) return w_oom(w);
    for (int64_t i = 0; i <= len; i++) tmp[i] = o[off + i] - first;
    ZB_RETURN_NOT_OK(add_piece(w, tmp, (len + 1) * 8, (uint8_t *)tmp));
  }
  return add_column(w, c->child, first, last - first);
}

static zb_status add_msg(writer *w, int kind, int64_t length, int64_t dict_id,
                         int64_t piece0, int64_t node0) {
  GROW(w, w->msgs, w->n_msgs, w->cap_msgs, wmsg);
  wmsg *m = &w->msgs[w->n_msgs++];
  m->kind = kind;
  m->length = length;
  m->dict_id = dict_id;
  m->first_piece = piece0;
  m->n_pieces = w->n_pieces - piece0;
  m->first_node = node0;
  m->n_nodes = w->n_nodes - node0;
  return ZB_OK;
}

/* ---- compression ---------------------------------------------------------- */

static void compress_task(void *ctx, int64_t i, int worker) {
  (void)worker;
  writer *w = (writer *)ctx;
  piece *pc = &w->pieces[i];
  if (pc->n == 0) return;
  zb_error e;
  zb_status st;
  int64_t bound = w->o->codec == ZB_IPC_ZSTD ? zb__zstd_bound(pc->n) : zb__lz4frame_bound(pc->n);
  if (bound < 0) {
    st = w->o->codec == ZB_IPC_ZSTD ? zb__zstd_compress(NULL, 0, 1, NULL, 0, &bound, &e)
                                    : zb__lz4frame_compress(NULL, 0, NULL, 0, &bound, &e);
  } else if ((pc->z = (uint8_t *)zb_malloc((size_t)bound)) == NULL) {
    st = zb_error_set(&e, ZB_ENOMEM, "out of host memory (write_ipc: %lld bytes)",
                      (long long)bound);
  } else if (w->o->codec == ZB_IPC_ZSTD) {
    st = zb__zstd_compress(pc->p, pc->n, w->o->compression_level > 0 ? w->o->compression_level : 1,
                           pc->z, bound, &pc->zn, &e);
  } else {
    st = zb__lz4frame_compress(pc->p, pc->n, pc->z, bound, &pc->zn, &e);
  }
  if (st != ZB_OK) {
    pthread_mutex_lock(&w->lock);
    if (w->status == ZB_OK) {
      w->status = st;
      w->task_err = e;
    }
    pthread_mutex_unlock(&w->lock);
  }
}

/* ---- flatbuffers ----------------------------------------------------------- */

static zb__fbref int_type(zb__fbb *b, int bits, bool sgn) {
  zb__fbb_start(b);
  zb__fbb_add(b, 0, 4, (uint32_t)bits);
  zb__fbb_add(b, 1, 1, sgn ? 1 : 0);
  return zb__fbb_end(b);
}

static zb__fbref build_field(zb__fbb *b, const zb_column *c, const char *name, int64_t id) {
  int tag;
  zb__fbref type, kid = 0;
  if (c->type == ZB_LIST) kid = build_field(b, c->child, "item", -1); /* before the table */
  switch (c->type) {
    case ZB_LIST:
      tag = IPC_T_LARGE_LIST;
      zb__fbb_start(b);
      type = zb__fbb_end(b);
      break;
    case ZB_BOOL:
      tag = IPC_T_BOOL;
      zb__fbb_start(b);
      type = zb__fbb_end(b);
      break;
    ZB_FOR_EACH_INTEGER_TYPE(ZB_TYPE_CASE)
      tag = IPC_T_INT;
      type = int_type(b, zb_type_width(c->type) * 8, c->type <= ZB_INT64);
      break;
    case ZB_FLOAT32: case ZB_FLOAT64:
      tag = IPC_T_FLOAT;
      zb__fbb_start(b);
      zb__fbb_add(b, 0, 2, c->type == ZB_FLOAT32 ? 1 : 2);
      type = zb__fbb_end(b);
      break;
    case ZB_DATE32:
      tag = IPC_T_DATE;
      zb__fbb_start(b);
      zb__fbb_add(b, 0, 2, 0); /* DAY */
      type = zb__fbb_end(b);
      break;
    case ZB_TIMESTAMP: {
      zb__fbref tz = 0;
      if (c->timezone != NULL) tz = zb__fbb_string(b, c->timezone, (int64_t)strlen(c->timezone));
      tag = IPC_T_TIMESTAMP;
      zb__fbb_start(b);
      zb__fbb_add(b, 0, 2, (uint16_t)c->unit);
      if (c->timezone != NULL) zb__fbb_add_ref(b, 1, tz);
      type = zb__fbb_end(b);
      break;
    }
    case ZB_DURATION:
      tag = IPC_T_DURATION;
      zb__fbb_start(b);
      zb__fbb_add(b, 0, 2, (uint16_t)c->unit);
      type = zb__fbb_end(b);
      break;
    default: /* strings, and the values of categoricals */
      tag = IPC_T_LARGE_UTF8;
      zb__fbb_start(b);
      type = zb__fbb_end(b);
      break;
  }
  zb__fbref dict = 0;
  if (c->type == ZB_CATEGORICAL) {
    zb__fbref it = int_type(b, 32, true);
    zb__fbb_start(b);
    zb__fbb_add(b, IPC_DICT_ID, 8, (uint64_t)id);
    zb__fbb_add_ref(b, IPC_DICT_INDEX_TYPE, it);
    zb__fbb_add(b, IPC_DICT_ORDERED, 1, 0);
    dict = zb__fbb_end(b);
  }
  zb__fbref nm = zb__fbb_string(b, name, (int64_t)strlen(name));
  zb__fbref kids = zb__fbb_vec_refs(b, c->type == ZB_LIST ? &kid : NULL, c->type == ZB_LIST);
  zb__fbb_start(b);
  zb__fbb_add_ref(b, IPC_FIELD_NAME, nm);
  zb__fbb_add(b, IPC_FIELD_NULLABLE, 1, 1);
  zb__fbb_add(b, IPC_FIELD_TYPE_TYPE, 1, (uint8_t)tag);
  zb__fbb_add_ref(b, IPC_FIELD_TYPE, type);
  if (c->type == ZB_CATEGORICAL) zb__fbb_add_ref(b, IPC_FIELD_DICT, dict);
  zb__fbb_add_ref(b, IPC_FIELD_CHILDREN, kids);
  return zb__fbb_end(b);
}

static zb_status build_schema(writer *w, zb__fbb *b, zb__fbref *out) {
  const zb_table *t = w->t;
  int64_t n = t->num_columns, nm = w->o->num_metadata;
  zb__fbref *refs = (zb__fbref *)zb_malloc((size_t)(n + nm + 1) * sizeof(zb__fbref));
  if (refs == NULL) return w_oom(w);
  for (int64_t j = 0; j < n; j++) refs[j] = build_field(b, t->columns[j], t->names[j], j);
  zb__fbref fields = zb__fbb_vec_refs(b, refs, n);
  for (int64_t i = 0; i < nm; i++) {
    const char *k = w->o->metadata_keys[i], *v = w->o->metadata_values[i];
    zb__fbref kr = zb__fbb_string(b, k, (int64_t)strlen(k));
    zb__fbref vr = zb__fbb_string(b, v, (int64_t)strlen(v));
    zb__fbb_start(b);
    zb__fbb_add_ref(b, 0, kr);
    zb__fbb_add_ref(b, 1, vr);
    refs[i] = zb__fbb_end(b);
  }
  zb__fbref meta = zb__fbb_vec_refs(b, refs, nm);
  zb_free(refs);
  zb__fbb_start(b);
  zb__fbb_add(b, IPC_SCHEMA_ENDIANNESS, 2, 0);
  zb__fbb_add_ref(b, IPC_SCHEMA_FIELDS, fields);
  if (nm > 0) zb__fbb_add_ref(b, IPC_SCHEMA_METADATA, meta);
  *out = zb__fbb_end(b);
  return ZB_OK;
}

static int64_t piece_size(const writer *w, const piece *pc) {
  if (w->o->codec == ZB_IPC_UNCOMPRESSED || pc->n == 0) return pc->n;
  return 8 + pc->zn;
}

static int64_t pad8(int64_t n) { return (n + 7) & ~(int64_t)7; }

static zb_status out(writer *w, const void *p, int64_t n) {
  if (n == 0) return ZB_OK;
  ZB_RETURN_NOT_OK(w->write(w->ctx, (const char *)p, n, w->err));
  w->pos += n;
  return ZB_OK;
}

/* Write the message whose flatbuffer b holds (root msg) and its body; the
 * Block describing it into blk (offset, metadata length, body length). */
static zb_status write_message(writer *w, zb__fbb *b, zb__fbref msg, const wmsg *m,
                               int64_t blk[3]) {
  const uint8_t *fb;
  int64_t fbn;
  if (!zb__fbb_finish(b, msg, &fb, &fbn)) return w_oom(w);
  int64_t meta = pad8(fbn);
  uint32_t head[2] = {0xFFFFFFFFu, (uint32_t)meta};
  blk[0] = w->pos;
  blk[1] = 8 + meta;
  ZB_RETURN_NOT_OK(out(w, head, 8));
  ZB_RETURN_NOT_OK(out(w, fb, fbn));
  ZB_RETURN_NOT_OK(out(w, g_pad, meta - fbn));
  int64_t body0 = w->pos;
  if (m != NULL) {
    for (int64_t i = 0; i < m->n_pieces; i++) {
      const piece *pc = &w->pieces[m->first_piece + i];
      int64_t sz = piece_size(w, pc);
      if (w->o->codec != ZB_IPC_UNCOMPRESSED && pc->n > 0) {
        ZB_RETURN_NOT_OK(out(w, &pc->n, 8));
        ZB_RETURN_NOT_OK(out(w, pc->z, pc->zn));
      } else {
        ZB_RETURN_NOT_OK(out(w, pc->p, pc->n));
      }
      ZB_RETURN_NOT_OK(out(w, g_pad, pad8(sz) - sz));
    }
  }
  blk[2] = w->pos - body0;
  return ZB_OK;
}

/* The RecordBatch (or DictionaryBatch) message of m. */
static zb_status batch_message(writer *w, zb__fbb *b, const wmsg *m, zb__fbref *msg) {
  int64_t np = m->n_pieces, body = 0;
  int64_t *bufs = (int64_t *)zb_malloc((size_t)(np > 0 ? np : 1) * 16);
  if (bufs == NULL) return w_oom(w);
  for (int64_t i = 0; i < np; i++) {
    int64_t sz = piece_size(w, &w->pieces[m->first_piece + i]);
    bufs[2 * i] = body;
    bufs[2 * i + 1] = sz;
    body += pad8(sz);
  }
  zb__fbref buffers = zb__fbb_vec_structs(b, bufs, 16, np, 8);
  zb_free(bufs);
  zb__fbref nodes =
      zb__fbb_vec_structs(b, m->n_nodes > 0 ? &w->nodes[m->first_node] : NULL, 16, m->n_nodes, 8);
  zb__fbref comp = 0;
  if (w->o->codec != ZB_IPC_UNCOMPRESSED) {
    zb__fbb_start(b);
    zb__fbb_add(b, 0, 1, (uint8_t)w->o->codec);
    zb__fbb_add(b, 1, 1, 0); /* BUFFER */
    comp = zb__fbb_end(b);
  }
  zb__fbb_start(b);
  zb__fbb_add(b, IPC_RB_LENGTH, 8, (uint64_t)m->length);
  zb__fbb_add_ref(b, IPC_RB_NODES, nodes);
  zb__fbb_add_ref(b, IPC_RB_BUFFERS, buffers);
  if (w->o->codec != ZB_IPC_UNCOMPRESSED) zb__fbb_add_ref(b, IPC_RB_COMPRESSION, comp);
  zb__fbref rb = zb__fbb_end(b);
  zb__fbref hdr = rb;
  if (m->kind == IPC_MSG_DICTIONARY) {
    zb__fbb_start(b);
    zb__fbb_add(b, IPC_DB_ID, 8, (uint64_t)m->dict_id);
    zb__fbb_add_ref(b, IPC_DB_DATA, rb);
    zb__fbb_add(b, IPC_DB_DELTA, 1, 0);
    hdr = zb__fbb_end(b);
  }
  zb__fbb_start(b);
  zb__fbb_add(b, IPC_MSG_VERSION, 2, IPC_METADATA_V5);
  zb__fbb_add(b, IPC_MSG_HEADER_TYPE, 1, (uint8_t)m->kind);
  zb__fbb_add_ref(b, IPC_MSG_HEADER, hdr);
  zb__fbb_add(b, IPC_MSG_BODY_LENGTH, 8, (uint64_t)body);
  *msg = zb__fbb_end(b);
  return ZB_OK;
}

static zb_status write_all(writer *w) {
  const zb_table *t = w->t;
  const int64_t n = t->num_columns, rows = t->num_rows;
  zb_status st;
  zb__fbb b;
  zb__fbb_init(&b);
  int64_t(*blocks)[3] = NULL;
  for (int64_t j = 0; j < n; j++) {
    const zb_column *c = t->columns[j];
    if (c->device.kind != ZB_DEVICE_CPU)
      return zb_error_set(w->err, ZB_EINVAL, "write_ipc: column '%s' is not on the CPU",
                          t->names[j]);
    const zb_column *leaf = c; /* a list's values, through lists of lists */
    while (leaf->type == ZB_LIST && leaf->child != NULL) leaf = leaf->child;
    if (c->type > ZB_LIST || c->type < 0 || leaf->type == ZB_LIST ||
        (c->type == ZB_LIST && leaf->type == ZB_CATEGORICAL))
      return zb_error_set(w->err, ZB_ENOTSUP,
                          "write_ipc: column '%s' has a dtype the Arrow IPC writer does not "
                          "write yet%s",
                          t->names[j], c->type == ZB_LIST ? " (a list of categoricals)" : "");
    if (c->type == ZB_CATEGORICAL && c->dictionary == NULL)
      return zb_error_set(w->err, ZB_EINVAL, "write_ipc: categorical column '%s' has no "
                          "dictionary", t->names[j]);
  }
  /* the dictionaries, then the batches */
  for (int64_t j = 0; j < n; j++) {
    const zb_column *c = t->columns[j];
    if (c->type != ZB_CATEGORICAL) continue;
    int64_t p0 = w->n_pieces, n0 = w->n_nodes;
    ZB_RETURN_NOT_OK(add_column(w, c->dictionary, 0, c->dictionary->length));
    ZB_RETURN_NOT_OK(add_msg(w, IPC_MSG_DICTIONARY, c->dictionary->length, j, p0, n0));
  }
  int64_t n_dicts = w->n_msgs;
  int64_t bs = w->o->batch_size > 0 ? w->o->batch_size : (rows > 0 ? rows : 1);
  for (int64_t r0 = 0; r0 < rows || (rows == 0 && r0 == 0 && n > 0); r0 += bs) {
    int64_t len = rows - r0 < bs ? rows - r0 : bs;
    if (zb_cancel_requested()) return zb_error_set(w->err, ZB_ECANCEL, "write_ipc cancelled");
    int64_t p0 = w->n_pieces, n0 = w->n_nodes;
    for (int64_t j = 0; j < n; j++) ZB_RETURN_NOT_OK(add_column(w, t->columns[j], r0, len));
    ZB_RETURN_NOT_OK(add_msg(w, IPC_MSG_RECORD_BATCH, len, 0, p0, n0));
    if (rows == 0) break;
  }
  if (w->o->codec != ZB_IPC_UNCOMPRESSED && w->n_pieces > 0) {
    ZB_RETURN_NOT_OK(zb_parallel_for(w->n_pieces, compress_task, w, w->err));
    if (w->status != ZB_OK)
      return zb_error_set(w->err, w->status, "write_ipc: %s", w->task_err.message);
  }
  blocks = (int64_t(*)[3])zb_malloc((size_t)(w->n_msgs > 0 ? w->n_msgs : 1) * sizeof *blocks);
  if (blocks == NULL) return w_oom(w);
  /* magic, schema message */
  st = out(w, "ARROW1\0\0", 8);
  zb__fbref schema = 0, msg = 0;
  int64_t blk[3];
  if (st == ZB_OK) st = build_schema(w, &b, &schema);
  if (st == ZB_OK) {
    zb__fbb_start(&b);
    zb__fbb_add(&b, IPC_MSG_VERSION, 2, IPC_METADATA_V5);
    zb__fbb_add(&b, IPC_MSG_HEADER_TYPE, 1, IPC_MSG_SCHEMA);
    zb__fbb_add_ref(&b, IPC_MSG_HEADER, schema);
    zb__fbb_add(&b, IPC_MSG_BODY_LENGTH, 8, 0);
    msg = zb__fbb_end(&b);
    st = write_message(w, &b, msg, NULL, blk);
  }
  for (int64_t i = 0; i < w->n_msgs && st == ZB_OK; i++) {
    zb__fbb_reset(&b);
    st = batch_message(w, &b, &w->msgs[i], &msg);
    if (st == ZB_OK) st = write_message(w, &b, msg, &w->msgs[i], blocks[i]);
  }
  if (st == ZB_OK) {
    uint32_t eos[2] = {0xFFFFFFFFu, 0};
    st = out(w, eos, 8);
  }
  if (st == ZB_OK) { /* the footer */
    zb__fbb_reset(&b);
    st = build_schema(w, &b, &schema);
    int64_t(*bl)[3] = blocks;
    int64_t nd = n_dicts, nbt = w->n_msgs - n_dicts;
    /* Block: offset (8), metaDataLength (4) + 4 padding, bodyLength (8) */
    uint8_t *raw = (uint8_t *)zb_calloc((size_t)(w->n_msgs > 0 ? w->n_msgs : 1), IPC_BLOCK_SIZE);
    if (st == ZB_OK && raw == NULL) st = w_oom(w);
    if (st == ZB_OK) {
      for (int64_t i = 0; i < w->n_msgs; i++) {
        int32_t ml = (int32_t)bl[i][1];
        memcpy(raw + i * IPC_BLOCK_SIZE, &bl[i][0], 8);
        memcpy(raw + i * IPC_BLOCK_SIZE + 8, &ml, 4);
        memcpy(raw + i * IPC_BLOCK_SIZE + 16, &bl[i][2], 8);
      }
      zb__fbref batches = zb__fbb_vec_structs(&b, raw + nd * IPC_BLOCK_SIZE, IPC_BLOCK_SIZE,
                                              nbt, 8);
      zb__fbref dicts = zb__fbb_vec_structs(&b, raw, IPC_BLOCK_SIZE, nd, 8);
      zb__fbb_start(&b);
      zb__fbb_add(&b, IPC_FOOTER_VERSION, 2, IPC_METADATA_V5);
      zb__fbb_add_ref(&b, IPC_FOOTER_SCHEMA, schema);
      zb__fbb_add_ref(&b, IPC_FOOTER_DICTS, dicts);
      zb__fbb_add_ref(&b, IPC_FOOTER_BATCHES, batches);
      zb__fbref footer = zb__fbb_end(&b);
      const uint8_t *fb;
      int64_t fbn;
      if (!zb__fbb_finish(&b, footer, &fb, &fbn)) {
        st = w_oom(w);
      } else {
        int32_t len = (int32_t)fbn;
        st = out(w, fb, fbn);
        if (st == ZB_OK) st = out(w, &len, 4);
        if (st == ZB_OK) st = out(w, "ARROW1", 6);
      }
    }
    zb_free(raw);
  }
  zb__fbb_reset(&b);
  zb_free(blocks);
  return st;
}

void zb_ipc_write_options_init(zb_ipc_write_options *o) {
  memset(o, 0, sizeof *o);
  o->codec = ZB_IPC_UNCOMPRESSED;
}

static zb_status write_table(const zb_table *t, const zb_ipc_write_options *opts,
                              zb_ipc_write_fn write, void *ctx, zb_error *err) {
  ZB_NAME_OP("write_ipc");
  if (t == NULL || write == NULL)
    return zb_error_set(err, ZB_EINVAL, "write_ipc: table or write function is NULL");
  zb_ipc_write_options defaults;
  if (opts == NULL) {
    zb_ipc_write_options_init(&defaults);
    opts = &defaults;
  }
  if (opts->codec != ZB_IPC_UNCOMPRESSED && opts->codec != ZB_IPC_LZ4_FRAME &&
      opts->codec != ZB_IPC_ZSTD)
    return zb_error_set(err, ZB_EINVAL, "write_ipc: unknown codec %d", opts->codec);
  if (opts->batch_size < 0)
    return zb_error_set(err, ZB_EINVAL, "write_ipc: batch_size must not be negative");
  if (opts->num_metadata < 0 ||
      (opts->num_metadata > 0 && (opts->metadata_keys == NULL || opts->metadata_values == NULL)))
    return zb_error_set(err, ZB_EINVAL, "write_ipc: bad metadata");
  if (opts->codec == ZB_IPC_LZ4_FRAME && zb__lz4frame_bound(1) < 0)
    return zb__lz4frame_compress(NULL, 0, NULL, 0, NULL, err); /* says how to install it */
  if (opts->codec == ZB_IPC_ZSTD && zb__zstd_bound(1) < 0)
    return zb__zstd_compress(NULL, 0, 1, NULL, 0, NULL, err);
  writer w;
  memset(&w, 0, sizeof w);
  w.t = t;
  w.o = opts;
  w.err = err;
  w.write = write;
  w.ctx = ctx;
  pthread_mutex_init(&w.lock, NULL);
  zb_status st = write_all(&w);
  for (int64_t i = 0; i < w.n_pieces; i++) {
    zb_free(w.pieces[i].tmp);
    zb_free(w.pieces[i].z);
  }
  zb_free(w.pieces);
  zb_free(w.nodes);
  zb_free(w.msgs);
  pthread_mutex_destroy(&w.lock);
  return st;
}

/* Categoricals whose categories are not strings are written as their
 * values (the writer reads a categorical's categories as text). */
zb_status zb_ipc_write(const zb_table *t, const zb_ipc_write_options *opts, zb_ipc_write_fn write,
                       void *ctx, zb_error *err) {
  zb_table *d = NULL;
  ZB_RETURN_NOT_OK(zb__table_decode_valued(t, &d, err));
  zb_status st = write_table(d, opts, write, ctx, err);
  zb_table_release(d);
  return st;
}

zb_status zb_ipc_write_file(const zb_table *t, const char *path, const zb_ipc_write_options *opts,
                            zb_error *err) {
  if (path == NULL) return zb_error_set(err, ZB_EINVAL, "write_ipc: path is NULL");
  zb__file_sink s;
  ZB_RETURN_NOT_OK(zb__file_sink_open(&s, path, err));
  zb_status st = zb_ipc_write(t, opts, zb__file_sink_write, &s, err);
  return zb__file_sink_close(&s, st, true, err);
}
