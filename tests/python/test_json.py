"""JSON reading and writing: zb.read_json against pandas.read_json (and
polars / duckdb as readers of what zb writes), DataFrame.to_json against
pandas' text byte for byte, on random data with nulls, unicode, escapes
and every dtype; malformed input with the line and column it names."""

import gzip
import io
import json
import random

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from conftest import alloc_bytes
from pandas_compare import assert_frame_like
from zambezi.errors import InvalidValueError, ParseError, UnsupportedError

# pandas warns that to_json's default epoch dates will become ISO ones
pytestmark = pytest.mark.filterwarnings("ignore:'epoch' date format is deprecated")

_TEXTS = ["", "a", "héllo", "naïve ✓", "emoji 😀 ok", 'quote " in', "back\\slash",
          "slash / x", "tab\tnew\nline\r", "ctl \x01\x1f", "\u2028sep", "日本語", "  spaces  "]


def _random_frame(n, seed):
    rng = np.random.default_rng(seed)
    r = random.Random(seed)
    ints = rng.integers(-10**12, 10**12, n)
    floats = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 12, n)
    return pd.DataFrame({
        "i": ints,
        "i_null": pd.array([None if r.random() < 0.2 else int(v) for v in ints], dtype="Int64"),
        "f": floats,
        "f_null": [np.nan if r.random() < 0.2 else v for v in floats],
        "b": rng.random(n) < 0.5,
        "s": [r.choice(_TEXTS) + str(k) for k in range(n)],
        "s_null": pd.array([None if r.random() < 0.2 else r.choice(_TEXTS) for _ in range(n)],
                           dtype="str"),
        "num_str": [str(v) for v in rng.integers(0, 1000, n)],
    })


def _pandas_read(text, **kw):
    # zambezi parses floats correctly rounded: pandas does with precise_float
    return pd.read_json(io.StringIO(text), precise_float=True, **kw)


def _nullable_like_zb(exp, ints=(), bools=()):
    """zambezi keeps integer and bool columns with missing values as
    nullable int64 / bool where pandas.read_json gives float64 (documented
    in zambezi.io.json): the same values in pandas' masked dtypes."""
    exp = exp.copy()
    for c in ints:
        exp[c] = exp[c].astype("Int64")
    for c in bools:
        exp[c] = exp[c].map({1.0: True, 0.0: False}).astype("boolean")
    return exp


@pytest.mark.parametrize("seed", [0, 1])
def test_read_json_lines_matches_pandas(seed):
    src = _random_frame(300, seed)
    text = src.to_json(orient="records", lines=True)
    got = zb.read_json(text.encode(), lines=True)
    exp = _nullable_like_zb(_pandas_read(text, lines=True), ints=["i_null"])
    assert_frame_like(got, exp, "read_json lines")
    # the array form of the same records
    text2 = src.to_json(orient="records")
    got2 = zb.read_json(io.StringIO(text2), lines=False)
    exp2 = _nullable_like_zb(_pandas_read(text2, orient="records"), ints=["i_null"])
    assert_frame_like(got2, exp2, "read_json array")


def test_read_json_types_and_missing_keys():
    text = ('{"a": 1, "b": "x", "c": true, "n": null, "d": "2.5"}\n'
            '\n'
            '  {"b": "\\u00e9\\ud83d\\ude00\\n", "a": 2.0, "c": false, "e": 7, "d": "1"}\r\n'
            '{"a": 3, "b": "t\\"q\\\\/", "c": true, "d": "-4e2"}\n')
    got = zb.read_json(text.encode(), lines=True)
    exp = _nullable_like_zb(_pandas_read(text, lines=True), ints=["e"])
    # pandas drops a column that is null everywhere to float64 NaN: so do we
    assert list(got.columns) == ["a", "b", "c", "n", "d", "e"]
    assert_frame_like(got, exp, "types")
    assert got["b"].to_list() == ["x", "é😀\n", 't"q\\/']


def test_read_json_nested_values_as_json_text():
    text = '{"k": [1, {"x": "y"}], "o": {"p": [true, null]}}\n{"k": [], "o": {}}\n'
    got = zb.read_json(text.encode(), lines=True)
    exp = _pandas_read(text, lines=True)
    # pandas holds Python lists and dicts; zambezi their JSON text
    assert [json.loads(v) for v in got["k"].to_list()] == exp["k"].to_list()
    assert [json.loads(v) for v in got["o"].to_list()] == exp["o"].to_list()
    assert str(got["k"].dtype) == "string"


