/*
 * strcodes.c -- dense codes for a plain string column: the path that lets
 * string keys take the categorical (direct-indexed) path of group-by,
 * unique, nunique, value_counts, and the string -> categorical cast.
 *
 * One parallel pass over morsels: each worker slot owns a private
 * open-addressing table of the distinct strings it has met (so nothing is
 * shared and nothing locked), and writes each row's local id; the morsel
 * remembers which worker ran it.  Strings of up to 15 bytes are packed
 * into two 64-bit words (the length in the top byte of the second) and
 * hashed and compared as integers, without reading the column again;
 * longer ones hash all their bytes and compare the 16-byte prefix, then
 * the bytes of the group's first row.  The tables then merge serially
 * (one insert per distinct string per worker, no per-row work) into a
 * global table, the groups are numbered by first row (first appearance:
 * the order the hash table and pandas give) or by their strings (sorted),
 * and a second parallel pass maps local ids to those codes (skipped when
 * every worker's local ids already are the codes: one worker, or workers
 * that met the strings in the same order).  A worker's table stays sparse
 * (load 1/16) while small, so few distinct strings cost one probe a row,
 * and holds keys of up to 40 bytes whole (sw_key below), so a row's
 * string is loaded, hashed and compared without a branch on its length.
 *
 * Many distinct strings make private tables a poor fit (every worker would
 * hold most keys and the merge would redo the work), so a worker whose
 * table passes max_groups stops the pass and the caller falls back to
 * partitioned hashing (src/cpu/groupby.c).  Results do not depend on the
 * thread count: ids follow first rows or strings only.
 */
#include "cpu/strcodes.h"


/* A row's key in partition order (the partitioned grouping's records):
 * its packed words, hash and row. */
typedef struct sc_rec {
  uint64_t w0, w1, h;
  int64_t row;
} sc_rec;

/* A distinct string in a table: its packed words and hash (see
 * strcodes.h); for a long string (hash bit 0) `tail` is the offset in the
 * table's arena of its length and its bytes past the prefix, so a probe
 * compares against the table's own memory, never the column's. */
typedef struct sc_entry {
  uint64_t w0, w1, h;
  int64_t tail;
} sc_entry;

/* Arena record of a long string of len bytes: int64 len, then its last
 * max(len - 16, 8) bytes (the bytes past the 16-byte prefix, or the last 8
 * when fewer: with equal prefixes and lengths, the same test), padded to
 * 8 bytes. */
static inline int64_t sc_tail_bytes(int64_t len) { return ZB_MAX(len - 16, (int64_t)8); }

/* Slots of a table: an int32 entry index each (-1: empty), a power of two.
 * Few distinct strings (the usual group-by key) keep the table sparse,
 * load at most 1/8 up to SC_SPARSE_SLOTS slots (64 KiB: it stays in the
 * core's cache), so a probe nearly always ends at its first slot; past
 * that the load goes up to 1/2, as the memory of many keys asks. */
#define SC_SPARSE_SLOTS ((int64_t)1 << 14)

static inline int64_t sc_limit(int64_t cap) {
  return cap < SC_SPARSE_SLOTS ? cap / 8 : cap / 2;
}

typedef struct sc_table {
  int32_t *slots; /* cap entries, -1: empty */
  int64_t cap;
  sc_entry *ent;
  int64_t *rows;  /* per entry: its first row */
  int64_t n, ent_cap;
  char *arena;    /* long strings' tails (8-byte aligned records) */
  int64_t arena_len, arena_cap;
  bool failed; /* out of memory */
} sc_table;

static void sc_reset(sc_table *t) {
  zb_free(t->slots);
  zb_free(t->ent);
  zb_free(t->rows);
  zb_free(t->arena);
  memset(t, 0, sizeof *t);
}

/* An empty table with room for `expected` strings before it grows. */
static bool sc_init(sc_table *t, int64_t expected) {
  memset(t, 0, sizeof *t);
  int64_t cap = 64;
  while (sc_limit(cap) < expected) cap *= 2;
  t->cap = cap;
  t->ent_cap = ZB_MAX(expected, (int64_t)16);
  t->slots = (int32_t *)zb_malloc((size_t)cap * sizeof(int32_t));
  t->ent = (sc_entry *)zb_malloc((size_t)t->ent_cap * sizeof(sc_entry));
  t->rows = (int64_t *)zb_malloc((size_t)t->ent_cap * sizeof(int64_t));
  if (t->slots == NULL || t->ent == NULL || t->rows == NULL) {
    sc_reset(t);
    return false;
  }
  memset(t->slots, 0xff, (size_t)cap * sizeof(int32_t));
  return true;
}

/* Double the entries' room. */
static bool sc_grow_entries(sc_table *t) {
  int64_t ec = t->ent_cap * 2;
  sc_entry *ent = (sc_entry *)zb_malloc((size_t)ec * sizeof(sc_entry));
  int64_t *rows = (int64_t *)zb_malloc((size_t)ec * sizeof(int64_t));
  if (ent == NULL || rows == NULL) {
    zb_free(ent);
    zb_free(rows);
    return false;
  }
  memcpy(ent, t->ent, (size_t)t->n * sizeof(sc_entry));
  memcpy(rows, t->rows, (size_t)t->n * sizeof(int64_t));
  zb_free(t->ent);
  zb_free(t->rows);
  t->ent = ent;
  t->rows = rows;
  t->ent_cap = ec;
  return true;
}

/* Double the slots (rehashing the entries). */
static bool sc_grow(sc_table *t) {
  int64_t cap = t->cap * 2;
  int32_t *slots = (int32_t *)zb_malloc((size_t)cap * sizeof(int32_t));
  if (slots == NULL) return false;
  memset(slots, 0xff, (size_t)cap * sizeof(int32_t));
  uint64_t mask = (uint64_t)cap - 1;
  for (int64_t i = 0; i < t->n; i++) {
    uint64_t at = (t->ent[i].h >> 20) & mask;
    while (slots[at] >= 0) at = (at + 1) & mask;
    slots[at] = (int32_t)i;
  }
  zb_free(t->slots);
  t->slots = slots;
  t->cap = cap;
  return true;
}

/* The long string p[0, len) equals the one whose arena record is at a. */
static inline bool sc_tail_equal(const char *p, int64_t len, const char *a) {
  int64_t l2;
  memcpy(&l2, a, 8);
  if (l2 != len) return false;
  int64_t ts = sc_tail_bytes(len);
  return zb__skey_bytes_equal(p + len - ts, a + 8, ts);
}

/* Room for `need` more bytes after the `len` used of the arena *arena
 * of *cap bytes (grown by doubling, from 4096); false when out of memory
 * (the arena is unchanged). */
