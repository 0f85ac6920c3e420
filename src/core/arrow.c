/*
 * arrow.c -- the Arrow C Data Interface and C Stream Interface: export of
 * host columns and tables to ArrowSchema/ArrowArray/ArrowArrayStream, and
 * import of them back into zambezi columns and tables.
 *
 * Export is zero-copy: the ArrowArray's buffers point into zambezi buffers and
 * its private data holds a reference to the column, dropped by the release
 * callback.  Released structs have release == NULL; a parent's release
 * releases its children and dictionary unless the consumer moved them out.
 *
 * Import moves the root ArrowArray into a reference-counted holder.  Every
 * zambezi buffer that points into the array's memory is a wrapped buffer
 * holding one holder reference; when the last goes, the array's own release
 * runs.  Layouts zambezi does not share are converted into new buffers:
 * 32-bit string offsets ("u") are widened to 64 bits, dictionary indices
 * other than int32 are narrowed/widened to int32, date64 ("tdm") becomes
 * date32 days.  Those columns are rebased to offset 0 (the validity bitmap is
 * shared when the offset is a multiple of 8, else copied).
 *
 * What import checks: format strings, buffer and child counts, non-negative
 * length/offset/null_count, a validity bitmap whenever null_count > 0,
 * string offsets non-negative and non-decreasing over the used range,
 * dictionary codes of valid rows inside the dictionary, dictionaries without
 * nulls, unique child names of a record batch.  A dictionary (of any flat
 * type; its ordered flag kept) that repeats a value is folded.  What it
 * cannot check: the C interface carries no buffer lengths, so that the
 * producer's buffers really are as long as length + offset imply (the sizes
 * we record are the implied ones), that string bytes are valid UTF-8, and
 * that a non-NULL validity bitmap agrees with a given null_count.
 */
#include <errno.h>
#include <string.h>

#include "core/internal.h"
#include "zambezi/arrow.h"
#include "zambezi/interop.h"

/* Zeroes standing in for absent buffers of empty columns when exporting. */
static const int64_t zb__arrow_zeros[8] = {0};

/* ======================================================================== */
/* Export                                                                   */
/* ======================================================================== */

typedef struct export_schema_priv {
  char *format;
  char *name;
  char *metadata; /* a copy of the schema metadata (C Data Interface encoding) */
  struct ArrowSchema **child_ptrs;
  struct ArrowSchema *children;
  struct ArrowSchema *dictionary;
} export_schema_priv;

static void export_schema_release(struct ArrowSchema *s) {
  if (s == NULL || s->release == NULL) return;
  export_schema_priv *p = (export_schema_priv *)s->private_data;
  for (int64_t i = 0; i < s->n_children; i++) {
    struct ArrowSchema *c = s->children[i];
    if (c != NULL && c->release != NULL) c->release(c);
  }
  if (s->dictionary != NULL && s->dictionary->release != NULL)
    s->dictionary->release(s->dictionary);
  if (p != NULL) {
    zb_free(p->format);
    zb_free(p->name);
    zb_free(p->metadata);
    zb_free(p->child_ptrs);
    zb_free(p->children);
    zb_free(p->dictionary);
    zb_free(p);
  }
  s->private_data = NULL;
  s->release = NULL;
}

typedef struct export_array_priv {
  const void *buffers[3];
  zb_column *col; /* reference held for the consumer; NULL for a struct */
  struct ArrowArray **child_ptrs;
  struct ArrowArray *children;
  struct ArrowArray *dictionary;
} export_array_priv;

static void export_array_release(struct ArrowArray *a) {
  if (a == NULL || a->release == NULL) return;
  export_array_priv *p = (export_array_priv *)a->private_data;
  for (int64_t i = 0; i < a->n_children; i++) {
    struct ArrowArray *c = a->children[i];
    if (c != NULL && c->release != NULL) c->release(c);
  }
  if (a->dictionary != NULL && a->dictionary->release != NULL)
    a->dictionary->release(a->dictionary);
  if (p != NULL) {
    /* a device consumer's queued kernels may still read the memory (see
     * dl_export_free in interop.c) */
    if (p->col != NULL && p->col->device.kind != ZB_DEVICE_CPU)
      (void)zb_device_synchronize(p->col->device, NULL);
    zb_column_release(p->col);
    zb_free(p->child_ptrs);
    zb_free(p->children);
    zb_free(p->dictionary);
    zb_free(p);
  }
  a->private_data = NULL;
  a->release = NULL;
}

static const char *display_name(const char *name) {
  return (name != NULL && name[0] != '\0') ? name : "<unnamed>";
}

/* any_device: the export may point at device memory (C Device Data
 * Interface, or a schema, which holds no data). */
static zb_status check_host(const zb_column *col, const char *name, bool any_device,
                            zb_error *err) {
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "export: column is NULL");
  if (any_device) {
    if (col->type == ZB_CATEGORICAL && col->dictionary == NULL)
      return zb_error_set(err, ZB_EINVAL, "export: categorical column '%s' has no dictionary",
                          display_name(name));
    return ZB_OK;
  }
  if (col->device.kind != ZB_DEVICE_CPU)
    return zb_error_set(err, ZB_EINVAL,
                        "export needs host memory; call to(cpu) first (column '%s' is on "
                        "cuda:%d)",
                        display_name(name), col->device.id);
  if (col->type == ZB_CATEGORICAL &&
      (col->dictionary == NULL || col->dictionary->device.kind != ZB_DEVICE_CPU))
    return zb_error_set(err, ZB_EINVAL,
                        "export needs host memory and a dictionary (column '%s')",
                        display_name(name));
  return ZB_OK;
}

/* Format string of a column type (timestamps: into buf). */
static zb_status format_of(const zb_column *col, char *buf, size_t cap, const char *name,
                           zb_error *err) {
  const char *f = NULL;
  switch (col->type) {
    case ZB_BOOL: f = "b"; break;
    case ZB_INT8: f = "c"; break;
    case ZB_UINT8: f = "C"; break;
    case ZB_INT16: f = "s"; break;
    case ZB_UINT16: f = "S"; break;
    case ZB_INT32: f = "i"; break;
    case ZB_UINT32: f = "I"; break;
    case ZB_INT64: f = "l"; break;
    case ZB_UINT64: f = "L"; break;
    case ZB_FLOAT32: f = "f"; break;
    case ZB_FLOAT64: f = "g"; break;
    case ZB_STRING: f = "U"; break;
    case ZB_CATEGORICAL: f = "i"; break; /* the indices; values in the dictionary */
    case ZB_LIST: f = "+L"; break;       /* large_list; its child is "item" */
    case ZB_DATE32: f = "tdD"; break;
    case ZB_TIMESTAMP: {
      static const char units[4] = {'s', 'm', 'u', 'n'};
      const char *tz = col->timezone != NULL ? col->timezone : "";
      size_t tl = strlen(tz);
      if ((int)col->unit < 0 || (int)col->unit > 3)
        return zb_error_set(err, ZB_EINVAL, "export: column '%s' has a bad time unit %d",
                            display_name(name), (int)col->unit);
      if (tl + 6 > cap)
        return zb_error_set(err, ZB_EINVAL, "export: timezone of column '%s' is too long",
                            display_name(name));
      buf[0] = 't';
      buf[1] = 's';
      buf[2] = units[col->unit];
      buf[3] = ':';
      memcpy(buf + 4, tz, tl + 1);
      return ZB_OK;
    }
    case ZB_DURATION: {
      static const char units[4] = {'s', 'm', 'u', 'n'};
      if ((int)col->unit < 0 || (int)col->unit > 3)
        return zb_error_set(err, ZB_EINVAL, "export: column '%s' has a bad time unit %d",
                            display_name(name), (int)col->unit);
      buf[0] = 't';
      buf[1] = 'D';
      buf[2] = units[col->unit];
      buf[3] = '\0';
      return ZB_OK;
    }
    default:
      return zb_error_set(err, ZB_ENOTSUP, "export: column '%s' has unsupported type %d",
                          display_name(name), (int)col->type);
  }
  memcpy(buf, f, strlen(f) + 1);
  return ZB_OK;
}

