"""CSV reading and writing: zb.read_csv against pandas.read_csv on generated
files, DataFrame.to_csv against pandas.DataFrame.to_csv, round trips of
every dtype with nulls, a corpus of malformed files with the exact error
each gives, chunked reading, compression, encodings and cancellation."""

import csv
import gzip
import io
import math
import os
import random
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from conftest import alloc_bytes
from pandas_compare import assert_frame_like
from zambezi.errors import (
    ColumnNotFoundError,
    EmptyDataError,
    InvalidValueError,
    ParseError,
    ParserWarning,
    UnsupportedError,
    ZambeziOverflowError,
)

SIZES = [0, 1, 2, 1000, 100_001]
SEEDS = [0, 1, 2]


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def _norm(v):
    """A comparable Python value: None for every kind of missing."""
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, (np.floating,)):
        return None if np.isnan(v) else float(v)
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (pd.Timestamp, np.datetime64)):
        return pd.Timestamp(v).isoformat()
    if hasattr(v, "isoformat"):  # datetime.date
        return pd.Timestamp(v).isoformat()
    return v


def _columns(pdf):
    return {str(c): [_norm(v) for v in pdf[c].astype(object).tolist()] for c in pdf.columns}


def assert_same(zdf, pdf):
    got = zdf.to_pandas()
    assert [str(c) for c in got.columns] == [str(c) for c in pdf.columns]
    assert len(got) == len(pdf)
    a, b = _columns(got), _columns(pdf)
    for c in a:
        assert a[c] == b[c], f"column {c!r} differs"


def _rand_str(rng, special=True):
    alphabet = "abcxyz XYZ019" + (',"\n;é中\t' if special else "")
    n = rng.randint(1, 8)
    s = "".join(rng.choice(alphabet) for _ in range(n))
    if s.strip() in ("", "NA", "nan", "null", "None", "NaN", "n/a", "N/A", "NULL"):
        s = "s" + s
    return s


def gen_frame(n, seed, nulls=True):
    """A pandas frame of every CSV-inferable kind, with nulls."""
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    p = 0.1 if nulls else 0.0

    def maybe(v):
        return None if rng.random() < p else v

    ints = [maybe(int(x)) for x in nprng.integers(-10**12, 10**12, n)]
    floats = [maybe(float(x)) for x in nprng.normal(0, 1e3, n) * 10.0 ** nprng.integers(-5, 5, n)]
    bools = [maybe(bool(x)) for x in nprng.integers(0, 2, n)]
    strs = [maybe(_rand_str(rng)) for _ in range(n)]
    dates = [maybe(str(np.datetime64("2000-01-01") + int(x))) for x in nprng.integers(-5000, 5000, n)]
    return pd.DataFrame({"i": pd.array(ints, dtype="Int64"), "f": floats, "b": bools, "s": strs,
                         "d": dates})


def write_pdf_csv(pdf, path, **kw):
    pdf.to_csv(path, index=False, **kw)


# ---------------------------------------------------------------------------
# read_csv against pandas
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("seed", SEEDS)
def test_read_matches_pandas(tmp_path, n, seed):
    pdf = gen_frame(n, seed)
    path = tmp_path / "a.csv"
    write_pdf_csv(pdf, path)
    expected = pd.read_csv(path, parse_dates=["d"] if n else None)
    got = zb.read_csv(path)
    if n >= 1000:
        assert got.dtypes.to_dict() == {"i": "int64", "f": "float64", "b": "bool", "s": "string",
                              "d": "date32"}
    assert_same(got, expected)
    # the same through a file object, bytes and a text file
    assert_same(zb.read_csv(io.BytesIO(path.read_bytes())), expected)
    assert_same(zb.read_csv(path.read_bytes()), expected)
    with open(path, encoding="utf-8", newline="") as f:
        assert_same(zb.read_csv(f), expected)


@pytest.mark.parametrize("threads", [1, 3])
def test_read_thread_counts_identical(tmp_path, threads):
    pdf = gen_frame(100_001, 7)
    path = tmp_path / "a.csv"
    write_pdf_csv(pdf, path)
    zb.set_num_threads(1)
    one = zb.read_csv(path).to_pandas()
    zb.set_num_threads(threads)
    many = zb.read_csv(path).to_pandas()
    pd.testing.assert_frame_equal(one, many)


def _both(tmp_path, text, **kw):
    path = tmp_path / "p.csv"
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    pkw = dict(kw)
    return zb.read_csv(path, **kw), pd.read_csv(path, **pkw)


PARAM_CASES = [
    ("a;b\n1;2\n3;4\n", dict(sep=";")),
    ("a\tb\n1\t2\n3\t4\n", dict(delimiter="\t")),
    ("1,2\n3,4\n", dict(header=None)),
    ("junk\na,b\n1,2\n", dict(header=1)),
    ("1,2\n3,4\n", dict(names=["x", "y"])),
    ("a,b\n1,2\n3,4\n", dict(names=["x", "y"], header=0)),
    ("a,b,c\n1,2,3\n4,5,6\n", dict(usecols=["c", "a"])),
    ("a,b,c\n1,2,3\n4,5,6\n", dict(usecols=[2, 0])),
    ("a,b\n1,2\n3,4\n", dict(dtype={"a": "float64", "b": str})),
    ("a,b\n1,x\n3,y\n", dict(dtype=str)),
    ("a,b\n1,missing\n3,y\n", dict(na_values=["missing"])),
    ("a,b\n1,NA\n3,y\n", dict(keep_default_na=False)),
    ("a,b\n1,NA\n3,-\n", dict(keep_default_na=False, na_values="-")),
    ("# c\n# d\na,b\n1,2\n", dict(skiprows=2)),
    ("a,b\n1,2\n3,4\n5,6\n", dict(nrows=2)),
    ("a,b\n1,'x,y'\n", dict(quotechar="'")),
    ('a,b\n1,"x\\"y"\n', dict(escapechar="\\")),
    ("a,b\n1,2 # note\n# all\n3,4\n", dict(comment="#")),
    ('a;b\n"1.234,5";2\n', dict(sep=";", thousands=".", decimal=",")),
    ("a;b\n1,5;2\n", dict(sep=";", decimal=",")),
    ('a,b\n1,"x\ny"\n2,"p""q"\n', {}),
    # quoted numbers, NA texts and empty strings; quotes dropped from the
    # plain quoted field, decoded in the others; a CRLF after a closing quote
    ('a,b,c\n"1","NA",""\r\n"2.5","x""y","z"\n"3","","q"w\n', {}),
    ('a,b\n"1","2020-01-01"\n"","2020-01-02"\n', dict(parse_dates=["b"])),
    ("a,b\n1,2\n3\n", {}),  # short row: null filled
    ("a,b\r\n1,2\r\n3,4", {}),  # CRLF, no trailing newline
    ("a,b\r1,2\r3,4\r", {}),  # lone CR line ends (classic Mac OS)
    ('a,b\r1,"x\ry"\r\r2,"p""\r"\r3,4', {}),  # ... with CRs quoted, a blank line
    ("a;b\r1;x\\\ry\r2;z\r", dict(sep=";", escapechar="\\")),  # an escaped CR
    ("# c\ra,b\r1,2\r3,4\r", dict(skiprows=1, usecols=["b"])),
    ('a,b\r1,2 #,"x\r3,4\r', dict(comment="#")),  # a quote inside a comment
    ("\ufeffa,b\n1,2\n", {}),  # BOM
    ("a,b\n\n1,2\n  \n3,4\n", {}),  # blank lines
    ("a,a,b\n1,2,3\n", {}),  # duplicate header names
    (",b\n1,2\n", {}),  # empty header name
    ("a,b\n2020-01-01 10:00:00,2\n2020-01-02 00:00:00,3\n", dict(parse_dates=["a"])),
    ("a,b\n2020-01-01,2\n,3\n", dict(parse_dates=["a"])),
]


