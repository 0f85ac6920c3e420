/*
 * join.c -- the CPU hash join: row-index pairs for inner, left, right,
 * outer, semi, anti and cross joins (zb_backend.join_indices, called by
 * src/core/join_ops.c with key columns already of comparable types).
 *
 * One side is the build side (right; left for how=right, which is run as
 * the left join of the swapped inputs), the other the probe ("driver")
 * side whose row order the output follows.  Steps, each in parallel:
 *   1. hash both sides' keys (zb__keys, src/cpu/hash.h);
 *   2. radix-partition both sides by the top bits of the hash: per-morsel
 *      histograms, a prefix sum, a scatter of the hashes (and, where the
 *      build side or a key comparison needs them, the rows) -- rows of a
 *      partition stay in ascending row order, so morsel m's rows of
 *      partition p are one segment of it; rows with a null key are left
 *      out (they never match), unless nulls match (pandas' merge): then
 *      a null is a key like any other, compared with zb__keys_equal;
 *   3. per partition, a small open-addressing table (sized to stay in
 *      cache) over its build rows: one slot per distinct key holding the
 *      first row (the head), the count, and a chain bnext[] linking equal
 *      build rows in ascending order; then the partition's probe positions
 *      are probed in order, recording head and match count (dhead/dcnt) by
 *      position -- sequential writes, where writing by probe row would miss
 *      the cache on every row -- and each segment's output row count.  A
 *      build side of at most SMALL_BUILD_ROWS rows is one table, and the
 *      probe side is hashed but not partitioned: its morsels probe that
 *      table in place, recording by row;
 *   4. the per-morsel output counts are prefix-summed and each probe morsel
 *      writes its rows: probe row d with each build row of its chain.  A
 *      partitioned morsel finds each row's position again by walking its
 *      segments with one cursor per partition (the scatter kept row order).
 *      For outer, the build rows never matched follow in row order.
 * dhead/dcnt are int32 when the build side has at most INT32_MAX rows, and
 * dcnt is neither written nor read for a table without repeated keys (the
 * count is then 1 where there is a head).  Partitions write disjoint
 * positions of dhead/dcnt, chains of bnext and bmatched, and morsels
 * disjoint ranges of the output, so the result is the same for every
 * thread count.  Unmatched sides are written as -1 and turned into nulls by
 * a final pass over 64-row aligned blocks.
 *
 * For one fixed-width (non-categorical) key the row hash is a bijection of
 * the normalized value, so equal hashes mean equal keys and no key
 * comparison is made.  For one string key on both sides ("str") rows hash
 * to the packed string keys of src/cpu/strcodes.h, the scatter moves each
 * row's 16-byte prefix words with its hash, and each table slot keeps its
 * key's words beside it: a probe compares hash and words in order, and
 * reads the two strings only past 15 bytes, for bytes [16, len).
 */
#include "cpu/join.h"

#include "cpu/hash.h"
#include "cpu/strcodes.h"

#define PART_TARGET_ROWS 8192 /* build rows per partition aimed at */
/* Build sides up to this many rows make one table (a few MiB, in cache)
 * that the probe side's morsels probe in place, without partitioning it. */
#define SMALL_BUILD_ROWS 65536
#define PART_MAX_BITS 10
#define PROBE_AHEAD 16

/* ---- one side of the join ------------------------------------------------- */

typedef struct side {
  zb__keys k;
  int64_t n;
  bool has_nulls;    /* some key column has nulls, and their rows match nothing */
  int64_t n_morsels;
  int64_t *mcount;   /* [morsel][partition]: counts, then scatter positions */
  int64_t *part_off; /* partition p holds positions [part_off[p], part_off[p+1]) */
  uint64_t *ph;      /* hash per partitioned position */
  int64_t *prow;     /* row per partitioned position (NULL when not wanted) */
  uint64_t *pw;      /* str: the packed words per partitioned position (2 each) */
} side;

/* Frees s's arrays; its row and morsel counts stay. */
static void side_free_arrays(side *s) {
  zb__keys_reset(&s->k);
  zb_free(s->mcount);
  zb_free(s->part_off);
  zb_free(s->ph);
  zb_free(s->prow);
  zb_free(s->pw);
  s->mcount = s->part_off = s->prow = NULL;
  s->ph = s->pw = NULL;
}

static void side_reset(side *s) {
  side_free_arrays(s);
  memset(s, 0, sizeof *s);
}

/* Every key column of row r is valid. */
static inline bool row_keyed(const side *s, int64_t r) {
  if (!s->has_nulls) return true;
  for (int64_t c = 0; c < s->k.n_cols; c++)
    if (!zb_column_is_valid(s->k.cols[c].col, r)) return false;
  return true;
}

typedef struct slot {
  uint64_t h;
  int64_t head; /* first build row with this key; -1: empty */
  int64_t tail; /* last build row so far */
  int64_t cnt;  /* build rows with this key */
} slot;

