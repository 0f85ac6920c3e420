"""Arrow IPC / Feather v2: zb.read_feather / read_ipc against pyarrow, and
zambezi-written files read by pyarrow and polars.

Files are written by pyarrow (Feather v2 and the IPC file and stream
formats, every codec, several record batches, dictionary columns, nulls,
empty tables) and by polars; the oracle is pyarrow's own reading of the same
file, turned into the frame zambezi must show (integers and booleans with
nulls as pandas' masked dtypes, as zambezi's nullable dtypes look in
to_pandas()).  Files zambezi writes are read back by pyarrow and polars and
compared value by value with the frame written.  Corrupt files (truncated,
flipped bytes, lying lengths) raise ZambeziError naming the file.
"""

import decimal
import io
import os

import numpy as np
import pandas as pd
import pytest

pa = pytest.importorskip("pyarrow")
pf = pytest.importorskip("pyarrow.feather")
ipc = pytest.importorskip("pyarrow.ipc")

import zambezi as zb
from zambezi import _core
from zambezi.errors import ColumnNotFoundError, ParseError, UnsupportedError, ZambeziError

from pandas_compare import assert_frame_like

needs_lz4 = pytest.mark.skipif(not _core.lz4_available(), reason="liblz4 is not installed")
needs_zstd = pytest.mark.skipif(not _core.zstd_available(), reason="libzstd is not installed")
CODECS = ["uncompressed", pytest.param("lz4", marks=needs_lz4),
          pytest.param("zstd", marks=needs_zstd)]

_MASKED = {pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(), pa.int32(): pd.Int32Dtype(),
           pa.int64(): pd.Int64Dtype(), pa.uint8(): pd.UInt8Dtype(),
           pa.uint16(): pd.UInt16Dtype(), pa.uint32(): pd.UInt32Dtype(),
           pa.uint64(): pd.UInt64Dtype(), pa.bool_(): pd.BooleanDtype()}


def _random_table(n, seed=0, null_rate=0.25):
    """A pyarrow table with a column of every type the reader maps."""
    rng = np.random.default_rng(seed)
    cols = {}

    def mask():
        return rng.random(n) < null_rate

    for t in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
        info = np.iinfo(t)
        cols[t] = pa.array(rng.integers(info.min, info.max, n, dtype=t, endpoint=True),
                           mask=mask())
    cols["float32"] = pa.array(rng.standard_normal(n).astype("float32"), mask=mask())
    cols["float64"] = pa.array(rng.standard_normal(n) * 1e6, mask=mask())
    cols["bool"] = pa.array(rng.random(n) < 0.5, mask=mask())
    words = np.array(["", "a", "zambezi", "ümlaut", "日本語", "x" * 40])
    cols["str"] = pa.array(words[rng.integers(0, len(words), n)], mask=mask())
    cols["large_str"] = pa.array([f"v{i}" for i in range(n)], pa.large_string(), mask=mask())
    cols["dict"] = pa.array(words[rng.integers(1, len(words), n)], mask=mask()
                            ).dictionary_encode()
    days = rng.integers(-20000, 30000, n).astype("int32")
    cols["date32"] = pa.array(days, mask=mask()).view(pa.date32())
    cols["date64"] = pa.array(days.astype("int64") * 86400000, mask=mask()).view(pa.date64())
    us = rng.integers(-2**50, 2**50, n)
    for unit, tz in [("s", None), ("ms", None), ("us", None), ("ns", None), ("us", "UTC"),
                     ("ns", "Africa/Lusaka")]:
        cols[f"ts_{unit}_{tz}"] = pa.array(us, mask=mask()).view(pa.timestamp(unit, tz=tz))
    for unit in ["s", "ms", "us", "ns"]:
        cols[f"dur_{unit}"] = pa.array(us, mask=mask()).view(pa.duration(unit))
    return pa.table(cols)


def _expected(table):
    """The frame zambezi must show for a pyarrow table: pyarrow's own
    to_pandas with nulls kept in masked dtypes, date64 as date32 (zambezi
    stores dates as days)."""
    fields = []
    for f in table.schema:
        if f.type == pa.date64():
            table = table.set_column(table.schema.get_field_index(f.name), f.name,
                                     table.column(f.name).cast(pa.date32()))
    del fields
    return table.to_pandas(types_mapper=_MASKED.get)


