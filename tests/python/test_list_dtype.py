"""The list dtype (list<T>, Arrow large_list) against independent oracles:
pandas' object columns of Python lists (construction, to_pandas, repr,
str.split / rsplit / findall / extractall, explode, str.len / get / join,
groupby agg(list)), pyarrow (Arrow round trips, the .list accessor as
pyarrow.compute's list functions), polars and duckdb; on random data with
null lists, null elements, empty lists and non-ASCII strings; row
selections (take, filter, slice, concat) of list columns; pickle; and the
clear errors of operations that do not take lists."""

import pickle

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import zambezi as zb
from zambezi.errors import DTypeError, UnsupportedError
from pandas_compare import assert_frame_like

WORDS = ["a", "b", "é", "ß", "中", "😀", "", "xy", "Σς"]


def _missing(v):
    return v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v))


def norm(v):
    """A value with every missing value (None, NaN, NA) as None, lists and
    tuples element by element (pandas' list results hold NaN or None)."""
    if isinstance(v, (list, tuple, np.ndarray)):
        return [norm(e) for e in v]
    if _missing(v):
        return None
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    return v


def values(s):
    """A Series' values (zambezi or pandas) normalised by norm."""
    return [norm(v) for v in s.to_list()] if isinstance(s, zb.Series) else \
        [norm(v) for v in s.tolist()]


