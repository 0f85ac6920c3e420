"""Backend equivalence of the elementwise operations: each one run on the CPU
and on the GPU over the same data gives the same column.

Marked ``gpu``; its tests are skipped (conftest.py) when the engine reports no usable
CUDA device (no driver, no GPU, or a build without the CUDA backend), so it
is safe to collect everywhere.

Covered, for sizes 0, 1, 31, 32, 33, 1023, 1024, 1025 and 10**6 + 1 around
warp and block boundaries, with nulls (about 15%), without nulls, and on
zero-copy slices whose offsets are not multiples of 8 (one operand sliced on
the GPU at offset 13, the other sliced on the CPU at offset 5 and moved):

  * binary ops (+ - * / // % **, comparisons, & | ^) of column with column
    for every same-type pair and a set of mixed pairs (numpy promotion), and
    of column with scalar (both orders, null scalars, scalars that do not
    fit); integer division by zero, MIN // -1, wrapping overflow, NaN, inf
    and signed zeros are in the data;
  * neg / abs / invert, isnull / notnull (every dtype, strings included),
    fill_null (numbers, bool, dates, timestamps with a timezone,
    categoricals, strings), where / mask (column, scalar or null other;
    strings too), clip, round;
  * ffill / bfill (the fill_scan kernel: every dtype, limits, limit_area,
    NaN values counted as missing, and sparse columns whose runs of nulls
    cross warps, blocks and the scan's tiles);
  * cumsum / cumprod / cummin / cummax, whole column and per group (no GPU
    kernel yet: the CPU runs them and the result must come back to the
    GPU);
  * casts between every pair of numeric types and bool, and among date32,
    timestamps of each unit and integers, including the casts that fail: the
    GPU must raise the same error with the same message (the first bad row).

"The same column" means: same dtype (unit and timezone too), length, null
count and null positions, and equal values at the valid positions -- exactly
(NaN matching NaN, and the sign of zeros compared), except for float ``**``,
where the device's pow may differ from the host's in the last bits:
relative 1e-12 for float64, 3e-7 (a couple of ulps) for float32.

Strings compare, fill and take where on the GPU too; an operation the GPU
backend declines (string concatenation) runs on the CPU and must still give
a result on the GPU's device.
"""

import gc
import zlib

import numpy as np
import pandas as pd
import pytest

import zambezi as zb

_core = zb._core


pytestmark = pytest.mark.gpu

SIZES = [0, 1, 31, 32, 33, 1023, 1024, 1025, 1_000_001]
LAYOUTS = ["nulls", "dense", "sliced"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
NUMERIC = ["bool"] + INTS + FLOATS
BINARY_OPS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
              "eq", "ne", "lt", "le", "gt", "ge", "and", "or", "xor"]
MIXED_PAIRS = [
    ("int8", "uint8"), ("int16", "uint8"), ("int32", "uint32"), ("int64", "uint64"),
    ("uint8", "int64"), ("uint32", "int8"), ("bool", "int8"), ("bool", "float32"),
    ("int16", "float32"), ("uint16", "float32"), ("int32", "float32"),
    ("int64", "float64"), ("uint64", "float64"), ("float32", "float64"),
]
PAIRS = [(t, t) for t in NUMERIC] + MIXED_PAIRS + [
    ("date32", "date32"), ("timestamp", "timestamp"), ("string", "string")]
WORDS = np.array(["", "a", "ab", "b", "zeta", "Émile", "ß", "a b"], dtype=object)
CATEGORIES = ["lo", "mid", "hi", "x"]


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------


def _rng(*key):
    return np.random.default_rng(zlib.crc32("/".join(map(str, key)).encode()))


