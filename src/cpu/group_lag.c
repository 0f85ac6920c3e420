/*
 * group_lag.c -- the partner row of pandas' groupby shift / diff /
 * pct_change on the CPU (ZB__OP_GROUP_LAG, zb_column_group_lag): for each
 * row, the row `periods` before it in its group (after it for periods < 0).
 *
 * One pass over the rows in order (in reverse for periods < 0) keeps, per
 * group, its last |periods| rows in a ring: a row's partner is the oldest
 * row of its group's ring once the ring is full, and the row then takes
 * that place.  With |periods| = 1 the ring is one row a group (the state
 * of 10^5 groups stays in cache), so the pass costs about as much as
 * reading the ids and writing the result -- no cumcount, sort or gather.
 * Validity is built a 64-row word at a time.
 */
#include "cpu/groupby.h"
#include "cpu/kernels.h"

typedef struct lag_state {
  int64_t P, ng;
  int64_t *ring; /* ng * P rows, -1 when empty */
  int64_t *slot; /* per group: the ring's oldest place (P > 1) */
} lag_state;

/* The partner of row i in group g (or -1) and i put in g's ring. */
static inline int64_t lag_step(lag_state *s, int64_t g, int64_t i) {
  if (s->P == 1) {
    int64_t r = s->ring[g];
    s->ring[g] = i;
    return r;
  }
  int64_t k = s->slot[g], *at = s->ring + g * s->P + k;
  int64_t r = *at;
  *at = i;
  s->slot[g] = k + 1 == s->P ? 0 : k + 1;
  return r;
}

zb_status zb__cpu_group_lag(const zb_column *group_ids, int64_t n_groups, int64_t periods,
                            zb_column **out, zb_error *err) {
  *out = NULL;
  const int64_t n = group_ids->length;
  const int64_t P = periods < 0 ? -periods : periods;
  const bool forward = periods >= 0;
  const int64_t *iv = (const int64_t *)group_ids->data->data + group_ids->offset;
  zb_column *o = NULL;
  ZB_RETURN_NOT_OK(zb_column_new(ZB_INT64, n, true, 0, &o, err));
  int64_t *ov = (int64_t *)o->data->data;
  uint8_t *bits = (uint8_t *)o->validity->data;
  lag_state s = {P, n_groups, NULL, NULL};
  zb_status st = ZB_OK;
  const bool ring = P > 0 && P <= n; /* beyond n rows no row has a partner */
  if (ring) {
    if (n_groups > 0 && P > INT64_MAX / 8 / n_groups) {
      st = zb_error_set(err, ZB_ENOMEM, "group_lag: %lld groups of %lld rows is too much state",
                        (long long)n_groups, (long long)P);
      goto done;
    }
    s.ring = (int64_t *)zb_malloc((size_t)ZB_MAX(n_groups * P, 1) * sizeof(int64_t));
    if (P > 1) s.slot = (int64_t *)zb_calloc((size_t)ZB_MAX(n_groups, 1), sizeof(int64_t));
    if (s.ring == NULL || (P > 1 && s.slot == NULL)) {
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory in group_lag (%lld groups x %lld)",
                        (long long)n_groups, (long long)P);
      goto done;
    }
    for (int64_t k = 0; k < n_groups * P; k++) s.ring[k] = -1;
  }
  const int64_t nw = (n + 63) / 64;
  for (int64_t wi = 0; wi < nw; wi++) {
    const int64_t word = forward ? wi : nw - 1 - wi;
    if ((wi & 1023) == 0 && zb_cancel_requested()) {
      st = zb_error_set(err, ZB_ECANCEL, "group_lag: interrupted");
      goto done;
    }
    const int64_t row = word * 64;
    const int m = (int)ZB_MIN((int64_t)64, n - row);
    const uint64_t w = zb__valid_word(group_ids, row, m);
    uint64_t ok = 0;
    for (int t = 0; t < m; t++) {
      const int q = forward ? t : m - 1 - t;
      const int64_t i = row + q, g = iv[i];
      int64_t r = P == 0 ? i : -1; /* shift(0): every row its own, as pandas */
      if ((w >> q) & 1) {
        if ((uint64_t)g >= (uint64_t)n_groups) {
          st = zb_error_set(err, ZB_EINDEX, "group_lag: group id %lld at row %lld is outside "
                            "[0, %lld)", (long long)g, (long long)i, (long long)n_groups);
          goto done;
        }
        r = P == 0 ? i : ring ? lag_step(&s, g, i) : -1;
      }
      ov[i] = r < 0 ? 0 : r;
      ok |= (uint64_t)(r >= 0) << q;
    }
    zb__store_bits(bits, row, ok, m);
  }
  zb_column_recount_nulls(o);
  *out = o;
  o = NULL;
done:
  zb_column_release(o);
  zb_free(s.ring);
  zb_free(s.slot);
  return st;
}
