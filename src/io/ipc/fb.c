/*
 * fb.c -- the FlatBuffers reader and builder of the Arrow IPC format
 * (fb.h).  Every read goes through memcpy: a corrupt buffer may put any
 * field at any address, and little-endian hosts are assumed (as
 * everywhere in the engine).
 */
#include "io/ipc/fb.h"

#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

/* ---- reading ------------------------------------------------------------ */

static bool rd_u32(const uint8_t *buf, int64_t n, int64_t at, uint32_t *out) {
  if (at < 0 || at > n - 4) return false;
  memcpy(out, buf + at, 4);
  return true;
}

static bool load_table(const uint8_t *buf, int64_t n, int64_t pos, zb__fbt *out) {
  int32_t soff;
  uint32_t tmp;
  if (!rd_u32(buf, n, pos, &tmp)) return false;
  memcpy(&soff, &tmp, 4);
  int64_t vt = pos - (int64_t)soff;
  if (vt < 0 || vt > n - 4) return false;
  uint16_t vt_len, t_len;
  memcpy(&vt_len, buf + vt, 2);
  memcpy(&t_len, buf + vt + 2, 2);
  if (vt_len < 4 || (vt_len & 1) || vt > n - vt_len) return false;
  if (t_len < 4 || pos > n - t_len) return false;
  out->buf = buf;
  out->n = n;
  out->pos = pos;
  out->vt = vt;
  out->vt_len = vt_len;
  return true;
}

bool zb__fb_root(const uint8_t *buf, int64_t n, zb__fbt *out) {
  uint32_t root;
  if (buf == NULL || !rd_u32(buf, n, 0, &root)) return false;
  return load_table(buf, n, (int64_t)root, out);
}

/* The field's offset inside the table (0: absent), checked to hold size
 * bytes inside the table. */
static bool field_at(const zb__fbt *t, int slot, int64_t size, int64_t *at) {
  *at = 0;
  if (slot < 0 || 4 + 2 * (int64_t)slot + 2 > t->vt_len) return true; /* absent */
  uint16_t off, t_len;
  memcpy(&off, t->buf + t->vt + 4 + 2 * slot, 2);
  if (off == 0) return true;
  memcpy(&t_len, t->buf + t->vt + 2, 2);
  if (off < 4 || (int64_t)off + size > t_len) return false;
  *at = t->pos + off;
  return true;
}

bool zb__fb_has(const zb__fbt *t, int slot) {
  int64_t at;
  return field_at(t, slot, 1, &at) && at != 0;
}

#define FB_SCALAR(name_, type_)                                                 \
  bool name_(const zb__fbt *t, int slot, type_ def, type_ *out) {               \
    int64_t at;                                                                  \
    if (!field_at(t, slot, (int64_t)sizeof(type_), &at)) return false;           \
    if (at == 0)                                                                 \
      *out = def;                                                                \
    else                                                                         \
      memcpy(out, t->buf + at, sizeof(type_));                                   \
    return true;                                                                 \
  }
FB_SCALAR(zb__fb_u8, uint8_t)
FB_SCALAR(zb__fb_i16, int16_t)
FB_SCALAR(zb__fb_i32, int32_t)
FB_SCALAR(zb__fb_i64, int64_t)
#undef FB_SCALAR

/* Follow the uoffset stored at `at`: the target position. */
static bool follow(const uint8_t *buf, int64_t n, int64_t at, int64_t *target) {
  uint32_t v;
  if (!rd_u32(buf, n, at, &v)) return false;
  *target = at + (int64_t)v;
  return *target <= n - 4;
}

bool zb__fb_table(const zb__fbt *t, int slot, zb__fbt *out, bool *present) {
  int64_t at, target;
  *present = false;
  if (!field_at(t, slot, 4, &at)) return false;
  if (at == 0) return true;
  if (!follow(t->buf, t->n, at, &target) || !load_table(t->buf, t->n, target, out)) return false;
  *present = true;
  return true;
}

bool zb__fb_string(const zb__fbt *t, int slot, const char **s, int64_t *len) {
  int64_t at, target;
  uint32_t l;
  *s = NULL;
  *len = 0;
  if (!field_at(t, slot, 4, &at)) return false;
  if (at == 0) return true;
  if (!follow(t->buf, t->n, at, &target) || !rd_u32(t->buf, t->n, target, &l)) return false;
  if ((int64_t)l > t->n - target - 4) return false;
  *s = (const char *)t->buf + target + 4;
  *len = (int64_t)l;
  return true;
}

bool zb__fb_vector(const zb__fbt *t, int slot, int64_t elem_size, zb__fbv *out) {
  int64_t at, target;
  uint32_t c;
  out->buf = t->buf;
  out->n = t->n;
  out->pos = 0;
  out->count = 0;
  if (!field_at(t, slot, 4, &at)) return false;
  if (at == 0) return true;
  if (!follow(t->buf, t->n, at, &target) || !rd_u32(t->buf, t->n, target, &c)) return false;
  if ((int64_t)c > (t->n - target - 4) / elem_size) return false;
  out->pos = target + 4;
  out->count = (int64_t)c;
  return true;
}

bool zb__fb_vec_table(const zb__fbv *v, int64_t i, zb__fbt *out) {
  int64_t target;
  if (i < 0 || i >= v->count) return false;
  return follow(v->buf, v->n, v->pos + 4 * i, &target) &&
         load_table(v->buf, v->n, target, out);
}

/* (callers index inside count, which zb__fb_vector checked against n) */
int64_t zb__fb_vec_i64(const zb__fbv *v, int64_t i, int64_t size, int64_t at) {
  int64_t x;
  memcpy(&x, v->buf + v->pos + i * size + at, 8);
  return x;
}

