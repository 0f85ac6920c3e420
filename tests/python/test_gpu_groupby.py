"""GPU tests: group-by on the CUDA backend against the CPU backend.

Marked ``gpu``; its tests are skipped (conftest.py) when the engine reports no usable
CUDA device (no driver, no GPU, or a build without the CUDA backend), so it
is safe to collect everywhere.

Random frames with nulls at sizes 0, 1, 31, 32, 33, 1023, 1024, 1025 and
10**6 + 1, grouped by one key of each GPU key dtype (int8, int32, int64,
uint16, bool, date32, timestamp with a timezone, categorical whose category
order is not the string order, float64 with NaN and -0.0) and by several
keys at once, with 1 group, a few, about n / 3 and one per row, dropna and
sort both ways.  Each frame is aggregated on the CPU and, moved to the GPU,
on the GPU (sum, mean, min, max, count, size, var and std with ddof 0, 1
and 2, first, last, prod, any, all over ints, unsigned, floats with NaN,
+-0.0 and +-inf, bools, dates, timestamps, strings and categoricals); the
GPU result must be on the GPU and equal the CPU's: the same column names
and dtypes, the same null positions, and

  * exactly equal values (floats bit for bit) for the keys, count, size,
    min, max, first, last, any, all, integer sums and products (wrapping)
    and integer means (both divide the exact 128-bit sum);
  * within a stated tolerance where the GPU adds floats in another order
    than the CPU's compensated / Welford loops: float sums within
    1e-10 * (sum of |x| in the group), float means within 1e-10 * (mean of
    |x|), var within 1e-8 relative plus 1e-10 * (sum of x^2) / (count -
    ddof), std within 1e-8 relative plus 1e-5 * sqrt((sum of x^2) / (count
    - ddof)), float products within 1e-9 relative.

Each GPU group-by runs inside zb.profile(), which must show the group-by on
the GPU with no fallback; median, quantile and nunique equal the CPU's
exactly (-0.0 and 0.0 alike), corr within 1e-9; string keys group on the
GPU; aggregations the GPU declines (nunique, min and max of string columns)
must show a fallback with its reason and still give the CPU's answer on the
GPU.  Also: zero-copy slices at odd offsets, group ids (sort and
first-appearance numbering, null for dropped rows), the public DataFrame
API, and injected allocation failures at every step leaking no device
memory.
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

SIZES = [0, 1, 31, 32, 33, 1023, 1024, 1025, 1_000_001]
BIG = 1_000_001
KEY_DTYPES = ["int8", "int32", "int64", "uint16", "bool", "date32", "timestamp", "category",
              "float64"]
CAPACITY = {"int8": 256, "uint16": 65536, "bool": 2}
MULTI_KEYS = [
    (("int32", 10), ("category", 5), ("bool", 2)),
    (("int64", None), ("date32", 3)),
    (("timestamp", 50), ("uint16", 300), ("int8", 4)),
]

# value columns: name -> dtype of the generated data
NUMERIC_VALUES = ["i64", "i8", "u64", "f64", "f32", "b"]
FLOAT_VALUES = {"f64", "f32", "pf"}
NUMERIC_OPS = ["sum", "mean", "min", "max", "count", "var", "std", "first", "last", "any",
               "all"]


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------


def _pool(dtype, card, rng):
    """card distinct key values of dtype (as numpy values), shuffled."""
    base = rng.permutation(card).astype(np.int64)
    if dtype == "int8":
        return (base - 128).astype(np.int8)
    if dtype == "uint16":
        return base.astype(np.uint16)
    if dtype == "int32":
        return (base * 1999 - 10**9).astype(np.int32)
    if dtype == "int64":
        return base * 7_919_000_000_000 - 4 * 10**18
    if dtype == "date32":
        return (base * 2 - 700_000).astype(np.int32)
    if dtype == "timestamp":
        return base * 1_000_003_000 - 10**15
    if dtype == "bool":
        return base.astype(bool)
    if dtype == "category":
        return base.astype(np.int32)
    if dtype == "float64":
        vals = base.astype(np.float64) * 0.75 - card * 0.25
        special = np.array([-0.0, np.nan, 0.0, np.inf, -np.inf])[: max(0, min(card, 5) - 1)]
        vals[1: 1 + len(special)] = special  # NaN keys are null keys; -0.0 == 0.0
        return vals
    raise AssertionError(dtype)


def key_array(dtype, n, card, seed, nulls=True):
    """n key values of dtype drawn from card distinct values (card None or
    >= n: every row its own value), about 10% null."""
    rng = np.random.default_rng(seed)
    unique = card is None or card >= n
    card = min(n if unique else card, CAPACITY.get(dtype, 1 << 62))
    card = max(card, 1)
    pool = _pool(dtype, card, rng)
    vals = pool[:n] if unique and card >= n else pool[rng.integers(0, card, n)]
    mask = (rng.random(n) < 0.1) if nulls else None
    if dtype == "date32":
        return pa.array(vals, type=pa.date32(), mask=mask)
    if dtype == "timestamp":
        return pa.array(vals, type=pa.timestamp("us", tz="Africa/Maputo"), mask=mask)
    if dtype == "category":
        # category order differs from the strings' order: the CPU sorts
        # groups by category order, and so must the GPU
        cats = pa.array([f"c{i:07d}" for i in rng.permutation(card)], type=pa.large_string())
        return pa.DictionaryArray.from_arrays(pa.array(vals, mask=mask), cats)
    return pa.array(vals, mask=mask, from_pandas=False)


def value_columns(n, seed):
    """The value columns (pyarrow arrays), each with nulls."""
    rng = np.random.default_rng(seed)

    def mask(p=0.15):
        return rng.random(n) < p

    f64 = rng.uniform(-1e3, 1e3, n)
    f64[rng.random(n) < 0.05] = np.nan
    f64[rng.random(n) < 0.03] = -0.0
    f64[rng.random(n) < 0.03] = 0.0
    fx = rng.uniform(-5, 5, n).round(1)  # ties, for min/max/first/last
    for v, p in ((np.nan, 0.05), (-0.0, 0.1), (0.0, 0.1), (np.inf, 0.02), (-np.inf, 0.02)):
        fx[rng.random(n) < p] = v
    f32 = rng.uniform(-50, 50, n).astype(np.float32)
    f32[rng.random(n) < 0.05] = np.nan
    i64 = rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64, endpoint=True)
    i64[rng.random(n) < 0.1] = 0
    u64 = rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
    words = np.array(["", "a", "zambezi", "naïve", "x" * 30, "B"], dtype=object)
    return {
        "i64": pa.array(i64, mask=mask()),
        "i8": pa.array(rng.integers(-128, 128, n).astype(np.int8), mask=mask()),
        "u64": pa.array(u64, mask=mask()),
        "f64": pa.array(f64, mask=mask(), from_pandas=False),
        "f32": pa.array(f32, mask=mask(), from_pandas=False),
        "fx": pa.array(fx, mask=mask(), from_pandas=False),
        "b": pa.array(rng.random(n) < 0.6, mask=mask()),
        "odd": pa.array((rng.integers(0, 4, n) * 2 + 1).astype(np.uint16), mask=mask()),
        "pf": pa.array(rng.uniform(0.9, 1.1, n), mask=mask(), from_pandas=False),
        "d": pa.array(rng.integers(-20000, 20000, n).astype(np.int32), type=pa.date32(),
                      mask=mask()),
        "ts": pa.array(rng.integers(-10**15, 10**15, n), type=pa.timestamp("ns", tz="UTC"),
                       mask=mask()),
        "s": pa.array(words[rng.integers(0, len(words), n)], type=pa.large_string(),
                      mask=mask()),
        "cat": pa.DictionaryArray.from_arrays(
            pa.array(rng.integers(0, 3, n).astype(np.int32), mask=mask()),
            pa.array(["pear", "apple", "fig"], type=pa.large_string())),
    }


def frame(keys, n, seed):
    """A host DataFrame: key columns k0, k1, ... from keys [(dtype, card)],
    then the value columns."""
    cols = {f"k{i}": key_array(dt, n, card, seed + 17 * i) for i, (dt, card) in enumerate(keys)}
    cols.update(value_columns(n, seed + 1))
    return zb.DataFrame(pa.table(cols))


# (op, column, ddof, output name)
def agg_specs():
    specs = [("size", None, 1, "size")]
    for c in NUMERIC_VALUES:
        specs += [(op, c, 1, f"{c}_{op}") for op in NUMERIC_OPS]
    specs += [("var", "f64", 0, "f64_var0"), ("std", "i8", 0, "i8_std0"),
              ("var", "i64", 2, "i64_var2"), ("std", "f32", 2, "f32_std2")]
    specs += [("prod", c, 1, f"{c}_prod") for c in ("i8", "i64", "odd", "pf", "b")]
    for c in ("fx", "d", "ts"):
        specs += [(op, c, 1, f"{c}_{op}") for op in ("min", "max", "first", "last", "count")]
    specs += [("any", "fx", 1, "fx_any"), ("all", "fx", 1, "fx_all")]
    for c in ("s", "cat"):
        specs += [(op, c, 1, f"{c}_{op}") for op in ("first", "last", "count")]
    return specs


SPECS = agg_specs()
# at 10**6 + 1 rows: one of each accumulator kind (the test's time stays small)
BIG_SPECS = [("size", None, 1, "size"), ("sum", "i64", 1, "i64_sum"),
             ("mean", "i64", 1, "i64_mean"), ("min", "i64", 1, "i64_min"),
             ("first", "i8", 1, "i8_first"), ("count", "f64", 1, "f64_count"),
             ("sum", "f64", 1, "f64_sum"), ("mean", "f32", 1, "f32_mean"),
             ("var", "f64", 1, "f64_var"), ("std", "u64", 1, "u64_std"),
             ("max", "fx", 1, "fx_max"), ("last", "fx", 1, "fx_last"),
             ("any", "b", 1, "b_any"), ("all", "b", 1, "b_all"), ("prod", "odd", 1, "odd_prod"),
             ("prod", "pf", 1, "pf_prod"), ("last", "s", 1, "s_last"), ("min", "ts", 1, "ts_min"),
             ("mean", "u64", 1, "u64_mean")]


def _tolerance_kind(op, col):
    """None (exact) or the kind of tolerance the result gets."""
    if op in ("var", "std"):
        return op
    if op in ("sum", "mean") and col in FLOAT_VALUES:
        return op
    if op == "prod" and col in FLOAT_VALUES:
        return "prod"
    return None


# --------------------------------------------------------------------------
# running and comparing
# --------------------------------------------------------------------------


def _tuples(df, specs):
    names = list(df._table.names)
    return [(op, -1 if col is None else names.index(col), -1, int(ddof), 0.5, False, out)
            for op, col, ddof, out in specs]


def run_groupby(df, keys, dropna, sort, specs):
    """The group-by of df (a DataFrame) as a DataFrame on df's device."""
    names = list(df._table.names)
    t = core.groupby(df._table, [names.index(k) for k in keys], dropna, sort,
                     _tuples(df, specs))
    return zb.DataFrame._wrap(t)


