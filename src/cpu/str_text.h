/*
 * str_text.h -- one row of the text methods that only the CPU runs (the
 * GPU's support table leaves these zb_str_op variants out, so its data
 * falls back to the CPU): title / capitalize / swapcase / casefold, pad /
 * zfill / repeat, find / rfind and the is* predicates, included by
 * src/cpu/strings.c.
 *
 * Characters are code points as in str_row.h (a malformed sequence counts
 * as one character and is copied as it is).  Properties come from
 * char_props.h (the rules are in scripts/gen_char_props.py: Arrow's, which
 * pandas' pyarrow-backed strings use) and case mappings from case_map.h
 * (simple, one to one, as Arrow's); casefold is Python's full folding.
 * The emit functions write into dst when it is not NULL and return the
 * output bytes, as in str_row.h.
 */
#ifndef ZAMBEZI_CPU_STR_TEXT_H
#define ZAMBEZI_CPU_STR_TEXT_H

#include "core/case_map.h"
#include "core/str_row.h"
#include "cpu/char_props.h"

#define ZB__NPROPS ((int64_t)(sizeof zb__char_props / sizeof zb__char_props[0]))
#define ZB__NUPPER ((int64_t)(sizeof zb__case_upper / sizeof zb__case_upper[0]))
#define ZB__NLOWER ((int64_t)(sizeof zb__case_lower / sizeof zb__case_lower[0]))
#define ZB__NFOLD ((int64_t)(sizeof zb__casefold / sizeof zb__casefold[0]))

/* The ZB__CP_ properties of code point c. */
static inline uint32_t zb__cp_props(uint32_t c) {
  int64_t lo = 0, hi = ZB__NPROPS - 1;
  while (lo < hi) {
    int64_t mid = (lo + hi + 1) / 2;
    if (zb__char_props[mid][0] <= c)
      lo = mid;
    else
      hi = mid - 1;
  }
  return zb__char_props[lo][1];
}

static inline uint32_t zb__cp_upper(uint32_t c) {
  if (c < 0x80) return zb__ascii_case((unsigned char)c, true);
  return zb__case_lookup(zb__case_upper, ZB__NUPPER, c);
}

static inline uint32_t zb__cp_lower(uint32_t c) {
  if (c < 0x80) return zb__ascii_case((unsigned char)c, false);
  return zb__case_lookup(zb__case_lower, ZB__NLOWER, c);
}

/* The next character of p[0, len) at *q: its code point (-1 for a
 * malformed sequence), *w its bytes. */
static inline int64_t zb__next_cp(const unsigned char *p, int64_t len, int64_t q, int64_t *w) {
  if (p[q] < 0x80) {
    *w = 1;
    return p[q];
  }
  *w = zb__utf8_width(p, q, len);
  if (*w != zb__utf8_lead_width(p[q])) return -1;
  return zb__utf8_decode(p, q, *w);
}

/* title (mode 0), capitalize (1), swapcase (2), casefold (3) of one row. */
static int64_t zb__recase_emit(int mode, const unsigned char *p, int64_t len, char *dst) {
  int64_t out = 0;
  bool next_upper = true, first = true;
  for (int64_t q = 0; q < len;) {
    int64_t w, c = zb__next_cp(p, len, q, &w);
    if (c < 0) { /* malformed: as is */
      if (dst) memcpy(dst + out, p + q, (size_t)w);
      out += w;
      q += w;
      next_upper = true;
      first = false;
      continue;
    }
    uint32_t u = (uint32_t)c, props = zb__cp_props(u);
    switch (mode) {
      case 0: /* Arrow's utf8_title: the first cased character of a run upper */
        if (props & ZB__CP_CASED) {
          u = next_upper ? zb__cp_upper(u) : zb__cp_lower(u);
          next_upper = false;
        } else {
          next_upper = true;
        }
        break;
      case 1:
        u = first ? zb__cp_upper(u) : zb__cp_lower(u);
        break;
      case 2:
        if (props & ZB__CP_LOWER) u = zb__cp_upper(u);
        else if (props & ZB__CP_UPPER) u = zb__cp_lower(u);
        break;
      default: {
        if (u < 0x80) {
          u = zb__cp_lower(u);
          break;
        }
        int64_t lo = 0, hi = ZB__NFOLD;
        while (lo < hi) {
          int64_t mid = lo + (hi - lo) / 2;
          if (zb__casefold[mid][0] < u) lo = mid + 1;
          else hi = mid;
        }
        if (lo < ZB__NFOLD && zb__casefold[lo][0] == u) {
          for (int k = 1; k < 4 && zb__casefold[lo][k] != 0; k++)
            out += zb__utf8_encode(zb__casefold[lo][k], dst ? dst + out : NULL);
          q += w;
          first = false;
          continue;
        }
      }
    }
    out += zb__utf8_encode(u, dst ? dst + out : NULL);
    q += w;
    first = false;
  }
  return out;
}

