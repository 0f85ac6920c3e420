"""Moving-window statistics, as pandas 3 has them: ``rolling(window)`` and
``expanding()`` on Series, DataFrame and GroupBy (the ``SeriesRolling``,
``FrameRolling`` and ``GroupByRolling`` mixins), returning a ``Rolling``
or ``Expanding`` object whose count / sum / mean / min / max / var / std /
median / quantile / skew / kurt give the statistic of each row's window.

Each statistic of a column is one engine call (``_core.rolling``: the
window's state is updated as rows enter and leave it -- compensated sums,
Welford's moments, a monotonic deque for min / max, a sorted buffer or an
order-statistics tree for median / quantile -- with morsels of rows run in parallel, each
warming its window up first; per group, the rows of each group in row
order: they are first gathered into the result's order -- by group, then
row order, one stable sort of the group ids -- so the engine walks each
group as consecutive rows).  Nothing here loops over rows.

pandas' rules:

- A row's window is the ``window`` rows ending with it (``center=True``:
  around it); an expanding window is every row up to it.  A result needs
  ``min_periods`` non-missing values in the window (default: the window
  size; 1 for expanding); otherwise it is missing.  ``count`` counts the
  non-missing values and needs ``min_periods`` rows in the window, as
  pandas 3.
- A time-based window (``rolling("2D")``, a fixed span: days, hours,
  minutes, seconds ... or a timedelta) holds the rows whose time is within
  the span before the row's time -- ``closed="right"`` (the default):
  (t - span, t]; "left": [t - span, t); "both"; "neither" -- over the
  times of the index, or of column ``on`` of a frame (which stays as it
  is in the result), monotonic, with no missing time; ``min_periods``
  defaults to 1.  ``center=True`` takes (t - span/2, t + span/2].
- Missing values (null, NaN) are left out of the window, and so is +-inf
  in every statistic but ``count`` (pandas' window functions see it as
  NaN; ``apply`` passes it as NaN).
- Results are float64 (ints, bools and float32 are computed in float64);
  they keep the object's row labels and names.  A DataFrame's
  non-numeric columns raise DTypeError unless ``numeric_only=True``.
- Per group (``df.groupby(k)[c].rolling(w).mean()``): the windows stay
  inside each group; the result is indexed by (key, original label), rows
  by group (in the group-by's order), then in row order; rows whose key
  was dropped (``dropna=True``) are left out.

Differences from pandas:

- A missing result is null (``to_pandas()`` shows NaN, as pandas).
- skew and kurt update the window's central moments (Welford) as pandas 3
  does, and rebuild them from the window's values each time the window has
  turned over as well as when a removal cancels most digits (pandas: only
  then): equal to pandas within rounding.
- ``apply(func)`` calls func per window in Python (slow), or compiled by
  Numba over every core with ``engine="numba", raw=True``; not per group.
- ``win_type``, ``step``, ``method="table"`` and ``engine="numba"`` for the
  built-in statistics are not supported (UnsupportedError), nor are
  ``closed`` for windows of rows, calendar frequencies ("W", "M"), and
  time-based windows per group.
"""

import datetime
import numbers
import re

import numpy as np

from zambezi import _convert, _core, _dtypes
from zambezi._rolling_pairs import RollingPairs
from zambezi._dtypes import NUMERIC as _NUMERIC
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

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


_UNIT_NS = {"D": 86_400 * 10**9, "d": 86_400 * 10**9, "days": 86_400 * 10**9,
            "h": 3600 * 10**9, "hours": 3600 * 10**9, "min": 60 * 10**9,
            "minutes": 60 * 10**9, "s": 10**9, "seconds": 10**9, "ms": 10**6, "us": 10**3,
            "ns": 1}
_FREQ = re.compile(r"^\s*(\d+)?\s*([A-Za-z]+)\s*$")


