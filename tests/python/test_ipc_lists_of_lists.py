"""Lists of lists in Arrow IPC files and streams (issue #24): List and
LargeList offsets at every level (mixed too), int, float, string, bool and
datetime leaves, nulls and empty lists at every level, several batches,
uncompressed, LZ4 and ZSTD bodies; read into zambezi's nested list dtype
and compared value by value with pyarrow's reading of the same file.
Files written by pyarrow, polars and zambezi itself; a damaged inner level
is a ParseError naming the file and column."""

import io

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pf = pytest.importorskip("pyarrow.feather")
ipc = pytest.importorskip("pyarrow.ipc")

import zambezi as zb  # noqa: E402
from zambezi.errors import ParseError, UnsupportedError  # noqa: E402


def _nested(rng, depth, make):
    """A random value of `depth` levels of lists: None and [] at every
    level, None among the leaves."""
    u = rng.random()
    if u < 0.12:
        return None
    if depth == 0:
        return make(rng)
    if u < 0.24:
        return []
    return [_nested(rng, depth - 1, make) for _ in range(int(rng.integers(1, 4)))]


def _col(rng, n, depth, make, leaf, kinds):
    """A column of n values: `depth` list levels, kinds[l] the l-th level's
    list type (pa.list_ or pa.large_list, outermost first)."""
    t = leaf
    for k in reversed(kinds[:depth]):
        t = k(t)
    return pa.array([_nested(rng, depth, make) for _ in range(n)], t)


L, LL = pa.list_, pa.large_list


def _table(n, seed, kinds):
    rng = np.random.default_rng(seed)
    return pa.table({
        "k": pa.array(np.arange(n)),
        "i": _col(rng, n, 2, lambda r: int(r.integers(-9, 9)), pa.int32(), kinds),
        "f": _col(rng, n, 2, lambda r: float(r.standard_normal()), pa.float64(), kinds),
        "s": _col(rng, n, 2, lambda r: "é" * int(r.integers(0, 3)), pa.string(), kinds),
        "S": _col(rng, n, 3, lambda r: "ab"[: int(r.integers(0, 3))], pa.large_string(), kinds),
        "b": _col(rng, n, 2, lambda r: bool(r.random() < .5), pa.bool_(), kinds),
        "t": _col(rng, n, 2, lambda r: int(r.integers(0, 10**15)), pa.timestamp("us", "UTC"),
                  kinds),
        "n": _col(rng, n, 2, lambda r: int(r.integers(0, 10**12)), pa.timestamp("ns"), kinds),
        "u": _col(rng, n, 4, lambda r: int(r.integers(0, 200)), pa.uint8(), kinds),
    })


def _check(df, table):
    got = pa.table(df)
    assert got.column_names == table.column_names
    for name in table.column_names:
        assert got.column(name).to_pylist() == table.column(name).to_pylist(), name


KINDS = {"list": [L, L, L, L], "large_list": [LL, LL, LL, LL], "mixed": [L, LL, L, LL],
         "mixed2": [LL, L, LL, L]}


@pytest.mark.parametrize("kinds", list(KINDS))
@pytest.mark.parametrize("compression", ["uncompressed", "lz4", "zstd"])
def test_pyarrow_files_of_lists_of_lists(tmp_path, kinds, compression):
    table = _table(400, seed=len(kinds) + len(compression), kinds=KINDS[kinds])
    path = str(tmp_path / "ll.feather")
    pf.write_feather(table, path, compression=compression, chunksize=90)  # several batches
    df = zb.read_feather(path)
    assert df["i"].dtype == "list<list<int32>>"
    assert df["S"].dtype == "list<list<list<string>>>"
    assert df["u"].dtype == "list<list<list<list<uint8>>>>"
    oracle = pf.read_table(path)
    _check(df, oracle)
    _check(df, table)
    # one column among others: the nodes and buffers of the nested ones skipped
    _check(zb.read_feather(path, columns=["u", "k", "s"]), table.select(["u", "k", "s"]))
    # one batch: its buffers shared where they lie in the file
    one = str(tmp_path / "one.feather")
    pf.write_feather(table, one, compression=compression)
    _check(zb.read_feather(one), table)


