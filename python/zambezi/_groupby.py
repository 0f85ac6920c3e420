"""DataFrame.groupby: split rows into groups of equal keys and aggregate.

Everything runs in C (``_core.groupby``, ``group_ids``, ``group_cumcount`` in
src/python/groupby.c, the engine in src/cpu/groupby*.c) with the GIL
released; nothing here loops over rows.

Semantics follow pandas with these differences, all because zambezi has no
index:

- The result is a DataFrame whose first columns are the keys (one row per
  group), then one column per aggregation -- what pandas gives with
  ``as_index=False`` or ``.reset_index()``.  ``as_index`` is accepted and
  ignored either way.
- ``sort=True`` orders groups by the keys ascending, nulls last (strings
  byte-wise, categoricals in category order, as pandas); ``sort=False``
  keeps the order of first appearance.  ``dropna=True`` (the default) leaves
  out rows with a null (or NaN) in any key; ``dropna=False`` makes nulls a
  group of their own.  Categorical keys show only observed categories
  (pandas' default ``observed=True``).
- ``size()`` gives the keys and a ``"size"`` column.
- ``agg`` with a list of functions names the columns ``"<column>_<func>"``
  (pandas makes a two-level column index); a dict with one function per
  column keeps the column name; named aggregation ``out=("col", "func")``
  works as in pandas.
- ``corr(a, b)``: the Pearson correlation of columns a and b within each
  group, as keys plus a ``"corr"`` column (pandas needs
  ``gb[[a, b]].corr()``, which returns a per-group matrix).
- Without a column selection, numeric aggregations (sum, mean, std, var,
  median, quantile, prod, any, all) use the numeric and bool columns and
  min/max also strings, dates and timestamps (pandas' numeric_only=True);
  with an explicit selection an unsupported column raises DTypeError.
- Aggregation results use nullable types: a group with no values gives a
  null mean/min/max/std (pandas: NaN); ``sum`` of float32 is float64.
- ``head(n)``, ``tail(n)`` and ``nth(n)`` return the chosen rows in their
  original order (pandas' filter semantics); ``transform(func)`` returns
  the selected columns with every row holding its group's aggregate (null
  for rows whose key was dropped).
"""

from zambezi import _core, _indexing
from zambezi._window import GroupByWindow
from zambezi.errors import ColumnNotFoundError, DTypeError, InvalidValueError

