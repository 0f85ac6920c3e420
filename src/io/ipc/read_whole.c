/*
 * read_whole.c -- Arrow IPC files of several record batches read straight
 * into whole columns (the reader's other steps are in read.c).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "io/codecs.h"
#include "io/ipc/read_internal.h"
#include "zambezi/arrow.h"
#include "zambezi/io.h"

/* ---- several batches straight into whole columns ------------------------ */

/* A file of several record batches: the columns of fixed width, bool and
 * string types are assembled without a chunk per batch.  Each column's
 * buffers are allocated whole; one task per (batch, column) decompresses
 * (or copies) its values straight into their place, and a string task
 * rebases its offsets to int64 in the same pass that checks they never
 * decrease; one task per column copies its validity (and a bool column's
 * values) bit by bit, since batches need not start on a byte.  An
 * uncompressed batch's first and last string offsets are read when it is
 * planned, so only the characters its strings use are copied, straight to
 * where the batches before it end (a writer may leave unused bytes in a
 * character buffer).  A compressed batch's characters go where the whole
 * buffers before it end; when those held unused bytes, the characters are
 * packed afterwards.  A utf8_view piece is read in two passes: the
 * first checks its views and writes its offsets from 0 (a compressed
 * piece: decompressed into a block each worker reuses, its characters
 * gathered then); the second moves them to where the pieces before it
 * end.  Other columns take the
 * batch-by-batch path (read_batches). */

typedef struct asm_buf {
  const uint8_t *src; /* in the file */
  int64_t n, ulen;    /* bytes there; bytes once decompressed */
  int codec;          /* -1: raw (n == ulen) */
} asm_buf;

typedef struct asm_piece { /* one column of one batch */
  int64_t row, length, null_count;
  asm_buf b[3];     /* validity, values or offsets, characters */
  int64_t chars_at; /* where its characters start in the column's */
  int64_t off0, offn; /* its first and last string offsets */
  bool exact; /* raw strings: only [off0, offn) is copied, to chars_at */
  /* a utf8_view column: its variadic data buffers; its views, validity
   * and data in memory during the first pass (in the file, or
   * decompressed into the worker's scratch block) */
  asm_buf *vb;
  int64_t nv;
  uint8_t *pchars; /* its characters, gathered in the first pass */
  const uint8_t *views, *valid, **vdata;
} asm_piece;

typedef struct asm_col {
  int64_t k; /* the selected column */
  zb_type_id type;
  bool view; /* utf8_view, converted to strings */
  bool has_validity;
  zb_buffer *validity, *data, *chars;
  int64_t nulls;
} asm_col;

typedef struct asm_job {
  reader *r;
  int64_t nb, nc, rows;
  asm_piece *pieces; /* pieces[b * nc + c] */
  asm_col *cols;
  int64_t *bit_cols; /* columns with a bitmap task */
  int64_t n_bit;
  int64_t *view_cols; /* utf8_view columns */
  int64_t n_view;
  uint8_t **scratch; /* one per worker */
  int64_t *scratch_cap;
  zb_status status;
  zb_error err;
  pthread_mutex_t lock;
} asm_job;

/* Whether column kind/format is assembled whole; its zambezi type. */
static bool asm_type(const ipc_field *fd, zb_type_id *t) {
  if (fd->kind == K_BOOL) {
    *t = ZB_BOOL;
    return true;
  }
  if (fd->kind == K_STRING || fd->kind == K_VIEW) {
    *t = ZB_STRING;
    return true;
  }
  if (fd->kind != K_FIXED) return false;
  static const char codes[] = "cCsSiIlLfg";
  static const zb_type_id types[] = {ZB_INT8,  ZB_UINT8,  ZB_INT16, ZB_UINT16,  ZB_INT32,
                                     ZB_UINT32, ZB_INT64, ZB_UINT64, ZB_FLOAT32, ZB_FLOAT64};
  const char *f = fd->format;
  if (f[0] != '\0' && f[1] == '\0' && strchr(codes, f[0]) != NULL) {
    *t = types[strchr(codes, f[0]) - codes];
    return true;
  }
  if (strcmp(f, "tdD") == 0) {
    *t = ZB_DATE32;
    return true;
  }
  if (f[0] == 't' && (f[1] == 's' || f[1] == 'D')) { /* the unit is set afterwards */
    *t = f[1] == 's' ? ZB_TIMESTAMP : ZB_DURATION;
    return true;
  }
  return false; /* date64: converted by the importer */
}

