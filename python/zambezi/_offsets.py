"""Timestamps plus or minus pandas' calendar offsets: ``pd.DateOffset``
with relative parts (years, months, weeks, days, hours ... nanoseconds);
``pd.offsets.MonthEnd`` / ``MonthBegin``, ``QuarterEnd`` / ``QuarterBegin``
(startingMonth), ``YearEnd`` / ``YearBegin`` (month); ``Week`` (weekday)
and ``BusinessDay`` (``BDay``, with its offset); ``Day`` and the fixed
steps ``Hour``, ``Minute``, ``Second``, ``Milli``, ``Micro``, ``Nano``, as
pandas moves them.  The result's unit is the column's, or the first finer
one that holds the step (seconds plus Milli(3) gives milliseconds).

Months first: the day is clipped to the target month's length (31 January
plus one month is 29 February), the time of day kept; then the fixed
parts (days, hours ...) are added.  The month, quarter and year ends and
starts roll to the n-th such date, a date already on one counting as the
first (pandas' roll convention; n=0 rolls forward only when not on one).
Week(weekday=k) moves a date off weekday k forward to it first (the
first of n weeks); BusinessDay counts weekdays, Saturdays and Sundays
rolling to the next (or, going back, the previous) weekday first.

Calendar fields are read by the engine and the new dates computed with
numpy over whole columns (the dates are days since the epoch); the
result is the timestamps plus one duration column, so the zone stays.
Named time zones (whose offset changes with the date) raise
UnsupportedError: the accelerator leaves them to pandas.
"""

import numpy as np

from zambezi import _convert, _core, _dt_methods, _dtypes, _times, _tz
from zambezi.errors import UnsupportedError

_RELATIVE_NS = {"weeks": 7 * 86400 * 10**9, "days": 86400 * 10**9, "hours": 3600 * 10**9,
                "minutes": 60 * 10**9, "seconds": 10**9, "microseconds": 10**3,
                "milliseconds": 10**6, "nanoseconds": 1}
# name -> (months in a period, the attribute naming its anchor month, end)
_ANCHORED = {"MonthEnd": (1, None, True), "MonthBegin": (1, None, False),
             "QuarterEnd": (3, "startingMonth", True),
             "QuarterBegin": (3, "startingMonth", False),
             "YearEnd": (12, "month", True), "YearBegin": (12, "month", False)}
# fixed steps: pandas' Tick offsets (Hour(3) is 3 hours) and Day (a
# calendar day: 24 hours on naive times, UTC and fixed offsets)
_FIXED = {"Day": 86400 * 10**9, "Hour": 3600 * 10**9, "Minute": 60 * 10**9, "Second": 10**9,
          "Milli": 10**6, "Micro": 10**3, "Nano": 1}   # nanoseconds in one step
_KINDS = ("DateOffset", "Week", "BusinessDay") + tuple(_ANCHORED) + tuple(_FIXED)


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
    kind = type(offset).__name__
    if not col.dtype.startswith("timestamp"):
        raise UnsupportedError(f"{s._describe()} + {kind}: timestamps only")
    if _tz.is_named(col.timezone):
        raise UnsupportedError(f"{kind} on times in the named zone "
                               f"{col.timezone!r} is not supported")
    if getattr(offset, "normalize", False):
        raise UnsupportedError(f"{kind}(normalize=True) is not supported")
    n = int(offset.n) * sign
    nulls = _convert.null_mask(col)
    fixed_ns = 0
    if kind in _FIXED:
        delta_days = np.zeros(len(col), dtype=np.int64)
        fixed_ns = n * _FIXED[kind]
    elif kind in ("Week", "BusinessDay"):   # counted in days of the week
        days = _wall_days(col)
        weekday = (days + 3) % 7   # 1970-01-01 was a Thursday (Monday is 0)
        if kind == "Week":
            delta_days = _week(offset, n, weekday)
        else:
            delta_days = _business_day(n, weekday)
            fixed_ns = _times._timedelta_ns(offset.offset)   # kept by -BDay(n) too
    else:
        f = _dt_methods._fields(col, ["year", "month", "day"])
        year, month, day = f["year"], f["month"], f["day"]
        if kind == "DateOffset":
            delta_days, fixed_ns = _date_offset(offset, n, year, month, day, nulls)
        else:
            delta_days = _anchored(offset, n, year, month, day, nulls)
    delta_ns = delta_days * (86400 * 10**9) + fixed_ns
    # the column's unit, or the first finer one that holds the step (pandas)
    units = _dtypes.UNITS
    unit = next(u for u in units[units.index(col.unit) if col.unit in units else 3:]
                if not np.any(delta_ns % _dtypes.NS_PER[u]))
    if fixed_ns and kind == "BusinessDay" and unit in ("s", "ms"):
        unit = "us"   # pandas: the offset's timedelta brings its microseconds
    step = delta_ns // _dtypes.NS_PER[unit]
    dur = _core.column_from_buffer(np.ascontiguousarray(step, dtype=np.int64),
                                   mask=_convert.null_mask(col))
    dur = _core.cast(dur, f"duration[{unit}]")
    return s._like((s + s._constructor._from_column(dur, s._name, s._index))._col)


