"""Guards of the accelerator's dispatch: for a call (a method name of a
proxy, its arguments) that zambezi would answer differently from pandas,
a guard gives the reason the call runs on pandas instead (the profile
records it), or None to try zambezi.  Each guard is cheap next to the call
it guards: a look at the arguments, at most one vectorized pass over a
divisor.  GUARDS maps a method name to its guard (zambezi.pandas._proxy's
dispatch looks it up for every call).
"""

import numpy as np

from zambezi import _dtypes, _missing
from zambezi.pandas import _proxy


def _numeric_columns_guard(proxy, args, kwargs):
    # pandas refuses nlargest/nsmallest on str, object and category columns
    # (TypeError); zambezi would sort them.
    if proxy._zb_kind != "frame":
        return None
    cols = kwargs.get("columns", args[1] if len(args) > 1 else None)
    # a label of any kind (an int from unstack, a tuple) is one column
    cols = list(cols) if isinstance(cols, list) else [cols]
    try:
        fast = proxy._zb_get_fast() if proxy._zb_slow is None else None
        dtypes = (list(proxy._zb_slow.dtypes[cols]) if fast is None
                  else [fast[c].to_pandas().dtype for c in cols])
    except Exception:
        return "columns not checked"
    for dt in dtypes:
        if getattr(dt, "kind", "O") not in "biufmM":
            return f"{dt} column: pandas raises TypeError"
    return None


def _astype_guard(proxy, args, kwargs):
    # zambezi knows numpy dtypes only: a pandas extension dtype ("Int64",
    # "string", "category", pd.ArrowDtype ...) or str, dict of them, goes to pandas.
    spec = kwargs.get("dtype", args[0] if args else None)
    specs = list(spec.values()) if isinstance(spec, dict) else [spec]
    for x in specs:
        if x is str or x is object or isinstance(x, str) and (
                x[:1].isupper() or x in ("str", "string", "category", "boolean", "object", "O")
                or "[" in x):
            return f"astype({x!r}) is served by pandas"
        if isinstance(x, type) and not (issubclass(x, np.generic) or x in (int, float, bool)):
            return f"astype({x!r}) is served by pandas"
        if not isinstance(x, (str, type, np.dtype)):
            return f"astype({x!r}) is served by pandas"
    if kwargs.get("errors", "raise") != "raise":
        return "astype(errors=...) is served by pandas"
    return _missing_to_int(proxy, spec)


def _missing_to_int(proxy, spec):
    """astype to a numpy integer dtype of a column with missing values:
    pandas raises (IntCastingNaNError), zambezi keeps them as nulls."""
    def is_int(x):
        try:
            return np.dtype(x).kind in "iu"
        except TypeError:
            return False

    if isinstance(spec, dict):
        names = [k for k, x in spec.items() if is_int(x)]
    else:
        names = None if is_int(spec) else []
    if names == []:
        return None
    try:
        fobj = proxy._zb_get_fast()
        if proxy._zb_kind == "series":
            missing = bool(fobj.isna().any())
        else:
            cols = fobj.columns if names is None else [n for n in names if n in fobj.columns]
            missing = any(bool(fobj[n].isna().any()) for n in cols)
    except Exception:
        return None   # the attempt itself will tell
    return "astype to integers of missing values: pandas raises" if missing else None


_GROUPBY_REDUCTIONS = frozenset(["sum", "mean", "median", "std", "var", "sem", "prod",
                                  "quantile", "min", "max", "any", "all", "skew", "kurt",
                                  "first", "last"])


def _series_key_names(proxy):
    """The names of the Series keys of the group-by proxy (df.groupby(
    [df["A"], df["B"]])): pandas leaves a frame's own column given as a key
    out of the values, as it leaves out a key given by name."""
    rec = proxy._zb_recipe
    if rec is None or rec[1] != "groupby":
        return set()
    by = rec[3].get("by", rec[2][0] if rec[2] else None)
    names = set()
    for k in by if isinstance(by, (list, tuple)) else [by]:
        if _proxy._is_proxy(k) and k._zb_kind == "series":
            side = k._zb_slow if k._zb_slow is not None else k._zb_fast
            name = getattr(side, "name", None)
            if isinstance(name, str):
                names.add(name)
    return names