def _check(got, table, what):
    assert_frame_like(got, _expected(table), what)


@pytest.mark.parametrize("compression", CODECS)
def test_feather_every_type_several_batches(tmp_path, compression):
    table = _random_table(700, seed=7)
    path = str(tmp_path / "t.feather")
    pf.write_feather(table, path, compression=compression, chunksize=128)
    assert ipc.open_file(path).num_record_batches == 6
    _check(zb.read_feather(path), pf.read_table(path), compression)
    # the same bytes from memory
    with open(path, "rb") as fh:
        data = fh.read()
    _check(zb.read_ipc(data), pf.read_table(path), compression)
    _check(zb.read_ipc(io.BytesIO(data)), pf.read_table(path), compression)


@pytest.mark.parametrize("compression", CODECS)
def test_ipc_file_and_stream_writers(tmp_path, compression):
    table = _random_table(300, seed=11)
    opts = ipc.IpcWriteOptions(compression=None if compression == "uncompressed"
                               else compression)
    for kind in ["file", "stream"]:
        sink = pa.BufferOutputStream()
        new = ipc.new_file if kind == "file" else ipc.new_stream
        with new(sink, table.schema, options=opts) as w:
            for b in table.to_batches(max_chunksize=100):
                w.write_batch(b)
        _check(zb.read_ipc(sink.getvalue()), table, f"{kind} {compression}")


def test_one_batch_is_read_without_a_copy(tmp_path):
    df = zb.DataFrame({"a": np.arange(100_000, dtype="int64"),
                       "s": [f"s{i % 7}" for i in range(100_000)]})
    path = str(tmp_path / "one.arrow")
    df.to_ipc(path)
    got = zb.read_ipc(path)
    assert_frame_like(got, df.to_pandas(), "one batch")
    # the column's values lie in a mapping of the file itself (Linux)
    if not os.path.exists("/proc/self/maps"):
        pytest.skip("no /proc/self/maps here")
    addr = np.asarray(got["a"]).__array_interface__["data"][0]
    spans = []
    with open("/proc/self/maps") as fh:
        for line in fh:
            if line.rstrip().endswith(path):
                lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
                spans.append((lo, hi))
    assert spans, "the file is not mapped"
    assert any(lo <= addr < hi for lo, hi in spans)
    # compressed: decompressed into memory of its own
    data = df.to_ipc(compression="zstd") if _core.zstd_available() else None
    if data is not None:
        assert_frame_like(zb.read_ipc(data), df.to_pandas(), "zstd one batch")


def test_nulls_empty_and_null_type(tmp_path):
    n = 40
    table = pa.table({"full": pa.array(np.arange(n)), "none_f": pa.nulls(n, pa.float64()),
                      "none_s": pa.nulls(n, pa.string()), "null": pa.nulls(n)})
    path = str(tmp_path / "n.feather")
    pf.write_feather(table, path, compression="uncompressed", chunksize=16)
    got = zb.read_feather(path)
    exp = _expected(table.drop_columns(["null"]))
    assert_frame_like(got[["full", "none_f", "none_s"]], exp, "nulls")
    assert got["null"].isna().all() and len(got["null"]) == n
    # empty tables: zero rows (no batch, or one empty batch) keep their columns and types
    empty = _random_table(0)
    for chunks in [None, 5]:
        path = str(tmp_path / f"e{chunks}.feather")
        pf.write_feather(empty, path, compression="uncompressed", chunksize=chunks)
        got = zb.read_feather(path)
        assert list(got.columns) == empty.column_names and len(got) == 0
        # (pyarrow gives an empty dictionary object categories; zambezi str ones)
        assert str(got["dict"].dtype) == "category"
        _check(got.drop(columns=["dict"]), empty.drop_columns(["dict"]), "empty")
    assert len(zb.read_ipc(zb.DataFrame({"a": np.array([], "int64")}).to_ipc())) == 0


