/*
 * test_core.c -- unit tests for buffers, columns (every dtype, nulls,
 * strings, slices), tables, the thread pool, the allocator with fault
 * injection, and the CPU reductions against values computed here by plain
 * loops.
 */
#define _DEFAULT_SOURCE /* mincore */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "core/internal.h"
#include "test.h"

/* A deterministic pseudo-random generator (splitmix64). */
static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

ZB_TEST(test_buffer_refcount) {
  zb_error err = {{0}};
  zb_buffer *b = NULL;
  ZB_CHECK_OK(zb_buffer_new(ZB_CPU, 100, &b, &err), &err);
  ZB_CHECK(((uintptr_t)b->data % 64) == 0);
  ZB_CHECK_EQ_INT(b->size, 100);
  zb_alloc_stats st;
  zb_alloc_get_stats(&st);
  ZB_CHECK(st.host_bytes >= 100);
  zb_buffer_retain(b);
  zb_buffer_release(b);
  ZB_CHECK_EQ_INT(b->refcount, 1);
  zb_buffer_release(b);
  ZB_CHECK_EQ_INT(zb_buffer_new(ZB_CPU, -1, &b, &err), ZB_EINVAL);
  ZB_CHECK(b == NULL);
}

static int g_wrap_released;
static void wrap_release(void *ctx, void *data, int64_t size) {
  g_wrap_released = (int)(size + (ctx == data ? 1000 : 0));
}

ZB_TEST(test_buffer_wrap) {
  zb_error err = {{0}};
  static char mem[10];
  zb_buffer *b = NULL;
  g_wrap_released = 0;
  ZB_CHECK_OK(zb_buffer_wrap(ZB_CPU, mem, 10, wrap_release, mem, &b, &err), &err);
  zb_buffer_release(b);
  ZB_CHECK_EQ_INT(g_wrap_released, 1010);
}

ZB_TEST(test_no_gpu_device_is_an_error) {
  zb_error err = {{0}};
  zb_buffer *b = NULL;
  zb_device gpu = {ZB_DEVICE_CUDA, zb_cuda_device_total()}; /* past the last */
  ZB_CHECK_EQ_INT(zb_buffer_new(gpu, 8, &b, &err), ZB_ENODEVICE);
  ZB_CHECK(strstr(err.message, "cuda:") != NULL);
  ZB_CHECK(b == NULL);
}

/* An int32 column 0..n-1 with every third value null. */
static zb_column *make_int32(int64_t n, bool nulls) {
  zb_error err = {{0}};
  zb_column *c = NULL;
  if (zb_column_new(ZB_INT32, n, nulls, 0, &c, &err) != ZB_OK) return NULL;
  int32_t *v = (int32_t *)c->data->data;
  for (int64_t i = 0; i < n; i++) {
    v[i] = (int32_t)i;
    if (nulls && i % 3 == 0) zb_bit_set((uint8_t *)c->validity->data, i, false);
  }
  zb_column_recount_nulls(c);
  return c;
}

ZB_TEST(test_column_nulls_and_slice) {
  zb_error err = {{0}};
  zb_column *c = make_int32(100, true);
  ZB_CHECK(c != NULL);
  ZB_CHECK_EQ_INT(c->null_count, 34);
  zb_column *s = NULL;
  ZB_CHECK_OK(zb_column_slice(c, 3, 13, &s, &err), &err);
  ZB_CHECK_EQ_INT(s->length, 13);
  ZB_CHECK_EQ_INT(s->offset, 3);
  ZB_CHECK(s->data == c->data); /* zero copy */
  int64_t nulls = 0;
  for (int64_t i = 0; i < 13; i++) nulls += !zb_column_is_valid(s, i);
  ZB_CHECK_EQ_INT(s->null_count, nulls);
  ZB_CHECK_EQ_INT(nulls, 5); /* rows 3,6,9,12,15 */
  ZB_CHECK_EQ_INT(((int32_t *)s->data->data)[s->offset + 4], 7);
  zb_column *t = NULL; /* slice of a slice, clamped */
  ZB_CHECK_OK(zb_column_slice(s, 10, 100, &t, &err), &err);
  ZB_CHECK_EQ_INT(t->length, 3);
  ZB_CHECK_EQ_INT(t->offset, 13);
  zb_column_release(t);
  ZB_CHECK_EQ_INT(zb_column_slice(s, -1, 2, &t, &err), ZB_EINDEX);
  ZB_CHECK(t == NULL);
  zb_column_release(s);
  zb_column_release(c);
}

ZB_TEST(test_column_make_checks) {
  zb_error err = {{0}};
  zb_buffer *data = NULL, *chars = NULL;
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_buffer_new(ZB_CPU, 16, &data, &err), &err);
  /* 16 bytes cannot hold 3 int64 values */
  ZB_CHECK_EQ_INT(zb_column_make(ZB_INT64, 3, 0, NULL, data, NULL, NULL, 0, &c, &err),
                  ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "int64") != NULL);
  ZB_CHECK_OK(zb_column_make(ZB_INT64, 2, 0, NULL, data, NULL, NULL, 0, &c, &err), &err);
  zb_column_release(c);
  /* string offsets pointing past the characters */
  ZB_CHECK_OK(zb_buffer_new(ZB_CPU, 4, &chars, &err), &err);
  int64_t *offs = (int64_t *)data->data;
  offs[0] = 0;
  offs[1] = 9;
  ZB_CHECK_EQ_INT(zb_column_make(ZB_STRING, 1, 0, NULL, data, chars, NULL, 0, &c, &err),
                  ZB_EINVAL);
  offs[1] = 4;
  ZB_CHECK_OK(zb_column_make(ZB_STRING, 1, 0, NULL, data, chars, NULL, 0, &c, &err), &err);
  /* categorical without dictionary */
  zb_column *cat = NULL;
  ZB_CHECK_EQ_INT(zb_column_make(ZB_CATEGORICAL, 2, 0, NULL, data, NULL, NULL, 0, &cat, &err),
                  ZB_EINVAL);
  ZB_CHECK_OK(zb_column_make(ZB_CATEGORICAL, 2, 0, NULL, data, NULL, c, 0, &cat, &err), &err);
  zb_column_release(cat);
  zb_column_release(c);
  zb_buffer_release(chars);
  zb_buffer_release(data);
}

