/*
 * table.c -- immutable lists of named columns of one length on one device.
 *
 * Tables share their columns (reference counted); selecting or slicing a
 * table copies no column data.
 */
#include <string.h>

#include "core/internal.h"

static void table_free(zb_table *t) {
  if (t == NULL) return;
  for (int64_t i = 0; i < t->num_columns; i++) {
    if (t->columns) zb_column_release(t->columns[i]);
    if (t->names) zb_free(t->names[i]);
  }
  zb_free(t->columns);
  zb_free(t->names);
  zb_free(t);
}

zb_table *zb_table_retain(zb_table *t) {
  if (t != NULL) zb__atomic_inc(&t->refcount);
  return t;
}

void zb_table_release(zb_table *t) {
  if (t == NULL || zb__atomic_dec(&t->refcount) != 0) return;
  table_free(t);
}

/* Build a table that takes ownership of `columns` (new references). */
static zb_status table_adopt(int64_t n, zb_column **columns, const char *const *names,
                             zb_table **out, zb_error *err) {
  zb_status st = ZB_OK;
  zb_table *t = (zb_table *)zb_calloc(1, sizeof *t);
  if (t == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (table)");
    goto error;
  }
  t->refcount = 1;
  t->columns = columns;
  t->num_columns = n;
  columns = NULL;
  t->names = (char **)zb_calloc((size_t)(n > 0 ? n : 1), sizeof(char *));
  if (t->names == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (table names)");
    goto error;
  }
  for (int64_t i = 0; i < n; i++) {
    if ((t->names[i] = zb__strdup(names[i])) == NULL) {
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory (table names)");
      goto error;
    }
  }
  t->num_rows = n > 0 ? t->columns[0]->length : 0;
  *out = t;
  return ZB_OK;
error:
  if (columns != NULL) {
    for (int64_t i = 0; i < n; i++) zb_column_release(columns[i]);
    zb_free(columns);
  }
  table_free(t);
  return st;
}

/* ZB_EINVAL naming the first name that repeats an earlier one: pairwise
 * for a few names, through an open-addressing set of the names' hashes
 * for more (a wide JSON or CSV table has thousands). */