def test_read_json_dates_like_pandas():
    text = ('{"created_at": 1577836800000, "x_time": "2020-01-01 10:00:00", '
            '"modified": "abc", "date": "2021-03-04", "plain": "2021-03-04"}\n'
            '{"created_at": 1577923200123, "x_time": "2020-01-02 11:30:00", '
            '"modified": "def", "date": "2021-03-05", "plain": "2021-03-05"}\n')
    got = zb.read_json(text.encode(), lines=True).to_pandas()
    exp = _pandas_read(text, lines=True)
    for c in exp.columns:
        if str(exp[c].dtype).startswith("datetime64"):
            assert str(got[c].dtype).startswith("datetime64"), c
            assert list(got[c].astype("datetime64[ns]")) == list(exp[c].astype("datetime64[ns]"))
        else:
            assert got[c].to_list() == exp[c].to_list(), c
    off = zb.read_json(text.encode(), convert_dates=False, lines=True)
    assert off["date"].to_list() == ["2021-03-04", "2021-03-05"]


def test_read_json_dtype_options():
    text = '{"a": "1", "b": 1.0}\n{"a": "2", "b": 2.0}\n'
    assert str(zb.read_json(text.encode(), lines=True)["a"].dtype) == "int64"
    assert str(zb.read_json(text.encode(), lines=True)["b"].dtype) == "int64"  # pandas: whole floats
    got = zb.read_json(text.encode(), dtype=False, lines=True)
    exp = _pandas_read(text, lines=True, dtype=False)
    assert_frame_like(got, exp, "dtype=False")
    got = zb.read_json(text.encode(), dtype={"b": "float32"}, lines=True)
    assert str(got["b"].dtype) == "float32"


def test_read_json_parallel_chunks_late_keys_and_widening():
    # > 4 MB of lines: several chunks parsed in parallel.  A key first seen
    # in the last line, a column that widens from int to float late, and
    # one whose numeric strings meet a word at the end.
    n = 120_000
    lines = [f'{{"id": {k}, "w": {k}, "s": "{k}", "pad": "{"x" * 20}"}}' for k in range(n)]
    lines[0] = '{"head": 1, "id": 0, "w": 0, "s": "0", "pad": ""}'
    lines[-2] = '{"id": -1, "w": 0.5, "s": "word", "pad": ""}'
    lines[-1] = '{"late": "here", "id": 7}'
    text = "\n".join(lines) + "\n"
    assert len(text) > 5 << 20
    got = zb.read_json(text.encode(), lines=True)
    exp = _pandas_read(text, lines=True)
    assert list(got.columns) == list(exp.columns) == ["head", "id", "w", "s", "pad", "late"]
    assert got["id"].to_list() == exp["id"].to_list()
    assert str(got["w"].dtype) == "float64"
    np.testing.assert_array_equal(got["w"].to_numpy(), exp["w"].to_numpy())
    assert str(got["s"].dtype) == "string"
    assert got["s"].to_list()[:3] == ["0", "1", "2"] and got["s"].to_list()[-2] == "word"
    assert got["late"].to_list()[-1] == "here" and got["late"].isna().sum() == n - 1


def test_read_json_nrows_file_and_gzip(tmp_path):
    src = _random_frame(50, 3)
    p = tmp_path / "d.jsonl"
    src.to_json(p, orient="records", lines=True)
    exp = _nullable_like_zb(pd.read_json(p, lines=True, precise_float=True), ints=["i_null"])
    assert_frame_like(zb.read_json(p, lines=True), exp, "path")
    assert_frame_like(zb.read_json(str(p), nrows=7, lines=True), exp.head(7), "nrows")
    g = tmp_path / "d.jsonl.gz"
    g.write_bytes(gzip.compress(p.read_bytes()))
    assert_frame_like(zb.read_json(g, lines=True), exp, "gzip")
    e = tmp_path / "empty.jsonl"
    e.write_bytes(b"")
    got = zb.read_json(e, lines=True)
    assert got.shape == (0, 0)
    assert pd.read_json(e, lines=True).shape == (0, 0)


