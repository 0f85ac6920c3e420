"""Timestamps plus or minus pandas' calendar offsets: ``pd.DateOffset``
with relative parts (years, months, weeks, days, hours ... nanoseconds)
and ``pd.offsets.MonthEnd`` / ``MonthBegin``, as pandas moves them.

Months first: the day is clipped to the target month's length (31 January
plus one month is 29 February), the time of day kept; then the fixed
parts (days, hours ...) are added.  MonthEnd(n) / MonthBegin(n) roll to
the n-th month end / start, a date already on one counting as the first
(pandas' roll convention; n=0 rolls forward only when not on one).

Calendar fields are read by the engine and the new dates computed with
numpy over whole columns (the dates are days since the epoch); the
result is the timestamps plus one duration column, so the unit and the
zone stay.  Named time zones (whose offset changes with the date) raise
UnsupportedError: the accelerator leaves them to pandas.
"""

import numpy as np

from zambezi import _convert, _core, _tz
from zambezi.errors import UnsupportedError

_RELATIVE_NS = {"weeks": 7 * 86400 * 10**9, "days": 86400 * 10**9, "hours": 3600 * 10**9,
                "minutes": 60 * 10**9, "seconds": 10**9, "microseconds": 10**3,
                "milliseconds": 10**6, "nanoseconds": 1}
_UNIT_NS = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}
_KINDS = ("DateOffset", "MonthEnd", "MonthBegin")


def is_offset(x):
    """Whether x is one of the pandas offsets this module moves by."""
    t = type(x)
    return t.__name__ in _KINDS and (t.__module__ or "").startswith("pandas")


def _days_in_month(year, month):
    first = ((year - 1970) * 12 + month - 1).astype("datetime64[M]")
    return ((first + 1).astype("datetime64[D]") - first.astype("datetime64[D]")).astype(np.int64)


def _epoch_days(year, month, day):
    first = ((year - 1970) * 12 + month - 1).astype("datetime64[M]").astype("datetime64[D]")
    return first.astype(np.int64) + day - 1


def _fields(col):
    def field(name):
        return np.asarray(_convert.values_numpy(_core.dt_field(col, name)), dtype=np.int64)
    return field("year"), field("month"), field("day")


def shift(s, offset, sign):
    """Series s (timestamps) moved by sign * offset, as pandas."""
    col = s._col
    if not col.dtype.startswith("timestamp"):
        raise UnsupportedError(f"{s._describe()} + {type(offset).__name__}: timestamps only")
    if _tz.is_named(col.timezone):
        raise UnsupportedError(f"{type(offset).__name__} on times in the named zone "
                               f"{col.timezone!r} is not supported")
    if getattr(offset, "normalize", False):
        raise UnsupportedError(f"{type(offset).__name__}(normalize=True) is not supported")
    n = int(offset.n) * sign
    year, month, day = _fields(col)
    old_days = _epoch_days(year, month, day)
    fixed_ns = 0
    if type(offset).__name__ == "DateOffset":
        kw = dict(offset.kwds)
        absolute = sorted(k for k in kw if k not in _RELATIVE_NS and k not in ("years", "months"))
        if absolute:
            raise UnsupportedError(f"DateOffset({', '.join(absolute)}=...) (absolute parts) "
                                   "is not supported")
        months = n * (12 * int(kw.get("years", 0)) + int(kw.get("months", 0)))
        fixed_ns = n * sum(int(round(v * _RELATIVE_NS[k])) for k, v in kw.items()
                           if k in _RELATIVE_NS)
        target = year * 12 + month - 1 + months
        ny, nm = target // 12, target % 12 + 1
        nd = np.minimum(day, _days_in_month(ny, nm))
    else:
        end = type(offset).__name__ == "MonthEnd"
        compare = _days_in_month(year, month) if end else np.ones_like(day)
        months = np.where((n > 0) & (day < compare), n - 1,
                          np.where((n <= 0) & (day > compare), n + 1, n))
        target = year * 12 + month - 1 + months
        ny, nm = target // 12, target % 12 + 1
        nd = _days_in_month(ny, nm) if end else np.ones_like(day)
    delta_ns = (_epoch_days(ny, nm, nd) - old_days) * 86400 * 10**9 + fixed_ns
    scale = _UNIT_NS.get(col.unit, 1)
    unit = col.unit if not np.any(delta_ns % scale) else "ns"
    step = delta_ns // _UNIT_NS[unit]
    dur = _core.column_from_buffer(np.ascontiguousarray(step, dtype=np.int64),
                                   mask=_convert.null_mask(col))
    dur = _core.cast(dur, f"duration[{unit}]")
    return s._like((s + s._constructor._from_column(dur, s._name, s._index))._col)
