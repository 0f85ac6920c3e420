"""Column labels of mixed kinds (str beside numbers), as pandas' object
Index holds them: ``reset_index`` of a pivot table whose columns are
years, ``from_pandas`` of a frame labelled 1 and "a".  pandas runs side by
side: labels, lookups by label, CSV and round trips."""

import pickle

import numpy as np
import pandas as pd
import pytest

import zambezi as zb


def _sales():
    return pd.DataFrame({"store": ["S1", "S2", "S1", "S3"], "year": [2021, 2022, 2022, 2021],
                         "sales": [1.0, 2.0, 3.0, 4.5]})


RESHAPES = {
    "pivot_table": lambda d: d.pivot_table(index="store", columns="year", values="sales",
                                           aggfunc="sum"),
    "groupby unstack": lambda d: d.groupby(["store", "year"])["sales"].sum().unstack(),
}


@pytest.mark.parametrize("how", ["pivot_table", "groupby unstack"])
def test_reset_index_of_year_columns(how):
    p = RESHAPES[how](_sales()).reset_index()
    z = RESHAPES[how](zb.from_pandas(_sales())).reset_index()
    assert list(z.columns) == list(p.columns) == ["store", 2021, 2022]
    pd.testing.assert_index_equal(pd.Index(z.columns), p.columns)
    pd.testing.assert_frame_equal(z.to_pandas(), p)
    for label in [2021, "store"]:
        pd.testing.assert_series_equal(z[label].to_pandas(), p[label])
    pd.testing.assert_frame_equal(z[[2022, "store"]].to_pandas(), p[[2022, "store"]])
    assert z.to_csv() == p.to_csv()
    assert z.to_csv(quoting=2) == p.to_csv(quoting=2)


def test_from_pandas_keeps_mixed_labels():
    p = pd.DataFrame({1: [1.5, 2.0], "a": ["x", None], 2.5: [3, 4]})
    z = zb.from_pandas(p)
    assert list(z.columns) == [1, "a", 2.5]
    pd.testing.assert_frame_equal(z.to_pandas(), p)
    pd.testing.assert_frame_equal(z[[1]].to_pandas(), p[[1]])
    pd.testing.assert_series_equal(z[2.5].to_pandas(), p[2.5])
    assert 1 in z.columns and "1" not in z.columns and ("1" in p.columns) is False
    assert z.columns.get_loc("a") == p.columns.get_loc("a") == 1
    np.testing.assert_array_equal(z.columns == 1, p.columns == 1)
    assert list(z.columns[1:]) == list(p.columns[1:])
    assert z.columns.equals(zb.from_pandas(p).columns)
    assert not z.columns.equals(zb.Index(["1", "a", "2.5"]))
    back = pickle.loads(pickle.dumps(z))
    assert list(back.columns) == [1, "a", 2.5]
    pd.testing.assert_frame_equal(z.rename(columns={1: "one"}).to_pandas(),
                                  p.rename(columns={1: "one"}))
    assert repr(z.columns) == "Index([1, 'a', 2.5], dtype='object')"


def test_one_and_the_text_one_stay_apart():
    p = pd.DataFrame({1: [1], "1": [2]})
    z = zb.from_pandas(p)
    assert z[1].to_list() == [1] and z["1"].to_list() == [2]
    pd.testing.assert_frame_equal(z.to_pandas(), p)


@pytest.mark.parametrize("frame", [
    pd.DataFrame({0: ["a", "b", "a"]}),
    pd.DataFrame({0: ["a", "b", "a"], "x": [1, 1, 1]}),
    pd.DataFrame({("a", "b"): [1, 1, 2]}),
])
def test_value_counts_index_named_by_the_labels(frame):
    got = zb.from_pandas(frame).value_counts()
    pd.testing.assert_series_equal(got.to_pandas(), frame.value_counts())
    # pandas writes a MultiIndex level named 0 as no name, a flat index's 0 as "0"
    assert got.to_csv() == frame.value_counts().to_csv()


def test_to_csv_index_named_0():
    s = pd.Series(["x1", "y", "x1"])
    want = s.str.extract(r"(\d)").value_counts().to_csv()
    assert zb.Series(s).str.extract(r"(\d)").value_counts().to_csv() == want
    for p in [pd.DataFrame({"v": [1, 2]}, index=pd.MultiIndex.from_tuples(
                  [(0, "a"), (1, "b")], names=[0, "k"])),
              pd.DataFrame({"v": [1, 2]}, index=pd.Index([5, 6], name=0))]:
        assert zb.from_pandas(p).to_csv() == p.to_csv()


def test_row_lookups_on_labels_of_mixed_kinds():
    # a reduction of such columns is indexed by them: loc, [], reindex, in
    df = _sales()
    p = RESHAPES["pivot_table"](df).reset_index().sum(numeric_only=True)
    z = RESHAPES["pivot_table"](zb.from_pandas(df)).reset_index().sum(numeric_only=True)
    pd.testing.assert_series_equal(z.to_pandas(), p)
    assert z[2021] == p[2021] and z.loc[2022] == p.loc[2022]
    pd.testing.assert_series_equal(z.loc[[2022, 2021]].to_pandas(), p.loc[[2022, 2021]])
    pd.testing.assert_series_equal(z.drop(2021).to_pandas(), p.drop(2021))
    assert (2021 in z.index) and ("2021" not in z.index)
