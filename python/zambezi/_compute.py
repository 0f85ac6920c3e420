"""Compute operations on Series, with pandas names, and the rules every
zambezi computation follows.

``SeriesOps`` is a mixin of ``Series``: operators, null handling, casts,
filtering, taking rows, sorting.  DataFrame's counterparts are in
zambezi._frame_ops, row keys and ``iloc`` in zambezi._indexing, dtype names
in zambezi._dtypes, ``concat`` in zambezi._concat; the notes below hold for
all of them.  Every operation is one or a few calls into the C engine
(``zambezi._core``), which runs them with the GIL released; nothing here
loops over rows.

Two Series align on their row labels, as in pandas (zambezi._align): the
same index object, or equal labels, combine position by position with no
hash work; other labels are matched by the engine's hash join (an outer
join: the result has the sorted union of the labels, every pair for a
label that repeats on both sides, a missing value where one side lacks
the label -- an integer Series without nulls becomes float64 then, as
pandas reindexes it).  The comparison operators raise for Series of other
labels ("Can only compare identically-labeled Series objects"), as
pandas; lists and arrays are positional (their length must match).
``+`` between string Series, or a string Series and a str, concatenates
row by row (missing if either side is), as pandas' ``str`` dtype does.

Differences from pandas, on purpose (each with the reason it stays):

- Missing values are nulls, in every dtype (pandas' nullable dtypes:
  ``Int64``, ``boolean``, ``string``...).  Why: one validity bitmap per
  column (the Arrow layout) lets an integer column keep its dtype when it
  has missing values and makes interchange with Arrow, polars and duckdb
  zero-copy.  As in pandas, a NaN in a float column counts as missing for
  ``isna``/``notna``/``dropna``/``fillna``/``ffill``/``bfill``/``nlargest``
  (zambezi._missing) and is placed with the nulls by ``sort_values``;
  arithmetic treats NaN as a float value, as numpy does.
- Comparisons (``== != < <= > >=``, ``between``) give what pandas gives for
  the dtype ``to_pandas()`` shows: a missing value in a float, string,
  date, timestamp or categorical column (pandas' float64, str, object,
  datetime64, category) compares as False, and ``!=`` as True; where an
  integer or bool column with nulls takes part (pandas' ``Int64`` /
  ``boolean``), a missing operand gives null (NA).  The one difference:
  arithmetic of an integer column with nulls and a float gives float64
  here (pandas: the masked ``Float64``, a dtype zambezi does not have), so
  its comparisons follow float64's rule.
- Integer ``//`` and ``%`` by zero give null (pandas gives 0 or raises,
  depending on the dtype); an integer raised to a negative integer power
  gives null (pandas raises).  Why: the kernels stay branch-free and
  never stop half-way; the row is marked missing instead.
- ``bool`` arithmetic (``+ - * ...`` between two bool Series) gives int64
  (pandas' ``boolean`` dtype gives ``boolean``); ``-`` of a bool Series
  raises (use ``~``).  Why: one rule for every engine (bools count as 0
  and 1, as numpy's sum counts them).
- Comparing a non-string column with a str (``int_series == "a"``) raises
  DTypeError (pandas returns all False; a time column reads the str as a
  time, as pandas does, below).  Why: such a comparison is almost
  always a mistake (a column read with the wrong dtype), and an all-False
  mask would hide it.
- A boolean mask with nulls drops the null rows (pandas raises).  Why: a
  filter on a comparison of a nullable column then works without
  ``fillna``, as in SQL, polars and duckdb.
- Durations (``duration[UNIT]``, pandas' ``timedelta64[UNIT]``): the
  difference of two timestamps is a duration in the finer unit; of two
  date32 Series a duration in seconds (pandas, whose dates are objects,
  gives an object column of timedeltas).  ``duration // duration`` is
  int64 with nulls where pandas gives float64 with NaN at NaT.  As in
  pandas, a datetime or timedelta scalar next to a timestamp or duration
  column works in the finer unit of the two (a ``timestamp[ms]`` column
  minus a ``pd.Timestamp`` is ``duration[us]``, and compares exactly); a
  str compared with one is the time pandas reads in it (text that is no
  time equals no row); a NaT is a datetime or a timedelta (numpy's) or
  either (``pd.NaT``), and the result's dtype follows from it; a result
  past int64 raises OverflowError; a whole float factor (``d * 1.0``) is
  exact, as the integer.
  ``to_list()`` gives ``datetime.timedelta`` values (whole microseconds;
  pandas gives ``Timedelta``); reductions (sum, mean, min, max, median,
  std) give a ``pd.Timedelta``, as pandas does.  A float factor
  (``d * 1.5``, ``d / 2``) truncates to whole units, as numpy does.
  A NaT next to a number column in ``+ - * /`` raises DTypeError, as a
  datetime or timedelta does (pandas raises for ``+ -`` and gives
  timedeltas for ``* /``).
"""


import datetime

import numpy as np

from zambezi import _align, _base, _convert, _core, _dtypes, _indexing, _numpy_order
from zambezi import index as _ix
from zambezi._dtypes import is_scalar as _is_scalar, py_scalar
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError, ZambeziError


def _engine_error(e, context):
    """The same kind of error with a message naming what was computed
    (once: a message that names it already is kept)."""
    msg = str(e)
    return type(e)(msg if msg.startswith(context) else f"{context}: {msg}")


def _desc(series):
    return series._describe()


def _missing_mask(col):
    """bool column (no nulls): True where col is null, or NaN for floats."""
    isnull = _core.isnull(col)
    if col.dtype not in ("float32", "float64"):
        return isnull
    nan = _core.binary("ne", col, col)      # True at NaN, null at nulls
    return _core.fill_null(nan, True)