/* Start a schema: zeroed, private data allocated, release set, format and
 * name copied.  On failure *s is released. */
static zb_status schema_start(struct ArrowSchema *s, const char *format, const char *name,
                              zb_error *err) {
  memset(s, 0, sizeof *s);
  export_schema_priv *p = (export_schema_priv *)zb_calloc(1, sizeof *p);
  if (p == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory exporting a schema");
  s->private_data = p;
  s->release = export_schema_release;
  s->flags = ARROW_FLAG_NULLABLE;
  p->format = zb__strdup(format);
  if (p->format == NULL) goto oom;
  s->format = p->format;
  if (name != NULL) {
    p->name = zb__strdup(name);
    if (p->name == NULL) goto oom;
    s->name = p->name;
  }
  return ZB_OK;
oom:
  export_schema_release(s);
  return zb_error_set(err, ZB_ENOMEM, "out of host memory exporting the schema of '%s'",
                      display_name(name));
}

static zb_status schema_init_column(struct ArrowSchema *s, const zb_column *col,
                                    const char *name, zb_error *err) {
  char fmt[512];
  memset(s, 0, sizeof *s);
  ZB_RETURN_NOT_OK(check_host(col, name, true, err));
  ZB_RETURN_NOT_OK(format_of(col, fmt, sizeof fmt, name, err));
  ZB_RETURN_NOT_OK(schema_start(s, fmt, name, err));
  if (col->type == ZB_CATEGORICAL) {
    export_schema_priv *p = (export_schema_priv *)s->private_data;
    p->dictionary = (struct ArrowSchema *)zb_calloc(1, sizeof(struct ArrowSchema));
    if (p->dictionary == NULL) {
      export_schema_release(s);
      return zb_error_set(err, ZB_ENOMEM, "out of host memory exporting '%s'",
                          display_name(name));
    }
    s->dictionary = p->dictionary;
    if (zb_column_is_ordered(col)) s->flags |= ARROW_FLAG_DICTIONARY_ORDERED;
    zb_status st = schema_init_column(s->dictionary, col->dictionary, NULL, err);
    if (st != ZB_OK) {
      export_schema_release(s);
      return st;
    }
  }
  if (col->type == ZB_LIST) {
    export_schema_priv *p = (export_schema_priv *)s->private_data;
    p->children = (struct ArrowSchema *)zb_calloc(1, sizeof(struct ArrowSchema));
    p->child_ptrs = (struct ArrowSchema **)zb_calloc(1, sizeof(struct ArrowSchema *));
    if (p->children == NULL || p->child_ptrs == NULL) {
      export_schema_release(s);
      return zb_error_set(err, ZB_ENOMEM, "out of host memory exporting '%s'",
                          display_name(name));
    }
    p->child_ptrs[0] = p->children;
    zb_status st = schema_init_column(p->children, col->child, "item", err);
    if (st != ZB_OK) {
      export_schema_release(s);
      return st;
    }
    s->children = p->child_ptrs;
    s->n_children = 1;
  }
  return ZB_OK;
}

/* Start an array struct with private data; on failure *a is released. */
static zb_status array_start(struct ArrowArray *a, zb_error *err) {
  memset(a, 0, sizeof *a);
  export_array_priv *p = (export_array_priv *)zb_calloc(1, sizeof *p);
  if (p == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory exporting an array");
  a->private_data = p;
  a->release = export_array_release;
  a->buffers = p->buffers;
  return ZB_OK;
}

static zb_status array_init_column(struct ArrowArray *a, const zb_column *col,
                                   const char *name, bool any_device, zb_error *err) {
  memset(a, 0, sizeof *a);
  ZB_RETURN_NOT_OK(check_host(col, name, any_device, err));
  ZB_RETURN_NOT_OK(array_start(a, err));
  export_array_priv *p = (export_array_priv *)a->private_data;
  p->col = zb_column_retain((zb_column *)col);
  a->length = col->length;
  a->offset = col->offset;
  a->null_count = col->null_count;
  p->buffers[0] =
      (col->null_count != 0 && col->validity != NULL) ? col->validity->data : NULL;
  if (p->buffers[0] == NULL) a->null_count = 0;
  const void *data = col->data != NULL ? col->data->data : NULL;
  if (data == NULL) {
    /* Only an empty column may lack its data buffer. */
    data = zb__arrow_zeros;
    a->offset = 0;
  }
  p->buffers[1] = data;
  a->n_buffers = 2;
  if (col->type == ZB_STRING) {
    a->n_buffers = 3;
    p->buffers[2] = (col->chars != NULL && col->chars->data != NULL) ? col->chars->data
                                                                      : zb__arrow_zeros;
  }
  if (col->type == ZB_CATEGORICAL) {
    p->dictionary = (struct ArrowArray *)zb_calloc(1, sizeof(struct ArrowArray));
    if (p->dictionary == NULL) {
      export_array_release(a);
      return zb_error_set(err, ZB_ENOMEM, "out of host memory exporting '%s'",
                          display_name(name));
    }
    a->dictionary = p->dictionary;
    zb_status st = array_init_column(a->dictionary, col->dictionary, NULL, any_device, err);
    if (st != ZB_OK) {
      export_array_release(a);
      return st;
    }
  }
  if (col->type == ZB_LIST) {
    p->children = (struct ArrowArray *)zb_calloc(1, sizeof(struct ArrowArray));
    p->child_ptrs = (struct ArrowArray **)zb_calloc(1, sizeof(struct ArrowArray *));
    if (p->children == NULL || p->child_ptrs == NULL) {
      export_array_release(a);
      return zb_error_set(err, ZB_ENOMEM, "out of host memory exporting '%s'",
                          display_name(name));
    }
    p->child_ptrs[0] = p->children;
    zb_status st = array_init_column(p->children, col->child, "item", any_device, err);
    if (st != ZB_OK) {
      export_array_release(a);
      return st;
    }
    a->children = p->child_ptrs;
    a->n_children = 1;
  }
  return ZB_OK;
}

zb_status zb_column_export_schema(const zb_column *col, const char *name,
                                  struct ArrowSchema *schema, zb_error *err) {
  if (schema == NULL) return zb_error_set(err, ZB_EINVAL, "export: schema is NULL");
  return schema_init_column(schema, col, name, err);
}

zb_status zb_column_export_arrow(const zb_column *col, const char *name,
                                 struct ArrowSchema *schema, struct ArrowArray *array,
                                 zb_error *err) {
  if (schema == NULL || array == NULL)
    return zb_error_set(err, ZB_EINVAL, "export: schema or array is NULL");
  array->release = NULL;
  ZB_RETURN_NOT_OK(schema_init_column(schema, col, name, err));
  zb_status st = array_init_column(array, col, name, false, err);
  if (st != ZB_OK) export_schema_release(schema);
  return st;
}

zb_status zb_column_export_device_arrow(const zb_column *col, const char *name,
                                        struct ArrowSchema *schema,
                                        struct ArrowDeviceArray *array, zb_error *err) {
  if (schema == NULL || array == NULL)
    return zb_error_set(err, ZB_EINVAL, "export: schema or array is NULL");
  memset(array, 0, sizeof *array);
  ZB_RETURN_NOT_OK(schema_init_column(schema, col, name, err));
  zb_status st = array_init_column(&array->array, col, name, true, err);
  /* Device work is finished here, so the consumer needs no sync event. */
  if (st == ZB_OK) st = zb_device_synchronize(col->device, err);
  if (st != ZB_OK) {
    export_array_release(&array->array);
    export_schema_release(schema);
    return st;
  }
  bool host = col->device.kind == ZB_DEVICE_CPU;
  array->device_type = host ? ARROW_DEVICE_CPU : ARROW_DEVICE_CUDA;
  array->device_id = host ? -1 : col->device.id;
  array->sync_event = NULL;
  return ZB_OK;
}

static zb_status check_table(const zb_table *t, zb_error *err) {
  if (t == NULL) return zb_error_set(err, ZB_EINVAL, "export: table is NULL");
  for (int64_t i = 0; i < t->num_columns; i++)
    ZB_RETURN_NOT_OK(check_host(t->columns[i], t->names[i], false, err));
  return ZB_OK;
}

/* Whether size bytes at m are schema metadata in the C Data Interface's
 * encoding: an int32 count of pairs, then per pair an int32 length and the
 * key's bytes, an int32 length and the value's bytes (native byte order),
 * nothing after the last pair. */
static zb_status check_metadata(const unsigned char *m, int64_t size, zb_error *err) {
  int32_t n, len;
  int64_t at = 4;
  if (size < 4) goto bad;
  memcpy(&n, m, 4);
  if (n < 0) goto bad;
  for (int64_t i = 0; i < 2 * (int64_t)n; i++) { /* a key, then its value */
    if (size - at < 4) goto bad;
    memcpy(&len, m + at, 4);
    at += 4;
    if (len < 0 || size - at < len) goto bad;
    at += len;
  }
  if (at != size) goto bad;
  return ZB_OK;
bad:
  return zb_error_set(err, ZB_EINVAL,
                      "export: the schema metadata (%lld bytes) is not in the Arrow C data "
                      "interface's encoding",
                      (long long)size);
}

zb_status zb_table_export_schema(const zb_table *t, struct ArrowSchema *schema,
                                 zb_error *err) {
  return zb_table_export_schema_with_metadata(t, NULL, 0, schema, err);
}

zb_status zb_table_export_schema_with_metadata(const zb_table *t, const void *metadata,
                                               int64_t metadata_size,
                                               struct ArrowSchema *schema, zb_error *err) {
  if (schema == NULL) return zb_error_set(err, ZB_EINVAL, "export: schema is NULL");
  if (metadata_size < 0 || (metadata == NULL && metadata_size != 0))
    return zb_error_set(err, ZB_EINVAL, "export: bad schema metadata size %lld",
                        (long long)metadata_size);
  if (metadata != NULL)
    ZB_RETURN_NOT_OK(check_metadata((const unsigned char *)metadata, metadata_size, err));
  memset(schema, 0, sizeof *schema);
  ZB_RETURN_NOT_OK(check_table(t, err));
  ZB_RETURN_NOT_OK(schema_start(schema, "+s", "", err));
  schema->flags = 0;
  export_schema_priv *p = (export_schema_priv *)schema->private_data;
  int64_t n = t->num_columns;
  p->children = (struct ArrowSchema *)zb_calloc((size_t)(n > 0 ? n : 1),
                                                sizeof(struct ArrowSchema));
  p->child_ptrs = (struct ArrowSchema **)zb_calloc((size_t)(n > 0 ? n : 1),
                                                   sizeof(struct ArrowSchema *));
  if (p->children == NULL || p->child_ptrs == NULL) {
    export_schema_release(schema);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory exporting a table schema");
  }
  if (metadata != NULL) {
    p->metadata = (char *)zb_malloc((size_t)metadata_size);
    if (p->metadata == NULL) {
      export_schema_release(schema);
      return zb_error_set(err, ZB_ENOMEM, "out of host memory exporting schema metadata");
    }
    memcpy(p->metadata, metadata, (size_t)metadata_size);
    schema->metadata = p->metadata;
  }
  for (int64_t i = 0; i < n; i++) p->child_ptrs[i] = &p->children[i];
  schema->children = p->child_ptrs;
  schema->n_children = n; /* children are zeroed (released) until initialised */
  for (int64_t i = 0; i < n; i++) {
    zb_status st = schema_init_column(&p->children[i], t->columns[i], t->names[i], err);
    if (st != ZB_OK) {
      export_schema_release(schema);
      return st;
    }
  }
  return ZB_OK;
}

static zb_status table_array_init(const zb_table *t, struct ArrowArray *array,
                                  zb_error *err) {
  ZB_RETURN_NOT_OK(array_start(array, err));
  export_array_priv *p = (export_array_priv *)array->private_data;
  int64_t n = t->num_columns;
  array->length = t->num_rows;
  array->null_count = 0;
  array->offset = 0;
  array->n_buffers = 1; /* validity, absent */
  p->children =
      (struct ArrowArray *)zb_calloc((size_t)(n > 0 ? n : 1), sizeof(struct ArrowArray));
  p->child_ptrs =
      (struct ArrowArray **)zb_calloc((size_t)(n > 0 ? n : 1), sizeof(struct ArrowArray *));
  if (p->children == NULL || p->child_ptrs == NULL) {
    export_array_release(array);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory exporting a table");
  }
  for (int64_t i = 0; i < n; i++) p->child_ptrs[i] = &p->children[i];
  array->children = p->child_ptrs;
  array->n_children = n;
  for (int64_t i = 0; i < n; i++) {
    zb_status st =
        array_init_column(&p->children[i], t->columns[i], t->names[i], false, err);
    if (st != ZB_OK) {
      export_array_release(array);
      return st;
    }
  }
  return ZB_OK;
}

zb_status zb_table_export_arrow(const zb_table *t, struct ArrowSchema *schema,
                                struct ArrowArray *array, zb_error *err) {
  if (schema == NULL || array == NULL)
    return zb_error_set(err, ZB_EINVAL, "export: schema or array is NULL");
  array->release = NULL;
  ZB_RETURN_NOT_OK(zb_table_export_schema(t, schema, err));
  zb_status st = table_array_init(t, array, err);
  if (st != ZB_OK) export_schema_release(schema);
  return st;
}

/* ---- stream export ------------------------------------------------------ */

typedef struct export_stream_priv {
  zb_table *table;
  void *metadata; /* schema metadata (a copy), or NULL */
  int64_t metadata_size;
  bool done;
  char error[ZB_ERROR_MESSAGE_SIZE];
} export_stream_priv;

static int errno_of(zb_status st) {
  switch (st) {
    case ZB_OK: return 0;
    case ZB_ENOMEM: return ENOMEM;
    case ZB_EINVAL:
    case ZB_ETYPE: return EINVAL;
    case ZB_ENOTSUP: return ENOTSUP;
    default: return EIO;
  }
}

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  export_stream_priv *p = (export_stream_priv *)s->private_data;
  zb_error e;
  e.message[0] = '\0';
  zb_status st =
      zb_table_export_schema_with_metadata(p->table, p->metadata, p->metadata_size, out, &e);
  if (st != ZB_OK) memcpy(p->error, e.message, sizeof p->error);
  return errno_of(st);
}

static int stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  export_stream_priv *p = (export_stream_priv *)s->private_data;
  if (p->done) {
    memset(out, 0, sizeof *out); /* release == NULL: end of stream */
    return 0;
  }
  zb_error e;
  e.message[0] = '\0';
  memset(out, 0, sizeof *out);
  zb_status st = table_array_init(p->table, out, &e);
  if (st != ZB_OK) {
    memcpy(p->error, e.message, sizeof p->error);
    return errno_of(st);
  }
  p->done = true;
  return 0;
}

