/*
 * device_table.c -- the table of usable CUDA devices and the device guard's
 * save/restore, on the runtime calls of a zb_cuda_rt (see device_table.h).
 */
#include "cuda/device_table.h"

#include <stdio.h>
#include <string.h>

int zb__cuda_min_arch(const char *archs) {
  const char *s = archs != NULL ? archs : "";
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

static void version_words(int v, char *buf, size_t n) {
  snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
}

static void clear(const zb_cuda_rt *rt) {
  if (rt->clear_error != NULL) rt->clear_error();
}

/* Why the runtime reports no device, in words. */
static void no_device_reason(const zb_cuda_rt *rt, int code, int count, int driver,
                             int runtime, const char *visible, zb_cuda_device_table *t) {
  char dv[32], rv[32];
  version_words(driver, dv, sizeof dv);
  version_words(runtime, rv, sizeof rv);
  zb_cuda_rt_error kind = code == 0 ? ZB_CUDA_RT_OK : rt->classify(code);
  char *r = t->reason;
  size_t n = sizeof t->reason;
  if (driver == 0) {
    snprintf(r, n, "no NVIDIA driver found (libcuda.so not loadable)");
  } else if (kind == ZB_CUDA_RT_OLD_DRIVER) {
    snprintf(r, n, "CUDA driver too old for runtime %s (the driver supports CUDA %s)", rv, dv);
  } else if (kind == ZB_CUDA_RT_NO_DEVICE || (code == 0 && count <= 0)) {
    if (visible != NULL)
      snprintf(r, n, "no CUDA device present (CUDA_VISIBLE_DEVICES=\"%s\")", visible);
    else
      snprintf(r, n, "no CUDA device present");
  } else if (kind == ZB_CUDA_RT_UNAVAILABLE) {
    snprintf(r, n, "CUDA devices are busy or unavailable (exclusive or prohibited compute "
                   "mode)");
  } else {
    snprintf(r, n, "cudaGetDeviceCount failed: %s (driver CUDA %s, runtime %s)",
             rt->describe(code), dv, rv);
  }
}

void zb__cuda_table_probe(const zb_cuda_rt *rt, int min_arch, const char *archs,
                          const char *visible, zb_cuda_device_table *t) {
  memset(t, 0, sizeof *t);
  t->first_usable = -1;
  int driver = 0, runtime = 0, count = 0;
  if (rt->driver_version(&driver) != 0) driver = 0;
  if (rt->runtime_version(&runtime) != 0) runtime = 0;
  clear(rt);
  int code = rt->device_count(&count);
  clear(rt);
  if (code != 0 || count <= 0) {
    no_device_reason(rt, code, count, driver, runtime, visible, t);
    return;
  }
  if (count > ZB_CUDA_MAX_DEVICES) count = ZB_CUDA_MAX_DEVICES;
  t->present = count;
  int left_out = -1; /* the first device left out, for the reason */
  for (int i = 0; i < count; i++) {
    zb_cuda_device_entry *d = &t->dev[i];
    int major = 0, minor = 0, sms = 0;
    int e = rt->device_attribute(&major, ZB_CUDA_ATTR_CC_MAJOR, i);
    if (e == 0) e = rt->device_attribute(&minor, ZB_CUDA_ATTR_CC_MINOR, i);
    if (e == 0) e = rt->device_attribute(&sms, ZB_CUDA_ATTR_SM_COUNT, i);
    clear(rt);
    if (e != 0) {
      snprintf(d->why, sizeof d->why, "its attributes cannot be read: %s", rt->describe(e));
    } else {
      d->cc_major = major;
      d->cc_minor = minor;
      if (min_arch > 0 && major * 10 + minor < min_arch) {
        snprintf(d->why, sizeof d->why,
                 "compute capability %d.%d is older than the architectures this build "
                 "was compiled for (%s)",
                 major, minor, archs != NULL ? archs : "?");
      } else {
        d->usable = true;
        d->sm_count = sms > 0 ? sms : 1;
        t->usable++;
        if (t->first_usable < 0) t->first_usable = i;
        continue;
      }
    }
    if (left_out < 0) left_out = i;
  }
  if (t->usable == 0)
    snprintf(t->reason, sizeof t->reason, "none of the %d CUDA device%s can be used (CUDA "
             "device %d: %s)", count, count == 1 ? "" : "s", left_out, t->dev[left_out].why);
}

bool zb__cuda_table_usable(const zb_cuda_device_table *t, int ordinal) {
  return ordinal >= 0 && ordinal < t->present && t->dev[ordinal].usable;
}

const char *zb__cuda_table_why(const zb_cuda_device_table *t, int ordinal) {
  if (zb__cuda_table_usable(t, ordinal)) return "";
  if (ordinal >= 0 && ordinal < t->present) return t->dev[ordinal].why;
  if (t->present == 0) return t->reason;
  return "there is no CUDA device with that number";
}

zb_status zb__cuda_table_check(const zb_cuda_device_table *t, int ordinal, zb_error *err) {
  if (zb__cuda_table_usable(t, ordinal)) return ZB_OK;
  if (t->present == 0)
    return zb_error_set(err, ZB_ENODEVICE, "no CUDA device cuda:%d: %s", ordinal, t->reason);
  if (ordinal >= 0 && ordinal < t->present)
    return zb_error_set(err, ZB_ENODEVICE, "CUDA device cuda:%d cannot be used: %s", ordinal,
                        t->dev[ordinal].why);
  return zb_error_set(err, ZB_ENODEVICE,
                      "no CUDA device cuda:%d (the runtime reports %d, cuda:0 to cuda:%d; "
                      "%d usable)",
                      ordinal, t->present, t->present - 1, t->usable);
}

int zb__cuda_device_save(const zb_cuda_rt *rt) {
  int d = -1;
  if (rt->get_device(&d) != 0) {
    d = -1;
    clear(rt);
  }
  return d;
}

void zb__cuda_device_restore(const zb_cuda_rt *rt, int saved) {
  int now = -1;
  if (saved >= 0 && rt->get_device(&now) == 0 && now != saved) (void)rt->set_device(saved);
  clear(rt);
}
