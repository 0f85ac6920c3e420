/*
 * backend.cu -- the CUDA backend table: device discovery, device
 * information, raw device memory and copies, and the public functions that
 * say whether CUDA is usable (zb_cuda_device_count and friends).
 *
 * cudart is linked statically, so this file is loaded on machines with no
 * NVIDIA driver and no GPU.  Discovery runs once (pthread_once) and never
 * fails: a missing driver, a driver older than the runtime, no device, or
 * only devices older than the architectures this build carries all give
 * zero usable devices plus a reason in words.  Devices keep their CUDA
 * ordinals (cuda:N is CUDA device N); an unusable one (too old, attributes
 * unreadable) is left out with its reason and the others are still used
 * (the table logic is src/cuda/device_table.c).  Every CUDA call is checked;
 * errors become ZB_EDEVICE (out of memory: ZB_ENOMEM) with a message naming
 * the call.  Nothing here aborts or prints.
 *
 * Memory comes from a stream-ordered pool of plain device memory (never
 * managed memory); see "Memory and copies" below.  Counting and fault
 * injection happen in src/core around the alloc/free entries.  Copies run
 * on the legacy default stream and wait for it, so a buffer handed to
 * another library (CuPy, PyTorch, any stream) is complete.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_internal.h"
#include "zambezi/interop.h"

#ifndef ZB_CUDA_ARCHS
#define ZB_CUDA_ARCHS "unknown"
#endif

/* The devices and why each unusable one is left out: filled once from
 * cudart through zb_cuda_rt_real (the logic is plain C in device_table.c,
 * tested there with a stubbed runtime). */
static pthread_once_t zb_cuda_once = PTHREAD_ONCE_INIT;
static zb_cuda_device_table zb_cuda_table;

static int zb_rt_driver_version(int *v) { return (int)cudaDriverGetVersion(v); }
static int zb_rt_runtime_version(int *v) { return (int)cudaRuntimeGetVersion(v); }
static int zb_rt_device_count(int *n) { return (int)cudaGetDeviceCount(n); }
static int zb_rt_device_attribute(int *value, zb_cuda_rt_attr attr, int ordinal) {
  cudaDeviceAttr a = attr == ZB_CUDA_ATTR_CC_MAJOR   ? cudaDevAttrComputeCapabilityMajor
                     : attr == ZB_CUDA_ATTR_CC_MINOR ? cudaDevAttrComputeCapabilityMinor
                                                     : cudaDevAttrMultiProcessorCount;
  return (int)cudaDeviceGetAttribute(value, a, ordinal);
}
static int zb_rt_get_device(int *d) { return (int)cudaGetDevice(d); }
static int zb_rt_set_device(int d) { return (int)cudaSetDevice(d); }
static void zb_rt_clear_error(void) { (void)cudaGetLastError(); }
static zb_cuda_rt_error zb_rt_classify(int code) {
  switch ((cudaError_t)code) {
    case cudaSuccess: return ZB_CUDA_RT_OK;
    case cudaErrorNoDevice: return ZB_CUDA_RT_NO_DEVICE;
    case cudaErrorInsufficientDriver: return ZB_CUDA_RT_OLD_DRIVER;
    case cudaErrorDevicesUnavailable: return ZB_CUDA_RT_UNAVAILABLE;
    default: return ZB_CUDA_RT_OTHER;
  }
}
static const char *zb_rt_describe(int code) {
  /* cudart's strings are static: safe to hand out */
  return cudaGetErrorString((cudaError_t)code);
}

extern "C" const zb_cuda_rt zb__cuda_rt_real = {
    zb_rt_driver_version, zb_rt_runtime_version, zb_rt_device_count,
    zb_rt_device_attribute, zb_rt_get_device,     zb_rt_set_device,
    zb_rt_clear_error,    zb_rt_classify,        zb_rt_describe,
};

static void zb_cuda_probe(void) {
  zb__cuda_table_probe(&zb__cuda_rt_real, zb__cuda_min_arch(ZB_CUDA_ARCHS), ZB_CUDA_ARCHS,
                       getenv("CUDA_VISIBLE_DEVICES"), &zb_cuda_table);
}

