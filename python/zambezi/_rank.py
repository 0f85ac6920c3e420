"""rank on Series, DataFrame and GroupBy, as pandas 3 has it (the
``SeriesRank``, ``FrameRank`` and ``GroupByRank`` mixins).  Results keep
the object's row labels and are float64.

Each column is one engine call (``_core.rank``): the engine's stable sort
gives the order (per group: by group id, then value), and a morsel-parallel
pass over the sorted rows finds the runs of tied values and writes their
ranks.  Per group, numbers, bools, dates, timestamps and categoricals whose
groups have at most 2^18 rows are instead sorted within each group (the
rows grouped by a counting sort, the groups ranked in parallel).  Nothing
here loops over rows.

Methods: ``average`` (ties share the mean of their positions), ``min``,
``max``, ``first`` (ties numbered in row order, in both directions),
``dense`` (no gaps).  ``na_option``: ``keep`` leaves missing values (null,
NaN) missing; ``top`` / ``bottom`` rank them as one tie run before / after
every value, whatever ``ascending`` says.  ``pct`` divides by the number of
ranked values (of the group), or by the highest rank for ``dense``.

Every dtype ranks: numbers, bool, dates and timestamps by value, strings
byte-wise (code point order, as pandas compares Python strings),
unordered categoricals by their categories' values and ordered ones in
category order (pandas' orders).

Differences from pandas, on purpose:

- Ranks are always float64, as pandas gives them for numpy dtypes; pandas
  gives Float64 for its nullable dtypes (what zambezi's to_pandas() shows
  for integer and bool columns with nulls), and UInt64 there for methods
  min / max / first / dense without pct.
- ``axis=1`` (ranks across the columns of a row) raises UnsupportedError.
- An unknown ``method`` raises InvalidValueError (pandas: KeyError).
"""

import numpy as np

from zambezi import _convert, _core
from zambezi._missing import _axis_number
from zambezi._dtypes import NUMERIC as _NUMERIC
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

_METHODS = ("average", "min", "max", "first", "dense")
_NA_OPTIONS = ("keep", "top", "bottom")


def _check(method, na_option):
    if not isinstance(method, str) or method not in _METHODS:
        raise InvalidValueError(
            f"rank: method must be one of 'average', 'min', 'max', 'first' or 'dense', "
            f"not {method!r}")
    if not isinstance(na_option, str) or na_option not in _NA_OPTIONS:
        raise InvalidValueError("na_option must be one of 'keep', 'top', or 'bottom'")


def _sorted_categories(col):
    """col (a categorical) with its categories in string order and its
    codes remapped, when they are not already sorted: the engine ranks
    codes, pandas ranks an unordered categorical by its categories (an
    ordered one by its codes)."""
    cats = col.dictionary.to_pylist()  # per category, not per row
    if all(cats[i] < cats[i + 1] for i in range(len(cats) - 1)):
        return col
    host = col if col.device == "cpu" else col.to_device("cpu")
    order = sorted(range(len(cats)), key=cats.__getitem__)
    new_code = np.empty(len(cats), dtype=np.int32)
    new_code[order] = np.arange(len(cats), dtype=np.int32)
    codes = new_code[np.asarray(host.values(), dtype=np.int64)] if len(cats) else \
        np.zeros(host.length, dtype=np.int32)
    mask = _convert.null_mask(host)
    if mask is not None:
        codes[mask] = -1
    cats_sorted = _core.take(host.dictionary,
                             _core.column_from_buffer(np.asarray(order, dtype=np.int64)))
    return _core.categorical_from_codes(np.ascontiguousarray(codes, dtype=np.int32),
                                        cats_sorted)


def _rank_column(col, method, ascending, na_option, pct, ids=None, ngroups=0):
    """The float64 ranks of one engine column (per group when ids, int64
    group ids with nulls for dropped keys, is given)."""
    if col.dtype == "category" and not col.ordered:  # ordered: the codes' order, as pandas
        col = _sorted_categories(col)
    return _core.rank(col, method, bool(ascending), na_option, bool(pct), ids, ngroups)


