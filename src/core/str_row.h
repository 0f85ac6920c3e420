/*
 * str_row.h -- the string operations of one row, shared by the CPU kernels
 * (src/cpu/strings.c) and the CUDA kernels (src/cuda/strings.cu), so that
 * both backends compute every row by the same code: UTF-8 helpers, Python's
 * slice rules, strip sets, literal replace, and the Unicode simple case
 * mappings (tables from src/core/case_map.h, passed in by the caller: host
 * arrays on the CPU, device copies on the GPU).
 *
 * Bytes are UTF-8 as Arrow requires; a truncated or malformed sequence
 * counts as one character (case mapping copies it as it is).  The emit
 * functions write into dst when it is not NULL and return the output
 * bytes, so one function serves the sizing pass and the writing pass.
 * Plain C11 and CUDA C++ alike: every function is static inline, and
 * __host__ __device__ under nvcc.
 */
#ifndef ZAMBEZI_CORE_STR_ROW_H
#define ZAMBEZI_CORE_STR_ROW_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "zambezi/compute.h"

#ifdef __CUDACC__
#define ZB_HD __host__ __device__
#define ZB_HD_OUTLINE static inline __host__ __device__
#else
#define ZB_HD
/* a whole row's operation: the compiler decides whether to inline it into
 * the CPU's row loops (forcing either way measured slower) */
#define ZB_HD_OUTLINE static __attribute__((unused))
#endif

/* ---- UTF-8 --------------------------------------------------------------- */

static inline ZB_HD bool zb__is_cont(unsigned char b) { return (b & 0xC0) == 0x80; }

/* Characters in p[0, len): the bytes that are not continuation bytes. */
static inline ZB_HD int64_t zb__utf8_count(const unsigned char *p, int64_t len) {
  int64_t cont = 0;
  for (int64_t i = 0; i < len; i++) cont += zb__is_cont(p[i]);
  return len - cont;
}

/* Bytes of the character starting at p[q] (q < e), clamped to e. */
static inline ZB_HD int64_t zb__utf8_width(const unsigned char *p, int64_t q, int64_t e) {
  int64_t r = q + 1;
  while (r < e && zb__is_cont(p[r])) r++;
  return r - q;
}

/* The code point of the character at p[q, q + w). */
static inline ZB_HD uint32_t zb__utf8_decode(const unsigned char *p, int64_t q, int64_t w) {
  uint32_t c = p[q];
  if (w == 1) return c;
  if (w == 2) return ((c & 0x1F) << 6) | (p[q + 1] & 0x3F);
  if (w == 3) return ((c & 0x0F) << 12) | ((uint32_t)(p[q + 1] & 0x3F) << 6) | (p[q + 2] & 0x3F);
  return ((c & 0x07) << 18) | ((uint32_t)(p[q + 1] & 0x3F) << 12) |
         ((uint32_t)(p[q + 2] & 0x3F) << 6) | (p[q + 3] & 0x3F);
}

/* Start of the character that ends at p[e - 1] (e > b). */
static inline ZB_HD int64_t zb__utf8_back(const unsigned char *p, int64_t b, int64_t e) {
  int64_t q = e - 1;
  while (q > b && zb__is_cont(p[q])) q--;
  return q;
}

/* Bytes of a well-formed UTF-8 character with lead byte b (0: b cannot
 * lead one). */
static inline ZB_HD int64_t zb__utf8_lead_width(unsigned char b) {
  if (b >= 0xC2 && b <= 0xDF) return 2;
  if (b >= 0xE0 && b <= 0xEF) return 3;
  if (b >= 0xF0 && b <= 0xF4) return 4;
  return 0;
}

