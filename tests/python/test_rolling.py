"""Differential tests of rolling and expanding windows (zambezi._rolling)
against pandas: every statistic (count, sum, mean, min, max, var, std,
median, quantile with each interpolation, skew, kurt) on random floats with
NaN and nullable integers with NA, windows of 1, 2, a few rows, exactly n
and more than n rows, min_periods and center; expanding windows; DataFrames
(numeric_only); group-by rolling and expanding (null keys, dropna, sort,
several keys, an all-NaN group, a Series' group-by) with pandas' (key,
label) MultiIndex; time-based windows over an irregular index with repeated
times and over a column (on=), each closed rule, centered, decreasing.  Sizes cross the engine's morsels (65536 rows, each
warming its window up) with 1 and 3 threads.

pandas runs side by side; results are compared with pandas_compare.  Sums
and moments are updated as rows enter and leave the window in both, in
other orders across morsels: floats within 1e-9 relative.  The test marked
slow (run with ZAMBEZI_SLOW=1) checks std / var at 10^7 rows.
"""

import os
import re
import zlib

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import assert_frame_like, assert_series_like
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

MORSEL = 65536
TOL = {"rtol": 1e-9, "atol": 1e-12}
# skew and kurt: zambezi updates central moments, pandas raw power sums
MOM_TOL = {"rtol": 1e-7, "atol": 1e-9}
OPS = ["count", "sum", "mean", "min", "max", "var", "std", "median", "skew", "kurt"]


def tol(op):
    return MOM_TOL if op in ("skew", "kurt") else TOL


def floats(n, rng, null_p=0.25, name="x", index=None):
    vals = rng.standard_normal(n) * 10 + 3
    vals[rng.random(n) < null_p] = np.nan
    return pd.Series(vals, name=name, index=index)


def apply(r, op):
    return r.quantile(0.3) if op == "quantile" else getattr(r, op)()


# --------------------------------------------------------------------------
# Series
# --------------------------------------------------------------------------


@pytest.mark.parametrize("center", [False, True], ids=["right", "center"])
@pytest.mark.parametrize("window", [1, 2, 5, 23, 30])
def test_series_rolling_vs_pandas(window, center):
    n = 23
    rng = np.random.default_rng(zlib.crc32(f"roll/{window}/{center}".encode()))
    p = floats(n, rng, index=[f"r{i}" for i in range(n)])
    z = zb.Series(p)
    for mp in sorted({None, 0, 1, min(window, 3)}, key=str):
        for op in OPS + ["quantile"]:
            exp = apply(p.rolling(window, min_periods=mp, center=center), op)
            got = apply(z.rolling(window, min_periods=mp, center=center), op)
            assert_series_like(got, exp, f"rolling({window}, {mp}, {center}).{op}", **tol(op))


def test_series_rolling_even_window_centered_and_all_missing():
    rng = np.random.default_rng(3)
    p = floats(40, rng, null_p=0.6)
    p.iloc[10:25] = np.nan
    z = zb.Series(p)
    for w in (4, 6):
        for op in OPS:
            exp = getattr(p.rolling(w, min_periods=1, center=True), op)()
            assert_series_like(getattr(z.rolling(w, min_periods=1, center=True), op)(), exp,
                               f"center w={w} {op}", **tol(op))
    allnan = pd.Series([np.nan] * 5)
    for op in OPS:
        assert_series_like(getattr(zb.Series(allnan).rolling(2, min_periods=0), op)(),
                           getattr(allnan.rolling(2, min_periods=0), op)(), f"all NaN {op}")


def test_rolling_quantile_interpolations():
    rng = np.random.default_rng(11)
    p = floats(31, rng, null_p=0.2)
    p.iloc[::7] = 2.5  # ties
    z = zb.Series(p)
    for how in ("linear", "lower", "higher", "nearest", "midpoint"):
        for q in (0.0, 0.125, 0.5, 0.7, 1.0):
            for w in (1, 4, 8):
                assert_series_like(z.rolling(w, min_periods=1).quantile(q, interpolation=how),
                                   p.rolling(w, min_periods=1).quantile(q, interpolation=how),
                                   f"quantile({q}, {how}) w={w}")


