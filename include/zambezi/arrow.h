/*
 * arrow.h -- the Arrow C Data Interface and C Stream Interface for zambezi.
 *
 * The ABI structs are written from the Arrow specification ("The Arrow C
 * data interface", "The Arrow C stream interface") and guarded by the same
 * macros as every other implementation, so this header can sit beside
 * arrow/c/abi.h or nanoarrow.h in one translation unit.
 *
 * Export: the produced structs own references to zambezi buffers; the
 * consumer calls their release callbacks.  Import: zambezi moves the given
 * ArrowArray (the caller's struct is marked released) and keeps it alive for
 * as long as any column shares its buffers; the ArrowSchema is only read.
 */
#ifndef ZAMBEZI_ARROW_H
#define ZAMBEZI_ARROW_H

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  const char *format;
  const char *name;
  const char *metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema **children;
  struct ArrowSchema *dictionary;
  void (*release)(struct ArrowSchema *);
  void *private_data;
};

struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void **buffers;
  struct ArrowArray **children;
  struct ArrowArray *dictionary;
  void (*release)(struct ArrowArray *);
  void *private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
  int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
  const char *(*get_last_error)(struct ArrowArrayStream *);
  void (*release)(struct ArrowArrayStream *);
  void *private_data;
};

#endif /* ARROW_C_STREAM_INTERFACE */

#ifndef ARROW_C_DEVICE_DATA_INTERFACE
#define ARROW_C_DEVICE_DATA_INTERFACE

#define ARROW_DEVICE_CPU 1
#define ARROW_DEVICE_CUDA 2
#define ARROW_DEVICE_CUDA_HOST 3
#define ARROW_DEVICE_OPENCL 4
#define ARROW_DEVICE_VULKAN 7
#define ARROW_DEVICE_METAL 8
#define ARROW_DEVICE_VPI 9
#define ARROW_DEVICE_ROCM 10
#define ARROW_DEVICE_ROCM_HOST 11
#define ARROW_DEVICE_EXT_DEV 12
#define ARROW_DEVICE_CUDA_MANAGED 13
#define ARROW_DEVICE_ONEAPI 14
#define ARROW_DEVICE_WEBGPU 15
#define ARROW_DEVICE_HEXAGON 16

typedef int32_t ArrowDeviceType;

struct ArrowDeviceArray {
  struct ArrowArray array;
  int64_t device_id;
  ArrowDeviceType device_type;
  void *sync_event;
  int64_t reserved[3];
};

#endif /* ARROW_C_DEVICE_DATA_INTERFACE */

/* Export one host column as a (schema, array) pair named `name` (may be
 * NULL).  On success both structs are owned by the caller (release them);
 * on failure both are left released (release == NULL). */
ZB_API zb_status zb_column_export_arrow(const zb_column *col, const char *name,
                                        struct ArrowSchema *schema,
                                        struct ArrowArray *array, zb_error *err);
/* Export one column, on any device, through the C Device Data Interface:
 * the array's buffers are the column's own (device memory for a GPU
 * column; device_type ARROW_DEVICE_CUDA, or ARROW_DEVICE_CPU with
 * device_id -1).  Device work is finished before it returns, so
 * sync_event is NULL.  Ownership as zb_column_export_arrow. */
ZB_API zb_status zb_column_export_device_arrow(const zb_column *col, const char *name,
                                               struct ArrowSchema *schema,
                                               struct ArrowDeviceArray *array,
                                               zb_error *err);
/* Export only the schema of a column (on any device). */
ZB_API zb_status zb_column_export_schema(const zb_column *col, const char *name,
                                         struct ArrowSchema *schema, zb_error *err);

/* Import one array described by schema.  Moves *array (its release is set
 * to NULL on success); on failure *array is untouched and still owned by the
 * caller.  Zero-copy where the layout is zambezi's; 32-bit string offsets
 * and non-int32 dictionary indices are widened/narrowed into new buffers. */
ZB_API zb_status zb_column_import_arrow(const struct ArrowSchema *schema,
                                        struct ArrowArray *array, zb_column **out,
                                        zb_error *err);

/* Export a host table as a record batch (struct array with one child per
 * column). */
ZB_API zb_status zb_table_export_arrow(const zb_table *t, struct ArrowSchema *schema,
                                       struct ArrowArray *array, zb_error *err);
ZB_API zb_status zb_table_export_schema(const zb_table *t, struct ArrowSchema *schema,
                                        zb_error *err);
/* The same, with schema metadata: metadata_size bytes at metadata in the C
 * Data Interface's encoding (an int32 count of pairs, then per pair an
 * int32 length and the key's bytes, an int32 length and the value's bytes,
 * native byte order), copied into the export; NULL and 0 for none.
 * ZB_EINVAL when the bytes are not of that shape.  (pandas' index travels
 * this way, under the key "pandas".) */
ZB_API zb_status zb_table_export_schema_with_metadata(const zb_table *t, const void *metadata,
                                                      int64_t metadata_size,
                                                      struct ArrowSchema *schema,
                                                      zb_error *err);
/* Import a struct array (record batch); moves *array as above. */
ZB_API zb_status zb_table_import_arrow(const struct ArrowSchema *schema,
                                       struct ArrowArray *array, zb_table **out,
                                       zb_error *err);

/* A stream yielding the table as one record batch (possibly of length 0).
 * On success *out is owned by the caller. */
ZB_API zb_status zb_table_export_stream(const zb_table *t, struct ArrowArrayStream *out,
                                        zb_error *err);
/* The same, the stream's schema carrying metadata (see
 * zb_table_export_schema_with_metadata; the bytes are copied). */
ZB_API zb_status zb_table_export_stream_with_metadata(const zb_table *t, const void *metadata,
                                                      int64_t metadata_size,
                                                      struct ArrowArrayStream *out,
                                                      zb_error *err);
/* Read a whole stream into one table (batches concatenated).  The stream is
 * released before returning, on success and on failure. */
ZB_API zb_status zb_table_import_stream(struct ArrowArrayStream *stream, zb_table **out,
                                        zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_ARROW_H */
