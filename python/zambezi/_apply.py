"""User functions: ``Series.map`` / ``apply``, ``DataFrame.map`` /
``apply(axis=1)``, and ``groupby(...).apply`` / ``filter`` / ``agg`` and
``transform`` with a Python function (the ``SeriesApply``, ``FrameApply``
and ``GroupByApply`` mixins).

What the engine can do, it does: ``Series.map`` with a dict or a Series
is one engine join of the values against the mapping's keys and one
``take`` (a categorical maps only its categories); a numpy ufunc given to
``apply`` runs on the whole column.  A Python function is pandas'
contract of one call per element, row or group, and runs so -- correct
but slow (a Python call each), as the docstrings say.  Groups are found
by the engine (group ids); each group is handed over as a zambezi
Series or DataFrame selected with one engine take.

Differences from pandas (also in docs/api.md):

- ``DataFrame.apply(axis=1)`` passes each row as a ``Row`` (a read-only
  mapping column -> value with attribute access, ``.name`` the row's
  label), not a Series: a zambezi Series holds one dtype.
- A key a map does not find gives null; an integer result stays integer.
"""

import functools
import warnings

import numpy as np

from zambezi import _base, _core, _indexing, _labels, _numba
from zambezi import index as _ix
from zambezi._concat import _concat_columns
from zambezi._convert import (_is_pandas, null_mask, to_column, to_numpy, to_python_list,
                              values_numpy)
from zambezi._dtypes import is_missing_scalar
from zambezi._groupby_columns import spec
from zambezi._profile import python_calls
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError


def _int64(arr):
    return _core.column_from_buffer(np.ascontiguousarray(arr, dtype=np.int64))


def _positions(arr):
    missing = arr < 0
    return _core.column_from_buffer(np.where(missing, 0, arr).astype(np.int64),
                                    mask=missing if missing.any() else None)


def _host(col):
    return col if col.device == "cpu" else col.to_device("cpu")


def _column(values, what):
    try:
        if values and all(isinstance(v, np.generic) for v in values):
            # numpy scalars of one dtype (np.int8(...), np.float32(...))
            # keep it, as pandas does
            dt = values[0].dtype
            if dt.kind in "biuf" and all(v.dtype == dt for v in values):
                return to_column(np.array(values, dtype=dt))
        return to_column(values)
    except Exception as e:  # values no column holds
        raise DTypeError(f"{what}: the function's results do not fit one column "
                         f"({e})") from None


def _adopt(x):
    """A function's result as an engine object where it is a pandas Series
    or DataFrame (zambezi.pandas' proxies included: code run under the
    accelerator builds them), so that a function written for pandas gives
    the same result shapes here; anything else unchanged."""
    get_fast = getattr(type(x), "_zb_get_fast", None)
    if get_fast is not None:
        return get_fast(x)
    mod = type(x).__module__ or ""
    if mod.startswith("pandas") and type(x).__name__ in ("Series", "DataFrame"):
        from zambezi import from_pandas

        return from_pandas(x) if type(x).__name__ == "DataFrame" else \
            from_pandas(x.to_frame("_"))["_"].rename(x.name)
    return x


def _pandas4_warning():
    """The class of pandas' deprecation warnings (Pandas4Warning) where
    pandas is installed, so that code checking for it sees it; else
    FutureWarning."""
    try:
        from pandas.errors import Pandas4Warning
    except ImportError:
        return FutureWarning
    return Pandas4Warning


def _agg_value(r):
    """An aggregating function's result for one group, as pandas takes it:
    a one-value Series becomes its value (deprecated in pandas, with its
    warning).  (Longer Series and arrays pandas 3.1 keeps as objects, which
    no zambezi column holds: _column refuses them.)"""
    if _base.is_series(r) and len(r) == 1:
        warnings.warn("Converting a Series or array of length 1 into a scalar is "
                      "deprecated and will raise in a future version. Explicitly take the "
                      "single element instead.", _pandas4_warning(),
                      stacklevel=_base.user_stacklevel())
        return r.to_numpy()[0]
    return r


