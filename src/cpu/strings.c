/*
 * strings.c -- CPU string kernels: length in characters, literal substring
 * tests (contains / startswith / endswith), case mapping, strip, slice in
 * characters, literal replace, and row-wise concatenation.
 *
 * Inputs are string columns (UTF-8, int64 offsets); categoricals were turned
 * into their dictionary by src/core/strings_ops.c.  Work is split in morsels
 * of ZB_MORSEL_ROWS rows run on the thread pool.  Fixed-width results (len,
 * the bool tests) are written in place.  Where the output length of a row
 * varies (strip, slice, replace, cat) a first pass stores each row's output
 * length in the offsets array and sums them per morsel, an exclusive scan
 * over morsels gives each morsel's first output byte, and a second pass
 * turns lengths into offsets and writes the bytes; the result is identical
 * for any thread count.  lower / upper map ASCII letters in place when the
 * bytes are all ASCII (offsets the input's, rebased); otherwise each
 * character goes through the Unicode simple case mappings of case_map.h
 * (whose UTF-8 widths may differ: "ı" -> "I") in the two passes.  Null
 * rows give null (and an empty string, or 0 / false, underneath).  Input
 * is assumed to be valid UTF-8 (as Arrow requires); a truncated sequence
 * counts as one character (case mapping copies it as it is).
 */
#define _GNU_SOURCE
#include <string.h>

#include "cpu/case_map.h"
#include "cpu/kernels.h"
#include "cpu/strings_kernels.h"

/* ---- UTF-8 helpers ------------------------------------------------------- */

static inline bool is_cont(unsigned char b) { return (b & 0xC0) == 0x80; }

/* Characters in p[0, len): the bytes that are not continuation bytes. */
static inline int64_t utf8_count(const unsigned char *p, int64_t len) {
  int64_t cont = 0;
  for (int64_t i = 0; i < len; i++) cont += is_cont(p[i]);
  return len - cont;
}

/* Bytes of the character starting at p[q] (q < e), clamped to e. */
static inline int64_t utf8_width(const unsigned char *p, int64_t q, int64_t e) {
  int64_t r = q + 1;
  while (r < e && is_cont(p[r])) r++;
  return r - q;
}

/* The code point of the character at p[q, q + w). */
static inline uint32_t utf8_decode(const unsigned char *p, int64_t q, int64_t w) {
  uint32_t c = p[q];
  if (w == 1) return c;
  if (w == 2) return ((c & 0x1F) << 6) | (p[q + 1] & 0x3F);
  if (w == 3) return ((c & 0x0F) << 12) | ((uint32_t)(p[q + 1] & 0x3F) << 6) | (p[q + 2] & 0x3F);
  return ((c & 0x07) << 18) | ((uint32_t)(p[q + 1] & 0x3F) << 12) |
         ((uint32_t)(p[q + 2] & 0x3F) << 6) | (p[q + 3] & 0x3F);
}

/* An ASCII byte in upper or lower case (other bytes unchanged). */
static inline unsigned char ascii_case(unsigned char b, bool upper) {
  if (upper) return (unsigned char)(b >= 'a' && b <= 'z' ? b - 32 : b);
  return (unsigned char)(b >= 'A' && b <= 'Z' ? b + 32 : b);
}

/* Start of the character that ends at p[e - 1] (e > b). */
static inline int64_t utf8_back(const unsigned char *p, int64_t b, int64_t e) {
  int64_t q = e - 1;
  while (q > b && is_cont(p[q])) q--;
  return q;
}

