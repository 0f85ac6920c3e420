"""Time bins, as pandas 3 has them: ``resample(rule)`` on a Series or
DataFrame with a datetime index (or ``on=`` a datetime column) and
``Grouper(key=..., freq=...)`` as a groupby key, returning a ``Resampler``
whose sum / mean / min / max / count / size / first / last / median / std
/ var / nunique / ohlc / agg aggregate each bin (asfreq picks the value at
each bin edge).

How: for a fixed span over times in order (NaT anywhere), the engine
finds the times' range and order in one parallel pass.  Without NaT each
bin is then a run of rows, found by a binary search per bin edge, and
sum / mean / min / max / count / first / last reduce each run in place
(_core.groupby_segments: no bin id per row, no accumulator lookup per
row).  Other aggregations, and times with NaT, take each row's bin from
another pass (_core.time_bins: a division only where the bin changes) as
the group ids of one groupby_ids over every bin, empty ones included --
nothing hashed or sorted either way.  Otherwise
each row's bin is found with numpy on the int64 times (an integer
division for fixed spans; a binary search among the bin edges for
calendar rules), the rows (put in time order) are grouped by bin with the
engine's group-by, and the result is spread onto every bin between the
first and the last row's.  Either way empty bins give 0 for sum, count,
size and nunique, the others a missing value.  Nothing here loops over
rows.

pandas' rules:

- Rules: a number and a fixed unit ("s", "min", "h", "D", "ms", "us",
  "ns": "15min", "2h", a timedelta) or a calendar one: "W" (weeks ending
  on Sunday; "W-MON" ...), "MS" / "ME" (month start / end), "QS" / "QE"
  (quarters; "QS-FEB", "QE-NOV" ...), "YS" / "YE" (years; "YS-JUL" ...),
  with a multiple ("2MS").
- Fixed spans are counted from ``origin`` ("start_day": midnight of the
  first day, the default; "start"; "epoch"; "end"; "end_day"; a
  timestamp) plus ``offset``; calendar bins start at their anchor dates.
- ``closed`` (which side of a bin holds its edge) and ``label`` (which
  edge names it) default to "left", and to "right" for "W", "ME", "QE"
  and "YE" (whose bins then hold their whole last day).
- The result's index is the bins' labels, named as the index (or the
  ``on`` column); rows with a missing time (NaT) are left out.
- ``Grouper(key=..., freq=...)`` alone is the same as ``resample``; with
  other keys (``groupby(["k", Grouper(...)])``) the bin is one more key
  and only the (key, bin) pairs that occur are groups, as pandas.

Differences from pandas:

- tz-aware times: fixed spans are exact; calendar bins are laid out in
  the zone's wall time at each edge (Python's zoneinfo), and "D" counts
  24 hours from the first day's local midnight, so bins across a DST
  change can differ from pandas' by the shift.
- ``min_count`` of sum / prod / min / max / first / last: a bin with
  fewer values is missing (an empty bin too).  The result's index
  carries the rule as ``freq`` (a string; pandas' DatetimeIndex from
  ``to_pandas()``).  The aggregations are zambezi's GroupBy
  ones: as pandas 3, a DataFrame's column the aggregation cannot take
  raises TypeError (``numeric_only=True`` leaves it out; sum joins
  strings).
- ``asfreq`` reindexes onto the bin edges (as pandas); ``interpolate``,
  ``ffill`` / ``bfill`` upsampling, ``apply`` / ``transform``, ``kind``,
  ``convention`` and business rules ("B", "BME" ...) are not supported.
"""

import datetime
import numbers
import re

import numpy as np

from zambezi import _convert, _core
from zambezi import _tz
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

_NS = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9, "min": 60 * 10**9, "h": 3600 * 10**9,
       "D": 86_400 * 10**9}
_DAY = 86_400 * 10**9
_DAYS = ["MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"]
_MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
_RULE = re.compile(r"^\s*(\d+)?\s*([A-Za-z]+)(?:-([A-Za-z]+))?\s*$")
_UNIT_NS = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}
_END = ("W", "ME", "QE", "YE")


class _Rule:
    """A parsed rule: ``tick`` (a fixed span in ns) or a calendar rule:
    ``kind`` "W" or "M" (months), ``start`` (anchors at period starts),
    ``step`` months per period (1, 3, 12) or days (7), ``residue`` the
    anchor's position, ``n`` the multiple."""

    __slots__ = ("text", "tick", "kind", "start", "step", "residue", "n", "day")

    def __init__(self, text, tick=None, kind=None, start=True, step=1, residue=0, n=1, day=False):
        self.text, self.tick, self.kind, self.start = text, tick, kind, start
        self.step, self.residue, self.n, self.day = step, residue, n, day

    @property
    def end_type(self):
        return self.tick is None and not self.start


def _parse_rule(rule):
    if isinstance(rule, (datetime.timedelta, np.timedelta64)) or \
            type(rule).__name__ == "Timedelta":
        from zambezi._rolling import _offset_ns

        ns = _offset_ns(rule)
        if ns <= 0:
            raise InvalidValueError(f"resample: the rule must be a positive span, not {rule!r}")
        return _Rule(str(rule), tick=ns)
    if not isinstance(rule, str):
        raise DTypeError(f"resample: rule must be a string such as '1h' or 'MS', not "
                         f"{type(rule).__name__}")
    m = _RULE.match(rule)
    if m is None:
        raise InvalidValueError(f"resample: cannot read the rule {rule!r}")
    n = int(m.group(1)) if m.group(1) else 1
    unit, anchor = m.group(2), m.group(3)
    if n <= 0:
        raise InvalidValueError(f"resample: the rule's multiple must be positive: {rule!r}")
    if unit in _NS and anchor is None:
        return _Rule(rule, tick=n * _NS[unit], n=n, day=unit == "D")
    if unit == "W":
        a = anchor.upper() if anchor else "SUN"
        if a not in _DAYS:
            raise InvalidValueError(f"resample: unknown weekday {anchor!r} in {rule!r}")
        # the anchor days: 1970-01-01 was a Thursday (weekday 3)
        return _Rule(rule, kind="W", start=False, step=7, residue=(_DAYS.index(a) - 3) % 7, n=n)
    if unit in ("MS", "ME") and anchor is None:
        return _Rule(rule, kind="M", start=unit == "MS", step=1, residue=0, n=n)
    if unit in ("QS", "QE", "YS", "YE"):
        start = unit.endswith("S")
        a = anchor.upper() if anchor else ("JAN" if start else "DEC")
        if a not in _MONTHS:
            raise InvalidValueError(f"resample: unknown month {anchor!r} in {rule!r}")
        step = 3 if unit[0] == "Q" else 12
        return _Rule(rule, kind="M", start=start, step=step, residue=_MONTHS.index(a) % step, n=n)
    if unit in ("T", "H", "S", "L", "U", "N", "M", "Q", "Y", "A"):
        raise InvalidValueError(f"resample: the rule {rule!r} is not a pandas 3 spelling; use "
                                "'min', 'h', 's', 'ms', 'us', 'ns', 'ME', 'QE' or 'YE'")
    raise UnsupportedError(f"resample: the rule {rule!r} is not supported (fixed spans, 'W', "
                           "'MS', 'ME', 'QS', 'QE', 'YS', 'YE')")


# -- calendar anchors (days since the epoch) ---------------------------------

