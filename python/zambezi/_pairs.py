"""Statistics of pairs of columns, with pandas' names: ``Series.autocorr``,
``Series.dot`` / ``DataFrame.dot`` and ``DataFrame.corrwith``.

``autocorr`` and ``corrwith`` are the engine's correlation of Series pairs
(``Series.corr``: rows paired by label, missing values skipped).  ``dot``
is a matrix product: numpy's (BLAS, every core) over the float64 (or
integer) values, after the labels are matched as pandas matches them; a
missing value gives NaN, as in pandas.
"""

import numpy as np

from zambezi import _base, _labels
from zambezi import index as _ix
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError


def _numbers(obj, what):
    """obj's values as a numpy array (float64 where a value is missing)."""
    dtypes = [obj.dtype] if obj._ndim == 1 else list(obj.dtypes.to_list())
    for dt in dtypes:
        if not str(dt).startswith(("int", "uint", "float", "bool")):
            raise DTypeError(f"{what}: the values must be numbers, not {dt}")
    if obj._ndim == 1:
        return np.asarray(obj.to_numpy(dtype=None if obj._col.null_count == 0 else "float64",
                                       na_value=np.nan if obj._col.null_count else
                                       _base.NO_DEFAULT))
    return np.asarray(obj.to_numpy())


def _matched(labels, right, what):
    """right (a Series, or a frame by its rows) in the order of labels:
    the two must hold the same labels, as pandas requires."""
    if right._index.equals(labels):
        return right
    if len(right._index) != len(labels) or not right._index.is_unique or \
            len(right._index.difference(labels)):
        raise InvalidValueError(f"{what}: matrices are not aligned")
    return right.reindex(labels)


class SeriesPairs:
    """Series.autocorr / dot (a mixin of zambezi.Series)."""

    __slots__ = ()

    def autocorr(self, lag=1):
        """The Pearson correlation of the Series with itself lag rows
        earlier (``s.corr(s.shift(lag))``).

        Examples
        --------
        >>> float(zb.Series([1.0, 2.0, 4.0, 8.0, 16.0]).autocorr().round(6))
        1.0
        """
        return self.corr(self.shift(int(lag)))

    def dot(self, other):
        """The sum of products with another Series (labels matched), or
        the vector-matrix product with a frame (its rows matched to this
        Series' labels), indexed by the frame's columns.

        Examples
        --------
        >>> zb.Series([1, 2, 3]).dot(zb.Series([4, 5, 6]))
        np.int64(32)
        """
        if _base.is_series(other):
            b = _numbers(_matched(self._index, other, "dot"), "dot")
            return np.dot(_numbers(self, "dot"), b)
        if getattr(other, "_ndim", 0) == 2:
            b = _numbers(_matched(self._index, other, "dot"), "dot")
            values = np.dot(_numbers(self, "dot"), b)
            return type(self)(values, index=_labels.index_for(other), name=self._name)
        if isinstance(other, (np.ndarray, list)):
            return np.dot(_numbers(self, "dot"), np.asarray(other))
        raise InvalidValueError(f"dot: other must be a Series, DataFrame or array, not "
                                f"{type(other).__name__}")

    def __matmul__(self, other):
        return self.dot(other)


class FramePairs:
    """DataFrame.dot / corrwith (a mixin of zambezi.DataFrame)."""

    __slots__ = ()

    def dot(self, other):
        """The matrix product: with a Series (matched to the columns by
        label) a Series over the rows; with a frame (its rows matched to
        the columns) a frame over the rows and its columns.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2], "b": [3, 4]})
        >>> df.dot(zb.Series([10, 1], index=["a", "b"])).to_list()
        [13, 24]
        """
        cols = _labels.index_for(self)
        a = _numbers(self, "dot")
        if _base.is_series(other) or getattr(other, "_ndim", 0) == 2:
            b = _numbers(_matched(cols, other, "dot"), "dot")
        elif isinstance(other, (np.ndarray, list)):
            b = np.asarray(other)
        else:
            raise InvalidValueError(f"dot: other must be a Series, DataFrame or array, not "
                                    f"{type(other).__name__}")
        values = np.dot(a, b)
        if values.ndim == 1:
            return self._constructor_sliced(values, index=self._index)
        out = self._constructor({f"c{j}": values[:, j] for j in range(values.shape[1])})
        out.index = self._index
        out.columns = _labels.index_for(other) if getattr(other, "_ndim", 0) == 2 else \
            list(range(values.shape[1]))
        return out

    def __matmul__(self, other):
        return self.dot(other)

    def corrwith(self, other, axis=0, drop=False, method="pearson", numeric_only=False,
                 min_periods=None):
        """The correlation of each column with a Series, or with the
        column of the same label of another frame (rows paired by label,
        missing values skipped); labels only one frame has give NaN
        (left out with drop=True).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1.0, 2.0, 3.0], "b": [3.0, 1.0, 2.0]})
        >>> df.corrwith(zb.Series([2.0, 4.0, 6.0])).round(3).to_list()
        [1.0, -0.5]
        """
        if axis not in (0, "index"):
            raise UnsupportedError("corrwith(axis=1) is not supported")
        this = self.select_dtypes("number") if numeric_only else self
        labels = _labels.label_list(this)
        values, out_labels = [], []
        if _base.is_series(other):
            for j, lb in enumerate(labels):
                values.append(this.iloc[:, j].corr(other, method=method,
                                                   min_periods=min_periods))
                out_labels.append(lb)
        elif getattr(other, "_ndim", 0) == 2:
            if numeric_only:
                other = other.select_dtypes("number")
            theirs = _labels.label_list(other)
            where = {lb: j for j, lb in enumerate(theirs)}
            for j, lb in enumerate(labels):
                if lb in where:
                    values.append(this.iloc[:, j].corr(other.iloc[:, where[lb]],
                                                       method=method, min_periods=min_periods))
                    out_labels.append(lb)
            if not drop:
                rest = sorted(set(labels).union(theirs).difference(out_labels),
                              key=lambda x: (type(x).__name__, x))
                values.extend([np.nan] * len(rest))
                out_labels.extend(rest)
        else:
            raise InvalidValueError(f"corrwith: other must be a Series or DataFrame, not "
                                    f"{type(other).__name__}")
        return self._constructor_sliced(np.asarray(values, dtype=np.float64),
                                        index=_ix.Index(out_labels) if out_labels else None)
