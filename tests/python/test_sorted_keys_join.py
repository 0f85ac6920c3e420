"""Joins and alignments on keys strictly increasing on both sides (the
engine merges them, src/cpu/merge_join.c, instead of hashing), against
pandas run side by side: merge of every kind, Series arithmetic,
combine_first, align and reindex-like joins on integer, timestamp and date
labels; sizes across the merge's 65,536-row chunks; sides that do not
overlap; and near misses that must take the hash join (a repeated key, a
key out of order, nulls, keys of two types)."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from side_by_side import same


def rising(rng, n, start=0, dtype="int64"):
    """n strictly increasing values from about start, gaps of 1 to 3."""
    v = start + np.cumsum(rng.integers(1, 4, n))
    if dtype.startswith("datetime64"):
        return pd.to_datetime(v * 1_000_000_000).values.astype(dtype)
    return v.astype(dtype)


SIZES = [(0, 0), (0, 5), (6, 0), (1, 1), (50, 70), (140_000, 150_000), (200_000, 40)]


@pytest.mark.parametrize("nl,nr", SIZES)
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint64", "datetime64[ns]"])
def test_merge_every_kind(nl, nr, dtype):
    rng = np.random.default_rng(nl * 7 + nr)
    left = pd.DataFrame({"k": rising(rng, nl, 5, dtype), "a": rng.random(nl)})
    right = pd.DataFrame({"k": rising(rng, nr, 0, dtype), "b": rng.integers(0, 9, nr)})
    zl, zr = zb.from_pandas(left), zb.from_pandas(right)
    for how in ["inner", "left", "right", "outer"]:
        want = left.merge(right, on="k", how=how)
        got = zl.merge(zr, on="k", how=how).to_pandas().reset_index(drop=True)
        pd.testing.assert_frame_equal(got, want, check_dtype=False)


@pytest.mark.parametrize("shift", [0, 10**6, -10**6])
def test_sides_apart_or_interleaved(shift):
    rng = np.random.default_rng(abs(shift) % 97)
    left = pd.DataFrame({"k": rising(rng, 3000, 0), "a": np.arange(3000)})
    right = pd.DataFrame({"k": rising(rng, 2000, shift), "b": np.arange(2000)})
    zl, zr = zb.from_pandas(left), zb.from_pandas(right)
    for how in ["inner", "left", "right", "outer"]:
        want = left.merge(right, on="k", how=how, sort=True)
        got = zl.merge(zr, on="k", how=how, sort=True).to_pandas().reset_index(drop=True)
        pd.testing.assert_frame_equal(got, want, check_dtype=False)


@pytest.mark.parametrize("dtype", ["int64", "datetime64[ns]", "datetime64[s]"])
@pytest.mark.parametrize("n", [40, 100_000])
def test_series_alignment(dtype, n):
    rng = np.random.default_rng(n)
    a = pd.Series(rng.random(n), index=rising(rng, n, 0, dtype))
    b = pd.Series(rng.random(n // 2), index=rising(rng, n // 2, 3, dtype))
    za, zbs = zb.from_pandas(a), zb.from_pandas(b)
    same(za + zbs, a + b)
    same(za.combine_first(zbs), a.combine_first(b))
    for join in ["outer", "inner", "left", "right"]:
        same(za.align(zbs, join=join), a.align(b, join=join))


def test_date_labels():
    rng = np.random.default_rng(3)
    da = pd.Index(pd.to_datetime(rising(rng, 500, 18_000), unit="D").date, dtype=object)
    db = pd.Index(pd.to_datetime(rising(rng, 300, 18_010), unit="D").date, dtype=object)
    a = zb.Series(np.arange(500.0), index=zb.Index(zb.Series(list(da)).astype("date32")))
    b = zb.Series(np.arange(300.0), index=zb.Index(zb.Series(list(db)).astype("date32")))
    want = pd.Series(np.arange(500.0), index=da) + pd.Series(np.arange(300.0), index=db)
    got = (a + b).to_pandas()
    np.testing.assert_array_equal(got.values, want.values)
    assert [str(x) for x in got.index] == [str(x) for x in want.index]


@pytest.mark.parametrize("case", ["repeat", "out_of_order", "nulls", "two_types", "decreasing"])
def test_near_misses_take_the_hash_join(case):
    rng = np.random.default_rng(11)
    lk = rising(rng, 5000, 0)
    rk = rising(rng, 4000, 2)
    if case == "repeat":
        lk[2500] = lk[2499]
    elif case == "out_of_order":
        lk[[100, 4000]] = lk[[4000, 100]]
    elif case == "decreasing":
        lk = lk[::-1].copy()
    left = pd.DataFrame({"k": lk, "a": np.arange(5000)})
    right = pd.DataFrame({"k": rk, "b": np.arange(4000)})
    if case == "nulls":
        left["k"] = left["k"].astype(float)
        left.loc[[7, 3000], "k"] = np.nan
        right["k"] = right["k"].astype(float)
    if case == "two_types":
        right["k"] = right["k"].astype("int32")
    zl, zr = zb.from_pandas(left), zb.from_pandas(right)
    for how in ["inner", "left", "right", "outer"]:
        want = left.merge(right, on="k", how=how)
        got = zl.merge(zr, on="k", how=how).to_pandas().reset_index(drop=True)
        pd.testing.assert_frame_equal(got, want, check_dtype=False)
    a = pd.Series(np.arange(5000.0), index=lk)
    b = pd.Series(np.arange(4000.0), index=rk)
    same(zb.from_pandas(a) + zb.from_pandas(b), a + b)


def test_frame_alignment_of_time_series():
    rng = np.random.default_rng(5)
    t1 = rising(rng, 20_000, 0, "datetime64[ns]")
    t2 = rising(rng, 15_000, 1, "datetime64[ns]")
    a = pd.DataFrame({"x": rng.random(20_000), "y": rng.integers(0, 5, 20_000)}, index=t1)
    b = pd.DataFrame({"x": rng.random(15_000), "z": rng.random(15_000)}, index=t2)
    same(zb.from_pandas(a) + zb.from_pandas(b), a + b)
    same(zb.from_pandas(a).combine_first(zb.from_pandas(b)), a.combine_first(b))


def test_time_labels_of_two_units_or_zones():
    rng = np.random.default_rng(9)
    a = pd.Series(rng.random(300), index=rising(rng, 300, 0, "datetime64[s]"))
    b = pd.Series(rng.random(200), index=rising(rng, 200, 1, "datetime64[us]"))
    za, zbs = zb.from_pandas(a), zb.from_pandas(b)
    same(za + zbs, a + b)
    same(za.combine_first(zbs), a.combine_first(b))
    same(za.align(zbs)[1], a.align(b)[1])
    au, bp = a.tz_localize("UTC"), b.tz_localize("Europe/Paris")
    same(zb.from_pandas(au) + zb.from_pandas(bp), au + bp)     # two zones: UTC
    with pytest.raises(TypeError):
        za + zb.from_pandas(au)                                  # naive with aware
    da = pd.Series([1.0, 2.0], index=pd.to_timedelta([1, 2], unit="s").astype("m8[s]"))
    db = pd.Series([5.0, 6.0], index=pd.to_timedelta([2, 3], unit="s").astype("m8[ms]"))
    same(zb.from_pandas(da) + zb.from_pandas(db), da + db)


def test_categorical_keys_in_category_order():
    """Categorical codes are integers but order as their categories: such
    keys are never merged by code."""
    left = pd.DataFrame({"k": pd.Categorical(["z", "y", "x", "v"], categories=["z", "y", "x", "v"]),
                         "a": [1, 2, 3, 4]})
    right = pd.DataFrame({"k": pd.Categorical(["z", "x", "w"], categories=["z", "x", "w"]),
                          "b": [4, 5, 6]})
    for how in ["outer", "inner", "left", "right"]:
        want = left.merge(right, on="k", how=how)
        got = zb.from_pandas(left).merge(zb.from_pandas(right), on="k", how=how).to_pandas()
        assert list(got["k"].astype(str)) == list(want["k"].astype(str)), how
        assert got["a"].fillna(-1).tolist() == want["a"].fillna(-1).tolist(), how
