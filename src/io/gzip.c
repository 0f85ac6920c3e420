/*
 * gzip.c -- GZIP block decompression and compression for the Parquet
 * reader and writer, with zlib loaded at run time.
 *
 * Parquet's GZIP codec is a gzip stream (RFC 1952) per page; pyarrow
 * writes it with zlib's gzip wrapper.  zlib (libz.so.1; Debian: zlib1g)
 * is on every Linux system but its headers need not be: the few entry
 * points used here are declared below from zlib's long-stable ABI
 * (z_stream, inflateInit2_, inflate, inflateEnd, deflateInit2_, deflate,
 * deflateEnd, deflateBound) and resolved with dlsym the first time a GZIP
 * page is seen.  ZAMBEZI_LIBZ names another library file to load
 * instead.  Without zlib a GZIP page is ZB_ENOTSUP with a message naming
 * the codec and the package that provides it.
 *
 * Decompression accepts a gzip or zlib header (windowBits 15 + 32, as
 * Arrow's reader) and must produce exactly the page's stated size.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dynlib.h"
#include "io/codecs.h"
#include "zambezi/io.h"

/* zlib.h's z_stream (unchanged since zlib 1.0). */
typedef struct zlib_stream {
  const unsigned char *next_in;
  unsigned avail_in;
  unsigned long total_in;
  unsigned char *next_out;
  unsigned avail_out;
  unsigned long total_out;
  const char *msg;
  void *state;
  void *zalloc, *zfree, *opaque;
  int data_type;
  unsigned long adler;
  unsigned long reserved;
} zlib_stream;

enum { Z_OK = 0, Z_STREAM_END = 1, Z_FINISH = 4, Z_DEFLATED = 8, Z_BUF_ERROR = -5 };

static struct {
  pthread_once_t once;
  void *lib;
  int (*inflate_init2)(zlib_stream *, int, const char *, int); /* inflateInit2_ */
  int (*inflate)(zlib_stream *, int);
  int (*inflate_end)(zlib_stream *);
  int (*inflate_reset)(zlib_stream *);
  int (*deflate_init2)(zlib_stream *, int, int, int, int, int, const char *, int);
  int (*deflate)(zlib_stream *, int);
  int (*deflate_end)(zlib_stream *);
  unsigned long (*deflate_bound)(zlib_stream *, unsigned long);
  const char *(*version)(void); /* zlibVersion */
  char why[200];
} g_zlib = {PTHREAD_ONCE_INIT, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, {0}};

static void zlib_load(void) {
  static const char *const names[] = {"libz.so.1", "libz.so", "libz.1.dylib"};
  const zb__dynsym syms[] = {
      {"inflateInit2_", &g_zlib.inflate_init2}, {"inflate", &g_zlib.inflate},
      {"inflateEnd", &g_zlib.inflate_end},      {"inflateReset", &g_zlib.inflate_reset},
      {"deflateInit2_", &g_zlib.deflate_init2}, {"deflate", &g_zlib.deflate},
      {"deflateEnd", &g_zlib.deflate_end},      {"deflateBound", &g_zlib.deflate_bound},
      {"zlibVersion", &g_zlib.version},
  };
  g_zlib.lib = zb__dynlib_open("ZAMBEZI_LIBZ", names, 3, syms,
                               (int)(sizeof syms / sizeof syms[0]), g_zlib.why,
                               sizeof g_zlib.why);
}

bool zb_zlib_available(void) {
  pthread_once(&g_zlib.once, zlib_load);
  return g_zlib.lib != NULL;
}

static zb_status zlib_missing(zb_error *err, const char *what) {
  return zb_error_set(err, ZB_ENOTSUP,
                      "%s GZIP-compressed data needs the zlib library (%s): install it "
                      "(Debian/Ubuntu: apt install zlib1g; Fedora/RHEL: dnf install zlib; "
                      "macOS: part of the system) or set ZAMBEZI_LIBZ to its path",
                      what, g_zlib.why);
}

