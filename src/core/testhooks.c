/*
 * testhooks.c -- process-wide settings that only tests change, so that
 * rarely taken paths run on small inputs: zb_test_string_keys narrows the
 * string key hashes (every string hash then collides with many others) and
 * caps the dense string codes (so the partitioned fallback runs).  The
 * engine reads them with relaxed loads in the hash functions; with the
 * defaults they cost one predictable branch.
 */
#include "core/internal.h"

int zb__test_hash_bits = 64;
int64_t zb__test_max_codes = 0;

void zb_test_string_keys(int hash_bits, int64_t max_codes) {
  if (hash_bits < 0 || hash_bits > 64) hash_bits = 64;
  if (max_codes < 0) max_codes = 0;
  __atomic_store_n(&zb__test_hash_bits, hash_bits, __ATOMIC_RELAXED);
  __atomic_store_n(&zb__test_max_codes, max_codes, __ATOMIC_RELAXED);
}