def _offset_ns(window):
    """A fixed time span (a frequency string such as "2D", "90min", "5s", a
    datetime.timedelta, numpy / pandas timedelta) in nanoseconds."""
    if isinstance(window, str):
        m = _FREQ.match(window)
        if m is None or m.group(2) not in _UNIT_NS:
            raise InvalidValueError(
                f"rolling: window {window!r} is not a fixed frequency; use a number of "
                f"{sorted(_UNIT_NS)} ('2D', '90min', '5s' ...)")
        return int(m.group(1) or 1) * _UNIT_NS[m.group(2)]
    if isinstance(window, np.timedelta64):
        return int(window.astype("timedelta64[ns]").astype(np.int64))
    value = getattr(window, "value", None)  # pandas' Timedelta: nanoseconds
    if isinstance(value, numbers.Integral):
        return int(value)
    return (window.days * 86_400 + window.seconds) * 10**9 + window.microseconds * 1000


def _check_window(window):
    """A number of rows (int), or a time span (str, a timedelta): the
    window, and its span in nanoseconds (None for a number of rows)."""
    if isinstance(window, (str, datetime.timedelta, np.timedelta64)):
        ns = _offset_ns(window)
        if ns < 0:
            raise InvalidValueError(f"rolling: window must be non-negative, not {window!r}")
        return window, ns
    if isinstance(window, bool) or not isinstance(window, numbers.Integral):
        raise DTypeError(f"rolling: window must be an integer, not {type(window).__name__}")
    if window < 0:
        raise InvalidValueError(f"rolling: window must be an integer 0 or greater, not {window}")
    return int(window), None


def _time_bounds(col, what, span, closed, center):
    """(starts, ends) engine columns of each row's time window over the
    times of col (timestamps or dates, monotonic): pandas' closed rules
    found by binary search."""
    if col.dtype == "date32":
        per = 86_400 * 10**9
    elif col.dtype.startswith("timestamp"):
        per = _dtypes.NS_PER[col.unit]
    else:
        raise DTypeError(f"rolling: a time-based window needs {what} of timestamps or dates, "
                         f"not {col.dtype}")
    if col.null_count:
        raise InvalidValueError(f"rolling: {what} has missing times (NaT)")
    t = _convert.values_numpy(col).astype(np.int64) * per
    d = np.diff(t)
    if not (d >= 0).all():
        if not (d <= 0).all():
            raise InvalidValueError(f"rolling: {what} must be monotonic for a time-based window")
        t = -t  # decreasing: a row's window is the later times after it, as pandas
    n = len(t)
    if center:
        half = span // 2
        return t.searchsorted(t - half, "right"), t.searchsorted(t + half, "right")
    closed = closed or "right"
    starts = t.searchsorted(t - span, "left" if closed in ("left", "both") else "right")
    # pandas looks for a row's start among the rows up to it: a window of
    # 0 still holds the row itself when closed on the right
    starts = np.minimum(starts, np.arange(n, dtype=np.int64))
    if closed in ("right", "both"):
        ends = np.arange(1, n + 1, dtype=np.int64)
    else:
        ends = t.searchsorted(t, "left")
    return np.minimum(starts, ends), ends


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


def _check_unsupported(win_type=None, step=None, method="single"):
    if win_type is not None:
        raise UnsupportedError("rolling(win_type=...) (weighted windows) is not supported")
    if step is not None:
        raise UnsupportedError("rolling(step=...) is not supported")
    if method != "single":
        raise UnsupportedError(f"rolling(method={method!r}) is not supported ('single' only)")


def _check_engine(engine, engine_kwargs, op):
    if engine not in (None, "cython") or engine_kwargs is not None:
        raise UnsupportedError(f"{op}(engine=...) is not supported: zambezi runs the window "
                               "in its own engine")


