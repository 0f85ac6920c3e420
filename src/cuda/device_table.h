/*
 * device_table.h -- which CUDA devices zambezi can use, and the caller's
 * current device kept around zambezi's CUDA calls.
 *
 * Plain C, compiled in every build: the CUDA runtime is reached only
 * through the small table of function pointers below (zb_cuda_rt), which
 * src/cuda/backend.cu fills with cudart and tests/c fills with a stub (many
 * GPUs, old ones among them, none, errors from the runtime).
 *
 * Devices keep their CUDA ordinals: cuda:N is CUDA device N, usable or not.
 * A device older than the architectures the build carries, or one whose
 * attributes cannot be read, is left out with a reason in words; the
 * devices after it are still used.
 *
 * The functions are exported (ZB_API) for the C tests only; they are not
 * part of the public API.
 */
#ifndef ZAMBEZI_CUDA_DEVICE_TABLE_H
#define ZAMBEZI_CUDA_DEVICE_TABLE_H

#include <stdbool.h>

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* At most this many CUDA devices are looked at (ordinals beyond are ignored). */
#define ZB_CUDA_MAX_DEVICES 64

/* What a runtime call's error code means to discovery. */
typedef enum zb_cuda_rt_error {
  ZB_CUDA_RT_OK = 0,
  ZB_CUDA_RT_NO_DEVICE,       /* no CUDA device present */
  ZB_CUDA_RT_OLD_DRIVER,      /* the driver is older than the runtime */
  ZB_CUDA_RT_UNAVAILABLE,     /* busy, exclusive or prohibited compute mode */
  ZB_CUDA_RT_OTHER
} zb_cuda_rt_error;

/* Device attributes discovery reads. */
typedef enum zb_cuda_rt_attr {
  ZB_CUDA_ATTR_CC_MAJOR,
  ZB_CUDA_ATTR_CC_MINOR,
  ZB_CUDA_ATTR_SM_COUNT
} zb_cuda_rt_attr;

/* The CUDA runtime as discovery and the device guard use it.  Every call
 * returns the runtime's own error code, 0 for success. */
typedef struct zb_cuda_rt {
  int (*driver_version)(int *version);
  int (*runtime_version)(int *version);
  int (*device_count)(int *count);
  int (*device_attribute)(int *value, zb_cuda_rt_attr attr, int ordinal);
  int (*get_device)(int *ordinal);
  int (*set_device)(int ordinal);
  /* Clears the runtime's last-error slot (may be NULL). */
  void (*clear_error)(void);
  zb_cuda_rt_error (*classify)(int code);
  /* The code in words, e.g. "initialization error (cudaErrorInitializationError)". */
  const char *(*describe)(int code);
} zb_cuda_rt;

typedef struct zb_cuda_device_entry {
  bool usable;
  int cc_major, cc_minor;
  int sm_count;          /* multiprocessors, at least 1 when usable */
  char why[224];         /* why the device is left out ("" when usable) */
} zb_cuda_device_entry;

typedef struct zb_cuda_device_table {
  int present;           /* devices the runtime reports, at most ZB_CUDA_MAX_DEVICES */
  int usable;            /* how many of them zambezi uses */
  int first_usable;      /* lowest usable ordinal, -1 if none */
  zb_cuda_device_entry dev[ZB_CUDA_MAX_DEVICES];
  char reason[512];      /* why no device is usable ("" when one is) */
} zb_cuda_device_table;

/* The smallest architecture number in a CMake architecture list
 * ("80-real;90" -> 80); 0 if none can be read. */
ZB_API int zb__cuda_min_arch(const char *archs);

/* Fill *t by asking rt.  Never fails: a missing driver, no device or a
 * runtime error gives zero usable devices and the reason in t->reason.
 * min_arch: the oldest compute capability the build runs on (e.g. 80 for
 * 8.0; 0: any); archs: the build's architectures, for messages;
 * visible: CUDA_VISIBLE_DEVICES or NULL, for messages. */
ZB_API void zb__cuda_table_probe(const zb_cuda_rt *rt, int min_arch, const char *archs,
                                 const char *visible, zb_cuda_device_table *t);

/* True if ordinal names a usable device of t. */
ZB_API bool zb__cuda_table_usable(const zb_cuda_device_table *t, int ordinal);

/* ZB_OK if ordinal names a usable device, else ZB_ENODEVICE with a message
 * naming cuda:<ordinal> and why it cannot be used. */
ZB_API zb_status zb__cuda_table_check(const zb_cuda_device_table *t, int ordinal,
                                      zb_error *err);

/* Why ordinal is not usable, in words ("" when it is). */
ZB_API const char *zb__cuda_table_why(const zb_cuda_device_table *t, int ordinal);

/* The caller's current device, to hand back to zb__cuda_device_restore (-1
 * if the runtime cannot say). */
ZB_API int zb__cuda_device_save(const zb_cuda_rt *rt);

/* Make saved current again if zambezi changed it; -1 does nothing.  Errors
 * are cleared, never reported (this runs on every path out). */
ZB_API void zb__cuda_device_restore(const zb_cuda_rt *rt, int saved);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_CUDA_DEVICE_TABLE_H */