typedef struct join_job {
  side *b, *d;
  int bits; /* partition bits */
  int64_t n_parts;
  bool exact; /* equal hash <=> equal key */
  bool str;   /* one string key on both sides: packed keys */
  int ishift; /* a slot is (h >> ishift) & mask (str: 1, past the long-string bit) */
  bool outer; /* mark matched build rows */
  int n_workers;
  slot **tables; /* per worker, table_cap slots */
  uint64_t **tw; /* str: per worker, the packed words of each slot's key */
  int64_t table_cap;
  int64_t *bnext;    /* per build row but the last of its chain: the next
                        equal-key build row (chains are walked cnt long) */
  uint8_t *bmatched; /* per build row (outer only) */
  /* per probe row (small build side) or per partitioned probe position,
   * int32 when the build side has at most INT32_MAX rows (narrow), else
   * int64: */
  void *dhead;       /* head build row of its key, or -1 */
  void *dcnt;        /* number of matching build rows */
  bool narrow;
  bool partitioned;  /* dhead/dcnt by position (else by row) */
  int64_t *mout;     /* partitioned: [morsel][partition] output rows */
  uint8_t *pdup;     /* per partition (one when not partitioned): whether a
                        build key repeats; where none does, dcnt is not
                        written (a count is 1 where the head is >= 0) */
  int64_t *cursors;  /* partitioned: per worker, a position per partition */
  int n_cursor_sets; /* workers with cursors */
  const uint64_t *dhash; /* partitioned: the probe side's hash per row */
  zb_join_how how;   /* inner, left, outer, semi, anti */
  int64_t *moff;     /* per probe morsel: first output row */
  int64_t *bmoff;    /* outer: per build morsel: first output row */
  int64_t *lo, *ro;  /* output indices (ro NULL for semi/anti) */
  int64_t n_out;
  int failed; /* a task saw an impossible worker index */
} join_job;

static inline int64_t part_of(uint64_t h, int bits) {
  return bits == 0 ? 0 : (int64_t)(h >> (64 - bits));
}

/* ---- step 2: partitioning --------------------------------------------------- */

typedef struct part_job {
  side *s;
  int bits;
  int64_t n_parts;
} part_job;

/* Morsel m's rows of partition p sit at positions [seg_start, seg_end) of
 * the partitioned arrays (after the scatter, mcount holds the ends). */
static inline int64_t seg_start(const side *s, int64_t P, int64_t m, int64_t p) {
  return m == 0 ? s->part_off[p] : s->mcount[(m - 1) * P + p];
}
static inline int64_t seg_end(const side *s, int64_t P, int64_t m, int64_t p) {
  return s->mcount[m * P + p];
}

static void hist_morsel(void *ctx, int64_t m, int worker) {
  (void)worker;
  part_job *j = (part_job *)ctx;
  side *s = j->s;
  int64_t *cnt = s->mcount + m * j->n_parts;
  int64_t a = m * ZB_MORSEL_ROWS, e = ZB_MIN(s->n, a + ZB_MORSEL_ROWS);
  memset(cnt, 0, (size_t)j->n_parts * sizeof(int64_t));
  const uint64_t *h = s->k.hash;
  if (!s->has_nulls) {
    for (int64_t r = a; r < e; r++) cnt[part_of(h[r], j->bits)]++;
    return;
  }
  for (int64_t r = a; r < e; r++)
    if (row_keyed(s, r)) cnt[part_of(h[r], j->bits)]++;
}

static void scatter_morsel(void *ctx, int64_t m, int worker) {
  (void)worker;
  part_job *j = (part_job *)ctx;
  side *s = j->s;
  int64_t *pos = s->mcount + m * j->n_parts;
  int64_t a = m * ZB_MORSEL_ROWS, e = ZB_MIN(s->n, a + ZB_MORSEL_ROWS);
  const uint64_t *h = s->k.hash;
  const zb_column *c = s->k.cols[0].col;
  const int64_t *off = s->pw != NULL ? (const int64_t *)c->data->data + c->offset : NULL;
  const char *chars = s->pw != NULL && c->chars != NULL ? (const char *)c->chars->data : "";
  const char *end = chars + (s->pw != NULL && c->chars != NULL ? c->chars->size : 0);
  for (int64_t r = a; r < e; r++) {
    if (s->has_nulls && !row_keyed(s, r)) continue;
    int64_t q = pos[part_of(h[r], j->bits)]++;
    s->ph[q] = h[r];
    if (s->prow != NULL) s->prow[q] = r;
    if (s->pw != NULL)
      zb__skey_words(chars + off[r], off[r + 1] - off[r], end, &s->pw[2 * q], &s->pw[2 * q + 1]);
  }
}

/* str: the hash of each row of one string key column (packed keys). */
static void str_hash_morsel(void *ctx, int64_t m, int worker) {
  (void)worker;
  zb__keys *k = (zb__keys *)ctx;
  const zb_column *c = k->cols[0].col;
  int64_t a = m * ZB_MORSEL_ROWS, e = ZB_MIN(k->n_rows, a + ZB_MORSEL_ROWS);
  const int64_t *off = (const int64_t *)c->data->data + c->offset;
  const char *chars = c->chars != NULL ? (const char *)c->chars->data : "";
  const char *end = chars + (c->chars != NULL ? c->chars->size : 0);
  for (int64_t r = a; r < e; r++) {
    uint64_t w0, w1, h = ZB_HASH_NULL;
    if (zb_column_is_valid(c, r)) zb__skey(chars + off[r], off[r + 1] - off[r], end, &w0, &w1, &h);
    k->hash[r] = h;
  }
}

/* k for one string key column c (borrowed): its hashes only, no
 * normalized values.  On failure k holds nothing. */
static zb_status str_keys_init(zb__keys *k, const zb_column *c, zb_error *err) {
  memset(k, 0, sizeof *k);
  k->n_rows = c->length;
  k->n_cols = 1;
  k->cols = (zb__keycol *)zb_calloc(1, sizeof(zb__keycol));
  k->hash = (uint64_t *)zb_malloc((size_t)ZB_MAX(c->length, 1) * sizeof(uint64_t));
  if (k->cols == NULL || k->hash == NULL) {
    zb__keys_reset(k);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory hashing %lld join keys",
                        (long long)c->length);
  }
  k->cols[0].col = c;
  zb_status st = zb_parallel_for(zb__morsels(c->length), str_hash_morsel, k, err);
  if (st != ZB_OK) zb__keys_reset(k);
  return st;
}

/* Hash s's keys and partition its keyed rows (their row numbers too when
 * want_rows, and their packed words when str: one string key); skip_nulls:
 * rows with a null key are not keyed (they match nothing). */
