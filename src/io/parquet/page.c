/*
 * page.c -- decoding one Parquet column chunk: its pages, one after the
 * other, into the rows of its row group in the result's buffers.
 *
 * A chunk is an optional dictionary page followed by data pages (v1 or
 * v2).  For each data page: decompress (snappy / zstd through codecs.h; an
 * uncompressed page is read in place), decode the definition levels
 * (RLE/bit-packed hybrid) into the validity bytes, decode the page's
 * non-null values compacted at the front of the page's rows, then spread
 * them to their rows (from the back, in place) leaving zeros at the nulls.
 * Strings are appended to the chunk's own chars buffer; the offsets are
 * relative to it until read.c concatenates the chunks.  A list chunk
 * (max_rep > 0) has repetition levels before its definition levels; both
 * are kept per slot (j->reps, j->defs) and a slot is valid when its
 * definition level is the maximum (it holds a value).
 *
 * Every count and length comes from the file and is checked against the
 * bytes that hold it before it is used: a page against its chunk, the
 * chunk against the file, a value count against the rows left, a string
 * length against the page, a dictionary index against the dictionary.
 */
#include <string.h>

#include "io/codecs.h"
#include "io/parquet/parquet.h"
#include "io/text_values.h"

/* Bytes readable past a string dictionary's last value. */
#define DICT_SLACK 16

typedef struct dict {
  bool have;
  int64_t n;
  uint8_t *fixed;        /* n * out_width bytes (FIXED) or n bytes (BOOL) */
  int64_t *off;          /* STRING: n + 1 offsets into chars */
  const uint8_t *chars;
  int64_t same_len;      /* STRING: the length every value has, or -1 */
  int64_t bytes;         /* STRING: the values' characters */
  uint8_t *keep;         /* the decompressed page chars point into */
} dict;

static void dict_free(dict *d) {
  zb_free(d->fixed);
  zb_free(d->off);
  zb_free(d->keep);
  memset(d, 0, sizeof *d);
}

/* A chunk of dictionary-encoded strings whose characters are written
 * later (zb__pq_gather_strings), straight into the column's buffer once
 * every chunk's size is known: the chunk keeps one index a value (1, 2 or
 * 4 bytes, as its dictionary's size needs) where it would keep its
 * characters, which the join would then copy again.  A chunk that turns
 * to another encoding part way (a writer's dictionary grew too large)
 * writes its characters so far at that page (undefer). */
typedef struct pq_deferred {
  dict d;        /* moved here when the chunk's pages are done */
  uint8_t *idx;  /* one index per value so far */
  int w;         /* bytes per index */
  int64_t nn;    /* indices kept */
  int64_t total; /* their characters */
} pq_deferred;

void zb__pq_deferred_free(pq_job *j) {
  pq_deferred *df = j->deferred;
  if (df == NULL) return;
  dict_free(&df->d);
  zb_free(df->idx);
  zb_free(df);
  j->deferred = NULL;
}

/* Rows [0, n) with dictionary d and one index (w bytes: 1, 2 or 4) a
 * present row: each value's characters at dst + end on (short ones in
 * 16-byte moves, none writing at or past limit), offsets[r] the end of row
 * r's value.  Returns the end. */
static int64_t gather_rows(const uint8_t *idx, int w, const dict *d, const uint8_t *valid,
                           int64_t *offsets, int64_t n, uint8_t *dst, int64_t end,
                           int64_t limit) {
  const int64_t *off = d->off;
  const uint8_t *dc = d->chars;
  int64_t k = 0, r = 0;
  const int64_t L = d->same_len;
  if (valid == NULL && w == 1 && L > 0 && L <= DICT_SLACK) {
    /* no nulls, byte indices, values of one short length: a 16-byte move
     * and a known offset a row, up to where a move would pass limit */
    int64_t safe = limit - end >= DICT_SLACK ? (limit - end - DICT_SLACK) / L + 1 : 0;
    if (safe > n) safe = n;
    for (; r < safe; r++) {
      memcpy(dst + end, dc + off[2 * idx[r]], DICT_SLACK);
      end += L;
      offsets[r] = end;
    }
    k = r;
  }
  for (; r < n; r++) {
    if (valid == NULL || valid[r]) {
      uint32_t t = w == 1   ? idx[k]
                   : w == 2 ? ((const uint16_t *)idx)[k]
                            : ((const uint32_t *)idx)[k];
      k++;
      int64_t l = off[2 * t + 1];
      const uint8_t *src = dc + off[2 * t];
      if (l <= DICT_SLACK && end + DICT_SLACK <= limit)
        memcpy(dst + end, src, DICT_SLACK); /* d->chars has the slack after it */
      else
        memcpy(dst + end, src, (size_t)l);
      end += l;
    }
    offsets[r] = end;
  }
  return end;
}

void zb__pq_gather_strings(pq_job *j, uint8_t *chars) {
  pq_deferred *df = j->deferred;
  if (df == NULL) return;
  gather_rows(df->idx, df->w, &df->d, j->nulls > 0 ? j->valid : NULL, j->offsets, j->rows, chars,
              j->chars_base, j->chars_base + j->chars_len);
  zb__pq_deferred_free(j);
}

void zb__pq_scratch_free(pq_scratch *s) {
  zb_free(s->page);
  zb_free(s->u32);
  memset(s, 0, sizeof *s);
}

static uint32_t *scratch_u32(pq_scratch *s, int64_t n) {
  if (n <= s->u32_cap && s->u32 != NULL) return s->u32;
  zb_free(s->u32);
  s->u32_cap = 0;
  s->u32 = (uint32_t *)zb_malloc((size_t)(n > 0 ? n : 1) * sizeof(uint32_t));
  if (s->u32 != NULL) s->u32_cap = n;
  return s->u32;
}

