"""DataFrame.groupby and Series.groupby: split rows into groups of equal
keys and aggregate.

Everything runs in C (``_core.groupby``, ``groupby_ids``, ``group_ids``,
``group_cumcount`` in src/python/groupby.c, the engine in
src/cpu/groupby*.c) with the GIL released; nothing here loops over rows.
A GroupBy groups its keys once, at its first aggregation, and keeps each
row's group (an int64 per row, the key columns per group: see _Grouping);
later aggregations on it and on its column selections (``gb["col"]``)
aggregate by those ids, as pandas reuses its grouper.

Result shapes are pandas' (3.x):

- ``as_index=True`` (the default): the keys are the result's index (an
  Index named by the key for one key, a MultiIndex for several); an
  aggregation of one selected column (``gb["col"].sum()``, or any
  ``Series.groupby``) is a Series named by the column, else a DataFrame.
  ``as_index=False``: the keys are the first columns of a DataFrame
  numbered 0..n-1.
- ``size()`` is a Series (no name; a selected column's name) -- with
  ``as_index=False`` a frame with a ``"size"`` column.
- ``agg`` with a list of functions, or a dict with a list among its
  values, labels the columns with a MultiIndex (column, function) -- a
  list on one selected column gives plain function-named columns; named
  aggregation ``out=("col", "func")`` gives plain columns.
- ``head``, ``tail``, ``nth``, ``cumcount`` and ``transform`` keep the
  rows' labels (pandas' filter and transform semantics).
- Keys are column names, Series or arrays as long as the frame (a Series
  must have the frame's index: zambezi does not align keys by label), or
  index levels (``level=``).

Group order and missing keys as pandas: ``sort=True`` orders groups by
the keys ascending, nulls last (strings byte-wise, categoricals in category
order); ``sort=False`` keeps the order of first appearance.
``dropna=True`` (the default) leaves out rows with a null (or NaN) in any
key; ``dropna=False`` makes nulls a group of their own.  Categorical keys
show only observed categories (pandas' default ``observed=True``);
``observed=False`` makes every category a group in the aggregations
(zambezi._groupby_observed), as pandas.

Differences from pandas:

- ``corr(a, b)``: the Pearson correlation of columns a and b within each
  group, a Series named ``"corr"`` indexed by the keys (pandas needs
  ``gb[[a, b]].corr()``, which returns a per-group matrix).
- Without a column selection, numeric aggregations (sum, mean, std, var,
  median, quantile, prod, any, all) use the numeric and bool columns and
  min/max also strings, dates and timestamps (pandas' numeric_only=True;
  pandas 3 would concatenate strings for ``sum``); with an explicit
  selection an unsupported column raises DTypeError.
- Aggregation results use nullable types: a group with no values gives a
  null mean/min/max/std (pandas: NaN);
  ``transform`` and ``cumcount`` give null (not NaN, which would make an
  integer column float) for rows whose key was dropped.
- Function names (or the numpy / builtin functions of those names) run in
  the engine; any other Python function given to ``agg`` or
  ``transform``, and ``apply`` / ``filter``, is called once per group
  (zambezi._apply): pandas' contract, and slow.
"""

import functools
import types

import numpy as np

from zambezi import _base, _convert, _core, _indexing, _labels, _numba
from zambezi._compute import _missing_mask
from zambezi import index as _ix
from zambezi._convert import _is_pandas
from zambezi._window import SMALL_INTS, GroupByWindow, narrow_back
from zambezi._rank import GroupByRank
from zambezi import _resample
from zambezi._ewm import GroupByEWM
from zambezi._rolling import GroupByRolling
from zambezi._apply import GroupByApply, _agg_value, group_agg_python
from zambezi._groupby_counts import GroupByValueCounts
from zambezi._groupby_describe import GroupByDescribe
from zambezi._groupby_idx import GroupByIdx
from zambezi._groupby_extreme import GroupByExtreme
from zambezi._groupby_sample import GroupBySample
from zambezi._groupby_columns import (edge_rows, is_own_column as _is_own_column,
                                      mask_short_groups, refuse as _refuse,
                                      spec as _spec, truth as _truth)
from zambezi._groupby_moments import GroupByMoments
from zambezi._groupby_pairs import GroupByPairs
from zambezi._groupby_split import GroupBySplit
from zambezi import _groupby_observed
from zambezi._dtypes import NUMERIC as _NUMERIC
from zambezi.errors import (
    ColumnNotFoundError,
    DTypeError,
    InvalidValueError,
    UnsupportedError,
)

_ORDERED = ("string", "date32", "timestamp", "duration")
# aggregations of a duration column: of its int64 counts, a duration again
_DURATION_OPS = frozenset(["sum", "mean", "median", "std", "quantile"])
_NUMERIC_OPS = frozenset(["sum", "mean", "std", "var", "median", "quantile", "prod", "any",
                          "all", "sem", "skew", "kurt"])
_ALL_OPS = frozenset(["sum", "mean", "min", "max", "count", "size", "std", "var", "median",
                      "quantile", "first", "last", "nunique", "prod", "any", "all",
                      "list", "sem", "skew", "kurt"])
# made after the engine's group-by (zambezi._groupby_moments): _run fills them
_MOMENT_OPS = frozenset(["sem", "skew", "kurt"])  # list: each group's values as a list (zambezi._lists)
_ALIASES = {"product": "prod", "nanmean": "mean", "average": "mean"}
# aggregations whose float32 result pandas keeps float32 (the engine computes
# them in float64; mean: see GroupBy._mean_as_float64); quantile of float32
# is float64 in pandas too
_F32_OPS = frozenset(["sum", "mean", "prod", "std", "var", "median"])


# the aggregations of times that run on their int64 counts, and what their
# result is: a time again, or a duration (pandas' group-by of datetimes)
_TIME_OPS = {"mean": "timestamp", "median": "timestamp", "quantile": "timestamp",
             "std": "duration"}


def _time_result(op, dtype):
    """("duration" | "timestamp") when op of a column of dtype runs on its
    int64 counts and comes back as that kind, else None."""
    if dtype.startswith("duration"):
        return "duration" if op in _DURATION_OPS else None
    if dtype.startswith("timestamp"):
        return _TIME_OPS.get(op)
    return None


def _has_missing_float(col):
    """Whether float column col holds a missing value (null or NaN)."""
    return bool(col.null_count) or bool(np.isnan(_convert.values_numpy(col)).any())


def _float32_back(table, nkeys, where):
    """table with the aggregations at result positions `where` (of float32
    columns, computed in float64) cast back to float32, as pandas gives
    them."""
    if not where:
        return table
    cols = [table.column(i) for i in range(table.num_columns)]
    for i in where:
        if cols[nkeys + i].dtype == "float64":
            cols[nkeys + i] = _core.cast(cols[nkeys + i], "float32")
    return _core.table_from_columns(cols, list(table.names))


def _small_ints_back(table, nkeys, where):
    """table with the sums and products at result positions `where` (of
    narrower integer columns of the dtypes given, computed in 64 bits) in
    those dtypes where every result fits (zambezi._window.narrow_back)."""
    cols = [table.column(i) for i in range(table.num_columns)]
    for i, dtype in where:
        cols[nkeys + i] = narrow_back(cols[nkeys + i], dtype)
    return _core.table_from_columns(cols, list(table.names))


