/*
 * internal.h -- what the engine's own files share and users do not see: the
 * backend table (one per device kind, ggml-backend style), allocator hooks
 * used by backends, and small helpers.
 *
 * A backend is a table of function pointers.  Memory entries are required;
 * operations go through one `run` entry and a support table
 * (src/core/dispatch.h): what the table lacks, src/core runs on the CPU
 * (copying the inputs to the host) and records the fallback.
 */
#ifndef ZAMBEZI_INTERNAL_H
#define ZAMBEZI_INTERNAL_H

#include "zambezi/compute.h"
#include "zambezi/groupby.h"
#include "zambezi/join.h"
#include "zambezi/ewm.h"
#include "zambezi/rolling.h"
#include "zambezi/zambezi.h"
#include "core/dispatch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Status an operation entry of a non-CPU backend returns, without touching
 * *out or err, when it does not handle these inputs (strings on a GPU, say):
 * the core then runs the operation on the CPU over host copies, exactly as
 * for a NULL entry.  Never returned by a public function. */
#define ZB__DECLINED (-1)

typedef struct zb_backend {
  const char *name;
  zb_device_kind kind;

  /* Devices of this kind usable now (0 if none). */
  int (*device_count)(void);
  /* Whether device_id names a usable device (ids need not be dense: CUDA
   * devices keep their ordinals, unusable ones in between). */
  bool (*device_usable)(int device_id);
  zb_status (*device_info)(int device_id, zb_device_info *out, zb_error *err);

  /* Raw device memory; counting and fault injection are done by the core. */
  zb_status (*alloc)(int device_id, int64_t size, void **out, zb_error *err);
  void (*free)(int device_id, void *ptr);
  zb_status (*memset_zero)(int device_id, void *ptr, int64_t size, zb_error *err);
  /* Copies between this device and host memory, or within the device. */
  zb_status (*copy_to_host)(int device_id, void *dst, const void *src, int64_t size,
                            zb_error *err);
  zb_status (*copy_from_host)(int device_id, void *dst, const void *src, int64_t size,
                              zb_error *err);
  zb_status (*copy_on_device)(int device_id, void *dst, const void *src, int64_t size,
                              zb_error *err);
  /* Wait until all work queued on the device has finished (optional: NULL
   * for the CPU, whose work is done when a call returns). */
  zb_status (*synchronize)(int device_id, zb_error *err);

  /* Operations: one switch over c->op (src/core/dispatch.h).  Called only
   * for calls the support table covers, with inputs validated by src/core
   * and living on this backend's device; sets c's results.  May return
   * ZB__DECLINED, without touching c's results or err, for a condition the
   * table cannot state; the core then runs the call on the CPU. */
  zb_status (*run)(zb__call *c, zb_error *err);
  /* What run takes (n_support rows); NULL: every call. */
  const zb__support *support;
  int64_t n_support;
} zb_backend;

/* The backend for a device kind: the CPU always; CUDA when compiled in (else
 * NULL). */
const zb_backend *zb__backend_for(zb_device_kind kind);
/* Each backend's table, for the registry in src/core/device.c only
 * (src/cpu/backend.c, src/cuda/backend.cu); others ask zb__backend_for. */
const zb_backend *zb__cpu_backend(void);
#ifdef ZB_HAVE_CUDA
const zb_backend *zb__cuda_backend(void);
#endif

/* Allocator hooks for device memory: returns ZB_ENOMEM (with message) if the
 * fault injector fires; otherwise counts size against the device. */
zb_status zb__alloc_device_begin(int64_t size, zb_error *err);
void zb__alloc_device_end(int64_t size); /* undo begin, or account a free */
/* Count only the first size bytes of a zb_malloc block from now on (the
 * block keeps its memory; untouched pages of it never become resident). */
void zb__shrink(void *ptr, size_t size);
/* A zb_malloc block counted as size bytes with room for `room` (>= size):
 * zb__grow up to room then only counts, and the room comes from the block
 * cache like any block (recycled pages, no clearing on first touch), where
 * growing a mapped block by mremap adds fresh pages.  For a buffer whose
 * final size is known but whose parts arrive one at a time. */
ZB_API void *zb__malloc_room(size_t size, size_t room); /* exported for the C tests */
/* Grow a zb_malloc block (NULL: a new one) to size bytes keeping its
 * contents: in place when its capacity allows, by moving its pages
 * (mremap) when it is mapped, else into a new block.  Counted as the
 * difference only (no moment with both copies, unless copied).  NULL when
 * out of memory: the block is then untouched. */
