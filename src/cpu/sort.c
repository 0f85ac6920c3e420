/*
 * sort.c -- CPU sort permutations: stable LSD radix sort of order-preserving
 * unsigned keys for fixed-width columns, and a stable merge sort on 8-byte
 * big-endian prefixes (then full bytes) for strings; multi-key sorts run
 * from the last key to the first, each pass stable.
 *
 * Key mapping (so that unsigned order == value order): signed integers flip
 * the sign bit; floats flip all bits when negative, else the sign bit, after
 * -0.0 is made 0.0 (so -0.0 and 0.0 tie and keep their row order); bools
 * are 0/1; categoricals sort by the rank of their string in the sorted
 * dictionary.  Nulls (and NaN, which pandas treats as missing when sorting)
 * are moved to the front or back by a stable partition first; descending
 * order inverts the keys, so ties keep row order in both directions.
 *
 * Radix passes are parallel by morsel: each morsel histograms its slice,
 * an exclusive scan over (digit, morsel) gives every morsel its write
 * positions, and each morsel scatters its rows in order, so the result is
 * the same for any thread count.  Byte positions where all keys agree are
 * skipped.
 */
#include <math.h>

#include "cpu/kernels.h"

/* ---- strings: stable merge sort on (prefix, row) ------------------------- */

typedef struct str_item {
  uint64_t prefix; /* first 8 bytes, big-endian, zero padded */
  int64_t idx;     /* the value being sorted */
  int64_t row;     /* the string's row in c */
} str_item;

static inline uint64_t str_prefix(const char *p, int64_t len) {
  uint64_t k = 0;
  for (int i = 0; i < 8; i++) k = (k << 8) | (i < len ? (unsigned char)p[i] : 0u);
  return k;
}

/* a < b ? (strictly) */
static inline bool str_less(const zb_column *c, const str_item *a, const str_item *b) {
  if (a->prefix != b->prefix) return a->prefix < b->prefix;
  int64_t la, lb;
  const char *pa = zb__str(c, a->row, &la), *pb = zb__str(c, b->row, &lb);
  if (la <= 8 && lb <= 8) return la < lb; /* equal prefixes: shorter first */
  int64_t m = ZB_MIN(la, lb);
  int r = m > 8 ? memcmp(pa + 8, pb + 8, (size_t)(m - 8)) : 0;
  if (r != 0) return r < 0;
  return la < lb;
}

static void merge_runs(const zb_column *c, const str_item *src, str_item *dst, int64_t lo,
                       int64_t mid, int64_t hi) {
  int64_t i = lo, j = mid, k = lo;
  while (i < mid && j < hi) dst[k++] = str_less(c, &src[j], &src[i]) ? src[j++] : src[i++];
  while (i < mid) dst[k++] = src[i++];
  while (j < hi) dst[k++] = src[j++];
}

typedef struct msort_job {
  const zb_column *c;
  str_item *a, *b;
  int64_t n, width; /* current run width (merge) */
  int64_t chunk;    /* rows per initial chunk */
} msort_job;

/* Sort chunk `task` of a into place (insertion for short runs, then merges
 * inside the chunk, ping-ponging with b; result ends in a). */
static void chunk_sort(void *ctx, int64_t task, int worker) {
  (void)worker;
  msort_job *j = (msort_job *)ctx;
  int64_t lo = task * j->chunk, hi = ZB_MIN(lo + j->chunk, j->n);
  const int64_t run = 16;
  for (int64_t s = lo; s < hi; s += run) {
    int64_t e = ZB_MIN(s + run, hi);
    for (int64_t i = s + 1; i < e; i++) {
      str_item x = j->a[i];
      int64_t k = i;
      while (k > s && str_less(j->c, &x, &j->a[k - 1])) {
        j->a[k] = j->a[k - 1];
        k--;
      }
      j->a[k] = x;
    }
  }
  str_item *src = j->a, *dst = j->b;
  for (int64_t w = run; w < hi - lo; w *= 2) {
    for (int64_t s = lo; s < hi; s += 2 * w) {
      int64_t mid = ZB_MIN(s + w, hi), e = ZB_MIN(s + 2 * w, hi);
      merge_runs(j->c, src, dst, s, mid, e);
    }
    str_item *t = src;
    src = dst;
    dst = t;
  }
  if (src != j->a) memcpy(j->a + lo, src + lo, (size_t)(hi - lo) * sizeof(str_item));
}

