/*
 * select.c -- CPU null tests (isnull / notnull), fill_null, filter by a
 * bool mask and take by int64 positions.
 *
 * filter runs two parallel passes over morsels: the first counts the kept
 * rows per morsel (from the mask alone), an exclusive scan turns counts
 * into each morsel's output start, and the second writes the rows (when
 * every row is kept there is no second pass: the result is the input
 * columns themselves, which are immutable).  A
 * string morsel learns where its bytes start from the morsel before it (a
 * chained scan: it copies its kept bytes into a per-worker buffer -- or, for
 * a morsel of more than 4 MiB of bytes, counts them -- waits for its
 * predecessor's end, publishes its own, then copies to the output), so its
 * offsets are read from memory once; tasks are claimed in increasing order,
 * so a waiting morsel's predecessor is always running.  Output bitmap words
 * that two morsels share (bool values and validity at arbitrary output
 * positions) are written with an atomic OR into a zeroed bitmap, the others
 * with plain stores, so the result is the same for any thread count.  take
 * writes output rows in morsels of aligned output positions, so it needs no
 * atomics.  Arguments were checked by src/core/compute_ops.c (indices lie in
 * range wherever they are valid).
 */

#include "cpu/kernels.h"

/* ---- isnull / notnull ---------------------------------------------------- */

zb_status zb__cpu_is_null(const zb_column *col, bool want_valid, zb_column **out,
                          zb_error *err) {
  *out = NULL;
  zb_column *o = NULL;
  ZB_RETURN_NOT_OK(zb_column_new(ZB_BOOL, col->length, false, 0, &o, err));
  uint8_t *d = (uint8_t *)o->data->data;
  if (col->validity == NULL)
    zb__bitmap_fill(d, 0, col->length, want_valid);
  else
    zb__bitmap_copy(d, 0, (const uint8_t *)col->validity->data, col->offset, col->length);
  if (!want_valid && col->validity != NULL) {
    int64_t nbytes = (col->length + 7) / 8;
    for (int64_t i = 0; i < nbytes; i++) d[i] = (uint8_t)~d[i];
  }
  *out = o;
  return ZB_OK;
}

/* ---- fill_null ----------------------------------------------------------- */

zb_status zb__cpu_fill_null(const zb_column *col, const zb_column *value, zb_column **out,
                            zb_error *err) {
  *out = NULL;
  int64_t n = col->length;
  zb_column *o = NULL;
  zb_status st = ZB_OK;
  if (col->type == ZB_STRING) {
    int64_t flen;
    const char *f = zb__str(value, 0, &flen);
    const int64_t *so = (const int64_t *)col->data->data + col->offset;
    int64_t total = (so[n] - so[0]) + col->null_count * flen;
    ZB_RETURN_NOT_OK(zb_column_new(ZB_STRING, n, false, total, &o, err));
    int64_t *oo = (int64_t *)o->data->data;
    char *ch = (char *)o->chars->data;
    oo[0] = 0;
    for (int64_t i = 0; i < n; i++) {
      int64_t len;
      const char *p = zb__str(col, i, &len);
      if (!zb_column_is_valid(col, i)) {
        p = f;
        len = flen;
      }
      if (len > 0) memcpy(ch + oo[i], p, (size_t)len);
      oo[i + 1] = oo[i] + len;
    }
    *out = o;
    return ZB_OK;
  }
  ZB_RETURN_NOT_OK(zb__new_like(col, col->type, n, false, 0, &o, err));
  if (col->type == ZB_BOOL) {
    bool fv = zb_bit_get((const uint8_t *)value->data->data, value->offset);
    uint8_t *d = (uint8_t *)o->data->data;
    for (int64_t k = 0; k < n; k += 64) {
      int mm = (int)ZB_MIN((int64_t)64, n - k);
      uint64_t v = zb__valid_word(col, k, mm);
      uint64_t x = zb__load_bits((const uint8_t *)col->data->data, col->offset + k, mm);
      zb__store_bits(d, k, (x & v) | (fv ? ~v & zb__mask(mm) : 0), mm);
    }
  } else {
    int w = zb_type_width(col->type);
    char *d = (char *)o->data->data;
    const char *fv = (const char *)value->data->data + value->offset * w;
    memcpy(d, (const char *)col->data->data + col->offset * w, (size_t)(n * w));
    for (int64_t k = 0; k < n; k += 64) {
      int mm = (int)ZB_MIN((int64_t)64, n - k);
      uint64_t nulls = ~zb__valid_word(col, k, mm) & zb__mask(mm);
      while (nulls != 0) {
        int q = __builtin_ctzll(nulls);
        memcpy(d + (k + q) * w, fv, (size_t)w);
        nulls &= nulls - 1;
      }
    }
  }
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}

/* On failure of a multi-column operation: every output released, NULL. */
static void release_outputs(zb_column **outs, int64_t n_cols) {
  for (int64_t c = 0; c < n_cols; c++) {
    zb_column_release(outs[c]);
    outs[c] = NULL;
  }
}

/* ---- filter -------------------------------------------------------------- */

