"""ewm (exponentially weighted statistics) against pandas on random data
with missing values: every decay form, adjust, ignore_na, min_periods,
times=, DataFrames, group-by ewm (with empty and all-missing groups), and
the errors pandas raises."""

import zlib

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import assert_frame_like, assert_series_like
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

TOL = {"rtol": 1e-9, "atol": 1e-12}
OPS = ["mean", "sum", "var", "std"]
DECAYS = [{"com": 0.0}, {"com": 2.5}, {"span": 4}, {"halflife": 1.7}, {"alpha": 0.3},
          {"alpha": 1.0}]


def rng_for(*parts):
    return np.random.default_rng(zlib.crc32("/".join(map(str, parts)).encode()))


def floats(n, rng, null_p=0.25, name="x", index=None):
    vals = rng.standard_normal(n) * 10 + 3
    vals[rng.random(n) < null_p] = np.nan
    return pd.Series(vals, name=name, index=index)


def call(e, op, **kw):
    return getattr(e, op)(**kw)


@pytest.mark.parametrize("decay", DECAYS, ids=lambda d: "-".join(f"{k}{v}" for k, v in d.items()))
def test_series_ewm_vs_pandas(decay):
    n = 30
    rng = rng_for("series", decay)
    p = floats(n, rng, index=[f"r{i}" for i in range(n)])
    p.iloc[:3] = np.nan  # a leading run of missing values
    z = zb.Series(p)
    for adjust in (True, False):
        for ignore_na in (False, True):
            for mp in (0, 4):
                kw = dict(decay, adjust=adjust, ignore_na=ignore_na, min_periods=mp)
                for op in OPS:
                    if op == "sum" and not adjust:
                        continue
                    what = f"ewm({kw}).{op}"
                    assert_series_like(call(z.ewm(**kw), op), call(p.ewm(**kw), op), what,
                                       **TOL)
                for bias in (True,):
                    for op in ("var", "std"):
                        assert_series_like(call(z.ewm(**kw), op, bias=bias),
                                           call(p.ewm(**kw), op, bias=bias), f"{op} bias", **TOL)


def test_series_ewm_ints_bools_constant_and_empty():
    p = pd.Series([3, 3, 3, 5, 1, 1], name="i")
    z = zb.Series(p)
    for op in OPS:
        assert_series_like(call(z.ewm(span=3), op), call(p.ewm(span=3), op), op, **TOL)
    b = pd.Series([True, False, True, True])
    assert_series_like(zb.Series(b).ewm(com=1).mean(), b.ewm(com=1).mean(), "bool", **TOL)
    c = pd.Series([2.5] * 7)  # a constant series stays exactly constant
    assert zb.Series(c).ewm(alpha=0.1).mean().to_list() == [2.5] * 7
    e = pd.Series([], dtype="float64")
    assert_series_like(zb.Series(e).ewm(com=1).mean(), e.ewm(com=1).mean(), "empty")
    allnan = pd.Series([np.nan] * 5)
    for op in OPS:
        assert_series_like(call(zb.Series(allnan).ewm(com=1), op),
                           call(allnan.ewm(com=1), op), f"all-NaN {op}")


def test_series_ewm_nulls_in_int_column():
    z = zb.Series([1, None, 4, 2, None, 7], dtype="int64")
    p = pd.Series([1, np.nan, 4, 2, np.nan, 7])
    for ignore_na in (False, True):
        assert_series_like(z.ewm(span=2, ignore_na=ignore_na).mean(),
                           p.ewm(span=2, ignore_na=ignore_na).mean(), "nulls", **TOL)


@pytest.mark.parametrize("unit", ["ns", "us", "s"])
def test_series_ewm_times_vs_pandas(unit):
    n = 25
    rng = rng_for("times", unit)
    p = floats(n, rng)
    t = pd.Series(pd.Timestamp("2024-03-01") +
                  pd.to_timedelta(np.cumsum(rng.integers(0, 50, n)), unit="h")).astype(
                      f"datetime64[{unit}]")
    for hl in ("1D", "7h", pd.Timedelta(hours=30)):
        for kw in ({}, {"ignore_na": True}, {"adjust": False}, {"com": 1.5}, {"min_periods": 3}):
            exp = p.ewm(halflife=hl, times=t, **kw).mean()
            for times in (t, zb.Series(t), t.to_numpy()):
                got = zb.Series(p).ewm(halflife=hl, times=times, **kw).mean()
                assert_series_like(got, exp, f"times halflife={hl} {kw}", **TOL)
    tz = t.dt.tz_localize("UTC").dt.tz_convert("Africa/Maputo")
    for times in (zb.Series(tz), tz, pd.DatetimeIndex(tz)):
        assert_series_like(zb.Series(p).ewm(halflife="2h", times=times).mean(),
                           p.ewm(halflife="2h", times=tz).mean(), "tz times", **TOL)