def test_stream_with_sliced_batches():
    table = _table(150, seed=3, kinds=KINDS["mixed"])
    sink = io.BytesIO()
    with ipc.new_stream(sink, table.schema) as w:
        w.write_batch(table.slice(3, 50).combine_chunks().to_batches()[0])
        w.write_table(table.slice(53))
    got = zb.read_ipc(sink.getvalue())
    _check(got, table.slice(3))


def test_offsets_not_from_zero_at_every_level():
    # inner lists over a slice of their values, outer lists over a slice of
    # the inner lists: no level's offsets start at 0
    leaf = pa.array([9, 1, 2, None, 3, 4, 5, 6, 7, 8])
    inner = pa.ListArray.from_arrays(pa.array([1, 3, 3, 6, 8], pa.int32()), leaf)
    outer = pa.LargeListArray.from_arrays(pa.array([1, 2, 4], pa.int64()), inner)
    table = pa.table({"o": outer})
    assert table.column("o").to_pylist() == [[[]], [[None, 3, 4], [5, 6]]]
    sink = io.BytesIO()
    with ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    data = sink.getvalue()
    assert zb.read_ipc(data)["o"].to_list() == ipc.open_stream(data).read_all().column(
        "o").to_pylist()
    b = io.BytesIO()
    pf.write_feather(table, b, compression="zstd")
    assert zb.read_ipc(b.getvalue())["o"].to_list() == [[[]], [[None, 3, 4], [5, 6]]]


def test_empty_and_all_null_nested_columns():
    t = pa.table({"l": pa.array([], L(LL(pa.int64()))),
                  "s": pa.array([], LL(L(pa.string())))})
    sink = io.BytesIO()
    with ipc.new_stream(sink, t.schema):
        pass  # no batches
    b = io.BytesIO()
    pf.write_feather(t, b, compression="uncompressed")
    for data in (b.getvalue(), sink.getvalue()):
        got = zb.read_ipc(data)
        assert got.dtypes.to_dict() == {"l": "list<list<int64>>", "s": "list<list<string>>"}
        assert len(got) == 0
    nulls = pa.table({"l": pa.array([None, None, [], [None], [[]]], L(L(pa.int64())))})
    b = io.BytesIO()
    pf.write_feather(nulls, b, compression="lz4")
    assert zb.read_ipc(b.getvalue())["l"].to_list() == [None, None, [], [None], [[]]]


def test_polars_files_of_lists_of_lists(tmp_path):
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(11)
    n = 300
    frame = pl.DataFrame({
        "i": [_nested(rng, 2, lambda r: int(r.integers(-99, 99))) for _ in range(n)],
        "f": [_nested(rng, 3, lambda r: float(r.standard_normal())) for _ in range(n)],
        "s": [_nested(rng, 2, lambda r: "xyz"[: int(r.integers(0, 4))]) for _ in range(n)],
    }, schema={"i": pl.List(pl.List(pl.Int64)), "f": pl.List(pl.List(pl.List(pl.Float64))),
               "s": pl.List(pl.List(pl.String))})
    for compression in ("uncompressed", "lz4", "zstd"):
        # polars' default: string_view leaves; the oldest level: large_string
        for level in (None, pl.CompatLevel.oldest()):
            path = str(tmp_path / f"pl_{compression}_{level is None}.arrow")
            frame.write_ipc(path, compression=compression, compat_level=level)
            oracle = pf.read_table(path)
            if level is None:
                assert oracle.schema.field("s").type == LL(LL(pa.string_view()))
            got = zb.read_ipc(path)
            assert got["s"].dtype == "list<list<string>>"
            _check(got, oracle)
            _check(zb.read_ipc(path, columns=["f"]), oracle.select(["f"]))


