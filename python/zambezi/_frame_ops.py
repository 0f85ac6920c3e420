"""Compute methods of zambezi.DataFrame: column assignment, casts,
filtering, taking rows and sorting (the ``FrameOps`` mixin; missing values
are in zambezi._missing).

Each method works column by column through the Series operations of
zambezi._compute or with one engine call on the whole table (filter, take,
sort_indices), with the GIL released; nothing here loops over rows.  The
differences from pandas listed in zambezi._compute hold here too;
selections keep their row labels.  Operators are in zambezi._frame_arith,
reductions in zambezi._frame_reduce.
"""

import numpy as np

from zambezi import _base, _convert, _core, _indexing, _labels, _numpy_order
from zambezi import index as _ix
from zambezi._dtypes import is_scalar, py_scalar
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError, ZambeziError


def _frame_value_column(df, name, value):
    """An engine column for df[name] = value (Series, array, list, scalar)."""
    n = len(df)
    if is_scalar(value):
        value = py_scalar(value)
        if df._table.num_columns == 0:
            raise InvalidValueError(
                f"cannot assign the scalar {value!r} to column {name!r} of a frame without "
                "columns (its length is unknown); assign a list or Series")
        if value is None:
            raise DTypeError(
                f"cannot infer a dtype for column {name!r} from None; assign a typed Series")
        # One value, repeated with take (C): index 0 n times.
        one = _core.column_from_sequence([value], name=name)
        return _core.take(one, _core.column_from_buffer(np.zeros(n, dtype=np.int64)))
    if _base.is_series(value) and df._table.num_columns > 0 and \
            value._index is not df._index and not value._index.equals(df._index):
        # a Series lines up by label, as in pandas: labels df has and value
        # lacks give missing values
        value = value.reindex(df._index)
    col = _convert.to_column(value, name=name)
    if df._table.num_columns > 0 and col.length != n:
        raise InvalidValueError(
            f"column {name!r}: {col.length} values for a frame of {n} rows")
    return col


