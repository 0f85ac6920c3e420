/*
 * join.cu -- row-index pairs of a join of key columns on a CUDA device (the
 * CUDA side of zb_backend.join_indices; src/cpu/join.c is the reference,
 * and the output is the same pairs in the same order).
 *
 * Sort-based: the left rows (0 .. n_left - 1) and the right rows (n_left ..
 * n_left + n_right - 1) are grouped together by equal keys (keys.cuh,
 * grouped in src/cuda/hash.cu).  A group lists its left rows, then its
 * right rows, each in ascending row order, so a left row's matches are the
 * positions [first right, group end) of its group -- in right row order,
 * as join.h wants.  Rows with a null key are in groups flagged `miss` and
 * match nothing.  Then:
 *   1. per group, its first right position (the group end if none);
 *   2. per left row (written through the sorted positions): its match
 *      count, where its matches start, and its output row count (inner:
 *      the count; left / outer: at least 1; semi: count > 0; anti: count
 *      == 0); for outer, per right row whether it matched nothing;
 *   3. exclusive scans of the left rows' output counts and of the
 *      unmatched right rows: each left row's first output row, the total;
 *   4. output row j of the left part: its left row is found by binary
 *      search in the scanned counts, its right row is the (j - first)-th
 *      match; output rows after the left part (outer) are the unmatched
 *      right rows in right order (binary search in their scan) with no
 *      left row.  One warp writes 32 output rows, so the validity bits of
 *      each 32-bit word come from one ballot.
 * The left rows are walked in order and each one's matches in right order,
 * so the output order is the CPU's: inner / left in left row order, outer
 * the left join then the unmatched right rows, semi / anti the left rows.
 * A right join is the left join of the swapped inputs, as on the CPU.  The
 * core sorts outer joins by key afterwards, as for the CPU's output.
 *
 * Counts and indices are 64-bit (an output of more than 2^31 pairs is
 * fine); a join whose output could exceed INT64_MAX rows is declined, and
 * the CPU reports it.  Cross joins are declined too.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cuda/keys.cuh"

namespace {

/* fr[g] = starts[g + 1] (no right row yet) for the n_groups groups. */
__global__ void __launch_bounds__(ZB_KEY_THREADS)
    zb_join_fr_init_kernel(const int64_t *__restrict__ starts, int64_t n_groups,
                           int64_t *__restrict__ fr) {
  ZB_KEY_FOR(g, n_groups) fr[g] = starts[g + 1];
}

/* fr[g] = the first position of group g holding a right row (a row >= nd):
 * the right row at a group start or after a left row. */
__global__ void __launch_bounds__(ZB_KEY_THREADS)
    zb_join_fr_kernel(const int64_t *__restrict__ perm, const int64_t *__restrict__ ex,
                      int64_t n, int64_t nd, int64_t *__restrict__ fr) {
  ZB_KEY_FOR(i, n) {
    if (perm[i] < nd) continue;
    const bool head = ex[i + 1] != ex[i];
    if (head || perm[i - 1] < nd) fr[ex[i + 1] - 1] = i;
  }
}

/* Output rows of a left row with `c` matches. */
__device__ __forceinline__ int64_t zb_join_out_rows(int how, int64_t c) {
  switch (how) {
  case ZB_JOIN_INNER: return c;
  case ZB_JOIN_SEMI: return c > 0 ? 1 : 0;
  case ZB_JOIN_ANTI: return c == 0 ? 1 : 0;
  default: return c > 0 ? c : 1; /* left, outer */
  }
}

/* Step 2: for each sorted position i holding left row r: cnt[r] = its
 * matches, rs[r] = the position of its first match, off[r] = its output
 * rows; holding right row r (unm not NULL): unm[r - nd] = 1 when it
 * matched no left row, else 0. */
