/*
 * compute.h -- columnar compute on zambezi columns and tables: elementwise
 * arithmetic, comparisons and logic, unary operations, casts, null tests and
 * filling, filtering, taking rows by position, and sort permutations.
 *
 * Every operation validates its arguments once and runs on the device where
 * its inputs live (on the CPU, over a host copy, when that device's backend
 * lacks the operation).  Results are new columns (or tables) owned by the
 * caller; inputs are borrowed.  On failure *out is NULL and nothing leaks.
 * Results never depend on the thread count.
 *
 * Semantics follow pandas with nullable dtypes ("Int64", "Float64",
 * "boolean", "string"):
 *
 *   - Nulls propagate: a row is null in the result when it is null in any
 *     input (exceptions: Kleene logic for AND/OR on bools, and pandas'
 *     1 ** NA == 1 and NA ** 0 == 1 for POW).
 *   - Comparisons with a null give null; NaN compares unequal to everything
 *     (NaN != x is true), as in numpy.
 *
 * Type promotion (numpy rules) for arithmetic, bitwise ops and comparisons:
 *   - same type -> that type; bool with X -> X; bool with bool -> int64 for
 *     arithmetic (True is 1), bool for AND/OR/XOR and comparisons;
 *   - signed with signed, unsigned with unsigned -> the wider;
 *   - signed intN with unsigned uintM -> intN if M < N, else the signed type
 *     of twice M bits (int64 with uint64 -> float64, as numpy does);
 *   - float32 with (u)int8/(u)int16 -> float32; float32 with wider integers
 *     -> float64; float64 with anything -> float64;
 *   - TRUEDIV always gives float64.
 * Integer arithmetic wraps on overflow (two's complement, like numpy).
 * Integer FLOORDIV rounds toward -infinity and MOD takes the divisor's sign
 * (Python semantics); integer division or modulo by zero gives null (pandas
 * would give 0 or raise depending on the op -- we choose null everywhere).
 * Float FLOORDIV/MOD follow numpy's divmod (x // 0.0 -> +-inf or NaN,
 * x % 0.0 -> NaN).  Integer POW with a negative exponent gives null
 * (numpy raises); it wraps on overflow.
 * Comparisons also accept two string columns (byte-wise, like Python's str
 * order for UTF-8), categoricals (compared by their string values), two
 * date32 columns, and two timestamp columns of the same unit and timezone
 * (mixed int64/uint64 comparisons go through float64).
 */
#ifndef ZAMBEZI_COMPUTE_H
#define ZAMBEZI_COMPUTE_H

#include "zambezi/zambezi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Elementwise operations                                                   */
/* ------------------------------------------------------------------------ */

typedef enum zb_binary_op {
  ZB_OP_ADD = 0,
  ZB_OP_SUB,
  ZB_OP_MUL,
  ZB_OP_TRUEDIV,  /* float64, or float32 when both sides promote to float32 (numpy) */
  ZB_OP_FLOORDIV, /* rounds toward -inf; integer // 0 -> null */
  ZB_OP_MOD,      /* sign of the divisor; integer % 0 -> null */
  ZB_OP_POW,
  ZB_OP_EQ, /* comparisons: result bool */
  ZB_OP_NE,
  ZB_OP_LT,
  ZB_OP_LE,
  ZB_OP_GT,
  ZB_OP_GE,
  ZB_OP_AND, /* bools: Kleene logic; integers: bitwise */
  ZB_OP_OR,
  ZB_OP_XOR, /* bools: null if either is null; integers: bitwise */
  ZB_BINARY_OP_COUNT
} zb_binary_op;

typedef enum zb_unary_op {
  ZB_OP_NEG = 0, /* numeric (not bool); integers wrap */
  ZB_OP_ABS,     /* numeric (bool unchanged); abs(INT_MIN) == INT_MIN */
  ZB_OP_INVERT,  /* bool: logical not; integers: bitwise not */
  ZB_UNARY_OP_COUNT
} zb_unary_op;

/* "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "eq", "ne",
 * "lt", "le", "gt", "ge", "and", "or", "xor". */
ZB_API const char *zb_binary_op_name(zb_binary_op op);
/* "neg", "abs", "invert". */
ZB_API const char *zb_unary_op_name(zb_unary_op op);

/* The result type of a op b for operand types a and b (see the promotion
 * rules above); ZB_ETYPE when the op is not defined for them. */
ZB_API zb_status zb_binary_result_type(zb_binary_op op, zb_type_id a, zb_type_id b,
                                       zb_type_id *out, zb_error *err);

/* a op b row by row.  Lengths must be equal (ZB_EINVAL names both), the
 * devices equal.  A timestamp result keeps a's unit and timezone. */
ZB_API zb_status zb_column_binary(zb_binary_op op, const zb_column *a, const zb_column *b,
                                  zb_column **out, zb_error *err);

/* col op s (scalar_first false) or s op col (scalar_first true) with the
 * scalar broadcast to every row.  s->is_null makes a null scalar (the result
 * is then null wherever the op propagates nulls).  The scalar's value is read
 * from v.b (bool), v.i (signed ints, date32 days, timestamps in the column's
 * unit and timezone), v.u (unsigned) or v.f (floats). */