static void asm_fail(asm_job *j, zb_status st, const zb_error *e) {
  pthread_mutex_lock(&j->lock);
  if (j->status == ZB_OK) {
    j->status = st;
    j->err = *e;
    /* a codec's error (corrupt lz4 or zstd data) names the file too */
    if (st != ZB_ENOMEM && st != ZB_ECANCEL && strstr(e->message, j->r->name) == NULL)
      zb_error_set(&j->err, st, "'%s': %s", j->r->name, e->message);
  }
  pthread_mutex_unlock(&j->lock);
}

/* The worker's scratch block of at least size bytes (NULL: out of memory). */
static uint8_t *asm_scratch(asm_job *j, int worker, int64_t size) {
  if (j->scratch_cap[worker] < size) {
    zb_free(j->scratch[worker]);
    j->scratch[worker] = (uint8_t *)zb_malloc((size_t)size);
    j->scratch_cap[worker] = j->scratch[worker] != NULL ? size : 0;
  }
  return j->scratch[worker];
}

/* Decompress b into dst (b->ulen bytes). */
static zb_status asm_decompress(const asm_buf *b, void *dst, zb_error *e) {
  if (b->codec < 0) {
    memcpy(dst, b->src, (size_t)b->ulen);
    return ZB_OK;
  }
  return b->codec == 0 ? zb__lz4frame_block(b->src, b->n, dst, b->ulen, e)
                       : zb__zstd_block(b->src, b->n, dst, b->ulen, e);
}

/* The bytes of b: in the file when raw, else decompressed into scratch. */
static zb_status asm_bytes(asm_job *j, int worker, const asm_buf *b, const uint8_t **out,
                           zb_error *e) {
  if (b->codec < 0) {
    *out = b->src;
    return ZB_OK;
  }
  uint8_t *s = asm_scratch(j, worker, b->ulen);
  if (s == NULL)
    return zb_error_set(e, ZB_ENOMEM, "out of host memory reading '%s'", j->r->name);
  *out = s;
  return asm_decompress(b, s, e);
}

/* dst[i] = src[i] + add for i < n, src holding n + 1 offsets of w bytes
 * (possibly unaligned); false when they decrease. */
ZB_CLONES static bool asm_rebase32(int64_t *dst, const uint8_t *src, int64_t n, int64_t add) {
  int bad = 0;
  for (int64_t i = 0; i < n; i++) {
    int32_t a, b;
    memcpy(&a, src + 4 * i, 4);
    memcpy(&b, src + 4 * i + 4, 4);
    dst[i] = (int64_t)((uint64_t)(int64_t)a + (uint64_t)add);
    bad |= b < a;
  }
  return bad == 0;
}

ZB_CLONES static bool asm_rebase64(int64_t *dst, const uint8_t *src, int64_t n, int64_t add) {
  int bad = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t a, b;
    memcpy(&a, src + 8 * i, 8);
    memcpy(&b, src + 8 * i + 8, 8);
    dst[i] = (int64_t)((uint64_t)a + (uint64_t)add); /* checked by the caller */
    bad |= b < a;
  }
  return bad == 0;
}

