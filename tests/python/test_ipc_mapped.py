"""Arrow IPC files read over their mapping: one uncompressed record batch
becomes columns whose buffers are views of the mapped file (kept mapped
while any column uses it), so the file must outlive them.

Checked here against pyarrow's reading of the same file, value by value:
files written by pyarrow and polars (one batch and many, nulls, sliced
arrays, string views, empty files); writing a new file over the name of
one that columns still view (the writer replaces the file instead of
truncating the pages under them, which used to raise SIGBUS); corrupt
files on the mapped path raise ParseError naming the file.
"""

import os

import numpy as np
import pandas as pd
import pytest

pa = pytest.importorskip("pyarrow")
pf = pytest.importorskip("pyarrow.feather")
ipc = pytest.importorskip("pyarrow.ipc")

import zambezi as zb
from zambezi.errors import ParseError, ZambeziError

from pandas_compare import assert_frame_like

_MASKED = {pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(), pa.int32(): pd.Int32Dtype(),
           pa.int64(): pd.Int64Dtype(), pa.uint8(): pd.UInt8Dtype(),
           pa.uint16(): pd.UInt16Dtype(), pa.uint32(): pd.UInt32Dtype(),
           pa.uint64(): pd.UInt64Dtype(), pa.bool_(): pd.BooleanDtype()}


def _table(n, seed=0, null_rate=0.2):
    rng = np.random.default_rng(seed)

    def mask():
        return rng.random(n) < null_rate if null_rate else None

    words = np.array(["", "a", "zambezi", "ümlaut", "日本語", "x" * 40, "twelve chars"])
    return pa.table({
        "i64": pa.array(rng.integers(-2**60, 2**60, n), mask=mask()),
        "i32": pa.array(rng.integers(-2**31, 2**31, n, dtype="int32"), mask=mask()),
        "u8": pa.array(rng.integers(0, 256, n, dtype="uint8"), mask=mask()),
        "f64": pa.array(rng.standard_normal(n), mask=mask()),
        "b": pa.array(rng.random(n) < 0.5, mask=mask()),
        "s": pa.array(words[rng.integers(0, len(words), n)], mask=mask()),
        "ls": pa.array(words[rng.integers(0, len(words), n)], pa.large_string(), mask=mask()),
        "ts": pa.array(rng.integers(-2**50, 2**50, n), mask=mask()).view(pa.timestamp("us")),
    })


def _pyarrow_read(path):
    t = ipc.open_file(pa.memory_map(path)).read_all()
    return t.to_pandas(types_mapper=_MASKED.get)


def _check(path, what):
    assert_frame_like(zb.read_ipc(path), _pyarrow_read(path), what)


@pytest.mark.parametrize("rows", [0, 1, 7, 1000, 70_000])
@pytest.mark.parametrize("chunk", [None, 333, 65536])
def test_pyarrow_files_one_and_many_batches(tmp_path, rows, chunk):
    t = _table(rows, seed=rows)
    path = str(tmp_path / "t.arrow")
    pf.write_feather(t, path, compression="uncompressed", chunksize=chunk)
    _check(path, f"rows {rows} chunk {chunk}")


def test_pyarrow_sliced_arrays(tmp_path):
    t = _table(5000, seed=3)
    for lo, hi in [(1, 4001), (13, 14), (4093, 5000), (7, 7)]:
        part = t.slice(lo, hi - lo)  # buffers at offsets that are not multiples of 8
        for chunk in [None, 100]:
            path = str(tmp_path / f"s{lo}_{chunk}.arrow")
            with ipc.new_file(path, part.schema) as w:
                for b in part.to_batches(max_chunksize=chunk):
                    w.write_batch(b)
            _check(path, f"slice {lo}:{hi} chunk {chunk}")
            assert_frame_like(zb.read_ipc(path), part.to_pandas(types_mapper=_MASKED.get),
                              f"slice {lo}:{hi} vs table")


def test_polars_files(tmp_path):
    pl = pytest.importorskip("polars")
    t = _table(20_000, seed=5)
    one = pl.from_arrow(t)
    many = pl.concat([pl.from_arrow(t.slice(i, 3000)) for i in range(0, 20_000, 3000)],
                     rechunk=False)
    for what, df in [("one", one), ("many", many)]:
        for comp in ["uncompressed", "zstd"]:
            path = str(tmp_path / f"{what}_{comp}.arrow")
            df.write_ipc(path, compression=comp)
            _check(path, f"polars {what} {comp}")
    empty = str(tmp_path / "empty.arrow")
    one.head(0).write_ipc(empty)
    got = zb.read_ipc(empty)
    assert list(got.columns) == t.column_names and len(got) == 0


