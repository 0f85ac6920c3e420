/*
 * read.c -- the Arrow IPC file (Feather v2) and stream reader (io_ipc.h).
 *
 * How a file is read:
 *   1. The bytes (a private read-only mapping of the file, or an owned copy
 *      of a caller's buffer) go into a reference-counted ipc_file, which
 *      also owns every block decompressed from them.
 *   2. The footer (file format: "ARROW1", padding, messages, footer
 *      flatbuffer, its int32 length, "ARROW1") or else the sequence of
 *      messages (stream format) gives the Schema, the DictionaryBatch and
 *      the RecordBatch messages.  Each message is encapsulated: 0xFFFFFFFF,
 *      an int32 metadata length, the Message flatbuffer, then its body.
 *   3. Every batch of the selected columns is planned: each buffer is
 *      checked to lie inside the body and to be as long as the column's
 *      length needs; an uncompressed 8-byte-aligned buffer is used where it
 *      is, a compressed one (an int64 uncompressed length, then an LZ4
 *      frame or a zstd frame; length -1: stored raw) or a misaligned one
 *      becomes a task.
 *   4. The tasks run on the thread pool (decompress, or copy), each into
 *      its own block.
 *   5. Each batch becomes an Arrow C Data Interface struct array over
 *      those bytes (its release drops a reference to the ipc_file) and is
 *      imported by zb_table_import_arrow, which shares the buffers without
 *      copying and converts what zambezi stores otherwise (int32 string
 *      offsets, dictionary indices other than int32, date64).  Several
 *      batches are concatenated column by column.
 *   With several batches, fixed-width, bool, string and utf8_view columns
 *   skip steps 3-5: each is allocated whole and every batch's buffers are
 *   decompressed (or copied) straight into their place, string offsets
 *   rebased and checked in one pass, views counted then copied
 *   (read_assembled).
 *
 * A List or LargeList column of flat values is its node, validity and
 * offsets, then its child's node and buffers (plan_list), imported as
 * "+l" / "+L" with one child; its offsets are checked against the child
 * (check_list) before the import.
 *
 * Nothing read from the file is trusted: offsets and lengths are checked
 * against the bytes that hold them (fb.c for the flatbuffers), string
 * offsets against their character buffer, and what the importer checks
 * (monotonic offsets, dictionary codes in range) becomes an error naming
 * the file too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "io/codecs.h"
#include "io/ipc/fb.h"
#include "io/ipc/ipc.h"
#include "zambezi/arrow.h"
#include "zambezi/io.h"

#define MAX_DEPTH 64 /* nesting of types in a schema */

/* Stands in for the buffers of empty columns (offsets need one zero). */
static const int64_t g_zeros[2] = {0, 0};

/* ---- the file and the blocks it owns ------------------------------------- */

typedef struct ipc_file {
  const uint8_t *base;
  int64_t size;
  void *map; /* munmap'ed at the end when not NULL */
  void *copy; /* zb_free'd at the end when not NULL */
  void **owned; /* decompressed or realigned blocks, zb_free'd at the end */
  int64_t n_owned, cap_owned;
  int64_t refcount; /* atomic */
} ipc_file;

static void file_unref(ipc_file *f) {
  if (f == NULL || zb__atomic_dec(&f->refcount) != 0) return;
  for (int64_t i = 0; i < f->n_owned; i++) zb_free(f->owned[i]);
  zb_free(f->owned);
  if (f->map != NULL) munmap(f->map, (size_t)f->size);
  zb_free(f->copy);
  zb_free(f);
}

/* A new block of size bytes owned by f (NULL when out of memory). */
static void *file_alloc(ipc_file *f, int64_t size) {
  if (f->n_owned == f->cap_owned) {
    int64_t cap = f->cap_owned ? f->cap_owned * 2 : 64;
    void **p = (void **)zb_malloc((size_t)cap * sizeof(void *));
    if (p == NULL) return NULL;
    if (f->n_owned > 0) memcpy(p, f->owned, (size_t)f->n_owned * sizeof(void *));
    zb_free(f->owned);
    f->owned = p;
    f->cap_owned = cap;
  }
  void *b = zb_malloc((size_t)(size > 0 ? size : 1));
  if (b != NULL) f->owned[f->n_owned++] = b;
  return b;
}

/* ---- the schema ---------------------------------------------------------- */

enum { K_FIXED, K_BOOL, K_STRING, K_VIEW, K_NULL, K_DICT, K_UNSUPPORTED, K_LIST };

typedef struct ipc_field {
  char *name;        /* from zb_malloc */
  int kind;
  int width;         /* K_FIXED: bytes per value; K_STRING: offset bytes; K_DICT: index bytes */
  char format[300];  /* the C Data Interface format (K_DICT: the index's) */
  char value_format[2]; /* K_DICT: "u" or "U" */
  int value_width;      /* K_DICT: the values' offset bytes */
  int value_kind;       /* K_DICT: K_STRING or K_VIEW */
  int64_t dict_id;
  int64_t n_nodes, n_buffers; /* this field's share of a record batch */
  int64_t n_views;            /* its view types: each takes variadic buffers too */
  bool layout_known;          /* n_nodes and n_buffers are known */
  char why[160];              /* K_UNSUPPORTED: what the type is */
  /* K_LIST (List or LargeList; width: its offset bytes): the child's kind
   * (K_FIXED, K_BOOL or K_STRING), width and format */
  int child_kind, child_width;
  char child_format[300];
} ipc_field;

typedef struct reader {
  const char *name; /* the file, for messages */
  ipc_file *f;
  zb_error *err;
  ipc_field *fields;
  int64_t n_fields;
  char *pandas; /* the "pandas" metadata, from zb_malloc */
  /* the selected columns: field indices */
  int64_t *sel;
  int64_t n_sel;
  /* messages */
  int64_t *batch_at, *dict_at; /* offsets of the messages in the file */
  int64_t n_batches, n_dicts;
  void *view_ctx; /* the view_job converting utf8_view columns */
} reader;

