"""Making timestamps and durations: ``to_datetime``, ``to_timedelta``,
``date_range`` and ``timedelta_range``, with pandas 3's names and results.

Strings are parsed in C (``_core.parse_time``: ISO 8601, strptime-style
formats, pandas' timedelta spellings), in parallel; numbers with a unit and
calendar arithmetic are numpy vectorised operations.  The result unit
follows pandas 3: microseconds, or nanoseconds when a parsed value (or a
float) needs them; integers in ``unit='ns'`` stay nanoseconds.

Where zambezi differs from pandas:

- A list or array gives an Index (pandas: a DatetimeIndex /
  TimedeltaIndex); a Series gives a Series with the same labels and name.
- Without ``format=``, strings that are not ISO 8601 are parsed with the
  first of a few common formats (``%m/%d/%Y``, ``%d/%m/%Y`` with
  ``dayfirst``, ``%Y/%m/%d``, ``%d.%m.%Y``, ``%Y%m%d``, ``%d %b %Y`` ...,
  each with an optional ``%H:%M:%S``) that reads the first value, as pandas
  infers its format from the first value; pandas' ``dateutil`` fallback is
  not there.
- A string with a UTC offset and no ``utc=True`` gives a timestamp in the
  fixed offset ("+01:00"); mixed offsets raise (pandas too, since 2.0).
- ``date_range`` takes the fixed frequencies ns, us, ms, s, min, h, D, W
  (W-SUN; W-MON.. too) with a multiple ("15min", "2h"), and the calendar
  ones MS, ME, YS, YE; ``tz`` is "UTC" or a fixed offset.
"""

import datetime

import numpy as np

from zambezi import _base, _convert, _core, _dtypes
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

_NS = {"D": 86400 * 10**9, "h": 3600 * 10**9, "min": 60 * 10**9, "s": 10**9,
       "ms": 10**6, "us": 10**3, "ns": 1, "W": 7 * 86400 * 10**9}
_UNIT_ALIASES = {
    "D": "D", "d": "D", "day": "D", "days": "D",
    "h": "h", "H": "h", "hour": "h", "hours": "h", "hr": "h",
    "m": "min", "min": "min", "minute": "min", "minutes": "min", "T": "min",
    "s": "s", "S": "s", "sec": "s", "second": "s", "seconds": "s",
    "ms": "ms", "milli": "ms", "millisecond": "ms", "milliseconds": "ms", "L": "ms",
    "us": "us", "micro": "us", "microsecond": "us", "microseconds": "us", "U": "us",
    "ns": "ns", "nano": "ns", "nanosecond": "ns", "nanoseconds": "ns", "N": "ns",
    "W": "W", "w": "W",
}
# formats tried, in order, on the first value of a column that is not ISO 8601
_GUESSES = ["%m/%d/%Y", "%Y/%m/%d", "%d.%m.%Y", "%Y%m%d", "%d %b %Y", "%b %d %Y",
            "%d %B %Y", "%B %d %Y", "%d-%b-%Y", "%m-%d-%Y"]


def _check_errors(errors):
    if errors not in ("raise", "coerce"):
        raise InvalidValueError(f"errors must be 'raise' or 'coerce', not {errors!r}")


def _unit_name(unit, what):
    name = _UNIT_ALIASES.get(unit)
    if name is None:
        raise InvalidValueError(f"{what}: unknown unit {unit!r} (expected D, h, m, s, ms, us "
                                "or ns)")
    return name


def _split(arg, what):
    """(engine column, rebuild) for what to_datetime / to_timedelta take:
    rebuild(col) gives the result in the shape of arg (Series -> Series
    with its labels and name, else an Index); scalars give (column, None)."""
    Series = _base.series_class()
    if _base.is_series(arg):
        return arg._col, lambda c: arg._like(c)
    if type(arg).__module__.startswith("pandas") and type(arg).__name__ == "Series":
        s = Series(arg)
        return s._col, lambda c: s._like(c)
    if isinstance(arg, (str, bytes, int, float, np.generic, datetime.date,
                        datetime.timedelta)):
        col = _convert.to_column([arg.decode() if isinstance(arg, bytes) else arg])
        return col, None
    try:
        col = _convert.to_column(arg)
    except DTypeError as e:
        raise DTypeError(f"{what}: cannot convert {type(arg).__name__}: {e}") from None
    from zambezi.index import Index

    return col, lambda c: Index._from_columns([c], [getattr(arg, "name", None)])


def _finish(col, rebuild):
    if rebuild is not None:
        return rebuild(col)
    value = col.to_pylist()[0] if col.dtype.startswith("date") else None
    if col.dtype.startswith(("timestamp", "duration")):
        from zambezi import _stats

        raw = col.to_pylist(True)[0]
        if raw is None:
            return None
        if col.dtype.startswith("duration"):
            return _stats.box_duration(raw, col.unit)
        try:
            import pandas as pd
        except ImportError:
            return col.to_pylist()[0]
        ts = pd.Timestamp(raw, unit=col.unit)
        return ts if col.timezone is None else ts.tz_localize("UTC").tz_convert(col.timezone)
    return value