static zb_status check_unique_names(int64_t n, const char *const *names, zb_error *err) {
  if (n <= 16) {
    for (int64_t i = 1; i < n; i++)
      for (int64_t j = 0; j < i; j++)
        if (strcmp(names[i], names[j]) == 0)
          return zb_error_set(err, ZB_EINVAL, "duplicate column name '%s'", names[i]);
    return ZB_OK;
  }
  uint64_t cap = 64;
  while (cap < (uint64_t)n * 2) cap <<= 1;
  int64_t *slot = (int64_t *)zb_malloc(cap * sizeof(int64_t));
  if (slot == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (table names)");
  memset(slot, 0xff, cap * sizeof(int64_t)); /* -1: empty */
  zb_status st = ZB_OK;
  for (int64_t i = 0; i < n && st == ZB_OK; i++) {
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
    for (const unsigned char *c = (const unsigned char *)names[i]; *c; c++)
      h = (h ^ *c) * 0x100000001b3ULL;
    for (uint64_t k = h & (cap - 1);; k = (k + 1) & (cap - 1)) {
      if (slot[k] < 0) {
        slot[k] = i;
        break;
      }
      if (strcmp(names[slot[k]], names[i]) == 0) {
        st = zb_error_set(err, ZB_EINVAL, "duplicate column name '%s'", names[i]);
        break;
      }
    }
  }
  zb_free(slot);
  return st;
}

zb_status zb_table_make(int64_t num_columns, zb_column *const *columns,
                        const char *const *names, zb_table **out, zb_error *err) {
  *out = NULL;
  if (num_columns < 0) return zb_error_set(err, ZB_EINVAL, "negative column count");
  for (int64_t i = 0; i < num_columns; i++) {
    if (columns[i] == NULL || names[i] == NULL)
      return zb_error_set(err, ZB_EINVAL, "column %lld is missing or unnamed", (long long)i);
    if (columns[i]->length != columns[0]->length)
      return zb_error_set(err, ZB_EINVAL,
                          "column '%s' has %lld rows but column '%s' has %lld", names[i],
                          (long long)columns[i]->length, names[0],
                          (long long)columns[0]->length);
    if (!zb_device_equal(columns[i]->device, columns[0]->device))
      return zb_error_set(err, ZB_EINVAL, "column '%s' is on another device than column '%s'",
                          names[i], names[0]);
  }
  ZB_RETURN_NOT_OK(check_unique_names(num_columns, names, err));
  zb_column **cols = (zb_column **)zb_malloc((size_t)(num_columns > 0 ? num_columns : 1) *
                                             sizeof(zb_column *));
  if (cols == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (table)");
  for (int64_t i = 0; i < num_columns; i++) cols[i] = zb_column_retain(columns[i]);
  return table_adopt(num_columns, cols, names, out, err);
}

int64_t zb_table_find(const zb_table *t, const char *name) {
  for (int64_t i = 0; i < t->num_columns; i++)
    if (strcmp(t->names[i], name) == 0) return i;
  return -1;
}

zb_status zb_table_select(const zb_table *t, int64_t n, const int64_t *indices,
                          zb_table **out, zb_error *err) {
  *out = NULL;
  zb_status st = ZB_OK;
  const char **names = (const char **)zb_malloc((size_t)(n > 0 ? n : 1) * sizeof(char *));
  zb_column **cols = (zb_column **)zb_malloc((size_t)(n > 0 ? n : 1) * sizeof(zb_column *));
  if (names == NULL || cols == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (table)");
    goto done;
  }
  for (int64_t i = 0; i < n; i++) {
    if (indices[i] < 0 || indices[i] >= t->num_columns) {
      st = zb_error_set(err, ZB_EINDEX, "column index %lld out of range for %lld columns",
                        (long long)indices[i], (long long)t->num_columns);
      goto done;
    }
    names[i] = t->names[indices[i]];
    cols[i] = t->columns[indices[i]];
  }
  st = zb_table_make(n, cols, names, out, err);
  if (st == ZB_OK && n == 0) (*out)->num_rows = t->num_rows;
done:
  zb_free(names);
  zb_free(cols);
  return st;
}

/* Apply fn to every column, giving a table of the results. */
typedef zb_status (*column_map_fn)(const zb_column *in, const void *arg, zb_column **out,
                                   zb_error *err);

static zb_status table_map(const zb_table *t, column_map_fn fn, const void *arg,
                           zb_table **out, zb_error *err) {
  *out = NULL;
  int64_t n = t->num_columns;
  zb_column **cols = (zb_column **)zb_calloc((size_t)(n > 0 ? n : 1), sizeof(zb_column *));
  if (cols == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (table)");
  for (int64_t i = 0; i < n; i++) {
    zb_status st = fn(t->columns[i], arg, &cols[i], err);
    if (st != ZB_OK) {
      for (int64_t j = 0; j < i; j++) zb_column_release(cols[j]);
      zb_free(cols);
      return st;
    }
  }
  zb_status st = table_adopt(n, cols, (const char *const *)t->names, out, err);
  if (st == ZB_OK && n == 0) (*out)->num_rows = t->num_rows;
  return st;
}

struct slice_arg {
  int64_t start, length;
};

static zb_status slice_one(const zb_column *in, const void *arg, zb_column **out,
                           zb_error *err) {
  const struct slice_arg *a = (const struct slice_arg *)arg;
  return zb_column_slice(in, a->start, a->length, out, err);
}

static zb_status to_device_one(const zb_column *in, const void *arg, zb_column **out,
                               zb_error *err) {
  return zb_column_to_device(in, *(const zb_device *)arg, out, err);
}

zb_status zb_table_slice(const zb_table *t, int64_t start, int64_t length, zb_table **out,
                         zb_error *err) {
  if (start < 0 || length < 0)
    return zb_error_set(err, ZB_EINDEX, "invalid slice start %lld length %lld",
                        (long long)start, (long long)length);
  struct slice_arg a = {start, length};
  ZB_RETURN_NOT_OK(table_map(t, slice_one, &a, out, err));
  if (t->num_columns == 0) {
    int64_t s = ZB_MIN(start, t->num_rows);
    (*out)->num_rows = ZB_MIN(length, t->num_rows - s);
  }
  return ZB_OK;
}

zb_status zb_table_to_device(const zb_table *t, zb_device device, zb_table **out,
                             zb_error *err) {
  return table_map(t, to_device_one, &device, out, err);
}

zb_device zb_table_device(const zb_table *t) {
  return t->num_columns > 0 ? t->columns[0]->device : ZB_CPU;
}

int64_t zb_table_nbytes(const zb_table *t) {
  int64_t bytes = 0;
  for (int64_t c = 0; t != NULL && c < t->num_columns; c++)
    bytes += zb_column_nbytes(t->columns[c]);
  return bytes;
}
