"""``stack`` and ``unstack``: moving the innermost row labels into the
columns and back, as pandas 3 does (the ``StackReshape`` mixins of
DataFrame and Series).

Nothing loops over rows: the distinct labels and each row's place among
them come from the engine's group ids and sort, the cells from one engine
``take`` per result column (positions computed with numpy).

- ``Series.unstack(level=-1)`` / ``DataFrame.unstack``: the level's
  distinct values become the columns (sorted, a missing label last), the
  other levels' distinct combinations the rows (sorted the same way); a
  cell no row fills is null (or ``fill_value``).  pandas orders by its
  MultiIndex's codes: a missing label comes last after a group-by with
  dropna=False (as here) but first in an index built from arrays holding
  NaN -- zambezi has no codes and always puts it last.  A frame
  gives columns (column, value); a frame with one index level gives a
  Series (pandas' shape).  Repeated (row, column) label pairs raise.
  When a cell is missing (and no fill_value), every integer column
  without nulls becomes float64, also those whose own cells are all
  filled: pandas unstacks its values a block at a time, and a block with
  a gap becomes float64 with NaN (``gaps_upcast``).  A column that has
  nulls already (pandas' nullable Int64) stays integer with nulls, and a
  bool column stays bool with nulls (pandas makes it object).
- ``DataFrame.stack()``: each row becomes one row per column, the column
  labels a new innermost index level (pandas 3: rows of nulls kept, the
  labels in column order).  Columns of different types stack when they
  are all numbers (a common type); else DTypeError (pandas gives object).
  A frame with MultiIndex columns stacks their last level into a frame.

Column labels keep their values and dtype (zambezi._labels): unstacking an
integer level gives integer column labels, as pandas.
"""

import numpy as np

from zambezi import _convert, _core, _labels
from zambezi import index as _ix
from zambezi._concat import _common_dtype, _concat_columns
from zambezi._convert import values_numpy
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError


def _int64(arr):
    return _core.column_from_buffer(np.ascontiguousarray(arr, dtype=np.int64))


def _positions(arr):
    """An int64 positions column from arr, null where arr < 0."""
    missing = arr < 0
    return _core.column_from_buffer(np.where(missing, 0, arr).astype(np.int64),
                                    mask=missing if missing.any() else None)


def _host_numpy(col):
    """The values of an int64 engine column as numpy (copied from a GPU)."""
    return values_numpy(col if col.device == "cpu" else col.to_device("cpu"))


def _codes(cols, nulls_first=False):
    """(codes, distinct) for the rows of engine columns: each row's rank
    among the distinct label combinations sorted ascending, missing labels
    last (first with nulls_first: pandas' pivot, whose index codes give a
    missing label -1; unstack keeps them last, as pandas does for the
    group-by results it mostly unstacks, whose levels hold the missing
    key), and a Table of those combinations in that order."""
    names = [f"l{i}" for i in range(len(cols))]
    t = _core.table_from_columns(cols, names)
    keys = list(range(len(cols)))
    ids, ngroups = _core.group_ids(t, keys, False, False)  # first appearance
    ids = _host_numpy(ids)
    if ngroups == 0:
        return ids, _core.take(t, _int64(np.empty(0, dtype=np.int64)))
    seen = np.maximum.accumulate(ids)
    first = np.flatnonzero(np.r_[True, seen[1:] > seen[:-1]])  # group g first at first[g]
    reps = _core.take(t, _int64(first))
    order = _host_numpy(_core.sort_indices(reps, keys, [True] * len(keys), nulls_first))
    rank = np.empty(ngroups, dtype=np.int64)
    rank[order] = np.arange(ngroups, dtype=np.int64)
    return rank[ids], _core.take(reps, _int64(order))


def _cells(n_rows, n_cols, r, c, what):
    """For each (row, column) cell of the result, the source position
    (-1: none), as an (n_rows, n_cols) array."""
    flat = r * n_cols + c
    target = np.full(n_rows * n_cols, -1, dtype=np.int64)
    target[flat] = np.arange(len(flat), dtype=np.int64)
    if len(flat) and np.count_nonzero(target >= 0) != len(flat):
        raise InvalidValueError(f"{what}: the index contains duplicate entries, cannot "
                                "reshape")
    return target.reshape(n_rows, n_cols)


def _unstack_plan(obj, level, what):
    index = obj._index
    if isinstance(level, list):  # pandas' pivot_table unstacks a list of its columns
        if len(level) != 1:
            raise UnsupportedError(f"{what}: one level at a time (got {len(level)} levels "
                                   f"{level!r}); unstack them one after the other")
        level = level[0]
    if index.nlevels < 2:
        raise InvalidValueError(f"{what}: the index has one level; unstack needs a "
                                "MultiIndex")
    lv = index._level_number(level)
    levels = index._levels()
    rest = [i for i in range(index.nlevels) if i != lv]
    r, rows = _codes([levels[i] for i in rest])
    c, cols = _codes([levels[lv]])
    nr, nc = rows.num_rows, cols.num_rows
    cells = _cells(nr, nc, r, c, what)
    row_index = _ix.Index._from_columns([rows.column(i) for i in range(len(rest))],
                                        [index.names[i] for i in rest])
    col_values = _ix.Index._from_columns([cols.column(0)], [index.names[lv]])
    return cells, row_index, col_values


