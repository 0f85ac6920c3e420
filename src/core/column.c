/*
 * column.c -- immutable Arrow-layout columns: assembly with checks, builders,
 * reference counting, zero-copy slices and moves between devices.
 *
 * Invariants of a column handed to anyone else:
 *   - every buffer lives on col->device and is large enough for
 *     offset + length elements;
 *   - validity == NULL implies null_count == 0, and null_count equals the
 *     number of cleared bits in [offset, offset + length);
 *   - a string column's offsets are non-decreasing and end within chars;
 *   - a categorical's dictionary is a null-free column of a flat type (not
 *     categorical or list) on the same device, whose values are distinct
 *     (engine ops compare categoricals by code; Arrow import folds repeated
 *     strings, and zb_column_make cannot afford to check it); its `ordered`
 *     flag is the categorical's.
 */
#include <string.h>

#include "core/internal.h"
#include "core/values.h"

int64_t zb_bitmap_count(const uint8_t *bits, int64_t start, int64_t length) {
  int64_t count = 0, i = start, end = start + length;
  while (i < end && (i & 7) != 0) count += zb_bit_get(bits, i++);
  while (i + 64 <= end) {
    uint64_t w;
    memcpy(&w, bits + (i >> 3), 8);
    count += __builtin_popcountll(w);
    i += 64;
  }
  while (i + 8 <= end) {
    count += __builtin_popcount(bits[i >> 3]);
    i += 8;
  }
  while (i < end) count += zb_bit_get(bits, i++);
  return count;
}

static int64_t bitmap_bytes(int64_t bits) { return (bits + 7) / 8; }

/* Bytes the data buffer needs for `n` physical elements. */
static int64_t data_bytes(zb_type_id type, int64_t n) {
  if (type == ZB_BOOL) return bitmap_bytes(n);
  if (type == ZB_STRING || type == ZB_LIST) return (n + 1) * 8;
  return n * zb_type_width(type);
}

static zb_column *column_alloc(void) {
  zb_column *col = (zb_column *)zb_calloc(1, sizeof *col);
  if (col != NULL) {
    col->refcount = 1;
    col->device = ZB_CPU;
  }
  return col;
}

zb_column *zb_column_retain(zb_column *col) {
  if (col != NULL) zb__atomic_inc(&col->refcount);
  return col;
}

void zb_column_release(zb_column *col) {
  if (col == NULL || zb__atomic_dec(&col->refcount) != 0) return;
  zb_buffer_release(col->validity);
  zb_buffer_release(col->data);
  zb_buffer_release(col->chars);
  zb_column_release(col->dictionary);
  zb_column_release(col->child);
  zb_free(col->timezone);
  zb_free(col);
}

