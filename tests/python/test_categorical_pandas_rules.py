"""pandas' rules where categoricals and missing values meet user code,
each compared with pandas run side by side: the value a function sees for
a missing value (NaN, as pandas passes it), a NaN key of a mapping dict,
Categorical.map's keeping of categories, nlargest / nsmallest of text or
categories (TypeError), remove_categories' order, select_dtypes with
pandas' dtype classes; and a notebook-style script of categorical calls,
whose output must be pandas' own byte for byte under the accelerator,
with the categorical columns held by zambezi.
"""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from conftest import profiled_under_accelerator


def _series(kind):
    s = pd.Series(["b", None, "a", "b"])
    return {"str": s, "category": s.astype("category"), "float": pd.Series([1.5, np.nan, 2.0]),
            "int": pd.Series([1, None, 3], dtype="Int64")}[kind]


def _same(got, want):
    got = got.to_pandas() if hasattr(got, "to_pandas") else got
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.astype(object).where(got.notna(), None).tolist() == \
        want.astype(object).where(want.notna(), None).tolist()


@pytest.mark.parametrize("kind", ["str", "category", "float"])
def test_a_function_sees_nan_for_a_missing_value(kind):
    p = _series(kind)
    z = zb.Series(p)
    _same(z.map(repr), p.map(repr))
    _same(z.apply(repr), p.apply(repr))
    pf, zf = pd.DataFrame({"a": p, "b": p}), zb.DataFrame(pd.DataFrame({"a": p, "b": p}))
    _same(zf.apply(lambda r: repr(r["a"]) + repr(r["b"]), axis=1),
          pf.apply(lambda r: repr(r["a"]) + repr(r["b"]), axis=1))


def test_a_missing_int_is_nan_to_a_function():
    # zambezi holds ints with nulls; pandas would hold them as float64 (NaN)
    z = zb.Series(_series("int"))
    assert z.map(repr).to_list() == ["1", "nan", "3"]


@pytest.mark.parametrize("key", [np.nan, None, float("nan")])
@pytest.mark.parametrize("kind", ["str", "category", "float"])
def test_a_nan_key_of_a_dict_maps_missing_values(kind, key):
    p = _series(kind)
    first = p.dropna().iloc[0]
    mapping = {first: "F", key: "N"}
    _same(zb.Series(p).map(mapping), p.map(mapping))
    _same(zb.Series(p).map(mapping, na_action="ignore"), p.map(mapping, na_action="ignore"))


def test_categorical_map_keeps_categories_as_pandas():
    p = _series("category")
    z = zb.Series(p)
    for f in [lambda v: v, lambda v: v.upper() if isinstance(v, str) else v,
              lambda v: "same", lambda v: repr(v), {"a": 1, "b": 2}, {"a": 1.5, "b": 2.5},
              {"a": "x", "b": "y"}]:
        want = p.map(f)
        got = z.map(f).to_pandas()
        assert str(got.dtype) == str(want.dtype)
        _same(got, want)


@pytest.mark.parametrize("kind", ["str", "category"])
@pytest.mark.parametrize("name", ["nlargest", "nsmallest"])
def test_nlargest_of_text_or_categories_raises_as_pandas(kind, name):
    p = _series(kind)
    with pytest.raises(TypeError) as want:
        getattr(p, name)(2)
    with pytest.raises(TypeError) as got:
        getattr(zb.Series(p), name)(2)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("ordered", [False, True])
def test_remove_categories_order_as_pandas(ordered):
    p = pd.Series(pd.Categorical(["b", "a", "c", "d"], categories=["d", "c", "b", "a"],
                                 ordered=ordered))
    want = p.cat.remove_categories(["b"])
    got = zb.Series(p).cat.remove_categories(["b"]).to_pandas()
    assert got.cat.categories.tolist() == want.cat.categories.tolist()
    assert got.cat.codes.tolist() == want.cat.codes.tolist()