def test_frame_ewm_vs_pandas():
    n = 40
    rng = rng_for("frame")
    p = pd.DataFrame({"a": floats(n, rng).to_numpy(), "b": rng.integers(-5, 5, n),
                      "c": floats(n, rng, 0.6).to_numpy(), "s": [f"x{i % 3}" for i in range(n)]},
                     index=pd.Index(rng.permutation(n) * 3, name="ix"))
    z = zb.DataFrame(p)
    num = p[["a", "b", "c"]]
    for op in OPS:
        for kw in ({"span": 5}, {"alpha": 0.4, "adjust": False, "ignore_na": True}):
            if op == "sum" and not kw.get("adjust", True):
                continue
            exp = call(num.ewm(**kw), op)
            assert_frame_like(call(z.ewm(**kw), op, numeric_only=True), exp, f"frame {op}",
                              **TOL)
            assert_frame_like(call(z[["a", "b", "c"]].ewm(**kw), op), exp, f"frame {op}", **TOL)
    with pytest.raises(DTypeError, match="column 's'"):
        z.ewm(span=3).mean()


@pytest.mark.parametrize("threads", [1, 3])
def test_groupby_ewm_vs_pandas(threads):
    before = zb.get_num_threads()
    zb.set_num_threads(threads)
    try:
        n = 80
        rng = rng_for("groupby", threads)
        k = rng.choice(["a", "b", "c", "d", None], n)
        v = floats(n, rng, 0.3, name="v")
        v[k == "c"] = np.nan  # an all-missing group
        p = pd.DataFrame({"k": pd.array(k, dtype="str"), "v": v.to_numpy(),
                          "w": rng.integers(0, 9, n)},
                         index=pd.Index(rng.permutation(n) * 2 + 100))
        z = zb.DataFrame(p)
        for kw in ({"span": 3}, {"alpha": 0.5, "adjust": False, "ignore_na": True},
                   {"com": 1, "min_periods": 2}):
            for op in OPS:
                if op == "sum" and not kw.get("adjust", True):
                    continue
                exp = call(p.groupby("k")["v"].ewm(**kw), op)
                got = call(z.groupby("k")["v"].ewm(**kw), op)
                assert_series_like(got, exp, f"groupby ewm {kw}.{op}", **TOL)
            exp = p.groupby("k").ewm(**kw).mean()
            assert_frame_like(z.groupby("k").ewm(**kw).mean(), exp, "frame groupby", **TOL)
        t = pd.Series(pd.Timestamp("2024-01-01") + pd.to_timedelta(np.arange(n) * 5, unit="h"))
        exp = p.groupby("k")["v"].ewm(halflife="9h", times=t).mean()
        got = z.groupby("k")["v"].ewm(halflife="9h", times=t).mean()
        assert_series_like(got, exp, "groupby times", **TOL)
    finally:
        zb.set_num_threads(before)


def test_series_groupby_ewm_many_groups():
    n = 3000
    rng = rng_for("many")
    p = floats(n, rng, 0.2)
    keys = pd.Series(rng.integers(0, 700, n), name="g")
    exp = p.groupby(keys).ewm(com=0.7).mean()
    got = zb.Series(p).groupby(zb.Series(keys)).ewm(com=0.7).mean()
    assert_series_like(got, exp, "many groups", **TOL)


def test_infinities_are_missing_as_pandas():
    # pandas' window functions see +-inf as NaN: an ewm statistic decays
    # over an infinity (ignore_na=False) or skips it (ignore_na=True), as
    # rolling and expanding leave it out of their windows
    hand = zb.Series([1.0, np.inf, 2.0, 3.0]).ewm(span=3).sum().to_list()
    assert hand == [1.0, 0.5, 2.25, 4.125]
    n = 60
    rng = rng_for("inf")
    vals = rng.standard_normal(n) * 10 + 3
    vals[rng.random(n) < 0.15] = np.inf
    vals[rng.random(n) < 0.15] = -np.inf
    vals[rng.random(n) < 0.1] = np.nan
    vals[:2] = [np.inf, -np.inf]  # a leading run of infinities
    p = pd.Series(vals, name="x")
    z = zb.Series(p)
    for kw in ({"span": 3}, {"com": 1.5, "ignore_na": True}, {"alpha": 0.4, "adjust": False},
               {"halflife": 2, "min_periods": 3, "ignore_na": True}):
        for op in OPS:
            if op == "sum" and not kw.get("adjust", True):
                continue
            assert_series_like(call(z.ewm(**kw), op), call(p.ewm(**kw), op),
                               f"ewm({kw}).{op} with inf", **TOL)
        other = floats(n, rng, 0.1, name="y")
        other[rng.random(n) < 0.2] = -np.inf
        assert_series_like(z.ewm(**kw).cov(zb.Series(other)), p.ewm(**kw).cov(other),
                           f"cov {kw} with inf", **TOL)
        assert_series_like(z.ewm(**kw).corr(zb.Series(other)), p.ewm(**kw).corr(other),
                           f"corr {kw} with inf", **TOL)
    pf = pd.DataFrame({"k": rng.choice(["a", "b", "c"], n), "x": vals,
                       "y": np.where(rng.random(n) < 0.2, np.inf, rng.standard_normal(n))})
    zf = zb.DataFrame(pf)
    assert_frame_like(zf[["x", "y"]].ewm(com=2).mean(), pf[["x", "y"]].ewm(com=2).mean(),
                      "frame with inf", **TOL)
    for op in OPS:
        assert_series_like(call(zf.groupby("k")["x"].ewm(span=4), op),
                           call(pf.groupby("k")["x"].ewm(span=4), op),
                           f"groupby ewm {op} with inf", **TOL)
    assert_frame_like(zf.groupby("k").ewm(span=4, ignore_na=True).std(),
                      pf.groupby("k").ewm(span=4, ignore_na=True).std(),
                      "frame groupby with inf", **TOL)