static zb_status asm_strings(asm_job *j, int worker, const ipc_field *fd, asm_col *c,
                             asm_piece *p, int64_t b, zb_error *e) {
  const uint8_t *offs;
  const int w = fd->width;
  if (p->length == 0) return ZB_OK;
  ZB_RETURN_NOT_OK(asm_bytes(j, worker, &p->b[1], &offs, e));
  int64_t first, last;
  if (w == 4) {
    int32_t f32, l32;
    memcpy(&f32, offs, 4);
    memcpy(&l32, offs + 4 * p->length, 4);
    first = f32;
    last = l32;
  } else {
    memcpy(&first, offs, 8);
    memcpy(&last, offs + 8 * p->length, 8);
  }
  int64_t *dst = (int64_t *)c->data->data + p->row;
  const int64_t add = p->exact ? p->chars_at - first : p->chars_at;
  bool ok = w == 4 ? asm_rebase32(dst, offs, p->length, add)
                   : asm_rebase64(dst, offs, p->length, add);
  if (!ok || first < 0 || last > p->b[2].ulen)
    return zb_error_set(e, ZB_EPARSE,
                        "'%s' is not a valid Arrow IPC file: the string offsets of column '%s' "
                        "in record batch %lld decrease or run outside its %lld bytes of "
                        "characters",
                        j->r->name, fd->name, (long long)b, (long long)p->b[2].ulen);
  p->off0 = first;
  p->offn = last;
  if (p->exact)
    memcpy((uint8_t *)c->chars->data + p->chars_at, p->b[2].src + first, (size_t)(last - first));
  else if (p->b[2].ulen > 0)
    ZB_RETURN_NOT_OK(asm_decompress(&p->b[2], (uint8_t *)c->chars->data + p->chars_at, e));
  return ZB_OK;
}

static zb_status asm_values(asm_job *j, int worker, const ipc_field *fd, asm_col *c,
                            asm_piece *p, zb_error *e) {
  const int64_t need = p->length * fd->width;
  uint8_t *dst = (uint8_t *)c->data->data + p->row * fd->width;
  if (need == 0) return ZB_OK;
  if (p->b[1].codec < 0) {
    memcpy(dst, p->b[1].src, (size_t)need);
    return ZB_OK;
  }
  if (p->b[1].ulen == need) return asm_decompress(&p->b[1], dst, e);
  const uint8_t *s;
  ZB_RETURN_NOT_OK(asm_bytes(j, worker, &p->b[1], &s, e));
  memcpy(dst, s, (size_t)need);
  return ZB_OK;
}

/* A utf8_view piece, first pass: its buffers in memory (in the file, or
 * decompressed into the worker's scratch block), each view checked, and
 * its offsets from 0 in the column's offsets (null rows: empty).  When
 * something was decompressed, its characters are gathered into a block of
 * their own (p->pchars), so the decompressed buffers need not be kept for
 * the second pass; raw views are read again from the file then. */
static zb_status asm_view_lengths(asm_job *j, int worker, const ipc_field *fd, asm_col *c,
                                  asm_piece *p, int64_t b, zb_error *e) {
  const asm_buf *bufs[2] = {&p->b[0], &p->b[1]};
  int64_t hold = 0;
  for (int i = 0; i < 2; i++) hold += bufs[i]->codec >= 0 ? (bufs[i]->ulen + 7) & ~7 : 0;
  for (int64_t v = 0; v < p->nv; v++) hold += p->vb[v].codec >= 0 ? (p->vb[v].ulen + 7) & ~7 : 0;
  uint8_t *scratch = hold > 0 ? asm_scratch(j, worker, hold) : NULL;
  if (hold > 0 && scratch == NULL)
    return zb_error_set(e, ZB_ENOMEM, "out of host memory reading '%s'", j->r->name);
  int64_t at = 0;
  const uint8_t **dst[2] = {&p->valid, &p->views};
  for (int64_t i = 0; i < 2 + p->nv; i++) {
    const asm_buf *a = i < 2 ? bufs[i] : &p->vb[i - 2];
    const uint8_t **d = i < 2 ? dst[i] : &p->vdata[i - 2];
    if (a->codec < 0) {
      *d = a->src;
      continue;
    }
    ZB_RETURN_NOT_OK(asm_decompress(a, scratch + at, e));
    *d = scratch + at;
    at += (a->ulen + 7) & ~7;
  }
  if (p->null_count == 0) p->valid = NULL;
  const uint8_t *v = p->views;
  int64_t *offs = (int64_t *)c->data->data + p->row, total = 0;
  for (int64_t i = 0; i < p->length; i++) {
    int32_t len = 0;
    if (p->valid == NULL || zb_bit_get(p->valid, i)) {
      memcpy(&len, v + 16 * i, 4);
      int32_t bi = 0, off = 0;
      if (len > 12) {
        memcpy(&bi, v + 16 * i + 8, 4);
        memcpy(&off, v + 16 * i + 12, 4);
      }
      if (len < 0 || (len > 12 && (bi < 0 || bi >= p->nv || off < 0 ||
                                   (int64_t)off + len > p->vb[bi].ulen)))
        return zb_error_set(e, ZB_EPARSE,
                            "'%s' is not a valid Arrow IPC file: string %lld of column '%s' in "
                            "record batch %lld has length %d or lies outside its data buffers",
                            j->r->name, (long long)i, fd->name, (long long)b, (int)len);
    }
    offs[i] = total;
    total += len;
  }
  p->off0 = 0;
  p->offn = total;
  if (total == 0 || hold == 0) return ZB_OK; /* raw: copied from the file in pass two */
  if ((p->pchars = (uint8_t *)zb_malloc((size_t)total)) == NULL)
    return zb_error_set(e, ZB_ENOMEM, "out of host memory reading '%s'", j->r->name);
  for (int64_t i = 0; i < p->length; i++) {
    const int64_t start = offs[i], end = i + 1 < p->length ? offs[i + 1] : total;
    if (end == start) continue;
    if (end - start <= 12) {
      memcpy(p->pchars + start, v + 16 * i + 4, (size_t)(end - start));
    } else {
      int32_t bi, off;
      memcpy(&bi, v + 16 * i + 8, 4);
      memcpy(&off, v + 16 * i + 12, 4);
      memcpy(p->pchars + start, p->vdata[bi] + off, (size_t)(end - start));
    }
  }
  return ZB_OK;
}

