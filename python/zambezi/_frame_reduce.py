"""DataFrame reductions, as pandas 3 has them (the ``FrameReduce`` mixin):
``sum``, ``prod``, ``mean``, ``min``, ``max``, ``count``, ``nunique``,
``std``, ``var``, ``median``, ``quantile``, ``any``, ``all``, ``idxmax``,
``idxmin``.

- ``axis=0`` (the default): one value per column, a Series indexed by the
  column names, each value computed by the engine's reduction of that
  column (zambezi._stats.reduce_column).  The Series' dtype is the one
  pandas gives: integer sums int64, a mix of integer and float columns
  float64, means float64, counts int64, ``any``/``all`` bool ...
- ``axis=1``: one value per row, a Series with the frame's row labels,
  built with the engine's elementwise operations across the columns (a
  sum adds the columns with the missing values filled by 0, a count adds
  their not-missing flags, a minimum keeps the smaller of two columns at a
  time ...); ``median``, ``quantile`` and ``nunique`` run numpy's
  vectorized functions on the rows.  Nothing loops over rows.
- ``numeric_only`` (default False, as pandas 3): with False, a column a
  reduction cannot take raises DTypeError naming it (pandas raises
  TypeError); with True only the number and bool columns are used.
- ``skipna``: missing values (nulls, NaN) are skipped, or make the result
  missing with skipna=False.

Differences from pandas: where pandas would give an object Series (a mix
of numbers and strings, from ``sum`` or ``min`` of a frame with both)
zambezi raises DTypeError naming the columns -- pass numeric_only=True or
select the columns; ``min``/``max`` of bool and integer columns together
give int64 (pandas: object).  Rows with no value give NaN (pandas' masked
dtypes: NA; see zambezi._stats).
"""

import numpy as np

from zambezi import _align, _base, _convert, _core, _indexing, _labels, _stats
from zambezi import index as _ix
from zambezi._compute import _missing_mask, _nan_to_null
from zambezi._dtypes import FLOATS as _FLOATS
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

_NUMBER_RESULT = {"sum", "prod"}
_FLOAT_RESULT = {"mean", "std", "var", "median"}


def _axis(axis, what):
    if axis in (0, "index", "rows", None):
        return 0
    if axis in (1, "columns"):
        return 1
    raise InvalidValueError(f"{what}: axis must be 0, 1, 'index' or 'columns', not {axis!r}")


def _common_dtype(dtypes, how, names):
    """The dtype of a Series holding the per-column results (dtypes: one
    per result)."""
    ds = set(dtypes)
    if not ds:
        return "float64"
    if len(ds) == 1:
        return ds.pop()
    # bools beside numbers (max of an int and a bool column): pandas keeps
    # True beside 5 in an object Series
    numbers = all(d in _stats._NUMERIC for d in ds)
    if numbers and "bool" not in ds:
        if any(d in _FLOATS for d in ds):
            return "float64"
        if all(d.startswith("uint") for d in ds if d != "bool"):
            return "uint64"
        return "int64"
    kinds = ", ".join(f"{n!r} ({d})" for n, d in zip(names, dtypes))
    hint = "select the columns" if numbers else "pass numeric_only=True or select the columns"
    raise DTypeError(
        f"{how}: the results of the columns have no common dtype ({kinds}); pandas makes an "
        f"object Series, which zambezi has no dtype for: {hint}")


def _result_dtype(col, how):
    d = col.dtype
    if d.startswith(("timestamp", "duration")) and how in ("mean", "median", "std"):
        # pandas: the mean / median of times is a time, their std a duration
        return f"duration[{col.unit}]" if how == "std" else d
    if how in _FLOAT_RESULT:
        return "float32" if d == "float32" else "float64"   # pandas keeps float32
    if how == "quantile":
        return "float64"
    if how in _NUMBER_RESULT:
        if d.startswith("duration") and how == "sum":
            return d   # pandas: the sum of durations is a duration
        if d == "string":
            return "string"
        if d in _FLOATS:
            return d
        return "uint64" if d.startswith("uint") else "int64"
    if how in ("count", "nunique"):
        return "int64"
    if how in ("any", "all"):
        return "bool"
    return d  # min, max