static void zb_cuda_init(void) { (void)pthread_once(&zb_cuda_once, zb_cuda_probe); }

/* ------------------------------------------------------------------------ */
/* Public functions (declared in zambezi.h; src/core/device.c has the
 * versions for builds without CUDA).                                       */
/* ------------------------------------------------------------------------ */

extern "C" int zb_cuda_device_count(void) {
  zb_cuda_init();
  return zb_cuda_table.usable;
}

extern "C" int zb_cuda_device_total(void) {
  zb_cuda_init();
  return zb_cuda_table.present;
}

extern "C" bool zb_cuda_device_usable(int ordinal) {
  zb_cuda_init();
  return zb__cuda_table_usable(&zb_cuda_table, ordinal);
}

extern "C" const char *zb_cuda_device_left_out_reason(int ordinal) {
  zb_cuda_init();
  return zb__cuda_table_why(&zb_cuda_table, ordinal);
}

extern "C" int zb_cuda_default_device(void) {
  zb_cuda_init();
  return zb_cuda_table.first_usable;
}

extern "C" const char *zb_cuda_unavailable_reason(void) {
  zb_cuda_init();
  return zb_cuda_table.reason;
}

extern "C" bool zb_cuda_compiled(void) { return true; }

extern "C" const char *zb_cuda_architectures(void) { return ZB_CUDA_ARCHS; }

/* ------------------------------------------------------------------------ */
/* Shared helpers (cuda_internal.h)                                         */
/* ------------------------------------------------------------------------ */

extern "C" zb_status zb__cuda_check(cudaError_t e, const char *call, int device_id,
                                    zb_error *err) {
  if (e == cudaSuccess) return ZB_OK;
  (void)cudaGetLastError(); /* clear the non-sticky error slot */
  if (e == cudaErrorMemoryAllocation)
    return zb_error_set(err, ZB_ENOMEM, "%s on cuda:%d: out of device memory (%s)", call,
                        device_id, cudaGetErrorString(e));
  return zb_error_set(err, ZB_EDEVICE, "%s on cuda:%d failed: %s (%s)", call, device_id,
                      cudaGetErrorString(e), cudaGetErrorName(e));
}

extern "C" zb_status zb__cuda_set_device(int device_id, zb_error *err) {
  zb_cuda_init();
  ZB_RETURN_NOT_OK(zb__cuda_table_check(&zb_cuda_table, device_id, err));
  return zb__cuda_check(cudaSetDevice(device_id), "cudaSetDevice", device_id, err);
}

extern "C" int zb__cuda_sm_count(int device_id) {
  zb_cuda_init();
  if (!zb__cuda_table_usable(&zb_cuda_table, device_id)) return 1;
  return zb_cuda_table.dev[device_id].sm_count;
}

/* ------------------------------------------------------------------------ */
/* Backend entries                                                          */
/* ------------------------------------------------------------------------ */

static int zb_cuda_backend_device_count(void) { return zb_cuda_device_count(); }
static bool zb_cuda_backend_device_usable(int device_id) {
  return zb_cuda_device_usable(device_id);
}