static bool arena_reserve(char **arena, int64_t len, int64_t *cap, int64_t need) {
  if (len + need <= *cap) return true;
  int64_t c = ZB_MAX(*cap * 2, (int64_t)4096);
  while (c < len + need) c *= 2;
  char *a = (char *)zb_malloc((size_t)c);
  if (a == NULL) return false;
  if (len > 0) memcpy(a, *arena, (size_t)len);
  zb_free(*arena);
  *arena = a;
  *cap = c;
  return true;
}

/* Append the arena record of long string p[0, len); its offset, or -1
 * when out of memory. */
static int64_t sc_add_tail(sc_table *t, const char *p, int64_t len) {
  int64_t ts = sc_tail_bytes(len), need = 8 + ((ts + 7) & ~(int64_t)7);
  if (!arena_reserve(&t->arena, t->arena_len, &t->arena_cap, need)) return -1;
  int64_t at = t->arena_len;
  char *a = t->arena + at;
  memcpy(a, &len, 8);
  memcpy(a + 8, p + len - ts, (size_t)ts);
  t->arena_len += need;
  return at;
}

/* Index of the entry equal to the key (w0, w1, h) of string p[0, len), or
 * -1 with *slot the empty slot where it would go. */
static inline int64_t sc_lookup(const sc_table *t, uint64_t w0, uint64_t w1, uint64_t h,
                                const char *p, int64_t len, uint64_t *slot) {
  uint64_t mask = (uint64_t)t->cap - 1, at = (h >> 20) & mask;
  for (;;) {
    int32_t e = t->slots[at];
    if (e < 0) break;
    const sc_entry *x = &t->ent[e];
    if (x->h == h && x->w0 == w0 && x->w1 == w1 &&
        (!(h & 1) || sc_tail_equal(p, len, t->arena + x->tail)))
      return e;
    at = (at + 1) & mask;
  }
  *slot = at;
  return -1;
}

/* Index of the entry equal to the key of string p[0, len), inserting it
 * (first row `row`) if absent; -1 when out of memory. */
static inline int64_t sc_find_insert(sc_table *t, uint64_t w0, uint64_t w1, uint64_t h,
                                     const char *p, int64_t len, int64_t row) {
  uint64_t at, mask;
  int64_t found = sc_lookup(t, w0, w1, h, p, len, &at);
  if (found >= 0) return found;
  if (t->n == t->ent_cap && !sc_grow_entries(t)) return -1;
  if (t->n >= sc_limit(t->cap)) {
    if (!sc_grow(t)) return -1;
    mask = (uint64_t)t->cap - 1;
    at = (h >> 20) & mask;
    while (t->slots[at] >= 0) at = (at + 1) & mask;
  }
  int64_t tail = 0;
  if (h & 1) {
    tail = sc_add_tail(t, p, len);
    if (tail < 0) return -1;
  }
  int64_t id = t->n++;
  t->ent[id] = (sc_entry){w0, w1, h, tail};
  t->rows[id] = row;
  t->slots[at] = (int32_t)id;
  return id;
}

/* ---- the workers' tables: keys of up to 40 bytes held whole ----------------
 * A worker's table of the codes pass keeps each distinct string's first
 * SW_BYTES bytes (zero past its end) and its length as one 48-byte key, so
 * a row of up to SW_BYTES bytes -- the usual key -- is loaded, hashed and
 * compared as a few words (16-byte vectors where SSE4.1 is there) with no
 * branch on its length: keys of 8 to 40 bytes mixed at random cost the
 * same few instructions, where loops over each string's bytes would
 * mispredict their trip counts.  Longer strings hash all their bytes and
 * compare the rest against a copy in the table's arena.  Only
 * these tables use this key: the merge into the global table re-keys each
 * distinct string once. */

#if defined(__SSE4_1__)
#include <smmintrin.h>
#define SW_SSE 1
#else
#define SW_SSE 0
#endif
#if defined(__SSE4_2__)
#include <nmmintrin.h>
#define SW_CRC 1
#else
#define SW_CRC 0
#endif

#define SW_WORDS 5
#define SW_BYTES (8 * SW_WORDS)
/* A long string's bytes past the key are hashed from byte SW_REST on (the
 * last two words' bytes too). */
#define SW_REST (SW_BYTES - 16)

/* w[0, SW_WORDS): the first SW_BYTES bytes, zero past the end; w[SW_WORDS]:
 * the length. */
typedef struct sw_key {
  uint64_t w[SW_WORDS + 1];
} sw_key;

/* One distinct string: 64 bytes, one cache line. */
typedef struct sw_entry {
  sw_key k;
  int64_t row;  /* its first row */
  int64_t tail; /* len > SW_BYTES: arena offset of a copy of the string */
} sw_entry;

typedef struct sw_table {
  int32_t *slots; /* cap entries, -1: empty */
  int64_t cap;
  sw_entry *ent;
  int64_t n, ent_cap;
  char *arena;
  int64_t arena_len, arena_cap;
  bool failed; /* out of memory */
} sw_table;

/* mask[k]: the low k bytes of a word */
static const uint64_t sw_mask[9] = {0,
                                    UINT64_C(0xff),
                                    UINT64_C(0xffff),
                                    UINT64_C(0xffffff),
                                    UINT64_C(0xffffffff),
                                    UINT64_C(0xffffffffff),
                                    UINT64_C(0xffffffffffff),
                                    UINT64_C(0xffffffffffffff),
                                    ~UINT64_C(0)};

/* The key of string p[0, len) of a chars buffer ending at end. */
static inline void sw_make(const char *p, int64_t len, const char *end, sw_key *k) {
#if SW_SSE
  if (__builtin_expect(end - p >= 48, 1)) { /* 48 bytes loaded, masked by the length */
    __m128i l = _mm_set1_epi8((char)(len < 48 ? len : 48));
    __m128i a = _mm_loadu_si128((const __m128i *)p);
    __m128i b = _mm_loadu_si128((const __m128i *)(p + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(p + 32));
    a = _mm_and_si128(a, _mm_cmpgt_epi8(l, _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                        12, 13, 14, 15)));
    b = _mm_and_si128(b, _mm_cmpgt_epi8(l, _mm_setr_epi8(16, 17, 18, 19, 20, 21, 22, 23, 24,
                                                        25, 26, 27, 28, 29, 30, 31)));
    c = _mm_and_si128(c, _mm_cmpgt_epi8(l, _mm_setr_epi8(32, 33, 34, 35, 36, 37, 38, 39, 40,
                                                        41, 42, 43, 44, 45, 46, 47)));
    c = _mm_insert_epi64(c, (long long)len, 1);
    _mm_storeu_si128((__m128i *)k->w, a);
    _mm_storeu_si128((__m128i *)(k->w + 2), b);
    _mm_storeu_si128((__m128i *)(k->w + 4), c);
    return;
  }
#endif
  if (__builtin_expect(end - p >= SW_BYTES, 1)) {
    for (int i = 0; i < SW_WORDS; i++) {
      int64_t rem = len - 8 * i;
      rem = rem < 0 ? 0 : rem > 8 ? 8 : rem;
      uint64_t x;
      memcpy(&x, p + 8 * i, 8);
      k->w[i] = x & sw_mask[rem];
    }
  } else {
    char buf[SW_BYTES] = {0};
    memcpy(buf, p, (size_t)ZB_MIN(len, (int64_t)SW_BYTES));
    memcpy(k->w, buf, SW_BYTES);
  }
  k->w[SW_WORDS] = (uint64_t)len;
}