def test_columns_select_in_order_and_skip_unsupported(tmp_path):
    table = _random_table(100, seed=3).append_column(
        "nested", pa.array([[{"x": 1}]] * 100)).append_column(
        "dec", pa.array([decimal.Decimal("1.25")] * 100, pa.decimal128(10, 2)))
    table = table.select(["nested", "dec"] + table.column_names[:-2])
    path = str(tmp_path / "t.feather")
    pf.write_feather(table, path, compression="uncompressed")
    want = ["str", "int8", "dict", "ts_us_UTC"]
    _check(zb.read_feather(path, columns=want), table.select(want), "columns")
    assert list(zb.read_feather(path, columns=[]).columns) == []
    with pytest.raises(ColumnNotFoundError, match="nope"):
        zb.read_feather(path, columns=["int8", "nope"])
    with pytest.raises(UnsupportedError, match="'nested'.*list"):
        zb.read_feather(path)
    with pytest.raises(UnsupportedError, match="'dec'.*decimal"):
        zb.read_feather(path, columns=["int8", "dec"])


def test_pandas_metadata_index_and_categorical(tmp_path):
    rng = np.random.default_rng(1)
    n = 30
    pdf = pd.DataFrame({"a": rng.integers(0, 9, n), "b": rng.standard_normal(n),
                        "c": pd.Categorical(rng.choice(["lo", "mid", "hi"], n),
                                            categories=["lo", "mid", "hi", "unused"])})
    cases = {
        "range": pdf,
        "range_offset": pdf.set_axis(pd.RangeIndex(10, 10 + 3 * n, 3, name="r")),
        "named": pdf.set_index(pd.Index([f"k{i}" for i in range(n)], name="key")),
        "multi": pdf.set_index([pd.Index(rng.integers(0, 3, n), name="x"),
                                pd.Index(rng.integers(0, 3, n), name="y")]),
    }
    for what, frame in cases.items():
        path = str(tmp_path / f"{what}.feather")
        table = pa.Table.from_pandas(frame)
        pf.write_feather(table, path)
        got = zb.read_feather(path)
        exp = pd.read_feather(path)
        assert_frame_like(got, exp, what)
        assert list(got["c"].cat.categories) == ["lo", "mid", "hi", "unused"]
        # with columns, as in pandas: index columns only when named
        assert_frame_like(zb.read_feather(path, columns=["b"]),
                          pd.read_feather(path, columns=["b"]), what + " columns")


def test_polars_written_files(tmp_path):
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(5)
    n = 500
    df = pl.DataFrame({
        "i": pl.Series(rng.integers(-100, 100, n)).scatter([1, 7], None),
        "u8": pl.Series(rng.integers(0, 255, n), dtype=pl.UInt8),
        "f": rng.standard_normal(n),
        "s": pl.Series([f"w{i % 13}" for i in range(n)]).scatter([2], None),
        "cat": pl.Series([f"c{i % 4}" for i in range(n)], dtype=pl.Categorical),
        "b": pl.Series(rng.random(n) < 0.3).scatter([3], None),
        "d": pl.Series(rng.integers(0, 20000, n), dtype=pl.Int32).cast(pl.Date),
        "t": pl.Series(rng.integers(0, 2**50, n)).cast(pl.Datetime("us", "UTC")),
        "dur": pl.Series(rng.integers(0, 2**40, n)).cast(pl.Duration("ms")),
    })
    for comp in ["uncompressed", "lz4", "zstd"]:
        if comp == "lz4" and not _core.lz4_available():
            continue
        path = str(tmp_path / f"p_{comp}.arrow")
        df.write_ipc(path, compression=comp)
        _check(zb.read_ipc(path), pa.ipc.open_file(path).read_all(), "polars " + comp)
        sink = io.BytesIO()
        df.write_ipc_stream(sink, compression=comp)
        _check(zb.read_ipc(sink.getvalue()), df.to_arrow(), "polars stream " + comp)


