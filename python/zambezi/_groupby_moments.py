"""Group-by ``sem``, ``skew`` and ``kurt`` (a mixin of zambezi._groupby's
GroupBy), with pandas' names, arguments and formulas.

``sem`` is the square root of the engine's per-group variance (ddof)
divided by the per-group count, in pandas' order of operations (its
group_var: ``sqrt(m2 / (n - ddof) / n)``), so the digits are pandas' (a
float32 column: the float64 std over the root of the count, rounded to
float32; the engine's float32 variance is pandas' float32 one); ``skew`` and ``kurt`` are
the engine's per-group moments by the grouping's ids
(``_core.group_moment``, src/cpu/group_moments.c), which use the same
corrected two-pass sums and bias corrections as Series.skew / kurt.  A
group with too few values (sem 2 with ddof 1, skew 3, kurt 4) or, for
skew and kurt, without spread, gives a missing value (pandas: NaN); a
float32 column gives float32 (computed in float64), as pandas;
``skipna=False`` makes a group holding a missing value (null or NaN)
missing.  Without a column selection the numeric and bool columns take
part (pandas would raise for others unless numeric_only=True); a
selected column of another dtype raises DTypeError.  The names "sem",
"skew" and "kurt" also work in ``agg`` (a name, a list, a dict, named
aggregations) and ``transform``: GroupBy._run leaves a placeholder for
them in the engine's aggregation and ``_fill_moments`` makes the columns.
"""

import numpy as np

from zambezi import _core
from zambezi._convert import column_from_numpy, null_mask, to_numpy, values_numpy
from zambezi._groupby_columns import _NUMERIC, refuse as _refuse, spec as _spec
from zambezi.errors import DTypeError, InvalidValueError



def _sem_op(dtype):
    """The engine aggregation sem starts from for a column of dtype."""
    return "std" if dtype == "float32" else "var"


def _sem(col, cnt, dtype):
    """The sem column of per-group _sem_op(dtype) and count columns (one
    value a group, not a row): sqrt(var / n), or std / sqrt(n) from a std,
    null where col is."""
    v = np.asarray(values_numpy(col), dtype=np.float64)
    n = np.asarray(values_numpy(cnt), dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):   # an empty group: NaN, quietly
        res = v / np.sqrt(n) if _sem_op(dtype) == "std" else np.sqrt(v / n)
    return column_from_numpy(res) if null_mask(col) is None else _core.column_from_buffer(
        np.where(null_mask(col), 0.0, res), mask=null_mask(col))


