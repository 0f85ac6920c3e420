"""Methods that move labels between the index and the data, with pandas'
names: ``set_index``, ``reset_index``, ``rename_axis``, ``sort_index``
and ``reindex`` (the ``IndexOps`` mixin of Series and DataFrame).

Index levels are engine columns (zambezi.index), so moving a column into
the index or out of it shares its buffers: nothing is copied.  Sorting by
the index is one engine sort; ``reindex`` looks the labels up with the
index's sorted lookup and gathers with one ``take`` (missing labels give
null rows).
"""

import numpy as np

from zambezi import _base, _convert, _core, _indexing, _labels, _numpy_order
from zambezi import index as _ix
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError


def _level_names_for_columns(index, taken):
    """Column names for index levels moved into the data (pandas: the
    level's name, else 'index' for one level, else 'level_i')."""
    out = []
    for i, nm in enumerate(index.names):
        if nm is None:
            nm = "index" if index.nlevels == 1 and "index" not in taken else f"level_{i}"
        out.append(str(nm))
    return out




def _new_axis_names(idx, value):
    """rename_axis's value (a name, a list of names, a dict or function of
    the old names) as the list of idx's new level names."""
    if callable(value):
        return [value(n) for n in idx.names]
    if isinstance(value, dict):
        return [value.get(n, n) for n in idx.names]
    if isinstance(value, (list, tuple)):
        return list(value)
    if idx.nlevels != 1:
        raise InvalidValueError("rename_axis: give one name per level of a MultiIndex")
    return [value]


def relabel_index(index, mapper, errors="ignore"):
    """index with its labels mapped, as rename(index=mapper): a dict or
    Series replaces the labels it has (one engine pass); a function is
    the user's, called once per label.  errors="raise": a key the index
    lacks raises KeyError."""
    if index.nlevels != 1:
        raise UnsupportedError("rename(index=...): a MultiIndex is not supported")
    if callable(mapper):
        return _ix.Index([mapper(v) for v in index.to_list()], name=index.name)
    if not isinstance(mapper, dict):
        mapper = mapper.to_dict()
    if errors == "raise":
        missing = [k for k in mapper if k not in index]
        if missing:
            raise _ix.IndexKeyError(f"{missing} not found in axis")
    try:
        labels = _base.series_class()._from_column(index._levels()[0], index.name)
        labels = labels.replace(mapper)
    except DTypeError:
        raise UnsupportedError("rename(index=...): new labels of another kind than the "
                               "index's (an index of mixed labels) are not supported") from None
    return _ix.Index._from_columns([labels._col], [index.name])


def _label_column(df, key):
    """The table name of the one column whose label is key, when df's
    labels are not its table names (an int label 0 names the column "0");
    else None."""
    if isinstance(key, (str, list, tuple, np.ndarray)) or _base.is_series(key) or \
            isinstance(key, _ix.Index) or _labels.labels(df) is None:
        return None
    try:
        hit = _labels.names_by_label(df).get(key)
    except TypeError:   # unhashable: no label
        return None
    if hit is not None and len(hit) > 1:
        raise InvalidValueError(f"set_index: the column label {key!r} is not unique")
    return None if hit is None else hit[0]


