/*
 * profile.c -- the recorder behind zambezi/profile.h and the hooks that the
 * operation entry points use (ZB_PROFILE_OP in internal.h).
 *
 * Active profiles sit in one list under a mutex; zb__prof_sessions counts
 * them so that an entry point with no profile active pays a single relaxed
 * atomic load.  When one is active, an entry point's span takes a start
 * time, a sequence number and the thread's nesting depth when it opens, and
 * when it closes (the span's cleanup, on every return path) waits for GPU
 * work, takes the end time and appends one record to each active profile
 * that covers the calling thread.  Records are sorted by sequence number
 * when the profile stops, so a nested operation follows its parent.
 *
 * Invariant: a profile in the list is never freed; zb_profile_stop removes
 * it under the mutex before its records are read.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "zambezi/profile.h"

struct zb_profile {
  bool all_threads, active;
  int64_t thread;  /* the thread that started it */
  int64_t t_start; /* CLOCK_MONOTONIC ns */
  int64_t seq_start;
  zb_profile_record *recs;
  int64_t n, cap, dropped;
  struct zb_profile *next;
};

int zb__prof_sessions;
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static zb_profile *g_list;
static int64_t g_seq, g_threads;
static _Thread_local int64_t tl_thread;
static _Thread_local int32_t tl_depth;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t thread_id(void) {
  if (tl_thread == 0) tl_thread = __atomic_add_fetch(&g_threads, 1, __ATOMIC_RELAXED);
  return tl_thread;
}

zb_status zb_profile_start(bool all_threads, zb_profile **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "profile: NULL output");
  zb_profile *p = (zb_profile *)zb_calloc(1, sizeof *p);
  *out = p;
  if (p == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory starting a profile");
  p->all_threads = all_threads;
  p->thread = thread_id();
  p->active = true;
  pthread_mutex_lock(&g_mu);
  /* time first: an operation numbered after seq_start starts after t_start */
  p->t_start = now_ns();
  p->seq_start = __atomic_load_n(&g_seq, __ATOMIC_SEQ_CST);
  p->next = g_list;
  g_list = p;
  __atomic_add_fetch(&zb__prof_sessions, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&g_mu);
  return ZB_OK;
}

static int by_seq(const void *a, const void *b) {
  int64_t x = ((const zb_profile_record *)a)->seq, y = ((const zb_profile_record *)b)->seq;
  return (x > y) - (x < y);
}

void zb_profile_stop(zb_profile *p) {
  if (p == NULL) return;
  pthread_mutex_lock(&g_mu);
  bool was_active = p->active;
  if (was_active) {
    zb_profile **link = &g_list;
    while (*link != NULL && *link != p) link = &(*link)->next;
    if (*link == p) *link = p->next;
    p->next = NULL;
    p->active = false;
    __atomic_sub_fetch(&zb__prof_sessions, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&g_mu);
  if (was_active && p->n > 1) qsort(p->recs, (size_t)p->n, sizeof *p->recs, by_seq);
}

const zb_profile_record *zb_profile_records(zb_profile *p, int64_t *n) {
  if (n != NULL) *n = 0;
  if (p == NULL) return NULL;
  pthread_mutex_lock(&g_mu);
  bool active = p->active;
  pthread_mutex_unlock(&g_mu);
  if (active) return NULL;
  if (n != NULL) *n = p->n;
  return p->recs;
}

int64_t zb_profile_dropped(const zb_profile *p) { return p != NULL ? p->dropped : 0; }

void zb_profile_free(zb_profile *p) {
  if (p == NULL) return;
  zb_profile_stop(p);
  zb_free(p->recs);
  zb_free(p);
}

/* ---- hooks --------------------------------------------------------------- */

void zb__prof_open(zb__prof_span *sp) {
  sp->depth = tl_depth++;
  sp->seq = __atomic_add_fetch(&g_seq, 1, __ATOMIC_RELAXED);
  sp->t0 = now_ns();
}

/* Append r to p (under g_mu). */
static void append(zb_profile *p, const zb_profile_record *r) {
  if (p->n == p->cap) {
    int64_t cap = p->cap > 0 ? p->cap * 2 : 64;
    zb_profile_record *recs = (zb_profile_record *)zb_malloc((size_t)cap * sizeof *recs);
    if (recs == NULL) {
      p->dropped++;
      return;
    }
    if (p->n > 0) memcpy(recs, p->recs, (size_t)p->n * sizeof *recs);
    zb_free(p->recs);
    p->recs = recs;
    p->cap = cap;
  }
  p->recs[p->n] = *r;
  p->recs[p->n].start_ns -= p->t_start;
  p->n++;
}

void zb__prof_close(zb__prof_span *sp) {
  tl_depth--;
  zb_profile_record r;
  memset(&r, 0, sizeof r);
  r.op = sp->op != NULL ? sp->op : "unknown";
  r.data_device = sp->data_device;
  r.device = sp->run_device;
  r.rows = sp->rows;
  r.depth = sp->depth;
  r.thread = thread_id();
  r.seq = sp->seq;
  if ((!sp->has_entry || sp->declined) && sp->data_device.kind != ZB_DEVICE_CPU) {
    const zb_backend *be = zb__backend_for(sp->data_device.kind);
    const char *bname = be != NULL ? be->name : "this device's";
    const char *entry = sp->entry != NULL ? sp->entry : r.op;
    r.device = ZB_CPU;
    r.fallback = true;
    if (sp->has_entry)
      snprintf(r.reason, sizeof r.reason, "%s backend declined '%s' for these inputs", bname,
               entry);
    else if (sp->partial)
      snprintf(r.reason, sizeof r.reason,
               "%s backend does not run '%s' for these types or options", bname, entry);
    else
      snprintf(r.reason, sizeof r.reason, "%s backend has no '%s'", bname, entry);
  }
  /* Wait for the GPU so the time covers its work (results of a fallback
   * were copied back, which waits already). */
  zb_device gpu = r.device.kind != ZB_DEVICE_CPU ? r.device : r.data_device;
  if (gpu.kind != ZB_DEVICE_CPU) {
    const zb_backend *be = zb__backend_for(gpu.kind);
    if (be != NULL && be->synchronize != NULL) (void)be->synchronize(gpu.id, NULL);
  }
  int64_t t1 = now_ns();
  r.start_ns = sp->t0;
  r.wall_ns = t1 - sp->t0;
  pthread_mutex_lock(&g_mu);
  for (zb_profile *p = g_list; p != NULL; p = p->next) {
    if (!p->all_threads && p->thread != r.thread) continue;
    if (sp->seq <= p->seq_start) continue; /* began before the profile */
    append(p, &r);
  }
  pthread_mutex_unlock(&g_mu);
}
