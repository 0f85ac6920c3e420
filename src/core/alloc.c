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
 * Large host blocks (256 KiB and more) are mapped here (mmap) and, when
 * freed, kept in a small cache whose pages are handed out again: a fresh
 * page costs a fault and a clear on first touch, which for a memory-bound
 * kernel writing a new column is as much as the kernel's own work.  (malloc
 * is no help there: glibc gives blocks of this size back to the system
 * as soon as they are freed, or trims a worker thread's heap, so a reader
 * making many chunk buffers of a few hundred KiB faulted every page of
 * them afresh.)  A request takes the smallest cached block that is large
 * enough (splitting off the rest; a request under 1 MiB only a block at
 * most 4 times its size, so small blocks do not break up the large ones)
 * or, failing that, a request of 1 MiB or more is assembled from cached
 * blocks' pages moved with mremap (Linux), fresh pages only for what they
 * do not cover.
 * The cache holds at most ZAMBEZI_HOST_CACHE_MB MiB (default: 1/16 of
 * physical memory, at most 2 GiB; 0 disables it, and large blocks then come
 * from posix_memalign), is emptied when an allocation fails, and is off in
 * sanitizer builds so that use-after-free stays detectable.
 *
 * A memory limit (memory_limit.c says where it comes from) refuses a host
 * allocation that would take the live blocks past it: the size is added to
 * the live count first and taken back on refusal, so threads allocating at
 * once cannot pass it together.  Cached blocks count too: when they are
 * what stands in the way they are given back first.  The last refusal is
 * kept (zb_alloc_take_refusal) for the error message.
 *
 * Invariant: host_bytes / host_allocations equal the sum over live blocks
 * (cached blocks are not live; host_cached_bytes counts them).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise */
#define _GNU_SOURCE     /* mremap */
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

/* The memory limit: -1 until first used, then bytes (0: none). */
static int64_t g_limit = -1;
static pthread_mutex_t g_refusal_lock = PTHREAD_MUTEX_INITIALIZER;
static zb_alloc_refusal g_refusal; /* asked == 0: none since last taken */

static int64_t limit_now(void) {
  int64_t lim = __atomic_load_n(&g_limit, __ATOMIC_RELAXED);
  if (lim < 0) {
    int64_t def = zb__memory_limit_default();
    int64_t unset = -1;
    (void)__atomic_compare_exchange_n(&g_limit, &unset, def, false, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED);
    lim = __atomic_load_n(&g_limit, __ATOMIC_RELAXED);
  }
  return lim;
}

int64_t zb_get_memory_limit(void) { return limit_now(); }

zb_status zb_set_memory_limit(int64_t bytes, zb_error *err) {
  if (bytes < 0)
    return zb_error_set(err, ZB_EINVAL, "the memory limit must be >= 0 bytes (0: none), not %lld",
                        (long long)bytes);
  __atomic_store_n(&g_limit, bytes, __ATOMIC_RELAXED);
  return ZB_OK;
}

bool zb_alloc_take_refusal(zb_alloc_refusal *out) {
  pthread_mutex_lock(&g_refusal_lock);
  *out = g_refusal;
  memset(&g_refusal, 0, sizeof g_refusal);
  pthread_mutex_unlock(&g_refusal_lock);
  return out->asked > 0;
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
 * asked for, [1] the block's capacity (bytes from the header's start), [2]
 * 1 for a block mapped by this file (large blocks where the cache is on:
 * page-aligned, unmapped with munmap), 0 for one from posix_memalign. */

#if defined(__SANITIZE_ADDRESS__)
#define ZB_CACHE_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZB_CACHE_OFF 1
#endif
#endif
#if !defined(__linux__)
#define ZB_CACHE_OFF 1 /* the cache recycles pages with Linux's mremap */
#endif

#define ZB_CACHE_MIN ((size_t)256 << 10) /* smaller blocks go back to malloc */
#define ZB_CACHE_SMALL ((size_t)1 << 20)  /* smaller requests split no block 4x their size */
#define ZB_CACHE_SLOTS 256

