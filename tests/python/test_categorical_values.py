"""Categoricals whose categories are not strings (integers, floats, bools,
dates, timestamps, durations), ordered or not: every result compared with
pandas run side by side on the same data."""

import pickle

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import zambezi as zb
from zambezi.errors import UnsupportedError

DATA = {
    "int": [3, 1, None, 3, 2, 1],
    "float": [1.5, np.nan, 0.5, 1.5, -2.0, 0.5],
    "bool": [True, False, None, True, True, False],
    "timestamp": pd.to_datetime(["2020-01-02", None, "2020-01-01", "2020-01-02", "2019-05-05",
                                 "2020-01-01"]),
    "tz": pd.to_datetime(["2020-01-02", None, "2020-01-01", "2020-01-02", "2019-05-05",
                          "2020-01-01"]).tz_localize("Europe/Paris"),
    "duration": pd.to_timedelta(["1D", None, "2h", "1D", "3s", "2h"]),
}


def _pd(kind):
    s = pd.Series(DATA[kind])
    if kind in ("int", "bool"):  # pandas' nullable dtypes, as zambezi shows them
        s = s.astype({"int": "Int64", "bool": "boolean"}[kind])
    return s


@pytest.fixture(params=sorted(DATA))
def kind(request):
    return request.param


def _eq(z, p):
    got = z.to_pandas() if hasattr(z, "to_pandas") else z
    if isinstance(p, pd.DataFrame):
        pd.testing.assert_frame_equal(got, p, check_index_type=False)
    else:
        pd.testing.assert_series_equal(got, p, check_index_type=False)


def test_astype_category_matches_pandas(kind):
    p = _pd(kind)
    z = zb.Series(p).astype("category")
    want = p.astype("category")
    if kind in ("int", "bool"):  # pandas keeps Int64 / boolean categories; zambezi's
        # hold no nulls: int64 / bool
        want = want.cat.set_categories(want.cat.categories.astype(kind.replace("int",
                                                                               "int64")))
    _eq(z, want)
    assert z.cat.ordered is False
    assert z.cat.codes.to_list() == want.cat.codes.to_list()


def test_from_pandas_and_back_keeps_categories_and_order(kind):
    p = _pd(kind).dropna().astype("category")
    cats = list(p.cat.categories)[::-1]
    p = p.cat.set_categories(cats, ordered=True)
    z = zb.Series(p)
    _eq(z, p)
    assert z.cat.ordered is True
    _eq(pickle.loads(pickle.dumps(z)), p)
    _eq(pickle.loads(pickle.dumps(z, protocol=5)), p)


def test_categorical_dtype_with_int_categories():
    dtype = pd.CategoricalDtype([3, 2, 1], ordered=True)
    p = pd.Series([3, 1, 2, 2, 5]).astype("Int64")
    with pytest.warns(Warning):  # pandas 3: values outside the categories (deprecated)
        want = p.astype(dtype)
    z = zb.Series(p).astype(dtype)
    _eq(z, want)
    assert z.cat.codes.to_list() == [0, 2, 1, 1, -1]


def test_arrow_dictionary_with_int_values_round_trip():
    arr = pa.DictionaryArray.from_arrays(pa.array([0, 1, None, 0], pa.int32()),
                                         pa.array([10, 20], pa.int64()), ordered=True)
    z = zb.Series(arr)
    want = pd.Series(pd.Categorical.from_codes([0, 1, -1, 0], [10, 20], ordered=True))
    _eq(z, want)
    back = pa.array(z._col)
    assert back.type.value_type == pa.int64() and back.type.ordered
    assert back.to_pylist() == [10, 20, None, 10]


def test_repr_shows_categories_line():
    p = pd.Series([3, 1, 2]).astype(pd.CategoricalDtype([3, 2, 1], ordered=True))
    text = repr(zb.Series(p))
    assert text.splitlines()[-1] == repr(p).splitlines()[-1] == \
        "Categories (3, int64): [3 < 2 < 1]"
    assert repr(zb.Series(pd.Series([1.5, None]).astype("category"))).splitlines()[1].endswith(
        "NaN")


