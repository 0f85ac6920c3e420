/*
 * read_schema.c -- the fields of an Arrow IPC schema (its flatbuffer Field
 * tables) as the reader's ipc_field: each one's kind, C Data Interface
 * format and share of a record batch's nodes and buffers; and the
 * reader's error helpers.  The rest of the reader is in read.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "io/ipc/read_internal.h"

#define MAX_DEPTH 64 /* nesting of types in a schema */


zb_status corrupt(reader *r, const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return zb_error_set(r->err, ZB_EPARSE, "'%s' is not a valid Arrow IPC file: %s", r->name, msg);
}

zb_status oom(reader *r) {
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
zb_status parse_field(reader *r, const zb__fbt *fb, int64_t idx, ipc_field *out) {
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
      out->width = tag == IPC_T_LIST ? 4 : 8;
      if (kid.kind == K_FIXED || kid.kind == K_BOOL || kid.kind == K_STRING ||
          kid.kind == K_VIEW) {
        out->kind = K_LIST;
        out->depth = 1;
        out->child_kind = kid.kind;
        out->child_width = kid.width;
        memcpy(out->child_format, kid.format, sizeof kid.format);
      } else if (kid.kind == K_LIST && kid.depth < ZB_LIST_MAX_DEPTH) {
        /* a list of lists: the inner list's levels below this one */
        out->kind = K_LIST;
        out->depth = kid.depth + 1;
        memcpy(out->level_width + 1, kid.level_width, (size_t)kid.depth);
        out->child_kind = kid.child_kind;
        out->child_width = kid.child_width;
        memcpy(out->child_format, kid.child_format, sizeof kid.child_format);
      } else if (kid.kind == K_LIST) {
        snprintf(out->why, sizeof out->why, "lists nested deeper than %d levels",
                 ZB_LIST_MAX_DEPTH);
      } else {
        snprintf(out->why, sizeof out->why, "a list of %.140s",
                 kid.kind == K_UNSUPPORTED ? kid.why
                 : kid.kind == K_DICT ? "dictionary values" : "nulls");
      }
      if (out->kind == K_LIST) {
        out->level_width[0] = (uint8_t)out->width;
        memcpy(out->format, tag == IPC_T_LIST ? "+l" : "+L", 3);
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