def _nan_to_null(col):
    """A float column with its NaNs turned into nulls (other columns as is)."""
    if col.dtype not in ("float32", "float64"):
        return col
    vals = _convert.values_numpy(col)
    nan = np.isnan(vals)
    if not nan.any():
        return col
    idx = np.arange(col.length, dtype=np.int64)
    return _core.take(col, _core.column_from_buffer(idx, mask=nan))


# --------------------------------------------------------------------------
# Series
# --------------------------------------------------------------------------

_BINOPS = {
    "__add__": ("add", "+"), "__sub__": ("sub", "-"), "__mul__": ("mul", "*"),
    "__truediv__": ("truediv", "/"), "__floordiv__": ("floordiv", "//"),
    "__mod__": ("mod", "%"), "__pow__": ("pow", "**"),
    "__and__": ("and", "&"), "__or__": ("or", "|"), "__xor__": ("xor", "^"),
    "__eq__": ("eq", "=="), "__ne__": ("ne", "!="), "__lt__": ("lt", "<"),
    "__le__": ("le", "<="), "__gt__": ("gt", ">"), "__ge__": ("ge", ">="),
}
_REFLECTED = {"__radd__": "__add__", "__rsub__": "__sub__", "__rmul__": "__mul__",
              "__rtruediv__": "__truediv__", "__rfloordiv__": "__floordiv__",
              "__rmod__": "__mod__", "__rpow__": "__pow__", "__rand__": "__and__",
              "__ror__": "__or__", "__rxor__": "__xor__"}


_UFUNCS = {"add": "add", "subtract": "sub", "multiply": "mul", "true_divide": "truediv",
           "divide": "truediv", "floor_divide": "floordiv", "remainder": "mod",
           "power": "pow", "bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor",
           "logical_and": None, "equal": "eq", "not_equal": "ne", "less": "lt",
           "less_equal": "le", "greater": "gt", "greater_equal": "ge", "negative": "neg",
           "absolute": "abs", "invert": "invert"}


_COMPARISONS = frozenset(["eq", "ne", "lt", "le", "gt", "ge"])
_MASKED_KINDS = ("int", "uint", "bool")


def pandas_comparison_nulls(result, op, *operands):
    """A comparison's bool result with pandas' missing-value rule applied.

    pandas' dtype of a zambezi column decides it: integer and bool columns
    with nulls are pandas' ``Int64`` / ``boolean`` (masked), whose
    comparisons give NA, so the result keeps its nulls when one of the
    operands is such a column.  Every other column (float64, str,
    datetime64, category, dates as objects) compares a missing value as
    False (``!=`` as True): the result's nulls are filled by the engine
    (``fill_null``), not row by row here."""
    if result.null_count == 0:
        return result
    for col in operands:
        if col is not None and col.null_count > 0 and col.dtype.startswith(_MASKED_KINDS):
            return result
    return _core.fill_null(result, op == "ne")


def _has_label_name(other):
    """Whether other is an Index (zambezi's or pandas') or a pandas Series:
    the operands whose name decides the result's name, as in pandas."""
    if isinstance(other, _align._ix.Index):
        return True
    mod = type(other).__module__ or ""
    return mod.startswith("pandas") and type(other).__name__.endswith(("Index", "Series"))


def _same_name(a, b):
    """pandas' rule for keeping a name: equal names, or both NaN/None-like
    the same object."""
    if a is b:
        return True
    try:
        return bool(a == b)
    except Exception:
        return False


_LOGICAL = frozenset(["and", "or", "xor"])


def _logical_bool(col, left, other_is_int):
    """The result of & | ^ as pandas gives it: bitwise integers when both
    sides are integers, else bools (an integer and a bool give bools)."""
    if col.dtype == "bool" or (left.dtype.startswith(("int", "uint")) and other_is_int):
        return col
    return _core.cast(col, "bool")


def _kleene_operands(a, b):
    """The operands of & | ^ between an integer column and a bool column
    with missing values: pandas holds the bools as its nullable boolean,
    whose logic takes the integers' truth (nonzero is True) and then
    applies three-valued logic; a bool column without missing values is
    numpy's, which works bitwise on the integers (4 & True is False)."""
    ints = ("int", "uint")
    if a.dtype == "bool" and a.null_count and b.dtype.startswith(ints):
        return a, _core.cast(b, "bool")
    if b.dtype == "bool" and b.null_count and a.dtype.startswith(ints):
        return _core.cast(a, "bool"), b
    return a, b


_BOOL_ARITH = frozenset(["add", "sub", "mul", "truediv", "floordiv", "mod", "pow"])


def _bool_arith(op, a_dtype, b_dtype):
    """numpy's arithmetic of two bool operands, as pandas gives it: + and
    * are or and and (a bool result: the dtype to cast the engine's
    integer result to), - a TypeError, / // ** NotImplementedError.  None
    when the operands are not both bool."""
    if op not in _BOOL_ARITH or a_dtype != "bool" or b_dtype != "bool":
        return None
    if op in ("add", "mul"):
        return "bool"
    if op == "sub":
        raise DTypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                         "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    if op == "mod":   # numpy: int8, 0 where the divisor is False (the engine: missing)
        raise UnsupportedError("bool % bool is not supported (numpy gives int8 with 0 where "
                               "the divisor is False)")
    raise UnsupportedError(f"operator {op!r} not implemented for bool dtypes")


