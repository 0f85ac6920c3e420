"""Nested Parquet columns (issue #24): LIST columns read into the list dtype
and list columns written as LISTs, checked against pyarrow (the column's
to_pylist), polars and duckdb; the legacy two-level layouts and corrupt
levels from small files built here field by field; lists of lists (to 32
levels) read into the nested list dtype; structs, maps and lists of structs
still refused, naming the column."""

import datetime
import io
import struct

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import zambezi as zb
from zambezi.errors import ParseError, UnsupportedError


def _lists(rng, n, make, p_null=0.15, p_empty=0.15, p_elem_null=0.2, most=5):
    out = []
    for _ in range(n):
        u = rng.random()
        if u < p_null:
            out.append(None)
        elif u < p_null + p_empty:
            out.append([])
        else:
            k = int(rng.integers(1, most + 1))
            out.append([None if rng.random() < p_elem_null else make(rng) for _ in range(k)])
    return out


_MAKERS = {
    "int8": (pa.int8(), lambda r: int(r.integers(-128, 128))),
    "int16": (pa.int16(), lambda r: int(r.integers(-2**15, 2**15))),
    "int32": (pa.int32(), lambda r: int(r.integers(-2**31, 2**31))),
    "int64": (pa.int64(), lambda r: int(r.integers(-2**62, 2**62))),
    "uint8": (pa.uint8(), lambda r: int(r.integers(0, 256))),
    "uint32": (pa.uint32(), lambda r: int(r.integers(0, 2**32))),
    "uint64": (pa.uint64(), lambda r: int(r.integers(0, 2**63))),
    "float32": (pa.float32(), lambda r: float(np.float32(r.standard_normal()))),
    "float64": (pa.float64(), lambda r: float(r.standard_normal())),
    "bool": (pa.bool_(), lambda r: bool(r.random() < 0.5)),
    "string": (pa.string(), lambda r: "é" * int(r.integers(0, 3)) + str(r.integers(0, 50))),
    "date32": (pa.date32(), lambda r: datetime.date(2020, 1, 1)
               + datetime.timedelta(days=int(r.integers(0, 3000)))),
    "ts_us_utc": (pa.timestamp("us", "UTC"), lambda r: datetime.datetime(
        2021, 1, 1, tzinfo=datetime.timezone.utc)
        + datetime.timedelta(microseconds=int(r.integers(0, 10**12)))),
    "ts_ms": (pa.timestamp("ms"), lambda r: datetime.datetime(2021, 1, 1)
              + datetime.timedelta(milliseconds=int(r.integers(0, 10**10)))),
}


def _table(n, seed=0, types=None):
    rng = np.random.default_rng(seed)
    cols = {"k": pa.array(np.arange(n))}
    for name in types or _MAKERS:
        typ, make = _MAKERS[name]
        cols[name] = pa.array(_lists(rng, n, make), pa.list_(typ))
    return pa.table(cols)


def _as_arrow(df, name):
    return pa.table(df).column(name).to_pylist()


def _check(df, table):
    assert list(df.columns) == table.column_names
    for name in table.column_names:
        assert _as_arrow(df, name) == table.column(name).to_pylist(), name


# pyarrow's writer options: page versions, codecs, dictionary on and off,
# small pages and row groups
_PYARROW_OPTS = [
    {},
    {"data_page_version": "2.0", "compression": "zstd"},
    {"use_dictionary": False, "compression": "snappy", "data_page_size": 512},
    {"row_group_size": 97, "data_page_size": 256, "compression": "gzip"},
]


@pytest.mark.parametrize("opts", _PYARROW_OPTS)
def test_lists_of_every_type_as_pyarrow_reads_them(tmp_path, opts):
    table = _table(400, seed=len(opts))
    path = str(tmp_path / "l.parquet")
    pq.write_table(table, path, **opts)
    df = zb.read_parquet(path)
    assert df["int64"].dtype == "list<int64>" and df["string"].dtype == "list<string>"
    _check(df, table)


