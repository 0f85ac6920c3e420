"""Alignment on row labels: how two Series (or a frame and a Series, or two
frames) are matched before a binary operation, as pandas does it.

- Two objects whose indexes are the same object, or equal (``same_labels``:
  identity first, then two RangeIndexes by start/stop/step, then
  ``Index.equals``), combine positionally: no hash work, the result keeps
  the left object's labels.
- Otherwise their labels are joined by the engine (``_core.join_indices``
  on tables of the index levels, how="outer", sorted): the result has the
  union of the labels, sorted (pandas sorts the union of two indexes that
  differ), and a label that appears several times on both sides gives
  every pair (left-major), as pandas' join does.  A missing label (null, or
  NaN) matches the missing labels of the other side and sorts last, as in
  pandas.  One level of labels without nulls, strictly increasing on each
  side (time series, sorted ids), is merged there in one pass
  (src/cpu/merge_join.c); other labels are hashed.
- Integer labels without nulls that do not start rising, unique on each
  side, are instead sorted together by one engine sort that also gives the
  permutation, and numpy pairs the equal labels (``_merge_unique``): no
  hash table, and the union comes out sorted.
- ``take_side`` gathers one side's values at the joined rows (a row the side
  lacks becomes null) and applies pandas' reindexing dtype rule: an integer
  column without nulls that gains missing rows becomes float64 (pandas
  reindexes int64 to float64 with NaN); for the logical operators pandas'
  rule for the rows a bool column without nulls lacks (``logical_gaps``).

Nothing here loops over rows: one join, one take per column.
"""

import numpy as np

from zambezi import _convert, _core
from zambezi import index as _ix
from zambezi.errors import DTypeError, UnsupportedError, ZambeziError

_INTEGER = ("int", "uint")
_FLOAT = ("float32", "float64")
_LOGICAL = frozenset(["and", "or", "xor"])


def same_labels(a, b):
    """Whether indexes a and b hold the same labels in the same order,
    checked as cheaply as possible: identity, then RangeIndex parameters
    (O(1)), then ``Index.equals`` (one engine comparison)."""
    if a is b:
        return True
    if isinstance(a, _ix.RangeIndex) and isinstance(b, _ix.RangeIndex):
        return a._range == b._range  # range equality compares the sequences, in O(1)
    if len(a) != len(b):
        return False
    return a.equals(b)


def _common_levels(a, b, what):
    """Two level columns cast to one dtype the join can compare and the
    union can hold (pandas casts both indexes to their common dtype)."""
    if a.dtype == b.dtype:
        return a, b
    da, db = a.dtype, b.dtype
    num = lambda d: d.startswith(_INTEGER) or d in _FLOAT  # noqa: E731
    if num(da) and num(db):
        target = "float64" if (da in _FLOAT or db in _FLOAT) else "int64"
    elif da in ("string", "category") and db in ("string", "category"):
        target = "string"
    elif da.startswith("timestamp") and db.startswith("timestamp"):
        return _common_times(a, b, what)
    elif da.startswith("duration") and db.startswith("duration"):
        unit = _finer(a.unit, b.unit)
        return _core.cast(a, f"duration[{unit}]"), _core.cast(b, f"duration[{unit}]")
    else:
        raise DTypeError(
            f"{what}: cannot align an index of {da} labels with one of {db} labels "
            "(pandas would make an object index)")
    return (a if da == target else _core.cast(a, target),
            b if db == target else _core.cast(b, target))


_UNITS = ("s", "ms", "us", "ns")


def _finer(u, v):
    return u if _UNITS.index(u) >= _UNITS.index(v) else v


def _common_times(a, b, what):
    """Timestamps of two units or zones as pandas joins them: the finer
    unit; two zones meet in UTC; naive and aware do not join."""
    from zambezi import _dt_methods

    if (a.timezone is None) != (b.timezone is None):
        raise DTypeError(f"{what}: cannot join tz-naive with tz-aware labels")
    tz = a.timezone if a.timezone == b.timezone else "UTC"
    unit = _finer(a.unit, b.unit)
    target = f"timestamp[{unit}]" if tz is None else f"timestamp[{unit}, tz={tz}]"
    out = []
    for c in (a, b):
        if c.timezone != tz:
            c = _dt_methods.tz_convert(c, tz)
        out.append(c if c.dtype == target else _core.cast(c, target))
    return out


