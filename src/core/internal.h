/*
 * internal.h -- what the engine's own files share and users do not see: the
 * backend table (one per device kind, ggml-backend style), allocator hooks
 * used by backends, and small helpers.
 *
 * A backend is a table of function pointers.  Memory entries are required;
 * operation entries may be NULL, in which case src/core runs the operation on
 * the CPU (copying the inputs to the host) and records the fallback.
 */
#ifndef ZAMBEZI_INTERNAL_H
#define ZAMBEZI_INTERNAL_H

#include "zambezi/compute.h"
#include "zambezi/groupby.h"
#include "zambezi/join.h"
#include "zambezi/zambezi.h"

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

  /* Operations (optional).  Inputs are validated by src/core and live on
   * this backend's device. */
  zb_status (*reduce)(const zb_column *col, zb_reduce_op op, zb_scalar *out,
                      zb_error *err);

  /* Columnar compute (compute.h; optional, checked by src/core/compute_ops.c).
   * binary: a scalar operand arrives as a length-1 column with its *_scalar
   * flag set and is broadcast; `compute` is the promoted type both operands
   * are converted to, `result` the output type. */
  zb_status (*binary)(zb_binary_op op, const zb_column *a, bool a_scalar, const zb_column *b,
                      bool b_scalar, zb_type_id compute, zb_type_id result, zb_column **out,
                      zb_error *err);
  zb_status (*unary)(zb_unary_op op, const zb_column *col, zb_column **out, zb_error *err);
  /* unit: the target unit when target is ZB_TIMESTAMP. */
  zb_status (*cast)(const zb_column *col, zb_type_id target, zb_time_unit unit,
                    zb_column **out, zb_error *err);
  /* want_valid false: isnull; true: notnull. */
  zb_status (*is_null)(const zb_column *col, bool want_valid, zb_column **out, zb_error *err);
  /* value: a valid length-1 column of col's type on col's device (categorical: the code
   * of the fill string, sharing col's dictionary). */
  zb_status (*fill_null)(const zb_column *col, const zb_column *value, zb_column **out,
                         zb_error *err);
  zb_status (*filter)(const zb_column *col, const zb_column *mask, zb_column **out,
                      zb_error *err);
  /* indices: int64, checked to lie in [0, col->length) where valid. */
  zb_status (*take)(const zb_column *col, const zb_column *indices, zb_column **out,
                    zb_error *err);
  zb_status (*sort_indices)(const zb_table *t, int64_t n_keys, const int64_t *keys,
                            const bool *ascending, bool nulls_first, zb_column **out,
                            zb_error *err);

  /* Statistics and hashing (compute.h; optional, checked by
   * src/core/stats_ops.c; stat may return ZB__DECLINED, and the core then
   * computes it on the CPU).  keys: n_keys >= 1 valid column indices.
   * isin: col and values have types the hash identity compares directly
   * (equal types, or string with string). */
  zb_status (*stat)(const zb_column *col, zb_stat_op op, int64_t ddof, zb_scalar *out,
                    zb_error *err);
  zb_status (*quantile)(const zb_column *col, int64_t n_q, const double *q, zb_scalar *out,
                        zb_error *err);
  zb_status (*hash_rows)(const zb_table *t, int64_t n_keys, const int64_t *keys,
                         zb_column **out, zb_error *err);
  zb_status (*unique)(const zb_column *col, zb_column **out, zb_error *err);
  zb_status (*nunique)(const zb_column *col, bool dropna, int64_t *out, zb_error *err);
  zb_status (*value_counts)(const zb_column *col, bool sort, bool ascending, bool dropna,
                            bool normalize, zb_column **values, zb_column **counts,
                            zb_error *err);
  zb_status (*duplicated)(const zb_table *t, int64_t n_keys, const int64_t *keys,
                          zb_keep keep, zb_column **out, zb_error *err);
  zb_status (*isin)(const zb_column *col, const zb_column *values, zb_column **out,
                    zb_error *err);
  /* Strings, dates, elementwise extras (src/core/strings_ops.c; optional).
   * str: col is a string column (categoricals were resolved by the core).
   * str_cat: a scalar operand is a length-1 column with its flag set.
   * dt_field: col is date32 or timestamp; offset_s is the fixed timezone
   * offset in seconds added before splitting into fields.
   * clip: lower/upper are scalars of col's type (is_null: no bound).
   * round: col is float, or integer with decimals < 0.
   * where: a and b have one type (b a length-1 column when b_scalar);
   * take a[i] where cond[i] is true (false when mask), else b[i]; a null
   * cond takes b. */
  zb_status (*str)(const zb_column *col, const zb_str_args *args, zb_column **out,
                   zb_error *err);
  zb_status (*str_cat)(const zb_column *a, bool a_scalar, const zb_column *b, bool b_scalar,
                       const char *sep, int64_t sep_len, zb_column **out, zb_error *err);
  zb_status (*dt_field)(const zb_column *col, zb_dt_field field, int64_t offset_s,
                        zb_column **out, zb_error *err);
  zb_status (*clip)(const zb_column *col, const zb_scalar *lower, const zb_scalar *upper,
                    zb_column **out, zb_error *err);
  zb_status (*round)(const zb_column *col, int decimals, zb_column **out, zb_error *err);
  zb_status (*where)(const zb_column *cond, bool mask, const zb_column *a, const zb_column *b,
                     bool b_scalar, zb_column **out, zb_error *err);
  /* Joins (zambezi/join.h; optional, checked by src/core/join_ops.c).  lkeys /
   * rkeys: n_keys key columns on this backend's device, of n_left / n_right
   * rows, brought to types the hash identity compares directly (equal
   * types, integers of any width, or one shared categorical dictionary);
   * n_keys is 0 for cross.  Unsorted output order of join.h; *right_idx NULL for semi/anti. */
  zb_status (*join_indices)(const zb_column *const *lkeys, const zb_column *const *rkeys,
                            int64_t n_keys, int64_t n_left, int64_t n_right, zb_join_how how,
                            zb_column **left_idx, zb_column **right_idx, zb_error *err);
  /* Group-by (zambezi/groupby.h; optional, checked by src/core/groupby_ops.c).
   * keys / aggs: valid indices into t with types the ops accept. */
  zb_status (*groupby)(const zb_table *t, int64_t n_keys, const int64_t *keys, bool dropna,
                       bool sort, int64_t n_aggs, const zb_agg *aggs, zb_table **out,
                       zb_error *err);
  zb_status (*group_ids)(const zb_table *t, int64_t n_keys, const int64_t *keys, bool dropna,
                         bool sort, zb_column **out, int64_t *n_groups, zb_error *err);
  zb_status (*group_cumcount)(const zb_column *group_ids, int64_t n_groups, bool ascending,
                              zb_column **out, zb_error *err);
} zb_backend;

