"""List columns (dtype ``list<T>``, Arrow large_list): the producers and
consumers the Python layer builds on the engine's list column.

A list column is int64 offsets (``Column.list_offsets()``, length + 1) into
one child column (``Column.child``).  Everything here is numpy arithmetic on
the offsets -- whole arrays at a time, never a Python loop over rows -- and
one engine ``take`` of the child (C, GIL released): the element positions a
result needs are computed from the offsets, and a null position gives a
null value.

pandas holds lists as an object column of Python lists; ``to_pandas()``
gives that.  Results follow pandas 3, with these differences (also in the
docstrings):

- ``explode``, ``str.get`` and ``.list[i]`` keep the element type (int64,
  string ...) where pandas' object column gives object values;
- ``str.len()`` gives int64, or float64 with NaN when there is a missing
  row, as pandas; ``.list.len()`` gives int64 with nulls for null lists
  (pandas' ArrowDtype accessor: int32 with nulls);
- ``to_pandas()`` and a repr give NaN for a null list, as pandas' own
  producers do (``str.split`` of a missing row; a list built from
  Python's None shows None in pandas), and None for a null element
  (pandas' ``agg(list)`` of a missing float gives NaN there); the dtype
  line of a repr says ``list<T>`` where pandas says object;
- ``groupby(...).agg(list)`` gathers each group's values in row order
  (one engine take; the group ids as the group-by numbers its groups);
- a list's elements may be lists (``list<list<T>>``, from nested Python
  lists or pyarrow's list of lists): explode and flatten take one level;
- ``==`` / ``!=`` of two list Series compare row by row as pandas compares
  its Python lists (a null row is unequal to everything, a null element
  equals a null element); ``<`` and the others, sorting, hashing
  (value_counts, unique, drop_duplicates, group-by keys ...; pandas'
  list ArrowDtype refuses them too) and arithmetic of lists are not
  supported (DTypeError naming the dtype, a TypeError as pandas'
  "unhashable type: 'list'");
- ``to_csv`` writes Python's text of each list (as pandas), in C
  (``list_repr``); ``to_json`` writes JSON arrays (as pandas writes
  its Python lists), in C; ``read_json`` reads a column of arrays of one
  kind of value as a list column (other nested values stay JSON text);
- ``str.findall`` of a pattern with several groups gives
  ``list<list<string>>`` where pandas gives lists of tuples;
- ``dtype="list<T>"`` (or ``zb.ListDtype(T)``, pyarrow's
  ``pd.ArrowDtype(pa.list_(T))``) makes / casts a list column (``cast``:
  the elements are cast by the engine).
"""

import numpy as np

from zambezi import _core
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError


def is_list(col):
    return col.dtype.startswith("list<")


def _host(col):
    return col if col.device == "cpu" else col.to_device("cpu")


def parts(col):
    """(offsets, starts, lengths, null) numpy arrays of a host list column:
    lengths are 0 for null lists (Arrow lets a null list span values)."""
    offs = np.frombuffer(col.list_offsets(), dtype=np.int64)
    m = col.null_mask()
    null = np.zeros(col.length, dtype=bool) if m is None else np.frombuffer(m, dtype=np.bool_)
    starts = offs[:-1]
    lengths = np.where(null, 0, offs[1:] - starts)
    return offs, starts, lengths, null


def _positions(pos, ok):
    """An int64 engine column of child positions, null where not ok."""
    pos = np.where(ok, pos, 0).astype(np.int64, copy=False)
    return _core.column_from_buffer(pos, mask=None if ok.all() else ~ok)


def lengths(col):
    """int64 column: each list's length, null for a null list."""
    col = _host(col)
    _, _, lens, null = parts(col)
    return _core.column_from_buffer(lens.astype(np.int64), mask=null if null.any() else None)


def as_pandas_len(col):
    """pandas' dtype of ``str.len()`` of an object column: an int64 column
    of lengths as it is without nulls, float64 (NaN for the nulls) with."""
    return _core.cast(col, "float64") if col.null_count else col


def element(col, i):
    """The i-th element of each list (negative i counts from the end); null
    for a null list or an i out of range."""
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
        raise DTypeError(f"list element: the position must be an int, not {type(i).__name__}")
    col = _host(col)
    _, starts, lens, null = parts(col)
    i = int(i)
    if i >= 0:
        pos, ok = starts + i, i < lens
    else:
        pos, ok = starts + lens + i, -i <= lens
    return _core.take(col.child, _positions(pos, ok & ~null))


