"""DataFrame.to_parquet: the engine's own Parquet writer.

Frames of every dtype with nulls are written by zambezi and read back by
pyarrow, pandas, polars, duckdb and zb.read_parquet.  The oracle is the
same frame written by pandas (with pyarrow): every reader must see in our
file what it sees in pandas' file (categoricals and time zones included:
our footer holds an ARROW:schema key too), and zb.read_parquet must read
it as pandas reads pandas' file.  Statistics are checked against
min / max / null counts computed with pandas on each row group's rows.
"""

import io
import os
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

import zambezi as zb
from zambezi import _core
from zambezi.errors import InvalidValueError, UnsupportedError

from pandas_compare import assert_frame_like

needs_snappy = pytest.mark.skipif(not _core.snappy_available(),
                                  reason="libsnappy is not installed")
needs_zstd = pytest.mark.skipif(not _core.zstd_available(), reason="libzstd is not installed")
needs_zlib = pytest.mark.skipif(not _core.zlib_available(), reason="zlib is not installed")

# snappy (pandas' and zambezi's default) when libsnappy is here, so that the
# tests that are not about codecs run without it
DEFAULT = "snappy" if _core.snappy_available() else None

CODECS = [pytest.param("snappy", marks=needs_snappy), pytest.param("zstd", marks=needs_zstd),
          pytest.param("gzip", marks=needs_zlib), None]


def _random_pandas(n, seed=0, null_rate=0.2):
    """A pandas frame with a column of every zambezi dtype, random values
    and its own null pattern per column (pandas' masked dtypes for
    integers and booleans with nulls, as zambezi shows them)."""
    rng = np.random.default_rng(seed)

    def mask():
        return rng.random(n) < null_rate

    cols = {}
    for t in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
        info = np.iinfo(t)
        v = rng.integers(info.min, info.max, n, dtype=t, endpoint=True)
        masked = pd.array(v, dtype=t.capitalize().replace("Uint", "UInt"))
        masked[mask()] = pd.NA
        cols[t] = masked
    cols["int64_dense"] = rng.integers(-3, 3, n)
    f32 = rng.standard_normal(n).astype("float32")
    f32[mask()] = np.nan
    cols["float32"] = f32
    f64 = rng.standard_normal(n) * 1e6
    f64[mask()] = np.nan
    cols["float64"] = f64
    b = pd.array(rng.random(n) < 0.5, dtype="boolean")
    b[mask()] = pd.NA
    cols["bool"] = b
    words = np.array(["", "a", "zambezi", "ümlaut", "日本語", "x" * 40], dtype=object)
    s = words[rng.integers(0, len(words), n)]
    s[mask()] = None
    cols["str"] = pd.array(s, dtype="str")
    u = np.array([f"v{i}-{rng.integers(10**9)}" for i in range(n)], dtype=object)
    u[mask()] = None
    cols["str_unique"] = pd.array(u, dtype="str")
    days = rng.integers(-20000, 30000, n).astype("datetime64[D]").astype("datetime64[s]")
    ts = pd.Series(days, dtype="datetime64[s]")
    cols["ts_s"] = ts.where(~mask())
    ns = pd.Series(rng.integers(-10**18, 10**18, n).astype("datetime64[ns]"))
    cols["ts_ns"] = ns.where(~mask())
    us = pd.Series(rng.integers(0, 10**15, n).astype("datetime64[us]")).dt.tz_localize("UTC")
    cols["ts_utc"] = us.where(~mask())
    cols["ts_paris"] = us.dt.tz_convert("Europe/Paris").where(~mask())
    td = pd.Series(rng.integers(-10**12, 10**12, n).astype("timedelta64[us]"))
    cols["td_us"] = td.where(~mask())
    codes = rng.integers(-1, 4, n)  # -1: null
    cols["cat"] = pd.Categorical.from_codes(codes, categories=["q", "b", "k", "unused", "z"])
    return pd.DataFrame(cols)


def _zb(pdf):
    df = zb.DataFrame(pdf)
    if "ts_s" in pdf:  # dates: the days of ts_s
        df["date"] = df["ts_s"].astype("date32")
    return df


def _as_zb_reads(frame):
    """pandas' reading of pandas' file as zb.read_parquet gives it (its
    documented differences): a categorical's categories are the values
    present, sorted."""
    frame = frame.copy()
    for name, dt in frame.dtypes.items():
        if isinstance(dt, pd.CategoricalDtype):
            c = frame[name].cat.remove_unused_categories()
            frame[name] = c.cat.set_categories(pd.Index(sorted(c.cat.categories), dtype="str"))
    return frame


