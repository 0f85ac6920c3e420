"""to_datetime, to_timedelta, date_range, timedelta_range and the dt methods
of timestamps and durations, against pandas on random data with nulls."""

import datetime as dt

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import InvalidValueError, UnsupportedError
from pandas_compare import assert_frame_like, assert_series_like


def rand_stamps(n, seed, nat=0.1, unit="us"):
    rng = np.random.default_rng(seed)
    v = rng.integers(-2 * 10**15, 4 * 10**15, n)  # us: 1906..2096
    if unit == "ns":
        v = v * 1000 + rng.integers(0, 1000, n)
    s = pd.Series(v.astype(f"datetime64[{unit}]"))
    s[rng.random(n) < nat] = pd.NaT
    return s


# -- to_datetime ---------------------------------------------------------------

@pytest.mark.parametrize("fmt", [None, "%Y-%m-%d %H:%M:%S", "%d/%m/%Y %H:%M", "%Y%m%d",
                                 "%d %b %Y", "%m/%d/%y %I:%M:%S %p", "%Y-%j"])
def test_to_datetime_formats(fmt):
    p = rand_stamps(300, 1)
    if fmt is None:
        text = p.dt.strftime("%Y-%m-%dT%H:%M:%S.%f")
        exp = pd.to_datetime(text, format="ISO8601")
    else:
        text = p.dt.strftime(fmt)
        exp = pd.to_datetime(text, format=fmt)
    got = zb.to_datetime(zb.Series(text), format=fmt)
    assert_series_like(got, exp)


def test_to_datetime_iso_variants_and_nanoseconds():
    text = pd.Series(["2024-03-09", "2024-03-10 14:05", "2024-03-10T14:05:30",
                      "2024-03-10 14:05:30.5", None, "NaT", "1999-12-31T23:59:59.123456789"])
    assert_series_like(zb.to_datetime(zb.Series(text)), pd.to_datetime(text, format="ISO8601"))
    offs = pd.Series(["2024-01-01T00:00:00+01:00", "2024-06-01 12:00:00+01:00", None])
    assert_series_like(zb.to_datetime(zb.Series(offs)), pd.to_datetime(offs, format="ISO8601"))
    mixed = pd.Series(["2024-01-01T00:00:00+01:00", "2024-06-01 12:00:00-05:30",
                       "2024-01-02T03:00Z"])
    assert_series_like(zb.to_datetime(zb.Series(mixed), utc=True),
                       pd.to_datetime(mixed, utc=True, format="ISO8601"))
    with pytest.raises(InvalidValueError, match="utc=True"):
        zb.to_datetime(zb.Series(mixed))
    naive = pd.Series(["2024-01-01 10:00", None])
    assert_series_like(zb.to_datetime(zb.Series(naive), utc=True),
                       pd.to_datetime(naive, utc=True))


def test_to_datetime_errors():
    text = pd.Series(["2024-02-29", "2023-02-29", "2024-13-01", "hello", None, "2024-01-01"])
    got = zb.to_datetime(zb.Series(text), errors="coerce")
    assert_series_like(got, pd.to_datetime(text, errors="coerce", format="ISO8601"))
    with pytest.raises(InvalidValueError, match=r"row 1: '2023-02-29'"):
        zb.to_datetime(zb.Series(text))
    with pytest.raises(InvalidValueError, match="row 0"):
        zb.to_datetime(zb.Series(["9/3/2024x"]), format="%d/%m/%Y")
    with pytest.raises(InvalidValueError, match="directive"):
        zb.to_datetime(zb.Series(["x"]), format="%Q")
    with pytest.raises(InvalidValueError, match="errors"):
        zb.to_datetime(zb.Series(["x"]), errors="ignore")


