"""Group-by correlation and covariance matrices (a mixin of
zambezi._groupby's GroupBy), with pandas' names, arguments and shapes:
``gb.corr()`` / ``gb.cov()`` on a frame's groups give, per group, the
matrix of its value columns (index: the keys and the column's label,
columns: the labels), and ``gb["x"].corr(other)`` / ``cov(other)`` a
value per group against another Series (aligned on the labels).

Each pair uses the rows where both columns have a value (pandas'
pairwise-complete observations).  Pearson correlation is the engine's
per-group ``corr`` aggregation; a covariance is computed from the
engine's per-group variances of the pair's masked columns and of their
sum, ``(var(a + b) - var(a) - var(b)) / 2`` (all three over the same
rows, with ddof), so no pass over the rows runs in Python.  ``min_periods``
leaves a pair missing when fewer rows than that hold both; ``ddof``
applies to every group (pandas applies it only to a group without
missing values, its DataFrame.cov's rule).  The Spearman
and Kendall methods raise UnsupportedError (the accelerator gives them
to pandas).  A missing result is null (pandas: NaN); with
``as_index=False`` the keys are left out, as pandas does.
"""

import numpy as np

from zambezi import _base, _core, _labels
from zambezi import index as _ix
from zambezi._convert import to_column, to_numpy
from zambezi._groupby_moments import _NUMERIC
from zambezi.errors import ColumnNotFoundError, DTypeError, InvalidValueError, UnsupportedError


def _floats(col):
    """A per-group engine result as float64 numpy with NaN for missing."""
    return np.asarray(to_numpy(col), dtype=np.float64)


