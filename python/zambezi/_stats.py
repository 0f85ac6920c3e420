"""Statistics and hash-based methods of zambezi.Series and DataFrame (mixins).

Everything runs in C (``_core.stat``, ``quantile``, ``unique``,
``value_counts``, ``duplicated``, ``isin`` ... in src/python/stats.c) with the
GIL released; nothing here loops over rows.

Semantics follow pandas (nulls and NaN skipped unless ``skipna=False``)
with these differences, because zambezi keeps nulls as nulls:

- A statistic with no value to report (the mean of no values, ``var`` of
  one row, ``median`` of an all-null column) is NaN, as pandas gives for
  numpy dtypes -- and None (pandas' ``pd.NA``) for an integer or bool
  column with nulls (pandas' ``Int64`` / ``boolean``), and for dates and
  timestamps (pandas gives ``NaT``).
- ``unique()`` returns a Series (pandas returns an ndarray or an
  ExtensionArray); a Series can hold every dtype, with nulls.  Null and NaN
  each appear once when present, in order of first appearance.
- ``value_counts()`` of a categorical lists only the categories that occur
  (pandas adds the unused ones with count 0), as ``DataFrame.value_counts``
  does for categorical columns.
- ``quantile(q)`` with a list of q gives a float64 Series of the quantiles in
  the order given (pandas indexes it by q).

DataFrame reductions (``df.sum()`` ...) are in zambezi._frame_reduce.
"""

import datetime
import math

import numpy as np

from zambezi import _indexing, _base, _convert, _core, _dtypes
from zambezi import index as _ix
from zambezi._dtypes import NUMERIC as _NUMERIC
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError, ZambeziOverflowError

_ORDERED = ("string", "date32", "timestamp")


def _is_numeric(col):
    return col.dtype in _NUMERIC


def _orderable(col):
    return _is_numeric(col) or col.dtype.startswith(_ORDERED)


def _check_keep(keep):
    if keep is False or keep in ("first", "last"):
        return keep
    raise InvalidValueError(f"keep must be 'first', 'last' or False, not {keep!r}")


def check_axis(axis, what):
    """A Series reduction's axis: None, 0 or "index" (pandas' signature;
    numeric_only is accepted by the same methods and has nothing to drop)."""
    if axis not in (None, 0, "index"):
        raise InvalidValueError(f"{what}: a Series has one axis (0 / 'index'), not {axis!r}")


def min_max(col, want_max):
    """min/max of any orderable column: numbers via the reduction, strings,
    dates and timestamps via their first extreme row."""
    if _is_numeric(col):
        return col.reduce("max" if want_max else "min")
    return _core.min_max(col, want_max).to_pylist()[0]


def no_value(col):
    """pandas' answer for a reduction with no value to report: NA (None)
    for an integer or bool column with nulls (pandas' masked Int64 /
    boolean), None for dates and timestamps (pandas' NaT), else NaN."""
    d = col.dtype
    if col.null_count and (d.startswith(("int", "uint")) or d == "bool"):
        return None
    if d == "date32" or d.startswith(("timestamp", "duration")):
        return None
    return math.nan


def has_missing(col):
    """Whether col holds a null (or, for floats, a NaN)."""
    if col.null_count:
        return True
    if col.dtype in ("float32", "float64"):
        return bool(_core.binary("ne", col, col).reduce("sum"))
    return False


def valid_count(col):
    if _is_numeric(col):
        return col.reduce("count")
    return col.length - col.null_count


_NEED_NUMBERS = frozenset(["prod", "mean", "var", "std", "median", "quantile", "any", "all"])


def check_reducible(col, how, what):
    """DTypeError (pandas raises TypeError) when column col cannot be
    reduced by how; what names the column."""
    d = col.dtype
    if how in _NEED_NUMBERS and not _is_numeric(col):
        raise DTypeError(f"{how}: {what} has dtype {d}; the reduction needs numbers "
                         "(pass numeric_only=True to leave such columns out)")
    if how == "sum" and not (_is_numeric(col) or d == "string"):
        raise DTypeError(f"sum: {what} has dtype {d}; sum needs numbers or strings "
                         "(pass numeric_only=True to leave such columns out)")
    if how in ("min", "max", "idxmin", "idxmax") and not _orderable(col):
        raise DTypeError(f"{how}: {what} has dtype {d}, which has no order "
                         "(pass numeric_only=True to leave such columns out)")


def reduce_column(col, how, skipna=True, ddof=1, min_count=0, what="the column"):
    """One reduction of one column, with pandas' rules: missing values
    skipped (or, with skipna=False, a missing value makes the result
    missing), ``no_value`` when there is nothing to report, ``min_count``
    for sum and prod.  how: sum, prod, mean, min, max, var, std, median,
    count, any, all.  Strings sum by concatenation, as in pandas."""
    if how == "count":
        return valid_count(col)
    _base.check_bool(skipna, "skipna", none_allowed=False)
    if col.dtype.startswith("duration"):
        return _nat_for_none(_reduce_duration(col, how, skipna, ddof, min_count, what))
    if col.dtype.startswith("timestamp") and how in _TIMESTAMP_REDUCTIONS:
        return _nat_for_none(_reduce_timestamp(col, how, skipna, ddof))
    if col.dtype == "category" and col.ordered and how in ("min", "max"):
        from zambezi import _categorical  # by category order, as pandas

        value = _categorical.min_max(col, how == "max", skipna)
        return np.nan if value is None else value   # pandas' own NaN object
    check_reducible(col, how, what)
    if how in ("any", "all"):
        return _any_all(col, how, skipna)
    if not skipna and has_missing(col):
        return no_value(col)
    if min_count and how in ("sum", "prod") and valid_count(col) < min_count:
        return no_value(col)
    if how == "sum":
        if col.dtype == "string":
            return _core.str_join(col, "")
        out = col.reduce("sum")
    elif how == "mean":
        out = col.reduce("mean")
    elif how in ("min", "max"):
        out = min_max(col, how == "max")
    elif how in ("var", "std"):
        out = _core.stat(col, how, int(ddof))
    else:  # prod, median
        out = _core.stat(col, how)
    return no_value(col) if out is None else out


