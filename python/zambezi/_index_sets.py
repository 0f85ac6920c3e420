"""Set operations of an Index with pandas' names: ``union``,
``intersection``, ``difference`` and ``symmetric_difference`` (what Dask's
cumulative group-bys and column selections call on partitions' labels).

The labels are one engine column: union is an engine concat and unique,
intersection and difference an engine membership test (``isin``), and
each result is sorted by the engine when pandas sorts it (``sort=None``:
when the labels can be ordered).  As pandas:

- a union with repeated labels: when other has repeats, each label as
  many times as the side holding it most often (in the order of first
  appearance, each label's repeats together); when only this index has
  them, its labels then other's that are not among them; then sorted when
  it can be (sort=None);
- numbers of different dtypes meet in numpy's common dtype (int8 and
  float32: float32) for union, intersection and symmetric_difference
  (uint64 and a signed integer: pandas' object, so UnsupportedError);
  difference keeps this index's dtype;
- labels of another kind (numbers and strings): difference is this
  index's labels once each.

A union, intersection or symmetric difference whose result pandas gives
as an object Index (numbers with strings or datetimes, uint64 with a
signed integer) raises UnsupportedError: zambezi has no object Index
(under the accelerator, pandas answers those).  A MultiIndex has
union (its levels' columns concatenated, the engine's group ids keeping
each label tuple once) but not the others, and not with repeated labels.
"""

import numpy as np

from zambezi import _base, _core
from zambezi.errors import DTypeError, UnsupportedError, ZambeziError


_NUMBERS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float32", "float64")


def _result_name(index, other):
    """The name of a set operation's result, as pandas: with another index,
    the name both share (two NaN names match); with
    labels that are not an index (a list, an array, a Series), this
    index's name."""
    from zambezi import _convert
    from zambezi import index as _ix

    if not (isinstance(other, _ix.Index) or _convert._is_pandas(other, "Index") or
            _convert._is_pandas(other, "MultiIndex") or _convert._is_pandas(other, "RangeIndex")):
        return index.name
    a, b = index.name, other.name
    if a is b or a == b:
        return a
    if _nan(a) and _nan(b):
        return a
    return None


def _nan(x):
    return isinstance(x, (float, np.floating)) and x != x


def _operands(index, other, what):
    from zambezi import index as _ix

    name = _result_name(index, other)
    other = _ix.ensure_index(other, what=what)
    if index.nlevels != 1 or other.nlevels != 1:
        raise UnsupportedError(f"Index.{what} of a MultiIndex is not supported")
    return other, name


def _common(a, b, what=None):
    """Label columns a and b in their common dtype, as pandas: numpy's
    promotion (int8 and int16: int16, uint16 and int32: int32, int8 and
    float32: float32, int64 and float32: float64).  uint64 and a signed
    integer meet in pandas' object dtype, which zambezi has not: raises
    UnsupportedError for the result of a set operation (what), and
    compares them as float64 for a membership test (what None)."""
    if a.dtype == b.dtype:
        return a, b
    if a.dtype not in _NUMBERS or b.dtype not in _NUMBERS:
        # an empty side (an empty list is a string Index here, pandas'
        # object one, which pandas leaves out of the common dtype)
        if len(b) == 0 and b.dtype == "string":
            return a, _empty(a)
        if len(a) == 0 and a.dtype == "string":
            return _empty(b), b
        if what is not None:
            raise UnsupportedError(f"Index.{what} of {a.dtype} and {b.dtype} labels: pandas "
                                   "gives an object Index")
        return a, b
    mixed64 = "uint64" in (a.dtype, b.dtype) and (a.dtype.startswith("int") or
                                                  b.dtype.startswith("int"))
    if mixed64:
        if what is not None:
            raise UnsupportedError(f"Index.{what} of {a.dtype} and {b.dtype} labels: pandas "
                                   "gives an object Index")
        target = "float64"
    else:
        target = np.promote_types(a.dtype, b.dtype).name
    return (a if a.dtype == target else _core.cast(a, target),
            b if b.dtype == target else _core.cast(b, target))


def _empty(col):
    return _core.take(col, _core.column_from_buffer(np.zeros(0, dtype=np.int64)))


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
    """The labels of col that are (bool engine column) in other_col; None
    when the two kinds of labels cannot be compared (nothing in common)."""
    series = _base.series_class()
    col, other_col = _common(col, other_col)
    try:
        return series._from_column(col).isin(series._from_column(other_col))
    except DTypeError:
        return None


def _by_first_appearance(table, keys):
    """(ids, n, first) of the rows of table by the columns keys: each
    row's label number (labels numbered by first appearance, a missing
    label one of them: the engine's group ids), the number of labels, and
    each label's first row (where the running largest number grows)."""
    from zambezi._reshape import _host_numpy

    ids, ng = _core.group_ids(table, keys, False, False)
    ids = _host_numpy(ids).astype(np.int64)
    if len(ids) == 0:
        return ids, ng, ids
    run = np.maximum.accumulate(ids)
    return ids, ng, np.flatnonzero(np.concatenate(([True], run[1:] > run[:-1])))