def _counts_as_times(table, nkeys, units):
    """The engine's result with the aggregations listed in units (result
    position -> (kind, unit, tz)) turned back into durations or times;
    float results (mean, median, std) are truncated to whole units, as
    pandas does."""
    cols = [table.column(i) for i in range(table.num_columns)]
    for i, (kind, unit, tz) in units.items():
        c = cols[nkeys + i]
        if c.dtype != "int64":
            c = _core.cast(c, "int64")
        if kind == "duration":
            cols[nkeys + i] = _core.cast(c, f"duration[{unit}]")
        else:  # the instants as they were, with their zone
            cols[nkeys + i] = _core.column_from_buffer(
                _convert.values_numpy(c).view(np.int64), mask=_convert.null_mask(c), unit=unit,
                tz=tz)
    return _core.table_from_columns(cols, list(table.names))


def _accepts(op, dtype):
    if op == "sum" and dtype == "string":   # pandas joins a group's strings
        return True
    if op == "quantile" and dtype == "bool":   # pandas refuses it
        return False
    if op in ("any", "all"):   # of each value's truth (_truth); pandas refuses times
        return not dtype.startswith(("list", "timestamp"))
    if op in _NUMERIC_OPS:
        return dtype in _NUMERIC or _time_result(op, dtype) is not None
    if op in ("min", "max"):
        return dtype in _NUMERIC or dtype.startswith(_ORDERED)
    return True


def _op_name(func):
    if callable(func):
        func = getattr(func, "__name__", func)
    if not isinstance(func, str):
        raise DTypeError(f"aggregation must be a function name, not {type(func).__name__}")
    func = _ALIASES.get(func, func)
    if func not in _ALL_OPS:
        raise InvalidValueError(
            f"unknown aggregation {func!r}; expected one of {sorted(_ALL_OPS)}")
    return func


_BUILTIN_OPS = {max: "max", min: "min", sum: "sum"}


def _builtin(func):
    """Python's own max, min or sum (pandas 3 calls them per group as
    functions, with Python's rules: max of [nan, 1.0] is nan, sum adds in
    order, a categorical's values compare as its values)."""
    return type(func) is types.BuiltinFunctionType and func in _BUILTIN_OPS


def _builtin_route(func, cols):
    """How Python's max / min / sum runs per group on the engine columns
    cols: "engine" where the engine's aggregation of that name gives
    Python's answer (numbers without missing values; for sum, integers,
    as floats add in another order), "python" (called per group, as
    pandas 3 calls it: strings, categoricals by their values), or an
    UnsupportedError for missing values (Python's rules give nan or fail
    there: max of [nan, 1.0] is nan; pass the name to skip them)."""
    op = _BUILTIN_OPS[func]
    route = "engine"
    for col in cols:
        if _missing_mask(col).reduce("sum"):
            raise UnsupportedError(
                f"Python's {op} per group over missing values (pandas 3 calls it with "
                f"Python's rules, where NaN is no missing value: max of [nan, 1.0] is nan); "
                f"pass {op!r} to skip them")
        dt = col.dtype
        if not (dt.startswith(("int", "uint")) or op != "sum" and dt.startswith("float")):
            route = "python"
    return route


def _python_func(func):
    """Whether func is a Python function the engine has no aggregation
    for (zambezi._apply calls it per group)."""
    if not callable(func) or isinstance(func, str):
        return False
    name = getattr(func, "__name__", None)
    return _ALIASES.get(name, name) not in _ALL_OPS or \
        getattr(func, "__module__", None) not in ("numpy", "builtins")


def _func_label(func):
    """The label pandas gives a function's column: its name as given (a
    functools.partial's or a wrapper's: its function's)."""
    if isinstance(func, str):
        return func
    while True:  # through partials and wrappers (functools.wraps' __wrapped__)
        if isinstance(func, functools.partial):
            func = func.func
        elif getattr(func, "__wrapped__", None) is not None:
            func = func.__wrapped__
        else:
            return getattr(func, "__name__", str(func))


def _list_labels(funcs):
    """The labels of a list of functions: lambdas numbered <lambda_0>,
    <lambda_1> ... when the list holds more than one function, as pandas."""
    labels, i = [], 0
    for f in funcs:
        lb = _func_label(f)
        if lb == "<lambda>" and len(funcs) > 1:
            lb, i = f"<lambda_{i}>", i + 1
        labels.append(lb)
    return labels


# what skipna=False changes: a group with a missing value gets a missing value
# (first / last take the edge row as it is; any / all read it as True)
_SKIPNA_OPS = frozenset(["any", "all", "sum", "prod", "min", "max", "mean", "median", "std",
                         "var", "first", "last"])


def _plain_engine(what, engine):
    """Refuse the engines pandas' reductions take but zambezi's do not."""
    if engine not in (None, "cython"):
        raise UnsupportedError(f"GroupBy.{what}: engine={engine!r} is not supported")


class _Keys:
    """What a groupby is over: ``work``, an engine Table holding the key
    columns and the value columns under unique names; ``keys`` the names
    of the key columns in it; ``labels`` the index names the keys give;
    ``values`` the names of the columns that can be aggregated, in order,
    and ``value_labels`` their labels in results.  ``groupings`` keeps the
    grouping of the rows per (dropna, sort) once made (see _Grouping): a
    GroupBy and the column selections made from it share this object, so
    they group the keys once."""

    __slots__ = ("work", "keys", "labels", "values", "value_labels", "groupings", "listed")

    def __init__(self, work, keys, labels, values, value_labels):
        self.work, self.keys, self.labels = work, keys, labels
        self.values, self.value_labels = values, value_labels
        self.groupings = {}
        # the keys were given as a list (or tuple): one key's groups are then
        # named by 1-tuples when iterating, as pandas
        self.listed = False


class _Grouping:
    """The rows' groups, made once: ``ids`` (an int64 engine column, each
    row's group, null where dropna left the row out), ``n`` groups, and
    ``keys`` (the key columns, one value per group, named ``names``).  It
    lives as long as the GroupBy objects that share its _Keys: an int64
    per row, plus the keys."""

    __slots__ = ("ids", "n", "keys", "names")

    def __init__(self, ids, n, keys, names):
        self.ids, self.n, self.keys, self.names = ids, n, keys, names


def _key_column(obj, key, what):
    """An engine column from a Series / array / Index key as long as obj,
    and the label it gives."""
    n = len(obj)
    meta = getattr(key, "_meta", None) if type(key).__module__.startswith("dask") else None
    if meta is not None and (_base.is_series(meta) or _is_pandas(meta, "Series")):
        # a Dask expression or collection: Dask groups its meta (no rows) by it
        # to surface errors early, as pandas allows; its meta has the same form
        key = meta
    if _base.is_series(key):
        if len(key) != n:
            raise InvalidValueError(f"{what}: a key of {len(key)} values for {n} rows")
        if key._index is not obj._index and not key._index.equals(obj._index):
            raise UnsupportedError(
                f"{what}: the key Series has other row labels than the grouped object; "
                "aligning keys by label is not supported (reindex the key first)")
        return key._col, key.name
    if isinstance(key, _ix.Index):
        if key.nlevels != 1 or len(key) != n:
            raise InvalidValueError(f"{what}: an Index key must have one level and {n} labels")
        return key._levels()[0], key.name
    if _is_pandas(key, "Series") or _is_pandas(key, "Index") or hasattr(key, "__array__"):
        s = _base.series_class()(key)
        if len(s) != n:
            raise InvalidValueError(f"{what}: a key of {len(s)} values for {n} rows")
        return s._col, s.name
    raise DTypeError(f"{what}: keys are column names, Series or arrays, not "
                     f"{type(key).__name__}")


