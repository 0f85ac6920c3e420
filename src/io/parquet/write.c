/*
 * write.c -- the Parquet writer: zb_parquet_write / zb_parquet_write_file.
 *
 * The table is cut into row groups; a batch of row groups (enough chunks
 * to keep every thread busy) is encoded on the thread pool, one task per
 * (row group, column) chunk, each into its own buffer of finished pages;
 * the buffers are then handed to the caller's write function in file
 * order on the calling thread and freed, so memory stays at a batch of
 * compressed chunks whatever the table's size.  The footer (Thrift compact
 * FileMetaData) is written last.
 *
 * Layout of a chunk, as pyarrow writes it: every column OPTIONAL (its
 * definition levels an RLE/bit-packed run of width 1 in each data page,
 * v1 or, on request, v2; page CRC-32s on request); numbers, booleans, dates and timestamps PLAIN; strings
 * RLE_DICTIONARY with a PLAIN dictionary page, falling back to PLAIN for
 * the whole chunk when the dictionary passes PQ_DICT_LIMIT bytes;
 * categoricals RLE_DICTIONARY over their categories.  Pages hold about
 * PQ_PAGE_BYTES of values.  Statistics: null count, and min / max of the
 * values (NaN skipped; a categorical's over its categories, as pyarrow).
 * Types: int8/16 and uint8/16 as INT32 with INT(8/16) logical types,
 * uint32/64 as INT32/INT64 with INT(32/64, unsigned), date32 as DATE,
 * timestamps as TIMESTAMP in their unit (seconds become milliseconds, as
 * Parquet has no second unit), UTC-adjusted when the column has a time
 * zone (the values are UTC instants).
 *
 * A list column (encode_list_chunk) is a 3-level LIST -- optional group
 * <name> (LIST) { repeated group list { optional <type> element } } --
 * and a list of lists one whose element is itself such a group, to
 * ZB_LIST_MAX_DEPTH levels; with repetition and definition levels in v1
 * data pages, its values encoded as a flat column's are (strings with a
 * dictionary, the rest PLAIN), and statistics of its values.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/dtype_list.h"
#include "io/codecs.h"
#include "io/file_sink.h"
#include "io/parquet/pq_write.h"
#include "zambezi/io.h"

#define PQ_PAGE_BYTES ((int64_t)1 << 20)
#define PQ_DICT_LIMIT ((int64_t)1 << 20)
#define PQ_DEFAULT_ROW_GROUP ((int64_t)1 << 20)

/* What a column is written as. */
typedef struct wcol {
  const zb_column *col;
  const char *name;
  int32_t phys;
  int32_t converted; /* -1: none */
  int logical;       /* PQ_LT_* */
  int int_bits;
  bool int_signed;
  bool ts_utc;
  int ts_unit;       /* 1 ms, 2 us, 3 ns */
  int64_t ts_scale;  /* seconds -> ms: 1000 */
  int width;         /* PLAIN bytes per value (4 / 8), 0 bool / byte array */
  const zb_column *list; /* a list column (then col is its values), else NULL */
  const zb_column *lists[ZB_LIST_MAX_DEPTH]; /* its levels: list, list's child, ... */
  int depth;                                 /* how many */
} wcol;

/* One encoded (row group, column) chunk. */
typedef struct wchunk {
  pq_buf out;
  int64_t rows, nulls;
  int64_t uncompressed;
  int64_t dict_off;   /* relative to the chunk's start, -1 none */
  int64_t data_off;
  bool has_dict, has_plain;
  bool has_minmax;
  uint8_t minb[8], maxb[8];
  const uint8_t *minp, *maxp; /* byte arrays: into the column's chars */
  int64_t minlen, maxlen;
  int64_t file_pos;   /* where it starts in the file */
} wchunk;

typedef struct writer {
  const zb_table *t;
  const zb_parquet_write_options *o;
  wcol *cols;
  int64_t ncols;
  int64_t rg_rows, nrg;
  wchunk *chunks; /* nrg * ncols, row group major */
  int64_t batch0;  /* the first row group of the batch being encoded */
  pthread_mutex_t mu;
  int64_t err_task;
  zb_status err_st;
  zb_error err;
} writer;

/* ---- types ------------------------------------------------------------- */

static zb_status map_column(wcol *w, zb_error *err) {
  const zb_column *c = w->col;
  w->converted = -1;
  w->logical = PQ_LT_NONE;
  w->ts_scale = 1;
  switch (c->type) {
    case ZB_BOOL: w->phys = PQ_BOOLEAN; return ZB_OK;
    case ZB_INT8: case ZB_INT16: case ZB_UINT8: case ZB_UINT16:
    case ZB_INT32: case ZB_UINT32:
      w->phys = PQ_INT32;
      w->width = 4;
      w->int_bits = zb_type_width(c->type) * 8;
      w->int_signed = zb_type_is_signed(c->type);
      if (c->type != ZB_INT32) {
        w->logical = PQ_LT_INT;
        /* ConvertedType: UINT_8 11, UINT_16 12, UINT_32 13, INT_8 15, INT_16 16 */
        w->converted = w->int_signed ? (w->int_bits == 8 ? 15 : 16)
                                     : (w->int_bits == 8 ? 11 : w->int_bits == 16 ? 12 : 13);
      }
      return ZB_OK;
    case ZB_INT64: w->phys = PQ_INT64; w->width = 8; return ZB_OK;
    case ZB_UINT64:
      w->phys = PQ_INT64;
      w->width = 8;
      w->logical = PQ_LT_INT;
      w->int_bits = 64;
      w->int_signed = false;
      w->converted = 14;
      return ZB_OK;
    case ZB_FLOAT32: w->phys = PQ_FLOAT; w->width = 4; return ZB_OK;
    case ZB_FLOAT64: w->phys = PQ_DOUBLE; w->width = 8; return ZB_OK;
    case ZB_STRING: case ZB_CATEGORICAL:
      w->phys = PQ_BYTE_ARRAY;
      w->logical = PQ_LT_STRING;
      w->converted = 0; /* UTF8 */
      return ZB_OK;
    case ZB_DATE32:
      w->phys = PQ_INT32;
      w->width = 4;
      w->logical = PQ_LT_DATE;
      w->converted = 6;
      return ZB_OK;
    case ZB_TIMESTAMP:
      w->phys = PQ_INT64;
      w->width = 8;
      w->logical = PQ_LT_TIMESTAMP;
      w->ts_utc = c->timezone != NULL;
      w->ts_unit = c->unit == ZB_SECOND ? 1 : (int)c->unit;
      w->ts_scale = c->unit == ZB_SECOND ? 1000 : 1;
      if (w->ts_utc && w->ts_unit < 3) w->converted = w->ts_unit == 1 ? 9 : 10;
      return ZB_OK;
    case ZB_DURATION: /* no Parquet logical type: INT64 in the column's unit, the unit in
                       * the ARROW:schema metadata, as pyarrow writes it */
      w->phys = PQ_INT64;
      w->width = 8;
      return ZB_OK;
    case ZB_LIST: /* the child's type (or lists), written as a LIST (encode_list_chunk) */
      if (w->depth < ZB_LIST_MAX_DEPTH && c->child != NULL &&
          c->child->type != ZB_CATEGORICAL) {
        if (w->depth == 0) w->list = c;
        w->lists[w->depth++] = c;
        w->col = c->child;
        return map_column(w, err);
      }
      return zb_error_set(err, ZB_ENOTSUP, "to_parquet: column '%s' is a list of %s, which "
                          "the Parquet writer does not write (lists of other values are "
                          "written)", w->name,
                          c->child == NULL ? "nothing" : c->child->type == ZB_LIST
                          ? "lists nested too deep" : "categoricals");
    default:
      return zb_error_set(err, ZB_ENOTSUP, "to_parquet: column '%s' has type %s, which the "
                          "Parquet writer does not write", w->name, zb_type_name(c->type));
  }
}