def _filled(col, value):
    """col with its missing values (nulls, NaN) replaced by value."""
    return _core.fill_null(_nan_to_null(col), value)


class FrameReduce:
    """Reductions of zambezi.DataFrame (a mixin)."""

    __slots__ = ()

    def _reduce_columns(self, how, numeric_only):
        cols, names = self._cols()
        if numeric_only:
            keep = [i for i, c in enumerate(cols) if _stats._is_numeric(c)]
            cols, names = [cols[i] for i in keep], [names[i] for i in keep]
        return cols, names

    def _reduce(self, how, axis=0, skipna=True, numeric_only=False, **kw):
        if how not in ("nunique", "idxmin", "idxmax"):   # those take None, as pandas'
            _base.check_bool(skipna, "skipna", none_allowed=False)
        cols, names = self._reduce_columns(how, numeric_only)
        if _axis(axis, how) == 1:
            return self._reduce_rows(how, cols, names, skipna, **kw)
        values, dtypes = [], []
        for col, nm in zip(cols, names):
            what = f"column {nm!r}"
            if how == "nunique":
                values.append(_core.nunique(col, bool(kw.get("dropna", True))))
            elif how in ("idxmin", "idxmax"):
                values.append(_stats.extreme_position(col, how, skipna, what))
            else:
                values.append(_stats.reduce_column(col, how, skipna, kw.get("ddof", 1),
                                                   kw.get("min_count", 0), what))
            dtypes.append(_result_dtype(col, how))
        index = _labels.index_for(self, names)
        if how in ("idxmin", "idxmax"):
            pos = _core.column_from_buffer(np.asarray(values, dtype=np.int64))
            if self._index.nlevels != 1:
                raise UnsupportedError(f"{how}: the labels of a MultiIndex are tuples; use "
                                       f"arg{how[3:]} per column")
            col = self._index._take(_indexing.take_rows(pos))._levels()[0]
            return self._constructor_sliced._from_column(col, None, index)
        dtype = _common_dtype(dtypes, how, names)
        col = _convert.to_column(values, dtype=dtype)
        return self._constructor_sliced._from_column(col, None, index)

    # -- row-wise ---------------------------------------------------------
    def _reduce_rows(self, how, cols, names, skipna, ddof=1, min_count=0, dropna=True):
        n = len(self)
        if how == "count":
            out = self._count_rows(cols)
            return self._sliced(out, None)
        for col, nm in zip(cols, names):
            if how == "nunique":
                continue
            _stats.check_reducible(col, how, f"column {nm!r}")
            if not _stats._is_numeric(col) and how not in ("min", "max"):
                raise UnsupportedError(
                    f"{how}(axis=1): column {nm!r} has dtype {col.dtype}; row-wise "
                    "reductions take number and bool columns")
        if how in ("median", "nunique", "idxmin", "idxmax") or how == "quantile":
            return self._numpy_rows(how, cols, names, skipna, dropna)
        if how in ("min", "max"):
            return self._sliced(self._extreme_rows(cols, names, how, skipna), None)
        if how in ("any", "all"):
            acc = None
            for col in cols:
                truth = _core.binary_scalar("ne", col, 0, False) if col.dtype != "bool" \
                    else col
                truth = _core.fill_null(truth, how == "all")
                acc = truth if acc is None else _core.binary(
                    "or" if how == "any" else "and", acc, truth)
            if acc is None:
                acc = _align.broadcast(_core.column_from_sequence([how == "all"]), n)
            return self._sliced(acc, None)
        # sum, prod, mean, var, std: numbers in one dtype
        if not cols and how in ("mean", "var", "std"):
            return self._sliced(_align.all_null(n), None)
        target = self._row_dtype(cols, how) if n else "float64"  # pandas: float64 for no rows
        cols = [c if c.dtype == target else _core.cast(c, target) for c in cols]
        count = self._count_rows(cols)
        if how in ("sum", "prod"):
            acc = self._fold(cols, "add" if how == "sum" else "mul", 0 if how == "sum" else 1,
                             target)
            if min_count:
                acc = _core.column_where(acc, _core.binary_scalar("ge", count, min_count,
                                                                  False), None)
        else:
            total = self._fold(cols, "add", 0, "float64")
            mean = _core.binary("truediv", total, count)
            if how == "mean":
                acc = mean
                enough = _core.binary_scalar("gt", count, 0, False)
            else:
                sq = None
                for c in cols:
                    d = _core.binary("sub", _core.cast(c, "float64") if c.dtype != "float64"
                                     else c, mean)
                    d = _filled(_core.binary("mul", d, d), 0.0)
                    sq = d if sq is None else _core.binary("add", sq, d)
                dof = _core.binary_scalar("sub", count, int(ddof), False)
                acc = _core.binary("truediv", sq, _core.cast(dof, "float64"))
                if how == "std":
                    acc = _core.binary_scalar("pow", acc, 0.5, False)
                enough = _core.binary_scalar("gt", dof, 0, False)
            acc = _core.column_where(acc, enough, None)
        if not skipna:
            acc = _core.column_where(acc, self._no_missing_rows(cols), None)
        return self._sliced(acc, None)

    def _row_dtype(self, cols, how):
        if how in ("mean", "var", "std"):
            return "float64"
        ds = {c.dtype for c in cols}
        if not ds:
            return "float64"
        if any(d in _FLOATS for d in ds):
            return "float64"
        if all(d.startswith("uint") for d in ds):
            return "uint64"
        return "int64"

    def _fold(self, cols, op, identity, dtype):
        acc = None
        for c in cols:
            c = _filled(c if c.dtype == dtype else _core.cast(c, dtype), identity)
            acc = c if acc is None else _core.binary(op, acc, c)
        if acc is None:
            value = float(identity) if dtype in _FLOATS else int(identity)
            acc = _core.cast(_align.broadcast(_core.column_from_sequence([value]), len(self)),
                             dtype)
        return acc

    def _count_rows(self, cols):
        acc = None
        for c in cols:
            ok = _core.cast(_core.unary("invert", _missing_mask(c)), "int64")
            acc = ok if acc is None else _core.binary("add", acc, ok)
        if acc is None:
            acc = _core.cast(_align.broadcast(_core.column_from_sequence([0]), len(self)),
                             "int64")
        return acc

    def _no_missing_rows(self, cols):
        acc = None
        for c in cols:
            ok = _core.unary("invert", _missing_mask(c))
            acc = ok if acc is None else _core.binary("and", acc, ok)
        return acc if acc is not None else _align.broadcast(
            _core.column_from_sequence([True]), len(self))

    def _extreme_rows(self, cols, names, how, skipna):
        if not cols:
            return _align.all_null(len(self))
        ds = [c.dtype for c in cols]
        target = _common_dtype(ds, how, names)
        cols = [_nan_to_null(c if c.dtype == target else _core.cast(c, target)) for c in cols]
        better_op = "gt" if how == "max" else "lt"
        acc = cols[0]
        for c in cols[1:]:
            better = _core.fill_null(_core.binary(better_op, c, acc), False)
            take = _core.binary("or", better,
                                _core.binary("and", _core.isnull(acc), _core.notnull(c)))
            acc = _core.column_where(c, take, acc)
        if not skipna:
            acc = _core.column_where(acc, self._no_missing_rows(cols), None)
        return acc

    def _numpy_rows(self, how, cols, names, skipna, dropna, q=0.5):
        n = len(self)
        if how in ("idxmin", "idxmax", "median", "quantile"):
            mat = np.empty((n, len(cols)), dtype=np.float64)
            for j, c in enumerate(cols):
                mat[:, j] = _convert.to_numpy(c).astype(np.float64) if c.length else []
            miss = np.isnan(mat)
            if how in ("idxmin", "idxmax"):
                if not len(cols) or miss.all(axis=1).any() or (not skipna and miss.any()):
                    raise InvalidValueError(f"{how}(axis=1): a row has no value "
                                            "(encountered all NA values)")
                fill = np.inf if how == "idxmin" else -np.inf
                pick = np.where(miss, fill, mat)
                pos = pick.argmin(axis=1) if how == "idxmin" else pick.argmax(axis=1)
                # the columns' labels (an int label stays an int), as pandas
                lab = _labels.index_for(self, names)
                if lab.nlevels == 1:
                    return self._sliced(_core.take(lab._levels()[0],
                                                   _core.column_from_buffer(pos.astype(np.int64))),
                                        None)
                labels = np.asarray(names, dtype=object)[pos]
                return self._sliced(_convert.to_column(list(labels), dtype="string"), None)
            with np.errstate(all="ignore"):
                import warnings

                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    if not skipna:
                        res = np.quantile(mat, q, axis=1) if len(cols) else np.full(n, np.nan)
                    else:
                        res = np.nanquantile(mat, q, axis=1) if len(cols) else \
                            np.full(n, np.nan)
            return self._sliced(_convert.to_column(np.asarray(res, dtype=np.float64)), None)
        # nunique: sort each row, count changes
        if not cols:
            return self._sliced(_count_zero(n), None)
        mat = np.empty((n, len(cols)), dtype=np.float64)
        for j, c in enumerate(cols):
            if not _stats._is_numeric(c):
                raise UnsupportedError(f"nunique(axis=1): column {names[j]!r} has dtype "
                                       f"{c.dtype}; row-wise nunique takes numbers")
            mat[:, j] = _convert.to_numpy(c).astype(np.float64)
        srt = np.sort(mat, axis=1)  # NaN last
        valid = ~np.isnan(srt)
        new = np.ones_like(valid)
        new[:, 1:] = srt[:, 1:] != srt[:, :-1]
        cnt = (new & valid).sum(axis=1)
        if not dropna:
            cnt = cnt + (~valid).any(axis=1)
        return self._sliced(_convert.to_column(cnt.astype(np.int64)), None)

    # -- the methods ------------------------------------------------------
    def sum(self, axis=0, skipna=True, numeric_only=False, min_count=0):
        """The sum of each column (axis=0: a Series indexed by the column
        names) or of each row (axis=1: a Series with the frame's labels).
        Missing values are skipped (skipna=False: a missing value makes
        the sum missing); min_count: fewer values give NaN.  A string
        column concatenates, as in pandas.  See zambezi._frame_reduce.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, None], "b": [0.5, 1.5, 2.5]})
        >>> df.sum()
        a      3
        b    4.5
        dtype: float64
        >>> df.sum(axis=1).to_list()
        [1.5, 3.5, 2.5]
        >>> df.sum(skipna=False).to_list()     # 'a' has a missing value
        [None, 4.5]
        """
        return self._reduce("sum", axis, skipna, numeric_only, min_count=min_count)

    def prod(self, axis=0, skipna=True, numeric_only=False, min_count=0):
        """The product of each column (or row, axis=1); see sum.

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2, None], "b": [0.5, 1.5, 2.5]}).prod()
        a        2
        b    1.875
        dtype: float64
        """
        return self._reduce("prod", axis, skipna, numeric_only, min_count=min_count)

    product = prod

    def mean(self, axis=0, skipna=True, numeric_only=False):
        """The mean of each column (or row, axis=1), float64.  A string
        column raises unless numeric_only=True.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, None], "s": ["x", None, "z"]})
        >>> df.mean(numeric_only=True)
        a    1.5
        dtype: float64
        >>> df[["a"]].mean(axis=1).to_list()
        [1.0, 2.0, None]
        """
        return self._reduce("mean", axis, skipna, numeric_only)

    def min(self, axis=0, skipna=True, numeric_only=False):
        """The smallest value of each column (or row, axis=1): numbers,
        strings (byte-wise), dates and timestamps.  Columns whose results
        share no dtype (numbers and strings) raise DTypeError: pass
        numeric_only=True or select the columns.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, None], "b": [3.5, 0.5, 1.0]})
        >>> df.min()
        a      1
        b    0.5
        dtype: float64
        >>> df.min(axis=1).to_list()
        [1.0, 0.5, 1.0]
        >>> zb.DataFrame({"s": ["x", None, "w"]}).min()
        s    w
        dtype: string
        """
        return self._reduce("min", axis, skipna, numeric_only)

    def max(self, axis=0, skipna=True, numeric_only=False):
        """The largest value of each column (or row, axis=1); see min.

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2, None], "s": ["x", None, "z"]}).max(numeric_only=True)
        a    2
        dtype: int64
        """
        return self._reduce("max", axis, skipna, numeric_only)

    def count(self, axis=0, numeric_only=False):
        """The number of non-missing values (NaN not counted) of each column
        (or row, axis=1), int64.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, None], "s": ["x", None, "z"]})
        >>> df.count()
        a    2
        s    2
        dtype: int64
        >>> df.count(axis=1).to_list()
        [2, 1, 1]
        """
        return self._reduce("count", axis, True, numeric_only)

    def std(self, axis=0, skipna=True, ddof=1, numeric_only=False):
        """The standard deviation of each column (or row, axis=1), ddof as
        Series.std.

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 3, None], "b": [0.5, 1.5, 2.5]}).std().round(3).to_list()
        [1.414, 1.0]
        """
        return self._reduce("std", axis, skipna, numeric_only, ddof=ddof)

    def var(self, axis=0, skipna=True, ddof=1, numeric_only=False):
        """The variance of each column (or row, axis=1), ddof as Series.var.

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 3, None], "b": [0.5, 1.5, 2.5]}).var(ddof=0).to_list()
        [1.0, 0.6666666666666666]
        """
        return self._reduce("var", axis, skipna, numeric_only, ddof=ddof)

    def median(self, axis=0, skipna=True, numeric_only=False):
        """The median of each column (or row, axis=1), float64.

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 3, None], "b": [0.5, 1.5, 2.5]}).median().to_list()
        [2.0, 1.5]
        """
        return self._reduce("median", axis, skipna, numeric_only)

    def quantile(self, q=0.5, axis=0, numeric_only=False, interpolation="linear",
                 method="single"):
        """The q quantile of each column (linear interpolation): a Series
        indexed by the column names and named q for a scalar q, a DataFrame
        indexed by q for a list (axis=1: per row, a Series for a scalar q).
        interpolation "lower", "higher", "nearest" and "midpoint" as
        Series.quantile (values of the column's dtype, strings too, for a
        list of q); method="table" only for one column, where it is the
        same as "single".

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, 3, 4], "b": [0.5, 1.5, 2.5, None]})
        >>> df.quantile(0.5)
        a    2.5
        b    1.5
        Name: 0.5, dtype: float64
        >>> df.quantile([0.25, 0.75])
                    a        b
              float64  float64
        0.25     1.75        1
        0.75     3.25        2
        <BLANKLINE>
        [2 rows x 2 columns]
        >>> zb.DataFrame({"s": ["b", "a", "c"]}).quantile([0.5], interpolation="nearest").to_dict("list")
        {'s': ['b']}
        """
        if method not in ("single", "table"):
            raise InvalidValueError(f"quantile: method must be 'single' or 'table', not {method!r}")
        scalar = isinstance(q, (int, float)) and not isinstance(q, bool)
        if interpolation != "linear" and not scalar and _axis(axis, "quantile") == 0:
            sel = self._select_columns(self._reduce_columns("quantile", numeric_only)[1]) \
                if numeric_only else self
            names = list(sel._table.names)
            if method == "table" and len(names) > 1:
                raise UnsupportedError("quantile(method='table') of several columns is not "
                                       "supported")
            parts = [sel._sliced(sel._table.column(i), nm)._quantile_pick(q, interpolation)
                     for i, nm in enumerate(names)]
            index = parts[0]._index if parts else None
            out = self._constructor._wrap(
                _core.table_from_columns([p._col for p in parts], names), index)
            return _labels.attach(out, _labels.index_for(self, names))
        if method == "table":
            raise UnsupportedError("quantile(method='table') needs a list of q and an "
                                   "interpolation other than 'linear'")
        if interpolation != "linear":
            raise UnsupportedError(f"quantile(interpolation={interpolation!r}) needs axis=0 "
                                   "and a list of q")
        cols, names = self._reduce_columns("quantile", numeric_only)
        for col, nm in zip(cols, names):
            if not _stats.is_time(col) or _axis(axis, "quantile") == 1:
                _stats.check_reducible(col, "quantile", f"column {nm!r}")
        if _axis(axis, "quantile") == 1:
            if not scalar:
                raise UnsupportedError("quantile(axis=1) takes one q, not a list")
            out = self._numpy_rows("quantile", cols, names, True, True, float(q))
            out._name = float(q)
            return out
        qs = [float(q)] if scalar else [float(x) for x in q]
        per_col = [_stats.quantile_column(c, qs, f"column {nm!r}") for c, nm in zip(cols, names)]
        if scalar:
            if len({c.dtype for c in per_col}) > 1:   # times beside numbers or other times
                _common_dtype([c.dtype for c in per_col], "quantile", names)
            values = _core.concat(per_col) if per_col else \
                _convert.to_column([], dtype="float64")
            return self._constructor_sliced._from_column(
                values, float(q), _labels.index_for(self, names))
        index = _ix.Index._from_columns([_convert.to_column(qs, dtype="float64")], [None])
        out = self._constructor._wrap(_core.table_from_columns(per_col, list(names)), index)
        return _labels.attach(out, _labels.index_for(self, names))

    def any(self, axis=0, bool_only=False, skipna=True):
        """Whether any value of each column (or row, axis=1) is true /
        non-zero (missing values skipped).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [0, 0, None], "b": [True, False, None]})
        >>> df.any()
        a    False
        b     True
        dtype: bool
        >>> df.any(axis=1).to_list()
        [True, False, False]
        """
        _base.check_bool(skipna, "skipna", none_allowed=False)
        return self._reduce("any", axis, skipna, bool_only)

    def all(self, axis=0, bool_only=False, skipna=True):
        """Whether every value of each column (or row, axis=1) is true /
        non-zero (missing values skipped).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2, None], "b": [True, False, None]}).all()
        a     True
        b    False
        dtype: bool
        """
        _base.check_bool(skipna, "skipna", none_allowed=False)
        return self._reduce("all", axis, skipna, bool_only)

    def nunique(self, axis=0, dropna=True):
        """The number of distinct values of each column (or row, axis=1;
        number columns), missing values counted with dropna=False.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 1, None], "s": ["x", "y", "x"]})
        >>> df.nunique()
        a    1
        s    2
        dtype: int64
        >>> df.nunique(dropna=False).to_list()
        [2, 2]
        """
        return self._reduce("nunique", axis, True, False, dropna=dropna)

    def idxmin(self, axis=0, skipna=True, numeric_only=False):
        """The row label of each column's first minimum (axis=1: the column
        label of each row's first minimum, an int label as an int).  ValueError as pandas where
        there is no value.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [3, 1, 2], "b": [0.5, 2.5, None]}, index=["x", "y", "z"])
        >>> df.idxmin()
        a    y
        b    x
        dtype: string
        >>> df.idxmin(axis=1).to_list()
        ['b', 'a', 'a']
        """
        return self._reduce("idxmin", axis, skipna, numeric_only)

    def idxmax(self, axis=0, skipna=True, numeric_only=False):
        """The row label of each column's first maximum (see idxmin).

        Examples
        --------
        >>> zb.DataFrame({"a": [3, 1, 2], "b": [0.5, 2.5, None]}).idxmax().to_list()
        [0, 1]
        """
        return self._reduce("idxmax", axis, skipna, numeric_only)


def _count_zero(n):
    return _core.cast(_align.broadcast(_core.column_from_sequence([0]), n), "int64")
