/*
 * test.h -- a tiny self-registering test harness for the C unit tests.
 *
 *   ZB_TEST(name) { ... ZB_CHECK(cond); ZB_CHECK_EQ_INT(a, b); ... }
 *
 * Every test file defines tests with ZB_TEST; test_main.c runs them all (or
 * those whose name contains argv[1]) and prints "N passed, N failed".  After
 * each test the harness checks that no engine memory is still allocated.
 */
#ifndef ZB_TEST_H
#define ZB_TEST_H

#include <stdio.h>

#include "zambezi/zambezi.h"

typedef void (*zb_test_fn)(void);
void zb_test_register(const char *name, zb_test_fn fn);
void zb_test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

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

/* Check a status is ZB_OK, printing the error message otherwise. */
#define ZB_CHECK_OK(expr, errp)                                                 \
  do {                                                                          \
    zb_status zb__s = (expr);                                                   \
    if (zb__s != ZB_OK)                                                         \
      zb_test_fail(__FILE__, __LINE__, "%s -> %s: %s", #expr, zb_status_name(zb__s), \
                   (errp)->message);                                            \
  } while (0)

#endif