def _zb_frame(n=400, seed=2):
    rng = np.random.default_rng(seed)
    pdf = pd.DataFrame({
        "i8": pd.array(rng.integers(-100, 100, n), dtype="Int8"),
        "u64": pd.array(rng.integers(0, 2**63, n, dtype="uint64"), dtype="UInt64"),
        "i64": pd.array(rng.integers(-2**40, 2**40, n), dtype="Int64"),
        "f32": rng.standard_normal(n).astype("float32"),
        "f": rng.standard_normal(n),
        "b": pd.array(rng.random(n) < 0.5, dtype="boolean"),
        "s": pd.array([None if i % 9 == 0 else f"é{i % 17}" for i in range(n)], dtype="str"),
        "c": pd.Categorical(rng.choice(["p", "q", "r"], n), categories=["r", "q", "p"]),
        "t": pd.to_datetime(rng.integers(0, 2**60, n)).tz_localize("UTC"),
        "ts": pd.to_datetime(rng.integers(0, 2**31, n), unit="s").astype("datetime64[s]"),
        "td": pd.to_timedelta(rng.integers(0, 2**40, n), unit="ns"),
    })
    pdf.loc[3, ["i8", "u64", "f", "b", "t", "td"]] = None
    z = zb.from_pandas(pdf)
    return z, pdf


@pytest.mark.parametrize("compression", CODECS)
def test_written_files_read_by_pyarrow_polars_pandas(tmp_path, compression):
    pl = pytest.importorskip("polars")
    z, pdf = _zb_frame()
    path = str(tmp_path / "z.feather")
    z.to_feather(path, compression=compression, chunksize=150)
    t = pf.read_table(path)
    assert t.num_rows == len(pdf)
    assert ipc.open_file(path).num_record_batches == 3
    exp = z.to_pandas()
    assert_frame_like(pd.read_feather(path), exp, "pandas " + compression)
    assert_frame_like(t.to_pandas(), exp, "pyarrow " + compression)
    assert t.schema.field("c").type == pa.dictionary(pa.int32(), pa.large_string())
    assert list(t.column("c").combine_chunks().dictionary.to_pylist()) == ["r", "q", "p"]
    pdl = pl.read_ipc(path)
    for name in ["i8", "u64", "i64", "f32", "f", "b", "s"]:
        assert pdl[name].to_list() == t.column(name).to_pylist(), name
    assert pdl["c"].cast(pl.String).to_list() == t.column("c").to_pylist()
    assert_frame_like(zb.read_feather(path), exp, "zambezi " + compression)


def test_written_slices_and_bytes(tmp_path):
    z, pdf = _zb_frame(301, seed=9)
    part = z.iloc[13:250]  # offsets that are not multiples of 8
    data = part.to_ipc()
    t = pa.ipc.open_file(pa.py_buffer(data)).read_all()
    assert_frame_like(t.to_pandas(), part.to_pandas(), "slice")
    assert_frame_like(zb.read_ipc(data), part.to_pandas(), "slice zb")
    # a non-range index is stored as a column with pandas' metadata
    keyed = zb.from_pandas(pdf.set_index("s"))
    assert_frame_like(pd.read_feather(io.BytesIO(keyed.to_ipc())), pdf.set_index("s"), "index")
    buf = io.BytesIO()
    zb.write_ipc(z, buf, compression="zstd")
    assert_frame_like(zb.read_ipc(buf.getvalue()), z.to_pandas(), "write_ipc")


def test_bad_arguments(tmp_path):
    z, _ = _zb_frame(5)
    with pytest.raises(ZambeziError, match="compression"):
        z.to_ipc(compression="brotli")
    with pytest.raises(ZambeziError, match="chunksize"):
        z.to_ipc(chunksize=0)
    with pytest.raises(UnsupportedError):
        z.to_feather(str(tmp_path / "x"), version=1)
    with pytest.raises(ZambeziError, match="columns"):
        zb.read_ipc(z.to_ipc(), columns="i8")


