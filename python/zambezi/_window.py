"""Cumulative and shift-based operations on Series, DataFrame and GroupBy,
as pandas 3 has them: cumsum / cumprod / cummin / cummax, shift, diff and
pct_change (the ``SeriesWindow``, ``FrameWindow`` and ``GroupByWindow``
mixins).  Results keep the object's row labels.

The cumulative operations are one engine call per column
(``_core.cumulative``: a morsel-parallel scan with a carry between morsels
on the CPU; per group, a scan of each group's rows in row order).  A
whole column's shift is a slice of the rows that stay joined to the rows
moved in (one concat, a copy); its diff and pct_change are one engine
subtraction or division of two slices, joined to the missing rows.  Per
group, shift is one take of the row ``periods`` before in the same group
(found by the engine in one pass over the rows, keeping each group's last
rows), and diff and pct_change one subtraction or division more.
Nothing here loops over rows.

Result dtypes are pandas': cumsum / cumprod of integers give int64 (uint64
for unsigned ones; per group, back in a narrower column's dtype when
every value fits it, as pandas), of bool int64; cummin / cummax keep the
dtype (dates and timestamps too).  Integer sums and products wrap around
in 64 bits, as numpy's int64 does in pandas.  A missing value (null, or NaN) stays missing;
``skipna=False`` makes every later value (of the group) missing.

Differences from pandas, on purpose:

- cumsum / cummin / cummax of string columns (pandas concatenates or
  compares strings) and of categoricals raise DTypeError.
- shift keeps the dtype: the rows shifted in are nulls of an integer or
  bool column (pandas turns int64 into float64 and bool into object).
- diff of dates and timestamps (pandas: timedeltas) and of bool columns
  (pandas: object) raises DTypeError; diff of an integer column is float64
  (float32 for int8 / int16), as pandas gives for numpy integers -- pandas
  keeps Int64 for its nullable integer columns.
- Group-by cumsum / cumprod of integers are int64 (uint64 for unsigned)
  like Series.cumsum; pandas casts them back to the input dtype when the
  values fit, so its dtype depends on the values.
- Group-by cummin of timestamps skips NaT as Series.cummin does (pandas'
  group-by takes NaT for the smallest value).
- Float sums and products on the CPU fold morsel totals (65536 rows) in
  another order than pandas' sequential loop: equal within rounding (a
  product that overflows to inf in one morsel and underflows to 0 in a
  later one gives NaN where pandas keeps inf).  Per group, on 131072
  rows or more, each of a few chunks of rows per thread folds its rows of
  a group first, and the chunks' totals are then added in order: equal
  within rounding too.
- ``shift(periods, freq=...)`` moves a timestamp index by a fixed
  frequency (zambezi._axis_ops); with fill_value, per group, ``suffix``, a
  list of periods or ``axis=1`` it raises UnsupportedError.
"""

import operator

import numpy as np

from zambezi import _convert, _core, _dtypes, _stats
from zambezi._missing import _axis_number, _fill_scalar
from zambezi.errors import (DTypeError, InvalidValueError, UnsupportedError, ZambeziError,
                            ZambeziOverflowError)

_INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
_FLOATS = ("float32", "float64")
_NUMERIC = frozenset(("bool",) + _INTS + _FLOATS)


# --------------------------------------------------------------------------
# one column
# --------------------------------------------------------------------------

def _cum_column(col, op, skipna, name, ids=None, ngroups=0):
    """op ("cumsum" ...) of one engine column, per group when ids (int64
    group ids, null for a dropped key) is given."""
    dt = col.dtype
    try:
        if dt == "bool":
            if op in ("cumsum", "cumprod"):
                return _core.cumulative(_core.cast(col, "int64"), op, skipna, ids, ngroups)
            res = _core.cumulative(_core.cast(col, "int8"), op, skipna, ids, ngroups)
            return _core.cast(res, "bool")
        res = _core.cumulative(col, op, skipna, ids, ngroups)
        if (op == "cumsum" and dt.startswith("duration") and res.null_count < res.length
                and not _stats.sums_surely_fit(_core.cast(col, "int64"))):
            _check_duration_sums(res, _core.cumulative(_core.cast(col, "float64"), op, skipna,
                                                       ids, ngroups))
        return res
    except DTypeError:
        what = f"column {name!r}" if name is not None else "the Series"
        kind = "datetime64" if dt.startswith(("timestamp", "date")) else dt
        raise DTypeError(f"{op} is not supported for {what} of dtype {dt} ({kind} type "
                         f"does not support operation {op!r}, as pandas says)") from None


