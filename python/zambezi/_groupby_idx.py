"""GroupBy.idxmax / idxmin: the row label of each group's first largest
(smallest) value, as pandas 3 gives them (``df.loc[gb["v"].idxmax()]``
picks each group's top row).

Per value column: the engine's per-row group extreme (``transform("max")``),
the rows equal to it, and the first such row of each group (numpy's
``unique`` over their group ids, which come in row order) -- no loop over
rows.  Missing values are skipped; a group with no value raises pandas'
ValueError.  Results have the shape of ``max()``: a Series for one column,
a frame for several, indexed by the keys, holding row labels.
"""

import numpy as np

from zambezi import _convert, _core
from zambezi.errors import DTypeError, UnsupportedError

_ORDERED_PREFIXES = ("int", "uint", "float", "bool", "string", "timestamp", "duration", "date")


class GroupByIdx:
    """GroupBy.idxmax / idxmin (a mixin of zambezi._groupby.GroupBy)."""

    __slots__ = ()

    def idxmax(self, skipna=True, numeric_only=False):
        """The row label of each group's first largest value, per value
        column (missing values skipped; a group without a value raises
        ValueError, as pandas 3).

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a"], "v": [1.0, 5.0, 3.0]},
        ...                   index=["r1", "r2", "r3"])
        >>> df.groupby("k")["v"].idxmax().to_list()
        ['r3', 'r2']
        """
        return self._idx_extreme("idxmax", skipna, numeric_only)

    def idxmin(self, skipna=True, numeric_only=False):
        """The row label of each group's first smallest value (see idxmax).

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a"], "v": [1.0, 5.0, 3.0]})
        >>> df.groupby("k")["v"].idxmin().to_list()
        [0, 1]
        """
        return self._idx_extreme("idxmin", skipna, numeric_only)

    def _idx_extreme(self, how, skipna, numeric_only):
        if not skipna:
            raise UnsupportedError(f"GroupBy.{how}(skipna=False) is not supported")
        if not self._as_index:
            raise UnsupportedError(f"GroupBy.{how} with as_index=False is not supported")
        index = self._obj._index
        if index.nlevels != 1:
            raise UnsupportedError(f"GroupBy.{how} of rows labelled by a MultiIndex is not "
                                   "supported")
        op = "max" if how == "idxmax" else "min"
        base = getattr(self, op)(numeric_only=numeric_only)   # the keys' index, the shape
        names = [self._selection[0]] if self._single else list(
            base._table.names if base._ndim == 2 else [])
        ids, n_groups = self._ids()
        if len(base) != n_groups:   # observed=False: categories no row has
            raise ValueError(f"Can't get {how} of an empty group due to unobserved "
                             "categories. Specify observed=True in groupby instead.")
        gid = _convert.values_numpy(ids)
        id_ok = _convert.null_mask(ids)
        labels_of = index._levels()[0]
        out = []
        for nm in names:
            col = self._engine_columns([nm])[0]
            if not col.dtype.startswith(_ORDERED_PREFIXES):
                raise DTypeError(f"GroupBy.{how}: column {nm!r} is {col.dtype}, which has "
                                 "no order")
            extreme = self[nm].transform(op)._col
            hit = _core.fill_null(_core.binary("eq", col, extreme), False)
            rows = np.flatnonzero(_convert.values_numpy(hit).astype(bool) & (
                True if id_ok is None else ~id_ok))
            groups, first = np.unique(gid[rows], return_index=True)
            if len(groups) < n_groups:
                raise ValueError(f"{how} with skipna=True encountered all NA values in a "
                                 "group.")
            pos = _core.column_from_buffer(rows[first].astype(np.int64))
            out.append(_core.take(labels_of, pos))
        if base._ndim == 1:
            return base._like(out[0])
        return base._like(_core.table_from_columns(out, names))
