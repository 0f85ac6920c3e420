"""GPU tests: joins and the distinct-value operations (unique, nunique,
value_counts, duplicated / drop_duplicates, isin) on the CUDA backend against
the CPU backend.

Marked ``gpu``; its tests are skipped (conftest.py) when the engine reports no usable
CUDA device, so it is safe to collect everywhere.

Key columns of every dtype (bool, the integers, floats with NaN, -0.0 and
inf, dates, timestamps, categoricals, strings) are drawn from small pools so
that both sides repeat keys, some keys meet and some do not, with about 15%
nulls, at sizes around warp, word and block boundaries up to 10**6 + 1 on
either side; also all-equal, disjoint and all-null keys, several key columns,
key pairs of different types (integer widths, uint64 above INT64_MAX against
int64, int against float, float32 against float64, timestamp units,
categoricals with different dictionaries) and sliced tables.  For every join
kind the GPU's index pairs equal the CPU's exactly (same pairs, same order,
same nulls); merge() of GPU frames equals merge() of CPU frames; the GPU's
unique / nunique / value_counts / duplicated / drop_duplicates / isin equal
the CPU's.  Inside zb.profile() the supported cases run on the GPU without a
fallback, and the declined one (cross joins) is recorded as a fallback with
a reason.  Also: an output of more than 2**31 pairs, and
injected allocation failures leaking nothing.
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

KEY_DTYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "date32", "timestamp", "category", "string",
]
HOWS = ["inner", "left", "right", "outer", "semi", "anti"]
SIZES = [0, 1, 31, 32, 33, 1023, 1024, 1025, 1_000_001]
# (left rows, right rows): every size on either side
SIZE_PAIRS = [(0, 0), (0, 33), (33, 0), (1, 1), (1, 1025), (1025, 1), (31, 32), (32, 33),
              (33, 31), (1023, 1024), (1024, 1025), (1025, 1023), (1_000_001, 1025),
              (1025, 1_000_001), (1_000_001, 1_000_001)]
CATEGORIES = ["pear", "apple", "fig", "", "kiwi", "Apple", "plum", "x" * 30]
CAPACITY = {"bool": 2, "int8": 256, "uint8": 256, "int16": 65536, "uint16": 65536,
            "category": len(CATEGORIES)}
STAT_OPS = ("unique", "nunique", "value_counts", "duplicated", "drop_duplicates", "isin")


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------


def key_array(dtype, n, pool, seed, nulls=0.15, shift=0):
    """n keys of dtype drawn from about `pool` distinct values (value k + shift
    for k < pool), about `nulls` of them null."""
    rng = np.random.default_rng(seed)
    mask = (rng.random(n) < nulls) if nulls else None
    k = rng.integers(0, max(pool, 1), n, dtype=np.int64) + shift
    if dtype == "bool":
        return pa.array((k % 2).astype(bool), mask=mask)
    if dtype.startswith("float"):
        v = (k - pool // 2).astype(np.float64) * 0.5
        # NaN, -0.0, 0.0, +-inf at about 5%, at most ~100 rows (they match
        # each other: a bounded output)
        special = rng.random(n) < min(0.05, 100 / max(n, 1))
        v[special] = rng.choice(np.array([np.nan, -0.0, 0.0, np.inf, -np.inf]),
                                int(special.sum()))
        return pa.array(v.astype(dtype), mask=mask, from_pandas=False)
    if dtype == "category":
        codes = (k % len(CATEGORIES)).astype(np.int32)
        return pa.DictionaryArray.from_arrays(pa.array(codes, mask=mask),
                                              pa.array(CATEGORIES, type=pa.large_string()))
    if dtype == "date32":
        return pa.array((k - pool // 2).astype(np.int32), type=pa.date32(), mask=mask)
    if dtype == "string":  # empty, prefixes of each other, non-ASCII
        words = np.array(["", "a", "ab", "na\u00efve"] + [f"k{j}" for j in range(4, max(pool, 4))],
                         dtype=object)
        return pa.array(words[k % len(words)], type=pa.large_string(), mask=mask)
    if dtype == "timestamp":
        return pa.array((k - pool // 2) * 1_000_003, type=pa.timestamp("us"), mask=mask)
    info = np.iinfo(dtype)
    if info.min < 0:  # signed: around zero, negatives included
        k = k - pool // 2
    v = np.clip(k, info.min, info.max)
    if dtype == "uint64":  # large values too (above INT64_MAX)
        big = rng.random(n) < 0.1
        out = v.astype(np.uint64)
        out[big] = np.uint64(2**63) + out[big]
        return pa.array(out, mask=mask)
    return pa.array(v.astype(dtype), mask=mask)


def column(arr):
    return zb.Series(arr)._col


def table(arrays, names=None):
    names = names or [f"k{i}" for i in range(len(arrays))]
    return core.table_from_columns([column(a) for a in arrays], names)


def pool_for(dtype, n_left, n_right):
    """A key pool giving duplicates on both sides and an output of at most a
    few 10**7 pairs."""
    want = max(4, (n_left + n_right) // 3)
    # expected pairs ~ n_left * n_right / pool
    want = max(want, n_left * n_right // 20_000_000 + 1)
    return min(want, CAPACITY.get(dtype, want))


def fits(dtype, n_left, n_right):
    return n_left * n_right / pool_for(dtype, n_left, n_right) <= 30_000_000


# --------------------------------------------------------------------------
# comparison
# --------------------------------------------------------------------------


def records(p, ops):
    """The profile's records of ops on data in GPU memory (not, say, a
    categorical's dictionary checked on the host)."""
    return [r for r in p.records if r.op in ops and r.data_device.startswith("cuda")]