static inline uint32_t le32(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* ---- RLE / bit-packed hybrid ------------------------------------------- */

/* Decode n values of bit width w (0..32) from p[0, len) into out.  Returns
 * the values decoded (< n when the data ends early) or -1 when it is
 * corrupt (a run value wider than w, a header that does not fit). */
#define RLE_DECODER(NAME, T) \
static int64_t NAME(const uint8_t *p, int64_t len, int w, T *out, int64_t n) { \
  const uint8_t *end = p + len; \
  int64_t got = 0; \
  uint32_t mask = w >= 32 ? 0xffffffffu : ((1u << w) - 1u); \
  while (got < n && p < end) { \
    uint64_t h = 0; \
    int shift = 0; \
    for (;;) { \
      if (p >= end || shift > 35) return -1; \
      uint8_t b = *p++; \
      h |= (uint64_t)(b & 0x7f) << shift; \
      shift += 7; \
      if (!(b & 0x80)) break; \
    } \
    if (h & 1) { /* bit-packed: (h >> 1) groups of 8 values */ \
      uint64_t groups = h >> 1; \
      int64_t avail = end - p; \
      uint64_t bytes = groups * (uint64_t)w; \
      if (groups > ((uint64_t)1 << 40) || bytes > (uint64_t)avail) { \
        /* the last run may be cut at the end of the data: take what is there */ \
        bytes = (uint64_t)avail; \
      } \
      int64_t count = w == 0 ? (int64_t)(groups * 8) : (int64_t)(bytes * 8 / (uint64_t)w); \
      if (count > (int64_t)(groups * 8)) count = (int64_t)(groups * 8); \
      int64_t take = count < n - got ? count : n - got; \
      if (w == 0) { \
        memset(out + got, 0, (size_t)take * sizeof(T)); \
      } else { \
        /* values whose 8 bytes from their first byte lie in the data: \
         * one unaligned load each; the rest a byte at a time */ \
        int64_t i = 0, fast = end - p >= 8 ? ((end - p - 8) * 8) / w : -1; \
        int64_t nfast = fast + 1 < take ? fast + 1 : take; \
        if (w <= 8) { /* whole groups of 8 values in one 8-byte load each */ \
          int64_t g8 = end - p >= 8 ? (end - p - 8) / w + 1 : 0; \
          if (g8 > take / 8) g8 = take / 8; \
          for (int64_t g = 0; g < g8; g++) { \
            uint64_t v; \
            memcpy(&v, p + g * w, 8); \
            T *o = out + got + 8 * g; \
            for (int b = 0; b < 8; b++) o[b] = (T)((uint32_t)(v >> (b * w)) & mask); \
          } \
          i = g8 * 8; \
        } \
        for (; i < nfast; i++) { \
          uint64_t pos = (uint64_t)i * (uint64_t)w, v; \
          memcpy(&v, p + (pos >> 3), 8); \
          out[got + i] = (T)((uint32_t)(v >> (pos & 7)) & mask); \
        } \
        uint64_t pos0 = (uint64_t)i * (uint64_t)w; \
        const uint8_t *q = p + (pos0 >> 3); \
        uint64_t acc = 0; \
        int bits = 0; \
        if (i < take && (pos0 & 7)) { \
          acc = (uint64_t)(*q++) >> (pos0 & 7); \
          bits = 8 - (int)(pos0 & 7); \
        } \
        for (; i < take; i++) { \
          while (bits < w) { \
            acc |= (uint64_t)(*q++) << bits; \
            bits += 8; \
          } \
          out[got + i] = (T)((uint32_t)acc & mask); \
          acc >>= w; \
          bits -= w; \
        } \
      } \
      got += take; \
      p += bytes; \
    } else { /* a run of one value */ \
      uint64_t count = h >> 1; \
      int vb = (w + 7) / 8; \
      if (end - p < vb) return -1; \
      uint32_t v = 0; \
      for (int i = 0; i < vb; i++) v |= (uint32_t)p[i] << (8 * i); \
      p += vb; \
      if ((v & ~mask) != 0) return -1; \
      int64_t take = count < (uint64_t)(n - got) ? (int64_t)count : n - got; \
      if (sizeof(T) == 1) \
        memset(out + got, (int)v, (size_t)take); \
      else \
        for (int64_t i = 0; i < take; i++) out[got + i] = (T)v; \
      got += take; \
    } \
  } \
  return got; \
}
RLE_DECODER(rle_decode, uint32_t)
/* The same into bytes, for definition levels (w = 1) and booleans; a run
 * value must fit w bits, so it fits a byte. */
RLE_DECODER(rle_decode_u8, uint8_t)

/* ---- values ------------------------------------------------------------ */

/* Store nn physical values (width pw) converted to width ow at dst. */
static void store_fixed(uint8_t *dst, int ow, const uint8_t *src, int pw, int64_t nn) {
  if (ow == pw) {
    memcpy(dst, src, (size_t)(nn * pw));
  } else if (pw == 4 && ow == 2) {
    for (int64_t i = 0; i < nn; i++) {
      int16_t v = (int16_t)(int32_t)le32(src + 4 * i);
      memcpy(dst + 2 * i, &v, 2);
    }
  } else if (pw == 4 && ow == 1) {
    for (int64_t i = 0; i < nn; i++) dst[i] = (uint8_t)le32(src + 4 * i);
  } else if (pw == 12 && ow == 8) {
    /* INT96 timestamps (Impala, Spark): nanoseconds of the day, then the
     * Julian day; 2440588 is 1970-01-01.  Wrapping arithmetic, as pyarrow. */
    for (int64_t i = 0; i < nn; i++) {
      uint64_t ns;
      memcpy(&ns, src + 12 * i, 8);
      uint64_t day = le32(src + 12 * i + 8);
      uint64_t v = (day - 2440588u) * UINT64_C(86400000000000) + ns;
      memcpy(dst + 8 * i, &v, 8);
    }
  }
}

/* Spread nn compacted values of width w over the n rows whose valid bytes
 * are given (from the back, in place); nulls become zeros. */
#define SPREAD(T)                                                       \
  static void spread_##T(T *v, const uint8_t *valid, int64_t n, int64_t nn) { \
    int64_t k = nn;                                                     \
    for (int64_t i = n - 1; i >= 0 && k < i + 1; i--) {                 \
      if (valid[i])                                                     \
        v[i] = v[--k];                                                  \
      else                                                              \
        v[i] = 0;                                                       \
    }                                                                   \
  }
SPREAD(uint8_t)
SPREAD(uint16_t)
SPREAD(uint32_t)
SPREAD(uint64_t)