static const char *stream_get_last_error(struct ArrowArrayStream *s) {
  export_stream_priv *p = (export_stream_priv *)s->private_data;
  return (p != NULL && p->error[0] != '\0') ? p->error : NULL;
}

static void stream_release(struct ArrowArrayStream *s) {
  if (s == NULL || s->release == NULL) return;
  export_stream_priv *p = (export_stream_priv *)s->private_data;
  if (p != NULL) {
    zb_table_release(p->table);
    zb_free(p->metadata);
    zb_free(p);
  }
  s->private_data = NULL;
  s->release = NULL;
}

zb_status zb_table_export_stream(const zb_table *t, struct ArrowArrayStream *out,
                                 zb_error *err) {
  return zb_table_export_stream_with_metadata(t, NULL, 0, out, err);
}

zb_status zb_table_export_stream_with_metadata(const zb_table *t, const void *metadata,
                                               int64_t metadata_size,
                                               struct ArrowArrayStream *out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "export: stream is NULL");
  memset(out, 0, sizeof *out);
  ZB_RETURN_NOT_OK(check_table(t, err));
  if (metadata_size < 0 || (metadata == NULL && metadata_size != 0))
    return zb_error_set(err, ZB_EINVAL, "export: bad schema metadata size %lld",
                        (long long)metadata_size);
  if (metadata != NULL)
    ZB_RETURN_NOT_OK(check_metadata((const unsigned char *)metadata, metadata_size, err));
  export_stream_priv *p = (export_stream_priv *)zb_calloc(1, sizeof *p);
  if (p == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory exporting a stream");
  if (metadata != NULL) {
    p->metadata = zb_malloc((size_t)(metadata_size > 0 ? metadata_size : 1));
    if (p->metadata == NULL) {
      zb_free(p);
      return zb_error_set(err, ZB_ENOMEM, "out of host memory exporting schema metadata");
    }
    memcpy(p->metadata, metadata, (size_t)metadata_size);
    p->metadata_size = metadata_size;
  }
  p->table = zb_table_retain((zb_table *)t);
  out->get_schema = stream_get_schema;
  out->get_next = stream_get_next;
  out->get_last_error = stream_get_last_error;
  out->release = stream_release;
  out->private_data = p;
  return ZB_OK;
}

