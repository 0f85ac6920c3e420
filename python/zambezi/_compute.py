"""Compute operations on Series and DataFrame, with pandas names.

``SeriesOps`` and ``FrameOps`` are mixins of ``Series`` and ``DataFrame``:
operators, null handling, casts, filtering, taking rows, sorting.  Every
operation is one or a few calls into the C engine (``zambezi._core``), which
runs them with the GIL released; nothing here loops over rows.

Differences from pandas, on purpose:

- zambezi has no index.  Results of filtering, taking, sorting and
  concatenation are renumbered from 0 (pandas keeps the index labels; compare
  with ``result.reset_index(drop=True)``).  Series of different lengths never
  "align": an operation on them raises.
- Missing values are nulls (pandas' nullable dtypes: ``Int64``, ``boolean``,
  ``string``...).  As in pandas, a NaN in a float column counts as missing
  for ``isna``/``notna``/``dropna``/``fillna``/``nlargest`` and is placed with
  the nulls by ``sort_values``; arithmetic and comparisons treat NaN as a
  float value (NaN != x is true), as numpy does.
- Integer ``//`` and ``%`` by zero give null (pandas gives 0); an integer
  raised to a negative integer power gives null (pandas raises).
- ``bool`` arithmetic (``+ - * ...`` between two bool Series) gives int64
  (pandas' ``boolean`` dtype gives ``boolean``); ``-`` of a bool Series
  raises (use ``~``).
- Comparing a non-string column with a str (``int_series == "a"``) raises
  DTypeError (pandas returns all False).
- A boolean mask with nulls drops the null rows (pandas raises).
- zambezi has no duration dtype: the difference of two date Series (or a
  date Series and a ``datetime.date``) is int64 days, and of two timestamp
  Series (or one and a ``datetime.datetime`` / ``pd.Timestamp``) int64 in
  the finer unit (pandas gives timedelta64; ``(a - b).dt.days`` there is
  ``a - b`` here for dates).
"""

import numpy as np

from zambezi import _convert, _core, _dtypes
from zambezi._dtypes import is_scalar as _is_scalar, py_scalar
from zambezi.errors import (
    DTypeError,
    InvalidValueError,
    UnsupportedError,
    ZambeziError,
    ZambeziIndexError,
)

def _engine_error(e, context):
    """The same kind of error with a message naming what was computed."""
    err = type(e)(f"{context}: {e}")
    return err


def _desc(series):
    return f"Series {series.name!r} ({series.dtype})"


def _as_column(value, n, what):
    """An engine column for a Series / array / list operand of length n."""
    col = _convert.to_column(value)
    if col.length != n:
        raise InvalidValueError(
            f"{what}: length mismatch: {col.length} values for {n} rows "
            "(zambezi has no index to align on)")
    return col


