"""merge_asof: each left row joined with the right row whose key is the
nearest before it (or after it, or either), as ``pandas.merge_asof``.

Both sides must be sorted by their key (numbers or timestamps, no missing
keys), as pandas requires.  ``by`` / ``left_by`` / ``right_by`` restrict
the match to rows with equal by-values (any dtype).  The matching is done
with whole-array index arithmetic, never a loop over rows: the keys of both
sides are sorted together by (by-group, key, side) -- the engine numbers
the by-groups -- and a running maximum (backward) or minimum (forward) of
the right rows' positions finds each left row's match in one pass.  The
right columns are then gathered by the engine (a row with no match gets
missing values).

Result columns and index, as pandas: the left columns, then the right
ones less a key or by column that has the left one's name; other names on
both sides get the suffixes.  The index is the left side's with
left_index or right_index, else 0..n-1.

Frames on a GPU are matched on the host and the result copied back (a
fallback a profile shows).

Differences from pandas: an integer right column with unmatched rows stays
integer with missing values (pandas makes it float64 with NaN).
"""

import numpy as np

from zambezi import _base, _core
from zambezi import index as _ix
from zambezi._concat import _concat_columns
from zambezi._convert import _is_pandas, null_mask, values_numpy
from zambezi._reshape import _host_numpy, _positions
from zambezi.errors import ColumnNotFoundError, DTypeError, InvalidValueError

_UNITS = ("s", "ms", "us", "ns")
_DIRECTIONS = ("backward", "forward", "nearest")


def _frame(obj, side):
    if _is_pandas(obj, "DataFrame") or _is_pandas(obj, "Series"):
        from zambezi import from_pandas
        obj = from_pandas(obj)
    if _base.is_series(obj):
        if obj.name is None:
            raise InvalidValueError("merge_asof: cannot merge a Series without a name")
        obj = obj.to_frame()
    if not _base.is_frame(obj):
        raise InvalidValueError(f"merge_asof: the {side} side must be a DataFrame or a named "
                                f"Series, not {type(obj).__name__}")
    return obj


def _one(key, what):
    if isinstance(key, (list, tuple)):
        if len(key) != 1:
            raise InvalidValueError(f"merge_asof: {what} takes one key, not {len(key)}")
        key = key[0]
    return key


def _names(keys):
    if keys is None:
        return []
    return list(keys) if isinstance(keys, (list, tuple)) else [keys]


def _column(df, name, side, what):
    names = df._table.names
    if name not in names:
        raise ColumnNotFoundError(f"merge_asof: no column named {name!r} ({what}) on the "
                                  f"{side} side; the columns are {names!r}")
    return df._table.column(names.index(name))


def _key_column(df, name, use_index, side):
    if use_index:
        if df._index.nlevels != 1:
            raise InvalidValueError(f"merge_asof: the {side} index has {df._index.nlevels} "
                                    "levels; it must have one to be the key")
        return df._index._levels()[0]
    if name is None:
        raise InvalidValueError(f"merge_asof: no key for the {side} side: give on=, "
                                f"{side}_on= or {side}_index=True")
    return _column(df, name, side, "key")


def _kind(dtype):
    if dtype.startswith("timestamp"):
        return "timestamp"
    if dtype.startswith(("int", "uint")):
        return "int"
    if dtype.startswith("float"):
        return "float"
    return None


def _key_values(lcol, rcol):
    """The two keys as numpy arrays of one comparable type (int64, float64,
    or int64 counts of the finer time unit) and that unit (None for
    numbers); raises as pandas on missing, unsorted or mismatched keys."""
    lk, rk = _kind(lcol.dtype), _kind(rcol.dtype)
    for kind, col, side in ((lk, lcol, "left"), (rk, rcol, "right")):
        if kind is None:
            raise DTypeError(f"merge_asof: the {side} key must be numbers or timestamps, "
                             f"not {col.dtype}")
        m = null_mask(col)
        if m is not None and m.any():
            raise InvalidValueError(f"Merge keys contain null values on {side} side")
    if lcol.dtype != rcol.dtype:
        raise InvalidValueError(f"incompatible merge keys [0] {lcol.dtype} and {rcol.dtype}, "
                                "must be the same type")
    unit = None
    if lk == "timestamp":
        unit = max(lcol.unit, rcol.unit, key=_UNITS.index)
        lv = values_numpy(lcol).astype(f"datetime64[{unit}]").view(np.int64)
        rv = values_numpy(rcol).astype(f"datetime64[{unit}]").view(np.int64)
    else:
        target = np.int64 if lk == "int" else np.float64
        lv = np.asarray(values_numpy(lcol)).astype(target)
        rv = np.asarray(values_numpy(rcol)).astype(target)
    for v, side in ((lv, "left"), (rv, "right")):
        if len(v) > 1 and not bool(np.all(v[1:] >= v[:-1])):
            raise InvalidValueError(f"{side} keys must be sorted")
    return lv, rv, unit


