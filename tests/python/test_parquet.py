"""zb.read_parquet: the engine's own Parquet reader against pyarrow's.

Files are written by pyarrow (codecs none / snappy / zstd, data pages v1
and v2, dictionary on and off, tiny pages and several row groups), by
pandas (index metadata) and by polars; the oracle is pyarrow's own reading
of the same file, turned into the pandas frame zambezi must show
(pandas_compare: integers and booleans with nulls as pandas' masked
dtypes, which is how zambezi's nullable dtypes look in to_pandas()).
Corrupt files (truncated, flipped bytes in the footer and in a page
header, lying lengths) must raise ZambeziError, never crash.
"""

import datetime
import os

import numpy as np
import pandas as pd
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import zambezi as zb
from zambezi import _core
from zambezi.errors import ColumnNotFoundError, ParseError, UnsupportedError, ZambeziError

from pandas_compare import assert_frame_like
from conftest import seed_for

needs_snappy = pytest.mark.skipif(not _core.snappy_available(),
                                  reason="libsnappy is not installed")
needs_zstd = pytest.mark.skipif(not _core.zstd_available(), reason="libzstd is not installed")
needs_zlib = pytest.mark.skipif(not _core.zlib_available(), reason="zlib is not installed")

_MASKED = {pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(), pa.int32(): pd.Int32Dtype(),
           pa.int64(): pd.Int64Dtype(), pa.uint8(): pd.UInt8Dtype(),
           pa.uint16(): pd.UInt16Dtype(), pa.uint32(): pd.UInt32Dtype(),
           pa.uint64(): pd.UInt64Dtype(), pa.bool_(): pd.BooleanDtype()}


def _random_table(n, seed=0, null_rate=0.25):
    """A pyarrow table with a column of every type the reader maps, random
    values and a different null pattern per column."""
    rng = np.random.default_rng(seed)
    cols = {}

    def mask():
        return rng.random(n) < null_rate

    for t in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
        info = np.iinfo(t)
        v = rng.integers(info.min, info.max, n, dtype=t, endpoint=True)
        cols[t] = pa.array(v, mask=mask())
    cols["required_i64"] = pa.array(rng.integers(-5, 5, n))  # few distinct: dictionary
    cols["float32"] = pa.array(rng.standard_normal(n).astype("float32"), mask=mask())
    cols["float64"] = pa.array(rng.standard_normal(n) * 1e6, mask=mask())
    cols["bool"] = pa.array(rng.random(n) < 0.5, mask=mask())
    words = np.array(["", "a", "zambezi", "ümlaut", "日本語", "x" * 40])
    cols["str"] = pa.array(words[rng.integers(0, len(words), n)], mask=mask())
    cols["str_unique"] = pa.array([f"v{i}-{rng.integers(1e9)}" for i in range(n)],
                                  pa.string(), mask=mask())
    days = rng.integers(-20000, 30000, n).astype("int32")
    cols["date"] = pa.array(days, mask=mask()).cast(pa.int32()).view(pa.date32())
    us = rng.integers(-2**50, 2**50, n)
    for unit, tz in [("ms", None), ("us", None), ("ns", None), ("us", "UTC")]:
        cols[f"ts_{unit}_{tz}"] = pa.array(us, mask=mask()).cast(pa.int64()).view(
            pa.timestamp(unit, tz=tz))
    return pa.table(cols)


def _expected(table):
    """The frame zambezi must show for a pyarrow table (pyarrow's own
    to_pandas, with nulls kept in masked dtypes; dates are datetime.date
    objects in both)."""
    return table.to_pandas(types_mapper=_MASKED.get)


def _roundtrip(tmp_path, table, name="t.parquet", **write):
    path = str(tmp_path / name)
    pq.write_table(table, path, **write)
    got = zb.read_parquet(path)
    assert_frame_like(got, _expected(pq.read_table(path)), f"{write}")
    return path


@pytest.mark.parametrize("compression", [
    "none", pytest.param("snappy", marks=needs_snappy), pytest.param("zstd", marks=needs_zstd)])
@pytest.mark.parametrize("version", ["1.0", "2.0"])
@pytest.mark.parametrize("dictionary", [True, False])
def test_every_type_with_nulls(tmp_path, compression, version, dictionary):
    table = _random_table(700, seed=seed_for(compression, version, dictionary) % 1000)
    # small pages and row groups: many pages per chunk, several chunks per column
    _roundtrip(tmp_path, table, compression=compression, data_page_version=version,
               use_dictionary=dictionary, data_page_size=512, row_group_size=300)


