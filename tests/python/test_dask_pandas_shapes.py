"""What Dask needs of a partition's pandas-shaped answers (found running
Dask's own test_groupby with the zambezi backend): columns and dtypes as
pandas objects, the group-by keys and methods Dask calls, and the in-place
setters it uses.  Each result is compared with pandas on the same data."""

import pandas as pd
import pytest

import zambezi as zb
import zambezi.frame as zbframe


def _pdf():
    return pd.DataFrame({"k": ["a", "b", "a", None, "b", "a"],
                         "v": [1, 2, 1, 4, 5, 3],
                         "f": [0.5, None, 2.0, 1.0, None, 0.5]},
                        index=pd.Index([10, 11, 12, 13, 14, 15], name="ix"))


# -- columns and dtypes -----------------------------------------------------------------------
def test_columns_is_a_pandas_index():
    pdf = _pdf()
    df = zb.from_pandas(pdf)
    assert isinstance(df.columns, pd.Index)
    pd.testing.assert_index_equal(df.columns, pdf.columns, exact=False)
    assert df.columns.difference(["k"]).to_list() == ["f", "v"]
    got = df.groupby("k").agg(["sum", "max"]).columns
    assert isinstance(got, pd.MultiIndex)
    assert got.to_list() == pdf.groupby("k").agg(["sum", "max"]).columns.to_list()
    # a pandas Index selects and relabels
    assert df[df.columns[1:]].columns.to_list() == ["v", "f"]
    df.columns = pd.Index(["x", "y", "z"])
    assert df.columns.to_list() == ["x", "y", "z"]


def test_dtypes_is_a_pandas_series():
    pdf = _pdf()
    df = zb.from_pandas(pdf)
    got = df.dtypes
    assert isinstance(got, pd.Series)
    assert got.index.to_list() == pdf.dtypes.index.to_list()
    assert got.to_dict() == {"k": "string", "v": "int64", "f": "float64"}
    assert [got[c].kind for c in got.index] == ["O", "i", "f"]


def test_columns_and_dtypes_without_pandas(monkeypatch):
    monkeypatch.setattr(zbframe, "_PANDAS", [False])
    df = zb.DataFrame({"a": [1], "b": ["x"]})
    assert isinstance(df.columns, zb.Index) and df.columns.to_list() == ["a", "b"]
    assert df.dtypes == {"a": "int64", "b": "string"}
    assert df.dtypes.to_dict() == {"a": "int64", "b": "string"}