def test_to_datetime_guessed_formats():
    us = pd.Series(["03/09/2024", "12/31/2023", None])
    assert_series_like(zb.to_datetime(zb.Series(us)), pd.to_datetime(us))
    eu = pd.Series(["09/03/2024", "31/12/2023"])
    assert_series_like(zb.to_datetime(zb.Series(eu), dayfirst=True),
                       pd.to_datetime(eu, dayfirst=True))


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns", "D"])
def test_to_datetime_numbers(unit):
    rng = np.random.default_rng(2)
    scale = {"s": 10**9, "ms": 10**12, "us": 10**15, "ns": 10**18, "D": 10**4}[unit]
    ints = pd.Series(rng.integers(-scale, scale, 200), dtype="Int64")
    ints[::9] = None
    assert_series_like(zb.to_datetime(zb.Series(ints), unit=unit),
                       pd.to_datetime(ints, unit=unit))
    floats = pd.Series(rng.integers(-scale // 10, scale // 10, 200) / 8)
    floats[::7] = np.nan
    if unit != "ns":
        assert_series_like(zb.to_datetime(zb.Series(floats), unit=unit),
                           pd.to_datetime(floats, unit=unit))


def test_to_datetime_frame_and_shapes():
    pdf = pd.DataFrame({"year": [2024, 2023, 2000, 2024], "month": [2, 12, 1, 2],
                        "day": [29, 31, 1, 30], "hour": [1, 2, 3, 4]})
    got = zb.to_datetime(zb.DataFrame(pdf.iloc[:3]))
    assert_series_like(got, pd.to_datetime(pdf.iloc[:3]))
    assert_series_like(zb.to_datetime(zb.DataFrame(pdf), errors="coerce"),
                       pd.to_datetime(pdf, errors="coerce"))
    with pytest.raises(InvalidValueError, match="row 3"):
        zb.to_datetime(zb.DataFrame(pdf))
    idx = zb.to_datetime(["2024-01-01", "2024-01-02"])
    assert isinstance(idx, zb.Index) and idx.dtype == "timestamp[us]"
    assert zb.to_datetime("2024-03-09 10:00") == pd.Timestamp("2024-03-09 10:00")
    labelled = zb.Series(["2024-01-01", "2024-01-02"], index=["a", "b"], name="d")
    out = zb.to_datetime(labelled)
    assert out.name == "d" and list(out.index.to_pandas()) == ["a", "b"]


# -- to_timedelta -----------------------------------------------------------------

def test_to_timedelta_strings():
    text = pd.Series(["1 days 02:00:00", "1h30min", "-1 days +01:00:00", "00:00:01.5",
                      "2 days", "3us", "1.5h", "NaT", None, "-2h", "10s", "1 day, 01:00:00",
                      "100ms", "0.25D", "1W", "5 min 3 s"])
    assert_series_like(zb.to_timedelta(zb.Series(text)), pd.to_timedelta(text))
    ns = pd.Series(["1ns", "2 days"])
    assert_series_like(zb.to_timedelta(zb.Series(ns)), pd.to_timedelta(ns))
    bad = pd.Series(["1 day", "soon"])
    assert_series_like(zb.to_timedelta(zb.Series(bad), errors="coerce"),
                       pd.to_timedelta(bad, errors="coerce"))
    with pytest.raises(InvalidValueError, match="row 1: 'soon'"):
        zb.to_timedelta(zb.Series(bad))
    assert zb.to_timedelta("1h30min") == pd.Timedelta("1h30min")


@pytest.mark.parametrize("unit", ["D", "h", "m", "s", "ms", "us", "ns"])
def test_to_timedelta_numbers(unit):
    rng = np.random.default_rng(3)
    ints = pd.Series(rng.integers(-10**6, 10**6, 100))
    assert_series_like(zb.to_timedelta(zb.Series(ints), unit=unit),
                       pd.to_timedelta(ints, unit=unit))
    floats = pd.Series(rng.integers(-10**5, 10**5, 100) / 4)  # 10^5 days fit ns
    floats[::5] = np.nan
    assert_series_like(zb.to_timedelta(zb.Series(floats), unit=unit),
                       pd.to_timedelta(floats, unit=unit))


# -- date_range / timedelta_range ---------------------------------------------------

@pytest.mark.parametrize("kw", [
    dict(start="2024-01-01", periods=10),
    dict(start="2024-01-01", end="2024-01-03", freq="h"),
    dict(end="2024-03-01 12:00", periods=7, freq="15min"),
    dict(start="2024-01-03", end="2024-03-01", freq="W"),
    dict(start="2024-01-03", periods=5, freq="W-MON"),
    dict(start="2024-01-15", end="2024-12-31", freq="MS"),
    dict(start="2024-01-31", periods=6, freq="ME"),
    dict(start="2019-06-01", end="2025-01-01", freq="YS"),
    dict(start="2019-06-01", periods=3, freq="YE"),
    dict(end="2024-05-20", periods=4, freq="ME"),
    dict(start="2024-01-01", end="2024-01-02", periods=5),
    dict(start="2024-01-01", end="2024-01-05", inclusive="neither"),
    dict(start="2024-01-01", end="2024-01-05", inclusive="left"),
    dict(start="2024-01-01 10:00", periods=3, freq="2h", tz="UTC", name="t"),
    dict(start="2024-01-01 10:30", periods=3, freq="D", normalize=True),
])
def test_date_range(kw):
    got = zb.date_range(**kw)
    exp = pd.date_range(**kw)
    assert got.name == exp.name
    assert_series_like(zb.Series(got), pd.Series(exp))


def test_date_range_errors():
    # pandas' message for each wrong count of start / end / periods / freq
    three = "exactly three must be specified"
    for kw in (dict(start="2024-01-01"), dict(periods=3),
               dict(start="2024-01-01", end="2024-01-09", periods=3, freq="D")):
        with pytest.raises(ValueError, match=three):
            pd.date_range(**kw)
        with pytest.raises(InvalidValueError, match=three):
            zb.date_range(**kw)
    for m in (pd, zb):   # bdate_range needs a freq
        with pytest.raises(TypeError, match="freq must be specified for bdate_range"):
            m.bdate_range("2024-01-05", "2024-01-09", periods=3, freq=None)
    with pytest.raises(UnsupportedError):
        zb.date_range("2024-01-01", periods=2, freq="BME")   # business month ends
    with pytest.raises(InvalidValueError, match="unknown time zone"):
        zb.date_range("2024-01-01", periods=2, tz="Europe/Nowhere")


def test_timedelta_range():
    for kw in (dict(start="1 day", periods=4, freq="6h"), dict(start="0s", end="1h",
                                                                freq="20min"),
               dict(end="2 days", periods=3)):
        assert_series_like(zb.Series(zb.timedelta_range(**kw)), pd.Series(pd.timedelta_range(
            **kw)))


# -- dt methods ---------------------------------------------------------------------

@pytest.mark.parametrize("freq", ["h", "15min", "D", "s", "7s"])
def test_floor_ceil_round(freq):
    p = rand_stamps(400, 4, unit="ns")
    z = zb.Series(p)
    for how in ("floor", "ceil", "round"):
        assert_series_like(getattr(z.dt, how)(freq), getattr(p.dt, how)(freq), how)
    assert_series_like(z.dt.normalize(), p.dt.normalize())
    aware = p.dt.tz_localize("+05:30")
    za = zb.Series(aware)
    assert_series_like(za.dt.floor(freq), aware.dt.floor(freq))
    td = pd.Series(np.random.default_rng(5).integers(-10**14, 10**14, 100).astype("m8[ns]"))
    assert_series_like(zb.Series(td).dt.round(freq), td.dt.round(freq))


def test_round_half_to_even():
    p = pd.Series(pd.to_datetime(["2024-01-01 00:30", "2024-01-01 01:30", "2024-01-01 02:29"]))
    assert_series_like(zb.Series(p).dt.round("h"), p.dt.round("h"))


@pytest.mark.parametrize("fmt", ["%Y-%m-%d", "%d/%m/%y %H:%M:%S.%f", "%j %a %A %b %B",
                                 "%I:%M %p, %%Y"])
def test_strftime(fmt):
    p = rand_stamps(200, 6)
    assert_series_like(zb.Series(p).dt.strftime(fmt), p.dt.strftime(fmt))


@pytest.mark.parametrize("tz", [None, "UTC", "Europe/Paris"])
@pytest.mark.parametrize("fmt", ["%Y-%m-%d %H:%M:%S.%f %j %I%p", "%b %B %a %A", "%z", "x", ""])
def test_strftime_of_no_rows_is_an_empty_str_series(tz, fmt):
    p = pd.Series([], dtype="datetime64[us]", name="t")
    if tz is not None:
        p = p.dt.tz_localize(tz)
    assert_series_like(zb.Series(p).dt.strftime(fmt), p.dt.strftime(fmt), fmt)


def test_names_flags_and_dates():
    p = pd.Series(pd.date_range("2023-12-25", "2025-01-05", freq="D").astype("datetime64[us]"))
    p[::11] = pd.NaT
    z = zb.Series(p)
    assert_series_like(z.dt.day_name(), p.dt.day_name())
    assert_series_like(z.dt.month_name(), p.dt.month_name())
    for name in ("is_month_start", "is_month_end", "is_quarter_start", "is_quarter_end",
                 "is_year_start", "is_year_end", "is_leap_year"):
        assert_series_like(getattr(z.dt, name), getattr(p.dt, name), name)
    dim = z.dt.days_in_month.to_pandas()
    assert dim.isna().tolist() == p.isna().tolist()
    assert dim.dropna().astype(int).tolist() == p.dt.days_in_month.dropna().astype(int).tolist()
    dates = z.dt.date.to_list()
    assert dates == [None if x is pd.NaT else x for x in p.dt.date.tolist()]


def test_time_zones():
    p = rand_stamps(100, 7)
    z = zb.Series(p)
    for tz in ("UTC", "+02:00", "-05:30"):
        loc = p.dt.tz_localize(tz)
        assert_series_like(z.dt.tz_localize(tz), loc)
        assert_series_like(z.dt.tz_localize(tz).dt.tz_convert("UTC"), loc.dt.tz_convert("UTC"))
        assert_series_like(z.dt.tz_localize(tz).dt.tz_localize(None), loc.dt.tz_localize(None))
        assert_series_like(z.dt.tz_localize(tz).dt.hour, loc.dt.hour.astype("Int32"))
    for tz in ("Europe/Paris", "America/New_York", "Australia/Sydney"):
        kw = dict(ambiguous="NaT", nonexistent="shift_forward")
        loc = p.dt.tz_localize(tz, **kw)
        got = z.dt.tz_localize(tz, **kw)
        assert_series_like(got, loc)
        assert_series_like(got.dt.hour, loc.dt.hour.astype("Int32"))
        assert_series_like(got.dt.tz_convert("Asia/Kolkata"), loc.dt.tz_convert("Asia/Kolkata"))
    assert_series_like(z.dt.tz_localize("UTC").dt.tz_convert("Europe/Paris"),
                       p.dt.tz_localize("UTC").dt.tz_convert("Europe/Paris"))


@pytest.mark.parametrize("nat", [0.0, 0.2])
def test_duration_parts(nat):
    rng = np.random.default_rng(8)
    p = pd.Series(rng.integers(-10**15, 10**15, 300).astype("timedelta64[ns]"))
    p[rng.random(300) < nat] = pd.NaT
    z = zb.Series(p)
    for name in ("days", "seconds", "microseconds", "nanoseconds"):
        assert_series_like(getattr(z.dt, name), getattr(p.dt, name), name)
    assert_series_like(z.dt.total_seconds(), p.dt.total_seconds())
    assert_frame_like(z.dt.components, p.dt.components)


def test_repr_of_aware_timestamps_shows_the_zones_wall_clock():
    # the zone's wall time and its UTC offset, as pandas shows them (the
    # UTC wall time had been shown beside the zone's name)
    p = pd.Series(pd.to_datetime(["2020-07-01 05:00:00", None, "2020-12-01 05:00:30"])
                  ).dt.tz_localize("Europe/Berlin")
    lines = repr(zb.Series(p)).splitlines()
    assert repr(p).splitlines()[0].split()[1:] == ["2020-07-01", "05:00:00+02:00"]
    assert lines[0].split()[1:] == ["2020-07-01", "05:00:00.000000+02:00"]
    assert lines[1].split()[1:] == ["NaT"]
    assert lines[2].split()[1:] == ["2020-12-01", "05:00:30.000000+01:00"]
    z = zb.Series(pd.Series(pd.to_datetime(["2020-01-01 05:00"])).dt.tz_localize("Asia/Kolkata"))
    assert repr(z).splitlines()[0].split()[1:] == ["2020-01-01", "05:00:00.000000+05:30"]


@pytest.mark.parametrize("origin, unit", [
    ("2020-01-01", "D"), ("2020-01-01 12:00", "D"), (pd.Timestamp("1960-01-01"), "s"),
    (dt.datetime(2001, 2, 3, 4, 5), "h"), (5, "D"), (pd.Timestamp("2020-01-01 00:00:00.000000001"),
                                                      "ms"), ("julian", "D"), ("2020-01-01", None)])
def test_to_datetime_origin_like_pandas(origin, unit):
    """Numbers counted from origin: pandas 3 adds them as durations to the
    origin (its time of day kept, the finer resolution); 'julian' is Julian
    days."""
    rng = np.random.default_rng(3)
    ints = pd.Series(rng.integers(-1000, 1000, 50) + (2451545 if origin == "julian" else 0))
    floats = pd.Series(rng.normal(size=50) * 100 + (2451545 if origin == "julian" else 0))
    floats[rng.random(50) < 0.2] = np.nan
    for s in (ints, floats):
        want = pd.to_datetime(s, unit=unit, origin=origin)
        got = zb.to_datetime(zb.from_pandas(s), unit=unit, origin=origin).to_pandas()
        pd.testing.assert_series_equal(got, want)
    assert zb.to_datetime(3, unit="D", origin="2020-01-01") == pd.Timestamp("2020-01-04")


def test_to_datetime_origin_errors_like_pandas():
    s = zb.Series([1, 2])
    for kw, match in ((dict(unit="s", origin="julian"), "unit must be 'D'"),
                      (dict(unit="D", origin="2020-01-01 00:00+01:00"), "must be tz-naive"),
                      (dict(unit="D", origin="nonsense"), "cannot be converted to a Timestamp"),
                      (dict(unit="ns", origin="2200-01-01"), "without overflow")):
        with pytest.raises(ValueError, match=match):
            pd.to_datetime(pd.Series([1, 2] if "2200" not in kw["origin"] else [2**62]), **kw)
        with pytest.raises(ValueError, match=match):
            zb.to_datetime(s if "2200" not in kw["origin"] else zb.Series([2**62]), **kw)
    with pytest.raises(ValueError, match="must be numeric"):
        zb.to_datetime(zb.Series(["2020"]), origin="2020-01-01")
    got = zb.to_datetime(zb.Series([2**62, 1]), unit="ns", origin="2200-01-01", errors="coerce")
    assert got.to_pandas().equals(pd.to_datetime(pd.Series([2**62, 1]), unit="ns",
                                                 origin="2200-01-01", errors="coerce"))
