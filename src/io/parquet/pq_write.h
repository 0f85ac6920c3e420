/*
 * pq_write.h -- what the Parquet writer's files share (internal): a
 * growable byte buffer, the Thrift compact-protocol encoder that writes
 * page headers and the footer (thrift_out.c), and the value encoders
 * (encode.c): the RLE/bit-packed hybrid for levels and dictionary
 * indices, PLAIN values, dictionaries and column statistics.
 *
 * Every function that grows a buffer returns false when memory ran out;
 * the buffer then still holds what it held and must still be freed.
 */
#ifndef ZAMBEZI_IO_PARQUET_PQ_WRITE_H
#define ZAMBEZI_IO_PARQUET_PQ_WRITE_H

#include "io/parquet/parquet.h"

typedef struct pq_buf {
  uint8_t *p;
  int64_t n, cap;
} pq_buf;

bool zb__pq_buf_reserve(pq_buf *b, int64_t extra);
static inline bool pq_put(pq_buf *b, const void *s, int64_t n) {
  if (b->n + n > b->cap && !zb__pq_buf_reserve(b, n)) return false;
  if (n > 0) memcpy(b->p + b->n, s, (size_t)n);
  b->n += n;
  return true;
}
static inline void pq_buf_free(pq_buf *b) {
  zb_free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
}

/* ---- Thrift compact protocol (thrift_out.c) ------------------------------ */

/* Compact-protocol types. */
enum { TC_TRUE = 1, TC_FALSE = 2, TC_BYTE = 3, TC_I16 = 4, TC_I32 = 5, TC_I64 = 6,
       TC_DOUBLE = 7, TC_BINARY = 8, TC_LIST = 9, TC_STRUCT = 12 };

#define TW_DEPTH 16
/* A writer: fields are written in increasing id order within a struct;
 * struct_begin / struct_end nest (at most TW_DEPTH deep).  ok turns false
 * on the first allocation failure and every later call does nothing. */
typedef struct tw {
  pq_buf *b;
  int16_t last[TW_DEPTH];
  int depth;
  bool ok;
} tw;

void zb__tw_init(tw *w, pq_buf *b);
void zb__tw_i32(tw *w, int16_t id, int32_t v);
void zb__tw_i64(tw *w, int16_t id, int64_t v);
void zb__tw_bool(tw *w, int16_t id, bool v);
void zb__tw_binary(tw *w, int16_t id, const void *p, int64_t n);
/* A struct field (id > 0) or a list element / the outermost struct (id 0). */
void zb__tw_struct_begin(tw *w, int16_t id);
void zb__tw_struct_end(tw *w);
/* A list field header of n elements of compact type elem; the elements
 * follow (structs: struct_begin(w, 0) ... struct_end; i32: tw_list_i32). */
void zb__tw_list(tw *w, int16_t id, int elem, int64_t n);
void zb__tw_list_i32(tw *w, int32_t v);
void zb__tw_list_binary(tw *w, const void *p, int64_t n);

/* ---- encoders (encode.c) -------------------------------------------------- */

/* Append the RLE/bit-packed hybrid encoding of v[0, n) (each < 2^width,
 * width 0..32) to b, with no length prefix. */
bool zb__pq_rle_encode(pq_buf *b, const uint32_t *v, int64_t n, int width);
/* Definition levels of rows [start, start + n) of a validity bitmap (NULL:
 * all valid) as a v1 page's levels: a 4-byte length then the hybrid
 * encoding of width 1. */
bool zb__pq_def_levels(pq_buf *b, const uint8_t *validity, int64_t start, int64_t n);
/* Bits needed for values up to max (0 for max 0). */
int zb__pq_bit_width(uint32_t max);

/* Open-addressing dictionary of byte strings (a chunk's string values). */
typedef struct pq_dict {
  uint64_t *slots;  /* hash tag | entry + 1, 0 = empty (encode.c) */
  uint64_t mask;
  int64_t count;
  int64_t bytes;    /* PLAIN size of the entries: 4 + length each */
  int64_t *ent_off; /* entry i: chars at off[i], length len[i] */
  int32_t *ent_len;
  int64_t ent_cap;
} pq_dict;
void zb__pq_dict_free(pq_dict *d);
/* Code of chars[off, off + n) in d, added when new; -1 when memory ran
 * out.  Every entry lives in the one chars buffer.  At most 2^32 - 2
 * entries (a chunk falls back to PLAIN long before). */
int64_t zb__pq_dict_code(pq_dict *d, const uint8_t *chars, int64_t off, int32_t n);

#endif /* ZAMBEZI_IO_PARQUET_PQ_WRITE_H */