@pytest.mark.parametrize("compression", ["uncompressed", "zstd"])
def test_lists_of_string_views(tmp_path, compression):
    rng = np.random.default_rng(12)
    n = 200
    word = lambda r: "w" * int(r.integers(0, 30))  # inline (<= 12 bytes) and in data buffers
    table = pa.table({
        "v": _col(rng, n, 1, word, pa.string_view(), [L]),
        "vv": _col(rng, n, 2, word, pa.string_view(), [LL, L]),
        "k": pa.array(np.arange(n)),
        "vvv": _col(rng, n, 3, word, pa.string_view(), [L, L, LL]),
    })
    path = str(tmp_path / "views.feather")
    pf.write_feather(table, path, compression=compression, chunksize=60)
    got = zb.read_feather(path)
    assert got["vvv"].dtype == "list<list<list<string>>>"
    _check(got, pf.read_table(path))
    # a column after them: their variadic buffers skipped
    _check(zb.read_feather(path, columns=["k", "vv"]), table.select(["k", "vv"]))


def test_zambezi_round_trip_and_pyarrow_reads_it(tmp_path):
    table = _table(250, seed=5, kinds=KINDS["mixed2"])
    df = zb.read_ipc(_feather_bytes(table))
    path = str(tmp_path / "zb.feather")
    for compression in ("uncompressed", "lz4", "zstd"):
        df.to_feather(path, compression=compression)
        back = zb.read_feather(path)
        _check(back, table)
        _check(back, pf.read_table(path))  # pyarrow reads zambezi's file the same
    part = df.iloc[11:201]  # offsets rebased at every level by the writer
    _check(zb.read_ipc(part.to_ipc()), table.slice(11, 190))


def _feather_bytes(table, **kw):
    b = io.BytesIO()
    pf.write_feather(table, b, compression="uncompressed", **kw)
    return b.getvalue()


def test_corrupt_inner_offsets_name_file_and_column(tmp_path):
    inner = pa.ListArray.from_arrays(pa.array([0, 2, 3, 5, 6], pa.int32()),
                                     pa.array([1, 2, 3, 4, 5, 6]))
    outer = pa.ListArray.from_arrays(pa.array([0, 1, 4], pa.int32()), inner)
    table = pa.table({"a": [1, 2], "q": outer})
    data = bytearray(_feather_bytes(table))
    inner_offs = np.array([0, 2, 3, 5, 6], np.int32).tobytes()
    outer_offs = np.array([0, 1, 4], np.int32).tobytes()
    at_in = bytes(data).find(inner_offs)
    at_out = bytes(data).find(outer_offs)
    assert at_in > 0 and at_out > 0
    cases = [(at_in, [0, 4, 3, 5, 6]),   # decreasing
             (at_in, [0, 2, 3, 5, 99]),  # past the values
             (at_in, [-1, 2, 3, 5, 6]),  # negative
             (at_out, [0, 1, 5]),        # past the inner lists
             (at_out, [0, 3, 1])]
    for at, bad in cases:
        broken = bytearray(data)
        b = np.array(bad, np.int32).tobytes()
        broken[at:at + len(b)] = b
        path = str(tmp_path / "bad.feather")
        with open(path, "wb") as f:
            f.write(broken)
        with pytest.raises(ParseError, match="bad.feather.*column 'q'"):
            zb.read_feather(path)
        # the damage is in column q: column a alone still reads
        assert zb.read_feather(path, columns=["a"])["a"].to_list() == [1, 2]


def test_lists_deeper_than_the_engine_takes_name_the_column():
    t = pa.int64()
    for _ in range(33):
        t = pa.list_(t)
    v = 1
    for _ in range(33):
        v = [v]
    table = pa.table({"ok": [1], "deep": pa.array([v], t)})
    data = _feather_bytes(table)
    with pytest.raises(UnsupportedError, match="'deep'.*deeper than 32"):
        zb.read_ipc(data)
    assert zb.read_ipc(data, columns=["ok"])["ok"].to_list() == [1]
    t32 = pa.int64()
    for _ in range(32):
        t32 = pa.large_list(t32)
    v = 7
    for _ in range(32):
        v = [v, None]
    got = zb.read_ipc(_feather_bytes(pa.table({"d": pa.array([v, None], t32)})))
    assert got["d"].to_list() == [v, None]


