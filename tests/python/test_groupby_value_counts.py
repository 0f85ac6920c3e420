"""GroupBy.value_counts (zambezi._groupby_counts) and
DataFrame._get_numeric_data, against pandas run side by side on random
data with nulls: every combination of value_counts' options and the
GroupBy's sort / dropna / as_index, several sizes and null rates."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import ColumnNotFoundError, UnsupportedError
from pandas_compare import assert_frame_like, assert_series_like


def _data(n, seed, null_rate):
    rng = np.random.default_rng(seed)
    k = rng.choice(["a", "b", "c", "d"], n).astype(object)
    k[rng.random(n) < null_rate] = None
    v = pd.array(rng.integers(0, 5, n), dtype="Int64")
    v[rng.random(n) < null_rate] = pd.NA
    w = rng.choice(["x", "y", "z"], n).astype(object)
    w[rng.random(n) < null_rate] = None
    return pd.DataFrame({"k": pd.array(k, dtype="str"), "k2": rng.integers(0, 3, n),
                         "v": v, "w": pd.array(w, dtype="str"),
                         "f": np.where(rng.random(n) < null_rate, np.nan,
                                       rng.integers(0, 4, n) / 2)})


def _check(got, exp, what):
    """got equals pandas' exp as a mapping (index -> count: names, dtypes,
    values), and in the order pandas defines: the counts' sequence and the
    first key's.  (The order among equal counts of a group, which pandas'
    grouper takes from an unstable argsort, is checked by
    test_ties_come_in_pandas_order.)"""
    got = got.to_pandas() if hasattr(got, "to_pandas") else got
    if isinstance(exp, pd.Series):
        assert_series_like(got.sort_index(), exp.sort_index(), what)
        g, e = got.to_numpy(), exp.to_numpy()
        gk, ek = got.index.get_level_values(0), exp.index.get_level_values(0)
    else:
        cols = list(exp.columns[:-1])
        assert_frame_like(got.sort_values(cols).reset_index(drop=True),
                          exp.sort_values(cols).reset_index(drop=True), what)
        g, e = got.iloc[:, -1].to_numpy(), exp.iloc[:, -1].to_numpy()
        gk, ek = got.iloc[:, 0], exp.iloc[:, 0]
    np.testing.assert_allclose(g.astype(float), e.astype(float), err_msg=f"{what}: order")
    assert list(pd.isna(gk)) == list(pd.isna(ek)), f"{what}: key order"
    assert [a for a in gk if not pd.isna(a)] == [a for a in ek if not pd.isna(a)], \
        f"{what}: key order"


@pytest.mark.parametrize("n,seed,null_rate", [(0, 1, 0.0), (1, 2, 0.0), (60, 3, 0.2),
                                              (2000, 4, 0.05), (2000, 5, 0.5)])
@pytest.mark.parametrize("gkw", [{}, {"sort": False}, {"dropna": False}])
@pytest.mark.parametrize("kw", [{}, {"sort": False}, {"ascending": True},
                                {"normalize": True}, {"dropna": False},
                                {"normalize": True, "dropna": False, "sort": False}])
def test_series_selection(n, seed, null_rate, gkw, kw):
    pdf = _data(n, seed, null_rate)
    zdf = zb.from_pandas(pdf)
    for by, col in (("k", "v"), (["k", "k2"], "w"), ("k2", "f")):
        what = f"groupby({by}, {gkw})[{col}].value_counts({kw})"
        got = zdf.groupby(by, **gkw)[col].value_counts(**kw)
        exp = pdf.groupby(by, **gkw)[col].value_counts(**kw)
        if not kw.get("sort", True) and gkw.get("sort", True):
            # groups in key order, values unsorted: pandas' order within a
            # group comes from an unstable argsort (of a numeric key, see
            # test_ties_come_in_pandas_order); compare sorted
            got = got.to_pandas().sort_index()
            exp = exp.sort_index()
        _check(got, exp, what)


@pytest.mark.parametrize("seed", [6, 7])
def test_frame_groupby_subset_as_index_and_series_groupby(seed):
    pdf = _data(500, seed, 0.1)
    zdf = zb.from_pandas(pdf)
    for f, what in [
        (lambda d: d.groupby("k").value_counts(), "frame"),
        (lambda d: d.groupby("k").value_counts(subset=["w", "k2"], normalize=True), "subset"),
        (lambda d: d[["k", "v", "w"]].groupby("k", as_index=False).value_counts(),
         "as_index=False"),
        (lambda d: d.groupby("k", as_index=False)["w"].value_counts(normalize=True),
         "as_index=False selection"),
        (lambda d: d.v.groupby(d.k).value_counts(ascending=True), "Series.groupby"),
    ]:
        _check(f(zdf), f(pdf), what)


@pytest.mark.parametrize("key", ["i", "f", "b", "t", "s"])
@pytest.mark.parametrize("kw", [{}, {"sort": False}, {"ascending": True}, {"normalize": True}])
def test_ties_come_in_pandas_order(key, kw):
    # pandas' grouper puts the (key, value) combinations in key order with
    # numpy's unstable argsort of one numeric key: ties within a group come
    # in that order, not in order of first appearance (text keys: stable)
    rng = np.random.default_rng(11)
    n = 3000
    g = rng.integers(0, 5, n)
    pdf = pd.DataFrame({"i": g, "f": g / 2, "b": g > 2,
                        "t": pd.to_datetime(g * 86_400, unit="s"),
                        "s": pd.array(np.array(list("pqrst"))[g], dtype="str"),
                        "v": rng.integers(0, 8, n), "w": rng.choice(["x", "y", "z"], n)})
    zdf = zb.from_pandas(pdf)
    cols = [key, "v", "w"]
    for f in (lambda d: d.groupby(key)["v"].value_counts(**kw),
              lambda d: d[cols].groupby(key).value_counts(**kw),
              lambda d: d[cols].groupby(key, as_index=False).value_counts(**kw)):
        exp = f(pdf)
        got = f(zdf).to_pandas()
        if isinstance(exp, pd.Series):
            pd.testing.assert_series_equal(got, exp)
        else:
            pd.testing.assert_frame_equal(got, exp)


def test_errors():
    zdf = zb.from_pandas(_data(20, 8, 0.1))
    with pytest.raises(UnsupportedError, match="bins"):
        zdf.groupby("k")["f"].value_counts(bins=3)
    with pytest.raises(ColumnNotFoundError, match="nope"):
        zdf.groupby("k").value_counts(subset=["nope"])


def test_get_numeric_data():
    pdf = _data(50, 9, 0.1).assign(b=True, t=pd.Timestamp("2026-01-01"),
                                   d=pd.Timedelta(1, "s"))
    zdf = zb.from_pandas(pdf)
    got = zdf._get_numeric_data()
    exp = pdf._get_numeric_data()
    assert list(got.columns) == list(exp.columns)
    assert_frame_like(got, exp, "_get_numeric_data")
    assert list(zdf[["k", "w"]]._get_numeric_data().columns) == []


def test_unnamed_keys_and_clashing_result_names_as_pandas():
    """as_index=False: an unnamed key (an array, a function) is the column
    level_i, as pandas' reset_index names it; a value column named as the
    result column (count / proportion) is pandas' ValueError."""
    df = pd.DataFrame({"country": ["US", "FR", "US", "FR", "US"], "g": list("mfmfm"),
                       "e": list("lhlhh")})
    z = zb.from_pandas(df)
    arr = df["country"].to_numpy()
    for by in (arr, [arr, arr], lambda i: i % 2 == 0):
        for normalize in (False, True):
            want = df.groupby(by, as_index=False)[["g", "e"]].value_counts(normalize=normalize)
            got = z.groupby(by, as_index=False)[["g", "e"]].value_counts(normalize=normalize)
            assert got.columns.to_list() == want.columns.to_list()
            assert_frame_like(got, want, f"{by!r} {normalize}")
    for normalize, label in ((False, "count"), (True, "proportion")):
        p = pd.DataFrame([[1, 2, 3]], columns=["a", "b", label])
        with pytest.raises(ValueError, match="is duplicate of result column"):
            p.groupby("a", as_index=False).value_counts(normalize=normalize)
        with pytest.raises(ValueError, match="is duplicate of result column"):
            zb.from_pandas(p).groupby("a", as_index=False).value_counts(normalize=normalize)