static zb_status side_prepare(side *s, const zb_column *const *keys, int64_t n_keys, int64_t n,
                              int bits, bool want_rows, bool str, bool skip_nulls,
                              zb_error *err) {
  memset(s, 0, sizeof *s);
  s->n = n;
  int64_t P = (int64_t)1 << bits;
  ZB_RETURN_NOT_OK(str ? str_keys_init(&s->k, keys[0], err)
                       : zb__keys_init(&s->k, keys, n_keys, err));
  for (int64_t c = 0; skip_nulls && c < n_keys; c++) s->has_nulls |= keys[c]->null_count > 0;
  s->n_morsels = zb__morsels(n);
  s->mcount = (int64_t *)zb_malloc((size_t)ZB_MAX(s->n_morsels * P, 1) * sizeof(int64_t));
  s->part_off = (int64_t *)zb_malloc((size_t)(P + 1) * sizeof(int64_t));
  s->ph = (uint64_t *)zb_malloc((size_t)ZB_MAX(n, 1) * sizeof(uint64_t));
  if (want_rows) s->prow = (int64_t *)zb_malloc((size_t)ZB_MAX(n, 1) * sizeof(int64_t));
  if (str) s->pw = (uint64_t *)zb_malloc((size_t)ZB_MAX(n, 1) * 2 * sizeof(uint64_t));
  if (s->mcount == NULL || s->part_off == NULL || s->ph == NULL ||
      (want_rows && s->prow == NULL) || (str && s->pw == NULL)) {
    side_reset(s);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory partitioning %lld join rows",
                        (long long)n);
  }
  part_job j = {s, bits, P};
  zb_status st = zb_parallel_for(s->n_morsels, hist_morsel, &j, err);
  if (st != ZB_OK) {
    side_reset(s);
    return st;
  }
  int64_t run = 0;
  for (int64_t p = 0; p < P; p++) {
    s->part_off[p] = run;
    for (int64_t m = 0; m < s->n_morsels; m++) {
      int64_t c = s->mcount[m * P + p];
      s->mcount[m * P + p] = run;
      run += c;
    }
  }
  s->part_off[P] = run;
  st = zb_parallel_for(s->n_morsels, scatter_morsel, &j, err);
  if (st != ZB_OK) side_reset(s);
  return st;
}

/* ---- step 3: per-partition build and probe ---------------------------------- */

static inline void set_head(join_job *j, int64_t i, int64_t head) {
  if (j->narrow)
    ((int32_t *)j->dhead)[i] = (int32_t)head;
  else
    ((int64_t *)j->dhead)[i] = head;
}
static inline void set_cnt(join_job *j, int64_t i, int64_t cnt) {
  if (j->narrow)
    ((int32_t *)j->dcnt)[i] = (int32_t)cnt;
  else
    ((int64_t *)j->dcnt)[i] = cnt;
}
static inline int64_t get_head(const join_job *j, int64_t i) {
  return j->narrow ? ((const int32_t *)j->dhead)[i] : ((const int64_t *)j->dhead)[i];
}
/* The match count at i of a partition with (dup) or without repeated keys. */
static inline int64_t get_cnt(const join_job *j, int64_t i, bool dup, int64_t head) {
  if (!dup) return head >= 0;
  return j->narrow ? ((const int32_t *)j->dcnt)[i] : ((const int64_t *)j->dcnt)[i];
}

/* A table of cap (a power of two) slots over the build rows at partitioned
 * positions [b0, b1), rows in ascending order so chains are in row order.
 * bnext is written only where a chain goes on (walks are cnt long), so a
 * build side without repeated keys writes nothing outside the table.
 * Returns whether a key repeats. */
/* str: rows ra of ca and rb of cb, long strings (hash bit 0) with equal
 * hashes and packed words, have equal lengths and bytes past the first 16. */
static inline bool str_tail_equal(const zb_column *ca, int64_t ra, const zb_column *cb,
                                  int64_t rb) {
  int64_t la, lb;
  const char *pa = zb__str(ca, ra, &la), *pb = zb__str(cb, rb, &lb);
  return la == lb && zb__skey_tail_equal(pa, pb, la);
}

/* Slot i of a table (tw: its packed words when str) holds the key of row
 * r of pk, whose hash is h and packed words w0, w1 (str). */
static inline bool slot_match(const join_job *j, const slot *s, const uint64_t *tw, uint64_t i,
                              const zb__keys *pk, int64_t r, uint64_t h, uint64_t w0,
                              uint64_t w1) {
  if (s->h != h) return false;
  if (j->exact) return true;
  if (j->str)
    return tw[2 * i] == w0 && tw[2 * i + 1] == w1 &&
           (!(h & 1) || str_tail_equal(pk->cols[0].col, r, j->b->k.cols[0].col, s->head));
  return zb__keys_equal(pk, r, &j->b->k, s->head);
}

static bool build_table(join_job *j, slot *t, uint64_t *tw, int64_t cap, int64_t b0,
                        int64_t b1) {
  const side *b = j->b;
  uint64_t mask = (uint64_t)cap - 1;
  for (int64_t i = 0; i < cap; i++) t[i].head = -1;
  int64_t *bnext = j->bnext;
  bool repeats = false;
  for (int64_t q = b0; q < b1; q++) {
    uint64_t h = b->ph[q], w0 = 0, w1 = 0;
    int64_t r = b->prow[q];
    if (j->str) {
      w0 = b->pw[2 * q];
      w1 = b->pw[2 * q + 1];
    }
    uint64_t i = (h >> j->ishift) & mask;
    for (;;) {
      slot *s = &t[i];
      if (s->head < 0) {
        s->h = h;
        s->head = r;
        s->tail = r;
        s->cnt = 1;
        if (j->str) {
          tw[2 * i] = w0;
          tw[2 * i + 1] = w1;
        }
        break;
      }
      if (slot_match(j, s, tw, i, &b->k, r, h, w0, w1)) {
        bnext[s->tail] = r;
        s->tail = r;
        s->cnt++;
        repeats = true;
        break;
      }
      i = (i + 1) & mask;
    }
  }
  return repeats;
}

