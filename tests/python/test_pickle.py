"""Pickling and copying of DataFrame, Series and the engine objects.

The oracle is pandas: a frame built from random pandas data with nulls must
come back from every pickle protocol holding pandas' values and dtypes
(pandas_compare).  The out-of-band tests compare the buffers pickle hands
to its buffer_callback with the Arrow layout computed here from the Python
values (validity bits, values, string offsets and bytes), and check that
the pickle proper holds only metadata.  Corrupted payloads must raise
InvalidValueError, never read outside their memory.
"""

import copy
import gc
import io
import multiprocessing
import operator
import os
import pickle

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi import _core
from zambezi.errors import InvalidValueError, UnsupportedError

from conftest import alloc_bytes
from pandas_compare import assert_frame_like, assert_series_like

PROTOCOLS = list(range(pickle.HIGHEST_PROTOCOL + 1))


def _random_frame(n, seed=0, null_rate=0.3):
    """A pandas frame with one column per zambezi dtype, random values and
    nulls (a different null pattern per column)."""
    rng = np.random.default_rng(seed)
    cols = {}
    for name in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
        info = np.iinfo(name)
        v = rng.integers(info.min, info.max, n, dtype=name, endpoint=True)
        cols[name] = pd.array(v, dtype=name.capitalize().replace("Ui", "UI"))
    cols["float32"] = pd.array(rng.normal(size=n).astype("float32"))
    cols["float64"] = pd.array(rng.normal(size=n) * 1e6)
    cols["bool"] = pd.array(rng.random(n) < 0.5, dtype="boolean")
    words = np.array(["", "a", "Lusaka", "Maun", "ñandú", "日本", "x" * 40])
    cols["string"] = pd.Series(rng.choice(words, n), dtype="str")
    cols["category"] = pd.Series(rng.choice(["red", "green", "blue"], n)).astype("category")
    days = rng.integers(-20000, 30000, n)
    cols["date"] = pd.Series(list((np.datetime64("1970-01-01") + days).astype("datetime64[D]")
                                  .astype(object)), dtype="object")
    stamps = rng.integers(-2 * 10**9, 4 * 10**9, n)
    for unit in ["s", "ms", "us", "ns"]:
        cols[f"ts_{unit}"] = pd.Series(stamps.astype("datetime64[s]").astype(f"datetime64[{unit}]"))
    cols["ts_tz"] = pd.Series(stamps.astype("datetime64[s]").astype("datetime64[us]")) \
        .dt.tz_localize("UTC").dt.tz_convert("America/Sao_Paulo")
    pdf = pd.DataFrame(cols)
    for c in pdf.columns:
        pdf[c] = pdf[c].where(pd.Series(rng.random(n) >= null_rate))
    return pdf


def _engine_columns(df):
    t = df._table
    return [t.column(i) for i in range(t.num_columns)]


# -- round trips ------------------------------------------------------------

@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_every_dtype_round_trips_with_nulls(protocol):
    pdf = _random_frame(300, seed=protocol)
    df = zb.DataFrame(pdf)
    got = pickle.loads(pickle.dumps(df, protocol=protocol))
    assert type(got) is zb.DataFrame
    assert_frame_like(got, pdf, f"protocol {protocol}")
    for a, b in zip(_engine_columns(got), _engine_columns(df)):
        assert (a.dtype, a.length, a.null_count) == (b.dtype, b.length, b.null_count)
        assert a.to_pylist() == b.to_pylist()
        assert a.device == "cpu"


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_series_round_trip_keeps_name_and_dtype(protocol):
    pdf = _random_frame(64, seed=10 + protocol)
    for c in pdf.columns:
        s = zb.Series(pdf[c], name=c)
        got = pickle.loads(pickle.dumps(s, protocol=protocol))
        assert type(got) is zb.Series
        assert got.name == c and got.dtype == s.dtype
        assert_series_like(got, pdf[c], f"{c}, protocol {protocol}")
    unnamed = pickle.loads(pickle.dumps(zb.Series([1.5, None]), protocol=protocol))
    assert unnamed.name is None and unnamed.to_list() == [1.5, None]


