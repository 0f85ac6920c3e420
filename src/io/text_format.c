/*
 * text_format.c -- the out-of-line parts of text_format.h: the text
 * buffer's growth and the integer column formatter, one loop per integer
 * dtype stamped from the dtype list (core/dtype_list.h).
 */
#include "io/text_format.h"

#include "core/dtype_list.h"

bool zb__text_buf_grow(zb__text_buf *b, int64_t extra) {
  int64_t need = b->n + extra;
  if (need <= b->cap) return true;
  int64_t cap = b->cap ? b->cap : 4096;
  while (cap < need) cap *= 2;
  char *p = (char *)zb_malloc((size_t)cap);
  if (p == NULL) return false;
  if (b->n) memcpy(p, b->p, (size_t)b->n);
  zb_free(b->p);
  b->p = p;
  b->cap = cap;
  return true;
}

/* One loop per type: FMT widens a value of T to CT (int64_t or uint64_t). */
#define ZB__FORMAT_INTS(NAME, T, FMT, CT)                                          \
  static bool format_##NAME(const T *v, const uint8_t *valid, int64_t j0, int64_t m,  \
                            const char *null_text, int64_t null_len, zb__text_buf *t, \
                            int64_t *off) {                                           \
    int64_t most = null_len > 21 ? null_len : 21;                                     \
    if (!zb__text_buf_grow(t, m * most)) return false;                                \
    char *p = t->p + t->n;                                                            \
    off[0] = t->n;                                                                    \
    for (int64_t i = 0; i < m; i++) {                                                 \
      int64_t j = j0 + i;                                                             \
      if (valid != NULL && !zb_bit_get(valid, j)) {                                   \
        memcpy(p, null_text, (size_t)null_len);                                       \
        p += null_len;                                                                \
      } else {                                                                        \
        p += FMT((CT)v[j], p);                                                        \
      }                                                                               \
      off[i + 1] = p - t->p;                                                          \
    }                                                                                 \
    t->n = p - t->p;                                                                  \
    return true;                                                                      \
  }
#define ZB__SIGNED(ID, T, NAME, U) ZB__FORMAT_INTS(NAME, T, zb__fmt_i64, int64_t)
#define ZB__UNSIGNED(ID, T, NAME, U) ZB__FORMAT_INTS(NAME, T, zb__fmt_u64, uint64_t)
ZB_FOR_EACH_SIGNED_TYPE(ZB__SIGNED)
ZB_FOR_EACH_UNSIGNED_TYPE(ZB__UNSIGNED)
#undef ZB__SIGNED
#undef ZB__UNSIGNED
#undef ZB__FORMAT_INTS

bool zb__text_format_integers(const zb_column *c, const uint8_t *valid, int64_t r0, int64_t r1,
                              const char *null_text, int64_t null_len, zb__text_buf *t,
                              int64_t *off) {
  const void *data = c->data != NULL ? c->data->data : NULL;
  int64_t j0 = c->offset + r0, m = r1 - r0;
  switch (c->type) {
#define ZB__CASE(ID, T, NAME, U) \
  case ID: return format_##NAME((const T *)data, valid, j0, m, null_text, null_len, t, off);
    ZB_FOR_EACH_INTEGER_TYPE(ZB__CASE)
#undef ZB__CASE
    default: return false;
  }
}
