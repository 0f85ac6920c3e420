"""Selections and relabellings by the row labels, with pandas' names (the
``AxisOps`` mixin of Series and DataFrame): ``xs``, ``droplevel``,
``swaplevel``, ``reorder_levels``, ``set_axis``, ``filter``,
``truncate``, ``first_valid_index`` / ``last_valid_index``, and on a
timestamp index ``between_time``, ``at_time``, ``asfreq``,
``tz_localize`` / ``tz_convert`` and ``shift(freq=...)``
(zambezi._window calls ``shift_index``).

Rows are chosen by engine comparisons of the index levels (one bool
column, one filter); the time-of-day tests take the wall times (the
engine's zone conversion) modulo a day, over the whole column.
"""

import datetime
import warnings

import numpy as np

from zambezi import _base, _convert, _core, _dtypes, _indexing, _labels
from zambezi import index as _ix
from zambezi._missing import _axis_number
from zambezi.errors import (DTypeError, InvalidValueError, UnsupportedError, ZambeziError,
                            ZambeziIndexError)


def _series(col):
    from zambezi import _base

    return _base.series_class()._from_column(col)


def _equal_mask(cols, keys):
    """A bool Series: the rows where every column of cols equals its key
    (a missing key matches the missing labels)."""
    mask = None
    for col, key in zip(cols, keys):
        s = _series(col)
        if key is None or (isinstance(key, float) and key != key):
            m = s.isna()
        else:
            try:
                m = (s == key).fillna(False)
            except (DTypeError, TypeError, UnsupportedError):
                m = None  # a key of another kind matches no label
            if m is None:
                m = _series(_core.column_from_buffer(np.zeros(len(s), dtype=np.bool_)))
        mask = m if mask is None else (mask & m)
    return mask


def _rows_where(obj, mask):
    return obj._select_rows(_indexing.filter_rows(mask._col))


def _time_of_day_us(col):
    """Microseconds since the (wall-clock) midnight of each timestamp, a
    numpy int64 array (any value at a null): one modulo of the wall
    times."""
    from zambezi import _convert, _tz

    if not col.dtype.startswith("timestamp"):
        raise DTypeError(f"the index must hold timestamps, not {col.dtype}")
    ticks = _dtypes.PER_SECOND[col.unit]
    wall = _convert.values_numpy(_tz.to_wall(col)).view(np.int64)
    tod = wall % (86400 * ticks)
    return tod // (ticks // 10**6) if ticks > 10**6 else tod * (10**6 // ticks)


def _mask_rows(obj, mask, col):
    """obj's rows where the numpy bool mask holds (and col is not null)."""
    from zambezi import _convert

    nulls = _convert.null_mask(col)
    if nulls is not None:
        mask = mask & ~nulls
    return obj._select_rows(_indexing.filter_rows(_core.column_from_buffer(
        np.ascontiguousarray(mask, dtype=np.bool_))))


_TIME_FORMATS = ("%H:%M", "%H%M", "%I:%M%p", "%I%M%p", "%H:%M:%S", "%H%M%S",
                 "%I:%M:%S%p", "%I%M%S%p")


def _as_time(value, what):
    """A time of day (datetime.time, or text as pandas reads it: '9:30',
    '0930', '9:30PM', '09:30:15' ...) as microseconds since midnight."""
    t = value
    if isinstance(value, str):
        t = None
        try:
            t = datetime.time.fromisoformat(value)
        except ValueError:
            for fmt in _TIME_FORMATS:
                try:
                    t = datetime.datetime.strptime(value, fmt).time()
                    break
                except ValueError:
                    pass
        if t is None:
            raise InvalidValueError(f"{what}: cannot read {value!r} as a time of day")
    if not isinstance(t, datetime.time):
        raise InvalidValueError(f"{what}: a time of day (datetime.time or text) is required, "
                                f"not {type(value).__name__}")
    if t.tzinfo is not None:
        raise UnsupportedError(f"{what}: a time with a time zone is not supported")
    return ((t.hour * 60 + t.minute) * 60 + t.second) * 1_000_000 + t.microsecond


def _time_index_col(obj, what):
    idx = obj._index
    if idx.nlevels != 1 or not idx.dtype.startswith("timestamp"):
        raise DTypeError(f"{what}: the index must be a DatetimeIndex (timestamps), not "
                         f"{idx.dtype if idx.nlevels == 1 else 'a MultiIndex'}")
    return idx._levels()[0]