/* Build a string column from C strings (NULL = null). */
static zb_status make_strings(const char *const *s, int64_t n, zb_column **out, zb_error *err) {
  int64_t total = 0;
  bool nulls = false;
  for (int64_t i = 0; i < n; i++) {
    if (s[i])
      total += (int64_t)strlen(s[i]);
    else
      nulls = true;
  }
  ZB_RETURN_NOT_OK(zb_column_new(ZB_STRING, n, nulls, total, out, err));
  int64_t *offs = (int64_t *)(*out)->data->data;
  char *chars = (char *)(*out)->chars->data;
  offs[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t len = s[i] ? (int64_t)strlen(s[i]) : 0;
    if (len) memcpy(chars + offs[i], s[i], (size_t)len);
    offs[i + 1] = offs[i] + len;
    if (!s[i]) zb_bit_set((uint8_t *)(*out)->validity->data, i, false);
  }
  zb_column_recount_nulls(*out);
  return ZB_OK;
}

ZB_TEST(test_strings) {
  zb_error err = {{0}};
  const char *vals[] = {"zambezi", NULL, "", "héllo", "x"};
  zb_column *c = NULL;
  ZB_CHECK_OK(make_strings(vals, 5, &c, &err), &err);
  ZB_CHECK_EQ_INT(c->null_count, 1);
  const int64_t *o = (const int64_t *)c->data->data;
  ZB_CHECK_EQ_INT(o[5] - o[4], 1);
  ZB_CHECK_EQ_INT(o[4] - o[3], 6); /* UTF-8 bytes */
  ZB_CHECK(memcmp((char *)c->chars->data + o[3], "héllo", 6) == 0);
  zb_column *s = NULL;
  ZB_CHECK_OK(zb_column_slice(c, 1, 2, &s, &err), &err);
  ZB_CHECK_EQ_INT(s->null_count, 1);
  zb_column *h = NULL; /* to the host is a no-op that shares */
  ZB_CHECK_OK(zb_column_to_device(s, ZB_CPU, &h, &err), &err);
  ZB_CHECK(h == s);
  zb_column_release(h);
  zb_column_release(s);
  zb_column_release(c);
}

ZB_TEST(test_every_dtype_builds) {
  zb_error err = {{0}};
  for (int t = 0; t < ZB_LIST; t++) { /* lists: test_list.c */
    zb_column *c = NULL;
    ZB_CHECK_OK(zb_column_new((zb_type_id)t, 10, true, 5, &c, &err), &err);
    if (c == NULL) continue;
    zb_type_id back;
    ZB_CHECK_OK(zb_type_from_name(zb_type_name((zb_type_id)t), &back, &err), &err);
    ZB_CHECK_EQ_INT(back, t);
    if (t == ZB_TIMESTAMP) {
      ZB_CHECK_OK(zb_column_set_time(c, ZB_NANO, "UTC", &err), &err);
      ZB_CHECK(strcmp(c->timezone, "UTC") == 0);
    }
    zb_bit_set((uint8_t *)c->validity->data, 9, false);
    zb_column_recount_nulls(c);
    ZB_CHECK_EQ_INT(c->null_count, 1);
    zb_column_release(c);
  }
  zb_type_id t;
  ZB_CHECK_EQ_INT(zb_type_from_name("complex128", &t, &err), ZB_ETYPE);
  ZB_CHECK(strstr(err.message, "complex128") != NULL);
  /* canonical names only: aliases live in Python (zambezi/_dtypes.py) */
  ZB_CHECK_EQ_INT(zb_type_from_name("str", &t, &err), ZB_ETYPE);
  ZB_CHECK_EQ_INT(zb_type_from_name("double", &t, &err), ZB_ETYPE);
}

ZB_TEST(test_table) {
  zb_error err = {{0}};
  zb_column *a = make_int32(10, false), *b = make_int32(10, true), *c = make_int32(9, false);
  zb_column *cols[] = {a, b, c};
  const char *names[] = {"a", "b", "c"};
  zb_table *t = NULL;
  ZB_CHECK_EQ_INT(zb_table_make(3, cols, names, &t, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "'c'") != NULL);
  const char *dup[] = {"a", "a"};
  ZB_CHECK_EQ_INT(zb_table_make(2, cols, dup, &t, &err), ZB_EINVAL);
  ZB_CHECK_OK(zb_table_make(2, cols, names, &t, &err), &err);
  ZB_CHECK_EQ_INT(t->num_rows, 10);
  ZB_CHECK_EQ_INT(zb_table_find(t, "b"), 1);
  ZB_CHECK_EQ_INT(zb_table_find(t, "zz"), -1);
  int64_t idx[] = {1};
  zb_table *sel = NULL, *sl = NULL;
  ZB_CHECK_OK(zb_table_select(t, 1, idx, &sel, &err), &err);
  ZB_CHECK(sel->columns[0] == b);
  ZB_CHECK(strcmp(sel->names[0], "b") == 0);
  ZB_CHECK_OK(zb_table_slice(t, 8, 5, &sl, &err), &err);
  ZB_CHECK_EQ_INT(sl->num_rows, 2);
  ZB_CHECK_EQ_INT(sl->columns[1]->null_count, 1); /* row 9 */
  zb_table_release(sl);
  zb_table_release(sel);
  zb_table_release(t);
  zb_column_release(a);
  zb_column_release(b);
  zb_column_release(c);
}