def test_filter_slice_take_concat(kind):
    p = pd.DataFrame({"k": _pd(kind).astype("category"), "v": np.arange(6.0)})
    if kind in ("int", "bool"):
        p["k"] = p["k"].cat.set_categories(
            p["k"].cat.categories.astype(kind.replace("int", "int64")))
    z = zb.DataFrame(p)
    _eq(z[z["v"] > 2], p[p["v"] > 2])
    _eq(z.iloc[1:4], p.iloc[1:4])
    _eq(z.take([5, 0, 2]), p.take([5, 0, 2]))
    _eq(zb.concat([z, z]), pd.concat([p, p]))


@pytest.mark.parametrize("parts", [
    [[1, 2], [3, 2]],                                    # other categories: int64 values
    [pd.CategoricalDtype(["a", "b"]), pd.CategoricalDtype(["b", "a"])],  # same set: category
    [pd.CategoricalDtype(["a", "b"], ordered=True), pd.CategoricalDtype(["b", "a"], ordered=True)],
    [pd.CategoricalDtype(["a", "b"]), pd.CategoricalDtype(["a"])],       # a subset: str
    [pd.CategoricalDtype(["a", "b"]), None],                              # beside str: str
])
def test_concat_of_categoricals_follows_pandas(parts):
    if isinstance(parts[0], list):
        ps = [pd.Series(v).astype("category") for v in parts]
    else:
        ps = [pd.Series(["b", "a", None] if d is None or "b" in d.categories else ["a", None])
              .astype(d if d is not None else "str") for d in parts]
    got = zb.concat([zb.Series(p) for p in ps], ignore_index=True).to_pandas()
    want = pd.concat(ps, ignore_index=True)
    assert got.dtype == want.dtype
    assert got.tolist() == want.tolist() or got.isna().tolist() == want.isna().tolist()
    if want.dtype == "category":
        assert got.cat.categories.tolist() == want.cat.categories.tolist()
        assert got.cat.codes.tolist() == want.cat.codes.tolist()


def test_concat_of_int_and_text_categories_raises():
    a = zb.Series([1, 2]).astype("category")
    with pytest.raises(TypeError):   # pandas gives an object column
        zb.concat([a, zb.Series(["x"]).astype("category")])


def test_eq_ne_isin_against_values():
    p = pd.Series([3, 1, None, 3, 2]).astype("category")
    z = zb.Series(pd.Series([3, 1, None, 3, 2], dtype="Int64")).astype("category")
    _eq(z == 3, p == 3)
    _eq(z != 3, p != 3)
    _eq(z.isin([1, 2]), p.isin([1, 2]))


@pytest.mark.parametrize("observed", [True, False])
@pytest.mark.parametrize("sort", [True, False])
def test_groupby_on_int_categories(observed, sort):
    dtype = pd.CategoricalDtype([30, 10, 20, 40])
    p = pd.DataFrame({"k": pd.Series([10, 30, 10, 20, 30]).astype(dtype),
                      "v": [1.0, 2.0, 3.0, 4.0, 5.0]})
    z = zb.DataFrame(p)
    _eq(z.groupby("k", observed=observed, sort=sort).sum(),
        p.groupby("k", observed=observed, sort=sort).sum())


def test_sort_values_follows_category_order():
    p = pd.DataFrame({"k": pd.Series([1, 2, 3, 2]).astype(pd.CategoricalDtype([2, 3, 1])),
                      "v": [1, 2, 3, 4]})
    z = zb.DataFrame(p)
    _eq(z.sort_values("k"), p.sort_values("k"))
    _eq(z.sort_values("k", ascending=False), p.sort_values("k", ascending=False))


def test_value_counts_unique_nunique():
    p = pd.Series([2.5, 1.5, 2.5, 2.5, 1.5, 0.5]).astype("category")
    z = zb.Series(p)
    _eq(z.value_counts(), p.value_counts())
    assert list(z.unique()) == list(p.unique())
    assert z.nunique() == p.nunique()


def test_merge_on_int_category_key():
    left = pd.DataFrame({"k": pd.Series([1, 2, 3, 1]).astype("category"), "a": [1, 2, 3, 4]})
    right = pd.DataFrame({"k": pd.Series([3, 1, 5]).astype("category"), "b": [7, 8, 9]})
    got = zb.DataFrame(left).merge(zb.DataFrame(right), on="k").to_pandas()
    want = left.merge(right, on="k")
    assert sorted(zip(got["k"].astype("int64"), got["a"], got["b"])) == \
        sorted(zip(want["k"].astype("int64"), want["a"], want["b"]))