static void spread(uint8_t *v, int w, const uint8_t *valid, int64_t n, int64_t nn) {
  if (nn == n) return;
  switch (w) {
    case 1: spread_uint8_t(v, valid, n, nn); break;
    case 2: spread_uint16_t((uint16_t *)v, valid, n, nn); break;
    case 4: spread_uint32_t((uint32_t *)v, valid, n, nn); break;
    default: spread_uint64_t((uint64_t *)v, valid, n, nn); break;
  }
}

static int phys_width_of(int32_t phys) {
  return phys == PQ_INT32 || phys == PQ_FLOAT    ? 4
         : phys == PQ_INT64 || phys == PQ_DOUBLE ? 8
         : phys == PQ_INT96                      ? 12
                                                 : 0;
}

/* Bytes of one PLAIN value of the job's column (read.c admits
 * FIXED_LEN_BYTE_ARRAY only with a type_length of 1..16). */
static int phys_width(const pq_job *j) {
  return j->phys == PQ_FIXED_LEN_BYTE_ARRAY ? j->type_length : phys_width_of(j->phys);
}

/* 10^scale as a double (exact up to 10^22). */
static double pow10_of(int32_t scale) {
  double p = 1.0;
  for (int32_t i = 0; i < scale; i++) p *= 10.0;
  return p;
}

