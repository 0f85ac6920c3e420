/*
 * strcodes.h -- dense int32 codes for a plain string column, computed in
 * parallel (src/cpu/strcodes.c), so that string keys can take the paths
 * categorical codes take: direct-indexed group-by, unique, nunique,
 * value_counts, and the string -> categorical cast; and isin, through the
 * same packed keys.
 */
#ifndef ZAMBEZI_CPU_STRCODES_H
#define ZAMBEZI_CPU_STRCODES_H

#include "cpu/kernels.h"

/* Distinct strings a caller should let zb__string_codes find before it
 * falls back to hashing rows (each worker keeps a private table of them). */
#define ZB_STRING_CODES_MAX_GROUPS ((int64_t)1 << 18)

/* Codes of the rows of host string column c: code[r] (caller's buffer of
 * c->length) gets the code of row r's string in [0, *n_groups), -1 for a
 * null row.  Codes follow the first appearance of each string, or the
 * strings' byte order when sorted.  *first (owned by the caller on
 * success, *n_groups entries) gets each code's first row.  When some
 * worker met more than max_groups distinct strings the work stops: *fits
 * is false, ZB_OK, and nothing is allocated (code's contents undefined). */
zb_status zb__string_codes(const zb_column *c, bool sorted, int64_t max_groups, int32_t *code,
                           int64_t **first, int64_t *n_groups, bool *fits, zb_error *err);

/* The same as a new ZB_INT32 column with c's nulls (*out NULL when the
 * strings do not fit in max_groups); first may be NULL. */
zb_status zb__string_codes_column(const zb_column *c, bool sorted, int64_t max_groups,
                                  zb_column **out, int64_t **first, int64_t *n_groups,
                                  zb_error *err);

/* Group the rows of host string column c for any number of distinct
 * strings (radix-partitioned tables): gid[r] (caller's buffer of
 * c->length) gets row r's group, groups numbered by first appearance, the
 * null rows one group (or -1 with dropna); *first (owned by the caller on
 * success, *n_groups entries) gets each group's first row. */
zb_status zb__string_group_rows(const zb_column *c, bool dropna, int64_t *gid, int64_t **first,
                                int64_t *n_groups, zb_error *err);

/* *distinct: every string of host string column c (no nulls) differs from
 * the others.  Computed once and kept in c->distinct (defined in hash.c,
 * where the categorical group-by asks it of its dictionary). */
zb_status zb__strings_distinct(zb_column *c, bool *distinct, zb_error *err);

/* isin of host string column c in the strings of v: bit r of bits (c's
 * length, zeroed or not) set when row r's string is one of v's; null rows
 * and v's nulls match nothing. */
zb_status zb__string_isin(const zb_column *c, const zb_column *v, uint8_t *bits, zb_error *err);

#endif /* ZAMBEZI_CPU_STRCODES_H */