ZB_API zb_status zb_column_binary_scalar(zb_binary_op op, const zb_column *col,
                                         const zb_scalar *s, bool scalar_first,
                                         zb_column **out, zb_error *err);

/* A comparison (EQ..GE) of a string or categorical column with the string
 * s[0, len) broadcast to every row; s == NULL is a null scalar. */
ZB_API zb_status zb_column_binary_string(zb_binary_op op, const zb_column *col,
                                         const char *s, int64_t len, bool scalar_first,
                                         zb_column **out, zb_error *err);

/* op(col) row by row; the result has col's type. */
ZB_API zb_status zb_column_unary(zb_unary_op op, const zb_column *col, zb_column **out,
                                 zb_error *err);

/* ------------------------------------------------------------------------ */
/* Casts                                                                    */
/* ------------------------------------------------------------------------ */

/* col converted to target (nulls stay null).  unit is the target unit when
 * target is ZB_TIMESTAMP (ignored otherwise).  Supported:
 *   - between all numeric types and bool (C conversions; to bool: x != 0;
 *     integer -> narrower integer must fit, else ZB_EOVERFLOW naming the row;
 *     float -> integer truncates toward zero, NaN/inf give ZB_EINVAL and
 *     out-of-range values ZB_EOVERFLOW, naming the row and value);
 *   - numbers and bool -> string: integers plainly ("-12"), bools "True" /
 *     "False", floats as the shortest of %.15g/%.16g/%.17g that reads back
 *     exactly (Python repr style: "0.1", "1e+20", "nan", "inf", "-inf"; a
 *     float with an integral value keeps ".0", e.g. "3.0");
 *   - string -> numbers and bool: leading/trailing ASCII spaces ignored;
 *     integers in decimal with optional sign; floats by strtod (also "nan",
 *     "inf"); bools "True"/"False"/"true"/"false"/"1"/"0".  Unparsable text
 *     gives ZB_EPARSE naming the row and the text; out of range ZB_EOVERFLOW;
 *   - categorical -> string (decode) and -> any type a string casts to;
 *     string -> categorical (categories sorted byte-wise, as pandas sorts
 *     them); categorical -> categorical is the identity;
 *   - date32 <-> int32/int64 (days), timestamp <-> int64 (in its unit),
 *     date32 -> timestamp (midnight UTC-naive), timestamp -> date32 (floor
 *     to days), timestamp -> timestamp of another unit (finer: checked
 *     multiply, ZB_EOVERFLOW; coarser: floor division).  The timezone of a
 *     timestamp source is kept. */
ZB_API zb_status zb_column_cast(const zb_column *col, zb_type_id target, zb_time_unit unit,
                                zb_column **out, zb_error *err);

/* ------------------------------------------------------------------------ */
/* Nulls, selection                                                         */
/* ------------------------------------------------------------------------ */

/* A bool column without nulls: true where col is null (isnull) or valid
 * (notnull).  NaN is a value, not a null. */
ZB_API zb_status zb_column_isnull(const zb_column *col, zb_column **out, zb_error *err);
ZB_API zb_status zb_column_notnull(const zb_column *col, zb_column **out, zb_error *err);

/* col with its nulls replaced by value (the result has no nulls).  value is
 * converted to col's type like zb_column_cast (ZB_EOVERFLOW if it does not
 * fit; a non-integral float for an integer column is ZB_ETYPE, as pandas
 * refuses it).  A null value returns col unchanged.  bool, numeric, date32
 * and timestamp columns (the scalar's v.i in the column's unit). */
ZB_API zb_status zb_column_fill_null(const zb_column *col, const zb_scalar *value,
                                     zb_column **out, zb_error *err);
/* The same for string columns, and categoricals when s is one of the
 * categories (else ZB_EINVAL, as pandas raises). */
ZB_API zb_status zb_column_fill_null_string(const zb_column *col, const char *s, int64_t len,
                                            zb_column **out, zb_error *err);

/* Which missing rows pandas' limit_area lets ffill / bfill fill:
 * ZB_FILL_ANYWHERE every one the direction reaches; ZB_FILL_INSIDE only
 * rows with a valid row on both sides; ZB_FILL_OUTSIDE only rows before
 * the first valid row (bfill) or after the last (ffill). */
typedef enum zb_fill_area {
  ZB_FILL_ANYWHERE = 0,
  ZB_FILL_INSIDE,
  ZB_FILL_OUTSIDE,
  ZB_FILL_AREA_COUNT
} zb_fill_area;

/* pandas' ffill / bfill: col with each missing row -- a null, or a NaN in
 * a float column, as pandas counts NaN -- replaced by the value of the
 * nearest valid row before it (forward) or after it (backward).  Every
 * type (strings and categoricals too); the result has col's type, unit,
 * timezone and categories.  limit >= 0 fills at most that many
 * consecutive missing rows of each run (the ones next to the value, as
 * pandas' limit); a negative limit means no limit.  Rows left unfilled
 * stay as they were (a null stays null, a NaN stays NaN).  The CPU works
 * morsel by morsel on the thread pool: each morsel finds its valid rows,
 * one carry runs across morsels, then each morsel writes the source
 * position of its rows, which one take gathers.  The result does not
 * depend on the thread count. */