/* ======================================================================== */
/* Import                                                                   */
/* ======================================================================== */

/* The moved root array, alive while any buffer shares its memory.
 * lists_checked: the exporter already checked every list offset
 * (zb__table_import_arrow_checked), so they are not walked again. */
typedef struct import_holder {
  struct ArrowArray array;
  int64_t refcount;
  bool lists_checked;
} import_holder;

static void holder_unref(import_holder *h) {
  if (zb__atomic_dec(&h->refcount) != 0) return;
  if (h->array.release != NULL) h->array.release(&h->array);
  zb_free(h);
}

static void holder_buffer_release(void *ctx, void *data, int64_t size) {
  (void)data;
  (void)size;
  holder_unref((import_holder *)ctx);
}

/* A zambezi buffer over size bytes of the array's memory at p. */
static zb_status wrap(import_holder *h, const void *p, int64_t size, zb_buffer **out,
                      zb_error *err) {
  zb_status st =
      zb_buffer_wrap(ZB_CPU, (void *)p, size, holder_buffer_release, h, out, err);
  if (st == ZB_OK) zb__atomic_inc(&h->refcount);
  return st;
}

typedef enum src_kind {
  SRC_PLAIN = 0,  /* zambezi's layout: shared */
  SRC_UTF8,       /* "u": int32 offsets */
  SRC_LARGE_UTF8, /* "U" */
  SRC_DATE64,     /* "tdm" */
  SRC_DICT,       /* dictionary-encoded strings */
  SRC_LIST,       /* "+l": int32 offsets and one child */
  SRC_LARGE_LIST  /* "+L" */
} src_kind;

typedef struct format_desc {
  zb_type_id type;
  src_kind kind;
  zb_time_unit unit;
  char tz[256];      /* timestamps: "" for none */
  int index_width;   /* dictionaries: bytes per index */
  bool index_signed;
  int n_buffers;
} format_desc;

static bool parse_int_format(const char *f, int *width, bool *is_signed, zb_type_id *type) {
  if (f[0] == '\0' || f[1] != '\0') return false;
  switch (f[0]) {
    case 'c': *width = 1; *is_signed = true; *type = ZB_INT8; return true;
    case 'C': *width = 1; *is_signed = false; *type = ZB_UINT8; return true;
    case 's': *width = 2; *is_signed = true; *type = ZB_INT16; return true;
    case 'S': *width = 2; *is_signed = false; *type = ZB_UINT16; return true;
    case 'i': *width = 4; *is_signed = true; *type = ZB_INT32; return true;
    case 'I': *width = 4; *is_signed = false; *type = ZB_UINT32; return true;
    case 'l': *width = 8; *is_signed = true; *type = ZB_INT64; return true;
    case 'L': *width = 8; *is_signed = false; *type = ZB_UINT64; return true;
    default: return false;
  }
}

/* Describe the column a schema declares; ENOTSUP for what zambezi lacks. */
static zb_status parse_format(const struct ArrowSchema *s, const char *nm, format_desc *d,
                              zb_error *err) {
  memset(d, 0, sizeof *d);
  const char *f = s->format;
  if (f == NULL)
    return zb_error_set(err, ZB_EINVAL, "import: column '%s' has no format string", nm);
  d->n_buffers = 2;
  if (s->dictionary != NULL) {
    zb_type_id it;
    if (!parse_int_format(f, &d->index_width, &d->index_signed, &it))
      return zb_error_set(err, ZB_EINVAL,
                          "import: column '%s' is dictionary-encoded with index format '%s' "
                          "(expected one of c s i l C S I L)",
                          nm, f);
    const char *vf = s->dictionary->format;
    format_desc vd; /* categories of any flat type */
    if (s->dictionary->dictionary != NULL || vf == NULL || s->dictionary->n_children != 0 ||
        parse_format(s->dictionary, nm, &vd, err) != ZB_OK || vd.type == ZB_LIST)
      return zb_error_set(err, ZB_ENOTSUP,
                          "import: column '%s' is dictionary-encoded with values of format "
                          "'%s'; categories must be of a flat type", nm, vf ? vf : "(null)");
    d->type = ZB_CATEGORICAL;
    d->kind = SRC_DICT;
    return ZB_OK;
  }
  int w;
  bool sg;
  zb_type_id t;
  if (parse_int_format(f, &w, &sg, &t)) {
    d->type = t;
    return ZB_OK;
  }
  if (strcmp(f, "b") == 0) {
    d->type = ZB_BOOL;
  } else if (strcmp(f, "f") == 0) {
    d->type = ZB_FLOAT32;
  } else if (strcmp(f, "g") == 0) {
    d->type = ZB_FLOAT64;
  } else if (strcmp(f, "u") == 0) {
    d->type = ZB_STRING;
    d->kind = SRC_UTF8;
    d->n_buffers = 3;
  } else if (strcmp(f, "U") == 0) {
    d->type = ZB_STRING;
    d->kind = SRC_LARGE_UTF8;
    d->n_buffers = 3;
  } else if (strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0) {
    d->type = ZB_LIST;
    d->kind = f[1] == 'l' ? SRC_LIST : SRC_LARGE_LIST;
  } else if (strcmp(f, "tdD") == 0) {
    d->type = ZB_DATE32;
  } else if (strcmp(f, "tdm") == 0) {
    d->type = ZB_DATE32;
    d->kind = SRC_DATE64;
  } else if (f[0] == 't' && f[1] == 's' && f[2] != '\0' && strchr("smun", f[2]) != NULL &&
             (f[3] == ':' || f[3] == '\0')) {
    d->type = ZB_TIMESTAMP;
    d->unit = f[2] == 's' ? ZB_SECOND : f[2] == 'm' ? ZB_MILLI : f[2] == 'u' ? ZB_MICRO
                                                                              : ZB_NANO;
    if (f[3] == ':') {
      size_t tl = strlen(f + 4);
      if (tl >= sizeof d->tz)
        return zb_error_set(err, ZB_EINVAL, "import: timezone of column '%s' is too long",
                            nm);
      memcpy(d->tz, f + 4, tl + 1);
    }
  } else if (f[0] == 't' && f[1] == 'D' && f[2] != '\0' && strchr("smun", f[2]) != NULL &&
             f[3] == '\0') {
    d->type = ZB_DURATION;
    d->unit = f[2] == 's' ? ZB_SECOND : f[2] == 'm' ? ZB_MILLI : f[2] == 'u' ? ZB_MICRO
                                                                              : ZB_NANO;
  } else if (strcmp(f, "n") == 0) {
    return zb_error_set(err, ZB_ENOTSUP,
                        "import: column '%s' has the Arrow null type (format 'n'), which "
                        "zambezi does not support; cast it to a concrete type first",
                        nm);
  } else {
    return zb_error_set(err, ZB_ENOTSUP,
                        "import: column '%s' has Arrow format '%s', which zambezi does not "
                        "support",
                        nm, f);
  }
  return ZB_OK;
}