def _check_duration_sums(res, fres):
    """pandas' OutOfBoundsTimedelta where a running duration sum wrapped
    (fres: the same sums in float64)."""
    ok = ~_convert.null_mask(res) if res.null_count else slice(None)
    ints = _convert.values_numpy(_core.cast(res, "int64"))[ok]
    if _stats.wrapped_sums(ints, _convert.values_numpy(fres)[ok]):
        raise ZambeziOverflowError("overflow in timedelta operation (a running sum leaves "
                                   "the range of a duration; pandas raises "
                                   "OutOfBoundsTimedelta)")


def _check_periods(periods, what):
    if isinstance(periods, bool):
        raise DTypeError(f"{what}: periods must be an integer, not bool")
    if isinstance(periods, (list, tuple)):
        raise UnsupportedError(f"{what}: a list of periods is not supported; "
                               "shift once per period")
    try:
        return operator.index(periods)
    except TypeError:
        raise DTypeError(f"{what}: periods must be an integer, not "
                         f"{type(periods).__name__}") from None


def _shift_positions(n, periods):
    """Source row of each row, and where there is none (out of range)."""
    pos = np.arange(n, dtype=np.int64) - periods
    return pos, (pos < 0) | (pos >= n)


def _group_shift_positions(ids, ngroups, periods, what="shift"):
    """The row periods before each row within its group (the group ids of
    the rows, null for a dropped key), and where there is none: (an engine
    column of rows, null where none; None) from the engine's one pass over
    the rows keeping each group's last |periods| rows (_core.group_lag),
    unless that state (ngroups * |periods| rows) would outgrow the data.
    Then (positions, none) in numpy: with each row's place in its group
    (the engine's cumcount) and the groups' sizes, the rows of every group
    in row order come from one scatter (a counting sort: group g's rows
    start at the sum of the sizes before it), and each row's partner is one
    gather from them -- no sort, no scatter back.  periods 0: every row is
    its own partner for shift and diff, but a dropped key's row has none
    for pct_change (pandas does both)."""
    n = ids.length
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.bool_)
    engine = abs(periods) > n or ngroups * abs(periods) <= 4 * n + (1 << 20)
    if engine and not (periods == 0 and what == "pct_change"):
        return _core.group_lag(ids, ngroups, periods), None
    null = _convert.null_mask(ids)
    key = _convert.values_numpy(ids).view(np.int64)
    if null is not None:
        key = np.where(null, ngroups, key)  # the dropped rows: one more bin
    counts = np.bincount(key, minlength=ngroups + 1)
    start = np.zeros(ngroups + 2, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    first = start[key]
    place = _convert.values_numpy(_core.group_cumcount(ids, ngroups, True)).view(np.int64)
    rows = np.empty(n, dtype=np.int64)  # rows of each group in row order
    if null is None:
        rows[first + place] = np.arange(n, dtype=np.int64)
    else:
        keep = ~null
        rows[(first + place)[keep]] = np.flatnonzero(keep)
    j = place - periods
    inside = (j >= 0) & (j < counts[key])
    if null is not None:
        inside &= ~null
    pos = np.where(inside, rows[np.minimum(first + np.where(inside, j, 0), n - 1)], 0)
    return pos, ~inside


def _null_rows(col, count):
    """count missing rows of col's dtype (col has a row)."""
    return _core.take(col.slice(0, 1), _core.column_from_buffer(
        np.zeros(count, dtype=np.int64), mask=np.ones(count, dtype=np.bool_)))


SMALL_INTS = frozenset(["int8", "int16", "int32", "uint8", "uint16", "uint32"])


def narrow_back(out, dtype):
    """out, per-group sums or products (cumulative or not) of an integer
    column of dtype computed in 64 bits, back in dtype when dtype is
    narrower and every value fits it, as pandas gives them (a group-by sum
    of int8 values is int8 unless a sum passes 127; a plain Series'
    cumsum stays 64-bit, as numpy's)."""
    if dtype not in SMALL_INTS or out.dtype == dtype:
        return out
    lo, hi = out.reduce("min"), out.reduce("max")
    info = np.iinfo(dtype)
    if lo is None or info.min <= lo and hi <= info.max:
        return _core.cast(out, dtype)
    return out


def _shift_column(col, periods, fill_value, name):
    """col moved down by periods rows (up when negative): the rows that
    stay are one slice of col, joined to the rows moved in (missing, or
    fill_value) by one concat -- a copy, with no index array or gather."""
    n = col.length
    p = min(abs(periods), n)
    if n == 0 or p == 0:
        pos, none = _shift_positions(n, periods)
        return _take_shifted(col, pos, none, fill_value, name)
    if fill_value is None:
        moved_in = _null_rows(col, p)
    else:
        _dtypes.refuse_kind_mix(col.dtype, _dtypes.py_scalar(fill_value), "shift's fill_value")
        one = _take_shifted(col.slice(0, 1), np.zeros(1, dtype=np.int64),
                            np.ones(1, dtype=np.bool_), fill_value, name)
        moved_in = _core.take(one, _core.column_from_buffer(np.zeros(p, dtype=np.int64)))
    if p == n:
        return moved_in
    if periods > 0:
        return _core.concat([moved_in, col.slice(0, n - p)])
    return _core.concat([col.slice(p, n - p), moved_in])


def _lagged(x, periods, op):
    """op(x, x shifted by periods) from two slices of x (the rows that have
    a partner) and missing rows for the others: one pass of op and one
    concat, with no index array or gather.  None when no row has a partner."""
    n = x.length
    p = abs(periods)
    if p == 0:
        return op(x, x)
    if p >= n:
        return None
    if periods > 0:
        r = op(x.slice(p, n - p), x.slice(0, n - p))
        return _core.concat([_null_rows(r, p), r])
    r = op(x.slice(0, n - p), x.slice(p, n - p))
    return _core.concat([r, _null_rows(r, p)])


def _take_shifted(col, pos, none, fill_value, name):
    """Row pos[i] of col, or (none[i]) null, or fill_value when given; pos
    may be an engine column of rows instead, null where none (none None)."""
    n = col.length
    if n == 0:
        return col
    if fill_value is None:
        if none is None:
            return _core.take(col, pos)
        return _core.take(col, _core.column_from_buffer(np.where(none, 0, pos), mask=none))
    one = _core.take(col.slice(0, 1), _core.column_from_buffer(
        np.zeros(1, dtype=np.int64), mask=np.ones(1, dtype=np.bool_)))
    try:
        fill = _fill_scalar(one, fill_value)
    except ZambeziError as e:
        what = f"column {name!r}" if name is not None else "the Series"
        raise DTypeError(f"shift: fill_value {fill_value!r} does not fit {what} of dtype "
                         f"{col.dtype} ({e})") from None
    if none is None:
        idx = _core.fill_null(pos, n)
    else:
        idx = _core.column_from_buffer(np.where(none, n, pos))
    return _core.take(_core.concat([col, fill]), idx)


def _diff_type(col, name, what, grouped=False):
    """The dtype of col's diff (or pct_change): pandas' for the dtype
    to_pandas() shows.  An integer column with nulls is pandas' masked
    Int8..UInt64, whose diff keeps the dtype (wrapping); without nulls it
    is numpy's, whose diff is float (float32 for int8 / int16).  A bool
    column's diff is bool (a != its partner), missing where there is no
    partner: pandas' masked boolean gives exactly that, numpy's bool the
    same values as objects (True / False / NaN).  Per group, pandas
    subtracts bools as integers (-1 / 0 / 1): int64 then."""
    dt = col.dtype
    if what == "diff" and (dt == "date32" or dt.startswith(("timestamp", "duration"))):
        return dt  # the difference is a duration (zambezi._compute)
    if dt in _FLOATS:
        return dt
    if dt in _INTS:
        if what == "diff" and col.null_count:
            return dt
        return "float32" if dt in ("int8", "int16") else "float64"
    if what == "diff" and dt == "bool":
        return "int64" if grouped else "bool"
    obj = f"column {name!r}" if name is not None else "the Series"
    raise DTypeError(f"{what} is not supported for {obj} of dtype {dt} (numbers only)")


def _diff_column(col, pos, none, name, periods=None):
    """col minus its rows pos (missing where none); a whole column's diff
    passes periods instead (pos and none are then None)."""
    x = col
    target = _diff_type(col, name, "diff", grouped=periods is None)
    if periods is not None and col.device == "cpu" and \
            (col.dtype in _FLOATS or col.dtype in _INTS):
        # one engine pass: converts, subtracts (unsigned, int32 and int64
        # wrapping in their width, as pandas) and marks the rows without a partner,
        # reading the column once
        return _core.diff(col, periods, target)
    op, after = "sub", None
    if target == "bool":
        op = "xor"
    elif periods is not None and target == "float64" and col.dtype in _INTS:
        after = target  # pandas subtracts in the integer's width, wrapping
    elif target != col.dtype:
        x = _core.cast(col, target)
    res = None
    if periods is not None:
        res = _lagged(x, periods, lambda a, b: _core.binary(op, a, b))
        if res is None:
            pos, none = _shift_positions(col.length, periods)
    if res is None:
        res = _core.binary(op, x, _take_shifted(x, pos, none, None, name))
    return res if after is None else _core.cast(res, after)


def _pct_column(col, pos, none, name, periods=None):
    """col's relative change from its rows pos (see _diff_column)."""
    _diff_type(col, name, "pct_change")
    ratio = None
    if periods is not None:
        ratio = _lagged(col, periods, lambda a, b: _core.binary("truediv", a, b))
        if ratio is None:
            pos, none = _shift_positions(col.length, periods)
    if ratio is None:
        ratio = _core.binary("truediv", col, _take_shifted(col, pos, none, None, name))
    res = _core.binary_scalar("sub", ratio, 1, False)
    if col.dtype == "float32" and res.dtype != "float32":  # pandas keeps float32
        res = _core.cast(res, "float32")
    return res


def _check_pct(fill_method, freq, kwargs):
    if fill_method is not None:
        raise InvalidValueError("pct_change: fill_method must be None (pandas 3 removed "
                                "filling; call ffill() first)")
    if freq is not None:
        raise UnsupportedError("pct_change(freq=...) is not supported")
    if kwargs:
        raise InvalidValueError(f"pct_change: unexpected arguments {sorted(kwargs)}")


def _check_shift(freq, axis, suffix, obj):
    if freq is not None:
        raise UnsupportedError("shift(freq=...) is supported with periods alone (no "
                               "fill_value, suffix or axis=1, and not per group)")
    if suffix is not None:
        raise UnsupportedError("shift(suffix=...) is not supported")
    if obj is not None and _axis_number(obj, axis) == 1:
        raise UnsupportedError("shift(axis=1) (across columns) is not supported")


def _check_cum_args(args, kwargs, op):
    if args or kwargs:
        raise InvalidValueError(f"{op}: unexpected arguments")


# --------------------------------------------------------------------------
# Series
# --------------------------------------------------------------------------

class SeriesWindow:
    """cumsum / cumprod / cummin / cummax, shift, diff and pct_change of
    zambezi.Series (a mixin)."""

    __slots__ = ()

    def _cum(self, op, axis, skipna, args, kwargs):
        _axis_number(self, axis)
        _check_cum_args(args, kwargs, op)
        return self._like(_cum_column(self._col, op, bool(skipna), None))

    def cumsum(self, axis=0, skipna=True, *args, **kwargs):
        """Cumulative sum: row i holds the sum of rows 0..i.  A missing
        value (null, NaN) stays missing and is skipped (skipna=True); with
        skipna=False every value after it is missing too.  Integers sum in
        int64 (uint64 for unsigned; bool counts), wrapping on overflow as
        numpy does.

        Examples
        --------
        >>> zb.Series([1, 2, None, 4]).cumsum()
        0       1
        1       3
        2    <NA>
        3       7
        dtype: int64
        >>> zb.Series([1.0, None, 2.0]).cumsum(skipna=False).to_list()
        [1.0, None, None]
        """
        return self._cum("cumsum", axis, skipna, args, kwargs)

    def cumprod(self, axis=0, skipna=True, *args, **kwargs):
        """Cumulative product (see cumsum for missing values and types).

        Examples
        --------
        >>> zb.Series([2, 3, None, 4]).cumprod().to_list()
        [2, 6, None, 24]
        """
        return self._cum("cumprod", axis, skipna, args, kwargs)

    def cummin(self, axis=0, skipna=True, *args, **kwargs):
        """Cumulative minimum, in the Series' dtype (numbers, bool, dates,
        timestamps; see cumsum for missing values).

        Examples
        --------
        >>> zb.Series([3, 1, None, 2]).cummin().to_list()
        [3, 1, None, 1]
        """
        return self._cum("cummin", axis, skipna, args, kwargs)

    def cummax(self, axis=0, skipna=True, *args, **kwargs):
        """Cumulative maximum, in the Series' dtype (see cummin).

        Examples
        --------
        >>> zb.Series([1.5, 3.0, None, 2.0], index=["a", "b", "c", "d"]).cummax()
        a    1.5
        b      3
        c    NaN
        d      3
        dtype: float64
        """
        return self._cum("cummax", axis, skipna, args, kwargs)

    def shift(self, periods=1, freq=None, axis=0, fill_value=None, suffix=None):
        """The values moved down by periods rows (up for a negative one),
        the labels staying: the rows moved in are missing, or fill_value.
        Keeps the dtype (pandas turns integers into float64).

        Examples
        --------
        >>> s = zb.Series([1, 2, 3])
        >>> s.shift()
        0    <NA>
        1       1
        2       2
        dtype: int64
        >>> s.shift(-1, fill_value=0).to_list()
        [2, 3, 0]
        """
        if freq is not None and suffix is None and fill_value is None:
            from zambezi import _axis_ops
            return _axis_ops.shift_index(self, periods, freq)
        _check_shift(freq, axis, suffix, self)
        periods = _check_periods(periods, "shift")
        return self._like(_shift_column(self._col, periods, fill_value, None))

    def diff(self, periods=1):
        """Each value minus the value periods rows before (missing where
        there is none).  Integers give float64 (float32 for int8 / int16)
        as pandas gives for numpy integers (unsigned, int32 and int64
        subtracted in their own width first, wrapping, as pandas does);
        integers with missing values are pandas' masked Int64..., whose
        diff keeps the dtype.  Bools give bool (whether the value
        changed), missing where there is no partner: pandas' boolean
        dtype gives that; for numpy bools pandas gives the same values as
        objects (NaN for the missing ones).

        Examples
        --------
        >>> zb.Series([1, 4, 9, 16]).diff()
        0    NaN
        1      3
        2      5
        3      7
        dtype: float64
        >>> zb.Series([1.0, 4.0, 9.0]).diff(-1).to_list()
        [-3.0, -5.0, None]
        """
        periods = _check_periods(periods, "diff")
        return self._like(_diff_column(self._col, None, None, None, periods))

    def pct_change(self, periods=1, fill_method=None, freq=None, **kwargs):
        """The relative change from the value periods rows before:
        ``x / x.shift(periods) - 1`` (pandas 3 fills nothing first).

        Examples
        --------
        >>> zb.Series([10, 15, 30]).pct_change().to_list()
        [None, 0.5, 1.0]
        """
        _check_pct(fill_method, freq, kwargs)
        periods = _check_periods(periods, "pct_change")
        return self._like(_pct_column(self._col, None, None, None, periods))


# --------------------------------------------------------------------------
# DataFrame
# --------------------------------------------------------------------------

class FrameWindow:
    """cumsum / cumprod / cummin / cummax, shift, diff and pct_change of
    zambezi.DataFrame, column by column (a mixin)."""

    __slots__ = ()

    def _per_column(self, fn, columns=None):
        t = self._table
        names = t.names if columns is None else columns
        return self._like(_core.table_from_columns(
            [fn(t.column(t.names.index(nm)), nm) for nm in names], names))

    def _cum(self, op, axis, skipna, numeric_only, args, kwargs):
        if _axis_number(self, axis) == 1:
            raise UnsupportedError(f"DataFrame.{op}(axis=1) (across columns) is not supported")
        _check_cum_args(args, kwargs, op)
        cols = None
        if numeric_only:
            dtypes = self._zb_dtypes
            cols = [nm for nm in self._table.names if dtypes[nm] in _NUMERIC]
        skipna = bool(skipna)
        return self._per_column(lambda c, nm: _cum_column(c, op, skipna, nm), cols)

    def cumsum(self, axis=0, skipna=True, numeric_only=False, *args, **kwargs):
        """Cumulative sum of each column (see Series.cumsum);
        numeric_only=True keeps only number and bool columns.  A string
        column raises DTypeError (pandas concatenates its strings).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, 3], "b": [0.5, None, 1.0]})
        >>> df.cumsum()
               a        b
           int64  float64
        0      1      0.5
        1      3      NaN
        2      6      1.5
        <BLANKLINE>
        [3 rows x 2 columns]
        """
        return self._cum("cumsum", axis, skipna, numeric_only, args, kwargs)

    def cumprod(self, axis=0, skipna=True, numeric_only=False, *args, **kwargs):
        """Cumulative product of each column (see Series.cumprod).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2, 3]}).cumprod()["a"].to_list()
        [1, 2, 6]
        """
        return self._cum("cumprod", axis, skipna, numeric_only, args, kwargs)

    def cummin(self, axis=0, skipna=True, numeric_only=False, *args, **kwargs):
        """Cumulative minimum of each column (see Series.cummin).

        Examples
        --------
        >>> zb.DataFrame({"a": [3, 1, 2]}).cummin()["a"].to_list()
        [3, 1, 1]
        """
        return self._cum("cummin", axis, skipna, numeric_only, args, kwargs)

    def cummax(self, axis=0, skipna=True, numeric_only=False, *args, **kwargs):
        """Cumulative maximum of each column (see Series.cummax).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 3, 2]}).cummax()["a"].to_list()
        [1, 3, 3]
        """
        return self._cum("cummax", axis, skipna, numeric_only, args, kwargs)

    def shift(self, periods=1, freq=None, axis=0, fill_value=None, suffix=None):
        """Every column moved down by periods rows (see Series.shift).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"]}).shift().to_dict("list")
        {'a': [None, 1, 2], 'b': [None, 'x', 'y']}
        """
        if freq is not None and suffix is None and fill_value is None \
                and _axis_number(self, axis) == 0:
            from zambezi import _axis_ops
            return _axis_ops.shift_index(self, periods, freq)
        _check_shift(freq, axis, suffix, self)
        periods = _check_periods(periods, "shift")
        return self._per_column(lambda c, nm: _shift_column(c, periods, fill_value, nm))

    def diff(self, periods=1, axis=0):
        """Each column minus itself periods rows before (see Series.diff).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 3, 6]}).diff()["a"].to_list()
        [None, 2.0, 3.0]
        """
        if _axis_number(self, axis) == 1:
            raise UnsupportedError("DataFrame.diff(axis=1) (across columns) is not supported")
        periods = _check_periods(periods, "diff")
        return self._per_column(lambda c, nm: _diff_column(c, None, None, nm, periods))

    def pct_change(self, periods=1, fill_method=None, freq=None, **kwargs):
        """Each column's relative change (see Series.pct_change).

        Examples
        --------
        >>> zb.DataFrame({"a": [2, 3, 6]}).pct_change()["a"].to_list()
        [None, 0.5, 1.0]
        """
        _check_pct(fill_method, freq, kwargs)
        periods = _check_periods(periods, "pct_change")
        return self._per_column(lambda c, nm: _pct_column(c, None, None, nm, periods))


# --------------------------------------------------------------------------
# GroupBy
# --------------------------------------------------------------------------

class GroupByWindow:
    """cumsum / cumprod / cummin / cummax, shift, diff, pct_change,
    ffill / bfill and ngroup of
    zambezi GroupBy (a mixin): the selected columns (every non-key column
    without a selection), row by row with the frame's labels; a Series
    when one column was selected with ``gb["col"]``.  Rows whose key was
    dropped (dropna=True) are missing, as pandas."""

    __slots__ = ()

    def _transformed(self, fn, numeric_only=False):
        """fn(column, name) for each selected value column of the grouped
        table, as a result with the grouped object's rows (as transform)."""
        t = self._k.work
        names = self._value_columns(None)
        if numeric_only:
            names = [nm for nm in names if t.column(t.names.index(nm)).dtype in _NUMERIC]
        cols = [fn(t.column(t.names.index(nm)), nm) for nm in names]
        if self._single or self._obj._ndim == 1:
            return self._same_rows(cols[0], self._label(names[0]))
        return self._obj._like(_core.table_from_columns(cols, names))

    def _gcum(self, op, numeric_only, skipna, args, kwargs):
        _check_cum_args(args, kwargs, op)
        ids, ng = self._ids()
        skipna = bool(skipna)
        narrow = op in ("cumsum", "cumprod")

        def run(c, nm):
            out = _cum_column(c, op, skipna, nm, ids, ng)
            return narrow_back(out, c.dtype) if narrow else out

        return self._transformed(run, numeric_only)

    def cumsum(self, numeric_only=False, skipna=True, *args, **kwargs):
        """Cumulative sum within each group, in row order (see
        Series.cumsum); numeric_only=True keeps number and bool columns.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a", None, "b"], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("k")["n"].cumsum().to_list()
        [1, 2, 4, None, 7]
        """
        return self._gcum("cumsum", numeric_only, skipna, args, kwargs)

    def cumprod(self, numeric_only=False, skipna=True, *args, **kwargs):
        """Cumulative product within each group (see cumsum).

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a", "b"], "n": [2, 3, 4, 5]})
        >>> df.groupby("k").cumprod()["n"].to_list()
        [2, 3, 8, 15]
        """
        return self._gcum("cumprod", numeric_only, skipna, args, kwargs)

    def cummin(self, numeric_only=False, skipna=True, *args, **kwargs):
        """Cumulative minimum within each group (see cumsum).

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "a", "b", "a"], "n": [3, 1, 5, 2]})
        >>> df.groupby("k")["n"].cummin().to_list()
        [3, 1, 5, 1]
        """
        return self._gcum("cummin", numeric_only, skipna, args, kwargs)

    def cummax(self, numeric_only=False, skipna=True, *args, **kwargs):
        """Cumulative maximum within each group (see cumsum).

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "a", "b", "a"], "n": [3, 1, 5, 4]})
        >>> df.groupby("k")["n"].cummax().to_list()
        [3, 3, 5, 4]
        """
        return self._gcum("cummax", numeric_only, skipna, args, kwargs)

    def _group_positions(self, periods, what):
        periods = _check_periods(periods, what)
        ids, ngroups = self._ids()
        return _group_shift_positions(ids, ngroups, periods, what)

    def shift(self, periods=1, freq=None, fill_value=None, suffix=None):
        """Each value moved down by periods rows within its group: a row
        takes the value of the row periods before it in the same group
        (missing, or fill_value, where there is none; also for rows whose
        key was dropped, as pandas).

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a", "b"], "n": [1, 2, 3, 4]})
        >>> df.groupby("k")["n"].shift().to_list()
        [None, None, 1, 2]
        >>> df.groupby("k").shift(fill_value=0)["n"].to_list()
        [0, 0, 1, 2]
        """
        _check_shift(freq, 0, suffix, None)
        pos, none = self._group_positions(periods, "shift")
        return self._transformed(lambda c, nm: _take_shifted(c, pos, none, fill_value, nm))

    def diff(self, periods=1):
        """Each value minus the value periods rows before it in its group
        (see Series.diff for the dtypes).

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a", "b"], "n": [1, 2, 4, 7]})
        >>> df.groupby("k")["n"].diff().to_list()
        [None, None, 3.0, 5.0]
        """
        pos, none = self._group_positions(periods, "diff")
        return self._transformed(lambda c, nm: _diff_column(c, pos, none, nm))

    def _gfill(self, backward, limit, what):
        """ffill / bfill within each group: each missing value (null or
        NaN) takes the nearest present one before (after) it in its group,
        at most limit in a row.  The rows laid out by group (the engine's
        counting sort), the engine's fill_scan over their positions gives
        each row its source, kept where the source is in the same group;
        one gather per column then."""
        if limit is not None and (not isinstance(limit, (int, np.integer)) or limit <= 0):
            raise InvalidValueError(f"{what}: limit must be an integer > 0, not {limit!r}")
        ids, ng = self._ids()
        n = ids.length
        order, sids = _core.group_order(ids, ng)
        order_np = _convert.values_numpy(order).view(np.int64)
        sids_np = _convert.values_numpy(sids).view(np.int64)
        m = len(order_np)

        def one(col, nm):
            v = _core.take(col, order)
            miss = _convert.null_mask(v)
            miss = np.zeros(m, dtype=np.bool_) if miss is None else miss.copy()
            if v.dtype.startswith("float"):
                miss |= np.isnan(_convert.values_numpy(v))
            src = _core.fill_scan(_core.column_from_buffer(np.arange(m, dtype=np.int64),
                                                           mask=miss), bool(backward),
                                  limit, None)
            src_none = _convert.null_mask(src)
            src_np = _convert.values_numpy(src).view(np.int64)
            if src_none is not None:
                src_np = np.where(src_none, 0, src_np)
            keep = sids_np[src_np] == sids_np if m else np.zeros(0, dtype=np.bool_)
            if src_none is not None:
                keep &= ~src_none
            pos = np.zeros(n, dtype=np.int64)
            none = np.ones(n, dtype=np.bool_)  # rows whose key was dropped stay missing
            pos[order_np] = order_np[src_np] if m else pos[:0]
            none[order_np] = ~keep
            return _take_shifted(col, pos, none, None, nm)

        return self._transformed(one)

    def ffill(self, limit=None):
        """Each missing value takes the last present value before it in its
        group (at most limit in a row); rows whose key was dropped are
        missing, as pandas.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a", "b"], "n": [1, None, None, 4]})
        >>> df.groupby("k")["n"].ffill().to_list()
        [1, None, 1, 4]
        """
        return self._gfill(False, limit, "ffill")

    def bfill(self, limit=None):
        """Each missing value takes the next present value after it in its
        group (see ffill).

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a", "b"], "n": [None, None, 3, 4]})
        >>> df.groupby("k")["n"].bfill().to_list()
        [3, 4, 3, 4]
        """
        return self._gfill(True, limit, "bfill")

    def ngroup(self, ascending=True):
        """Each row's group number (0 .. ngroups - 1 in the groups' order;
        counted from the last group when ascending is False); missing where
        the key was dropped.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["b", "a", "b", None]})
        >>> df.groupby("k").ngroup().to_list()
        [1, 0, 1, None]
        """
        ids, ng = self._ids()
        if not ascending:
            ids = _core.binary_scalar("sub", _core.binary_scalar("mul", ids, -1, False), -(ng - 1),
                                      False)
        return self._same_rows(ids, None)

    def pct_change(self, periods=1, fill_method=None, freq=None):
        """The relative change from the value periods rows before it in
        its group (see Series.pct_change).

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a", "b"], "n": [2, 4, 3, 5]})
        >>> df.groupby("k")["n"].pct_change().to_list()
        [None, None, 0.5, 0.25]
        """
        _check_pct(fill_method, freq, {})
        pos, none = self._group_positions(periods, "pct_change")
        return self._transformed(lambda c, nm: _pct_column(c, pos, none, nm))
