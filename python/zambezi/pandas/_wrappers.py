"""Which pandas classes get proxy types, and which pandas functions have a
zambezi counterpart tried first.  Called once by install(), with the real
pandas already imported."""

import copyreg
import functools
import importlib
import warnings

from zambezi.pandas import _pickling, _proxy

# Data types: converted with from_pandas/to_pandas.  The Index subclasses are
# proxied so that isinstance and type names hold; only plain Index,
# RangeIndex and DatetimeIndex convert to zambezi (_proxy._check_index).
_DATA = [("DataFrame", "frame"), ("Series", "series"), ("Index", "index"),
         ("RangeIndex", "index"), ("MultiIndex", "index"), ("DatetimeIndex", "index"),
         ("TimedeltaIndex", "index"), ("PeriodIndex", "index"), ("CategoricalIndex", "index"),
         ("IntervalIndex", "index")]

# Intermediate types: (module, class name).
_INTERMEDIATE = [
    ("pandas.core.groupby.groupby", "GroupBy"),
    ("pandas.core.groupby.generic", "DataFrameGroupBy"),
    ("pandas.core.groupby.generic", "SeriesGroupBy"),
    ("pandas.core.window.rolling", "Rolling"),
    ("pandas.core.window.rolling", "Window"),
    ("pandas.core.window.rolling", "RollingGroupby"),
    ("pandas.core.window.expanding", "Expanding"),
    ("pandas.core.window.expanding", "ExpandingGroupby"),
    ("pandas.core.window.ewm", "ExponentialMovingWindow"),
    ("pandas.core.window.ewm", "ExponentialMovingWindowGroupby"),
    ("pandas.core.resample", "Resampler"),
    ("pandas.core.resample", "DatetimeIndexResampler"),
    ("pandas.core.strings.accessor", "StringMethods"),
    ("pandas.core.indexes.accessors", "Properties"),
    ("pandas.core.indexes.accessors", "DatetimeProperties"),
    ("pandas.core.indexes.accessors", "TimedeltaProperties"),
    ("pandas.core.indexes.accessors", "PeriodProperties"),
    ("pandas.core.arrays.categorical", "CategoricalAccessor"),
    ("pandas.core.indexing", "_LocIndexer"),
    ("pandas.core.indexing", "_iLocIndexer"),
    ("pandas.core.indexing", "_AtIndexer"),
    ("pandas.core.indexing", "_iAtIndexer"),
]

# pandas classes whose objects stay real but whose constructors and class
# methods must not be given proxies (they take Index/Series arguments: a
# proxy kept inside a real dtype breaks pandas' own type checks): see
# unwrap_constructors.
UNWRAPPING = frozenset(["Categorical", "CategoricalDtype"])

# pandas top-level function -> zambezi function of the same contract.
# (Not cut/qcut: zambezi labels bins with strings where pandas gives a
# Categorical of Intervals.)
FAST_FUNCTIONS = ["read_csv", "read_parquet", "concat", "merge", "merge_asof", "merge_ordered",
                  "melt", "wide_to_long", "pivot",
                  "pivot_table", "crosstab", "get_dummies", "to_numeric", "factorize"]


def _real_module(name, prefix):
    return importlib.import_module(prefix + name)


def setup(prefix):
    """Build the proxy types from the real pandas (whose modules now live in
    sys.modules under prefix + name)."""
    if _proxy.SLOW_TO_PROXY:
        return
    pd = _real_module("pandas", prefix)
    _proxy._real.pd = pd
    built = {}

    def build(slow_type, kind):
        if slow_type in built:
            return built[slow_type]
        base = next((built[b] for b in slow_type.__mro__[1:] if b in built), _proxy._Proxy)
        cls = _proxy.make_proxy_type(slow_type, kind, (base,))
        built[slow_type] = cls
        return cls

    for name, kind in _DATA:
        build(getattr(pd, name), kind)
    for mod, name in _INTERMEDIATE:
        try:
            slow_type = getattr(_real_module(mod, prefix), name)
        except (ImportError, AttributeError):
            continue
        build(slow_type, "intermediate")
    _unwrap_indexer_arguments(prefix)


def _unwrap_indexer_arguments(prefix):
    """pandas' window indexers (BaseIndexer, VariableOffsetWindowIndexer...)
    stay real pandas classes -- user code subclasses them and pandas calls
    their get_window_bounds -- but the user's code builds them from proxies
    (VariableOffsetWindowIndexer(index=df.index, ...) checks that index is
    a DatetimeIndex): their __init__ gets the pandas objects instead.  A
    real pandas object passes through unchanged, so pandas' own calls are
    unaffected."""
    try:
        objects = _real_module("pandas.core.indexers.objects", prefix)
    except ImportError:
        return
    base = getattr(objects, "BaseIndexer", None)
    if base is None:
        return
    for cls in list(vars(objects).values()):
        if not (isinstance(cls, type) and issubclass(cls, base)):
            continue
        init = cls.__dict__.get("__init__")
        if init is None or getattr(init, "_zb_unwrapping", False):
            continue
        cls.__init__ = _unwrapping_init(init)


