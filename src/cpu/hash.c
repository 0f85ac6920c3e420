/*
 * hash.c -- CPU row hashing, the open-addressing row hash table, and the
 * operations built on them: hash_rows, unique, nunique, value_counts,
 * duplicated and isin (declared in src/cpu/hash.h and zambezi/compute.h).
 *
 * Hashing and normalization run in parallel morsels (each morsel writes its
 * own rows of the per-row arrays).  Rows are then inserted into the table
 * in row order by one thread, so group ids follow first appearance and
 * every result is independent of the thread count; isin probes the finished
 * (read-only) table in parallel morsels.  The table stores group ids in its
 * slots (linear probing, load <= 1/2, grows by doubling) and each group's
 * hash and first row in dense arrays, so growing never rehashes rows.
 * unique, nunique and value_counts of one integer-like column whose values
 * span a small range skip hashing: they count directly into arrays indexed
 * by value (see "direct-indexed grouping" below), with the same results.
 */
#include <math.h>

#include "core/dtype_list.h"
#include "cpu/groupby.h"
#include "cpu/hash.h"
#include "cpu/strcodes.h"

/* ---- hash functions ------------------------------------------------------- */

static inline uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= UINT64_C(0xff51afd7ed558ccd);
  x ^= x >> 33;
  x *= UINT64_C(0xc4ceb9fe1a85ec53);
  x ^= x >> 33;
  return x;
}

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

uint64_t zb__hash_bytes(const void *p, int64_t len) {
  const unsigned char *s = (const unsigned char *)p;
  uint64_t h = UINT64_C(0x243f6a8885a308d3) ^ ((uint64_t)len * UINT64_C(0x9e3779b97f4a7c15));
  int64_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, 8);
    h = rotl64(h ^ (w * UINT64_C(0x87c37b91114253d5)), 31) * UINT64_C(0x4cf5ad432745937f);
  }
  if (i < len) {
    uint64_t w = 0;
    memcpy(&w, s + i, (size_t)(len - i));
    h = rotl64(h ^ (w * UINT64_C(0x87c37b91114253d5)), 31) * UINT64_C(0x4cf5ad432745937f);
  }
  return zb__test_narrow_hash(mix64(h));
}

static inline uint64_t hash_value(uint64_t norm) {
  return mix64(norm + UINT64_C(0x9e3779b97f4a7c15));
}

static inline uint64_t hash_combine(uint64_t h, uint64_t hc) {
  return mix64(h ^ (hc + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2)));
}

static inline uint64_t norm_double(double d) {
  if (d == 0.0) d = 0.0; /* -0.0 -> 0.0 */
  uint64_t b;
  memcpy(&b, &d, 8);
  if (d != d) b = UINT64_C(0x7ff8000000000000);
  return b;
}

/* ---- keys ----------------------------------------------------------------- */

typedef struct dict_info {
  int64_t *canon;      /* canonical code per dictionary entry */
  uint64_t *hash;      /* value hash per dictionary entry */
  int64_t size;
} dict_info;

typedef struct keys_job {
  zb__keys *k;
  dict_info *dicts; /* per column (categoricals only) */
} keys_job;

#define NORM_LOOP(T, EXPR)                                    \
  do {                                                        \
    const T *v = (const T *)c->data->data + c->offset;        \
    for (int64_t i = s; i < e; i++) norm[i] = (EXPR);         \
  } while (0)

static void keys_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  keys_job *j = (keys_job *)ctx;
  zb__keys *k = j->k;
  int64_t s = task * ZB_MORSEL_ROWS;
  int64_t e = ZB_MIN(k->n_rows, s + ZB_MORSEL_ROWS);
  for (int64_t ci = 0; ci < k->n_cols; ci++) {
    const zb_column *c = k->cols[ci].col;
    uint64_t *norm = k->cols[ci].norm;
    uint64_t *h = k->hash;
    switch (c->type) {
      case ZB_BOOL: {
        const uint8_t *b = (const uint8_t *)c->data->data;
        for (int64_t i = s; i < e; i++) norm[i] = zb_bit_get(b, c->offset + i);
        break;
      }
      /* integers widened (64-bit ones: norm is the column's data) */
#define NORM_INT(ID, T, NAME, U)                                                \
      case ID:                                                                  \
        if (sizeof(T) < 8) NORM_LOOP(T, (uint64_t)v[i]);                        \
        break;
#define NORM_FLOAT(ID, T, NAME, U) case ID: NORM_LOOP(T, norm_double((double)v[i])); break;
      ZB_FOR_EACH_INTEGER_TYPE(NORM_INT)
      ZB_FOR_EACH_TEMPORAL_TYPE(NORM_INT)
      ZB_FOR_EACH_FLOAT_TYPE(NORM_FLOAT)
#undef NORM_INT
#undef NORM_FLOAT
      case ZB_CATEGORICAL: {
        const int32_t *v = (const int32_t *)c->data->data + c->offset;
        const dict_info *d = &j->dicts[ci];
        for (int64_t i = s; i < e; i++) {
          int32_t code = v[i];
          norm[i] = (code >= 0 && code < d->size) ? (uint64_t)d->canon[code]
                                                   : (uint64_t)(int64_t)code;
        }
        break;
      }
      default: break; /* strings: no normalized values */
    }
    /* hashes */
    for (int64_t i = s; i < e; i++) {
      uint64_t hc;
      if (!zb_column_is_valid(c, i)) {
        hc = ZB_HASH_NULL;
      } else if (c->type == ZB_STRING) {
        int64_t len;
        const char *p = zb__str(c, i, &len);
        hc = zb__hash_bytes(p, len);
      } else if (c->type == ZB_CATEGORICAL) {
        int32_t code = ((const int32_t *)c->data->data)[c->offset + i];
        const dict_info *d = &j->dicts[ci];
        hc = (code >= 0 && code < d->size) ? d->hash[code] : hash_value(norm[i]);
      } else {
        hc = hash_value(norm[i]);
      }
      h[i] = ci == 0 ? hc : hash_combine(h[i], hc);
    }
  }
}

