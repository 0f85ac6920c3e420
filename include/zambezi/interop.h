/*
 * interop.h -- sharing columns with array libraries without copies: DLPack
 * (numpy, CuPy, PyTorch, JAX ...), plus the device helpers that exchange
 * needs (waiting for a device, finding where a pointer lives) and the CUDA
 * memory pool's counters.
 *
 * The DLPack ABI structs are written from the DLPack specification
 * (dlpack.h, versions 0.8 and 1.x) under its own include guard, so this
 * header can sit beside the real dlpack.h in one translation unit.
 *
 * What DLPack can carry: one-dimensional numeric columns (integers, floats,
 * bools) without nulls.  Bool columns are bitmaps in zambezi and one byte
 * per value in DLPack, so exporting or importing them takes a copy.  Nulls
 * have no place in DLPack (it has no mask): exporting a column with nulls
 * is refused; fill them first or use the Arrow device interface.
 */
#ifndef ZAMBEZI_INTEROP_H
#define ZAMBEZI_INTEROP_H

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0

typedef enum {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
} DLDeviceType;

typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

typedef enum {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,
  kDLOpaqueHandle = 3U,
  kDLBfloat = 4U,
  kDLComplex = 5U,
  kDLBool = 6U,
} DLDataTypeCode;

typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)

typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned *self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

#endif /* DLPACK_DLPACK_H_ */

/* ---- DLPack ----------------------------------------------------------------- */

/* Export col as a DLPack tensor on col's device.  versioned: *out is a
 * DLManagedTensorVersioned (DLPack 1.0, flagged read-only), else a
 * DLManagedTensor.  The tensor holds a reference to the column's buffers
 * until its deleter runs (from any thread).  allow_copy: a bool column is
 * exported as a one-byte-per-value copy (flagged IS_COPIED); without it a
 * bool column is ZB_ENOTSUP.  Also ZB_ENOTSUP for non-numeric columns and
 * columns with nulls.  Device work is finished before it returns, so any
 * stream may read the data.  On success *out belongs to the caller (call
 * its deleter); on failure *out is NULL. */
ZB_API zb_status zb_column_export_dlpack(const zb_column *col, bool versioned, bool allow_copy,
                                         void **out, zb_error *err);

/* A column over the memory of a one-dimensional, contiguous DLPack tensor
 * (borrowed; only read during the call): int8..64, uint8..64, float32/64 or
 * bool, on the CPU (kDLCPU, kDLCUDAHost) or a usable CUDA device (kDLCUDA,
 * kDLCUDAManaged).  Zero-copy when the data is aligned to its element size
 * and not bool; else the values are copied on their device.  On success
 * release(ctx, data, size) is called once no column uses the memory (at
 * once if it was copied); on failure it is not called and the caller still
 * owns the memory. */
ZB_API zb_status zb_column_import_dlpack(const DLTensor *t, zb_buffer_release_fn release,
                                         void *ctx, zb_column **out, zb_error *err);

/* ---- devices ------------------------------------------------------------- */

/* Wait until all work queued on device has finished (no-op for the CPU). */
ZB_API zb_status zb_device_synchronize(zb_device device, zb_error *err);

/* Where ptr points: a CUDA device (device or managed memory), or the CPU
 * (pinned or registered host memory).  ZB_EINVAL for memory CUDA does not
 * know (plain pageable host memory); ZB_ENODEVICE without usable GPUs. */
ZB_API zb_status zb_cuda_pointer_device(const void *ptr, zb_device *out, zb_error *err);

/* ---- the CUDA memory pool -------------------------------------------------- */

/* Device memory comes from one stream-ordered pool per device (plain device
 * memory, never managed memory); memory freed by zambezi stays cached in
 * the pool up to release_threshold bytes and is handed back to the driver
 * beyond it.  ZAMBEZI_CUDA_POOL=0 in the environment turns the pool off
 * (plain cudaMalloc / cudaFree), e.g. for compute-sanitizer.  Host<->device
 * copies of 4 MiB and more go through pinned staging buffers, double
 * buffered (ZAMBEZI_CUDA_STAGING=0 turns that off). */
typedef struct zb_cuda_memory_info {
  bool pool_enabled;
  int64_t pool_reserved;     /* bytes the pool holds from the driver */
  int64_t pool_used;         /* bytes of them in live allocations */
  int64_t release_threshold; /* bytes the pool may keep cached */
  int64_t staging_bytes;     /* pinned host staging buffers of this device */
  int64_t free_memory;       /* cudaMemGetInfo, now */
  int64_t total_memory;
} zb_cuda_memory_info;

ZB_API zb_status zb_cuda_get_memory_info(int device_id, zb_cuda_memory_info *out,
                                         zb_error *err);
/* Hand the pool's cached (unused) memory of the device back to the driver. */
ZB_API zb_status zb_cuda_release_cached_memory(int device_id, zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_INTEROP_H */