def test_select_dtypes_with_pandas_dtype_classes():
    p = pd.DataFrame({"c": pd.Categorical(["a"]), "s": ["x"], "i": [1],
                      "t": pd.to_datetime(["2024-01-01"]).tz_localize("UTC")})
    z = zb.DataFrame(p)
    for spec in [pd.CategoricalDtype, pd.DatetimeTZDtype, pd.StringDtype, "category"]:
        for arg in ("include", "exclude"):
            want = list(p.select_dtypes(**{arg: [spec]}).columns)
            assert list(z.select_dtypes(**{arg: [spec]}).columns) == want, (spec, arg)


def _frames_equal(got, want):
    pd.testing.assert_frame_equal(got.to_pandas() if hasattr(got, "to_pandas") else got, want)


AB = pd.CategoricalDtype(["x", "y", "q"])


@pytest.mark.parametrize("how", ["inner", "left", "right", "outer"])
@pytest.mark.parametrize("sort", [False, True])
@pytest.mark.parametrize("pair", ["same", "reordered", "other", "plain", "numbers", "missing"])
def test_merge_on_categorical_keys_as_pandas(pair, how, sort):
    left, right = {
        "same": (pd.Series(["x", "y"], dtype=AB), pd.Series(["q", "x"], dtype=AB)),
        "reordered": (pd.Series(["x", "y"], dtype=AB),
                      pd.Series(["q", "x"], dtype=pd.CategoricalDtype(["y", "x", "q"]))),
        "other": (pd.Series(["x", "y"], dtype="category"), pd.Series(["y", "z"], dtype="category")),
        "plain": (pd.Series(["x", "y"], dtype="category"), pd.Series(["y", "q"])),
        "numbers": (pd.Series([1, 2], dtype=pd.CategoricalDtype([1, 2, 3])),
                    pd.Series([1.0, 3.0], dtype=pd.CategoricalDtype([1.0, 2.0, 3.0]))),
        "missing": (pd.Series(["x", None], dtype=AB), pd.Series([None, "q"], dtype=AB)),
    }[pair]
    lf = pd.DataFrame({"k": left, "v": [1.0, 2.0]})
    rf = pd.DataFrame({"k": right, "w": [3.0, 4.0]})
    want = lf.merge(rf, on="k", how=how, sort=sort)
    _frames_equal(zb.DataFrame(lf).merge(zb.DataFrame(rf), on="k", how=how, sort=sort), want)


@pytest.mark.parametrize("sub", [None, "a", ["a", "b"], ["a", "c"]])
def test_frame_value_counts_lists_unused_categories(sub):
    rng = np.random.default_rng(0)
    p = pd.DataFrame({"a": pd.Categorical(rng.choice([1, 2, 4], 30), categories=[1, 2, 3, 4]),
                      "b": pd.Categorical(rng.choice(["x", "y"], 30), categories=["y", "x", "z"]),
                      "c": rng.integers(0, 3, 30)})
    cols = p if sub is None else p[[sub] if isinstance(sub, str) else sub]
    want = cols.value_counts(sub) if sub is not None else p.value_counts()
    got = zb.DataFrame(p).value_counts(sub) if sub is not None else zb.DataFrame(p).value_counts()
    pd.testing.assert_series_equal(got.to_pandas(), want)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("keys", [["a", "b"], ["b", "a"], ["a"], ["a", "c"], ["c", "a", "b"]])
def test_groupby_of_categorical_keys_unobserved_order(keys, seed):
    # observed=False: every combination of the categories, in pandas' order
    # (each key's values in order of appearance over all rows, rows another
    # key's missing value drops included), missing keys, sort on and off
    rng = np.random.default_rng(seed)
    n = 15
    p = pd.DataFrame({
        "a": pd.Categorical(rng.choice([1, 2, 4, None], n), categories=[1, 2, 3, 4]),
        "b": pd.Categorical(rng.choice(["x", "y", None], n), categories=["y", "x", "z"]),
        "c": rng.integers(0, 3, n), "v": rng.integers(0, 5, n)})
    z = zb.DataFrame(p)
    for dropna in (True, False):
        for sort in (True, False):
            gp = p.groupby(keys, sort=sort, observed=False, dropna=dropna)
            gz = z.groupby(keys, sort=sort, observed=False, dropna=dropna)
            for want, got in ((gp.v.sum(), gz.v.sum()), (gp.size(), gz.size())):
                pd.testing.assert_series_equal(got.to_pandas(), want, check_names=False)
        want = p.value_counts(keys, dropna=dropna)
        pd.testing.assert_series_equal(z.value_counts(keys, dropna=dropna).to_pandas(), want)