static void merge_level(void *ctx, int64_t task, int worker) {
  (void)worker;
  msort_job *j = (msort_job *)ctx;
  int64_t s = task * 2 * j->width, mid = ZB_MIN(s + j->width, j->n),
          e = ZB_MIN(s + 2 * j->width, j->n);
  merge_runs(j->c, j->a, j->b, s, mid, e);
}

zb_status zb__sort_rows_by_string(const zb_column *c, const int64_t *rows, int64_t *idx,
                                  int64_t n, zb_error *err) {
  if (n <= 1) return ZB_OK;
  str_item *a = (str_item *)zb_malloc((size_t)n * sizeof(str_item));
  str_item *b = (str_item *)zb_malloc((size_t)n * sizeof(str_item));
  if (a == NULL || b == NULL) {
    zb_free(a);
    zb_free(b);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (string sort of %lld rows)",
                        (long long)n);
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t len, row = rows ? rows[idx[i]] : idx[i];
    const char *p = zb__str(c, row, &len);
    a[i].prefix = str_prefix(p, len);
    a[i].idx = idx[i];
    a[i].row = row;
  }
  msort_job j = {c, a, b, n, 0, ZB_MORSEL_ROWS / 4};
  zb_status st = zb_parallel_for((n + j.chunk - 1) / j.chunk, chunk_sort, &j, err);
  for (int64_t w = j.chunk; st == ZB_OK && w < n; w *= 2) {
    j.width = w;
    st = zb_parallel_for((n + 2 * w - 1) / (2 * w), merge_level, &j, err);
    str_item *t = j.a;
    j.a = j.b;
    j.b = t;
  }
  if (st == ZB_OK)
    for (int64_t i = 0; i < n; i++) idx[i] = j.a[i].idx;
  zb_free(a);
  zb_free(b);
  return st;
}

/* ---- fixed-width keys: parallel stable LSD radix sort -------------------- */

typedef struct radix_job {
  uint64_t *key, *key2;
  int64_t *val, *val2;
  int64_t n, n_morsels;
  int shift;
  int64_t *hist; /* [n_morsels][256]: counts, then write positions */
} radix_job;

static void radix_hist(void *ctx, int64_t task, int worker) {
  (void)worker;
  radix_job *j = (radix_job *)ctx;
  int64_t lo = task * ZB_MORSEL_ROWS, hi = ZB_MIN(lo + ZB_MORSEL_ROWS, j->n);
  int64_t *h = j->hist + task * 256;
  memset(h, 0, 256 * sizeof(int64_t));
  for (int64_t i = lo; i < hi; i++) h[(j->key[i] >> j->shift) & 255]++;
}

static void radix_scatter(void *ctx, int64_t task, int worker) {
  (void)worker;
  radix_job *j = (radix_job *)ctx;
  int64_t lo = task * ZB_MORSEL_ROWS, hi = ZB_MIN(lo + ZB_MORSEL_ROWS, j->n);
  int64_t pos[256];
  memcpy(pos, j->hist + task * 256, sizeof pos);
  for (int64_t i = lo; i < hi; i++) {
    uint64_t k = j->key[i];
    int64_t p = pos[(k >> j->shift) & 255]++;
    j->key2[p] = k;
    j->val2[p] = j->val[i];
  }
}

/* Stable sort of (key[i], val[i]), i < n, by the low `bytes` bytes of key;
 * key2/val2 are scratch of n entries.  The result ends in key/val. */
