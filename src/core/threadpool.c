/*
 * threadpool.c -- one persistent pool of worker threads running morsels.
 *
 * zb_parallel_for posts a job (a task count and a function) to the pool and
 * works on it itself; idle workers join jobs that still have unclaimed tasks
 * and fewer participants than the thread setting allows.  Tasks are claimed
 * with an atomic counter, so a slow morsel never holds up the others.
 * Several Python threads may run jobs at once; each job gets its own worker
 * slots [0, threads).
 *
 * Invariant: a job stays in the list until every task is done AND no worker
 * is still inside it, so the caller's stack-allocated job outlives all use.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/internal.h"

typedef struct job {
  zb_task_fn fn;
  void *ctx;
  int64_t n_tasks;
  int64_t next;  /* atomic: next unclaimed task */
  int64_t done;  /* atomic: tasks finished */
  int max_workers;
  int participants; /* under pool lock: slots handed out */
  int active;       /* under pool lock: threads inside the job */
  struct job *link;
} job;

static struct {
  pthread_once_t once;
  pthread_mutex_t lock;
  pthread_cond_t work;
  pthread_cond_t finished;
  job *jobs;
  int workers; /* threads started */
  int threads; /* the setting: threads per job, caller included */
} g_pool = {PTHREAD_ONCE_INIT, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
            PTHREAD_COND_INITIALIZER, NULL, 0, 1};

int zb_available_cores(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

static void pool_init(void) {
  int n = zb_available_cores();
  const char *env = getenv("ZAMBEZI_NUM_THREADS");
  if (env != NULL && *env != '\0') {
    char *end = NULL;
    long v = strtol(env, &end, 10);
    if (end != NULL && *end == '\0' && v >= 1 && v <= 4096) n = (int)v;
  }
  g_pool.threads = n;
}

/* A job this worker may join, or NULL.  Called with the lock held. */
static job *find_job(void) {
  for (job *j = g_pool.jobs; j != NULL; j = j->link)
    if (__atomic_load_n(&j->next, __ATOMIC_RELAXED) < j->n_tasks &&
        j->participants < j->max_workers)
      return j;
  return NULL;
}

static void run_tasks(job *j, int slot) {
  for (;;) {
    int64_t t = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
    if (t >= j->n_tasks) break;
    j->fn(j->ctx, t, slot);
    __atomic_add_fetch(&j->done, 1, __ATOMIC_RELEASE);
  }
}

static void *worker_main(void *arg) {
  (void)arg;
  pthread_mutex_lock(&g_pool.lock);
  for (;;) {
    job *j = find_job();
    if (j == NULL) {
      pthread_cond_wait(&g_pool.work, &g_pool.lock);
      continue;
    }
    int slot = j->participants++;
    j->active++;
    pthread_mutex_unlock(&g_pool.lock);
    run_tasks(j, slot);
    pthread_mutex_lock(&g_pool.lock);
    if (--j->active == 0) pthread_cond_broadcast(&g_pool.finished);
  }
  return NULL;
}

/* Start workers until there are `want`.  Called with the lock held.  A
 * thread that cannot be started only means less parallelism. */
static void ensure_workers(int want) {
  while (g_pool.workers < want) {
    pthread_t th;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&th, &attr, worker_main, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) break;
    g_pool.workers++;
  }
}

int zb_get_num_threads(void) {
  pthread_once(&g_pool.once, pool_init);
  return __atomic_load_n(&g_pool.threads, __ATOMIC_RELAXED);
}

zb_status zb_set_num_threads(int n, zb_error *err) {
  if (n < 1 || n > 4096)
    return zb_error_set(err, ZB_EINVAL, "number of threads must be in 1..4096, not %d", n);
  pthread_once(&g_pool.once, pool_init);
  __atomic_store_n(&g_pool.threads, n, __ATOMIC_RELAXED);
  return ZB_OK;
}

zb_status zb_parallel_for(int64_t n_tasks, zb_task_fn fn, void *ctx, zb_error *err) {
  if (n_tasks < 0) return zb_error_set(err, ZB_EINVAL, "negative task count");
  if (n_tasks == 0) return ZB_OK;
  int threads = zb_get_num_threads();
  if (threads == 1 || n_tasks == 1) {
    for (int64_t t = 0; t < n_tasks; t++) fn(ctx, t, 0);
    return ZB_OK;
  }
  job j = {fn, ctx, n_tasks, 0, 0, (int)ZB_MIN((int64_t)threads, n_tasks), 1, 1, NULL};
  pthread_mutex_lock(&g_pool.lock);
  ensure_workers(threads - 1);
  j.link = g_pool.jobs;
  g_pool.jobs = &j;
  pthread_cond_broadcast(&g_pool.work);
  pthread_mutex_unlock(&g_pool.lock);

  run_tasks(&j, 0);

  pthread_mutex_lock(&g_pool.lock);
  j.active--;
  while (__atomic_load_n(&j.done, __ATOMIC_ACQUIRE) < n_tasks || j.active > 0)
    pthread_cond_wait(&g_pool.finished, &g_pool.lock);
  for (job **p = &g_pool.jobs; *p != NULL; p = &(*p)->link) {
    if (*p == &j) {
      *p = j.link;
      break;
    }
  }
  pthread_mutex_unlock(&g_pool.lock);
  return ZB_OK;
}