def _group_layout(gb):
    """The rows of a grouped window result, in pandas' order (by group, then
    in row order; rows of a dropped key left out): ``(order, ids, index)``
    -- the positions of those rows (a stable counting sort of the group
    ids), their group ids in that order (non-decreasing: the engine's
    window kernels then walk each group as a run of consecutive rows,
    reading and writing in place), and the result's (key, original label)
    index."""
    from zambezi import index as _ix

    ids, ng = gb._ids()
    n = ids.length
    kept = n - ids.null_count
    if ids.device == "cpu":
        # one counting sort gives the order and the ids in it (no gather)
        order, ids_sorted = _core.group_order(ids, ng)
    else:
        order = _core.sort_indices(ids, True, False)
        if kept < n:
            order = order.slice(0, kept)
        ids_sorted = _core.take(ids, order)
    t = gb._k.work
    g = gb._k.groupings.get((gb._dropna, gb._sort))
    if g is not None and g.ids is ids and ids.device == "cpu":
        # a group's key is its grouping's key: a gather from one value per
        # group, by ids that only grow (no random reads of the rows)
        kcols = [_core.take(k, ids_sorted) for k in g.keys]
    else:
        kcols = [_core.take(t.column(i), order) for i in gb._key_idx()]
    obj = gb._obj
    oix = obj._index
    if isinstance(oix, _ix.RangeIndex) and oix._range.start == 0 and oix._range.step == 1:
        ocols = [order]  # the labels are the positions
    else:
        ocols = [_core.take(c, order) for c in oix._levels()]
    names = list(gb._k.labels) + list(oix.names)
    if not gb._dropna or kept == n or len(kcols) == 1:
        # every key is in the result's rows: pandas' own key levels, a
        # missing key (dropna=False) one of them
        index = _ix.Index._of_group_keys(kcols + ocols, names, len(kcols), gb._sort)
    else:
        index = _ix.Index._from_columns(kcols + ocols, names)
    return order, ids_sorted, index


def _keys_as_columns(gb, out, labels, index):
    """A grouped rolling result with ``as_index=False``: a frame whose first
    columns are the keys and then the value columns, indexed by the
    original labels (pandas' rolling groupby resets the key levels of its
    (key, label) index; its expanding and ewm keep them)."""
    from zambezi import _labels
    from zambezi import index as _ix

    nk = len(gb._k.keys)
    levels, lnames = index._levels(), index._names
    klabels = [f"level_{i}" if nm is None else nm for i, nm in enumerate(lnames[:nk])]
    rest = _ix.Index._from_columns(levels[nk:], lnames[nk:])
    return _labels.frame_from(gb._obj._constructor, levels[:nk] + out, klabels + labels, rest)


_AGG_NAMES = frozenset(["count", "sum", "mean", "min", "max", "var", "std", "median",
                        "quantile", "skew", "kurt", "cov", "corr"])


def _finite(col):
    """Whether column col holds no missing value and no +-inf."""
    if col.null_count:
        return False
    if col.dtype not in ("float32", "float64"):
        return True
    return bool(np.isfinite(_convert.values_numpy(col)).all())


def _func_name(func):
    """The column label pandas gives a function's result."""
    return func if isinstance(func, str) else getattr(func, "__name__", str(func))



class _OneColumn:
    """A window with ``on=`` over one selected column, ``df.rolling("2h",
    on="t")["x"]``: the window of the frame of x and t, whose results give
    column x (a Series, as pandas)."""

    __slots__ = ("_window", "_key")

    def __init__(self, window, key):
        self._window, self._key = window, key

    def __getattr__(self, name):
        attr = getattr(self._window, name)
        if not callable(attr):
            return attr

        def call(*args, **kwargs):
            out = attr(*args, **kwargs)
            return out[self._key] if getattr(out, "_ndim", 1) == 2 else out
        return call

    def __repr__(self):
        return f"{self._window!r}[{self._key!r}]"

