"""ewm over a whole column of several morsels (65536 rows each), compared
with pandas run side by side: mean / sum / var / std / cov / corr, adjust
and ignore_na both ways, min_periods, missing values scattered and in runs
longer than a morsel, a slow decay, an outlier 10^12 times the other
values (whose weight takes thousands of rows to fade), and pandas' own
rule for adjust=False with com == 1.  A mean, sum, var or std runs by
morsels on every core, each from a warm-up a few hundred rows back whose state is
checked against the previous morsel's true end state (a morsel whose
warm-up did not reach it, as after such an outlier, is computed again):
the results equal one thread's serial pass bit for bit."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from conftest import seed_for
from pandas_compare import assert_series_like

TOL = {"rtol": 1e-12, "atol": 1e-12}
N = 4 * 65536 + 1234


def column(seed, missing="scattered"):
    rng = np.random.default_rng(seed)
    v = rng.standard_normal(N) * 10 + 3
    if missing == "scattered":
        v[rng.random(N) < 0.05] = np.nan
    elif missing == "runs":
        # a run of missing values across a morsel boundary (short of a whole
        # morsel) and one longer than a morsel
        v[65000:66500] = np.nan
        v[2 * 65536 - 10: 3 * 65536 + 500] = np.nan
    return pd.Series(v)


@pytest.mark.parametrize("missing", ["none", "scattered", "runs"])
@pytest.mark.parametrize("adjust", [True, False])
@pytest.mark.parametrize("ignore_na", [False, True])
def test_mean_sum_var_std(missing, adjust, ignore_na):
    p = column(seed_for("ewm morsels", missing, adjust, ignore_na), missing)
    z = zb.Series(p)
    for kw in ({"span": 20}, {"alpha": 0.4}, {"halflife": 300.0}):
        pe = p.ewm(adjust=adjust, ignore_na=ignore_na, **kw)
        ze = z.ewm(adjust=adjust, ignore_na=ignore_na, **kw)
        for op in ("mean", "sum", "var", "std") if adjust else ("mean", "var", "std"):
            # (sum with adjust=False raises, in pandas too)
            assert_series_like(getattr(ze, op)(), getattr(pe, op)(), f"{op} {kw}", **TOL)


def test_min_periods_and_slow_decay():
    p = column(seed_for("ewm morsels minp"))
    z = zb.Series(p)
    assert_series_like(z.ewm(span=10, min_periods=50).mean(),
                       p.ewm(span=10, min_periods=50).mean(), "min_periods", **TOL)
    # min_periods beyond the first morsel's values: the serial pass
    q = p.copy()
    q[:65536] = np.nan
    assert_series_like(zb.Series(q).ewm(span=10, min_periods=3).mean(),
                       q.ewm(span=10, min_periods=3).mean(), "first morsel empty", **TOL)
    # alpha so small that the warm-up would pass a quarter morsel: serial
    assert_series_like(z.ewm(alpha=1e-4).mean(), p.ewm(alpha=1e-4).mean(), "slow decay",
                       **TOL)


def test_pairs_cov_corr():
    rng = np.random.default_rng(seed_for("ewm morsels pairs"))
    a = pd.Series(rng.standard_normal(N))
    b = a * 0.5 + pd.Series(rng.standard_normal(N))
    a[rng.random(N) < 0.03] = np.nan
    b[rng.random(N) < 0.03] = np.nan
    za, zb_ = zb.Series(a), zb.Series(b)
    for ignore_na in (False, True):
        assert_series_like(za.ewm(span=30, ignore_na=ignore_na).cov(zb_),
                           a.ewm(span=30, ignore_na=ignore_na).cov(b), "cov", **TOL)
        assert_series_like(za.ewm(span=30, ignore_na=ignore_na).corr(zb_),
                           a.ewm(span=30, ignore_na=ignore_na).corr(b), "corr", **TOL)


def test_frame_columns():
    rng = np.random.default_rng(seed_for("ewm morsels frame"))
    p = pd.DataFrame({"a": rng.standard_normal(N), "b": rng.random(N) * 100})
    p.loc[rng.random(N) < 0.1, "b"] = np.nan
    z = zb.DataFrame(p)
    got = z.ewm(com=5).mean().to_pandas()
    exp = p.ewm(com=5).mean()
    for c in ("a", "b"):
        assert_series_like(zb.Series(got[c]), exp[c], c, **TOL)


@pytest.mark.parametrize("kw", [{"alpha": 0.5}, {"com": 1}, {"span": 3}, {"halflife": 1.0},
                                {"alpha": 0.3}])
def test_adjust_false_new_weight_with_com_one(kw):
    # with adjust=False a new value weighs alpha (1 - old weight only over
    # times); pandas up to 3.1.1 took com == 1 (alpha 0.5) as "times given"
    # and weighed 1 - old weight there, which differs after missing rows
    x = pd.Series([1.0, np.nan, 5.0, 2.0, np.nan, np.nan, 7.5, 3.0, np.nan, 4.0])
    for ignore_na in (False, True):
        assert_series_like(zb.Series(x).ewm(adjust=False, ignore_na=ignore_na, **kw).mean(),
                           x.ewm(adjust=False, ignore_na=ignore_na, **kw).mean(),
                           f"{kw} ignore_na={ignore_na}", **TOL)
    p = column(seed_for("ewm com one", str(kw)), "scattered")
    assert_series_like(zb.Series(p).ewm(adjust=False, **kw).mean(), p.ewm(adjust=False, **kw).mean(),
                       f"{kw} long", **TOL)


def test_an_outlier_fades_as_in_pandas():
    rng = np.random.default_rng(seed_for("ewm outlier"))
    v = rng.standard_normal(N)
    v[65536 - 600] = 1e12  # just before a morsel boundary: its weight lasts into the next
    p = pd.Series(v)
    z = zb.Series(p)
    for kw in ({"span": 20}, {"alpha": 0.05}):
        assert_series_like(z.ewm(**kw).mean(), p.ewm(**kw).mean(), f"mean {kw}", **TOL)
        assert_series_like(z.ewm(**kw).std(), p.ewm(**kw).std(), f"std {kw}", **TOL)


def _serial_and_parallel(z, op, **kw):
    old = zb.get_num_threads()
    try:
        got = []
        for threads in (1, 2):
            zb.set_num_threads(threads)
            got.append(np.asarray(getattr(z.ewm(**kw), op)().to_pandas(), dtype=np.float64))
        return got
    finally:
        zb.set_num_threads(old)


@pytest.mark.parametrize("case", ["plain", "outlier", "runs", "minp", "constant"])
def test_every_core_gives_the_serial_pass_bit_for_bit(case):
    # one thread runs the serial recurrence, two run it by morsels: the
    # same bits, also where a warm-up cannot converge (the outlier; missing
    # runs under ignore_na) or min_periods is not reached by a morsel start
    rng = np.random.default_rng(seed_for("ewm bits", case))
    v = rng.standard_normal(N) * 10 + 3
    kw = {"span": 20}
    if case == "outlier":
        v[65536 * 2 - 300] = 1e14
    elif case == "runs":
        v[rng.random(N) < 0.2] = np.nan
        v[65536 - 100:65536 + 5000] = np.nan
        kw = {"alpha": 0.1, "ignore_na": True}
    elif case == "minp":
        v[:65536 + 10] = np.nan
        kw = {"span": 5, "min_periods": 20}
    elif case == "constant":
        v[:] = 2.5
        kw = {"com": 1, "adjust": False}
    z = zb.Series(pd.Series(v))
    for op in ("mean", "sum", "var", "std") if kw.get("adjust", True) else ("mean", "var", "std"):
        serial, parallel = _serial_and_parallel(z, op, **kw)
        assert np.array_equal(np.isnan(serial), np.isnan(parallel)), (case, op)
        ok = ~np.isnan(serial)
        assert np.array_equal(serial[ok].view(np.int64), parallel[ok].view(np.int64)), (case, op)
        assert_series_like(zb.Series(parallel), getattr(pd.Series(v).ewm(**kw), op)(),
                           f"{case} {op}", **TOL)
