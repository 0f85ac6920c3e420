/*
 * cuda_internal.h -- what the CUDA backend's files (the .cu files in src/cuda) share:
 * the mapping of cudaError_t to zambezi statuses and the operation entry
 * points that backend.cu puts in the backend table.  Only compiled when
 * ZB_HAVE_CUDA; never included by the C core.
 */
#ifndef ZAMBEZI_CUDA_INTERNAL_H
#define ZAMBEZI_CUDA_INTERNAL_H

#include <cuda_runtime.h>

#include "core/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Turn the result of a CUDA runtime call into a status.  cudaSuccess ->
 * ZB_OK; cudaErrorMemoryAllocation -> ZB_ENOMEM; anything else ->
 * ZB_EDEVICE.  The message names `call` (e.g. "cudaMemcpy (device to host)")
 * and the device and quotes cudaGetErrorString.  Clears the runtime's
 * last-error slot so that a later check does not see this error again. */
zb_status zb__cuda_check(cudaError_t e, const char *call, int device_id, zb_error *err);

/* Make device_id current for the calling thread; ZB_ENODEVICE for an
 * ordinal that is not a usable device. */
zb_status zb__cuda_set_device(int device_id, zb_error *err);

/* Multiprocessors of a usable device (cached; at least 1). */
int zb__cuda_sm_count(int device_id);

/* The backend's reduce entry (src/cuda/reduce.cu): the column lives on a
 * CUDA device, is numeric and was validated by src/core.  Semantics are
 * those of zb_column_reduce. */
zb_status zb__cuda_reduce(const zb_column *col, zb_reduce_op op, zb_scalar *out,
                          zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_CUDA_INTERNAL_H */
