/*
 * test_interop.c -- unit tests for profiles (zambezi/profile.h), DLPack
 * export and import and the Arrow C Device Data Interface export
 * (zambezi/interop.h, zambezi/arrow.h), with fault injection walking every
 * allocation of the DLPack paths, and -- when a GPU is present -- the CUDA
 * memory pool (out of memory names the bytes and leaves the device usable),
 * pinned staging copies around the chunk sizes, and pointer lookup.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "zambezi/arrow.h"
#include "zambezi/compute.h"
#include "zambezi/interop.h"
#include "zambezi/join.h"
#include "zambezi/profile.h"

static zb_column *int_column(int64_t n, int64_t start) {
  zb_column *c = NULL;
  if (zb_column_new(ZB_INT64, n, false, 0, &c, NULL) != ZB_OK) return NULL;
  for (int64_t i = 0; i < n; i++) ((int64_t *)c->data->data)[i] = start + i;
  return c;
}

/* ---- profiles ------------------------------------------------------------- */

ZB_TEST(test_profile_records_operations_in_order) {
  zb_error err = {{0}};
  zb_column *a = int_column(1000, 0), *b = int_column(1000, 5), *sum = NULL;
  zb_scalar s;
  zb_column_reduce(a, ZB_REDUCE_SUM, &s, &err); /* before: not recorded */
  zb_profile *p = NULL;
  ZB_CHECK_OK(zb_profile_start(false, &p, &err), &err);
  int64_t n = -1;
  ZB_CHECK(zb_profile_records(p, &n) == NULL && n == 0); /* still recording */
  ZB_CHECK_OK(zb_column_binary(ZB_OP_ADD, a, b, &sum, &err), &err);
  ZB_CHECK_OK(zb_column_reduce(sum, ZB_REDUCE_MAX, &s, &err), &err);
  zb_profile_stop(p);
  zb_column_reduce(a, ZB_REDUCE_MIN, &s, &err); /* after: not recorded */
  const zb_profile_record *r = zb_profile_records(p, &n);
  ZB_CHECK_EQ_INT(n, 2);
  if (n == 2) {
    ZB_CHECK(strcmp(r[0].op, "add") == 0 && strcmp(r[1].op, "max") == 0);
    for (int i = 0; i < 2; i++) {
      ZB_CHECK(zb_device_equal(r[i].device, ZB_CPU) && zb_device_equal(r[i].data_device, ZB_CPU));
      ZB_CHECK_EQ_INT(r[i].rows, 1000);
      ZB_CHECK(r[i].wall_ns > 0 && r[i].start_ns >= 0);
      ZB_CHECK_EQ_INT(r[i].depth, 0);
      ZB_CHECK(!r[i].fallback && r[i].reason[0] == '\0');
    }
    ZB_CHECK(r[1].start_ns >= r[0].start_ns + r[0].wall_ns);
  }
  ZB_CHECK_EQ_INT(zb_profile_dropped(p), 0);
  zb_profile_free(p);
  zb_profile_free(NULL);
  zb_column_release(a);
  zb_column_release(b);
  zb_column_release(sum);
}