static zb_status radix_sort(uint64_t *key, int64_t *val, uint64_t *key2, int64_t *val2,
                            int64_t n, int bytes, zb_error *err) {
  if (n <= 1) return ZB_OK;
  int64_t nm = zb__morsels(n);
  int64_t *hist = (int64_t *)zb_malloc((size_t)nm * 256 * sizeof(int64_t));
  if (hist == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (radix sort)");
  radix_job j = {key, key2, val, val2, n, nm, 0, hist};
  zb_status st = ZB_OK;
  for (int b = 0; b < bytes && st == ZB_OK; b++) {
    j.shift = 8 * b;
    st = zb_parallel_for(nm, radix_hist, &j, err);
    if (st != ZB_OK) break;
    /* Skip a byte all keys share; else exclusive scan, digit-major. */
    int64_t total[256] = {0};
    bool trivial = false;
    for (int64_t m = 0; m < nm; m++)
      for (int d = 0; d < 256; d++) total[d] += hist[m * 256 + d];
    for (int d = 0; d < 256; d++) trivial |= total[d] == n;
    if (trivial) continue;
    int64_t run = 0;
    for (int d = 0; d < 256; d++)
      for (int64_t m = 0; m < nm; m++) {
        int64_t c = hist[m * 256 + d];
        hist[m * 256 + d] = run;
        run += c;
      }
    st = zb_parallel_for(nm, radix_scatter, &j, err);
    uint64_t *tk = j.key;
    j.key = j.key2;
    j.key2 = tk;
    int64_t *tv = j.val;
    j.val = j.val2;
    j.val2 = tv;
  }
  if (st == ZB_OK && j.key != key) {
    memcpy(key, j.key, (size_t)n * sizeof(uint64_t));
    memcpy(val, j.val, (size_t)n * sizeof(int64_t));
  }
  zb_free(hist);
  return st;
}

/* ---- one key column ------------------------------------------------------ */

typedef struct key_job {
  const zb_column *c;
  const int64_t *perm;
  uint64_t *key;
  const int32_t *rank; /* categoricals */
  int64_t n;
  bool desc;
  uint64_t mask;
} key_job;

/* Order-preserving unsigned key of row i. */
static inline uint64_t row_key(const key_job *j, int64_t i) {
  const zb_column *c = j->c;
  const void *d = c->data->data;
  int64_t p = c->offset + i;
  switch (c->type) {
    case ZB_BOOL: return zb_bit_get((const uint8_t *)d, p);
    case ZB_INT8: return (uint8_t)(((const uint8_t *)d)[p] ^ 0x80u);
    case ZB_INT16: return (uint16_t)(((const uint16_t *)d)[p] ^ 0x8000u);
    case ZB_INT32: case ZB_DATE32: return ((const uint32_t *)d)[p] ^ 0x80000000u;
    case ZB_INT64: case ZB_TIMESTAMP: return ((const uint64_t *)d)[p] ^ (UINT64_C(1) << 63);
    case ZB_UINT8: return ((const uint8_t *)d)[p];
    case ZB_UINT16: return ((const uint16_t *)d)[p];
    case ZB_UINT32: return ((const uint32_t *)d)[p];
    case ZB_UINT64: return ((const uint64_t *)d)[p];
    case ZB_FLOAT32: {
      float f = ((const float *)d)[p];
      uint32_t b = 0;
      if (f != 0) memcpy(&b, &f, 4);
      return (b >> 31) ? (uint32_t)~b : (b | 0x80000000u);
    }
    case ZB_FLOAT64: {
      double f = ((const double *)d)[p];
      uint64_t b = 0;
      if (f != 0) memcpy(&b, &f, 8);
      return (b >> 63) ? ~b : (b | (UINT64_C(1) << 63));
    }
    case ZB_CATEGORICAL: return (uint32_t)j->rank[((const int32_t *)d)[p]];
    default: return 0;
  }
}

static void key_morsel(void *ctx, int64_t task, int worker) {
  (void)worker;
  key_job *j = (key_job *)ctx;
  int64_t lo = task * ZB_MORSEL_ROWS, hi = ZB_MIN(lo + ZB_MORSEL_ROWS, j->n);
  uint64_t flip = j->desc ? j->mask : 0;
  for (int64_t i = lo; i < hi; i++) j->key[i] = row_key(j, j->perm[i]) ^ flip;
}

static int key_bytes(zb_type_id t) {
  switch (t) {
    case ZB_BOOL: case ZB_INT8: case ZB_UINT8: return 1;
    case ZB_INT16: case ZB_UINT16: return 2;
    case ZB_INT32: case ZB_UINT32: case ZB_FLOAT32: case ZB_DATE32: case ZB_CATEGORICAL: return 4;
    default: return 8;
  }
}

/* Missing for ordering: null, or NaN. */
static inline bool is_missing(const zb_column *c, int64_t i) {
  if (!zb_column_is_valid(c, i)) return true;
  if (c->type == ZB_FLOAT64) return isnan(((const double *)c->data->data)[c->offset + i]);
  if (c->type == ZB_FLOAT32) return isnan(((const float *)c->data->data)[c->offset + i]);
  return false;
}

static void reverse(int64_t *a, int64_t n) {
  for (int64_t i = 0, k = n - 1; i < k; i++, k--) {
    int64_t t = a[i];
    a[i] = a[k];
    a[k] = t;
  }
}

/* Stable sort of perm[0, n) by column c.  scratch: 3 arrays of n. */
static zb_status sort_by_column(const zb_column *c, int64_t *perm, int64_t n, bool asc,
                                bool nulls_first, int64_t *tmp, uint64_t *key,
                                uint64_t *key2, zb_error *err) {
  /* Stable partition: missing rows to one end. */
  int64_t n_missing = 0;
  bool can_miss = c->validity != NULL || zb_type_is_float(c->type);
  if (can_miss) {
    for (int64_t i = 0; i < n; i++) n_missing += is_missing(c, perm[i]);
    if (n_missing > 0) {
      int64_t mpos = nulls_first ? 0 : n - n_missing, vpos = nulls_first ? n_missing : 0;
      for (int64_t i = 0; i < n; i++) {
        if (is_missing(c, perm[i]))
          tmp[mpos++] = perm[i];
        else
          tmp[vpos++] = perm[i];
      }
      memcpy(perm, tmp, (size_t)n * sizeof(int64_t));
    }
  }
  int64_t *seg = perm + (nulls_first ? n_missing : 0), len = n - n_missing;
  if (len <= 1) return ZB_OK;
  if (c->type == ZB_STRING) {
    if (!asc) reverse(seg, len);
    zb_status st = zb__sort_rows_by_string(c, NULL, seg, len, err);
    if (!asc) reverse(seg, len);
    return st;
  }
  int32_t *rank = NULL;
  zb_status st = ZB_OK;
  if (c->type == ZB_CATEGORICAL) {
    int64_t k = c->dictionary->length;
    int64_t *order = (int64_t *)zb_malloc((size_t)(k + 1) * sizeof(int64_t));
    rank = (int32_t *)zb_malloc((size_t)(k + 1) * sizeof(int32_t));
    if (order == NULL || rank == NULL) {
      zb_free(order);
      zb_free(rank);
      return zb_error_set(err, ZB_ENOMEM, "out of host memory (sorting categories)");
    }
    for (int64_t i = 0; i < k; i++) order[i] = i;
    st = zb__sort_rows_by_string(c->dictionary, NULL, order, k, err);
    for (int64_t i = 0; i < k; i++) rank[order[i]] = (int32_t)i;
    zb_free(order);
  }
  int bytes = key_bytes(c->type);
  key_job kj = {c, seg, key, rank, len, !asc,
                bytes == 8 ? ~UINT64_C(0) : (UINT64_C(1) << (8 * bytes)) - 1};
  if (st == ZB_OK) st = zb_parallel_for(zb__morsels(len), key_morsel, &kj, err);
  if (st == ZB_OK) st = radix_sort(key, seg, key2, tmp, len, bytes, err);
  zb_free(rank);
  return st;
}

zb_status zb__cpu_sort_indices(const zb_table *t, int64_t n_keys, const int64_t *keys,
                               const bool *ascending, bool nulls_first, zb_column **out,
                               zb_error *err) {
  *out = NULL;
  int64_t n = t->num_rows;
  zb_column *o = NULL;
  ZB_RETURN_NOT_OK(zb_column_new(ZB_INT64, n, false, 0, &o, err));
  int64_t *perm = (int64_t *)o->data->data;
  for (int64_t i = 0; i < n; i++) perm[i] = i;
  size_t m = (size_t)(n > 0 ? n : 1);
  int64_t *tmp = (int64_t *)zb_malloc(m * sizeof(int64_t));
  uint64_t *key = (uint64_t *)zb_malloc(m * sizeof(uint64_t));
  uint64_t *key2 = (uint64_t *)zb_malloc(m * sizeof(uint64_t));
  zb_status st = ZB_OK;
  if (tmp == NULL || key == NULL || key2 == NULL)
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (sorting %lld rows)", (long long)n);
  for (int64_t k = n_keys - 1; k >= 0 && st == ZB_OK && n > 1; k--)
    st = sort_by_column(t->columns[keys[k]], perm, n, ascending ? ascending[k] : true,
                        nulls_first, tmp, key, key2, err);
  zb_free(tmp);
  zb_free(key);
  zb_free(key2);
  if (st != ZB_OK) {
    zb_column_release(o);
    return st;
  }
  *out = o;
  return ZB_OK;
}