def _bad_value(col, row, what, why):
    value = col.slice(row, 1).to_pylist()[0]
    return InvalidValueError(f"{what}: row {row}: {value!r} {why}")


def _fine_unit(ns_col):
    """'us' when every value of an int64-nanosecond column is whole
    microseconds, else 'ns' (pandas 3 keeps what the text gives)."""
    vals = _convert.values_numpy(ns_col).view(np.int64)
    mask = _convert.null_mask(ns_col)
    rem = vals % 1000 != 0
    if mask is not None:
        rem &= ~mask
    return "ns" if rem.any() else "us"


def _offset_name(minutes):
    if minutes == 0:
        return "UTC"
    sign = "+" if minutes > 0 else "-"
    m = abs(minutes)
    return f"{sign}{m // 60:02d}:{m % 60:02d}"


def _parse_strings(col, format, errors, utc, dayfirst):
    _check_errors(errors)
    if format is not None and not isinstance(format, str):
        raise InvalidValueError(f"to_datetime: format must be a str, not {type(format).__name__}")
    if format in ("ISO8601", "iso8601"):
        format = None
    if format == "mixed":
        raise UnsupportedError("to_datetime: format='mixed' is not supported")
    if format is None:
        format = _guess_format(col, dayfirst)
    parsed, info = _core.parse_time(col, "datetime", format)
    if info["bad_row"] >= 0 and errors == "raise":
        how = f"does not match format {format!r}" if format else "is not an ISO 8601 date/time"
        raise _bad_value(col, info["bad_row"], "to_datetime", how + " (errors='coerce' "
                         "gives NaT)")
    unit = _fine_unit(parsed)
    if info["any_offset"] and not utc:
        if info["mixed_offsets"] or info["any_naive"]:
            raise InvalidValueError(
                "to_datetime: the strings mix UTC offsets (or offsets and none); pass "
                "utc=True to convert them all to UTC")
        tz = _offset_name(info["offset_min"])
    else:
        tz = "UTC" if utc else None
    return _retype(parsed, unit, tz)


def _retype(ns_col, unit, tz):
    """A timestamp[ns] column (UTC values) as timestamp[unit, tz]."""
    col = ns_col if unit == "ns" else _core.cast(ns_col, f"timestamp[{unit}]")
    if tz is None:
        return col
    return _with_zone(col, tz)


def _with_zone(col, tz):
    """col (values UTC) labelled with zone tz."""
    vals = _convert.values_numpy(col).view(np.int64)
    return _core.column_from_buffer(np.ascontiguousarray(vals), mask=_convert.null_mask(col),
                                    unit=col.unit, tz=tz)


def _guess_format(col, dayfirst):
    """None (ISO 8601) when the first value is ISO or there is none, else the
    first guess that reads it (with an optional time of day)."""
    first = _first_valid(col)
    if first is None:
        return None
    probe = _core.column_from_sequence([first], dtype="string")
    if _core.parse_time(probe, "datetime", None)[1]["bad_row"] < 0:
        return None
    guesses = list(_GUESSES)
    if dayfirst:
        guesses.insert(0, "%d/%m/%Y")
    for base in guesses:
        for fmt in (base, base + " %H:%M:%S", base + " %H:%M"):
            if _core.parse_time(probe, "datetime", fmt)[1]["bad_row"] < 0:
                return fmt
    return None


def _first_valid(col):
    if col.null_count == col.length:
        return None
    if col.null_count == 0:
        return col.slice(0, 1).to_pylist()[0]
    valid = np.flatnonzero(~_convert.null_mask(col))
    return col.slice(int(valid[0]), 1).to_pylist()[0]


