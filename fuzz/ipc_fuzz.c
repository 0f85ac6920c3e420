/*
 * ipc_fuzz.c -- libFuzzer target for the Arrow IPC (Feather) reader.  The input is
 * the whole file; every input must come back with a status -- a table or
 * an error -- and leave no engine memory allocated.  Build: cmake
 * -DZAMBEZI_FUZZ=ON (clang), run ./ipc_fuzz fuzz/corpus/ipc.
 */
#include "harness.h"
#include "zambezi/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  zb_alloc_stats before;
  zb_fuzz_memory_begin(&before);
  zb_table *t = NULL;
  zb_error err;
  zb_status st = zb_ipc_read_buffer(data, (int64_t)size, "fuzz", NULL, &t, &err);
  zb_fuzz_check_result(st, t);
  zb_table_release(t);
  zb_fuzz_memory_check(&before);
  return 0;
}
