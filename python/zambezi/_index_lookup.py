"""Label lookups of an Index (zambezi.index): where the rows of a label
are, and what loc asks of an index.

A one-level index sorts its labels once with the engine's radix sort and
keeps the order (``_Lookup``); each lookup is then a binary search
(numpy's searchsorted), so 10^4 lookups on 10^7 labels cost one sort.  An
index whose labels already increase needs no sort; a RangeIndex answers
with arithmetic (``_RangeLookup``).  ``all_positions``,
``partial_date_span`` and ``label_bounds`` are what zambezi._indexing's
``loc`` needs: the rows of a list of labels, of a date period, and of a
slice between two labels.
"""

import datetime

import numpy as np

from zambezi import _convert, _core, _dtypes
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError
from zambezi.index import Index, IndexKeyError, _int64_column, _is_identity


# --------------------------------------------------------------------------
# label lookups
# --------------------------------------------------------------------------

def _label_key(col, label):
    """label as a value comparable with _sort_keys(col), or raise
    DTypeError when it cannot be one of col's labels."""
    dt = col.dtype
    if _dtypes.is_missing_scalar(label):
        return None
    if dt == "string":
        if not isinstance(label, str):
            raise DTypeError(f"a {type(label).__name__} label on a string index")
        return label
    if dt == "category":
        cats = col.dictionary.to_pylist()
        try:
            return cats.index(label)
        except ValueError:
            return -1  # no row has it
    if dt == "bool":
        if not isinstance(label, (bool, np.bool_)):
            raise DTypeError(f"a {type(label).__name__} label on a bool index")
        return int(label)
    if dt.startswith("timestamp"):
        return _timestamp_value(label, col)
    if dt == "date32":
        if isinstance(label, str):
            label = datetime.date.fromisoformat(label)
        if isinstance(label, datetime.datetime):
            label = label.date()
        if not isinstance(label, datetime.date):
            raise DTypeError(f"a {type(label).__name__} label on a date index")
        return (label - datetime.date(1970, 1, 1)).days
    if isinstance(label, (bool, np.bool_)) or not isinstance(
            label, (int, float, np.integer, np.floating)):
        raise DTypeError(f"a {type(label).__name__} label on a {dt} index")
    return label


def _timestamp_value(label, col):
    """An int64 value in col's unit for a datetime-like label; a label
    without a zone is a wall time in col's time zone (as pandas reads it)."""
    unit = col.unit
    wall = True
    if isinstance(label, str):
        v = np.datetime64(label)
    elif hasattr(label, "to_datetime64"):  # pandas Timestamp
        if getattr(label, "tzinfo", None) is not None:
            label, wall = label.tz_convert("UTC").tz_localize(None), False
        v = label.to_datetime64()
    elif isinstance(label, datetime.datetime):
        if label.tzinfo is not None:
            label = label.astimezone(datetime.timezone.utc).replace(tzinfo=None)
            wall = False
        v = np.datetime64(label)
    elif isinstance(label, datetime.date):
        v = np.datetime64(label, "D")
    elif isinstance(label, np.datetime64):
        v = label
    else:
        raise DTypeError(f"a {type(label).__name__} label on a timestamp index")
    zone = col.timezone
    if wall and zone is not None:
        from zambezi import _tz

        ns = _tz.wall_to_utc_ns(zone, [int(v.astype("datetime64[ns]").astype(np.int64))])
        v = np.datetime64(int(ns[0]), "ns")
    return int(v.astype(f"datetime64[{unit}]").astype(np.int64))


def _sort_keys(col):
    """The labels as a numpy array that numpy can order and search (ints,
    floats, int64 for dates/timestamps, codes for categories, objects for
    strings); values under nulls unspecified."""
    dt = col.dtype
    if dt == "string":
        return _convert.to_numpy(col)
    arr = np.asarray(col.values())
    if dt == "bool":
        return arr.astype(np.int8)
    if dt.startswith("timestamp") or dt == "date32":
        return arr.view(np.int64) if arr.dtype.itemsize == 8 else arr.astype(np.int64)
    return arr


