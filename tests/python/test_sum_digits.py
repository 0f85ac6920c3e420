"""Float sums, means, variances and standard deviations are pandas' to the
last bit: zambezi adds in numpy's pairwise order (the order pandas' sum,
mean and var add in), missing values adding 0 in their place, so printed
results match pandas' digits (``1.52``, not ``1.5199999999999998``).

Oracle: pandas run side by side on the same values, compared with ``==``
(not a tolerance), over sizes on each side of numpy's block edges (8, 128,
and zambezi's morsel of 65,536 rows, where the parallel subtrees meet),
with and without missing values, at 1 and 3 engine threads.
"""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb

SIZES = [1, 7, 8, 9, 10, 63, 127, 128, 129, 130, 1000, 8193, 65_536, 65_537, 300_007]


@pytest.fixture(params=[1, 3])
def threads(request):
    saved = zb.get_num_threads()
    zb.set_num_threads(request.param)
    yield request.param
    zb.set_num_threads(saved)


def same(a, b):
    return (np.isnan(a) and np.isnan(b)) or a == b


def values(n, seed, nulls, dtype="float64"):
    rng = np.random.default_rng(seed)
    # prices with two decimals: the data whose sums most often differ in
    # the last bit between addition orders
    a = (rng.normal(size=n) * 100).round(2)
    if nulls:
        a[rng.random(n) < 0.15] = np.nan
    return a.astype(dtype)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("nulls", [False, True])
def test_series_sum_mean_var_std_are_pandas_bits(n, nulls, threads):
    for seed in range(3):
        a = values(n, seed, nulls)
        p, z = pd.Series(a), zb.Series(a)
        for op in ["sum", "mean", "var", "std"]:
            want, got = getattr(p, op)(), getattr(z, op)()
            assert same(want, got), (op, n, seed, repr(want), repr(got))
        assert same(p.var(ddof=0), z.var(ddof=0))
        assert same(p.std(ddof=3), z.std(ddof=3))


def test_ten_tenths_sum_to_one():
    # the hand-computed case: eight running sums of 0.1 joined pairwise,
    # then two more; adding one by one gives 0.9999999999999999
    assert zb.Series([0.1] * 10).sum() == 1.0
    assert zb.Series([0.1] * 5 + [None] + [0.1] * 5).sum() == 1.0


@pytest.mark.parametrize("n", [10, 129, 1000, 70_001])
def test_float32_sums_in_float32_as_numpy(n):
    for seed in range(3):
        a = values(n, seed, seed == 1, "float32")
        want = pd.Series(a).sum()
        assert want.dtype == np.float32
        assert float(want) == zb.Series(a).sum()
        assert float(pd.Series(a).mean()) == zb.Series(a).mean()


@pytest.mark.parametrize("n", [10, 1000, 70_001])
def test_int_variance_is_pandas_bits(n):
    rng = np.random.default_rng(n)
    a = rng.integers(-10**6, 10**6, n)
    p, z = pd.Series(a), zb.Series(a)
    assert p.var() == z.var() and p.std() == z.std()


def test_frame_reductions_are_pandas_bits(threads):
    rng = np.random.default_rng(7)
    n = 5003
    pdf = pd.DataFrame({"x": values(n, 1, True), "y": values(n, 2, False),
                        "k": rng.integers(0, 9, n)})
    zdf = zb.from_pandas(pdf)
    for op in ["sum", "mean", "var", "std"]:
        want = getattr(pdf[["x", "y"]], op)()
        got = getattr(zdf[["x", "y"]], op)()
        assert want.tolist() == got.tolist(), op
    d = pdf.describe()
    assert zdf.describe().to_pandas().loc[["mean", "std"]].equals(d.loc[["mean", "std"]])


def test_infinities_and_all_missing():
    assert np.isnan(zb.Series([np.inf, 1.0, -np.inf]).sum())
    assert zb.Series([np.inf, 1.0, None]).sum() == np.inf
    assert zb.Series([None, None], dtype="float64").sum() == 0.0
    assert np.isnan(zb.Series([np.inf, 2.0]).var())


@pytest.mark.parametrize("n", [2, 129, 5003])
def test_float32_frame_statistics_stay_float32(n):
    # pandas keeps float32 for a float32 frame's mean / std / var / median,
    # its variance rounded to float32 and its std the float32 square root
    for seed in range(3):
        a = values(n, seed, seed == 1, "float32")
        pdf = pd.DataFrame({"a": a, "b": a * 2})
        zdf = zb.from_pandas(pdf)
        for op in ["sum", "mean", "std", "var", "median"]:
            want, got = getattr(pdf, op)(), getattr(zdf, op)()
            got = got.to_pandas()
            assert got.dtype == want.dtype == np.float32, op
            assert np.array_equal(got.to_numpy(), want.to_numpy(), equal_nan=True), op
        for op in ["std", "var"]:
            want = getattr(pd.Series(a), op)()
            got = getattr(zb.Series(a), op)()
            if np.isnan(want):
                assert got is None or np.isnan(got), op
            else:
                assert np.float32(got) == want, op