static inline bool sw_key_equal(const sw_key *a, const sw_key *b) {
#if SW_SSE
  __m128i d = _mm_xor_si128(_mm_loadu_si128((const __m128i *)a->w),
                            _mm_loadu_si128((const __m128i *)b->w));
  d = _mm_or_si128(d, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(a->w + 2)),
                                    _mm_loadu_si128((const __m128i *)(b->w + 2))));
  d = _mm_or_si128(d, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(a->w + 4)),
                                    _mm_loadu_si128((const __m128i *)(b->w + 4))));
  return _mm_testz_si128(d, d);
#else
  uint64_t d = 0;
  for (int i = 0; i <= SW_WORDS; i++) d |= a->w[i] ^ b->w[i];
  return d == 0;
#endif
}

static inline uint64_t sw_mum(uint64_t a, uint64_t b) {
  __extension__ unsigned __int128 m = (unsigned __int128)a * b;
  return (uint64_t)m ^ (uint64_t)(m >> 64);
}

/* The hash of key k of string s, and past SW_BYTES of all its bytes (s
 * is read only then).  With SSE4.2 (the x86-64-v2 baseline) the six words
 * go through two chains of CRC32 instructions and one multiply folds them:
 * 10% less time than four multiplies for the codes of 400 keys (10^7 rows,
 * one thread).  Only slots depend on it; equality is the whole key's. */
static inline uint64_t sw_hash_words(uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3,
                                     uint64_t w4, uint64_t w5, const char *s) {
  int64_t len = (int64_t)w5;
#if SW_CRC
  uint64_t a = _mm_crc32_u64(_mm_crc32_u64(_mm_crc32_u64(0x9e3779b9, w0), w2), w4);
  uint64_t b = _mm_crc32_u64(_mm_crc32_u64(_mm_crc32_u64(0x85ebca6b, w1), w3), w5);
  uint64_t h = sw_mum(a ^ UINT64_C(0xa0761d6478bd642f), b ^ UINT64_C(0xe7037ed1a0b428db));
#else
  uint64_t a = sw_mum(w0 ^ UINT64_C(0xa0761d6478bd642f), w1 ^ UINT64_C(0xe7037ed1a0b428db));
  uint64_t b = sw_mum(w2 ^ UINT64_C(0x8ebc6af09c88c6e3), w3 ^ UINT64_C(0x589965cc75374cc3));
  uint64_t c = sw_mum(w4 ^ UINT64_C(0x1d8e4e27c47d124f), w5 ^ UINT64_C(0x9e3779b97f4a7c15));
  uint64_t h = sw_mum(a ^ c ^ UINT64_C(0xc2b2ae3d27d4eb4f), b ^ UINT64_C(0x165667b19e3779f9));
#endif
  if (__builtin_expect(len > SW_BYTES, 0))
    h ^= zb__skey_long_hash(s + SW_REST, len - SW_REST, w3, w4);
  return h;
}

static inline uint64_t sw_hash(const sw_key *k, const char *s) {
  const uint64_t *w = k->w;
  return zb__test_narrow_hash(sw_hash_words(w[0], w[1], w[2], w[3], w[4], w[5], s));
}

static void sw_reset(sw_table *t) {
  zb_free(t->slots);
  zb_free(t->ent);
  zb_free(t->arena);
  memset(t, 0, sizeof *t);
}

/* Entries a worker's table of cap slots takes before it grows: few keys
 * keep it at load 1/16 (a row's probe, a mispredicted branch when it does
 * not end at its first slot, ends there for 97% of 400 keys, against 93%
 * at 1/8, measured faster), up to SW_SPARSE_SLOTS slots (128 KiB); then
 * 1/2, as the memory of many keys asks. */
#define SW_SPARSE_SLOTS ((int64_t)1 << 15)

static inline int64_t sw_limit(int64_t cap) {
  return cap < SW_SPARSE_SLOTS ? cap / 16 : cap / 2;
}

static bool sw_init(sw_table *t, int64_t expected) {
  memset(t, 0, sizeof *t);
  int64_t cap = 64;
  while (sw_limit(cap) < expected) cap *= 2;
  t->cap = cap;
  t->ent_cap = ZB_MAX(expected, (int64_t)16);
  t->slots = (int32_t *)zb_malloc((size_t)cap * sizeof(int32_t));
  t->ent = (sw_entry *)zb_malloc((size_t)t->ent_cap * sizeof(sw_entry));
  if (t->slots == NULL || t->ent == NULL) {
    sw_reset(t);
    return false;
  }
  memset(t->slots, 0xff, (size_t)cap * sizeof(int32_t));
  return true;
}

static inline uint64_t sw_slot(uint64_t h, uint64_t mask) { return (h >> 20) & mask; }

/* Double the slots; the hashes are recomputed from the entries (growth
 * happens a few times per worker, not per row). */
static bool sw_grow(sw_table *t) {
  int64_t cap = t->cap * 2;
  int32_t *slots = (int32_t *)zb_malloc((size_t)cap * sizeof(int32_t));
  if (slots == NULL) return false;
  memset(slots, 0xff, (size_t)cap * sizeof(int32_t));
  uint64_t mask = (uint64_t)cap - 1;
  for (int64_t i = 0; i < t->n; i++) {
    const sw_entry *x = &t->ent[i];
    uint64_t at = sw_slot(sw_hash(&x->k, t->arena + x->tail), mask);
    while (slots[at] >= 0) at = (at + 1) & mask;
    slots[at] = (int32_t)i;
  }
  zb_free(t->slots);
  t->slots = slots;
  t->cap = cap;
  return true;
}

/* Append a copy of long string p[0, len); its offset, or -1 when out of
 * memory. */
static int64_t sw_add_tail(sw_table *t, const char *p, int64_t len) {
  int64_t need = (len + 7) & ~(int64_t)7;
  if (!arena_reserve(&t->arena, t->arena_len, &t->arena_cap, need)) return -1;
  int64_t at = t->arena_len;
  memcpy(t->arena + at, p, (size_t)len);
  t->arena_len += need;
  return at;
}

/* The id of the entry of string p (key k, hash h), inserted with first row
 * `row` when absent; -1 when out of memory. */
