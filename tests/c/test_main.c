/*
 * test_main.c -- runs every registered C unit test, checks after each that
 * the counting allocator is back to zero, and prints "N passed, N failed,
 * N skipped".  A test that called zb_test_skip (and failed no check) is
 * skipped: listed with its reason, counted neither as passed nor failed.
 * A test that took a second or more says how long, and each line goes out
 * as it is written (CI reads the log through a pipe).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test.h"

#define MAX_TESTS 1024

static struct {
  const char *name;
  zb_test_fn fn;
} g_tests[MAX_TESTS];
static int g_ntests;
static int g_current_failed;
static const char *g_current_skip; /* the reason, when the test skipped */

void zb_test_register(const char *name, zb_test_fn fn) {
  if (g_ntests < MAX_TESTS) {
    g_tests[g_ntests].name = name;
    g_tests[g_ntests].fn = fn;
    g_ntests++;
  }
}

void zb_test_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "  %s:%d: ", file, line);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  g_current_failed = 1;
}

void zb_test_skip(const char *reason) {
  g_current_skip = reason != NULL && reason[0] != '\0' ? reason : "skipped";
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  int passed = 0, failed = 0, skipped = 0;
  setvbuf(stdout, NULL, _IOLBF, 0);
  for (int i = 0; i < g_ntests; i++) {
    if (argc > 1 && strstr(g_tests[i].name, argv[1]) == NULL) continue;
    g_current_failed = 0;
    g_current_skip = NULL;
    zb_alloc_fail_after(0);
    zb_alloc_stats before;
    zb_alloc_get_stats(&before);
    double t0 = now_s();
    g_tests[i].fn();
    double took = now_s() - t0;
    zb_alloc_fail_after(0);
    zb_alloc_stats st;
    zb_alloc_get_stats(&st);
    if (st.host_bytes != before.host_bytes || st.host_allocations != before.host_allocations ||
        st.device_bytes != before.device_bytes) {
      fprintf(stderr, "  leak in %s: %lld bytes in %lld host allocations, %lld device bytes\n",
              g_tests[i].name, (long long)(st.host_bytes - before.host_bytes),
              (long long)(st.host_allocations - before.host_allocations),
              (long long)(st.device_bytes - before.device_bytes));
      g_current_failed = 1;
    }
    if (g_current_failed) {
      failed++;
      fprintf(stderr, "FAIL %s\n", g_tests[i].name);
    } else if (g_current_skip != NULL) {
      skipped++;
      printf("skip %s: %s\n", g_tests[i].name, g_current_skip);
    } else {
      passed++;
      if (took >= 1.0)
        printf("ok   %s (%.1f s)\n", g_tests[i].name, took);
      else
        printf("ok   %s\n", g_tests[i].name);
    }
  }
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed == 0 && passed > 0 ? 0 : 1;
}