class FrameOps:
    """Compute methods of zambezi.DataFrame (a mixin)."""

    __slots__ = ()

    def _cols(self):
        t = self._table
        return [t.column(i) for i in range(t.num_columns)], t.names

    def _with_columns(self, cols, names):
        return self._like(_core.table_from_columns(cols, names))

    def _set_columns(self, names, value):
        """df[[a, b]] = value: a DataFrame's columns by position (pandas),
        or one scalar into each."""
        if _base.is_frame(value):
            if len(value._zb_columns) != len(names):
                raise InvalidValueError(f"setting {len(names)} columns from a frame of "
                                        f"{len(value._zb_columns)}: they must be as many")
            for nm, src in zip(names, value._zb_columns.to_list()):
                self[nm] = value[src]
        elif is_scalar(value):
            for nm in names:
                self[nm] = value
        else:
            raise UnsupportedError(f"setting a list of columns from {type(value).__name__}: "
                                   "give a DataFrame or a scalar")

    def __setitem__(self, name, value):
        """df['c'] = Series, list, ndarray or scalar.  A DataFrame wraps an
        immutable engine table: assignment replaces that table with a new
        one sharing every other column (no data copied); other DataFrames
        sharing the old table are not affected."""
        if isinstance(name, (list, np.ndarray, _ix.Index)) or _convert._is_pandas(name, "Index"):
            return self._set_columns(list(name), value)
        if _base.is_frame(name):   # df[bool frame] = value: where it is true (pandas)
            return self._take_over(self.mask(name, value))
        if not isinstance(name, str):
            raise DTypeError(f"column names must be str, not {type(name).__name__}")
        col = _frame_value_column(self, name, value)
        cols, names = self._cols()
        if not names and col.length != len(self._index):
            # the first column of a frame without columns gives it its rows:
            # a Series' labels, else 0..n-1 (pandas)
            self._index = value._index if _base.is_series(value) else \
                _ix.default_index(col.length)
        if name in names:
            cols[names.index(name)] = col
        else:
            cols.append(col)
            names.append(name)
        self._table = _core.table_from_columns(cols, names)

    def assign(self, **kwargs):
        """A new frame with columns added or replaced; a callable value is
        called with the frame (as pandas does), in keyword order.

        Examples
        --------
        >>> df = zb.DataFrame({"fare": [10.0, 4.0], "km": [5.0, 1.0]})
        >>> df.assign(per_km=lambda d: d["fare"] / d["km"], paid=True)
              fare       km   per_km  paid
           float64  float64  float64  bool
        0       10        5        2  True
        1        4        1        4  True
        <BLANKLINE>
        [2 rows x 4 columns]
        """
        df = self._like(self._table)
        for name, value in kwargs.items():
            if callable(value):
                value = value(df)
            df[name] = value
        return df

    @_base.takes_inplace(deprecated=True)
    def drop(self, labels=None, axis=0, index=None, columns=None, errors="raise"):
        """A frame without some rows (by label: ``index=`` or labels with
        axis=0) or columns (``columns=`` or labels with axis=1); columns
        are dropped without copying.  errors="ignore" skips labels that are
        not there.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, 3], "b": [4, 5, 6], "c": [7, 8, 9]})
        >>> df.drop(columns=["a", "c"]).columns.to_list()
        ['b']
        >>> df.drop("b", axis=1).columns.to_list()
        ['a', 'c']
        >>> df.drop(index=[0, 2])["a"].to_list()
        [2]
        """
        if errors not in ("raise", "ignore"):
            raise InvalidValueError(f"drop: errors must be 'raise' or 'ignore', not {errors!r}")
        if labels is not None:
            if index is not None or columns is not None:
                raise InvalidValueError("drop: Cannot specify both 'labels' and "
                                        "'index'/'columns'")
            if axis in (1, "columns"):
                columns = labels
            elif axis in (0, "index", "rows"):
                index = labels
            else:
                raise InvalidValueError(f"drop: axis must be 0 or 1, not {axis!r}")
        elif index is None and columns is None:
            raise InvalidValueError("drop: Need to specify at least one of 'labels', 'index' "
                                    "or 'columns'")
        elif axis == 1:   # pandas tests axis == 1 only ("columns" passes)
            raise InvalidValueError("drop: Cannot specify both 'axis' and 'index'/'columns'")
        out = self
        if index is not None:
            out = out._drop_rows(index, errors)
        if columns is None:
            return out
        if isinstance(columns, str) or is_scalar(columns):
            columns = [columns]
        columns = _labels.to_names(out, columns)  # labels (an int 0 too) as table names
        cols, names = out._cols()
        present = [c for c in columns if c in names]
        if errors == "raise" and len(present) != len(list(columns)):
            raise out._missing(next(c for c in columns if c not in names))
        drop = set(present)
        keep = [i for i, nm in enumerate(names) if nm not in drop]
        return out._with_columns([cols[i] for i in keep], [names[i] for i in keep])

    def _drop_rows(self, labels, errors):
        """self without the rows labelled labels (a label or a list)."""
        if not isinstance(labels, (list, np.ndarray)) and not hasattr(labels, "to_list"):
            labels = [labels]   # a tuple is one label, as pandas' (a MultiIndex's key)
        labels = labels.to_list() if hasattr(labels, "to_list") else list(labels)
        if errors == "ignore":
            labels = [v for v in labels if v in self._index]
        try:
            pos = _ix.all_positions(self._index, labels)
        except DTypeError:   # a label of a kind the index cannot hold: not there
            raise _ix.IndexKeyError(f"{labels} not found in axis") from None
        keep = np.ones(len(self), dtype=bool)
        keep[pos] = False
        return self._select_rows(_indexing.filter_rows(_core.column_from_buffer(keep)))

    def _filter(self, mask, what="df[mask]"):
        m = _indexing.mask_column(mask, len(self), what)
        return self._select_rows(_indexing.filter_rows(m))

    def astype(self, dtype, copy=None, errors="raise"):
        """Columns cast to dtype, or per column with a dict {column: dtype}
        (see Series.astype).  errors="ignore" keeps a column that cannot be
        cast as it is (pandas' errors="ignore"); copy is accepted for
        pandas' signature (zambezi data is immutable: nothing to copy).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2], "b": ["3", "4"]})
        >>> df.astype({"b": "int64"}).dtypes.to_dict()
        {'a': 'int64', 'b': 'int64'}
        >>> df.astype("string").dtypes.to_dict()
        {'a': 'string', 'b': 'string'}
        >>> zb.DataFrame({"a": ["1", "x"], "b": ["2", "3"]}).astype("int64", errors="ignore").dtypes.to_dict()
        {'a': 'string', 'b': 'int64'}
        """
        if errors not in ("raise", "ignore"):
            raise InvalidValueError(f"astype: errors must be 'raise' or 'ignore', not {errors!r}")
        cols, names = self._cols()
        if isinstance(dtype, dict):
            spec = {}
            for c, d in dtype.items():  # keyed by column label (an int label 0 too)
                hits = _labels.to_names(self, [c])
                if hits[0] not in names:
                    raise self._missing(c)
                spec.update((nm, d) for nm in hits)
        else:
            spec = {c: dtype for c in names}
        def cast(col, nm):
            if nm not in spec:
                return col
            try:
                return self._sliced(col, nm).astype(spec[nm])._col
            except ZambeziError:
                if errors == "ignore":
                    return col
                raise

        return self._with_columns([cast(col, nm) for col, nm in zip(cols, names)], names)

    def take(self, indices):
        """The rows at positions indices (negatives count from the end),
        with their labels.

        Examples
        --------
        >>> zb.DataFrame({"a": [10, 20, 30]}).take([2, -3]).to_dict("list")
        {'a': [30, 10]}
        """
        idx = _indexing.positions_column(indices, len(self), "DataFrame.take")
        return self._select_rows(_indexing.take_rows(idx))

    @property
    def iloc(self):
        """Rows by position: df.iloc[3] (a dict), df.iloc[1:10:2],
        df.iloc[[0, 5, -1]], df.iloc[bool mask]; ``iloc[rows, cols]`` also
        selects columns by position.  Results keep their labels.
        ``iloc[rows, columns]`` is not supported: select columns first.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [10, 20, 30], "b": ["x", "y", "z"]})
        >>> df.iloc[1]
        {'a': 20, 'b': 'y'}
        >>> df.iloc[[2, 0]]
               a       b
           int64  string
        2     30       z
        0     10       x
        <BLANKLINE>
        [2 rows x 2 columns]
        """
        return _indexing._ILocIndexer(self)

    def _sort_indices(self, by, ascending=True, na_position="last"):
        names = self._table.names
        if isinstance(by, str):
            by = [by]
        by = list(by)
        if not by:
            raise InvalidValueError("sort_values: 'by' names no columns")
        for c in by:
            if c not in names:
                raise self._missing(c)
        if isinstance(ascending, (list, tuple)):
            if len(ascending) != len(by):
                raise InvalidValueError(
                    f"sort_values: {len(ascending)} ascending flags for {len(by)} columns")
            asc = [bool(a) for a in ascending]
        else:
            asc = [bool(ascending)] * len(by)
        if na_position not in ("first", "last"):
            raise InvalidValueError(
                f"na_position must be 'first' or 'last', not {na_position!r}")
        return _core.sort_indices(self._table, [names.index(c) for c in by], asc,
                                  na_position == "first")

    @_base.takes_inplace(deprecated=True)
    def sort_values(self, by, ascending=True, na_position="last", kind=None,
                    ignore_index=False, key=None):
        """Rows sorted by the columns by (the first most significant);
        ascending is one flag or one per column.  Stable; NaN and nulls at
        na_position.  Rows keep their labels (numbered from 0 with
        ignore_index=True).  Strings sort by their UTF-8 bytes,
        categoricals in category order (as pandas).  By one column,
        kind="quicksort" or "heapsort" puts equal numbers, times or
        categories in numpy's order, as pandas' default does.  ``key``: a
        function of each sort column (a Series) giving the values to sort
        by instead (``key=lambda c: c.str.lower()``).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0]})
        >>> df.sort_values(["city", "fare"], ascending=[True, False])
             city     fare
           string  float64
        2    Maun        9
        0    Maun        7
        1    Tete      3.5
        3    <NA>        1
        <BLANKLINE>
        [4 rows x 2 columns]
        """
        ascending = _base.check_ascending(ascending)
        keys = [by] if isinstance(by, str) or is_scalar(by) else list(by)
        keys = _labels.to_names(self, keys)  # labels (an int 0 too) as table names
        if key is not None:   # sorted by key(column) of each key column, as pandas
            keyed = self._each(lambda s: _keyed(key, s), set(keys))
            if len(keys) == 1 and na_position in ("first", "last"):
                # one key: pandas' order of equal keys (numpy's), as without key=
                asc = ascending[0] if isinstance(ascending, (list, tuple)) and \
                    len(ascending) == 1 else ascending
                kt = keyed._table
                values, idx = _numpy_order.sorted_order(kt.column(kt.names.index(keys[0])),
                                                        asc, na_position == "first", kind)
                if values is None:
                    idx = _core.column_from_buffer(idx)
            else:
                idx = keyed._sort_indices(keys, ascending, na_position)
            out = self._select_rows(_indexing.take_rows(idx))
        elif len(keys) == 1 and keys[0] in self._table.names and na_position in ("first", "last"):
            out = self._sort_one_key(keys[0], ascending, na_position, kind)
        else:
            idx = self._sort_indices(keys, ascending, na_position)
            out = self._select_rows(_indexing.take_rows(idx))
        if ignore_index:
            out._index = _ix.default_index(len(out))
        return out

    def _sort_one_key(self, key, ascending, na_position, kind=None):
        """sort_values by one column: the engine sorts that column and gives
        its values with the permutation in one pass; only the other columns
        are gathered."""
        if isinstance(ascending, (list, tuple)):
            if len(ascending) != 1:
                raise InvalidValueError(
                    f"sort_values: {len(ascending)} ascending flags for 1 column")
            ascending = ascending[0]
        t = self._table
        names = t.names
        k = names.index(key)
        values, order = _numpy_order.sorted_order(t.column(k), ascending,
                                                  na_position == "first", kind)
        if values is None:   # equal keys in numpy's order, as pandas' kind="quicksort"
            return self._select_rows(_indexing.take_rows(_core.column_from_buffer(order)))
        if t.num_columns == 1:
            return self._select_rows(_indexing.take_rows(order),
                                     _core.table_from_columns([values], names))
        others = [i for i in range(t.num_columns) if i != k]
        rest = _core.take(t.select(others), order)
        cols = [rest.column(j) for j in range(len(others))]
        cols.insert(k, values)
        return self._select_rows(_indexing.take_rows(order),
                                 _core.table_from_columns(cols, names))

    def _n_extreme(self, n, columns, keep, largest):
        """pandas' nlargest / nsmallest of a frame: the first column picks
        its n extreme rows (ties at the edge all kept), the next column
        decides among the rows tied at the edge, and so on; the last column
        takes keep.  Missing values are dropped per column, as pandas
        drops them."""
        what = "nlargest" if largest else "nsmallest"
        if keep not in ("first", "last", "all"):
            raise InvalidValueError(f"{what}: keep must be 'first', 'last' or 'all', not "
                                    f"{keep!r}")
        columns = [columns] if isinstance(columns, str) or is_scalar(columns) else list(columns)
        names = _labels.to_names(self, columns)  # labels (an int 0 too) as table names
        for label, name in zip(columns, names):
            dtype = self._table.column(self._table.names.index(name)).dtype
            if dtype in ("string", "category", "list"):
                shown = "str" if dtype == "string" else dtype
                raise DTypeError(f"Column {label!r} has dtype {shown}, cannot use method "
                                 f"{what!r} with this dtype")
        n = max(int(n), 0)
        t = self._table
        cur = None   # positions of the rows still tied (None: all rows)
        picked = np.empty(0, dtype=np.int64)
        for i, name in enumerate(names):
            last = i == len(names) - 1
            col = t.column(t.names.index(name))
            if cur is not None:
                col = _core.take(col, _core.column_from_buffer(cur))
            vals = _base.series_class()._from_column(col, name)._n_extreme_keep(
                n - len(picked), keep if last else "all", largest)
            pos = np.asarray(vals.index.to_numpy(), dtype=np.int64)
            if cur is not None:
                pos = cur[pos]
            if last or len(vals) <= n - len(picked):
                picked = np.concatenate([pos, picked] if largest else [picked, pos])
                break
            edge = _convert.values_numpy((vals == vals.iloc[-1])._col).astype(bool)
            picked = np.concatenate([pos[~edge], picked] if largest else [picked, pos[~edge]])
            cur = pos[edge]
        out = self._select_rows(_indexing.take_rows(_core.column_from_buffer(picked)))
        if len(names) == 1:
            return out
        return out.sort_values(columns, ascending=not largest, kind="stable")

    def nlargest(self, n, columns, keep="first"):
        """The n rows with the largest values of columns, descending, as
        pandas picks them: ties in row order with keep='first', from the
        last row back with keep='last', every row tied with the n-th kept
        with keep='all'.  A later column decides among rows tied on the
        earlier ones; a row missing a value is dropped where that column
        decides.  The rows keep their labels.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Lusaka"], "fare": [7.0, None, 9.0]})
        >>> df.nlargest(2, "fare").to_dict("list")
        {'city': ['Lusaka', 'Maun'], 'fare': [9.0, 7.0]}
        >>> zb.DataFrame({"x": [3, 1, 3, 2]}).nlargest(1, "x", keep="all").to_dict("list")
        {'x': [3, 3]}
        """
        return self._n_extreme(n, columns, keep, True)

    def nsmallest(self, n, columns, keep="first"):
        """The n rows with the smallest values of columns, ascending (keep
        and ties as in nlargest).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Lusaka"], "fare": [7.0, None, 9.0]})
        >>> df.nsmallest(1, "fare").to_dict("list")
        {'city': ['Maun'], 'fare': [7.0]}
        """
        return self._n_extreme(n, columns, keep, False)


def _keyed(key, s):
    """key(s): the values a sort uses for column s (sort_values(key=...))."""
    out = key(s)
    if not _base.is_series(out) or len(out) != len(s):
        raise InvalidValueError("sort_values: key must return a Series of the same length")
    return out
