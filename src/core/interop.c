/*
 * interop.c -- DLPack export and import of columns (zambezi/interop.h),
 * zb_device_synchronize, and the CUDA memory functions of builds without
 * the CUDA backend.
 *
 * Export hands out the column's own buffer: the managed tensor's context
 * holds a column reference that its deleter drops.  Import wraps the
 * producer's memory in a buffer whose release calls the producer's release
 * -- but only once the import has succeeded (an "armed" flag), so that a
 * failed import leaves the memory with the caller as documented.
 */
#include <stdint.h>
#include <string.h>

#include "core/internal.h"
#include "zambezi/interop.h"

zb_status zb_device_synchronize(zb_device device, zb_error *err) {
  if (device.kind == ZB_DEVICE_CPU) return ZB_OK;
  const zb_backend *be = zb__backend_for(device.kind);
  if (be == NULL || !be->device_usable(device.id))
    return zb_error_set(err, ZB_ENODEVICE, "device cuda:%d is not available", device.id);
  if (be->synchronize == NULL) return ZB_OK;
  return be->synchronize(device.id, err);
}

/* ---- export ----------------------------------------------------------------- */

typedef struct dl_export {
  zb_column *col; /* the reference the consumer holds */
  int64_t shape[1], strides[1];
  union {
    DLManagedTensor legacy;
    DLManagedTensorVersioned versioned;
  } t;
} dl_export;

/* The consumer is done with the tensor, but its kernels may still be
 * queued on its own (non-blocking) stream, which the pool's stream-ordered
 * free does not wait for: the device is synchronized first. */
static void dl_export_free(dl_export *x) {
  if (x->col->device.kind != ZB_DEVICE_CPU) (void)zb_device_synchronize(x->col->device, NULL);
  zb_column_release(x->col);
  zb_free(x);
}
static void dl_delete_legacy(DLManagedTensor *self) {
  if (self != NULL) dl_export_free((dl_export *)self->manager_ctx);
}
static void dl_delete_versioned(DLManagedTensorVersioned *self) {
  if (self != NULL) dl_export_free((dl_export *)self->manager_ctx);
}

static DLDataType dl_type_of(zb_type_id t) {
  DLDataType d = {kDLInt, 0, 1};
  if (t == ZB_BOOL) {
    d.code = kDLBool;
    d.bits = 8;
  } else {
    d.code = zb_type_is_float(t) ? kDLFloat : zb_type_is_signed(t) ? kDLInt : kDLUInt;
    d.bits = (uint8_t)(8 * zb_type_width(t));
  }
  return d;
}

zb_status zb_column_export_dlpack(const zb_column *col, bool versioned, bool allow_copy,
                                  void **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "DLPack export: NULL output");
  *out = NULL;
  if (col == NULL) return zb_error_set(err, ZB_EINVAL, "DLPack export: NULL column");
  if (!zb_type_is_numeric(col->type))
    return zb_error_set(err, ZB_ENOTSUP,
                        "DLPack carries numbers and bools, not a %s column (dates and "
                        "timestamps: cast to int first; strings: use the Arrow interface)",
                        zb_type_name(col->type));
  if (col->null_count > 0)
    return zb_error_set(err, ZB_ENOTSUP,
                        "the column has %lld null(s) and DLPack has no null mask: fill them "
                        "first (fillna) or use the Arrow C device interface",
                        (long long)col->null_count);
  bool copied = col->type == ZB_BOOL;
  if (copied && !allow_copy)
    return zb_error_set(err, ZB_ENOTSUP,
                        "a bool column is a bitmap; DLPack needs one byte per value, which "
                        "takes a copy (copy=False refused it)");
  zb_column *src = NULL;
  if (copied)
    ZB_RETURN_NOT_OK(zb_column_cast(col, ZB_UINT8, ZB_MICRO, &src, err));
  else
    src = zb_column_retain((zb_column *)col);
  zb_status st = zb_device_synchronize(src->device, err);
  dl_export *x = NULL;
  if (st == ZB_OK) {
    x = (dl_export *)zb_calloc(1, sizeof *x);
    if (x == NULL) st = zb_error_set(err, ZB_ENOMEM, "out of host memory (DLPack export)");
  }
  if (st != ZB_OK) {
    zb_column_release(src);
    return st;
  }
  x->col = src;
  x->shape[0] = src->length;
  x->strides[0] = 1;
  DLTensor *t = versioned ? &x->t.versioned.dl_tensor : &x->t.legacy.dl_tensor;
  /* the first element itself, byte_offset 0, as the Array API standard
   * asks and numpy does: PyTorch (and other consumers) ignore byte_offset */
  t->data = (char *)src->data->data + src->offset * zb_type_width(src->type);
  t->byte_offset = 0;
  t->device.device_type = src->device.kind == ZB_DEVICE_CPU ? kDLCPU : kDLCUDA;
  t->device.device_id = src->device.kind == ZB_DEVICE_CPU ? 0 : src->device.id;
  t->ndim = 1;
  t->dtype = dl_type_of(col->type);
  t->shape = x->shape;
  t->strides = x->strides;
  if (versioned) {
    x->t.versioned.version.major = DLPACK_MAJOR_VERSION;
    x->t.versioned.version.minor = DLPACK_MINOR_VERSION;
    x->t.versioned.manager_ctx = x;
    x->t.versioned.deleter = dl_delete_versioned;
    x->t.versioned.flags = copied ? DLPACK_FLAG_BITMASK_IS_COPIED : DLPACK_FLAG_BITMASK_READ_ONLY;
    *out = &x->t.versioned;
  } else {
    x->t.legacy.manager_ctx = x;
    x->t.legacy.deleter = dl_delete_legacy;
    *out = &x->t.legacy;
  }
  return ZB_OK;
}