ZB_TEST(test_profile_nesting_and_depth) {
  zb_error err = {{0}};
  zb_column *a = int_column(100, 0), *sorted = NULL, *down = int_column(100, 0);
  for (int64_t i = 0; i < 100; i++) ((int64_t *)down->data->data)[i] = 99 - i;
  zb_profile *outer = NULL, *inner = NULL;
  ZB_CHECK_OK(zb_profile_start(false, &outer, &err), &err);
  zb_scalar s;
  zb_column_reduce(a, ZB_REDUCE_SUM, &s, &err);
  ZB_CHECK_OK(zb_profile_start(false, &inner, &err), &err);
  zb_table *t = NULL;
  const char *names[2] = {"x", "y"};
  zb_column *cols[2] = {a, down};
  ZB_CHECK_OK(zb_table_make(2, cols, names, &t, &err), &err);
  ZB_CHECK_OK(zb_column_sort_indices(a, false, false, &sorted, &err), &err);
  /* a host table's take is one operation (its columns in one loop) */
  zb_table *taken = NULL;
  ZB_CHECK_OK(zb_table_take(t, sorted, &taken, &err), &err);
  /* a sorted join sorts its rows by the keys: operations nested in it
   * (the sort, then the takes of both sides' indices by its permutation).
   * The key decreases: keys increasing on both sides are merged, already
   * in order, with nothing nested */
  zb_column *li = NULL, *ri = NULL;
  const int64_t key = 1;
  ZB_CHECK_OK(zb_table_join_indices(t, t, 1, &key, &key, ZB_JOIN_INNER, true, false, &li, &ri, &err),
              &err);
  zb_profile_stop(inner);
  int64_t ni = 0, no = 0;
  const zb_profile_record *ri_rec = zb_profile_records(inner, &ni);
  const char *want_inner[] = {"sort_indices", "table_take", "join", "sort_indices", "take",
                              "take"};
  ZB_CHECK_EQ_INT(ni, 6);
  for (int64_t i = 0; i < ni && i < 6; i++) ZB_CHECK(strcmp(ri_rec[i].op, want_inner[i]) == 0);
  zb_profile_free(inner);
  zb_column_reduce(a, ZB_REDUCE_MEAN, &s, &err);
  zb_profile_stop(outer);
  const zb_profile_record *ro = zb_profile_records(outer, &no);
  const char *want[] = {"sum", "sort_indices", "table_take", "join", "sort_indices",
                        "take", "take", "mean"};
  const int depth[] = {0, 0, 0, 0, 1, 1, 1, 0};
  ZB_CHECK_EQ_INT(no, 8);
  for (int64_t i = 0; i < no && i < 8; i++) {
    ZB_CHECK(strcmp(ro[i].op, want[i]) == 0);
    ZB_CHECK_EQ_INT(ro[i].depth, depth[i]);
  }
  zb_profile_free(outer);
  /* keys increasing on both sides: merged in key order, nothing to sort */
  zb_profile *merged = NULL;
  zb_column *ml = NULL, *mr = NULL;
  const int64_t up = 0;
  ZB_CHECK_OK(zb_profile_start(false, &merged, &err), &err);
  ZB_CHECK_OK(zb_table_join_indices(t, t, 1, &up, &up, ZB_JOIN_OUTER, true, false, &ml, &mr, &err),
              &err);
  zb_profile_stop(merged);
  int64_t nm = 0;
  const zb_profile_record *rm = zb_profile_records(merged, &nm);
  ZB_CHECK_EQ_INT(nm, 1);
  if (nm >= 1) ZB_CHECK(strcmp(rm[0].op, "join") == 0);
  ZB_CHECK(ml != NULL && ml->length == 100 && ml->null_count == 0);
  zb_profile_free(merged);
  zb_column_release(ml);
  zb_column_release(mr);
  zb_table_release(t);
  zb_table_release(taken);
  zb_column_release(li);
  zb_column_release(ri);
  zb_column_release(sorted);
  zb_column_release(a);
  zb_column_release(down);
}

typedef struct thread_arg {
  zb_column *col;
  int ops;
  int64_t recorded;
} thread_arg;

static void *profiled_thread(void *p) {
  thread_arg *a = (thread_arg *)p;
  zb_profile *prof = NULL;
  if (zb_profile_start(false, &prof, NULL) != ZB_OK) return NULL;
  for (int i = 0; i < a->ops; i++) {
    zb_scalar s;
    zb_column_reduce(a->col, ZB_REDUCE_SUM, &s, NULL);
  }
  zb_profile_stop(prof);
  zb_profile_records(prof, &a->recorded);
  zb_profile_free(prof);
  return NULL;
}

ZB_TEST(test_profile_threads_see_their_own) {
  zb_column *c = int_column(10000, 1);
  thread_arg args[4];
  pthread_t th[4];
  zb_profile *all = NULL;
  ZB_CHECK_OK(zb_profile_start(true, &all, NULL), &(zb_error){{0}});
  for (int i = 0; i < 4; i++) {
    args[i].col = c;
    args[i].ops = 10 * (i + 1);
    args[i].recorded = -1;
    pthread_create(&th[i], NULL, profiled_thread, &args[i]);
  }
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  zb_profile_stop(all);
  for (int i = 0; i < 4; i++) ZB_CHECK_EQ_INT(args[i].recorded, 10 * (i + 1));
  int64_t n = 0;
  const zb_profile_record *r = zb_profile_records(all, &n);
  ZB_CHECK_EQ_INT(n, 100);
  int64_t threads[8] = {0};
  int distinct = 0;
  for (int64_t i = 0; i < n; i++) {
    int seen = 0;
    for (int k = 0; k < distinct; k++) seen |= threads[k] == r[i].thread;
    if (!seen && distinct < 8) threads[distinct++] = r[i].thread;
    if (i > 0) ZB_CHECK(r[i].seq > r[i - 1].seq);
  }
  ZB_CHECK_EQ_INT(distinct, 4);
  zb_profile_free(all);
  zb_column_release(c);
}

