/*
 * test_device_table.c -- CUDA device discovery and the device guard's
 * save/restore (src/cuda/device_table.c) on a stubbed CUDA runtime: several
 * GPUs with old ones among them, none, no driver, errors from the runtime.
 * Runs in every build; no GPU is needed.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda/device_table.h"
#include "test.h"

/* The stub's codes: 0 success, then the runtime's kinds of failure. */
enum { S_OK = 0, S_NO_DEVICE = 100, S_OLD_DRIVER, S_UNAVAILABLE, S_INIT, S_BAD_ORDINAL };

static struct {
  int driver, runtime;
  int count_code, count;
  int cc[80];          /* major*10+minor per ordinal */
  int sms[80];
  int attr_fail;       /* ordinal whose attributes fail, -1 none */
  int current;         /* current device */
  int get_code;        /* what get_device returns */
  int set_calls, clears;
} g_rt;

static int st_driver(int *v) { *v = g_rt.driver; return g_rt.driver ? S_OK : S_INIT; }
static int st_runtime(int *v) { *v = g_rt.runtime; return S_OK; }
static int st_count(int *n) {
  *n = g_rt.count_code == S_OK ? g_rt.count : 0;
  return g_rt.count_code;
}
static int st_attr(int *value, zb_cuda_rt_attr attr, int ordinal) {
  if (ordinal < 0 || ordinal >= g_rt.count) return S_BAD_ORDINAL;
  if (ordinal == g_rt.attr_fail) return S_INIT;
  switch (attr) {
    case ZB_CUDA_ATTR_CC_MAJOR: *value = g_rt.cc[ordinal] / 10; break;
    case ZB_CUDA_ATTR_CC_MINOR: *value = g_rt.cc[ordinal] % 10; break;
    case ZB_CUDA_ATTR_SM_COUNT: *value = g_rt.sms[ordinal]; break;
  }
  return S_OK;
}
static int st_get(int *d) {
  if (g_rt.get_code != S_OK) return g_rt.get_code;
  *d = g_rt.current;
  return S_OK;
}
static int st_set(int d) {
  g_rt.set_calls++;
  if (d < 0 || d >= g_rt.count) return S_BAD_ORDINAL;
  g_rt.current = d;
  return S_OK;
}
static void st_clear(void) { g_rt.clears++; }
static zb_cuda_rt_error st_classify(int code) {
  switch (code) {
    case S_OK: return ZB_CUDA_RT_OK;
    case S_NO_DEVICE: return ZB_CUDA_RT_NO_DEVICE;
    case S_OLD_DRIVER: return ZB_CUDA_RT_OLD_DRIVER;
    case S_UNAVAILABLE: return ZB_CUDA_RT_UNAVAILABLE;
    default: return ZB_CUDA_RT_OTHER;
  }
}
static const char *st_describe(int code) {
  return code == S_INIT ? "initialization error (stub)" : "some stub error";
}

static const zb_cuda_rt k_stub = {st_driver, st_runtime, st_count,   st_attr,    st_get,
                                  st_set,    st_clear,   st_classify, st_describe};

/* A machine with the given compute capabilities (major*10+minor), each
 * with 100 + ordinal multiprocessors; driver and runtime CUDA 12.8. */
static void machine(int n, const int *cc) {
  memset(&g_rt, 0, sizeof g_rt);
  g_rt.driver = 12080;
  g_rt.runtime = 12080;
  g_rt.count = n;
  g_rt.attr_fail = -1;
  for (int i = 0; i < n; i++) {
    g_rt.cc[i] = cc[i];
    g_rt.sms[i] = 100 + i;
  }
}

static zb_cuda_device_table g_t; /* large: not on the stack */

static void probe(void) { zb__cuda_table_probe(&k_stub, 80, "80;90", NULL, &g_t); }

ZB_TEST(test_devtable_min_arch) {
  ZB_CHECK_EQ_INT(zb__cuda_min_arch("80-real;90"), 80);
  ZB_CHECK_EQ_INT(zb__cuda_min_arch("90,86;120-virtual"), 86);
  ZB_CHECK_EQ_INT(zb__cuda_min_arch(""), 0);
  ZB_CHECK_EQ_INT(zb__cuda_min_arch(NULL), 0);
}

