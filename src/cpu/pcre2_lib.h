/*
 * pcre2_lib.h -- the part of PCRE2's 8-bit C API (pcre2.h) that the regex
 * kernels use, declared here because libpcre2-8 is loaded at run time
 * (src/cpu/pcre2.c) and its headers need not be installed.  The option
 * values are PCRE2's (stable since 10.0; MATCH_INVALID_UTF since 10.34).
 */
#ifndef ZAMBEZI_CPU_PCRE2_LIB_H
#define ZAMBEZI_CPU_PCRE2_LIB_H

#include <stddef.h>
#include <stdint.h>

#include "zambezi/zambezi.h"

#define ZB_PCRE2_ANCHORED 0x80000000u
#define ZB_PCRE2_NO_UTF_CHECK 0x40000000u
#define ZB_PCRE2_ENDANCHORED 0x20000000u
#define ZB_PCRE2_ALT_BSUX 0x00000002u
#define ZB_PCRE2_CASELESS 0x00000008u
#define ZB_PCRE2_DOTALL 0x00000020u
#define ZB_PCRE2_EXTENDED 0x00000080u
#define ZB_PCRE2_MULTILINE 0x00000400u
#define ZB_PCRE2_UCP 0x00020000u
#define ZB_PCRE2_ALT_CIRCUMFLEX 0x00200000u
#define ZB_PCRE2_UTF 0x00080000u
#define ZB_PCRE2_LITERAL 0x02000000u
#define ZB_PCRE2_MATCH_INVALID_UTF 0x04000000u
#define ZB_PCRE2_JIT_COMPLETE 0x00000001u
#define ZB_PCRE2_NOTEMPTY_ATSTART 0x00000008u
#define ZB_PCRE2_ERROR_NOMATCH (-1)
#define ZB_PCRE2_INFO_CAPTURECOUNT 4
#define ZB_PCRE2_UNSET (~(size_t)0)

typedef struct zb__pcre2_api {
  void *(*compile)(const unsigned char *, size_t, uint32_t, int *, size_t *, void *);
  void (*code_free)(void *);
  int (*jit_compile)(void *, uint32_t);
  void *(*match_data_create_from_pattern)(const void *, void *);
  void (*match_data_free)(void *);
  int (*match)(const void *, const unsigned char *, size_t, size_t, uint32_t, void *, void *);
  size_t *(*get_ovector_pointer)(void *);
  int (*get_error_message)(int, unsigned char *, size_t);
  int (*pattern_info)(const void *, uint32_t, void *);
} zb__pcre2_api;

/* The loaded API, or NULL with err set to ZB_ENOTSUP naming the library
 * and how to install it. */
const zb__pcre2_api *zb__pcre2(zb_error *err);

#endif /* ZAMBEZI_CPU_PCRE2_LIB_H */