typedef struct filter_job {
  const zb_column *c, *mask;
  zb_column *out;
  int64_t *count; /* per morsel: kept rows, then output start */
  int64_t *bytes; /* per morsel, string columns: the end of its chars (atomic;
                     -1 until the morsel has published it) */
  int64_t n_morsels;
  bool bytes_known; /* bytes was filled by a first pass */
  struct filter_scratch *scratch;
} filter_job;

/* The kept rows among [row, row + m) as a word. */
static inline uint64_t keep_word(const zb_column *mask, int64_t row, int m) {
  return zb__load_bits((const uint8_t *)mask->data->data, mask->offset + row, m) &
         zb__valid_word(mask, row, m);
}

/* String bytes of the rows of o[0, mm) kept by w: branch-free, and a loop
 * of constant length for a whole word, which the compiler vectorizes. */
ZB_CLONES
static int64_t kept_bytes(const int64_t *o, uint64_t w, int mm) {
  int64_t bytes = 0;
  if (w == ~UINT64_C(0)) return o[64] - o[0];
  if (mm == 64) {
    for (int q = 0; q < 64; q++) bytes += (o[q + 1] - o[q]) & -(int64_t)((w >> q) & 1);
  } else {
    for (int q = 0; q < mm; q++) bytes += (o[q + 1] - o[q]) & -(int64_t)((w >> q) & 1);
  }
  return bytes;
}

/* Kept rows of the mask's morsel `task`. */
static void filter_count(void *ctx, int64_t task, int worker) {
  (void)worker;
  filter_job *j = (filter_job *)ctx;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, j->mask->length - start);
  int64_t cnt = 0;
  for (int64_t k = 0; k < n; k += 64)
    cnt += __builtin_popcountll(keep_word(j->mask, start + k, (int)ZB_MIN((int64_t)64, n - k)));
  j->count[task] = cnt;
}

/* Waits for the morsel before `task` to publish where its chars end,
 * publishes where this morsel's `bytes` end, and returns where they begin.
 * Cancelled meanwhile (the morsel before may never run), they begin at 0:
 * in bounds of the output's chars, which the job then throws away. */
static int64_t chain_bytes(filter_job *j, int64_t task, int64_t bytes) {
  int64_t b = 0;
  if (task > 0 && !zb__await_published(&j->bytes[task - 1], &b)) b = 0;
  __atomic_store_n(&j->bytes[task], b + bytes, __ATOMIC_RELEASE);
  return b;
}

/* The kept string bytes of the morsel [start, start + n). */
static int64_t morsel_bytes(const filter_job *j, int64_t start, int64_t n) {
  const int64_t *so = (const int64_t *)j->c->data->data + j->c->offset + start;
  int64_t bytes = 0;
  for (int64_t k = 0; k < n; k += 64) {
    int mm = (int)ZB_MIN((int64_t)64, n - k);
    uint64_t w = keep_word(j->mask, start + k, mm);
    if (w != 0) bytes += kept_bytes(so + k, w, mm);
  }
  return bytes;
}

/* Per-worker buffers a string morsel copies its kept bytes into before it
 * knows where they go in the output (then one memcpy puts them there). */
#define FILTER_SCRATCH_MAX ((int64_t)4 << 20)
typedef struct filter_scratch {
  char **buf;
  int64_t *cap;
  int n; /* workers */
} filter_scratch;

static char *scratch_get(filter_scratch *sc, int worker, int64_t need) {
  if (sc == NULL || worker >= sc->n || need > FILTER_SCRATCH_MAX) return NULL;
  if (sc->cap[worker] < need) {
    zb_free(sc->buf[worker]);
    int64_t cap = ZB_MAX(need, (int64_t)1 << 20);
    sc->buf[worker] = (char *)zb_malloc((size_t)cap);
    sc->cap[worker] = sc->buf[worker] != NULL ? cap : 0;
  }
  return sc->buf[worker];
}

/* Accumulates bits at consecutive output positions; flushes whole words,
 * with an atomic OR (into a zeroed bitmap) for the words [lo, hi] that a
 * neighbouring morsel may share, with a plain store for the others. */
typedef struct bit_writer {
  uint64_t *words;
  int64_t word; /* index of the word being filled */
  uint64_t acc;
  int64_t lo, hi; /* this morsel's first and last output words */
} bit_writer;

static inline void bw_flush(bit_writer *b) {
  if (b->acc == 0) return;
  if (b->word == b->lo || b->word == b->hi)
    __atomic_fetch_or(&b->words[b->word], b->acc, __ATOMIC_RELAXED);
  else
    b->words[b->word] = b->acc;
  b->acc = 0;
}

/* Append the low cnt (0..64) bits of bits at output position pos. */
static inline void bw_append(bit_writer *b, int64_t pos, uint64_t bits, int cnt) {
  if (cnt == 0) return;
  int64_t w = pos >> 6;
  int off = (int)(pos & 63);
  if (w != b->word) {
    bw_flush(b);
    b->word = w;
  }
  b->acc |= bits << off;
  if (off + cnt >= 64) {
    bw_flush(b);
    b->word = w + 1;
    b->acc = off != 0 ? bits >> (64 - off) : 0;
  }
}

/* The bits of x where m is set, packed to the low end (software pext;
 * Hacker's Delight 7-4): a fixed number of word operations per 64 rows. */
