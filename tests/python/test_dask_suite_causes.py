"""Causes of failures found running Dask's own dataframe tests with the
zambezi backend (scripts/dask-tests.sh), each checked against pandas or
Dask-on-pandas on the same data (the synchronous scheduler: these are
about partition answers, not the cluster)."""

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

import zambezi as zb  # noqa: E402
import zambezi.dask  # noqa: E402,F401
from zambezi.errors import UnsupportedError  # noqa: E402


def _both(pdf, npartitions=3):
    """The same data as a Dask-on-pandas and a Dask-on-zambezi collection."""
    with dask.config.set({"dataframe.backend": "pandas"}):
        pd_ddf = dd.from_pandas(pdf, npartitions=npartitions)
    with dask.config.set({"dataframe.backend": "zambezi"}):
        zb_ddf = dd.from_pandas(pdf, npartitions=npartitions)
    assert isinstance(zb_ddf._meta, zb.DataFrame)
    return pd_ddf, zb_ddf


def _computed(obj):
    out = obj.compute(scheduler="sync")
    return out.to_pandas() if hasattr(out, "to_pandas") else out


# -- Series.cat: the methods Dask's unknown-categories meta calls ---------------------------
def _cat_pair():
    ps = pd.Series(["b", "a", None, "c", "b", "a"], dtype="category")
    return ps, zb.Series(ps)


@pytest.mark.parametrize("call", [
    lambda s: s.cat.set_categories(["c", "a", "z"]),
    lambda s: s.cat.set_categories(["x", "y", "w"], rename=True),
    lambda s: s.cat.set_categories([]),
    lambda s: s.cat.add_categories(["z", "y"]),
    lambda s: s.cat.add_categories("z"),
    lambda s: s.cat.remove_categories("b"),
    lambda s: s.cat.rename_categories({"a": "A"}),
    lambda s: s.cat.rename_categories(str.upper),
    lambda s: s.cat.rename_categories(["p", "q", "r"]),
    lambda s: s.cat.reorder_categories(["c", "b", "a"]),
    lambda s: s.cat.set_categories(["a", "b", "c", "d"]).cat.remove_unused_categories(),
    lambda s: s.cat.as_unordered(),
], ids=["set", "set-rename", "set-empty", "add", "add-one", "remove", "rename-dict",
        "rename-func", "rename-list", "reorder", "remove-unused", "as-unordered"])
def test_cat_methods_match_pandas(call):
    ps, s = _cat_pair()
    exp, got = call(ps), call(s).to_pandas()
    assert got.cat.categories.to_list() == exp.cat.categories.to_list()
    assert got.cat.codes.to_list() == exp.cat.codes.to_list()
    pd.testing.assert_series_equal(got, exp, check_categorical=False)


def test_cat_methods_refuse_bad_input():
    _, s = _cat_pair()
    with pytest.raises(ValueError, match="unique"):
        s.cat.set_categories(["a", "a"])
    with pytest.raises(ValueError, match="old categories"):
        s.cat.add_categories("a")
    with pytest.raises(ValueError, match="removals"):
        s.cat.remove_categories("nope")
    with pytest.raises(ValueError, match="new categories"):
        s.cat.rename_categories(["only-one"])
    with pytest.raises(UnsupportedError, match="not a string"):
        s.cat.set_categories([1, 2])
    with pytest.raises(UnsupportedError, match="ordered"):
        s.cat.as_ordered()


def test_dask_unknown_categories_group_by():
    pdf = pd.DataFrame({"c": pd.Categorical(["x", "y", "x", "z", None, "y"] * 5),
                        "v": np.arange(30, dtype=np.int64)})
    pd_ddf, zb_ddf = _both(pdf)
    outs = []
    for ddf in (pd_ddf, zb_ddf):
        ddf["c"] = ddf["c"].cat.as_unknown()
        assert not ddf["c"].cat.known
        outs.append(_computed(ddf.groupby("c", observed=True).v.sum()))
    exp, got = outs
    assert got.index.astype(str).to_list() == exp.index.astype(str).to_list()
    assert got.to_list() == exp.to_list()


# -- GroupBy.var / std: Dask's partial sums with pandas' labels ----------------------------
@pytest.mark.parametrize("how", ["var", "std"])
@pytest.mark.parametrize("split", [{}, {"split_out": 2}, {"split_every": 2}])
def test_dask_groupby_var_std(how, split):
    rng = np.random.default_rng(3)
    n = 300
    pdf = pd.DataFrame({"k": rng.integers(0, 7, n),
                        "x": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
                        "y": rng.integers(-5, 5, n).astype(np.int64)})
    pdf.loc[pdf.k == 6, "x"] = np.nan      # a group whose x has no values
    pdf.loc[pdf.index[:1], "k"] = 9        # a group of one row (ddof leaves nothing)
    pd_ddf, zb_ddf = _both(pdf, npartitions=5)
    exp = _computed(getattr(pd_ddf.groupby("k"), how)(**split)).sort_index()
    got = _computed(getattr(zb_ddf.groupby("k"), how)(**split)).sort_index()
    assert got.columns.to_list() == ["x", "y"]
    pd.testing.assert_frame_equal(got, exp, check_index_type=False, rtol=1e-9)
    s_exp = _computed(getattr(pd_ddf.groupby("k").x, how)(**split)).sort_index()
    s_got = _computed(getattr(zb_ddf.groupby("k").x, how)(**split)).sort_index()
    pd.testing.assert_series_equal(s_got, s_exp, check_index_type=False, rtol=1e-9)