class Rolling(RollingPairs):
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

    __slots__ = ("_obj", "_gb", "_window", "_min_periods", "_center", "_span", "_on",
                 "_closed")
    _kind = "Rolling"

    def __init__(self, obj, window, min_periods=None, center=False, gb=None, span=None,
                 on=None, closed=None):
        self._obj = obj
        self._gb = gb
        self._window = window
        self._min_periods = min_periods
        self._center = bool(center)
        self._span = span  # a time window's span in nanoseconds
        self._on = on
        self._closed = closed

    def __repr__(self):
        mp = "" if self._min_periods is None else f",min_periods={self._min_periods}"
        kind = self._kind if self._gb is None else self._kind + "GroupBy"
        extra = "".join(f",{k}={v}" for k, v in (("on", self._on), ("closed", self._closed))
                        if v is not None)
        return (f"{kind} [window={self._window}{mp},center={self._center}{extra},"
                "method=single]")

    # -- plumbing -------------------------------------------------------------
    def _window_for(self, n):
        return self._window

    def _times(self):
        """The time column of a time-based window, and how to name it."""
        obj = self._obj
        if self._on is not None:
            t = obj._table
            if self._on not in t.names:
                raise InvalidValueError(f"rolling: on={self._on!r} is not a column; the "
                                        f"columns are {t.names!r}")
            return t.column(t.names.index(self._on)), f"column {self._on!r}"
        index = obj._index
        if index.nlevels != 1:
            raise InvalidValueError("rolling: a time-based window needs a one-level index of "
                                    "times (or on= a column)")
        return index._levels()[0], "the index"

    def _window_args(self):
        """(window, min_periods, center, bounds) of the engine's rolling
        call over the object's rows: bounds None, or (starts, ends) of
        time-based windows."""
        mp = self._min_periods
        if mp is None:
            mp = self._window
        n = len(self._obj)
        w, ids, center = self._window_for(n), None, self._center
        if self._span is not None:
            tcol, what = self._times()
            starts, ends = _time_bounds(tcol, what, self._span, self._closed, center)
            w = max(int((ends - starts).max()) if n else 0, mp)
            dev = tcol.device
            ids = (_core.column_from_buffer(starts.astype(np.int64)).to_device(dev),
                   _core.column_from_buffer(ends.astype(np.int64)).to_device(dev))
            center = False
        return w, mp, center, ids

    def _run(self, op, ddof=1, q=0.5, interpolation="linear", numeric_only=False):
        """op of every value column as the user's result."""
        mp = self._min_periods
        if mp is None:
            mp = self._window
        gb = self._gb
        if gb is not None:
            return self._run_groups(op, mp, ddof, q, interpolation, numeric_only)
        obj = self._obj
        w, mp, center, ids = self._window_args()

        def one(col, what):
            return _core.rolling(_float_column(col, what, op), op, w, mp, center, ddof, q,
                                 interpolation, ids, 0)

        if obj._ndim == 1:
            return obj._like(one(obj._col, "the Series"))
        t = obj._table
        names, cols = [], []
        for i, nm in enumerate(t.names):
            c = t.column(i)
            if nm == self._on:
                pass  # the time column stays as it is, as pandas
            elif numeric_only and c.dtype not in _NUMERIC:
                continue
            else:
                c = one(c, f"column {nm!r}")
            names.append(nm)
            cols.append(c)
        return obj._like(_core.table_from_columns(cols, names))

    def _run_groups(self, op, mp, ddof, q, interpolation, numeric_only):
        from zambezi import _base

        gb = self._gb
        t = gb._k.work
        names = gb._value_columns(None)
        cols = [t.column(t.names.index(nm)) for nm in names]
        if numeric_only:
            keep = [i for i, c in enumerate(cols) if c.dtype in _NUMERIC]
            names, cols = [names[i] for i in keep], [cols[i] for i in keep]
        ids, ng = gb._ids()
        w = self._window_for(ids.length)
        # result rows: by group, then in row order; the values are gathered
        # into that order first, so the engine walks each group in place
        order, ids_sorted, index = _group_layout(gb)
        out = []
        for nm, c in zip(names, cols):
            what = f"column {gb._label(nm)!r}" if gb._obj._ndim == 2 else "the Series"
            c = _core.take(_float_column(c, what, op), order)
            out.append(_core.rolling(c, op, w, mp, self._center, ddof, q, interpolation,
                                     ids_sorted, ng))
        obj = gb._obj
        labels = [gb._label(nm) for nm in names]
        if not gb._as_index and self._kind == "Rolling":
            return _keys_as_columns(gb, out, labels, index)
        if gb._single or obj._ndim == 1:
            return _base.series_class()._from_column(out[0], labels[0], index)
        from zambezi import _labels

        frame_cls = obj._constructor
        return _labels.frame_from(frame_cls, out, labels, index)

    # -- column selection and aggregate ------------------------------------------
    def _with(self, obj):
        """This window over another object (some of the columns)."""
        out = object.__new__(type(self))
        for cls in type(self).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                if hasattr(self, slot):
                    setattr(out, slot, getattr(self, slot))
        out._obj = obj
        return out

    def __getitem__(self, key):
        """The same windows over one column (a Series window) or a list of
        columns of the frame, as ``df.rolling(3)["a"].mean()``."""
        obj = self._obj
        if obj._ndim == 1:
            raise InvalidValueError(f"{self._kind.lower()}: a Series' window has no columns "
                                    f"to select ({key!r})")
        if self._gb is not None:
            raise UnsupportedError("selecting columns of a group-by window is not supported; "
                                   "select them first: groupby(k)[cols].rolling(...)")
        if self._on is not None:  # the on column goes along (after the selection)
            cols = list(key) if isinstance(key, list) else [key]
            sub = self._with(obj[cols + ([self._on] if self._on not in cols else [])])
            return sub if isinstance(key, list) else _OneColumn(sub, key)
        return self._with(obj[key])

    def _stat(self, func, args, kwargs):
        """One statistic named by func (a str), or a function of each
        window (apply with raw=False, as pandas' aggregate)."""
        if isinstance(func, str):
            if func not in _AGG_NAMES:
                raise AttributeError(f"'{func}' is not a valid function for "
                                     f"'{self._kind}' object")
            return getattr(self, func)(*args, **kwargs)
        if func in (max, min) and not (args or kwargs):
            # Python's max / min of each window: the engine's where no value
            # is missing (pandas passes NaN, on which their answers depend
            # on its place in the window)
            obj = self._obj
            t = None if obj._ndim == 1 else obj._table
            cols = [obj._col] if t is None else \
                [t.column(i) for i, nm in enumerate(t.names) if nm != self._on]
            if any(not _finite(c) for c in cols):
                raise UnsupportedError(
                    f"Python's {func.__name__} of windows with missing values (pandas passes "
                    "them as NaN, which Python's max / min do not skip); pass "
                    f"{func.__name__!r} to skip them")
            return getattr(self, func.__name__)()
        if callable(func):
            return self.apply(func, raw=False, args=args, kwargs=kwargs)
        raise DTypeError(f"{self._kind.lower()}.aggregate: expected a name or a function, not "
                         f"{type(func).__name__}")

    def aggregate(self, func=None, *args, **kwargs):
        """The windows aggregated by func, as pandas: a name (``"mean"``), a
        function of each window (called once per row with its values as a
        Series, as ``apply(func, raw=False)``: slow), a list of those (one
        column each; a frame's columns become (column, function)), or a
        dict of column -> name(s) / function(s).

        Examples
        --------
        >>> s = zb.Series([1.0, 2.0, 4.0, 8.0])
        >>> s.rolling(2).agg(["sum", "max"]).to_dict("list")
        {'sum': [None, 3.0, 6.0, 12.0], 'max': [None, 2.0, 4.0, 8.0]}
        >>> df = zb.DataFrame({"a": [1.0, 2.0, 3.0], "b": [4.0, 6.0, 8.0]})
        >>> df.rolling(2).agg({"a": "sum", "b": "mean"}).to_dict("list")
        {'a': [None, 3.0, 5.0], 'b': [None, 5.0, 7.0]}
        """
        if func is None or isinstance(func, str) or callable(func) and \
                not isinstance(func, (list, tuple, dict)):
            if func is None:
                raise UnsupportedError(f"{self._kind.lower()}.aggregate with named "
                                       "aggregations is not supported; pass a dict")
            return self._stat(func, args, kwargs)
        obj, gb = self._obj, self._gb
        if gb is None:
            frame = obj._ndim == 2
            columns = [c for c in obj.columns if c != self._on] if frame else []
        else:
            frame = not gb._single and gb._obj._ndim == 2
            columns = [gb._label(nm) for nm in gb._value_columns(None)]
        if isinstance(func, dict):
            if not frame:
                raise InvalidValueError("nested renamer is not supported (a dict aggregates "
                                        "the columns of a frame's window)")
            nested = any(isinstance(f, (list, tuple)) for f in func.values())
            wanted = [(c, f) for c, fs in func.items()
                      for f in (fs if isinstance(fs, (list, tuple)) else [fs])]
        elif isinstance(func, (list, tuple)):
            nested = frame
            wanted = [(c, f) for c in (columns if frame else [None]) for f in func]
        else:
            raise DTypeError(f"{self._kind.lower()}.aggregate: func must be a name, a function, "
                             f"a list or a dict, not {type(func).__name__}")

        def key(f):
            return f if isinstance(f, str) else id(f)

        results = {}   # one call per function, over the columns that ask for it
        for f in {key(f): f for _, f in wanted}.values():
            cols = list(dict.fromkeys(c for c, g in wanted if key(g) == key(f)))
            win = self if not frame or gb is not None or self._on is not None else self[cols]
            results[key(f)] = win._stat(f, args, kwargs)
        parts, labels = [], []
        for c, f in wanted:
            res = results[key(f)]
            parts.append(res[c] if frame else res)
            name = _func_name(f)
            labels.append(name if c is None else (c, name) if nested else c)
        from zambezi import _labels

        cls = obj._constructor if obj._ndim == 2 else obj._constructor_expanddim
        return _labels.frame_from(cls, [p._col for p in parts], labels, parts[0]._index)

    agg = aggregate

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

    def apply(self, func, raw=False, engine=None, engine_kwargs=None, args=None,
              kwargs=None):
        """func of each window's values: one float per row, missing where
        the window has fewer than min_periods non-missing values (missing
        values and +-inf are passed as NaN, as pandas).  ``raw=True`` passes a numpy array,
        ``raw=False`` a Series with the window's labels.  The default
        engine calls func once per row in Python (slow);
        ``engine="numba"`` (with ``raw=True``) compiles it with Numba and
        runs the windows over every core with the GIL released (needs
        ``pip install "zambezi[numba]"``).  Not per group.

        Examples
        --------
        >>> s = zb.Series([1.0, 2.0, 4.0, 8.0])
        >>> s.rolling(2).apply(lambda w: w.max() - w.min(), raw=True).to_list()
        [None, 1.0, 2.0, 4.0]
        """
        from zambezi import _numba
        from zambezi._profile import python_calls

        use_numba = _numba.check_engine(engine, engine_kwargs, "rolling.apply")
        if not callable(func):
            raise DTypeError(f"apply: func must be callable, not {type(func).__name__}")
        if not isinstance(raw, (bool, np.bool_)):
            raise InvalidValueError("raw parameter must be `True` or `False`")
        if use_numba and (not raw or args or kwargs):
            raise InvalidValueError("rolling.apply: engine='numba' needs raw=True and no "
                                    "args or kwargs (as pandas)")
        if self._gb is not None:
            raise UnsupportedError("rolling.apply per group is not supported")
        args, kwargs = tuple(args or ()), dict(kwargs or {})
        obj = self._obj
        n = len(obj)
        mp = self._min_periods
        if mp is None:
            mp = self._window if self._span is None else 1
        if self._span is not None:
            tcol, what = self._times()
            starts, ends = _time_bounds(tcol, what, self._span, self._closed, self._center)
            starts, ends = np.asarray(starts, np.int64), np.asarray(ends, np.int64)
        else:
            w = self._window_for(n)
            off = (w - 1) // 2 if self._center else 0
            ends = np.clip(np.arange(1 + off, n + 1 + off, dtype=np.int64), 0, n)
            starts = np.clip(np.arange(1 + off, n + 1 + off, dtype=np.int64) - w, 0, n)

        def one(col, what):
            if col.dtype not in _NUMERIC:
                raise DTypeError(f"rolling.apply: {what} is {col.dtype}, not numeric")
            values, _ = _numba.column_values(col, f"rolling.apply: {what}")
            values = values.astype(np.float64)
            # pandas passes +-inf as NaN (its window functions' rule)
            inf = np.isinf(values)
            has_inf = bool(inf.any())
            if has_inf:
                values[inf] = np.nan
            if use_numba:
                out = _numba.window_run(values, starts, ends, mp, func, engine_kwargs,
                                        "rolling.apply")
                return _numba.result_column(out)
            ok = np.isnan(values)
            counts = np.concatenate([[0], np.cumsum(~ok)])
            enough = (counts[ends] - counts[starts] >= mp) & (ends > starts)
            out = np.full(n, np.nan)
            # pandas passes each window as float64 with NaN for a missing value
            plain = col.dtype == "float64" and not col.null_count and not has_inf
            src = obj if obj._ndim == 1 and plain else None
            if not (plain or raw):
                col = _numba.result_column(values)
            with python_calls("rolling.apply", n, "a Python function per window: slow"):
                for i in np.flatnonzero(enough):
                    s, e = starts[i], ends[i]
                    win = values[s:e] if raw else \
                        _base_series(col, obj, s, e) if src is None else src.iloc[s:e]
                    out[i] = func(win, *args, **kwargs)
            return _numba.result_column(out)

        if obj._ndim == 1:
            return obj._like(one(obj._col, "the Series"))
        t = obj._table
        names, cols = [], []
        for i, nm in enumerate(t.names):
            c = t.column(i)
            if nm != self._on:
                c = one(c, f"column {nm!r}")
            names.append(nm)
            cols.append(c)
        return obj._like(_core.table_from_columns(cols, names))


