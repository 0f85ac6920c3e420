"""Set operations of an Index with pandas' names: ``union``,
``intersection`` and ``difference`` (what Dask's cumulative group-bys and
column selections call on partitions' labels).

The labels are one engine column: union is an engine concat and unique,
intersection and difference an engine membership test (``isin``), and
each result is sorted by the engine when pandas sorts it (``sort=None``:
when the labels can be ordered).  A MultiIndex has union (its levels'
columns concatenated, the engine's group ids keeping each label tuple
once) but not the others; a union of indexes with repeated labels (pandas
keeps the repeats there) is not supported.
"""

import numpy as np

from zambezi import _base, _core
from zambezi.errors import UnsupportedError, ZambeziError


def _operands(index, other, what):
    from zambezi import index as _ix

    other = _ix.ensure_index(other, what=what)
    if index.nlevels != 1 or other.nlevels != 1:
        raise UnsupportedError(f"Index.{what} of a MultiIndex is not supported")
    name = index.name if index.name == other.name else None
    return other, name


def _sorted(col, sort, what):
    if sort is False:
        return col
    if sort not in (None, True):
        raise UnsupportedError(f"Index.{what}: sort must be None, True or False, not {sort!r}")
    try:
        return _core.take(col, _core.sort_indices(col, True, False))
    except ZambeziError:  # labels without an order: left as they are, as pandas
        if sort is True:
            raise
        return col


def _make(col, name):
    from zambezi.index import Index

    return Index._from_columns([col], [name])


def _member(col, other_col):
    """The labels of col that are (bool engine column) in other_col."""
    series = _base.series_class()
    return series._from_column(col).isin(series._from_column(other_col))


def _multi_union(index, other, sort):
    """union of two MultiIndexes with the same number of levels: the label
    tuples of both, each once (first appearance), sorted level by level
    when sort is not False and the labels can be ordered."""
    from zambezi import index as _ix
    from zambezi._concat import _concat_columns
    from zambezi._reshape import _host_numpy

    if other.nlevels != index.nlevels:
        raise UnsupportedError(f"MultiIndex.union: {index.nlevels} levels and "
                               f"{other.nlevels} levels")
    names = [a if a == b else None for a, b in zip(index.names, other.names)]
    if len(other) == 0 or index.equals(other) or len(index) == 0:
        same = other if len(index) == 0 else index
        if sort is not True:
            return same.set_names(names)
        index, other = same, same[:0]
    if not (index.is_unique and other.is_unique):
        raise UnsupportedError("MultiIndex.union of indexes with repeated labels is not "
                               "supported")
    cols = [_concat_columns([a, b], "MultiIndex.union")
            for a, b in zip(index._levels(), other._levels())]
    keys = list(range(len(cols)))
    t = _core.table_from_columns(cols, [f"l{i}" for i in keys])
    ids, _ = _core.group_ids(t, keys, False, False)
    ids = _host_numpy(ids).astype(np.int64)
    _, first = np.unique(ids, return_index=True)  # ids number labels by first appearance
    t = _core.take(t, _core.column_from_buffer(first.astype(np.int64)))
    if sort is not False:
        if sort not in (None, True):
            raise UnsupportedError(f"MultiIndex.union: sort must be None, True or False, not "
                                   f"{sort!r}")
        try:
            t = _core.take(t, _core.sort_indices(t, keys, [True] * len(keys), False))
        except ZambeziError:
            if sort is True:
                raise
    return _ix.MultiIndex._from_columns([t.column(i) for i in keys], names)


def union(index, other, sort=None):
    from zambezi import index as _ix

    if index.nlevels > 1:
        return _multi_union(index, _ix.ensure_index(other, what="union"), sort)
    other, name = _operands(index, other, "union")
    if len(other) == 0 or index.equals(other) or len(index) == 0:
        # one side's labels as they are, as pandas (sorted only for sort=True)
        same = other if len(index) == 0 else index
        if sort is True:
            return _make(_sorted(same._levels()[0], sort, "union"), name)
        return same if same.name == name else same.rename(name)
    if not (index.is_unique and other.is_unique):
        raise UnsupportedError("Index.union of indexes with repeated labels is not supported")
    col = _core.unique(_core.concat([index._levels()[0], other._levels()[0]]))
    return _make(_sorted(col, sort, "union"), name)


def _filter(index, other, keep_members, sort, what):
    other, name = _operands(index, other, what)
    col = _core.unique(index._levels()[0])
    if (keep_members and index.equals(other)) or (not keep_members and len(other) == 0):
        # as pandas: the labels, sorted only for sort=True
        return _make(_sorted(col, sort, what) if sort is True else col, name)
    if len(other) == 0 or len(index) == 0:
        return _make(_core.take(col, _core.column_from_buffer(np.zeros(0, dtype=np.int64))),
                     name)
    s = _base.series_class()._from_column(col)
    inside = _member(col, other._levels()[0])
    kept = s[inside if keep_members else ~inside]
    return _make(_sorted(kept._col, sort, what), name)


def intersection(index, other, sort=False):
    return _filter(index, other, True, sort, "intersection")


def difference(index, other, sort=None):
    return _filter(index, other, False, sort, "difference")
