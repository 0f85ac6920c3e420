"""Exponentially weighted statistics, as pandas 3 has them: ``ewm(...)`` on
Series, DataFrame and GroupBy (the ``SeriesEWM``, ``FrameEWM`` and
``GroupByEWM`` mixins), returning an ``ExponentialMovingWindow`` whose
mean / sum / var / std / cov / corr give one result per row.

Each statistic of a set of columns is one engine call (``_core.ewm``:
pandas' recurrences, step for step, every column -- and every group --
its own sequence, the sequences in parallel; a whole column's mean, sum,
var or std also splits into morsels that start from a warm-up and are
checked against the serial state, so the results are the serial pass's
to the last bit).  Per group, the
rows are first gathered into the result's order (by group, then row
order: one stable sort of the group ids), so the engine walks each group
as consecutive rows.  Nothing here loops over rows.

pandas' rules:

- The decay is given by exactly one of ``com`` (alpha = 1 / (1 + com)),
  ``span`` (alpha = 2 / (span + 1)), ``halflife`` (alpha = 1 - exp(log(0.5)
  / halflife)) or ``alpha``; with ``times=`` (datetimes, one per row,
  no NaT) ``halflife`` is a time span ("2D", "4h", a timedelta) and a
  value's weight halves every halflife of time (mean only).
- ``adjust=True`` divides by the sum of the weights of the values so far;
  ``adjust=False`` is the recursion y = (1 - alpha) y + alpha x.
- A missing value (null, NaN) adds nothing; with ``ignore_na=False`` it
  still ages the earlier values (the weights follow the rows' positions),
  with ``ignore_na=True`` it does not.
- A result needs ``min_periods`` values so far (at least 1).
- var / std / cov use the bias-corrected weights unless ``bias=True``;
  corr is cov / sqrt(var_x var_y), each over its own values.
- Results are float64 and keep the object's row labels and names; a
  DataFrame's non-numeric columns raise DTypeError unless
  ``numeric_only=True``.
- Per group (``df.groupby(k)[c].ewm(span=3).mean()``): each group is its
  own sequence in row order; the result is indexed by (key, original
  label), rows by group then in row order, as rolling's.

Differences from pandas:

- A missing result is null (``to_pandas()`` shows NaN, as pandas).
- ``cov`` / ``corr`` take another Series (or, for a DataFrame, a DataFrame
  with the same columns, ``pairwise=False``) with the same row labels;
  the pairwise MultiIndex form and grouped cov / corr raise
  UnsupportedError.  ``engine="numba"``, ``method="table"`` and
  ``online()`` are not supported.
- A ``halflife`` string is a number and a unit ("2D", "90min", "4h");
  other pandas Timedelta spellings are read by pandas when it is
  installed.
"""

import datetime
import math
import numbers

import numpy as np

from zambezi import _convert, _core, _dtypes
from zambezi._dtypes import NUMERIC as _NUMERIC
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError


def _number(v, what):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise DTypeError(f"ewm: {what} must be a number, not {type(v).__name__}")
    return float(v)


def _center_of_mass(com, span, halflife, alpha):
    """pandas' get_center_of_mass: exactly one of the four, checked."""
    given = [v for v in (com, span, halflife, alpha) if v is not None]
    if len(given) > 1:
        raise InvalidValueError("ewm: com, span, halflife and alpha are mutually exclusive")
    if com is not None:
        com = _number(com, "com")
        if com < 0:
            raise InvalidValueError(f"ewm: com must satisfy com >= 0, not {com}")
        return com
    if span is not None:
        span = _number(span, "span")
        if span < 1:
            raise InvalidValueError(f"ewm: span must satisfy span >= 1, not {span}")
        return (span - 1) / 2
    if halflife is not None:
        halflife = _number(halflife, "halflife")
        if halflife <= 0:
            raise InvalidValueError(f"ewm: halflife must satisfy halflife > 0, not {halflife}")
        decay = 1 - np.exp(np.log(0.5) / halflife)
        return float(1 / decay - 1)
    if alpha is not None:
        alpha = _number(alpha, "alpha")
        if alpha <= 0 or alpha > 1:
            raise InvalidValueError(f"ewm: alpha must satisfy 0 < alpha <= 1, not {alpha}")
        return (1 - alpha) / alpha
    raise InvalidValueError("ewm: pass one of com, span, halflife or alpha")


def _is_span(v):
    return isinstance(v, (str, datetime.timedelta, np.timedelta64)) or \
        type(v).__name__ == "Timedelta"