ZB_API zb_status zb_column_fill_forward(const zb_column *col, int64_t limit, zb_fill_area area,
                                        zb_column **out, zb_error *err);
ZB_API zb_status zb_column_fill_backward(const zb_column *col, int64_t limit,
                                         zb_fill_area area, zb_column **out, zb_error *err);

/* The cumulative operations (pandas' cumsum, cumprod, cummin, cummax). */
typedef enum zb_cum_op {
  ZB_CUM_SUM = 0,
  ZB_CUM_PROD,
  ZB_CUM_MIN,
  ZB_CUM_MAX,
  ZB_CUM_OP_COUNT
} zb_cum_op;

/* "cumsum", "cumprod", "cummin", "cummax" ("unknown" otherwise). */
ZB_API const char *zb_cum_op_name(zb_cum_op op);

/* The type of zb_column_cumulative's result for a column of type t, as
 * pandas gives it: sum and prod of int8..int64 are int64, of uint8..uint64
 * uint64, of float32 / float64 the same float; min and max keep t (also
 * date32 and timestamp).  ZB_ETYPE for a type op does not take (bool,
 * strings, categoricals; sum and prod of dates and timestamps). */
ZB_API zb_status zb_cum_result_type(zb_type_id t, zb_cum_op op, zb_type_id *out,
                                    zb_error *err);

/* pandas' cumulative op of col: row i of the result is op over rows 0..i.
 * A missing row (a null, or NaN in a float column) is null in the result.
 * skipna: the running value skips missing rows; !skipna: every row from
 * the first missing one on is null.  Integer sums and products wrap
 * around in 64 bits, as numpy's int64 / uint64 do (pandas' result).  The
 * result type is zb_cum_result_type's, with col's unit and timezone.  The
 * CPU works morsel by morsel on the thread pool (each morsel's total, one
 * carry across morsels, then each morsel's running values): float sums and
 * products may differ from a strictly sequential one by rounding (and a
 * product that overflows to inf in one morsel and underflows to 0 in a
 * later one is NaN where a sequential scan keeps inf).  The result does
 * not depend on the thread count. */
ZB_API zb_status zb_column_cumulative(const zb_column *col, zb_cum_op op, bool skipna,
                                      zb_column **out, zb_error *err);

/* pandas' diff of a whole column in one pass that reads col once: row i
 * is col[i] - col[i - periods] (for periods < 0, col[i] - col[i - periods]
 * too: the row |periods| after), null where that row does not exist or
 * either value is null (NaN stays NaN, as a subtraction gives it).  col is
 * a number column (ints, uints, floats; ZB_ETYPE otherwise); result is
 * ZB_FLOAT64 or ZB_FLOAT32 (pandas: float32 for float32, int8 and int16):
 * the values are converted to it and subtracted in it -- except unsigned,
 * int32 and int64 integers, which pandas subtracts in their own width
 * (wrapping modulo 2^bits: 3 - 5 in uint8 is 254.0) before converting.  result may also be
 * col's own integer type: the difference wraps in that type, as pandas'
 * masked Int8..UInt64 give it. */
ZB_API zb_status zb_column_diff(const zb_column *col, int64_t periods, zb_type_id result,
                                zb_column **out, zb_error *err);

/* The same within groups (pandas' groupby().cumsum() ...): the running
 * value restarts in each group; group_ids is an INT64 column of col's
 * length with values in [0, n_groups) (ZB_EINDEX otherwise), as made by
 * zb_table_group_ids; a row whose group id is null is null in the result.
 * !skipna: the rows of a group from its first missing row on are null.
 * The rows of each group are scanned in row order, so float results equal
 * a sequential scan of the group's rows. */
ZB_API zb_status zb_column_group_cumulative(const zb_column *col, const zb_column *group_ids,
                                            int64_t n_groups, zb_cum_op op, bool skipna,
                                            zb_column **out, zb_error *err);

/* pandas' rank methods: how tied values share ranks.  average: the mean
 * of the positions the run of ties takes; min / max: its lowest / highest
 * position; first: positions in row order; dense: 1 + the number of
 * distinct values before (ranks without gaps). */
typedef enum zb_rank_method {
  ZB_RANK_AVERAGE = 0,
  ZB_RANK_MIN,
  ZB_RANK_MAX,
  ZB_RANK_FIRST,
  ZB_RANK_DENSE,
  ZB_RANK_METHOD_COUNT
} zb_rank_method;

/* Where missing values (nulls; NaN in floats) go: keep them missing, or
 * rank them as one tie run before (top) or after (bottom) every value,
 * whatever the direction. */
typedef enum zb_rank_na {
  ZB_RANK_NA_KEEP = 0,
  ZB_RANK_NA_TOP,
  ZB_RANK_NA_BOTTOM,
  ZB_RANK_NA_COUNT
} zb_rank_na;