def _union_repeats(a, b):
    """pandas' union of label columns with repeats: each label as often as
    the side holding it most, in the order of first appearance (a missing
    label too); the counts are per label number."""
    both = _core.concat([a, b])
    ids, ng, first = _by_first_appearance(_core.table_from_columns([both], ["l"]), [0])
    rep = np.maximum(np.bincount(ids[:a.length], minlength=ng),
                     np.bincount(ids[a.length:], minlength=ng))
    take = np.repeat(first.astype(np.int64), rep)
    return _core.take(both, _core.column_from_buffer(take))


def _multi_union(index, other, sort):
    """union of two MultiIndexes with the same number of levels: the label
    tuples of both, each once (first appearance), sorted level by level
    when sort is not False and the labels can be ordered."""
    from zambezi import index as _ix
    from zambezi._concat import _concat_columns

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
    _, _, first = _by_first_appearance(t, keys)
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
    a, b = _common(index._levels()[0], other._levels()[0], "union")
    if len(other) == 0 or len(index) == 0 or index.equals(other):
        # one side's labels as they are, in the common dtype, as pandas
        # (sorted only for sort=True)
        same, col = (other, b) if len(index) == 0 else (index, a)
        if sort is True:
            return _make(_sorted(col, sort, "union"), name)
        if col.dtype != same._levels()[0].dtype:
            return _make(col, name)
        return same if same.name == name else same.rename(name)
    if not other.is_unique:
        return _make(_sorted(_union_repeats(a, b), sort, "union"), name)
    if not index.is_unique:  # pandas: these labels, then other's that are not here
        inside = _member(b, a)
        rest = b if inside is None else _base.series_class()._from_column(b)[~inside]._col
        return _make(_sorted(_core.concat([a, rest]), sort, "union"), name)
    col = _core.unique(_core.concat([a, b]))
    return _make(_sorted(col, sort, "union"), name)


def _filter(index, other, keep_members, sort, what):
    other, name = _operands(index, other, what)
    col = _core.unique(index._levels()[0])
    kinds_meet = col.dtype == other.dtype or (col.dtype in _NUMBERS and other.dtype in _NUMBERS)
    if (keep_members and kinds_meet and index.equals(other)) or \
            (not keep_members and len(other) == 0):
        # as pandas: the labels (in this index's dtype), sorted only for sort=True
        return _make(_sorted(col, sort, what) if sort is True else col, name)
    if keep_members:  # pandas: the common dtype
        if len(other) == 0 and other.dtype == "string" and col.dtype != "string":
            # an empty list: pandas gives an empty object Index
            raise UnsupportedError("Index.intersection with an empty list: pandas gives an "
                                   "object Index")
        if col.dtype != other.dtype and (len(other) == 0 or len(index) == 0):
            raise UnsupportedError("Index.intersection of an empty index of another dtype: "
                                   "pandas decides the dtype (an object Index or either side's)")
        col = _common(col, other._levels()[0], what)[0]
    if len(other) == 0 or len(index) == 0:
        return _make(_empty(col), name)
    inside = _member(col, other._levels()[0])
    if inside is None:  # labels of another kind: nothing in common
        return _make(_empty(col) if keep_members else _sorted(col, sort, what), name)
    s = _base.series_class()._from_column(col)
    kept = s[inside if keep_members else ~inside]
    return _make(_sorted(kept._col, sort, what), name)


def intersection(index, other, sort=False):
    return _filter(index, other, True, sort, "intersection")


def difference(index, other, sort=None):
    return _filter(index, other, False, sort, "difference")


def symmetric_difference(index, other, result_name=None, sort=None):
    """The labels in exactly one of the indexes, each once: this index's
    first, then other's, sorted when they can be (sort=None)."""
    other, name = _operands(index, other, "symmetric_difference")
    if result_name is not None:
        name = result_name
    a, b = _common(_core.unique(index._levels()[0]), _core.unique(other._levels()[0]),
                   "symmetric_difference")
    series = _base.series_class()
    parts = []
    for x, y in ((a, b), (b, a)):
        inside = _member(x, y) if len(y) else None
        parts.append(x if inside is None else series._from_column(x)[~inside]._col)
    if parts[0].dtype != parts[1].dtype:
        raise DTypeError(f"Index.symmetric_difference: labels of dtypes {parts[0].dtype} and "
                         f"{parts[1].dtype} would need an object Index, which zambezi has not")
    return _make(_sorted(_core.concat(parts), sort, "symmetric_difference"), name)
