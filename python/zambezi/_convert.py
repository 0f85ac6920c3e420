"""Conversions between Python, numpy, pandas, Arrow and engine columns.

Everything here works a column at a time: the per-value work happens in C
(``zambezi._core``) or in numpy/pandas vectorised calls, never in a Python
loop over rows.  pandas and pyarrow are imported lazily, only when the user
hands us their objects or asks for them.
"""

import numpy as np

from zambezi import _base, _core, _dtypes
from zambezi._dtypes import FLOATS as _FLOATS
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

# engine dtypes shown as a pandas masked dtype when the column has nulls
_NULLABLE_PANDAS = {name: pdname for pdname, name in _dtypes.PANDAS_MASKED.items()
                    if not name.startswith("float")}


def _is_pandas(obj, kind):
    mod = type(obj).__module__
    return mod.startswith("pandas") and type(obj).__name__ == kind


# --------------------------------------------------------------------------
# Python / numpy / pandas / Arrow -> engine column
# --------------------------------------------------------------------------

def column_from_numpy(arr, name=None):
    """An engine column copied from a 1-D numpy array."""
    kind = arr.dtype.kind
    if arr.ndim != 1:
        raise InvalidValueError(
            f"column {name!r}: expected a 1-D array, got shape {arr.shape}")
    if kind in "biuf":
        if arr.dtype == np.float16:
            arr = arr.astype(np.float32)
        if arr.dtype.byteorder == ">":
            arr = arr.astype(arr.dtype.newbyteorder("="))
        return _core.column_from_buffer(arr, name=name)
    if kind == "M":
        unit, _ = np.datetime_data(arr.dtype)
        if unit not in ("s", "ms", "us", "ns"):   # days, hours...: seconds, as pandas
            arr = arr.astype("datetime64[s]")
            unit = "s"
        return _core.column_from_buffer(arr.view(np.int64), unit=unit, name=name)
    if kind == "m":
        unit, _ = np.datetime_data(arr.dtype)
        if unit not in ("s", "ms", "us", "ns"):   # days, hours...: seconds, as pandas
            arr = arr.astype("timedelta64[s]")
            unit = "s"
        return _core.column_from_buffer(arr.view(np.int64), dtype=f"duration[{unit}]",
                                        name=name)
    if kind in "OUS":
        if kind == "S":
            arr = np.char.decode(arr, "utf-8")
        return _core.column_from_sequence(arr.astype(object, copy=False), name=name)
    raise DTypeError(f"column {name!r}: numpy dtype {arr.dtype} is not supported")


def _date32_from_numpy(arr, name=None):
    """A date32 column of a numpy datetime64 array's days (NaT missing)."""
    if arr.ndim != 1:
        raise InvalidValueError(f"column {name!r}: expected a 1-D array, got shape {arr.shape}")
    days = arr.astype("datetime64[D]").view(np.int64)
    mask = np.isnat(arr)
    if mask.any():
        days = np.where(mask, 0, days)
    return _core.column_from_buffer(days.astype(np.int32), mask=mask, dtype="date32", name=name)


