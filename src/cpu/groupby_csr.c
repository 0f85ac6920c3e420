/*
 * groupby_csr.c -- the rows of each group, group by group (zb__group_csr):
 * a counting sort of the rows by group id, in parallel over morsels and
 * buckets of groups, for the operations that walk one group at a time
 * (cumulative, ewm, rolling, the median and quantiles of groupby_agg.c).
 */
#include "cpu/groupby.h"

static zb_status nomem(zb_error *err, const char *what, int64_t n) {
  return zb_error_set(err, ZB_ENOMEM, "out of host memory in group-by (%s, %lld items)", what,
                      (long long)n);
}

static void *alloc_n(int64_t n, size_t size) { return zb_malloc((size_t)ZB_MAX(n, 1) * size); }

void zb__group_csr_reset(zb__group_csr *csr) {
  zb_free(csr->offsets);
  zb_free(csr->rows);
  zb_free(csr->bucket);
  memset(csr, 0, sizeof *csr);
}

typedef struct csr_job {
  const zb__grouping *g;
  zb__group_csr *csr;
  int64_t nb, gpb;
  int64_t *hist; /* morsels x nb */
  int64_t *bstart; /* nb + 1 */
  int64_t *tmp;  /* rows by bucket */
  int64_t *tmpg; /* their group ids, so the bucket pass reads them in order */
  int64_t *cursor;
} csr_job;

static void csr_hist(void *ctx, int64_t task, int worker) {
  (void)worker;
  csr_job *j = (csr_job *)ctx;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(j->g->n_rows, s + ZB_MORSEL_ROWS);
  int64_t *h = j->hist + task * j->nb;
  for (int64_t b = 0; b < j->nb; b++) h[b] = 0;
  for (int64_t r = s; r < e; r++) {
    int64_t gg = j->g->gid[r];
    if (gg >= 0) h[gg / j->gpb]++;
  }
}

static void csr_scatter(void *ctx, int64_t task, int worker) {
  (void)worker;
  csr_job *j = (csr_job *)ctx;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(j->g->n_rows, s + ZB_MORSEL_ROWS);
  int64_t *cur = j->hist + task * j->nb;
  for (int64_t r = s; r < e; r++) {
    int64_t gg = j->g->gid[r];
    if (gg >= 0) {
      int64_t at = cur[gg / j->gpb]++;
      j->tmp[at] = r;
      j->tmpg[at] = gg;
    }
  }
}

static void csr_bucket(void *ctx, int64_t b, int worker) {
  (void)worker;
  csr_job *j = (csr_job *)ctx;
  const int64_t *tg = j->tmpg;
  int64_t g0 = j->csr->bucket[b], g1 = j->csr->bucket[b + 1];
  int64_t s = j->bstart[b], e = j->bstart[b + 1];
  int64_t *cur = j->cursor, *off = j->csr->offsets;
  for (int64_t x = g0; x < g1; x++) cur[x] = 0;
  for (int64_t i = s; i < e; i++) cur[tg[i]]++;
  int64_t run = s;
  for (int64_t x = g0; x < g1; x++) {
    off[x] = run;
    run += cur[x];
    cur[x] = off[x];
  }
  for (int64_t i = s; i < e; i++) j->csr->rows[cur[tg[i]]++] = j->tmp[i];
}

zb_status zb__group_csr_init(const zb__grouping *g, zb__group_csr *csr, zb_error *err) {
  memset(csr, 0, sizeof *csr);
  int64_t G = g->n_groups, n = g->n_rows, nm = zb__morsels(n);
  csr_job j;
  memset(&j, 0, sizeof j);
  j.g = g;
  j.csr = csr;
  j.nb = ZB_MIN(G, 256);
  j.gpb = j.nb > 0 ? (G + j.nb - 1) / j.nb : 1;
  if (j.nb > 0) j.nb = (G + j.gpb - 1) / j.gpb;
  zb_status st = ZB_OK;
  csr->n_groups = G;
  csr->n_buckets = j.nb;
  csr->offsets = (int64_t *)alloc_n(G + 1, sizeof(int64_t));
  csr->rows = (int64_t *)alloc_n(n, sizeof(int64_t));
  csr->bucket = (int64_t *)alloc_n(j.nb + 1, sizeof(int64_t));
  j.hist = (int64_t *)alloc_n(nm * j.nb, sizeof(int64_t));
  j.bstart = (int64_t *)alloc_n(j.nb + 1, sizeof(int64_t));
  j.tmp = (int64_t *)alloc_n(n, sizeof(int64_t));
  j.tmpg = (int64_t *)alloc_n(n, sizeof(int64_t));
  j.cursor = (int64_t *)alloc_n(G, sizeof(int64_t));
  if (csr->offsets == NULL || csr->rows == NULL || csr->bucket == NULL || j.hist == NULL ||
      j.bstart == NULL || j.tmp == NULL || j.tmpg == NULL || j.cursor == NULL) {
    st = nomem(err, "rows by group", n);
    goto done;
  }
  for (int64_t b = 0; b <= j.nb; b++) csr->bucket[b] = ZB_MIN(b * j.gpb, G);
  if (j.nb > 0) st = zb_parallel_for(nm, csr_hist, &j, err);
  if (st != ZB_OK) goto done;
  int64_t run = 0;
  for (int64_t b = 0; b < j.nb; b++) {
    j.bstart[b] = run;
    for (int64_t m = 0; m < nm; m++) {
      int64_t c = j.hist[m * j.nb + b];
      j.hist[m * j.nb + b] = run;
      run += c;
    }
  }
  j.bstart[j.nb] = run;
  csr->offsets[G] = run;
  if (j.nb > 0) st = zb_parallel_for(nm, csr_scatter, &j, err);
  if (st == ZB_OK && j.nb > 0) st = zb_parallel_for(j.nb, csr_bucket, &j, err);
done:
  zb_free(j.hist);
  zb_free(j.bstart);
  zb_free(j.tmp);
  zb_free(j.tmpg);
  zb_free(j.cursor);
  if (st != ZB_OK) zb__group_csr_reset(csr);
  return st;
}