static zb_status zb_cuda_device_info(int device_id, zb_device_info *out, zb_error *err) {
  zb_cuda_device_guard keep_device;
  memset(out, 0, sizeof *out);
  ZB_RETURN_NOT_OK(zb__cuda_set_device(device_id, err));
  cudaDeviceProp prop;
  memset(&prop, 0, sizeof prop);
  ZB_RETURN_NOT_OK(zb__cuda_check(cudaGetDeviceProperties(&prop, device_id),
                                  "cudaGetDeviceProperties", device_id, err));
  size_t free_b = 0, total_b = 0;
  ZB_RETURN_NOT_OK(
      zb__cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo", device_id, err));
  int driver = 0, runtime = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = 0;
  (void)cudaGetLastError();

  out->device.kind = ZB_DEVICE_CUDA;
  out->device.id = device_id;
  snprintf(out->name, sizeof out->name, "%.*s", (int)sizeof prop.name - 1, prop.name);
  out->total_memory = (int64_t)(total_b ? total_b : prop.totalGlobalMem);
  out->free_memory = (int64_t)free_b;
  out->cores = prop.multiProcessorCount;
  out->cc_major = prop.major;
  out->cc_minor = prop.minor;
  out->driver_version = driver;
  out->runtime_version = runtime;
  return ZB_OK;
}

/* ------------------------------------------------------------------------ */
/* Memory and copies                                                        */
/*                                                                          */
/* Device memory: one stream-ordered pool per device (cudaMemPoolCreate,    */
/* plain device memory -- never managed memory), allocated and freed on the */
/* legacy default stream where all zambezi work runs, so a freed block is   */
/* reused only after the work queued before the free.  The pool keeps a     */
/* little memory cached (its release threshold: zb_cuda_pool_keep) and      */
/* hands back the rest when the device synchronizes.  An allocation that    */
/* fails waits for the device, trims the pool to nothing and tries once     */
/* more; if that fails too the error names the bytes requested and free.    */
/* ZAMBEZI_CUDA_POOL=0 uses plain cudaMalloc / cudaFree instead.            */
/*                                                                          */
/* Host<->device copies of ZB_CUDA_STAGE_MIN bytes and more go through two  */
/* pinned staging buffers per device, in chunks: while the GPU's copy       */
/* engine moves one chunk, the CPU (all engine threads) copies the next     */
/* between the user's pageable memory and the other buffer.  This beats     */
/* both a pageable cudaMemcpy (the driver stages through its own buffers    */
/* with one thread) and pinning the user's buffer (cudaHostRegister costs   */
/* more than the copy it speeds up, each time).  Host memory that is        */
/* already pinned is copied directly.  If pinned memory cannot be had, or   */
/* another thread is using the device's buffers, the copy is a plain        */
/* cudaMemcpy.  ZAMBEZI_CUDA_STAGING=0 turns staging off.  The staging      */
/* buffers are a cache of this backend (like the pool): they live until the */
/* process ends and are not counted as engine memory.                       */
/* ------------------------------------------------------------------------ */

#define ZB_CUDA_STAGE_MIN ((int64_t)4 << 20) /* copies from 4 MiB are staged */
#define ZB_CUDA_STAGE_BUF ((int64_t)16 << 20) /* bytes per staging buffer */
#define ZB_CUDA_COPY_PIECE ((int64_t)1 << 20) /* host memcpy task size */

typedef struct zb_cuda_mem {
  int pool_ready;      /* atomic: pool decided (pool NULL: plain cudaMalloc) */
  cudaMemPool_t pool;
  uint64_t threshold;
  pthread_mutex_t stage_lock; /* held while a copy uses the staging buffers */
  bool stage_tried, stage_ok;
  char *stage[2];
  cudaEvent_t stage_done[2]; /* the last copy engine use of each buffer */
} zb_cuda_mem;

static zb_cuda_mem zb_cuda_mems[ZB_CUDA_MAX_DEVICES];
static pthread_mutex_t zb_cuda_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t zb_cuda_mem_once = PTHREAD_ONCE_INIT;
static bool zb_cuda_pool_wanted = true, zb_cuda_staging_wanted = true;

static bool zb_cuda_env_off(const char *name) {
  const char *v = getenv(name);
  return v != NULL && (strcmp(v, "0") == 0 || strcmp(v, "off") == 0 || strcmp(v, "no") == 0);
}

static void zb_cuda_mem_init(void) {
  for (int i = 0; i < ZB_CUDA_MAX_DEVICES; i++)
    (void)pthread_mutex_init(&zb_cuda_mems[i].stage_lock, NULL);
  zb_cuda_pool_wanted = !zb_cuda_env_off("ZAMBEZI_CUDA_POOL");
  zb_cuda_staging_wanted = !zb_cuda_env_off("ZAMBEZI_CUDA_STAGING");
}

/* Bytes the pool keeps cached after frees on a device of `total` bytes:
 * ZAMBEZI_CUDA_POOL_KEEP, else a thirty-second of the device and at most
 * 1 GiB -- enough to reuse the buffers of an operation's steps, little
 * enough that CuPy or PyTorch in the same process are not starved (a free
 * beyond it goes back to the driver when the device synchronizes). */
static uint64_t zb_cuda_pool_keep(size_t total) {
  const char *v = getenv("ZAMBEZI_CUDA_POOL_KEEP");
  if (v != NULL && *v != '\0') {
    char *end = NULL;
    unsigned long long k = strtoull(v, &end, 10);
    if (end != NULL && *end == '\0') return (uint64_t)k;
  }
  uint64_t keep = (uint64_t)total / 32;
  return keep < ((uint64_t)1 << 30) ? keep : ((uint64_t)1 << 30);
}

/* The pool of a usable device that is current, created on first use (NULL:
 * pools are off or not supported -- plain cudaMalloc). */
static cudaMemPool_t zb_cuda_pool(int device_id) {
  (void)pthread_once(&zb_cuda_mem_once, zb_cuda_mem_init);
  zb_cuda_mem *m = &zb_cuda_mems[device_id];
  if (__atomic_load_n(&m->pool_ready, __ATOMIC_ACQUIRE)) return m->pool;
  pthread_mutex_lock(&zb_cuda_pool_lock);
  if (!m->pool_ready) {
    int supported = 0;
    if (zb_cuda_pool_wanted &&
        cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device_id) ==
            cudaSuccess &&
        supported) {
      cudaMemPoolProps props;
      memset(&props, 0, sizeof props);
      props.allocType = cudaMemAllocationTypePinned; /* ordinary device memory */
      props.handleTypes = cudaMemHandleTypeNone;
      props.location.type = cudaMemLocationTypeDevice;
      props.location.id = device_id;
      cudaMemPool_t pool = NULL;
      size_t free_b = 0, total_b = 0;
      if (cudaMemPoolCreate(&pool, &props) == cudaSuccess) {
        uint64_t keep = zb_cuda_pool_keep(cudaMemGetInfo(&free_b, &total_b) == cudaSuccess
                                              ? total_b : 0);
        void *probe = NULL;
        /* A pool that was created but cannot hand out memory (seen with some
         * drivers and virtualised GPUs) would fail every allocation: probe it
         * once, and use plain allocations if it does not work. */
        if (cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) ==
                cudaSuccess &&
            cudaMallocFromPoolAsync(&probe, 256, pool, 0) == cudaSuccess &&
            cudaFreeAsync(probe, 0) == cudaSuccess && cudaStreamSynchronize(0) == cudaSuccess) {
          m->pool = pool;
          m->threshold = keep;
        } else {
          (void)cudaGetLastError();
          (void)cudaMemPoolDestroy(pool);
        }
      }
    }
    (void)cudaGetLastError();
    __atomic_store_n(&m->pool_ready, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&zb_cuda_pool_lock);
  return m->pool;
}