/* One inflate stream per thread, made on its first block and reset for
 * the next (a stream costs about 40 KiB of zlib's own allocations). */
static _Thread_local zlib_stream t_inflate;
static _Thread_local bool t_inflate_ready;

zb_status zb__gzip_block(const void *src, int64_t n, void *dst, int64_t cap, zb_error *err) {
  if (!zb_zlib_available()) return zlib_missing(err, "reading");
  if (n <= 0 || cap < 0 || n > UINT32_MAX || cap > UINT32_MAX)
    return zb_error_set(err, ZB_EPARSE, "corrupt gzip data: a block of %lld bytes", (long long)n);
  zlib_stream *s = &t_inflate;
  if (!t_inflate_ready) {
    memset(s, 0, sizeof *s);
    int rc = g_zlib.inflate_init2(s, 15 + 32, g_zlib.version(), (int)sizeof *s);
    if (rc != Z_OK) return zb_error_set(err, ZB_ENOMEM, "out of host memory (a gzip stream)");
    t_inflate_ready = true;
  } else if (g_zlib.inflate_reset(s) != Z_OK) {
    return zb_error_set(err, ZB_EPARSE, "gzip: the stream could not be reset");
  }
  unsigned char dummy;
  s->next_in = (const unsigned char *)src;
  s->avail_in = (unsigned)n;
  s->next_out = cap > 0 ? (unsigned char *)dst : &dummy;
  s->avail_out = (unsigned)cap;
  int rc = g_zlib.inflate(s, Z_FINISH);
  int64_t got = cap - (int64_t)s->avail_out;
  if (rc == Z_STREAM_END && got == cap) return ZB_OK;
  if (rc == Z_STREAM_END)
    return zb_error_set(err, ZB_EPARSE,
                        "corrupt gzip data: it holds %lld bytes where %lld are expected",
                        (long long)got, (long long)cap);
  if (rc == Z_BUF_ERROR && s->avail_out == 0)
    return zb_error_set(err, ZB_EPARSE, "corrupt gzip data: it holds more than the %lld bytes "
                        "expected", (long long)cap);
  return zb_error_set(err, ZB_EPARSE, "corrupt gzip data: %s",
                      s->msg != NULL ? s->msg : "truncated");
}

int64_t zb__gzip_bound(int64_t n) {
  if (!zb_zlib_available() || n < 0) return -1;
  /* deflateBound's stored-blocks bound plus the gzip wrapper, without a stream */
  return n + (n >> 12) + (n >> 14) + (n >> 25) + 13 + 18 + 64;
}

zb_status zb__gzip_compress(const void *src, int64_t n, int level, void *dst, int64_t cap,
                            int64_t *len, zb_error *err) {
  if (!zb_zlib_available()) return zlib_missing(err, "writing");
  if (n < 0 || n > UINT32_MAX || cap > UINT32_MAX)
    return zb_error_set(err, ZB_EINVAL, "gzip: a block of %lld bytes", (long long)n);
  zlib_stream s;
  memset(&s, 0, sizeof s);
  /* windowBits 15 + 16: a gzip wrapper; memLevel 8, default strategy */
  if (g_zlib.deflate_init2(&s, level, Z_DEFLATED, 15 + 16, 8, 0, g_zlib.version(),
                           (int)sizeof s) != Z_OK)
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (a gzip stream)");
  unsigned char dummy = 0;
  s.next_in = n > 0 ? (const unsigned char *)src : &dummy;
  s.avail_in = (unsigned)n;
  s.next_out = (unsigned char *)dst;
  s.avail_out = (unsigned)cap;
  int rc = g_zlib.deflate(&s, Z_FINISH);
  int64_t got = cap - (int64_t)s.avail_out;
  g_zlib.deflate_end(&s);
  if (rc != Z_STREAM_END)
    return zb_error_set(err, ZB_EINVAL, "gzip compression failed (%lld bytes, code %d)",
                        (long long)n, rc);
  *len = got;
  return ZB_OK;
}