def test_required_lists_and_elements_and_legacy_item_names(tmp_path):
    lists = [[1, 2], [], [3], [4, 5, 6]]
    schema = pa.schema([
        pa.field("req", pa.list_(pa.field("element", pa.int32(), nullable=False)),
                 nullable=False),
        pa.field("opt", pa.list_(pa.field("element", pa.string(), nullable=False))),
    ])
    table = pa.table({"req": lists, "opt": [["a"], None, [], ["b", "c"]]}, schema=schema)
    for compliant in (True, False):  # False: the repeated group is "list", the leaf "item"
        path = str(tmp_path / f"r{compliant}.parquet")
        pq.write_table(table, path, use_compliant_nested_type=compliant)
        _check(zb.read_parquet(path), table)


def test_columns_selection_and_filters(tmp_path):
    table = _table(300, seed=5, types=["int64", "string"])
    path = str(tmp_path / "f.parquet")
    pq.write_table(table, path, row_group_size=64)
    got = zb.read_parquet(path, columns=["string", "k"])
    _check(got, table.select(["string", "k"]))
    got = zb.read_parquet(path, filters=[("k", ">=", 250)])
    _check(got, table.filter(pa.compute.greater_equal(table.column("k"), 250)))
    with pytest.raises(UnsupportedError, match="list column 'int64'"):
        zb.read_parquet(path, filters=[("int64", "==", 1)])


def test_polars_and_duckdb_files(tmp_path):
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    table = _table(200, seed=7, types=["int64", "float64", "string", "bool"])
    path = str(tmp_path / "pl.parquet")
    pl.from_arrow(table).write_parquet(path)
    _check(zb.read_parquet(path), table)
    path = str(tmp_path / "dd.parquet")
    con = duckdb.connect()
    con.register("t", table)
    con.execute(f"COPY (SELECT * FROM t ORDER BY k) TO '{path}' (FORMAT PARQUET)")
    _check(zb.read_parquet(path), table)


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_write_lists_pyarrow_polars_duckdb_read_back(tmp_path, version):
    table = _table(300, seed=11)
    df = zb.read_parquet(io.BytesIO(_to_bytes(table)))
    path = str(tmp_path / "w.parquet")
    df.to_parquet(path, row_group_size=70, data_page_version=version)
    back = pq.read_table(path)
    for name in table.column_names:
        assert back.column(name).to_pylist() == table.column(name).to_pylist(), name
    _check(zb.read_parquet(path), table)
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    small = ["k", "int64", "float64", "string", "bool"]
    got = pl.read_parquet(path, columns=small)
    for name in small:
        assert got[name].to_list() == table.column(name).to_pylist(), name
    rows = duckdb.connect().execute(
        f"SELECT k, int64, string FROM '{path}' ORDER BY k").fetchall()
    exp = list(zip(*(table.column(c).to_pylist() for c in ["k", "int64", "string"])))
    assert rows == exp


def test_write_sliced_lists_and_null_lists_over_values(tmp_path):
    # a null list whose range is not empty (Arrow allows it) writes no values
    arr = pa.LargeListArray.from_arrays(pa.array([0, 2, 4, 5], pa.int64()),
                                        pa.array([1, 2, 3, 4, 5]),
                                        mask=pa.array([False, True, False]))
    df = zb.DataFrame(pa.table({"l": arr}))
    path = str(tmp_path / "n.parquet")
    df.to_parquet(path)
    assert pq.read_table(path).column("l").to_pylist() == [[1, 2], None, [5]]
    table = _table(50, seed=3, types=["int32", "string"])
    df = zb.read_parquet(io.BytesIO(_to_bytes(table))).iloc[7:31]
    df.to_parquet(path)
    back = pq.read_table(path)
    for name in ["int32", "string"]:
        assert back.column(name).to_pylist() == table.column(name).to_pylist()[7:31]