static cudaError_t zb_cuda_try_alloc(cudaMemPool_t pool, void **p, size_t size) {
  if (pool != NULL) return cudaMallocFromPoolAsync(p, size, pool, 0);
  return cudaMalloc(p, size);
}

static zb_status zb_cuda_alloc(int device_id, int64_t size, void **out, zb_error *err) {
  zb_cuda_device_guard keep_device;
  *out = NULL;
  if (size < 0)
    return zb_error_set(err, ZB_EINVAL, "cudaMalloc: negative size %lld", (long long)size);
  ZB_RETURN_NOT_OK(zb__cuda_set_device(device_id, err));
  cudaMemPool_t pool = zb_cuda_pool(device_id);
  void *p = NULL;
  size_t want = size > 0 ? (size_t)size : 1; /* a real pointer even for 0 bytes */
  cudaError_t e = zb_cuda_try_alloc(pool, &p, want);
  if (e == cudaErrorMemoryAllocation) {
    /* Let queued frees finish, give the pool's cached blocks back to the
     * driver, and try once more. */
    (void)cudaGetLastError();
    (void)cudaDeviceSynchronize();
    if (pool != NULL) (void)cudaMemPoolTrimTo(pool, 0);
    (void)cudaGetLastError();
    e = zb_cuda_try_alloc(pool, &p, want);
  }
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) (void)cudaGetLastError();
    zb_alloc_stats stats;
    zb_alloc_get_stats(&stats);
    /* the core counted this request before asking for it */
    int64_t live = stats.device_bytes >= size ? stats.device_bytes - size : stats.device_bytes;
    return zb_error_set(err, ZB_ENOMEM,
                        "out of GPU memory on cuda:%d: %lld bytes requested, %llu bytes "
                        "free of %llu (zambezi's live device buffers hold %lld bytes)",
                        device_id, (long long)size, (unsigned long long)free_b,
                        (unsigned long long)total_b, (long long)live);
  }
  if (e != cudaSuccess) {
    char call[96];
    snprintf(call, sizeof call, "device allocation of %lld bytes", (long long)size);
    return zb__cuda_check(e, call, device_id, err);
  }
  *out = p;
  return ZB_OK;
}