/* ---- DLPack --------------------------------------------------------------- */

static int g_released;
static void count_release(void *ctx, void *data, int64_t size) { g_released++; }

ZB_TEST(test_dlpack_export_import_round_trip) {
  zb_error err = {{0}};
  zb_column *c = int_column(100, 7), *part = NULL;
  ZB_CHECK_OK(zb_column_slice(c, 10, 50, &part, &err), &err);
  for (int versioned = 0; versioned < 2; versioned++) {
    void *m = NULL;
    ZB_CHECK_OK(zb_column_export_dlpack(part, versioned, false, &m, &err), &err);
    DLTensor *t = versioned ? &((DLManagedTensorVersioned *)m)->dl_tensor
                            : &((DLManagedTensor *)m)->dl_tensor;
    ZB_CHECK_EQ_INT(t->ndim, 1);
    ZB_CHECK_EQ_INT(t->shape[0], 50);
    ZB_CHECK(t->dtype.code == kDLInt && t->dtype.bits == 64 && t->dtype.lanes == 1);
    ZB_CHECK(t->device.device_type == kDLCPU);
    /* byte_offset 0 and data at the first element: consumers such as
     * PyTorch ignore byte_offset */
    ZB_CHECK_EQ_INT(t->byte_offset, 0);
    const int64_t *v = (const int64_t *)t->data;
    ZB_CHECK(v == (const int64_t *)c->data->data + 10); /* shared, not copied */
    ZB_CHECK_EQ_INT(v[0], 17);
    if (versioned) {
      DLManagedTensorVersioned *mv = (DLManagedTensorVersioned *)m;
      ZB_CHECK_EQ_INT(mv->version.major, 1);
      ZB_CHECK(mv->flags & DLPACK_FLAG_BITMASK_READ_ONLY);
    }
    /* import it back: shares the same memory, releases once */
    zb_column *back = NULL;
    g_released = 0;
    ZB_CHECK_OK(zb_column_import_dlpack(t, count_release, NULL, &back, &err), &err);
    ZB_CHECK(back->type == ZB_INT64 && back->length == 50);
    ZB_CHECK((const int64_t *)back->data->data == v);
    zb_column_release(back);
    ZB_CHECK_EQ_INT(g_released, 1);
    if (versioned)
      ((DLManagedTensorVersioned *)m)->deleter((DLManagedTensorVersioned *)m);
    else
      ((DLManagedTensor *)m)->deleter((DLManagedTensor *)m);
  }
  zb_column_release(part);
  zb_column_release(c);
}

ZB_TEST(test_dlpack_refusals_and_bool_copies) {
  zb_error err = {{0}};
  void *m = NULL;
  zb_column *b = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_BOOL, 10, true, 0, &b, &err), &err);
  memset(b->data->data, 0xA5, 2); /* 1,0,1,0,0,1,0,1 ... */
  ZB_CHECK_EQ_INT(zb_column_export_dlpack(b, true, false, &m, &err), ZB_ENOTSUP);
  ZB_CHECK(m == NULL && strstr(err.message, "bitmap") != NULL);
  ZB_CHECK_OK(zb_column_export_dlpack(b, true, true, &m, &err), &err);
  DLManagedTensorVersioned *mv = (DLManagedTensorVersioned *)m;
  ZB_CHECK(mv->dl_tensor.dtype.code == kDLBool && mv->dl_tensor.dtype.bits == 8);
  ZB_CHECK(mv->flags & DLPACK_FLAG_BITMASK_IS_COPIED);
  const uint8_t *bytes = (const uint8_t *)mv->dl_tensor.data + mv->dl_tensor.byte_offset;
  for (int i = 0; i < 10; i++) ZB_CHECK_EQ_INT(bytes[i], zb_bit_get(b->data->data, i));
  /* and bools come back as a bitmap */
  zb_column *back = NULL;
  g_released = 0;
  ZB_CHECK_OK(zb_column_import_dlpack(&mv->dl_tensor, count_release, NULL, &back, &err), &err);
  ZB_CHECK_EQ_INT(g_released, 1); /* converted: the producer's memory is let go at once */
  ZB_CHECK(back->type == ZB_BOOL);
  for (int i = 0; i < 10; i++)
    ZB_CHECK_EQ_INT(zb_bit_get(back->data->data, i), zb_bit_get(b->data->data, i));
  zb_column_release(back);
  mv->deleter(mv);
  /* nulls */
  zb_bit_set(b->validity->data, 3, false);
  zb_column_recount_nulls(b);
  ZB_CHECK_EQ_INT(zb_column_export_dlpack(b, true, true, &m, &err), ZB_ENOTSUP);
  ZB_CHECK(strstr(err.message, "null") != NULL);
  zb_column_release(b);
  zb_column *s = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_STRING, 1, false, 0, &s, &err), &err);
  ((int64_t *)s->data->data)[0] = ((int64_t *)s->data->data)[1] = 0;
  ZB_CHECK_EQ_INT(zb_column_export_dlpack(s, true, true, &m, &err), ZB_ENOTSUP);
  ZB_CHECK(strstr(err.message, "string") != NULL);
  zb_column_release(s);
}

