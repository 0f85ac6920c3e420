/*
 * encode.c -- value encoders of the Parquet writer: the RLE/bit-packed
 * hybrid (definition levels, dictionary indices) and the chunk dictionary
 * of string values.
 *
 * The hybrid encoder emits a repeated run for every stretch of at least 8
 * equal values that starts where a group of 8 would, and bit-packs the
 * rest in groups of 8 (the last group padded with zeros: readers stop at
 * the page's value count).  Bit-packing is LSB first, as the format has it.
 */
#include <string.h>

#include "io/parquet/pq_write.h"

int zb__pq_bit_width(uint32_t max) {
  int w = 0;
  while (max != 0) {
    w++;
    max >>= 1;
  }
  return w;
}

static int put_uvarint(uint8_t *out, uint64_t v) {
  int k = 0;
  while (v >= 0x80) {
    out[k++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  out[k++] = (uint8_t)v;
  return k;
}

/* A run of 8 equal values starts at v[i] (i + 8 <= n). */
static inline bool run8(const uint32_t *v, int64_t i) {
  uint32_t x = v[i];
  return v[i + 1] == x && v[i + 2] == x && v[i + 3] == x && v[i + 4] == x && v[i + 5] == x &&
         v[i + 6] == x && v[i + 7] == x;
}

bool zb__pq_rle_encode(pq_buf *b, const uint32_t *v, int64_t n, int width) {
  int vbytes = (width + 7) / 8;
  int64_t i = 0;
  uint8_t hdr[10];
  while (i < n) {
    if (i + 8 <= n && run8(v, i)) {
      int64_t j = i + 8;
      while (j < n && v[j] == v[i]) j++;
      /* a run header holds at most 2^31 - 1 values */
      int64_t len = j - i < ((int64_t)1 << 30) ? j - i : ((int64_t)1 << 30);
      int k = put_uvarint(hdr, (uint64_t)len << 1);
      uint32_t x = v[i];
      uint8_t val[4] = {(uint8_t)x, (uint8_t)(x >> 8), (uint8_t)(x >> 16), (uint8_t)(x >> 24)};
      if (!pq_put(b, hdr, k) || !pq_put(b, val, vbytes)) return false;
      i += len;
      continue;
    }
    /* bit-pack groups of 8 until a run of 8 starts (at most 2^24 groups) */
    int64_t groups = 0, j = i;
    while (j < n && groups < ((int64_t)1 << 24)) {
      if (groups > 0 && j + 8 <= n && run8(v, j)) break;
      j += 8;
      groups++;
    }
    int k = put_uvarint(hdr, (uint64_t)groups << 1 | 1);
    if (!pq_put(b, hdr, k) || !zb__pq_buf_reserve(b, groups * width)) return false;
    uint8_t *out = b->p + b->n;
    uint64_t acc = 0;
    int bits = 0;
    int64_t end = i + groups * 8;
    for (int64_t r = i; r < end; r++) {
      uint64_t x = r < n ? v[r] : 0;
      acc |= x << bits;
      bits += width;
      while (bits >= 8) {
        *out++ = (uint8_t)acc;
        acc >>= 8;
        bits -= 8;
      }
    }
    b->n += groups * width;
    i = end < n ? end : n;
  }
  return true;
}

bool zb__pq_def_levels(pq_buf *b, const uint8_t *validity, int64_t start, int64_t n) {
  int64_t at = b->n;
  uint8_t len4[4] = {0, 0, 0, 0};
  if (!pq_put(b, len4, 4)) return false;
  uint8_t hdr[10];
  if (validity == NULL || zb_bitmap_count(validity, start, n) == n) {
    if (n > 0) {
      int k = put_uvarint(hdr, (uint64_t)n << 1);
      uint8_t one = 1;
      if (!pq_put(b, hdr, k) || !pq_put(b, &one, 1)) return false;
    }
  } else {
    /* one bit-packed run: the validity bits themselves (LSB first) */
    int64_t groups = (n + 7) / 8;
    int k = put_uvarint(hdr, (uint64_t)groups << 1 | 1);
    if (!pq_put(b, hdr, k) || !zb__pq_buf_reserve(b, groups)) return false;
    uint8_t *out = b->p + b->n;
    if (start % 8 == 0) {
      memcpy(out, validity + start / 8, (size_t)groups);
    } else {
      int s = (int)(start % 8);
      const uint8_t *src = validity + start / 8;
      int64_t src_bytes = (start + n + 7) / 8 - start / 8;
      for (int64_t g = 0; g < groups; g++) {
        uint8_t lo = src[g] >> s;
        uint8_t hi = g + 1 < src_bytes ? (uint8_t)(src[g + 1] << (8 - s)) : 0;
        out[g] = lo | hi;
      }
    }
    if (n % 8) out[groups - 1] &= (uint8_t)((1u << (n % 8)) - 1);
    b->n += groups;
  }
  uint32_t len = (uint32_t)(b->n - at - 4);
  b->p[at] = (uint8_t)len;
  b->p[at + 1] = (uint8_t)(len >> 8);
  b->p[at + 2] = (uint8_t)(len >> 16);
  b->p[at + 3] = (uint8_t)(len >> 24);
  return true;
}

/* ---- dictionary -------------------------------------------------------- */

void zb__pq_dict_free(pq_dict *d) {
  zb_free(d->slots);
  zb_free(d->ent_off);
  zb_free(d->ent_len);
  memset(d, 0, sizeof *d);
}

/* A fast hash of a short byte string (dictionary values are mostly
 * short): 8-byte words mixed by multiplication. */
static inline uint64_t str_hash(const uint8_t *p, int32_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)(uint32_t)n;
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    uint64_t w = 0;
    for (int32_t i = 0; i < n; i++) w |= (uint64_t)p[i] << (8 * i);
    h = (h ^ w) * 0x94d049bb133111ebull;
  }
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 32);
}

