"""``align``, ``combine_first``, ``update`` and ``compare`` of Series and
DataFrame, as pandas.

The row labels are joined once (zambezi._align.join_indexes: the engine's
join of the index levels; "outer" sorts the union as pandas does) and each
column is gathered at its side's positions with pandas' reindexing dtype
rule (an integer or bool column that gains missing rows turns float64 /
object-like as in ``_align.take_side``).  ``combine_first`` then takes
the first side's value and the second's where the first is missing; a
column that ends without a missing value keeps its integer dtype, as
pandas 3 gives it.  ``update`` joins other's labels onto this object's
(a left join), takes other's non-missing values in place and keeps each
column's dtype.  ``compare`` needs the same labels on both sides and keeps
the rows (and a frame's columns) where the two differ.
"""

import numpy as np

from zambezi import _align, _base, _core, _labels
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

_JOINS = ("outer", "inner", "left", "right")


def _rows(a, b, join, what):
    """(index, a positions, b positions) of a join of a's and b's labels;
    None positions: that side's rows as they are."""
    if join not in _JOINS:
        raise InvalidValueError(f"{what}: join must be one of {', '.join(_JOINS)}, not {join!r}")
    if _align.same_labels(a._index, b._index):
        return a._index, None, None
    return _align.join_indexes(a._index, b._index, what, join)


def _gather(col, pos):
    return col if pos is None else _align.take_side(col, pos)


def _series_at(s, index, pos):
    return s._constructor._from_column(_gather(s._col, pos), s._name, index)


def _frame_at(df, index, pos):
    t = df._table
    cols = [_gather(t.column(i), pos) for i in range(t.num_columns)]
    out = df._like(_core.table_from_columns(cols, t.names))
    out._index = index
    return out


def _first_then(a, b):
    """Series a's values, b's where a is missing (both on the same rows)."""
    if a.dtype != b.dtype:
        numeric = ("int", "uint", "float", "bool")
        if a.dtype.startswith(numeric) and b.dtype.startswith(numeric):
            a, b = a.astype("float64"), b.astype("float64")
        elif a._col.null_count == len(a):
            return b
        elif b._col.null_count == len(b):
            return a
        else:
            raise UnsupportedError(f"combine_first of {a.dtype} and {b.dtype} values is not "
                                   "supported")
    return a.mask(a.isna(), b)


def _exact_int(out, dtypes):
    """out (float64 from integer sides) back as the integer dtype when no
    value is missing, as pandas 3 keeps it."""
    if out.dtype == "float64" and len(set(dtypes)) == 1 and \
            dtypes[0].startswith(("int", "uint")) and not out.isna().any():
        return out.astype(dtypes[0])
    return out


def _updated(this, that, overwrite, errors):
    """Series this with that's value wherever that has one (overwrite) or
    wherever this is missing (not overwrite), in this's dtype (pandas 3
    refuses a value the dtype cannot hold); None when nothing changes."""
    if errors == "raise" and (this.notna() & that.notna()).any():
        raise InvalidValueError("Data overlaps.")
    take = that.notna() if overwrite else this.isna() & that.notna()
    if not take.any():
        return None
    out = _first_then(that, this) if overwrite else _first_then(this, that)
    if out.dtype != this.dtype:
        try:
            back = out.astype(this.dtype)
        except (DTypeError, InvalidValueError, UnsupportedError):
            back = None
        if back is None or (back.astype(out.dtype) != out).fillna(False).any():
            raise DTypeError(f"update: a value of {that.dtype} for a column of dtype "
                             f"{this.dtype} it cannot hold")
        out = back
    return out


def _update_rows(self, other):
    """other's rows at self's labels (a left join; other's labels unique)."""
    if not other.index.is_unique:
        raise InvalidValueError("update: cannot reindex on an axis with duplicate labels")
    try:
        index, apos, bpos = _rows(self, other, "left", "update")
    except DTypeError as e:
        if "labels with one of" not in str(e):
            raise
        # labels of two kinds (strings and numbers): none matches, as pandas
        n = len(self)
        return _core.column_from_buffer(np.zeros(n, dtype=np.int64), mask=np.ones(n, bool))
    if apos is not None and len(index) != len(self):
        raise InvalidValueError("update: the labels did not align")
    return bpos


