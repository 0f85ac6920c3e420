"""Group-by float sums, means, variances and products in pandas' digits.

pandas adds each group's values in row order with its own Kahan loop
(groupby.pyx group_sum / group_mean, Welford for var / std), except when the
rows lie by group and the column has no missing value: then sum and mean are
np.add.reduceat (the group's first value plus numpy's pairwise sum of the
rest).  zambezi follows both rules, so results compare with `==` against
pandas run side by side, for any thread count (conftest's `threads`: 1 and 3).
"""
import numpy as np
import pandas as pd
import pytest

import zambezi as zb

OPS = ["sum", "mean", "var", "std", "sem", "prod"]


def same_bits(p, z):
    """pandas result p and zambezi result z: equal values, NaN at the same places."""
    a = p.to_numpy(dtype=float)
    b = np.asarray(z.to_pandas().to_numpy(), dtype=float)
    assert a.shape == b.shape
    bad = ~((a == b) | (np.isnan(a) & np.isnan(b)))
    assert not bad.any(), f"{bad.sum()} of {a.size} differ, first at {np.argmax(bad.ravel())}"


def prices(rng, n, nan_rate):
    v = (rng.normal(size=n) * 100).round(2)
    v[rng.random(n) < nan_rate] = np.nan
    return v


def check(keys, v, ops=OPS, **kw):
    p = pd.DataFrame({"k": keys, "v": v})
    z = zb.DataFrame({"k": keys, "v": v})
    for op in ops:
        if op == "prod":  # products of prices overflow; small factors instead
            pv, zv = p.assign(v=1 + p.v / 1e4), z.assign(v=1 + z.v / 1e4)
        else:
            pv, zv = p, z
        same_bits(getattr(pv.groupby("k", **kw)["v"], op)(),
                  getattr(zv.groupby("k", **kw)["v"], op)())


@pytest.mark.parametrize("groups", [1, 3, 100, 5000, 300000])
@pytest.mark.parametrize("nan_rate", [0.0, 0.1])
def test_random_keys(threads, groups, nan_rate):
    rng = np.random.default_rng(groups + int(nan_rate * 10))
    n = 400000 if groups == 300000 else 60000
    check(rng.integers(0, groups, n), prices(rng, n, nan_rate))


@pytest.mark.parametrize("nan_rate", [0.0, 0.05])
@pytest.mark.parametrize("sort", [True, False])
def test_rows_by_group(threads, nan_rate, sort):
    # sorted keys: pandas' reduceat path without NaN, its Kahan loop with
    rng = np.random.default_rng(5)
    n = 200000
    keys = np.sort(rng.integers(0, 300, n))
    check(keys, prices(rng, n, nan_rate), sort=sort)


def test_one_group_and_long_groups(threads):
    rng = np.random.default_rng(11)
    n = 300000
    check(np.zeros(n, dtype=np.int64), prices(rng, n, 0.0))
    check(np.repeat([5, 2, 9], [1, n - 10, 9]), prices(rng, n, 0.0), sort=False)


def test_dropped_key_rows_first_and_between():
    rng = np.random.default_rng(2)
    n = 50000
    k = np.sort(rng.integers(0, 50, n)).astype(float)
    k[:100] = np.nan  # rows of no group first: the rows still lie by group
    check(k, prices(rng, n, 0.0), ops=["sum", "mean"])
    k[30000:30010] = np.nan  # a row of no group between groups: they do not
    check(k, prices(rng, n, 0.0), ops=["sum", "mean"])


def test_categorical_and_two_keys():
    rng = np.random.default_rng(4)
    n = 80000
    cat = pd.Categorical(rng.choice(list("abcdef"), n), categories=list("fedcbaz"))
    v = prices(rng, n, 0.0)
    for observed in (True, False):
        p = pd.DataFrame({"c": cat, "v": v}).groupby("c", observed=observed)["v"]
        z = zb.DataFrame({"c": cat, "v": v}).groupby("c", observed=observed)["v"]
        same_bits(p.sum(), z.sum())
        same_bits(p.mean(), z.mean())
    a, b = rng.integers(0, 7, n), rng.integers(0, 9, n)
    p = pd.DataFrame({"a": a, "b": b, "v": v})
    z = zb.DataFrame({"a": a, "b": b, "v": v})
    for op in ["sum", "mean", "std"]:
        same_bits(getattr(p.groupby(["a", "b"])["v"], op)(),
                  getattr(z.groupby(["a", "b"])["v"], op)())
    order = np.lexsort((b, a))
    ps, zs = p.iloc[order], zb.DataFrame({"a": a[order], "b": b[order], "v": v[order]})
    same_bits(ps.groupby(["a", "b"])["v"].sum(), zs.groupby(["a", "b"])["v"].sum())


def test_hand_computed_kahan():
    # 1e16 + 1 - 1e16: pandas' Kahan step gives 0.0 (a compensated sum that
    # adds the compensation back would give 1.0); values in row order.
    keys = [0, 1, 0, 1, 0]
    v = [1e16, 2.0, 1.0, 3.0, -1e16]
    z = zb.DataFrame({"k": keys, "v": v}).groupby("k")["v"].sum().to_pandas()
    assert z.tolist() == [0.0, 5.0]