_INTEGERS = frozenset(["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                       "uint64"])


def gaps_upcast(cols, cells, fill_value):
    """The value columns an unstack takes its cells from, with pandas'
    rule for gaps: when some cell of the result has no row (cells < 0)
    and there is no fill_value, integer columns without nulls become
    float64 (pandas' numpy int block takes NaN), whether or not their own
    cells have a gap."""
    if fill_value is not None or not cells.size or not (cells < 0).any():
        return cols
    return [_core.cast(c, "float64") if c.dtype in _INTEGERS and c.null_count == 0 else c
            for c in cols]


def _fill(col, fill_value):
    if fill_value is None or col.null_count == 0:
        return col
    from zambezi._compute import py_scalar

    return _core.fill_null(col, py_scalar(fill_value))


def _frame_with_labels(cls, cols, labels, row_index):
    """A frame over cols whose column labels are the Index labels."""
    names = _labels.internal_names(labels.to_list())
    out = cls._wrap(_core.table_from_columns(cols, names), row_index)
    return _labels.attach(out, labels)


class SeriesReshape:
    """Series.unstack (a mixin)."""

    __slots__ = ()

    def unstack(self, level=-1, fill_value=None, sort=True):
        """A DataFrame whose columns are the distinct values of one index
        level (the last by default), sorted, and whose rows are the other
        levels' distinct labels, sorted (a missing label last; see
        zambezi._reshape).
        A cell no value fills is null (or fill_value); then an integer
        Series without nulls becomes float64, as pandas.

        Examples
        --------
        >>> idx = zb.MultiIndex.from_arrays([["Maun", "Maun", "Tete"], [2023, 2024, 2024]],
        ...                                 names=["city", "year"])
        >>> s = zb.Series([7.0, 9.0, 3.5], index=idx, name="fare")
        >>> s.unstack()
        year     2023     2024
              float64  float64
        city
        Maun        7        9
        Tete      NaN      3.5
        <BLANKLINE>
        [2 rows x 2 columns]
        >>> s.unstack(fill_value=0.0).columns.to_list()
        [2023, 2024]
        """
        cells, row_index, col_values = _unstack_plan(self, level, "Series.unstack")
        values = gaps_upcast([self._col], cells, fill_value)[0]
        cols = [_fill(_core.take(values, _positions(cells[:, j])), fill_value)
                for j in range(cells.shape[1])]
        return _frame_with_labels(self._constructor_expanddim, cols, col_values, row_index)


class FrameReshape:
    """DataFrame.stack / DataFrame.unstack (a mixin)."""

    __slots__ = ()

    def unstack(self, level=-1, fill_value=None, sort=True):
        """Move one index level (the last by default) into the columns:
        columns (column, value) for every column and every distinct value
        of the level (sorted), rows the other levels' distinct labels
        (sorted); cells no row fills are null (or fill_value), and then
        every integer column without nulls becomes float64, as pandas.  A
        frame with one index level gives a Series indexed (column, row
        label), as pandas.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Maun", "Tete"], "year": [2023, 2024, 2024],
        ...                    "fare": [7.0, 9.0, 3.5]}).set_index(["city", "year"])
        >>> wide = df.unstack()
        >>> wide.columns.to_list()
        [('fare', 2023), ('fare', 2024)]
        >>> wide["fare"][2024].to_list()
        [9.0, 3.5]
        """
        t = self._table
        labels = self._zb_columns.to_list()
        if self._index.nlevels == 1:
            return _unstack_flat(self, t, labels)
        cells, row_index, col_values = _unstack_plan(self, level, "DataFrame.unstack")
        values = col_values.to_list()
        sources = gaps_upcast([t.column(j) for j in range(t.num_columns)], cells, fill_value)
        cols, out = [], []
        for j, lb in enumerate(labels):
            col = sources[j]
            for k, v in enumerate(values):
                cols.append(_fill(_core.take(col, _positions(cells[:, k])), fill_value))
                out.append((lb if isinstance(lb, tuple) else (lb,)) + (v,))
        cnames = self._zb_columns.names
        names = list(cnames) + [col_values.name]
        index = _ix.MultiIndex._from_columns(
            _tuple_levels(out, len(names), col_values), names)
        return _frame_with_labels(self._constructor, cols, index, row_index)

    def stack(self, level=-1, dropna=None, sort=None, future_stack=True):
        """Each row becomes one row per column, the column labels a new
        innermost index level: a Series (pandas 3's stack: rows of nulls
        are kept; the labels in column order).  Columns must share a dtype
        or all be numbers.  Frames with MultiIndex columns stack the last
        column level into a frame.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2], "b": [3, None]}, index=["x", "y"])
        >>> df.stack()
        x  a       1
        x  b       3
        y  a       2
        y  b    <NA>
        dtype: int64
        >>> df.stack().unstack().to_dict("list")
        {'a': [1, 2], 'b': [3, None]}
        """
        if level not in (-1, None):
            lab = self._zb_columns
            if lab.nlevels == 1 or lab._level_number(level) != lab.nlevels - 1:
                raise InvalidValueError("stack: only the last column level can be stacked")
        lab = self._zb_columns
        if lab.nlevels > 1:
            return _stack_multi(self, lab)
        t = self._table
        m, n = t.num_columns, t.num_rows
        if m == 0:
            raise InvalidValueError("stack: the frame has no columns")
        cols = [t.column(j) for j in range(m)]
        dtypes = {c.dtype for c in cols}
        if len(dtypes) > 1 and _common_dtype(dtypes) is None:
            raise DTypeError("stack: the columns have types " + ", ".join(sorted(dtypes))
                             + " with no common type (pandas gives object)")
        big = _concat_columns(cols, "the stacked columns")  # column-major
        row_major = (np.arange(n, dtype=np.int64)[:, None] +
                     n * np.arange(m, dtype=np.int64)[None, :]).ravel()
        values = _core.take(big, _int64(row_major))
        index = _stacked_index(self._index, lab._levels()[0], lab.name, n, m)
        return self._constructor_sliced._from_column(values, None, index)


def _stacked_index(index, label_col, label_name, n, m):
    """index's labels, each repeated m times, with the m column labels
    as a new innermost level."""
    rep = _int64(np.repeat(np.arange(n, dtype=np.int64), m))
    tile = _int64(np.tile(np.arange(m, dtype=np.int64), n))
    levels = [_core.take(c, rep) for c in index._levels()] + [_core.take(label_col, tile)]
    return _ix.MultiIndex._from_columns(levels, list(index.names) + [label_name])


def _tuple_levels(tuples, depth, last):
    """Engine columns of tuple labels' levels; the last level keeps the
    dtype of the Index last."""
    levels = []
    for i in range(depth - 1):
        levels.append(_labels._level([t[i] for t in tuples]))
    k = len(last)
    per = len(tuples) // k if k else 0
    levels.append(_core.take(last._levels()[0], _int64(np.tile(np.arange(k), per))))
    return levels


def _unstack_flat(df, t, labels):
    """unstack of a frame with one index level: a Series indexed
    (column label, row label), column by column."""
    m, n = t.num_columns, t.num_rows
    cols = [t.column(j) for j in range(m)]
    dtypes = {c.dtype for c in cols}
    if len(dtypes) > 1 and _common_dtype(dtypes) is None:
        raise DTypeError("unstack: the columns have types " + ", ".join(sorted(dtypes))
                         + " with no common type (pandas gives object)")
    values = _concat_columns(cols, "the unstacked columns")
    lab = df._zb_columns
    outer = _core.take(lab._levels()[0], _int64(np.repeat(np.arange(m), n)))
    inner = [_core.take(c, _int64(np.tile(np.arange(n), m))) for c in df._index._levels()]
    index = _ix.MultiIndex._from_columns([outer] + inner, [lab.name] + list(df._index.names))
    return df._constructor_sliced._from_column(values, None, index)


def _stack_multi(df, lab):
    """stack of a frame with MultiIndex columns: the last column level
    becomes the innermost index level, the other levels the columns."""
    t = df._table
    n = t.num_rows
    labels = lab.to_list()
    outer, inner = [], []
    for lb in labels:
        o = lb[:-1] if len(lb) > 2 else lb[0]
        if o not in outer:
            outer.append(o)
        if lb[-1] not in inner:
            inner.append(lb[-1])
    pos = {lb: j for j, lb in enumerate(labels)}
    k = len(inner)
    row_major = (np.arange(n, dtype=np.int64)[:, None] +
                 n * np.arange(k, dtype=np.int64)[None, :]).ravel()
    cols = []
    for o in outer:
        present = [(o if isinstance(o, tuple) else (o,)) + (v,) for v in inner]
        have = [t.column(pos[p]) for p in present if p in pos]
        parts = [t.column(pos[p]) if p in pos else _convert.nulls_like(have[0], n) for p in present]
        big = _concat_columns(parts, f"the stacked columns of {o!r}")
        cols.append(_core.take(big, _int64(row_major)))
    inner_col = _labels._level(inner)
    index = _stacked_index(df._index, inner_col, lab.names[-1], n, k)
    out_labels = _labels.from_list(outer, lab.names[:-1])
    return _frame_with_labels(df._constructor, cols, out_labels, index)