def _label_key(obj, key, what):
    """A key that is not a column: the name of an index level (pandas groups
    by that level), or a function of each row's index label (called once per
    row, as pandas calls it).  The key column and its label, or None."""
    index = obj._index
    if callable(key) and not isinstance(key, type):
        labels = index.to_list()
        s = _base.series_class()([key(v) for v in labels]) if labels else \
            _base.series_class()([], dtype="float64")
        # pandas names the groups by the index's name
        return s._col, index.names[0] if index.nlevels == 1 else None
    if isinstance(key, str) and key in index.names:
        return index._levels()[index.names.index(key)], key
    return None


def _level_keys(obj, level):
    index = obj._index
    levels = level if isinstance(level, (list, tuple)) else [level]
    if not levels:   # pandas' own messages
        raise InvalidValueError("No group keys passed!")
    if index.nlevels == 1:
        if len(levels) > 1:
            raise InvalidValueError("multiple levels only valid with MultiIndex")
        lv = levels[0]
        if isinstance(lv, (int, np.integer)) and lv not in index.names and lv not in (0, -1):
            raise InvalidValueError("level > 0 or level < -1 only valid with MultiIndex")
    nums = [index._level_number(lv) for lv in levels]
    cols = index._levels()
    return [cols[i] for i in nums], [index.names[i] for i in nums]


def _frame_keys(df, by, level):
    t = df._table
    names = t.names
    if level is not None:
        if by is not None:
            raise InvalidValueError("groupby takes by or level, not both")
        kcols, klabels = _level_keys(df, level)
        extra, keys, exclude = kcols, None, set()
    else:
        if by is None:
            raise InvalidValueError("groupby needs by (column names or keys) or level")
        items = by if isinstance(by, list) else [by]
        if not items:
            raise InvalidValueError("groupby needs at least one key column")
        extra, keys, klabels, exclude = [], [], [], set()
        for k in items:
            found = None if isinstance(k, str) and k in names else _label_key(df, k, "groupby")
            if isinstance(k, str) and found is None:
                if k not in names:
                    raise ColumnNotFoundError(
                        f"no column named {k!r}; the columns are {names!r}")
                keys.append(k)
                klabels.append(k)
                exclude.add(k)
            else:
                col, label = found if found is not None else _key_column(df, k, "groupby")
                if col.device != t.device:
                    col = col.to_device(t.device)
                keys.append(None)
                extra.append(col)
                klabels.append(label)
                if found is None and _is_own_column(df, k, col):
                    exclude.add(k.name)   # pandas: a key that is the frame's column
    if not extra:
        values = [c for c in names if c not in exclude]
        return _Keys(t, keys, klabels, values, values)
    extra_names = []
    for i in range(len(extra)):
        nm = f"__key{i}"
        while nm in names:
            nm = "_" + nm
        extra_names.append(nm)
    work = _core.table_from_columns([t.column(i) for i in range(t.num_columns)] + extra,
                                    list(names) + extra_names)
    it = iter(extra_names)
    keys = [next(it) for _ in extra] if keys is None else \
        [k if k is not None else next(it) for k in keys]
    values = [c for c in names if c not in exclude]
    return _Keys(work, keys, klabels, values, values)


def _series_keys(s, by, level):
    if level is not None:
        if by is not None:
            raise InvalidValueError("groupby takes by or level, not both")
        kcols, klabels = _level_keys(s, level)
    else:
        if by is None:
            raise InvalidValueError("Series.groupby needs by (Series or arrays) or level")
        items = by if isinstance(by, list) and by and not isinstance(by[0], (int, float, str,
                                                                              bool)) else [by]
        kcols, klabels = [], []
        for k in items:
            found = _label_key(s, k, "Series.groupby")
            if isinstance(k, str) and found is None:
                raise DTypeError("Series.groupby takes Series, arrays, functions of the "
                                 "index label or index level names as keys (or level=), "
                                 f"not {k!r}, which names no index level")
            col, label = found if found is not None else _key_column(s, k, "Series.groupby")
            if col.device != s._col.device:
                col = col.to_device(s._col.device)
            kcols.append(col)
            klabels.append(label)
    knames = [f"__key{i}" for i in range(len(kcols))]
    work = _core.table_from_columns(kcols + [s._col], knames + ["__value"])
    return _Keys(work, knames, klabels, ["__value"], [s.name])


