"""Group-by min / max of ordered categorical value columns follow the
category order (pandas' rule), on every group-by path: one or several
keys, sorted or in first-appearance order, missing keys kept, the grouping
kept for a second aggregation, a frame-wide min, transform; pandas run side
by side is the oracle.  Unordered categoricals still refuse min / max."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb


def _frame(seed, n, cats, nullp):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, len(cats), n)
    vals = np.array(cats, dtype=object)[codes]
    vals[rng.random(n) < nullp] = None
    order = list(rng.permutation(cats))  # category order differs from sorted order
    return pd.DataFrame({
        "k": rng.integers(0, max(n // 7, 1), n),
        "k2": rng.choice(["x", "y", None], n),
        "c": pd.Categorical(vals, categories=order, ordered=True),
        "v": rng.random(n),
    })


def _same(got, want):
    got = got.to_pandas() if hasattr(got, "to_pandas") else got
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want, check_index_type=False)
    else:
        pd.testing.assert_series_equal(got, want, check_index_type=False)


CASES = {
    "min": lambda d: d.groupby("k")["c"].min(),
    "max": lambda d: d.groupby("k")["c"].max(),
    "two keys, unsorted, missing keys": lambda d: d.groupby(["k2", "k"], sort=False,
                                                            dropna=False)["c"].max(),
    "agg dict": lambda d: d.groupby("k").agg({"c": ["min", "max"], "v": "sum"}),
    # (without the string key: pandas makes an empty group-by's strings object)
    "frame-wide min": lambda d: d[["k", "c", "v"]].groupby("k").min(),
    "frame-wide max, as_index=False": lambda d: d[["k", "c", "v"]].groupby(
        "k", as_index=False).max(),
    "transform": lambda d: d.groupby("k")["c"].transform("min"),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("seed,n,nullp", [(1, 0, 0.0), (2, 1, 0.0), (3, 50, 0.3),
                                          (4, 5000, 0.1), (5, 20000, 0.9)])
def test_min_max_follow_the_category_order(case, seed, n, nullp):
    pdf = _frame(seed, n, ["apple", "kiwi", "fig", "banana", "cherry"], nullp)
    fn = CASES[case]
    _same(fn(zb.DataFrame(pdf)), fn(pdf))


def test_integer_categories_in_their_own_order():
    pdf = _frame(7, 3000, [30, 10, 20, 5], 0.2)
    for fn in (CASES["min"], CASES["max"], CASES["agg dict"]):
        _same(fn(zb.DataFrame(pdf)), fn(pdf))


def test_grouping_kept_for_a_second_aggregation():
    pdf = _frame(8, 4000, list("qwerty"), 0.2)
    zg, pg = zb.DataFrame(pdf).groupby("k"), pdf.groupby("k")
    _same(zg["v"].sum(), pg["v"].sum())
    _same(zg["c"].min(), pg["c"].min())
    _same(zg["c"].max(), pg["c"].max())


def test_unordered_categoricals_still_refuse():
    pdf = _frame(9, 100, list("abc"), 0.0)
    pdf["c"] = pdf["c"].cat.as_unordered()
    with pytest.raises(TypeError):
        pdf.groupby("k")["c"].min()
    with pytest.raises(TypeError, match="unordered"):
        zb.DataFrame(pdf).groupby("k")["c"].min()


@pytest.mark.parametrize("method", ["average", "min", "max", "first", "dense"])
@pytest.mark.parametrize("ordered", [True, False])
def test_rank_in_category_order_when_ordered(method, ordered):
    pdf = _frame(11, 3000, ["kiwi", "apple", "fig", "banana"], 0.2)
    if not ordered:
        pdf["c"] = pdf["c"].cat.as_unordered()
    zdf = zb.DataFrame(pdf)
    _same(zdf["c"].rank(method=method), pdf["c"].rank(method=method))
    if not ordered:  # pandas ranks an unordered categorical only outside groups
        with pytest.raises(TypeError):
            pdf.groupby("k")["c"].rank(method=method)
        with pytest.raises(TypeError, match="unordered"):
            zdf.groupby("k")["c"].rank(method=method)
        return
    _same(zdf.groupby("k")["c"].rank(method=method, ascending=False),
          pdf.groupby("k")["c"].rank(method=method, ascending=False))