/* Probe row r (hash h, packed words w0, w1 when str; r is read only to
 * compare keys when !exact) against table t (tw): its head build row (-1:
 * none) and *cnt. */
static inline int64_t probe_key(join_job *j, const slot *t, const uint64_t *tw, uint64_t mask,
                                int64_t r, uint64_t h, uint64_t w0, uint64_t w1, int64_t *cnt) {
  uint64_t i = (h >> j->ishift) & mask;
  for (;;) {
    const slot *s = &t[i];
    if (s->head < 0) break;
    if (slot_match(j, s, tw, i, &j->d->k, r, h, w0, w1)) {
      if (j->outer) __atomic_store_n(&j->bmatched[s->head], 1, __ATOMIC_RELAXED);
      *cnt = s->cnt;
      return s->head;
    }
    i = (i + 1) & mask;
  }
  *cnt = 0;
  return -1;
}

/* Outer: a matched head marks every build row of its chain. */
static void mark_chains(join_job *j, const slot *t, int64_t cap) {
  for (int64_t i = 0; i < cap; i++) {
    if (t[i].head < 0 || !j->bmatched[t[i].head]) continue;
    int64_t r = t[i].head;
    for (int64_t k = 1; k < t[i].cnt; k++) {
      r = j->bnext[r];
      j->bmatched[r] = 1;
    }
  }
}

static int64_t table_cap_for(int64_t rows) {
  int64_t cap = 16;
  while (cap < 2 * rows) cap <<= 1;
  return cap;
}

/* Output rows of a probe row with cnt matches (a null key counts as 0). */
static inline int64_t out_rows(zb_join_how how, int64_t cnt) {
  switch (how) {
    case ZB_JOIN_INNER: return cnt;
    case ZB_JOIN_LEFT: case ZB_JOIN_OUTER: return cnt > 0 ? cnt : 1;
    case ZB_JOIN_SEMI: return cnt > 0;
    default: return cnt == 0; /* anti */
  }
}

#define STR_AHEAD_FAR 16 /* str: positions ahead, see partition_task */
#define STR_AHEAD_MID 8
#define STR_AHEAD_NEAR 4

/* Partition p: build its table, then probe its probe positions in order,
 * writing dhead/dcnt by position and, per probe morsel, the output rows of
 * the morsel's positions here (mout) -- all sequential, so no write misses
 * whatever the probe rows are. */
static void partition_task(void *ctx, int64_t p, int worker) {
  join_job *j = (join_job *)ctx;
  const side *b = j->b, *d = j->d;
  const int64_t P = j->n_parts;
  int64_t b0 = b->part_off[p], b1 = b->part_off[p + 1];
  const slot *t = NULL;
  const uint64_t *tw = NULL;
  int64_t cap = 0;
  bool dup = false;
  if (b1 > b0) {
    if (worker >= j->n_workers) {
      __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
      return;
    }
    slot *w = j->tables[worker];
    uint64_t *ww = j->str ? j->tw[worker] : NULL;
    cap = table_cap_for(b1 - b0);
    dup = build_table(j, w, ww, cap, b0, b1);
    t = w;
    tw = ww;
  }
  const uint64_t mask = (uint64_t)cap - 1;
  j->pdup[p] = dup;
  int64_t q = d->part_off[p], qend = d->part_off[p + 1];
  /* str: the reads of a long string's tail compare are random, so each is
   * prefetched a few positions ahead once its address is known -- the
   * probe row's offsets, then its bytes and its first slot's build row's
   * offsets, then that row's bytes (a wrong slot only wastes a prefetch).
   * (Written in the loop: GCC drops a static helper holding only
   * prefetches as free of side effects.) */
  const bool pf = j->str && t != NULL;
  const zb_column *dc = d->k.cols[0].col, *bc = b->k.cols[0].col;
  const int64_t *doff = pf ? (const int64_t *)dc->data->data + dc->offset : NULL;
  const int64_t *boff = pf ? (const int64_t *)bc->data->data + bc->offset : NULL;
  const char *dchars = pf && dc->chars != NULL ? (const char *)dc->chars->data : NULL;
  const char *bchars = pf && bc->chars != NULL ? (const char *)bc->chars->data : NULL;
  for (int64_t m = 0; m < d->n_morsels; m++) {
    int64_t end = seg_end(d, P, m, p), rows = 0;
    for (; q < end; q++) {
      if (pf) {
        int64_t f = q + STR_AHEAD_FAR, md = q + STR_AHEAD_MID, nr = q + STR_AHEAD_NEAR;
        if (f < qend && (d->ph[f] & 1)) {
          __builtin_prefetch(doff + d->prow[f]);
          __builtin_prefetch(&t[(d->ph[f] >> 1) & mask]);
        }
        if (md < qend && (d->ph[md] & 1)) {
          __builtin_prefetch(dchars + doff[d->prow[md]] + 16);
          int64_t hd = t[(d->ph[md] >> 1) & mask].head;
          if (hd >= 0) __builtin_prefetch(boff + hd);
        }
        if (nr < qend && (d->ph[nr] & 1)) {
          int64_t hd = t[(d->ph[nr] >> 1) & mask].head;
          if (hd >= 0 && bchars != NULL) __builtin_prefetch(bchars + boff[hd] + 16);
        }
      }
      int64_t cnt = 0, head = -1;
      if (t != NULL)
        head = probe_key(j, t, tw, mask, j->exact ? 0 : d->prow[q], d->ph[q],
                         j->str ? d->pw[2 * q] : 0, j->str ? d->pw[2 * q + 1] : 0, &cnt);
      set_head(j, q, head);
      if (dup) set_cnt(j, q, cnt);
      rows += out_rows(j->how, cnt);
    }
    j->mout[m * P + p] = rows;
  }
  if (j->outer && t != NULL) mark_chains(j, t, cap);
}