static inline int64_t sw_find_insert(sw_table *t, const sw_key *k, uint64_t h, const char *p,
                                     int64_t row) {
  int64_t len = (int64_t)k->w[SW_WORDS];
  uint64_t mask = (uint64_t)t->cap - 1, at = sw_slot(h, mask);
  for (;;) {
    int32_t e = t->slots[at];
    if (e < 0) break;
    const sw_entry *x = &t->ent[e];
    if (sw_key_equal(&x->k, k) &&
        (len <= SW_BYTES ||
         zb__skey_bytes_equal(p + SW_REST, t->arena + x->tail + SW_REST, len - SW_REST)))
      return e;
    at = (at + 1) & mask;
  }
  if (t->n == t->ent_cap) {
    int64_t ec = t->ent_cap * 2;
    sw_entry *ent = (sw_entry *)zb_malloc((size_t)ec * sizeof(sw_entry));
    if (ent == NULL) return -1;
    memcpy(ent, t->ent, (size_t)t->n * sizeof(sw_entry));
    zb_free(t->ent);
    t->ent = ent;
    t->ent_cap = ec;
  }
  if (t->n >= sw_limit(t->cap)) {
    if (!sw_grow(t)) return -1;
    mask = (uint64_t)t->cap - 1;
    at = sw_slot(h, mask);
    while (t->slots[at] >= 0) at = (at + 1) & mask;
  }
  int64_t tail = 0;
  if (len > SW_BYTES) {
    tail = sw_add_tail(t, p, len);
    if (tail < 0) return -1;
  }
  int64_t id = t->n++;
  sw_entry *x = &t->ent[id];
  x->k = *k;
  x->row = row;
  x->tail = tail;
  t->slots[at] = (int32_t)id;
  return id;
}

typedef struct sc_job {
  const zb_column *c;
  int64_t n;
  int64_t max_groups;
  sw_table *tab;     /* per worker: its table while it holds wide keys */
  sc_table *ptab;    /* per worker: its table once it holds packed keys */
  int32_t *code;     /* per row: local id, then the code; -1: null */
  int32_t *mworker;  /* per morsel */
  int overflow;      /* atomic: a table passed max_groups (or no memory) */
  const int64_t *fmap; /* worker w's local id i -> code: fmap[foff[w] + i] */
  const int64_t *foff;
} sc_job;

/* A worker's table leaves the wide keys past this many distinct strings:
 * with many keys a row's cost is its cache misses, and the 32-byte
 * entries of the packed keys (sc_table) miss less than the 64-byte ones
 * (measured at 10^5 keys). */
#define SW_MAX_WIDE 4096

/* Move worker table t's strings, in id order (so the ids stay), into the
 * packed-key table nt; false when out of memory. */
static bool sw_to_packed(sw_table *t, sc_table *nt, const zb_column *c) {
  if (!sc_init(nt, 2 * t->n)) return false;
  const int64_t *off = (const int64_t *)c->data->data + c->offset;
  const char *chars = c->chars != NULL ? (const char *)c->chars->data : "";
  const char *end = chars + (c->chars != NULL ? c->chars->size : 0);
  for (int64_t i = 0; i < t->n; i++) {
    int64_t row = t->ent[i].row, len = off[row + 1] - off[row];
    const char *p = chars + off[row];
    uint64_t w0, w1, h;
    zb__skey(p, len, end, &w0, &w1, &h);
    if (sc_find_insert(nt, w0, w1, h, p, len, row) != i) return false;
  }
  bool failed = t->failed;
  sw_reset(t);
  t->failed = failed;
  return true;
}

/* Rows [base, base + m) of a block through wide-key table t, their ids
 * into code (-1: a null row).  The key stays in three vector registers
 * from load to compare (no copy in memory, no reload), the table's arrays
 * are read once per block, and only a string not yet in the table goes
 * through sw_find_insert: the codes pass of few distinct keys, where a
 * row's cost is its instructions and its probe's latency (7% less time
 * for 400 keys of 8 to 40 bytes, 10^7 rows, one thread).  1: done; 0: the
 * block cannot take it (a row near the end of the characters, or a
 * narrowed test hash), nothing written; -1: out of memory. */
static int sw_rows_fast(sw_table *t, const int64_t *off, const char *chars, const char *end,
                        uint64_t valid, int64_t base, int m, int32_t *code) {
#if SW_SSE
  if (__atomic_load_n(&zb__test_hash_bits, __ATOMIC_RELAXED) < 64) return 0;
  if (end - (chars + off[base + m]) < 48) return 0; /* every row loads 48 bytes */
  const __m128i i0 = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m128i i1 = _mm_add_epi8(i0, _mm_set1_epi8(16));
  const __m128i i2 = _mm_add_epi8(i0, _mm_set1_epi8(32));
  const int32_t *slots = t->slots;
  const sw_entry *ent = t->ent;
  uint64_t mask = (uint64_t)t->cap - 1;
  for (int b = 0; b < m; b++) {
    int64_t r = base + b;
    if (!((valid >> b) & 1)) {
      code[r] = -1;
      continue;
    }
    int64_t o = off[r], len = off[r + 1] - o;
    const char *p = chars + o;
    __m128i l = _mm_set1_epi8((char)(len < 48 ? len : 48));
    __m128i ka = _mm_and_si128(_mm_loadu_si128((const __m128i *)p), _mm_cmpgt_epi8(l, i0));
    __m128i kb = _mm_and_si128(_mm_loadu_si128((const __m128i *)(p + 16)), _mm_cmpgt_epi8(l, i1));
    __m128i kc = _mm_and_si128(_mm_loadu_si128((const __m128i *)(p + 32)), _mm_cmpgt_epi8(l, i2));
    kc = _mm_insert_epi64(kc, (long long)len, 1);
    uint64_t h = sw_hash_words((uint64_t)_mm_cvtsi128_si64(ka), (uint64_t)_mm_extract_epi64(ka, 1),
                               (uint64_t)_mm_cvtsi128_si64(kb), (uint64_t)_mm_extract_epi64(kb, 1),
                               (uint64_t)_mm_cvtsi128_si64(kc), (uint64_t)len, p);
    uint64_t at = sw_slot(h, mask);
    int32_t e;
    while ((e = slots[at]) >= 0) {
      const sw_entry *x = &ent[e];
      __m128i d = _mm_xor_si128(_mm_loadu_si128((const __m128i *)x->k.w), ka);
      d = _mm_or_si128(d, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(x->k.w + 2)), kb));
      d = _mm_or_si128(d, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(x->k.w + 4)), kc));
      if (_mm_testz_si128(d, d) &&
          (len <= SW_BYTES ||
           zb__skey_bytes_equal(p + SW_REST, t->arena + x->tail + SW_REST, len - SW_REST)))
        break;
      at = (at + 1) & mask;
    }
    if (__builtin_expect(e < 0, 0)) { /* a new string: the general insert */
      sw_key k;
      _mm_storeu_si128((__m128i *)k.w, ka);
      _mm_storeu_si128((__m128i *)(k.w + 2), kb);
      _mm_storeu_si128((__m128i *)(k.w + 4), kc);
      int64_t id = sw_find_insert(t, &k, h, p, r);
      if (id < 0) return -1;
      e = (int32_t)id;
      slots = t->slots;
      ent = t->ent;
      mask = (uint64_t)t->cap - 1;
    }
    code[r] = e;
  }
  return 1;
