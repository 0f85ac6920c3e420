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
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/pcre2_lib.h"
#include "zambezi/regex.h"

static struct {
  pthread_once_t once;
  void *lib;
  zb__pcre2_api api;
  char why[240];
} g_pcre2 = {PTHREAD_ONCE_INIT, NULL, {0}, {0}};

/* One symbol into *slot; false when missing. */
static bool sym(void *lib, const char *name, void *slot) {
  void *p = dlsym(lib, name);
  if (p == NULL) return false;
  memcpy(slot, &p, sizeof p); /* POSIX: dlsym results convert to functions */
  return true;
}

static void pcre2_load(void) {
  const char *env = getenv("ZAMBEZI_LIBPCRE2");
  const char *names[3] = {"libpcre2-8.so.0", "libpcre2-8.so", "libpcre2-8.0.dylib"};
  int n = 3;
  if (env != NULL && *env != '\0') {
    names[0] = env;
    n = 1;
  }
  void *lib = NULL;
  for (int i = 0; i < n && lib == NULL; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    snprintf(g_pcre2.why, sizeof g_pcre2.why, "%s could not be loaded", names[0]);
    return;
  }
  zb__pcre2_api *a = &g_pcre2.api;
  if (!sym(lib, "pcre2_compile_8", &a->compile) ||
      !sym(lib, "pcre2_code_free_8", &a->code_free) ||
      !sym(lib, "pcre2_jit_compile_8", &a->jit_compile) ||
      !sym(lib, "pcre2_match_data_create_from_pattern_8", &a->match_data_create_from_pattern) ||
      !sym(lib, "pcre2_match_data_free_8", &a->match_data_free) ||
      !sym(lib, "pcre2_match_8", &a->match) ||
      !sym(lib, "pcre2_get_ovector_pointer_8", &a->get_ovector_pointer) ||
      !sym(lib, "pcre2_get_error_message_8", &a->get_error_message) ||
      !sym(lib, "pcre2_pattern_info_8", &a->pattern_info)) {
    snprintf(g_pcre2.why, sizeof g_pcre2.why, "%s lacks PCRE2's 8-bit C API", names[0]);
    memset(a, 0, sizeof *a);
    dlclose(lib);
    return;
  }
  g_pcre2.lib = lib;
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
