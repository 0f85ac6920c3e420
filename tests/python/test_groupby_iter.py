"""Iterating a GroupBy (``for key, rows in df.groupby(...)``) and the group
counts and maps with observed=False, against pandas run side by side:
one and several keys, a key given as a one-item list (1-tuple names),
selections, Series keys, index levels, sort and dropna, categorical keys
with unused categories, and an empty frame.  A missing key is named as
pandas names it (NaN, NaT, NA), compared exactly."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb


def _frame(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 120))
    df = pd.DataFrame({"k": rng.choice(["x", "y", "z", None], n),
                       "j": rng.integers(0, 4, n),
                       "v": rng.normal(size=n).round(2),
                       "s": rng.choice(["p", "q", "r"], n)},
                      index=[f"r{i}" for i in rng.permutation(n)] if seed % 2 else None)
    if seed % 3 == 0:
        df.loc[rng.random(n) < 0.2, "v"] = np.nan
    return df


def _name(k):
    """A group's name, comparable with ==: a missing value as the name of
    its type (NaN != NaN)."""
    if isinstance(k, tuple):
        return tuple(_name(x) for x in k)
    if k is None:
        return "None"   # pandas never names a group None
    if isinstance(k, float) and np.isnan(k):
        return "NaN"
    return type(k).__name__ if type(k).__name__ in ("NaTType", "NAType") else k


def _groups(gb, zambezi):
    out = []
    for k, g in gb:
        g = g.to_pandas() if zambezi else g
        out.append((_name(k), g))
    return out


def _check(pgb, zgb):
    want, got = _groups(pgb, False), _groups(zgb, True)
    assert [k for k, _ in got] == [k for k, _ in want]
    for (_, w), (_, g) in zip(want, got):
        if isinstance(w, pd.Series):
            pd.testing.assert_series_equal(g, w, check_dtype=False, check_index_type=False)
        else:
            pd.testing.assert_frame_equal(g, w, check_dtype=False, check_index_type=False)


WAYS = {
    "one key": lambda d: d.groupby("k"),
    "one key listed": lambda d: d.groupby(["k"]),
    "two keys": lambda d: d.groupby(["k", "j"]),
    "column": lambda d: d.groupby("j")["v"],
    "columns": lambda d: d.groupby("j")[["v", "s"]],
    "dropna=False": lambda d: d.groupby("k", dropna=False),
    "sort=False": lambda d: d.groupby(["j", "k"], sort=False, dropna=False),
    "as_index=False": lambda d: d.groupby("j", as_index=False),
}


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("way", list(WAYS))
def test_iterate_like_pandas(seed, way):
    df = _frame(seed)
    _check(WAYS[way](df), WAYS[way](zb.from_pandas(df)))


@pytest.mark.parametrize("seed", range(4))
def test_series_and_array_keys(seed):
    df = _frame(seed)
    z = zb.from_pandas(df)
    _check(df["v"].groupby(df["j"]), z["v"].groupby(z["j"]))
    _check(df["v"].groupby([df["j"]]), z["v"].groupby([z["j"]]))
    big = (df["j"] > 1).to_numpy()
    _check(df.groupby(big), z.groupby(big))


def test_index_level():
    df = pd.DataFrame({"v": [1, 2, 3, 4]},
                      index=pd.MultiIndex.from_arrays([["a", "b", "a", "b"], [1, 1, 2, 2]]))
    z = zb.from_pandas(df)
    _check(df.groupby(level=0), z.groupby(level=0))
    _check(df.groupby(level=[0, 1]), z.groupby(level=[0, 1]))


def test_names_and_rows_by_hand():
    z = zb.DataFrame({"k": ["b", "a", "b", None], "v": [1, 2, 3, 4]}, index=[10, 11, 12, 13])
    got = [(k, g["v"].to_list(), g.index.to_list()) for k, g in z.groupby("k")]
    assert got == [("a", [2], [11]), ("b", [1, 3], [10, 12])]
    assert [_name(k) for k, _ in z.groupby("k", dropna=False)] == ["a", "b", "NaN"]
    assert [k for k, _ in z.groupby(["k"])] == [("a",), ("b",)]
    assert [k for k, _ in z.groupby("k", sort=False)] == ["b", "a"]
    name, rows = next(iter(z.groupby("k")["v"]))
    assert (name, rows.name, rows.to_list()) == ("a", "v", [2])


def test_empty_frame():
    z = zb.DataFrame({"k": zb.Series([], dtype="string"), "v": zb.Series([], dtype="int64")})
    assert list(z.groupby("k")) == []


def _categorical():
    df = pd.DataFrame({"k": ["b", "a", None, "b", "a"], "j": [1, 1, 2, 2, 1],
                       "v": [1.0, 2.0, 3.0, 4.0, 5.0]}, index=[10, 11, 12, 13, 14])
    df["k"] = df["k"].astype(pd.CategoricalDtype(["c", "b", "a", "z"]))
    return df


@pytest.mark.parametrize("observed", [True, False])
@pytest.mark.parametrize("keys", ["k", ["k", "j"]])
@pytest.mark.parametrize("sort", [True, False])
def test_categorical_observed(observed, keys, sort):
    df = _categorical()
    z = zb.from_pandas(df)
    pgb = df.groupby(keys, observed=observed, sort=sort)
    zgb = z.groupby(keys, observed=observed, sort=sort)
    _check(pgb, zgb)
    assert len(zgb) == len(pgb) and zgb.ngroups == pgb.ngroups
    assert {k: v.tolist() for k, v in zgb.indices.items()} == \
        {k: v.tolist() for k, v in pgb.indices.items()}
    assert {k: v.to_list() for k, v in zgb.groups.items()} == \
        {k: list(v) for k, v in pgb.groups.items()}


@pytest.mark.parametrize("key", ["k", "f", "t", "c", "i", ["k", "f"], ["t", "i"]])
def test_missing_key_names_like_pandas(key):
    """dropna=False: the missing group is named NaN for strings, floats
    and categoricals, NaT for times, NA for ints in iteration, groups and
    get_group; NaN in indices (as pandas)."""
    df = pd.DataFrame({"k": ["a", None, "a"], "f": [1.0, np.nan, 1.0],
                       "t": pd.to_datetime(["2020", None, "2020"]),
                       "c": pd.Categorical(["x", None, "x"]),
                       "i": pd.array([1, None, 1], dtype="Int64"), "v": [1, 2, 3]})
    z = zb.from_pandas(df)
    pgb, zgb = (d.groupby(key, dropna=False, observed=True) for d in (df, z))
    assert [_name(k) for k, _ in zgb] == [_name(k) for k, _ in pgb]
    assert [_name(k) for k in zgb.groups] == [_name(k) for k in pgb.groups]
    if key in ("c", ["t", "i"]):   # pandas leaves a categorical's missing group out of
        return   # indices, and its get_group finds neither that one nor (NaT, NA)
    assert [_name(k) for k in zgb.indices] == [_name(k) for k in pgb.indices]
    missing = [k for k, _ in pgb][-1]
    assert zgb.get_group(missing)["v"].to_list() == pgb.get_group(missing)["v"].to_list()
