"""Statistics and hash-based methods of zambezi.Series and DataFrame (mixins).

Everything runs in C (``_core.stat``, ``quantile``, ``unique``,
``value_counts``, ``duplicated``, ``isin`` ... in src/python/stats.c) with the
GIL released; nothing here loops over rows.

Semantics follow pandas (nulls and NaN skipped) with these differences, all
because zambezi has no index and keeps nulls as nulls:

- A statistic with no value to report (``var`` of one row, ``median`` of an
  all-null column, ``idxmin`` of an all-null column) is ``None``, as pandas'
  nullable dtypes give ``pd.NA``; pandas gives NaN for numpy dtypes and
  raises for ``idxmin``/``idxmax`` of all-NA data.
- ``idxmin``/``idxmax`` return the row position (there are no labels).
- ``unique()`` returns a Series (pandas returns an ndarray or an
  ExtensionArray); a Series can hold every dtype, with nulls.  Null and NaN
  each appear once when present, in order of first appearance.
- ``value_counts()`` of a categorical lists only the categories that occur
  (pandas adds the unused ones with count 0), as ``DataFrame.value_counts``
  does for categorical columns.
- ``quantile(q)`` with a list of q gives a float64 Series of the quantiles in
  the order given (pandas indexes it by q).
- DataFrame reductions (``df.sum()`` ...) return a dict column -> value.
  ``sum``, ``prod``, ``mean``, ``std``, ``var`` and ``median`` use the
  numeric and bool columns; ``min`` and ``max`` also strings (byte-wise),
  dates and timestamps; ``count`` and ``nunique`` every column.
"""

import numpy as np

from zambezi import _indexing, _base, _convert, _core
from zambezi import index as _ix
from zambezi.errors import DTypeError, InvalidValueError