def _arrow_only_table(n, seed):
    """Types only the footer's Arrow schema names: durations, time zones
    other than UTC, dictionary strings (no pandas metadata)."""
    rng = np.random.default_rng(seed)
    v = rng.integers(-2**40, 2**40, n)
    cols = {}
    for unit in ["s", "ms", "us", "ns"]:
        cols[f"dur_{unit}"] = pa.array(v, pa.int64(), mask=rng.random(n) < 0.2).cast(
            pa.duration(unit))
    for unit, tz in [("ms", "America/New_York"), ("us", "Asia/Kolkata"), ("us", "+05:30")]:
        cols[f"ts_{tz}"] = pa.array(v, pa.int64(), mask=rng.random(n) < 0.2).cast(
            pa.timestamp(unit, tz=tz))
    words = pa.array(np.array(["b", "a", "c", "ümlaut"])[rng.integers(0, 4, n)])
    cols["dict"] = words.dictionary_encode()
    cols["plain"] = pa.array(v)
    return pa.table(cols)


@pytest.mark.parametrize("writer", ["pyarrow", "polars"])
def test_arrow_schema_types_as_pandas_reads_them(tmp_path, writer):
    # the oracle: pandas (with pyarrow) reading the same file; categories
    # are the values present, sorted (a documented difference)
    table = _arrow_only_table(500, seed=3)
    path = str(tmp_path / "arrow.parquet")
    if writer == "pyarrow":
        pq.write_table(table, path, row_group_size=200)
    else:
        pl = pytest.importorskip("polars")
        table = table.drop(["ts_+05:30"])  # polars' time zones are names only
        pl.from_arrow(table).write_parquet(path, row_group_size=200)
    assert b"pandas" not in (pq.read_metadata(path).metadata or {})
    exp = pd.read_parquet(path)
    exp["dict"] = exp["dict"].cat.set_categories(
        pd.Index(sorted(exp["dict"].cat.categories), dtype="str"))
    got = zb.read_parquet(path)
    assert_frame_like(got, exp, writer)
    assert str(got["dur_s"].dtype) == ("duration[s]" if writer == "pyarrow" else "duration[ms]")
    # the Arrow types survive filters and a column selection
    f = zb.read_parquet(path, columns=["ts_Asia/Kolkata", "dur_ms"],
                        filters=[("dur_ms", ">", pd.Timedelta(0))])
    e = pd.read_parquet(path, columns=["ts_Asia/Kolkata", "dur_ms"],
                        filters=[("dur_ms", ">", pd.Timedelta(0))])
    assert_frame_like(f, e, "filtered")


def test_unreadable_arrow_schema_is_ignored(tmp_path):
    # the footer's base64 text overwritten in place (the footer has no checksum)
    table = pa.table({"d": pa.array([1, None, 3], pa.duration("ms")), "s": ["x", "y", "z"]})
    path = str(tmp_path / "good.parquet")
    pq.write_table(table, path)
    good = open(path, "rb").read()
    b64 = pq.read_metadata(path).metadata[b"ARROW:schema"]
    at = good.index(b64)
    bad_path = str(tmp_path / "bad.parquet")
    for k, bad in enumerate([b"!" * len(b64), b"QUJD" + b"=" * (len(b64) - 4),
                             b64[:12] + b"A" * (len(b64) - 12), b64[:-40] + b"/" * 40]):
        with open(bad_path, "wb") as fh:
            fh.write(good[:at] + bad + good[at + len(b64):])
        got = zb.read_parquet(bad_path).to_pandas()
        assert got["s"].tolist() == ["x", "y", "z"], k
        # the Parquet type (int64), or the duration where the hint still reads
        assert [None if pd.isna(v) else v for v in got["d"].tolist()] in (
            [1, None, 3], [pd.Timedelta(1, "ms"), None, pd.Timedelta(3, "ms")]), k


def test_one_row_group_big_pages(tmp_path):
    _roundtrip(tmp_path, _random_table(3000, seed=5), compression="none")


def test_no_nulls_and_all_nulls(tmp_path):
    n = 50
    table = pa.table({"full": pa.array(np.arange(n)), "empty": pa.nulls(n, pa.float64()),
                      "empty_str": pa.nulls(n, pa.string()),
                      "s": pa.array([str(i) for i in range(n)])})
    _roundtrip(tmp_path, table, compression="none", row_group_size=16)