void zb__keys_reset(zb__keys *k) {
  if (k->cols != NULL) {
    for (int64_t c = 0; c < k->n_cols; c++)
      if (k->cols[c].own_norm) zb_free(k->cols[c].norm);
  }
  zb_free(k->cols);
  zb_free(k->hash);
  memset(k, 0, sizeof *k);
}

static void dicts_free(dict_info *d, int64_t n) {
  if (d == NULL) return;
  for (int64_t i = 0; i < n; i++) {
    zb_free(d[i].canon);
    zb_free(d[i].hash);
  }
  zb_free(d);
}

/* canon/hash for the dictionary of categorical c. */
static zb_status dict_prepare(const zb_column *c, dict_info *d, zb_error *err) {
  const zb_column *dict = c->dictionary;
  /* the categories hash as a column of their own type, so a categorical
   * hashes as its values do */
  if (dict == NULL || dict->type == ZB_CATEGORICAL || dict->type == ZB_LIST)
    return ZB_OK; /* all codes out of range */
  zb__keys dk;
  zb__hash_table ht;
  memset(&ht, 0, sizeof ht);
  zb_status st = zb__keys_init(&dk, &dict, 1, err);
  if (st != ZB_OK) return st;
  int64_t n = dict->length;
  d->canon = (int64_t *)zb_malloc((size_t)ZB_MAX(n, 1) * sizeof(int64_t));
  d->hash = (uint64_t *)zb_malloc((size_t)ZB_MAX(n, 1) * sizeof(uint64_t));
  if (d->canon == NULL || d->hash == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (dictionary of %lld categories)",
                      (long long)n);
    goto done;
  }
  st = zb__ht_init(&ht, n, err);
  if (st == ZB_OK) st = zb__keys_group(&dk, &ht, d->canon, err);
  if (st == ZB_OK) {
    memcpy(d->hash, dk.hash, (size_t)n * sizeof(uint64_t));
    d->size = n;
  }
done:
  zb__ht_reset(&ht);
  zb__keys_reset(&dk);
  return st;
}

zb_status zb__keys_init(zb__keys *k, const zb_column *const *cols, int64_t n_cols,
                        zb_error *err) {
  memset(k, 0, sizeof *k);
  int64_t n = n_cols > 0 ? cols[0]->length : 0;
  dict_info *dicts = NULL;
  zb_status st = ZB_OK;
  k->n_rows = n;
  k->cols = (zb__keycol *)zb_calloc((size_t)ZB_MAX(n_cols, 1), sizeof(zb__keycol));
  k->hash = (uint64_t *)zb_malloc((size_t)ZB_MAX(n, 1) * sizeof(uint64_t));
  if (k->cols == NULL || k->hash == NULL) goto nomem;
  k->n_cols = n_cols;
  bool any_cat = false;
  for (int64_t c = 0; c < n_cols; c++) {
    k->cols[c].col = cols[c];
    zb_type_id t = cols[c]->type;
    if (t == ZB_INT64 || t == ZB_TIMESTAMP || t == ZB_DURATION || t == ZB_UINT64) {
      /* normalized values are the values: no copy */
      k->cols[c].norm = (uint64_t *)cols[c]->data->data + cols[c]->offset;
    } else if (t != ZB_STRING) {
      k->cols[c].norm = (uint64_t *)zb_malloc((size_t)ZB_MAX(n, 1) * sizeof(uint64_t));
      if (k->cols[c].norm == NULL) goto nomem;
      k->cols[c].own_norm = true;
    }
    if (cols[c]->type == ZB_CATEGORICAL) any_cat = true;
  }
  if (any_cat) {
    dicts = (dict_info *)zb_calloc((size_t)n_cols, sizeof(dict_info));
    if (dicts == NULL) goto nomem;
    for (int64_t c = 0; c < n_cols && st == ZB_OK; c++)
      if (cols[c]->type == ZB_CATEGORICAL) st = dict_prepare(cols[c], &dicts[c], err);
    if (st != ZB_OK) goto fail;
  }
  if (n > 0 && n_cols > 0) {
    keys_job j = {k, dicts};
    st = zb_parallel_for(zb__morsels(n), keys_morsel, &j, err);
    if (st != ZB_OK) goto fail;
  }
  dicts_free(dicts, n_cols);
  return ZB_OK;
nomem:
  st = zb_error_set(err, ZB_ENOMEM, "out of host memory hashing %lld rows of %lld columns",
                    (long long)n, (long long)n_cols);
fail:
  dicts_free(dicts, n_cols);
  zb__keys_reset(k);
  return st;
}

/* ---- hash table ----------------------------------------------------------- */

static int64_t pow2_at_least(int64_t x) {
  int64_t c = 16;
  while (c < x) c <<= 1;
  return c;
}