/* Second pass: the offsets moved to where the piece's characters start,
 * and the characters copied there. */
static void asm_view_copy(asm_col *c, asm_piece *p) {
  int64_t *offs = (int64_t *)c->data->data + p->row;
  uint8_t *chars = (uint8_t *)c->chars->data + p->chars_at;
  if (p->pchars != NULL || p->offn == 0) {
    for (int64_t i = 0; i < p->length; i++) offs[i] += p->chars_at;
    if (p->offn > 0) memcpy(chars, p->pchars, (size_t)p->offn);
    zb_free(p->pchars);
    p->pchars = NULL;
    return;
  }
  const uint8_t *v = p->views; /* raw views, in the file */
  for (int64_t i = 0; i < p->length; i++) {
    const int64_t start = offs[i], end = i + 1 < p->length ? offs[i + 1] : p->offn;
    offs[i] = start + p->chars_at;
    if (end == start) continue;
    if (end - start <= 12) {
      memcpy(chars + start, v + 16 * i + 4, (size_t)(end - start));
    } else {
      int32_t bi, off;
      memcpy(&bi, v + 16 * i + 8, 4);
      memcpy(&off, v + 16 * i + 12, 4);
      memcpy(chars + start, p->vdata[bi] + off, (size_t)(end - start));
    }
  }
}

static void asm_view_task(void *ctx, int64_t t, int worker) {
  asm_job *j = (asm_job *)ctx;
  const int64_t b = t / j->n_view, c = j->view_cols[t % j->n_view];
  asm_col *col = &j->cols[c];
  zb_error e;
  zb_status st = asm_view_lengths(j, worker, &j->r->fields[j->r->sel[col->k]], col,
                                  &j->pieces[b * j->nc + c], b, &e);
  if (st != ZB_OK) asm_fail(j, st, &e);
}

/* The validity of column c (and its values when bool), batch by batch. */
static zb_status asm_bits(asm_job *j, int worker, int64_t c, zb_error *e) {
  asm_col *col = &j->cols[c];
  int64_t nulls = 0;
  for (int64_t b = 0; b < j->nb; b++) {
    asm_piece *p = &j->pieces[b * j->nc + c];
    const uint8_t *s;
    if (col->has_validity) {
      uint8_t *v = (uint8_t *)col->validity->data;
      if (p->null_count > 0) {
        ZB_RETURN_NOT_OK(asm_bytes(j, worker, &p->b[0], &s, e));
        zb__bitmap_copy(v, p->row, s, 0, p->length);
        nulls += p->length - zb_bitmap_count(v, p->row, p->length);
      } else {
        zb__bitmap_fill(v, p->row, p->length, true);
      }
    }
    if (col->type == ZB_BOOL && p->length > 0) {
      ZB_RETURN_NOT_OK(asm_bytes(j, worker, &p->b[1], &s, e));
      zb__bitmap_copy((uint8_t *)col->data->data, p->row, s, 0, p->length);
    }
  }
  col->nulls = nulls;
  return ZB_OK;
}