/* Many columns: names checked through the hash set -- every name unique
 * passes, a repeat anywhere (colliding prefixes, the last column, the
 * empty name) is named in the error. */
ZB_TEST(test_table_many_names) {
  zb_error err = {{0}};
  enum { N = 700 };
  zb_column *a = make_int32(3, false);
  zb_column *cols[N];
  char buf[N][16];
  const char *names[N];
  for (int i = 0; i < N; i++) {
    cols[i] = a;
    snprintf(buf[i], sizeof buf[i], "c%d", i);
    names[i] = buf[i];
  }
  zb_table *t = NULL;
  ZB_CHECK_OK(zb_table_make(N, cols, names, &t, &err), &err);
  ZB_CHECK_EQ_INT(t->num_columns, N);
  zb_table_release(t);
  t = NULL;
  const int repeats[][2] = {{0, N - 1}, {345, 346}, {10, 100}};
  for (int r = 0; r < 3; r++) {
    names[repeats[r][1]] = names[repeats[r][0]];
    ZB_CHECK_EQ_INT(zb_table_make(N, cols, names, &t, &err), ZB_EINVAL);
    ZB_CHECK(t == NULL && strstr(err.message, names[repeats[r][0]]) != NULL);
    names[repeats[r][1]] = buf[repeats[r][1]];
  }
  names[5] = "";
  names[600] = "";
  ZB_CHECK_EQ_INT(zb_table_make(N, cols, names, &t, &err), ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "duplicate column name ''") != NULL);
  zb_column_release(a);
}

/* ---- thread pool ---- */

typedef struct {
  int64_t *hits;
  int64_t max_worker;
} pool_ctx;