/* The is* predicate op of one row (pandas' pyarrow rules; "" is false). */
static bool zb__str_is(zb_str_op op, const unsigned char *p, int64_t len) {
  if (len == 0) return false;
  bool any_cased = false, prev_cased = false, bad = false;
  for (int64_t q = 0; q < len;) {
    int64_t w, c = zb__next_cp(p, len, q, &w);
    q += w;
    if (c < 0) return false;
    uint32_t u = (uint32_t)c;
    if (op == ZB_STR_ISSPACE) {
      if (!zb__is_space_cp(u)) return false;
      continue;
    }
    uint32_t f = zb__cp_props(u);
    switch (op) {
      case ZB_STR_ISALPHA: if (!(f & ZB__CP_ALPHA)) return false; break;
      case ZB_STR_ISDIGIT: if (!(f & ZB__CP_DIGIT)) return false; break;
      case ZB_STR_ISNUMERIC: if (!(f & ZB__CP_NUMERIC)) return false; break;
      case ZB_STR_ISDECIMAL: if (!(f & ZB__CP_DECIMAL)) return false; break;
      case ZB_STR_ISALNUM:
        if (!(f & (ZB__CP_ALPHA | ZB__CP_NUMERIC))) return false;
        break;
      case ZB_STR_ISLOWER:
        if (f & ZB__CP_CASED) {
          if (!(f & ZB__CP_LOWER)) return false;
          any_cased = true;
        }
        break;
      case ZB_STR_ISUPPER:
        if (f & ZB__CP_CASED) {
          if (!(f & ZB__CP_UPPER)) return false;
          any_cased = true;
        }
        break;
      default: /* ISTITLE: upper/title case only after uncased, lower only after cased */
        if (f & (ZB__CP_UPPER | ZB__CP_TITLE)) {
          bad |= prev_cased;
          prev_cased = any_cased = true;
        } else if (f & ZB__CP_CASED) {
          bad |= !prev_cased;
          prev_cased = any_cased = true;
        } else {
          prev_cased = false;
        }
        break;
    }
  }
  if (op == ZB_STR_ISLOWER || op == ZB_STR_ISUPPER) return any_cased;
  if (op == ZB_STR_ISTITLE) return any_cased && !bad;
  return true;
}

/* The fill character's UTF-8 bytes into buf (4 bytes); their count. */
static inline int64_t zb__fill_bytes(uint32_t fill, char *buf) {
  return zb__utf8_encode(fill, buf);
}

/* pad (side 0 left, 1 right, 2 both as Python's str.center) to width
 * characters with fill, zfill (side 3: zeros after a leading sign). */
static int64_t zb__pad_emit(const zb_str_args *a, const unsigned char *p, int64_t len,
                            char *dst) {
  int64_t chars = zb__utf8_count(p, len), marg = a->width - chars;
  if (marg <= 0) {
    if (dst && len) memcpy(dst, p, (size_t)len);
    return len;
  }
  char fb[4];
  int64_t fw = a->side == 3 ? 1 : zb__fill_bytes(a->fill, fb);
  if (a->side == 3) fb[0] = '0';
  int64_t left = a->side == 0 || a->side == 3 ? marg
                 : a->side == 1 ? 0
                                : marg / 2 + (marg & a->width & 1);
  int64_t right = marg - left, out = 0, sign = 0;
  if (a->side == 3 && len > 0 && (p[0] == '+' || p[0] == '-')) sign = 1;
  if (dst && sign) dst[0] = (char)p[0];
  out += sign;
  for (int64_t k = 0; k < left; k++, out += fw)
    if (dst) memcpy(dst + out, fb, (size_t)fw);
  if (dst && len - sign > 0) memcpy(dst + out, p + sign, (size_t)(len - sign));
  out += len - sign;
  for (int64_t k = 0; k < right; k++, out += fw)
    if (dst) memcpy(dst + out, fb, (size_t)fw);
  return out;
}

/* s * n. */
static inline int64_t zb__repeat_emit(const zb_str_args *a, const unsigned char *p, int64_t len,
                                      char *dst) {
  if (a->n <= 0) return 0;
  if (dst)
    for (int64_t k = 0; k < a->n; k++) memcpy(dst + k * len, p, (size_t)len);
  return len * a->n;
}

/* Python's str.find / rfind(pat, start, stop) in characters: the
 * character index of the first / last occurrence, or -1. */
static int64_t zb__find_row(const zb_str_args *a, bool reverse, const unsigned char *p,
                            int64_t len) {
  int64_t n = zb__utf8_count(p, len);
  int64_t start = a->has_start ? a->start : 0, end = a->has_stop ? a->stop : n;
  if (end > n) end = n;
  else if (end < 0) end = ZB_MAX(end + n, (int64_t)0);
  if (start < 0) start = ZB_MAX(start + n, (int64_t)0);
  int64_t m = a->pat_len;
  if (end - start < 0) return -1;
  int64_t bs = zb__char_pos(p, len, 0, 0, start);
  int64_t be = zb__char_pos(p, len, bs, start, end);
  if (m == 0) return reverse ? end : start;
  if (be - bs < m) return -1;
  const unsigned char *pat = (const unsigned char *)a->pat;
  int64_t hit = -1;
  if (!reverse) {
    hit = zb__find(p, be, bs, pat, m);
  } else {
    for (int64_t q = be - m; q >= bs; q--)
      if (p[q] == pat[0] && memcmp(p + q, pat, (size_t)m) == 0) {
        hit = q;
        break;
      }
  }
  if (hit < 0) return -1;
  return start + zb__utf8_count(p + bs, hit - bs);
}

#endif /* ZAMBEZI_CPU_STR_TEXT_H */