class IndexOps:
    """set_index / reset_index / rename_axis / sort_index / reindex."""

    __slots__ = ()

    def _inplace(self, out, inplace, method):
        """inplace=True of a method pandas 3.1 deprecates it on: this object
        takes out, a warning as pandas', and None."""
        if not inplace:
            return out
        _base.become(self, out)
        _base.warn_inplace(self, method)
        return None

    # -- set_index (DataFrame) --------------------------------------------
    def set_index(self, keys, drop=True, append=False, inplace=False, verify_integrity=False):
        """Use columns (names) or arrays (Series, Index, lists of the
        frame's length) as the row labels; several keys make a MultiIndex.
        The columns move into the index without copying.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete"], "fare": [7.0, 3.5]})
        >>> df.set_index("city")
                 fare
              float64
        city
        Maun        7
        Tete      3.5
        <BLANKLINE>
        [2 rows x 1 columns]
        >>> df.set_index(["city", "fare"]).index.nlevels
        2
        """
        if self._ndim != 2:
            raise UnsupportedError("set_index is a DataFrame method")
        if not isinstance(keys, list):
            keys = [keys]
        t = self._table
        names = t.names
        cols, level_names, dropped = [], [], set()
        if append:
            cols.extend(self._index._levels())
            level_names.extend(self._index.names)
        for k in keys:
            if type(k).__module__.startswith("pandas") and type(k).__name__.endswith("Index"):
                k = _ix.from_pandas_index(k)  # pandas' Index, CategoricalIndex, ...
            hit = _label_column(self, k)
            if hit is not None:   # a column label other than its name (0 for "0")
                cols.append(t.column(names.index(hit)))
                level_names.append(k)
                if drop:
                    dropped.add(hit)
            elif isinstance(k, str):
                if k not in names:
                    raise self._missing(k)
                cols.append(t.column(names.index(k)))
                level_names.append(k)
                if drop:
                    dropped.add(k)
            elif isinstance(k, _ix.Index):
                if len(k) != len(self):
                    raise InvalidValueError(f"set_index: {len(k)} labels for {len(self)} rows")
                cols.extend(k._levels())
                level_names.extend(k.names)
            elif _base.is_series(k) or _convert._is_pandas(k, "Series") or \
                    isinstance(k, (np.ndarray, tuple)) or (isinstance(k, list)):
                s = k if _base.is_series(k) else self._constructor_sliced(k)
                if len(s) != len(self):
                    raise InvalidValueError(f"set_index: {len(s)} values for {len(self)} rows")
                cols.append(s._col)
                level_names.append(s.name)
            else:
                raise self._missing(k)
        index = _ix.Index._from_columns(cols, level_names)
        if verify_integrity and not index.is_unique:
            raise InvalidValueError("set_index: the index has duplicate labels "
                                    "(verify_integrity=True)")
        keep = [i for i, nm in enumerate(names) if nm not in dropped]
        out = self._like(t.select(keep))
        out._index = index
        return self._inplace(out, inplace, "set_index")

    # -- reset_index -------------------------------------------------------
    def reset_index(self, level=None, drop=False, inplace=False, name=None, names=None,
                    allow_duplicates=False):
        """Move the index (or some levels of it) back into the columns, at
        the front, and number the rows 0..n-1; ``drop=True`` discards it.
        A Series becomes a DataFrame unless ``drop``.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2]}, index=zb.Index(["x", "y"], name="k"))
        >>> df.reset_index()
                k      a
           string  int64
        0       x      1
        1       y      2
        <BLANKLINE>
        [2 rows x 2 columns]
        >>> df.reset_index(drop=True).index
        RangeIndex(start=0, stop=2, step=1)
        """
        _base.check_bool(allow_duplicates, "allow_duplicates")
        index = self._index
        if level is None:
            move = list(range(index.nlevels))
        else:
            levels = level if isinstance(level, (list, tuple)) else [level]
            move = sorted({index._level_number(lv) for lv in levels})
        rest = [i for i in range(index.nlevels) if i not in move]
        if rest:
            new_index = _ix.Index._from_columns([index._levels()[i] for i in rest],
                                                [index.names[i] for i in rest])
        else:
            new_index = _ix.default_index(len(self))
        if drop:
            if self._ndim == 1:
                out = self._like(self._col)
            else:
                out = self._like(self._table)
            out._index = new_index
            return self._inplace(out, inplace, "reset_index")
        if self._ndim == 1:
            if inplace:
                raise InvalidValueError("reset_index: a Series cannot be reset in place "
                                        "unless drop=True")
            col_name = name if name is not None else (self.name if self.name is not None
                                                      else 0)
            frame = _labels.frame_from(self._constructor_expanddim, [self._col], [col_name],
                                       self._index)
            return frame.reset_index(level=level, names=names)
        t = self._table
        existing = t.names
        level_names = _level_names_for_columns(index, existing)
        if names is not None:
            given = [names] if isinstance(names, str) else list(names)
            for i, j in enumerate(move):
                if i < len(given):
                    level_names[j] = str(given[i])
        # a RangeIndex's labels are made on the host, also for a frame on a GPU
        new_cols = [c if c.device == t.device else c.to_device(t.device)
                    for c in (index._levels()[i] for i in move)]
        new_names = [level_names[i] for i in move]
        for nm in new_names:
            if nm in existing and not allow_duplicates:
                raise InvalidValueError(f"reset_index: cannot insert {nm!r}, already exists")
        cols = new_cols + [t.column(i) for i in range(t.num_columns)]
        out = self._constructor._wrap(_core.table_from_columns(cols, new_names + existing),
                                      new_index)
        out._columns = self._columns  # labels carry over, the levels' names join them
        return self._inplace(out, inplace, "reset_index")

    # -- rename_axis -------------------------------------------------------
    def rename_axis(self, mapper=None, index=None, columns=_base.NO_DEFAULT, axis=0, inplace=False):
        """Name the index (a name, a list of names for a MultiIndex, a
        dict or function of the old names); ``columns=`` (or ``axis=1``)
        names a frame's column labels the same way (``columns=None``
        removes their name).

        Examples
        --------
        >>> zb.Series([1, 2]).rename_axis("row").index.name
        'row'
        >>> zb.DataFrame({"a": [1]}).rename_axis(columns="col").columns.name
        'col'
        """
        if axis in (1, "columns"):
            if self._ndim != 2:
                raise InvalidValueError("rename_axis: a Series has no columns")
            if mapper is not None:  # the mapper names the columns
                columns, mapper = mapper, None
        elif axis not in (0, "index", "rows"):
            raise InvalidValueError(f"rename_axis: no axis {axis!r}")
        if mapper is not None and (callable(mapper) or isinstance(mapper, dict)):
            raise InvalidValueError("rename_axis: Use `.rename` to alter labels with a mapper "
                                    "(a dict or function names the axis through index= or "
                                    "columns=)")
        out = self
        value = index if index is not None else mapper
        if value is not None or columns is _base.NO_DEFAULT:
            out = self._with_index(self._index.set_names(_new_axis_names(self._index, value)))
        if columns is not _base.NO_DEFAULT:
            if self._ndim != 2:
                raise InvalidValueError("rename_axis: a Series has no columns")
            labels = self._zb_columns
            if out is self:
                out = self._with_index(self._index)
            _labels.attach(out, labels.set_names(_new_axis_names(labels, columns)))
        return self._inplace(out, inplace, "rename_axis")

    # -- sort_index --------------------------------------------------------
    def sort_index(self, ascending=True, na_position="last", ignore_index=False, level=None,
                   kind=None, inplace=False, axis=0):
        """Rows in the order of their labels (stable; missing labels at
        na_position; kind="quicksort" or "heapsort" puts equal labels of a
        flat index in numpy's order, as pandas' default does).  A
        MultiIndex sorts level by level.  ``axis=1`` orders
        a frame's columns by their labels instead.

        Examples
        --------
        >>> zb.Series([1, 2, 3], index=["c", "a", "b"]).sort_index().to_list()
        [2, 3, 1]
        >>> zb.DataFrame({"b": [1], "a": [2]}).sort_index(axis=1).columns.to_list()
        ['a', 'b']
        """
        ascending = _base.check_ascending(ascending)
        if axis in (1, "columns"):
            if self._ndim != 2:
                raise InvalidValueError("sort_index: a Series has no axis 1")
            return self._inplace(_sort_columns(self, ascending, na_position), inplace,
                                 "sort_index")
        if axis not in (0, "index", "rows"):
            raise InvalidValueError(f"sort_index: no axis {axis!r}")
        index = self._index
        if na_position not in ("first", "last"):
            raise InvalidValueError(f"na_position must be 'first' or 'last', not {na_position!r}")
        if isinstance(index, _ix.RangeIndex):
            if (index.step > 0) == bool(ascending) or len(index) <= 1:
                out = self._with_index(index)
            else:
                out = self._select_rows(_indexing.row_slice(slice(None, None, -1), len(self),
                                                            "sort_index"))
        else:
            cols = index._levels()
            levels = list(range(len(cols)))
            if level is not None:
                lv = level if isinstance(level, (list, tuple)) else [level]
                first = [index._level_number(x) for x in lv]
                levels = first + [i for i in levels if i not in first]
            t = _core.table_from_columns([cols[i] for i in levels],
                                         [f"l{i}" for i in range(len(levels))])
            asc = list(ascending) if isinstance(ascending, (list, tuple)) else \
                [ascending] * len(levels)
            for a in asc:   # as pandas
                if not isinstance(a, (bool, np.bool_)):
                    raise InvalidValueError(f'For argument "ascending" expected type bool, '
                                            f'received type {type(a).__name__}.')
            asc = [bool(a) for a in asc]
            if len(asc) < len(levels):
                asc = asc + [True] * (len(levels) - len(asc))
            na_first = na_position == "first"
            flat_numpy = len(cols) == 1 and kind in _numpy_order.NUMPY_KINDS
            if flat_numpy and (index.is_monotonic_increasing if asc[0] else
                               index.is_monotonic_decreasing):
                order = None   # already in order: pandas keeps the rows as they are
            elif flat_numpy:   # equal labels in numpy's order, as pandas' default kind
                values, order = _numpy_order.sorted_order(cols[0], asc[0], na_first, kind)
                if values is None:
                    order = _core.column_from_buffer(order)
            else:
                order = _core.sort_indices(t, list(range(len(levels))), asc, na_first)
            out = self._with_index(index) if order is None else \
                self._select_rows(_indexing.take_rows(order))
        if ignore_index:
            out = out._with_index(_ix.default_index(len(out)))
        return self._inplace(out, inplace, "sort_index")

    # -- reindex -----------------------------------------------------------
    def reindex(self, labels=None, index=None, columns=None, fill_value=None, axis=None):
        """Rows in the order of new labels: a label that is missing gives a
        row of nulls (or fill_value).  For a frame, ``columns=`` picks and
        orders columns the same way.  The index must be unique.

        Examples
        --------
        >>> s = zb.Series([1.0, 2.0], index=["a", "b"])
        >>> s.reindex(["b", "z", "a"]).to_list()
        [2.0, None, 1.0]
        """
        if axis in (1, "columns") and labels is not None:
            columns, labels = labels, None
        new = index if index is not None else labels
        out = self
        if new is not None:
            new_index = _ix.ensure_index(new)
            if not hasattr(new, "name") and new_index.nlevels == 1 == self._index.nlevels:
                # labels without a name of their own (a list, a range, an
                # array) keep the index's name, as pandas
                new_index = new_index.rename(self._index.name)
            if new_index.nlevels != self._index.nlevels:
                raise UnsupportedError(f"reindex: {new_index.nlevels} levels of labels for an "
                                       f"index of {self._index.nlevels} levels")
            if not self._index.is_unique:
                raise InvalidValueError("reindex: cannot reindex on an index with duplicate "
                                        "labels")
            if new_index.nlevels > 1:
                pos = _multi_positions(self._index, new_index)
            else:
                pos = self._index._lookup().first_positions(new_index.to_list())
            missing = pos < 0
            idx = _core.column_from_buffer(np.where(missing, 0, pos).astype(np.int64),
                                           mask=missing if missing.any() else None)
            out = self._like(_core.take(self._engine, idx))
            out._index = new_index
            if fill_value is not None and missing.any():
                out = _fill_new_rows(out, missing, fill_value)
        if columns is not None:
            if self._ndim != 2:
                raise InvalidValueError("reindex: a Series has no columns")
            out = _reindex_columns(out, columns, fill_value)
        return out

    # -- add_prefix / add_suffix ------------------------------------------
    def _affix(self, affix, axis, before, what):
        if not isinstance(affix, str):
            raise InvalidValueError(f"{what}: expected a str, not {type(affix).__name__}")
        axis = {None: None, 0: 0, "index": 0, "rows": 0, 1: 1, "columns": 1}.get(axis, axis)
        if axis not in (None, 0, 1) or (self._ndim == 1 and axis == 1):
            raise InvalidValueError(f"{what}: no axis {axis!r} here")
        if self._ndim == 2 and axis in (None, 1):
            return self.rename(columns=lambda c: f"{affix}{c}" if before else f"{c}{affix}")
        idx = self._index
        if idx.nlevels != 1:
            raise UnsupportedError(f"{what} of a MultiIndex's labels is not supported")
        # the labels as text (one engine cast) with the affix joined on in the engine
        text = self._constructor_sliced._from_column(idx._levels()[0]).astype(str)
        text = affix + text if before else text + affix
        out = self.copy()
        out._index = _ix.Index._from_columns([text._col], [idx.name])
        return out

    def add_prefix(self, prefix, axis=None):
        """The labels with prefix put before them, as pandas: a
        DataFrame's column labels (or, with axis=0, its row labels); a
        Series' row labels.  Labels that are not text become text (row
        labels through the engine's cast: timestamps are not supported
        yet).

        Examples
        --------
        >>> zb.DataFrame({"a": [1], "b": [2]}).add_prefix("x_").columns.to_list()
        ['x_a', 'x_b']
        >>> zb.Series([5, 6]).add_prefix("r").index.to_list()
        ['r0', 'r1']
        """
        return self._affix(prefix, axis, True, "add_prefix")

    def add_suffix(self, suffix, axis=None):
        """The labels with suffix put after them (see add_prefix).

        Examples
        --------
        >>> zb.DataFrame({"a": [1], "b": [2]}).add_suffix("_y").columns.to_list()
        ['a_y', 'b_y']
        """
        return self._affix(suffix, axis, False, "add_suffix")