static void pool_task(void *ctx, int64_t task, int worker) {
  pool_ctx *p = (pool_ctx *)ctx;
  __atomic_add_fetch(&p->hits[task], 1, __ATOMIC_RELAXED);
  int64_t w = worker, cur = __atomic_load_n(&p->max_worker, __ATOMIC_RELAXED);
  while (w > cur && !__atomic_compare_exchange_n(&p->max_worker, &cur, w, true,
                                                 __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

ZB_TEST(test_thread_pool_runs_each_task_once) {
  zb_error err = {{0}};
  int saved = zb_get_num_threads();
  for (int threads = 1; threads <= 5; threads += 2) {
    ZB_CHECK_OK(zb_set_num_threads(threads, &err), &err);
    for (int64_t n = 0; n < 300; n += 37) {
      int64_t *hits = (int64_t *)zb_calloc((size_t)(n + 1), sizeof(int64_t));
      pool_ctx ctx = {hits, 0};
      ZB_CHECK_OK(zb_parallel_for(n, pool_task, &ctx, &err), &err);
      for (int64_t i = 0; i < n; i++) ZB_CHECK_EQ_INT(hits[i], 1);
      ZB_CHECK(ctx.max_worker < threads);
      zb_free(hits);
    }
  }
  ZB_CHECK_EQ_INT(zb_set_num_threads(0, &err), ZB_EINVAL);
  ZB_CHECK_OK(zb_set_num_threads(saved, &err), &err);
}

/* ---- allocator ---- */

ZB_TEST(test_alloc_counts_and_injection) {
  zb_alloc_stats a, b;
  zb_alloc_get_stats(&a);
  void *p = zb_malloc(1000);
  ZB_CHECK(p != NULL);
  zb_alloc_get_stats(&b);
  ZB_CHECK_EQ_INT(b.host_bytes - a.host_bytes, 1000);
  ZB_CHECK_EQ_INT(b.host_allocations - a.host_allocations, 1);
  zb_free(p);
  zb_alloc_fail_after(2);
  void *x = zb_malloc(8), *y = zb_malloc(8), *z = zb_malloc(8);
  ZB_CHECK(x != NULL);
  ZB_CHECK(y == NULL);
  ZB_CHECK(z != NULL);
  zb_free(x);
  zb_free(z);
  ZB_CHECK_EQ_INT(zb_alloc_fail_after(0), 0);
}

/* After a test's blocks are freed: the cache emptied, the counters as
 * they were before it (a). */
static void check_all_returned(const zb_alloc_stats *a) {
  zb_alloc_stats b;
  zb_alloc_trim();
  zb_alloc_get_stats(&b);
  ZB_CHECK_EQ_INT(b.host_cached_bytes, 0);
  ZB_CHECK_EQ_INT(b.host_bytes, a->host_bytes);
  ZB_CHECK_EQ_INT(b.host_allocations, a->host_allocations);
}

/* Large freed blocks are kept for reuse: the counters see them as freed
 * (host_cached_bytes counts them), a block of a similar size comes back
 * from the cache, fault injection still fires first, and trim empties it. */
ZB_TEST(test_alloc_block_cache) {
  zb_alloc_stats a, b;
  zb_alloc_trim();
  zb_alloc_get_stats(&a);
  const size_t big = (size_t)3 << 20;
  char *p = (char *)zb_malloc(big);
  ZB_CHECK(p != NULL);
  memset(p, 7, big);
  zb_free(p);
  zb_alloc_get_stats(&b);
  ZB_CHECK_EQ_INT(b.host_bytes, a.host_bytes);
  ZB_CHECK_EQ_INT(b.host_allocations, a.host_allocations);
  bool cached = b.host_cached_bytes > 0; /* off in sanitizer builds */
  char *q = (char *)zb_malloc(big - 100);
  ZB_CHECK(q != NULL);
  zb_alloc_get_stats(&b);
  ZB_CHECK_EQ_INT(b.host_bytes - a.host_bytes, (long long)(big - 100));
  ZB_CHECK_EQ_INT(b.host_cached_bytes, 0);
  if (cached) ZB_CHECK(q == p); /* the same block again */
  q[big - 101] = 1;
  zb_free(q);
  zb_alloc_fail_after(1);
  ZB_CHECK(zb_malloc(big) == NULL); /* injection before the cache */
  void *small = zb_malloc(big / 8); /* far smaller (under 1/4): not from the cache */
  ZB_CHECK(small != NULL);
  zb_alloc_get_stats(&b);
  ZB_CHECK_EQ_INT(b.host_cached_bytes, cached ? (long long)big + 4096 : 0); /* whole pages */
  zb_free(small);
  zb_alloc_trim();
  zb_alloc_get_stats(&b);
  ZB_CHECK_EQ_INT(b.host_cached_bytes, 0);
  ZB_CHECK_EQ_INT(b.host_bytes, a.host_bytes);
}

#if defined(__linux__)
/* 1 if every page of [p, p + n) is resident in memory, 0 if not, -1 if
 * mincore cannot tell. */
static int all_resident(const char *p, size_t n) {
  uintptr_t lo = (uintptr_t)p & ~(uintptr_t)4095, hi = ((uintptr_t)p + n + 4095) & ~(uintptr_t)4095;
  size_t pages = (hi - lo) / 4096;
  unsigned char *v = (unsigned char *)malloc(pages);
  if (v == NULL || mincore((void *)lo, hi - lo, v) != 0) {
    free(v);
    return -1;
  }
  size_t r = 0;
  for (size_t i = 0; i < pages; i++) r += v[i] & 1;
  free(v);
  return r == pages;
}
#endif

/* A request no cached block covers is assembled from cached blocks' pages
 * (moved, not copied: they are already resident), the rest fresh; a
 * request smaller than a cached block splits it, the tail staying cached.
 * Every byte of the blocks is writable and the counters stay exact. */
ZB_TEST(test_alloc_cache_recycles_pages) {
  zb_alloc_stats a, b;
  zb_alloc_trim();
  zb_alloc_get_stats(&a);
  const size_t mb = (size_t)1 << 20;
  char *x = (char *)zb_malloc(8 * mb), *y = (char *)zb_malloc(8 * mb);
  ZB_CHECK(x != NULL && y != NULL);
  memset(x, 1, 8 * mb);
  memset(y, 2, 8 * mb);
  zb_free(x);
  zb_free(y);
  zb_alloc_get_stats(&b);
  bool cached = b.host_cached_bytes > 0; /* off in sanitizer builds */
  char *z = (char *)zb_malloc(12 * mb); /* more than either block */
  ZB_CHECK(z != NULL);
  zb_alloc_get_stats(&b);
  if (cached) {
    /* blocks are whole pages, the header needing one more: z (12 MiB + a
     * page) took all of x and 4 MiB of y, whose other 4 MiB + a page stay */
    ZB_CHECK_EQ_INT(b.host_cached_bytes, (long long)(4 * mb + 4096));
#if defined(__linux__)
    /* the first 8 MiB were x's pages: resident before z touches them */
    ZB_CHECK(all_resident(z, 8 * mb) != 0);
#endif
  }
  memset(z, 3, 12 * mb);
  ZB_CHECK(z[0] == 3 && z[12 * mb - 1] == 3);
  char *w = (char *)zb_malloc(2 * mb); /* splits what is left */
  ZB_CHECK(w != NULL);
  memset(w, 4, 2 * mb);
  zb_alloc_get_stats(&b);
  ZB_CHECK_EQ_INT(b.host_bytes - a.host_bytes, (long long)(14 * mb));
  ZB_CHECK_EQ_INT(b.host_allocations - a.host_allocations, 2);
  if (cached) ZB_CHECK_EQ_INT(b.host_cached_bytes, (long long)(2 * mb)); /* w: 2 MiB + a page */
  ZB_CHECK(z[12 * mb - 1] == 3); /* w did not land on z */
  /* z spans several mappings (x's pages, y's, fresh ones), which mremap
   * will not move as one: growing it copies instead, and keeps the bytes */
  char *z2 = (char *)zb__grow(z, 20 * mb);
  ZB_CHECK(z2 != NULL);
  if (z2 != NULL) {
    ZB_CHECK(z2[0] == 3 && z2[12 * mb - 1] == 3);
    memset(z2 + 12 * mb, 5, 8 * mb);
    z = z2;
  }
  zb_free(z);
  zb_free(w);
  check_all_returned(&a);
}

/* Blocks of 256 KiB to 1 MiB are cached too (glibc gives such blocks back
 * to the system when freed, so each new one faulted all its pages): a
 * freed one comes back for a request of its size, and a request under
 * 1 MiB leaves a cached block more than 4 times its size whole. */
ZB_TEST(test_alloc_cache_keeps_small_blocks_whole) {
  zb_alloc_stats a, b;
  zb_alloc_trim();
  zb_alloc_get_stats(&a);
  const size_t kb = 1024, mb = kb * kb;
  char *p = (char *)zb_malloc(600 * kb);
  ZB_CHECK(p != NULL);
  if (p == NULL) return;
  memset(p, 1, 600 * kb);
  zb_free(p);
  zb_alloc_get_stats(&b);
  bool cached = b.host_cached_bytes > 0; /* off in sanitizer builds */
  char *q = (char *)zb_malloc(600 * kb - 100);
  ZB_CHECK(q != NULL);
  if (cached) ZB_CHECK(q == p);
  char *big = (char *)zb_malloc(8 * mb);
  ZB_CHECK(big != NULL);
  memset(big, 2, 8 * mb);
  zb_free(big);
  zb_free(q);
  char *r = (char *)zb_malloc(300 * kb); /* the 600 KiB block's front: at most 4x */
  char *t = (char *)zb_malloc(300 * kb); /* fresh: the 8 MiB block stays whole */
  ZB_CHECK(r != NULL && t != NULL);
  if (cached) ZB_CHECK(r == q);
  zb_alloc_get_stats(&b);
  /* whole pages, the header needing one more: the 8 MiB block, and what
   * r left of the 600 KiB one */
  size_t pages8 = 8 * mb + 4096, pages600 = 151 * 4096, pages300 = 76 * 4096;
  if (cached) ZB_CHECK_EQ_INT(b.host_cached_bytes, (long long)(pages8 + pages600 - pages300));
  ZB_CHECK_EQ_INT(b.host_bytes - a.host_bytes, (long long)(600 * kb));
  if (r != NULL) memset(r, 3, 300 * kb);
  if (t != NULL) memset(t, 4, 300 * kb);
  char *u = (char *)zb_malloc(8 * mb); /* the 8 MiB block again */
  ZB_CHECK(u != NULL);
  if (cached) ZB_CHECK(u == big);
  zb_free(u);
  zb_free(r);
  zb_free(t);
  check_all_returned(&a);
}

/* A block with room (zb__malloc_room) counts only what it holds: its peak
 * is that, growing within the room keeps the pointer and counts the
 * difference, growing past it keeps the bytes; where the cache holds a
 * freed block the room is that block's pages, resident before any touch. */
ZB_TEST(test_alloc_room_counts_what_it_holds) {
  zb_alloc_stats a, b;
  zb_alloc_trim();
  zb_alloc_get_stats(&a);
  const size_t mb = (size_t)1 << 20;
  char *x = (char *)zb_malloc(16 * mb);
  ZB_CHECK(x != NULL);
  if (x == NULL) return;
  memset(x, 9, 16 * mb);
  zb_free(x);
  zb_alloc_get_stats(&b);
  bool cached = b.host_cached_bytes > 0; /* off in sanitizer builds */
  zb_alloc_reset_peak();
  char *p = (char *)zb__malloc_room(mb, 16 * mb);
  ZB_CHECK(p != NULL);
  if (p == NULL) return;
  zb_alloc_get_stats(&b);
  ZB_CHECK_EQ_INT(b.host_bytes - a.host_bytes, (long long)mb);
  ZB_CHECK_EQ_INT(b.host_peak_bytes - a.host_bytes, (long long)mb);
  ZB_CHECK_EQ_INT(b.host_allocations - a.host_allocations, 1);
#if defined(__linux__)
  if (cached) ZB_CHECK(all_resident(p, 16 * mb) != 0); /* x's pages */
#endif
  memset(p, 1, mb);
  ZB_CHECK(zb__grow(p, 16 * mb) == p); /* in its room */
  zb_alloc_get_stats(&b);
  ZB_CHECK_EQ_INT(b.host_bytes - a.host_bytes, (long long)(16 * mb));
  memset(p + mb, 2, 15 * mb);
  zb_alloc_fail_after(1);
  ZB_CHECK(zb__grow(p, 17 * mb) == NULL); /* refused: as it was */
  zb_alloc_fail_after(0);
  char *q = (char *)zb__grow(p, 17 * mb); /* past the room */
  ZB_CHECK(q != NULL);
  if (q != NULL) {
    ZB_CHECK(q[0] == 1 && q[mb - 1] == 1 && q[mb] == 2 && q[16 * mb - 1] == 2);
    memset(q + 16 * mb, 3, mb);
    p = q;
  }
  zb_alloc_get_stats(&b);
  ZB_CHECK_EQ_INT(b.host_bytes - a.host_bytes, (long long)(17 * mb));
  zb_free(p);
  zb_alloc_trim();
  zb_alloc_get_stats(&b);
  ZB_CHECK_EQ_INT(b.host_bytes, a.host_bytes);
  ZB_CHECK_EQ_INT(b.host_allocations, a.host_allocations);
}

/* Threads allocating, filling, checking and freeing blocks of 1-6 MiB
 * at once: blocks are split, assembled from others' pages and handed back
 * concurrently, and no block ever shares a byte with another live one. */
typedef struct alloc_stress_arg {
  unsigned seed;
  int bad;
} alloc_stress_arg;

static void *alloc_stress_thread(void *p) {
  alloc_stress_arg *a = (alloc_stress_arg *)p;
  char *live[4] = {NULL, NULL, NULL, NULL};
  size_t len[4] = {0, 0, 0, 0};
  unsigned x = a->seed;
  for (int it = 0; it < 120; it++) {
    x = x * 1103515245u + 12345u;
    int slot = (int)((x >> 16) & 3);
    if (live[slot] != NULL) { /* its pattern must be intact */
      unsigned char tag = (unsigned char)(a->seed + (unsigned)slot);
      for (size_t i = 0; i < len[slot]; i += 4093)
        if ((unsigned char)live[slot][i] != tag) a->bad++;
      if ((unsigned char)live[slot][len[slot] - 1] != tag) a->bad++;
      zb_free(live[slot]);
    }
    x = x * 1103515245u + 12345u;
    len[slot] = ((size_t)1 << 20) + (size_t)((x >> 8) % (5u << 20));
    live[slot] = (char *)zb_malloc(len[slot]);
    if (live[slot] == NULL) {
      a->bad++;
      continue;
    }
    memset(live[slot], (unsigned char)(a->seed + (unsigned)slot), len[slot]);
  }
  for (int k = 0; k < 4; k++) zb_free(live[k]);
  return NULL;
}

ZB_TEST(test_alloc_cache_threads) {
  zb_alloc_stats a, b;
  zb_alloc_trim();
  zb_alloc_get_stats(&a);
  pthread_t th[4];
  alloc_stress_arg args[4];
  for (int i = 0; i < 4; i++) {
    args[i].seed = 17u + 40u * (unsigned)i;
    args[i].bad = 0;
    ZB_CHECK(pthread_create(&th[i], NULL, alloc_stress_thread, &args[i]) == 0);
  }
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < 4; i++) ZB_CHECK_EQ_INT(args[i].bad, 0);
  zb_alloc_get_stats(&b);
  ZB_CHECK_EQ_INT(b.host_bytes, a.host_bytes);
  ZB_CHECK_EQ_INT(b.host_allocations, a.host_allocations);
  zb_alloc_trim();
  zb_alloc_get_stats(&b);
  ZB_CHECK_EQ_INT(b.host_cached_bytes, 0);
}

/* Build a string column with nulls, slice it, build a table: every
 * allocation point in turn fails and must give a clean ZB_ENOMEM. */
static zb_status build_everything(zb_error *err) {
  const char *vals[] = {"a", NULL, "bcd", "efgh", NULL, "ij"};
  zb_column *c = NULL, *s = NULL, *n = NULL;
  zb_table *t = NULL;
  zb_status st = make_strings(vals, 6, &c, err);
  if (st == ZB_OK) st = zb_column_slice(c, 1, 4, &s, err);
  if (st == ZB_OK) st = zb_column_new(ZB_FLOAT64, 4, true, 0, &n, err);
  if (st == ZB_OK) {
    zb_column *cols[] = {s, n};
    const char *names[] = {"s", "n"};
    st = zb_table_make(2, cols, names, &t, err);
  }
  zb_table *t2 = NULL;
  if (st == ZB_OK) st = zb_table_slice(t, 1, 2, &t2, err);
  if (st == ZB_OK) {
    zb_column *cols[] = {c};
    const char *names[] = {"timestamp_with_a_long_name"};
    zb_table *t3 = NULL;
    st = zb_table_make(1, cols, names, &t3, err);
    zb_table_release(t3);
  }
  zb_table_release(t2);
  zb_table_release(t);
  zb_column_release(n);
  zb_column_release(s);
  zb_column_release(c);
  return st;
}

ZB_TEST(test_fail_each_allocation_in_turn) {
  zb_error err = {{0}};
  int failures = 0;
  for (int64_t n = 1; n < 1000; n++) {
    zb_alloc_fail_after(n);
    zb_status st = build_everything(&err);
    int64_t left = zb_alloc_fail_after(0);
    zb_alloc_stats s;
    zb_alloc_get_stats(&s);
    ZB_CHECK_EQ_INT(s.host_allocations, 0);
    ZB_CHECK_EQ_INT(s.host_bytes, 0);
    if (left > 0) { /* the injector never fired: the whole build succeeded */
      ZB_CHECK_OK(st, &err);
      break;
    }
    ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
    ZB_CHECK(strstr(err.message, "memory") != NULL);
    failures++;
  }
  ZB_CHECK(failures > 10);
}

/* ---- reductions ---- */

ZB_TEST(test_reduce_int64_with_nulls_all_thread_counts) {
  zb_error err = {{0}};
  int saved = zb_get_num_threads();
  int64_t sizes[] = {0, 1, 63, 64, 65, 1000, ZB_MORSEL_ROWS + 7, 3 * ZB_MORSEL_ROWS + 129};
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    int64_t n = sizes[si];
    zb_column *c = NULL;
    ZB_CHECK_OK(zb_column_new(ZB_INT64, n, true, 0, &c, &err), &err);
    uint64_t seed = (uint64_t)n;
    int64_t *v = (int64_t *)c->data->data;
    int64_t sum = 0, cnt = 0, mn = INT64_MAX, mx = INT64_MIN;
    for (int64_t i = 0; i < n; i++) {
      v[i] = (int64_t)(rng_next(&seed) % 2000001) - 1000000;
      bool valid = rng_next(&seed) % 10 != 0;
      zb_bit_set((uint8_t *)c->validity->data, i, valid);
      if (valid) {
        sum += v[i];
        cnt++;
        mn = v[i] < mn ? v[i] : mn;
        mx = v[i] > mx ? v[i] : mx;
      }
    }
    zb_column_recount_nulls(c);
    /* also an odd-offset slice */
    zb_column *s = NULL;
    ZB_CHECK_OK(zb_column_slice(c, n > 5 ? 5 : 0, n, &s, &err), &err);
    int64_t ssum = 0;
    for (int64_t i = 0; i < s->length; i++)
      if (zb_column_is_valid(s, i)) ssum += ((int64_t *)s->data->data)[s->offset + i];
    for (int threads = 1; threads <= 3; threads++) {
      ZB_CHECK_OK(zb_set_num_threads(threads, &err), &err);
      zb_scalar r;
      ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_SUM, &r, &err), &err);
      ZB_CHECK_EQ_INT(r.type, ZB_INT64);
      ZB_CHECK_EQ_INT(r.v.i, sum);
      ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_COUNT, &r, &err), &err);
      ZB_CHECK_EQ_INT(r.v.i, cnt);
      ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_MIN, &r, &err), &err);
      ZB_CHECK_EQ_INT(r.is_null, cnt == 0);
      if (cnt) ZB_CHECK_EQ_INT(r.v.i, mn);
      ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_MAX, &r, &err), &err);
      if (cnt) ZB_CHECK_EQ_INT(r.v.i, mx);
      ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_MEAN, &r, &err), &err);
      ZB_CHECK_EQ_INT(r.is_null, cnt == 0);
      if (cnt) ZB_CHECK(fabs(r.v.f - (double)sum / (double)cnt) <= 1e-9 * (1 + fabs(r.v.f)));
      ZB_CHECK_OK(zb_column_reduce(s, ZB_REDUCE_SUM, &r, &err), &err);
      ZB_CHECK_EQ_INT(r.v.i, ssum);
    }
    zb_column_release(s);
    zb_column_release(c);
  }
  ZB_CHECK_OK(zb_set_num_threads(saved, &err), &err);
}

