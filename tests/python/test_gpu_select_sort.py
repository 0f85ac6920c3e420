"""GPU tests: filter, take and sort permutations on the CUDA backend against
the CPU backend.

Marked ``gpu``; its tests are skipped (conftest.py) when the engine reports no usable
CUDA device, so it is safe to collect everywhere.

Every dtype (bool, the integers, floats, strings, categoricals, dates,
timestamps) is built with nulls (and, for floats, NaN, -0.0, +-inf) at sizes
around warp, word and block boundaries up to 10**6 + 1, whole and as
zero-copy slices whose offsets are not multiples of 8 (sliced on the CPU
then moved, and moved then sliced on the GPU), and:
  * filter by a bool mask with nulls (a null drops the row), also sliced;
  * take by int64 positions with null positions (-> null rows), duplicates;
  * sort_indices ascending / descending, nulls first / last, single and
    multi-key, string keys included (CUB's merge sort on the GPU);
give results identical to the CPU backend's: same dtype, same nulls, same
values bit for bit (floats compared as their bits), the same permutation
(both sorts are stable).  Also: the public DataFrame / Series paths on a GPU
frame, more than 2**31 rows and more than 2**31 string bytes (64-bit
indices), and injected allocation failures at every step leaking nothing.
"""

import gc

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import assert_same_on_gpu as assert_same
from conftest import device_memory, fail_allocations_in_turn
from conftest import seed_for as _seed

import zambezi as zb


pytestmark = pytest.mark.gpu

core = zb._core
GPU = "cuda"

DTYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "string", "category", "date32", "timestamp",
]
SIZES = [0, 1, 31, 32, 33, 1023, 1024, 1025, 1_000_001]
WORDS = np.array(["", "a", "ab", "b", "zambezi", "naïve ✓", "x" * 40, "A", "a\x00b"], dtype=object)
CATEGORIES = pa.array(["pear", "apple", "fig", "", "kiwi", "Apple"], type=pa.large_string())


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------


def _with_ties(rng, vals, pool):
    """Replace about a third of vals with values from pool (ties for sorts)."""
    if len(vals):
        at = rng.random(len(vals)) < 0.35
        vals[at] = rng.choice(pool, int(at.sum()))
    return vals


def arrow_values(dtype, n, seed, nulls=True):
    """A pyarrow array of n random values of dtype, about 20% null."""
    rng = np.random.default_rng(seed)
    mask = (rng.random(n) < 0.2) if nulls else None
    if dtype == "bool":
        return pa.array(rng.integers(0, 2, n).astype(bool), mask=mask)
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        vals = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        pool = np.array([info.min, info.max, 0, 1, info.max // 3], dtype=dtype)
        return pa.array(_with_ties(rng, vals, pool), mask=mask)
    if dtype.startswith("float"):
        vals = rng.uniform(-1e3, 1e3, n).astype(dtype)
        pool = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1.5, -1.5], dtype=dtype)
        return pa.array(_with_ties(rng, vals, pool), mask=mask, from_pandas=False)
    if dtype == "string":
        vals = WORDS[rng.integers(0, len(WORDS), n)]
        long_rows = rng.random(n) < 0.02
        vals[long_rows] = ["y" * int(k) for k in rng.integers(17, 300, int(long_rows.sum()))]
        return pa.array(vals, type=pa.large_string(), mask=mask)
    if dtype == "category":
        codes = rng.integers(0, len(CATEGORIES), n).astype(np.int32)
        return pa.DictionaryArray.from_arrays(pa.array(codes, mask=mask), CATEGORIES)
    if dtype == "date32":
        days = _with_ties(rng, rng.integers(-30000, 30000, n).astype(np.int32),
                          np.array([0, -1, 10957], dtype=np.int32))
        return pa.array(days, type=pa.date32(), mask=mask)
    if dtype == "timestamp":
        us = _with_ties(rng, rng.integers(-(10**15), 10**15, n),
                        np.array([0, 1, -1], dtype=np.int64))
        return pa.array(us, type=pa.timestamp("us", tz="UTC"), mask=mask)
    raise AssertionError(dtype)


def column(arr):
    """A host engine column holding a pyarrow array."""
    return zb.Series(arr)._col


def host_column(dtype, n, seed, nulls=True):
    return column(arrow_values(dtype, n, seed, nulls))


def mask_column(n, seed, nulls=True, p_true=0.5):
    rng = np.random.default_rng(seed + 101)
    m = (rng.random(n) < 0.1) if nulls else None
    return column(pa.array(rng.random(n) < p_true, mask=m))