/* Python's str.isspace for one code point. */
static inline bool is_space_cp(uint32_t c) {
  if (c < 0x80) return (c >= 9 && c <= 13) || (c >= 0x1C && c <= 0x20);
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

/* ---- job shared by the morsel functions ---------------------------------- */

typedef struct str_job {
  const zb_column *c;
  const zb_str_args *a;
  zb_column *out;
  int64_t *bytes; /* per morsel: output bytes, then first output byte */
  /* strip with a character set: ASCII members in a table, others listed */
  bool ascii_set[128];
  uint32_t *wide;
  int64_t n_wide;
} str_job;

static inline bool strip_member(const str_job *j, uint32_t c) {
  if (j->a->pat == NULL) return is_space_cp(c);
  if (c < 128) return j->ascii_set[c];
  for (int64_t k = 0; k < j->n_wide; k++)
    if (j->wide[k] == c) return true;
  return false;
}

/* The kept byte range [*b, *e) of p[0, len) after stripping. */
static inline void strip_range(const str_job *j, const unsigned char *p, int64_t len,
                               int64_t *pb, int64_t *pe) {
  zb_str_op op = j->a->op;
  int64_t b = 0, e = len;
  if (op != ZB_STR_RSTRIP) {
    while (b < e) {
      int64_t w = utf8_width(p, b, e);
      if (!strip_member(j, utf8_decode(p, b, w))) break;
      b += w;
    }
  }
  if (op != ZB_STR_LSTRIP) {
    while (e > b) {
      int64_t q = utf8_back(p, b, e);
      if (!strip_member(j, utf8_decode(p, q, e - q))) break;
      e = q;
    }
  }
  *pb = b;
  *pe = e;
}

/* Python's slice.indices for a sequence of n items: adjusts *start and
 * *stop, returns the number of items selected. */
static int64_t slice_adjust(int64_t n, const zb_str_args *a, int64_t *pstart, int64_t *pstop) {
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
static inline int64_t char_pos(const unsigned char *p, int64_t len, int64_t from, int64_t at,
                               int64_t k) {
  int64_t q = from;
  for (; at < k && q < len; at++) q += utf8_width(p, q, len);
  return q;
}

/* s[start:stop:step] of p[0, len): writes into dst when not NULL; returns
 * the output bytes. */
static int64_t slice_emit(const zb_str_args *a, const unsigned char *p, int64_t len,
                          char *dst) {
  int64_t n = utf8_count(p, len), start, stop;
  int64_t cnt = slice_adjust(n, a, &start, &stop), step = a->step;
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
  int64_t q = char_pos(p, len, 0, 0, start);
  if (step == 1) {
    int64_t r = char_pos(p, len, q, start, start + cnt);
    if (dst) memcpy(dst, p + q, (size_t)(r - q));
    return r - q;
  }
  int64_t out = 0, at = start;
  for (int64_t k = 0; k < cnt; k++) {
    if (k > 0) {
      if (step > 0) {
        q = char_pos(p, len, q, at, at + step);
        at += step;
      } else {
        for (int64_t s = 0; s < -step; s++) q = utf8_back(p, 0, q);
        at += step;
      }
    }
    int64_t w = utf8_width(p, q, len);
    if (dst) memcpy(dst + out, p + q, (size_t)w);
    out += w;
  }
  return out;
}

/* Python's str.replace(pat, repl, n) of p[0, len); writes into dst when not
 * NULL; returns the output bytes. */
static int64_t replace_emit(const zb_str_args *a, const unsigned char *p, int64_t len,
                            char *dst) {
  int64_t plen = a->pat_len, rlen = a->repl_len, lim = a->n, out = 0, done = 0;
#define EMIT(src, m)                                                            \
  do {                                                                          \
    if (dst && (m) > 0) memcpy(dst + out, (src), (size_t)(m));                  \
    out += (m);                                                                 \
  } while (0)
  if (plen == 0) {
    int64_t q = 0;
    while (q < len) {
      if (lim < 0 || done < lim) {
        EMIT(a->repl, rlen);
        done++;
      }
      int64_t w = utf8_width(p, q, len);
      EMIT(p + q, w);
      q += w;
    }
    if (lim < 0 || done < lim) EMIT(a->repl, rlen);
    return out;
  }
  int64_t pos = 0;
  while (lim < 0 || done < lim) {
    const unsigned char *hit =
        (const unsigned char *)memmem(p + pos, (size_t)(len - pos), a->pat, (size_t)plen);
    if (hit == NULL) break;
    int64_t h = hit - p;
    EMIT(p + pos, h - pos);
    EMIT(a->repl, rlen);
    pos = h + plen;
    done++;
  }
  EMIT(p + pos, len - pos);
#undef EMIT
  return out;
}

/* The UTF-8 bytes of code point c at dst (when not NULL); their count. */
static inline int64_t utf8_encode(uint32_t c, char *dst) {
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

/* The simple case mapping of non-ASCII code point c (c itself if none):
 * a binary search of the sorted table of n pairs. */
static inline uint32_t case_lookup(const uint32_t (*t)[2], int64_t n, uint32_t c) {
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

/* Bytes of a well-formed UTF-8 character with lead byte b (0: b cannot
 * lead one). */
static inline int64_t utf8_lead_width(unsigned char b) {
  if (b >= 0xC2 && b <= 0xDF) return 2;
  if (b >= 0xE0 && b <= 0xEF) return 3;
  if (b >= 0xF0 && b <= 0xF4) return 4;
  return 0;
}

/* upper / lower of one row, character by character; a malformed sequence
 * is copied as it is.  Output bytes; writes when dst. */
static int64_t case_emit(bool upper, const unsigned char *p, int64_t len, char *dst) {
  const uint32_t(*t)[2] = upper ? zb__case_upper : zb__case_lower;
  const int64_t nt = upper ? (int64_t)(sizeof zb__case_upper / sizeof zb__case_upper[0])
                           : (int64_t)(sizeof zb__case_lower / sizeof zb__case_lower[0]);
  int64_t out = 0;
  for (int64_t q = 0; q < len;) {
    unsigned char b = p[q];
    if (b < 0x80) {
      if (dst != NULL) dst[out] = (char)ascii_case(b, upper);
      out++;
      q++;
      continue;
    }
    int64_t w = utf8_width(p, q, len);
    if (w != utf8_lead_width(b)) { /* not a well-formed character: as is */
      if (dst != NULL) memcpy(dst + out, p + q, (size_t)w);
      out += w;
      q += w;
      continue;
    }
    out += utf8_encode(case_lookup(t, nt, utf8_decode(p, q, w)), dst != NULL ? dst + out : NULL);
    q += w;
  }
  return out;
}

/* Output bytes of one row of a variable-length op; writes when dst. */
static inline int64_t vary_emit(const str_job *j, const unsigned char *p, int64_t len,
                                char *dst) {
  switch (j->a->op) {
    case ZB_STR_SLICE:
      return slice_emit(j->a, p, len, dst);
    case ZB_STR_REPLACE:
      return replace_emit(j->a, p, len, dst);
    case ZB_STR_UPPER:
    case ZB_STR_LOWER:
      return case_emit(j->a->op == ZB_STR_UPPER, p, len, dst);
    default: {
      int64_t b, e;
      strip_range(j, p, len, &b, &e);
      if (dst && e > b) memcpy(dst, p + b, (size_t)(e - b));
      return e - b;
    }
  }
}

static inline void morsel_range(const zb_column *c, int64_t task, int64_t *start,
                                int64_t *n) {
  *start = task * ZB_MORSEL_ROWS;
  *n = ZB_MIN((int64_t)ZB_MORSEL_ROWS, c->length - *start);
}

/* Pass 1: lengths into out offsets [i + 1], morsel total into bytes. */
static void vary_size(void *ctx, int64_t task, int worker) {
  (void)worker;
  str_job *j = (str_job *)ctx;
  int64_t start, n;
  morsel_range(j->c, task, &start, &n);
  int64_t *oo = (int64_t *)j->out->data->data;
  int64_t total = 0;
  for (int64_t i = start; i < start + n; i++) {
    int64_t len = 0, m = 0;
    const unsigned char *p = (const unsigned char *)zb__str(j->c, i, &len);
    if (zb_column_is_valid(j->c, i)) m = vary_emit(j, p, len, NULL);
    oo[i + 1] = m;
    total += m;
  }
  j->bytes[task] = total;
}

/* Pass 2: lengths to offsets, bytes written. */
static void vary_write(void *ctx, int64_t task, int worker) {
  (void)worker;
  str_job *j = (str_job *)ctx;
  int64_t start, n;
  morsel_range(j->c, task, &start, &n);
  int64_t *oo = (int64_t *)j->out->data->data;
  char *ch = (char *)j->out->chars->data;
  int64_t pos = j->bytes[task];
  for (int64_t i = start; i < start + n; i++) {
    int64_t m = oo[i + 1];
    if (m > 0) {
      int64_t len;
      const unsigned char *p = (const unsigned char *)zb__str(j->c, i, &len);
      vary_emit(j, p, len, ch + pos);
    }
    pos += m;
    oo[i + 1] = pos;
  }
}

/* Exclusive scan of bytes[0, nm); returns the total. */
static int64_t scan_bytes(int64_t *bytes, int64_t nm) {
  int64_t total = 0;
  for (int64_t m = 0; m < nm; m++) {
    int64_t b = bytes[m];
    bytes[m] = total;
    total += b;
  }
  return total;
}

/* ---- fixed-width results ------------------------------------------------- */

static void len_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  str_job *j = (str_job *)ctx;
  int64_t start, n;
  morsel_range(j->c, task, &start, &n);
  int64_t *d = (int64_t *)j->out->data->data;
  for (int64_t i = start; i < start + n; i++) {
    int64_t len;
    const unsigned char *p = (const unsigned char *)zb__str(j->c, i, &len);
    d[i] = zb_column_is_valid(j->c, i) ? utf8_count(p, len) : 0;
  }
}

static inline bool match_row(const zb_str_args *a, const char *p, int64_t len) {
  int64_t m = a->pat_len;
  if (m == 0) return true;
  if (m > len) return false;
  switch (a->op) {
    case ZB_STR_STARTSWITH:
      return memcmp(p, a->pat, (size_t)m) == 0;
    case ZB_STR_ENDSWITH:
      return memcmp(p + len - m, a->pat, (size_t)m) == 0;
    default:
      return memmem(p, (size_t)len, a->pat, (size_t)m) != NULL;
  }
}

static void match_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  str_job *j = (str_job *)ctx;
  int64_t start, n;
  morsel_range(j->c, task, &start, &n);
  uint8_t *d = (uint8_t *)j->out->data->data;
  for (int64_t k = 0; k < n; k += 64) {
    int mm = (int)ZB_MIN((int64_t)64, n - k);
    uint64_t v = zb__valid_word(j->c, start + k, mm), w = 0;
    for (int q = 0; q < mm; q++) {
      int64_t len;
      const char *p = zb__str(j->c, start + k + q, &len);
      w |= (uint64_t)(((v >> q) & 1) && match_row(j->a, p, len)) << q;
    }
    zb__store_bits(d, start + k, w, mm);
  }
}

static void case_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  str_job *j = (str_job *)ctx;
  int64_t start, n;
  morsel_range(j->c, task, &start, &n);
  const zb_column *c = j->c;
  const int64_t *so = (const int64_t *)c->data->data + c->offset;
  int64_t *oo = (int64_t *)j->out->data->data;
  int64_t base = so[0];
  for (int64_t i = start; i < start + n; i++) oo[i + 1] = so[i + 1] - base;
  const unsigned char *src = (const unsigned char *)c->chars->data + so[start];
  unsigned char *dst = (unsigned char *)j->out->chars->data + (so[start] - base);
  int64_t nb = so[start + n] - so[start];
  /* two loops, each with the case fixed, so that each vectorizes */
  if (j->a->op == ZB_STR_UPPER)
    for (int64_t b = 0; b < nb; b++) dst[b] = ascii_case(src[b], true);
  else
    for (int64_t b = 0; b < nb; b++) dst[b] = ascii_case(src[b], false);
}

/* Whether the bytes of c's rows are all ASCII (null rows' bytes included:
 * only a faster path depends on it). */
static bool all_ascii(const zb_column *c) {
  const int64_t *so = (const int64_t *)c->data->data + c->offset;
  const unsigned char *p = (const unsigned char *)c->chars->data + so[0];
  int64_t nb = so[c->length] - so[0], b = 0;
  uint64_t any = 0;
  for (; b + 8 <= nb; b += 8) {
    uint64_t w;
    memcpy(&w, p + b, 8);
    any |= w;
  }
  for (; b < nb; b++) any |= p[b];
  return (any & UINT64_C(0x8080808080808080)) == 0;
}

/* A copy of c's validity for a new column o of the same length. */
static zb_status copy_validity(const zb_column *c, zb_column *o, zb_error *err) {
  if (c->validity == NULL || c->null_count == 0) return ZB_OK;
  ZB_RETURN_NOT_OK(zb_buffer_new(ZB_CPU, (c->length + 7) / 8, &o->validity, err));
  zb__bitmap_copy((uint8_t *)o->validity->data, 0, (const uint8_t *)c->validity->data,
                  c->offset, c->length);
  o->null_count = c->null_count;
  return ZB_OK;
}

/* Decode the strip set into the job (wide members in a zb_malloc array). */
static zb_status strip_set(str_job *j, zb_error *err) {
  const zb_str_args *a = j->a;
  memset(j->ascii_set, 0, sizeof j->ascii_set);
  j->wide = NULL;
  j->n_wide = 0;
  if (a->pat == NULL || a->pat_len == 0) return ZB_OK;
  const unsigned char *p = (const unsigned char *)a->pat;
  int64_t len = a->pat_len;
  j->wide = (uint32_t *)zb_malloc((size_t)len * sizeof(uint32_t));
  if (j->wide == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (strip set)");
  for (int64_t q = 0; q < len;) {
    int64_t w = utf8_width(p, q, len);
    uint32_t c = utf8_decode(p, q, w);
    if (c < 128)
      j->ascii_set[c] = true;
    else
      j->wide[j->n_wide++] = c;
    q += w;
  }
  return ZB_OK;
}

zb_status zb__cpu_str(const zb_column *col, const zb_str_args *args, zb_column **out,
                      zb_error *err) {
  *out = NULL;
  int64_t n = col->length, nm = zb__morsels(n);
  str_job j;
  memset(&j, 0, sizeof j);
  j.c = col;
  j.a = args;
  zb_column *o = NULL;
  zb_status st = ZB_OK;
  switch (args->op) {
    case ZB_STR_LEN:
      st = zb_column_new(ZB_INT64, n, false, 0, &o, err);
      if (st == ZB_OK) st = copy_validity(col, o, err);
      j.out = o;
      if (st == ZB_OK) st = zb_parallel_for(nm, len_morsel, &j, err);
      break;
    case ZB_STR_CONTAINS:
    case ZB_STR_STARTSWITH:
    case ZB_STR_ENDSWITH:
      st = zb_column_new(ZB_BOOL, n, false, 0, &o, err);
      if (st == ZB_OK) st = copy_validity(col, o, err);
      j.out = o;
      if (st == ZB_OK) st = zb_parallel_for(nm, match_morsel, &j, err);
      break;
    case ZB_STR_LOWER:
    case ZB_STR_UPPER:
      if (all_ascii(col)) { /* every byte count kept: one pass in place */
        const int64_t *so = (const int64_t *)col->data->data + col->offset;
        st = zb_column_new(ZB_STRING, n, false, so[n] - so[0], &o, err);
        if (st == ZB_OK) st = copy_validity(col, o, err);
        j.out = o;
        if (st == ZB_OK) st = zb_parallel_for(nm, case_morsel, &j, err);
        break;
      }
      /* characters whose UTF-8 width may change: the two passes below */
      __attribute__((fallthrough));
    default: { /* strip, slice, replace, case of non-ASCII: two passes */
      if (args->op == ZB_STR_STRIP || args->op == ZB_STR_LSTRIP || args->op == ZB_STR_RSTRIP)
        st = strip_set(&j, err);
      if (st == ZB_OK) {
        j.bytes = (int64_t *)zb_malloc((size_t)(nm > 0 ? nm : 1) * sizeof(int64_t));
        if (j.bytes == NULL) st = zb_error_set(err, ZB_ENOMEM, "out of host memory (%s)",
                                               zb_str_op_name(args->op));
      }
      if (st == ZB_OK) st = zb_column_new(ZB_STRING, n, false, 0, &o, err);
      if (st == ZB_OK) st = copy_validity(col, o, err);
      j.out = o;
      if (st == ZB_OK) st = zb_parallel_for(nm, vary_size, &j, err);
      if (st == ZB_OK) {
        int64_t total = scan_bytes(j.bytes, nm);
        zb_buffer_release(o->chars);
        o->chars = NULL;
        st = zb_buffer_new(ZB_CPU, total, &o->chars, err);
      }
      if (st == ZB_OK) st = zb_parallel_for(nm, vary_write, &j, err);
      zb_free(j.bytes);
      zb_free(j.wide);
      break;
    }
  }
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}

/* ---- cat ------------------------------------------------------------------ */

typedef struct cat_job {
  const zb_column *a, *b;
  bool as, bs;
  const char *sep;
  int64_t sep_len;
  zb_column *out;
  int64_t *bytes;
} cat_job;

static inline bool cat_valid(const cat_job *j, int64_t i) {
  return zb_column_is_valid(j->a, j->as ? 0 : i) && zb_column_is_valid(j->b, j->bs ? 0 : i);
}

static void cat_size(void *ctx, int64_t task, int worker) {
  (void)worker;
  cat_job *j = (cat_job *)ctx;
  int64_t start, n;
  morsel_range(j->out, task, &start, &n);
  int64_t *oo = (int64_t *)j->out->data->data;
  uint8_t *ov = j->out->validity ? (uint8_t *)j->out->validity->data : NULL;
  int64_t total = 0;
  for (int64_t k = 0; k < n; k += 64) {
    int mm = (int)ZB_MIN((int64_t)64, n - k);
    uint64_t v = 0;
    for (int q = 0; q < mm; q++) {
      int64_t i = start + k + q, la, lb, m = 0;
      if (cat_valid(j, i)) {
        zb__str(j->a, j->as ? 0 : i, &la);
        zb__str(j->b, j->bs ? 0 : i, &lb);
        m = la + j->sep_len + lb;
        v |= UINT64_C(1) << q;
      }
      oo[i + 1] = m;
      total += m;
    }
    if (ov) zb__store_bits(ov, start + k, v, mm);
  }
  j->bytes[task] = total;
}

static void cat_write(void *ctx, int64_t task, int worker) {
  (void)worker;
  cat_job *j = (cat_job *)ctx;
  int64_t start, n;
  morsel_range(j->out, task, &start, &n);
  int64_t *oo = (int64_t *)j->out->data->data;
  char *ch = (char *)j->out->chars->data;
  int64_t pos = j->bytes[task];
  for (int64_t i = start; i < start + n; i++) {
    int64_t m = oo[i + 1];
    if (m > 0) {
      int64_t la, lb;
      const char *pa = zb__str(j->a, j->as ? 0 : i, &la);
      const char *pb = zb__str(j->b, j->bs ? 0 : i, &lb);
      char *d = ch + pos;
      if (la > 0) memcpy(d, pa, (size_t)la);
      if (j->sep_len > 0) memcpy(d + la, j->sep, (size_t)j->sep_len);
      if (lb > 0) memcpy(d + la + j->sep_len, pb, (size_t)lb);
    }
    pos += m;
    oo[i + 1] = pos;
  }
}

zb_status zb__cpu_str_cat(const zb_column *a, bool a_scalar, const zb_column *b,
                          bool b_scalar, const char *sep, int64_t sep_len, zb_column **out,
                          zb_error *err) {
  *out = NULL;
  int64_t n = a_scalar ? b->length : a->length, nm = zb__morsels(n);
  bool nulls = a->null_count > 0 || b->null_count > 0;
  cat_job j = {a, b, a_scalar, b_scalar, sep, sep_len, NULL, NULL};
  zb_column *o = NULL;
  zb_status st = zb_column_new(ZB_STRING, n, nulls, 0, &o, err);
  j.out = o;
  if (st == ZB_OK) {
    j.bytes = (int64_t *)zb_malloc((size_t)(nm > 0 ? nm : 1) * sizeof(int64_t));
    if (j.bytes == NULL) st = zb_error_set(err, ZB_ENOMEM, "out of host memory (str_cat)");
  }
  if (st == ZB_OK) st = zb_parallel_for(nm, cat_size, &j, err);
  if (st == ZB_OK) {
    int64_t total = scan_bytes(j.bytes, nm);
    zb_buffer_release(o->chars);
    o->chars = NULL;
    st = zb_buffer_new(ZB_CPU, total, &o->chars, err);
  }
  if (st == ZB_OK) st = zb_parallel_for(nm, cat_write, &j, err);
  zb_free(j.bytes);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  zb_column_recount_nulls(o);
  *out = o;
  return ZB_OK;
}