ZB_TEST(test_devtable_old_gpu_between_keeps_ordinals) {
  int cc[] = {90, 61, 80};
  machine(3, cc);
  probe();
  ZB_CHECK_EQ_INT(g_t.present, 3);
  ZB_CHECK_EQ_INT(g_t.usable, 2);
  ZB_CHECK_EQ_INT(g_t.first_usable, 0);
  ZB_CHECK(zb__cuda_table_usable(&g_t, 0));
  ZB_CHECK(!zb__cuda_table_usable(&g_t, 1));
  ZB_CHECK(zb__cuda_table_usable(&g_t, 2)); /* after the old one: still used */
  ZB_CHECK_EQ_INT(g_t.dev[2].sm_count, 102); /* its own, not a neighbour's */
  ZB_CHECK_EQ_INT(g_t.reason[0], '\0');
  ZB_CHECK(strstr(zb__cuda_table_why(&g_t, 1), "6.1") != NULL);
  ZB_CHECK_EQ_INT(zb__cuda_table_why(&g_t, 2)[0], '\0');
}

ZB_TEST(test_devtable_old_gpu_first) {
  int cc[] = {70, 86};
  machine(2, cc);
  probe();
  ZB_CHECK_EQ_INT(g_t.usable, 1);
  ZB_CHECK_EQ_INT(g_t.first_usable, 1); /* what plain "cuda" means */
  ZB_CHECK(!zb__cuda_table_usable(&g_t, 0));
  ZB_CHECK(zb__cuda_table_usable(&g_t, 1));
  zb_error err = {{0}};
  ZB_CHECK_EQ_INT(zb__cuda_table_check(&g_t, 0, &err), ZB_ENODEVICE);
  ZB_CHECK(strstr(err.message, "cuda:0") != NULL);
  ZB_CHECK(strstr(err.message, "7.0") != NULL);
  ZB_CHECK(strstr(err.message, "80;90") != NULL);
  ZB_CHECK_OK(zb__cuda_table_check(&g_t, 1, &err), &err);
}

ZB_TEST(test_devtable_all_old) {
  int cc[] = {61, 75};
  machine(2, cc);
  probe();
  ZB_CHECK_EQ_INT(g_t.present, 2);
  ZB_CHECK_EQ_INT(g_t.usable, 0);
  ZB_CHECK_EQ_INT(g_t.first_usable, -1);
  ZB_CHECK(strstr(g_t.reason, "none of the 2 CUDA devices") != NULL);
  ZB_CHECK(strstr(g_t.reason, "6.1") != NULL);
  zb_error err = {{0}};
  ZB_CHECK_EQ_INT(zb__cuda_table_check(&g_t, 1, &err), ZB_ENODEVICE);
  ZB_CHECK(strstr(err.message, "cuda:1") != NULL && strstr(err.message, "7.5") != NULL);
}

ZB_TEST(test_devtable_attribute_error_leaves_one_out) {
  int cc[] = {80, 90, 90};
  machine(3, cc);
  g_rt.attr_fail = 1;
  probe();
  ZB_CHECK_EQ_INT(g_t.usable, 2);
  ZB_CHECK(!zb__cuda_table_usable(&g_t, 1));
  ZB_CHECK(zb__cuda_table_usable(&g_t, 2));
  ZB_CHECK(strstr(zb__cuda_table_why(&g_t, 1), "initialization error (stub)") != NULL);
}

ZB_TEST(test_devtable_no_device_no_driver_errors) {
  machine(0, NULL);
  g_rt.count_code = S_NO_DEVICE;
  zb__cuda_table_probe(&k_stub, 80, "80", "7", &g_t);
  ZB_CHECK_EQ_INT(g_t.usable, 0);
  ZB_CHECK_EQ_INT(g_t.present, 0);
  ZB_CHECK(strstr(g_t.reason, "no CUDA device present") != NULL);
  ZB_CHECK(strstr(g_t.reason, "CUDA_VISIBLE_DEVICES=\"7\"") != NULL);

  machine(0, NULL);
  g_rt.driver = 0;
  g_rt.count_code = S_INIT;
  probe();
  ZB_CHECK(strstr(g_t.reason, "no NVIDIA driver") != NULL);

  machine(0, NULL);
  g_rt.driver = 11040;
  g_rt.count_code = S_OLD_DRIVER;
  probe();
  ZB_CHECK(strstr(g_t.reason, "too old for runtime 12.8") != NULL);
  ZB_CHECK(strstr(g_t.reason, "CUDA 11.4") != NULL);

  machine(0, NULL);
  g_rt.count_code = S_UNAVAILABLE;
  probe();
  ZB_CHECK(strstr(g_t.reason, "busy or unavailable") != NULL);

  machine(0, NULL);
  g_rt.count_code = S_INIT;
  probe();
  ZB_CHECK(strstr(g_t.reason, "initialization error (stub)") != NULL);

  /* success but zero devices */
  machine(0, NULL);
  probe();
  ZB_CHECK(strstr(g_t.reason, "no CUDA device present") != NULL);
  zb_error err = {{0}};
  ZB_CHECK_EQ_INT(zb__cuda_table_check(&g_t, 0, &err), ZB_ENODEVICE);
  ZB_CHECK(strstr(err.message, "cuda:0") != NULL);
  ZB_CHECK(strstr(err.message, "no CUDA device present") != NULL);
  ZB_CHECK(g_rt.clears > 0); /* the runtime's error slot is not left set */
}