def index_column(n_out, n_rows, seed, nulls=True):
    """int64 positions in [0, n_rows) (duplicates included), about 10% null;
    all null when n_rows is 0."""
    rng = np.random.default_rng(seed + 202)
    if n_rows == 0:
        return column(pa.array(np.zeros(n_out, np.int64), mask=np.ones(n_out, bool)))
    idx = rng.integers(0, n_rows, n_out, dtype=np.int64)
    m = (rng.random(n_out) < 0.1) if nulls else None
    return column(pa.array(idx, mask=m))


def pairs(*cols):
    """[(label, host inputs, GPU inputs)] for whole columns."""
    return [("whole", cols, [c.to_device(GPU) for c in cols])]


def both_ways(base, off, n):
    """The slice [off, off + n) of a host column: on the host, sliced on the
    host then moved to the GPU, and moved then sliced on the GPU."""
    h = base.slice(off, n)
    return h, h.to_device(GPU), base.to_device(GPU).slice(off, n)


def sliced_cases(*sliced):
    """Cases from both_ways() results of several inputs."""
    hosts = [s[0] for s in sliced]
    return [("slice-then-move", hosts, [s[1] for s in sliced]),
            ("move-then-slice", hosts, [s[2] for s in sliced])]


# --------------------------------------------------------------------------
# comparison
# --------------------------------------------------------------------------