static const char *import_name(const struct ArrowSchema *s, const char *fallback) {
  if (s != NULL && s->name != NULL && s->name[0] != '\0') return s->name;
  return fallback;
}

/* Validity for a column of `length` rows at array offset `off`, either
 * keeping the offset (rebase == false: shared) or at offset 0 (shared when
 * off is a multiple of 8, else copied).  *out is NULL when there are no
 * nulls. */
static zb_status import_validity(import_holder *h, const uint8_t *bits, int64_t off,
                                 int64_t length, int64_t null_count, bool rebase,
                                 zb_buffer **out, zb_error *err) {
  *out = NULL;
  if (null_count == 0 || bits == NULL) return ZB_OK;
  if (!rebase) return wrap(h, bits, (off + length + 7) / 8, out, err);
  if (off % 8 == 0) return wrap(h, bits + off / 8, (length + 7) / 8, out, err);
  ZB_RETURN_NOT_OK(zb_buffer_new(ZB_CPU, (length + 7) / 8, out, err));
  zb__bitmap_copy((uint8_t *)(*out)->data, 0, bits, off, length);
  return ZB_OK;
}

static zb_status import_column(const struct ArrowSchema *s, const struct ArrowArray *a,
                               import_holder *h, const char *nm, zb_column **out,
                               zb_error *err);

/* Dictionary-encoded strings: codes (converted to int32 unless already) and
 * the imported dictionary. */
static zb_status import_dict_codes(const format_desc *d, const struct ArrowArray *a,
                                   import_holder *h, const char *nm, int64_t dict_len,
                                   const uint8_t *bits, int64_t null_count, zb_buffer **codes,
                                   bool *rebased, zb_error *err) {
  const int64_t off = a->offset, len = a->length;
  const void *src = a->buffers[1];
  *codes = NULL;
  *rebased = false;
  if (src == NULL) {
    if (len != 0)
      return zb_error_set(err, ZB_EINVAL, "import: column '%s' has no index buffer", nm);
    *rebased = true;
    return zb_buffer_new_zeroed(ZB_CPU, 0, codes, err);
  }
  const bool check_valid = null_count != 0 && bits != NULL;
  if (d->index_width == 4 && d->index_signed) {
    const int32_t *c = (const int32_t *)src + off;
    for (int64_t i = 0; i < len; i++) {
      if (check_valid && !zb_bit_get(bits, off + i)) continue;
      if (c[i] < 0 || (int64_t)c[i] >= dict_len)
        return zb_error_set(err, ZB_EINVAL,
                            "import: column '%s' row %lld has dictionary index %d outside "
                            "its dictionary of %lld values",
                            nm, (long long)i, (int)c[i], (long long)dict_len);
    }
    return wrap(h, src, (off + len) * 4, codes, err);
  }
  ZB_RETURN_NOT_OK(zb_buffer_new(ZB_CPU, len * 4, codes, err));
  *rebased = true;
  int32_t *dst = (int32_t *)(*codes)->data;
  for (int64_t i = 0; i < len; i++) {
    if (check_valid && !zb_bit_get(bits, off + i)) {
      dst[i] = 0;
      continue;
    }
    int64_t v;
    bool too_big = false;
    const int64_t k = off + i;
    switch (d->index_width * (d->index_signed ? 1 : -1)) {
      case 1: v = ((const int8_t *)src)[k]; break;
      case -1: v = ((const uint8_t *)src)[k]; break;
      case 2: v = ((const int16_t *)src)[k]; break;
      case -2: v = ((const uint16_t *)src)[k]; break;
      case -4: v = ((const uint32_t *)src)[k]; break;
      case 8: v = ((const int64_t *)src)[k]; break;
      default: {
        uint64_t u = ((const uint64_t *)src)[k];
        too_big = u > (uint64_t)INT32_MAX;
        v = too_big ? 0 : (int64_t)u;
        break;
      }
    }
    if (too_big || v > INT32_MAX) {
      zb_buffer_release(*codes);
      *codes = NULL;
      return zb_error_set(err, ZB_EOVERFLOW,
                          "import: column '%s' row %lld has a dictionary index >= 2^31, "
                          "which does not fit zambezi's int32 codes",
                          nm, (long long)i);
    }
    if (v < 0 || v >= dict_len) {
      zb_buffer_release(*codes);
      *codes = NULL;
      return zb_error_set(err, ZB_EINVAL,
                          "import: column '%s' row %lld has dictionary index %lld outside "
                          "its dictionary of %lld values",
                          nm, (long long)i, (long long)v, (long long)dict_len);
    }
    dst[i] = (int32_t)v;
  }
  return ZB_OK;
}

/* Offsets o[0, n] (int32 when small): the first row i with o[i + 1] <
 * o[i], or -1.  One branch-free pass, which also writes them widened to
 * int64 into widen when it is not NULL; the row is looked for only when
 * there is one. */
ZB_CLONES static int64_t offsets_fall(const void *src, int64_t n, bool small, int64_t *widen) {
  const int32_t *o32 = (const int32_t *)src;
  const int64_t *o64 = (const int64_t *)src;
  int bad = 0;
  if (small && widen != NULL) {
    for (int64_t i = 0; i < n; i++) {
      widen[i] = o32[i];
      bad |= o32[i + 1] < o32[i];
    }
    widen[n] = o32[n];
  } else if (small) {
    for (int64_t i = 0; i < n; i++) bad |= o32[i + 1] < o32[i];
  } else {
    for (int64_t i = 0; i < n; i++) bad |= o64[i + 1] < o64[i];
  }
  for (int64_t i = 0; bad && i < n; i++)
    if (small ? o32[i + 1] < o32[i] : o64[i + 1] < o64[i]) return i;
  return -1;
}

/* A list schema nested deeper than the engine takes is refused before the
 * recursive import descends into it (a hostile schema must not exhaust the
 * stack). */
static zb_status check_list_depth(const struct ArrowSchema *s, const char *nm, zb_error *err) {
  int depth = 0;
  while (s != NULL && s->format != NULL && s->format[0] == '+' &&
         (s->format[1] == 'l' || s->format[1] == 'L') && s->format[2] == '\0') {
    if (++depth > ZB_LIST_MAX_DEPTH)
      return zb_error_set(err, ZB_ENOTSUP,
                          "import: column '%s' nests lists deeper than %d levels", nm,
                          ZB_LIST_MAX_DEPTH);
    s = s->n_children == 1 && s->children != NULL ? s->children[0] : NULL;
  }
  return ZB_OK;
}

/* Import one (non-struct) array.  Buffers sharing the array's memory hold
 * references to h.  On failure nothing created here is left alive. */