ZB_TEST(test_reduce_float_nan_and_compensation) {
  zb_error err = {{0}};
  int64_t n = 200003;
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, n, false, 0, &c, &err), &err);
  double *v = (double *)c->data->data;
  /* 1e8 followed by many 0.1s: a naive sum loses the small terms' digits */
  long double exact = 0;
  int64_t cnt = 0;
  for (int64_t i = 0; i < n; i++) {
    v[i] = i == 0 ? 1e8 : (i % 1000 == 7 ? NAN : 0.1);
    if (!isnan(v[i])) {
      exact += (long double)v[i];
      cnt++;
    }
  }
  zb_scalar r;
  ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_SUM, &r, &err), &err);
  ZB_CHECK(fabsl((long double)r.v.f - exact) <= 1e-12L * fabsl(exact));
  ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_COUNT, &r, &err), &err);
  ZB_CHECK_EQ_INT(r.v.i, cnt);
  ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_MAX, &r, &err), &err);
  ZB_CHECK(r.v.f == 1e8);
  ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_MIN, &r, &err), &err);
  ZB_CHECK(r.v.f == 0.1);
  /* an infinity anywhere (here in the second morsel) makes the sum infinite */
  v[ZB_MORSEL_ROWS + 3] = -INFINITY;
  ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_SUM, &r, &err), &err);
  ZB_CHECK(isinf(r.v.f) && r.v.f < 0);
  v[5] = INFINITY; /* inf + -inf is NaN, as in numpy */
  ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_SUM, &r, &err), &err);
  ZB_CHECK(isnan(r.v.f));
  zb_column_release(c);
}