def _to_bytes(table, **kw):
    b = io.BytesIO()
    pq.write_table(table, b, **kw)
    return b.getvalue()


@pytest.mark.parametrize("name,arr,what", [
    ("st", pa.array([{"a": 1}], pa.struct([("a", pa.int64())])), "a struct"),
    ("mp", pa.array([[("k", 1)]], pa.map_(pa.string(), pa.int64())), "a map"),
    ("lls", pa.array([[[{"a": 1}]]], pa.list_(pa.list_(pa.struct([("a", pa.int64())])))),
     "a list of structs"),
    ("llm", pa.array([[[[("k", 1)]]]], pa.list_(pa.list_(pa.map_(pa.string(), pa.int64())))),
     "a list of maps"),
    ("ls", pa.array([[{"a": 1}]], pa.list_(pa.struct([("a", pa.int64())]))),
     "a list of structs"),
])
def test_structs_maps_and_deeper_lists_name_the_column(tmp_path, name, arr, what):
    path = str(tmp_path / f"{name}.parquet")
    pq.write_table(pa.table({"ok": [1], name: arr}), path)
    with pytest.raises(UnsupportedError, match=f"column '{name}' is {what}"):
        zb.read_parquet(path)
    assert zb.read_parquet(path, columns=["ok"]).to_dict("list") == {"ok": [1]}


# ---- files built here: legacy layouts and corrupt levels -------------------
# A minimal Parquet writer (Thrift compact protocol, one row group, one
# uncompressed v1 data page of PLAIN int32 values) for the schemas pyarrow
# does not write: the two-level LIST layouts of the format's
# backward-compatibility rules, and levels that break the schema.

def _varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _zz(v):
    return _varint((v << 1) ^ (v >> 63))


class _TW:
    def __init__(self):
        self.b = bytearray()
        self.last = [0]

    def _hdr(self, fid, typ):
        d = fid - self.last[-1]
        if 0 < d <= 15:
            self.b.append(d << 4 | typ)
        else:
            self.b.append(typ)
            self.b += _zz(fid)
        self.last[-1] = fid

    def i32(self, fid, v):
        self._hdr(fid, 5)
        self.b += _zz(v)

    def i64(self, fid, v):
        self._hdr(fid, 6)
        self.b += _zz(v)

    def binary(self, fid, s):
        self._hdr(fid, 8)
        s = s.encode() if isinstance(s, str) else s
        self.b += _varint(len(s)) + s

    def begin(self, fid=None):
        if fid is not None:
            self._hdr(fid, 12)
        self.last.append(0)

    def end(self):
        self.b.append(0)
        self.last.pop()

    def list(self, fid, typ, n):
        self._hdr(fid, 9)
        self.b.append(n << 4 | typ)

    def struct_elem(self):
        self.last.append(0)


