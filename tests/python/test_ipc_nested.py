"""List and LargeList columns in Arrow IPC files and streams (issue #24):
read into the list dtype (List's int32 offsets widened), written as
LargeList, checked against pyarrow's to_pylist of the column; corrupt
offsets are a ParseError naming the file and column."""

import io

import numpy as np
import pandas as pd
import pytest

pa = pytest.importorskip("pyarrow")
pf = pytest.importorskip("pyarrow.feather")
ipc = pytest.importorskip("pyarrow.ipc")

import zambezi as zb  # noqa: E402
from zambezi.errors import ParseError, UnsupportedError  # noqa: E402


def _lists(rng, n, make):
    out = []
    for _ in range(n):
        u = rng.random()
        if u < 0.15:
            out.append(None)
        elif u < 0.3:
            out.append([])
        else:
            out.append([None if rng.random() < 0.2 else make(rng)
                        for _ in range(int(rng.integers(1, 6)))])
    return out


def _table(n, large=False, seed=0):
    rng = np.random.default_rng(seed)
    lt = pa.large_list if large else pa.list_
    return pa.table({
        "k": pa.array(np.arange(n)),
        "i": pa.array(_lists(rng, n, lambda r: int(r.integers(-9, 9))), lt(pa.int32())),
        "f": pa.array(_lists(rng, n, lambda r: float(r.standard_normal())), lt(pa.float64())),
        "b": pa.array(_lists(rng, n, lambda r: bool(r.random() < .5)), lt(pa.bool_())),
        "s": pa.array(_lists(rng, n, lambda r: "x" * int(r.integers(0, 4))), lt(pa.string())),
        "ls": pa.array(_lists(rng, n, lambda r: "é" * int(r.integers(0, 2))),
                       lt(pa.large_string())),
        "t": pa.array(_lists(rng, n, lambda r: int(r.integers(0, 10**15))),
                      lt(pa.timestamp("us", "UTC"))),
    })


def _check(df, table):
    got = pa.table(df)
    assert got.column_names == table.column_names
    for name in table.column_names:
        assert got.column(name).to_pylist() == table.column(name).to_pylist(), name


@pytest.mark.parametrize("large", [False, True])
@pytest.mark.parametrize("compression", ["uncompressed", "lz4", "zstd"])
def test_list_and_large_list_files(tmp_path, large, compression):
    table = _table(300, large, seed=int(large))
    path = str(tmp_path / "l.feather")
    pf.write_feather(table, path, compression=compression, chunksize=70)  # several batches
    df = zb.read_feather(path)
    assert df["i"].dtype == "list<int32>" and df["s"].dtype == "list<string>"
    _check(df, table)
    _check(zb.read_feather(path, columns=["s", "k"]), table.select(["s", "k"]))


def test_stream_with_sliced_batches():
    table = _table(120, seed=2)
    sink = io.BytesIO()
    with ipc.new_stream(sink, table.schema) as w:
        w.write_batch(table.slice(3, 50).combine_chunks().to_batches()[0])  # offsets not from 0
        w.write_table(table.slice(53))
    got = zb.read_ipc(sink.getvalue())
    _check(got, table.slice(3))


@pytest.mark.parametrize("compression", [None, "zstd"])
def test_write_lists_pyarrow_reads_back(compression):
    table = _table(200, seed=4)
    df = zb.read_ipc(_feather_bytes(table)).iloc[5:180]  # a slice: offsets rebased
    data = df.to_ipc(compression=compression) if compression else df.to_ipc()
    back = pf.read_table(io.BytesIO(data))
    assert back.schema.field("i").type == pa.large_list(pa.int32())
    for name in table.column_names:
        assert back.column(name).to_pylist() == table.column(name).to_pylist()[5:180], name
    _check(zb.read_ipc(data), table.slice(5, 175))


def test_pandas_metadata_index_with_lists(tmp_path):
    pdf = pd.DataFrame({"l": [[1, 2], None, [], [3]], "v": [1.0, 2.0, 3.0, 4.0]},
                       index=pd.Index(["a", "b", "c", "d"], name="key"))
    path = str(tmp_path / "p.feather")
    pf.write_feather(pa.Table.from_pandas(pdf), path)
    got = zb.read_feather(path)
    assert list(got.index.to_pandas()) == ["a", "b", "c", "d"]
    assert got.index.name == "key"
    assert got["l"].to_list() == [[1, 2], None, [], [3]]


def test_lists_of_structs_name_the_column(tmp_path):
    table = pa.table({"ok": [1], "ls": pa.array([[{"a": 1}]]),
                      "lls": pa.array([[[{"a": 1}]]]), "ll": pa.array([[[1]]])})
    path = str(tmp_path / "n.feather")
    pf.write_feather(table, path, compression="uncompressed")
    with pytest.raises(UnsupportedError, match="'ls'.*a list of the Arrow type struct"):
        zb.read_feather(path, columns=["ok", "ls"])
    with pytest.raises(UnsupportedError, match="'lls'.*a list of the Arrow type struct"):
        zb.read_feather(path, columns=["lls"])
    assert zb.read_feather(path, columns=["ok", "ll"]).to_dict("list") == {
        "ok": [1], "ll": [[[1]]]}