static void zb_cuda_free(int device_id, void *ptr) {
  zb_cuda_device_guard keep_device;
  if (ptr == NULL) return;
  /* Nothing can be reported from here; a failure (the context already torn
   * down at process exit, say) only loses memory the driver reclaims.  The
   * pool was decided by the allocation of ptr. */
  if (zb_cuda_device_usable(device_id)) {
    if (cudaSetDevice(device_id) == cudaSuccess) {
      cudaMemPool_t pool = zb_cuda_pool(device_id);
      if (pool != NULL)
        (void)cudaFreeAsync(ptr, 0);
      else
        (void)cudaFree(ptr);
    }
  }
  (void)cudaGetLastError();
}

/* Wait for the device (the profiler's end of an operation). */
static zb_status zb_cuda_synchronize(int device_id, zb_error *err) {
  zb_cuda_device_guard keep_device;
  ZB_RETURN_NOT_OK(zb__cuda_set_device(device_id, err));
  return zb__cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize", device_id, err);
}

static zb_status zb_cuda_memset_zero(int device_id, void *ptr, int64_t size,
                                     zb_error *err) {
  zb_cuda_device_guard keep_device;
  if (size < 0)
    return zb_error_set(err, ZB_EINVAL, "cudaMemset: negative size %lld",
                        (long long)size);
  if (size == 0) return ZB_OK;
  ZB_RETURN_NOT_OK(zb__cuda_set_device(device_id, err));
  ZB_RETURN_NOT_OK(
      zb__cuda_check(cudaMemset(ptr, 0, (size_t)size), "cudaMemset", device_id, err));
  return zb__cuda_wait("cudaMemset", device_id, err);
}

/* ---- pinned staging ------------------------------------------------------ */

typedef struct zb_cuda_piece_copy {
  char *dst;
  const char *src;
  int64_t size;
} zb_cuda_piece_copy;

static void zb_cuda_piece_task(void *ctx, int64_t task, int /* worker */) {
  const zb_cuda_piece_copy *c = (const zb_cuda_piece_copy *)ctx;
  int64_t off = task * ZB_CUDA_COPY_PIECE;
  int64_t len = c->size - off < ZB_CUDA_COPY_PIECE ? c->size - off : ZB_CUDA_COPY_PIECE;
  memcpy(c->dst + off, c->src + off, (size_t)len);
}

/* memcpy on the engine's threads (a single thread moves ~10 GB/s, less than
 * a PCIe 5 or NVLink copy engine). */
static void zb_cuda_host_copy(char *dst, const char *src, int64_t size) {
  int64_t tasks = (size + ZB_CUDA_COPY_PIECE - 1) / ZB_CUDA_COPY_PIECE;
  if (tasks > 1 && zb_get_num_threads() > 1) {
    zb_cuda_piece_copy c = {dst, src, size};
    if (zb_parallel_for(tasks, zb_cuda_piece_task, &c, NULL) == ZB_OK) return;
  }
  memcpy(dst, src, (size_t)size);
}

/* Take the device's staging buffers (made on first use); false when staging
 * is off, the buffers could not be made, or another thread holds them.  The
 * device is current. */
