/*
 * csv_bench.c -- throughput of the C CSV reader on a generated numeric CSV
 * (int64, float64, a short string; ~100 MB by default) with 1..N threads.
 * Prints MB/s per thread count.  Not part of the build:
 *   cc -O2 -Iinclude bench/csv_bench.c -Lbuild-c -lzambezi -Wl,-rpath,build-c -o csv_bench
 *   ./csv_bench [MB] [max_threads]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zambezi/io.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  int64_t mb = argc > 1 ? atoll(argv[1]) : 100;
  int max_threads = argc > 2 ? atoi(argv[2]) : 2;
  int64_t target = mb << 20;
  char *buf = (char *)malloc((size_t)target + 256);
  if (buf == NULL) return 1;
  int64_t at = sprintf(buf, "id,x,y,name\n"), rows = 0;
  uint64_t r = 88172645463325252ull;
  while (at < target) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    at += sprintf(buf + at, "%lld,%lld,%.6f,k%u\n", (long long)rows, (long long)(r % 1000000),
                  (double)(r % 100000000) / 1000.0, (unsigned)(r >> 40) % 1000);
    rows++;
  }
  printf("%.1f MB, %lld rows\n", (double)at / 1e6, (long long)rows);
  zb_error err;
  for (int th = 1; th <= max_threads; th++) {
    zb_set_num_threads(th, &err);
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
      zb_table *t = NULL;
      zb_alloc_reset_peak();
      double t0 = now();
      zb_status st = zb_csv_read_buffer(buf, at, NULL, &t, &err);
      double dt = now() - t0;
      if (st != ZB_OK) {
        fprintf(stderr, "read failed: %s\n", err.message);
        return 1;
      }
      if (t->num_rows != rows) return 1;
      zb_table_release(t);
      if (dt < best) best = dt;
    }
    zb_alloc_stats st;
    zb_alloc_get_stats(&st);
    printf("threads %d: %.3f s, %.0f MB/s, peak engine memory %.0f MB\n", th, best,
           (double)at / 1e6 / best, (double)st.host_peak_bytes / 1e6);
  }
  free(buf);
  return 0;
}