def _levels(vals, width):
    body = bytearray()
    for v in vals:  # a run of one value each
        body += _varint(2) + bytes([v]) * ((width + 7) // 8)
    return struct.pack("<I", len(body)) + bytes(body)


def _file(schema, reps, defs, values, rows, max_rep, max_def, leaf_path):
    """schema: [(name, type or None, repetition, num_children, converted)]."""
    page = bytearray()
    if max_rep:
        page += _levels(reps, max_rep.bit_length())
    if max_def:
        page += _levels(defs, max_def.bit_length())
    page += b"".join(struct.pack("<i", v) for v in values)
    h = _TW()
    h.begin()
    h.i32(1, 0)
    h.i32(2, len(page))
    h.i32(3, len(page))
    h.begin(5)
    h.i32(1, len(defs))
    h.i32(2, 0)
    h.i32(3, 3)
    h.i32(4, 3)
    h.end()
    h.end()
    chunk = bytes(h.b) + bytes(page)
    m = _TW()
    m.begin()
    m.i32(1, 1)
    m.list(2, 12, len(schema) + 1)
    m.struct_elem()
    m.binary(4, "schema")
    m.i32(5, 1)
    m.end()
    for name, typ, rep, kids, conv in schema:
        m.struct_elem()
        if typ is not None:
            m.i32(1, typ)
        m.i32(3, rep)
        m.binary(4, name)
        if kids:
            m.i32(5, kids)
        if conv is not None:
            m.i32(6, conv)
        m.end()
    m.i64(3, rows)
    m.list(4, 12, 1)
    m.struct_elem()
    m.list(1, 12, 1)
    m.struct_elem()
    m.i64(2, 4)
    m.begin(3)
    m.i32(1, 1)
    m.list(2, 5, 1)
    m.b += _zz(0)
    m.list(3, 8, len(leaf_path))
    for p in leaf_path:
        m.b += _varint(len(p)) + p.encode()
    m.i32(4, 0)
    m.i64(5, len(defs))
    m.i64(6, len(chunk))
    m.i64(7, len(chunk))
    m.i64(9, 4)
    m.end()
    m.end()
    m.i64(2, len(chunk))
    m.i64(3, rows)
    m.end()
    m.end()
    foot = bytes(m.b)
    return b"PAR1" + chunk + foot + struct.pack("<I", len(foot)) + b"PAR1"


_INT32, _OPT, _REQ, _REP, _LIST = 1, 1, 0, 2, 3
# rows: [1, 2], [], null, [3]  (null only where the list is optional)
_TWO_LEVEL = [
    # optional group a (LIST) { repeated int32 array; }  -> max_def 2
    ([("a", None, _OPT, 1, _LIST), ("array", _INT32, _REP, 0, None)],
     [0, 1, 0, 0, 0], [2, 2, 1, 0, 2], [1, 2, 3], 2, ["a", "array"],
     [[1, 2], [], None, [3]]),
    # required group a (LIST) { repeated int32 element; }  -> max_def 1, no null lists
    ([("a", None, _REQ, 1, _LIST), ("element", _INT32, _REP, 0, None)],
     [0, 1, 0, 0], [1, 1, 0, 1], [1, 2, 3], 1, ["a", "element"], [[1, 2], [], [3]]),
    # repeated int32 a (no annotation): a required list of required values
    ([("a", _INT32, _REP, 0, None)],
     [0, 1, 0, 0], [1, 1, 0, 1], [1, 2, 3], 1, ["a"], [[1, 2], [], [3]]),
    # 3-level, legacy names: optional group a (LIST) { repeated group bag { optional int32 x } }
    ([("a", None, _OPT, 1, _LIST), ("bag", None, _REP, 1, None), ("x", _INT32, _OPT, 0, None)],
     [0, 1, 0, 0, 0], [3, 3, 1, 0, 3], [1, 2, 3], 3, ["a", "bag", "x"],
     [[1, 2], [], None, [3]]),
]


@pytest.mark.parametrize("case", range(len(_TWO_LEVEL)))
def test_legacy_two_level_layouts(case):
    schema, reps, defs, values, max_def, path, want = _TWO_LEVEL[case]
    data = _file(schema, reps, defs, values, len(want), 1, max_def, path)
    df = zb.read_parquet(io.BytesIO(data))
    assert pq.read_table(io.BytesIO(data)).column("a").to_pylist() == want  # the oracle agrees
    assert df["a"].dtype == "list<int32>"
    assert _as_arrow(df, "a") == want


@pytest.mark.parametrize("name,schema", [
    ("array", [("a", None, _OPT, 1, _LIST), ("array", None, _REP, 1, None),
               ("v", _INT32, _REQ, 0, None)]),
    ("a_tuple", [("a", None, _OPT, 1, _LIST), ("a_tuple", None, _REP, 1, None),
                 ("v", _INT32, _REQ, 0, None)]),
])
def test_legacy_one_field_element_groups_are_structs(name, schema):
    data = _file(schema, [0], [2], [1], 1, 1, 2, ["a", name, "v"])
    with pytest.raises(UnsupportedError, match="column 'a' is a list of structs"):
        zb.read_parquet(io.BytesIO(data))


@pytest.mark.parametrize("reps,defs,why", [
    ([1, 1, 0, 0], [2, 2, 1, 2], "continued across row groups"),
    ([0, 2, 0, 0], [2, 2, 1, 2], "levels are corrupt|repetition level above"),
    ([0, 1, 0, 0], [2, 3, 1, 2], "levels are corrupt|definition level above"),
    ([0, 1, 1, 0], [2, 2, 1, 2], "continued by no element"),
    ([0, 1, 0, 0], [1, 2, 0, 2], "continued by no element"),  # an empty list continued
    ([0, 1, 0, 0, 0], [2, 2, 1, 2, 2], "more lists than"),
    ([0, 1, 1, 1], [2, 2, 2, 2], "fewer lists than"),
])
def test_corrupt_levels_name_file_column_and_row_group(reps, defs, why):
    schema = [("a", None, _OPT, 1, _LIST), ("element", _INT32, _REP, 0, None)]
    values = [7] * sum(d == 2 for d in defs)
    data = _file(schema, reps, defs, values, 3, 1, 2, ["a", "element"])
    with pytest.raises(ParseError, match=f"'<buffer>'.*column 'a', row group 0.*({why})"):
        zb.read_parquet(io.BytesIO(data))


def test_pandas_reads_written_lists_with_the_index(tmp_path):
    pd = pytest.importorskip("pandas")
    df = zb.DataFrame({"l": [["x"], None, [], ["y", None]], "v": [1, 2, 3, 4]},
                      index=pd.Index([10, 20, 30, 40], name="key"))
    path = str(tmp_path / "i.parquet")
    df.to_parquet(path)
    got = pd.read_parquet(path)
    assert list(got.index) == [10, 20, 30, 40] and got.index.name == "key"
    assert [None if v is None else list(v) for v in got["l"]] == [["x"], None, [], ["y", None]]
    back = zb.read_parquet(path)
    assert list(back.index.to_pandas()) == [10, 20, 30, 40]
    assert back["l"].to_list() == [["x"], None, [], ["y", None]]


def test_empty_all_null_and_null_element_lists(tmp_path):
    for arr in (pa.array([], pa.list_(pa.int64())), pa.array([None, None], pa.list_(pa.int64())),
                pa.array([[None], [None, None]], pa.list_(pa.string()))):
        table = pa.table({"l": arr})
        df = zb.read_parquet(io.BytesIO(_to_bytes(table)))
        _check(df, table)
        back = pq.read_table(io.BytesIO(df.to_parquet()))
        assert back.column("l").to_pylist() == arr.to_pylist()


def test_lists_of_decimals_int96_and_small_unsigned(tmp_path):
    import decimal
    table = pa.table({
        "d": pa.array([[decimal.Decimal("1.25"), None], None, [decimal.Decimal("-3.50")]],
                      pa.list_(pa.decimal128(9, 2))),
        "u16": pa.array([[1, None], [65535], None], pa.list_(pa.uint16())),
        "t96": pa.array([[0, None], [10**15], None], pa.list_(pa.timestamp("ns")))})
    data = _to_bytes(table, use_deprecated_int96_timestamps=True)
    df = zb.read_parquet(io.BytesIO(data))
    assert df.dtypes.to_dict() == {"d": "list<float64>", "u16": "list<uint16>",
                         "t96": "list<timestamp[ns]>"}
    assert _as_arrow(df, "d") == [[1.25, None], None, [-3.5]]  # decimals read as float64
    for name in ("u16", "t96"):
        assert _as_arrow(df, name) == table.column(name).to_pylist()


# ---- lists of lists ----------------------------------------------------------

def _nested(rng, depth, make, n, p_null=0.15, p_empty=0.15):
    """n values of a list nested `depth` deep: nulls and empty lists at
    every level, null leaves."""
    def one(d):
        u = rng.random()
        if u < p_null:
            return None
        if d == 0:
            return make(rng)
        if u < p_null + p_empty:
            return []
        return [one(d - 1) for _ in range(int(rng.integers(1, 4)))]
    return [one(depth) for _ in range(n)]


def _nested_table(n, seed=0):
    rng = np.random.default_rng(seed)
    cols = {"k": pa.array(np.arange(n))}
    for name, depth in [("int64", 2), ("string", 2), ("float64", 3), ("bool", 2),
                        ("date32", 4)]:
        typ, make = _MAKERS[name]
        for _ in range(depth):
            typ = pa.list_(typ)
        cols[f"{name}_{depth}"] = pa.array(_nested(rng, depth, make, n), typ)
    return pa.table(cols)


@pytest.mark.parametrize("opts", _PYARROW_OPTS)
def test_lists_of_lists_as_pyarrow_reads_them(tmp_path, opts):
    # nulls and empty lists at every level, across pages and row groups
    table = _nested_table(700, seed=len(opts))
    path = str(tmp_path / "ll.parquet")
    pq.write_table(table, path, **opts)
    df = zb.read_parquet(path)
    assert str(df["float64_3"].dtype) == "list<list<list<float64>>>"
    _check(df, pq.read_table(path))
    _check(zb.read_parquet(path, columns=["string_2", "k"]),
           pq.read_table(path, columns=["string_2", "k"]))


def test_lists_of_lists_required_levels_and_large_lists(tmp_path):
    # required (not null) lists and elements at some levels change every
    # definition level below them
    inner = pa.list_(pa.field("element", pa.int32(), nullable=False))
    outer = pa.list_(pa.field("element", inner, nullable=True))
    schema = pa.schema([pa.field("a", outer, nullable=False),
                        pa.field("b", pa.large_list(pa.large_list(pa.string())))])
    table = pa.table({"a": [[[1, 2], None, []], [], [[3]]],
                      "b": [None, [["x", None], None], [[]]]}, schema=schema)
    path = str(tmp_path / "req.parquet")
    pq.write_table(table, path)
    _check(zb.read_parquet(path), pq.read_table(path))


def test_deep_lists_to_32_levels(tmp_path):
    def deep(depth, leaf):
        # a null and an empty list beside the deeper list at every level
        typ, v = pa.list_(pa.int64()), [leaf, None]
        for _ in range(depth - 1):
            typ, v = pa.list_(typ), [v, None, []]
        return typ, v

    for depth in (5, 32):
        typ, v = deep(depth, 7)
        table = pa.table({"d": pa.array([v, None, []], typ)})
        path = str(tmp_path / f"d{depth}.parquet")
        pq.write_table(table, path)
        _check(zb.read_parquet(path), pq.read_table(path))
    typ, v = deep(33, 7)
    path = str(tmp_path / "d33.parquet")
    pq.write_table(pa.table({"ok": [1], "d": pa.array([v], typ)}), path)
    with pytest.raises(UnsupportedError, match="column 'd' is a list nested more than 32"):
        zb.read_parquet(path)
    assert zb.read_parquet(path, columns=["ok"]).to_dict("list") == {"ok": [1]}


def test_lists_of_lists_from_polars_and_duckdb(tmp_path):
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    rng = np.random.default_rng(5)
    want = _nested(rng, 2, lambda r: int(r.integers(-50, 50)), 300)
    p1 = str(tmp_path / "pl.parquet")
    pl.DataFrame({"l": want}, schema={"l": pl.List(pl.List(pl.Int64))}).write_parquet(
        p1, row_group_size=64)
    assert zb.read_parquet(p1)["l"].to_list() == want == pq.read_table(p1)["l"].to_pylist()
    p2 = str(tmp_path / "dd.parquet")
    con = duckdb.connect()
    con.execute("CREATE TABLE t AS SELECT * FROM (VALUES ([[1, NULL], NULL, []]), (NULL), "
                "([]), ([[2], [3, 4]])) v(l)")
    con.execute(f"COPY t TO '{p2}' (FORMAT parquet)")
    want = [[[1, None], None, []], None, [], [[2], [3, 4]]]
    assert pq.read_table(p2)["l"].to_pylist() == want
    assert zb.read_parquet(p2)["l"].to_list() == want


# optional group a (LIST) { repeated group list { optional group element (LIST)
#   { repeated group list { optional int32 element } } } }: levels 1..5
_LL_SCHEMA = [("a", None, _OPT, 1, _LIST), ("list", None, _REP, 1, None),
              ("element", None, _OPT, 1, _LIST), ("list", None, _REP, 1, None),
              ("element", _INT32, _OPT, 0, None)]
_LL_PATH = ["a", "list", "element", "list", "element"]


def test_lists_of_lists_built_here():
    # rows: [[1, 2], [], None], None, [], [[None]]
    reps, defs = [0, 2, 1, 1, 0, 0, 0], [5, 5, 3, 2, 0, 1, 4]
    data = _file(_LL_SCHEMA, reps, defs, [1, 2], 4, 2, 5, _LL_PATH)
    want = [[[1, 2], [], None], None, [], [[None]]]
    assert pq.read_table(io.BytesIO(data)).column("a").to_pylist() == want  # the oracle agrees
    assert _as_arrow(zb.read_parquet(io.BytesIO(data)), "a") == want


@pytest.mark.parametrize("reps,defs,why", [
    ([0, 2, 0], [3, 5, 5], "continued by no element"),      # an empty inner list continued
    ([0, 1, 0], [1, 5, 5], "continued by no element"),      # an empty outer list continued
    ([0, 2, 0], [5, 2, 5], "continued by no element"),      # continued with no inner list
    ([0, 3, 0], [5, 5, 5], "levels are corrupt|repetition level above"),
    ([0, 0, 0], [5, 6, 5], "levels are corrupt|definition level above"),
    ([2, 0, 0], [5, 5, 5], "continued across row groups"),
    ([0, 0, 0, 0], [5, 5, 5, 5], "more lists than"),
])
def test_corrupt_nested_levels_name_file_column_and_row_group(reps, defs, why):
    values = [7] * sum(d == 5 for d in defs)
    data = _file(_LL_SCHEMA, reps, defs, values, 3, 2, 5, _LL_PATH)
    with pytest.raises(ParseError, match=f"'<buffer>'.*column 'a', row group 0.*({why})"):
        zb.read_parquet(io.BytesIO(data))


@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_write_lists_of_lists_read_back_by_pyarrow_polars_duckdb(tmp_path, version):
    table = _nested_table(400, seed=12)
    df = zb.read_parquet(io.BytesIO(_to_bytes(table)))
    path = str(tmp_path / "wl.parquet")
    df.to_parquet(path, row_group_size=90, data_page_version=version)
    # strings are dictionary-encoded as a flat string column's are
    meta = pq.ParquetFile(path).metadata
    for g in range(meta.num_row_groups):
        for i, name in enumerate(table.column_names):
            cc = meta.row_group(g).column(i)
            assert cc.has_dictionary_page == name.startswith("string"), (name, g)
            assert ("RLE_DICTIONARY" in cc.encodings) == name.startswith("string"), (name, g)
    back = pq.read_table(path)
    for name in table.column_names:
        assert back.column(name).to_pylist() == table.column(name).to_pylist(), name
    _check(zb.read_parquet(path), table)
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    small = ["k", "int64_2", "string_2", "float64_3"]
    got = pl.read_parquet(path, columns=small)
    for name in small:
        assert got[name].to_list() == table.column(name).to_pylist(), name
    rows = duckdb.connect().execute(
        f"SELECT k, int64_2, string_2 FROM '{path}' ORDER BY k").fetchall()
    exp = list(zip(*(table.column(c).to_pylist() for c in ["k", "int64_2", "string_2"])))
    assert rows == exp


def test_write_sliced_lists_of_lists_and_null_lists_over_values(tmp_path):
    # null lists whose ranges are not empty, at both levels, write nothing
    inner = pa.LargeListArray.from_arrays(pa.array([0, 2, 3, 5, 6], pa.int64()),
                                          pa.array([1, 2, 3, 4, 5, 6]),
                                          mask=pa.array([False, True, False, False]))
    outer = pa.LargeListArray.from_arrays(pa.array([0, 1, 3, 4], pa.int64()), inner,
                                          mask=pa.array([False, False, True]))
    assert outer.to_pylist() == [[[1, 2]], [None, [4, 5]], None]
    path = str(tmp_path / "n.parquet")
    zb.DataFrame(pa.table({"l": outer})).to_parquet(path)
    assert pq.read_table(path).column("l").to_pylist() == outer.to_pylist()
    table = _nested_table(60, seed=4)
    df = zb.read_parquet(io.BytesIO(_to_bytes(table))).iloc[7:41]
    df.to_parquet(path, row_group_size=10)
    back = pq.read_table(path)
    for name in table.column_names:
        assert back.column(name).to_pylist() == table.column(name).to_pylist()[7:41], name


def test_written_list_statistics_match_pyarrow_and_prune(tmp_path):
    # min / max of the values written (not of values under null lists) and
    # the slots without a value, as pyarrow writes them for the same lists
    inner = pa.LargeListArray.from_arrays(pa.array([0, 2, 3, 5, 6], pa.int64()),
                                          pa.array([1, 2, -90, 4, 5, 6]),
                                          mask=pa.array([False, True, False, False]))
    hidden = pa.table({"l": pa.LargeListArray.from_arrays(
        pa.array([0, 1, 3, 4], pa.int64()), inner, mask=pa.array([False, False, True]))})
    table = _nested_table(300, seed=21).append_column(
        "u64", pa.array(_lists(np.random.default_rng(2), 300,
                               lambda r: int(r.integers(0, 2**64, dtype=np.uint64))),
                        pa.list_(pa.uint64())))
    for t, kw in [(table, {"row_group_size": 70}), (hidden, {})]:
        ours, theirs = str(tmp_path / "z.parquet"), str(tmp_path / "p.parquet")
        zb.DataFrame(t).to_parquet(ours, **kw)
        pq.write_table(t, theirs, use_dictionary=False, **kw)
        mz, mp = pq.ParquetFile(ours).metadata, pq.ParquetFile(theirs).metadata
        assert mz.num_row_groups == mp.num_row_groups
        for g in range(mz.num_row_groups):
            for i, name in enumerate(t.column_names):
                sz, sp = mz.row_group(g).column(i).statistics, mp.row_group(g).column(i).statistics
                assert sz is not None and sz.null_count == sp.null_count, (name, g)
                assert sz.has_min_max == sp.has_min_max, (name, g)
                if sp.has_min_max:
                    assert (sz.min, sz.max) == (sp.min, sp.max), (name, g)
    assert pq.read_table(ours).column("l").to_pylist() == hidden.column("l").to_pylist()
    duckdb = pytest.importorskip("duckdb")  # reads the same statistics
    zb.DataFrame(table).to_parquet(ours, row_group_size=70)
    pq.write_table(table, theirs, use_dictionary=False, row_group_size=70)
    q = ("SELECT row_group_id, column_id, stats_min_value, stats_max_value, stats_null_count "
         "FROM parquet_metadata('{}') ORDER BY 1, 2")
    con = duckdb.connect()
    assert con.execute(q.format(ours)).fetchall() == con.execute(q.format(theirs)).fetchall()