ZB_API void *zb__grow(void *ptr, size_t size); /* exported for the C tests */
/* Lower an engine host buffer's size to size (no effect on others). */
void zb__buffer_shrink(zb_buffer *buf, int64_t size);
/* A zb_buffer_wrap release function for memory from zb_malloc: wrapping a
 * block the engine filled hands it to a buffer without a copy. */
void zb__release_zb_malloc(void *ctx, void *data, int64_t size);

/* ---- profiling hooks (src/core/profile.c; zambezi/profile.h) -------------
 * zb__dispatch (src/core/dispatch.c) opens one span per call once it knows
 * where the data lives; an entry point composed of several calls opens one
 * around them:
 *   ZB_PROFILE_OP("drop_duplicates", be, ZB__OP_DUPLICATED, dev, t->num_rows);
 * and, where a backend's ZB__DECLINED sends the work to the CPU, the span
 * is marked with ZB_PROFILE_DECLINED().  The span closes by
 * itself when the function returns (on every path) and records the
 * operation in each active profile: on the CPU as a fallback when the data
 * is off the CPU and the backend's table lacks the call (has_entry false) or
 * it declined; entry names the operation (zb__op_name).  op and entry must be
 * static strings.  With no profile active a span costs one atomic load. */
typedef struct zb__prof_span {
  const char *op, *entry;
  zb_device data_device, run_device;
  int64_t rows, t0, seq;
  int32_t depth;
  bool has_entry, declined, on;
  bool partial; /* the backend has the operation, not for these inputs */
} zb__prof_span;

extern int zb__prof_sessions; /* active profiles (atomic) */
void zb__prof_open(zb__prof_span *sp);
void zb__prof_close(zb__prof_span *sp);
static inline void zb__prof_span_end(zb__prof_span *sp) {
  if (sp->on) zb__prof_close(sp);
}

/* Chains between the tasks of one zb_parallel_for: task t waits for what
 * task t - 1 publishes (a value >= 0 stored with release order into *slot,
 * which starts negative).  Tasks are claimed in order, so t - 1 is running
 * or done when t waits -- unless the job was cancelled, when the pool skips
 * tasks it has claimed but not begun: then this returns false at once
 * instead of waiting for ever (the job returns ZB_ECANCEL, so the caller
 * may go on with any value as long as its writes stay in bounds).  Spins,
 * then yields the core (the predecessor's thread may have lost it).  The
 * published value goes to *value. */
bool zb__await_published(const int64_t *slot, int64_t *value);

/* The operation the calling thread is in (the outermost span's op; NULL
 * outside any), for messages such as the memory limit's; tasks of
 * zb_parallel_for see their poster's. */
extern __thread const char *zb__current_op;
typedef struct zb__op_mark {
  const char *prev;
} zb__op_mark;
static inline void zb__op_restore(zb__op_mark *m) { zb__current_op = m->prev; }
/* Name the operation the rest of the enclosing block runs (unless an outer
 * one named it already). */
#define ZB_NAME_OP(op_)                                                                  \
  zb__op_mark zb__op_m __attribute__((cleanup(zb__op_restore), unused)) = {zb__current_op}; \
  if (zb__current_op == NULL) zb__current_op = (op_)

/* A span whose work runs on run_dev_ (a copy: the destination), opened
 * only when cond_ holds. */
#define ZB_PROFILE_SPAN_IF(cond_, op_, entry_, has_entry_, data_dev_, run_dev_, rows_)   \
  ZB_NAME_OP(op_);                                                                       \
  zb__prof_span zb__prof_sp __attribute__((cleanup(zb__prof_span_end))) = {              \
      .op = (op_), .entry = (entry_), .data_device = (data_dev_), .run_device = (run_dev_), \
      .rows = (rows_), .has_entry = (has_entry_),                                        \
      .on = (cond_) && __atomic_load_n(&zb__prof_sessions, __ATOMIC_ACQUIRE) > 0};       \
  if (zb__prof_sp.on) zb__prof_open(&zb__prof_sp)
#define ZB_PROFILE_SPAN(op_, entry_, has_entry_, data_dev_, run_dev_, rows_) \
  ZB_PROFILE_SPAN_IF(true, op_, entry_, has_entry_, data_dev_, run_dev_, rows_)