def assert_on_gpu(p, ops, what):
    """The profile recorded the operations ops, none of them a fallback."""
    recs = records(p, ops)
    assert recs, f"{what}: no profile record for {ops}"
    for r in recs:
        assert r.device.startswith("cuda") and not r.fallback, (
            f"{what}: {r.op} ran on {r.device} (fallback: {r.reason!r})")


def assert_fell_back(p, op, what):
    recs = records(p, (op,))
    assert recs and all(r.fallback and r.reason for r in recs), (
        f"{what}: {op} not recorded as a fallback with a reason: {recs}")


def check_join(ht, gt, lk, rk, what, hows=HOWS, sort=False):
    """Every join kind of host tables ht = (left, right) and their GPU copies
    gt: same index pairs, same order, on the GPU without a fallback."""
    for how in hows:
        want_l, want_r = core.join_indices(ht[0], ht[1], lk, rk, how, sort)
        with zb.profile() as p:
            got_l, got_r = core.join_indices(gt[0], gt[1], lk, rk, how, sort)
        label = f"{what} how={how} sort={sort}"
        assert_on_gpu(p, ("join",), label)
        assert_same(got_l, want_l, label + " left rows")
        if want_r is None:
            assert got_r is None, label
        else:
            assert_same(got_r, want_r, label + " right rows")


# --------------------------------------------------------------------------
# joins
# --------------------------------------------------------------------------


