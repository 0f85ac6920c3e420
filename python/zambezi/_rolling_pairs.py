"""Moving-window statistics of two columns and the standard error of
the mean, as pandas 3 has them (a mixin of zambezi._rolling's Rolling and
Expanding): ``sem``, ``cov(other)`` and ``corr(other)``.

``sem`` is the window's std (ddof) divided by the square root of its
count, as pandas defines it.  ``cov`` and ``corr`` pair each row of the
Series (or of each column of a frame) with the same row of ``other``: a
pair counts when both values are present.  Both are one engine call
(``_core.rolling`` with the other column: src/cpu/rolling.c's moving
co-moment, Welford's updates of the pairs' co-moment and of each side's
sum of squares as pairs enter and leave the window), over the same
windows as the other statistics (counts, time spans, expanding).  The
correlation is missing where a side does not vary, as pandas; missing
results follow the variance's rules (min_periods pairs and more than ddof
of them).

Without ``other`` the object pairs with itself.  A frame's pairwise
result (no ``other``, or ``pairwise=True``) is pandas': one row per (row
label, column of other) -- a MultiIndex -- and one column per column of
the object;
with a frame ``other`` and ``pairwise`` not True, the columns of both
pair by label (the union of the labels, missing where one side lacks it).

Not supported (UnsupportedError): group-by windows, a Series with a
frame, and an ``other`` whose row labels differ from the object's (pandas
aligns them first; align with ``reindex`` before).
"""

import numpy as np

from zambezi import _core
from zambezi._dtypes import NUMERIC as _NUMERIC
from zambezi.errors import DTypeError, UnsupportedError


def _nan_column(n):
    return _core.column_from_buffer(np.full(n, np.nan))


