"""Moving-window statistics, as pandas 3 has them: ``rolling(window)`` and
``expanding()`` on Series, DataFrame and GroupBy (the ``SeriesRolling``,
``FrameRolling`` and ``GroupByRolling`` mixins), returning a ``Rolling``
or ``Expanding`` object whose count / sum / mean / min / max / var / std /
median / quantile / skew / kurt give the statistic of each row's window.

Each statistic of a column is one engine call (``_core.rolling``: the
window's state is updated as rows enter and leave it -- compensated sums,
Welford's moments, a monotonic deque for min / max, an order-statistics
tree for median / quantile -- with morsels of rows run in parallel, each
warming its window up first; per group, the rows of each group in row
order).  Nothing here loops over rows.

pandas' rules:

- A row's window is the ``window`` rows ending with it (``center=True``:
  around it); an expanding window is every row up to it.  A result needs
  ``min_periods`` non-missing values in the window (default: the window
  size; 1 for expanding); otherwise it is missing.  ``count`` counts the
  non-missing values and needs ``min_periods`` rows in the window, as
  pandas 3.
- Missing values (null, NaN) are left out of the window.
- Results are float64 (ints, bools and float32 are computed in float64);
  they keep the object's row labels and names.  A DataFrame's
  non-numeric columns raise DTypeError unless ``numeric_only=True``.
- Per group (``df.groupby(k)[c].rolling(w).mean()``): the windows stay
  inside each group; the result is indexed by (key, original label), rows
  by group (in the group-by's order), then in row order; rows whose key
  was dropped (``dropna=True``) are left out.

Differences from pandas:

- A missing result is null (``to_pandas()`` shows NaN, as pandas).
- skew and kurt update the window's central moments (Welford) instead of
  pandas' raw power sums: equal to within rounding (pandas' results are
  the less exact ones when values are large relative to their spread).
- Time-based windows (``"2D"``, ``on=``, ``closed=``), ``win_type``,
  ``step``, ``method="table"``, ``engine="numba"`` and ``apply`` are not
  supported (UnsupportedError).
"""

import numbers

from zambezi import _core
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

