"""GPU tests: string methods and dt fields on the CUDA backend against the
CPU backend.

Marked ``gpu``; skipped (conftest.py) without a usable CUDA device.

Every str method the engine has (len, contains / startswith / endswith
with ASCII and non-ASCII patterns and the empty pattern, strip / lstrip /
rstrip on whitespace and on character sets, slice with positive, negative
and omitted bounds and steps, replace with limits and the empty pattern,
upper / lower through the Unicode table), string comparisons with a
string or a column, and every dt field (date32 and
timestamps of each unit, before and after 1970, with a fixed-offset
timezone) runs on the GPU over strings with nulls, empty strings, accented
letters, sharp s, dotted capital I, emoji and malformed UTF-8, at sizes
around warp boundaries up to 10**6 + 1, whole and as slices at odd offsets.
The GPU result must equal the CPU's (same dtype, nulls, bytes) and the
profile must show the GPU ran it, without a fallback.
"""

import numpy as np
import pyarrow as pa
import pytest
from conftest import assert_same_on_gpu

import zambezi as zb


pytestmark = pytest.mark.gpu

SIZES = [0, 1, 31, 32, 33, 1025, 1_000_001]
POOL = ["", "a", "  padded  ", "\tx\n", "ab", "Ab", "\u00e9l\u00e8ve", "\u00c9COLE", "stra\u00dfe",
        "\u0130stanbul", "\u03c3\u03bf\u03c6\u03af\u03b1", "\U0001f600 ok", "xyxyx", "a.b.c",
        "\u00a0nbsp\u2003"]


def strings(n, seed, nulls=True):
    """A pyarrow large_string array of n values drawn from POOL, some glued
    together, about 15% null, and (at row 3) a malformed UTF-8 byte."""
    rng = np.random.default_rng(seed)
    a = [POOL[k] for k in rng.integers(0, len(POOL), n)]
    b = [POOL[k] for k in rng.integers(0, len(POOL), n)]
    vals = [x + y if g else x for x, y, g in zip(a, b, rng.random(n) < 0.3)]
    mask = rng.random(n) < 0.15 if nulls else np.zeros(n, dtype=bool)
    arr = pa.array(vals, type=pa.large_string(), mask=mask)
    if n > 3:  # a lone continuation byte, as the CPU's tests use
        offs = np.frombuffer(arr.buffers()[1], dtype=np.int64)[:n + 1].copy()
        data = bytearray(arr.buffers()[2].to_pybytes())
        data[offs[3]:offs[3]] = b"\x80"
        offs[4:] += 1
        arr = pa.LargeStringArray.from_buffers(n, pa.py_buffer(offs.tobytes()),
                                               pa.py_buffer(bytes(data)), arr.buffers()[0])
    return arr


def on_both(arr, sliced):
    """(CPU Series, GPU Series) of arr, sliced at an odd offset if asked."""
    host = zb.Series(arr)
    gpu = host.to("cuda")
    if sliced:
        host, gpu = host[5:], gpu[5:]
    return host, gpu


STR_CALLS = [
    ("len", lambda s: s.str.len()),
    ("contains", lambda s: s.str.contains("a", regex=False)),
    ("contains non-ASCII", lambda s: s.str.contains("\u00e8", regex=False)),
    ("contains empty", lambda s: s.str.contains("", regex=False)),
    ("startswith", lambda s: s.str.startswith("a")),
    ("endswith", lambda s: s.str.endswith("x")),
    ("strip", lambda s: s.str.strip()),
    ("lstrip set", lambda s: s.str.lstrip("a \u00e9")),
    ("rstrip", lambda s: s.str.rstrip()),
    ("slice 1:4", lambda s: s.str.slice(1, 4)),
    ("slice ::-1", lambda s: s.str.slice(None, None, -1)),
    ("slice -3::2", lambda s: s.str.slice(-3, None, 2)),
    ("replace", lambda s: s.str.replace("a", "\u00c5\u00c5")),
    ("replace n=1", lambda s: s.str.replace("x", "", n=1)),
    ("replace empty pattern", lambda s: s.str.replace("", "-")),
    ("upper", lambda s: s.str.upper()),
    ("lower", lambda s: s.str.lower()),
]


def ran_on_gpu(p, what):
    recs = [r for r in p.records if r.data_device.startswith("cuda")]
    assert recs, f"{what}: nothing recorded on the GPU"
    for r in recs:
        assert r.device.startswith("cuda") and not r.fallback, (
            f"{what}: {r.op} ran on {r.device} (fallback: {r.reason!r})")


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("sliced", [False, True])
def test_str_methods_match_cpu(n, sliced):
    host, gpu = on_both(strings(n + 5, n), sliced)
    for name, call in STR_CALLS:
        what = f"{name}[{n}] sliced={sliced}"
        with zb.profile() as p:
            got = call(gpu)
        ran_on_gpu(p, what)
        assert_same_on_gpu(got._col, call(host)._col, what)


# Series.str methods the GPU's table leaves out (regular expressions on PCRE2,
# the text methods of src/cpu/str_text.h): the CPU runs them over host
# copies, the profile says so, and the result comes back to the GPU.
CPU_ONLY_STR_CALLS = [
    ("contains regex", lambda s: s.str.contains(r"a\w")),
    ("replace regex", lambda s: s.str.replace(r"(a)(b)?", r"<\1>", regex=True)),
    ("count", lambda s: s.str.count("a")),
    ("title", lambda s: s.str.title()),
    ("isalpha", lambda s: s.str.isalpha()),
    ("find", lambda s: s.str.find("a")),
    ("zfill", lambda s: s.str.zfill(6)),
]


