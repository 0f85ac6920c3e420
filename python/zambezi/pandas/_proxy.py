"""Fast/slow proxies: objects that look like pandas objects to user code and
hold a zambezi object (the fast side), a pandas object (the slow side), or
both.

A proxy converts lazily and caches the other side.  Each call is first tried
on zambezi (when the object is held by zambezi, or big enough to be worth
converting: settings.min_rows); any exception there, or a result zambezi
cannot stand for, runs the call on pandas instead (converting once) and
records the reason.  Results are wrapped back into proxies.

Kinds of proxy:
- data proxies (DataFrame, Series, Index types): the two sides convert with
  zambezi.from_pandas / to_pandas.
- intermediate proxies (GroupBy, Rolling, accessors such as .str/.loc): they
  remember the recipe that made them (parent proxy, attribute or method,
  arguments) and build a missing side by replaying it on the parent's side.

Mutations (setitem, attribute assignment, inplace=True, loc[...] = ...) run
on one side and drop the cached other side, so both never disagree.
"""

import copy
import functools
import inspect
import io
import os
import sys
import time
import types
import warnings
from time import perf_counter

import numpy as np

from zambezi.pandas import _class_attrs, _debug, _guards, _pickling
from zambezi.pandas._convertible import (
    _NoFast, check_dtype as _check_dtype, check_index as _check_index,
    frame_convertible as _frame_convertible, real as _real)
from zambezi.pandas._config import settings
from zambezi.pandas._devices import placement
from zambezi.pandas._profile import recorder

# Filled by _wrappers.setup(): real pandas class -> proxy class, and the
# zambezi classes that stand for pandas data types.
SLOW_TO_PROXY = {}
_NAME_TO_PROXY = {}


class _Unconvertible:
    def __init__(self, reason):
        self.reason = reason


# Names always served by pandas: printing and introspection must be
# byte-identical, and these return pandas-only objects.
SLOW_ONLY = frozenset([
    "__repr__", "__str__", "__format__", "_repr_html_", "_repr_latex_", "to_string", "to_html",
    "to_markdown", "to_latex", "info", "describe", "dtypes", "dtype", "values", "array",
    "style", "plot", "hist", "boxplot", "attrs", "flags", "memory_usage", "__iter__",
    "iterrows", "itertuples", "items", "keys", "__reduce__", "__reduce_ex__", "__getstate__",
    "__sizeof__", "to_pickle", "to_dict", "to_records", "tolist", "to_list", "__dir__",
    "__array_priority__", "_constructor", "axes", "empty", "__contains__", "name", "names",
    "to_clipboard", "to_excel", "to_json", "to_xml", "to_sql", "to_hdf", "to_feather",
    "to_stata", "to_orc", "pipe", "__finalize__", "set_flags", "__class_getitem__", "__hash__",
    "nbytes", "convert_dtypes",  # (pandas' nullable dtypes, which zambezi does not show)
    "__array_function__", "__dataframe__", "__arrow_c_stream__", "__arrow_c_array__",
    # aliases pandas 3.1 deprecates (Series.dt.day_of_week ...): pandas serves
    # them, so its deprecation warning reaches the user
    "dayofweek", "dayofyear", "daysinmonth", "weekday",
])
# Calls where zambezi's answer is known to differ from pandas 3 (found with
# ZAMBEZI_PANDAS_DEBUG=1): pandas serves them until zambezi is fixed.
KNOWN_DIFFERENT = {
    # A Python function per group: pandas calls it on its own group objects
    # with less overhead per group than proxies of zambezi groups (the
    # db-benchmark q9 of bench/accel/groupby.py: same answers, about 3x
    # slower on zambezi), and a zambezi attempt that failed after calling
    # the function would call it again on pandas (_RAN_TWICE).
    "DataFrameGroupBy.apply": "a Python function per group runs on pandas",
    "SeriesGroupBy.apply": "a Python function per group runs on pandas",
    # pandas casts the mapped values back to the index's dtype where they fit
    # (int8 stays int8, float32 float32: Index._cast_pointwise_result)
    "Index.map": "pandas' dtype of mapped index labels",
    "DatetimeIndex.map": "pandas' dtype of mapped index labels",
}
# Proxy types whose every call pandas serves: a RangeIndex's operations are
# arithmetic on (start, stop, step) in pandas, and their results stay
# RangeIndexes where they can (difference, union, slices, + 1 ...), which a
# zambezi Index of the values is not.
KNOWN_DIFFERENT_TYPES = {
    "RangeIndex": "RangeIndex operations run on pandas (their results stay ranges)",
}


_STR_PREDICATES = frozenset([
    "contains", "match", "fullmatch", "startswith", "endswith", "isalnum", "isalpha",
    "isdigit", "isspace", "islower", "isupper", "istitle", "isnumeric", "isdecimal", "isascii"])


def _of_str_dtype(proxy):
    """Whether the .str accessor proxy belongs to a Series of pandas' "str"
    dtype (NaN as its missing value), as every string column zambezi
    computes is when converted; not for object or "string" (pd.NA)."""
    rec = proxy._zb_recipe
    parent = rec[0] if rec is not None else None
    if not _is_proxy(parent):
        return False
    slow = parent._zb_slow
    if slow is None:
        return True
    dt = slow.dtype
    return type(dt).__name__ == "StringDtype" and dt.na_value is not _real.pd.NA


# Kinds of proxies whose pandas side has flags (set_flags).
_FLAGGED_KINDS = frozenset(["frame", "series"])
_SORTS = frozenset(["sort_values", "sort_index", "argsort"])   # pandas' default: "quicksort"


def _no_duplicate_labels(proxy):
    """Whether the pandas frame or Series behind proxy (or behind the
    frame an intermediate such as .loc or a group-by was made from) was
    flagged allows_duplicate_labels=False (set_flags)."""
    if proxy._zb_kind == "intermediate":
        rec = proxy._zb_recipe
        if rec is None:
            return False
        proxy = rec[0]
        if not _is_proxy(proxy):
            return False
    slow = proxy._zb_slow
    return slow is not None and proxy._zb_kind in _FLAGGED_KINDS and \
        not slow.flags._allows_duplicate_labels


# Calls that change the object they are called on.
MUTATORS = frozenset([
    "__setitem__", "__delitem__", "insert", "pop", "update", "__iadd__", "__isub__",
    "__imul__", "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__", "__iand__",
    "__ior__", "__ixor__", "_set_names", "set_names_inplace",
])


# ---------------------------------------------------------------------------
# The proxy classes