# --------------------------------------------------------------------------
# filter
# --------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_filter_matches_cpu(dtype, n):
    seed = _seed("filter", dtype, n)
    cases = []
    for nulls in ((True, False) if n <= 1025 else (True,)):
        cases += [(f"nulls={nulls} {lab}", h, g) for lab, h, g in pairs(
            host_column(dtype, n, seed, nulls), mask_column(n, seed, nulls))]
    cases += sliced_cases(both_ways(host_column(dtype, n + 8, seed + 1), 3, n),
                          both_ways(mask_column(n + 18, seed + 1), 13, n))
    for label, (hc, hm), (gc_, gm) in cases:
        assert_same(core.filter(gc_, gm), core.filter(hc, hm), f"filter {dtype}[{n}] {label}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_filter_all_and_nothing(dtype):
    n = 1025
    hc = host_column(dtype, n, _seed("all", dtype))
    for p_true, nulls in ((1.0, False), (0.0, False), (1.0, True)):
        hm = mask_column(n, 5, nulls, p_true)
        assert_same(core.filter(hc.to_device(GPU), hm.to_device(GPU)), core.filter(hc, hm),
                    f"filter {dtype} p_true={p_true} nulls={nulls}")


# --------------------------------------------------------------------------
# take
# --------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_take_matches_cpu(dtype, n):
    seed = _seed("take", dtype, n)
    cases = []
    for nulls in ((True, False) if n <= 1025 else (True,)):
        hc = host_column(dtype, n, seed, nulls)
        # as many positions as rows, and a few more than that (duplicates)
        for n_out in (n, n + 37):
            cases += [(f"nulls={nulls} out={n_out} {lab}", h, g)
                      for lab, h, g in pairs(hc, index_column(n_out, n, seed + n_out, nulls))]
    cases += sliced_cases(both_ways(host_column(dtype, n + 8, seed + 2), 5, n),
                          both_ways(index_column(n + 14, n, seed + 3), 9, n))
    for label, (hc, hi), (gc_, gi) in cases:
        assert_same(core.take(gc_, gi), core.take(hc, hi), f"take {dtype}[{n}] {label}")


def test_take_from_empty_column_with_null_positions():
    for dtype in DTYPES:
        hc = host_column(dtype, 0, 1)
        hi = index_column(70, 0, 1)
        assert_same(core.take(hc.to_device(GPU), hi.to_device(GPU)), core.take(hc, hi),
                    f"take {dtype} from an empty column")


def test_take_table_with_device_indices():
    n = 4099
    names = ["b", "i", "f", "s", "c", "t"]
    types = ["bool", "int32", "float64", "string", "category", "timestamp"]
    cols = [host_column(t, n, _seed("tt", t)) for t in types]
    ht = core.table_from_columns(cols, names)
    hi = index_column(2 * n, n, 77)
    got = core.take(ht.to_device(GPU), hi.to_device(GPU))
    want = core.take(ht, hi)
    assert got.names == want.names
    for j, name in enumerate(names):
        assert_same(got.column(j), want.column(j), f"take table column {name}")


# --------------------------------------------------------------------------
# sort
# --------------------------------------------------------------------------


def _check_sorts(hcol, gcol, what):
    for asc in (True, False):
        for nulls_first in (False, True):
            assert_same(core.sort_indices(gcol, asc, nulls_first),
                        core.sort_indices(hcol, asc, nulls_first),
                        f"{what} ascending={asc} nulls_first={nulls_first}")


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_indices_matches_cpu(dtype, n):
    seed = _seed("sort", dtype, n)
    cases = []
    for nulls in ((True, False) if n <= 1025 else (True,)):
        cases += [(f"nulls={nulls} {lab}", h, g)
                  for lab, h, g in pairs(host_column(dtype, n, seed, nulls))]
    cases += sliced_cases(both_ways(host_column(dtype, n + 7, seed + 1), 5, n))
    for label, (hc,), (gcol,) in cases:
        _check_sorts(hc, gcol, f"sort {dtype}[{n}] {label}")


def test_sort_float_special_values():
    vals = [np.nan, -0.0, 0.0, np.inf, -np.inf, None, 1.0, -1.0, np.nan, 0.0, -0.0, None]
    for dtype in ("float32", "float64"):
        arr = pa.array(np.array([np.nan if v is None else v for v in vals], dtype=dtype),
                       mask=np.array([v is None for v in vals]), from_pandas=False)
        hc = column(arr)
        _check_sorts(hc, hc.to_device(GPU), f"sort {dtype} specials")


def _key_table(n, seed, names=("i8", "f64", "b", "cat", "d", "s", "u16", "f32")):
    types = {"i8": "int8", "f64": "float64", "b": "bool", "cat": "category", "d": "date32",
             "s": "string", "u16": "uint16", "f32": "float32"}
    cols = []
    for j, name in enumerate(names):
        arr = arrow_values(types[name], n, seed + j)
        if name in ("i8", "u16"):  # few distinct values: multi-key ties
            arr = pa.array(np.asarray(arr.fill_null(0)) % 4, mask=np.asarray(arr.is_null()),
                           type=arr.type)
        cols.append(column(arr))
    return core.table_from_columns(cols, list(names)), list(names)


KEY_SETS = [
    (["i8", "f64"], [True, False]),
    (["b", "cat", "i8"], [False, True, True]),
    (["d", "f32", "u16", "i8"], [True, True, False, True]),
    (["u16", "f64", "f64"], [False, True, False]),
    (["i8", "s"], [True, False]),
    (["s", "i8"], [False, True]),
    (["cat"], [False]),
]


@pytest.mark.parametrize("n", [0, 1, 33, 1025, 1_000_001])
def test_multi_key_sort_matches_cpu(n):
    ht, names = _key_table(n + 6, _seed("multi", n))
    sliced = ht.slice(3, n)
    for label, host, gpu in (
        ("slice-then-move", sliced, sliced.to_device(GPU)),
        ("move-then-slice", sliced, ht.to_device(GPU).slice(3, n)),
    ):
        for keys, asc in KEY_SETS:
            idx = [names.index(k) for k in keys]
            for nulls_first in (False, True):
                assert_same(core.sort_indices(gpu, idx, asc, nulls_first),
                            core.sort_indices(host, idx, asc, nulls_first),
                            f"sort by {keys} {asc} nulls_first={nulls_first} [{n}] {label}")


def test_string_sort_runs_on_the_gpu():
    """String keys sort on the GPU without a fallback: empty strings,
    prefixes of one another, long shared prefixes, bytes above 0x7f (UTF-8
    orders by code point when compared byte by byte), embedded NUL."""
    pool = ["", "a", "ab", "abc", "b", "\u00e9", "e", "\u00e9a", "Z", "a\x00", "a\x00b",
            "x" * 40, "x" * 40 + "a", "x" * 39 + "y", "\U0001f600", "\uffff", None]
    rng = np.random.default_rng(7)
    for n in (2, 33, 1025, 100_003):
        picks = [pool[k] for k in rng.integers(0, len(pool), n)]
        host = column(pa.array(picks, type=pa.large_string()))
        gpu = host.to_device(GPU)
        for asc in (True, False):
            for nulls_first in (False, True):
                with zb.profile() as p:
                    got = core.sort_indices(gpu, asc, nulls_first)
                what = f"strings[{n}] ascending={asc} nulls_first={nulls_first}"
                assert_same(got, core.sort_indices(host, asc, nulls_first), what)
                recs = [r for r in p.records if r.op.startswith("sort")]
                assert recs and all(r.device.startswith("cuda") and not r.fallback
                                    for r in recs), f"{what}: {recs}"
        want = sorted(range(n), key=lambda i: (picks[i] is None, picks[i] or ""))
        assert core.sort_indices(gpu, True, False).to_device("cpu").to_pylist() == want


def test_dataframe_paths_on_the_gpu():
    """Public API on a GPU frame: sort_values (permutation, then a gather of
    every column), boolean-mask selection, Series.sort_values."""
    n = 20_011
    ht, names = _key_table(n, 99)
    df = zb.DataFrame(pa.table({nm: pa.array(ht.column(j)) for j, nm in enumerate(names)}))
    g = df.to(GPU)
    assert str(g.device) == "cuda:0"
    for by, asc in KEY_SETS:
        for na in ("last", "first"):
            got = g.sort_values(by, ascending=asc, na_position=na)
            assert str(got.device) == "cuda:0"
            pd.testing.assert_frame_equal(
                got.to("cpu").to_pandas(),
                df.sort_values(by, ascending=asc, na_position=na).to_pandas())
    got = g[g["u16"] > 1]
    assert str(got.device) == "cuda:0"
    pd.testing.assert_frame_equal(got.to("cpu").to_pandas(), df[df["u16"] > 1].to_pandas())
    for name in ("f64", "s", "cat", "b"):
        pd.testing.assert_series_equal(
            g[name].sort_values(ascending=False).to("cpu").to_pandas(),
            df[name].sort_values(ascending=False).to_pandas())


# --------------------------------------------------------------------------
# 64-bit sizes
# --------------------------------------------------------------------------


def _repeat(pattern, n):
    """pattern repeated to n values, built in blocks (np.resize of a huge
    length needs several times the result's memory)."""
    block = np.resize(pattern, len(pattern) * (1 << 20))
    out = np.empty(n, dtype=block.dtype)
    for start in range(0, n, len(block)):
        out[start:start + len(block)] = block[:n - start]
    return out


@pytest.mark.big
def test_filter_and_take_beyond_2_pow_31_rows():
    n = 2**31 + 37
    vals = _repeat(np.arange(7, dtype=np.int8), n)
    keep = _repeat(np.array([True, False, False]), n)  # every third row
    g = zb.Series(vals).to(GPU)
    gm = zb.Series(keep).to(GPU)
    want_sum = int(vals[::3].sum(dtype=np.int64))
    del keep
    gc.collect()
    f = core.filter(g._col, gm._col)
    assert f.length == (n + 2) // 3 and str(f.device) == "cuda:0"
    assert int(f.reduce("sum")) == want_sum
    tail = f.slice(f.length - 3, 3).to_device("cpu").to_pylist()
    assert tail == [int(v) for v in vals[::3][-3:]]
    del f, gm
    pos = np.array([n - 1, 0, 2**31, 2**31 - 1, n - 2, 2**32 % n], dtype=np.int64)
    t = core.take(g._col, column(pa.array(pos)).to_device(GPU))
    assert t.to_device("cpu").to_pylist() == [int(vals[p]) for p in pos]
    del g, t, vals


@pytest.mark.big
def test_strings_beyond_2_pow_31_bytes():
    size = 750_000_000  # three of them: more than 2**31 bytes
    arr = pa.array([c * (size - 1) + str(k) for k, c in enumerate("abc")],
                   type=pa.large_string())
    gcol = column(arr).to_device(GPU)
    pos = pa.array([2, None, 0], type=pa.int64())
    got = core.take(gcol, column(pos).to_device(GPU))
    assert got.null_count == 1
    assert pa.array(got.to_device("cpu")).equals(arr.take(pos))
    del got
    got = core.filter(gcol, column(pa.array([False, True, True])).to_device(GPU))
    assert pa.array(got.to_device("cpu")).equals(arr.slice(1, 2))
    del got, gcol, arr


# --------------------------------------------------------------------------
# memory
# --------------------------------------------------------------------------


def _gpu_ops():
    n = 5000
    s = host_column("string", n, 3).to_device(GPU)
    b = host_column("bool", n, 4).to_device(GPU)
    m = mask_column(n, 5).to_device(GPU)
    i = index_column(n, n, 6).to_device(GPU)
    t, names = _key_table(n, 7)
    gt = t.to_device(GPU)
    keys = [names.index("cat"), names.index("f64"), names.index("i8")]
    return [
        ("filter strings", lambda: core.filter(s, m)),
        ("filter bool", lambda: core.filter(b, m)),
        ("take strings", lambda: core.take(s, i)),
        ("take bool", lambda: core.take(b, i)),
        ("sort", lambda: core.sort_indices(gt, keys, [True, False, True], False)),
    ]


def test_injected_failures_leak_nothing():
    for name, op in _gpu_ops():
        want = op()
        got, failed = fail_allocations_in_turn(op, name, memory=device_memory)
        assert_same(got, want, f"{name} after {failed} injected failures")
        del got, want