def test_cov_corr_vs_pandas():
    n = 30
    rng = rng_for("cov")
    a, b = floats(n, rng, 0.2), floats(n, rng, 0.2, name="y")
    za, zb_ = zb.Series(a), zb.Series(b)
    for kw in ({"alpha": 0.2}, {"span": 4, "adjust": False, "ignore_na": True},
               {"com": 2, "min_periods": 5}):
        assert_series_like(za.ewm(**kw).cov(zb_), a.ewm(**kw).cov(b), f"cov {kw}", **TOL)
        assert_series_like(za.ewm(**kw).cov(zb_, bias=True), a.ewm(**kw).cov(b, bias=True),
                           f"cov bias {kw}", **TOL)
        assert_series_like(za.ewm(**kw).corr(zb_), a.ewm(**kw).corr(b), f"corr {kw}", **TOL)
        assert_series_like(za.ewm(**kw).cov(), a.ewm(**kw).cov(), f"cov self {kw}", **TOL)
    pf = pd.DataFrame({"p": a, "q": b})
    pg = pd.DataFrame({"p": b, "q": a * 2})
    exp = pf.ewm(span=3).corr(pg, pairwise=False)
    assert_frame_like(zb.DataFrame(pf).ewm(span=3).corr(zb.DataFrame(pg), pairwise=False), exp,
                      "frame corr", **TOL)


def test_ewm_errors_as_pandas():
    s = zb.Series([1.0, 2.0])
    with pytest.raises(InvalidValueError, match="mutually exclusive"):
        s.ewm(com=1, span=2)
    with pytest.raises(InvalidValueError, match="one of com"):
        s.ewm()
    with pytest.raises(InvalidValueError, match="com >= 0"):
        s.ewm(com=-1)
    with pytest.raises(InvalidValueError, match="span >= 1"):
        s.ewm(span=0.5)
    with pytest.raises(InvalidValueError, match="halflife > 0"):
        s.ewm(halflife=0)
    with pytest.raises(InvalidValueError, match="0 < alpha <= 1"):
        s.ewm(alpha=1.5)
    with pytest.raises(DTypeError, match="span must be a number"):
        s.ewm(span="3")
    with pytest.raises(InvalidValueError, match="only with times"):
        s.ewm(halflife="1D")
    t = pd.to_datetime(["2024-01-01", "2024-01-02"])
    with pytest.raises(InvalidValueError, match="time span"):
        s.ewm(halflife=2.0, times=t)
    with pytest.raises(InvalidValueError, match="same length"):
        s.ewm(halflife="1D", times=t[:1])
    with pytest.raises(InvalidValueError, match="NaT"):
        s.ewm(halflife="1D", times=pd.to_datetime(["2024-01-01", None]))
    with pytest.raises(InvalidValueError, match="datetime64"):
        s.ewm(halflife="1D", times=np.array([1, 2]))
    with pytest.raises(UnsupportedError, match="adjust=False"):
        s.ewm(halflife="1D", times=t, com=1, adjust=False)
    with pytest.raises(UnsupportedError, match="not implemented with times"):
        s.ewm(halflife="1D", times=t).var()
    with pytest.raises(UnsupportedError, match="adjust=False"):
        s.ewm(com=1, adjust=False).sum()
    with pytest.raises(UnsupportedError):
        s.ewm(com=1).mean(engine="numba")
    with pytest.raises(DTypeError, match="dtype string"):
        zb.Series(["a"]).ewm(com=1).mean()
    # pandas' errors are the same kinds
    with pytest.raises(ValueError):
        pd.Series([1.0]).ewm(com=1, span=2)
    with pytest.raises(NotImplementedError):
        pd.Series([1.0]).ewm(com=1, adjust=False).sum()