def gen_values(dtype, n, rng, small=False):
    """Random values of dtype (a numpy array; strings: an object array)."""
    if dtype == "bool":
        return rng.random(n) < 0.5
    if dtype in INTS:
        info = np.iinfo(dtype)
        lo_small = 0 if info.min == 0 else -5
        if small:
            return rng.integers(0 if info.min == 0 else -100, 101, n).astype(dtype)
        vals = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        k = rng.random(n) < 0.4  # small values and zeros: division, pow
        vals[k] = rng.integers(lo_small, 6, int(k.sum())).astype(dtype)
        e = rng.random(n) < 0.05  # the edges: MIN // -1, overflow
        edges = [info.min, info.max, 0, 1] + ([-1] if info.min < 0 else [])
        vals[e] = np.array(edges, dtype=dtype)[rng.integers(0, len(edges), int(e.sum()))]
        return vals
    if dtype in FLOATS:
        if small:
            vals = rng.uniform(-0.4, 100.0, n)
            k = rng.random(n) < 0.2
            vals[k] = np.round(vals[k])
            return vals.astype(dtype)
        vals = rng.standard_normal(n) * 1e3
        k = rng.random(n) < 0.15
        vals[k] = np.round(vals[k])  # integral values, ties for round
        k = rng.random(n) < 0.10
        vals[k] = rng.integers(-4, 5, int(k.sum()))  # small bases / exponents
        vals[rng.random(n) < 0.03] = 0.0
        vals[rng.random(n) < 0.02] = -0.0
        vals[rng.random(n) < 0.02] = np.nan
        vals[rng.random(n) < 0.005] = np.inf
        vals[rng.random(n) < 0.005] = -np.inf
        k = rng.random(n) < 0.05
        vals[k] = rng.integers(-50, 50, int(k.sum())) + 0.5  # ties for round
        return vals.astype(dtype)
    if dtype == "date32":
        lim = 3_000_000 if not small else 50_000  # large: overflows timestamp[ns]
        return rng.integers(-lim, lim, n).astype(np.int32)
    if dtype in ("timestamp", "timestamp_tz"):
        return rng.integers(-3 * 10**15, 3 * 10**15, n).astype(np.int64)
    if dtype == "string":
        return WORDS[rng.integers(0, len(WORDS), n)]
    if dtype == "category":
        return rng.integers(0, len(CATEGORIES), n).astype(np.int32)
    raise AssertionError(dtype)


def make_col(dtype, values, mask):
    """A CPU engine column of dtype holding values, null where mask."""
    if dtype == "string":
        vals = values.copy()
        if mask is not None:
            vals[mask] = None
        return _core.column_from_sequence(list(vals))
    if dtype == "category":
        codes = values.copy()
        if mask is not None:
            codes[mask] = -1
        return _core.categorical_from_codes(codes, _core.column_from_sequence(CATEGORIES))
    if dtype == "date32":
        return _core.column_from_buffer(values, mask=mask, dtype="date32")
    if dtype == "timestamp":
        return _core.column_from_buffer(values, mask=mask, dtype="timestamp", unit="us")
    if dtype == "timestamp_tz":
        return _core.column_from_buffer(values, mask=mask, dtype="timestamp", unit="ms",
                                        tz="UTC")
    return _core.column_from_buffer(values, mask=mask)


def operand(dtype, n, layout, which, key, small=False):
    """(cpu, gpu) columns with the same n rows.  layout: 'nulls', 'dense'
    (no nulls) or 'sliced' (with nulls; operand 0 sliced on the GPU at
    offset 13, operand 1 sliced on the CPU at offset 5 and moved)."""
    off = 0 if layout != "sliced" else (13 if which == 0 else 5)
    rng = _rng(dtype, n, layout, which, small, *key)
    values = gen_values(dtype, n + off, rng, small)
    mask = None if layout == "dense" else rng.random(n + off) < 0.15
    base = make_col(dtype, values, mask)
    if off == 0:
        return base, base.to_device("cuda")
    cpu = base.slice(off, n)
    gpu = base.to_device("cuda").slice(off, n) if which == 0 else cpu.to_device("cuda")
    return cpu, gpu


# --------------------------------------------------------------------------
# comparison
# --------------------------------------------------------------------------


# float ** only: the device's pow against the host's (float32 ** is computed
# in double on the device and rounded once; the host uses powf).
POW_RTOL = {"float64": 1e-12, "float32": 3e-7}