def _filter_verdict(r, series):
    """Whether filter keeps a group for which func gave r, as pandas
    decides: a missing value (NaN, None, NA) drops the group.  On a
    DataFrameGroupBy r must be a bool (or a one-value object that squeezes
    to one); on a SeriesGroupBy any truth value is taken."""
    if series:
        return not is_missing_scalar(r) and bool(r)
    if _base.is_series(r) and len(r) == 1:   # pandas' squeeze()
        r = r.iloc[0]
    elif _base.is_frame(r) and r.shape == (1, 1):
        r = r.iloc[0, 0]
    elif isinstance(r, np.ndarray) and r.size == 1:
        r = r.reshape(-1)[0]
    if isinstance(r, (bool, np.bool_)):
        return bool(r)
    if is_missing_scalar(r):
        return False
    raise DTypeError(f"filter function returned a {type(r).__name__}, but expected a "
                     "scalar bool")


def _is_scalar(x):
    return not (_base.is_series(x) or _base.is_frame(x) or isinstance(x, (list, tuple, dict,
                                                                          np.ndarray, _Row)))


# --------------------------------------------------------------------------
# Series.map / Series.apply
# --------------------------------------------------------------------------

def _map_lookup(col, keys, vals, what, na_pos=-1):
    """For each value of col, the mapped value: keys/vals engine columns
    (keys distinct); a value not found is null, a missing one vals[na_pos]
    (null for -1)."""
    if keys.dtype != col.dtype:
        if col.dtype == "category" or keys.dtype == "category":
            keys = _core.cast(keys, "string") if keys.dtype == "category" else keys
        else:
            try:
                keys = _core.cast(keys, col.dtype)
            except Exception:
                raise DTypeError(f"{what}: the mapping's keys ({keys.dtype}) do not compare "
                                 f"with the values ({col.dtype})") from None
    lt = _core.table_from_columns([col], ["k"])
    rt = _core.table_from_columns([keys], ["k"])
    li, ri = _core.join_indices(lt, rt, [0], [0], "left", False)
    li = values_numpy(_host(li))
    rv = values_numpy(_host(ri)).astype(np.int64)
    m = null_mask(_host(ri))
    if m is not None:
        rv = np.where(m, -1, rv)
    out = np.full(col.length, -1, dtype=np.int64)
    out[li] = rv  # keys are unique: one match at most
    cm = _missing(col)
    if cm is not None:
        out[cm] = na_pos
    return _core.take(vals, _positions(out))


def _missing(col):
    """numpy bool mask of col's missing values (nulls, and NaN of floats),
    or None when it has none."""
    col = _host(col)
    m = null_mask(col)
    if col.dtype.startswith("float"):
        nan = np.isnan(values_numpy(col))
        m = nan if m is None else m | nan
    return m if m is not None and m.any() else None


def _dict_na_value(arg, categorical):
    """[the value a dict maps missing values to], or [] (they stay missing):
    pandas looks a NaN key up in the dict (a categorical: the np.nan
    object only, as ``Categorical.map`` does ``mapper[np.nan]``)."""
    if categorical:
        return [arg[np.nan]] if np.nan in arg else []
    return [v for k, v in arg.items() if k is None or k != k][:1]


