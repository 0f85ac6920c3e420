/*
 * thrift_out.c -- the Thrift compact-protocol encoder of the Parquet
 * writer (page headers, the footer's FileMetaData), and the growable byte
 * buffer the writer's files share.
 *
 * Compact protocol: a field header is one byte (id delta << 4 | type) when
 * the id grows by 1..15 from the previous field of its struct, else the
 * type byte and the id as a zigzag varint; integers are zigzag varints;
 * binary is a varint length and the bytes; a list header is one byte
 * (size << 4 | element type) for fewer than 15 elements, else 0xF0 | type
 * and a varint size; booleans as fields live in the header's type.
 */
#include <string.h>

#include "io/parquet/pq_write.h"

bool zb__pq_buf_reserve(pq_buf *b, int64_t extra) {
  int64_t need = b->n + extra;
  if (need <= b->cap) return true;
  int64_t cap = b->cap > 0 ? b->cap : 256;
  while (cap < need) cap *= 2;
  uint8_t *p = (uint8_t *)zb_malloc((size_t)cap);
  if (p == NULL) return false;
  if (b->n > 0) memcpy(p, b->p, (size_t)b->n);
  zb_free(b->p);
  b->p = p;
  b->cap = cap;
  return true;
}

static void put_varint(tw *w, uint64_t v) {
  uint8_t tmp[10];
  int k = 0;
  while (v >= 0x80) {
    tmp[k++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  tmp[k++] = (uint8_t)v;
  if (w->ok && !pq_put(w->b, tmp, k)) w->ok = false;
}

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

static void put_byte(tw *w, uint8_t c) {
  if (w->ok && !pq_put(w->b, &c, 1)) w->ok = false;
}

static void field(tw *w, int16_t id, int type) {
  int16_t delta = (int16_t)(id - w->last[w->depth]);
  if (delta > 0 && delta <= 15) {
    put_byte(w, (uint8_t)(delta << 4 | type));
  } else {
    put_byte(w, (uint8_t)type);
    put_varint(w, zigzag(id));
  }
  w->last[w->depth] = id;
}

void zb__tw_init(tw *w, pq_buf *b) {
  memset(w, 0, sizeof *w);
  w->b = b;
  w->ok = true;
}

void zb__tw_i32(tw *w, int16_t id, int32_t v) {
  field(w, id, TC_I32);
  put_varint(w, zigzag(v));
}

void zb__tw_i64(tw *w, int16_t id, int64_t v) {
  field(w, id, TC_I64);
  put_varint(w, zigzag(v));
}

void zb__tw_bool(tw *w, int16_t id, bool v) { field(w, id, v ? TC_TRUE : TC_FALSE); }

void zb__tw_binary(tw *w, int16_t id, const void *p, int64_t n) {
  field(w, id, TC_BINARY);
  zb__tw_list_binary(w, p, n);
}

void zb__tw_struct_begin(tw *w, int16_t id) {
  if (id > 0) field(w, id, TC_STRUCT);
  if (w->depth + 1 >= TW_DEPTH) {
    w->ok = false;
    return;
  }
  w->last[++w->depth] = 0;
}

void zb__tw_struct_end(tw *w) {
  put_byte(w, 0);
  if (w->depth > 0) w->depth--;
}

void zb__tw_list(tw *w, int16_t id, int elem, int64_t n) {
  field(w, id, TC_LIST);
  if (n < 15) {
    put_byte(w, (uint8_t)(n << 4 | elem));
  } else {
    put_byte(w, (uint8_t)(0xF0 | elem));
    put_varint(w, (uint64_t)n);
  }
}

void zb__tw_list_i32(tw *w, int32_t v) { put_varint(w, zigzag(v)); }

void zb__tw_list_binary(tw *w, const void *p, int64_t n) {
  put_varint(w, (uint64_t)n);
  if (w->ok && !pq_put(w->b, p, n)) w->ok = false;
}