/* ---- import ----------------------------------------------------------------- */

typedef struct dl_import {
  zb_buffer_release_fn release;
  void *ctx;
  bool armed; /* set once the import succeeded */
} dl_import;

static void dl_import_release(void *p, void *data, int64_t size) {
  dl_import *im = (dl_import *)p;
  if (im->armed) im->release(im->ctx, data, size);
  zb_free(im);
}

static zb_status dl_zb_type(DLDataType d, zb_type_id *out, zb_error *err) {
  static const zb_type_id sints[4] = {ZB_INT8, ZB_INT16, ZB_INT32, ZB_INT64};
  static const zb_type_id uints[4] = {ZB_UINT8, ZB_UINT16, ZB_UINT32, ZB_UINT64};
  int k = d.bits == 8 ? 0 : d.bits == 16 ? 1 : d.bits == 32 ? 2 : d.bits == 64 ? 3 : -1;
  if (d.lanes == 1 && k >= 0) {
    if (d.code == kDLInt) *out = sints[k];
    else if (d.code == kDLUInt) *out = uints[k];
    else if (d.code == kDLFloat && k >= 2) *out = k == 2 ? ZB_FLOAT32 : ZB_FLOAT64;
    else if (d.code == kDLBool && k == 0) *out = ZB_BOOL;
    else k = -1;
  }
  if (d.lanes != 1 || k < 0)
    return zb_error_set(err, ZB_ENOTSUP,
                        "DLPack import: data type code %d with %d bits x %d lanes is not a "
                        "zambezi dtype (int8..64, uint8..64, float32/64 or bool)",
                        (int)d.code, (int)d.bits, (int)d.lanes);
  return ZB_OK;
}

static zb_status dl_device(DLDevice d, zb_device *out, zb_error *err) {
  switch ((int)d.device_type) {
    case kDLCPU:
    case kDLCUDAHost: /* pinned host memory: the CPU reads it directly */
      *out = ZB_CPU;
      return ZB_OK;
    case kDLCUDA:
    case kDLCUDAManaged:
      if (!zb_cuda_device_usable((int)d.device_id))
        return zb_error_set(err, ZB_ENODEVICE,
                            "DLPack import: the data is on cuda:%d, which zambezi cannot "
                            "use (%d usable GPUs: %s)",
                            (int)d.device_id, zb_cuda_device_count(),
                            zb_cuda_device_left_out_reason((int)d.device_id));
      out->kind = ZB_DEVICE_CUDA;
      out->id = d.device_id;
      return ZB_OK;
    default:
      return zb_error_set(err, ZB_ENOTSUP,
                          "DLPack import: device type %d is not supported (CPU and CUDA are)",
                          (int)d.device_type);
  }
}