__global__ void __launch_bounds__(ZB_KEY_THREADS)
    zb_join_rows_kernel(const int64_t *__restrict__ perm, const int64_t *__restrict__ ex,
                        const int64_t *__restrict__ starts, const uint8_t *__restrict__ miss,
                        const int64_t *__restrict__ fr, int64_t n, int64_t nd, int how,
                        int64_t *__restrict__ cnt, int64_t *__restrict__ rs,
                        int64_t *__restrict__ off, int64_t *__restrict__ unm) {
  ZB_KEY_FOR(i, n) {
    const int64_t r = perm[i], g = ex[i + 1] - 1;
    const int64_t first = fr[g];
    if (r < nd) {
      const int64_t c = miss[i] ? 0 : starts[g + 1] - first;
      cnt[r] = c;
      rs[r] = first;
      off[r] = zb_join_out_rows(how, c);
    } else if (unm != NULL) {
      const bool matched = !miss[i] && first > starts[g];
      unm[r - nd] = matched ? 0 : 1;
    }
  }
}

/* The last index k in [0, m) with scan[k] <= j (scan ascending, scan[0] = 0
 * <= j, m >= 1): then scan[k] <= j < scan[k + 1]. */
__device__ __forceinline__ int64_t zb_join_find(const int64_t *scan, int64_t m, int64_t j) {
  int64_t lo = 0, hi = m - 1;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (scan[mid] <= j)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* Step 4 for inner, left and outer: output rows [0, total); rows below t1
 * are the left part.  lvalid / rvalid (NULL: not wanted) get the validity
 * words; *rnulls += output rows without a right row. */
__global__ void __launch_bounds__(ZB_KEY_THREADS)
    zb_join_pairs_kernel(const int64_t *__restrict__ off, const int64_t *__restrict__ cnt,
                         const int64_t *__restrict__ rs, int64_t nd,
                         const int64_t *__restrict__ perm, const int64_t *__restrict__ uoff,
                         int64_t nb, int64_t t1, int64_t total, int64_t *__restrict__ lo,
                         int64_t *__restrict__ ro, uint32_t *__restrict__ lvalid,
                         uint32_t *__restrict__ rvalid, unsigned long long *__restrict__ rnulls) {
  const int lane = (int)(threadIdx.x & 31);
  const int64_t words = (total + 31) / 32;
  unsigned long long my_nulls = 0;
  ZB_KEY_FOR_WARP(w, words) {
    const int64_t j = w * 32 + lane;
    bool lv = false, rv = false;
    if (j < total) {
      int64_t l = 0, r = 0;
      if (j < t1) {
        l = zb_join_find(off, nd, j);
        lv = true;
        if (cnt[l] > 0) {
          r = perm[rs[l] + (j - off[l])] - nd;
          rv = true;
        }
      } else {
        r = zb_join_find(uoff, nb, j - t1);
        rv = true;
      }
      lo[j] = l;
      ro[j] = r;
    }
    const unsigned lw = __ballot_sync(0xffffffffu, lv);
    const unsigned rw = __ballot_sync(0xffffffffu, rv);
    if (lane == 0) {
      if (lvalid != NULL) lvalid[w] = lw;
      if (rvalid != NULL) rvalid[w] = rw;
      const int64_t in_word = total - w * 32 < 32 ? total - w * 32 : 32;
      my_nulls += (unsigned long long)(in_word - __popc(rw));
    }
  }
  if (lane == 0 && my_nulls != 0) atomicAdd(rnulls, my_nulls);
}

/* Step 4 for semi and anti: lo[off[l]] = l for each left row l that has
 * an output row. */
__global__ void __launch_bounds__(ZB_KEY_THREADS)
    zb_join_rows_out_kernel(const int64_t *__restrict__ off, const int64_t *__restrict__ cnt,
                            int64_t nd, bool semi, int64_t *__restrict__ lo) {
  ZB_KEY_FOR(l, nd) {
    const bool keep = semi ? cnt[l] > 0 : cnt[l] == 0;
    if (keep) lo[off[l]] = l;
  }
}

/* The device buffers of one join. */
struct zb_join_bufs {
  zb_buffer *fr, *cnt, *rs, *off, *uoff, *lo, *ro, *lvalid, *rvalid, *nulls;
};

void zb_join_bufs_reset(zb_join_bufs *b) {
  zb_buffer *all[] = {b->fr, b->cnt, b->rs, b->off, b->uoff, b->lo, b->ro, b->lvalid,
                      b->rvalid, b->nulls};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) zb_buffer_release(all[i]);
  memset(b, 0, sizeof *b);
}