/* ---- values of one page ------------------------------------------------ */

static inline const uint8_t *validity_of(const zb_column *c) {
  return c->null_count > 0 && c->validity != NULL ? (const uint8_t *)c->validity->data : NULL;
}

/* A fixed-width type's case running BODY(T, P), P the type its values are
 * written as: int32 for the integers narrower than 32 bits, else T itself.
 * BODY is defined around the switch. */
#define WIDENED_CASE(ID, T, NAME, U) \
  case ID:                           \
    if (sizeof(T) < 4)               \
      BODY(T, int32_t);              \
    else                             \
      BODY(T, T);                    \
    break;

/* Append the PLAIN values of the valid rows in [a, b) of a fixed-width
 * column, converted to the physical type. */
#define GATHER(SRC, DST)                                                   \
  do {                                                                     \
    const SRC *s_ = (const SRC *)c->data->data + c->offset;                \
    uint8_t *d_ = (uint8_t *)(b->p + b->n); /* not aligned: memcpy */      \
    int64_t k_ = 0;                                                        \
    for (int64_t i_ = a; i_ < e; i_++) {                                   \
      DST v_ = (DST)s_[i_];                                                \
      if (scale != 1) v_ = (DST)(v_ * scale);                              \
      memcpy(d_ + (size_t)k_ * sizeof(DST), &v_, sizeof(DST));             \
      k_ += valid == NULL || zb_bit_get(valid, c->offset + i_);            \
    }                                                                      \
    b->n += k_ * (int64_t)sizeof(DST);                                     \
  } while (0)

static bool plain_fixed(pq_buf *b, const wcol *w, int64_t a, int64_t e) {
  const zb_column *c = w->col;
  const uint8_t *valid = validity_of(c);
  int64_t scale = w->ts_scale;
  if (!zb__pq_buf_reserve(b, (e - a) * 8)) return false;
#define BODY GATHER
  switch (c->type) {
    ZB_FOR_EACH_FIXED_TYPE(WIDENED_CASE)
    default: break;
  }
#undef BODY
  return true;
}

static bool plain_bool(pq_buf *b, const wcol *w, int64_t a, int64_t e) {
  const zb_column *c = w->col;
  const uint8_t *valid = validity_of(c);
  const uint8_t *bits = (const uint8_t *)c->data->data;
  if (!zb__pq_buf_reserve(b, (e - a + 7) / 8 + 1)) return false;
  uint8_t *out = b->p + b->n;
  int64_t k = 0;
  uint8_t acc = 0;
  for (int64_t i = a; i < e; i++) {
    int64_t p = c->offset + i;
    if (valid != NULL && !zb_bit_get(valid, p)) continue;
    acc |= (uint8_t)(zb_bit_get(bits, p) << (k & 7));
    if ((++k & 7) == 0) {
      *out++ = acc;
      acc = 0;
    }
  }
  if (k & 7) *out++ = acc;
  b->n += (k + 7) / 8;
  return true;
}

static bool plain_strings(pq_buf *b, const wcol *w, int64_t a, int64_t e) {
  const zb_column *c = w->col;
  const uint8_t *valid = validity_of(c);
  const int64_t *off = (const int64_t *)c->data->data + c->offset;
  const uint8_t *chars = (const uint8_t *)c->chars->data;
  int64_t need = (off[e] - off[a]) + 4 * (e - a);
  if (!zb__pq_buf_reserve(b, need)) return false;
  uint8_t *out = b->p + b->n;
  for (int64_t i = a; i < e; i++) {
    if (valid != NULL && !zb_bit_get(valid, c->offset + i)) continue;
    uint32_t len = (uint32_t)(off[i + 1] - off[i]);
    memcpy(out, &len, 4);
    memcpy(out + 4, chars + off[i], len);
    out += 4 + (int64_t)len;
  }
  b->n = out - b->p;
  return true;
}

/* RLE_DICTIONARY indices of the valid rows in [a, b): codes[i - base]. */
static bool dict_indices(pq_buf *b, const uint8_t *valid, int64_t voff, const int32_t *codes,
                         int64_t a, int64_t e, int width, uint32_t *scratch) {
  int64_t k = 0;
  for (int64_t i = a; i < e; i++) {
    scratch[k] = (uint32_t)codes[i];
    k += valid == NULL ? 1 : zb_bit_get(valid, voff + i);
  }
  uint8_t wb = (uint8_t)width;
  return pq_put(b, &wb, 1) && zb__pq_rle_encode(b, scratch, k, width);
}

/* ---- statistics -------------------------------------------------------- */

#define MINMAX_INT(SRC, DST)                                                         \
  do {                                                                               \
    const SRC *s_ = (const SRC *)c->data->data + c->offset;                          \
    SRC lo_ = 0, hi_ = 0;                                                            \
    bool any_ = false;                                                               \
    for (int64_t i_ = a; i_ < e; i_++) {                                             \
      if (valid != NULL && !zb_bit_get(valid, c->offset + i_)) continue;             \
      SRC x_ = s_[i_];                                                               \
      if (!any_) {                                                                   \
        lo_ = hi_ = x_;                                                              \
        any_ = true;                                                                 \
      } else {                                                                       \
        lo_ = x_ < lo_ ? x_ : lo_;                                                   \
        hi_ = x_ > hi_ ? x_ : hi_;                                                   \
      }                                                                              \
    }                                                                                \
    if (any_) {                                                                      \
      DST l_ = (DST)lo_ * (DST)w->ts_scale, h_ = (DST)hi_ * (DST)w->ts_scale;        \
      memcpy(ch->minb, &l_, sizeof l_);                                              \
      memcpy(ch->maxb, &h_, sizeof h_);                                              \
      ch->minlen = ch->maxlen = (int64_t)sizeof(DST);                                \
      ch->has_minmax = true;                                                         \
    }                                                                                \
  } while (0)

#define MINMAX_FLOAT(T)                                                              \
  do {                                                                               \
    const T *s_ = (const T *)c->data->data + c->offset;                              \
    T lo_ = 0, hi_ = 0;                                                              \
    bool any_ = false;                                                               \
    for (int64_t i_ = a; i_ < e; i_++) {                                             \
      if (valid != NULL && !zb_bit_get(valid, c->offset + i_)) continue;             \
      T x_ = s_[i_];                                                                 \
      if (x_ != x_) continue;                                                        \
      if (!any_) {                                                                   \
        lo_ = hi_ = x_;                                                              \
        any_ = true;                                                                 \
      } else {                                                                       \
        lo_ = x_ < lo_ ? x_ : lo_;                                                   \
        hi_ = x_ > hi_ ? x_ : hi_;                                                   \
      }                                                                              \
    }                                                                                \
    if (any_) {                                                                      \
      if (lo_ == 0) lo_ = (T)-0.0;                                                   \
      if (hi_ == 0) hi_ = (T)0.0;                                                    \
      memcpy(ch->minb, &lo_, sizeof lo_);                                            \
      memcpy(ch->maxb, &hi_, sizeof hi_);                                            \
      ch->minlen = ch->maxlen = (int64_t)sizeof(T);                                  \
      ch->has_minmax = true;                                                         \
    }                                                                                \
  } while (0)

static int bytes_cmp(const uint8_t *x, int64_t nx, const uint8_t *y, int64_t ny) {
  int64_t n = nx < ny ? nx : ny;
  int r = n > 0 ? memcmp(x, y, (size_t)n) : 0;
  if (r != 0) return r;
  return nx < ny ? -1 : nx > ny ? 1 : 0;
}