def _pandas_file(tmp_path, frame, name="pandas.parquet", **kw):
    """The oracle: the frame zambezi shows, written by pandas."""
    path = tmp_path / name
    kw.setdefault("compression", DEFAULT)
    frame.to_pandas().to_parquet(path, **kw)
    return path


@pytest.mark.parametrize("compression", CODECS)
def test_every_dtype_with_nulls_every_reader(tmp_path, compression):
    df = _zb(_random_pandas(300, seed=1))
    ours = tmp_path / "ours.parquet"
    # row groups that start inside a byte of the validity bitmaps
    assert df.to_parquet(ours, compression=compression, row_group_size=100) is None
    theirs = _pandas_file(tmp_path, df)
    # pyarrow: the same schema and values as in pandas' file
    t_ours, t_theirs = pq.read_table(ours), pq.read_table(theirs)
    assert t_ours.schema.names == t_theirs.schema.names
    for name in t_ours.schema.names:
        got, exp = t_ours.column(name), t_theirs.column(name)
        if name == "ts_s":  # no second unit in Parquet: pandas' file holds ms too
            assert got.type == pa.timestamp("ms")
        if exp.type == pa.large_string():  # pandas' ARROW:schema asks for large strings
            exp = exp.cast(pa.string())
        assert got.type == exp.type, name
        assert got.equals(exp), name
    # pandas
    exp = pd.read_parquet(theirs)
    pd.testing.assert_frame_equal(pd.read_parquet(ours), exp)
    # zambezi reads it as pandas reads pandas' file
    assert_frame_like(zb.read_parquet(ours), _as_zb_reads(exp), "zb.read_parquet")
    md = pq.ParquetFile(ours).metadata
    assert md.num_row_groups == 3 and md.num_rows == 300
    codec = (compression or "uncompressed").upper()
    assert md.row_group(0).column(0).compression == codec


def test_polars_and_duckdb_read_it(tmp_path):
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    df = _zb(_random_pandas(200, seed=2)).iloc[5:]  # columns that start at an offset
    ours = tmp_path / "ours.parquet"
    df.to_parquet(ours, compression=None, row_group_size=64)
    theirs = _pandas_file(tmp_path, df, compression=None)
    a, b = pl.read_parquet(ours), pl.read_parquet(theirs)
    assert a.schema == b.schema
    assert a.equals(b)
    q = "select * from '{}'"
    pd.testing.assert_frame_equal(duckdb.sql(q.format(ours)).df(),
                                  duckdb.sql(q.format(theirs)).df())
    # pruning by statistics: a filter duckdb answers
    n = duckdb.sql(f"select count(*) from '{ours}' where int64_dense >= 2").fetchall()[0][0]
    assert n == int((df.to_pandas()["int64_dense"] >= 2).sum())


def _first_page_type(path, rg=0, col=0):
    """The page type (parquet.thrift PageType) of a column chunk's first
    data page, read from the file's bytes: the page header's field 1."""
    meta = pq.ParquetFile(path).metadata.row_group(rg).column(col)
    with open(path, "rb") as f:
        f.seek(meta.data_page_offset)
        head = f.read(2)
    assert head[0] == 0x15  # field 1, i32
    return head[1] >> 1     # zigzag of a small non-negative value


@pytest.mark.parametrize("compression", CODECS)
def test_data_page_v2_every_reader(tmp_path, compression):
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    df = _zb(_random_pandas(300, seed=12)).iloc[3:]
    ours, v1 = tmp_path / "v2.parquet", tmp_path / "v1.parquet"
    df.to_parquet(ours, compression=compression, row_group_size=100, data_page_version="2.0")
    df.to_parquet(v1, compression=compression, row_group_size=100)
    assert _first_page_type(ours) == 3 and _first_page_type(v1) == 0  # DATA_PAGE_V2 / DATA_PAGE
    theirs = _pandas_file(tmp_path, df, compression=None)
    t_ours, t_theirs = pq.read_table(ours), pq.read_table(theirs)
    for name in t_ours.schema.names:
        exp = t_theirs.column(name)
        if exp.type == pa.large_string():
            exp = exp.cast(pa.string())
        assert t_ours.column(name).equals(exp), name
    pd.testing.assert_frame_equal(pd.read_parquet(ours), pd.read_parquet(theirs))
    assert pl.read_parquet(ours).equals(pl.read_parquet(theirs))
    q = "select * from '{}'"
    pd.testing.assert_frame_equal(duckdb.sql(q.format(ours)).df(),
                                  duckdb.sql(q.format(theirs)).df())
    assert_frame_like(zb.read_parquet(ours), _as_zb_reads(pd.read_parquet(theirs)), "v2")


