"""DataFrames from rows and arrays (zambezi._frame_build) against pandas run
side by side: 2-D and 1-D numpy arrays (with and without columns and
index), structured arrays, lists of dicts (keys in first-appearance order,
a key a row lacks missing), lists of lists or tuples (namedtuples naming
the columns), dataclasses, Series as rows, iterators, scalars, a Series,
an empty list; a Series, a dict of Series and a frame reindexed to
index=; DataFrame.from_dict (columns, index with dict or list rows, tight)
and from_records (tuples, dicts, structured arrays, index, exclude,
nrows of an iterator); and the errors pandas raises."""

import collections
import dataclasses

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from side_by_side import same

RNG = np.random.default_rng(4)
ARR = RNG.normal(size=(50, 3))
INTS = RNG.integers(0, 9, (30, 2))
STRUCT = np.array([(i, i / 2, f"s{i}") for i in range(20)],
                  dtype=[("x", "i8"), ("y", "f8"), ("z", "U3")])
DICTS = [{"a": int(i), "b": f"t{i}"} if i % 3 else {"a": int(i), "c": float(i) / 3}
         for i in range(40)]
TUPLES = [(int(i), f"v{i % 4}", None if i % 5 == 0 else float(i)) for i in range(40)]

PT = collections.namedtuple("PT", "x y")


@dataclasses.dataclass
class Row:
    a: int
    b: str