/* min / max of strings [a, e) of a string column (valid NULL: all). */
static void minmax_strings(wchunk *ch, const zb_column *c, const uint8_t *valid, int64_t a,
                           int64_t e) {
  const int64_t *off = (const int64_t *)c->data->data + c->offset;
  const uint8_t *chars = (const uint8_t *)c->chars->data;
  for (int64_t i = a; i < e; i++) {
    if (valid != NULL && !zb_bit_get(valid, c->offset + i)) continue;
    const uint8_t *p = chars + off[i];
    int64_t n = off[i + 1] - off[i];
    if (!ch->has_minmax) {
      ch->minp = ch->maxp = p;
      ch->minlen = ch->maxlen = n;
      ch->has_minmax = true;
      continue;
    }
    if (bytes_cmp(p, n, ch->minp, ch->minlen) < 0) {
      ch->minp = p;
      ch->minlen = n;
    }
    if (bytes_cmp(p, n, ch->maxp, ch->maxlen) > 0) {
      ch->maxp = p;
      ch->maxlen = n;
    }
  }
}

static void chunk_stats(wchunk *ch, const wcol *w, int64_t a, int64_t e) {
  const zb_column *c = w->col;
  const uint8_t *valid = validity_of(c);
  switch (c->type) {
    case ZB_BOOL: {
      const uint8_t *bits = (const uint8_t *)c->data->data;
      bool any_t = false, any_f = false;
      for (int64_t i = a; i < e && !(any_t && any_f); i++) {
        if (valid != NULL && !zb_bit_get(valid, c->offset + i)) continue;
        if (zb_bit_get(bits, c->offset + i)) any_t = true; else any_f = true;
      }
      if (any_t || any_f) {
        ch->minb[0] = any_f ? 0 : 1;
        ch->maxb[0] = any_t ? 1 : 0;
        ch->minlen = ch->maxlen = 1;
        ch->has_minmax = true;
      }
      break;
    }
#define BODY MINMAX_INT
    ZB_FOR_EACH_INTEGER_TYPE(WIDENED_CASE)
    ZB_FOR_EACH_TEMPORAL_TYPE(WIDENED_CASE)
#undef BODY
    case ZB_FLOAT32: MINMAX_FLOAT(float); break;
    case ZB_FLOAT64: MINMAX_FLOAT(double); break;
    case ZB_STRING: break; /* encode_chunk: over the dictionary, or the rows */
    case ZB_CATEGORICAL:
      if (e - a > ch->nulls) minmax_strings(ch, c->dictionary, NULL, 0, c->dictionary->length);
      break;
    default: break;
  }
}

/* x against y in the order of w's physical type (a value's bytes as
 * chunk_stats stores them, or a string's). */
#define CMP_AS(T)                                                                    \
  do {                                                                               \
    T a_, b_;                                                                        \
    memcpy(&a_, x, sizeof a_);                                                       \
    memcpy(&b_, y, sizeof b_);                                                       \
    return a_ < b_ ? -1 : a_ > b_;                                                   \
  } while (0)

static int stat_cmp(const wcol *w, const uint8_t *x, int64_t nx, const uint8_t *y, int64_t ny) {
  const zb_type_id t = w->col->type;
  switch (w->phys) {
    case PQ_INT32:
      if (t == ZB_UINT32) CMP_AS(uint32_t);
      CMP_AS(int32_t);
    case PQ_INT64:
      if (t == ZB_UINT64) CMP_AS(uint64_t);
      CMP_AS(int64_t);
    case PQ_FLOAT: CMP_AS(float);
    case PQ_DOUBLE: CMP_AS(double);
    case PQ_BOOLEAN: return (int)x[0] - (int)y[0];
    default: return bytes_cmp(x, nx, y, ny);
  }
}
#undef CMP_AS

/* The min / max of the values of rows [a, e) of w's column merged into
 * ch's (a list column's values are written run by run). */
static void stats_merge(wchunk *ch, const wcol *w, int64_t a, int64_t e) {
  if (w->col->type == ZB_STRING) {
    minmax_strings(ch, w->col, validity_of(w->col), a, e);
    return;
  }
  wchunk t;
  memset(&t, 0, sizeof t);
  chunk_stats(&t, w, a, e);
  if (!t.has_minmax) return;
  if (!ch->has_minmax || stat_cmp(w, t.minb, t.minlen, ch->minb, ch->minlen) < 0) {
    memcpy(ch->minb, t.minb, sizeof t.minb);
    ch->minlen = t.minlen;
  }
  if (!ch->has_minmax || stat_cmp(w, t.maxb, t.maxlen, ch->maxb, ch->maxlen) > 0) {
    memcpy(ch->maxb, t.maxb, sizeof t.maxb);
    ch->maxlen = t.maxlen;
  }
  ch->has_minmax = true;
}

/* ---- pages ------------------------------------------------------------- */

typedef struct page_ctx {
  const zb_parquet_write_options *o;
  pq_buf body, comp;
} page_ctx;

/* Compress pc->body and append its page header and bytes to ch->out.  A
 * data page's body is its v1 layout (4-byte length, definition levels,
 * values); for a data page v2 (o->data_page_version 2) the levels are
 * stored uncompressed without the length and only the values compressed,
 * and the header counts the page's nulls. */
static zb_status put_page(wchunk *ch, page_ctx *pc, int type, int32_t num_values, int encoding,
                          int64_t nulls, zb_error *err) {
  const uint8_t *data = pc->body.p;
  int64_t n = pc->body.n;
  int codec = pc->o->codec;
  if (n > INT32_MAX) return zb_error_set(err, ZB_EOVERFLOW, "a Parquet page of %lld bytes", (long long)n);
  bool v2 = type == PQ_DATA_PAGE && pc->o->data_page_version == 2;
  int64_t levels = 0; /* v2: the levels' bytes, stored before the values */
  if (v2) {
    uint32_t l;
    memcpy(&l, data, 4);
    levels = l;
    data += 4;
    n -= 4;
  }
  const uint8_t *vals = data + levels;
  int64_t vlen = n - levels, clen = vlen;
  if (codec != ZB_PARQUET_UNCOMPRESSED) {
    int64_t bound = codec == ZB_PARQUET_SNAPPY ? zb__snappy_bound(vlen)
                    : codec == ZB_PARQUET_GZIP ? zb__gzip_bound(vlen)
                                               : zb__zstd_bound(vlen);
    if (bound < 0) bound = 0; /* the library is missing: compress says so */
    pc->comp.n = 0;
    if (!zb__pq_buf_reserve(&pc->comp, bound + 1))
      return zb_error_set(err, ZB_ENOMEM, "out of host memory (a compressed page)");
    int level = pc->o->compression_level;
    zb_status st;
    if (codec == ZB_PARQUET_SNAPPY)
      st = zb__snappy_compress(vals, vlen, pc->comp.p, pc->comp.cap, &clen, err);
    else if (codec == ZB_PARQUET_GZIP)
      st = zb__gzip_compress(vals, vlen, level != 0 ? level : 6, pc->comp.p, pc->comp.cap,
                             &clen, err);
    else
      st = zb__zstd_compress(vals, vlen, level != 0 ? level : 1, pc->comp.p, pc->comp.cap,
                             &clen, err);
    if (st != ZB_OK) return st;
    vals = pc->comp.p;
  }
  if (levels + clen > INT32_MAX)
    return zb_error_set(err, ZB_EOVERFLOW, "a Parquet page of %lld bytes", (long long)(levels + clen));
  int64_t at = ch->out.n;
  tw w;
  zb__tw_init(&w, &ch->out);
  zb__tw_struct_begin(&w, 0);
  zb__tw_i32(&w, 1, v2 ? PQ_DATA_PAGE_V2 : type);
  zb__tw_i32(&w, 2, (int32_t)n);
  zb__tw_i32(&w, 3, (int32_t)(levels + clen));
  if (pc->o->page_checksum) /* CRC-32 of the page's bytes as stored */
    zb__tw_i32(&w, 4, (int32_t)zb__pq_crc32_update(zb__pq_crc32(data, levels), vals, clen));
  if (v2) {
    zb__tw_struct_begin(&w, 8);
    zb__tw_i32(&w, 1, num_values);
    zb__tw_i32(&w, 2, (int32_t)nulls);
    zb__tw_i32(&w, 3, num_values); /* flat columns: a row per value */
    zb__tw_i32(&w, 4, encoding);
    zb__tw_i32(&w, 5, (int32_t)levels);
    zb__tw_i32(&w, 6, 0);
    if (codec == ZB_PARQUET_UNCOMPRESSED) zb__tw_bool(&w, 7, false);
    zb__tw_struct_end(&w);
  } else if (type == PQ_DATA_PAGE) {
    zb__tw_struct_begin(&w, 5);
    zb__tw_i32(&w, 1, num_values);
    zb__tw_i32(&w, 2, encoding);
    zb__tw_i32(&w, 3, PQ_RLE);
    zb__tw_i32(&w, 4, PQ_RLE);
    zb__tw_struct_end(&w);
  } else {
    zb__tw_struct_begin(&w, 7);
    zb__tw_i32(&w, 1, num_values);
    zb__tw_i32(&w, 2, PQ_PLAIN);
    zb__tw_struct_end(&w);
  }
  zb__tw_struct_end(&w);
  if (!w.ok || !pq_put(&ch->out, data, levels) || !pq_put(&ch->out, vals, clen))
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (a Parquet page)");
  ch->uncompressed += (ch->out.n - at - levels - clen) + n;
  return ZB_OK;
}

