/*
 * pcre2.c -- libpcre2-8 loaded at run time for the regex kernels
 * (src/cpu/regex.c).
 *
 * PCRE2 is kept by the PCRE2 project and installed nearly everywhere
 * (Debian/Ubuntu: libpcre2-8-0, a dependency of grep; Fedora: pcre2;
 * Homebrew: pcre2).  It is used, not rewritten (DESIGN.md section 6), and
 * loaded with dlopen the first time a regular expression runs, so neither
 * building nor importing zambezi needs it.  ZAMBEZI_LIBPCRE2 names another
 * library file to load instead (the tests point it at a missing file to
 * check the error).  Without it a regex operation is ZB_ENOTSUP with a
 * message saying how to install it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dynlib.h"
#include "cpu/pcre2_lib.h"
#include "zambezi/regex.h"

static struct {
  pthread_once_t once;
  void *lib;
  zb__pcre2_api api;
  char why[240];
} g_pcre2 = {PTHREAD_ONCE_INIT, NULL, {0}, {0}};

static void pcre2_load(void) {
  static const char *const names[] = {"libpcre2-8.so.0", "libpcre2-8.so", "libpcre2-8.0.dylib"};
  zb__pcre2_api *a = &g_pcre2.api;
  const zb__dynsym syms[] = {
      {"pcre2_compile_8", &a->compile},
      {"pcre2_code_free_8", &a->code_free},
      {"pcre2_jit_compile_8", &a->jit_compile},
      {"pcre2_match_data_create_from_pattern_8", &a->match_data_create_from_pattern},
      {"pcre2_match_data_free_8", &a->match_data_free},
      {"pcre2_match_8", &a->match},
      {"pcre2_get_ovector_pointer_8", &a->get_ovector_pointer},
      {"pcre2_get_error_message_8", &a->get_error_message},
      {"pcre2_pattern_info_8", &a->pattern_info},
  };
  g_pcre2.lib = zb__dynlib_open("ZAMBEZI_LIBPCRE2", names, 3, syms,
                                (int)(sizeof syms / sizeof syms[0]), g_pcre2.why,
                                sizeof g_pcre2.why);
}

bool zb_regex_available(void) {
  pthread_once(&g_pcre2.once, pcre2_load);
  return g_pcre2.lib != NULL;
}

const zb__pcre2_api *zb__pcre2(zb_error *err) {
  if (zb_regex_available()) return &g_pcre2.api;
  zb_error_set(err, ZB_ENOTSUP,
               "regular expressions need the PCRE2 library libpcre2-8 (%s): install it "
               "(Debian/Ubuntu: apt install libpcre2-8-0; Fedora/RHEL: dnf install pcre2; "
               "macOS: brew install pcre2) or set ZAMBEZI_LIBPCRE2 to its path",
               g_pcre2.why);
  return NULL;
}
