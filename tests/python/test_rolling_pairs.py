"""Rolling / expanding sem, cov and corr (zambezi._rolling_pairs) and
DataFrame skew / kurt over rows (axis=1, zambezi._moments) against pandas
run side by side: random data with nulls and NaN on either side, integer
and bool columns, window sizes 1, 2, w > n and w = n, min_periods,
center, time-based windows, constant windows (corr missing), a frame with
a Series and a frame with a frame (pairwise=False), labelled indexes."""

import zlib

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import assert_frame_like, assert_series_like
from zambezi.errors import UnsupportedError

TOL = {"rtol": 1e-7, "atol": 1e-9}


def data(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n) * 5 + 2
    y = 0.5 * x + rng.standard_normal(n)
    x[rng.random(n) < 0.1] = np.nan
    y[rng.random(n) < 0.1] = np.nan
    x[n // 3: n // 3 + 6] = 4.0   # a constant stretch: corr is missing there
    idx = pd.RangeIndex(10, 10 + 2 * n, 2)
    return pd.Series(x, index=idx, name="x"), pd.Series(y, index=idx, name="y")


@pytest.mark.parametrize("n", [0, 1, 7, 300, 70000])
@pytest.mark.parametrize("window,min_periods,center", [
    (1, None, False), (2, None, False), (5, 3, True), (20, None, False), (400, 2, False)])
def test_rolling_cov_corr_sem_vs_pandas(n, window, min_periods, center):
    x, y = data(n, zlib.crc32(f"pairs/{n}/{window}".encode()))
    zx, zy = zb.Series(x), zb.Series(y)
    rp = x.rolling(window, min_periods=min_periods, center=center)
    rz = zx.rolling(window, min_periods=min_periods, center=center)
    what = f"n={n} window={window}"
    assert_series_like(rz.cov(zy), rp.cov(y), f"cov {what}", **TOL)
    assert_series_like(rz.cov(zy, ddof=0), rp.cov(y, ddof=0), f"cov ddof=0 {what}", **TOL)
    assert_series_like(rz.corr(zy), rp.corr(y), f"corr {what}", **TOL)
    assert_series_like(rz.sem(), rp.sem(), f"sem {what}", **TOL)
    assert_series_like(rz.sem(ddof=0), rp.sem(ddof=0), f"sem ddof=0 {what}", **TOL)
    assert_series_like(zx.expanding(min_periods=2).corr(zy),
                       x.expanding(min_periods=2).corr(y), f"expanding corr {what}", **TOL)
    assert_series_like(zx.expanding().sem(), x.expanding().sem(), f"expanding sem {what}",
                       **TOL)


def test_rolling_pairs_frames_and_types_vs_pandas():
    x, y = data(500, 7)
    pdf = pd.DataFrame({"a": x, "b": y, "i": np.arange(500) % 7, "t": np.arange(500) % 3 == 0})
    zdf = zb.DataFrame(pdf)
    assert_frame_like(zdf.rolling(10).cov(zb.Series(y)), pdf.rolling(10).cov(y), "frame cov",
                      **TOL)
    other = pdf * 2 + 1
    assert_frame_like(zdf.rolling(10).corr(zb.DataFrame(other), pairwise=False),
                      pdf.rolling(10).corr(other, pairwise=False), "frame corr", **TOL)
    assert_frame_like(zdf.rolling(6).sem(), pdf.rolling(6).sem(), "frame sem", **TOL)
    # pairwise: one row per (row label, column), a MultiIndex
    for how in ("cov", "corr"):
        assert_frame_like(getattr(zdf.rolling(10), how)(), getattr(pdf.rolling(10), how)(),
                          f"pairwise {how}", **TOL)
        assert_frame_like(getattr(zdf.expanding(3), how)(pairwise=False),
                          getattr(pdf.expanding(3), how)(pairwise=False),
                          f"{how} with itself", **TOL)
    theirs = pd.DataFrame({"b": y * 3 - 1, "c": x[::-1].to_numpy()}, index=pdf.index)
    assert_frame_like(zdf[["a", "b"]].rolling(7).corr(zb.DataFrame(theirs), pairwise=True),
                      pdf[["a", "b"]].rolling(7).corr(theirs, pairwise=True),
                      "pairwise with another frame", **TOL)
    # pairwise=None with another frame: column by column over the union of labels
    assert_frame_like(zdf[["a", "b"]].rolling(7).cov(zb.DataFrame(theirs)),
                      pdf[["a", "b"]].rolling(7).cov(theirs), "frame by label", **TOL)
    with pytest.raises(UnsupportedError):
        zdf.rolling(3).corr(zdf.iloc[::-1])


def test_rolling_pairs_time_window_vs_pandas():
    x, y = data(200, 11)
    t = pd.to_datetime("2024-01-01") + pd.to_timedelta(np.cumsum(np.arange(200) % 5), "h")
    x.index = y.index = t
    zx, zy = zb.Series(x), zb.Series(y)
    assert_series_like(zx.rolling("6h").cov(zy), x.rolling("6h").cov(y), "time cov", **TOL)
    assert_series_like(zx.rolling("6h").corr(zy), x.rolling("6h").corr(y), "time corr", **TOL)
    assert_series_like(zx.rolling("6h").sem(), x.rolling("6h").sem(), "time sem", **TOL)


@pytest.mark.parametrize("how", ["skew", "kurt"])
@pytest.mark.parametrize("skipna", [True, False])
def test_frame_skew_kurt_axis1_vs_pandas(how, skipna):
    rng = np.random.default_rng(zlib.crc32(f"ax1/{how}".encode()))
    n = 400
    pdf = pd.DataFrame({c: rng.standard_normal(n) * 3 for c in "abcd"},
                       index=pd.Index(rng.permutation(n) * 3, name="r"))
    pdf["i"] = pd.array(rng.integers(-5, 5, n), dtype="Int64")
    pdf.loc[pdf.index[rng.random(n) < 0.1], "i"] = pd.NA
    pdf.loc[pdf.index[rng.random(n) < 0.2], "a"] = np.nan
    pdf["b"] = np.where(rng.random(n) < 0.1, pdf["c"], pdf["b"])
    pdf.iloc[:5, :] = 1.0          # constant rows: missing
    pdf["s"] = "z"
    zdf = zb.DataFrame(pdf)
    exp = getattr(pdf, how)(axis=1, skipna=skipna, numeric_only=True)
    got = getattr(zdf, how)(axis=1, skipna=skipna, numeric_only=True)
    assert_series_like(got, exp, f"{how}(axis=1)", **TOL)


@pytest.mark.parametrize("scale", [1e-12, 1e-8, 1e-4, 1e12])
def test_cov_corr_of_sides_of_different_scales(scale):
    """Two sides far apart in scale keep their precision (the covariance
    came from var(x + y), where the smaller side was lost in the larger
    one's rounding: corr 0.9992 for y = x * 1e-12, pandas 1.0)."""
    rng = np.random.default_rng(int(-np.log10(scale)) % 97)
    x = pd.Series(rng.standard_normal(200))
    y = (x * 0.3 + pd.Series(rng.standard_normal(200))) * scale + 5 * scale
    for w in (3, 5, 30):
        for how in ("cov", "corr"):
            exp = getattr(x.rolling(w), how)(y)
            got = getattr(zb.Series(x).rolling(w), how)(zb.Series(y)).to_pandas()
            assert np.allclose(got.to_numpy(float), exp.to_numpy(float), rtol=1e-9,
                               atol=1e-12 * (scale if how == "cov" else 1), equal_nan=True), \
                f"{how} window {w} scale {scale}"
    x = pd.Series([1.0, 2, 3, 4, 5])
    got = zb.Series(x).rolling(3).corr(zb.Series(x * scale)).to_pandas()
    assert np.allclose(got.to_numpy(float)[2:], 1.0, rtol=1e-12)