def column_from_pandas(s, name=None):
    """An engine column from a pandas Series (its index is ignored)."""
    import pandas as pd

    dtype = s.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        cats = dtype.categories
        dictionary = None
        if cats.dtype.kind in "OUT" or str(cats.dtype) in ("str", "string"):
            cat_list = cats.to_numpy(dtype=object)
            if all(isinstance(c, str) for c in cat_list):  # per category, not per row
                dictionary = _core.column_from_sequence(cat_list, dtype="string", name=name)
        elif cats.dtype.kind in "biufmM" or isinstance(cats.dtype, pd.DatetimeTZDtype):
            # categories of any flat dtype: the dictionary is a column of it
            dictionary = column_from_pandas(pd.Series(cats, copy=False), name)
            if dictionary.null_count or dictionary.dtype in ("category", "string") or \
                    dictionary.dtype.startswith("list<"):
                dictionary = None
        if dictionary is not None:
            codes = s.cat.codes.to_numpy()
            return _core.categorical_from_codes(codes, dictionary, name=name,
                                                ordered=bool(dtype.ordered))
        values = s.astype(object).to_numpy()
        return _core.column_from_sequence(values, mask=s.isna().to_numpy(), name=name)
    if isinstance(dtype, pd.DatetimeTZDtype):
        from zambezi import _tz  # _tz imports this module

        unit = dtype.unit
        ints = np.asarray(s.array.tz_convert("UTC").tz_localize(None)).view(np.int64)
        return _core.column_from_buffer(ints, mask=s.isna().to_numpy(), unit=unit,
                                        tz=_tz.zone_name(dtype.tz), name=name)
    dname = str(dtype)
    if isinstance(dtype, pd.SparseDtype):  # densified, it would lose its dtype unnoticed
        raise UnsupportedError(f"column {name!r}: pandas' {dname} (sparse) dtype has no "
                               "zambezi counterpart; convert it first with "
                               "Series.sparse.to_dense()")
    if dname in _dtypes.PANDAS_MASKED:
        np_dtype = _dtypes.PANDAS_MASKED[dname]
        values = s.to_numpy(dtype=np_dtype, na_value=0 if np_dtype != "bool" else False)
        return _core.column_from_buffer(values, mask=s.isna().to_numpy(), name=name)
    if isinstance(dtype, np.dtype):
        if dtype.kind == "M":
            return column_from_numpy(s.to_numpy(), name=name)
        if dtype.kind in "biuf":
            return column_from_numpy(s.to_numpy(), name=name)
        if dtype.kind == "m":
            return column_from_numpy(s.to_numpy(), name=name)
    if hasattr(s.array, "__arrow_array__") and dname.endswith("[pyarrow]"):
        import pyarrow as pa

        return column_from_arrow_array(pa.array(s.array), name=name)
    values = s.to_numpy(dtype=object)
    if _holds_lists(values):  # pandas' list columns are object columns of lists
        return _core.list_from_sequence(values, name=name)
    return _core.column_from_sequence(values, mask=s.isna().to_numpy(), name=name)


def _holds_lists(seq):
    """Whether a sequence is meant as a list column: its first non-missing
    value is a list, tuple or numpy array (one value looked at, as
    _holds_timedeltas does)."""
    for v in seq:  # stops at the first value that is not None / NaN / NA
        if v is None or (isinstance(v, float) and v != v) or \
                type(v).__name__ in ("NaTType", "NAType"):
            continue
        return isinstance(v, (list, tuple, np.ndarray))
    return False


def _holds_timedeltas(seq, dtype):
    """Whether a list is meant as durations: dtype says so, or its first
    non-missing value is a timedelta (datetime.timedelta, pd.Timedelta,
    np.timedelta64)."""
    import datetime

    if dtype is not None:
        return dtype.startswith("duration")
    for v in seq:  # stops at the first value that is not None / NaT
        if v is None or type(v).__name__ in ("NaTType", "NAType"):
            continue
        return isinstance(v, (datetime.timedelta, np.timedelta64))
    return False


def column_from_arrow_array(obj, name=None):
    """An engine column from an object with ``__arrow_c_array__``."""
    if hasattr(obj, "combine_chunks"):  # pyarrow.ChunkedArray
        obj = obj.combine_chunks()
    schema, array = obj.__arrow_c_array__()
    col = _core.import_arrow_array(schema, array)
    if not isinstance(col, _core.Column):
        raise InvalidValueError(
            f"column {name!r}: expected one Arrow array, got a record batch / struct")
    return col


def nulls_like(col, n):
    """n nulls of col's dtype (its categories and time zone too)."""
    pos = _core.column_from_buffer(np.zeros(n, dtype=np.int64), mask=np.ones(n, dtype=np.bool_))
    return _core.take(col.slice(0, 0), pos)


def column_of_length(value, n, what):
    """An engine column for a Series / array / list operand of length n."""
    col = to_column(value)
    if col.length != n:
        raise InvalidValueError(
            f"{what}: length mismatch: {col.length} values for {n} rows "
            "(zambezi has no index to align on)")
    return col