class GroupByMoments:
    """sem, skew, kurt per group (a mixin of GroupBy)."""

    __slots__ = ()

    def _moment_columns(self, how, numeric_only):
        """The work columns a moment is computed for (numbers and bools)."""
        work = self._k.work
        cols = self._value_columns(None)
        out = []
        for c in cols:
            dt = work.column(work.names.index(c)).dtype
            if dt in _NUMERIC:
                out.append(c)
            elif numeric_only:
                continue
            elif self._selection is not None:
                raise DTypeError(f"groupby {how}: column {self._label(c)!r} has dtype {dt}; "
                                 "it needs numbers")
            else:   # pandas 3 raises for every column it cannot compute
                _refuse(how, dt, self._label(c))
        return out

    def _bad_groups(self, cols):
        """Per column, a bool numpy array over the groups: whether the group
        holds a missing value (null or NaN).  Vectorized over the rows."""
        ids, n = self._ids()
        idm = null_mask(ids)
        idv = np.asarray(values_numpy(ids), dtype=np.int64)
        work = self._k.work
        out = []
        for c in cols:
            col = work.column(work.names.index(c))
            miss = null_mask(col)
            miss = np.zeros(col.length, dtype=bool) if miss is None else miss.copy()
            if col.dtype in ("float32", "float64"):
                miss |= np.isnan(np.asarray(values_numpy(col), dtype=np.float64))
            if idm is not None:
                miss &= ~idm
            out.append(np.bincount(idv[miss], minlength=n)[:n] > 0)
        return out

    def _with_missing(self, table, bad):
        """table (keys, then one float column per entry of bad) with the
        groups marked in bad made NaN."""
        nk = table.num_columns - len(bad)
        cols = [table.column(i) for i in range(table.num_columns)]
        for j, b in enumerate(bad):
            if b.any():
                v = np.asarray(to_numpy(cols[nk + j]), dtype=np.float64).copy()
                v[b] = np.nan
                cols[nk + j] = column_from_numpy(v)
        return _core.table_from_columns(cols, list(table.names))

    def _fill_moments(self, table, work, where):
        """table (keys, then one column per aggregation) with the sem /
        skew / kurt columns made: (result position, work column, op, ddof)
        tuples (GroupBy._run puts a placeholder there).  Groups in the
        table's order: the grouping's ids, as every aggregation uses."""
        nk = len(self._k.keys)
        cols = [table.column(i) for i in range(table.num_columns)]
        ids = n = None
        for i, ci, op, ddof in where:
            col = work.column(ci)
            if col.dtype not in _NUMERIC:
                raise DTypeError(f"groupby {op}: column {self._label(work.names[ci])!r} has "
                                 f"dtype {col.dtype}; it needs numbers")
            if op == "sem":
                t = self._aggregate(work, [(_sem_op(col.dtype), ci, -1, int(ddof), 0.5, False, "s"),
                                           ("count", ci, -1, 1, 0.5, False, "c")])
                res = _sem(t.column(t.num_columns - 2), t.column(t.num_columns - 1), col.dtype)
            else:
                if ids is None:
                    ids, n = self._ids()
                res = _core.group_moment(col, ids, n, op, True)
                if n == 0:   # no group: pandas keeps the column's dtype (see _moment)
                    res = _core.cast(res, col.dtype)
            if col.dtype == "float32":   # pandas keeps float32
                res = _core.cast(res, "float32")
            cols[nk + i] = res
        return _core.table_from_columns(cols, list(table.names))

    def _moment_finish(self, table, cols):
        # pandas gives float32 for float32 columns (computed in float64)
        work = self._k.work
        nk = table.num_columns - len(cols)
        if any(work.column(work.names.index(c)).dtype == "float32" for c in cols):
            out = [table.column(i) for i in range(table.num_columns)]
            for j, c in enumerate(cols):
                if work.column(work.names.index(c)).dtype == "float32":
                    out[nk + j] = _core.cast(out[nk + j], "float32")
            table = _core.table_from_columns(out, list(table.names))
        labels = [self._label(c) for c in cols]
        if self._single:
            return self._finish(table, labels, labels[0], series=True)
        return self._finish(table, labels)

    def sem(self, ddof=1, numeric_only=False, skipna=True):
        """The standard error of the mean per group: std(ddof) divided by
        the square root of the number of values, as pandas (missing with
        fewer than ddof + 1 values; with skipna=False, for a group holding
        a missing value).

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "a", "a", "b"], "x": [1.0, 2.0, 4.0, 3.0]})
        >>> round(df.groupby("k")["x"].sem().to_list()[0], 6)
        0.881917
        """
        if isinstance(ddof, bool) or not isinstance(ddof, (int, np.integer)):
            raise InvalidValueError(f"sem: ddof must be an integer, not {ddof!r}")
        cols = self._moment_columns("sem", numeric_only)
        specs = []
        work = self._k.work
        for c in cols:
            specs += [_spec(_sem_op(work.column(work.names.index(c)).dtype), c, int(ddof)),
                      _spec("count", c)]
        table = self._run(specs, f32=False)
        nk = len(self._k.keys)
        keys = [table.column(i) for i in range(nk)]
        vals = [_sem(table.column(nk + 2 * j), table.column(nk + 2 * j + 1),
                     work.column(work.names.index(c)).dtype) for j, c in enumerate(cols)]
        out = _core.table_from_columns(keys + vals, list(table.names[:nk]) +
                                       [f"__sem{j}" for j in range(len(cols))])
        if not skipna:
            out = self._with_missing(out, self._bad_groups(cols))
        return self._moment_finish(out, cols)

    def _moment(self, how, skipna, numeric_only, kwargs):
        if kwargs:
            raise InvalidValueError(f"groupby {how}: unexpected arguments {sorted(kwargs)}")
        if not isinstance(skipna, (bool, np.bool_)):
            raise InvalidValueError(f"groupby {how}: skipna must be a bool, not {skipna!r}")
        cols = self._moment_columns(how, numeric_only)
        work = self._k.work
        keys_table = self._aggregate(work, [])
        ids, n = self._ids()
        nk = len(self._k.keys)
        vals = [_core.group_moment(work.column(work.names.index(c)), ids, n, how, bool(skipna))
                for c in cols]
        if n == 0:   # no group: pandas keeps each column's dtype (int, bool) for skew / kurt
            vals = [_core.cast(v, work.column(work.names.index(c)).dtype)
                    for v, c in zip(vals, cols)]
        table = _core.table_from_columns(
            [keys_table.column(i) for i in range(nk)] + vals,
            list(keys_table.names[:nk]) + [f"__{how}{j}" for j in range(len(cols))])
        if not self._observed:  # a categorical key's unseen levels: missing, as pandas
            from zambezi import _groupby_observed

            table = _groupby_observed.widen(table, nk, [how] * len(cols), self._sort,
                                            self._key_columns(), self._dropna)
        return self._moment_finish(table, cols)

    def skew(self, skipna=True, numeric_only=False, **kwargs):
        """The skewness of each group's values (pandas' adjusted
        Fisher-Pearson coefficient); missing with fewer than 3 values or
        when they do not vary.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "a", "a", "b"], "x": [1.0, 2.0, 4.0, 3.0]})
        >>> round(df.groupby("k")["x"].skew().to_list()[0], 5)
        0.93522
        """
        return self._moment("skew", skipna, numeric_only, kwargs)

    def kurt(self, skipna=True, numeric_only=False, **kwargs):
        """The excess kurtosis of each group's values (pandas' unbiased
        Fisher kurtosis); missing with fewer than 4 values or when they do
        not vary.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a"] * 4, "x": [1.0, 2.0, 4.0, 8.0]})
        >>> round(df.groupby("k")["x"].kurt().to_list()[0], 6)
        0.757656
        """
        return self._moment("kurt", skipna, numeric_only, kwargs)