def test_batches_using_part_of_their_values_at_every_level():
    # offsets a writer may leave: not from 0, ending before the values end,
    # at both levels (pyarrow rebases its own, so the bytes are edited);
    # several batches, so the reader joins them into one column
    leaf = pa.array([1, 2, None, 3, 4, 5])
    inner = pa.ListArray.from_arrays(pa.array([0, 0, 3, 5], pa.int32()), leaf)
    outer = pa.LargeListArray.from_arrays(pa.array([0, 1, 3], pa.int64()), inner)
    strs = pa.array([[["a", "bc"], ["def"]], [[None, "g"]]], L(L(pa.string())))
    table = pa.table({"o": outer, "s": strs})
    sink = io.BytesIO()
    with ipc.new_stream(sink, table.schema) as w:
        for _ in range(3):
            w.write_table(table)
    data = bytearray(sink.getvalue())
    edits = [(np.array([0, 1, 3], np.int64), np.array([1, 1, 2], np.int64)),
             (np.array([0, 0, 3, 5], np.int32), np.array([0, 1, 3, 4], np.int32)),
             (np.array([0, 2, 3], np.int32), np.array([1, 1, 2], np.int32)),  # s's lists
             (np.array([0, 2, 3, 5], np.int32), np.array([1, 2, 3, 4], np.int32))]
    for old, new in edits:
        at = bytes(data).find(old.tobytes())  # in the first batch
        assert at > 0
        data[at:at + old.nbytes] = new.tobytes()
    data = bytes(data)
    oracle = ipc.open_stream(data).read_all()
    oracle.validate(full=True)
    assert oracle.column("o").to_pylist()[:2] == [[], [[2, None]]]
    assert oracle.column("s").to_pylist()[:2] == [[], [["def"]]]
    _check(zb.read_ipc(data), oracle)


def test_several_batches_mixing_list_dictionary_and_flat_columns(tmp_path):
    # the three ways several batches are read (whole flat columns, merged
    # list columns, batch by batch for the rest) put back in file order
    rng = np.random.default_rng(21)
    n = 500
    table = pa.table({
        "ll": _col(rng, n, 2, lambda r: int(r.integers(0, 9)), pa.int64(), [L, L]),
        "d": pa.array(rng.choice(["x", "y", None], n)).dictionary_encode(),
        "k": pa.array(np.arange(n)),
        "l": _col(rng, n, 1, lambda r: "s" * int(r.integers(0, 3)), pa.string(), [LL]),
        "s": pa.array(rng.choice(["p", "q"], n)),
    })
    path = str(tmp_path / "mix.feather")
    pf.write_feather(table, path, compression="lz4", chunksize=77)
    got = zb.read_feather(path)
    assert list(got.columns) == table.column_names
    for name in ["ll", "k", "l", "s"]:
        assert pa.table(got).column(name).to_pylist() == table.column(name).to_pylist(), name
    assert got["d"].to_list() == table.column("d").to_pylist()
    sub = zb.read_feather(path, columns=["l", "d", "ll"])
    assert list(sub.columns) == ["l", "d", "ll"]
    assert sub["ll"].to_list() == table.column("ll").to_pylist()
    assert sub["l"].to_list() == table.column("l").to_pylist()


def test_merged_lists_do_not_keep_the_decompressed_batches(tmp_path):
    # the whole column owns its own blocks: once read, a compressed file's
    # decompressed batches are freed, so it holds what an uncompressed
    # file's read holds (the engine's allocator counts both)
    from zambezi import _core

    table = _table(3000, seed=8, kinds=KINDS["mixed"]).select(["u", "S"])
    held = {}
    for compression in ("uncompressed", "zstd"):
        path = str(tmp_path / f"{compression}.feather")
        pf.write_feather(table, path, compression=compression, chunksize=250)
        before = _core.alloc_stats()["host_bytes"]
        df = zb.read_feather(path)
        held[compression] = _core.alloc_stats()["host_bytes"] - before
        _check(df, table)
        del df
    assert held["uncompressed"] > 0
    assert held["zstd"] <= held["uncompressed"] * 1.05 + 4096, held