@pytest.mark.parametrize("text,kw", PARAM_CASES)
def test_read_parameters_match_pandas(tmp_path, text, kw):
    got, expected = _both(tmp_path, text, **kw)
    assert_same(got, expected)


# numbers written several ways: a float column (a), a text column (b), an
# int column whose only floats are NA texts (c), a mixed one (d)
NA_NUMBERS = ("a,b,c,d\n1.0,x,1,-999\n-999.0,y,-999,5\n-999,z,2,-999.00\n-999.00,w,3,7\n"
              "-9.99e2,-999.0,4,8\n1e3,-999,-999.0,9\n1000,-999.00,6,+999\n3.5,q,7,-0999\n"
              "inf,-999.5,8,1000.0\n")


@pytest.mark.parametrize("na_values", [
    ["-999"], [-999], [-999.0], ["-999.0"], ["-999.00"], [1000], ["1e3"], [-999.5],
    ["-999.50"], [999], ["-0999"], -999, [np.int64(-999), "q"], [float("inf")], ["nan"],
])
@pytest.mark.parametrize("keep_default_na", [True, False])
def test_read_na_values_numbers_as_pandas(tmp_path, na_values, keep_default_na):
    got, expected = _both(tmp_path, NA_NUMBERS, na_values=na_values,
                          keep_default_na=keep_default_na)
    assert_same(got, expected)
    kw = dict(na_values=na_values, keep_default_na=keep_default_na, chunksize=3)
    with zb.read_csv(tmp_path / "p.csv", **kw) as ours, \
            pd.read_csv(tmp_path / "p.csv", **kw) as theirs:
        chunks = list(theirs)
        got = list(ours)
        assert len(got) == len(chunks)
        for a, b in zip(got, chunks):
            assert_same(a, b)


@pytest.mark.parametrize("value", [
    "2020-01-01T00:00:00Z", "2020-01-01 05:00:00+01:00", "2020-01-01 00:00:00.123456789",
    "20200102", "2020/01/02", "2020/01/02 10:11", "01/02/2020", "2020-01-01", "hello",
])
@pytest.mark.parametrize("by", ["name", "position"])
def test_parse_dates_layouts_as_pandas(tmp_path, value, by):
    # the engine's ISO parser takes the usual layouts; the others go through
    # to_datetime, and text that is no date stays text, as pandas has it
    text = f"k,a\n1,{value}\n2,\n3,{value}\n"
    got, expected = _both(tmp_path, text, parse_dates=["a"] if by == "name" else [1])
    assert_same(got, expected)
    with zb.read_csv(tmp_path / "p.csv", parse_dates=["a"], chunksize=2) as ours, \
            pd.read_csv(tmp_path / "p.csv", parse_dates=["a"], chunksize=2) as theirs:
        for a, b in zip(list(ours), list(theirs)):
            assert_same(a, b)


def test_parse_dates_text_retry_keeps_other_faults(tmp_path):
    with pytest.raises(zb.errors.ParseError, match="line 3: expected 2 fields"):
        _both(tmp_path, "a,b\n2020/01/02,1\nx,y,z\n", parse_dates=["a"])
    with pytest.raises(zb.errors.InvalidValueError, match="parse_dates"):
        zb.read_csv(b"a,b\n2020-01-01,1\n", parse_dates=[5])


@pytest.mark.parametrize("kw", [
    dict(header=None), dict(header=None, usecols=[2, 0]), dict(names=[10, 20, 30]),
    dict(header=None, dtype={1: "str"}), dict(header=None, parse_dates=[0]),
])
def test_column_labels_without_a_header_are_positions_as_pandas(tmp_path, kw):
    # the labels are the ints pandas gives (0, 1, ... or names=), so that
    # df[0], df[[0, 2]] and rename(columns={0: ...}) find them
    first = ("2020-01-01", "2020-01-02") if "parse_dates" in kw else ("7", "8")
    text = f"{first[0]},x,2.5\n{first[1]},y,3.5\n"
    got, expected = _both(tmp_path, text, **kw)
    pd.testing.assert_index_equal(got.to_pandas().columns, expected.columns)
    assert_same(got, expected)
    with zb.read_csv(tmp_path / "p.csv", chunksize=1, **kw) as ours:
        pd.testing.assert_index_equal(next(iter(ours)).to_pandas().columns, expected.columns)
    first = expected.columns[0]
    assert got[first].to_list() == expected[first].to_list()


def test_lone_cr_line_ends_in_pieces_as_pandas(tmp_path):
    text = "k,v\r" + "".join(f'{i},"a\rb{i}"\r' for i in range(10))
    (tmp_path / "cr.csv").write_bytes(text.encode())
    for kw in (dict(chunksize=3), dict(chunksize=4, nrows=9)):
        with zb.read_csv(tmp_path / "cr.csv", **kw) as ours, \
                pd.read_csv(tmp_path / "cr.csv", **kw) as theirs:
            chunks = list(theirs)
            got = list(ours)
        assert len(got) == len(chunks)
        for a, b in zip(got, chunks):
            assert_same(a, b)


def test_quoting_none_reads_quotes_literally(tmp_path):
    got, expected = _both(tmp_path, 'a,b\n"x,1\n', quoting=csv.QUOTE_NONE)
    assert_same(got, expected)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16",
                                   "uint32", "uint64", "float32", "float64", "bool", "str",
                                   "category"])
def test_read_explicit_dtypes(tmp_path, dtype):
    rng = np.random.default_rng(3)
    if dtype == "bool":
        vals = [str(bool(v)) for v in rng.integers(0, 2, 200)]
    elif dtype in ("str", "category"):
        vals = [f"k{v}" for v in rng.integers(0, 9, 200)]
    elif dtype.startswith("float"):
        vals = [repr(float(np.dtype(dtype).type(v))) for v in rng.normal(0, 100, 200)]
    else:
        info = np.iinfo(dtype)
        vals = [str(int(v)) for v in rng.integers(info.min, info.max, 200, dtype=dtype,
                                                  endpoint=True)]
    vals[5] = ""
    text = "a\n" + "\n".join(vals) + "\n"
    got = zb.read_csv(text.encode(), dtype={"a": dtype})
    pdtype = {"str": object, "category": "category", "bool": "boolean"}.get(
        dtype, dtype.capitalize().replace("Ui", "UI"))
    expected = pd.read_csv(io.StringIO(text), dtype={"a": pdtype})
    want = {"str": "string"}.get(dtype, dtype)
    assert got.dtypes["a"] == want
    assert_same(got, expected)


