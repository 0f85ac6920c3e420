/*
 * alloc.c -- the one counting allocator for all engine memory.
 *
 * Host blocks are 64-byte aligned (Arrow's recommendation) and carry a
 * 64-byte header holding their size, so zb_free needs no size and the
 * counters stay exact.  Device memory is allocated by the backends but
 * counted here through zb__alloc_device_begin/end.  A fault injector fails
 * the N-th allocation (host or device) so tests can walk every failure path.
 * On Linux, blocks of 4 MiB and more are advised to use transparent huge
 * pages.
 *
 * Invariant: host_bytes / host_allocations equal the sum over live blocks.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise */
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "core/internal.h"

#define ZB_ALIGN 64

static int64_t g_host_bytes, g_host_allocs, g_host_peak;
static int64_t g_dev_bytes, g_dev_allocs, g_dev_peak;
static int64_t g_total_allocs;
static int64_t g_fail_countdown; /* > 0: allocations still to go */

static void update_peak(int64_t *peak, int64_t now) {
  int64_t p = __atomic_load_n(peak, __ATOMIC_RELAXED);
  while (now > p &&
         !__atomic_compare_exchange_n(peak, &p, now, true, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
  }
}

/* True if this allocation must fail (fault injection). */
static bool injected_failure(void) {
  __atomic_add_fetch(&g_total_allocs, 1, __ATOMIC_RELAXED);
  int64_t c = __atomic_load_n(&g_fail_countdown, __ATOMIC_RELAXED);
  while (c > 0) {
    if (__atomic_compare_exchange_n(&g_fail_countdown, &c, c - 1, true,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      return c == 1;
  }
  return false;
}

int64_t zb_alloc_fail_after(int64_t n) {
  int64_t prev = __atomic_exchange_n(&g_fail_countdown, n > 0 ? n : 0, __ATOMIC_RELAXED);
  return prev;
}

void *zb_malloc(size_t size) {
  if (injected_failure()) return NULL;
  if (size > (size_t)INT64_MAX - 2 * ZB_ALIGN) return NULL;
  size_t total = (size + ZB_ALIGN - 1) / ZB_ALIGN * ZB_ALIGN + ZB_ALIGN;
  void *base = NULL;
  if (posix_memalign(&base, ZB_ALIGN, total) != 0) return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  /* Large blocks are fresh pages from the kernel: ask for 2 MiB pages so
   * first touch costs one fault per 2 MiB, not per 4 KiB (several times
   * faster for a column-sized result).  Advice only; failure is harmless. */
  if (total >= ((size_t)4 << 20)) {
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)base + huge - 1) & ~(huge - 1);
    uintptr_t hi = ((uintptr_t)base + total) & ~(huge - 1);
    if (hi > lo) (void)madvise((void *)lo, (size_t)(hi - lo), MADV_HUGEPAGE);
  }
#endif
  *(int64_t *)base = (int64_t)size;
  int64_t now = __atomic_add_fetch(&g_host_bytes, (int64_t)size, __ATOMIC_RELAXED);
  __atomic_add_fetch(&g_host_allocs, 1, __ATOMIC_RELAXED);
  update_peak(&g_host_peak, now);
  return (char *)base + ZB_ALIGN;
}

void *zb_calloc(size_t count, size_t size) {
  if (size != 0 && count > SIZE_MAX / size) return NULL;
  void *p = zb_malloc(count * size);
  if (p != NULL) memset(p, 0, count * size);
  return p;
}

void zb_free(void *ptr) {
  if (ptr == NULL) return;
  char *base = (char *)ptr - ZB_ALIGN;
  int64_t size = *(int64_t *)base;
  __atomic_sub_fetch(&g_host_bytes, size, __ATOMIC_RELAXED);
  __atomic_sub_fetch(&g_host_allocs, 1, __ATOMIC_RELAXED);
  free(base);
}

zb_status zb_malloc_checked(size_t size, void **out, zb_error *err) {
  *out = zb_malloc(size);
  if (*out == NULL)
    return zb_error_set(err, ZB_ENOMEM, "out of host memory allocating %zu bytes", size);
  return ZB_OK;
}

char *zb__strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = (char *)zb_malloc(n);
  if (d != NULL) memcpy(d, s, n);
  return d;
}

zb_status zb__alloc_device_begin(int64_t size, zb_error *err) {
  if (injected_failure())
    return zb_error_set(err, ZB_ENOMEM,
                        "out of device memory allocating %lld bytes (injected failure)",
                        (long long)size);
  int64_t now = __atomic_add_fetch(&g_dev_bytes, size, __ATOMIC_RELAXED);
  __atomic_add_fetch(&g_dev_allocs, 1, __ATOMIC_RELAXED);
  update_peak(&g_dev_peak, now);
  return ZB_OK;
}

void zb__alloc_device_end(int64_t size) {
  __atomic_sub_fetch(&g_dev_bytes, size, __ATOMIC_RELAXED);
  __atomic_sub_fetch(&g_dev_allocs, 1, __ATOMIC_RELAXED);
}

void zb_alloc_get_stats(zb_alloc_stats *out) {
  out->host_bytes = __atomic_load_n(&g_host_bytes, __ATOMIC_RELAXED);
  out->host_allocations = __atomic_load_n(&g_host_allocs, __ATOMIC_RELAXED);
  out->host_peak_bytes = __atomic_load_n(&g_host_peak, __ATOMIC_RELAXED);
  out->device_bytes = __atomic_load_n(&g_dev_bytes, __ATOMIC_RELAXED);
  out->device_allocations = __atomic_load_n(&g_dev_allocs, __ATOMIC_RELAXED);
  out->device_peak_bytes = __atomic_load_n(&g_dev_peak, __ATOMIC_RELAXED);
  out->total_allocations = __atomic_load_n(&g_total_allocs, __ATOMIC_RELAXED);
}

void zb_alloc_reset_peak(void) {
  __atomic_store_n(&g_host_peak, __atomic_load_n(&g_host_bytes, __ATOMIC_RELAXED),
                   __ATOMIC_RELAXED);
  __atomic_store_n(&g_dev_peak, __atomic_load_n(&g_dev_bytes, __ATOMIC_RELAXED),
                   __ATOMIC_RELAXED);
}