/* Rows per data page: about PQ_PAGE_BYTES of values. */
static int64_t page_rows(const wcol *w, int64_t rows, int64_t chars, bool dict, int width) {
  int64_t per = w->width > 0 ? w->width
                : w->phys == PQ_BOOLEAN ? 1
                : dict ? (width + 7) / 8 + 1
                : rows > 0 ? chars / rows + 4 : 4;
  if (per < 1) per = 1;
  int64_t r = PQ_PAGE_BYTES / per;
  return r < 1024 ? 1024 : r;
}

/* Encode rows [r0, r0 + n) of column w into ch. */
/* The dictionary codes of strings [a, e) of c into codes[0, e - a) (0
 * for a null), entries added to d; *dict false (and the codes incomplete)
 * once the dictionary passes PQ_DICT_LIMIT.  ZB_ENOMEM or ZB_ECANCEL
 * without a message. */
static zb_status string_codes(pq_dict *d, const zb_column *c, int64_t a, int64_t e,
                              int32_t *codes, bool *dict) {
  const uint8_t *valid = validity_of(c);
  const int64_t *off = (const int64_t *)c->data->data + c->offset;
  const uint8_t *cs = (const uint8_t *)c->chars->data;
  *dict = true;
  for (int64_t i = 0; i < e - a && *dict; i++) {
    int64_t r = a + i;
    if (valid != NULL && !zb_bit_get(valid, c->offset + r)) {
      codes[i] = 0;
      continue;
    }
    if (off[r + 1] - off[r] > INT32_MAX) { /* PLAIN says what is wrong */
      *dict = false;
      break;
    }
    int64_t code = zb__pq_dict_code(d, cs, off[r], (int32_t)(off[r + 1] - off[r]));
    if (code < 0) return ZB_ENOMEM;
    codes[i] = (int32_t)code;
    if (d->bytes > PQ_DICT_LIMIT) *dict = false;
    if ((i & 4095) == 4095 && zb_cancel_requested()) return ZB_ECANCEL;
  }
  return ZB_OK;
}

/* d's entries (in c's characters) as ch's dictionary page. */
static zb_status dict_page(wchunk *ch, page_ctx *pc, const pq_dict *d, const wcol *w,
                           zb_error *err) {
  const zb_column *c = w->col;
  const uint8_t *cs = (const uint8_t *)c->chars->data;
  pc->body.n = 0;
  if (!zb__pq_buf_reserve(&pc->body, d->bytes))
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (to_parquet: column '%s')", w->name);
  for (int64_t k = 0; k < d->count; k++) {
    uint32_t len = (uint32_t)d->ent_len[k];
    memcpy(pc->body.p + pc->body.n, &len, 4);
    memcpy(pc->body.p + pc->body.n + 4, cs + d->ent_off[k], len);
    pc->body.n += 4 + (int64_t)len;
  }
  ch->dict_off = ch->out.n;
  return put_page(ch, pc, PQ_DICTIONARY_PAGE, (int32_t)d->count, PQ_PLAIN, 0, err);
}

static zb_status encode_chunk(const zb_parquet_write_options *o, const wcol *w, int64_t r0,
                              int64_t n, wchunk *ch, zb_error *err) {
  const zb_column *c = w->col;
  const uint8_t *valid = validity_of(c);
  page_ctx pc;
  memset(&pc, 0, sizeof pc);
  pc.o = o;
  pq_dict d;
  memset(&d, 0, sizeof d);
  int32_t *codes = NULL;
  uint32_t *scratch = NULL;
  zb_status st = ZB_OK;
  ch->rows = n;
  ch->dict_off = -1;
  ch->nulls = valid == NULL ? 0 : n - zb_bitmap_count(valid, c->offset + r0, n);
  chunk_stats(ch, w, r0, r0 + n);
  bool dict = false;
  int width = 0;
  const int32_t *dcodes = NULL; /* indexed from r0 */
  int64_t chars = 0;
  if (c->type == ZB_STRING) {
    const int64_t *off = (const int64_t *)c->data->data + c->offset;
    const uint8_t *cs = (const uint8_t *)c->chars->data;
    chars = off[r0 + n] - off[r0];
    for (int64_t i = r0; i < r0 + n; i++)
      if (off[i + 1] - off[i] > INT32_MAX) {
        st = zb_error_set(err, ZB_EOVERFLOW, "to_parquet: column '%s', row %lld: a string of "
                          "%lld bytes (Parquet holds at most 2^31 - 1)", w->name, (long long)i,
                          (long long)(off[i + 1] - off[i]));
        goto done;
      }
    codes = (int32_t *)zb_malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t));
    if (codes == NULL) goto oom;
    if (n - ch->nulls > 0) {
      zb_status cs_st = string_codes(&d, c, r0, r0 + n, codes, &dict);
      if (cs_st == ZB_ENOMEM) goto oom;
      if (cs_st == ZB_ECANCEL) goto cancelled;
    }
    if (dict) {
      dcodes = codes;
      /* min / max over the distinct values */
      for (int64_t k = 0; k < d.count; k++) {
        const uint8_t *p = cs + d.ent_off[k];
        int64_t len = d.ent_len[k];
        if (!ch->has_minmax || bytes_cmp(p, len, ch->minp, ch->minlen) < 0) {
          ch->minp = p;
          ch->minlen = len;
        }
        if (!ch->has_minmax || bytes_cmp(p, len, ch->maxp, ch->maxlen) > 0) {
          ch->maxp = p;
          ch->maxlen = len;
        }
        ch->has_minmax = true;
      }
      width = zb__pq_bit_width((uint32_t)(d.count > 0 ? d.count - 1 : 0));
      if ((st = dict_page(ch, &pc, &d, w, err)) != ZB_OK) goto done;
    }
  } else if (c->type == ZB_CATEGORICAL) {
    const zb_column *dc = c->dictionary;
    const int64_t *off = (const int64_t *)dc->data->data + dc->offset;
    const uint8_t *cs = (const uint8_t *)dc->chars->data;
    int64_t nd = dc->length;
    dict = true;
    dcodes = (const int32_t *)c->data->data + c->offset + r0;
    width = zb__pq_bit_width((uint32_t)(nd > 0 ? nd - 1 : 0));
    pc.body.n = 0;
    if (!zb__pq_buf_reserve(&pc.body, off[nd] - off[0] + 4 * nd)) goto oom;
    for (int64_t k = 0; k < nd; k++) {
      uint32_t len = (uint32_t)(off[k + 1] - off[k]);
      memcpy(pc.body.p + pc.body.n, &len, 4);
      memcpy(pc.body.p + pc.body.n + 4, cs + off[k], len);
      pc.body.n += 4 + (int64_t)len;
    }
    ch->dict_off = ch->out.n;
    if ((st = put_page(ch, &pc, PQ_DICTIONARY_PAGE, (int32_t)nd, PQ_PLAIN, 0, err)) != ZB_OK)
      goto done;
  }
  if (c->type == ZB_STRING && !dict) minmax_strings(ch, c, valid, r0, r0 + n);
  ch->has_dict = dict;
  ch->has_plain = !dict;
  ch->data_off = ch->out.n;
  int64_t per = page_rows(w, n, chars, dict, width);
  if (dict) {
    scratch = (uint32_t *)zb_malloc((size_t)(per < n ? per : (n > 0 ? n : 1)) * sizeof(uint32_t));
    if (scratch == NULL) goto oom;
  }
  for (int64_t a = 0; a < n || (a == 0 && n == 0); a += per) {
    int64_t e = a + per < n ? a + per : n;
    if (zb_cancel_requested()) goto cancelled; /* one check per page */
    pc.body.n = 0;
    if (!zb__pq_def_levels(&pc.body, valid, c->offset + r0 + a, e - a)) goto oom;
    bool ok;
    if (dict)
      ok = dict_indices(&pc.body, valid, c->offset + r0, dcodes, a, e, width, scratch);
    else if (w->phys == PQ_BOOLEAN)
      ok = plain_bool(&pc.body, w, r0 + a, r0 + e);
    else if (w->phys == PQ_BYTE_ARRAY)
      ok = plain_strings(&pc.body, w, r0 + a, r0 + e);
    else
      ok = plain_fixed(&pc.body, w, r0 + a, r0 + e);
    if (!ok) goto oom;
    int64_t page_nulls =
        valid == NULL ? 0 : (e - a) - zb_bitmap_count(valid, c->offset + r0 + a, e - a);
    st = put_page(ch, &pc, PQ_DATA_PAGE, (int32_t)(e - a), dict ? PQ_RLE_DICTIONARY : PQ_PLAIN,
                  page_nulls, err);
    if (st != ZB_OK) goto done;
    if (n == 0) break;
  }
  goto done;