def test_astype_back_to_value_dtype(kind):
    p = _pd(kind)
    z = zb.Series(p).astype("category")
    _eq(z.astype(p.dtype), p)


def test_cat_accessor_methods():
    p = pd.Series([3, 1, 2, 1]).astype(pd.CategoricalDtype([3, 2, 1], ordered=True))
    z = zb.Series(p)
    assert z.cat.categories.to_list() == p.cat.categories.to_list()
    _eq(z.cat.codes, p.cat.codes)
    _eq(z.cat.as_unordered(), p.cat.as_unordered())
    _eq(z.cat.as_unordered().cat.as_ordered(), p.cat.as_unordered().cat.as_ordered())
    _eq(z.cat.reorder_categories([1, 2, 3]), p.cat.reorder_categories([1, 2, 3]))
    _eq(z.cat.set_categories([1, 2]), p.cat.set_categories([1, 2]))
    _eq(z.cat.add_categories([7]), p.cat.add_categories([7]))
    _eq(z.cat.remove_categories([2]), p.cat.remove_categories([2]))
    _eq(z.cat.rename_categories([30, 20, 10]), p.cat.rename_categories([30, 20, 10]))
    _eq(z.cat.remove_categories([2]).cat.remove_unused_categories(),
        p.cat.remove_categories([2]).cat.remove_unused_categories())


def test_ordered_comparisons_and_min_max():
    p = pd.Series([3, 1, 2, None]).astype(pd.CategoricalDtype([3, 2, 1], ordered=True))
    z = zb.Series(p)
    for op in ("__lt__", "__le__", "__gt__", "__ge__"):
        _eq(getattr(z, op)(2), getattr(p, op)(2))
    _eq(2 > z, 2 > p)
    _eq(z < z, p < p)
    assert z.min() == p.min() == 3 and z.max() == p.max() == 1
    _eq(z.sort_values(), p.sort_values())
    with pytest.raises(TypeError):
        p < 5
    with pytest.raises(TypeError):
        z < 5


@pytest.mark.parametrize("cats,values,probe,outside", [
    (["z", "y", "x"], ["x", "y", "z", None, "y"], "y", ["q", 1, None]),
    ([3, 2, 1], [3, 1, None, 2], 2, [2.5, 5, "a"]),
])
def test_ordered_comparisons_with_a_scalar_as_pandas(cats, values, probe, outside):
    # text categories compare by category order too; a scalar that is not a
    # category raises a TypeError, as pandas (2.5 is not the category 2)
    p = pd.Series(values, dtype=pd.CategoricalDtype(cats, ordered=True))
    if isinstance(cats[0], int):
        p = pd.Series(values).astype(pd.CategoricalDtype(cats, ordered=True))
    z = zb.Series(p)
    for op in ("__lt__", "__le__", "__gt__", "__ge__"):
        _eq(getattr(z, op)(probe), getattr(p, op)(probe))
        for value in outside:
            with pytest.raises(TypeError):
                getattr(p, op)(value)
            with pytest.raises(TypeError):
                getattr(z, op)(value)
    _eq(probe > z, probe > p)
    _eq(z.fillna(cats[0]), p.fillna(cats[0]))
    with pytest.raises(TypeError):
        p.fillna(outside[0])
    with pytest.raises(TypeError):
        z.fillna(outside[0])


def test_unordered_order_comparison_raises_as_pandas():
    p = pd.Series([1, 2]).astype("category")
    z = zb.Series(p)
    with pytest.raises(TypeError, match="Unordered Categoricals"):
        p < 2
    with pytest.raises(TypeError, match="Unordered Categoricals"):
        z < 2
    with pytest.raises(TypeError):
        z + 1


def test_string_operations_name_the_categories_dtype():
    p = pd.Series([1, 2, 1]).astype("category")
    z = zb.Series(p)
    with pytest.raises(AttributeError, match=".str accessor"):
        p.str.upper()
    with pytest.raises(AttributeError, match="category of int64"):
        z.str.upper()
    with pytest.raises(UnsupportedError, match="str.upper.*int64"):
        _engine_str_upper(z._col)