static zb_status import_column(const struct ArrowSchema *s, const struct ArrowArray *a,
                               import_holder *h, const char *nm, zb_column **out,
                               zb_error *err) {
  format_desc d;
  zb_status st = ZB_OK;
  zb_buffer *validity = NULL, *data = NULL, *chars = NULL;
  zb_column *dict = NULL, *col = NULL, *child = NULL;
  *out = NULL;

  ZB_RETURN_NOT_OK(parse_format(s, nm, &d, err));
  if (d.type == ZB_LIST) ZB_RETURN_NOT_OK(check_list_depth(s, nm, err));
  if (a == NULL || a->release == NULL)
    return zb_error_set(err, ZB_EINVAL, "import: the array of column '%s' is released", nm);
  const int64_t len = a->length, off = a->offset;
  if (len < 0 || off < 0 || off > INT64_MAX / 16 - len)
    return zb_error_set(err, ZB_EINVAL,
                        "import: column '%s' has bad length %lld or offset %lld", nm,
                        (long long)len, (long long)off);
  if (a->n_buffers != d.n_buffers)
    return zb_error_set(err, ZB_EINVAL,
                        "import: column '%s' (format '%s') has %lld buffers, expected %d", nm,
                        s->format, (long long)a->n_buffers, d.n_buffers);
  if (a->buffers == NULL)
    return zb_error_set(err, ZB_EINVAL, "import: column '%s' has no buffer array", nm);
  const int64_t want_children = d.type == ZB_LIST ? 1 : 0;
  if (a->n_children != want_children || s->n_children != want_children ||
      (want_children > 0 && (a->children == NULL || s->children == NULL ||
                             a->children[0] == NULL || s->children[0] == NULL)))
    return zb_error_set(err, ZB_EINVAL,
                        "import: column '%s' (format '%s') has %lld children, expected %lld",
                        nm, s->format, (long long)a->n_children, (long long)want_children);

  /* Nulls. */
  const uint8_t *bits = (const uint8_t *)a->buffers[0];
  int64_t nulls = a->null_count;
  if (nulls < -1 || nulls > len)
    return zb_error_set(err, ZB_EINVAL, "import: column '%s' has bad null_count %lld", nm,
                        (long long)nulls);
  if (bits == NULL) {
    if (nulls > 0)
      return zb_error_set(err, ZB_EINVAL,
                          "import: column '%s' has null_count %lld but no validity bitmap",
                          nm, (long long)nulls);
    nulls = 0;
  } else if (nulls < 0) {
    nulls = len - zb_bitmap_count(bits, off, len);
  }

  /* Dictionary first: its length bounds the codes. */
  if (d.kind == SRC_DICT) {
    if (a->dictionary == NULL)
      return zb_error_set(err, ZB_EINVAL,
                          "import: column '%s' is dictionary-encoded but its array has no "
                          "dictionary",
                          nm);
    st = import_column(s->dictionary, a->dictionary, h, nm, &dict, err);
    if (st != ZB_OK) return st;
    dict->ordered = (s->flags & ARROW_FLAG_DICTIONARY_ORDERED) != 0; /* ours alone */
    if (dict->null_count != 0) {
      st = zb_error_set(err, ZB_EINVAL,
                        "import: the dictionary of column '%s' holds %lld nulls; zambezi "
                        "categoricals need a dictionary without nulls",
                        nm, (long long)dict->null_count);
      goto done;
    }
  }

  bool rebased = false; /* the new column starts at offset 0 */
  const void *src = a->buffers[1];
  switch (d.kind) {
    case SRC_PLAIN: {
      int64_t size = d.type == ZB_BOOL ? (off + len + 7) / 8 : (off + len) * zb_type_width(d.type);
      if (src == NULL) {
        if (len != 0) {
          st = zb_error_set(err, ZB_EINVAL, "import: column '%s' has no data buffer", nm);
          goto done;
        }
        rebased = true;
        st = zb_buffer_new_zeroed(ZB_CPU, 0, &data, err);
      } else {
        st = wrap(h, src, size, &data, err);
      }
      break;
    }
    case SRC_DATE64: {
      rebased = true;
      st = zb_buffer_new(ZB_CPU, len * 4, &data, err);
      if (st != ZB_OK) break;
      if (len > 0 && src == NULL) {
        st = zb_error_set(err, ZB_EINVAL, "import: column '%s' has no data buffer", nm);
        break;
      }
      int32_t *dst = (int32_t *)data->data;
      for (int64_t i = 0; i < len; i++) {
        if (nulls != 0 && !zb_bit_get(bits, off + i)) {
          dst[i] = 0;
          continue;
        }
        int64_t ms = ((const int64_t *)src)[off + i];
        int64_t q = ms / 86400000, r = ms % 86400000;
        if (r < 0) q -= 1; /* floor */
        if (q < INT32_MIN || q > INT32_MAX) {
          st = zb_error_set(err, ZB_EOVERFLOW,
                            "import: column '%s' row %lld: date64 value %lld ms is out of "
                            "date32 range",
                            nm, (long long)i, (long long)ms);
          break;
        }
        dst[i] = (int32_t)q;
      }
      break;
    }
    case SRC_UTF8:
    case SRC_LARGE_UTF8: {
      const bool small = d.kind == SRC_UTF8;
      const void *cbuf = a->buffers[2];
      if (src == NULL) {
        if (len != 0) {
          st = zb_error_set(err, ZB_EINVAL, "import: column '%s' has no offsets buffer", nm);
          goto done;
        }
        rebased = true;
        st = zb_buffer_new_zeroed(ZB_CPU, 8, &data, err);
        if (st == ZB_OK) st = zb_buffer_new_zeroed(ZB_CPU, 0, &chars, err);
        break;
      }
      /* Offsets must start >= 0 and never decrease over the used range
       * (checked in the pass that widens int32 ones). */
      int64_t first = small ? ((const int32_t *)src)[off] : ((const int64_t *)src)[off];
      if (first < 0) {
        st = zb_error_set(err, ZB_EINVAL, "import: column '%s' has negative string offset %lld",
                          nm, (long long)first);
        goto done;
      }
      if (small) {
        rebased = true;
        st = zb_buffer_new(ZB_CPU, (len + 1) * 8, &data, err);
        if (st != ZB_OK) break;
      }
      const int64_t fall = offsets_fall((const char *)src + off * (small ? 4 : 8), len, small,
                                        small ? (int64_t *)data->data : NULL);
      if (fall >= 0) {
        st = zb_error_set(err, ZB_EINVAL,
                          "import: column '%s' has decreasing string offsets at row %lld", nm,
                          (long long)fall);
        goto done;
      }
      const int64_t last =
          small ? ((const int32_t *)src)[off + len] : ((const int64_t *)src)[off + len];
      if (cbuf == NULL && last != 0) {
        st = zb_error_set(err, ZB_EINVAL,
                          "import: column '%s' has string offsets up to %lld but no data "
                          "buffer",
                          nm, (long long)last);
        goto done;
      }
      if (!small) {
        st = wrap(h, src, (off + len + 1) * 8, &data, err);
        if (st != ZB_OK) break;
      }
      if (cbuf == NULL)
        st = zb_buffer_new_zeroed(ZB_CPU, 0, &chars, err);
      else
        st = wrap(h, cbuf, last, &chars, err);
      break;
    }
    case SRC_DICT:
      st = import_dict_codes(&d, a, h, nm, dict->length, bits, nulls, &data, &rebased, err);
      break;
    case SRC_LIST:
    case SRC_LARGE_LIST: {
      const bool small = d.kind == SRC_LIST;
      st = import_column(s->children[0], a->children[0], h, nm, &child, err);
      if (st != ZB_OK) goto done;
      if (src == NULL) {
        if (len != 0) {
          st = zb_error_set(err, ZB_EINVAL, "import: list column '%s' has no offsets", nm);
          goto done;
        }
        rebased = true;
        st = zb_buffer_new_zeroed(ZB_CPU, 8, &data, err);
        break;
      }
      int64_t prev = small ? ((const int32_t *)src)[off] : ((const int64_t *)src)[off];
      for (int64_t i = 0; !h->lists_checked && i <= len; i++) {
        int64_t o = small ? ((const int32_t *)src)[off + i] : ((const int64_t *)src)[off + i];
        if (o < prev || o < 0 || o > child->length) {
          st = zb_error_set(err, ZB_EINVAL,
                            "import: list column '%s' has offset %lld at row %lld outside its "
                            "%lld values or decreasing",
                            nm, (long long)o, (long long)i, (long long)child->length);
          goto done;
        }
        prev = o;
      }
      if (small) {
        rebased = true;
        st = zb_buffer_new(ZB_CPU, (len + 1) * 8, &data, err);
        if (st != ZB_OK) break;
        int64_t *o64 = (int64_t *)data->data;
        const int32_t *o32 = (const int32_t *)src + off;
        for (int64_t i = 0; i <= len; i++) o64[i] = o32[i];
      } else {
        st = wrap(h, src, (off + len + 1) * 8, &data, err);
      }
      break;
    }
  }
  if (st != ZB_OK) goto done;

  st = import_validity(h, bits, off, len, nulls, rebased, &validity, err);
  if (st != ZB_OK) goto done;
  if (d.type == ZB_LIST)
    st = zb_column_make_list(len, rebased ? 0 : off, validity, data, child, nulls, &col, err);
  else
    st = zb_column_make(d.type, len, rebased ? 0 : off, validity, data, chars, dict, nulls,
                        &col, err);
  if (st != ZB_OK) goto done;
  if (d.type == ZB_TIMESTAMP || d.type == ZB_DURATION) {
    st = zb_column_set_time(col, d.unit, d.tz[0] != '\0' ? d.tz : NULL, err);
    if (st != ZB_OK) goto done;
  }
  if (d.kind == SRC_DICT) {
    zb_column *folded = NULL;
    st = zb__fold_repeated_categories(col, &folded, err);
    if (st != ZB_OK) goto done;
    zb_column_release(col);
    col = folded;
  }
  *out = col;
  col = NULL;
done:
  zb_column_release(col);
  zb_buffer_release(validity);
  zb_buffer_release(data);
  zb_buffer_release(chars);
  zb_column_release(dict);
  zb_column_release(child);
  return st;
}