@pytest.mark.parametrize("fill", ["reordered", "values", "new", "other categories"])
def test_fillna_of_a_categorical_from_a_series(fill):
    p = pd.Series(pd.Categorical(["a", None, "b", None], categories=["a", "b", "c"]))
    f = {"reordered": pd.Series(pd.Categorical(["b", "c", "a", "a"], categories=["c", "b", "a"])),
         "values": pd.Series(["b", "c", "a", "a"]),
         "new": pd.Series(["b", "z", "a", "a"]),
         "other categories": pd.Series(pd.Categorical(["b", "c", "a", "a"]))}[fill]
    try:
        want = p.fillna(f)
    except TypeError:
        with pytest.raises(TypeError):
            zb.Series(p).fillna(zb.Series(f))
        return
    pd.testing.assert_series_equal(zb.Series(p).fillna(zb.Series(f)).to_pandas(), want)


@pytest.mark.parametrize("cats", [["x", "y"], ["y", "x"], ["x", "y", "z"]])
@pytest.mark.parametrize("ordered", [False, True])
def test_equals_compares_categories_as_pandas(cats, ordered):
    a = pd.DataFrame({"c": pd.Categorical(["x", "y", "x"], categories=["x", "y"],
                                          ordered=ordered)})
    b = pd.DataFrame({"c": pd.Categorical(["x", "y", "x"], categories=cats, ordered=ordered)})
    assert zb.DataFrame(a).equals(zb.DataFrame(b)) == a.equals(b)


@pytest.mark.parametrize("values", [[1, 2, 3], [1, None, 3], ["a", None], [True, None],
                                    [1.5, None], []])
def test_numpy_array_of_a_categorical_as_pandas(values):
    p = pd.Series(pd.Categorical(values, categories=[1, 2, 3] if values == [] else None))
    want, got = np.asarray(p), np.asarray(zb.Series(p))
    assert got.dtype == want.dtype
    assert repr(got.tolist()) == repr(want.tolist())


@pytest.mark.parametrize("old,new", [(3, 1), ((3, 2), 1), (4, 1), (0, 2)])
def test_replace_among_number_categories(old, new):
    p = pd.Series([0, 1, 2, 3], dtype=pd.CategoricalDtype([0, 1, 2, 3], ordered=True))
    old = list(old) if isinstance(old, tuple) else old
    pd.testing.assert_series_equal(zb.Series(p).replace(old, new).to_pandas(),
                                   p.replace(old, new))
    with pytest.raises(TypeError):
        p.replace(3, 7)
    with pytest.raises(TypeError):
        zb.Series(p).replace(3, 7)


