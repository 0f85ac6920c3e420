/*
 * backend.cu -- the CUDA backend table: device discovery, device
 * information, raw device memory and copies, and the public functions that
 * say whether CUDA is usable (zb_cuda_device_count and friends).
 *
 * cudart is linked statically, so this file is loaded on machines with no
 * NVIDIA driver and no GPU.  Discovery runs once (pthread_once) and never
 * fails: a missing driver, a driver older than the runtime, no device, or
 * only devices older than the architectures this build carries all give
 * zero usable devices plus a reason in words.  Every CUDA call is checked;
 * errors become ZB_EDEVICE (out of memory: ZB_ENOMEM) with a message naming
 * the call.  Nothing here aborts or prints.
 *
 * Memory is plain cudaMalloc (never managed memory).  Counting and fault
 * injection happen in src/core around the alloc/free entries.  Copies use
 * cudaMemcpy on the legacy default stream and then wait for it, so a buffer
 * handed to another library (CuPy, PyTorch, any stream) is complete.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_internal.h"

#ifndef ZB_CUDA_ARCHS
#define ZB_CUDA_ARCHS "unknown"
#endif

/* At most this many devices are used (more are ignored). */
#define ZB_CUDA_MAX_DEVICES 64

static pthread_once_t zb_cuda_once = PTHREAD_ONCE_INIT;
static int zb_cuda_count;           /* usable devices: ordinals [0, count) */
static int zb_cuda_sms[ZB_CUDA_MAX_DEVICES];
static char zb_cuda_reason[512];

/* The smallest architecture number in ZB_CUDA_ARCHS ("80-real;90" -> 80);
 * 0 if none can be read. */
static int zb_cuda_min_arch(void) {
  const char *s = ZB_CUDA_ARCHS;
  int best = 0;
  while (*s) {
    while (*s && (*s < '0' || *s > '9')) s++;
    if (!*s) break;
    int v = 0;
    while (*s >= '0' && *s <= '9') {
      if (v < 100000) v = v * 10 + (*s - '0');
      s++;
    }
    if (best == 0 || v < best) best = v;
    /* skip a suffix such as "-real" up to the next list element */
    while (*s && *s != ';' && *s != ',' && *s != ' ') s++;
  }
  return best;
}

static void zb_cuda_version_words(int v, char *buf, size_t n) {
  snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
}

static void zb_cuda_probe(void) {
  int driver = 0, runtime = 0, n = 0;
  char dv[32], rv[32];
  zb_cuda_count = 0;
  zb_cuda_reason[0] = '\0';
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = 0;
  (void)cudaGetLastError();
  zb_cuda_version_words(driver, dv, sizeof dv);
  zb_cuda_version_words(runtime, rv, sizeof rv);

  cudaError_t e = cudaGetDeviceCount(&n);
  (void)cudaGetLastError();
  if (e != cudaSuccess || n <= 0) {
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    if (driver == 0) {
      snprintf(zb_cuda_reason, sizeof zb_cuda_reason,
               "no NVIDIA driver found (libcuda.so not loadable)");
    } else if (e == cudaErrorInsufficientDriver) {
      snprintf(zb_cuda_reason, sizeof zb_cuda_reason,
               "CUDA driver too old for runtime %s (the driver supports CUDA %s)", rv,
               dv);
    } else if (e == cudaErrorNoDevice || (e == cudaSuccess && n <= 0)) {
      if (vis != NULL)
        snprintf(zb_cuda_reason, sizeof zb_cuda_reason,
                 "no CUDA device present (CUDA_VISIBLE_DEVICES=\"%s\")", vis);
      else
        snprintf(zb_cuda_reason, sizeof zb_cuda_reason, "no CUDA device present");
    } else if (e == cudaErrorDevicesUnavailable) {
      snprintf(zb_cuda_reason, sizeof zb_cuda_reason,
               "CUDA devices are busy or unavailable (exclusive or prohibited compute "
               "mode)");
    } else {
      snprintf(zb_cuda_reason, sizeof zb_cuda_reason,
               "cudaGetDeviceCount failed: %s (%s; driver CUDA %s, runtime %s)",
               cudaGetErrorString(e), cudaGetErrorName(e), dv, rv);
    }
    return;
  }
  if (n > ZB_CUDA_MAX_DEVICES) n = ZB_CUDA_MAX_DEVICES;

  /* Devices are used by ordinal, so the usable ones are the leading devices
   * whose compute capability this build has code for (machine code or PTX
   * that can be compiled for it). */
  int min_arch = zb_cuda_min_arch();
  int usable = 0;
  for (int i = 0; i < n; i++) {
    int major = 0, minor = 0, sms = 0;
    cudaError_t e1 = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, i);
    cudaError_t e2 = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, i);
    cudaError_t e3 = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, i);
    (void)cudaGetLastError();
    if (e1 != cudaSuccess || e2 != cudaSuccess || e3 != cudaSuccess) {
      cudaError_t bad = e1 != cudaSuccess ? e1 : (e2 != cudaSuccess ? e2 : e3);
      snprintf(zb_cuda_reason, sizeof zb_cuda_reason,
               "cudaDeviceGetAttribute failed for CUDA device %d: %s", i,
               cudaGetErrorString(bad));
      break;
    }
    if (min_arch > 0 && major * 10 + minor < min_arch) {
      snprintf(zb_cuda_reason, sizeof zb_cuda_reason,
               "CUDA device %d has compute capability %d.%d, older than the "
               "architectures this build was compiled for (%s)",
               i, major, minor, ZB_CUDA_ARCHS);
      break;
    }
    zb_cuda_sms[i] = sms > 0 ? sms : 1;
    usable++;
  }
  zb_cuda_count = usable;
  if (usable > 0) zb_cuda_reason[0] = '\0';
}