def _from_numbers(col, unit, what, kind):
    """A timestamp or duration column from numbers counted in unit."""
    unit = _unit_name(unit or "ns", what)
    mask = _convert.null_mask(col)
    vals = _convert.values_numpy(col)
    if col.dtype in ("float32", "float64"):
        x = vals.astype(np.float64)
        nan = np.isnan(x)
        mask = nan if mask is None else (mask | nan)
        x = np.where(mask, 0.0, x)
        m = _NS[unit]
        if (np.abs(x) * m >= 2.0**63).any():
            raise InvalidValueError(f"{what}: a value is out of range for nanoseconds with "
                                    f"unit {unit!r}")
        # pandas' cast_from_unit: the whole part exactly, the fraction rounded
        # to the unit's digits, then truncated to nanoseconds
        base = np.trunc(x)
        digits = len(str(m)) - 1   # pandas 3: the unit's decimal digits in ns
        frac = np.round(x - base, digits) if digits else x - base
        ints = base.astype(np.int64) * m + (frac * m).astype(np.int64)
        out_unit = "ns"
    elif col.dtype.startswith(("int", "uint")) or col.dtype == "bool":
        ints = vals.astype(np.int64)
        if unit in ("s", "ms", "us", "ns"):
            out_unit = unit if unit == "ns" else "us"
            factor = _dtypes.PER_SECOND[out_unit] // _dtypes.PER_SECOND[unit]
        else:  # D, h, min, W: in microseconds
            out_unit = "us"
            factor = _NS[unit] // 1000
        if factor != 1:
            lim = np.iinfo(np.int64).max // factor
            check = ints if mask is None else ints[~mask]
            if (np.abs(check) > lim).any():
                raise InvalidValueError(f"{what}: a value is out of range for unit {unit!r}")
            ints = ints * factor
    else:
        raise DTypeError(f"{what}: cannot convert a {col.dtype} column with unit=")
    dtype = f"duration[{out_unit}]" if kind == "duration" else None
    if kind == "duration":
        return _core.column_from_buffer(ints, mask=mask, dtype=dtype)
    return _core.column_from_buffer(ints, mask=mask, unit=out_unit)


_FRAME_PARTS = {"year": "year", "years": "year", "month": "month", "months": "month",
                "day": "day", "days": "day", "hour": "hour", "hours": "hour",
                "minute": "minute", "minutes": "minute", "second": "second",
                "seconds": "second", "ms": "ms", "us": "us", "ns": "ns"}


def _from_frame(df, errors):
    """Timestamps from a DataFrame's year, month, day (hour, minute,
    second, ms, us, ns) columns, as pandas assembles them."""
    parts = {}
    for name in df.columns:
        key = _FRAME_PARTS.get(str(name).lower())
        if key is None:
            raise InvalidValueError(
                f"to_datetime: column {name!r} is not one of year, month, day, hour, minute, "
                "second, ms, us, ns")
        parts[key] = df[name]._col
    missing = [k for k in ("year", "month", "day") if k not in parts]
    if missing:
        raise InvalidValueError(f"to_datetime: the frame needs columns year, month and day "
                                f"(missing: {', '.join(missing)})")
    mask = np.zeros(len(df), dtype=bool)
    vals = {}
    for key, col in parts.items():
        m = _convert.null_mask(col)
        if m is not None:
            mask |= m
        if col.dtype.startswith("float"):
            v = _convert.values_numpy(col)
            mask |= np.isnan(v)
            v = np.where(np.isnan(v), 0, v)
        else:
            v = _convert.values_numpy(col)
        vals[key] = v.astype(np.int64)
    y, mo, d = vals["year"], vals["month"], vals["day"]
    bad = (mo < 1) | (mo > 12) | (d < 1)
    months = (y - 1970) * 12 + np.clip(mo, 1, 12) - 1
    first = months.astype("datetime64[M]").astype("datetime64[D]")
    nxt = (months + 1).astype("datetime64[M]").astype("datetime64[D]")
    bad |= d > (nxt - first).astype(np.int64)
    bad &= ~mask
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        if errors == "raise":
            raise InvalidValueError(
                f"to_datetime: row {row}: {int(y[row])}-{int(mo[row])}-{int(d[row])} is not a "
                "date (errors='coerce' gives NaT)")
        mask |= bad
    us = (first.astype(np.int64) + d - 1) * 86400 * 10**6
    scale = {"hour": 3600 * 10**6, "minute": 60 * 10**6, "second": 10**6, "ms": 1000, "us": 1}
    for key, k in scale.items():
        if key in vals:
            us = us + vals[key] * k
    unit = "us"
    if "ns" in vals:
        us = us * 1000 + vals["ns"]
        unit = "ns"
    return _core.column_from_buffer(np.where(mask, 0, us), mask=mask, unit=unit)


