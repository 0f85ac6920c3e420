"""merge_ordered: pandas' ordered merge (time series, ordered keys).

An ordered merge is the merge of zambezi._merge with the rows sorted by
the keys (how='outer' by default).  ``fill_method='ffill'`` fills each
side's columns of a row the side has no match for with the side's row of
the last match above it, as pandas (it forward-fills the join's row
indexers, not the values: a missing value of a matched row stays missing).
The key columns are the merge's own.  ``left_by`` / ``right_by`` merge each
group of one side (first appearance order, groups with a missing key left
out, as pandas' groupby) with the other side's rows of the same group, or
with all of it when those columns are not there, and put the group's key
in every row of its piece; one merge per group, as pandas does it.
"""

import numpy as np

from zambezi import _base, _convert, _core
from zambezi._concat import concat
from zambezi._labels import as_list
from zambezi._merge import merge
from zambezi.errors import InvalidValueError

_LPOS, _RPOS = "__zambezi_left_row", "__zambezi_right_row"


def _key_lists(left, right, on, left_on, right_on):
    """The key columns of each side, as lists (pandas' defaults: on, or
    the columns both share)."""
    if on is not None:
        return as_list(on), as_list(on)
    if left_on is not None and right_on is not None:
        return as_list(left_on), as_list(right_on)
    common = [c for c in left.columns if c in set(right.columns)]
    return common, common


def _merged_names(left, right, lkeys, rkeys, suffixes):
    """Where each side's columns land in the merge's result: {column:
    result name}, for the columns the fill takes (not the shared keys)."""
    shared = {lk for lk, rk in zip(lkeys, rkeys) if lk == rk}
    overlap = (set(left.columns) & set(right.columns)) - shared
    lname = {c: (f"{c}{suffixes[0]}" if c in overlap and suffixes[0] else c)
             for c in left.columns if c not in shared}
    rname = {c: (f"{c}{suffixes[1]}" if c in overlap and suffixes[1] else c)
             for c in right.columns if c not in shared}
    return lname, rname


def _ordered(left, right, on, left_on, right_on, suffixes, fill_method, how):
    if fill_method not in (None, "ffill"):
        raise InvalidValueError("fill_method must be 'ffill' or None")
    if fill_method is None:
        return merge(left, right, how=how, on=on, left_on=left_on, right_on=right_on,
                     sort=True, suffixes=suffixes)
    lkeys, rkeys = _key_lists(left, right, on, left_on, right_on)
    lname, rname = _merged_names(left, right, lkeys, rkeys, suffixes)
    lrow = left.assign(**{_LPOS: np.arange(len(left), dtype=np.int64)})
    rrow = right.assign(**{_RPOS: np.arange(len(right), dtype=np.int64)})
    res = merge(lrow, rrow, how=how, on=on, left_on=left_on, right_on=right_on, sort=True,
                suffixes=suffixes)
    out = res.drop(columns=[_LPOS, _RPOS])
    for side, names, pos in ((left, lname, _LPOS), (right, rname, _RPOS)):
        rows = res[pos].ffill()._col   # the side's row of the last match above
        for col, name in names.items():
            if name in out.columns:
                out[name] = out[name]._like(_core.take(side[col]._col, rows))
    return out


def _by_groups(by, side, other, merge_piece, what):
    """pandas' _groupby_and_merge: each group of `side` merged with the
    rows of `other` in the same group (or all of `other`)."""
    by = as_list(by)
    missing = set(by).difference(side.columns)
    if missing:
        raise KeyError(f"{missing} not found in {what} columns")
    in_other = all(b in other.columns for b in by)
    rows = other.groupby(by, sort=False).indices if in_other else None
    pieces = []
    for key, part in side.groupby(by, sort=False):
        values = key if isinstance(key, tuple) else (key,)
        key = values[0] if len(by) == 1 else values   # as `indices` names groups
        if rows is not None and key not in rows:   # no match: other's columns missing
            piece = part.reset_index(drop=True)
            for c in other.columns:
                if c not in set(part.columns):
                    piece[c] = _base.series_class()._from_column(
                        _convert.nulls_like(other[c]._col, len(part)), c)
            pieces.append(piece)
            continue
        match = other if rows is None else other.take(rows[key])
        merged = merge_piece(part, match)
        for b, v in zip(by, values):
            merged[b] = v
        pieces.append(merged)
    if not pieces:   # pandas' concat of no pieces
        raise InvalidValueError("No objects to concatenate")
    return concat(pieces, ignore_index=True).reindex(columns=list(pieces[0].columns))


def merge_ordered(left, right, on=None, left_on=None, right_on=None, left_by=None,
                  right_by=None, fill_method=None, suffixes=("_x", "_y"), how="outer"):
    """Merge with the rows ordered by the keys, for ordered data such as
    time series (pandas' ``merge_ordered``); ``how`` is 'outer' by default.
    ``fill_method='ffill'``: a row one side has no match for takes that
    side's values from its last match above.  ``left_by`` / ``right_by``:
    merge each group of that side with the other side separately (see
    zambezi._merge_ordered).

    Examples
    --------
    >>> quotes = zb.DataFrame({"t": [1, 3, 5], "bid": [10.0, 11.0, 12.0]})
    >>> trades = zb.DataFrame({"t": [2, 3], "qty": [7, 8]})
    >>> zb.merge_ordered(quotes, trades, on="t", fill_method="ffill").to_dict("list")
    {'t': [1, 2, 3, 5], 'bid': [10.0, 10.0, 11.0, 12.0], 'qty': [None, 7, 8, 8]}
    """
    for side in (left, right):
        if not _base.is_frame(side):
            raise InvalidValueError(f"merge_ordered: expected DataFrames, got "
                                    f"{type(side).__name__}")
    if left_by is not None and right_by is not None:
        raise InvalidValueError("Can only group either left or right frames")

    def piece(x, y):
        return _ordered(x, y, on, left_on, right_on, suffixes, fill_method, how)

    if left_by is not None:
        return _by_groups(left_by, left, right, piece, "left")
    if right_by is not None:
        return _by_groups(right_by, right, left, lambda x, y: piece(y, x), "right")
    return piece(left, right)
