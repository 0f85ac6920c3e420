/*
 * zambezi.h -- the public C API of the zambezi engine.
 *
 * Everything a C program (or the Python extension) needs: status codes and
 * error messages, the counting allocator, reference-counted buffers tagged
 * with their device, Arrow-layout columns and tables, the thread pool, the
 * device registry and the operations.  Every function returns a zb_status
 * (ZB_OK == 0) and takes an optional zb_error * that receives a message on
 * failure.  No function aborts, exits or prints.
 *
 * Ownership: functions named *_new / *_make / *_import return a new reference
 * in *out which the caller releases with the matching *_release.  *_retain
 * adds a reference.  On failure *out is left NULL and nothing is leaked.
 * Inputs are borrowed unless a comment says otherwise.
 */
#ifndef ZAMBEZI_H
#define ZAMBEZI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define ZB_API __declspec(dllexport)
#else
#define ZB_API __attribute__((visibility("default")))
#endif

#define ZB_VERSION_STRING "0.1.0"

/* ------------------------------------------------------------------------ */
/* Status and errors                                                        */
/* ------------------------------------------------------------------------ */

typedef int zb_status;

enum {
  ZB_OK = 0,
  ZB_EINVAL = 1,     /* bad argument value            -> ValueError */
  ZB_ETYPE = 2,      /* wrong dtype for the operation -> TypeError */
  ZB_ENOMEM = 3,     /* host or device out of memory  -> MemoryError */
  ZB_EINDEX = 4,     /* position out of range         -> IndexError */
  ZB_EKEY = 5,       /* unknown column name           -> KeyError */
  ZB_ENOTSUP = 6,    /* not supported (yet/here)      -> NotImplementedError */
  ZB_EDEVICE = 7,    /* CUDA / device failure         -> ZambeziError */
  ZB_EIO = 8,        /* file or stream failure        -> OSError */
  ZB_EOVERFLOW = 9,  /* value does not fit            -> OverflowError */
  ZB_ECANCEL = 10,   /* interrupted                   -> KeyboardInterrupt */
  ZB_EPARSE = 11,    /* malformed input data          -> ValueError */
  ZB_ENODEVICE = 12, /* no such device (e.g. no GPU)  -> ZambeziError */
  ZB_STATUS_COUNT
};

#define ZB_ERROR_MESSAGE_SIZE 1024

/* Optional message holder: every function accepting a zb_error * may be
 * given NULL.  On failure the message names what was wrong. */
typedef struct zb_error {
  char message[ZB_ERROR_MESSAGE_SIZE];
} zb_error;

