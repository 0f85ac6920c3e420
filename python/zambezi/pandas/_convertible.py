"""Which pandas objects the accelerator hands to zambezi: the dtypes,
indexes and column labels that survive ``zambezi.from_pandas`` and come back
from ``to_pandas`` unchanged.  Anything else raises _NoFast, and the call
runs on pandas."""

import functools
import types

import numpy as np

# The real pandas module, set by _wrappers.setup().
real = types.SimpleNamespace(pd=None)


class _NoFast(Exception):
    """zambezi cannot hold or compute this (the message says why)."""


def frame_convertible(pdf):
    cols = pdf.columns
    if cols.nlevels != 1 or not all(type(c) is str for c in cols) or not cols.is_unique:
        raise _NoFast("column labels are not unique strings")
    if type(cols).__name__ != "Index" or cols.name is not None:
        raise _NoFast("the column index has a name or a special type")
    if cols.dtype != _label_dtype():
        # zambezi's labels come back as pandas gives string labels (str in
        # pandas 3): object-dtype labels (mixed types, or strings kept as
        # object) would change dtype, and no columns at all would too
        raise _NoFast(f"column labels of dtype {cols.dtype} stay in pandas")
    for dt in pdf.dtypes:
        check_dtype(dt)
    check_index(pdf.index)
    if pdf.attrs:
        raise _NoFast("DataFrame.attrs is set")


@functools.lru_cache(maxsize=None)
def _label_dtype():
    """The dtype pandas gives an Index of string labels (str in pandas 3)."""
    return real.pd.Index(["_"]).dtype


def check_dtype(dt):
    kind, pd = getattr(dt, "kind", None), real.pd
    if isinstance(dt, np.dtype):
        if dt.isnative and (kind in "biuf" or kind in "Mm" and dt.name.endswith(
                ("[s]", "[ms]", "[us]", "[ns]"))):   # byte order: pandas keeps it
            return
    elif isinstance(dt, pd.StringDtype) and dt == pd.StringDtype(na_value=np.nan):
        return   # the default str dtype (to_pandas gives it back; other storages would change)
    elif isinstance(dt, pd.CategoricalDtype) and dt.categories is not None:
        return check_dtype(dt.categories.dtype)   # codes + categories of a dtype above
    elif isinstance(dt, pd.DatetimeTZDtype) and type(dt.tz).__name__ in ("ZoneInfo", "timezone") \
            and dt.unit in ("s", "ms", "us", "ns"):
        return   # zones to_pandas gives back as they are (not pytz's or dateutil's)
    raise _NoFast(f"dtype {dt} stays in pandas")


def check_index(idx):
    pd = real.pd
    if type(idx) is pd.RangeIndex:
        if idx.name is not None and type(idx.name) is not str:
            raise _NoFast("index name is not a string")
        return
    if type(idx) is pd.MultiIndex:
        raise _NoFast("MultiIndex stays in pandas")
    if type(idx) not in (pd.Index, pd.DatetimeIndex):
        raise _NoFast(f"{type(idx).__name__} stays in pandas")
    if idx.name is not None and type(idx.name) is not str:
        raise _NoFast("index name is not a string")
    if type(idx) is pd.DatetimeIndex and idx.freq is not None:
        raise _NoFast("DatetimeIndex with a freq stays in pandas")
    check_dtype(idx.dtype)