def _month_of(days):
    return np.asarray(days, dtype="datetime64[D]").astype("datetime64[M]").astype(np.int64)


def _month_first_day(months):
    return np.asarray(months, dtype=np.int64).astype("datetime64[M]").astype(
        "datetime64[D]").astype(np.int64)


def _anchor(rule, k):
    """Day (since the epoch) of anchor k."""
    k = np.asarray(k, dtype=np.int64)
    if rule.kind == "W":
        return 7 * k + rule.residue
    m = rule.step * k + rule.residue
    return _month_first_day(m) if rule.start else _month_first_day(m + 1) - 1


def _floor_k(rule, days):
    """The last anchor at or before each day."""
    days = np.asarray(days, dtype=np.int64)
    if rule.kind == "W":
        return (days - rule.residue) // 7
    k = (_month_of(days) - rule.residue) // rule.step
    if not rule.start:
        k = k - (_anchor(rule, k) > days)
    return k


def _calendar_edges(rule, first_day, last_day, closed):
    """pandas' bin edges (days) of a calendar rule from the first and last
    (normalized) days: first rolled back (closed left) or one period
    back, last one period on, anchors every n periods."""
    n = rule.n
    k0 = int(_floor_k(rule, first_day))
    on0 = int(_anchor(rule, k0)) == first_day
    if closed == "left":
        start = k0
    else:
        start = k0 - n if on0 else k0 - n + 1
    # last + n periods: n anchors on from an anchor; off one, the next
    # anchor and n - 1 more -- floor(last) + n either way
    end = int(_floor_k(rule, last_day)) + n
    ks = np.arange(start, end + 1, n, dtype=np.int64)
    return _anchor(rule, ks)


# -- time zones --------------------------------------------------------------

def _zone(tz):
    if tz is None or tz == "UTC":
        return None
    try:
        import zoneinfo

        return zoneinfo.ZoneInfo(tz)
    except Exception:
        m = re.match(r"^([+-])(\d\d):?(\d\d)$", tz)
        if m:
            sign = 1 if m.group(1) == "+" else -1
            return datetime.timezone(sign * datetime.timedelta(hours=int(m.group(2)),
                                                               minutes=int(m.group(3))))
        raise UnsupportedError(f"resample: unknown time zone {tz!r}") from None


def _local_offset_ns(zone, utc_ns):
    """The zone's UTC offset (ns) at one instant."""
    if zone is None:
        return 0
    name = _tz.zone_name(zone)
    return int(_tz.utc_to_wall_ns(name, [int(utc_ns)])[0]) - int(utc_ns)


def _wall_to_utc(zone, wall_ns):
    """Wall times (ns) of the zone to UTC instants, by the engine: a time
    repeated by a fall-back hour is its first instant, one skipped by a
    spring-forward gap the gap's end."""
    if zone is None:
        return wall_ns
    return _tz.wall_to_utc_ns(_tz.zone_name(zone), wall_ns, ambiguous=True,
                              nonexistent="shift_forward")


# -- binning -----------------------------------------------------------------

def _check_side(v, what, default):
    if v is None:
        return default
    if v not in ("left", "right"):
        raise InvalidValueError(f"resample: {what} must be 'left' or 'right', not {v!r}")
    return v


def _scalar_ns(v, what, zone_name=None):
    """A timestamp (str, datetime, numpy, pandas) in UTC ns."""
    if isinstance(v, np.datetime64):
        return int(v.astype("datetime64[ns]").astype(np.int64))
    value = getattr(v, "value", None)
    if isinstance(value, numbers.Integral) and hasattr(v, "tz"):  # pandas' Timestamp
        return int(v.as_unit("ns").value) if hasattr(v, "as_unit") else int(value)
    if isinstance(v, str):
        return int(np.datetime64(v, "ns").astype(np.int64))
    if isinstance(v, datetime.datetime):
        if v.tzinfo is not None:
            return int(v.timestamp()) * 10**9 + v.microsecond * 1000
        return int(np.datetime64(v, "ns").astype(np.int64))
    raise DTypeError(f"resample: {what} must be a timestamp, not {type(v).__name__}")


class _Bins:
    """Each row's bin (int64, -1 for NaT), the bins' labels (ns), and the
    rows in time order (None when they are).  The engine's fast path
    (_tick_bins_sorted) gives ``ids`` instead (an int64 engine column of the
    bins, null for NaT, fit for groupby_ids) and ``full`` (whether every
    bin has a row); row_bin and t_ns are then made from them when asked."""

    __slots__ = ("_row_bin", "labels", "n_bins", "order", "has_nat", "edges", "_t_ns", "_ids",
                 "full", "_times", "offsets", "_bin_args", "times_nat")

    def __init__(self, row_bin, labels):
        self._row_bin, self.labels, self.n_bins = row_bin, labels, len(labels)
        self.order = None
        self.has_nat = True
        # whether the times held a NaT beside a time (pandas' result then
        # has no freq: its bins gained and lost a NaT label)
        self.times_nat = False
        self.edges = labels  # every bin edge (one more than the bins)
        self._t_ns = None    # the rows' times (UTC ns; NaT rows: int64 min)
        self._ids = None
        self.full = None
        self._times = None   # (engine column, ns per tick) behind ids
        # times in order without NaT: bin k is the rows [offsets[k],
        # offsets[k + 1]) (an int64 engine column), and the ids are made
        # only when an aggregation needs them (_core.time_bins(*_bin_args))
        self.offsets = None
        self._bin_args = None

    @property
    def ids(self):
        if self._ids is None and self._bin_args is not None:
            self._ids, _ = _core.time_bins(*self._bin_args)
        return self._ids

    @ids.setter
    def ids(self, v):
        self._ids = v

    @property
    def row_bin(self):
        if self._row_bin is None and self.ids is not None:
            b = np.array(_convert.values_numpy(self.ids), dtype=np.int64)
            m = _convert.null_mask(self.ids)
            if m is not None:
                b[m] = -1
            self._row_bin = b
        return self._row_bin

    @property
    def t_ns(self):
        if self._t_ns is None and self._times is not None:
            col, per = self._times
            t = _convert.values_numpy(col).view(np.int64) * per
            m = _convert.null_mask(col)
            if m is not None:
                t[m] = np.iinfo(np.int64).min
            self._t_ns = t
        return self._t_ns

    @t_ns.setter
    def t_ns(self, v):
        self._t_ns = v