class SeriesApply:
    """Series.map / Series.apply (a mixin)."""

    __slots__ = ()

    def map(self, func=None, na_action=None, engine=None, engine_kwargs=None, **kwargs):
        """Each value mapped through func: a dict (a key it lacks gives
        null; a dict with a default, such as a defaultdict or Counter, is
        looked up per value), a Series (its index are the keys) -- both as
        one engine join -- or a function called once per value in Python
        (slow: prefer a dict, a vectorized expression or engine="numba").
        na_action="ignore" leaves missing values missing without calling
        the function.  A categorical applies the function to its
        categories only.

        ``engine="numba"`` (a zambezi extension: pandas 3 takes only
        executor objects here) compiles the function with Numba and runs it
        over every core with the GIL released, on numeric or bool values
        (nulls passed as NaN); ``engine_kwargs`` as pandas' (parallel,
        nogil, nopython, fastmath).  A NaN result is null.  Needs
        ``pip install "zambezi[numba]"``.

        Examples
        --------
        >>> s = zb.Series(["bus", "taxi", None, "bus"])
        >>> s.map({"bus": 2.0, "taxi": 9.5}).to_list()
        [2.0, 9.5, None, 2.0]
        >>> zb.Series([1, 2, None]).map(lambda v: v * 10, na_action="ignore").to_list()
        [10, 20, None]

        Other keyword arguments go to func (as pandas 3.1); ``arg=`` without
        func is func's former name (deprecated, with pandas' warning).
        """
        if func is None:
            if "arg" not in kwargs:
                raise InvalidValueError("The `func` parameter is required")
            func = kwargs.pop("arg")
            warnings.warn("The parameter `arg` has been renamed to `func`, and it will stop "
                          "being supported in a future version of pandas.",
                          _pandas4_warning(), stacklevel=_base.user_stacklevel())
        if engine is not None and not callable(func):
            raise InvalidValueError("The engine argument can only be specified when func is a "
                                    "function")
        if kwargs:
            if not callable(func):
                raise TypeError(f"map: keyword arguments {sorted(kwargs)} are passed to func, "
                                "which must then be a function")
            if engine is not None:
                raise UnsupportedError("map: engine= with keyword arguments for func")
            func = functools.partial(func, **kwargs)
        arg = func
        if na_action not in (None, "ignore"):
            raise InvalidValueError(f"map: na_action must be None or 'ignore', not "
                                    f"{na_action!r}")
        col = self._col
        if isinstance(arg, dict) and hasattr(arg, "__missing__"):
            # a dict with a default (defaultdict, Counter): looked up per value,
            # as pandas (a NaN value as np.nan, so a NaN key finds it)
            table = arg
            arg = lambda v: table[np.nan if isinstance(v, float) and v != v else v]  # noqa: E731
        if isinstance(arg, dict) or _base.is_series(arg):
            na = []
            if isinstance(arg, dict):
                if not arg:
                    vals = to_column([None] * 0, dtype="float64")
                    return self._like(_core.take(vals, _positions(np.full(len(self), -1))))
                if na_action is None:
                    na = _dict_na_value(arg, col.dtype == "category")
                items = [(k, v) for k, v in arg.items() if k is not None and k == k]
                keys = to_column([k for k, _ in items] or [])
                vals = _column([v for _, v in items] + na, "map")
            else:
                if arg._index.nlevels != 1:
                    raise UnsupportedError("map: a Series with a MultiIndex as mapping")
                if not arg._index.is_unique:
                    raise InvalidValueError("map: the mapping Series' index has repeated "
                                            "labels; a value must map to one value")
                keys, vals = arg._index._levels()[0], arg._col
            if col.dtype == "category":
                mapped = _map_lookup(col.dictionary, keys, vals, "map")
                return self._like(_map_categories(col, mapped, na, "map"))
            return self._like(_map_lookup(col, keys, vals, "map", len(vals) - 1 if na else -1))
        if not callable(arg):
            raise DTypeError(f"map: arg must be a dict, a Series or a function, not "
                             f"{type(arg).__name__}")
        if _numba.check_engine(engine, engine_kwargs, "map"):
            return self._like(_numba.map_column(col, arg, na_action, engine_kwargs, "map"))
        return self._like(_map_function(col, arg, na_action, "map"))

    def apply(self, func, args=(), *, convert_dtype=None, by_row="compat", engine=None,
              engine_kwargs=None, **kwargs):
        """func applied to the values: a numpy ufunc runs on the whole
        column (nulls stay null); a method name (e.g. "sum") calls that
        method; ``by_row=False`` calls func once with the Series; any other
        function is called once per value in Python (slow: prefer a ufunc,
        a vectorized expression or engine="numba").  A function returning
        one value per call gives a Series with these labels.
        ``engine="numba"`` (a zambezi extension, as in ``map``) compiles
        func with Numba and runs it on every core.

        Examples
        --------
        >>> s = zb.Series([1.0, 4.0, None])
        >>> s.apply(np.sqrt).to_list()
        [1.0, 2.0, None]
        >>> s.apply(lambda v: v + 1 if v == v else v).to_list()
        [2.0, 5.0, None]
        """
        if isinstance(func, str):
            return getattr(self, func)(*args, **kwargs)
        if isinstance(func, (list, dict)):
            raise UnsupportedError("apply: a list or dict of functions is not supported")
        if not callable(func):
            raise DTypeError(f"apply: func must be callable, not {type(func).__name__}")
        if by_row is False:
            return func(self, *args, **kwargs)
        if _numba.check_engine(engine, engine_kwargs, "apply"):
            if args or kwargs:
                raise UnsupportedError("apply: engine='numba' takes no args or kwargs")
            return self._like(_numba.map_column(self._col, func, None, engine_kwargs,
                                                "apply"))
        if isinstance(func, np.ufunc) and not args and not kwargs and \
                self._col.dtype not in ("string", "category"):
            col = self._col
            m = null_mask(_host(col))
            arr = values_numpy(_host(col))
            with np.errstate(all="ignore"):
                res = np.asarray(func(arr))
            if res.shape != arr.shape:
                raise InvalidValueError("apply: the ufunc changed the length")
            out = _core.column_from_buffer(np.ascontiguousarray(res), mask=m)
            return self._like(out)
        f = func if not (args or kwargs) else (lambda v: func(v, *args, **kwargs))
        return self._like(_map_function(self._col, f, None, "apply"))