cancelled:
  st = zb_error_set(err, ZB_ECANCEL, "interrupted");
  goto done;
oom:
  st = zb_error_set(err, ZB_ENOMEM, "out of host memory (to_parquet: column '%s')", w->name);
done:
  zb_free(codes);
  zb_free(scratch);
  zb__pq_dict_free(&d);
  pq_buf_free(&pc.body);
  pq_buf_free(&pc.comp);
  return st;
}

/* The valid booleans of rows [a, e) of c appended to a PLAIN bit stream
 * whose last *k & 7 bits wait in *acc (not yet in b). */
static bool bool_run(pq_buf *b, const zb_column *c, int64_t a, int64_t e, uint8_t *acc,
                     int64_t *k) {
  const uint8_t *valid = validity_of(c), *bits = (const uint8_t *)c->data->data;
  if (!zb__pq_buf_reserve(b, (e - a) / 8 + 1)) return false;
  for (int64_t i = a; i < e; i++) {
    int64_t p = c->offset + i;
    if (valid != NULL && !zb_bit_get(valid, p)) continue;
    *acc |= (uint8_t)(zb_bit_get(bits, p) << (*k & 7));
    if ((++*k & 7) == 0) {
      b->p[b->n++] = *acc;
      *acc = 0;
    }
  }
  return true;
}

/* A list chunk's page while it is built: each slot's levels, and the
 * leaf rows whose values are written, gathered into runs of consecutive
 * rows (booleans are one bit stream across the runs). */
typedef struct list_page {
  const wcol *w;
  wchunk *ch; /* its min / max, of the values written */
  uint32_t *rep, *def;
  int64_t n, cap; /* slots */
  int64_t nulls;  /* null or empty lists, null values */
  int64_t run_a, run_e;
  pq_buf vals;
  const int32_t *codes; /* dictionary-encoded: the code of value i at codes[i - code0] */
  int64_t code0;
  uint32_t *idx; /* the page's codes, of the values written */
  int64_t nidx, cap_idx;
  uint8_t bacc;
  int64_t bk;
} list_page;

static bool lp_slot(list_page *s, uint32_t r, uint32_t d) {
  if (s->n == s->cap) {
    int64_t cap = s->cap ? s->cap * 2 : 1024;
    uint32_t *p = (uint32_t *)zb_malloc((size_t)cap * 2 * sizeof(uint32_t));
    if (p == NULL) return false;
    if (s->n > 0) {
      memcpy(p, s->rep, (size_t)s->n * sizeof(uint32_t));
      memcpy(p + cap, s->def, (size_t)s->n * sizeof(uint32_t));
    }
    zb_free(s->rep);
    s->rep = p;
    s->def = p + cap;
    s->cap = cap;
  }
  s->rep[s->n] = r;
  s->def[s->n++] = d;
  return true;
}

/* The pending run of leaf rows, written (their null rows skipped). */
static bool lp_flush(list_page *s) {
  const wcol *w = s->w;
  bool ok = true;
  if (s->run_e > s->run_a && s->codes != NULL) {
    const zb_column *c = w->col;
    const uint8_t *valid = validity_of(c);
    if (s->nidx + (s->run_e - s->run_a) > s->cap_idx) {
      int64_t cap = (s->nidx + (s->run_e - s->run_a)) * 2;
      uint32_t *p = (uint32_t *)zb_malloc((size_t)cap * sizeof(uint32_t));
      if (p == NULL) return false;
      if (s->nidx > 0) memcpy(p, s->idx, (size_t)s->nidx * sizeof(uint32_t));
      zb_free(s->idx);
      s->idx = p;
      s->cap_idx = cap;
    }
    for (int64_t i = s->run_a; i < s->run_e; i++)
      if (valid == NULL || zb_bit_get(valid, c->offset + i))
        s->idx[s->nidx++] = (uint32_t)s->codes[i - s->code0];
    stats_merge(s->ch, w, s->run_a, s->run_e);
  } else if (s->run_e > s->run_a) {
    ok = w->phys == PQ_BOOLEAN     ? bool_run(&s->vals, w->col, s->run_a, s->run_e, &s->bacc,
                                              &s->bk)
         : w->phys == PQ_BYTE_ARRAY ? plain_strings(&s->vals, w, s->run_a, s->run_e)
                                    : plain_fixed(&s->vals, w, s->run_a, s->run_e);
    stats_merge(s->ch, w, s->run_a, s->run_e);
  }
  s->run_a = s->run_e = 0;
  return ok;
}

/* List i of level k (0: the column's own lists), its first slot at
 * repetition level r.  Level k's list is null at definition level 2k,
 * empty at 2k + 1; a value is 2 * depth + 1, a null one 2 * depth. */