class _Lookup:
    """Positions of labels in a one-level index: the labels sorted once
    (the engine's stable radix sort, missing labels last), then binary
    searches.  ``positions(label)`` gives the ascending positions."""

    __slots__ = ("col", "order", "keys", "n_valid", "increasing", "unique", "levels")

    def __init__(self, index):
        if index.nlevels != 1:
            self._init_multi(index)
            return
        col = index._levels()[0]
        if col.device != "cpu":
            col = col.to_device("cpu")
        self.col = col
        n = col.length
        self.n_valid = n - col.null_count
        keys = _sort_keys(col)
        if col.null_count == 0 and n > 1:
            increasing = _is_sorted(keys) and col.dtype != "category"
        else:
            increasing = n <= 1 and col.null_count == 0
        if increasing:
            self.order = None
            self.keys = keys
        else:
            scol = col
            if col.dtype == "category":  # search by codes, so sort by codes
                m = _convert.null_mask(col)
                scol = _core.column_from_buffer(np.ascontiguousarray(keys, dtype=np.int64),
                                                mask=m)
            order = _core.sort_indices(scol, True, False)
            self.order = _convert.values_numpy(order)
            valid = order.slice(0, self.n_valid)
            self.keys = keys[self.order[: self.n_valid]] if keys.dtype != object else \
                _convert.to_numpy(_core.take(col, valid))
        self.increasing = increasing
        if self.n_valid > 1:
            k = self.keys if self.order is not None else keys
            self.unique = not bool(np.any(k[1:self.n_valid] == k[:self.n_valid - 1]))
        else:
            self.unique = True
        if col.null_count > 1:
            self.unique = False

    def _init_multi(self, index):
        self.levels = None  # one lookup per level, made on first use
        self.col = None
        self.order = None
        self.keys = index
        self.n_valid = len(index)
        cols = index._levels()
        t = _core.table_from_columns(cols, [f"l{i}" for i in range(len(cols))])
        dup = _core.duplicated(t, list(range(len(cols))), "first")
        self.unique = dup.reduce("sum") == 0
        order = _core.sort_indices(t, list(range(len(cols))), [True] * len(cols), False)
        self.increasing = _is_identity(order) and all(c.null_count == 0 for c in cols)

    def _range(self, key):
        """(lo, hi) of label key among the sorted valid labels."""
        keys = self.keys[: self.n_valid] if self.order is not None else self.keys
        lo = int(np.searchsorted(keys, key, "left"))
        hi = int(np.searchsorted(keys, key, "right"))
        return lo, hi

    def positions(self, label):
        """Ascending int64 positions of the rows labelled label."""
        if self.col is None:
            return self._multi_positions(label)
        try:
            key = _label_key(self.col, label)
        except DTypeError:  # a label of another type is not in the index
            return np.empty(0, dtype=np.int64)
        if key is None:  # the missing label: the null rows
            m = _convert.null_mask(self.col)
            return np.flatnonzero(m) if m is not None else np.empty(0, dtype=np.int64)
        lo, hi = self._range(key)
        if self.order is None:
            return np.arange(lo, hi, dtype=np.int64)
        return np.sort(self.order[lo:hi])

    def _multi_positions(self, label):
        index = self.keys
        if not isinstance(label, tuple):
            label = (label,)
        if len(label) > index.nlevels:
            raise IndexKeyError(f"{label!r}: too many levels for an index of {index.nlevels}")
        if self.levels is None:
            self.levels = [Index._from_columns([c], [None])._lookup() for c in index._levels()]
        mask = None
        for sub, v in zip(self.levels, label):
            pos = sub.positions(v)
            m = np.zeros(len(index), dtype=bool)
            m[pos] = True
            mask = m if mask is None else (mask & m)
        return np.flatnonzero(mask)

    def first_positions(self, labels):
        """For each label (unique index), its position or -1: vectorized."""
        if self.col is None:
            raise UnsupportedError("get_indexer on a MultiIndex is not supported")
        out = np.full(len(labels), -1, dtype=np.int64)
        keys = [_label_key(self.col, v) for v in labels]
        valid = [i for i, k in enumerate(keys) if k is not None]
        if len(valid) < len(keys) and self.col.null_count:   # missing labels: the null row,
            missing = np.ones(len(keys), dtype=bool)          # as pandas matches NaN with NaN
            missing[valid] = False
            out[missing] = int(np.argmax(_convert.null_mask(self.col)))
        if not valid:
            return out
        arr = np.asarray([keys[i] for i in valid],
                         dtype=object if self.keys.dtype == object else None)
        sk = self.keys[: self.n_valid] if self.order is not None else self.keys
        lo = np.searchsorted(sk, arr, "left")
        hit = lo < len(sk)
        hit[hit] = sk[lo[hit]] == arr[hit]
        pos = lo if self.order is None else self.order[np.minimum(lo, max(len(sk) - 1, 0))]
        out[np.asarray(valid)[hit]] = pos[hit]
        return out

    def slice_bounds(self, start, stop):
        """Positions [lo, hi) of the labels between start and stop, both
        included (None: open end), for an increasing index."""
        lo, hi = 0, self.n_valid
        if start is not None:
            lo = int(np.searchsorted(self.keys, _label_key(self.col, start), "left"))
        if stop is not None:
            hi = int(np.searchsorted(self.keys, _label_key(self.col, stop), "right"))
        return lo, max(hi, lo)


