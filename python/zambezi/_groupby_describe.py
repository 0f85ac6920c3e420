"""GroupBy.describe: count, mean, std, min, percentiles and max of each
group, as pandas 3 lays them out (a row per group; for a frame, columns
(column, statistic) for each number column).

Each statistic is one engine aggregation over every group at once; pandas
runs Series.describe once per group in Python.  The values are pandas' up
to the last bits of mean and std (pandas' per-group describe sums a
group's values in numpy's order, the group-by's aggregations in row order).
"""

from zambezi import _core, _frame_summary, _labels
from zambezi.errors import UnsupportedError

_NUMBER_PREFIXES = ("int", "uint", "float")


class GroupByDescribe:
    """GroupBy.describe (a mixin of zambezi._groupby.GroupBy)."""

    __slots__ = ()

    def describe(self, percentiles=None, include=None, exclude=None):
        """count, mean, std, min, the percentiles (25%, 50%, 75% by
        default) and max of each group's values, as float64: a frame
        indexed by the keys; a DataFrame's group-by shows each number
        column's statistics as columns (column, statistic).

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a"], "v": [1.0, 5.0, 3.0]})
        >>> df.groupby("k")["v"].describe()["mean"].to_list()
        [2.0, 5.0]
        """
        if include is not None or exclude is not None:
            raise UnsupportedError("GroupBy.describe with include= / exclude= is not supported")
        if not self._as_index:
            raise UnsupportedError("GroupBy.describe with as_index=False is not supported")
        ps = _frame_summary.refine_percentiles(percentiles)
        stats = ["count", "mean", "std", "min"] + _frame_summary.format_percentiles(ps) + ["max"]
        names = [self._selection[0]] if self._single else self._value_columns(None)
        cols = self._engine_columns(names) if self._obj._ndim == 2 else [self._obj._col]
        numbers = [nm for nm, c in zip(names, cols) if c.dtype.startswith(_NUMBER_PREFIXES)]
        if self._single and not numbers or not names:
            raise UnsupportedError("GroupBy.describe of columns other than numbers is not "
                                   "supported")
        if len(numbers) < len(names) and not self._single and any(
                c.dtype.startswith(("timestamp", "duration")) for c in cols):
            raise UnsupportedError("GroupBy.describe of times is not supported")
        out, labels, index = [], [], None
        for nm in numbers:
            sub = self if self._single else self[nm]
            parts = [sub.count(), sub.mean(), sub.std(), sub.min()] + \
                [sub.quantile(float(p)) for p in ps] + [sub.max()]
            index = parts[0]._index
            for stat, part in zip(stats, parts):
                col = part._col
                out.append(col if col.dtype == "float64" else _core.cast(col, "float64"))
                labels.append(stat if self._single else (self._label(nm), stat))
        frame_cls = self._obj._constructor if self._obj._ndim == 2 else \
            self._obj._constructor_expanddim
        return _labels.frame_from(frame_cls, out, labels, index)