def test_rolling_integers_bools_and_ddof():
    rng = np.random.default_rng(5)
    vals = rng.integers(-1000, 1000, size=50)
    mask = rng.random(50) < 0.2
    p = pd.Series(pd.arrays.IntegerArray(vals, mask), name="i")
    z = zb.Series(p)
    for op in OPS:
        # pandas' masked Int64 rolls as float64 with NaN: the oracle is the same
        exp = getattr(p.astype("float64").rolling(4, min_periods=2), op)()
        assert_series_like(getattr(z.rolling(4, min_periods=2), op)(), exp, f"Int64 {op}",
                           **tol(op))
    b = pd.Series(rng.random(20) < 0.5)
    assert_series_like(zb.Series(b).rolling(3).sum(), b.rolling(3).sum(), "bool sum")
    f = floats(30, rng)
    for ddof in (0, 2):
        assert_series_like(zb.Series(f).rolling(5).var(ddof=ddof), f.rolling(5).var(ddof=ddof),
                           f"var ddof={ddof}", **TOL)
        assert_series_like(zb.Series(f).rolling(5).std(ddof=ddof), f.rolling(5).std(ddof=ddof),
                           f"std ddof={ddof}", **TOL)


def test_rolling_exact_on_constant_and_shifted_data():
    # a run of equal values (exact sums, zero variance) and a large value
    # leaving the window (pandas 3 sums such a window again)
    p = pd.Series([0.1] * 12 + [1e9, 1e9 + 1, 3.0, 4.0, 4.0, 4.0, 4.0, 5.0])
    z = zb.Series(p)
    for op in ("sum", "mean", "var", "std", "skew", "kurt", "median"):
        assert_series_like(getattr(z.rolling(4), op)(), getattr(p.rolling(4), op)(), op,
                           rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("null_p", [0.0, 0.02])
def test_rolling_var_std_steady_windows(null_p):
    # long runs where one present value leaves and one enters (the fused
    # update), large values entering and leaving (the window summed again),
    # and missing values breaking the runs
    rng = np.random.default_rng(zlib.crc32(f"steady/{null_p}".encode()))
    vals = rng.standard_normal(3000) * 5 + 1e4
    vals[700:705] = 1e12
    vals[rng.random(3000) < null_p] = np.nan
    p = pd.Series(vals)
    z = zb.Series(p)
    for window, mp, center in ((2, None, False), (7, 3, True), (100, None, False),
                               (100, 1, True), (2999, 0, False), (3000, None, False),
                               (3001, 2, False)):
        for op in ("var", "std"):
            exp = getattr(p.rolling(window, min_periods=mp, center=center), op)()
            got = getattr(z.rolling(window, min_periods=mp, center=center), op)()
            assert_series_like(got, exp, f"rolling({window}, {mp}, {center}).{op}",
                               rtol=1e-8, atol=1e-6)
    # windows of (nearly) equal values after values near 1e4 left them: the
    # window is summed again.  The oracle is numpy's two-pass std of each
    # window: pandas' running sums leave a residue here (std 0.00115 where
    # the window's is 0.00097; 5e-4 where it is 0).  zambezi's running
    # update after the new sum keeps it to 3e-9 relative here (run alone,
    # deterministically; the full suite has measured it under 1e-9, for a
    # reason not yet found)
    for noise in (1e-3, 0.0):
        vals = np.concatenate([rng.standard_normal(500) * 5 + 1e4,
                               rng.standard_normal(300) * noise + 42.0])
        got = zb.Series(vals).rolling(100).std().to_pandas().to_numpy(dtype="float64")
        exp = np.lib.stride_tricks.sliding_window_view(vals, 100).std(axis=1, ddof=1)
        np.testing.assert_allclose(got[599:], exp[500:], rtol=1e-8, atol=0)


@pytest.mark.parametrize("n", [MORSEL + 5, 2 * MORSEL + 77])
def test_rolling_across_morsels(n, threads):
    rng = np.random.default_rng(zlib.crc32(f"morsel/{n}".encode()))
    p = floats(n, rng, null_p=0.1)
    z = zb.Series(p)
    for w, center in ((100, False), (7, True), (MORSEL + 10, False)):
        for op in ("sum", "var", "min", "median", "skew"):
            exp = getattr(p.rolling(w, min_periods=1, center=center), op)()
            assert_series_like(getattr(z.rolling(w, min_periods=1, center=center), op)(), exp,
                               f"n={n} w={w} {op}", **tol(op))


# --------------------------------------------------------------------------
# expanding
# --------------------------------------------------------------------------


@pytest.mark.parametrize("min_periods", [0, 1, 3, 40])
def test_expanding_vs_pandas(min_periods):
    rng = np.random.default_rng(min_periods)
    p = floats(30, rng, index=np.arange(30) * 3)
    z = zb.Series(p)
    for op in OPS + ["quantile"]:
        assert_series_like(apply(z.expanding(min_periods), op),
                           apply(p.expanding(min_periods), op), f"expanding({min_periods}).{op}",
                           **tol(op))


def test_expanding_long(threads):
    rng = np.random.default_rng(9)
    p = floats(MORSEL + 300, rng, null_p=0.05)
    z = zb.Series(p)
    for op in ("mean", "std", "max", "median"):
        assert_series_like(getattr(z.expanding(), op)(), getattr(p.expanding(), op)(),
                           f"expanding long {op}", **TOL)


# --------------------------------------------------------------------------
# DataFrame
# --------------------------------------------------------------------------


def test_frame_rolling_and_expanding():
    rng = np.random.default_rng(21)
    n = 25
    p = pd.DataFrame({"a": floats(n, rng), "b": rng.integers(0, 9, n),
                      "s": rng.choice(["x", "y"], n)}, index=np.arange(n)[::-1])
    z = zb.DataFrame(p)
    num = p[["a", "b"]]
    for op in OPS:
        assert_frame_like(getattr(z.rolling(3), op)(numeric_only=True),
                          getattr(num.rolling(3), op)(), f"frame rolling {op}", **tol(op))
        assert_frame_like(getattr(z.expanding(2), op)(numeric_only=True),
                          getattr(num.expanding(2), op)(), f"frame expanding {op}", **tol(op))
    assert_frame_like(z[["a", "b"]].rolling(4, center=True).quantile(0.5),
                      num.rolling(4, center=True).quantile(0.5), "frame quantile")
    with pytest.raises(DTypeError, match="column 's'.*str"):
        z.rolling(2).sum()


# --------------------------------------------------------------------------
# group-by
# --------------------------------------------------------------------------


def grouped_frame(n, rng):
    k = rng.choice(np.array(["b", "a", "c", None], dtype=object), n, p=[0.4, 0.3, 0.2, 0.1])
    return pd.DataFrame({"k": k, "j": rng.integers(0, 2, n), "v": floats(n, rng),
                         "w": rng.integers(-5, 5, n).astype("float64")},
                        index=[f"r{i}" for i in range(n)])


@pytest.mark.parametrize("sort,dropna", [(True, True), (False, True), (True, False)])
def test_groupby_rolling_vs_pandas(sort, dropna):
    rng = np.random.default_rng(zlib.crc32(f"gb/{sort}/{dropna}".encode()))
    p = grouped_frame(60, rng)
    p.loc[p["k"] == "c", "v"] = np.nan  # a group with no values
    z = zb.DataFrame(p)
    gp = p.groupby("k", sort=sort, dropna=dropna)
    gz = z.groupby("k", sort=sort, dropna=dropna)
    for op in OPS + ["quantile"]:
        for w, mp, center in ((1, None, False), (3, None, False), (4, 1, True), (80, 2, False)):
            what = f"groupby rolling({w}, {mp}, {center}).{op}"
            assert_series_like(apply(gz["v"].rolling(w, min_periods=mp, center=center), op),
                               apply(gp["v"].rolling(w, min_periods=mp, center=center), op),
                               what, **tol(op))
        assert_series_like(apply(gz["v"].expanding(), op), apply(gp["v"].expanding(), op),
                           f"groupby expanding {op}", **tol(op))


def test_groupby_rolling_frames_keys_and_series():
    rng = np.random.default_rng(8)
    p = grouped_frame(40, rng)
    z = zb.DataFrame(p)
    # every non-key column (numeric) without a selection
    num = p.drop(columns=["j"])
    assert_frame_like(zb.DataFrame(num).groupby("k").rolling(2).mean(),
                      num.groupby("k").rolling(2).mean(), "frame groupby rolling", **TOL)
    assert_frame_like(z.groupby(["k", "j"])[["v", "w"]].rolling(3, min_periods=1).sum(),
                      p.groupby(["k", "j"])[["v", "w"]].rolling(3, min_periods=1).sum(),
                      "two keys", **TOL)
    assert_frame_like(z.groupby("j")[["v"]].expanding().max(),
                      p.groupby("j")[["v"]].expanding().max(), "frame selection expanding")
    s = p["v"]
    assert_series_like(zb.Series(s).groupby(zb.Series(p["j"])).rolling(2).std(),
                       s.groupby(p["j"]).rolling(2).std(), "Series.groupby rolling", **TOL)


def test_groupby_rolling_many_groups(threads):
    rng = np.random.default_rng(4)
    n = MORSEL + 1000
    p = pd.DataFrame({"k": rng.integers(0, 3000, n), "v": floats(n, rng, null_p=0.1)})
    z = zb.DataFrame(p)
    for op in ("mean", "min", "median"):
        assert_series_like(getattr(z.groupby("k")["v"].rolling(5), op)(),
                           getattr(p.groupby("k")["v"].rolling(5), op)(), f"many groups {op}",
                           **TOL)


# --------------------------------------------------------------------------
# time-based windows
# --------------------------------------------------------------------------


def times(n, rng, unit="ns"):
    """Irregular increasing times with repeats (gaps of 0 to 30 hours)."""
    gaps = rng.integers(0, 31, n) * np.timedelta64(1, "h")
    gaps[rng.random(n) < 0.15] = np.timedelta64(0, "h")
    return pd.DatetimeIndex(np.datetime64("2024-01-01") + np.cumsum(gaps)).as_unit(unit)


@pytest.mark.parametrize("closed", [None, "right", "left", "both", "neither"])
def test_time_windows_vs_pandas(closed):
    rng = np.random.default_rng(zlib.crc32(f"time/{closed}".encode()))
    n = 60
    p = floats(n, rng, index=times(n, rng, "us"))
    z = zb.Series(p)
    for window in ("2D", "36h", pd.Timedelta("90min"), "0s"):
        for mp in (None, 2):
            for op in OPS + ["quantile"]:
                what = f"rolling({window!r}, {mp}, closed={closed}).{op}"
                assert_series_like(apply(z.rolling(window, min_periods=mp, closed=closed), op),
                                   apply(p.rolling(window, min_periods=mp, closed=closed), op),
                                   what, **tol(op))
    for op in ("sum", "count", "median"):
        if closed in (None, "right"):
            assert_series_like(getattr(z.rolling("1D", center=True, closed=closed), op)(),
                               getattr(p.rolling("1D", center=True, closed=closed), op)(),
                               f"center time window {op}", **TOL)
        rev = p.iloc[::-1]  # a decreasing index: windows look forward in time
        assert_series_like(getattr(zb.Series(rev).rolling("2D", closed=closed), op)(),
                           getattr(rev.rolling("2D", closed=closed), op)(),
                           f"decreasing index {op}", **TOL)


def test_time_windows_on_a_column():
    rng = np.random.default_rng(2)
    n = 40
    p = pd.DataFrame({"v": floats(n, rng), "ts": times(n, rng),
                      "i": rng.integers(0, 9, n), "s": rng.choice(["x", "y"], n)})
    z = zb.DataFrame(p)
    num = p[["v", "ts", "i"]]
    for op in ("sum", "mean", "max", "std"):
        assert_frame_like(getattr(zb.DataFrame(num).rolling("3D", on="ts"), op)(),
                          getattr(num.rolling("3D", on="ts"), op)(), f"on=ts {op}", **TOL)
        assert_frame_like(getattr(z.rolling("3D", on="ts"), op)(numeric_only=True),
                          getattr(p.rolling("3D", on="ts"), op)(numeric_only=True),
                          f"on=ts numeric_only {op}", **TOL)
    assert repr(z.rolling("3D", on="ts", closed="both")) == \
        repr(p.rolling("3D", on="ts", closed="both"))


def test_time_window_errors():
    t = pd.to_datetime(["2024-01-02", "2024-01-01", "2024-01-03"])
    with pytest.raises(InvalidValueError, match="monotonic"):
        zb.Series([1.0, 2.0, 3.0], index=t).rolling("2D").sum()
    with pytest.raises(InvalidValueError, match="NaT"):
        zb.Series([1.0, 2.0], index=pd.to_datetime(["2024-01-01", None])).rolling("2D").sum()
    with pytest.raises(InvalidValueError, match="window must be an integer 0 or greater"):
        zb.Series([1.0, 2.0]).rolling("2D")   # pandas' message: the index is not times
    with pytest.raises(InvalidValueError, match="not a fixed frequency"):
        zb.Series([1.0, 2.0]).rolling("1W")
    df = zb.DataFrame({"k": ["a", "b"], "ts": pd.to_datetime(["2024-01-01", "2024-01-02"]),
                       "v": [1.0, 2.0]})
    with pytest.raises(UnsupportedError, match="time-based window is not supported"):
        df.groupby("k")["v"].rolling("2D")
    with pytest.raises(InvalidValueError, match="invalid on specified as nope"):
        df.rolling("2D", on="nope")
    with pytest.raises(UnsupportedError, match="closed"):
        df.rolling(2, closed="both")
    with pytest.raises(UnsupportedError, match="on= is supported for time-based"):
        df.groupby("k").rolling(2, on="ts")


# --------------------------------------------------------------------------
# arguments
# --------------------------------------------------------------------------


def test_rolling_count_min_periods_and_window_zero():
    p = pd.Series([1.0, np.nan, 3.0, 4.0, np.nan, np.nan, 7.0])
    z = zb.Series(p)
    for w, mp in ((2, None), (3, 2), (3, 0), (0, None)):
        assert_series_like(z.rolling(w, min_periods=mp).count(),
                           p.rolling(w, min_periods=mp).count(), f"count {w} {mp}")
    for op in ("sum", "mean", "max"):
        assert_series_like(getattr(z.rolling(0), op)(), getattr(p.rolling(0), op)(), op)
    assert repr(z.rolling(3)) == repr(p.rolling(3))
    assert repr(z.expanding()) == repr(p.expanding())


def test_rolling_errors():
    z = zb.Series([1.0, 2.0, 3.0])
    with pytest.raises(InvalidValueError, match="window must be an integer 0 or greater"):
        z.rolling(-1)
    with pytest.raises(DTypeError, match="window must be an integer"):
        z.rolling(2.5)
    with pytest.raises(InvalidValueError, match="min_periods 3 must be <= window 2"):
        z.rolling(2, min_periods=3)
    with pytest.raises(UnsupportedError, match="win_type"):
        z.rolling(2, win_type="triang")
    with pytest.raises(UnsupportedError, match="step"):
        z.rolling(2, step=2)
    with pytest.raises(InvalidValueError, match="q must be between 0 and 1"):
        z.rolling(2).quantile(1.5)
    with pytest.raises(InvalidValueError, match="interpolation"):
        z.rolling(2).quantile(0.5, interpolation="cubic")
    with pytest.raises(InvalidValueError, match="ddof"):
        z.rolling(2).var(ddof=-1)
    with pytest.raises(UnsupportedError, match="engine"):
        z.rolling(2).mean(engine="numba")
    with pytest.raises(DTypeError, match="the Series has dtype string"):
        zb.Series(["a", "b"]).rolling(1).sum()
    with pytest.raises(InvalidValueError, match="min_periods must be >= 0"):
        z.expanding(-1)


# --------------------------------------------------------------------------
# 10^7 rows (slow: ZAMBEZI_SLOW=1)
# --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("ZAMBEZI_SLOW") != "1", reason="slow: set ZAMBEZI_SLOW=1")
def test_rolling_std_var_ten_million_rows():
    rng = np.random.default_rng(7)
    n = 10**7
    vals = rng.standard_normal(n) * 50 + 1000
    vals[rng.random(n) < 0.01] = np.nan
    p = pd.Series(vals)
    z = zb.Series(p)
    for op in ("var", "std"):
        exp = getattr(p.rolling(100), op)().to_numpy()
        got = getattr(z.rolling(100), op)().to_pandas().to_numpy(dtype="float64", na_value=np.nan)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(exp))
        ok = ~np.isnan(exp)
        rel = np.abs(got[ok] - exp[ok]) / np.abs(exp[ok])
        assert rel.max() <= 1e-9, f"{op}: max relative difference {rel.max():.3g}"


