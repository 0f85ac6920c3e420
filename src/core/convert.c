/*
 * convert.c -- block conversion between numeric physical types (for the
 * CPU kernels and the host side of other backends), and a builder for
 * result columns shaped like an input.
 *
 * zb__convert_block switches on the (destination, source) type pair once and
 * then runs a plain C conversion loop the compiler can vectorize.
 */
#include "core/dtype_list.h"
#include "core/values.h"

/* The conversion is a switch in a switch: the preprocessor does not expand
 * a list macro inside its own expansion, so the inner one is a second list
 * here rather than ZB_FOR_EACH_NUMERIC_TYPE twice. */
#define ZB_SRC_TYPES(X)                                                         \
  X(int8_t, ZB_INT8)                                                            \
  X(int16_t, ZB_INT16)                                                          \
  X(int32_t, ZB_INT32)                                                          \
  X(int64_t, ZB_INT64)                                                          \
  X(uint8_t, ZB_UINT8)                                                          \
  X(uint16_t, ZB_UINT16)                                                        \
  X(uint32_t, ZB_UINT32)                                                        \
  X(uint64_t, ZB_UINT64)                                                        \
  X(float, ZB_FLOAT32)                                                          \
  X(double, ZB_FLOAT64)

#define ZB_DST_TYPES(X)                                                         \
  X(int8_t, ZB_INT8)                                                            \
  X(int16_t, ZB_INT16)                                                          \
  X(int32_t, ZB_INT32)                                                          \
  X(int64_t, ZB_INT64)                                                          \
  X(uint8_t, ZB_UINT8)                                                          \
  X(uint16_t, ZB_UINT16)                                                        \
  X(uint32_t, ZB_UINT32)                                                        \
  X(uint64_t, ZB_UINT64)                                                        \
  X(float, ZB_FLOAT32)                                                          \
  X(double, ZB_FLOAT64)

#define CONVERT_FROM(ST, SID)                                                   \
  case SID: {                                                                   \
    const ST *s = (const ST *)src_data + off;                                   \
    for (int64_t i = 0; i < n; i++) d[i] = (DT)s[i];                            \
    return;                                                                     \
  }

#define CONVERT_TO(DT_, DID)                                                    \
  case DID: {                                                                   \
    typedef DT_ DT;                                                             \
    DT *d = (DT *)dst;                                                          \
    if (src == ZB_BOOL) {                                                       \
      const uint8_t *bits = (const uint8_t *)src_data;                          \
      for (int64_t i = 0; i < n; i++) d[i] = (DT)zb_bit_get(bits, off + i);     \
      return;                                                                   \
    }                                                                           \
    switch (src) {                                                              \
      ZB_SRC_TYPES(CONVERT_FROM)                                                \
      default: return;                                                          \
    }                                                                           \
  }

void zb__convert_block(zb_type_id dst_t, void *dst, zb_type_id src, const void *src_data,
                       int64_t off, int64_t n) {
  src = zb__physical(src);
  dst_t = zb__physical(dst_t);
  if (dst_t == ZB_BOOL) {
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *bits = (const uint8_t *)src_data;
    for (int64_t i = 0; i < n; i++) d[i] = zb_bit_get(bits, off + i);
    return;
  }
  switch (dst_t) {
    ZB_DST_TYPES(CONVERT_TO)
    default: return;
  }
}

/* Copies of the first W bytes of buf over the rest of its ZB_BLOCK values
 * (fixed-size memcpy: plain stores, whatever type the buffer holds). */
#define FILL_FROM_FIRST(W)                                                     \
  {                                                                            \
    unsigned char v_[W];                                                       \
    memcpy(v_, buf, W);                                                        \
    for (int i = 1; i < ZB_BLOCK; i++) memcpy((char *)buf + (size_t)i * W, v_, W); \
  }

void zb__fill_scalar_block(zb_type_id t, void *buf, const zb_column *s) {
  zb__convert_block(t, buf, s->type, s->data->data, s->offset, 1);
  switch (zb__physical(t) == ZB_BOOL ? 1 : zb_type_width(zb__physical(t))) {
    case 1: memset(buf, *(const unsigned char *)buf, ZB_BLOCK); break;
    case 2: FILL_FROM_FIRST(2) break;
    case 4: FILL_FROM_FIRST(4) break;
    default: FILL_FROM_FIRST(8) break;
  }
}
#undef FILL_FROM_FIRST

const void *zb__block_values(const zb_column *c, zb_type_id t, int64_t row, int64_t n,
                             void *scratch) {
  zb_type_id p = zb__physical(c->type);
  t = zb__physical(t);
  if (p == t && p != ZB_BOOL)
    return (const char *)c->data->data + (c->offset + row) * zb_type_width(p);
  zb__convert_block(t, scratch, p, c->data->data, c->offset + row, n);
  return scratch;
}

zb_status zb__new_like(const zb_column *like, zb_type_id type, int64_t length,
                       bool with_validity, int64_t chars_size, zb_column **out,
                       zb_error *err) {
  zb_column *c = NULL;
  ZB_RETURN_NOT_OK(zb_column_new(type, length, with_validity, chars_size, &c, err));
  zb_status st = ZB_OK;
  if (like != NULL && type == like->type) {
    if (type == ZB_TIMESTAMP || type == ZB_DURATION)
      st = zb_column_set_time(c, like->unit, like->timezone, err);
    if (type == ZB_CATEGORICAL) c->dictionary = zb_column_retain(like->dictionary);
  }
  if (st != ZB_OK) {
    zb_column_release(c);
    return st;
  }
  *out = c;
  return ZB_OK;
}

void zb__scalar_store(const zb_scalar *s, zb_type_id t, void *d) {
  switch (t) {
    case ZB_BOOL: *(uint8_t *)d = s->v.b ? 1 : 0; break;
#define STORE_INT(ID, T, NAME, U) \
  case ID: *(T *)d = zb_type_is_signed(ID) ? (T)s->v.i : (T)s->v.u; break;
#define STORE_FLOAT(ID, T, NAME, U) \
  case ID: *(T *)d = (T)s->v.f; break;
    ZB_FOR_EACH_INTEGER_TYPE(STORE_INT)
    ZB_FOR_EACH_FLOAT_TYPE(STORE_FLOAT)
#undef STORE_INT
#undef STORE_FLOAT
    default: break;
  }
}
