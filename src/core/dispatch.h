/*
 * dispatch.h -- how an operation reaches a backend: one description of the
 * call, one table per backend saying what it supports, one dispatcher.
 *
 * A checked entry point (src/core/ ... _ops.c) validates its arguments, fills a
 * zb__call (the operation, its inputs, its parameters) and hands it to
 * zb__dispatch with the device the data lives on.  The dispatcher looks the
 * call up in that backend's support table; when the backend takes it, the
 * inputs are moved to the device (scalars are built on the host) and the
 * backend's single `run` switch does the work.  When it does not -- the
 * table lacks the operation for these types or variants, or the backend
 * declines at run time (ZB__DECLINED, for conditions no table can state,
 * such as an output too large for the device's index type) -- the
 * dispatcher runs the CPU backend over host copies and moves the results
 * back to the data's device.  That fallback, the copies and the profile
 * record happen here and nowhere else.
 *
 * A support row names an operation, the types of its subject (one bit per
 * zb_type_id) and its variants (one bit per sub-operation: the zb_binary_op
 * of a binary, the target type of a cast...).  Which type is the subject,
 * and what the variant is, is stated per operation in zb__op below.  A call
 * is supported when every (subject type, variant) pair it involves is in
 * some row for its operation.  A backend with a NULL table supports
 * everything (the CPU, the reference).
 */
#ifndef ZAMBEZI_CORE_DISPATCH_H
#define ZAMBEZI_CORE_DISPATCH_H

#include "zambezi/compute.h"
#include "zambezi/groupby.h"
#include "zambezi/join.h"
#include "zambezi/ewm.h"
#include "zambezi/regex.h"
#include "zambezi/rolling.h"
#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The operations a backend may run.  For each: the subject (whose type the
 * support table checks), the variant, the inputs and parameters used, and
 * the results the backend sets. */