class GroupByPairs:
    """corr / cov matrices per group (a mixin of GroupBy)."""

    __slots__ = ()

    def corr(self, a=None, b=None, name="corr", *, method="pearson", min_periods=None,
             numeric_only=False, other=None):
        """Pearson correlation within each group, as pandas (see
        zambezi._groupby_pairs): on a frame's groups ``gb.corr(method,
        min_periods=1, numeric_only)`` gives the matrix of the value columns
        per group (index: the keys and the column label); on one column
        ``gb["x"].corr(other, method, min_periods)`` a value per group
        against another Series.  zambezi's pair form ``gb.corr("a", "b",
        name="corr")`` gives the correlation of two columns per group as a
        Series named ``name`` (with ``as_index=False`` the keys and a
        ``name`` column).  Pairs use the rows where both have a value.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").corr("fare", "n").to_list()
        [1.0, None]
        >>> df.groupby("city").corr()["n"].to_list()
        [1.0, 1.0, None, 1.0]
        >>> df.groupby("city")["fare"].corr(df["n"]).to_list()
        [1.0, None]
        """
        single = self._obj._ndim == 1 or self._single
        if isinstance(a, str) and isinstance(b, str) and not single and \
                a not in ("pearson", "spearman", "kendall"):
            return self._corr_pair(a, b, name)
        if single:
            other = a if other is None else other
            method = b if isinstance(b, str) else method
            if other is None:
                raise TypeError("GroupBy.corr of one column needs the other Series")
            return self._pair_other("corr", other, method, min_periods)
        method = a if isinstance(a, str) else method
        min_periods = b if b is not None else (1 if min_periods is None else min_periods)
        return self._pair_matrix("corr", method, min_periods, numeric_only)

    def cov(self, *args, min_periods=None, ddof=1, numeric_only=False, other=None):
        """Covariance within each group, as pandas (see zambezi._groupby_pairs):
        on a frame's groups ``gb.cov(min_periods, ddof, numeric_only)`` the
        matrix of the value columns per group; on one column
        ``gb["x"].cov(other, min_periods, ddof)`` a value per group against
        another Series.  Pairs use the rows where both have a value.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "a", "b", "b", "a"],
        ...                    "x": [1.0, 2.0, 3.0, 5.0, 3.0], "y": [2.0, 4.0, 1.0, 1.0, 6.0]})
        >>> df.groupby("k").cov()["y"].to_list()
        [2.0, 4.0, 0.0, 0.0]
        >>> df.groupby("k")["x"].cov(df["y"]).to_list()
        [2.0, 0.0]
        """
        single = self._obj._ndim == 1 or self._single
        args = list(args)
        if single:
            other = args.pop(0) if other is None and args else other
            if other is None:
                raise TypeError("GroupBy.cov of one column needs the other Series")
        if args:
            min_periods = args.pop(0)
        if args:
            ddof = args.pop(0)
        if args:
            raise TypeError(f"GroupBy.cov: too many arguments ({len(args)} left)")
        if single:
            return self._pair_other("cov", other, "pearson", min_periods, ddof)
        return self._pair_matrix("cov", "pearson", min_periods, numeric_only, ddof)

    def _corr_pair(self, a, b, name):
        if self._obj._ndim != 2:
            raise InvalidValueError("GroupBy.corr(a, b) correlates two columns of a frame")
        for c in (a, b):
            if c not in self._obj._table.names:
                raise ColumnNotFoundError(
                    f"no column named {c!r}; the columns are {self._obj._table.names!r}")
        table = self._run([("corr", a, b, 0, 0.0, False)])
        if not self._as_index:
            return self._finish(table, [name])
        return self._finish(table, [name], name, series=True)

    def _pair_columns(self, what, numeric_only):
        work = self._k.work
        cols = self._value_columns()
        kept = [c for c in cols if work.column(work.names.index(c)).dtype in _NUMERIC]
        if len(kept) != len(cols) and not numeric_only:
            bad = next(c for c in cols if c not in kept)
            raise DTypeError(f"{what}: column {self._label(bad)!r} is not numeric; pass "
                             "numeric_only=True to leave such columns out")
        return kept

    def _pair_stats(self, series, pairs, kind, ddof, add=None):
        """(keys table, {(a, b): (value, rows holding both)}): per-group
        float64 numpy for each pair of work column names (add: more columns
        by name), by one engine group-by; series(name) is the column as a
        Series."""
        from zambezi._groupby import GroupBy, _Keys

        work = self._k.work
        names = list(work.names) + list(add or {})
        cols = [work.column(i) for i in range(work.num_columns)] + list((add or {}).values())
        specs, slots = [], {}
        for a, b in pairs:
            sa, sb = series(a), series(b)
            both = sa.notna() & sb.notna()
            extra = [sa.where(both)._col, sb.where(both)._col, (sa + sb)._col] \
                if kind == "cov" and a != b else [sa.where(both)._col]
            base = len(names)
            for k, c in enumerate(extra):
                names.append(f"__pair{len(slots)}_{k}")
                cols.append(c)
            slots[(a, b)] = base
            if kind == "corr":
                specs.append(("corr", a, b, 0, 0.0, False))
            else:
                specs += [("var", names[base + k], None, ddof, 0.5, False)
                          for k in range(len(extra))]
            specs.append(("count", names[base], None, 0, 0.5, False))
        keys = _Keys(_core.table_from_columns(cols, names), list(self._k.keys),
                     list(self._k.labels), list(self._k.values), list(self._k.value_labels))
        gb = GroupBy(self._obj, keys, self._sort, self._dropna, None, False, True,
                     self._observed)
        table = gb._run(specs)
        nk = len(self._k.keys)
        out, at = {}, nk
        for a, b in pairs:
            if kind == "corr":
                val = _floats(table.column(at))
                at += 1
            elif a == b:
                val = _floats(table.column(at))
                at += 1
            else:
                va, vb, vs = (_floats(table.column(at + k)) for k in range(3))
                val = (vs - va - vb) / 2
                at += 3
            out[(a, b)] = (val, _floats(table.column(at)))
            at += 1
        return table, out

    def _pair_matrix(self, kind, method, min_periods, numeric_only, ddof=1):
        if method != "pearson":
            raise UnsupportedError(f"GroupBy.{kind}: method={method!r} is not supported "
                                   "(only 'pearson')")
        if self._obj._ndim != 2:
            raise UnsupportedError(f"GroupBy.{kind}: a Series' groups need the other Series "
                                   f"(gb.{kind}(other))")
        cols = self._pair_columns(kind, numeric_only)
        m = len(cols)
        work = self._k.work
        series = _base.series_class()
        n = work.num_rows
        index = _ix.default_index(n)

        def col(name):
            return series._from_column(work.column(work.names.index(name)), None, index)

        pairs = [(a, b) for i, a in enumerate(cols) for b in cols[i:]]
        table, stats = self._pair_stats(col, pairs, kind, ddof)
        nk = len(self._k.keys)
        G = table.num_rows
        labels = [self._label(c) for c in cols]
        out_cols = []
        for j, b in enumerate(cols):
            v = np.empty(G * m, dtype=np.float64)
            for i, a in enumerate(cols):
                val, cnt = stats[(a, b)] if i <= j else stats[(b, a)]
                if min_periods is not None:
                    val = np.where(cnt < min_periods, np.nan, val)
                v[i::m] = val
            out_cols.append(to_column(v))
        rep = _core.column_from_buffer(np.repeat(np.arange(G, dtype=np.int64), m))
        lab = _core.take(to_column(labels), _core.column_from_buffer(
            np.tile(np.arange(m, dtype=np.int64), G)))
        frame_cls = self._obj._constructor
        if not self._as_index:  # pandas leaves the keys out
            index = _ix.Index._from_columns([lab], [None])
        else:
            keys = [_core.take(table.column(k), rep) for k in range(nk)]
            index = _ix.Index._from_columns(keys + [lab], list(self._k.labels) + [None])
        return _labels.frame_from(frame_cls, out_cols, labels, index)

    def _pair_other(self, kind, other, method, min_periods, ddof=1):
        """gb["x"].corr(other) / cov(other): per group, the selected column
        against other (a Series aligned on the labels, or values as long)."""
        if method != "pearson":
            raise UnsupportedError(f"GroupBy.{kind}: method={method!r} is not supported "
                                   "(only 'pearson')")
        src = self._obj if self._obj._ndim == 1 else self._obj[self._selection[0]]
        series = _base.series_class()
        if not _base.is_series(other):
            other = series(other)
            if len(other) != len(src):
                raise DTypeError(f"GroupBy.{kind}: other has {len(other)} values for "
                                 f"{len(src)} rows")
        elif not other._index.equals(src._index):
            other = other.reindex(src._index)
        name = self._k.values[0] if self._obj._ndim == 1 else self._selection[0]
        work = self._k.work
        index = _ix.default_index(work.num_rows)
        cols = {name: series._from_column(work.column(work.names.index(name)), None, index),
                "__other": series._from_column(other._col, None, index)}
        table, stats = self._pair_stats(cols.__getitem__, [(name, "__other")], kind, ddof,
                                        {"__other": other._col})
        val, cnt = stats[(name, "__other")]
        if min_periods is not None:
            val = np.where(cnt < min_periods, np.nan, val)
        nk = len(self._k.keys)
        t = _core.table_from_columns([table.column(k) for k in range(nk)] + [to_column(val)],
                                     [f"__k{k}" for k in range(nk)] + ["__v"])
        return self._finish(t, [src._name], src._name, series=True)