static pthread_mutex_t g_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_settings_once = PTHREAD_ONCE_INIT;
static int64_t g_cache_bytes, g_cache_limit;
static bool g_huge_pages; /* ZAMBEZI_HUGE_PAGES=1 */
#ifndef ZB_CACHE_OFF
static size_t g_page = 4096; /* the system's page size */
#endif

static void settings_init(void) {
  const char *huge = getenv("ZAMBEZI_HUGE_PAGES");
  g_huge_pages = huge != NULL && strcmp(huge, "1") == 0;
#ifdef ZB_CACHE_OFF
  g_cache_limit = 0;
#else
  long page_size = sysconf(_SC_PAGESIZE);
  if (page_size > 0) g_page = (size_t)page_size;
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

static void set_header(void *base, size_t cap, int64_t mapped) {
  ((int64_t *)base)[1] = (int64_t)cap;
  ((int64_t *)base)[2] = mapped;
}

#ifndef ZB_CACHE_OFF
/* `n` bytes of fresh private pages, or NULL. */
static char *map_pages(size_t n) {
  void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : (char *)p;
}
#endif

#ifdef ZB_CACHE_OFF
static bool cache_put(void *base) {
  (void)base;
  return false;
}

void zb_alloc_trim(void) {}
#else
static void *g_cache[ZB_CACHE_SLOTS]; /* block bases, oldest first */
static int g_cache_n;

static size_t block_capacity(const void *base) { return (size_t)((const int64_t *)base)[1]; }

/* Drop slot i from the cache (lock held). */
static void *cache_remove(int i) {
  void *b = g_cache[i];
  g_cache_bytes -= (int64_t)block_capacity(b);
  memmove(&g_cache[i], &g_cache[i + 1], (size_t)(g_cache_n - i - 1) * sizeof(void *));
  g_cache_n--;
  return b;
}

/* Keep [base, base + cap) as a block of its own (lock held); unmapped if
 * it is too small to keep or there is no slot. */
static void cache_keep_rest(char *base, size_t cap) {
  if (cap < ZB_CACHE_MIN || g_cache_n == ZB_CACHE_SLOTS) {
    munmap(base, cap);
    return;
  }
  set_header(base, cap, 1);
  g_cache[g_cache_n++] = base;
  g_cache_bytes += (int64_t)cap;
}

/* A mapped block of capacity `need` (a multiple of the page) whose pages
 * come, as far as the cache has them, from freed blocks, or NULL.  A
 * fresh page costs a fault and a clear on first touch (on a virtual
 * machine whose host takes freed memory back, about 0.4 s per GiB); a
 * recycled one costs nothing.  The smallest cached block that is large
 * enough is split (its tail stays cached); failing that, a fresh mapping
 * of `need` bytes has its front replaced, largest cached block first, by
 * cached pages moved there with mremap (page tables move, no data is
 * copied; the block's pages are no longer one mapping, which munmap does
 * not mind). */
static void *cache_take(size_t need) {
  char *got = NULL;
  pthread_mutex_lock(&g_cache_lock);
  int best = -1;
  bool small = need < ZB_CACHE_SMALL;
  for (int i = 0; i < g_cache_n; i++) {
    size_t cap = block_capacity(g_cache[i]);
    if (cap >= need && (!small || cap / 4 <= need) &&
        (best < 0 || cap < block_capacity(g_cache[best])))
      best = i;
  }
  if (best >= 0) {
    got = (char *)cache_remove(best);
    size_t cap = block_capacity(got);
    if (cap - need >= ZB_CACHE_MIN) { /* split: the tail stays cached */
      cache_keep_rest(got + need, cap - need);
      set_header(got, need, 1);
    }
  } else if (g_cache_n > 0 && !small) {
    got = map_pages(need);
    if (got != NULL) {
      size_t filled = 0;
      /* at most 8 pieces: each is a mapping of its own, and a process
       * has a limit on those (vm.max_map_count, 65530 by default) */
      for (int piece = 0; piece < 8 && filled < need && g_cache_n > 0; piece++) {
        int big = 0;
        for (int i = 1; i < g_cache_n; i++)
          if (block_capacity(g_cache[i]) > block_capacity(g_cache[big])) big = i;
        char *b = (char *)cache_remove(big);
        size_t cap = block_capacity(b), mv = ZB_MIN(cap, need - filled);
        if (mremap(b, mv, mv, MREMAP_MAYMOVE | MREMAP_FIXED, got + filled) == MAP_FAILED) {
          cache_keep_rest(b, cap); /* as it was (the header is intact) */
          break;
        }
        filled += mv;
        if (mv < cap) cache_keep_rest(b + mv, cap - mv);
      }
      set_header(got, need, 1);
    }
  }
  pthread_mutex_unlock(&g_cache_lock);
  return got;
}

/* Keep base in the cache (evicting the oldest blocks past the limit); false
 * if it does not belong there. */
static bool cache_put(void *base) {
  if (((int64_t *)base)[2] != 1) return false;
  size_t cap = block_capacity(base);
  void *evicted[ZB_CACHE_SLOTS + 1];
  int n_evicted = 0;
  pthread_mutex_lock(&g_cache_lock);
  if ((int64_t)cap > g_cache_limit / 2) {
    evicted[n_evicted++] = base;
  } else {
    while (g_cache_n > 0 &&
           (g_cache_n == ZB_CACHE_SLOTS || g_cache_bytes + (int64_t)cap > g_cache_limit))
      evicted[n_evicted++] = cache_remove(0);
    g_cache[g_cache_n++] = base;
    g_cache_bytes += (int64_t)cap;
  }
  pthread_mutex_unlock(&g_cache_lock);
  for (int i = 0; i < n_evicted; i++) munmap(evicted[i], block_capacity(evicted[i]));
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
  for (int i = 0; i < n; i++) munmap(all[i], block_capacity(all[i]));
}
#endif

/* A new block of at least `total` bytes, header capacity and kind set. */
static void *block_new(size_t total) {
  pthread_once(&g_settings_once, settings_init);
#ifndef ZB_CACHE_OFF
  if (g_cache_limit > 0 && total >= ZB_CACHE_MIN) {
    size_t need = (total + g_page - 1) / g_page * g_page;
    void *base = cache_take(need);
    if (base != NULL) return base;
    base = map_pages(need);
    if (base == NULL) {
      zb_alloc_trim(); /* cached blocks may be what stands in the way */
      base = map_pages(need);
      if (base == NULL) return NULL;
    }
    set_header(base, need, 1);
    return base;
  }
#endif
  void *base = NULL;
  if (posix_memalign(&base, ZB_ALIGN, total) != 0) {
    zb_alloc_trim();
    if (posix_memalign(&base, ZB_ALIGN, total) != 0) return NULL;
  }
  set_header(base, total, 0);
  return base;
}

static int64_t cached_bytes(void);

/* Count size as live; false (and nothing counted) if that passes the
 * limit even after the cache is given back. */
static bool reserve(int64_t size) {
  int64_t now = __atomic_add_fetch(&g_host_bytes, size, __ATOMIC_RELAXED);
  int64_t lim = limit_now();
  if (lim <= 0 || now <= lim) {
    if (lim > 0 && now + cached_bytes() > lim) zb_alloc_trim();
    return true;
  }
  zb_alloc_trim();
  __atomic_sub_fetch(&g_host_bytes, size, __ATOMIC_RELAXED);
  pthread_mutex_lock(&g_refusal_lock);
  g_refusal.asked = size;
  g_refusal.in_use = now - size;
  g_refusal.limit = lim;
  g_refusal.op = zb__current_op;
  pthread_mutex_unlock(&g_refusal_lock);
  return false;
}

void *zb_malloc(size_t size) { return zb__malloc_room(size, size); }

void *zb__malloc_room(size_t size, size_t room) {
  if (injected_failure()) return NULL;
  if (room < size) room = size;
  if (room > (size_t)INT64_MAX / 2) return NULL;
  if (!reserve((int64_t)size)) return NULL;
  size_t total = (room + ZB_ALIGN - 1) / ZB_ALIGN * ZB_ALIGN + ZB_ALIGN;
  void *base = block_new(total);
  if (base == NULL) {
    __atomic_sub_fetch(&g_host_bytes, (int64_t)size, __ATOMIC_RELAXED);
    return NULL;
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  /* Opt-in (see the top of this file): ask for 2 MiB pages, so first touch
   * costs one fault per 2 MiB, not per 4 KiB.  Advice only; failure is
   * harmless. */
  if (g_huge_pages && total >= ((size_t)4 << 20)) {
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)base + huge - 1) & ~(huge - 1);
    uintptr_t hi = ((uintptr_t)base + total) & ~(huge - 1);
    if (hi > lo) (void)madvise((void *)lo, (size_t)(hi - lo), MADV_HUGEPAGE);
  }
#endif
  *(int64_t *)base = (int64_t)size;
  __atomic_add_fetch(&g_host_allocs, 1, __ATOMIC_RELAXED);
  update_peak(&g_host_peak, __atomic_load_n(&g_host_bytes, __ATOMIC_RELAXED));
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
  if (cache_put(base)) return;
#ifndef ZB_CACHE_OFF
  if (((int64_t *)base)[2] == 1) {
    munmap(base, block_capacity(base));
    return;
  }
#endif
  free(base);
}