zb_status zb__ht_init(zb__hash_table *ht, int64_t expected, zb_error *err) {
  memset(ht, 0, sizeof *ht);
  int64_t cap = pow2_at_least(ZB_MIN(ZB_MAX(expected, 8), (int64_t)1 << 12) * 2);
  ht->slots = (int64_t *)zb_malloc((size_t)cap * 2 * sizeof(int64_t));
  ht->group_cap = cap / 2;
  ht->hashes = (uint64_t *)zb_malloc((size_t)ht->group_cap * sizeof(uint64_t));
  ht->first = (int64_t *)zb_malloc((size_t)ht->group_cap * sizeof(int64_t));
  if (ht->slots == NULL || ht->hashes == NULL || ht->first == NULL) {
    zb__ht_reset(ht);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (hash table of %lld slots)",
                        (long long)cap);
  }
  memset(ht->slots, 0xff, (size_t)cap * 2 * sizeof(int64_t));
  ht->capacity = cap;
  return ZB_OK;
}

void zb__ht_reset(zb__hash_table *ht) {
  zb_free(ht->slots);
  zb_free(ht->hashes);
  zb_free(ht->first);
  memset(ht, 0, sizeof *ht);
}

/* Double the slots and the group arrays; nothing changes on failure. */
/* Rehash into cap slots (a power of two, > 2 * n_groups). */
static zb_status ht_resize(zb__hash_table *ht, int64_t cap, zb_error *err) {
  int64_t gcap = cap / 2;
  int64_t *slots = (int64_t *)zb_malloc((size_t)cap * 2 * sizeof(int64_t));
  uint64_t *hashes = (uint64_t *)zb_malloc((size_t)gcap * sizeof(uint64_t));
  int64_t *first = (int64_t *)zb_malloc((size_t)gcap * sizeof(int64_t));
  if (slots == NULL || hashes == NULL || first == NULL) {
    zb_free(slots);
    zb_free(hashes);
    zb_free(first);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory growing a hash table to %lld slots",
                        (long long)cap);
  }
  memset(slots, 0xff, (size_t)cap * 2 * sizeof(int64_t));
  memcpy(hashes, ht->hashes, (size_t)ht->n_groups * sizeof(uint64_t));
  memcpy(first, ht->first, (size_t)ht->n_groups * sizeof(int64_t));
  uint64_t mask = (uint64_t)cap - 1;
  for (int64_t g = 0; g < ht->n_groups; g++) {
    uint64_t i = hashes[g] & mask;
    while (slots[2 * i] >= 0) i = (i + 1) & mask;
    slots[2 * i] = g;
    slots[2 * i + 1] = (int64_t)hashes[g];
  }
  zb_free(ht->slots);
  zb_free(ht->hashes);
  zb_free(ht->first);
  ht->slots = slots;
  ht->hashes = hashes;
  ht->first = first;
  ht->capacity = cap;
  ht->group_cap = gcap;
  return ZB_OK;
}

static zb_status ht_grow(zb__hash_table *ht, zb_error *err) {
  return ht_resize(ht, ht->capacity * 2, err);
}

zb_status zb__ht_reserve(zb__hash_table *ht, int64_t expected, zb_error *err) {
  int64_t cap = pow2_at_least(ZB_MAX(expected, 8) * 2);
  return cap > ht->capacity ? ht_resize(ht, cap, err) : ZB_OK;
}

zb_status zb__ht_insert(zb__hash_table *ht, const zb__keys *k, int64_t r, int64_t *group,
                        zb_error *err) {
  uint64_t h = k->hash[r];
  uint64_t mask = (uint64_t)ht->capacity - 1;
  uint64_t i = h & mask;
  for (;;) {
    int64_t g = ht->slots[2 * i];
    if (g < 0) break;
    if ((uint64_t)ht->slots[2 * i + 1] == h && zb__keys_equal(k, r, k, ht->first[g])) {
      *group = g;
      return ZB_OK;
    }
    i = (i + 1) & mask;
  }
  if (ht->n_groups + 1 > ht->group_cap) {
    ZB_RETURN_NOT_OK(ht_grow(ht, err));
    mask = (uint64_t)ht->capacity - 1;
    i = h & mask;
    while (ht->slots[2 * i] >= 0) i = (i + 1) & mask;
  }
  int64_t g = ht->n_groups++;
  ht->slots[2 * i] = g;
  ht->slots[2 * i + 1] = (int64_t)h;
  ht->hashes[g] = h;
  ht->first[g] = r;
  *group = g;
  return ZB_OK;
}

int64_t zb__ht_find(const zb__hash_table *ht, const zb__keys *k, const zb__keys *pk,
                    int64_t r) {
  uint64_t h = pk->hash[r];
  uint64_t mask = (uint64_t)ht->capacity - 1;
  uint64_t i = h & mask;
  for (;;) {
    int64_t g = ht->slots[2 * i];
    if (g < 0) return -1;
    if ((uint64_t)ht->slots[2 * i + 1] == h && zb__keys_equal(pk, r, k, ht->first[g])) return g;
    i = (i + 1) & mask;
  }
}

zb_status zb__keys_group(const zb__keys *k, zb__hash_table *ht, int64_t *group_of_row,
                         zb_error *err) {
  int64_t g = 0;
  for (int64_t r = 0; r < k->n_rows; r++) {
    /* one serial pass: look for Ctrl-C once per morsel of rows */
    if ((r & (ZB_MORSEL_ROWS - 1)) == 0 && zb_cancel_requested())
      return zb_error_set(err, ZB_ECANCEL, "interrupted");
    ZB_RETURN_NOT_OK(zb__ht_insert(ht, k, r, &g, err));
    if (group_of_row != NULL) group_of_row[r] = g;
  }
  return ZB_OK;
}

/* ---- shared helpers ------------------------------------------------------- */

/* Keys and groups of one column; group_of_row optional (allocated here). */
typedef struct grouped {
  zb__keys k;
  zb__hash_table ht;
  int64_t *group_of_row;
} grouped;

static void grouped_reset(grouped *g) {
  zb__keys_reset(&g->k);
  zb__ht_reset(&g->ht);
  zb_free(g->group_of_row);
  g->group_of_row = NULL;
}