static void asm_task(void *ctx, int64_t t, int worker) {
  asm_job *j = (asm_job *)ctx;
  zb_error e;
  zb_status st = ZB_OK;
  if (t < j->nb * j->nc) {
    int64_t b = t / j->nc, c = t % j->nc;
    asm_col *col = &j->cols[c];
    const ipc_field *fd = &j->r->fields[j->r->sel[col->k]];
    asm_piece *p = &j->pieces[t];
    if (col->view)
      asm_view_copy(col, p);
    else if (col->type == ZB_STRING)
      st = asm_strings(j, worker, fd, col, p, b, &e);
    else if (col->type != ZB_BOOL)
      st = asm_values(j, worker, fd, col, p, &e);
  } else {
    st = asm_bits(j, worker, j->bit_cols[t - j->nb * j->nc], &e);
  }
  if (st != ZB_OK) asm_fail(j, st, &e);
}

/* Plan column c of batch b: its buffers, checked against what its rows need. */
static zb_status asm_plan_piece(reader *r, const ipc_field *fd, const zb__fbt *hdr,
                                const uint8_t *body, int64_t body_len, int64_t f,
                                asm_piece *p, const char *what) {
  int64_t length, node, buf, view;
  zb__fbv nodes, bufs, variadic;
  int codec;
  ZB_RETURN_NOT_OK(batch_header(r, hdr, what, &length, &nodes, &bufs, &variadic, &codec));
  ZB_RETURN_NOT_OK(field_start(r, f, &variadic, what, &node, &buf, &view));
  if (node >= nodes.count) return corrupt(r, "%s lacks the node of column '%s'", what, fd->name);
  p->length = zb__fb_vec_i64(&nodes, node, IPC_NODE_SIZE, 0);
  p->null_count = zb__fb_vec_i64(&nodes, node, IPC_NODE_SIZE, 8);
  if (p->length != length)
    return corrupt(r, "column '%s' of %s has %lld rows where the batch has %lld", fd->name,
                   what, (long long)p->length, (long long)length);
  if (p->null_count < 0 || p->null_count > length)
    return corrupt(r, "column '%s' of %s has %lld nulls", fd->name, what,
                   (long long)p->null_count);
  const int nbuf = fd->kind == K_STRING ? 3 : 2;
  for (int i = 0; i < nbuf; i++) {
    asm_buf *a = &p->b[i];
    ZB_RETURN_NOT_OK(locate_buffer(r, body, body_len, &bufs, buf + i, codec, fd->name, &a->src,
                                   &a->n, &a->ulen, &a->codec));
  }
  int64_t need = fd->kind == K_BOOL ? (length + 7) / 8 : length * fd->width;
  if (fd->kind == K_STRING) need = length > 0 ? (length + 1) * fd->width : 0;
  if (fd->kind == K_VIEW) {
    need = length * 16;
    if (view >= variadic.count) return corrupt(r, "%s lacks variadic buffer counts", what);
    p->nv = zb__fb_vec_i64(&variadic, view, 8, 0);
    if (p->nv < 0 || p->nv > bufs.count) return corrupt(r, "bad variadic buffer count in %s", what);
    p->vb = (asm_buf *)zb_calloc((size_t)p->nv + 1, sizeof(asm_buf));
    p->vdata = (const uint8_t **)zb_calloc((size_t)p->nv + 1, sizeof(uint8_t *));
    if (p->vb == NULL || p->vdata == NULL) return oom(r);
    for (int64_t v = 0; v < p->nv; v++) {
      asm_buf *a = &p->vb[v];
      ZB_RETURN_NOT_OK(locate_buffer(r, body, body_len, &bufs, buf + 2 + v, codec, fd->name,
                                     &a->src, &a->n, &a->ulen, &a->codec));
    }
  }
  if (p->b[1].ulen < need)
    return corrupt(r, "a buffer of column '%s' in %s holds %lld bytes where %lld are needed",
                   fd->name, what, (long long)p->b[1].ulen, (long long)need);
  if (p->null_count > 0 && p->b[0].ulen < (length + 7) / 8)
    return corrupt(r, "the validity bitmap of column '%s' in %s is too short", fd->name, what);
  if (fd->kind == K_STRING && length > 0 && p->b[1].codec < 0 && p->b[2].codec < 0) {
    /* raw: the characters its strings use are known now (the offsets in
     * between are checked when they are rebased) */
    const uint8_t *o = p->b[1].src;
    if (fd->width == 4) {
      int32_t a, z;
      memcpy(&a, o, 4);
      memcpy(&z, o + 4 * length, 4);
      p->off0 = a;
      p->offn = z;
    } else {
      memcpy(&p->off0, o, 8);
      memcpy(&p->offn, o + 8 * length, 8);
    }
    if (p->off0 < 0 || p->offn < p->off0 || p->offn > p->b[2].ulen)
      return corrupt(r, "the string offsets of column '%s' in %s run outside its %lld bytes "
                     "of characters", fd->name, what, (long long)p->b[2].ulen);
    p->exact = true;
  }
  return ZB_OK;
}