class GroupBy(GroupByWindow, GroupByRank, GroupByRolling, GroupByEWM, GroupByApply,
              GroupByValueCounts, GroupByMoments, GroupByIdx, GroupByDescribe,
              GroupByExtreme, GroupBySample, GroupByPairs, GroupBySplit):
    """The rows of a DataFrame or Series grouped by keys: what
    ``groupby`` returns.  Select columns with ``gb["col"]`` (results are
    Series), ``gb[["a", "b"]]`` or ``gb.col``, then aggregate.  Results
    have the keys as their index (``as_index=True``, the default) or as
    their first columns (``as_index=False``).

    Examples
    --------
    >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
    ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
    >>> df.groupby("city").sum()
              fare      n
           float64  int64
    city
    Maun        16      4
    Tete       3.5      7
    <BLANKLINE>
    [2 rows x 2 columns]
    >>> df.groupby("city", dropna=False)["n"].count()
    city
    Maun    2
    Tete    2
    <NA>    1
    Name: n, dtype: int64
    """

    __slots__ = ("_obj", "_k", "_sort", "_dropna", "_selection", "_single", "_as_index",
                 "_observed")

    def __init__(self, obj, keys, sort=True, dropna=True, selection=None, single=False,
                 as_index=True, observed=True):
        self._obj = obj
        self._observed = bool(observed)
        self._k = keys
        self._sort = bool(sort)
        self._dropna = bool(dropna)
        self._selection = selection
        self._single = single
        self._as_index = bool(as_index)

    # -- selection ------------------------------------------------------------
    def __getitem__(self, key):
        if self._obj._ndim != 2:
            raise InvalidValueError("a Series' groupby has no columns to select")
        names = self._obj._table.names
        single = not isinstance(key, (list, tuple)) and not hasattr(key, "tolist")
        sel = [key] if single else list(key)
        if any(not isinstance(k, str) or k not in names for k in sel):
            # labels other than the table's names (0 for Dask's to_frame of an
            # unnamed Series): the column each labels, or whose name is str(label)
            by_label = dict(zip(_labels.label_list(self._obj), names))
            sel = [k if isinstance(k, str) and k in names else
                   by_label.get(k, str(k) if str(k) in names else k) for k in sel]
        missing = [k for k in sel if not isinstance(k, str) or k not in names]
        if missing:  # pandas' words, which Dask's tests look for
            what = f"Column not found: {missing[0]!r}" if single else \
                f"Columns not found: {', '.join(repr(k) for k in missing)}"
            raise ColumnNotFoundError(f"{what}; the columns are {names!r}")
        return GroupBy(self._obj, self._k, self._sort, self._dropna, sel,
                       single, self._as_index, self._observed)

    def __getattr__(self, name):
        if not name.startswith("_") and self._obj._ndim == 2 and \
                name in self._obj._table.names:
            return self[name]
        raise AttributeError(f"'GroupBy' object has no attribute {name!r}")

    def resample(self, rule, closed=None, label=None, convention=None, on=None,
                 origin="start_day", offset=None, group_keys=False, *, level=None):
        """Each group's rows in time bins (zambezi._resample.GroupByResampler):
        aggregations give one row per (keys, bin), every bin from the
        group's first to its last.

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01", "2024-01-03", "2024-01-02"])
        >>> df = zb.DataFrame({"k": ["a", "a", "b"], "v": [1, 2, 3]}, index=t)
        >>> df.groupby("k").resample("D")["v"].count().to_list()
        [1, 0, 1, 1]
        """
        if convention is not None:
            raise UnsupportedError("GroupBy.resample: convention (periods) is not supported")
        return _resample.groupby_resample(self, rule, on=on, level=level, closed=closed,
                                          label=label, origin=origin, offset=offset)

    @property
    def ngroups(self):
        """Number of groups (with observed=False, every combination of a
        categorical key's levels).

        Examples
        --------
        >>> zb.DataFrame({"k": ["a", "b", "a", None]}).groupby("k").ngroups
        2
        """
        if not self._observed and self._has_categorical_key():
            return self._run([_spec("size", None)]).num_rows
        return self._ids()[1]

    def __len__(self):
        """The number of groups (pandas' ``len(gb)``).

        Examples
        --------
        >>> len(zb.DataFrame({"k": ["a", "b", "a", None]}).groupby("k"))
        2
        """
        return self.ngroups

    def unique(self):
        """Each group's distinct values of the selected column, in the order
        they first appear (a null is a value), as a list per group: pandas
        gives an array per group; ``explode()`` gives the values of both.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a", "a"], "v": [1, 2, 1, 3]})
        >>> df.groupby("k")["v"].unique().to_list()
        [[1, 3], [2]]
        """
        cols = self._value_columns()
        if not (self._single or self._obj._ndim == 1) or len(cols) != 1:
            raise UnsupportedError("unique: select one column first (gb['col'].unique())")
        work = self._k.work
        names = list(work.names)
        pick = list(self._k.keys) + [cols[0]]
        sub = _core.table_from_columns([work.column(names.index(nm)) for nm in pick], pick)
        dup = _core.duplicated(sub, None, "first")
        sub = _indexing.filter_rows(_core.unary("invert", dup)).apply(sub)
        label = self._label(cols[0])
        values = _base.series_class()._from_column(sub.column(len(pick) - 1), label,
                                                   _ix.default_index(sub.num_rows))
        keys = _Keys(sub, list(self._k.keys), list(self._k.labels), [cols[0]], [label])
        gb = GroupBy(values, keys, self._sort, self._dropna, None, False, self._as_index)
        return gb._finish(gb._run([_spec("list", cols[0])]), [label], label, series=True)

    # -- plumbing ---------------------------------------------------------------
    def _key_idx(self):
        names = self._k.work.names
        return [names.index(k) for k in self._k.keys]

    def _engine_columns(self, names):
        """The engine columns of the data the value columns names are."""
        if self._obj._ndim == 1:
            return [self._obj._col]
        t = self._obj._table
        return [t.column(t.names.index(c)) for c in names if c in t.names]

    def _op_for(self, func, names):
        """The aggregation func names (in a list, dict or named
        aggregation) on the columns names: Python's max / min / sum only
        where the engine's gives Python's answer (else UnsupportedError:
        pandas calls them per group)."""
        if _builtin(func) and _builtin_route(func, self._engine_columns(names)) == "python":
            raise UnsupportedError(
                f"Python's {func.__name__} among several aggregations on columns of "
                f"{'floats' if func is sum else 'text or categories'}: pandas 3 calls it per "
                f"group with Python's rules; pass {func.__name__!r} for the aggregation")
        return _op_name(func)

    def _value_columns(self, op=None, strict=False):
        """The work columns an aggregation works on: the selection, or
        every value column the op accepts.  strict: a column it does not
        accept raises, as pandas 3 raises (numeric_only=False) -- TypeError
        where pandas refuses the dtype, UnsupportedError where pandas
        computes what zambezi does not (sem of times)."""
        if self._selection is not None:
            return list(self._selection)
        if self._obj._ndim == 1:
            return list(self._k.values)
        t = self._obj._table
        kinds = {nm: t.column(i).dtype for i, nm in enumerate(t.names)}
        ordered = {nm for i, nm in enumerate(t.names)
                   if kinds[nm] == "category" and t.column(i).ordered}
        # min / max of an ordered categorical follow the category order
        cols = [c for c in self._k.values if op is None or _accepts(op, kinds[c])
                or (op in ("min", "max") and c in ordered)]
        if strict and op is not None and len(cols) < len(self._k.values):
            bad = next(c for c in self._k.values if c not in set(cols))
            _refuse(op, kinds[bad], self._label(bad))
        return cols

    def _label(self, col):
        k = self._k
        return k.value_labels[k.values.index(col)] if col in k.values else col

    def _run(self, specs, widen=True, f32=True):
        """The engine's result for specs (see _spec): the key columns,
        then one column per spec; with observed=False and a categorical
        key, every combination of the keys' levels a group (widen=False:
        the groups that occur, as the rows' group ids number them).
        f32=False keeps float64 results of float32 columns (for a caller
        that computes on with them)."""
        work = self._k.work
        names = work.names
        tuples = []
        # result position -> (kind, unit, tz): numeric aggregations of times and
        # durations, which run on an int64 copy of the column (extra below),
        # appended to the work table; other aggregations read the column itself
        # any / all of other columns run on their truth values (_truth), appended too
        units, extra = {}, {}

        def appended(key, make):
            if key not in extra:
                extra[key] = (len(names) + len(extra), make)
            return extra[key][0]

        for i, (op, col, col2, ddof, q, count_na) in enumerate(specs):
            ci = names.index(col) if col is not None else -1
            c2 = names.index(col2) if col2 is not None else -1
            kind = _time_result(op, work.column(ci).dtype) if ci >= 0 else None
            if kind is not None:
                c = work.column(ci)
                units[i] = (kind, c.unit, getattr(c, "timezone", None))
                ci = appended(("counts", ci), lambda c=c: _core.cast(c, "int64"))
            elif op in ("any", "all") and ci >= 0 and (count_na or
                                                     work.column(ci).dtype not in _NUMERIC):
                if not _accepts(op, work.column(ci).dtype):   # a selected time column
                    _refuse(op, work.column(ci).dtype, self._label(col))
                ci = appended(("truth", ci, count_na),
                              lambda c=work.column(ci), na=count_na: _truth(c, na))
            tuples.append((op, ci, c2, int(ddof), float(q), bool(count_na), f"__agg{i}"))
        if extra:
            made = [make() for _, make in sorted(extra.values(), key=lambda e: e[0])]
            work = _core.table_from_columns(
                [work.column(i) for i in range(work.num_columns)] + made,
                list(names) + [f"__derived{k}" for k in range(len(made))])
        lists = [i for i, t in enumerate(tuples) if t[0] == "list" or (
            t[0] == "sum" and work.column(t[1]).dtype == "string")]
        moments = [(i, t[1], t[0], t[3]) for i, t in enumerate(tuples) if t[0] in _MOMENT_OPS]
        for i in lists + [m[0] for m in moments]:  # the engine counts rows there; filled below
            tuples[i] = ("size", -1) + tuples[i][2:]
        table = self._aggregate(work, tuples)
        table = _float32_back(table, len(self._k.keys), [
            i for i, t in enumerate(tuples)
            if f32 and t[0] in _F32_OPS and t[1] >= 0 and work.column(t[1]).dtype == "float32"
            and (t[0] != "mean" or not self._mean_as_float64(work.column(t[1])))])
        if lists:
            table = self._fill_lists(table, [(i, names.index(specs[i][1]), specs[i][0])
                                             for i in lists])
        if moments:
            table = self._fill_moments(table, work, moments)
        if units:
            table = _counts_as_times(table, len(self._k.keys), units)
        narrow = [(i, work.column(t[1]).dtype) for i, t in enumerate(tuples) if t[0] in (
            "sum", "prod") and t[1] >= 0 and work.column(t[1]).dtype in SMALL_INTS]
        if narrow:
            table = _small_ints_back(table, len(self._k.keys), narrow)
        if widen and not self._observed:
            table = _groupby_observed.widen(table, len(self._k.keys), [s[0] for s in specs],
                                            self._sort, self._key_columns(), self._dropna)
        return table

    def _key_columns(self):
        """The key columns, every row."""
        w = self._k.work
        return [w.column(w.names.index(k)) for k in self._k.keys]

    def _mean_as_float64(self, col):
        """Whether pandas gives float64 for the mean of float32 column col:
        when the rows' group ids never decrease (rows dropped for a missing
        key first) and the column holds no NaN, pandas 3 takes a
        ``reduceat`` path that computes and returns float64; otherwise its
        kernel keeps float32."""
        if _has_missing_float(col):
            return False
        ids, _ = self._ids()
        v = np.array(_convert.values_numpy(ids), dtype=np.int64)
        m = _convert.null_mask(ids)
        if m is not None:
            v[m] = -1
        return bool(np.all(v[1:] >= v[:-1]))

    def _fill_lists(self, table, where):
        """table with the columns of agg(list) and of string sums made:
        (result position, work column, op) triples; each group's values in
        row order (zambezi._lists), which a string sum joins with its
        missing values left out, as pandas ('' for a group with none)."""
        import numpy as np

        from zambezi import _convert
        from zambezi._lists import _host, group_lists

        ids, n = self._ids()
        m = _convert.null_mask(ids)
        ids = np.array(_convert.values_numpy(ids), dtype=np.int64)
        if m is not None:
            ids[m] = -1
        nk = len(self._k.keys)
        cols = [table.column(j) for j in range(table.num_columns)]
        for i, ci, op in where:
            values = self._k.work.column(ci)
            if op == "sum":
                vm = _convert.null_mask(_host(values))
                gids = ids if vm is None else np.where(vm, -1, ids)
                cols[nk + i] = _core.list_join(group_lists(values, gids, n), "")
            else:
                cols[nk + i] = group_lists(values, ids, n)
        return _core.table_from_columns(cols, list(table.names))

    def _aggregate(self, work, tuples):
        """_core.groupby's result (the key columns, then one column per
        tuple) for work (self._k.work or a view of its rows).  The first
        aggregation keeps the grouping (_Grouping); later ones on this
        object or on column selections from it aggregate by its ids
        (_core.groupby_ids) and reuse its key columns: pandas reuses its
        grouper the same way.  Data off the CPU groups each time."""
        if work.device != "cpu":
            return _core.groupby(work, self._key_idx(), self._dropna, self._sort, tuples)
        where = (self._dropna, self._sort)
        g = self._k.groupings.get(where)
        if g is None:
            table, ids, n = _core.groupby(work, self._key_idx(), self._dropna, self._sort,
                                          tuples, True)
            nk = len(self._k.keys)
            self._k.groupings[where] = _Grouping(
                ids, n, [table.column(i) for i in range(nk)], list(table.names[:nk]))
            return table
        aggs = _core.groupby_ids(work, g.ids, g.n, tuples)
        return _core.table_from_columns(
            g.keys + [aggs.column(i) for i in range(aggs.num_columns)],
            g.names + list(aggs.names))

    def _ids(self):
        """(ids, number of groups): each row's group (null where dropped),
        made once per grouping (see _aggregate)."""
        work = self._k.work
        if work.device != "cpu":
            return _core.group_ids(work, self._key_idx(), self._dropna, self._sort)
        g = self._k.groupings.get((self._dropna, self._sort))
        if g is None:  # the grouping with its keys (no aggregation), kept
            self._aggregate(work, [])
            g = self._k.groupings[(self._dropna, self._sort)]
        return g.ids, g.n

    def _finish(self, table, labels, series_name=None, series=False):
        """The user's result from an engine result table (keys, then one
        column per label): keys as the index (as_index) or as the first
        columns; one Series when series is True."""
        nk = len(self._k.keys)
        keys = [table.column(i) for i in range(nk)]
        vals = [table.column(i) for i in range(nk, table.num_columns)]
        frame_cls = self._obj._constructor_expanddim if self._obj._ndim == 1 else \
            self._obj._constructor
        if self._as_index:
            if self._dropna:
                index = _ix.Index._from_columns(keys, list(self._k.labels))
            else:  # every key a group: pandas' key levels, a missing key one of them
                index = _ix.Index._of_group_keys(keys, list(self._k.labels), nk, self._sort)
            if series:
                return _base.series_class()._from_column(vals[0], series_name, index)
            return _labels.frame_from(frame_cls, vals, list(labels), index)
        klabels = [("index" if nk == 1 else f"level_{i}") if nm is None else nm
                   for i, nm in enumerate(self._k.labels)]
        if any(isinstance(lb, tuple) for lb in labels):
            klabels = [(nm, "") for nm in klabels]
        # a key that is also an aggregated column is not inserted again (pandas)
        keep = [i for i, lb in enumerate(klabels) if lb not in labels]
        return _labels.frame_from(frame_cls, [keys[i] for i in keep] + vals,
                                  [klabels[i] for i in keep] + list(labels), None)

    def _simple(self, op, ddof=1, q=0.5, count_na=False, numeric_only=False, min_count=0,
                skipna=True):
        if not skipna and op not in _SKIPNA_OPS:
            raise UnsupportedError(f"GroupBy.{op}: skipna=False is not supported")
        if not isinstance(numeric_only, (bool, np.bool_)):
            raise InvalidValueError("numeric_only accepts only Boolean values")
        cols = self._value_columns(op, strict=not numeric_only)
        if numeric_only:  # pandas' numeric_only=True: the numeric and bool columns
            work = self._k.work  # (not timestamps, durations, strings, categoricals)
            kept = [c for c in cols if work.column(work.names.index(c)).dtype in _NUMERIC]
            if self._single and not kept:
                raise DTypeError(f"Cannot use numeric_only=True with SeriesGroupBy.{op} and "
                                 "non-numeric dtypes.")
            cols = kept
        truth_na = op in ("any", "all") and not skipna   # pandas: a missing value is True
        specs = [_spec(op, c, ddof, q, count_na or truth_na) for c in cols]
        min_count, skipna = int(min_count), skipna or truth_na
        nk = len(self._k.keys)
        if not skipna and op in ("first", "last"):   # the group's edge row, missing or not
            return self._finish(edge_rows(self, op, cols, specs, min_count),
                                *self._finish_labels(cols))
        if min_count > 0 or not skipna:   # pandas: such groups get a missing value
            specs += [_spec("count", c) for c in cols] + ([] if skipna else [_spec("size", None)])
        table = self._run(specs)
        if min_count > 0 or not skipna:
            table = mask_short_groups(table, nk, len(cols), min_count, skipna)
        return self._finish(table, *self._finish_labels(cols))

    def _finish_labels(self, cols):
        labels = [self._label(c) for c in cols]
        return (labels, labels[0], True) if self._single else (labels,)

    # -- aggregations -------------------------------------------------------------
    def sum(self, numeric_only=False, min_count=0, skipna=True, engine=None,
            engine_kwargs=None):
        """Sum per group of each numeric column (nulls skipped; 0 for a group
        with no values). String columns are joined in row order, missing
        values left out ('' for a group with none), as pandas does;
        numeric_only=True leaves them out.  numeric_only=True, here and in
        the other aggregations, keeps only the number and bool columns
        (timestamps and durations too are left out, as pandas; on one
        selected column of another dtype it raises DTypeError, a
        TypeError).  Without it, a column the aggregation cannot take (a
        string column's mean, a categorical's sum ...) raises TypeError,
        as pandas 3.  min_count (here and in
        prod, min, max, first and last): a group with fewer values gets a
        missing value, as pandas.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").sum().to_dict("list")
        {'fare': [16.0, 3.5], 'n': [4, 7]}
        >>> df.groupby("city")["fare"].sum().to_list()
        [16.0, 3.5]
        """
        _plain_engine("sum", engine)
        return self._simple("sum", numeric_only=numeric_only, min_count=min_count, skipna=skipna)

    def mean(self, numeric_only=False, skipna=True, engine=None, engine_kwargs=None):
        """Mean per group (null for a group with no values; pandas gives NaN).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city")["fare"].mean()
        city
        Maun      8
        Tete    3.5
        Name: fare, dtype: float64
        """
        _plain_engine("mean", engine)
        return self._simple("mean", numeric_only=numeric_only, skipna=skipna)

    def min(self, numeric_only=False, min_count=-1, skipna=True, engine=None,
            engine_kwargs=None):
        """Minimum per group (numbers, strings, dates, timestamps).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").min().to_dict("list")
        {'fare': [7.0, 3.5], 'n': [1, 2]}
        """
        _plain_engine("min", engine)
        return self._simple("min", numeric_only=numeric_only, min_count=min_count, skipna=skipna)

    def max(self, numeric_only=False, min_count=-1, skipna=True, engine=None,
            engine_kwargs=None):
        """Maximum per group (numbers, strings, dates, timestamps).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").max().to_dict("list")
        {'fare': [9.0, 3.5], 'n': [3, 5]}
        """
        _plain_engine("max", engine)
        return self._simple("max", numeric_only=numeric_only, min_count=min_count, skipna=skipna)

    def count(self):
        """Non-null values per group, for every non-key column.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").count().to_dict("list")
        {'fare': [2, 1], 'n': [2, 2]}
        """
        return self._simple("count")

    def size(self):
        """Rows per group: a Series indexed by the keys (named after the
        selected column, if one was selected); with ``as_index=False`` a
        frame of the keys and a "size" column.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").size()
        city
        Maun    2
        Tete    2
        dtype: int64
        >>> df.groupby("city", as_index=False).size().to_dict("list")
        {'city': ['Maun', 'Tete'], 'size': [2, 2]}
        """
        table = self._run([_spec("size", None)])
        if not self._as_index:
            return self._finish(table, ["size"])
        name = self._label(self._selection[0]) if self._single else None
        return self._finish(table, [name], name, series=True)

    def std(self, ddof=1, engine=None, engine_kwargs=None, numeric_only=False, skipna=True):
        """Standard deviation per group (null with fewer than ddof + 1 values).
        engine / engine_kwargs in pandas' places: only engine None or
        "cython" is supported.  skipna=False (here and in sum, prod, min,
        max, mean, median, var): a group with a missing value gets a
        missing value, as pandas.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city")["fare"].std().to_list()
        [1.4142135623730951, None]
        """
        _plain_engine("std", engine)
        return self._simple("std", ddof=ddof, numeric_only=numeric_only, skipna=skipna)

    def var(self, ddof=1, engine=None, engine_kwargs=None, numeric_only=False, skipna=True):
        """Variance per group (null with fewer than ddof + 1 values); engine,
        engine_kwargs and skipna as std.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").var().to_dict("list")
        {'fare': [2.0, None], 'n': [2.0, 4.5]}
        """
        _plain_engine("var", engine)
        return self._simple("var", ddof=ddof, numeric_only=numeric_only, skipna=skipna)

    def median(self, numeric_only=False, skipna=True):
        """Median per group.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").median().to_dict("list")
        {'fare': [8.0, 3.5], 'n': [2.0, 3.5]}
        """
        return self._simple("median", numeric_only=numeric_only, skipna=skipna)

    def quantile(self, q=0.5):
        """The q quantile per group (linear interpolation); a list of q
        gives each group's quantiles under an extra index level (q), as
        pandas.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city")["n"].quantile(0.25).to_list()
        [1.5, 2.75]
        >>> df.groupby("city")["n"].quantile([0.0, 1.0]).to_list()
        [1.0, 3.0, 2.0, 5.0]
        """
        if isinstance(q, (list, tuple, np.ndarray)) and len(q) > 0:
            from zambezi import _groupby_extreme

            return _groupby_extreme.quantiles(self, [self.quantile(float(x)) for x in q],
                                              [float(x) for x in q])
        if not isinstance(q, (int, float)) or isinstance(q, bool):
            raise DTypeError("GroupBy.quantile takes q: a float in [0, 1] or a list of them")
        return self._simple("quantile", q=q)

    def pipe(self, func, *args, **kwargs):
        """func(self, *args, **kwargs): a chain step on the groups.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a"], "v": [1, 2, 3]})
        >>> df.groupby("k").pipe(lambda g: g["v"].sum()).to_list()
        [4, 2]
        """
        if isinstance(func, tuple):
            func, target = func
            kwargs[target] = self
            return func(*args, **kwargs)
        return func(self, *args, **kwargs)

    def first(self, numeric_only=False, min_count=-1, skipna=True):
        """The first non-null value per group, as pandas (skipna=False: the
        first row's value, missing or not).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").first().to_dict("list")
        {'fare': [7.0, 3.5], 'n': [1, 2]}
        """
        return self._simple("first", numeric_only=numeric_only, min_count=min_count, skipna=skipna)

    def last(self, numeric_only=False, min_count=-1, skipna=True):
        """The last non-null value per group, as pandas (skipna=False: the
        last row's value, missing or not).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").last().to_dict("list")
        {'fare': [9.0, 3.5], 'n': [3, 5]}
        """
        return self._simple("last", numeric_only=numeric_only, min_count=min_count, skipna=skipna)

    def nunique(self, dropna=True):
        """Distinct values per group (a null counts as a value with
        dropna=False).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").nunique(dropna=False).to_dict("list")
        {'fare': [2, 2], 'n': [2, 2]}
        """
        return self._simple("nunique", count_na=not dropna)

    def prod(self, numeric_only=False, min_count=0, skipna=True):
        """Product per group (nulls skipped).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").prod().to_dict("list")
        {'fare': [63.0, 3.5], 'n': [3, 10]}
        """
        return self._simple("prod", numeric_only=numeric_only, min_count=min_count, skipna=skipna)

    product = prod

    def any(self, skipna=True):
        """Whether any value per group is non-zero / True (nulls skipped; with
        skipna=False a missing value counts as True, as pandas).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city")["n"].any().to_list()
        [True, True]
        """
        return self._simple("any", skipna=skipna)

    def all(self, skipna=True):
        """Whether every value per group is non-zero / True (nulls skipped; with
        skipna=False a missing value counts as True, as pandas).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city")["n"].all().to_list()
        [True, True]
        """
        return self._simple("all", skipna=skipna)

    def agg(self, func=None, *, engine=None, engine_kwargs=None, **named):
        """Aggregate: a function name, a list of names, a dict column ->
        name(s), or named aggregations ``out=("column", "func")`` (on one
        selected column, ``out="func"``).  Function names: sum, mean, min,
        max, count, size, std, var, sem, skew, kurt, median, quantile, first,
        last, nunique, prod, any, all (or the numpy functions of those
        names).  Python's max / min / sum are called as pandas 3 calls them,
        per group with Python's rules (the engine serves numbers without
        missing values; missing values raise UnsupportedError: pass the
        name to skip them).
        A list, or a dict with a list among its values, labels the columns
        (column, function), a MultiIndex, as pandas; on one selected column
        a list gives one column per function.

        ``engine="numba"`` with a function ``f(values, index)`` (pandas'
        contract: each group's values and index labels as numpy arrays, one
        value back) compiles it with Numba and runs the groups over every
        core with the GIL released; results are float64, as pandas'.
        Needs ``pip install "zambezi[numba]"``.  Any other Python function
        is called once per group and column (slow), also in a list, a dict
        or a named aggregation (lambdas in a list of several are labelled
        ``<lambda_0>``, ``<lambda_1>`` ..., as pandas).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").agg({"fare": "mean", "n": ["min", "max"]})
                 fare      n
                 mean    min    max
              float64  int64  int64
        city
        Maun        8      1      3
        Tete      3.5      2      5
        <BLANKLINE>
        [2 rows x 3 columns]
        >>> df.groupby("city").agg(total=("fare", "sum"), rides=("n", "size")).to_dict("list")
        {'total': [16.0, 3.5], 'rides': [2, 2]}
        >>> df.groupby("city")["n"].agg(["sum", "max"]).to_dict("list")
        {'sum': [4, 7], 'max': [3, 5]}
        """
        if _numba.check_engine(engine, engine_kwargs, "agg"):
            if named or not callable(func):
                raise UnsupportedError("agg: engine='numba' takes one function f(values, "
                                       "index)")
            return self._agg_numba(func, engine_kwargs)
        specs, labels = [], []
        if named:
            if func is not None:
                raise InvalidValueError("agg takes a function spec or named aggregations, "
                                        "not both")
            for out, spec in named.items():
                if self._single and not isinstance(spec, tuple):
                    col, func = self._selection[0], spec
                elif isinstance(spec, tuple) and len(spec) == 2:
                    col, func = spec
                    if self._obj._ndim != 2 or col not in self._obj._table.names:
                        raise ColumnNotFoundError(
                            f"named aggregation {out}=: no column named {col!r}")
                else:
                    raise DTypeError(f"named aggregation {out}= must be a (column, func) tuple")
                specs.append((col, func))
                labels.append(out)
            return self._agg_items(specs, labels)
        if _builtin(func) and _builtin_route(
                func, self._engine_columns(self._value_columns())) == "python":
            return self._agg_python(func)
        if _python_func(func):
            return self._agg_python(func)
        if isinstance(func, str) and func not in _ALL_OPS and func not in _ALIASES and \
                not func.startswith("_") and callable(getattr(type(self), func, None)):
            return getattr(self, func)()   # pandas: agg("cumsum") is gb.cumsum()
        if isinstance(func, str) or callable(func):
            op = _op_name(func)
            return self.size() if op == "size" else self._simple(op)
        if isinstance(func, (list, tuple)):
            names = _list_labels(func)
            if self._single:
                col = self._selection[0]
                return self._agg_items([(col, f) for f in func], names)
            for c in self._value_columns():
                for f, lb in zip(func, names):
                    specs.append((c, f))
                    labels.append((self._label(c), lb))
            return self._agg_items(specs, labels)
        if isinstance(func, dict):
            if self._single:
                raise InvalidValueError("agg on one selected column takes a function, a list "
                                        "or named aggregations, not a dict (nested renamer)")
            nested = any(isinstance(f, (list, tuple)) for f in func.values())
            for c, funcs in func.items():
                if c not in self._k.values and (self._obj._ndim != 2 or
                                                c not in self._k.keys):  # a key column: pandas
                    # aggregates it too
                    raise ColumnNotFoundError(
                        f"no column named {c!r} to aggregate; the columns are "
                        f"{self._k.values!r}")
                lst = funcs if isinstance(funcs, (list, tuple)) else [funcs]
                for f, lb in zip(lst, _list_labels(lst)):
                    specs.append((c, f))
                    labels.append((self._label(c), lb) if nested else self._label(c))
            return self._agg_items(specs, labels)
        raise DTypeError("agg takes a function name, a list, a dict or named "
                         f"aggregations, not {type(func).__name__}")

    aggregate = agg

    def _agg_items(self, items, labels):
        """agg's result from (work column, func) items, one result column
        each: the engine's aggregations in one run, and a Python function
        (a lambda in a dict or a named aggregation) called once per group,
        as pandas does (slow)."""
        def python(c, f):
            return _python_func(f) or (
                _builtin(f) and _builtin_route(f, self._engine_columns([c])) == "python")

        py = [i for i, (c, f) in enumerate(items) if python(c, f)]
        if not py:
            return self._finish(self._run([_spec(self._op_for(f, [c]), c) for c, f in items]),
                                labels)
        if not self._observed and self._has_categorical_key():
            raise UnsupportedError("agg: a Python function among the aggregations with "
                                   "observed=False and a categorical key")
        eng = [i for i in range(len(items)) if i not in py]
        specs = [_spec(self._op_for(items[i][1], [items[i][0]]), items[i][0]) for i in eng]
        table = self._run(specs or [_spec("size", None)], widen=False)
        nk = len(self._k.keys)
        cols = [None] * len(items)
        for j, i in enumerate(eng):
            cols[i] = table.column(nk + j)
        for i in py:
            c, f = items[i]
            cols[i] = group_agg_python(self, c, lambda g, f=f: _agg_value(f(g)))
        t = _core.table_from_columns([table.column(k) for k in range(nk)] + cols,
                                     [f"__k{k}" for k in range(nk)] +
                                     [f"__a{i}" for i in range(len(cols))])
        return self._finish(t, labels)

    # -- rows per group -------------------------------------------------------------
    def _same_rows(self, col, name):
        """A Series with the grouped object's rows and labels."""
        obj = self._obj
        return obj._sliced(col, name) if obj._ndim == 2 else obj._like(col, name)

    def cumcount(self, ascending=True):
        """Each row's position within its group (null where the key was
        dropped); ascending=False counts from the group's end.  The rows
        keep their labels.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a", None, "b"]})
        >>> df.groupby("k").cumcount().to_list()
        [0, 0, 1, None, 1]
        """
        ids, n = self._ids()
        return self._same_rows(_core.group_cumcount(ids, n, bool(ascending)), None)

    def _rows(self, ascending, op, n):
        ids, ng = self._ids()
        cc = _core.group_cumcount(ids, ng, bool(ascending))
        mask = _core.binary_scalar(op, cc, int(n), False)
        obj = self._obj
        if obj._ndim == 2 and self._selection is not None:
            obj = obj[self._selection[0]] if self._single else obj[list(self._selection)]
        return obj._select_rows(_indexing.filter_rows(mask))

    def head(self, n=5):
        """The first n rows of every group, in their original order, with
        their labels.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").head(1)
             city     fare      n
           string  float64  int64
        0    Maun        7      1
        1    Tete      3.5      2
        <BLANKLINE>
        [2 rows x 3 columns]
        """
        n = int(n)
        # a negative n: all but the last -n rows of each group, as pandas
        return self._rows(True, "lt", n) if n >= 0 else self._rows(False, "ge", -n)

    def tail(self, n=5):
        """The last n rows of every group, in their original order, with
        their labels.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city")["n"].tail(1)
        2    3
        4    5
        Name: n, dtype: int64
        """
        n = int(n)
        # a negative n: all but the first -n rows of each group, as pandas
        return self._rows(False, "lt", n) if n >= 0 else self._rows(True, "ge", -n)

    def nth(self, n):
        """The n-th row of every group (negative n counts from the end), in
        the original row order, with their labels.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").nth(1)["n"].to_list()
        [3, 5]
        >>> df.groupby("city").nth(-1).index.to_list()
        [2, 4]
        """
        n = int(n)
        if n >= 0:
            return self._rows(True, "eq", n)
        return self._rows(False, "eq", -n - 1)

    def transform(self, func, *args, engine=None, engine_kwargs=None, **kwargs):
        """Each selected column replaced by its group's aggregate, row by row
        (null where the key was dropped), with the rows' labels; a Series
        when one column was selected with ``gb["col"]`` (or for "size").
        A Python function is called once per group and column (slow);
        ``engine="numba"`` with ``f(values, index)`` (one value or one per
        row of the group back) runs it compiled over every core, float64
        results as pandas' (needs ``pip install "zambezi[numba]"``).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city")["n"].transform("sum").to_list()
        [4, 7, 4, None, 7]
        """
        if _numba.check_engine(engine, engine_kwargs, "transform"):
            if not callable(func):
                raise UnsupportedError("transform: engine='numba' takes one function "
                                       "f(values, index)")
            return self._transform_numba(func, engine_kwargs)
        if _python_func(func) or _builtin(func) and _builtin_route(
                func, self._engine_columns(self._value_columns())) == "python":
            return self._transform_python(func, args, kwargs)
        if isinstance(func, str) and func in _TRANSFORM_KERNELS and hasattr(self, func):
            # pandas' transformation names: the group-by method of that name,
            # whose result has the rows' shape already (ffill, cumsum, rank...)
            return getattr(self, func)(*args, **kwargs)
        op = _op_name(func)
        if args or kwargs:  # an aggregation with its arguments: per group, as pandas calls it
            return self._transform_python(lambda s: getattr(s, op)(*args, **kwargs))
        if op == "size":
            t = self._run([_spec("size", None)], widen=False)
            ids, _ = self._ids()  # after _run, which keeps them
            col = _core.take(t.column(t.num_columns - 1), ids)
            name = self._label(self._selection[0]) if self._single else None
            return self._same_rows(col, name)
        cols = self._value_columns(op, strict=True)
        t = self._run([_spec(op, c) for c in cols], widen=False)
        ids, _ = self._ids()
        nk = len(self._k.keys)
        out = [_core.take(t.column(nk + i), ids) for i in range(len(cols))]
        if self._single or self._obj._ndim == 1:
            return self._same_rows(out[0], self._label(cols[0]))
        return self._obj._like(_core.table_from_columns(out, cols))