void zb__shrink(void *ptr, size_t size) {
  if (ptr == NULL) return;
  int64_t *hdr = (int64_t *)((char *)ptr - ZB_ALIGN);
  if ((int64_t)size >= hdr[0]) return;
  __atomic_sub_fetch(&g_host_bytes, hdr[0] - (int64_t)size, __ATOMIC_RELAXED);
  hdr[0] = (int64_t)size;
}

void *zb__grow(void *ptr, size_t size) {
  if (ptr == NULL) return zb_malloc(size);
  char *base = (char *)ptr - ZB_ALIGN;
  int64_t old = *(int64_t *)base;
  if ((int64_t)size <= old) return ptr;
  if (injected_failure() || size > (size_t)INT64_MAX / 2) return NULL;
  size_t total = (size + ZB_ALIGN - 1) / ZB_ALIGN * ZB_ALIGN + ZB_ALIGN;
  if (total <= (size_t)((const int64_t *)base)[1]) { /* room in the block already */
    if (!reserve((int64_t)size - old)) return NULL;
    *(int64_t *)base = (int64_t)size;
    update_peak(&g_host_peak, __atomic_load_n(&g_host_bytes, __ATOMIC_RELAXED));
    return ptr;
  }
#if defined(__linux__) && !defined(ZB_CACHE_OFF)
  if (((int64_t *)base)[2] == 1) { /* mapped: move the pages, no copy */
    if (!reserve((int64_t)size - old)) return NULL;
    size_t need = (total + g_page - 1) / g_page * g_page;
    void *nb = mremap(base, block_capacity(base), need, MREMAP_MAYMOVE);
    if (nb != MAP_FAILED) {
      set_header(nb, need, 1);
      *(int64_t *)nb = (int64_t)size;
      update_peak(&g_host_peak, __atomic_load_n(&g_host_bytes, __ATOMIC_RELAXED));
      return (char *)nb + ZB_ALIGN;
    }
    /* A block assembled from cached blocks' pages spans several mappings,
     * which mremap refuses to move as one (EFAULT): copy instead. */
    __atomic_sub_fetch(&g_host_bytes, (int64_t)size - old, __ATOMIC_RELAXED);
  }
#endif
  void *p = zb_malloc(size);
  if (p == NULL) return NULL;
  memcpy(p, ptr, (size_t)old);
  zb_free(ptr);
  return p;
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

/* A hint, read without the cache lock (written under it). */
static int64_t cached_bytes(void) { return __atomic_load_n(&g_cache_bytes, __ATOMIC_RELAXED); }

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
