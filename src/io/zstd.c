/*
 * zstd.c -- zstd decompression for the readers and block compression for
 * the Parquet writer, with libzstd loaded at run
 * time.
 *
 * libzstd's shared library (libzstd.so.1) is on nearly every Linux system,
 * but its headers often are not, and a build must not need them: the few
 * streaming entry points used here are declared below from zstd's stable
 * ABI (ZSTD_inBuffer / ZSTD_outBuffer and the functions zstd.h marks
 * stable) and resolved with dlsym the first time a zstd input is seen.
 * ZAMBEZI_LIBZSTD names another library file to load instead.  Without
 * libzstd every zstd input is ZB_ENOTSUP, with a message saying how to
 * install it; nothing else in the engine depends on it.
 *
 * Decompression streams from the (typically memory-mapped) compressed bytes
 * into one growing host buffer: presized from the first frame's content
 * size when the frame records it (the zstd tool does for files), grown
 * geometrically otherwise.  Several concatenated frames are one stream.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "core/dynlib.h"
#include "io/codecs.h"
#include "zambezi/io.h"

/* zstd's stable ABI (zstd.h, "stable API"). */
typedef struct zstd_in {
  const void *src;
  size_t size;
  size_t pos;
} zstd_in;
typedef struct zstd_out {
  void *dst;
  size_t size;
  size_t pos;
} zstd_out;
#define ZSTD_CONTENTSIZE_UNKNOWN (0ULL - 1)
#define ZSTD_CONTENTSIZE_ERROR (0ULL - 2)

static struct {
  pthread_once_t once;
  void *lib;
  void *(*create)(void);                     /* ZSTD_createDStream */
  size_t (*release)(void *);                 /* ZSTD_freeDStream */
  size_t (*decompress)(void *, zstd_out *, zstd_in *); /* ZSTD_decompressStream */
  unsigned (*is_error)(size_t);              /* ZSTD_isError */
  const char *(*error_name)(size_t);         /* ZSTD_getErrorName */
  unsigned long long (*content_size)(const void *, size_t); /* ZSTD_getFrameContentSize */
  void *(*create_dctx)(void);                                 /* ZSTD_createDCtx */
  size_t (*one_shot)(void *, void *, size_t, const void *, size_t); /* ZSTD_decompressDCtx */
  void *(*create_cctx)(void);                                       /* ZSTD_createCCtx */
  size_t (*compress)(void *, void *, size_t, const void *, size_t, int); /* ZSTD_compressCCtx */
  size_t (*bound)(size_t);                                              /* ZSTD_compressBound */
  char why[200];
} g_zstd = {PTHREAD_ONCE_INIT, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
            NULL, NULL, NULL, {0}};

static void zstd_load(void) {
  static const char *const names[] = {"libzstd.so.1", "libzstd.so", "libzstd.1.dylib"};
  const zb__dynsym syms[] = {
      {"ZSTD_createDStream", &g_zstd.create},
      {"ZSTD_freeDStream", &g_zstd.release},
      {"ZSTD_decompressStream", &g_zstd.decompress},
      {"ZSTD_isError", &g_zstd.is_error},
      {"ZSTD_getErrorName", &g_zstd.error_name},
      {"ZSTD_getFrameContentSize", &g_zstd.content_size},
      {"ZSTD_createDCtx", &g_zstd.create_dctx},
      {"ZSTD_decompressDCtx", &g_zstd.one_shot},
      {"ZSTD_createCCtx", &g_zstd.create_cctx},
      {"ZSTD_compressCCtx", &g_zstd.compress},
      {"ZSTD_compressBound", &g_zstd.bound},
  };
  g_zstd.lib = zb__dynlib_open("ZAMBEZI_LIBZSTD", names, 3, syms,
                               (int)(sizeof syms / sizeof syms[0]), g_zstd.why,
                               sizeof g_zstd.why);
}

