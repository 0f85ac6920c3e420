/*
 * csv_bench.c -- throughput of the C CSV reader with 1..N threads, on a
 * generated numeric CSV (int64, float64, a short string; ~100 MB by
 * default) or on a given file.  Prints the best of --repeat runs per thread
 * count, MB/s, the CPU time and the engine's peak memory against the table
 * it built.  Not part of the build:
 *   cc -O2 -Iinclude bench/csv_bench.c -Lbuild-c -lzambezi -Wl,-rpath,build-c -o csv_bench
 *   ./csv_bench [MB | file.csv] [max_threads] [repeat]
 * Under `perf stat -e instructions:u` or `perf record` it profiles the
 * reader without Python around it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zambezi/io.h"

static double now(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Bytes held by the table's buffers. */
static int64_t table_bytes(const zb_table *t) {
  int64_t total = 0;
  for (int64_t j = 0; j < t->num_columns; j++) {
    const zb_column *c = t->columns[j];
    const zb_buffer *b[3] = {c->validity, c->data, c->chars};
    for (int i = 0; i < 3; i++) total += b[i] ? b[i]->size : 0;
    if (c->dictionary) total += c->dictionary->data->size + c->dictionary->chars->size;
  }
  return total;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 && atoll(argv[1]) == 0 ? argv[1] : NULL;
  int64_t mb = argc > 1 && path == NULL ? atoll(argv[1]) : 100;
  int max_threads = argc > 2 ? atoi(argv[2]) : 2;
  int repeat = argc > 3 ? atoi(argv[3]) : 3;
  char *buf = NULL;
  int64_t at = 0;
  if (path == NULL) {
    int64_t target = mb << 20;
    buf = (char *)malloc((size_t)target + 256);
    if (buf == NULL) return 1;
    at = sprintf(buf, "id,x,y,name\n");
    uint64_t r = 88172645463325252ull;
    for (int64_t rows = 0; at < target; rows++) {
      r ^= r << 13, r ^= r >> 7, r ^= r << 17;
      at += sprintf(buf + at, "%lld,%lld,%.6f,k%u\n", (long long)rows, (long long)(r % 1000000),
                    (double)(r % 100000000) / 1000.0, (unsigned)(r >> 40) % 1000);
    }
    printf("generated %.1f MB\n", (double)at / 1e6);
  } else {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
      perror(path);
      return 1;
    }
    fseek(f, 0, SEEK_END);
    at = ftell(f);
    fclose(f);
    printf("%s: %.1f MB (memory-mapped by zb_csv_read_file)\n", path, (double)at / 1e6);
  }
  zb_error err;
  for (int th = 1; th <= max_threads; th++) {
    zb_set_num_threads(th, &err);
    double best = 1e30, best_cpu = 1e30;
    int64_t peak = 0, size = 0, rows = 0;
    for (int rep = 0; rep < repeat; rep++) {
      zb_table *t = NULL;
      zb_alloc_stats before, after;
      zb_alloc_reset_peak();
      zb_alloc_get_stats(&before);
      double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
      zb_status st = path ? zb_csv_read_file(path, NULL, &t, &err)
                          : zb_csv_read_buffer(buf, at, NULL, &t, &err);
      double dt = now(CLOCK_MONOTONIC) - t0, dc = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
      if (st != ZB_OK) {
        fprintf(stderr, "read failed: %s\n", err.message);
        return 1;
      }
      zb_alloc_get_stats(&after);
      if (dt < best) best = dt;
      if (dc < best_cpu) best_cpu = dc;
      peak = after.host_peak_bytes - before.host_bytes;
      size = table_bytes(t);
      rows = t->num_rows;
      zb_table_release(t);
    }
    printf("threads %d: %.3f s (least cpu %.3f s), %.0f MB/s, %lld rows, peak engine memory %.0f MB "
           "for a %.0f MB table (%.2fx)\n",
           th, best, best_cpu, (double)at / 1e6 / best, (long long)rows, (double)peak / 1e6,
           (double)size / 1e6, (double)peak / (double)(size > 0 ? size : 1));
  }
  free(buf);
  return 0;
}