def test_overflow_rules():
    # group_sum resets an infinite compensation; group_mean keeps it and turns
    # NaN at the next value.  Random order: pandas' Kahan loop.
    keys = [0, 1, 0, 2, 0, 1, 2]
    v = [1e308, 1e308, 1e308, 1.0, 5.0, 1e308, np.inf]
    p = pd.DataFrame({"k": keys, "v": v}).groupby("k")["v"]
    z = zb.DataFrame({"k": keys, "v": v}).groupby("k")["v"]
    for op in ["sum", "mean"]:
        same_bits(getattr(p, op)(), getattr(z, op)())
    same_bits(p.agg(["sum", "mean"]), z.agg(["sum", "mean"]))
    assert np.isnan(z.mean().to_pandas().iloc[0])


@pytest.mark.parametrize("nan_rate", [0.0, 0.1])
def test_resample(threads, nan_rate):
    rng = np.random.default_rng(9)
    n = 200000
    idx = pd.date_range("2024-01-01", periods=n, freq="7s")
    v = prices(rng, n, nan_rate)
    p = pd.Series(v, index=idx).resample("1h")
    z = zb.Series(v, index=idx).resample("1h")
    for op in ["sum", "mean", "std"]:
        same_bits(getattr(p, op)(), getattr(z, op)())


@pytest.mark.parametrize("layout", ["random", "sorted"])
@pytest.mark.parametrize("nan_rate", [0.0, 0.1])
def test_float32(threads, layout, nan_rate):
    # pandas adds float32 sums, means, variances and products in float32
    # (std in float64), and a reduceat mean in float64 (a float64 result)
    rng = np.random.default_rng(21)
    n = 100000
    keys = rng.integers(0, 60, n)
    if layout == "sorted":
        keys = np.sort(keys)
    v = prices(rng, n, nan_rate).astype(np.float32)
    p = pd.DataFrame({"k": keys, "v": v, "f": (1 + v / 1e4).astype(np.float32)})
    z = zb.DataFrame({"k": keys, "v": v, "f": (1 + v / 1e4).astype(np.float32)})
    for op in ["sum", "mean", "var", "std"]:
        pr, zr = getattr(p.groupby("k")["v"], op)(), getattr(z.groupby("k")["v"], op)()
        assert str(zr.dtype) == str(pr.dtype), op
        same_bits(pr, zr)
    same_bits(p.groupby("k")["f"].prod(), z.groupby("k")["f"].prod())


@pytest.mark.parametrize("nan_rate", [0.0, 0.1])
def test_resample_float32(nan_rate):
    rng = np.random.default_rng(10)
    n = 100000
    idx = pd.date_range("2024-01-01", periods=n, freq="7s")
    v = prices(rng, n, nan_rate).astype(np.float32)
    p = pd.Series(v, index=idx).resample("1h")
    z = zb.Series(v, index=idx).resample("1h")
    for op in ["sum", "mean"]:
        pr, zr = getattr(p, op)(), getattr(z, op)()
        assert str(zr.dtype) == str(pr.dtype), op
        same_bits(pr, zr)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("groups", [3, 50, 100000])
def test_cumsum_cumprod(threads, dtype, groups):
    # pandas' group_cumsum is a Kahan loop in row order, group_cumprod a
    # running product in row order, in the column's float type
    rng = np.random.default_rng(groups)
    n = 300000
    keys = rng.integers(0, groups, n)
    v = prices(rng, n, 0.1).astype(dtype)
    f = (1 + v / 1e4).astype(dtype)
    p = pd.DataFrame({"k": keys, "v": v, "f": f})
    z = zb.DataFrame({"k": keys, "v": v, "f": f})
    for skipna in (True, False):
        same_bits(p.groupby("k")["v"].cumsum(skipna=skipna),
                  z.groupby("k")["v"].cumsum(skipna=skipna))
        same_bits(p.groupby("k")["f"].cumprod(skipna=skipna),
                  z.groupby("k")["f"].cumprod(skipna=skipna))


def test_cumsum_infinity():
    # no compensation reset in pandas' group_cumsum: after an infinity the
    # group's running sum is NaN
    keys = [0, 1, 0, 0, 1]
    v = [1.0, 2.0, np.inf, 3.0, 4.0]
    p = pd.DataFrame({"k": keys, "v": v}).groupby("k")["v"].cumsum()
    z = zb.DataFrame({"k": keys, "v": v}).groupby("k")["v"].cumsum()
    same_bits(p, z)
    assert np.isnan(z.to_pandas().iloc[3])


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_skew_kurt(dtype):
    # pandas' group_skew / group_kurt: an online update in row order
    # (moments_add_value), then calc_skew / calc_kurt
    rng = np.random.default_rng(17)
    n = 100000
    keys = rng.integers(0, 300, n)
    v = prices(rng, n, 0.1)
    keys[:6], v[:6] = 999, 5.0   # a group without spread
    keys[6:8] = 998              # a group of two
    v = np.nan_to_num(v).astype(dtype) if dtype == "int64" else v.astype(dtype)
    p = pd.DataFrame({"k": keys, "v": v}).groupby("k")["v"]
    z = zb.DataFrame({"k": keys, "v": v}).groupby("k")["v"]
    for op in ["skew", "kurt"]:
        for skipna in (True, False):
            same_bits(getattr(p, op)(skipna=skipna), getattr(z, op)(skipna=skipna))