def _slice_bounds(lens, sl):
    """Per list of length lens (numpy), Python's slice sl as (first
    position, step, count): slice.indices vectorized over the lists."""
    step = 1 if sl.step is None else sl.step
    for v, nm in ((sl.start, "start"), (sl.stop, "stop"), (step, "step")):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, np.integer))):
            raise DTypeError(f".str[...] of a list Series: slice {nm} must be an int or None, "
                             f"not {type(v).__name__}")
    if step == 0:
        raise InvalidValueError(".str[...] of a list Series: slice step cannot be zero")
    L = lens.astype(np.int64)
    lo, hi = (0, L) if step > 0 else (-1, L - 1)

    def bound(v, default):
        if v is None:
            return default
        b = np.full(len(L), int(v), dtype=np.int64)
        b = np.where(b < 0, b + L, b)
        return np.clip(b, lo, hi)

    if step > 0:
        first, stop = bound(sl.start, np.zeros(len(L), dtype=np.int64)), bound(sl.stop, L)
        count = np.where(stop > first, (stop - first + step - 1) // step, 0)
    else:
        first = bound(sl.start, L - 1)
        stop = bound(sl.stop, np.full(len(L), -1, dtype=np.int64))
        count = np.where(first > stop, (first - stop - step - 1) // -step, 0)
    return first, int(step), count


def slice_lists(col, sl):
    """Each list sliced as Python slices a list (pandas' ``.str[a:b:c]`` of
    an object column of lists); a null list stays null."""
    col = _host(col)
    _, starts, lens, null = parts(col)
    first, step, count = _slice_bounds(lens, sl)
    count = np.where(null, 0, count).astype(np.int64)
    total = int(count.sum())
    offsets = np.zeros(col.length + 1, dtype=np.int64)
    np.cumsum(count, out=offsets[1:])
    within = np.arange(total, dtype=np.int64) - np.repeat(offsets[:-1], count)
    pos = np.repeat(starts + first, count) + within * step
    child = _core.take(col.child, _core.column_from_buffer(pos.astype(np.int64)))
    return _core.list_from_parts(offsets, child, null if null.any() else None)


def explode(col, keep_empty=True):
    """(values, rows): every element with the row it came from, in order.
    keep_empty: an empty or null list gives one null value (pandas'
    explode); else it gives nothing (flatten)."""
    col = _host(col)
    _, starts, lens, null = parts(col)
    reps = np.maximum(lens, 1) if keep_empty else lens
    rows = np.repeat(np.arange(col.length, dtype=np.int64), reps)
    total = int(reps.sum())
    first = np.cumsum(reps) - reps
    within = np.arange(total, dtype=np.int64) - np.repeat(first, reps)
    pos = np.repeat(starts, reps) + within
    ok = np.repeat(lens > 0, reps)
    return _core.take(col.child, _positions(pos, ok)), rows


def contains(col, value):
    """bool column: whether each list holds value (null for a null list);
    one engine == over the elements, then a count per row."""
    from zambezi import _convert, _dtypes

    col = _host(col)
    if is_list(col.child):
        raise DTypeError(f".list.contains of a {col.dtype} Series: lists of lists are not "
                         "searched")
    if not _dtypes.is_scalar(value) or value is None:
        raise DTypeError(f".list.contains: the value must be a scalar, not "
                         f"{type(value).__name__}")
    _, starts, lens, null = parts(col)
    total = int(lens.sum())
    rows = np.repeat(np.arange(col.length, dtype=np.int64), lens)
    pos = np.repeat(starts, lens) + (np.arange(total, dtype=np.int64) -
                                     np.repeat(np.cumsum(lens) - lens, lens))
    elems = _core.take(col.child, _core.column_from_buffer(pos))
    try:
        eq = _core.binary_scalar("eq", elems, _dtypes.py_scalar(value), False)
    except DTypeError:  # a value no element can equal ('a' in [1]: False)
        hit = np.zeros(total, dtype=bool)
    else:
        hit = _convert.values_numpy(eq).astype(bool)
        m = _convert.null_mask(eq)
        if m is not None:
            hit &= ~m
    found = np.bincount(rows[hit], minlength=col.length) > 0
    return _core.column_from_buffer(found, mask=null if null.any() else None)


def group_lists(values, ids, n_groups):
    """A list column of n_groups rows: the values of each group (int64 group
    ids per row, -1 for none) in row order."""
    ids = np.asarray(ids, dtype=np.int64)
    keep = ids >= 0
    order = np.argsort(ids, kind="stable")[int((~keep).sum()):].astype(np.int64)
    counts = np.bincount(ids[keep], minlength=n_groups).astype(np.int64)
    offsets = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return _core.list_from_parts(offsets, _core.take(values, _core.column_from_buffer(order)))


def _from_pickle(offsets, child, mask):
    """A list column from its pickle (src/python/pickle.c: list_reduce)."""
    offs = np.frombuffer(offsets, dtype=np.int64)
    m = None if mask is None else np.frombuffer(mask, dtype=np.bool_)
    return _core.list_from_parts(offs, child, m)


_ESCAPES = str.maketrans({"\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _cell(v):
    if v is None:
        return "None"
    if isinstance(v, list):  # pandas' pprint_thing: nested lists, str unquoted
        return "[" + ", ".join(_cell(e) for e in v) + "]"
    # pandas escapes tabs and line breaks inside a sequence's elements
    return str(v).translate(_ESCAPES)


def cells(col):
    """Display strings of a (small) list column, as pandas prints an object
    column of lists: ``[a, b]`` (str elements unquoted, lists of lists as
    ``[[a], [b, c]]``); a null row shows NaN (as pandas shows a missing row
    of str.split), a null element None."""
    # the rows shown, not the column
    return ["NaN" if v is None else _cell(v) for v in col.to_pylist()]


def cast(col, name):
    """A list column as the list dtype name ('list<T>', canonical): the
    elements cast to T by the engine (lists of lists level by level)."""
    if not is_list(col):
        raise DTypeError(f"cannot cast {col.dtype} to {name}: only a list column (or a list "
                         "of Python lists) becomes a list column")
    if col.dtype == name:
        return col
    col = _host(col)
    inner = name[len("list<"):-1]
    child = col.child
    if inner.startswith("list<"):
        child = cast(child, inner)
    elif is_list(child):
        raise DTypeError(f"cannot cast {col.dtype} to {name}: the elements are lists")
    elif child.dtype != inner:
        child = _core.cast(child, inner)
    offs = np.frombuffer(col.list_offsets(), dtype=np.int64)
    m = col.null_mask()
    return _core.list_from_parts(offs, child, None if m is None else np.frombuffer(m, np.bool_))


def _same_elements(a, b, pos_a, pos_b):
    """numpy bool per position pair: child a's element pos_a equals child
    b's pos_b (two nulls are equal, as pandas' None == None in a list)."""
    ta = _core.take(a, _core.column_from_buffer(pos_a))
    tb = _core.take(b, _core.column_from_buffer(pos_b))
    if is_list(ta) or is_list(tb):
        if not (is_list(ta) and is_list(tb)):
            return np.zeros(len(pos_a), dtype=bool)
        na, nb = _null(ta), _null(tb)
        return (na & nb) | (~na & ~nb & _rows_equal(ta, tb))
    na, nb = _null(ta), _null(tb)
    try:
        eq = _core.binary("eq", ta, tb)
    except DTypeError:  # elements pandas would find unequal (1 == 'a')
        return na & nb
    from zambezi import _convert

    v = _convert.values_numpy(eq).astype(bool)
    return (na & nb) | (~na & ~nb & v)


def _null(col):
    m = col.null_mask()
    return np.zeros(col.length, dtype=bool) if m is None else np.frombuffer(m, np.bool_).copy()


def _rows_equal(a, b):
    """numpy bool: list row i of a equals list row i of b (valid rows of
    equal length whose elements pair up equal); null rows give False."""
    _, sa, la, nla = parts(a)
    _, sb, lb, nlb = parts(b)
    same = (la == lb) & ~nla & ~nlb
    lens = np.where(same, la, 0)
    total = int(lens.sum())
    if total == 0:
        return same
    rows = np.repeat(np.arange(a.length, dtype=np.int64), lens)
    within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(lens) - lens, lens)
    ok = _same_elements(a.child, b.child, np.repeat(sa, lens) + within,
                        np.repeat(sb, lens) + within)
    bad = np.bincount(rows[~ok], minlength=a.length) > 0
    return same & ~bad


def same(a, b):
    """Whether two list columns hold equal lists, null in the same rows
    (DataFrame.equals)."""
    a, b = _host(a), _host(b)
    na, nb = _null(a), _null(b)
    return bool(np.array_equal(na, nb) and (_rows_equal(a, b) | na).all())


def equal(a, b, op):
    """``a == b`` / ``a != b`` of two list columns (op 'eq' / 'ne'): a bool
    column without nulls, as pandas compares object columns of lists."""
    if not (is_list(a) and is_list(b)):
        other = b if is_list(a) else a
        raise DTypeError(f"{op} is not defined for list and {other.dtype}")
    eq = _rows_equal(_host(a), _host(b))
    return _core.column_from_buffer(eq if op == "eq" else ~eq)


class ListMethods:
    """Methods of a list Series (``Series.list``), as pandas' accessor of
    ArrowDtype lists: ``len``, ``[i]`` and ``flatten``; and ``contains``
    (not in pandas: ``value in lst`` per row).

    Examples
    --------
    >>> s = zb.Series([[1, 2, 3], None, []])
    >>> s.list.len().to_list()
    [3, None, 0]
    >>> s.list[0].to_list()
    [1, None, None]
    >>> s.list.flatten().to_list()
    [1, 2, 3]
    """

    __slots__ = ("_s",)

    def __init__(self, series):
        if not is_list(series._col):
            from zambezi.accessors import AccessorError

            raise AccessorError(f"Can only use the .list accessor with list values, not "
                                f"{series.dtype} (column {series.name!r})")
        self._s = series

    def len(self):
        """The length of each list (int64; null for a null list).

        Examples
        --------
        >>> zb.Series([["a"], None, []]).list.len().to_list()
        [1, None, 0]
        """
        return self._s._like(lengths(self._s._col))

    def __getitem__(self, key):
        """Element ``key`` (an int; negative counts from the end) of each
        list: null where the list is null or too short.  Slices are not
        supported.

        Examples
        --------
        >>> zb.Series([[1, 2], [3], None]).list[-1].to_list()
        [2, 3, None]
        """
        if isinstance(key, slice):
            raise UnsupportedError(".list[...]: slices of lists are not supported; use an int")
        return self._s._like(element(self._s._col, key))

    def contains(self, value):
        """Whether each list holds value (Python's ``value in lst``): True
        or False, null for a null list.  The elements are compared by the
        engine's ``==`` (a null element matches nothing).  Lists of lists
        are not searched (DTypeError).

        Examples
        --------
        >>> zb.Series([[1, 2], [3], None, []]).list.contains(2).to_list()
        [True, False, None, False]
        """
        return self._s._like(contains(self._s._col, value))

    def flatten(self):
        """Every element of every list, in order, in one Series (pandas'
        ``list.flatten``: null and empty lists give nothing; the index is
        each element's row label).

        Examples
        --------
        >>> zb.Series([[1, 2], None, [3]]).list.flatten().to_list()
        [1, 2, 3]
        """
        from zambezi import _indexing

        values, rows = explode(self._s._col, keep_empty=False)
        s = self._s
        index = s._index._take(_indexing.take_rows(_core.column_from_buffer(rows)))
        return s._constructor._from_column(values, s.name, index)


class ListStringMethods:
    """``Series.str`` of a list Series: the methods pandas' ``.str`` has
    for an object column of lists -- ``len``, ``get`` / ``[i]`` and
    ``join``; the others raise UnsupportedError naming the method.

    Examples
    --------
    >>> s = zb.Series([["a", "b"], None])
    >>> s.str[0].to_list()
    ['a', None]
    """

    __slots__ = ("_s",)

    def __init__(self, series):
        self._s = series

    def len(self):
        """The length of each list, as pandas' ``str.len()`` of an object
        column of lists: int64, or float64 with NaN for the missing rows
        when there are any.

        Examples
        --------
        >>> zb.Series([["a", "b"], None, []]).str.len().to_list()
        [2.0, None, 0.0]
        >>> zb.Series([["a", "b"], []]).str.len().to_list()
        [2, 0]
        """
        return self._s._like(as_pandas_len(lengths(self._s._col)))

    def get(self, i):
        """Element i of each list (negative i from the end); null where the
        list is null or too short.  The element type is kept (pandas:
        object values).

        Examples
        --------
        >>> zb.Series([[1, 2], [3], None]).str.get(-2).to_list()
        [1, None, None]
        """
        return self._s._like(element(self._s._col, i))

    def __getitem__(self, key):
        """Element key of each list (see get), or with a slice each list
        sliced as Python slices it (pandas' ``.str[0:2]`` after
        ``str.split``); a missing list stays missing.

        Examples
        --------
        >>> zb.Series(["a b c", None, "d"]).str.split().str[0:2].to_list()
        [['a', 'b'], None, ['d']]
        """
        if isinstance(key, slice):
            return self._s._like(slice_lists(self._s._col, key))
        return self.get(key)

    def join(self, sep):
        """Each list of strings joined with sep; null for a null list or a
        list holding a null (pandas: NaN).

        Examples
        --------
        >>> zb.Series([["a", "b"], None, []]).str.join("-").to_list()
        ['a-b', None, '']
        """
        if not isinstance(sep, str):
            raise DTypeError(f"str.join: sep must be a str, not {type(sep).__name__}")
        col = _host(self._s._col)
        if col.child.dtype != "string":
            raise UnsupportedError(f"str.join of a {col.dtype} Series: only lists of strings "
                                   "are joined")
        return self._s._like(_core.list_join(col, sep))

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise UnsupportedError(f"str.{name} is not supported for list columns (dtype "
                               f"{self._s.dtype}); list Series have str.len, str.get, str[i] "
                               "and str.join, and the .list accessor")


def series_explode(s, ignore_index=False):
    """Series.explode: each list's elements on rows of their own, the row's
    label repeated; an empty or null list gives one null row."""
    from zambezi import _indexing, index as _ix

    if not is_list(s._col):  # scalars: unchanged, but ignore_index still relabels
        out = s.copy() if hasattr(s, "copy") else s
        if ignore_index:
            out = s._constructor._from_column(s._col, s.name, _ix.default_index(len(s)))
        return out
    values, rows = explode(s._col)
    index = _ix.default_index(len(rows)) if ignore_index else \
        s._index._take(_indexing.take_rows(_core.column_from_buffer(rows)))
    return s._constructor._from_column(values, s.name, index)


def frame_explode(df, column, ignore_index=False):
    """DataFrame.explode: the list column(s) exploded, the other columns'
    values (and the row labels) repeated; several columns must hold lists
    of equal lengths row by row."""
    from zambezi import _indexing, _labels, index as _ix

    names = column if isinstance(column, (list, tuple)) else [column]
    if not names:
        raise InvalidValueError("column must be nonempty")
    if len(set(map(repr, names))) != len(names):
        raise InvalidValueError("column must be unique")
    labels = _labels.label_list(df)
    t = df._table
    where = []
    for nm in names:
        if nm not in labels:
            raise KeyError(nm)
        where.append(labels.index(nm))
    if not any(is_list(t.column(j)) for j in where):
        # no lists: every row stays as it is (ignore_index relabels), as pandas
        out = df.copy()
        if ignore_index:
            out = df._constructor._wrap(t, _ix.default_index(t.num_rows))
            out._columns = getattr(df, "_columns", None)
        return out
    lens0 = None
    for j in where:
        col = _host(t.column(j))
        if not is_list(col):
            raise UnsupportedError(f"explode: column {labels[j]!r} is {col.dtype}, not a list")
        _, _, lens, _ = parts(col)
        if lens0 is not None and not np.array_equal(np.maximum(lens, 1),
                                                    np.maximum(lens0, 1)):
            raise InvalidValueError("columns must have matching element counts")
        lens0 = lens
    rows = None
    exploded = {}
    for j in where:
        exploded[j], rows = explode(t.column(j))
    positions = _core.column_from_buffer(rows)
    cols = [exploded[j] if j in exploded else _core.take(t.column(j), positions)
            for j in range(t.num_columns)]
    index = _ix.default_index(len(rows)) if ignore_index else \
        df._index._take(_indexing.take_rows(positions))
    out = df._constructor._wrap(_core.table_from_columns(cols, list(t.names)), index)
    out._columns = getattr(df, "_columns", None)
    return out