@pytest.mark.parametrize("distinct", [40, 3000, 70000])
def test_dictionary_strings_and_a_fallback_to_plain(tmp_path, distinct):
    # Dictionary-encoded strings (indices kept, their characters written
    # into the column at the end: 1, 2 or 4 bytes an index as the
    # dictionary's size needs), with nulls, several row groups, and chunks
    # whose dictionary outgrew the writer's limit part way, so that later
    # pages are PLAIN: each reader must give pyarrow's values.
    rng = np.random.default_rng(distinct)
    # (a chunk keeps indices only where they and the dictionary take less
    # room than its characters: 70,000 values need long chunks)
    n = 90_000 if distinct < 70_000 else 260_000
    words = np.array([f"w{i}-" + "x" * int(i % 23) + "é" * int(i % 3) for i in range(distinct)])
    mask = rng.random(n) < 0.1
    # and values of one length (5, 16: a 16-byte move each), without nulls
    same5 = np.array([f"i{i % 10000:04d}" for i in range(distinct)])
    same16 = np.array([f"{i:016d}" for i in range(distinct)])
    table = pa.table({"s": pa.array(words[rng.integers(0, distinct, n)], mask=mask),
                      "t": pa.array(words[np.arange(n) % distinct]),
                      "u5": pa.array(same5[rng.integers(0, distinct, n)]),
                      "u16": pa.array(same16[rng.integers(0, distinct, n)]),
                      "k": pa.array(np.arange(n))})
    for limit, groups in [(1 << 20, 40_000), (4096, 30_000), (8 << 20, n)]:
        path = _roundtrip(tmp_path, table, name=f"d{limit}-{groups}.parquet",
                          dictionary_pagesize_limit=limit, row_group_size=groups,
                          compression="none", data_page_size=8192)
        encodings = {e for rg in range(pq.ParquetFile(path).metadata.num_row_groups)
                     for e in pq.ParquetFile(path).metadata.row_group(rg).column(0).encodings}
        assert "RLE_DICTIONARY" in encodings
        if limit == 4096 and distinct > 40:
            assert "PLAIN" in encodings   # the fallback happened
        cols = ["t", "u16", "s", "u5"]
        assert_frame_like(zb.read_parquet(path, columns=cols),
                          _expected(pq.read_table(path, columns=cols)), path)


@pytest.mark.parametrize("values, bad", [
    ([b"ok", b"\xff", b"fine"], 1),
    ([b"ok", b"caf\xc3", b"\xa9", b"ok"], 1),         # a character split between two values
    ([b"ok", b"x\xc3\xa9", b"\xa9y", b"ok"], 2),      # a value starting mid-character
    ([b"ok", b"fine", b"\xe2\x82"], 2),                # cut short at the page's end
])
@pytest.mark.parametrize("dictionary", [True, False])
def test_invalid_utf8_strings_are_an_error_naming_the_value(tmp_path, values, bad, dictionary):
    # a string column holding bytes that are not UTF-8 (pyarrow writes what
    # it is given): each value is checked on its own, so bytes that would
    # be valid joined to their neighbour are still an error
    offsets = np.cumsum([0] + [len(v) for v in values]).astype(np.int32)
    col = pa.Array.from_buffers(pa.string(), len(values),
                                [None, pa.py_buffer(offsets.tobytes()), pa.py_buffer(b"".join(values))])
    path = str(tmp_path / "bad.parquet")
    pq.write_table(pa.table({"s": col}), path, use_dictionary=dictionary)
    what = f"string {bad} " if dictionary else f"string of row {bad} "
    with pytest.raises(ZambeziError, match=f"column 's', row group 0: (the )?{what}is not valid UTF-8"):
        zb.read_parquet(path)
    good = [v for i, v in enumerate(values) if i not in (bad - 1, bad, bad + 1)] + [b"\xc3\xa9t\xc3\xa9"]
    offsets = np.cumsum([0] + [len(v) for v in good]).astype(np.int32)
    col = pa.Array.from_buffers(pa.string(), len(good),
                                [None, pa.py_buffer(offsets.tobytes()), pa.py_buffer(b"".join(good))])
    pq.write_table(pa.table({"s": col}), path, use_dictionary=dictionary)
    assert zb.read_parquet(path)["s"].to_pandas().tolist() == [v.decode() for v in good]


