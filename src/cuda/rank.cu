/*
 * rank.cu -- pandas' rank on a CUDA device (the CUDA side of ZB__OP_RANK,
 * whole columns and per group; src/cpu/rank.c is the reference, whose
 * results these equal exactly).
 *
 *   1. the order: the backend's stable sort_indices by the values, or by
 *      (group id, value), missing values first for na_option "top" and
 *      last otherwise;
 *   2. flags, one thread per sorted position: a new group (the group id
 *      differs from the position before), a new tie run (a new group, or
 *      a value unequal to the one before: floats compare as values, so
 *      -0.0 ties with 0.0; missing values tie with each other), missing,
 *      no group (a null id); with the arrays the scans need: the position
 *      where a run / group starts (else 0), and 1 per run start.  A group
 *      id outside [0, n_groups) is noted (the smallest row) and reported;
 *   3. CUB inclusive scans: max over the run starts and group starts gives
 *      each position its run's and group's first position; the sum of run
 *      starts, less the one at the group's start, its dense rank;
 *   4. each run start writes where the run before it ends;
 *   5. each position writes its rank (or NaN) to its row: average, min,
 *      max, first or dense from (run start, run end, group start, dense
 *      rank), as the CPU computes them; the group's last ranked run writes
 *      the group's divisor for pct;
 *   6. one thread per row (the elementwise row kernel): pct's division,
 *      the float64 values and the validity bitmap.
 *
 * Column types: numbers, bool, dates, timestamps and categoricals (their
 * codes); strings are left to the CPU by the support table.
 */
#define CCCL_DISABLE_NVTX
#include <cub/device/device_scan.cuh>

#include <math.h>
#include <stdint.h>

#include "cuda/elementwise.cuh"

namespace {

#define ZB_RANK_THREADS 256

enum { kRun = 1, kGroup = 2, kMiss = 4, kNoGroup = 8 };

struct zb_rank_max {
  __device__ __forceinline__ int64_t operator()(int64_t a, int64_t b) const {
    return a > b ? a : b;
  }
};

/* The group ids as kernels see them (data NULL: one group, 0). */
struct zb_rank_ids {
  const int64_t *data;
  const uint8_t *valid;
  int64_t offset;
};

__device__ __forceinline__ int64_t zb_rank_gid(const zb_rank_ids &g, int64_t r) {
  if (g.data == NULL) return 0;
  if (g.valid != NULL && !zb__cuda_bit(g.valid, g.offset + r)) return -1;
  return g.data[g.offset + r];
}

/* Row r is missing; else *key is equal for equal values. */
__device__ __forceinline__ bool zb_rank_key(const zb_operand &o, bool is_float, int64_t r,
                                            unsigned long long *key) {
  *key = 0;
  if (!zb_dvalid(o, r)) return true;
  if (is_float) {
    double v = zb_dload<double>(o, r);
    if (v != v) return true;
    *key = v == 0 ? 0ULL : (unsigned long long)__double_as_longlong(v);
    return false;
  }
  *key = zb_dload<unsigned long long>(o, r);
  return false;
}

/* Step 2. acc[0]: the smallest row whose group id is out of range. */
__global__ void __launch_bounds__(ZB_RANK_THREADS)
    zb_rank_flags_kernel(zb_operand o, bool is_float, zb_rank_ids g, int64_t n_groups,
                         const int64_t *__restrict__ perm, int64_t n, uint8_t *__restrict__ fl,
                         int64_t *__restrict__ run0, int64_t *__restrict__ grp0,
                         int64_t *__restrict__ runs, unsigned long long *__restrict__ acc) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t r = perm[i];
    unsigned long long k;
    const bool m = zb_rank_key(o, is_float, r, &k);
    const int64_t gid = zb_rank_gid(g, r);
    if (g.data != NULL && (gid >= n_groups || gid < -1 ||
                           (gid == -1 && (g.valid == NULL ||
                                          zb__cuda_bit(g.valid, g.offset + r)))))
      atomicMin(acc, (unsigned long long)r);
    unsigned f = (m ? kMiss : 0u) | (gid < 0 ? kNoGroup : 0u);
    if (i == 0) {
      f |= kGroup | kRun;
    } else {
      const int64_t p = perm[i - 1];
      unsigned long long kp;
      const bool mp = zb_rank_key(o, is_float, p, &kp);
      if (zb_rank_gid(g, p) != gid)
        f |= kGroup | kRun;
      else if (m != mp || (!m && k != kp))
        f |= kRun;
    }
    fl[i] = (uint8_t)f;
    run0[i] = (f & kRun) ? i : 0;
    grp0[i] = (f & kGroup) ? i : 0;
    runs[i] = (f & kRun) ? 1 : 0;
  }
}