#else
  (void)t, (void)off, (void)chars, (void)end, (void)valid, (void)base, (void)m, (void)code;
  return 0;
#endif
}

static void sc_morsel(void *ctx, int64_t task, int worker) {
  sc_job *j = (sc_job *)ctx;
  j->mworker[task] = worker;
  if (__atomic_load_n(&j->overflow, __ATOMIC_RELAXED)) return;
  const zb_column *c = j->c;
  sw_table *t = &j->tab[worker];
  sc_table *nt = &j->ptab[worker];
  if (t->slots == NULL && nt->slots == NULL && !sw_init(t, 64)) goto fail;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(j->n, s + ZB_MORSEL_ROWS);
  const int64_t *off = (const int64_t *)c->data->data + c->offset;
  const char *chars = c->chars != NULL ? (const char *)c->chars->data : "";
  const char *end = chars + (c->chars != NULL ? c->chars->size : 0);
  int32_t *code = j->code;
  for (int64_t base = s; base < e; base += 64) {
    int m = (int)ZB_MIN((int64_t)64, e - base);
    uint64_t valid = zb__valid_word(c, base, m);
    if (t->slots != NULL && t->n > SW_MAX_WIDE && !sw_to_packed(t, nt, c)) goto fail;
    int fast = t->slots != NULL ? sw_rows_fast(t, off, chars, end, valid, base, m, code) : 0;
    if (fast < 0) goto fail;
    if (fast == 0 && t->slots != NULL) {
      for (int b = 0; b < m; b++) {
        int64_t r = base + b;
        if (!((valid >> b) & 1)) {
          code[r] = -1;
          continue;
        }
        const char *p = chars + off[r];
        int64_t len = off[r + 1] - off[r];
        sw_key k;
        sw_make(p, len, end, &k);
        int64_t id = sw_find_insert(t, &k, sw_hash(&k, p), p, r);
        if (id < 0) goto fail;
        code[r] = (int32_t)id;
      }
    } else if (fast == 0) {
      for (int b = 0; b < m; b++) {
        int64_t r = base + b;
        if (!((valid >> b) & 1)) {
          code[r] = -1;
          continue;
        }
        const char *p = chars + off[r];
        int64_t len = off[r + 1] - off[r];
        uint64_t w0, w1, h;
        zb__skey(p, len, end, &w0, &w1, &h);
        int64_t id = sc_find_insert(nt, w0, w1, h, p, len, r);
        if (id < 0) goto fail;
        code[r] = (int32_t)id;
      }
    }
    if (t->n + nt->n > j->max_groups) {
      __atomic_store_n(&j->overflow, 1, __ATOMIC_RELAXED);
      return;
    }
  }
  return;
fail: /* out of memory */
  t->failed = true;
  __atomic_store_n(&j->overflow, 1, __ATOMIC_RELAXED);
}

static void sc_remap(void *ctx, int64_t task, int worker) {
  (void)worker;
  sc_job *j = (sc_job *)ctx;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(j->n, s + ZB_MORSEL_ROWS);
  const int64_t *f = j->fmap + j->foff[j->mworker[task]];
  int32_t *code = j->code;
  for (int64_t r = s; r < e; r++) {
    int32_t x = code[r];
    code[r] = x < 0 ? -1 : (int32_t)f[x];
  }
}