int32_t zb__fb_vec_i32(const zb__fbv *v, int64_t i, int64_t size, int64_t at) {
  int32_t x;
  memcpy(&x, v->buf + v->pos + i * size + at, 4);
  return x;
}

/* ---- building ----------------------------------------------------------- */

void zb__fbb_init(zb__fbb *b) { memset(b, 0, sizeof *b); }

void zb__fbb_reset(zb__fbb *b) {
  zb_free(b->buf);
  memset(b, 0, sizeof *b);
}

/* Room for `more` bytes in front of the data. */
static bool ensure(zb__fbb *b, int64_t more) {
  if (b->oom) return false;
  if (b->cap - b->used >= more) return true;
  int64_t cap = b->cap > 0 ? b->cap : 256;
  while (cap - b->used < more) cap *= 2;
  uint8_t *nb = (uint8_t *)zb_malloc((size_t)cap);
  if (nb == NULL) {
    b->oom = true;
    return false;
  }
  if (b->used > 0) memcpy(nb + cap - b->used, b->buf + b->cap - b->used, (size_t)b->used);
  zb_free(b->buf);
  b->buf = nb;
  b->cap = cap;
  return true;
}

static void prepend(zb__fbb *b, const void *data, int64_t size) {
  if (!ensure(b, size)) return;
  b->used += size;
  if (data != NULL)
    memcpy(b->buf + b->cap - b->used, data, (size_t)size);
  else
    memset(b->buf + b->cap - b->used, 0, (size_t)size);
}

/* Zeros so that `size` more bytes end up aligned to align. */
static void pad(zb__fbb *b, int64_t size, int64_t align) {
  int64_t p = (align - (b->used + size) % align) % align;
  if (p > 0) prepend(b, NULL, p);
}

static void prepend_u32(zb__fbb *b, uint32_t v) {
  pad(b, 4, 4);
  prepend(b, &v, 4);
}

zb__fbref zb__fbb_string(zb__fbb *b, const char *s, int64_t len) {
  pad(b, len + 1, 4);
  prepend(b, NULL, 1);
  if (len > 0) prepend(b, s, len);
  prepend_u32(b, (uint32_t)len);
  return (zb__fbref)b->used;
}

zb__fbref zb__fbb_vec_refs(zb__fbb *b, const zb__fbref *refs, int64_t n) {
  pad(b, 4 * n, 4);
  for (int64_t i = n - 1; i >= 0; i--) {
    uint32_t v = (uint32_t)(b->used + 4) - refs[i];
    prepend(b, &v, 4);
  }
  prepend_u32(b, (uint32_t)n);
  return (zb__fbref)b->used;
}

zb__fbref zb__fbb_vec_structs(zb__fbb *b, const void *data, int64_t size, int64_t n,
                              int align) {
  /* the count sits just before the elements, which must be aligned */
  pad(b, size * n, align);
  if (size * n > 0) prepend(b, data, size * n);
  prepend_u32(b, (uint32_t)n);
  return (zb__fbref)b->used;
}

void zb__fbb_start(zb__fbb *b) { b->nf = 0; }

void zb__fbb_add(zb__fbb *b, int slot, int size, uint64_t value) {
  if (b->nf >= 16) {
    b->oom = true; /* a programming error; reported as a failure */
    return;
  }
  b->f[b->nf].slot = slot;
  b->f[b->nf].size = size;
  b->f[b->nf].value = value;
  b->nf++;
}

void zb__fbb_add_ref(zb__fbb *b, int slot, zb__fbref ref) { zb__fbb_add(b, slot, 0, ref); }

zb__fbref zb__fbb_end(zb__fbb *b) {
  int64_t start = b->used;
  int64_t at[16];
  int max_slot = -1;
  /* smallest fields first: they end up at the table's far end */
  static const int order[] = {1, 2, 4, 0, 8};
  for (int k = 0; k < 5; k++) {
    for (int i = 0; i < b->nf; i++) {
      if (b->f[i].size != order[k]) continue;
      if (b->f[i].size == 0) {
        pad(b, 4, 4);
        uint32_t v = (uint32_t)(b->used + 4 - (int64_t)b->f[i].value);
        prepend(b, &v, 4);
      } else {
        pad(b, b->f[i].size, b->f[i].size);
        prepend(b, &b->f[i].value, b->f[i].size); /* little endian: the low bytes */
      }
      at[i] = b->used;
      if (b->f[i].slot > max_slot) max_slot = b->f[i].slot;
    }
  }
  pad(b, 4, 4);
  prepend(b, NULL, 4); /* the soffset to the vtable, set below */
  int64_t table = b->used;
  uint16_t vt[2 + 16];
  int nslots = max_slot + 1;
  memset(vt, 0, sizeof vt);
  vt[0] = (uint16_t)(4 + 2 * nslots);
  vt[1] = (uint16_t)(table - start);
  for (int i = 0; i < b->nf; i++) vt[2 + b->f[i].slot] = (uint16_t)(table - at[i]);
  pad(b, vt[0], 2);
  prepend(b, vt, vt[0]);
  if (!b->oom) {
    int32_t soff = (int32_t)(b->used - table);
    memcpy(b->buf + b->cap - table, &soff, 4);
  }
  b->nf = 0;
  return (zb__fbref)table;
}

bool zb__fbb_finish(zb__fbb *b, zb__fbref root, const uint8_t **data, int64_t *size) {
  pad(b, 4, 8);
  uint32_t v = (uint32_t)(b->used + 4) - root;
  prepend(b, &v, 4);
  if (b->oom) return false;
  *data = b->buf + b->cap - b->used;
  *size = b->used;
  return true;
}