typedef enum zb__op {
  /* in[0] col; variant zb_reduce_op; -> out_scalar[0] */
  ZB__OP_REDUCE = 0,
  /* in[0] a, in[1] b (scalar[k]: a length-1 column broadcast); subject the
   * compute type p.binary.compute; variant zb_binary_op; -> out[0] */
  ZB__OP_BINARY,
  /* in[0]; variant zb_unary_op; -> out[0] */
  ZB__OP_UNARY,
  /* in[0]; variant the target type; p.cast; -> out[0] */
  ZB__OP_CAST,
  /* in[0]; variant 1 for notnull, 0 for isnull; -> out[0] */
  ZB__OP_IS_NULL,
  /* in[0] col, in[1] a valid length-1 column of col's type (categorical:
   * the fill string's code); -> out[0] */
  ZB__OP_FILL_NULL,
  /* in[0] col, in[1] bool mask (variant 0), or table t by in[1] (variant 1,
   * all columns in one pass); -> out[0] or out_table */
  ZB__OP_FILTER,
  /* in[0] col, in[1] int64 indices checked to lie in range (variant 0), or
   * table t by in[1] (variant 1); -> out[0] or out_table */
  ZB__OP_TAKE,
  /* table t; subject each key's type; p.sort; -> out[0] (int64 order) */
  ZB__OP_SORT_INDICES,
  /* in[0]; p.sort_values; -> out[0] (the values in order), and for
   * variant 1 out[1] (int64: the permutation that sorts them) */
  ZB__OP_SORT_VALUES,
  /* in[0] a string column; variant zb_str_op; p.str; -> out[0] */
  ZB__OP_STR,
  /* in[0], in[1] string columns (scalar[k]: length-1, broadcast); p.cat;
   * -> out[0] */
  ZB__OP_STR_CAT,
  /* in[0] date32 / timestamp; variant zb_dt_field; p.dt; -> out[0] */
  ZB__OP_DT_FIELD,
  /* in[0] numeric; p.clip; -> out[0] */
  ZB__OP_CLIP,
  /* in[0] numeric; p.round; -> out[0] */
  ZB__OP_ROUND,
  /* in[0] bool cond, in[1] a, in[2] b (scalar[2]: length-1) of one type;
   * subject a's type; p.where; -> out[0] */
  ZB__OP_WHERE,
  /* in[0]; variant zb_stat_op; p.stat; -> out_scalar[0] */
  ZB__OP_STAT,
  /* in[0]; p.quantile; -> out_scalar[0 .. n_q) */
  ZB__OP_QUANTILE,
  /* table t; subject each key's type; p.keys; -> out[0] */
  ZB__OP_HASH_ROWS,
  /* in[0]; -> out[0] */
  ZB__OP_UNIQUE,
  /* in[0]; p.nunique; -> out_count */
  ZB__OP_NUNIQUE,
  /* in[0]; p.value_counts; -> out[0] values, out[1] counts */
  ZB__OP_VALUE_COUNTS,
  /* table t; subject each key's type; p.keys; -> out[0] */
  ZB__OP_DUPLICATED,
  /* in[0] col, in[1] values of the same type; -> out[0] */
  ZB__OP_ISIN,
  /* keys[0], keys[1]: n_keys key columns of each side; subject each key's
   * type; variant zb_join_how; p.join; -> out[0] left, out[1] right (NULL
   * for semi / anti), out_count 1 when the pairs come in the order of the
   * keys already (the caller then need not sort them), else 0 */
  ZB__OP_JOIN,
  /* table t; subject each key's type, and, as ZB__OP_GROUPBY_AGG, each
   * aggregation's column type with variant zb_agg_op; p.groupby;
   * -> out_table */
  ZB__OP_GROUPBY,
  /* not called: the support rows of group-by aggregations */
  ZB__OP_GROUPBY_AGG,
  /* table t; subject each key's type; p.groupby (no aggregations);
   * -> out[0], out_count (the number of groups) */
  ZB__OP_GROUP_IDS,
  /* in[0] int64 group ids; p.cumcount; -> out[0] */
  ZB__OP_GROUP_CUMCOUNT,
  /* in[0] any type; variant 0 forward (ffill), 1 backward (bfill);
   * p.fill_scan (limit: INT64_MAX for none); -> out[0] */
  ZB__OP_FILL_SCAN,
  /* in[0] a number, date32 or timestamp column; in[1] NULL, or int64
   * group ids (segmented: the scan restarts per group; p.cumulative.n_groups);
   * variant the zb_cum_op, plus ZB_CUM_OP_COUNT when segmented (so that a
   * table may take one form without the other); p.cumulative; -> out[0] of
   * type p.cumulative.result */
  ZB__OP_CUMULATIVE,
  /* in[0] any sortable column; in[1] NULL, or int64 group ids (ranks
   * restart per group; p.rank.n_groups); variant the zb_rank_method, plus
   * ZB_RANK_METHOD_COUNT when grouped; p.rank; -> out[0] float64 */
  ZB__OP_RANK,
  /* in[0] a float64 column; in[1] NULL, or int64 group ids (the windows
   * stay inside each group; p.rolling.n_groups), or (p.rolling.bounds)
   * int64 window starts with in[2] the ends; in[3] the float64 column
   * paired with in[0] (cov, corr), else NULL; variant the zb_roll_op, plus
   * ZB_ROLL_OP_COUNT for groups, 2 * ZB_ROLL_OP_COUNT for given windows;
   * p.rolling; -> out[0] float64 */
  ZB__OP_ROLLING,
  /* table t of float64 columns (subject each column's type); in[0] NULL,
   * or int64 group ids (p.ewm.n_groups); in[1] NULL, or float64 times;
   * variant the zb_ewm_op, plus ZB_EWM_OP_COUNT for groups; p.ewm;
   * -> out_table of float64 columns */
  ZB__OP_EWM,
  /* in[0] a string column; variant zb_regex_op; p.regex; -> out[0], or
   * out_table for the multi-column ops (zambezi/regex.h) */
  ZB__OP_REGEX,
  /* in[0] a string column; variant the zb_parse_kind; p.parse (format
   * NULL: ISO 8601); -> out[0] timestamp[ns] / duration[ns], p.parse.info */
  ZB__OP_PARSE_TIME,
  /* in[0] a list<string> column; p.cat.sep; -> out[0] string (str.join);
   * variant 1: in[0] any list column, -> out[0] each list's Python repr */
  ZB__OP_LIST_JOIN,
  /* in[0] a timestamp column; in[1] NULL, or (variant 1) a bool column of
   * per-row ambiguous choices; variant 0: UTC instants to wall times,
   * 1: wall times to UTC (tz_localize); p.tz; -> out[0] */
  ZB__OP_TZ,
  /* in[0] an int64 column of codes; p.one_hot.n columns; -> out_table of
   * bool indicator columns (zambezi/reshape.h) */
  ZB__OP_ONE_HOT,
  /* in[0] a string or fixed-width column; p.one_hot.n times each row;
   * -> out[0] (zambezi/reshape.h) */
  ZB__OP_REPEAT,
  /* table t; in[0] int64 group ids (p.groupby.n_groups, no keys) of the
   * table's rows; p.groupby's aggregations; -> out_table (one column per
   * aggregation).  Subject in[0]'s type (a backend takes it by its own row) */
  ZB__OP_GROUPBY_IDS,
  /* in[0] a timestamp or int64 column; variant 0: its range and order into
   * *p.time_bins.range; variant 1: each row's bin (zambezi/resample.h)
   * -> out[0] int64, out_count the runs of equal bins */
  ZB__OP_TIME_BINS,
  /* in[0] int64 group ids; p.lag; -> out[0] int64 rows (null: none) */
  ZB__OP_GROUP_LAG,
  /* table t; in[0] int64 segment offsets (n_groups + 1, checked by the
   * core); p.groupby's aggregations; -> out_table (one column per
   * aggregation; zb_table_groupby_segments) */
  ZB__OP_GROUPBY_SEGMENTS,
  /* in[0] a number column; p.lag.periods; variant the result type
   * (ZB_FLOAT32 or ZB_FLOAT64); -> out[0] (zb_column_diff) */
  ZB__OP_DIFF,
  /* in[0] int64 group ids; p.lag.n_groups; -> out[0] the rows by group,
   * out[1] their ids (zb_column_group_order) */
  ZB__OP_GROUP_ORDER,
  /* in[0] a number or bool column, in[1] its int64 group ids; variant the
   * zb_moment_op; p.moment; -> out[0] float64 (zb_column_group_moment) */
  ZB__OP_GROUP_MOMENT,
  /* table t of float64 columns; variant 1: covariances, 0: correlations;
   * p.corr; -> p.corr.out[k * k] (zb_table_corr) */
  ZB__OP_CORR_MATRIX,
  ZB__OP_COUNT
} zb__op;