def to_column(obj, name=None, dtype=None):
    """Turn what a user may pass as a column into an engine column; dtype
    (any spelling zambezi._dtypes knows) converts a list or an object
    array on the way in."""
    if dtype is not None and _dtypes.pandas_categorical(dtype):
        from zambezi import _categorical  # its categories and order

        return _categorical.from_pandas_dtype(to_column(obj, name), dtype)
    if dtype is not None:
        dtype = _dtypes.canonical(dtype)
    if dtype == "category" and not (isinstance(obj, _core.Column) or _base.is_series(obj)) \
            or dtype == "category" and obj.dtype != "category":
        from zambezi import _categorical  # categories of the values' own dtype

        return _categorical.encode(to_column(obj, name))
    if dtype is not None and dtype.startswith("list<"):  # a list dtype: lists, then a cast
        from zambezi import _lists

        if isinstance(obj, (list, tuple)) or (isinstance(obj, np.ndarray) and
                                              obj.dtype.kind == "O"):
            return _lists.cast(_core.list_from_sequence(obj, name=name), dtype)
        return _lists.cast(to_column(obj, name), dtype)
    if _base.is_series(obj):
        col = obj._col
    elif isinstance(obj, _core.Column):
        col = obj
    elif type(obj).__module__ == "zambezi.index" and getattr(obj, "nlevels", 0) == 1:
        col = obj._levels()[0]   # a zambezi Index's labels as they are (a time zone kept)
    elif _is_pandas(obj, "Series"):
        col = column_from_pandas(obj, name)
    elif type(obj).__module__.startswith("pandas") and hasattr(obj, "dtype"):
        # a pandas array or Index (Categorical, IntegerArray, DatetimeIndex...):
        # as a Series, so its dtype and missing values are kept
        import pandas as pd

        col = column_from_pandas(pd.Series(obj, copy=False), name)
    elif isinstance(obj, np.ndarray) and obj.dtype.kind == "O" and dtype is None and \
            _holds_lists(obj):
        col = _core.list_from_sequence(obj, name=name)
    elif isinstance(obj, np.ndarray) and obj.dtype.kind == "M" and dtype == "date32":
        return _date32_from_numpy(obj, name)   # days asked for: dates, not timestamps
    elif isinstance(obj, np.ndarray):
        if dtype is not None and obj.dtype.kind == "O":
            return _core.column_from_sequence(obj, dtype=dtype, name=name)
        col = column_from_numpy(obj, name)
    elif hasattr(obj, "__arrow_c_array__") or hasattr(obj, "combine_chunks"):
        col = column_from_arrow_array(obj, name)
    elif hasattr(obj, "__dlpack__") or hasattr(obj, "__cuda_array_interface__"):
        # CuPy, PyTorch, JAX ...: the producer's memory, shared
        from zambezi import _interchange

        col = _interchange.column_from_array(obj)
    elif isinstance(obj, (list, tuple)) and dtype is None and _holds_lists(obj):
        col = _core.list_from_sequence(obj, name=name)
    elif isinstance(obj, (list, tuple)):
        if dtype is not None and dtype.startswith("duration") and \
                not _holds_timedeltas(obj, None):  # numbers: counts of the unit
            return _core.cast(_core.column_from_sequence(obj, dtype="int64", name=name), dtype)
        if _holds_timedeltas(obj, dtype):
            try:  # pd.Timedelta's nanoseconds: numpy would read only its microseconds
                import pandas as pd
            except ImportError:
                arr = np.array(obj, dtype="timedelta64[ns]")
            else:   # the unit pandas' Series gives the values (the finest they ask for)
                arr = pd.Series(list(obj)).to_numpy()
                if arr.dtype.kind != "m":
                    arr = pd.to_timedelta(list(obj)).to_numpy()
            if dtype:
                arr = arr.astype(f"timedelta64[{_dtypes.duration_unit(dtype)}]")
            return column_from_numpy(arr, name)
        return _core.column_from_sequence(obj, dtype=dtype, name=name)
    elif isinstance(obj, (str, bytes, dict)) or not hasattr(obj, "__iter__"):
        raise DTypeError(
            f"column {name!r}: expected a list, numpy array, Series or Arrow array, "
            f"not {type(obj).__name__}")
    else:
        return _core.column_from_sequence(list(obj), dtype=dtype, name=name)
    if dtype is not None and col.dtype != dtype:
        raise DTypeError(
            f"column {name!r}: casting {col.dtype} to {dtype} is not supported yet")
    return col


