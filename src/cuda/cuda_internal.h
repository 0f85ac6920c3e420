/*
 * cuda_internal.h -- what the CUDA backend's files (the .cu files in src/cuda) share:
 * the mapping of cudaError_t to zambezi statuses and the operation entry
 * points that backend.cu puts in the backend table.  Only compiled when
 * ZB_HAVE_CUDA; never included by the C core.
 */
#ifndef ZAMBEZI_CUDA_INTERNAL_H
#define ZAMBEZI_CUDA_INTERNAL_H

#include <cuda_runtime.h>

#include "core/internal.h"
#include "cuda/device_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Turn the result of a CUDA runtime call into a status.  cudaSuccess ->
 * ZB_OK; cudaErrorMemoryAllocation -> ZB_ENOMEM; anything else ->
 * ZB_EDEVICE.  The message names `call` (e.g. "cudaMemcpy (device to host)")
 * and the device and quotes cudaGetErrorString.  Clears the runtime's
 * last-error slot so that a later check does not see this error again. */
zb_status zb__cuda_check(cudaError_t e, const char *call, int device_id, zb_error *err);

/* cudart as device_table.c calls it (src/cuda/backend.cu). */
extern const zb_cuda_rt zb__cuda_rt_real;

/* The backend's run switch and support table (src/cuda/dispatch.cu). */
zb_status zb__cuda_run(zb__call *c, zb_error *err);
const zb__support *zb__cuda_support(int64_t *n);

/* Make device_id current for the calling thread; ZB_ENODEVICE for an
 * ordinal that is not a usable device. */
zb_status zb__cuda_set_device(int device_id, zb_error *err);

/* Multiprocessors of a usable device (cached; at least 1). */
int zb__cuda_sm_count(int device_id);

/* The backend's reduce entry (src/cuda/reduce.cu): the column lives on a
 * CUDA device, is numeric and was validated by src/core.  Semantics are
 * those of zb_column_reduce. */
zb_status zb__cuda_reduce(const zb_column *col, zb_reduce_op op, zb_scalar *out,
                          zb_error *err);

/* Elementwise entries (src/cuda/elementwise.cu, src/cuda/cast.cu): the
 * backend's binary, unary, is_null, fill_null, where, clip, round and cast,
 * with the arguments and results of zb_backend's entries and the semantics
 * of the CPU kernels in src/cpu.  Inputs live on one CUDA device and were
 * validated by src/core; results are new columns on that device.  The
 * types they take are those of the backend's table (dispatch.cu). */
zb_status zb__cuda_binary(zb_binary_op op, const zb_column *a, bool a_scalar,
                          const zb_column *b, bool b_scalar, zb_type_id compute,
                          zb_type_id result, zb_column **out, zb_error *err);
zb_status zb__cuda_unary(zb_unary_op op, const zb_column *col, zb_column **out, zb_error *err);
zb_status zb__cuda_is_null(const zb_column *col, bool want_valid, zb_column **out,
                           zb_error *err);
zb_status zb__cuda_fill_null(const zb_column *col, const zb_column *value, zb_column **out,
                             zb_error *err);
zb_status zb__cuda_where(const zb_column *cond, bool mask, const zb_column *a,
                         const zb_column *b, bool b_scalar, zb_column **out, zb_error *err);
zb_status zb__cuda_clip(const zb_column *col, const zb_scalar *lower, const zb_scalar *upper,
                        zb_column **out, zb_error *err);
zb_status zb__cuda_round(const zb_column *col, int decimals, zb_column **out, zb_error *err);
zb_status zb__cuda_cast(const zb_column *col, zb_type_id target, zb_time_unit unit,
                        zb_column **out, zb_error *err);

/* ---- selection and sorting (src/cuda/select.cu, src/cuda/sort.cu) ------- */

/* Blocks of `threads` threads for a grid-stride loop over `items` work
 * items (one thread each): enough to fill device_id's multiprocessors, no
 * more than the items need, at least 1. */
unsigned zb__cuda_blocks(int device_id, int64_t items, int threads);

/* Status of the kernel launch just made (`kernel` names it in a message). */
zb_status zb__cuda_launched(const char *kernel, int device_id, zb_error *err);

/* Wait for the legacy default stream, where the backend's work runs; an
 * error a kernel hit surfaces here, named after `after`. */
zb_status zb__cuda_wait(const char *after, int device_id, zb_error *err);