# ---------------------------------------------------------------------------
# malformed input: the exact error for each
# ---------------------------------------------------------------------------

MALFORMED = [
    ("ragged", b"a,b\n1,2\n3,4,5\n", {}, ParseError, "CSV line 3: expected 2 fields, saw 3"),
    ("unterminated quote", b'a,b\n1,"abc\n2,3\n', {}, ParseError,
     "CSV line 2: quoted field is not terminated before the end of the input"),
    ("invalid utf-8", b"a,b\n1,2\n1,\xff\xfe\n", {}, ParseError,
     "CSV line 3, column 'b': invalid UTF-8"),
    ("int8 overflow", b"a\n1\n300\n", {"dtype": {"a": "int8"}}, ZambeziOverflowError,
     "CSV line 3, column 'a': value '300' out of range for int8"),
    ("dtype violated", b"a\n1\n\nx\n", {"dtype": {"a": "int64"}}, ParseError,
     "CSV line 4, column 'a': cannot parse 'x' as int64"),
    ("NUL byte", b"a,b\n1,2\n3,\x004\n", {}, ParseError,
     "CSV line 3, character 3: NUL byte in the input"),
    ("empty file", b"", {}, EmptyDataError, "No columns to parse from file"),
    ("only blank lines", b"\n \n", {}, EmptyDataError, "No columns to parse from file"),
    ("unknown usecols", b"a,b\n1,2\n", {"usecols": ["z"]}, ColumnNotFoundError,
     "CSV usecols: no column named 'z'"),
    ("bad cp1252 byte", b"a\n\x81\n", {"encoding": "cp1252"}, ParseError,
     "CSV line 2: byte 0x81 (at offset 2) is not defined in cp1252"),
]