static void zb_cuda_init(void) { (void)pthread_once(&zb_cuda_once, zb_cuda_probe); }

/* ------------------------------------------------------------------------ */
/* Public functions (declared in zambezi.h; src/core/device.c has the
 * versions for builds without CUDA).                                       */
/* ------------------------------------------------------------------------ */

extern "C" int zb_cuda_device_count(void) {
  zb_cuda_init();
  return zb_cuda_count;
}

extern "C" const char *zb_cuda_unavailable_reason(void) {
  zb_cuda_init();
  return zb_cuda_reason;
}

extern "C" bool zb_cuda_compiled(void) { return true; }

extern "C" const char *zb_cuda_architectures(void) { return ZB_CUDA_ARCHS; }

/* ------------------------------------------------------------------------ */
/* Shared helpers (cuda_internal.h)                                         */
/* ------------------------------------------------------------------------ */

extern "C" zb_status zb__cuda_check(cudaError_t e, const char *call, int device_id,
                                    zb_error *err) {
  if (e == cudaSuccess) return ZB_OK;
  (void)cudaGetLastError(); /* clear the non-sticky error slot */
  if (e == cudaErrorMemoryAllocation)
    return zb_error_set(err, ZB_ENOMEM, "%s on cuda:%d: out of device memory (%s)", call,
                        device_id, cudaGetErrorString(e));
  return zb_error_set(err, ZB_EDEVICE, "%s on cuda:%d failed: %s (%s)", call, device_id,
                      cudaGetErrorString(e), cudaGetErrorName(e));
}

extern "C" zb_status zb__cuda_set_device(int device_id, zb_error *err) {
  zb_cuda_init();
  if (device_id < 0 || device_id >= zb_cuda_count)
    return zb_error_set(err, ZB_ENODEVICE, "no CUDA device cuda:%d (%d usable%s%s)",
                        device_id, zb_cuda_count, zb_cuda_count == 0 ? ": " : "",
                        zb_cuda_count == 0 ? zb_cuda_reason : "");
  return zb__cuda_check(cudaSetDevice(device_id), "cudaSetDevice", device_id, err);
}

extern "C" int zb__cuda_sm_count(int device_id) {
  zb_cuda_init();
  if (device_id < 0 || device_id >= zb_cuda_count) return 1;
  return zb_cuda_sms[device_id];
}

/* ------------------------------------------------------------------------ */
/* Backend entries                                                          */
/* ------------------------------------------------------------------------ */

static int zb_cuda_backend_device_count(void) { return zb_cuda_device_count(); }

static zb_status zb_cuda_device_info(int device_id, zb_device_info *out, zb_error *err) {
  memset(out, 0, sizeof *out);
  ZB_RETURN_NOT_OK(zb__cuda_set_device(device_id, err));
  cudaDeviceProp prop;
  memset(&prop, 0, sizeof prop);
  ZB_RETURN_NOT_OK(zb__cuda_check(cudaGetDeviceProperties(&prop, device_id),
                                  "cudaGetDeviceProperties", device_id, err));
  size_t free_b = 0, total_b = 0;
  ZB_RETURN_NOT_OK(
      zb__cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo", device_id, err));
  int driver = 0, runtime = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = 0;
  (void)cudaGetLastError();

  out->device.kind = ZB_DEVICE_CUDA;
  out->device.id = device_id;
  snprintf(out->name, sizeof out->name, "%.*s", (int)sizeof prop.name - 1, prop.name);
  out->total_memory = (int64_t)(total_b ? total_b : prop.totalGlobalMem);
  out->free_memory = (int64_t)free_b;
  out->cores = prop.multiProcessorCount;
  out->cc_major = prop.major;
  out->cc_minor = prop.minor;
  out->driver_version = driver;
  out->runtime_version = runtime;
  return ZB_OK;
}

static zb_status zb_cuda_alloc(int device_id, int64_t size, void **out, zb_error *err) {
  *out = NULL;
  if (size < 0)
    return zb_error_set(err, ZB_EINVAL, "cudaMalloc: negative size %lld",
                        (long long)size);
  ZB_RETURN_NOT_OK(zb__cuda_set_device(device_id, err));
  void *p = NULL;
  size_t want = size > 0 ? (size_t)size : 1; /* a real pointer even for 0 bytes */
  cudaError_t e = cudaMalloc(&p, want);
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) (void)cudaGetLastError();
    return zb_error_set(err, ZB_ENOMEM,
                        "cudaMalloc of %lld bytes on cuda:%d failed: out of device "
                        "memory (%llu of %llu bytes free)",
                        (long long)size, device_id, (unsigned long long)free_b,
                        (unsigned long long)total_b);
  }
  if (e != cudaSuccess) {
    char call[96];
    snprintf(call, sizeof call, "cudaMalloc of %lld bytes", (long long)size);
    return zb__cuda_check(e, call, device_id, err);
  }
  *out = p;
  return ZB_OK;
}