@pytest.mark.parametrize("protocol", [2, 5])
def test_slices_round_trip_at_every_bit_offset(protocol):
    # offsets that are not multiples of 8 rebase the bitmaps (validity and
    # bool values); string slices rebase their offsets
    pdf = _random_frame(90, seed=3)
    df = zb.DataFrame(pdf)
    for start in range(0, 17):
        for stop in (start, start + 1, start + 9, 90):
            got = pickle.loads(pickle.dumps(df[start:stop], protocol=protocol))
            exp = pdf.iloc[start:stop]
            assert_frame_like(got, exp, f"rows {start}:{stop}")


def test_categorical_keeps_its_categories_and_codes():
    s = zb.Series(pd.Series(["b", None, "a", "b"], dtype=pd.CategoricalDtype(["b", "a", "c"])))
    got = pickle.loads(pickle.dumps(s[1:], protocol=5))
    assert got.to_pandas().cat.categories.tolist() == ["b", "a", "c"]
    assert got.to_list() == [None, "a", "b"]


def test_empty_and_all_null_frames():
    for obj in [zb.DataFrame(), zb.DataFrame({"a": []}), zb.Series([], name="e")]:
        for protocol in (2, 5):
            got = pickle.loads(pickle.dumps(obj, protocol=protocol))
            assert type(got) is type(obj) and len(got) == 0
    pdf = _random_frame(40, seed=7)
    empty = zb.DataFrame(pdf).head(0)
    assert_frame_like(pickle.loads(pickle.dumps(empty, protocol=5)), pdf.iloc[:0])
    dtypes = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float32", "float64", "string", "category", "date32", "timestamp[s]",
              "timestamp[ns, tz=Asia/Tokyo]"]
    nulls = zb.DataFrame({d: zb.Series([None] * 37, dtype=d) for d in dtypes})
    for protocol in (2, 5):
        got = pickle.loads(pickle.dumps(nulls[2:], protocol=protocol))
        assert got.dtypes.to_dict() == {d: d for d in dtypes}
        assert all(c.null_count == 35 for c in _engine_columns(got))
        assert got.to_dict("list") == {d: [pd.NaT if d.startswith("timestamp") else None] * 35
                                       for d in dtypes}


def test_engine_objects_pickle_on_their_own():
    df = zb.DataFrame(_random_frame(50, seed=11))
    t = pickle.loads(pickle.dumps(df._table, protocol=5))
    assert t.names == df._table.names and t.num_rows == 50
    col = df._table.column("string")
    got = pickle.loads(pickle.dumps(col, protocol=5))
    assert got.to_pylist() == col.to_pylist() and got.null_count == col.null_count


# -- out-of-band buffers ----------------------------------------------------

def _bits(raw, n):
    """A bitmap's bytes with the bits past row n cleared (padding, which
    Arrow leaves unspecified: a slice shares its parent's last byte)."""
    b = bytearray(raw)
    if n % 8:
        b[-1] &= (1 << (n % 8)) - 1
    return bytes(b)


def _address(buffer):
    return np.frombuffer(buffer, dtype=np.uint8).__array_interface__["data"][0] \
        if memoryview(buffer).nbytes else None


def test_out_of_band_buffers_are_the_engine_buffers():
    n = 100_000
    rng = np.random.default_rng(1)
    values = rng.integers(-10**12, 10**12, n)
    valid = rng.random(n) >= 0.1
    df = zb.DataFrame({"v": pd.Series(values, dtype="Int64").where(valid)})
    buffers = []
    payload = pickle.dumps(df, protocol=5, buffer_callback=buffers.append)
    assert all(isinstance(b, pickle.PickleBuffer) for b in buffers)
    raws = [b.raw() for b in buffers]
    # the validity bitmap and the values, as Arrow lays them out
    assert _bits(raws[0], n) == np.packbits(valid, bitorder="little").tobytes()
    got_values = np.frombuffer(raws[1], dtype=np.int64)
    assert np.array_equal(got_values[valid], values[valid])
    # no copy: the buffer pickle was handed is the engine's memory
    assert _address(raws[1]) == _address(df["v"]._col.values())
    assert sum(r.nbytes for r in raws) == 8 * n + (n + 7) // 8
    assert len(payload) < 600  # metadata only
    inband = pickle.dumps(df, protocol=5)
    assert 8 * n < len(inband) < 8 * n + (n + 7) // 8 + 600
    # loading with the buffers shares them too
    back = pickle.loads(payload, buffers=buffers)
    assert _address(back["v"]._col.values()) == _address(raws[1])
    assert back["v"].to_list() == df["v"].to_list()