@needs_zlib
def test_gzip_level(tmp_path):
    df = _zb(_random_pandas(400, seed=13))
    fast, best = tmp_path / "g1.parquet", tmp_path / "g9.parquet"
    df.to_parquet(fast, compression="gzip", compression_level=1)
    df.to_parquet(best, compression="gzip", compression_level=9)
    assert pq.ParquetFile(best).metadata.row_group(0).column(0).compression == "GZIP"
    assert pq.read_table(fast).equals(pq.read_table(best))
    assert os.path.getsize(best) <= os.path.getsize(fast)


def _pa_value(v):
    return v.timestamp() if hasattr(v, "timestamp") else v


@pytest.mark.parametrize("rows", [100, 7])
def test_statistics_per_row_group(tmp_path, rows):
    pdf = _random_pandas(250, seed=3, null_rate=0.3)
    df = _zb(pdf)
    path = tmp_path / "s.parquet"
    df.to_parquet(path, row_group_size=rows, compression=DEFAULT)
    md = pq.ParquetFile(path).metadata
    shown = df.to_pandas()
    names = list(shown.columns)
    assert md.num_row_groups == -(-250 // rows)
    for g in range(md.num_row_groups):
        part = shown.iloc[g * rows:(g + 1) * rows]
        for k, name in enumerate(names):
            st = md.row_group(g).column(k).statistics
            col = part[name]
            assert st.null_count == int(col.isna().sum()), (g, name)
            if name == "cat":  # as pyarrow: over the categories
                assert (st.min, st.max) == ("b", "z")
                continue
            valid = col.dropna()
            if len(valid) == 0:
                assert not st.has_min_max, (g, name)
                continue
            assert st.has_min_max, (g, name)
            lo, hi = valid.min(), valid.max()
            if name == "date":
                assert (st.min, st.max) == (lo, hi), (g, name)
            elif name.startswith("ts"):
                assert _pa_value(pd.Timestamp(st.min)) == pytest.approx(lo.timestamp())
                assert _pa_value(pd.Timestamp(st.max)) == pytest.approx(hi.timestamp())
            elif name.startswith("float"):
                assert st.min == pytest.approx(float(lo)) and st.max == pytest.approx(float(hi))
            elif name.startswith("td"):  # plain INT64 statistics in the column's unit
                unit = pd.Timedelta(1, unit=name[3:])
                assert (st.min, st.max) == (lo // unit, hi // unit), (g, name)
            else:
                assert st.min == lo and st.max == hi, (g, name)


def test_float_statistics_skip_nan_and_sign_of_zero(tmp_path):
    df = zb.DataFrame({"x": [np.nan, 0.0, 2.5, -0.0], "y": [np.nan, np.nan, np.nan, np.nan]})
    path = tmp_path / "f.parquet"
    df.to_parquet(path, compression=DEFAULT)
    st = pq.ParquetFile(path).metadata.row_group(0).column(0).statistics
    assert (st.min, st.max) == (0.0, 2.5) and np.signbit(st.min)
    st = pq.ParquetFile(path).metadata.row_group(0).column(1).statistics
    assert not st.has_min_max and st.null_count == 4


def test_strings_dictionary_and_plain_fallback(tmp_path):
    rng = np.random.default_rng(4)
    few = rng.choice(["red", "green", "blue"], 3000)
    many = np.array([f"{i:06d}" + "y" * 500 for i in range(3000)], dtype=object)
    many[::7] = None
    long_ = np.full(3000, "s", dtype=object)
    long_[::150] = "L" * 100_000
    long_[7::300] = "ß" * 30_000
    long_[rng.random(3000) < 0.1] = None
    pdf = pd.DataFrame({"few": pd.array(few, dtype="str"), "many": pd.array(many, dtype="str"),
                        "long": pd.array(long_, dtype="str")})
    df = _zb(pdf)
    path = tmp_path / "s.parquet"
    df.to_parquet(path, compression=DEFAULT)
    col = pq.ParquetFile(path).metadata.row_group(0)
    assert "RLE_DICTIONARY" in col.column(0).encodings and col.column(0).has_dictionary_page
    # 1.5 MB of distinct values: more than a dictionary page may hold
    assert "RLE_DICTIONARY" not in col.column(1).encodings
    assert not col.column(1).has_dictionary_page
    pd.testing.assert_frame_equal(pd.read_parquet(path), pdf)
    assert_frame_like(zb.read_parquet(path), pdf, "strings")


def test_categorical(tmp_path):
    rng = np.random.default_rng(5)
    cats = ["delta", "alpha", "charlie", "bravo"]
    codes = rng.integers(-1, 4, 400)
    pdf = pd.DataFrame({"c": pd.Categorical.from_codes(codes, categories=cats)})
    df = _zb(pdf)
    path = tmp_path / "c.parquet"
    df.to_parquet(path, compression=DEFAULT)
    chunk = pq.ParquetFile(path).metadata.row_group(0).column(0)
    assert chunk.has_dictionary_page and "RLE_DICTIONARY" in chunk.encodings
    meta = pq.read_schema(path).pandas_metadata
    assert meta["columns"][0]["pandas_type"] == "categorical"
    # the values, as strings, for pyarrow
    exp = pdf["c"].astype(object).where(pdf["c"].notna(), None).tolist()
    assert pq.read_table(path).column("c").to_pylist() == exp
    got = zb.read_parquet(path).to_pandas()["c"]
    assert got.dtype == "category"
    assert got.astype(object).where(got.notna(), None).tolist() == exp


@pytest.mark.parametrize("kind", ["range", "named", "multi", "index_true", "index_false"])
def test_index_kinds(tmp_path, kind):
    pdf = _random_pandas(40, seed=6)[["int32", "str", "float64"]]
    index = None
    if kind == "range":
        pdf.index = pd.RangeIndex(10, 90, 2, name="r")
    elif kind == "named":
        pdf.index = pd.Index(np.random.default_rng(6).permutation(40) * 3, name="key")
    elif kind == "multi":
        pdf.index = pd.MultiIndex.from_arrays(
            [np.repeat(["a", "b"], 20), np.tile(np.arange(20), 2)], names=["k1", None])
    elif kind == "index_true":
        pdf.index = pd.RangeIndex(5, 45)
        index = True
    else:
        pdf.index = pd.Index(np.arange(40) * 2, name="dropped")
        index = False
    df = _zb(pdf)
    ours, theirs = tmp_path / "ours.parquet", tmp_path / "theirs.parquet"
    df.to_parquet(ours, index=index, compression=DEFAULT)
    df.to_pandas().to_parquet(theirs, index=index, compression=DEFAULT)
    assert pq.read_schema(ours).names == pq.read_schema(theirs).names
    got, exp = pd.read_parquet(ours), pd.read_parquet(theirs)
    pd.testing.assert_frame_equal(got, exp)
    assert_frame_like(zb.read_parquet(ours), exp, f"index {kind}")


def test_empty_and_zero_column_frames(tmp_path):
    pdf = _random_pandas(0, seed=7)
    df = _zb(pdf)
    path = tmp_path / "e.parquet"
    df.to_parquet(path, compression=DEFAULT)
    theirs = _pandas_file(tmp_path, df)
    assert pq.read_table(path).schema.names == pq.read_table(theirs).schema.names
    exp = pd.read_parquet(theirs)
    pd.testing.assert_frame_equal(pd.read_parquet(path), exp)
    assert_frame_like(zb.read_parquet(path), _as_zb_reads(exp), "empty")
    nocols = zb.DataFrame({"a": [1, 2, 3]})[[]]
    nocols.to_parquet(path, compression=DEFAULT)
    assert pq.read_table(path).num_rows == 3
    assert pd.read_parquet(path).shape == (3, 0)
    assert zb.read_parquet(path).shape == (3, 0)


@needs_zstd
def test_bytes_file_objects_and_zstd_level(tmp_path):
    df = _zb(_random_pandas(120, seed=8))
    exp = _as_zb_reads(pd.read_parquet(_pandas_file(tmp_path, df)))
    data = df.to_parquet(compression=DEFAULT)
    assert isinstance(data, bytes) and data[:4] == b"PAR1" and data[-4:] == b"PAR1"
    buf = io.BytesIO()
    df.to_parquet(buf, compression="zstd", compression_level=19)
    small = buf.getvalue()
    assert pq.ParquetFile(io.BytesIO(small)).metadata.row_group(0).column(0).compression \
        == "ZSTD"
    assert_frame_like(zb.read_parquet(io.BytesIO(small)), exp, "bytes")
    assert_frame_like(zb.read_parquet(io.BytesIO(data)), exp, "bytes")


def test_bad_arguments(tmp_path):
    df = zb.DataFrame({"a": [1, 2]})
    path = tmp_path / "x.parquet"
    with pytest.raises(InvalidValueError, match="compression 'lzma'"):
        df.to_parquet(path, compression="lzma")
    with pytest.raises(UnsupportedError, match="BROTLI"):
        df.to_parquet(path, compression="brotli")
    with pytest.raises(InvalidValueError, match="data_page_version"):
        df.to_parquet(path, data_page_version="3.0", compression=DEFAULT)
    with pytest.raises(InvalidValueError, match="gzip compression_level"):
        df.to_parquet(path, compression="gzip", compression_level=12)
    with pytest.raises(InvalidValueError, match="row_group_size"):
        df.to_parquet(path, row_group_size=0, compression=DEFAULT)
    with pytest.raises(InvalidValueError, match="compression_level"):
        df.to_parquet(path, compression="snappy", compression_level=3)
    with pytest.raises(InvalidValueError, match="index"):
        df.to_parquet(path, index="yes", compression=DEFAULT)
    with pytest.raises(InvalidValueError, match="no column"):
        df.to_parquet(tmp_path / "d", partition_cols=["a"], compression=DEFAULT)
    with pytest.raises(zb.errors.ColumnNotFoundError, match="'b'"):
        df.to_parquet(tmp_path / "d", partition_cols=["b"], compression=DEFAULT)
    with pytest.raises(UnsupportedError, match="storage_options"):
        df.to_parquet(path, storage_options={}, compression=DEFAULT)
    with pytest.raises(OSError, match="cannot create"):
        df.to_parquet(tmp_path / "no" / "such" / "dir.parquet", compression=DEFAULT)


# ---- datasets: several files, hive partitions, filters (zb.read_parquet) ----

def _random_small(n, seed):
    pdf = _random_pandas(n, seed=seed)[["int32", "float64", "str", "bool", "int64_dense"]]
    return pdf


def test_read_list_glob_and_directory(tmp_path):
    parts = [_random_small(30 + 10 * i, seed=20 + i) for i in range(3)]
    d = tmp_path / "many"
    d.mkdir()
    paths = []
    for i, p in enumerate(parts):
        paths.append(d / f"part-{i}.parquet")
        _zb(p).to_parquet(paths[-1], compression=DEFAULT)
    (d / "_SUCCESS").write_text("")  # skipped, as pyarrow skips it
    exp = pd.read_parquet(d)
    assert_frame_like(zb.read_parquet(d), exp, "directory")
    assert_frame_like(zb.read_parquet(str(d / "part-*.parquet")), exp, "glob")
    got = zb.read_parquet([paths[2], paths[0]], columns=["str", "int32"])
    exp = pd.read_parquet([str(paths[2]), str(paths[0])], columns=["str", "int32"])
    assert_frame_like(got, exp, "list")


def test_read_hive_partitions(tmp_path):
    pdf = _random_small(120, seed=30)
    pdf["part_s"] = np.random.default_rng(30).choice(["a", "b", "c"], 120)
    pdf["part_n"] = np.random.default_rng(31).integers(0, 3, 120)
    pdf.to_parquet(tmp_path / "hive", partition_cols=["part_s", "part_n"],
                   compression=DEFAULT)
    exp = pd.read_parquet(tmp_path / "hive")
    # pandas makes both keys categoricals; zambezi's categoricals hold
    # strings, so integer keys become int32 (documented)
    exp["part_n"] = exp["part_n"].astype("int32")
    exp["part_s"] = exp["part_s"].astype(pd.CategoricalDtype(
        pd.Index(sorted(exp["part_s"].cat.categories), dtype="str")))
    assert_frame_like(zb.read_parquet(tmp_path / "hive"), exp, "hive")
    got = zb.read_parquet(tmp_path / "hive", columns=["part_n", "int32"],
                          filters=[("part_s", "in", ["a", "c"])])
    want = exp[exp["part_s"].isin(["a", "c"])][["part_n", "int32"]].reset_index(drop=True)
    assert_frame_like(got, want, "hive + filters")


@pytest.mark.parametrize("filters", [
    [("int32", ">", 0)],
    [("int64_dense", "=", 1)],
    [("float64", "<=", 0.5), ("str", "!=", "a")],
    [[("bool", "==", True)], [("int64_dense", "in", [-3, 2])]],
    [("str", "not in", ["", "zambezi"])],
])
def test_read_filters_against_pandas(tmp_path, filters):
    path = tmp_path / "f.parquet"
    _zb(_random_small(200, seed=40)).to_parquet(path, row_group_size=64, compression=DEFAULT)
    exp = pd.read_parquet(path, filters=filters)
    assert_frame_like(zb.read_parquet(path, filters=filters), exp, str(filters))
    got = zb.read_parquet(path, columns=["int32"], filters=filters)
    assert_frame_like(got, pd.read_parquet(path, columns=["int32"], filters=filters), "cols")


def test_read_bad_sources_and_filters(tmp_path):
    path = tmp_path / "x.parquet"
    zb.DataFrame({"a": [1, 2]}).to_parquet(path, compression=DEFAULT)
    with pytest.raises(InvalidValueError, match="operator"):
        zb.read_parquet(path, filters=[("a", "~", 1)])
    with pytest.raises(InvalidValueError, match="column, op, value"):
        zb.read_parquet(path, filters=[("a", 1)])
    with pytest.raises(zb.errors.ColumnNotFoundError, match="'b'"):
        zb.read_parquet(path, filters=[("b", "=", 1)])
    with pytest.raises(FileNotFoundError, match="no files match"):
        zb.read_parquet(str(tmp_path / "nothing-*.parquet"))
    with pytest.raises(InvalidValueError, match="empty list"):
        zb.read_parquet([])


def test_write_partition_cols(tmp_path):
    pdf = _random_small(150, seed=50)
    rng = np.random.default_rng(50)
    keys = np.array(["a", "b", None], dtype=object)[rng.integers(0, 3, 150)]
    pdf["key_s"] = pd.array(keys, dtype="str")
    pdf["key_n"] = rng.integers(0, 2, 150)
    df = _zb(pdf)
    keys2 = ["key_s", "key_n"]
    df.to_parquet(tmp_path / "ours", partition_cols=keys2, compression=DEFAULT)
    df.to_pandas().to_parquet(tmp_path / "theirs", partition_cols=keys2, compression=DEFAULT)
    dirs = sorted(str(p.relative_to(tmp_path / "ours").parent)
                  for p in (tmp_path / "ours").rglob("*.parquet"))
    assert dirs == sorted(str(p.relative_to(tmp_path / "theirs").parent)
                          for p in (tmp_path / "theirs").rglob("*.parquet"))
    # pyarrow cannot read a null partition back ("cannot unify dictionaries
    # with nulls"): zambezi reads both datasets, pandas' being the oracle
    exp = zb.read_parquet(tmp_path / "theirs").to_pandas()
    assert exp["key_s"].isna().sum() == (keys == None).sum()  # noqa: E711
    assert_frame_like(zb.read_parquet(tmp_path / "ours"), exp, "partitioned")
    ok = pdf[pdf["key_s"].notna()]
    zb.DataFrame(ok).to_parquet(tmp_path / "ours2", partition_cols=keys2, compression=DEFAULT)
    ok.to_parquet(tmp_path / "theirs2", partition_cols=keys2, compression=DEFAULT)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "ours2"),
                                  pd.read_parquet(tmp_path / "theirs2"))


