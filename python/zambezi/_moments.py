"""Higher moments with pandas' names and formulas: ``sem`` (the standard
error of the mean), ``skew`` (the adjusted Fisher-Pearson coefficient)
and ``kurt`` / ``kurtosis`` (Fisher's excess kurtosis, unbiased), for
Series and per column of a DataFrame (mixins).

``sem`` is the engine's std divided by the square root of the count.
``skew`` and ``kurt`` are the engine's group moments
(``_core.group_moment``, src/cpu/group_moments.c) with the whole column,
or each row for ``axis=1``, as one group: one rule for the Series, the
frame and the group-by, with pandas' corrections: NaN for fewer than 3
(skew) or 4 (kurt) values, or when the values do not vary.
"""

import math

import numpy as np

from zambezi import _base, _convert, _core, _labels, _stats
from zambezi.errors import DTypeError, UnsupportedError


def _check_numbers(col, what, how):
    if not _stats._is_numeric(col):
        raise DTypeError(f"{how}: {what} has dtype {col.dtype}; the reduction needs numbers "
                         "(pass numeric_only=True to leave such columns out)")


def _moment(col, how, skipna, what):
    """skew or kurt of an engine column, as pandas computes them: the
    engine's group moment with the whole column as one group, so the
    Series, the frame and the group-by follow one rule."""
    _check_numbers(col, what, how)
    v = _core.group_moment(col, None, 1, how, bool(skipna)).to_pylist()[0]
    return math.nan if v is None else v


def _row_moments(a, how, skipna):
    """skew or kurt of each row of the 2-D float64 array a (NaN missing):
    the engine's group moment with each row one group (its values laid
    out row after row)."""
    n, k = a.shape
    flat = _convert.to_column(np.ascontiguousarray(a).reshape(-1))
    ids = _convert.to_column(np.repeat(np.arange(n, dtype=np.int64), k))
    res = _core.group_moment(flat, ids, n, how, bool(skipna))
    return np.asarray(_convert.to_numpy(res), dtype=np.float64)


def _check_axis(axis, how, frame):
    if axis in (None, 0, "index"):
        return
    if frame and axis in (1, "columns"):
        raise UnsupportedError(f"{how}(axis=1) is not supported; transpose first")
    raise UnsupportedError(f"{how}: axis must be 0 or None, not {axis!r}")


class SeriesMoments:
    """sem, skew, kurt of zambezi.Series (a mixin)."""

    __slots__ = ()

    def sem(self, axis=None, skipna=True, ddof=1, numeric_only=False):
        """The standard error of the mean: std(ddof) / sqrt(count), as
        pandas; NaN when there are too few values.

        Examples
        --------
        >>> round(zb.Series([1.0, 2.0, 4.0, None]).sem(), 6)
        0.881917
        """
        _check_axis(axis, "sem", False)
        n = self.count()
        std = self.std(ddof=ddof, skipna=skipna)
        if std is None:  # missing, as std gives it (skipna=False over a missing value)
            return std
        return float(std) / math.sqrt(n) if n else math.nan

    def skew(self, axis=None, skipna=True, numeric_only=False):
        """The skewness (adjusted Fisher-Pearson, as pandas); NaN for fewer
        than 3 values.

        Examples
        --------
        >>> round(zb.Series([1, 2, 3, 10, None]).skew(), 4)
        1.7636
        """
        _check_axis(axis, "skew", False)
        _base.check_bool(skipna, "skipna", none_allowed=False)
        return _moment(self._col, "skew", skipna, self._describe())

    def kurt(self, axis=None, skipna=True, numeric_only=False):
        """The excess kurtosis (Fisher's, unbiased, as pandas); NaN for
        fewer than 4 values.

        Examples
        --------
        >>> round(zb.Series([1, 2, 3, 10, 4]).kurt(), 4)
        3.152
        """
        _check_axis(axis, "kurt", False)
        _base.check_bool(skipna, "skipna", none_allowed=False)
        return _moment(self._col, "kurt", skipna, self._describe())

    kurtosis = kurt


