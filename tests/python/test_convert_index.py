"""Conversions (to_numpy, to_dict in every orient, to_records, itertuples,
iterrows, items, keys, T) and the index through Arrow (to_arrow, the C
stream, from_arrow), against pandas and pyarrow run side by side on random
data with nulls in every dtype.

Documented differences the tests apply to pandas' answer (``plain``):
missing values are None in Python objects (pandas: NaN, pd.NA) except
in timestamp columns (NaT, as pandas), numpy scalars are Python scalars; an integer column with nulls converts to float64 with NaN
in to_numpy (pandas: object once it meets other columns); T labels its
columns with the row labels as str.
"""

import datetime as dt
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import zambezi as zb
from zambezi.errors import DTypeError, InvalidValueError
from pandas_compare import assert_frame_like, assert_series_like

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def random_frame(n, seed=0, null_rate=0.25):
    rng = np.random.default_rng(seed)
    cols = {}
    for name in INTS:
        info = np.iinfo(name)
        v = rng.integers(info.min, info.max, n, dtype=name, endpoint=True)
        cols[name] = pd.array(v, dtype=name.capitalize().replace("Ui", "UI"))
    cols["float32"] = pd.array(rng.normal(size=n).astype("float32"))
    cols["float64"] = pd.array(rng.normal(size=n) * 1e6)
    cols["bool"] = pd.array(rng.random(n) < 0.5, dtype="boolean")
    cols["string"] = pd.Series(rng.choice(["", "a", "Lusaka", "ñandú", "日本"], n), dtype="str")
    cols["category"] = pd.Series(rng.choice(["red", "green", "blue"], n)).astype("category")
    days = rng.integers(-20000, 30000, n)
    cols["date"] = pd.Series(list((np.datetime64("1970-01-01") + days).astype("datetime64[D]")
                                  .astype(object)), dtype="object")
    stamps = rng.integers(-2 * 10**9, 4 * 10**9, n)
    for unit in ["s", "ms", "us"]:
        cols[f"ts_{unit}"] = pd.Series(stamps.astype("datetime64[s]").astype(f"datetime64[{unit}]"))
    cols["ts_tz"] = pd.Series(stamps.astype("datetime64[s]").astype("datetime64[us]")) \
        .dt.tz_localize("UTC").dt.tz_convert("America/Sao_Paulo")
    pdf = pd.DataFrame(cols)
    for c in pdf.columns:
        pdf[c] = pdf[c].where(pd.Series(rng.random(n) >= null_rate))
    return pdf