def _index_column(indices, n, what="take"):
    """An int64 engine column of row positions in [0, n), negatives counting
    from the end (numpy's rules)."""
    from zambezi.series import Series

    if isinstance(indices, Series):
        indices = indices.to_numpy()
    arr = np.asarray(indices)
    if arr.ndim != 1:
        raise InvalidValueError(f"{what}: expected a 1-D list of positions, got shape {arr.shape}")
    if arr.size == 0:
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise DTypeError(f"{what}: positions must be integers, not {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    neg = arr < 0
    if neg.any():
        arr = np.where(neg, arr + n, arr)
    bad = (arr < 0) | (arr >= n)
    if bad.any():
        pos = int(np.argmax(bad))
        raise ZambeziIndexError(
            f"{what}: position {int(np.asarray(indices)[pos])} (at {pos}) is out of range "
            f"for {n} rows")
    return _core.column_from_buffer(np.ascontiguousarray(arr))


def _mask_column(mask, n, what):
    """A bool engine column for a boolean Series / array / list of length n."""
    if isinstance(mask, (list, tuple)):
        arr = np.asarray(mask)
        if arr.dtype == np.bool_:
            mask = arr
    col = _as_column(mask, n, what)
    if col.dtype != "bool":
        raise DTypeError(f"{what}: a boolean mask is required, got dtype {col.dtype}")
    return col


def _is_mask(key):
    from zambezi.series import Series

    if isinstance(key, Series):
        return key.dtype == "bool"
    if isinstance(key, np.ndarray):
        return key.dtype == np.bool_
    if isinstance(key, list) and key:
        return isinstance(key[0], (bool, np.bool_))
    return _convert._is_pandas(key, "Series") and str(key.dtype) in ("bool", "boolean")


def _rows_key(key, n, what):
    """Normalise a positional row key: ('slice', start, length) for a
    contiguous slice, else ('take', index column) or ('filter', mask)."""
    if isinstance(key, slice):
        start, stop, step = key.indices(n)
        if step == 1:
            return ("slice", start, max(stop - start, 0))
        return ("take", _index_column(np.arange(start, stop, step, dtype=np.int64), n, what))
    if _is_mask(key):
        return ("filter", _mask_column(key, n, what))
    return ("take", _index_column(key, n, what))


def _missing_mask(col):
    """bool column (no nulls): True where col is null, or NaN for floats."""
    isnull = _core.isnull(col)
    if col.dtype not in ("float32", "float64"):
        return isnull
    nan = _core.binary("ne", col, col)      # True at NaN, null at nulls
    return _core.fill_null(nan, True)


def _nan_to_null(col):
    """A float column with its NaNs turned into nulls (other columns as is)."""
    if col.dtype not in ("float32", "float64"):
        return col
    vals = _convert.values_numpy(col)
    nan = np.isnan(vals)
    if not nan.any():
        return col
    idx = np.arange(col.length, dtype=np.int64)
    return _core.take(col, _core.column_from_buffer(idx, mask=nan))


# --------------------------------------------------------------------------
# Series
# --------------------------------------------------------------------------

_BINOPS = {
    "__add__": ("add", "+"), "__sub__": ("sub", "-"), "__mul__": ("mul", "*"),
    "__truediv__": ("truediv", "/"), "__floordiv__": ("floordiv", "//"),
    "__mod__": ("mod", "%"), "__pow__": ("pow", "**"),
    "__and__": ("and", "&"), "__or__": ("or", "|"), "__xor__": ("xor", "^"),
    "__eq__": ("eq", "=="), "__ne__": ("ne", "!="), "__lt__": ("lt", "<"),
    "__le__": ("le", "<="), "__gt__": ("gt", ">"), "__ge__": ("ge", ">="),
}
_REFLECTED = {"__radd__": "__add__", "__rsub__": "__sub__", "__rmul__": "__mul__",
              "__rtruediv__": "__truediv__", "__rfloordiv__": "__floordiv__",
              "__rmod__": "__mod__", "__rpow__": "__pow__", "__rand__": "__and__",
              "__ror__": "__or__", "__rxor__": "__xor__"}


_UFUNCS = {"add": "add", "subtract": "sub", "multiply": "mul", "true_divide": "truediv",
           "divide": "truediv", "floor_divide": "floordiv", "remainder": "mod",
           "power": "pow", "bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor",
           "logical_and": None, "equal": "eq", "not_equal": "ne", "less": "lt",
           "less_equal": "le", "greater": "gt", "greater_equal": "ge", "negative": "neg",
           "absolute": "abs", "invert": "invert"}


def _binop(self, other, op, sym, reflected):
    from zambezi.series import Series

    name = self._name
    try:
        if _is_scalar(other):
            value = py_scalar(other)
            col = _core.binary_scalar(op, self._col, value, reflected)
            what = repr(value)
        else:
            if isinstance(other, Series):
                ocol = other._col
                if other._name != name:
                    name = None
            else:
                ocol = _as_column(other, len(self), f"{_desc(self)} {sym} {type(other).__name__}")
            if ocol.length != self._col.length:
                raise InvalidValueError(
                    f"length mismatch: left has {self._col.length} rows, right has "
                    f"{ocol.length} (zambezi has no index to align on)")
            a, b = (ocol, self._col) if reflected else (self._col, ocol)
            col = _core.binary(op, a, b)
            what = (_desc(other) if isinstance(other, Series)
                    else f"{type(other).__name__} ({ocol.dtype})")
    except ZambeziError as e:
        if isinstance(other, Series) or not _is_scalar(other):
            what = (_desc(other) if isinstance(other, Series) else type(other).__name__)
        else:
            what = repr(other)
        left, right = (what, _desc(self)) if reflected else (_desc(self), what)
        raise _engine_error(e, f"{left} {sym} {right}") from None
    return Series._from_column(col, name)


def _make_binop(dunder, reflected=False):
    op, sym = _BINOPS[dunder]

    def method(self, other):
        return _binop(self, other, op, sym, reflected)

    method.__name__ = dunder
    method.__doc__ = (f"Elementwise {sym} (nulls propagate; see zambezi._compute for the "
                      "rules that differ from pandas).")
    return method


class SeriesOps:
    """Operators and compute methods of zambezi.Series (a mixin)."""

    __slots__ = ()
    __hash__ = None  # __eq__ returns a Series, so a Series is not hashable

    def _unary(self, op, sym):
        from zambezi.series import Series

        try:
            return Series._from_column(_core.unary(op, self._col), self._name)
        except ZambeziError as e:
            raise _engine_error(e, f"{sym}{_desc(self)}") from None

    def __neg__(self):
        return self._unary("neg", "-")

    def __abs__(self):
        return self._unary("abs", "abs ")

    def __invert__(self):
        return self._unary("invert", "~")

    def abs(self):
        """Absolute values (nulls stay null); the same as ``abs(s)``.

        Examples
        --------
        >>> zb.Series([-2, None, 3]).abs()
        0       2
        1    <NA>
        2       3
        dtype: int64
        """
        return self._unary("abs", "abs ")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """numpy ufuncs: the elementwise ones zambezi has run in the engine
        (so np.int64(2) + s and np.add(s, 1) give a Series); others run in
        numpy on to_numpy() and give an ndarray."""
        from zambezi.series import Series

        op = _UFUNCS.get(ufunc.__name__)
        if method == "__call__" and op is not None and not kwargs:
            if len(inputs) == 1 and op in ("neg", "abs", "invert"):
                return inputs[0]._unary(op, "")
            if len(inputs) == 2:
                a, b = inputs
                if isinstance(a, Series):
                    return _binop(a, b, op, ufunc.__name__, False)
                return _binop(b, a, op, ufunc.__name__, True)
        conv = [np.asarray(x) if isinstance(x, Series) else x for x in inputs]
        return getattr(ufunc, method)(*conv, **kwargs)

    def __bool__(self):
        raise InvalidValueError(
            "the truth value of a Series is ambiguous; use .any(), .all() or a comparison "
            "inside df[...]")

    # -- nulls ------------------------------------------------------------
    def isna(self):
        """bool Series: True where the value is missing (null, or NaN in a
        float column, as pandas counts it).

        Examples
        --------
        >>> zb.Series([1.5, None, 3.0]).isna()
        0    False
        1     True
        2    False
        dtype: bool
        """
        from zambezi.series import Series

        return Series._from_column(_missing_mask(self._col), self._name)

    isnull = isna

    def notna(self):
        """bool Series: the negation of isna().

        Examples
        --------
        >>> zb.Series(["a", None]).notna().to_list()
        [True, False]
        """
        from zambezi.series import Series

        return Series._from_column(_core.unary("invert", _missing_mask(self._col)),
                                   self._name)

    notnull = notna

    def fillna(self, value):
        """The Series with missing values (nulls, and NaN in float columns)
        replaced by value, converted to the Series' dtype (an integer
        column refuses a non-integral float, a categorical a value that is
        not a category, as pandas does).

        Examples
        --------
        >>> zb.Series([1, None, 3]).fillna(0)
        0    1
        1    0
        2    3
        dtype: int64
        >>> zb.Series(["a", None]).fillna("?").to_list()
        ['a', '?']
        """
        from zambezi.series import Series

        if not _is_scalar(value):
            raise UnsupportedError(
                f"fillna on {_desc(self)}: only a scalar value is supported, not "
                f"{type(value).__name__}")
        try:
            col = _core.fill_null(_nan_to_null(self._col), py_scalar(value))
        except ZambeziError as e:
            raise _engine_error(e, f"fillna({value!r}) on {_desc(self)}") from None
        return Series._from_column(col, self._name)

    def dropna(self):
        """The Series without its missing values (nulls, NaN); renumbered from 0.

        Examples
        --------
        >>> zb.Series([1, None, 3]).dropna()
        0    1
        1    3
        dtype: int64
        """
        from zambezi.series import Series

        mask = _core.unary("invert", _missing_mask(self._col))
        return Series._from_column(_core.filter(self._col, mask), self._name)

    # -- casts ------------------------------------------------------------
    def astype(self, dtype):
        """The Series converted to dtype (a name such as 'int64', 'float32',
        'str', 'string', 'category', 'bool', 'date32', 'timestamp[ms]', a
        numpy or pandas dtype, or int / float / str / bool).  Nulls stay
        null (pandas' astype(str) writes 'nan' / '<NA>' for them).  A value
        that does not fit raises OverflowError naming the row.

        Examples
        --------
        >>> zb.Series(["1", "22", None]).astype("int64")
        0       1
        1      22
        2    <NA>
        dtype: int64
        >>> zb.Series([1.7, None]).astype(str).to_list()
        ['1.7', None]
        >>> zb.Series([300], name="n").astype("int8")
        Traceback (most recent call last):
            ...
        zambezi.errors.ZambeziOverflowError: astype('int8') of Series 'n' (int64): cannot cast
        int64 to int8: row 0 holds 300, out of range
        """
        from zambezi.series import Series

        try:
            name = _dtypes.canonical(dtype)
            if name == self._col.dtype:
                return Series._from_column(self._col, self._name)
            col = self._col
            if col.dtype in ("float32", "float64") and (
                    name == "bool" or name.startswith(("int", "uint"))):
                col = _nan_to_null(col)  # NaN -> null, as pandas' Int64 / boolean
            col = _core.cast(col, name)
        except ZambeziError as e:
            raise _engine_error(e, f"astype({dtype!r}) of {_desc(self)}") from None
        return Series._from_column(col, self._name)

    # -- selection --------------------------------------------------------
    def _filter(self, mask, what="Series[mask]"):
        from zambezi.series import Series

        m = _mask_column(mask, len(self), what)
        return Series._from_column(_core.filter(self._col, m), self._name)

    def take(self, indices):
        """The rows at positions indices (negative positions count from the
        end); renumbered from 0.

        Examples
        --------
        >>> zb.Series([10, 20, 30]).take([2, 0, -1])
        0    30
        1    10
        2    30
        dtype: int64
        """
        from zambezi.series import Series

        idx = _index_column(indices, len(self), f"take on {_desc(self)}")
        return Series._from_column(_core.take(self._col, idx), self._name)

    @property
    def iloc(self):
        """Rows by position: s.iloc[3], s.iloc[1:10:2], s.iloc[[0, 5, -1]],
        s.iloc[bool mask].  Results are renumbered from 0.

        Examples
        --------
        >>> s = zb.Series([10, 20, 30, 40])
        >>> s.iloc[1]
        20
        >>> s.iloc[::2].to_list(), s.iloc[[0, -1]].to_list()
        ([10, 30], [10, 40])
        >>> s.iloc[s > 15].to_list()
        [20, 30, 40]
        """
        return _SeriesILoc(self)

    # -- sorting ----------------------------------------------------------
    def sort_values(self, ascending=True, na_position="last", kind=None, ignore_index=True):
        """The values sorted (stable: equal values keep their order; NaN and
        nulls at na_position); renumbered from 0.  kind is ignored.  Strings
        sort by their UTF-8 bytes, categoricals in category order (as
        pandas).

        Examples
        --------
        >>> zb.Series([3, None, 1, 2]).sort_values()
        0       1
        1       2
        2       3
        3    <NA>
        dtype: int64
        >>> zb.Series([3, None, 1]).sort_values(ascending=False, na_position="first").to_list()
        [None, 3, 1]
        """
        from zambezi.series import Series

        if na_position not in ("first", "last"):
            raise InvalidValueError(
                f"na_position must be 'first' or 'last', not {na_position!r}")
        return Series._from_column(
            _core.sort_values(self._col, bool(ascending), na_position == "first"), self._name)

    def _sort_indices(self, ascending=True, na_position="last"):
        if na_position not in ("first", "last"):
            raise InvalidValueError(
                f"na_position must be 'first' or 'last', not {na_position!r}")
        return _core.sort_indices(self._col, bool(ascending), na_position == "first")

    def argsort(self, ascending=True, na_position="last", kind=None):
        """int64 Series: the positions that sort the values (stable; missing
        values last).  pandas' argsort gives -1 for missing values; here
        every position appears.

        Examples
        --------
        >>> zb.Series([3, None, 1, 2]).argsort().to_list()
        [2, 3, 0, 1]
        """
        from zambezi.series import Series

        return Series._from_column(self._sort_indices(ascending, na_position), self._name)

    def _n_extreme(self, n, largest):
        from zambezi.series import Series

        length = len(self)
        n = max(int(n), 0)
        if n >= length:  # pandas: a plain sort, missing values included
            return self.sort_values(ascending=not largest).head(n)
        col = self._col
        mask = _core.unary("invert", _missing_mask(col))
        if col.null_count > 0 or col.dtype in ("float32", "float64"):
            col = _core.filter(col, mask)
        idx = _core.sort_indices(col, not largest, False).slice(0, min(n, col.length))
        return Series._from_column(_core.take(col, idx), self._name)

    def nlargest(self, n=5, keep="first"):
        """The n largest values, descending; among equal values the first
        rows first (pandas' keep='first'); missing values dropped.

        Examples
        --------
        >>> zb.Series([3, None, 1, 3, 2]).nlargest(2).to_list()
        [3, 3]
        """
        if keep != "first":
            raise UnsupportedError(f"nlargest: keep={keep!r} is not supported (only 'first')")
        return self._n_extreme(n, True)

    def nsmallest(self, n=5, keep="first"):
        """The n smallest values, ascending (keep='first' semantics).

        Examples
        --------
        >>> zb.Series([3, None, 1, 3, 2]).nsmallest(2).to_list()
        [1, 2]
        """
        if keep != "first":
            raise UnsupportedError(f"nsmallest: keep={keep!r} is not supported (only 'first')")
        return self._n_extreme(n, False)


for _d in _BINOPS:
    setattr(SeriesOps, _d, _make_binop(_d))
for _r, _d in _REFLECTED.items():
    setattr(SeriesOps, _r, _make_binop(_d, reflected=True))
del _d, _r


class _SeriesILoc:
    __slots__ = ("_s",)

    def __init__(self, s):
        self._s = s

    def __getitem__(self, key):
        from zambezi.series import Series

        s = self._s
        n = len(s)
        if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
            i = int(key)
            i = i + n if i < 0 else i
            if not 0 <= i < n:
                raise ZambeziIndexError(f"iloc: row {int(key)} is out of range for {n} rows")
            return s._col.slice(i, 1).to_pylist()[0]
        kind = _rows_key(key, n, f"iloc on {_desc(s)}")
        if kind[0] == "slice":
            return Series._from_column(s._col.slice(kind[1], kind[2]), s._name)
        if kind[0] == "filter":
            return Series._from_column(_core.filter(s._col, kind[1]), s._name)
        return Series._from_column(_core.take(s._col, kind[1]), s._name)


# --------------------------------------------------------------------------
# DataFrame
# --------------------------------------------------------------------------

def _frame_value_column(df, name, value):
    """An engine column for df[name] = value (Series, array, list, scalar)."""
    n = len(df)
    if _is_scalar(value):
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
        from zambezi.frame import DataFrame

        return DataFrame._wrap(_core.table_from_columns(cols, names))

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
        from zambezi.frame import DataFrame

        df = DataFrame._wrap(self._table)
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
        ['b']
        >>> df.drop("b", axis=1).columns
        ['a', 'c']
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
        from zambezi.frame import DataFrame

        m = _mask_column(mask, len(self), what)
        return DataFrame._wrap(_core.filter(self._table, m))

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
        from zambezi.frame import DataFrame

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
            return DataFrame._wrap(self._table)
        keep = None
        for col in cols:
            ok = _core.unary("invert", _missing_mask(col))
            if keep is None:
                keep = ok
            else:
                keep = _core.binary("and" if how == "any" else "or", keep, ok)
        return DataFrame._wrap(_core.filter(self._table, keep))

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
        from zambezi.series import Series

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
            s = Series._from_column(col, nm)
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
        from zambezi.series import Series

        cols, names = self._cols()
        if isinstance(dtype, dict):
            for c in dtype:
                if c not in names:
                    raise self._missing(c)
            spec = dtype
        else:
            spec = {c: dtype for c in names}
        out = [Series._from_column(col, nm).astype(spec[nm])._col if nm in spec else col
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
        from zambezi.frame import DataFrame

        idx = _index_column(indices, len(self), "DataFrame.take")
        return DataFrame._wrap(_core.take(self._table, idx))

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
        0     30       z
        1     10       x
        <BLANKLINE>
        [2 rows x 2 columns]
        """
        return _FrameILoc(self)

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
                    ignore_index=True):
        """Rows sorted by the columns by (the first most significant);
        ascending is one flag or one per column.  Always stable (kind is
        ignored); NaN and nulls at na_position.  Renumbered from 0.  Strings
        sort by their UTF-8 bytes, categoricals in category order (as
        pandas).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0]})
        >>> df.sort_values(["city", "fare"], ascending=[True, False])
             city     fare
           string  float64
        0    Maun        9
        1    Maun        7
        2    Tete      3.5
        3    <NA>        1
        <BLANKLINE>
        [4 rows x 2 columns]
        """
        from zambezi.frame import DataFrame

        idx = self._sort_indices(by, ascending, na_position)
        return DataFrame._wrap(_core.take(self._table, idx))

    def _n_extreme(self, n, columns, largest):
        from zambezi.frame import DataFrame

        n = max(int(n), 0)
        if isinstance(columns, str):
            columns = [columns]
        if n >= len(self):
            return self.sort_values(columns, ascending=not largest).head(n)
        df = self.dropna(subset=columns)
        idx = df._sort_indices(columns, not largest).slice(0, min(n, len(df)))
        return DataFrame._wrap(_core.take(df._table, idx))

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
    import datetime

    if isinstance(value, datetime.datetime):
        return dtype.startswith("timestamp")
    if isinstance(value, datetime.date):
        return dtype == "date32"
    return False


class _FrameILoc:
    __slots__ = ("_df",)

    def __init__(self, df):
        self._df = df

    def __getitem__(self, key):
        from zambezi.frame import DataFrame

        df = self._df
        n = len(df)
        if isinstance(key, tuple):
            raise UnsupportedError("iloc[rows, columns] is not supported; select columns "
                                   "with df[[...]] first")
        if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
            i = int(key)
            i = i + n if i < 0 else i
            if not 0 <= i < n:
                raise ZambeziIndexError(f"iloc: row {int(key)} is out of range for {n} rows")
            row = df._table.slice(i, 1)
            return {nm: row.column(j).to_pylist()[0] for j, nm in enumerate(row.names)}
        kind = _rows_key(key, n, "DataFrame.iloc")
        if kind[0] == "slice":
            return DataFrame._wrap(df._table.slice(kind[1], kind[2]))
        if kind[0] == "filter":
            return DataFrame._wrap(_core.filter(df._table, kind[1]))
        return DataFrame._wrap(_core.take(df._table, kind[1]))


# --------------------------------------------------------------------------
# concat
# --------------------------------------------------------------------------

def concat(objs, ignore_index=True):
    """Rows of several DataFrames (same column names in the same order, types
    that concatenate: equal, or categoricals whose categories are unified)
    or of several Series, one after another.  Renumbered from 0 (pandas
    keeps each input's index unless ignore_index=True).

    Examples
    --------
    >>> a = zb.DataFrame({"k": [1, 2], "v": ["x", "y"]})
    >>> b = zb.DataFrame({"k": [3], "v": [None]})
    >>> zb.concat([a, b])
           k       v
       int64  string
    0      1       x
    1      2       y
    2      3    <NA>
    <BLANKLINE>
    [3 rows x 2 columns]
    >>> zb.concat([zb.Series([1, 2]), zb.Series([3])]).to_list()
    [1, 2, 3]
    """
    from zambezi.frame import DataFrame
    from zambezi.series import Series

    objs = list(objs)
    if not objs:
        raise InvalidValueError("concat: no objects to concatenate")
    if all(isinstance(o, Series) for o in objs):
        name = objs[0].name if all(o.name == objs[0].name for o in objs) else None
        try:
            col = _core.concat([o._col for o in objs])
        except ZambeziError as e:
            raise _engine_error(
                e, "concat of Series with dtypes " + ", ".join(o.dtype for o in objs)) from None
        return Series._from_column(col, name)
    if not all(isinstance(o, DataFrame) for o in objs):
        kinds = sorted({type(o).__name__ for o in objs})
        raise DTypeError(f"concat takes only DataFrames or only Series, got {kinds}")
    names = objs[0].columns
    for k, o in enumerate(objs[1:], 1):
        if o.columns != names:
            raise InvalidValueError(
                f"concat: frame {k} has columns {o.columns!r}, frame 0 has {names!r}; "
                "all frames must have the same columns in the same order")
    cols = []
    for j, nm in enumerate(names):
        parts = [o._table.column(j) for o in objs]
        try:
            cols.append(_core.concat(parts))
        except ZambeziError as e:
            raise _engine_error(
                e, f"concat of column {nm!r} (dtypes " + ", ".join(p.dtype for p in parts)
                + ")") from None
    if not names:
        return DataFrame()
    return DataFrame._wrap(_core.table_from_columns(cols, names))