_DURATION_REDUCTIONS = ("sum", "mean", "min", "max", "median", "std")
_TIMESTAMP_REDUCTIONS = ("mean", "min", "max", "median", "std")


def _nat_for_none(value):
    """A timestamp or duration reduction with no value: pandas' NaT, as
    pandas gives it (and as to_list and .iloc give a missing time); None
    without pandas."""
    if value is not None:
        return value
    try:
        import pandas as pd
    except ImportError:
        return None
    return pd.NaT


def box_timestamp(value, unit, tz):
    """A count of unit since the epoch (UTC) as pandas' Timestamp in zone
    tz, its unit and nanoseconds kept (datetime.datetime without pandas);
    None stays None (NaT)."""
    if value is None:
        return None
    value = int(value)
    try:
        import pandas as pd
    except ImportError:
        col = _core.column_from_buffer(np.array([value], dtype=np.int64), unit=unit, tz=tz)
        return col.to_pylist()[0]
    out = pd.Timestamp(np.datetime64(value, unit))
    if tz is not None:
        out = out.tz_localize("UTC").tz_convert(tz)
    return out


def _reduce_timestamp(col, how, skipna, ddof):
    """min, max, mean, median of a timestamp column as pandas' Timestamp
    (std as a Timedelta), of the int64 counts: mean and std in float64 as
    pandas' nanops computes them (numpy whole-column arithmetic), truncated
    to whole units; None when there is no value (reduce_column: NaT)."""
    if (not skipna and col.null_count) or col.null_count == col.length:
        return None
    raw = _core.cast(col, "int64")
    if how in ("min", "max"):
        out = raw.reduce(how)
    elif how in ("mean", "std"):  # pandas' float64 arithmetic, for the same last digit
        vals = _convert.values_numpy(raw)
        mask = _convert.null_mask(raw)
        if mask is not None:
            vals = vals[~mask]
        f = vals.astype(np.float64)
        out = f.sum(dtype=np.float64) / len(f)
        if how == "std":
            if len(f) <= ddof:
                return None
            out = np.sqrt(((out - f) ** 2).sum(dtype=np.float64) / (len(f) - int(ddof)))
    else:
        out = _core.stat(raw, "median")
    if out is None or (isinstance(out, float) and math.isnan(out)):
        return None
    if isinstance(out, (float, np.floating)):
        out = int(out)  # toward zero, as pandas' nanops casts its float result
    if how == "std":
        return box_duration(out, col.unit)
    return box_timestamp(out, col.unit, col.timezone)