class _ProxyMeta(type):
    """Metaclass of proxy types: isinstance/issubclass also accept the real
    pandas type, class attributes come from the real type (wrapped), and
    calling the class builds a pandas object wrapped in a proxy."""

    def __instancecheck__(cls, inst):
        if type.__instancecheck__(cls, inst):
            return True
        slow = cls.__dict__.get("_zb_slow_type")
        if slow is None:
            return False
        if isinstance(inst, _Proxy):
            return issubclass(type(inst)._zb_slow_type, slow)
        return isinstance(inst, slow)

    def __subclasscheck__(cls, sub):
        if type.__subclasscheck__(cls, sub):
            return True
        slow = cls.__dict__.get("_zb_slow_type")
        if slow is None or not isinstance(sub, type):
            return False
        return issubclass(getattr(sub, "_zb_slow_type", sub), slow)

    def __getattr__(cls, name):
        if name.startswith("_zb_"):
            raise AttributeError(name)
        attr = getattr(cls._zb_slow_type, name)
        if isinstance(attr, type):
            return SLOW_TO_PROXY.get(attr, attr)
        if name == "_simple_new":
            return attr   # pickle's other way into an index (_new_DatetimeIndex): see __new__
        if callable(attr):
            return wrap_function(attr, f"{cls.__name__}.{name}")
        return attr

    def __setattr__(cls, name, value):
        _class_attrs.set_attr(cls, name, value)

    def __delattr__(cls, name):
        _class_attrs.del_attr(cls, name)

    def __dir__(cls):
        return sorted(set(type.__dir__(cls)) | set(dir(cls._zb_slow_type)))

    def __call__(cls, *args, **kwargs):
        t0 = time.perf_counter()
        obj = cls._zb_slow_type(*unwrap_slow(args), **unwrap_slow(kwargs))
        recorder.slow(f"{cls.__name__}.__init__", time.perf_counter() - t0)
        return wrap_slow(obj)

    def __repr__(cls):
        return repr(cls._zb_slow_type)


class _Proxy(metaclass=_ProxyMeta):
    """Base of every proxy type (fields are set with object.__setattr__)."""

    # slots: no instance dict to build for every result, and faster reads
    # _zb_stamp: on a data proxy, how many times it was changed in place; on
    # an intermediate, that count of its root when its sides were made (a
    # change of the root since then makes them stale: see _refresh)
    __slots__ = ("_zb_fast", "_zb_slow", "_zb_recipe", "_zb_stamp", "__weakref__")
    _zb_slow_type = None
    _zb_kind = "intermediate"

    def __new__(cls, *args, **kwargs):
        # Reached directly only from pickle (copyreg.__newobj__ and pandas'
        # _new_Index call cls.__new__); the metaclass handles cls(...).
        # With arguments it builds an Index that a pickle (pandas', loaded
        # by pickle.load in user code) holds: pandas' own, as it goes into a
        # frame, a Series or a categorical dtype (pandas would turn a proxy
        # there into an Index of its values: a MultiIndex into tuples); an
        # Index pickled alone also loads as pandas' own.
        if args or kwargs:
            return cls._zb_slow_type(*unwrap_slow(args), **unwrap_slow(kwargs))
        self = object.__new__(cls)
        _init(self, None, None, None)
        return self

    def __setstate__(self, state):
        real = object.__new__(type(self)._zb_slow_type)
        real.__setstate__(state)
        _init(self, None, real, None)

    def __reduce_ex__(self, protocol):
        return _pickling.pandas_pickle(self._zb_get_slow(), protocol)

    def __getattr__(self, name):
        if name.startswith("_zb_"):
            raise AttributeError(name)
        return _get_attribute(self, name)

    def __setattr__(self, name, value):
        if name.startswith("_zb_"):
            object.__setattr__(self, name, value)
            return
        t0 = time.perf_counter()
        rec = self._zb_recipe
        if self._zb_kind == "index" and rec is not None and rec[4] and \
                rec[1] in ("index", "columns") and rec[0]._zb_kind in ("frame", "series"):
            # df.columns.name = ...: renames the labels of df itself, as in pandas
            parent = rec[0]
            real = getattr(parent._zb_get_slow(), rec[1])
            setattr(real, name, unwrap_slow(value))
            parent._zb_drop_fast()
            _changed(parent)
            object.__setattr__(self, "_zb_slow", real)
            self._zb_drop_fast()
        else:
            root = _mutation_root(self)
            setattr(self._zb_get_slow(), name, unwrap_slow(value))
            root._zb_drop_fast()
            _changed(root)
        recorder.slow(f"{type(self).__name__}.{name} (set)", time.perf_counter() - t0)

    def __delattr__(self, name):
        root = _mutation_root(self)
        delattr(self._zb_get_slow(), name)
        root._zb_drop_fast()
        _changed(root)

    def __dir__(self):
        # pandas' own dir of the object: its column names and labels for
        # tab completion, without the accessors its dtype lacks (.str,
        # .dt).  It takes the pandas side (converted once and kept): dir is
        # for interactive use.
        if self._zb_kind != "intermediate":
            try:
                return dir(self._zb_get_slow())
            except Exception:
                pass
        return sorted(dir(type(self)._zb_slow_type))

    def __copy__(self):
        return dispatch(self, "copy", (), {"deep": False}) if self._zb_kind != "intermediate" \
            else wrap_slow(copy.copy(self._zb_get_slow()))

    def __deepcopy__(self, memo):
        return dispatch(self, "copy", (), {"deep": True}) if self._zb_kind != "intermediate" \
            else wrap_slow(copy.deepcopy(self._zb_get_slow(), memo))

    # -- the two sides -------------------------------------------------

    def _zb_drop_fast(self):
        object.__setattr__(self, "_zb_fast", None)

    def _zb_drop_slow(self):
        object.__setattr__(self, "_zb_slow", None)

    def _zb_get_slow(self):
        if self._zb_kind == "intermediate":
            _refresh(self)
        slow = self._zb_slow
        if slow is None:
            slow = _to_slow(self)
            object.__setattr__(self, "_zb_slow", slow)
        return slow

    def _zb_get_fast(self):
        if self._zb_kind == "intermediate":
            _refresh(self)
        fast = self._zb_fast
        if isinstance(fast, _Unconvertible):
            raise _NoFast(fast.reason)
        if fast is None:
            try:
                fast = _to_fast(self)
            except _NoFast as e:
                object.__setattr__(self, "_zb_fast", _Unconvertible(str(e)))
                raise
            object.__setattr__(self, "_zb_fast", fast)
        return fast


def _init(proxy, fast, slow, recipe):
    object.__setattr__(proxy, "_zb_fast", fast)
    object.__setattr__(proxy, "_zb_slow", slow)
    object.__setattr__(proxy, "_zb_recipe", recipe)
    object.__setattr__(proxy, "_zb_stamp", _mutation_root(recipe[0])._zb_stamp
                       if recipe is not None and proxy._zb_kind == "intermediate" else 0)


def _changed(root):
    """root (a data proxy) was changed in place: the intermediates made from
    it (df.groupby(...), df.loc) must be made again from it, as pandas'
    own see the change (they hold the same object)."""
    object.__setattr__(root, "_zb_stamp", root._zb_stamp + 1)


def _refresh(proxy):
    """Drop the sides of the intermediate proxy when its root changed in
    place since they were made; they are made again from the recipe."""
    if proxy._zb_recipe is None:
        return
    stamp = _mutation_root(proxy)._zb_stamp
    if proxy._zb_stamp != stamp:
        object.__setattr__(proxy, "_zb_fast", None)
        object.__setattr__(proxy, "_zb_slow", None)
        object.__setattr__(proxy, "_zb_stamp", stamp)


def _mutation_root(proxy):
    """The data proxy a mutation through proxy changes (df for df.loc)."""
    while proxy._zb_kind == "intermediate" and proxy._zb_recipe is not None:
        proxy = proxy._zb_recipe[0]
    return proxy


def _make_dunder(name):
    def method(self, *args, **kwargs):
        return dispatch(self, name, args, kwargs)
    method.__name__ = name
    return method