static zb_status corrupt(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static zb_status corrupt(reader *r, const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return zb_error_set(r->err, ZB_EPARSE, "'%s' is not a valid Arrow IPC file: %s", r->name, msg);
}

static zb_status oom(reader *r) {
  return zb_error_set(r->err, ZB_ENOMEM, "out of host memory reading '%s'", r->name);
}

static const char *type_name(int tag) {
  static const char *const names[] = {
      "none",        "null",          "int",          "float",       "binary",
      "utf8",        "bool",          "decimal",      "date",        "time",
      "timestamp",   "interval",      "list",         "struct",      "union",
      "fixed_size_binary", "fixed_size_list", "map", "duration",  "large_binary",
      "large_utf8",  "large_list",    "run_end_encoded", "binary_view", "utf8_view",
      "list_view",   "large_list_view"};
  return tag >= 0 && tag < (int)(sizeof names / sizeof names[0]) ? names[tag] : "unknown";
}

/* Nodes and buffers a field of type tag takes in a record batch, children
 * included; false when the layout is not known (variadic buffers). */
static bool layout_of(reader *r, const zb__fbt *field, int depth, int64_t *nodes,
                      int64_t *bufs, int64_t *views, bool *bad) {
  uint8_t tag;
  if (depth > MAX_DEPTH || !zb__fb_u8(field, IPC_FIELD_TYPE_TYPE, 0, &tag)) {
    *bad = true;
    return false;
  }
  (void)r;
  *nodes += 1;
  if (zb__fb_has(field, IPC_FIELD_DICT)) { /* the indices' layout */
    *bufs += 2;
    return true;
  }
  switch (tag) {
    case IPC_T_NULL: break;
    case IPC_T_BINARY: case IPC_T_UTF8: case IPC_T_LARGE_BINARY: case IPC_T_LARGE_UTF8:
      *bufs += 3;
      break;
    case IPC_T_INT: case IPC_T_FLOAT: case IPC_T_BOOL: case IPC_T_DECIMAL: case IPC_T_DATE:
    case IPC_T_TIME: case IPC_T_TIMESTAMP: case IPC_T_INTERVAL: case IPC_T_FIXED_BINARY:
    case IPC_T_DURATION:
      *bufs += 2;
      break;
    case IPC_T_LIST: case IPC_T_LARGE_LIST: case IPC_T_MAP: *bufs += 2; break;
    case IPC_T_FIXED_LIST: case IPC_T_STRUCT: *bufs += 1; break;
    case IPC_T_RUN_END: break;
    case IPC_T_BINARY_VIEW: case IPC_T_UTF8_VIEW: /* + variadic buffers, counted per batch */
      *bufs += 2;
      *views += 1;
      break;
    case IPC_T_LIST_VIEW: case IPC_T_LARGE_LIST_VIEW: *bufs += 3; break;
    case IPC_T_UNION: {
      zb__fbt ut;
      bool present;
      int16_t mode = 0;
      if (!zb__fb_table(field, IPC_FIELD_TYPE, &ut, &present) ||
          (present && !zb__fb_i16(&ut, 0, 0, &mode))) {
        *bad = true;
        return false;
      }
      *bufs += mode == 1 ? 2 : 1;
      break;
    }
    default: return false; /* views and unknown types */
  }
  zb__fbv kids;
  if (!zb__fb_vector(field, IPC_FIELD_CHILDREN, 4, &kids)) {
    *bad = true;
    return false;
  }
  for (int64_t i = 0; i < kids.count; i++) {
    zb__fbt k;
    if (!zb__fb_vec_table(&kids, i, &k)) {
      *bad = true;
      return false;
    }
    if (!layout_of(r, &k, depth + 1, nodes, bufs, views, bad)) return false;
  }
  return true;
}

static const char unit_char[] = {'s', 'm', 'u', 'n'};

/* Whether p[0, n) is well-formed UTF-8 (names become Python str). */
static bool utf8_ok(const unsigned char *p, int64_t n) {
  for (int64_t i = 0; i < n;) {
    unsigned c = p[i];
    int w = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (w == 0 || i + w > n || (w > 1 && c < 0xC2) || (w == 4 && c > 0xF4)) return false;
    for (int k = 1; k < w; k++)
      if ((p[i + k] & 0xC0) != 0x80) return false;
    if (w == 3 && ((c == 0xE0 && p[i + 1] < 0xA0) || (c == 0xED && p[i + 1] >= 0xA0)))
      return false;
    if (w == 4 && ((c == 0xF0 && p[i + 1] < 0x90) || (c == 0xF4 && p[i + 1] >= 0x90)))
      return false;
    if (c == 0) return false;
    i += w;
  }
  return true;
}

/* What zambezi makes of a top-level field. */
static zb_status parse_field(reader *r, const zb__fbt *fb, int64_t idx, ipc_field *out) {
  const char *nm;
  int64_t nl;
  if (!zb__fb_string(fb, IPC_FIELD_NAME, &nm, &nl))
    return corrupt(r, "bad name of field %lld", (long long)idx);
  if (!utf8_ok((const unsigned char *)nm, nl))
    return corrupt(r, "the name of field %lld is not UTF-8", (long long)idx);
  out->name = (char *)zb_malloc((size_t)nl + 1);
  if (out->name == NULL) return oom(r);
  if (nl > 0) memcpy(out->name, nm, (size_t)nl);
  out->name[nl] = '\0';
  bool bad = false;
  out->layout_known = layout_of(r, fb, 0, &out->n_nodes, &out->n_buffers, &out->n_views, &bad);
  if (bad) return corrupt(r, "bad type of column '%s'", out->name);
  uint8_t tag;
  zb__fbt ty;
  bool has_type;
  if (!zb__fb_u8(fb, IPC_FIELD_TYPE_TYPE, 0, &tag) ||
      !zb__fb_table(fb, IPC_FIELD_TYPE, &ty, &has_type))
    return corrupt(r, "bad type of column '%s'", out->name);
  out->kind = K_UNSUPPORTED;
  snprintf(out->why, sizeof out->why, "the Arrow type %s", type_name(tag));
  int16_t unit = 0;
  switch (tag) {
    case IPC_T_NULL: out->kind = K_NULL; break;
    case IPC_T_INT: {
      int32_t bits = 0;
      uint8_t sgn = 0;
      if (has_type && (!zb__fb_i32(&ty, 0, 0, &bits) || !zb__fb_u8(&ty, 1, 0, &sgn)))
        return corrupt(r, "bad type of column '%s'", out->name);
      const char *f = bits == 8 ? "cC" : bits == 16 ? "sS" : bits == 32 ? "iI" : bits == 64 ? "lL"
                                                                                            : NULL;
      if (f == NULL) {
        snprintf(out->why, sizeof out->why, "an Arrow int of %d bits", (int)bits);
        break;
      }
      out->kind = K_FIXED;
      out->width = bits / 8;
      out->format[0] = sgn ? f[0] : f[1];
      break;
    }
    case IPC_T_FLOAT: {
      int16_t prec = 0;
      if (has_type && !zb__fb_i16(&ty, 0, 0, &prec))
        return corrupt(r, "bad type of column '%s'", out->name);
      if (prec == 1 || prec == 2) {
        out->kind = K_FIXED;
        out->width = prec == 1 ? 4 : 8;
        out->format[0] = prec == 1 ? 'f' : 'g';
      } else {
        snprintf(out->why, sizeof out->why, "the Arrow type halffloat");
      }
      break;
    }
    case IPC_T_BOOL: out->kind = K_BOOL; out->format[0] = 'b'; break;
    case IPC_T_UTF8: case IPC_T_LARGE_UTF8:
      out->kind = K_STRING;
      out->width = tag == IPC_T_UTF8 ? 4 : 8;
      out->format[0] = tag == IPC_T_UTF8 ? 'u' : 'U';
      break;
    case IPC_T_UTF8_VIEW: /* converted to large_utf8 */
      out->kind = K_VIEW;
      out->width = 8;
      out->format[0] = 'U';
      break;
    case IPC_T_DATE:
      unit = 1; /* the default: MILLISECOND */
      if (has_type && !zb__fb_i16(&ty, 0, 1, &unit))
        return corrupt(r, "bad type of column '%s'", out->name);
      if (unit == 0 || unit == 1) {
        out->kind = K_FIXED;
        out->width = unit == 0 ? 4 : 8;
        memcpy(out->format, unit == 0 ? "tdD" : "tdm", 4);
      }
      break;
    case IPC_T_TIMESTAMP: case IPC_T_DURATION: {
      const char *tz = NULL;
      int64_t tzl = 0;
      unit = tag == IPC_T_DURATION ? 1 : 0;
      if (has_type && (!zb__fb_i16(&ty, 0, unit, &unit) ||
                       (tag == IPC_T_TIMESTAMP && !zb__fb_string(&ty, 1, &tz, &tzl))))
        return corrupt(r, "bad type of column '%s'", out->name);
      if (unit < 0 || unit > 3) return corrupt(r, "bad time unit of column '%s'", out->name);
      if (tzl > 255) return corrupt(r, "time zone of column '%s' too long", out->name);
      out->kind = K_FIXED;
      out->width = 8;
      if (tag == IPC_T_DURATION) {
        snprintf(out->format, sizeof out->format, "tD%c", unit_char[unit]);
      } else {
        snprintf(out->format, sizeof out->format, "ts%c:%.*s", unit_char[unit], (int)tzl,
                 tz != NULL ? tz : "");
        if (tz == NULL) out->format[3] = '\0';
      }
      break;
    }
    case IPC_T_LIST: case IPC_T_LARGE_LIST: {
      zb__fbv kids;
      zb__fbt kf;
      if (!zb__fb_vector(fb, IPC_FIELD_CHILDREN, 4, &kids) || kids.count != 1 ||
          !zb__fb_vec_table(&kids, 0, &kf))
        return corrupt(r, "bad list type of column '%s'", out->name);
      ipc_field kid;
      memset(&kid, 0, sizeof kid);
      zb_status st = parse_field(r, &kf, idx, &kid);
      zb_free(kid.name);
      if (st != ZB_OK) return st;
      if (kid.kind == K_FIXED || kid.kind == K_BOOL || kid.kind == K_STRING) {
        out->kind = K_LIST;
        out->width = tag == IPC_T_LIST ? 4 : 8;
        memcpy(out->format, tag == IPC_T_LIST ? "+l" : "+L", 3);
        out->child_kind = kid.kind;
        out->child_width = kid.width;
        memcpy(out->child_format, kid.format, sizeof kid.format);
      } else {
        snprintf(out->why, sizeof out->why, "a list of %.140s",
                 kid.kind == K_LIST ? "lists" : kid.kind == K_UNSUPPORTED ? kid.why
                 : kid.kind == K_DICT ? "dictionary values" : "views or nulls");
      }
      break;
    }
    default: break;
  }
  zb__fbt de;
  bool has_dict;
  if (!zb__fb_table(fb, IPC_FIELD_DICT, &de, &has_dict))
    return corrupt(r, "bad dictionary of column '%s'", out->name);
  if (has_dict) {
    if (out->kind != K_STRING && out->kind != K_VIEW) {
      snprintf(out->why, sizeof out->why, "a dictionary of %s values (only strings are supported)",
               type_name(tag));
      out->kind = K_UNSUPPORTED;
      return ZB_OK;
    }
    zb__fbt it;
    bool has_it;
    int32_t bits = 32;
    uint8_t sgn = 1;
    if (!zb__fb_i64(&de, IPC_DICT_ID, 0, &out->dict_id) ||
        !zb__fb_table(&de, IPC_DICT_INDEX_TYPE, &it, &has_it) ||
        (has_it && (!zb__fb_i32(&it, 0, 0, &bits) || !zb__fb_u8(&it, 1, 0, &sgn))))
      return corrupt(r, "bad dictionary of column '%s'", out->name);
    const char *f = bits == 8 ? "cC" : bits == 16 ? "sS" : bits == 32 ? "iI" : bits == 64 ? "lL"
                                                                                          : NULL;
    if (f == NULL) return corrupt(r, "bad dictionary index of column '%s'", out->name);
    out->value_format[0] = out->format[0];
    out->value_format[1] = '\0';
    out->value_width = out->width;
    out->value_kind = out->kind;
    out->kind = K_DICT;
    out->width = bits / 8;
    out->format[0] = sgn ? f[0] : f[1];
    out->format[1] = '\0';
  }
  return ZB_OK;
}

/* ---- messages ------------------------------------------------------------ */

/* The Message at byte `at`: its table, and where its body starts. */
static zb_status read_message(reader *r, int64_t at, zb__fbt *msg, int64_t *body,
                              int64_t *body_len, bool *eos) {
  const uint8_t *b = r->f->base;
  const int64_t n = r->f->size;
  uint32_t cont;
  int32_t len;
  *eos = false;
  if (at < 0 || at > n - 4) return corrupt(r, "a message at byte %lld lies past the end", (long long)at);
  memcpy(&cont, b + at, 4);
  if (cont == 0xFFFFFFFFu) {
    if (at > n - 8) return corrupt(r, "truncated message at byte %lld", (long long)at);
    memcpy(&len, b + at + 4, 4);
    at += 8;
  } else {
    memcpy(&len, &cont, 4); /* before Arrow 0.15: no continuation marker */
    at += 4;
  }
  if (len == 0) {
    *eos = true;
    return ZB_OK;
  }
  if (len < 0 || len > n - at)
    return corrupt(r, "the message at byte %lld claims %d bytes of metadata", (long long)at,
                   (int)len);
  if (!zb__fb_root(b + at, len, msg))
    return corrupt(r, "bad message flatbuffer at byte %lld", (long long)at);
  int64_t bl;
  if (!zb__fb_i64(msg, IPC_MSG_BODY_LENGTH, 0, &bl))
    return corrupt(r, "bad message at byte %lld", (long long)at);
  *body = at + len;
  if (bl < 0 || bl > n - *body)
    return corrupt(r, "the message at byte %lld claims a body of %lld bytes, past the end",
                   (long long)at, (long long)bl);
  *body_len = bl;
  return ZB_OK;
}

static zb_status message_header(reader *r, const zb__fbt *msg, int want, zb__fbt *hdr,
                                int64_t at) {
  uint8_t type;
  bool present;
  if (!zb__fb_u8(msg, IPC_MSG_HEADER_TYPE, 0, &type) ||
      !zb__fb_table(msg, IPC_MSG_HEADER, hdr, &present) || !present)
    return corrupt(r, "bad message at byte %lld", (long long)at);
  if (type != want)
    return corrupt(r, "the message at byte %lld is of kind %d where %d was expected",
                   (long long)at, (int)type, want);
  return ZB_OK;
}

static zb_status push(reader *r, int64_t **arr, int64_t *n, int64_t *cap, int64_t v) {
  if (*n == *cap) {
    int64_t nc = *cap ? *cap * 2 : 16;
    int64_t *p = (int64_t *)zb_malloc((size_t)nc * sizeof(int64_t));
    if (p == NULL) return oom(r);
    if (*n > 0) memcpy(p, *arr, (size_t)*n * sizeof(int64_t));
    zb_free(*arr);
    *arr = p;
    *cap = nc;
  }
  (*arr)[(*n)++] = v;
  return ZB_OK;
}

static zb_status parse_schema(reader *r, const zb__fbt *schema) {
  int16_t endian;
  zb__fbv fields, meta;
  if (!zb__fb_i16(schema, IPC_SCHEMA_ENDIANNESS, 0, &endian) ||
      !zb__fb_vector(schema, IPC_SCHEMA_FIELDS, 4, &fields) ||
      !zb__fb_vector(schema, IPC_SCHEMA_METADATA, 4, &meta))
    return corrupt(r, "bad schema");
  if (endian != 0)
    return zb_error_set(r->err, ZB_ENOTSUP,
                        "'%s' is a big-endian Arrow IPC file, which zambezi does not read",
                        r->name);
  r->fields = (ipc_field *)zb_calloc((size_t)(fields.count > 0 ? fields.count : 1),
                                     sizeof(ipc_field));
  if (r->fields == NULL) return oom(r);
  r->n_fields = fields.count;
  bool known = true;
  for (int64_t i = 0; i < fields.count; i++) {
    zb__fbt fb;
    if (!zb__fb_vec_table(&fields, i, &fb)) return corrupt(r, "bad field %lld", (long long)i);
    ZB_RETURN_NOT_OK(parse_field(r, &fb, i, &r->fields[i]));
    if (!known) r->fields[i].layout_known = false; /* after a field of unknown layout */
    known = known && r->fields[i].layout_known;
  }
  for (int64_t i = 0; i < meta.count; i++) {
    zb__fbt kv;
    const char *k, *v;
    int64_t kl, vl;
    if (!zb__fb_vec_table(&meta, i, &kv) || !zb__fb_string(&kv, 0, &k, &kl) ||
        !zb__fb_string(&kv, 1, &v, &vl))
      return corrupt(r, "bad schema metadata");
    if (k != NULL && kl == 6 && memcmp(k, "pandas", 6) == 0 && v != NULL && r->pandas == NULL) {
      r->pandas = (char *)zb_malloc((size_t)vl + 1);
      if (r->pandas == NULL) return oom(r);
      memcpy(r->pandas, v, (size_t)vl);
      r->pandas[vl] = '\0';
    }
  }
  return ZB_OK;
}

/* The footer of a file, or the messages of a stream. */
static zb_status find_messages(reader *r) {
  const uint8_t *b = r->f->base;
  const int64_t n = r->f->size;
  int64_t cap_b = 0, cap_d = 0;
  zb__fbt msg, hdr;
  int64_t body, body_len;
  bool eos;
  if (n >= 6 && memcmp(b, "ARROW1", 6) == 0) {
    if (n < 18 || memcmp(b + n - 6, "ARROW1", 6) != 0)
      return corrupt(r, "the file is truncated (it does not end with the footer and ARROW1)");
    int32_t flen;
    memcpy(&flen, b + n - 10, 4);
    if (flen <= 0 || flen > n - 18)
      return corrupt(r, "the footer claims %d bytes", (int)flen);
    zb__fbt footer, schema;
    bool present;
    zb__fbv dicts, batches;
    if (!zb__fb_root(b + n - 10 - flen, flen, &footer) ||
        !zb__fb_table(&footer, IPC_FOOTER_SCHEMA, &schema, &present) || !present ||
        !zb__fb_vector(&footer, IPC_FOOTER_DICTS, IPC_BLOCK_SIZE, &dicts) ||
        !zb__fb_vector(&footer, IPC_FOOTER_BATCHES, IPC_BLOCK_SIZE, &batches))
      return corrupt(r, "bad footer");
    ZB_RETURN_NOT_OK(parse_schema(r, &schema));
    for (int64_t i = 0; i < dicts.count; i++)
      ZB_RETURN_NOT_OK(push(r, &r->dict_at, &r->n_dicts, &cap_d,
                            zb__fb_vec_i64(&dicts, i, IPC_BLOCK_SIZE, 0)));
    for (int64_t i = 0; i < batches.count; i++)
      ZB_RETURN_NOT_OK(push(r, &r->batch_at, &r->n_batches, &cap_b,
                            zb__fb_vec_i64(&batches, i, IPC_BLOCK_SIZE, 0)));
    return ZB_OK;
  }
  if (n >= 4 && memcmp(b, "FEA1", 4) == 0)
    return zb_error_set(r->err, ZB_ENOTSUP,
                        "'%s' is a Feather version 1 file (before Arrow 0.17), which zambezi "
                        "does not read; rewrite it with pyarrow as Feather version 2",
                        r->name);
  /* a stream: Schema, then dictionaries and batches, then EOS or the end */
  int64_t at = 0;
  ZB_RETURN_NOT_OK(read_message(r, at, &msg, &body, &body_len, &eos));
  if (eos) return corrupt(r, "it holds no schema");
  ZB_RETURN_NOT_OK(message_header(r, &msg, IPC_MSG_SCHEMA, &hdr, at));
  ZB_RETURN_NOT_OK(parse_schema(r, &hdr));
  at = body + body_len;
  while (at < n) {
    if (zb_cancel_requested())
      return zb_error_set(r->err, ZB_ECANCEL, "reading '%s' cancelled", r->name);
    ZB_RETURN_NOT_OK(read_message(r, at, &msg, &body, &body_len, &eos));
    if (eos) break;
    uint8_t type;
    if (!zb__fb_u8(&msg, IPC_MSG_HEADER_TYPE, 0, &type))
      return corrupt(r, "bad message at byte %lld", (long long)at);
    if (type == IPC_MSG_DICTIONARY)
      ZB_RETURN_NOT_OK(push(r, &r->dict_at, &r->n_dicts, &cap_d, at));
    else if (type == IPC_MSG_RECORD_BATCH)
      ZB_RETURN_NOT_OK(push(r, &r->batch_at, &r->n_batches, &cap_b, at));
    else
      return corrupt(r, "unexpected message of kind %d at byte %lld", (int)type, (long long)at);
    at = body + body_len;
  }
  return ZB_OK;
}

/* ---- batches ------------------------------------------------------------- */

/* One column of a batch, as the C Data Interface will see it. */
typedef struct ipc_col {
  int64_t length, null_count;
  const void *bufs[3];
  int64_t lens[3];
  /* a view column (utf8_view): its views in bufs[1], its variadic data
   * buffers here; converted to large_utf8 in bufs[1], bufs[2] */
  const void **vbufs;
  int64_t *vlens;
  int64_t n_v;
  /* a list column: its child's node and buffers */
  int64_t child_length, child_null_count;
  const void *child_bufs[3];
  int64_t child_lens[3];
} ipc_col;

typedef struct ipc_batch {
  int64_t length;
  ipc_col *cols; /* n_sel of them (a dictionary batch: 1) */
} ipc_batch;

typedef struct ipc_task {
  const uint8_t *src;
  int64_t n;
  uint8_t *dst;
  int64_t cap;
  int codec; /* 0 LZ4_FRAME, 1 ZSTD, -1 copy */
} ipc_task;

typedef struct plan {
  ipc_task *tasks;
  int64_t n_tasks, cap_tasks;
  /* results of the tasks */
  zb_status status;
  zb_error err;
  pthread_mutex_t lock;
} plan;

/* Where buffer bi of a batch lies (checked against the body): *src and
 * *n, its bytes in the file (after the 8-byte length of a compressed
 * one); *ulen, its size once decompressed (0: empty); *codec, -1 when it
 * is stored raw (then *n == *ulen). */
static zb_status locate_buffer(reader *r, const uint8_t *body, int64_t body_len,
                               const zb__fbv *bufs, int64_t bi, int codec, const char *col,
                               const uint8_t **src_out, int64_t *n_out, int64_t *ulen_out,
                               int *codec_out) {
  if (bi >= bufs->count) return corrupt(r, "column '%s' lacks buffers", col);
  int64_t off = zb__fb_vec_i64(bufs, bi, IPC_BUF_SIZE, 0);
  int64_t len = zb__fb_vec_i64(bufs, bi, IPC_BUF_SIZE, 8);
  if (off < 0 || len < 0 || off > body_len || len > body_len - off)
    return corrupt(r, "a buffer of column '%s' lies outside its message body", col);
  const uint8_t *src = body + off;
  *src_out = src;
  *n_out = 0;
  *ulen_out = 0;
  *codec_out = -1;
  if (len == 0) return ZB_OK;
  int64_t ulen = len;
  if (codec >= 0) {
    if (len < 8) return corrupt(r, "a compressed buffer of column '%s' is too short", col);
    memcpy(&ulen, src, 8);
    src += 8;
    len -= 8;
    if (ulen == -1) {
      ulen = len; /* stored uncompressed */
      codec = -1;
    } else if (ulen < 0) {
      return corrupt(r, "a buffer of column '%s' claims %lld bytes", col, (long long)ulen);
    } else if (ulen == 0) {
      return ZB_OK;
    } else if ((codec == 0 && ulen / 256 > len + 65536) ||
               (codec == 1 && ulen / 65536 > len + 16)) {
      /* an LZ4 frame expands at most ~255 times, a zstd frame ~32768
       * times (a 128 KiB RLE block in 4 bytes): a larger claim is a lie,
       * not an allocation to attempt */
      return corrupt(r, "a compressed buffer of column '%s' claims %lld bytes from %lld",
                     col, (long long)ulen, (long long)len);
    }
  }
  *src_out = src;
  *n_out = len;
  *ulen_out = ulen;
  *codec_out = codec;
  return ZB_OK;
}

/* A buffer of a batch: the place in the file (checked), or a task's block. */
static zb_status plan_buffer(reader *r, plan *p, const uint8_t *body, int64_t body_len,
                             const zb__fbv *bufs, int64_t bi, int codec, const char *col,
                             const void **out, int64_t *out_len) {
  const uint8_t *src;
  int64_t len, ulen;
  ZB_RETURN_NOT_OK(locate_buffer(r, body, body_len, bufs, bi, codec, col, &src, &len, &ulen,
                                 &codec));
  *out = g_zeros;
  *out_len = 0;
  if (ulen == 0) return ZB_OK;
  if (codec < 0 && ((uintptr_t)src & 7) == 0) { /* used where it is */
    *out = src;
    *out_len = len;
    return ZB_OK;
  }
  if (p->n_tasks == p->cap_tasks) {
    int64_t nc = p->cap_tasks ? p->cap_tasks * 2 : 64;
    ipc_task *t = (ipc_task *)zb_malloc((size_t)nc * sizeof(ipc_task));
    if (t == NULL) return oom(r);
    if (p->n_tasks > 0) memcpy(t, p->tasks, (size_t)p->n_tasks * sizeof(ipc_task));
    zb_free(p->tasks);
    p->tasks = t;
    p->cap_tasks = nc;
  }
  uint8_t *dst = (uint8_t *)file_alloc(r->f, ulen);
  if (dst == NULL)
    return zb_error_set(r->err, ZB_ENOMEM,
                        "out of host memory reading '%s' (%lld bytes for column '%s')", r->name,
                        (long long)ulen, col);
  ipc_task *t = &p->tasks[p->n_tasks++];
  t->src = src;
  t->n = len;
  t->dst = dst;
  t->cap = ulen;
  t->codec = codec;
  *out = dst;
  *out_len = ulen;
  return ZB_OK;
}

static zb_status check_strings(reader *r, const ipc_col *c, int width, const char *col,
                               const char *what);

/* A list column of a batch (node and buffers from node, buf): its
 * validity and offsets, then its child's node and buffers; each checked to
 * be as long as its length needs (the offsets' values are checked against
 * the child after the tasks ran: check_list). */
static zb_status plan_list(reader *r, plan *p, const uint8_t *body, int64_t body_len,
                           const zb__fbv *nodes, const zb__fbv *bufs, int64_t node, int64_t buf,
                           int codec, const ipc_field *fd, ipc_col *c, const char *what) {
  int64_t length = c->length;
  for (int i = 0; i < 2; i++)
    ZB_RETURN_NOT_OK(plan_buffer(r, p, body, body_len, bufs, buf + i, codec, fd->name,
                                 &c->bufs[i], &c->lens[i]));
  int64_t need = length > 0 ? (length + 1) * fd->width : 0;
  if (c->lens[1] < need)
    return corrupt(r, "the offsets of list column '%s' in %s hold %lld bytes where %lld are "
                   "needed", fd->name, what, (long long)c->lens[1], (long long)need);
  if (c->null_count > 0 && c->lens[0] < (length + 7) / 8)
    return corrupt(r, "the validity bitmap of column '%s' in %s is too short", fd->name, what);
  if (c->null_count == 0) c->bufs[0] = NULL;
  if (node + 1 >= nodes->count)
    return corrupt(r, "%s lacks the child node of list column '%s'", what, fd->name);
  int64_t cl = zb__fb_vec_i64(nodes, node + 1, IPC_NODE_SIZE, 0);
  int64_t cn = zb__fb_vec_i64(nodes, node + 1, IPC_NODE_SIZE, 8);
  if (cl < 0 || cl > INT64_MAX / 16 || cn < 0 || cn > cl)
    return corrupt(r, "the child of list column '%s' in %s has %lld values and %lld nulls",
                   fd->name, what, (long long)cl, (long long)cn);
  c->child_length = cl;
  c->child_null_count = cn;
  int nb = fd->child_kind == K_STRING ? 3 : 2;
  for (int i = 0; i < 3; i++) {
    c->child_bufs[i] = NULL;
    c->child_lens[i] = 0;
  }
  for (int i = 0; i < nb; i++)
    ZB_RETURN_NOT_OK(plan_buffer(r, p, body, body_len, bufs, buf + 2 + i, codec, fd->name,
                                 &c->child_bufs[i], &c->child_lens[i]));
  int64_t cneed = fd->child_kind == K_BOOL ? (cl + 7) / 8 : cl * fd->child_width;
  if (fd->child_kind == K_STRING) cneed = cl > 0 ? (cl + 1) * fd->child_width : 0;
  if (c->child_lens[1] < cneed)
    return corrupt(r, "a buffer of the values of list column '%s' in %s holds %lld bytes "
                   "where %lld are needed", fd->name, what, (long long)c->child_lens[1],
                   (long long)cneed);
  if (cn > 0 && c->child_lens[0] < (cl + 7) / 8)
    return corrupt(r, "the validity bitmap of the values of list column '%s' in %s is too "
                   "short", fd->name, what);
  if (cn == 0) c->child_bufs[0] = NULL;
  return ZB_OK;
}

/* A list column's offsets (after the tasks ran): non-decreasing, from 0
 * or more to at most its child's length; a string child's last offset
 * inside its characters. */
static zb_status check_list(reader *r, const ipc_field *fd, const ipc_col *c, const char *what) {
  if (fd->child_kind == K_STRING && c->child_length > 0) {
    ipc_col kid;
    memset(&kid, 0, sizeof kid);
    kid.length = c->child_length;
    for (int i = 0; i < 3; i++) {
      kid.bufs[i] = c->child_bufs[i];
      kid.lens[i] = c->child_lens[i];
    }
    ZB_RETURN_NOT_OK(check_strings(r, &kid, fd->child_width, fd->name, what));
  }
  if (c->length == 0) return ZB_OK;
  const uint8_t *o = (const uint8_t *)c->bufs[1];
  int64_t prev = -1;
  for (int64_t i = 0; i <= c->length; i++) {
    int64_t v;
    if (fd->width == 4) {
      int32_t x;
      memcpy(&x, o + 4 * i, 4);
      v = x;
    } else {
      memcpy(&v, o + 8 * i, 8);
    }
    if (v < 0 || v < prev || v > c->child_length)
      return corrupt(r, "the offsets of list column '%s' in %s are corrupt (offset %lld is "
                     "%lld, of %lld values)", fd->name, what, (long long)i, (long long)v,
                     (long long)c->child_length);
    prev = v;
  }
  return ZB_OK;
}

/* The header of RecordBatch rb: its rows, nodes, buffers, variadic buffer
 * counts and codec (-1: none). */
static zb_status batch_header(reader *r, const zb__fbt *rb, const char *what, int64_t *length,
                              zb__fbv *nodes, zb__fbv *bufs, zb__fbv *variadic, int *codec) {
  zb__fbt comp;
  bool has_comp;
  *codec = -1;
  if (!zb__fb_i64(rb, IPC_RB_LENGTH, 0, length) ||
      !zb__fb_vector(rb, 4, 8, variadic) || /* variadicBufferCounts */
      !zb__fb_vector(rb, IPC_RB_NODES, IPC_NODE_SIZE, nodes) ||
      !zb__fb_vector(rb, IPC_RB_BUFFERS, IPC_BUF_SIZE, bufs) ||
      !zb__fb_table(rb, IPC_RB_COMPRESSION, &comp, &has_comp))
    return corrupt(r, "bad %s", what);
  if (has_comp) {
    uint8_t c, method;
    if (!zb__fb_u8(&comp, 0, 0, &c) || !zb__fb_u8(&comp, 1, 0, &method))
      return corrupt(r, "bad compression of %s", what);
    if (c > 1 || method != 0)
      return zb_error_set(r->err, ZB_ENOTSUP,
                          "'%s': %s uses compression codec %d, method %d; zambezi reads "
                          "LZ4_FRAME and ZSTD buffers",
                          r->name, what, (int)c, (int)method);
    *codec = c;
  }
  if (*length < 0 || *length > INT64_MAX / 16)
    return corrupt(r, "%s has %lld rows", what, (long long)*length);
  return ZB_OK;
}

/* The first node, buffer and view column of field f in a batch (the
 * fields before it skipped). */
static zb_status field_start(reader *r, int64_t f, const zb__fbv *variadic, const char *what,
                             int64_t *node, int64_t *buf, int64_t *view) {
  const ipc_field *fd = &r->fields[f];
  if (!fd->layout_known)
    return zb_error_set(r->err, ZB_ENOTSUP,
                        "'%s': column '%s' follows a column whose Arrow type zambezi cannot "
                        "skip (%s)",
                        r->name, fd->name, fd->why);
  *node = 0;
  *buf = 0;
  *view = 0;
  for (int64_t j = 0; j < f; j++) {
    *node += r->fields[j].n_nodes;
    *buf += r->fields[j].n_buffers;
    for (int64_t v = 0; v < r->fields[j].n_views; v++, (*view)++) {
      if (*view >= variadic->count) return corrupt(r, "%s lacks variadic buffer counts", what);
      int64_t nv = zb__fb_vec_i64(variadic, *view, 8, 0);
      if (nv < 0 || nv > (1 << 30)) return corrupt(r, "bad variadic buffer count in %s", what);
      *buf += nv;
    }
  }
  return ZB_OK;
}

/* Plan the RecordBatch rb (body at body) for the fields fsel[0, nsel) into
 * b.  what: "record batch 3" or "dictionary 0", for messages. */
static zb_status plan_batch(reader *r, plan *p, const zb__fbt *rb, const uint8_t *body,
                            int64_t body_len, const int64_t *fsel, int64_t nsel,
                            ipc_batch *b, const char *what) {
  int64_t length;
  zb__fbv nodes, bufs, variadic;
  int codec;
  ZB_RETURN_NOT_OK(batch_header(r, rb, what, &length, &nodes, &bufs, &variadic, &codec));
  b->length = length;
  /* walk the fields in order, taking the selected ones */
  for (int64_t k = 0; k < nsel; k++) {
    const ipc_field *fd = &r->fields[fsel[k]];
    int64_t node, buf, view;
    ZB_RETURN_NOT_OK(field_start(r, fsel[k], &variadic, what, &node, &buf, &view));
    if (node >= nodes.count) return corrupt(r, "%s lacks the node of column '%s'", what, fd->name);
    ipc_col *c = &b->cols[k];
    c->length = zb__fb_vec_i64(&nodes, node, IPC_NODE_SIZE, 0);
    c->null_count = zb__fb_vec_i64(&nodes, node, IPC_NODE_SIZE, 8);
    if (c->length != length)
      return corrupt(r, "column '%s' of %s has %lld rows where the batch has %lld", fd->name,
                     what, (long long)c->length, (long long)length);
    if (c->null_count < 0 || c->null_count > length)
      return corrupt(r, "column '%s' of %s has %lld nulls", fd->name, what,
                     (long long)c->null_count);
    for (int i = 0; i < 3; i++) {
      c->bufs[i] = NULL;
      c->lens[i] = 0;
    }
    if (fd->kind == K_NULL) {
      /* an all-null string column: a zero bitmap and zero int32 offsets */
      int64_t bm = (length + 7) / 8, ob = (length + 1) * 4;
      uint8_t *z = (uint8_t *)file_alloc(r->f, bm + ob + 8);
      if (z == NULL) return oom(r);
      memset(z, 0, (size_t)(bm + ob + 8));
      c->null_count = length;
      c->bufs[0] = z + ob;
      c->bufs[1] = z;
      c->bufs[2] = g_zeros;
      continue;
    }
    if (fd->kind == K_VIEW) {
      if (view >= variadic.count) return corrupt(r, "%s lacks variadic buffer counts", what);
      int64_t nv = zb__fb_vec_i64(&variadic, view, 8, 0);
      if (nv < 0 || nv > bufs.count) return corrupt(r, "bad variadic buffer count in %s", what);
      c->n_v = nv;
      c->vbufs = (const void **)file_alloc(r->f, (nv + 1) * (int64_t)sizeof(void *));
      c->vlens = (int64_t *)file_alloc(r->f, (nv + 1) * 8);
      if (c->vbufs == NULL || c->vlens == NULL) return oom(r);
      for (int i = 0; i < 2; i++)
        ZB_RETURN_NOT_OK(plan_buffer(r, p, body, body_len, &bufs, buf + i, codec, fd->name,
                                     &c->bufs[i], &c->lens[i]));
      for (int64_t v = 0; v < nv; v++)
        ZB_RETURN_NOT_OK(plan_buffer(r, p, body, body_len, &bufs, buf + 2 + v, codec, fd->name,
                                     &c->vbufs[v], &c->vlens[v]));
      if (c->lens[1] < length * 16)
        return corrupt(r, "the views of column '%s' in %s are too short", fd->name, what);
      if (c->null_count > 0 && c->lens[0] < (length + 7) / 8)
        return corrupt(r, "the validity bitmap of column '%s' in %s is too short", fd->name,
                       what);
      if (c->null_count == 0) c->bufs[0] = NULL;
      continue;
    }
    if (fd->kind == K_LIST) {
      ZB_RETURN_NOT_OK(plan_list(r, p, body, body_len, &nodes, &bufs, node, buf, codec, fd, c,
                                 what));
      continue;
    }
    int nb = fd->kind == K_STRING ? 3 : 2;
    const uint8_t *bb = body;
    for (int i = 0; i < nb; i++) {
      ZB_RETURN_NOT_OK(plan_buffer(r, p, bb, body_len, &bufs, buf + i, codec, fd->name,
                                   &c->bufs[i], &c->lens[i]));
    }
    int64_t need = fd->kind == K_BOOL ? (length + 7) / 8 : length * fd->width;
    if (fd->kind == K_STRING) need = length > 0 ? (length + 1) * fd->width : 0;
    if (c->lens[1] < need)
      return corrupt(r, "a buffer of column '%s' in %s holds %lld bytes where %lld are needed",
                     fd->name, what, (long long)c->lens[1], (long long)need);
    if (c->null_count > 0 && c->lens[0] < (length + 7) / 8)
      return corrupt(r, "the validity bitmap of column '%s' in %s is too short", fd->name,
                     what);
    if (c->null_count == 0) c->bufs[0] = NULL;
  }
  return ZB_OK;
}

/* Strings' last offset inside their characters (after the tasks ran). */
static zb_status check_strings(reader *r, const ipc_col *c, int width, const char *col,
                               const char *what) {
  if (c->length == 0) return ZB_OK;
  int64_t last;
  if (width == 4) {
    int32_t v;
    memcpy(&v, (const uint8_t *)c->bufs[1] + c->length * 4, 4);
    last = v;
  } else {
    memcpy(&last, (const uint8_t *)c->bufs[1] + c->length * 8, 8);
  }
  if (last < 0 || last > c->lens[2])
    return corrupt(r, "the strings of column '%s' in %s end at byte %lld of %lld", col, what,
                   (long long)last, (long long)c->lens[2]);
  return ZB_OK;
}

static void run_task(void *ctx, int64_t i, int worker) {
  (void)worker;
  plan *p = (plan *)ctx;
  ipc_task *t = &p->tasks[i];
  zb_error e;
  zb_status st;
  if (t->codec < 0) {
    memcpy(t->dst, t->src, (size_t)t->cap);
    return;
  }
  if (t->codec == 0)
    st = zb__lz4frame_block(t->src, t->n, t->dst, t->cap, &e);
  else
    st = zb__zstd_block(t->src, t->n, t->dst, t->cap, &e);
  if (st != ZB_OK) {
    pthread_mutex_lock(&p->lock);
    if (p->status == ZB_OK) {
      p->status = st;
      p->err = e;
    }
    pthread_mutex_unlock(&p->lock);
  }
}

/* utf8_view -> large_utf8: each view is an int32 length, then the string
 * itself when it fits in 12 bytes, else a 4-byte prefix, the int32 index
 * of a variadic buffer and the int32 offset in it. */
typedef struct view_job {
  reader *r;
  ipc_col **cols;
  const char **names;
  zb_status status;
  zb_error err;
  pthread_mutex_t lock;
} view_job;

static zb_status convert_views(reader *r, ipc_col *c, const char *col, zb_error *err) {
  const uint8_t *v = (const uint8_t *)c->bufs[1];
  const uint8_t *valid = (const uint8_t *)c->bufs[0];
  const int64_t n = c->length;
  int64_t *offs;
  int64_t total = 0;
  pthread_mutex_lock(&((view_job *)r->view_ctx)->lock);
  offs = (int64_t *)file_alloc(r->f, (n + 1) * 8);
  pthread_mutex_unlock(&((view_job *)r->view_ctx)->lock);
  if (offs == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory reading '%s'", r->name);
  offs[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    int32_t len = 0;
    if (valid == NULL || zb_bit_get(valid, i)) {
      memcpy(&len, v + 16 * i, 4);
      if (len < 0)
        return zb_error_set(err, ZB_EPARSE, "'%s' is not a valid Arrow IPC file: a string of "
                            "column '%s' has length %d", r->name, col, (int)len);
      if (len > 12) {
        int32_t bi, off;
        memcpy(&bi, v + 16 * i + 8, 4);
        memcpy(&off, v + 16 * i + 12, 4);
        if (bi < 0 || bi >= c->n_v || off < 0 || (int64_t)off + len > c->vlens[bi])
          return zb_error_set(err, ZB_EPARSE, "'%s' is not a valid Arrow IPC file: a string "
                              "of column '%s' lies outside its data buffers", r->name, col);
      }
    }
    total += len;
    offs[i + 1] = total;
  }
  pthread_mutex_lock(&((view_job *)r->view_ctx)->lock);
  uint8_t *chars = (uint8_t *)file_alloc(r->f, total);
  pthread_mutex_unlock(&((view_job *)r->view_ctx)->lock);
  if (chars == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory reading '%s'", r->name);
  for (int64_t i = 0; i < n; i++) {
    int64_t len = offs[i + 1] - offs[i];
    if (len == 0) continue;
    const uint8_t *src;
    if (len <= 12) {
      src = v + 16 * i + 4;
    } else {
      int32_t bi, off;
      memcpy(&bi, v + 16 * i + 8, 4);
      memcpy(&off, v + 16 * i + 12, 4);
      src = (const uint8_t *)c->vbufs[bi] + off;
    }
    memcpy(chars + offs[i], src, (size_t)len);
  }
  c->bufs[1] = offs;
  c->lens[1] = (n + 1) * 8;
  c->bufs[2] = chars;
  c->lens[2] = total;
  return ZB_OK;
}

static void view_task(void *ctx, int64_t i, int worker) {
  (void)worker;
  view_job *j = (view_job *)ctx;
  zb_error e;
  zb_status st = convert_views(j->r, j->cols[i], j->names[i], &e);
  if (st != ZB_OK) {
    pthread_mutex_lock(&j->lock);
    if (j->status == ZB_OK) {
      j->status = st;
      j->err = e;
    }
    pthread_mutex_unlock(&j->lock);
  }
}

/* ---- C Data Interface views ---------------------------------------------- */

typedef struct schema_priv {
  struct ArrowSchema *kids;
  struct ArrowSchema **kid_ptrs;
  struct ArrowSchema *dicts;
  struct ArrowSchema *items;      /* list columns: their child's schema */
  struct ArrowSchema **item_ptrs;
} schema_priv;

static void child_schema_release(struct ArrowSchema *s) { s->release = NULL; }

static void schema_release(struct ArrowSchema *s) {
  schema_priv *p = (schema_priv *)s->private_data;
  zb_free(p->kids);
  zb_free(p->kid_ptrs);
  zb_free(p->dicts);
  zb_free(p->items);
  zb_free(p->item_ptrs);
  zb_free(p);
  s->release = NULL;
}

static zb_status make_schema(reader *r, struct ArrowSchema *s) {
  int64_t n = r->n_sel;
  schema_priv *p = (schema_priv *)zb_calloc(1, sizeof *p);
  if (p == NULL) return oom(r);
  p->kids = (struct ArrowSchema *)zb_calloc((size_t)(n ? n : 1), sizeof(struct ArrowSchema));
  p->kid_ptrs = (struct ArrowSchema **)zb_calloc((size_t)(n ? n : 1), sizeof(void *));
  p->dicts = (struct ArrowSchema *)zb_calloc((size_t)(n ? n : 1), sizeof(struct ArrowSchema));
  p->items = (struct ArrowSchema *)zb_calloc((size_t)(n ? n : 1), sizeof(struct ArrowSchema));
  p->item_ptrs = (struct ArrowSchema **)zb_calloc((size_t)(n ? n : 1), sizeof(void *));
  memset(s, 0, sizeof *s);
  s->format = "+s";
  s->name = "";
  s->n_children = n;
  s->children = p->kid_ptrs;
  s->private_data = p;
  s->release = schema_release;
  if (p->kids == NULL || p->kid_ptrs == NULL || p->dicts == NULL || p->items == NULL ||
      p->item_ptrs == NULL) {
    schema_release(s);
    return oom(r);
  }
  for (int64_t k = 0; k < n; k++) {
    ipc_field *fd = &r->fields[r->sel[k]];
    struct ArrowSchema *c = &p->kids[k];
    p->kid_ptrs[k] = c;
    c->format = fd->kind == K_NULL ? "u" : fd->format;
    c->name = fd->name;
    c->flags = 2; /* ARROW_FLAG_NULLABLE */
    c->release = child_schema_release;
    if (fd->kind == K_LIST) {
      struct ArrowSchema *it = &p->items[k];
      it->format = fd->child_format;
      it->name = "item";
      it->flags = 2;
      it->release = child_schema_release;
      p->item_ptrs[k] = it;
      c->n_children = 1;
      c->children = &p->item_ptrs[k];
    }
    if (fd->kind == K_DICT) {
      struct ArrowSchema *d = &p->dicts[k];
      d->format = fd->value_format;
      d->name = "";
      d->release = child_schema_release;
      c->dictionary = d;
    }
  }
  return ZB_OK;
}

typedef struct array_priv {
  ipc_file *f;
  struct ArrowArray *kids, **kid_ptrs, *dicts;
  struct ArrowArray *items, **item_ptrs; /* list columns: their child */
  const void **bufs; /* 3 per child, 3 per dictionary */
} array_priv;

static void child_array_release(struct ArrowArray *a) { a->release = NULL; }

static void array_release(struct ArrowArray *a) {
  array_priv *p = (array_priv *)a->private_data;
  file_unref(p->f);
  zb_free(p->kids);
  zb_free(p->kid_ptrs);
  zb_free(p->dicts);
  zb_free(p->items);
  zb_free(p->item_ptrs);
  zb_free(p->bufs);
  zb_free(p);
  a->release = NULL;
}

static const void *g_struct_bufs[1] = {NULL};

/* The struct array of batch b; dicts[k]: the dictionary of selected column
 * k (NULL unless a dictionary column). */
static zb_status make_array(reader *r, const ipc_batch *b, ipc_batch *const *dicts,
                            struct ArrowArray *a) {
  int64_t n = r->n_sel;
  array_priv *p = (array_priv *)zb_calloc(1, sizeof *p);
  if (p == NULL) return oom(r);
  p->kids = (struct ArrowArray *)zb_calloc((size_t)(n ? n : 1), sizeof(struct ArrowArray));
  p->kid_ptrs = (struct ArrowArray **)zb_calloc((size_t)(n ? n : 1), sizeof(void *));
  p->dicts = (struct ArrowArray *)zb_calloc((size_t)(n ? n : 1), sizeof(struct ArrowArray));
  p->bufs = (const void **)zb_calloc((size_t)(n ? n : 1) * 6, sizeof(void *));
  p->items = (struct ArrowArray *)zb_calloc((size_t)(n ? n : 1), sizeof(struct ArrowArray));
  p->item_ptrs = (struct ArrowArray **)zb_calloc((size_t)(n ? n : 1), sizeof(void *));
  memset(a, 0, sizeof *a);
  a->length = b->length;
  a->n_buffers = 1;
  a->buffers = g_struct_bufs;
  a->n_children = n;
  a->children = p->kid_ptrs;
  a->private_data = p;
  a->release = array_release;
  if (p->kids == NULL || p->kid_ptrs == NULL || p->dicts == NULL || p->bufs == NULL ||
      p->items == NULL || p->item_ptrs == NULL) {
    array_release(a);
    return oom(r);
  }
  p->f = r->f;
  zb__atomic_inc(&r->f->refcount);
  for (int64_t k = 0; k < n; k++) {
    const ipc_field *fd = &r->fields[r->sel[k]];
    const ipc_col *c = &b->cols[k];
    struct ArrowArray *ca = &p->kids[k];
    p->kid_ptrs[k] = ca;
    const void **cb = p->bufs + 6 * k;
    ca->length = c->length;
    ca->null_count = c->null_count;
    ca->n_buffers = fd->kind == K_STRING || fd->kind == K_VIEW || fd->kind == K_NULL ? 3 : 2;
    for (int i = 0; i < 3; i++) cb[i] = c->bufs[i];
    ca->buffers = cb;
    ca->release = child_array_release;
    if (fd->kind == K_LIST) { /* the child's buffers in the dictionary's three slots */
      struct ArrowArray *it = &p->items[k];
      if (cb[1] == NULL) cb[1] = g_zeros; /* an empty batch: one zero offset */
      for (int i = 0; i < 3; i++) cb[3 + i] = c->child_bufs[i];
      if (cb[4] == NULL) cb[4] = g_zeros;
      if (cb[5] == NULL) cb[5] = g_zeros;
      it->length = c->child_length;
      it->null_count = c->child_null_count;
      it->n_buffers = fd->child_kind == K_STRING ? 3 : 2;
      it->buffers = cb + 3;
      it->release = child_array_release;
      p->item_ptrs[k] = it;
      ca->n_children = 1;
      ca->children = &p->item_ptrs[k];
    }
    if (fd->kind == K_DICT) {
      const ipc_col *dc = &dicts[k]->cols[0];
      struct ArrowArray *da = &p->dicts[k];
      for (int i = 0; i < 3; i++) cb[3 + i] = dc->bufs[i];
      da->length = dc->length;
      da->null_count = dc->null_count;
      da->n_buffers = 3;
      da->buffers = cb + 3;
      da->release = child_array_release;
      ca->dictionary = da;
    }
  }
  return ZB_OK;
}

/* Prefix an import error with the file and batch. */
static zb_status import_failed(reader *r, zb_status st, const char *what) {
  if (st == ZB_ENOMEM || st == ZB_ECANCEL || r->err == NULL) return st;
  char msg[ZB_ERROR_MESSAGE_SIZE];
  memcpy(msg, r->err->message, sizeof msg);
  const char *m = strncmp(msg, "import: ", 8) == 0 ? msg + 8 : msg;
  if (st == ZB_EINVAL) st = ZB_EPARSE; /* the data broke a rule of the format */
  return zb_error_set(r->err, st, "'%s' (%s): %s", r->name, what, m);
}

/* ---- several batches straight into whole columns ------------------------ */

/* A file of several record batches: the columns of fixed width, bool and
 * string types are assembled without a chunk per batch.  Each column's
 * buffers are allocated whole; one task per (batch, column) decompresses
 * (or copies) its values straight into their place, and a string task
 * rebases its offsets to int64 in the same pass that checks they never
 * decrease; one task per column copies its validity (and a bool column's
 * values) bit by bit, since batches need not start on a byte.  A batch's
 * characters go where the batches before it end when every batch's
 * offsets run from 0 to the end of its characters (what writers do);
 * otherwise the characters are packed afterwards.  Other columns take the
 * batch-by-batch path (read_batches). */

typedef struct asm_buf {
  const uint8_t *src; /* in the file */
  int64_t n, ulen;    /* bytes there; bytes once decompressed */
  int codec;          /* -1: raw (n == ulen) */
} asm_buf;

typedef struct asm_piece { /* one column of one batch */
  int64_t row, length, null_count;
  asm_buf b[3];     /* validity, values or offsets, characters */
  int64_t chars_at; /* where its characters start in the column's */
  int64_t off0, offn; /* its first and last string offsets */
  /* a utf8_view column: its variadic data buffers; its views, validity
   * and data in memory (in the file, or decompressed into hold) */
  asm_buf *vb;
  int64_t nv;
  uint8_t *hold;
  const uint8_t *views, *valid, **vdata;
} asm_piece;

typedef struct asm_col {
  int64_t k; /* the selected column */
  zb_type_id type;
  bool view; /* utf8_view, converted to strings */
  bool has_validity;
  zb_buffer *validity, *data, *chars;
  int64_t nulls;
} asm_col;

typedef struct asm_job {
  reader *r;
  int64_t nb, nc, rows;
  asm_piece *pieces; /* pieces[b * nc + c] */
  asm_col *cols;
  int64_t *bit_cols; /* columns with a bitmap task */
  int64_t n_bit;
  int64_t *view_cols; /* utf8_view columns */
  int64_t n_view;
  uint8_t **scratch; /* one per worker */
  int64_t *scratch_cap;
  zb_status status;
  zb_error err;
  pthread_mutex_t lock;
} asm_job;

/* Whether column kind/format is assembled whole; its zambezi type. */
static bool asm_type(const ipc_field *fd, zb_type_id *t) {
  if (fd->kind == K_BOOL) {
    *t = ZB_BOOL;
    return true;
  }
  if (fd->kind == K_STRING || fd->kind == K_VIEW) {
    *t = ZB_STRING;
    return true;
  }
  if (fd->kind != K_FIXED) return false;
  static const char codes[] = "cCsSiIlLfg";
  static const zb_type_id types[] = {ZB_INT8,  ZB_UINT8,  ZB_INT16, ZB_UINT16,  ZB_INT32,
                                     ZB_UINT32, ZB_INT64, ZB_UINT64, ZB_FLOAT32, ZB_FLOAT64};
  const char *f = fd->format;
  if (f[0] != '\0' && f[1] == '\0' && strchr(codes, f[0]) != NULL) {
    *t = types[strchr(codes, f[0]) - codes];
    return true;
  }
  if (strcmp(f, "tdD") == 0) {
    *t = ZB_DATE32;
    return true;
  }
  if (f[0] == 't' && (f[1] == 's' || f[1] == 'D')) { /* the unit is set afterwards */
    *t = f[1] == 's' ? ZB_TIMESTAMP : ZB_DURATION;
    return true;
  }
  return false; /* date64: converted by the importer */
}

static void asm_fail(asm_job *j, zb_status st, const zb_error *e) {
  pthread_mutex_lock(&j->lock);
  if (j->status == ZB_OK) {
    j->status = st;
    j->err = *e;
    /* a codec's error (corrupt lz4 or zstd data) names the file too */
    if (st != ZB_ENOMEM && st != ZB_ECANCEL && strstr(e->message, j->r->name) == NULL)
      zb_error_set(&j->err, st, "'%s': %s", j->r->name, e->message);
  }
  pthread_mutex_unlock(&j->lock);
}

/* The worker's scratch block of at least size bytes (NULL: out of memory). */
static uint8_t *asm_scratch(asm_job *j, int worker, int64_t size) {
  if (j->scratch_cap[worker] < size) {
    zb_free(j->scratch[worker]);
    j->scratch[worker] = (uint8_t *)zb_malloc((size_t)size);
    j->scratch_cap[worker] = j->scratch[worker] != NULL ? size : 0;
  }
  return j->scratch[worker];
}

/* Decompress b into dst (b->ulen bytes). */
static zb_status asm_decompress(const asm_buf *b, void *dst, zb_error *e) {
  if (b->codec < 0) {
    memcpy(dst, b->src, (size_t)b->ulen);
    return ZB_OK;
  }
  return b->codec == 0 ? zb__lz4frame_block(b->src, b->n, dst, b->ulen, e)
                       : zb__zstd_block(b->src, b->n, dst, b->ulen, e);
}

/* The bytes of b: in the file when raw, else decompressed into scratch. */
static zb_status asm_bytes(asm_job *j, int worker, const asm_buf *b, const uint8_t **out,
                           zb_error *e) {
  if (b->codec < 0) {
    *out = b->src;
    return ZB_OK;
  }
  uint8_t *s = asm_scratch(j, worker, b->ulen);
  if (s == NULL)
    return zb_error_set(e, ZB_ENOMEM, "out of host memory reading '%s'", j->r->name);
  *out = s;
  return asm_decompress(b, s, e);
}

/* dst[i] = src[i] + add for i < n, src holding n + 1 offsets of w bytes
 * (possibly unaligned); false when they decrease. */
ZB_CLONES static bool asm_rebase32(int64_t *dst, const uint8_t *src, int64_t n, int64_t add) {
  int bad = 0;
  for (int64_t i = 0; i < n; i++) {
    int32_t a, b;
    memcpy(&a, src + 4 * i, 4);
    memcpy(&b, src + 4 * i + 4, 4);
    dst[i] = (int64_t)((uint64_t)(int64_t)a + (uint64_t)add);
    bad |= b < a;
  }
  return bad == 0;
}

ZB_CLONES static bool asm_rebase64(int64_t *dst, const uint8_t *src, int64_t n, int64_t add) {
  int bad = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t a, b;
    memcpy(&a, src + 8 * i, 8);
    memcpy(&b, src + 8 * i + 8, 8);
    dst[i] = (int64_t)((uint64_t)a + (uint64_t)add); /* checked by the caller */
    bad |= b < a;
  }
  return bad == 0;
}

static zb_status asm_strings(asm_job *j, int worker, const ipc_field *fd, asm_col *c,
                             asm_piece *p, int64_t b, zb_error *e) {
  const uint8_t *offs;
  const int w = fd->width;
  if (p->length == 0) return ZB_OK;
  ZB_RETURN_NOT_OK(asm_bytes(j, worker, &p->b[1], &offs, e));
  int64_t first, last;
  if (w == 4) {
    int32_t f32, l32;
    memcpy(&f32, offs, 4);
    memcpy(&l32, offs + 4 * p->length, 4);
    first = f32;
    last = l32;
  } else {
    memcpy(&first, offs, 8);
    memcpy(&last, offs + 8 * p->length, 8);
  }
  int64_t *dst = (int64_t *)c->data->data + p->row;
  bool ok = w == 4 ? asm_rebase32(dst, offs, p->length, p->chars_at)
                   : asm_rebase64(dst, offs, p->length, p->chars_at);
  if (!ok || first < 0 || last > p->b[2].ulen)
    return zb_error_set(e, ZB_EPARSE,
                        "'%s' is not a valid Arrow IPC file: the string offsets of column '%s' "
                        "in record batch %lld decrease or run outside its %lld bytes of "
                        "characters",
                        j->r->name, fd->name, (long long)b, (long long)p->b[2].ulen);
  p->off0 = first;
  p->offn = last;
  if (p->b[2].ulen > 0)
    ZB_RETURN_NOT_OK(asm_decompress(&p->b[2], (uint8_t *)c->chars->data + p->chars_at, e));
  return ZB_OK;
}

static zb_status asm_values(asm_job *j, int worker, const ipc_field *fd, asm_col *c,
                            asm_piece *p, zb_error *e) {
  const int64_t need = p->length * fd->width;
  uint8_t *dst = (uint8_t *)c->data->data + p->row * fd->width;
  if (need == 0) return ZB_OK;
  if (p->b[1].codec < 0) {
    memcpy(dst, p->b[1].src, (size_t)need);
    return ZB_OK;
  }
  if (p->b[1].ulen == need) return asm_decompress(&p->b[1], dst, e);
  const uint8_t *s;
  ZB_RETURN_NOT_OK(asm_bytes(j, worker, &p->b[1], &s, e));
  memcpy(dst, s, (size_t)need);
  return ZB_OK;
}

/* A utf8_view piece, first pass: its buffers in memory, each view checked,
 * and its offsets from 0 in the column's offsets (null rows: empty). */
static zb_status asm_view_lengths(asm_job *j, const ipc_field *fd, asm_col *c, asm_piece *p,
                                  int64_t b, zb_error *e) {
  const asm_buf *bufs[2] = {&p->b[0], &p->b[1]};
  int64_t hold = 0;
  for (int i = 0; i < 2; i++) hold += bufs[i]->codec >= 0 ? (bufs[i]->ulen + 7) & ~7 : 0;
  for (int64_t v = 0; v < p->nv; v++) hold += p->vb[v].codec >= 0 ? (p->vb[v].ulen + 7) & ~7 : 0;
  if (hold > 0 && (p->hold = (uint8_t *)zb_malloc((size_t)hold)) == NULL)
    return zb_error_set(e, ZB_ENOMEM, "out of host memory reading '%s'", j->r->name);
  int64_t at = 0;
  const uint8_t **dst[2] = {&p->valid, &p->views};
  for (int64_t i = 0; i < 2 + p->nv; i++) {
    const asm_buf *a = i < 2 ? bufs[i] : &p->vb[i - 2];
    const uint8_t **d = i < 2 ? dst[i] : &p->vdata[i - 2];
    if (a->codec < 0) {
      *d = a->src;
      continue;
    }
    ZB_RETURN_NOT_OK(asm_decompress(a, p->hold + at, e));
    *d = p->hold + at;
    at += (a->ulen + 7) & ~7;
  }
  if (p->null_count == 0) p->valid = NULL;
  const uint8_t *v = p->views;
  int64_t *offs = (int64_t *)c->data->data + p->row, total = 0;
  for (int64_t i = 0; i < p->length; i++) {
    int32_t len = 0;
    if (p->valid == NULL || zb_bit_get(p->valid, i)) {
      memcpy(&len, v + 16 * i, 4);
      int32_t bi = 0, off = 0;
      if (len > 12) {
        memcpy(&bi, v + 16 * i + 8, 4);
        memcpy(&off, v + 16 * i + 12, 4);
      }
      if (len < 0 || (len > 12 && (bi < 0 || bi >= p->nv || off < 0 ||
                                   (int64_t)off + len > p->vb[bi].ulen)))
        return zb_error_set(e, ZB_EPARSE,
                            "'%s' is not a valid Arrow IPC file: string %lld of column '%s' in "
                            "record batch %lld has length %d or lies outside its data buffers",
                            j->r->name, (long long)i, fd->name, (long long)b, (int)len);
    }
    offs[i] = total;
    total += len;
  }
  p->off0 = 0;
  p->offn = total;
  return ZB_OK;
}

/* Second pass: the offsets moved to where the piece's characters start,
 * and the characters copied there. */
static void asm_view_copy(asm_col *c, asm_piece *p) {
  const uint8_t *v = p->views;
  int64_t *offs = (int64_t *)c->data->data + p->row;
  uint8_t *chars = (uint8_t *)c->chars->data + p->chars_at;
  for (int64_t i = 0; i < p->length; i++) {
    const int64_t start = offs[i], end = i + 1 < p->length ? offs[i + 1] : p->offn;
    offs[i] = start + p->chars_at;
    if (end == start) continue;
    if (end - start <= 12) {
      memcpy(chars + start, v + 16 * i + 4, (size_t)(end - start));
    } else {
      int32_t bi, off;
      memcpy(&bi, v + 16 * i + 8, 4);
      memcpy(&off, v + 16 * i + 12, 4);
      memcpy(chars + start, p->vdata[bi] + off, (size_t)(end - start));
    }
  }
}

static void asm_view_task(void *ctx, int64_t t, int worker) {
  (void)worker;
  asm_job *j = (asm_job *)ctx;
  const int64_t b = t / j->n_view, c = j->view_cols[t % j->n_view];
  asm_col *col = &j->cols[c];
  zb_error e;
  zb_status st = asm_view_lengths(j, &j->r->fields[j->r->sel[col->k]], col,
                                  &j->pieces[b * j->nc + c], b, &e);
  if (st != ZB_OK) asm_fail(j, st, &e);
}

/* The validity of column c (and its values when bool), batch by batch. */
static zb_status asm_bits(asm_job *j, int worker, int64_t c, zb_error *e) {
  asm_col *col = &j->cols[c];
  int64_t nulls = 0;
  for (int64_t b = 0; b < j->nb; b++) {
    asm_piece *p = &j->pieces[b * j->nc + c];
    const uint8_t *s;
    if (col->has_validity) {
      uint8_t *v = (uint8_t *)col->validity->data;
      if (p->null_count > 0) {
        ZB_RETURN_NOT_OK(asm_bytes(j, worker, &p->b[0], &s, e));
        zb__bitmap_copy(v, p->row, s, 0, p->length);
        nulls += p->length - zb_bitmap_count(v, p->row, p->length);
      } else {
        zb__bitmap_fill(v, p->row, p->length, true);
      }
    }
    if (col->type == ZB_BOOL && p->length > 0) {
      ZB_RETURN_NOT_OK(asm_bytes(j, worker, &p->b[1], &s, e));
      zb__bitmap_copy((uint8_t *)col->data->data, p->row, s, 0, p->length);
    }
  }
  col->nulls = nulls;
  return ZB_OK;
}

static void asm_task(void *ctx, int64_t t, int worker) {
  asm_job *j = (asm_job *)ctx;
  zb_error e;
  zb_status st = ZB_OK;
  if (t < j->nb * j->nc) {
    int64_t b = t / j->nc, c = t % j->nc;
    asm_col *col = &j->cols[c];
    const ipc_field *fd = &j->r->fields[j->r->sel[col->k]];
    asm_piece *p = &j->pieces[t];
    if (col->view)
      asm_view_copy(col, p);
    else if (col->type == ZB_STRING)
      st = asm_strings(j, worker, fd, col, p, b, &e);
    else if (col->type != ZB_BOOL)
      st = asm_values(j, worker, fd, col, p, &e);
  } else {
    st = asm_bits(j, worker, j->bit_cols[t - j->nb * j->nc], &e);
  }
  if (st != ZB_OK) asm_fail(j, st, &e);
}

/* Plan column c of batch b: its buffers, checked against what its rows need. */
static zb_status asm_plan_piece(reader *r, const ipc_field *fd, const zb__fbt *hdr,
                                const uint8_t *body, int64_t body_len, int64_t f,
                                asm_piece *p, const char *what) {
  int64_t length, node, buf, view;
  zb__fbv nodes, bufs, variadic;
  int codec;
  ZB_RETURN_NOT_OK(batch_header(r, hdr, what, &length, &nodes, &bufs, &variadic, &codec));
  ZB_RETURN_NOT_OK(field_start(r, f, &variadic, what, &node, &buf, &view));
  if (node >= nodes.count) return corrupt(r, "%s lacks the node of column '%s'", what, fd->name);
  p->length = zb__fb_vec_i64(&nodes, node, IPC_NODE_SIZE, 0);
  p->null_count = zb__fb_vec_i64(&nodes, node, IPC_NODE_SIZE, 8);
  if (p->length != length)
    return corrupt(r, "column '%s' of %s has %lld rows where the batch has %lld", fd->name,
                   what, (long long)p->length, (long long)length);
  if (p->null_count < 0 || p->null_count > length)
    return corrupt(r, "column '%s' of %s has %lld nulls", fd->name, what,
                   (long long)p->null_count);
  const int nbuf = fd->kind == K_STRING ? 3 : 2;
  for (int i = 0; i < nbuf; i++) {
    asm_buf *a = &p->b[i];
    ZB_RETURN_NOT_OK(locate_buffer(r, body, body_len, &bufs, buf + i, codec, fd->name, &a->src,
                                   &a->n, &a->ulen, &a->codec));
  }
  int64_t need = fd->kind == K_BOOL ? (length + 7) / 8 : length * fd->width;
  if (fd->kind == K_STRING) need = length > 0 ? (length + 1) * fd->width : 0;
  if (fd->kind == K_VIEW) {
    need = length * 16;
    if (view >= variadic.count) return corrupt(r, "%s lacks variadic buffer counts", what);
    p->nv = zb__fb_vec_i64(&variadic, view, 8, 0);
    if (p->nv < 0 || p->nv > bufs.count) return corrupt(r, "bad variadic buffer count in %s", what);
    p->vb = (asm_buf *)zb_calloc((size_t)p->nv + 1, sizeof(asm_buf));
    p->vdata = (const uint8_t **)zb_calloc((size_t)p->nv + 1, sizeof(uint8_t *));
    if (p->vb == NULL || p->vdata == NULL) return oom(r);
    for (int64_t v = 0; v < p->nv; v++) {
      asm_buf *a = &p->vb[v];
      ZB_RETURN_NOT_OK(locate_buffer(r, body, body_len, &bufs, buf + 2 + v, codec, fd->name,
                                     &a->src, &a->n, &a->ulen, &a->codec));
    }
  }
  if (p->b[1].ulen < need)
    return corrupt(r, "a buffer of column '%s' in %s holds %lld bytes where %lld are needed",
                   fd->name, what, (long long)p->b[1].ulen, (long long)need);
  if (p->null_count > 0 && p->b[0].ulen < (length + 7) / 8)
    return corrupt(r, "the validity bitmap of column '%s' in %s is too short", fd->name, what);
  return ZB_OK;
}

/* Assemble the selected columns ks[0, nc) over every batch into cols_out
 * (new references, in that order). */
static zb_status read_assembled(reader *r, const int64_t *ks, int64_t nc,
                                zb_column **cols_out) {
  zb_status st = ZB_OK;
  const int64_t nb = r->n_batches;
  /* a scratch slot for every worker index zb_set_num_threads allows (the
   * setting may change while this read runs) */
  const int nthreads = 4096;
  asm_job j;
  memset(&j, 0, sizeof j);
  j.r = r;
  j.nb = nb;
  j.nc = nc;
  pthread_mutex_init(&j.lock, NULL);
  j.pieces = (asm_piece *)zb_calloc((size_t)(nb * nc), sizeof(asm_piece));
  j.cols = (asm_col *)zb_calloc((size_t)nc, sizeof(asm_col));
  j.bit_cols = (int64_t *)zb_calloc((size_t)nc, sizeof(int64_t));
  j.view_cols = (int64_t *)zb_calloc((size_t)nc, sizeof(int64_t));
  j.scratch = (uint8_t **)zb_calloc((size_t)nthreads, sizeof(uint8_t *));
  j.scratch_cap = (int64_t *)zb_calloc((size_t)nthreads, sizeof(int64_t));
  if (j.pieces == NULL || j.cols == NULL || j.bit_cols == NULL || j.view_cols == NULL ||
      j.scratch == NULL || j.scratch_cap == NULL) {
    st = oom(r);
    goto done;
  }
  for (int64_t c = 0; c < nc; c++) {
    j.cols[c].k = ks[c];
    asm_type(&r->fields[r->sel[ks[c]]], &j.cols[c].type);
    j.cols[c].view = r->fields[r->sel[ks[c]]].kind == K_VIEW;
    if (j.cols[c].view) j.view_cols[j.n_view++] = c;
  }
  /* plan: every batch's pieces, the rows and characters before each */
  int64_t rows = 0;
  for (int64_t b = 0; b < nb; b++) {
    if (zb_cancel_requested()) {
      st = zb_error_set(r->err, ZB_ECANCEL, "reading '%s' cancelled", r->name);
      goto done;
    }
    zb__fbt msg, hdr;
    int64_t body, body_len;
    bool eos;
    char what[64];
    snprintf(what, sizeof what, "record batch %lld", (long long)b);
    if ((st = read_message(r, r->batch_at[b], &msg, &body, &body_len, &eos)) != ZB_OK) goto done;
    if (eos) {
      st = corrupt(r, "%s is missing", what);
      goto done;
    }
    if ((st = message_header(r, &msg, IPC_MSG_RECORD_BATCH, &hdr, r->batch_at[b])) != ZB_OK)
      goto done;
    for (int64_t c = 0; c < nc; c++) {
      asm_piece *p = &j.pieces[b * nc + c];
      const int64_t f = r->sel[ks[c]];
      if ((st = asm_plan_piece(r, &r->fields[f], &hdr, r->f->base + body, body_len, f, p,
                               what)) != ZB_OK)
        goto done;
      p->row = rows;
      if (p->null_count > 0) j.cols[c].has_validity = true;
    }
    rows += j.pieces[b * nc].length;
  }
  j.rows = rows;
  /* the whole columns */
  for (int64_t c = 0; c < nc; c++) {
    asm_col *col = &j.cols[c];
    const ipc_field *fd = &r->fields[r->sel[col->k]];
    if (col->has_validity || col->type == ZB_BOOL) j.bit_cols[j.n_bit++] = c;
    if (col->has_validity &&
        (st = zb_buffer_new_zeroed(ZB_CPU, (rows + 7) / 8, &col->validity, r->err)) != ZB_OK)
      goto done;
    if (col->type == ZB_BOOL) {
      st = zb_buffer_new_zeroed(ZB_CPU, (rows + 7) / 8, &col->data, r->err);
    } else if (col->view) {
      st = zb_buffer_new(ZB_CPU, (rows + 1) * 8, &col->data, r->err);
    } else if (col->type == ZB_STRING) {
      int64_t total = 0;
      for (int64_t b = 0; b < nb; b++) {
        asm_piece *p = &j.pieces[b * nc + c];
        p->chars_at = total;
        total += p->length > 0 ? p->b[2].ulen : 0;
        if (p->length == 0) p->b[2].ulen = 0;
      }
      st = zb_buffer_new(ZB_CPU, (rows + 1) * 8, &col->data, r->err);
      if (st == ZB_OK) st = zb_buffer_new(ZB_CPU, total, &col->chars, r->err);
    } else {
      st = zb_buffer_new(ZB_CPU, rows * fd->width, &col->data, r->err);
    }
    if (st != ZB_OK) {
      if (st == ZB_ENOMEM) st = oom(r);
      goto done;
    }
  }
  if (j.n_view > 0) { /* views: each piece's characters counted, then placed */
    st = zb_parallel_for(nb * j.n_view, asm_view_task, &j, r->err);
    if (st == ZB_OK && j.status != ZB_OK)
      st = zb_error_set(r->err, j.status, "%s", j.err.message);
    if (st != ZB_OK) goto done;
    for (int64_t v = 0; v < j.n_view; v++) {
      asm_col *col = &j.cols[j.view_cols[v]];
      int64_t total = 0;
      for (int64_t b = 0; b < nb; b++) {
        asm_piece *p = &j.pieces[b * nc + j.view_cols[v]];
        p->chars_at = total;
        total += p->offn;
      }
      if ((st = zb_buffer_new(ZB_CPU, total, &col->chars, r->err)) != ZB_OK) goto done;
    }
  }
  st = zb_parallel_for(nb * nc + j.n_bit, asm_task, &j, r->err);
  if (st == ZB_OK && j.status != ZB_OK) st = zb_error_set(r->err, j.status, "%s", j.err.message);
  if (st != ZB_OK) goto done;
  for (int64_t c = 0; c < nc; c++) {
    asm_col *col = &j.cols[c];
    const ipc_field *fd = &r->fields[r->sel[col->k]];
    if (col->type == ZB_STRING) {
      /* each batch's strings ended where the next one's began, or pack them */
      int64_t *offs = (int64_t *)col->data->data;
      uint8_t *chars = (uint8_t *)col->chars->data;
      int64_t at = 0;
      for (int64_t b = 0; b < nb; b++) {
        asm_piece *p = &j.pieces[b * nc + c];
        if (p->length == 0) continue;
        const int64_t from = p->chars_at + p->off0, used = p->offn - p->off0;
        if (from != at) {
          memmove(chars + at, chars + from, (size_t)used);
          for (int64_t i = 0; i < p->length; i++) offs[p->row + i] += at - from;
        }
        at += used;
      }
      offs[rows] = at;
    }
    if ((st = zb_column_make(col->type, rows, 0, col->validity, col->data, col->chars, NULL,
                             col->has_validity ? col->nulls : 0, &cols_out[c], r->err)) != ZB_OK)
      goto done;
    if ((col->type == ZB_TIMESTAMP || col->type == ZB_DURATION)) {
      const char *f = fd->format;
      zb_time_unit u = f[2] == 's' ? ZB_SECOND : f[2] == 'm' ? ZB_MILLI : f[2] == 'u' ? ZB_MICRO
                                                                                     : ZB_NANO;
      const char *tz = f[1] == 's' && f[3] == ':' && f[4] != '\0' ? f + 4 : NULL;
      if ((st = zb_column_set_time(cols_out[c], u, tz, r->err)) != ZB_OK) goto done;
    }
  }
done:
  if (st != ZB_OK)
    for (int64_t c = 0; c < nc; c++) {
      zb_column_release(cols_out[c]);
      cols_out[c] = NULL;
    }
  for (int64_t c = 0; c < nc && j.cols != NULL; c++) {
    zb_buffer_release(j.cols[c].validity);
    zb_buffer_release(j.cols[c].data);
    zb_buffer_release(j.cols[c].chars);
  }
  for (int64_t i = 0; i < nb * nc && j.pieces != NULL; i++) {
    zb_free(j.pieces[i].vb);
    zb_free((void *)j.pieces[i].vdata);
    zb_free(j.pieces[i].hold);
  }
  for (int w = 0; w < nthreads && j.scratch != NULL; w++) zb_free(j.scratch[w]);
  zb_free(j.scratch);
  zb_free(j.scratch_cap);
  zb_free(j.pieces);
  zb_free(j.cols);
  zb_free(j.bit_cols);
  zb_free(j.view_cols);
  pthread_mutex_destroy(&j.lock);
  return st;
}

/* ---- the read ------------------------------------------------------------ */

static zb_status select_columns(reader *r, const zb_ipc_options *o) {
  bool all = o == NULL || o->columns == NULL;
  r->n_sel = all ? r->n_fields : o->num_columns;
  r->sel = (int64_t *)zb_malloc((size_t)(r->n_sel > 0 ? r->n_sel : 1) * sizeof(int64_t));
  if (r->sel == NULL) return oom(r);
  for (int64_t k = 0; k < r->n_sel; k++) {
    int64_t j = k;
    if (!all) {
      const char *want = o->columns[k];
      if (want == NULL) return zb_error_set(r->err, ZB_EINVAL, "read_ipc: column name is NULL");
      for (j = 0; j < r->n_fields && strcmp(r->fields[j].name, want) != 0; j++) {
      }
      if (j == r->n_fields)
        return zb_error_set(r->err, ZB_EKEY, "'%s' has no column '%s'", r->name, want);
    }
    r->sel[k] = j;
    const ipc_field *fd = &r->fields[j];
    if (fd->kind == K_UNSUPPORTED)
      return zb_error_set(r->err, ZB_ENOTSUP,
                          "'%s': column '%s' has %s, which zambezi does not read (select "
                          "other columns with columns=)",
                          r->name, fd->name, fd->why);
  }
  return ZB_OK;
}

/* Every batch of the selected columns, imported batch by batch and
 * concatenated (one batch: shared where it lies in the file). */
static zb_status read_batches(reader *r, zb_table **out) {
  zb_status st = ZB_OK;
  plan p;
  memset(&p, 0, sizeof p);
  pthread_mutex_init(&p.lock, NULL);
  ipc_batch *batches = NULL, *dbatches = NULL, **col_dicts = NULL;
  zb_table **tables = NULL;
  zb_column **parts = NULL, **cols = NULL;
  const char **names = NULL;
  int64_t nb = 0, ntab = 0;
  struct ArrowSchema schema;
  schema.release = NULL;

  const int64_t ns = r->n_sel;
  nb = r->n_batches;
  batches = (ipc_batch *)zb_calloc((size_t)(nb > 0 ? nb : 1), sizeof(ipc_batch));
  dbatches = (ipc_batch *)zb_calloc((size_t)(r->n_dicts > 0 ? r->n_dicts : 1), sizeof(ipc_batch));
  col_dicts = (ipc_batch **)zb_calloc((size_t)(ns > 0 ? ns : 1), sizeof(ipc_batch *));
  if (batches == NULL || dbatches == NULL || col_dicts == NULL) {
    st = oom(r);
    goto done;
  }
  for (int64_t i = 0; i < nb; i++) {
    batches[i].cols = (ipc_col *)zb_calloc((size_t)(ns > 0 ? ns : 1), sizeof(ipc_col));
    if (batches[i].cols == NULL) {
      st = oom(r);
      goto done;
    }
  }
  /* dictionaries of the selected columns */
  for (int64_t i = 0; i < r->n_dicts; i++) {
    zb__fbt msg, hdr, rb;
    int64_t body, body_len, id;
    bool eos, present, delta_b;
    uint8_t delta;
    char what[64];
    snprintf(what, sizeof what, "dictionary batch %lld", (long long)i);
    if ((st = read_message(r, r->dict_at[i], &msg, &body, &body_len, &eos)) != ZB_OK) goto done;
    if (eos) {
      st = corrupt(r, "%s is missing", what);
      goto done;
    }
    if ((st = message_header(r, &msg, IPC_MSG_DICTIONARY, &hdr, r->dict_at[i])) != ZB_OK)
      goto done;
    if (!zb__fb_i64(&hdr, IPC_DB_ID, 0, &id) || !zb__fb_u8(&hdr, IPC_DB_DELTA, 0, &delta) ||
        !zb__fb_table(&hdr, IPC_DB_DATA, &rb, &present) || !present) {
      st = corrupt(r, "bad %s", what);
      goto done;
    }
    delta_b = delta != 0;
    int64_t k;
    for (k = 0; k < ns; k++) {
      const ipc_field *fd = &r->fields[r->sel[k]];
      if (fd->kind == K_DICT && fd->dict_id == id) break;
    }
    if (k == ns) continue; /* not wanted */
    const ipc_field *fd = &r->fields[r->sel[k]];
    if (delta_b || col_dicts[k] != NULL) {
      st = zb_error_set(r->err, ZB_ENOTSUP,
                        "'%s': the dictionary of column '%s' is sent in several parts (delta "
                        "or replacement dictionaries), which zambezi does not read yet",
                        r->name, fd->name);
      goto done;
    }
    dbatches[i].cols = (ipc_col *)zb_calloc(1, sizeof(ipc_col));
    if (dbatches[i].cols == NULL) {
      st = oom(r);
      goto done;
    }
    /* the dictionary's one column, planned as a string field */
    ipc_field vf = *fd;
    vf.kind = fd->value_kind;
    vf.width = fd->value_width;
    vf.n_nodes = 1;
    vf.n_buffers = vf.kind == K_VIEW ? 2 : 3;
    vf.n_views = vf.kind == K_VIEW ? 1 : 0;
    vf.layout_known = true;
    ipc_field *saved = r->fields;
    int64_t saved_n = r->n_fields;
    int64_t zero = 0;
    r->fields = &vf;
    r->n_fields = 1;
    st = plan_batch(r, &p, &rb, r->f->base + body, body_len, &zero, 1, &dbatches[i], what);
    r->fields = saved;
    r->n_fields = saved_n;
    if (st != ZB_OK) goto done;
    if (dbatches[i].cols[0].null_count != 0) {
      st = corrupt(r, "the dictionary of column '%s' holds nulls", fd->name);
      goto done;
    }
    col_dicts[k] = &dbatches[i];
    for (int64_t k2 = k + 1; k2 < ns; k2++) { /* columns sharing the dictionary */
      const ipc_field *f2 = &r->fields[r->sel[k2]];
      if (f2->kind == K_DICT && f2->dict_id == id) col_dicts[k2] = &dbatches[i];
    }
  }
  for (int64_t i = 0; i < nb; i++) {
    if (zb_cancel_requested()) {
      st = zb_error_set(r->err, ZB_ECANCEL, "reading '%s' cancelled", r->name);
      goto done;
    }
    zb__fbt msg, hdr;
    int64_t body, body_len;
    bool eos;
    char what[64];
    snprintf(what, sizeof what, "record batch %lld", (long long)i);
    if ((st = read_message(r, r->batch_at[i], &msg, &body, &body_len, &eos)) != ZB_OK) goto done;
    if (eos) {
      st = corrupt(r, "%s is missing", what);
      goto done;
    }
    if ((st = message_header(r, &msg, IPC_MSG_RECORD_BATCH, &hdr, r->batch_at[i])) != ZB_OK)
      goto done;
    if ((st = plan_batch(r, &p, &hdr, r->f->base + body, body_len, r->sel, ns, &batches[i],
                         what)) != ZB_OK)
      goto done;
    if (batches[i].length > 0)
      for (int64_t k = 0; k < ns; k++)
        if (r->fields[r->sel[k]].kind == K_DICT && col_dicts[k] == NULL) {
          st = corrupt(r, "column '%s' has no dictionary", r->fields[r->sel[k]].name);
          goto done;
        }
  }
  /* decompress and realign */
  if (p.n_tasks > 0) {
    st = zb_parallel_for(p.n_tasks, run_task, &p, r->err);
    if (st == ZB_OK && p.status != ZB_OK) {
      st = zb_error_set(r->err, p.status, "'%s': %s", r->name, p.err.message);
    }
    if (st != ZB_OK) goto done;
  }
  /* utf8_view columns become large_utf8 (in parallel over batches and columns) */
  {
    int64_t nv = 0;
    for (int64_t k = 0; k < ns; k++)
      if (r->fields[r->sel[k]].kind == K_VIEW) nv += nb;
    for (int64_t i = 0; i < r->n_dicts; i++) nv += dbatches[i].cols != NULL;
    if (nv > 0) {
      view_job job;
      memset(&job, 0, sizeof job);
      job.r = r;
      job.cols = (ipc_col **)zb_malloc((size_t)nv * sizeof(ipc_col *));
      job.names = (const char **)zb_malloc((size_t)nv * sizeof(char *));
      if (job.cols == NULL || job.names == NULL) {
        zb_free(job.cols);
        zb_free((void *)job.names);
        st = oom(r);
        goto done;
      }
      int64_t m = 0;
      for (int64_t k = 0; k < ns; k++)
        if (r->fields[r->sel[k]].kind == K_VIEW)
          for (int64_t i = 0; i < nb; i++) {
            job.cols[m] = &batches[i].cols[k];
            job.names[m++] = r->fields[r->sel[k]].name;
          }
      for (int64_t k = 0; k < ns; k++) { /* dictionaries of views */
        const ipc_field *fd = &r->fields[r->sel[k]];
        if (fd->kind != K_DICT || fd->value_kind != K_VIEW || col_dicts[k] == NULL) continue;
        bool seen = false;
        for (int64_t q = 0; q < m; q++) seen = seen || job.cols[q] == &col_dicts[k]->cols[0];
        if (!seen) {
          job.cols[m] = &col_dicts[k]->cols[0];
          job.names[m++] = fd->name;
        }
      }
      nv = m;
      pthread_mutex_init(&job.lock, NULL);
      r->view_ctx = &job;
      st = zb_parallel_for(nv, view_task, &job, r->err);
      r->view_ctx = NULL;
      pthread_mutex_destroy(&job.lock);
      zb_free(job.cols);
      zb_free((void *)job.names);
      if (st == ZB_OK && job.status != ZB_OK)
        st = zb_error_set(r->err, job.status, "%s", job.err.message);
      if (st != ZB_OK) goto done;
    }
  }
  /* strings end inside their characters */
  for (int64_t k = 0; k < ns; k++) {
    const ipc_field *fd = &r->fields[r->sel[k]];
    if (fd->kind == K_DICT && col_dicts[k] != NULL &&
        (st = check_strings(r, &col_dicts[k]->cols[0], fd->value_width, fd->name,
                            "its dictionary")) != ZB_OK)
      goto done;
    if (fd->kind == K_LIST)
      for (int64_t i = 0; i < nb; i++)
        if ((st = check_list(r, fd, &batches[i].cols[k], "a record batch")) != ZB_OK) goto done;
    if (fd->kind != K_STRING) continue;
    for (int64_t i = 0; i < nb; i++)
      if ((st = check_strings(r, &batches[i].cols[k], fd->width, fd->name, "a record batch")) !=
          ZB_OK)
        goto done;
  }
  /* import */
  if ((st = make_schema(r, &schema)) != ZB_OK) goto done;
  ipc_batch empty;
  ipc_col *empty_cols = NULL;
  int64_t n_imp = nb > 0 ? nb : 1;
  tables = (zb_table **)zb_calloc((size_t)n_imp, sizeof(zb_table *));
  empty_cols = nb > 0 ? NULL : (ipc_col *)zb_calloc((size_t)(ns > 0 ? ns : 1), sizeof(ipc_col));
  if (tables == NULL || (nb == 0 && empty_cols == NULL)) {
    zb_free(empty_cols);
    st = oom(r);
    goto done;
  }
  ipc_batch empty_dict;
  ipc_col empty_dict_col;
  memset(&empty_dict_col, 0, sizeof empty_dict_col);
  empty_dict_col.bufs[1] = g_zeros;
  empty_dict_col.bufs[2] = g_zeros;
  empty_dict.length = 0;
  empty_dict.cols = &empty_dict_col;
  if (nb == 0) {
    empty.length = 0;
    empty.cols = empty_cols;
    for (int64_t k = 0; k < ns; k++) {
      empty_cols[k].bufs[1] = g_zeros;
      empty_cols[k].bufs[2] = g_zeros;
    }
  }
  for (int64_t k = 0; k < ns; k++)
    if (col_dicts[k] == NULL) col_dicts[k] = &empty_dict;
  for (int64_t i = 0; i < n_imp; i++) {
    if (zb_cancel_requested()) {
      st = zb_error_set(r->err, ZB_ECANCEL, "reading '%s' cancelled", r->name);
      zb_free(empty_cols);
      goto done;
    }
    struct ArrowArray arr;
    st = make_array(r, nb > 0 ? &batches[i] : &empty, col_dicts, &arr);
    if (st == ZB_OK) {
      st = zb_table_import_arrow(&schema, &arr, &tables[i], r->err);
      if (arr.release != NULL) arr.release(&arr);
    }
    if (st != ZB_OK) {
      char what[64];
      snprintf(what, sizeof what, "record batch %lld", (long long)i);
      st = import_failed(r, st, what);
      zb_free(empty_cols);
      goto done;
    }
    ntab++;
  }
  zb_free(empty_cols);
  if (ntab == 1) {
    *out = tables[0];
    tables[0] = NULL;
    goto done;
  }
  cols = (zb_column **)zb_calloc((size_t)(ns > 0 ? ns : 1), sizeof(zb_column *));
  names = (const char **)zb_calloc((size_t)(ns > 0 ? ns : 1), sizeof(char *));
  parts = (zb_column **)zb_calloc((size_t)ntab, sizeof(zb_column *));
  if (cols == NULL || names == NULL || parts == NULL) {
    st = oom(r);
    goto done;
  }
  for (int64_t k = 0; k < ns; k++) {
    names[k] = r->fields[r->sel[k]].name;
    for (int64_t i = 0; i < ntab; i++) parts[i] = tables[i]->columns[k];
    if ((st = zb_column_concat(parts, ntab, &cols[k], r->err)) != ZB_OK) goto done;
  }
  st = zb_table_make(ns, cols, names, out, r->err);

done:
  if (cols != NULL)
    for (int64_t k = 0; k < r->n_sel; k++) zb_column_release(cols[k]);
  zb_free(cols);
  zb_free((void *)names);
  zb_free(parts);
  for (int64_t i = 0; i < ntab; i++) zb_table_release(tables[i]);
  zb_free(tables);
  if (schema.release != NULL) schema.release(&schema);
  for (int64_t i = 0; i < nb && batches != NULL; i++) zb_free(batches[i].cols);
  zb_free(batches);
  for (int64_t i = 0; i < r->n_dicts && dbatches != NULL; i++) zb_free(dbatches[i].cols);
  zb_free(dbatches);
  zb_free(col_dicts);
  zb_free(p.tasks);
  pthread_mutex_destroy(&p.lock);
  return st;
}

/* Several batches: the columns read_assembled takes, and the others
 * through read_batches, in the selected order. */
static zb_status read_mixed(reader *r, zb_table **out) {
  zb_status st = ZB_OK;
  const int64_t ns = r->n_sel;
  int64_t *fast = (int64_t *)zb_malloc((size_t)ns * sizeof(int64_t));
  int64_t *slow_sel = (int64_t *)zb_malloc((size_t)ns * sizeof(int64_t));
  zb_column **fast_cols = (zb_column **)zb_calloc((size_t)ns, sizeof(zb_column *));
  zb_column **cols = (zb_column **)zb_calloc((size_t)ns, sizeof(zb_column *));
  const char **names = (const char **)zb_calloc((size_t)ns, sizeof(char *));
  zb_table *slow = NULL;
  int64_t n_fast = 0, n_slow = 0;
  if (fast == NULL || slow_sel == NULL || fast_cols == NULL || cols == NULL || names == NULL) {
    st = oom(r);
    goto done;
  }
  for (int64_t k = 0; k < ns; k++) {
    zb_type_id t;
    if (asm_type(&r->fields[r->sel[k]], &t))
      fast[n_fast++] = k;
    else
      slow_sel[n_slow++] = r->sel[k];
  }
  if (n_fast == 0) {
    st = read_batches(r, out);
    goto done;
  }
  if (n_slow > 0) {
    int64_t *sel = r->sel, n_sel = r->n_sel;
    r->sel = slow_sel;
    r->n_sel = n_slow;
    st = read_batches(r, &slow);
    r->sel = sel;
    r->n_sel = n_sel;
    if (st != ZB_OK) goto done;
  }
  if ((st = read_assembled(r, fast, n_fast, fast_cols)) != ZB_OK) goto done;
  for (int64_t k = 0, i = 0, j = 0; k < ns; k++) {
    names[k] = r->fields[r->sel[k]].name;
    cols[k] = i < n_fast && fast[i] == k ? fast_cols[i++] : slow->columns[j++];
  }
  st = zb_table_make(ns, cols, names, out, r->err);
  if (st != ZB_OK) st = import_failed(r, st, "its columns"); /* e.g. two names alike */
done:
  for (int64_t i = 0; i < n_fast && fast_cols != NULL; i++) zb_column_release(fast_cols[i]);
  zb_table_release(slow);
  zb_free(fast);
  zb_free(slow_sel);
  zb_free(fast_cols);
  zb_free(cols);
  zb_free((void *)names);
  return st;
}

static zb_status read_all(reader *r, const zb_ipc_options *o, zb_table **out) {
  ZB_RETURN_NOT_OK(find_messages(r));
  ZB_RETURN_NOT_OK(select_columns(r, o));
  if (r->n_batches > 1 && r->n_sel > 0) return read_mixed(r, out);
  return read_batches(r, out);
}

void zb_ipc_options_init(zb_ipc_options *o) { memset(o, 0, sizeof *o); }

/* Read from f (one reference, handed over). */
static zb_status read_file_bytes(ipc_file *f, const char *name, const zb_ipc_options *opts,
                                 zb_table **out, zb_error *err) {
  reader r;
  memset(&r, 0, sizeof r);
  r.name = name;
  r.f = f;
  r.err = err;
  zb_status st = read_all(&r, opts, out);
  if (st == ZB_OK && opts != NULL && opts->pandas_metadata != NULL) {
    *opts->pandas_metadata = r.pandas;
    r.pandas = NULL;
  }
  if (st != ZB_OK) {
    zb_table_release(*out);
    *out = NULL;
  }
  for (int64_t i = 0; i < r.n_fields; i++) zb_free(r.fields[i].name);
  zb_free(r.fields);
  zb_free(r.pandas);
  zb_free(r.sel);
  zb_free(r.batch_at);
  zb_free(r.dict_at);
  file_unref(f);
  return st;
}

zb_status zb_ipc_read_buffer(const void *data, int64_t size, const char *name,
                             const zb_ipc_options *opts, zb_table **out, zb_error *err) {
  ZB_NAME_OP("read_ipc");
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "read_ipc: out is NULL");
  *out = NULL;
  if (opts != NULL && opts->pandas_metadata != NULL) *opts->pandas_metadata = NULL;
  if (size < 0 || (data == NULL && size > 0))
    return zb_error_set(err, ZB_EINVAL, "read_ipc: invalid buffer");
  if (name == NULL) name = "<buffer>";
  ipc_file *f = (ipc_file *)zb_calloc(1, sizeof *f);
  void *copy = zb_malloc((size_t)(size > 0 ? size : 1));
  if (f == NULL || copy == NULL) {
    zb_free(f);
    zb_free(copy);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory reading '%s'", name);
  }
  if (size > 0) memcpy(copy, data, (size_t)size);
  f->copy = copy;
  f->base = (const uint8_t *)copy;
  f->size = size;
  f->refcount = 1;
  return read_file_bytes(f, name, opts, out, err);
}

zb_status zb_ipc_read_file(const char *path, const zb_ipc_options *opts, zb_table **out,
                           zb_error *err) {
  ZB_NAME_OP("read_ipc");
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "read_ipc: out is NULL");
  *out = NULL;
  if (opts != NULL && opts->pandas_metadata != NULL) *opts->pandas_metadata = NULL;
  if (path == NULL) return zb_error_set(err, ZB_EINVAL, "read_ipc: path is NULL");
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return zb_error_set(err, ZB_EIO, "cannot open '%s': %s", path, strerror(errno));
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    close(fd);
    return zb_error_set(err, ZB_EIO, "'%s' is not a regular file", path);
  }
  if (sb.st_size < 8) {
    close(fd);
    return zb_error_set(err, ZB_EPARSE, "'%s' is not an Arrow IPC file (%lld bytes)", path,
                        (long long)sb.st_size);
  }
  void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  int e = errno;
  close(fd);
  if (m == MAP_FAILED) return zb_error_set(err, ZB_EIO, "cannot map '%s': %s", path, strerror(e));
  ipc_file *f = (ipc_file *)zb_calloc(1, sizeof *f);
  if (f == NULL) {
    munmap(m, (size_t)sb.st_size);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory reading '%s'", path);
  }
  f->map = m;
  f->base = (const uint8_t *)m;
  f->size = (int64_t)sb.st_size;
  f->refcount = 1;
  return read_file_bytes(f, path, opts, out, err);
}
