/*
 * hash.h -- row hashing and an open-addressing hash table over rows of host
 * columns, shared by the hash-based operations (src/cpu/hash.c: unique,
 * value_counts, nunique, duplicated, isin) and, later, group-by and joins;
 * plus the CPU entry points of the statistics (src/cpu/reduce_stats.c).
 *
 * A zb__keys is a set of key columns prepared for hashing: for every
 * fixed-width column a "normalized" 64-bit value per row (integers by
 * value, floats with -0.0 -> 0.0 and every NaN one bit pattern, categorical
 * codes mapped to the first code with the same category string), and one
 * combined hash per row.  Two rows are equal when every key column has both
 * null, or both valid with equal normalized values (strings: equal bytes).
 * Keys of two different zb__keys may be compared when their columns have
 * pairwise equal types (categoricals: the same dictionary).
 *
 * The hash table maps rows to dense group ids 0, 1, 2 ... in the order the
 * groups were first inserted, remembering each group's first row.
 */
#ifndef ZAMBEZI_CPU_HASH_H
#define ZAMBEZI_CPU_HASH_H

#include "cpu/kernels.h"

/* The hash of a null value (any column type). */
#define ZB_HASH_NULL UINT64_C(0x5bd1e9955bd1e995)

typedef struct zb__keycol {
  const zb_column *col; /* host column, borrowed */
  uint64_t *norm;       /* fixed width: normalized value per row; NULL: strings */
  bool own_norm;        /* norm was allocated (else it is the column's own
                           64-bit integer values, already normal) */
} zb__keycol;

typedef struct zb__keys {
  int64_t n_rows;
  int64_t n_cols;
  zb__keycol *cols; /* owned */
  uint64_t *hash;   /* combined hash per row (owned) */
} zb__keys;

/* Prepare n_cols host columns of n_rows rows each (borrowed; they must
 * outlive k) in parallel morsels.  On failure k holds nothing. */
zb_status zb__keys_init(zb__keys *k, const zb_column *const *cols, int64_t n_cols,
                        zb_error *err);
void zb__keys_reset(zb__keys *k);

/* Row ra of a equals row rb of b (see above). */
static inline bool zb__keys_equal(const zb__keys *a, int64_t ra, const zb__keys *b,
                                  int64_t rb) {
  for (int64_t c = 0; c < a->n_cols; c++) {
    const zb_column *ca = a->cols[c].col, *cb = b->cols[c].col;
    bool va = zb_column_is_valid(ca, ra), vb = zb_column_is_valid(cb, rb);
    if (va != vb) return false;
    if (!va) continue;
    if (a->cols[c].norm != NULL) {
      if (a->cols[c].norm[ra] != b->cols[c].norm[rb]) return false;
    } else {
      int64_t la, lb;
      const char *pa = zb__str(ca, ra, &la);
      const char *pb = zb__str(cb, rb, &lb);
      if (la != lb || (la > 0 && memcmp(pa, pb, (size_t)la) != 0)) return false;
    }
  }
  return true;
}

/* 64-bit hash of len bytes (the string hash). */
uint64_t zb__hash_bytes(const void *p, int64_t len);

typedef struct zb__hash_table {
  int64_t capacity;   /* slots, a power of two */
  int64_t n_groups;
  int64_t *slots;     /* per slot: group id (-1 when empty) and the group's hash */
  uint64_t *hashes;   /* hash of each group (by group id) */
  int64_t *first;     /* first row of each group (by group id) */
  int64_t group_cap;  /* room in hashes / first */
} zb__hash_table;

/* An empty table sized for about `expected` groups (it grows as needed). */
zb_status zb__ht_init(zb__hash_table *ht, int64_t expected, zb_error *err);
void zb__ht_reset(zb__hash_table *ht);
/* Make room for about `expected` groups without growing again. */
zb_status zb__ht_reserve(zb__hash_table *ht, int64_t expected, zb_error *err);

/* The group of row r of k, inserted as a new group (first row r) if no
 * equal row is in the table yet.  Every row inserted into one table must
 * come from the same k. */
zb_status zb__ht_insert(zb__hash_table *ht, const zb__keys *k, int64_t r, int64_t *group,
                        zb_error *err);

/* The group of row r of probe keys pk equal to a row of build keys k (the
 * keys the table was built from), or -1.  Read-only: safe from several
 * threads at once. */
int64_t zb__ht_find(const zb__hash_table *ht, const zb__keys *k, const zb__keys *pk,
                    int64_t r);

/* Group every row of k in row order: group_of_row[i] (may be NULL) gets the
 * group of row i; ht receives the groups (first rows in ht->first, in order
 * of first appearance).  ht must be freshly initialised. */
zb_status zb__keys_group(const zb__keys *k, zb__hash_table *ht, int64_t *group_of_row,
                         zb_error *err);

/* ---- CPU entry points ----------------------------------------------------- */

/* src/cpu/reduce_stats.c */
zb_status zb__cpu_stat(const zb_column *col, zb_stat_op op, int64_t ddof, zb_scalar *out,
                       zb_error *err);
zb_status zb__cpu_quantile(const zb_column *col, int64_t n_q, const double *q, zb_scalar *out,
                           zb_error *err);
/* src/cpu/corr.c (zb_table_corr; checked by the core) */
zb_status zb__cpu_corr_matrix(const zb_table *t, int64_t min_periods, int64_t ddof, bool cov,
                              double *out, zb_error *err);

/* src/cpu/hash.c */
zb_status zb__cpu_hash_rows(const zb_table *t, int64_t n_keys, const int64_t *keys,
                            zb_column **out, zb_error *err);
zb_status zb__cpu_unique(const zb_column *col, zb_column **out, zb_error *err);
zb_status zb__cpu_nunique(const zb_column *col, bool dropna, int64_t *out, zb_error *err);
zb_status zb__cpu_value_counts(const zb_column *col, bool sort, bool ascending, bool dropna,
                               bool normalize, zb_column **values, zb_column **counts,
                               zb_error *err);
zb_status zb__cpu_duplicated(const zb_table *t, int64_t n_keys, const int64_t *keys,
                             zb_keep keep, zb_column **out, zb_error *err);
zb_status zb__cpu_isin(const zb_column *col, const zb_column *values, zb_column **out,
                       zb_error *err);

#endif /* ZAMBEZI_CPU_HASH_H */
