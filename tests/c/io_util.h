/*
 * io_util.h -- what the C tests of the binary readers and writers share
 * (test_parquet.c, test_ipc.c, test_csv_write.c, test_json.c): write
 * functions that gather a writer's output, and the loops that read every truncated and
 * byte-damaged copy of a file, which must give a table or a clean error,
 * never a crash or a leak (run under ASan in CI).
 */
#ifndef ZB_TEST_IO_UTIL_H
#define ZB_TEST_IO_UTIL_H

#include <stdbool.h>

#include "zambezi/zambezi.h"

/* Output gathered by zb_test_mem_write (a writer's write function, ctx a
 * zb_test_mem_out starting zeroed); the test zb_frees p. */
typedef struct zb_test_mem_out {
  char *p;
  int64_t n, cap;
} zb_test_mem_out;

zb_status zb_test_mem_write(void *ctx, const char *data, int64_t size, zb_error *err);

/* Text gathered by zb_test_text_write with the C library's realloc (not
 * the engine's allocator, so tests that fail engine allocations do not
 * fail the sink's), NUL-terminated; ctx a zb_test_text starting zeroed;
 * the test free()s p. */
typedef struct zb_test_text {
  char *p;
  int64_t n, cap;
} zb_test_text;

zb_status zb_test_text_write(void *ctx, const char *data, int64_t size, zb_error *err);

/* A reader of a whole file in memory, with its default options; name is
 * the source's name for messages. */
typedef zb_status (*zb_test_read_fn)(const unsigned char *data, int64_t n, const char *name,
                                     zb_table **out, zb_error *err);

/* The damaged copies of a file to read, and what their reads must do. */
typedef struct zb_test_damage {
  zb_test_read_fn read;
  const char *name;   /* passed to read: a parse error's message must hold it */
  int64_t cut_step;   /* truncated at 0, cut_step, 2 cut_step ... bytes; 0: not truncated */
  const char *tail;   /* put back at the end of a truncated copy ("PAR1"), or NULL */
  bool cuts_fail;     /* every truncated copy must be an error */
  const unsigned char *xors; /* each byte in turn XORed with each of these */
  int num_xors;
  const unsigned char *sets; /* each byte in turn set to each of these (if it differs) */
  int num_sets;
} zb_test_damage;

/* Read every copy of file[0, n) that d describes.  Each read gives a table
 * or no table and ZB_EPARSE, ZB_ENOTSUP or ZB_ENOMEM, and leaks nothing;
 * a failed check names the damage and its offset.  Returns how many of
 * the reads failed. */
int64_t zb_test_read_damaged(const unsigned char *file, int64_t n, const zb_test_damage *d);

#endif /* ZB_TEST_IO_UTIL_H */
