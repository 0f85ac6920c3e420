"""Pairs of columns and extremes against pandas run side by side:
Series.autocorr / dot / @, DataFrame.dot / corrwith (a Series, a frame
with other labels, drop=), GroupBy.nlargest / nsmallest (one and two keys,
sort=False, missing values and keys), GroupBy.ohlc, nlargest /
nsmallest with keep='last' / 'all' (frames: ties decided by
the next column, missing values), value_counts(bins=...), and GroupBy.sample
(the same rows as pandas for the same random_state)."""

import functools

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from side_by_side import same
from zambezi.errors import DTypeError, UnsupportedError


_same = functools.partial(same, check_dtype=False, rtol=1e-12)


def _frame(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    df = pd.DataFrame({"k": rng.choice(["a", "b", "c", None], n), "k2": rng.integers(0, 3, n),
                       "v": rng.normal(size=n).round(1), "w": rng.integers(0, 5, n).astype(float),
                       "i": rng.integers(-10, 10, n)},
                      index=rng.permutation(n) + 100 if seed % 2 else None)
    df.loc[rng.random(n) < 0.1, "v"] = np.nan
    return df


@pytest.mark.parametrize("seed", range(8))
def test_pairs_like_pandas(seed):
    df = _frame(seed)
    z = zb.from_pandas(df)
    for lag in (1, 2, -1):
        _same(z["v"].autocorr(lag), df["v"].autocorr(lag))
    assert z["i"].dot(z["i"]) == df["i"].dot(df["i"])
    _same(z["w"] @ z["v"], df["w"] @ df["v"])
    weights = pd.Series([2.0, -1.0, 0.5], index=["i", "w", "v"])
    _same(z[["w", "i", "v"]].dot(zb.from_pandas(weights)), df[["w", "i", "v"]].dot(weights))
    _same(z["w"].dot(z[["w", "i"]]), df["w"].dot(df[["w", "i"]]))
    head = df[["w", "i"]].head(2)
    rhs = head.T.set_axis(["w", "i"])
    rhs.columns = ["p", "q"][:len(rhs.columns)]
    _same(z[["w", "i"]].dot(zb.from_pandas(rhs)), df[["w", "i"]].dot(rhs))
    other = df["w"] * 2 - df["i"]
    _same(z[["v", "w", "i"]].corrwith(zb.from_pandas(other)), df[["v", "w", "i"]].corrwith(other))
    sq = df[["w", "v", "k2"]] ** 2
    for drop in (False, True):
        _same(z[["v", "w", "i"]].corrwith(zb.from_pandas(sq), drop=drop),
              df[["v", "w", "i"]].corrwith(sq, drop=drop))
    _same(z.corrwith(zb.from_pandas(other), numeric_only=True),
          df.corrwith(other, numeric_only=True))


def test_dot_needs_matching_labels():
    a = zb.Series([1.0, 2.0], index=["x", "y"])
    b = zb.Series([3.0, 4.0], index=["y", "x"])
    assert a.dot(b) == pd.Series([1.0, 2.0], index=["x", "y"]).dot(
        pd.Series([3.0, 4.0], index=["y", "x"]))
    with pytest.raises(ValueError, match="aligned"):
        a.dot(zb.Series([1.0, 2.0], index=["x", "z"]))
    with pytest.raises(DTypeError):
        zb.Series(["p"]).dot(zb.Series(["q"]))


@pytest.mark.parametrize("seed", range(8))
def test_groupby_extremes_like_pandas(seed):
    df = _frame(seed)
    z = zb.from_pandas(df)
    for keys in ("k", ["k", "k2"], "k2"):
        for sort in (True, False):
            for col in ("v", "w", "i"):
                for n in (1, 3):
                    _same(z.groupby(keys, sort=sort)[col].nlargest(n),
                          df.groupby(keys, sort=sort)[col].nlargest(n))
                    _same(z.groupby(keys, sort=sort)[col].nsmallest(n),
                          df.groupby(keys, sort=sort)[col].nsmallest(n))
        _same(z.groupby(keys)["v"].ohlc(), df.groupby(keys)["v"].ohlc())
        cols = list(dict.fromkeys(([keys] if isinstance(keys, str) else keys) + ["v", "w"]))
        _same(z[cols].groupby(keys).ohlc(), df[cols].groupby(keys).ohlc())
    _same(z["v"].groupby(z["k"]).nlargest(2), df["v"].groupby(df["k"]).nlargest(2))
    with pytest.raises(UnsupportedError):
        z.groupby("k")[["v", "w"]].nlargest(2)
    with pytest.raises(DTypeError):   # pandas: DataError, no numeric types
        z[["k", "k2", "v"]].groupby("k2").ohlc()


@pytest.mark.parametrize("seed", range(8))
def test_keep_like_pandas(seed):
    df = _frame(seed)
    z = zb.from_pandas(df)
    for col in ("w", "i", "v"):
        for n in (1, 3, 7, 1000):
            for keep in ("first", "last", "all"):
                _same(z[col].nlargest(n, keep=keep), df[col].nlargest(n, keep=keep))
                _same(z[col].nsmallest(n, keep=keep), df[col].nsmallest(n, keep=keep))
    for n in (1, 5):
        _same(z.nlargest(n, "w", keep="last"), df.nlargest(n, "w", keep="last"))
        _same(z.nsmallest(n, ["w", "i"], keep="last"), df.nsmallest(n, ["w", "i"], keep="last"))
    with pytest.raises(ValueError):
        z["w"].nlargest(2, keep="middle")


def _tied_frame(seed):
    """Few distinct values, missing ones, labels out of order: ties on the
    first column, decided (or not) by the next ones."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 9))
    cols = {}
    for name in ("a", "b"):
        v = rng.integers(0, 3, m).astype(float)
        v[rng.random(m) < 0.3] = np.nan
        cols[name] = v
    cols["c"] = rng.integers(0, 3, m)
    return pd.DataFrame(cols, index=list(rng.permutation(m) * 10))


@pytest.mark.parametrize("seed", range(20))
def test_frame_keep_with_ties_and_missing_like_pandas(seed):
    """pandas' frame rule: the first column picks its extreme rows (every
    tie at the edge), the next decides among those tied, the last takes
    keep; a Series short of values fills up with missing rows."""
    df = _tied_frame(seed)
    z = zb.from_pandas(df)
    for method in ("nlargest", "nsmallest"):
        for keep in ("first", "last", "all"):
            for n in (1, 2, 3, len(df)):
                for cols in (["a"], ["c"], ["a", "b"], ["c", "a"], ["b", "c", "a"]):
                    try:
                        want = getattr(df, method)(n, cols, keep=keep)
                    except IndexError:   # pandas: no value in a column that ties
                        continue
                    _same(getattr(z, method)(n, cols, keep=keep), want)
                for col in ("a", "c"):
                    _same(getattr(z[col], method)(n, keep=keep),
                          getattr(df[col], method)(n, keep=keep))
    with pytest.raises(TypeError, match="Column 'k' has dtype str"):
        zb.DataFrame({"k": ["x", "y"]}).nlargest(1, "k")


@pytest.mark.parametrize("seed", range(6))
def test_value_counts_bins_like_pandas(seed):
    df = _frame(seed)
    z = zb.from_pandas(df)
    for bins in (3, [-5, -1, 0, 1, 5], 1):
        for kw in ({}, {"sort": False}, {"normalize": True}, {"ascending": True},
                   {"dropna": False}):
            want = df["v"].value_counts(bins=bins, **kw)
            got = z["v"].value_counts(bins=bins, **kw).to_pandas()
            # zambezi's bins are labelled by their text (zb.cut), pandas' by Intervals
            want.index = want.index.astype(str)
            got.index = got.index.astype(str)
            _same(got, want)


_SAMPLES = [
    lambda m, d: d.groupby("k").sample(n=3, random_state=1),
    lambda m, d: d.groupby("k", dropna=False).sample(n=2, random_state=2),
    lambda m, d: d.groupby("k", sort=False).sample(frac=0.1, random_state=3),
    lambda m, d: d.groupby(["k", "j"]).sample(n=2, replace=True, random_state=4),
    lambda m, d: d.groupby("k")["v"].sample(n=2, random_state=5),
    lambda m, d: d.groupby("k")[["v", "w"]].sample(frac=0.2, weights=d["w"], random_state=6),
    lambda m, d: d.groupby("j").sample(n=2, weights="w", random_state=7),
    lambda m, d: d.groupby("k").sample(random_state=np.random.RandomState(8)),
]


@pytest.mark.parametrize("case", range(len(_SAMPLES)))
@pytest.mark.parametrize("seed", range(3))
def test_groupby_sample_draws_as_pandas(case, seed):
    rng = np.random.default_rng(seed)
    n = 300
    df = pd.DataFrame({"k": rng.choice(["x", "y", "z", None], n), "j": rng.integers(0, 3, n),
                       "v": rng.normal(size=n), "w": rng.random(n)})
    same(_SAMPLES[case](zb, zb.from_pandas(df)), _SAMPLES[case](pd, df))


def test_groupby_sample_errors():
    z = zb.DataFrame({"k": ["a", "a", "b"], "v": [1, 2, 3]})
    with pytest.raises(ValueError, match="larger sample"):
        z.groupby("k").sample(n=3)
    with pytest.raises(ValueError):
        z.groupby("k").sample(n=1, frac=0.5)