/* The most column inputs one call takes (in[]). */
#define ZB__CALL_INPUTS 4

/* One call.  Inputs are borrowed; results are new references the caller
 * owns once zb__dispatch returns ZB_OK (all NULL otherwise). */
typedef struct zb__call {
  zb__op op;
  int32_t variant;
  const char *name; /* for profiles (static string); NULL: the operation's name */
  bool spanned;     /* the caller's profile span records the call: open none */
  const zb_column *in[ZB__CALL_INPUTS];
  bool scalar[ZB__CALL_INPUTS];
  const zb_table *table;
  const zb_column *const *keys[2];
  union {
    struct { zb_type_id compute, result; } binary;
    struct { zb_time_unit unit; } cast;
    struct { int64_t n_keys; const int64_t *keys; const bool *ascending; bool nulls_first; } sort;
    struct { bool ascending, nulls_first; } sort_values;
    struct { const zb_str_args *args; } str;
    struct { const zb_regex_args *args; } regex;
    struct { const char *sep; int64_t sep_len; } cat;
    struct { int64_t offset_s; } dt;
    struct { const zb_scalar *lower, *upper; } clip;
    struct { int decimals; } round;
    struct { bool mask; } where;
    struct { int64_t ddof; } stat;
    struct { int64_t n_q; const double *q; } quantile;
    struct { int64_t n_keys; const int64_t *keys; zb_keep keep; } keys;
    struct { bool dropna; } nunique;
    struct { bool sort, ascending, dropna, normalize; } value_counts;
    struct { int64_t n_keys, n_left, n_right; bool nulls_match; } join;
    struct {
      int64_t n_keys;
      const int64_t *keys;
      bool dropna, sort;
      int64_t n_aggs;
      const zb_agg *aggs;
      int64_t n_groups; /* GROUPBY_IDS: the ids lie in [0, n_groups) */
      bool keep_ids;    /* GROUPBY: also -> out[0] the ids, out_count n_groups */
    } groupby;
    struct { int64_t n_groups; bool ascending; } cumcount;
    struct { int64_t n; } one_hot; /* and repeat's times */
    struct { int64_t limit; zb_fill_area area; } fill_scan;
    struct { bool skipna; int64_t n_groups; zb_type_id result; } cumulative;
    struct { bool ascending; bool pct; zb_rank_na na_option; int64_t n_groups; } rank;
    struct { zb_rolling_options opt; int64_t n_groups; bool bounds; } rolling;
    struct { zb_ewm_options opt; int64_t n_groups; } ewm;
    struct { const char *format; zb_parse_info *info; } parse;
    struct {
      const struct zb_tz *tz;
      const char *name;
      int ambiguous, nonexistent; /* zb_tz_ambiguous, zb_tz_nonexistent */
    } tz;
    struct { int64_t n_groups, periods; } lag;
    struct { int64_t n_groups; bool skipna; } moment;
    struct { int64_t min_periods, ddof; double *out; } corr;
    struct {
      int64_t scale, base, width, n_bins;
      struct zb_time_range *range;
    } time_bins;
  } p;
  /* results */
  zb_column *out[2];
  zb_table *out_table;
  zb_scalar *out_scalar; /* the caller's array */
  int64_t out_count;
  bool fell_back; /* set by zb__dispatch: it ran on the CPU for off-CPU data */
} zb__call;