def _is_sorted(keys):
    try:
        return bool(np.all(keys[1:] >= keys[:-1]))
    except TypeError:
        return False


class _RangeLookup:
    """Label lookups in a RangeIndex: arithmetic."""

    __slots__ = ("r",)
    unique = True

    def __init__(self, r):
        self.r = r

    @property
    def increasing(self):
        return self.r.step > 0 or len(self.r) <= 1

    def positions(self, label):
        if isinstance(label, (bool, np.bool_)) or not isinstance(
                label, (int, float, np.integer, np.floating)):
            return np.empty(0, dtype=np.int64)
        if isinstance(label, (float, np.floating)) and not float(label).is_integer():
            return np.empty(0, dtype=np.int64)
        v = int(label)
        if v in self.r:
            return np.array([self.r.index(v)], dtype=np.int64)
        return np.empty(0, dtype=np.int64)

    def first_positions(self, labels):
        arr = np.asarray(labels)
        if arr.dtype.kind not in "iuf":
            raise DTypeError(f"labels of dtype {arr.dtype} on a RangeIndex")
        r = self.r
        rel = (arr - r.start)
        pos = rel // r.step
        ok = (rel % r.step == 0) & (pos >= 0) & (pos < len(r))
        return np.where(ok, pos, -1).astype(np.int64)

    def slice_bounds(self, start, stop):
        """Positions [lo, hi) of the labels from start to stop, both
        included, by arithmetic (no labels are made)."""
        r = self.r
        n = len(r)

        def first_at_or_after(v):  # first position whose label is >= v (<= v if step < 0)
            k = -((r.start - v) // r.step) if r.step > 0 else -((v - r.start) // -r.step)
            return min(max(int(k), 0), n)

        def first_after(v):  # first position whose label is > v (< v if step < 0)
            k = (v - r.start) // r.step + 1 if r.step > 0 else (r.start - v) // -r.step + 1
            return min(max(int(k), 0), n)

        lo = 0 if start is None else first_at_or_after(start)
        hi = n if stop is None else first_after(stop)
        return lo, max(hi, lo)


# --------------------------------------------------------------------------
# pandas
# --------------------------------------------------------------------------


# --------------------------------------------------------------------------
# what loc asks of an index (zambezi._indexing)
# --------------------------------------------------------------------------

def all_positions(index, labels):
    """int64 positions of the rows each label names, label by label in the
    order given (every row of a repeated label, in index order).  Raises
    KeyError naming the labels that are missing, as pandas 3 does."""
    lk = index._lookup()
    if len(labels) == 0:
        return np.empty(0, dtype=np.int64)
    if isinstance(lk, _RangeLookup):
        pos = lk.first_positions(labels)
        missing = pos < 0
    elif lk.col is None or any(v is None for v in labels):
        parts = []
        missing = []
        for v in labels:
            p = lk.positions(v)
            missing.append(len(p) == 0)
            parts.append(p)
        missing = np.asarray(missing)
        pos = np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)
    else:
        keys = [_label_key(lk.col, v) for v in labels]
        arr = np.asarray(keys, dtype=object if lk.keys.dtype == object else None)
        sk = lk.keys[: lk.n_valid] if lk.order is not None else lk.keys
        lo = np.searchsorted(sk, arr, "left")
        hi = np.searchsorted(sk, arr, "right")
        counts = hi - lo
        missing = counts == 0
        total = int(counts.sum())
        starts = np.repeat(lo, counts)
        within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
        pos = starts + within
        if lk.order is not None:
            # each label's rows in index order
            pos = lk.order[pos]
            bounds = np.cumsum(counts)
            pos = np.concatenate([np.sort(p) for p in np.split(pos, bounds[:-1])]) \
                if len(counts) > 1 and (counts > 1).any() else pos
    if np.any(missing):
        gone = [v for v, m in zip(labels, missing) if m]
        raise IndexKeyError(f"None of {gone!r} are in the index" if len(gone) == len(labels)
                            else f"{gone!r} not in index")
    return np.ascontiguousarray(pos, dtype=np.int64)