def _refuse_negative_int_power(base_dtype, exponent):
    """numpy refuses an integer to a negative integer power (pandas too,
    missing values or not): exponent is an int or an integer column."""
    if not base_dtype.startswith(("int", "uint")):
        return
    if isinstance(exponent, _core.Column):
        low = exponent.reduce("min") if exponent.dtype.startswith("int") else None
    elif isinstance(exponent, (int, np.integer)) and not isinstance(exponent, (bool, np.bool_)):
        low = exponent
    else:
        return
    if low is not None and low < 0:
        raise InvalidValueError("Integers to negative integer powers are not allowed.")


def _asks_numpy_bool(dtype):
    """Whether astype's dtype is numpy's bool (bool, 'bool', np.bool_), not
    pandas' nullable 'boolean'."""
    if isinstance(dtype, str):
        return dtype in ("bool", "bool_", "?")
    return dtype is bool or dtype is np.bool_ or (isinstance(dtype, np.dtype) and
                                                   dtype == np.bool_)


def _numpy_truth(col):
    """astype(bool) as numpy's truth of what pandas holds: a number is true
    unless zero, NaN and a missing float too; text unless empty, a missing
    one too.  An integer column with missing values (pandas' Int64) raises,
    as pandas.  Other dtypes: col (the engine's cast decides)."""
    if col.dtype.startswith("float"):
        return _core.fill_null(_core.binary_scalar("ne", col, 0, False), True)
    if col.dtype.startswith(("int", "uint")) and col.null_count:
        raise InvalidValueError("cannot convert float NaN to bool (an integer column with "
                                "missing values)")
    if col.dtype == "string":
        return _core.fill_null(_core.binary_scalar("ne", _core.str_op(col, "len"), 0, False),
                               True)
    return col


def refuse_nat_order(dtype, other, op, sym, what):
    """pandas refuses to order a number or bool column (what, of dtype)
    against pd.NaT, a datetime there: DTypeError (equality is allowed)."""
    if op in _COMPARISONS and op not in ("eq", "ne") and type(other).__name__ == "NaTType" \
            and dtype.startswith(("int", "uint", "float", "bool")):
        raise DTypeError(f"'{sym}' not supported between {what} ({dtype}) and NaTType")


def _is_nat(x):
    if isinstance(x, (np.datetime64, np.timedelta64)):
        return bool(np.isnat(x))
    return type(x).__name__ == "NaTType"


def _nat_kind(x):
    return "timedelta" if isinstance(x, np.timedelta64) else "datetime"


_NO_TIME = object()


def time_operand(col, other, op):
    """(col, value): scalar other as the engine takes it next to col, and
    col in the unit of a datetime or timedelta other where that is finer.
    Next to a timestamp or duration column, text compares as the time
    pandas reads in it (value _NO_TIME: text that is no time, for == and
    !=) and numpy's datetime64 of days is a time."""
    value = py_scalar(other)
    if _dtypes.time_unit(col.dtype) is None:
        return col, value
    if isinstance(value, str) and op in _COMPARISONS:
        value = _time_from_text(col, value, op)
        if value is None:
            return col, _NO_TIME
    if type(value) is datetime.date and isinstance(other, np.datetime64) and \
            col.dtype.startswith("timestamp"):
        value = datetime.datetime(value.year, value.month, value.day)
    return _indexing.finer_time_unit(col, other if isinstance(other, np.generic) else value), value


def _nat_result(col, nat, op, reflected):
    """pandas' dtype for col op NaT (col a timestamp or duration column)
    where the engine, taking the NaT as a missing value of col's kind,
    would give another: the dtype name of the all-missing result, None
    where the engine's answer is pandas'; a DTypeError where pandas
    raises.  numpy's NaT is a datetime or a timedelta, pd.NaT either."""
    kind = "td" if isinstance(nat, np.timedelta64) else \
        "dt" if isinstance(nat, np.datetime64) else "any"
    stamps = col.dtype.startswith("timestamp")
    unit = _dtypes.time_unit(col.dtype)
    xunit = _dtypes.scalar_unit(nat) if kind != "any" else unit
    finer = xunit if _dtypes.UNIT_RANK[xunit] > _dtypes.UNIT_RANK[unit] else unit
    zone = col.dtype.partition("tz=")[2].rstrip("]")
    as_stamp = f"timestamp[{finer}, tz={zone}]" if zone else f"timestamp[{finer}]"
    refused = False
    result = None
    if op in _COMPARISONS:   # == and != of another kind: equal to nothing (the engine's)
        refused = kind == ("td" if stamps else "dt") and op not in ("eq", "ne")
    elif op == "add":
        refused = stamps and kind == "dt"
        if stamps or kind == "dt":
            result = as_stamp
    elif op == "sub":
        if stamps:   # numpy's datetime NaT is naive: not next to a zoned column
            refused = (reflected and kind == "td") or (kind == "dt" and bool(zone))
            result = as_stamp if kind == "td" else None
        else:
            refused = kind == "dt" and not reflected
            result = as_stamp if kind == "dt" else None
    elif op in ("truediv", "floordiv") and not stamps:
        refused = kind != "td"
        result = "float64" if op == "floordiv" else None
    if refused:
        raise DTypeError(f"a {'timedelta' if kind == 'td' else 'datetime'} NaT next to a "
                         f"{col.dtype} column: {op} is not defined")
    return result


def refuse_finer_unit(col, value, what):
    """DTypeError when value (a scalar or an engine column) is a time of a
    finer unit than time column col's: the fill pandas casts the column
    for, and warns that this will change (zambezi would round the value)."""
    unit = _dtypes.time_unit(col.dtype)
    if unit is None:
        return
    vunit = _dtypes.time_unit(value.dtype) if isinstance(value, _core.Column) \
        else _dtypes.scalar_unit(value)
    if vunit is not None and _dtypes.UNIT_RANK[vunit] > _dtypes.UNIT_RANK[unit]:
        raise DTypeError(f"{what}: a value in {vunit} for a column in {unit} (pandas casts the "
                         "column to the finer unit and warns that this will change)")


