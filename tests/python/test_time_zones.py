"""Named time zones against pandas: tz_localize with every ambiguous and
nonexistent choice at spring-forward and fall-back changes, in northern
and southern zones, a 30-minute DST (Lord Howe), zones whose standard
offset changed in history (Moscow 2011/2014, Samoa skipping a day in
2011), nulls; fields, floor/ceil/round, strftime, date_range and
to_datetime in those zones; the errors for unknown zones and for times a
change skips or repeats."""

import datetime as dt
import zoneinfo

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import InvalidValueError

from pandas_compare import assert_series_like

ZONES = ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe",
         "Europe/Moscow", "Pacific/Apia", "America/Sao_Paulo"]

# wall times at and around each zone's changes (some skipped, some doubled)
WALL = pd.Series(pd.to_datetime([
    "2024-03-31 01:59:59", "2024-03-31 02:00:00", "2024-03-31 02:30:00", "2024-03-31 03:00:00",
    "2024-10-27 01:30:00", "2024-10-27 02:00:00", "2024-10-27 02:30:00", "2024-10-27 03:00:00",
    "2024-03-10 02:30:00", "2024-11-03 01:30:00", "2024-04-07 02:30:00", "2024-10-06 02:15:00",
    "2024-04-07 01:45:00", "2011-03-27 02:30:00", "2014-10-26 01:30:00", "2011-12-30 12:00:00",
    "2011-12-29 23:30:00", "2018-11-04 00:30:00", "2019-02-16 23:30:00", None,
    "1890-01-01 12:00:00", "2300-07-01 12:00:00", "2024-06-15 12:34:56.789"],
    format="ISO8601")).astype("datetime64[us]")


# (zone, shifted): the row of WALL in a gap pandas gets wrong, and the UTC
# instant the gap ends at
GAP_EDGES = {("Australia/Lord_Howe", True): (11, "2024-10-05 15:30"),  # 02:15 wall
             ("Pacific/Apia", True): (15, "2011-12-30 10:00")}  # 30 Dec 2011 never was


def _pandas_localize(tz, ambiguous, nonexistent):
    return WALL.dt.tz_localize(tz, ambiguous=ambiguous, nonexistent=nonexistent)


@pytest.mark.parametrize("tz", ZONES)
@pytest.mark.parametrize("ambiguous", ["NaT", True, False])
@pytest.mark.parametrize("nonexistent", ["NaT", "shift_forward", "shift_backward"])
def test_localize_choices(tz, ambiguous, nonexistent):
    exp = _pandas_localize(tz, ambiguous, nonexistent)
    got = zb.Series(WALL).dt.tz_localize(tz, ambiguous=ambiguous, nonexistent=nonexistent)
    if (tz, nonexistent.startswith("shift")) in GAP_EDGES:
        # pandas shifts by whole hours from the wall time, which misses gaps
        # that are not one whole hour (Lord Howe's 02:00-02:30, the day Samoa
        # skipped): zambezi gives the gap's real ends (a documented
        # difference), worked out by hand here
        row, utc = GAP_EDGES[tz, True]
        edge = pd.Timestamp(utc, tz="UTC").tz_convert(tz)
        want = edge if nonexistent == "shift_forward" else edge - pd.Timedelta(1, "us")
        assert got.to_pandas().iloc[row] == want
        exp = exp.copy()
        exp.iloc[row] = want
    assert_series_like(got, exp, tz)


@pytest.mark.parametrize("tz", ["Europe/Berlin", "Australia/Sydney"])
def test_localize_bool_array_and_raise(tz):
    rng = np.random.default_rng(3)
    flags = rng.random(len(WALL)) < 0.5
    exp = WALL.dt.tz_localize(tz, ambiguous=flags, nonexistent="NaT")
    got = zb.Series(WALL).dt.tz_localize(tz, ambiguous=flags, nonexistent="NaT")
    assert_series_like(got, exp)
    gap = zb.Series(pd.Series(pd.to_datetime(["2024-01-01 00:00", "2024-03-31 02:30"])))
    if tz == "Europe/Berlin":
        with pytest.raises(InvalidValueError, match="row 1: 2024-03-31 02:30:00 does not exist"):
            gap.dt.tz_localize(tz)
        with pytest.raises(ValueError):
            WALL.iloc[[6]].dt.tz_localize(tz)  # pandas raises too
        with pytest.raises(InvalidValueError, match="ambiguous"):
            zb.Series(WALL.iloc[[6]]).dt.tz_localize(tz)


@pytest.mark.parametrize("tz", ZONES)
def test_fields_rounding_strftime(tz):
    rng = np.random.default_rng(11)
    utc = pd.Series(rng.integers(-2 * 10**9, 4 * 10**9, 300) * 10**6 + rng.integers(0, 10**6, 300),
                    dtype="datetime64[us]")
    utc[rng.random(300) < 0.1] = pd.NaT
    p = utc.dt.tz_localize("UTC").dt.tz_convert(tz)
    z = zb.Series(p)
    for f in ("year", "month", "day", "hour", "minute", "second", "microsecond", "day_of_week",
                        "day_of_year", "quarter"):
        assert_series_like(getattr(z.dt, f), getattr(p.dt, f).astype("Int32"), f)
    for how in ("floor", "ceil", "round"):
        for freq in ("h", "15min", "D"):
            kw = dict(ambiguous="NaT", nonexistent="shift_forward")
            assert_series_like(getattr(z.dt, how)(freq, **kw), getattr(p.dt, how)(freq, **kw),
                               f"{how} {freq}")
    assert_series_like(z.dt.strftime("%Y-%m-%d %H:%M:%S %z"),
                       p.dt.strftime("%Y-%m-%d %H:%M:%S %z").astype("str"))
    assert_series_like(z.dt.tz_convert("America/Los_Angeles"),
                       p.dt.tz_convert("America/Los_Angeles"))
    assert_series_like(z.dt.tz_localize(None), p.dt.tz_localize(None))