/* Float sums add in numpy's pairwise order (pandas' digits): ten 0.1s
 * go into eight running sums, joined as ((r0 + r1) + (r2 + r3)) + ...,
 * then the last two one by one, which gives exactly 1.0 (one by one from
 * 0 gives 0.9999999999999999); a null adds 0 in its place, and the mean
 * divides that sum.  Variance: pandas' two passes, the squared
 * deviations from the mean added in the same order. */
ZB_TEST(test_reduce_float_pairwise_order) {
  zb_error err = {{0}};
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, 11, true, 0, &c, &err), &err);
  double *v = (double *)c->data->data;
  for (int i = 0; i < 11; i++) v[i] = 0.1;
  v[4] = 123.0;
  zb_bit_set((uint8_t *)c->validity->data, 4, false);
  c->null_count = 1;
  zb_scalar r;
  ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_SUM, &r, &err), &err);
  ZB_CHECK(r.v.f == 1.0);
  ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_MEAN, &r, &err), &err);
  ZB_CHECK(r.v.f == 1.0 / 10.0);
  zb_column_release(c);
  /* 130 values split 64 + 66: each half its own block of eight sums */
  ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, 130, false, 0, &c, &err), &err);
  v = (double *)c->data->data;
  for (int i = 0; i < 130; i++) v[i] = i % 3 == 0 ? 1e16 : (i % 3 == 1 ? 1.0 : -1e16);
  double h[2] = {0, 0};
  for (int half = 0; half < 2; half++) {
    const double *a = v + (half ? 64 : 0);
    int m = half ? 66 : 64;
    double rr[8];
    for (int k = 0; k < 8; k++) rr[k] = a[k];
    int i = 8;
    for (; i < m - m % 8; i += 8)
      for (int k = 0; k < 8; k++) rr[k] += a[i + k];
    h[half] = ((rr[0] + rr[1]) + (rr[2] + rr[3])) + ((rr[4] + rr[5]) + (rr[6] + rr[7]));
    for (; i < m; i++) h[half] += a[i];
  }
  ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_SUM, &r, &err), &err);
  ZB_CHECK(r.v.f == h[0] + h[1]);
  zb_column_release(c);
}