unsigned zb_join_blocks(int dev, int64_t items) {
  return zb__cuda_blocks(dev, items, ZB_KEY_THREADS);
}

zb_status zb_join_zero(int dev, void *p, int64_t size, zb_error *err) {
  return zb__cuda_check(cudaMemsetAsync(p, 0, (size_t)size, 0), "cudaMemsetAsync", dev, err);
}

/* An INT64 index column of m rows over data with validity words (or NULL)
 * holding `nulls` nulls. */
zb_status zb_join_column(zb_buffer *data, zb_buffer *valid, int64_t m, int64_t nulls,
                         zb_column **out, zb_error *err) {
  return zb_column_make(ZB_INT64, m, 0, nulls > 0 ? valid : NULL, data, NULL, NULL, nulls, out,
                        err);
}

/* The join of driver keys dk (nd rows; its order is the output's) with
 * build keys bk (nb rows); how is inner, left, outer, semi or anti. */
zb_status zb_join(const zb_column *const *dk, const zb_column *const *bk, int64_t n_keys,
                  int64_t nd, int64_t nb, zb_join_how how, zb_column **d_out,
                  zb_column **b_out, zb_error *err) {
  const int dev = dk[0]->device.id;
  const int64_t n = nd + nb;
  const bool outer = how == ZB_JOIN_OUTER;
  const bool pairs = how != ZB_JOIN_SEMI && how != ZB_JOIN_ANTI;
  zb_join_bufs b;
  memset(&b, 0, sizeof b);
  zb_groups g;
  memset(&g, 0, sizeof g);
  zb_column *lc = NULL, *rc = NULL;
  int64_t t1 = 0, t2 = 0, total = 0;
  unsigned long long rnulls = 0;

  zb_kcol *kc = (zb_kcol *)zb_malloc((size_t)n_keys * sizeof(zb_kcol));
  if (kc == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (join keys)");
  for (int64_t c = 0; c < n_keys; c++) {
    zb__cuda_kside(&kc[c], 0, dk[c]);
    zb__cuda_kside(&kc[c], 1, bk[c]);
  }
  zb_status st = zb__cuda_group(dev, kc, n_keys, nd, n, &g, err);
  zb_free(kc);
  if (st != ZB_OK) return st;
  const int64_t G = g.n_groups;
  const int64_t *perm = (const int64_t *)g.perm->data;
  const int64_t *ex = (const int64_t *)g.ex->data;
  const int64_t *starts = (const int64_t *)g.starts->data;

  /* steps 1 and 2 */
  st = zb__cuda_buffer(dev, G * 8, &b.fr, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, nd * 8, &b.cnt, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, nd * 8, &b.rs, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, (nd + 1) * 8, &b.off, err);
  if (st == ZB_OK && outer) st = zb__cuda_buffer(dev, (nb + 1) * 8, &b.uoff, err);
  if (st == ZB_OK) st = zb_join_zero(dev, (int64_t *)b.off->data + nd, 8, err);
  if (st == ZB_OK && outer) st = zb_join_zero(dev, (int64_t *)b.uoff->data + nb, 8, err);
  int64_t *fr = st == ZB_OK ? (int64_t *)b.fr->data : NULL;
  if (st == ZB_OK && G > 0) {
    zb_join_fr_init_kernel<<<zb_join_blocks(dev, G), ZB_KEY_THREADS>>>(starts, G, fr);
    st = zb__cuda_launched("join (group ends)", dev, err);
    if (st == ZB_OK) {
      zb_join_fr_kernel<<<zb_join_blocks(dev, n), ZB_KEY_THREADS>>>(perm, ex, n, nd, fr);
      st = zb__cuda_launched("join (first right rows)", dev, err);
    }
    if (st == ZB_OK) {
      zb_join_rows_kernel<<<zb_join_blocks(dev, n), ZB_KEY_THREADS>>>(
          perm, ex, starts, (const uint8_t *)g.miss->data, fr, n, nd, (int)how,
          (int64_t *)b.cnt->data, (int64_t *)b.rs->data, (int64_t *)b.off->data,
          outer ? (int64_t *)b.uoff->data : NULL);
      st = zb__cuda_launched("join (match counts)", dev, err);
    }
  }
  /* step 3 */
  if (st == ZB_OK) st = zb__cuda_exclusive_sum(dev, (int64_t *)b.off->data, nd + 1, err);
  if (st == ZB_OK)
    st = zb__cuda_read(dev, &t1, (const int64_t *)b.off->data + nd, 8,
                       "cudaMemcpy of the join's row count", err);
  if (st == ZB_OK && outer) st = zb__cuda_exclusive_sum(dev, (int64_t *)b.uoff->data, nb + 1, err);
  if (st == ZB_OK && outer)
    st = zb__cuda_read(dev, &t2, (const int64_t *)b.uoff->data + nb, 8,
                       "cudaMemcpy of the join's unmatched right rows", err);
  /* the entry checked that no count can overflow */
  if (st == ZB_OK && (t1 < 0 || t2 < 0 || t2 > nb || t1 > INT64_MAX - t2))
    st = zb_error_set(err, ZB_EDEVICE, "join on cuda:%d: bad output counts %lld + %lld", dev,
                      (long long)t1, (long long)t2);
  total = st == ZB_OK ? t1 + t2 : 0;

  /* step 4 */
  const int64_t words = (total + 31) / 32;
  if (st == ZB_OK) st = zb__cuda_buffer(dev, total * 8, &b.lo, err);
  if (st == ZB_OK && pairs) st = zb__cuda_buffer(dev, total * 8, &b.ro, err);
  if (st == ZB_OK && outer) st = zb__cuda_buffer(dev, words * 4, &b.lvalid, err);
  if (st == ZB_OK && pairs && how != ZB_JOIN_INNER)
    st = zb__cuda_buffer(dev, words * 4, &b.rvalid, err);
  if (st == ZB_OK) st = zb__cuda_buffer(dev, 8, &b.nulls, err);
  if (st == ZB_OK) st = zb_join_zero(dev, b.nulls->data, 8, err);
  if (st == ZB_OK && total > 0 && pairs) {
    zb_join_pairs_kernel<<<zb_join_blocks(dev, words * 32), ZB_KEY_THREADS>>>(
        (const int64_t *)b.off->data, (const int64_t *)b.cnt->data,
        (const int64_t *)b.rs->data, nd, perm,
        outer ? (const int64_t *)b.uoff->data : NULL, nb, t1, total, (int64_t *)b.lo->data,
        (int64_t *)b.ro->data, b.lvalid != NULL ? (uint32_t *)b.lvalid->data : NULL,
        b.rvalid != NULL ? (uint32_t *)b.rvalid->data : NULL,
        (unsigned long long *)b.nulls->data);
    st = zb__cuda_launched("join (pairs)", dev, err);
  } else if (st == ZB_OK && total > 0) {
    zb_join_rows_out_kernel<<<zb_join_blocks(dev, nd), ZB_KEY_THREADS>>>(
        (const int64_t *)b.off->data, (const int64_t *)b.cnt->data, nd,
        how == ZB_JOIN_SEMI, (int64_t *)b.lo->data);
    st = zb__cuda_launched("join (rows)", dev, err);
  }
  if (st == ZB_OK && b.rvalid != NULL)
    st = zb__cuda_read(dev, &rnulls, b.nulls->data, 8, "cudaMemcpy of the join's null count",
                       err);
  /* every kernel done (and its errors seen) before buffers are freed */
  zb_status ws = zb__cuda_wait("join", dev, st == ZB_OK ? err : NULL);
  if (st == ZB_OK) st = ws;
  if (st == ZB_OK && rnulls > (unsigned long long)total)
    st = zb_error_set(err, ZB_EDEVICE, "join on cuda:%d: %llu nulls in %lld rows", dev,
                      rnulls, (long long)total);
  if (st == ZB_OK) st = zb_join_column(b.lo, b.lvalid, total, outer ? t2 : 0, &lc, err);
  if (st == ZB_OK && pairs)
    st = zb_join_column(b.ro, b.rvalid, total, b.rvalid != NULL ? (int64_t)rnulls : 0, &rc,
                        err);
  zb_join_bufs_reset(&b);
  zb__cuda_groups_reset(&g);
  if (st != ZB_OK) {
    zb_column_release(lc);
    zb_column_release(rc);
    return st;
  }
  *d_out = lc;
  *b_out = rc;
  return ZB_OK;
}

} /* namespace */

