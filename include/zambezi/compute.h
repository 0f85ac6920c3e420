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
  ZB_OP_TRUEDIV,  /* always float64 */
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

#ifdef __cplusplus
}
#endif

#endif /* ZAMBEZI_COMPUTE_H */