def _groupby_nuisance_guard(name):
    """The guard of DataFrameGroupBy.name: a group-by of a frame reduced
    without numeric_only, where zambezi would leave out columns the
    reduction does not take (strings for mean...), goes to pandas, which
    raises TypeError (or, for dates, computes them)."""
    def guard(proxy, args, kwargs):
        if type(proxy).__name__ != "DataFrameGroupBy" or kwargs.get("numeric_only"):
            return None
        if name in ("agg", "aggregate"):
            func = kwargs.get("func", args[0] if args else None)
            funcs = func if isinstance(func, (list, tuple)) else [func]
            if not all(isinstance(f, str) for f in funcs):
                return None
            ops = [f for f in funcs if f in _GROUPBY_REDUCTIONS]
        else:
            ops = [name]
        try:
            fast = proxy._zb_get_fast()
            if fast._selection is not None or fast._obj._ndim != 2:
                return None
            every = fast._value_columns(None)
            keys = _series_key_names(proxy)
            for op in ops:
                left_out = set(every) - set(fast._value_columns(op)) - keys
                if left_out:
                    return f"{op} without numeric_only leaves out columns: pandas decides"
        except Exception:
            return None   # the zambezi attempt fails or succeeds on its own
        return None
    return guard


_LISTLIKE_OK = frozenset([list, np.ndarray, str, bytes, int, float, bool, complex, type(None)])


def _listlike_operand_guard(proxy, args, kwargs):
    # pandas 3.1 deprecates operators and flex methods (s + (1, 2), s.add(
    # range(3))) with a list-like that is not a list, an array or a pandas
    # object (a tuple, range, deque...), and warns (Pandas4Warning): such
    # calls go to pandas, which gives the warning with the answer.
    other = args[0] if args else kwargs.get("other")
    t = type(other)
    if t in _LISTLIKE_OK or _proxy._is_proxy(other) or isinstance(other, (np.generic, dict)):
        return None
    if hasattr(other, "__iter__") and not hasattr(other, "__array__") \
            and not _proxy._is_pandas_type(t) and not hasattr(other, "dtype"):
        return f"an operand of type {t.__name__}: pandas warns (deprecated)"
    return None


_BINARY_NAMES = [f"__{n}__" for n in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
    "eq", "ne", "lt", "le", "gt", "ge")]
_BINARY_NAMES += [f"__r{n[2:]}" for n in _BINARY_NAMES[:10]]
_BINARY_NAMES += ["add", "sub", "mul", "truediv", "div", "floordiv", "mod", "pow", "radd",
                  "rsub", "rmul", "rtruediv", "rdiv", "rfloordiv", "rmod", "rpow", "eq", "ne",
                  "lt", "le", "gt", "ge", "subtract", "multiply", "divide"]

def _holds_int_zero(x):
    """Whether x, a divisor, holds an integer (or bool) zero: True, False,
    or None when it cannot tell.  Vectorized: one comparison per column."""
    if isinstance(x, (bool, np.bool_)):
        return not x
    if isinstance(x, (int, np.integer)):
        return x == 0
    if x is None or isinstance(x, (float, np.floating, str, bytes)):
        return False
    if _proxy._is_proxy(x):
        if x._zb_kind == "intermediate":
            return None
        side = x._zb_slow
        if side is None:
            side = x._zb_fast
            if x._zb_kind == "frame":
                cols = [c for c, d in side._zb_dtypes.items()
                        if str(d).startswith(("int", "uint", "bool"))]
                return any(_holds_int_zero(np.asarray(side[c])) for c in cols)
        x = side
    try:
        if isinstance(x, _proxy._real.pd.DataFrame):
            x = x.select_dtypes(include=["integer", "bool"])
        arr = np.asarray(x)
    except Exception:
        return None
    if arr.dtype.kind not in "iub":
        return None if arr.dtype.kind == "O" else False
    return bool((arr == 0).any()) if arr.dtype.kind != "b" else not arr.all()


