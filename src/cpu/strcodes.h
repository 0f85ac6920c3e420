/*
 * strcodes.h -- dense int32 codes for a plain string column, computed in
 * parallel (src/cpu/strcodes.c), so that string keys can take the paths
 * categorical codes take: direct-indexed group-by, unique, nunique,
 * value_counts, and the string -> categorical cast; and isin, through the
 * same packed keys.
 */
#ifndef ZAMBEZI_CPU_STRCODES_H
#define ZAMBEZI_CPU_STRCODES_H

#include "cpu/kernels.h"

/* ---- packed string keys ------------------------------------------------------
 * A string's key: its first 16 bytes as two words w0, w1 and a 64-bit hash.
 * Up to 15 bytes, w1's top byte holds the length, so (w0, w1) alone decide
 * equality and the hash's bit 0 is clear; longer strings hash all their
 * bytes, set bit 0, and are equal when the hash, (w0, w1), the length and
 * bytes [16, len) are (zb__skey_tail_equal).  Shared by the string codes,
 * the partitioned string grouping, isin and the hash join. */

static inline uint64_t zb__skey_mix(uint64_t w0, uint64_t w1) {
  uint64_t h = (w0 * UINT64_C(0x9e3779b97f4a7c15)) ^
               ((w1 + UINT64_C(0x632be59bd9b4e019)) * UINT64_C(0xc2b2ae3d27d4eb4f));
  h ^= h >> 32;
  h *= UINT64_C(0xff51afd7ed558ccd);
  h ^= h >> 29;
  return h;
}

static inline uint64_t zb__skey_rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

/* Hash of a string of 16 bytes or more whose first 16 are w0, w1: 8-byte
 * words, the last one overlapping the previous (no byte loop, no call). */
static inline uint64_t zb__skey_long_hash(const char *p, int64_t len, uint64_t w0, uint64_t w1) {
  uint64_t h = zb__skey_mix(w0, w1 ^ ((uint64_t)len * UINT64_C(0x9e3779b97f4a7c15)));
  int64_t i = 16;
  uint64_t w;
  for (; i + 8 <= len; i += 8) {
    memcpy(&w, p + i, 8);
    h = zb__skey_rotl(h ^ (w * UINT64_C(0x87c37b91114253d5)), 31) * UINT64_C(0x4cf5ad432745937f);
  }
  if (i < len) {
    memcpy(&w, p + len - 8, 8);
    h = zb__skey_rotl(h ^ (w * UINT64_C(0x87c37b91114253d5)), 31) * UINT64_C(0x4cf5ad432745937f);
  }
  h ^= h >> 33;
  h *= UINT64_C(0xc4ceb9fe1a85ec53);
  h ^= h >> 29;
  return h;
}

/* n >= 8 bytes at a and b are equal (8-byte words, the last overlapping). */
static inline bool zb__skey_bytes_equal(const char *a, const char *b, int64_t n) {
  int64_t i = 0;
  uint64_t x, y;
  for (; i + 8 <= n; i += 8) {
    memcpy(&x, a + i, 8);
    memcpy(&y, b + i, 8);
    if (x != y) return false;
  }
  if (i < n) {
    memcpy(&x, a + n - 8, 8);
    memcpy(&y, b + n - 8, 8);
    if (x != y) return false;
  }
  return true;
}

/* Bytes [16, len) of two strings of len >= 16 bytes are equal. */
static inline bool zb__skey_tail_equal(const char *a, const char *b, int64_t len) {
  if (len >= 24) return zb__skey_bytes_equal(a + 16, b + 16, len - 16);
  return len == 16 || zb__skey_bytes_equal(a + len - 8, b + len - 8, 8);
}

/* The packed words of string p[0, len) of a chars buffer ending at end. */
static inline void zb__skey_words(const char *p, int64_t len, const char *end, uint64_t *w0,
                                  uint64_t *w1) {
  uint64_t a = 0, b = 0;
  if (len <= 15) {
    if (end - p >= 16) { /* load 16 bytes and mask (no branch on the length) */
      memcpy(&a, p, 8);
      memcpy(&b, p + 8, 8);
      unsigned bits = (unsigned)len * 8;
      uint64_t m0 = bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
      uint64_t m1 = bits <= 64 ? 0 : (UINT64_C(1) << (bits - 64)) - 1;
      a &= m0;
      b &= m1;
    } else {
      char buf[16] = {0};
      memcpy(buf, p, (size_t)len);
      memcpy(&a, buf, 8);
      memcpy(&b, buf + 8, 8);
    }
    b |= (uint64_t)len << 56;
  } else {
    memcpy(&a, p, 8);
    memcpy(&b, p + 8, 8);
  }
  *w0 = a;
  *w1 = b;
}

/* The packed words and the hash of string p[0, len) (see above). */
static inline void zb__skey(const char *p, int64_t len, const char *end, uint64_t *w0,
                            uint64_t *w1, uint64_t *h) {
  zb__skey_words(p, len, end, w0, w1);
  *h = zb__test_narrow_hash(len <= 15 ? zb__skey_mix(*w0, *w1) & ~UINT64_C(1)
                                      : zb__skey_long_hash(p, len, *w0, *w1) | 1);
}

/* Distinct strings a caller should let zb__string_codes find before it
 * falls back to hashing rows (each worker keeps a private table of them). */
#define ZB_STRING_CODES_MAX_GROUPS ((int64_t)1 << 18)

/* Codes of the rows of host string column c: code[r] (caller's buffer of
 * c->length) gets the code of row r's string in [0, *n_groups), -1 for a
 * null row.  Codes follow the first appearance of each string, or the
 * strings' byte order when sorted.  *first (owned by the caller on
 * success, *n_groups entries) gets each code's first row.  When some
 * worker met more than max_groups distinct strings the work stops: *fits
 * is false, ZB_OK, and nothing is allocated (code's contents undefined). */
zb_status zb__string_codes(const zb_column *c, bool sorted, int64_t max_groups, int32_t *code,
                           int64_t **first, int64_t *n_groups, bool *fits, zb_error *err);

/* The same as a new ZB_INT32 column with c's nulls (*out NULL when the
 * strings do not fit in max_groups); first may be NULL. */
zb_status zb__string_codes_column(const zb_column *c, bool sorted, int64_t max_groups,
                                  zb_column **out, int64_t **first, int64_t *n_groups,
                                  zb_error *err);

/* Group the rows of host string column c for any number of distinct
 * strings (radix-partitioned tables): gid[r] (caller's buffer of
 * c->length) gets row r's group, groups numbered by first appearance, the
 * null rows one group (or -1 with dropna); *first (owned by the caller on
 * success, *n_groups entries) gets each group's first row. */
zb_status zb__string_group_rows(const zb_column *c, bool dropna, int64_t *gid, int64_t **first,
                                int64_t *n_groups, zb_error *err);

/* *distinct: every string of host string column c (no nulls) differs from
 * the others.  Computed once and kept in c->distinct (defined in hash.c,
 * where the categorical group-by asks it of its dictionary). */
zb_status zb__strings_distinct(zb_column *c, bool *distinct, zb_error *err);

/* isin of host string column c in the strings of v: bit r of bits (c's
 * length, zeroed or not) set when row r's string is one of v's; null rows
 * and v's nulls match nothing. */
zb_status zb__string_isin(const zb_column *c, const zb_column *v, uint8_t *bits, zb_error *err);

#endif /* ZAMBEZI_CPU_STRCODES_H */