# partition values pyarrow percent-encodes (every byte but letters, digits
# and "-._~"): a separator, "..", a space, non-ASCII, "=", "%" itself
ODD_VALUES = ["a/b", "x/../../outside", "c d", "é", "x=y", "50%", "%2F", "~ok.-_", "1"]


def test_write_partition_values_percent_encoded(tmp_path):
    pdf = pd.DataFrame({"k": pd.array(ODD_VALUES, dtype="str"),
                        "b": [i % 2 == 0 for i in range(len(ODD_VALUES))],
                        "v": np.arange(len(ODD_VALUES))})
    zb.DataFrame(pdf).to_parquet(tmp_path / "ours", partition_cols=["k", "b"],
                                 compression=DEFAULT)
    pdf.to_parquet(tmp_path / "theirs", partition_cols=["k", "b"], compression=DEFAULT)
    # nothing written beside the two datasets ("x/../../outside" stays one folder)
    assert sorted(os.listdir(tmp_path)) == ["ours", "theirs"]

    def dirs(root):
        return sorted(str(p.relative_to(root).parent) for p in root.rglob("*.parquet"))

    assert dirs(tmp_path / "ours") == dirs(tmp_path / "theirs")
    assert len(dirs(tmp_path / "ours")) == len(ODD_VALUES)
    # pandas reads our dataset as its own: every value decoded back
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "ours").sort_values("v"),
                                  pd.read_parquet(tmp_path / "theirs").sort_values("v"))
    with pytest.raises(InvalidValueError, match="'a/b'"):
        zb.DataFrame({"a/b": [1], "v": [1]}).to_parquet(tmp_path / "bad", partition_cols=["a/b"])


