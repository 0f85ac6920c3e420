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
 * Waking a sleeping thread costs tens of microseconds (more on a virtual
 * machine), as much as a whole pass over 10^5 rows.  So an idle worker
 * first spins for ZB_SPIN_NS watching the count of posted jobs before it
 * sleeps, and a caller whose tasks are all claimed spins as long for the
 * workers still inside its job: back-to-back passes (count, then write;
 * several columns) hand over without a sleep.  Nothing spins when the
 * thread setting exceeds the cores.
 *
 * Invariant: a job stays in the list until every task is done AND no worker
 * is still inside it, so the caller's stack-allocated job outlives all use.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
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
  int active;       /* atomic, changed under pool lock: threads inside the job */
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
  uint64_t posted; /* atomic: jobs posted so far */
} g_pool = {PTHREAD_ONCE_INIT, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
            PTHREAD_COND_INITIALIZER, NULL, 0, 1, 0};

#define ZB_SPIN_NS 100000 /* 0.1 ms */

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static int g_cores; /* set once by pool_init */

/* Spin until cond(arg) holds or ZB_SPIN_NS have passed; true if it held.
 * With more threads than cores a spinning thread would take a core from
 * one still working, so then there is no spinning. */
static bool spin_until(bool (*cond)(const void *), const void *arg) {
  if (__atomic_load_n(&g_pool.threads, __ATOMIC_RELAXED) > g_cores) return cond(arg);
  int64_t end = 0;
  for (int i = 0;; i++) {
    if (cond(arg)) return true;
    if ((i & 63) == 0) {
      int64_t t = now_ns();
      if (end == 0)
        end = t + ZB_SPIN_NS;
      else if (t >= end)
        return false;
    }
    cpu_relax();
  }
}

static bool posted_since(const void *seen) {
  return __atomic_load_n(&g_pool.posted, __ATOMIC_RELAXED) != *(const uint64_t *)seen;
}

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
  g_cores = n;
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
      /* Spin a while for the next job, then sleep.  Sleeping is decided
       * under the lock after a last look, so no post is missed. */
      uint64_t seen = __atomic_load_n(&g_pool.posted, __ATOMIC_RELAXED);
      pthread_mutex_unlock(&g_pool.lock);
      bool posted = spin_until(posted_since, &seen);
      pthread_mutex_lock(&g_pool.lock);
      if (!posted && find_job() == NULL) pthread_cond_wait(&g_pool.work, &g_pool.lock);
      continue;
    }
    int slot = j->participants++;
    __atomic_add_fetch(&j->active, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&g_pool.lock);
    run_tasks(j, slot);
    pthread_mutex_lock(&g_pool.lock);
    if (__atomic_sub_fetch(&j->active, 1, __ATOMIC_RELEASE) == 0)
      pthread_cond_broadcast(&g_pool.finished);
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

/* All tasks of the job done and only its caller inside. */
static bool only_caller_left(const void *arg) {
  const job *j = (const job *)arg;
  return __atomic_load_n(&j->done, __ATOMIC_ACQUIRE) >= j->n_tasks &&
         __atomic_load_n(&j->active, __ATOMIC_ACQUIRE) == 1;
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
  __atomic_add_fetch(&g_pool.posted, 1, __ATOMIC_RELAXED);
  pthread_cond_broadcast(&g_pool.work);
  pthread_mutex_unlock(&g_pool.lock);

  run_tasks(&j, 0);

  /* Every task is claimed: wait for the workers still inside, spinning
   * first (they are usually finishing their last morsel). */
  (void)spin_until(only_caller_left, &j);
  pthread_mutex_lock(&g_pool.lock);
  __atomic_sub_fetch(&j.active, 1, __ATOMIC_RELAXED);
  while (__atomic_load_n(&j.done, __ATOMIC_ACQUIRE) < n_tasks ||
         __atomic_load_n(&j.active, __ATOMIC_ACQUIRE) > 0)
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