def on_gpu(what, fn, native=True):
    """fn() inside zb.profile(): with native, every recorded operation ran on
    the GPU and none fell back; else the group-by is recorded as a fallback
    with a reason."""
    with zb.profile() as p:
        out = fn()
    gb = [r for r in p.records if r.op in ("groupby", "group_ids")]
    assert gb, f"{what}: no group-by in the profile: {[r.op for r in p.records]}"
    if native:
        falls = [r for r in p.records if r.fallback]
        assert not falls, f"{what}: {falls[0].op} fell back to the CPU: {falls[0].reason}"
        assert all(r.device.startswith("cuda") for r in gb), (
            f"{what}: ran on {[r.device for r in gb]}")
    else:
        assert all(r.fallback and r.reason for r in gb), (
            f"{what}: the declined group-by is not recorded as a fallback with a reason")
    return out


def scales(host_df, keys, dropna, sort, specs):
    """Per output column needing a tolerance: (sum |x|, sum x^2, count) per
    group, from the CPU on the same keys (rows align with the CPU result)."""
    cols = {k: host_df.to_arrow()[k] for k in keys}
    need = sorted({col for op, col, _, _ in specs if _tolerance_kind(op, col)})
    aggs = []
    for c in need:
        x = host_df.to_arrow()[c].combine_chunks()
        xf = np.asarray(x.cast(pa.float64(), safe=False).to_numpy(zero_copy_only=False),
                        dtype=np.float64)
        valid = np.asarray(x.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        absx = pa.array(np.abs(xf), mask=~valid, from_pandas=False)
        sq = pa.array(xf * xf, mask=~valid, from_pandas=False)
        cols[f"{c}__abs"], cols[f"{c}__sq"] = absx, sq
        aggs += [("sum", f"{c}__abs", 1, f"{c}__abs"), ("sum", f"{c}__sq", 1, f"{c}__sq"),
                 ("count", f"{c}__abs", 1, f"{c}__n")]
    if not aggs:
        return {}
    aux = zb.DataFrame(pa.table(cols))
    res = run_groupby(aux, keys, dropna, sort, aggs).to_arrow()
    out = {}
    for c in need:
        out[c] = tuple(np.asarray(res[f"{c}{s}"].to_numpy(zero_copy_only=False),
                                  dtype=np.float64) for s in ("__abs", "__sq", "__n"))
    return out


def _bits(arr):
    if pa.types.is_floating(arr.type):
        return arr.view(pa.int32() if arr.type == pa.float32() else pa.int64())
    return arr


def assert_frames(what, got, want, specs=(), sc=None):
    """got (a GPU result) equals want (the CPU result); see the module
    docstring for which columns get a tolerance."""
    assert got.device.startswith("cuda"), f"{what}: result on {got.device}"
    g, w = got.to("cpu").to_arrow(), want.to_arrow()
    assert g.schema == w.schema, f"{what}: schema\n{g.schema}\n!=\n{w.schema}"
    assert g.num_rows == w.num_rows, f"{what}: {g.num_rows} groups != {w.num_rows}"
    tol = {out: (op, col, ddof) for op, col, ddof, out in specs if _tolerance_kind(op, col)}
    for name in w.column_names:
        a, b = g[name].combine_chunks(), w[name].combine_chunks()
        assert a.null_count == b.null_count, (
            f"{what}: column {name}: {a.null_count} nulls != {b.null_count}")
        assert a.is_null().equals(b.is_null()), f"{what}: column {name}: nulls differ"
        if name not in tol:
            aa, bb = _bits(a), _bits(b)
            if not aa.equals(bb):
                bad = next(i for i in range(len(aa)) if not aa[i].equals(bb[i]))
                raise AssertionError(f"{what}: column {name} row {bad}: GPU {a[bad]!r}, "
                                     f"CPU {b[bad]!r}")
            continue
        op, col, ddof = tol[name]
        ok = np.asarray(b.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        x = np.asarray(a.to_numpy(zero_copy_only=False), dtype=np.float64)[ok]
        y = np.asarray(b.to_numpy(zero_copy_only=False), dtype=np.float64)[ok]
        s1, s2, cnt = (v[ok] for v in sc[col])
        if op == "sum":
            lim = 1e-10 * s1
        elif op == "mean":
            lim = 1e-10 * s1 / np.maximum(cnt, 1)
        elif op == "prod":
            lim = 1e-9 * np.abs(y)
        else:
            dof = np.maximum(cnt - ddof, 1)
            lim = 1e-8 * np.abs(y) + (1e-10 * s2 / dof if op == "var"
                                      else 1e-5 * np.sqrt(s2 / dof))
        bad = np.flatnonzero(~(np.abs(x - y) <= lim + 1e-300))
        assert bad.size == 0, (
            f"{what}: column {name}: {bad.size} groups outside the tolerance, first "
            f"GPU {x[bad[0]]!r} CPU {y[bad[0]]!r} (limit {lim[bad[0]]!r})")


def check_groupby(what, host, keys, dropna, sort, specs=None, gpu=None):
    """The group-by on the CPU and on the GPU: equal, the GPU one native."""
    if specs is None:
        specs = BIG_SPECS if len(host) >= BIG else SPECS
    want = run_groupby(host, keys, dropna, sort, specs)
    gdf = host.to(GPU) if gpu is None else gpu
    got = on_gpu(what, lambda: run_groupby(gdf, keys, dropna, sort, specs))
    assert_frames(what, got, want, specs, scales(host, keys, dropna, sort, specs))


def _cards(dtype, n):
    cap = CAPACITY.get(dtype, n + 1)
    out = []
    for c in ([7, n // 3, n] if n >= BIG else [1, 7, n // 3, n]):
        c = max(1, min(c, cap))
        if c not in out:
            out.append(c)
    return out


def _modes(n):
    """(dropna, sort) combinations: all four, two at the largest size."""
    if n >= BIG:
        return [(True, True), (False, False)]
    return [(True, True), (True, False), (False, True), (False, False)]


# --------------------------------------------------------------------------
# tests
# --------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", KEY_DTYPES)
def test_one_key_matches_cpu(dtype, n):
    for card in _cards(dtype, n):
        host = frame([(dtype, card)], n, _seed("one", dtype, n, card))
        gpu = host.to(GPU)
        for dropna, sort in _modes(n):
            check_groupby(f"{dtype} key, {n} rows, {card} values, dropna={dropna} sort={sort}",
                          host, ["k0"], dropna, sort, gpu=gpu)
        del gpu


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("keys", MULTI_KEYS, ids=lambda ks: "+".join(d for d, _ in ks))
def test_several_keys_match_cpu(keys, n):
    host = frame(keys, n, _seed("multi", keys, n))
    gpu = host.to(GPU)
    names = [f"k{i}" for i in range(len(keys))]
    for dropna, sort in _modes(n):
        check_groupby(f"keys {keys}, {n} rows, dropna={dropna} sort={sort}", host, names,
                      dropna, sort, gpu=gpu)


@pytest.mark.parametrize("n", [1, 33, 1025, 70_001])
def test_slices_at_odd_offsets(n):
    """Key and value bitmaps and data read at offsets that are not multiples
    of 8, sliced on the GPU and sliced on the CPU then moved."""
    host = frame([("int32", 9), ("bool", 2)], n + 20, _seed("slice", n))
    part = host[13:13 + n]
    for label, gdf in (("move-then-slice", host.to(GPU)[13:13 + n]),
                       ("slice-then-move", part.to(GPU))):
        for dropna, sort in ((True, True), (False, False)):
            check_groupby(f"{label} {n} rows dropna={dropna} sort={sort}", part,
                          ["k0", "k1"], dropna, sort, gpu=gdf)


@pytest.mark.parametrize("n", [0, 1, 33, 1025, BIG])
def test_group_ids_match_cpu(n):
    host = frame([("int64", 50), ("category", 4)], n, _seed("ids", n))
    gpu = host.to(GPU)
    for keys in ([0], [0, 1], [1]):
        for dropna in (True, False):
            for sort in (True, False):
                want, wn = core.group_ids(host._table, keys, dropna, sort)
                got, gn = on_gpu("group_ids", lambda: core.group_ids(gpu._table, keys,
                                                                     dropna, sort))
                what = f"group ids keys={keys} {n} rows dropna={dropna} sort={sort}"
                assert gn == wn, f"{what}: {gn} groups != {wn}"
                assert str(got.device) == "cuda:0", f"{what}: on {got.device}"
                a = pa.array(got.to_device("cpu"))
                b = pa.array(want.to_device("cpu"))
                assert a.type == b.type and a.equals(b), f"{what}: ids differ"


DECLINED = [
    ("nunique of strings", [("nunique", "s", 1, "u")]),
    ("min of strings", [("min", "s", 1, "smin"), ("sum", "i8", 1, "x")]),
    ("max of strings", [("max", "s", 1, "smax")]),
]


@pytest.mark.parametrize("label,specs", DECLINED, ids=[d[0] for d in DECLINED])
def test_declined_aggregations_fall_back(label, specs):
    host = frame([("int32", 7)], 1025, _seed("declined", label))
    gpu = host.to(GPU)
    want = run_groupby(host, ["k0"], True, True, specs)
    got = on_gpu(label, lambda: run_groupby(gpu, ["k0"], True, True, specs), native=False)
    assert_frames(label, got, want)


@pytest.mark.parametrize("n", [0, 1, 33, 1025, 1_000_001])
def test_corr_matches_cpu(n):
    """Pearson correlation per group of float, integer and bool pairs (a
    pair counts where both have a value), on the GPU without a fallback:
    the CPU's nulls (under two pairs, no spread) and values within 1e-9."""
    for card in (1, 7, max(n // 3, 1)):
        host = frame([("int32", card)], n, _seed("corr", n, card))
        gpu = host.to(GPU)
        names = list(host._table.names)
        pairs = [("f64", "i8"), ("f32", "fx"), ("i64", "u64"), ("b", "f64"), ("f64", "f64")]
        corr = [("corr", names.index(x), names.index(y), 0, 0.5, False, f"{x}_{y}")
                for x, y in pairs]
        for dropna, sort in ((True, True), (False, False)):
            what = f"corr [{n}] {card} values dropna={dropna} sort={sort}"
            want = zb.DataFrame._wrap(core.groupby(host._table, [0], dropna, sort, corr))
            got = on_gpu(what, lambda: zb.DataFrame._wrap(
                core.groupby(gpu._table, [0], dropna, sort, corr)))
            g, w = got.to("cpu").to_arrow(), want.to_arrow()
            assert g.schema == w.schema and g.num_rows == w.num_rows, what
            for name in w.column_names:
                a, b = g[name].combine_chunks(), w[name].combine_chunks()
                assert a.is_null().equals(b.is_null()), f"{what}: {name} nulls differ"
                if name == "k0":
                    assert a.equals(b), f"{what}: keys differ"
                    continue
                x = np.asarray(a.to_numpy(zero_copy_only=False), dtype=np.float64)
                y = np.asarray(b.to_numpy(zero_copy_only=False), dtype=np.float64)
                ok = ~np.isnan(y)
                assert np.array_equal(np.isnan(x), np.isnan(y)), f"{what}: {name} NaN"
                assert np.all(np.abs(x[ok] - y[ok]) <= 1e-9), f"{what}: {name}"


@pytest.mark.parametrize("n", [0, 1, 33, 1025, 1_000_001])
def test_string_keys_match_cpu(n):
    """String keys (alone, after and before another key; nulls, empty
    strings) group on the GPU without a fallback, as the CPU groups them:
    byte order for sort=True, first appearance otherwise."""
    host = frame([("int32", 7)], n, _seed("string keys", n))
    gpu = host.to(GPU)
    for keys in (["s"], ["k0", "s"], ["s", "k0"]):
        for dropna, sort in _modes(n):
            check_groupby(f"string keys {keys} [{n}] dropna={dropna} sort={sort}", host, keys,
                          dropna, sort, gpu=gpu)


def test_public_api_on_gpu_matches_cpu():
    host = frame([("int32", 9), ("category", 4)], 5000, _seed("api"))
    gpu = host.to(GPU)
    cases = [  # results that are exact on both backends
        ("sum", lambda d: d.groupby("k0")[["i64", "i8", "b"]].sum()),
        ("mean", lambda d: d.groupby(["k0", "k1"], sort=False)[["i8", "u64"]].mean()),
        ("min/max", lambda d: d.groupby("k1", dropna=False).agg({"d": ["min", "max"],
                                                                  "ts": "max"})),
        ("size", lambda d: d.groupby("k0", sort=False, dropna=False).size()),
        ("named", lambda d: d.groupby("k0").agg(total=("i8", "sum"), n=("f64", "count"),
                                                first=("s", "first"))),
        ("first", lambda d: d.groupby("k0")[["f32", "s", "cat"]].first()),
        ("last", lambda d: d.groupby("k1", sort=False)[["fx", "ts"]].last()),
    ]
    def flat(res):
        # the keys (the index) and the values as the columns of a frame:
        # assert_frames compares the frames' columns through Arrow
        if isinstance(res, zb.Series):
            res = res.rename("x")
        return res.reset_index()

    for what, fn in cases:
        want = fn(host)
        got = on_gpu(what, lambda: fn(gpu))
        assert got.index.nlevels == want.index.nlevels, what
        assert_frames(what, flat(got), flat(want))
    # transform / head / cumcount use group ids (and a cumcount, which may
    # run on the CPU): same answers, results on the GPU, the rows' labels
    for what, fn in [
        ("transform", lambda d: d.groupby("k0")["i8"].transform("sum")),
        ("head", lambda d: d.groupby(["k0", "k1"]).head(2)),
        ("cumcount", lambda d: d.groupby("k1", sort=False).cumcount()),
    ]:
        want, got = fn(host), fn(gpu)
        assert_frames(what, flat(got), flat(want))


def test_device_memory_returns_after_group_by():
    host = frame([("int64", 100)], 100_003, _seed("mem"))
    gc.collect()
    base = core.alloc_stats()["device_bytes"]
    gpu = host.to(GPU)
    res = run_groupby(gpu, ["k0"], False, False, SPECS)
    ids = core.group_ids(gpu._table, [0], True, False)
    del gpu, res, ids
    gc.collect()
    assert core.alloc_stats()["device_bytes"] == base


def test_injected_failures_leak_nothing():
    host = frame([("int32", 9), ("category", 4)], 1025, _seed("fail"))
    gpu = host.to(GPU)
    specs = [("sum", "i64", 1, "a"), ("mean", "i8", 1, "b"), ("var", "f64", 1, "c"),
             ("min", "fx", 1, "d"), ("last", "s", 1, "e"), ("any", "b", 1, "f"),
             ("prod", "pf", 1, "g"), ("size", None, 1, "size")]
    ops = [
        ("groupby", lambda: run_groupby(gpu, ["k0", "k1"], False, False, specs),
         lambda: run_groupby(host, ["k0", "k1"], False, False, specs)),
        ("group_ids", lambda: zb.DataFrame({"ids": zb.Series._from_column(
            core.group_ids(gpu._table, [0, 1], True, False)[0], None)}),
         lambda: zb.DataFrame({"ids": zb.Series._from_column(
             core.group_ids(host._table, [0, 1], True, False)[0], None)})),
    ]
    for name, op, cpu_op in ops:
        want = cpu_op()
        got, failed = fail_allocations_in_turn(op, name, memory=lambda: device_memory()[0],
                                               limit=2000)
        assert_frames(f"{name} after {failed} injected failures", got, want, specs,
                      scales(host, ["k0", "k1"], False, False, specs))
        del got, want


@pytest.mark.parametrize("n", [0, 1, 31, 33, 1025, 1_000_001])
def test_group_cumcount_matches_cpu(n):
    """Each row's position in its group, from the first and from the last
    row, on the GPU (no fallback) equals the CPU's: few and many groups,
    null ids, a slice at an odd offset; an id out of range is the CPU's
    error, naming the same row."""
    rng = np.random.default_rng(n)
    for n_groups in (1, 7, max(n // 3, 1)):
        ids = rng.integers(0, n_groups, n + 5)
        hc = zb.Series(pa.array(ids, mask=rng.random(n + 5) < 0.1))._col
        for label, h, g in (("whole", hc, hc.to_device(GPU)),
                            ("sliced", hc.slice(5, n), hc.to_device(GPU).slice(5, n))):
            for asc in (True, False):
                what = f"cumcount[{n}] {n_groups} groups {label} ascending={asc}"
                with zb.profile() as p:
                    got = core.group_cumcount(g, n_groups, asc)
                recs = [r for r in p.records if r.op == "cumcount"]
                assert recs and all(r.device.startswith("cuda") and not r.fallback
                                    for r in recs), f"{what}: {recs}"
                assert_same(got, core.group_cumcount(h, n_groups, asc), what)
    if n > 40:
        bad = zb.Series(np.r_[np.zeros(30, dtype=np.int64), [5], np.zeros(n - 31, np.int64)])._col
        with pytest.raises(IndexError) as cpu_err:
            core.group_cumcount(bad, 3, True)
        with pytest.raises(IndexError) as gpu_err:
            core.group_cumcount(bad.to_device(GPU), 3, True)
        assert str(gpu_err.value) == str(cpu_err.value) and "row 30" in str(gpu_err.value)


@pytest.mark.parametrize("n", [0, 1, 33, 1025, 1_000_001])
@pytest.mark.parametrize("key", ["int32", "category", "float64"])
def test_median_and_quantiles_match_cpu(key, n):
    """Median and quantiles (q 0, 0.1, 0.5, 0.75, 1) of integer, unsigned,
    float (NaN and nulls skipped) and bool values per group, and nunique
    (missing values counted or not) of numbers, bools, categoricals, dates
    and timestamps, on the GPU without a fallback, equal the CPU's: same
    groups, same nulls (a group without values), the same doubles (the GPU
    rounds each step as the CPU does)."""
    for card in (1, 7, max(n // 3, 1)):
        host = frame([(key, card)], n, _seed("quantile", key, n, card))
        gpu = host.to(GPU)
        names = list(host._table.names)
        aggs = []
        for c in ("i64", "u64", "f64", "f32", "b", "fx"):
            aggs.append(("median", names.index(c), -1, 1, 0.5, False, f"{c}_median"))
            for q in (0.0, 0.1, 0.75, 1.0):
                aggs.append(("quantile", names.index(c), -1, 1, q, False, f"{c}_q{q}"))
        for c in ("i8", "f64", "fx", "b", "cat", "d", "ts"):
            for count_na in (False, True):
                aggs.append(("nunique", names.index(c), -1, 1, 0.5, count_na,
                             f"{c}_nunique_{count_na}"))
        for dropna, sort in ((True, True), (False, False)):
            what = f"quantiles by {key}[{n}] {card} values dropna={dropna} sort={sort}"
            want = zb.DataFrame._wrap(core.groupby(host._table, [0], dropna, sort, aggs))
            got = on_gpu(what, lambda: zb.DataFrame._wrap(
                core.groupby(gpu._table, [0], dropna, sort, aggs)))
            pd.testing.assert_frame_equal(got.to("cpu").to_pandas(), want.to_pandas(),
                                          check_exact=True, obj=what)