/* The backend for a device kind: the CPU always; CUDA when compiled in (else
 * NULL). */
const zb_backend *zb__backend_for(zb_device_kind kind);
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
/* Lower an engine host buffer's size to size (no effect on others). */
void zb__buffer_shrink(zb_buffer *buf, int64_t size);
/* A zb_buffer_wrap release function for memory from zb_malloc: wrapping a
 * block the engine filled hands it to a buffer without a copy. */
void zb__release_zb_malloc(void *ctx, void *data, int64_t size);

/* ---- profiling hooks (src/core/profile.c; zambezi/profile.h) -------------
 * Each operation entry point opens one span once it knows where its data
 * lives, before it dispatches:
 *   ZB_PROFILE_OP("filter", be, filter, col->device, col->length);
 * and, where a backend entry's ZB__DECLINED sends the work to the CPU, marks
 * it in the same function with ZB_PROFILE_DECLINED().  The span closes by
 * itself when the function returns (on every path) and records the
 * operation in each active profile: on the CPU as a fallback when the data
 * is off the CPU and the backend has no such entry (has_entry false) or
 * declined; entry names that backend table entry.  op and entry must be
 * static strings.  With no profile active a span costs one atomic load. */
typedef struct zb__prof_span {
  const char *op, *entry;
  zb_device data_device, run_device;
  int64_t rows, t0, seq;
  int32_t depth;
  bool has_entry, declined, on;
} zb__prof_span;