_DUNDERS = [
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
    "__rpow__", "__matmul__", "__rmatmul__", "__divmod__", "__rdivmod__", "__and__",
    "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__eq__", "__ne__", "__lt__",
    "__le__", "__gt__", "__ge__", "__neg__", "__pos__", "__abs__", "__invert__", "__round__",
    "__getitem__", "__setitem__", "__delitem__", "__len__", "__iter__", "__contains__",
    "__bool__", "__array__", "__array_ufunc__", "__array_function__", "__float__", "__int__",
    "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__",
    "__ipow__", "__iand__", "__ior__", "__ixor__", "__repr__", "__str__", "__format__",
    "_repr_html_", "__call__", "__next__", "__sizeof__", "__dataframe__",
    "__arrow_c_stream__", "__arrow_c_array__", "__index__",
]


def make_proxy_type(slow_type, kind, bases):
    """A proxy class standing for slow_type (a pandas class)."""
    ns = {"_zb_slow_type": slow_type, "_zb_kind": kind, "__module__": slow_type.__module__,
          "__qualname__": slow_type.__qualname__, "__doc__": slow_type.__doc__,
          "__slots__": ()}
    for name in _DUNDERS:
        if inspect.getattr_static(slow_type, name, None) is not None and \
                inspect.getattr_static(slow_type, name) is not inspect.getattr_static(object, name, None):
            ns[name] = _make_dunder(name)
    if getattr(slow_type, "__hash__", None) is None:
        ns["__hash__"] = None
    elif "__eq__" in ns:
        ns["__hash__"] = _make_dunder("__hash__")
    cls = _ProxyMeta(slow_type.__name__, bases, ns)
    SLOW_TO_PROXY[slow_type] = cls
    _NAME_TO_PROXY[slow_type.__name__] = cls
    return cls


def proxy_type_named(name):
    return _NAME_TO_PROXY.get(name)


# ---------------------------------------------------------------------------
# Converting between the sides


def _to_fast(proxy):
    import zambezi as zb

    kind = proxy._zb_kind
    if kind == "intermediate":
        recipe = proxy._zb_recipe
        if recipe is None:
            raise _NoFast("made by pandas")
        parent, name, args, kwargs, is_attr = recipe
        if name in SLOW_ONLY:
            raise _NoFast(f"{name} is served by pandas")
        guard = _guards.GUARDS.get(name)
        refused = guard(parent, args, kwargs) if guard is not None else None
        if refused:
            raise _NoFast(refused)
        fparent = parent._zb_get_fast()
        try:
            attr = getattr(fparent, name)
            res = attr if is_attr else attr(*unwrap_fast(args), **unwrap_fast(kwargs))
        except Exception as e:
            raise _NoFast(_reason(e)) from None
        return res
    slow = proxy._zb_slow
    if kind == "frame":
        _frame_convertible(slow)
        try:
            return placement.place(zb.from_pandas(slow))
        except Exception as e:
            raise _NoFast(_reason(e)) from None
    if kind == "series":
        if slow.name is not None and type(slow.name) is not str:
            raise _NoFast("the Series name is not a string")
        _check_dtype(slow.dtype)
        _check_index(slow.index)
        if slow.attrs:
            raise _NoFast("Series.attrs is set")
        from zambezi import _convert
        from zambezi import index as _ix
        try:
            col = _convert.column_from_pandas(slow, name=slow.name or "")
            return placement.place(
                zb.Series._from_column(col, slow.name, _ix.from_pandas_index(slow.index)))
        except Exception as e:
            raise _NoFast(_reason(e)) from None
    if kind == "index":
        _check_index(slow)
        from zambezi import index as _ix
        try:
            return _ix.from_pandas_index(slow)
        except Exception as e:
            raise _NoFast(_reason(e)) from None
    raise _NoFast("no zambezi counterpart")


def _to_slow(proxy):
    if proxy._zb_kind == "intermediate":
        parent, name, args, kwargs, is_attr = proxy._zb_recipe
        attr = getattr(parent._zb_get_slow(), name)
        if is_attr:
            return attr
        args, kwargs = _slow_args(args, kwargs)
        return attr(*args, **kwargs)
    return _numpy_missing(proxy._zb_fast.to_pandas())