def shift_index(obj, periods, freq):
    """obj with its timestamp labels moved by periods * freq (the data
    staying), as pandas' ``shift(periods, freq=...)``; fixed frequencies
    ('h', '15min', 'D', a Timedelta)."""
    from zambezi import _times

    idx = obj._index
    if idx.nlevels != 1 or not idx.dtype.startswith("timestamp"):   # pandas: NotImplementedError
        raise UnsupportedError("shift(freq=...) is only implemented for a DatetimeIndex, not "
                               f"{idx.dtype if idx.nlevels == 1 else 'a MultiIndex'}")
    col = idx._levels()[0]
    kind, _, step = _times._parse_freq(freq)
    if kind != "fixed":
        raise UnsupportedError(f"shift(freq={freq!r}): only fixed frequencies (h, min, s, D, "
                               "a Timedelta) are supported")
    if not isinstance(periods, (int, np.integer)) or isinstance(periods, bool):
        raise InvalidValueError(f"shift: periods must be an integer, not {periods!r}")
    moved = (_series(col) + _times_delta(int(periods) * step, col.unit))._col
    if moved.dtype != col.dtype:
        moved = _core.cast(moved, col.dtype)   # a step in the index's unit: exact
    return obj._with_index(_ix.Index._from_columns([moved], [obj._index.name]))


