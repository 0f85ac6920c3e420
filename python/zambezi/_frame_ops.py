"""Compute methods of zambezi.DataFrame: column assignment, null handling,
casts, filtering, taking rows and sorting (the ``FrameOps`` mixin).

Each method works column by column through the Series operations of
zambezi._compute or with one engine call on the whole table (filter, take,
sort_indices), with the GIL released; nothing here loops over rows.  The
differences from pandas listed in zambezi._compute hold here too.
Operators are in zambezi._frame_arith, reductions in zambezi._frame_reduce.
"""

import datetime

import numpy as np

from zambezi import _convert, _core, _indexing
from zambezi import index as _ix
from zambezi._compute import _missing_mask
from zambezi._dtypes import is_scalar, py_scalar
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError


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

    def __setitem__(self, name, value):
        """df['c'] = Series, list, ndarray or scalar.  A DataFrame wraps an
        immutable engine table: assignment replaces that table with a new
        one sharing every other column (no data copied); other DataFrames
        sharing the old table are not affected."""
        if not isinstance(name, str):
            raise DTypeError(f"column names must be str, not {type(name).__name__}")
        col = _frame_value_column(self, name, value)
        cols, names = self._cols()
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

    def drop(self, columns=None, labels=None, axis=None):
        """A frame without the given columns (no data copied).  Rows cannot
        be dropped by label: there is no index.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1], "b": [2], "c": [3]})
        >>> df.drop(columns=["a", "c"]).columns
        Index(['b'], dtype='string')
        >>> df.drop("b", axis=1).columns
        Index(['a', 'c'], dtype='string')
        """
        if columns is None:
            if labels is None or axis not in (1, "columns"):
                raise UnsupportedError(
                    "drop: only columns can be dropped (zambezi has no index); use "
                    "drop(columns=[...])")
            columns = labels
        if isinstance(columns, str):
            columns = [columns]
        cols, names = self._cols()
        for c in columns:
            if c not in names:
                raise self._missing(c)
        drop = set(columns)
        keep = [i for i, nm in enumerate(names) if nm not in drop]
        return self._with_columns([cols[i] for i in keep], [names[i] for i in keep])

    def _filter(self, mask, what="df[mask]"):
        m = _indexing.mask_column(mask, len(self), what)
        return self._select_rows(_indexing.filter_rows(m))

    def dropna(self, subset=None, how="any"):
        """Rows without missing values (nulls, NaN) in subset (default: all
        columns); how='all' drops a row only when all are missing.
        Renumbered from 0.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, None, None], "b": ["x", "y", None]})
        >>> df.dropna()
               a       b
           int64  string
        0      1       x
        <BLANKLINE>
        [1 rows x 2 columns]
        >>> len(df.dropna(how="all")), len(df.dropna(subset=["b"]))
        (2, 2)
        """
        if how not in ("any", "all"):
            raise InvalidValueError(f"dropna: how must be 'any' or 'all', not {how!r}")
        cols, names = self._cols()
        if subset is not None:
            if isinstance(subset, str):
                subset = [subset]
            for c in subset:
                if c not in names:
                    raise self._missing(c)
            cols = [cols[names.index(c)] for c in subset]
        if not cols:
            return self._like(self._table)
        keep = None
        for col in cols:
            ok = _core.unary("invert", _missing_mask(col))
            if keep is None:
                keep = ok
            else:
                keep = _core.binary("and" if how == "any" else "or", keep, ok)
        return self._select_rows(_indexing.filter_rows(keep))

    def fillna(self, value):
        """Missing values filled with value, or per column with a dict
        {column: value} (other columns unchanged).  A scalar is applied to
        the columns whose dtype can hold it (str to string columns, numbers
        to numeric columns ...), like pandas.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, None], "b": ["x", None]})
        >>> df.fillna(0).to_dict()
        {'a': [1, 0], 'b': ['x', None]}
        >>> df.fillna({"a": -1, "b": "?"}).to_dict()
        {'a': [1, -1], 'b': ['x', '?']}
        """
        cols, names = self._cols()
        if isinstance(value, dict):
            for c in value:
                if c not in names:
                    raise self._missing(c)
            items = value
        else:
            items = {c: value for c in names}
        out = []
        for col, nm in zip(cols, names):
            if nm not in items:
                out.append(col)
                continue
            v = py_scalar(items[nm])
            s = self._sliced(col, nm)
            if not isinstance(value, dict) and not _fill_applies(col.dtype, v):
                out.append(col)
                continue
            out.append(s.fillna(v)._col)
        return self._with_columns(out, names)

    def astype(self, dtype):
        """Columns cast to dtype, or per column with a dict {column: dtype}
        (see Series.astype).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2], "b": ["3", "4"]})
        >>> df.astype({"b": "int64"}).dtypes
        {'a': 'int64', 'b': 'int64'}
        >>> df.astype("string").dtypes
        {'a': 'string', 'b': 'string'}
        """
        cols, names = self._cols()
        if isinstance(dtype, dict):
            for c in dtype:
                if c not in names:
                    raise self._missing(c)
            spec = dtype
        else:
            spec = {c: dtype for c in names}
        out = [self._sliced(col, nm).astype(spec[nm])._col if nm in spec else col
               for col, nm in zip(cols, names)]
        return self._with_columns(out, names)

    def take(self, indices):
        """The rows at positions indices (negatives count from the end);
        renumbered from 0.

        Examples
        --------
        >>> zb.DataFrame({"a": [10, 20, 30]}).take([2, -3]).to_dict()
        {'a': [30, 10]}
        """
        idx = _indexing.positions_column(indices, len(self), "DataFrame.take")
        return self._select_rows(_indexing.take_rows(idx))

    @property
    def iloc(self):
        """Rows by position: df.iloc[3] (a dict), df.iloc[1:10:2],
        df.iloc[[0, 5, -1]], df.iloc[bool mask].  Renumbered from 0.
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

    def sort_values(self, by, ascending=True, na_position="last", kind=None,
                    ignore_index=False):
        """Rows sorted by the columns by (the first most significant);
        ascending is one flag or one per column.  Always stable (kind is
        ignored); NaN and nulls at na_position.  Rows keep their labels
        (numbered from 0 with ignore_index=True).  Strings
        sort by their UTF-8 bytes, categoricals in category order (as
        pandas).

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
        idx = self._sort_indices(by, ascending, na_position)
        out = self._select_rows(_indexing.take_rows(idx))
        if ignore_index:
            out._index = _ix.default_index(len(out))
        return out

    def _n_extreme(self, n, columns, largest):
        n = max(int(n), 0)
        if isinstance(columns, str):
            columns = [columns]
        if n >= len(self):
            return self.sort_values(columns, ascending=not largest).head(n)
        df = self.dropna(subset=columns)
        idx = df._sort_indices(columns, not largest).slice(0, min(n, len(df)))
        return df._select_rows(_indexing.take_rows(idx))

    def nlargest(self, n, columns, keep="first"):
        """The n rows with the largest values of columns, descending (ties in
        row order, keep='first'); rows missing a key are dropped.
        Renumbered from 0.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Lusaka"], "fare": [7.0, None, 9.0]})
        >>> df.nlargest(2, "fare").to_dict()
        {'city': ['Lusaka', 'Maun'], 'fare': [9.0, 7.0]}
        """
        if keep != "first":
            raise UnsupportedError(f"nlargest: keep={keep!r} is not supported (only 'first')")
        return self._n_extreme(n, columns, True)

    def nsmallest(self, n, columns, keep="first"):
        """The n rows with the smallest values of columns, ascending.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Lusaka"], "fare": [7.0, None, 9.0]})
        >>> df.nsmallest(1, "fare").to_dict()
        {'city': ['Maun'], 'fare': [7.0]}
        """
        if keep != "first":
            raise UnsupportedError(f"nsmallest: keep={keep!r} is not supported (only 'first')")
        return self._n_extreme(n, columns, False)


def _fill_applies(dtype, value):
    """Whether a frame-wide fillna scalar is meant for a column of dtype."""
    if value is None:
        return False
    if isinstance(value, str):
        return dtype in ("string", "category")
    if isinstance(value, bool):
        return dtype == "bool"
    if isinstance(value, int):
        return dtype not in ("string", "category", "date32", "bool") and not \
            dtype.startswith("timestamp")
    if isinstance(value, float):
        return dtype in ("float32", "float64") or (
            dtype.startswith(("int", "uint")) and float(value).is_integer())
    if isinstance(value, datetime.datetime):
        return dtype.startswith("timestamp")
    if isinstance(value, datetime.date):
        return dtype == "date32"
    return False