def _tolerance(tolerance, values, unit):
    """tolerance in the keys' units (None for none)."""
    if tolerance is None:
        return None
    if unit is not None:
        try:
            tol = np.timedelta64(tolerance)
        except (TypeError, ValueError):
            tol = None
        if tol is None or isinstance(tolerance, (int, float, np.number)):
            raise InvalidValueError(f"incompatible tolerance {tolerance!r}, must be compat with type "
                             "datetime (a Timedelta)")
        t = int(tol.astype(f"timedelta64[{unit}]").view(np.int64))
    elif values.dtype == np.int64:
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, np.integer)):
            raise InvalidValueError(f"incompatible tolerance {tolerance!r}, must be compat "
                                    "with type int64")
        t = int(tolerance)
    else:
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float, np.number)):
            raise InvalidValueError(f"incompatible tolerance {tolerance!r}, must be compat "
                                    "with type float64")
        t = float(tolerance)
    if t < 0:
        raise InvalidValueError("tolerance must be non-negative")
    return t


def _groups(lcols, rcols):
    """Each row's by-group (equal by-values on either side, a missing value
    equal to a missing value), left rows then right rows, as int64.  The
    by columns of the two sides must have one dtype, as pandas requires."""
    for i, (a, b) in enumerate(zip(lcols, rcols)):
        if a.dtype != b.dtype:
            raise InvalidValueError(f"incompatible merge keys [{i}] {a.dtype} and {b.dtype}, "
                                    "must be the same type")
    nl = lcols[0].length
    parts = [_concat_columns([a, b], "merge_asof by") for a, b in zip(lcols, rcols)]
    t = _core.table_from_columns(parts, [f"b{i}" for i in range(len(parts))])
    ids, _ = _core.group_ids(t, list(range(len(parts))), False, False)
    ids = _host_numpy(ids).astype(np.int64)
    return ids[:nl], ids[nl:]


def _match(lv, rv, gl, gr, forward, allow_exact):
    """For each left row, the position of its right row (-1: none): the
    last right row of its group with a key below (backward) or the first
    with a key above (forward), equal keys counting when allow_exact."""
    nl, nr = len(lv), len(rv)
    n = nl + nr
    key = np.concatenate([lv, rv])
    gid = np.concatenate([gl, gr])
    is_right = np.r_[np.zeros(nl, dtype=bool), np.ones(nr, dtype=bool)]
    # at equal keys the right rows sort before the left ones when they count
    # (backward) or after them (forward), and the other way when they do not
    right_first = allow_exact != forward
    tie = np.where(is_right, 0 if right_first else 1, 1 if right_first else 0)
    order = np.lexsort((tie, key, gid))  # stable: equal right keys keep their order
    s_right = is_right[order]
    pos = np.arange(n, dtype=np.int64)
    if forward:
        cand = np.where(s_right, pos, n)
        near = np.minimum.accumulate(cand[::-1])[::-1]
        ok = near < n
    else:
        cand = np.where(s_right, pos, -1)
        near = np.maximum.accumulate(cand)
        ok = near >= 0
    s_gid = gid[order]
    safe = np.where(ok, near, 0)
    ok &= s_gid[safe] == s_gid
    left_at = ~s_right
    out = np.full(nl, -1, dtype=np.int64)
    out[order[left_at]] = np.where(ok[left_at], order[safe[left_at]] - nl, -1)
    return out