def to_datetime(arg, errors="raise", dayfirst=False, yearfirst=False, utc=False, format=None,
                exact=True, unit=None, origin="unix", cache=True):
    """Convert strings, numbers or a frame of year/month/day columns to
    timestamps (pandas' ``to_datetime``).

    Strings: ISO 8601 (parsed in C, in parallel), or ``format=`` with the
    strptime directives %Y %y %m %d %H %I %p %M %S %f %z %b %B %j;
    ``errors='coerce'`` gives NaT for text that does not parse, ``'raise'``
    raises InvalidValueError naming the first such value and its row.
    Numbers: counts of ``unit`` (D, h, m, s, ms, us, ns) since the epoch,
    or since ``origin`` ('julian': Julian days; a time, as pandas).
    A Series gives a Series (same labels), a list or array an Index, a
    scalar a pandas Timestamp.  See zambezi._times for the differences
    from pandas.

    Examples
    --------
    >>> s = zb.to_datetime(zb.Series(["2024-03-09", "2024-03-10 14:05:30", None]))
    >>> s.dtype, s.to_list()
    ('timestamp[us]', [Timestamp('2024-03-09 00:00:00'), Timestamp('2024-03-10 14:05:30'), NaT])
    >>> zb.to_datetime(zb.Series(["09/03/2024", "x"]), format="%d/%m/%Y",
    ...                errors="coerce").to_list()
    [Timestamp('2024-03-09 00:00:00'), NaT]
    >>> zb.to_datetime(zb.Series([0, 86400]), unit="s").dt.day.to_list()
    [1, 2]
    >>> zb.to_datetime(zb.Series([1, 2]), unit="D", origin="2024-02-28").to_list()
    [Timestamp('2024-02-29 00:00:00'), Timestamp('2024-03-01 00:00:00')]
    >>> zb.to_datetime(zb.DataFrame({"year": [2024], "month": [2], "day": [29]})).to_list()
    [Timestamp('2024-02-29 00:00:00')]
    """
    _check_errors(errors)
    if not exact or yearfirst:
        raise UnsupportedError("to_datetime: exact=False and yearfirst= are not supported")
    if _base.is_frame(arg):
        col = _from_frame(arg, errors)
        out = _base.series_class()._from_column(col, None, arg._index)
        return _utc_series(out) if utc else out
    if type(arg).__module__.startswith("pandas") and type(arg).__name__ == "DataFrame":
        return to_datetime(_base.frame_class()(arg), errors=errors, utc=utc)
    col, rebuild = _split(arg, "to_datetime")
    if not (isinstance(origin, str) and origin == "unix"):
        col, done = _from_origin(col, origin, unit, errors)
        if done:
            return _finish(_with_zone(col, "UTC") if utc else col, rebuild)
    dt = col.dtype
    if dt in ("string", "category"):
        if unit is not None:
            raise InvalidValueError("to_datetime: unit= applies to numbers, not strings")
        res = _parse_strings(col, format, errors, utc, dayfirst)
    elif dt.startswith("timestamp"):
        res = col
        if utc:
            res = _with_zone(col, "UTC") if col.timezone is None else \
                _with_zone(col, "UTC")
    elif dt == "date32":
        res = _core.cast(col, "timestamp[s]")
        if utc:
            res = _with_zone(res, "UTC")
    elif dt.startswith(("int", "uint", "float")) or dt == "bool":
        res = _from_numbers(col, unit, "to_datetime", "timestamp")
        if utc:
            res = _with_zone(res, "UTC")
    else:
        raise DTypeError(f"to_datetime: cannot convert a {dt} column to timestamps")
    return _finish(res, rebuild)


_JULIAN_EPOCH = 2440587.5   # the Julian day of 1970-01-01 00:00


def _from_origin(col, origin, unit, errors):
    """pandas' to_datetime(origin=): (column, done).  'julian': Julian
    days (unit 'D') as days since the epoch, converted on as numbers; a time
    (a string, datetime or Timestamp; a number is that many units after the
    epoch): the time plus the numbers as durations of unit, in the finer of
    the two resolutions -- done."""
    import pandas as pd

    if not col.dtype.startswith(("int", "uint", "float")):
        raise InvalidValueError(f"to_datetime: a {col.dtype} column is not compatible with "
                                f"origin={origin!r}; it must be numeric with a unit specified")
    if isinstance(origin, str) and origin == "julian":
        if unit != "D":
            raise InvalidValueError("to_datetime: unit must be 'D' for origin='julian'")
        return _core.binary_scalar("sub", col, _JULIAN_EPOCH, False), False
    try:
        if isinstance(origin, (int, float, np.integer, np.floating)) and not isinstance(
                origin, bool):
            offset = pd.Timestamp(origin, unit=unit or "ns")
        else:
            offset = pd.Timestamp(origin)
    except (ValueError, TypeError, OverflowError) as err:
        raise InvalidValueError(f"to_datetime: origin {origin!r} cannot be converted to a "
                                "Timestamp") from err
    if offset.tz is not None:
        raise InvalidValueError(f"to_datetime: origin offset {offset} must be tz-naive")
    spans = _from_numbers(col, unit, "to_datetime", "duration")
    u = "ns" if spans.dtype == "duration[ns]" or offset.unit == "ns" else "us"
    if spans.dtype != f"duration[{u}]":
        spans = _core.cast(spans, f"duration[{u}]")
    mask = _convert.null_mask(spans)
    step = np.int64(offset.as_unit(u)._value)
    vals = _convert.values_numpy(spans).astype(np.int64)
    with np.errstate(over="ignore"):
        out = vals + step
    over = ((vals > 0) & (step > 0) & (out < 0)) | ((vals < 0) & (step < 0) & (out >= 0))
    if over.any():
        if errors != "coerce":
            raise InvalidValueError(f"to_datetime: cannot add values to origin {origin!r} "
                                    "without overflow")
        mask = over if mask is None else (mask | over)
    return _core.column_from_buffer(out, mask=mask, unit=u), True