/* Fill err (if not NULL) with a printf-style message; returns code. */
ZB_API zb_status zb_error_set(zb_error *err, zb_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The symbolic name of a status code, e.g. "ZB_ENOMEM". */
ZB_API const char *zb_status_name(zb_status code);

/* Propagate a non-OK status. */
#define ZB_RETURN_NOT_OK(expr)                                                  \
  do {                                                                          \
    zb_status zb__st = (expr);                                                  \
    if (zb__st != ZB_OK) return zb__st;                                         \
  } while (0)

/* ------------------------------------------------------------------------ */
/* Devices                                                                  */
/* ------------------------------------------------------------------------ */

typedef enum zb_device_kind { ZB_DEVICE_CPU = 0, ZB_DEVICE_CUDA = 1 } zb_device_kind;

typedef struct zb_device {
  zb_device_kind kind;
  int id; /* 0 for the CPU; the CUDA ordinal otherwise */
} zb_device;

ZB_API extern const zb_device ZB_CPU;

static inline bool zb_device_equal(zb_device a, zb_device b) {
  return a.kind == b.kind && a.id == b.id;
}

typedef struct zb_device_info {
  zb_device device;
  char name[256];
  int64_t total_memory;  /* bytes */
  int64_t free_memory;   /* bytes, at the time of the query */
  int cores;             /* CPU: usable cores; CUDA: multiprocessors */
  int cc_major, cc_minor;/* CUDA compute capability */
  int driver_version;    /* CUDA: e.g. 13000; 0 if unknown */
  int runtime_version;   /* CUDA runtime linked in; 0 if none */
} zb_device_info;

/* Number of usable CUDA devices: 0 when the build has no CUDA backend, no
 * driver is installed or no device is present (never an error).  Devices
 * keep their CUDA ordinals: cuda:N is CUDA device N, so with an old GPU in
 * between the usable ordinals need not be 0 .. count-1 (ask
 * zb_cuda_device_usable). */
ZB_API int zb_cuda_device_count(void);

/* Number of CUDA devices the runtime reports, usable or not (0 without
 * CUDA); ordinals run from 0 to this minus one. */
ZB_API int zb_cuda_device_total(void);

/* True if CUDA device `ordinal` is one zambezi can use. */
ZB_API bool zb_cuda_device_usable(int ordinal);

/* Why CUDA device `ordinal` is left out, in words ("" when it is usable). */
ZB_API const char *zb_cuda_device_left_out_reason(int ordinal);

/* The lowest usable CUDA ordinal (what plain "cuda" means), -1 if none. */
ZB_API int zb_cuda_default_device(void);

/* Why zb_cuda_device_count() is 0, in words ("" when it is not). */
ZB_API const char *zb_cuda_unavailable_reason(void);

/* True if the CUDA backend was compiled into this build. */
ZB_API bool zb_cuda_compiled(void);

/* Architectures the CUDA backend was compiled for, e.g. "80;90". */
ZB_API const char *zb_cuda_architectures(void);

/* Fill *out for the device; ZB_ENODEVICE for an unknown device. */
ZB_API zb_status zb_device_get_info(zb_device device, zb_device_info *out, zb_error *err);

/* ------------------------------------------------------------------------ */
/* Allocator                                                                */
/* ------------------------------------------------------------------------ */

/* All engine memory, host and device, is counted here. */
typedef struct zb_alloc_stats {
  int64_t host_bytes;       /* bytes currently allocated on the host */
  int64_t host_allocations; /* live host allocations */
  int64_t host_peak_bytes;  /* high-water mark since the last reset */
  int64_t device_bytes;     /* bytes currently allocated on all GPUs */
  int64_t device_allocations;
  int64_t device_peak_bytes;
  int64_t total_allocations; /* allocations ever made (host + device) */
  int64_t host_cached_bytes; /* freed large host blocks kept for reuse */
} zb_alloc_stats;

ZB_API void zb_alloc_get_stats(zb_alloc_stats *out);
ZB_API void zb_alloc_reset_peak(void);
/* Give the freed host blocks kept for reuse back to the system. */
ZB_API void zb_alloc_trim(void);

/* Fault injection: the n-th allocation from now (1 = the next one), host or
 * device, fails as if memory were exhausted.  n <= 0 disables.  Returns the
 * number of allocations that were still to go before the previous setting
 * fired (0 if it had fired or was disabled). */
ZB_API int64_t zb_alloc_fail_after(int64_t n);

/* Test hook for the string key paths (group-by, unique, duplicated, isin,
 * joins): hash_bits in [0, 63] narrows every string hash to that many bits
 * (2^hash_bits distinct values, so distinct strings collide and every
 * probe-and-compare path runs); 64 or more, or negative, restores full
 * hashes.  max_codes > 0 caps the distinct strings the dense string codes
 * may hold before falling back to partitioned hashing (0 restores the
 * default).  Process-wide; not for concurrent use with other work.
 * Results must not change under any setting: only speed does. */
ZB_API void zb_test_string_keys(int hash_bits, int64_t max_codes);

/* The host memory limit in bytes (0: none): an allocation that would take
 * the live host blocks past it fails (NULL; ZB_ENOMEM from operations).
 * The default is ZAMBEZI_MEMORY_LIMIT, else 90% of zb_memory_total(). */
ZB_API int64_t zb_get_memory_limit(void);
ZB_API zb_status zb_set_memory_limit(int64_t bytes, zb_error *err);
/* The memory this process may use: its cgroup's limit, else physical. */
ZB_API int64_t zb_memory_total(void);
/* "1000000", "512MB", "8G", "1.5TiB" (units are powers of 1024), "80%" (of
 * zb_memory_total()), "none" (0). */
ZB_API zb_status zb_parse_memory_size(const char *text, int64_t *out, zb_error *err);
/* The last allocation the limit refused: taken (and forgotten) once; false
 * if there was none since. */
typedef struct zb_alloc_refusal {
  int64_t asked;  /* bytes asked for */
  int64_t in_use; /* live host bytes then */
  int64_t limit;
  const char *op; /* the operation that asked (a static string), or NULL */
} zb_alloc_refusal;
ZB_API bool zb_alloc_take_refusal(zb_alloc_refusal *out);

/* Host memory: 64-byte aligned; NULL on failure (and when injected).
 * zb_free(NULL) is a no-op. */
ZB_API void *zb_malloc(size_t size);
ZB_API void *zb_calloc(size_t count, size_t size);
ZB_API void zb_free(void *ptr);
/* zb_malloc plus a message on failure. */
ZB_API zb_status zb_malloc_checked(size_t size, void **out, zb_error *err);

/* ------------------------------------------------------------------------ */
/* Buffers                                                                  */
/* ------------------------------------------------------------------------ */

/* How a buffer's memory is given back.  Engine buffers use the counting
 * allocator; buffers imported from elsewhere (Arrow, numpy) carry the
 * release function of their owner. */
typedef void (*zb_buffer_release_fn)(void *ctx, void *data, int64_t size);

/* An immutable, reference-counted block of bytes on one device.  Fields are
 * read-only after creation (except through zb_buffer_mutable_data while the
 * creator holds the only reference). */
typedef struct zb_buffer {
  void *data;
  int64_t size; /* bytes */
  zb_device device;
  int64_t refcount; /* atomic */
  zb_buffer_release_fn release; /* NULL: memory from the counting allocator */
  void *release_ctx;
} zb_buffer;

/* New uninitialised buffer of size bytes on device (padded to 64 bytes). */
ZB_API zb_status zb_buffer_new(zb_device device, int64_t size, zb_buffer **out,
                               zb_error *err);
/* New zero-filled buffer. */
ZB_API zb_status zb_buffer_new_zeroed(zb_device device, int64_t size, zb_buffer **out,
                                      zb_error *err);
/* Wrap foreign memory; release(ctx, data, size) is called when the last
 * reference goes.  On failure release is NOT called (the caller still owns
 * the memory). */
ZB_API zb_status zb_buffer_wrap(zb_device device, void *data, int64_t size,
                                zb_buffer_release_fn release, void *ctx,
                                zb_buffer **out, zb_error *err);
ZB_API zb_buffer *zb_buffer_retain(zb_buffer *buf);
ZB_API void zb_buffer_release(zb_buffer *buf); /* NULL is a no-op */
/* Copy a buffer to another device (new buffer). */
ZB_API zb_status zb_buffer_copy_to(const zb_buffer *src, zb_device device,
                                   zb_buffer **out, zb_error *err);

/* ------------------------------------------------------------------------ */
/* Data types                                                               */
/* ------------------------------------------------------------------------ */

typedef enum zb_type_id {
  ZB_BOOL = 0,
  ZB_INT8,
  ZB_INT16,
  ZB_INT32,
  ZB_INT64,
  ZB_UINT8,
  ZB_UINT16,
  ZB_UINT32,
  ZB_UINT64,
  ZB_FLOAT32,
  ZB_FLOAT64,
  ZB_STRING,      /* int64 offsets + UTF-8 bytes (Arrow large_string) */
  ZB_CATEGORICAL, /* int32 codes + dictionary (categories) of any flat type */
  ZB_DATE32,      /* int32 days since 1970-01-01 */
  ZB_TIMESTAMP,   /* int64 since the epoch in `unit`, optional timezone */
  ZB_DURATION,    /* int64 length of time in `unit` (Arrow duration; pandas timedelta64) */
  ZB_LIST,        /* int64 offsets + one child column (Arrow large_list) */
  ZB_TYPE_COUNT
} zb_type_id;

typedef enum zb_time_unit {
  ZB_SECOND = 0,
  ZB_MILLI = 1,
  ZB_MICRO = 2,
  ZB_NANO = 3
} zb_time_unit;

/* "int64", "string", "timestamp[us]" ... (no timezone). */
ZB_API const char *zb_type_name(zb_type_id id);
/* Parse a canonical type name as zb_type_name writes it ("int64",
 * "string", "category", "date32", "timestamp"); aliases such as "str" or
 * "Int64" are the Python layer's. */
ZB_API zb_status zb_type_from_name(const char *name, zb_type_id *out, zb_error *err);
/* Bytes per value of the data buffer; 0 for bool (bits), string and list. */
ZB_API int zb_type_width(zb_type_id id);
ZB_API bool zb_type_is_integer(zb_type_id id);
ZB_API bool zb_type_is_signed(zb_type_id id);
ZB_API bool zb_type_is_float(zb_type_id id);
/* integer, float or bool */
ZB_API bool zb_type_is_numeric(zb_type_id id);

/* ------------------------------------------------------------------------ */
/* Columns                                                                  */
/* ------------------------------------------------------------------------ */

/* An immutable Arrow-layout column.  Logical element i is at physical
 * position offset + i of every buffer (validity bit, value, offsets entry).
 *   validity: NULL when null_count == 0, else a bitmap (1 = valid).
 *   data:     bool: bitmap; fixed width: values; string: int64 offsets
 *             (length + offset + 1 entries used); categorical: int32 codes.
 *   chars:    string only: UTF-8 bytes.
 *   dictionary: categorical only: the categories, a column of any flat
 *             type (bool, integers, floats, string, date32, timestamp,
 *             duration; not categorical or list) without nulls whose
 *             values are distinct (not checked by zb_column_make; the
 *             engine compares categoricals by code).  The dictionary's
 *             `ordered` flag is the categorical's (pandas' ordered=True:
 *             comparisons, min / max follow category order); every column
 *             sharing the dictionary shares it.
 *   timezone: timestamp only: NULL or an IANA name / offset ("UTC").
 *   child:    list only: the values of all lists; list i is child rows
 *             [data[offset + i], data[offset + i + 1]) (data: int64
 *             offsets, length + offset + 1 entries used, as a string's).
 *             The child is any non-list type, itself possibly with nulls.
 * All buffers (and the child) live on `device`. */
typedef struct zb_column {
  zb_type_id type;
  zb_time_unit unit;
  int64_t length;
  int64_t null_count;
  int64_t offset;
  zb_device device;
  zb_buffer *validity;
  zb_buffer *data;
  zb_buffer *chars;
  struct zb_column *dictionary;
  char *timezone;
  int64_t refcount; /* atomic */
  /* Strings only, computed on first need and kept (the column never
   * changes): 0 not known yet, 1 every value distinct, 2 some repeat.  A
   * categorical's dictionary answers it once for every group-by on it. */
  int32_t distinct; /* atomic */
  struct zb_column *child; /* list only */
  /* A categorical's dictionary only: 1 when the categories are ordered
   * (see `dictionary`); 0 otherwise. */
  int32_t ordered;
} zb_column;

/* Assemble a column from buffers.  Takes new references to the buffers and
 * dictionary (the caller keeps its own).  null_count < 0 means "count it".
 * Checks that every buffer is large enough and on one device. */
ZB_API zb_status zb_column_make(zb_type_id type, int64_t length, int64_t offset,
                                zb_buffer *validity, zb_buffer *data, zb_buffer *chars,
                                zb_column *dictionary, int64_t null_count,
                                zb_column **out, zb_error *err);
/* A dictionary for a categorical with `ordered` set as given: dict itself
 * (a new reference) when its flag already says so, else a new column
 * struct sharing dict's buffers.  The caller owns *out. */
ZB_API zb_status zb_column_dictionary_ordered(zb_column *dict, bool ordered, zb_column **out,
                                              zb_error *err);
/* Whether a categorical's categories are ordered (false for other types). */
ZB_API bool zb_column_is_ordered(const zb_column *col);
/* Lists nest at most this many levels (list<list<...>>): the kernels that
 * walk a list's children recurse once per level. */
#define ZB_LIST_MAX_DEPTH 32
/* Assemble a list column (Arrow large_list) from its int64 offsets
 * (offset + length + 1 entries used, non-decreasing, within the child) and
 * its child column (any type, a list too: lists of lists nest up to
 * ZB_LIST_MAX_DEPTH levels, deeper is ZB_ENOTSUP).
 * Takes new references (the caller keeps its own); null_count < 0 means
 * "count it". */
ZB_API zb_status zb_column_make_list(int64_t length, int64_t offset, zb_buffer *validity,
                                     zb_buffer *offsets, zb_column *child, int64_t null_count,
                                     zb_column **out, zb_error *err);
/* The dtype's text as users see it: zb_type_name, but "list<int64>" for a
 * list (with its child's unit: "list<timestamp[us]>"; a list of lists is
 * "list<list<int64>>"); buf holds size bytes. */
ZB_API const char *zb_column_type_text(const zb_column *col, char *buf, size_t size);

/* Set timestamp unit and timezone on a column the caller holds the only
 * reference to (right after zb_column_make).  tz may be NULL. */
ZB_API zb_status zb_column_set_time(zb_column *col, zb_time_unit unit, const char *tz,
                                    zb_error *err);

/* New column of `length` values with uninitialised data and (if
 * with_validity) an all-valid bitmap, for builders: the caller fills
 * col->data->data (and chars for strings, sized chars_size) before sharing
 * it, then calls zb_column_recount_nulls if it cleared validity bits. */
ZB_API zb_status zb_column_new(zb_type_id type, int64_t length, bool with_validity,
                               int64_t chars_size, zb_column **out, zb_error *err);
ZB_API void zb_column_recount_nulls(zb_column *col);
/* Bytes of memory the column's rows occupy: values, validity, string
 * bytes (of host columns' rows; a device column's whole chars buffer) and
 * a categorical's dictionary. */
ZB_API int64_t zb_column_nbytes(const zb_column *col);

ZB_API zb_column *zb_column_retain(zb_column *col);
ZB_API void zb_column_release(zb_column *col);

/* Zero-copy slice [start, start + length) clamped to the column. */
ZB_API zb_status zb_column_slice(const zb_column *col, int64_t start, int64_t length,
                                 zb_column **out, zb_error *err);
/* The same values on another device. */
ZB_API zb_status zb_column_to_device(const zb_column *col, zb_device device,
                                     zb_column **out, zb_error *err);
/* Concatenate n columns of one type (categoricals: dictionaries unified). */
ZB_API zb_status zb_column_concat(zb_column *const *cols, int64_t n, zb_column **out,
                                  zb_error *err);

/* Host-only accessors (inline, no checks). */
static inline bool zb_bit_get(const uint8_t *bits, int64_t i) {
  return (bits[i >> 3] >> (i & 7)) & 1;
}
static inline void zb_bit_set(uint8_t *bits, int64_t i, bool v) {
  if (v)
    bits[i >> 3] |= (uint8_t)(1u << (i & 7));
  else
    bits[i >> 3] &= (uint8_t)~(1u << (i & 7));
}
static inline bool zb_column_is_valid(const zb_column *c, int64_t i) {
  return c->validity == NULL ||
         zb_bit_get((const uint8_t *)c->validity->data, c->offset + i);
}
/* Count set bits in bits[start, start + length). */
ZB_API int64_t zb_bitmap_count(const uint8_t *bits, int64_t start, int64_t length);

/* ------------------------------------------------------------------------ */
/* Tables                                                                   */
/* ------------------------------------------------------------------------ */

/* An immutable list of named columns of one length on one device. */
typedef struct zb_table {
  int64_t num_columns;
  int64_t num_rows;
  zb_column **columns;
  char **names;
  int64_t refcount; /* atomic */
} zb_table;

/* Takes new references to the columns; copies the names.  Names must be
 * unique, lengths equal and devices equal. */
ZB_API zb_status zb_table_make(int64_t num_columns, zb_column *const *columns,
                               const char *const *names, zb_table **out, zb_error *err);
ZB_API zb_table *zb_table_retain(zb_table *t);
ZB_API void zb_table_release(zb_table *t);
/* Column index by name, or -1. */
ZB_API int64_t zb_table_find(const zb_table *t, const char *name);
/* Zero-copy: the columns at indices, in order (none: a table of no
 * columns that keeps t's row count, as pandas' df[[]]). */
ZB_API zb_status zb_table_select(const zb_table *t, int64_t n, const int64_t *indices,
                                 zb_table **out, zb_error *err);
ZB_API zb_status zb_table_slice(const zb_table *t, int64_t start, int64_t length,
                                zb_table **out, zb_error *err);
ZB_API zb_status zb_table_to_device(const zb_table *t, zb_device device, zb_table **out,
                                    zb_error *err);
ZB_API zb_device zb_table_device(const zb_table *t);
/* The sum of zb_column_nbytes over the table's columns. */
ZB_API int64_t zb_table_nbytes(const zb_table *t);

/* ------------------------------------------------------------------------ */
/* Thread pool                                                              */
/* ------------------------------------------------------------------------ */

/* Threads used by parallel operations: ZAMBEZI_NUM_THREADS, else the cores
 * this process may run on.  Setting it affects calls that start later. */
ZB_API int zb_get_num_threads(void);
ZB_API zb_status zb_set_num_threads(int n, zb_error *err);
/* Cores this process may run on (sched_getaffinity). */
ZB_API int zb_available_cores(void);

/* Run fn(ctx, task, worker) for task in [0, n_tasks) on the pool, using up
 * to zb_get_num_threads() threads (the caller is one of them); returns when
 * all have run (ZB_ECANCEL when the caller's operation was cancelled: then
 * some tasks did not run).  worker is in [0, zb_get_num_threads()).  Safe
 * to call from several threads at once.  Tasks must not call
 * zb_parallel_for. */
typedef void (*zb_task_fn)(void *ctx, int64_t task, int worker);
ZB_API zb_status zb_parallel_for(int64_t n_tasks, zb_task_fn fn, void *ctx,
                                 zb_error *err);

/* Cancellation.  An operation started after zb_cancel_scope_begin() in
 * its thread stops at its next morsel once zb_cancel_all() is called: the
 * zb_parallel_for it is in (and every later one) skips the tasks not yet
 * started and returns ZB_ECANCEL, and the operation frees what it made and
 * returns ZB_ECANCEL.  zb_cancel_all is async-signal-safe (a SIGINT
 * handler calls it) and affects only operations already in a scope when it
 * is called; code outside any scope (the C tests) is never cancelled.
 * zb_cancel_requested() tells a long serial loop, or a long task (tasks
 * run in their poster's scope), to stop the same way: a zb_parallel_for
 * whose scope was cancelled returns ZB_ECANCEL even if every task ran. */
ZB_API void zb_cancel_all(void);
ZB_API void zb_cancel_scope_begin(void);
ZB_API void zb_cancel_scope_end(void);
ZB_API bool zb_cancel_requested(void);
/* Testing: zb_cancel_all() is called when the n-th task from now (1 = the
 * next one) of zb_parallel_for is about to run.  n <= 0 disables.  Returns
 * the number of tasks skipped by cancellation since the previous call. */
ZB_API int64_t zb_cancel_after_tasks(int64_t n);

/* Rows per morsel in parallel scans. */
#define ZB_MORSEL_ROWS 65536

/* ------------------------------------------------------------------------ */
/* Operations                                                               */
/* ------------------------------------------------------------------------ */

typedef enum zb_reduce_op {
  ZB_REDUCE_SUM = 0,
  ZB_REDUCE_MIN,
  ZB_REDUCE_MAX,
  ZB_REDUCE_MEAN,
  ZB_REDUCE_COUNT,
  ZB_REDUCE_OP_COUNT
} zb_reduce_op;

ZB_API const char *zb_reduce_op_name(zb_reduce_op op);

/* A single typed value.  type follows the pandas result rules:
 *   sum:   signed ints and bool -> INT64, unsigned -> UINT64, floats -> FLOAT64
 *   mean:  FLOAT64;  count: INT64;  min/max: the column's type (bool as BOOL)
 * is_null is set for min/max/mean of a column with no valid values
 * (sum of nothing is 0, count of nothing is 0). */
typedef struct zb_scalar {
  zb_type_id type;
  bool is_null;
  union {
    int64_t i;
    uint64_t u;
    double f;
    bool b;
  } v;
} zb_scalar;

/* Reduce a numeric (or bool) column, nulls and NaNs skipped.  Runs on the
 * device where the column lives.  Integer sums wrap on overflow (as numpy
 * does).  Float sums are compensated. */
ZB_API zb_status zb_column_reduce(const zb_column *col, zb_reduce_op op, zb_scalar *out,
                                  zb_error *err);

/* ------------------------------------------------------------------------ */
/* Build information                                                        */
/* ------------------------------------------------------------------------ */

ZB_API const char *zb_version(void);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_H */
