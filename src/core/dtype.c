/*
 * dtype.c -- names, widths and classes of zambezi's data types.
 */
#include <stdio.h>
#include <string.h>

#include "core/dtype_list.h"
#include "core/internal.h"

/* Every id from ZB_INT8 to ZB_FLOAT64 is in the list once: as many entries
 * as ids, and a repeated one would initialize k_types twice (-Woverride-init). */
#define ZB_COUNT_ONE(ID, T, NAME, U) +1
_Static_assert(0 ZB_FOR_EACH_NUMERIC_TYPE(ZB_COUNT_ONE) == ZB_FLOAT64 - ZB_INT8 + 1,
               "dtype_list.h: the numeric list and zb_type_id disagree");
#undef ZB_COUNT_ONE

static const struct {
  const char *name;
  int width;
} k_types[ZB_TYPE_COUNT] = {
    [ZB_BOOL] = {"bool", 0},
#define ZB_TYPE_ROW(ID, T, NAME, U) [ID] = {#NAME, (int)sizeof(T)},
    ZB_FOR_EACH_FIXED_TYPE(ZB_TYPE_ROW)
#undef ZB_TYPE_ROW
    [ZB_STRING] = {"string", 0},
    [ZB_CATEGORICAL] = {"category", 4},
    [ZB_LIST] = {"list", 0},
};

const char *zb_type_name(zb_type_id id) {
  if ((int)id < 0 || id >= ZB_TYPE_COUNT) return "unknown";
  return k_types[id].name;
}

zb_status zb_type_from_name(const char *name, zb_type_id *out, zb_error *err) {
  for (int i = 0; i < ZB_TYPE_COUNT; i++) {
    if (strcmp(name, k_types[i].name) == 0) {
      *out = (zb_type_id)i;
      return ZB_OK;
    }
  }
  /* aliases ("Int64", "str", object...) are the Python layer's: _dtypes.py */
  return zb_error_set(err, ZB_ETYPE, "unknown dtype '%s' (the engine takes canonical names: "
                      "int64, float64, string, category, date32, timestamp...)", name);
}

const char *zb_column_type_text(const zb_column *col, char *buf, size_t size) {
  if (size == 0) return buf;
  buf[0] = '\0';
  if (col == NULL) return buf;
  static const char *const units[4] = {"s", "ms", "us", "ns"};
  int depth = 0; /* list<...> levels around the element type */
  const zb_column *c = col;
  while (c->type == ZB_LIST && c->child != NULL) {
    c = c->child;
    depth++;
  }
  char inner[160];
  if ((c->type == ZB_TIMESTAMP || c->type == ZB_DURATION) && (int)c->unit >= 0 && c->unit <= 3) {
    if (c->type == ZB_TIMESTAMP && c->timezone != NULL && c->timezone[0] != '\0')
      snprintf(inner, sizeof inner, "timestamp[%s, tz=%s]", units[c->unit], c->timezone);
    else
      snprintf(inner, sizeof inner, "%s[%s]", zb_type_name(c->type), units[c->unit]);
  } else {
    snprintf(inner, sizeof inner, "%s", zb_type_name(c->type));
  }
  size_t pos = 0;
  for (int k = 0; k < depth && pos + 5 < size; k++) {
    memcpy(buf + pos, "list<", 5);
    pos += 5;
  }
  size_t il = strlen(inner);
  if (il > size - pos - 1) il = size - pos - 1;
  memcpy(buf + pos, inner, il);
  pos += il;
  for (int k = 0; k < depth && pos + 1 < size; k++) buf[pos++] = '>';
  buf[pos] = '\0';
  return buf;
}

int zb_type_width(zb_type_id id) {
  if ((int)id < 0 || id >= ZB_TYPE_COUNT) return 0;
  return k_types[id].width;
}

bool zb_type_is_integer(zb_type_id id) { return id >= ZB_INT8 && id <= ZB_UINT64; }
bool zb_type_is_signed(zb_type_id id) { return id >= ZB_INT8 && id <= ZB_INT64; }
bool zb_type_is_float(zb_type_id id) { return id == ZB_FLOAT32 || id == ZB_FLOAT64; }
bool zb_type_is_numeric(zb_type_id id) { return id >= ZB_BOOL && id <= ZB_FLOAT64; }

const char *zb_reduce_op_name(zb_reduce_op op) {
  static const char *const names[ZB_REDUCE_OP_COUNT] = {"sum", "min", "max", "mean", "count"};
  if ((int)op < 0 || op >= ZB_REDUCE_OP_COUNT) return "unknown";
  return names[op];
}