static inline uint64_t compress_bits(uint64_t x, uint64_t m) {
  x &= m;
  uint64_t mk = ~m << 1;
  for (int i = 0; i < 6; i++) {
    uint64_t mp = mk ^ (mk << 1);
    mp ^= mp << 2;
    mp ^= mp << 4;
    mp ^= mp << 8;
    mp ^= mp << 16;
    mp ^= mp << 32;
    uint64_t mv = mp & m;
    m = (m ^ mv) | (mv >> (1 << i));
    uint64_t t = x & mv;
    x = (x ^ t) | (t >> (1 << i));
    mk &= ~mp;
  }
  return x;
}

/* compress_bits(x, keep) for the common case of few kept zeros (validity
 * with a few nulls) or few kept ones: start from the majority value and flip
 * the few rows that differ, at the output position each lands on. */
static inline uint64_t compress_kept(uint64_t x, uint64_t keep) {
  uint64_t zeros = ~x & keep, ones = x & keep;
  int cnt = __builtin_popcountll(keep);
  uint64_t all = cnt == 64 ? ~UINT64_C(0) : (UINT64_C(1) << cnt) - 1;
  if (__builtin_popcountll(zeros) <= 6) {
    uint64_t r = all;
    for (; zeros != 0; zeros &= zeros - 1) {
      uint64_t below = (zeros & -zeros) - 1;
      r &= ~(UINT64_C(1) << __builtin_popcountll(keep & below));
    }
    return r;
  }
  if (__builtin_popcountll(ones) <= 6) {
    uint64_t r = 0;
    for (; ones != 0; ones &= ones - 1) {
      uint64_t below = (ones & -ones) - 1;
      r |= UINT64_C(1) << __builtin_popcountll(keep & below);
    }
    return r;
  }
  return compress_bits(x, keep);
}

/* Appends, for the rows [start, start + n) of the mask, the bits of the kept
 * rows: c's validity, or c's bool values.  Returns the output position after
 * them.  A BMI2 version (one pext per word) is used where pext is fast. */
#define COMPRESS_ROWS(NAME, ATTR, COMPRESS)                                       \
  ATTR static int64_t NAME(const zb_column *mask, const zb_column *c, bool validity,  \
                           int64_t start, int64_t n, bit_writer *b, int64_t pos) {   \
    const uint8_t *bits = (const uint8_t *)c->data->data;                         \
    for (int64_t k = 0; k < n; k += 64) {                                         \
      int mm = (int)ZB_MIN((int64_t)64, n - k);                                   \
      uint64_t keep = keep_word(mask, start + k, mm);                             \
      if (keep == 0) continue;                                                    \
      uint64_t x = validity ? zb__valid_word(c, start + k, mm)                    \
                            : zb__load_bits(bits, c->offset + start + k, mm);     \
      int cnt = __builtin_popcountll(keep);                                       \
      bw_append(b, pos, COMPRESS(x, keep), cnt);                                  \
      pos += cnt;                                                                 \
    }                                                                             \
    return pos;                                                                   \
  }
COMPRESS_ROWS(compress_rows, , compress_kept)
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
COMPRESS_ROWS(compress_rows_bmi2, __attribute__((target("bmi2"))), _pext_u64)

#define COMPRESS(...) \
  (zb__has_fast_pext() ? compress_rows_bmi2(__VA_ARGS__) : compress_rows(__VA_ARGS__))

/* The kept values of 64 rows of 8 or 4 bytes packed to o with AVX-512
 * compress, 8 or 16 rows per instruction; each store writes a whole
 * vector, so o needs room for 64 values. */
__attribute__((target("avx512f"))) static void compress_word_8(const uint64_t *r, uint64_t keep,
                                                                uint64_t *o) {
  for (int q = 0; q < 8; q++) {
    __mmask8 m = (__mmask8)(keep >> (8 * q));
    _mm512_storeu_si512(o, _mm512_maskz_compress_epi64(m, _mm512_loadu_si512(r + 8 * q)));
    o += __builtin_popcount(m);
  }
}
__attribute__((target("avx512f"))) static void compress_word_4(const uint32_t *r, uint64_t keep,
                                                                uint32_t *o) {
  for (int q = 0; q < 4; q++) {
    __mmask16 m = (__mmask16)(keep >> (16 * q));
    _mm512_storeu_si512(o, _mm512_maskz_compress_epi32(m, _mm512_loadu_si512(r + 16 * q)));
    o += __builtin_popcount(m);
  }
}
#define HAS_AVX512() zb__has_avx512f()
#define COMPRESS_WORD_8(r, keep, o) compress_word_8(r, keep, o)
#define COMPRESS_WORD_4(r, keep, o) compress_word_4(r, keep, o)
#else
#define COMPRESS(...) compress_rows(__VA_ARGS__)
#define HAS_AVX512() false
#define COMPRESS_WORD_8(r, keep, o) ((void)(r), (void)(keep), (void)(o))
#define COMPRESS_WORD_4(r, keep, o) ((void)(r), (void)(keep), (void)(o))
#endif

