/*
 * alloc.c -- the one counting allocator for all engine memory.
 *
 * Host blocks are 64-byte aligned (Arrow's recommendation) and carry a
 * 64-byte header holding their size, so zb_free needs no size and the
 * counters stay exact.  Device memory is allocated by the backends but
 * counted here through zb__alloc_device_begin/end.  A fault injector fails
 * the N-th allocation (host or device) so tests can walk every failure path.
 * On Linux, with ZAMBEZI_HUGE_PAGES=1, blocks of 4 MiB and more are advised
 * to use transparent huge pages.  That is off by default: on virtual
 * machines whose host takes freed guest memory back (free page reporting),
 * a fresh huge page costs about five times as much to touch first as 4 KiB
 * pages do (2.0 against 0.43 s/GiB measured), and most large blocks are
 * fresh; huge pages only win when freed memory is reused at once, which
 * the block cache below already provides.
 *
 * Large freed host blocks (1 MiB and more) are kept in a small cache and
 * handed out again: a fresh block from the kernel costs a page fault and a
 * page clear per page on first touch, which for a memory-bound kernel
 * writing a new column is as much as the kernel's own work.  The cache holds
 * at most ZAMBEZI_HOST_CACHE_MB MiB (default: 1/16 of physical memory, at
 * most 2 GiB; 0 disables it), is emptied when an allocation fails, and is
 * off in sanitizer builds so that use-after-free stays detectable.
 *
 * Invariant: host_bytes / host_allocations equal the sum over live blocks
 * (cached blocks are not live; host_cached_bytes counts them).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

/* ---- the cache of large freed host blocks --------------------------------
 * Block header (the 64 bytes before the pointer handed out): [0] the size
 * asked for, [1] the block's capacity (bytes from the header's start). */

#if defined(__SANITIZE_ADDRESS__)
#define ZB_CACHE_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZB_CACHE_OFF 1
#endif
#endif

#define ZB_CACHE_MIN ((size_t)1 << 20) /* smaller blocks go back to malloc */
#define ZB_CACHE_SLOTS 64

static pthread_mutex_t g_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_settings_once = PTHREAD_ONCE_INIT;
static void *g_cache[ZB_CACHE_SLOTS]; /* block bases, oldest first */
static int g_cache_n;
static int64_t g_cache_bytes, g_cache_limit;
static bool g_huge_pages; /* ZAMBEZI_HUGE_PAGES=1 */

static void settings_init(void) {
  const char *huge = getenv("ZAMBEZI_HUGE_PAGES");
  g_huge_pages = huge != NULL && strcmp(huge, "1") == 0;
#ifdef ZB_CACHE_OFF
  g_cache_limit = 0;
#else
  const char *env = getenv("ZAMBEZI_HOST_CACHE_MB");
  if (env != NULL && *env != '\0') {
    long long mb = atoll(env);
    g_cache_limit = mb > 0 ? (int64_t)mb << 20 : 0;
    return;
  }
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  int64_t phys = pages > 0 && page > 0 ? (int64_t)pages * page : (int64_t)1 << 30;
  g_cache_limit = ZB_MIN(phys / 16, (int64_t)2 << 30);
#endif
}

static size_t block_capacity(const void *base) { return (size_t)((const int64_t *)base)[1]; }

/* A cached block of capacity in [total, 2 * total], or NULL. */
static void *cache_take(size_t total) {
  if (total < ZB_CACHE_MIN) return NULL;
  pthread_once(&g_settings_once, settings_init);
  if (g_cache_limit == 0) return NULL;
  void *got = NULL;
  pthread_mutex_lock(&g_cache_lock);
  int best = -1;
  for (int i = 0; i < g_cache_n; i++) {
    size_t cap = block_capacity(g_cache[i]);
    if (cap >= total && cap / 2 <= total &&
        (best < 0 || cap < block_capacity(g_cache[best])))
      best = i;
  }
  if (best >= 0) {
    got = g_cache[best];
    g_cache_bytes -= (int64_t)block_capacity(got);
    memmove(&g_cache[best], &g_cache[best + 1], (size_t)(g_cache_n - best - 1) * sizeof(void *));
    g_cache_n--;
  }
  pthread_mutex_unlock(&g_cache_lock);
  return got;
}

