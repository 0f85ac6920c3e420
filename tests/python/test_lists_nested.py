"""Lists of lists (list<list<T>>), list dtype strings (``dtype="list<T>"``,
zb.ListDtype, pd.ArrowDtype(pa.list_(T))) and list equality against
independent oracles: pandas' object columns of Python lists (values,
explode, repr, ==, isna, the TypeError of unique) and pyarrow (the Arrow
round trip, list_flatten, typed arrays from Python lists and casts)."""

import pickle

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import zambezi as zb
from zambezi.errors import DTypeError

NESTED = [[[1, 2], [3]], None, [], [[4], None, []], [[5, 6, 7]], [[]]]
LL = pa.large_list(pa.large_list(pa.int64()))


def _missing(v):
    return v is None or (isinstance(v, float) and np.isnan(v))


def norm(v):
    """Lists element by element, every missing value as None."""
    if isinstance(v, (list, tuple, np.ndarray)):
        return [norm(e) for e in v]
    return None if _missing(v) else v


def test_nested_lists_build_as_pyarrow_types_them():
    s = zb.Series(NESTED)
    assert s.dtype == "list<list<int64>>"
    assert s.to_list() == pa.array(NESTED, LL).to_pylist()
    assert norm(s.to_pandas().to_list()) == norm(pd.Series(NESTED).to_list())
    # three levels, strings, and 2-D numpy arrays as rows
    deep = [[[["a"], []], None], [], None]
    assert zb.Series(deep).dtype == "list<list<list<string>>>"
    assert zb.Series(deep).to_list() == pa.array(deep).to_pylist()
    rows = [np.array([[1, 2], [3, 4]]), None]
    assert zb.Series(rows).to_list() == pa.array([[[1, 2], [3, 4]], None]).to_pylist()


def test_nested_row_selections_as_pandas():
    s, p = zb.Series(NESTED), pd.Series(NESTED)
    idx = [5, 0, 3, 3, 1]
    assert s.take(idx).to_list() == norm(p.take(idx).to_list())
    mask = [True, False, True, True, False, True]
    assert s[mask].to_list() == norm(p[mask].to_list())
    assert s.iloc[1:4].to_list() == norm(p.iloc[1:4].to_list())
    both = zb.concat([s.iloc[2:], s.iloc[:3]], ignore_index=True)
    assert both.to_list() == norm(pd.concat([p.iloc[2:], p.iloc[:3]]).to_list())
    df = zb.DataFrame({"k": range(6), "v": NESTED})
    got = df[df["k"] > 2]
    assert got["v"].to_list() == norm(pd.DataFrame({"k": range(6), "v": NESTED})
                                      .query("k > 2")["v"].to_list())


def test_nested_arrow_round_trip_and_pickle():
    arr = pa.array(NESTED, LL)
    small = pa.array(NESTED, pa.list_(pa.list_(pa.int64())))  # 32-bit offsets come in too
    for src in (arr, small, arr.slice(1, 4)):
        df = zb.from_arrow(pa.table({"x": src}))
        assert df["x"].dtype == "list<list<int64>>"
        back = pa.table(df).column("x").combine_chunks()
        assert back.type == LL
        assert back.equals(src.cast(LL))
    s = zb.Series(NESTED)
    assert pickle.loads(pickle.dumps(s)).to_list() == arr.to_pylist()
    assert pickle.loads(pickle.dumps(s.iloc[2:])).to_list() == arr.slice(2).to_pylist()


def test_nested_list_depth_is_bounded():
    v = [1]
    for _ in range(40):
        v = [v]
    with pytest.raises(zb.ZambeziError, match="deeper than 32"):
        zb.Series([v])
    with pytest.raises(zb.ZambeziError, match="deeper than 32"):
        zb.from_arrow(pa.table({"x": pa.array([v])}))


