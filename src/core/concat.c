/*
 * concat.c -- zb_column_concat: one column from several host columns of one
 * type, and the bitmap helpers it (and the Arrow importer) needs.
 *
 * Every dtype is handled: bitmaps (bool data and validity) are copied at
 * arbitrary bit offsets; string offsets are rebased onto one new character
 * buffer; categoricals reuse the first dictionary when all dictionaries are
 * byte-wise identical and otherwise build a merged dictionary (first
 * occurrence order, found with an open-addressing hash table) and remap the
 * codes; timestamps must agree in unit and timezone.  The result owns fresh
 * buffers except for a reused dictionary.  One input: a new reference to it,
 * no copy.  Host memory only.  Values and strings are copied in pieces on
 * the thread pool; bitmaps and dictionary remapping run serially.
 */
#include <string.h>

#include "core/internal.h"

/* Copy bits src[src_off, src_off + n) to dst[dst_off, ...).  Bits of dst
 * outside the range are preserved.  Never reads a src byte that holds none
 * of the copied bits. */
void zb__bitmap_copy(uint8_t *dst, int64_t dst_off, const uint8_t *src, int64_t src_off,
                     int64_t n) {
  int64_t i = 0;
  if (n <= 0) return;
  /* Leading bits until dst is byte aligned. */
  while (i < n && ((dst_off + i) & 7) != 0) {
    zb_bit_set(dst, dst_off + i, zb_bit_get(src, src_off + i));
    i++;
  }
  int64_t nbytes = (n - i) >> 3;
  if (nbytes > 0) {
    uint8_t *d = dst + ((dst_off + i) >> 3);
    const uint8_t *s = src + ((src_off + i) >> 3);
    int shift = (int)((src_off + i) & 7);
    if (shift == 0) {
      memcpy(d, s, (size_t)nbytes);
    } else {
      /* Each output byte takes 8 bits spanning s[k] and s[k + 1]; both lie
       * inside the source range because all 8 bits are copied. */
      for (int64_t k = 0; k < nbytes; k++)
        d[k] = (uint8_t)((s[k] >> shift) | (s[k + 1] << (8 - shift)));
    }
    i += nbytes * 8;
  }
  for (; i < n; i++) zb_bit_set(dst, dst_off + i, zb_bit_get(src, src_off + i));
}

/* Set bits dst[off, off + n) to value. */
void zb__bitmap_fill(uint8_t *dst, int64_t off, int64_t n, bool value) {
  int64_t i = 0;
  if (n <= 0) return;
  while (i < n && ((off + i) & 7) != 0) {
    zb_bit_set(dst, off + i, value);
    i++;
  }
  int64_t nbytes = (n - i) >> 3;
  if (nbytes > 0) {
    memset(dst + ((off + i) >> 3), value ? 0xff : 0, (size_t)nbytes);
    i += nbytes * 8;
  }
  for (; i < n; i++) zb_bit_set(dst, off + i, value);
}

/* ---- string access ------------------------------------------------------ */

static inline const int64_t *str_offsets(const zb_column *c) {
  return c->data != NULL ? (const int64_t *)c->data->data : NULL;
}
static inline const char *str_chars(const zb_column *c) {
  return c->chars != NULL ? (const char *)c->chars->data : "";
}

/* String i of a string column (no validity check). */
static inline void str_get(const zb_column *c, int64_t i, const char **p, int64_t *len) {
  const int64_t *o = str_offsets(c);
  if (o == NULL) {
    *p = "";
    *len = 0;
    return;
  }
  *p = str_chars(c) + o[c->offset + i];
  *len = o[c->offset + i + 1] - o[c->offset + i];
}

/* Value i of dictionary d as bytes: a string's UTF-8, a fixed-width
 * value's bytes, a bool as one byte 0 / 1 (pointing at a constant). */
static const char dict_bool_bytes[2] = {0, 1};
static inline void dict_get(const zb_column *d, int64_t i, const char **p, int64_t *len) {
  if (d->type == ZB_STRING) {
    str_get(d, i, p, len);
  } else if (d->type == ZB_BOOL) {
    *p = dict_bool_bytes + zb_bit_get((const uint8_t *)d->data->data, d->offset + i);
    *len = 1;
  } else {
    int w = zb_type_width(d->type);
    *p = (const char *)d->data->data + (d->offset + i) * w;
    *len = w;
  }
}