class SeriesRank:
    """rank of zambezi.Series (a mixin)."""

    __slots__ = ()

    def rank(self, axis=0, method="average", numeric_only=False, na_option="keep",
             ascending=True, pct=False):
        """The rank (1 = smallest) of each value, as float64.  Tied values
        share the mean of their positions (method "average"), the lowest
        ("min") or highest ("max") one, get positions in row order
        ("first"), or ranks without gaps ("dense").  Missing values stay
        missing (na_option="keep") or rank before ("top") or after
        ("bottom") every value; pct=True gives ranks as fractions of the
        number of ranked values.  Strings rank byte-wise, categoricals by
        their categories.  Always float64 (pandas gives its nullable
        dtypes Float64 or UInt64 ranks); axis=1 is not supported.

        Examples
        --------
        >>> s = zb.Series([3, 1, None, 3], index=["a", "b", "c", "d"])
        >>> s.rank()
        a    2.5
        b      1
        c    NaN
        d    2.5
        dtype: float64
        >>> s.rank(method="dense", ascending=False, na_option="bottom").to_list()
        [1.0, 2.0, 3.0, 1.0]
        >>> s.rank(method="min", pct=True).to_list()
        [0.6666666666666666, 0.3333333333333333, None, 0.6666666666666666]
        """
        _axis_number(self, axis)
        _check(method, na_option)
        if numeric_only and self._col.dtype not in _NUMERIC:
            raise DTypeError("Series.rank does not allow numeric_only=True with non-numeric "
                             f"dtype {self._col.dtype}")
        return self._like(_rank_column(self._col, method, ascending, na_option, pct))


class FrameRank:
    """rank of zambezi.DataFrame, column by column (a mixin)."""

    __slots__ = ()

    def rank(self, axis=0, method="average", numeric_only=False, na_option="keep",
             ascending=True, pct=False):
        """The rank of each value within its column (see Series.rank), as
        float64 columns; numeric_only=True keeps only number and bool
        columns.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [2, 1, 2], "b": ["y", "x", None]})
        >>> df.rank()
                 a        b
           float64  float64
        0      2.5        2
        1        1        1
        2      2.5      NaN
        <BLANKLINE>
        [3 rows x 2 columns]
        """
        if _axis_number(self, axis) == 1:
            raise UnsupportedError("DataFrame.rank(axis=1) (across columns) is not supported")
        _check(method, na_option)
        t = self._table
        names = t.names
        if numeric_only:
            names = [nm for nm in names if t.column(t.names.index(nm)).dtype in _NUMERIC]
        cols = [_rank_column(t.column(t.names.index(nm)), method, ascending, na_option, pct)
                for nm in names]
        return self._like(_core.table_from_columns(cols, names))


class GroupByRank:
    """rank of zambezi GroupBy (a mixin): the selected columns (every
    non-key column without a selection) ranked within each group, with the
    frame's row labels; a Series when one column was selected.  Rows whose
    key was dropped (dropna=True) are missing, as pandas."""

    __slots__ = ()

    def rank(self, method="average", ascending=True, na_option="keep", pct=False):
        """The rank of each value within its group (see Series.rank for
        the options); pct divides by the group's count of ranked values.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a", "a", None], "v": [3, 5, 1, 3, 2]})
        >>> df.groupby("k")["v"].rank().to_list()
        [2.5, 1.0, 1.0, 2.5, None]
        >>> df.groupby("k").rank(method="dense", pct=True)["v"].to_list()
        [1.0, 1.0, 0.5, 1.0, None]
        """
        _check(method, na_option)
        ids, ng = self._ids()

        def one(c, nm):
            if c.dtype == "category" and not c.ordered:  # as pandas' group-by rank
                raise DTypeError(f"rank: column {nm!r} is an unordered categorical; "
                                 "ranking within groups needs ordered categories")
            return _rank_column(c, method, ascending, na_option, pct, ids, ng)

        return self._transformed(one)