/* Assemble the selected columns ks[0, nc) over every batch into cols_out
 * (new references, in that order). */
static zb_status read_assembled(reader *r, const int64_t *ks, int64_t nc,
                                zb_column **cols_out) {
  zb_status st = ZB_OK;
  const int64_t nb = r->n_batches;
  /* a scratch slot for every worker index zb_set_num_threads allows (the
   * setting may change while this read runs) */
  const int nthreads = 4096;
  asm_job j;
  memset(&j, 0, sizeof j);
  j.r = r;
  j.nb = nb;
  j.nc = nc;
  pthread_mutex_init(&j.lock, NULL);
  j.pieces = (asm_piece *)zb_calloc((size_t)(nb * nc), sizeof(asm_piece));
  j.cols = (asm_col *)zb_calloc((size_t)nc, sizeof(asm_col));
  j.bit_cols = (int64_t *)zb_calloc((size_t)nc, sizeof(int64_t));
  j.view_cols = (int64_t *)zb_calloc((size_t)nc, sizeof(int64_t));
  j.scratch = (uint8_t **)zb_calloc((size_t)nthreads, sizeof(uint8_t *));
  j.scratch_cap = (int64_t *)zb_calloc((size_t)nthreads, sizeof(int64_t));
  if (j.pieces == NULL || j.cols == NULL || j.bit_cols == NULL || j.view_cols == NULL ||
      j.scratch == NULL || j.scratch_cap == NULL) {
    st = oom(r);
    goto done;
  }
  for (int64_t c = 0; c < nc; c++) {
    j.cols[c].k = ks[c];
    asm_type(&r->fields[r->sel[ks[c]]], &j.cols[c].type);
    j.cols[c].view = r->fields[r->sel[ks[c]]].kind == K_VIEW;
    if (j.cols[c].view) j.view_cols[j.n_view++] = c;
  }
  /* plan: every batch's pieces, the rows and characters before each */
  int64_t rows = 0;
  for (int64_t b = 0; b < nb; b++) {
    zb__fbt hdr;
    int64_t body, body_len;
    char what[64];
    if ((st = batch_message(r, b, &hdr, &body, &body_len, what, sizeof what)) != ZB_OK) goto done;
    for (int64_t c = 0; c < nc; c++) {
      asm_piece *p = &j.pieces[b * nc + c];
      const int64_t f = r->sel[ks[c]];
      if ((st = asm_plan_piece(r, &r->fields[f], &hdr, r->f->base + body, body_len, f, p,
                               what)) != ZB_OK)
        goto done;
      p->row = rows;
      if (p->null_count > 0) j.cols[c].has_validity = true;
    }
    rows += j.pieces[b * nc].length;
  }
  j.rows = rows;
  /* the whole columns */
  for (int64_t c = 0; c < nc; c++) {
    asm_col *col = &j.cols[c];
    const ipc_field *fd = &r->fields[r->sel[col->k]];
    if (col->has_validity || col->type == ZB_BOOL) j.bit_cols[j.n_bit++] = c;
    if (col->has_validity &&
        (st = zb_buffer_new_zeroed(ZB_CPU, (rows + 7) / 8, &col->validity, r->err)) != ZB_OK)
      goto done;
    if (col->type == ZB_BOOL) {
      st = zb_buffer_new_zeroed(ZB_CPU, (rows + 7) / 8, &col->data, r->err);
    } else if (col->view) {
      st = zb_buffer_new(ZB_CPU, (rows + 1) * 8, &col->data, r->err);
    } else if (col->type == ZB_STRING) {
      int64_t total = 0;
      for (int64_t b = 0; b < nb; b++) {
        asm_piece *p = &j.pieces[b * nc + c];
        p->chars_at = total;
        if (p->length == 0) p->b[2].ulen = 0;
        total += p->exact ? p->offn - p->off0 : p->b[2].ulen;
      }
      st = zb_buffer_new(ZB_CPU, (rows + 1) * 8, &col->data, r->err);
      if (st == ZB_OK) st = zb_buffer_new(ZB_CPU, total, &col->chars, r->err);
    } else {
      st = zb_buffer_new(ZB_CPU, rows * fd->width, &col->data, r->err);
    }
    if (st != ZB_OK) {
      if (st == ZB_ENOMEM) st = oom(r);
      goto done;
    }
  }
  if (j.n_view > 0) { /* views: each piece's characters counted, then placed */
    st = zb_parallel_for(nb * j.n_view, asm_view_task, &j, r->err);
    if (st == ZB_OK && j.status != ZB_OK)
      st = zb_error_set(r->err, j.status, "%s", j.err.message);
    if (st != ZB_OK) goto done;
    for (int64_t v = 0; v < j.n_view; v++) {
      asm_col *col = &j.cols[j.view_cols[v]];
      int64_t total = 0;
      for (int64_t b = 0; b < nb; b++) {
        asm_piece *p = &j.pieces[b * nc + j.view_cols[v]];
        p->chars_at = total;
        total += p->offn;
      }
      if ((st = zb_buffer_new(ZB_CPU, total, &col->chars, r->err)) != ZB_OK) goto done;
    }
  }
  st = zb_parallel_for(nb * nc + j.n_bit, asm_task, &j, r->err);
  if (st == ZB_OK && j.status != ZB_OK) st = zb_error_set(r->err, j.status, "%s", j.err.message);
  if (st != ZB_OK) goto done;
  for (int64_t c = 0; c < nc; c++) {
    asm_col *col = &j.cols[c];
    const ipc_field *fd = &r->fields[r->sel[col->k]];
    if (col->type == ZB_STRING) {
      /* each batch's strings ended where the next one's began, or pack them */
      int64_t *offs = (int64_t *)col->data->data;
      uint8_t *chars = (uint8_t *)col->chars->data;
      int64_t at = 0;
      for (int64_t b = 0; b < nb; b++) {
        asm_piece *p = &j.pieces[b * nc + c];
        if (p->length == 0) continue;
        const int64_t from = p->chars_at + (p->exact ? 0 : p->off0), used = p->offn - p->off0;
        if (from != at) {
          memmove(chars + at, chars + from, (size_t)used);
          int64_t *o = offs + p->row;
          const int64_t n = p->length, shift = at - from;
          for (int64_t i = 0; i < n; i++) o[i] += shift;
        }
        at += used;
      }
      offs[rows] = at;
    }
    if ((st = zb_column_make(col->type, rows, 0, col->validity, col->data, col->chars, NULL,
                             col->has_validity ? col->nulls : 0, &cols_out[c], r->err)) != ZB_OK)
      goto done;
    if ((col->type == ZB_TIMESTAMP || col->type == ZB_DURATION)) {
      const char *f = fd->format;
      zb_time_unit u = f[2] == 's' ? ZB_SECOND : f[2] == 'm' ? ZB_MILLI : f[2] == 'u' ? ZB_MICRO
                                                                                     : ZB_NANO;
      const char *tz = f[1] == 's' && f[3] == ':' && f[4] != '\0' ? f + 4 : NULL;
      if ((st = zb_column_set_time(cols_out[c], u, tz, r->err)) != ZB_OK) goto done;
    }
  }
done:
  if (st != ZB_OK)
    for (int64_t c = 0; c < nc; c++) {
      zb_column_release(cols_out[c]);
      cols_out[c] = NULL;
    }
  for (int64_t c = 0; c < nc && j.cols != NULL; c++) {
    zb_buffer_release(j.cols[c].validity);
    zb_buffer_release(j.cols[c].data);
    zb_buffer_release(j.cols[c].chars);
  }
  for (int64_t i = 0; i < nb * nc && j.pieces != NULL; i++) {
    zb_free(j.pieces[i].vb);
    zb_free((void *)j.pieces[i].vdata);
    zb_free(j.pieces[i].pchars);
  }
  for (int w = 0; w < nthreads && j.scratch != NULL; w++) zb_free(j.scratch[w]);
  zb_free(j.scratch);
  zb_free(j.scratch_cap);
  zb_free(j.pieces);
  zb_free(j.cols);
  zb_free(j.bit_cols);
  zb_free(j.view_cols);
  pthread_mutex_destroy(&j.lock);
  return st;
}

