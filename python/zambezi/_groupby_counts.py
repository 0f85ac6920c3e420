"""GroupBy.value_counts: how often each value (or each combination of the
value columns) occurs within each group, as pandas 3 gives it.

It is a group-by on the keys and the value columns together (one engine
group-by, ``size``), then one stable engine sort: by the keys when the
GroupBy sorts, then by the count (``sort=True``), ties in order of first
appearance -- the order pandas' stable ``sort_values`` of the counts
followed by a stable ``sort_index`` on the key levels gives.
``normalize=True`` divides each count by its group's total (a grouped
``transform("sum")``).  Rows with a null key are left out when the
GroupBy drops them (``dropna=True`` at ``groupby``); rows with a null
value when ``value_counts(dropna=True)``.

Ties (equal counts of one group, and with ``sort=False`` on a sorted
GroupBy all values of a group) come in pandas' order: the combinations in
order of first appearance, put in key order by pandas' grouper with an
unstable numpy ``argsort`` of the key values when there is one key held
in a numpy dtype (numbers, bools, timestamps, durations) -- zambezi calls
the same ``argsort`` on the same values -- and by a stable sort for text
keys and several keys.  A single numeric key with missing values (a
GroupBy with ``dropna=False``) keeps the order of first appearance there.

Not supported: ``bins`` (UnsupportedError), and categorical values'
unobserved categories (zambezi groups show observed categories only).
"""

import numpy as np

from zambezi import _base, _convert, _core, _labels
from zambezi import index as _ix
from zambezi.errors import ColumnNotFoundError, InvalidValueError, UnsupportedError


_FRAME_ARGS = ("subset", "normalize", "sort", "ascending", "dropna")
_SERIES_ARGS = ("normalize", "sort", "ascending", "bins", "dropna")


class GroupByValueCounts:
    """GroupBy.value_counts (a mixin of zambezi._groupby.GroupBy)."""

    __slots__ = ()

    def value_counts(self, *args, **kwargs):
        """Rows per distinct value within each group: a Series named
        "count" ("proportion" with ``normalize=True``) indexed by the keys
        and the value columns (with ``as_index=False`` a frame of those
        columns and the count).  ``sort``: by count (descending unless
        ``ascending``) within each group, the groups in key order when the
        GroupBy sorts.  ``dropna``: leave out rows whose value is null.
        ``subset`` (a DataFrame's groupby): the value columns to count.
        Arguments in pandas' order, which differs: (subset, normalize, sort,
        ascending, dropna) on a DataFrame's groupby, (normalize, sort,
        ascending, bins, dropna) on a column's; ``bins`` is not supported.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "a", "b", "a"], "v": [1, 2, 1, 2]})
        >>> df.groupby("k")["v"].value_counts().to_pandas().to_dict()
        {('a', 2): 2, ('a', 1): 1, ('b', 1): 1}
        >>> df.groupby("k").v.value_counts(normalize=True).to_list()
        [0.6666666666666666, 0.3333333333333333, 1.0]
        """
        order = _SERIES_ARGS if self._single or self._obj._ndim == 1 else _FRAME_ARGS
        if len(args) > len(order):
            raise TypeError(f"GroupBy.value_counts takes at most {len(order)} positional "
                            f"arguments ({len(args)} given)")
        for name, value in zip(order, args):
            if name in kwargs:
                raise TypeError(f"GroupBy.value_counts got multiple values for {name!r}")
            kwargs[name] = value
        unknown = set(kwargs) - set(_FRAME_ARGS) - {"bins"}
        if unknown:
            raise TypeError(f"GroupBy.value_counts got unexpected arguments {sorted(unknown)}")
        return self._value_counts(**kwargs)

    def _value_counts(self, subset=None, normalize=False, sort=True, ascending=False,
                      bins=None, dropna=True):
        if bins is not None:
            raise UnsupportedError("GroupBy.value_counts: bins is not supported")
        k = self._k
        keys = list(k.keys)
        values = [c for c in self._value_columns() if c not in keys]
        if subset is not None:
            if self._selection is not None and self._single:
                raise InvalidValueError("GroupBy.value_counts: subset is only valid for a "
                                        "DataFrame's groupby")
            want = [subset] if isinstance(subset, str) else list(subset)
            labels = {self._label(c): c for c in values}
            missing = [s for s in want if s not in labels]
            if missing:
                raise ColumnNotFoundError(f"GroupBy.value_counts: subset columns {missing!r} "
                                          f"are not value columns; they are {list(labels)!r}")
            values = [c for c in values if self._label(c) in want]   # (frame order, as pandas)
        work = k.work
        names = list(work.names)
        kn = [f"_k{i}" for i in range(len(keys))]
        vn = [f"_v{i}" for i in range(len(values))]
        table = _core.table_from_columns([work.column(names.index(c)) for c in keys + values],
                                         kn + vn)
        frame = _base.frame_class()._wrap(table)
        drop = (kn if self._dropna else []) + (vn if dropna else [])
        if drop:
            frame = frame.dropna(subset=drop)
        counts = frame.groupby(kn + vn, sort=False, dropna=False, as_index=False).size()
        if self._sort and len(kn) == 1:
            counts = _in_pandas_key_order(counts, kn[0])
        by = (kn if self._sort else []) + (["size"] if sort else [])
        if by:
            asc = [True] * (len(by) - 1) + [ascending if sort else True]
            counts = counts.sort_values(by, ascending=asc, ignore_index=True)
        name = "proportion" if normalize else "count"
        col = counts["size"]
        if normalize:
            total = counts.groupby(kn, sort=False, dropna=False)["size"].transform("sum")
            col = col / total
        ct = counts._table
        cols = [ct.column(ct.names.index(c)) for c in kn + vn]
        labels = list(k.labels) + [self._label(c) for c in values]
        if not self._as_index:   # pandas' reset_index of the result: level_i for an unnamed key
            labels = [f"level_{i}" if lb is None else lb for i, lb in enumerate(labels)]
            if name in labels:
                raise InvalidValueError(f"Column label '{name}' is duplicate of result column")
            return _labels.frame_from(_base.frame_class(), cols + [col._col], labels + [name],
                                      None)
        index = _ix.Index._from_columns(cols, labels)
        return _base.series_class()._from_column(col._col, name, index)


_NUMPY_KEYS = ("int", "uint", "float", "bool", "timestamp", "duration")


def _in_pandas_key_order(counts, key):
    """counts (a row per combination of the key and the values, in order
    of first appearance) in the order pandas' grouper leaves them before
    value_counts' stable sorts: one key held in a numpy dtype is put in
    order by numpy's default (unstable) argsort of its values, so rows of
    one key value come in the order that sort gives them.  Other keys (or
    missing key values) as they are: pandas sorts them stably."""
    col = counts[key]._col
    if col.null_count or not col.dtype.startswith(_NUMPY_KEYS):
        return counts
    return counts.iloc[np.argsort(_convert.to_numpy(col))]
