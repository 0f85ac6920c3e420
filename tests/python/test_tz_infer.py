"""tz_localize(ambiguous="infer") against pandas: fall-back sequences in
northern and southern zones and a 30-minute DST, several fall-backs in one
column, nulls, units, and the sequences pandas cannot infer (one ambiguous
time, times that never repeat, a run that falls back twice), which must
raise as pandas raises."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import InvalidValueError

from pandas_compare import assert_series_like


def _wall(times, unit="us"):
    return pd.Series(pd.to_datetime(times, format="ISO8601")).astype(f"datetime64[{unit}]")


BERLIN_FALL = ["2024-10-27 00:30", "2024-10-27 01:30", "2024-10-27 02:00", "2024-10-27 02:30",
               "2024-10-27 02:00", "2024-10-27 02:30", "2024-10-27 03:00"]
# (zone, wall times): each can be inferred
GOOD = [
    ("Europe/Berlin", BERLIN_FALL),
    ("Europe/Berlin", ["2024-10-27 02:30", "2024-10-27 02:30"]),  # the same time twice
    ("Europe/Berlin", ["2024-10-27 02:59:59", "2024-10-27 02:00:00"]),  # back at once
    # two years' fall-backs with plain rows between them, and nulls
    ("Europe/Berlin", ["2023-10-29 02:15", "2023-10-29 02:45", "2023-10-29 02:15", None,
                       "2023-10-29 04:00", "2024-10-27 02:10", "2024-10-27 02:10", None,
                       "2024-03-31 03:30"]),
    ("America/New_York", ["2024-11-03 00:59", "2024-11-03 01:00", "2024-11-03 01:59",
                          "2024-11-03 01:00", "2024-11-03 01:59", "2024-11-03 02:00"]),
    ("Australia/Sydney", ["2024-04-07 01:30", "2024-04-07 02:15", "2024-04-07 02:45",
                          "2024-04-07 02:15", "2024-04-07 03:00"]),
    ("Australia/Lord_Howe", ["2024-04-07 01:40", "2024-04-07 01:50", "2024-04-07 01:40",
                             "2024-04-07 01:55"]),
    ("Europe/Berlin", ["2024-06-01 12:00", None]),  # nothing ambiguous
]
# pandas cannot infer these: it raises, and so must zambezi
BAD = [
    ("Europe/Berlin", ["2024-10-27 02:30"]),  # one ambiguous time, no repeat
    ("Europe/Berlin", ["2024-10-27 01:00", "2024-10-27 02:30", "2024-10-27 04:00"]),
    ("Europe/Berlin", ["2024-10-27 02:00", "2024-10-27 02:30", "2024-10-27 02:45"]),  # rising
    ("Europe/Berlin", ["2024-10-27 02:00", "2024-10-27 02:00", "2024-10-27 01:00",
                       "2024-10-27 02:30"]),  # a run of one after a good run
    ("Europe/Berlin", ["2024-10-27 02:30", "2024-10-27 02:00", "2024-10-27 02:30",
                       "2024-10-27 02:00"]),  # falls back twice
    ("Europe/Berlin", ["2023-10-29 02:30", "2023-10-29 02:30", "2024-10-27 02:30",
                       "2024-10-27 02:30"]),  # two years' runs adjacent: two fall-backs
    ("America/New_York", ["2024-11-03 01:30", None, "2024-11-03 01:30"]),  # a null splits
]


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
@pytest.mark.parametrize("tz,times", GOOD)
def test_infer_like_pandas(tz, times, unit):
    wall = _wall(times, unit)
    exp = wall.dt.tz_localize(tz, ambiguous="infer")
    got = zb.Series(wall).dt.tz_localize(tz, ambiguous="infer")
    assert_series_like(got, exp, f"{tz} {times}")


@pytest.mark.parametrize("tz,times", BAD)
def test_infer_raises_where_pandas_does(tz, times):
    wall = _wall(times)
    with pytest.raises(ValueError):
        wall.dt.tz_localize(tz, ambiguous="infer")
    with pytest.raises(InvalidValueError, match=r"row \d+: cannot infer DST"):
        zb.Series(wall).dt.tz_localize(tz, ambiguous="infer")


def test_infer_error_names_the_first_row_of_the_run():
    wall = _wall(["2024-06-01 00:00", "2024-10-27 02:30", "2024-10-27 02:40"])
    with pytest.raises(InvalidValueError, match=r"row 1: cannot infer DST for 2024-10-27 "
                                                r"02:30:00 in time zone 'Europe/Berlin'"):
        zb.Series(wall).dt.tz_localize("Europe/Berlin", ambiguous="infer")
    with pytest.raises(InvalidValueError, match="the only ambiguous time"):
        zb.Series(wall.iloc[:2]).dt.tz_localize("Europe/Berlin", ambiguous="infer")


def test_infer_with_gaps():
    # spring-forward gaps follow `nonexistent`, as with any other choice
    wall = _wall(BERLIN_FALL + ["2024-03-31 02:30"])
    for nonexistent in ("NaT", "shift_forward"):
        exp = wall.dt.tz_localize("Europe/Berlin", ambiguous="infer", nonexistent=nonexistent)
        got = zb.Series(wall).dt.tz_localize("Europe/Berlin", ambiguous="infer",
                                             nonexistent=nonexistent)
        assert_series_like(got, exp)
    with pytest.raises(InvalidValueError, match="does not exist"):
        zb.Series(wall).dt.tz_localize("Europe/Berlin", ambiguous="infer")


def test_infer_quarter_hours_over_years():
    # a regular 15-minute series, as a logger writes it in local time: every
    # fall-back repeats its hour, so each year's run is inferred; rows span
    # many morsels of the engine
    utc = pd.date_range("2019-01-01", "2025-01-01", freq="15min", tz="UTC")
    wall = pd.Series(utc.tz_convert("Europe/Berlin").tz_localize(None))
    exp = wall.dt.tz_localize("Europe/Berlin", ambiguous="infer")
    got = zb.Series(wall).dt.tz_localize("Europe/Berlin", ambiguous="infer")
    assert_series_like(got, exp)
    assert (got.to_pandas().dt.tz_convert("UTC").to_numpy() == utc.to_numpy()).all()


def test_infer_on_a_datetime_index_frame():
    wall = _wall(BERLIN_FALL)
    pdf = pd.DataFrame({"t": wall, "v": np.arange(len(wall))})
    got = zb.DataFrame(pdf)["t"].dt.tz_localize("Europe/Berlin", ambiguous="infer")
    assert_series_like(got, pdf["t"].dt.tz_localize("Europe/Berlin", ambiguous="infer"))
