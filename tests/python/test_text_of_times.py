"""Text and calendars against pandas run side by side: astype(str) of
timestamps (dates only, seconds, 3 / 6 / 9 fraction digits, zones, NaT)
and dates, dt.isocalendar over 30 years of days, str.slice_replace
(every kind of span, negative and past the end), and replace(regex=True)
of Series and frames (blank strings to missing, groups, dicts, lists,
the regex= keyword)."""

import datetime
import functools

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from side_by_side import same
from zambezi.errors import UnsupportedError


_same = functools.partial(same, check_dtype=False)


def _days(seed, n=2000):
    rng = np.random.default_rng(seed)
    s = pd.Series(pd.to_datetime("1995-12-01") + pd.to_timedelta(
        rng.integers(0, 365 * 35, n), unit="D"))
    s[rng.random(n) < 0.05] = pd.NaT
    return s


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("step", [None, "3h", "1500ms", "7us", "5ns"])
def test_astype_str_of_times_like_pandas(seed, step):
    s = _days(seed, 300)
    if step is not None:
        s = (s + pd.Timedelta(step)).astype("datetime64[ns]" if step == "5ns" else s.dtype)
    z = zb.from_pandas(s)
    _same(z.astype(str), s.astype(str))
    _same(z.astype("string"), s.astype("string").astype(str).where(s.notna()))
    for tz in ("UTC", "Europe/Paris", "+05:30"):
        zoned = s.dt.tz_localize(tz)
        _same(zb.from_pandas(zoned).astype(str), zoned.astype(str))
    idx = pd.DatetimeIndex(s.dropna())
    assert zb.from_pandas(pd.Series(0, index=idx)).index.astype(str).to_list() == \
        idx.astype(str).to_list()


def test_astype_str_of_dates():
    dates = [datetime.date(2024, 3, 9), None, datetime.date(1999, 12, 31)]
    got = zb.Series(dates).astype(str).to_list()
    assert got == ["2024-03-09", None, "1999-12-31"]   # pandas: str(date); None stays missing


@pytest.mark.parametrize("seed", range(3))
def test_isocalendar_like_pandas(seed):
    s = _days(seed)
    _same(zb.from_pandas(s).dt.isocalendar(), s.dt.isocalendar())
    zoned = (s + pd.Timedelta("23h")).dt.tz_localize("UTC").dt.tz_convert("Asia/Tokyo")
    _same(zb.from_pandas(zoned).dt.isocalendar(), zoned.dt.isocalendar())


SPANS = [(1, 3), (None, 2), (2, None), (3, 1), (-2, None), (4, 5), (10, 12), (-3, -1),
         (None, None), (0, 0), (-10, 2)]


@pytest.mark.parametrize("span", SPANS)
def test_slice_replace_like_pandas(span):
    s = pd.Series(["abcdef", "xy", "", None, "a", "héllo wörld"])
    for repl in ("Q", "", None, "«»"):
        _same(zb.from_pandas(s).str.slice_replace(span[0], span[1], repl),
              s.str.slice_replace(span[0], span[1], repl))


def _texts(seed):
    rng = np.random.default_rng(seed)
    n = 60
    words = np.array(["x1", " ", "", "y22", "abc", "  pad ", "b7b", "Zz"], dtype=object)
    df = pd.DataFrame({"s": rng.choice(words, n), "n": rng.integers(0, 9, n),
                       "u": rng.choice(words, n)})
    df.loc[rng.random(n) < 0.1, "s"] = None
    return df


@pytest.mark.parametrize("seed", range(3))
def test_replace_regex_like_pandas(seed):
    df = _texts(seed)
    z = zb.from_pandas(df)
    calls = [
        lambda d: d.replace(r"^\s*$", np.nan, regex=True),
        lambda d: d.replace(r"^\s*$", None, regex=True),
        lambda d: d.replace(r"(\w)(\d+)", r"\2-\1", regex=True),
        lambda d: d.replace({r"\d": "#", "a": "A"}, regex=True),
        lambda d: d.replace([r"^x", r"b$"], ["X", "B"], regex=True),
        lambda d: d.replace([r"^x", r"b$"], "_", regex=True),
        lambda d: d.replace(regex=r"^\s", value="_"),
        lambda d: d.replace(regex={r"z": "Z"}),
    ]
    for call in calls:
        _same(call(z), call(df))
        _same(call(z["s"]), call(df["s"]))
    _same(z["n"].replace(r"\d", "x", regex=True), df["n"].replace(r"\d", "x", regex=True))
    with pytest.raises(UnsupportedError):
        z["s"].replace(r"\d", 5, regex=True)


def test_replace_regex_of_categoricals_is_refused():
    s = zb.Series(["a1", "b2"], dtype="category")
    with pytest.raises(UnsupportedError):
        s.replace(r"\d", "", regex=True)