_NUMERIC = frozenset(["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                      "uint64", "float32", "float64"])
_INTERPOLATIONS = ("linear", "lower", "higher", "nearest", "midpoint")


def _float_column(col, what, op):
    """col as float64 (numbers and bools), else DTypeError naming what."""
    dt = col.dtype
    if dt == "float64":
        return col
    if dt in _NUMERIC:
        return _core.cast(col, "float64")
    raise DTypeError(f"rolling {op}: {what} has dtype {dt}; only numbers and bools have "
                     "moving-window statistics")


def _check_window(window):
    if isinstance(window, str) or hasattr(window, "total_seconds"):
        raise UnsupportedError("rolling: time-based windows (a frequency such as '2D') are "
                               "not supported; give the window as a number of rows")
    if isinstance(window, bool) or not isinstance(window, numbers.Integral):
        raise DTypeError(f"rolling: window must be an integer, not {type(window).__name__}")
    if window < 0:
        raise InvalidValueError(f"rolling: window must be an integer 0 or greater, not {window}")
    return int(window)


def _check_min_periods(min_periods, window, what):
    if min_periods is None:
        return None
    if isinstance(min_periods, bool) or not isinstance(min_periods, numbers.Integral):
        raise DTypeError(f"{what}: min_periods must be an integer, not "
                         f"{type(min_periods).__name__}")
    if min_periods < 0:
        raise InvalidValueError(f"{what}: min_periods must be >= 0, not {min_periods}")
    if window is not None and min_periods > window:
        raise InvalidValueError(f"{what}: min_periods {min_periods} must be <= window {window}")
    return int(min_periods)


def _check_unsupported(win_type=None, on=None, closed=None, step=None, method="single"):
    if win_type is not None:
        raise UnsupportedError("rolling(win_type=...) (weighted windows) is not supported")
    if on is not None:
        raise UnsupportedError("rolling(on=...) (time-based windows) is not supported")
    if closed is not None:
        raise UnsupportedError("rolling(closed=...) is not supported: count windows are "
                               "closed on the right, as pandas' default")
    if step is not None:
        raise UnsupportedError("rolling(step=...) is not supported")
    if method != "single":
        raise UnsupportedError(f"rolling(method={method!r}) is not supported ('single' only)")


def _check_engine(engine, engine_kwargs, op):
    if engine not in (None, "cython") or engine_kwargs is not None:
        raise UnsupportedError(f"{op}(engine=...) is not supported: zambezi runs the window "
                               "in its own engine")


class Rolling:
    """The moving windows of a Series, DataFrame or GroupBy: what
    ``rolling(window)`` returns.  Each method gives one statistic per row,
    over the ``window`` rows ending with it (``center=True``: around it),
    missing where the window has fewer than ``min_periods`` values.

    Examples
    --------
    >>> r = zb.Series([1.0, 2.0, None, 4.0, 5.0]).rolling(2, min_periods=1)
    >>> r
    Rolling [window=2,min_periods=1,center=False,method=single]
    >>> r.sum().to_list()
    [1.0, 3.0, 2.0, 4.0, 9.0]
    """

    __slots__ = ("_obj", "_gb", "_window", "_min_periods", "_center")
    _kind = "Rolling"

    def __init__(self, obj, window, min_periods=None, center=False, gb=None):
        self._obj = obj
        self._gb = gb
        self._window = window
        self._min_periods = min_periods
        self._center = bool(center)

    def __repr__(self):
        mp = "" if self._min_periods is None else f",min_periods={self._min_periods}"
        kind = self._kind if self._gb is None else self._kind + "GroupBy"
        return f"{kind} [window={self._window}{mp},center={self._center},method=single]"

    # -- plumbing -------------------------------------------------------------
    def _window_for(self, n):
        return self._window

    def _run(self, op, ddof=1, q=0.5, interpolation="linear", numeric_only=False):
        """op of every value column as the user's result."""
        mp = self._min_periods
        if mp is None:
            mp = self._window
        gb = self._gb
        if gb is not None:
            return self._run_groups(op, mp, ddof, q, interpolation, numeric_only)
        obj = self._obj
        n = len(obj)
        w = self._window_for(n)

        def one(col, what):
            return _core.rolling(_float_column(col, what, op), op, w, mp, self._center, ddof,
                                 q, interpolation, None, 0)

        if obj._ndim == 1:
            return obj._like(one(obj._col, "the Series"))
        t = obj._table
        names, cols = [], []
        for i, nm in enumerate(t.names):
            c = t.column(i)
            if numeric_only and c.dtype not in _NUMERIC:
                continue
            names.append(nm)
            cols.append(one(c, f"column {nm!r}"))
        return obj._like(_core.table_from_columns(cols, names))

    def _run_groups(self, op, mp, ddof, q, interpolation, numeric_only):
        from zambezi import _base
        from zambezi import index as _ix

        gb = self._gb
        t = gb._k.work
        names = gb._value_columns(None)
        cols = [t.column(t.names.index(nm)) for nm in names]
        if numeric_only:
            keep = [i for i, c in enumerate(cols) if c.dtype in _NUMERIC]
            names, cols = [names[i] for i in keep], [cols[i] for i in keep]
        ids, ng = gb._ids()
        n = ids.length
        w = self._window_for(n)
        # result rows: by group, then in row order (a stable sort of the
        # ids; rows of a dropped key, null ids, sort last and are cut)
        order = _core.sort_indices(ids, True, False)
        kept = n - ids.null_count
        if kept < n:
            order = order.slice(0, kept)
        out = []
        for nm, c in zip(names, cols):
            what = f"column {gb._label(nm)!r}" if gb._obj._ndim == 2 else "the Series"
            res = _core.rolling(_float_column(c, what, op), op, w, mp, self._center, ddof, q,
                                interpolation, ids, ng)
            out.append(_core.take(res, order))
        kcols = [_core.take(t.column(i), order) for i in gb._key_idx()]
        obj = gb._obj
        ocols = [_core.take(c, order) for c in obj._index._levels()]
        index = _ix.Index._from_columns(kcols + ocols,
                                        list(gb._k.labels) + list(obj._index.names))
        if gb._single or obj._ndim == 1:
            return _base.series_class()._from_column(out[0], gb._label(names[0]), index)
        from zambezi import _labels

        frame_cls = obj._constructor
        return _labels.frame_from(frame_cls, out, [gb._label(nm) for nm in names], index)

    # -- statistics -------------------------------------------------------------
    def count(self, numeric_only=False):
        """Non-missing values in each window (missing where the window has
        fewer than min_periods rows, as pandas 3).

        Examples
        --------
        >>> zb.Series([1.0, None, 3.0, 4.0]).rolling(2).count().to_list()
        [None, 1.0, 1.0, 2.0]
        """
        return self._run("count", numeric_only=numeric_only)

    def sum(self, numeric_only=False, engine=None, engine_kwargs=None):
        """Sum of each window (compensated: a value leaving the window
        leaves no rounding behind).

        Examples
        --------
        >>> zb.Series([1, 2, 3, 4]).rolling(2).sum()
        0    NaN
        1      3
        2      5
        3      7
        dtype: float64
        """
        _check_engine(engine, engine_kwargs, "sum")
        return self._run("sum", numeric_only=numeric_only)

    def mean(self, numeric_only=False, engine=None, engine_kwargs=None):
        """Mean of each window.

        Examples
        --------
        >>> zb.Series([1.0, 2.0, None, 6.0]).rolling(3, min_periods=2).mean().to_list()
        [None, 1.5, 1.5, 4.0]
        """
        _check_engine(engine, engine_kwargs, "mean")
        return self._run("mean", numeric_only=numeric_only)

    def min(self, numeric_only=False, engine=None, engine_kwargs=None):
        """Smallest value of each window.

        Examples
        --------
        >>> zb.Series([3, 1, 4, 1, 5]).rolling(3).min().to_list()
        [None, None, 1.0, 1.0, 1.0]
        """
        _check_engine(engine, engine_kwargs, "min")
        return self._run("min", numeric_only=numeric_only)

    def max(self, numeric_only=False, engine=None, engine_kwargs=None):
        """Largest value of each window.

        Examples
        --------
        >>> zb.Series([3, 1, 4, 1, 5]).rolling(3).max().to_list()
        [None, None, 4.0, 4.0, 5.0]
        """
        _check_engine(engine, engine_kwargs, "max")
        return self._run("max", numeric_only=numeric_only)

    def var(self, ddof=1, numeric_only=False, engine=None, engine_kwargs=None):
        """Variance of each window (divisor: values - ddof; missing
        unless the window has more than ddof values).

        Examples
        --------
        >>> zb.Series([1.0, 2.0, 4.0, 8.0]).rolling(2).var().to_list()
        [None, 0.5, 2.0, 8.0]
        """
        _check_engine(engine, engine_kwargs, "var")
        return self._run("var", ddof=_check_ddof(ddof), numeric_only=numeric_only)

    def std(self, ddof=1, numeric_only=False, engine=None, engine_kwargs=None):
        """Standard deviation of each window (see var).

        Examples
        --------
        >>> zb.Series([1.0, 3.0, 5.0, 9.0]).rolling(2).std().to_list()
        [None, 1.4142135623730951, 1.4142135623730951, 2.8284271247461903]
        """
        _check_engine(engine, engine_kwargs, "std")
        return self._run("std", ddof=_check_ddof(ddof), numeric_only=numeric_only)

    def median(self, numeric_only=False, engine=None, engine_kwargs=None):
        """Median of each window.

        Examples
        --------
        >>> zb.Series([5.0, 1.0, 4.0, 2.0, 3.0]).rolling(3).median().to_list()
        [None, None, 4.0, 2.0, 3.0]
        """
        _check_engine(engine, engine_kwargs, "median")
        return self._run("median", numeric_only=numeric_only)

    def quantile(self, q, interpolation="linear", numeric_only=False):
        """The q-th quantile of each window (0 <= q <= 1), between two
        values as ``interpolation`` says: "linear", "lower", "higher",
        "nearest" or "midpoint" (numpy's and pandas' meanings).

        Examples
        --------
        >>> s = zb.Series([1.0, 2.0, 3.0, 4.0])
        >>> s.rolling(3).quantile(0.25).to_list()
        [None, None, 1.5, 2.5]
        >>> s.rolling(3).quantile(0.25, interpolation="higher").to_list()
        [None, None, 2.0, 3.0]
        """
        if isinstance(q, bool) or not isinstance(q, numbers.Real):
            raise DTypeError(f"quantile: q must be a number, not {type(q).__name__}")
        if not 0 <= q <= 1:
            raise InvalidValueError(f"quantile: q must be between 0 and 1, not {q}")
        if interpolation not in _INTERPOLATIONS:
            raise InvalidValueError(f"quantile: interpolation must be one of {_INTERPOLATIONS}, "
                                    f"not {interpolation!r}")
        return self._run("quantile", q=float(q), interpolation=interpolation,
                         numeric_only=numeric_only)

    def skew(self, numeric_only=False):
        """Sample skewness of each window (bias-corrected, as pandas;
        needs 3 values, missing when the window's values are all equal).

        Examples
        --------
        >>> zb.Series([1.0, 2.0, 10.0, 3.0]).rolling(3).skew().round(6).to_list()
        [None, None, 1.652317, 1.630059]
        """
        return self._run("skew", numeric_only=numeric_only)

    def kurt(self, numeric_only=False):
        """Sample excess kurtosis of each window (Fisher's, bias-corrected,
        as pandas; needs 4 values).

        Examples
        --------
        >>> zb.Series([1.0, 2.0, 10.0, 3.0, 4.0]).rolling(4).kurt().round(6).to_list()
        [None, None, None, 3.228, 3.01436]
        """
        return self._run("kurt", numeric_only=numeric_only)


class Expanding(Rolling):
    """Expanding windows: each row's window is every row up to it (what
    ``expanding()`` returns); the statistics are Rolling's, a result
    needing min_periods values (default 1).

    Examples
    --------
    >>> e = zb.Series([1.0, None, 3.0]).expanding()
    >>> e
    Expanding [min_periods=1,method=single]
    >>> e.sum().to_list()
    [1.0, 1.0, 4.0]
    """

    __slots__ = ()
    _kind = "Expanding"

    def __repr__(self):
        kind = self._kind if self._gb is None else self._kind + "GroupBy"
        return f"{kind} [min_periods={self._min_periods},method=single]"

    def _window_for(self, n):
        return max(n, self._min_periods, 1)


def _check_ddof(ddof):
    if isinstance(ddof, bool) or not isinstance(ddof, numbers.Integral):
        raise DTypeError(f"ddof must be an integer, not {type(ddof).__name__}")
    if ddof < 0:
        raise InvalidValueError(f"ddof must be >= 0, not {ddof}")
    return int(ddof)


def _rolling(obj, gb, window, min_periods, center, win_type, on, closed, step, method):
    _check_unsupported(win_type, on, closed, step, method)
    window = _check_window(window)
    min_periods = _check_min_periods(min_periods, window, "rolling")
    return Rolling(obj, window, min_periods, center, gb)


def _expanding(obj, gb, min_periods, method):
    _check_unsupported(method=method)
    min_periods = _check_min_periods(min_periods, None, "expanding")
    return Expanding(obj, None, 1 if min_periods is None else min_periods, False, gb)


class SeriesRolling:
    """rolling / expanding of zambezi.Series (a mixin)."""

    __slots__ = ()

    def rolling(self, window, min_periods=None, center=False, win_type=None, on=None,
                closed=None, step=None, method="single"):
        """Moving windows of ``window`` rows (see Rolling): each row's
        window ends with it (``center=True``: is around it); a result
        needs ``min_periods`` non-missing values (default: window).
        Time-based windows are not supported.

        Examples
        --------
        >>> s = zb.Series([1.0, 2.0, 3.0, 4.0], index=["a", "b", "c", "d"])
        >>> s.rolling(2).mean()
        a    NaN
        b    1.5
        c    2.5
        d    3.5
        dtype: float64
        >>> s.rolling(3, center=True, min_periods=1).max().to_list()
        [2.0, 3.0, 4.0, 4.0]
        """
        return _rolling(self, None, window, min_periods, center, win_type, on, closed, step,
                        method)

    def expanding(self, min_periods=1, method="single"):
        """Expanding windows: each row's window is every row up to it (see
        Expanding).

        Examples
        --------
        >>> zb.Series([3.0, 1.0, 2.0]).expanding().min().to_list()
        [3.0, 1.0, 1.0]
        """
        return _expanding(self, None, min_periods, method)


class FrameRolling:
    """rolling / expanding of zambezi.DataFrame, column by column (a
    mixin)."""

    __slots__ = ()

    def rolling(self, window, min_periods=None, center=False, win_type=None, on=None,
                closed=None, step=None, method="single"):
        """Moving windows of each column (see Series.rolling); a
        non-numeric column raises DTypeError unless the statistic is
        asked with ``numeric_only=True``.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, 3], "b": [1.0, None, 5.0]})
        >>> df.rolling(2, min_periods=1).sum()
                 a        b
           float64  float64
        0        1        1
        1        3        1
        2        5        5
        <BLANKLINE>
        [3 rows x 2 columns]
        """
        return _rolling(self, None, window, min_periods, center, win_type, on, closed, step,
                        method)

    def expanding(self, min_periods=1, method="single"):
        """Expanding windows of each column (see Series.expanding).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2, 3]}).expanding().mean()["a"].to_list()
        [1.0, 1.5, 2.0]
        """
        return _expanding(self, None, min_periods, method)


class GroupByRolling:
    """rolling / expanding of zambezi GroupBy (a mixin): the windows stay
    inside each group; results are indexed by (key, original label)."""

    __slots__ = ()

    def rolling(self, window, min_periods=None, center=False, win_type=None, on=None,
                closed=None, step=None, method="single"):
        """Moving windows within each group, over the group's rows in row
        order (see Series.rolling).  The result has the selected columns
        (every non-key column without a selection), rows by group and then
        in row order, indexed by the keys and the original labels.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a", "b", "a"], "v": [1.0, 2.0, 3.0, 4.0, 5.0]})
        >>> df.groupby("k")["v"].rolling(2).sum()
        k
        a  0    NaN
        a  2      4
        a  4      8
        b  1    NaN
        b  3      6
        Name: v, dtype: float64
        """
        return _rolling(self._obj, self, window, min_periods, center, win_type, on, closed,
                        step, method)

    def expanding(self, min_periods=1, method="single"):
        """Expanding windows within each group (see rolling).

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a", "b"], "v": [1.0, 2.0, 3.0, 4.0]})
        >>> df.groupby("k")["v"].expanding().sum().to_list()
        [1.0, 4.0, 2.0, 6.0]
        """
        return _expanding(self._obj, self, min_periods, method)