/* IEEE half to single precision. */
static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff, bits;
  if (e == 0x1f) {
    bits = sign | 0x7f800000u | (m << 13); /* inf, NaN */
  } else if (e != 0) {
    bits = sign | ((e + 112) << 23) | (m << 13);
  } else if (m == 0) {
    bits = sign;
  } else { /* subnormal: normalise */
    int shift = 0;
    while (!(m & 0x400)) {
      m <<= 1;
      shift++;
    }
    bits = sign | ((uint32_t)(113 - shift) << 23) | ((m & 0x3ff) << 13);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

/* Store nn PLAIN values of the job's column at dst in its output type:
 * DECIMALs (INT32, INT64, or big-endian two's complement
 * FIXED_LEN_BYTE_ARRAY) become float64 divided by 10^scale, FLOAT16
 * float32, everything else as store_fixed. */
static void store_values(const pq_job *j, uint8_t *dst, const uint8_t *src, int64_t nn) {
  int pw = phys_width(j);
  if (j->decimal_scale >= 0) {
    double div = pow10_of(j->decimal_scale);
    for (int64_t i = 0; i < nn; i++) {
      double d;
      if (j->phys == PQ_INT32) {
        d = (double)(int32_t)le32(src + 4 * i);
      } else if (j->phys == PQ_INT64) {
        int64_t v;
        memcpy(&v, src + 8 * i, 8);
        d = (double)v;
      } else {
        const uint8_t *b = src + (int64_t)pw * i;
        __int128 v = (b[0] & 0x80) ? -1 : 0; /* sign-extend from the first byte */
        for (int k = 0; k < pw; k++) v = (__int128)(((unsigned __int128)v << 8) | b[k]);
        d = (double)v;
      }
      d /= div;
      memcpy(dst + 8 * i, &d, 8);
    }
    return;
  }
  if (j->float16) {
    for (int64_t i = 0; i < nn; i++) {
      uint16_t h = (uint16_t)(src[2 * i] | src[2 * i + 1] << 8);
      float f = half_to_float(h);
      memcpy(dst + 4 * i, &f, 4);
    }
    return;
  }
  store_fixed(dst, j->out_width, src, pw, nn);
}

/* Make room for `more` chars in the job's chunk buffer.  The first time,
 * room for the whole chunk at the rate of this page (`more` bytes for `n`
 * of the chunk's rows), so that a chunk is seldom copied as it grows. */
static zb_status chars_reserve_for(pq_job *j, int64_t *cap, int64_t more, int64_t n,
                                   zb_error *err) {
  if (j->chars != NULL && j->chars_len + more <= *cap) return ZB_OK;
  int64_t ncap = *cap + *cap / 2 + 4096;
  if (*cap == 0 && n > 0 && j->rows > n && more < INT64_MAX / 4 / (j->rows / n + 1))
    ncap = more * (j->rows / n + 1) + 4096;
  if (ncap < j->chars_len + more) ncap = j->chars_len + more;
  uint8_t *nb = (uint8_t *)zb_malloc((size_t)ncap);
  if (nb == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (%lld bytes of strings)", (long long)ncap);
  if (j->chars_len > 0) memcpy(nb, j->chars, (size_t)j->chars_len);
  zb_free(j->chars);
  j->chars = nb;
  *cap = ncap;
  return ZB_OK;
}

/* PLAIN byte arrays: nn values of (4-byte length, bytes) from p[0, len):
 * their (offset, length) in *pos (2 * nn entries, offsets from p).  Their
 * UTF-8 is the caller's to check. */
static zb_status plain_strings(const uint8_t *p, int64_t len, int64_t nn, int64_t *pos,
                               zb_error *err) {
  int64_t at = 0;
  for (int64_t i = 0; i < nn; i++) {
    if (len - at < 4)
      return zb_error_set(err, ZB_EPARSE, "the page ends inside string %lld of %lld",
                          (long long)i, (long long)nn);
    int64_t l = le32(p + at);
    at += 4;
    if (l > len - at)
      return zb_error_set(err, ZB_EPARSE,
                          "string %lld's length (%lld) runs past the page", (long long)i,
                          (long long)l);
    pos[2 * i] = at;
    pos[2 * i + 1] = l;
    at += l;
  }
  return ZB_OK;
}

/* ---- pages ------------------------------------------------------------- */

/* The page's bytes after decompression: *out points at un bytes -- into
 * the file when the page is stored plain, else into *buf, a block of *cap
 * bytes the caller owns and that is reused from page to page (grown here
 * when too small). */
static zb_status page_bytes(const pq_job *j, const uint8_t *src, int64_t n, int64_t un,
                            bool compressed, uint8_t **buf, int64_t *cap, const uint8_t **out,
                            zb_error *err) {
  if (!compressed || j->chunk->codec == PQ_UNCOMPRESSED) {
    if (n != un)
      return zb_error_set(err, ZB_EPARSE,
                          "an uncompressed page of %lld bytes says it holds %lld",
                          (long long)n, (long long)un);
    *out = src;
    return ZB_OK;
  }
  if (j->chunk->total_uncompressed > 0 && un > j->chunk->total_uncompressed)
    return zb_error_set(err, ZB_EPARSE,
                        "a page's size (%lld bytes) exceeds its column chunk's (%lld)",
                        (long long)un, (long long)j->chunk->total_uncompressed);
  if (*buf == NULL || *cap < un) {
    zb_free(*buf);
    *cap = 0;
    *buf = (uint8_t *)zb_malloc((size_t)(un > 0 ? un : 1));
    if (*buf == NULL)
      return zb_error_set(err, ZB_ENOMEM, "out of host memory (a page of %lld bytes)",
                          (long long)un);
    *cap = un;
  }
  if (j->chunk->codec == PQ_SNAPPY)
    ZB_RETURN_NOT_OK(zb__snappy_block(src, n, *buf, un, err));
  else if (j->chunk->codec == PQ_GZIP)
    ZB_RETURN_NOT_OK(zb__gzip_block(src, n, *buf, un, err));
  else /* PQ_ZSTD: read.c admits no other codec */
    ZB_RETURN_NOT_OK(zb__zstd_block(src, n, *buf, un, err));
  *out = *buf;
  return ZB_OK;
}

static zb_status read_dictionary(pq_job *j, dict *d, const pq_page_header *h, const uint8_t *src,
                                 zb_error *err) {
  if (d->have) return zb_error_set(err, ZB_EPARSE, "a second dictionary page");
  if (h->encoding != PQ_PLAIN && h->encoding != PQ_PLAIN_DICTIONARY)
    return zb_error_set(err, ZB_ENOTSUP, "dictionary page encoding %d", h->encoding);
  if (h->num_values < 0) return zb_error_set(err, ZB_EPARSE, "negative dictionary size");
  const uint8_t *p = NULL;
  int64_t keep_cap = 0;
  ZB_RETURN_NOT_OK(page_bytes(j, src, h->compressed_size, h->uncompressed_size, true, &d->keep,
                              &keep_cap, &p, err));
  int64_t n = h->num_values, len = h->uncompressed_size;
  d->have = true;
  d->n = n;
  if (j->kind == PQ_OUT_STRING) {
    if (n > len / 4)
      return zb_error_set(err, ZB_EPARSE, "dictionary of %lld strings in %lld bytes",
                          (long long)n, (long long)len);
    int64_t *pos = (int64_t *)zb_malloc((size_t)(2 * n + 1) * sizeof(int64_t));
    d->off = (int64_t *)zb_malloc((size_t)(2 * n + 1) * sizeof(int64_t));
    if (pos == NULL || d->off == NULL) {
      zb_free(pos);
      return zb_error_set(err, ZB_ENOMEM, "out of host memory (dictionary)");
    }
    zb_status st = plain_strings(p, len, n, pos, err);
    /* the values packed one after another, DICT_SLACK bytes after them
     * (short values are copied in fixed 16-byte moves), and their UTF-8
     * checked at once: valid packed bytes are valid values unless a value
     * starts inside its neighbour's character (a continuation byte) */
    uint8_t *own = st == ZB_OK ? (uint8_t *)zb_malloc((size_t)(len - 4 * n) + DICT_SLACK) : NULL;
    if (st == ZB_OK && own == NULL)
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory (dictionary)");
    if (st != ZB_OK) {
      zb_free(pos);
      return st;
    }
    int64_t o = 0;
    bool cont = false;
    for (int64_t i = 0; i < n; i++) {
      int64_t l = pos[2 * i + 1];
      const uint8_t *v = p + pos[2 * i];
      cont |= l > 0 && (v[0] & 0xC0) == 0x80;
      memcpy(own + o, v, (size_t)l);
      d->off[2 * i] = o;
      d->off[2 * i + 1] = l;
      o += l;
    }
    zb_free(pos);
    memset(own + o, 0, DICT_SLACK);
    zb_free(d->keep);
    d->keep = own;
    d->chars = own;
    if (cont || !zb__text_utf8_valid(own, o))
      for (int64_t i = 0; i < n; i++)
        if (!zb__text_utf8_valid(own + d->off[2 * i], d->off[2 * i + 1]))
          return zb_error_set(err, ZB_EPARSE, "string %lld is not valid UTF-8", (long long)i);
    d->bytes = o;
    d->same_len = n > 0 ? d->off[1] : 0;
    for (int64_t i = 1; i < n && d->same_len >= 0; i++)
      if (d->off[2 * i + 1] != d->same_len) d->same_len = -1;
    return ZB_OK;
  }
  if (j->kind == PQ_OUT_BOOL) return zb_error_set(err, ZB_ENOTSUP, "a boolean dictionary");
  int pw = phys_width(j);
  if (n > len / pw)
    return zb_error_set(err, ZB_EPARSE, "dictionary of %lld values in %lld bytes",
                        (long long)n, (long long)len);
  d->fixed = (uint8_t *)zb_malloc((size_t)(n > 0 ? n : 1) * (size_t)j->out_width);
  if (d->fixed == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (dictionary)");
  store_values(j, d->fixed, p, n);
  zb_free(d->keep); /* the values are in d->fixed now: the page's bytes are not needed */
  d->keep = NULL;
  return ZB_OK;
}

/* Two's complement 64-bit values to out width ow (1, 2, 4 or 8). */
static void narrow_u64(uint8_t *dst, int ow, const uint64_t *v, int64_t nn) {
  switch (ow) {
    case 8: memcpy(dst, v, (size_t)nn * 8); break;
    case 4: for (int64_t i = 0; i < nn; i++) ((uint32_t *)dst)[i] = (uint32_t)v[i]; break;
    case 2: for (int64_t i = 0; i < nn; i++) ((uint16_t *)dst)[i] = (uint16_t)v[i]; break;
    default: for (int64_t i = 0; i < nn; i++) dst[i] = (uint8_t)v[i]; break;
  }
}

/* DELTA_LENGTH_BYTE_ARRAY (lengths, then the bytes) or, with prefixes,
 * DELTA_BYTE_ARRAY (prefix lengths, then suffixes as DELTA_LENGTH_BYTE_ARRAY:
 * a value is the previous value's first `prefix` bytes and its suffix). */
static zb_status delta_strings(pq_job *j, const uint8_t *p, int64_t len, int64_t row, int64_t n,
                               int64_t nn, bool prefixes, int64_t *chars_cap, zb_error *err) {
  const uint8_t *valid = j->valid != NULL ? j->valid + row : NULL;
  uint64_t *pre = NULL, *lens = (uint64_t *)zb_malloc((size_t)(nn > 0 ? nn : 1) * 8);
  if (prefixes) pre = (uint64_t *)zb_malloc((size_t)(nn > 0 ? nn : 1) * 8);
  zb_status st = ZB_OK;
  if (lens == NULL || (prefixes && pre == NULL)) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (string lengths)");
    goto done;
  }
  int64_t used = 0, at = 0;
  if (prefixes) {
    if ((st = zb__pq_delta_decode(p, len, nn, pre, &used, err)) != ZB_OK) goto done;
    at = used;
  }
  if ((st = zb__pq_delta_decode(p + at, len - at, nn, lens, &used, err)) != ZB_OK) goto done;
  at += used;
  /* check every length against the bytes (and the previous value) first */
  int64_t left = len - at, total = 0, prev = 0;
  for (int64_t i = 0; i < nn; i++) {
    uint64_t pl = prefixes ? pre[i] : 0;
    if (lens[i] > (uint64_t)left || pl > (uint64_t)prev) {
      st = zb_error_set(err, ZB_EPARSE, "a string length of a delta-encoded page runs past it");
      goto done;
    }
    left -= (int64_t)lens[i];
    prev = (int64_t)pl + (int64_t)lens[i];
    if (prev > INT64_MAX / 4 - total) {
      st = zb_error_set(err, ZB_EPARSE, "delta-encoded strings too long");
      goto done;
    }
    total += prev;
  }
  if ((st = chars_reserve_for(j, chars_cap, total, n, err)) != ZB_OK) goto done;
  int64_t end = j->chars_len, k = 0, last = end, last_len = 0;
  const uint8_t *src = p + at;
  for (int64_t r = 0; r < n; r++) {
    if (valid == NULL || valid[r]) {
      int64_t pl = prefixes ? (int64_t)pre[k] : 0, sl = (int64_t)lens[k];
      k++;
      if (pl > 0) memcpy(j->chars + end, j->chars + last, (size_t)pl);
      memcpy(j->chars + end + pl, src, (size_t)sl);
      src += sl;
      if (!zb__text_utf8_valid(j->chars + end, pl + sl)) {
        st = zb_error_set(err, ZB_EPARSE, "the string of row %lld is not valid UTF-8",
                          (long long)(row + r));
        goto done;
      }
      last = end;
      last_len = pl + sl;
      end += last_len;
    }
    j->offsets[row + r] = end;
  }
  j->chars_len = end;
done:
  zb_free(lens);
  zb_free(pre);
  return st;
}

/* Bytes a deferred chunk keeps a value's index in, for dictionary d. */
static int index_width(const dict *d) { return d->n <= 256 ? 1 : d->n <= 65536 ? 2 : 4; }

/* Whether deferring a chunk of rows values (pq_deferred) holds less than
 * its characters would: the dictionary kept to the end (16 bytes of
 * offsets a value and its characters) and an index a row, against the
 * rows at the dictionary's mean length.  Many distinct values in a small
 * row group (polars writes 127k-row groups) do not pay. */
static bool defer_pays(const dict *d, int64_t rows) {
  if (d->n <= 0) return false;
  int w = index_width(d);
  double kept = 16.0 * (double)d->n + (double)d->bytes + (double)w * (double)rows;
  return kept < (double)d->bytes / (double)d->n * (double)rows;
}

/* A deferred chunk meets a page of another encoding: its rows so far
 * [0, rows) get their characters in the chunk's own buffer, as if never
 * deferred. */
static zb_status undefer(pq_job *j, const dict *d, int64_t rows, int64_t *chars_cap,
                         zb_error *err) {
  pq_deferred *df = j->deferred;
  zb_status st = chars_reserve_for(j, chars_cap, df->total + DICT_SLACK, rows, err);
  if (st == ZB_OK)
    j->chars_len =
        gather_rows(df->idx, df->w, d, j->valid, j->offsets, rows, j->chars, 0, *chars_cap);
  zb__pq_deferred_free(j);
  return st;
}

/* Decode one data page's values: nn non-null values of rows [row, row + n). */
static zb_status page_values(pq_job *j, dict *d, pq_scratch *s, int32_t enc, const uint8_t *p,
                             int64_t len, int64_t row, int64_t n, int64_t nn, int64_t *chars_cap,
                             zb_error *err) {
  const uint8_t *valid = j->valid != NULL ? j->valid + row : NULL;
  if (enc == PQ_PLAIN_DICTIONARY || enc == PQ_RLE_DICTIONARY) {
    if (!d->have) return zb_error_set(err, ZB_EPARSE, "a dictionary-encoded page without a dictionary");
    if (nn > 0 && len < 1) return zb_error_set(err, ZB_EPARSE, "an empty dictionary-encoded page");
    int w = nn > 0 ? p[0] : 0;
    if (w > 32) return zb_error_set(err, ZB_EPARSE, "dictionary index bit width %d", w);
    if (nn > 0 && d->n == 0)
      return zb_error_set(err, ZB_EPARSE, "dictionary index into an empty dictionary");
    pq_deferred *df = j->deferred;
    if (j->kind == PQ_OUT_STRING && row == 0 && j->chars == NULL && j->chars_len == 0 &&
        df == NULL && defer_pays(d, j->rows)) {
      /* the chunk's first page: defer its characters (pq_deferred) */
      df = (pq_deferred *)zb_calloc(1, sizeof(pq_deferred));
      if (df == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (indices)");
      df->w = index_width(d);
      df->idx = (uint8_t *)zb_malloc((size_t)(j->rows > 0 ? j->rows : 1) * (size_t)df->w);
      if (df->idx == NULL) {
        zb_free(df);
        return zb_error_set(err, ZB_ENOMEM, "out of host memory (indices)");
      }
      j->deferred = df;
    }
    if (df != NULL && nn > j->rows - df->nn)
      return zb_error_set(err, ZB_EPARSE, "more values than the chunk's rows");
    if (df != NULL && df->w == 1 && w <= 8) {
      /* byte indices decoded in place; checked (the largest) afterwards */
      uint8_t *ix = df->idx + df->nn;
      if (nn > 0 && rle_decode_u8(p + 1, len - 1, w, ix, nn) != nn)
        return zb_error_set(err, ZB_EPARSE, "dictionary indices are corrupt or too few");
      uint8_t maxb = 0;
      for (int64_t i = 0; i < nn; i++) maxb = ix[i] > maxb ? ix[i] : maxb;
      if (nn > 0 && (int64_t)maxb >= d->n)
        return zb_error_set(err, ZB_EPARSE, "dictionary index %u out of range (dictionary of %lld)",
                            (unsigned)maxb, (long long)d->n);
      int64_t total = 0;
      if (d->same_len >= 0)
        total = nn * d->same_len;
      else
        for (int64_t i = 0; i < nn; i++) total += d->off[2 * ix[i] + 1];
      df->nn += nn;
      df->total += total;
      return ZB_OK;
    }
    uint32_t *idx = scratch_u32(s, nn);
    if (idx == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (indices)");
    if (nn > 0 && rle_decode(p + 1, len - 1, w, idx, nn) != nn)
      return zb_error_set(err, ZB_EPARSE, "dictionary indices are corrupt or too few");
    /* Each pass below reads the dictionary at the index clamped to its
     * last entry and keeps the largest index, which is checked after it:
     * one pass where a check first would make two. */
    uint32_t maxi = 0, last = d->n > 0 ? (uint32_t)ZB_MIN(d->n - 1, (int64_t)UINT32_MAX) : 0;
    if (j->kind == PQ_OUT_STRING) {
      int64_t total = 0;
      for (int64_t i = 0; i < nn; i++) {
        uint32_t t = idx[i];
        maxi = t > maxi ? t : maxi;
        total += d->off[2 * (t <= last ? t : last) + 1];
      }
      if (nn > 0 && (int64_t)maxi >= d->n)
        return zb_error_set(err, ZB_EPARSE,
                            "dictionary index %u out of range (dictionary of %lld)", maxi,
                            (long long)d->n);
      if (df != NULL) {
        if (df->w == 1)
          for (int64_t i = 0; i < nn; i++) df->idx[df->nn + i] = (uint8_t)idx[i];
        else if (df->w == 2)
          for (int64_t i = 0; i < nn; i++) ((uint16_t *)df->idx)[df->nn + i] = (uint16_t)idx[i];
        else
          memcpy(df->idx + 4 * df->nn, idx, (size_t)nn * 4);
        df->nn += nn;
        df->total += total;
        return ZB_OK;
      }
      ZB_RETURN_NOT_OK(chars_reserve_for(j, chars_cap, total + DICT_SLACK, n, err));
      j->chars_len = gather_rows((const uint8_t *)idx, 4, d, valid, j->offsets + row, n, j->chars,
                                 j->chars_len, *chars_cap);
      return ZB_OK;
    }
    int w8 = j->out_width;
    uint8_t *dst = j->values + row * w8;
    switch (w8) {
#define GATHER(W, T)                                                   \
  case W: {                                                            \
    const T *dv = (const T *)d->fixed;                                 \
    T *o = (T *)dst;                                                   \
    for (int64_t i = 0; i < nn; i++) {                                 \
      uint32_t t = idx[i];                                             \
      maxi = t > maxi ? t : maxi;                                      \
      o[i] = dv[t <= last ? t : last];                                 \
    }                                                                  \
    break;                                                             \
  }
      GATHER(1, uint8_t)
      GATHER(2, uint16_t)
      GATHER(4, uint32_t)
      GATHER(8, uint64_t)
#undef GATHER
    }
    if (nn > 0 && (int64_t)maxi >= d->n)
      return zb_error_set(err, ZB_EPARSE, "dictionary index %u out of range (dictionary of %lld)",
                          maxi, (long long)d->n);
    if (valid != NULL) spread(dst, w8, valid, n, nn);
    return ZB_OK;
  }
  if (j->kind == PQ_OUT_BOOL) {
    uint8_t *dst = j->values + row;
    if (enc == PQ_PLAIN) {
      if ((nn + 7) / 8 > len) return zb_error_set(err, ZB_EPARSE, "the page holds too few booleans");
      for (int64_t i = 0; i < nn; i++) dst[i] = (p[i >> 3] >> (i & 7)) & 1;
    } else if (enc == PQ_RLE) {
      if (len < 4 || le32(p) > (uint64_t)(len - 4))
        return zb_error_set(err, ZB_EPARSE, "corrupt RLE boolean length");
      uint32_t *tmp = scratch_u32(s, nn);
      if (tmp == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (booleans)");
      if (rle_decode(p + 4, le32(p), 1, tmp, nn) != nn)
        return zb_error_set(err, ZB_EPARSE, "corrupt or too few RLE booleans");
      for (int64_t i = 0; i < nn; i++) dst[i] = (uint8_t)tmp[i];
    } else {
      return zb_error_set(err, ZB_ENOTSUP, "encoding %d for booleans", enc);
    }
    if (valid != NULL) spread(dst, 1, valid, n, nn);
    return ZB_OK;
  }
  if (j->kind == PQ_OUT_STRING && enc == PQ_DELTA_LENGTH_BYTE_ARRAY)
    return delta_strings(j, p, len, row, n, nn, false, chars_cap, err);
  if (j->kind == PQ_OUT_STRING && enc == PQ_DELTA_BYTE_ARRAY)
    return delta_strings(j, p, len, row, n, nn, true, chars_cap, err);
  if (j->kind == PQ_OUT_FIXED && enc == PQ_DELTA_BINARY_PACKED &&
      (j->phys == PQ_INT32 || j->phys == PQ_INT64)) {
    uint64_t *tmp = (uint64_t *)zb_malloc((size_t)(nn > 0 ? nn : 1) * sizeof(uint64_t));
    if (tmp == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (delta values)");
    int64_t used;
    zb_status st = zb__pq_delta_decode(p, len, nn, tmp, &used, err);
    if (st == ZB_OK) {
      uint8_t *dst = j->values + row * j->out_width;
      if (j->decimal_scale >= 0) { /* int64 in place to the scaled float64 */
        double div = pow10_of(j->decimal_scale);
        for (int64_t i = 0; i < nn; i++) {
          int64_t v = j->phys == PQ_INT32 ? (int64_t)(int32_t)tmp[i] : (int64_t)tmp[i];
          double dv = (double)v / div;
          memcpy(&tmp[i], &dv, 8);
        }
      }
      narrow_u64(dst, j->out_width, tmp, nn);
      if (valid != NULL) spread(dst, j->out_width, valid, n, nn);
    }
    zb_free(tmp);
    return st;
  }
  if (j->kind == PQ_OUT_FIXED && enc == PQ_BYTE_STREAM_SPLIT) {
    int pw = phys_width(j);
    if (nn > len / pw)
      return zb_error_set(err, ZB_EPARSE, "%lld values in a page of %lld bytes", (long long)nn,
                          (long long)len);
    uint8_t *tmp = (uint8_t *)zb_malloc((size_t)(nn > 0 ? nn * pw : 1));
    if (tmp == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (split values)");
    for (int b = 0; b < pw; b++)
      for (int64_t i = 0; i < nn; i++) tmp[i * pw + b] = p[(int64_t)b * nn + i];
    uint8_t *dst = j->values + row * j->out_width;
    store_values(j, dst, tmp, nn);
    zb_free(tmp);
    if (valid != NULL) spread(dst, j->out_width, valid, n, nn);
    return ZB_OK;
  }
  if (enc != PQ_PLAIN) return zb_error_set(err, ZB_ENOTSUP, "encoding %d", enc);
  if (j->kind == PQ_OUT_STRING) {
    if (nn > len / 4 + 1)
      return zb_error_set(err, ZB_EPARSE, "%lld strings in a page of %lld bytes", (long long)nn,
                          (long long)len);
    /* the values' bytes are at most the page's: reserve once, then copy */
    ZB_RETURN_NOT_OK(chars_reserve_for(j, chars_cap, len, n, err));
    int64_t at = 0, start = j->chars_len, end = start;
    bool cont = false;
    for (int64_t r = 0; r < n; r++) {
      if (valid == NULL || valid[r]) {
        if (len - at < 4)
          return zb_error_set(err, ZB_EPARSE, "the page ends inside a string (row %lld)",
                              (long long)(row + r));
        int64_t l = le32(p + at);
        at += 4;
        if (l > len - at)
          return zb_error_set(err, ZB_EPARSE, "a string's length (%lld) runs past the page (row %lld)",
                              (long long)l, (long long)(row + r));
        cont |= l > 0 && (p[at] & 0xC0) == 0x80;
        memcpy(j->chars + end, p + at, (size_t)l);
        at += l;
        end += l;
      }
      j->offsets[row + r] = end;
    }
    /* the page's values checked as UTF-8 at once (see read_dictionary) */
    if (cont || !zb__text_utf8_valid(j->chars + start, end - start)) {
      int64_t prev = start;
      for (int64_t r = 0; r < n; r++) {
        if (!zb__text_utf8_valid(j->chars + prev, j->offsets[row + r] - prev))
          return zb_error_set(err, ZB_EPARSE, "the string of row %lld is not valid UTF-8",
                              (long long)(row + r));
        prev = j->offsets[row + r];
      }
    }
    j->chars_len = end;
    return ZB_OK;
  }
  int pw = phys_width(j);
  if (nn > len / pw)
    return zb_error_set(err, ZB_EPARSE, "%lld values in a page of %lld bytes", (long long)nn,
                        (long long)len);
  uint8_t *dst = j->values + row * j->out_width;
  store_values(j, dst, p, nn);
  if (valid != NULL) spread(dst, j->out_width, valid, n, nn);
  return ZB_OK;
}

/* Definition levels of n rows from p[0, len) into valid[0, n); returns the
 * non-null count through *nn.  A list chunk (max_rep > 0) keeps the levels
 * themselves in j->defs (bit width of max_def) and marks as valid the slots
 * that hold a value (level max_def). */
static zb_status def_levels(pq_job *j, pq_scratch *s, const uint8_t *p, int64_t len, uint8_t *valid,
                            int64_t row, int64_t n, int64_t *nn, zb_error *err) {
  (void)s;
  if (j->max_rep > 0) {
    uint8_t *d = j->defs + row;
    int w = 0;
    while ((1 << w) <= j->max_def) w++;
    if (rle_decode_u8(p, len, w, d, n) != n)
      return zb_error_set(err, ZB_EPARSE, "definition levels are corrupt or too few");
    int64_t c = 0;
    for (int64_t i = 0; i < n; i++) {
      valid[i] = d[i] == j->max_def;
      c += valid[i];
    }
    *nn = c;
    return ZB_OK;
  }
  if (rle_decode_u8(p, len, 1, valid, n) != n)
    return zb_error_set(err, ZB_EPARSE, "definition levels are corrupt or too few");
  /* the levels are 0 or 1: eight at a time, the product's top byte sums a
   * word's bytes */
  int64_t c = 0, i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, valid + i, 8);
    c += (int64_t)((w * 0x0101010101010101ull) >> 56);
  }
  for (; i < n; i++) c += valid[i];
  *nn = c;
  return ZB_OK;
}

/* Repetition levels (list chunks) of n slots from p[0, len) into
 * j->reps + row.  Their range is checked when the lists are assembled. */
static zb_status rep_levels(pq_job *j, const uint8_t *p, int64_t len, int64_t row, int64_t n,
                            zb_error *err) {
  int w = 0;
  while ((1 << w) <= j->max_rep) w++;
  if (rle_decode_u8(p, len, w, j->reps + row, n) != n)
    return zb_error_set(err, ZB_EPARSE, "repetition levels are corrupt or too few");
  return ZB_OK;
}

zb_status zb__pq_chunk_start(const pq_chunk *k, int64_t file_size, int64_t *start,
                             zb_error *err) {
  *start = k->dictionary_page_offset > 0 && k->dictionary_page_offset < k->data_page_offset
               ? k->dictionary_page_offset
               : k->data_page_offset;
  if (*start < 4 || k->total_compressed < 0 || *start > file_size ||
      k->total_compressed > file_size - *start)
    return zb_error_set(err, ZB_EPARSE,
                        "the column chunk (offset %lld, %lld bytes) lies outside the file's "
                        "data (%lld bytes)",
                        (long long)*start, (long long)k->total_compressed, (long long)file_size);
  return ZB_OK;
}

zb_status zb__pq_decode_chunk(pq_job *j, zb_error *err) {
  const pq_chunk *k = j->chunk;
  if (j->rows == 0) return ZB_OK; /* nothing to read (writers leave such chunks unplaced) */
  int64_t start = 0;
  ZB_RETURN_NOT_OK(zb__pq_chunk_start(k, j->file_size, &start, err));
  if (k->num_values < 0 || k->num_values != j->rows)
    return zb_error_set(err, ZB_EPARSE, "the chunk holds %lld values for %lld rows",
                        (long long)k->num_values, (long long)j->rows);
  const uint8_t *p = j->file + start, *end = p + k->total_compressed;
  dict d;
  memset(&d, 0, sizeof d);
  pq_scratch own;
  memset(&own, 0, sizeof own);
  pq_scratch *s = j->scratch != NULL ? j->scratch : &own;
  int64_t chars_cap = 0, row = 0;
  zb_status st = ZB_OK;
  while (row < j->rows) {
    if (j->cancel != NULL && *j->cancel) {
      st = zb_error_set(err, ZB_ECANCEL, "Parquet read cancelled");
      break;
    }
    if (p >= end) {
      st = zb_error_set(err, ZB_EPARSE, "the chunk ends after %lld of its %lld rows",
                        (long long)row, (long long)j->rows);
      break;
    }
    pq_page_header h;
    int64_t used = 0;
    st = zb__pq_page_header(p, end - p, &h, &used, err);
    if (st != ZB_OK) break;
    p += used;
    if (h.compressed_size > end - p) {
      st = zb_error_set(err, ZB_EPARSE, "a page of %d bytes runs past its chunk (%lld left)",
                        h.compressed_size, (long long)(end - p));
      break;
    }
    const uint8_t *page = p;
    p += h.compressed_size;
    if (h.has_crc) {
      uint32_t got = zb__pq_crc32(page, h.compressed_size);
      if (got != h.crc) {
        st = zb_error_set(err, ZB_EPARSE,
                          "page checksum mismatch (the %s page at byte %lld: CRC-32 %08x "
                          "stored, %08x computed): the file is corrupt",
                          h.type == PQ_DICTIONARY_PAGE ? "dictionary" : "data",
                          (long long)(page - j->file), h.crc, got);
        break;
      }
    }
    if (h.type == PQ_DICTIONARY_PAGE) {
      st = read_dictionary(j, &d, &h, page, err);
      if (st != ZB_OK) break;
      continue;
    }
    if (h.type != PQ_DATA_PAGE && h.type != PQ_DATA_PAGE_V2) continue; /* index pages */
    int64_t n = h.num_values;
    if (n < 0 || n > j->rows - row) {
      st = zb_error_set(err, ZB_EPARSE, "a page of %lld values where %lld rows are left",
                        (long long)n, (long long)(j->rows - row));
      break;
    }
    uint8_t *valid = j->valid != NULL ? j->valid + row : NULL;
    int64_t nn = n;
    const uint8_t *vals = NULL;
    int64_t vlen;
    if (h.type == PQ_DATA_PAGE) {
      const uint8_t *b;
      st = page_bytes(j, page, h.compressed_size, h.uncompressed_size, true, &s->page, &s->page_cap, &b,
                      err);
      if (st != ZB_OK) break;
      int64_t blen = h.uncompressed_size;
      if (j->max_rep > 0) {
        if (h.rep_encoding != PQ_RLE) {
          st = zb_error_set(err, ZB_ENOTSUP, "repetition level encoding %d", h.rep_encoding);
          break;
        }
        if (blen < 4 || le32(b) > (uint64_t)(blen - 4)) {
          st = zb_error_set(err, ZB_EPARSE, "repetition levels' length runs past the page");
          break;
        }
        int64_t ll = le32(b);
        st = rep_levels(j, b + 4, ll, row, n, err);
        if (st != ZB_OK) break;
        b += 4 + ll;
        blen -= 4 + ll;
      }
      if (j->max_def > 0) {
        if (h.def_encoding != PQ_RLE) {
          st = zb_error_set(err, ZB_ENOTSUP, "definition level encoding %d", h.def_encoding);
          break;
        }
        if (blen < 4 || le32(b) > (uint64_t)(blen - 4)) {
          st = zb_error_set(err, ZB_EPARSE, "definition levels' length runs past the page");
          break;
        }
        int64_t ll = le32(b);
        st = def_levels(j, s, b + 4, ll, valid, row, n, &nn, err);
        if (st != ZB_OK) break;
        b += 4 + ll;
        blen -= 4 + ll;
      }
      vals = b;
      vlen = blen;
    } else {
      int64_t rl = h.rep_len, dl = h.def_len;
      if (rl < 0 || dl < 0 || (rl != 0 && j->max_rep == 0) || rl + dl > h.compressed_size ||
          rl + dl > h.uncompressed_size) {
        st = zb_error_set(err, ZB_EPARSE, "corrupt level lengths in a v2 page header");
        break;
      }
      if (j->max_rep > 0) {
        st = rep_levels(j, page, rl, row, n, err);
        if (st != ZB_OK) break;
      }
      if (j->max_def > 0) {
        st = def_levels(j, s, page + rl, dl, valid, row, n, &nn, err);
        if (st != ZB_OK) break;
      }
      st = page_bytes(j, page + rl + dl, h.compressed_size - rl - dl,
                      h.uncompressed_size - rl - dl, h.is_compressed, &s->page, &s->page_cap, &vals,
                      err);
      if (st != ZB_OK) break;
      vlen = h.uncompressed_size - rl - dl;
    }
    if (j->deferred != NULL && h.encoding != PQ_PLAIN_DICTIONARY &&
        h.encoding != PQ_RLE_DICTIONARY && (st = undefer(j, &d, row, &chars_cap, err)) != ZB_OK)
      break;
    st = page_values(j, &d, s, h.encoding, vals, vlen, row, n, nn, &chars_cap, err);
    if (st != ZB_OK) break;
    j->nulls += n - nn;
    row += n;
  }
  if (j->deferred != NULL && st == ZB_OK) { /* the dictionary goes with the indices */
    j->deferred->d = d;
    memset(&d, 0, sizeof d);
    j->chars_len = j->deferred->total;
  } else {
    zb__pq_deferred_free(j);
  }
  dict_free(&d);
  zb__pq_scratch_free(&own);
  return st;
}