# --------------------------------------------------------------------------
# engine column -> numpy / pandas
# --------------------------------------------------------------------------

def null_mask(col):
    """numpy bool array, True where null, or None when there are no nulls."""
    m = col.null_mask()
    return None if m is None else np.frombuffer(m, dtype=np.bool_)


def values_numpy(col):
    """A read-only numpy view of the column's values (zero-copy for
    fixed-width data; values under nulls are unspecified)."""
    arr = np.asarray(col.values())
    dt = col.dtype
    if dt.startswith("timestamp"):
        arr = arr.view(f"datetime64[{col.unit}]")
    elif dt.startswith("duration"):
        arr = arr.view(f"timedelta64[{col.unit}]")
    elif arr.dtype.kind in "iu" and arr.dtype.itemsize == 8:
        # the buffer's format 'q' / 'Q' is numpy's longlong, a type other
        # than np.int64 (long) on LP64 systems: pandas' select_dtypes and
        # isinstance(x, np.int64) would not recognise it
        arr = arr.view(np.dtype(arr.dtype.name))
    return arr


def _nan_filled_lists(col, mask):
    """A host list column of floats with its missing elements NaN."""
    offs = np.frombuffer(col.list_offsets(), dtype=np.int64)
    child = col.child
    if len(offs) and (offs[0] != 0 or offs[-1] != child.length):
        child = child.slice(int(offs[0]), int(offs[-1] - offs[0]))
        offs = offs - offs[0]
    return _core.list_from_parts(np.ascontiguousarray(offs, dtype=np.int64),
                                 _core.fill_null(child, float("nan")), mask)


def _object_array(values, lists=False):
    if lists:  # lists of one length would broadcast as a 2-D block: one by one, in C
        return np.fromiter(values, dtype=object, count=len(values))
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def to_numpy(col):
    """numpy array of the column: zero-copy read-only view for fixed-width
    data without nulls; float64 with NaN for numbers with nulls; datetime64
    with NaT for timestamps; object arrays (None for nulls) otherwise."""
    if col.device != "cpu":
        col = col.to_device("cpu")
    dt = col.dtype
    if dt in ("string", "category", "date32") or dt.startswith("list<"):
        if dt == "date32" and col.null_count == 0:
            return np.asarray(col.values()).astype("datetime64[D]")
        return _object_array(col.to_pylist(), dt.startswith("list<"))
    mask = null_mask(col)
    arr = values_numpy(col)
    if mask is None:
        return arr
    if dt.startswith(("timestamp", "duration")):
        out = arr.copy()
        out[mask] = out.dtype.type("NaT")
        return out
    if dt == "bool":
        out = arr.astype(object)
        out[mask] = None
        return out
    out = arr.astype(np.float64)
    out[mask] = np.nan
    return out


def to_numpy_as_pandas(col):
    """to_numpy of the column as pandas gives it to the user: missing text,
    categories and lists are NaN (pandas 3's str dtype, a Categorical and
    the object column str.split makes give NaN), not to_numpy's None --
    which lookups and other internal uses keep; times with a zone are
    objects (pd.Timestamp, NaT where missing)."""
    dt = col.dtype
    if dt == "category":
        return _categorical_numpy(col if col.device == "cpu" else col.to_device("cpu"))
    if dt.startswith("timestamp") and col.timezone is not None:
        # pandas: objects, each time in its zone (numpy's datetime64 has none)
        return _object_array(to_python_list(col))
    arr = to_numpy(col)
    if col.null_count and (dt == "string" or dt.startswith("list<")):
        arr[null_mask(col)] = np.nan
    return arr


