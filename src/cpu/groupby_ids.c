/*
 * groupby_ids.c -- aggregation over group ids computed before
 * (zb_table_groupby_ids): the rows are not grouped again, the ids column
 * is the grouping.  A GroupBy object in Python groups its keys once and
 * hands the ids here for every later aggregation (Dask's chunk step asks
 * one column at a time of the same GroupBy).
 *
 * The ids are read where they lie when they have no nulls (after one
 * parallel pass that checks their range); with nulls, a copy marks the
 * rows in no group with -1, as src/cpu/groupby.c's groupings do.  The
 * aggregation kernels are src/cpu/groupby_agg.c's, so results equal
 * zb_table_groupby's aggregation columns.
 */
#include <string.h>

#include "cpu/groupby.h"

typedef struct ids_check_job {
  const int64_t *v;     /* the ids' values */
  const zb_column *ids; /* for validity */
  int64_t n, n_groups;
  int64_t *copy;   /* NULL: check only; else the ids with -1 for nulls */
  int64_t *bad;    /* per morsel: the first row out of range, or -1 */
} ids_check_job;

static void ids_check_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  ids_check_job *j = (ids_check_job *)ctx;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(j->n, s + ZB_MORSEL_ROWS);
  uint64_t G = (uint64_t)j->n_groups;
  j->bad[task] = -1;
  if (j->copy == NULL) { /* no nulls: a branch-free range test per block */
    for (int64_t b = s; b < e; b += ZB_BLOCK) {
      int64_t m = ZB_MIN((int64_t)ZB_BLOCK, e - b);
      uint64_t out = 0;
      for (int64_t i = 0; i < m; i++) out |= (uint64_t)((uint64_t)j->v[b + i] >= G);
      if (out == 0) continue;
      for (int64_t i = 0; i < m; i++)
        if ((uint64_t)j->v[b + i] >= G) {
          j->bad[task] = b + i;
          return;
        }
    }
    return;
  }
  for (int64_t r = s; r < e; r++) {
    bool valid = zb_column_is_valid(j->ids, r);
    if (valid && (uint64_t)j->v[r] >= G) {
      j->bad[task] = r;
      return;
    }
    j->copy[r] = valid ? j->v[r] : -1;
  }
}

zb_status zb__cpu_groupby_ids(const zb_table *t, const zb_column *ids, int64_t n_groups,
                              int64_t n_aggs, const zb_agg *aggs, zb_table **out,
                              zb_error *err) {
  *out = NULL;
  const int64_t n = ids->length, nm = zb__morsels(n);
  const bool nulls = ids->null_count > 0;
  ids_check_job j = {(const int64_t *)ids->data->data + ids->offset, ids, n, n_groups,
                     NULL, NULL};
  zb__grouping g;
  memset(&g, 0, sizeof g);
  zb_column **cols = (zb_column **)zb_calloc((size_t)ZB_MAX(n_aggs, 1), sizeof(zb_column *));
  const char **names = (const char **)zb_calloc((size_t)ZB_MAX(n_aggs, 1), sizeof(char *));
  j.bad = (int64_t *)zb_malloc((size_t)ZB_MAX(nm, 1) * sizeof(int64_t));
  if (nulls) j.copy = (int64_t *)zb_malloc((size_t)ZB_MAX(n, 1) * sizeof(int64_t));
  zb_status st = ZB_OK;
  if (cols == NULL || names == NULL || j.bad == NULL || (nulls && j.copy == NULL)) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory in group-by by ids (%lld rows)",
                      (long long)n);
    goto done;
  }
  st = zb_parallel_for(nm, ids_check_morsel, &j, err);
  for (int64_t m = 0; st == ZB_OK && m < nm; m++)
    if (j.bad[m] >= 0)
      st = zb_error_set(err, ZB_EINDEX, "group-by by ids: group id %lld at row %lld is outside "
                        "[0, %lld)", (long long)j.v[j.bad[m]], (long long)j.bad[m],
                        (long long)n_groups);
  if (st != ZB_OK) goto done;
  /* The grouping borrows the ids (no nulls) or owns the copy; gid is
   * cleared before reset in the first case. */
  g.n_rows = n;
  g.n_groups = n_groups;
  g.gid = nulls ? j.copy : (int64_t *)j.v;
  j.copy = NULL;
  st = zb__group_aggregate(t, &g, n_aggs, aggs, cols, err);
  if (!nulls) g.gid = NULL;
  if (st != ZB_OK) goto done;
  for (int64_t a = 0; a < n_aggs; a++) names[a] = zb__groupby_result_name(t, 0, NULL, aggs, a);
  st = zb_table_make(n_aggs, cols, names, out, err);
done:
  if (cols != NULL)
    for (int64_t a = 0; a < n_aggs; a++) zb_column_release(cols[a]);
  zb_free(cols);
  zb_free(names);
  zb_free(j.bad);
  zb_free(j.copy);
  zb__grouping_reset(&g);
  return st;
}