_INT_DTYPES = frozenset(["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                         "uint64"])


def _float_for_missing_ints(res):
    """res with its integer columns that hold nulls as float64 (nulls NaN).

    A fast object only ever comes from numpy-dtype data (_check_dtype), so
    an integer column with nulls was made by an operation (a left merge, a
    reindex, str.len with missing values...) that in pandas gives float64:
    the later calls on it must see floats too, not only the conversion."""
    if res.ndim == 1:
        c = res._col
        return res.astype("float64") if c.null_count and c.dtype in _INT_DTYPES else res
    t = res._table
    cast = {name: "float64" for i, name in enumerate(t.names)
            if t.column(i).null_count and t.column(i).dtype in _INT_DTYPES}
    return res.astype(cast) if cast else res


def _bools_with_nulls(res):
    """Whether a zambezi result holds a bool column with missing values."""
    if res.ndim == 1:
        return res._col.dtype == "bool" and res._col.null_count > 0
    t = res._table
    return any(t.column(i).dtype == "bool" and t.column(i).null_count
               for i in range(t.num_columns))


def _numpy_missing(obj):
    """pandas' own dtypes for integer and bool data with missing values.

    zambezi keeps nulls in integer and bool columns, and to_pandas() gives
    them the nullable Int64 / boolean dtypes.  A fast object only ever comes
    from numpy-dtype data (_check_dtype), so such a column was made by an
    operation (a left merge, a reindex, a shift, str.len with missing
    values...) that in pandas gives float64 (NaN) or object (True/False/NaN).
    """
    pd = _real.pd
    if isinstance(obj, pd.Index):
        return _numpy_missing_series(obj, pd)
    index = _numpy_missing_series(obj.index, pd)  # labels a join left missing, too
    if index is not obj.index:
        obj = obj.set_axis(index, axis=0)
    if isinstance(obj, pd.Series):
        return _numpy_missing_series(obj, pd)
    if isinstance(obj, pd.DataFrame):
        cols = [i for i, dt in enumerate(obj.dtypes) if _is_masked(dt, pd)]
        if cols:
            obj = obj.copy(deep=False)
            for i in cols:
                obj.isetitem(i, _numpy_missing_series(obj.iloc[:, i], pd))
    return obj


def _is_masked(dt, pd):
    """Whether dt is pandas' nullable boolean or integer dtype."""
    return isinstance(dt, pd.BooleanDtype) or not isinstance(dt, np.dtype) and \
        getattr(dt, "kind", "") in "iu" and getattr(dt, "_is_numeric", False)


def _numpy_missing_series(s, pd):
    """A Series or (flat) Index of a masked dtype as pandas' numpy dtypes
    give it; anything else as it is."""
    dt = s.dtype
    if not _is_masked(dt, pd) or isinstance(s, pd.MultiIndex):
        return s
    if isinstance(dt, pd.BooleanDtype):
        return s.astype(object).where(s.notna(), np.nan) if s.hasnans else s.astype(bool)
    return s.astype("float64") if s.hasnans else s.astype(dt.numpy_dtype)


def _reason(e):
    msg = str(e).split("\n")[0]
    if len(msg) > 120:
        msg = msg[:117] + "..."
    if isinstance(e, _NoFast) and msg:   # already a reason ("dtype object stays in pandas")
        return msg
    return f"{type(e).__name__}: {msg}" if msg else type(e).__name__


# ---------------------------------------------------------------------------
# Wrapping and unwrapping


def _is_proxy(x):
    # type(type(x)) instead of isinstance(x, _Proxy): the metaclass's
    # __instancecheck__ is Python code, and this runs for every argument.
    return type(type(x)) is _ProxyMeta


def _needs_unwrap(v):
    t = type(v)
    return t in _CONTAINERS or type(t) is _ProxyMeta or t is _ProxyMeta or t is _SlowCallable \
        or (t is types.FunctionType and (_is_user_function(v) or "_zb_slow_func" in v.__dict__))


def _is_user_function(f):
    mod = getattr(f, "__module__", None) or ""
    return not mod.startswith(("pandas", "numpy", "zambezi", "_zb_slow_pandas"))


def _results_unwrapped(f):
    """f (a user's function that pandas calls: groupby.apply, agg, map,
    pipe...) giving pandas real pandas objects: a proxy it returns (the
    user's code builds proxies) would look to pandas like a scalar."""
    @functools.wraps(f)
    def call(*args, **kwargs):
        return unwrap_slow(f(*args, **kwargs))
    return call


_CONTAINERS = frozenset([list, tuple, dict])


def unwrap_slow(x, wrap=True):
    """x as pandas takes it: proxies by their pandas side; a user's function
    wrapped so that what it returns reaches pandas as pandas objects (not
    with wrap=False; wrap=None: unless pandas' compute.use_numba is on;
    see _slow_args)."""
    t = type(x)
    if type(t) is _ProxyMeta:
        return x._zb_get_slow()
    if t is tuple or t is list:
        for v in x:
            if _needs_unwrap(v):
                return t([unwrap_slow(v, wrap) for v in x])
        return x
    if t is dict:
        for v in x.values():
            if _needs_unwrap(v):
                return {k: unwrap_slow(v, wrap) for k, v in x.items()}
        return x
    if t is _ProxyMeta:
        return x._zb_slow_type
    if isinstance(x, _SlowCallable):
        return x._zb_func
    if t is types.FunctionType:
        real = x.__dict__.get("_zb_slow_func")
        if real is not None:   # pandas' own function (pd.DataFrame.quantile) as user code got it
            return real
        if _is_user_function(x) and (wrap or (wrap is None and not
                                              _real.pd.get_option("compute.use_numba"))):
            return _results_unwrapped(x)
    return x


def _slow_args(args, kwargs):
    """A call's args and kwargs as pandas takes them; a user's function is
    left as it is when pandas compiles it (engine="numba", or no engine and
    pandas' compute.use_numba option: Numba cannot compile the wrapper, and
    a compiled function returns no proxies)."""
    engine = kwargs.get("engine") if kwargs else None
    wrap = False if engine == "numba" else None if engine is None else True
    return unwrap_slow(args, wrap), unwrap_slow(kwargs, wrap)


def unwrap_fast(x, called=None):
    """x as zambezi takes it: proxies by their zambezi side.  With called (a
    list), the user's functions in x are wrapped so that a call of any of
    them appends to it (see _tracked)."""
    if _is_proxy(x):
        return x._zb_get_fast()
    t = type(x)
    if t is tuple or t is list:
        return t(unwrap_fast(v, called) for v in x)
    if t is dict:
        return {k: unwrap_fast(v, called) for k, v in x.items()}
    if t in _PLAIN:
        return x
    if called is not None and _is_user_callable(x):
        return _tracked(x, called)
    if isinstance(x, _ProxyMeta):
        raise _NoFast("a pandas class as argument")
    if isinstance(x, _SlowCallable):
        raise _NoFast("a pandas function as argument")
    if t in _time_scalar_types():
        return x   # zambezi takes pandas' Timestamp, Timedelta and NaT as its own
    mod = type(x).__module__ or ""
    if mod.startswith(("pandas", "_zb_slow_pandas")):
        raise _NoFast(f"a pandas {type(x).__name__} as argument")
    return x


@functools.lru_cache(maxsize=None)
def _time_scalar_types():
    """pandas' Timestamp, Timedelta and NaT: zambezi's own (zb.Timestamp is
    pd.Timestamp); and the calendar offsets zambezi moves times by
    (zambezi._offsets)."""
    pd = _real.pd
    o = pd.offsets
    return frozenset([pd.Timestamp, pd.Timedelta, type(pd.NaT), pd.DateOffset,
                      o.MonthEnd, o.MonthBegin, o.QuarterEnd, o.QuarterBegin, o.YearEnd,
                      o.YearBegin, o.Week, o.BusinessDay, o.Day, o.Hour, o.Minute, o.Second,
                      o.Milli, o.Micro, o.Nano])


# ---------------------------------------------------------------------------
# The user's functions in a zambezi attempt
#
# dispatch gives zambezi the user's functions wrapped by _tracked, which
# records a call.  An attempt that fails after one of them was called still
# runs on pandas (every pandas script keeps running and gives pandas'
# answer), and pandas calls the function again, side effects included: the
# profile records such fallbacks under a reason starting with _RAN_TWICE,
# so they can be found and each zambezi gap behind them closed.


def _fast_call_args(args, kwargs):
    """(args, kwargs, called) for a zambezi attempt: called is the list
    the wrapped user functions append to (None when nothing is tracked:
    engine="numba" compiles the function, which must reach numba as is)."""
    called = None if kwargs and kwargs.get("engine") == "numba" else []
    return (unwrap_fast(args, called) if args else args,
            unwrap_fast(kwargs, called) if kwargs else kwargs, called)


_ENGINE_MODULES = ("pandas", "numpy", "zambezi", "_zb_slow_pandas", "builtins", "math",
                   "operator", "numba", "scipy")


def _is_user_callable(x):
    """Whether x is the user's code: a def or lambda, a partial, a bound
    method (calls.append), an object with __call__.  Library functions
    (numpy's, builtins such as len or max, pandas') are not: zambezi
    recognises some of them by name, and they have no side effects."""
    t = type(x)
    if t is types.FunctionType:
        return _is_user_function(x)
    if t is types.BuiltinFunctionType:   # also builtin methods: calls.append
        owner = getattr(x, "__self__", None)
        return owner is not None and not isinstance(owner, types.ModuleType)
    if t is functools.partial:
        return True
    if t is types.MethodType:
        return _is_user_callable(x.__func__) or not _is_pandas_type(type(x.__self__))
    if isinstance(x, type) or not callable(x) or type(t) is _ProxyMeta \
            or t in (_SlowCallable, _BoundMethod, np.ufunc):
        return False
    return not (t.__module__ or "").startswith(_ENGINE_MODULES)


def _tracked(func, called):
    """func as zambezi calls it: the call is recorded in called, zambezi's
    frames and Series reach it as proxies (so that the pandas methods
    zambezi lacks still work inside it), and a proxy it returns goes back as
    zambezi's object."""
    def call(*args, **kwargs):
        if not called:
            called.append(True)
        res = func(*[_as_proxy(a) for a in args], **kwargs)
        if _is_proxy(res) and res._zb_kind != "intermediate":
            try:
                return res._zb_get_fast()
            except _NoFast:
                return res._zb_get_slow()
        return res
    try:
        functools.update_wrapper(call, func)
    except (AttributeError, TypeError):
        pass
    return call


def _as_proxy(a):
    if type(a) not in _PLAIN and isinstance(a, _zb_data_types()):
        return wrap_fast(a)
    return a


@functools.lru_cache(maxsize=None)
def _zb_data_types():
    import zambezi as zb

    return (zb.DataFrame, zb.Series)


# The profile's reason prefix for a zambezi attempt that failed after
# calling the user's function; the call then runs on pandas, which calls
# the function again.
_RAN_TWICE = "the user's function ran on zambezi, then again on pandas: "


def _proxy_for_slow_type(t):
    cls = SLOW_TO_PROXY.get(t)
    if cls is None:
        for base in t.__mro__[1:]:
            cls = SLOW_TO_PROXY.get(base)
            if cls is not None:
                break
    return cls


def wrap_slow(res, recipe=None, owner=None):
    """A pandas result as user code should see it."""
    if owner is not None and res is owner._zb_slow:
        return owner
    t = type(res)
    if t in _PLAIN:
        return res
    cls = SLOW_TO_PROXY.get(t) or (_proxy_for_slow_type(t) if _is_pandas_type(t) else None)
    if cls is not None:
        p = object.__new__(cls)
        _init(p, None, res, recipe if cls._zb_kind in ("intermediate", "index") else None)
        return p
    if t is tuple or t is list:
        return t(wrap_slow(v) for v in res)
    if t is dict:
        return {k: wrap_slow(v) for k, v in res.items()}
    if t is types.GeneratorType or (t.__name__ in ("zip", "map") and t.__module__ == "builtins"):
        return (wrap_slow(v) for v in res)
    if isinstance(res, (types.MethodType, types.FunctionType, types.BuiltinMethodType)) and \
            _is_pandas_type(type(getattr(res, "__self__", None))):
        return _SlowCallable(res, getattr(res, "__qualname__", getattr(res, "__name__", "?")))
    return res


_PLAIN = frozenset([int, float, bool, str, bytes, type(None), np.ndarray, complex])


def _is_pandas_type(t):
    mod = getattr(t, "__module__", None) or ""
    return mod.startswith(("pandas", "_zb_slow_pandas"))


def wrap_fast(res, parent=None, name=None, args=(), kwargs=None, is_attr=False):
    """A zambezi result as user code should see it; raises _NoFast when
    zambezi returned something pandas would not (the call then goes to
    pandas)."""
    import zambezi as zb
    from zambezi import index as _ix

    if parent is not None and res is parent._zb_fast:
        return parent
    t = type(res)
    if t in _PLAIN or isinstance(res, (np.generic,)):
        return res
    if isinstance(res, (zb.DataFrame, zb.Series)) and _bools_with_nulls(res):
        # pandas holds such a column as objects (True / False / NaN), and
        # keeps them objects in every later result (a head without the
        # NaN too): the rest runs on pandas
        return wrap_slow(_numpy_missing(res.to_pandas()))
    if isinstance(res, zb.DataFrame):
        p = object.__new__(_NAME_TO_PROXY["DataFrame"])
        _init(p, _float_for_missing_ints(res), None, None)
        return p
    if isinstance(res, zb.Series):
        p = object.__new__(_NAME_TO_PROXY["Series"])
        _init(p, _float_for_missing_ints(res), None, None)
        return p
    if isinstance(res, _ix.Index):
        slow = _numpy_missing(res.to_pandas())
        p = wrap_slow(slow, (parent, name, args, kwargs or {}, is_attr) if parent is not None else None)
        object.__setattr__(p, "_zb_fast", res)
        return p
    if isinstance(res, _real.pd.Index):  # DataFrame.columns: pandas' own Index
        return wrap_slow(res, (parent, name, args, kwargs or {}, is_attr)
                         if parent is not None else None)
    if isinstance(res, (_real.pd.Series, _real.pd.DataFrame)):
        # DataFrame.dtypes holds zambezi's dtype names, not pandas' dtypes
        raise _NoFast(f"zambezi gave a pandas {t.__name__}")
    if t is tuple or t is list:
        return t(wrap_fast(v) for v in res)
    if t is dict:   # pandas gives a Series or a frame where zambezi gives a dict (df.loc[label])
        raise _NoFast("zambezi gave a dict")
    mod = t.__module__ or ""
    if mod.startswith("zambezi"):
        cls = _intermediate_type(res, parent, name, args, kwargs or {})
        if cls is None:
            raise _NoFast(f"zambezi gave a {t.__name__}")
        p = object.__new__(cls)
        _init(p, res, None, (parent, name, args, kwargs or {}, is_attr))
        return p
    if isinstance(res, (types.GeneratorType,)) or callable(res):
        raise _NoFast(f"zambezi gave a {t.__name__}")
    return res


_INTERMEDIATE_BY_NAME = {
    "loc": "_LocIndexer", "iloc": "_iLocIndexer", "at": "_AtIndexer", "iat": "_iAtIndexer",
    "str": "StringMethods", "cat": "CategoricalAccessor",
}


def _intermediate_type(res, parent, name, args, kwargs):
    if parent is None:
        return None
    ptype = type(parent).__name__
    if name in _INTERMEDIATE_BY_NAME:
        return _NAME_TO_PROXY.get(_INTERMEDIATE_BY_NAME[name])
    if name == "groupby" and ptype in ("DataFrame", "Series"):
        return _NAME_TO_PROXY.get("DataFrameGroupBy" if ptype == "DataFrame" else "SeriesGroupBy")
    if ptype == "DataFrameGroupBy" and (name == "__getitem__" or name not in _GROUPBY_METHODS):
        key = args[0] if args else None
        if name == "__getitem__" and isinstance(key, (list, tuple)):
            return _NAME_TO_PROXY.get("DataFrameGroupBy")
        return _NAME_TO_PROXY.get("SeriesGroupBy")
    grouped = ptype in ("DataFrameGroupBy", "SeriesGroupBy")
    if name == "rolling" and not kwargs.get("win_type"):
        return _NAME_TO_PROXY.get("RollingGroupby" if grouped else "Rolling")
    if name == "expanding":
        return _NAME_TO_PROXY.get("ExpandingGroupby" if grouped else "Expanding")
    if name == "ewm":
        return _NAME_TO_PROXY.get("ExponentialMovingWindowGroupby" if grouped
                                  else "ExponentialMovingWindow")
    if name == "dt" and ptype == "Series":
        dt = str(parent._zb_fast.dtype)
        if dt.startswith(("timestamp", "datetime")):
            return _NAME_TO_PROXY.get("DatetimeProperties")
        if dt.startswith(("duration", "timedelta")):
            return _NAME_TO_PROXY.get("TimedeltaProperties")
    return None


def _groupby_methods():
    from zambezi._groupby import GroupBy
    return frozenset(n for n in dir(GroupBy) if not n.startswith("_"))


_GROUPBY_METHODS = _groupby_methods()


class _SlowCallable:
    """A pandas function or bound method as user code sees it: proxies in
    its arguments are unwrapped, its result wrapped."""

    __slots__ = ("_zb_func", "_zb_label", "__weakref__")

    def __init__(self, func, label):
        self._zb_func = func
        self._zb_label = label

    def __call__(self, *args, **kwargs):
        return _call_slow_function(self._zb_func, self._zb_label, args, kwargs)

    def __getattr__(self, name):
        return getattr(self._zb_func, name)

    def __repr__(self):
        return repr(self._zb_func)


def _call_slow_function(func, label, args, kwargs, reason=None):
    _check_fallback(label, reason)
    t0 = time.perf_counter()
    sargs, skwargs = _slow_args(args, kwargs)
    res = run_pandas(func, *sargs, **skwargs)
    # a function that gives back one of its arguments (pandas._testing's
    # setitem, pipe-like helpers) gives back the user's object: a new proxy
    # of the same pandas object would not see, or make, the changes of the
    # one the user holds
    mine = next((a for a in args if _is_proxy(a) and a._zb_slow is res), None) \
        if res is not None else None
    out = mine if mine is not None else wrap_slow(res)
    recorder.slow(label, time.perf_counter() - t0, reason)
    return out


_FUNC_CACHE = {}

# pandas' eval and query find the names an expression uses (pd.eval's plain
# names, query's @names) in the frame `level` calls above their own.  The
# proxies add frames in between, so the calling code's names are handed
# over as local_dict / global_dict (unless the caller gave scope itself).
_SCOPED_METHODS = frozenset(["query", "eval"])
_ZB_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _caller_scope(kwargs):
    if any(k in kwargs for k in ("local_dict", "global_dict", "resolvers")):
        return kwargs
    level = kwargs.get("level", 0)
    if not isinstance(level, int) or level < 0:
        return kwargs
    f = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_ZB_DIR):
        f = f.f_back
    for _ in range(level):  # level: frames above the caller, as pandas counts them
        f = f.f_back if f is not None else None
    if f is None:
        return kwargs
    out = {k: v for k, v in kwargs.items() if k != "level"}
    out["local_dict"] = f.f_locals
    out["global_dict"] = f.f_globals
    return out


def wrap_function(func, label, fast=None):
    """A pandas module-level function as user code sees it; fast, when given,
    is the zambezi function of the same contract, tried first."""
    key = (id(func), id(fast))
    hit = _FUNC_CACHE.get(key)
    if hit is not None and hit[0] is func:
        return hit[1]

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if label == "pandas.eval":
            kwargs = _caller_scope(kwargs)
        reason = None
        rewind = None
        if label in _READERS and fast is not None and not settings.disabled:
            args, kwargs, rewind = _replayable_source(args, kwargs)
        guard = _guards.FUNCTION_GUARDS.get(label) if fast is not None else None
        reason = guard(None, args, kwargs) if guard is not None else None
        if reason is None and fast is not None and not settings.disabled and \
                _want_fast_args(args, kwargs, label):
            t0 = time.perf_counter()
            called = None
            try:
                fargs, fkwargs, called = _fast_call_args(args, kwargs)
                res = fast(*fargs, **fkwargs)
                if label in _READERS:
                    res = placement.place(res)
                out = wrap_fast(res)
            except (KeyboardInterrupt, MemoryError):
                raise
            except Exception as e:
                reason = _reason(e)
                if called:
                    reason = _RAN_TWICE + reason
            else:
                recorder.fast(label, time.perf_counter() - t0)
                if settings.debug:
                    _debug_compare(label, out, lambda: func(*unwrap_slow(args),
                                                            **unwrap_slow(kwargs)))
                return out
        if rewind is not None:
            rewind()
        return _call_slow_function(func, label, args, kwargs, reason)

    wrapper._zb_slow_func = func
    _FUNC_CACHE[key] = (func, wrapper)
    return wrapper


_READERS = frozenset(["pandas.read_csv", "pandas.read_parquet"])


def _replayable_source(args, kwargs):
    """A reader's source, when it is a stream, made one that pandas can read
    again after zambezi read it (zambezi reads a stream to its end, and a
    fallback to pandas must see the same input): (args, kwargs, rewind),
    rewind None for any other source.  A seekable stream goes back to where
    it was; another one is read into memory first."""
    key = 0 if args else next((k for k in ("filepath_or_buffer", "path") if k in kwargs), None)
    src = args[0] if args else kwargs.get(key) if key is not None else None
    if src is None or not hasattr(src, "read"):
        return args, kwargs, None
    try:
        if src.seekable():
            at = src.tell()
            return args, kwargs, lambda: src.seek(at)
    except (AttributeError, OSError, ValueError):
        pass
    data = src.read()
    buf = io.StringIO(data) if isinstance(data, str) else io.BytesIO(data)
    if args:
        args = (buf,) + tuple(args[1:])
    else:
        kwargs = dict(kwargs, **{key: buf})
    return args, kwargs, lambda: buf.seek(0)


def _want_fast_args(args, kwargs, label):
    if label in _READERS:
        return True
    found = [False]
    flagged = [False]

    def visit(x):
        if _is_proxy(x):
            if _no_duplicate_labels(x):   # pandas keeps the flag on the result
                flagged[0] = True
            elif _prefer_fast(x):
                found[0] = True
        elif type(x) in (list, tuple):
            for v in x:
                visit(v)
        elif type(x) is dict:
            for v in x.values():
                visit(v)
    visit(args)
    visit(kwargs)
    return found[0] and not flagged[0]


# ---------------------------------------------------------------------------
# Dispatch


def _prefer_fast(proxy):
    fast = proxy._zb_fast
    if fast is None:
        if proxy._zb_kind == "intermediate":
            recipe = proxy._zb_recipe
            return recipe is not None and recipe[1] not in SLOW_ONLY and _prefer_fast(recipe[0])
        try:
            return len(proxy._zb_slow) >= settings.min_rows
        except Exception:
            return False
    return type(fast) is not _Unconvertible


def _check_fallback(label, reason):
    if reason is None or not settings.fallback:
        return
    msg = f"zambezi.pandas: {label} ran on pandas ({reason})"
    if settings.fallback == "error":
        from zambezi.errors import UnsupportedError
        raise UnsupportedError(msg)
    warnings.warn(msg, RuntimeWarning, stacklevel=4)


_LABELS = {}


def _label(cls, name):
    """ "DataFrame.sum": the profile's name of a call (built once per pair)."""
    try:
        return _LABELS[cls, name]
    except KeyError:
        label = _LABELS[cls, name] = f"{cls.__name__}.{name}"
        return label


def dispatch(proxy, name, args, kwargs, is_attr=False):
    """Run proxy.name(*args, **kwargs) (or read proxy.name when is_attr) on
    zambezi when it can, else on pandas; wrap the result."""
    if name in _SCOPED_METHODS and not is_attr and proxy._zb_kind == "frame":
        kwargs = _caller_scope(kwargs)
    mutating = name in MUTATORS or (kwargs and kwargs.get("inplace") is True)
    intermediate = proxy._zb_kind == "intermediate"
    if intermediate:
        _refresh(proxy)
    # Changes in place run on pandas (pandas 3.1 warns about inplace=;
    # an indexer assignment changes its parent), except df[c] = ..., which
    # zambezi serves.
    pandas_mutation = (mutating and (intermediate or name != "__setitem__")) \
        or (kwargs and "inplace" in kwargs)   # pandas 3.1 warns whenever inplace= is given
    reason = None
    # The common case, a small pandas-held object, decides here with one
    # length test (_prefer_fast) and goes straight to pandas.
    # The attributes and single labels of an index that pandas holds too
    # are pandas' own: NaN for a missing string or float label (zambezi
    # gives None), MultiIndex levels without the missing value.
    index_label = proxy._zb_kind == "index" and proxy._zb_slow is not None and (
        is_attr or name == "__getitem__" and args and isinstance(args[0], (int, np.integer)))
    if not pandas_mutation and not index_label and name not in SLOW_ONLY and _prefer_fast(proxy) \
            and not settings.disabled:
        label = _label(type(proxy), name)
        reason = KNOWN_DIFFERENT.get(label) or KNOWN_DIFFERENT_TYPES.get(type(proxy).__name__)
        if reason is None and _no_duplicate_labels(proxy):
            # pandas carries the flag to results and raises DuplicateLabelError
            reason = "allows_duplicate_labels=False: pandas keeps the flag"
        guard = _guards.GUARDS.get(name)
        if reason is None and guard is not None:
            reason = guard(proxy, args, kwargs)
        if reason is None:
            t0 = perf_counter()
            called = None
            try:
                fobj = proxy._zb_get_fast()
                attr = getattr(fobj, name)
                if is_attr:
                    res = attr
                else:
                    fargs, fkwargs, called = _fast_call_args(args, kwargs)
                    if name in _SORTS and proxy._zb_kind in _FLAGGED_KINDS:
                        fkwargs = {"kind": "quicksort", **fkwargs}   # pandas' order of ties
                    res = attr(*fargs, **fkwargs)
                if name in _STR_PREDICATES and "na" not in kwargs and \
                        type(proxy).__name__ == "StringMethods" and _of_str_dtype(proxy):
                    # pandas' "str" dtype answers False for a missing value
                    # (a bool result); zambezi gives a missing value
                    res = res.fillna(False)
                if name == "unique" and proxy._zb_kind == "series" and not is_attr:
                    # pandas gives an array (numpy's, or the extension array
                    # of the dtype), zambezi a Series of the distinct values:
                    # pandas' unique of those few values gives pandas' kind
                    res = res.to_pandas().unique()
                out = wrap_fast(res, proxy, name, args, kwargs, is_attr)
                if name in _NUMPY_SCALAR_RESULTS and (proxy._zb_kind == "series" or
                                                      proxy._zb_kind == "index" and not is_attr):
                    out = _reduction_scalar(out, fobj, name)
                elif name in ("agg", "aggregate") and proxy._zb_kind == "series" and \
                        type(out) in (int, float, bool):   # s.agg("sum"): a reduction
                    how = args[0] if args and isinstance(args[0], str) else "agg"
                    out = _reduction_scalar(out, fobj, how)
                elif name == "__getitem__" and type(out) in _ELEMENT_TYPES and (
                        proxy._zb_kind == "series" or type(proxy).__name__ in _INDEXERS):
                    out = _element(out, fobj, args, proxy)
            except (KeyboardInterrupt, MemoryError):
                raise
            except Exception as e:
                reason = _reason(e)
                if called:
                    reason = _RAN_TWICE + reason
            else:
                if mutating:
                    proxy._zb_drop_slow()
                    _changed(_mutation_root(proxy))
                recorder.fast(label, perf_counter() - t0)
                if settings.debug and not mutating:
                    _debug_compare(label, out, lambda: _slow_call(proxy, name, args, kwargs, is_attr))
                return out
        if reason is not None and settings.fallback:
            _check_fallback(label, reason)
    t0 = perf_counter()
    sobj = proxy._zb_slow
    if sobj is None:
        sobj = proxy._zb_get_slow()
    if is_attr:   # attribute reads: no warnings to re-point, and the cheapest path
        res = getattr(sobj, name)
    elif name == "__len__":
        res = len(sobj)
    else:
        sargs, skwargs = _slow_args(args, kwargs) if args or kwargs else (args, kwargs)
        res = run_pandas(getattr(sobj, name), *sargs, **skwargs)
    if mutating:
        root = _mutation_root(proxy)
        root._zb_drop_fast()
        _changed(root)
        if intermediate:
            proxy._zb_drop_fast()
            object.__setattr__(proxy, "_zb_stamp", root._zb_stamp)
    out = wrap_slow(res, (proxy, name, args, kwargs, is_attr), proxy)
    recorder.slow(_label(type(proxy), name), perf_counter() - t0, reason)
    return out


# Series reductions for which pandas returns a numpy scalar (np.float64(2.0)
# shows in a notebook); zambezi returns Python numbers.
_NUMPY_SCALAR_RESULTS = frozenset(["sum", "mean", "min", "max", "std", "var", "median", "prod",
                                   "count", "quantile", "sem", "skew", "kurt", "cumsum_last"])


_INDEXERS = frozenset(["_LocIndexer", "_iLocIndexer", "_AtIndexer", "_iAtIndexer"])


_ELEMENT_TYPES = frozenset([int, float, bool, type(None)])


def _element(x, fobj, args, proxy):
    """A value read from a Series (s[i], .loc, .iloc, .at, .iat) as pandas
    gives it: a numpy scalar of the column's dtype (np.int8(...)), NaN for
    a missing float and the string dtype's missing value for a missing
    string, where zambezi gives Python numbers and None."""
    key = args[0] if args else None
    name = _element_dtype(fobj, key)
    if x is None and name == "string":
        return _missing_text(proxy, key)
    dtype = _numpy_dtype(name)
    if dtype is None or dtype.kind not in "biuf":
        return _numpy_scalar(x)
    if x is None:
        return dtype.type("nan") if dtype.kind == "f" else x
    return dtype.type(x)


def _reduction_scalar(x, fobj, name):
    """A Series reduction as pandas gives it: min and max in the column's
    dtype, float reductions of float32 data in float32, else as
    _numpy_scalar; np.nan itself (a categorical's missing min / max) as it is."""
    if x is np.nan:
        return x
    if type(x) is float and x != x and _python_nan(fobj, name):
        return np.nan
    if type(x) in (int, float) and (name in ("min", "max") or type(x) is float):
        dtype = _numpy_dtype(_element_dtype(fobj, None))
        if dtype is not None and (dtype.kind == "f" or name in ("min", "max")) \
                and dtype.kind in "iuf":
            return dtype.type(x)
    return _numpy_scalar(x)


def _python_nan(fobj, name):
    """Whether pandas answers a NaN reduction with Python's float (np.nan)
    rather than a numpy scalar: a mean of no values, and min / max / std /
    var / median of no rows (nanops' early returns)."""
    try:
        if name == "mean":
            return fobj.count() == 0
        return name in ("min", "max", "std", "var", "median") and len(fobj) == 0
    except Exception:
        return False


def _element_dtype(fobj, key):
    """zambezi's name of the dtype of the column that fobj[key] reads (fobj
    a zambezi Series, or an indexer over a Series or frame), or None."""
    obj = getattr(fobj, "_obj", fobj)
    dtype = getattr(obj, "dtype", None)
    try:
        if dtype is None:   # a frame under .loc/.iloc/.at/.iat: the key's column
            col = key[1]
            dtypes = obj._zb_dtypes   # a dict: name -> dtype
            dtype = list(dtypes.values())[col] if type(fobj).__name__ in (
                "_ILocIndexer", "_IAtIndexer") else dtypes[col]
        return str(dtype)
    except Exception:
        return None


def _numpy_dtype(name):
    """numpy's dtype of zambezi's dtype name (None when numpy has none)."""
    try:
        return None if name is None else np.dtype(name)
    except Exception:
        return None


def _missing_text(proxy, key):
    """The missing value pandas reads from the string column proxy[key]
    reads: its string dtype's (NaN for pandas' "str", pd.NA for
    "string"), None for an object column; NaN when only zambezi holds the
    data (pandas' "str" is what its strings convert to)."""
    owner = proxy._zb_recipe[0] if type(proxy).__name__ in _INDEXERS and \
        proxy._zb_recipe is not None else proxy
    slow = getattr(owner, "_zb_slow", None)
    try:
        if slow is None:
            return np.nan
        if owner._zb_kind == "series":
            dtype = slow.dtype
        else:
            col = key[1]
            dtype = slow.dtypes.iloc[col] if type(proxy).__name__ in (
                "_iLocIndexer", "_iAtIndexer") else slow.dtypes[col]
    except Exception:
        return None
    if type(dtype).__name__ == "StringDtype":
        return dtype.na_value
    return None if dtype == object else np.nan


def _numpy_scalar(x):
    t = type(x)
    if t is float:
        return np.float64(x)
    if t is int:
        return np.int64(x)
    if t is bool:
        return np.bool_(x)
    return x


def _slow_call(proxy, name, args, kwargs, is_attr, sobj=None):
    sobj = proxy._zb_get_slow() if sobj is None else sobj
    if is_attr:   # attribute reads: no warnings to re-point, and the cheapest path
        return getattr(sobj, name)
    args, kwargs = _slow_args(args, kwargs)
    return run_pandas(getattr(sobj, name), *args, **kwargs)


_OWN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")


def run_pandas(fn, *args, **kwargs):
    """fn(*args, **kwargs) with the warnings it raises pointed at the user's
    line: pandas gives some warnings a fixed stacklevel, which the proxies'
    frames would otherwise take.

    What warnings.catch_warnings(record=True) plus simplefilter("always")
    do, without their cost (this runs for every call pandas serves): the
    filters become one "always" entry (a fresh list: code inside may add to
    it), the messages go to a list, and both are put back after.  Unlike
    catch_warnings, the filters' version is left alone: bumping it empties
    every module's registry of warnings already shown, so a deprecation
    warning in a loop showed on every pass instead of once (a warning
    already shown from the user's line is skipped by that registry before
    the filters are read, as without the accelerator; "always" records
    nothing there)."""
    if not _LIGHT_CATCH:
        return _run_pandas_catching(fn, args, kwargs)
    w = warnings
    filters, impl, show = w.filters, w._showwarnmsg_impl, w.showwarning
    log = []
    w.filters = [_ALWAYS]
    w._showwarnmsg_impl = log.append
    w.showwarning = _showwarning_orig
    try:
        return fn(*args, **kwargs)
    finally:
        w.filters, w._showwarnmsg_impl, w.showwarning = filters, impl, show
        for m in log:
            _rewarn(m)


_ALWAYS = ("always", None, Warning, None, 0)
_showwarning_orig = getattr(warnings, "_showwarning_orig", None)
# The module-level state above is what warnings keeps up to Python 3.13
# (3.14 can keep it per context): elsewhere catch_warnings itself is used.
_LIGHT_CATCH = sys.version_info < (3, 14) and all(
    hasattr(warnings, n) for n in ("filters", "_showwarnmsg_impl", "_showwarning_orig"))


def _run_pandas_catching(fn, args, kwargs):
    cm = warnings.catch_warnings(record=True)
    caught = cm.__enter__()
    warnings.simplefilter("always")
    try:
        return fn(*args, **kwargs)
    finally:
        cm.__exit__(None, None, None)
        for w in caught:
            _rewarn(w)


def _rewarn(w):
    """Warn w again from the user's line (the first frame outside pandas,
    zambezi and the import system) when one of them raised it."""
    skip = (os.path.join(_real.pd.__path__[0], ""), _ZB_DIR, "<frozen importlib")
    filename, lineno, registry, module = w.filename, w.lineno, None, None
    repoint = filename.startswith(skip) and not filename.startswith(_real_tests_dir())
    # the frame to warn from: the first outside pandas, zambezi and the
    # import system, or (pandas pointed at the user's line itself) the
    # frame of that file, whose module name the filters match (pandas'
    # deprecation warnings show by default only from __main__)
    frame = sys._getframe(2)
    while frame is not None and (frame.f_code.co_filename.startswith(skip) if repoint
                                 else frame.f_code.co_filename != filename):
        frame = frame.f_back
    if frame is not None:
        if repoint:
            filename, lineno = frame.f_code.co_filename, frame.f_lineno
        module = frame.f_globals.get("__name__")
        registry = frame.f_globals.setdefault("__warningregistry__", {})
    if module is None:   # as warnings.warn_explicit's own default (None would drop it)
        module = filename[:-3] if filename.endswith(".py") else filename
    warnings.warn_explicit(w.message, w.category, filename, lineno, module, registry)


def _real_tests_dir():
    return os.path.join(_real.pd.__path__[0], "tests", "")


class _BoundMethod:
    """proxy.method before it is called: calling it dispatches."""

    __slots__ = ("_zb_owner", "_zb_name")

    def __init__(self, owner, name):
        self._zb_owner = owner
        self._zb_name = name

    def __call__(self, *args, **kwargs):
        return dispatch(self._zb_owner, self._zb_name, args, kwargs)

    def __getattr__(self, name):
        return getattr(getattr(type(self._zb_owner)._zb_slow_type, self._zb_name), name)

    def __repr__(self):
        return f"<bound method {type(self._zb_owner).__name__}.{self._zb_name}>"


class _Method:
    """A pandas method name as a descriptor on the proxy class that found it
    (set by _get_attribute the first time): later look-ups reach it without
    the failed normal look-up and __getattr__.  On a subclass of that class
    it asks _get_attribute, which answers for the subclass; on the class
    itself it gives what _ProxyMeta.__getattr__ gives."""

    __slots__ = ("name", "cls")

    def __init__(self, name, cls):
        self.name = name
        self.cls = cls

    def __get__(self, obj, owner=None):
        if obj is None:
            return _ProxyMeta.__getattr__(owner, self.name)
        if type(obj) is self.cls:
            return _BoundMethod(obj, self.name)
        return _get_attribute(obj, self.name)


_ATTR_KIND = {}   # (proxy type, name) -> "method", ("static", function) or "attr"


def _get_attribute(proxy, name):
    cls = type(proxy)
    kind = _ATTR_KIND.get((cls, name))
    if kind is None:
        static = inspect.getattr_static(cls._zb_slow_type, name, None)
        if isinstance(static, staticmethod):
            kind = ("static", static.__func__)
        elif isinstance(static, types.FunctionType) or \
                type(static).__name__ in ("cython_function_or_method", "method_descriptor"):
            kind = "method"
        else:
            kind = "attr"
        # A name the class lacks (a column, df.col) is an "attr" too: the
        # class does not change, so the answer is kept (up to a bound, as
        # column names are the user's).
        if static is not None or len(_ATTR_KIND) < 100_000:
            _ATTR_KIND[(cls, name)] = kind
        if kind == "method" and name not in cls.__dict__:
            # (attributes stay on this path: an AttributeError from a
            # descriptor would make Python call __getattr__ a second time)
            type.__setattr__(cls, name, _Method(name, cls))
    if kind == "method":
        return _BoundMethod(proxy, name)
    if kind == "attr":
        accessor = _class_attrs.user_accessor(cls, name)
        if accessor is not None:
            return accessor.__get__(proxy, cls)
        return dispatch(proxy, name, (), {}, is_attr=True)
    return wrap_function(kind[1], f"{cls._zb_slow_type.__name__}.{name}")


# ---------------------------------------------------------------------------
# Debug mode


def _debug_compare(label, out, slow_thunk):
    """ZAMBEZI_PANDAS_DEBUG: zambezi's answer out against pandas' (the
    thunk runs pandas); an intermediate (a GroupBy) is not compared."""
    if isinstance(out, _Proxy) and out._zb_kind == "intermediate":
        return
    _debug.compare(label, unwrap_slow(out) if isinstance(out, _Proxy) else out, slow_thunk())
