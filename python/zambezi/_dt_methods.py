"""The work of ``Series.dt`` beyond the calendar fields: rounding to a
frequency, strftime, day and month names, the is_* flags and time zones of
timestamps, and the parts of durations.

Calendar fields come from the engine (``_core.dt_field``, in C over every
core); what is built from them here is numpy vectorised arithmetic on whole
columns, never a Python loop over rows.  Time zones: a zone-aware
timestamp stores UTC; fields, floor/ceil/round/normalize and strftime work
in wall time, for UTC, fixed offsets ("+05:30") and named zones
("Europe/Berlin": converted by the engine from the zone's TZif file,
zambezi._tz).
"""

import numpy as np

from zambezi import _convert, _core, _dtypes, _times, _tz
from zambezi.errors import DTypeError, InvalidValueError

DAY_NAMES = np.array(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
                      "Sunday"], dtype=object)
MONTH_NAMES = np.array(["January", "February", "March", "April", "May", "June", "July",
                        "August", "September", "October", "November", "December"],
                       dtype=object)


def _need(col, kinds, what):
    if not col.dtype.startswith(kinds):
        names = " or ".join(kinds)
        raise DTypeError(f"dt.{what} needs a {names} Series, not {col.dtype}")


def field_source(col):
    """The column whose calendar fields are col's wall-time fields: named
    zones converted to naive wall times (UTC and fixed offsets the engine
    applies itself)."""
    if col.dtype.startswith("timestamp") and _tz.is_named(col.timezone):
        return _tz.to_wall(col)
    return col


def _ints(col):
    return _convert.values_numpy(col).view(np.int64)


def _stamp_column(vals, like):
    return _core.column_from_buffer(np.ascontiguousarray(vals, dtype=np.int64),
                                    mask=_convert.null_mask(like), unit=like.unit,
                                    tz=like.timezone)