/* Several batches: the columns read_assembled takes, the list columns
 * (merged whole by read_batches when they are all it reads) and the
 * others through read_batches, in the selected order. */
zb_status read_mixed(reader *r, zb_table **out) {
  zb_status st = ZB_OK;
  const int64_t ns = r->n_sel;
  int64_t *fast = (int64_t *)zb_malloc((size_t)ns * sizeof(int64_t));
  int64_t *slow_sel = (int64_t *)zb_malloc((size_t)ns * sizeof(int64_t));
  int64_t *list_sel = (int64_t *)zb_malloc((size_t)ns * sizeof(int64_t));
  char *group = (char *)zb_malloc((size_t)ns);
  zb_column **fast_cols = (zb_column **)zb_calloc((size_t)ns, sizeof(zb_column *));
  zb_column **cols = (zb_column **)zb_calloc((size_t)ns, sizeof(zb_column *));
  const char **names = (const char **)zb_calloc((size_t)ns, sizeof(char *));
  zb_table *slow = NULL, *lists = NULL;
  int64_t n_fast = 0, n_slow = 0, n_list = 0;
  if (fast == NULL || slow_sel == NULL || list_sel == NULL || group == NULL ||
      fast_cols == NULL || cols == NULL || names == NULL) {
    st = oom(r);
    goto done;
  }
  for (int64_t k = 0; k < ns; k++) {
    zb_type_id t;
    const ipc_field *fd = &r->fields[r->sel[k]];
    if (asm_type(fd, &t)) {
      fast[n_fast++] = k;
      group[k] = 'f';
    } else if (fd->kind == K_LIST) {
      list_sel[n_list++] = r->sel[k];
      group[k] = 'l';
    } else {
      slow_sel[n_slow++] = r->sel[k];
      group[k] = 's';
    }
  }
  if (n_fast == 0 && (n_list == 0 || n_slow == 0)) {
    st = read_batches(r, out);
    goto done;
  }
  for (int pass = 0; pass < 2; pass++) {
    int64_t n = pass == 0 ? n_slow : n_list;
    if (n == 0) continue;
    int64_t *sel = r->sel, n_sel = r->n_sel;
    r->sel = pass == 0 ? slow_sel : list_sel;
    r->n_sel = n;
    st = read_batches(r, pass == 0 ? &slow : &lists);
    r->sel = sel;
    r->n_sel = n_sel;
    if (st != ZB_OK) goto done;
  }
  if (n_fast > 0 && (st = read_assembled(r, fast, n_fast, fast_cols)) != ZB_OK) goto done;
  for (int64_t k = 0, i = 0, j = 0, m = 0; k < ns; k++) {
    names[k] = r->fields[r->sel[k]].name;
    cols[k] = group[k] == 'f' ? fast_cols[i++] : group[k] == 'l' ? lists->columns[m++]
                                                                 : slow->columns[j++];
  }
  st = zb_table_make(ns, cols, names, out, r->err);
  if (st != ZB_OK) st = import_failed(r, st, "its columns"); /* e.g. two names alike */
done:
  for (int64_t i = 0; i < n_fast && fast_cols != NULL; i++) zb_column_release(fast_cols[i]);
  zb_table_release(slow);
  zb_table_release(lists);
  zb_free(fast);
  zb_free(slow_sel);
  zb_free(list_sel);
  zb_free(group);
  zb_free(fast_cols);
  zb_free(cols);
  zb_free((void *)names);
  return st;
}
