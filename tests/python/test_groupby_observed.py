"""groupby(observed=False) with categorical keys against pandas run side
by side: every category a group (empty ones with the aggregation's value
for no rows), in category order (sort=True) or after the groups that occur
(sort=False), with one and two keys, as_index both ways, dropna both ways,
and Series.groupby."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb

OPS = ["sum", "mean", "count", "size", "min", "max", "first", "nunique", "prod", "std"]


def _frame(n=40, seed=3):
    rng = np.random.default_rng(seed)
    # "c" and "e" never occur; "b" occurs only where s != "z"
    k = np.array(["a", "b", "d"], dtype=object)[rng.integers(0, 3, n)]
    s = np.array(["x", "y", "z"], dtype=object)[rng.integers(0, 3, n)]
    k[(k == "b") & (s == "z")] = "a"
    kc = pd.Categorical(k, categories=["e", "d", "c", "b", "a"])
    kc[rng.random(n) < 0.1] = np.nan
    v = rng.normal(0, 10, n).round(2)
    v[rng.random(n) < 0.2] = np.nan
    return pd.DataFrame({"k": kc, "s": s, "v": v, "n": rng.integers(-5, 50, n)})


def _norm(obj):
    """A pandas result with zambezi's nullable integers as pandas' floats
    (an empty group's min of integers is NaN there) and a plain index, so
    that values, labels and order are compared."""
    if isinstance(obj, pd.Series):
        obj = obj.to_frame()
    out = obj.copy()
    for c in out.columns:
        if out[c].dtype.kind in "iufb" or str(out[c].dtype) in ("Int64", "Float64", "boolean"):
            out[c] = out[c].astype("float64")
        elif str(out[c].dtype) != "category":
            out[c] = out[c].astype(object).where(out[c].notna(), None)
    if isinstance(out.index, pd.MultiIndex):
        out.index = pd.MultiIndex.from_arrays(
            [out.index.get_level_values(i).astype(object) for i in range(out.index.nlevels)],
            names=out.index.names)
    else:
        out.index = pd.Index(out.index.astype(object), name=out.index.name)
    return out


def _check(got, exp, op):
    got, exp = _norm(got.to_pandas()), _norm(exp)
    pd.testing.assert_frame_equal(got, exp, check_exact=False, rtol=1e-9, check_dtype=False,
                                  check_categorical=False, obj=op)


@pytest.mark.parametrize("by", ["k", ["k", "s"], ["s", "k"]])
@pytest.mark.parametrize("sort", [True, False])
@pytest.mark.parametrize("as_index", [True, False])
@pytest.mark.parametrize("op", OPS)
def test_observed_false_aggregations(by, sort, as_index, op):
    pdf = _frame()
    df = zb.from_pandas(pdf)
    pg = pdf.groupby(by, observed=False, sort=sort, as_index=as_index)
    zg = df.groupby(by, observed=False, sort=sort, as_index=as_index)
    if op == "size":
        _check(zg.size(), pg.size(), op)
        return
    cols = ["v", "n"]
    _check(getattr(zg[cols], op)(), getattr(pg[cols], op)(), op)
    if as_index:
        _check(getattr(zg["v"], op)(), getattr(pg["v"], op)(), op)


@pytest.mark.parametrize("sort", [True, False])
def test_observed_false_dropna_false_and_agg(sort):
    pdf = _frame(seed=5)
    df = zb.from_pandas(pdf)
    for by in ("k", ["s", "k"]):
        exp = pdf.groupby(by, observed=False, sort=sort, dropna=False).agg(
            {"v": "mean", "n": "sum"})
        got = df.groupby(by, observed=False, sort=sort, dropna=False).agg(
            {"v": "mean", "n": "sum"})
        _check(got, exp, f"agg dict by {by}")
        exp = pdf.groupby(by, observed=False, sort=sort).agg(t=("v", "sum"), c=("n", "count"))
        got = df.groupby(by, observed=False, sort=sort).agg(t=("v", "sum"), c=("n", "count"))
        _check(got, exp, f"named agg by {by}")
    exp = pdf.v.groupby(pdf.k, observed=False, sort=sort).sum()
    got = df.v.groupby(df.k, observed=False, sort=sort).sum()
    _check(got, exp, "Series.groupby")


def test_observed_false_edges():
    pdf = _frame()
    df = zb.from_pandas(pdf)
    # a string sum: '' for an empty category; transform keeps the rows
    _check(df.groupby("k", observed=False)["s"].sum(),
           pdf.groupby("k", observed=False)["s"].sum(), "string sum")
    got = df.groupby("k", observed=False)["n"].transform("sum").to_pandas()
    exp = pdf.groupby("k", observed=False)["n"].transform("sum")
    assert got.astype("float64").tolist() == pytest.approx(exp.astype("float64").tolist(),
                                                           nan_ok=True)
    # no rows at all: every category, each empty
    e = pdf.iloc[:0]
    _check(zb.from_pandas(e).groupby("k", observed=False)["n"].sum(),
           e.groupby("k", observed=False)["n"].sum(), "no rows")
    # observed=True is unchanged: only the categories that occur
    _check(df.groupby("k", observed=True)["n"].sum(),
           pdf.groupby("k", observed=True)["n"].sum(), "observed=True")