_FILL = {"bool": False, "string": ""}


def _null_keys(col):
    """Join keys that make a missing label match the other side's missing
    labels: (is-null flag, the value with nulls filled by a placeholder).
    The flag sorts the missing labels last."""
    isnull = _core.isnull(col)
    d = col.dtype
    if d == "category":
        col = _core.cast(col, "string")
    elif d == "date32" or d.startswith(("timestamp", "duration")):
        col = _core.cast(col, "int64")
    fill = _FILL.get(col.dtype, 0)
    return [isnull, _core.fill_null(col, fill)]


def join_indexes(left, right, what="align", how="outer"):
    """pandas' outer join of two indexes: (union index, left positions,
    right positions), the positions int64 engine columns with a null where
    that side has no row.  The union is sorted (missing labels last); equal
    labels keep the left side's order, each left row with the right rows of
    its label in their order.  how="left" / "right" / "inner" join as
    pandas' Index.join (the left, the right labels in their order; the
    labels both have, in the left order)."""
    if left.nlevels != right.nlevels:
        raise UnsupportedError(
            f"{what}: cannot align an index of {left.nlevels} level(s) with one of "
            f"{right.nlevels} level(s)")
    lcols, rcols = [], []
    for a, b in zip(left._levels(), right._levels()):
        a, b = _common_levels(a, b, what)
        lcols.append(a)
        rcols.append(b)
    nulls = any(c.null_count for c in lcols) or any(c.null_count for c in rcols)
    if how == "right":
        index, rpos, lpos = join_indexes(right, left, what, "left")
        return index, lpos, rpos
    if how == "outer" and len(lcols) == 1 and not nulls and \
            lcols[0].dtype.startswith(_INTEGER) and \
            not (_rising_start(lcols[0]) and _rising_start(rcols[0])):
        merged = _merge_unique(lcols[0], rcols[0])
        if merged is not None:
            labels, lpos, rpos = merged
            return _ix.Index._from_columns([labels], left.names), lpos, rpos
    lkeys, rkeys = [], []
    for a, b in zip(lcols, rcols):
        if nulls:
            lkeys += _null_keys(a)
            rkeys += _null_keys(b)
        else:
            lkeys.append(a)
            rkeys.append(b)
    names = [f"k{i}" for i in range(len(lkeys))]
    keys = list(range(len(lkeys)))
    try:
        lpos, rpos = _core.join_indices(_core.table_from_columns(lkeys, names),
                                        _core.table_from_columns(rkeys, names),
                                        keys, keys, how, how == "outer")
    except ZambeziError as e:
        raise type(e)(f"{what}: {e}") from None
    if how != "outer":   # every row has its left label
        return _ix.Index._from_columns([_core.take(a, lpos) for a in lcols], left.names), \
            lpos, rpos
    from_left = _core.notnull(lpos)
    all_left = lpos.null_count == 0
    labels = []
    for a, b in zip(lcols, rcols):
        la = _core.take(a, lpos)
        labels.append(la if all_left else _core.column_where(la, from_left, _core.take(b, rpos)))
    return _ix.Index._from_columns(labels, left.names), lpos, rpos


def _rising_start(col):
    """The first labels of an integer column rise strictly: likely sorted
    unique labels, which the engine's join merges (src/cpu/merge_join.c)
    faster than _merge_unique sorts."""
    if col.device != "cpu":   # the engine's merge is the CPU's
        return False
    v = _convert.values_numpy(col.slice(0, min(len(col), 64)))
    return bool((v[1:] > v[:-1]).all())


def _positions(pos, null):
    """An int64 engine column of pos, null where null is true."""
    return _core.column_from_buffer(pos, mask=null if null.any() else None)