def _span_ns(halflife):
    """A time span in nanoseconds ("2D", a timedelta, pandas' Timedelta)."""
    from zambezi._rolling import _offset_ns

    try:
        return _offset_ns(halflife)
    except InvalidValueError:
        try:
            import pandas as pd
        except ImportError:
            raise
        try:
            return int(pd.Timedelta(halflife).as_unit("ns")._value)
        except ValueError:
            raise InvalidValueError(f"ewm: halflife {halflife!r} is not a time span") from None


def _times_values(times, n):
    """times= as (float64 engine column of the times in their unit, the
    unit's nanoseconds)."""
    from zambezi import _base

    if isinstance(times, str):
        raise InvalidValueError("ewm: times must be an array of datetimes, not a column name "
                                "(pandas 2 removed that form)")
    if isinstance(times, _base.series_class()):
        col = times._col
        dt = col.dtype
        if not dt.startswith("timestamp"):
            raise InvalidValueError(f"ewm: times must be datetime64 dtype, not {dt}")
        if col.null_count:
            raise InvalidValueError("ewm: times has missing values (NaT)")
        arr = _convert.values_numpy(col).view(np.int64)
        per = _dtypes.NS_PER[col.unit]
    else:
        if getattr(getattr(times, "dtype", None), "tz", None) is not None:
            # pandas' tz-aware times: their UTC instants
            times = times.dt.tz_convert(None) if hasattr(times, "dt") else \
                times.tz_convert(None)
        arr = np.asarray(getattr(times, "to_numpy", lambda: times)())
        if arr.dtype.kind != "M":
            raise InvalidValueError(f"ewm: times must be datetime64 dtype, not {arr.dtype}")
        if np.isnat(arr).any():
            raise InvalidValueError("ewm: times has missing values (NaT)")
        unit = np.datetime_data(arr.dtype)[0]
        if unit not in _dtypes.NS_PER:
            arr, unit = arr.astype("datetime64[ns]"), "ns"
        arr = arr.view(np.int64)
        per = _dtypes.NS_PER[unit]
    if len(arr) != n:
        raise InvalidValueError(f"ewm: times has {len(arr)} values for {n} rows; times must be "
                                "the same length as the object")
    return _core.column_from_buffer(np.ascontiguousarray(arr, dtype=np.float64)), per


def _float_column(col, what, op):
    dt = col.dtype
    if dt == "float64":
        return col
    if dt in _NUMERIC:
        return _core.cast(col, "float64")
    raise DTypeError(f"ewm {op}: {what} has dtype {dt}; only numbers and bools have "
                     "exponentially weighted statistics")


