/*
 * utf8_check.c -- whether every string value of a table is well-formed
 * UTF-8 (text_values.h), for readers of formats whose strings arrive as
 * bytes nothing has checked (Arrow IPC): the engine and the Python layer
 * take every string to be valid UTF-8.
 *
 * String columns, string categories and the string values of lists (at
 * any depth) are cut into pieces of about PIECE_BYTES characters, checked
 * on the pool.  A piece's characters are checked at once: valid bytes are
 * valid values unless a value starts inside its neighbour's character (a
 * continuation byte).  Where that fails, the piece's values are checked
 * one by one, null slots skipped (Arrow leaves their bytes undefined), and
 * the first bad value, in column order then row order, is reported.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "io/text_values.h"

#define PIECE_BYTES (INT64_C(1) << 22)

typedef struct {
  const zb_column *col;
  int64_t col_index; /* the table column it belongs to */
  const char *what;  /* what its values are: "row", "category", "list value" */
} utf8_col;

typedef struct {
  int64_t col; /* into cols */
  int64_t begin, end;
} utf8_piece;

typedef struct {
  const utf8_col *cols;
  const utf8_piece *pieces;
  pthread_mutex_t lock;
  int64_t bad_col, bad_row; /* the first bad value found (bad_col -1: none) */
} utf8_job;

/* Whether value i of string column c is valid (true for a null). */
static bool value_ok(const zb_column *c, const int64_t *off, const uint8_t *chars, int64_t i) {
  if (!zb_column_is_valid(c, i)) return true;
  return zb__text_utf8_valid(chars + off[i], off[i + 1] - off[i]);
}

static void utf8_task(void *ctx, int64_t t, int worker) {
  (void)worker;
  utf8_job *j = (utf8_job *)ctx;
  const utf8_piece *p = &j->pieces[t];
  const zb_column *c = j->cols[p->col].col;
  const int64_t *off = (const int64_t *)c->data->data + c->offset;
  const uint8_t *chars = (const uint8_t *)c->chars->data;
  bool cont = false;
  for (int64_t i = p->begin; i < p->end; i++)
    cont |= off[i + 1] > off[i] && (chars[off[i]] & 0xC0) == 0x80;
  if (!cont && zb__text_utf8_valid(chars + off[p->begin], off[p->end] - off[p->begin])) return;
  for (int64_t i = p->begin; i < p->end; i++) {
    if (value_ok(c, off, chars, i)) continue;
    pthread_mutex_lock(&j->lock);
    if (j->bad_col < 0 || p->col < j->bad_col || (p->col == j->bad_col && i < j->bad_row)) {
      j->bad_col = p->col;
      j->bad_row = i;
    }
    pthread_mutex_unlock(&j->lock);
    return;
  }
}

/* The string columns under c (itself, its categories, its list values),
 * appended to cols (NULL: only counted). */
static int64_t collect(const zb_column *c, int64_t col_index, utf8_col *cols, int64_t n) {
  int depth = 0;
  const char *what = "row";
  while (c->type == ZB_LIST && depth++ < ZB_LIST_MAX_DEPTH) {
    c = c->child;
    what = "list value";
  }
  if (c->type == ZB_CATEGORICAL && c->dictionary != NULL) {
    c = c->dictionary;
    what = "category";
  }
  if (c->type != ZB_STRING || c->length == 0 || c->device.kind != ZB_DEVICE_CPU) return n;
  if (cols != NULL) cols[n] = (utf8_col){c, col_index, what};
  return n + 1;
}

zb_status zb__table_utf8_check(const zb_table *t, char *msg, size_t msg_size, zb_error *err) {
  msg[0] = '\0';
  int64_t nc = 0;
  for (int64_t k = 0; k < t->num_columns; k++) nc = collect(t->columns[k], k, NULL, nc);
  if (nc == 0) return ZB_OK;
  utf8_col *cols = (utf8_col *)zb_malloc((size_t)nc * sizeof(utf8_col));
  if (cols == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (UTF-8 check)");
  nc = 0;
  for (int64_t k = 0; k < t->num_columns; k++) nc = collect(t->columns[k], k, cols, nc);
  /* pieces: each column's rows cut evenly into about PIECE_BYTES each */
  int64_t np = 0;
  for (int64_t i = 0; i < nc; i++) {
    const zb_column *c = cols[i].col;
    const int64_t *off = (const int64_t *)c->data->data + c->offset;
    int64_t bytes = off[c->length] - off[0];
    int64_t k = bytes / PIECE_BYTES + 1;
    np += k < c->length ? k : c->length;
  }
  utf8_piece *pieces = (utf8_piece *)zb_malloc((size_t)np * sizeof(utf8_piece));
  if (pieces == NULL) {
    zb_free(cols);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (UTF-8 check)");
  }
  np = 0;
  for (int64_t i = 0; i < nc; i++) {
    const zb_column *c = cols[i].col;
    const int64_t *off = (const int64_t *)c->data->data + c->offset;
    int64_t k = (off[c->length] - off[0]) / PIECE_BYTES + 1;
    if (k > c->length) k = c->length;
    for (int64_t q = 0; q < k; q++)
      pieces[np++] = (utf8_piece){i, c->length * q / k, c->length * (q + 1) / k};
  }
  utf8_job j;
  j.cols = cols;
  j.pieces = pieces;
  j.bad_col = -1;
  j.bad_row = -1;
  pthread_mutex_init(&j.lock, NULL);
  zb_status st = zb_parallel_for(np, utf8_task, &j, err);
  pthread_mutex_destroy(&j.lock);
  if (st == ZB_OK && j.bad_col >= 0) {
    const utf8_col *b = &cols[j.bad_col];
    snprintf(msg, msg_size, "column '%s', %s %lld, is not valid UTF-8", t->names[b->col_index],
             b->what, (long long)j.bad_row);
  }
  zb_free(pieces);
  zb_free(cols);
  return st;
}