/* A slot: the hash's high 32 bits, then entry + 1 (0: empty). */
#define SLOT_ENTRY(s) ((int64_t)((s) & 0xFFFFFFFFu) - 1)
#define SLOT_TAG(h) ((h) >> 32 << 32)

static bool dict_grow(pq_dict *d, const uint8_t *chars) {
  uint64_t cap = d->mask ? (d->mask + 1) * 2 : 1024;
  uint64_t *slots = (uint64_t *)zb_calloc((size_t)cap, sizeof(uint64_t));
  if (slots == NULL) return false;
  for (int64_t e = 0; e < d->count; e++) {
    uint64_t h = str_hash(chars + d->ent_off[e], d->ent_len[e]);
    uint64_t s = h & (cap - 1);
    while (slots[s] != 0) s = (s + 1) & (cap - 1);
    slots[s] = SLOT_TAG(h) | (uint64_t)(e + 1);
  }
  zb_free(d->slots);
  d->slots = slots;
  d->mask = cap - 1;
  return true;
}

int64_t zb__pq_dict_code(pq_dict *d, const uint8_t *chars, int64_t off, int32_t n) {
  if ((uint64_t)(d->count + 1) * 2 > d->mask + 1 && !dict_grow(d, chars)) return -1;
  const uint8_t *p = chars + off;
  uint64_t h = str_hash(p, n), tag = SLOT_TAG(h);
  uint64_t s = h & d->mask;
  for (;;) {
    uint64_t v = d->slots[s];
    if (v == 0) break;
    if ((v & ~(uint64_t)0xFFFFFFFFu) == tag) {
      int64_t e = SLOT_ENTRY(v);
      if (d->ent_len[e] == n && memcmp(chars + d->ent_off[e], p, (size_t)n) == 0) return e;
    }
    s = (s + 1) & d->mask;
  }
  if (d->count == d->ent_cap) {
    int64_t cap = d->ent_cap ? d->ent_cap * 2 : 256;
    int64_t *o = (int64_t *)zb_malloc((size_t)cap * sizeof(int64_t));
    int32_t *l = (int32_t *)zb_malloc((size_t)cap * sizeof(int32_t));
    if (o == NULL || l == NULL) {
      zb_free(o);
      zb_free(l);
      return -1;
    }
    if (d->count > 0) {
      memcpy(o, d->ent_off, (size_t)d->count * sizeof(int64_t));
      memcpy(l, d->ent_len, (size_t)d->count * sizeof(int32_t));
    }
    zb_free(d->ent_off);
    zb_free(d->ent_len);
    d->ent_off = o;
    d->ent_len = l;
    d->ent_cap = cap;
  }
  int64_t e = d->count++;
  d->ent_off[e] = off;
  d->ent_len[e] = n;
  d->bytes += 4 + (int64_t)n;
  d->slots[s] = tag | (uint64_t)(e + 1);
  return e;
}