# pandas' names of group-by methods that keep the rows' shape, which
# transform(name) calls as they are
_TRANSFORM_KERNELS = frozenset(["bfill", "cumcount", "cummax", "cummin", "cumprod", "cumsum",
                                "diff", "ffill", "ngroup", "pct_change", "rank", "shift"])


class FrameGroupBy:
    """DataFrame.groupby (a mixin)."""

    __slots__ = ()

    def groupby(self, by=None, level=None, *, as_index=True, sort=True, group_keys=True,
                observed=True, dropna=True):
        """Group rows by keys: a column name, a list of names, Series or
        arrays as long as the frame, or index levels (``level=``); see
        zambezi._groupby for the result shapes and the differences from
        pandas.

        as_index: the keys become the results' index (True, the default)
        or their first columns.  sort: order the groups by the keys (True,
        the default) or by first appearance.  dropna: leave out rows whose
        key is null (True) or make the nulls a group.  observed=False with a
        categorical key makes every category a group in the aggregations
        (empty ones give 0 for sum / count / size / nunique, else a missing
        value), as pandas; group_keys is accepted (no method
        here adds group keys).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").agg({"fare": "sum"})
                 fare
              float64
        city
        Maun       16
        Tete      3.5
        <BLANKLINE>
        [2 rows x 1 columns]
        >>> df.groupby("city", dropna=False, sort=False).size()
        city
        Maun    2
        Tete    2
        <NA>    1
        dtype: int64
        >>> df.groupby("city", as_index=False)["fare"].sum().to_dict("list")
        {'city': ['Maun', 'Tete'], 'fare': [16.0, 3.5]}
        """
        if isinstance(by, tuple):
            by = list(by)
        if _resample.is_grouper(by):
            r = _resample.grouper_resampler(self, by)
            if r is not None:
                return r
        drop = []
        if isinstance(by, list) and any(_resample.is_grouper(k) for k in by):
            by = list(by)
            for i, k in enumerate(by):
                if _resample.is_grouper(k):
                    by[i], name = _resample.grouper_key(self, k)
                    if name is not None and not isinstance(by[i], str):
                        drop.append(name)
        elif _resample.is_grouper(by):
            by, _ = _resample.grouper_key(self, by)
        keys = _frame_keys(self, by, level)
        keys.listed = isinstance(by, list) or isinstance(level, (list, tuple))
        if drop:  # a Grouper's time column is a key, not a value
            keep = [i for i, v in enumerate(keys.values) if v not in drop]
            keys.values = [keys.values[i] for i in keep]
            keys.value_labels = [keys.value_labels[i] for i in keep]
        return GroupBy(self, keys, sort, dropna, as_index=as_index, observed=observed)


