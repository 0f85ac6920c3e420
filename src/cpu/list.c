/*
 * list.c -- row selection of list columns (Arrow large_list) on the CPU:
 * take and filter.  A list row is a range of child rows, so both gather
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

typedef struct list_join_job {
  const zb_column *col; /* list<string> */
  const char *sep;
  int64_t sep_len;
  int64_t *bytes;   /* per morsel: bytes written (pass 1), then the start */
  int64_t *offsets; /* result string offsets */
  uint8_t *valid;   /* result validity, all rows */
  char *chars;
} list_join_job;

/* Whether row i joins (a valid list of valid strings), and its bytes. */
static inline bool join_row(const list_join_job *j, int64_t i, int64_t *bytes) {
  const zb_column *c = j->col, *ch = c->child;
  if (!zb_column_is_valid(c, i)) return false;
  const int64_t *o = (const int64_t *)c->data->data + c->offset;
  const int64_t *so = (const int64_t *)ch->data->data + ch->offset;
  int64_t b = 0;
  for (int64_t k = o[i]; k < o[i + 1]; k++) {
    if (!zb_column_is_valid(ch, k)) return false;
    b += so[k + 1] - so[k];
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
  j->bytes[task] = sum;
}

static void list_join_write(void *ctx, int64_t task, int worker) {
  (void)worker;
  list_join_job *j = (list_join_job *)ctx;
  const zb_column *c = j->col, *ch = c->child;
  const int64_t *o = (const int64_t *)c->data->data + c->offset;
  const int64_t *so = (const int64_t *)ch->data->data + ch->offset;
  const char *src = (const char *)ch->chars->data;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(c->length, s + ZB_MORSEL_ROWS);
  int64_t pos = j->bytes[task];
  for (int64_t i = s; i < e; i++) {
    j->offsets[i] = pos;
    if (!zb_bit_get(j->valid, i)) continue;
    for (int64_t k = o[i]; k < o[i + 1]; k++) {
      if (k > o[i] && j->sep_len > 0) {
        memcpy(j->chars + pos, j->sep, (size_t)j->sep_len);
        pos += j->sep_len;
      }
      memcpy(j->chars + pos, src + so[k], (size_t)(so[k + 1] - so[k]));
      pos += so[k + 1] - so[k];
    }
  }
}

zb_status zb__cpu_list_join(const zb_column *col, const char *sep, int64_t sep_len,
                            zb_column **out, zb_error *err) {
  *out = NULL;
  int64_t n = col->length, nm = zb__morsels(n);
  list_join_job j = {col, sep, sep_len, NULL, NULL, NULL, NULL};
  zb_buffer *offsets = NULL, *validity = NULL, *chars = NULL;
  zb_status st = zb_buffer_new(ZB_CPU, (n + 1) * (int64_t)sizeof(int64_t), &offsets, err);
  if (st == ZB_OK) st = zb_buffer_new_zeroed(ZB_CPU, (n + 7) / 8, &validity, err);
  if (st == ZB_OK) {
    j.bytes = (int64_t *)zb_malloc((size_t)ZB_MAX(nm, 1) * sizeof(int64_t));
    if (j.bytes == NULL) st = zb_error_set(err, ZB_ENOMEM, "out of host memory (str.join)");
  }
  if (st == ZB_OK) {
    j.valid = (uint8_t *)validity->data;
    st = zb_parallel_for(nm, list_join_count, &j, err);
  }
  int64_t total = 0;
  for (int64_t m = 0; st == ZB_OK && m < nm; m++) {
    int64_t b = j.bytes[m];
    j.bytes[m] = total;
    total += b;
  }
  if (st == ZB_OK) st = zb_buffer_new(ZB_CPU, total, &chars, err);
  if (st == ZB_OK) {
    j.offsets = (int64_t *)offsets->data;
    j.chars = (char *)chars->data;
    j.offsets[n] = total;
    st = zb_parallel_for(nm, list_join_write, &j, err);
  }
  if (st == ZB_OK)
    st = zb_column_make(ZB_STRING, n, 0, validity, offsets, chars, NULL, -1, out, err);
  zb_free(j.bytes);
  zb_buffer_release(offsets);
  zb_buffer_release(validity);
  zb_buffer_release(chars);
  return st;
}