static bool zb_cuda_stage_acquire(int device_id) {
  (void)pthread_once(&zb_cuda_mem_once, zb_cuda_mem_init);
  if (!zb_cuda_staging_wanted) return false;
  zb_cuda_mem *m = &zb_cuda_mems[device_id];
  if (pthread_mutex_trylock(&m->stage_lock) != 0) return false;
  if (!m->stage_tried) {
    m->stage_tried = true;
    bool ok = true;
    for (int b = 0; b < 2 && ok; b++) {
      ok = cudaHostAlloc((void **)&m->stage[b], (size_t)ZB_CUDA_STAGE_BUF,
                         cudaHostAllocPortable) == cudaSuccess;
      if (ok) ok = cudaEventCreateWithFlags(&m->stage_done[b], cudaEventDisableTiming) ==
                   cudaSuccess;
    }
    if (!ok) {
      for (int b = 0; b < 2; b++) {
        if (m->stage[b] != NULL) (void)cudaFreeHost(m->stage[b]);
        if (m->stage_done[b] != NULL) (void)cudaEventDestroy(m->stage_done[b]);
        m->stage[b] = NULL;
        m->stage_done[b] = NULL;
      }
    }
    (void)cudaGetLastError();
    m->stage_ok = ok;
  }
  if (!m->stage_ok) {
    pthread_mutex_unlock(&m->stage_lock);
    return false;
  }
  return true;
}

/* Chunk size: at least 4 chunks for pipelining, 1 MiB to one buffer. */
static int64_t zb_cuda_chunk(int64_t size) {
  int64_t c = (size / 4 + ZB_CUDA_COPY_PIECE - 1) / ZB_CUDA_COPY_PIECE * ZB_CUDA_COPY_PIECE;
  if (c < ZB_CUDA_COPY_PIECE) c = ZB_CUDA_COPY_PIECE;
  return c > ZB_CUDA_STAGE_BUF ? ZB_CUDA_STAGE_BUF : c;
}

/* Host -> device through the staging buffers: buffer i % 2 is refilled
 * once the copy engine has finished reading it (its event). */
static cudaError_t zb_cuda_h2d_staged(zb_cuda_mem *m, char *dst, const char *src,
                                      int64_t size) {
  int64_t chunk = zb_cuda_chunk(size), n = (size + chunk - 1) / chunk;
  cudaError_t e = cudaSuccess;
  for (int64_t i = 0; i < n && e == cudaSuccess; i++) {
    int b = (int)(i & 1);
    int64_t off = i * chunk, len = size - off < chunk ? size - off : chunk;
    if (i >= 2) e = cudaEventSynchronize(m->stage_done[b]);
    if (e != cudaSuccess) break;
    zb_cuda_host_copy(m->stage[b], src + off, len);
    e = cudaMemcpyAsync(dst + off, m->stage[b], (size_t)len, cudaMemcpyHostToDevice, 0);
    if (e == cudaSuccess) e = cudaEventRecord(m->stage_done[b], 0);
  }
  /* Always wait: no copy may still read the buffers when they are let go. */
  cudaError_t e2 = cudaStreamSynchronize(0);
  return e != cudaSuccess ? e : e2;
}

static cudaError_t zb_cuda_d2h_issue(zb_cuda_mem *m, const char *src, int64_t i,
                                     int64_t chunk, int64_t size) {
  int b = (int)(i & 1);
  int64_t off = i * chunk, len = size - off < chunk ? size - off : chunk;
  cudaError_t e =
      cudaMemcpyAsync(m->stage[b], src + off, (size_t)len, cudaMemcpyDeviceToHost, 0);
  if (e == cudaSuccess) e = cudaEventRecord(m->stage_done[b], 0);
  return e;
}

/* Device -> host: two chunks in flight; chunk i is copied out of its buffer
 * while chunk i + 1 lands in the other, then chunk i + 2 is queued into it. */
static cudaError_t zb_cuda_d2h_staged(zb_cuda_mem *m, char *dst, const char *src,
                                      int64_t size) {
  int64_t chunk = zb_cuda_chunk(size), n = (size + chunk - 1) / chunk;
  cudaError_t e = cudaSuccess;
  for (int64_t i = 0; i < 2 && i < n && e == cudaSuccess; i++)
    e = zb_cuda_d2h_issue(m, src, i, chunk, size);
  for (int64_t i = 0; i < n && e == cudaSuccess; i++) {
    int b = (int)(i & 1);
    int64_t off = i * chunk, len = size - off < chunk ? size - off : chunk;
    e = cudaEventSynchronize(m->stage_done[b]);
    if (e != cudaSuccess) break;
    zb_cuda_host_copy(dst + off, m->stage[b], len);
    if (i + 2 < n) e = zb_cuda_d2h_issue(m, src, i + 2, chunk, size);
  }
  cudaError_t e2 = cudaStreamSynchronize(0);
  return e != cudaSuccess ? e : e2;
}