def _merge_unique(a, b):
    """The outer join of two integer label columns without nulls whose
    labels are unique on each side, by one engine sort of both sides'
    labels together (values and permutation from one radix sort) and a few
    numpy passes: (union labels, left positions, right positions), as
    join_indexes gives them.  None when a label repeats on one side (the
    hash join then gives every pair)."""
    na = len(a)
    values, order = _core.sort_values(_core.concat([a, b]), True, False, True)
    v = _convert.values_numpy(values)
    o = _convert.values_numpy(order)
    m = len(v)
    if m == 0:
        return None
    first = np.empty(m, dtype=bool)  # the first row of each label's run
    first[0] = True
    np.not_equal(v[1:], v[:-1], out=first[1:])
    keep = np.flatnonzero(first)
    run = np.diff(keep, append=m)  # rows per label
    if (run > 2).any():
        return None
    ok = o[keep]
    fb = ok >= na                 # the label's first row is a right row
    pk = run == 2                 # the label is on both sides ...
    after = keep + 1
    after[-1] = min(after[-1], m - 1)
    nxt = o[after]
    # ... as (left row, right row): the stable sort puts left rows first;
    # two rows from one side are a repeated label
    if (pk & (fb | (nxt < na))).any():
        return None
    lpos = np.where(fb, 0, ok)
    rpos = np.where(fb, ok, np.where(pk, nxt, na)) - na
    rnull = ~(fb | pk)
    labels = _core.column_from_buffer(v[keep])
    return labels, _positions(lpos, fb), _positions(rpos, rnull)


def take_side(col, pos, op=None, right=False):
    """col's values at pos (an int64 engine column; null: a row this side
    lacks, which becomes null), with pandas' reindexing dtype rule (see the
    module docstring).  op is the engine operation that follows, or None;
    right: col is the right operand (see ``logical_gaps``)."""
    out = _core.take(col, pos)
    if pos.null_count == 0 or col.null_count > 0:
        return out
    if op in _LOGICAL:
        return _core.fill_null(out, False) if right and col.dtype == "bool" else out
    if col.dtype.startswith(_INTEGER):
        return _core.cast(out, "float64")
    return out


def logical_gaps(result, op, left, lpos):
    """A logical operator's result with pandas' rule for the rows a bool
    operand without nulls (pandas' numpy bool) lacks: the right operand's
    missing rows count as False (``take_side(..., right=True)``), and where
    the left operand lacks the row the result is False (pandas computes
    those rows on object values and fills them with False).  left: the
    left operand's original column, lpos its positions."""
    if op not in _LOGICAL or lpos.null_count == 0 or left.null_count > 0 or \
            left.dtype != "bool":
        return result
    return _core.column_where(result, _core.notnull(lpos), False)


def all_null(n, device="cpu"):
    """A float64 column of n nulls on device (pandas' all-NaN column for a
    label one side lacks)."""
    base = _core.column_from_buffer(np.zeros(1, dtype=np.float64))
    pos = _core.column_from_buffer(np.zeros(n, dtype=np.int64), mask=np.ones(n, dtype=bool))
    out = _core.take(base, pos)
    return out if device == "cpu" else out.to_device(device)


def broadcast(col, n, device=None):
    """A one-row column repeated n times (one engine take), on col's
    device, or on device when given."""
    pos = _core.column_from_buffer(np.zeros(n, dtype=np.int64))
    if col.device != "cpu":
        pos = pos.to_device(col.device)
    out = _core.take(col, pos)
    return out if device is None or device == out.device else out.to_device(device)


def fill_pair(a, b, fill_value):
    """pandas' fill_value: a value missing (null, NaN) on one side only is
    replaced by fill_value before the operation; missing on both sides
    stays missing."""
    from zambezi._compute import _missing_mask
    from zambezi._dtypes import py_scalar

    ma, mb = _missing_mask(a), _missing_mask(b)
    only_a = _core.binary("and", ma, _core.unary("invert", mb))
    only_b = _core.binary("and", mb, _core.unary("invert", ma))
    fill = py_scalar(fill_value)
    if only_a.reduce("sum"):
        a = _core.column_where(a, only_a, fill, mask=True)
    if only_b.reduce("sum"):
        b = _core.column_where(b, only_b, fill, mask=True)
    return a, b