/* Step 4: run_end[s] for every run start s. */
__global__ void __launch_bounds__(ZB_RANK_THREADS)
    zb_rank_ends_kernel(const uint8_t *__restrict__ fl, const int64_t *__restrict__ run0,
                        int64_t n, int64_t *__restrict__ run_end) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    if (i + 1 == n) run_end[run0[i]] = n;
    if (i > 0 && (fl[i] & kRun)) run_end[run0[i - 1]] = i;
  }
}

/* Step 5. */
__global__ void __launch_bounds__(ZB_RANK_THREADS)
    zb_rank_write_kernel(const uint8_t *__restrict__ fl, const int64_t *__restrict__ run0,
                         const int64_t *__restrict__ grp0, const int64_t *__restrict__ runs,
                         const int64_t *__restrict__ run_end, const int64_t *__restrict__ perm,
                         zb_rank_ids g, int64_t n, int method, bool keep,
                         double *__restrict__ ranks, double *__restrict__ div) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t s = run0[i], e = run_end[s], g0 = grp0[i];
    const int64_t d = runs[i] - runs[g0] + 1;
    const unsigned f = fl[s];
    if ((f & kNoGroup) || (keep && (f & kMiss))) {
      ranks[perm[i]] = NAN;
      continue;
    }
    double v;
    switch (method) {
      case ZB_RANK_AVERAGE: v = (double)(s + e + 1 - 2 * g0) * 0.5; break;
      case ZB_RANK_MIN: v = (double)(s - g0 + 1); break;
      case ZB_RANK_MAX: v = (double)(e - g0); break;
      case ZB_RANK_FIRST: v = (double)(i - g0 + 1); break;
      default: v = (double)d; break;
    }
    ranks[perm[i]] = v;
    if (i == s && (e == n || (fl[e] & kGroup) || (keep && (fl[e] & kMiss))))
      div[zb_rank_gid(g, perm[s])] = method == ZB_RANK_DENSE ? (double)d : (double)(e - g0);
  }
}

/* Step 6: row i of the result. */
struct zb_rank_finish {
  const double *ranks, *div;
  zb_rank_ids g;
  bool pct;
  double *data;
  __device__ zb_row operator()(int64_t i) const {
    double v = ranks[i];
    if (pct && v == v) v /= div[zb_rank_gid(g, i)];
    zb_row r;
    r.bit = false;
    r.bad = false;
    r.valid = v == v;
    data[i] = r.valid ? v : 0.0;
    return r;
  }
};

zb_status zb_rank_scan(int dev, int64_t *a, int64_t n, bool sum, zb_buffer **temp,
                       size_t *have, zb_error *err) {
  size_t need = 0;
  if (sum) {
    ZB_RETURN_NOT_OK(zb__cuda_check(cub::DeviceScan::InclusiveSum(NULL, need, a, a, n),
                                    "cub::DeviceScan::InclusiveSum (size query)", dev, err));
    ZB_RETURN_NOT_OK(zb__cuda_scratch(dev, need, temp, have, err));
    return zb__cuda_check(cub::DeviceScan::InclusiveSum((*temp)->data, *have, a, a, n),
                          "cub::DeviceScan::InclusiveSum", dev, err);
  }
  ZB_RETURN_NOT_OK(zb__cuda_check(cub::DeviceScan::InclusiveScan(NULL, need, a, a,
                                                                 zb_rank_max(), n),
                                  "cub::DeviceScan::InclusiveScan (size query)", dev, err));
  ZB_RETURN_NOT_OK(zb__cuda_scratch(dev, need, temp, have, err));
  return zb__cuda_check(
      cub::DeviceScan::InclusiveScan((*temp)->data, *have, a, a, zb_rank_max(), n),
      "cub::DeviceScan::InclusiveScan", dev, err);
}

} /* namespace */