static bool lp_walk(list_page *s, int k, int64_t i, uint32_t r) {
  const zb_column *l = s->w->lists[k];
  const int depth = s->w->depth;
  const uint8_t *v = validity_of(l);
  if (v != NULL && !zb_bit_get(v, l->offset + i)) {
    s->nulls++;
    return lp_slot(s, r, (uint32_t)(2 * k));
  }
  const int64_t *off = (const int64_t *)l->data->data + l->offset;
  const int64_t a = off[i], e = off[i + 1];
  if (a == e) {
    s->nulls++;
    return lp_slot(s, r, (uint32_t)(2 * k + 1));
  }
  if (k + 1 < depth) {
    for (int64_t j = a; j < e; j++)
      if (!lp_walk(s, k + 1, j, j == a ? r : (uint32_t)(k + 1))) return false;
    return true;
  }
  const zb_column *c = s->w->col;
  const uint8_t *cv = validity_of(c);
  for (int64_t j = a; j < e; j++) {
    bool ok = cv == NULL || zb_bit_get(cv, c->offset + j);
    s->nulls += !ok;
    if (!lp_slot(s, j == a ? r : (uint32_t)(k + 1), (uint32_t)(2 * depth + (ok ? 1 : 0))))
      return false;
  }
  if (s->run_e != a && !lp_flush(s)) return false;
  if (s->run_e == s->run_a) s->run_a = a;
  s->run_e = e;
  return true;
}

/* Rows [r0, r0 + n) of a list column w (w->depth levels of lists, each a
 * 3-level LIST -- optional group, repeated group "list", then its optional
 * "element", which is the next level's group or the values; max
 * repetition level depth, max definition level 2 * depth + 1) into ch:
 * one slot per value, and one for each null or empty list.  Pages are v1
 * (their header states the level encodings) whatever data_page_version
 * says; strings are RLE_DICTIONARY over a dictionary of the values under
 * the chunk's rows (PLAIN past PQ_DICT_LIMIT), other values PLAIN; the
 * statistics are the values' min / max and the
 * slots without a value (as pyarrow counts them).  ch->rows counts slots
 * (the chunk's values). */
static zb_status encode_list_chunk(const zb_parquet_write_options *o, const wcol *w, int64_t r0,
                                   int64_t n, wchunk *ch, zb_error *err) {
  zb_parquet_write_options o1 = *o;
  o1.data_page_version = 1;
  page_ctx pc;
  memset(&pc, 0, sizeof pc);
  pc.o = &o1;
  list_page s;
  memset(&s, 0, sizeof s);
  s.w = w;
  s.ch = ch;
  pq_buf levels = {0};
  zb_status st = ZB_OK;
  ch->dict_off = -1;
  ch->has_plain = true;
  ch->rows = 0;
  ch->nulls = 0;
  int rep_bits = 0, def_bits = 0;
  while ((1 << rep_bits) <= w->depth) rep_bits++;
  while ((1 << def_bits) <= 2 * w->depth + 1) def_bits++;
  pq_dict d;
  memset(&d, 0, sizeof d);
  int32_t *codes = NULL;
  int width = 0;
  if (w->col->type == ZB_STRING) { /* a dictionary of the values under the chunk's rows */
    int64_t va = r0, ve = r0 + n;
    for (int k = 0; k < w->depth; k++) {
      const int64_t *off = (const int64_t *)w->lists[k]->data->data + w->lists[k]->offset;
      va = off[va];
      ve = off[ve];
    }
    bool dict = false;
    codes = (int32_t *)zb_malloc((size_t)(ve > va ? ve - va : 1) * sizeof(int32_t));
    if (codes == NULL) goto oom;
    zb_status cs_st = string_codes(&d, w->col, va, ve, codes, &dict);
    if (cs_st == ZB_ENOMEM) goto oom;
    if (cs_st == ZB_ECANCEL) {
      st = zb_error_set(err, ZB_ECANCEL, "interrupted");
      goto done;
    }
    if (dict && d.count > 0) {
      width = zb__pq_bit_width((uint32_t)(d.count - 1));
      if ((st = dict_page(ch, &pc, &d, w, err)) != ZB_OK) goto done;
      s.codes = codes;
      s.code0 = va;
      ch->has_dict = true;
      ch->has_plain = false;
    }
  }
  /* rows per page: about PQ_PAGE_BYTES of values, at least one row */
  const int64_t per_elem = w->width > 0 ? w->width : w->phys == PQ_BOOLEAN ? 1 : 8;
  int64_t a = 0;
  ch->data_off = ch->out.n;
  do {
    if (zb_cancel_requested()) {
      st = zb_error_set(err, ZB_ECANCEL, "interrupted");
      goto done;
    }
    s.n = s.nulls = s.run_a = s.run_e = s.bk = s.nidx = 0;
    s.bacc = 0;
    s.vals.n = 0;
    int64_t e = a;
    while (e < n && (e == a || s.n * per_elem + (e - a) < PQ_PAGE_BYTES)) {
      if (!lp_walk(&s, 0, r0 + e, 0)) goto oom;
      e++;
    }
    if (!lp_flush(&s) || ((s.bk & 7) != 0 && !pq_put(&s.vals, &s.bacc, 1))) goto oom;
    if (s.n > INT32_MAX / 2) {
      st = zb_error_set(err, ZB_EOVERFLOW, "to_parquet: column '%s': a page of %lld values",
                        w->name, (long long)s.n);
      goto done;
    }
    pc.body.n = 0;
    for (int lv = 0; lv < 2; lv++) { /* repetition, then definition levels */
      levels.n = 0;
      if (!zb__pq_rle_encode(&levels, lv == 0 ? s.rep : s.def, s.n, lv == 0 ? rep_bits : def_bits))
        goto oom;
      uint32_t len = (uint32_t)levels.n;
      if (!pq_put(&pc.body, &len, 4) || !pq_put(&pc.body, levels.p, levels.n)) goto oom;
    }
    if (s.codes != NULL) {
      uint8_t wb = (uint8_t)width;
      if (!pq_put(&pc.body, &wb, 1) || !zb__pq_rle_encode(&pc.body, s.idx, s.nidx, width))
        goto oom;
    } else if (!pq_put(&pc.body, s.vals.p, s.vals.n)) {
      goto oom;
    }
    st = put_page(ch, &pc, PQ_DATA_PAGE, (int32_t)s.n,
                  s.codes != NULL ? PQ_RLE_DICTIONARY : PQ_PLAIN, s.nulls, err);
    if (st != ZB_OK) goto done;
    ch->rows += s.n;
    ch->nulls += s.nulls;
    a = e;
  } while (a < n);
  goto done;
oom:
  st = zb_error_set(err, ZB_ENOMEM, "out of host memory (to_parquet: column '%s')", w->name);
done:
  zb_free(s.rep);
  zb_free(s.idx);
  zb_free(codes);
  zb__pq_dict_free(&d);
  pq_buf_free(&s.vals);
  pq_buf_free(&levels);
  pq_buf_free(&pc.body);
  pq_buf_free(&pc.comp);
  return st;
}

static void chunk_task(void *ctx, int64_t t, int worker) {
  (void)worker;
  writer *wr = (writer *)ctx;
  int64_t g = wr->batch0 + t / wr->ncols, k = t % wr->ncols;
  wchunk *ch = &wr->chunks[g * wr->ncols + k];
  int64_t r0 = g * wr->rg_rows;
  int64_t n = wr->t->num_rows - r0 < wr->rg_rows ? wr->t->num_rows - r0 : wr->rg_rows;
  zb_error e;
  e.message[0] = '\0';
  zb_status st = wr->cols[k].list != NULL ? encode_list_chunk(wr->o, &wr->cols[k], r0, n, ch, &e)
                                           : encode_chunk(wr->o, &wr->cols[k], r0, n, ch, &e);
  if (st == ZB_OK) return;
  pthread_mutex_lock(&wr->mu);
  int64_t task = g * wr->ncols + k;
  if (wr->err_task < 0 || task < wr->err_task) {
    wr->err_task = task;
    wr->err_st = st;
    wr->err = e;
  }
  pthread_mutex_unlock(&wr->mu);
}