ZB_TEST(test_dlpack_import_errors_keep_the_memory_with_the_caller) {
  zb_error err = {{0}};
  int64_t data[6] = {1, 2, 3, 4, 5, 6};
  int64_t shape[2] = {2, 3}, strides[1] = {2};
  DLTensor t = {data, {kDLCPU, 0}, 2, {kDLInt, 64, 1}, shape, NULL, 0};
  zb_column *c = NULL;
  g_released = 0;
  ZB_CHECK_EQ_INT(zb_column_import_dlpack(&t, count_release, NULL, &c, &err), ZB_EINVAL);
  t.ndim = 1;
  t.strides = strides;
  ZB_CHECK_EQ_INT(zb_column_import_dlpack(&t, count_release, NULL, &c, &err), ZB_ENOTSUP);
  t.strides = NULL;
  t.dtype.bits = 16;
  t.dtype.code = kDLFloat;
  ZB_CHECK_EQ_INT(zb_column_import_dlpack(&t, count_release, NULL, &c, &err), ZB_ENOTSUP);
  t.dtype.code = kDLInt;
  t.dtype.bits = 64;
  t.device.device_type = kDLCUDA;
  t.device.device_id = zb_cuda_device_total(); /* past the last GPU */
  ZB_CHECK_EQ_INT(zb_column_import_dlpack(&t, count_release, NULL, &c, &err), ZB_ENODEVICE);
  t.device.device_type = kDLOpenCL;
  ZB_CHECK_EQ_INT(zb_column_import_dlpack(&t, count_release, NULL, &c, &err), ZB_ENOTSUP);
  ZB_CHECK(c == NULL);
  ZB_CHECK_EQ_INT(g_released, 0);
  /* fault injection: every allocation of a good import and export fails in
   * turn, cleanly, and the release runs exactly when the import succeeds */
  t.device.device_type = kDLCPU;
  t.device.device_id = 0;
  t.byte_offset = 1; /* misaligned: copied */
  for (int misaligned = 0; misaligned < 2; misaligned++) {
    t.byte_offset = misaligned ? 1 : 0;
    shape[0] = misaligned ? 5 : 6;
    for (int64_t k = 1; k < 50; k++) {
      g_released = 0;
      zb_alloc_fail_after(k);
      zb_status st = zb_column_import_dlpack(&t, count_release, NULL, &c, &err);
      zb_alloc_fail_after(0);
      if (st != ZB_OK) {
        ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
        ZB_CHECK(c == NULL && g_released == 0);
        continue;
      }
      if (misaligned) {
        ZB_CHECK_EQ_INT(g_released, 1);
        int64_t want;
        memcpy(&want, (char *)data + 1, sizeof want);
        ZB_CHECK_EQ_INT(((int64_t *)c->data->data)[0], want);
        ZB_CHECK(((uintptr_t)c->data->data % 8) == 0);
      }
      void *m = NULL;
      zb_alloc_fail_after(1);
      ZB_CHECK_EQ_INT(zb_column_export_dlpack(c, false, false, &m, &err), ZB_ENOMEM);
      zb_alloc_fail_after(0);
      zb_column_release(c);
      c = NULL;
      ZB_CHECK_EQ_INT(g_released, 1);
      break;
    }
  }
}