zb_status zb_column_make(zb_type_id type, int64_t length, int64_t offset,
                         zb_buffer *validity, zb_buffer *data, zb_buffer *chars,
                         zb_column *dictionary, int64_t null_count, zb_column **out,
                         zb_error *err) {
  *out = NULL;
  if ((int)type < 0 || type >= ZB_TYPE_COUNT)
    return zb_error_set(err, ZB_ETYPE, "invalid type id %d", (int)type);
  if (type == ZB_LIST)
    return zb_error_set(err, ZB_EINVAL, "a list column is made by zb_column_make_list");
  if (length < 0 || offset < 0 || length > INT64_MAX / 16 - offset)
    return zb_error_set(err, ZB_EINVAL, "invalid column length %lld / offset %lld",
                        (long long)length, (long long)offset);
  if (data == NULL)
    return zb_error_set(err, ZB_EINVAL, "a %s column needs a data buffer", zb_type_name(type));
  zb_device dev = data->device;
  int64_t n = offset + length;
  if (data->size < data_bytes(type, n))
    return zb_error_set(err, ZB_EINVAL,
                        "%s data buffer holds %lld bytes; %lld elements need %lld",
                        zb_type_name(type), (long long)data->size, (long long)n,
                        (long long)data_bytes(type, n));
  if (validity != NULL) {
    if (!zb_device_equal(validity->device, dev))
      return zb_error_set(err, ZB_EINVAL, "validity and data buffers on different devices");
    if (validity->size < bitmap_bytes(n))
      return zb_error_set(err, ZB_EINVAL, "validity bitmap holds %lld bytes; %lld rows need %lld",
                          (long long)validity->size, (long long)n, (long long)bitmap_bytes(n));
  }
  if (type == ZB_STRING) {
    if (chars == NULL)
      return zb_error_set(err, ZB_EINVAL, "a string column needs a character buffer");
    if (!zb_device_equal(chars->device, dev))
      return zb_error_set(err, ZB_EINVAL, "string offsets and characters on different devices");
    if (dev.kind == ZB_DEVICE_CPU) {
      const int64_t *offs = (const int64_t *)data->data;
      if (offs[offset] < 0 || offs[offset] > offs[n] || offs[n] > chars->size)
        return zb_error_set(err, ZB_EINVAL,
                            "string offsets [%lld, %lld] outside the %lld character bytes",
                            (long long)offs[offset], (long long)offs[n],
                            (long long)chars->size);
    }
  } else if (chars != NULL) {
    return zb_error_set(err, ZB_EINVAL, "only string columns have a character buffer");
  }
  if (type == ZB_CATEGORICAL) {
    if (dictionary == NULL || dictionary->type == ZB_CATEGORICAL ||
        dictionary->type == ZB_LIST || dictionary->null_count != 0)
      return zb_error_set(err, ZB_EINVAL,
                          "a categorical column needs a dictionary of a flat type (not "
                          "categorical or list) without nulls");
    if (!zb_device_equal(dictionary->device, dev))
      return zb_error_set(err, ZB_EINVAL, "categorical codes and dictionary on different devices");
  } else if (dictionary != NULL) {
    return zb_error_set(err, ZB_EINVAL, "only categorical columns have a dictionary");
  }
  if (validity == NULL) {
    if (null_count > 0)
      return zb_error_set(err, ZB_EINVAL, "null count %lld without a validity bitmap",
                          (long long)null_count);
    null_count = 0;
  } else if (null_count < 0) {
    if (dev.kind != ZB_DEVICE_CPU)
      return zb_error_set(err, ZB_EINVAL, "the null count of a device column must be given");
    null_count = length - zb_bitmap_count((const uint8_t *)validity->data, offset, length);
  } else if (null_count > length) {
    return zb_error_set(err, ZB_EINVAL, "null count %lld exceeds length %lld",
                        (long long)null_count, (long long)length);
  }
  zb_column *col = column_alloc();
  if (col == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (column)");
  col->type = type;
  col->unit = ZB_MICRO;
  col->length = length;
  col->offset = offset;
  col->null_count = null_count;
  col->device = dev;
  /* A bitmap with no nulls is dropped: null_count == 0 <=> validity == NULL
   * is what every kernel's fast path tests. */
  col->validity = null_count > 0 ? zb_buffer_retain(validity) : NULL;
  col->data = zb_buffer_retain(data);
  col->chars = zb_buffer_retain(chars);
  col->dictionary = zb_column_retain(dictionary);
  *out = col;
  return ZB_OK;
}

zb_status zb_column_make_list(int64_t length, int64_t offset, zb_buffer *validity,
                              zb_buffer *offsets, zb_column *child, int64_t null_count,
                              zb_column **out, zb_error *err) {
  *out = NULL;
  if (child == NULL) return zb_error_set(err, ZB_EINVAL, "a list column needs a child column");
  /* Lists of lists nest to any depth the recursive kernels can afford:
   * ZB_LIST_MAX_DEPTH levels (a deeper Arrow schema is refused on import). */
  int depth = 1;
  for (const zb_column *c = child; c != NULL && c->type == ZB_LIST; c = c->child)
    if (++depth > ZB_LIST_MAX_DEPTH)
      return zb_error_set(err, ZB_ENOTSUP, "lists nested deeper than %d levels are not supported",
                          ZB_LIST_MAX_DEPTH);
  if (offsets == NULL)
    return zb_error_set(err, ZB_EINVAL, "a list column needs an offsets buffer");
  if (!zb_device_equal(offsets->device, child->device))
    return zb_error_set(err, ZB_EINVAL, "list offsets and child on different devices");
  /* checks of lengths, bitmap and devices: as a string column without chars */
  zb_column *col = NULL;
  ZB_RETURN_NOT_OK(zb_column_make(ZB_INT64, length, offset, validity, offsets, NULL, NULL,
                                  null_count, &col, err));
  if (offsets->size < (offset + length + 1) * 8) {
    zb_column_release(col);
    return zb_error_set(err, ZB_EINVAL, "list offsets hold %lld bytes; %lld rows need %lld",
                        (long long)offsets->size, (long long)length,
                        (long long)((offset + length + 1) * 8));
  }
  if (offsets->device.kind == ZB_DEVICE_CPU) {
    const int64_t *o = (const int64_t *)offsets->data;
    if (o[offset] < 0 || o[offset] > o[offset + length] || o[offset + length] > child->length) {
      zb_column_release(col);
      return zb_error_set(err, ZB_EINVAL, "list offsets [%lld, %lld] outside the %lld child rows",
                          (long long)o[offset], (long long)o[offset + length],
                          (long long)child->length);
    }
  }
  col->type = ZB_LIST;
  col->child = zb_column_retain(child);
  *out = col;
  return ZB_OK;
}

zb_status zb_column_set_time(zb_column *col, zb_time_unit unit, const char *tz,
                             zb_error *err) {
  if (col->type != ZB_TIMESTAMP &&
      !((col->type == ZB_DATE32 || col->type == ZB_DURATION) && tz == NULL))
    return zb_error_set(err, ZB_ETYPE, "a %s column has no time unit", zb_type_name(col->type));
  if ((int)unit < ZB_SECOND || unit > ZB_NANO)
    return zb_error_set(err, ZB_EINVAL, "invalid time unit %d", (int)unit);
  char *copy = NULL;
  if (tz != NULL) {
    copy = zb__strdup(tz);
    if (copy == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (timezone)");
  }
  zb_free(col->timezone);
  col->timezone = copy;
  col->unit = unit;
  return ZB_OK;
}

zb_status zb__column_retag(const zb_column *col, zb_type_id type, zb_time_unit unit,
                           const char *tz, zb_column **out, zb_error *err) {
  *out = NULL;
  if (zb_type_width(type) != zb_type_width(zb__physical(col->type)) || col->chars != NULL ||
      col->type == ZB_LIST || type == ZB_LIST)
    return zb_error_set(err, ZB_ETYPE, "cannot view a %s column as %s", zb_type_name(col->type),
                        zb_type_name(type));
  ZB_RETURN_NOT_OK(zb_column_make(type, col->length, col->offset, col->validity, col->data, NULL,
                                  NULL, col->null_count, out, err));
  if (type == ZB_TIMESTAMP || type == ZB_DURATION) {
    zb_status st = zb_column_set_time(*out, unit, type == ZB_TIMESTAMP ? tz : NULL, err);
    if (st != ZB_OK) {
      zb_column_release(*out);
      *out = NULL;
      return st;
    }
  }
  return ZB_OK;
}

zb_status zb__duration_to_unit(const zb_column *col, zb_time_unit unit, zb_column **out,
                               zb_error *err) {
  *out = NULL;
  if (col->unit == unit) {
    *out = zb_column_retain((zb_column *)col);
    return ZB_OK;
  }
  /* unit scaling is the timestamp cast's: through a naive timestamp view */
  zb_column *ts = NULL, *cast = NULL;
  zb_status st = zb__column_retag(col, ZB_TIMESTAMP, col->unit, NULL, &ts, err);
  if (st == ZB_OK) st = zb_column_cast(ts, ZB_TIMESTAMP, unit, &cast, err);
  if (st == ZB_OK) st = zb__column_retag(cast, ZB_DURATION, unit, NULL, out, err);
  zb_column_release(ts);
  zb_column_release(cast);
  return st;
}

zb_status zb_column_new(zb_type_id type, int64_t length, bool with_validity,
                        int64_t chars_size, zb_column **out, zb_error *err) {
  *out = NULL;
  if ((int)type < 0 || type >= ZB_TYPE_COUNT)
    return zb_error_set(err, ZB_ETYPE, "invalid type id %d", (int)type);
  if (type == ZB_LIST)
    return zb_error_set(err, ZB_EINVAL, "a list column is made by zb_column_make_list");
  if (length < 0 || length > INT64_MAX / 16 || chars_size < 0)
    return zb_error_set(err, ZB_EINVAL, "invalid column length %lld", (long long)length);
  zb_column *col = column_alloc();
  if (col == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (column)");
  col->type = type;
  col->unit = ZB_MICRO;
  col->length = length;
  zb_status st = zb_buffer_new(ZB_CPU, data_bytes(type, length), &col->data, err);
  if (st == ZB_OK && type == ZB_STRING) {
    st = zb_buffer_new(ZB_CPU, chars_size, &col->chars, err);
    if (st == ZB_OK) ((int64_t *)col->data->data)[0] = 0;
  }
  if (st == ZB_OK && with_validity) {
    st = zb_buffer_new(ZB_CPU, bitmap_bytes(length), &col->validity, err);
    if (st == ZB_OK) memset(col->validity->data, 0xff, (size_t)bitmap_bytes(length));
  }
  if (st != ZB_OK) {
    zb_column_release(col);
    return st;
  }
  *out = col;
  return ZB_OK;
}

void zb_column_recount_nulls(zb_column *col) {
  if (col->validity == NULL) {
    col->null_count = 0;
    return;
  }
  col->null_count =
      col->length - zb_bitmap_count((const uint8_t *)col->validity->data, col->offset, col->length);
  if (col->null_count == 0) {
    zb_buffer_release(col->validity);
    col->validity = NULL;
  }
}

int64_t zb_column_nbytes(const zb_column *col) {
  if (col == NULL) return 0;
  int64_t n = col->length, bytes = col->validity != NULL ? (n + 7) / 8 : 0;
  if (col->type == ZB_BOOL) return bytes + (n + 7) / 8;
  if (col->type == ZB_LIST) /* the offsets and the whole child */
    return bytes + (n + 1) * (int64_t)sizeof(int64_t) + zb_column_nbytes(col->child);
  if (col->type != ZB_STRING) {
    bytes += n * zb_type_width(col->type);
    if (col->dictionary != NULL) bytes += zb_column_nbytes(col->dictionary);
    return bytes;
  }
  bytes += (n + 1) * (int64_t)sizeof(int64_t);
  if (col->chars == NULL) return bytes;
  if (col->device.kind != ZB_DEVICE_CPU) return bytes + col->chars->size;
  const int64_t *o = (const int64_t *)col->data->data + col->offset;
  return bytes + (o[n] - o[0]);
}

zb_status zb_column_slice(const zb_column *col, int64_t start, int64_t length,
                          zb_column **out, zb_error *err) {
  *out = NULL;
  if (start < 0 || length < 0)
    return zb_error_set(err, ZB_EINDEX, "invalid slice start %lld length %lld",
                        (long long)start, (long long)length);
  if (start > col->length) start = col->length;
  if (length > col->length - start) length = col->length - start;
  int64_t nulls = 0;
  if (col->validity != NULL) {
    if (col->device.kind == ZB_DEVICE_CPU)
      nulls = length - zb_bitmap_count((const uint8_t *)col->validity->data,
                                       col->offset + start, length);
    else if (start == 0 && length == col->length)
      nulls = col->null_count;
    else
      nulls = -1;
  }
  zb_column *s = column_alloc();
  if (s == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (column)");
  s->type = col->type;
  s->unit = col->unit;
  s->length = length;
  s->offset = col->offset + start;
  s->device = col->device;
  if (col->timezone != NULL && (s->timezone = zb__strdup(col->timezone)) == NULL) {
    zb_free(s);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (timezone)");
  }
  if (nulls < 0) {
    /* Device slice of a column with nulls: count on the device's backend
     * is not available yet, so keep the bitmap and count through the host. */
    int64_t lo = s->offset / 8, hi = (s->offset + length + 7) / 8;
    uint8_t *tmp = (uint8_t *)zb_malloc((size_t)(hi - lo + 1));
    zb_status st = tmp == NULL ? zb_error_set(err, ZB_ENOMEM, "out of host memory") : ZB_OK;
    if (st == ZB_OK)
      st = zb__backend_for(col->device.kind)
               ->copy_to_host(col->device.id, tmp, (const uint8_t *)col->validity->data + lo,
                              hi - lo, err);
    if (st == ZB_OK) nulls = length - zb_bitmap_count(tmp, s->offset - lo * 8, length);
    zb_free(tmp);
    if (st != ZB_OK) {
      zb_column_release(s);
      return st;
    }
  }
  s->null_count = nulls;
  s->validity = nulls > 0 ? zb_buffer_retain(col->validity) : NULL;
  s->data = zb_buffer_retain(col->data);
  s->chars = zb_buffer_retain(col->chars);
  s->dictionary = zb_column_retain(col->dictionary);
  s->child = zb_column_retain(col->child);
  s->ordered = col->ordered;
  *out = s;
  return ZB_OK;
}

/* Copy bytes [lo, hi) of src into a new buffer on device. */
static zb_status copy_range(const zb_buffer *src, int64_t lo, int64_t hi, zb_device device,
                            zb_buffer **out, zb_error *err) {
  if (lo == 0 && hi >= src->size) return zb_buffer_copy_to(src, device, out, err);
  zb_buffer view = *src;
  view.data = (char *)src->data + lo;
  view.size = hi - lo;
  return zb_buffer_copy_to(&view, device, out, err);
}

zb_status zb_column_to_device(const zb_column *col, zb_device device, zb_column **out,
                              zb_error *err) {
  *out = NULL;
  if (zb_device_equal(col->device, device)) {
    *out = zb_column_retain((zb_column *)col);
    return ZB_OK;
  }
  ZB_PROFILE_SPAN("to_device", NULL, true, col->device, device, col->length);
  /* Copy only the rows of the column: keep offset % 8 so bitmaps need no shift. */
  int64_t shift = col->offset % 8, first = col->offset - shift;
  int64_t n = shift + col->length;
  zb_column *c = column_alloc();
  if (c == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (column)");
  c->type = col->type;
  c->unit = col->unit;
  c->length = col->length;
  c->offset = shift;
  c->null_count = col->null_count;
  c->device = device;
  c->ordered = col->ordered;
  zb_status st = ZB_OK;
  if (col->timezone != NULL && (c->timezone = zb__strdup(col->timezone)) == NULL)
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (timezone)");
  if (st == ZB_OK && col->validity != NULL)
    st = copy_range(col->validity, first / 8, first / 8 + bitmap_bytes(n), device, &c->validity,
                    err);
  if (st == ZB_OK) {
    int64_t lo, hi;
    if (col->type == ZB_BOOL) {
      lo = first / 8;
      hi = lo + bitmap_bytes(n);
    } else if (col->type == ZB_STRING || col->type == ZB_LIST) {
      lo = first * 8;
      hi = (first + n + 1) * 8;
    } else {
      lo = first * zb_type_width(col->type);
      hi = (first + n) * zb_type_width(col->type);
    }
    st = copy_range(col->data, lo, hi, device, &c->data, err);
  }
  if (st == ZB_OK && col->chars != NULL) st = zb_buffer_copy_to(col->chars, device, &c->chars, err);
  if (st == ZB_OK && col->dictionary != NULL)
    st = zb_column_to_device(col->dictionary, device, &c->dictionary, err);
  if (st == ZB_OK && col->child != NULL)
    st = zb_column_to_device(col->child, device, &c->child, err);
  if (st != ZB_OK) {
    zb_column_release(c);
    return st;
  }
  *out = c;
  return ZB_OK;
}

zb_status zb_column_dictionary_ordered(zb_column *dict, bool ordered, zb_column **out,
                                       zb_error *err) {
  *out = NULL;
  if ((dict->ordered != 0) == ordered) {
    *out = zb_column_retain(dict);
    return ZB_OK;
  }
  zb_column *c = NULL;
  ZB_RETURN_NOT_OK(zb_column_slice(dict, 0, dict->length, &c, err));
  c->ordered = ordered ? 1 : 0;
  *out = c;
  return ZB_OK;
}

bool zb_column_is_ordered(const zb_column *col) {
  return col->type == ZB_CATEGORICAL && col->dictionary != NULL && col->dictionary->ordered != 0;
}