_COARSE = {"Y", "M", "W", "D", "h", "m"}


def partial_date_span(index, key):
    """For a date string coarser than seconds ('2024', '2024-05',
    '2024-05-01', '2024-05-01 10:00') on a timestamp index: the rows in
    that period (a selection), as pandas' partial string indexing.  None
    for a string that names an instant."""
    from zambezi import _indexing

    try:
        v = np.datetime64(key.replace(" ", "T") if " " in key else key)
    except ValueError:
        raise DTypeError(f"{key!r} is not a date on a timestamp index") from None
    unit = np.datetime_data(v.dtype)[0]
    if unit not in _COARSE:
        return None
    col = index._levels()[0]
    lo = _timestamp_value(v, col)
    hi = _timestamp_value(v + np.timedelta64(1, unit), col)
    lk = index._lookup()
    if lk.increasing:
        a = int(np.searchsorted(lk.keys, lo, "left"))
        b = int(np.searchsorted(lk.keys, hi, "left"))
        return _indexing.slice_rows(a, b - a)
    keys = _sort_keys(col)
    m = (keys >= lo) & (keys < hi)
    nulls = _convert.null_mask(col)
    if nulls is not None:
        m &= ~nulls
    return _indexing.take_rows(_int64_column(np.flatnonzero(m)))


def _bound(index, label, side):
    """The sort key of a slice bound; a coarse date string on a timestamp
    index stands for its period (start for the lower bound, end for the
    upper)."""
    col = index._levels()[0]
    if isinstance(label, str) and col.dtype.startswith("timestamp"):
        v = np.datetime64(label.replace(" ", "T") if " " in label else label)
        unit = np.datetime_data(v.dtype)[0]
        if side == "right" and unit in _COARSE:
            return _timestamp_value(v + np.timedelta64(1, unit), col), "left"
        return _timestamp_value(v, col), side
    return _label_key(col, label), side


