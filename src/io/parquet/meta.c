/*
 * meta.c -- the Parquet footer and page headers, decoded from the Thrift
 * compact protocol (parquet.thrift, Thrift's compact protocol spec).
 *
 * A small cursor reads varints, zigzag integers, field headers, strings
 * and list headers, each checked against the bytes left; every struct the
 * reader needs has a decoder that takes the fields it knows and skips the
 * rest (nesting depth capped, so a hostile footer cannot exhaust the
 * stack).  A list's count is checked against the bytes left before its
 * array is allocated.  The first problem stops decoding with ZB_EPARSE.
 */
#include <string.h>

#include "io/parquet/parquet.h"

/* Compact protocol types. */
enum { CT_STOP = 0, CT_TRUE = 1, CT_FALSE = 2, CT_BYTE = 3, CT_I16 = 4, CT_I32 = 5,
       CT_I64 = 6, CT_DOUBLE = 7, CT_BINARY = 8, CT_LIST = 9, CT_SET = 10, CT_MAP = 11,
       CT_STRUCT = 12 };

#define MAX_DEPTH 32

typedef struct cur {
  const uint8_t *p, *end;
  bool bad;
  const char *what; /* the first problem */
  int depth;
} cur;

static void fail(cur *c, const char *what) {
  if (!c->bad) {
    c->bad = true;
    c->what = what;
  }
  c->p = c->end;
}

static uint64_t varint(cur *c) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (c->p >= c->end) {
      fail(c, "truncated varint");
      return 0;
    }
    uint8_t b = *c->p++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  fail(c, "varint too long");
  return 0;
}