class ExponentialMovingWindow:
    """The exponentially weighted windows of a Series, DataFrame or
    GroupBy: what ``ewm(...)`` returns.  Each method gives one result per
    row, over the values up to it (of its group), weighted by their age.

    Examples
    --------
    >>> e = zb.Series([1.0, 2.0, None, 4.0]).ewm(com=1)
    >>> e
    ExponentialMovingWindow [com=1,min_periods=1,adjust=True,ignore_na=False,method=single]
    >>> e.mean().round(6).to_list()
    [1.0, 1.666667, 1.666667, 3.363636]
    """

    __slots__ = ("_obj", "_gb", "_com", "_min_periods", "_adjust", "_ignore_na", "_times",
                 "_hl", "_desc")

    def __init__(self, obj, gb, com, min_periods, adjust, ignore_na, times, hl, desc):
        self._obj = obj
        self._gb = gb
        self._com = com
        self._min_periods = min_periods
        self._adjust = adjust
        self._ignore_na = ignore_na
        self._times = times  # a float64 engine column, or None
        self._hl = hl        # the halflife in the times' unit
        self._desc = desc

    def __repr__(self):
        kind = "ExponentialMovingWindow" + ("GroupBy" if self._gb is not None else "")
        return (f"{kind} [{self._desc}min_periods={self._min_periods},adjust={self._adjust},"
                f"ignore_na={self._ignore_na},method=single]")

    # -- plumbing -------------------------------------------------------------
    def _call(self, table, op, bias, ids=None, ng=0, order=None):
        times = self._times if op == "mean" else None
        if times is not None and order is not None:  # the rows gathered by group
            times = _core.take(times, order)
        return _core.ewm(table, op, self._com, self._min_periods, self._adjust,
                         self._ignore_na, bias, ids, ng, times, self._hl)

    def _check(self, op):
        if self._times is not None and op != "mean":
            raise UnsupportedError(f"ewm {op} is not implemented with times (as pandas)")
        if op == "sum" and not self._adjust:
            raise UnsupportedError("ewm sum is not implemented with adjust=False (as pandas)")

    def _columns(self, op, numeric_only):
        """(names, float64 engine columns) of the values op works on."""
        gb = self._gb
        if gb is not None:
            t = gb._k.work
            names = gb._value_columns(None)
            cols = [t.column(t.names.index(nm)) for nm in names]
            label = gb._label if gb._obj._ndim == 2 else (lambda nm: None)
        else:
            obj = self._obj
            if obj._ndim == 1:
                return [None], [_float_column(obj._col, "the Series", op)]
            t = obj._table
            names, cols = list(t.names), [t.column(i) for i in range(t.num_columns)]
            label = lambda nm: nm  # noqa: E731
        if numeric_only:
            keep = [i for i, c in enumerate(cols) if c.dtype in _NUMERIC]
            names, cols = [names[i] for i in keep], [cols[i] for i in keep]
        what = (lambda nm: "the Series") if (gb is None and self._obj._ndim == 1) or \
            (gb is not None and gb._obj._ndim == 1) else (lambda nm: f"column {label(nm)!r}")
        return names, [_float_column(c, what(nm), op) for nm, c in zip(names, cols)]

    def _run(self, op, bias=False, numeric_only=False):
        self._check(op)
        names, cols = self._columns(op, numeric_only)
        keys = [f"c{i}" for i in range(len(cols))]
        table = _core.table_from_columns(cols, keys)
        return self._finish(op, names, table, bias)

    def _finish(self, op, names, table, bias):
        gb = self._gb
        if gb is None:
            res = self._call(table, op, bias)
            obj = self._obj
            if obj._ndim == 1:
                return obj._like(res.column(0))
            return obj._like(_core.table_from_columns(
                [res.column(i) for i in range(res.num_columns)], names))
        from zambezi import _base, _labels
        from zambezi._rolling import _group_layout

        ids, ng = gb._ids()
        # result rows: by group, then in row order; the values are gathered
        # into that order first, so the engine walks each group in place
        order, ids_sorted, index = _group_layout(gb)
        table = _core.table_from_columns([_core.take(table.column(i), order)
                                          for i in range(table.num_columns)], table.names)
        res = self._call(table, op, bias, ids_sorted, ng, order)
        out = [res.column(i) for i in range(res.num_columns)]
        obj = gb._obj
        if gb._single or obj._ndim == 1:
            return _base.series_class()._from_column(out[0], gb._label(names[0]), index)
        return _labels.frame_from(obj._constructor, out, [gb._label(nm) for nm in names], index)

    def _pairs(self, op, other, pairwise, numeric_only):
        """cov / corr: the columns paired with other's."""
        from zambezi import _align, _base

        self._check(op)
        if self._gb is not None:
            raise UnsupportedError(f"group-by ewm {op} is not supported")
        if pairwise:
            raise UnsupportedError(f"ewm {op}(pairwise=True) is not supported")
        obj = self._obj
        if other is None:
            if obj._ndim == 2:
                raise UnsupportedError(f"DataFrame ewm {op}() without other (the pairwise "
                                       "form) is not supported")
            other = obj
        series_cls = _base.series_class()
        if obj._ndim == 1:
            if not isinstance(other, series_cls):
                raise DTypeError(f"ewm {op}: other must be a zambezi Series, not "
                                 f"{type(other).__name__}")
            if not _align.same_labels(obj._index, other._index):
                raise UnsupportedError(f"ewm {op}: other must have the same row labels")
            x = _float_column(obj._col, "the Series", op)
            y = _float_column(other._col, "other", op)
            table = _core.table_from_columns([x, y], ["x", "y"])
            # pandas aligns x + 0 * y: the name survives when both agree
            name = obj._name if other._name == obj._name else None
            return obj._like(self._call(table, op, False).column(0), name)
        if getattr(other, "_ndim", None) != 2:
            raise UnsupportedError(f"DataFrame ewm {op}: other must be a DataFrame")
        if not _align.same_labels(obj._index, other._index):
            raise UnsupportedError(f"ewm {op}: other must have the same row labels")
        t, u = obj._table, other._table
        names = [nm for nm in t.names if nm in u.names]
        cols, kept = [], []
        for nm in names:
            a, b = t.column(t.names.index(nm)), u.column(u.names.index(nm))
            if numeric_only and (a.dtype not in _NUMERIC or b.dtype not in _NUMERIC):
                continue
            cols += [_float_column(a, f"column {nm!r}", op),
                     _float_column(b, f"other's column {nm!r}", op)]
            kept.append(nm)
        keys = [f"c{i}" for i in range(len(cols))]
        res = self._call(_core.table_from_columns(cols, keys), op, False)
        return obj._like(_core.table_from_columns(
            [res.column(i) for i in range(res.num_columns)], kept))

    # -- statistics -------------------------------------------------------------
    def mean(self, numeric_only=False, engine=None, engine_kwargs=None):
        """Exponentially weighted mean of the values up to each row.

        Examples
        --------
        >>> zb.Series([1.0, 2.0, 3.0]).ewm(alpha=0.5).mean().round(6).to_list()
        [1.0, 1.666667, 2.428571]
        >>> zb.Series([1.0, 2.0, 3.0]).ewm(alpha=0.5, adjust=False).mean().to_list()
        [1.0, 1.5, 2.25]
        """
        _check_engine(engine, engine_kwargs, "mean")
        return self._run("mean", numeric_only=numeric_only)

    def sum(self, numeric_only=False, engine=None, engine_kwargs=None):
        """Exponentially weighted sum: each earlier value weighted by
        (1 - alpha) per row of age.

        Examples
        --------
        >>> zb.Series([1.0, 2.0, 3.0]).ewm(alpha=0.5).sum().to_list()
        [1.0, 2.5, 4.25]
        """
        _check_engine(engine, engine_kwargs, "sum")
        return self._run("sum", numeric_only=numeric_only)

    def var(self, bias=False, numeric_only=False):
        """Exponentially weighted variance (bias-corrected unless
        ``bias=True``).

        Examples
        --------
        >>> zb.Series([1.0, 2.0, 4.0]).ewm(alpha=0.5).var().round(6).to_list()
        [None, 0.5, 2.5]
        """
        return self._run("var", bias=bool(bias), numeric_only=numeric_only)

    def std(self, bias=False, numeric_only=False):
        """Exponentially weighted standard deviation (see var).

        Examples
        --------
        >>> zb.Series([1.0, 2.0, 4.0]).ewm(alpha=0.5).std(bias=True).round(6).to_list()
        [0.0, 0.471405, 1.195229]
        """
        return self._run("std", bias=bool(bias), numeric_only=numeric_only)

    def cov(self, other=None, pairwise=None, bias=False, numeric_only=False):
        """Exponentially weighted covariance with ``other`` (a Series with
        the same row labels; a DataFrame's columns with other's columns of
        the same names).  Without other, a Series' own variance.

        Examples
        --------
        >>> a = zb.Series([1.0, 2.0, 3.0, 4.0])
        >>> b = zb.Series([10.0, 11.0, 13.0, 16.0])
        >>> a.ewm(alpha=0.2).cov(b).round(6).to_list()
        [None, 0.5, 1.52459, 3.408836]
        """
        e = _Biased(self) if bias else self
        return e._pairs("cov", other, pairwise, numeric_only)

    def corr(self, other=None, pairwise=None, numeric_only=False):
        """Exponentially weighted correlation with ``other`` (see cov).

        Examples
        --------
        >>> a = zb.Series([1.0, 2.0, 3.0, 4.0])
        >>> b = zb.Series([10.0, 11.0, 13.0, 16.0])
        >>> a.ewm(alpha=0.2).corr(b).round(6).to_list()
        [None, 1.0, 0.982821, 0.977802]
        """
        return self._pairs("corr", other, pairwise, numeric_only)