/* "average", "min", "max", "first", "dense" ("unknown" otherwise). */
ZB_API const char *zb_rank_method_name(zb_rank_method method);

/* pandas' Series.rank: a float64 column of col's length holding each
 * row's 1-based rank among col's values in the order sort_indices gives
 * (ascending or descending; -0.0 and 0.0 tie; strings byte-wise;
 * categoricals by code, i.e. category order; ties in row order, so
 * method first numbers them in row order in both directions).  A missing
 * row is null with ZB_RANK_NA_KEEP, else ranked as described at
 * zb_rank_na.  pct: every rank divided by the number of ranked rows (the
 * rows not kept missing), or by the highest rank for method dense, as
 * pandas does.  Every type sort_indices takes. */
ZB_API zb_status zb_column_rank(const zb_column *col, zb_rank_method method, bool ascending,
                                zb_rank_na na_option, bool pct, zb_column **out,
                                zb_error *err);

/* The same within groups (pandas' groupby().rank()): ranks restart in
 * every group; group_ids is an INT64 column of col's length with values
 * in [0, n_groups) (ZB_EINDEX otherwise), as made by zb_table_group_ids;
 * a row whose group id is null is null in the result.  pct divides by the
 * group's count (or highest dense rank). */
ZB_API zb_status zb_column_group_rank(const zb_column *col, const zb_column *group_ids,
                                      int64_t n_groups, zb_rank_method method, bool ascending,
                                      zb_rank_na na_option, bool pct, zb_column **out,
                                      zb_error *err);

/* The rows of col where mask (a bool column of the same length) is true, in
 * order.  A null in mask counts as false (pandas raises for NA in a boolean
 * indexer; we drop the row, like SQL WHERE). */
ZB_API zb_status zb_column_filter(const zb_column *col, const zb_column *mask,
                                  zb_column **out, zb_error *err);
ZB_API zb_status zb_table_filter(const zb_table *t, const zb_column *mask, zb_table **out,
                                 zb_error *err);

/* Row indices[i] of col for each i (an int64 column; repeats allowed).  A
 * null index gives a null row.  A negative index or one >= col->length is
 * ZB_EINDEX naming the index and its position. */
ZB_API zb_status zb_column_take(const zb_column *col, const zb_column *indices,
                                zb_column **out, zb_error *err);
ZB_API zb_status zb_table_take(const zb_table *t, const zb_column *indices, zb_table **out,
                               zb_error *err);

/* ------------------------------------------------------------------------ */
/* Sorting                                                                  */
/* ------------------------------------------------------------------------ */

/* The stable sort permutation of t's rows by the columns keys[0..n_keys)
 * (indices into t), the first key most significant: an int64 column without
 * nulls such that zb_table_take(t, result) is sorted.  ascending may be NULL
 * (all ascending).  Equal keys keep their row order in both directions.
 * Nulls go first or last per nulls_first; NaN counts as missing and goes
 * with the nulls (as pandas places NaN by na_position), keeping row order
 * among them; -0.0 and 0.0 are equal.  Strings sort byte-wise,
 * categoricals by their category strings, bools false < true, dates and
 * timestamps by time.  Fixed-width keys use a parallel LSD radix sort;
 * results do not depend on the thread count. */
ZB_API zb_status zb_table_sort_indices(const zb_table *t, int64_t n_keys, const int64_t *keys,
                                       const bool *ascending, bool nulls_first,
                                       zb_column **out, zb_error *err);
/* The same for one column. */
ZB_API zb_status zb_column_sort_indices(const zb_column *col, bool ascending, bool nulls_first,
                                        zb_column **out, zb_error *err);
/* col's values in that order (what zb_column_take(col, sort indices)
 * gives: missing values at one end in row order, -0.0 and 0.0 in row
 * order), without building the permutation for fixed-width numeric host
 * columns. */
ZB_API zb_status zb_column_sort_values(const zb_column *col, bool ascending, bool nulls_first,
                                       zb_column **out, zb_error *err);
/* Both at once: *values (as zb_column_sort_values) and *indices (int64, as
 * zb_column_sort_indices), so that *values equals zb_column_take(col,
 * *indices).  Fixed-width numeric host columns sort (key, row) words and
 * write both from them, with no gather.  On success the caller owns both;
 * on failure both are NULL. */
ZB_API zb_status zb_column_sort_values_indices(const zb_column *col, bool ascending,
                                               bool nulls_first, zb_column **values,
                                               zb_column **indices, zb_error *err);

/* ------------------------------------------------------------------------ */
/* Statistics (src/core/stats_ops.c, src/cpu/reduce_stats.c)                */
/* ------------------------------------------------------------------------ */