@pytest.mark.parametrize("tz", ["Europe/Berlin", "America/New_York", "Australia/Sydney"])
@pytest.mark.parametrize("kw", [dict(start="2024-03-30", periods=5, freq="D"),
                                dict(start="2024-03-31 00:00", periods=6, freq="h"),
                                dict(start="2024-10-26", end="2024-10-29", freq="12h"),
                                dict(start="2024-01-15", periods=14, freq="MS"),
                                dict(start="2024-03-01", periods=10, freq="W"),
                                dict(start="2024-03-30", end="2024-04-02", periods=4)])
def test_date_range(tz, kw):
    got = zb.date_range(tz=tz, **kw).to_pandas()
    exp = pd.date_range(tz=tz, **kw)
    assert str(got.dtype) == str(exp.dtype)
    assert got.as_unit("us").asi8.tolist() == exp.as_unit("us").asi8.tolist()


def test_to_datetime_keeps_one_named_zone():
    berlin = zoneinfo.ZoneInfo("Europe/Berlin")
    vals = [dt.datetime(2024, 3, 31, 3, 30, tzinfo=berlin), None,
            dt.datetime(2024, 1, 1, 12, tzinfo=berlin)]
    got = zb.to_datetime(vals)
    exp = pd.to_datetime(vals)
    assert str(got.dtype) == "timestamp[us, tz=Europe/Berlin]" and str(exp.dtype).endswith(
        "Europe/Berlin]")
    assert got.to_pandas().asi8.tolist() == exp.as_unit("us").asi8.tolist()
    utc = zb.to_datetime(vals, utc=True).to_pandas()
    assert str(utc.dtype) == "datetime64[us, UTC]"
    assert utc.asi8.tolist() == pd.to_datetime(vals, utc=True).as_unit("us").asi8.tolist()


def test_unknown_zone():
    s = zb.Series(WALL)
    with pytest.raises(InvalidValueError, match="unknown time zone 'Mars/Olympus'"):
        s.dt.tz_localize("Mars/Olympus")
    with pytest.raises(InvalidValueError, match="unknown time zone"):
        s.dt.tz_localize("UTC").dt.tz_convert("../../etc/passwd")


def test_zone_from_tzdata_package(monkeypatch):
    # no system zoneinfo: the tzdata package's copy is read
    pytest.importorskip("tzdata")
    from zambezi import _tz

    monkeypatch.setattr(zoneinfo, "TZPATH", ())
    monkeypatch.setattr(_tz, "_cache", {})
    exp = WALL.dt.tz_localize("Asia/Kathmandu", ambiguous="NaT", nonexistent="NaT")
    got = zb.Series(WALL).dt.tz_localize("Asia/Kathmandu", ambiguous="NaT", nonexistent="NaT")
    assert_series_like(got, exp)
    assert "Asia/Kathmandu" in _tz._cache


def test_timestamp_scalars():
    # reductions and .iloc/.loc give pandas Timestamps, nanoseconds and zone kept
    p = pd.Series(pd.to_datetime(["2024-01-01 00:00:00.123456789", None, "2023-05-06 12:00",
                                  "2024-03-31 01:30"], format="ISO8601"))
    for s in (p, p.dt.tz_localize("Europe/Berlin")):
        z = zb.Series(s)
        for how in ("min", "max", "mean", "median"):
            got, exp = getattr(z, how)(), getattr(s, how)()
            assert isinstance(got, pd.Timestamp) and got == exp and str(got.tz) == str(exp.tz), how
            assert got.unit == exp.unit
        assert z.std() == s.std()
        assert z.iloc[0] == s.iloc[0] and isinstance(z.iloc[0], pd.Timestamp)
        assert z.loc[3] == s.loc[3] and str(z.loc[3].tz) == str(s.loc[3].tz)
        assert z.iloc[1] is pd.NaT and s.iloc[1] is pd.NaT
        assert z.max(skipna=False) is pd.NaT and s.max(skipna=False) is pd.NaT


def test_corrupt_zone_file_is_an_error(monkeypatch):
    from zambezi import _tz

    good = _tz.tzif("Europe/Berlin")
    bad = {"Bad/Cut": good[:200], "Bad/Magic": b"TZif\x07" + good[5:]}
    monkeypatch.setattr(_tz, "_cache", bad)
    s = zb.Series(WALL)
    with pytest.raises(ValueError, match="Bad/Cut.*truncated"):
        s.dt.tz_localize("Bad/Cut")
    with pytest.raises(ValueError, match="Bad/Magic"):
        s.dt.tz_localize("UTC").dt.tz_convert("Bad/Magic").dt.hour


@pytest.mark.parametrize("name", ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe"])
def test_from_pandas_dateutil_zone(name):
    # pandas accepts dateutil's zones; zambezi stores the zone's name, so the
    # wall-clock fields and the instants match pandas' own
    dateutil_tz = pytest.importorskip("dateutil.tz")
    z = dateutil_tz.gettz(name)
    if z is None:
        pytest.skip(f"no {name} zone file here")
    p = pd.DataFrame({"t": pd.date_range("2021-03-27", periods=40, freq="37min", tz=z)})
    p.loc[3, "t"] = pd.NaT
    d = zb.from_pandas(p)
    assert str(d["t"].dtype).endswith(f"tz={name}]")
    back = d.to_pandas()["t"]
    assert back.dt.tz_convert("UTC").equals(p["t"].dt.tz_convert("UTC"))
    assert d["t"].dt.hour.to_list()[4:] == p["t"].dt.hour.to_list()[4:]
