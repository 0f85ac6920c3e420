"""pivot_table(observed=False) with categorical keys, against pandas: every
combination of the categories (and of other keys' values), empty ones
aggregated as pandas does (0 for sum / count / size, else missing, then
dropped by dropna where a whole row is missing)."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import assert_frame_like


def _shown(got, exp):
    """got as pandas, an integer column pandas makes float64 (its NaN for an
    empty cell; zambezi keeps integers with nulls, a documented
    difference) cast so."""
    g = got.to_pandas()
    for j in range(g.shape[1]):
        if g.iloc[:, j].dtype.kind in "iu" or str(g.iloc[:, j].dtype).startswith("Int"):
            if exp.iloc[:, j].dtype.kind == "f":
                g.isetitem(j, g.iloc[:, j].astype("float64"))
    return g


def _data(n=300, seed=7):
    rng = np.random.default_rng(seed)
    a = rng.choice(["åsa", "bø", "çé", None], size=n, p=[0.4, 0.3, 0.2, 0.1])
    b = rng.choice(["p", "q"], size=n)
    v = rng.normal(size=n)
    v[rng.random(n) < 0.1] = np.nan
    return pd.DataFrame({
        # unused categories "zz" and "r", in an order that is not sorted
        "a": pd.Categorical(a, categories=["zz", "çé", "åsa", "bø"]),
        "b": pd.Categorical(b, categories=["r", "q", "p"]),
        "s": rng.choice(["ü", "v", "w"], size=n),
        "v": v,
        "n": rng.integers(0, 100, size=n),
    })


@pytest.mark.parametrize("aggfunc", ["sum", "mean", "count", "max", "size", len])
def test_pivot_table_observed_false_two_categoricals(aggfunc):
    p = _data()
    z = zb.DataFrame(p)
    for values in ("v", "n"):
        exp = p.pivot_table(values=values, index="a", columns="b", aggfunc=aggfunc,
                            observed=False)
        got = z.pivot_table(values=values, index="a", columns="b", aggfunc=aggfunc,
                            observed=False)
        assert_frame_like(_shown(got, exp), exp, f"{aggfunc} of {values}", rtol=1e-12)


def test_pivot_table_observed_false_mixed_keys_and_options():
    p = _data()
    z = zb.DataFrame(p)
    cases = [
        dict(values="v", index=["a", "s"], aggfunc="mean"),
        dict(values="n", index=["a", "s"], aggfunc="sum"),
        dict(values="v", index="s", columns="a", aggfunc="sum"),
        dict(values="n", index="a", columns="b", aggfunc="sum", fill_value=-1),
        dict(values=["n", "v"], index="a", columns="b", aggfunc="min"),
    ]
    for kw in cases:
        exp = p.pivot_table(observed=False, **kw)
        assert_frame_like(_shown(z.pivot_table(observed=False, **kw), exp), exp, str(kw),
                          rtol=1e-12)
    # observed=True keeps only the categories that occur
    got = z.pivot_table(values="n", index="a", columns="b", aggfunc="sum")
    assert "zz" not in got.index.to_list()
    assert_frame_like(got, p.pivot_table(values="n", index="a", columns="b", aggfunc="sum",
                                         observed=True))