ZB_TEST(test_reduce_small_types_and_bool) {
  zb_error err = {{0}};
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_UINT8, 300, true, 0, &c, &err), &err);
  uint8_t *v = (uint8_t *)c->data->data;
  uint64_t sum = 0, mx = 0;
  for (int i = 0; i < 300; i++) {
    v[i] = (uint8_t)(i * 7 + 3);
    if (i % 5 == 0) {
      zb_bit_set((uint8_t *)c->validity->data, i, false);
    } else {
      sum += v[i];
      mx = v[i] > mx ? v[i] : mx;
    }
  }
  zb_column_recount_nulls(c);
  zb_scalar r;
  ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_SUM, &r, &err), &err);
  ZB_CHECK_EQ_INT(r.type, ZB_UINT64);
  ZB_CHECK_EQ_INT(r.v.u, sum);
  ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_MAX, &r, &err), &err);
  ZB_CHECK_EQ_INT(r.type, ZB_UINT8);
  ZB_CHECK_EQ_INT(r.v.u, mx);
  zb_column_release(c);

  zb_column *b = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_BOOL, 77, true, 0, &b, &err), &err);
  memset(b->data->data, 0, 10);
  int64_t trues = 0, valid = 0;
  for (int i = 0; i < 77; i++) {
    bool t = i % 3 == 0, ok = i % 4 != 0;
    zb_bit_set((uint8_t *)b->data->data, i, t);
    zb_bit_set((uint8_t *)b->validity->data, i, ok);
    trues += t && ok;
    valid += ok;
  }
  zb_column_recount_nulls(b);
  zb_column *bs = NULL;
  ZB_CHECK_OK(zb_column_slice(b, 0, 77, &bs, &err), &err);
  ZB_CHECK_OK(zb_column_reduce(bs, ZB_REDUCE_SUM, &r, &err), &err);
  ZB_CHECK_EQ_INT(r.v.i, trues);
  ZB_CHECK_OK(zb_column_reduce(bs, ZB_REDUCE_COUNT, &r, &err), &err);
  ZB_CHECK_EQ_INT(r.v.i, valid);
  ZB_CHECK_OK(zb_column_reduce(bs, ZB_REDUCE_MIN, &r, &err), &err);
  ZB_CHECK(r.type == ZB_BOOL && r.v.b == false);
  zb_column_release(bs);
  zb_column_release(b);

  zb_column *s = NULL;
  const char *vals[] = {"a"};
  ZB_CHECK_OK(make_strings(vals, 1, &s, &err), &err);
  ZB_CHECK_EQ_INT(zb_column_reduce(s, ZB_REDUCE_SUM, &r, &err), ZB_ETYPE);
  ZB_CHECK(strstr(err.message, "string") != NULL);
  zb_column_release(s);
}