class SeriesGroupByMixin:
    """Series.groupby (a mixin)."""

    __slots__ = ()

    def groupby(self, by=None, level=None, *, as_index=True, sort=True, group_keys=True,
                observed=True, dropna=True):
        """Group the values by keys: Series or arrays as long as this
        Series (a Series key must have this Series' index), or index
        levels (``level=``).  Aggregations give a Series named like this
        one, indexed by the keys (see zambezi._groupby).

        Examples
        --------
        >>> s = zb.Series([7.0, 3.5, 9.0, 1.0], name="fare")
        >>> s.groupby(zb.Series(["Maun", "Tete", "Maun", None], name="city")).sum()
        city
        Maun     16
        Tete    3.5
        Name: fare, dtype: float64
        >>> s2 = zb.Series(s, index=zb.MultiIndex.from_arrays([["a", "b", "a", "b"],
        ...                                                       [1, 2, 3, 4]]))
        >>> s2.groupby(level=0).max().to_list()
        [9.0, 3.5]
        """
        if not as_index:
            raise InvalidValueError("as_index=False is only valid with a DataFrame")
        if _resample.is_grouper(by):
            r = _resample.grouper_resampler(self, by)
            if r is not None:
                return r
        if isinstance(by, list) and any(_resample.is_grouper(k) for k in by):
            by = [_resample.grouper_key(self, k)[0] if _resample.is_grouper(k) else k
                  for k in by]
        keys = _series_keys(self, by, level)
        keys.listed = isinstance(by, (list, tuple)) or isinstance(level, (list, tuple))
        return GroupBy(self, keys, sort, dropna, ["__value"], True, True, observed)
