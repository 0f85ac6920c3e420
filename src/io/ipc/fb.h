/*
 * fb.h -- a small FlatBuffers reader and builder for the Arrow IPC format
 * (internal; Arrow's format/Message.fbs, Schema.fbs and File.fbs define
 * the tables).  Only what IPC needs: tables with scalar, string, table,
 * union and vector fields; vectors of tables, of structs and of scalars.
 *
 * Reading never trusts the bytes: every offset, vtable and length is
 * checked against the buffer before it is followed, and a failed check
 * makes the accessor return false (the caller reports the file as
 * corrupt).  A flatbuffer's layout (FlatBuffers "internals"): the buffer
 * starts with a uoffset (u32) to the root table; a table starts with an
 * soffset (i32) such that table - soffset is its vtable; a vtable is u16
 * vtable size, u16 table size, then one u16 per field: the field's offset
 * in the table, 0 when absent (the schema's default applies).  A string or
 * vector field holds a uoffset (forward, from the field) to a u32 length
 * followed by the elements (a string also by a NUL).
 *
 * Building goes back to front as FlatBuffers' own builders do: children
 * are written before (at higher addresses than) the tables that point to
 * them, so every uoffset points forward.  An object is named by its
 * distance from the end of the buffer, which does not change as more is
 * prepended.  Allocation failure is sticky (b->oom) and checked once at
 * the end.
 */
#ifndef ZAMBEZI_IO_IPC_FB_H
#define ZAMBEZI_IO_IPC_FB_H

#include <stdbool.h>
#include <stdint.h>

/* ---- reading ------------------------------------------------------------ */

/* A table inside buf[0, n): pos its start, vt its vtable, vt_len the
 * vtable's size in bytes (fields it can describe: (vt_len - 4) / 2). */
typedef struct zb__fbt {
  const uint8_t *buf;
  int64_t n, pos, vt;
  uint16_t vt_len;
} zb__fbt;

/* A vector inside buf: elements start at pos, count of them. */
typedef struct zb__fbv {
  const uint8_t *buf;
  int64_t n, pos, count;
} zb__fbv;

/* The root table of the flatbuffer buf[0, n). */
bool zb__fb_root(const uint8_t *buf, int64_t n, zb__fbt *out);
/* Whether field `slot` is present. */
bool zb__fb_has(const zb__fbt *t, int slot);
/* Scalar fields (little endian); def when absent.  false when the field's
 * bytes lie outside the buffer. */
bool zb__fb_u8(const zb__fbt *t, int slot, uint8_t def, uint8_t *out);
bool zb__fb_i16(const zb__fbt *t, int slot, int16_t def, int16_t *out);
bool zb__fb_i32(const zb__fbt *t, int slot, int32_t def, int32_t *out);
bool zb__fb_i64(const zb__fbt *t, int slot, int64_t def, int64_t *out);
/* A table (or union value) field: *present false when absent. */
bool zb__fb_table(const zb__fbt *t, int slot, zb__fbt *out, bool *present);
/* A string field: *s (not NUL-terminated for the caller's purposes) and
 * its length; *s NULL when absent. */
bool zb__fb_string(const zb__fbt *t, int slot, const char **s, int64_t *len);
/* A vector field whose elements are elem_size bytes each (4 for tables and
 * strings); count 0 when absent. */
bool zb__fb_vector(const zb__fbt *t, int slot, int64_t elem_size, zb__fbv *out);
/* Element i of a vector of tables. */
bool zb__fb_vec_table(const zb__fbv *v, int64_t i, zb__fbt *out);
/* Reads of struct members: the bytes at v->pos + i * size + at. */
int64_t zb__fb_vec_i64(const zb__fbv *v, int64_t i, int64_t size, int64_t at);
int32_t zb__fb_vec_i32(const zb__fbv *v, int64_t i, int64_t size, int64_t at);

/* ---- building ----------------------------------------------------------- */

typedef struct zb__fbb {
  uint8_t *buf; /* data lives in buf[cap - used, cap) */
  int64_t cap, used;
  bool oom;
  /* the table being built */
  int nf;
  struct {
    int slot, size; /* size: 1, 2, 4, 8, or 0 for an offset */
    uint64_t value; /* scalar bits, or the target (distance from the end) */
  } f[16];
} zb__fbb;

typedef uint32_t zb__fbref; /* an object: its distance from the buffer's end */

void zb__fbb_init(zb__fbb *b);
void zb__fbb_reset(zb__fbb *b); /* frees */
zb__fbref zb__fbb_string(zb__fbb *b, const char *s, int64_t len);
zb__fbref zb__fbb_vec_refs(zb__fbb *b, const zb__fbref *refs, int64_t n);
/* A vector of n structs of size bytes each, aligned to align. */
zb__fbref zb__fbb_vec_structs(zb__fbb *b, const void *data, int64_t size, int64_t n,
                              int align);
/* Table building: start, add fields (any order), end. */
void zb__fbb_start(zb__fbb *b);
void zb__fbb_add(zb__fbb *b, int slot, int size, uint64_t value);
void zb__fbb_add_ref(zb__fbb *b, int slot, zb__fbref ref);
zb__fbref zb__fbb_end(zb__fbb *b);
/* Finish with root; the flatbuffer is then buf + cap - used, used bytes (a
 * multiple of 8).  false when an allocation failed along the way. */
bool zb__fbb_finish(zb__fbb *b, zb__fbref root, const uint8_t **data, int64_t *size);

#endif