def _utc_series(s):
    return s._like(_with_zone(s._col, "UTC"))


def to_timedelta(arg, unit=None, errors="raise"):
    """Convert strings or numbers to durations (pandas' ``to_timedelta``).

    Strings take pandas' spellings ("1 days 02:00:00", "-1 days +01:00:00",
    "00:00:01.5", "1h30min", "1.5h", "3us"), parsed in C; numbers are counts
    of ``unit`` (W, D, h, m, s, ms, us, ns; default ns).  The result is
    duration[us], or duration[ns] when a value needs nanoseconds (as pandas
    3).  ``errors='coerce'`` gives NaT for text that does not parse.

    Examples
    --------
    >>> zb.to_timedelta(zb.Series(["1 days 02:00:00", "1h30min", None]))
    0   1 days 02:00:00
    1   0 days 01:30:00
    2               NaT
    dtype: duration[us]
    >>> zb.to_timedelta(zb.Series([1.5, 2]), unit="s").dt.total_seconds().to_list()
    [1.5, 2.0]
    >>> zb.to_timedelta("2h")
    Timedelta('0 days 02:00:00')
    """
    _check_errors(errors)
    col, rebuild = _split(arg, "to_timedelta")
    dt = col.dtype
    if dt in ("string", "category"):
        if unit is not None:
            raise InvalidValueError("to_timedelta: unit must not be given for strings")
        parsed, info = _core.parse_time(col, "timedelta")
        if info["bad_row"] >= 0 and errors == "raise":
            raise _bad_value(col, info["bad_row"], "to_timedelta",
                             "is not a timedelta (errors='coerce' gives NaT)")
        u = _fine_unit(parsed)
        res = parsed if u == "ns" else _core.cast(parsed, f"duration[{u}]")
    elif dt.startswith("duration"):
        res = col
    elif dt.startswith(("int", "uint", "float")) or dt == "bool":
        res = _from_numbers(col, unit, "to_timedelta", "duration")
    else:
        raise DTypeError(f"to_timedelta: cannot convert a {dt} column to durations")
    return _finish(res, rebuild)


# --------------------------------------------------------------------------
# ranges
# --------------------------------------------------------------------------

_WEEKDAYS = {"MON": 0, "TUE": 1, "WED": 2, "THU": 3, "FRI": 4, "SAT": 5, "SUN": 6}
_CALENDAR = ("MS", "ME", "YS", "YE")


def _parse_freq(freq):
    """(kind, n, step_ns or anchor): kind 'fixed' (step in ns), 'week'
    (anchor weekday), or one of _CALENDAR; n the multiple."""
    if isinstance(freq, datetime.timedelta) or type(freq).__name__ == "Timedelta":
        ns = _timedelta_ns(freq)
        if ns <= 0:
            raise InvalidValueError("freq must be a positive duration")
        return "fixed", 1, ns
    if not isinstance(freq, str) or not freq:
        raise InvalidValueError(f"freq must be a str such as 'D', '15min', 'MS', not {freq!r}")
    i = 0
    while i < len(freq) and freq[i].isdigit():
        i += 1
    n = int(freq[:i]) if i else 1
    name = freq[i:]
    if n <= 0:
        raise InvalidValueError(f"freq {freq!r}: the multiple must be positive")
    if name in _CALENDAR or name in ("M", "Y", "A", "AS", "YE-DEC", "YS-JAN"):
        name = {"M": "ME", "Y": "YE", "A": "YE", "AS": "YS", "YE-DEC": "YE",
                "YS-JAN": "YS"}.get(name, name)
        return name, n, None
    if name == "B":
        return "bday", n, None
    if name.startswith("W"):
        day = name[2:] if name.startswith("W-") else "SUN"
        if day not in _WEEKDAYS or (name not in ("W",) and not name.startswith("W-")):
            raise InvalidValueError(f"unknown frequency {freq!r}")
        return "week", n, _WEEKDAYS[day]
    unit = _UNIT_ALIASES.get(name)
    if unit is None or unit == "W":
        raise UnsupportedError(
            f"frequency {freq!r} is not supported (fixed: ns us ms s min h D W; calendar: "
            "MS ME YS YE; business days: B)")
    return "fixed", n, n * _NS[unit]


def _timedelta_ns(v):
    if type(v).__name__ == "Timedelta":
        return int(v.value) if getattr(v, "unit", "ns") == "ns" else int(v.as_unit("ns").value)
    if isinstance(v, np.timedelta64):
        return int(v.astype("timedelta64[ns]").astype(np.int64))
    return (v.days * 86400 + v.seconds) * 10**9 + v.microseconds * 1000


