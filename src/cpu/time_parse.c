/*
 * time_parse.c -- the CPU kernel of zb_column_parse_time: each morsel
 * parses its rows with src/core/time_parse.h and notes its first bad row
 * and the UTC offsets it saw; the morsels' notes are merged in row order.
 */
#include <string.h>

#include "core/time_parse.h"
#include "core/values.h"
#include "cpu/kernels.h"
#include "cpu/strings_kernels.h"

_Static_assert(ZB_MORSEL_ROWS % 8 == 0, "morsels must own whole bytes of the bitmap");

typedef struct {
  int64_t bad;   /* first bad row of the morsel, -1: none */
  bool offset, naive, mixed;
  int32_t first_offset;
} parse_note;

typedef struct {
  const zb_column *c;
  zb_parse_kind kind;
  const char *format;
  int64_t *vals;
  uint8_t *valid; /* the result's bitmap: morsels start at multiples of 8 rows */
  parse_note *notes;
} parse_job;

static void parse_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  parse_job *j = (parse_job *)ctx;
  const zb_column *c = j->c;
  int64_t start = task * ZB_MORSEL_ROWS;
  int64_t end = ZB_MIN(start + (int64_t)ZB_MORSEL_ROWS, c->length);
  parse_note *note = &j->notes[task];
  note->bad = -1;
  for (int64_t i = start; i < end; i++) {
    j->vals[i] = 0;
    zb_bit_set(j->valid, i, false);
    if (!zb_column_is_valid(c, i)) continue;
    int64_t len;
    const char *s = zb__str(c, i, &len);
    int64_t v = 0;
    int r;
    if (j->kind == ZB_PARSE_TIMEDELTA) {
      r = zb__parse_timedelta(s, len, &v);
    } else {
      bool has_off = false;
      int32_t off = 0;
      r = zb__parse_datetime(s, len, j->format, &v, &has_off, &off);
      if (r == ZB__PARSE_OK) {
        if (has_off) {
          if (!note->offset) note->first_offset = off;
          else if (note->first_offset != off) note->mixed = true;
          note->offset = true;
        } else {
          note->naive = true;
        }
      }
    }
    if (r == ZB__PARSE_OK) {
      j->vals[i] = v;
      zb_bit_set(j->valid, i, true);
    } else if (r == ZB__PARSE_BAD && note->bad < 0) {
      note->bad = i;
    }
  }
}

zb_status zb__cpu_parse_time(const zb_column *col, zb_parse_kind kind, const char *format,
                             zb_parse_info *info, zb_column **out, zb_error *err) {
  *out = NULL;
  int64_t n = col->length, nm = zb__morsels(n);
  zb_column *o = NULL;
  parse_job j = {col, kind, format, NULL, NULL, NULL};
  zb_status st = zb_column_new(kind == ZB_PARSE_TIMEDELTA ? ZB_DURATION : ZB_TIMESTAMP, n, true,
                               0, &o, err);
  if (st == ZB_OK) st = zb_column_set_time(o, ZB_NANO, NULL, err);
  if (st == ZB_OK) {
    j.vals = (int64_t *)o->data->data;
    j.valid = (uint8_t *)o->validity->data;
    j.notes = (parse_note *)zb_calloc((size_t)ZB_MAX(nm, 1), sizeof(parse_note));
    if (j.notes == NULL)
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory (parse_time)");
  }
  if (st == ZB_OK) st = zb_parallel_for(nm, parse_morsel, &j, err);
  if (st == ZB_OK) {
    zb_column_recount_nulls(o);
    for (int64_t m = 0; m < nm; m++) {
      const parse_note *p = &j.notes[m];
      if (info->bad_row < 0 && p->bad >= 0) info->bad_row = p->bad;
      if (p->naive) info->any_naive = true;
      if (p->offset) {
        if (!info->any_offset) info->offset_min = p->first_offset;
        else if (info->offset_min != p->first_offset) info->mixed_offsets = true;
        if (p->mixed) info->mixed_offsets = true;
        info->any_offset = true;
      }
    }
  }
  zb_free(j.notes);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}