def test_infinities_are_missing_except_for_count():
    # pandas' window functions see +-inf as NaN (count counts them): a
    # window holding inf has a finite sum, mean, var... of its other values
    rng = np.random.default_rng(11)
    n = 300
    vals = rng.standard_normal(n) * 10
    vals[rng.random(n) < 0.1] = np.inf
    vals[rng.random(n) < 0.1] = -np.inf
    vals[rng.random(n) < 0.1] = np.nan
    p = pd.Series(vals, name="x")
    z = zb.Series(p)
    for op in OPS + ["quantile"]:
        for w, mp in ((3, None), (7, 2), (1, None)):
            assert_series_like(apply(z.rolling(w, min_periods=mp), op),
                               apply(p.rolling(w, min_periods=mp), op),
                               f"rolling({w}, {mp}).{op} with inf", **tol(op))
        assert_series_like(apply(z.expanding(), op), apply(p.expanding(), op),
                           f"expanding().{op} with inf", **tol(op))
    k = pd.Series(rng.integers(0, 4, n), name="k")
    pf, zf = pd.DataFrame({"k": k, "x": p}), zb.DataFrame(pd.DataFrame({"k": k, "x": p}))
    for op in ("sum", "mean", "var", "count"):
        exp = getattr(pf.groupby("k")["x"].rolling(4, min_periods=1), op)()
        got = getattr(zf.groupby("k")["x"].rolling(4, min_periods=1), op)()
        assert_series_like(got, exp, f"groupby rolling {op} with inf", **tol(op))