def test_read_partition_values_percent_decoded(tmp_path):
    root = tmp_path / "hive"
    pq.write_to_dataset(pa.table({"k": ODD_VALUES, "v": list(range(len(ODD_VALUES)))}),
                        root, partition_cols=["k"])
    exp = pd.read_parquet(root).sort_values("v").reset_index(drop=True)
    got = zb.read_parquet(root).sort_values("v").reset_index(drop=True)
    assert got["k"].astype("string").to_list() == exp["k"].astype(str).tolist() == ODD_VALUES
    for filters in ([("k", "==", "c d")], [("k", "in", ["a/b", "é", "50%"])],
                    [("k", "!=", "%2F")], [("k", "not in", ["x=y", "1"])]):
        exp = pq.read_table(root, filters=filters).to_pydict()
        got = zb.read_parquet(root, filters=filters)
        assert sorted(got["v"].to_list()) == sorted(exp["v"]), filters
        assert sorted(got["k"].astype("string").to_list()) == sorted(exp["k"]), filters
    # a value not UTF-8 once decoded: pyarrow refuses it too
    for folder in ("k=%C3%28", "k=a"):
        (tmp_path / "bad" / folder).mkdir(parents=True)
        pq.write_table(pa.table({"v": [1]}), tmp_path / "bad" / folder / "f.parquet")
    with pytest.raises(pa.ArrowInvalid):
        pq.read_table(tmp_path / "bad")
    with pytest.raises(InvalidValueError, match="k=%C3%28"):
        zb.read_parquet(tmp_path / "bad")


