"""transform, compare and the small conveniences (zambezi._transform,
zambezi._combine, zambezi._conveniences) against pandas run side by side:
transform by name, ufunc, lambda (elementwise on a Series with pandas'
fallback to the whole Series; per column on a frame), list and dict;
compare of Series and frames with keep_shape / keep_equal /
result_names, nothing differing, mismatched labels; equals, item,
hasnans, is_unique, T, dtypes, axes, repeat, pop, divmod, rdivmod,
reindex_like."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from side_by_side import same


def _frame(seed):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.integers(0, 10, 40), "b": rng.normal(size=40)})
    df.loc[rng.random(40) < 0.15, "b"] = np.nan
    return df


TRANSFORMS = {
    "ufunc": np.abs, "name": "cumsum", "lambda": lambda x: x * 2,
    "whole": lambda x: x - x.mean(), "list": ["abs", np.exp], "rank": "rank",
    "numpy name": "exp",
}


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("key", list(TRANSFORMS))
def test_transform_like_pandas(seed, key):
    df = _frame(seed)
    z = zb.from_pandas(df)
    f = TRANSFORMS[key]
    same(z["b"].transform(f), df["b"].transform(f), check_dtype=False)
    same(z.transform(f), df.transform(f), check_dtype=False)
    spec = {"a": "cumsum", "b": ["abs", "cummax"]}
    same(z.transform(spec), df.transform(spec), check_dtype=False)


def test_transform_that_reduces_raises():
    z = zb.Series([1.0, 2.0])
    with pytest.raises(ValueError, match="did not transform"):
        z.transform("sum")
    with pytest.raises(ValueError, match="did not transform"):
        zb.DataFrame({"a": [1.0]}).transform(lambda c: c.sum())


def test_transform_that_moves_rows_as_pandas():
    p = pd.Series([3.0, 1.0, np.nan, 2.0], index=list("abcd"))
    df = pd.DataFrame({"a": [1.0, 4.0, np.nan], "b": [9.0, 16.0, 1.0]}, index=[5, 6, 7])
    s, z = zb.from_pandas(p), zb.from_pandas(df)
    for f in ("sort_values", lambda x: x.sort_values(), lambda x: x.reset_index(drop=True)):
        with pytest.raises(ValueError, match="Function did not transform"):
            p.transform(f)
        with pytest.raises(ValueError, match="Function did not transform"):
            s.transform(f)
    # a frame's columns align by label; an array of the right length is taken
    for f in (lambda c: c.sort_values(), lambda c: c.to_numpy() * 2):
        same(z.transform(f), df.transform(f), check_dtype=False)
    with pytest.raises(ValueError, match="Function did not transform"):
        z.transform(lambda c: c.reset_index(drop=True))
    for empty in ([], {}):
        with pytest.raises(ValueError, match="No transform functions were provided"):
            p.transform(empty)
        with pytest.raises(ValueError, match="No transform functions were provided"):
            s.transform(empty)
        with pytest.raises(ValueError, match="No transform functions were provided"):
            z.transform(empty)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kw", [{}, {"keep_shape": True}, {"keep_equal": True},
                                {"keep_shape": True, "keep_equal": True},
                                {"result_names": ("left", "right")}])
def test_compare_like_pandas(seed, kw):
    a = _frame(seed)
    a["s"] = np.array(["p", "q", "r", "s"])[np.arange(40) % 4]
    b = a.copy()
    rng = np.random.default_rng(seed + 10)
    b.loc[rng.integers(0, 40, 5), "a"] = 99
    b.loc[rng.integers(0, 40, 3), "s"] = "zz"
    za, zbb = zb.from_pandas(a), zb.from_pandas(b)
    same(za.compare(zbb, **kw), a.compare(b, **kw), check_dtype=False)
    same(za["a"].compare(zbb["a"], **kw), a["a"].compare(b["a"], **kw), check_dtype=False)
    same(za.compare(za, **kw), a.compare(a, **kw), check_dtype=False)


def test_compare_needs_the_same_labels():
    z = zb.from_pandas(_frame(0))
    with pytest.raises(ValueError, match="identically-labeled"):
        z.compare(z.iloc[:5])
    with pytest.raises(ValueError, match="identically-labeled"):
        z["a"].compare(z["a"].iloc[:5])


def test_conveniences_like_pandas():
    df = _frame(1)
    z = zb.from_pandas(df)
    s, zs = df["b"], z["b"]
    assert zs.equals(z["b"].copy()) == s.equals(s.copy())
    assert zs.equals(zs.fillna(0)) == s.equals(s.fillna(0))
    assert zs.equals(z["a"]) == s.equals(df["a"])
    assert zs.head(1).item() == s.head(1).item() or np.isnan(s.head(1).item())
    with pytest.raises(ValueError):
        zs.item()
    assert zs.hasnans == s.hasnans and z["a"].is_unique == df["a"].is_unique
    assert zb.Series([3, 1, 2]).is_unique == pd.Series([3, 1, 2]).is_unique
    same(zs.T, s.T)
    same(zs.transpose(), s.transpose())
    assert str(zs.dtypes) == str(s.dtypes)
    assert [x.to_list() for x in z.axes] == [x.to_list() for x in df.axes]
    same(zs.head(4).repeat(2), s.head(4).repeat(2))
    same(zs.head(3).repeat([0, 2, 1]), s.head(3).repeat([0, 2, 1]))
    for got, want in zip(z["a"].divmod(3), df["a"].divmod(3)):
        same(got, want)
    for got, want in zip((z["a"] + 1).rdivmod(17), (df["a"] + 1).rdivmod(17)):
        same(got, want)
    same(zs.reindex_like(zs.iloc[::-2]), s.reindex_like(s.iloc[::-2]), check_dtype=False)
    same(z.reindex_like(z[["b"]].iloc[:5]), df.reindex_like(df[["b"]].iloc[:5]))
    with pytest.raises(ValueError, match="axis"):
        np.repeat(zs, 2, axis=0)
    p, zp = df["a"].copy(), zb.from_pandas(df["a"])
    assert zp.pop(3) == p.pop(3)
    same(zp, p)


def test_compare_keeps_the_columns_name():
    a = pd.DataFrame({"x": [1, 2], "y": ["p", "q"]}).rename_axis(columns="C")
    b = pd.DataFrame({"x": [1, 7], "y": ["p", "q"]}).rename_axis(columns="C")
    for left, right in ((a, b), (a, a)):
        want = left.compare(right)
        got = zb.from_pandas(left).compare(zb.from_pandas(right))
        assert list(got.columns.names) == list(want.columns.names) == ["C", None]
        assert list(got.columns) == list(want.columns)


def test_transform_names_as_pandas():
    p = pd.Series([1.0, 4.0, 9.0], name="s")
    d = pd.DataFrame({"a": [1.0, 4.0], "b": [9.0, 16.0]}).rename_axis(columns="C")
    z, zd = zb.from_pandas(p), zb.from_pandas(d)
    for f in ({"a": ["abs", "sqrt"]}, {"a": "abs", "b": ["sqrt"]}):
        assert list(z.transform(f).columns) == list(p.transform(f).columns)
    for f in ("abs", ["abs", "sqrt"], {"b": "cumsum"}):
        want, got = d.transform(f), zd.transform(f)
        assert list(got.columns) == list(want.columns)
        assert list(got.columns.names) == list(want.columns.names)
    for obj in (z, zd):   # pandas: SpecificationError
        with pytest.raises(ValueError, match="Function names must be unique"):
            obj.transform(["abs", "abs"])