zb_status zb__string_codes(const zb_column *c, bool sorted, int64_t max_groups, int32_t *code,
                           int64_t **first, int64_t *n_groups, bool *fits, zb_error *err) {
  *first = NULL;
  *n_groups = 0;
  *fits = false;
  int64_t n = c->length, nm = zb__morsels(n);
  int nw = zb_get_num_threads();
  if (max_groups > INT32_MAX / 2) max_groups = INT32_MAX / 2;
  int64_t test_cap = __atomic_load_n(&zb__test_max_codes, __ATOMIC_RELAXED);
  if (test_cap > 0 && max_groups > test_cap) max_groups = test_cap;
  sc_job j;
  memset(&j, 0, sizeof j);
  j.c = c;
  j.n = n;
  j.max_groups = max_groups;
  sc_table gt;
  memset(&gt, 0, sizeof gt);
  int64_t *fmap = NULL, *foff = NULL, *gfirst = NULL, *idx = NULL;
  uint64_t *order = NULL, *tmp = NULL;
  zb_status st = ZB_OK;
  j.tab = (sw_table *)zb_calloc((size_t)nw, sizeof(sw_table));
  j.ptab = (sc_table *)zb_calloc((size_t)nw, sizeof(sc_table));
  j.code = code;
  j.mworker = (int32_t *)zb_malloc((size_t)ZB_MAX(nm, 1) * sizeof(int32_t));
  if (j.tab == NULL || j.ptab == NULL || j.mworker == NULL) goto nomem;
  if (n > 0) {
    st = zb_parallel_for(nm, sc_morsel, &j, err);
    if (st != ZB_OK) goto done;
  }
  for (int w = 0; w < nw; w++)
    if (j.tab[w].failed) goto nomem;
  if (j.overflow) goto done; /* too many distinct strings: *fits stays false */
  /* merge the worker tables: fmap[foff[w] + i] = global id of worker w's
   * entry i, then the code */
  foff = (int64_t *)zb_malloc((size_t)(nw + 1) * sizeof(int64_t));
  if (foff == NULL) goto nomem;
  int64_t total = 0;
  for (int w = 0; w < nw; w++) {
    foff[w] = total;
    total += j.tab[w].n + j.ptab[w].n;
  }
  foff[nw] = total;
  fmap = (int64_t *)zb_malloc((size_t)ZB_MAX(total, 1) * sizeof(int64_t));
  if (fmap == NULL || !sc_init(&gt, j.tab[0].n + j.ptab[0].n)) goto nomem;
  const int64_t *coff = (const int64_t *)c->data->data + c->offset;
  const char *cchars = c->chars != NULL ? (const char *)c->chars->data : "";
  const char *cend = cchars + (c->chars != NULL ? c->chars->size : 0);
  for (int w = 0; w < nw; w++) {
    const sw_table *t = &j.tab[w];
    const sc_table *nt = &j.ptab[w];
    for (int64_t i = 0; i < t->n + nt->n; i++) {
      int64_t row = t->n > 0 ? t->ent[i].row : nt->rows[i];
      int64_t len = coff[row + 1] - coff[row];
      const char *p = cchars + coff[row];
      uint64_t w0, w1, h;
      zb__skey(p, len, cend, &w0, &w1, &h);
      int64_t g = sc_find_insert(&gt, w0, w1, h, p, len, row);
      if (g < 0) goto nomem;
      if (row < gt.rows[g]) gt.rows[g] = row;
      fmap[foff[w] + i] = g;
    }
    if (zb_cancel_requested()) {
      st = zb_error_set(err, ZB_ECANCEL, "interrupted");
      goto done;
    }
  }
  for (int w = 0; w < nw; w++) {
    sw_reset(&j.tab[w]);
    sc_reset(&j.ptab[w]);
  }
  int64_t G = gt.n;
  /* rank[g]: the code of global group g */
  gfirst = (int64_t *)zb_malloc((size_t)ZB_MAX(G, 1) * sizeof(int64_t));
  idx = (int64_t *)zb_malloc((size_t)ZB_MAX(G, 1) * sizeof(int64_t));
  if (gfirst == NULL || idx == NULL) goto nomem;
  for (int64_t g = 0; g < G; g++) gfirst[g] = gt.rows[g];
  if (sorted) {
    for (int64_t g = 0; g < G; g++) idx[g] = g;
    st = zb__sort_rows_by_string(c, gfirst, idx, G, err);
    if (st != ZB_OK) goto done;
  } else if (n < ((int64_t)1 << 40)) { /* (first row, group) packed in 64 bits */
    order = (uint64_t *)zb_malloc((size_t)ZB_MAX(G, 1) * sizeof(uint64_t));
    tmp = (uint64_t *)zb_malloc((size_t)ZB_MAX(G, 1) * sizeof(uint64_t));
    if (order == NULL || tmp == NULL) goto nomem;
    for (int64_t g = 0; g < G; g++) order[g] = ((uint64_t)gfirst[g] << 24) | (uint64_t)g;
    zb__sort_u64_serial(order, tmp, G);
    for (int64_t g = 0; g < G; g++) idx[g] = (int64_t)(order[g] & ((UINT64_C(1) << 24) - 1));
  } else {
    st = zb_error_set(err, ZB_EINVAL, "string codes: too many rows (internal)");
    goto done;
  }
  sc_reset(&gt);
  /* idx[k] = the global group with code k */
  *first = (int64_t *)zb_malloc((size_t)ZB_MAX(G, 1) * sizeof(int64_t));
  if (*first == NULL) goto nomem;
  for (int64_t k = 0; k < G; k++) {
    (*first)[k] = gfirst[idx[k]];
    gfirst[idx[k]] = k; /* gfirst now: global group -> code */
  }
  /* When every worker's local ids already are the codes (one worker met
   * the strings in first-appearance order, or all met them in the same
   * order), the rows hold their codes: no second pass. */
  bool final = true;
  for (int w = 0; w < nw; w++)
    for (int64_t i = foff[w]; i < foff[w + 1]; i++) {
      fmap[i] = gfirst[fmap[i]];
      final &= fmap[i] == i - foff[w];
    }
  j.fmap = fmap;
  j.foff = foff;
  if (n > 0 && !final) {
    st = zb_parallel_for(nm, sc_remap, &j, err);
    if (st != ZB_OK) goto done;
  }
  *n_groups = G;
  *fits = true;
  goto done;
nomem:
  st = zb_error_set(err, ZB_ENOMEM, "out of host memory encoding %lld strings",
                    (long long)n);
done:
  if (j.tab != NULL)
    for (int w = 0; w < nw; w++) sw_reset(&j.tab[w]);
  if (j.ptab != NULL)
    for (int w = 0; w < nw; w++) sc_reset(&j.ptab[w]);
  zb_free(j.tab);
  zb_free(j.ptab);
  zb_free(j.mworker);
  sc_reset(&gt);
  zb_free(fmap);
  zb_free(foff);
  zb_free(gfirst);
  zb_free(idx);
  zb_free(order);
  zb_free(tmp);
  if (st != ZB_OK || !*fits) {
    zb_free(*first);
    *first = NULL;
    *n_groups = 0;
    *fits = false;
  }
  return st;
}

zb_status zb__string_codes_column(const zb_column *c, bool sorted, int64_t max_groups,
                                  zb_column **out, int64_t **first, int64_t *n_groups,
                                  zb_error *err) {
  *out = NULL;
  int64_t n = c->length, *f = NULL;
  zb_column *o = NULL;
  bool fits = false;
  if (first != NULL) *first = NULL;
  *n_groups = 0;
  ZB_RETURN_NOT_OK(zb_column_new(ZB_INT32, n, c->null_count > 0, 0, &o, err));
  zb_status st = zb__string_codes(c, sorted, max_groups, (int32_t *)o->data->data, &f,
                                  n_groups, &fits, err);
  if (st != ZB_OK || !fits) {
    zb_column_release(o);
    return st;
  }
  if (c->null_count > 0) {
    zb__bitmap_copy((uint8_t *)o->validity->data, 0, (const uint8_t *)c->validity->data,
                    c->offset, n);
    zb_column_recount_nulls(o);
  }
  if (first != NULL)
    *first = f;
  else
    zb_free(f);
  *out = o;
  return ZB_OK;
}

/* ---- many distinct strings: radix-partitioned tables ----------------------- */

/* Rows are radix-partitioned by the high bits of their key's hash; the
 * scatter moves each row's packed key with it (32 bytes), so the tables --
 * one per partition, built in parallel, each sized for its partition --
 * read keys in order and only strings over 15 bytes whose hash and first
 * 16 bytes match go back to the column.  A flag per row marks each group's
 * first row; a prefix count of the flags over morsels numbers the groups
 * by first appearance, whatever the thread or partition count. */

typedef struct sp_job {
  const zb_column *c;
  int64_t n, P;
  int shift;
  bool dropna;
  int64_t *hist;    /* morsels x P: counts, then cursors */
  int64_t *pstart;  /* P + 1 */
  sc_rec *rec;      /* rows in partition order: key and row */
  int64_t *ngroups; /* per partition */
  int64_t *pbase;   /* per partition */
  bool *pfail;      /* per partition: out of memory */
  int64_t *id;      /* per row: (partition << SP_LOCAL_BITS) | partition-local
                       id, then the group */
  uint8_t *isfirst; /* per row */
  int64_t *mcount;  /* per morsel: first rows, then their prefix */
  int64_t *mnull;   /* per morsel: first null row (or INT64_MAX) */
  int64_t null_first, null_group; /* the null group (-1: none or dropped) */
  int64_t *remap;   /* pbase + local -> group */
  int64_t *first;   /* group -> first row */
} sp_job;

