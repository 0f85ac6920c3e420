/*
 * dynlib.h -- loading a well-kept C library at run time (DESIGN.md §6):
 * libsnappy and libzstd for compressed files, libpcre2-8 for regular
 * expressions.  Neither building nor importing zambezi needs them; the
 * first use loads them, and without them that use fails with an error
 * that says how to install them.
 */
#ifndef ZAMBEZI_CORE_DYNLIB_H
#define ZAMBEZI_CORE_DYNLIB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One symbol to resolve: its name, and the address of the function
 * pointer that receives it. */
typedef struct zb__dynsym {
  const char *name;
  void *slot;
} zb__dynsym;

/* Open the library: the file named by the environment variable env_var
 * when set and not empty, else the first of names[0, n_names) that loads;
 * then resolve every symbol into its slot.  Returns the library handle, or
 * NULL with why (why_size bytes) saying what failed -- the library was not
 * found, or it lacks a symbol -- and every slot zeroed.  Call it once
 * (under a pthread_once). */
void *zb__dynlib_open(const char *env_var, const char *const *names, int n_names,
                      const zb__dynsym *syms, int n_syms, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