ZB_TEST(test_arrow_device_export_of_a_host_column) {
  zb_error err = {{0}};
  zb_column *c = int_column(20, 100), *part = NULL;
  ZB_CHECK_OK(zb_column_slice(c, 3, 10, &part, &err), &err);
  struct ArrowSchema s;
  struct ArrowDeviceArray d;
  ZB_CHECK_OK(zb_column_export_device_arrow(part, "p", &s, &d, &err), &err);
  ZB_CHECK(strcmp(s.format, "l") == 0 && strcmp(s.name, "p") == 0);
  ZB_CHECK_EQ_INT(d.device_type, ARROW_DEVICE_CPU);
  ZB_CHECK_EQ_INT(d.device_id, -1);
  ZB_CHECK(d.sync_event == NULL);
  ZB_CHECK_EQ_INT(d.array.length, 10);
  ZB_CHECK_EQ_INT(d.array.offset, 3);
  ZB_CHECK(d.array.buffers[1] == c->data->data);
  zb_column_release(part);
  zb_column_release(c); /* the export still holds the buffers */
  ZB_CHECK_EQ_INT(((const int64_t *)d.array.buffers[1])[3], 103);
  d.array.release(&d.array);
  s.release(&s);
  for (int64_t k = 1; k < 20; k++) {
    zb_column *x = int_column(4, 0);
    zb_alloc_fail_after(k);
    zb_status st = zb_column_export_device_arrow(x, "x", &s, &d, &err);
    zb_alloc_fail_after(0);
    zb_column_release(x);
    if (st == ZB_OK) {
      d.array.release(&d.array);
      s.release(&s);
      break;
    }
    ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
    ZB_CHECK(d.array.release == NULL);
  }
}

/* ---- CUDA (skipped where no GPU is present) -------------------------------- */

ZB_TEST(test_cuda_out_of_memory_names_the_bytes_and_recovers) {
  ZB_REQUIRE_GPU();
  zb_error err = {{0}};
  zb_device gpu = {ZB_DEVICE_CUDA, 0};
  zb_device_info info;
  ZB_CHECK_OK(zb_device_get_info(gpu, &info, &err), &err);
  zb_buffer *small = NULL, *huge = NULL;
  ZB_CHECK_OK(zb_buffer_new(gpu, 1 << 20, &small, &err), &err);
  zb_status st = zb_buffer_new(gpu, info.total_memory * 2, &huge, &err);
  ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
  ZB_CHECK(huge == NULL);
  ZB_CHECK(strstr(err.message, "bytes requested") != NULL);
  ZB_CHECK(strstr(err.message, "free") != NULL);
  ZB_CHECK(strstr(err.message, "cuda:0") != NULL);
  zb_buffer_release(small);
  ZB_CHECK_OK(zb_buffer_new(gpu, 64 << 20, &small, &err), &err); /* still usable */
  zb_buffer_release(small);
  zb_cuda_memory_info mi;
  ZB_CHECK_OK(zb_cuda_get_memory_info(0, &mi, &err), &err);
  ZB_CHECK(mi.total_memory > 0 && mi.pool_used <= mi.pool_reserved);
  ZB_CHECK_OK(zb_cuda_release_cached_memory(0, &err), &err);
}

ZB_TEST(test_cuda_staged_copies_are_exact) {
  ZB_REQUIRE_GPU();
  zb_error err = {{0}};
  zb_device gpu = {ZB_DEVICE_CUDA, 0};
  const int64_t sizes[] = {1, (4 << 20) - 1, 4 << 20, (4 << 20) + 1, (33 << 20) + 7,
                           (100 << 20) + 3};
  for (int k = 0; k < 6; k++) {
    int64_t n = sizes[k];
    zb_buffer *h = NULL, *d = NULL, *back = NULL;
    ZB_CHECK_OK(zb_buffer_new(ZB_CPU, n, &h, &err), &err);
    uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(k + 1);
    for (int64_t i = 0; i < n; i++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      ((uint8_t *)h->data)[i] = (uint8_t)x;
    }
    ZB_CHECK_OK(zb_buffer_copy_to(h, gpu, &d, &err), &err);
    ZB_CHECK_OK(zb_buffer_copy_to(d, ZB_CPU, &back, &err), &err);
    ZB_CHECK(back != NULL && memcmp(back->data, h->data, (size_t)n) == 0);
    zb_device where;
    ZB_CHECK_OK(zb_cuda_pointer_device(d->data, &where, &err), &err);
    ZB_CHECK(zb_device_equal(where, gpu));
    zb_buffer_release(h);
    zb_buffer_release(d);
    zb_buffer_release(back);
  }
}