_DIVISIONS = frozenset(["__floordiv__", "__mod__", "__divmod__", "floordiv", "mod", "divmod"])
_RDIVISIONS = frozenset(["__rfloordiv__", "__rmod__", "__rdivmod__", "rfloordiv", "rmod",
                         "rdivmod"])


def _division_guard(name):
    """zambezi gives null for an integer // or % by zero (docs/api.md);
    pandas gives inf / -inf / NaN in float64 (and its flex methods with a
    Series give numpy's 0): such a division goes to pandas."""
    reflected = name in _RDIVISIONS

    def guard(proxy, args, kwargs):
        reason = _listlike_operand_guard(proxy, args, kwargs)
        if reason is not None:
            return reason
        divisor = proxy if reflected else (args[0] if args else kwargs.get("other"))
        if _holds_int_zero(divisor) is not False:
            return "integer division by zero: pandas gives inf/NaN, zambezi null"
        return None
    return guard


_DIVISION_UFUNCS = frozenset(["floor_divide", "remainder", "fmod", "divmod"])


_LOGICAL_UFUNCS = frozenset(["logical_and", "logical_or", "logical_xor", "logical_not"])


def _numeric_operand(x):
    """Whether x is a number, bool, or an array or Series of them."""
    if isinstance(x, (bool, int, float, np.bool_, np.integer, np.floating)):
        return not isinstance(x, np.timedelta64)   # (numpy makes it an integer)
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "biuf"
    if _proxy._is_proxy(x) and x._zb_kind == "series":
        if x._zb_slow is not None:
            return getattr(x._zb_slow.dtype, "kind", "O") in "biuf" and \
                isinstance(x._zb_slow.dtype, np.dtype)
        return str(x._zb_fast.dtype).startswith(("int", "uint", "float", "bool"))
    return False


def _ufunc_guard(proxy, args, kwargs):
    # np.floor_divide(s, 0), np.remainder, np.divmod: as the operators
    ufunc = args[0] if args else None
    if getattr(ufunc, "__name__", None) in _LOGICAL_UFUNCS and \
            not all(_numeric_operand(x) for x in args[2:]):
        # pandas 3.1 refuses datetimelike operands (TypeError) and defers
        # to other libraries' objects: pandas decides
        return "a logical ufunc of operands that are not numbers or bools"
    if getattr(ufunc, "__name__", None) in _DIVISION_UFUNCS and len(args) >= 4:
        if _holds_int_zero(args[3]) is not False:
            return "integer division by zero: pandas gives inf/NaN, zambezi null"
    return None


def _list_elements_guard(proxy, args, kwargs):
    # .str[i], .str.get(i) and .str.join(sep) of a Series of lists (made
    # by str.split, str.findall ...): pandas gives an object column (str
    # values, NaN where missing), zambezi keeps the element type (a str
    # column, docs/api.md), which later calls would see: pandas serves them.
    if type(proxy).__name__ != "StringMethods":
        return None
    if args and isinstance(args[0], slice):
        return None   # lists sliced: an object column of lists on both sides
    rec = proxy._zb_recipe
    parent = rec[0] if rec is not None else None
    fast = parent._zb_fast if _proxy._is_proxy(parent) else None
    if fast is not None and str(getattr(fast, "dtype", "")).startswith("list<"):
        return "an element of lists: pandas gives object values"
    return None


def _dates_guard(proxy, args, kwargs):
    # .dt.date of timestamps with missing values: pandas' object column
    # holds NaT there, zambezi's dates None (to_numpy, tolist, a group-by
    # key's label): pandas serves it.
    if type(proxy).__name__ != "DatetimeProperties":
        return None
    rec = proxy._zb_recipe
    parent = rec[0] if rec is not None else None
    if not _proxy._is_proxy(parent):
        return None
    side = parent._zb_slow if parent._zb_slow is not None else parent._zb_fast
    try:
        missing = bool(side.isna().any())
    except Exception:
        return None
    return "dates of missing timestamps: pandas gives NaT" if missing else None


