"""pandas' everyday Index methods on zambezi indexes (zambezi._index_methods),
each compared with pandas run side by side on the same labels: numbers with
and without missing values, strings, dates, a categorical and a RangeIndex,
with a name."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb

LABELS = {
    "int": pd.Index([5, 3, 9, 3, 1, 7], name="k"),
    "float_nan": pd.Index([2.5, np.nan, -1.0, 2.5, 8.25, np.nan], name="k"),
    "str": pd.Index(["b", "a", None, "c", "a", "d"], name="k"),
    "dates": pd.DatetimeIndex(["2021-03-01", "2020-01-05", None, "2020-01-05", "2024-12-31",
                               "2021-03-01"], name="k"),
    "category": pd.CategoricalIndex(["x", "y", "x", None, "z", "y"], name="k"),
    "range": pd.RangeIndex(2, 14, 2, name="k"),
}


def _same(got, want):
    if isinstance(want, pd.Index):
        pd.testing.assert_index_equal(got.to_pandas(), want, exact="equiv")
    elif isinstance(want, pd.Series):
        pd.testing.assert_series_equal(got.to_pandas(), want, check_index_type="equiv")
    elif isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    elif isinstance(want, np.ndarray):
        np.testing.assert_array_equal(np.asarray(got), want)
    else:
        assert got == want or (want != want and got != got), (got, want)


def _both(kind, fn):
    p = LABELS[kind]
    z = zb.Index(p) if kind != "range" else zb.RangeIndex(p.start, p.stop, p.step, name=p.name)
    return fn(z), fn(p)


METHODS = {
    "isin": lambda i: i.isin(i[:2]),
    "isnull": lambda i: i.isnull(),
    "notna": lambda i: i.notna(),
    "hasnans": lambda i: i.hasnans,
    "dropna": lambda i: i.dropna(),
    "duplicated": lambda i: i.duplicated(),
    "duplicated last": lambda i: i.duplicated(keep="last"),
    "duplicated none": lambda i: i.duplicated(keep=False),
    "append": lambda i: i.append(i[:3]),
    "append list": lambda i: i.append([i[1:2], i[:1]]),
    "delete": lambda i: i.delete([0, 3]),
    "delete negative": lambda i: i.delete(-1),
    "take": lambda i: i.take([4, 0, -1]),
    "repeat": lambda i: i.repeat(2),
    "repeat each": lambda i: i.repeat([0, 1, 2, 0, 1, 3]),
    "sort_values": lambda i: i.sort_values(),
    "sort_values desc first": lambda i: i.sort_values(ascending=False, na_position="first"),
    "sort_values indexer": lambda i: i.sort_values(return_indexer=True),
    "drop": lambda i: i.drop([i[0]]),
    "drop missing ignored": lambda i: i.drop([i[0], i[0]], errors="ignore"),
    "item": lambda i: i[4:5].item(),
    "identical": lambda i: i.identical(i.copy()),
    "get_level_values": lambda i: i.get_level_values(0),
    "T": lambda i: i.T,
}
NUMERIC_ONLY = {
    "argsort": lambda i: i.argsort(),
    "argmin": lambda i: i.argmin(),
    "argmax": lambda i: i.argmax(),
    "round": lambda i: i.round(1),
    "diff": lambda i: i.diff(),
    "where": lambda i: i.where(np.array([True, False] * 3), 0),
    "putmask": lambda i: i.putmask(np.array([True, False] * 3), 0),
    "fillna": lambda i: i.fillna(0),
    "map": lambda i: i.map(lambda v: v * 2),
    "searchsorted": lambda i: i.sort_values().searchsorted(4),
    "insert": lambda i: i.insert(2, 100),
    "insert missing": lambda i: i.insert(-1, None),
    "factorize": lambda i: i.factorize(),
    "factorize sorted": lambda i: i.factorize(sort=True),
    "value_counts": lambda i: i.value_counts().sort_index(),
}
STR_ONLY = {
    "fillna": lambda i: i.fillna("q"),
    "map dict": lambda i: i.map({"a": "A", "b": "B"}),
    "insert": lambda i: i.insert(1, "new"),
    "insert missing": lambda i: i.insert(0, None),
    "factorize": lambda i: i.factorize(),
    "value_counts": lambda i: i.value_counts(),
    "where": lambda i: i.where(np.array([True, False] * 3), "w"),
}


@pytest.mark.parametrize("name", list(METHODS))
@pytest.mark.parametrize("kind", list(LABELS))
def test_methods_as_pandas(kind, name):
    got, want = _both(kind, METHODS[name])
    _same(got, want)


@pytest.mark.parametrize("name", list(NUMERIC_ONLY))
@pytest.mark.parametrize("kind", ["int", "float_nan", "range"])
def test_numeric_methods_as_pandas(kind, name):
    got, want = _both(kind, NUMERIC_ONLY[name])
    _same(got, want)


@pytest.mark.parametrize("name", list(STR_ONLY))
def test_string_methods_as_pandas(name):
    got, want = _both("str", STR_ONLY[name])
    _same(got, want)


def test_errors_name_the_problem():
    z, p = zb.Index(["a", "b"]), pd.Index(["a", "b"])
    with pytest.raises(KeyError, match="not found in axis"):
        p.drop(["zz"])
    with pytest.raises(KeyError, match="not found in axis"):
        z.drop(["zz"])
    with pytest.raises(IndexError):
        z.insert(5, "x")
    with pytest.raises(IndexError):
        z.delete(7)
    with pytest.raises(IndexError):
        z.take([3])
    with pytest.raises(ValueError, match="size 1"):
        z.item()


def test_multiindex_positional_methods():
    p = pd.MultiIndex.from_arrays([[1.0, 1.0, 2.0, np.nan], ["a", "b", "a", "c"]],
                                  names=["x", "y"])
    z = zb.MultiIndex.from_arrays([[1.0, 1.0, 2.0, np.nan], ["a", "b", "a", "c"]],
                                  names=["x", "y"])
    for fn in (lambda i: i.take([3, 0]), lambda i: i.delete(1), lambda i: i.repeat(2),
               lambda i: i.dropna(), lambda i: i.append(i[:2]), lambda i: i.duplicated(),
               lambda i: i.isin(["a"], level="y")):
        _same(fn(z), fn(p))


def test_cat_of_a_categorical_index_is_the_index_itself():
    z = zb.Index(["b", "a", "b"], dtype="category")
    assert z.cat is z
    assert z.cat.categories.to_list() == ["a", "b"]
    pd.testing.assert_index_equal(z.cat.as_ordered().to_pandas(),
                                  pd.CategoricalIndex(["b", "a", "b"]).as_ordered())
    assert not hasattr(zb.Index([1, 2]), "cat")


@pytest.mark.parametrize("key", ["categorical", "int", "with a column"])
def test_set_index_takes_pandas_indexes(key):
    p = pd.DataFrame({"a": [1, 2, 3]}, index=["x", "y", "x"])
    k = {"categorical": pd.CategoricalIndex(p.index), "int": pd.Index([5, 6, 7], name="n"),
         "with a column": [pd.Index([1, 2, 3], name="i"), "a"]}[key]
    pd.testing.assert_frame_equal(zb.DataFrame(p).set_index(k).to_pandas(), p.set_index(k))