# Input pandas' parser lets through where zambezi follows the JSON grammar
# (RFC 8259): a high surrogate alone, a leading zero, a raw newline inside a
# string (pandas splits lines after parsing), a line that is not an object.
_PANDAS_ACCEPTS = {"surrogate", "expected ',' or '}'", "unterminated string",
                   "not a JSON object"}


@pytest.mark.parametrize("data,line,col,what", [
    (b'{"a": 1}\n{"a": 2', 2, 8, "unterminated object"),
    (b'{"a": 1}\n{"a": "x\\q"}\n', 2, 9, "bad escape"),
    (b'{"a": "\\u12"}\n', 1, 8, "bad \\u escape"),
    (b'{"a": "\\ud800"}\n', 1, 8, "surrogate"),
    (b'{"a": "\\udc00"}\n', 1, 8, "lone low surrogate"),
    (b'{"a": 1}\n{"a": "\xff\xfe"}\n', 2, 8, "invalid UTF-8"),
    (b'{"a": 1}\n{"a": 2}\n[1, 2]\n', 3, 1, "not a JSON object"),
    (b'{"a": 1}\n\n  7\n', 3, 3, "not a JSON object"),
    (b'{"a": tru}\n', 1, 7, "bad value"),
    (b'{"a": 01}\n', 1, 8, "expected ',' or '}'"),
    (b'{"a": 1} {"b": 2}\n', 1, 10, "extra data"),
    (b'{"a": "line\nbreak"}\n', 1, 7, "unterminated string"),
    (b'{"a": [1, 2}\n', 1, 12, "expected ',' or ']'"),
    (b'{a: 1}\n', 1, 2, "expected a key"),
    (b'{"\xc3": 1}\n', 1, 2, "invalid UTF-8 in a key"),
])
def test_read_json_malformed_names_line_and_column(data, line, col, what):
    before = alloc_bytes()
    with pytest.raises(ParseError) as e:
        zb.read_json(data, lines=True)
    msg = str(e.value)
    assert f"line {line}, column {col}" in msg and what in msg, msg
    assert isinstance(e.value, ValueError)
    if what not in _PANDAS_ACCEPTS:
        with pytest.raises(ValueError):  # pandas refuses it too
            pd.read_json(io.BytesIO(data), lines=True)
    assert alloc_bytes() == before


def test_read_json_malformed_array():
    for data, what in [(b'[{"a": 1}, 2]', "not a JSON object"), (b'[{"a": 1}', "unterminated"),
                       (b'[{"a": 1}] x', "extra data")]:
        with pytest.raises(ParseError, match=what):
            zb.read_json(data, lines=False)
    # a top-level object is pandas' "columns" form, read by pandas: its errors
    with pytest.raises(ValueError) as e:
        zb.read_json(b'{"a": 1}', lines=False)
    with pytest.raises(type(e.value)):
        pd.read_json(io.BytesIO(b'{"a": 1}'))


def test_read_json_other_orients_through_pandas():
    # orients and options the C reader lacks are pandas' reading, as zambezi frames
    p = pd.DataFrame({"a": [1, 2], "b": ["x", None]}, index=[5, 6])
    for orient in ("split", "index", "columns", "values", "table"):
        text = p.to_json(orient=orient)
        got = zb.read_json(io.StringIO(text), orient=orient)
        want = pd.read_json(io.StringIO(text), orient=orient)
        assert isinstance(got, zb.DataFrame)
        pd.testing.assert_frame_equal(got.to_pandas(), zb.from_pandas(want).to_pandas())
    lines = p.to_json(orient="records", lines=True).encode()
    chunks = list(zb.read_json(lines, lines=True, chunksize=1))
    assert [c.to_dict("list") for c in chunks] == [{"a": [1], "b": ["x"]},
                                                  {"a": [2], "b": [None]}]
    s = zb.read_json(io.StringIO(p["a"].to_json()), typ="series")
    assert s.to_list() == [1, 2] and s.index.to_list() == [5, 6]
    with pytest.raises(InvalidValueError, match="nrows"):
        zb.read_json(b"[]", lines=False, nrows=3)


