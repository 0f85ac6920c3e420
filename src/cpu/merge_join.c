/*
 * merge_join.c -- the CPU join of one integer or temporal key whose values
 * are strictly increasing on both sides (the labels of two time series,
 * sorted unique ids): a merge of the two sorted runs instead of a hash
 * join, called by zb__cpu_join_indices (src/cpu/join.c) before it hashes.
 *
 * Such keys are unique on each side, so every left row meets at most one
 * right row, and the merge's output order -- the left order for inner,
 * left, semi and anti; the union of the keys in increasing order for
 * outer -- is both the hash join's order and the order its caller would
 * sort the pairs into (so the caller need not sort them).
 *
 * Steps, in parallel:
 *   1. each side is checked strictly increasing by morsels (a quick look at
 *      the first rows first, so a key in random order costs next to
 *      nothing); a null, two key types or any other key declines;
 *   2. the left side is cut into chunks of CHUNK_ROWS rows, and each chunk
 *      takes the right rows from the lower bound of its first key up to
 *      the next chunk's (the first chunk from right row 0, the last to the
 *      end), so chunks partition both sides in key order;
 *   3. each chunk merges its runs counting matches, a prefix sum gives its
 *      output range, and a second merge writes its pairs; a side's missing
 *      partner is written -1 and becomes a null (zb__join_nullify).
 * The result is the same for every thread count.
 */
#include <string.h>

#include "core/dtype_list.h"
#include "cpu/join.h"
#include "cpu/kernels.h"

#define CHUNK_ROWS 65536 /* left rows per merge task */
#define PEEK_ROWS 64     /* rows looked at before the parallel check */

typedef struct merge_job merge_job;

/* The per-type functions (stamped below for each integer type). */
typedef struct merge_ops {
  /* v[i - 1] < v[i] for every i in [a, e) (a >= 1) */
  bool (*increasing)(const void *v, int64_t a, int64_t e);
  /* the first i in [0, n) with v[i] >= w[k], or n */
  int64_t (*lower_bound)(const void *v, int64_t n, const void *w, int64_t k);
  /* merge chunk k: the number of output rows, written to lo / ro from
   * position at when lo is not NULL */
  int64_t (*merge)(const merge_job *j, int64_t k, int64_t at);
} merge_ops;

struct merge_job {
  const merge_ops *ops;
  const void *lv, *rv; /* key values, the column offsets applied */
  int64_t nl, nr;
  zb_join_how how;
  bool left_only, right_only, matched, pairs; /* what the join emits */
  int64_t n_chunks;
  int64_t *rcut; /* [n_chunks + 1]: chunk k holds right rows [rcut[k], rcut[k + 1]) */
  int64_t *out;  /* [n_chunks]: output rows, then the first output row */
  int64_t *lo, *ro;
  const void *check; /* the side being checked */
  int64_t check_n;
  int failed;        /* atomic: a checked side is not strictly increasing */
};

static inline void chunk_left(const merge_job *j, int64_t k, int64_t *a, int64_t *e) {
  *a = ZB_MIN(k * CHUNK_ROWS, j->nl);
  *e = ZB_MIN(*a + CHUNK_ROWS, j->nl);
}

/* One chunk's merge.  The flags are the same for every row, so their
 * branches are predicted; lo == NULL counts without writing. */
