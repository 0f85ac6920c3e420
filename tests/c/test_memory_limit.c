/*
 * test_memory_limit.c -- the host memory limit (zambezi.h): an operation
 * whose allocations pass it fails with ZB_ENOMEM, frees what it made, and
 * leaves the refusal (bytes asked, in use, allowed) for the message; a
 * smaller one right after succeeds; sizes parse as documented.
 */
#include <string.h>

#include "test.h"
#include "zambezi/compute.h"

static zb_column *iota(int64_t n) {
  zb_error err = {{0}};
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, n, false, 0, &c, &err), &err);
  for (int64_t i = 0; i < n; i++) ((int64_t *)c->data->data)[i] = (i * 7919) % n;
  return c;
}

ZB_TEST(test_memory_limit_refuses_and_recovers) {
  int64_t saved = zb_get_memory_limit();
  zb_column *big = iota(1 << 20), *small = iota(1000);
  zb_alloc_stats before, after;
  zb_alloc_refusal r;
  (void)zb_alloc_take_refusal(&r);
  zb_alloc_get_stats(&before);
  zb_error err = {{0}};
  /* room for the inputs and a little more: sorting 8 MiB cannot fit */
  ZB_CHECK_OK(zb_set_memory_limit(before.host_bytes + (1 << 20), &err), &err);
  zb_column *out = NULL;
  zb_status st = zb_column_sort_indices(big, true, false, &out, &err);
  ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
  ZB_CHECK(out == NULL);
  ZB_CHECK(zb_alloc_take_refusal(&r));
  ZB_CHECK(r.asked > 0 && r.limit == before.host_bytes + (1 << 20));
  ZB_CHECK(r.in_use + r.asked > r.limit);
  ZB_CHECK(!zb_alloc_take_refusal(&r)); /* taken once */
  zb_alloc_get_stats(&after);
  ZB_CHECK(after.host_bytes == before.host_bytes);
  ZB_CHECK(after.host_allocations == before.host_allocations);
  /* a smaller operation right after fits */
  ZB_CHECK_OK(zb_column_sort_indices(small, true, false, &out, &err), &err);
  zb_column_release(out);
  ZB_CHECK_OK(zb_set_memory_limit(saved, &err), &err);
  ZB_CHECK_OK(zb_column_sort_indices(big, true, false, &out, &err), &err);
  zb_column_release(out);
  ZB_CHECK_EQ_INT(zb_set_memory_limit(-1, &err), ZB_EINVAL);
  zb_column_release(big);
  zb_column_release(small);
}

ZB_TEST(test_memory_sizes_parse) {
  zb_error err = {{0}};
  int64_t v = -1;
  ZB_CHECK_OK(zb_parse_memory_size("1000000", &v, &err), &err);
  ZB_CHECK(v == 1000000);
  ZB_CHECK_OK(zb_parse_memory_size("512MB", &v, &err), &err);
  ZB_CHECK(v == (int64_t)512 << 20);
  ZB_CHECK_OK(zb_parse_memory_size(" 8g ", &v, &err), &err);
  ZB_CHECK(v == (int64_t)8 << 30);
  ZB_CHECK_OK(zb_parse_memory_size("1.5TiB", &v, &err), &err);
  ZB_CHECK(v == (int64_t)3 << 39);
  ZB_CHECK_OK(zb_parse_memory_size("none", &v, &err), &err);
  ZB_CHECK(v == 0);
  ZB_CHECK_OK(zb_parse_memory_size("50%", &v, &err), &err);
  ZB_CHECK(v > 0 && v <= zb_memory_total() / 2 + 1 && v >= zb_memory_total() / 2 - 1);
  ZB_CHECK(zb_memory_total() > 0);
  const char *bad[] = {"", "lots", "12XB", "-5", "150%", "8G extra"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ZB_CHECK_EQ_INT(zb_parse_memory_size(bad[i], &v, &err), ZB_EINVAL);
    ZB_CHECK(strstr(err.message, "memory size") != NULL);
  }
  ZB_CHECK(zb_get_memory_limit() >= 0);
}