def _categorical_numpy(col):
    """numpy's array of a categorical as pandas gives it (np.asarray of a
    Categorical): the categories' values, in their numpy dtype when they
    have one (int64 categories give int64; float64 with NaN, or object for
    bools, when values are missing), objects for text; missing values NaN
    (NaT for times)."""
    cats = to_numpy_as_pandas(col.dictionary)
    codes = values_numpy(col).astype(np.int64)
    mask = null_mask(col)
    if mask is None:
        return cats[codes]
    if cats.dtype.kind in "iu":
        cats = cats.astype(np.float64)
    elif cats.dtype.kind == "b":
        cats = cats.astype(object)
    out = cats[np.where(mask, 0, codes)] if len(cats) else np.empty(len(codes), cats.dtype)
    out[mask] = out.dtype.type("NaT") if out.dtype.kind in "mM" else np.nan
    return out


_DEFAULT_STR = []


def _default_str_dtype(pd):
    """pandas' default dtype for strings: 'str' in pandas 3, object before."""
    if not _DEFAULT_STR:
        _DEFAULT_STR.append(pd.Series(["a"]).dtype)
    return _DEFAULT_STR[0]


def to_python_list(col):
    """The column's values as Python objects, as pandas' ``tolist`` gives
    them: timestamps as pd.Timestamp (zone and nanoseconds kept), durations
    as pd.Timedelta, NaT where missing -- boxed by pandas over the whole
    column, no Python loop; without pandas, datetime.datetime /
    datetime.timedelta and None.  Other dtypes as ``Column.to_pylist``."""
    dt = col.dtype
    if dt.startswith(("timestamp", "duration")):
        try:
            import pandas  # noqa: F401
        except ImportError:  # pragma: no cover - depends on the environment
            return col.to_pylist()
        return column_to_pandas(col).tolist()
    return col.to_pylist()


def column_to_pandas(col, name=None):
    """A pandas Series with the dtype a pandas user expects (see module doc)."""
    import pandas as pd

    if col.device != "cpu":
        col = col.to_device("cpu")
    dt = col.dtype
    mask = null_mask(col)
    if dt in _NULLABLE_PANDAS:
        values = values_numpy(col)
        if mask is None:
            return pd.Series(values.copy(), name=name)
        values = values.copy()
        values[mask] = 0
        if dt == "bool":
            arr = pd.arrays.BooleanArray(values, mask.copy())
        else:
            arr = pd.arrays.IntegerArray(values, mask.copy())
        return pd.Series(arr, name=name)
    if dt in _FLOATS:
        values = values_numpy(col).copy()
        if mask is not None:
            values[mask] = np.nan
        return pd.Series(values, name=name)
    if dt == "string":
        return pd.Series(_object_array(col.to_pylist()), dtype=_default_str_dtype(pd),
                         name=name)
    if dt == "category":
        codes = np.asarray(col.values()).copy()
        if mask is not None:
            codes[mask] = -1
        dictionary = col.dictionary
        if dictionary.dtype == "string":
            categories = pd.Index(_object_array(dictionary.to_pylist()),
                                  dtype=_default_str_dtype(pd))
        else:
            categories = pd.Index(column_to_pandas(dictionary))
        cat = pd.Categorical.from_codes(codes, categories=categories, ordered=col.ordered)
        return pd.Series(cat, name=name)
    if dt.startswith("list<"):
        # pandas' object column of lists; a missing row is NaN, as pandas'
        # own list producers (str.split, str.findall) give it, and so is a
        # missing number inside a list (agg(list) of a float column)
        if dt.startswith("list<float") and col.child.null_count:
            col = _nan_filled_lists(col, mask)
        values = _object_array(col.to_pylist(), True)
        if mask is not None:
            values[mask] = np.nan
        return pd.Series(values, dtype=object, name=name)
    if dt == "date32":
        return pd.Series(_object_array(col.to_pylist()), dtype=object, name=name)
    if dt.startswith("timestamp"):
        values = values_numpy(col).copy()
        if mask is not None:
            values[mask] = np.datetime64("NaT")
        s = pd.Series(values, name=name)
        if col.timezone is not None:
            s = s.dt.tz_localize("UTC").dt.tz_convert(col.timezone)
        return s
    if dt.startswith("duration"):
        values = values_numpy(col).copy()
        if mask is not None:
            values[mask] = np.timedelta64("NaT")
        return pd.Series(values, name=name)
    raise DTypeError(f"column {name!r}: cannot convert dtype {dt} to pandas")