@pytest.mark.parametrize("raw", [True, False])
def test_apply_passes_infinities_as_nan(raw):
    p = pd.Series([np.inf, 1.0, -np.inf, np.nan, 2.0, 0.5, np.inf, 3.0], name="x")
    z = zb.Series(p)
    for f in (lambda w: float(np.isnan(np.asarray(w)).sum()), lambda w: float(np.nansum(w))):
        assert_series_like(z.expanding().apply(f, raw=raw), p.expanding().apply(f, raw=raw),
                           "expanding apply with inf", **TOL)
        assert_series_like(z.rolling(3, min_periods=1).apply(f, raw=raw),
                           p.rolling(3, min_periods=1).apply(f, raw=raw),
                           "rolling apply with inf", **TOL)


def test_argument_errors_as_pandas():
    # pandas checks these when the window is made, with these messages
    p = pd.DataFrame({"ts": pd.date_range("2024-01-01", periods=4, freq="s"),
                      "v": [1.0, 2.0, 3.0, 4.0]})
    z = zb.DataFrame(p)
    calls = [lambda o: o.v.rolling(2, center=2.0), lambda o: o.v.rolling(2, center="yes"),
             lambda o: o.rolling("2s", on="foobar"), lambda o: o.v.rolling("2s", on="ts"),
             lambda o: o.v.rolling(2).apply(np.sum, raw=None),
             lambda o: o.v.rolling(2).apply(np.sum, raw=1),
             lambda o: o.rolling("2s", on="v"), lambda o: o.rolling("2s"),
             lambda o: o.v.rolling("2D")]
    for call in calls:
        with pytest.raises(ValueError) as exp:
            call(p)
        with pytest.raises(ValueError, match=re.escape(str(exp.value))):
            call(z)