/* The common case of probe_morsel: one fixed-width key without nulls,
 * unique build keys, an inner or left join (counted as given), narrow
 * results.  Returns the morsel's output rows. */
static inline int64_t probe_plain(join_job *j, const slot *t, uint64_t mask, const uint64_t *h,
                                  int64_t a, int64_t e, bool left) {
  int32_t *dh = (int32_t *)j->dhead;
  int64_t rows = 0;
  for (int64_t r = a; r < e; r++) {
    if (r + PROBE_AHEAD < e) __builtin_prefetch(&t[h[r + PROBE_AHEAD] & mask]);
    uint64_t i = h[r] & mask;
    int64_t head;
    for (;;) {
      head = t[i].head;
      if (head < 0 || t[i].h == h[r]) break;
      i = (i + 1) & mask;
    }
    dh[r] = (int32_t)head;
    rows += left ? 1 : head >= 0;
  }
  return rows;
}

/* A small build side: one table (tables[0], in cache), probed by the probe
 * side's morsels in place -- the probe side is hashed but not partitioned;
 * dhead/dcnt by row, and each morsel's output rows in moff[m]. */
static void probe_morsel(void *ctx, int64_t m, int worker) {
  (void)worker;
  join_job *j = (join_job *)ctx;
  const side *d = j->d;
  int64_t a = m * ZB_MORSEL_ROWS, e = ZB_MIN(d->n, a + ZB_MORSEL_ROWS);
  uint64_t mask = (uint64_t)j->table_cap - 1;
  const uint64_t *h = d->k.hash;
  const slot *t = j->tables[0];
  const bool dup = j->pdup[0];
  if (j->exact && j->narrow && !dup && !d->has_nulls &&
      (j->how == ZB_JOIN_INNER || j->how == ZB_JOIN_LEFT)) {
    j->moff[m] = j->how == ZB_JOIN_LEFT ? probe_plain(j, t, mask, h, a, e, true)
                                        : probe_plain(j, t, mask, h, a, e, false);
    return;
  }
  const uint64_t *tw = j->str ? j->tw[0] : NULL;
  const zb_column *c = d->k.cols[0].col;
  const int64_t *off = j->str ? (const int64_t *)c->data->data + c->offset : NULL;
  const char *chars = j->str && c->chars != NULL ? (const char *)c->chars->data : "";
  const char *end = chars + (j->str && c->chars != NULL ? c->chars->size : 0);
  int64_t rows = 0;
  for (int64_t r = a; r < e; r++) {
    if (r + PROBE_AHEAD < e) __builtin_prefetch(&t[(h[r + PROBE_AHEAD] >> j->ishift) & mask]);
    int64_t cnt = 0, head = -1;
    uint64_t w0 = 0, w1 = 0;
    if (!d->has_nulls || row_keyed(d, r)) {
      if (j->str) zb__skey_words(chars + off[r], off[r + 1] - off[r], end, &w0, &w1);
      head = probe_key(j, t, tw, mask, r, h[r], w0, w1, &cnt);
    }
    set_head(j, r, head);
    if (dup) set_cnt(j, r, cnt);
    rows += out_rows(j->how, cnt);
  }
  j->moff[m] = rows;
}

/* ---- step 4: counting and writing the output -------------------------------- */

/* Partitioned: morsel m's output rows, from the partitions' counts; rows
 * with a null key were not partitioned and count as unmatched.  (A small
 * build side's probe counts its morsels itself.) */
static void count_morsel(void *ctx, int64_t m, int worker) {
  (void)worker;
  join_job *j = (join_job *)ctx;
  const side *d = j->d;
  int64_t a = m * ZB_MORSEL_ROWS, e = ZB_MIN(d->n, a + ZB_MORSEL_ROWS);
  const int64_t P = j->n_parts;
  int64_t n = 0, keyed = 0;
  for (int64_t p = 0; p < P; p++) {
    n += j->mout[m * P + p];
    keyed += seg_end(d, P, m, p) - seg_start(d, P, m, p);
  }
  j->moff[m] = n + (e - a - keyed) * out_rows(j->how, 0);
}

static void count_unmatched_morsel(void *ctx, int64_t m, int worker) {
  (void)worker;
  join_job *j = (join_job *)ctx;
  int64_t a = m * ZB_MORSEL_ROWS, e = ZB_MIN(j->b->n, a + ZB_MORSEL_ROWS);
  int64_t n = 0;
  for (int64_t r = a; r < e; r++) n += j->bmatched[r] == 0;
  j->bmoff[m] = n;
}

/* The output rows of probe row r with cnt matches from build row head on,
 * at *o. */
static inline void emit(const join_job *j, int64_t r, int64_t cnt, int64_t head, int64_t *o) {
  int64_t *lo = j->lo, *ro = j->ro;
  switch (j->how) {
    case ZB_JOIN_INNER:
    case ZB_JOIN_LEFT:
    case ZB_JOIN_OUTER:
      if (cnt == 1) { /* the common case: one match, no chain walk */
        lo[*o] = r;
        ro[(*o)++] = head;
      } else if (cnt > 1) {
        for (int64_t br = head, k = cnt;;) {
          lo[*o] = r;
          ro[(*o)++] = br;
          if (--k == 0) break;
          br = j->bnext[br];
        }
      } else if (j->how != ZB_JOIN_INNER) {
        lo[*o] = r;
        ro[(*o)++] = -1;
      }
      break;
    case ZB_JOIN_SEMI:
      if (cnt > 0) lo[(*o)++] = r;
      break;
    default: /* anti */
      if (cnt == 0) lo[(*o)++] = r;
      break;
  }
}