/* Reductions beyond zb_column_reduce, over numeric and bool columns (argmin
 * and argmax also over strings, dates and timestamps).  Nulls and NaNs are
 * skipped, like pandas with skipna=True.  Results (zb_scalar):
 *   VAR, STD: FLOAT64, sum((x - mean)^2) / (count - ddof) by a corrected
 *             two-pass algorithm; null when count - ddof <= 0 (pandas: NaN);
 *   PROD:     FLOAT64 for floats, INT64 for signed ints and bool (wrapping
 *             on overflow, like numpy), UINT64 for unsigned; 1 when empty;
 *   ANY, ALL: BOOL (x != 0); ANY of nothing is false, ALL of nothing true;
 *   ARGMIN, ARGMAX: INT64, the position of the first minimum / maximum;
 *             null when there is no valid value (pandas raises instead);
 *             strings compare byte-wise; categoricals are refused (ZB_ETYPE,
 *             pandas refuses unordered categoricals too);
 *   MEDIAN:   FLOAT64, the 0.5 quantile (below).
 * The result does not depend on the thread count. */
typedef enum zb_stat_op {
  ZB_STAT_VAR = 0,
  ZB_STAT_STD,
  ZB_STAT_PROD,
  ZB_STAT_ANY,
  ZB_STAT_ALL,
  ZB_STAT_ARGMIN,
  ZB_STAT_ARGMAX,
  ZB_STAT_MEDIAN,
  ZB_STAT_OP_COUNT
} zb_stat_op;

/* "var", "std", "prod", "any", "all", "argmin", "argmax", "median". */
ZB_API const char *zb_stat_op_name(zb_stat_op op);

/* ddof is used by VAR and STD only (must be >= 0). */
ZB_API zb_status zb_column_stat(const zb_column *col, zb_stat_op op, int64_t ddof,
                                zb_scalar *out, zb_error *err);

/* out[i] = the q[i] quantile (0 <= q[i] <= 1, else ZB_EINVAL) of the valid,
 * non-NaN values of a numeric or bool column, as FLOAT64 with linear
 * interpolation between the closest ranks (pandas' and numpy's default):
 * at h = (count - 1) * q, x[floor(h)] + (x[ceil(h)] - x[floor(h)]) * frac(h).
 * Null when there are no values.  Uses selection (introselect) on a copy of
 * the values, not a full sort. */
ZB_API zb_status zb_column_quantile(const zb_column *col, int64_t n_q, const double *q,
                                    zb_scalar *out, zb_error *err);

/* The k x k correlation (cov false) or covariance matrix of the k FLOAT64
 * columns of t, row-major into out[k * k], as pandas' nancorr computes it
 * (its digits): per pair, Welford's updates in row order over the rows
 * where both values are valid and finite; NaN for a pair with fewer than
 * min_periods (>= 0) such rows or a zero divisor (a constant column);
 * correlations clipped to [-1, 1]; covariances divided by n - ddof
 * (ddof >= 0), NaN where that is not positive. */
ZB_API zb_status zb_table_corr(const zb_table *t, int64_t min_periods, int64_t ddof, bool cov,
                               double *out, zb_error *err);

/* The smallest (want_max false) or largest value of col as a new length-1
 * column of col's type (null when col has no valid value): numeric, bool,
 * string (byte-wise), date32 and timestamp columns.  NaN is skipped.  The
 * result is a zero-copy slice of col at its first minimum / maximum. */
ZB_API zb_status zb_column_min_max(const zb_column *col, bool want_max, zb_column **out,
                                   zb_error *err);

/* ------------------------------------------------------------------------ */
/* Hashing, distinct values, duplicates, membership (src/cpu/hash.c)        */
/* ------------------------------------------------------------------------ */

/* Value identity for every operation below: integers (and bool, dates,
 * timestamps) by value; floats with -0.0 == 0.0 and every NaN equal to
 * every NaN (but NaN is not null); strings by bytes; categoricals by their
 * category strings; null equals null.  Operations work on every dtype.
 * Results do not depend on the thread count. */

/* A UINT64 column without nulls: a 64-bit hash of each row of col.  Equal
 * values (as above) hash equally, also across integer widths and between a
 * categorical and a string column; nulls hash to one fixed value. */
ZB_API zb_status zb_column_hash(const zb_column *col, zb_column **out, zb_error *err);
/* The hash of the row's values in columns keys[0..n_keys) of t combined in
 * key order (keys NULL with n_keys 0: all columns). */
ZB_API zb_status zb_table_hash_rows(const zb_table *t, int64_t n_keys, const int64_t *keys,
                                    zb_column **out, zb_error *err);

/* The distinct values of col in order of first appearance, null included
 * once (as a null) when present, NaN once when present (pandas' unique). */
ZB_API zb_status zb_column_unique(const zb_column *col, zb_column **out, zb_error *err);

/* The number of distinct values; dropna leaves out null and NaN (pandas'
 * nunique(dropna=True)). */
ZB_API zb_status zb_column_nunique(const zb_column *col, bool dropna, int64_t *out,
                                   zb_error *err);

/* The distinct values of col (*values, col's type) and how often each
 * occurs (*counts: INT64, or FLOAT64 proportions of all counted rows when
 * normalize).  dropna leaves out null and NaN.  Order: sort false -> first
 * appearance; sort true -> by count, descending unless ascending, ties in
 * order of first appearance (pandas' value_counts).  Both outputs are new
 * references; on failure both are NULL. */