@pytest.mark.parametrize("op", ["sum", "mean", "count", "max", "std"])
def test_on_column_selection_like_pandas(op):
    # df.rolling("2h", on="t")["x"]: a Series of x; [["x", "y"]]: x, y and t
    rng = np.random.default_rng(5)
    n = 300
    p = pd.DataFrame({"t": pd.Timestamp("2024-01-01") + pd.to_timedelta(
        np.sort(rng.integers(0, 10**4, n)), unit="min"), "x": rng.normal(size=n),
        "y": rng.integers(0, 9, n).astype(float)}, index=[f"r{i}" for i in range(n)])
    p.loc[rng.random(n) < 0.1, "x"] = np.nan
    z = zb.DataFrame(p)
    assert_series_like(getattr(z.rolling("2h", on="t")["x"], op)(),
                       getattr(p.rolling("2h", on="t")["x"], op)(), f"[x] {op}", **TOL)
    assert_frame_like(getattr(z.rolling("90min", on="t")[["y", "x"]], op)(),
                      getattr(p.rolling("90min", on="t")[["y", "x"]], op)(), f"[[y, x]] {op}",
                      **TOL)
    assert_series_like(z.rolling("2h", on="t")["x"].agg(op),
                       p.rolling("2h", on="t")["x"].agg(op), f"agg {op}", **TOL)