/* The kept rows of [start, start + n) of a string column (offsets so,
 * chars cs of cs_size bytes): bytes appended at dst + cpos (room up to
 * cend), each row's end offset at ends[*pos], *pos advanced.  Returns the
 * new cpos.  A word of the mask that keeps every row shifts its offsets and
 * copies its bytes at once.  Otherwise each kept row is visited; short
 * strings move as one 16-byte copy where both the source and the output
 * have room for it, and both the offsets and the bytes are prefetched
 * STRING_PREFETCH_WORDS words ahead (10^7 rows of 7 bytes, half kept at
 * random: 2.25 -> 2.0 ns per kept row on one thread; 8 words gained about
 * as much, 1, 2 and 4 less; runs of 10^5 kept rows: 5.2 -> 4.6 ms on two).
 * The loop is bound by its instructions per kept row, so where the whole
 * morsel has that room (every morsel but a column's last, mostly) a copy
 * of the loop without the two room tests runs (one thread, 10^7 rows:
 * 1.50 -> 1.40 ns per kept row; 2 * 10^5 rows, in cache: 1.50 -> 1.10).
 * filter_string_rows picks the copy; this body is inlined into both, so
 * each loop keeps everything in registers. */
#define STRING_PREFETCH_WORDS 16
static inline __attribute__((always_inline)) int64_t string_rows(
    const zb_column *mask, int64_t start, int64_t n, const int64_t *restrict so,
    const char *restrict cs, int64_t cs_size, char *restrict dst, int64_t cpos, int64_t cend,
    int64_t *restrict ends, int64_t *pos_io, bool room_checks) {
  int64_t pos = *pos_io, src_room = cs_size - 16, dst_room = cend - 16;
  for (int64_t k = 0; k < n; k += 64) {
    int mm = (int)ZB_MIN((int64_t)64, n - k);
    int64_t row = start + k;
    uint64_t keep = keep_word(mask, row, mm);
    if (keep == 0) continue;
    if (keep == (mm == 64 ? ~UINT64_C(0) : (UINT64_C(1) << mm) - 1)) {
      int64_t base = cpos - so[row], bytes = so[row + mm] - so[row];
      for (int q = 0; q < mm; q++) ends[pos + q] = so[row + q + 1] + base;
      if (bytes > 0) memcpy(dst + cpos, cs + so[row], (size_t)bytes);
      cpos += bytes;
      pos += mm;
      continue;
    }
    if (k + 128 * STRING_PREFETCH_WORDS < n) { /* the offsets twice as far */
      const char *po = (const char *)(so + row + 128 * STRING_PREFETCH_WORDS);
      const char *pc = cs + so[row + 64 * STRING_PREFETCH_WORDS];
      for (int l = 0; l < 8; l++) {
        __builtin_prefetch(po + 64 * l);
        __builtin_prefetch(pc + 64 * l);
      }
    }
    const int64_t *o = so + row;
    for (; keep != 0; keep &= keep - 1) {
      int64_t t = (int64_t)__builtin_ctzll(keep);
      int64_t s0 = o[t], len = o[t + 1] - s0;
      if (len <= 16 && (!room_checks || (s0 <= src_room && cpos <= dst_room)))
        memcpy(dst + cpos, cs + s0, 16);
      else if (len <= 16)
        zb__copy_short(dst + cpos, cs + s0, len);
      else
        memcpy(dst + cpos, cs + s0, (size_t)len);
      cpos += len;
      ends[pos++] = cpos;
    }
  }
  *pos_io = pos;
  return cpos;
}

__attribute__((noinline)) static int64_t filter_string_rows(
    const zb_column *mask, int64_t start, int64_t n, const int64_t *restrict so,
    const char *restrict cs, int64_t cs_size, char *restrict dst, int64_t cpos, int64_t cend,
    int64_t *restrict ends, int64_t *pos_io) {
  int64_t last = so[start + n];
  if (last + 16 <= cs_size && cpos + (last - so[start]) + 16 <= cend)
    return string_rows(mask, start, n, so, cs, cs_size, dst, cpos, cend, ends, pos_io, false);
  return string_rows(mask, start, n, so, cs, cs_size, dst, cpos, cend, ends, pos_io, true);
}

static void filter_write(void *ctx, int64_t task, int worker) {
  filter_job *j = (filter_job *)ctx;
  const zb_column *c = j->c;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, c->length - start);
  int64_t pos = j->count[task];
  int64_t pend = task + 1 < j->n_morsels ? j->count[task + 1] : j->out->length;
  if (pend == pos && c->type != ZB_STRING) return;
  int64_t lo = pos >> 6, hi = pend > pos ? (pend - 1) >> 6 : lo;
  bit_writer vb = {j->out->validity ? (uint64_t *)j->out->validity->data : NULL, lo, 0, lo, hi};
  bit_writer db = {(uint64_t *)j->out->data->data, lo, 0, lo, hi};
  int w = zb_type_width(c->type);
  const char *src = (const char *)c->data->data + c->offset * (c->type == ZB_BOOL ? 0 : w);
  char *dst = (char *)j->out->data->data;
  int64_t *oo = (int64_t *)j->out->data->data;
  char *ch = j->out->chars ? (char *)j->out->chars->data : NULL;
  /* Validity, then values: one loop per value kind (no per-row switch). */
  if (vb.words != NULL) COMPRESS(j->mask, c, true, start, n, &vb, pos);
  /* Fixed width, per 64-row word of the mask: none kept, skipped; all
   * kept, one copy; at most 16 kept, a visit of the kept rows; more, every
   * row stored at the next output position, which advances only past kept
   * rows (no branch per row; a skipped row's store is overwritten by the
   * next kept one).  That last loop runs all 64 rows, unrolled, where this
   * morsel's output has room for the stores past its last kept row, and
   * else stops at the word's last kept row, so nothing lands past this
   * morsel's output.  With AVX-512, 4- and 8-byte values take the first
   * case's room with vector compress instead (10^7 int64 rows, half kept:
   * 3.5 -> 3.1 ms on one thread; three such columns on two threads 7.7 ->
   * 6.0 ms).  Room for 64 outputs also means the word is whole: only a
   * morsel's last word can be partial, and it keeps fewer. */