def test_empty_file(tmp_path):
    table = _random_table(0)
    _roundtrip(tmp_path, table, compression="none")
    path = str(tmp_path / "empty.parquet")
    pq.write_table(pa.table({"a": pa.array([], pa.int64())}), path)
    df = zb.read_parquet(path)
    assert list(df.columns) == ["a"] and len(df) == 0


def test_columns_selects_in_order(tmp_path):
    table = _random_table(100, seed=3)
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path, compression="none")
    want = ["str", "int8", "ts_us_UTC"]
    got = zb.read_parquet(path, columns=want)
    assert_frame_like(got, _expected(pq.read_table(path, columns=want)), "columns")
    assert list(zb.read_parquet(path, columns=[]).columns) == []
    with pytest.raises(ColumnNotFoundError, match="nope"):
        zb.read_parquet(path, columns=["int8", "nope"])


def test_pandas_index_metadata(tmp_path):
    rng = np.random.default_rng(1)
    n = 40
    pdf = pd.DataFrame({"a": rng.integers(0, 9, n), "b": rng.standard_normal(n)})
    cases = {
        "range": pdf,
        "range_offset": pdf.set_axis(pd.RangeIndex(10, 10 + 3 * n, 3, name="r")),
        "named": pdf.set_index(pd.Index([f"k{i}" for i in range(n)], name="key")),
        "unnamed": pdf.set_axis(pd.Index(rng.permutation(n) * 2)),
        "multi": pdf.set_index([pd.Index(rng.integers(0, 3, n), name="x"),
                                pd.Index(rng.integers(0, 3, n), name="y")]),
    }
    for what, frame in cases.items():
        path = str(tmp_path / f"{what}.parquet")
        frame.to_parquet(path, engine="pyarrow")
        assert_frame_like(zb.read_parquet(path), pd.read_parquet(path), what)
        assert_frame_like(zb.read_parquet(path, columns=["b"]),
                          pd.read_parquet(path, columns=["b"]), what + " columns")


@needs_zstd
def test_written_by_polars(tmp_path):
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(2)
    n = 500
    df = pl.DataFrame({
        "i": pl.Series(rng.integers(-1000, 1000, n)),
        "f": pl.Series(rng.standard_normal(n)),
        "s": pl.Series([None if i % 7 == 0 else f"s{i % 13}" for i in range(n)]),
        "b": pl.Series([None if i % 5 == 0 else i % 2 == 0 for i in range(n)]),
        "u": pl.Series(rng.integers(0, 200, n), dtype=pl.UInt16),
    })
    path = str(tmp_path / "polars.parquet")
    df.write_parquet(path, row_group_size=128)  # polars' default codec: zstd
    assert_frame_like(zb.read_parquet(path), _expected(pq.read_table(path)), "polars")


def _good_file(tmp_path):
    path = str(tmp_path / "good.parquet")
    pq.write_table(_random_table(200, seed=9), path, compression="none", row_group_size=100)
    with open(path, "rb") as f:
        return path, bytearray(f.read())


def _expect_error(tmp_path, data, match=None):
    path = str(tmp_path / "bad.parquet")
    with open(path, "wb") as f:
        f.write(bytes(data))
    with pytest.raises(ZambeziError, match=match):
        zb.read_parquet(path)