@pytest.mark.parametrize("op", ["sum", "mean", "count", "max", "std"])
def test_count_windows_on_a_column_like_pandas(op):
    """rolling(int, on=c): windows of rows; column c (times, numbers or
    strings) is left out and kept as it is, in its place."""
    rng = np.random.default_rng(6)
    n = 200
    p = pd.DataFrame({"x": rng.normal(size=n), "t": pd.date_range("2024-01-01", periods=n,
                                                                    freq="h"),
                      "k": rng.integers(0, 9, n), "s": rng.choice(["a", "b"], n)},
                     index=rng.permutation(n))
    p.loc[rng.random(n) < 0.1, "x"] = np.nan
    z = zb.DataFrame(p)
    for on, cols in (("t", ["x", "t", "k"]), ("k", ["k", "x"]), ("s", ["x", "s"])):
        for kw in ({}, {"center": True, "min_periods": 1}):
            assert_frame_like(getattr(z[cols].rolling(3, on=on, **kw), op)(),
                              getattr(p[cols].rolling(3, on=on, **kw), op)(), f"on={on} {op}",
                              **TOL)
    assert_series_like(getattr(z[["x", "t"]].rolling(4, on="t")["x"], op)(),
                       getattr(p[["x", "t"]].rolling(4, on="t")["x"], op)(), f"[x] {op}", **TOL)