class _Biased(ExponentialMovingWindow):
    """An ExponentialMovingWindow whose engine calls set bias."""

    __slots__ = ()

    def __init__(self, e):
        super().__init__(e._obj, e._gb, e._com, e._min_periods, e._adjust, e._ignore_na,
                         e._times, e._hl, e._desc)

    def _call(self, table, op, bias, ids=None, ng=0, order=None):
        return super()._call(table, op, True, ids, ng, order)


def _check_engine(engine, engine_kwargs, op):
    if engine not in (None, "cython") or engine_kwargs is not None:
        raise UnsupportedError(f"ewm {op}(engine=...) is not supported: zambezi runs it in its "
                               "own engine")


def _ewm(obj, gb, com, span, halflife, alpha, min_periods, adjust, ignore_na, times, method):
    if method != "single":
        raise UnsupportedError(f"ewm(method={method!r}) is not supported ('single' only)")
    if min_periods is None:
        mp = 1
    else:
        if isinstance(min_periods, bool) or not isinstance(min_periods, numbers.Integral):
            raise DTypeError(f"ewm: min_periods must be an integer, not "
                             f"{type(min_periods).__name__}")
        mp = max(int(min_periods), 1)
    adjust, ignore_na = bool(adjust), bool(ignore_na)
    n = len(obj)
    tcol, hl = None, 1.0
    if times is not None:
        if not _is_span(halflife):
            raise InvalidValueError("ewm: with times, halflife must be a time span ('2D', "
                                    "a timedelta)")
        tcol, per = _times_values(times, n)
        hl_ns = _span_ns(halflife)
        if hl_ns <= 0:
            raise InvalidValueError(f"ewm: halflife must be > 0, not {halflife!r}")
        hl = hl_ns / per
        if any(v is not None for v in (com, span, alpha)):
            if not adjust:
                raise UnsupportedError("ewm: none of com, span or alpha can be given with "
                                       "times and adjust=False (as pandas)")
            c = _center_of_mass(com, span, None, alpha)
        else:
            c = 1.0
    else:
        if halflife is not None and _is_span(halflife):
            raise InvalidValueError("ewm: halflife can be a time span only with times=")
        c = _center_of_mass(com, span, halflife, alpha)
    if math.isinf(c):
        raise InvalidValueError("ewm: the decay gives an infinite center of mass")
    desc = "".join(f"{k}={v}," for k, v in (("com", com), ("span", span), ("halflife", halflife),
                                            ("alpha", alpha)) if v is not None)
    return ExponentialMovingWindow(obj, gb, c, mp, adjust, ignore_na, tcol, hl, desc)


