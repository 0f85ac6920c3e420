/*
 * device.c -- the device registry: which backends exist, which devices they
 * see, and what each device is.  The CPU is always there; CUDA devices are
 * discovered at run time by the CUDA backend when it is compiled in.
 */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

const zb_backend *zb__backend_for(zb_device_kind kind) {
  switch (kind) {
    case ZB_DEVICE_CPU:
      return zb__cpu_backend();
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
  if (!be->device_usable(device.id)) {
    if (device.kind == ZB_DEVICE_CUDA)
      return zb_error_set(err, ZB_ENODEVICE, "device cuda:%d is not available: %s", device.id,
                          zb_cuda_device_left_out_reason(device.id));
    return zb_error_set(err, ZB_ENODEVICE, "device %s:%d is not available", be->name,
                        device.id);
  }
  return be->device_info(device.id, out, err);
}

#ifndef ZB_HAVE_CUDA
int zb_cuda_device_count(void) { return 0; }
int zb_cuda_device_total(void) { return 0; }
bool zb_cuda_device_usable(int ordinal) { return false; }
const char *zb_cuda_device_left_out_reason(int ordinal) { return zb_cuda_unavailable_reason(); }
int zb_cuda_default_device(void) { return -1; }
const char *zb_cuda_unavailable_reason(void) {
  return "this build of zambezi has no CUDA backend (built without nvcc or with ZAMBEZI_CUDA=OFF)";
}
bool zb_cuda_compiled(void) { return false; }
const char *zb_cuda_architectures(void) { return ""; }
#endif