/* ---- the footer ---------------------------------------------------------- */

static void schema_element(tw *w, const wcol *c) {
  const char *name = c->name;
  for (int k = 0; k < c->depth; k++) { /* optional group <name> (LIST) { repeated group
                                        * list { element } }, element the next level's group */
    zb__tw_struct_begin(w, 0);
    zb__tw_i32(w, 3, 1); /* OPTIONAL */
    zb__tw_binary(w, 4, name, (int64_t)strlen(name));
    zb__tw_i32(w, 5, 1);
    zb__tw_i32(w, 6, 3); /* ConvertedType LIST */
    zb__tw_struct_begin(w, 10);
    zb__tw_struct_begin(w, 3); /* LogicalType LIST */
    zb__tw_struct_end(w);
    zb__tw_struct_end(w);
    zb__tw_struct_end(w);
    zb__tw_struct_begin(w, 0);
    zb__tw_i32(w, 3, 2); /* REPEATED */
    zb__tw_binary(w, 4, "list", 4);
    zb__tw_i32(w, 5, 1);
    zb__tw_struct_end(w);
    name = "element";
  }
  zb__tw_struct_begin(w, 0);
  zb__tw_i32(w, 1, c->phys);
  zb__tw_i32(w, 3, 1); /* OPTIONAL */
  zb__tw_binary(w, 4, name, (int64_t)strlen(name));
  if (c->converted >= 0) zb__tw_i32(w, 6, c->converted);
  if (c->logical != PQ_LT_NONE) {
    zb__tw_struct_begin(w, 10); /* LogicalType union */
    switch (c->logical) {
      case PQ_LT_STRING:
        zb__tw_struct_begin(w, 1);
        zb__tw_struct_end(w);
        break;
      case PQ_LT_DATE:
        zb__tw_struct_begin(w, 6);
        zb__tw_struct_end(w);
        break;
      case PQ_LT_TIMESTAMP:
        zb__tw_struct_begin(w, 8);
        zb__tw_bool(w, 1, c->ts_utc);
        zb__tw_struct_begin(w, 2); /* TimeUnit union */
        zb__tw_struct_begin(w, (int16_t)c->ts_unit);
        zb__tw_struct_end(w);
        zb__tw_struct_end(w);
        zb__tw_struct_end(w);
        break;
      case PQ_LT_INT: {
        zb__tw_struct_begin(w, 10);
        /* bitWidth is an i8: a compact BYTE is the raw byte */
        uint8_t hdr = (uint8_t)(1 << 4 | TC_BYTE), bits = (uint8_t)c->int_bits;
        if (w->ok && !(pq_put(w->b, &hdr, 1) && pq_put(w->b, &bits, 1))) w->ok = false;
        w->last[w->depth] = 1;
        zb__tw_bool(w, 2, c->int_signed);
        zb__tw_struct_end(w);
        break;
      }
      default: break;
    }
    zb__tw_struct_end(w);
  }
  zb__tw_struct_end(w);
}

static void column_chunk(tw *w, const wcol *c, const wchunk *ch, int codec) {
  int64_t start = ch->file_pos + (ch->dict_off >= 0 ? ch->dict_off : ch->data_off);
  zb__tw_struct_begin(w, 0);
  zb__tw_i64(w, 2, start);
  zb__tw_struct_begin(w, 3);
  zb__tw_i32(w, 1, c->phys);
  int nenc = ch->has_dict ? 3 : 2;
  zb__tw_list(w, 2, TC_I32, nenc);
  zb__tw_list_i32(w, PQ_PLAIN);
  zb__tw_list_i32(w, PQ_RLE);
  if (ch->has_dict) zb__tw_list_i32(w, PQ_RLE_DICTIONARY);
  zb__tw_list(w, 3, TC_BINARY, 1 + 2 * c->depth);
  zb__tw_list_binary(w, c->name, (int64_t)strlen(c->name));
  for (int k = 0; k < c->depth; k++) {
    zb__tw_list_binary(w, "list", 4);
    zb__tw_list_binary(w, "element", 7);
  }
  zb__tw_i32(w, 4, codec);
  zb__tw_i64(w, 5, ch->rows);
  zb__tw_i64(w, 6, ch->uncompressed);
  zb__tw_i64(w, 7, ch->out.n);
  zb__tw_i64(w, 9, ch->file_pos + ch->data_off);
  if (ch->dict_off >= 0) zb__tw_i64(w, 11, ch->file_pos + ch->dict_off);
  zb__tw_struct_begin(w, 12);
  zb__tw_i64(w, 3, ch->nulls);
  if (ch->has_minmax) {
    bool ba = c->phys == PQ_BYTE_ARRAY;
    zb__tw_binary(w, 5, ba ? ch->maxp : ch->maxb, ch->maxlen);
    zb__tw_binary(w, 6, ba ? ch->minp : ch->minb, ch->minlen);
  }
  zb__tw_struct_end(w);
  zb__tw_struct_end(w);
  zb__tw_struct_end(w);
}

static bool footer(const writer *wr, pq_buf *b) {
  const zb_parquet_write_options *o = wr->o;
  tw w;
  zb__tw_init(&w, b);
  zb__tw_struct_begin(&w, 0);
  zb__tw_i32(&w, 1, 2);
  int64_t nlists = 0;
  for (int64_t k = 0; k < wr->ncols; k++) nlists += wr->cols[k].depth;
  zb__tw_list(&w, 2, TC_STRUCT, wr->ncols + 1 + 2 * nlists);
  zb__tw_struct_begin(&w, 0);
  zb__tw_binary(&w, 4, "schema", 6);
  zb__tw_i32(&w, 5, (int32_t)wr->ncols);
  zb__tw_struct_end(&w);
  for (int64_t k = 0; k < wr->ncols; k++) schema_element(&w, &wr->cols[k]);
  zb__tw_i64(&w, 3, wr->t->num_rows);
  zb__tw_list(&w, 4, TC_STRUCT, wr->nrg);
  for (int64_t g = 0; g < wr->nrg; g++) {
    const wchunk *row = &wr->chunks[g * wr->ncols];
    int64_t bytes = 0, comp = 0;
    for (int64_t k = 0; k < wr->ncols; k++) {
      bytes += row[k].uncompressed;
      comp += row[k].out.n;
    }
    zb__tw_struct_begin(&w, 0);
    zb__tw_list(&w, 1, TC_STRUCT, wr->ncols);
    for (int64_t k = 0; k < wr->ncols; k++) column_chunk(&w, &wr->cols[k], &row[k], o->codec);
    zb__tw_i64(&w, 2, bytes);
    int64_t r0 = g * wr->rg_rows;
    zb__tw_i64(&w, 3, wr->t->num_rows - r0 < wr->rg_rows ? wr->t->num_rows - r0 : wr->rg_rows);
    if (wr->ncols > 0) {
      zb__tw_i64(&w, 5, row[0].file_pos + (row[0].dict_off >= 0 ? row[0].dict_off : row[0].data_off));
      zb__tw_i64(&w, 6, comp);
    }
    zb__tw_struct_end(&w);
  }
  if (o->num_metadata > 0) {
    zb__tw_list(&w, 5, TC_STRUCT, o->num_metadata);
    for (int64_t i = 0; i < o->num_metadata; i++) {
      zb__tw_struct_begin(&w, 0);
      zb__tw_binary(&w, 1, o->metadata_keys[i], (int64_t)strlen(o->metadata_keys[i]));
      zb__tw_binary(&w, 2, o->metadata_values[i], (int64_t)strlen(o->metadata_values[i]));
      zb__tw_struct_end(&w);
    }
  }
  static const char created[] = "zambezi version 0.1.0";
  zb__tw_binary(&w, 6, created, (int64_t)sizeof created - 1);
  zb__tw_list(&w, 7, TC_STRUCT, wr->ncols);
  for (int64_t k = 0; k < wr->ncols; k++) {
    zb__tw_struct_begin(&w, 0);
    zb__tw_struct_begin(&w, 1); /* TYPE_ORDER */
    zb__tw_struct_end(&w);
    zb__tw_struct_end(&w);
  }
  zb__tw_struct_end(&w);
  return w.ok;
}