@pytest.mark.parametrize("sizes", SIZE_PAIRS, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("dtype", KEY_DTYPES)
def test_join_matches_cpu(dtype, sizes):
    nl, nr = sizes
    if not fits(dtype, nl, nr):
        pytest.skip(f"{dtype} has too few values for a {nl} x {nr} join of bounded size")
    pool = pool_for(dtype, nl, nr)
    seed = _seed("join", dtype, nl, nr)
    for nulls in ((0.15, 0.0) if max(nl, nr) <= 1025 else (0.15,)):
        # the right keys are shifted: some keys meet, some are one side's only
        la = key_array(dtype, nl, pool, seed, nulls)
        ra = key_array(dtype, nr, pool, seed + 1, nulls, shift=max(1, pool // 4))
        ht = (table([la]), table([ra]))
        check_join(ht, (ht[0].to_device(GPU), ht[1].to_device(GPU)), [0], [0],
                   f"{dtype} {nl}x{nr} nulls={nulls}")


@pytest.mark.parametrize("dtype", KEY_DTYPES)
def test_join_sliced_tables(dtype):
    """Keys at bit offsets that are not multiples of 8 (sliced on the host
    then moved, and moved then sliced on the GPU); sort=True too."""
    n = 1030
    pool = pool_for(dtype, n, n)
    seed = _seed("slice", dtype)
    lt = table([key_array(dtype, n + 7, pool, seed)])
    rt = table([key_array(dtype, n + 11, pool, seed + 1, shift=3)])
    hs = (lt.slice(3, n), rt.slice(5, n + 2))
    for label, gt in (("slice-then-move", (hs[0].to_device(GPU), hs[1].to_device(GPU))),
                      ("move-then-slice", (lt.to_device(GPU).slice(3, n),
                                           rt.to_device(GPU).slice(5, n + 2)))):
        check_join(hs, gt, [0], [0], f"{dtype} {label}")
        check_join(hs, gt, [0], [0], f"{dtype} {label}", hows=["inner", "left"], sort=True)


@pytest.mark.parametrize("n", [1, 33, 1025])
def test_join_edge_keys(n):
    """All keys equal (every pair), disjoint keys (no pair), all keys null."""
    for dtype in ("int64", "float64", "bool", "category"):
        cases = {
            "all equal": (key_array(dtype, n, 1, 1, 0.0), key_array(dtype, n + 2, 1, 1, 0.0)),
            "all null": (key_array(dtype, n, 3, 2, 1.0), key_array(dtype, n, 3, 3, 1.0)),
        }
        if dtype not in ("bool", "category"):
            cases["disjoint"] = (key_array(dtype, n, 50, 4, 0.1),
                                 key_array(dtype, n, 50, 5, 0.1, shift=1000))
        for label, (la, ra) in cases.items():
            ht = (table([la]), table([ra]))
            check_join(ht, (ht[0].to_device(GPU), ht[1].to_device(GPU)), [0], [0],
                       f"{dtype}[{n}] {label}")


def _multi(n, seed, dtypes, pools):
    """Key columns; the last one's pool grows with n (a bounded join output)."""
    pools = list(pools[:-1]) + [max(pools[-1], n // 4)]
    return [key_array(d, n, p, seed + j) for j, (d, p) in enumerate(zip(dtypes, pools))]


MULTI_KEYS = [
    (["int8", "float64"], [5, 7]),
    (["bool", "category", "int32"], [2, 8, 4]),
    (["date32", "uint16", "timestamp", "float32"], [3, 3, 2, 3]),
    (["uint64", "int64"], [6, 5]),
]


@pytest.mark.parametrize("n", [0, 1, 33, 1025, 1_000_001])
def test_multi_key_join(n):
    for dtypes, pools in MULTI_KEYS:
        m = max(n // 2, 1)
        lt = table(_multi(n, _seed("mk", n), dtypes, pools))
        rt = table(_multi(m, _seed("mk", n) + 50, dtypes, pools))
        keys = list(range(len(dtypes)))
        hows = HOWS if n <= 1025 else ["inner", "left", "outer", "anti"]
        check_join((lt, rt), (lt.to_device(GPU), rt.to_device(GPU)), keys, keys,
                   f"{dtypes}[{n}]", hows=hows)
        # keys in another order on the right
        rkeys = keys[::-1]
        rt2 = core.table_from_columns([rt.column(j) for j in rkeys], [f"k{j}" for j in rkeys])
        check_join((lt, rt2), (lt.to_device(GPU), rt2.to_device(GPU)), keys,
                   list(range(len(dtypes)))[::-1], f"{dtypes}[{n}] reordered", hows=["inner"])


MIXED_PAIRS = [
    ("int8", "int64"), ("int64", "int8"), ("uint8", "int32"), ("uint32", "int16"),
    ("uint64", "int64"), ("int64", "uint64"), ("uint64", "uint16"), ("int32", "float64"),
    ("float32", "float64"), ("uint16", "float32"),
]


@pytest.mark.parametrize("pair", MIXED_PAIRS, ids="-".join)
def test_join_mixed_key_types(pair):
    """Key pairs of different types: compared by value as the core prepares
    them (uint64 above INT64_MAX never equals a signed value)."""
    a, b = pair
    n = 2049
    la = key_array(a, n, 40, _seed("mix", a, b))
    ra = key_array(b, n + 5, 40, _seed("mix", b, a), shift=2)
    ht = (table([la]), table([ra]))
    check_join(ht, (ht[0].to_device(GPU), ht[1].to_device(GPU)), [0], [0], f"{a} vs {b}")


def test_join_timestamp_units_and_dictionaries():
    n = 3001
    rng = np.random.default_rng(5)
    ms = pa.array(rng.integers(0, 40, n) * 1000, type=pa.timestamp("ms"),
                  mask=rng.random(n) < 0.1)
    us = pa.array(rng.integers(0, 40, n) * 1_000_000, type=pa.timestamp("us"),
                  mask=rng.random(n) < 0.1)
    ht = (table([ms]), table([us]))
    check_join(ht, (ht[0].to_device(GPU), ht[1].to_device(GPU)), [0], [0], "ms vs us")
    # categoricals with different dictionaries: the core shares them
    d1 = pa.array(["a", "b", "c", "d"], type=pa.large_string())
    d2 = pa.array(["d", "x", "b", "a", "y"], type=pa.large_string())
    c1 = pa.DictionaryArray.from_arrays(
        pa.array(rng.integers(0, 4, n).astype(np.int32), mask=rng.random(n) < 0.1), d1)
    c2 = pa.DictionaryArray.from_arrays(
        pa.array(rng.integers(0, 5, n).astype(np.int32), mask=rng.random(n) < 0.1), d2)
    ht = (table([c1]), table([c2]))
    check_join(ht, (ht[0].to_device(GPU), ht[1].to_device(GPU)), [0], [0], "two dictionaries")


def test_string_keys_and_cross_joins():
    n = 500
    rng = np.random.default_rng(7)
    words = np.array(["a", "bb", "", "zz", "q"], dtype=object)
    s1 = pa.array(words[rng.integers(0, 5, n)], type=pa.large_string())
    s2 = pa.array(words[rng.integers(0, 5, n)], type=pa.large_string())
    i1 = key_array("int32", n, 9, 1)
    i2 = key_array("int32", n, 9, 2)
    cat = key_array("category", n, 8, 3)
    cases = [("string keys", table([s1, i1]), table([s2, i2]), [0, 1]),
             ("string vs categorical", table([s1]), table([cat]), [0])]
    for label, lt, rt, keys in cases:
        check_join((lt, rt), (lt.to_device(GPU), rt.to_device(GPU)), keys, keys, label)
    lt, rt = table([i1]), table([i2.slice(0, 40)])
    want_l, want_r = core.join_indices(lt, rt, [], [], "cross")
    with zb.profile() as p:
        got_l, got_r = core.join_indices(lt.to_device(GPU), rt.to_device(GPU), [], [], "cross")
    assert_fell_back(p, "join", "cross")
    assert_same(got_l, want_l, "cross left")
    assert_same(got_r, want_r, "cross right")


def _frame(n, seed, key_pool):
    rng = np.random.default_rng(seed)
    words = np.array(["a", "bb", "", "zz", "naïve"], dtype=object)
    return zb.DataFrame(pa.table({
        "id": key_array("int64", n, key_pool, seed),
        "k2": key_array("int8", n, 3, seed + 1),
        "cat": key_array("category", n, 8, seed + 2),
        "v": pa.array(rng.random(n), mask=rng.random(n) < 0.1),
        "s": pa.array(words[rng.integers(0, 5, n)], type=pa.large_string()),
    }))


@pytest.mark.parametrize("n", [0, 33, 1025, 100_003])
def test_merge_of_gpu_frames_matches_cpu(n):
    left = _frame(n, _seed("merge", n), max(4, n // 3))
    right = _frame(max(n // 2, 1), _seed("merge", n) + 9, max(4, n // 3))
    gl, gr = left.to(GPU), right.to(GPU)
    # a categorical key has 8 values: only small frames (bounded output)
    for on in (["id"], ["id", "k2"]) + ((["cat"],) if n <= 1025 else ()):
        for how in HOWS:
            want = left.merge(right, on=on, how=how)
            with zb.profile() as p:
                got = gl.merge(gr, on=on, how=how)
            assert str(got.device) == "cuda:0"
            assert_on_gpu(p, ("join",), f"merge on={on} how={how}")
            pd.testing.assert_frame_equal(got.to("cpu").to_pandas(), want.to_pandas(),
                                          obj=f"merge n={n} on={on} how={how}")
    want = left.merge(right, left_on="id", right_on="k2", how="left", sort=True)
    got = gl.merge(gr, left_on="id", right_on="k2", how="left", sort=True)
    pd.testing.assert_frame_equal(got.to("cpu").to_pandas(), want.to_pandas())


@pytest.mark.big
def test_join_output_beyond_2_pow_31_pairs():
    """50_000 x 50_000 equal keys: 2.5e9 pairs, 64-bit counts and offsets.
    Pair j is (j // m, j % m); checked by sums and by slices around 2**31."""
    n = m = 50_000
    lt = table([pa.array(np.zeros(n, np.int64))]).to_device(GPU)
    rt = table([pa.array(np.full(m, 0, np.int32))]).to_device(GPU)
    li, ri = core.join_indices(lt, rt, [0], [0], "inner")
    total = n * m
    assert li.length == total and ri.length == total and li.null_count == 0
    assert int(li.reduce("sum")) == m * (n * (n - 1) // 2)
    assert int(ri.reduce("sum")) == n * (m * (m - 1) // 2)
    for start in (0, 2**31 - 3, total - 5):
        j = np.arange(start, start + 5, dtype=np.int64)
        assert li.slice(start, 5).to_device("cpu").to_pylist() == list(j // m)
        assert ri.slice(start, 5).to_device("cpu").to_pylist() == list(j % m)
    del li, ri
    gc.collect()


# --------------------------------------------------------------------------
# distinct values
# --------------------------------------------------------------------------


def _stat_cases(dtype, n, seed):
    """(label, host column, GPU column) cases: whole columns with and without
    nulls, few and many distinct values, and slices at odd offsets."""
    cases = []
    pools = (3, max(4, n // 2)) if dtype not in CAPACITY else (3, CAPACITY[dtype])
    for pool in pools:
        for nulls in ((0.15, 0.0) if n <= 1025 else (0.15,)):
            h = column(key_array(dtype, n, pool, seed + pool, nulls))
            cases.append((f"pool={pool} nulls={nulls}", h, h.to_device(GPU)))
    base = column(key_array(dtype, n + 9, pools[-1], seed + 77))
    h = base.slice(5, n)
    cases.append(("slice-then-move", h, h.to_device(GPU)))
    cases.append(("move-then-slice", h, base.to_device(GPU).slice(5, n)))
    return cases


def _check_stats(hc, gc_, what, all_variants=True):
    with zb.profile() as p:
        got_unique = core.unique(gc_)
        got_nunique = [core.nunique(gc_, d) for d in (True, False)]
    assert_on_gpu(p, ("unique", "nunique"), what)
    assert_same(got_unique, core.unique(hc), what + " unique")
    assert got_nunique == [core.nunique(hc, d) for d in (True, False)], what + " nunique"
    variants = ([(s, a, d, z) for s in (True, False) for a in (False, True)
                 for d in (True, False) for z in (False, True)] if all_variants else
                [(True, False, True, False), (False, False, False, True),
                 (True, True, False, False)])
    for sort, asc, dropna, norm in variants:
        label = f"{what} value_counts sort={sort} ascending={asc} dropna={dropna} norm={norm}"
        want_v, want_c = core.value_counts(hc, sort, asc, dropna, norm)
        with zb.profile() as p:
            got_v, got_c = core.value_counts(gc_, sort, asc, dropna, norm)
        assert_on_gpu(p, ("value_counts",), label)
        assert_same(got_v, want_v, label + " values")
        assert_same(got_c, want_c, label + " counts")
    ht = core.table_from_columns([hc], ["v"])
    gt = core.table_from_columns([gc_], ["v"])
    for keep in ("first", "last", False):
        label = f"{what} duplicated keep={keep}"
        with zb.profile() as p:
            got = core.duplicated(gt, None, keep)
        assert_on_gpu(p, ("duplicated",), label)
        assert_same(got, core.duplicated(ht, None, keep), label)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", KEY_DTYPES)
def test_distinct_values_match_cpu(dtype, n):
    for j, (label, hc, gc_) in enumerate(_stat_cases(dtype, n, _seed("stats", dtype, n))):
        # every value_counts variant for one case of two sizes; a few elsewhere
        _check_stats(hc, gc_, f"{dtype}[{n}] {label}", all_variants=j == 0 and n in (33, 1025))


@pytest.mark.parametrize("n", [0, 1, 33, 1025, 1_000_001])
def test_duplicated_multi_column(n):
    for dtypes, pools in MULTI_KEYS:
        arrays = _multi(n, _seed("dup", n), dtypes, pools)
        ht = table(arrays)
        gt = ht.to_device(GPU)
        for keys in (None, [0], list(range(len(dtypes)))[::-1]):
            for keep in ("first", "last", False):
                label = f"{dtypes}[{n}] keys={keys} keep={keep}"
                with zb.profile() as p:
                    got = core.duplicated(gt, keys, keep)
                    got_t = core.drop_duplicates(gt, keys, keep)
                assert_on_gpu(p, ("duplicated",), label)
                assert_same(got, core.duplicated(ht, keys, keep), label)
                want_t = core.drop_duplicates(ht, keys, keep)
                for j in range(len(dtypes)):
                    assert_same(got_t.column(j), want_t.column(j), f"{label} drop column {j}")


@pytest.mark.parametrize("n", [0, 1, 31, 33, 1025, 1_000_001])
@pytest.mark.parametrize("dtype", [d for d in KEY_DTYPES if d != "category"])
def test_isin_matches_cpu(dtype, n):
    seed = _seed("isin", dtype, n)
    hc = column(key_array(dtype, n, 60, seed))
    gc_ = hc.to_device(GPU)
    for m in (0, 1, 7, 100):
        hv = column(key_array(dtype, m, 60, seed + m, 0.2, shift=5))
        for label, gv in (("values on the GPU", hv.to_device(GPU)), ("values on the host", hv)):
            what = f"isin {dtype}[{n}] {m} values {label}"
            with zb.profile() as p:
                got = core.isin(gc_, gv)
            assert_on_gpu(p, ("isin",), what)
            assert_same(got, core.isin(hc, hv), what)
    # values of another numeric type: compared by value
    if dtype.startswith(("int", "uint", "float")):
        other = "float64" if dtype.startswith("int") else "int16"
        hv = column(key_array(other, 50, 60, seed + 3, 0.1))
        assert_same(core.isin(gc_, hv.to_device(GPU)), core.isin(hc, hv),
                    f"isin {dtype} vs {other}")


def test_public_api_on_gpu_frames():
    n = 50_001
    rng = np.random.default_rng(11)
    df = zb.DataFrame(pa.table({
        "a": key_array("int32", n, 300, 1),
        "b": key_array("float64", n, 40, 2),
        "c": key_array("category", n, 8, 3),
        "d": pa.array(rng.random(n)),
    }))
    g = df.to(GPU)
    for name in ("a", "b", "c"):
        pd.testing.assert_series_equal(g[name].unique().to("cpu").to_pandas(),
                                       df[name].unique().to_pandas())
        assert g[name].nunique() == df[name].nunique()
        assert g[name].nunique(dropna=False) == df[name].nunique(dropna=False)
        for kw in ({}, {"normalize": True}, {"ascending": True, "dropna": False},
                   {"sort": False}):
            pd.testing.assert_series_equal(g[name].value_counts(**kw).to("cpu").to_pandas(),
                                           df[name].value_counts(**kw).to_pandas())
        for keep in ("first", "last", False):
            pd.testing.assert_series_equal(g[name].duplicated(keep=keep).to("cpu").to_pandas(),
                                           df[name].duplicated(keep=keep).to_pandas())
    pd.testing.assert_series_equal(g["a"].isin([1, 5, -3, 99]).to("cpu").to_pandas(),
                                   df["a"].isin([1, 5, -3, 99]).to_pandas())
    for subset in (["a"], ["a", "c"], ["b", "c", "a"]):
        for keep in ("first", "last", False):
            pd.testing.assert_frame_equal(
                g.drop_duplicates(subset=subset, keep=keep).to("cpu").to_pandas(),
                df.drop_duplicates(subset=subset, keep=keep).to_pandas())


def test_string_statistics_run_on_the_gpu():
    words = np.array(["a", "bb", "", "zz", "q"], dtype=object)
    rng = np.random.default_rng(3)
    hs = column(pa.array(words[rng.integers(0, 5, 999)], type=pa.large_string(),
                         mask=rng.random(999) < 0.1))
    gs = hs.to_device(GPU)
    with zb.profile() as p:
        got_u = core.unique(gs)
        got_n = core.nunique(gs, True)
        got_v, got_c = core.value_counts(gs, True, False, True, False)
        got_d = core.duplicated(core.table_from_columns([gs], ["s"]), None, "first")
        got_i = core.isin(gs, column(pa.array(["a", "zz"], type=pa.large_string())))
    assert_on_gpu(p, ("unique", "nunique", "value_counts", "duplicated", "isin"), "strings")
    assert_same(got_u, core.unique(hs), "strings unique")
    assert got_n == core.nunique(hs, True)
    want_v, want_c = core.value_counts(hs, True, False, True, False)
    assert_same(got_v, want_v, "strings value_counts")
    assert_same(got_c, want_c, "strings counts")
    assert_same(got_d, core.duplicated(core.table_from_columns([hs], ["s"]), None, "first"),
                "strings duplicated")
    assert_same(got_i, core.isin(hs, column(pa.array(["a", "zz"], type=pa.large_string()))),
                "strings isin")
    # an Arrow dictionary repeating a string: the import folds the repeats
    # into one category, so the GPU compares codes and agrees with the CPU
    dup = pa.DictionaryArray.from_arrays(pa.array(rng.integers(0, 3, 500).astype(np.int32)),
                                         pa.array(["a", "b", "a"], type=pa.large_string()))
    hc = column(dup)
    with zb.profile() as p:
        got = core.unique(hc.to_device(GPU))
        got_n = core.nunique(hc.to_device(GPU), True)
    assert_on_gpu(p, ("unique", "nunique"), "repeated dictionary")
    assert_same(got, core.unique(hc), "repeated dictionary unique")
    assert got_n == core.nunique(hc, True) == 2


# --------------------------------------------------------------------------
# memory
# --------------------------------------------------------------------------


def _gpu_ops():
    n = 5000
    lt = table(_multi(n, 21, ["int32", "float64"], [50, 7])).to_device(GPU)
    rt = table(_multi(n // 2, 22, ["int32", "float64"], [50, 7])).to_device(GPU)
    c = column(key_array("float64", n, 300, 23)).to_device(GPU)
    v = column(key_array("float64", 40, 300, 24)).to_device(GPU)
    return [
        ("inner join", lambda: core.join_indices(lt, rt, [0, 1], [0, 1], "inner")[1]),
        ("left join", lambda: core.join_indices(lt, rt, [0], [0], "left")[1]),
        ("outer join", lambda: core.join_indices(lt, rt, [0], [0], "outer")[0]),
        ("anti join", lambda: core.join_indices(lt, rt, [0, 1], [0, 1], "anti")[0]),
        ("unique", lambda: core.unique(c)),
        ("value_counts", lambda: core.value_counts(c, True, False, True, True)[1]),
        ("duplicated", lambda: core.duplicated(lt, None, False)),
        ("isin", lambda: core.isin(c, v)),
    ]


def test_injected_failures_leak_nothing():
    for name, op in _gpu_ops():
        want = op()
        got, failed = fail_allocations_in_turn(op, name, memory=device_memory)
        assert_same(got, want, f"{name} after {failed} injected failures")
        del got, want