def _replace_none_guard(proxy, args, kwargs):
    # pandas keeps a None replacement in an object column (a number column
    # becomes object); zambezi gives a missing value of the column's dtype
    news = []
    if len(args) > 1 or "value" in kwargs:
        news.append(kwargs["value"] if "value" in kwargs else args[1])
    old = kwargs.get("to_replace", args[0] if args else None)
    if isinstance(old, dict):
        for v in old.values():
            news.extend(v.values() if isinstance(v, dict) else [v])
    if any(v is None or isinstance(v, (list, tuple)) and any(x is None for x in v)
           for v in news):
        return "replace with None: pandas keeps None in an object column"
    return None


def _is_categorical(x, frame=None):
    """Whether x -- a Series proxy, or a column label of the frame proxy --
    is categorical."""
    if _proxy._is_proxy(x) and x._zb_kind == "series":
        slow = x._zb_slow
        return str(slow.dtype) == "category" if slow is not None else \
            x._zb_get_fast()._col.dtype == "category"
    if frame is None or not isinstance(x, str) or not _proxy._is_proxy(frame):
        return False
    slow = frame._zb_slow
    try:
        return str(slow[x].dtype) == "category" if slow is not None else \
            frame._zb_get_fast()[x]._col.dtype == "category"
    except Exception:
        return False


def _holds_categorical(proxy):
    """Whether the data a proxy (or the intermediates made from it) comes
    from has a categorical column."""
    while proxy._zb_kind == "intermediate":
        rec = proxy._zb_recipe
        if rec is None or not _proxy._is_proxy(rec[0]):
            return False
        proxy = rec[0]
    if proxy._zb_kind == "series":
        return _is_categorical(proxy)
    if proxy._zb_kind != "frame":
        return False
    slow = proxy._zb_slow
    if slow is not None:
        return any(str(dt) == "category" for dt in slow.dtypes)
    t = proxy._zb_get_fast()._table
    return any(t.column(i).dtype == "category" for i in range(t.num_columns))


def _groupby_value_counts_guard(proxy, args, kwargs):
    # value_counts(bins=...): pandas labels the bins with Intervals,
    # zambezi with their text (as zambezi's cut)
    if kwargs.get("bins") is not None or len(args) > 3 and args[3] is not None:
        return "value_counts(bins=...): pandas labels bins with Intervals"
    # pandas' group-by value_counts lists a categorical column's unused
    # categories too (count 0); zambezi's the values that occur
    if type(proxy).__name__ in ("DataFrameGroupBy", "SeriesGroupBy") and \
            _holds_categorical(proxy):
        return "group-by value_counts of categoricals: pandas lists unused categories"
    return None


def _categorical_str_guard(proxy, args, kwargs):
    # pandas' .str of a categorical gives object columns (zambezi: str)
    if proxy._zb_kind == "series" and _is_categorical(proxy):
        return "str methods of a categorical give object columns"
    return None


def _reshape_keys_guard(names, frame_first=True):
    """The guard of pivot_table / pivot / crosstab (a frame's method, or
    pandas' function, with the frame first when frame_first): categorical
    keys give pandas a CategoricalIndex of row or column labels (with
    margins, an object Index); zambezi labels are plain.  names: the key
    arguments, in positional order after the frame."""
    def guard(proxy, args, kwargs):
        if proxy is None and frame_first:   # pd.pivot_table(df, ...)
            proxy, args = (args[0] if args else kwargs.get("data")), args[1:]
        keys = [kwargs.get(n, args[i] if i < len(args) else None) for i, n in enumerate(names)]
        flat = [k for key in keys for k in (key if isinstance(key, list) else [key])]
        if any(_is_categorical(k, proxy) for k in flat if k is not None):
            return "categorical keys: pandas labels the result with a CategoricalIndex"
        return None
    return guard