class FrameMoments:
    """sem, skew, kurt of each column of zambezi.DataFrame (a mixin)."""

    __slots__ = ()

    def _moments_per_row(self, how, skipna, numeric_only):
        """skew or kurt of each row over the numeric columns (axis=1)."""
        cols, names = self._reduce_columns(how, numeric_only)
        for c, nm in zip(cols, names):
            if not _stats._is_numeric(c):
                raise DTypeError(f"{how}: column {nm!r} has dtype {c.dtype}; the reduction "
                                 "needs numbers (pass numeric_only=True to leave such "
                                 "columns out)")
        n = len(self)
        a = np.empty((n, len(cols)), dtype=np.float64)
        for j, c in enumerate(cols):  # one numpy conversion per column
            a[:, j] = np.asarray(_convert.to_numpy(c), dtype=np.float64)
        col = _convert.to_column(_row_moments(a, how, skipna))
        return self._constructor_sliced._from_column(col, None, self._index)

    def _moments_per_column(self, how, skipna, numeric_only, fn):
        cols, names = self._reduce_columns(how, numeric_only)
        values = [fn(c, nm) for c, nm in zip(cols, names)]  # one per column
        index = _labels.index_for(self, names)
        col = _convert.to_column(np.asarray(values, dtype=np.float64))
        return self._constructor_sliced._from_column(col, None, index)

    def sem(self, axis=0, skipna=True, ddof=1, numeric_only=False):
        """The standard error of the mean of each column (or row, axis=1;
        see Series.sem).

        Examples
        --------
        >>> zb.DataFrame({"a": [1.0, 3.0], "b": [2, 2]}).sem().to_list()
        [1.0, 0.0]
        >>> zb.DataFrame({"a": [1.0, 3.0], "b": [3, 3]}).sem(axis=1).to_list()
        [1.0, 0.0]
        """
        if axis in (1, "columns"):  # per row: the engine's row-wise std and count
            std = self.std(axis=1, skipna=skipna, ddof=ddof, numeric_only=numeric_only)
            n = self.count(axis=1, numeric_only=numeric_only)
            return std / n.astype("float64") ** 0.5
        _check_axis(axis, "sem", True)

        def one(col, nm):
            s = self._constructor_sliced._from_column(col, nm)
            if not _stats._is_numeric(col):
                raise DTypeError(f"sem: column {nm!r} has dtype {col.dtype}; the reduction "
                                 "needs numbers (pass numeric_only=True to leave such "
                                 "columns out)")
            return s.sem(skipna=skipna, ddof=ddof)
        return self._moments_per_column("sem", skipna, numeric_only, one)

    def skew(self, axis=0, skipna=True, numeric_only=False):
        """The skewness of each column (see Series.skew), or of each row
        over the numeric columns (axis=1).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2, 3, 10], "b": [4, 1, 1, 1]}).skew().round(4).to_list()
        [1.7636, 2.0]
        >>> zb.DataFrame({"a": [1, 2], "b": [2, 2], "c": [9, 2]}).skew(axis=1).to_list()
        [1.6300591617118865, None]
        """
        _base.check_bool(skipna, "skipna", none_allowed=False)
        if axis in (1, "columns"):
            return self._moments_per_row("skew", skipna, numeric_only)
        _check_axis(axis, "skew", True)
        return self._moments_per_column("skew", skipna, numeric_only,
                                lambda c, nm: _moment(c, "skew", skipna, f"column {nm!r}"))

    def kurt(self, axis=0, skipna=True, numeric_only=False):
        """The excess kurtosis of each column (see Series.kurt), or of each
        row over the numeric columns (axis=1).

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2, 3, 10, 4]}).kurt().round(4).to_list()
        [3.152]
        """
        _base.check_bool(skipna, "skipna", none_allowed=False)
        if axis in (1, "columns"):
            return self._moments_per_row("kurt", skipna, numeric_only)
        _check_axis(axis, "kurt", True)
        return self._moments_per_column("kurt", skipna, numeric_only,
                                lambda c, nm: _moment(c, "kurt", skipna, f"column {nm!r}"))

    kurtosis = kurt