def unwrap_constructors(cls):
    """cls (one of UNWRAPPING) changed in place: its __init__, __setstate__
    and public class methods get pandas objects for the proxies they are
    given.  User code gets pandas' own class, which pickle finds by its
    name (a stand-in class there fails to pickle a Categorical) and
    isinstance knows; its objects pickle as plain pandas pickles (the Index
    of their categories is pandas' own there, not the proxy class user code
    gets)."""
    copyreg.dispatch_table[cls] = _pickling.pandas_pickle
    for name, attr in list(vars(cls).items()):
        # (__setstate__: the Index of categories that pickle, loading a
        # plain pandas pickle for user code, made a proxy)
        if name in ("__init__", "__setstate__") and type(attr).__name__ == "function":
            if not getattr(attr, "_zb_unwrapping", False):
                setattr(cls, name, _unwrapping_init(attr))
        elif isinstance(attr, classmethod) and not name.startswith("_") and \
                not getattr(attr.__func__, "_zb_unwrapping", False):
            setattr(cls, name, classmethod(_unwrapping_init(attr.__func__)))


def _unwrap_methods(cls):
    """cls (a real pandas class) and its pandas bases: __init__ and the
    public methods get pandas objects for the proxies they are given, and
    the user's functions among the arguments give pandas objects back.  A
    real pandas object passes through unchanged, so pandas' own calls are
    unaffected; the class stays pandas' own (user code subclasses it)."""
    for base in cls.__mro__[:-1] if isinstance(cls, type) else ():
        for name, fn in list(vars(base).items()):
            if (name == "__init__" or not name.startswith("_")) and \
                    type(fn).__name__ == "function" and not getattr(fn, "_zb_unwrapping", False):
                setattr(base, name, _unwrapping_init(fn))


def unwrap_styler_arguments(style):
    """pandas' Styler (df.style) is built from pandas' own frame, but user
    code hands it proxies: Styler(df), styler.background_gradient(gmap=df),
    styler.concat(...), and functions for apply / map that return proxies.
    style is pandas' real pandas.io.formats.style module, patched when it
    is first imported (by df.style or user code): importing it at install
    time would import jinja2 for every script."""
    _unwrap_methods(getattr(style, "Styler", None))


def unwrap_holiday_arguments(holiday):
    """pandas' Holiday checks that exclude_dates is a DatetimeIndex, and a
    calendar's rules hold Holidays."""
    _unwrap_methods(getattr(holiday, "Holiday", None))
    _unwrap_methods(getattr(holiday, "AbstractHolidayCalendar", None))


# pandas module name -> function called with the real module when it is
# first imported under the accelerator
ON_IMPORT = {"pandas.io.formats.style": unwrap_styler_arguments,
             "pandas.tseries.holiday": unwrap_holiday_arguments}


def _unwrapping_init(init):
    unwrap = _proxy.unwrap_slow

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        return init(self, *unwrap(args), **unwrap(kwargs))

    __init__._zb_unwrapping = True
    return __init__


def _masked_dtype(dtype):
    """Whether dtype names one of pandas' NA-masked dtypes (Int64, UInt8,
    Float64, boolean, string): its column must come back in that dtype,
    which a zambezi column converted to pandas does not."""
    from zambezi import _dtypes

    name = str(dtype)
    return name in _dtypes.PANDAS_MASKED or name == "string" or name.startswith("string[")


def _read_csv_as_pandas(*args, **kwargs):
    """zambezi's read_csv as pandas.read_csv reads: dates stay text unless
    parse_dates names them; a dtype= of pandas' masked dtypes, and a file
    without rows, are pandas'."""
    import zambezi as zb
    from zambezi.errors import UnsupportedError

    dtype = kwargs.get("dtype")
    asked = dtype.values() if isinstance(dtype, dict) else [] if dtype is None else [dtype]
    if any(_masked_dtype(d) for d in asked):
        raise UnsupportedError("read_csv: dtype= names pandas' masked dtypes, which pandas "
                               "reads")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = zb.read_csv(*args, infer_dates=False, **kwargs)
    for w in caught:  # from the user's line; a skipped row as pandas' C parser tells it
        if issubclass(w.category, zb.errors.ParserWarning):
            w.category = _proxy._real.pd.errors.ParserWarning
            w.message = w.category(f"{w.message}\n")
        _proxy._rewarn(w)
    if isinstance(out, zb.DataFrame) and len(out) == 0 and len(out.columns):
        # no rows: pandas' columns are object (nothing told their type)
        raise UnsupportedError("read_csv: a file without rows, which pandas reads")
    return out


def fast_function(name):
    import zambezi as zb

    if name == "read_csv":
        return _read_csv_as_pandas
    if name in FAST_FUNCTIONS:
        return getattr(zb, name, None)
    return None