def _engine_str_upper(col):
    """The engine's string function on the column itself (past the
    accessor's check): it must refuse integer categories by name."""
    from zambezi import accessors

    m = object.__new__(accessors.StringMethods)
    m._s = zb.Series._from_column(col)
    return m.upper()


def test_dt_and_fillna_on_value_categories():
    p = pd.Series(pd.to_datetime(["2020-03-01", None, "2021-01-02"])).astype("category")
    z = zb.Series(p)
    assert z.dt.year.to_list()[::2] == p.dt.year.to_list()[::2]
    q = pd.Series(pd.Categorical([1, None, 2], categories=[1, 2]))
    _eq(zb.Series(q).fillna(2), q.fillna(2))
    with pytest.raises(TypeError):
        q.fillna(5)
    with pytest.raises(TypeError):
        zb.Series(q).fillna(5)


def test_writers_write_the_values(tmp_path):
    p = pd.DataFrame({"k": pd.Series([3, 1, 3]).astype("category"), "v": [1, 2, 3]})
    z = zb.DataFrame(p)
    assert z.to_csv(index=False) == p.to_csv(index=False)
    path = tmp_path / "c.parquet"
    z.to_parquet(path)
    assert pd.read_parquet(path)["k"].astype("int64").to_list() == [3, 1, 3]


def test_dask_token_tells_categories_and_order_apart():
    pytest.importorskip("dask")
    pytest.importorskip("distributed")
    import zambezi.dask  # noqa: F401  (registers the tokenizer)
    from dask.base import tokenize

    base = pd.Series(pd.Categorical(list("bacbac")))
    ordered = pd.Series(pd.Categorical(list("bacbac"), ordered=True))
    wider = pd.Series(pd.Categorical(list("bacbac"), categories=list("abcd")))
    tokens = {tokenize(zb.Series(s)) for s in (base, ordered, wider)}
    assert len(tokens) == 3  # as pandas' own tokens differ
    assert len({tokenize(s) for s in (base, ordered, wider)}) == 3
    assert tokenize(zb.Series(base)) == tokenize(zb.Series(base.copy()))


def test_constructors_with_category_dtypes():
    _eq(zb.Series([1, 2, 1], dtype="category"), pd.Series([1, 2, 1], dtype="category"))
    _eq(zb.Series([2.5, 1.5], dtype="category"), pd.Series([2.5, 1.5], dtype="category"))
    dtype = pd.CategoricalDtype([1, 2, 3], ordered=True)
    _eq(zb.Series([1, 2], dtype=dtype), pd.Series([1, 2], dtype=dtype))
    got = zb.Index([2.5, 1.5], dtype="category").to_pandas()
    pd.testing.assert_index_equal(got, pd.Index([2.5, 1.5], dtype="category"))


@pytest.mark.parametrize("kw", [{}, {"ascending": True}, {"sort": False}, {"dropna": False},
                                {"normalize": True}, {"dropna": False, "normalize": True}])
def test_value_counts_lists_every_category_as_pandas(kw):
    for data, cats in (([3, 1, 3, 2, 1, None], [1, 2, 3, 4]), (["c", "a", None, "c"], None)):
        p = pd.Series(pd.Categorical(data, categories=cats))
        _eq(zb.Series(p).value_counts(**kw), p.value_counts(**kw))


def test_set_categories_of_another_dtype_as_pandas():
    # Dask's unknown categories: a placeholder string category replaced by
    # integers, and back
    p = pd.Series(pd.Categorical(["__UNKNOWN__"]))
    _eq(zb.Series(p).cat.set_categories([1, 2]), p.cat.set_categories([1, 2]))
    q = pd.Series(pd.Categorical([1, 2, 1]))
    _eq(zb.Series(q).cat.set_categories(["a"]), q.cat.set_categories(["a"]))


@pytest.mark.parametrize("cats, values", [([1.5, 2.0], [1, 2]), (["a"], [1, 2]),
                                          ([2, 1], [1.0, 2.0, 3.5])])
def test_categorical_dtype_keeps_its_categories_dtype(cats, values):
    dtype = pd.CategoricalDtype(cats)
    p = pd.Series(values)
    with pytest.warns(Warning):  # pandas 3: values outside the categories (deprecated)
        want = p.astype(dtype)
    _eq(zb.Series(p).astype(dtype), want)