def _time_from_text(col, text, op):
    """The time a string compares as next to a timestamp or duration column,
    as pandas reads it (a string a timestamp column's time zone applies
    to); None when it is no time and op is == or != (pandas: equal to no
    row); a DTypeError for the other comparisons."""
    import pandas as pd

    duration = col.dtype.startswith("duration")
    try:
        value = pd.Timedelta(text) if duration else pd.Timestamp(text)
    except ValueError:
        value = None
    if value is None or value is pd.NaT:
        if op in ("eq", "ne"):
            return None
        kind = "timedelta64" if duration else "datetime64"
        raise DTypeError(f"Invalid comparison between dtype={kind}[{_dtypes.time_unit(col.dtype)}] "
                         "and str")
    zone = col.dtype.partition("tz=")[2].rstrip("]")
    if zone and value.tz is None:
        value = value.tz_localize(zone)
    return value


def _binop(self, other, op, sym, reflected):
    if op in ("add", "sub") and not (op == "sub" and reflected) and \
            (type(other).__module__ or "").startswith("pandas"):
        from zambezi import _offsets   # calendar offsets: pandas' month arithmetic

        if _offsets.is_offset(other):
            return _offsets.shift(self, other, -1 if op == "sub" else 1)
    name = self._name
    index = self._index
    sides = None
    ocat = _base.is_series(other) and other._col.dtype == "category"
    if (self._col.dtype == "category" or ocat) and op not in ("eq", "ne"):
        from zambezi import _categorical

        if op not in _COMPARISONS:
            raise DTypeError(f"Series cannot perform the operation {sym} (a categorical "
                             f"{_desc(self)})")
        col = _categorical.compare_ordered(self, other, op, reflected)
        if _base.is_series(other) and other._name != name:
            name = None
        return self._constructor._from_column(col, name, index)
    if op in ("and", "or", "xor") and not hasattr(other, "dtype") and not _is_scalar(other):
        raise DTypeError(   # pandas' TypeError (GH#52264)
            "Logical ops (and, or, xor) between Pandas objects and dtype-less "
            "sequences (e.g. list, tuple) are no longer supported. Wrap the object "
            "in a Series, Index, or np.array before operating instead.")
    try:
        if _is_scalar(other):
            if op not in _COMPARISONS and _is_nat(other) and \
                    self._col.dtype.startswith(("int", "uint", "float", "bool")):
                # as the same datetime or timedelta that is not NaT: pandas
                # raises (+ -) or gives timedeltas (* /), never numbers
                raise DTypeError(f"a {_nat_kind(other)} NaT next to a {self._col.dtype} column")
            refuse_nat_order(self._col.dtype, other, op, sym, "the Series")
            if op in _COMPARISONS and self._col.dtype == "string" and \
                    isinstance(other, float) and other != other:
                # pandas: NaN next to text is a missing value, equal to nothing
                col = _convert.column_of_length(np.full(len(self), op == "ne"), len(self),
                                                f"{_desc(self)} {sym} {other!r}")
                return self._constructor._from_column(col, name, index)
            if _is_nat(other) and _dtypes.time_unit(self._col.dtype) is not None:
                nat_kind = _nat_result(self._col, other, op, reflected)
                if nat_kind is not None:   # all missing, of pandas' dtype
                    empty = self._col.slice(0, 0)
                    if empty.dtype.split("[")[0] != nat_kind.split("[")[0]:
                        empty = _core.cast(empty, "int64")   # no values: no conversion
                    return self._constructor._from_column(
                        _convert.nulls_like(_core.cast(empty, nat_kind), len(self)), name, index)
            if other is None and op in _COMPARISONS and op not in ("eq", "ne") and \
                    _dtypes.time_unit(self._col.dtype) is not None:
                # pandas: None is no missing time here (GH#19301), and an
                # order against it is invalid
                raise DTypeError(f"Invalid comparison between dtype={self._col.dtype} and "
                                 "NoneType")
            mine, value = time_operand(self._col, other, op)
            if value is _NO_TIME:   # text that is no time: equal to no row (pandas)
                col = _convert.column_of_length(np.full(len(self), op == "ne"), len(self),
                                                f"{_desc(self)} {sym} {other!r}")
                return self._constructor._from_column(col, name, index)
            if isinstance(value, float) and op in ("mul", "truediv", "floordiv") and \
                    mine.dtype.startswith("duration") and value.is_integer() and \
                    abs(value) < 2.0 ** 63:
                value = int(value)   # pandas: a whole float factor is exact, as the integer
            if op in _LOGICAL and self._col.dtype == "bool" and self._col.null_count and \
                    not isinstance(value, bool) and type(other).__name__ != "NAType":
                # pandas' nullable boolean (bools with missing values) takes only a bool
                raise DTypeError(f"'other' should be pandas.NA or a bool. Got "
                                 f"{type(other).__name__} instead.")
            as_bool = _bool_arith(op, mine.dtype, "bool" if isinstance(value, (bool, np.bool_))
                                  else None)
            if op == "pow":
                if reflected and isinstance(value, (int, np.integer)):
                    _refuse_negative_int_power("int64", mine)
                elif not reflected:
                    _refuse_negative_int_power(mine.dtype, value)
            if op == "add" and isinstance(value, str) and self._col.dtype == "string":
                col = _core.str_cat(self._col, value, None, reflected)  # pandas: concatenation
            else:
                col = _core.binary_scalar(op, mine, value, reflected)
            if as_bool is not None:
                col = _core.cast(col, as_bool)
            if op in _COMPARISONS:
                col = pandas_comparison_nulls(col, op, mine)
            elif op in _LOGICAL:
                col = _logical_bool(col, self._col, type(value) is int)
        else:
            mine = self._col
            if _base.is_series(other):
                ocol = other._col
                if other._name != name:
                    name = None
                if not _align.same_labels(self._index, other._index):
                    if op in _COMPARISONS:
                        raise InvalidValueError(
                            "Can only compare identically-labeled Series objects")
                    left, right = (other, self) if reflected else (self, other)
                    index, lpos, rpos = _align.join_indexes(
                        left._index, right._index, f"{_desc(left)} {sym} {_desc(right)}")
                    lcol = _align.take_side(left._col, lpos, op)
                    rcol = _align.take_side(right._col, rpos, op, right=True)
                    mine, ocol = (rcol, lcol) if reflected else (lcol, rcol)
                    sides = (left._col, lpos)
            else:
                if type(other) is np.ndarray and other.dtype == object and \
                        op not in _COMPARISONS and op not in _LOGICAL and \
                        self._col.dtype != "string":
                    raise DTypeError("an array of dtype object: pandas "
                                     "gives an object column, and zambezi has no object dtype")
                if _has_label_name(other) and not _same_name(other.name, name):
                    name = None   # pandas: an Index's name counts as a Series' does
                ocol = _convert.column_of_length(
                    other, len(self), f"{_desc(self)} {sym} {type(other).__name__}")
            if ocol.length != mine.length:
                raise InvalidValueError(
                    f"length mismatch: left has {mine.length} rows, right has "
                    f"{ocol.length}")
            a, b = (ocol, mine) if reflected else (mine, ocol)
            if op in ("eq", "ne") and "list<" in (a.dtype[:5], b.dtype[:5]):
                from zambezi import _lists  # lists compare as pandas' Python lists

                col = _lists.equal(a, b, op)
            elif op == "add" and a.dtype == "string" and b.dtype == "string":
                col = _core.str_cat(a, b, None)
            else:
                if op in _LOGICAL:
                    a, b = _kleene_operands(a, b)
                as_bool = _bool_arith(op, a.dtype, b.dtype)
                if op == "pow":
                    _refuse_negative_int_power(a.dtype, b)
                col = _core.binary(op, a, b)
                if as_bool is not None:
                    col = _core.cast(col, as_bool)
            if op in _COMPARISONS:
                col = pandas_comparison_nulls(col, op, a, b)
            elif op in _LOGICAL:
                col = _logical_bool(col, self._col, ocol.dtype.startswith(("int", "uint")))
            if sides is not None and op not in _COMPARISONS:
                col = _align.logical_gaps(col, op, *sides)
    except ZambeziError as e:
        if _base.is_series(other) or not _is_scalar(other):
            what = (_desc(other) if _base.is_series(other) else type(other).__name__)
        else:
            what = repr(other)
        left, right = (what, _desc(self)) if reflected else (_desc(self), what)
        raise _engine_error(e, f"{left} {sym} {right}") from None
    return self._constructor._from_column(col, name, index)