/* Keep base in the cache (evicting the oldest blocks past the limit); false
 * if it does not belong there. */
static bool cache_put(void *base) {
  size_t cap = block_capacity(base);
  if (cap < ZB_CACHE_MIN) return false;
  pthread_once(&g_settings_once, settings_init);
  if ((int64_t)cap > g_cache_limit / 2) return false;
  void *evicted[ZB_CACHE_SLOTS];
  int n_evicted = 0;
  pthread_mutex_lock(&g_cache_lock);
  while (g_cache_n > 0 &&
         (g_cache_n == ZB_CACHE_SLOTS || g_cache_bytes + (int64_t)cap > g_cache_limit)) {
    evicted[n_evicted++] = g_cache[0];
    g_cache_bytes -= (int64_t)block_capacity(g_cache[0]);
    memmove(&g_cache[0], &g_cache[1], (size_t)(g_cache_n - 1) * sizeof(void *));
    g_cache_n--;
  }
  g_cache[g_cache_n++] = base;
  g_cache_bytes += (int64_t)cap;
  pthread_mutex_unlock(&g_cache_lock);
  for (int i = 0; i < n_evicted; i++) free(evicted[i]);
  return true;
}

void zb_alloc_trim(void) {
  void *all[ZB_CACHE_SLOTS];
  pthread_mutex_lock(&g_cache_lock);
  int n = g_cache_n;
  memcpy(all, g_cache, (size_t)n * sizeof(void *));
  g_cache_n = 0;
  g_cache_bytes = 0;
  pthread_mutex_unlock(&g_cache_lock);
  for (int i = 0; i < n; i++) free(all[i]);
}

void *zb_malloc(size_t size) {
  if (injected_failure()) return NULL;
  if (size > (size_t)INT64_MAX - 2 * ZB_ALIGN) return NULL;
  size_t total = (size + ZB_ALIGN - 1) / ZB_ALIGN * ZB_ALIGN + ZB_ALIGN;
  void *base = cache_take(total);
  if (base != NULL) goto ready;
  if (posix_memalign(&base, ZB_ALIGN, total) != 0) {
    zb_alloc_trim(); /* cached blocks may be what stands in the way */
    if (posix_memalign(&base, ZB_ALIGN, total) != 0) return NULL;
  }
  ((int64_t *)base)[1] = (int64_t)total;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  /* Opt-in (see the top of this file): ask for 2 MiB pages, so first touch
   * costs one fault per 2 MiB, not per 4 KiB.  Advice only; failure is
   * harmless. */
  pthread_once(&g_settings_once, settings_init);
  if (g_huge_pages && total >= ((size_t)4 << 20)) {
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)base + huge - 1) & ~(huge - 1);
    uintptr_t hi = ((uintptr_t)base + total) & ~(huge - 1);
    if (hi > lo) (void)madvise((void *)lo, (size_t)(hi - lo), MADV_HUGEPAGE);
  }
#endif
ready:
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
  if (!cache_put(base)) free(base);
}

void zb__shrink(void *ptr, size_t size) {
  if (ptr == NULL) return;
  int64_t *hdr = (int64_t *)((char *)ptr - ZB_ALIGN);
  if ((int64_t)size >= hdr[0]) return;
  __atomic_sub_fetch(&g_host_bytes, hdr[0] - (int64_t)size, __ATOMIC_RELAXED);
  hdr[0] = (int64_t)size;
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
  pthread_mutex_lock(&g_cache_lock);
  out->host_cached_bytes = g_cache_bytes;
  pthread_mutex_unlock(&g_cache_lock);
}

void zb_alloc_reset_peak(void) {
  __atomic_store_n(&g_host_peak, __atomic_load_n(&g_host_bytes, __ATOMIC_RELAXED),
                   __ATOMIC_RELAXED);
  __atomic_store_n(&g_dev_peak, __atomic_load_n(&g_dev_bytes, __ATOMIC_RELAXED),
                   __ATOMIC_RELAXED);
}
