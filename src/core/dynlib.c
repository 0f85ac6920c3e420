/*
 * dynlib.c -- run-time loading of optional C libraries (dynlib.h).
 */
#include "core/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *zb__dynlib_open(const char *env_var, const char *const *names, int n_names,
                      const zb__dynsym *syms, int n_syms, char *why, size_t why_size) {
  const char *env = getenv(env_var);
  const char *first = names[0];
  void *lib = NULL;
  if (env != NULL && *env != '\0') {
    first = env;
    lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
  } else {
    for (int i = 0; i < n_names && lib == NULL; i++) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  }
  if (lib == NULL) {
    snprintf(why, why_size, "%s could not be loaded", first);
    return NULL;
  }
  for (int i = 0; i < n_syms; i++) {
    void *p = dlsym(lib, syms[i].name);
    if (p == NULL) {
      snprintf(why, why_size, "%s lacks %s", first, syms[i].name);
      for (int k = 0; k < n_syms; k++) memset(syms[k].slot, 0, sizeof(void *));
      dlclose(lib);
      return NULL;
    }
    /* POSIX guarantees that dlsym's result converts to a function pointer */
    memcpy(syms[i].slot, &p, sizeof p);
  }
  return lib;
}