def unsorted_time_slice(index, start, stop):
    """pandas' slice of a timestamp index that is not increasing by bounds
    that are date strings (or None): the rows between them by value, in
    their order (positions), when each given bound is itself a label;
    KeyError when one is not.  None where this rule does not apply."""
    col = index._levels()[0] if index.nlevels == 1 else None
    if col is None or not col.dtype.startswith("timestamp") or (start is None and
                                                                   stop is None):
        return None
    if not all(b is None or isinstance(b, str) for b in (start, stop)) or \
            index._lookup().increasing:
        return None
    keys = _sort_keys(col)
    nulls = _convert.null_mask(col)
    valid = np.ones(len(keys), dtype=bool) if nulls is None else ~nulls
    m, present = valid.copy(), True
    if start is not None:
        lo, _ = _bound(index, start, "left")
        m &= keys >= lo
        present &= bool((valid & (keys == lo)).any())
    if stop is not None:
        hi, side = _bound(index, stop, "right")
        if side == "left":   # a period's end: its last instant in the index's unit
            hi -= 1
        m &= keys <= hi
        present &= bool((valid & (keys == hi)).any())
    if not present:
        raise IndexKeyError("Value based partial slicing on non-monotonic DatetimeIndexes "
                            "with non-existing keys is not allowed.")
    return np.flatnonzero(m)


def label_bounds(index, start, stop):
    """Positions [lo, hi) of the rows from label start to label stop, both
    included (None: an open end): a binary search on an increasing index,
    else the positions of two unique labels."""
    lk = index._lookup()
    n = len(index)
    if isinstance(lk, _RangeLookup):
        return lk.slice_bounds(start, stop)
    if index.nlevels > 1:
        if not lk.increasing:
            raise UnsupportedError("loc: slicing a MultiIndex that is not sorted; sort_index() "
                                   "first")
        lo = 0 if start is None else int(all_positions(index, [start])[0])
        hi = n if stop is None else int(all_positions(index, [stop])[-1]) + 1
        return lo, hi
    if lk.increasing:
        lo, hi = 0, n
        if start is not None:
            key, side = _bound(index, start, "left")
            lo = int(np.searchsorted(lk.keys, key, side))
        if stop is not None:
            key, side = _bound(index, stop, "right")
            hi = int(np.searchsorted(lk.keys, key, side))
        return lo, max(hi, lo)
    if not lk.unique:
        raise IndexKeyError("loc: cannot slice by labels on an index that is neither sorted "
                            "nor unique")
    lo = 0 if start is None else index.get_loc(start)
    hi = n if stop is None else index.get_loc(stop) + 1
    return lo, max(hi, lo)


# --------------------------------------------------------------------------
# get_indexer with a method: pad / backfill / nearest, limit and tolerance

_SIDES = {"bfill": "left", "backfill": "left", "ffill": "right", "pad": "right",
          "nearest": None}


def _target_values(index, target):
    keys = index.to_numpy()
    t = np.asarray(target._levels()[0].values() if hasattr(target, "_levels")
                   else target)
    if keys.dtype.kind == "M" and t.dtype.kind != "M":
        t = t.astype(keys.dtype)
    return keys, t


def _fill(keys, t, side, limit):
    """pandas' pad (side "right") or backfill ("left") positions of the
    targets t in the increasing labels keys; limit: at most that many
    targets that are not a label fill from one label -- the first ones
    after it for pad, the last ones before it for backfill (t increasing)."""
    pos = np.searchsorted(keys, t, side=side).astype(np.int64)
    out = np.where(pos >= len(keys), -1, pos) if side == "left" else pos - 1
    if t.dtype.kind in "mM":
        out[np.isnat(t)] = -1
    elif t.dtype.kind == "f":
        out[np.isnan(t)] = -1
    if limit is not None and len(t):
        found = out >= 0
        exact = np.zeros(len(t), dtype=bool)
        exact[found] = keys[out[found]] == t[found]
        filled = np.flatnonzero(found & ~exact)
        lab = out[filled]
        if side == "left":  # counted from the label backwards
            filled, lab = filled[::-1], lab[::-1]
        if len(lab):
            start = np.ones(len(lab), dtype=bool)
            start[1:] = lab[1:] != lab[:-1]
            first = np.flatnonzero(start)
            rank = np.arange(len(lab)) - first[np.cumsum(start) - 1]
            out[filled[rank >= limit]] = -1
    return out


