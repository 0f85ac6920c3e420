/*
 * list.c -- list columns (Arrow large_list) on the CPU: row selection
 * (take and filter), str.join, and each list's Python repr (to_csv).
 *
 * Take and filter.  A list row is a range of child rows, so both gather
 * the offsets of the chosen rows and then the child rows of their ranges:
 * morsel by morsel, the lengths of the chosen lists are summed (pass 1),
 * the morsels' totals are turned into starting positions, and each morsel
 * writes its rows' new offsets, validity bits and the child row of every
 * element it keeps (pass 2).  The child is then gathered by zb_column_take
 * with those child rows (so the child may be any type the engine takes).
 *
 * A null index, or a null list, gives a null (empty) list.  Filters keep
 * the rows whose mask value is true and valid.
 */
#include <string.h>

#include "cpu/kernels.h"

typedef struct list_take_job {
  const zb_column *col;   /* the list column */
  const zb_column *idx;   /* int64 row numbers, in range where valid */
  int64_t *sum;           /* per morsel: child rows taken (pass 1), then start */
  int64_t *offsets;       /* result offsets, length + 1 */
  uint8_t *valid;         /* result validity (NULL: none needed) */
  int64_t *child_rows;    /* result: child row of every kept element */
} list_take_job;

/* Whether result row i is a valid list, and its source row. */
static inline bool take_row(const list_take_job *j, int64_t i, int64_t *src) {
  const zb_column *ix = j->idx;
  if (!zb_column_is_valid(ix, i)) return false;
  *src = ((const int64_t *)ix->data->data)[ix->offset + i];
  return zb_column_is_valid(j->col, *src);
}

static void list_take_count(void *ctx, int64_t task, int worker) {
  (void)worker;
  list_take_job *j = (list_take_job *)ctx;
  const int64_t *o = (const int64_t *)j->col->data->data + j->col->offset;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(j->idx->length, s + ZB_MORSEL_ROWS), sum = 0;
  for (int64_t i = s; i < e; i++) {
    int64_t r;
    if (take_row(j, i, &r)) sum += o[r + 1] - o[r];
  }
  j->sum[task] = sum;
}

static void list_take_write(void *ctx, int64_t task, int worker) {
  (void)worker;
  list_take_job *j = (list_take_job *)ctx;
  const int64_t *o = (const int64_t *)j->col->data->data + j->col->offset;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(j->idx->length, s + ZB_MORSEL_ROWS);
  int64_t pos = j->sum[task];
  for (int64_t i = s; i < e; i++) {
    int64_t r;
    bool ok = take_row(j, i, &r);
    j->offsets[i] = pos;
    if (j->valid != NULL) zb_bit_set(j->valid, i, ok); /* morsels are whole bytes */
    if (!ok) continue;
    for (int64_t k = o[r]; k < o[r + 1]; k++) j->child_rows[pos++] = k;
  }
}

zb_status zb__cpu_list_take(const zb_column *col, const zb_column *indices, zb_column **out,
                            zb_error *err) {
  *out = NULL;
  int64_t n = indices->length, nm = zb__morsels(n);
  bool nulls = col->null_count > 0 || indices->null_count > 0;
  list_take_job j = {col, indices, NULL, NULL, NULL, NULL};
  zb_buffer *offsets = NULL, *validity = NULL;
  zb_column *rows = NULL, *child = NULL;
  zb_status st = zb_buffer_new(ZB_CPU, (n + 1) * (int64_t)sizeof(int64_t), &offsets, err);
  if (st == ZB_OK && nulls) st = zb_buffer_new_zeroed(ZB_CPU, (n + 7) / 8, &validity, err);
  if (st == ZB_OK) {
    j.sum = (int64_t *)zb_malloc((size_t)ZB_MAX(nm, 1) * sizeof(int64_t));
    if (j.sum == NULL) st = zb_error_set(err, ZB_ENOMEM, "out of host memory (list take)");
  }
  if (st == ZB_OK) st = zb_parallel_for(nm, list_take_count, &j, err);
  int64_t total = 0;
  for (int64_t m = 0; st == ZB_OK && m < nm; m++) {
    int64_t c = j.sum[m];
    j.sum[m] = total;
    total += c;
  }
  if (st == ZB_OK) st = zb_column_new(ZB_INT64, total, false, 0, &rows, err);
  if (st == ZB_OK) {
    j.offsets = (int64_t *)offsets->data;
    j.valid = validity != NULL ? (uint8_t *)validity->data : NULL;
    j.child_rows = (int64_t *)rows->data->data;
    j.offsets[n] = total;
    st = zb_parallel_for(nm, list_take_write, &j, err);
  }
  if (st == ZB_OK) st = zb_column_take(col->child, rows, &child, err);
  if (st == ZB_OK) st = zb_column_make_list(n, 0, validity, offsets, child, -1, out, err);
  zb_free(j.sum);
  zb_buffer_release(offsets);
  zb_buffer_release(validity);
  zb_column_release(rows);
  zb_column_release(child);
  return st;
}