def box_duration(value, unit):
    """A count of unit as pandas' Timedelta (datetime.timedelta without
    pandas); None stays None (NaT)."""
    if value is None:
        return None
    value = int(value)
    try:
        import pandas as pd
    except ImportError:
        return datetime.timedelta(microseconds=value * 10**6 // _dtypes.PER_SECOND[unit])
    return pd.Timedelta(value, unit=unit)




def is_time(col):
    """Whether col holds timestamps or durations."""
    return col.dtype.startswith(("timestamp", "duration"))


def quantile_column(col, qs, what):
    """The linear quantiles qs of column col as a column: float64 for
    numbers; for timestamps and durations, of col's dtype, as pandas: the
    quantile of the int64 counts (numpy's interpolation in float64) cast
    back toward zero; missing where there is no value."""
    if col.dtype == "bool" and col.null_count < col.length:   # numpy subtracts the bools
        raise DTypeError(f"quantile of {what} (bool): numpy boolean subtract, the `-` operator, "
                         "is not supported, use the bitwise_xor, the `^` operator, or the "
                         "logical_xor function instead.")
    if not is_time(col):
        check_reducible(col, "quantile", what)
        return _convert.to_column(_quantiles(col, qs), dtype="float64")
    values = _quantiles(_core.cast(col, "int64"), qs)
    mask = np.array([v is None or v != v for v in values], dtype=bool)
    ints = np.array([0 if m else int(v) for v, m in zip(values, mask)], dtype=np.int64)
    if col.dtype.startswith("duration"):
        return _core.column_from_buffer(ints, mask=mask, dtype=col.dtype)
    return _core.column_from_buffer(ints, mask=mask, unit=col.unit, tz=col.timezone)


def _quantiles(col, qs):
    """The linear quantiles qs of a number column: a list of floats, None
    where there is no value.  The engine interpolates in float64; numpy
    (pandas' quantile) subtracts 64-bit integers as integers first, which
    differs once values pass 2^52 (times in ns): those columns take
    numpy's own quantile of the present values."""
    if col.dtype in ("int64", "uint64") and col.length > col.null_count:
        big = 2 ** 52
        if not -big < col.reduce("min") <= col.reduce("max") < big:
            if col.device != "cpu":
                col = col.to_device("cpu")
            values = _convert.values_numpy(col)
            mask = _convert.null_mask(col)
            if mask is not None:
                values = values[~mask]
            return [float(v) for v in np.quantile(values, qs)]
    return _core.quantile(col, qs)


def box_time(value, col):
    """A count of col's unit as pandas boxes a value of col's dtype (a
    Timedelta, or a Timestamp in col's zone); None stays None."""
    if col.dtype.startswith("duration"):
        return box_duration(value, col.unit)
    return box_timestamp(value, col.unit, col.timezone)


def wrapped_sums(ints, floats):
    """Whether int64 sums (numpy arrays; they wrap on overflow) left the
    range of a duration, told by the same sums in float64: a sum whose sign
    differs from its float's beyond 2**62, a float beyond 1.5 * 2**63, or
    int64's least value (NaT's)."""
    big = np.abs(floats)
    return bool(np.any((ints == np.iinfo(np.int64).min) | (big >= 1.5 * 2.0 ** 63) |
                       ((big > 2.0 ** 62) & (np.sign(ints) != np.sign(floats)))))


def sums_surely_fit(raw):
    """Whether no sum of values of int64 column raw (any subset, so running
    and per-group sums too) can leave int64: its count times its largest
    magnitude is below 2**63.  Two min / max passes, no new column: the
    float64 check of wrapped_sums runs only for columns of huge values."""
    lo, hi = raw.reduce("min"), raw.reduce("max")
    if lo is None:
        return True
    return (raw.length - raw.null_count) * max(-int(lo), int(hi)) < 2 ** 63


def _duration_overflow():
    return ZambeziOverflowError("overflow in timedelta operation (the sum leaves the range "
                                "of a duration; pandas raises OutOfBoundsTimedelta)")


def _reduce_duration(col, how, skipna, ddof, min_count, what):
    """Reductions of a duration column, as pandas' timedelta64 gives them:
    a Timedelta (None when there is no value; reduce_column: NaT); mean,
    median and std of the int64 counts, truncated to whole units (var is
    undefined, as in pandas)."""
    if how not in _DURATION_REDUCTIONS:
        raise DTypeError(f"{how}: {what} has dtype {col.dtype}; {how} is not defined "
                         "for durations")
    raw = _core.cast(col, "int64")
    if not skipna and col.null_count:
        return None
    if how == "sum" and min_count and valid_count(col) < min_count:
        return None
    if col.null_count == col.length and how != "sum":
        return None
    if how in ("min", "max", "sum"):
        out = raw.reduce(how)
        if how == "sum" and out is not None and not sums_surely_fit(raw) and wrapped_sums(
                np.array([out], dtype=np.int64),
                np.array([_core.cast(raw, "float64").reduce("sum")], dtype=np.float64)):
            raise _duration_overflow()
    elif how == "mean":
        out = raw.reduce("mean")
    elif how == "std":
        out = _core.stat(raw, "std", int(ddof))
    else:
        out = _core.stat(raw, "median")
    if out is None or (isinstance(out, float) and math.isnan(out)):
        return None
    if isinstance(out, float):
        out = int(out)  # toward zero, as pandas' nanops casts its float result
    return box_duration(out, col.unit)


def _any_all(col, how, skipna):
    """any / all as pandas answers: a numpy bool, None for pandas' NA."""
    out = _core.stat(col, how)
    if not (skipna or not has_missing(col) or out == (how == "any")):
        # skipna=False with missing values: pandas' masked dtypes give NA
        # (Kleene logic), numpy floats count NaN as true
        if col.dtype not in ("float32", "float64"):
            return None
        out = True if how == "any" else out
    return np.bool_(out)


def extreme_position(col, how, skipna, what="the Series"):
    """The position of the first minimum / maximum (how: idxmin / idxmax);
    ValueError as pandas when there is none."""
    check_reducible(col, how, what)
    if col.length == 0:
        raise InvalidValueError(f"{how}: attempt to get {how[3:]} of an empty sequence")
    if not skipna and has_missing(col):
        raise InvalidValueError(f"{how}: encountered an NA value with skipna=False")
    if _is_numeric(col):
        pos = _core.stat(col, "argmin" if how == "idxmin" else "argmax")
    else:
        pos = _first_extreme_row(col, how == "idxmax")
    if pos is None:
        raise InvalidValueError(f"{how}: encountered all NA values")
    return pos


def _first_extreme_row(col, want_max):
    if col.null_count == col.length:
        return None
    from zambezi._align import broadcast

    value = _core.min_max(col, want_max)  # one row, on col's device
    hit = _core.fill_null(_core.binary("eq", col, broadcast(value, col.length)), False)
    if hit.device != "cpu":
        hit = hit.to_device("cpu")
    return int(np.flatnonzero(_convert.to_numpy(hit))[0])



def _is_na(v):
    return type(v).__name__ == "NAType"  # pandas.NA, without importing pandas


def _is_missing(v):
    """None, NaN, NaT or pandas.NA."""
    if v is None or _is_na(v):
        return True
    try:
        r = v != v
    except Exception:  # noqa: BLE001 - an object that refuses to compare
        return False
    return r is True or (isinstance(r, np.bool_) and bool(r))


def _missing_matches(dtype, missing):
    """Whether pandas' isin matches a column's missing values with these
    missing scalars: any of them for text and categoricals, NaN for floats,
    NaT for timestamps and durations, pandas.NA for ints and bools (which
    pandas holds as nullable arrays)."""
    if dtype in ("string", "category"):
        return True
    if dtype in ("float32", "float64"):
        return any(isinstance(v, (float, np.floating)) for v in missing)
    if dtype.startswith(("timestamp", "duration")):
        return any(v is not None and not _is_na(v) and not isinstance(v, (float, np.floating))
                   for v in missing)
    return any(_is_na(v) for v in missing)


def _number_kinds(values):
    """(ints, floats) when the list, tuple or object array values holds
    Python or numpy integers and floats together (and nothing else), else
    None."""
    if not isinstance(values, (list, tuple)) and \
            not (isinstance(values, np.ndarray) and values.dtype == object):
        return None
    ints, floats = [], []
    for v in values:
        if isinstance(v, (bool, np.bool_)):
            return None
        if isinstance(v, (int, np.integer)):
            ints.append(v)
        elif isinstance(v, (float, np.floating)):
            floats.append(v)
        else:
            return None
    return (ints, floats) if ints and floats else None


def _masked_na_last(values, counts, sort):
    """value_counts' (values, counts) with the null entry where pandas puts
    it for its masked dtypes (Int64, boolean -- zambezi's integer and bool
    columns with nulls): after every value, before the sort by count, so
    last among the values of its count (last of all with sort=False).  The
    engine places it by its first appearance, as pandas does for NaN in
    float64 and object data."""
    valid = _convert.values_numpy(_core.notnull(values)).astype(bool)
    n = len(valid)
    pos = int(np.flatnonzero(~valid)[0])
    order = np.delete(np.arange(n, dtype=np.int64), pos)
    if sort:
        c = _convert.values_numpy(counts)
        same = np.flatnonzero(c[order] == c[pos])
        at = int(same[-1]) + 1 if len(same) else int(np.searchsorted(order, pos))
    else:
        at = n - 1
    order = np.insert(order, at, pos)
    idx = _core.column_from_buffer(order)
    return _core.take(values, idx), _core.take(counts, idx)


def _series_axis(axis, what):
    """pandas' axis argument of a Series reduction: 0 (or "index", None)."""
    if axis not in (0, "index", None):
        raise InvalidValueError(f"{what}: No axis named {axis!r} for object type Series")


class SeriesStats:
    """Statistics, distinct values and duplicates of zambezi.Series (a mixin)."""

    __slots__ = ()

    # -- reductions -------------------------------------------------------
    def var(self, ddof=1, skipna=True, *, axis=None, numeric_only=False):
        """Variance with ddof degrees of freedom (nulls and NaN skipped
        unless skipna=False); NaN when fewer than ddof + 1 values (see the
        notes of zambezi._stats for integer columns with nulls).

        Examples
        --------
        >>> s = zb.Series([2, 4, 4, None, 5])
        >>> round(s.var(), 4), s.var(ddof=0)
        (1.5833, 1.1875)
        >>> zb.Series([1.0]).var()
        nan
        """
        check_axis(axis, "var")
        return reduce_column(self._col, "var", skipna, ddof, what=self._describe())

    def std(self, ddof=1, skipna=True, *, axis=None, numeric_only=False):
        """Standard deviation (see var).

        Examples
        --------
        >>> zb.Series([2, 4, 4, 4, 5, 5, 7, 9]).std(ddof=0)
        2.0
        """
        check_axis(axis, "std")
        return reduce_column(self._col, "std", skipna, ddof, what=self._describe())

    def median(self, skipna=True, *, axis=None, numeric_only=False):
        """The middle value (mean of the two middle values for an even count);
        nulls skipped, NaN when there is no value.

        Examples
        --------
        >>> zb.Series([5, 1, None, 4, 2]).median()
        3.0
        >>> zb.Series([], dtype="float64").median()
        nan
        """
        check_axis(axis, "median")
        return reduce_column(self._col, "median", skipna, what=self._describe())

    def quantile(self, q=0.5, interpolation="linear"):
        """The q quantile with linear interpolation (pandas' default).  q may be
        a list: then a float64 Series of the quantiles indexed by q.
        interpolation "lower", "higher" and "nearest" pick a value of the
        column (of its dtype: strings and dates too), "midpoint" the mean of
        the two around q, as numpy and pandas.

        Examples
        --------
        >>> s = zb.Series([2, 4, 4, None, 5])
        >>> s.quantile(0.25)
        3.5
        >>> s.quantile([0.5, 0.9])
        0.5      4
        0.9    4.7
        dtype: float64
        >>> s.quantile([0.25, 0.5], interpolation="nearest").to_list()
        [4, 4]
        """
        from zambezi import index as _ix

        if interpolation != "linear":
            return self._quantile_pick(q, interpolation)
        scalar = isinstance(q, (int, float)) and not isinstance(q, bool)
        qs = [float(q)] if scalar else [float(x) for x in q]
        out = quantile_column(self._col, qs, self._describe())
        if scalar:
            if is_time(self._col):
                return _nat_for_none(box_time(_core.cast(out, "int64").to_pylist()[0], out))
            value = out.to_pylist()[0]
            return no_value(self._col) if value is None else value
        return self._constructor._from_column(
            out, self._name,
            _ix.Index._from_columns([_convert.to_column(qs, dtype="float64")], [None]))

    def searchsorted(self, value, side="left", sorter=None):
        """Positions where value (a scalar, list, array or Series) would go
        to keep the sorted Series sorted, as numpy.searchsorted on the
        values: an int64 array (an int for a scalar).  A null cannot be
        placed among strings: TypeError, as pandas.

        Examples
        --------
        >>> s = zb.Series([1, 3, 3, 7])
        >>> s.searchsorted(3), s.searchsorted(3, side="right")
        (1, 3)
        >>> s.searchsorted([0, 5, 9]).tolist()
        [0, 3, 4]
        """
        if side not in ("left", "right"):
            raise InvalidValueError(f"searchsorted: side must be 'left' or 'right', not {side!r}")
        if self._col.dtype == "category":
            # pandas places values by the categories' order, numpy by the values'
            raise UnsupportedError("searchsorted of a categorical Series is not supported")
        values = self.to_numpy()
        scalar = _dtypes.is_scalar(value)
        if scalar and isinstance(value, str) and _dtypes.time_unit(self._col.dtype):
            from zambezi._compute import time_operand   # the time pandas reads in it

            value = time_operand(self._col, value, "ge")[1]
        if scalar and hasattr(value, "to_datetime64"):   # pd.Timestamp as numpy's
            value = value.to_datetime64()
        elif scalar and hasattr(value, "to_timedelta64"):
            value = value.to_timedelta64()
        elif hasattr(value, "to_numpy"):
            value = value.to_numpy()
        out = np.searchsorted(values, value, side=side, sorter=sorter)
        return int(out) if scalar else np.asarray(out, dtype=np.int64)

    def _quantile_pick(self, q, interpolation):
        """quantile with interpolation lower / higher / nearest / midpoint:
        positions into the sorted values (numpy's rules, "nearest" rounding
        half to even), one engine gather."""
        from zambezi import index as _ix

        if interpolation not in ("lower", "higher", "nearest", "midpoint"):
            raise InvalidValueError("quantile: interpolation must be 'linear', 'lower', "
                                    f"'higher', 'nearest' or 'midpoint', not {interpolation!r}")
        scalar = isinstance(q, (int, float)) and not isinstance(q, bool)
        qs = np.asarray([q] if scalar else list(q), dtype=np.float64)
        if ((qs < 0) | (qs > 1)).any():
            raise InvalidValueError(f"quantile: q must be in [0, 1], got {q!r}")
        values = self.dropna().sort_values()
        n = len(values)
        pos = qs * (n - 1)
        if n == 0:   # NaN for float data, as the linear quantile and pandas give
            picked = [no_value(self._col)] * len(qs)
        elif interpolation == "midpoint":
            # the mean of two values: numbers only (pandas' Timestamp midpoint
            # is served by pandas)
            check_reducible(self._col, "quantile", self._describe())
            lo = values.iloc[np.floor(pos).astype(np.int64)].to_numpy().astype(np.float64)
            hi = values.iloc[np.ceil(pos).astype(np.int64)].to_numpy().astype(np.float64)
            picked = ((lo + hi) / 2).tolist()
        else:
            rounder = {"lower": np.floor, "higher": np.ceil, "nearest": np.around}[interpolation]
            picked = values.iloc[rounder(pos).astype(np.int64)]
        if scalar:
            return picked[0] if isinstance(picked, list) else picked.to_list()[0]
        index = _ix.Index._from_columns([_convert.to_column(qs.tolist(), dtype="float64")],
                                        [None])
        if isinstance(picked, list):
            col = _convert.to_column(picked, dtype="float64")
        else:
            col = picked._col
        return self._constructor._from_column(col, self._name, index)

    def prod(self, skipna=True, min_count=0, *, axis=None, numeric_only=False):
        """Product (integers wrap on overflow like numpy; 1 when empty);
        nulls skipped unless skipna=False; NaN with fewer than min_count
        values.

        Examples
        --------
        >>> zb.Series([2, 4, None, 5]).prod()
        40
        """
        check_axis(axis, "prod")
        return reduce_column(self._col, "prod", skipna, min_count=min_count,
                             what=self._describe())

    product = prod

    def any(self, skipna=True):
        """True if any value is non-zero / True (nulls skipped; False when
        empty).  With skipna=False a missing value counts as pandas counts
        it (NA for integer and bool columns with nulls, true for NaN).

        Examples
        --------
        >>> zb.Series([0, None, 2]).any(), zb.Series([False, None]).any()
        (np.True_, np.False_)
        """
        _base.check_bool(skipna, "skipna", none_allowed=False)
        return reduce_column(self._col, "any", skipna, what=self._describe())

    def all(self, skipna=True):
        """True if every value is non-zero / True (nulls skipped; True when
        empty; skipna as in any).

        Examples
        --------
        >>> zb.Series([True, None, True]).all(), zb.Series([1, 0]).all()
        (np.True_, np.False_)
        """
        _base.check_bool(skipna, "skipna", none_allowed=False)
        return reduce_column(self._col, "all", skipna, what=self._describe())

    def idxmin(self, axis=0, skipna=True):
        """The label of the first minimum.  ValueError (as pandas) when
        there is no value, or a missing one with skipna=False.

        Examples
        --------
        >>> zb.Series([4, 1, None, 1], index=["a", "b", "c", "d"]).idxmin()
        'b'
        """
        _series_axis(axis, "idxmin")
        return self._index._label_at(extreme_position(self._col, "idxmin", skipna,
                                                      self._describe()))

    def idxmax(self, axis=0, skipna=True):
        """The label of the first maximum (see idxmin).

        Examples
        --------
        >>> zb.Series([4, 9, None, 9], index=[10, 20, 30, 40]).idxmax()
        20
        """
        _series_axis(axis, "idxmax")
        return self._index._label_at(extreme_position(self._col, "idxmax", skipna,
                                                      self._describe()))

    def argmin(self, axis=0, skipna=True):
        """The position of the first minimum (see idxmin for the errors).

        Examples
        --------
        >>> zb.Series([4, 1, None, 1], index=["a", "b", "c", "d"]).argmin()
        np.int64(1)
        """
        # a numpy integer, as pandas (its python-scalars mode aside)
        _series_axis(axis, "argmin")
        return np.int64(extreme_position(self._col, "idxmin", skipna, self._describe()))

    def argmax(self, axis=0, skipna=True):
        """The position of the first maximum (see idxmin for the errors).

        Examples
        --------
        >>> zb.Series([4, 9, None, 9]).argmax()
        np.int64(1)
        """
        _series_axis(axis, "argmax")
        return np.int64(extreme_position(self._col, "idxmax", skipna, self._describe()))

    # -- summaries (zambezi._frame_summary) --------------------------------
    def describe(self, percentiles=None, include=None, exclude=None):
        """Summary statistics, a Series indexed by their names, as pandas'
        describe: count, mean, std, min, the percentiles (25%, 50%, 75% by
        default) and max as float64 for numbers; count, mean, min, the
        percentiles and max for timestamps; count, unique, top and freq
        for strings, categories, bools and dates.  pandas gives object
        Series for the last two kinds; here they are string Series of the
        values as pandas prints them.  include and exclude are accepted
        and ignored, as pandas does for a Series.

        Examples
        --------
        >>> zb.Series([7.0, 3.5, None, 9.0], name="fare").describe().round(2)
        count     3
        mean    6.5
        std    2.78
        min     3.5
        25%    5.25
        50%       7
        75%       8
        max       9
        Name: fare, dtype: float64
        >>> zb.Series(["Maun", "Tete", "Maun", None]).describe().to_list()
        ['3', '2', 'Maun', '2']
        """
        from zambezi import _frame_summary as fs

        ps = fs.refine_percentiles(percentiles)
        names, values, is_text = fs.describe_column(self._col, ps, fs.format_percentiles(ps))
        col = fs.described_column(names, values, is_text, names)
        return self._constructor._from_column(col, self._name, fs._string_index(names))

    def memory_usage(self, index=True, deep=False):
        """Bytes the values hold (values, validity bitmap, string bytes,
        categories), plus the row labels' with index=True (a RangeIndex
        takes 0; pandas counts 132 for the range object).  Exact, so deep
        changes nothing.

        Examples
        --------
        >>> zb.Series([1, 2, 3]).memory_usage()
        24
        >>> zb.Series([1.5, None], index=["a", "b"]).memory_usage()
        43
        """
        return self._col.nbytes + (self._index.nbytes if index else 0)

    def _paired_values(self, other, what):
        """float64 arrays of self and other, row by row: positional when
        the indexes are equal, else over the labels both have (pandas'
        inner alignment)."""
        from zambezi import _frame_summary as fs

        if not _base.is_series(other):
            raise InvalidValueError(f"{what}: other must be a Series, not "
                                    f"{type(other).__name__}")
        for s in (self, other):
            if s._col.dtype not in _NUMERIC:
                raise DTypeError(f"{what}: {s._describe()} is not a number or bool")
        a, b = self._col, other._col
        if not self._index.equals(other._index):
            left, right = self._index._levels(), other._index._levels()
            if len(left) != len(right):
                raise InvalidValueError(
                    f"{what}: the indexes have {len(left)} and {len(right)} levels")
            names = [f"k{i}" for i in range(len(left))]
            lpos, rpos = _core.join_indices(
                _core.table_from_columns(left, names), _core.table_from_columns(right, names),
                list(range(len(left))), list(range(len(left))), "inner")
            a, b = _core.take(a, lpos), _core.take(b, rpos)
        return fs._float_values(a), fs._float_values(b)

    def corr(self, other, method="pearson", min_periods=None):
        """Correlation with another Series over the rows where both have a
        value ("pearson", or "spearman": Pearson of the ranks, ties
        averaged); rows pair by label as pandas aligns them (by position
        when the indexes are equal).  None when fewer than min_periods
        (default 1) pairs, or a constant side, as pandas.

        Examples
        --------
        >>> a = zb.Series([1, 2, 3, 4])
        >>> b = zb.Series([2.0, 4.5, None, 8.0])
        >>> a.corr(b).round(6), a.corr(b, method="spearman")
        (np.float64(0.995567), np.float64(1.0))
        """
        from zambezi import _frame_summary as fs

        method = fs.check_method(method)
        x, y = self._paired_values(other, "corr")
        minp = 1 if min_periods is None else int(min_periods)
        return fs.series_pair_statistic(x, y, method, minp)

    def cov(self, other, min_periods=None, ddof=1):
        """Covariance with another Series (divided by n - ddof) over the
        rows where both have a value, paired as in corr; NaN when fewer
        than min_periods pairs or n <= ddof, as pandas.

        Examples
        --------
        >>> zb.Series([1, 2, 3, 4]).cov(zb.Series([2.0, 4.5, None, 8.0])).round(6)
        np.float64(4.583333)
        """
        from zambezi import _frame_summary as fs

        x, y = self._paired_values(other, "cov")
        minp = 1 if min_periods is None else int(min_periods)
        return fs.series_pair_statistic(x, y, "cov", minp, int(ddof))

    # -- distinct values --------------------------------------------------
    def nunique(self, dropna=True):
        """Number of distinct values (null and NaN left out unless dropna=False).

        Examples
        --------
        >>> s = zb.Series(["a", "b", "a", None])
        >>> s.nunique(), s.nunique(dropna=False)
        (2, 3)
        """
        return _core.nunique(self._col, bool(dropna))

    def unique(self):
        """The distinct values in order of first appearance, as a Series
        (pandas returns an array); a null appears once when present.

        Examples
        --------
        >>> zb.Series([2, 4, 2, None, 5, None]).unique()
        0       2
        1       4
        2    <NA>
        3       5
        dtype: int64
        """
        return self._constructor._from_column(_core.unique(self._col), self._name)

    def value_counts(self, normalize=False, sort=True, ascending=False, bins=None,
                     dropna=True):
        """The count of each distinct value, most frequent first (ties in
        order of first appearance, as pandas): a Series named "count" (or
        "proportion" with normalize=True) indexed by the values (the index
        named after this Series).  Nulls are counted with dropna=False;
        sort=False keeps the order of first appearance.  A categorical
        lists every category, unused ones with count 0, ties (and sort=False)
        in category order, as pandas.

        Examples
        --------
        >>> s = zb.Series(["b", "a", "b", None], name="city")
        >>> s.value_counts()
        city
        b    2
        a    1
        Name: count, dtype: int64
        >>> s.value_counts(dropna=False).index.to_list()
        ['b', 'a', None]
        >>> s.value_counts(normalize=True).round(3).to_list()
        [0.667, 0.333]

        ``bins`` counts numbers per bin of ``zb.cut(s, bins,
        include_lowest=True)``, every bin listed (labels are the bins' text,
        as zambezi's cut gives them, where pandas has Intervals); missing
        values are not counted, and with normalize the shares are of all
        the values, missing ones included, as pandas:

        >>> zb.Series([1.0, 2.0, 9.0]).value_counts(bins=[0, 5, 10]).to_list()
        [2, 1]
        """
        if bins is not None:
            return self._binned_counts(bins, sort, ascending, normalize, dropna)
        if self._col.dtype == "category":
            from zambezi import _categorical

            values, counts = _categorical.value_counts(self._col, sort, ascending, dropna,
                                                       normalize)
        else:
            values, counts = _core.value_counts(self._col, bool(sort), bool(ascending),
                                                bool(dropna), bool(normalize))
            if not dropna and self._col.null_count and \
                    self._col.dtype.startswith(("int", "uint", "bool")):
                values, counts = _masked_na_last(values, counts, sort)
        index = _ix.Index._from_columns([values], [self._name])
        return self._constructor._from_column(counts, "proportion" if normalize else "count",
                                              index)

    def _binned_counts(self, bins, sort, ascending, normalize, dropna):
        from zambezi import _cut

        binned = _cut.cut(self, bins, include_lowest=True)
        # pandas leaves the missing values out of binned counts, dropna or not
        out = binned.value_counts(sort=sort, ascending=ascending, dropna=True)
        out._index = out._index.rename(None)   # pandas names the bins nothing
        if normalize:
            total = len(self) if len(self) else 1
            out = self._constructor._from_column(
                (out.astype("float64") / total)._col, "proportion", out._index)
        return out

    def mode(self, dropna=True):
        """The most frequent value(s), sorted, as a Series of this dtype
        indexed 0, 1, ... and named as this Series (several values when
        they tie); missing values count too with dropna=False (sorted
        last); empty when there is no value.  One engine value_counts, then
        a filter and a sort of the distinct values.

        Examples
        --------
        >>> zb.Series([3, 1, 3, 1, 2, None]).mode().to_list()
        [1, 3]
        >>> s = zb.Series(["b", None, None])
        >>> s.mode().to_list(), s.mode(dropna=False).to_list()
        (['b'], [None])
        """
        counts = self.value_counts(sort=False, dropna=dropna)
        values = counts._index._levels()[0]
        if counts._col.length:
            top = _core.binary_scalar("eq", counts._col, counts._col.reduce("max"), False)
            values = _core.filter(values, top)
        out = self._constructor._from_column(values, self._name)
        return out.sort_values(na_position="last", ignore_index=True)

    def isin(self, values):
        """bool Series: whether each value is one of values (a list, set, Series,
        array or any iterable).  Nulls give False, but where pandas matches a missing
        value in values: for text and categoricals any missing value
        (None, NaN, NA), for floats NaN, for timestamps and durations NaT.

        Examples
        --------
        >>> zb.Series([1, 2, None, 5]).isin([2, 5]).to_list()
        [False, True, False, True]
        >>> zb.Series(["a", "b"]).isin({"b"}).to_list()
        [False, True]
        """
        if isinstance(values, (str, bytes)):
            raise InvalidValueError(
                "isin() takes a list-like of values, not a str; wrap it in a list")
        dtype = self._col.dtype
        if _base.is_series(values) or isinstance(values, _core.Column):
            vcol = values._col if _base.is_series(values) else values
            prefixes = (("float",) if dtype.startswith("float") else
                        ("timestamp", "duration") if dtype.startswith(("timestamp", "duration"))
                        else ("",) if dtype in ("string", "category") else None)
            match_missing = vcol.null_count > 0 and prefixes is not None and \
                vcol.dtype.startswith(prefixes)
        else:
            if isinstance(values, (set, frozenset, dict)) or not hasattr(values, "__len__"):
                values = list(values)  # a set, or an iterator read once (as pandas)
            match_missing = False
            if not isinstance(values, np.ndarray) or values.dtype == object:
                # the missing values are matched by pandas' rules, not converted
                missing = [v for v in values if _is_missing(v)]
                if missing:
                    values = [v for v in values if not _is_missing(v)]
                    match_missing = _missing_matches(dtype, missing)
            elif values.dtype.kind in "fmM":
                nan = np.isnat(values) if values.dtype.kind in "mM" else np.isnan(values)
                if nan.any():
                    match_missing = _missing_matches(dtype, list(values[nan][:1]))
                    values = values[~nan]
            parts = _number_kinds(values)
            if parts is not None:
                # ints and floats together: a column of each, so that neither
                # is rounded to the other's kind (2**53 + 1 is not 2.0**53)
                vcol = [_convert.to_column(part) for part in parts]
            else:
                vcol = _convert.to_column(values) if len(values) else self._col.slice(0, 0)
                if vcol.length == 0:
                    vcol = self._col.slice(0, 0)
        out = None
        for v in vcol if isinstance(vcol, list) else [vcol]:
            hit = self._like(_core.isin(self._col, v))
            out = hit if out is None else out | hit
        if match_missing and self._col.null_count:
            out = out | self.isna()
        return out


    # -- duplicates -------------------------------------------------------
    def _table(self):
        return _core.table_from_columns([self._col], ["value"])

    def duplicated(self, keep="first"):
        """bool Series: True for repeats of an earlier (keep='first'), later
        (keep='last') or any other (keep=False) equal value.

        Examples
        --------
        >>> s = zb.Series([1, 2, 1, 1])
        >>> s.duplicated().to_list()
        [False, False, True, True]
        >>> s.duplicated(keep="last").to_list()
        [True, False, True, False]
        >>> s.duplicated(keep=False).to_list()
        [True, False, True, True]
        """
        return self._like(_core.duplicated(self._table(), None, _check_keep(keep)))

    @_base.takes_inplace(deprecated=True)
    def drop_duplicates(self, keep="first", ignore_index=False):
        """The Series without its duplicated values (row order kept;
        keep as in duplicated(); labels numbered from 0 with
        ignore_index=True).

        Examples
        --------
        >>> zb.Series([1, 2, 1, None, None]).drop_duplicates().to_list()
        [1, 2, None]
        >>> zb.Series([1, 2, 1]).drop_duplicates(keep="last").to_list()
        [2, 1]
        >>> zb.Series([5, 6, 5, 7]).drop_duplicates(ignore_index=True).index
        RangeIndex(start=0, stop=3, step=1)
        """
        dup = _core.duplicated(self._table(), None, _check_keep(keep))
        out = self._select_rows(_indexing.filter_rows(_core.unary("invert", dup)))
        return out._with_index(_ix.default_index(len(out))) if ignore_index else out


class FrameStats:
    """Duplicated rows of zambezi.DataFrame (a mixin; the reductions are in
    zambezi._frame_reduce)."""

    __slots__ = ()

    def mode(self, axis=0, numeric_only=False, dropna=True):
        """The most frequent value(s) of each column (Series.mode), side by
        side: rows 0, 1, ... as many as the column with the most tied
        values, missing below a column's own.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, 2, 1], "b": ["x", "y", "y", "z"]})
        >>> df.mode().to_dict("list")
        {'a': [1, 2], 'b': ['y', None]}
        """
        from zambezi import _frame_reduce

        if _frame_reduce._axis(axis, "mode") != 0:
            raise UnsupportedError("mode(axis=1) is not supported")
        t = self._table
        keep = [i for i in range(t.num_columns)
                if not numeric_only or _is_numeric(t.column(i))]
        modes = [self._sliced(t.column(i), t.names[i]).mode(dropna=dropna) for i in keep]
        n = max((len(m) for m in modes), default=0)
        cols = [m._col if len(m) == n else m.reindex(range(n))._col for m in modes]
        out = self._constructor._wrap(_core.table_from_columns(
            cols, [t.names[i] for i in keep]), _ix.default_index(n))
        from zambezi import _labels

        return _labels.attach(out, _labels.index_for(self, [t.names[i] for i in keep]))

    def _subset(self, subset):
        if subset is None:
            return None
        if isinstance(subset, str):
            subset = [subset]
        names = self._table.names
        keys = []
        for s in subset:
            if s not in names:
                raise self._missing(s)
            keys.append(names.index(s))
        if not keys:
            raise InvalidValueError("subset must name at least one column")
        return keys

    def duplicated(self, subset=None, keep="first"):
        """bool Series: whether each row repeats another over the columns in
        subset (all columns by default), per keep ('first', 'last', False).

        Examples
        --------
        >>> df = zb.DataFrame({"k": [1, 1, 2], "v": ["x", "x", "y"]})
        >>> df.duplicated().to_list()
        [False, True, False]
        >>> df.duplicated(subset="k", keep="last").to_list()
        [True, False, False]
        """
        keys = self._subset(subset)
        return self._sliced(_core.duplicated(self._table, keys, _check_keep(keep)), None)

    @_base.takes_inplace(deprecated=True)
    def drop_duplicates(self, subset=None, keep="first", ignore_index=False):
        """The frame without its duplicated rows (row order and labels kept,
        numbered from 0 with ignore_index=True; subset and keep as in
        duplicated()).

        Examples
        --------
        >>> df = zb.DataFrame({"k": [1, 1, 2], "v": ["x", "y", "z"]})
        >>> df.drop_duplicates(subset="k")
               k       v
           int64  string
        0      1       x
        2      2       z
        <BLANKLINE>
        [2 rows x 2 columns]
        """
        _base.check_bool(ignore_index, "ignore_index")
        keys = self._subset(subset)
        if ignore_index:
            return self._constructor._wrap(
                _core.drop_duplicates(self._table, keys, _check_keep(keep)))
        dup = _core.duplicated(self._table, keys, _check_keep(keep))
        return self._select_rows(_indexing.filter_rows(_core.unary("invert", dup)))

    def value_counts(self, subset=None, normalize=False, sort=True, ascending=False,
                     dropna=True):
        """How many times each distinct row (over the columns in subset,
        all by default) occurs: a Series named "count" (or "proportion"
        with normalize=True) indexed by the rows' values -- a MultiIndex,
        except for subset given as one name.  Most frequent first; ties,
        and every row with sort=False, in order of first appearance (as
        pandas).  dropna=False counts rows with nulls too.  Categorical
        columns list their unused categories too, with count 0 (as pandas).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", "Maun"], "n": [1, 2, 1, 3]})
        >>> df.value_counts()
        city  n
        Maun  1    2
        Tete  2    1
        Maun  3    1
        Name: count, dtype: int64
        >>> df.value_counts("city", normalize=True).to_list()
        [0.75, 0.25]
        """
        one = isinstance(subset, str)
        keys = self._subset(subset)
        names = self._table.names
        cols = [names[i] for i in keys] if keys is not None else list(names)
        if not cols:
            raise InvalidValueError("value_counts: the frame has no columns")
        counts = self.groupby(cols[0] if one else cols, sort=False, dropna=dropna,
                              observed=False).size()
        if sort:
            order = _core.sort_indices(counts._col, bool(ascending), False)
            counts = counts._select_rows(_indexing.take_rows(order))
        if normalize:
            total = counts._col.reduce("sum")
            counts = counts._like(_core.binary_scalar("truediv", counts._col, float(total),
                                                      False))
        if not one and counts._index.nlevels == 1:  # a list subset: a MultiIndex, as pandas
            idx = counts._index
            counts = counts._with_index(_ix.MultiIndex._from_columns(idx._levels(), idx.names))
        from zambezi import _labels

        label = dict(zip(names, _labels.label_list(self)))
        if any(label[c] != c for c in cols):   # the index is named by the column labels
            counts = counts._with_index(counts._index._rename_all([label[c] for c in cols]))
        counts.name = "proportion" if normalize else "count"
        return counts