static void zb_cuda_free(int device_id, void *ptr) {
  if (ptr == NULL) return;
  /* Nothing can be reported from here; a failure (the context already torn
   * down at process exit, say) only loses memory the driver reclaims. */
  if (device_id >= 0 && device_id < zb_cuda_device_count()) {
    if (cudaSetDevice(device_id) == cudaSuccess) (void)cudaFree(ptr);
  }
  (void)cudaGetLastError();
}

/* Wait for the legacy default stream, where all our work runs. */
static zb_status zb_cuda_sync(const char *after, int device_id, zb_error *err) {
  cudaError_t e = cudaStreamSynchronize(0);
  if (e == cudaSuccess) return ZB_OK;
  char call[128];
  snprintf(call, sizeof call, "cudaStreamSynchronize after %s", after);
  return zb__cuda_check(e, call, device_id, err);
}

static zb_status zb_cuda_memset_zero(int device_id, void *ptr, int64_t size,
                                     zb_error *err) {
  if (size < 0)
    return zb_error_set(err, ZB_EINVAL, "cudaMemset: negative size %lld",
                        (long long)size);
  if (size == 0) return ZB_OK;
  ZB_RETURN_NOT_OK(zb__cuda_set_device(device_id, err));
  ZB_RETURN_NOT_OK(
      zb__cuda_check(cudaMemset(ptr, 0, (size_t)size), "cudaMemset", device_id, err));
  return zb_cuda_sync("cudaMemset", device_id, err);
}

static zb_status zb_cuda_copy(int device_id, void *dst, const void *src, int64_t size,
                              cudaMemcpyKind kind, const char *call, zb_error *err) {
  if (size < 0)
    return zb_error_set(err, ZB_EINVAL, "%s: negative size %lld", call, (long long)size);
  if (size == 0) return ZB_OK;
  ZB_RETURN_NOT_OK(zb__cuda_set_device(device_id, err));
  cudaError_t e = cudaMemcpy(dst, src, (size_t)size, kind);
  if (e != cudaSuccess) {
    char what[160];
    snprintf(what, sizeof what, "%s of %lld bytes", call, (long long)size);
    return zb__cuda_check(e, what, device_id, err);
  }
  /* device-to-host cudaMemcpy is synchronous; the others may return
   * before the data has landed. */
  if (kind == cudaMemcpyDeviceToHost) return ZB_OK;
  return zb_cuda_sync(call, device_id, err);
}

static zb_status zb_cuda_copy_to_host(int device_id, void *dst, const void *src,
                                      int64_t size, zb_error *err) {
  return zb_cuda_copy(device_id, dst, src, size, cudaMemcpyDeviceToHost,
                      "cudaMemcpy (device to host)", err);
}

static zb_status zb_cuda_copy_from_host(int device_id, void *dst, const void *src,
                                        int64_t size, zb_error *err) {
  return zb_cuda_copy(device_id, dst, src, size, cudaMemcpyHostToDevice,
                      "cudaMemcpy (host to device)", err);
}

static zb_status zb_cuda_copy_on_device(int device_id, void *dst, const void *src,
                                        int64_t size, zb_error *err) {
  return zb_cuda_copy(device_id, dst, src, size, cudaMemcpyDeviceToDevice,
                      "cudaMemcpy (device to device)", err);
}

/* Built field by field: entries the CUDA backend does not have stay NULL
 * (the core then runs those operations on the CPU), and new optional entries
 * added to zb_backend need no change here. */
static zb_backend zb_cuda_make_backend(void) {
  zb_backend b;
  memset(&b, 0, sizeof b);
  b.name = "cuda";
  b.kind = ZB_DEVICE_CUDA;
  b.device_count = zb_cuda_backend_device_count;
  b.device_info = zb_cuda_device_info;
  b.alloc = zb_cuda_alloc;
  b.free = zb_cuda_free;
  b.memset_zero = zb_cuda_memset_zero;
  b.copy_to_host = zb_cuda_copy_to_host;
  b.copy_from_host = zb_cuda_copy_from_host;
  b.copy_on_device = zb_cuda_copy_on_device;
  b.reduce = zb__cuda_reduce;
  return b;
}

static const zb_backend zb_cuda_backend_table = zb_cuda_make_backend();

extern "C" const zb_backend *zb__cuda_backend(void) { return &zb_cuda_backend_table; }