def merge_asof(left, right, on=None, left_on=None, right_on=None, left_index=False,
               right_index=False, by=None, left_by=None, right_by=None, suffixes=("_x", "_y"),
               tolerance=None, allow_exact_matches=True, direction="backward"):
    """Join each left row with the right row whose key is nearest before it
    (``direction="backward"``, the default), after it (``"forward"``) or
    either (``"nearest"``; the one before on a tie), as
    ``pandas.merge_asof``: a left join on the nearest key rather than an
    equal one.  Both sides must be sorted by their key (numbers or
    timestamps without missing values).

    Parameters
    ----------
    left, right : DataFrame (or named Series)
    on, left_on, right_on : str
        The key column (one), on both sides or on each.
    left_index, right_index : bool
        A side's index (one level) is its key.
    by, left_by, right_by : str or list of str
        Match only rows with equal values in these columns too.
    suffixes : pair of str
        Added to the names of other columns present on both sides.
    tolerance : number or Timedelta
        The furthest a match's key may be (no match beyond it).
    allow_exact_matches : bool
        Whether a right key equal to the left one matches (True, the
        default) or only strictly nearer-before / after ones.
    direction : "backward", "forward" or "nearest"

    Examples
    --------
    >>> trades = zb.DataFrame({"t": [1, 5, 10], "sym": ["a", "b", "a"], "qty": [10, 20, 30]})
    >>> quotes = zb.DataFrame({"t": [1, 2, 3, 6, 7], "sym": ["a", "a", "b", "b", "a"],
    ...                        "bid": [1.0, 2.0, 3.0, 6.0, 7.0]})
    >>> zb.merge_asof(trades, quotes, on="t", by="sym").to_dict("list")
    {'t': [1, 5, 10], 'sym': ['a', 'b', 'a'], 'qty': [10, 20, 30], 'bid': [1.0, 3.0, 7.0]}
    >>> zb.merge_asof(trades, quotes, on="t", by="sym", direction="forward")["bid"].to_list()
    [1.0, 6.0, None]
    >>> zb.merge_asof(trades, quotes, on="t", tolerance=2)["bid"].to_list()
    [1.0, 3.0, None]
    """
    left, right = _frame(left, "left"), _frame(right, "right")
    if left.device != "cpu" or right.device != "cpu":
        # matched on the host (numpy index arithmetic), recorded as a fallback
        import time

        from zambezi import _profile

        t = time.perf_counter()
        out = merge_asof(left.to("cpu"), right.to("cpu"), on=on, left_on=left_on,
                         right_on=right_on, left_index=left_index, right_index=right_index,
                         by=by, left_by=left_by, right_by=right_by, suffixes=suffixes,
                         tolerance=tolerance, allow_exact_matches=allow_exact_matches,
                         direction=direction).to(left.device)
        _profile.note("merge_asof", "cpu", left.device, len(left), time.perf_counter() - t,
                      "merge_asof matches on the host", fallback=True)
        return out
    if direction not in _DIRECTIONS:
        raise InvalidValueError(f"merge_asof: direction must be one of "
                                f"{', '.join(_DIRECTIONS)}, not {direction!r}")
    if not isinstance(allow_exact_matches, (bool, np.bool_)):
        raise InvalidValueError("allow_exact_matches must be boolean, passed "
                                f"{allow_exact_matches!r}")
    if suffixes is None or len(suffixes) != 2:
        raise InvalidValueError("merge_asof: suffixes must be a pair (left, right)")
    if on is not None:
        if left_on is not None or right_on is not None or left_index or right_index:
            raise InvalidValueError("merge_asof: give on= or left_on= / right_on= / "
                                    "left_index / right_index, not both")
        left_on = right_on = _one(on, "on")
    left_on, right_on = _one(left_on, "left_on"), _one(right_on, "right_on")
    if left_index and left_on is not None or right_index and right_on is not None:
        raise InvalidValueError("merge_asof: a side's key is its column or its index, not both")
    if by is not None:
        if left_by is not None or right_by is not None:
            raise InvalidValueError("merge_asof: give by= or left_by= / right_by=, not both")
        left_by = right_by = by
    lby, rby = _names(left_by), _names(right_by)
    if len(lby) != len(rby):
        raise InvalidValueError("left_by and right_by must be the same length")

    lkey = _key_column(left, left_on, left_index, "left")
    rkey = _key_column(right, right_on, right_index, "right")
    lv, rv, unit = _key_values(lkey, rkey)
    tol = _tolerance(tolerance, lv, unit)
    nl = len(lv)
    if lby:
        gl, gr = _groups([_column(left, b, "left", "by") for b in lby],
                         [_column(right, b, "right", "by") for b in rby])
    else:
        gl, gr = np.zeros(nl, dtype=np.int64), np.zeros(len(rv), dtype=np.int64)

    if not len(rv):
        at = np.full(nl, -1, dtype=np.int64)
    elif direction == "nearest":
        back = _match(lv, rv, gl, gr, False, bool(allow_exact_matches))
        fwd = _match(lv, rv, gl, gr, True, bool(allow_exact_matches))
        db = np.where(back >= 0, lv - rv[np.maximum(back, 0)], 0)
        df = np.where(fwd >= 0, rv[np.maximum(fwd, 0)] - lv, 0)
        at = np.where((back >= 0) & ((fwd < 0) | (db <= df)), back, fwd)
    else:
        at = _match(lv, rv, gl, gr, direction == "forward", bool(allow_exact_matches))
    if tol is not None and len(rv):
        dist = np.abs(lv - rv[np.maximum(at, 0)])
        at = np.where((at >= 0) & (dist <= tol), at, -1)

    lnames, rnames = list(left._table.names), list(right._table.names)
    drop = set()
    if not left_index and not right_index and left_on == right_on:
        drop.add(right_on)
    drop.update(r for lb, r in zip(lby, rby) if lb == r)
    right_kept = [n for n in rnames if n not in drop]
    overlap = set(lnames) & set(right_kept)
    ls, rs = suffixes
    cols = [left._table.column(i) for i in range(len(lnames))]
    names = [n + ls if n in overlap and ls else n for n in lnames]
    if right_kept:
        rt = _core.take(right._table.select([rnames.index(n) for n in right_kept]),
                        _positions(at))
        rcols = [rt.column(i) for i in range(len(right_kept))]
        if left_index and not right_index and right_on in right_kept and bool((at < 0).any()):
            # as pandas: the right key column holds the matched right keys
            # when every left row found one, else the left keys (the index)
            rcols[right_kept.index(right_on)] = lkey
        cols += rcols
        names += [n + rs if n in overlap and rs else n for n in right_kept]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise InvalidValueError(f"merge_asof: the result would have duplicate column names "
                                f"{dup}; choose other suffixes")
    index = left._index if left_index or right_index else _ix.default_index(nl)
    return left._constructor._wrap(_core.table_from_columns(cols, names), index)
