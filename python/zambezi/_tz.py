"""Named time zones ("Europe/Berlin", "America/New_York" ...).

The engine converts (``_core.tz_to_wall`` / ``_core.tz_localize``, in C
over every core) from the bytes of the zone's TZif file, which this module
finds as Python's zoneinfo does: the directories of ``zoneinfo.TZPATH``
(the system's /usr/share/zoneinfo), then the ``tzdata`` package.  UTC and
fixed offsets ("+05:30") need no file: they are plain arithmetic.
"""

import datetime
import os
import re

import numpy as np

from zambezi import _convert, _core, _dtypes
from zambezi.errors import InvalidValueError, UnsupportedError

# the names the engine itself reads as UTC (src/core/strings_ops.c); other
# aliases ("Zulu", "UCT" ...) are read from their TZif files like any zone
_UTC_NAMES = ("UTC", "utc", "Z", "Etc/UTC", "GMT", "Etc/GMT")
_FIXED = re.compile(r"^(?:UTC)?([+-])(\d\d):?(\d\d)?$")
_NAME = re.compile(r"^[A-Za-z0-9_+\-]+(/[A-Za-z0-9_+\-]+)*$")
_cache = {}

_AMBIGUOUS = {"raise": 0, "NaT": 1, "infer": 5}
_NONEXISTENT = {"raise": 0, "NaT": 1, "shift_forward": 2, "shift_backward": 3}


def zone_name(tz):
    """The name a column stores for tz (a str, a zoneinfo / pytz zone or a
    datetime.timezone), or None for naive."""
    if tz is None:
        return None
    if isinstance(tz, str):
        return "UTC" if tz in ("UTC", "utc", "Z") else tz
    key = getattr(tz, "key", None) or getattr(tz, "zone", None)  # zoneinfo, pytz
    if isinstance(key, str):
        return key
    fname = getattr(tz, "_filename", None)   # dateutil's tzfile: its TZif file's path
    if isinstance(fname, str) and fname:
        at = fname.rfind("zoneinfo/")
        if at >= 0:
            return fname[at + len("zoneinfo/"):]
        if not fname.startswith(("/", ".")):
            return fname
        raise UnsupportedError(f"time zone {tz!r}: its file is not under a zoneinfo "
                               "folder; give the zone by name, e.g. 'Europe/Berlin'")
    if isinstance(tz, datetime.tzinfo):
        off = tz.utcoffset(None)
        if off is None:
            raise UnsupportedError(f"time zone {tz!r}: give it by name, e.g. 'Europe/Berlin'")
        secs = int(off.total_seconds())
        if secs == 0:
            return "UTC"
        sign = "-" if secs < 0 else "+"
        secs = abs(secs)
        return f"{sign}{secs // 3600:02d}:{secs // 60 % 60:02d}"
    return str(tz)


def fixed_offset_ns(name):
    """The offset of a UTC or fixed-offset zone name in ns, or None for a
    named zone."""
    if name is None or name in _UTC_NAMES:
        return 0
    m = _FIXED.match(name)
    if m:
        sign = -1 if m.group(1) == "-" else 1
        return sign * (int(m.group(2)) * 3600 + int(m.group(3) or 0) * 60) * 10**9
    return None


def is_named(name):
    return name is not None and fixed_offset_ns(name) is None


def tzif(name):
    """The bytes of the TZif file of zone name (cached)."""
    data = _cache.get(name)
    if data is not None:
        return data
    if not _NAME.match(name) or ".." in name:
        raise InvalidValueError(f"unknown time zone {name!r}")
    try:
        import zoneinfo

        paths = list(zoneinfo.TZPATH)
    except ImportError:  # pragma: no cover - Python < 3.9
        paths = ["/usr/share/zoneinfo"]
    for d in paths:
        p = os.path.join(d, *name.split("/"))
        if os.path.isfile(p):
            with open(p, "rb") as f:
                data = f.read()
            break
    if data is None:
        try:
            from importlib import resources

            parts = name.split("/")
            pkg = ".".join(["tzdata", "zoneinfo"] + parts[:-1])
            data = resources.files(pkg).joinpath(parts[-1]).read_bytes()
        except ModuleNotFoundError:
            data = None
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError, OSError):
            data = None
    if data is None:
        raise InvalidValueError(
            f"unknown time zone {name!r}: no TZif file for it in {paths} nor in the tzdata "
            "package (pip install tzdata)")
    if not data.startswith(b"TZif"):
        raise InvalidValueError(f"time zone {name!r}: its file is not a TZif file")
    _cache[name] = data
    return data