def _make_binop(dunder, reflected=False):
    op, sym = _BINOPS[dunder]

    def method(self, other):
        return _binop(self, other, op, sym, reflected)

    method.__name__ = dunder
    method.__doc__ = (f"Elementwise {sym} (nulls propagate; see zambezi._compute for the "
                      "rules that differ from pandas).")
    return method


class SeriesOps:
    """Operators and compute methods of zambezi.Series (a mixin)."""

    __slots__ = ()
    __hash__ = None  # __eq__ returns a Series, so a Series is not hashable

    def _unary(self, op, sym):
        try:
            return self._like(_core.unary(op, self._col))
        except ZambeziError as e:
            raise _engine_error(e, f"{sym}{_desc(self)}") from None

    def __neg__(self):
        return self._unary("neg", "-")

    def __abs__(self):
        return self._unary("abs", "abs ")

    def __invert__(self):
        return self._unary("invert", "~")

    def abs(self):
        """Absolute values (nulls stay null); the same as ``abs(s)``.

        Examples
        --------
        >>> zb.Series([-2, None, 3]).abs()
        0       2
        1    <NA>
        2       3
        dtype: int64
        """
        return self._unary("abs", "abs ")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """numpy ufuncs: the elementwise ones zambezi has run in the engine
        (so np.int64(2) + s and np.add(s, 1) give a Series); others run in
        numpy on the values (nulls as NaN) and give a Series with the same
        labels and name, as pandas does (zambezi._numpy_protocol)."""
        op = _UFUNCS.get(ufunc.__name__)
        if method == "__call__" and op is not None and not kwargs:
            if len(inputs) == 1 and op in ("neg", "abs", "invert"):
                return inputs[0]._unary(op, "")
            if len(inputs) == 2:
                a, b = (x[()] if isinstance(x, np.ndarray) and x.ndim == 0 else x
                        for x in inputs)   # numpy hands a scalar over as a 0-d array
                if _base.is_series(a):
                    return _binop(a, b, op, ufunc.__name__, False)
                return _binop(b, a, op, ufunc.__name__, True)
        from zambezi import _numpy_protocol

        if method == "__call__" and any(_base.is_series(x) and x._col.dtype == "category"
                                        for x in inputs):
            raise DTypeError(f"Object with dtype category cannot perform the numpy op "
                             f"{ufunc.__name__}")   # as pandas
        if method == "reduce" and len(inputs) == 1 and ufunc.__name__ in ("minimum", "maximum") \
                and self._col.dtype == "category" and kwargs.get("axis", 0) in (0, None) \
                and kwargs.get("out") is None:
            # pandas reduces a categorical by its categories' order, as
            # Series.min / max (numpy would take the least string); a
            # missing value gives NaN there (its skipna=False).  (Not an
            # exception here: numpy keeps the arguments of a reduce whose
            # __array_ufunc__ raises.)
            if self._col.null_count:
                return float("nan")
            return self.min() if ufunc.__name__ == "minimum" else self.max()
        if any(_base.is_series(x) and x._col.dtype.startswith("timestamp") and
               x._col.timezone is not None for x in inputs):
            # numpy has no time zones: it would compare Python objects
            raise UnsupportedError(f"numpy's {ufunc.__name__} of a Series of times with a "
                                   "time zone is not supported")
        conv = [np.asarray(x) if _base.is_series(x) else x for x in inputs]
        result = getattr(ufunc, method)(*conv, **kwargs)
        if method != "__call__" or kwargs.get("out") is not None:
            return result
        first = next(x for x in inputs if _base.is_series(x))
        return _numpy_protocol.ufunc_result(first, result)

    def __bool__(self):
        raise InvalidValueError(
            "the truth value of a Series is ambiguous; use .any(), .all() or a comparison "
            "inside df[...]")

    # -- casts ------------------------------------------------------------
    def astype(self, dtype):
        """The Series converted to dtype (a name such as 'int64', 'float32',
        'str', 'string', 'category', 'bool', 'date32', 'timestamp[ms]', a
        numpy or pandas dtype, or int / float / str / bool).  Nulls stay
        null (pandas' astype(str) writes 'nan' / '<NA>' for them).  A value
        that does not fit raises OverflowError naming the row.

        Examples
        --------
        >>> zb.Series(["1", "22", None]).astype("int64")
        0       1
        1      22
        2    <NA>
        dtype: int64
        >>> zb.Series([1.7, None]).astype(str).to_list()
        ['1.7', None]
        >>> zb.Series([300], name="n").astype("int8")
        Traceback (most recent call last):
            ...
        zambezi.errors.ZambeziOverflowError: astype('int8') of Series 'n' (int64): cannot cast
        int64 to int8: row 0 holds 300, out of range
        """
        try:
            if _dtypes.pandas_categorical(dtype):
                from zambezi import _categorical

                return self._like(_categorical.from_pandas_dtype(self._col, dtype))
            name = _dtypes.canonical(dtype)
            if name == self._col.dtype:
                return self._like(self._col)
            if name == "string" and self._col.dtype.startswith(("timestamp", "date32")):
                from zambezi import _dt_methods   # pandas' text of times

                return self._like(_dt_methods.as_text(self._col))
            if name == "category":
                from zambezi import _categorical

                return self._like(_categorical.encode(self._col))
            if name.startswith("list<"):
                from zambezi import _lists

                return self._like(_lists.cast(self._col, name))
            col = self._col
            if name == "bool" and col.dtype != "bool" and _asks_numpy_bool(dtype):
                col = _numpy_truth(col)
            if col.dtype in ("float32", "float64") and (
                    name == "bool" or name.startswith(("int", "uint"))):
                col = _nan_to_null(col)  # NaN -> null, as pandas' Int64 / boolean
            col = _core.cast(col, name)
        except ZambeziError as e:
            raise _engine_error(e, f"astype({dtype!r}) of {_desc(self)}") from None
        return self._like(col)

    # -- selection --------------------------------------------------------
    def _filter(self, mask, what="Series[mask]"):
        m = _indexing.mask_column(mask, len(self), what)
        return self._select_rows(_indexing.filter_rows(m))

    def take(self, indices):
        """The rows at positions indices (negative positions count from the
        end), with their labels.

        Examples
        --------
        >>> zb.Series([10, 20, 30]).take([2, 0, -1])
        2    30
        0    10
        2    30
        dtype: int64
        """
        idx = _indexing.positions_column(indices, len(self), f"take on {_desc(self)}")
        return self._select_rows(_indexing.take_rows(idx))

    @property
    def iloc(self):
        """Rows by position: s.iloc[3], s.iloc[1:10:2], s.iloc[[0, 5, -1]],
        s.iloc[bool mask].  Results keep their labels.

        Examples
        --------
        >>> s = zb.Series([10, 20, 30, 40])
        >>> s.iloc[1]
        20
        >>> s.iloc[::2].to_list(), s.iloc[[0, -1]].to_list()
        ([10, 30], [10, 40])
        >>> s.iloc[s > 15].to_list()
        [20, 30, 40]
        """
        return _indexing._ILocIndexer(self)

    # -- sorting ----------------------------------------------------------
    @_base.takes_inplace(deprecated=True)
    def sort_values(self, ascending=True, na_position="last", kind=None, ignore_index=False,
                    key=None):
        """The values sorted (stable: equal values keep their order; NaN and
        nulls at na_position), with their labels (numbered from 0 with
        ignore_index=True).  Strings sort by their UTF-8 bytes, categoricals
        in category order (as pandas).  kind="quicksort" or "heapsort" puts
        equal numbers, times or categories in numpy's order, as pandas'
        default does (one extra argsort on one core when there are ties).

        Examples
        --------
        >>> zb.Series([3, None, 1, 2]).sort_values()
        2       1
        3       2
        0       3
        1    <NA>
        dtype: int64
        >>> zb.Series([3, None, 1]).sort_values(ascending=False, na_position="first").to_list()
        [None, 3, 1]
        """
        ascending = _base.check_ascending(ascending, series=True)
        if na_position not in ("first", "last"):
            raise InvalidValueError(
                f"na_position must be 'first' or 'last', not {na_position!r}")
        na_first = na_position == "first"
        if key is not None:   # sorted by key(self), as pandas
            keyed = key(self)
            if not _base.is_series(keyed) or len(keyed) != len(self):
                raise InvalidValueError("sort_values: key must return a Series of the same "
                                        "length")
            values, order = _numpy_order.sorted_order(keyed._col, ascending, na_first, kind)
            if values is None:   # equal keys in numpy's order (kind="quicksort")
                order = _core.column_from_buffer(order)
            out = self._select_rows(_indexing.take_rows(order))
            return out._with_index(_ix.default_index(len(out))) if ignore_index else out
        if ignore_index and kind not in _numpy_order.NUMPY_KINDS:
            # no labels to carry: the engine sorts the values directly
            return self._constructor._from_engine(
                _core.sort_values(self._col, bool(ascending), na_first), self._name)
        # one engine sort gives the values and the permutation (no gather of
        # the values); the labels follow the permutation lazily
        values, order = _numpy_order.sorted_order(self._col, ascending, na_first, kind)
        if values is not None:
            out = self._select_rows(_indexing.take_rows(order), values)
        else:   # equal values in numpy's order, as pandas' kind="quicksort"
            out = self._select_rows(_indexing.take_rows(_core.column_from_buffer(order)))
        return out._with_index(_ix.default_index(len(out))) if ignore_index else out

    def _sort_indices(self, ascending=True, na_position="last"):
        if na_position not in ("first", "last"):
            raise InvalidValueError(
                f"na_position must be 'first' or 'last', not {na_position!r}")
        return _core.sort_indices(self._col, bool(ascending), na_position == "first")

    def argsort(self, axis=0, kind=None, order=None, stable=None, *, ascending=True,
                na_position="last"):
        """int64 Series: the positions that sort the values (stable; missing
        values last, as pandas 3).  kind="quicksort" or "heapsort" puts
        equal numbers, times or categories in numpy's order, as pandas'
        default.  axis, order and stable are pandas' (no effect on a
        Series); ascending and na_position are zambezi's own, by keyword.

        Examples
        --------
        >>> zb.Series([3, None, 1, 2]).argsort().to_list()
        [2, 3, 0, 1]
        """
        from zambezi._missing import _axis_number

        _axis_number(self, axis)
        if kind in _numpy_order.NUMPY_KINDS and na_position in ("first", "last"):
            values, order = _numpy_order.sorted_order(self._col, ascending,
                                                      na_position == "first", kind)
            return self._like(order if values is not None else
                              _core.column_from_buffer(order.astype(np.int64)))
        return self._like(self._sort_indices(ascending, na_position))

    def _n_extreme(self, n, largest, pad=True):
        if self._col.dtype in ("string", "category"):   # as pandas
            name = "nlargest" if largest else "nsmallest"
            shown = "str" if self._col.dtype == "string" else "category"
            raise DTypeError(f"Cannot use method '{name}' with dtype {shown}")
        length = len(self)
        n = max(int(n), 0)
        if n >= length:  # pandas: a plain sort, missing values included
            return self.sort_values(ascending=not largest, kind="stable").head(n)
        if self._col.null_count == 0 and self._col.dtype not in ("float32", "float64"):
            idx = _core.sort_indices(self._col, not largest, False).slice(0, n)
            return self._select_rows(_indexing.take_rows(idx))
        missing = _missing_mask(self._col)
        s = self._select_rows(_indexing.filter_rows(_core.unary("invert", missing)))
        idx = _core.sort_indices(s._col, not largest, False).slice(0, min(n, len(s)))
        if len(idx) == n or not pad:
            return s._select_rows(_indexing.take_rows(idx))
        # Fewer values than n: pandas fills up with the first missing rows.
        gone = _convert.values_numpy(missing).astype(bool)
        pos = np.concatenate([np.flatnonzero(~gone)[_convert.values_numpy(idx)],
                              np.flatnonzero(gone)[:n - len(idx)]])
        return self._select_rows(_indexing.take_rows(_core.column_from_buffer(pos)))

    def _n_extreme_keep(self, n, keep, largest):
        """nlargest / nsmallest with pandas' keep: 'first' (ties in row
        order), 'last' (ties from the last row back) or 'all' (every row
        tied with the n-th value kept)."""
        what = "nlargest" if largest else "nsmallest"
        if keep == "first" or int(n) >= len(self):   # pandas: a plain sort then
            if keep not in ("first", "last", "all"):
                raise InvalidValueError(f"{what}: keep must be 'first', 'last' or 'all', "
                                        f"not {keep!r}")
            return self._n_extreme(n, largest)
        if keep == "last":   # missing rows fill up in row order, as pandas
            top = self.iloc[::-1]._n_extreme(n, largest, pad=False)
            if len(top) >= int(n):
                return top
            from zambezi._concat import concat

            return concat([top, self[self.isna()].head(int(n) - len(top))])
        if keep != "all":
            raise InvalidValueError(f"{what}: keep must be 'first', 'last' or 'all', not "
                                    f"{keep!r}")
        n = int(n)
        out = self._n_extreme(n, largest, pad=False)
        if len(out) > 0:
            edge = out.iloc[-1]
            tied = self[(self >= edge) if largest else (self <= edge)]
            out = tied._n_extreme(len(tied), largest)
        if len(out) >= n:
            return out
        # Fewer values than n: pandas adds every missing row.
        from zambezi._concat import concat

        return concat([out, self[self.isna()]])

    def nlargest(self, n=5, keep="first"):
        """The n largest values, descending; missing values dropped.  Among
        equal values the first rows first (keep='first'), the last rows
        first (keep='last'), or every value tied with the n-th kept
        (keep='all'), as pandas.

        Examples
        --------
        >>> zb.Series([3, None, 1, 3, 2]).nlargest(2).to_list()
        [3, 3]
        >>> zb.Series([3, 1, 2, 2]).nlargest(2, keep="all").to_list()
        [3, 2, 2]
        """
        return self._n_extreme_keep(n, keep, True)

    def nsmallest(self, n=5, keep="first"):
        """The n smallest values, ascending (keep as in nlargest).

        Examples
        --------
        >>> zb.Series([3, None, 1, 3, 2]).nsmallest(2).to_list()
        [1, 2]
        """
        return self._n_extreme_keep(n, keep, False)