extern "C" zb_status zb__cuda_join_indices(const zb_column *const *lkeys,
                                           const zb_column *const *rkeys, int64_t n_keys,
                                           int64_t n_left, int64_t n_right, zb_join_how how,
                                           zb_column **left_idx, zb_column **right_idx,
                                           zb_error *err) {
  if (how == ZB_JOIN_CROSS || n_keys < 1) /* cross joins are not in the table */
    return zb_error_set(err, ZB_EINVAL, "join on cuda: no GPU cross join");
  for (int64_t c = 0; c < n_keys; c++) {
    const zb_column *a = lkeys[c], *b = rkeys[c];
    bool ok = false;
    if (a->type == ZB_CATEGORICAL || b->type == ZB_CATEGORICAL) {
      /* codes compare only within one dictionary (the core shares it) */
      if (a->type != b->type || a->dictionary != b->dictionary) return (zb_status)ZB__DECLINED;
    }
    /* strings compare with strings only */
    if ((a->type == ZB_STRING) != (b->type == ZB_STRING)) return (zb_status)ZB__DECLINED;
    ZB_RETURN_NOT_OK(zb__cuda_key_ok(a, &ok, err));
    /* one shared dictionary is checked once */
    if (ok && b != a && (b->type != ZB_CATEGORICAL || b->dictionary != a->dictionary))
      ZB_RETURN_NOT_OK(zb__cuda_key_ok(b, &ok, err));
    if (!ok) return (zb_status)ZB__DECLINED;
  }
  const bool swap = how == ZB_JOIN_RIGHT;
  const int64_t nd = swap ? n_right : n_left, nb = swap ? n_left : n_right;
  /* output rows <= nd * max(nb, 1) (+ nb for outer): must fit in int64,
   * and their 8-byte indices in a buffer size */
  int64_t most = 0, n = 0;
  if (__builtin_mul_overflow(nd, nb > 1 ? nb : 1, &most) ||
      __builtin_add_overflow(most, nb, &most) || __builtin_add_overflow(nd, nb, &n) ||
      most > INT64_MAX / 8)
    return (zb_status)ZB__DECLINED;
  *left_idx = NULL;
  *right_idx = NULL;
  ZB_RETURN_NOT_OK(zb__cuda_set_device(lkeys[0]->device.id, err));
  if (swap)
    return zb_join(rkeys, lkeys, n_keys, nd, nb, ZB_JOIN_LEFT, right_idx, left_idx, err);
  return zb_join(lkeys, rkeys, n_keys, nd, nb, how, left_idx, right_idx, err);
}