def _label_key(label):
    """A sort key for a column label: missing parts after the others."""
    parts = label if isinstance(label, tuple) else (label,)
    return tuple((p is None or (isinstance(p, float) and p != p), p) for p in parts)


def _sort_columns(df, ascending, na_position):
    """df's columns ordered by their labels (stable), as sort_index(axis=1)."""
    from zambezi import _labels

    labels = _labels.label_list(df)
    if na_position not in ("first", "last"):
        raise InvalidValueError(f"na_position must be 'first' or 'last', not {na_position!r}")
    try:
        order = sorted(range(len(labels)), key=lambda i: _label_key(labels[i]),
                       reverse=not ascending)
    except TypeError as e:
        raise InvalidValueError(f"sort_index(axis=1): the column labels do not compare: "
                                f"{e}") from None
    t = df._table
    names = t.names
    return df._like(_core.table_from_columns([t.column(i) for i in order],
                                             [names[i] for i in order]))


def _reindex_columns(df, columns, fill_value):
    """df's columns picked and ordered by the labels columns (any labels:
    str, numbers, tuples of a MultiIndex); a label df lacks gives a column
    of NaN (or fill_value), as pandas."""
    from zambezi import _labels

    have = _labels.label_list(df)
    where = {}
    for i, lb in enumerate(have):
        where.setdefault(lb, i)
    names = list(df._table.names)
    wanted = columns.to_list() if hasattr(columns, "to_list") else list(columns)
    level_names = list(getattr(columns, "names", None) or []) or None
    if level_names is None:
        cur = _labels.labels(df)
        level_names = None if cur is None else list(cur.names)
    cols = []
    for c in wanted:
        i = where.get(c)
        if i is None and not isinstance(c, tuple) and str(c) in names:
            i = names.index(str(c))
        if i is not None:
            cols.append(df._table.column(i))
        else:  # pandas: a missing column is all NaN (or fill_value)
            value = np.nan if fill_value is None else fill_value
            cols.append(_convert.to_column(np.full(len(df), value)))
    if level_names is not None and len(level_names) != max(
            (len(c) if isinstance(c, tuple) else 1 for c in wanted), default=1):
        level_names = None
    return _labels.frame_from(df._constructor, cols, wanted, df._index, level_names)