@pytest.mark.parametrize("name,data,kw,exc,message", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_exact_errors(tmp_path, name, data, kw, exc, message):
    path = tmp_path / "bad.csv"
    path.write_bytes(data)
    for src in (path, data):
        with pytest.raises(exc) as info:
            zb.read_csv(src, **kw)
        assert info.value.args[0] == message


def test_ragged_line_number_counts_quoted_newlines():
    with pytest.raises(ParseError, match=r"^CSV line 5: expected 2 fields, saw 3$"):
        zb.read_csv(b'a,b\n1,"x\ny"\n2,3\n4,5,6\n')


def test_unsupported_options_raise():
    with pytest.raises(UnsupportedError):
        zb.read_csv(b"a,b\n", sep="::")
    with pytest.raises(UnsupportedError):
        zb.read_csv(b"a,b\n", usecols=lambda c: True)
    with pytest.raises(UnsupportedError):
        zb.read_csv(b"a,b\n", skiprows=[1])
    with pytest.raises(InvalidValueError):
        zb.read_csv(b"a,b\n", on_bad_lines="ignore")
    with pytest.raises(InvalidValueError):
        zb.read_csv(b"a,b\n1,2\n", names=["x", "x"])


def test_large_single_field(tmp_path):
    big = "x" * 20_000_000
    path = tmp_path / "big.csv"
    path.write_text(f'a,b\n1,"{big}"\n2,y\n')
    df = zb.read_csv(path)
    vals = df["b"].to_list()
    assert len(vals[0]) == 20_000_000 and vals[0] == big and vals[1] == "y"


def test_100mb_single_field(tmp_path):
    """One quoted field of 100 MB holding newlines, CRLFs, separators and
    doubled quotes, between ordinary fields and rows: read whole, with the
    engine's memory bounded by about twice the field (its unquoted copy and
    the column's characters)."""
    unit = 'ab\ncd""ef,gh\r\n'
    raw = unit * (100_000_000 // len(unit))
    path = tmp_path / "huge.csv"
    with open(path, "w", newline="") as f:
        f.write(f'a,b,c\n1,"{raw}",x\n2,y,z\n')
    del raw
    zb._core.alloc_reset_peak()
    base = zb._core.alloc_stats()["host_bytes"]
    df = zb.read_csv(path)
    peak = zb._core.alloc_stats()["host_peak_bytes"] - base
    field = unit.replace('""', '"') * (100_000_000 // len(unit))
    assert len(field) > 90_000_000
    assert peak < 2.5 * len(field)
    assert df.dtypes.to_dict() == {"a": "int64", "b": "string", "c": "string"}
    assert df["a"].to_list() == [1, 2] and df["c"].to_list() == ["x", "z"]
    got = df["b"].to_list()
    assert got[1] == "y" and len(got[0]) == len(field) and got[0] == field


def test_empty_header_only_and_no_trailing_newline(tmp_path):
    df = zb.read_csv(b"a,b\n")
    assert df.shape == (0, 2) and list(df.columns) == ["a", "b"]
    assert df.dtypes.to_dict() == {"a": "string", "b": "string"}
    df = zb.read_csv(b"a,b")
    assert df.shape == (0, 2)
    df = zb.read_csv(b"a,b\n1,x")
    assert df.to_dict("list") == {"a": [1], "b": ["x"]}
    df = zb.read_csv(b"", names=["a", "b"])
    assert df.shape == (0, 2)


def test_on_bad_lines_skip_and_warn():
    data = b"a,b\n1,2\n3,4,5\n6,7\n8,9,10,11\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = zb.read_csv(data, on_bad_lines="skip")
    assert df.to_dict("list") == {"a": [1, 6], "b": [2, 7]}
    with pytest.warns(ParserWarning) as rec:
        df = zb.read_csv(data, on_bad_lines="warn")
    assert df.to_dict("list") == {"a": [1, 6], "b": [2, 7]}
    msgs = [str(w.message) for w in rec if w.category is ParserWarning]
    assert msgs == ["Skipping line 3: expected 2 fields, saw 3",
                    "Skipping line 5: expected 2 fields, saw 4"]
    # from the user's line, as pandas points them (also from a reader in pieces)
    assert {w.filename for w in rec} == {__file__}
    with pytest.warns(ParserWarning) as rec:
        list(zb.read_csv(data, on_bad_lines="warn", chunksize=1))
    assert {w.filename for w in rec} == {__file__}
    expected = pd.read_csv(io.BytesIO(data), on_bad_lines="skip")
    assert_same(df, expected)


# ---------------------------------------------------------------------------
# chunks
# ---------------------------------------------------------------------------

def _concat(chunks):
    frames = [c.to_pandas() for c in chunks]
    return pd.concat(frames, ignore_index=True) if frames else None


@pytest.mark.parametrize("chunksize", [1, 7, 1000, 10**6])
def test_chunks_equal_whole_read(tmp_path, chunksize):
    pdf = gen_frame(3001, 11)
    path = tmp_path / "c.csv"
    write_pdf_csv(pdf, path)
    whole = zb.read_csv(path, dtype={"i": "int64", "f": "float64", "b": "bool",
                                     "s": "str", "d": "date32"})
    with zb.read_csv(path, chunksize=chunksize, dtype={
            "i": "int64", "f": "float64", "b": "bool", "s": "str", "d": "date32"}) as reader:
        chunks = list(reader)
    assert all(len(c) <= chunksize for c in chunks)
    assert sum(len(c) for c in chunks) == 3001
    pd.testing.assert_frame_equal(_concat(chunks), whole.to_pandas())
    # from bytes too, with nrows and header=None
    data = path.read_bytes()
    part = list(zb.read_csv(data, chunksize=chunksize, nrows=1500, header=None, skiprows=1,
                            dtype=str))
    expected = pd.read_csv(io.BytesIO(data), nrows=1500, header=None, skiprows=1, dtype=str)
    got = _concat(part)
    assert len(got) == 1500
    assert _columns(got) == {str(k): v for k, v in _columns(expected).items()}


def test_chunk_errors_and_warnings_name_file_lines():
    data = b"a,b\n1,2\n3,4\n5,6\n7,8,9\n"
    with pytest.raises(ParseError, match=r"^CSV line 5: expected 2 fields, saw 3$"):
        list(zb.read_csv(data, chunksize=2))
    with pytest.warns(ParserWarning, match=r"^Skipping line 5: expected 2 fields, saw 3$"):
        chunks = list(zb.read_csv(data, chunksize=2, on_bad_lines="warn"))
    with pytest.warns(pd.errors.ParserWarning):
        expected = list(pd.read_csv(io.BytesIO(data), chunksize=2, on_bad_lines="warn"))
    assert [len(c) for c in chunks] == [len(c) for c in expected] == [2, 1]
    for got, exp in zip(chunks, expected):
        # pandas numbers the rows of later chunks on; zambezi's start at 0
        assert_frame_like(got, exp.reset_index(drop=True), "chunk")


def test_iterator_get_chunk():
    reader = zb.read_csv(b"a\n1\n2\n3\n4\n5\n", iterator=True)
    assert reader.get_chunk(2).to_dict("list") == {"a": [1, 2]}
    assert reader.read().to_dict("list") == {"a": [3, 4, 5]}
    reader.close()


# ---------------------------------------------------------------------------
# encodings and compression
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("encoding", ["latin-1", "cp1252", "utf-16"])
def test_encodings(tmp_path, encoding):
    text = "name,v\ncafé,1\nGrüße,2\nñandú,3\n"
    if encoding == "cp1252":
        text += "€uro,4\n"
    path = tmp_path / "e.csv"
    path.write_bytes(text.encode(encoding))
    got = zb.read_csv(path, encoding=encoding)
    assert_same(got, pd.read_csv(path, encoding=encoding))
    assert_same(zb.read_csv(path.read_bytes(), encoding=encoding), pd.read_csv(path, encoding=encoding))


def test_gzip_round_trip(tmp_path):
    pdf = gen_frame(1000, 5)
    df = zb.from_pandas(pdf)
    path = tmp_path / "r.csv.gz"
    df.to_csv(path, index=False)
    with gzip.open(path, "rt") as f:
        assert f.read() == df.to_csv(index=False)
    assert_same(zb.read_csv(path), pd.read_csv(path, parse_dates=["d"]))
    chunks = list(zb.read_csv(path, chunksize=300, dtype={"d": "date32"}))
    assert sum(map(len, chunks)) == 1000


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig", "utf-32", "latin-1"])
def test_to_csv_encoding_is_one_stream(tmp_path, encoding):
    # the engine hands its text over in pieces: a byte order mark once
    # (not one per piece), as pandas writes it; many rows make many pieces
    n = 200_000
    word = "café" if encoding == "latin-1" else "é€😀"
    pdf = pd.DataFrame({"a": np.arange(n), "b": [word] * n})
    ours, theirs = tmp_path / "z.csv", tmp_path / "p.csv"
    zb.from_pandas(pdf).to_csv(ours, index=False, encoding=encoding)
    pdf.to_csv(theirs, index=False, encoding=encoding)
    assert ours.read_bytes() == theirs.read_bytes()


@pytest.mark.parametrize("ext", ["zip", "tar", "tar.gz", "tar.bz2", "tar.xz"])
def test_archives_of_one_file_as_pandas(tmp_path, ext):
    # pandas writes .zip and .tar(.gz ...) paths as archives holding one
    # file, and reads such archives; zambezi reads pandas' and pandas ours
    pdf = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "é", None]})
    ours, theirs = tmp_path / f"z.csv.{ext}", tmp_path / f"p.csv.{ext}"
    zb.from_pandas(pdf).to_csv(ours, index=False)
    pdf.to_csv(theirs, index=False)
    pd.testing.assert_frame_equal(pd.read_csv(ours), pd.read_csv(theirs))
    assert_same(zb.read_csv(theirs), pd.read_csv(theirs))
    assert_same(zb.read_csv(ours), pd.read_csv(theirs))
    method = "zip" if ext == "zip" else "tar"
    assert_same(zb.read_csv(io.BytesIO(theirs.read_bytes()), compression=method),
                pd.read_csv(theirs))
    if ext == "zip":
        import zipfile

        assert zipfile.ZipFile(ours).namelist() == ["z.csv"]
    else:
        import tarfile

        assert tarfile.open(ours).getnames() == ["z.csv"]
    # the other writers share the archive code
    zb.from_pandas(pdf).to_json(tmp_path / f"z.json.{ext}", orient="records", lines=True)
    pd.testing.assert_frame_equal(
        pd.read_json(tmp_path / f"z.json.{ext}", orient="records", lines=True),
        pd.read_json(io.StringIO(pdf.to_json(orient="records", lines=True)),
                     orient="records", lines=True))


@pytest.mark.parametrize("compression", [
    {"method": "gzip", "compresslevel": 1}, {"method": "bz2", "compresslevel": 1},
    {"method": "xz", "preset": 1}, {"method": "zip", "archive_name": "inner.csv"},
    {"method": "zip", "compresslevel": 1}, {"method": "tar", "mode": "w:gz"},
    {"method": "tar", "mode": "w:xz", "archive_name": "inner.csv"},
])
def test_compression_options_as_pandas(tmp_path, compression):
    # a compression= dict's other keys go to the compressor, as in pandas:
    # the same file bytes where the format holds no time stamp, the same
    # member names and compressed sizes in archives
    pdf = pd.DataFrame({"x": np.arange(3000) % 7, "y": np.arange(3000) * 0.25})
    (tmp_path / "z").mkdir()
    (tmp_path / "p").mkdir()
    ours, theirs = tmp_path / "z" / "data.out", tmp_path / "p" / "data.out"
    zb.from_pandas(pdf).to_csv(ours, index=False, compression=compression)
    pdf.to_csv(theirs, index=False, compression=compression)
    method = compression["method"]
    if method in ("bz2", "xz"):
        assert ours.read_bytes() == theirs.read_bytes()
    pd.testing.assert_frame_equal(pd.read_csv(ours, compression=method),
                                  pd.read_csv(theirs, compression=method))
    if method == "tar":
        import tarfile

        assert tarfile.open(ours).getnames() == tarfile.open(theirs).getnames()
    if method == "zip":
        import zipfile

        z, p = zipfile.ZipFile(ours), zipfile.ZipFile(theirs)
        assert z.namelist() == p.namelist()
        assert z.infolist()[0].compress_size == p.infolist()[0].compress_size