#define FILTER_FIXED(T)                                                         \
  {                                                                             \
    const T *s_ = (const T *)src;                                               \
    T *d_ = (T *)dst;                                                           \
    for (int64_t k = 0; k < n; k += 64) {                                       \
      int mm = (int)ZB_MIN((int64_t)64, n - k);                                 \
      int64_t row = start + k;                                                  \
      uint64_t keep = keep_word(j->mask, row, mm);                              \
      if (keep == 0) continue;                                                  \
      if (keep == ~UINT64_C(0)) {                                               \
        memcpy(d_ + pos, s_ + row, 64 * sizeof(T));                             \
        pos += 64;                                                              \
        continue;                                                               \
      }                                                                         \
      if (__builtin_popcountll(keep) <= 16) { /* sparse: visit kept rows */    \
        T *o_ = d_ + pos;                                                       \
        const T *r_ = s_ + row;                                                 \
        pos += __builtin_popcountll(keep);                                      \
        for (; keep != 0; keep &= keep - 1) *o_++ = r_[__builtin_ctzll(keep)];  \
        continue;                                                               \
      }                                                                         \
      if (pos + 64 <= pend) { /* room for the stores past the kept rows */      \
        if (avx512 && sizeof(T) >= 4) {                                         \
          if (sizeof(T) == 8)                                                   \
            COMPRESS_WORD_8((const uint64_t *)(s_ + row), keep, (uint64_t *)(d_ + pos)); \
          else                                                                  \
            COMPRESS_WORD_4((const uint32_t *)(s_ + row), keep, (uint32_t *)(d_ + pos)); \
          pos += __builtin_popcountll(keep);                                    \
          continue;                                                             \
        }                                                                       \
        T *o_ = d_ + pos;                                                       \
        const T *r_ = s_ + row;                                                 \
        _Pragma("GCC unroll 64")                                                \
        for (int q = 0; q < 64; q++) {                                          \
          *o_ = r_[q];                                                          \
          o_ += (keep >> q) & 1;                                                \
        }                                                                       \
        pos = o_ - d_;                                                          \
        continue;                                                               \
      }                                                                         \
      int last = 63 - __builtin_clzll(keep);                                    \
      for (int q = 0; q <= last; q++) {                                         \
        d_[pos] = s_[row + q];                                                  \
        pos += (int64_t)((keep >> q) & 1);                                      \
      }                                                                         \
    }                                                                           \
  }
  bool avx512 = HAS_AVX512();
  if (c->type == ZB_BOOL) {
    pos = COMPRESS(j->mask, c, false, start, n, &db, pos);
  } else if (c->type == ZB_STRING) {
    const int64_t *so = (const int64_t *)c->data->data + c->offset;
    const char *cs = (const char *)c->chars->data;
    int64_t cs_size = c->chars->size;
    int64_t cpos = 0, cend, p0 = pos;
    char *buf = NULL, *dst_chars = ch;
    /* Bytes go straight to the output where the morsel before has already
     * published where its bytes end (one thread, or a frame's other columns
     * ran meanwhile), and else to a scratch buffer that is copied there
     * once that is known (its copy and the offsets' shift cost 1.92 against
     * 1.50 ns per kept row on one thread).  A direct morsel's 16-byte
     * copies may run past its bytes into the next morsel's, which are
     * written only after this one publishes its end. */
    int64_t prev = task > 0 ? __atomic_load_n(&j->bytes[task - 1], __ATOMIC_ACQUIRE) : 0;
    bool direct = !j->bytes_known && prev >= 0;
    if (!j->bytes_known && !direct)
      buf = scratch_get(j->scratch, worker, so[start + n] - so[start] + 16);
    if (direct) {
      cpos = prev;
      cend = j->out->chars->size;
    } else if (buf != NULL) {
      dst_chars = buf;
      cend = so[start + n] - so[start] + 16;
    } else if (j->bytes_known) {
      cpos = task > 0 ? j->bytes[task - 1] : 0;
      cend = j->bytes[task];
    } else {
      cend = morsel_bytes(j, start, n);
      cpos = chain_bytes(j, task, cend);
      cend += cpos;
    }
    cpos = filter_string_rows(j->mask, start, n, so, cs, cs_size, dst_chars, cpos, cend,
                              oo + 1, &pos);
    if (direct) {
      chain_bytes(j, task, cpos - prev);
    } else if (buf != NULL) { /* now place the bytes and shift the offsets */
      int64_t base = chain_bytes(j, task, cpos);
      memcpy(ch + base, buf, (size_t)cpos);
      if (base != 0)
        for (int64_t k = p0 + 1; k <= pos; k++) oo[k] += base;
    }
  } else if (w == 1) {
    FILTER_FIXED(uint8_t)
  } else if (w == 2) {
    FILTER_FIXED(uint16_t)
  } else if (w == 4) {
    FILTER_FIXED(uint32_t)
  } else {
    FILTER_FIXED(uint64_t)
  }
