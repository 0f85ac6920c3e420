/*
 * lz4.c -- LZ4 frame compression and decompression (the LZ4_FRAME codec of
 * Arrow IPC bodies), with liblz4 loaded at run time.
 *
 * liblz4.so.1 is on most Linux systems (a dependency of systemd), but its
 * headers often are not, and a build must not need them: the few frame
 * entry points used here are declared below from lz4frame.h's stable ABI
 * and resolved with dlsym the first time they are needed.  ZAMBEZI_LIBLZ4
 * names another library file to load instead.  Without liblz4 every LZ4
 * input or output is ZB_ENOTSUP with a message saying how to install it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/dynlib.h"
#include "core/internal.h"
#include "io/codecs.h"
#include "zambezi/io.h"

#define LZ4F_VERSION 100 /* lz4frame.h: the version a context is created for */

static struct {
  pthread_once_t once;
  void *lib;
  unsigned (*is_error)(size_t);                      /* LZ4F_isError */
  const char *(*error_name)(size_t);                 /* LZ4F_getErrorName */
  size_t (*create_dctx)(void **, unsigned);          /* LZ4F_createDecompressionContext */
  size_t (*free_dctx)(void *);                       /* LZ4F_freeDecompressionContext */
  size_t (*decompress)(void *, void *, size_t *, const void *, size_t *,
                       const void *);                /* LZ4F_decompress */
  size_t (*bound)(size_t, const void *);             /* LZ4F_compressFrameBound */
  size_t (*compress)(void *, size_t, const void *, size_t, const void *); /* LZ4F_compressFrame */
  char why[200];
} g_lz4 = {PTHREAD_ONCE_INIT, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, {0}};

static void lz4_load(void) {
  static const char *const names[] = {"liblz4.so.1", "liblz4.so", "liblz4.1.dylib"};
  const zb__dynsym syms[] = {
      {"LZ4F_isError", &g_lz4.is_error},
      {"LZ4F_getErrorName", &g_lz4.error_name},
      {"LZ4F_createDecompressionContext", &g_lz4.create_dctx},
      {"LZ4F_freeDecompressionContext", &g_lz4.free_dctx},
      {"LZ4F_decompress", &g_lz4.decompress},
      {"LZ4F_compressFrameBound", &g_lz4.bound},
      {"LZ4F_compressFrame", &g_lz4.compress},
  };
  g_lz4.lib = zb__dynlib_open("ZAMBEZI_LIBLZ4", names, 3, syms,
                              (int)(sizeof syms / sizeof syms[0]), g_lz4.why, sizeof g_lz4.why);
}

bool zb_lz4_available(void) {
  pthread_once(&g_lz4.once, lz4_load);
  return g_lz4.lib != NULL;
}

static zb_status lz4_missing(const char *what, zb_error *err) {
  return zb_error_set(err, ZB_ENOTSUP,
                      "%s LZ4-compressed data needs the liblz4 library (%s): install it "
                      "(Debian/Ubuntu: apt install liblz4-1; Fedora/RHEL: dnf install lz4-libs; "
                      "macOS: brew install lz4) or set ZAMBEZI_LIBLZ4 to its path",
                      what, g_lz4.why);
}

/* One decompression context per thread, kept for the thread's life; a
 * context that saw an error is dropped (its state is undefined). */
static _Thread_local void *t_dctx;

zb_status zb__lz4frame_block(const void *src, int64_t n, void *dst, int64_t cap,
                             zb_error *err) {
  if (!zb_lz4_available()) return lz4_missing("reading", err);
  if (n <= 0 || cap < 0) return zb_error_set(err, ZB_EPARSE, "corrupt LZ4 data: empty block");
  if (t_dctx == NULL && g_lz4.is_error(g_lz4.create_dctx(&t_dctx, LZ4F_VERSION))) {
    t_dctx = NULL;
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (an LZ4 context)");
  }
  const char *in = (const char *)src;
  char *out = (char *)dst;
  int64_t ipos = 0, opos = 0;
  size_t ret = 0;
  while (ipos < n) {
    size_t isz = (size_t)(n - ipos), osz = (size_t)(cap - opos);
    ret = g_lz4.decompress(t_dctx, out + opos, &osz, in + ipos, &isz, NULL);
    if (g_lz4.is_error(ret)) {
      zb_status st =
          zb_error_set(err, ZB_EPARSE, "corrupt LZ4 data: %s", g_lz4.error_name(ret));
      g_lz4.free_dctx(t_dctx);
      t_dctx = NULL;
      return st;
    }
    ipos += (int64_t)isz;
    opos += (int64_t)osz;
    if (isz == 0 && osz == 0) break; /* no progress: output full, or input ends mid-frame */
  }
  if (ret != 0 || opos != cap || ipos != n) {
    g_lz4.free_dctx(t_dctx);
    t_dctx = NULL;
    return zb_error_set(err, ZB_EPARSE,
                        "corrupt LZ4 data: it does not hold exactly the %lld bytes expected",
                        (long long)cap);
  }
  return ZB_OK;
}

int64_t zb__lz4frame_bound(int64_t n) {
  if (!zb_lz4_available() || n < 0) return -1;
  return (int64_t)g_lz4.bound((size_t)n, NULL);
}

zb_status zb__lz4frame_compress(const void *src, int64_t n, void *dst, int64_t cap,
                                int64_t *len, zb_error *err) {
  if (!zb_lz4_available()) return lz4_missing("writing", err);
  size_t got = g_lz4.compress(dst, (size_t)cap, src, (size_t)n, NULL);
  if (g_lz4.is_error(got))
    return zb_error_set(err, ZB_EINVAL, "LZ4 compression failed: %s", g_lz4.error_name(got));
  *len = (int64_t)got;
  return ZB_OK;
}