/* Copy `size` bytes from device memory to the host (waits for the legacy
 * default stream first, so earlier kernels' results are visible). */
zb_status zb__cuda_read(int device_id, void *dst, const void *src, int64_t size,
                        const char *what, zb_error *err);

/* A device buffer of `size` bytes (uninitialised) on device_id, counted by
 * the allocator; for results and scratch alike.  New reference in *out. */
zb_status zb__cuda_buffer(int device_id, int64_t size, zb_buffer **out, zb_error *err);

/* A device copy of host bytes src[0, size) (size may be 0) on device_id:
 * a new reference in *out, NULL on failure. */
zb_status zb__cuda_upload(int device_id, const void *src, int64_t size, zb_buffer **out,
                          zb_error *err);

/* Temporary storage for a CUB device-wide call: *have bytes at (*buf)->data,
 * grown (old contents dropped) when `need` is more. */
zb_status zb__cuda_scratch(int device_id, size_t need, zb_buffer **buf, size_t *have,
                           zb_error *err);

/* The backend's filter, take and sort_indices entries: inputs validated by
 * src/core and on one CUDA device; semantics those of src/cpu/select.c and
 * src/cpu/sort.c (zb_column_filter, zb_column_take, zb_table_sort_indices);
 * string keys sort by their bytes (a merge sort). */
zb_status zb__cuda_filter(const zb_column *col, const zb_column *mask, zb_column **out,
                          zb_error *err);
zb_status zb__cuda_take(const zb_column *col, const zb_column *indices, zb_column **out,
                        zb_error *err);
zb_status zb__cuda_sort_indices(const zb_table *t, int64_t n_keys, const int64_t *keys,
                                const bool *ascending, bool nulls_first, zb_column **out,
                                zb_error *err);

/* ---- joins and distinct values (src/cuda/join.cu, src/cuda/hash.cu) ----- */

/* Stable LSD radix sort of n (key, int64 value) pairs on key bits
 * [begin_bit, end_bit) (src/cuda/sort.cu; CUB's sort, instantiated there
 * once).  key_width is 1 (uint8_t keys) or 8 (uint64_t keys).  The input is
 * in keys[0] and vals[*cur] (each buffer holds n items); on return *cur
 * names the values buffer holding the sorted values; both keys buffers are
 * clobbered.  *temp / *temp_have: CUB scratch as zb__cuda_scratch keeps it
 * (the caller releases *temp once the device is done).  Queued on the
 * legacy default stream; not waited for. */
zb_status zb__cuda_sort_pairs(int device_id, int key_width, zb_buffer *const keys[2],
                              zb_buffer *const vals[2], int *cur, int64_t n, int begin_bit,
                              int end_bit, zb_buffer **temp, size_t *temp_have, zb_error *err);

/* The bits in which the 64-bit keys[0, n) differ, as the radix sort's
 * [*begin_bit, *end_bit) (the lowest and one past the highest bit where not
 * all keys agree; both 0 when every key is the same, so that the sort does
 * nothing).  The bits outside are equal in every key, so sorting only
 * these gives the same stable order as all 64 -- in fewer passes (values
 * of a narrow range, small integers, doubles of one sign and exponent).
 * One reduction kernel, then a 24-byte read (waits for the stream). */
zb_status zb__cuda_key_varying_bits(int device_id, const uint64_t *keys, int64_t n,
                                    int *begin_bit, int *end_bit, zb_error *err);

/* A string key over one or two sources: row r < n_a is row r of source 0,
 * row r >= n_a row r - n_a of source 1 (n_a = INT64_MAX: one source).
 * offs: the offsets from the column's row offset on; valid: NULL or the
 * bitmap, read at bit off + row. */
typedef struct zb_str_sides {
  const int64_t *offs[2];
  const unsigned char *chars[2];
  const uint8_t *valid[2];
  int64_t off[2];
  int64_t n_a;
} zb_str_sides;

/* Stable sort of rows[0, n) (row numbers of s) by their strings, bytes
 * unsigned with a prefix first, ascending or descending; null rows first
 * or last (src/cuda/sort.cu; CUB's merge sort, instantiated there once).
 * *temp / *temp_have: scratch as zb__cuda_scratch keeps it.  Queued on the
 * legacy default stream; not waited for. */