@pytest.mark.parametrize("writer", ["to_ipc", "to_feather", "to_csv", "to_parquet"])
def test_writing_over_a_file_that_columns_view(tmp_path, writer):
    # the frame read from the file is written over it: the writer reads the
    # frame's pages while it writes (a truncated file under them raised
    # SIGBUS, or read the new bytes in place of the old)
    n = 300_000
    path = str(tmp_path / "x.arrow")
    orig = zb.DataFrame({"a": np.arange(n), "s": [f"v{i % 1000}" for i in range(n)]})
    orig.to_ipc(path)
    df = zb.read_ipc(path)  # its columns view the mapped file
    exp = orig.to_pandas()
    if writer == "to_ipc":
        df.to_ipc(path, compression="zstd")  # much shorter than the file it replaces
        assert_frame_like(zb.read_ipc(path), exp, "rewritten")
    elif writer == "to_feather":
        df.to_feather(path, compression="uncompressed", chunksize=1000)
        assert_frame_like(zb.read_feather(path), exp, "rewritten")
    elif writer == "to_csv":
        df.to_csv(path, index=False)
        assert_frame_like(zb.read_csv(path), exp, "rewritten")
    else:
        pytest.importorskip("pyarrow.parquet")
        df.to_parquet(path)
        assert_frame_like(zb.read_parquet(path), exp, "rewritten")
    assert_frame_like(df, exp, "the frame after its file was replaced")
    # through a symbolic link: the file it names is replaced, the link kept
    link = str(tmp_path / "link.arrow")
    orig.to_ipc(path)
    os.symlink(path, link)
    df2 = zb.read_ipc(link)
    df2.to_ipc(link, compression="zstd")
    assert os.path.islink(link)
    assert_frame_like(zb.read_ipc(path), exp, "through the link")
    assert_frame_like(df2, exp, "the frame read through the link")


def test_columns_keep_the_mapping_alive(tmp_path):
    path = str(tmp_path / "keep.arrow")
    orig = zb.DataFrame({"a": np.arange(50_000), "s": [f"k{i}" for i in range(50_000)]})
    orig.to_ipc(path)
    col = zb.read_ipc(path)["s"]  # the frame is gone, one column remains
    os.unlink(path)  # the name goes; the mapping keeps the file
    assert col.tolist() == orig["s"].tolist()


def _one_batch_file(tmp_path):
    t = pa.table({"a": pa.array(np.arange(1000)), "s": pa.array([f"s{i}" for i in range(1000)]),
                  "ls": pa.array([f"t{i}" for i in range(1000)], pa.large_string())})
    path = str(tmp_path / "good.arrow")
    pf.write_feather(t, path, compression="uncompressed")
    return open(path, "rb").read()


def test_corrupt_one_batch_files(tmp_path):
    good = _one_batch_file(tmp_path)
    bad = str(tmp_path / "bad.arrow")

    def read(data):
        with open(bad, "wb") as fh:
            fh.write(data)
        return zb.read_ipc(bad)

    exp = _pyarrow_read(str(tmp_path / "good.arrow"))
    assert_frame_like(read(good), exp, "good")
    for cut in [len(good) - 1, len(good) - 7, len(good) // 2, 200, 9]:
        with pytest.raises(ParseError, match="bad.arrow"):
            read(good[:cut])
    # string offsets: the last one past the characters, or decreasing
    src = pa.py_buffer(good)
    batch = ipc.open_file(src).get_batch(0)
    base = src.address
    for name, width in [("s", 4), ("ls", 8)]:
        offs = batch.column(name).buffers()[1]
        at = offs.address - base  # the offsets' place in the file
        for row, value, says in [(1000, 10**6, "bad.arrow"), (500, 3, "bad.arrow.*row 499"),
                                 (0, -5, "bad.arrow.*negative")]:
            data = bytearray(good)
            data[at + width * row: at + width * (row + 1)] = value.to_bytes(width, "little",
                                                                            signed=True)
            with pytest.raises(ParseError, match=says):
                read(bytes(data))
    # flipped bits anywhere: an error or a frame, never a crash (the
    # characters are not checked to be UTF-8, as pyarrow's reader does not:
    # a flipped bit there shows when the strings are decoded)
    rng = np.random.default_rng(1)
    for pos in rng.integers(8, len(good) - 10, 300):
        data = bytearray(good)
        data[pos] ^= 1 << int(rng.integers(0, 8))
        try:
            got = read(bytes(data))
        except ZambeziError:
            continue
        try:
            got.to_pandas()
        except UnicodeDecodeError:
            pass