class RollingPairs:
    """sem, cov and corr of moving windows (a mixin of Rolling).

    Examples
    --------
    >>> x = zb.Series([1.0, 2.0, 4.0, 8.0])
    >>> x.rolling(2).sem().to_list()
    [None, 0.5, 1.0, 2.0]
    """

    __slots__ = ()

    def _on_obj(self, obj):
        """A window object like this one over obj (same rows)."""
        new = object.__new__(type(self))
        for cls in type(self).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                if hasattr(self, slot):
                    object.__setattr__(new, slot, getattr(self, slot))
        new._obj = obj
        return new

    def sem(self, ddof=1, numeric_only=False):
        """The standard error of the mean of each window: std(ddof)
        divided by the square root of the window's count, as pandas.

        Examples
        --------
        >>> zb.Series([1.0, 2.0, 4.0, 8.0]).rolling(2).sem().to_list()
        [None, 0.5, 1.0, 2.0]
        """
        std = self.std(ddof=ddof, numeric_only=numeric_only)
        cnt = self.count(numeric_only=numeric_only)
        return std / cnt ** 0.5

    def _one_pair(self, x, y, ddof, what):
        """The statistic of the windows of engine columns x and y (a Series):
        one engine call (the moving co-moment of the pairs)."""
        from zambezi import _base

        for c, nm in ((x, "x"), (y, "other")):
            if c.dtype not in _NUMERIC:
                raise DTypeError(f"{what}: {nm} has dtype {c.dtype}; it needs numbers")
        obj = self._obj
        w, mp, center, bounds = self._window_args()
        xf = x if x.dtype == "float64" else _core.cast(x, "float64")
        yf = y if y.dtype == "float64" else _core.cast(y, "float64")
        col = _core.rolling(xf, what, w, mp, center, int(ddof), 0.5, "linear", bounds, 0, yf)
        return _base.series_class()._from_column(col, None, obj.index)

    def _pairwise(self, other, ddof, what):
        """pandas' pairwise result: for each row, one row per column of
        other (a MultiIndex (row label, column)), one column per column of
        the object; the rows interleaved by one engine gather per column."""
        from zambezi import _labels
        from zambezi import index as _ix

        obj = self._obj
        rows_of, cols_of = list(other.columns), list(obj.columns)
        n, k = len(obj), len(rows_of)
        done = {}
        perm = _core.column_from_buffer(
            (np.arange(k, dtype=np.int64)[None, :] * n +
             np.arange(n, dtype=np.int64)[:, None]).ravel())
        cols = []
        for j, cl in enumerate(cols_of):
            parts = []
            for i, rl in enumerate(rows_of):
                key = (i, j) if other is not obj else (min(i, j), max(i, j))
                if key not in done:
                    done[key] = self._one_pair(obj[cl]._col, other[rl]._col, ddof, what)._col
                parts.append(done[key])
            cols.append(_core.take(_core.concat(parts), perm) if k else _nan_column(0))
        rows = _core.column_from_buffer(np.repeat(np.arange(n, dtype=np.int64), k))
        index = obj.index
        levels = [_core.take(c, rows) for c in index._levels()]
        names = list(index.names)
        lab = _ix.Index(rows_of)._levels()[0]
        levels.append(_core.take(lab, _core.column_from_buffer(
            np.tile(np.arange(k, dtype=np.int64), n))))
        names.append(None)
        return _labels.frame_from(type(obj), cols, cols_of, _ix.Index._from_columns(levels, names))

    def _pair_stat(self, other, pairwise, ddof, what):
        from zambezi import _base

        if self._gb is not None:
            raise UnsupportedError(f"{what} of group-by windows is not supported")
        obj = self._obj
        if other is None:  # the object with itself; pairwise by default for a frame
            other = obj
            if pairwise is None:
                pairwise = True
        if not isinstance(other, (_base.series_class(), type(obj))) and \
                getattr(other, "_ndim", None) not in (1, 2):
            raise DTypeError(f"{what}: other must be a Series or DataFrame, not "
                             f"{type(other).__name__}")
        if len(other) != len(obj) or not obj.index.equals(other.index):
            raise UnsupportedError(f"{what}: other's row labels differ from the object's "
                                   "(pandas aligns them; reindex other first)")
        if obj._ndim == 1 and other._ndim == 1:  # pandas keeps a name both sides share
            out = self._one_pair(obj._col, other._col, ddof, what)
            return out.rename(obj.name if obj.name == other.name else None)
        if obj._ndim == 1:
            raise UnsupportedError(f"{what} of a Series with a frame is not supported")
        if other._ndim == 1:
            return type(obj)({c: self._one_pair(obj[c]._col, other._col, ddof, what)
                              for c in obj.columns}, index=obj.index)
        if pairwise:
            return self._pairwise(other, ddof, what)
        # column by column, over the union of the labels (missing where a
        # side has none), as pandas
        theirs = list(other.columns)
        labels = list(obj.columns) if other is obj else \
            obj.columns.union(other.columns).to_list()
        out = {}
        for c in labels:
            if c in list(obj.columns) and c in theirs:
                out[c] = self._one_pair(obj[c]._col, other[c]._col, ddof, what)
            else:
                out[c] = self._one_pair(_nan_column(len(obj)), _nan_column(len(obj)), ddof,
                                        what)
        return type(obj)(out, index=obj.index)

    def cov(self, other=None, pairwise=None, ddof=1, numeric_only=False):
        """The covariance of each window of this Series (each column) with
        the same rows of other, over the rows where both have a value.

        Examples
        --------
        >>> x = zb.Series([1.0, 2.0, 4.0, 8.0])
        >>> [round(v, 6) for v in x.rolling(3).cov(zb.Series([1.0, 3.0, 2.0, 5.0])).to_list()[2:]]
        [0.5, 3.666667]
        """
        return self._pair_stat(other, pairwise, ddof, "cov")

    def corr(self, other=None, pairwise=None, ddof=1, numeric_only=False):
        """The Pearson correlation of each window of this Series (each
        column) with the same rows of other; missing where either side
        does not vary.

        Examples
        --------
        >>> x = zb.Series([1.0, 2.0, 4.0, 8.0])
        >>> [round(v, 6) for v in x.rolling(3).corr(zb.Series([1.0, 3.0, 2.0, 5.0])).to_list()[2:]]
        [0.327327, 0.785714]
        """
        return self._pair_stat(other, pairwise, ddof, "corr")