def assert_same(cpu, gpu, what, pow_op=False):
    """gpu (a column on the GPU) holds the same column as cpu (on the CPU):
    exactly, or within POW_RTOL for float ** (pow_op)."""
    assert str(gpu.device).startswith("cuda"), f"{what}: result on {gpu.device}"
    host = gpu.to_device("cpu")
    assert host.dtype == cpu.dtype, f"{what}: dtype {host.dtype} != {cpu.dtype}"
    assert (host.unit, host.timezone) == (cpu.unit, cpu.timezone), f"{what}: unit/timezone"
    assert host.length == cpu.length, f"{what}: length {host.length} != {cpu.length}"
    assert host.null_count == cpu.null_count, (
        f"{what}: {host.null_count} nulls, expected {cpu.null_count}")
    cm, gm = cpu.null_mask(), host.null_mask()
    assert (cm is None) == (gm is None) and (cm is None or cm == gm), f"{what}: null positions"
    if cpu.dtype in ("string", "category"):
        assert host.to_pylist() == cpu.to_pylist(), f"{what}: values"
        return
    valid = np.ones(cpu.length, dtype=bool)
    if cm is not None:
        valid = np.frombuffer(cm, dtype=np.uint8) == 0
    want = np.asarray(cpu.values())[valid]
    got = np.asarray(host.values())[valid]
    if want.dtype.kind != "f":
        bad = np.flatnonzero(want != got)
        assert bad.size == 0, (
            f"{what}: {bad.size} values differ, first at valid row {bad[0]}: "
            f"{got[bad[0]]!r} != {want[bad[0]]!r}")
        return
    wn, gn = np.isnan(want), np.isnan(got)
    assert np.array_equal(wn, gn), f"{what}: NaN positions differ"
    w, g = want[~wn], got[~wn]
    if not pow_op:
        bad = np.flatnonzero((w != g) | (np.signbit(w) != np.signbit(g)))
    else:
        fin = np.isfinite(w) & np.isfinite(g)
        bad_inf = np.flatnonzero(~fin & (w != g))
        wf, gf = w.astype(np.float64), g.astype(np.float64)
        lim = POW_RTOL[cpu.dtype] * np.maximum(np.abs(wf), np.abs(gf))
        lim += 2 * float(np.finfo(want.dtype).smallest_subnormal)
        with np.errstate(invalid="ignore"):  # inf - inf where not finite
            far = fin & (np.abs(wf - gf) > lim)
        bad = np.union1d(bad_inf, np.flatnonzero(far))
    assert bad.size == 0, (
        f"{what}: {bad.size} values differ, first at valid row {bad[0]}: "
        f"{g[bad[0]]!r} != {w[bad[0]]!r}")


def on_gpu(what, fn, args, native=True):
    """fn(*args); with zb.profile(), check that no operation fell back to
    the CPU -- else a GPU entry that declined would pass unnoticed, the CPU
    giving the same answer.  native=False: the GPU backend leaves these
    inputs to the CPU (strings)."""
    if not native:
        return fn(*args)
    with zb.profile() as p:
        out = fn(*args)
    falls = [r for r in p.records if r.fallback]
    assert not falls, f"{what}: {falls[0].op} fell back to the CPU: {falls[0].reason}"
    return out


def check(what, fn, cpu_args, gpu_args, op=None, native=True):
    """fn on the CPU operands and on the GPU operands: the same result, or the
    same error (type and message).  op: the binary op fn runs, if any."""
    try:
        want = fn(*cpu_args)
    except Exception as e:  # noqa: BLE001 -- the GPU must fail the same way
        with pytest.raises(type(e)) as info:
            fn(*gpu_args)
        assert str(info.value) == str(e), f"{what}: GPU error {info.value!s} != CPU {e!s}"
        return
    assert_same(want, on_gpu(what, fn, gpu_args, native), what, pow_op=op == "pow")


# --------------------------------------------------------------------------
# binary operations
# --------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("ta,tb", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_binary_columns(ta, tb, n, layout):
    ca, ga = operand(ta, n, layout, 0, ("bin", tb))
    cb, gb = operand(tb, n, layout, 1, ("bin", ta))
    ops = BINARY_OPS if ta != "string" else ["eq", "ne", "lt", "le", "gt", "ge"]
    for op in ops:
        what = f"{ta} {op} {tb} [n={n}, {layout}]"
        check(what, lambda x, y, op=op: _core.binary(op, x, y), (ca, cb), (ga, gb), op)
        check("reversed " + what, lambda x, y, op=op: _core.binary(op, y, x), (ca, cb),
              (ga, gb), op)