def test_corrupt_files_raise(tmp_path):
    table = _random_table(200, seed=4)
    path = str(tmp_path / "good.feather")
    pf.write_feather(table, path, compression="uncompressed", chunksize=64)
    good = open(path, "rb").read()
    bad = str(tmp_path / "bad.feather")

    def read(data):
        with open(bad, "wb") as fh:
            fh.write(data)
        return zb.read_feather(bad)

    # truncated anywhere
    for cut in [0, 5, 8, 100, len(good) // 2, len(good) - 11, len(good) - 1]:
        with pytest.raises(ZambeziError, match="bad.feather"):
            read(good[:cut])
    # a lying footer length
    flen = int.from_bytes(good[-10:-6], "little")
    for lie in [flen + 1000, 2**31 - 1, 3]:
        with pytest.raises(ZambeziError, match="bad.feather"):
            read(good[:-10] + lie.to_bytes(4, "little", signed=True) + good[-6:])
    # flipped bytes anywhere in the metadata: an error or a frame, never a crash
    rng = np.random.default_rng(0)
    footer0 = len(good) - 10 - flen
    spots = list(rng.integers(footer0, len(good) - 10, 60)) + list(rng.integers(8, 2000, 60))
    for pos in spots:
        for val in (0x00, 0xFF, 0x7F):
            data = bytearray(good)
            data[pos] = val
            try:
                read(bytes(data))
            except ZambeziError:
                pass
    with pytest.raises(ParseError):
        zb.read_ipc(b"ARROW1\0\0" + b"\xff" * 100)


@needs_zstd
def test_corrupt_compressed_buffer(tmp_path):
    table = pa.table({"a": pa.array(np.arange(1000))})
    sink = pa.BufferOutputStream()
    with ipc.new_file(sink, table.schema,
                      options=ipc.IpcWriteOptions(compression="zstd")) as w:
        w.write_table(table)
    data = bytearray(sink.getvalue().to_pybytes())
    # the body: the zstd frame magic 28 b5 2f fd
    at = data.find(b"\x28\xb5\x2f\xfd")
    assert at > 0
    data[at + 6:at + 14] = b"\x00" * 8
    with pytest.raises(ParseError, match="zstd"):
        zb.read_ipc(bytes(data))
    # a lying uncompressed length in front of the frame
    data = bytearray(sink.getvalue().to_pybytes())
    data[at - 8:at] = (10**6).to_bytes(8, "little")
    with pytest.raises(ParseError):
        zb.read_ipc(bytes(data))


@pytest.mark.filterwarnings("ignore:Feather V1:DeprecationWarning")
def test_feather_v1_is_refused(tmp_path):
    path = str(tmp_path / "v1.feather")
    pf.write_feather(pa.table({"a": [1, 2]}), path, version=1)
    with pytest.raises(UnsupportedError, match="v1.feather.*version 1"):
        zb.read_feather(path)


def _write_batches(path, batches, compression):
    opts = ipc.IpcWriteOptions(compression=None if compression == "uncompressed"
                               else compression)
    with ipc.new_file(path, batches[0].schema, options=opts) as w:
        for b in batches:
            w.write_batch(b)


@pytest.mark.parametrize("compression", CODECS)
def test_several_batches_assembled_whole(tmp_path, compression):
    # batches of odd lengths (not whole bytes of a bitmap) and an empty one;
    # nulls in one batch only (the others have no validity bitmap); strings
    # long and short in every batch; date64 takes the batch-by-batch path
    # beside the others (dictionaries: the test above)
    big = _random_table(400, seed=3).drop_columns(["dict"])
    n = big.num_rows
    sparse_mask = np.zeros(n, bool)
    sparse_mask[90:100] = True
    big = big.append_column("s_sparse", pa.array(["x" * (i % 37) for i in range(n)],
                                                 mask=sparse_mask))
    big = big.append_column("i_sparse", pa.array(np.arange(n), mask=sparse_mask))
    big = big.append_column("b_nonull", pa.array(np.arange(n) % 3 == 0))
    lengths = [1, 7, 0, 13, 64, 3, 200, 112]
    assert sum(lengths) == n
    batches, at = [], 0
    for length in lengths:
        batches.append(big.slice(at, length).combine_chunks().to_batches()[0]
                       if length else pa.RecordBatch.from_pylist([], schema=big.schema))
        at += length
    path = str(tmp_path / "b.arrow")
    _write_batches(path, batches, compression)
    assert ipc.open_file(path).num_record_batches == len(lengths)
    want = pf.read_table(path)
    assert want.equals(big)
    _check(zb.read_ipc(path), want, compression)
    cols = ["large_str", "bool", "s_sparse", "date64", "ts_ns_Africa/Lusaka", "str"]
    _check(zb.read_ipc(path, columns=cols), want.select(cols), compression)
    _check(zb.read_ipc(path, columns=["i_sparse"]), want.select(["i_sparse"]), compression)


@pytest.mark.parametrize("compression", CODECS)
def test_several_batches_strings_with_unused_bytes(tmp_path, compression):
    # pyarrow writes a string array's characters from its first offset to
    # the end of the buffer: bytes after the last string are kept, and
    # the next batch's strings must still follow this batch's directly
    def arr(offsets, data, valid=None):
        bufs = [None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little")),
                pa.py_buffer(np.array(offsets, dtype="int32").tobytes()), pa.py_buffer(data)]
        return pa.Array.from_buffers(pa.string(), len(offsets) - 1, bufs,
                                     null_count=-1 if valid is not None else 0)

    parts = [arr([5, 6, 8, 8, 11], b"JUNK_abcdefXYZ"),
             arr([0, 2, 2], b"gh" + b"\xff" * 9, valid=np.array([1, 0], bool)),
             arr([0, 0], b""),
             arr([3, 6, 9], b"...ijklmn!!")]
    batches = [pa.RecordBatch.from_arrays([p], names=["s"]) for p in parts]
    path = str(tmp_path / "s.arrow")
    _write_batches(path, batches, compression)
    got = zb.read_ipc(path)
    want = pa.Table.from_batches(batches)
    assert want["s"].to_pylist() == ["a", "bc", "", "def", "gh", None, "", "ijk", "lmn"]
    _check(got, want, compression)


def test_several_batches_decreasing_offsets_raise(tmp_path):
    good = pa.array(["ab", "c"])
    bad = pa.Array.from_buffers(pa.string(), 3, [None, pa.py_buffer(
        np.array([0, 3, 2, 4], dtype="int32").tobytes()), pa.py_buffer(b"wxyz")])
    path = str(tmp_path / "d.arrow")
    _write_batches(path, [pa.RecordBatch.from_arrays([good], names=["s"]),
                          pa.RecordBatch.from_arrays([bad], names=["s"])], "uncompressed")
    with pytest.raises(ParseError, match="d.arrow.*'s'.*record batch 1"):
        zb.read_ipc(path)


@pytest.mark.parametrize("offsets", [[0, 3, 9], [-2, 3, 4], [2, 3, 1]])
def test_several_batches_offsets_outside_characters_raise(tmp_path, offsets):
    # an uncompressed batch's first and last offsets place its characters
    # before any are copied: past the end, negative or reversed is an error
    # (pyarrow refuses to write them: its offsets are replaced in the file)
    good = pa.array(["ab", "c"])
    fine = pa.Array.from_buffers(pa.string(), 2, [None, pa.py_buffer(
        np.array([0, 3, 4], dtype="int32").tobytes()), pa.py_buffer(b"wxyz")])
    path = str(tmp_path / "o.arrow")
    _write_batches(path, [pa.RecordBatch.from_arrays([good], names=["s"]),
                          pa.RecordBatch.from_arrays([fine], names=["s"])], "uncompressed")
    data = open(path, "rb").read()
    was = np.array([0, 3, 4], dtype="int32").tobytes()
    assert data.count(was) == 1
    open(path, "wb").write(data.replace(was, np.array(offsets, dtype="int32").tobytes()))
    with pytest.raises(ParseError, match="o.arrow.*'s'.*record batch 1"):
        zb.read_ipc(path)


@pytest.mark.parametrize("compression", CODECS)
def test_several_batches_of_string_views(tmp_path, compression):
    # utf8_view (polars writes them): inline (<= 12 bytes) and out-of-line
    # strings, nulls in some batches, an empty batch, several data buffers
    rng = np.random.default_rng(9)
    words = ["", "short", "exactly12byt", "thirteen byte", "ü" * 20, "x" * 300]
    batches = []
    for k, n in enumerate([5, 0, 37, 64, 9]):
        vals = [None if (k % 2 and rng.random() < 0.3) else words[rng.integers(0, len(words))]
                for _ in range(n)]
        parts = [pa.array(vals[:n // 2], pa.string_view()), pa.array(vals[n // 2:],
                                                                     pa.string_view())]
        # two chunks concatenated: the views point into two data buffers
        arr = pa.concat_arrays(parts) if n else pa.array([], pa.string_view())
        batches.append(pa.RecordBatch.from_arrays([arr, pa.array(np.arange(n))],
                                                  names=["v", "i"]))
    path = str(tmp_path / "v.arrow")
    _write_batches(path, batches, compression)
    want = pa.Table.from_batches(batches)
    want = want.set_column(0, "v", want["v"].cast(pa.large_string()))
    _check(zb.read_ipc(path), want, compression)
    _check(zb.read_ipc(path, columns=["v"]), want.select(["v"]), compression)


def test_several_batches_bad_string_view_raises(tmp_path):
    good = pa.array(["a", "b"], pa.string_view())
    view = (20).to_bytes(4, "little") + b"abcd" + (3).to_bytes(4, "little") + bytes(4)
    bad = pa.Array.from_buffers(pa.string_view(), 1, [None, pa.py_buffer(view),
                                                      pa.py_buffer(b"z" * 20)])
    path = str(tmp_path / "bv.arrow")
    _write_batches(path, [pa.RecordBatch.from_arrays([good], names=["v"]),
                          pa.RecordBatch.from_arrays([bad], names=["v"])], "uncompressed")
    with pytest.raises(ParseError, match="bv.arrow.*'v'.*record batch 1"):
        zb.read_ipc(path)


def _strings(values, type_=None):
    """A pyarrow string array over raw bytes (pyarrow does not check them)."""
    type_ = type_ or pa.string()
    binary = pa.large_binary() if type_ == pa.large_string() else pa.binary()
    return pa.array(values, binary).view(type_)


@pytest.mark.parametrize("batches", [1, 3])
def test_invalid_utf8_strings_raise_naming_column_and_row(batches):
    # pyarrow's own full validation is the oracle for which values are bad
    good = ["abc", "é", None, "日本", ""]
    cases = [
        ("s", _strings([v.encode() if v is not None else None for v in good]
                       + [b"ok", b"\xff\xfe"]), "row 6"),
        # two halves of one character: the bytes together are valid UTF-8
        ("s", _strings([b"a", b"\xc3", b"\xa9"]), "row 1"),
        ("s", _strings([b"x", b"abc\xed\xa0\x80"], pa.large_string()), "row 1"),
        ("c", pa.DictionaryArray.from_arrays(pa.array([0, 1, 1], pa.int32()),
                                             _strings([b"ok", b"\xc0\xaf"])), "category 1"),
        ("l", pa.ListArray.from_arrays(pa.array([0, 1, 3], pa.int32()),
                                       _strings([b"a", b"b", b"\xe2\x82"])), "list value 2"),
    ]
    for name, arr, where in cases:
        table = pa.table({"n": pa.array(range(len(arr))), name: arr})
        with pytest.raises(pa.ArrowInvalid):
            table.validate(full=True)
        sink = pa.BufferOutputStream()
        with ipc.new_file(sink, table.schema) as w:
            for b in table.to_batches(max_chunksize=-(-len(arr) // batches)):
                w.write_batch(b)
        with pytest.raises(ParseError, match=f"column '{name}', {where}, is not valid UTF-8"):
            zb.read_ipc(sink.getvalue().to_pybytes())


def test_invalid_utf8_under_a_null_is_not_looked_at():
    # Arrow leaves a null slot's bytes undefined: pyarrow's validation passes
    arr = pa.Array.from_buffers(pa.string(), 3,
                                [pa.py_buffer(bytes([0b101])),
                                 pa.py_buffer(np.array([0, 1, 3, 4], np.int32).tobytes()),
                                 pa.py_buffer(b"a\xff\xfeb")], null_count=1)
    table = pa.table({"s": arr})
    table.validate(full=True)
    sink = pa.BufferOutputStream()
    with ipc.new_file(sink, table.schema) as w:
        w.write_table(table)
    got = zb.read_ipc(sink.getvalue().to_pybytes()).to_pandas()
    want = table.column("s").to_pylist()
    assert [None if pd.isna(v) else v for v in got["s"].tolist()] == want