ZB_TEST(test_devtable_ordinal_out_of_range) {
  int cc[] = {80, 80};
  machine(2, cc);
  probe();
  zb_error err = {{0}};
  ZB_CHECK_EQ_INT(zb__cuda_table_check(&g_t, 5, &err), ZB_ENODEVICE);
  ZB_CHECK(strstr(err.message, "cuda:5") != NULL);
  ZB_CHECK(strstr(err.message, "reports 2") != NULL);
  ZB_CHECK_EQ_INT(zb__cuda_table_check(&g_t, -1, &err), ZB_ENODEVICE);
  ZB_CHECK(!zb__cuda_table_usable(&g_t, 64));
  ZB_CHECK(zb__cuda_table_why(&g_t, 5)[0] != '\0');
}

ZB_TEST(test_devtable_many_devices_capped) {
  int cc[80];
  for (int i = 0; i < 80; i++) cc[i] = i % 2 ? 90 : 52;
  machine(80, cc);
  probe();
  ZB_CHECK_EQ_INT(g_t.present, ZB_CUDA_MAX_DEVICES);
  ZB_CHECK_EQ_INT(g_t.usable, ZB_CUDA_MAX_DEVICES / 2);
  ZB_CHECK_EQ_INT(g_t.first_usable, 1);
  ZB_CHECK(zb__cuda_table_usable(&g_t, 63));
  ZB_CHECK(!zb__cuda_table_usable(&g_t, 62));
}

ZB_TEST(test_devtable_zero_sms_and_any_arch) {
  int cc[] = {35};
  machine(1, cc);
  g_rt.sms[0] = 0;
  zb__cuda_table_probe(&k_stub, 0, "", NULL, &g_t); /* min arch unknown: all usable */
  ZB_CHECK_EQ_INT(g_t.usable, 1);
  ZB_CHECK_EQ_INT(g_t.dev[0].sm_count, 1);
}

ZB_TEST(test_devtable_guard_restores_caller_device) {
  int cc[] = {90, 90, 90};
  machine(3, cc);
  g_rt.current = 2; /* the caller's choice (CuPy, PyTorch) */
  int saved = zb__cuda_device_save(&k_stub);
  ZB_CHECK_EQ_INT(saved, 2);
  ZB_CHECK_EQ_INT(st_set(0), S_OK); /* zambezi works on cuda:0 */
  g_rt.set_calls = 0;
  zb__cuda_device_restore(&k_stub, saved);
  ZB_CHECK_EQ_INT(g_rt.current, 2);
  ZB_CHECK_EQ_INT(g_rt.set_calls, 1);
  /* unchanged: no call (cudaSetDevice is not free) */
  zb__cuda_device_restore(&k_stub, saved);
  ZB_CHECK_EQ_INT(g_rt.set_calls, 1);
  /* the runtime could not say what was current: leave it */
  g_rt.get_code = S_INIT;
  saved = zb__cuda_device_save(&k_stub);
  ZB_CHECK_EQ_INT(saved, -1);
  g_rt.get_code = S_OK;
  g_rt.current = 0;
  zb__cuda_device_restore(&k_stub, saved);
  ZB_CHECK_EQ_INT(g_rt.current, 0);
  ZB_CHECK_EQ_INT(g_rt.set_calls, 1);
}

ZB_TEST(test_devtable_public_api_consistent) {
  /* The live table (the real runtime, or none in this build) agrees with
   * itself: usable ordinals counted, unusable ones explained. */
  int total = zb_cuda_device_total(), usable = 0;
  ZB_CHECK(total >= 0 && total <= ZB_CUDA_MAX_DEVICES);
  for (int i = 0; i < total; i++) {
    if (zb_cuda_device_usable(i)) {
      usable++;
      ZB_CHECK_EQ_INT(zb_cuda_device_left_out_reason(i)[0], '\0');
    } else {
      ZB_CHECK(zb_cuda_device_left_out_reason(i)[0] != '\0');
    }
  }
  ZB_CHECK_EQ_INT(usable, zb_cuda_device_count());
  ZB_CHECK(!zb_cuda_device_usable(-1));
  ZB_CHECK(!zb_cuda_device_usable(total));
  ZB_CHECK(zb_cuda_device_left_out_reason(total)[0] != '\0');
  if (usable == 0) ZB_CHECK_EQ_INT(zb_cuda_default_device(), -1);
  else ZB_CHECK(zb_cuda_device_usable(zb_cuda_default_device()));
}