def _flex(self, other, op, sym, reflected, fill_value):
    """The Series methods add, sub, ..., eq, ...: the operators, aligned
    (the comparisons too), with pandas' fill_value."""
    if _base.is_series(other) and not _align.same_labels(self._index, other._index):
        left, right = (other, self) if reflected else (self, other)
        index, lpos, rpos = _align.join_indexes(left._index, right._index,
                                                f"{_desc(left)} {sym} {_desc(right)}")
        lcol = _align.take_side(left._col, lpos, op)
        rcol = _align.take_side(right._col, rpos, op, right=True)
        if reflected:
            lcol, rcol = rcol, lcol
        self = self._constructor._from_column(lcol, self._name, index)
        other = other._constructor._from_column(rcol, other._name, index)
    if fill_value is not None:
        if _base.is_series(other):
            a, b = _align.fill_pair(self._col, other._col, fill_value)
            self, other = self._like(a), other._like(b)
        elif _is_scalar(other) and other is not None:
            mask = _missing_mask(self._col)
            if mask.reduce("sum"):
                self = self._like(_core.column_where(self._col, mask, py_scalar(fill_value),
                                                     mask=True))
    return _binop(self, other, op, sym, reflected)


_FLEX = {
    # name: (op, symbol, reflected, example, its output)
    "add": ("add", "+", False, "a.add(b, fill_value=0)", "[11.0, 2.0, 20.0]"),
    "sub": ("sub", "-", False, "a.sub(b)", "[-9.0, None, None]"),
    "mul": ("mul", "*", False, "a.mul(b, fill_value=1)", "[10.0, 2.0, 20.0]"),
    "truediv": ("truediv", "/", False, "a.truediv(2)", "[0.5, 1.0]"),
    "floordiv": ("floordiv", "//", False, "a.floordiv(2)", "[0, 1]"),
    "mod": ("mod", "%", False, "a.mod(2)", "[1, 0]"),
    "pow": ("pow", "**", False, "a.pow(2)", "[1, 4]"),
    "radd": ("add", "+", True, "a.radd(b, fill_value=0)", "[11.0, 2.0, 20.0]"),
    "rsub": ("sub", "-", True, "a.rsub(b)", "[9.0, None, None]"),
    "rmul": ("mul", "*", True, "a.rmul(3)", "[3, 6]"),
    "rtruediv": ("truediv", "/", True, "a.rtruediv(4)", "[4.0, 2.0]"),
    "rfloordiv": ("floordiv", "//", True, "a.rfloordiv(5)", "[5, 2]"),
    "rmod": ("mod", "%", True, "a.rmod(5)", "[0, 1]"),
    "rpow": ("pow", "**", True, "a.rpow(2)", "[2, 4]"),
    "eq": ("eq", "==", False, "a.eq(b)", "[False, False, False]"),
    "ne": ("ne", "!=", False, "a.ne(b)", "[True, True, True]"),
    "lt": ("lt", "<", False, "a.lt(b)", "[True, False, False]"),
    "le": ("le", "<=", False, "a.le(b)", "[True, False, False]"),
    "gt": ("gt", ">", False, "a.gt(b)", "[False, False, False]"),
    "ge": ("ge", ">=", False, "a.ge(b)", "[False, False, False]"),
}