static zb_status group_columns(const zb_column *const *cols, int64_t n_cols, bool want_rows,
                               grouped *g, zb_error *err) {
  memset(g, 0, sizeof *g);
  zb_status st = zb__keys_init(&g->k, cols, n_cols, err);
  if (st != ZB_OK) return st;
  int64_t n = g->k.n_rows;
  if (want_rows) {
    g->group_of_row = (int64_t *)zb_malloc((size_t)ZB_MAX(n, 1) * sizeof(int64_t));
    if (g->group_of_row == NULL) {
      grouped_reset(g);
      return zb_error_set(err, ZB_ENOMEM, "out of host memory (group ids of %lld rows)",
                          (long long)n);
    }
  }
  st = zb__ht_init(&g->ht, n, err);
  if (st == ZB_OK) st = zb__keys_group(&g->k, &g->ht, g->group_of_row, err);
  if (st != ZB_OK) grouped_reset(g);
  return st;
}

/* group_columns by the parallel grouping of group-by (zb__group_rows:
 * string codes, direct indexing or partitioned hashing), for keys without
 * floats (it treats NaN as null; here they are different keys).  g gets
 * the ids and first rows only (no hashed keys, no table). */
static zb_status group_parallel(const zb_column *const *cols, int64_t n_cols, bool codes_tried,
                                grouped *g, zb_error *err) {
  memset(g, 0, sizeof *g);
  if (codes_tried && n_cols == 1 && cols[0]->type == ZB_STRING) {
    /* the caller's dense_group found too many distinct strings for the
     * codes: straight to the partitioned grouping, not the codes again */
    int64_t n = cols[0]->length;
    g->group_of_row = (int64_t *)zb_malloc((size_t)ZB_MAX(n, 1) * sizeof(int64_t));
    if (g->group_of_row == NULL)
      return zb_error_set(err, ZB_ENOMEM, "out of host memory (groups of %lld strings)",
                          (long long)n);
    zb_status st = zb__string_group_rows(cols[0], false, g->group_of_row, &g->ht.first,
                                         &g->ht.n_groups, err);
    if (st != ZB_OK) {
      zb_free(g->group_of_row);
      memset(g, 0, sizeof *g);
      return st;
    }
    g->k.n_rows = n;
    return ZB_OK;
  }
  zb__grouping gr;
  ZB_RETURN_NOT_OK(zb__group_rows(cols, n_cols, false, false, false, &gr, err));
  g->group_of_row = gr.gid;
  g->ht.first = gr.first;
  g->ht.n_groups = gr.n_groups;
  g->k.n_rows = gr.n_rows;
  gr.gid = gr.first = NULL;
  zb__grouping_reset(&gr);
  return ZB_OK;
}

/* Null, or NaN in a float column. */
static bool is_na(const zb_column *c, int64_t i) {
  if (!zb_column_is_valid(c, i)) return true;
  if (c->type == ZB_FLOAT64) return isnan(((const double *)c->data->data)[c->offset + i]);
  if (c->type == ZB_FLOAT32) return isnan(((const float *)c->data->data)[c->offset + i]);
  return false;
}

/* A new INT64 column (no nulls) holding v[0, n). */
static zb_status int64_column(const int64_t *v, int64_t n, zb_column **out, zb_error *err) {
  ZB_RETURN_NOT_OK(zb_column_new(ZB_INT64, n, false, 0, out, err));
  if (n > 0) memcpy((*out)->data->data, v, (size_t)n * sizeof(int64_t));
  return ZB_OK;
}

/* Rows `rows[0, n)` of col as a new column. */
static zb_status take_rows(const zb_column *col, const int64_t *rows, int64_t n,
                           zb_column **out, zb_error *err) {
  zb_column *idx = NULL;
  ZB_RETURN_NOT_OK(int64_column(rows, n, &idx, err));
  zb_status st = zb__cpu_take(col, idx, out, err);
  zb_column_release(idx);
  return st;
}

/* ---- direct-indexed grouping of small integer ranges --------------------- */

/* One integer-like column (integers, dates, timestamps) whose values span a
 * small range is grouped without hashing: value - min indexes an array of
 * counts and first rows (slot `range` holds the nulls).  Each worker counts
 * into its own arrays; they are merged by sum and minimum, so the result is
 * the same for any thread count, and the groups are then ordered by first
 * row -- the order the hash table gives. */

#define DENSE_MAX_RANGE (INT64_C(1) << 20)

typedef struct dense_groups {
  int64_t n_groups;
  int64_t *first; /* first row of each group, in order of first appearance */
  int64_t *count; /* rows of each group */
} dense_groups;

static void dense_reset(dense_groups *d) {
  zb_free(d->first);
  zb_free(d->count);
  memset(d, 0, sizeof *d);
}

typedef struct dense_job {
  const zb_column *c;
  int64_t n;
  uint64_t *mn, *mx;  /* per morsel (min > max: no valid row) */
  uint64_t base;
  int64_t range;      /* slots of values; slot `range` is null */
  int64_t *cnt, *first; /* [workers][range + 1] */
} dense_job;

static bool dense_type(zb_type_id t) {
  switch (t) {
#define DENSE_TYPE(ID, T, NAME, U) case ID:
    ZB_FOR_EACH_INTEGER_TYPE(DENSE_TYPE)
    ZB_FOR_EACH_TEMPORAL_TYPE(DENSE_TYPE)
#undef DENSE_TYPE
      return true;
    default: return false;
  }
}

/* Body over rows [lo, hi) of c with the order-preserving unsigned value
 * `k` of each valid row (nulls: NULLBODY). */