def _per_window(values, window, op):
    """The oracle: pandas' reduction of each window on its own (not a
    sliding kernel)."""
    out = [np.nan] * (window - 1)
    for stop in range(window, len(values) + 1):
        out.append(getattr(pd.Series(values[stop - window:stop]), op)())
    return np.array(out)


@pytest.mark.parametrize("op", ["skew", "kurt"])
def test_skew_kurt_keep_their_digits_on_a_level_and_after_outliers(op):
    """Rolling skew / kurt of values on a large level (1e6, 1e10, a drifting
    level as timestamps in seconds), values one ulp apart, and lognormal
    values whose large ones leave windows of small ones: each window as the
    per-window reduction, to 1e-8 or better; scaling the values by 1e-20 or
    1e20 changes nothing (pandas 3.1's rolling kernels; the old absolute
    test made tiny values NaN)."""
    base = np.array([1, 2, 4, 7, 3, 5, 9, 2, 6, 8], dtype="float64")
    for level in (1e6, 1e10):
        got = getattr(zb.Series(base + level).rolling(5), op)().to_numpy()
        np.testing.assert_allclose(got, _per_window(base + level, 5, op), rtol=1e-12)
    rng = np.random.default_rng(0)
    drift = 1.7e9 + np.arange(500) + rng.normal(size=500) * 0.3
    np.testing.assert_allclose(getattr(zb.Series(drift).rolling(20), op)().to_numpy(),
                               _per_window(drift, 20, op), rtol=1e-8, atol=1e-12)
    logn = np.random.default_rng(3006).lognormal(0.0, 2.0, size=120)
    np.testing.assert_allclose(getattr(zb.Series(logn).rolling(4), op)().to_numpy(),
                               _per_window(logn, 4, op), rtol=1e-8)
    codes = np.array([0, 1, 0, 2, 1, 0, 3, 1, 2, 0, 1, 4, 0, 2, 1, 0], dtype="float64")
    ulps = 1e8 + np.spacing(1e8) * codes
    np.testing.assert_allclose(getattr(zb.Series(ulps).rolling(4), op)().to_numpy(),
                               getattr(zb.Series(codes).rolling(4), op)().to_numpy(),
                               rtol=1e-12, atol=1e-12)
    normal = np.random.default_rng(2).standard_normal(50)
    plain = getattr(zb.Series(normal).rolling(20), op)().to_numpy()
    np.testing.assert_allclose(plain, _per_window(normal, 20, op), rtol=1e-9)
    for scale in (1e-20, 1e20):
        np.testing.assert_allclose(getattr(zb.Series(normal * scale).rolling(20), op)()
                                   .to_numpy(), plain, rtol=1e-9)
    flat = np.array([1e8 + np.spacing(1e8) * k for k in range(4)] + [1e8] * 6)
    assert np.isnan(getattr(zb.Series(flat).rolling(4), op)().to_numpy()[-3:]).all()
    assert np.isnan(getattr(zb.Series([1.1] * 15).rolling(10), op)().to_numpy()).all()
    level = 1e10 + rng.normal(size=200)   # expanding: never a removal
    np.testing.assert_allclose(getattr(zb.Series(level).expanding(), op)().to_numpy(),
                               getattr(zb.Series(level - 1e10).expanding(), op)().to_numpy(),
                               rtol=1e-6)