def test_read_hive_directory_of_one_partition(tmp_path):
    # every file below one key=value folder: the key is still a column
    root = tmp_path / "hive"
    for v in ([1, 2], [3]):
        pq.write_to_dataset(pa.table({"k": ["a"] * len(v), "v": v}), root,
                            partition_cols=["k"])
    exp = pd.read_parquet(root).sort_values("v")
    got = zb.read_parquet(root).sort_values("v")
    assert list(got.columns) == list(exp.columns) == ["v", "k"]
    assert got["k"].astype("string").to_list() == exp["k"].astype(str).tolist()
    pq.write_to_dataset(pa.table({"k": ["b"], "v": [9]}), tmp_path / "one",
                        partition_cols=["k"])
    assert zb.read_parquet(tmp_path / "one")["k"].astype("string").to_list() == \
        pd.read_parquet(tmp_path / "one")["k"].astype(str).tolist() == ["b"]


def test_read_hive_null_partition_filters(tmp_path):
    root = tmp_path / "hive"
    pq.write_to_dataset(pa.table({"k": ["a", None, "b", None], "v": [1, 2, 3, 4]}), root,
                        partition_cols=["k"])
    # ("k", "not in", [None]) alone: pyarrow 26 raises (a list of type null)
    for filters in ([("k", "in", [None, "a"])], [("k", "not in", [None, "b"])],
                    [("k", "not in", ["a"])], [("k", "!=", "a")], [("k", "in", ["b"])]):
        exp = pq.read_table(root, filters=filters).to_pydict()
        got = zb.read_parquet(root, filters=filters).sort_values("v")
        assert got["v"].to_list() == sorted(exp["v"]), filters