@pytest.mark.parametrize("compression", ["gzip", "bz2", "xz", "zip", "tar",
                                         {"method": "zip", "archive_name": "q.csv"}])
def test_compression_into_file_objects_as_pandas(compression):
    # a binary file object gets the compressed bytes (pandas does so); a
    # text one the text, with pandas' RuntimeWarning that compression has
    # no effect there
    pdf = pd.DataFrame({"a": [1, 2, 3], "b": ["x", None, "é"]})
    zdf = zb.from_pandas(pdf)
    method = compression if isinstance(compression, str) else compression["method"]
    got = {}
    for name, df in (("zambezi", zdf), ("pandas", pdf)):
        b = io.BytesIO()
        df.to_csv(b, compression=compression, index=False)
        got[name] = pd.read_csv(io.BytesIO(b.getvalue()), compression=method)
        j = io.BytesIO()
        df.to_json(j, compression=compression, orient="records", lines=True)
        got[name + " json"] = pd.read_json(io.BytesIO(j.getvalue()), compression=method,
                                           orient="records", lines=True)
        p = io.BytesIO()
        df.to_pickle(p, compression=compression)
        got[name + " pickle"] = zb.read_pickle(io.BytesIO(p.getvalue()), compression=method)
    pd.testing.assert_frame_equal(got["zambezi"], got["pandas"])
    pd.testing.assert_frame_equal(got["zambezi json"], got["pandas json"])
    assert got["zambezi pickle"].to_pandas().equals(pdf)
    assert got["pandas pickle"].equals(pdf)
    for df in (zdf, pdf):
        t = io.StringIO()
        with pytest.warns(RuntimeWarning, match="compression has no effect") as rec:
            df.to_csv(t, compression=compression, index=False)
        assert {w.filename for w in rec} == {__file__}
        assert t.getvalue() == pdf.to_csv(index=False)


def test_archive_of_several_files_is_refused(tmp_path):
    import zipfile

    path = tmp_path / "two.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("a.csv", "a\n1\n")
        z.writestr("b.csv", "a\n2\n")
    with pytest.raises(InvalidValueError, match=r"2 files found in the ZIP file.*a\.csv"):
        zb.read_csv(path)
    with pytest.raises(ValueError, match="Multiple files"):
        pd.read_csv(path)
    with pytest.raises(UnsupportedError, match="appending"):
        zb.DataFrame({"a": [1]}).to_csv(tmp_path / "x.zip", mode="a")


@pytest.mark.parametrize("raw,dtype", [
    (b"a,a,b\n1,2,3\n4,5,6\n", {"a": str}),
    (b"a,a,b\n1,2,3\n4,5,6\n", {"a": str, "a.1": "float64"}),
    (b"a,a,a,a.1\n1,2,3,4\n", {"a": "float64"}),
    (b"a,b,a\n1,2,3\n", {"a.1": str}),
])
def test_dtype_of_a_repeated_header_name_as_pandas(raw, dtype):
    # pandas gives a name's dtype to its renamed repeats too ("a.1"),
    # unless the dict names a repeat itself
    want = pd.read_csv(io.BytesIO(raw), dtype=dtype)
    assert_same(zb.read_csv(raw, dtype=dtype), want)


def test_ascii_encoding_refuses_other_bytes(tmp_path):
    raw = b"a,b\n1,x\n500,\xc3\xa9\n"
    path = tmp_path / "a.csv"
    path.write_bytes(raw)
    for src in (path, raw, io.BytesIO(raw)):
        with pytest.raises(UnicodeDecodeError, match="'ascii' codec can't decode byte 0xc3"):
            zb.read_csv(src, encoding="ascii")
        with pytest.raises(UnicodeDecodeError, match="'ascii' codec can't decode byte 0xc3"):
            pd.read_csv(io.BytesIO(raw), encoding="ascii")
    with pytest.raises(UnicodeDecodeError):
        list(zb.read_csv(path, encoding="ascii", chunksize=1))
    good = b"a,b\n1,x\n"
    assert_same(zb.read_csv(good, encoding="ascii"), pd.read_csv(io.BytesIO(good), encoding="ascii"))


def _zstd_compress(raw, tmp_path, known_size=True):
    """raw compressed by the zstd tool (or the zstandard package): from a
    file the frame records the content size, from a pipe it does not."""
    exe = shutil.which("zstd")
    if exe is not None:
        if known_size:
            src = tmp_path / "raw.bin"
            src.write_bytes(raw)
            cmd = [exe, "-q", "-c", str(src)]
            return subprocess.run(cmd, capture_output=True, check=True).stdout
        return subprocess.run([exe, "-q", "-c"], input=raw, capture_output=True,
                              check=True).stdout
    zstandard = pytest.importorskip("zstandard", reason="neither the zstd tool nor zstandard")
    return zstandard.ZstdCompressor(write_content_size=known_size).compress(raw)


needs_libzstd = pytest.mark.skipif(not zb._core.zstd_available(),
                                   reason="libzstd is not installed")