def _remap_categories(col, mapped):
    """A categorical col whose categories become mapped (an engine column
    parallel to them): still a categorical when the new categories are
    distinct and not missing (pandas keeps one-to-one maps categorical),
    else the mapped values row by row (one take)."""
    col = _host(col)
    codes = values_numpy(col).astype(np.int64)
    m = null_mask(col)
    if m is not None:
        codes = np.where(m, -1, codes)
    if mapped.null_count == 0 and (mapped.dtype in ("string", "bool") or mapped.dtype.startswith(
            ("int", "uint", "float", "timestamp", "duration"))):
        vals = mapped.to_pylist()  # one per category
        if len(set(vals)) == len(vals) and not any(v != v for v in vals):   # no NaN
            return _core.categorical_from_codes(codes.astype(np.int32), mapped,
                                                ordered=bool(col.ordered))
    return _core.take(mapped, _positions(codes))


def _map_categories(col, mapped, na, what):
    """A categorical col mapped: mapped holds its categories' new values;
    a missing row gets na[0] (kept missing when na is [] or [np.nan], as
    pandas' Categorical.map, which then keeps a categorical)."""
    col = _host(col)
    m = null_mask(col)
    if m is None or not na or na[0] is np.nan:
        return _remap_categories(col, mapped)
    codes = np.where(m, mapped.length, values_numpy(col).astype(np.int64))
    mapped = _concat_columns([mapped, _column(na, what)], what)
    return _core.take(mapped, _positions(codes))


def _map_function(col, func, na_action, what):
    """func called on each value of col (Python; a categorical's categories
    once each).  A missing value is passed as pandas passes it: NaN for
    numbers, text and categories, NaT for times."""
    col = _host(col)
    if col.length == 0:   # no value to call func on: the column as it is (pandas)
        return col
    if col.dtype == "category":
        mapped = _column([func(c) for c in col.dictionary.to_pylist()], what)
        na = [func(np.nan)] if na_action is None and col.null_count else []
        return _map_categories(col, mapped, na, what)
    values = _py_values(col)
    with python_calls(what, len(values), "a Python function per value: slow"):
        if na_action == "ignore":
            out = [None if (v is None or v != v) else func(v) for v in values]
        else:
            out = [func(v) for v in values]
    return _column(out, what)


# --------------------------------------------------------------------------
# DataFrame.map / DataFrame.apply(axis=1)
# --------------------------------------------------------------------------

class _Row:
    """One row of a DataFrame as ``apply(axis=1)`` passes it: a read-only
    mapping column label -> value (``row["a"]``, ``row.a``), with ``name``
    (the row's label), ``index`` (the column labels) and ``values``."""

    __slots__ = ("_labels", "_values", "_pos", "name")

    def __init__(self, labels, values, pos, name):
        self._labels, self._values, self._pos, self.name = labels, values, pos, name

    def __getitem__(self, key):
        try:
            return self._values[self._pos[key]]
        except KeyError:
            raise KeyError(key) from None

    def __getattr__(self, key):
        if key.startswith("_"):
            raise AttributeError(key)
        try:
            return self._values[self._pos[key]]
        except KeyError:
            raise AttributeError(key) from None

    def get(self, key, default=None):
        i = self._pos.get(key)
        return default if i is None else self._values[i]

    @property
    def index(self):
        return list(self._labels)

    @property
    def values(self):
        return list(self._values)

    def keys(self):
        return list(self._labels)

    def items(self):
        return list(zip(self._labels, self._values))

    def to_dict(self):
        return dict(zip(self._labels, self._values))

    def __iter__(self):
        return iter(self._values)

    def __len__(self):
        return len(self._values)

    def __repr__(self):
        return f"_Row({self.name!r}, {self.to_dict()!r})"


