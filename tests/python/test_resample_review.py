"""Resample results as pandas gives them (zambezi._resample): ohlc of a
DataFrame under pandas' MultiIndex columns, integer and bool columns with
missing values (pandas' masked Int64 / boolean) keeping their dtype with
NA in empty bins for min / max / first / last / ohlc (numpy ones turning
float64), and the result's index carrying pandas' freq."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import assert_frame_like, assert_series_like


def frame(n, seed, tz=None):
    rng = np.random.default_rng(seed)
    t = pd.Timestamp("2024-01-30 22:00") + pd.to_timedelta(
        np.sort(rng.integers(0, 40 * 24 * 60, n)), "min")
    t = pd.DatetimeIndex(t)
    if tz:
        t = t.tz_localize(tz)
    # a gap of empty bins in the middle
    keep = (t < t[0] + pd.Timedelta("5D")) | (t > t[0] + pd.Timedelta("12D"))
    t = t[keep]
    m = len(t)
    ints = pd.arrays.IntegerArray(rng.integers(-100, 100, m), rng.random(m) < 0.2)
    bools = pd.arrays.BooleanArray(rng.random(m) < 0.5, rng.random(m) < 0.2)
    return pd.DataFrame({"f": rng.standard_normal(m), "i": ints, "n": rng.integers(0, 9, m),
                         "b": bools}, index=t)


RULES = ["h", "6h", "D", "2D", "W", "ME"]


@pytest.mark.parametrize("rule", RULES)
def test_resample_frame_ohlc_and_masked_dtypes_vs_pandas(rule):
    pdf = frame(3000, len(rule))
    zdf = zb.DataFrame(pdf)
    r, zr = pdf.resample(rule), zdf.resample(rule)
    assert_frame_like(zr.ohlc(), r.ohlc(), f"{rule} ohlc")
    for op in ("min", "max", "first", "last"):
        assert_frame_like(getattr(zr, op)(), getattr(r, op)(), f"{rule} {op}")
    assert_frame_like(zr.mean(), r.mean(), f"{rule} mean", rtol=1e-9)
    assert_series_like(zr["i"].max(), r["i"].max(), f"{rule} Series max")
    assert_frame_like(zr.agg(["min", "last"]), r.agg(["min", "last"]), f"{rule} agg")
    num = ["f", "i", "n"]
    for ddof in (0, 1):
        assert_frame_like(zdf[num].resample(rule).sem(ddof=ddof),
                          pdf[num].resample(rule).sem(ddof=ddof), f"{rule} sem", rtol=1e-9)
    assert_frame_like(zdf[num].resample(rule).agg(["skew", "sem"]),
                      pdf[num].resample(rule).agg(["skew", "sem"]), f"{rule} agg moments",
                      rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("rule", RULES + ["15min", "3D", "MS", "QE", "YS"])
@pytest.mark.parametrize("tz", [None, "UTC"])
def test_resample_index_freq_vs_pandas(rule, tz):
    pdf = frame(500, 3, tz)
    exp = pdf.resample(rule).sum().index
    got = zb.DataFrame(pdf).resample(rule).sum()
    assert got.to_pandas().index.freq == exp.freq, rule
    assert got["f"].to_pandas().index.freq == exp.freq, rule
    assert got.index.freq == rule


@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "first", "last", "mean", "median",
                                "std", "var"])
def test_numeric_only_and_min_count_like_pandas(op):
    """numeric_only=True leaves a string column out, without it a numeric
    aggregation raises TypeError as pandas 3 (sum joins strings, '' for an
    empty bin); min_count makes a bin with fewer values missing."""
    t = pd.to_datetime(["2020-01-01 00:10", "2020-01-01 00:20", "2020-01-01 02:00",
                        "2020-01-01 02:30", "2020-01-01 05:00"])
    df = pd.DataFrame({"x": [1.0, np.nan, 3, 4, 5], "n": [1, 2, 3, 4, 5], "s": list("abcde")},
                      index=t)
    z = zb.from_pandas(df)
    kws = [{}, {"numeric_only": True}]
    if op in ("sum", "prod", "min", "max", "first", "last"):
        kws += [{"min_count": 1}, {"min_count": 2, "numeric_only": True}]
    for kw in kws:
        try:
            want = getattr(df.resample("h"), op)(**kw)
        except TypeError:
            with pytest.raises(TypeError):
                getattr(z.resample("h"), op)(**kw)
            continue
        got = getattr(z.resample("h"), op)(**kw)
        pd.testing.assert_frame_equal(got.to_pandas(), want, check_dtype=False,
                                      check_freq=False, obj=f"{op} {kw}")