@pytest.mark.parametrize("filters", [
    [("k", ">", "a")], [("k", "<=", "b"), ("v", ">", 1)], [("k", ">=", "b")],
    [("k", "<", "c")], [("c", ">", "a")], [("c", "<=", "b"), ("k", "!=", "b")],
])
def test_read_ordering_filters_on_text_partitions_and_dictionaries(tmp_path, filters):
    # pyarrow orders a partition key (a dictionary of its text) and a
    # dictionary column by their values
    root = tmp_path / "hive"
    table = pa.table({"k": ["a", "b", "c", "a", "b", None], "v": [1, 2, 3, 4, 5, 6],
                      "c": pa.array(["x", "b", "a", "c", None, "b"]).dictionary_encode()})
    pq.write_to_dataset(table, root, partition_cols=["k"])
    exp = pq.read_table(root, filters=filters).to_pydict()
    got = zb.read_parquet(root, filters=filters).sort_values("v")
    assert got["v"].to_list() == sorted(exp["v"]), filters


def _same(a, b):
    """Lists equal, NaN equal to NaN and distinct from None."""
    def key(v):
        return "NaN" if isinstance(v, float) and v != v else v
    return [key(v) for v in a] == [key(v) for v in b]


@pytest.mark.parametrize("filters", [
    [("x", "==", 0.0)], [("x", "!=", 0.0)], [("x", "<", 1.0)], [("x", ">", 0.0)],
    [("x", "<=", 1.0)], [("x", ">=", 0.0)], [("x", "!=", np.nan)], [("x", "==", np.nan)],
    [("x", "in", [0.0, np.nan])], [("x", "not in", [0.0])], [("x", "in", [None, 1.0])],
    [("x", "not in", [None])], [("x", "not in", [np.nan])], [("x", "==", None)],
    [("x", "!=", None)], [("i", "in", [None, 1])], [("i", "not in", [None, 1])],
    [("i", "!=", 1)], [("i", "not in", [1])], [("s", "in", [None, "a"])], [("s", "!=", "a")],
    [("d", ">", Decimal("2"))], [("d", "==", Decimal("1.25"))],
    [("d", "in", [Decimal("1.25"), None])], [("d", "!=", Decimal("1.25"))],
    [("i", ">", Decimal("1"))], [("x", "<=", Decimal("1"))],
])
def test_read_filters_nan_null_and_decimal_as_pyarrow(tmp_path, filters):
    path = tmp_path / "f.parquet"
    n = 12
    x = pa.array([np.nan, 1.0, 0.0, None, 0.0, 0.0, np.nan, 1.0, None, 0.0, 0.5, np.nan])
    i = pa.array([1, None, 3, 0, 1, None, 2, 1, 0, None, 5, 1])
    s_ = pa.array(["a", None, "b", "c", "a", None, "a", "b", None, "c", "a", "b"])
    d = pa.array([Decimal("1.25"), Decimal("2.50"), None, Decimal("0.10")] * 3,
                 pa.decimal128(9, 2))
    table = pa.table({"x": x, "i": i, "s": s_, "d": d, "r": range(n)})
    pq.write_table(table, path)
    # the oracle reads one row group: pyarrow 26 prunes row groups of a
    # file like the next one wrongly for ("x", "in", [0.0, nan])
    exp = pq.read_table(path, filters=filters).to_pydict()
    # row groups of two rows ([0.0, 0.0], [nan, 1.0], [None, 0.0], ...):
    # zambezi's pruning by statistics must keep what passes
    pq.write_table(table, tmp_path / "groups.parquet", row_group_size=2)
    for got in (zb.read_parquet(path, filters=filters),
                zb.read_parquet(tmp_path / "groups.parquet", filters=filters)):
        assert got["r"].to_list() == exp["r"], filters
        assert _same(got["x"].to_list(), exp["x"])
        assert got["i"].to_list() == exp["i"]
        assert got["s"].to_list() == exp["s"]
        assert _same(got["d"].to_list(), [None if v is None else float(v) for v in exp["d"]])