@pytest.mark.parametrize("method", ["cov", "corr"])
def test_pair_windows_keep_their_digits_on_a_level_and_after_outliers(method):
    """Rolling cov / corr of two columns sharing a large level, and after a
    huge value left the window (in either operand, the other on a level of
    1e13): each window as numpy's two-pass computation of that window alone
    (recentred first, as the oracle itself would lose digits)."""
    pairwise = np.cov if method == "cov" else np.corrcoef

    def oracle(x, y, window):
        out = [np.nan] * (window - 1)
        for stop in range(window, len(x) + 1):
            cx, cy = x[stop - window:stop], y[stop - window:stop]
            out.append(pairwise(cx - cx[0], cy - cy[0])[0, 1])
        return np.array(out)

    for offset in (1e6, 1e10):
        x = np.array([1, 2, 4, 7, 3, 5, 9, 2, 6, 8], dtype="float64") + offset
        y = np.array([2, 1, 5, 3, 8, 4, 7, 9, 1, 6], dtype="float64") + offset
        got = getattr(zb.Series(x).rolling(5), method)(zb.Series(y)).to_numpy()
        np.testing.assert_allclose(got, oracle(x, y, 5), rtol=1e-12)
    vx = np.array([3, 3, 7, 9, 3, 3, 3.8e12, 3, 8, 2, 2, 8, 6, 7, 7, 3, 8, 4])
    vy = 1e13 + np.array([6, 3, 3, 5, 9, 1, 2, 9, 2, 1, 4, 6, 6, 9, 7, 9, 3, 5.0])
    for x, y in ((vx, vy), (vy, vx)):
        got = getattr(zb.Series(x).rolling(9), method)(zb.Series(y)).to_numpy()
        np.testing.assert_allclose(got, oracle(x, y, 9), rtol=1e-9)


@pytest.mark.parametrize("offset", [1e11, 1e9, -3e7, 0.0])
@pytest.mark.parametrize("how", ["std", "var"])
def test_rolling_var_of_values_far_from_zero_keeps_its_digits(offset, how):
    # a variance does not move with a shift, so the windows of the data
    # less the offset (small values, where pandas is exact) are the oracle.
    # The fused fixed-window path lost 4e-3 absolute here at 1e11 (its
    # running mean uncompensated); pandas itself loses 3e-4 on the offset
    # data, so it is no oracle there: printed to 6 places the two differ.
    rng = np.random.default_rng(3)
    base = np.arange(3000, dtype=float) % 7 + rng.integers(0, 3, 3000)
    base[[700, 701, 2500]] = np.nan   # long runs of windows without a missing value
    want = getattr(pd.Series(base).rolling(5, min_periods=2), how)()
    got = getattr(zb.Series(base + offset).rolling(5, min_periods=2), how)().to_pandas()
    np.testing.assert_allclose(got.to_numpy(dtype=float), want.to_numpy(), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("values", [
    [99999999999999999, 1, 1, 2, 3, 1, 1], [99999999999999999, 1, 2, 2, 3, 1, 1],
    [1.2e03, 1.3e17, 1.5e17, 1.995e03, 1.990e03],
    [1, -1, 0, 1, 3, 2, -2, 10000000000, 1, 2, 0, -2, 1, 3, 0, 1],
])
def test_rolling_var_after_values_of_another_magnitude_as_pandas(values):
    # pandas' own cases (window/test_rolling.py): once 1e17 has left the
    # window, [1, 2] has variance 0.5; an anchor kept at 1e17 rounded the
    # units away, so the anchor moves each time the window is summed again
    for how in ("var", "std"):
        got = getattr(zb.Series(values).rolling(2), how)().to_pandas()
        want = getattr(pd.Series(values, dtype=float).rolling(2), how)()
        np.testing.assert_allclose(got.to_numpy(dtype=float), want.to_numpy(), rtol=1e-7)