static void write_morsel(void *ctx, int64_t m, int worker) {
  join_job *j = (join_job *)ctx;
  const side *d = j->d;
  int64_t a = m * ZB_MORSEL_ROWS, e = ZB_MIN(d->n, a + ZB_MORSEL_ROWS);
  int64_t o = j->moff[m];
  if (!j->partitioned) {
    const bool dup = j->pdup[0];
    for (int64_t r = a; r < e; r++) {
      int64_t head = get_head(j, r);
      emit(j, r, get_cnt(j, r, dup, head), head, &o);
    }
    return;
  }
  /* Row r's position is the next one of its partition's segment for this
   * morsel (the scatter kept row order): one cursor per partition, each
   * reading its segment in order. */
  const int64_t P = j->n_parts;
  if (worker >= j->n_cursor_sets) {
    __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    return;
  }
  int64_t *cur = j->cursors + (int64_t)worker * P;
  for (int64_t p = 0; p < P; p++) cur[p] = seg_start(d, P, m, p);
  for (int64_t r = a; r < e; r++) {
    if (d->has_nulls && !row_keyed(d, r)) {
      emit(j, r, 0, -1, &o);
      continue;
    }
    int64_t p = part_of(j->dhash[r], j->bits), q = cur[p]++;
    int64_t head = get_head(j, q);
    emit(j, r, get_cnt(j, q, j->pdup[p], head), head, &o);
  }
}

static void write_unmatched_morsel(void *ctx, int64_t m, int worker) {
  (void)worker;
  join_job *j = (join_job *)ctx;
  int64_t a = m * ZB_MORSEL_ROWS, e = ZB_MIN(j->b->n, a + ZB_MORSEL_ROWS);
  int64_t o = j->bmoff[m];
  for (int64_t r = a; r < e; r++) {
    if (j->bmatched[r]) continue;
    j->lo[o] = -1;
    j->ro[o++] = r;
  }
}

/* Turn the -1 entries of an index column (with an all-valid bitmap) into
 * nulls holding 0. */
typedef struct nullify_job {
  zb_column *col;
} nullify_job;

static void nullify_morsel(void *ctx, int64_t m, int worker) {
  (void)worker;
  zb_column *c = ((nullify_job *)ctx)->col;
  int64_t a = m * ZB_MORSEL_ROWS, e = ZB_MIN(c->length, a + ZB_MORSEL_ROWS);
  int64_t *v = (int64_t *)c->data->data;
  uint8_t *bits = (uint8_t *)c->validity->data;
  for (int64_t base = a; base < e; base += 64) {
    int n = (int)ZB_MIN((int64_t)64, e - base);
    uint64_t w = 0;
    for (int i = 0; i < n; i++) {
      int64_t x = v[base + i];
      w |= (uint64_t)(x >= 0) << i;
      v[base + i] = x >= 0 ? x : 0;
    }
    zb__store_bits(bits, base, w, n);
  }
}

zb_status zb__join_nullify(zb_column *c, zb_error *err) {
  nullify_job nj = {c};
  ZB_RETURN_NOT_OK(zb_parallel_for(zb__morsels(c->length), nullify_morsel, &nj, err));
  zb_column_recount_nulls(c);
  return ZB_OK;
}

/* ---- cross join ----------------------------------------------------------------- */

typedef struct cross_job {
  int64_t n_right, n;
  int64_t *lo, *ro;
} cross_job;

static void cross_morsel(void *ctx, int64_t m, int worker) {
  (void)worker;
  cross_job *j = (cross_job *)ctx;
  int64_t a = m * ZB_MORSEL_ROWS, e = ZB_MIN(j->n, a + ZB_MORSEL_ROWS);
  int64_t l = a / j->n_right, r = a % j->n_right;
  for (int64_t i = a; i < e; i++) {
    j->lo[i] = l;
    j->ro[i] = r;
    if (++r == j->n_right) {
      r = 0;
      l++;
    }
  }
}

static zb_status cross_join(int64_t n_left, int64_t n_right, zb_column **lo, zb_column **ro,
                            zb_error *err) {
  int64_t n;
  if (__builtin_mul_overflow(n_left, n_right, &n))
    return zb_error_set(err, ZB_EOVERFLOW, "cross join of %lld x %lld rows is too large",
                        (long long)n_left, (long long)n_right);
  zb_column *l = NULL, *r = NULL;
  zb_status st = zb_column_new(ZB_INT64, n, false, 0, &l, err);
  if (st == ZB_OK) st = zb_column_new(ZB_INT64, n, false, 0, &r, err);
  if (st == ZB_OK && n > 0) {
    cross_job j = {n_right, n, (int64_t *)l->data->data, (int64_t *)r->data->data};
    st = zb_parallel_for(zb__morsels(n), cross_morsel, &j, err);
  }
  if (st != ZB_OK) {
    zb_column_release(l);
    zb_column_release(r);
    return st;
  }
  *lo = l;
  *ro = r;
  return ZB_OK;
}

/* ---- the join ----------------------------------------------------------------- */

/* how: inner, left, outer, semi or anti; d = the left (probe) side.
 * nulls_match: null keys are values (equal to nulls), so no row is left
 * out, and rows are compared by zb__keys_equal (which sees validity) rather
 * than by hash alone (exact) or by packed string words (str). */