#undef FILTER_FIXED
  if (vb.words) bw_flush(&vb);
  if (c->type == ZB_BOOL) bw_flush(&db);
}

/* Every (column, morsel) pair of a frame filter in one parallel loop,
 * morsel-major: the threads work on different columns of nearby morsels,
 * so a string column's morsel (bound by the latency of its offsets and
 * bytes) runs beside a fixed-width one (bound by bandwidth), and the mask
 * words are read while cached (the four columns of bench/micro.py's frame:
 * 15.2 -> 14.7 ms).  A string morsel's predecessor was claimed earlier, so
 * it is running or done when the morsel waits for it. */
typedef struct filter_many {
  filter_job *jobs;
  int64_t n_cols, nm;
} filter_many;

static void filter_write_task(void *ctx, int64_t task, int worker) {
  filter_many *f = (filter_many *)ctx;
  filter_write(&f->jobs[task % f->n_cols], task / f->n_cols, worker);
}

/* A string column's output chars are allocated at the input's byte range
 * (an upper bound, then shrunk to what was written) when at least a quarter
 * of the rows are kept or the range is small; otherwise a first pass finds
 * the exact bytes, so a filter that keeps little of a large column never
 * asks for the whole column's bytes. */
static void bytes_task(void *ctx, int64_t task, int worker) {
  (void)worker;
  filter_many *f = (filter_many *)ctx;
  filter_job *j = &f->jobs[task / f->nm];
  int64_t m = task % f->nm, start = m * ZB_MORSEL_ROWS;
  if (j->c->type == ZB_STRING && j->bytes_known)
    chain_bytes(j, m,
                morsel_bytes(j, start, ZB_MIN((int64_t)ZB_MORSEL_ROWS, j->c->length - start)));
}

zb_status zb__cpu_filter_columns(int64_t n_cols, const zb_column *const *cols,
                                 const zb_column *mask, zb_column **outs, zb_error *err) {
  int64_t n = mask->length, nm = zb__morsels(n), m1 = nm > 0 ? nm : 1;
  for (int64_t c = 0; c < n_cols; c++) outs[c] = NULL;
  /* count: slot 0 = the kept rows per morsel (shared by every column);
   * slot c + 1 = string column c's chars ends per morsel */
  int64_t *count = (int64_t *)zb_malloc((size_t)(n_cols + 1) * (size_t)m1 * sizeof(int64_t));
  filter_job *jobs = (filter_job *)zb_calloc((size_t)(n_cols > 0 ? n_cols : 1), sizeof(filter_job));
  filter_scratch sc = {NULL, NULL, 0};
  zb_status st = ZB_OK;
  if (count == NULL || jobs == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (filter)");
    goto done;
  }
  /* 1. kept rows per morsel, then each morsel's output start */
  filter_job mj = {mask, mask, NULL, count, NULL, nm, false, NULL};
  st = zb_parallel_for(nm, filter_count, &mj, err);
  if (st != ZB_OK) goto done;
  int64_t total = 0;
  for (int64_t m = 0; m < nm; m++) {
    int64_t k = count[m];
    count[m] = total;
    total += k;
  }
  if (total == n) { /* every row kept: the columns themselves (immutable) */
    for (int64_t c = 0; c < n_cols; c++) outs[c] = zb_column_retain((zb_column *)cols[c]);
    goto done;
  }
  /* 2. exact string bytes where the upper bound would be wasteful */
  bool exact = false;
  for (int64_t c = 0; c < n_cols; c++) {
    const zb_column *col = cols[c];
    int64_t *ends = count + (size_t)(c + 1) * m1;
    jobs[c] = (filter_job){col, mask, NULL, count, ends, nm, false, NULL};
    if (col->type != ZB_STRING) continue;
    for (int64_t m = 0; m < nm; m++) ends[m] = -1;
    const int64_t *so = (const int64_t *)col->data->data + col->offset;
    jobs[c].bytes_known = total < n / 4 && so[n] - so[0] > ((int64_t)4 << 20);
    exact |= jobs[c].bytes_known;
  }
  filter_many fm = {jobs, n_cols, nm};
  sc.n = zb_get_num_threads();
  sc.buf = (char **)zb_calloc((size_t)sc.n, sizeof(char *));
  sc.cap = (int64_t *)zb_calloc((size_t)sc.n, sizeof(int64_t));
  if (sc.buf == NULL || sc.cap == NULL) { /* then copies go straight to the output */
    zb_free(sc.buf);
    zb_free(sc.cap);
    sc = (filter_scratch){NULL, NULL, 0};
  }
  for (int64_t c = 0; c < n_cols; c++) jobs[c].scratch = &sc;
  if (exact) {
    st = zb_parallel_for(n_cols * nm, bytes_task, &fm, err);
    if (st != ZB_OK) goto done;
  }
  /* 3. outputs, then every column's morsels written in one loop */
  for (int64_t c = 0; c < n_cols && st == ZB_OK; c++) {
    const zb_column *col = cols[c];
    int64_t chars = 0;
    if (col->type == ZB_STRING) {
      const int64_t *so = (const int64_t *)col->data->data + col->offset;
      chars = jobs[c].bytes_known ? (nm > 0 ? jobs[c].bytes[nm - 1] : 0) : so[n] - so[0];
    }
    st = zb__new_like(col, col->type, total, false, chars, &outs[c], err);
    if (st != ZB_OK) break;
    /* Bitmaps written by atomic OR start zeroed; whole words are touched. */
    int64_t bitmap_bytes = (total + 63) / 64 * 8;
    if (col->type == ZB_BOOL) memset(outs[c]->data->data, 0, (size_t)bitmap_bytes);
    if (col->validity != NULL) st = zb_buffer_new_zeroed(ZB_CPU, bitmap_bytes, &outs[c]->validity, err);
    if (col->type == ZB_STRING) ((int64_t *)outs[c]->data->data)[0] = 0;
    jobs[c].out = outs[c];
  }
  if (st != ZB_OK) goto done;
  st = zb_parallel_for(n_cols * nm, filter_write_task, &fm, err);
  for (int64_t c = 0; c < n_cols && st == ZB_OK; c++) {
    if (cols[c]->type == ZB_STRING && !jobs[c].bytes_known)
      zb__buffer_shrink(outs[c]->chars, nm > 0 ? jobs[c].bytes[nm - 1] : 0);
    zb_column_recount_nulls(outs[c]);
  }
done:
  for (int i = 0; i < sc.n; i++) zb_free(sc.buf[i]);
  zb_free(sc.buf);
  zb_free(sc.cap);
  zb_free(count);
  zb_free(jobs);
  if (st != ZB_OK) release_outputs(outs, n_cols);
  return st;
}

