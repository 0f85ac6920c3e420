/*
 * ipc_fuzz.c -- libFuzzer target for the Arrow IPC (Feather) reader.  The input is
 * the whole file; every input must come back with a status -- a table or
 * an error -- and leave no engine memory allocated.  Build: cmake
 * -DZAMBEZI_FUZZ=ON (clang), run ./ipc_fuzz fuzz/corpus/ipc.
 */
#include <stdint.h>
#include <stdlib.h>

#include "zambezi/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  zb_alloc_stats before, after;
  zb_alloc_get_stats(&before);
  zb_table *t = NULL;
  zb_error err;
  zb_status st = zb_ipc_read_buffer(data, (int64_t)size, "fuzz", NULL, &t, &err);
  if ((st == ZB_OK) != (t != NULL)) abort();
  zb_table_release(t);
  zb_alloc_get_stats(&after);
  if (after.host_bytes != before.host_bytes) abort();
  return 0;
}