def test_cpu_only_str_methods_fall_back_with_the_cpu_results():
    host, gpu = on_both(strings(3000, 4), False)
    for name, call in CPU_ONLY_STR_CALLS:
        with zb.profile() as p:
            got = call(gpu)
        assert any(r.fallback for r in p.records), f"{name}: no fallback recorded"
        assert_same_on_gpu(got._col, call(host)._col, name)
    got = gpu.str.extract(r"(a)(\w)?")
    assert got.to("cpu").to_dict("list") == host.str.extract(r"(a)(\w)?").to_dict("list")


def test_str_methods_without_nulls_and_on_categoricals():
    arr = strings(2000, 9, nulls=False)
    host, gpu = on_both(arr, False)
    for name, call in STR_CALLS:
        assert_same_on_gpu(call(gpu)._col, call(host)._col, f"{name} no nulls")
    cat = zb.Series(arr.dictionary_encode())
    for name, call in STR_CALLS:
        assert_same_on_gpu(call(cat.to("cuda"))._col, call(cat)._col, f"{name} categorical")


def test_str_results_against_python():
    vals = ["stra\u00dfe", "\u0130I", "  x ", None, "abc", "\U0001f600a"]
    g = zb.Series(vals, dtype="string").to("cuda")
    assert g.str.upper().to_list() == ["STRA\u1e9eE", "\u0130I", "  X ", None, "ABC",
                                        "\U0001f600A"]
    assert g.str.lower().to_list() == ["stra\u00dfe", "ii", "  x ", None, "abc", "\U0001f600a"]
    assert g.str.len().to_list() == [6, 2, 4, None, 3, 2]
    assert g.str.strip().to_list() == ["stra\u00dfe", "\u0130I", "x", None, "abc",
                                        "\U0001f600a"]
    assert g.str.slice(None, None, -1).to_list() == [v[::-1] if v is not None else None
                                                      for v in vals]
    assert g.str.contains("a", regex=False).to_list() == [True, False, False, None, True, True]


DT_FIELDS = ["year", "month", "day", "hour", "minute", "second", "microsecond", "nanosecond",
             "dayofweek", "dayofyear", "quarter"]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("unit", ["date32", "s", "ms", "us", "ns", "ns+05:30"])
def test_dt_fields_match_cpu(n, unit):
    rng = np.random.default_rng(n)
    mask = rng.random(n + 5) < 0.15
    if unit == "date32":
        arr = pa.array(rng.integers(-200_000, 200_000, n + 5).astype(np.int32), mask=mask
                       ).cast(pa.date32())
    else:
        u = unit[:2].rstrip("+")
        span = {"s": 6 * 10**9, "ms": 6 * 10**12, "us": 6 * 10**15, "ns": 9 * 10**18}[u]
        tz = "+05:30" if "+" in unit else None
        arr = pa.array(rng.integers(-span, span, n + 5), mask=mask).cast(pa.timestamp(u, tz))
    for sliced in (False, True):
        host, gpu = on_both(arr, sliced)
        for f in DT_FIELDS:
            if unit == "date32" and f in ("hour", "minute", "second", "microsecond", "nanosecond"):
                continue
            what = f"dt.{f} {unit}[{n}] sliced={sliced}"
            with zb.profile() as p:
                got = getattr(gpu.dt, f)
            ran_on_gpu(p, what)
            assert_same_on_gpu(got._col, getattr(host.dt, f)._col, what)


def test_dt_year_overflow_is_the_same_error():
    arr = pa.array([0, 2**40 * 86400, None, 2**41 * 86400], type=pa.int64()).cast(
        pa.timestamp("s"))
    host = zb.Series(arr)
    with pytest.raises(zb.errors.ZambeziOverflowError) as cpu_err:
        host.dt.year
    with pytest.raises(zb.errors.ZambeziOverflowError) as gpu_err:
        host.to("cuda").dt.year
    assert str(gpu_err.value) == str(cpu_err.value)
    assert "row 1" in str(gpu_err.value)


@pytest.mark.parametrize("n", SIZES)
def test_string_comparisons_match_cpu(n):
    """==, !=, <, <=, >, >= of strings with a string (both orders, a null
    scalar, a prefix of others, non-ASCII) and with a column, on the GPU
    without a fallback: the CPU's bools and nulls."""
    host, gpu = on_both(strings(n + 5, 100 + n), True)
    other_h, other_g = on_both(strings(n + 5, 200 + n), True)
    core = zb._core
    for op in ("eq", "ne", "lt", "le", "gt", "ge"):
        for value in ("ab", "", "\u00e9l\u00e8ve", None):
            for first in (False, True):
                what = f"{op} {value!r} first={first} [{n}]"
                with zb.profile() as p:
                    got = core.binary_scalar(op, gpu._col, value, first)
                ran_on_gpu(p, what)
                assert_same_on_gpu(got, core.binary_scalar(op, host._col, value, first), what)
        what = f"{op} column [{n}]"
        with zb.profile() as p:
            got = core.binary(op, gpu._col, other_g._col)
        ran_on_gpu(p, what)
        assert_same_on_gpu(got, core.binary(op, host._col, other_h._col), what)
    cat_h = zb.Series(strings(n + 5, 300 + n).dictionary_encode())
    got = core.binary_scalar("eq", cat_h.to("cuda")._col, "ab", False)
    assert_same_on_gpu(got, core.binary_scalar("eq", cat_h._col, "ab", False), "categorical")