extern int zb__prof_sessions; /* active profiles (atomic) */
void zb__prof_open(zb__prof_span *sp);
void zb__prof_close(zb__prof_span *sp);
static inline void zb__prof_span_end(zb__prof_span *sp) {
  if (sp->on) zb__prof_close(sp);
}

/* A span whose work runs on run_dev_ (a copy: the destination). */
#define ZB_PROFILE_SPAN(op_, entry_, has_entry_, data_dev_, run_dev_, rows_)             \
  zb__prof_span zb__prof_sp __attribute__((cleanup(zb__prof_span_end))) = {              \
      .op = (op_), .entry = (entry_), .data_device = (data_dev_), .run_device = (run_dev_), \
      .rows = (rows_), .has_entry = (has_entry_),                                        \
      .on = __atomic_load_n(&zb__prof_sessions, __ATOMIC_ACQUIRE) > 0};                  \
  if (zb__prof_sp.on) zb__prof_open(&zb__prof_sp)
/* The usual span: entry_ is the field of the backend table be_ (may be NULL). */
#define ZB_PROFILE_OP(op_, be_, entry_, dev_, rows_) \
  ZB_PROFILE_SPAN(op_, #entry_, (be_) != NULL && (be_)->entry_ != NULL, dev_, dev_, rows_)
#define ZB_PROFILE_DECLINED() ((void)(zb__prof_sp.declined = true))

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
 * src/cpu/reduce_stats.c. */
zb_status zb__stat_scalar(zb_stat_op op, zb_type_id t, int64_t ddof, const zb_stat_totals *a,
                          zb_scalar *out, zb_error *err);

/* A quantile of cnt > 0 sorted values (pandas' linear interpolation, as
 * numpy computes it), shared by the backends (src/cpu/reduce_stats.c): the
 * rank k of the lower value and the fraction *t toward the next; then the
 * result from the values at ranks k (lo) and k + 1 (hi; lo when t is 0).
 * median: the mean of the two when t is one half. */
int64_t zb__quantile_rank(int64_t cnt, double q, double *t);
double zb__quantile_lerp(double lo, double hi, double t, bool median);

/* The CPU reference implementations (src/cpu). */
zb_status zb__cpu_reduce(const zb_column *col, zb_reduce_op op, zb_scalar *out,
                         zb_error *err);

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

/* 10.0 ** n for n >= 0 as numpy's round computes it (src/cpu/elementwise.c;
 * backends use it so that every round scales by the same double). */
double zb__power_of_ten(int n);

/* numpy's promotion of two numeric types (bool with bool stays bool);
 * src/core/compute_ops.c. */
zb_type_id zb__promote_numeric(zb_type_id a, zb_type_id b);

/* A length-1 host string column holding s[0, len), or a null when s is
 * NULL (src/core/compute_ops.c).  New reference in *out. */
zb_status zb__string_scalar_column(const char *s, int64_t len, zb_column **out, zb_error *err);

/* Move a host result column to dev, for a CPU fallback (consumes *res; *res
 * is the moved column, NULL on failure; nothing happens for the CPU or a
 * NULL *res).  src/core/compute_ops.c. */
zb_status zb__result_to(zb_device dev, zb_column **res, zb_error *err);

/* Name of group-by result column i: the key's name for i < n_keys, then
 * each aggregation's name, else its column's ("size" for SIZE); the core
 * checks they are unique before dispatch (src/core/groupby_ops.c). */
struct zb_agg;
const char *zb__groupby_result_name(const zb_table *t, int64_t n_keys, const int64_t *keys,
                                    const struct zb_agg *aggs, int64_t i);

/* Duplicate a string with the counting allocator (NULL on failure). */
char *zb__strdup(const char *s);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_INTERNAL_H */
