"""pandas' own pd.pivot_table run on a zambezi frame (Dask's pivot_table
chunks call it so), against pd.pivot_table on the pandas frame: what it
calls on the frame -- groupby(observed=False), unstack of a list of one
level, reindex of the columns by a MultiIndex, sort_index(axis=1),
__finalize__ -- each checked against pandas too."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb


def _frame(n=60, seed=1):
    rng = np.random.default_rng(seed)
    b = rng.normal(0, 1, n).round(3)
    b[rng.random(n) < 0.15] = np.nan
    return pd.DataFrame({"A": rng.choice(list("XYZ"), n), "B": b,
                         "C": pd.Categorical(rng.choice(list("ab"), n), categories=list("cab")),
                         "D": rng.integers(0, 9, n).astype(np.float64)})


def _same(got, exp):
    got = got.to_pandas() if hasattr(got, "to_pandas") else got
    pd.testing.assert_frame_equal(got, exp, check_dtype=False, check_exact=False,
                                  check_column_type=False, check_index_type=False,
                                  check_categorical=False)


@pytest.mark.parametrize("aggfunc", ["sum", "count", "first", "last", "mean"])
@pytest.mark.parametrize("values", ["B", ["B", "D"]])
def test_pd_pivot_table_on_zambezi(aggfunc, values):
    pdf = _frame()
    kw = dict(index="A", columns="C", values=values, aggfunc=aggfunc, dropna=False,
              observed=False)
    got = pd.pivot_table(zb.from_pandas(pdf), **kw)
    assert isinstance(got, zb.DataFrame)
    exp = pd.pivot_table(pdf, **kw)
    _same(got, exp)


def test_frame_methods_pivot_table_calls():
    pdf = _frame()
    df = zb.from_pandas(pdf)
    agg_p = pdf.groupby(["A", "C"], observed=False, dropna=False)[["B", "D"]].sum()
    agg_z = df.groupby(["A", "C"], observed=False, dropna=False)[["B", "D"]].sum()
    # unstack of a list of one level name
    _same(agg_z.unstack(["C"]), agg_p.unstack(["C"]))
    with pytest.raises(zb.errors.UnsupportedError, match="one level at a time"):
        agg_z.unstack(["A", "C"])
    # the columns reindexed by a MultiIndex: existing labels kept, new ones NaN
    t_p, t_z = agg_p.unstack("A"), agg_z.unstack("A")
    m = pd.MultiIndex.from_tuples([("D", "Y"), ("B", "X"), ("B", "zz")], names=[None, "A"])
    _same(t_z.reindex(m, axis=1), t_p.reindex(m, axis=1))
    _same(t_z.reindex(columns=list(m)), t_p.reindex(columns=list(m)))
    # sort_index(axis=1) orders the columns by their labels, both ways
    wide = pdf[["D", "A", "B"]]
    _same(zb.from_pandas(wide).sort_index(axis=1), wide.sort_index(axis=1))
    _same(zb.from_pandas(wide).sort_index(axis=1, ascending=False),
          wide.sort_index(axis=1, ascending=False))
    rev = list(t_p.columns[::-1])
    _same(t_z[rev].sort_index(axis=1), t_p[rev].sort_index(axis=1))
    # the frame itself from __finalize__
    assert df.__finalize__(zb.from_pandas(pdf), method="pivot_table") is df