static bool same_strings(const zb_column *a, const zb_column *b) {
  if (a == b) return true;
  if (a->length != b->length || a->type != b->type || a->ordered != b->ordered) return false;
  for (int64_t i = 0; i < a->length; i++) {
    const char *pa, *pb;
    int64_t la, lb;
    dict_get(a, i, &pa, &la);
    dict_get(b, i, &pb, &lb);
    if (la != lb || (la > 0 && memcmp(pa, pb, (size_t)la) != 0)) return false;
  }
  return true;
}

static bool same_tz(const char *a, const char *b) {
  if (a == NULL || b == NULL) return a == b;
  return strcmp(a, b) == 0;
}

/* ---- categorical dictionary unification --------------------------------- */

static uint64_t hash_bytes(const char *p, int64_t n) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a, then a final mix */
  for (int64_t i = 0; i < n; i++) {
    h ^= (uint8_t)p[i];
    h *= 1099511628211ull;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

typedef struct merge_state {
  int64_t cap;       /* slots, a power of two */
  int64_t *slots;    /* merged index or -1 */
  const char **ptr;  /* merged strings (borrowed from the inputs) */
  int64_t *len;
  uint64_t *hash;
  int64_t count;
  int64_t chars;     /* total bytes of the merged strings */
} merge_state;

/* Insert (or find) a string; *idx receives its merged index. */
static void merge_insert(merge_state *m, const char *p, int64_t n, int64_t *idx) {
  uint64_t h = hash_bytes(p, n);
  int64_t mask = m->cap - 1;
  int64_t s = (int64_t)(h & (uint64_t)mask);
  for (;;) {
    int64_t e = m->slots[s];
    if (e < 0) break;
    if (m->hash[e] == h && m->len[e] == n && (n == 0 || memcmp(m->ptr[e], p, (size_t)n) == 0)) {
      *idx = e;
      return;
    }
    s = (s + 1) & mask;
  }
  int64_t e = m->count++;
  m->slots[s] = e;
  m->ptr[e] = p;
  m->len[e] = n;
  m->hash[e] = h;
  m->chars += n;
  *idx = e;
}

/* Build the merged dictionary of cols and, per column, a remap table from
 * its codes to merged codes (remaps[i] has cols[i]->dictionary->length
 * entries).  On success the caller frees remaps[i] and releases *dict. */
static zb_status unify_dictionaries(zb_column *const *cols, int64_t n, int32_t **remaps,
                                    zb_column **dict, zb_error *err) {
  zb_status st = ZB_OK;
  merge_state m;
  memset(&m, 0, sizeof m);
  zb_buffer *offs = NULL, *chars = NULL;
  int64_t total = 0;
  for (int64_t i = 0; i < n; i++) total += cols[i]->dictionary->length;
  m.cap = 16;
  while (m.cap < 2 * total) m.cap *= 2;
  m.slots = (int64_t *)zb_malloc((size_t)m.cap * sizeof(int64_t));
  m.ptr = (const char **)zb_malloc((size_t)(total + 1) * sizeof(char *));
  m.len = (int64_t *)zb_malloc((size_t)(total + 1) * sizeof(int64_t));
  m.hash = (uint64_t *)zb_malloc((size_t)(total + 1) * sizeof(uint64_t));
  if (m.slots == NULL || m.ptr == NULL || m.len == NULL || m.hash == NULL) {
    st = zb_error_set(err, ZB_ENOMEM,
                      "out of host memory unifying categorical dictionaries (%lld entries)",
                      (long long)total);
    goto done;
  }
  memset(m.slots, 0xff, (size_t)m.cap * sizeof(int64_t));
  for (int64_t i = 0; i < n; i++) {
    const zb_column *d = cols[i]->dictionary;
    remaps[i] = (int32_t *)zb_malloc((size_t)(d->length + 1) * sizeof(int32_t));
    if (remaps[i] == NULL) {
      st = zb_error_set(err, ZB_ENOMEM,
                        "out of host memory remapping categorical codes of column %lld",
                        (long long)i);
      goto done;
    }
    for (int64_t k = 0; k < d->length; k++) {
      const char *p;
      int64_t len, idx;
      dict_get(d, k, &p, &len);
      merge_insert(&m, p, len, &idx);
      if (idx > INT32_MAX) {
        st = zb_error_set(err, ZB_EOVERFLOW,
                          "merged categorical dictionary exceeds 2^31 - 1 entries");
        goto done;
      }
      remaps[i][k] = (int32_t)idx;
    }
  }
  const zb_column *d0 = cols[0]->dictionary;
  if (d0->type != ZB_STRING) {
    /* fixed-width or bool values: one buffer of the merged values */
    int w = zb_type_width(d0->type);
    int64_t bytes = d0->type == ZB_BOOL ? (m.count + 7) / 8 : m.count * w;
    st = zb_buffer_new(ZB_CPU, ZB_MAX(bytes, 1), &offs, err);
    if (st != ZB_OK) goto done;
    char *o = (char *)offs->data;
    for (int64_t e = 0; e < m.count; e++) {
      if (d0->type == ZB_BOOL)
        zb_bit_set((uint8_t *)o, e, m.ptr[e][0] != 0);
      else
        memcpy(o + e * w, m.ptr[e], (size_t)w);
    }
    st = zb_column_make(d0->type, m.count, 0, NULL, offs, NULL, NULL, 0, dict, err);
    if (st == ZB_OK && (d0->type == ZB_TIMESTAMP || d0->type == ZB_DURATION))
      st = zb_column_set_time(*dict, d0->unit, d0->timezone, err);
    if (st != ZB_OK) {
      zb_column_release(*dict);
      *dict = NULL;
    }
    goto done;
  }
  st = zb_buffer_new(ZB_CPU, (m.count + 1) * (int64_t)sizeof(int64_t), &offs, err);
  if (st != ZB_OK) goto done;
  st = zb_buffer_new(ZB_CPU, m.chars, &chars, err);
  if (st != ZB_OK) goto done;
  {
    int64_t *o = (int64_t *)offs->data;
    char *c = (char *)chars->data;
    int64_t pos = 0;
    for (int64_t e = 0; e < m.count; e++) {
      o[e] = pos;
      if (m.len[e] > 0) memcpy(c + pos, m.ptr[e], (size_t)m.len[e]);
      pos += m.len[e];
    }
    o[m.count] = pos;
  }
  st = zb_column_make(ZB_STRING, m.count, 0, NULL, offs, chars, NULL, 0, dict, err);
done:
  zb_buffer_release(offs);
  zb_buffer_release(chars);
  zb_free(m.slots);
  zb_free((void *)m.ptr);
  zb_free(m.len);
  zb_free(m.hash);
  if (st != ZB_OK) {
    for (int64_t i = 0; i < n; i++) {
      zb_free(remaps[i]);
      remaps[i] = NULL;
    }
  }
  return st;
}

/* ---- concat ------------------------------------------------------------- */

/* Copying the rows: in pieces of CONCAT_PIECE rows of one input, run on the
 * pool (so a large concat uses every core and stops at Ctrl-C).  Input i's
 * pieces are tasks [first[i], first[i + 1]); its rows land at row[i] of the
 * result (and its string bytes at chr[i]). */
#define CONCAT_PIECE ((int64_t)ZB_MORSEL_ROWS * 8)

typedef struct copy_job {
  zb_column *const *cols;
  int64_t n;
  int64_t *first; /* n + 1 */
  int64_t *row;   /* n */
  int64_t *chr;   /* n, strings */
  int w;          /* bytes per value; 0: strings */
  char *data;     /* values, or string offsets */
  char *chars;
} copy_job;

static void copy_piece(void *ctx, int64_t task, int worker) {
  (void)worker;
  const copy_job *j = (const copy_job *)ctx;
  int64_t i = 0;
  while (j->first[i + 1] <= task) i++;
  const zb_column *c = j->cols[i];
  int64_t lo = (task - j->first[i]) * CONCAT_PIECE, hi = ZB_MIN(lo + CONCAT_PIECE, c->length);
  if (j->w > 0) {
    memcpy(j->data + (j->row[i] + lo) * j->w, (const char *)c->data->data + (c->offset + lo) * j->w,
           (size_t)((hi - lo) * j->w));
    return;
  }
  const int64_t *so = str_offsets(c) + c->offset;
  int64_t *o = (int64_t *)j->data + j->row[i];
  int64_t shift = j->chr[i] - so[0];
  if (so[hi] > so[lo])
    memcpy(j->chars + so[lo] + shift, str_chars(c) + so[lo], (size_t)(so[hi] - so[lo]));
  for (int64_t k = lo; k < hi; k++) o[k] = so[k] + shift;
}

/* Copy the rows of every input (fixed width w, or strings when w == 0). */
static zb_status copy_rows(zb_column *const *cols, int64_t n, int w, char *data, char *chars,
                           zb_error *err) {
  int64_t *mem = (int64_t *)zb_malloc((size_t)(3 * n + 1) * sizeof(int64_t));
  if (mem == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (concat)");
  copy_job j = {cols, n, mem, mem + n + 1, mem + 2 * n + 1, w, data, chars};
  int64_t tasks = 0, row = 0, chr = 0;
  for (int64_t i = 0; i < n; i++) {
    j.first[i] = tasks;
    j.row[i] = row;
    j.chr[i] = chr;
    const zb_column *c = cols[i];
    tasks += (c->length + CONCAT_PIECE - 1) / CONCAT_PIECE;
    row += c->length;
    if (w == 0 && c->length > 0) {
      const int64_t *so = str_offsets(c) + c->offset;
      chr += so[c->length] - so[0];
    }
  }
  j.first[n] = tasks;
  if (w == 0) ((int64_t *)data)[row] = chr;
  zb_status st = zb_parallel_for(tasks, copy_piece, &j, err);
  zb_free(mem);
  return st;
}

/* Lists: offsets rebased onto one child, the concatenation of each input's
 * child rows [offsets[first], offsets[last]) (sliced, so shared until the
 * child concat copies them).  Validity was built by the caller. */
static zb_status concat_lists(zb_column *const *cols, int64_t n, int64_t total,
                              zb_buffer *validity, int64_t nulls, zb_column **out,
                              zb_error *err) {
  zb_buffer *offsets = NULL;
  zb_column *child = NULL, **parts = (zb_column **)zb_calloc((size_t)n, sizeof(zb_column *));
  zb_status st = parts == NULL ? zb_error_set(err, ZB_ENOMEM, "out of host memory (concat)")
                               : ZB_OK;
  if (st == ZB_OK) st = zb_buffer_new(ZB_CPU, (total + 1) * (int64_t)sizeof(int64_t), &offsets, err);
  int64_t row = 0, base = 0;
  for (int64_t i = 0; i < n && st == ZB_OK; i++) {
    const zb_column *c = cols[i];
    if (c->child == NULL) {
      st = zb_error_set(err, ZB_EINVAL, "concat: list column %lld has no child", (long long)i);
      break;
    }
    const int64_t *o = (const int64_t *)c->data->data + c->offset;
    int64_t *d = (int64_t *)offsets->data + row;
    for (int64_t k = 0; k < c->length; k++) {
      if ((k & 0xffff) == 0xffff && zb_cancel_requested()) {
        st = zb_error_set(err, ZB_ECANCEL, "concat: interrupted");
        break;
      }
      d[k] = base + (o[k] - o[0]);
    }
    if (st != ZB_OK) break;
    st = zb_column_slice(c->child, o[0], o[c->length] - o[0], &parts[i], err);
    base += o[c->length] - o[0];
    row += c->length;
  }
  if (st == ZB_OK) {
    ((int64_t *)offsets->data)[total] = base;
    st = zb_column_concat(parts, n, &child, err);
  }
  if (st == ZB_OK)
    st = zb_column_make_list(total, 0, validity, offsets, child, nulls, out, err);
  if (parts != NULL)
    for (int64_t i = 0; i < n; i++) zb_column_release(parts[i]);
  zb_free(parts);
  zb_buffer_release(offsets);
  zb_column_release(child);
  return st;
}

/* Columns on a GPU, concatenated over host copies (the CUDA backend has no
 * concat kernel yet; profiles record a fallback), the result moved back. */
static zb_status concat_over_host(zb_column *const *cols, int64_t n, zb_column **out,
                                  zb_error *err) {
  zb_device dev = cols[0]->device;
  int64_t rows = 0;
  for (int64_t i = 0; i < n; i++) rows += cols[i]->length;
  ZB_PROFILE_SPAN("concat", "concat", false, dev, dev, rows);
  zb_column **host = zb_calloc((size_t)n, sizeof *host);
  if (host == NULL) return zb_error_set(err, ZB_ENOMEM, "concat: out of host memory");
  zb_status st = ZB_OK;
  zb_column *res = NULL;
  for (int64_t i = 0; i < n && st == ZB_OK; i++)
    st = zb_column_to_device(cols[i], ZB_CPU, &host[i], err);
  if (st == ZB_OK) st = zb_column_concat(host, n, &res, err);
  if (st == ZB_OK) st = zb_column_to_device(res, dev, out, err);
  zb_column_release(res);
  for (int64_t i = 0; i < n; i++) zb_column_release(host[i]);
  zb_free(host);
  return st;
}

zb_status zb_column_concat(zb_column *const *cols, int64_t n, zb_column **out,
                           zb_error *err) {
  zb_status st = ZB_OK;
  zb_buffer *validity = NULL, *data = NULL, *chars = NULL;
  zb_column *dict = NULL, *res = NULL;
  int32_t **remaps = NULL;

  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "concat: out is NULL");
  *out = NULL;
  if (cols == NULL || n <= 0)
    return zb_error_set(err, ZB_EINVAL, "concat needs at least one column (got %lld)",
                        (long long)n);
  for (int64_t i = 0; i < n; i++) {
    const zb_column *c = cols[i];
    if (c == NULL)
      return zb_error_set(err, ZB_EINVAL, "concat: column %lld is NULL", (long long)i);
    if (c->device.kind != cols[0]->device.kind || c->device.id != cols[0]->device.id)
      return zb_error_set(err, ZB_EINVAL,
                          "concat: columns on different devices (column 0 on %s, column "
                          "%lld on %s); move them to one device first",
                          cols[0]->device.kind == ZB_DEVICE_CPU ? "cpu" : "a GPU", (long long)i,
                          c->device.kind == ZB_DEVICE_CPU ? "cpu" : "a GPU");
    if (c->type != cols[0]->type)
      return zb_error_set(err, ZB_ETYPE,
                          "cannot concatenate columns of different types: %s (column 0) "
                          "and %s (column %lld)",
                          zb_type_name(cols[0]->type), zb_type_name(c->type), (long long)i);
    if ((c->type == ZB_TIMESTAMP || c->type == ZB_DURATION) &&
        (c->unit != cols[0]->unit || !same_tz(c->timezone, cols[0]->timezone)))
      return zb_error_set(err, ZB_ETYPE,
                          "cannot concatenate timestamps with different units or "
                          "timezones: column 0 is %s tz=%s, column %lld is %s tz=%s",
                          zb_type_name(cols[0]->type),
                          cols[0]->timezone ? cols[0]->timezone : "none", (long long)i,
                          zb_type_name(c->type), c->timezone ? c->timezone : "none");
    if (c->type == ZB_CATEGORICAL && c->dictionary == NULL)
      return zb_error_set(err, ZB_EINVAL, "concat: categorical column %lld has no dictionary",
                          (long long)i);
    if (c->type == ZB_CATEGORICAL) {
      const zb_column *d = c->dictionary, *d0 = cols[0]->dictionary;
      bool timed = d->type == ZB_TIMESTAMP || d->type == ZB_DURATION;
      if (d->type != d0->type || (timed && (d->unit != d0->unit ||
                                            !same_tz(d->timezone, d0->timezone))))
        return zb_error_set(err, ZB_ETYPE,
                            "cannot concatenate categoricals whose categories have different "
                            "dtypes: %s (column 0) and %s (column %lld)",
                            zb_type_name(d0->type), zb_type_name(d->type), (long long)i);
      if (d->device.kind != ZB_DEVICE_CPU && c->device.kind == ZB_DEVICE_CPU)
        return zb_error_set(err, ZB_EINVAL,
                            "concat: the categories of column %lld are not in host memory",
                            (long long)i);
    }
  }
  if (n == 1) {
    *out = zb_column_retain(cols[0]);
    return ZB_OK;
  }
  if (cols[0]->device.kind != ZB_DEVICE_CPU) return concat_over_host(cols, n, out, err);

  const zb_type_id type = cols[0]->type;
  int64_t total = 0, nulls = 0, total_chars = 0;
  for (int64_t i = 0; i < n; i++) {
    if (cols[i]->length > INT64_MAX - total)
      return zb_error_set(err, ZB_EOVERFLOW, "concat: total length overflows int64");
    total += cols[i]->length;
    nulls += cols[i]->null_count;
    if (type == ZB_STRING && cols[i]->length > 0) {
      const int64_t *o = str_offsets(cols[i]);
      int64_t span = o[cols[i]->offset + cols[i]->length] - o[cols[i]->offset];
      if (span > INT64_MAX - total_chars)
        return zb_error_set(err, ZB_EOVERFLOW, "concat: total string bytes overflow int64");
      total_chars += span;
    }
  }

  /* Validity: only when some input has nulls. */
  if (nulls > 0) {
    st = zb_buffer_new(ZB_CPU, (total + 7) / 8, &validity, err);
    if (st != ZB_OK) goto done;
    uint8_t *v = (uint8_t *)validity->data;
    int64_t pos = 0;
    for (int64_t i = 0; i < n; i++) {
      const zb_column *c = cols[i];
      if (c->validity != NULL && c->null_count != 0)
        zb__bitmap_copy(v, pos, (const uint8_t *)c->validity->data, c->offset, c->length);
      else
        zb__bitmap_fill(v, pos, c->length, true);
      pos += c->length;
    }
  }

  if (type == ZB_LIST) {
    st = concat_lists(cols, n, total, validity, nulls, out, err);
    goto done;
  }

  switch (type) {
    case ZB_BOOL: {
      st = zb_buffer_new(ZB_CPU, (total + 7) / 8, &data, err);
      if (st != ZB_OK) goto done;
      uint8_t *d = (uint8_t *)data->data;
      int64_t pos = 0;
      for (int64_t i = 0; i < n; i++) {
        zb__bitmap_copy(d, pos, (const uint8_t *)cols[i]->data->data, cols[i]->offset,
                        cols[i]->length);
        pos += cols[i]->length;
      }
      break;
    }
    case ZB_STRING: {
      st = zb_buffer_new(ZB_CPU, (total + 1) * (int64_t)sizeof(int64_t), &data, err);
      if (st != ZB_OK) goto done;
      st = zb_buffer_new(ZB_CPU, total_chars, &chars, err);
      if (st != ZB_OK) goto done;
      st = copy_rows(cols, n, 0, (char *)data->data, (char *)chars->data, err);
      break;
    }
    case ZB_CATEGORICAL: {
      bool identical = true;
      for (int64_t i = 1; i < n && identical; i++)
        identical = same_strings(cols[0]->dictionary, cols[i]->dictionary);
      st = zb_buffer_new(ZB_CPU, total * (int64_t)sizeof(int32_t), &data, err);
      if (st != ZB_OK) goto done;
      int32_t *d = (int32_t *)data->data;
      if (identical) {
        dict = zb_column_retain(cols[0]->dictionary);
        st = copy_rows(cols, n, (int)sizeof(int32_t), (char *)d, NULL, err);
        break;
      }
      remaps = (int32_t **)zb_calloc((size_t)n, sizeof(int32_t *));
      if (remaps == NULL) {
        st = zb_error_set(err, ZB_ENOMEM, "out of host memory concatenating categoricals");
        goto done;
      }
      st = unify_dictionaries(cols, n, remaps, &dict, err);
      if (st != ZB_OK) goto done;
      int64_t pos = 0;
      for (int64_t i = 0; i < n; i++) {
        const zb_column *c = cols[i];
        const int32_t *codes = (const int32_t *)c->data->data + c->offset;
        const int32_t *map = remaps[i];
        uint32_t dlen = (uint32_t)c->dictionary->length;
        for (int64_t k = 0; k < c->length; k++) {
          if (!zb_column_is_valid(c, k)) {
            d[pos + k] = 0; /* a null's code is never read; keep it in range */
            continue;
          }
          if ((uint32_t)codes[k] >= dlen) {
            st = zb_error_set(err, ZB_EINVAL,
                              "concat: categorical column %lld row %lld has code %d outside "
                              "its dictionary of %u entries",
                              (long long)i, (long long)k, (int)codes[k], (unsigned)dlen);
            goto done;
          }
          d[pos + k] = map[codes[k]];
        }
        pos += c->length;
      }
      break;
    }
    default: {
      int w = zb_type_width(type);
      if (w <= 0) {
        st = zb_error_set(err, ZB_ENOTSUP, "concat: unsupported type %s", zb_type_name(type));
        goto done;
      }
      st = zb_buffer_new(ZB_CPU, total * w, &data, err);
      if (st != ZB_OK) goto done;
      st = copy_rows(cols, n, w, (char *)data->data, NULL, err);
      break;
    }
  }

  if (st != ZB_OK) goto done;
  st = zb_column_make(type, total, 0, validity, data, chars, dict, nulls, &res, err);
  if (st != ZB_OK) goto done;
  if (type == ZB_TIMESTAMP || type == ZB_DURATION) {
    st = zb_column_set_time(res, cols[0]->unit, cols[0]->timezone, err);
    if (st != ZB_OK) goto done;
  }
  *out = res;
  res = NULL;
done:
  zb_column_release(res);
  zb_buffer_release(validity);
  zb_buffer_release(data);
  zb_buffer_release(chars);
  zb_column_release(dict);
  if (remaps != NULL) {
    for (int64_t i = 0; i < n; i++) zb_free(remaps[i]);
    zb_free(remaps);
  }
  return st;
}