SCALARS = {
    "bool": [True, False, None, 2, 0.5],
    "int": [0, 1, -1, 3, 7, 2**40, -(2**63), 2**64 - 1, 2.5, True, None],
    "float": [0.0, -0.0, 1.0, 2.5, -3.0, float("nan"), float("inf"), 3, True, None],
}


@pytest.mark.parametrize("layout", ["nulls", "dense"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", NUMERIC)
def test_binary_scalars(dtype, n, layout):
    c, g = operand(dtype, n, layout, 0, ("scalar",))
    kind = "bool" if dtype == "bool" else ("float" if dtype in FLOATS else "int")
    values = SCALARS[kind]
    if n > 100_000:  # the long column checks the grid-stride loop: a few scalars do
        values = values[:3] + [None]
    for value in values:
        for reflected in (False, True):
            for op in BINARY_OPS:
                what = f"{dtype} {op} {value!r} (reflected={reflected}) [n={n}, {layout}]"
                check(what,
                      lambda x, op=op, v=value, r=reflected: _core.binary_scalar(op, x, v, r),
                      (c,), (g,), op)


# --------------------------------------------------------------------------
# unary, null tests, fill, where, clip, round
# --------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", NUMERIC)
def test_unary(dtype, n, layout):
    c, g = operand(dtype, n, layout, 0, ("unary",))
    for op in ("neg", "abs", "invert"):
        check(f"{op} {dtype} [n={n}, {layout}]", lambda x, op=op: _core.unary(op, x), (c,), (g,))


ALL_TYPES = NUMERIC + ["date32", "timestamp", "timestamp_tz", "string", "category"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_isnull_notnull(dtype, n, layout):
    c, g = operand(dtype, n, layout, 0, ("isnull",))
    check(f"isnull {dtype} [n={n}, {layout}]", _core.isnull, (c,), (g,))
    check(f"notnull {dtype} [n={n}, {layout}]", _core.notnull, (c,), (g,))


FILL_VALUES = {"bool": [True, False], "float32": [2.5, -1.0], "float64": [2.5, float("nan")],
               "date32": [12345, -7], "timestamp": [10**15], "timestamp_tz": [-5],
               "category": ["mid"], "string": ["filled"]}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_fill_null(dtype, n, layout):
    c, g = operand(dtype, n, layout, 0, ("fill",))
    for value in FILL_VALUES.get(dtype, [7, 0]):
        check(f"fill_null({value!r}) {dtype} [n={n}, {layout}]",
              lambda x, v=value: _core.fill_null(x, v), (c,), (g,))


WHERE_TYPES = NUMERIC + ["date32", "timestamp_tz", "string", "category"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", WHERE_TYPES)
def test_where_mask(dtype, n, layout):
    c, g = operand(dtype, n, layout, 0, ("where",))
    co, go = operand(dtype, n, layout, 1, ("where-other",))
    cc, gc_ = operand("bool", n, layout, 1, ("where-cond", dtype))
    scalar = {"bool": True, "string": "other", "category": "mid", "float32": 0.5,
              "float64": -2.25}.get(dtype, 3)
    for mask in (False, True):
        for label, cother, gother in (("column", co, go), ("scalar", scalar, scalar),
                                      ("null", None, None)):
            what = f"{'mask' if mask else 'where'} {dtype} other={label} [n={n}, {layout}]"
            check(what,
                  lambda x, cond, other, m=mask: _core.column_where(x, cond, other, mask=m),
                  (c, cc, cother), (g, gc_, gother))


FILL_SCAN_ARGS = [(None, None), (1, None), (3, "inside"), (None, "outside"), (None, "inside"),
                  (2000, None)]


def _fill_scan_check(dtype, n, layout, c, g):
    for backward in (False, True):
        for limit, area in FILL_SCAN_ARGS:
            what = (f"{'bfill' if backward else 'ffill'}(limit={limit}, limit_area={area}) "
                    f"{dtype} [n={n}, {layout}]")
            check(what, lambda x, b=backward, lim=limit, a=area: _core.fill_scan(x, b, lim, a),
                  (c,), (g,))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_fill_scan(dtype, n, layout):
    c, g = operand(dtype, n, layout, 0, ("fill_scan",))
    _fill_scan_check(dtype, n, layout, c, g)


@pytest.mark.parametrize("dtype", ["float64", "int8", "string", "category", "timestamp_tz"])
def test_fill_scan_long_runs(dtype):
    """One valid row in about 5000: runs of nulls far longer than a block."""
    n = 1_000_001
    rng = _rng("fill_scan_long", dtype)
    values = gen_values(dtype, n, rng)
    mask = rng.random(n) >= 0.0002
    mask[-3000:] = True  # a trailing run: limit_area's edge
    cpu = make_col(dtype, values, mask)
    _fill_scan_check(dtype, n, "long runs", cpu, cpu.to_device("cuda"))


CUM_OPS = ["cumsum", "cumprod", "cummin", "cummax"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_cumulative(dtype, n, layout):
    """cumsum / cumprod / cummin / cummax, whole column and per group, with
    skipna either way.  The GPU table has no cumulative row yet (the
    whole-column kernel in src/cuda/cumulative.cu is compiled but waits for
    a run of this test with native=True, float sums and products compared
    within rounding): the call runs on the CPU over host copies
    (native=False) and its result must come back to the GPU; an
    unsupported type fails with the CPU's error."""
    c, g = operand(dtype, n, layout, 0, ("cumulative",))
    rng = _rng("cumulative_ids", f"{dtype}/{n}/{layout}")
    ids = rng.integers(0, 7, n).astype(np.int64)
    idc = _core.column_from_buffer(ids, mask=rng.random(n) < 0.1)
    idg = idc.to_device("cuda")
    for op in CUM_OPS:
        for skipna in (True, False):
            what = f"{op}(skipna={skipna}) {dtype} [n={n}, {layout}]"
            check(what, lambda x, op=op, s=skipna: _core.cumulative(x, op, s, None, 0),
                  (c,), (g,), native=False)
            check("group " + what,
                  lambda x, i, op=op, s=skipna: _core.cumulative(x, op, s, i, 7),
                  (c, idc), (g, idg), native=False)


RANK_METHODS = ["average", "min", "max", "first", "dense"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_rank(dtype, n, layout):
    """rank, whole column and per group, every method with two sets of
    options.  The GPU table has no rank row yet (src/cuda/rank.cu is
    compiled but waits for a run of this test with native=True; its results
    must equal the CPU's exactly): the call runs on the CPU over host
    copies (native=False) and its result must come back to the GPU."""
    c, g = operand(dtype, n, layout, 0, ("rank",))
    rng = _rng("rank_ids", f"{dtype}/{n}/{layout}")
    ids = rng.integers(0, 7, n).astype(np.int64)
    idc = _core.column_from_buffer(ids, mask=rng.random(n) < 0.1)
    idg = idc.to_device("cuda")
    for method in RANK_METHODS:
        for asc, na, pct in ((True, "keep", False), (False, "top", True)):
            what = f"rank({method}, {asc}, {na}, {pct}) {dtype} [n={n}, {layout}]"
            check(what, lambda x, m=method, a=asc, o=na, p=pct: _core.rank(x, m, a, o, p, None, 0),
                  (c,), (g,), native=False)
            check("group " + what,
                  lambda x, i, m=method, a=asc, o=na, p=pct: _core.rank(x, m, a, o, p, i, 7),
                  (c, idc), (g, idg), native=False)


ROLL_OPS = ["count", "sum", "mean", "min", "max", "var", "std", "skew", "kurt", "median",
            "quantile"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", [0, 33, 1025, 1_000_001])
def test_rolling(n, layout):
    """Moving-window statistics of a float64 column, whole column and per
    group.  The GPU table has no rolling row: the call runs on the CPU over
    host copies (native=False) and its result must come back to the GPU."""
    c, g = operand("float64", n, layout, 0, ("rolling",))
    rng = _rng("rolling_ids", f"{n}/{layout}")
    idc = _core.column_from_buffer(rng.integers(0, 7, n).astype(np.int64),
                                   mask=rng.random(n) < 0.1)
    idg = idc.to_device("cuda")
    for op in ROLL_OPS:
        what = f"rolling {op} [n={n}, {layout}]"
        check(what, lambda x, op=op: _core.rolling(x, op, 50, 3, False, 1, 0.3, "linear", None, 0),
              (c,), (g,), native=False)
        check("group " + what,
              lambda x, i, op=op: _core.rolling(x, op, 5, 1, True, 1, 0.3, "linear", i, 7),
              (c, idc), (g, idg), native=False)


CLIP_BOUNDS = [(-3, 5), (0, None), (None, 2), (None, None), (2.5, 7.25),
               (float("nan"), 1), (-(2**70), 2**70), (10, -10)]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_clip(dtype, n, layout):
    c, g = operand(dtype, n, layout, 0, ("clip",))
    for lo, hi in CLIP_BOUNDS:
        check(f"clip({lo!r}, {hi!r}) {dtype} [n={n}, {layout}]",
              lambda x, lo=lo, hi=hi: _core.column_clip(x, lo, hi), (c,), (g,))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_round(dtype, n, layout):
    c, g = operand(dtype, n, layout, 0, ("round",))
    for decimals in (-19, -3, -1, 0, 1, 2, 5):
        check(f"round({decimals}) {dtype} [n={n}, {layout}]",
              lambda x, d=decimals: _core.column_round(x, d), (c,), (g,))


# --------------------------------------------------------------------------
# casts
# --------------------------------------------------------------------------

CAST_TARGETS = NUMERIC + ["date32", "timestamp[s]", "timestamp[ms]", "timestamp[us]",
                          "timestamp[ns]"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("small", [True, False], ids=["fits", "full-range"])
@pytest.mark.parametrize("src", NUMERIC + ["date32", "timestamp", "timestamp_tz"])
def test_cast(src, small, n, layout):
    c, g = operand(src, n, layout, 0, ("cast",), small=small)
    for target in CAST_TARGETS:
        check(f"cast {src} -> {target} (small={small}) [n={n}, {layout}]",
              lambda x, t=target: _core.cast(x, t), (c,), (g,))


@pytest.mark.parametrize("n", [33, 1_000_001])
def test_cast_reports_the_first_bad_row(n):
    """One bad value late in the column, another one earlier: both backends
    name the earlier row."""
    vals = np.zeros(n, dtype=np.int64)
    vals[n - 1] = 1000
    vals[n // 2] = -129
    mask = np.zeros(n, dtype=bool)
    mask[n // 3] = True  # a null holding an out-of-range value is not checked
    vals[n // 3] = 10**12
    cpu = _core.column_from_buffer(vals, mask=mask)
    gpu = cpu.to_device("cuda")
    check(f"cast int64 -> int8 [n={n}]", lambda x: _core.cast(x, "int8"), (cpu,), (gpu,))
    fl = np.zeros(n)
    fl[n - 2] = np.nan
    fl[n - 1] = 1e300
    cpu = _core.column_from_buffer(fl)
    check(f"cast float64 -> int32 [n={n}]", lambda x: _core.cast(x, "int32"), (cpu,),
          (cpu.to_device("cuda"),))


# --------------------------------------------------------------------------
# through the DataFrame API, device memory, profile
# --------------------------------------------------------------------------


def _frame(n, seed):
    rng = np.random.default_rng(seed)
    null = rng.random((4, n)) < 0.15
    a = rng.integers(-50, 50, n)
    b = rng.integers(-5, 6, n)
    x = rng.standard_normal(n) * 10
    return pd.DataFrame({
        "a": pd.array(np.where(null[0], None, a).tolist(), dtype="Int64"),
        "b": pd.array(np.where(null[1], None, b).tolist(), dtype="Int32"),
        "x": np.where(null[2], np.nan, x),
        "flag": pd.array(np.where(null[3], None, rng.random(n) < 0.5).tolist(),
                         dtype="boolean"),
    })


def _exprs(df):
    a, b, x, f = df["a"], df["b"], df["x"], df["flag"]
    return {
        "a + b": lambda: a + b, "a // b": lambda: a // b, "a % 3": lambda: a % 3,
        "a ** 2": lambda: a ** 2, "x * 2.5": lambda: x * 2.5, "x / a": lambda: x / a,
        "a < b": lambda: a < b, "x >= 0": lambda: x >= 0, "f & (a > 0)": lambda: f & (a > 0),
        "f | ~f": lambda: f | ~f, "-a": lambda: -a, "abs(x)": lambda: abs(x),
        "x.isna()": lambda: x.isna(), "a.fillna(0)": lambda: a.fillna(0),
        "a.clip(-5, 5)": lambda: a.clip(-5, 5), "x.round(2)": lambda: x.round(2),
        "a.where(f, b)": lambda: a.where(f, b), "a.mask(f, 0)": lambda: a.mask(f, 0),
        "a.astype('float64')": lambda: a.astype("float64"),
        "x.astype('float32')": lambda: x.astype("float32"),
    }


@pytest.mark.parametrize("n", [0, 1025, 1_000_001])
def test_frame_expressions_cpu_vs_cuda(n):
    pdf = _frame(n, n)
    cpu = zb.from_pandas(pdf)
    gpu = cpu.to("cuda")
    want, got = _exprs(cpu), _exprs(gpu)
    for name in want:
        w, g = want[name](), on_gpu(name, got[name], ())
        assert str(g.device).startswith("cuda"), f"{name}: on {g.device}"
        pd.testing.assert_series_equal(g.to("cpu").to_pandas(), w.to_pandas(), obj=name)


def _device_bytes():
    gc.collect()
    return _core.alloc_stats()["device_bytes"]


def test_no_device_memory_left_behind_also_after_injected_failures():
    ca, ga = operand("int32", 5000, "sliced", 0, ("mem",))
    cb, gb = operand("float64", 5000, "sliced", 1, ("mem",))
    _, gs = operand("string", 5000, "sliced", 0, ("mem",))
    _, gcond = operand("bool", 5000, "sliced", 1, ("mem",))
    runs = [
        lambda: _core.binary("lt", gs, gs),
        lambda: _core.fill_null(gs, "x"),
        lambda: _core.column_where(gs, gcond, "o"),
        lambda: _core.binary("add", ga, gb),
        lambda: _core.binary("lt", ga, gb),
        lambda: _core.unary("neg", ga),
        lambda: _core.cast(ga, "int8"),
        lambda: _core.fill_null(gb, 1.5),
        lambda: _core.column_round(gb, 1),
    ]
    base = _device_bytes()
    for run in runs:
        ok = False
        for k in range(1, 40):
            _core.alloc_fail_after(k)
            try:
                r = run()
                ok = True
            except MemoryError:
                r = None
            except zb.ZambeziError:  # e.g. the int8 cast of out-of-range values
                r = None
                ok = True
            finally:
                _core.alloc_fail_after(0)
            del r
            assert _device_bytes() == base, f"device memory leaked (failing allocation {k})"
            if ok:
                break
        assert ok, "the operation never succeeded"


def test_profile_shows_the_ops_ran_on_the_gpu():
    _, ga = operand("int64", 1025, "nulls", 0, ("profile",))
    _, gb = operand("float64", 1025, "nulls", 1, ("profile",))
    _, gs = operand("string", 1025, "nulls", 0, ("profile",))
    with zb.profile() as p:
        _core.binary("add", ga, gb)
        _core.unary("abs", gb)
        _core.cast(ga, "float32")
        _core.isnull(ga)
        _core.column_clip(ga, 0, 5)
        _core.fill_scan(gb, False, None, None)
        _core.binary("lt", gs, gs)
        _core.str_cat(gs, gs, "-")  # declined, runs on the CPU
    ops = {}
    for r in p.records:
        ops.setdefault(r.op, []).append(r)
    for op in ("add", "abs", "cast", "isnull", "clip", "lt", "ffill"):
        assert op in ops, f"no profile record for {op}: {sorted(ops)}"
        for r in ops[op]:
            assert r.device.startswith("cuda") and not r.fallback, (
                f"{op} ran on {r.device} (fallback: {r.reason!r})")
    assert ops.get("str_cat") and all(r.fallback and r.reason for r in ops["str_cat"]), (
        "the string concatenation is not recorded as a fallback")