/* ---- filter: the kept rows' numbers, then a take ------------------------- */

typedef struct mask_job {
  const zb_column *mask;
  int64_t *count; /* per morsel: kept rows, then the first output position */
  int64_t *rows;
} mask_job;

static inline bool kept(const zb_column *m, int64_t i) {
  return zb_column_is_valid(m, i) &&
         zb_bit_get((const uint8_t *)m->data->data, m->offset + i);
}

static void mask_count(void *ctx, int64_t task, int worker) {
  (void)worker;
  mask_job *j = (mask_job *)ctx;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(j->mask->length, s + ZB_MORSEL_ROWS), c = 0;
  for (int64_t i = s; i < e; i++) c += kept(j->mask, i);
  j->count[task] = c;
}

static void mask_write(void *ctx, int64_t task, int worker) {
  (void)worker;
  mask_job *j = (mask_job *)ctx;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(j->mask->length, s + ZB_MORSEL_ROWS);
  int64_t pos = j->count[task];
  for (int64_t i = s; i < e; i++)
    if (kept(j->mask, i)) j->rows[pos++] = i;
}

zb_status zb__cpu_list_filter(const zb_column *col, const zb_column *mask, zb_column **out,
                              zb_error *err) {
  *out = NULL;
  int64_t nm = zb__morsels(mask->length);
  mask_job j = {mask, (int64_t *)zb_malloc((size_t)ZB_MAX(nm, 1) * sizeof(int64_t)), NULL};
  if (j.count == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (list filter)");
  zb_column *rows = NULL;
  zb_status st = zb_parallel_for(nm, mask_count, &j, err);
  int64_t total = 0;
  for (int64_t m = 0; st == ZB_OK && m < nm; m++) {
    int64_t c = j.count[m];
    j.count[m] = total;
    total += c;
  }
  if (st == ZB_OK) st = zb_column_new(ZB_INT64, total, false, 0, &rows, err);
  if (st == ZB_OK) {
    j.rows = (int64_t *)rows->data->data;
    st = zb_parallel_for(nm, mask_write, &j, err);
  }
  if (st == ZB_OK) st = zb__cpu_list_take(col, rows, out, err);
  zb_free(j.count);
  zb_column_release(rows);
  return st;
}

/* ---- join: each list of strings as one string ----------------------------- */

/* A string column built in two passes over the morsels of its rows: pass 1
 * stores each morsel's byte count in bytes[task]; the counts are then
 * turned into starting positions and chars is allocated; pass 2 writes
 * each row's offset and bytes, morsel task from bytes[task] on.  A job
 * carries one as its member b. */
typedef struct str_builder {
  int64_t *bytes;   /* per morsel: bytes (pass 1), then the start */
  int64_t *offsets; /* result string offsets, rows + 1 */
  char *chars;
} str_builder;

/* Run count then write (zb_task_fns over job, whose builder is b) over the
 * morsels of n rows.  On success *offsets and *chars are new host buffers
 * the caller owns (offsets[n] set); on failure both are NULL.  what names
 * the operation in the out-of-memory message. */
static zb_status build_strings(int64_t n, str_builder *b, void *job, zb_task_fn count,
                               zb_task_fn write, const char *what, zb_buffer **offsets,
                               zb_buffer **chars, zb_error *err) {
  *offsets = *chars = NULL;
  int64_t nm = zb__morsels(n);
  zb_status st = zb_buffer_new(ZB_CPU, (n + 1) * (int64_t)sizeof(int64_t), offsets, err);
  if (st == ZB_OK) {
    b->bytes = (int64_t *)zb_malloc((size_t)ZB_MAX(nm, 1) * sizeof(int64_t));
    if (b->bytes == NULL) st = zb_error_set(err, ZB_ENOMEM, "out of host memory (%s)", what);
  }
  if (st == ZB_OK) st = zb_parallel_for(nm, count, job, err);
  int64_t total = st == ZB_OK ? zb__exclusive_scan(b->bytes, nm) : 0;
  if (st == ZB_OK) st = zb_buffer_new(ZB_CPU, total, chars, err);
  if (st == ZB_OK) {
    b->offsets = (int64_t *)(*offsets)->data;
    b->chars = (char *)(*chars)->data;
    b->offsets[n] = total;
    st = zb_parallel_for(nm, write, job, err);
  }
  zb_free(b->bytes);
  b->bytes = NULL;
  if (st != ZB_OK) {
    zb_buffer_release(*offsets);
    zb_buffer_release(*chars);
    *offsets = *chars = NULL;
  }
  return st;
}

typedef struct list_join_job {
  const zb_column *col; /* list<string> */
  const char *sep;
  int64_t sep_len;
  bool repr;      /* "[" + elements + "]", a null element as None (Python's list repr) */
  uint8_t *valid; /* result validity, all rows */
  str_builder b;
} list_join_job;

/* Whether row i joins (a valid list of valid strings), and its bytes. */
static inline bool join_row(const list_join_job *j, int64_t i, int64_t *bytes) {
  const zb_column *c = j->col, *ch = c->child;
  if (!zb_column_is_valid(c, i)) return false;
  const int64_t *o = (const int64_t *)c->data->data + c->offset;
  const int64_t *so = (const int64_t *)ch->data->data + ch->offset;
  int64_t b = j->repr ? 2 : 0;
  for (int64_t k = o[i]; k < o[i + 1]; k++) {
    if (!zb_column_is_valid(ch, k)) {
      if (!j->repr) return false;
      b += 4; /* None */
    } else {
      b += so[k + 1] - so[k];
    }
  }
  if (o[i + 1] > o[i]) b += j->sep_len * (o[i + 1] - o[i] - 1);
  *bytes = b;
  return true;
}

static void list_join_count(void *ctx, int64_t task, int worker) {
  (void)worker;
  list_join_job *j = (list_join_job *)ctx;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(j->col->length, s + ZB_MORSEL_ROWS), sum = 0;
  for (int64_t i = s; i < e; i++) {
    int64_t b;
    bool ok = join_row(j, i, &b);
    zb_bit_set(j->valid, i, ok); /* morsels are whole bytes */
    if (ok) sum += b;
  }
  j->b.bytes[task] = sum;
}

static void list_join_write(void *ctx, int64_t task, int worker) {
  (void)worker;
  list_join_job *j = (list_join_job *)ctx;
  const zb_column *c = j->col, *ch = c->child;
  const int64_t *o = (const int64_t *)c->data->data + c->offset;
  const int64_t *so = (const int64_t *)ch->data->data + ch->offset;
  const char *src = (const char *)ch->chars->data;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(c->length, s + ZB_MORSEL_ROWS);
  int64_t pos = j->b.bytes[task];
  char *chars = j->b.chars;
  for (int64_t i = s; i < e; i++) {
    j->b.offsets[i] = pos;
    if (!zb_bit_get(j->valid, i)) continue;
    if (j->repr) chars[pos++] = '[';
    for (int64_t k = o[i]; k < o[i + 1]; k++) {
      if (k > o[i] && j->sep_len > 0) {
        memcpy(chars + pos, j->sep, (size_t)j->sep_len);
        pos += j->sep_len;
      }
      if (j->repr && !zb_column_is_valid(ch, k)) {
        memcpy(chars + pos, "None", 4);
        pos += 4;
        continue;
      }
      memcpy(chars + pos, src + so[k], (size_t)(so[k + 1] - so[k]));
      pos += so[k + 1] - so[k];
    }
    if (j->repr) chars[pos++] = ']';
  }
}

static zb_status join_rows(const zb_column *col, const char *sep, int64_t sep_len, bool repr,
                           zb_column **out, zb_error *err) {
  *out = NULL;
  int64_t n = col->length;
  list_join_job j = {col, sep, sep_len, repr, NULL, {NULL, NULL, NULL}};
  zb_buffer *offsets = NULL, *validity = NULL, *chars = NULL;
  zb_status st = zb_buffer_new_zeroed(ZB_CPU, (n + 7) / 8, &validity, err);
  if (st == ZB_OK) {
    j.valid = (uint8_t *)validity->data;
    st = build_strings(n, &j.b, &j, list_join_count, list_join_write, "str.join", &offsets,
                       &chars, err);
  }
  if (st == ZB_OK)
    st = zb_column_make(ZB_STRING, n, 0, validity, offsets, chars, NULL, -1, out, err);
  zb_buffer_release(offsets);
  zb_buffer_release(validity);
  zb_buffer_release(chars);
  return st;
}

zb_status zb__cpu_list_join(const zb_column *col, const char *sep, int64_t sep_len,
                            zb_column **out, zb_error *err) {
  return join_rows(col, sep, sep_len, false, out, err);
}

/* ---- repr: each list as Python's repr of it (pandas' to_csv text) -------- */

/* Whether code point c (not ASCII) is one Python's repr escapes: the C1
 * controls, and the non-ASCII separators, spaces and format characters
 * unicodedata calls not printable (Zs/Zl/Zp/Cf/Cc).  Private-use and
 * unassigned code points are not looked up: they are written as they are. */
static bool unprintable(uint32_t c) {
  if (c <= 0xa0 || c == 0xad) return true; /* C1, no-break space, soft hyphen */
  if (c < 0x600) return false;
  if ((c >= 0x600 && c <= 0x605) || c == 0x61c || c == 0x6dd || c == 0x70f || c == 0x890 ||
      c == 0x891 || c == 0x8e2 || c == 0x1680 || c == 0x180e)
    return true;
  if ((c >= 0x2000 && c <= 0x200f) || (c >= 0x2028 && c <= 0x202f) ||
      (c >= 0x205f && c <= 0x2064) || (c >= 0x2066 && c <= 0x206f) || c == 0x3000 ||
      c == 0xfeff || (c >= 0xfff9 && c <= 0xfffb))
    return true;
  if ((c >= 0xd800 && c <= 0xdfff) || c == 0x110bd || c == 0x110cd ||
      (c >= 0x13430 && c <= 0x1343f) || (c >= 0x1bca0 && c <= 0x1bca3) ||
      (c >= 0x1d173 && c <= 0x1d17a) || c == 0xe0001 || (c >= 0xe0020 && c <= 0xe007f))
    return true;
  return false;
}

/* The bytes of string s[0, n) as Python's repr writes it (quotes and
 * escapes), written to out unless out is NULL; returns their count.  The
 * string is valid UTF-8 (every string column is). */
static int64_t py_repr(const uint8_t *s, int64_t n, char *out) {
  bool single = false, dbl = false;
  for (int64_t k = 0; k < n; k++) {
    single |= s[k] == '\'';
    dbl |= s[k] == '"';
  }
  const char q = single && !dbl ? '"' : '\'';
  static const char hex[] = "0123456789abcdef";
  int64_t w = 0;
#define PUT(ch)                     \
  do {                              \
    if (out != NULL) out[w] = (ch); \
    w++;                            \
  } while (0)
  PUT(q);
  for (int64_t k = 0; k < n;) {
    uint8_t b = s[k];
    if (b < 0x80) {
      k++;
      if (b == (uint8_t)q || b == '\\') {
        PUT('\\');
        PUT((char)b);
      } else if (b == '\t' || b == '\n' || b == '\r') {
        PUT('\\');
        PUT(b == '\t' ? 't' : b == '\n' ? 'n' : 'r');
      } else if (b < 0x20 || b == 0x7f) {
        PUT('\\');
        PUT('x');
        PUT(hex[b >> 4]);
        PUT(hex[b & 15]);
      } else {
        PUT((char)b);
      }
      continue;
    }
    int len = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
    if (k + len > n) len = (int)(n - k);
    uint32_t c = b & (len == 4 ? 0x07 : len == 3 ? 0x0f : 0x1f);
    for (int t = 1; t < len; t++) c = (c << 6) | (s[k + t] & 0x3f);
    if (!unprintable(c)) {
      for (int t = 0; t < len; t++) PUT((char)s[k + t]);
    } else {
      int digits = c <= 0xff ? 2 : c <= 0xffff ? 4 : 8;
      PUT('\\');
      PUT(digits == 2 ? 'x' : digits == 4 ? 'u' : 'U');
      for (int t = digits - 1; t >= 0; t--) PUT(hex[(c >> (4 * t)) & 15]);
    }
    k += len;
  }
  PUT(q);
#undef PUT
  return w;
}

typedef struct repr_job {
  const zb_column *col; /* string */
  str_builder b;
} repr_job;

static void repr_count(void *ctx, int64_t task, int worker) {
  (void)worker;
  repr_job *j = (repr_job *)ctx;
  const zb_column *c = j->col;
  const int64_t *so = (const int64_t *)c->data->data + c->offset;
  const uint8_t *src = (const uint8_t *)c->chars->data;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(c->length, s + ZB_MORSEL_ROWS), sum = 0;
  for (int64_t i = s; i < e; i++)
    if (zb_column_is_valid(c, i)) sum += py_repr(src + so[i], so[i + 1] - so[i], NULL);
  j->b.bytes[task] = sum;
}

static void repr_write(void *ctx, int64_t task, int worker) {
  (void)worker;
  repr_job *j = (repr_job *)ctx;
  const zb_column *c = j->col;
  const int64_t *so = (const int64_t *)c->data->data + c->offset;
  const uint8_t *src = (const uint8_t *)c->chars->data;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(c->length, s + ZB_MORSEL_ROWS);
  int64_t pos = j->b.bytes[task];
  for (int64_t i = s; i < e; i++) {
    j->b.offsets[i] = pos;
    if (zb_column_is_valid(c, i)) pos += py_repr(src + so[i], so[i + 1] - so[i], j->b.chars + pos);
  }
}

/* Each string as Python's repr of it; nulls stay null. */
static zb_status strings_repr(const zb_column *col, zb_column **out, zb_error *err) {
  *out = NULL;
  int64_t n = col->length;
  repr_job j = {col, {NULL, NULL, NULL}};
  zb_buffer *offsets = NULL, *chars = NULL, *validity = NULL;
  zb_status st = ZB_OK;
  if (col->null_count > 0 && col->validity != NULL) { /* rebased to offset 0 */
    st = zb_buffer_new(ZB_CPU, (n + 7) / 8, &validity, err);
    if (st == ZB_OK)
      zb__bitmap_copy((uint8_t *)validity->data, 0, (const uint8_t *)col->validity->data,
                      col->offset, n);
  }
  if (st == ZB_OK)
    st = build_strings(n, &j.b, &j, repr_count, repr_write, "list repr", &offsets, &chars, err);
  if (st == ZB_OK)
    st = zb_column_make(ZB_STRING, n, 0, validity, offsets, chars, NULL,
                        validity != NULL ? col->null_count : 0, out, err);
  zb_buffer_release(offsets);
  zb_buffer_release(chars);
  zb_buffer_release(validity);
  return st;
}

zb_status zb__cpu_list_repr(const zb_column *col, zb_column **out, zb_error *err) {
  *out = NULL;
  const zb_column *ch = col->child;
  zb_column *texts = NULL, *lists = NULL;
  zb_status st;
  if (ch->type == ZB_LIST)
    st = zb__cpu_list_repr(ch, &texts, err); /* depth <= ZB_LIST_MAX_DEPTH */
  else if (ch->type == ZB_STRING)
    st = strings_repr(ch, &texts, err);
  else /* numbers and bools: the cast's text is Python's str (shortest float digits) */
    st = zb_column_cast(ch, ZB_STRING, ZB_MICRO, &texts, err);
  if (st == ZB_OK)
    st = zb_column_make_list(col->length, col->offset, col->validity, col->data, texts,
                             col->null_count, &lists, err);
  if (st == ZB_OK) st = join_rows(lists, ", ", 2, true, out, err);
  zb_column_release(texts);
  zb_column_release(lists);
  return st;
}