def _times_delta(ns, unit):
    """A Timedelta of ns nanoseconds, in unit when it holds it exactly (so
    that adding it keeps the index's unit, as pandas)."""
    import zambezi as zb

    scale = _dtypes.NS_PER.get(unit, 1)
    if ns % scale == 0:
        return zb.Timedelta(ns // scale, unit=unit)
    return zb.Timedelta(int(ns), unit="ns")


class AxisOps:
    """Selections and relabellings by the row labels (see the module)."""

    __slots__ = ()

    # -- xs -----------------------------------------------------------------
    def xs(self, key, axis=0, level=None, drop_level=True):
        """The rows whose label is key: on a MultiIndex, key gives the
        first levels (a tuple for several) or, with ``level=``, the named
        levels, and those levels are dropped (``drop_level=False`` keeps
        them).  ``axis=1`` takes columns, as ``df[key]``.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["x", "x", "y"], "n": [1, 2, 1], "v": [0.5, 1.5, 2.5]})
        >>> m = df.set_index(["k", "n"])
        >>> m.xs("x")["v"].to_list()
        [0.5, 1.5]
        >>> m.xs(1, level="n").index.to_list()
        ['x', 'y']
        """
        if isinstance(key, list):
            raise TypeError("list keys are not supported in xs, pass a tuple instead")
        if _axis_number(self, axis) == 1:
            if level is not None or not drop_level:
                raise UnsupportedError("xs(axis=1): level= and drop_level=False are not "
                                       "supported")
            return self[key]
        idx = self._index
        if level is None:
            if idx.nlevels == 1:
                return self.loc[key]
            keys = key if isinstance(key, tuple) else (key,)
            levels = list(range(len(keys)))
        else:
            if idx.nlevels == 1:
                raise TypeError("Index must be a MultiIndex")
            levels = level if isinstance(level, (list, tuple)) else [level]
            keys = key if isinstance(key, tuple) and len(levels) > 1 else (key,)
            levels = [idx._level_number(lv) for lv in levels]
        if len(keys) != len(levels) or len(levels) > idx.nlevels:
            raise InvalidValueError(f"xs: {len(keys)} key parts for {len(levels)} levels")
        cols = idx._levels()
        mask = _equal_mask([cols[i] for i in levels], keys)
        out = _rows_where(self, mask)
        if len(out) == 0:
            raise _ix.IndexKeyError(key)
        if not drop_level:
            return out
        keep = [i for i in range(idx.nlevels) if i not in set(levels)]
        if not keep:  # the whole label: one row as pandas' loc gives it
            return out.iloc[0] if len(out) == 1 else out
        return out.droplevel([i for i in range(idx.nlevels) if i not in keep])

    # -- levels ----------------------------------------------------------------
    def _relevel(self, axis, what, fn):
        if _axis_number(self, axis) == 1:
            cols = _labels.labels(self)
            if cols is None or cols.nlevels == 1:
                raise InvalidValueError(f"{what}(axis=1): the columns have one level")
            out = self.copy()
            out.columns = fn(cols)
            return out
        return self._with_index(fn(self._index))

    def droplevel(self, level, axis=0):
        """Without some levels of a MultiIndex (names or positions).

        Examples
        --------
        >>> s = zb.Series([1, 2], index=zb.MultiIndex.from_arrays([["a", "b"], [5, 6]]))
        >>> s.droplevel(0).index.to_list()
        [5, 6]
        """
        def drop(idx):
            if idx.nlevels == 1:
                raise InvalidValueError("droplevel: cannot drop the only level")
            return idx.droplevel(level)

        return self._relevel(axis, "droplevel", drop)

    def reorder_levels(self, order, axis=0):
        """The MultiIndex levels in a new order (names or positions).

        Examples
        --------
        >>> s = zb.Series([1], index=zb.MultiIndex.from_arrays([["a"], [5]], names=["s", "n"]))
        >>> s.reorder_levels(["n", "s"]).index.names
        ['n', 's']
        """
        def reorder(idx):
            nums = [idx._level_number(lv) for lv in order]
            if sorted(nums) != list(range(idx.nlevels)):
                raise InvalidValueError(f"reorder_levels: {list(order)!r} must name each of "
                                        f"the {idx.nlevels} levels once")
            cols, names = idx._levels(), idx.names
            return _ix.Index._from_columns([cols[i] for i in nums], [names[i] for i in nums])

        return self._relevel(axis, "reorder_levels", reorder)

    def swaplevel(self, i=-2, j=-1, axis=0):
        """The MultiIndex with levels i and j swapped (names or positions).

        Examples
        --------
        >>> s = zb.Series([1], index=zb.MultiIndex.from_arrays([["a"], [5]], names=["s", "n"]))
        >>> s.swaplevel().index.to_list()
        [(5, 'a')]
        """
        def swap(idx):
            if idx.nlevels < 2:
                raise InvalidValueError("swaplevel: the index has one level")
            order = list(range(idx.nlevels))
            a, b = (_level_pos(idx, lv) for lv in (i, j))
            order[a], order[b] = order[b], order[a]
            cols, names = idx._levels(), idx.names
            return _ix.Index._from_columns([cols[k] for k in order], [names[k] for k in order])

        return self._relevel(axis, "swaplevel", swap)

    def set_axis(self, labels, *, axis=0, copy=None):
        """A new object with other labels on an axis (the rows, or a
        frame's columns with ``axis=1``); the data are shared.

        Examples
        --------
        >>> zb.DataFrame({"a": [1], "b": [2]}).set_axis(["x", "y"], axis=1).columns.to_list()
        ['x', 'y']
        """
        if _axis_number(self, axis) == 1:
            out = self.copy()
            out.columns = labels
            return out
        return self._with_index(_ix.ensure_index(labels, len(self), "set_axis"))

    # -- filter -----------------------------------------------------------
    def filter(self, arg=None, /, like=None, regex=None, axis=None, *, items=None, cond=None,
               na=False):
        """Keep the rows (or a frame's columns, ``axis=1``) where a boolean
        mask is True (``cond``, or a function given first that makes it
        from the object), or select labels: those in items (in the order of
        items), those whose text contains like, or those the regular
        expression regex finds (``re.search``).  Labels default to a
        frame's columns, masks to the rows; a missing value in a mask is
        ``na`` (True, False, or "raise").  A list of booleans given first
        selects labels, with pandas' warning (as pandas 3.1).

        Examples
        --------
        >>> df = zb.DataFrame({"one": [1, 5], "two": [2, 6], "three": [3, 7]})
        >>> df.filter(["three", "one"]).columns.to_list()
        ['three', 'one']
        >>> df.filter(like="t").columns.to_list()
        ['two', 'three']
        >>> df.filter(regex="e$").columns.to_list()
        ['one', 'three']
        >>> df.filter(lambda d: d["one"] > 2)["two"].to_list()
        [6]
        >>> df.filter(cond=[True, False, True], axis=1).columns.to_list()
        ['one', 'three']
        """
        import re

        given = sum(x is not None for x in (arg, items, cond, like, regex))
        if given > 1:
            raise TypeError("The positional argument and the keyword arguments `items`, "
                            "`cond`, `like`, and `regex` are mutually exclusive")
        if given == 0:
            raise TypeError("Must pass a positional argument or one of `items`, `cond`, "
                            "`like`, or `regex`")
        if na is not True and na is not False and na != "raise":
            raise InvalidValueError(f"na must be 'raise', True, or False, got {na!r}")
        if arg is not None:
            if callable(arg):
                cond = arg
            else:
                if _is_bool_listlike(arg):
                    warnings.warn(
                        "A list-like of booleans passed positionally to "
                        f"{type(self).__name__}.filter selects labels. Pass cond=... to filter "
                        "with a boolean mask, or items=... to select labels without this "
                        "warning.", UserWarning, stacklevel=_base.user_stacklevel())
                items = arg
        if cond is not None:
            return _filter_mask(self, cond, 0 if axis is None else _axis_number(self, axis), na)
        if items is not None and (_base.is_frame(items) or getattr(items, "ndim", 1) != 1):
            raise InvalidValueError("filter: items: Index data must be 1-dimensional")
        if axis is None:
            axis = 1 if self._ndim == 2 else 0
        if _axis_number(self, axis) == 0:
            return _filter_rows(self, items, like, regex)
        have = _labels.label_list(self)   # column labels: a few, looked at in Python
        if items is not None:
            where = {}
            for i, lb in enumerate(have):
                where.setdefault(_nan_key(lb), []).append(i)
            keep, seen = [], set()
            for it in (items.to_list() if hasattr(items, "to_list") else list(items)):
                it = _nan_key(it)
                if it in where and it not in seen:
                    seen.add(it)
                    keep.extend(where[it])
        else:
            test = (lambda t: like in t) if like is not None else re.compile(regex).search
            keep = [i for i, lb in enumerate(have) if test(_label_text(lb))]
        return self.iloc[:, keep]

    # -- truncate / first_valid_index -------------------------------------
    def truncate(self, before=None, after=None, axis=None, copy=None):
        """The rows (or a frame's columns, ``axis=1``) whose labels lie
        between before and after, both included; the index must be sorted.

        Examples
        --------
        >>> zb.Series([1, 2, 3, 4], index=[10, 20, 30, 40]).truncate(15, 30).to_list()
        [2, 3]
        """
        if before is not None and after is not None and before > after:
            raise InvalidValueError(f"truncate: before ({before!r}) is after after ({after!r})")
        if axis is not None and _axis_number(self, axis) == 1:
            labels = _labels.label_list(self)
            keep = [i for i, lb in enumerate(labels) if (before is None or lb >= before)
                    and (after is None or lb <= after)]
            return self.iloc[:, keep]
        idx = self._index
        if not (idx.is_monotonic_increasing or idx.is_monotonic_decreasing):
            raise InvalidValueError("truncate requires a sorted index")
        if idx.is_monotonic_decreasing and not idx.is_monotonic_increasing:
            before, after = after, before
        return self.loc[before:after]

    def _valid_rows(self):
        if self._ndim == 1:
            return self.notna()
        return self.notna().any(axis=1)

    def first_valid_index(self):
        """The label of the first row with a value (a frame: any column),
        or None.

        Examples
        --------
        >>> zb.Series([None, 2.0, None, 4.0], index=list("abcd")).first_valid_index()
        'b'
        """
        return self._valid_label(0)

    def last_valid_index(self):
        """The label of the last row with a value (a frame: any column),
        or None.

        Examples
        --------
        >>> zb.Series([None, 2.0, None, 4.0, None], index=list("abcde")).last_valid_index()
        'd'
        """
        return self._valid_label(-1)

    def asof(self, where, subset=None):
        """The last row at or before each label of ``where`` that has a
        value (a frame: a value in every column of ``subset``, default all),
        as pandas: the index must be sorted.  A scalar where gives a value
        (a frame: that row as a Series, or a dict for mixed dtypes, as
        ``iloc``); a list or Index gives one row per label, indexed by
        where; a label before the first valid row gives missing values.

        Examples
        --------
        >>> s = zb.Series([1.0, None, 3.0, 4.0], index=[10, 20, 30, 40])
        >>> s.asof(25), s.asof(5)
        (1.0, nan)
        >>> s.asof([5, 20, 35]).to_list()
        [None, 1.0, 3.0]
        """
        idx = self._index
        if idx.nlevels != 1:
            raise UnsupportedError("asof of a MultiIndex is not supported")
        if not idx.is_monotonic_increasing:
            raise InvalidValueError("asof requires a sorted index")
        scalar = isinstance(where, (str, datetime.date)) or np.ndim(where) == 0
        targets = _asof_targets(idx, [where] if scalar else where)
        if self._ndim == 1:
            if subset is not None:
                raise InvalidValueError("subset is not valid for Series")
            valid = self.notna()
        else:
            cols = self if subset is None else \
                self[list(subset) if _indexing._is_list_like(subset) else [subset]]
            valid = cols.notna().all(axis=1)
        rows = np.flatnonzero(np.asarray(valid.to_numpy(), dtype=np.bool_))
        level = idx._levels()[0]
        kept = _ix.Index._from_columns([_core.take(level, _core.column_from_buffer(rows))],
                                       idx.names)
        k = np.asarray(kept.searchsorted(targets, side="right"), dtype=np.int64) - 1
        pos = np.where(k >= 0, rows[np.maximum(k, 0)] if len(rows) else 0, 0)
        from zambezi import _align

        pos = _core.column_from_buffer(pos.astype(np.int64), mask=k < 0 if (k < 0).any() else None)
        out = self._select_rows(_indexing.take_rows(pos)) if (k >= 0).all() else \
            _asof_gather(self, pos, _align)
        labels = _ix.Index(targets, name=None if scalar else getattr(where, "name", None))
        if not scalar:
            out._index = labels
            return out
        if self._ndim == 1:
            value = out.iloc[0]
            return np.nan if value is None else value
        row = out.iloc[0]
        if getattr(row, "_ndim", 0) == 1:
            row._name = labels.to_list()[0] if isinstance(where, str) else where
        return row

    def _valid_label(self, end):
        valid = np.asarray(self._valid_rows().to_numpy(), dtype=np.bool_)
        hits = np.flatnonzero(valid)
        if len(hits) == 0:
            return None
        pos = int(hits[end])
        idx = self._index
        if idx.nlevels == 1 and idx.dtype.startswith(("int", "uint", "float")):
            # a number label as numpy's scalar (np.int64 ...), as pandas gives it
            return idx._take(_indexing.slice_rows(pos, 1)).to_numpy()[0]
        return idx._label_at(pos)

    # -- times of day -------------------------------------------------------
    def between_time(self, start_time, end_time, inclusive="both", axis=None):
        """The rows whose timestamp label falls between two times of day
        (wall time for a zoned index); a start after the end wraps past
        midnight.  inclusive: "both", "neither", "left" or "right".

        Examples
        --------
        >>> s = zb.Series([1, 2, 3], index=zb.date_range("2024-01-01 08:00", periods=3, freq="2h"))
        >>> s.between_time("09:00", "12:00").to_list()
        [2, 3]
        """
        if axis not in (None, 0, "index", "rows"):
            raise UnsupportedError("between_time(axis=1) is not supported")
        if inclusive not in ("both", "neither", "left", "right"):
            raise InvalidValueError("inclusive must be 'both', 'neither', 'left' or 'right'")
        start = _as_time(start_time, "between_time")
        end = _as_time(end_time, "between_time")
        col = _time_index_col(self, "between_time")
        t = _time_of_day_us(col)
        lo = (t >= start) if inclusive in ("both", "left") else (t > start)
        hi = (t <= end) if inclusive in ("both", "right") else (t < end)
        return _mask_rows(self, (lo & hi) if start <= end else (lo | hi), col)

    def at_time(self, time, asof=False, axis=None):
        """The rows whose timestamp label is at a time of day (wall time
        for a zoned index).

        Examples
        --------
        >>> s = zb.Series([1, 2, 3], index=zb.date_range("2024-01-01", periods=3, freq="12h"))
        >>> s.at_time("00:00").to_list()
        [1, 3]
        """
        if asof or axis not in (None, 0, "index", "rows"):
            raise UnsupportedError("at_time: asof=True and axis=1 are not supported")
        col = _time_index_col(self, "at_time")
        return _mask_rows(self, _time_of_day_us(col) == _as_time(time, "at_time"), col)

    # -- asfreq -------------------------------------------------------------
    def asfreq(self, freq, method=None, how=None, normalize=False, fill_value=None):
        """The rows at a regular frequency from the first label to the last
        (``date_range(first, last, freq)``): a label the index has keeps
        its row, a new one is missing, or filled with fill_value, or with
        ``method="ffill"`` / ``"bfill"`` from the row before / after.  The
        index must be sorted and unique.

        Examples
        --------
        >>> s = zb.Series([1.0, 2.0], index=zb.date_range("2024-01-01", periods=2, freq="2h"))
        >>> s.asfreq("h").to_list()
        [1.0, None, 2.0]
        >>> s.asfreq("h", method="ffill").to_list()
        [1.0, 1.0, 2.0]
        """
        from zambezi import _index_ops, _times
        from zambezi._reshape import _host_numpy

        if normalize or how is not None:
            raise UnsupportedError("asfreq: normalize and how are not supported")
        method = {"pad": "ffill", "backfill": "bfill"}.get(method, method)
        if method not in (None, "ffill", "bfill"):
            raise InvalidValueError(f"asfreq: method must be None, 'ffill' or 'bfill', not "
                                    f"{method!r}")
        col = _time_index_col(self, "asfreq")
        idx = self._index
        if len(self) == 0:
            return self
        if not idx.is_monotonic_increasing or not idx.is_unique:
            raise InvalidValueError("asfreq: the index must be sorted and unique")
        first, last = idx._label_at(0), idx._label_at(len(idx) - 1)
        new = _times.date_range(first, last, freq=freq, name=idx.name,
                                unit=col.dtype[len("timestamp["):].split(",")[0].rstrip("]"))
        old_v = _host_numpy(_core.cast(col, "int64"))
        new_v = _convert.values_numpy(new._levels()[0]).view(np.int64)   # no copy
        pos, missing = _grid_positions(old_v, new_v, method)
        if pos is None:   # not a regular grid: binary searches
            side = "right" if method == "ffill" else "left"
            pos = np.searchsorted(old_v, new_v, side=side)
            if method == "ffill":
                pos = pos - 1
                missing = pos < 0
            else:
                missing = pos >= len(old_v)
                pos = np.minimum(pos, len(old_v) - 1)
                if method is None:
                    missing |= old_v[pos] != new_v
            pos = np.where(missing, 0, pos)
        gaps = missing is not None and bool(missing.any())
        take = _core.column_from_buffer(np.ascontiguousarray(pos, dtype=np.int64),
                                        mask=missing if gaps else None)
        out = self._like(_core.take(self._engine, take))
        out._index = new
        if fill_value is not None and gaps:
            out = _index_ops._fill_new_rows(out, missing, fill_value)
        return out

    # -- time zones of the index -------------------------------------------
    def tz_localize(self, tz, axis=0, level=None, copy=None, ambiguous="raise",
                    nonexistent="raise"):
        """The timestamp labels (not the values: see ``Series.dt``) given
        a time zone, as pandas' ``tz_localize``.

        Examples
        --------
        >>> s = zb.Series([1], index=zb.date_range("2024-01-01", periods=1))
        >>> str(s.tz_localize("UTC").index.dtype)
        'timestamp[us, tz=UTC]'
        """
        from zambezi import _dt_methods

        return self._rezone(axis, level, "tz_localize", lambda c: _dt_methods.tz_localize(
            c, tz, ambiguous, nonexistent))

    def tz_convert(self, tz, axis=0, level=None, copy=None):
        """The zoned timestamp labels shown in another time zone (the
        instants are the same), as pandas' ``tz_convert``.

        Examples
        --------
        >>> s = zb.Series([1], index=zb.date_range("2024-01-01", periods=1, tz="UTC"))
        >>> s.tz_convert("Asia/Tokyo").index.to_list()
        [Timestamp('2024-01-01 09:00:00+0900', tz='Asia/Tokyo')]
        """
        from zambezi import _dt_methods

        return self._rezone(axis, level, "tz_convert",
                            lambda c: _dt_methods.tz_convert(c, tz))

    def _rezone(self, axis, level, what, fn):
        if _axis_number(self, axis) == 1:
            raise UnsupportedError(f"{what}(axis=1) is not supported")
        idx = self._index
        at = 0 if level is None else idx._level_number(level)
        if level is None and idx.nlevels != 1:
            raise InvalidValueError(f"{what}: give level= for a MultiIndex")
        cols = list(idx._levels())
        if not cols[at].dtype.startswith("timestamp"):
            raise DTypeError(f"{what}: the index must hold timestamps, not {cols[at].dtype}")
        cols[at] = fn(cols[at])
        return self._with_index(_ix.Index._from_columns(cols, idx.names))


def _nan_key(label):
    """A label as a dict key under which every missing label (NaN, None)
    is one key: pandas' labels match NaN with NaN."""
    return _NAN if label is None or (isinstance(label, float) and label != label) else label


_NAN = object()


def _is_bool_listlike(key):
    """pandas' test of a mask (pandas.core.methods.filter.is_mask)."""
    return _mask_of(key) is not None


def _mask_of(key):
    """key as a mask by pandas' test of one: a one-dimensional array-like
    of bool dtype, or a non-empty list / object array whose values that
    are not missing are all bools (all missing counts; never a tuple, a
    frame or a MultiIndex).  None when it is not a mask; the engine's
    column when the test converted a list or object array (so the caller
    does not convert it again); key itself otherwise."""
    if isinstance(key, tuple) or _base.is_frame(key) or _convert._is_pandas(key, "DataFrame"):
        return None
    if not isinstance(key, list):
        dtype = getattr(key, "dtype", None)
        if dtype is None or getattr(key, "nlevels", 1) != 1:
            return None
        if str(dtype) in ("bool", "boolean", "bool[pyarrow]"):
            return key
        if str(dtype) != "object":
            return None
    values = np.asarray(key, dtype=object)   # a Python list or object array already
    if values.ndim != 1:
        return None
    try:   # the engine's conversion: bools with None / NaN / NaT make a bool column
        col = _core.column_from_sequence(values)
    except (ZambeziError, TypeError, ValueError):
        col = None   # mixed values, or pd.NA among bools: looked at one by one below
    if col is not None:   # all missing counts as a mask (of nothing but missing values)
        ok = col.length > 0 and (col.dtype == "bool" or col.null_count == col.length)
        return col if ok else None
    for v in values:
        if not isinstance(v, (bool, np.bool_)) and not (_dtypes.is_scalar(v)
                                                         and _dtypes.is_missing_scalar(v)):
            return None
    return key if len(values) > 0 else None


def _filter_mask(obj, cond, axis, na):
    """filter(cond=): obj's rows (axis 0) or columns (axis 1) where the
    mask is True; a Series mask is aligned with the axis' labels, any
    other must have its length; missing values are na ("raise": an
    error)."""
    what = f"{type(obj).__name__}.filter"
    if callable(cond):
        if type(cond).__module__.startswith("pandas"):   # pd.col(...) expressions
            raise UnsupportedError(f"{what}: pandas expressions (pd.col) are not supported")
        mask = _mask_of(cond(obj))
        if mask is None:
            raise TypeError(f"The callable passed to {what} must evaluate to a "
                            "one-dimensional boolean mask")
    else:
        mask = _mask_of(cond)
        if mask is None:
            raise TypeError(f"cond passed to {what} must be a one-dimensional boolean mask")
    if getattr(mask, "ndim", 1) != 1:
        raise InvalidValueError(f"The mask passed to {what} must be one-dimensional")
    n = len(obj) if axis == 0 else len(obj.columns)
    if _convert._is_pandas(mask, "Series"):
        mask = _base.series_class()(mask)
    if _base.is_series(mask):
        labels = obj._index if axis == 0 else _labels.index_for(obj)
        if not mask._index.equals(labels):
            if not labels.isin(mask._index).all():
                raise ZambeziIndexError(
                    f"{what}: unalignable boolean Series (index of the boolean Series and of "
                    "the filtered object do not match)")
            mask = mask.reindex(labels)
        col = mask._col
    else:
        col = mask   # an engine column already when _mask_of converted it
        if not isinstance(col, _core.Column):
            try:
                col = _convert.to_column(np.asarray(mask, dtype=object)
                                         if isinstance(mask, list) else mask)
            except DTypeError:   # pd.NA among bools in an object array: None, value by value
                col = _convert.to_column(np.array(
                    [None if _dtypes.is_missing_scalar(v) else v for v in mask], dtype=object))
        if col.length != n:
            raise ZambeziIndexError(f"Boolean index has wrong length: {col.length} instead "
                                    f"of {n}")
    if col.dtype != "bool":
        col = _core.cast(col, "bool")
    if col.null_count:
        if na == "raise":
            raise InvalidValueError("The mask contains missing values")
        col = _core.fill_null(col, bool(na))
    if axis == 0:
        return obj._select_rows(_indexing.filter_rows(col))
    return obj.iloc[:, np.flatnonzero(_convert.values_numpy(col))]


def _filter_rows(obj, items, like, regex):
    """filter along the rows: the labels in items (in the order of items,
    as pandas' reindex), or whose text contains like / matches regex (the
    engine's str.contains over the labels' text)."""
    idx = obj._index
    if items is not None:
        wanted = list({_nan_key(w): w for w in (items.to_list() if hasattr(items, "to_list")
                                                 else list(items))}.values())
        mask = idx.isin(wanted)
        sub = obj._select_rows(_indexing.filter_rows(_core.column_from_buffer(
            np.ascontiguousarray(np.asarray(mask, dtype=np.bool_)))))
        if not idx.is_unique:
            return obj.reindex(wanted)   # duplicate labels: reindex's error, as pandas
        at = np.asarray(sub._index.get_indexer(wanted), dtype=np.int64)
        return sub.iloc[at[at >= 0]]
    if idx.nlevels != 1:
        raise UnsupportedError("filter(like= / regex=) of a MultiIndex's rows is not supported")
    text = _series(idx._levels()[0]).astype(str)
    hit = text.str.contains(like, regex=False) if like is not None else \
        text.str.contains(regex, regex=True)
    return _rows_where(obj, hit.fillna(False))


def _grid_positions(old_v, new_v, method):
    """asfreq's row of each new label when the new labels are a regular
    grid (first + k * step; sorted, unique old labels from the first grid
    point): (positions, missing) in O(n) -- each old label's grid cell and
    a running max (ffill) or min (bfill) -- or (None, None) otherwise.
    missing is None where no new label can miss (ffill: the grid starts at
    the first old label); positions are always valid rows."""
    m, n = len(new_v), len(old_v)
    if m < 2 or new_v[0] != old_v[0]:
        return None, None
    step = int(new_v[1] - new_v[0])
    if step <= 0 or new_v[-1] != new_v[0] + (m - 1) * step:
        return None, None
    rel = old_v - old_v[0]
    rows = np.arange(n, dtype=np.int64)
    if method == "bfill":
        cell = rel // step          # the last grid point at or before each old label
        firsts = np.r_[True, cell[1:] != cell[:-1]]
        pos = np.full(m + 1, n, dtype=np.int64)
        keep = firsts & (cell < m)
        pos[cell[keep]] = rows[keep]
        pos = np.minimum.accumulate(pos[::-1])[::-1][:m]
        missing = pos >= n
        return np.minimum(pos, n - 1), missing
    if method == "ffill":
        cell = -((-rel) // step)    # the first grid point at or after each old label
        keep = np.r_[cell[1:] != cell[:-1], True] & (cell < m)   # the last label per cell
    else:
        cell = rel // step
        keep = (rel % step == 0) & (cell < m)   # the labels on the grid
    pos = np.full(m, -1, dtype=np.int64)
    pos[cell[keep]] = rows[keep]
    if method == "ffill":   # the grid starts at the first label: nothing is missing
        np.maximum.accumulate(pos, out=pos)
        return pos, None
    missing = pos < 0
    return np.maximum(pos, 0), missing


def _level_pos(idx, lv):
    if isinstance(lv, int) and not isinstance(lv, bool) and lv not in idx.names:
        if not -idx.nlevels <= lv < idx.nlevels:
            raise InvalidValueError(f"level {lv} is out of range for {idx.nlevels} levels")
        return lv % idx.nlevels
    return idx._level_number(lv)


def _label_text(label):
    if isinstance(label, tuple):
        return str(label)
    return label if isinstance(label, str) else str(label)


def _asof_targets(idx, where):
    """where's labels as an array the index's searchsorted compares (text
    read as times for a time index)."""
    if hasattr(where, "to_numpy"):
        return where.to_numpy()
    if isinstance(where, np.ndarray):
        return where
    values = list(where)
    if idx._levels()[0].dtype.startswith("timestamp") and values and \
            all(isinstance(v, str) for v in values):
        from zambezi import _times

        return _times.to_datetime(values).to_numpy()
    return values


def _asof_gather(obj, pos, align):
    """obj's rows at pos (an int64 column, null: no row), missing values
    where pos is null (integers become float64, as pandas)."""
    if obj._ndim == 1:
        return obj._constructor._from_column(align.take_side(obj._col, pos), obj._name,
                                             obj._index)
    t = obj._table
    cols = [align.take_side(t.column(j), pos) for j in range(t.num_columns)]
    out = obj._like(_core.table_from_columns(cols, t.names))
    return out