extern "C" zb_status zb__cuda_rank(const zb_column *col, const zb_column *ids, int64_t n_groups,
                                   zb_rank_method method, bool ascending, zb_rank_na na_option,
                                   bool pct, zb_column **out, zb_error *err) {
  *out = NULL;
  const int dev = col->device.id;
  const int64_t n = col->length;
  const bool keep = na_option == ZB_RANK_NA_KEEP;
  ZB_RETURN_NOT_OK(zb__cuda_set_device(dev, err));
  zb_cuda_out r;
  memset(&r, 0, sizeof r);
  if (n == 0) {
    ZB_RETURN_NOT_OK(zb__cuda_out_begin(col->device, ZB_FLOAT64, 0, false, &r, err));
    return zb_cuda_rows_finish(zb_rank_finish(), &r, "rank", ZB_FLOAT64, NULL, out, err);
  }
  /* 1. the order */
  zb_column *perm = NULL;
  zb_table *t = NULL;
  zb_column *cols[2];
  int64_t nk = 0;
  if (ids != NULL) cols[nk++] = (zb_column *)ids;
  cols[nk++] = (zb_column *)col;
  const char *names[2] = {"ids", "values"};
  const int64_t keys[2] = {0, 1};
  const bool asc[2] = {true, ascending};
  zb_status st = zb_table_make(nk, cols, names + (2 - nk), &t, err);
  if (st == ZB_OK)
    st = zb__cuda_sort_indices(t, nk, keys, asc + (2 - nk), na_option == ZB_RANK_NA_TOP, &perm,
                               err);
  zb_table_release(t);
  if (st != ZB_OK) return st;
  const int64_t *pv = (const int64_t *)perm->data->data;

  zb_buffer *fl = NULL, *run0 = NULL, *grp0 = NULL, *runs = NULL, *ends = NULL, *ranks = NULL,
            *div = NULL, *acc = NULL, *temp = NULL;
  size_t have = 0;
  unsigned long long bad = ~0ULL;
  const int64_t ng = ids != NULL ? n_groups : 1;
  st = zb__cuda_buffer(dev, n, &fl, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 8, &run0, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 8, &grp0, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 8, &runs, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 8, &ends, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, n * 8, &ranks, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, ZB_MAX(ng, (int64_t)1) * 8, &div, err);
  if (st == ZB_OK) st = zb__cuda_upload(dev, &bad, 8, &acc, err);
  zb_rank_ids g;
  g.data = ids != NULL ? (const int64_t *)ids->data->data : NULL;
  g.valid = ids != NULL && ids->validity != NULL ? (const uint8_t *)ids->validity->data : NULL;
  g.offset = ids != NULL ? ids->offset : 0;
  const unsigned blocks = zb__cuda_blocks(dev, n, ZB_RANK_THREADS);
  /* 2. flags */
  if (st == ZB_OK) {
    zb_rank_flags_kernel<<<blocks, ZB_RANK_THREADS>>>(
        zb__cuda_operand(col, false), zb_type_is_float(col->type), g, n_groups, pv, n,
        (uint8_t *)fl->data, (int64_t *)run0->data, (int64_t *)grp0->data,
        (int64_t *)runs->data, (unsigned long long *)acc->data);
    st = zb__cuda_launched("rank (flags)", dev, err);
  }
  if (st == ZB_OK && ids != NULL) {
    st = zb__cuda_read(dev, &bad, acc->data, 8, "cudaMemcpy", err);
    if (st == ZB_OK && bad != ~0ULL) {
      int64_t id = 0;
      st = zb__cuda_read(dev, &id, g.data + g.offset + (int64_t)bad, 8, "cudaMemcpy", err);
      if (st == ZB_OK)
        st = zb_error_set(err, ZB_EINDEX, "rank: group id %lld at row %lld is outside [0, %lld)",
                          (long long)id, (long long)bad, (long long)n_groups);
    }
  }
  /* 3. scans */
  if (st == ZB_OK) st = zb_rank_scan(dev, (int64_t *)run0->data, n, false, &temp, &have, err);
  if (st == ZB_OK) st = zb_rank_scan(dev, (int64_t *)grp0->data, n, false, &temp, &have, err);
  if (st == ZB_OK) st = zb_rank_scan(dev, (int64_t *)runs->data, n, true, &temp, &have, err);
  /* 4. run ends */
  if (st == ZB_OK) {
    zb_rank_ends_kernel<<<blocks, ZB_RANK_THREADS>>>(
        (const uint8_t *)fl->data, (const int64_t *)run0->data, n, (int64_t *)ends->data);
    st = zb__cuda_launched("rank (run ends)", dev, err);
  }
  /* 5. ranks by row */
  if (st == ZB_OK) {
    zb_rank_write_kernel<<<blocks, ZB_RANK_THREADS>>>(
        (const uint8_t *)fl->data, (const int64_t *)run0->data, (const int64_t *)grp0->data,
        (const int64_t *)runs->data, (const int64_t *)ends->data, pv, g, n, (int)method, keep,
        (double *)ranks->data, (double *)div->data);
    st = zb__cuda_launched("rank (write)", dev, err);
  }
  /* 6. pct, values and validity */
  if (st == ZB_OK) st = zb__cuda_out_begin(col->device, ZB_FLOAT64, n, true, &r, err);
  if (st == ZB_OK) {
    zb_rank_finish f;
    f.ranks = (const double *)ranks->data;
    f.div = (const double *)div->data;
    f.g = g;
    f.pct = pct;
    f.data = (double *)r.data->data;
    /* waits for the device before the scratch is freed */
    st = zb_cuda_rows_finish(f, &r, "rank", ZB_FLOAT64, NULL, out, err);
  }
  if (st != ZB_OK) (void)zb__cuda_wait("rank", dev, NULL);
  zb_column_release(perm);
  zb_buffer_release(fl);
  zb_buffer_release(run0);
  zb_buffer_release(grp0);
  zb_buffer_release(runs);
  zb_buffer_release(ends);
  zb_buffer_release(ranks);
  zb_buffer_release(div);
  zb_buffer_release(acc);
  zb_buffer_release(temp);
  return st;
}