/* A backend's support row (see the top of this file). */
typedef struct zb__support {
  zb__op op;
  uint32_t types;
  uint64_t variants;
} zb__support;

#define ZB__T(t) (UINT32_C(1) << (t))
#define ZB__V(v) (UINT64_C(1) << (v))
#define ZB__ALL_VARIANTS (~UINT64_C(0))
/* Every type but list: a list column reaches only the CPU (a backend row
 * "for every type" does not take it), and only for the operations
 * zb__dispatch lets through (take, filter, isnull). */
#define ZB__ALL_TYPES ((UINT32_C(1) << ZB_LIST) - 1)
#define ZB__INTEGER_TYPES                                                               \
  (ZB__T(ZB_INT8) | ZB__T(ZB_INT16) | ZB__T(ZB_INT32) | ZB__T(ZB_INT64) | ZB__T(ZB_UINT8) | \
   ZB__T(ZB_UINT16) | ZB__T(ZB_UINT32) | ZB__T(ZB_UINT64))
#define ZB__FLOAT_TYPES (ZB__T(ZB_FLOAT32) | ZB__T(ZB_FLOAT64))
/* integers and floats, without bool */
#define ZB__NUMBER_TYPES (ZB__INTEGER_TYPES | ZB__FLOAT_TYPES)
/* numeric as zb_type_is_numeric: with bool */
#define ZB__NUMERIC_TYPES (ZB__T(ZB_BOOL) | ZB__NUMBER_TYPES)
/* Durations are not in it: arithmetic, casts and statistics of durations
 * reach the backends as int64 views (compute_ops.c); rows for every type
 * (ZB__ALL_TYPES: take, sort, group-by ...) take them as they are. */
#define ZB__TIME_TYPES (ZB__T(ZB_DATE32) | ZB__T(ZB_TIMESTAMP))

/* The name of an operation as profiles and coverage listings show it (the
 * backend table entry it had before there was one table). */
const char *zb__op_name(zb__op op);

struct zb_backend;
/* Whether be runs call c natively (its table covers every subject type and
 * variant of c). */
bool zb__backend_supports(const struct zb_backend *be, const zb__call *c);
/* Whether be has any row for op (for spans around composite operations). */
bool zb__backend_has(const struct zb_backend *be, zb__op op);

/* Run c for data on dev: natively when dev's backend supports it, else on
 * the CPU over host copies (recorded in active profiles).  Column and table
 * results are on dev.  On failure every result is NULL / released. */
zb_status zb__dispatch(zb_device dev, zb__call *c, zb_error *err);
/* zb__dispatch for a call with one column result, handed to *out (a new
 * reference; NULL on failure). */
zb_status zb__dispatch_column(zb_device dev, zb__call *c, zb_column **out, zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_CORE_DISPATCH_H */
