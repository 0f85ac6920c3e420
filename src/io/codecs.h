/*
 * codecs.h -- one-shot block decompression for the readers (internal): a
 * compressed block whose decompressed size is known in advance (a Parquet
 * page) is decoded into a buffer the caller sized.  The libraries are
 * loaded at run time (zstd.c: libzstd; snappy.c: libsnappy; lz4.c: liblz4;
 * gzip.c: zlib), so no build
 * needs their headers and a machine without them fails only on input that
 * uses them, with a message saying how to install them.
 */
#ifndef ZAMBEZI_IO_CODECS_H
#define ZAMBEZI_IO_CODECS_H

#include "core/internal.h"

/* Decompress exactly one block src[0, n) into dst[0, cap): succeeds only
 * if the result is exactly cap bytes.  ZB_ENOTSUP (how to install the
 * library) when it is missing, ZB_EPARSE for corrupt data or another
 * size; the message names the codec only (the caller adds where). */
zb_status zb__zstd_block(const void *src, int64_t n, void *dst, int64_t cap, zb_error *err);
zb_status zb__snappy_block(const void *src, int64_t n, void *dst, int64_t cap, zb_error *err);

/* Compression of one block (the Parquet writer): *bound functions give the
 * largest output for n input bytes, or -1 when the library is missing;
 * compress writes into dst[0, cap) (cap at least the bound) and sets *len.
 * ZB_ENOTSUP (how to install the library) when it is missing. */
int64_t zb__zstd_bound(int64_t n);
zb_status zb__zstd_compress(const void *src, int64_t n, int level, void *dst, int64_t cap,
                            int64_t *len, zb_error *err);
int64_t zb__snappy_bound(int64_t n);
zb_status zb__snappy_compress(const void *src, int64_t n, void *dst, int64_t cap, int64_t *len,
                              zb_error *err);

/* LZ4 frames (Arrow IPC's LZ4_FRAME codec; lz4.c: liblz4 loaded at run
 * time), with the same contracts as the zstd functions above. */
zb_status zb__lz4frame_block(const void *src, int64_t n, void *dst, int64_t cap, zb_error *err);
int64_t zb__lz4frame_bound(int64_t n);
zb_status zb__lz4frame_compress(const void *src, int64_t n, void *dst, int64_t cap,
                                int64_t *len, zb_error *err);
/* GZIP (gzip.c: zlib loaded at run time).  The block functions take a
 * gzip (or zlib) stream; compress writes a gzip stream at level (1..9,
 * -1 zlib's default). */
zb_status zb__gzip_block(const void *src, int64_t n, void *dst, int64_t cap, zb_error *err);
int64_t zb__gzip_bound(int64_t n);
zb_status zb__gzip_compress(const void *src, int64_t n, int level, void *dst, int64_t cap,
                            int64_t *len, zb_error *err);

#endif /* ZAMBEZI_IO_CODECS_H */