#define MERGE_OPS(ID, T, NAME, U)                                                          \
  static bool increasing_##NAME(const void *p, int64_t a, int64_t e) {                    \
    const T *v = (const T *)p;                                                            \
    bool ok = true;                                                                       \
    for (int64_t i = a; i < e; i++) ok &= v[i - 1] < v[i];                                \
    return ok;                                                                            \
  }                                                                                       \
  static int64_t lower_bound_##NAME(const void *p, int64_t n, const void *w, int64_t k) { \
    const T *v = (const T *)p, x = ((const T *)w)[k];                                     \
    int64_t lo = 0, hi = n;                                                               \
    while (lo < hi) {                                                                     \
      int64_t mid = lo + (hi - lo) / 2;                                                   \
      if (v[mid] < x) lo = mid + 1;                                                       \
      else hi = mid;                                                                      \
    }                                                                                     \
    return lo;                                                                            \
  }                                                                                       \
  static int64_t merge_##NAME(const merge_job *j, int64_t k, int64_t at) {                \
    const T *L = (const T *)j->lv, *R = (const T *)j->rv;                                 \
    int64_t i, e, r = j->rcut[k], f = j->rcut[k + 1], n = 0;                              \
    chunk_left(j, k, &i, &e);                                                             \
    int64_t *lo = j->lo == NULL ? NULL : j->lo + at;                                      \
    int64_t *ro = j->ro == NULL ? NULL : j->ro + at;                                      \
    while (i < e && r < f) {                                                              \
      if (L[i] < R[r]) {                                                                  \
        if (j->left_only) {                                                               \
          if (lo != NULL) {                                                               \
            lo[n] = i;                                                                    \
            if (ro != NULL) ro[n] = -1;                                                   \
          }                                                                               \
          n++;                                                                            \
        }                                                                                 \
        i++;                                                                              \
      } else if (R[r] < L[i]) {                                                           \
        if (j->right_only) {                                                              \
          if (lo != NULL) {                                                               \
            lo[n] = -1;                                                                   \
            ro[n] = r;                                                                    \
          }                                                                               \
          n++;                                                                            \
        }                                                                                 \
        r++;                                                                              \
      } else {                                                                            \
        if (j->matched) {                                                                 \
          if (lo != NULL) {                                                               \
            lo[n] = i;                                                                    \
            if (ro != NULL) ro[n] = r;                                                    \
          }                                                                               \
          n++;                                                                            \
        }                                                                                 \
        i++;                                                                              \
        r++;                                                                              \
      }                                                                                   \
    }                                                                                     \
    for (; j->left_only && i < e; i++, n++) {                                             \
      if (lo == NULL) continue;                                                           \
      lo[n] = i;                                                                          \
      if (ro != NULL) ro[n] = -1;                                                         \
    }                                                                                     \
    for (; j->right_only && r < f; r++, n++) {                                            \
      if (lo == NULL) continue;                                                           \
      lo[n] = -1;                                                                         \
      ro[n] = r;                                                                          \
    }                                                                                     \
    return n;                                                                             \
  }                                                                                       \
  static const merge_ops ops_##NAME = {increasing_##NAME, lower_bound_##NAME, merge_##NAME};
ZB_FOR_EACH_INTEGER_TYPE(MERGE_OPS)
#undef MERGE_OPS

/* The functions for keys of physical type t, or NULL. */
static const merge_ops *ops_for(zb_type_id t) {
  switch (zb__physical(t)) {
#define OPS_CASE(ID, T, NAME, U) \
  case ID: return &ops_##NAME;
    ZB_FOR_EACH_INTEGER_TYPE(OPS_CASE)
#undef OPS_CASE
    default: return NULL;
  }
}

static void check_morsel(void *ctx, int64_t m, int worker) {
  (void)worker;
  merge_job *j = (merge_job *)ctx;
  if (__atomic_load_n(&j->failed, __ATOMIC_RELAXED)) return;
  int64_t a = ZB_MAX(m * ZB_MORSEL_ROWS, (int64_t)1);
  int64_t e = ZB_MIN(j->check_n, m * ZB_MORSEL_ROWS + ZB_MORSEL_ROWS);
  if (a < e && !j->ops->increasing(j->check, a, e))
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
}

/* v[0, n) is strictly increasing. */
static zb_status increasing(merge_job *j, const void *v, int64_t n, bool *ok, zb_error *err) {
  *ok = j->ops->increasing(v, 1, ZB_MIN(n, (int64_t)PEEK_ROWS));
  if (!*ok || n <= PEEK_ROWS) return ZB_OK;
  j->check = v;
  j->check_n = n;
  j->failed = 0;
  ZB_RETURN_NOT_OK(zb_parallel_for(zb__morsels(n), check_morsel, j, err));
  *ok = !j->failed;
  return ZB_OK;
}

static void cut_task(void *ctx, int64_t k, int worker) {
  (void)worker;
  merge_job *j = (merge_job *)ctx;
  j->rcut[k] = k == 0 ? 0 : j->ops->lower_bound(j->rv, j->nr, j->lv, k * CHUNK_ROWS);
}