/* The UTF-8 bytes of code point c at dst (when not NULL); their count. */
static inline ZB_HD int64_t zb__utf8_encode(uint32_t c, char *dst) {
  unsigned char b[4];
  int64_t w;
  if (c < 0x80) {
    b[0] = (unsigned char)c;
    w = 1;
  } else if (c < 0x800) {
    b[0] = (unsigned char)(0xC0 | (c >> 6));
    b[1] = (unsigned char)(0x80 | (c & 0x3F));
    w = 2;
  } else if (c < 0x10000) {
    b[0] = (unsigned char)(0xE0 | (c >> 12));
    b[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
    b[2] = (unsigned char)(0x80 | (c & 0x3F));
    w = 3;
  } else {
    b[0] = (unsigned char)(0xF0 | (c >> 18));
    b[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
    b[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
    b[3] = (unsigned char)(0x80 | (c & 0x3F));
    w = 4;
  }
  if (dst != NULL) memcpy(dst, b, (size_t)w);
  return w;
}

/* Python's str.isspace for one code point. */
static inline ZB_HD bool zb__is_space_cp(uint32_t c) {
  if (c < 0x80) return (c >= 9 && c <= 13) || (c >= 0x1C && c <= 0x20);
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

/* An ASCII byte in upper or lower case (other bytes unchanged). */
static inline ZB_HD unsigned char zb__ascii_case(unsigned char b, bool upper) {
  if (upper) return (unsigned char)(b >= 'a' && b <= 'z' ? b - 32 : b);
  return (unsigned char)(b >= 'A' && b <= 'Z' ? b + 32 : b);
}

/* The first occurrence of pat[0, m) (m > 0) in p[0, len) at or after byte
 * `from`: its byte position, or -1. */
static inline ZB_HD int64_t zb__find(const unsigned char *p, int64_t len, int64_t from,
                                     const unsigned char *pat, int64_t m) {
#ifdef __CUDA_ARCH__
  for (int64_t h = from; h + m <= len; h++) {
    int64_t k = 0;
    while (k < m && p[h + k] == pat[k]) k++;
    if (k == m) return h;
  }
  return -1;
#else
  const unsigned char *hit =
      (const unsigned char *)memmem(p + from, (size_t)(len - from), pat, (size_t)m);
  return hit == NULL ? -1 : hit - p;
#endif
}

/* Whether a[0, m) and b[0, m) hold the same bytes (memcmp has no device
 * version). */
static inline ZB_HD bool zb__bytes_equal(const unsigned char *a, const unsigned char *b,
                                         int64_t m) {
#ifdef __CUDA_ARCH__
  for (int64_t k = 0; k < m; k++)
    if (a[k] != b[k]) return false;
  return true;
#else
  return memcmp(a, b, (size_t)m) == 0;
#endif
}

/* The order of strings a[0, la) and b[0, lb): bytes unsigned, a prefix
 * first; 0 less, 1 equal, 2 greater (a bit index into zb__cmp_mask). */
static inline ZB_HD int zb__bytes_order(const unsigned char *a, int64_t la,
                                        const unsigned char *b, int64_t lb) {
  const int64_t m = la < lb ? la : lb;
  int c = 0;
#ifdef __CUDA_ARCH__
  for (int64_t k = 0; k < m && c == 0; k++)
    if (a[k] != b[k]) c = a[k] < b[k] ? -1 : 1;
#else
  if (m > 0) c = memcmp(a, b, (size_t)m);
#endif
  if (c == 0) c = (la > lb) - (la < lb);
  return c < 0 ? 0 : (c == 0 ? 1 : 2);
}

/* Which orders (zb__bytes_order, or any <, ==, >) satisfy comparison op:
 * bit 0 less, bit 1 equal, bit 2 greater; 0 for other ops. */
static inline ZB_HD int zb__cmp_mask(zb_binary_op op) {
  switch (op) {
    case ZB_OP_EQ: return 2;
    case ZB_OP_NE: return 5;
    case ZB_OP_LT: return 1;
    case ZB_OP_LE: return 3;
    case ZB_OP_GT: return 4;
    case ZB_OP_GE: return 6;
    default: return 0;
  }
}

/* ---- contains / startswith / endswith ------------------------------------- */

static inline ZB_HD bool zb__str_match(const zb_str_args *a, const unsigned char *p,
                                       int64_t len) {
  const unsigned char *pat = (const unsigned char *)a->pat;
  int64_t m = a->pat_len;
  if (m == 0) return true;
  if (m > len) return false;
  switch (a->op) {
    case ZB_STR_STARTSWITH:
      return zb__bytes_equal(p, pat, m);
    case ZB_STR_ENDSWITH:
      return zb__bytes_equal(p + len - m, pat, m);
    default:
      return zb__find(p, len, 0, pat, m) >= 0;
  }
}

/* ---- strip ---------------------------------------------------------------- */

/* The characters strip removes: whitespace (pat NULL), or the set's ASCII
 * members in a table and the others listed (wide: n_wide code points). */
typedef struct zb_strip_set {
  bool whitespace;
  bool ascii[128];
  const uint32_t *wide;
  int64_t n_wide;
} zb_strip_set;

static inline ZB_HD bool zb__strip_member(const zb_strip_set *s, uint32_t c) {
  if (s->whitespace) return zb__is_space_cp(c);
  if (c < 128) return s->ascii[c];
  for (int64_t k = 0; k < s->n_wide; k++)
    if (s->wide[k] == c) return true;
  return false;
}

/* The set of a strip's pat[0, len) (pat NULL: whitespace).  wide must hold
 * len code points; *s points into it. */
static inline void zb__strip_set_init(zb_strip_set *s, const char *pat, int64_t len,
                                      uint32_t *wide) {
  memset(s, 0, sizeof *s);
  s->whitespace = pat == NULL;
  s->wide = wide;
  const unsigned char *p = (const unsigned char *)pat;
  for (int64_t q = 0; p != NULL && q < len;) {
    int64_t w = zb__utf8_width(p, q, len);
    uint32_t c = zb__utf8_decode(p, q, w);
    if (c < 128)
      s->ascii[c] = true;
    else
      wide[s->n_wide++] = c;
    q += w;
  }
}

/* The kept byte range [*pb, *pe) of p[0, len) after op (STRIP, LSTRIP or
 * RSTRIP) removed the set's characters. */
static inline ZB_HD void zb__strip_range(zb_str_op op, const zb_strip_set *s,
                                         const unsigned char *p, int64_t len, int64_t *pb,
                                         int64_t *pe) {
  int64_t b = 0, e = len;
  if (op != ZB_STR_RSTRIP) {
    while (b < e) {
      int64_t w = zb__utf8_width(p, b, e);
      if (!zb__strip_member(s, zb__utf8_decode(p, b, w))) break;
      b += w;
    }
  }
  if (op != ZB_STR_LSTRIP) {
    while (e > b) {
      int64_t q = zb__utf8_back(p, b, e);
      if (!zb__strip_member(s, zb__utf8_decode(p, q, e - q))) break;
      e = q;
    }
  }
  *pb = b;
  *pe = e;
}

/* ---- slice ---------------------------------------------------------------- */

/* Python's slice.indices for a sequence of n items: adjusts *start and
 * *stop, returns the number of items selected. */
static inline ZB_HD int64_t zb__slice_adjust(int64_t n, const zb_str_args *a, int64_t *pstart,
                                             int64_t *pstop) {
  int64_t step = a->step, start, stop;
  if (!a->has_start) {
    start = step < 0 ? n - 1 : 0;
  } else {
    start = a->start;
    if (start < 0) {
      start += n;
      if (start < 0) start = step < 0 ? -1 : 0;
    } else if (start >= n) {
      start = step < 0 ? n - 1 : n;
    }
  }
  if (!a->has_stop) {
    stop = step < 0 ? -1 : n;
  } else {
    stop = a->stop;
    if (stop < 0) {
      stop += n;
      if (stop < 0) stop = step < 0 ? -1 : 0;
    } else if (stop >= n) {
      stop = step < 0 ? n - 1 : n;
    }
  }
  *pstart = start;
  *pstop = stop;
  if (step < 0) return stop < start ? (start - stop - 1) / (-step) + 1 : 0;
  return start < stop ? (stop - start - 1) / step + 1 : 0;
}

/* Byte position of character k (0 <= k <= chars) of p[0, len), scanning
 * forward from byte `from` which is character `at`. */
static inline ZB_HD int64_t zb__char_pos(const unsigned char *p, int64_t len, int64_t from,
                                         int64_t at, int64_t k) {
  int64_t q = from;
  for (; at < k && q < len; at++) q += zb__utf8_width(p, q, len);
  return q;
}

/* s[start:stop:step] of p[0, len). */
ZB_HD_OUTLINE int64_t zb__slice_emit(const zb_str_args *a, const unsigned char *p,
                                           int64_t len, char *dst) {
  int64_t n = zb__utf8_count(p, len), start, stop;
  int64_t cnt = zb__slice_adjust(n, a, &start, &stop), step = a->step;
  if (cnt <= 0) return 0;
  if (n == len) { /* ASCII: characters are bytes */
    if (step == 1) {
      if (dst) memcpy(dst, p + start, (size_t)cnt);
      return cnt;
    }
    if (dst)
      for (int64_t k = 0; k < cnt; k++) dst[k] = (char)p[start + k * step];
    return cnt;
  }
  int64_t q = zb__char_pos(p, len, 0, 0, start);
  if (step == 1) {
    int64_t r = zb__char_pos(p, len, q, start, start + cnt);
    if (dst) memcpy(dst, p + q, (size_t)(r - q));
    return r - q;
  }
  int64_t out = 0, at = start;
  for (int64_t k = 0; k < cnt; k++) {
    if (k > 0) {
      if (step > 0) {
        q = zb__char_pos(p, len, q, at, at + step);
        at += step;
      } else {
        for (int64_t s = 0; s < -step; s++) q = zb__utf8_back(p, 0, q);
        at += step;
      }
    }
    int64_t w = zb__utf8_width(p, q, len);
    if (dst) memcpy(dst + out, p + q, (size_t)w);
    out += w;
  }
  return out;
}

/* ---- replace -------------------------------------------------------------- */

/* Python's str.replace(pat, repl, n) of p[0, len). */
ZB_HD_OUTLINE int64_t zb__replace_emit(const zb_str_args *a, const unsigned char *p,
                                             int64_t len, char *dst) {
  const unsigned char *pat = (const unsigned char *)a->pat;
  int64_t plen = a->pat_len, rlen = a->repl_len, lim = a->n, out = 0, done = 0;
#define ZB__EMIT(src, m)                                                        \
  do {                                                                          \
    if (dst && (m) > 0) memcpy(dst + out, (src), (size_t)(m));                  \
    out += (m);                                                                 \
  } while (0)
  if (plen == 0) {
    int64_t q = 0;
    while (q < len) {
      if (lim < 0 || done < lim) {
        ZB__EMIT(a->repl, rlen);
        done++;
      }
      int64_t w = zb__utf8_width(p, q, len);
      ZB__EMIT(p + q, w);
      q += w;
    }
    if (lim < 0 || done < lim) ZB__EMIT(a->repl, rlen);
    return out;
  }
  int64_t pos = 0;
  while (lim < 0 || done < lim) {
    int64_t h = zb__find(p, len, pos, pat, plen);
    if (h < 0) break;
    ZB__EMIT(p + pos, h - pos);
    ZB__EMIT(a->repl, rlen);
    pos = h + plen;
    done++;
  }
  ZB__EMIT(p + pos, len - pos);
#undef ZB__EMIT
  return out;
}

/* ---- upper / lower -------------------------------------------------------- */

/* The simple case mapping of non-ASCII code point c (c itself if none):
 * a binary search of the sorted table of n pairs. */
static inline ZB_HD uint32_t zb__case_lookup(const uint32_t (*t)[2], int64_t n, uint32_t c) {
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (t[mid][0] < c)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && t[lo][0] == c ? t[lo][1] : c;
}

/* upper or lower of one row, character by character through the table t
 * of nt pairs; a malformed sequence is copied as it is. */
ZB_HD_OUTLINE int64_t zb__case_emit(bool upper, const uint32_t (*t)[2], int64_t nt,
                                          const unsigned char *p, int64_t len, char *dst) {
  int64_t out = 0;
  for (int64_t q = 0; q < len;) {
    unsigned char b = p[q];
    if (b < 0x80) {
      if (dst != NULL) dst[out] = (char)zb__ascii_case(b, upper);
      out++;
      q++;
      continue;
    }
    int64_t w = zb__utf8_width(p, q, len);
    if (w != zb__utf8_lead_width(b)) { /* not a well-formed character: as is */
      if (dst != NULL) memcpy(dst + out, p + q, (size_t)w);
      out += w;
      q += w;
      continue;
    }
    out += zb__utf8_encode(zb__case_lookup(t, nt, zb__utf8_decode(p, q, w)),
                           dst != NULL ? dst + out : NULL);
    q += w;
  }
  return out;
}

#endif /* ZAMBEZI_CORE_STR_ROW_H */