def test_out_of_band_strings_bools_and_slices():
    words = ["ab", None, "", "Zambezi", "ñ", None, "xyz", "q"] * 5
    s = zb.Series(words)
    for start, stop in [(0, 40), (3, 17), (9, 10), (12, 12)]:
        part = s[start:stop]
        rows = words[start:stop]
        buffers = []
        payload = pickle.dumps(part, protocol=5, buffer_callback=buffers.append)
        raws = [b.raw().tobytes() for b in buffers]
        valid = [w is not None for w in rows]
        if all(valid):
            validity, (offsets, chars) = None, raws
        else:
            validity, offsets, chars = raws
            assert _bits(validity, len(rows)) == np.packbits(valid, bitorder="little").tobytes()
        encoded = [(w or "").encode() for w in rows]
        exp_offsets = np.concatenate([[0], np.cumsum([len(e) for e in encoded])]).astype(np.int64)
        assert np.array_equal(np.frombuffer(offsets, np.int64), exp_offsets)
        assert chars == b"".join(encoded)  # only the slice's own bytes
        assert pickle.loads(payload, buffers=buffers).to_list() == rows
    flags = [True, False, None, True, True, False, True, None, False, True, True, False] * 3
    b = zb.Series(flags)
    for start in range(0, 9):
        part = b[start:start + 20]
        buffers = []
        pickle.dumps(part, protocol=5, buffer_callback=buffers.append)
        rows = flags[start:start + 20]
        validity, data = (_bits(r.raw(), 20) for r in buffers)
        assert validity == np.packbits([f is not None for f in rows], bitorder="little").tobytes()
        assert data == np.packbits([bool(f) for f in rows], bitorder="little").tobytes()
        assert pickle.loads(pickle.dumps(part, protocol=5)).to_list() == rows


def test_writable_and_misaligned_buffers_load():
    df = zb.DataFrame({"i": [1, None, 3], "f": [0.5, 1.5, None], "s": ["a", "bc", None]})
    buffers = []
    payload = pickle.dumps(df, protocol=5, buffer_callback=buffers.append)
    # a transport that delivers bytearrays (writable), or memory at odd addresses
    writable = [bytearray(b.raw()) for b in buffers]
    assert pickle.loads(payload, buffers=writable).to_dict("list") == df.to_dict("list")
    odd = []
    for b in buffers:
        raw = b.raw().tobytes()
        arena = bytearray(len(raw) + 1)
        arena[1:] = raw
        odd.append(memoryview(arena)[1:])
    got = pickle.loads(payload, buffers=odd)
    assert got.to_dict("list") == df.to_dict("list")
    assert all(_address(b) % 8 == 1 for b in odd[:2])
    assert _address(got["i"]._col.values()) % 8 == 0  # copied to an aligned buffer


# -- corrupted payloads -----------------------------------------------------

def test_wrong_buffer_length_raises_a_clear_error():
    df = zb.DataFrame({"n": [1, 2, None, 4], "s": ["a", None, "ccc", "d"]})
    buffers = []
    payload = pickle.dumps(df, protocol=5, buffer_callback=buffers.append)
    for i in range(len(buffers)):
        raws = [b.raw().tobytes() for b in buffers]
        for bad in (raws[i][:-1], raws[i] + b"\0" * 8):
            broken = raws[:i] + [bad] + raws[i + 1:]
            with pytest.raises(InvalidValueError, match="holds .* bytes, not the"):
                pickle.loads(payload, buffers=broken)