ZB_API zb_status zb_column_value_counts(const zb_column *col, bool sort, bool ascending,
                                        bool dropna, bool normalize, zb_column **values,
                                        zb_column **counts, zb_error *err);

/* Which occurrence of a repeated row counts as the original (pandas' keep). */
typedef enum zb_keep {
  ZB_KEEP_FIRST = 0, /* every occurrence but the first is a duplicate */
  ZB_KEEP_LAST,      /* every occurrence but the last is a duplicate */
  ZB_KEEP_NONE       /* every occurrence of a repeated row is a duplicate */
} zb_keep;

/* A BOOL column without nulls: true where the row (its values in columns
 * keys[0..n_keys) of t, all columns when n_keys is 0) repeats another row,
 * per keep.  Rows are compared column by column. */
ZB_API zb_status zb_table_duplicated(const zb_table *t, int64_t n_keys, const int64_t *keys,
                                     zb_keep keep, zb_column **out, zb_error *err);
ZB_API zb_status zb_column_duplicated(const zb_column *col, zb_keep keep, zb_column **out,
                                      zb_error *err);
/* t without its duplicated rows (per zb_table_duplicated), in row order. */
ZB_API zb_status zb_table_drop_duplicates(const zb_table *t, int64_t n_keys,
                                          const int64_t *keys, zb_keep keep, zb_table **out,
                                          zb_error *err);

/* A BOOL column without nulls: whether each row of col equals one of the
 * values of `values`.  A null row is false (pandas, nullable dtypes); nulls
 * in values are ignored; NaN matches NaN.  Types: equal types; any two
 * numeric types (compared by value: integers as int64 when both are
 * integers, else as float64); strings with categoricals; else ZB_ETYPE. */
ZB_API zb_status zb_column_isin(const zb_column *col, const zb_column *values,
                                zb_column **out, zb_error *err);

/* ------------------------------------------------------------------------ */
/* Strings, dates and times, elementwise extras (src/core/strings_ops.c)    */
/* ------------------------------------------------------------------------ */

/* String operations work on string columns (UTF-8, Arrow large_string) and
 * on categoricals, which are processed on their dictionary; the per-row
 * result is then taken through the codes (a string result of a categorical
 * is a plain string column, as pandas returns object/str for it).  Nulls
 * propagate: a null row gives a null result.  Positions and lengths count
 * characters (Unicode code points), like Python; input must be valid UTF-8.
 *
 *   ZB_STR_LEN          int64: characters per row.
 *   ZB_STR_CONTAINS     bool: pat (a literal, not a regex) occurs in the row.
 *   ZB_STR_STARTSWITH   bool.   ZB_STR_ENDSWITH   bool.  An empty pat matches.
 *   ZB_STR_LOWER/UPPER  string: ASCII letters change case; every other byte
 *                       (all non-ASCII characters) is kept unchanged (full
 *                       Unicode case mapping is not implemented).
 *   ZB_STR_STRIP/LSTRIP/RSTRIP
 *                       string: remove, from both/the left/the right end, the
 *                       characters in pat (a set of code points) or, with pat
 *                       NULL, whitespace as Python's str.isspace defines it
 *                       (ASCII \t\n\v\f\r, \x1c-\x1f, space, and U+0085,
 *                       U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029,
 *                       U+202F, U+205F, U+3000).
 *   ZB_STR_SLICE        string: s[start:stop:step] in characters with Python
 *                       semantics (negative indices count from the end; a
 *                       missing start/stop is has_start/has_stop false);
 *                       step 0 is ZB_EINVAL.
 *   ZB_STR_REPLACE      string: the first n (all when n < 0) non-overlapping
 *                       occurrences of pat, left to right, become repl, as
 *                       Python's str.replace (an empty pat inserts repl before
 *                       every character and at the end).
 *
 * CPU only (the GPU's data falls back), Unicode rules of Arrow's kernels,
 * which pandas' pyarrow-backed strings use (scripts/gen_char_props.py):
 *   ZB_STR_TITLE / CAPITALIZE / SWAPCASE / CASEFOLD
 *                       string: simple case mappings as upper / lower;
 *                       casefold is Python's full case folding ("ß" ->
 *                       "ss").
 *   ZB_STR_PAD          string: padded to `width` characters with the code
 *                       point `fill` on the left (side 0), right (1) or both
 *                       (2, as Python's str.center); side 3 is str.zfill.
 *   ZB_STR_REPEAT       string: the row n times (n <= 0: empty).
 *   ZB_STR_FIND/RFIND   int64: Python's str.find / rfind of pat within
 *                       [start, stop) (has_start / has_stop), in characters.
 *   ZB_STR_ISALPHA ... ISDECIMAL
 *                       bool: every character has the property (at least
 *                       one character; islower / isupper / istitle as
 *                       Python's, over cased characters). */
