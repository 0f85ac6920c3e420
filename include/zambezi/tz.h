/*
 * tz.h -- named time zones: a TZif file (RFC 8536, the format of
 * /usr/share/zoneinfo and of Python's tzdata package) parsed into a table
 * of UTC offsets, and the two conversions every zone-aware operation is
 * built from: UTC instants to wall times, and wall times to UTC instants
 * (tz_localize, with pandas' choices for ambiguous and nonexistent times).
 *
 * The engine never opens zone files itself: the caller (the Python layer)
 * finds the file and hands its bytes to zb_tz_parse.  A corrupt or
 * truncated file is ZB_EPARSE, never a crash.
 */
#ifndef ZAMBEZI_TZ_H
#define ZAMBEZI_TZ_H

#include <stddef.h>
#include <stdint.h>

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A parsed zone: immutable once made, usable from any thread. */
typedef struct zb_tz zb_tz;

/* The last year the POSIX TZ rule at the end of a TZif file is expanded
 * through; later instants keep the offset in force at its end. */
#define ZB_TZ_LAST_RULE_YEAR 2500

/* Parse the TZif bytes data[0 .. len) of the zone called name (kept for
 * messages).  On success *out is a new zone the caller releases with
 * zb_tz_release; on failure *out is NULL: ZB_EPARSE for a malformed file
 * (the message says what was wrong), ZB_ENOTSUP for leap-second files
 * ("right/" zones), ZB_ENOMEM. */
ZB_API zb_status zb_tz_parse(const uint8_t *data, size_t len, const char *name, zb_tz **out,
                             zb_error *err);
ZB_API void zb_tz_release(zb_tz *tz);
/* The zone's offset from UTC, in seconds, at UTC second utc_s. */
ZB_API int32_t zb_tz_offset_at(const zb_tz *tz, int64_t utc_s);
/* The number of offset changes in the zone's table (the TZif transitions
 * plus those its POSIX rule gives through ZB_TZ_LAST_RULE_YEAR). */
ZB_API int64_t zb_tz_transition_count(const zb_tz *tz);

/* What tz_localize does with a wall time that occurs twice (a fall-back
 * hour): raise, NaT, or take the earlier instant (pandas' ambiguous=True,
 * daylight time) / the later one (False).  ZB_TZ_AMBIGUOUS_ARRAY: per row
 * from a bool column (true: the earlier).  ZB_TZ_AMBIGUOUS_INFER: from the
 * order of the rows, as pandas' ambiguous="infer": each run of adjacent
 * ambiguous rows must repeat its wall times exactly once (the first pass
 * is the earlier instant, the rows from the first one not later than its
 * predecessor the later); else ZB_EINVAL naming the run's first row. */
typedef enum zb_tz_ambiguous {
  ZB_TZ_AMBIGUOUS_RAISE = 0,
  ZB_TZ_AMBIGUOUS_NAT,
  ZB_TZ_AMBIGUOUS_EARLIER,
  ZB_TZ_AMBIGUOUS_LATER,
  ZB_TZ_AMBIGUOUS_ARRAY,
  ZB_TZ_AMBIGUOUS_INFER
} zb_tz_ambiguous;

/* What tz_localize does with a wall time that does not occur (a
 * spring-forward gap): raise, NaT, the first instant after the gap, or
 * the last unit before it (pandas' shift_forward / shift_backward). */
typedef enum zb_tz_nonexistent {
  ZB_TZ_NONEXISTENT_RAISE = 0,
  ZB_TZ_NONEXISTENT_NAT,
  ZB_TZ_NONEXISTENT_SHIFT_FORWARD,
  ZB_TZ_NONEXISTENT_SHIFT_BACKWARD
} zb_tz_nonexistent;

/* The wall times in tz of the instants of col (a timestamp column, its
 * values UTC): a naive timestamp column of the same unit.  Nulls stay. */
ZB_API zb_status zb_column_tz_to_wall(const zb_column *col, const zb_tz *tz, zb_column **out,
                                      zb_error *err);
/* The UTC instants of the wall times of col (a naive timestamp column) in
 * tz: a timestamp column of the same unit whose timezone is tz_name.
 * ambiguous_rows: a bool column as long as col for ZB_TZ_AMBIGUOUS_ARRAY
 * (else NULL).  A raise choice fails with ZB_EINVAL naming the first
 * such row and its wall time. */
ZB_API zb_status zb_column_tz_localize(const zb_column *col, const zb_tz *tz,
                                       const char *tz_name, zb_tz_ambiguous ambiguous,
                                       const zb_column *ambiguous_rows,
                                       zb_tz_nonexistent nonexistent, zb_column **out,
                                       zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_TZ_H */