def test_read_hive_filters_skip_files(tmp_path, monkeypatch):
    pdf = _random_small(90, seed=60)
    pdf["part_n"] = np.repeat([1, 2, 3], 30)
    pdf.to_parquet(tmp_path / "hive", partition_cols=["part_n"], compression=DEFAULT)
    read = []
    from zambezi.io import parquet as zpq
    real = zpq._read_one
    monkeypatch.setattr(zpq, "_read_one", lambda p, c, f=None: read.append(p) or real(p, c, f))
    filters = [[("part_n", ">=", 2), ("int32", ">", 0)], [("part_n", "in", [3])]]
    got = zb.read_parquet(tmp_path / "hive", filters=filters)
    assert len(read) == 2 and all("part_n=1" not in str(p) for p in read)
    exp = pd.read_parquet(tmp_path / "hive", filters=filters)
    exp["part_n"] = exp["part_n"].astype("int32")
    assert_frame_like(got, exp, "pruned")
    read.clear()
    got = zb.read_parquet(tmp_path / "hive", filters=[("part_n", "=", 7)])
    assert len(read) == 1 and len(got) == 0 and list(got.columns) == list(exp.columns)


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_page_checksums_written(tmp_path, version):
    df = _zb(_random_pandas(300, seed=14))
    path = tmp_path / "crc.parquet"
    df.to_parquet(path, compression=DEFAULT, write_page_checksum=True, row_group_size=100,
                  data_page_version=version)
    plain = tmp_path / "plain.parquet"
    df.to_parquet(plain, compression=DEFAULT, row_group_size=100, data_page_version=version)
    # pyarrow verifies them; the file is the same but for the headers' crc fields
    assert pq.read_table(path, page_checksum_verification=True).equals(pq.read_table(plain))
    assert os.path.getsize(path) > os.path.getsize(plain)
    data = bytearray(path.read_bytes())
    meta = pq.ParquetFile(path).metadata.row_group(1).column(1)
    start = meta.dictionary_page_offset or meta.data_page_offset
    data[start + meta.total_compressed_size - 2] ^= 0x04  # inside the chunk's last page
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(bytes(data))
    with pytest.raises(OSError, match="CRC"):
        pq.read_table(bad, page_checksum_verification=True)
    name = pq.ParquetFile(path).schema_arrow.names[1]
    with pytest.raises(zb.errors.ParseError, match=f"column '{name}', row group 1: page "
                       "checksum mismatch"):
        zb.read_parquet(bad)