def _distance(keys, t, pos):
    """|keys[pos] - t| (pos -1: the last label, as pandas computes it)."""
    return np.abs(keys[pos] - t) if len(keys) else np.zeros(len(t))


def _tolerance(tolerance, keys, n):
    tol = tolerance
    if keys.dtype.kind in "mM":
        if isinstance(tol, str):
            from zambezi import Timedelta
            tol = np.timedelta64(Timedelta(tol).value, "ns")
        elif hasattr(tol, "to_timedelta64"):
            tol = tol.to_timedelta64()
        tol = np.asarray(tol, dtype="timedelta64[ns]")
    else:
        tol = np.asarray(tol)
        if tol.dtype.kind not in "iuf":
            raise InvalidValueError(f"get_indexer: tolerance must be a number for numeric "
                                    f"labels, not {tolerance!r}")
        if (tol < 0).any():
            raise InvalidValueError("get_indexer: tolerance must be non-negative")
    if tol.ndim == 1 and len(tol) != n:
        raise InvalidValueError("get_indexer: list-like tolerance size must match target "
                                f"index size ({len(tol)} for {n})")
    return tol


_SWAPPED = {"pad": "backfill", "ffill": "bfill", "backfill": "pad", "bfill": "ffill"}


def nearby_indexer(index, target, method, limit, tolerance):
    """Index.get_indexer with a method (see its docstring): vectorized
    binary searches, as pandas' pad / backfill / nearest."""
    if method not in _SIDES:
        raise InvalidValueError(f"get_indexer: method must be None, 'bfill', 'backfill', "
                                f"'ffill', 'pad' or 'nearest', not {method!r}")
    if index.nlevels != 1:
        raise InvalidValueError(f"get_indexer(method={method!r}): the index must be a "
                                "single level")
    # decreasing labels: the search runs on them reversed, pad and backfill
    # swapped (pandas' pad on a decreasing index takes the label before in
    # its order: the next larger), and the positions map back
    decreasing = not index.is_monotonic_increasing
    if decreasing and not index.is_monotonic_decreasing:
        raise InvalidValueError(f"get_indexer(method={method!r}): the index must be "
                                "monotonic increasing or decreasing")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, np.integer))
                              or limit <= 0):
        raise InvalidValueError(f"get_indexer: limit must be an integer greater than 0, not "
                                f"{limit!r}")
    keys, t = _target_values(index, target)
    if decreasing:
        keys = keys[::-1]
        method = _SWAPPED.get(method, method)
    if limit is not None and len(t) > 1 and not (t[1:] >= t[:-1]).all():
        raise InvalidValueError(f"limit argument for {method!r} method only well-defined if "
                                "index and target are monotonic")
    if method == "nearest":
        if keys.dtype.kind not in "iufmM":
            raise InvalidValueError("get_indexer(method='nearest'): the labels must be numbers "
                                    "or times")
        left = _fill(keys, t, "right", limit)
        right = _fill(keys, t, "left", limit)
        if not len(keys):
            return left
        out = np.where((_distance(keys, t, left) < _distance(keys, t, right)) | (right == -1),
                       left, right)
    else:
        out = _fill(keys, t, _SIDES[method], limit)
    if tolerance is not None and len(keys):
        tol = _tolerance(tolerance, keys, len(t))
        out = np.where(_distance(keys, t, out) <= tol, out, -1)
    if decreasing:
        out = np.where(out >= 0, len(keys) - 1 - out, -1)
    return out