def _as_pandas_rows(table, cols):
    """cols (made from the rows apply(axis=1)'s function gave back) as
    pandas makes them: its row of a frame that mixes integer and float
    columns is a float Series, so the integer values come back as floats."""
    kinds = {table.column(i).dtype[:3] for i in range(table.num_columns)}
    if not kinds or not kinds <= {"int", "uin", "flo"} or "flo" not in kinds:
        return cols
    return [_core.cast(c, "float64") if c.dtype.startswith(("int", "uint")) else c
            for c in cols]


def _py_values(col):
    """col's values as Python objects, as pandas passes them to a function:
    Timestamps and Timedeltas (NaT), and NaN for a missing number, text or
    category."""
    vals = to_python_list(_host(col))
    if col.null_count and col.dtype.startswith(("float", "int", "uint", "string", "category")):
        return [np.nan if v is None else v for v in vals]
    return vals


def _row_values(t):
    """(each column's values as apply(axis=1) passes them in a row, the
    dtype of a raw row): numpy scalars of the columns' common type when
    every column is a number (pandas' row is then a numeric Series:
    np.float64(1.0) for an int beside a float), else Python objects."""
    cols = [t.column(i) for i in range(t.num_columns)]
    if cols and all(c.dtype.startswith(("int", "uint", "float")) for c in cols):
        arrs = [to_numpy(_host(c)) for c in cols]   # float64 with NaN where null
        common = np.result_type(*arrs)
        return [list(a.astype(common, copy=False)) for a in arrs], common
    return [_py_values(c) for c in cols], object


class FrameApply:
    """DataFrame.map and the axis=1 form of DataFrame.apply (a mixin)."""

    __slots__ = ()

    def map(self, func, na_action=None, **kwargs):
        """func called on every value (Python, once per value: slow), column
        by column; na_action="ignore" leaves missing values missing.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2], "b": [3, None]})
        >>> df.map(lambda v: v * 10, na_action="ignore").to_dict("list")
        {'a': [10, 20], 'b': [30, None]}
        """
        if not callable(func):
            raise DTypeError(f"map: func must be callable, not {type(func).__name__}")
        if na_action not in (None, "ignore"):
            raise InvalidValueError(f"map: na_action must be None or 'ignore', not "
                                    f"{na_action!r}")
        f = func if not kwargs else (lambda v: func(v, **kwargs))
        t = self._table
        cols = [_map_function(t.column(i), f, na_action, "DataFrame.map")
                for i in range(t.num_columns)]
        return self._like(_core.table_from_columns(cols, list(t.names)))

    def _apply_rows(self, func, raw, result_type, args, kwargs):
        """apply(axis=1): func per row (Python, slow)."""
        if result_type not in (None, "reduce", "expand"):
            raise UnsupportedError(f"apply: result_type={result_type!r} is not supported")
        t = self._table
        labels = _labels.label_list(self)
        pos = {lb: i for i, lb in enumerate(labels)}
        columns, raw_dtype = _row_values(t)
        names = self._index.to_list()
        results = []
        with python_calls("apply", len(self), "a Python function per row: slow"):
            for r, vals in enumerate(zip(*columns)) if columns else \
                    enumerate([()] * len(self)):
                row = np.array(vals, dtype=raw_dtype) if raw else _Row(labels, vals, pos, names[r])
                results.append(func(row, *args, **kwargs))
        rows_back = results and result_type != "reduce" and all(
            isinstance(x, _Row) for x in results)
        if results and result_type != "reduce" and all(
                isinstance(x, _Row) or _base.is_series(x) or _is_pandas(x, "Series")
                for x in results):
            # a row (a Series in pandas; a pandas Series too) per row: its labels
            # become columns
            results = [x.to_dict() for x in results]
        if all(isinstance(x, dict) for x in results) and results and result_type != "reduce":
            keys = list(dict.fromkeys(k for x in results for k in x))
            cols = [_column([x.get(k) for x in results], "apply") for k in keys]
            if rows_back:
                cols = _as_pandas_rows(t, cols)
            return _labels.frame_from(self._constructor, cols, keys, self._index)
        if result_type == "expand" and results and all(
                isinstance(x, (list, tuple)) for x in results):
            width = max(len(x) for x in results)
            cols = [_column([x[j] if j < len(x) else None for x in results], "apply")
                    for j in range(width)]
            return _labels.frame_from(self._constructor, cols, list(range(width)), self._index)
        if not all(_is_scalar(x) for x in results):
            raise UnsupportedError("apply(axis=1): func must give one value per row (or a "
                                   "dict, which makes columns)")
        col = _column(results, "apply") if results else to_column([], dtype="float64")
        return self._constructor_sliced._from_column(col, None, self._index)