def plain(obj):
    """pandas' Python objects as zambezi gives them (see the module doc)."""
    if isinstance(obj, dict):
        return {plain(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [plain(v) for v in obj]
    if isinstance(obj, tuple):
        return tuple(plain(v) for v in obj)
    if obj is pd.NaT or isinstance(obj, pd.Timestamp):
        return obj
    if obj is None or obj is pd.NA:
        return None
    if isinstance(obj, float) and np.isnan(obj):
        return None
    if isinstance(obj, np.generic):
        return plain(obj.item())
    return obj


INDEXES = {
    "range": lambda n: pd.RangeIndex(n),
    "range_named_shifted": lambda n: pd.RangeIndex(5, 5 + 3 * n, 3, name="r"),
    "strings": lambda n: pd.Index([f"row{i}" for i in range(n)], name="key"),
    "ints_unnamed": lambda n: pd.Index(np.arange(n) * 7 - 3),
    "multi": lambda n: pd.MultiIndex.from_arrays(
        [np.arange(n) % 3, [f"k{i}" for i in range(n)]], names=["a", None]),
}


def labelled(pdf, kind):
    pdf = pdf.copy()
    pdf.index = INDEXES[kind](len(pdf))
    return pdf


# -- to_dict -------------------------------------------------------------------

@pytest.mark.parametrize("kind", list(INDEXES))
@pytest.mark.parametrize("orient", ["dict", "list", "split", "tight", "records", "index"])
def test_to_dict_matches_pandas(kind, orient):
    pdf = labelled(random_frame(23, seed=3), kind)
    df = zb.DataFrame(pdf)
    got = df.to_dict(orient)
    exp = plain(pdf.to_dict(orient))
    assert got == exp
    if orient in ("split", "tight"):
        assert df.to_dict(orient, index=False) == plain(pdf.to_dict(orient, index=False))


def test_to_dict_default_orient_is_pandas_dict_and_into():
    pdf = pd.DataFrame({"a": [1, 2], "s": ["x", "y"]}, index=["p", "q"])
    df = zb.DataFrame(pdf)
    assert df.to_dict() == pdf.to_dict() == {"a": {"p": 1, "q": 2}, "s": {"p": "x", "q": "y"}}
    from collections import OrderedDict, defaultdict

    got = df.to_dict("records", into=OrderedDict)
    assert all(type(r) is OrderedDict for r in got) and got == pdf.to_dict("records")
    got = df.to_dict(into=defaultdict(list))
    assert type(got) is defaultdict and type(got["a"]) is defaultdict
    series = df.to_dict("series")
    assert list(series) == ["a", "s"]
    assert_series_like(series["s"], pdf["s"], "series orient")


def test_to_dict_errors():
    df = zb.DataFrame({"a": [1, 2]}, index=["x", "x"])
    with pytest.raises(InvalidValueError, match="unique"):
        df.to_dict("index")
    with pytest.raises(InvalidValueError, match="orient"):
        df.to_dict("rows")
    with pytest.raises(InvalidValueError, match="index=False"):
        df.to_dict("list", index=False)
    with pytest.raises(DTypeError, match="Mapping"):
        df.to_dict(into=list)


@pytest.mark.parametrize("kind", ["range", "strings", "multi"])
def test_series_to_dict_items_keys(kind):
    pdf = labelled(random_frame(17, seed=4), kind)
    df = zb.DataFrame(pdf)
    for c in ["int64", "float64", "string", "date", "ts_tz"]:
        s = df[c]
        assert s.to_dict() == plain(pdf[c].to_dict())
        assert list(s.items()) == plain(list(pdf[c].items()))
        assert s.keys().to_list() == plain(list(pdf[c].keys()))


# -- to_numpy ------------------------------------------------------------------

NUMPY_CASES = [
    {"a": np.array([1, 2], dtype="int8"), "b": np.array([3, 4], dtype="uint8")},
    {"a": np.array([1, 2], dtype="int64"), "b": np.array([3, 4], dtype="uint64")},
    {"a": np.array([1, 2], dtype="int32"), "b": np.array([0.5, np.nan], dtype="float32")},
    {"a": np.array([1, 2], dtype="int8"), "b": np.array([0.5, 1.5], dtype="float32")},
    {"a": np.array([1, 2]), "b": np.array([True, False])},
    {"a": np.array([True, False]), "b": np.array([False, False])},
    {"a": np.array([1.5, 2.0]), "s": pd.Series(["x", "y"], dtype="str")},
    {"a": pd.to_datetime(["2024-01-01", "2024-02-01"]).as_unit("ms"),
     "b": pd.to_datetime(["2024-01-01", None]).as_unit("us")},
    {"a": pd.to_datetime(["2024-01-01", "2024-02-01"]).as_unit("s"), "b": [1, 2]},
    {"c": pd.Categorical(["u", "v"]), "s": pd.Series(["x", "y"], dtype="str")},
    {"i": pd.array([1, None], dtype="Int64")},
]


def _same(got, exp):
    assert got.shape == exp.shape
    assert got.dtype == exp.dtype, (got.dtype, exp.dtype)
    for g, e in zip(got.ravel().tolist(), exp.ravel().tolist()):
        assert plain(g) == plain(e), (g, e)


@pytest.mark.parametrize("i", range(len(NUMPY_CASES)))
def test_to_numpy_common_dtype_matches_pandas(i):
    pdf = pd.DataFrame(NUMPY_CASES[i])
    df = zb.DataFrame(pdf)
    _same(df.to_numpy(), pdf.to_numpy())
    _same(df.values, pdf.values)
    _same(np.asarray(df), np.asarray(pdf))


def test_to_numpy_na_value_and_dtype():
    pdf = pd.DataFrame({"a": pd.array([1, None, 3], dtype="Int64"), "f": [0.5, np.nan, 2.5]})
    df = zb.DataFrame(pdf)
    _same(df[["f"]].to_numpy(na_value=-1.0), pdf[["f"]].to_numpy(na_value=-1.0))
    _same(df[["a"]].to_numpy(na_value=0), pdf[["a"]].to_numpy(na_value=0))
    _same(df[["a"]].to_numpy(dtype="float32"), pdf[["a"]].to_numpy(dtype="float32"))
    # pandas leaves the float column's NaN unfilled here (casting it to int64
    # gives a garbage integer); every missing value becomes na_value
    assert df.to_numpy(dtype="int64", na_value=-9).tolist() == [[1, 0], [-9, -9], [3, 2]]
    # documented difference: an integer column with nulls is float64 here
    got = df.to_numpy()
    assert got.dtype == np.float64
    assert np.array_equal(got, pdf.to_numpy(dtype="float64", na_value=np.nan), equal_nan=True)
    with pytest.raises(InvalidValueError, match="'a' has missing values"):
        df.to_numpy(dtype="int64")
    with pytest.raises(ValueError, match="copy"):
        np.array(df, copy=False)
    assert zb.DataFrame({"s": ["x", None]}).to_numpy(na_value="?").tolist() == [["x"], ["?"]]


def test_to_numpy_random_frame_matches_pandas_objects():
    pdf = random_frame(40, seed=8).drop(columns=INTS[:2])
    df = zb.DataFrame(pdf)
    got = df.to_numpy()
    assert got.dtype == object and got.shape == pdf.shape
    exp = pdf.to_numpy()
    for j, c in enumerate(pdf.columns):
        assert [plain(v) for v in got[:, j]] == [plain(v) for v in exp[:, j]], c


# -- to_records, itertuples, iterrows, items, keys, T -------------------------

@pytest.mark.parametrize("kind", ["range", "strings", "ints_unnamed", "multi"])
def test_to_records_matches_pandas(kind):
    pdf = labelled(pd.DataFrame({"i": np.arange(6), "f": np.linspace(0, 1, 6),
                                 "s": pd.Series(list("abcdef"), dtype="str")}), kind)
    for index in (True, False):
        got = zb.DataFrame(pdf).to_records(index=index)
        exp = pdf.to_records(index=index)
        assert got.dtype.names == exp.dtype.names
        for name in exp.dtype.names:
            assert got[name].dtype == exp[name].dtype, name
            assert got[name].tolist() == exp[name].tolist(), name
    got = zb.DataFrame(pdf).to_records(column_dtypes={"i": "int8"}, index=False)
    assert got["i"].dtype == np.int8


@pytest.mark.parametrize("kind", list(INDEXES))
def test_itertuples_matches_pandas(kind):
    pdf = labelled(random_frame(12, seed=6), kind)
    df = zb.DataFrame(pdf)
    for kwargs in [{}, {"index": False}, {"name": None}, {"name": "Row", "index": False}]:
        got, exp = list(df.itertuples(**kwargs)), list(pdf.itertuples(**kwargs))
        assert [plain(tuple(r)) for r in exp] == [tuple(r) for r in got]
        if kwargs.get("name", "Pandas") is not None:
            assert type(got[0]).__name__ == type(exp[0]).__name__
            assert got[0]._fields == exp[0]._fields
    odd = zb.DataFrame({"a b": [1], "def": [2]})
    assert next(odd.itertuples())._fields == next(odd.to_pandas().itertuples())._fields


@pytest.mark.parametrize("kind", ["range", "strings", "multi"])
def test_iterrows_matches_pandas(kind):
    pdf = labelled(pd.DataFrame({"a": [1, 2, 3], "b": [0.5, np.nan, 2.5],
                                 "c": np.array([7, 8, 9], dtype="int8")}), kind)
    df = zb.DataFrame(pdf)
    rows = list(df.iterrows())
    assert len(rows) == len(list(pdf.iterrows()))
    for (gl, gs), (el, es) in zip(rows, pdf.iterrows()):
        assert gl == el
        assert_series_like(gs, es, f"row {el}")
    mixed = pd.DataFrame({"a": [1, 2], "s": ["x", "y"]}, index=["p", "q"])
    got = list(zb.DataFrame(mixed).iterrows())
    assert got == [(lbl, plain(r.to_dict())) for lbl, r in mixed.iterrows()]


def test_items_keys():
    pdf = random_frame(9, seed=1)
    df = zb.DataFrame(pdf)
    assert df.keys().to_list() == list(pdf.keys())
    for (gn, gs), (en, es) in zip(df.items(), pdf.items()):
        assert gn == en and gs.to_list() == plain(es.tolist())


@pytest.mark.parametrize("kind", ["range", "strings", "ints_unnamed"])
def test_transpose_matches_pandas(kind):
    cases = [
        {"a": [1, 2, 3], "b": [0.5, np.nan, 2.5]},
        {"a": np.array([1, 2, 3], dtype="int16"), "b": np.array([4, 5, 6], dtype="int16")},
        {"s": pd.Series(["x", None, "z"], dtype="str"),
         "t": pd.Series(["u", "v", None], dtype="str")},
        {"c": pd.Categorical(["x", "y", "x"]), "d": pd.Categorical(["q", "q", "r"])},
    ]
    for data in cases:
        pdf = labelled(pd.DataFrame(data), kind)
        got = zb.DataFrame(pdf).T
        exp = pdf.T  # the row labels become the column labels, of their type
        if (exp.dtypes == object).all():
            # pandas gives object columns of the strings or categories;
            # zambezi keeps the dtype (compared as strings here)
            exp = exp.astype("str")
            got = got.astype("string")
        assert_frame_like(got, exp, f"T of {list(data)}")
        if not (pdf.T.dtypes == object).any():
            # the index name became the column labels' name and comes back
            assert_frame_like(zb.DataFrame(pdf).T.T, pdf.T.T, f"T.T of {list(data)}")


def test_transpose_errors():
    with pytest.raises(DTypeError, match="cannot be held in one dtype"):
        zb.DataFrame({"a": [1], "s": ["x"]}).T
    # repeated row labels give repeated column labels, as in pandas
    pdf = pd.DataFrame({"a": [1, 2]}, index=["x", "x"])
    assert zb.DataFrame(pdf).T.columns.to_list() == list(pdf.T.columns)


# -- the index through Arrow ----------------------------------------------------

def _field_names(table):
    return table.schema.names


@pytest.mark.parametrize("kind", list(INDEXES))
def test_to_arrow_is_pyarrow_from_pandas(kind):
    pdf = labelled(random_frame(31, seed=2), kind)
    df = zb.DataFrame(pdf)
    got = df.to_arrow()
    exp = pa.Table.from_pandas(pdf)
    assert _field_names(got) == _field_names(exp)
    meta = json.loads(got.schema.metadata[b"pandas"])
    assert meta["index_columns"] == json.loads(exp.schema.metadata[b"pandas"])["index_columns"]
    # pyarrow rebuilds zambezi's frame, index included
    assert_frame_like(got.to_pandas(), df.to_pandas(), f"to_arrow().to_pandas() {kind}")
    # and zambezi reads pandas' table back with its index
    back = zb.from_arrow(exp)
    assert_frame_like(back, df.to_pandas(), f"from_arrow(from_pandas) {kind}")
    assert back.index.names == list(pdf.index.names)
    # a round trip keeps the labels
    again = zb.from_arrow(got)
    assert again.index.equals(df.index) and again.to_dict("list") == df.to_dict("list")
    assert zb.DataFrame(got).index.equals(df.index)


def test_c_stream_carries_the_index_for_arrow_consumers():
    pdf = pd.DataFrame({"fare": [7.0, None, 3.5], "n": [1, 2, 3]},
                       index=pd.Index(["Maun", "Tete", "Kariba"], name="city"))
    df = zb.DataFrame(pdf)
    t = pa.table(df)  # through __arrow_c_stream__
    assert t.schema.names == pa.Table.from_pandas(pdf).schema.names == ["fare", "n", "city"]
    assert_frame_like(t.to_pandas(), pdf, "pa.table(df).to_pandas()")
    assert pa.schema(df).metadata[b"pandas"] == t.schema.metadata[b"pandas"]
    # a RangeIndex adds no column, only metadata
    plain_df = zb.DataFrame({"a": [1, 2, 3]})[1:]
    t = pa.table(plain_df)
    assert t.schema.names == ["a"]
    assert t.to_pandas().index.equals(pd.RangeIndex(1, 3))
    polars = pytest.importorskip("polars")
    assert polars.DataFrame(df).columns == ["fare", "n", "city"]
    duckdb = pytest.importorskip("duckdb")
    rel = duckdb.sql("select city, n from df order by n")
    assert rel.fetchall() == [("Maun", 1), ("Tete", 2), ("Kariba", 3)]


def test_index_name_that_is_also_a_column():
    pdf = pd.DataFrame({"k": [1, 2]}, index=pd.Index([10, 20], name="k"))
    df = zb.DataFrame(pdf)
    got = df.to_arrow()
    assert got.schema.names == pa.Table.from_pandas(pdf).schema.names == ["k", "__index_level_0__"]
    assert_frame_like(got.to_pandas(), pdf, "name clash")
    assert_frame_like(zb.from_arrow(got), pdf, "name clash back")


def test_from_arrow_metadata_edge_cases():
    # a range entry that no longer matches the rows (a sliced table) is ignored
    t = pa.Table.from_pandas(pd.DataFrame({"a": [1, 2, 3]}, index=pd.RangeIndex(10, 13)))
    assert zb.from_arrow(t).index.to_list() == [10, 11, 12]
    assert zb.from_arrow(t.slice(1)).index.to_list() == [0, 1]
    # metadata naming a missing column is ignored; no metadata: a RangeIndex
    meta = {b"pandas": json.dumps({"index_columns": ["gone"], "columns": []}).encode()}
    t = pa.table({"a": [1, 2]}).replace_schema_metadata(meta)
    got = zb.from_arrow(t)
    assert got.columns.to_list() == ["a"] and got.index.to_list() == [0, 1]
    # index columns the metadata does not describe (pyarrow's to_pandas
    # refuses them): __index_level_i__ is unnamed, other fields name levels
    meta = {b"pandas": json.dumps({"index_columns": ["__index_level_0__", "k"],
                                   "columns": []}).encode()}
    t = pa.table({"a": [1, 2], "__index_level_0__": [5, 6], "k": ["x", "y"]})
    got = zb.from_arrow(t.replace_schema_metadata(meta))
    assert got.index.names == [None, "k"] and got.columns.to_list() == ["a"]
    assert got.index.to_list() == [(5, "x"), (6, "y")]
    # a frame of index columns only
    pdf = pd.DataFrame(index=pd.Index(["x", "y"], name="k"))
    got = zb.from_arrow(pa.Table.from_pandas(pdf))
    assert got.index.to_list() == ["x", "y"] and got.index.name == "k"


def test_arrow_c_stream_metadata_argument_is_checked():
    t = zb.DataFrame({"a": [1]})._table
    with pytest.raises(TypeError, match="bytes"):
        t.__arrow_c_stream__(None, metadata="text")
    with pytest.raises(InvalidValueError, match="metadata"):
        t.__arrow_c_stream__(None, metadata=b"\x01\x00\x00\x00")
    from zambezi import _arrow_index

    cap = t.__arrow_c_stream__(None, metadata=_arrow_index.encode_metadata({b"k": b"v"}))
    got = pa.RecordBatchReader._import_from_c_capsule(cap).read_all()
    assert got.schema.metadata == {b"k": b"v"}
