/*
 * test.h -- a tiny self-registering test harness for the C unit tests.
 *
 *   ZB_TEST(name) { ... ZB_CHECK(cond); ZB_CHECK_EQ_INT(a, b); ... }
 *
 * Every test file defines tests with ZB_TEST; test_main.c runs them all (or
 * those whose name contains argv[1]) and prints "N passed, N failed,
 * N skipped".  After each test the harness checks that no engine memory is
 * still allocated.  A test that cannot run here (no GPU, no libzstd) says so
 * with ZB_SKIP or ZB_REQUIRE_GPU and is counted as skipped, not as passed.
 */
#ifndef ZB_TEST_H
#define ZB_TEST_H

#include <stdio.h>

#include "zambezi/zambezi.h"

typedef void (*zb_test_fn)(void);
void zb_test_register(const char *name, zb_test_fn fn);
void zb_test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Marks the running test skipped, for the reason given (a string that
 * outlives the test).  A test that also failed a check counts as failed. */
void zb_test_skip(const char *reason);

#define ZB_TEST(name)                                                           \
  static void name(void);                                                       \
  __attribute__((constructor)) static void name##_register(void) {              \
    zb_test_register(#name, name);                                              \
  }                                                                             \
  static void name(void)

#define ZB_CHECK(cond)                                                          \
  do {                                                                          \
    if (!(cond)) zb_test_fail(__FILE__, __LINE__, "check failed: %s", #cond);   \
  } while (0)

#define ZB_CHECK_EQ_INT(a, b)                                                   \
  do {                                                                          \
    long long zb__a = (long long)(a), zb__b = (long long)(b);                   \
    if (zb__a != zb__b)                                                         \
      zb_test_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, zb__a, zb__b); \
  } while (0)

/* Skip the rest of the running test: counted and reported as skipped. */
#define ZB_SKIP(reason)                                                         \
  do {                                                                          \
    zb_test_skip(reason);                                                       \
    return;                                                                     \
  } while (0)

/* Skip the running test unless the engine sees a usable CUDA device. */
#define ZB_REQUIRE_GPU()                                                        \
  do {                                                                          \
    if (zb_cuda_device_count() == 0) ZB_SKIP(zb_cuda_unavailable_reason());     \
  } while (0)

/* Check a status is ZB_OK, printing the error message otherwise. */
#define ZB_CHECK_OK(expr, errp)                                                 \
  do {                                                                          \
    zb_status zb__s = (expr);                                                   \
    if (zb__s != ZB_OK)                                                         \
      zb_test_fail(__FILE__, __LINE__, "%s -> %s: %s", #expr, zb_status_name(zb__s), \
                   (errp)->message);                                            \
  } while (0)

#endif