/* Move *array into a new holder (refcount 1: the importer's own). */
static zb_status holder_new(struct ArrowArray *array, import_holder **out, zb_error *err) {
  import_holder *h = (import_holder *)zb_malloc(sizeof *h);
  if (h == NULL)
    return zb_error_set(err, ZB_ENOMEM, "out of host memory importing an Arrow array");
  h->array = *array;
  h->refcount = 1;
  h->lists_checked = false;
  *out = h;
  return ZB_OK;
}

/* Finish an import: on success the caller's struct is marked released and
 * the importer's own reference dropped; on failure (everything built
 * already released, so only that reference remains) the array moves back
 * to the caller untouched. */
static void holder_finish(import_holder *h, struct ArrowArray *array, bool ok) {
  if (ok) {
    array->release = NULL;
    holder_unref(h);
  } else {
    *array = h->array;
    zb_free(h);
  }
}

zb_status zb_column_import_arrow(const struct ArrowSchema *schema, struct ArrowArray *array,
                                 zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "import: out is NULL");
  *out = NULL;
  if (schema == NULL || array == NULL)
    return zb_error_set(err, ZB_EINVAL, "import: schema or array is NULL");
  if (schema->release == NULL)
    return zb_error_set(err, ZB_EINVAL, "import: the schema is released");
  if (array->release == NULL)
    return zb_error_set(err, ZB_EINVAL, "import: the array is released");
  import_holder *h = NULL;
  ZB_RETURN_NOT_OK(holder_new(array, &h, err));
  zb_status st = import_column(schema, &h->array, h, import_name(schema, "<unnamed>"), out,
                               err);
  holder_finish(h, array, st == ZB_OK);
  return st;
}

/* A record batch schema: "+s" with named children, names unique. */
static zb_status check_struct_schema(const struct ArrowSchema *s, zb_error *err) {
  if (s == NULL || s->release == NULL)
    return zb_error_set(err, ZB_EINVAL, "import: the schema is NULL or released");
  if (s->format == NULL || strcmp(s->format, "+s") != 0)
    return zb_error_set(err, ZB_EINVAL,
                        "import: a table needs a struct ('+s') schema, got format '%s'",
                        s->format != NULL ? s->format : "(null)");
  if (s->n_children < 0 || (s->n_children > 0 && s->children == NULL))
    return zb_error_set(err, ZB_EINVAL, "import: struct schema has bad children");
  for (int64_t i = 0; i < s->n_children; i++) {
    if (s->children[i] == NULL)
      return zb_error_set(err, ZB_EINVAL, "import: struct schema child %lld is NULL",
                          (long long)i);
    const char *a = s->children[i]->name != NULL ? s->children[i]->name : "";
    for (int64_t j = 0; j < i; j++) {
      const char *b = s->children[j]->name != NULL ? s->children[j]->name : "";
      if (strcmp(a, b) == 0)
        return zb_error_set(err, ZB_EINVAL,
                            "import: duplicate column name '%s' (columns %lld and %lld)", a,
                            (long long)j, (long long)i);
    }
  }
  return ZB_OK;
}

static const char *child_name(const struct ArrowSchema *s, int64_t i) {
  return s->children[i]->name != NULL ? s->children[i]->name : "";
}

/* Columns of a struct array, sliced by the struct's own offset/length. */
static zb_status import_struct(const struct ArrowSchema *s, const struct ArrowArray *a,
                               import_holder *h, zb_table **out, zb_error *err) {
  zb_status st = ZB_OK;
  const int64_t n = s->n_children;
  if (a->n_children != n || (n > 0 && a->children == NULL))
    return zb_error_set(err, ZB_EINVAL,
                        "import: struct array has %lld children but its schema %lld",
                        (long long)a->n_children, (long long)n);
  if (a->length < 0 || a->offset < 0 || a->offset > INT64_MAX - a->length)
    return zb_error_set(err, ZB_EINVAL, "import: struct array has bad length or offset");
  if (a->n_buffers != 1 && a->n_buffers != 0)
    return zb_error_set(err, ZB_EINVAL, "import: struct array has %lld buffers, expected 1",
                        (long long)a->n_buffers);
  if (a->null_count != 0) {
    const uint8_t *bits = a->n_buffers > 0 && a->buffers != NULL
                              ? (const uint8_t *)a->buffers[0]
                              : NULL;
    int64_t nc = a->null_count;
    if (bits == NULL) nc = nc > 0 ? nc : 0;
    else if (nc < 0) nc = a->length - zb_bitmap_count(bits, a->offset, a->length);
    if (nc != 0)
      return zb_error_set(err, ZB_ENOTSUP,
                          "import: the record batch has %lld null rows at the struct level; "
                          "zambezi tables cannot represent them",
                          (long long)nc);
  }
  zb_column **cols = (zb_column **)zb_calloc((size_t)(n > 0 ? n : 1), sizeof(zb_column *));
  const char **names = (const char **)zb_calloc((size_t)(n > 0 ? n : 1), sizeof(char *));
  if (cols == NULL || names == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory importing a table of %lld columns",
                      (long long)n);
    goto done;
  }
  for (int64_t i = 0; i < n; i++) {
    const char *nm = child_name(s, i);
    names[i] = nm;
    const struct ArrowArray *ca = a->children[i];
    if (ca == NULL) {
      st = zb_error_set(err, ZB_EINVAL, "import: child array of column '%s' is NULL", nm);
      goto done;
    }
    zb_column *c = NULL;
    st = import_column(s->children[i], ca, h, nm[0] ? nm : "<unnamed>", &c, err);
    if (st != ZB_OK) goto done;
    if (c->length < a->offset + a->length) {
      zb_column_release(c);
      st = zb_error_set(err, ZB_EINVAL,
                        "import: column '%s' has %lld rows, fewer than the record batch's "
                        "%lld (+ offset %lld)",
                        nm, (long long)ca->length, (long long)a->length, (long long)a->offset);
      goto done;
    }
    if (a->offset != 0 || c->length != a->length) {
      zb_column *sl = NULL;
      st = zb_column_slice(c, a->offset, a->length, &sl, err);
      zb_column_release(c);
      if (st != ZB_OK) goto done;
      c = sl;
    }
    cols[i] = c;
  }
  st = zb_table_make(n, cols, names, out, err);