def _date_offset(offset, n, year, month, day, nulls):
    """(days moved, fixed ns) of DateOffset(n, relative parts)."""
    kw = dict(offset.kwds)
    absolute = sorted(k for k in kw if k not in _RELATIVE_NS and k not in ("years", "months"))
    if absolute:
        raise UnsupportedError(f"DateOffset({', '.join(absolute)}=...) (absolute parts) "
                               "is not supported")
    months = n * (12 * int(kw.get("years", 0)) + int(kw.get("months", 0)))
    fixed_ns = n * sum(int(round(v * _RELATIVE_NS[k])) for k, v in kw.items()
                       if k in _RELATIVE_NS)
    now, first, dim = _month_tables(year * 12 + month - 1, nulls, months, months)
    target = now + months
    nd = np.minimum(day, dim[target])
    # (first day of the target month + nd) less (first day of this month + day)
    return (first[target] - first[now]) + (nd - day), fixed_ns


def _anchored(offset, n, year, month, day, nulls):
    """Days moved by a month, quarter or year end / start: the n-th anchor
    date on, a date already on one counting as the first, and n <= 0
    rolling forward to one first when not on one (pandas' roll)."""
    modby, attr, end = _ANCHORED[type(offset).__name__]
    anchor = int(getattr(offset, attr)) if attr else 1
    since = (month - anchor) % modby     # months since the last anchor month
    now, first, dim = _month_tables(year * 12 + month - 1, nulls,
                                    modby * (n - 1) - (modby - 1), modby * (n + 1))
    compare = dim[now] if end else 1
    steps = np.where((n > 0) & (since == 0) & (day < compare), n - 1,
                     np.where((n <= 0) & ((since != 0) | (day > compare)), n + 1, n))
    target = now + modby * steps - since
    nd = dim[target] if end else 1
    return (first[target] - first[now]) + (nd - day)


def _week(offset, n, weekday):
    """Days moved by Week(n, weekday): n weeks; with a weekday, a date off
    it first moves forward to it, which counts as the first week when n > 0."""
    if offset.weekday is None:
        return np.full(len(weekday), 7 * n, dtype=np.int64)
    off = weekday != offset.weekday
    return np.where(off, (offset.weekday - weekday) % 7, 0) + \
        7 * np.where(off & (n > 0), n - 1, n)


def _wall_days(col):
    """Days since the epoch of each timestamp's wall time (naive, UTC or a
    fixed offset; named zones were refused), straight from the values."""
    per_day = 86400 * _dtypes.PER_SECOND[col.unit]
    offset = _times._zone_offset_ns(col.timezone) // _dtypes.NS_PER[col.unit]
    return (_convert.values_numpy(col).view(np.int64) + offset) // per_day


def _business_day(n, weekday):
    """Days moved by BusinessDay(n): n weekdays on; a Saturday or Sunday
    first rolls to Monday (n >= 0, the roll counting as the first step
    when n > 0) or to Friday (n < 0, likewise); then whole weeks of five,
    and two more days where the rest crosses a weekend."""
    weekend = weekday >= 5
    if n >= 0:
        roll = np.where(weekend, 7 - weekday, 0)
        w = np.where(weekend, 0, weekday)
        weeks, rest = np.divmod(np.where(weekend & (n > 0), n - 1, n), 5)
        return roll + 7 * weeks + rest + np.where(w + rest > 4, 2, 0)
    roll = np.where(weekend, weekday - 4, 0)
    w = np.where(weekend, 4, weekday)
    weeks, rest = np.divmod(-np.where(weekend, n + 1, n), 5)
    return -(roll + 7 * weeks + rest + np.where(w - rest < 0, 2, 0))