/* The usual span: entry_ is the field of the backend table be_ (may be NULL). */
#define ZB_PROFILE_OP(op_, be_, zbop_, dev_, rows_) \
  ZB_PROFILE_SPAN(op_, zb__op_name(zbop_), zb__backend_has(be_, zbop_), dev_, dev_, rows_)
#define ZB_PROFILE_DECLINED() ((void)(zb__prof_sp.declined = true))
/* The span's call turned out (not) to be in the backend's table. */
#define ZB_PROFILE_SUPPORTED(yes_) \
  ((void)(zb__prof_sp.partial = zb__prof_sp.has_entry && !(yes_), \
          zb__prof_sp.has_entry = (yes_)))

/* The totals of a statistic (zb_column_stat) once a backend has scanned
 * the column: values taken, their mean and sum of squared deviations (var,
 * std), products (float; integer wrapping), any / all, first position of
 * the extreme (argmin / argmax; -1 if none). */
typedef struct zb_stat_totals {
  int64_t count;
  double mean, m2, fprod;
  uint64_t iprod;
  bool any, all;
  int64_t pos;
} zb_stat_totals;

/* The statistic's scalar from its totals, the same for every backend (t:
 * the column's type; var / std of fewer than ddof + 1 values is null).
 * src/core/rules.c. */
zb_status zb__stat_scalar(zb_stat_op op, zb_type_id t, int64_t ddof, const zb_stat_totals *a,
                          zb_scalar *out, zb_error *err);

/* A quantile of cnt > 0 sorted values (pandas' linear interpolation, as
 * numpy computes it), shared by the backends (src/core/rules.c): the
 * rank k of the lower value and the fraction *t toward the next; then the
 * result from the values at ranks k (lo) and k + 1 (hi; lo when t is 0).
 * median: the mean of the two when t is one half. */
int64_t zb__quantile_rank(int64_t cnt, double q, double *t);
double zb__quantile_lerp(double lo, double hi, double t, bool median);

/* Atomic helpers for reference counts. */
static inline int64_t zb__atomic_inc(int64_t *p) {
  return __atomic_add_fetch(p, 1, __ATOMIC_RELAXED);
}
static inline int64_t zb__atomic_dec(int64_t *p) {
  return __atomic_sub_fetch(p, 1, __ATOMIC_ACQ_REL);
}

/* CPU hot loops are also compiled for AVX2 and picked at load time. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define ZB_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define ZB_CLONES
#endif

#define ZB_MIN(a, b) ((a) < (b) ? (a) : (b))
#define ZB_MAX(a, b) ((a) > (b) ? (a) : (b))

/* Copy bits src[src_off, src_off + n) to dst[dst_off, ...), leaving the
 * other bits of dst as they were (src/core/concat.c). */
void zb__bitmap_copy(uint8_t *dst, int64_t dst_off, const uint8_t *src, int64_t src_off,
                     int64_t n);
/* Set bits dst[off, off + n) to value. */
void zb__bitmap_fill(uint8_t *dst, int64_t off, int64_t n, bool value);

/* 10.0 ** n for n >= 0 as numpy's round computes it (src/core/rules.c;
 * backends use it so that every round scales by the same double). */
double zb__power_of_ten(int n);

/* numpy's promotion of two numeric types (bool with bool stays bool);
 * src/core/compute_ops.c. */
zb_type_id zb__promote_numeric(zb_type_id a, zb_type_id b);

/* A categorical whose dictionary repeats a value (arrow_dict.c): *out is
 * col itself (a new reference) when its values are distinct, else a new
 * column over the distinct values in order of first appearance. */
zb_status zb__fold_repeated_categories(zb_column *col, zb_column **out, zb_error *err);
/* zb_table_import_arrow for an exporter inside the engine that has
 * checked every list offset already (non-decreasing, inside the child):
 * the import does not walk them again; everything else is checked. */
struct ArrowSchema;
struct ArrowArray;
zb_status zb__table_import_arrow_checked(const struct ArrowSchema *schema,
                                         struct ArrowArray *array, zb_table **out,
                                         zb_error *err);
/* A length-1 host string column holding s[0, len), or a null when s is
 * NULL (src/core/compute_ops.c).  New reference in *out. */
zb_status zb__string_scalar_column(const char *s, int64_t len, zb_column **out, zb_error *err);