zb_status zb__cuda_sort_by_strings(int device_id, int64_t *rows, int64_t n,
                                   const zb_str_sides *s, bool ascending, bool nulls_first,
                                   zb_buffer **temp, size_t *temp_have, zb_error *err);

/* The low bits a radix sort of keys 0..max needs (at least 1). */
static inline int zb__cuda_key_bits(uint64_t max) {
  int bits = 1;
  while (bits < 64 && (max >> bits) != 0) bits++;
  return bits;
}

/* In-place exclusive prefix sum of data[0, n) on the device, waited for
 * (src/cuda/select.cu). */
zb_status zb__cuda_exclusive_sum(int device_id, int64_t *data, int64_t n, zb_error *err);

/* The backend's join_indices, unique, nunique, value_counts, duplicated and
 * isin entries: arguments, results and semantics those of the CPU
 * (src/cpu/join.c, src/cpu/hash.c), inputs validated and prepared by
 * src/core and on one CUDA device.  They return ZB__DECLINED (the core then
 * runs them on the CPU) for keys whose dictionaries differ and join outputs
 * too large to count; cross joins are not in the backend's table. */
zb_status zb__cuda_join_indices(const zb_column *const *lkeys, const zb_column *const *rkeys,
                                int64_t n_keys, int64_t n_left, int64_t n_right,
                                zb_join_how how, zb_column **left_idx, zb_column **right_idx,
                                zb_error *err);
zb_status zb__cuda_unique(const zb_column *col, zb_column **out, zb_error *err);
zb_status zb__cuda_nunique(const zb_column *col, bool dropna, int64_t *out, zb_error *err);
zb_status zb__cuda_value_counts(const zb_column *col, bool sort, bool ascending, bool dropna,
                                bool normalize, zb_column **values, zb_column **counts,
                                zb_error *err);
zb_status zb__cuda_duplicated(const zb_table *t, int64_t n_keys, const int64_t *keys,
                              zb_keep keep, zb_column **out, zb_error *err);
zb_status zb__cuda_isin(const zb_column *col, const zb_column *values, zb_column **out,
                        zb_error *err);

/* ---- strings and dates (src/cuda/strings.cu) ----------------------------- */

/* The backend's str and dt_field entries: arguments, results and semantics
 * those of zb_backend's entries and the CPU kernels (src/cpu/strings.c,
 * src/cpu/datetime.c), whose per-row code they share; inputs validated by
 * src/core and on one CUDA device. */
zb_status zb__cuda_str(const zb_column *col, const zb_str_args *args, zb_column **out,
                       zb_error *err);
zb_status zb__cuda_dt_field(const zb_column *col, zb_dt_field field, int64_t offset_s,
                            zb_column **out, zb_error *err);
/* A comparison (eq, ne, lt, le, gt, ge) of two string columns (or one and
 * a length-1 scalar column), as zb_backend.binary with compute type
 * STRING (the table sends no other op). */
zb_status zb__cuda_str_compare(zb_binary_op op, const zb_column *a, bool a_scalar,
                               const zb_column *b, bool b_scalar, zb_column **out,
                               zb_error *err);
/* fill_null and where of string columns (value / b: string columns, b a
 * length-1 scalar column when b_scalar), as zb_backend's entries. */
zb_status zb__cuda_str_fill_null(const zb_column *col, const zb_column *value, zb_column **out,
                                 zb_error *err);
zb_status zb__cuda_str_where(const zb_column *cond, bool mask, const zb_column *a,
                             const zb_column *b, bool b_scalar, zb_column **out, zb_error *err);

/* The backend's stat and quantile entries (src/cuda/stats.cu): var, std,
 * prod, any, all, argmin, argmax, median and quantiles with the CPU's
 * semantics (var / std / float prod within rounding; quantiles exact);
 * bools (but for var, std, prod, any, all) and strings are not in the
 * backend's table (dispatch.cu). */
zb_status zb__cuda_stat(const zb_column *col, zb_stat_op op, int64_t ddof, zb_scalar *out,
                        zb_error *err);
zb_status zb__cuda_quantile(const zb_column *col, int64_t n_q, const double *q, zb_scalar *out,
                            zb_error *err);

/* ---- group-by (src/cuda/groupby.cu) ------------------------------------- */

/* The backend's groupby and group_ids entries: arguments, results and
 * semantics those of src/cpu/groupby.c and src/cpu/groupby_agg.c (float
 * sums, means, var, std, corr and float products within rounding), inputs
 * validated by src/core and on one CUDA device.  nunique, min and max of
 * string columns are not in the backend's table (dispatch.cu). */