typedef enum zb_str_op {
  ZB_STR_LEN = 0,
  ZB_STR_CONTAINS,
  ZB_STR_STARTSWITH,
  ZB_STR_ENDSWITH,
  ZB_STR_LOWER,
  ZB_STR_UPPER,
  ZB_STR_STRIP,
  ZB_STR_LSTRIP,
  ZB_STR_RSTRIP,
  ZB_STR_SLICE,
  ZB_STR_REPLACE,
  ZB_STR_TITLE, /* the first op the GPU does not run */
  ZB_STR_CAPITALIZE,
  ZB_STR_SWAPCASE,
  ZB_STR_CASEFOLD,
  ZB_STR_PAD,
  ZB_STR_REPEAT,
  ZB_STR_FIND,
  ZB_STR_RFIND,
  ZB_STR_ISALPHA,
  ZB_STR_ISDIGIT,
  ZB_STR_ISNUMERIC,
  ZB_STR_ISALNUM,
  ZB_STR_ISSPACE,
  ZB_STR_ISLOWER,
  ZB_STR_ISUPPER,
  ZB_STR_ISTITLE,
  ZB_STR_ISDECIMAL,
  ZB_STR_OP_COUNT
} zb_str_op;

/* Arguments of a string operation; fields an op does not use are ignored.
 * The strings are borrowed for the duration of the call. */
typedef struct zb_str_args {
  zb_str_op op;
  const char *pat; /* pattern, prefix, suffix, or strip set (NULL: whitespace) */
  int64_t pat_len;
  const char *repl; /* replacement (REPLACE) */
  int64_t repl_len;
  int64_t n;        /* REPLACE: at most n replacements per row; < 0: all */
  int64_t start, stop, step; /* SLICE */
  bool has_start, has_stop;  /* SLICE: false = omitted (None) */
  int64_t width;             /* PAD: the width in characters */
  int32_t side;              /* PAD: 0 left, 1 right, 2 both, 3 zfill */
  uint32_t fill;             /* PAD: the fill character's code point */
} zb_str_args;

/* "len", "contains", "startswith", ... */
ZB_API const char *zb_str_op_name(zb_str_op op);

/* Apply a string operation to every row of col (string or categorical). */
ZB_API zb_status zb_column_str(const zb_column *col, const zb_str_args *args,
                               zb_column **out, zb_error *err);

/* Row-wise concatenation a[i] + sep + b[i] of two string (or categorical)
 * columns of equal length; null if either is null (pandas' default
 * na_rep=None). */
ZB_API zb_status zb_column_str_cat(const zb_column *a, const zb_column *b, const char *sep,
                                   int64_t sep_len, zb_column **out, zb_error *err);
/* The same with the string s[0, len) on the right (scalar_first false) or
 * the left of every row; s == NULL is a null scalar (every row null). */
ZB_API zb_status zb_column_str_cat_scalar(const zb_column *col, const char *s, int64_t len,
                                          bool scalar_first, const char *sep, int64_t sep_len,
                                          zb_column **out, zb_error *err);
/* All valid rows of col joined with sep into one string (nulls skipped, as
 * pandas' Series.str.cat(sep=...) without others does).  *out is a new
 * NUL-terminated buffer from zb_malloc (the caller zb_frees it), *out_len
 * its length without the NUL. */
ZB_API zb_status zb_column_str_join(const zb_column *col, const char *sep, int64_t sep_len,
                                    char **out, int64_t *out_len, zb_error *err);

/* Calendar fields of date32 and timestamp columns (proleptic Gregorian
 * calendar, any unit, dates before 1970 included).  The result is int32;
 * null rows stay null.  Timestamps without a timezone, or with "UTC" (also
 * "Etc/UTC", "GMT", "Z") give the fields of the stored time; a fixed offset
 * timezone ("+05:30", "-0800") gives local fields at that offset; any other
 * timezone name is ZB_ENOTSUP (there is no timezone database in the engine:
 * convert to UTC first).  HOUR/MINUTE/SECOND of a date32 column are
 * ZB_ETYPE, and so are MICROSECOND/NANOSECOND.  DAYOFWEEK has Monday = 0;
 * DAYOFYEAR starts at 1; QUARTER is 1..4.  MICROSECOND is 0..999999 within
 * the second, NANOSECOND 0..999 within the microsecond (as pandas: 0 for
 * units coarser than nanoseconds). */
typedef enum zb_dt_field {
  ZB_DT_YEAR = 0,
  ZB_DT_MONTH,
  ZB_DT_DAY,
  ZB_DT_HOUR,
  ZB_DT_MINUTE,
  ZB_DT_SECOND,
  ZB_DT_DAYOFWEEK,
  ZB_DT_DAYOFYEAR,
  ZB_DT_QUARTER,
  ZB_DT_MICROSECOND,
  ZB_DT_NANOSECOND,
  ZB_DT_FIELD_COUNT
} zb_dt_field;

/* "year", "month", "day", "hour", "minute", "second", "dayofweek",
 * "dayofyear", "quarter", "microsecond", "nanosecond". */
ZB_API const char *zb_dt_field_name(zb_dt_field f);

ZB_API zb_status zb_column_dt_field(const zb_column *col, zb_dt_field field, zb_column **out,
                                    zb_error *err);

