"""The rows of each group (a mixin of zambezi._groupby's GroupBy):
iteration (``for key, rows in gb``), ``indices``, ``groups`` and
``get_group``, from one grouping of the rows (the kept group ids: a
counting sort by group, numpy over ids, no loop over rows).

Keys are given as ``Index.to_list`` gives them: scalars for one key,
tuples for several (a 1-tuple when the one key came as a list, in
iteration), a missing key as pandas gives it (NaN for strings, floats
and categoricals, NaT for times, NA for ints; NaN in ``indices``).  With
observed=False every combination of a categorical key's levels is a
group, an unused one with no rows, where pandas puts it.
"""

import numpy as np

from zambezi import _convert, _core, _indexing
from zambezi import index as _ix
from zambezi._groupby_columns import spec as _spec


class GroupBySplit:
    """iteration, indices, groups, get_group (a mixin of GroupBy)."""

    __slots__ = ()

    def _rows_by_group(self):
        """(keys, order, starts): each group's key as ``Index.to_list``
        gives it, and the rows' positions grouped: group g's rows are
        order[starts[g]:starts[g + 1]], in row order.  A counting sort by
        the kept ids (numpy, no loop over rows)."""
        from zambezi._groupby import _Grouping

        ids, n = self._ids()
        g = self._k.groupings.get((self._dropna, self._sort))
        if g is None:  # data off the CPU: the keys from a grouping here
            g = _Grouping(ids, n, *self._grouped_keys())
        idv = np.asarray(_convert.values_numpy(ids), dtype=np.int64)
        m = _convert.null_mask(ids)
        rows = np.arange(len(idv), dtype=np.int64)
        if m is not None:
            rows, idv = rows[~m], idv[~m]
        counts = np.bincount(idv, minlength=n)
        starts = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        cc = np.asarray(_convert.values_numpy(_core.group_cumcount(ids, n, True)),
                        dtype=np.int64)
        order = np.empty(len(rows), dtype=np.int64)
        order[starts[idv] + cc[rows]] = rows
        keys = _ix.Index._from_columns(g.keys, list(self._k.labels)).to_list()
        return self._pandas_missing(keys), order, starts

    def _pandas_missing(self, keys, everywhere_nan=False):
        """keys with a missing key's value as pandas gives it: NaN for
        strings, floats and categoricals, NaT for times, NA for ints and
        bools (NaN for every dtype with everywhere_nan: pandas'
        ``indices``)."""
        work = self._k.work
        dtypes = [work.column(work.names.index(k)).dtype for k in self._k.keys]
        try:
            import pandas as pd
            na, nat = pd.NA, pd.NaT
        except ImportError:  # pragma: no cover - depends on the environment
            na = nat = None
        fill = [np.nan if everywhere_nan or d in ("string", "category") or
                d.startswith("float") else nat if d.startswith(("timestamp", "duration", "date"))
                else na for d in dtypes]

        def missing(x):
            return x is None or (nat is not None and (x is nat or x is na))

        if not any(missing(x) for k in keys for x in (k if isinstance(k, tuple) else (k,))):
            return keys
        if len(fill) == 1:
            return [fill[0] if missing(k) else k for k in keys]
        return [tuple(f if missing(x) else x for x, f in zip(k, fill)) for k in keys]

    def _all_groups(self):
        """(keys, spans, order): each group's key in the group order (as
        _rows_by_group), its rows' span (start, size) in order; with
        observed=False and a categorical key also the levels' combinations
        no row has, with no rows (0, 0), where pandas puts them."""
        keys, order, starts = self._rows_by_group()
        spans = [(int(starts[i]), int(starts[i + 1] - starts[i])) for i in range(len(keys))]
        if not self._observed and self._has_categorical_key():
            at = dict(zip(keys, spans))
            t = self._run([_spec("size", None)])  # every combination of the levels
            keys = _ix.Index._from_columns([t.column(i) for i in range(len(self._k.keys))],
                                           list(self._k.labels)).to_list()
            spans = [at.get(k, (0, 0)) for k in keys]
        return keys, spans, order

    def _has_categorical_key(self):
        work = self._k.work
        return any(work.column(work.names.index(k)).dtype == "category" for k in self._k.keys)

    def _grouped_keys(self):
        t = _core.groupby(self._k.work, self._key_idx(), self._dropna, self._sort, [])
        nk = len(self._k.keys)
        return [t.column(i).to_device("cpu") for i in range(nk)], list(t.names[:nk])

    @property
    def indices(self):
        """A dict: each group's key -> the positions of its rows (a numpy
        int64 array, in row order), groups in the group order (sort,
        dropna).  Keys are scalars for one key, tuples for several; a
        missing key (dropna=False) is NaN, as pandas.  With
        observed=False an unused category of one categorical key maps to
        an empty array (pandas leaves out the empty combinations of
        several keys here, though ``groups`` and iteration give them).

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["b", "a", None, "b"], "v": [1, 2, 3, 4]})
        >>> {k: v.tolist() for k, v in df.groupby("k").indices.items()}
        {'a': [1], 'b': [0, 3]}
        """
        keys, spans, order = self._all_groups()
        keys = self._pandas_missing(keys, everywhere_nan=True)
        # pandas lists an empty group (observed=False) for one key only
        several = len(self._k.keys) > 1
        return {k: order[a:a + n] for k, (a, n) in zip(keys, spans) if n or not several}

    @property
    def groups(self):
        """A dict: each group's key -> the labels of its rows (an Index, in
        row order), as pandas' ``GroupBy.groups``; keys as iteration gives
        them.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["b", "a", None, "b"], "v": [1, 2, 3, 4]},
        ...                   index=[10, 11, 12, 13])
        >>> {k: v.to_list() for k, v in df.groupby("k").groups.items()}
        {'a': [11], 'b': [10, 13]}
        """
        keys, spans, order = self._all_groups()
        index = self._obj._index
        # the labels in group order once (one take), then a zero-copy slice per group
        grouped = index._take(_indexing.take_rows(
            _indexing.positions_column(order, len(index), "groups")))
        if not isinstance(grouped, _ix.Index) or grouped._cols is None:
            grouped = _ix.Index._from_columns(grouped._levels(), grouped.names)
        return {k: grouped._take(_indexing.slice_rows(a, n)) for k, (a, n) in zip(keys, spans)}

    def __iter__(self):
        """(key, rows) for each group, in the group order (sort, dropna):
        the key a scalar for one key (a 1-tuple when the keys were given as
        a list), a tuple for several; the rows a DataFrame of every column
        (the selected ones after ``gb[...]``), or a Series, in row order
        with their labels.  The rows are put in group order by one take,
        and each group is a zero-copy slice of that.  With observed=False
        every category of a categorical key is a group, an unused one with
        no rows.  A missing key (dropna=False) is NaN (NaT for times, NA for
        ints), as pandas.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["b", "a", "b"], "v": [1, 2, 3]}, index=[10, 11, 12])
        >>> [(k, g["v"].to_list(), g.index.to_list()) for k, g in df.groupby("k")]
        [('a', [2], [11]), ('b', [1, 3], [10, 12])]
        >>> [k for k, _ in df.groupby(["k"])]
        [('a',), ('b',)]
        """
        keys, spans, order = self._all_groups()
        obj = self._obj
        if obj._ndim == 2 and self._selection is not None:
            obj = obj[self._selection[0]] if self._single else obj[list(self._selection)]
        grouped = obj._select_rows(_indexing.take_rows(
            _indexing.positions_column(order, len(obj), "groupby")))
        wrap = len(self._k.keys) == 1 and self._k.listed
        for k, (start, size) in zip(keys, spans):
            yield (k,) if wrap else k, grouped._select_rows(_indexing.slice_rows(start, size))

    def get_group(self, name):
        """The rows of the group whose key is name (a tuple for several
        keys), in row order with their labels; the selected columns only
        after ``gb[...]``.  KeyError when no group has that key.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["b", "a", "b"], "v": [1, 2, 3]}, index=[10, 11, 12])
        >>> df.groupby("k").get_group("b")["v"].to_list()
        [1, 3]
        """
        keys, order, starts = self._rows_by_group()
        i = next((j for j, k in enumerate(keys) if _same_key(k, name)), None)
        if i is None:
            raise KeyError(name)
        obj = self._obj
        if obj._ndim == 2 and self._selection is not None:
            obj = obj[self._selection[0]] if self._single else obj[list(self._selection)]
        rows = order[starts[i]:starts[i + 1]]
        return obj._select_rows(_indexing.take_rows(
            _indexing.positions_column(rows, len(obj), "get_group")))


def _same_key(k, name):
    """Whether group key k is name, a missing value matching any missing
    value (NaN, None, NaT, NA) in the same place."""
    if isinstance(k, tuple) and isinstance(name, tuple):
        return len(k) == len(name) and all(_same_key(a, b) for a, b in zip(k, name))
    if _missing_value(k) or _missing_value(name):
        return _missing_value(k) and _missing_value(name)
    try:
        return bool(k == name)
    except (TypeError, ValueError):
        return False


def _missing_value(x):
    if x is None or (isinstance(x, float) and x != x):
        return True
    return type(x).__name__ in ("NaTType", "NAType")