zb_status zb__cpu_filter(const zb_column *col, const zb_column *mask, zb_column **out,
                         zb_error *err) {
  *out = NULL;
  return zb__cpu_filter_columns(1, &col, mask, out, err);
}

/* ---- take ---------------------------------------------------------------- */

typedef struct take_job {
  const zb_column *c, *idx;
  zb_column *out;
} take_job;

static void take_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  take_job *j = (take_job *)ctx;
  const zb_column *c = j->c;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, j->idx->length - start);
  const int64_t *ix = (const int64_t *)j->idx->data->data + j->idx->offset;
  int w = zb_type_width(c->type);
  if (j->out->validity == NULL) { /* no null index and no null value: a plain gather */
    const char *src = (const char *)c->data->data + c->offset * (c->type == ZB_BOOL ? 0 : w);
    char *dst = (char *)j->out->data->data;
    if (c->type == ZB_BOOL) {
      for (int64_t k = 0; k < n; k += 64) {
        int mm = (int)ZB_MIN((int64_t)64, n - k);
        uint64_t bits = 0;
        for (int q = 0; q < mm; q++)
          bits |= (uint64_t)zb_bit_get((const uint8_t *)src, c->offset + ix[start + k + q]) << q;
        zb__store_bits((uint8_t *)dst, start + k, bits, mm);
      }
      return;
    }
/* Random indices (a join's other side) miss the cache on every row: each
 * load is prefetched 64 rows ahead (10^7 int64 values, 9 * 10^6 random
 * indices: 41 -> 36 ms). */
#define GATHER(T)                                                               \
  {                                                                             \
    int64_t e = start + n, pe = ZB_MAX(start, e - 64);                          \
    for (int64_t p = start; p < pe; p++) {                                      \
      __builtin_prefetch((const T *)src + ix[p + 64]);                          \
      ((T *)dst)[p] = ((const T *)src)[ix[p]];                                  \
    }                                                                           \
    for (int64_t p = pe; p < e; p++) ((T *)dst)[p] = ((const T *)src)[ix[p]];   \
  }
    switch (w) {
      case 1: GATHER(uint8_t) break;
      case 2: GATHER(uint16_t) break;
      case 4: GATHER(uint32_t) break;
      default: GATHER(uint64_t) break;
    }
#undef GATHER
    return;
  }
  uint8_t *ov = (uint8_t *)j->out->validity->data;
  for (int64_t k = 0; k < n; k += 64) {
    int mm = (int)ZB_MIN((int64_t)64, n - k);
    int64_t row = start + k;
    uint64_t iv = zb__valid_word(j->idx, row, mm), v = 0, bits = 0;
    for (int q = 0; q < mm; q++) {
      int64_t i = ((iv >> q) & 1) ? ix[row + q] : 0;
      bool ok = ((iv >> q) & 1) && zb_column_is_valid(c, i);
      v |= (uint64_t)ok << q;
      if (c->type == ZB_BOOL)
        bits |= (uint64_t)(ok && zb_bit_get((const uint8_t *)c->data->data, c->offset + i)) << q;
    }
    zb__store_bits(ov, row, v, mm);
    if (c->type == ZB_BOOL) {
      zb__store_bits((uint8_t *)j->out->data->data, row, bits, mm);
      continue;
    }
    const char *src = (const char *)c->data->data + c->offset * w;
    char *dst = (char *)j->out->data->data;
#define TAKE_LOOP(T)                                                            \
  for (int q = 0; q < mm; q++) {                                                \
    int64_t p = row + q, i = ((iv >> q) & 1) ? ix[p] : 0;                       \
    ((T *)dst)[p] = ((const T *)src)[i];                                        \
  }
    switch (w) {
      case 1: TAKE_LOOP(uint8_t) break;
      case 2: TAKE_LOOP(uint16_t) break;
      case 4: TAKE_LOOP(uint32_t) break;
      default: TAKE_LOOP(uint64_t) break;
    }
#undef TAKE_LOOP
  }
}