class SeriesEWM:
    """ewm of zambezi.Series (a mixin)."""

    __slots__ = ()

    def ewm(self, com=None, span=None, halflife=None, alpha=None, min_periods=0, adjust=True,
            ignore_na=False, times=None, method="single"):
        """Exponentially weighted windows (see ExponentialMovingWindow and
        zambezi._ewm's notes): exactly one of ``com``, ``span``,
        ``halflife`` or ``alpha`` sets the decay; ``times=`` (datetimes)
        with a time-span ``halflife`` weights by elapsed time.

        Examples
        --------
        >>> s = zb.Series([1.0, None, 3.0], index=["a", "b", "c"])
        >>> s.ewm(span=3).mean()
        a      1
        b      1
        c    2.6
        dtype: float64
        >>> s.ewm(span=3, ignore_na=True).mean().to_list()
        [1.0, 1.0, 2.3333333333333335]
        >>> t = pd.to_datetime(["2024-01-01", "2024-01-02", "2024-01-04"])
        >>> zb.Series([1.0, 2.0, 3.0]).ewm(halflife="1D", times=t).mean().round(6).to_list()
        [1.0, 1.666667, 2.636364]
        """
        return _ewm(self, None, com, span, halflife, alpha, min_periods, adjust, ignore_na,
                    times, method)


class FrameEWM:
    """ewm of zambezi.DataFrame, column by column (a mixin)."""

    __slots__ = ()

    def ewm(self, com=None, span=None, halflife=None, alpha=None, min_periods=0, adjust=True,
            ignore_na=False, times=None, method="single"):
        """Exponentially weighted windows of each column (see Series.ewm);
        a non-numeric column raises DTypeError unless the statistic is
        asked with ``numeric_only=True``.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, 3], "b": [1.0, None, 5.0]})
        >>> df.ewm(alpha=0.5).mean().round(4).to_dict("list")
        {'a': [1.0, 1.6667, 2.4286], 'b': [1.0, 1.0, 4.2]}
        """
        return _ewm(self, None, com, span, halflife, alpha, min_periods, adjust, ignore_na,
                    times, method)


class GroupByEWM:
    """ewm of zambezi GroupBy (a mixin): each group is its own sequence;
    results are indexed by (key, original label)."""

    __slots__ = ()

    def ewm(self, com=None, span=None, halflife=None, alpha=None, min_periods=0, adjust=True,
            ignore_na=False, times=None, method="single"):
        """Exponentially weighted windows within each group, over the
        group's rows in row order (see Series.ewm).  The result has the
        selected columns (every non-key column without a selection), rows
        by group and then in row order, indexed by the keys and the
        original labels.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a", "b"], "v": [1.0, 2.0, 3.0, 4.0]})
        >>> df.groupby("k")["v"].ewm(alpha=0.5).mean().round(6)
        k
        a  0          1
        a  2    2.33333
        b  1          2
        b  3    3.33333
        Name: v, dtype: float64
        """
        return _ewm(self._obj, self, com, span, halflife, alpha, min_periods, adjust, ignore_na,
                    times, method)
