/*
 * dtype.c -- names, widths and classes of zambezi's data types.
 */
#include <string.h>

#include "core/internal.h"

static const struct {
  const char *name;
  int width;
} k_types[ZB_TYPE_COUNT] = {
    [ZB_BOOL] = {"bool", 0},         [ZB_INT8] = {"int8", 1},
    [ZB_INT16] = {"int16", 2},       [ZB_INT32] = {"int32", 4},
    [ZB_INT64] = {"int64", 8},       [ZB_UINT8] = {"uint8", 1},
    [ZB_UINT16] = {"uint16", 2},     [ZB_UINT32] = {"uint32", 4},
    [ZB_UINT64] = {"uint64", 8},     [ZB_FLOAT32] = {"float32", 4},
    [ZB_FLOAT64] = {"float64", 8},   [ZB_STRING] = {"string", 0},
    [ZB_CATEGORICAL] = {"category", 4}, [ZB_DATE32] = {"date32", 4},
    [ZB_TIMESTAMP] = {"timestamp", 8},
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