def _base_series(col, obj, s, e):
    """Rows s:e of one column of frame obj, as a Series with their labels."""
    from zambezi import _base

    return _base.series_class()._from_column(col, None, obj._index).iloc[s:e]


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
    _check_unsupported(win_type, step, method)
    if not isinstance(center, (bool, np.bool_)):   # pandas' messages
        raise InvalidValueError("center must be a boolean")
    if on is not None and not isinstance(on, str):
        raise UnsupportedError("rolling: on= takes a column name (not an Index)")
    if on is not None and (obj._ndim == 1 or on not in obj._table.names):
        raise InvalidValueError(f"invalid on specified as {on}, must be a column (of "
                                "DataFrame), an Index or None")
    window, span = _check_window(window)
    if closed not in (None, "right", "left", "both", "neither"):
        raise InvalidValueError(f"rolling: closed must be 'right', 'left', 'both' or 'neither', "
                                f"not {closed!r}")
    if span is None:
        if on is not None and gb is not None:
            raise UnsupportedError("group-by rolling with on= is supported for time-based "
                                   "windows only")
        if closed not in (None, "right"):
            raise UnsupportedError("rolling(closed=...) is supported for time-based windows "
                                   "only: windows of rows are closed on the right")
        min_periods = _check_min_periods(min_periods, window, "rolling")
        # windows of rows with on=: the on column is left out and kept as it is (pandas)
        return Rolling(obj, window, min_periods, center, gb, None, on)
    if gb is not None:
        raise UnsupportedError("group-by rolling with a time-based window is not supported")
    if on is not None and obj._ndim == 1:
        raise InvalidValueError("rolling: on= names a column of a DataFrame")
    if center and closed not in (None, "right"):
        raise UnsupportedError("rolling(center=True) with a time-based window is supported "
                               "with closed='right' only")
    if on is not None:
        tcol = obj._table.column(obj._table.names.index(on))
    elif obj._index.nlevels == 1:
        tcol = obj._index._levels()[0]
    else:
        tcol = None
    if tcol is not None and tcol.dtype != "date32" and not tcol.dtype.startswith("timestamp"):
        # pandas' message: a span over labels that are not times
        raise InvalidValueError("window must be an integer 0 or greater")
    min_periods = _check_min_periods(min_periods, None, "rolling")
    return Rolling(obj, window, 1 if min_periods is None else min_periods, center, None, span,
                   on, closed)


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
        needs ``min_periods`` non-missing values (default: window).  A
        time span (``"2D"``, ``"90min"``, a timedelta) makes windows over
        the times of the index (see zambezi._rolling's notes; ``closed``
        "right", "left", "both" or "neither"; min_periods defaults to 1).

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
        >>> t = pd.to_datetime(["2024-01-01", "2024-01-02", "2024-01-05"])
        >>> zb.Series([1.0, 2.0, 3.0], index=t).rolling("2D").sum().to_list()
        [1.0, 3.0, 3.0]
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
        asked with ``numeric_only=True``.  A time-based window uses the
        times of column ``on`` (kept as it is in the result), or of the
        index; with a window of rows, column ``on`` is only kept as it is.

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
        >>> df = zb.DataFrame({"ts": pd.to_datetime(["2024-01-01", "2024-01-02", "2024-01-04"]),
        ...                    "v": [1.0, 2.0, 4.0]})
        >>> df.rolling("2D", on="ts").sum()["v"].to_list()
        [1.0, 3.0, 4.0]
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
    inside each group; results are indexed by (key, original label), or
    for rolling with ``as_index=False`` have the keys as their first
    columns and the original labels as their index (as pandas)."""

    __slots__ = ()

    def rolling(self, window, min_periods=None, center=False, win_type=None, on=None,
                closed=None, method="single", *, step=None):
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