static void count_task(void *ctx, int64_t k, int worker) {
  (void)worker;
  merge_job *j = (merge_job *)ctx;
  j->out[k] = j->ops->merge(j, k, 0);
}

static void write_task(void *ctx, int64_t k, int worker) {
  (void)worker;
  merge_job *j = (merge_job *)ctx;
  j->ops->merge(j, k, j->out[k]);
}

static const void *key_values(const zb_column *c) {
  return (const char *)c->data->data + c->offset * zb_type_width(c->type);
}

zb_status zb__cpu_merge_join(const zb_column *lkey, const zb_column *rkey, zb_join_how how,
                             zb_column **left_idx, zb_column **right_idx, bool *done,
                             zb_error *err) {
  *done = false;
  merge_job j;
  memset(&j, 0, sizeof j);
  /* categorical codes are int32 but do not order as their categories */
  j.ops = lkey->type == ZB_CATEGORICAL ? NULL : ops_for(lkey->type);
  if (j.ops == NULL || lkey->type != rkey->type || lkey->unit != rkey->unit ||
      lkey->null_count > 0 || rkey->null_count > 0 || how == ZB_JOIN_RIGHT ||
      how == ZB_JOIN_CROSS)
    return ZB_OK;
  j.lv = key_values(lkey);
  j.rv = key_values(rkey);
  j.nl = lkey->length;
  j.nr = rkey->length;
  bool ok;
  ZB_RETURN_NOT_OK(increasing(&j, j.lv, j.nl, &ok, err));
  if (ok) ZB_RETURN_NOT_OK(increasing(&j, j.rv, j.nr, &ok, err));
  if (!ok) return ZB_OK;

  j.how = how;
  j.left_only = how == ZB_JOIN_LEFT || how == ZB_JOIN_OUTER || how == ZB_JOIN_ANTI;
  j.right_only = how == ZB_JOIN_OUTER;
  j.matched = how != ZB_JOIN_ANTI;
  j.pairs = how != ZB_JOIN_SEMI && how != ZB_JOIN_ANTI;
  j.n_chunks = ZB_MAX((j.nl + CHUNK_ROWS - 1) / CHUNK_ROWS, (int64_t)1);
  zb_column *lc = NULL, *rc = NULL;
  zb_status st = ZB_OK;
  j.rcut = (int64_t *)zb_malloc((size_t)(j.n_chunks + 1) * sizeof(int64_t));
  j.out = (int64_t *)zb_malloc((size_t)j.n_chunks * sizeof(int64_t));
  if (j.rcut == NULL || j.out == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory joining %lld x %lld rows",
                      (long long)j.nl, (long long)j.nr);
    goto done;
  }
  j.rcut[j.n_chunks] = j.nr;
  st = zb_parallel_for(j.n_chunks, cut_task, &j, err);
  if (st == ZB_OK) st = zb_parallel_for(j.n_chunks, count_task, &j, err);
  if (st != ZB_OK) goto done;
  int64_t total = 0;
  for (int64_t k = 0; k < j.n_chunks; k++) { /* at most nl + nr: no overflow */
    int64_t c = j.out[k];
    j.out[k] = total;
    total += c;
  }
  bool outer = how == ZB_JOIN_OUTER;
  st = zb_column_new(ZB_INT64, total, outer, 0, &lc, err);
  if (st == ZB_OK && j.pairs)
    st = zb_column_new(ZB_INT64, total, how == ZB_JOIN_LEFT || outer, 0, &rc, err);
  if (st != ZB_OK) goto done;
  j.lo = (int64_t *)lc->data->data;
  j.ro = rc == NULL ? NULL : (int64_t *)rc->data->data;
  if (total > 0) st = zb_parallel_for(j.n_chunks, write_task, &j, err);
  if (st == ZB_OK && outer) st = zb__join_nullify(lc, err);
  if (st == ZB_OK && rc != NULL && rc->validity != NULL) st = zb__join_nullify(rc, err);
done:
  zb_free(j.rcut);
  zb_free(j.out);
  if (st != ZB_OK) {
    zb_column_release(lc);
    zb_column_release(rc);
    return st;
  }
  *left_idx = lc;
  *right_idx = rc;
  *done = true;
  return ZB_OK;
}
