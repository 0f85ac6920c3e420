"""GroupBy corr / cov matrices and a column against another Series, against
pandas run side by side: random groups with missing values (pairwise
complete rows), integer and bool columns, one and two keys, min_periods,
ddof, numeric_only, as_index=False, and groups too small for a value."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import DTypeError, UnsupportedError


def _frame(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    df = pd.DataFrame({"k": rng.choice(["a", "b", "c", "d"], n), "j": rng.integers(0, 3, n),
                       "x": rng.normal(size=n), "y": rng.normal(10, 3, n),
                       "i": rng.integers(-5, 5, n), "s": rng.choice(["p", "q"], n)})
    df.loc[rng.random(n) < 0.15, "x"] = np.nan
    df.loc[rng.random(n) < 0.15, "y"] = np.nan
    df.loc[df.index[:3], "k"] = "solo"        # a group of few rows
    return df


def _same(got, want):
    got = got.to_pandas()
    assert list(got.index) == list(want.index)
    assert list(got.columns) == list(want.columns)
    np.testing.assert_allclose(got.to_numpy(dtype=float), want.to_numpy(dtype=float),
                               rtol=1e-9, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("keys", ["k", ["k", "j"]])
@pytest.mark.parametrize("kind", ["corr", "cov"])
def test_matrix_like_pandas(seed, keys, kind):
    df = _frame(seed)
    z = zb.from_pandas(df)
    cols = ["x", "y", "i"]
    _same(getattr(z.groupby(keys)[cols], kind)(), getattr(df.groupby(keys)[cols], kind)())
    _same(getattr(z.groupby(keys), kind)(numeric_only=True),
          getattr(df.groupby(keys), kind)(numeric_only=True))


@pytest.mark.parametrize("seed", range(4))
def test_min_periods_ddof(seed):
    df = _frame(seed)
    z = zb.from_pandas(df)
    cols = ["x", "y"]
    _same(z.groupby("k")[cols].corr(min_periods=4), df.groupby("k")[cols].corr(min_periods=4))
    _same(z.groupby("k")[cols].cov(min_periods=3), df.groupby("k")[cols].cov(min_periods=3))
    # ddof: pandas applies it only to a group without missing values
    full = ["y", "i"]
    _same(z.dropna(subset=["y"]).groupby("k")[full].cov(ddof=0),
          df.dropna(subset=["y"]).groupby("k")[full].cov(ddof=0))
    _same(z.groupby("k", as_index=False)[cols].corr(),
          df.groupby("k", as_index=False)[cols].corr())


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kind", ["corr", "cov"])
def test_column_against_other(seed, kind):
    df = _frame(seed)
    z = zb.from_pandas(df)
    got = getattr(z.groupby("k")["x"], kind)(z["y"])
    want = getattr(df.groupby("k")["x"], kind)(df["y"])
    assert got.index.to_list() == want.index.tolist() and got.name == want.name
    np.testing.assert_allclose(got.to_numpy(dtype=float, na_value=np.nan),
                               want.to_numpy(dtype=float), rtol=1e-9, equal_nan=True)
    # a Series of another label order is aligned on the labels
    shuffled = df["y"].sample(frac=1, random_state=seed)
    got = getattr(z.groupby("k")["x"], kind)(zb.from_pandas(shuffled))
    want = getattr(df.groupby("k")["x"], kind)(shuffled)
    np.testing.assert_allclose(got.to_numpy(dtype=float, na_value=np.nan),
                               want.to_numpy(dtype=float), rtol=1e-9, equal_nan=True)


def test_pair_form_and_errors():
    df = _frame(1)
    z = zb.from_pandas(df)
    by_pair = z.groupby("k").corr("x", "y")
    matrix = df.groupby("k")[["x", "y"]].corr()
    want = matrix.xs("x", level=1)["y"]
    np.testing.assert_allclose(by_pair.to_numpy(dtype=float, na_value=np.nan),
                               want.to_numpy(), rtol=1e-9, equal_nan=True)
    with pytest.raises(DTypeError, match="'s' is not numeric"):
        z.groupby("k").corr()
    with pytest.raises(UnsupportedError, match="spearman"):
        z.groupby("k")[["x", "y"]].corr(method="spearman")
    with pytest.raises(TypeError):
        z.groupby("k")["x"].cov()