/* A row's id while the partitions are built holds its partition, so no
 * pass over the rows in partition order (random writes) adds the
 * partition's base: the passes in row order that follow add it. */
#define SP_LOCAL_BITS 40

static inline int64_t sp_global(const sp_job *j, int64_t id) {
  return j->pbase[id >> SP_LOCAL_BITS] + (id & (((int64_t)1 << SP_LOCAL_BITS) - 1));
}

#define SP_ROWS(BODY)                                                           \
  const zb_column *c = j->c;                                                    \
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(j->n, s + ZB_MORSEL_ROWS);      \
  const int64_t *off = (const int64_t *)c->data->data + c->offset;              \
  const char *chars = c->chars != NULL ? (const char *)c->chars->data : "";     \
  const char *end = chars + (c->chars != NULL ? c->chars->size : 0);            \
  for (int64_t base = s; base < e; base += 64) {                                \
    int m = (int)ZB_MIN((int64_t)64, e - base);                                 \
    uint64_t valid = zb__valid_word(c, base, m);                                \
    for (int b = 0; b < m; b++) {                                               \
      int64_t r = base + b;                                                     \
      if (!((valid >> b) & 1)) continue;                                        \
      const char *p = chars + off[r];                                           \
      int64_t len = off[r + 1] - off[r];                                        \
      uint64_t w0, w1, h;                                                       \
      zb__skey(p, len, end, &w0, &w1, &h);                                        \
      BODY;                                                                     \
    }                                                                           \
  }

static void sp_hist(void *ctx, int64_t task, int worker) {
  (void)worker;
  sp_job *j = (sp_job *)ctx;
  int64_t *hc = j->hist + task * j->P;
  for (int64_t q = 0; q < j->P; q++) hc[q] = 0;
  int64_t nf = INT64_MAX;
  {
    SP_ROWS(hc[h >> j->shift]++)
    if (c->null_count > 0)
      for (int64_t r = s; r < e; r++)
        if (!zb_column_is_valid(c, r)) {
          nf = r;
          break;
        }
  }
  j->mnull[task] = nf;
}

static void sp_scatter(void *ctx, int64_t task, int worker) {
  (void)worker;
  sp_job *j = (sp_job *)ctx;
  int64_t *cur = j->hist + task * j->P;
  SP_ROWS(j->rec[cur[h >> j->shift]++] = ((sc_rec){w0, w1, h, r}))
}

#define SP_AHEAD_FAR 16 /* rows ahead: offsets and id slots */
#define SP_AHEAD_NEAR 8 /* rows ahead: string bytes */

static void sp_build(void *ctx, int64_t q, int worker) {
  (void)worker;
  sp_job *j = (sp_job *)ctx;
  int64_t s = j->pstart[q], e = j->pstart[q + 1];
  sc_table t;
  /* sized for the rows at once when they look mostly distinct */
  if (!sc_init(&t, ZB_MIN(e - s, 4096))) {
    j->pfail[q] = true;
    return;
  }
  /* The rows come in partition order, so a row's offsets, its bytes (over
   * 15 bytes: compared past the packed prefix) and its id slot are random
   * reads and writes: each is prefetched a few rows ahead, the offsets
   * first and the bytes (whose address needs them) later. */
  const int64_t *off = (const int64_t *)j->c->data->data + j->c->offset;
  const char *chars = j->c->chars != NULL ? (const char *)j->c->chars->data : NULL;
  for (int64_t i = s; i < e; i++) {
    if (i + SP_AHEAD_FAR < e) {
      const sc_rec *f = &j->rec[i + SP_AHEAD_FAR];
      if (f->h & 1) __builtin_prefetch(off + f->row);
      __builtin_prefetch(j->id + f->row, 1);
    }
    if (i + SP_AHEAD_NEAR < e && (j->rec[i + SP_AHEAD_NEAR].h & 1))
      __builtin_prefetch(chars + off[j->rec[i + SP_AHEAD_NEAR].row] + 16);
    const sc_rec *x = &j->rec[i];
    int64_t len = 0;
    const char *p = NULL;
    if (x->h & 1) p = zb__str(j->c, x->row, &len);
    int64_t n0 = t.n;
    int64_t g = sc_find_insert(&t, x->w0, x->w1, x->h, p, len, x->row);
    if (g < 0) {
      j->pfail[q] = true;
      break;
    }
    if (t.n > n0) j->isfirst[x->row] = 1;
    j->id[x->row] = (q << SP_LOCAL_BITS) | g;
    if (i - s == 4096 && t.n > 2048 && e - s > 8192) {
      while (t.cap < 2 * (e - s) && sc_grow(&t)) {
      }
    }
  }
  j->ngroups[q] = t.n;
  sc_reset(&t);
}

static void sp_count(void *ctx, int64_t task, int worker) {
  (void)worker;
  sp_job *j = (sp_job *)ctx;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(j->n, s + ZB_MORSEL_ROWS), k = 0;
  for (int64_t r = s; r < e; r++) k += j->isfirst[r];
  j->mcount[task] = k + (j->null_group >= 0 && j->null_first >= s && j->null_first < e);
}

static void sp_remap(void *ctx, int64_t task, int worker) {
  (void)worker;
  sp_job *j = (sp_job *)ctx;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(j->n, s + ZB_MORSEL_ROWS);
  int64_t run = j->mcount[task];
  for (int64_t r = s; r < e; r++) {
    if (r == j->null_first && j->null_group >= 0) {
      j->null_group = run; /* one task owns the null group's first row */
      j->first[run++] = r;
      continue;
    }
    if (!j->isfirst[r]) continue;
    j->remap[sp_global(j, j->id[r])] = run;
    j->first[run++] = r;
  }
}

static void sp_ids(void *ctx, int64_t task, int worker) {
  (void)worker;
  sp_job *j = (sp_job *)ctx;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(j->n, s + ZB_MORSEL_ROWS);
  const zb_column *c = j->c;
  int64_t ng = j->dropna ? -1 : j->null_group;
  for (int64_t r = s; r < e; r++)
    j->id[r] = zb_column_is_valid(c, r) ? j->remap[sp_global(j, j->id[r])] : ng;
}