done:
  if (cols != NULL)
    for (int64_t i = 0; i < n; i++) zb_column_release(cols[i]);
  zb_free(cols);
  zb_free((void *)names);
  return st;
}

static zb_status table_import(const struct ArrowSchema *schema, struct ArrowArray *array,
                              bool lists_checked, zb_table **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "import: out is NULL");
  *out = NULL;
  ZB_RETURN_NOT_OK(check_struct_schema(schema, err));
  if (array == NULL || array->release == NULL)
    return zb_error_set(err, ZB_EINVAL, "import: the array is NULL or released");
  import_holder *h = NULL;
  ZB_RETURN_NOT_OK(holder_new(array, &h, err));
  h->lists_checked = lists_checked;
  zb_status st = import_struct(schema, &h->array, h, out, err);
  holder_finish(h, array, st == ZB_OK);
  return st;
}

zb_status zb_table_import_arrow(const struct ArrowSchema *schema, struct ArrowArray *array,
                                zb_table **out, zb_error *err) {
  return table_import(schema, array, false, out, err);
}

zb_status zb__table_import_arrow_checked(const struct ArrowSchema *schema,
                                         struct ArrowArray *array, zb_table **out, zb_error *err) {
  return table_import(schema, array, true, out, err);
}

/* ---- stream import ------------------------------------------------------ */

/* An empty column of the type a schema declares (for a stream with no
 * batches). */
static zb_status empty_column(const struct ArrowSchema *s, const char *nm, zb_column **out,
                              zb_error *err) {
  format_desc d;
  zb_status st;
  zb_buffer *data = NULL, *chars = NULL;
  zb_column *dict = NULL;
  *out = NULL;
  ZB_RETURN_NOT_OK(parse_format(s, nm, &d, err));
  if (d.type == ZB_LIST) {
    ZB_RETURN_NOT_OK(check_list_depth(s, nm, err));
    if (s->n_children != 1 || s->children == NULL || s->children[0] == NULL)
      return zb_error_set(err, ZB_EINVAL, "import: list column '%s' has no child schema", nm);
    ZB_RETURN_NOT_OK(empty_column(s->children[0], nm, &dict, err)); /* the child */
    st = zb_buffer_new_zeroed(ZB_CPU, 8, &data, err);
    if (st == ZB_OK) st = zb_column_make_list(0, 0, NULL, data, dict, 0, out, err);
    zb_buffer_release(data);
    zb_column_release(dict);
    return st;
  }
  if (d.type == ZB_STRING || d.type == ZB_CATEGORICAL) {
    st = zb_buffer_new_zeroed(ZB_CPU, 8, &data, err);
    if (st == ZB_OK) st = zb_buffer_new_zeroed(ZB_CPU, 0, &chars, err);
    if (st == ZB_OK && d.type == ZB_CATEGORICAL) {
      st = zb_column_make(ZB_STRING, 0, 0, NULL, data, chars, NULL, 0, &dict, err);
      zb_buffer_release(data);
      zb_buffer_release(chars);
      data = chars = NULL;
      if (st == ZB_OK) st = zb_buffer_new_zeroed(ZB_CPU, 0, &data, err);
    }
  } else {
    st = zb_buffer_new_zeroed(ZB_CPU, 0, &data, err);
  }
  if (st == ZB_OK) st = zb_column_make(d.type, 0, 0, NULL, data, chars, dict, 0, out, err);
  if (st == ZB_OK && (d.type == ZB_TIMESTAMP || d.type == ZB_DURATION)) {
    st = zb_column_set_time(*out, d.unit, d.tz[0] ? d.tz : NULL, err);
    if (st != ZB_OK) {
      zb_column_release(*out);
      *out = NULL;
    }
  }
  zb_buffer_release(data);
  zb_buffer_release(chars);
  zb_column_release(dict);
  return st;
}

static zb_status stream_error(struct ArrowArrayStream *s, const char *what, int rc,
                              zb_error *err) {
  const char *msg = s->get_last_error != NULL ? s->get_last_error(s) : NULL;
  return zb_error_set(err, rc == ENOMEM ? ZB_ENOMEM : ZB_EIO,
                      "Arrow stream %s failed (errno %d): %s", what, rc,
                      msg != NULL ? msg : "no message");
}

zb_status zb_table_import_stream(struct ArrowArrayStream *stream, zb_table **out,
                                 zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "import: out is NULL");
  *out = NULL;
  if (stream == NULL || stream->release == NULL)
    return zb_error_set(err, ZB_EINVAL, "import: the stream is NULL or released");
  zb_status st = ZB_OK;
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  zb_table **batches = NULL;
  int64_t nb = 0, cap = 0;
  zb_column **cols = NULL, **parts = NULL;
  const char **names = NULL;
  int64_t ncol = 0;

  int rc = stream->get_schema(stream, &schema);
  if (rc != 0) {
    st = stream_error(stream, "get_schema", rc, err);
    schema.release = NULL; /* a failed call leaves nothing to release */
    goto done;
  }
  st = check_struct_schema(&schema, err);
  if (st != ZB_OK) goto done;
  ncol = schema.n_children;

  for (;;) {
    struct ArrowArray batch;
    memset(&batch, 0, sizeof batch);
    rc = stream->get_next(stream, &batch);
    if (rc != 0) {
      st = stream_error(stream, "get_next", rc, err);
      goto done;
    }
    if (batch.release == NULL) break; /* end of stream */
    if (nb == cap) {
      int64_t ncap = cap ? cap * 2 : 8;
      zb_table **nbt = (zb_table **)zb_malloc((size_t)ncap * sizeof(zb_table *));
      if (nbt == NULL) {
        batch.release(&batch);
        st = zb_error_set(err, ZB_ENOMEM, "out of host memory reading an Arrow stream");
        goto done;
      }
      if (nb > 0) memcpy(nbt, batches, (size_t)nb * sizeof(zb_table *));
      zb_free(batches);
      batches = nbt;
      cap = ncap;
    }
    zb_table *t = NULL;
    st = zb_table_import_arrow(&schema, &batch, &t, err);
    if (st != ZB_OK) {
      if (batch.release != NULL) batch.release(&batch);
      goto done;
    }
    batches[nb++] = t;
  }

  if (nb == 1) {
    *out = batches[0];
    batches[0] = NULL;
    goto done;
  }
  cols = (zb_column **)zb_calloc((size_t)(ncol > 0 ? ncol : 1), sizeof(zb_column *));
  names = (const char **)zb_calloc((size_t)(ncol > 0 ? ncol : 1), sizeof(char *));
  parts = (zb_column **)zb_calloc((size_t)(nb > 0 ? nb : 1), sizeof(zb_column *));
  if (cols == NULL || names == NULL || parts == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory reading an Arrow stream");
    goto done;
  }
  for (int64_t j = 0; j < ncol; j++) {
    names[j] = child_name(&schema, j);
    if (nb == 0) {
      st = empty_column(schema.children[j], names[j][0] ? names[j] : "<unnamed>", &cols[j],
                        err);
    } else {
      for (int64_t b = 0; b < nb; b++) parts[b] = batches[b]->columns[j];
      st = zb_column_concat(parts, nb, &cols[j], err);
    }
    if (st != ZB_OK) goto done;
  }
  st = zb_table_make(ncol, cols, names, out, err);

done:
  if (cols != NULL)
    for (int64_t j = 0; j < ncol; j++) zb_column_release(cols[j]);
  zb_free(cols);
  zb_free((void *)names);
  zb_free(parts);
  for (int64_t b = 0; b < nb; b++) zb_table_release(batches[b]);
  zb_free(batches);
  if (schema.release != NULL) schema.release(&schema);
  if (stream->release != NULL) stream->release(stream);
  return st;
}
