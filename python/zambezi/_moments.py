"""Higher moments with pandas' names and formulas: ``sem`` (the standard
error of the mean), ``skew`` (the adjusted Fisher-Pearson coefficient)
and ``kurt`` / ``kurtosis`` (Fisher's excess kurtosis, unbiased), for
Series and per column of a DataFrame (mixins).

``sem`` is the engine's std divided by the square root of the count.
``skew`` and ``kurt`` sum the powers of the deviations from the mean in
numpy over a column's values (vectorized: nothing loops over rows), with
pandas' corrections: NaN for fewer than 3 (skew) or 4 (kurt) values, or
when the values do not vary.
"""

import math

import numpy as np

from zambezi import _convert, _labels, _stats
from zambezi.errors import DTypeError, UnsupportedError


def _values(col, skipna, what, how):
    """col's values as float64 without its missing ones; None when
    skipna=False and one is missing."""
    if not _stats._is_numeric(col):
        raise DTypeError(f"{how}: {what} has dtype {col.dtype}; the reduction needs numbers "
                         "(pass numeric_only=True to leave such columns out)")
    arr = np.asarray(_convert.to_numpy(col), dtype=np.float64)
    miss = np.isnan(arr)
    if miss.any():
        if not skipna:
            return None
        arr = arr[~miss]
    return arr


def _moment(col, how, skipna, what):
    """skew or kurt of an engine column, as pandas computes them."""
    a = _values(col, skipna, what, how)
    if a is None:
        return math.nan
    n = len(a)
    if n < (3 if how == "skew" else 4):
        return math.nan
    d = a - a.mean()
    s2 = float((d * d).sum())
    d -= d.mean()   # the mean's own rounding, taken out (corrected two-pass)
    d2 = d * d
    m2 = float(d2.sum())
    # no spread: NaN, as pandas 3.  Equal values leave only the round-off
    # of the deviations, judged against their first sum of squares s2 (not
    # an absolute level: values of any scale with a spread keep their
    # moment); a power of m2 that underflows is NaN too (pandas' 0 / 0)
    if not m2 > 1e-14 * s2 or (m2 ** 1.5 if how == "skew" else m2 * m2) == 0.0:
        return math.nan
    if how == "skew":
        m3 = float((d2 * d).sum())
        return (n * (n - 1) ** 0.5 / (n - 2)) * (m3 / m2 ** 1.5)
    m4 = float((d2 * d2).sum())
    adj = 3.0 * (n - 1) ** 2 / ((n - 2) * (n - 3))
    return n * (n + 1) * (n - 1) * m4 / ((n - 2) * (n - 3) * m2 * m2) - adj


def _row_moments(a, how, skipna):
    """skew or kurt of each row of the 2-D float64 array a (NaN missing),
    as _moment computes one column's: vectorized over rows and columns."""
    miss = np.isnan(a)
    cnt = (~miss).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(miss, 0.0, a).sum(axis=1) / cnt
        d = np.where(miss, 0.0, a - mean[:, None])
        s2 = (d * d).sum(axis=1)
        c = d.sum(axis=1) / cnt   # the mean's own rounding, taken out
        d = np.where(miss, 0.0, d - c[:, None])
        d2 = d * d
        m2 = d2.sum(axis=1)
        n = cnt.astype(np.float64)
        if how == "skew":
            m3 = (d2 * d).sum(axis=1)
            res = (n * np.sqrt(n - 1) / (n - 2)) * (m3 / m2 ** 1.5)
        else:
            m4 = (d2 * d2).sum(axis=1)
            adj = 3.0 * (n - 1) ** 2 / ((n - 2) * (n - 3))
            res = n * (n + 1) * (n - 1) * m4 / ((n - 2) * (n - 3) * m2 * m2) - adj
        tiny = (m2 ** 1.5 if how == "skew" else m2 * m2) == 0.0
    bad = (cnt < (3 if how == "skew" else 4)) | ~(m2 > 1e-14 * s2) | tiny
    if not skipna:
        bad |= miss.any(axis=1)
    res[bad] = np.nan
    return res


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
        if axis in (1, "columns"):
            return self._moments_per_row("kurt", skipna, numeric_only)
        _check_axis(axis, "kurt", True)
        return self._moments_per_column("kurt", skipna, numeric_only,
                                lambda c, nm: _moment(c, "kurt", skipna, f"column {nm!r}"))

    kurtosis = kurt