def test_corrupt_files_raise(tmp_path):
    path, data = _good_file(tmp_path)
    _expect_error(tmp_path, b"", "not a Parquet file")
    _expect_error(tmp_path, b"PAR1not parquet at all", "not a Parquet file")
    # truncated anywhere: the footer is gone
    for cut in [len(data) // 3, len(data) - 9, len(data) - 1]:
        _expect_error(tmp_path, data[:cut], "bad.parquet")
    # a footer length that lies
    bad = bytearray(data)
    bad[-8:-4] = (len(data)).to_bytes(4, "little")
    _expect_error(tmp_path, bad, "footer")


def test_flipped_bytes_never_crash(tmp_path):
    """Bytes of the footer and of the first page headers, flipped one at
    a time: each read either raises ZambeziError or returns a frame (a
    flipped value byte is still a valid file).  Every byte of smaller files
    is flipped by the C tests (tests/c/test_parquet.c, also under ASan)."""
    path, data = _good_file(tmp_path)
    flen = int.from_bytes(data[-8:-4], "little")
    footer = range(len(data) - 8 - flen, len(data) - 8)
    positions = list(footer)[::9] + list(range(4, 60))
    bad_path = str(tmp_path / "flip.parquet")
    raised = 0
    for pos in positions:
        bad = bytearray(data)
        bad[pos] ^= 0xFF
        with open(bad_path, "wb") as f:
            f.write(bytes(bad))
        try:
            zb.read_parquet(bad_path)
        except ZambeziError as e:
            raised += 1
            assert "flip.parquet" in str(e) or "Parquet" in str(e), str(e)
    assert raised > len(positions) // 4


def test_error_names_column_and_row_group(tmp_path):
    """A page header whose sizes lie: the message names the column and row
    group."""
    path = str(tmp_path / "one.parquet")
    pq.write_table(pa.table({"x": pa.array(np.arange(1000, dtype="int64"))}), path,
                   compression="none", use_dictionary=False, row_group_size=1000)
    meta = pq.ParquetFile(path).metadata.row_group(0).column(0)
    with open(path, "rb") as f:
        data = bytearray(f.read())
    # the page header starts the chunk: field 2 (uncompressed size) and 3
    # (compressed size) are zigzag varints; bump the compressed size
    start = meta.data_page_offset
    hdr = bytes(data[start:start + 16])
    i = hdr.index(0x15) + 1          # field 1 (type, i32) ... find field 2
    assert hdr[0] == 0x15            # delta 1, type i32: page type
    # rewrite the whole chunk's first header size bytes into a huge length
    j = 2                            # after type byte 0x15 and its value 0x00
    assert hdr[j] == 0x15            # field 2: uncompressed size
    k = j + 1
    while hdr[k] & 0x80:
        k += 1
    assert hdr[k + 1] == 0x15        # field 3: compressed size
    data[start + k + 2] |= 0x80      # its varint grows: a much larger size
    data[start + k + 3] = 0x7F
    del i
    _expect_error(tmp_path, data, r"column 'x', row group 0")


def _zigzag_varint(v):
    z, out = v << 1, bytearray()
    while True:
        out.append((z & 0x7F) | (0x80 if z > 0x7F else 0))
        z >>= 7
        if not z:
            return bytes(out)


def test_footer_row_count_checked_against_pages(tmp_path):
    """A footer that claims more rows than its pages hold, consistently in
    the file's, the row group's and the chunk's counts: the column is not
    sized from the claim. A constant column stores 200,000 rows in a few
    hundred bytes, so its pages are counted before the read trusts it."""
    path = str(tmp_path / "const.parquet")
    n = 200_000
    pq.write_table(pa.table({"x": pa.array(np.full(n, 7, dtype="int64"))}), path,
                   compression="none", write_statistics=False)
    with open(path, "rb") as f:
        data = bytearray(f.read())
    assert zb.read_parquet(path)["x"].sum() == 7 * n  # the honest file reads
    flen = int.from_bytes(data[-8:-4], "little")
    start = len(data) - 8 - flen
    footer = bytes(data[start:-8])
    old, new = _zigzag_varint(n), _zigzag_varint(1_000_000)
    # the file, row group and chunk counts (and the page encoding statistics)
    assert len(old) == len(new) == 3 and footer.count(old) >= 3
    data[start:-8] = footer.replace(old, new)
    _expect_error(tmp_path, data,
                  r"column 'x', row group 0: the footer says 1000000 values, "
                  r"the pages hold 200000")


def test_unsupported_types_name_the_column(tmp_path):
    path = str(tmp_path / "nested.parquet")
    pq.write_table(pa.table({"ok": [1, 2], "st": [{"x": 1}, {"x": 2}]}), path)
    with pytest.raises(UnsupportedError, match="'st' is a struct"):
        zb.read_parquet(path)
    assert zb.read_parquet(path, columns=["ok"]).to_dict("list") == {"ok": [1, 2]}
    path = str(tmp_path / "bin.parquet")
    pq.write_table(pa.table({"raw": pa.array([b"\x00\xff"], pa.binary())}), path)
    with pytest.raises(UnsupportedError, match="raw"):
        zb.read_parquet(path)
    path = str(tmp_path / "brotli.parquet")
    pq.write_table(pa.table({"g": [1, 2]}), path, compression="brotli")
    with pytest.raises(UnsupportedError, match="column 'g'.*BROTLI"):
        zb.read_parquet(path)


def test_bad_arguments(tmp_path):
    with pytest.raises(ZambeziError):
        zb.read_parquet(str(tmp_path / "missing.parquet"))
    path = str(tmp_path / "t.parquet")
    pq.write_table(pa.table({"a": [1]}), path)
    with pytest.raises(zb.errors.InvalidValueError):
        zb.read_parquet(path, columns="a")
    with pytest.raises(zb.errors.InvalidValueError):
        zb.read_parquet(path, columns=[1])


def test_file_object_and_pathlike(tmp_path):
    path = tmp_path / "t.parquet"
    table = _random_table(60, seed=4)
    pq.write_table(table, str(path), compression="none")
    exp = _expected(pq.read_table(str(path)))
    assert_frame_like(zb.read_parquet(path), exp, "PathLike")
    with open(path, "rb") as f:
        assert_frame_like(zb.read_parquet(f), exp, "file object")


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_delta_and_split_encodings(tmp_path, version):
    table = _random_table(900, seed=11)
    enc = {}
    for name, col in zip(table.column_names, table.columns):
        t = col.type
        if pa.types.is_integer(t) or pa.types.is_timestamp(t):
            enc[name] = "DELTA_BINARY_PACKED"
        elif pa.types.is_floating(t):
            enc[name] = "BYTE_STREAM_SPLIT"
        elif pa.types.is_string(t):
            enc[name] = "DELTA_BYTE_ARRAY" if name == "str" else "DELTA_LENGTH_BYTE_ARRAY"
    # sorted strings share prefixes: DELTA_BYTE_ARRAY's prefix path is taken
    table = table.append_column("sorted_str", pa.array(sorted(
        f"prefix-{i // 7:05d}-{'x' * (i % 5)}" for i in range(900))))
    enc["sorted_str"] = "DELTA_BYTE_ARRAY"
    _roundtrip(tmp_path, table, compression="none", data_page_version=version,
               use_dictionary=False, column_encoding=enc, data_page_size=1024,
               row_group_size=400)


def test_int96_timestamps(tmp_path):
    rng = np.random.default_rng(7)
    ns = rng.integers(-2**62, 2**62, 500)
    ns[::50] = 0
    table = pa.table({"t": pa.array(ns, mask=rng.random(500) < 0.2).view(pa.timestamp("ns"))})
    for dictionary in [True, False]:
        _roundtrip(tmp_path, table, compression="none", use_deprecated_int96_timestamps=True,
                   use_dictionary=dictionary, data_page_size=256)
    assert pq.ParquetFile(str(tmp_path / "t.parquet")).schema.column(0).physical_type == "INT96"


def test_pandas_categorical_metadata(tmp_path):
    rng = np.random.default_rng(12)
    n = 200
    words = np.array(["delta", "alpha", "kariba", "chobe"])
    s = pd.Series(words[rng.integers(0, 4, n)]).where(rng.random(n) > 0.2)
    pdf = pd.DataFrame({"c": s.astype("category"), "plain": s, "x": np.arange(n)})
    path = str(tmp_path / "cat.parquet")
    pdf.to_parquet(path, engine="pyarrow", row_group_size=64)
    assert_frame_like(zb.read_parquet(path), pd.read_parquet(path), "categorical")


@needs_zlib
@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_gzip(tmp_path, version):
    _roundtrip(tmp_path, _random_table(700, seed=21), compression="gzip",
               data_page_version=version, data_page_size=2048, row_group_size=300)


def _chunk_end(path, column):
    meta = pq.ParquetFile(path).metadata.row_group(0).column(column)
    start = meta.dictionary_page_offset or meta.data_page_offset
    return start + meta.total_compressed_size


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_page_checksums(tmp_path, version):
    path = str(tmp_path / "crc.parquet")
    table = _random_table(500, seed=22)
    pq.write_table(table, path, write_page_checksum=True, compression="none",
                   data_page_version=version, data_page_size=1024)
    assert_frame_like(zb.read_parquet(path), _expected(pq.read_table(path)), "crc")
    # one flipped bit in the last page of column 'float64': pyarrow and we refuse it
    data = bytearray(open(path, "rb").read())
    k = table.column_names.index("float64")
    data[_chunk_end(path, k) - 3] ^= 0x10
    bad = str(tmp_path / "bad.parquet")
    open(bad, "wb").write(bytes(data))
    with pytest.raises(OSError, match="CRC"):
        pq.read_table(bad, page_checksum_verification=True)
    with pytest.raises(ParseError, match=r"bad.parquet': column 'float64', row group 0: page "
                       r"checksum mismatch"):
        zb.read_parquet(bad)
    # the other columns are still readable
    assert_frame_like(zb.read_parquet(bad, columns=["int8"]),
                      _expected(pq.read_table(path, columns=["int8"])), "crc int8")


def _row_groups_read(path, **kw):
    with zb.profile() as p:
        got = zb.read_parquet(path, **kw)
    recs = [r for r in p.records if r.op == "read_parquet_row_groups"]
    assert len(recs) == 1
    read, total = [int(w) for w in recs[0].reason.split()[:3:2]]
    return got, read, total


@pytest.mark.parametrize("filters, expect_read", [
    ([("i", ">=", 350)], 2),                       # row groups 3 and 4 (rows 300..499)
    ([("i", "<", 100)], 1),
    ([("i", "==", 250)], 1),
    ([("i", "in", [5, 450])], 2),
    ([("i", ">", 10**6)], 0),
    ([("f", "<=", 49.5)], 1),                      # a float column, an int-valued float
    ([("s", "==", "k0120")], 1),                   # strings: byte order
    ([("s", ">", "k0399")], 1),
    ([[("i", "<", 100)], [("i", ">=", 400)]], 2),  # either group
    ([("i", "<", 100), ("s", ">", "k0050")], 1),
    ([("u", ">", 1000)], 1),                       # uint64 statistics past 2^63
    ([("allnull", "<=", 50)], 1),                  # a group of nulls only matches nothing
    ([("g", "!=", 7)], 4),                         # one row group holds only 7
    ([("g", "not in", [7])], 4),
    ([("n", "not in", [7])], 5),                   # nulls pass "not in": nothing pruned
    ([("ts", ">", pd.Timestamp("2030-01-01"))], 5),  # timestamps are not pruned
])
def test_filters_prune_row_groups(tmp_path, filters, expect_read):
    n = 500
    i = np.arange(n)
    table = pa.table({
        "i": pa.array(i, pa.int64()),
        "f": pa.array(i / 2, pa.float64()),
        "s": pa.array([f"k{v:04d}" for v in i]),
        "u": pa.array(np.where(i < 100, 2**64 - 1, i).astype("uint64")),
        "allnull": pa.array([None] * 100 + list(range(400)), pa.int32()),
        "g": pa.array(np.where(i < 100, 7, i % 5), pa.int16()),
        "n": pa.array([7 if v % 2 else None for v in i], pa.int64()),
        "ts": pa.array(i * 10**9, pa.timestamp("ns")),
    })
    path = str(tmp_path / "groups.parquet")
    pq.write_table(table, path, row_group_size=100, compression="none")
    got, read, total = _row_groups_read(path, filters=filters)
    assert total == 5
    assert read == expect_read
    if filters[0][0] == "u":  # pyarrow casts the column to int64 and fails: pandas' answer
        full = pq.read_table(path).to_pandas(types_mapper=_MASKED.get)
        exp = full[full["u"] > 1000].reset_index(drop=True)
    else:
        exp = pq.read_table(path, filters=filters).to_pandas(types_mapper=_MASKED.get)
    assert_frame_like(got, exp, f"{filters}")


def test_filters_prune_our_own_files(tmp_path):
    df = zb.DataFrame({"k": np.arange(1000) // 10, "v": np.arange(1000) * 0.5})
    path = str(tmp_path / "ours.parquet")
    df.to_parquet(path, row_group_size=250, compression=None)
    got, read, total = _row_groups_read(path, filters=[("k", ">=", 80)], columns=["v"])
    assert (read, total) == (1, 4)
    exp = pq.read_table(path, filters=[("k", ">=", 80)], columns=["v"]).to_pandas()
    assert_frame_like(got, exp, "ours")


@pytest.mark.parametrize("as_integer", [False, True])
def test_decimal_as_float64(tmp_path, as_integer):
    from decimal import Decimal

    rng = np.random.default_rng(31)
    n = 400

    def dec(precision, scale, digits):
        import random

        r = random.Random(digits)
        vals = [Decimal(r.randrange(-10**digits + 1, 10**digits)).scaleb(-scale)
                for _ in range(n)]
        mask = rng.random(n) < 0.2
        return pa.array([None if m else v for v, m in zip(vals, mask)],
                        pa.decimal128(precision, scale))

    table = pa.table({
        "d9": dec(9, 2, 9),        # INT32 when stored as integers
        "d18": dec(18, 6, 18),     # INT64
        "d30": dec(30, 10, 30),    # FIXED_LEN_BYTE_ARRAY(13) always
        "d38": dec(38, 0, 38),
        "few": pa.array([Decimal("1.25"), Decimal("-3.50")] * (n // 2), pa.decimal128(5, 2)),
    })
    path = str(tmp_path / "dec.parquet")
    pq.write_table(table, path, store_decimal_as_integer=as_integer, data_page_size=1024,
                   compression="none")
    phys = {c: pq.ParquetFile(path).schema.column(i).physical_type
            for i, c in enumerate(table.column_names)}
    if as_integer:
        assert phys["d9"] == "INT32" and phys["d18"] == "INT64"
    assert phys["d30"] == "FIXED_LEN_BYTE_ARRAY"
    got = zb.read_parquet(path).to_pandas()
    for name in table.column_names:
        col = got[name]
        assert col.dtype == np.float64, name
        exp = [None if v is None else float(v) for v in table.column(name).to_pylist()]
        assert col.isna().tolist() == [v is None for v in exp], name
        have = col.to_numpy()[~col.isna().to_numpy()]
        want = np.array([v for v in exp if v is not None])
        np.testing.assert_allclose(have, want, rtol=2.3e-16, atol=0, err_msg=name)


def test_float16_and_unsupported_columns(tmp_path):
    v = np.array([0.0, -1.5, 65504.0, 6.1e-5, 1e-7, np.inf, np.nan], dtype=np.float16)
    path = str(tmp_path / "half.parquet")
    pq.write_table(pa.table({"h": pa.array(v, mask=np.array([0, 0, 0, 0, 0, 0, 1], bool))}),
                   path)
    got = zb.read_parquet(path).to_pandas()["h"]
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got.to_numpy()[:6], v[:6].astype(np.float32))
    assert got.isna().tolist() == [False] * 6 + [True]
    for name, arr in [("big", pa.array([1], pa.decimal256(40, 2))),
                      ("st", pa.array([{"a": 1}], pa.struct([("a", pa.int64())]))),
                      ("mp", pa.array([[("k", 1)]], pa.map_(pa.string(), pa.int64()))),
                      ("ls", pa.array([[{"a": 1}]], pa.list_(pa.struct([("a", pa.int64())]))))]:
        path = str(tmp_path / f"{name}.parquet")
        pq.write_table(pa.table({"ok": [1], name: arr}), path)
        with pytest.raises(UnsupportedError, match=f"column '{name}'"):
            zb.read_parquet(path)
        assert zb.read_parquet(path, columns=["ok"]).to_dict("list") == {"ok": [1]}


def test_device_reads_on_the_cpu_then_uploads(tmp_path):
    path = str(tmp_path / "dev.parquet")
    table = _random_table(200, seed=41)
    pq.write_table(table, path, compression="none")
    exp = _expected(pq.read_table(path))
    assert_frame_like(zb.read_parquet(path, device="auto"), exp, "auto")
    if not zb.cuda_available():
        with pytest.raises(zb.errors.DeviceError):
            zb.read_parquet(path, device="cuda")
        return
    with zb.profile() as p:
        got = zb.read_parquet(path, device="cuda", filters=[("int64", "!=", 0)])
    assert got.device.startswith("cuda")
    rec = [r for r in p.records if r.op == "read_parquet"]
    assert len(rec) == 1 and rec[0].fallback and rec[0].device == "cpu"
    assert rec[0].data_device == got.device and "uploaded" in rec[0].reason
    exp = pq.read_table(path, filters=[("int64", "!=", 0)]).to_pandas(types_mapper=_MASKED.get)
    assert_frame_like(got.to("cpu"), exp, "cuda")


def test_missing_zlib_is_a_clear_error(tmp_path):
    import subprocess
    import sys

    path = str(tmp_path / "g.parquet")
    pq.write_table(pa.table({"g": [1, 2]}), path, compression="gzip")
    code = ("import zambezi as zb\n"
            "try:\n"
            f"    zb.read_parquet({path!r})\n"
            "except zb.errors.UnsupportedError as e:\n"
            "    print(e)\n"
            "try:\n"
            "    zb.DataFrame({'a': [1]}).to_parquet(None, compression='gzip')\n"
            "except zb.errors.UnsupportedError as e:\n"
            "    print(e)\n")
    env = dict(os.environ, ZAMBEZI_LIBZ=str(tmp_path / "no-libz.so"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120).stdout
    lines = out.strip().splitlines()
    assert len(lines) == 2, out
    assert "column 'g'" in lines[0] and "GZIP" in lines[0] and "zlib1g" in lines[0]
    assert "GZIP" in lines[1] and "zlib1g" in lines[1]
