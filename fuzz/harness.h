/*
 * harness.h -- what the libFuzzer targets (fuzz/*_fuzz.c) share: the
 * checks every reader's result must pass (a table or an error, never
 * both, never neither; no engine memory left allocated) and the
 * comparison of two reads of the same input (a chunked, threaded read
 * against one in a single chunk on one thread).  Each check abort()s on
 * failure, which libFuzzer reports with the input.  Compiled into every
 * target (CMakeLists.txt).
 */
#ifndef ZAMBEZI_FUZZ_HARNESS_H
#define ZAMBEZI_FUZZ_HARNESS_H

#include <stdint.h>

#include "zambezi/zambezi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Sets the engine's memory limit (1 GiB) before the first input. */
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A read's outcome: st OK and a table, or a valid error status and none. */
void zb_fuzz_check_result(zb_status st, const zb_table *t);

/* Touch every byte of every string column of t, so ASan sees a bad
 * offset, and check the columns' lengths against the table's rows. */
void zb_fuzz_touch_table(const zb_table *t);

/* The engine's host memory, taken before a run and checked after it:
 * the bytes and the number of live allocations are as they were. */
void zb_fuzz_memory_begin(zb_alloc_stats *before);
void zb_fuzz_memory_check(const zb_alloc_stats *before);

/* Whether two tables hold the same names, types, nulls and values. */
int zb_fuzz_same_tables(const zb_table *a, const zb_table *b);

/* One read of the input with the options in ctx. */
typedef zb_status (*zb_fuzz_read_fn)(void *ctx, zb_table **out, zb_error *err);

/* Read the same input twice: once by `one` on one thread, once by `many`
 * on `threads` threads (left set so).  The statuses must agree, and then
 * the tables, or else the error messages. */
void zb_fuzz_same_reads(zb_fuzz_read_fn one, void *one_ctx, zb_fuzz_read_fn many,
                        void *many_ctx, int threads);

#endif /* ZAMBEZI_FUZZ_HARNESS_H */
