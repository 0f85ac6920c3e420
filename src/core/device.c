/*
 * device.c -- the device registry: which backends exist, which devices they
 * see, and what each device is.  The CPU is always there; CUDA devices are
 * discovered at run time by the CUDA backend when it is compiled in.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "core/internal.h"
#include "cpu/kernels.h"
#include "cpu/strings_kernels.h"
#include "cpu/hash.h"
#include "cpu/groupby.h"
#include "cpu/join.h"

static int cpu_device_count(void) { return 1; }

static void cpu_model_name(char *out, size_t size) {
  snprintf(out, size, "CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f == NULL) return;
  char line[512];
  while (fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, "model name", 10) == 0) {
      const char *p = strchr(line, ':');
      if (p != NULL) {
        p++;
        while (*p == ' ' || *p == '\t') p++;
        snprintf(out, size, "%s", p);
        out[strcspn(out, "\n")] = '\0';
      }
      break;
    }
  }
  fclose(f);
}

static zb_status cpu_device_info(int device_id, zb_device_info *out, zb_error *err) {
  if (device_id != 0) return zb_error_set(err, ZB_ENODEVICE, "there is one CPU device, cpu:0");
  memset(out, 0, sizeof *out);
  out->device = ZB_CPU;
  cpu_model_name(out->name, sizeof out->name);
  struct sysinfo si;
  if (sysinfo(&si) == 0) {
    out->total_memory = (int64_t)si.totalram * si.mem_unit;
    out->free_memory = (int64_t)(si.freeram + si.bufferram) * si.mem_unit;
  }
  out->cores = zb_available_cores();
  return ZB_OK;
}

static const zb_backend k_cpu_backend = {
    .name = "cpu",
    .kind = ZB_DEVICE_CPU,
    .device_count = cpu_device_count,
    .device_info = cpu_device_info,
    /* Host memory is handled by the core directly (zb_malloc, memcpy). */
    .reduce = zb__cpu_reduce,
    .binary = zb__cpu_binary,
    .unary = zb__cpu_unary,
    .cast = zb__cpu_cast,
    .is_null = zb__cpu_is_null,
    .fill_null = zb__cpu_fill_null,
    .filter = zb__cpu_filter,
    .take = zb__cpu_take,
    .sort_indices = zb__cpu_sort_indices,
    .str = zb__cpu_str,
    .str_cat = zb__cpu_str_cat,
    .dt_field = zb__cpu_dt_field,
    .clip = zb__cpu_clip,
    .round = zb__cpu_round,
    .where = zb__cpu_where,
    .stat = zb__cpu_stat,
    .quantile = zb__cpu_quantile,
    .hash_rows = zb__cpu_hash_rows,
    .unique = zb__cpu_unique,
    .nunique = zb__cpu_nunique,
    .value_counts = zb__cpu_value_counts,
    .duplicated = zb__cpu_duplicated,
    .isin = zb__cpu_isin,
    .join_indices = zb__cpu_join_indices,
    .groupby = zb__cpu_groupby,
    .group_ids = zb__cpu_group_ids,
    .group_cumcount = zb__cpu_group_cumcount,
};

const zb_backend *zb__cpu_backend(void) { return &k_cpu_backend; }

const zb_backend *zb__backend_for(zb_device_kind kind) {
  switch (kind) {
    case ZB_DEVICE_CPU:
      return &k_cpu_backend;
    case ZB_DEVICE_CUDA:
#ifdef ZB_HAVE_CUDA
      return zb__cuda_backend();
#else
      return NULL;
#endif
  }
  return NULL;
}

zb_status zb_device_get_info(zb_device device, zb_device_info *out, zb_error *err) {
  const zb_backend *be = zb__backend_for(device.kind);
  if (be == NULL)
    return zb_error_set(err, ZB_ENODEVICE, "no backend for this device in this build");
  if (device.id < 0 || device.id >= be->device_count())
    return zb_error_set(err, ZB_ENODEVICE, "device %s:%d is not available", be->name,
                        device.id);
  return be->device_info(device.id, out, err);
}

#ifndef ZB_HAVE_CUDA
int zb_cuda_device_count(void) { return 0; }
const char *zb_cuda_unavailable_reason(void) {
  return "this build of zambezi has no CUDA backend (built without nvcc or with ZAMBEZI_CUDA=OFF)";
}
bool zb_cuda_compiled(void) { return false; }
const char *zb_cuda_architectures(void) { return ""; }
#endif