static int64_t zigzag(cur *c) {
  uint64_t u = varint(c);
  return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static int32_t i32(cur *c) {
  int64_t v = zigzag(c);
  if (v < INT32_MIN || v > INT32_MAX) {
    fail(c, "i32 out of range");
    return 0;
  }
  return (int32_t)v;
}

static pq_str binary(cur *c) {
  pq_str s = {NULL, 0};
  uint64_t n = varint(c);
  if (c->bad) return s;
  if (n > (uint64_t)(c->end - c->p)) {
    fail(c, "string longer than the bytes left");
    return s;
  }
  s.p = (const char *)c->p;
  s.n = (int64_t)n;
  c->p += n;
  return s;
}

/* A list header: element type and count (checked: at most one element per
 * byte left, which every element type but bool-in-list needs at least). */
static int64_t list_header(cur *c, int *etype) {
  if (c->p >= c->end) {
    fail(c, "truncated list");
    return 0;
  }
  uint8_t b = *c->p++;
  *etype = b & 0x0f;
  uint64_t n = b >> 4;
  if (n == 15) n = varint(c);
  if (c->bad) return 0;
  if (n > (uint64_t)(c->end - c->p)) {
    fail(c, "list count larger than the bytes left");
    return 0;
  }
  return (int64_t)n;
}

static void skip(cur *c, int type);

static void skip_struct(cur *c) {
  if (++c->depth > MAX_DEPTH) {
    fail(c, "nesting too deep");
    return;
  }
  int16_t last = 0;
  while (!c->bad) {
    if (c->p >= c->end) {
      fail(c, "truncated struct");
      break;
    }
    uint8_t b = *c->p++;
    int type = b & 0x0f;
    if (type == CT_STOP) break;
    if ((b >> 4) == 0)
      last = (int16_t)zigzag(c);
    else
      last = (int16_t)(last + (b >> 4));
    skip(c, type);
  }
  c->depth--;
}

static void skip(cur *c, int type) {
  switch (type) {
    case CT_TRUE:
    case CT_FALSE:
      return;
    case CT_BYTE:
      if (c->p >= c->end)
        fail(c, "truncated byte");
      else
        c->p++;
      return;
    case CT_I16:
    case CT_I32:
    case CT_I64:
      (void)varint(c);
      return;
    case CT_DOUBLE:
      if (c->end - c->p < 8)
        fail(c, "truncated double");
      else
        c->p += 8;
      return;
    case CT_BINARY:
      (void)binary(c);
      return;
    case CT_LIST:
    case CT_SET: {
      int et;
      int64_t n = list_header(c, &et);
      if (++c->depth > MAX_DEPTH) {
        fail(c, "nesting too deep");
        return;
      }
      for (int64_t i = 0; i < n && !c->bad; i++) {
        if (et == CT_TRUE || et == CT_FALSE)
          skip(c, CT_BYTE); /* bools in lists take a byte */
        else
          skip(c, et);
      }
      c->depth--;
      return;
    }
    case CT_MAP: {
      uint64_t n = varint(c);
      if (c->bad || n == 0) return;
      if (n > (uint64_t)(c->end - c->p)) {
        fail(c, "map count larger than the bytes left");
        return;
      }
      if (c->p >= c->end) {
        fail(c, "truncated map");
        return;
      }
      uint8_t kv = *c->p++;
      if (++c->depth > MAX_DEPTH) {
        fail(c, "nesting too deep");
        return;
      }
      for (uint64_t i = 0; i < n && !c->bad; i++) {
        skip(c, kv >> 4);
        skip(c, kv & 0x0f);
      }
      c->depth--;
      return;
    }
    case CT_STRUCT:
      skip_struct(c);
      return;
    default:
      fail(c, "unknown field type");
  }
}

/* Iterate a struct's fields: returns false at STOP (or on error). */
typedef struct field {
  int16_t id;
  int type;
  int16_t last;
} field;

static bool next_field(cur *c, field *f) {
  if (c->bad) return false;
  if (c->p >= c->end) {
    fail(c, "truncated struct");
    return false;
  }
  uint8_t b = *c->p++;
  f->type = b & 0x0f;
  if (f->type == CT_STOP) return false;
  if ((b >> 4) == 0)
    f->id = (int16_t)zigzag(c);
  else
    f->id = (int16_t)(f->last + (b >> 4));
  f->last = f->id;
  return !c->bad;
}

static bool enter(cur *c) {
  if (++c->depth > MAX_DEPTH) {
    fail(c, "nesting too deep");
    return false;
  }
  return true;
}

static int32_t get_i32(cur *c, const field *f) {
  if (f->type != CT_I32 && f->type != CT_I16 && f->type != CT_BYTE) {
    fail(c, "field of the wrong type");
    return 0;
  }
  if (f->type == CT_BYTE) {
    if (c->p >= c->end) {
      fail(c, "truncated byte");
      return 0;
    }
    return (int8_t)*c->p++;
  }
  return i32(c);
}

static int64_t get_i64(cur *c, const field *f) {
  if (f->type != CT_I64 && f->type != CT_I32) {
    fail(c, "field of the wrong type");
    return 0;
  }
  return zigzag(c);
}

static bool get_bool(cur *c, const field *f) {
  if (f->type != CT_TRUE && f->type != CT_FALSE) {
    fail(c, "field of the wrong type");
    return false;
  }
  return f->type == CT_TRUE;
}

static void want(cur *c, const field *f, int type) {
  if (f->type != type) fail(c, "field of the wrong type");
}

/* ---- LogicalType ------------------------------------------------------- */

/* TimeUnit union: 1 MILLIS, 2 MICROS, 3 NANOS (empty structs). */
static int32_t time_unit(cur *c) {
  int32_t unit = ZB_MICRO;
  field f = {0, 0, 0};
  if (!enter(c)) return unit;
  while (next_field(c, &f)) {
    if (f.type == CT_STRUCT && f.id >= 1 && f.id <= 3) unit = f.id == 1 ? ZB_MILLI : f.id == 2 ? ZB_MICRO : ZB_NANO;
    skip(c, f.type);
  }
  c->depth--;
  return unit;
}

static void logical_type(cur *c, pq_schema *s) {
  field f = {0, 0, 0};
  if (!enter(c)) return;
  while (next_field(c, &f)) {
    if (f.type != CT_STRUCT) {
      skip(c, f.type);
      continue;
    }
    switch (f.id) {
      case 1: /* STRING */
      case 4: /* ENUM */
      case 12: /* JSON */
        s->logical = PQ_LT_STRING;
        skip(c, f.type);
        break;
      case 6:
        s->logical = PQ_LT_DATE;
        skip(c, f.type);
        break;
      case 8: { /* TIMESTAMP: 1 isAdjustedToUTC, 2 unit */
        s->logical = PQ_LT_TIMESTAMP;
        field g = {0, 0, 0};
        if (!enter(c)) return;
        while (next_field(c, &g)) {
          if (g.id == 1)
            s->ts_utc = get_bool(c, &g);
          else if (g.id == 2 && g.type == CT_STRUCT)
            s->ts_unit = time_unit(c);
          else
            skip(c, g.type);
        }
        c->depth--;
        break;
      }
      case 10: { /* INTEGER: 1 bitWidth (i8), 2 isSigned */
        s->logical = PQ_LT_INT;
        field g = {0, 0, 0};
        if (!enter(c)) return;
        while (next_field(c, &g)) {
          if (g.id == 1)
            s->int_bits = get_i32(c, &g);
          else if (g.id == 2)
            s->int_signed = get_bool(c, &g);
          else
            skip(c, g.type);
        }
        c->depth--;
        break;
      }
      case 5: { /* DECIMAL: 1 scale, 2 precision */
        s->logical = PQ_LT_DECIMAL;
        field g = {0, 0, 0};
        if (!enter(c)) return;
        while (next_field(c, &g)) {
          if (g.id == 1)
            s->scale = get_i32(c, &g);
          else if (g.id == 2)
            s->precision = get_i32(c, &g);
          else
            skip(c, g.type);
        }
        c->depth--;
        break;
      }
      case 15: /* FLOAT16 */
        s->logical = PQ_LT_FLOAT16;
        skip(c, f.type);
        break;
      default: /* MAP, LIST, TIME, UNKNOWN (null), BSON, UUID ... */
        if (f.id == 2) s->lt_map = true;
        if (f.id == 3) s->lt_list = true;
        s->logical = PQ_LT_OTHER;
        skip(c, f.type);
    }
  }
  c->depth--;
}

/* The legacy ConvertedType, when there is no LogicalType. */
static void from_converted(pq_schema *s) {
  int32_t ct = s->converted;
  if (ct < 0 || s->logical != PQ_LT_NONE) return;
  if (ct == 0 || ct == 4 || ct == 19) { /* UTF8, ENUM, JSON */
    s->logical = PQ_LT_STRING;
  } else if (ct == 6) {
    s->logical = PQ_LT_DATE;
  } else if (ct == 9 || ct == 10) { /* TIMESTAMP_MILLIS / _MICROS */
    s->logical = PQ_LT_TIMESTAMP;
    s->ts_utc = true;
    s->ts_unit = ct == 9 ? ZB_MILLI : ZB_MICRO;
  } else if (ct == 5) { /* DECIMAL: scale and precision from the element */
    s->logical = PQ_LT_DECIMAL;
  } else if (ct >= 11 && ct <= 18) { /* UINT_8..64, INT_8..64 */
    s->logical = PQ_LT_INT;
    s->int_signed = ct >= 15;
    s->int_bits = 8 << ((ct - 11) % 4);
  } else {
    s->logical = PQ_LT_OTHER;
  }
}

static void schema_element(cur *c, pq_schema *s) {
  memset(s, 0, sizeof *s);
  s->type = -1;
  s->repetition = -1;
  s->converted = -1;
  field f = {0, 0, 0};
  if (!enter(c)) return;
  while (next_field(c, &f)) {
    switch (f.id) {
      case 1: s->type = get_i32(c, &f); break;
      case 2: s->type_length = get_i32(c, &f); break;
      case 3: s->repetition = get_i32(c, &f); break;
      case 4:
        want(c, &f, CT_BINARY);
        s->name = binary(c);
        break;
      case 5: s->num_children = get_i32(c, &f); break;
      case 6: s->converted = get_i32(c, &f); break;
      case 7: s->scale = get_i32(c, &f); break;
      case 8: s->precision = get_i32(c, &f); break;
      case 10:
        if (f.type == CT_STRUCT)
          logical_type(c, s);
        else
          skip(c, f.type);
        break;
      default: skip(c, f.type);
    }
  }
  c->depth--;
  from_converted(s);
}

/* ---- ColumnChunk / RowGroup -------------------------------------------- */

/* Statistics: 3 null_count, 5 max_value, 6 min_value (the deprecated
 * min / max, 1 and 2, are in signed byte order for every type and are
 * not used). */
static void statistics(cur *c, pq_chunk *k) {
  field f = {0, 0, 0};
  if (!enter(c)) return;
  while (next_field(c, &f)) {
    if (f.id == 3 && (f.type == CT_I64 || f.type == CT_I32))
      k->null_count = get_i64(c, &f);
    else if (f.id == 5 && f.type == CT_BINARY)
      k->stat_max = binary(c);
    else if (f.id == 6 && f.type == CT_BINARY)
      k->stat_min = binary(c);
    else
      skip(c, f.type);
  }
  c->depth--;
}

static void column_meta(cur *c, pq_chunk *k) {
  field f = {0, 0, 0};
  if (!enter(c)) return;
  k->has_meta = true;
  while (next_field(c, &f)) {
    switch (f.id) {
      case 1: k->type = get_i32(c, &f); break;
      case 4: k->codec = get_i32(c, &f); break;
      case 5: k->num_values = get_i64(c, &f); break;
      case 6: k->total_uncompressed = get_i64(c, &f); break;
      case 7: k->total_compressed = get_i64(c, &f); break;
      case 9: k->data_page_offset = get_i64(c, &f); break;
      case 11: k->dictionary_page_offset = get_i64(c, &f); break;
      case 12:
        if (f.type == CT_STRUCT)
          statistics(c, k);
        else
          skip(c, f.type);
        break;
      default: skip(c, f.type);
    }
  }
  c->depth--;
}

static void column_chunk(cur *c, pq_chunk *k) {
  memset(k, 0, sizeof *k);
  k->data_page_offset = -1;
  k->dictionary_page_offset = -1;
  k->null_count = -1;
  field f = {0, 0, 0};
  if (!enter(c)) return;
  while (next_field(c, &f)) {
    if (f.id == 1 && f.type == CT_BINARY) {
      pq_str s = binary(c);
      if (s.n > 0) k->external = true;
    } else if (f.id == 3 && f.type == CT_STRUCT) {
      column_meta(c, k);
    } else {
      skip(c, f.type);
    }
  }
  c->depth--;
}

static void row_group(cur *c, pq_row_group *g) {
  field f = {0, 0, 0};
  if (!enter(c)) return;
  while (next_field(c, &f)) {
    if (f.id == 1 && f.type == CT_LIST && g->columns == NULL) {
      int et;
      int64_t n = list_header(c, &et);
      if (c->bad) break;
      if (et != CT_STRUCT && n > 0) {
        fail(c, "row group columns are not structs");
        break;
      }
      g->columns = (pq_chunk *)zb_calloc((size_t)(n > 0 ? n : 1), sizeof(pq_chunk));
      if (g->columns == NULL) {
        fail(c, NULL); /* out of memory */
        break;
      }
      g->num_columns = n;
      for (int64_t i = 0; i < n && !c->bad; i++) column_chunk(c, &g->columns[i]);
    } else if (f.id == 3) {
      g->num_rows = get_i64(c, &f);
    } else {
      skip(c, f.type);
    }
  }
  c->depth--;
}

static void key_value(cur *c, pq_meta *m) {
  pq_str key = {NULL, 0}, value = {NULL, 0};
  field f = {0, 0, 0};
  if (!enter(c)) return;
  while (next_field(c, &f)) {
    if (f.id == 1 && f.type == CT_BINARY)
      key = binary(c);
    else if (f.id == 2 && f.type == CT_BINARY)
      value = binary(c);
    else
      skip(c, f.type);
  }
  c->depth--;
  if (key.n == 6 && memcmp(key.p, "pandas", 6) == 0 && value.p != NULL) m->pandas = value;
  if (key.n == 12 && memcmp(key.p, "ARROW:schema", 12) == 0 && value.p != NULL)
    m->arrow_schema = value;
}

void zb__pq_meta_free(pq_meta *m) {
  if (m->row_groups != NULL)
    for (int64_t i = 0; i < m->num_row_groups; i++) zb_free(m->row_groups[i].columns);
  zb_free(m->row_groups);
  zb_free(m->schema);
  memset(m, 0, sizeof *m);
}

zb_status zb__pq_meta_decode(const uint8_t *buf, int64_t n, pq_meta *m, zb_error *err) {
  memset(m, 0, sizeof *m);
  cur c = {buf, buf + n, false, NULL, 0};
  field f = {0, 0, 0};
  bool have_rows = false;
  while (next_field(&c, &f)) {
    if (f.id == 2 && f.type == CT_LIST && m->schema == NULL) {
      int et;
      int64_t k = list_header(&c, &et);
      if (c.bad) break;
      if (et != CT_STRUCT) {
        fail(&c, "schema elements are not structs");
        break;
      }
      m->schema = (pq_schema *)zb_calloc((size_t)(k > 0 ? k : 1), sizeof(pq_schema));
      if (m->schema == NULL) {
        fail(&c, NULL);
        break;
      }
      m->num_schema = k;
      for (int64_t i = 0; i < k && !c.bad; i++) schema_element(&c, &m->schema[i]);
    } else if (f.id == 3) {
      m->num_rows = get_i64(&c, &f);
      have_rows = true;
    } else if (f.id == 4 && f.type == CT_LIST && m->row_groups == NULL) {
      int et;
      int64_t k = list_header(&c, &et);
      if (c.bad) break;
      if (et != CT_STRUCT && k > 0) {
        fail(&c, "row groups are not structs");
        break;
      }
      m->row_groups = (pq_row_group *)zb_calloc((size_t)(k > 0 ? k : 1), sizeof(pq_row_group));
      if (m->row_groups == NULL) {
        fail(&c, NULL);
        break;
      }
      m->num_row_groups = k;
      for (int64_t i = 0; i < k && !c.bad; i++) row_group(&c, &m->row_groups[i]);
    } else if (f.id == 5 && f.type == CT_LIST) {
      int et;
      int64_t k = list_header(&c, &et);
      if (c.bad) break;
      if (et != CT_STRUCT && k > 0) {
        fail(&c, "key-value metadata are not structs");
        break;
      }
      for (int64_t i = 0; i < k && !c.bad; i++) key_value(&c, m);
    } else {
      skip(&c, f.type);
    }
  }
  if (!c.bad && (m->schema == NULL || m->num_schema < 1)) fail(&c, "the footer has no schema");
  if (!c.bad && !have_rows) fail(&c, "the footer has no row count");
  if (c.bad) {
    zb__pq_meta_free(m);
    if (c.what == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (Parquet footer)");
    return zb_error_set(err, ZB_EPARSE, "corrupt footer (%s at byte %lld of %lld)", c.what,
                        (long long)(c.p - buf), (long long)n);
  }
  return ZB_OK;
}

/* ---- page headers ------------------------------------------------------ */

zb_status zb__pq_page_header(const uint8_t *buf, int64_t n, pq_page_header *h, int64_t *used,
                             zb_error *err) {
  memset(h, 0, sizeof *h);
  h->type = -1;
  h->uncompressed_size = h->compressed_size = -1;
  h->is_compressed = true;
  cur c = {buf, buf + n, false, NULL, 0};
  field f = {0, 0, 0};
  while (next_field(&c, &f)) {
    switch (f.id) {
      case 1: h->type = get_i32(&c, &f); break;
      case 2: h->uncompressed_size = get_i32(&c, &f); break;
      case 3: h->compressed_size = get_i32(&c, &f); break;
      case 4:
        h->crc = (uint32_t)get_i32(&c, &f);
        h->has_crc = true;
        break;
      case 5:   /* DataPageHeader */
      case 7:   /* DictionaryPageHeader */
      case 8: { /* DataPageHeaderV2 */
        if (f.type != CT_STRUCT) {
          skip(&c, f.type);
          break;
        }
        int which = f.id;
        field g = {0, 0, 0};
        if (!enter(&c)) break;
        while (next_field(&c, &g)) {
          if (g.id == 1) {
            h->num_values = get_i32(&c, &g);
          } else if (which == 5 && g.id == 2) {
            h->encoding = get_i32(&c, &g);
          } else if (which == 5 && g.id == 3) {
            h->def_encoding = get_i32(&c, &g);
          } else if (which == 5 && g.id == 4) {
            h->rep_encoding = get_i32(&c, &g);
          } else if (which == 7 && g.id == 2) {
            h->encoding = get_i32(&c, &g);
          } else if (which == 8 && g.id >= 2 && g.id <= 6) {
            int32_t v = get_i32(&c, &g);
            if (g.id == 2) h->num_nulls = v;
            if (g.id == 3) h->num_rows = v;
            if (g.id == 4) h->encoding = v;
            if (g.id == 5) h->def_len = v;
            if (g.id == 6) h->rep_len = v;
          } else if (which == 8 && g.id == 7) {
            h->is_compressed = get_bool(&c, &g);
          } else {
            skip(&c, g.type);
          }
        }
        c.depth--;
        break;
      }
      default: skip(&c, f.type);
    }
  }
  if (!c.bad && (h->type < 0 || h->uncompressed_size < 0 || h->compressed_size < 0))
    fail(&c, "a required field is missing");
  if (c.bad)
    return zb_error_set(err, ZB_EPARSE, "corrupt page header (%s)", c.what ? c.what : "?");
  *used = (int64_t)(c.p - buf);
  return ZB_OK;
}