def _feather_bytes(table, **kw):
    b = io.BytesIO()
    pf.write_feather(table, b, compression="uncompressed", **kw)
    return b.getvalue()


def test_corrupt_list_offsets_name_file_and_column(tmp_path):
    offs = np.array([0, 2, 3, 5], np.int32)
    table = pa.table({"q": pa.ListArray.from_arrays(pa.array(offs), pa.array([1, 2, 3, 4, 5]))})
    data = bytearray(_feather_bytes(table))
    at = bytes(data).find(offs.tobytes())
    assert at > 0
    for bad in ([0, 4, 3, 5], [0, 2, 3, 99], [-1, 2, 3, 5]):
        broken = bytearray(data)
        broken[at:at + 16] = np.array(bad, np.int32).tobytes()
        path = str(tmp_path / "bad.feather")
        with open(path, "wb") as f:
            f.write(broken)
        with pytest.raises(ParseError, match="bad.feather.*column 'q'"):
            zb.read_feather(path)


def test_pandas_reads_written_lists_with_the_index():
    df = zb.DataFrame({"l": [[1, 2], None, [], [3]], "v": [1.0, 2.0, 3.0, 4.0]},
                      index=pd.Index(["a", "b", "c", "d"], name="key"))
    got = pd.read_feather(io.BytesIO(df.to_ipc(index=True)))
    assert list(got.index) == ["a", "b", "c", "d"] and got.index.name == "key"
    assert [None if v is None else list(v) for v in got["l"]] == [[1, 2], None, [], [3]]


def test_empty_list_columns_file_and_stream():
    t = pa.table({"l": pa.array([], pa.list_(pa.int64())),
                  "s": pa.array([], pa.large_list(pa.string()))})
    sink = io.BytesIO()
    with ipc.new_stream(sink, t.schema):
        pass  # no batches
    for data in (_feather_bytes(t), sink.getvalue()):
        got = zb.read_ipc(data)
        assert got.dtypes.to_dict() == {"l": "list<int64>", "s": "list<string>"} and len(got) == 0
    back = pf.read_table(io.BytesIO(zb.read_ipc(_feather_bytes(t)).to_ipc()))
    assert back.schema.field("s").type == pa.large_list(pa.large_string()) and back.num_rows == 0


def _nested(rng, depth, make):
    """A random value of `depth` levels of lists (None and [] among them)."""
    u = rng.random()
    if u < 0.1:
        return None
    if depth == 0:
        return make(rng)
    if u < 0.2:
        return []
    return [_nested(rng, depth - 1, make) for _ in range(int(rng.integers(1, 4)))]


@pytest.mark.parametrize("compression", [None, "zstd"])
def test_write_lists_of_lists_pyarrow_reads_back(tmp_path, compression):
    rng = np.random.default_rng(7)
    n = 300
    ll = pa.large_list
    table = pa.table({
        "k": pa.array(np.arange(n)),
        "ll": pa.array([_nested(rng, 2, lambda r: int(r.integers(-9, 9))) for _ in range(n)],
                       ll(ll(pa.int64()))),
        "lls": pa.array([_nested(rng, 2, lambda r: "é" * int(r.integers(0, 3)))
                         for _ in range(n)], ll(ll(pa.large_string()))),
        "lll": pa.array([_nested(rng, 3, lambda r: float(r.standard_normal()))
                         for _ in range(n)], ll(ll(ll(pa.float64())))),
        "llb": pa.array([_nested(rng, 2, lambda r: bool(r.random() < .5)) for _ in range(n)],
                        ll(ll(pa.bool_()))),
    })
    df = zb.DataFrame(table)
    assert df["lll"].dtype == "list<list<list<float64>>>"
    part = df.iloc[17:260]  # a slice: offsets rebased at every level
    data = part.to_ipc(compression=compression) if compression else part.to_ipc()
    back = pf.read_table(io.BytesIO(data))
    assert back.schema.field("lll").type == ll(ll(ll(pa.float64())))
    for name in table.column_names:
        assert back.column(name).to_pylist() == table.column(name).to_pylist()[17:260], name
    # a Feather file that pyarrow and pandas read
    path = str(tmp_path / "ll.feather")
    df.to_feather(path)
    for name in table.column_names:
        assert pf.read_table(path).column(name).to_pylist() == table.column(name).to_pylist()
    got = pd.read_feather(path)
    assert list(got.columns) == table.column_names and len(got) == n
    assert [None if v is None else [None if x is None else list(x) for x in v]
            for v in got["lls"]] == table.column("lls").to_pylist()
    # and zambezi reads its own files back
    _check(zb.read_ipc(data), table.slice(17, 243))
    _check(zb.read_feather(path), table)
