"""GroupBy.nlargest / nsmallest and GroupBy.ohlc, as pandas 3 gives them.

``nlargest(n)`` of a column's groups: one engine sort of the rows by
(group, value) -- the value descending for nlargest, ties in row order --
then the engine's per-group row count keeps the first n of each group.
The result is indexed by the keys and then the rows' own labels (pandas'
``group_keys``); missing values are left out.  ``ohlc()`` is the first,
largest, smallest and last value of each group (missing values skipped)
under pandas' names open / high / low / close.
"""

import numpy as np

from zambezi import _convert, _core, _indexing, _labels
from zambezi import index as _ix
from zambezi.errors import DTypeError, UnsupportedError

_OHLC = (("open", "first"), ("high", "max"), ("low", "min"), ("close", "last"))


class GroupByExtreme:
    """GroupBy.nlargest / nsmallest / ohlc (a mixin of zambezi._groupby.GroupBy)."""

    __slots__ = ()

    def nlargest(self, n=5, keep="first"):
        """The n largest values of each group (of one selected column),
        largest first, ties in row order; indexed by the keys and the
        rows' labels.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a", "a"], "v": [1.0, 5.0, 3.0, 2.0]})
        >>> df.groupby("k")["v"].nlargest(2).to_list()
        [3.0, 2.0, 5.0]
        """
        return self._n_extreme(n, keep, True)

    def nsmallest(self, n=5, keep="first"):
        """The n smallest values of each group, smallest first (see
        nlargest).

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a", "a"], "v": [1.0, 5.0, 3.0, 2.0]})
        >>> df.groupby("k")["v"].nsmallest(1).index.to_list()
        [('a', 0), ('b', 1)]
        """
        return self._n_extreme(n, keep, False)

    def _n_extreme(self, n, keep, largest):
        what = "nlargest" if largest else "nsmallest"
        if keep != "first":
            raise UnsupportedError(f"GroupBy.{what}: keep={keep!r} is not supported (only "
                                   "'first')")
        if self._obj._ndim == 2 and not self._single:
            raise UnsupportedError(f"GroupBy.{what} is a method of one column's groups: "
                                   "select it first (gb['col'])")
        s = self._obj if self._obj._ndim == 1 else self._obj[self._selection[0]]
        col = s._col
        if not col.dtype.startswith(("int", "uint", "float", "bool", "timestamp",
                                     "duration", "date")):
            raise DTypeError(f"GroupBy.{what}: {s._describe()} has no numeric order")
        ids, ng = self._ids()
        valid = _core.unary("invert", s.isna()._col)
        id_null = _convert.null_mask(ids)
        keep_rows = np.asarray(_convert.values_numpy(valid), dtype=np.bool_)
        if id_null is not None:
            keep_rows = keep_rows & ~id_null
        rows = np.flatnonzero(keep_rows).astype(np.int64)
        pos = _core.column_from_buffer(rows)
        t = _core.table_from_columns([_core.take(ids, pos), _core.take(col, pos)], ["g", "v"])
        order = _core.sort_indices(t, [0, 1], [True, not largest], False)
        sorted_ids = _core.take(t.column(0), order)
        cc = _core.group_cumcount(sorted_ids, ng, True)
        first_n = np.asarray(_convert.values_numpy(_core.binary_scalar("lt", cc, int(n), False)),
                             dtype=np.bool_)
        picked = rows[np.asarray(_convert.values_numpy(order), dtype=np.int64)[first_n]]
        at = _indexing.take_rows(_core.column_from_buffer(picked))
        out = s._select_rows(at)
        keys = [_core.take(c, at.column) for c in self._key_columns()]
        levels = keys + list(out._index._levels())
        names = list(self._k.labels) + list(out._index.names)
        out._index = _ix.Index._from_columns(levels, names)
        return out

    def ohlc(self):
        """The first, highest, lowest and last value of each group
        (missing values skipped), as columns open / high / low / close; a
        frame's groupby gives them under each column's label.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "a", "b", "a"], "p": [3.0, 5.0, 2.0, 4.0]})
        >>> df.groupby("k")["p"].ohlc().to_dict("list")
        {'open': [3.0, 2.0], 'high': [5.0, 2.0], 'low': [3.0, 2.0], 'close': [4.0, 2.0]}
        """
        if not self._as_index:
            raise UnsupportedError("GroupBy.ohlc with as_index=False is not supported")
        one = self._obj._ndim == 1 or self._single
        res = self.agg([how for _, how in _OHLC])   # one engine pass for the four
        names = dict((how, name) for name, how in _OHLC)
        t = res._table
        cols = [t.column(j) for j in range(t.num_columns)]
        labels = _labels.label_list(res)
        if one:
            labels = [names[lb] for lb in labels]
        else:
            for col, (lb, _) in zip(cols, labels):
                if not col.dtype.startswith(("int", "uint", "float")):
                    raise DTypeError(f"GroupBy.ohlc: column {lb!r} is not numeric")
            labels = [(lb, names[how]) for lb, how in labels]
        return _labels.frame_from(_frame_class(), cols, labels, res._index, None)


def _frame_class():
    from zambezi import _base

    return _base.frame_class()


def quantiles(gb, parts, qs):
    """GroupBy.quantile of a list: parts (one result per q, indexed by the
    keys) interleaved, each group's quantiles together, under an extra
    index level holding q (as pandas)."""
    first = parts[0]
    n, m = len(first), len(parts)
    order = _core.column_from_buffer(
        (np.arange(m, dtype=np.int64)[None, :] * n + np.arange(n, dtype=np.int64)[:, None])
        .ravel())
    if first._ndim == 1:
        data = _core.take(_core.concat([p._col for p in parts]), order)
    else:
        t = first._table
        data = _core.table_from_columns(
            [_core.take(_core.concat([p._table.column(j) for p in parts]), order)
             for j in range(t.num_columns)], t.names)
    rows = _core.column_from_buffer(np.repeat(np.arange(n, dtype=np.int64), m))
    levels = [_core.take(c, rows) for c in first._index._levels()]
    levels.append(_core.column_from_buffer(np.tile(np.asarray(qs, dtype=np.float64), n)))
    out = first._like(data)
    out._index = _ix.Index._from_columns(levels, list(first._index.names) + [None])
    return out