def _writer_frame(n, seed):
    rng = np.random.default_rng(seed)
    r = random.Random(seed)
    mags = 10.0 ** rng.integers(-17, 22, n)
    floats = rng.standard_normal(n) * mags
    floats[:8] = [0.0, -0.0, 1.0, 0.5, 2.5, 1e16, 1e-15, 123456789.123456789][:min(8, n)]
    ts = pd.to_datetime(rng.integers(-2 * 10**17, 2 * 10**18, n), unit="ns")
    return pd.DataFrame({
        "i8": rng.integers(-128, 127, n).astype("int8"),
        "u64": rng.integers(0, 2**63, n).astype("uint64") * 2,
        "i": pd.array([None if r.random() < 0.2 else int(v)
                       for v in rng.integers(-10**15, 10**15, n)], dtype="Int64"),
        "f": [np.nan if r.random() < 0.1 else v for v in floats],
        "f32": (rng.standard_normal(n) * 1000).astype("float32"),
        "inf": np.where(rng.random(n) < 0.5, np.inf, -np.inf),
        "b": rng.random(n) < 0.5,
        "s": pd.array([None if r.random() < 0.2 else r.choice(_TEXTS) for _ in range(n)],
                      dtype="str"),
        "c": pd.Categorical([r.choice(["x", "ü", None]) for _ in range(n)]),
        "t": ts.astype("datetime64[us]"),
        "t_null": pd.Series(ts).where(rng.random(n) < 0.8).astype("datetime64[ns]"),
        "tz": ts.astype("datetime64[ms]").tz_localize("UTC").tz_convert("Asia/Tokyo"),
        "td": pd.to_timedelta(rng.integers(-10**15, 10**15, n), unit="ns"),
        "é/\"key": np.arange(n),
    })


@pytest.mark.parametrize("kw", [
    {},
    {"lines": False},
    {"force_ascii": False},
    {"double_precision": 3},
    {"double_precision": 0, "date_unit": "s"},
    {"date_unit": "us"},
    {"date_unit": "ns"},
])
def test_to_json_matches_pandas_text(kw):
    src = _writer_frame(400, 5)
    got = zb.DataFrame(src).to_json(orient="records", **dict({"lines": True}, **kw))
    exp = src.to_json(orient="records", lines=kw.get("lines", True),
                      date_format="epoch", **{k: v for k, v in kw.items() if k != "lines"})
    assert got == exp


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_to_json_iso_dates_match_pandas(unit):
    src = _writer_frame(200, 6).drop(columns=["td"])
    got = zb.DataFrame(src).to_json(orient="records", lines=True, date_format="iso",
                                    date_unit=unit)
    assert got == src.to_json(orient="records", lines=True, date_format="iso", date_unit=unit)


def test_to_json_empty_and_file(tmp_path):
    empty = pd.DataFrame({"a": pd.Series([], dtype="int64")})
    rec = dict(orient="records", lines=True)
    assert zb.DataFrame(empty).to_json(**rec) == empty.to_json(**rec)
    assert zb.DataFrame(empty).to_json(orient="records") == empty.to_json(orient="records")
    src = _writer_frame(100, 7)
    p = tmp_path / "o.jsonl"
    assert zb.DataFrame(src).to_json(p, **rec) is None
    assert p.read_text() == src.to_json(orient="records", lines=True, date_format="epoch")
    g = tmp_path / "o.jsonl.gz"
    zb.DataFrame(src).to_json(g, **rec)
    assert gzip.decompress(g.read_bytes()).decode() == p.read_text()
    buf = io.StringIO()
    zb.DataFrame(src).to_json(buf, **rec)
    assert buf.getvalue() == p.read_text()