def rand_lists(n, seed, kind="int"):
    """n random rows: a null list (10%), an empty list, or up to 5
    elements, some null."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):  # test data only
        r = rng.random()
        if r < 0.1:
            out.append(None)
            continue
        k = int(rng.integers(0, 6))
        row = []
        for _ in range(k):
            if rng.random() < 0.1:
                row.append(None)
            elif kind == "int":
                row.append(int(rng.integers(-50, 50)))
            elif kind == "float":
                row.append(float(rng.normal()))
            else:
                row.append("".join(rng.choice(WORDS, int(rng.integers(0, 4)))))
        out.append(row)
    return out


def rand_strings(n, seed, seps=" ,", null_frac=0.15):
    rng = np.random.default_rng(seed)
    alphabet = list("ab") + ["é", "中", "😀"] + list(seps) * 3
    out = []
    for _ in range(n):
        if rng.random() < null_frac:
            out.append(None)
        else:
            out.append("".join(rng.choice(alphabet, int(rng.integers(0, 9)))))
    return out


# ---- the type, construction and conversion -----------------------------------

@pytest.mark.parametrize("kind,dtype", [("int", "list<int64>"), ("float", "list<float64>"),
                                        ("str", "list<string>")])
def test_construction_and_to_pandas_match_pandas(kind, dtype):
    data = rand_lists(300, 1, kind)
    s = zb.Series(data)
    assert s.dtype == dtype
    p = pd.Series(data)
    got = s.to_pandas()
    assert got.dtype == object and p.dtype == object
    assert values(got) == values(p)
    # a list per valid row; a missing row is NaN, as pandas' str.split gives it
    assert all(isinstance(v, list) for v, d in zip(got, data) if d is not None)
    assert all(v is np.nan for v, d in zip(got, data) if d is None)
    # from a pandas object column of lists, and a numpy object array
    assert values(zb.Series(p)) == values(p)
    assert values(zb.Series(p.to_numpy())) == values(p)
    assert s.null_count == sum(v is None for v in data)


def test_frame_round_trips_and_row_selection():
    data = rand_lists(200, 2, "str")
    ints = list(range(200))
    df = zb.DataFrame({"k": ints, "l": data})
    pdf = pd.DataFrame({"k": ints, "l": data})
    assert df.dtypes["l"] == "list<string>"
    keep = [i % 3 != 0 for i in ints]
    got = df[zb.Series(keep)].to_pandas()
    want = pdf[keep]
    assert values(got["l"]) == values(want["l"])
    assert got.index.tolist() == want.index.tolist()
    # take (sort by another column), slice, head, concat
    order = df.sort_values("k", ascending=False).to_pandas()
    assert values(order["l"]) == values(pdf.sort_values("k", ascending=False)["l"])
    assert values(df.iloc[50:60].to_pandas()["l"]) == values(pdf.iloc[50:60]["l"])
    both = zb.concat([df.iloc[150:], df.iloc[:20]]).to_pandas()
    assert values(both["l"]) == values(pd.concat([pdf.iloc[150:], pdf.iloc[:20]])["l"])


def test_arrow_polars_duckdb_round_trips():
    data = rand_lists(100, 3, "int")
    s = zb.Series(data, name="l")
    arr = pa.array(s)
    assert arr.type == pa.large_list(pa.int64())
    assert arr.to_pylist() == data
    for t in (pa.list_(pa.string()), pa.large_list(pa.string())):
        src = pa.array(rand_lists(50, 4, "str"), type=t)
        back = zb.Series(src)
        assert back.dtype == "list<string>"
        assert back.to_list() == src.to_pylist()
        # a sliced Arrow array (offset into offsets and child)
        assert zb.Series(src.slice(7, 20)).to_list() == src.slice(7, 20).to_pylist()
    pl = pytest.importorskip("polars")
    df = zb.DataFrame({"k": list(range(100)), "l": data})
    pdf = pl.from_arrow(pa.table(df))
    assert pdf["l"].to_list() == data
    assert zb.DataFrame(pdf)["l"].to_list() == data
    duckdb = pytest.importorskip("duckdb")
    rows = duckdb.sql("select l from df order by k").fetchall()
    assert [r[0] for r in rows] == data


def test_lists_mixing_lists_and_values_are_refused_clearly():
    with pytest.raises(DTypeError, match="index 0 and 1 mix lists"):
        zb.Series([[1, 2], [[3]]])
    with pytest.raises(DTypeError, match="not a list"):
        zb.Series([[1], "ab"])


def test_repr_as_pandas_prints_lists():
    data = [["x", "é"], None, [], [1.5, None]]
    # a missing row shows NaN, as in pandas' own lists (str.split of a missing row)
    p = repr(pd.Series([["x", "é"], np.nan, []]))
    assert repr(pd.Series(["x é", None]).str.split(" ")).splitlines()[1] == "1       NaN"
    z = repr(zb.Series(data[:3]))
    # the rows as pandas prints them; the dtype line is zambezi's dtype
    assert z.splitlines()[:3] == p.splitlines()[:3]
    assert z.splitlines()[-1] == "dtype: list<string>"
    assert repr(zb.Series([[1.5, None]])).splitlines()[0] == \
        repr(pd.Series([[1.5, None]])).splitlines()[0]


def test_pickle_and_parquet_round_trip(tmp_path):
    data = rand_lists(80, 5, "str")
    df = zb.DataFrame({"k": list(range(80)), "l": data})
    back = pickle.loads(pickle.dumps(df.iloc[10:70]))
    assert back["l"].to_list() == data[10:70]
    df.iloc[10:70].to_parquet(tmp_path / "x.parquet")  # lists are written as Parquet LISTs
    assert pq.read_table(tmp_path / "x.parquet").column("l").to_pylist() == data[10:70]


def test_other_operations_refuse_lists_clearly():
    s = zb.Series([[1, 2], None, []])
    for call, what in [(lambda: s.sum(), "list"), (lambda: s.sort_values(), "sort"),
                       (lambda: s.unique(), "unique"), (lambda: s.astype("int64"), "cast"),
                       (lambda: s.value_counts(), "value_counts"), (lambda: s < s, "list")]:
        with pytest.raises((DTypeError, UnsupportedError, TypeError), match=what):
            call()
    assert s.isna().to_list() == [False, True, False]
    with pytest.raises(UnsupportedError, match="str.upper is not supported for list"):
        s.str.upper()
    with pytest.raises(AttributeError):
        zb.Series([1]).list


# ---- producers --------------------------------------------------------------------

@pytest.mark.parametrize("pat,n,regex", [(None, -1, None), (" ", -1, None), (",", 2, None),
                                         (r"[, ]+", -1, True), (r"(,)", 1, True)])
def test_split_expand_false_matches_pandas(pat, n, regex):
    data = rand_strings(400, 6)
    s, p = zb.Series(data), pd.Series(data, dtype=object)
    kw = {} if regex is None else {"regex": regex}
    got = s.str.split(pat, n=n, **kw)
    assert got.dtype == "list<string>"
    assert values(got) == values(p.str.split(pat, n=n, **kw))
    assert values(s.str.split(pat, n=n, expand=False, **kw).to_pandas()) == \
        values(p.str.split(pat, n=n, expand=False, **kw))
    if regex is None and pat is not None:
        assert values(s.str.rsplit(pat, n=n)) == values(p.str.rsplit(pat, n=n))
    # a categorical splits its categories and takes the lists through its codes
    c = zb.Series(pd.Series(data, dtype="category"))
    assert values(c.str.split(pat, n=n, **kw)) == values(p.str.split(pat, n=n, **kw))


@pytest.mark.parametrize("pat", [r"\d", r"[a-zé]+", r"(a)b?", r"x*", "中"])
def test_findall_matches_pandas(pat):
    rng = np.random.default_rng(7)
    alphabet = list("abx12") + ["é", "中", "😀", " "]
    data = [None if rng.random() < 0.1 else "".join(rng.choice(alphabet, int(rng.integers(0, 8))))
            for _ in range(300)]
    got = zb.Series(data).str.findall(pat)
    assert values(got) == values(pd.Series(data, dtype=object).str.findall(pat))


@pytest.mark.parametrize("pat", [r"(?P<letter>[aé中])(?P<digit>\d)?", r"([aé中])(\d)?",
                                 r"b(\d)"])
def test_extractall_matches_pandas(pat):
    data = rand_strings(200, 8, seps="12")
    s = zb.Series(data, index=list(range(1000, 1200)))
    p = pd.Series(data, index=list(range(1000, 1200)), dtype=object)
    got, want = s.str.extractall(pat), p.str.extractall(pat)
    g = got.to_pandas()
    assert g.index.names == want.index.names
    assert g.index.tolist() == want.index.tolist()
    assert list(g.columns) == list(want.columns)
    for c in want.columns:
        assert values(g[c]) == values(want[c])


@pytest.mark.parametrize("sort,dropna", [(True, True), (False, True), (True, False)])
def test_groupby_agg_list_matches_pandas(sort, dropna):
    rng = np.random.default_rng(9)
    n = 500
    keys = [None if rng.random() < 0.05 else str(rng.choice(["p", "q", "é", "z"]))
            for _ in range(n)]
    v = [None if rng.random() < 0.1 else float(x) for x in rng.integers(0, 9, n)]
    w = rand_strings(n, 10)
    d = {"k": keys, "v": v, "w": w}
    z, p = zb.DataFrame(d), pd.DataFrame(d)
    got = z.groupby("k", sort=sort, dropna=dropna)["v"].agg(list).to_pandas()
    want = p.groupby("k", sort=sort, dropna=dropna)["v"].agg(list)
    assert values(got) == values(want)
    assert values(pd.Series(got.index)) == values(pd.Series(want.index))
    got = z.groupby("k", sort=sort, dropna=dropna).agg({"w": list, "v": "sum"}).to_pandas()
    want = p.groupby("k", sort=sort, dropna=dropna).agg({"w": list, "v": "sum"})
    assert values(got["w"]) == values(want["w"])
    assert values(got["v"]) == values(want["v"])


# ---- consumers ----------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["int", "str"])
def test_explode_matches_pandas(kind):
    data = rand_lists(300, 11, kind)
    idx = [f"r{i}" for i in range(300)]
    s, p = zb.Series(data, index=idx, name="x"), pd.Series(data, index=idx, name="x")
    got, want = s.explode().to_pandas(), p.explode()
    assert values(got) == values(want)
    assert got.index.tolist() == want.index.tolist()
    assert got.name == "x"
    got = s.explode(ignore_index=True).to_pandas()
    assert got.index.tolist() == list(range(len(want)))
    df = zb.DataFrame({"k": list(range(300)), "l": data}, index=idx)
    pdf = pd.DataFrame({"k": list(range(300)), "l": data}, index=idx)
    got, want = df.explode("l").to_pandas(), pdf.explode("l")
    assert values(got["l"]) == values(want["l"])
    assert got["k"].tolist() == want["k"].tolist()
    assert got.index.tolist() == want.index.tolist()
    got = df.explode(["l"], ignore_index=True).to_pandas()
    assert got.index.tolist() == list(range(len(want)))


def test_explode_of_scalars_keeps_or_relabels_rows():
    # not lists: the values as they are; ignore_index still gives 0..n-1
    p = pd.Series([1, 2, 3], index=["a", "b", "c"])
    s = zb.Series([1, 2, 3], index=["a", "b", "c"])
    for ignore in (False, True):
        got, want = s.explode(ignore_index=ignore).to_pandas(), p.explode(ignore_index=ignore)
        assert got.tolist() == want.tolist()
        assert got.index.tolist() == want.index.tolist()
        d = {"k": [1, 2, 3], "v": ["a", "b", "c"]}
        got = zb.DataFrame(d, index=["x", "y", "z"]).explode("k", ignore_index=ignore)
        want = pd.DataFrame(d, index=["x", "y", "z"]).explode("k", ignore_index=ignore)
        assert got.to_pandas().to_dict("list") == want.to_dict("list")
        assert got.to_pandas().index.tolist() == want.index.tolist()


def test_explode_several_columns_and_errors():
    d = {"a": [[1, 2], [], None], "b": [["x", "y"], [], ["z"]], "c": [1, 2, 3]}
    got = zb.DataFrame(d).explode(["a", "b"]).to_pandas()
    want = pd.DataFrame({"a": [[1, 2], [], None], "b": [["x", "y"], [], None], "c": [1, 2, 3]}
                        ).explode(["a", "b"])
    assert values(got["a"]) == values(want["a"])
    assert values(got["c"]) == values(want["c"])
    with pytest.raises(ValueError, match="matching element counts"):
        zb.DataFrame({"a": [[1, 2]], "b": [["x"]]}).explode(["a", "b"])
    with pytest.raises(KeyError):
        zb.DataFrame(d).explode("nope")


@pytest.mark.parametrize("kind", ["int", "str"])
def test_str_len_get_join_match_pandas(kind):
    data = rand_lists(300, 12, kind)
    s, p = zb.Series(data), pd.Series(data)
    assert values(s.str.len()) == values(p.str.len())
    for i in (0, 1, 4, -1, -3, 10):
        assert values(s.str.get(i)) == values(p.str.get(i)), i
        assert values(s.str[i]) == values(p.str[i]), i
    if kind == "str":
        # pandas joins lists of str (NaN where a list holds a missing value)
        assert values(s.str.join("-é-")) == values(p.str.join("-é-"))
        assert values(s.str.join("")) == values(p.str.join(""))
        assert values(s.str.join(",")) == values(p.str.join(","))
    else:
        with pytest.raises(UnsupportedError, match="only lists of strings"):
            s.str.join("-")


def test_list_accessor_matches_pyarrow():
    data = rand_lists(300, 13, "str")
    s = zb.Series(data)
    arr = pa.array(data, type=pa.large_list(pa.string()))
    assert s.list.len().to_list() == pc.list_value_length(arr).to_pylist()
    for i in (0, 2, -1):
        want = [None if r is None or not (-len(r) <= i < len(r)) else r[i] for r in data]
        assert s.list[i].to_list() == want
    if hasattr(pc, "list_element"):
        assert s.list[1].to_list() == [None if r is None or len(r) < 2 else r[1] for r in data]
    assert s.list.flatten().to_list() == pc.list_flatten(arr).to_pylist()
    # pandas' ArrowDtype .list accessor, where pandas has it
    ps = pd.Series(arr, dtype=pd.ArrowDtype(pa.large_list(pa.string())))
    assert values(s.list.len()) == values(ps.list.len())
    assert values(s.list.flatten()) == values(ps.list.flatten())
    with pytest.raises(UnsupportedError, match="slices"):
        s.list[1:2]


def test_results_frame_shaped_like_pandas():
    data = rand_strings(60, 14)
    z = zb.DataFrame({"s": data}).assign(n=lambda d: d["s"].str.split().str.len())
    p = pd.DataFrame({"s": data}, dtype=object).assign(n=lambda d: d["s"].str.split().str.len())
    assert p["n"].dtype == np.float64  # pandas: float64 with NaN for the missing rows
    assert_frame_like(z[["n"]], p[["n"]], "split().str.len()")


@pytest.mark.gpu
def test_list_columns_on_the_gpu():
    # lists move to the device with their child; every list operation runs
    # on the CPU over host copies (no GPU kernel yet) and comes back there
    data = rand_lists(1000, 15, "str")
    df = zb.DataFrame({"k": list(range(1000)), "l": data}).to("cuda")
    assert df["l"].device.startswith("cuda")
    assert df["l"].to_list() == data
    picked = df[df["k"] % 3 == 0]
    assert picked["l"].to_list() == data[::3]
    assert df.sort_values("k", ascending=False)["l"].to_list() == data[::-1]
    assert df["l"].str.len().to_list() == [None if r is None else len(r) for r in data]
    want = pd.Series(data).explode()
    assert values(df["l"].explode()) == values(want)
    assert pa.array(df["l"].to("cpu")).to_pylist() == data