def test_corrupt_contents_raise_instead_of_crashing():
    make = _core._column_from_pickle
    ones = np.packbits([1, 0, 1, 1], bitorder="little").tobytes()
    data = np.arange(4, dtype=np.int64).tobytes()
    with pytest.raises(InvalidValueError, match="has 1 nulls but the null count is 2"):
        make("int64", 4, 2, ones, data, None, None)
    with pytest.raises(InvalidValueError, match="no validity bitmap"):
        make("int64", 4, 1, None, data, None, None)
    with pytest.raises(InvalidValueError, match="invalid length"):
        make("int64", -1, 0, None, data, None, None)
    offsets = np.array([0, 2, 1, 3, 4], dtype=np.int64).tobytes()
    with pytest.raises(InvalidValueError, match="offsets decrease at row 1"):
        make("string", 4, 0, None, offsets, b"abcd", None)
    with pytest.raises(InvalidValueError, match="do not start at 0"):
        make("string", 1, 0, None, np.array([1, 2], np.int64).tobytes(), b"ab", None)
    with pytest.raises(InvalidValueError, match="string bytes holds 3 bytes, not the 4"):
        make("string", 4, 0, None, np.array([0, 1, 2, 3, 4], np.int64).tobytes(), b"abc", None)
    with pytest.raises(InvalidValueError, match="string bytes are missing"):
        make("string", 0, 0, None, np.zeros(1, np.int64).tobytes(), None, None)
    cats = zb.Series(["x", "y"])._col
    codes = np.array([0, 1, 2], dtype=np.int32).tobytes()
    with pytest.raises(InvalidValueError, match="code at row 2 is outside its 2 categories"):
        make("category", 3, 0, None, codes, None, cats)
    # a null row's code is not looked at
    got = make("category", 3, 1, np.packbits([1, 1, 0], bitorder="little").tobytes(), codes,
               None, cats)
    assert got.to_pylist() == ["x", "y", None]
    with pytest.raises(InvalidValueError, match="dictionary is a int"):
        make("category", 3, 0, None, codes, None, 5)
    with pytest.raises(InvalidValueError, match="only category columns have a dictionary"):
        make("int64", 4, 0, None, data, None, cats)
    with pytest.raises(InvalidValueError, match="not a contiguous buffer"):
        make("int64", 4, 0, None, "text", None, None)
    with pytest.raises(zb.DTypeError):
        make("no-such-dtype", 0, 0, None, b"", None, None)


# -- copy -------------------------------------------------------------------

def test_copy_and_deepcopy_share_the_immutable_data():
    df = zb.DataFrame({"a": [1, None, 3], "b": ["x", "y", None]})
    for fn in (copy.copy, copy.deepcopy):
        c = fn(df)
        assert type(c) is zb.DataFrame and c is not df
        assert c._table is df._table  # immutable engine data is shared
        c["z"] = [0, 0, 0]
        assert list(df.columns) == ["a", "b"] and list(c.columns) == ["a", "b", "z"]
        s = fn(df["b"])
        assert s is not df["b"] and s.name == "b" and s.to_list() == ["x", "y", None]
    col, t = df["a"]._col, df._table
    assert copy.copy(col) is col and copy.deepcopy(col) is col
    assert copy.copy(t) is t and copy.deepcopy(t) is t


class TaggedSeries(zb.Series):
    """A subclass with a slot of its own: pickling stores every slot."""

    __slots__ = ("tag",)


class LooseFrame(zb.DataFrame):
    """A subclass without __slots__ (it has an instance dict)."""


def test_every_slot_of_the_hierarchy_is_pickled():
    s = TaggedSeries([1, 2], name="n")
    s.tag = {"source": "meter 7"}
    for protocol in (0, 2, 5):
        got = pickle.loads(pickle.dumps(s, protocol=protocol))
        assert type(got) is TaggedSeries
        assert (got.tag, got.name, got.to_list()) == ({"source": "meter 7"}, "n", [1, 2])
    deep = copy.deepcopy(s)
    assert deep.tag == s.tag and deep.tag is not s.tag
    unset = pickle.loads(pickle.dumps(TaggedSeries([3]), protocol=5))
    assert not hasattr(unset, "tag") and unset.to_list() == [3]
    f = LooseFrame({"a": [1]})
    f.note = "kept"
    got = pickle.loads(pickle.dumps(f, protocol=5))
    assert type(got) is LooseFrame and got.note == "kept" and got.to_dict("list") == {"a": [1]}


# -- processes, files, devices, memory --------------------------------------

def test_a_frame_travels_to_a_spawned_worker_and_back():
    df = zb.DataFrame({"a": [1, None, 3], "s": ["x", None, "z"]})
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.map(len, [df]) == [3]
        (column,) = pool.map(operator.itemgetter("s"), [df])  # computed in the worker
    assert type(column) is zb.Series and column.to_list() == ["x", None, "z"]