def _fillna_guard(proxy, args, kwargs):
    # pandas fills a column whose dtype cannot hold a scalar value too
    # (turning it into an object column, with a Pandas4Warning); zambezi
    # leaves that column's missing values as they are
    if proxy._zb_kind != "frame":
        return None
    value = kwargs.get("value", args[0] if args else None)
    if value is None or not _dtypes.is_scalar(value):
        return None
    v = _dtypes.py_scalar(value)
    fast = proxy._zb_get_fast() if proxy._zb_slow is None else None
    if fast is None:   # pandas holds it: its dtypes, as zambezi would hold them
        slow = proxy._zb_slow
        try:
            held = [i for i, dt in enumerate(slow.dtypes)
                    if not _missing._fill_applies(_as_zambezi_dtype(dt), v)]
            bad = held and bool(slow.iloc[:, held].isna().to_numpy().any())
        except Exception:
            return "fillna: columns not checked"
    else:
        t = fast._table
        held = [i for i in range(t.num_columns)
                if not _missing._fill_applies(t.column(i).dtype, v)]
        bad = held and bool(fast.iloc[:, held].isna().to_numpy().any())
    return "fillna: pandas fills a column of another dtype too, as object" if bad else None


def _as_zambezi_dtype(dt):
    """The zambezi dtype family a pandas dtype converts to, as
    _missing._fill_applies reads it."""
    kind = getattr(dt, "kind", "O")
    if str(dt) == "category":
        return "category"
    return {"f": "float64", "i": "int64", "u": "uint64", "b": "bool", "M": "timestamp[ns]",
            "m": "duration[ns]"}.get(kind, "string")


_MASKED_NAMES = frozenset(["Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32",
                           "UInt64", "Float32", "Float64", "boolean"])


def _select_dtypes_guard(proxy, args, kwargs):
    # pandas' nullable dtype names select only columns of those dtypes;
    # zambezi takes "Int64" as int64 whether or not the column has nulls
    for i, name in enumerate(("include", "exclude")):
        spec = kwargs.get(name, args[i] if i < len(args) else None)
        specs = spec if isinstance(spec, (list, tuple, set, frozenset)) else [spec]
        if any(str(x) in _MASKED_NAMES for x in specs if x is not None):
            return "select_dtypes of pandas' nullable dtypes"
    return None


_PIVOT_GUARD = _reshape_keys_guard(["values", "index", "columns"])
_PIVOT_KEYS_GUARD = _reshape_keys_guard(["columns", "index", "values"])   # pivot(columns, index)
# module-level functions: (None, args, kwargs)
FUNCTION_GUARDS = {"pandas.pivot_table": _PIVOT_GUARD, "pandas.pivot": _PIVOT_KEYS_GUARD,
                   "pandas.crosstab": _reshape_keys_guard(["index", "columns"], False)}


GUARDS = {"nlargest": _numeric_columns_guard, "nsmallest": _numeric_columns_guard,
           "astype": _astype_guard, "__array_ufunc__": _ufunc_guard,
           "str": _categorical_str_guard, "replace": _replace_none_guard,
           "pivot_table": _PIVOT_GUARD, "pivot": _PIVOT_KEYS_GUARD,
           "value_counts": _groupby_value_counts_guard, "fillna": _fillna_guard,
           "select_dtypes": _select_dtypes_guard}
GUARDS.update((n, _listlike_operand_guard) for n in _BINARY_NAMES)
GUARDS.update((n, _list_elements_guard) for n in ("get", "__getitem__", "join"))
GUARDS["date"] = _dates_guard
# pandas gives isocalendar's columns its nullable Int32 / UInt32 dtypes
GUARDS["isocalendar"] = lambda proxy, args, kwargs: "isocalendar: pandas' nullable dtypes"
GUARDS.update((n, _division_guard(n)) for n in _DIVISIONS | _RDIVISIONS)
GUARDS.update((n, _groupby_nuisance_guard(n)) for n in _GROUPBY_REDUCTIONS | {"agg", "aggregate"})
