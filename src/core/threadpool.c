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
 *
 * Cancellation (Ctrl-C): zb_cancel_all bumps a generation counter, one
 * lock-free atomic add, so a signal handler may call it.  A thread starting
 * an operation records the generation (zb_cancel_scope_begin); a job posted
 * from that thread carries it, and each task first compares it with the
 * counter: one relaxed load per morsel, nothing in the kernels' loops.  A
 * cancelled job's remaining tasks are claimed and counted done without
 * running, so the wait below ends as soon as the morsels in flight finish.
 * A task runs in its poster's scope, so a long one (or a long serial loop
 * in the caller) may stop early through zb_cancel_requested(); the job then
 * returns ZB_ECANCEL all the same.
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
  int64_t done;  /* atomic: tasks finished (or skipped) */
  uint64_t scope; /* the poster's scope (generation + 1), 0: never cancelled */
  const char *op; /* the poster's zb__current_op */
  int skipped;    /* atomic: a task was skipped (the job was cancelled) */
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

/* Cancellation generation, and the calling thread's scope: generation + 1
 * when its operation began, 0 outside any operation. */
static uint64_t g_cancel_gen;
static _Thread_local uint64_t t_scope;
__thread const char *zb__current_op;

void zb_cancel_all(void) { __atomic_add_fetch(&g_cancel_gen, 1, __ATOMIC_RELAXED); }

void zb_cancel_scope_begin(void) {
  t_scope = __atomic_load_n(&g_cancel_gen, __ATOMIC_RELAXED) + 1;
}

void zb_cancel_scope_end(void) { t_scope = 0; }

static int64_t g_cancel_countdown; /* zb_cancel_after_tasks: tasks still to go */
static int64_t g_cancel_skips;     /* tasks skipped, for zb_cancel_after_tasks */

int64_t zb_cancel_after_tasks(int64_t n) {
  __atomic_store_n(&g_cancel_countdown, n > 0 ? n : 0, __ATOMIC_RELAXED);
  return __atomic_exchange_n(&g_cancel_skips, 0, __ATOMIC_RELAXED);
}

static inline bool gen_moved(uint64_t scope) {
  return scope != 0 && __atomic_load_n(&g_cancel_gen, __ATOMIC_RELAXED) + 1 != scope;
}

/* Before a task: the testing countdown, then whether to skip it. */
static inline bool scope_cancelled(uint64_t scope) {
  if (__builtin_expect(__atomic_load_n(&g_cancel_countdown, __ATOMIC_RELAXED) > 0, 0) &&
      __atomic_sub_fetch(&g_cancel_countdown, 1, __ATOMIC_RELAXED) == 0)
    zb_cancel_all();
  return gen_moved(scope);
}

bool zb_cancel_requested(void) { return gen_moved(t_scope); }

bool zb__await_published(const int64_t *slot, int64_t *value) {
  for (int spins = 0;; spins++) {
    int64_t v = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (v >= 0) {
      *value = v;
      return true;
    }
    if (spins < 256) {
      cpu_relax();
    } else {
      if (zb_cancel_requested()) return false;
      sched_yield();
    }
  }
}

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
  uint64_t own_scope = t_scope; /* a worker runs the task in the poster's scope */
  const char *own_op = zb__current_op;
  t_scope = j->scope;
  zb__current_op = j->op;
  for (;;) {
    int64_t t = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
    if (t >= j->n_tasks) break;
    if (scope_cancelled(j->scope)) {
      /* claim every task not yet claimed ([rest, n_tasks)) at once, and
       * count them and this one done; tasks others claimed they count */
      int64_t rest = __atomic_exchange_n(&j->next, j->n_tasks, __ATOMIC_RELAXED);
      int64_t skip = 1 + (rest < j->n_tasks ? j->n_tasks - rest : 0);
      __atomic_store_n(&j->skipped, 1, __ATOMIC_RELAXED);
      __atomic_add_fetch(&g_cancel_skips, skip, __ATOMIC_RELAXED);
      __atomic_add_fetch(&j->done, skip, __ATOMIC_RELEASE);
      break;
    }
    j->fn(j->ctx, t, slot);
    __atomic_add_fetch(&j->done, 1, __ATOMIC_RELEASE);
  }
  t_scope = own_scope;
  zb__current_op = own_op;
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
    for (int64_t t = 0; t < n_tasks; t++) {
      if (scope_cancelled(t_scope)) {
        __atomic_add_fetch(&g_cancel_skips, n_tasks - t, __ATOMIC_RELAXED);
        return zb_error_set(err, ZB_ECANCEL, "interrupted");
      }
      fn(ctx, t, 0);
    }
    return gen_moved(t_scope) ? zb_error_set(err, ZB_ECANCEL, "interrupted") : ZB_OK;
  }
  job j = {fn, ctx, n_tasks, 0, 0, t_scope, zb__current_op, 0,
           (int)ZB_MIN((int64_t)threads, n_tasks), 1, 1, NULL};
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
  /* cancelled: some tasks did not run, or a long one stopped early
   * (zb_cancel_requested inside it) */
  if (__atomic_load_n(&j.skipped, __ATOMIC_RELAXED) || gen_moved(j.scope))
    return zb_error_set(err, ZB_ECANCEL, "interrupted");
  return ZB_OK;
}