/* True if host memory at p is pinned (or registered) with CUDA. */
static bool zb_cuda_host_pinned(const void *p) {
  cudaPointerAttributes a;
  memset(&a, 0, sizeof a);
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeHost;
}

/* A large host<->device copy, staged or direct; *done false if neither
 * applies (the caller then uses cudaMemcpy). */
static cudaError_t zb_cuda_copy_large(int device_id, void *dst, const void *src, int64_t size,
                                      bool to_host, bool *done) {
  *done = false;
  if (zb_cuda_host_pinned(to_host ? dst : src)) {
    *done = true;
    cudaError_t e = cudaMemcpyAsync(dst, src, (size_t)size,
                                    to_host ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice, 0);
    cudaError_t e2 = cudaStreamSynchronize(0);
    return e != cudaSuccess ? e : e2;
  }
  if (!zb_cuda_stage_acquire(device_id)) return cudaSuccess;
  zb_cuda_mem *m = &zb_cuda_mems[device_id];
  *done = true;
  cudaError_t e = to_host ? zb_cuda_d2h_staged(m, (char *)dst, (const char *)src, size)
                          : zb_cuda_h2d_staged(m, (char *)dst, (const char *)src, size);
  pthread_mutex_unlock(&m->stage_lock);
  return e;
}

static zb_status zb_cuda_copy(int device_id, void *dst, const void *src, int64_t size,
                              cudaMemcpyKind kind, const char *call, zb_error *err) {
  zb_cuda_device_guard keep_device;
  if (size < 0)
    return zb_error_set(err, ZB_EINVAL, "%s: negative size %lld", call, (long long)size);
  if (size == 0) return ZB_OK;
  ZB_RETURN_NOT_OK(zb__cuda_set_device(device_id, err));
  bool done = false;
  cudaError_t e = cudaSuccess;
  if (size >= ZB_CUDA_STAGE_MIN && kind != cudaMemcpyDeviceToDevice)
    e = zb_cuda_copy_large(device_id, dst, src, size, kind == cudaMemcpyDeviceToHost, &done);
  if (!done) e = cudaMemcpy(dst, src, (size_t)size, kind);
  if (e != cudaSuccess) {
    char what[160];
    snprintf(what, sizeof what, "%s of %lld bytes", call, (long long)size);
    return zb__cuda_check(e, what, device_id, err);
  }
  /* device-to-host cudaMemcpy is synchronous and the large paths waited;
   * the others may return before the data has landed. */
  if (done || kind == cudaMemcpyDeviceToHost) return ZB_OK;
  return zb__cuda_wait(call, device_id, err);
}

static zb_status zb_cuda_copy_to_host(int device_id, void *dst, const void *src,
                                      int64_t size, zb_error *err) {
  return zb_cuda_copy(device_id, dst, src, size, cudaMemcpyDeviceToHost,
                      "cudaMemcpy (device to host)", err);
}

static zb_status zb_cuda_copy_from_host(int device_id, void *dst, const void *src,
                                        int64_t size, zb_error *err) {
  return zb_cuda_copy(device_id, dst, src, size, cudaMemcpyHostToDevice,
                      "cudaMemcpy (host to device)", err);
}

static zb_status zb_cuda_copy_on_device(int device_id, void *dst, const void *src,
                                        int64_t size, zb_error *err) {
  return zb_cuda_copy(device_id, dst, src, size, cudaMemcpyDeviceToDevice,
                      "cudaMemcpy (device to device)", err);
}

/* ---- public: pointers and the pool (zambezi/interop.h) -------------------- */