zb_status zb__cuda_groupby(const zb_table *t, int64_t n_keys, const int64_t *keys, bool dropna,
                           bool sort, int64_t n_aggs, const zb_agg *aggs, zb_table **out,
                           zb_error *err);
zb_status zb__cuda_group_ids(const zb_table *t, int64_t n_keys, const int64_t *keys,
                             bool dropna, bool sort, zb_column **out, int64_t *n_groups,
                             zb_error *err);
/* The backend's group_cumcount entry (src/cuda/cumcount.cu): each row's
 * position in its group counted from the first (or last) row, the CPU's
 * semantics and error for an id outside [0, n_groups). */
zb_status zb__cuda_group_cumcount(const zb_column *ids, int64_t n_groups, bool ascending,
                                  zb_column **out, zb_error *err);

/* The backend's fill_scan entry (src/cuda/fill_scan.cu): ffill / bfill of
 * any type with the CPU's semantics (limit INT64_MAX for none), a scan of
 * the nearest valid position, then the backend's take. */
zb_status zb__cuda_fill_scan(const zb_column *col, bool backward, int64_t limit,
                             zb_fill_area area, zb_column **out, zb_error *err);

/* The backend's cumulative entry for a whole column (src/cuda/cumulative.cu):
 * cumsum / cumprod / cummin / cummax of a number, date32 or timestamp
 * column with the CPU's semantics (float sums and products within
 * rounding); result is the type src/core chose (zb_cum_result_type).  Per
 * group (a call with group ids) is not in the backend's table. */
zb_status zb__cuda_cumulative(const zb_column *col, zb_cum_op op, bool skipna,
                              zb_type_id result, zb_column **out, zb_error *err);

/* The backend's rank (src/cuda/rank.cu): zb_column_rank's semantics,
 * exactly the CPU's results, whole column (ids NULL) or per group; every
 * type but strings. */
zb_status zb__cuda_rank(const zb_column *col, const zb_column *ids, int64_t n_groups,
                        zb_rank_method method, bool ascending, zb_rank_na na_option, bool pct,
                        zb_column **out, zb_error *err);

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__
/* Bit pos of an Arrow bitmap (least significant bit first). */
static __device__ __forceinline__ bool zb__cuda_bit(const uint8_t *bits, int64_t pos) {
  return ((bits[pos >> 3] >> (pos & 7)) & 1u) != 0;
}

/* Folds each warp's OR and AND of its keys and its count of missing rows
 * into acc[0], acc[1] and acc[2] (key kernels finding which bits vary and
 * how many rows are missing; called by every thread of whole warps). */
static __device__ __forceinline__ void zb__cuda_warp_key_bits(unsigned long long o,
                                                              unsigned long long a,
                                                              unsigned long long miss,
                                                              unsigned long long *acc) {
  for (int d = 16; d > 0; d >>= 1) {
    o |= __shfl_down_sync(0xffffffffu, o, d);
    a &= __shfl_down_sync(0xffffffffu, a, d);
    miss += __shfl_down_sync(0xffffffffu, miss, d);
  }
  if ((threadIdx.x & 31) == 0) {
    if (o != 0) atomicOr(&acc[0], o);
    if (a != ~0ull) atomicAnd(&acc[1], a);
    if (miss != 0) atomicAdd(&acc[2], miss);
  }
}
#endif

#ifdef __cplusplus
/* Puts the calling thread's current CUDA device back as it was when the
 * guard goes out of scope.  The backend makes the data's device current for
 * its work; CuPy or PyTorch code in the same thread must find its own
 * choice unchanged.  Every entry of the backend table holds one.  The
 * logic is zb__cuda_device_save/restore (device_table.c, tested with a
 * stubbed runtime). */
struct zb_cuda_device_guard {
  int prev;
  zb_cuda_device_guard() : prev(zb__cuda_device_save(&zb__cuda_rt_real)) {}
  ~zb_cuda_device_guard() { zb__cuda_device_restore(&zb__cuda_rt_real, prev); }
  zb_cuda_device_guard(const zb_cuda_device_guard &) = delete;
  zb_cuda_device_guard &operator=(const zb_cuda_device_guard &) = delete;
};
#endif

#endif /* ZAMBEZI_CUDA_INTERNAL_H */
