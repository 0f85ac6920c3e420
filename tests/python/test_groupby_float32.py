"""Aggregations of float32 columns keep float32 where pandas does: group-by
sum / mean / prod / std / var / median (as Series and frame methods, in
agg lists and dicts, under pivot_table) and resample's; quantile stays
float64.  The engine computes them in float64 and the result is rounded
back (zambezi._groupby._float32_back).  Compared with pandas run side by
side, with NaN in the column and an empty group / bin."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import assert_frame_like, assert_series_like

TOL = {"rtol": 2e-6, "atol": 1e-6}  # float32: pandas sums in float32 (Kahan), zambezi in float64


def frame(n=300, seed=5):
    rng = np.random.default_rng(seed)
    v = (rng.standard_normal(n) * 3).astype("float32")
    v[rng.random(n) < 0.1] = np.nan
    v[rng.integers(0, 6, n) == 5] = np.nan  # some groups lose many values
    k = rng.integers(0, 6, n)
    v[k == 4] = np.nan  # a group with no value at all
    return pd.DataFrame({"k": k, "v": v, "w": rng.random(n)})


OPS = ["sum", "mean", "prod", "std", "var", "median", "min", "max", "first", "last"]


@pytest.mark.parametrize("op", OPS)
def test_series_groupby_keeps_float32(op):
    p = frame()
    z = zb.from_pandas(p)
    exp = getattr(p.groupby("k")["v"], op)()
    got = getattr(z.groupby("k")["v"], op)()
    assert got.to_pandas().dtype == exp.dtype == np.float32, op
    assert_series_like(got, exp, f"groupby v.{op}", **TOL)


@pytest.mark.parametrize("op", OPS)
def test_frame_groupby_keeps_float32(op):
    p = frame()
    z = zb.from_pandas(p)
    exp = getattr(p.groupby("k"), op)()
    got = getattr(z.groupby("k", as_index=True), op)()
    assert list(got.to_pandas().dtypes) == list(exp.dtypes), op
    assert_frame_like(got, exp, f"groupby.{op}", **TOL)


def test_quantile_of_float32_is_float64():
    p = frame()
    z = zb.from_pandas(p)
    exp = p.groupby("k")["v"].quantile(0.3)
    got = z.groupby("k")["v"].quantile(0.3)
    assert exp.dtype == np.float64
    assert_series_like(got, exp, "quantile", **TOL)


def test_agg_lists_and_dicts():
    p = frame()
    z = zb.from_pandas(p)
    spec = {"v": ["sum", "mean", "std"], "w": ["sum", "median"]}
    exp = p.groupby("k").agg(spec)
    got = z.groupby("k").agg(spec)
    assert list(got.to_pandas().dtypes) == list(exp.dtypes)
    assert_frame_like(got, exp, "agg dict of lists", **TOL)
    exp = p.groupby("k", as_index=False).agg(total=("v", "sum"), spread=("v", "var"))
    got = z.groupby("k", as_index=False).agg(total=("v", "sum"), spread=("v", "var"))
    assert_frame_like(got, exp, "named agg, as_index=False", **TOL)


def test_pivot_table_sum_of_float32():
    p = frame()
    p["c"] = np.where(np.arange(len(p)) % 3 == 0, "a", "b")
    z = zb.from_pandas(p)
    exp = p.pivot_table(index="k", columns="c", values="v", aggfunc="sum")
    got = zb.pivot_table(z, index="k", columns="c", values="v", aggfunc="sum")
    assert list(got.to_pandas().dtypes) == list(exp.dtypes)


@pytest.mark.parametrize("op", ["sum", "mean", "prod", "std", "var", "median", "min", "max"])
def test_resample_keeps_float32(op):
    p = frame(120)
    # times in order with a gap, so that some hourly bins are empty
    t = pd.Timestamp("2024-03-01") + pd.to_timedelta(
        np.cumsum(np.r_[0, np.full(59, 7), [400], np.full(59, 11)]), unit="min")
    p.index = t
    z = zb.from_pandas(p)
    exp = getattr(p[["v", "w"]].resample("h"), op)()
    got = getattr(z[["v", "w"]].resample("h"), op)()
    assert list(got.to_pandas().dtypes) == list(exp.dtypes), op
    assert_frame_like(got, exp, f"resample {op}", **TOL)
    exp = getattr(p["v"].resample("2h"), op)()
    got = getattr(z["v"].resample("2h"), op)()
    assert_series_like(got, exp, f"Series resample {op}", **TOL)


@pytest.mark.parametrize("sorted_keys", [False, True])
@pytest.mark.parametrize("nan", [False, True])
def test_mean_of_float32_follows_pandas_paths(sorted_keys, nan):
    # pandas 3 keeps float32 for a mean, except on its reduceat path (the
    # rows' group ids never decrease and the column holds no NaN), which
    # gives float64
    rng = np.random.default_rng(11 + 2 * sorted_keys + nan)
    k = rng.integers(0, 12, 400)
    if sorted_keys:
        k = np.sort(k)
    p = pd.DataFrame({"k": k, "v": (rng.random(400) * 10).astype("float32")})
    if nan:
        p.loc[7, "v"] = np.nan
    z = zb.from_pandas(p)
    exp = p.groupby("k")["v"].mean()
    got = z.groupby("k")["v"].mean()
    assert got.to_pandas().dtype == exp.dtype
    assert_series_like(got, exp, "mean", **TOL)
    exp = p.groupby("k", sort=False).mean()
    got = z.groupby("k", sort=False).mean()
    assert_frame_like(got, exp, "frame mean, sort=False", **TOL)
    t = p.set_index(pd.Timestamp("2024-01-01") + pd.to_timedelta(np.arange(400) * 13, unit="min"))
    exp = t.resample("h")["v"].mean()
    got = zb.from_pandas(t).resample("h")["v"].mean()
    assert got.to_pandas().dtype == exp.dtype
    assert_series_like(got, exp, "resample mean", **TOL)
