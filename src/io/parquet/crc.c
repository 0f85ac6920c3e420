/*
 * crc.c -- CRC-32 of a page, as Parquet defines a page header's crc: the
 * CRC-32 of gzip and zlib (ISO 3309 / ITU-T V.42, reflected polynomial
 * 0xEDB88320, initial value and final xor 0xFFFFFFFF) over the page's
 * bytes as stored (after compression), levels included for a v2 page.
 *
 * Slicing-by-8: eight 256-entry tables, made once, take eight bytes per
 * step.
 */
#include <pthread.h>
#include <string.h>

#include "io/parquet/parquet.h"

static uint32_t g_crc[8][256];
static pthread_once_t g_crc_once = PTHREAD_ONCE_INIT;

static void crc_tables(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    g_crc[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; i++)
    for (int t = 1; t < 8; t++) g_crc[t][i] = (g_crc[t - 1][i] >> 8) ^ g_crc[0][g_crc[t - 1][i] & 0xff];
}

uint32_t zb__pq_crc32(const uint8_t *p, int64_t n) { return zb__pq_crc32_update(0, p, n); }

uint32_t zb__pq_crc32_update(uint32_t crc, const uint8_t *p, int64_t n) {
  pthread_once(&g_crc_once, crc_tables);
  uint32_t c = crc ^ 0xFFFFFFFFu;
  while (n >= 8) {
    uint32_t a, b;
    memcpy(&a, p, 4);
    memcpy(&b, p + 4, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    a = __builtin_bswap32(a);
    b = __builtin_bswap32(b);
#endif
    a ^= c;
    c = g_crc[7][a & 0xff] ^ g_crc[6][(a >> 8) & 0xff] ^ g_crc[5][(a >> 16) & 0xff] ^
        g_crc[4][a >> 24] ^ g_crc[3][b & 0xff] ^ g_crc[2][(b >> 8) & 0xff] ^
        g_crc[1][(b >> 16) & 0xff] ^ g_crc[0][b >> 24];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) c = g_crc[0][(c ^ *p++) & 0xff] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}