static zb_status hash_join(const zb_column *const *dkeys, const zb_column *const *bkeys,
                           int64_t n_keys, int64_t n_d, int64_t n_b, zb_join_how how,
                           bool nulls_match, zb_column **lo_out, zb_column **ro_out,
                           zb_error *err) {
  side b, d;
  memset(&b, 0, sizeof b);
  memset(&d, 0, sizeof d);
  join_job j;
  memset(&j, 0, sizeof j);
  zb_column *lc = NULL, *rc = NULL;
  zb_status st = ZB_OK;
  int bits = 0;
  bool small = n_b <= SMALL_BUILD_ROWS;
  while (!small && bits < PART_MAX_BITS && (n_b >> bits) > PART_TARGET_ROWS) bits++;
  j.bits = bits;
  j.n_parts = (int64_t)1 << bits;
  j.how = how;
  j.outer = how == ZB_JOIN_OUTER;
  j.b = &b;
  j.d = &d;
  bool null_keys = false; /* nulls that take part as values */
  for (int64_t c = 0; nulls_match && c < n_keys; c++)
    null_keys |= dkeys[c]->null_count > 0 || bkeys[c]->null_count > 0;
  j.exact = n_keys == 1 && bkeys[0]->type != ZB_STRING && bkeys[0]->type != ZB_CATEGORICAL &&
            dkeys[0]->type != ZB_STRING && dkeys[0]->type != ZB_CATEGORICAL && !null_keys;
  j.str = n_keys == 1 && bkeys[0]->type == ZB_STRING && dkeys[0]->type == ZB_STRING &&
          !null_keys;
  j.ishift = j.str ? 1 : 0;
  j.narrow = n_b <= INT32_MAX;
  const size_t rw = j.narrow ? 4 : 8;
  j.dhead = zb_malloc((size_t)ZB_MAX(n_d, 1) * rw);
  j.dcnt = zb_malloc((size_t)ZB_MAX(n_d, 1) * rw);
  j.bnext = (int64_t *)zb_malloc((size_t)ZB_MAX(n_b, 1) * sizeof(int64_t));
  j.pdup = (uint8_t *)zb_malloc((size_t)j.n_parts);
  j.moff = (int64_t *)zb_malloc((size_t)ZB_MAX(zb__morsels(n_d), 1) * sizeof(int64_t));
  if (j.outer) j.bmatched = (uint8_t *)zb_calloc((size_t)ZB_MAX(n_b, 1), 1);
  if (j.dhead == NULL || j.dcnt == NULL || j.bnext == NULL || j.pdup == NULL ||
      j.moff == NULL || (j.outer && j.bmatched == NULL))
    goto nomem;
  st = side_prepare(&b, bkeys, n_keys, n_b, bits, true, j.str, !nulls_match, err);
  if (st != ZB_OK) goto done;
  if (small) {
    d.n = n_d;
    d.n_morsels = zb__morsels(n_d);
    for (int64_t c = 0; !nulls_match && c < n_keys; c++) d.has_nulls |= dkeys[c]->null_count > 0;
    st = j.str ? str_keys_init(&d.k, dkeys[0], err) : zb__keys_init(&d.k, dkeys, n_keys, err);
    if (st != ZB_OK) goto done;
    j.table_cap = table_cap_for(b.part_off[1]);
    j.n_workers = 1;
    j.tables = (slot **)zb_calloc(1, sizeof(slot *));
    j.tw = (uint64_t **)zb_calloc(1, sizeof(uint64_t *));
    if (j.tables == NULL || j.tw == NULL) goto nomem;
    j.tables[0] = (slot *)zb_malloc((size_t)j.table_cap * sizeof(slot));
    if (j.str) j.tw[0] = (uint64_t *)zb_malloc((size_t)j.table_cap * 2 * sizeof(uint64_t));
    if (j.tables[0] == NULL || (j.str && j.tw[0] == NULL)) goto nomem;
    j.pdup[0] = build_table(&j, j.tables[0], j.tw[0], j.table_cap, 0, b.part_off[1]);
    st = zb_parallel_for(d.n_morsels, probe_morsel, &j, err);
    if (st != ZB_OK) goto done;
    if (j.outer) mark_chains(&j, j.tables[0], j.table_cap);
    goto output;
  }
  /* the probe side's rows are needed only to compare keys: results go by
   * partitioned position, and the output finds each row's position again */
  st = side_prepare(&d, dkeys, n_keys, n_d, bits, !j.exact, j.str, !nulls_match, err);
  if (st != ZB_OK) goto done;
  j.partitioned = true;
  j.mout = (int64_t *)zb_malloc((size_t)ZB_MAX(d.n_morsels * j.n_parts, 1) * sizeof(int64_t));
  j.n_cursor_sets = zb_get_num_threads();
  j.cursors = (int64_t *)zb_malloc((size_t)j.n_cursor_sets * (size_t)j.n_parts * sizeof(int64_t));
  if (j.mout == NULL || j.cursors == NULL) goto nomem;

  /* per-worker partition tables, sized for the largest partition */
  int64_t maxp = 0;
  for (int64_t p = 0; p < j.n_parts; p++)
    maxp = ZB_MAX(maxp, b.part_off[p + 1] - b.part_off[p]);
  j.table_cap = table_cap_for(maxp);
  j.n_workers = (int)ZB_MIN((int64_t)zb_get_num_threads(), j.n_parts);
  j.tables = (slot **)zb_calloc((size_t)j.n_workers, sizeof(slot *));
  j.tw = (uint64_t **)zb_calloc((size_t)j.n_workers, sizeof(uint64_t *));
  if (j.tables == NULL || j.tw == NULL) goto nomem;
  for (int w = 0; w < j.n_workers; w++) {
    j.tables[w] = (slot *)zb_malloc((size_t)j.table_cap * sizeof(slot));
    if (j.str) j.tw[w] = (uint64_t *)zb_malloc((size_t)j.table_cap * 2 * sizeof(uint64_t));
    if (j.tables[w] == NULL || (j.str && j.tw[w] == NULL)) goto nomem;
  }
  st = zb_parallel_for(j.n_parts, partition_task, &j, err);
  if (st != ZB_OK) goto done;
  if (j.failed) {
    st = zb_error_set(err, ZB_EINVAL, "join: the thread count changed during the join");
    goto done;
  }
output:
  /* The hashed keys and partitions are done with: free them before the
   * output is allocated (the row counts stay) -- but for the partitioned
   * probe side's hash and segment bounds, which the output still reads. */
  side_free_arrays(&b);
  if (j.partitioned) {
    /* the hash, and the key columns for row_keyed; not the normalized keys */
    for (int64_t c = 0; c < d.k.n_cols; c++) {
      if (!d.k.cols[c].own_norm) continue;
      zb_free(d.k.cols[c].norm);
      d.k.cols[c].norm = NULL;
      d.k.cols[c].own_norm = false;
    }
    j.dhash = d.k.hash;
    zb_free(d.ph);
    zb_free(d.prow);
    zb_free(d.pw);
    d.ph = d.pw = NULL;
    d.prow = NULL;
  } else {
    side_free_arrays(&d);
  }
  /* count (the small build side's probe has), prefix-sum, write */
  if (j.outer) j.bmoff = (int64_t *)zb_malloc((size_t)ZB_MAX(b.n_morsels, 1) * sizeof(int64_t));
  if (j.outer && j.bmoff == NULL) goto nomem;
  if (j.partitioned) st = zb_parallel_for(d.n_morsels, count_morsel, &j, err);
  if (st == ZB_OK && j.outer) st = zb_parallel_for(b.n_morsels, count_unmatched_morsel, &j, err);
  if (st != ZB_OK) goto done;
  int64_t total = 0;
  for (int64_t m = 0; m < d.n_morsels; m++) {
    int64_t c = j.moff[m];
    j.moff[m] = total;
    if (__builtin_add_overflow(total, c, &total)) goto overflow;
  }
  if (j.outer) {
    for (int64_t m = 0; m < b.n_morsels; m++) {
      int64_t c = j.bmoff[m];
      j.bmoff[m] = total;
      if (__builtin_add_overflow(total, c, &total)) goto overflow;
    }
  }
  j.n_out = total;
  bool pairs = how != ZB_JOIN_SEMI && how != ZB_JOIN_ANTI;
  st = zb_column_new(ZB_INT64, total, j.outer, 0, &lc, err);
  if (st == ZB_OK && pairs)
    st = zb_column_new(ZB_INT64, total, how == ZB_JOIN_LEFT || j.outer, 0, &rc, err);
  if (st != ZB_OK) goto done;
  j.lo = (int64_t *)lc->data->data;
  j.ro = pairs ? (int64_t *)rc->data->data : NULL;
  st = zb_parallel_for(d.n_morsels, write_morsel, &j, err);
  if (st == ZB_OK && j.failed)
    st = zb_error_set(err, ZB_EINVAL, "join: the thread count changed during the join");
  if (st == ZB_OK && j.outer) st = zb_parallel_for(b.n_morsels, write_unmatched_morsel, &j, err);
  if (st == ZB_OK && j.outer) st = zb__join_nullify(lc, err);
  if (st == ZB_OK && rc != NULL && rc->validity != NULL) st = zb__join_nullify(rc, err);
  goto done;

overflow:
  st = zb_error_set(err, ZB_EOVERFLOW, "join output exceeds %lld rows", (long long)INT64_MAX);
  goto done;
nomem:
  st = zb_error_set(err, ZB_ENOMEM, "out of host memory joining %lld x %lld rows",
                    (long long)n_d, (long long)n_b);
done:
  if (j.tables != NULL)
    for (int w = 0; w < j.n_workers; w++) zb_free(j.tables[w]);
  if (j.tw != NULL)
    for (int w = 0; w < j.n_workers; w++) zb_free(j.tw[w]);
  zb_free(j.tables);
  zb_free(j.tw);
  zb_free(j.dhead);
  zb_free(j.dcnt);
  zb_free(j.bnext);
  zb_free(j.bmatched);
  zb_free(j.moff);
  zb_free(j.bmoff);
  zb_free(j.mout);
  zb_free(j.pdup);
  zb_free(j.cursors);
  side_reset(&b);
  side_reset(&d);
  if (st != ZB_OK) {
    zb_column_release(lc);
    zb_column_release(rc);
    return st;
  }
  *lo_out = lc;
  *ro_out = rc;
  return ZB_OK;
}