/* ---- entry points ------------------------------------------------------------ */

void zb_parquet_write_options_init(zb_parquet_write_options *o) {
  memset(o, 0, sizeof *o);
  o->codec = ZB_PARQUET_SNAPPY;
}

static zb_status write_table(const zb_table *t, const zb_parquet_write_options *opts,
                              zb_parquet_write_fn write, void *ctx, zb_error *err) {
  ZB_NAME_OP("to_parquet");
  zb_parquet_write_options defaults;
  if (opts == NULL) {
    zb_parquet_write_options_init(&defaults);
    opts = &defaults;
  }
  if (t == NULL || write == NULL)
    return zb_error_set(err, ZB_EINVAL, "to_parquet: table or write function is NULL");
  if (opts->codec != ZB_PARQUET_UNCOMPRESSED && opts->codec != ZB_PARQUET_SNAPPY &&
      opts->codec != ZB_PARQUET_ZSTD && opts->codec != ZB_PARQUET_GZIP)
    return zb_error_set(err, ZB_EINVAL, "to_parquet: unknown codec %d", opts->codec);
  if (opts->data_page_version != 0 && opts->data_page_version != 1 &&
      opts->data_page_version != 2)
    return zb_error_set(err, ZB_EINVAL, "to_parquet: data_page_version must be 1 or 2, not %d",
                        opts->data_page_version);
  if (opts->row_group_size < 0)
    return zb_error_set(err, ZB_EINVAL, "to_parquet: row_group_size must be positive, not %lld",
                        (long long)opts->row_group_size);
  if (opts->num_metadata < 0 ||
      (opts->num_metadata > 0 && (opts->metadata_keys == NULL || opts->metadata_values == NULL)))
    return zb_error_set(err, ZB_EINVAL, "to_parquet: bad key-value metadata");
  if (t->num_columns > 0 && zb_table_device(t).kind != ZB_DEVICE_CPU)
    return zb_error_set(err, ZB_EDEVICE, "to_parquet: the table is not on the CPU");
  /* a codec library that is missing fails before anything is written */
  if (opts->codec == ZB_PARQUET_SNAPPY && !zb_snappy_available()) {
    int64_t len;
    return zb__snappy_compress("", 0, NULL, 0, &len, err);
  }
  if (opts->codec == ZB_PARQUET_ZSTD && !zb_zstd_available()) {
    int64_t len;
    return zb__zstd_compress("", 0, 0, NULL, 0, &len, err);
  }
  if (opts->codec == ZB_PARQUET_GZIP && !zb_zlib_available()) {
    int64_t len;
    return zb__gzip_compress("", 0, 6, NULL, 0, &len, err);
  }
  writer wr;
  memset(&wr, 0, sizeof wr);
  pthread_mutex_init(&wr.mu, NULL);
  wr.t = t;
  wr.o = opts;
  wr.ncols = t->num_columns;
  wr.err_task = -1;
  wr.rg_rows = opts->row_group_size > 0 ? opts->row_group_size : PQ_DEFAULT_ROW_GROUP;
  wr.nrg = (t->num_rows + wr.rg_rows - 1) / wr.rg_rows;
  if (wr.nrg == 0) wr.nrg = 1; /* an empty table: one empty row group, as pyarrow */
  zb_status st = ZB_OK;
  pq_buf foot = {0};
  wr.cols = (wcol *)zb_calloc((size_t)(wr.ncols > 0 ? wr.ncols : 1), sizeof(wcol));
  wr.chunks = (wchunk *)zb_calloc((size_t)(wr.nrg * wr.ncols > 0 ? wr.nrg * wr.ncols : 1),
                                  sizeof(wchunk));
  if (wr.cols == NULL || wr.chunks == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (to_parquet)");
    goto done;
  }
  for (int64_t k = 0; k < wr.ncols; k++) {
    wr.cols[k].col = t->columns[k];
    wr.cols[k].name = t->names[k];
    if ((st = map_column(&wr.cols[k], err)) != ZB_OK) goto done;
  }
  if ((st = write(ctx, "PAR1", 4, err)) != ZB_OK) goto done;
  int64_t pos = 4;
  int64_t per_batch = wr.ncols > 0 ? (2 * (int64_t)zb_get_num_threads() + wr.ncols - 1) / wr.ncols : wr.nrg;
  if (per_batch < 1) per_batch = 1;
  for (int64_t g0 = 0; g0 < wr.nrg && wr.ncols > 0; g0 += per_batch) {
    int64_t g1 = g0 + per_batch < wr.nrg ? g0 + per_batch : wr.nrg;
    wr.batch0 = g0;
    if ((st = zb_parallel_for((g1 - g0) * wr.ncols, chunk_task, &wr, err)) != ZB_OK) goto done;
    if (wr.err_task >= 0) {
      st = wr.err_st;
      if (err != NULL) *err = wr.err;
      goto done;
    }
    for (int64_t j = g0 * wr.ncols; j < g1 * wr.ncols; j++) {
      wchunk *ch = &wr.chunks[j];
      ch->file_pos = pos;
      if ((st = write(ctx, (const char *)ch->out.p, ch->out.n, err)) != ZB_OK) goto done;
      pos += ch->out.n;
      /* keep the size for the footer, free the bytes */
      int64_t size = ch->out.n;
      pq_buf_free(&ch->out);
      ch->out.n = size;
    }
  }
  if (!footer(&wr, &foot)) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (the Parquet footer)");
    goto done;
  }
  uint8_t tail[8];
  uint32_t flen = (uint32_t)foot.n;
  memcpy(tail, &flen, 4);
  memcpy(tail + 4, "PAR1", 4);
  if ((st = write(ctx, (const char *)foot.p, foot.n, err)) != ZB_OK) goto done;
  st = write(ctx, (const char *)tail, 8, err);
done:
  pq_buf_free(&foot);
  if (wr.chunks != NULL)
    for (int64_t j = 0; j < wr.nrg * wr.ncols; j++) zb_free(wr.chunks[j].out.p);
  zb_free(wr.chunks);
  zb_free(wr.cols);
  pthread_mutex_destroy(&wr.mu);
  return st;
}

/* Categoricals whose categories are not strings are written as their
 * values (the writer reads a categorical's categories as text). */
zb_status zb_parquet_write(const zb_table *t, const zb_parquet_write_options *opts, zb_parquet_write_fn write,
                       void *ctx, zb_error *err) {
  zb_table *d = NULL;
  ZB_RETURN_NOT_OK(zb__table_decode_valued(t, &d, err));
  zb_status st = write_table(d, opts, write, ctx, err);
  zb_table_release(d);
  return st;
}

zb_status zb_parquet_write_file(const zb_table *t, const char *path,
                                const zb_parquet_write_options *opts, zb_error *err) {
  ZB_NAME_OP("to_parquet");
  if (path == NULL) return zb_error_set(err, ZB_EINVAL, "to_parquet: path is NULL");
  zb__file_sink s;
  zb_status st = zb__file_sink_open(&s, path, err);
  if (st != ZB_OK) return st;
  st = zb_parquet_write(t, opts, zb__file_sink_write, &s, err);
  return zb__file_sink_close(&s, st, true, err);
}