_NUMERIC = frozenset(["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                      "uint32", "uint64", "float32", "float64"])
_ORDERED = ("string", "date32", "timestamp")
_NUMERIC_OPS = frozenset(["sum", "mean", "std", "var", "median", "quantile", "prod", "any",
                          "all"])
_ALL_OPS = frozenset(["sum", "mean", "min", "max", "count", "size", "std", "var", "median",
                      "quantile", "first", "last", "nunique", "prod", "any", "all"])
_ALIASES = {"product": "prod", "nanmean": "mean", "average": "mean"}


def _accepts(op, dtype):
    if op in _NUMERIC_OPS:
        return dtype in _NUMERIC
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


class GroupBy(GroupByWindow):
    """The rows of a DataFrame grouped by key columns: what
    DataFrame.groupby returns.  Select columns with ``gb["col"]``,
    ``gb[["a", "b"]]`` or ``gb.col``, then aggregate.  Results are
    DataFrames with the keys first (pandas' ``as_index=False``).

    Examples
    --------
    >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
    ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
    >>> df.groupby("city").sum()
         city     fare      n
       string  float64  int64
    0    Maun       16      4
    1    Tete      3.5      7
    <BLANKLINE>
    [2 rows x 3 columns]
    >>> df.groupby("city", dropna=False)["n"].count().to_dict()
    {'city': ['Maun', 'Tete', None], 'n': [2, 2, 1]}
    """

    __slots__ = ("_df", "_keys", "_sort", "_dropna", "_selection", "_single")

    def __init__(self, df, keys, sort=True, dropna=True, selection=None, single=False):
        self._df = df
        self._keys = keys
        self._sort = bool(sort)
        self._dropna = bool(dropna)
        self._selection = selection
        self._single = single

    # -- selection ------------------------------------------------------------
    def __getitem__(self, key):
        names = self._df._table.names
        sel = [key] if isinstance(key, str) else list(key)
        for k in sel:
            if k not in names:
                raise ColumnNotFoundError(f"no column named {k!r}; the columns are {names!r}")
        return GroupBy(self._df, self._keys, self._sort, self._dropna, sel,
                       isinstance(key, str))

    def __getattr__(self, name):
        if not name.startswith("_") and name in self._df._table.names:
            return self[name]
        raise AttributeError(f"'GroupBy' object has no attribute {name!r}")

    @property
    def ngroups(self):
        """Number of groups.

        Examples
        --------
        >>> zb.DataFrame({"k": ["a", "b", "a", None]}).groupby("k").ngroups
        2
        """
        return self._ids()[1]

    # -- plumbing ---------------------------------------------------------------
    def _key_idx(self):
        names = self._df._table.names
        return [names.index(k) for k in self._keys]

    def _value_columns(self, op=None):
        """The columns an aggregation works on: the selection, or every
        non-key column the op accepts."""
        if self._selection is not None:
            return list(self._selection)
        dtypes = self._df.dtypes
        return [c for c in self._df._table.names
                if c not in self._keys and (op is None or _accepts(op, dtypes[c]))]

    def _run(self, specs):
        """specs: (op, column or None, column2 or None, ddof, q, count_na, name)."""
        names = self._df._table.names
        tuples = []
        for op, col, col2, ddof, q, count_na, out in specs:
            ci = names.index(col) if col is not None else -1
            c2 = names.index(col2) if col2 is not None else -1
            tuples.append((op, ci, c2, int(ddof), float(q), bool(count_na), out))
        table = _core.groupby(self._df._table, self._key_idx(), self._dropna, self._sort,
                              tuples)
        return self._df._constructor._wrap(table)

    def _simple(self, op, ddof=1, q=0.5, count_na=False):
        cols = self._value_columns(op)
        return self._run([(op, c, None, ddof, q, count_na, c) for c in cols])

    def _ids(self):
        return _core.group_ids(self._df._table, self._key_idx(), self._dropna, self._sort)

    # -- aggregations -------------------------------------------------------------
    def sum(self):
        """Sum per group of each numeric column (nulls skipped; 0 for a group
        with no values).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").sum().to_dict()
        {'city': ['Maun', 'Tete'], 'fare': [16.0, 3.5], 'n': [4, 7]}
        """
        return self._simple("sum")

    def mean(self):
        """Mean per group (null for a group with no values; pandas gives NaN).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").mean().to_dict()
        {'city': ['Maun', 'Tete'], 'fare': [8.0, 3.5], 'n': [2.0, 3.5]}
        """
        return self._simple("mean")

    def min(self):
        """Minimum per group (numbers, strings, dates, timestamps).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").min().to_dict()
        {'city': ['Maun', 'Tete'], 'fare': [7.0, 3.5], 'n': [1, 2]}
        """
        return self._simple("min")

    def max(self):
        """Maximum per group (numbers, strings, dates, timestamps).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").max().to_dict()
        {'city': ['Maun', 'Tete'], 'fare': [9.0, 3.5], 'n': [3, 5]}
        """
        return self._simple("max")

    def count(self):
        """Non-null values per group, for every non-key column.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").count().to_dict()
        {'city': ['Maun', 'Tete'], 'fare': [2, 1], 'n': [2, 2]}
        """
        return self._simple("count")

    def size(self):
        """Rows per group, as the keys and a "size" column (pandas gives a
        Series).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").size().to_dict()
        {'city': ['Maun', 'Tete'], 'size': [2, 2]}
        """
        return self._run([("size", None, None, 0, 0.0, False, "size")])

    def std(self, ddof=1):
        """Standard deviation per group (null with fewer than ddof + 1 values).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city")["fare"].std().to_dict()
        {'city': ['Maun', 'Tete'], 'fare': [1.4142135623730951, None]}
        """
        return self._simple("std", ddof=ddof)

    def var(self, ddof=1):
        """Variance per group (null with fewer than ddof + 1 values).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").var().to_dict()
        {'city': ['Maun', 'Tete'], 'fare': [2.0, None], 'n': [2.0, 4.5]}
        """
        return self._simple("var", ddof=ddof)

    def median(self):
        """Median per group.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").median().to_dict()
        {'city': ['Maun', 'Tete'], 'fare': [8.0, 3.5], 'n': [2.0, 3.5]}
        """
        return self._simple("median")

    def quantile(self, q=0.5):
        """The q quantile per group (linear interpolation); one q only.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city")["n"].quantile(0.25).to_dict()
        {'city': ['Maun', 'Tete'], 'n': [1.5, 2.75]}
        """
        if not isinstance(q, (int, float)) or isinstance(q, bool):
            raise DTypeError("GroupBy.quantile takes one q (a float in [0, 1])")
        return self._simple("quantile", q=q)

    def first(self):
        """The first non-null value per group, as pandas.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").first().to_dict()
        {'city': ['Maun', 'Tete'], 'fare': [7.0, 3.5], 'n': [1, 2]}
        """
        return self._simple("first")

    def last(self):
        """The last non-null value per group, as pandas.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").last().to_dict()
        {'city': ['Maun', 'Tete'], 'fare': [9.0, 3.5], 'n': [3, 5]}
        """
        return self._simple("last")

    def nunique(self, dropna=True):
        """Distinct values per group (a null counts as a value with
        dropna=False).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").nunique(dropna=False).to_dict()
        {'city': ['Maun', 'Tete'], 'fare': [2, 2], 'n': [2, 2]}
        """
        return self._simple("nunique", count_na=not dropna)

    def prod(self):
        """Product per group (nulls skipped).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").prod().to_dict()
        {'city': ['Maun', 'Tete'], 'fare': [63.0, 3.5], 'n': [3, 10]}
        """
        return self._simple("prod")

    product = prod

    def any(self):
        """Whether any value per group is non-zero / True (nulls skipped).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city")["n"].any().to_dict()
        {'city': ['Maun', 'Tete'], 'n': [True, True]}
        """
        return self._simple("any")

    def all(self):
        """Whether every value per group is non-zero / True (nulls skipped).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city")["n"].all().to_dict()
        {'city': ['Maun', 'Tete'], 'n': [True, True]}
        """
        return self._simple("all")

    def corr(self, a, b, name="corr"):
        """Pearson correlation of columns a and b within each group (rows
        where both are valid): the keys and a ``name`` column (pandas needs
        ``gb[[a, b]].corr()``, a matrix per group).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").corr("fare", "n").to_dict()
        {'city': ['Maun', 'Tete'], 'corr': [1.0, None]}
        """
        for c in (a, b):
            if c not in self._df._table.names:
                raise ColumnNotFoundError(
                    f"no column named {c!r}; the columns are {self._df._table.names!r}")
        return self._run([("corr", a, b, 0, 0.0, False, name)])

    def agg(self, arg=None, **named):
        """Aggregate: a function name, a list of names, a dict column ->
        name(s), or named aggregations ``out=("column", "func")``.
        Function names: sum, mean, min, max, count, size, std, var, median,
        quantile, first, last, nunique, prod, any, all (or the numpy /
        builtin functions of those names).  With a list, columns are named
        "<column>_<func>" (pandas makes a two-level column index).

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").agg({"fare": "mean", "n": ["min", "max"]})
             city     fare  n_min  n_max
           string  float64  int64  int64
        0    Maun        8      1      3
        1    Tete      3.5      2      5
        <BLANKLINE>
        [2 rows x 4 columns]
        >>> df.groupby("city").agg(total=("fare", "sum"), rides=("n", "size")).to_dict()
        {'city': ['Maun', 'Tete'], 'total': [16.0, 3.5], 'rides': [2, 2]}
        """
        specs = []
        if named:
            if arg is not None:
                raise InvalidValueError("agg takes a function spec or named aggregations, "
                                        "not both")
            for out, spec in named.items():
                if not (isinstance(spec, tuple) and len(spec) == 2):
                    raise DTypeError(f"named aggregation {out}= must be a (column, func) tuple")
                col, func = spec
                op = _op_name(func)
                specs.append((op, None if op == "size" else col, None, 1, 0.5, False, out))
        elif isinstance(arg, (str,)) or callable(arg):
            op = _op_name(arg)
            if op == "size":
                return self.size()
            return self._simple(op)
        elif isinstance(arg, (list, tuple)):
            ops = [_op_name(f) for f in arg]
            cols = self._value_columns()
            for c in cols:
                for op in ops:
                    specs.append((op, None if op == "size" else c, None, 1, 0.5, False,
                                  c if len(ops) == 1 else f"{c}_{op}"))
        elif isinstance(arg, dict):
            for c, funcs in arg.items():
                if c not in self._df._table.names:
                    raise ColumnNotFoundError(
                        f"no column named {c!r}; the columns are {self._df._table.names!r}")
                lst = funcs if isinstance(funcs, (list, tuple)) else [funcs]
                for f in lst:
                    op = _op_name(f)
                    out = c if not isinstance(funcs, (list, tuple)) else f"{c}_{op}"
                    specs.append((op, None if op == "size" else c, None, 1, 0.5, False, out))
        else:
            raise DTypeError("agg takes a function name, a list, a dict or named "
                             f"aggregations, not {type(arg).__name__}")
        return self._run(specs)

    aggregate = agg

    # -- rows per group -------------------------------------------------------------
    def cumcount(self, ascending=True):
        """Each row's position within its group (null where the key was
        dropped); ascending=False counts from the group's end.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a", None, "b"]})
        >>> df.groupby("k").cumcount().to_list()
        [0, 0, 1, None, 1]
        """
        ids, n = self._ids()
        return self._df._sliced(_core.group_cumcount(ids, n, bool(ascending)), None)

    def _rows(self, ascending, op, n):
        ids, ng = self._ids()
        cc = _core.group_cumcount(ids, ng, bool(ascending))
        mask = _core.binary_scalar(op, cc, int(n), False)
        return self._df._select_rows(_indexing.filter_rows(mask))

    def head(self, n=5):
        """The first n rows of every group, in their original order.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").head(1).to_dict()
        {'city': ['Maun', 'Tete'], 'fare': [7.0, 3.5], 'n': [1, 2]}
        """
        return self._rows(True, "lt", max(int(n), 0))

    def tail(self, n=5):
        """The last n rows of every group, in their original order.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").tail(1).to_dict()
        {'city': ['Maun', 'Tete'], 'fare': [9.0, None], 'n': [3, 5]}
        """
        return self._rows(False, "lt", max(int(n), 0))

    def nth(self, n):
        """The n-th row of every group (negative n counts from the end), in
        the original row order.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").nth(1)["n"].to_list()
        [3, 5]
        >>> df.groupby("city").nth(-1)["n"].to_list()
        [3, 5]
        """
        n = int(n)
        if n >= 0:
            return self._rows(True, "eq", n)
        return self._rows(False, "eq", -n - 1)

    def transform(self, func):
        """Each selected column replaced by its group's aggregate, row by row
        (null where the key was dropped); a Series when one column was
        selected with ``gb["col"]``.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city")["n"].transform("sum").to_list()
        [4, 7, 4, None, 7]
        """
        op = _op_name(func)
        ids, _ = self._ids()
        if op == "size":
            res = self.size()
            cols, names = ["size"], ["size"]
        else:
            names = self._value_columns(op)
            res = self._run([(op, c, None, 1, 0.5, False, c) for c in names])
            cols = names
        t = res._table
        rnames = t.names
        out = [_core.take(t.column(rnames.index(c)), ids) for c in cols]
        frame = self._df._like(_core.table_from_columns(out, names))
        if self._single and len(names) == 1:
            return frame[names[0]]
        return frame


class FrameGroupBy:
    """DataFrame.groupby (a mixin)."""

    __slots__ = ()

    def groupby(self, by, sort=True, dropna=True, as_index=True, observed=True):
        """Group rows by one column name or a list of names (see
        zambezi._groupby for the differences from pandas).

        sort: order the groups by the keys (True, the default) or by first
        appearance.  dropna: leave out rows whose key is null (True) or make
        the nulls a group.  as_index is ignored: results always have the
        keys as their first columns.  observed=False is not supported.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", "Tete", "Maun", None, "Tete"],
        ...                    "fare": [7.0, 3.5, 9.0, 1.0, None], "n": [1, 2, 3, 4, 5]})
        >>> df.groupby("city").agg({"fare": "sum"})
             city     fare
           string  float64
        0    Maun       16
        1    Tete      3.5
        <BLANKLINE>
        [2 rows x 2 columns]
        >>> df.groupby("city", dropna=False, sort=False).size().to_dict()
        {'city': ['Maun', 'Tete', None], 'size': [2, 2, 1]}
        """
        keys = [by] if isinstance(by, str) else list(by)
        if not keys:
            raise InvalidValueError("groupby needs at least one key column")
        names = self._table.names
        for k in keys:
            if not isinstance(k, str):
                raise DTypeError(f"groupby keys are column names, not {type(k).__name__}")
            if k not in names:
                raise ColumnNotFoundError(f"no column named {k!r}; the columns are {names!r}")
        if not observed:
            raise InvalidValueError("observed=False is not supported: only categories that "
                                    "occur form groups")
        return GroupBy(self, keys, sort, dropna)