@pytest.mark.parametrize("suffix", [".pkl", ".pkl.gz", ".pkl.bz2", ".pkl.xz"])
def test_to_pickle_and_read_pickle(tmp_path, suffix):
    pdf = _random_frame(120, seed=5)
    df = zb.DataFrame(pdf)
    path = tmp_path / f"frame{suffix}"
    df.to_pickle(path)
    assert_frame_like(zb.read_pickle(path), pdf)
    assert_frame_like(pd.read_pickle(path), pdf)  # pandas loads the zambezi object
    if suffix != ".pkl":
        with open(path, "rb") as f:
            head = f.read(2)
        assert head != b"\x80\x05"  # compressed, not a bare pickle
        assert_frame_like(zb.read_pickle(str(path), compression=suffix.rsplit(".", 1)[1]
                                         .replace("gz", "gzip")), pdf)
    zb.Series(pdf["string"], name="s").to_pickle(path, protocol=2)
    assert_series_like(zb.read_pickle(path), pdf["string"].rename("s"))


def test_pickle_file_objects_and_bad_arguments(tmp_path):
    df = zb.DataFrame({"a": [1, 2]})
    buf = io.BytesIO()
    df.to_pickle(buf)
    buf.seek(0)
    assert zb.read_pickle(buf).to_dict("list") == {"a": [1, 2]}
    with pytest.raises(UnsupportedError, match="storage_options"):
        df.to_pickle(tmp_path / "x.pkl", storage_options={"anon": True})
    with pytest.raises(UnsupportedError, match="storage_options"):
        zb.read_pickle(tmp_path / "x.pkl", storage_options={"anon": True})
    with pytest.raises(InvalidValueError, match="binary mode"):
        df.to_pickle(io.StringIO())
    with pytest.raises(InvalidValueError, match="path or a binary file object"):
        zb.read_pickle(42)
    with pytest.raises(UnsupportedError, match="compression 'rar'"):
        df.to_pickle(tmp_path / "x.pkl", compression="rar")
    # a zip archive holding one file, as pandas writes it: either reads it
    df.to_pickle(tmp_path / "x.pkl", compression="zip")
    assert zb.read_pickle(tmp_path / "x.pkl", compression="zip").to_dict("list") == {"a": [1, 2]}
    assert pd.read_pickle(tmp_path / "x.pkl", compression="zip").to_dict("list") == {"a": [1, 2]}


@pytest.mark.gpu
def test_a_gpu_frame_unpickles_on_the_cpu():
    pdf = _random_frame(200, seed=9)
    g = zb.DataFrame(pdf).to("cuda")
    for protocol in (4, 5):
        got = pickle.loads(pickle.dumps(g, protocol=protocol))
        assert got.device == "cpu"
        assert_frame_like(got, pdf)


def test_engine_memory_returns_after_round_trips():
    gc.collect()
    before = _core.alloc_stats()
    pdf = _random_frame(500, seed=12)
    df = zb.DataFrame(pdf)
    buffers = []
    payload = pickle.dumps(df[3:450], protocol=5, buffer_callback=buffers.append)
    shared = pickle.loads(payload, buffers=buffers)
    copies = [pickle.loads(pickle.dumps(df, protocol=p)) for p in (2, 5)]
    del df, payload, buffers
    assert alloc_bytes() > before["host_bytes"]
    # the shared frame keeps the original's memory alive
    assert_frame_like(shared, pdf.iloc[3:450])
    del shared, copies
    gc.collect()
    after = _core.alloc_stats()
    assert after["host_bytes"] == before["host_bytes"]
    assert after["host_allocations"] == before["host_allocations"]


def test_nothing_leaks_when_allocations_fail():
    from conftest import fail_allocations_in_turn

    df = zb.DataFrame({"b": [True, None, False] * 7, "s": ["ab", None, "c"] * 7})[3:]
    got, failed = fail_allocations_in_turn(
        lambda: pickle.loads(pickle.dumps(df, protocol=5)), "pickle round trip")
    assert failed >= 1 and got.to_dict("list") == df.to_dict("list")