def _update_args(join, filter_func, errors):
    if join != "left":
        raise UnsupportedError("update: only join='left' is supported (as pandas)")
    if errors not in ("ignore", "raise"):
        raise InvalidValueError("errors must be either 'ignore' or 'raise'")
    if filter_func is not None:
        raise UnsupportedError("update: filter_func is not supported")


def _differs(a, b):
    """bool Series: where a and b (Series on the same rows) differ (two
    missing values are equal, as pandas' compare has it)."""
    both_missing = a.isna() & b.isna()
    return ~((a == b).fillna(False) | both_missing)


def _compare_args(align_axis, result_names):
    if align_axis not in (1, "columns"):
        raise UnsupportedError("compare: only align_axis=1 is supported")
    if not (isinstance(result_names, tuple) and len(result_names) == 2):
        raise DTypeError(f"Passing 'result_names' as a {type(result_names).__name__} is not "
                         "supported. Provide 'result_names' as a tuple instead.")


class SeriesCombine:
    """Series.align / combine_first (a mixin of zambezi.Series)."""

    __slots__ = ()

    def align(self, other, join="outer", axis=None, level=None, copy=None, fill_value=None):
        """(self, other) on the same row labels: the union of both indexes
        (sorted) with join="outer", the labels both have ("inner"), or one
        side's ("left", "right"); labels a side lacks give missing values
        (fill_value fills every missing value of both).

        Examples
        --------
        >>> a, b = zb.Series([1, 2], index=["x", "y"]).align(zb.Series([5], index=["z"]))
        >>> a.to_list(), b.to_list()
        ([1.0, 2.0, None], [None, None, 5.0])
        """
        if level is not None or axis not in (None, 0, "index"):
            raise UnsupportedError("Series.align: level= and axis=1 are not supported")
        if getattr(other, "_ndim", 0) == 2:
            right, left = other.align(self, join={"left": "right", "right": "left"}.get(
                join, join), axis=0, fill_value=fill_value)
            return left, right
        if getattr(other, "_ndim", 0) != 1:
            raise DTypeError(f"align: other must be a Series or DataFrame, not "
                             f"{type(other).__name__}")
        index, apos, bpos = _rows(self, other, join, "align")
        left, right = _series_at(self, index, apos), _series_at(other, index, bpos)
        if fill_value is not None:
            left, right = left.fillna(fill_value), right.fillna(fill_value)
        return left, right

    def combine_first(self, other):
        """This Series' values, and other's where this one is missing or
        lacks the label: over the union of both indexes (sorted, as
        pandas), integers kept where no value ends missing.

        Examples
        --------
        >>> a = zb.Series([1.0, None, 3.0])
        >>> a.combine_first(zb.Series([9.0, 8.0, None])).to_list()
        [1.0, 8.0, 3.0]
        >>> zb.Series([1, 2], index=["b", "c"]).combine_first(
        ...     zb.Series([7], index=["a"])).to_dict()
        {'a': 7, 'b': 1, 'c': 2}
        """
        if not getattr(other, "_ndim", 0) == 1:
            raise DTypeError(f"combine_first: other must be a Series, not "
                             f"{type(other).__name__}")
        index, apos, bpos = _rows(self, other, "outer", "combine_first")
        a, b = _series_at(self, index, apos), _series_at(other, index, bpos)
        return _exact_int(_first_then(a, b), [self.dtype, other.dtype])

    def compare(self, other, align_axis=1, keep_shape=False, keep_equal=False,
                result_names=("self", "other")):
        """Where this Series and other (with the same labels) differ: a
        frame of the two sides' values, columns ``result_names``, on the
        rows that differ (``keep_shape``: every row, equal values missing
        unless ``keep_equal``).  Two missing values are equal.

        Examples
        --------
        >>> zb.Series([1, 2, 3]).compare(zb.Series([1, 5, 3])).to_dict("list")
        {'self': [2], 'other': [5]}
        """
        _compare_args(align_axis, result_names)
        if not _base.is_series(other) or not _align.same_labels(self._index, other._index):
            raise InvalidValueError("Can only compare identically-labeled Series objects")
        differs = _differs(self, other)
        a, b = (self, other) if keep_equal else (self.where(differs), other.where(differs))
        if not keep_shape:
            a, b = a[differs], b[differs]
        return _labels.frame_from(self._constructor_expanddim, [a._col, b._col],
                                  list(result_names), a._index)

    def update(self, other):
        """In place: this Series takes other's value at every label other
        has a non-missing value for (other aligned on this one's labels);
        the dtype stays (a value it cannot hold raises DTypeError).

        Examples
        --------
        >>> s = zb.Series([1.0, 2.0, 3.0])
        >>> s.update(zb.Series([9.0, None], index=[1, 2]))
        >>> s.to_list()
        [1.0, 9.0, 3.0]
        """
        if getattr(other, "_ndim", 0) != 1:   # pandas: Series(other), its own labels
            other = self._constructor(other)
        that = _series_at(other, self._index, _update_rows(self, other))
        out = _updated(self, that, True, "ignore")
        if out is not None:
            self._col = out._col