def test_nested_explode_flatten_repr_as_pandas():
    s, p = zb.Series(NESTED, name="v"), pd.Series(NESTED, name="v")
    e, pe = s.explode(), p.explode()
    assert e.dtype == "list<int64>"
    assert e.to_list() == norm(pe.to_list())
    assert e.index.to_list() == pe.index.to_list()
    f = s.list.flatten()
    assert f.to_list() == pc.list_flatten(pa.array(NESTED, LL)).to_pylist()
    # a missing row shows NaN, as pandas shows its own producers' missing lists
    shown = pd.Series([np.nan if v is None else v for v in NESTED], name="v", dtype=object)
    assert repr(s) == repr(shown).replace("dtype: object", "dtype: list<list<int64>>")
    words = [[["a", "b"], []], None]
    assert repr(zb.Series(words)) == repr(pd.Series(words[:1] + [np.nan])).replace(
        "dtype: object", "dtype: list<list<string>>")
    df = zb.DataFrame({"k": [1, 2, 3], "v": [[[1], [2, 3]], [], None]})
    pdf = pd.DataFrame({"k": [1, 2, 3], "v": [[[1], [2, 3]], [], None]})
    got, want = df.explode("v"), pdf.explode("v")
    assert got["v"].to_list() == norm(want["v"].to_list())
    assert got["k"].to_list() == want["k"].to_list()


@pytest.mark.parametrize("dtype,arrow", [
    ("list<int64>", pa.large_list(pa.int64())),
    ("list<float32>", pa.large_list(pa.float32())),
    ("list<str>", pa.large_list(pa.large_string())),
    (zb.ListDtype("int8"), pa.large_list(pa.int8())),
    (pd.ArrowDtype(pa.list_(pa.float64())), pa.large_list(pa.float64())),
    (pd.ArrowDtype(pa.list_(pa.float32())), pa.large_list(pa.float32())),
    ("list<list<int16>>", pa.large_list(pa.large_list(pa.int16()))),
])
def test_list_dtype_strings_type_as_pyarrow(dtype, arrow):
    nested = pa.types.is_large_list(arrow.value_type)
    data = [[[1, 2], [3]], None, []] if nested else [[1, 2], None, [], [3, None]]
    if pa.types.is_large_string(arrow.value_type):
        data = [["1", "2"], None, [], ["3", None]]
    want = pa.array(data, arrow)
    for src in (data, np.array(data + [None], dtype=object)[:-1]):
        s = zb.Series(src, dtype=dtype)
        got = pa.array(s)
        assert got.type == arrow
        assert got.to_pylist() == want.to_pylist()
    df = zb.DataFrame({"a": data}, dtype=dtype)
    assert pa.table(df).column("a").type == arrow


def test_list_astype_casts_elements_as_pyarrow():
    data = [[1, 2], None, [], [3, None]]
    s = zb.Series(data)
    for dtype, arrow in (("list<float64>", pa.float64()), ("list<string>", pa.large_string()),
                         (zb.ListDtype("int32"), pa.int32())):
        got = pa.array(s.astype(dtype))
        want = pa.array(data, pa.large_list(pa.int64())).cast(pa.large_list(arrow))
        assert got.type == want.type and got.to_pylist() == want.to_pylist()
    df = zb.DataFrame({"a": data, "b": [1, 2, 3, 4]}).astype({"a": "list<float32>"})
    assert df.dtypes.to_dict() == {"a": "list<float32>", "b": "int64"}
    assert zb.ListDtype("float") == "list<float64>" and str(zb.ListDtype(str)) == "list<string>"


def test_list_dtype_errors_name_the_row():
    with pytest.raises(DTypeError, match="index 2 is a int"):
        zb.Series([[1], None, 5], dtype="list<int64>")
    with pytest.raises(DTypeError, match="index 1 is a str"):
        zb.Series(np.array([[1], "ab"], dtype=object), dtype=zb.ListDtype("int64"))
    with pytest.raises(DTypeError, match="only a list column"):
        zb.Series([1, 2]).astype("list<int64>")
    with pytest.raises(DTypeError, match="unknown dtype"):
        zb.Series([[1]], dtype="list<>")
    with pytest.raises(zb.ZambeziError, match="row 0"):
        zb.Series([["x", "1"]]).astype("list<int64>")