_NUMERIC = frozenset(["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                      "uint32", "uint64", "float32", "float64"])
_ORDERED = ("string", "date32", "timestamp")


def _is_numeric(col):
    return col.dtype in _NUMERIC


def _orderable(col):
    return _is_numeric(col) or col.dtype.startswith(_ORDERED)


def _check_keep(keep):
    if keep is False or keep in ("first", "last"):
        return keep
    raise InvalidValueError(f"keep must be 'first', 'last' or False, not {keep!r}")


def min_max(col, want_max):
    """min/max of any orderable column: numbers via the reduction, strings,
    dates and timestamps via their first extreme row."""
    if _is_numeric(col):
        return col.reduce("max" if want_max else "min")
    return _core.min_max(col, want_max).to_pylist()[0]


class SeriesStats:
    """Statistics, distinct values and duplicates of zambezi.Series (a mixin)."""

    __slots__ = ()

    # -- reductions -------------------------------------------------------
    def var(self, ddof=1):
        """Variance with ddof degrees of freedom (nulls and NaN skipped);
        None when fewer than ddof + 1 values (pandas gives NaN).

        Examples
        --------
        >>> s = zb.Series([2, 4, 4, None, 5])
        >>> round(s.var(), 4), s.var(ddof=0)
        (1.5833, 1.1875)
        >>> zb.Series([1]).var() is None
        True
        """
        return _core.stat(self._col, "var", int(ddof))

    def std(self, ddof=1):
        """Standard deviation (see var).

        Examples
        --------
        >>> zb.Series([2, 4, 4, 4, 5, 5, 7, 9]).std(ddof=0)
        2.0
        """
        return _core.stat(self._col, "std", int(ddof))

    def median(self):
        """The middle value (mean of the two middle values for an even count);
        nulls skipped, None when there is no value.

        Examples
        --------
        >>> zb.Series([5, 1, None, 4, 2]).median()
        3.0
        """
        return _core.stat(self._col, "median")

    def quantile(self, q=0.5):
        """The q quantile with linear interpolation (pandas' default).  q may be
        a list: then a float64 Series of the quantiles in the order given.

        Examples
        --------
        >>> s = zb.Series([2, 4, 4, None, 5])
        >>> s.quantile(0.25)
        3.5
        >>> s.quantile([0.5, 0.9])
        0      4
        1    4.7
        dtype: float64
        """
        if isinstance(q, (int, float)) and not isinstance(q, bool):
            return _core.quantile(self._col, [float(q)])[0]
        values = _core.quantile(self._col, [float(x) for x in q])
        return self._constructor(values, name=self._name, dtype="float64")

    def prod(self):
        """Product (integers wrap on overflow like numpy; 1 when empty);
        nulls skipped.

        Examples
        --------
        >>> zb.Series([2, 4, None, 5]).prod()
        40
        """
        return _core.stat(self._col, "prod")

    product = prod

    def any(self):
        """True if any value is non-zero / True (nulls skipped; False when empty).

        Examples
        --------
        >>> zb.Series([0, None, 2]).any(), zb.Series([False, None]).any()
        (True, False)
        """
        return _core.stat(self._col, "any")

    def all(self):
        """True if every value is non-zero / True (nulls skipped; True when empty).

        Examples
        --------
        >>> zb.Series([True, None, True]).all(), zb.Series([1, 0]).all()
        (True, False)
        """
        return _core.stat(self._col, "all")

    def idxmin(self):
        """Row position of the first minimum; None when there is no value.
        There are no labels, so this is also ``argmin``.

        Examples
        --------
        >>> zb.Series([4, 1, None, 1]).idxmin()
        1
        """
        return _core.stat(self._col, "argmin")

    def idxmax(self):
        """Row position of the first maximum; None when there is no value.

        Examples
        --------
        >>> zb.Series([4, 9, None, 9]).idxmax()
        1
        >>> zb.Series([None], dtype="float64").argmax() is None
        True
        """
        return _core.stat(self._col, "argmax")

    argmin = idxmin
    argmax = idxmax

    # -- summaries (zambezi._frame_summary) --------------------------------
    def describe(self, percentiles=None, include=None, exclude=None):
        """Summary statistics, a Series indexed by their names, as pandas'
        describe: count, mean, std, min, the percentiles (25%, 50%, 75% by
        default) and max as float64 for numbers; count, mean, min, the
        percentiles and max for timestamps; count, unique, top and freq
        for strings, categories, bools and dates.  pandas gives object
        Series for the last two kinds; here they are string Series of the
        values as pandas prints them.  include and exclude are accepted
        and ignored, as pandas does for a Series.

        Examples
        --------
        >>> zb.Series([7.0, 3.5, None, 9.0], name="fare").describe().round(2)
        count     3
        mean    6.5
        std    2.78
        min     3.5
        25%    5.25
        50%       7
        75%       8
        max       9
        Name: fare, dtype: float64
        >>> zb.Series(["Maun", "Tete", "Maun", None]).describe().to_list()
        ['3', '2', 'Maun', '2']
        """
        from zambezi import _frame_summary as fs

        ps = fs.refine_percentiles(percentiles)
        names, values, is_text = fs.describe_column(self._col, ps, fs.format_percentiles(ps))
        col = fs.described_column(names, values, is_text, names)
        return self._constructor._from_column(col, self._name, fs._string_index(names))

    def memory_usage(self, index=True, deep=False):
        """Bytes the values hold (values, validity bitmap, string bytes,
        categories), plus the row labels' with index=True (a RangeIndex
        takes 0; pandas counts 132 for the range object).  Exact, so deep
        changes nothing.

        Examples
        --------
        >>> zb.Series([1, 2, 3]).memory_usage()
        24
        >>> zb.Series([1.5, None], index=["a", "b"]).memory_usage()
        43
        """
        return self._col.nbytes + (self._index.nbytes if index else 0)

    def _paired_values(self, other, what):
        """float64 arrays of self and other, row by row: positional when
        the indexes are equal, else over the labels both have (pandas'
        inner alignment)."""
        from zambezi import _frame_summary as fs

        if not _base.is_series(other):
            raise InvalidValueError(f"{what}: other must be a Series, not "
                                    f"{type(other).__name__}")
        for s in (self, other):
            if s._col.dtype not in _NUMERIC:
                raise DTypeError(f"{what}: {s._describe()} is not a number or bool")
        a, b = self._col, other._col
        if not self._index.equals(other._index):
            left, right = self._index._levels(), other._index._levels()
            if len(left) != len(right):
                raise InvalidValueError(
                    f"{what}: the indexes have {len(left)} and {len(right)} levels")
            names = [f"k{i}" for i in range(len(left))]
            lpos, rpos = _core.join_indices(
                _core.table_from_columns(left, names), _core.table_from_columns(right, names),
                list(range(len(left))), list(range(len(left))), "inner")
            a, b = _core.take(a, lpos), _core.take(b, rpos)
        return fs._float_values(a), fs._float_values(b)

    def corr(self, other, method="pearson", min_periods=None):
        """Correlation with another Series over the rows where both have a
        value ("pearson", or "spearman": Pearson of the ranks, ties
        averaged); rows pair by label as pandas aligns them (by position
        when the indexes are equal).  None when fewer than min_periods
        (default 1) pairs, or a constant side (pandas gives NaN).

        Examples
        --------
        >>> a = zb.Series([1, 2, 3, 4])
        >>> b = zb.Series([2.0, 4.5, None, 8.0])
        >>> round(a.corr(b), 6), a.corr(b, method="spearman")
        (0.995567, 1.0)
        """
        from zambezi import _frame_summary as fs

        method = fs.check_method(method)
        x, y = self._paired_values(other, "corr")
        minp = 1 if min_periods is None else int(min_periods)
        v = fs.pair_statistic(x, y, method, minp)
        return None if np.isnan(v) else v

    def cov(self, other, min_periods=None, ddof=1):
        """Covariance with another Series (divided by n - ddof) over the
        rows where both have a value, paired as in corr; None when fewer
        than min_periods pairs or n <= ddof (pandas gives NaN).

        Examples
        --------
        >>> round(zb.Series([1, 2, 3, 4]).cov(zb.Series([2.0, 4.5, None, 8.0])), 6)
        4.583333
        """
        from zambezi import _frame_summary as fs

        x, y = self._paired_values(other, "cov")
        minp = 1 if min_periods is None else int(min_periods)
        v = fs.pair_statistic(x, y, "cov", minp, int(ddof))
        return None if np.isnan(v) else v

    # -- distinct values --------------------------------------------------
    def nunique(self, dropna=True):
        """Number of distinct values (null and NaN left out unless dropna=False).

        Examples
        --------
        >>> s = zb.Series(["a", "b", "a", None])
        >>> s.nunique(), s.nunique(dropna=False)
        (2, 3)
        """
        return _core.nunique(self._col, bool(dropna))

    def unique(self):
        """The distinct values in order of first appearance, as a Series
        (pandas returns an array); a null appears once when present.

        Examples
        --------
        >>> zb.Series([2, 4, 2, None, 5, None]).unique()
        0       2
        1       4
        2    <NA>
        3       5
        dtype: int64
        """
        return self._constructor._from_column(_core.unique(self._col), self._name)

    def value_counts(self, sort=True, ascending=False, normalize=False, dropna=True):
        """The count of each distinct value, most frequent first (ties in
        order of first appearance, as pandas): a Series named "count" (or
        "proportion" with normalize=True) indexed by the values (the index
        named after this Series).  Nulls are counted with dropna=False;
        sort=False keeps the order of first appearance.  A categorical
        lists only the categories that occur, as groupby does (pandas also
        lists its unused categories, with count 0).

        Examples
        --------
        >>> s = zb.Series(["b", "a", "b", None], name="city")
        >>> s.value_counts()
        city
        b    2
        a    1
        Name: count, dtype: int64
        >>> s.value_counts(dropna=False).index.to_list()
        ['b', 'a', None]
        >>> s.value_counts(normalize=True).round(3).to_list()
        [0.667, 0.333]
        """
        values, counts = _core.value_counts(self._col, bool(sort), bool(ascending),
                                            bool(dropna), bool(normalize))
        index = _ix.Index._from_columns([values], [self._name])
        return self._constructor._from_column(counts, "proportion" if normalize else "count",
                                              index)

    def isin(self, values):
        """bool Series: whether each value is one of values (a list, set, Series
        or array).  Nulls give False.

        Examples
        --------
        >>> zb.Series([1, 2, None, 5]).isin([2, 5]).to_list()
        [False, True, False, True]
        >>> zb.Series(["a", "b"]).isin({"b"}).to_list()
        [False, True]
        """
        if isinstance(values, (str, bytes)):
            raise InvalidValueError(
                "isin() takes a list-like of values, not a str; wrap it in a list")
        if _base.is_series(values):
            vcol = values._col
        elif isinstance(values, _core.Column):
            vcol = values
        else:
            if isinstance(values, (set, frozenset, dict)):
                values = list(values)
            vcol = _convert.to_column(values)
            if vcol.length == 0:
                vcol = self._col.slice(0, 0)
        return self._like(_core.isin(self._col, vcol))

    # -- duplicates -------------------------------------------------------
    def _table(self):
        return _core.table_from_columns([self._col], ["value"])

    def duplicated(self, keep="first"):
        """bool Series: True for repeats of an earlier (keep='first'), later
        (keep='last') or any other (keep=False) equal value.

        Examples
        --------
        >>> s = zb.Series([1, 2, 1, 1])
        >>> s.duplicated().to_list()
        [False, False, True, True]
        >>> s.duplicated(keep="last").to_list()
        [True, False, True, False]
        >>> s.duplicated(keep=False).to_list()
        [True, False, True, True]
        """
        return self._like(_core.duplicated(self._table(), None, _check_keep(keep)))

    def drop_duplicates(self, keep="first"):
        """The Series without its duplicated values (row order kept;
        keep as in duplicated()).

        Examples
        --------
        >>> zb.Series([1, 2, 1, None, None]).drop_duplicates().to_list()
        [1, 2, None]
        >>> zb.Series([1, 2, 1]).drop_duplicates(keep="last").to_list()
        [2, 1]
        """
        dup = _core.duplicated(self._table(), None, _check_keep(keep))
        return self._select_rows(_indexing.filter_rows(_core.unary("invert", dup)))


class FrameStats:
    """Duplicates and column-wise reductions of zambezi.DataFrame (a mixin)."""

    __slots__ = ()

    def _subset(self, subset):
        if subset is None:
            return None
        if isinstance(subset, str):
            subset = [subset]
        names = self._table.names
        keys = []
        for s in subset:
            if s not in names:
                raise self._missing(s)
            keys.append(names.index(s))
        if not keys:
            raise InvalidValueError("subset must name at least one column")
        return keys

    def duplicated(self, subset=None, keep="first"):
        """bool Series: whether each row repeats another over the columns in
        subset (all columns by default), per keep ('first', 'last', False).

        Examples
        --------
        >>> df = zb.DataFrame({"k": [1, 1, 2], "v": ["x", "x", "y"]})
        >>> df.duplicated().to_list()
        [False, True, False]
        >>> df.duplicated(subset="k", keep="last").to_list()
        [True, False, False]
        """
        keys = self._subset(subset)
        return self._sliced(_core.duplicated(self._table, keys, _check_keep(keep)), None)

    def drop_duplicates(self, subset=None, keep="first", ignore_index=False):
        """The frame without its duplicated rows (row order and labels kept,
        numbered from 0 with ignore_index=True; subset and keep as in
        duplicated()).

        Examples
        --------
        >>> df = zb.DataFrame({"k": [1, 1, 2], "v": ["x", "y", "z"]})
        >>> df.drop_duplicates(subset="k")
               k       v
           int64  string
        0      1       x
        2      2       z
        <BLANKLINE>
        [2 rows x 2 columns]
        """
        keys = self._subset(subset)
        if ignore_index:
            return self._constructor._wrap(
                _core.drop_duplicates(self._table, keys, _check_keep(keep)))
        dup = _core.duplicated(self._table, keys, _check_keep(keep))
        return self._select_rows(_indexing.filter_rows(_core.unary("invert", dup)))

    def value_counts(self, subset=None, normalize=False, sort=True, ascending=False,
                     dropna=True):
        """How many times each distinct row (over the columns in subset,
        all by default) occurs: a Series named "count" (or "proportion"
        with normalize=True) indexed by the rows' values -- a MultiIndex,
        except for subset given as one name.  Most frequent first; ties,
        and every row with sort=False, in order of first appearance (as
        pandas).  dropna=False counts rows with nulls too.  Categorical
        columns list only the categories that occur (pandas adds the
        unused ones with count 0).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", "Maun"], "n": [1, 2, 1, 3]})
        >>> df.value_counts()
        city  n
        Maun  1    2
        Tete  2    1
        Maun  3    1
        Name: count, dtype: int64
        >>> df.value_counts("city", normalize=True).to_list()
        [0.75, 0.25]
        """
        one = isinstance(subset, str)
        keys = self._subset(subset)
        names = self._table.names
        cols = [names[i] for i in keys] if keys is not None else list(names)
        if not cols:
            raise InvalidValueError("value_counts: the frame has no columns")
        counts = self.groupby(cols[0] if one else cols, sort=False, dropna=dropna).size()
        if sort:
            order = _core.sort_indices(counts._col, bool(ascending), False)
            counts = counts._select_rows(_indexing.take_rows(order))
        if normalize:
            total = counts._col.reduce("sum")
            counts = counts._like(_core.binary_scalar("truediv", counts._col, float(total),
                                                      False))
        if not one and counts._index.nlevels == 1:  # a list subset: a MultiIndex, as pandas
            idx = counts._index
            counts = counts._with_index(_ix.MultiIndex._from_columns(idx._levels(), idx.names))
        counts.name = "proportion" if normalize else "count"
        return counts

    # -- reductions: dict column -> value ---------------------------------
    def _reduce(self, fn, which):
        t = self._table
        out = {}
        for i, name in enumerate(t.names):
            col = t.column(i)
            if which == "numeric" and not _is_numeric(col):
                continue
            if which == "ordered" and not _orderable(col):
                continue
            out[name] = fn(col)
        return out

    def sum(self):
        """dict: numeric column -> sum (pandas gives a Series).  Numeric
        means the integer, float and bool columns; nulls are skipped.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, None], "b": [0.5, 1.5, 2.5], "s": ["x", None, "z"]})
        >>> df.sum()
        {'a': 3, 'b': 4.5}
        """
        return self._reduce(lambda c: c.reduce("sum"), "numeric")

    def prod(self):
        """dict: numeric column -> product.

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2, None], "b": [0.5, 1.5, 2.5]}).prod()
        {'a': 2, 'b': 1.875}
        """
        return self._reduce(lambda c: _core.stat(c, "prod"), "numeric")

    def mean(self):
        """dict: numeric column -> mean.

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2, None], "s": ["x", None, "z"]}).mean()
        {'a': 1.5}
        """
        return self._reduce(lambda c: c.reduce("mean"), "numeric")

    def min(self):
        """dict: numeric, string, date and timestamp column -> minimum.

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2, None], "s": ["x", None, "z"]}).min()
        {'a': 1, 's': 'x'}
        """
        return self._reduce(lambda c: min_max(c, False), "ordered")

    def max(self):
        """dict: numeric, string, date and timestamp column -> maximum.

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2, None], "s": ["x", None, "z"]}).max()
        {'a': 2, 's': 'z'}
        """
        return self._reduce(lambda c: min_max(c, True), "ordered")

    def count(self):
        """dict: every column -> number of non-null values (NaN not counted).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2, None], "s": ["x", None, "z"]}).count()
        {'a': 2, 's': 2}
        """
        return self._reduce(lambda c: c.reduce("count") if _is_numeric(c)
                            else c.length - c.null_count, "all")

    def std(self, ddof=1):
        """dict: numeric column -> standard deviation (ddof as Series.std).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 3, None], "b": [0.5, 1.5, 2.5]}).std()
        {'a': 1.4142135623730951, 'b': 1.0}
        """
        return self._reduce(lambda c: _core.stat(c, "std", int(ddof)), "numeric")

    def var(self, ddof=1):
        """dict: numeric column -> variance (ddof as Series.var).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 3, None], "b": [0.5, 1.5, 2.5]}).var(ddof=0)
        {'a': 1.0, 'b': 0.6666666666666666}
        """
        return self._reduce(lambda c: _core.stat(c, "var", int(ddof)), "numeric")

    def median(self):
        """dict: numeric column -> median.

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 3, None], "b": [0.5, 1.5, 2.5]}).median()
        {'a': 2.0, 'b': 1.5}
        """
        return self._reduce(lambda c: _core.stat(c, "median"), "numeric")

    def nunique(self, dropna=True):
        """dict: every column -> number of distinct values (nulls counted
        with dropna=False).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 1, None], "s": ["x", "y", "x"]})
        >>> df.nunique(), df.nunique(dropna=False)
        ({'a': 1, 's': 2}, {'a': 2, 's': 2})
        """
        return self._reduce(lambda c: _core.nunique(c, bool(dropna)), "all")
