/*
 * error.c -- status codes and error messages.
 *
 * A zb_status is an errno-style int; a zb_error, when the caller passed one,
 * receives a formatted message.  Nothing here allocates, so reporting an
 * out-of-memory condition can never itself fail.
 */
#include <stdarg.h>
#include <stdio.h>

#include "core/internal.h"

const zb_device ZB_CPU = {ZB_DEVICE_CPU, 0};

zb_status zb_error_set(zb_error *err, zb_status code, const char *fmt, ...) {
  if (err != NULL && fmt != NULL) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return code;
}

const char *zb_status_name(zb_status code) {
  static const char *const names[ZB_STATUS_COUNT] = {
      "ZB_OK",     "ZB_EINVAL",   "ZB_ETYPE",  "ZB_ENOMEM",
      "ZB_EINDEX", "ZB_EKEY",     "ZB_ENOTSUP", "ZB_EDEVICE",
      "ZB_EIO",    "ZB_EOVERFLOW", "ZB_ECANCEL", "ZB_EPARSE",
      "ZB_ENODEVICE"};
  if (code < 0 || code >= ZB_STATUS_COUNT) return "ZB_UNKNOWN";
  return names[code];
}

const char *zb_version(void) { return ZB_VERSION_STRING; }