extern "C" zb_status zb_cuda_pointer_device(const void *ptr, zb_device *out, zb_error *err) {
  *out = ZB_CPU;
  zb_cuda_init();
  if (zb_cuda_table.usable == 0)
    return zb_error_set(err, ZB_ENODEVICE, "no CUDA device: %s", zb_cuda_table.reason);
  cudaPointerAttributes a;
  memset(&a, 0, sizeof a);
  cudaError_t e = cudaPointerGetAttributes(&a, ptr);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return zb_error_set(err, ZB_EINVAL, "pointer %p is not memory CUDA knows (%s)", ptr,
                        cudaGetErrorString(e));
  }
  switch (a.type) {
    case cudaMemoryTypeDevice:
    case cudaMemoryTypeManaged:
      if (!zb__cuda_table_usable(&zb_cuda_table, a.device))
        return zb_error_set(err, ZB_ENODEVICE,
                            "pointer %p is on CUDA device %d, which zambezi cannot use: %s",
                            ptr, a.device, zb__cuda_table_why(&zb_cuda_table, a.device));
      out->kind = ZB_DEVICE_CUDA;
      out->id = a.device;
      return ZB_OK;
    case cudaMemoryTypeHost:
      return ZB_OK; /* pinned host memory: the CPU reads it */
    default:
      return zb_error_set(err, ZB_EINVAL,
                          "pointer %p is host memory unknown to CUDA, not device memory", ptr);
  }
}

extern "C" zb_status zb_cuda_get_memory_info(int device_id, zb_cuda_memory_info *out,
                                             zb_error *err) {
  zb_cuda_device_guard keep_device;
  memset(out, 0, sizeof *out);
  ZB_RETURN_NOT_OK(zb__cuda_set_device(device_id, err));
  cudaMemPool_t pool = zb_cuda_pool(device_id);
  zb_cuda_mem *m = &zb_cuda_mems[device_id];
  out->pool_enabled = pool != NULL;
  if (pool != NULL) {
    uint64_t v = 0;
    if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &v) == cudaSuccess)
      out->pool_reserved = (int64_t)v;
    v = 0;
    if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &v) == cudaSuccess)
      out->pool_used = (int64_t)v;
    out->release_threshold = (int64_t)m->threshold;
  }
  pthread_mutex_lock(&m->stage_lock);
  out->staging_bytes = m->stage_ok ? 2 * ZB_CUDA_STAGE_BUF : 0;
  pthread_mutex_unlock(&m->stage_lock);
  size_t free_b = 0, total_b = 0;
  ZB_RETURN_NOT_OK(
      zb__cuda_check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo", device_id, err));
  out->free_memory = (int64_t)free_b;
  out->total_memory = (int64_t)total_b;
  return ZB_OK;
}

extern "C" zb_status zb_cuda_release_cached_memory(int device_id, zb_error *err) {
  zb_cuda_device_guard keep_device;
  ZB_RETURN_NOT_OK(zb__cuda_set_device(device_id, err));
  cudaMemPool_t pool = zb_cuda_pool(device_id);
  if (pool == NULL) return ZB_OK;
  ZB_RETURN_NOT_OK(
      zb__cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize", device_id, err));
  return zb__cuda_check(cudaMemPoolTrimTo(pool, 0), "cudaMemPoolTrimTo", device_id, err);
}

/* Built field by field: memory entries here, operations through one run
 * switch and the support table of src/cuda/dispatch.cu (what it lacks runs
 * on the CPU). */
static zb_backend zb_cuda_make_backend(void) {
  zb_backend b;
  memset(&b, 0, sizeof b);
  b.name = "cuda";
  b.kind = ZB_DEVICE_CUDA;
  b.device_count = zb_cuda_backend_device_count;
  b.device_usable = zb_cuda_backend_device_usable;
  b.device_info = zb_cuda_device_info;
  b.alloc = zb_cuda_alloc;
  b.free = zb_cuda_free;
  b.memset_zero = zb_cuda_memset_zero;
  b.copy_to_host = zb_cuda_copy_to_host;
  b.copy_from_host = zb_cuda_copy_from_host;
  b.copy_on_device = zb_cuda_copy_on_device;
  b.synchronize = zb_cuda_synchronize;
  b.run = zb__cuda_run;
  b.support = zb__cuda_support(&b.n_support);
  return b;
}

static const zb_backend zb_cuda_backend_table = zb_cuda_make_backend();

extern "C" const zb_backend *zb__cuda_backend(void) { return &zb_cuda_backend_table; }