def to_wall(col):
    """An aware timestamp column as naive wall times in its zone (naive
    columns as they are)."""
    name = col.timezone
    if name is None:
        return col
    off = fixed_offset_ns(name)
    if off is None:
        return _core.tz_to_wall(col, tzif(name), name)
    vals = _convert.values_numpy(col).view(np.int64) + off // _dtypes.NS_PER[col.unit]
    return _core.column_from_buffer(vals, mask=_convert.null_mask(col), unit=col.unit)


def utc_offsets_s(col):
    """Each row's UTC offset in seconds (its zone's wall clock less its UTC
    time; int64, 0 at a null) of a time-zone-aware timestamp column: a
    named zone's offset varies by row."""
    if col.device != "cpu":
        col = col.to_device("cpu")
    utc = _convert.values_numpy(col).view(np.int64)
    wall = _convert.values_numpy(to_wall(col)).view(np.int64)
    secs = (wall - utc) // _dtypes.PER_SECOND[col.unit]
    nulls = _convert.null_mask(col)
    if nulls is not None:
        secs[nulls] = 0
    return secs


def localize(col, tz, ambiguous="raise", nonexistent="raise", what="tz_localize"):
    """A naive timestamp column's wall times in zone tz as an aware column
    (pandas' tz_localize)."""
    name = zone_name(tz)
    off = fixed_offset_ns(name)
    if off is not None:
        vals = _convert.values_numpy(col).view(np.int64) - off // _dtypes.NS_PER[col.unit]
        return _core.column_from_buffer(vals, mask=_convert.null_mask(col), unit=col.unit,
                                        tz=name)
    amb_rows = None
    if isinstance(ambiguous, (bool, np.bool_)):
        amb = 2 if ambiguous else 3
    elif isinstance(ambiguous, str):
        if ambiguous not in _AMBIGUOUS:
            raise InvalidValueError(
                f"dt.{what}: ambiguous must be 'raise', 'infer', 'NaT', a bool or a bool "
                f"array, not {ambiguous!r}")
        amb = _AMBIGUOUS[ambiguous]
    else:
        arr = np.asarray(ambiguous)
        if arr.dtype != np.bool_ or arr.ndim != 1:
            raise InvalidValueError(f"dt.{what}: ambiguous must be 'raise', 'infer', 'NaT', a "
                                    "bool or a 1-D bool array")
        if len(arr) != col.length:
            raise InvalidValueError(f"dt.{what}: ambiguous has {len(arr)} values for "
                                    f"{col.length} timestamps")
        amb, amb_rows = 4, _core.column_from_buffer(np.ascontiguousarray(arr))
    if not isinstance(nonexistent, str) or nonexistent not in _NONEXISTENT:
        raise InvalidValueError(
            f"dt.{what}: nonexistent must be 'raise', 'NaT', 'shift_forward' or "
            f"'shift_backward', not {nonexistent!r}")
    return _core.tz_localize(col, tzif(name), name, amb, amb_rows, _NONEXISTENT[nonexistent])


def _ns_column(ns, tz=None):
    return _core.column_from_buffer(np.ascontiguousarray(ns, dtype=np.int64), unit="ns", tz=tz)


def utc_to_wall_ns(name, utc_ns):
    """Wall times (ns) of UTC instants (ns, an int64 array) in zone name."""
    utc_ns = np.asarray(utc_ns, dtype=np.int64)
    off = fixed_offset_ns(name)
    if off is not None:
        return utc_ns + off
    out = _core.tz_to_wall(_ns_column(utc_ns, name), tzif(name), name)
    return np.asarray(_convert.values_numpy(out)).view(np.int64).copy()


def wall_to_utc_ns(name, wall_ns, ambiguous="raise", nonexistent="raise"):
    """UTC instants (ns) of wall times (ns) in zone name; NaT results are
    int64 min."""
    wall_ns = np.asarray(wall_ns, dtype=np.int64)
    off = fixed_offset_ns(name)
    if off is not None:
        return wall_ns - off
    out = localize(_ns_column(wall_ns), name, ambiguous, nonexistent)
    vals = np.asarray(_convert.values_numpy(out)).view(np.int64).copy()
    mask = _convert.null_mask(out)
    if mask is not None:
        vals[mask] = np.iinfo(np.int64).min
    return vals