/* Whether c is a categorical whose categories are not strings. */
static inline bool zb__cat_valued(const zb_column *c) {
  return c->type == ZB_CATEGORICAL && c->dictionary != NULL && c->dictionary->type != ZB_STRING;
}
/* A categorical's values as a column of its categories' type (nulls kept):
 * the dictionary taken through the codes.  A new reference in *out
 * (src/core/compute_ops.c). */
zb_status zb__categorical_values(const zb_column *col, zb_column **out, zb_error *err);
/* A categorical's codes as an int32 column sharing its buffers (nulls kept;
 * for an ordered categorical their order is the categories').  A new
 * reference in *out (src/core/compute_ops.c). */
zb_status zb__categorical_codes(const zb_column *col, zb_column **out, zb_error *err);
/* c itself (a new reference) unless it is a categorical whose categories
 * are not strings, which is decoded to its values (zb__categorical_values). */
zb_status zb__decode_valued(const zb_column *c, zb_column **out, zb_error *err);
/* ZB_ENOTSUP naming `what` and the categories' dtype when col is a
 * categorical whose categories are not strings (an operation that reads
 * the categories as text), else ZB_OK. */
zb_status zb__need_string_categories(const zb_column *col, const char *what, zb_error *err);

/* t with every categorical whose categories are not strings decoded to its
 * values (a new reference; t itself when it has none; NULL for a NULL t):
 * what the writers that read categories as text are given
 * (src/core/compute_ops.c). */
zb_status zb__table_decode_valued(const zb_table *t, zb_table **out, zb_error *err);

/* Move a host result column to dev, for a CPU fallback (consumes *res; *res
 * is the moved column, NULL on failure; nothing happens for the CPU or a
 * NULL *res).  src/core/compute_ops.c. */
zb_status zb__result_to(zb_device dev, zb_column **res, zb_error *err);
/* A new column sharing col's buffers (validity, data), typed as `type` -- of
 * the same width as col's physical type -- with unit and tz where `type` has
 * them (timestamp, duration).  No values are read or copied: how durations
 * and timestamps reuse the int64 kernels. */
zb_status zb__column_retag(const zb_column *col, zb_type_id type, zb_time_unit unit,
                           const char *tz, zb_column **out, zb_error *err);
/* Time arithmetic checked as pandas checks it: res = a op b (op add, sub
 * or mul; a, b the int64 views of timestamps and durations, or b an
 * integer factor; as / bs: a length-1 scalar column) wrapped by the int64
 * kernels, so a result past int64, or on INT64_MIN (pandas' NaT), is
 * ZB_EOVERFLOW.  The operands' ranges settle it for nearly all data; rows
 * are looked at only when the ranges allow an overflow. */
zb_status zb__time_overflow(zb_binary_op op, const zb_column *a, bool as, const zb_column *b,
                            bool bs, const zb_column *res, zb_error *err);
/* col (a duration) in `unit`: a new reference (col itself when the unit
 * already matches).  ZB_EOVERFLOW when a value does not fit. */
zb_status zb__duration_to_unit(const zb_column *col, zb_time_unit unit, zb_column **out,
                               zb_error *err);

/* Name of group-by result column i: the key's name for i < n_keys, then
 * each aggregation's name, else its column's ("size" for SIZE); the core
 * checks they are unique before dispatch (src/core/groupby_ops.c). */
struct zb_agg;
const char *zb__groupby_result_name(const zb_table *t, int64_t n_keys, const int64_t *keys,
                                    const struct zb_agg *aggs, int64_t i);

/* Duplicate a string with the counting allocator (NULL on failure). */
char *zb__strdup(const char *s);
/* The memory limit to start with (memory_limit.c). */
int64_t zb__memory_limit_default(void);

/* zb_test_string_keys's settings (testhooks.c): the bits string hashes
 * keep (64: all) and the cap on dense string codes (0: none). */
extern int zb__test_hash_bits;
extern int64_t zb__test_max_codes;

/* h narrowed to zb__test_hash_bits bits (spread over the word, bit 0 kept:
 * the string keys' long/short flag); h itself with the default setting. */
static inline uint64_t zb__test_narrow_hash(uint64_t h) {
  int bits = __atomic_load_n(&zb__test_hash_bits, __ATOMIC_RELAXED);
  if (__builtin_expect(bits >= 64, 1)) return h;
  uint64_t v = (h >> 1) & ((UINT64_C(1) << bits) - 1);
  return ((v * UINT64_C(0x9e3779b97f4a7c15)) & ~UINT64_C(1)) | (h & 1);
}

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_INTERNAL_H */