/* ---- ids already in group order ------------------------------------------- */

zb_status zb__group_csr_sorted(const zb_column *ids, int64_t n_groups, bool *sorted,
                               zb__group_csr *csr, zb_error *err) {
  memset(csr, 0, sizeof *csr);
  *sorted = false;
  const int64_t n = ids->length, G = n_groups;
  if (ids->null_count > 0 || n == 0 || G <= 0) return ZB_OK;
  const int64_t *iv = (const int64_t *)ids->data->data + ids->offset;
  /* non-decreasing and inside [0, G): one read of the ids, stopping at the
   * first row out of order */
  if (iv[0] < 0 || iv[n - 1] >= G) return ZB_OK;
  for (int64_t r = 1; r < n; r++)
    if (iv[r] < iv[r - 1]) return ZB_OK;
  csr->n_groups = G;
  csr->offsets = (int64_t *)alloc_n(G + 1, sizeof(int64_t));
  int64_t nb = ZB_MIN(G, 256), gpb = (G + nb - 1) / nb;
  nb = (G + gpb - 1) / gpb;
  csr->n_buckets = nb;
  csr->bucket = (int64_t *)alloc_n(nb + 1, sizeof(int64_t));
  if (csr->offsets == NULL || csr->bucket == NULL) {
    zb__group_csr_reset(csr);
    return nomem(err, "group boundaries", G);
  }
  /* offsets[g]: the first row whose id is >= g */
  int64_t g = 0;
  for (int64_t r = 0; r < n; r++)
    while (g <= iv[r]) csr->offsets[g++] = r;
  while (g <= G) csr->offsets[g++] = n;
  for (int64_t b = 0; b <= nb; b++) csr->bucket[b] = ZB_MIN(b * gpb, G);
  *sorted = true;
  return ZB_OK;
}

/* ---- the rows by group, and their ids (zb_column_group_order) ------------- */

typedef struct fill_job {
  const zb__group_csr *csr;
  int64_t *out;
} fill_job;

static void fill_bucket(void *ctx, int64_t b, int worker) {
  (void)worker;
  fill_job *j = (fill_job *)ctx;
  const zb__group_csr *c = j->csr;
  for (int64_t g = c->bucket[b]; g < c->bucket[b + 1]; g++)
    for (int64_t k = c->offsets[g]; k < c->offsets[g + 1]; k++) j->out[k] = g;
}

zb_status zb__cpu_group_order(const zb_column *ids, int64_t n_groups, zb_column **order,
                              zb_column **sorted_ids, zb_error *err) {
  *order = *sorted_ids = NULL;
  zb__grouping g;
  zb__group_csr csr;
  memset(&csr, 0, sizeof csr);
  zb_buffer *rows = NULL;
  zb_status st = zb__grouping_from_ids(ids, n_groups, "group order", &g, err);
  if (st != ZB_OK) return st;
  st = zb__group_csr_init(&g, &csr, err);
  zb__grouping_reset(&g);
  if (st != ZB_OK) return st;
  const int64_t kept = csr.offsets[n_groups];
  /* the counting sort's row array becomes the order column (no copy) */
  st = zb_buffer_wrap(ZB_CPU, csr.rows, ZB_MAX(ids->length, 1) * 8, zb__release_zb_malloc, NULL,
                      &rows, err);
  if (st == ZB_OK) {
    csr.rows = NULL;
    st = zb_column_make(ZB_INT64, kept, 0, NULL, rows, NULL, NULL, 0, order, err);
  }
  if (st == ZB_OK) st = zb_column_new(ZB_INT64, kept, false, 0, sorted_ids, err);
  if (st == ZB_OK && csr.n_buckets > 0) {
    fill_job f = {&csr, (int64_t *)(*sorted_ids)->data->data};
    st = zb_parallel_for(csr.n_buckets, fill_bucket, &f, err);
  }
  zb_buffer_release(rows);
  zb__group_csr_reset(&csr);
  if (st != ZB_OK) {
    zb_column_release(*order);
    zb_column_release(*sorted_ids);
    *order = *sorted_ids = NULL;
  }
  return st;
}