zb_status zb__string_group_rows(const zb_column *c, bool dropna, int64_t *gid, int64_t **first,
                                int64_t *n_groups, zb_error *err) {
  *first = NULL;
  *n_groups = 0;
  int64_t n = c->length, nm = zb__morsels(n);
  sp_job j;
  memset(&j, 0, sizeof j);
  j.c = c;
  j.n = n;
  j.dropna = dropna;
  j.id = gid;
  int nthreads = zb_get_num_threads(), log2p = 0;
  while (((1 << log2p) < 8 * nthreads || ((int64_t)32768 << log2p) < n) && log2p < 10) log2p++;
  j.P = (int64_t)1 << log2p;
  j.shift = 64 - log2p; /* log2p >= 3 */
  zb_status st = ZB_OK;
  j.hist = (int64_t *)zb_malloc((size_t)ZB_MAX(nm * j.P, 1) * sizeof(int64_t));
  j.pstart = (int64_t *)zb_malloc((size_t)(j.P + 1) * sizeof(int64_t));
  j.ngroups = (int64_t *)zb_calloc((size_t)j.P, sizeof(int64_t));
  j.pbase = (int64_t *)zb_malloc((size_t)j.P * sizeof(int64_t));
  j.pfail = (bool *)zb_calloc((size_t)j.P, sizeof(bool));
  j.mcount = (int64_t *)zb_malloc((size_t)ZB_MAX(nm, 1) * sizeof(int64_t));
  j.mnull = (int64_t *)zb_malloc((size_t)ZB_MAX(nm, 1) * sizeof(int64_t));
  j.isfirst = (uint8_t *)zb_calloc((size_t)ZB_MAX(n, 1), 1);
  j.rec = (sc_rec *)zb_malloc((size_t)ZB_MAX(n - c->null_count, 1) * sizeof(sc_rec));
  if (j.hist == NULL || j.pstart == NULL || j.ngroups == NULL || j.pbase == NULL ||
      j.pfail == NULL || j.mcount == NULL || j.mnull == NULL || j.isfirst == NULL ||
      j.rec == NULL)
    goto nomem;
  if (n > 0) st = zb_parallel_for(nm, sp_hist, &j, err);
  if (st != ZB_OK) goto done;
  int64_t run = 0;
  for (int64_t q = 0; q < j.P; q++) {
    j.pstart[q] = run;
    for (int64_t m = 0; m < nm; m++) {
      int64_t k = j.hist[m * j.P + q];
      j.hist[m * j.P + q] = run;
      run += k;
    }
  }
  j.pstart[j.P] = run;
  j.null_first = INT64_MAX;
  for (int64_t m = 0; m < nm; m++) j.null_first = ZB_MIN(j.null_first, j.mnull[m]);
  j.null_group = j.null_first != INT64_MAX && !dropna ? 0 : -1;
  if (n > 0) st = zb_parallel_for(nm, sp_scatter, &j, err);
  if (st == ZB_OK) st = zb_parallel_for(j.P, sp_build, &j, err);
  if (st != ZB_OK) goto done;
  int64_t G = 0;
  for (int64_t q = 0; q < j.P; q++) {
    if (j.pfail[q]) goto nomem;
    j.pbase[q] = G;
    G += j.ngroups[q];
  }
  zb_free(j.rec);
  j.rec = NULL;
  int64_t total = G + (j.null_group >= 0);
  j.remap = (int64_t *)zb_malloc((size_t)ZB_MAX(G, 1) * sizeof(int64_t));
  j.first = (int64_t *)zb_malloc((size_t)ZB_MAX(total, 1) * sizeof(int64_t));
  if (j.remap == NULL || j.first == NULL) goto nomem;
  if (n > 0) st = zb_parallel_for(nm, sp_count, &j, err);
  if (st != ZB_OK) goto done;
  run = 0;
  for (int64_t m = 0; m < nm; m++) {
    int64_t k = j.mcount[m];
    j.mcount[m] = run;
    run += k;
  }
  if (n > 0) st = zb_parallel_for(nm, sp_remap, &j, err);
  if (st == ZB_OK && n > 0) st = zb_parallel_for(nm, sp_ids, &j, err);
  if (st != ZB_OK) goto done;
  *first = j.first;
  j.first = NULL;
  *n_groups = total;
  goto done;
nomem:
  st = zb_error_set(err, ZB_ENOMEM, "out of host memory grouping %lld strings", (long long)n);
done:
  zb_free(j.hist);
  zb_free(j.pstart);
  zb_free(j.ngroups);
  zb_free(j.pbase);
  zb_free(j.pfail);
  zb_free(j.mcount);
  zb_free(j.mnull);
  zb_free(j.isfirst);
  zb_free(j.rec);
  zb_free(j.remap);
  zb_free(j.first);
  return st;
}

/* ---- isin ---------------------------------------------------------------- */

typedef struct si_job {
  const zb_column *c, *v;
  const sc_table *tab;
  uint8_t *bits;
} si_job;

static void si_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  const si_job *j = (const si_job *)ctx;
  const zb_column *c = j->c;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(c->length, s + ZB_MORSEL_ROWS);
  const int64_t *off = (const int64_t *)c->data->data + c->offset;
  const char *chars = c->chars != NULL ? (const char *)c->chars->data : "";
  const char *end = chars + (c->chars != NULL ? c->chars->size : 0);
  for (int64_t base = s; base < e; base += 64) {
    int m = (int)ZB_MIN((int64_t)64, e - base);
    uint64_t valid = zb__valid_word(c, base, m), w = 0;
    for (int b = 0; b < m; b++) {
      if (!((valid >> b) & 1)) continue;
      int64_t r = base + b;
      const char *p = chars + off[r];
      int64_t len = off[r + 1] - off[r];
      uint64_t w0, w1, h;
      zb__skey(p, len, end, &w0, &w1, &h);
      uint64_t at;
      if (sc_lookup(j->tab, w0, w1, h, p, len, &at) >= 0) w |= UINT64_C(1) << b;
    }
    zb__store_bits(j->bits, base, w, m);
  }
}

zb_status zb__string_isin(const zb_column *c, const zb_column *v, uint8_t *bits, zb_error *err) {
  sc_table t;
  if (!sc_init(&t, v->length))
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (isin: a table of %lld strings)",
                        (long long)v->length);
  const int64_t *off = (const int64_t *)v->data->data + v->offset;
  const char *chars = v->chars != NULL ? (const char *)v->chars->data : "";
  const char *end = chars + (v->chars != NULL ? v->chars->size : 0);
  zb_status st = ZB_OK;
  for (int64_t r = 0; r < v->length; r++) {
    if (!zb_column_is_valid(v, r)) continue;
    const char *p = chars + off[r];
    int64_t len = off[r + 1] - off[r];
    uint64_t w0, w1, h;
    zb__skey(p, len, end, &w0, &w1, &h);
    if (sc_find_insert(&t, w0, w1, h, p, len, r) < 0) {
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory (isin: a table of %lld strings)",
                        (long long)v->length);
      break;
    }
  }
  if (st == ZB_OK && c->length > 0) {
    si_job j = {c, v, &t, bits};
    st = zb_parallel_for(zb__morsels(c->length), si_morsel, &j, err);
  }
  sc_reset(&t);
  return st;
}