#define DENSE_ROWS(T, KEY, BODY, NULLBODY)                                     \
  {                                                                            \
    const T *src = (const T *)c->data->data + c->offset;                       \
    for (int64_t row = lo; row < hi; row += 64) {                              \
      int m = (int)ZB_MIN((int64_t)64, hi - row);                              \
      uint64_t vw = zb__valid_word(c, row, m);                                 \
      if (vw == zb__mask(m)) {                                                 \
        for (int q = 0; q < m; q++) {                                          \
          int64_t i = row + q;                                                 \
          uint64_t k = KEY(src[i]);                                          \
          BODY;                                                                \
        }                                                                      \
      } else {                                                                 \
        for (int q = 0; q < m; q++) {                                          \
          int64_t i = row + q;                                                 \
          if ((vw >> q) & 1) {                                                 \
            uint64_t k = KEY(src[i]);                                        \
            BODY;                                                              \
          } else {                                                             \
            NULLBODY;                                                          \
          }                                                                    \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

#define KEY_S8(v) ((uint64_t)(int64_t)(v) ^ (UINT64_C(1) << 63))
#define KEY_U(v) ((uint64_t)(v))

/* DENSE_ROWS over c's physical integer type with the body DENSE_BODY and
 * DENSE_NULLBODY, which the caller defines around it. */
#define DENSE_CASE_S(ID, T, NAME, U) case ID: DENSE_ROWS(T, KEY_S8, DENSE_BODY, DENSE_NULLBODY) break;
#define DENSE_CASE_U(ID, T, NAME, U) case ID: DENSE_ROWS(T, KEY_U, DENSE_BODY, DENSE_NULLBODY) break;
#define DENSE_SWITCH                                                           \
  switch (zb__physical(c->type)) {                                             \
    ZB_FOR_EACH_SIGNED_TYPE(DENSE_CASE_S)                                      \
    ZB_FOR_EACH_UNSIGNED_TYPE(DENSE_CASE_U)                                    \
    default: break;                                                            \
  }

static void dense_minmax(void *ctx, int64_t task, int worker) {
  (void)worker;
  dense_job *j = (dense_job *)ctx;
  const zb_column *c = j->c;
  int64_t lo = task * ZB_MORSEL_ROWS, hi = ZB_MIN(lo + ZB_MORSEL_ROWS, j->n);
  uint64_t mn = UINT64_MAX, mx = 0;
#define DENSE_BODY { mn = k < mn ? k : mn; mx = k > mx ? k : mx; }
#define DENSE_NULLBODY (void)0
  DENSE_SWITCH
#undef DENSE_BODY
#undef DENSE_NULLBODY
  j->mn[task] = mn;
  j->mx[task] = mx;
}

static void dense_count(void *ctx, int64_t task, int worker) {
  dense_job *j = (dense_job *)ctx;
  const zb_column *c = j->c;
  int64_t lo = task * ZB_MORSEL_ROWS, hi = ZB_MIN(lo + ZB_MORSEL_ROWS, j->n);
  int64_t *cnt = j->cnt + (int64_t)worker * (j->range + 1);
  int64_t *first = j->first + (int64_t)worker * (j->range + 1);
  uint64_t base = j->base;
  int64_t nulls = j->range;
#define DENSE_BODY                                                             \
  {                                                                            \
    int64_t s = (int64_t)(k - base);                                           \
    cnt[s]++;                                                                  \
    if (i < first[s]) first[s] = i;                                            \
  }
#define DENSE_NULLBODY                                                         \
  {                                                                            \
    cnt[nulls]++;                                                              \
    if (i < first[nulls]) first[nulls] = i;                                    \
  }
  DENSE_SWITCH
#undef DENSE_BODY
#undef DENSE_NULLBODY
}

zb_status zb__strings_distinct(zb_column *c, bool *distinct, zb_error *err) {
  int32_t known = __atomic_load_n(&c->distinct, __ATOMIC_RELAXED);
  if (known == 0) {
    int64_t *gid = (int64_t *)zb_malloc((size_t)ZB_MAX(c->length, 1) * sizeof(int64_t));
    int64_t *first = NULL, ng = 0;
    if (gid == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (categories)");
    zb_status st = c->length > 0 ? zb__string_group_rows(c, false, gid, &first, &ng, err) : ZB_OK;
    zb_free(gid);
    zb_free(first);
    ZB_RETURN_NOT_OK(st);
    known = ng == c->length ? 1 : 2;
    __atomic_store_n(&c->distinct, known, __ATOMIC_RELAXED); /* racing callers agree */
  }
  *distinct = known == 1;
  return ZB_OK;
}

/* Group col directly when it qualifies: *used tells whether it did (else
 * d is empty and the caller hashes). */
static zb_status dense_group(const zb_column *c, dense_groups *d, bool *used, zb_error *err) {
  memset(d, 0, sizeof *d);
  *used = false;
  int64_t n = c->length;
  if (c->type == ZB_STRING && n > 0) {
    /* plain strings: their codes (first appearance) group directly when
     * there are few enough distinct strings; the rows are the same */
    zb_column *codes = NULL;
    int64_t ng = 0;
    ZB_RETURN_NOT_OK(zb__string_codes_column(c, false, ZB_STRING_CODES_MAX_GROUPS, &codes,
                                             NULL, &ng, err));
    if (codes == NULL) return ZB_OK;
    zb_status st = dense_group(codes, d, used, err);
    zb_column_release(codes);
    return st;
  }
  if (c->type == ZB_CATEGORICAL && n > 0 && c->dictionary != NULL &&
      c->dictionary->type == ZB_STRING && c->dictionary->null_count == 0) {
    /* categorical codes group directly when the categories are distinct
     * (as pandas' always are; a dictionary may repeat a string only when
     * built by hand): one pass over the categories, not a hash of rows */
    bool distinct;
    ZB_RETURN_NOT_OK(zb__strings_distinct(c->dictionary, &distinct, err));
    if (!distinct) return ZB_OK; /* repeated categories: hash the rows */
    zb_status st;
    zb_column *codes = NULL;
    ZB_RETURN_NOT_OK(zb_column_make(ZB_INT32, n, c->offset, c->validity, c->data, NULL, NULL,
                                    c->null_count, &codes, err));
    st = dense_group(codes, d, used, err);
    zb_column_release(codes);
    return st;
  }
  if (!dense_type(c->type) || n < 1 || c->null_count == n) return ZB_OK;
  int64_t nm = zb__morsels(n);
  dense_job j;
  memset(&j, 0, sizeof j);
  j.c = c;
  j.n = n;
  j.mn = (uint64_t *)zb_malloc((size_t)nm * 2 * sizeof(uint64_t));
  if (j.mn == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (value ranges)");
  j.mx = j.mn + nm;
  zb_status st = zb_parallel_for(nm, dense_minmax, &j, err);
  uint64_t mn = UINT64_MAX, mx = 0;
  for (int64_t m = 0; st == ZB_OK && m < nm; m++) {
    mn = ZB_MIN(mn, j.mn[m]);
    mx = ZB_MAX(mx, j.mx[m]);
  }
  zb_free(j.mn);
  j.mn = j.mx = NULL;
  if (st != ZB_OK) return st;
  uint64_t span = mx - mn; /* valid rows exist, so mn <= mx */
  if (span >= (uint64_t)DENSE_MAX_RANGE || span >= (uint64_t)(2 * n + 1024)) return ZB_OK;
  int64_t range = (int64_t)span + 1, slots = range + 1;
  int workers = zb_get_num_threads();
  j.base = mn;
  j.range = range;
  j.cnt = (int64_t *)zb_calloc((size_t)(workers * slots), sizeof(int64_t));
  j.first = (int64_t *)zb_malloc((size_t)(workers * slots) * sizeof(int64_t));
  uint64_t *order = NULL, *tmp = NULL;
  if (j.cnt == NULL || j.first == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (counting %lld values)",
                      (long long)range);
    goto done;
  }
  for (int64_t s = 0; s < workers * slots; s++) j.first[s] = INT64_MAX;
  st = zb_parallel_for(nm, dense_count, &j, err);
  if (st != ZB_OK) goto done;
  /* merge the workers into worker 0's arrays; collect (first row, slot) */
  int64_t ng = 0;
  for (int64_t s = 0; s < slots; s++) {
    for (int w = 1; w < workers; w++) {
      j.cnt[s] += j.cnt[(int64_t)w * slots + s];
      j.first[s] = ZB_MIN(j.first[s], j.first[(int64_t)w * slots + s]);
    }
    ng += j.cnt[s] > 0;
  }
  order = (uint64_t *)zb_malloc((size_t)ng * sizeof(uint64_t) + 8);
  tmp = (uint64_t *)zb_malloc((size_t)ng * sizeof(uint64_t) + 8);
  d->first = (int64_t *)zb_malloc((size_t)ng * sizeof(int64_t) + 8);
  d->count = (int64_t *)zb_malloc((size_t)ng * sizeof(int64_t) + 8);
  if (order == NULL || tmp == NULL || d->first == NULL || d->count == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (%lld groups)", (long long)ng);
    goto done;
  }
  /* first rows are distinct and < 2^42; slots < 2^21 */
  int64_t g = 0;
  for (int64_t s = 0; s < slots; s++)
    if (j.cnt[s] > 0) order[g++] = ((uint64_t)j.first[s] << 21) | (uint64_t)s;
  zb__sort_u64_serial(order, tmp, ng);
  for (int64_t i = 0; i < ng; i++) {
    int64_t s = (int64_t)(order[i] & ((UINT64_C(1) << 21) - 1));
    d->first[i] = j.first[s];
    d->count[i] = j.cnt[s];
  }
  d->n_groups = ng;
  *used = true;
done:
  zb_free(j.cnt);
  zb_free(j.first);
  zb_free(order);
  zb_free(tmp);
  if (st != ZB_OK) dense_reset(d);
  return st;
}

/* ---- operations ----------------------------------------------------------- */

zb_status zb__cpu_hash_rows(const zb_table *t, int64_t n_keys, const int64_t *keys,
                            zb_column **out, zb_error *err) {
  *out = NULL;
  zb_column **cols = (zb_column **)zb_malloc((size_t)ZB_MAX(n_keys, 1) * sizeof(zb_column *));
  if (cols == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (hash keys)");
  for (int64_t i = 0; i < n_keys; i++) cols[i] = t->columns[keys[i]];
  zb__keys k;
  zb_status st = zb__keys_init(&k, (const zb_column *const *)cols, n_keys, err);
  zb_free(cols);
  if (st != ZB_OK) return st;
  zb_column *o = NULL;
  st = zb_column_new(ZB_UINT64, t->num_rows, false, 0, &o, err);
  if (st == ZB_OK && t->num_rows > 0)
    memcpy(o->data->data, k.hash, (size_t)t->num_rows * sizeof(uint64_t));
  zb__keys_reset(&k);
  *out = o;
  return st;
}

zb_status zb__cpu_unique(const zb_column *col, zb_column **out, zb_error *err) {
  *out = NULL;
  dense_groups d;
  bool dense;
  ZB_RETURN_NOT_OK(dense_group(col, &d, &dense, err));
  if (dense) {
    zb_status st = take_rows(col, d.first, d.n_groups, out, err);
    dense_reset(&d);
    return st;
  }
  grouped g;
  ZB_RETURN_NOT_OK(col->type == ZB_STRING ? group_parallel(&col, 1, true, &g, err)
                                          : group_columns(&col, 1, false, &g, err));
  zb_status st = take_rows(col, g.ht.first, g.ht.n_groups, out, err);
  grouped_reset(&g);
  return st;
}

zb_status zb__cpu_nunique(const zb_column *col, bool dropna, int64_t *out, zb_error *err) {
  *out = 0;
  dense_groups d;
  bool dense;
  ZB_RETURN_NOT_OK(dense_group(col, &d, &dense, err));
  if (dense) {
    int64_t k = d.n_groups;
    if (dropna)
      for (int64_t i = 0; i < d.n_groups; i++) k -= is_na(col, d.first[i]);
    dense_reset(&d);
    *out = k;
    return ZB_OK;
  }
  grouped g;
  ZB_RETURN_NOT_OK(col->type == ZB_STRING ? group_parallel(&col, 1, true, &g, err)
                                          : group_columns(&col, 1, false, &g, err));
  int64_t n = g.ht.n_groups;
  if (dropna)
    for (int64_t i = 0; i < g.ht.n_groups; i++) n -= is_na(col, g.ht.first[i]);
  grouped_reset(&g);
  *out = n;
  return ZB_OK;
}

/* Stable merge sort of groups idx[0, n) by counts (descending unless
 * ascending); tmp has room for n. */
static void sort_by_count(int64_t *idx, int64_t *tmp, int64_t n, const int64_t *counts,
                          bool ascending) {
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      int64_t mid = ZB_MIN(lo + width, n), hi = ZB_MIN(lo + 2 * width, n);
      int64_t a = lo, b = mid, o = lo;
      while (a < mid && b < hi) {
        int64_t ca = counts[idx[a]], cb = counts[idx[b]];
        bool take_b = ascending ? cb < ca : cb > ca;
        tmp[o++] = take_b ? idx[b++] : idx[a++];
      }
      while (a < mid) tmp[o++] = idx[a++];
      while (b < hi) tmp[o++] = idx[b++];
    }
    memcpy(idx, tmp, (size_t)n * sizeof(int64_t));
  }
}

zb_status zb__cpu_value_counts(const zb_column *col, bool sort, bool ascending, bool dropna,
                               bool normalize, zb_column **values, zb_column **counts,
                               zb_error *err) {
  *values = NULL;
  *counts = NULL;
  grouped g;
  memset(&g, 0, sizeof g);
  dense_groups d;
  bool dense;
  ZB_RETURN_NOT_OK(dense_group(col, &d, &dense, err));
  if (!dense)
    ZB_RETURN_NOT_OK(col->type == ZB_STRING ? group_parallel(&col, 1, true, &g, err)
                                            : group_columns(&col, 1, true, &g, err));
  int64_t ng = dense ? d.n_groups : g.ht.n_groups;
  const int64_t *first = dense ? d.first : g.ht.first;
  zb_status st = ZB_OK;
  int64_t *cnt = dense ? d.count : (int64_t *)zb_calloc((size_t)ZB_MAX(ng, 1), sizeof(int64_t));
  int64_t *order = (int64_t *)zb_malloc((size_t)ZB_MAX(ng, 1) * sizeof(int64_t));
  int64_t *tmp = (int64_t *)zb_malloc((size_t)ZB_MAX(ng, 1) * sizeof(int64_t));
  zb_column *v = NULL, *c = NULL;
  if (cnt == NULL || order == NULL || tmp == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (value counts of %lld values)",
                      (long long)ng);
    goto done;
  }
  if (!dense)
    for (int64_t i = 0; i < g.k.n_rows; i++) cnt[g.group_of_row[i]]++;
  int64_t kept = 0, total = 0;
  for (int64_t i = 0; i < ng; i++) {
    if (dropna && is_na(col, first[i])) continue;
    order[kept++] = i;
    total += cnt[i];
  }
  if (sort) sort_by_count(order, tmp, kept, cnt, ascending);
  /* tmp: first rows in output order */
  for (int64_t i = 0; i < kept; i++) tmp[i] = first[order[i]];
  st = take_rows(col, tmp, kept, &v, err);
  if (st != ZB_OK) goto done;
  st = zb_column_new(normalize ? ZB_FLOAT64 : ZB_INT64, kept, false, 0, &c, err);
  if (st != ZB_OK) goto done;
  for (int64_t i = 0; i < kept; i++) {
    int64_t x = cnt[order[i]];
    if (normalize)
      ((double *)c->data->data)[i] = (double)x / (double)total;
    else
      ((int64_t *)c->data->data)[i] = x;
  }
done:
  if (!dense) zb_free(cnt);
  zb_free(order);
  zb_free(tmp);
  if (dense)
    dense_reset(&d);
  else
    grouped_reset(&g);
  if (st != ZB_OK) {
    zb_column_release(v);
    zb_column_release(c);
    return st;
  }
  *values = v;
  *counts = c;
  return ZB_OK;
}

typedef struct dup_job {
  const int64_t *gid; /* per row: its group */
  const int64_t *ref; /* per group: FIRST/LAST its kept row, NONE its count */
  uint8_t *bits;
  int64_t n;
  zb_keep keep;
} dup_job;

/* The duplicated flags of one morsel (a multiple of 64 rows: whole words). */
static void dup_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  const dup_job *j = (const dup_job *)ctx;
  int64_t s = task * ZB_MORSEL_ROWS, e = ZB_MIN(j->n, s + ZB_MORSEL_ROWS);
  for (int64_t base = s; base < e; base += 64) {
    int m = (int)ZB_MIN((int64_t)64, e - base);
    uint64_t w = 0;
    if (j->keep == ZB_KEEP_NONE) {
      for (int b = 0; b < m; b++) w |= (uint64_t)(j->ref[j->gid[base + b]] > 1) << b;
    } else {
      for (int b = 0; b < m; b++) w |= (uint64_t)(j->ref[j->gid[base + b]] != base + b) << b;
    }
    zb__store_bits(j->bits, base, w, m);
  }
}

zb_status zb__cpu_duplicated(const zb_table *t, int64_t n_keys, const int64_t *keys,
                             zb_keep keep, zb_column **out, zb_error *err) {
  *out = NULL;
  int64_t n = t->num_rows;
  zb_column **cols = (zb_column **)zb_malloc((size_t)ZB_MAX(n_keys, 1) * sizeof(zb_column *));
  if (cols == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (duplicated keys)");
  bool any_float = false;
  for (int64_t i = 0; i < n_keys; i++) {
    cols[i] = t->columns[keys[i]];
    any_float |= cols[i]->type == ZB_FLOAT32 || cols[i]->type == ZB_FLOAT64;
  }
  grouped g;
  memset(&g, 0, sizeof g);
  zb_status st;
  if (!any_float) {
    /* the parallel grouping of group-by (string keys as codes, others
     * direct or partitioned hashing); floats keep the hash table here,
     * where NaN and null are different keys */
    st = group_parallel((const zb_column *const *)cols, n_keys, false, &g, err);
  } else {
    st = group_columns((const zb_column *const *)cols, n_keys, true, &g, err);
  }
  zb_free(cols);
  if (st != ZB_OK) return st;
  int64_t ng = g.ht.n_groups;
  int64_t *ref = NULL; /* FIRST: the first row; LAST: the last row; NONE: count */
  zb_column *o = NULL;
  if (keep == ZB_KEEP_FIRST) {
    ref = g.ht.first;
  } else {
    ref = (int64_t *)zb_calloc((size_t)ZB_MAX(ng, 1), sizeof(int64_t));
    if (ref == NULL) {
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory (%lld duplicate groups)",
                        (long long)ng);
      goto done;
    }
    for (int64_t i = 0; i < n; i++) {
      if (keep == ZB_KEEP_LAST)
        ref[g.group_of_row[i]] = i;
      else
        ref[g.group_of_row[i]]++;
    }
  }
  st = zb_column_new(ZB_BOOL, n, false, 0, &o, err);
  if (st != ZB_OK) goto done;
  dup_job dj = {g.group_of_row, ref, (uint8_t *)o->data->data, n, keep};
  st = zb_parallel_for(zb__morsels(n), dup_morsel, &dj, err);
done:
  if (ref != g.ht.first) zb_free(ref);
  grouped_reset(&g);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}

typedef struct isin_job {
  const zb__hash_table *ht;
  const zb__keys *build, *probe;
  const zb_column *col;
  uint8_t *bits;
} isin_job;

static void isin_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  isin_job *j = (isin_job *)ctx;
  int64_t s = task * ZB_MORSEL_ROWS;
  int64_t e = ZB_MIN(j->col->length, s + ZB_MORSEL_ROWS);
  for (int64_t base = s; base < e; base += 64) {
    int m = (int)ZB_MIN((int64_t)64, e - base);
    uint64_t valid = zb__valid_word(j->col, base, m), w = 0;
    for (int b = 0; b < m; b++) {
      if (!((valid >> b) & 1)) continue;
      if (zb__ht_find(j->ht, j->build, j->probe, base + b) >= 0) w |= UINT64_C(1) << b;
    }
    zb__store_bits(j->bits, base, w, m);
  }
}

zb_status zb__cpu_isin(const zb_column *col, const zb_column *values, zb_column **out,
                       zb_error *err) {
  *out = NULL;
  if (col->type == ZB_STRING && values->type == ZB_STRING) {
    /* the packed short-string keys of the string codes: no hash pass */
    zb_column *o = NULL;
    ZB_RETURN_NOT_OK(zb_column_new(ZB_BOOL, col->length, false, 0, &o, err));
    zb_status st = zb__string_isin(col, values, (uint8_t *)o->data->data, err);
    if (st != ZB_OK) {
      zb_column_release(o);
      return st;
    }
    *out = o;
    return ZB_OK;
  }
  zb__keys build, probe;
  zb__hash_table ht;
  memset(&probe, 0, sizeof probe);
  memset(&ht, 0, sizeof ht);
  zb_column *o = NULL;
  zb_status st = zb__keys_init(&build, &values, 1, err);
  if (st != ZB_OK) return st;
  st = zb__keys_init(&probe, &col, 1, err);
  if (st == ZB_OK) st = zb__ht_init(&ht, values->length, err);
  for (int64_t r = 0; st == ZB_OK && r < values->length; r++) {
    int64_t g;
    if (zb_column_is_valid(values, r)) st = zb__ht_insert(&ht, &build, r, &g, err);
  }
  if (st == ZB_OK) st = zb_column_new(ZB_BOOL, col->length, false, 0, &o, err);
  if (st == ZB_OK && col->length > 0) {
    isin_job j = {&ht, &build, &probe, col, (uint8_t *)o->data->data};
    st = zb_parallel_for(zb__morsels(col->length), isin_morsel, &j, err);
  }
  zb__ht_reset(&ht);
  zb__keys_reset(&probe);
  zb__keys_reset(&build);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}