CASES = {
    "2d": lambda m: m.DataFrame(ARR),
    "2d columns": lambda m: m.DataFrame(ARR, columns=["a", "b", "c"]),
    "2d columns index": lambda m: m.DataFrame(ARR, columns=list("abc"),
                                              index=[f"r{i}" for i in range(50)]),
    "2d ints": lambda m: m.DataFrame(INTS, columns=["u", "v"]),
    "1d": lambda m: m.DataFrame(np.arange(7)),
    "structured": lambda m: m.DataFrame(STRUCT[["x", "y"]]),
    "dicts": lambda m: m.DataFrame(DICTS),
    "dicts columns": lambda m: m.DataFrame(DICTS, columns=["c", "a"]),
    "tuples": lambda m: m.DataFrame(TUPLES, columns=["n", "k", "f"]),
    "lists": lambda m: m.DataFrame([list(t) for t in TUPLES]),
    "scalars": lambda m: m.DataFrame([1.5, 2.5, None], columns=["v"]),
    "range": lambda m: m.DataFrame(range(4)),
    "array rows": lambda m: m.DataFrame([np.arange(3), np.arange(3) * 2], columns=list("xyz")),
    "series": lambda m: m.DataFrame(m.Series([1, 2], index=["a", "b"], name="v")),
    "empty": lambda m: m.DataFrame([], columns=["a", "b"]),
    "empty rows": lambda m: m.DataFrame([[], []]),
    "namedtuples": lambda m: m.DataFrame([PT(1, 2.5), PT(3, None)]),
    "namedtuples columns": lambda m: m.DataFrame([PT(1, 2.5), PT(3, None)], columns=["p", "q"]),
    "dataclasses": lambda m: m.DataFrame([Row(1, "x"), Row(2, "y")]),
    "iterator": lambda m: m.DataFrame(iter([[1, "a"], [2, "b"]]), columns=["n", "s"]),
    "series rows": lambda m: m.DataFrame([m.Series({"a": 1.5, "b": 2.0}), m.Series({"a": 3.0}),
                                          m.Series({"c": 4.0, "a": 0.5})]),
    "named series rows": lambda m: m.DataFrame([m.Series({"a": 1.5}, name="r1"),
                                                m.Series({"a": 3.0})]),
    # labelled data with index=: reindexed, not relabelled (lists positional)
    "series index": lambda m: m.DataFrame(m.Series([1, 2], index=["a", "b"], name="v"),
                                          index=["b", "c"]),
    "dict of series index": lambda m: m.DataFrame(
        {"x": m.Series([1.5, 2.5, 3.5], index=["a", "b", "c"]), "y": [5, 6]},
        index=["c", "a"]),
    "frame index": lambda m: m.DataFrame(m.DataFrame({"q": [1.0, 2.0]}), index=[1, 5]),
    "pandas series": lambda m: m.DataFrame(pd.Series([1.5, 2.5], index=["a", "b"], name="v"),
                                           index=["b", "c"]),
    "pandas series unnamed": lambda m: m.DataFrame(pd.Series([1, 2])),
    # the labels it has already, a repeated one too: no reindex needed
    "series repeated labels index": lambda m: m.DataFrame(
        {"a": m.Series([1, 2, 3], index=["x", "x", "y"]), "b": [4, 5, 6]},
        index=["x", "x", "y"]),
    "frame repeated labels index": lambda m: m.DataFrame(
        m.DataFrame({"a": [1.5, 2.5]}, index=[7, 7]), index=[7, 7]),
    "from_dict index": lambda m: m.DataFrame.from_dict(
        {f"r{i}": d for i, d in enumerate(DICTS)}, orient="index"),
    "from_dict index lists": lambda m: m.DataFrame.from_dict(
        {"r1": [1, 2], "r2": [3, 4]}, orient="index", columns=["p", "q"]),
    "from_dict index series": lambda m: m.DataFrame.from_dict(
        {"r1": m.Series({"a": 1.5, "b": 2.0}), "r2": m.Series({"a": 3.0})}, orient="index"),
    "from_dict columns": lambda m: m.DataFrame.from_dict({"a": [1, 2], "b": ["x", "y"]}),
    "from_dict tight": lambda m: m.DataFrame.from_dict(
        {"index": [("a", 1), ("b", 2)], "columns": ["x"], "data": [[1.5], [2.5]],
         "index_names": ["k", "n"], "column_names": [None]}, orient="tight"),
    "from_records": lambda m: m.DataFrame.from_records(TUPLES, columns=["n", "k", "f"],
                                                       index="k"),
    "from_records dicts": lambda m: m.DataFrame.from_records(DICTS),
    "from_records structured": lambda m: m.DataFrame.from_records(STRUCT[["x", "y"]],
                                                                  columns=["y"]),
    "from_records exclude": lambda m: m.DataFrame.from_records(
        TUPLES, columns=["n", "k", "f"], exclude=["k"]),
    "from_records iterator": lambda m: m.DataFrame.from_records(iter(TUPLES), nrows=5),
    "from_records int fields index": lambda m: m.DataFrame.from_records(TUPLES, index=[1, 0]),
    "set_index of int labels": lambda m: m.DataFrame(INTS).set_index(0),
    "set_index of int labels list": lambda m: m.DataFrame(TUPLES).set_index([2, 0]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_built_like_pandas(name):
    same(CASES[name](zb), CASES[name](pd), check_dtype=False)


def test_string_columns_of_structured_arrays_and_rows():
    got = zb.DataFrame(STRUCT).to_pandas()
    assert got["z"].tolist() == [f"s{i}" for i in range(20)]
    assert zb.DataFrame(TUPLES, columns=["n", "k", "f"])["k"].dtype == "string"


def test_errors_as_pandas():
    with pytest.raises(ValueError, match="Shape of passed values"):
        zb.DataFrame(ARR, columns=["a", "b"])
    with pytest.raises(ValueError, match="different lengths"):
        zb.DataFrame([(1, 2), (3,)])
    with pytest.raises(ValueError, match="orient"):
        zb.DataFrame.from_dict({"a": [1]}, orient="rows")
    with pytest.raises(ValueError, match="columns parameter"):
        zb.DataFrame.from_dict({"a": [1]}, columns=["a"])
    with pytest.raises(ValueError):
        zb.DataFrame(np.zeros((2, 2, 2)))


@pytest.mark.parametrize("case", range(5))
def test_dict_of_series_with_different_labels_aligns_as_pandas(case):
    # the rows are the union of the Series' labels (sorted where it can be),
    # each Series reindexed onto it (missing where it has no such label)
    S = pd.Series
    data = [
        {"a": S([1, 2], index=["x", "y"]), "b": S([3.0, 4.0], index=["y", "z"])},
        {"a": S([1, 2]), "b": S([3, 4], index=[1, 2])},
        {"a": S([1, 2], index=[3, 1]), "b": S(["p"], index=[2]), "c": S([9, 8], index=[3, 1])},
        {"a": S([1, 2], index=["b", "a"]), "b": S([3, 4], index=["b", "a"])},
        {"a": S([1.5], index=[pd.Timestamp("2024-01-02")]),
         "b": S([2.5], index=[pd.Timestamp("2024-01-01")])},
    ][case]
    want = pd.DataFrame(data)
    same(zb.DataFrame({k: zb.from_pandas(v) for k, v in data.items()}), want,
         check_dtype=False)
    same(zb.DataFrame(data), want, check_dtype=False)


def test_dict_of_series_with_repeated_labels_refuses_to_align_as_pandas():
    with pytest.raises(ValueError, match="duplicate labels"):
        zb.DataFrame({"a": zb.Series([1, 2], index=["x", "x"]), "b": zb.Series([1], index=["y"])})
    with pytest.raises(ValueError, match="duplicate labels"):
        pd.DataFrame({"a": pd.Series([1, 2], index=["x", "x"]), "b": pd.Series([1], index=["y"])})