def test_to_json_read_back_by_polars_and_duckdb(tmp_path):
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    src = pd.DataFrame({"i": np.arange(50) * 7, "f": np.linspace(-3, 3, 50),
                        "s": [_TEXTS[k % len(_TEXTS)] for k in range(50)],
                        "b": np.arange(50) % 3 == 0})
    p = tmp_path / "o.jsonl"
    zb.DataFrame(src).to_json(p, orient="records", lines=True)
    back = pl.read_ndjson(p).to_pandas()
    assert back["i"].to_list() == src["i"].to_list()
    np.testing.assert_allclose(back["f"].to_numpy(), src["f"].to_numpy(), rtol=1e-10)
    assert back["s"].to_list() == src["s"].to_list()
    assert back["b"].to_list() == src["b"].to_list()
    rows = duckdb.sql(f"select s, i from read_json('{p}', format='newline_delimited')").fetchall()
    assert [r[0] for r in rows] == src["s"].to_list()
    # and zb reads what polars writes
    q = tmp_path / "p.jsonl"
    pl.from_pandas(src).write_ndjson(q)
    got = zb.read_json(q, lines=True)
    assert got["s"].to_list() == src["s"].to_list()
    assert got["i"].to_list() == src["i"].to_list()


def test_to_json_round_trip_through_read_json():
    src = _random_frame(200, 9)
    df = zb.DataFrame(src)
    back = zb.read_json(df.to_json(orient="records", lines=True).encode(), lines=True)
    assert back["s"].to_list() == df["s"].to_list()
    assert back["s_null"].to_list() == df["s_null"].to_list()
    assert back["i_null"].to_list() == df["i_null"].to_list()
    assert back["b"].to_list() == df["b"].to_list()


def test_to_json_other_orients_through_pandas():
    p = pd.DataFrame({"a": [1.5, None], "b": ["x", "é"]}, index=["r", "s"])
    df = zb.from_pandas(p)
    # pandas' default orient ("columns" for a frame) and the others: pandas' text
    for orient in (None, "split", "index", "columns", "values", "table"):
        assert df.to_json(orient=orient) == p.to_json(orient=orient)
    assert df.to_json(orient="records", indent=2) == p.to_json(orient="records", indent=2)
    assert df["a"].to_json() == p["a"].to_json()
    # a top-level object (pandas' "columns" form) is read by pandas too
    got = zb.read_json(b'{"a": {"0": 1}}')
    assert got.to_dict("list") == {"a": [1]}
    # pandas' defaults read an array of records
    assert zb.read_json(b'[{"a": 1}, {"a": 2}]')["a"].to_list() == \
        pd.read_json(io.StringIO('[{"a": 1}, {"a": 2}]'))["a"].to_list()
    with pytest.raises(InvalidValueError, match="index=True"):
        df.to_json(orient="records", index=True)
    td = zb.DataFrame(pd.DataFrame({"d": pd.to_timedelta([1], unit="s")}))
    with pytest.raises(UnsupportedError, match="duration"):
        td.to_json(orient="records", date_format="iso")


def test_ctrl_c_stops_read_json_and_to_json(tmp_path):
    # DESIGN.md section 4: KeyboardInterrupt within 0.2 s, nothing leaked
    from test_interrupt import LATENCY, interrupt

    n = 1_500_000
    df = zb.DataFrame({"k": np.arange(n) * 7919 % 1_000_003,
                       "s": [_TEXTS[k % len(_TEXTS)] for k in range(1000)] * (n // 1000)})
    p = tmp_path / "big.jsonl"
    df.to_json(p, orient="records", lines=True)
    latency = interrupt(lambda: [zb.read_json(p, lines=True) for _ in range(20)])
    assert latency < LATENCY, f"read_json: KeyboardInterrupt {latency:.3f} s after Ctrl-C"
    latency = interrupt(lambda: [df.to_json(tmp_path / "out.jsonl", orient="records",
                                            lines=True) for _ in range(20)])
    assert latency < LATENCY, f"to_json: KeyboardInterrupt {latency:.3f} s after Ctrl-C"
    assert zb.read_json(p, lines=True)["k"].to_list()[:3] == [0, 7919, 15838]


@pytest.mark.parametrize("lines", [False, True])
def test_to_json_keys_are_the_labels(lines):
    # keys are the column labels' text, as pandas: a MultiIndex's tuples,
    # numbers beside text
    frames = [pd.DataFrame([[1, 2]], columns=pd.MultiIndex.from_tuples([("a", "x"), ("a", "y")])),
              pd.DataFrame({1: [1.5], "a": ["x"]}), pd.DataFrame({"p": [1], "q": [None]})]
    for p in frames:
        assert zb.from_pandas(p).to_json(orient="records", lines=lines) == \
            p.to_json(orient="records", lines=lines)