# --------------------------------------------------------------------------
# group-by with Python functions
# --------------------------------------------------------------------------

def _group_rows(gb):
    """(order, starts, ngroups): the rows of each group, group by group
    (stable), as positions into the grouped object; group g's rows are
    order[starts[g]:starts[g + 1]]."""
    ids, ng = gb._ids()
    ids_h = _host(ids)
    arr = values_numpy(ids_h).astype(np.int64)
    m = null_mask(ids_h)
    if m is not None:
        arr = np.where(m, -1, arr)
    # the engine's stable sort (parallel radix): rows by group, each group
    # in row order; rows of a dropped key (null ids) sort last and are cut
    kept = ids.length - ids.null_count
    order = values_numpy(_host(_core.sort_indices(ids, True, False)))[:kept]
    counts = np.bincount(arr[arr >= 0], minlength=ng)
    starts = np.zeros(ng + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    return order, starts, ng, arr


def _group_source(gb):
    """The object whose groups a function sees: the selected column(s), or
    the frame without its key columns (pandas 3's include_groups=False)."""
    obj = gb._obj
    if obj._ndim == 1:
        return obj
    if gb._selection is not None:
        return obj[gb._selection[0]] if gb._single else obj[list(gb._selection)]
    keys = [k for k in gb._k.keys if k in obj._table.names and not k.startswith("__key")]
    if not keys:
        return obj
    return obj[[c for c in obj._table.names if c not in keys]]


def _group_keys(gb):
    """The groups' key columns, in group order (an engine group-by)."""
    t = gb._run([spec("size", None)], widen=False)
    return [t.column(i) for i in range(len(gb._k.keys))]


def _each_group(src, order, starts, ng, what="groupby"):
    """Each group's rows of src, group by group; the time spent (the
    caller's function included) is recorded as Python calls."""
    with python_calls(what, ng, "a Python function per group: slow"):
        for g in range(ng):
            rows = order[starts[g]:starts[g + 1]]
            yield src._select_rows(_indexing.take_rows(_int64(rows)))


def group_agg_python(gb, value, func):
    """func (a Python function) applied to column ``value`` of each group:
    an engine column, one value per group in group order."""
    obj = gb._obj
    src = obj[value] if obj._ndim == 2 else obj
    order, starts, ng, _ = _group_rows(gb)
    return _column([func(g) for g in _each_group(src, order, starts, ng)], "agg")


class GroupByApply:
    """GroupBy.apply / filter and the Python-function forms of agg and
    transform (a mixin of zambezi._groupby.GroupBy)."""

    __slots__ = ()

    def _agg_python(self, func, args=(), kwargs=None):
        """agg with a Python function: func(group Series) per column and
        group."""
        kwargs = kwargs or {}
        f = (lambda g: _agg_value(func(g, *args, **kwargs))) if (args or kwargs) else \
            (lambda g: _agg_value(func(g)))
        order, starts, ng, _ = _group_rows(self)
        src = _group_source(self)
        if src._ndim == 1:
            vals = _column([f(g) for g in _each_group(src, order, starts, ng)], "agg")
            table = _core.table_from_columns(_group_keys(self) + [vals],
                                             [f"k{i}" for i in range(len(self._k.keys))]
                                             + ["v"])
            name = src.name
            return self._finish(table, [name], name, series=True)
        cols, labels = [], []
        for nm in src._table.names:
            s = src[nm]
            cols.append(_column([f(g) for g in _each_group(s, order, starts, ng)], "agg"))
            labels.append(nm)
        keys = _group_keys(self)
        table = _core.table_from_columns(keys + cols, [f"k{i}" for i in range(len(keys))]
                                         + [f"v{i}" for i in range(len(cols))])
        return self._finish(table, [self._label(c) for c in labels])

    def _numba_columns(self, func, transform, engine_kwargs, what):
        """func(values, index) per group and value column with Numba:
        (source object, [(name, float64 engine column)])."""
        _numba.validate_group_udf(func, what)
        order, starts, ng, _ = _group_rows(self)
        src = _group_source(self)
        index = _numba.index_values(self._obj, what)
        if src._ndim == 1:
            items = [(src.name, src._col)]
        else:
            items = [(nm, src._table.column(i)) for i, nm in enumerate(src._table.names)]
        out = []
        for nm, col in items:
            vals, _ = _numba.column_values(col, f"{what}: column {nm!r}")
            res = _numba.group_run(vals, index, order, starts, func, transform, engine_kwargs,
                                   what)
            if transform:  # back at the rows' places; NaN where the key was dropped
                full = np.full(len(vals), np.nan)
                full[order] = res
                res = full
            out.append((nm, _numba.result_column(res)))
        return src, out

    def _agg_numba(self, func, engine_kwargs):
        """agg(func, engine="numba"): func(values, index) per group and
        column, float64 results as pandas'."""
        src, out = self._numba_columns(func, False, engine_kwargs, "agg")
        keys = _group_keys(self)
        knames = [f"k{i}" for i in range(len(keys))]
        if src._ndim == 1:
            table = _core.table_from_columns(keys + [out[0][1]], knames + ["v"])
            return self._finish(table, [src.name], src.name, series=True)
        table = _core.table_from_columns(keys + [c for _, c in out],
                                         knames + [f"v{i}" for i in range(len(out))])
        return self._finish(table, [self._label(nm) for nm, _ in out])

    def _transform_numba(self, func, engine_kwargs):
        """transform(func, engine="numba"): func(values, index) per group
        and column giving one value (broadcast) or one per row."""
        src, out = self._numba_columns(func, True, engine_kwargs, "transform")
        if src._ndim == 1:
            return self._same_rows(out[0][1], src.name)
        return self._obj._like(_core.table_from_columns([c for _, c in out],
                                                        [nm for nm, _ in out]))

    def _transform_python(self, func, args=(), kwargs=None):
        """transform with a Python function: func(group Series) per column
        and group, a value (broadcast) or as many values as the group's
        rows, put back at the rows' places (null where the key was
        dropped)."""
        kwargs = kwargs or {}
        order, starts, ng, ids = _group_rows(self)
        src = _group_source(self)
        n = len(self._obj)

        def one(s):
            parts = []
            for g, sub in enumerate(_each_group(s, order, starts, ng)):
                r = func(sub, *args, **kwargs)
                size = starts[g + 1] - starts[g]
                if _is_scalar(r):
                    c = _column([r], "transform")
                    parts.append(_core.take(c, _int64(np.zeros(size, dtype=np.int64))))
                else:
                    c = r._col if _base.is_series(r) else _column(list(r), "transform")
                    if c.length != size:
                        raise InvalidValueError(
                            f"transform: the function gave {c.length} values for a group of "
                            f"{size} rows")
                    parts.append(c)
            if not parts:
                return _core.take(s._col.slice(0, 0), _positions(np.full(n, -1)))
            big = _concat_columns(parts, "the transformed groups")
            where = np.full(n, -1, dtype=np.int64)
            where[order] = np.arange(len(order), dtype=np.int64)
            return _core.take(big, _positions(where))

        if src._ndim == 1:
            return self._same_rows(one(src), src.name)
        names = list(src._table.names)
        cols = [one(src[nm]) for nm in names]
        return self._obj._like(_core.table_from_columns(cols, names))

    def filter(self, func, dropna=True, *args, **kwargs):
        """The rows of the groups for which func(group) is True (func is
        called once per group, in Python), in their original order and
        with their labels; ``dropna=False`` keeps the other rows as nulls.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a"], "n": [1, 5, 2]})
        >>> df.groupby("k").filter(lambda g: g["n"].sum() > 4).to_dict("list")
        {'k': ['b'], 'n': [5]}
        """
        if not callable(func):
            raise DTypeError(f"filter: func must be callable, not {type(func).__name__}")
        order, starts, ng, ids = _group_rows(self)
        src = _group_source(self) if self._selection is not None else self._obj
        keep = np.zeros(ng, dtype=bool)
        series = src._ndim == 1
        for g, sub in enumerate(_each_group(src, order, starts, ng)):
            if series:   # as pandas: any ValueError or TypeError, the function's own too
                try:
                    keep[g] = _filter_verdict(func(sub, *args, **kwargs), True)
                except (ValueError, TypeError) as e:
                    raise DTypeError("the filter must return a boolean result") from e
            else:
                keep[g] = _filter_verdict(func(sub, *args, **kwargs), False)
        mask = np.zeros(len(ids), dtype=bool)
        valid = ids >= 0
        mask[valid] = keep[ids[valid]]
        if dropna:
            return src._select_rows(_indexing.filter_rows(to_column(mask)))
        pos = np.where(mask, np.arange(len(ids)), -1)
        out = src._like(_core.take(src._engine, _positions(pos)))
        return out

    def apply(self, func, *args, include_groups=False, **kwargs):
        """func called once per group (in Python: slow) with the group's
        rows (a DataFrame without the key columns, pandas 3's
        include_groups=False; or the selected Series).  Results: one value
        per group gives a Series indexed by the keys; Series with the same
        labels for every group give a frame (those labels as columns);
        frames or Series of other shapes are put one after another with
        the keys as outer index levels.

        Examples
        --------
        >>> df = zb.DataFrame({"k": ["a", "b", "a"], "n": [1, 5, 2]})
        >>> df.groupby("k").apply(lambda g: g["n"].max() - g["n"].min())
        k
        a    1
        b    0
        dtype: int64
        """
        if include_groups:
            raise UnsupportedError("apply: include_groups=True is not supported (pandas 3 "
                                   "removed it)")
        if not callable(func):
            raise DTypeError(f"apply: func must be callable, not {type(func).__name__}")
        order, starts, ng, _ = _group_rows(self)
        src = _group_source(self)
        results = [_adopt(func(g, *args, **kwargs))
                   for g in _each_group(src, order, starts, ng)]
        keys = _group_keys(self)
        knames = list(self._k.labels)
        if all(_is_scalar(r) for r in results):
            col = _column(results, "apply") if results else to_column([], dtype="float64")
            index = _ix.Index._from_columns(keys, knames)
            # a selected column's values keep its name (pandas' SeriesGroupBy)
            name = src._name if src._ndim == 1 else None
            return _base.series_class()._from_column(col, name, index)
        from zambezi._concat import concat

        if all(_base.is_series(r) for r in results) and results and \
                all(r._index.equals(results[0]._index) for r in results[1:]) and \
                src._ndim == 2:
            labels = results[0]._index.to_list()
            cols = [_concat_columns([r._col.slice(j, 1) for r in results], "apply")
                    for j in range(len(labels))]
            index = _ix.Index._from_columns(keys, knames)
            out = _labels.frame_from(src._constructor_expanddim if src._ndim == 1 else
                                     src._constructor, cols, labels, index)
            return out if self._as_index else out.reset_index()
        if not all(_base.is_series(r) or _base.is_frame(r) for r in results):
            raise UnsupportedError("apply: func must give one value, a Series or a DataFrame "
                                   "per group, the same kind for every group")
        out = concat(results)
        lengths = np.array([len(r) for r in results], dtype=np.int64)
        rep = _int64(np.repeat(np.arange(ng, dtype=np.int64), lengths))
        levels = [_core.take(k, rep) for k in keys] + list(out._index._levels())
        return out._with_index(_ix.Index._from_columns(levels, knames + list(out._index.names)))