def test_list_equality_and_isna_as_pandas():
    a = [[1, 2], None, [], [1, None], [3], None, [1.5], [[1]], [[1], [2]]]
    b = [[1, 2], None, [], [1, None], [3, 4], [1], [1.5], [[1]], [[1], [3]]]
    for x, y in ((a[:7], b[:7]), (a[7:], b[7:])):
        zx, zy, px, py = zb.Series(x), zb.Series(y), pd.Series(x), pd.Series(y)
        assert (zx == zy).to_list() == (px == py).to_list()
        assert (zx != zy).to_list() == (px != py).to_list()
        assert (zx == zy).dtype == "bool"
        assert zx.isna().to_list() == px.isna().to_list()
        assert zx.notna().to_list() == px.notna().to_list()
    words = [["a", None], ["b"], None]
    other = [["a", None], ["c"], None]
    assert (zb.Series(words) == zb.Series(other)).to_list() == \
        (pd.Series(words) == pd.Series(other)).to_list()
    with pytest.raises(TypeError):
        zb.Series([[1]]) < zb.Series([[2]])


def test_unique_of_lists_raises_typeerror_as_pandas():
    data = [[1, 2], None, [1, 2]]
    for method in ("unique", "nunique"):
        with pytest.raises(TypeError):
            getattr(pd.Series(data), method)()
        with pytest.raises(TypeError, match=f"{method} is not supported for list"):
            getattr(zb.Series(data), method)()


def test_hashing_lists_refused_as_pandas_arrow_lists_refuse_it():
    # pandas' list ArrowDtype has no value_counts / unique / duplicated /
    # group-by kernel for lists (ArrowNotImplementedError); zambezi refuses
    # them too, naming the operation and the list's dtype
    data = [[1, 2], [1, 2], None, [3]]
    arrow = pd.Series(data, dtype=pd.ArrowDtype(pa.list_(pa.int64())))
    z = zb.Series(data)
    zz = zb.Series([[["a"]], None])
    df = zb.DataFrame({"k": data, "v": [1, 2, 3, 4]})
    for name, pcall, zcall in [
            ("value_counts", arrow.value_counts, z.value_counts),
            ("unique", arrow.unique, z.unique),
            ("duplicated", arrow.duplicated, z.duplicated),
            ("duplicated", arrow.drop_duplicates, z.drop_duplicates),
            ("groupby", lambda: pd.DataFrame({"k": arrow, "v": range(4)}).groupby("k").sum(),
             lambda: df.groupby("k").sum())]:
        with pytest.raises(NotImplementedError):
            pcall()
        with pytest.raises(DTypeError, match=rf"{name} is not supported for list columns "
                                             rf"\(dtype list<int64>\)"):
            zcall()
    with pytest.raises(DTypeError, match=r"\(dtype list<list<string>>\)"):
        zz.value_counts()


@pytest.mark.parametrize("data,value", [
    ([[1, 2], [3, None], None, [], [2, 2]], 2),
    ([[1, 2], [3, None], None, [], [2, 2]], 3),
    ([["a", "é"], ["é"], None, [""]], "é"),
    ([["a", "é"], ["é"], None, [""]], ""),
    ([[1.5], [2.0], [float("nan")]], 2),
    ([[1], [2]], "a"),
])
def test_list_contains_as_python_in(data, value):
    want = [None if v is None else value in v for v in pd.Series(data, dtype=object)]
    assert zb.Series(data).list.contains(value).to_list() == want


def test_frame_equals_with_list_columns_as_pandas():
    x = {"a": [[1, 2], None, [[3]]][:2], "b": [1, 2]}
    for other in ({"a": [[1, 2], None], "b": [1, 2]}, {"a": [[1, 3], None], "b": [1, 2]},
                  {"a": [[1, 2], []], "b": [1, 2]}, {"a": [[1, None], None], "b": [1, 2]}):
        want = pd.DataFrame(x).equals(pd.DataFrame(other))
        assert zb.DataFrame(x).equals(zb.DataFrame(other)) == want
    n = {"a": [[[1], []], None]}
    assert zb.DataFrame(n).equals(zb.DataFrame(n)) == pd.DataFrame(n).equals(pd.DataFrame(n))