/* Every numeric type: random values over the type's whole range, 10% nulls,
 * a slice at an odd offset; sum (wrapped to 64 bits), min, max, count and
 * mean against plain loops. */
ZB_TEST(test_reduce_every_type_against_loops) {
  zb_error err = {{0}};
  const zb_type_id types[] = {ZB_INT8,   ZB_INT16,  ZB_INT32,  ZB_INT64,   ZB_UINT8,
                              ZB_UINT16, ZB_UINT32, ZB_UINT64, ZB_FLOAT32, ZB_FLOAT64};
  for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
    zb_type_id t = types[ti];
    int width = zb_type_width(t);
    int64_t n = 2 * ZB_MORSEL_ROWS + 211;
    zb_column *full = NULL, *c = NULL;
    ZB_CHECK_OK(zb_column_new(t, n, true, 0, &full, &err), &err);
    uint64_t seed = 1234 + ti;
    for (int64_t i = 0; i < n; i++) {
      uint64_t r = rng_next(&seed);
      unsigned char *dst = (unsigned char *)full->data->data + i * width;
      if (t == ZB_FLOAT32) {
        float f = (float)((double)(int64_t)r / 1e12);
        memcpy(dst, &f, 4);
      } else if (t == ZB_FLOAT64) {
        double d = (double)(int64_t)r / 1e9;
        memcpy(dst, &d, 8);
      } else {
        memcpy(dst, &r, (size_t)width); /* low bytes: the whole range of the type */
      }
      zb_bit_set((uint8_t *)full->validity->data, i, rng_next(&seed) % 10 != 0);
    }
    zb_column_recount_nulls(full);
    ZB_CHECK_OK(zb_column_slice(full, 3, n - 10, &c, &err), &err);
    long double fsum = 0, fabsum = 0;
    uint64_t isum = 0;
    int64_t cnt = 0;
    long double mn = 0, mx = 0;
    for (int64_t i = 0; i < c->length; i++) {
      if (!zb_column_is_valid(c, i)) continue;
      const unsigned char *src = (const unsigned char *)c->data->data + (c->offset + i) * width;
      long double x;
      switch (t) {
        case ZB_INT8: x = *(const int8_t *)src; break;
        case ZB_INT16: { int16_t v; memcpy(&v, src, 2); x = v; break; }
        case ZB_INT32: { int32_t v; memcpy(&v, src, 4); x = v; break; }
        case ZB_INT64: { int64_t v; memcpy(&v, src, 8); x = (long double)v; isum += (uint64_t)v; break; }
        case ZB_UINT8: x = *src; break;
        case ZB_UINT16: { uint16_t v; memcpy(&v, src, 2); x = v; break; }
        case ZB_UINT32: { uint32_t v; memcpy(&v, src, 4); x = v; break; }
        case ZB_UINT64: { uint64_t v; memcpy(&v, src, 8); x = (long double)v; isum += v; break; }
        case ZB_FLOAT32: { float v; memcpy(&v, src, 4); x = v; break; }
        default: { double v; memcpy(&v, src, 8); x = v; break; }
      }
      if (t != ZB_INT64 && t != ZB_UINT64) isum += (uint64_t)(int64_t)x;
      fsum += x;
      fabsum += fabsl(x);
      mn = cnt == 0 || x < mn ? x : mn;
      mx = cnt == 0 || x > mx ? x : mx;
      cnt++;
    }
    zb_scalar r;
    ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_COUNT, &r, &err), &err);
    ZB_CHECK_EQ_INT(r.v.i, cnt);
    ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_SUM, &r, &err), &err);
    /* float32 adds in float32, as numpy does: its rounding error is the
     * pairwise bound, about log2(n) float32 ulps of the sum of magnitudes */
    long double ftol = t == ZB_FLOAT32 ? 20 * 6e-8L * (1 + fabsum) : 1e-9L * (1 + fabsl(fsum));
    if (zb_type_is_float(t))
      ZB_CHECK(fabsl((long double)r.v.f - fsum) <= ftol);
    else
      ZB_CHECK(r.v.u == isum);
    ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_MEAN, &r, &err), &err);
    if (t == ZB_FLOAT32)
      ZB_CHECK(fabsl((long double)r.v.f - fsum / cnt) <= ftol / cnt + 6e-8L * fabsl(fsum / cnt));
    else
      ZB_CHECK(fabsl((long double)r.v.f - fsum / cnt) <= 1e-9L * (1 + fabsl(fsum / cnt)));
    ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_MIN, &r, &err), &err);
    long double got = zb_type_is_float(t) ? (long double)r.v.f
                      : zb_type_is_signed(t) ? (long double)r.v.i : (long double)r.v.u;
    ZB_CHECK(got == mn);
    ZB_CHECK_OK(zb_column_reduce(c, ZB_REDUCE_MAX, &r, &err), &err);
    got = zb_type_is_float(t) ? (long double)r.v.f
          : zb_type_is_signed(t) ? (long double)r.v.i : (long double)r.v.u;
    ZB_CHECK(got == mx);
    if (got != mx) fprintf(stderr, "  type %s\n", zb_type_name(t));
    zb_column_release(c);
    zb_column_release(full);
  }
}