zb_status zb_column_import_dlpack(const DLTensor *t, zb_buffer_release_fn release, void *ctx,
                                  zb_column **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "DLPack import: NULL output");
  *out = NULL;
  if (t == NULL || release == NULL)
    return zb_error_set(err, ZB_EINVAL, "DLPack import: NULL tensor or release function");
  if (t->ndim != 1 || t->shape == NULL)
    return zb_error_set(err, ZB_EINVAL,
                        "DLPack import: a column needs a 1-D array, not %d dimensions",
                        (int)t->ndim);
  zb_type_id type = ZB_UINT8;
  zb_device dev = ZB_CPU;
  ZB_RETURN_NOT_OK(dl_zb_type(t->dtype, &type, err));
  ZB_RETURN_NOT_OK(dl_device(t->device, &dev, err));
  int64_t n = t->shape[0];
  if (n < 0) return zb_error_set(err, ZB_EINVAL, "DLPack import: negative length %lld", (long long)n);
  if (t->strides != NULL && t->strides[0] != 1 && n > 1)
    return zb_error_set(err, ZB_ENOTSUP,
                        "DLPack import: the array is strided (stride %lld elements); a "
                        "column needs contiguous values (copy it first)",
                        (long long)t->strides[0]);
  int width = type == ZB_BOOL ? 1 : zb_type_width(type);
  zb_type_id stored = type == ZB_BOOL ? ZB_UINT8 : type;
  if (n > INT64_MAX / 16) return zb_error_set(err, ZB_EINVAL, "DLPack import: array too large");
  int64_t size = n * width;
  char *ptr = (char *)t->data + t->byte_offset;

  dl_import *im = (dl_import *)zb_calloc(1, sizeof *im);
  if (im == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (DLPack import)");
  im->release = release;
  im->ctx = ctx;
  zb_buffer *wrapped = NULL, *data = NULL;
  zb_column *col = NULL, *res = NULL;
  zb_status st = zb_buffer_wrap(dev, ptr, size, dl_import_release, im, &wrapped, err);
  if (st != ZB_OK) {
    zb_free(im);
    return st;
  }
  if (n > 0 && ((uintptr_t)ptr % (uintptr_t)width) == 0) {
    data = zb_buffer_retain(wrapped);
  } else {
    /* Misaligned (a view at an odd byte offset): an aligned copy on the
     * same device, as kernels load whole elements.  Empty: a buffer of
     * our own, as the producer's pointer may be NULL. */
    st = zb_buffer_new(dev, size, &data, err);
    if (st == ZB_OK && size > 0) {
      if (dev.kind == ZB_DEVICE_CPU)
        memcpy(data->data, ptr, (size_t)size);
      else
        st = zb__backend_for(dev.kind)->copy_on_device(dev.id, data->data, ptr, size, err);
    }
  }
  if (st == ZB_OK) st = zb_column_make(stored, n, 0, NULL, data, NULL, NULL, 0, &col, err);
  if (st == ZB_OK && type == ZB_BOOL)
    st = zb_column_cast(col, ZB_BOOL, ZB_MICRO, &res, err);
  else if (st == ZB_OK)
    res = zb_column_retain(col);
  if (st == ZB_OK) im->armed = true; /* from here on the producer's memory is ours */
  zb_column_release(col);
  zb_buffer_release(data);
  zb_buffer_release(wrapped);
  if (st != ZB_OK) return st;
  *out = res;
  return ZB_OK;
}

/* ---- builds without CUDA ------------------------------------------------------ */

#ifndef ZB_HAVE_CUDA
static zb_status no_cuda(zb_error *err) {
  return zb_error_set(err, ZB_ENODEVICE, "no CUDA device: %s", zb_cuda_unavailable_reason());
}

zb_status zb_cuda_pointer_device(const void *ptr, zb_device *out, zb_error *err) {
  if (out != NULL) *out = ZB_CPU;
  return no_cuda(err);
}

zb_status zb_cuda_get_memory_info(int device_id, zb_cuda_memory_info *out, zb_error *err) {
  if (out != NULL) memset(out, 0, sizeof *out);
  return no_cuda(err);
}

zb_status zb_cuda_release_cached_memory(int device_id, zb_error *err) { return no_cuda(err); }
#endif