def _make_flex(name, op, sym, reflected, call, result):
    cmp = op in _COMPARISONS

    def method(self, other, level=None, fill_value=None, axis=0):
        if axis not in (0, None, "index"):
            from zambezi._missing import _axis_number

            _axis_number(self, axis)   # pandas' ValueError for an axis a Series lacks
        if level is not None:
            raise UnsupportedError(f"{name}: level is not supported")
        return _flex(self, other, op, sym, reflected, fill_value)

    method.__name__ = name
    what = f"other {sym} s" if reflected else f"s {sym} other"
    scalar_call = call if "b" not in call.split("(")[1] else None
    setup = ">>> a = zb.Series([1, 2], index=['x', 'y'])" if scalar_call else (
        ">>> a = zb.Series([1, 2], index=['x', 'y'])\n"
        "        >>> b = zb.Series([10, 20], index=['x', 'z'])")
    method.__doc__ = f"""``{what}`` elementwise{' (a bool Series)' if cmp else ''}, with the
        labels aligned (an outer join, as the operators; the comparison
        methods align too, where ``{sym}`` raises for other labels) and
        fill_value: a value missing on one side only is replaced by it
        before the operation.

        Examples
        --------
        {setup}
        >>> {call}.to_list()
        {result}
        """
    return method


for _n, (_op, _sym, _refl, _call, _res) in _FLEX.items():
    setattr(SeriesOps, _n, _make_flex(_n, _op, _sym, _refl, _call, _res))
SeriesOps.div = SeriesOps.truediv
SeriesOps.rdiv = SeriesOps.rtruediv
SeriesOps.subtract = SeriesOps.sub
SeriesOps.multiply = SeriesOps.mul
SeriesOps.divide = SeriesOps.truediv
del _n, _op, _sym, _refl, _call, _res

for _d in _BINOPS:
    setattr(SeriesOps, _d, _make_binop(_d))
for _r, _d in _REFLECTED.items():
    setattr(SeriesOps, _r, _make_binop(_d, reflected=True))
del _d, _r

