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

from zambezi import _convert, _core, _dt_methods, _dtypes, _tz
from zambezi.errors import UnsupportedError

_RELATIVE_NS = {"weeks": 7 * 86400 * 10**9, "days": 86400 * 10**9, "hours": 3600 * 10**9,
                "minutes": 60 * 10**9, "seconds": 10**9, "microseconds": 10**3,
                "milliseconds": 10**6, "nanoseconds": 1}
_KINDS = ("DateOffset", "MonthEnd", "MonthBegin")


def is_offset(x):
    """Whether x is one of the pandas offsets this module moves by."""
    t = type(x)
    return t.__name__ in _KINDS and (t.__module__ or "").startswith("pandas")


def _epoch_days(year, month, day):
    """Days since 1970-01-01 of proleptic Gregorian dates (integer
    arithmetic over whole arrays: the civil-from-days inverse)."""
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * ((month + 9) % 12) + 2) // 5 + day - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


def _month_tables(months_now, nulls, lo_shift, hi_shift):
    """(months as positions in the tables, first, dim): for every month
    from the earliest to the latest the rows reach (shifted by lo_shift ..
    hi_shift), its first day since the epoch and its length -- small
    tables looked up per row instead of calendar arithmetic per row."""
    valid = months_now if nulls is None else months_now[~nulls]
    lo = int(valid.min()) if len(valid) else 0
    hi = int(valid.max()) if len(valid) else 0
    base = lo + min(lo_shift, 0)
    span = np.arange(base, hi + max(hi_shift, 0) + 1, dtype=np.int64)
    year, month = span // 12, span % 12 + 1
    first = _epoch_days(year, month, np.ones_like(span))
    pos = months_now - base
    if nulls is not None:
        pos = np.where(nulls, -min(lo_shift, 0), pos)   # any valid position
    return pos, first, _dt_methods._days_in_month(year, month)


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
    f = _dt_methods._fields(col, ["year", "month", "day"])
    year, month, day = f["year"], f["month"], f["day"]
    months_now = year * 12 + month - 1   # months since year 0
    nulls = _convert.null_mask(col)
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
        months_now, first, dim = _month_tables(months_now, nulls, months, months)
        target = months_now + months
        nd = np.minimum(day, dim[target])
    else:
        end = type(offset).__name__ == "MonthEnd"
        months_now, first, dim = _month_tables(months_now, nulls, min(n - 1, n + 1),
                                               max(n - 1, n + 1))
        compare = dim[months_now] if end else 1
        target = months_now + np.where((n > 0) & (day < compare), n - 1,
                                       np.where((n <= 0) & (day > compare), n + 1, n))
        nd = dim[target] if end else 1
    # the date moves by whole days: (first day of the target month + nd)
    # less (first day of this month + day)
    delta_ns = ((first[target] - first[months_now]) + (nd - day)) * (86400 * 10**9) + fixed_ns
    scale = _dtypes.NS_PER.get(col.unit, 1)
    unit = col.unit if not np.any(delta_ns % scale) else "ns"
    step = delta_ns // _dtypes.NS_PER[unit]
    dur = _core.column_from_buffer(np.ascontiguousarray(step, dtype=np.int64),
                                   mask=_convert.null_mask(col))
    dur = _core.cast(dur, f"duration[{unit}]")
    return s._like((s + s._constructor._from_column(dur, s._name, s._index))._col)