zb_status zb__cpu_join_indices(const zb_column *const *lkeys, const zb_column *const *rkeys,
                               int64_t n_keys, int64_t n_left, int64_t n_right,
                               zb_join_how how, bool nulls_match, zb_column **left_idx,
                               zb_column **right_idx, int64_t *key_order, zb_error *err) {
  *left_idx = NULL;
  *right_idx = NULL;
  *key_order = 0;
  bool merged = false;
  if (n_keys == 1 && how != ZB_JOIN_CROSS) {
    zb_status st = how == ZB_JOIN_RIGHT
                       ? zb__cpu_merge_join(rkeys[0], lkeys[0], ZB_JOIN_LEFT, right_idx,
                                            left_idx, &merged, err)
                       : zb__cpu_merge_join(lkeys[0], rkeys[0], how, left_idx, right_idx,
                                            &merged, err);
    if (st != ZB_OK || merged) {
      *key_order = merged;
      return st;
    }
  }
  switch (how) {
    case ZB_JOIN_CROSS:
      return cross_join(n_left, n_right, left_idx, right_idx, err);
    case ZB_JOIN_RIGHT: /* the left join of the swapped inputs */
      return hash_join(rkeys, lkeys, n_keys, n_right, n_left, ZB_JOIN_LEFT, nulls_match,
                       right_idx, left_idx, err);
    default:
      return hash_join(lkeys, rkeys, n_keys, n_left, n_right, how, nulls_match, left_idx,
                       right_idx, err);
  }
}