SCRIPT = r'''
import numpy as np
import pandas as pd
rng = np.random.default_rng(1)
n = 60
df = pd.DataFrame({
    "city": pd.Categorical(rng.choice(["Oslo", "Lima", "Pune", None], n),
                           categories=["Pune", "Oslo", "Lima"]),
    "size": pd.Categorical(rng.choice(["S", "M", "L"], n), categories=["S", "M", "L"],
                           ordered=True),
    "grade": pd.Series(rng.choice([3, 1, 2], n)).astype("category"),
    "v": rng.normal(size=n).round(3), "w": rng.integers(0, 9, n)})

def t(label, f):
    try:
        print("##", label); print(f())
    except Exception as e:
        print("##", label, "raises", type(e).__name__)

t("dtypes", lambda: df.dtypes)
t("value_counts", lambda: df.city.value_counts(dropna=False))
t("groupby", lambda: df.groupby("city", observed=False).v.mean())
t("groupby two", lambda: df.groupby(["size", "grade"], observed=True).w.sum())
t("sort", lambda: df.sort_values(["size", "v"]).head(8))
t("sort ties", lambda: df.sort_values("size").head(12))
t("filter", lambda: df[df["size"] < "L"].head())
t("codes", lambda: df.city.cat.codes.head())
t("rename", lambda: df.city.cat.rename_categories(str.upper).head())
t("remove", lambda: df.city.cat.remove_categories(["Lima"]).dtype)
t("max", lambda: df["size"].max())
t("fillna", lambda: df.city.fillna("Pune").value_counts())
t("str", lambda: df.city.str.upper().head())
t("map", lambda: df.city.map(lambda x: str(x)[:2]).head())
t("map dict", lambda: df.city.map({"Oslo": "NO", "Lima": "PE", "Pune": "IN"}).head())
t("unique", lambda: df.city.unique())
t("concat", lambda: pd.concat([df.city, df["size"]]).dtype)
t("merge", lambda: df.merge(df[["city", "w"]].drop_duplicates("city"), on="city").shape)
t("pivot", lambda: df.pivot_table(index="city", columns="size", values="v", aggfunc="sum",
                                  observed=False))
t("crosstab", lambda: pd.crosstab(df.city, df["size"]))
t("dummies", lambda: pd.get_dummies(df[["city", "w"]]).head())
t("nlargest", lambda: df.city.nlargest(2))
t("nbytes", lambda: df.city.nbytes)
t("groupby value_counts", lambda: df.groupby("size", observed=True).city.value_counts())
t("value_counts frame", lambda: df[["city", "size"]].value_counts())
t("fillna series", lambda: df.city.fillna(df.city.shift(1)).value_counts(dropna=False))
t("sort_index", lambda: df.set_index("city").sort_index().head())
t("describe", lambda: df.describe(include="all"))
'''


def test_categoricals_served_with_pandas_answers(tmp_path):
    _, funcs = profiled_under_accelerator(tmp_path, SCRIPT)
    for name in ["DataFrame.groupby", "DataFrame.sort_values", "CategoricalAccessor.codes",
                 "Series.value_counts", "Series.map"]:
        assert funcs[name]["fast_calls"] >= 1, (name, funcs[name])
    assert funcs["Series.str"]["fast_calls"] == 0


@pytest.mark.parametrize("kind", ["str", "category", "float"])
def test_map_with_a_dict_that_has_a_default(kind):
    import collections

    p = _series(kind)
    first = p.dropna().iloc[0]
    for table in (collections.defaultdict(lambda: "dflt", {first: "F"}),
                  collections.Counter({first: 3}),
                  collections.defaultdict(lambda: "dflt", {first: "F", np.nan: "N"})):
        _same(zb.Series(p).map(table), p.map(table))


def test_argsort_in_numpy_order_when_asked():
    p = pd.Series(np.random.default_rng(2).integers(0, 100, size=3000))
    z = zb.Series(p)
    assert np.array_equal(z.argsort(kind="quicksort").to_numpy(),
                          np.argsort(p.to_numpy(), kind="quicksort"))
    assert np.array_equal(z.argsort().to_numpy(), np.argsort(p.to_numpy(), kind="stable"))


@pytest.mark.parametrize("spec", [np.str_, np.bytes_, "U1", "S1", np.dtype("U5"), "U"])
def test_select_dtypes_refuses_numpy_text_as_pandas(spec):
    p = pd.DataFrame({"a": list("abc"), "b": [1, 2, 3]})
    with pytest.raises(TypeError, match="numpy string dtypes are not allowed"):
        p.select_dtypes(include=[spec])
    with pytest.raises(TypeError, match="numpy string dtypes are not allowed"):
        zb.DataFrame(p).select_dtypes(include=[spec])
    assert list(zb.DataFrame(p).select_dtypes(include=[str]).columns) == \
        list(p.select_dtypes(include=[str]).columns)
