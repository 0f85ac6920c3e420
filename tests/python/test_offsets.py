"""Timestamps moved by pandas' calendar offsets (zambezi._offsets) against
pandas run side by side: DateOffset with months / years (the day clipped
to the month, leap years), with fixed parts, negative and reflected;
MonthEnd / MonthBegin of every n (the roll convention on and off month
ends); QuarterEnd / QuarterBegin (startingMonth), YearEnd / YearBegin
(month), Week (with and without a weekday), BusinessDay (with its
offset), Day and the fixed steps Hour ... Nano of every sign (the unit
the first finer one that holds the step); units s to ns, UTC and a fixed offset, NaT, the
name kept; named zones and absolute parts refused.  Business-day ranges
(date_range freq="B", bdate_range) against pandas' too."""

import datetime

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import UnsupportedError


def _stamps(seed, unit="us"):
    rng = np.random.default_rng(seed)
    n = 400
    days = rng.integers(-20000, 25000, n)
    days[:40] = np.array(["2024-01-31", "2024-02-29", "2023-02-28", "2000-02-29", "1999-12-31",
                          "2024-12-31", "2024-03-01", "2024-04-30"] * 5,
                         dtype="datetime64[D]").astype(np.int64)
    secs = rng.integers(0, 86400, n) * (seed % 2)
    values = days.astype("datetime64[D]").astype("datetime64[s]") + secs
    s = pd.Series(values.astype(f"datetime64[{unit}]"), name="when")
    s[rng.random(n) < 0.05] = pd.NaT
    return s


OFFSETS = [pd.DateOffset(months=1), pd.DateOffset(months=-1), pd.DateOffset(years=1),
           pd.DateOffset(months=13, days=2), pd.DateOffset(years=-2, months=5, hours=7),
           pd.DateOffset(weeks=1, minutes=3), pd.DateOffset(months=3, n=2),
           pd.offsets.MonthEnd(0), pd.offsets.MonthEnd(1), pd.offsets.MonthEnd(-2),
           pd.offsets.MonthEnd(3), pd.offsets.MonthBegin(0), pd.offsets.MonthBegin(1),
           pd.offsets.MonthBegin(-1)]
_O = pd.offsets
OFFSETS += [o for n in (-5, -1, 0, 1, 2) for o in (
    _O.QuarterEnd(n), _O.QuarterEnd(n, startingMonth=1), _O.QuarterBegin(n),
    _O.QuarterBegin(n, startingMonth=2), _O.YearEnd(n), _O.YearEnd(n, month=6),
    _O.YearBegin(n), _O.YearBegin(n, month=3), _O.Week(n), _O.Week(n, weekday=0),
    _O.Week(n, weekday=6), _O.BDay(n),
    _O.BusinessDay(n, offset=datetime.timedelta(hours=2, seconds=3)))]
# fixed steps; the unit becomes the first finer one that holds the step
OFFSETS += [_O.Day(2), _O.Day(-1), _O.Day(0), _O.Hour(0), _O.Hour(3), _O.Minute(-90),
            _O.Second(7), _O.Milli(3), _O.Micro(-5), _O.Nano(9), pd.DateOffset(milliseconds=3),
            _O.BusinessDay(1, offset=datetime.timedelta(seconds=1.5))]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("offset", OFFSETS, ids=repr)
def test_offsets_like_pandas(seed, offset):
    s = _stamps(seed, ["s", "ms", "us", "ns"][seed])
    z = zb.from_pandas(s)
    pd.testing.assert_series_equal((z + offset).to_pandas(), s + offset)
    pd.testing.assert_series_equal((z - offset).to_pandas(), s - offset)
    pd.testing.assert_series_equal((offset + z).to_pandas(), offset + s)


@pytest.mark.parametrize("tz", ["UTC", "+05:30"])
def test_offsets_of_zoned_times_like_pandas(tz):
    s = _stamps(1).dt.tz_localize(tz)
    z = zb.from_pandas(s)
    for offset in (pd.DateOffset(months=1), pd.offsets.MonthEnd(1), pd.DateOffset(days=1),
                   pd.offsets.BDay(2), pd.offsets.BDay(-3), pd.offsets.Week(weekday=2),
                   pd.offsets.QuarterEnd(1), pd.offsets.Day(1), pd.offsets.Hour(5)):
        pd.testing.assert_series_equal((z + offset).to_pandas(), s + offset)


def test_offsets_refused():
    z = zb.from_pandas(_stamps(0).dt.tz_localize("Europe/Paris", nonexistent="NaT",
                                                 ambiguous="NaT"))
    with pytest.raises(UnsupportedError, match="named zone"):
        z + pd.DateOffset(months=1)
    with pytest.raises(UnsupportedError, match="absolute"):
        zb.from_pandas(_stamps(0)) + pd.DateOffset(month=1)
    with pytest.raises(UnsupportedError):
        zb.from_pandas(_stamps(0)) + pd.offsets.MonthEnd(1, normalize=True)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_business_day_ranges_like_pandas(k):
    starts = [f"2024-01-{d:02d} {t}" for d in range(1, 15) for t in ("00:00", "10:30")]
    ends = ["2024-01-20 10:00", "2024-01-20 09:00", "2024-01-06", "2024-02-03 23:00"]
    for start in starts:
        for end in ends:
            for kw in (dict(start=start, periods=7), dict(start=start, end=end),
                       dict(end=end, periods=5), dict(start=start, end=end, inclusive="neither")):
                want = pd.date_range(freq=f"{k}B", **kw)
                got = zb.date_range(freq=f"{k}B", **kw).to_pandas()
                np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        want = pd.bdate_range(start, periods=4, freq=f"{k}B")
        got = zb.bdate_range(start, periods=4, freq=f"{k}B").to_pandas()
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    with pytest.raises(UnsupportedError):
        zb.bdate_range("2024-01-01", periods=3, holidays=["2024-01-02"])