def _tick_grid(first, last, zone, rule, closed, origin, offset):
    """pandas' grid of a fixed-span rule over times first .. last (UTC ns):
    (fres, nb), the edges being fres + k * rule.tick, k = 0..nb."""
    freq = rule.tick
    off = 0 if offset is None else _offset_ns(offset)
    if isinstance(origin, str) and origin == "start_day":
        lo = _local_offset_ns(zone, first)
        org = (first + lo) // _DAY * _DAY - lo
    elif isinstance(origin, str) and origin == "start":
        org = first
    elif isinstance(origin, str) and origin == "epoch":
        org = 0 if zone is None else -_local_offset_ns(zone, 0)
    elif isinstance(origin, str) and origin in ("end", "end_day"):
        if origin == "end":
            ol = last
        else:
            lo = _local_offset_ns(zone, last)
            ol = -((-(last + lo)) // _DAY) * _DAY - lo
        sub = (ol - first) // freq
        if closed == "left":
            sub += 1
        first = ol - sub * freq
        org = first
    else:
        org = _scalar_ns(origin, "origin")
    org += off
    fo, lo_ = (first - org) % freq, (last - org) % freq
    if closed == "right":
        fres = first - fo if fo > 0 else first - freq
        lres = last + (freq - lo_) if lo_ > 0 else last
    else:
        fres = first - fo if fo > 0 else first
        lres = last + (freq - lo_) if lo_ > 0 else last + freq
    return fres, (lres - fres) // freq


def _outside(origin, offset):
    return InvalidValueError(f"resample: with origin={origin!r} and offset={offset!r} some "
                             "times fall outside the bins (pandas: 'Values falls before first "
                             "bin')")


def _tick_bins_sorted(col, unit, tz, rule, closed, label, origin, offset):
    """The bins of a fixed-span rule by the engine, for times in order
    (NaT anywhere): one parallel pass for the range and order of the
    ticks, one for each row's bin (the division at bin changes only) --
    no per-row numpy arrays.  None when the path does not apply (calendar
    rules, zone-aware days, times out of order, no time)."""
    if rule.tick is None or (rule.tick % _DAY == 0 and tz is not None):
        return None
    valid, lo, hi, ordered = _core.time_range(col)
    if not ordered or valid == 0:
        return None
    per, freq = _UNIT_NS[unit], rule.tick
    fres, nb = _tick_grid(lo * per, hi * per, _zone(tz), rule, closed, origin, offset)
    # closed right: bin k holds (edge k, edge k + 1], floor((t - fres - 1) / freq);
    # in the column's own ticks when they divide fres and freq (no multiply)
    right = 1 if closed == "right" else 0
    base, scale = fres + right, per
    if fres % per == 0 and freq % per == 0:
        base, freq, scale = fres // per + right, freq // per, 1
    edges = fres + rule.tick * np.arange(nb + 1, dtype=np.int64)
    out = _Bins(None, edges[1:] if label == "right" else edges[:-1])
    out.edges = edges
    out._times = (col, per)
    out.has_nat = out.times_nat = valid < col.length
    offsets = None
    if not out.has_nat and col.device == "cpu":
        offsets = _segment_offsets(col, scale, base, freq, nb)
    if offsets is not None:
        if offsets[0] != 0 or offsets[-1] != col.length:  # rows before / after the bins
            raise _outside(origin, offset)
        out.offsets = _core.column_from_buffer(offsets)
        out.full = bool((offsets[1:] > offsets[:-1]).all())
        out._bin_args = (col, scale, base, freq, nb)
        return out
    try:
        ids, runs = _core.time_bins(col, scale, base, freq, nb)
    except IndexError:
        raise _outside(origin, offset) from None
    out.ids, out.full = ids, runs == nb
    return out


def _segment_offsets(col, scale, base, freq, nb):
    """For times in order without NaT: the first row of each bin and the
    end of the last, bin k holding the ticks t with k * freq <= t * scale -
    base < (k + 1) * freq -- nb + 1 binary searches over the times
    (numpy's searchsorted), no pass over the rows.  None when the edges do
    not fit in int64 (the engine's time_bins checks each row instead)."""
    lo, hi = base, base + nb * freq
    if not (-2**63 <= lo and hi < 2**63 - scale):
        return None
    thr = base + freq * np.arange(nb + 1, dtype=np.int64)  # t * scale >= thr
    if scale != 1:
        thr = -((-thr) // scale)
    t = _convert.values_numpy(col).view(np.int64)
    return np.searchsorted(t, thr, side="left").astype(np.int64)


def _bins(t_ns, valid, tz, rule, closed, label, origin, offset):
    """pandas' bins of the times t_ns (UTC ns, int64; valid: not NaT, or
    None when every time is there)."""
    zone = _zone(tz)
    n = len(t_ns)
    tv = t_ns if valid is None else t_ns[valid]
    if len(tv) == 0:
        return _Bins(np.full(n, -1, dtype=np.int64), np.empty(0, dtype=np.int64))

    def spread(b):
        if valid is None:
            return b
        row_bin = np.full(n, -1, dtype=np.int64)
        row_bin[valid] = b
        return row_bin

    first, last = int(tv.min()), int(tv.max())
    if rule.tick is not None and rule.tick % _DAY == 0 and tz is not None:
        # pandas 3: days of zone-aware times are calendar days (23 or 25
        # hours at a DST change) from the first local midnight, origin and
        # offset unused; the edges are local midnights, compared in UTC
        name, freq = _tz.zone_name(tz), rule.tick
        wall = _tz.utc_to_wall_ns(name, np.array([first, last], dtype=np.int64))
        fday, lday = wall // _DAY * _DAY
        start = fday if closed == "left" else fday - freq
        nb = (lday + freq - start) // freq  # edges start + k * freq, k = 0..nb
        edges = _wall_to_utc(zone, start + freq * np.arange(nb + 1, dtype=np.int64))
        side = "right" if closed == "left" else "left"
        out = _Bins(spread(np.searchsorted(edges, tv, side) - 1),
                    edges[1:] if label == "right" else edges[:-1])
        out.edges = edges
        return out
    if rule.tick is not None:
        freq = rule.tick
        fres, nb = _tick_grid(first, last, zone, rule, closed, origin, offset)
        b = tv - (fres if closed == "left" else fres + 1)
        b //= freq
        if len(b) and (b.min() < 0 or b.max() >= nb):
            raise _outside(origin, offset)
        row_bin = spread(b)
        edges = fres + freq * np.arange(nb + 1, dtype=np.int64)
        out = _Bins(row_bin, edges[1:] if label == "right" else edges[:-1])
        out.edges = edges
        return out
    # calendar rules: edges at anchor days, laid out in wall time
    fday = (first + _local_offset_ns(zone, first)) // _DAY
    lday = (last + _local_offset_ns(zone, last)) // _DAY
    edges_day = _calendar_edges(rule, fday, lday, closed)
    binner = edges_day * _DAY  # wall-time midnights
    if rule.end_type and closed == "right":
        edges = binner + _DAY - 1  # a bin holds its whole last day
    else:
        edges = binner
    edges_utc = _wall_to_utc(zone, edges)
    if rule.end_type and len(edges_utc) >= 2 and edges_utc[-2] > last:
        edges_utc, binner = edges_utc[:-1], binner[:-1]
    side = "right" if closed == "left" else "left"
    row_bin = spread(np.searchsorted(edges_utc, tv, side) - 1)
    edges = _wall_to_utc(zone, binner)
    out = _Bins(row_bin, edges[1:] if label == "right" else edges[:-1])
    out.edges = edges
    return out


def _offset_ns(v):
    from zambezi._rolling import _offset_ns as off

    if isinstance(v, str) and v.strip().startswith("-"):  # pandas' offset="-3min"
        return -off(v.strip()[1:])
    return off(v)


def _group_tick_bins(tg, g, n_groups, tz, rule, closed, origin, offset):
    """Each group's own grid of a fixed-span rule, as pandas lays out
    ``groupby(k).resample(rule)``: the bins of resample over the group's
    rows alone (its first time sets "start_day" / "start", its last
    "end" / "end_day").  tg: the rows' times (UTC ns, no NaT), g: their
    group ids (0 .. n_groups-1).  Returns (each row's bin within its group,
    each group's first edge, in_wall): edges are base + k * rule.tick, in
    wall time (then converted to UTC) when in_wall.  Vectorized over groups
    and rows: one scatter-min / max for the groups' first and last times,
    then numpy arithmetic."""
    freq = rule.tick
    first = np.full(n_groups, np.iinfo(np.int64).max, dtype=np.int64)
    last = np.full(n_groups, np.iinfo(np.int64).min, dtype=np.int64)
    np.minimum.at(first, g, tg)
    np.maximum.at(last, g, tg)
    empty = last < first  # groups with no row: any edge will do
    first[empty] = 0
    last[empty] = 0
    if freq % _DAY == 0 and tz is not None:
        # zone-aware days: calendar days from each group's first local
        # midnight (origin and offset unused), as resample; compared in wall time
        wall_first = _tz.utc_to_wall_ns(tz, first)
        start = wall_first // _DAY * _DAY
        if closed == "right":
            start = start - freq
        wall_t = _tz.utc_to_wall_ns(tz, tg)
        b = (wall_t - start[g] - (1 if closed == "right" else 0)) // freq
        return b, start, True
    off = 0 if offset is None else _offset_ns(offset)

    def local(utc):  # the zone's offsets at the instants utc (ns)
        return np.zeros_like(utc) if tz is None else _tz.utc_to_wall_ns(tz, utc) - utc

    if isinstance(origin, str) and origin == "start_day":
        lo = local(first)
        org = (first + lo) // _DAY * _DAY - lo
    elif isinstance(origin, str) and origin == "start":
        org = first
    elif isinstance(origin, str) and origin == "epoch":
        org = np.full(n_groups, 0 if tz is None else -int(local(np.zeros(1, np.int64))[0]),
                      dtype=np.int64)
    elif isinstance(origin, str) and origin in ("end", "end_day"):
        if origin == "end":
            ol = last
        else:
            lo = local(last)
            ol = -((-(last + lo)) // _DAY) * _DAY - lo
        sub = (ol - first) // freq
        if closed == "left":
            sub += 1
        first = ol - sub * freq
        org = first
    else:
        org = np.full(n_groups, _scalar_ns(origin, "origin"), dtype=np.int64)
    org = org + off
    fo = (first - org) % freq
    if closed == "right":
        fres = np.where(fo > 0, first - fo, first - freq)
    else:
        fres = np.where(fo > 0, first - fo, first)
    b = (tg - fres[g] - (1 if closed == "right" else 0)) // freq
    if len(b) and b.min() < 0:
        raise InvalidValueError(f"groupby.resample: with origin={origin!r} and "
                                f"offset={offset!r} some times fall before their group's first "
                                "bin (pandas: 'Values falls before first bin')")
    return b, fres, False


# -- the Resampler -------------------------------------------------------------

_ZERO_FILL = frozenset(["sum", "count", "size", "nunique"])


def _is_masked(col):
    """Whether col is pandas' masked Int64 / boolean: integers or bools with
    a missing value (zambezi._convert shows them so)."""
    return bool(col.null_count) and (col.dtype in _INTS or col.dtype == "bool")


def _masked_flags(obj, res):
    """Per column of the result res of obj's bins: whether the column it
    comes from is masked (_is_masked), found by its label (the first level
    of a (column, function) label)."""
    ncols = 1 if res._ndim == 1 else len(res.columns)
    if obj._ndim == 1:
        return [_is_masked(obj._col)] * ncols
    if res._ndim == 1:
        return [False]
    t = obj._table
    src = {}
    for label, i in zip(obj.columns, range(t.num_columns)):
        src.setdefault(label, _is_masked(t.column(i)))
    return [src.get(lb[0] if isinstance(lb, tuple) and lb not in src else lb, False)
            for lb in res.columns]


def _empty_fill(op):
    """The value op gives an empty bin: 0 for counts and sums, 1 for a
    product, else None (missing)."""
    return 0 if op in _ZERO_FILL else (1 if op == "prod" else None)
_SEG_NUM = frozenset(["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                      "float32", "float64", "bool"])
# what each op reduces by segments (_Resampler._segments); min / max /
# first / last / count also times and dates
_SEGMENT_OPS = {"sum": _SEG_NUM, "mean": _SEG_NUM, "min": _SEG_NUM, "max": _SEG_NUM,
                "count": _SEG_NUM, "first": _SEG_NUM, "last": _SEG_NUM}
_SEGMENT_TEMPORAL = frozenset(["min", "max", "count", "first", "last"])
_INTS = frozenset(["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
_OPS = ("sum", "mean", "min", "max", "count", "size", "first", "last", "median", "std", "var",
        "nunique", "prod", "sem")


class Resampler:
    """The time bins of a Series or DataFrame: what ``resample(rule)``
    (and ``groupby(Grouper(freq=...))``) returns.  Each aggregation gives
    one row per bin, every bin from the first row's to the last's.

    Examples
    --------
    >>> t = pd.date_range("2024-01-01", periods=5, freq="25min")
    >>> r = zb.Series([1.0, 2.0, 3.0, 4.0, 5.0], index=t).resample("h")
    >>> r.sum()
    2024-01-01 00:00:00.000000    6
    2024-01-01 01:00:00.000000    9
    dtype: float64
    """

    __slots__ = ("_obj", "_values", "_bins", "_tname", "_unit", "_tz", "_rule", "_sel", "_on",
                 "_closed")

    def __init__(self, obj, values, bins, tname, unit, tz, rule, sel=None, on=None,
                 closed="left"):
        self._obj = obj          # the object resampled
        self._values = values    # the object without the time column (on=)
        self._bins = bins
        self._tname = tname
        self._unit = unit
        self._tz = tz
        self._rule = rule
        self._sel = sel
        self._on = on
        self._closed = closed

    def __repr__(self):
        return f"DatetimeIndexResampler [freq={self._rule.text}]"

    def __getitem__(self, key):
        if self._values._ndim != 2:
            raise InvalidValueError("a Series' resample has no columns to select")
        out = type(self)(self._obj, self._values, self._bins, self._tname, self._unit, self._tz,
                         self._rule, key, self._on, self._closed)
        if isinstance(self, GroupByResampler):
            out._kcols, out._klabels = self._kcols, self._klabels
        return out

    def __getattr__(self, name):
        if not name.startswith("_") and self._values._ndim == 2 and \
                name in self._values._table.names:
            return self[name]
        raise AttributeError(f"'Resampler' object has no attribute {name!r}")

    # -- plumbing ---------------------------------------------------------------
    def _grouped(self, dense=True):
        """A GroupBy of the values by bin.  With the engine's bin ids (and
        dense), every bin is a group, in order (empty ones too): the ids are
        the grouping (groupby_ids), nothing is hashed or sorted."""
        from zambezi import _base

        from zambezi import _indexing

        obj = self._values
        if self._sel is not None:
            obj = obj[self._sel]
        b = self._bins
        if dense and (b.offsets is not None or b.ids is not None):
            from zambezi._groupby import _Grouping

            key = _base.series_class()._from_column(b.ids, "__bin", obj._index)
            gb = obj.groupby(key, sort=True, dropna=True)
            bins = _core.column_from_buffer(np.arange(b.n_bins, dtype=np.int64))
            gb._k.groupings[(gb._dropna, gb._sort)] = _Grouping(b.ids, b.n_bins, [bins],
                                                                list(gb._k.keys))
            return gb
        row_bin = b.row_bin
        if b.order is not None:  # pandas bins the rows in time order
            obj = obj._select_rows(_indexing.take_rows(
                _core.column_from_buffer(b.order)))
            row_bin = row_bin[b.order]
        key = _core.column_from_buffer(row_bin, mask=row_bin < 0 if b.has_nat else None)
        key = _base.series_class()._from_column(key, "__bin", obj._index)
        return obj.groupby(key, sort=True, dropna=True)

    def _index(self, labels=None):
        from zambezi import index as _ix

        per = _UNIT_NS[self._unit]
        labels = (self._bins.labels if labels is None else labels) // per
        col = _core.column_from_buffer(labels, unit=self._unit, tz=self._tz)
        out = _ix.Index._from_columns([col], [self._tname])
        if not self._bins.times_nat:  # regular bins: pandas' freq (to_pandas)
            out._freq = self._rule.text
        return out

    def _spread(self, res, fills):
        """res (indexed by the bins that have rows, in order) onto every
        bin; fills: per result column, the value of an empty bin (None:
        missing)."""
        from zambezi import _indexing

        masked = _masked_flags(self._values if self._sel is None else self._values[self._sel],
                               res)

        nb = self._bins.n_bins
        if len(res) == nb and (self._bins.offsets is not None or
                               self._bins._ids is not None):  # every bin, in order (dense)
            out, empty = res, not self._bins.full
        else:
            present = np.asarray(_convert.values_numpy(res._index._levels()[0]),
                                 dtype=np.int64)
            pos = np.full(nb, -1, dtype=np.int64)
            pos[present] = np.arange(len(present), dtype=np.int64)
            rows = _indexing.take_rows(_core.column_from_buffer(pos, mask=pos < 0))
            out, empty = res._select_rows(rows), len(present) < nb
        if empty:
            # empty bins: 0 for counts and sums, 1 for products; else missing, which makes
            # numpy integers and bools float64, as pandas; pandas' masked ones (a
            # column with missing values) stay integer / bool with NA
            def fix(col, fill, keep):
                if fill is not None and col.dtype == "string":   # a sum joins no strings
                    return _core.fill_null(col, "") if fill == 0 else col
                if fill is not None:
                    return _core.fill_null(col, fill)
                if col.null_count and (col.dtype in _INTS or col.dtype == "bool") and not keep:
                    return _core.cast(col, "float64")
                return col

            if out._ndim == 1:
                out = out._like(fix(out._col, fills[0], masked[0]))
            else:
                t = out._table
                out = out._like(_core.table_from_columns(
                    [fix(t.column(i), f, m) for i, f, m in zip(range(t.num_columns), fills,
                                                                masked)],
                    list(t.names)))
        return out._with_index(self._index())

    def _segments(self, op):
        """op of every bin straight from its rows (_core.groupby_segments:
        each bin reduced in place, no id per row), as GroupBy's op would
        give it with every bin a group; None where that path does not
        apply (no offsets, another op, or a column GroupBy treats apart:
        strings, durations, categoricals ...)."""
        b = self._bins
        if b.offsets is None or op not in _SEGMENT_OPS:
            return None
        obj = self._values if self._sel is None else self._values[self._sel]
        t = obj._engine if obj._ndim == 2 else None
        cols = [obj._col] if t is None else [t.column(i) for i in range(t.num_columns)]
        kinds = _SEGMENT_OPS[op]
        if not cols or any(c.device != "cpu" or c.dtype not in kinds and not (
                op in _SEGMENT_TEMPORAL and c.dtype.startswith(("timestamp", "date32")))
                for c in cols):
            return None
        names = [f"c{i}" for i in range(len(cols))]
        specs = [(op, i, -1, 1, 0.5, False, names[i]) for i in range(len(cols))]
        res = _core.groupby_segments(_core.table_from_columns(cols, names), b.offsets, specs)
        from zambezi._groupby import _F32_OPS, _float32_back, _has_missing_float

        # the bins' rows are in order, so pandas' mean of a float32 column
        # without NaN is float64 (see GroupBy._mean_as_float64)
        res = _float32_back(res, 0, [i for i, c in enumerate(cols)
                                     if op in _F32_OPS and c.dtype == "float32" and (
                                         op != "mean" or _has_missing_float(c))])
        out = [res.column(i) for i in range(res.num_columns)]
        from zambezi import _base
        from zambezi import index as _ix

        index = _ix.default_index(b.n_bins)
        if t is None:
            return _base.series_class()._from_column(out[0], obj.name, index)
        frame = obj._constructor._wrap(_core.table_from_columns(out, list(t.names)), index)
        frame._columns = getattr(obj, "_columns", None)
        return frame

    def _simple(self, op, **kw):
        kw = {k: v for k, v in kw.items()   # defaults left out (the segments' path)
              if not (k == "numeric_only" and not v) and not (k == "min_count" and v <= 0)}
        res = self._segments(op) if not kw else None
        if res is None:
            gb = self._grouped()
            res = getattr(gb, op)(**kw)
        ncols = 1 if res._ndim == 1 else len(res._zb_columns)
        # an empty bin has no values: missing once min_count asks for some
        fill = None if kw.get("min_count", 0) > 0 else _empty_fill(op)
        return self._spread(res, [fill] * ncols)

    # -- aggregations -------------------------------------------------------------
    def sum(self, numeric_only=False, min_count=0):
        """Sum of each bin (0 for an empty one).

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01 00:10", "2024-01-01 02:20"])
        >>> zb.Series([1, 2], index=t).resample("h").sum().to_list()
        [1, 0, 2]
        """
        return self._simple("sum", numeric_only=numeric_only, min_count=min_count)

    def prod(self, numeric_only=False, min_count=0):
        """Product of each bin (1 for an empty one).

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01 00:10", "2024-01-01 00:20", "2024-01-01 02:20"])
        >>> zb.Series([2, 3, 4], index=t).resample("h").prod().to_list()
        [6, 1, 4]
        """
        return self._simple("prod", numeric_only=numeric_only, min_count=min_count)

    def mean(self, numeric_only=False):
        """Mean of each bin (missing for an empty one).

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01 00:10", "2024-01-01 00:50", "2024-01-01 02:20"])
        >>> zb.Series([1.0, 2.0, 4.0], index=t).resample("h").mean().to_list()
        [1.5, None, 4.0]
        """
        return self._simple("mean", numeric_only=numeric_only)

    def min(self, numeric_only=False, min_count=0):
        """Smallest value of each bin.

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01", "2024-01-02", "2024-01-02"])
        >>> zb.Series([3.0, 5.0, 4.0], index=t).resample("D").min().to_list()
        [3.0, 4.0]
        """
        return self._simple("min", numeric_only=numeric_only, min_count=min_count)

    def max(self, numeric_only=False, min_count=0):
        """Largest value of each bin.

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01", "2024-01-02", "2024-01-02"])
        >>> zb.Series([3.0, 5.0, 4.0], index=t).resample("D").max().to_list()
        [3.0, 5.0]
        """
        return self._simple("max", numeric_only=numeric_only, min_count=min_count)

    def count(self):
        """Non-missing values of each bin (0 for an empty one).

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01", "2024-01-03", "2024-01-03"])
        >>> zb.Series([1.0, None, 2.0], index=t).resample("D").count().to_list()
        [1, 0, 1]
        """
        return self._simple("count")

    def size(self):
        """Rows of each bin (0 for an empty one), a Series.

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01", "2024-01-03", "2024-01-03"])
        >>> zb.Series([1.0, None, 2.0], index=t).resample("D").size().to_list()
        [1, 0, 2]
        """
        gb = self._grouped()
        return self._spread(gb.size(), [0])

    def first(self, numeric_only=False, min_count=-1, skipna=True):
        """First non-missing value of each bin.

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01", "2024-01-01", "2024-01-02"])
        >>> zb.Series([None, 2.0, 3.0], index=t).resample("D").first().to_list()
        [2.0, 3.0]
        """
        if not skipna:
            raise UnsupportedError("resample first(skipna=False) is not supported")
        return self._simple("first", numeric_only=numeric_only, min_count=min_count)

    def last(self, numeric_only=False, min_count=-1, skipna=True):
        """Last non-missing value of each bin.

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01", "2024-01-01", "2024-01-02"])
        >>> zb.Series([1.0, 2.0, 3.0], index=t).resample("D").last().to_list()
        [2.0, 3.0]
        """
        if not skipna:
            raise UnsupportedError("resample last(skipna=False) is not supported")
        return self._simple("last", numeric_only=numeric_only, min_count=min_count)

    def median(self, numeric_only=False):
        """Median of each bin.

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01", "2024-01-01", "2024-01-01"])
        >>> zb.Series([1.0, 9.0, 2.0], index=t).resample("D").median().to_list()
        [2.0]
        """
        return self._simple("median", numeric_only=numeric_only)

    def std(self, ddof=1, numeric_only=False):
        """Standard deviation of each bin.

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01", "2024-01-01"])
        >>> zb.Series([1.0, 3.0], index=t).resample("D").std().to_list()
        [1.4142135623730951]
        """
        return self._simple("std", ddof=ddof, numeric_only=numeric_only)

    def sem(self, ddof=1, numeric_only=False):
        """Standard error of the mean of each bin: std(ddof) / sqrt(count).

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01", "2024-01-01"])
        >>> zb.Series([1.0, 3.0], index=t).resample("D").sem().to_list()
        [1.0]
        """
        return self._simple("sem", ddof=ddof, numeric_only=numeric_only)

    def var(self, ddof=1, numeric_only=False):
        """Variance of each bin.

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01", "2024-01-01"])
        >>> zb.Series([1.0, 3.0], index=t).resample("D").var().to_list()
        [2.0]
        """
        return self._simple("var", ddof=ddof, numeric_only=numeric_only)

    def nunique(self):
        """Distinct non-missing values of each bin (0 for an empty one).

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01", "2024-01-01", "2024-01-03"])
        >>> zb.Series([1, 1, 2], index=t).resample("D").nunique().to_list()
        [1, 0, 1]
        """
        return self._simple("nunique")

    def ohlc(self):
        """Open (first), high, low and close (last) of each bin: a
        DataFrame; of a DataFrame, four columns per column under pandas'
        MultiIndex labels (column, "open" / "high" / "low" / "close").

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01 09:00", "2024-01-01 09:30", "2024-01-01 10:10"])
        >>> zb.Series([3.0, 5.0, 4.0], index=t).resample("h").ohlc().to_dict("list")
        {'open': [3.0, 4.0], 'high': [5.0, 4.0], 'low': [3.0, 4.0], 'close': [5.0, 4.0]}
        """
        names = {"first": "open", "max": "high", "min": "low", "last": "close"}
        obj = self._values if self._sel is None else self._values[self._sel]
        gb = self._grouped()
        res = gb.agg(["first", "max", "min", "last"])
        if obj._ndim != 1:  # pandas' MultiIndex columns: (column, open / high / low / close)
            res.columns = [(c, names[f]) for c, f in res.columns]
            return self._spread(res, [None] * len(res.columns))
        res = res.rename(columns=names)
        return self._spread(res, [None] * 4)

    def aggregate(self, func=None, *args, **kwargs):
        """Aggregate each bin with ``func``: a name, a list of names (one
        column each) or a dict of column -> name(s), as GroupBy.agg; empty
        bins give 0 for sum, count, size and nunique, else missing.

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01", "2024-01-01", "2024-01-03"])
        >>> df = zb.DataFrame({"a": [1.0, 2.0, 3.0], "b": [4, 5, 6]}, index=t)
        >>> df.resample("D").agg({"a": "mean", "b": "sum"}).to_dict("list")
        {'a': [1.5, None, 3.0], 'b': [9, 0, 6]}
        """
        if args or kwargs:
            raise UnsupportedError("resample agg with extra arguments is not supported")
        fs = func.values() if isinstance(func, dict) else [func]
        fs = [f for x in fs for f in (x if isinstance(x, (list, tuple)) else [x])]
        # a function of the user's sees the bins that have rows only
        gb = self._grouped(dense=not any(callable(f) for f in fs))
        res = gb.agg(func)
        obj = self._values if self._sel is None else self._values[self._sel]
        ops = _agg_ops(func, obj, res)
        return self._spread(res, [_empty_fill(op) for op in ops])

    agg = aggregate

    def asfreq(self, fill_value=None):
        """The value at each bin edge's exact time (pandas' upsampling:
        the object reindexed onto the edges -- without the last edge,
        or the first when closed="right"), missing (or ``fill_value``)
        where no row has that time.  Needs a datetime index without
        repeated times.

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01 00:00", "2024-01-01 00:30", "2024-01-01 02:00"])
        >>> zb.Series([1.0, 2.0, 3.0], index=t).resample("h").asfreq().to_list()
        [1.0, None, 3.0]
        """
        if isinstance(self, GroupByResampler):
            raise UnsupportedError("groupby(...).resample(...).asfreq is not supported")
        from zambezi import _indexing

        if self._on is not None:
            raise InvalidValueError("resample asfreq: upsampling from on= is not supported (as "
                                    "pandas); use set_index(...) to make the times the index")
        obj = self._values if self._sel is None else self._values[self._sel]
        b = self._bins
        edges = b.edges
        target = edges[1:] if self._closed == "right" else edges[:-1]
        t = b.t_ns
        order = b.order if b.order is not None else np.arange(len(t), dtype=np.int64)
        ts = t[order]
        if len(ts) > 1 and (ts[1:] == ts[:-1]).any():
            raise InvalidValueError("resample asfreq: cannot reindex on an axis with duplicate "
                                    "labels (the index repeats a time)")
        pos = np.searchsorted(ts, target)
        hit = pos < len(ts)
        hit[hit] = ts[pos[hit]] == target[hit]
        rows = np.where(hit, order[np.minimum(pos, max(len(ts) - 1, 0))] if len(ts) else 0, -1)
        out = obj._select_rows(_indexing.take_rows(
            _core.column_from_buffer(rows.astype(np.int64), mask=~hit)))
        if not hit.all():
            hitcol = _core.column_from_buffer(hit)

            def fix(col):
                if fill_value is not None:  # the new rows only, as pandas' reindex
                    return _core.column_where(col, hitcol, _core.fill_null(col, fill_value))
                if col.null_count and col.dtype in _INTS:
                    return _core.cast(col, "float64")
                return col

            if out._ndim == 1:
                out = out._like(fix(out._col))
            else:
                tt = out._table
                out = out._like(_core.table_from_columns(
                    [fix(tt.column(i)) for i in range(tt.num_columns)], list(tt.names)))
        return out._with_index(self._index(target))


def _name(f):
    from zambezi._groupby import _op_name

    try:
        return _op_name(f)
    except Exception:
        return None


def _agg_ops(func, obj, res):
    """The op of each result column of agg(func), in order."""
    ncols = 1 if res._ndim == 1 else len(res._zb_columns)
    if isinstance(func, dict):
        ops = []
        for spec in func.values():
            ops += [_name(f) for f in spec] if isinstance(spec, (list, tuple)) else [_name(spec)]
        return ops if len(ops) == ncols else [None] * ncols
    if isinstance(func, (list, tuple)):
        per = [_name(f) for f in func]
        nval = 1 if obj._ndim == 1 else max(ncols // max(len(per), 1), 1)
        return per * nval if len(per) * nval == ncols else [None] * ncols
    return [_name(func)] * ncols


def _times_of(obj, on, level, what):
    """(engine timestamp column, its name) the bins are over."""
    if on is not None:
        if obj._ndim != 2:
            raise InvalidValueError(f"{what}: on= names a column of a DataFrame")
        t = obj._table
        if on not in t.names:
            raise InvalidValueError(f"{what}: on={on!r} is not a column; the columns are "
                                    f"{t.names!r}")
        return t.column(t.names.index(on)), on
    index = obj._index
    if level is not None:
        i = index._level_number(level)
        return index._levels()[i], index.names[i]
    if index.nlevels != 1:
        raise InvalidValueError(f"{what}: needs a datetime index of one level (or on=, level=)")
    return index._levels()[0], index.names[0]


def _numpy_bins(col, unit, tz, r, closed, label, origin, offset):
    """The bins of any rule and times in any order, with numpy (see
    _bins); the rows' time order when they are out of it."""
    raw = _convert.values_numpy(col).view(np.int64)
    t_ns = raw * _UNIT_NS[unit]
    valid = None
    if col.null_count:
        valid = np.asarray(_convert.values_numpy(_core.notnull(col)), dtype=bool)
    bins = _bins(t_ns, valid, tz, r, closed, label, origin, offset)
    bins.has_nat = valid is not None or bins.n_bins == 0
    bins.times_nat = valid is not None and bool(valid.any())
    bins.t_ns = t_ns if valid is None else np.where(valid, t_ns, np.iinfo(np.int64).min)
    tv = t_ns if valid is None else t_ns[valid]
    if len(tv) > 1 and not (tv[1:] >= tv[:-1]).all():
        key = t_ns if valid is None else np.where(valid, t_ns, np.iinfo(np.int64).max)
        bins.order = np.argsort(key, kind="stable")
    return bins


def _resample(obj, rule, on=None, level=None, closed=None, label=None, origin="start_day",
              offset=None, what="resample", axis=None, kind=None, convention=None):
    for nm, v in (("axis", axis), ("kind", kind), ("convention", convention)):
        if v is not None:
            raise UnsupportedError(f"{what}({nm}=...) is not supported")
    r = _parse_rule(rule)
    default = "right" if r.end_type or (isinstance(origin, str) and
                                        origin in ("end", "end_day")) else "left"
    closed = _check_side(closed, "closed", default)
    label = _check_side(label, "label", default)
    if isinstance(origin, str) and origin not in ("start_day", "start", "epoch", "end",
                                                  "end_day"):
        try:
            origin = _scalar_ns(origin, "origin")
            origin = np.datetime64(origin, "ns")
        except ValueError:
            raise InvalidValueError(
                f"{what}: origin must be 'start_day', 'start', 'epoch', 'end', 'end_day' or a "
                f"timestamp, not {origin!r}") from None
    col, tname = _times_of(obj, on, level, what)
    dt = col.dtype
    if not dt.startswith("timestamp"):
        raise DTypeError(f"{what}: the times must be datetimes (a DatetimeIndex or on= a "
                         f"datetime column), not {dt}")
    unit, tz = col.unit, col.timezone
    bins = _tick_bins_sorted(col, unit, tz, r, closed, label, origin, offset)
    if bins is None:
        bins = _numpy_bins(col, unit, tz, r, closed, label, origin, offset)
    values = obj
    if on is not None:
        values = obj.drop(columns=[on])
    return Resampler(obj, values, bins, tname, unit, tz, r, None, on, closed)


class Grouper:
    """A groupby key of time bins (``freq``) over column ``key`` (or the
    index, or index ``level``): ``df.groupby(zb.Grouper(key="t",
    freq="D"))`` is ``df.resample("D", on="t")``; with other keys the bin
    is one more key.  Accepts pandas' ``pd.Grouper`` too.

    Examples
    --------
    >>> df = zb.DataFrame({"t": pd.to_datetime(["2024-01-01", "2024-01-01", "2024-01-03"]),
    ...                    "v": [1, 2, 3]})
    >>> df.groupby(zb.Grouper(key="t", freq="D"))["v"].sum().to_list()
    [3, 0, 3]
    """

    def __init__(self, key=None, level=None, freq=None, closed=None, label=None,
                 origin="start_day", offset=None, sort=False, dropna=True):
        self.key, self.level, self.freq = key, level, freq
        self.closed, self.label, self.origin, self.offset = closed, label, origin, offset
        self.sort, self.dropna = sort, dropna

    def __repr__(self):
        return f"Grouper(key={self.key!r}, freq={self.freq!r})"


def is_grouper(k):
    """A zb.Grouper or a pandas Grouper."""
    return isinstance(k, Grouper) or (type(k).__name__ in ("Grouper", "TimeGrouper") and
                                      type(k).__module__.startswith("pandas"))


def _grouper_parts(g):
    """(key, level, freq, closed, label, origin, offset) of a zb or pandas
    Grouper."""
    freq = getattr(g, "freq", None)
    if freq is not None and not isinstance(freq, (str, datetime.timedelta, np.timedelta64)):
        freq = getattr(freq, "freqstr", freq)
    origin = getattr(g, "origin", "start_day")
    if not isinstance(origin, str) and hasattr(origin, "value"):
        origin = np.datetime64(int(origin.as_unit("ns").value), "ns")
    return (getattr(g, "key", None), getattr(g, "level", None), freq,
            getattr(g, "closed", None), getattr(g, "label", None), origin,
            getattr(g, "offset", None))


def grouper_resampler(obj, g):
    """groupby(Grouper) alone: a Resampler (a Grouper without freq is the
    plain key)."""
    key, level, freq, closed, label, origin, offset = _grouper_parts(g)
    if freq is None:
        return None
    return _resample(obj, freq, on=key, level=level, closed=closed, label=label, origin=origin,
                     offset=offset, what="groupby(Grouper)")


def grouper_key(obj, g):
    """A Grouper among other keys: (a Series of each row's bin label, its
    key column name to drop from the values or None)."""
    from zambezi import _base

    key, level, freq, closed, label, origin, offset = _grouper_parts(g)
    if freq is None:
        if key is None:
            raise UnsupportedError("groupby: a Grouper needs key= or freq=")
        return key, None
    r = _resample(obj, freq, on=key, level=level, closed=closed, label=label, origin=origin,
                  offset=offset, what="groupby(Grouper)")
    b = r._bins
    per = _UNIT_NS[r._unit]
    lab = np.where(b.row_bin >= 0, b.labels[np.maximum(b.row_bin, 0)] // per
                   if b.n_bins else 0, 0)
    col = _core.column_from_buffer(lab, mask=b.row_bin < 0, unit=r._unit,
                                   tz=r._tz)
    return _base.series_class()._from_column(col, r._tname, obj._index), key


class SeriesResample:
    """resample of zambezi.Series (a mixin)."""

    __slots__ = ()

    def resample(self, rule, closed=None, label=None, convention=None, on=None, level=None,
                 origin="start_day", offset=None, group_keys=False, *, axis=None, kind=None):
        """Time bins of ``rule`` over the datetime index (see Resampler and
        zambezi._resample's notes): ``closed`` / ``label`` "left" or
        "right"; ``origin`` and ``offset`` place fixed spans.

        Examples
        --------
        >>> t = pd.to_datetime(["2024-01-01 00:10", "2024-01-01 00:40", "2024-01-01 02:05"])
        >>> s = zb.Series([1.0, 2.0, 3.0], index=t)
        >>> s.resample("h").mean().to_list()
        [1.5, None, 3.0]
        >>> s.resample("30min", closed="right", label="right").sum().to_list()
        [1.0, 2.0, 0.0, 0.0, 3.0]
        """
        return _resample(self, rule, on, level, closed, label, origin, offset, "resample",
                         axis, kind, convention)


class FrameResample:
    """resample of zambezi.DataFrame (a mixin)."""

    __slots__ = ()

    def resample(self, rule, closed=None, label=None, convention=None, on=None, level=None,
                 origin="start_day", offset=None, group_keys=False, *, axis=None, kind=None):
        """Time bins of ``rule`` over the datetime index or column ``on``
        (which becomes the result's index); see Series.resample.

        Examples
        --------
        >>> df = zb.DataFrame({"t": pd.to_datetime(["2024-01-31", "2024-02-10", "2024-04-01"]),
        ...                    "v": [1, 2, 3]})
        >>> df.resample("ME", on="t").sum()
                                        v
                                    int64
        t
        2024-01-31 00:00:00.000000      1
        2024-02-29 00:00:00.000000      2
        2024-03-31 00:00:00.000000      0
        2024-04-30 00:00:00.000000      3
        <BLANKLINE>
        [4 rows x 1 columns]
        """
        return _resample(self, rule, on, level, closed, label, origin, offset, "resample",
                         axis, kind, convention)


# -- groupby(k).resample(rule) -----------------------------------------------------

class GroupByResampler(Resampler):
    """``groupby(keys).resample(rule)``: each group's rows in time bins,
    every bin from the group's own first bin to its last (empty ones
    included, as pandas), the result indexed by (keys..., time).  The
    aggregations are the Resampler's (sum, mean, min, max, count, first,
    last, median, std, var, nunique, ohlc, agg), run as one engine
    group-by over (group, bin): the grid of each group's bins is laid out
    with numpy from per-group bin ranges, never a loop over groups.

    Fixed steps whose grid depends on where a group starts (steps that do
    not divide a day, several days, ``offset=``, origin "start" / "end" /
    "end_day" / a timestamp) give each group its own grid, as pandas: the
    groups' first and last times come from one scatter-min / max, their
    bins from numpy arithmetic over all rows at once.  Zone-aware multi-day
    steps count calendar days in wall time from each group's first local
    midnight.

    Examples
    --------
    >>> t = pd.to_datetime(["2024-01-01 00:10", "2024-01-01 02:20", "2024-01-01 01:05"])
    >>> df = zb.DataFrame({"k": ["a", "a", "b"], "v": [1.0, 2.0, 3.0]}, index=t)
    >>> df.groupby("k").resample("h")["v"].sum().to_list()
    [1.0, 0.0, 2.0, 3.0]
    """

    __slots__ = ("_kcols", "_klabels")

    def _index(self, labels=None):
        from zambezi import index as _ix

        per = _UNIT_NS[self._unit]
        labels = (self._bins.labels if labels is None else labels) // per
        col = _core.column_from_buffer(labels, unit=self._unit, tz=self._tz)
        return _ix.Index._from_columns(list(self._kcols) + [col],
                                       list(self._klabels) + [self._tname])


def groupby_resample(gb, rule, on=None, level=None, closed=None, label=None,
                     origin="start_day", offset=None):
    """The GroupByResampler of GroupBy gb (see GroupByResampler)."""
    obj = gb._obj
    r = _resample(obj, rule, on=on, level=level, closed=closed, label=label, origin=origin,
                  offset=offset, what="groupby.resample")
    rl = r._rule
    # one grid for all groups when the rule's bins do not depend on where a
    # group starts: calendar rules, and steps dividing a day from midnight
    # or the epoch; else each group's own grid (_group_tick_bins)
    own_grid = rl.tick is not None and (_DAY % rl.tick != 0 or offset is not None or
                                        not (isinstance(origin, str) and
                                             origin in ("start_day", "epoch")))
    ids_col, n_groups = gb._ids()
    ids = np.asarray(_convert.values_numpy(ids_col), dtype=np.int64)
    mask = _convert.null_mask(ids_col)
    b = r._bins.row_bin
    ok = (b >= 0) & (ids >= 0)
    if mask is not None:
        ok &= ~mask
    g = ids[ok]
    if own_grid:
        bv, base, in_wall = _group_tick_bins(r._bins.t_ns[ok], g, n_groups, r._tz, rl,
                                             r._closed, origin, offset)
    else:
        bv = b[ok]
    big = np.iinfo(np.int64).max
    lo = np.full(n_groups, big, dtype=np.int64)
    hi = np.full(n_groups, -1, dtype=np.int64)
    first_row = np.full(n_groups, big, dtype=np.int64)
    np.minimum.at(lo, g, bv)
    np.maximum.at(hi, g, bv)
    np.minimum.at(first_row, g, np.flatnonzero(ok))
    counts = np.where(hi >= 0, hi - lo + 1, 0)
    starts = np.cumsum(counts) - counts
    total = int(counts.sum())
    grid_group = np.repeat(np.arange(n_groups, dtype=np.int64), counts)
    grid_bin = lo[grid_group] + np.arange(total, dtype=np.int64) - starts[grid_group]
    row_cell = np.full(len(b), -1, dtype=np.int64)
    row_cell[ok] = starts[g] + bv - lo[g]
    if not total:
        labels = np.empty(0, np.int64)
    elif own_grid:
        edge = base[grid_group] + grid_bin * rl.tick
        default = "right" if isinstance(origin, str) and origin in ("end", "end_day") \
            else "left"
        if _check_side(label, "label", default) == "right":
            edge += rl.tick
        labels = _wall_to_utc(_zone(r._tz), edge) if in_wall else edge
    else:
        labels = r._bins.labels[grid_bin]
    bins = _Bins(row_cell, labels)
    bins.order = r._bins.order
    bins.has_nat = bool((row_cell < 0).any()) or total == 0
    # the keys of each cell: each group's first row, repeated over its bins
    take = _core.column_from_buffer(np.ascontiguousarray(first_row[grid_group]))
    work = gb._k.work
    kcols = [_core.take(work.column(work.names.index(k)), take) for k in gb._k.keys]
    values = r._values
    drop = [k for k in gb._k.keys if values._ndim == 2 and k in values._table.names]
    if drop:
        values = values.drop(columns=drop)
    out = GroupByResampler(obj, values, bins, r._tname, r._unit, r._tz, rl, None, on,
                           r._closed)
    out._kcols, out._klabels = kcols, list(gb._k.labels)
    if gb._selection is not None and obj._ndim == 2:
        sel = gb._selection[0] if gb._single else list(gb._selection)
        out = out[sel]
        out._kcols, out._klabels = kcols, list(gb._k.labels)
    return out