@needs_libzstd
@pytest.mark.parametrize("known_size", [True, False])
def test_zstd_read_matches_pandas(tmp_path, known_size):
    pdf = gen_frame(3000, 9)
    plain = tmp_path / "z.csv"
    write_pdf_csv(pdf, plain)
    raw = plain.read_bytes()
    packed = _zstd_compress(raw, tmp_path, known_size)
    expected = pd.read_csv(plain, parse_dates=["d"])
    by_ext = tmp_path / "z.csv.zst"
    by_ext.write_bytes(packed)
    by_magic = tmp_path / "z.data"  # no extension: recognised by the magic number
    by_magic.write_bytes(packed)
    for src in (by_ext, str(by_magic), packed, io.BytesIO(packed)):
        assert_same(zb.read_csv(src), expected)
    assert_same(zb.read_csv(by_ext, compression="zstd"), expected)
    # several frames in a row are one stream (zstd -c a b > ab.zst)
    head, tail = raw[:raw.index(b"\n", len(raw) // 2) + 1], raw[raw.index(b"\n", len(raw) // 2) + 1:]
    two = _zstd_compress(head, tmp_path, known_size) + _zstd_compress(tail, tmp_path, known_size)
    assert_same(zb.read_csv(two), expected)


@needs_libzstd
def test_zstd_chunks_and_options(tmp_path):
    pdf = gen_frame(2001, 4)
    plain = tmp_path / "c.csv"
    write_pdf_csv(pdf, plain, sep=";")
    path = tmp_path / "c.csv.zst"
    path.write_bytes(_zstd_compress(plain.read_bytes(), tmp_path))
    dtypes = {"i": "int64", "f": "float64", "b": "bool", "s": "str", "d": "date32"}
    whole = zb.read_csv(plain, sep=";", dtype=dtypes).to_pandas()
    with zb.read_csv(path, sep=";", chunksize=500, dtype=dtypes) as reader:
        chunks = list(reader)
    assert [len(c) for c in chunks] == [500, 500, 500, 500, 1]
    pd.testing.assert_frame_equal(_concat(chunks), whole)
    got = zb.read_csv(path, sep=";", usecols=["s", "i"], nrows=700)
    assert_same(got, pd.read_csv(plain, sep=";", usecols=["s", "i"], nrows=700))


@needs_libzstd
def test_zstd_corrupt_and_truncated(tmp_path):
    raw = b"a,b\n" + b"".join(b"%d,x%d\n" % (i, i * 7) for i in range(20000))
    packed = _zstd_compress(raw, tmp_path)
    path = tmp_path / "t.csv.zst"
    path.write_bytes(packed[: len(packed) * 2 // 3])
    for src in (path, path.read_bytes()):
        with pytest.raises(ParseError, match=r"truncated zstd data: the input ends inside a frame"):
            zb.read_csv(src)
    bad = bytearray(packed)
    bad[len(bad) // 2: len(bad) // 2 + 16] = b"\xff" * 16
    path.write_bytes(bytes(bad))
    for src in (path, bytes(bad)):
        with pytest.raises(ParseError, match=r"corrupt zstd data"):
            zb.read_csv(src)
    path.write_bytes(b"\x28\xb5\x2f\xfd")  # a magic number and nothing else
    with pytest.raises(ParseError, match=r"zstd data"):
        zb.read_csv(path)
    with pytest.raises(ParseError, match=r"corrupt zstd data"):
        zb.read_csv(b"a,b\n1,2\n", compression="zstd")  # not zstd at all


def test_zstd_without_libzstd_says_how_to_install(tmp_path):
    path = tmp_path / "x.csv.zst"
    path.write_bytes(b"\x28\xb5\x2f\xfd\x24\x00\x01\x00\x00")
    code = ("import sys, zambezi as zb\n"
            "try:\n"
            "    zb.read_csv(sys.argv[1])\n"
            "except zb.errors.UnsupportedError as e:\n"
            "    print('UnsupportedError:', e)\n")
    env = dict(os.environ, ZAMBEZI_LIBZSTD="libzstd-that-does-not-exist.so")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert out.startswith("UnsupportedError: ") and "needs the libzstd library" in out
    assert "install" in out and "libzstd-that-does-not-exist.so could not be loaded" in out


def test_gzip_recognised_by_magic_number(tmp_path):
    raw = b"a,b\n1,x\n2,y\n"
    path = tmp_path / "g.data"
    path.write_bytes(gzip.compress(raw))
    expected = pd.read_csv(io.BytesIO(raw))
    for src in (path, gzip.compress(raw), io.BytesIO(gzip.compress(raw))):
        assert_same(zb.read_csv(src), expected)


# ---------------------------------------------------------------------------
# progress and cancellation
# ---------------------------------------------------------------------------

def test_progress_callable_sees_monotonic_bytes(tmp_path):
    pdf = gen_frame(100_001, 1)
    path = tmp_path / "p.csv"
    write_pdf_csv(pdf, path)
    seen = []
    zb.read_csv(path, progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1][0] == seen[-1][1] == path.stat().st_size
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))


class Stop(Exception):
    pass


def test_progress_exception_stops_read_and_leaks_nothing(tmp_path):
    pdf = gen_frame(100_001, 2)
    path = tmp_path / "p.csv"
    write_pdf_csv(pdf, path)
    before = alloc_bytes()

    def boom(done, total):
        raise Stop(f"stopped at {done}")

    for threads in (1, 3):
        zb.set_num_threads(threads)
        with pytest.raises(Stop):
            zb.read_csv(path, progress=boom)
        with pytest.raises(Stop):
            zb.read_csv(path.read_bytes(), progress=boom)
    assert alloc_bytes() == before


def test_progress_bar_forced_writes_and_clears(tmp_path, capsys):
    zb.read_csv(b"a\n1\n2\n", progress=True)
    err = capsys.readouterr().err
    assert "read_csv" in err and err.endswith("\r")


def test_device_cuda_without_a_gpu_is_an_error():
    if zb.cuda_available():
        pytest.skip("a GPU is present")
    with pytest.raises(zb.DeviceError):
        zb.read_csv(b"a\n1\n", device="cuda")


@pytest.mark.gpu
def test_device_cuda():
    df = zb.read_csv(b"a\n1\n", device="cuda")
    assert df.device.startswith("cuda")
    assert df.to("cpu").to_dict("list") == {"a": [1]}


# ---------------------------------------------------------------------------
# to_csv against pandas and round trips
# ---------------------------------------------------------------------------

def writer_frame(n, seed):
    rng = np.random.default_rng(seed)
    r = random.Random(seed)
    mask = rng.random(n) < 0.15
    f = rng.normal(0, 1, n) * 10.0 ** rng.integers(-30, 30, n)
    f[rng.random(n) < 0.05] = np.inf
    f[rng.random(n) < 0.05] = -0.0
    f[mask] = np.nan
    f32 = (rng.normal(0, 1, n) * 10.0 ** rng.integers(-8, 9, n)).astype(np.float32)
    f32[mask] = np.nan
    ints = pd.array(rng.integers(-2**63, 2**63 - 1, n, endpoint=True), dtype="Int64")
    ints[mask] = pd.NA
    bools = pd.array(rng.integers(0, 2, n).astype(bool), dtype="boolean")
    bools[rng.random(n) < 0.1] = pd.NA
    strs = [None if rng.random() < 0.1 else _rand_str(r) for _ in range(n)]
    cats = pd.Categorical([None if rng.random() < 0.1 else r.choice(["x", "y,z", 'q"'])
                           for _ in range(n)])
    base = np.datetime64("2001-02-03T00:00:00", "ns")
    secs = rng.integers(-10**9, 10**9, n)
    ts_s = pd.Series(base + secs.astype("timedelta64[s]"))
    ts_s[rng.random(n) < 0.1] = pd.NaT
    ts_us = pd.Series(base + (secs * 1_000_003).astype("timedelta64[us]"))
    ts_us[rng.random(n) < 0.1] = pd.NaT
    days = pd.Series(base + rng.integers(-9000, 9000, n).astype("timedelta64[D]"))
    days[rng.random(n) < 0.1] = pd.NaT
    return pd.DataFrame({"f": f, "f32": f32, "i": ints, "b": bools, "s": strs, "c": cats,
                         "ts": ts_s, "tus": ts_us, "day": days})


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("seed", SEEDS)
def test_to_csv_matches_pandas(n, seed):
    pdf = writer_frame(n, seed)
    df = zb.from_pandas(pdf)
    assert df.to_csv() == pdf.to_csv()
    assert df.to_csv(index=False) == pdf.to_csv(index=False)


@pytest.mark.parametrize("kw", [
    dict(sep=";"),
    dict(sep="\t", na_rep="NULL"),
    dict(quoting=csv.QUOTE_ALL),
    dict(quoting=csv.QUOTE_NONNUMERIC),
    dict(float_format="%.3f"),
    dict(float_format="%.2e", quoting=csv.QUOTE_NONNUMERIC),
    dict(header=False),
    dict(header=None),
    dict(header=0),
    dict(header=["A", "B", "C", "D", "E", "F", "G", "H", "I"]),
    dict(lineterminator="\r\n"),
    dict(columns=["s", "f"]),
    dict(quotechar="'"),
])
def test_to_csv_options_match_pandas(kw):
    pdf = writer_frame(500, 4)
    assert zb.from_pandas(pdf).to_csv(index=False, **kw) == pdf.to_csv(index=False, **kw)
    # the row labels first, as pandas writes them by default
    assert zb.from_pandas(pdf).to_csv(**kw) == pdf.to_csv(**kw)


def test_to_csv_quote_none():
    pdf = pd.DataFrame({"a": ["x", "y,z", None], "b": [1.5, 2.0, 3.0]})
    df = zb.from_pandas(pdf)
    with pytest.raises(InvalidValueError, match=r"row 1, column 'a' needs escaping"):
        df.to_csv(quoting=csv.QUOTE_NONE)
    assert (df.to_csv(quoting=csv.QUOTE_NONE, escapechar="\\", index=False)
            == pdf.to_csv(index=False, quoting=csv.QUOTE_NONE, escapechar="\\"))


def test_to_csv_targets(tmp_path):
    pdf = writer_frame(100, 8)
    df = zb.from_pandas(pdf)
    text = df.to_csv()
    path = tmp_path / "o.csv"
    assert df.to_csv(path) is None
    assert path.read_text() == text
    assert df.to_csv(str(path), mode="a") is None
    assert path.read_text() == text + text
    buf = io.StringIO()
    df.to_csv(buf)
    assert buf.getvalue() == text
    bbuf = io.BytesIO()
    df.to_csv(bbuf)
    assert bbuf.getvalue().decode() == text
    assert text == pdf.to_csv()  # index=True by default, as pandas
    named = pdf.set_index([pdf.columns[0], pdf.columns[-1]])
    assert zb.from_pandas(named).to_csv() == named.to_csv()
    assert df.to_csv(index_label="row") == pdf.to_csv(index_label="row")
    with pytest.raises(InvalidValueError, match="float_format"):
        df.to_csv(float_format="%d")


def test_single_column_nulls_written_quoted():
    pdf = pd.DataFrame({"a": ["", None, "x"]})
    assert zb.from_pandas(pdf).to_csv(index=False) == pdf.to_csv(index=False)
    assert zb.from_pandas(pdf).to_csv() == pdf.to_csv()


ROUND_TRIP_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                     "uint64", "float32", "float64", "string", "category", "date32",
                     "timestamp"]


def round_trip_frame(n, seed):
    rng = np.random.default_rng(seed)
    r = random.Random(seed)
    cols = {}
    for dt in ROUND_TRIP_DTYPES:
        valid = rng.random(n) >= 0.2
        if dt == "bool":
            vals = [bool(v) for v in rng.integers(0, 2, n)]
        elif dt.startswith(("int", "uint")):
            info = np.iinfo(dt)
            vals = [int(v) for v in rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)]
        elif dt == "float64":
            bits = rng.integers(0, 2**64, n, dtype=np.uint64).view(np.float64)
            vals = [float(v) for v in bits]
            vals = [v if math.isfinite(v) else r.choice([math.inf, -math.inf, 0.5]) for v in vals]
        elif dt == "float32":
            bits = rng.integers(0, 2**32, n, dtype=np.uint32).view(np.float32)
            vals = [float(v) if np.isfinite(v) else 1.25 for v in bits]
        elif dt in ("string", "category"):
            vals = [_rand_str(r) for _ in range(n)]
        elif dt == "date32":
            vals = [np.datetime64("1970-01-01") + int(v) for v in rng.integers(-719000, 2900000, n)]
            vals = [v.astype(object) for v in vals]
        else:
            us = rng.integers(-2 * 10**15, 4 * 10**15, n)
            vals = [np.datetime64(int(v), "us").astype(object) for v in us]
        cols[dt] = (vals, valid)
    return cols


@pytest.mark.parametrize("n", [0, 1, 2, 1000])
@pytest.mark.parametrize("seed", SEEDS)
def test_round_trip_every_dtype(tmp_path, n, seed):
    cols = round_trip_frame(n, seed)
    data = {}
    for dt, (vals, valid) in cols.items():
        seq = [v if ok else None for v, ok in zip(vals, valid)]
        data[dt] = zb.Series(seq, dtype="timestamp[us]" if dt == "timestamp" else dt)
    df = zb.DataFrame(data)
    assert df.dtypes["timestamp"].startswith("timestamp")
    path = tmp_path / "rt.csv"
    df.to_csv(path, index=False)
    dtypes = {dt: ("str" if dt == "string" else dt) for dt in ROUND_TRIP_DTYPES}
    back = zb.read_csv(path, dtype=dtypes)
    for dt in ROUND_TRIP_DTYPES:
        got = back[dt].to_list()
        want = df[dt].to_list()
        if dt.startswith("float"):
            for g, w in zip(got, want):
                assert (g is None and w is None) or (
                    np.float32(g) == np.float32(w) if dt == "float32" else g == w), (dt, g, w)
                if g == 0 and w == 0:
                    assert math.copysign(1, g) == math.copysign(1, w)
        else:
            assert got == want, dt
    # and through chunks
    chunks = list(zb.read_csv(path, dtype=dtypes, chunksize=333))
    assert sum(len(c) for c in chunks) == n


def test_to_csv_thread_counts_identical():
    pdf = writer_frame(100_001, 9)
    df = zb.from_pandas(pdf)
    zb.set_num_threads(1)
    one = df.to_csv()
    zb.set_num_threads(3)
    assert df.to_csv() == one


def test_to_csv_writer_exception_propagates():
    df = zb.from_pandas(writer_frame(70_000, 1))
    before = alloc_bytes()

    class W:
        def write(self, b):
            raise Stop("disk full")

    with pytest.raises(Stop):
        zb.io.to_csv(df, W())
    assert alloc_bytes() == before


def test_read_csv_infer_dates_false_keeps_text_as_pandas():
    data = (b"id,ts,d,x\n1,2021-01-01 10:00:00,2021-01-01,a\n"
            b"2,2021-02-03 11:30:00,2021-02-03,b\n")
    want = pd.read_csv(io.BytesIO(data))
    got = zb.read_csv(data, infer_dates=False)
    assert got.dtypes.to_dict() == {"id": "int64", "ts": "string", "d": "string", "x": "string"}
    pd.testing.assert_frame_equal(got.to_pandas(), want, check_dtype=False)
    # parse_dates still parses the columns it names
    got = zb.read_csv(data, infer_dates=False, parse_dates=["ts"])
    assert got.dtypes.to_dict()["ts"].startswith("timestamp")
    assert got.dtypes.to_dict()["d"] == "string"
    # the default recognises them
    assert zb.read_csv(data).dtypes.to_dict()["d"] == "date32"


def test_read_csv_year_zero_stays_text():
    # year 0 is no date pandas or Python has: the column stays text, as pandas
    # reads it (it had been read as date32 that could not be shown)
    data = b"d,t\n0000-01-01,0000-01-01 00:00:00\n2020-01-01,2020-01-01 00:00:00\n"
    got = zb.read_csv(data)
    assert got.dtypes.to_dict() == {"d": "string", "t": "string"}
    assert got.to_pandas()["d"].tolist() == pd.read_csv(io.BytesIO(data))["d"].tolist()
    repr(got)


def test_to_csv_writes_aware_timestamps_in_their_zone_as_pandas():
    # the zone's wall clock and its UTC offset (it had written UTC with
    # +00:00 whatever the zone), across a DST change, nulls, a half-hour
    # zone, a fixed offset and UTC
    t = pd.Series(pd.to_datetime(["2020-03-08 01:30:00", None, "2020-03-08 03:30:00.25",
                                  "2020-11-01 01:30:00"], format="ISO8601"))
    p = pd.DataFrame({
        "ny": t.dt.tz_localize("America/New_York", ambiguous=True),
        "kol": t.dt.tz_localize("Asia/Kolkata"),
        "utc": t.dt.tz_localize("UTC"),
        "fixed": t.dt.tz_localize("+05:45"),
        "v": [1, 2, 3, 4]})
    z = zb.from_pandas(p)
    assert z.to_csv(index=False) == p.to_csv(index=False)
    assert z.to_csv() == p.to_csv()
    # a slice (the offsets follow the rows written)
    assert z.iloc[2:].to_csv(index=False) == p.iloc[2:].to_csv(index=False)


@pytest.mark.parametrize("kw", [{}, {"index": False}, {"header": False}, {"sep": ";"},
                                {"quoting": csv.QUOTE_ALL}, {"index_label": "key"}])
def test_to_csv_multiindex_columns_match_pandas(kw):
    """MultiIndex columns (agg with lists) write pandas' header rows: a row
    per level, headed by the level's name, then the index names' row."""
    d = {"k": [1, 1, 2, 3], "p": [1.0, 2.0, 3.0, None], "q": [4, 5, 6, 7]}
    p = pd.DataFrame(d).groupby("k").agg(["sum", "mean"])
    z = zb.DataFrame(d).groupby("k").agg(["sum", "mean"])
    assert z.to_csv(**kw) == p.to_csv(**kw)
    p.columns.names = ["col", "stat"]
    z.columns = p.columns
    assert z.to_csv(**kw) == p.to_csv(**kw)
    if "index_label" not in kw:   # one label for two levels: zambezi refuses, pandas
        # writes rows of unequal length
        p2 = pd.DataFrame(d).groupby(["k", "q"]).agg({"p": ["sum", "max"]})
        z2 = zb.DataFrame(d).groupby(["k", "q"]).agg({"p": ["sum", "max"]})
        assert z2.to_csv(**kw) == p2.to_csv(**kw)


def test_to_csv_multiindex_columns_targets(tmp_path):
    d = {"k": [1, 1, 2], "p": [1.0, 2.0, 3.0]}
    p = pd.DataFrame(d).groupby("k").agg(["sum", "mean"])
    z = zb.DataFrame(d).groupby("k").agg(["sum", "mean"])
    for name in ["a.csv", "a.csv.gz"]:
        z.to_csv(tmp_path / name)
        p.to_csv(tmp_path / ("p" + name))
        opener = gzip.open if name.endswith(".gz") else open
        with opener(tmp_path / name, "rt") as a, opener(tmp_path / ("p" + name), "rt") as b:
            assert a.read() == b.read()
    zb_buf, pd_buf = io.BytesIO(), io.BytesIO()
    z.to_csv(zb_buf, encoding="utf-16")
    p.to_csv(pd_buf, encoding="utf-16")
    assert zb_buf.getvalue() == pd_buf.getvalue()
    with pytest.raises(TypeError, match="MultiIndex on the columns"):
        z.to_csv(columns=[("p", "sum")])


@pytest.mark.parametrize("kw", [{}, {"header": False}, {"index": False},
                                {"sep": ";", "na_rep": "NA", "float_format": "%.1f"}])
def test_series_to_csv_matches_pandas(kw, tmp_path):
    cases = [pd.Series([1.5, None], name="x"), pd.Series([1, 2]),
             pd.Series(["a", "b,c"], index=pd.Index([3, 4], name="i"), name="v"),
             pd.Series([1.0, 2.25], name=("a", "b"))]
    for s in cases:
        assert zb.Series(s).to_csv(**kw) == s.to_csv(**kw)
    zb.Series(cases[2]).to_csv(tmp_path / "s.csv", **kw)
    assert (tmp_path / "s.csv").read_text() == cases[2].to_csv(**kw)


def _frames_with_labels():
    a = pd.DataFrame({"id": [1, 2], "x": [3, 4]})
    b = pd.DataFrame({"id": [1, 2], "y": [5.5, None]})
    yield pd.concat([a, b], axis=1), zb.concat([zb.from_pandas(a), zb.from_pandas(b)], axis=1)
    for p in [pd.DataFrame({"a": [1]}, index=pd.Index([5], name="a")),
              pd.DataFrame([[1, 2]], columns=pd.Index([2021, 2022], name="year")),
              pd.DataFrame({("a", "b"): [1], "c": [2]}),
              pd.DataFrame({"": [1], " ": [2]}),
              pd.DataFrame([[1, 2]], columns=[1.5, 2.0])]:
        yield p, zb.from_pandas(p)
    s = pd.Series(["$12.50 qty 3", "ok"])
    pat = r"\$(?P<price>\d+\.\d+) qty (?P<qty>\d+)"
    yield s.str.extract(pat), zb.Series(s).str.extract(pat)


@pytest.mark.parametrize("kw", [{}, {"index": False}, {"header": False}, {"quoting": csv.QUOTE_ALL},
                                {"quoting": csv.QUOTE_NONNUMERIC}, {"header": "aliases"}])
def test_to_csv_header_of_labels_matches_pandas(kw):
    # repeated labels, labels other than str, named-group labels: pandas
    # writes the labels (numbers unquoted under QUOTE_NONNUMERIC)
    for p, z in _frames_with_labels():
        args = {"header": ["p"] * len(p.columns)} if kw.get("header") == "aliases" else kw
        assert z.to_csv(**args) == p.to_csv(**args), (list(p.columns), args)