def round_to(col, freq, how, ambiguous="raise", nonexistent="raise"):
    """floor / ceil / round (half to even, as pandas) of timestamps to a
    fixed frequency, in wall time (zone-aware: then localized back with
    ambiguous / nonexistent, as pandas)."""
    if col.dtype == "date32":
        col = _core.cast(col, "timestamp[s]")
    _need(col, ("timestamp", "duration"), how)
    kind, _, step_ns = _times._parse_freq(freq)
    if kind != "fixed":
        raise InvalidValueError(f"dt.{how}: {freq!r} is not a fixed frequency (use D, h, min, "
                                "s, ms, us, ns)")
    per_unit = 10**9 // _dtypes.PER_SECOND[col.unit]
    if step_ns % per_unit:
        raise InvalidValueError(f"dt.{how}: {freq!r} is finer than the column's unit "
                                f"{col.unit!r}")
    step = step_ns // per_unit
    aware = col.dtype.startswith("timestamp") and col.timezone is not None
    v = _ints(_tz.to_wall(col)) if aware else _ints(col)
    r = v % step  # floor remainder, in [0, step)
    lo = v - r
    if how == "floor":
        out = lo
    elif how == "ceil":
        out = np.where(r != 0, lo + step, lo)
    else:
        twice = 2 * r
        odd = (lo // step) % 2 != 0
        out = np.where((twice > step) | ((twice == step) & odd), lo + step, lo)
    if col.dtype.startswith("duration"):
        return _core.column_from_buffer(out, mask=_convert.null_mask(col), dtype=col.dtype)
    if aware:  # back from wall time, as pandas: a time a clock change skips or repeats raises
        wall = _core.column_from_buffer(np.ascontiguousarray(out, dtype=np.int64),
                                        mask=_convert.null_mask(col), unit=col.unit)
        return _tz.localize(wall, col.timezone, ambiguous, nonexistent, how)
    return _stamp_column(out, col)


def _fields(col, names):
    return {nm: np.asarray(_convert.values_numpy(_core.dt_field(col, nm)), dtype=np.int64)
            for nm in names}


def _text_column(values, col):
    """A string column of an object array, null where col is."""
    mask = _convert.null_mask(col)
    if mask is not None:
        values = values.astype(object)
        values[mask] = None
    return _core.column_from_sequence(values, dtype="string")


def _wall(col, what):
    """col as naive timestamps in its wall time."""
    if col.dtype == "date32":
        return col
    return _tz.to_wall(col)


def day_name(col):
    _need(col, ("timestamp", "date32"), "day_name")
    dow = _fields(_wall(col, "day_name"), ["dayofweek"])["dayofweek"]
    return _text_column(DAY_NAMES[np.clip(dow, 0, 6)], col)


def _iso_weeks_in(year):
    """52 or 53: the ISO weeks of each year (53 when it starts on a
    Thursday, or on a Wednesday in a leap year)."""
    def p(y):
        return (y + y // 4 - y // 100 + y // 400) % 7
    return np.where((p(year) == 4) | (p(year - 1) == 3), 53, 52)


def isocalendar(col):
    """(year, week, day) columns of the ISO 8601 calendar, int32 / uint32
    / uint32 with nulls kept (pandas' Int32 / UInt32): weeks start on
    Monday (day 1), week 1 holds the year's first Thursday."""
    _need(col, ("timestamp", "date32"), "isocalendar")
    f = _fields(_wall(col, "isocalendar"), ["year", "dayofweek", "dayofyear"])
    year, day = f["year"], f["dayofweek"] + 1
    week = (f["dayofyear"] - day + 10) // 7
    before = week < 1
    after = week > _iso_weeks_in(year)
    week = np.where(before, _iso_weeks_in(year - 1), np.where(after, 1, week))
    year = year - before + after
    mask = _convert.null_mask(col)
    return [_core.column_from_buffer(np.ascontiguousarray(v, dtype=t), mask=mask)
            for v, t in ((year, np.int32), (week, np.uint32), (day, np.uint32))]


def month_name(col):
    _need(col, ("timestamp", "date32"), "month_name")
    month = _fields(_wall(col, "month_name"), ["month"])["month"]
    return _text_column(MONTH_NAMES[np.clip(month, 1, 12) - 1], col)


_MONTH_DAYS = np.array([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], dtype=np.int64)


def _days_in_month(year, month):
    """The length of each month (numpy arrays; a month out of 1..12 is
    clipped): a table lookup and February's leap day."""
    month = np.clip(month, 1, 12)
    return _MONTH_DAYS[month - 1] + ((month == 2) & _leap(year))


def _leap(year):
    return (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))


def days_in_month(col):
    _need(col, ("timestamp", "date32"), "days_in_month")
    f = _fields(_wall(col, "days_in_month"), ["year", "month"])
    days = _days_in_month(f["year"], f["month"]).astype(np.int32)
    return _core.column_from_buffer(days, mask=_convert.null_mask(col))


def flag(col, which):
    """is_month_start ... is_leap_year: bool, False at NaT (as pandas)."""
    _need(col, ("timestamp", "date32"), which)
    f = _fields(_wall(col, which), ["year", "month", "day"])
    y, m, d = f["year"], f["month"], f["day"]
    if which == "is_leap_year":
        out = _leap(y)
    else:
        end = d == _days_in_month(y, m)
        start = d == 1
        if which.startswith("is_month"):
            months = np.ones_like(m, dtype=bool)
        elif which.startswith("is_quarter"):
            months = (m % 3 == 1) if which.endswith("start") else (m % 3 == 0)
        else:
            months = (m == 1) if which.endswith("start") else (m == 12)
        out = months & (start if which.endswith("start") else end)
    mask = _convert.null_mask(col)
    if mask is not None:
        out = out & ~mask
    return _core.column_from_buffer(np.ascontiguousarray(out, dtype=np.bool_))


_STRF = set("YymdHIMSfjbBaApz%")


def strftime(col, fmt):
    """Timestamps (or dates) as text in format fmt: %Y %y %m %d %H %I %M
    %S %f %j %b %B %a %A %p %z %% and literal text."""
    _need(col, ("timestamp", "date32"), "strftime")
    if not isinstance(fmt, str):
        raise InvalidValueError(f"dt.strftime: the format must be a str, not {type(fmt).__name__}")
    wall = _wall(col, "strftime")
    names = ["year", "month", "day", "dayofweek", "dayofyear"]
    if col.dtype != "date32":
        names += ["hour", "minute", "second", "microsecond"]
    f = _fields(wall, names)
    n = col.length
    parts = []
    i = 0
    text = ""

    def num(v, width):
        return _zfill(v, width)

    while i < len(fmt):
        ch = fmt[i]
        if ch != "%":
            text += ch
            i += 1
            continue
        if i + 1 >= len(fmt) or fmt[i + 1] not in _STRF:
            bad = fmt[i + 1] if i + 1 < len(fmt) else ""
            raise InvalidValueError(f"dt.strftime: directive %{bad} is not supported")
        d = fmt[i + 1]
        i += 2
        if d == "%":
            text += "%"
            continue
        if text:
            parts.append(np.full(n, text, dtype=object))
            text = ""
        zero = np.zeros(n, dtype=np.int64)
        if d == "Y":
            parts.append(num(f["year"], 4))
        elif d == "y":
            parts.append(num(f["year"] % 100, 2))
        elif d == "m":
            parts.append(num(f["month"], 2))
        elif d == "d":
            parts.append(num(f["day"], 2))
        elif d == "j":
            parts.append(num(f["dayofyear"], 3))
        elif d == "H":
            parts.append(num(f.get("hour", zero), 2))
        elif d == "I":
            parts.append(num((f.get("hour", zero) + 11) % 12 + 1, 2))
        elif d == "p":
            parts.append(np.where(f.get("hour", zero) < 12, "AM", "PM"))
        elif d == "M":
            parts.append(num(f.get("minute", zero), 2))
        elif d == "S":
            parts.append(num(f.get("second", zero), 2))
        elif d == "f":
            parts.append(num(f.get("microsecond", zero), 6))
        elif d == "b":
            parts.append(np.array([m[:3] for m in MONTH_NAMES])[np.clip(f["month"], 1, 12) - 1])
        elif d == "B":
            parts.append(MONTH_NAMES[np.clip(f["month"], 1, 12) - 1])
        elif d == "a":
            parts.append(np.array([w[:3] for w in DAY_NAMES])[np.clip(f["dayofweek"], 0, 6)])
        elif d == "A":
            parts.append(DAY_NAMES[np.clip(f["dayofweek"], 0, 6)])
        elif d == "z":
            parts.append(_z_text(col))
    if text:
        parts.append(np.full(n, text, dtype=object))
    if not parts:
        out = np.full(n, "", dtype=object)
    else:
        out = parts[0].astype(str)
        for p in parts[1:]:
            out = np.char.add(out, p.astype(str))
    return _text_column(np.asarray(out, dtype=object), col)


def as_text(col):
    """pandas' ``astype(str)`` of timestamps (or dates): one format for
    the whole column -- the date alone when every naive value is at
    midnight, else date and time with as many fraction digits as the
    finest value needs (none, 3, 6 or 9), and the offset as "+01:00"
    for a zone-aware column.  Built from the engine's calendar fields,
    cast to text, zero-padded and joined by the engine (no per-row
    Python)."""
    from zambezi import _base

    _need(col, ("timestamp", "date32"), "astype(str)")
    series = _base.series_class()._from_column
    wall = _wall(col, "astype(str)")

    def part(name, width, scale=1):
        # the time fields read once above (numpy), the date ones from the engine
        s = series(_core.column_from_buffer(f[name], mask=_convert.null_mask(col))
                   if name in f else _core.dt_field(wall, name))
        if scale != 1:
            s = s // scale
        return s.astype(str).str.zfill(width)

    f = {}
    date = part("year", 4) + "-" + part("month", 2) + "-" + part("day", 2)
    if col.dtype == "date32":
        return date._col
    f = _fields(wall, ["hour", "minute", "second", "microsecond", "nanosecond"])
    valid = _convert.null_mask(col)
    valid = np.ones(col.length, dtype=bool) if valid is None else ~valid
    us, ns = f["microsecond"][valid], f["nanosecond"][valid]
    digits = 9 if (ns != 0).any() else 6 if (us % 1000 != 0).any() else \
        3 if (us != 0).any() else 0
    if col.timezone is None and digits == 0 and not any(
            f[k][valid].any() for k in ("hour", "minute", "second")):
        return date._col
    text = date + " " + part("hour", 2) + ":" + part("minute", 2) + ":" + part("second", 2)
    if digits == 3:
        text = text + "." + part("microsecond", 3, 1000)
    elif digits:
        text = text + "." + part("microsecond", 6)
        if digits == 9:
            text = text + part("nanosecond", 3)
    if col.timezone is not None:
        secs = series(_core.column_from_buffer(_tz.utc_offsets_s(col)))
        mins = secs.abs() // 60
        sign = series(_core.column_from_buffer(np.ascontiguousarray(
            _convert.values_numpy((secs < 0)._col), dtype=np.bool_)))
        z = (mins // 60).astype(str).str.zfill(2) + ":" + (mins % 60).astype(str).str.zfill(2)
        text = text + ("+" + z).where(~sign, "-" + z)
    return text._col


def _zfill(v, width):
    """Integers v as text padded with zeros to width (numpy's zfill, which
    fails on an empty array: an empty Series formats to no rows)."""
    if len(v) == 0:
        return np.empty(0, dtype=str)
    return np.char.zfill(v.astype(str), width)


def _z_text(col):
    """%z of each row: +HHMM of its offset, +HHMMSS when it has seconds (a
    named zone's offset varies by row)."""
    tz = getattr(col, "timezone", None)
    if tz is None:
        return np.full(col.length, "", dtype=object)
    secs = _tz.utc_offsets_s(col)
    sign = np.where(secs < 0, "-", "+").astype(object)
    secs = np.abs(secs)
    text = np.char.add(_zfill(secs // 3600, 2), _zfill(secs // 60 % 60, 2))
    text = np.where(secs % 60 != 0, np.char.add(text, _zfill(secs % 60, 2)), text)
    return sign + text.astype(object)


def to_date(col):
    _need(col, ("timestamp", "date32"), "date")
    if col.dtype == "date32":
        return col
    return _core.cast(_wall(col, "date"), "date32")


def tz_localize(col, tz, ambiguous="raise", nonexistent="raise"):
    """Naive timestamps as wall times in tz (UTC, a fixed offset or a named
    zone; pandas' ambiguous and nonexistent choices), or aware ones back
    to naive wall times (tz None)."""
    _need(col, ("timestamp",), "tz_localize")
    if tz is None:
        if col.timezone is None:
            return col
        return _wall(col, "tz_localize")
    if col.timezone is not None:
        raise InvalidValueError("dt.tz_localize: the timestamps already have a time zone; use "
                                "tz_convert")
    return _tz.localize(col, tz, ambiguous, nonexistent)


def tz_convert(col, tz):
    """Aware timestamps in another zone (the instants stay: the values are
    UTC); tz None gives naive UTC."""
    _need(col, ("timestamp",), "tz_convert")
    if col.timezone is None:
        raise InvalidValueError("dt.tz_convert: the timestamps are naive; use tz_localize first")
    mask = _convert.null_mask(col)
    if tz is None:
        return _core.column_from_buffer(_ints(col), mask=mask, unit=col.unit)
    name = _tz.zone_name(tz)
    if _tz.is_named(name):
        _tz.tzif(name)  # an unknown zone fails here, not at first use
    return _core.column_from_buffer(_ints(col), mask=mask, unit=col.unit, tz=name)


# -- durations ----------------------------------------------------------------

def _pandas_ints(vals, col, dtype=np.int64):
    """dtype, or float64 with NaN at NaT (pandas' dtype for these parts)."""
    mask = _convert.null_mask(col)
    if mask is None:
        return _core.column_from_buffer(np.ascontiguousarray(vals, dtype=dtype))
    out = vals.astype(np.float64)
    out[mask] = np.nan
    return _core.column_from_buffer(out)


def duration_parts(col):
    """(days, seconds of the day, nanoseconds of the second) of durations,
    the days floored as pandas shows them ('-1 days +23:00:00')."""
    per = _dtypes.PER_SECOND[col.unit]
    v = _ints(col)
    day = 86400 * per
    days = v // day
    rem = v - days * day
    return days, rem // per, (rem % per) * (10**9 // per)


def duration_field(col, name):
    """days (int64), seconds, microseconds, nanoseconds (int32) of
    durations; float64 with NaN when there are NaT."""
    _need(col, ("duration",), name)
    days, secs, ns = duration_parts(col)
    vals = {"days": days, "seconds": secs, "microseconds": ns // 1000,
            "nanoseconds": ns % 1000}[name]
    return _pandas_ints(vals, col, np.int64 if name == "days" else np.int32)


def total_seconds(col):
    _need(col, ("duration",), "total_seconds")
    per = _dtypes.PER_SECOND[col.unit]
    v = _ints(col)
    out = v // per + (v % per) / per
    mask = _convert.null_mask(col)
    if mask is not None:
        out = out.astype(np.float64)
        out[mask] = np.nan
    return _core.column_from_buffer(np.ascontiguousarray(out, dtype=np.float64))


def components(col):
    """[(name, column)] of pandas' TimedeltaProperties.components."""
    _need(col, ("duration",), "components")
    days, secs, ns = duration_parts(col)
    parts = [("days", days), ("hours", secs // 3600), ("minutes", secs // 60 % 60),
             ("seconds", secs % 60), ("milliseconds", ns // 10**6),
             ("microseconds", ns // 1000 % 1000), ("nanoseconds", ns % 1000)]
    return [(nm, _pandas_ints(v, col)) for nm, v in parts]