def _fill_new_rows(obj, new, value):
    """obj (just reindexed) with value in its new rows (new: a bool array),
    as fillna fills (dtype rules and refusals); the missing values obj
    held before stay missing, as in pandas."""
    filled = obj.fillna(value)
    rows = _core.column_from_buffer(np.ascontiguousarray(new, dtype=np.bool_))

    def pick(old, fresh):
        if old.dtype != fresh.dtype:
            old = _core.cast(old, fresh.dtype)
        return _core.column_where(fresh, rows, old)

    if obj._ndim == 1:
        return filled._like(pick(obj._col, filled._col))
    t, f = obj._table, filled._table
    return filled._like(_core.table_from_columns(
        [pick(t.column(i), f.column(i)) for i in range(len(t.names))], f.names))


def _multi_positions(index, labels):
    """For each label tuple of the MultiIndex labels, its position in the
    unique MultiIndex index, or -1 (an engine left join of the levels; a
    missing label part matches nothing)."""
    from zambezi._reshape import _host_numpy

    keys = list(range(index.nlevels))
    names = [f"l{i}" for i in keys]
    left = _core.table_from_columns(list(labels._levels()), names)
    right = _core.table_from_columns(list(index._levels()), names)
    lidx, ridx = _core.join_indices(left, right, keys, keys, "left", False)
    li = _host_numpy(lidx).astype(np.int64)
    ri = _host_numpy(ridx).astype(np.int64)
    m = _convert.null_mask(ridx)
    if m is not None:
        ri = np.where(m, -1, ri)
    out = np.full(len(labels), -1, dtype=np.int64)
    out[li] = ri
    return out