def _stamp_ns(v, what):
    """A start/end as int64 nanoseconds since the epoch (naive), and its
    zone name when it had one."""
    if v is None:
        return None, None
    tz = None
    if type(v).__name__ == "Timestamp":
        if v.tzinfo is not None:
            tz = str(v.tzinfo)
            v = v.tz_convert("UTC").tz_localize(None)
        return int(v.as_unit("ns").value), tz
    if isinstance(v, datetime.datetime):
        if v.tzinfo is not None:
            tz = str(v.tzinfo)
            v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return int(np.datetime64(v, "ns").astype(np.int64)), tz
    if isinstance(v, (datetime.date, np.datetime64)):
        return int(np.datetime64(v, "ns").astype(np.int64)), None
    if isinstance(v, str):
        col, info = _core.parse_time(_core.column_from_sequence([v], dtype="string"), "datetime")
        if info["bad_row"] >= 0:
            raise InvalidValueError(f"date_range: {what} {v!r} is not an ISO 8601 date/time")
        if info["any_offset"]:
            tz = _offset_name(info["offset_min"])
        return col.to_pylist(True)[0], tz
    raise InvalidValueError(f"date_range: {what} must be a date, datetime or str, not "
                            f"{type(v).__name__}")


def _calendar_stamps(kind, n, start, end, periods):
    """Month/year starts or ends (ns, naive) from start (rolled forward to
    the first on-frequency day) up to end, or periods of them."""
    day_ns = _NS["D"]
    step = n * (12 if kind in ("YS", "YE") else 1)

    def month_index(ns):
        d = np.datetime64(ns // day_ns, "D")
        return int(d.astype("datetime64[M]").astype(np.int64))

    def stamp(months, end_of):
        m = np.asarray(months, dtype=np.int64)
        if end_of:
            days = (m + 1).astype("datetime64[M]").astype("datetime64[D]").astype(np.int64) - 1
        else:
            days = m.astype("datetime64[M]").astype("datetime64[D]").astype(np.int64)
        return days * day_ns

    end_of = kind in ("ME", "YE")
    yearly = kind in ("YS", "YE")
    if start is not None:
        m0 = month_index(start)
        tod = start % day_ns
        if yearly:  # the year's December (ends) or January (starts)
            m0 = m0 - m0 % 12 + (11 if end_of else 0)
        if stamp([m0], end_of)[0] + tod < start:
            m0 += 12 if yearly else 1
        base_tod = tod
    else:
        m_end = month_index(end)
        base_tod = end % day_ns
        if yearly:
            m_end = m_end - m_end % 12 + (11 if end_of else 0)
        if stamp([m_end], end_of)[0] + base_tod > end:
            m_end -= 12 if yearly else 1
        m0 = m_end - (periods - 1) * step
    if periods is not None:
        months = m0 + step * np.arange(periods, dtype=np.int64)
    else:
        last = month_index(end)
        months = np.arange(m0, last + 1, step, dtype=np.int64)
    out = stamp(months, end_of) + base_tod
    if end is not None:
        out = out[out <= end]
    return out


def _inclusive(values, start, end, inclusive):
    if inclusive not in ("both", "neither", "left", "right"):
        raise InvalidValueError(
            f"inclusive must be 'both', 'neither', 'left' or 'right', not {inclusive!r}")
    if inclusive == "both":
        return values
    keep = np.ones(len(values), dtype=bool)
    if inclusive in ("neither", "right") and start is not None:
        keep &= values != start
    if inclusive in ("neither", "left") and end is not None:
        keep &= values != end
    return values[keep]


def _range_ns(start, end, periods, kind, n, arg, inclusive):
    if sum(x is not None for x in (start, end, periods)) < 2:
        raise InvalidValueError("of start, end and periods, give two (or all three with "
                                "freq=None)")
    if periods is not None:
        periods = int(periods)
        if periods < 0:
            raise InvalidValueError(f"periods must be >= 0, not {periods}")
    if kind is None:  # start, end and periods: evenly spaced
        vals = np.linspace(start, end, periods).round().astype(np.int64) if periods > 1 \
            else np.array([start][:periods], dtype=np.int64)
    elif kind == "fixed":
        step = arg
        if start is None:
            start = end - (periods - 1) * step
        if periods is None:
            periods = (end - start) // step + 1 if end >= start else 0
        vals = start + step * np.arange(periods, dtype=np.int64)
    elif kind == "week":
        day_ns, step = _NS["D"], 7 * _NS["D"] * n
        ref = start if start is not None else end
        days = ref // day_ns
        weekday = (days + 3) % 7  # 1970-01-01 was a Thursday
        if start is not None:
            first = start + ((arg - weekday) % 7) * day_ns
            if periods is None:
                periods = (end - first) // step + 1 if end >= first else 0
        else:
            last = end - ((weekday - arg) % 7) * day_ns
            first = last - (periods - 1) * step
        vals = first + step * np.arange(max(periods, 0), dtype=np.int64)
    elif kind == "bday":
        vals = _business_days(start, end, periods, n)
    else:
        vals = _calendar_stamps(kind, n, start, end, periods)
    return _inclusive(vals, start, end, inclusive)


def _business_days(start, end, periods, n):
    """Every n-th weekday (Monday to Friday) from start rolled forward to
    one (or back from end rolled back to one), the bound's time of day
    kept, as pandas' freq="B"; numpy's business-day functions count."""
    day_ns = _NS["D"]
    if start is not None:
        tod = start % day_ns
        first = np.busday_offset(np.datetime64(start // day_ns, "D"), 0, roll="forward")
        if periods is None:
            last = np.datetime64(end // day_ns, "D")
            if end % day_ns < tod:   # the last day's stamp would pass end
                last = last - np.timedelta64(1, "D")
            count = int(np.busday_count(first, last + np.timedelta64(1, "D"))) \
                if last >= first else 0
            periods = (count + n - 1) // n
        days = np.busday_offset(first, n * np.arange(max(periods, 0), dtype=np.int64))
    else:
        tod = end % day_ns
        last = np.busday_offset(np.datetime64(end // day_ns, "D"), 0, roll="backward")
        days = np.busday_offset(last, -n * np.arange(max(periods, 0), dtype=np.int64)[::-1])
    return days.astype(np.int64) * day_ns + tod


def date_range(start=None, end=None, periods=None, freq=None, tz=None, normalize=False,
               name=None, inclusive="both", *, unit=None):
    """A fixed-frequency Index of timestamps (pandas' ``date_range``).

    Give two of start, end and periods (or all three, with freq None:
    evenly spaced).  freq: ns, us, ms, s, min, h, D, W (W-SUN, W-MON ...)
    with a multiple ("15min"), the calendar frequencies MS, ME, YS, YE, or
    B (business days, Monday to Friday); default "D".  tz: None, "UTC", a
    fixed offset such as "+01:00" or a named zone such as "Europe/Berlin"
    (start and end are then wall times in it; as pandas, steps of a day or
    more are calendar steps in wall time, shorter ones exact durations).
    The Index is timestamp[us] (``unit=`` another), as pandas 3 gives.

    Examples
    --------
    >>> zb.date_range("2024-01-30", periods=3).to_list()
    [Timestamp('2024-01-30 00:00:00'), Timestamp('2024-01-31 00:00:00'), \
Timestamp('2024-02-01 00:00:00')]
    >>> [d.day for d in zb.date_range("2024-01-15", "2024-04-30", freq="ME").to_list()]
    [31, 29, 31, 30]
    >>> len(zb.date_range("2024-01-01", "2024-01-02", freq="15min"))
    97
    """
    if freq is None:
        freq = None if (start is not None and end is not None and periods is not None) \
            else "D"
    if sum(x is not None for x in (start, end, periods, freq)) != 3:
        raise InvalidValueError("Of the four parameters: start, end, periods, and freq, "
                                "exactly three must be specified")
    s, tz_s = _stamp_ns(start, "start")
    e, tz_e = _stamp_ns(end, "end")
    if tz is None:
        tz = tz_s or tz_e
    elif tz_s or tz_e:
        raise InvalidValueError("date_range: tz= with a start or end that has its own zone")
    from zambezi import _tz

    zname = _tz.zone_name(tz)
    named = _tz.is_named(zname)
    offset = 0 if named else _zone_offset_ns(tz)
    if normalize:
        s = None if s is None else s - s % _NS["D"]
        e = None if e is None else e - e % _NS["D"]

    def utc(v, aware):  # a bound as UTC
        return v if v is None or aware else int(_tz.wall_to_utc_ns(zname, [v])[0])

    def wall(v, aware):  # a bound as wall time
        return v if v is None or not aware else int(_tz.utc_to_wall_ns(zname, [v])[0])

    if freq is None:
        if named:
            s, e = utc(s, tz_s), utc(e, tz_e)
            offset = 0
        vals = _range_ns(s, e, periods, None, 1, None, inclusive)
    else:
        kind, n, arg = _parse_freq(freq)
        if named and kind == "fixed" and arg % _NS["D"] != 0:
            # sub-day steps are exact durations: counted in UTC (pandas)
            vals = _range_ns(utc(s, tz_s), utc(e, tz_e), periods, kind, n, arg, inclusive)
        elif named:
            # days, weeks, months ...: calendar steps in wall time, then
            # localized (a time a clock change skips or repeats raises, as pandas)
            vals = _range_ns(wall(s, tz_s), wall(e, tz_e), periods, kind, n, arg, inclusive)
            vals = _tz.wall_to_utc_ns(zname, vals)
        else:
            if tz_s or tz_e:  # the bounds were UTC: count in wall time
                s = None if s is None else s + offset
                e = None if e is None else e + offset
            vals = _range_ns(s, e, periods, kind, n, arg, inclusive)
    if not named:
        vals = vals - offset
    return _stamp_index(vals, unit or "us", tz, name)


def bdate_range(start=None, end=None, periods=None, freq="B", tz=None, normalize=True,
                name=None, weekmask=None, holidays=None, inclusive="both", *, unit=None):
    """An Index of business days, Monday to Friday (pandas'
    ``bdate_range``): ``date_range`` with freq "B" (or a multiple, "2B")
    and the times normalized to midnight by default.  Holidays and
    custom week masks are not supported.

    Examples
    --------
    >>> [d.day for d in zb.bdate_range("2024-01-05", periods=3).to_list()]
    [5, 8, 9]
    """
    if freq is None:
        raise DTypeError("freq must be specified for bdate_range; use date_range instead")
    if weekmask is not None or holidays is not None:
        raise UnsupportedError("bdate_range: weekmask and holidays (custom business days) "
                               "are not supported")
    return date_range(start, end, periods, freq, tz, normalize, name, inclusive, unit=unit)


def _zone_offset_ns(tz):
    """The offset of tz (None, 'UTC', '+HH:MM', a fixed-offset tzinfo) in ns."""
    if tz is None:
        return 0
    if isinstance(tz, datetime.tzinfo):
        off = tz.utcoffset(None)
        if off is None:
            raise UnsupportedError(f"time zone {tz!r}: only UTC and fixed offsets are "
                                   "supported")
        return _timedelta_ns(off)
    text = str(tz)
    if text in ("UTC", "utc", "Z"):
        return 0
    if text.startswith("UTC") and len(text) > 3:
        text = text[3:]
    if len(text) == 6 and text[0] in "+-" and text[3] == ":":
        sign = -1 if text[0] == "-" else 1
        return sign * (int(text[1:3]) * 3600 + int(text[4:6]) * 60) * 10**9
    raise UnsupportedError(f"time zone {tz!r}: only UTC and fixed offsets such as '+01:00' "
                           "are supported")


def _stamp_index(ns_values, unit, tz, name):
    from zambezi.index import Index

    if unit not in _dtypes.PER_SECOND:
        raise InvalidValueError(f"unit must be s, ms, us or ns, not {unit!r}")
    vals = np.asarray(ns_values, dtype=np.int64) // (10**9 // _dtypes.PER_SECOND[unit])
    from zambezi import _tz

    tzname = _tz.zone_name(tz)
    col = _core.column_from_buffer(vals, unit=unit, tz=tzname)
    return Index._from_columns([col], [name])


def timedelta_range(start=None, end=None, periods=None, freq=None, name=None,
                    closed=None, *, unit=None):
    """A fixed-frequency Index of durations (pandas' ``timedelta_range``):
    two of start, end and periods, freq a fixed frequency ("D", "6h" ...;
    default "D"), or all three with freq None (evenly spaced).

    Examples
    --------
    >>> zb.timedelta_range("1 day", periods=3, freq="12h").to_list()
    [Timedelta('1 days 00:00:00'), Timedelta('1 days 12:00:00'), Timedelta('2 days 00:00:00')]
    """
    def ns(v, what):
        if v is None:
            return None
        if isinstance(v, str):
            col, info = _core.parse_time(_core.column_from_sequence([v], dtype="string"),
                                         "timedelta")
            if info["bad_row"] >= 0:
                raise InvalidValueError(f"timedelta_range: {what} {v!r} is not a timedelta")
            return col.to_pylist(True)[0]
        if isinstance(v, (datetime.timedelta, np.timedelta64)):
            return _timedelta_ns(v)
        raise InvalidValueError(f"timedelta_range: {what} must be a str or timedelta, not "
                                f"{type(v).__name__}")

    s, e = ns(start, "start"), ns(end, "end")
    if freq is None and not (s is not None and e is not None and periods is not None):
        freq = "D"
    if freq is None:
        vals = _range_ns(s, e, periods, None, 1, None, "both")
    else:
        kind, n, arg = _parse_freq(freq)
        if kind != "fixed":
            raise InvalidValueError(f"timedelta_range: freq {freq!r} is not a fixed frequency")
        vals = _range_ns(s, e, periods, kind, n, arg, "both")
    vals = _inclusive(vals, s, e, {None: "both"}.get(closed, closed))
    unit = unit or "us"
    from zambezi.index import Index

    col = _core.column_from_buffer(vals // (10**9 // _dtypes.PER_SECOND[unit]),
                                   dtype=f"duration[{unit}]")
    return Index._from_columns([col], [name])