/* Parsing strings as times (zb_column_parse_time). */
typedef enum zb_parse_kind {
  ZB_PARSE_DATETIME = 0, /* -> timestamp[ns] */
  ZB_PARSE_TIMEDELTA = 1 /* -> duration[ns] */
} zb_parse_kind;

typedef struct zb_parse_info {
  int64_t bad_row;    /* the first row that did not parse, -1 when every row did */
  bool any_offset;    /* some value named its UTC offset (its value is then UTC) */
  bool any_naive;     /* some parsed value did not */
  bool mixed_offsets; /* the named offsets differ */
  int32_t offset_min; /* the first named offset, minutes east of UTC */
} zb_parse_info;

/* Parse a string (or categorical) column: datetimes as ISO 8601 when
 * format is NULL, else with the strptime directives %Y %y %m %d %H %I %p
 * %M %S %f %z %b %B %j %% (src/core/time_parse.h); timedeltas in pandas'
 * spellings (format must be NULL).  Null rows and the spellings of a
 * missing value ("", "NaT", "NaN", "None") give null; so does a row that
 * does not parse, which info->bad_row reports (the caller decides whether
 * that is an error).  ZB_EINVAL for an unknown directive. */
ZB_API zb_status zb_column_parse_time(const zb_column *col, zb_parse_kind kind,
                                      const char *format, zb_column **out, zb_parse_info *info,
                                      zb_error *err);

/* a - b for two date32 columns (a duration in seconds) or two timestamp
 * columns (a duration in the finer of the two units; both naive or both
 * with a timezone -- values are UTC, so zones may differ).  Nulls
 * propagate; overflow wraps like integer subtraction. */
ZB_API zb_status zb_column_date_diff(const zb_column *a, const zb_column *b, zb_column **out,
                                     zb_error *err);

/* col limited to [lower, upper] (numeric columns; NULL or a null scalar, or
 * a NaN, means no bound; lower > upper gives upper everywhere, as numpy).
 * The result keeps col's type, except that an integer column with a float
 * bound gives float64 (pandas/numpy).  An integer bound outside the column's
 * type saturates when harmless and is ZB_EOVERFLOW when every value would
 * have to leave the type.  Nulls stay null; NaN stays NaN. */
ZB_API zb_status zb_column_clip(const zb_column *col, const zb_scalar *lower,
                                const zb_scalar *upper, zb_column **out, zb_error *err);

/* numpy's round: floats as x * 10^d -> round half to even -> / 10^d
 * (decimals < 0: divide first, then multiply), computed in the column's
 * float type; integers unchanged for decimals >= 0, else the same through
 * float64 and back (round(25, -1) == 20).  bool is ZB_ETYPE. */
ZB_API zb_status zb_column_round(const zb_column *col, int decimals, zb_column **out,
                                 zb_error *err);

typedef enum zb_inclusive {
  ZB_INCLUSIVE_BOTH = 0,
  ZB_INCLUSIVE_NEITHER,
  ZB_INCLUSIVE_LEFT,
  ZB_INCLUSIVE_RIGHT
} zb_inclusive;

/* left <= col <= right (strictness per inclusive) as a bool column: null
 * where col is null (a null bound gives null too, Kleene AND); NaN gives
 * false.  Scalars as for zb_column_binary_scalar; the _string variant for
 * string and categorical columns (NULL bound: null). */
ZB_API zb_status zb_column_between(const zb_column *col, const zb_scalar *left,
                                   const zb_scalar *right, zb_inclusive inclusive,
                                   zb_column **out, zb_error *err);
ZB_API zb_status zb_column_between_string(const zb_column *col, const char *left,
                                          int64_t left_len, const char *right,
                                          int64_t right_len, zb_inclusive inclusive,
                                          zb_column **out, zb_error *err);

/* pandas' where / mask: row i is col[i] where cond[i] is true (where) or
 * false (mask, when `mask` is set), else other[i].  A null in cond means the
 * row is replaced in both (pandas does the same for a nullable boolean
 * cond).  cond is a bool column of col's length.  other:
 *   zb_column_where        a column of col's length (numeric columns of
 *                          different types promote by numpy rules, strings
 *                          and categoricals give strings; date32/timestamp
 *                          must match exactly); NULL means a null other;
 *   zb_column_where_scalar a scalar, converted to col's type as by
 *                          zb_column_fill_null, except that a float with an
 *                          integer column promotes to float64;
 *   zb_column_where_string a string (NULL: null) for string/categorical col.
 * A categorical col gives a string result. */
ZB_API zb_status zb_column_where(const zb_column *col, const zb_column *cond, bool mask,
                                 const zb_column *other, zb_column **out, zb_error *err);
ZB_API zb_status zb_column_where_scalar(const zb_column *col, const zb_column *cond, bool mask,
                                        const zb_scalar *other, zb_column **out, zb_error *err);
ZB_API zb_status zb_column_where_string(const zb_column *col, const zb_column *cond, bool mask,
                                        const char *s, int64_t len, zb_column **out,
                                        zb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_COMPUTE_H */
