/*
 * snappy.c -- snappy decompression for the readers and compression for
 * the Parquet writer, with libsnappy loaded
 * at run time.
 *
 * pyarrow, pandas and polars write Parquet with snappy by default, so a
 * reader must decode it.  Snappy is kept by Google as libsnappy (Debian:
 * libsnappy1v5; Fedora: snappy; Homebrew: snappy); its C API (snappy-c.h:
 * snappy_uncompressed_length, snappy_uncompress, snappy_compress,
 * snappy_max_compressed_length) has been stable since
 * 2011.  It is used, not rewritten (DESIGN.md section 6), and loaded with
 * dlopen the first time a snappy block is seen, so that neither building
 * nor importing zambezi needs it.  ZAMBEZI_LIBSNAPPY names another library
 * file to load instead.  Without it a snappy block is ZB_ENOTSUP with a
 * message saying how to install it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dynlib.h"
#include "io/codecs.h"
#include "zambezi/io.h"

/* snappy-c.h: snappy_status is an int enum, SNAPPY_OK = 0. */
static struct {
  pthread_once_t once;
  void *lib;
  int (*length)(const char *, size_t, size_t *);            /* snappy_uncompressed_length */
  int (*uncompress)(const char *, size_t, char *, size_t *); /* snappy_uncompress */
  int (*compress)(const char *, size_t, char *, size_t *);   /* snappy_compress */
  size_t (*bound)(size_t);                                   /* snappy_max_compressed_length */
  char why[200];
} g_snappy = {PTHREAD_ONCE_INIT, NULL, NULL, NULL, NULL, NULL, {0}};

static void snappy_load(void) {
  static const char *const names[] = {"libsnappy.so.1", "libsnappy.so", "libsnappy.1.dylib"};
  const zb__dynsym syms[] = {
      {"snappy_uncompressed_length", &g_snappy.length},
      {"snappy_uncompress", &g_snappy.uncompress},
      {"snappy_compress", &g_snappy.compress},
      {"snappy_max_compressed_length", &g_snappy.bound},
  };
  g_snappy.lib = zb__dynlib_open("ZAMBEZI_LIBSNAPPY", names, 3, syms,
                                 (int)(sizeof syms / sizeof syms[0]), g_snappy.why,
                                 sizeof g_snappy.why);
}

bool zb_snappy_available(void) {
  pthread_once(&g_snappy.once, snappy_load);
  return g_snappy.lib != NULL;
}

zb_status zb__snappy_block(const void *src, int64_t n, void *dst, int64_t cap, zb_error *err) {
  if (!zb_snappy_available())
    return zb_error_set(err, ZB_ENOTSUP,
                        "reading snappy-compressed data needs the libsnappy library (%s): "
                        "install it (Debian/Ubuntu: apt install libsnappy1v5; Fedora/RHEL: "
                        "dnf install snappy; macOS: brew install snappy) or set "
                        "ZAMBEZI_LIBSNAPPY to its path",
                        g_snappy.why);
  size_t len = 0;
  if (n < 0 || cap < 0 || g_snappy.length((const char *)src, (size_t)n, &len) != 0)
    return zb_error_set(err, ZB_EPARSE, "corrupt snappy data: no valid length header");
  if ((int64_t)len != cap)
    return zb_error_set(err, ZB_EPARSE,
                        "corrupt snappy data: it holds %zu bytes where %lld are expected", len,
                        (long long)cap);
  size_t got = (size_t)cap;
  char dummy;
  if (g_snappy.uncompress((const char *)src, (size_t)n, cap > 0 ? (char *)dst : &dummy, &got) !=
          0 ||
      (int64_t)got != cap)
    return zb_error_set(err, ZB_EPARSE, "corrupt snappy data");
  return ZB_OK;
}

static zb_status snappy_missing(zb_error *err, const char *what) {
  return zb_error_set(err, ZB_ENOTSUP,
                      "%s snappy-compressed data needs the libsnappy library (%s): "
                      "install it (Debian/Ubuntu: apt install libsnappy1v5; Fedora/RHEL: "
                      "dnf install snappy; macOS: brew install snappy) or set "
                      "ZAMBEZI_LIBSNAPPY to its path",
                      what, g_snappy.why);
}

int64_t zb__snappy_bound(int64_t n) {
  if (!zb_snappy_available() || n < 0) return -1;
  return (int64_t)g_snappy.bound((size_t)n);
}

zb_status zb__snappy_compress(const void *src, int64_t n, void *dst, int64_t cap, int64_t *len,
                              zb_error *err) {
  if (!zb_snappy_available()) return snappy_missing(err, "writing");
  size_t got = (size_t)cap;
  if (g_snappy.compress((const char *)src, (size_t)n, (char *)dst, &got) != 0)
    return zb_error_set(err, ZB_EINVAL, "snappy compression failed (%lld bytes)", (long long)n);
  *len = (int64_t)got;
  return ZB_OK;
}
