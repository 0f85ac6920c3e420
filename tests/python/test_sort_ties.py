"""Equal sort keys in pandas' order.

pandas sorts one key with numpy's argsort, ``kind="quicksort"`` by default,
which is not stable: rows with equal keys come in numpy's order.  zambezi
is stable unless asked for that kind (the accelerator asks, as pandas'
default); then its order must be pandas' own, row for row, for every dtype
pandas argsorts through numpy (numbers, bools, times, durations,
categoricals' codes), with missing values first or last.  Text is stable
in pandas too.
"""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from conftest import same_under_accelerator

KEYS = ["int64", "int32", "uint8", "float64", "bool", "datetime", "timedelta", "category",
        "ordered", "str"]


def _key(kind, n, rng):
    k = rng.integers(0, 4, n)
    if kind == "datetime":
        return pd.to_datetime(k, unit="D")
    if kind == "timedelta":
        return pd.to_timedelta(k, unit="s")
    if kind in ("category", "ordered"):
        return pd.Categorical(np.array(list("abcd"))[k], categories=list("dbca"),
                              ordered=kind == "ordered")
    if kind == "str":
        return np.array(list("abcd"))[k]
    if kind == "float64":
        return np.where(k == 0, np.nan, k)
    return k.astype(kind)


@pytest.mark.parametrize("n", [12, 40, 700])
@pytest.mark.parametrize("kind", KEYS)
def test_one_key_sorts_in_pandas_order(kind, n):
    rng = np.random.default_rng(n)
    p = pd.DataFrame({"k": _key(kind, n, rng), "v": np.arange(n)})
    z = zb.DataFrame(p)
    for asc in (True, False):
        for na in ("last", "first"):
            want = p.sort_values("k", ascending=asc, na_position=na).v.to_numpy()
            got = z.sort_values("k", ascending=asc, na_position=na, kind="quicksort")
            assert np.array_equal(got.to_pandas().v.to_numpy(), want), (asc, na)
            want = p.k.sort_values(ascending=asc, na_position=na).index.to_numpy()
            got = z["k"].sort_values(ascending=asc, na_position=na, kind="quicksort")
            assert np.array_equal(got.to_pandas().index.to_numpy(), want), (asc, na)
            want = p.set_index("k").sort_index(ascending=asc, na_position=na).v.to_numpy()
            got = z.set_index("k").sort_index(ascending=asc, na_position=na, kind="quicksort")
            assert np.array_equal(got.to_pandas().v.to_numpy(), want), (asc, na)


def test_stable_unless_asked_and_ignore_index():
    rng = np.random.default_rng(3)
    p = pd.DataFrame({"k": rng.integers(0, 3, 200), "v": np.arange(200)})
    z = zb.DataFrame(p)
    want = p.sort_values("k", kind="stable").v.to_numpy()
    assert np.array_equal(z.sort_values("k").to_pandas().v.to_numpy(), want)
    assert np.array_equal(z.sort_values("k", kind="mergesort").to_pandas().v.to_numpy(), want)
    got = z["v"].sort_values(ignore_index=True, kind="quicksort").to_pandas()
    pd.testing.assert_series_equal(got, p.v.sort_values(ignore_index=True), check_names=False)
    got = z["k"].sort_values(ignore_index=True, kind="quicksort").to_pandas()
    assert got.index.tolist() == list(range(200))


def test_an_index_already_in_order_stays():
    p = pd.DataFrame({"v": np.arange(40)}, index=np.repeat([1, 2, 3, 4], 10))
    got = zb.DataFrame(p).sort_index(kind="quicksort").to_pandas()
    assert got.v.tolist() == p.sort_index().v.tolist() == list(range(40))


def test_ties_under_the_accelerator(tmp_path):
    same_under_accelerator(tmp_path, """
import numpy as np
import pandas as pd
rng = np.random.default_rng(1)
df = pd.DataFrame({"k": rng.integers(0, 3, 60), "s": rng.choice(list("abc"), 60),
                   "d": pd.to_datetime(rng.integers(0, 3, 60), unit="D"), "v": np.arange(60)})
df["c"] = df.s.astype("category")
for col in ["k", "s", "d", "c"]:
    print(df.sort_values(col).v.tolist())
    print(df.sort_values(col, ascending=False).v.tolist())
    print(df[col].sort_values().index.tolist())
    print(df.set_index(col).sort_index().v.tolist())
print(df.sort_values(["k", "s"]).v.tolist())
print(df.sort_values("k", kind="stable").v.tolist())
""")


@pytest.mark.parametrize("kw", [{}, {"ascending": False}, {"ascending": [True]},
                                {"na_position": "first"}])
def test_sort_values_with_a_key_gives_pandas_order_of_ties(kw):
    # with key=, equal keys came in the engine's stable order; pandas sorts
    # the key's values with numpy's quicksort, as without key=
    df = pd.DataFrame({"b": ["aa", "b", None, "cc"] * 10, "c": np.arange(40)})
    want = df.sort_values("b", key=lambda c: c.str.len(), **kw)
    got = zb.from_pandas(df).sort_values("b", key=lambda c: c.str.len(), kind="quicksort", **kw)
    assert got.to_pandas().index.tolist() == want.index.tolist()
