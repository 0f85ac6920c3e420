/*
 * profile.h -- what ran where: a record of every engine operation run while
 * a profile is active.
 *
 * A profile records, for each operation entry point (zb_column_binary,
 * zb_table_groupby, zb_column_to_device, ...), its name, the device it ran
 * on and the device its data lives on, the rows it was given, its wall time,
 * how deeply it was nested inside other operations, and -- when the data's
 * backend lacks the operation and the CPU ran it instead -- that fallback and
 * its reason ("cuda backend has no 'sort_indices'").  GPU work is waited for
 * before an operation's end time is taken, but only while a profile is
 * active: with none active the cost is one atomic load per operation.
 *
 * Scope: a profile sees the operations called by the thread that started it,
 * or, with all_threads, by every thread.  Profiles nest (each one active sees
 * the operation).  An operation started before a profile began is not in it.
 *
 * Usage:
 *   zb_profile *p;
 *   zb_profile_start(false, &p, &err);
 *   ... operations ...
 *   zb_profile_stop(p);
 *   int64_t n;
 *   const zb_profile_record *r = zb_profile_records(p, &n);
 *   zb_profile_free(p);
 */
#ifndef ZAMBEZI_PROFILE_H
#define ZAMBEZI_PROFILE_H

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zb_profile zb_profile;

#define ZB_PROFILE_REASON_SIZE 112

typedef struct zb_profile_record {
  const char *op;        /* operation name ("add", "filter", "to_device"); static */
  zb_device device;      /* where it ran (to_device: the destination) */
  zb_device data_device; /* where its input data lives */
  int64_t rows;          /* rows of its input */
  int64_t start_ns;      /* start, in ns since the profile started */
  int64_t wall_ns;       /* wall time in ns, GPU work included */
  int64_t thread;        /* the calling thread: 1, 2, ... in order of first use */
  int64_t seq;           /* start order across all threads */
  int32_t depth;         /* 0: called from outside the engine; n: inside n operations */
  bool fallback;         /* ran on the CPU because the data's backend lacks it */
  char reason[ZB_PROFILE_REASON_SIZE]; /* why it fell back; "" if it did not */
} zb_profile_record;

/* Start recording (the calling thread's operations, or every thread's when
 * all_threads).  *out is owned by the caller: zb_profile_free. */
ZB_API zb_status zb_profile_start(bool all_threads, zb_profile **out, zb_error *err);

/* Stop recording; idempotent.  Operations still running on other threads
 * when it is called are not recorded. */
ZB_API void zb_profile_stop(zb_profile *p);

/* The records of a stopped profile, in the order the operations started
 * (a nested operation follows its parent); *n receives their number.  The
 * array belongs to p.  Before zb_profile_stop: NULL and *n = 0. */
ZB_API const zb_profile_record *zb_profile_records(zb_profile *p, int64_t *n);

/* Records lost because memory for them could not be allocated. */
ZB_API int64_t zb_profile_dropped(const zb_profile *p);

/* Stop (if needed) and free p; NULL is a no-op. */
ZB_API void zb_profile_free(zb_profile *p);

/* ---- coverage ------------------------------------------------------------
 * What a backend runs natively, from its support table: one row per table
 * row.  op: the operation ("binary", "cast", "groupby_agg"...); variants:
 * the sub-operations it takes, comma-separated ("add,sub,...", the target
 * types of a cast, the aggregations of a group-by), or "*" for all; types:
 * the types of the operation's subject, comma-separated, or "*" for all.
 * Operations without a row run on the CPU for data on that device (recorded
 * as fallbacks in profiles). */
typedef struct zb_coverage_row {
  char op[32];
  char variants[384];
  char types[256];
} zb_coverage_row;

/* The coverage of the backend of device kind `kind`: *rows (n_rows of
 * them) is owned by the caller and freed with zb_free.  ZB_ENODEVICE when
 * this build has no such backend. */
ZB_API zb_status zb_backend_coverage(zb_device_kind kind, zb_coverage_row **rows,
                                     int64_t *n_rows, zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_PROFILE_H */
