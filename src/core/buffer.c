/*
 * buffer.c -- immutable, reference-counted blocks of bytes on one device.
 *
 * Engine buffers (release == NULL) hold memory from the counting allocator:
 * zb_malloc on the host, the backend's alloc on a GPU (counted through
 * zb__alloc_device_*).  Wrapped buffers hold someone else's memory and call
 * their release function when the last reference goes.  Sizes are padded to
 * 64 bytes so vector loops may read whole words past the end.
 */
#include <string.h>

#include "core/internal.h"

static int64_t padded(int64_t size) { return (size + 63) / 64 * 64 + (size == 0 ? 64 : 0); }

static zb_status check_device(zb_device device, const zb_backend **be, zb_error *err) {
  *be = zb__backend_for(device.kind);
  if (*be == NULL)
    return zb_error_set(err, ZB_ENODEVICE,
                        "device cuda:%d is not available: this build has no CUDA backend",
                        device.id);
  if (device.kind != ZB_DEVICE_CPU && !(*be)->device_usable(device.id))
    return zb_error_set(err, ZB_ENODEVICE, "device cuda:%d is not available (%d usable GPUs: %s)",
                        device.id, (*be)->device_count(),
                        zb_cuda_device_left_out_reason(device.id));
  return ZB_OK;
}

zb_status zb_buffer_new(zb_device device, int64_t size, zb_buffer **out, zb_error *err) {
  *out = NULL;
  if (size < 0) return zb_error_set(err, ZB_EINVAL, "negative buffer size %lld", (long long)size);
  const zb_backend *be;
  ZB_RETURN_NOT_OK(check_device(device, &be, err));
  zb_buffer *buf = (zb_buffer *)zb_malloc(sizeof *buf);
  if (buf == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (buffer header)");
  int64_t cap = padded(size);
  void *data = NULL;
  if (device.kind == ZB_DEVICE_CPU) {
    data = zb_malloc((size_t)cap);
    if (data == NULL) {
      zb_free(buf);
      return zb_error_set(err, ZB_ENOMEM, "out of host memory allocating %lld bytes",
                          (long long)size);
    }
  } else {
    zb_status st = zb__alloc_device_begin(cap, err);
    if (st == ZB_OK) {
      st = be->alloc(device.id, cap, &data, err);
      if (st != ZB_OK) zb__alloc_device_end(cap);
    }
    if (st != ZB_OK) {
      zb_free(buf);
      return st;
    }
  }
  buf->data = data;
  buf->size = size;
  buf->device = device;
  buf->refcount = 1;
  buf->release = NULL;
  buf->release_ctx = NULL;
  *out = buf;
  return ZB_OK;
}

void zb__release_zb_malloc(void *ctx, void *data, int64_t size) {
  (void)ctx;
  (void)size;
  zb_free(data);
}

void zb__buffer_shrink(zb_buffer *buf, int64_t size) {
  if (buf->release != NULL || buf->device.kind != ZB_DEVICE_CPU || size >= buf->size) return;
  buf->size = size;
  zb__shrink(buf->data, (size_t)padded(size));
}

zb_status zb_buffer_new_zeroed(zb_device device, int64_t size, zb_buffer **out,
                               zb_error *err) {
  ZB_RETURN_NOT_OK(zb_buffer_new(device, size, out, err));
  int64_t cap = padded(size);
  if (device.kind == ZB_DEVICE_CPU) {
    memset((*out)->data, 0, (size_t)cap);
    return ZB_OK;
  }
  zb_status st = zb__backend_for(device.kind)->memset_zero(device.id, (*out)->data, cap, err);
  if (st != ZB_OK) {
    zb_buffer_release(*out);
    *out = NULL;
  }
  return st;
}

zb_status zb_buffer_wrap(zb_device device, void *data, int64_t size,
                         zb_buffer_release_fn release, void *ctx, zb_buffer **out,
                         zb_error *err) {
  *out = NULL;
  if (size < 0) return zb_error_set(err, ZB_EINVAL, "negative buffer size %lld", (long long)size);
  if (release == NULL)
    return zb_error_set(err, ZB_EINVAL, "zb_buffer_wrap needs a release function");
  zb_buffer *buf = (zb_buffer *)zb_malloc(sizeof *buf);
  if (buf == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (buffer header)");
  buf->data = data;
  buf->size = size;
  buf->device = device;
  buf->refcount = 1;
  buf->release = release;
  buf->release_ctx = ctx;
  *out = buf;
  return ZB_OK;
}

zb_buffer *zb_buffer_retain(zb_buffer *buf) {
  if (buf != NULL) zb__atomic_inc(&buf->refcount);
  return buf;
}

void zb_buffer_release(zb_buffer *buf) {
  if (buf == NULL || zb__atomic_dec(&buf->refcount) != 0) return;
  if (buf->release != NULL) {
    buf->release(buf->release_ctx, buf->data, buf->size);
  } else if (buf->device.kind == ZB_DEVICE_CPU) {
    zb_free(buf->data);
  } else {
    const zb_backend *be = zb__backend_for(buf->device.kind);
    if (be != NULL) be->free(buf->device.id, buf->data);
    zb__alloc_device_end(padded(buf->size));
  }
  zb_free(buf);
}

zb_status zb_buffer_copy_to(const zb_buffer *src, zb_device device, zb_buffer **out,
                            zb_error *err) {
  ZB_RETURN_NOT_OK(zb_buffer_new(device, src->size, out, err));
  zb_status st = ZB_OK;
  void *dst = (*out)->data;
  bool src_host = src->device.kind == ZB_DEVICE_CPU;
  bool dst_host = device.kind == ZB_DEVICE_CPU;
  if (src->size == 0) return ZB_OK;
  if (src_host && dst_host) {
    memcpy(dst, src->data, (size_t)src->size);
  } else if (src_host) {
    st = zb__backend_for(device.kind)->copy_from_host(device.id, dst, src->data, src->size, err);
  } else if (dst_host) {
    st = zb__backend_for(src->device.kind)
             ->copy_to_host(src->device.id, dst, src->data, src->size, err);
  } else if (zb_device_equal(src->device, device)) {
    st = zb__backend_for(device.kind)->copy_on_device(device.id, dst, src->data, src->size, err);
  } else {
    /* Between two GPUs: through the host. */
    void *tmp = zb_malloc((size_t)src->size);
    if (tmp == NULL) {
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory staging %lld bytes",
                        (long long)src->size);
    } else {
      st = zb__backend_for(src->device.kind)
               ->copy_to_host(src->device.id, tmp, src->data, src->size, err);
      if (st == ZB_OK)
        st = zb__backend_for(device.kind)->copy_from_host(device.id, dst, tmp, src->size, err);
      zb_free(tmp);
    }
  }
  if (st != ZB_OK) {
    zb_buffer_release(*out);
    *out = NULL;
  }
  return st;
}