zb_compression zb_compression_detect(const void *data, int64_t size) {
  const unsigned char *p = (const unsigned char *)data;
  if (p == NULL || size < 2) return ZB_COMPRESSION_NONE;
  if (p[0] == 0x1f && p[1] == 0x8b) return ZB_COMPRESSION_GZIP;
  if (size >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
    return ZB_COMPRESSION_ZSTD;
  return ZB_COMPRESSION_NONE;
}

bool zb_zstd_available(void) {
  pthread_once(&g_zstd.once, zstd_load);
  return g_zstd.lib != NULL;
}

static zb_status zstd_missing(zb_error *err) {
  return zb_error_set(err, ZB_ENOTSUP,
                      "reading zstd-compressed data needs the libzstd library (%s): install "
                      "it (Debian/Ubuntu: apt install libzstd1; Fedora/RHEL: dnf install "
                      "libzstd; macOS: brew install zstd) or set ZAMBEZI_LIBZSTD to its path",
                      g_zstd.why);
}

/* One decompression context per thread, made on its first block and kept
 * for the thread's life (the pool's threads live as long as the process):
 * a context costs an allocation of about 100 KiB, too much per page. */
static _Thread_local void *t_dctx;

/* One block of known decompressed size (a Parquet page):
 * ZSTD_decompressDCtx writes at most cap bytes, so a frame that claims
 * more fails cleanly. */
zb_status zb__zstd_block(const void *src, int64_t n, void *dst, int64_t cap, zb_error *err) {
  if (!zb_zstd_available()) return zstd_missing(err);
  if (n <= 0 || cap < 0) return zb_error_set(err, ZB_EPARSE, "corrupt zstd data: empty block");
  if (t_dctx == NULL && (t_dctx = g_zstd.create_dctx()) == NULL)
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (a zstd context)");
  char dummy;
  size_t got = g_zstd.one_shot(t_dctx, cap > 0 ? dst : &dummy, (size_t)cap, src, (size_t)n);
  if (g_zstd.is_error(got))
    return zb_error_set(err, ZB_EPARSE, "corrupt zstd data: %s", g_zstd.error_name(got));
  if ((int64_t)got != cap)
    return zb_error_set(err, ZB_EPARSE,
                        "corrupt zstd data: it holds %zu bytes where %lld are expected", got,
                        (long long)cap);
  return ZB_OK;
}

/* Output is handed to libzstd in windows of this many bytes, so that a
 * cancellation request is seen between them. */
#define ZSTD_STEP ((size_t)64 << 20)

zb_status zb_zstd_decompress(const void *data, int64_t size, volatile int *cancel,
                             zb_buffer **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "zstd: out is NULL");
  *out = NULL;
  if (size < 0 || (data == NULL && size > 0))
    return zb_error_set(err, ZB_EINVAL, "zstd: invalid buffer (size %lld)", (long long)size);
  if (!zb_zstd_available()) return zstd_missing(err);
  unsigned long long known = size > 0 ? g_zstd.content_size(data, (size_t)size)
                                      : ZSTD_CONTENTSIZE_ERROR;
  if (known == ZSTD_CONTENTSIZE_ERROR)
    return zb_error_set(err, ZB_EPARSE, "corrupt zstd data: no valid frame header");
  size_t cap;
  if (known != ZSTD_CONTENTSIZE_UNKNOWN && known < (unsigned long long)INT64_MAX / 2)
    cap = (size_t)known + 1; /* + 1: a later frame shows up as output space used */
  else
    cap = (size_t)size * 4 + ((size_t)1 << 20);
  char *buf = (char *)zb_malloc(cap);
  void *ds = g_zstd.create();
  zb_status st = ZB_OK;
  if (buf == NULL || ds == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (zstd: %zu bytes)", cap);
    goto done;
  }
  zstd_in in = {data, (size_t)size, 0};
  size_t pos = 0, ret = 1;
  for (;;) {
    if (cancel != NULL && *cancel) {
      st = zb_error_set(err, ZB_ECANCEL, "zstd decompression cancelled");
      goto done;
    }
    if (pos == cap) { /* grow by half again (the ratio so far predicts the rest) */
      size_t ncap = cap + cap / 2 + ((size_t)1 << 20);
      if (in.pos > 0 && in.pos < in.size) {
        double ratio = (double)pos / (double)in.pos;
        size_t est = (size_t)(ratio * (double)in.size * 1.05) + ((size_t)1 << 20);
        if (est > ncap) ncap = est;
      }
      char *nb = (char *)zb_malloc(ncap);
      if (nb == NULL) {
        st = zb_error_set(err, ZB_ENOMEM, "out of host memory (zstd: %zu bytes)", ncap);
        goto done;
      }
      memcpy(nb, buf, pos);
      zb_free(buf);
      buf = nb;
      cap = ncap;
    }
    size_t window = cap - pos < ZSTD_STEP ? cap - pos : ZSTD_STEP;
    zstd_out o = {buf + pos, window, 0};
    size_t in_before = in.pos;
    ret = g_zstd.decompress(ds, &o, &in);
    if (g_zstd.is_error(ret)) {
      st = zb_error_set(err, ZB_EPARSE, "corrupt zstd data (at compressed byte %zu): %s",
                        in.pos, g_zstd.error_name(ret));
      goto done;
    }
    pos += o.pos;
    if (in.pos == in.size) {
      if (ret == 0) break; /* every frame complete and flushed */
      if (o.pos == 0 && in.pos == in_before) { /* no progress: the data stops mid-frame */
        st = zb_error_set(err, ZB_EPARSE,
                          "truncated zstd data: the input ends inside a frame (%lld bytes "
                          "read, %zu decompressed)",
                          (long long)size, pos);
        goto done;
      }
    }
  }
  if (cap - pos > cap / 4) { /* the size was guessed: give the slack back */
    char *nb = (char *)zb_malloc(pos > 0 ? pos : 1);
    if (nb != NULL) {
      memcpy(nb, buf, pos);
      zb_free(buf);
      buf = nb;
    }
  }
  st = zb_buffer_wrap(ZB_CPU, buf, (int64_t)pos, zb__release_zb_malloc, NULL, out, err);
  if (st == ZB_OK) buf = NULL;
done:
  if (ds != NULL) g_zstd.release(ds);
  zb_free(buf);
  return st;
}

/* Compression contexts, one per thread as for decompression. */
static _Thread_local void *t_cctx;

int64_t zb__zstd_bound(int64_t n) {
  if (!zb_zstd_available() || n < 0) return -1;
  return (int64_t)g_zstd.bound((size_t)n);
}

zb_status zb__zstd_compress(const void *src, int64_t n, int level, void *dst, int64_t cap,
                            int64_t *len, zb_error *err) {
  if (!zb_zstd_available())
    return zb_error_set(err, ZB_ENOTSUP,
                        "writing zstd-compressed data needs the libzstd library (%s): install "
                        "it (Debian/Ubuntu: apt install libzstd1; Fedora/RHEL: dnf install "
                        "libzstd; macOS: brew install zstd) or set ZAMBEZI_LIBZSTD to its path",
                        g_zstd.why);
  if (t_cctx == NULL && (t_cctx = g_zstd.create_cctx()) == NULL)
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (a zstd context)");
  size_t got = g_zstd.compress(t_cctx, dst, (size_t)cap, src, (size_t)n, level);
  if (g_zstd.is_error(got))
    return zb_error_set(err, ZB_EINVAL, "zstd compression failed: %s", g_zstd.error_name(got));
  *len = (int64_t)got;
  return ZB_OK;
}