/* Validity of take: index valid and source row valid. */
static void take_valid_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  take_job *j = (take_job *)ctx;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, j->idx->length - start);
  const int64_t *ix = (const int64_t *)j->idx->data->data + j->idx->offset;
  for (int64_t k = 0; k < n; k += 64) {
    int mm = (int)ZB_MIN((int64_t)64, n - k);
    uint64_t iv = zb__valid_word(j->idx, start + k, mm), v = 0;
    for (int q = 0; q < mm; q++)
      v |= (uint64_t)(((iv >> q) & 1) && zb_column_is_valid(j->c, ix[start + k + q])) << q;
    zb__store_bits((uint8_t *)j->out->validity->data, start + k, v, mm);
  }
}

/* Every (column, morsel) pair of a multi-column take in one parallel
 * loop, morsel-major: the morsel's indices are read from memory once and
 * then from cache for the other columns (a join's output: seven columns of
 * 9 * 10^6 rows taken by the same indices). */
typedef struct take_many {
  take_job *jobs;
  int64_t n_jobs;
} take_many;

static void take_many_task(void *ctx, int64_t task, int worker) {
  take_many *t = (take_many *)ctx;
  take_morsel(&t->jobs[task % t->n_jobs], task / t->n_jobs, worker);
}

zb_status zb__cpu_take_columns(int64_t n_cols, const zb_column *const *cols,
                               const zb_column *indices, zb_column **outs, int64_t *failed,
                               zb_error *err) {
  int64_t n = indices->length;
  *failed = -1;
  for (int64_t c = 0; c < n_cols; c++) outs[c] = NULL;
  take_job *jobs = (take_job *)zb_calloc((size_t)ZB_MAX(n_cols, 1), sizeof(take_job));
  if (jobs == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (take)");
  int64_t nj = 0;
  zb_status st = ZB_OK;
  for (int64_t c = 0; c < n_cols && st == ZB_OK; c++) {
    const zb_column *col = cols[c];
    if (col->type == ZB_STRING) { /* strings gather in passes of their own */
      st = zb__cpu_take(col, indices, &outs[c], err);
    } else {
      bool nulls = indices->null_count > 0 || col->null_count > 0;
      st = zb__new_like(col, col->type, n, nulls, 0, &outs[c], err);
      if (st == ZB_OK) jobs[nj++] = (take_job){col, indices, outs[c]};
    }
    if (st != ZB_OK) *failed = c;
  }
  if (st == ZB_OK && nj > 0) {
    take_many tm = {jobs, nj};
    st = zb_parallel_for(zb__morsels(n) * nj, take_many_task, &tm, err);
  }
  for (int64_t x = 0; x < nj && st == ZB_OK; x++) zb_column_recount_nulls(jobs[x].out);
  zb_free(jobs);
  if (st != ZB_OK) release_outputs(outs, n_cols);
  return st;
}

zb_status zb__cpu_take(const zb_column *col, const zb_column *indices, zb_column **out,
                       zb_error *err) {
  *out = NULL;
  int64_t n = indices->length;
  zb_column *o = NULL;
  zb_status st;
  bool nulls = indices->null_count > 0 || col->null_count > 0;
  if (col->type == ZB_STRING) {
    /* Null indices may hold anything: the gather reads no index of a row
     * that `indices` marks null (it gets ""), and prefetches only indices
     * inside the column. */
    const int64_t *ix = (const int64_t *)indices->data->data + indices->offset;
    st = zb__gather_strings(col, NULL, ix, n, indices->validity != NULL ? indices : NULL, &o,
                            err);
    if (st != ZB_OK) return st;
    if (nulls) {
      st = zb_buffer_new(ZB_CPU, (n + 7) / 8, &o->validity, err);
      take_job j = {col, indices, o};
      if (st == ZB_OK) st = zb_parallel_for(zb__morsels(n), take_valid_morsel, &j, err);
    }
  } else {
    st = zb__new_like(col, col->type, n, nulls, 0, &o, err);
    if (st != ZB_OK) return st;
    take_job j = {col, indices, o};
    st = zb_parallel_for(zb__morsels(n), take_morsel, &j, err);
  }
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  zb_column_recount_nulls(o);
  *out = o;
  return ZB_OK;
}