class FrameCombine:
    """DataFrame.align / combine_first (a mixin of zambezi.DataFrame)."""

    __slots__ = ()

    def align(self, other, join="outer", axis=None, level=None, copy=None, fill_value=None):
        """(self, other) on the same row labels (see Series.align) and, for
        two frames without ``axis``, the same columns too (the union of the
        labels, in order, for "outer"); a Series aligns on the rows with
        ``axis=0``.

        Examples
        --------
        >>> a, b = zb.DataFrame({"x": [1, 2]}).align(zb.DataFrame({"y": [3.0]}, index=[1]))
        >>> a.columns.to_list(), b.to_dict("list")
        (['x', 'y'], {'x': [None, None], 'y': [None, 3.0]})
        """
        if level is not None:
            raise UnsupportedError("DataFrame.align: level= is not supported")
        axis = {None: None, 0: 0, "index": 0, 1: 1, "columns": 1}.get(axis, -1)
        if axis == -1:
            raise InvalidValueError("align: axis must be 0, 1 or None")
        if getattr(other, "_ndim", 0) == 1:
            if axis != 0:
                raise UnsupportedError("DataFrame.align with a Series needs axis=0")
            index, apos, bpos = _rows(self, other, join, "align")
            left, right = _frame_at(self, index, apos), _series_at(other, index, bpos)
        elif getattr(other, "_ndim", 0) == 2:
            left, right = self, other
            if axis in (None, 0):
                index, apos, bpos = _rows(self, other, join, "align")
                left, right = _frame_at(self, index, apos), _frame_at(other, index, bpos)
            if axis in (None, 1):
                labels = _column_join(_labels.label_list(self), _labels.label_list(other), join)
                left, right = left.reindex(columns=labels), right.reindex(columns=labels)
        else:
            raise DTypeError(f"align: other must be a Series or DataFrame, not "
                             f"{type(other).__name__}")
        if fill_value is not None:
            left, right = left.fillna(fill_value), right.fillna(fill_value)
        return left, right

    def combine_first(self, other):
        """This frame's values, and other's where this one is missing or
        lacks the row or column: rows over the union of both indexes
        (sorted), this frame's columns then other's new ones.

        Examples
        --------
        >>> a = zb.DataFrame({"x": [1.0, None]}, index=["p", "q"])
        >>> a.combine_first(zb.DataFrame({"x": [5.0], "y": [2.0]}, index=["q"])).to_dict("list")
        {'x': [1.0, 5.0], 'y': [None, 2.0]}
        """
        if getattr(other, "_ndim", 0) != 2:
            raise DTypeError(f"combine_first: other must be a DataFrame, not "
                             f"{type(other).__name__}")
        index, apos, bpos = _rows(self, other, "outer", "combine_first")
        mine, theirs = _labels.label_list(self), _labels.label_list(other)
        where = {lb: j for j, lb in enumerate(theirs)}
        cols, out_labels = [], []
        for j, lb in enumerate(mine):
            a = _series_at(self.iloc[:, j], index, apos)
            if lb in where:
                b = _series_at(other.iloc[:, where[lb]], index, bpos)
                a = _exact_int(_first_then(a, b), [self.iloc[:, j].dtype,
                                                   other.iloc[:, where[lb]].dtype])
            cols.append(a._col)
            out_labels.append(lb)
        seen = set(mine)
        for j, lb in enumerate(theirs):
            if lb not in seen:
                cols.append(_series_at(other.iloc[:, j], index, bpos)._col)
                out_labels.append(lb)
        return _labels.frame_from(self._constructor, cols, out_labels, index, None)

    def compare(self, other, align_axis=1, keep_shape=False, keep_equal=False,
                result_names=("self", "other")):
        """Where this frame and other (the same row and column labels)
        differ: for each column with a difference, its two sides as
        columns (column, result_names[0]) and (column, result_names[1]),
        on the rows with a difference; values that are equal there are
        missing unless ``keep_equal``; ``keep_shape`` keeps every row and
        column.  Two missing values are equal.

        Examples
        --------
        >>> a = zb.DataFrame({"x": [1, 2], "y": ["p", "q"]})
        >>> a.compare(zb.DataFrame({"x": [1, 7], "y": ["p", "q"]})).columns.to_list()
        [('x', 'self'), ('x', 'other')]
        """
        _compare_args(align_axis, result_names)
        if getattr(other, "_ndim", 0) != 2 or not _align.same_labels(self._index, other._index) \
                or _labels.label_list(self) != _labels.label_list(other):
            raise InvalidValueError("Can only compare identically-labeled (both index and "
                                    "columns) DataFrame objects")
        labels = _labels.label_list(self)
        pairs = [(self.iloc[:, j], other.iloc[:, j]) for j in range(len(labels))]
        masks = [_differs(a, b) for a, b in pairs]
        rows = None
        for m in masks:
            rows = m if rows is None else rows | m
        cols, out_labels = [], []
        for lb, (a, b), m in zip(labels, pairs, masks):
            if not keep_shape and not m.any():
                continue
            if not keep_equal:
                a, b = a.where(m), b.where(m)
            if not keep_shape and rows is not None:
                a, b = a[rows], b[rows]
            cols += [a._col, b._col]
            out_labels += [(lb, result_names[0]), (lb, result_names[1])]
        index = self._index if keep_shape or rows is None else self[rows]._index
        if not cols:   # nothing differs: no rows, two empty levels of columns (pandas)
            from zambezi import index as _ix

            out = self._constructor(index=index)
            return _labels.attach(out, _ix.MultiIndex.from_arrays(
                [[], []], names=[self.columns.name, None]))
        # the columns' own name names the first level (pandas)
        return _labels.frame_from(self._constructor, cols, out_labels, index,
                                  [self.columns.name, None])

    def update(self, other, join="left", overwrite=True, filter_func=None, errors="ignore"):
        """In place, as pandas: each column this frame shares with other
        (a DataFrame, or a named Series as one column) takes other's
        non-missing values, other aligned on this frame's row labels;
        ``overwrite=False`` fills only this frame's missing values;
        ``errors="raise"`` raises ValueError where both have a value.
        Dtypes stay (a value a column cannot hold raises DTypeError).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, 3], "b": [1.0, None, 3.0]})
        >>> df.update(zb.DataFrame({"b": [5.0, None]}, index=[1, 2]))
        >>> df.to_dict("list")
        {'a': [1, 2, 3], 'b': [1.0, 5.0, 3.0]}
        """
        _update_args(join, filter_func, errors)
        if getattr(other, "_ndim", 0) == 1:
            if other.name is None:
                raise InvalidValueError("update: a Series needs a name (its column)")
            other = other.to_frame()
        elif getattr(other, "_ndim", 0) != 2:   # pandas: DataFrame(other), its own labels
            other = self._constructor(other)
        bpos = _update_rows(self, other)
        theirs = {lb: j for j, lb in enumerate(_labels.label_list(other))}
        t = self._table
        cols = [t.column(j) for j in range(t.num_columns)]
        changed = False
        for j, lb in enumerate(_labels.label_list(self)):
            if lb not in theirs:
                continue
            this = self.iloc[:, j]
            that = _series_at(other.iloc[:, theirs[lb]], self._index, bpos)
            out = _updated(this, that, overwrite, errors)
            if out is not None:
                cols[j] = out._col
                changed = True
        if changed:
            self._table = _core.table_from_columns(cols, t.names)


def _column_join(a, b, join):
    """Column labels of a join of two frames' labels (pandas: the outer
    join is sorted when the labels differ and can be ordered)."""
    if a == b:
        return a
    if join == "left":
        return a
    if join == "right":
        return b
    if join == "inner":
        have = set(b)
        return [x for x in a if x in have]
    union = list(dict.fromkeys(a + b))
    try:
        return sorted(union)
    except TypeError:
        return union
