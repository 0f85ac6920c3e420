"""GPU tests: the CUDA backend against the CPU backend and against pandas.

Every test here is marked ``gpu`` and skipped (conftest.py) when the
engine reports no usable CUDA device (no driver, no GPU, or a build without
the CUDA backend), so it is safe to collect everywhere.

What is checked:
  * sum / min / max / mean / count of every numeric dtype, for lengths around
    warp, block and grid boundaries, with and without nulls, and on slices
    whose offsets are not multiples of 8 (so validity bits straddle bytes):
    the GPU result equals the CPU result (integers exactly, floats within
    1e-12 of the sum of magnitudes) and equals pandas;
  * a reduction over more than 2**31 elements (64-bit indexing);
  * the device round trip ``to("cuda").to("cpu")`` of every dtype, strings,
    categoricals, dates and timestamps included, compared with to_pandas();
  * ``df.device`` is "cuda:0"; the device allocator counters go back to where
    they were once the GPU objects are freed, also after an injected
    allocation failure inside a GPU reduction.
"""

import gc
import zlib

import numpy as np
import pandas as pd
import pytest

import zambezi as zb


pytestmark = pytest.mark.gpu

NUMERIC = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
]
SIZES = [0, 1, 31, 32, 33, 1023, 1024, 1025, 1_000_001]
OPS = ["sum", "min", "max", "mean", "count"]

# pandas nullable dtype for each numpy dtype (the pandas oracle uses these so
# that nulls are real missing values, not NaN casts).
PD_NULLABLE = {
    "bool": "boolean",
    "int8": "Int8",
    "int16": "Int16",
    "int32": "Int32",
    "int64": "Int64",
    "uint8": "UInt8",
    "uint16": "UInt16",
    "uint32": "UInt32",
    "uint64": "UInt64",
    # floats: pandas sums float32 in float32; zambezi sums in double, so the
    # oracle works on the values widened to float64 (exactly representable).
    "float32": "Float64",
    "float64": "Float64",
}


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def _values(dtype, n, seed):
    """Random values of dtype; floats get a few NaN.  Integer sums cannot
    overflow int64 here (wrapping is tested separately)."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.startswith("float"):
        v = rng.uniform(-1000.0, 1000.0, n).astype(dtype)
        if n:
            v[rng.integers(0, n, max(1, n // 97))] = np.nan
        return v
    info = np.iinfo(dtype)
    lo = max(int(info.min), -(10**12))
    hi = min(int(info.max), 10**12)
    return rng.integers(lo, hi, n, dtype=dtype, endpoint=True)


def _mask(n, seed):
    """True where the value is null (about one in five)."""
    rng = np.random.default_rng(seed + 7)
    return rng.random(n) < 0.2


def _to_list(values, mask):
    out = values.tolist()
    if mask is not None:
        for i in np.flatnonzero(mask):
            out[i] = None
    return out


def make_series(values, mask=None):
    """A zambezi Series on the CPU holding values (nulls where mask)."""
    import pyarrow as pa

    return zb.Series(values if mask is None else pa.array(values, mask=mask))


def slice_series(s, start, stop):
    """Zero-copy slice [start, stop) of a zambezi Series."""
    return s.iloc[start:stop]


def pandas_oracle(values, mask, op):
    dt = str(values.dtype)
    if dt.startswith("float"):
        vals = values.astype("float64")
        m = np.isnan(vals) if mask is None else (mask | np.isnan(vals))
        ser = pd.Series(pd.array(_to_list(vals, m), dtype="Float64"))
    else:
        ser = pd.Series(pd.array(_to_list(values, mask), dtype=PD_NULLABLE[dt]))
    r = getattr(ser, op)()
    if r is pd.NA or (isinstance(r, float) and np.isnan(r)):
        return None
    return r


def _is_null(x):
    return x is None or x is pd.NA or (isinstance(x, float) and np.isnan(x))


def _sum_abs(values, mask):
    v = values.astype("float64")
    keep = ~np.isnan(v)
    if mask is not None:
        keep &= ~mask
    return float(np.abs(v[keep]).sum()) if keep.any() else 0.0


def assert_same(got, want, dtype, op, scale, count, what):
    """got == want: exactly for integers, bools and min/max; for float sums
    within 1e-12 of scale (the sum of magnitudes, so that cancellation does
    not make the bound meaningless) and for means within 1e-12 of
    scale / count."""
    if _is_null(want):
        assert _is_null(got), f"{what}: {op} = {got!r}, expected null"
        return
    assert not _is_null(got), f"{what}: {op} is null, expected {want!r}"
    if op == "mean" or (op == "sum" and dtype.startswith("float")):
        bound = scale if op == "sum" else scale / max(count, 1)
        tol = 1e-12 * max(abs(float(want)), bound, 1e-300)
        assert abs(float(got) - float(want)) <= tol, f"{what}: {op} {got!r} != {want!r}"
    elif dtype.startswith("float"):
        assert float(got) == float(want), f"{what}: {op} {got!r} != {want!r}"
    elif dtype == "bool" and op in ("min", "max"):
        assert bool(got) == bool(want), f"{what}: {op} {got!r} != {want!r}"
    else:
        assert int(got) == int(want), f"{what}: {op} {got!r} != {want!r}"


def _valid_count(values, mask):
    keep = np.ones(len(values), dtype=bool) if mask is None else ~mask
    if values.dtype.kind == "f":
        keep &= ~np.isnan(values)
    return int(keep.sum())


def _device_bytes():
    gc.collect()
    st = zb._core.alloc_stats()
    return st["device_bytes"], st.get("device_allocations", 0)


# --------------------------------------------------------------------------
# reductions
# --------------------------------------------------------------------------


@pytest.mark.parametrize("nulls", [False, True], ids=["dense", "nulls"])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", NUMERIC)
def test_reduce_matches_cpu_and_pandas(dtype, n, nulls):
    seed = zlib.crc32(f"{dtype}/{n}/{nulls}".encode()) & 0xFFFF
    values = _values(dtype, n, seed)
    mask = _mask(n, seed) if nulls else None
    cpu = make_series(values, mask)
    gpu = cpu.to("cuda")
    assert str(gpu.device) == "cuda:0"
    scale, count = _sum_abs(values, mask), _valid_count(values, mask)
    for op in OPS:
        what = f"{dtype}[n={n}, nulls={nulls}]"
        got = getattr(gpu, op)()
        assert_same(got, getattr(cpu, op)(), dtype, op, scale, count, what + " gpu vs cpu")
        if op == "mean" and not dtype.startswith("float") and count > 0:
            # an integer mean is the exact quotient rounded once, on both
            assert float(got) == float(cpu.mean()), what
        want_pd = pandas_oracle(values, mask, op)
        assert_same(got, want_pd, dtype, op, scale, count, what + " gpu vs pandas")


@pytest.mark.parametrize("start,stop", [(1, 32), (3, 1028), (7, 1_000_001), (13, 13), (9, 10)])
@pytest.mark.parametrize("dtype", NUMERIC)
def test_reduce_on_odd_offset_slices(dtype, start, stop):
    n = 1_000_001 if stop > 2000 else 2048
    seed = zlib.crc32(f"{dtype}/{start}".encode()) & 0xFFFF
    values = _values(dtype, n, seed)
    mask = _mask(n, seed)
    base = make_series(values, mask)
    sv, sm = values[start:stop], mask[start:stop]
    scale, count = _sum_abs(sv, sm), _valid_count(sv, sm)
    # slice on the CPU, then move; and move, then slice on the GPU
    for label, gpu in (
        ("slice-then-move", slice_series(base, start, stop).to("cuda")),
        ("move-then-slice", slice_series(base.to("cuda"), start, stop)),
    ):
        cpu = slice_series(base, start, stop)
        for op in OPS:
            what = f"{dtype}[{start}:{stop}] {label}"
            got = getattr(gpu, op)()
            assert_same(got, getattr(cpu, op)(), dtype, op, scale, count, what + " gpu vs cpu")
            assert_same(
                got, pandas_oracle(sv, sm, op), dtype, op, scale, count, what + " gpu vs pandas"
            )


def test_reduce_via_dataframe_column():
    values = np.arange(10_007, dtype="int64") - 5000
    df = zb.DataFrame({"a": values, "b": values.astype("float64") / 3})
    g = df.to("cuda")
    assert str(g.device) == "cuda:0"
    assert int(g["a"].sum()) == int(values.sum())
    assert int(g["a"].min()) == -5000 and int(g["a"].max()) == 5006
    assert int(g["a"].count()) == len(values)
    want = float((values.astype("float64") / 3).sum())
    assert abs(float(g["b"].sum()) - want) <= 1e-12 * float(np.abs(values / 3).sum())
    assert abs(float(g["b"].mean()) - want / len(values)) <= 1e-12 * 5000


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_integer_mean_exact_near_the_limits(dtype):
    """Values near the ends of the range, whose sum needs more than 64 bits:
    the GPU mean is the exact quotient correctly rounded, as the CPU's.
    Oracle: Python fractions."""
    from fractions import Fraction
    info = np.iinfo(dtype)
    rng = np.random.default_rng(5)
    for n in (33, 1025, 100_003):
        values = rng.integers(info.max - 2**40, info.max, n, dtype=dtype, endpoint=True)
        if info.min < 0:
            values[::2] = rng.integers(info.min, info.min + 2**40, (n + 1) // 2, dtype=dtype)
            values[:7] = info.max  # the sum leaves 64 bits before it comes back
        cpu = make_series(values)
        want = float(Fraction(sum(int(v) for v in values), n))
        assert float(cpu.to("cuda").mean()) == float(cpu.mean()) == want, (dtype, n)


@pytest.mark.parametrize("dtype", ["int64", "uint64", "int32"])
def test_integer_sum_wraps_like_numpy(dtype):
    info = np.iinfo(dtype)
    values = np.full(4099, info.max, dtype=dtype)
    values[::3] = info.min if info.min < 0 else info.max - 1
    cpu = make_series(values)
    gpu = cpu.to("cuda")
    want = int(values.sum(dtype="uint64" if dtype.startswith("u") else "int64"))
    assert int(gpu.sum()) == int(cpu.sum()) == want
    assert int(gpu.min()) == int(values.min()) and int(gpu.max()) == int(values.max())


def test_float_special_values():
    values = np.array([1.5, np.nan, -np.inf, 2.0, np.nan], dtype="float64")
    gpu = make_series(values).to("cuda")
    assert float(gpu.min()) == -np.inf
    assert float(gpu.max()) == 2.0
    assert int(gpu.count()) == 3
    assert float(gpu.sum()) == -np.inf
    allnan = make_series(np.full(1000, np.nan)).to("cuda")
    assert _is_null(allnan.min()) and _is_null(allnan.max()) and _is_null(allnan.mean())
    assert float(allnan.sum()) == 0.0 and int(allnan.count()) == 0


def test_all_null_column():
    values = np.arange(777, dtype="int32")
    mask = np.ones(777, dtype=bool)
    gpu = make_series(values, mask).to("cuda")
    assert int(gpu.sum()) == 0 and int(gpu.count()) == 0
    assert _is_null(gpu.min()) and _is_null(gpu.max()) and _is_null(gpu.mean())


@pytest.mark.big
def test_more_than_2_pow_31_elements():
    n = 2**31 + 37
    values = np.ones(n, dtype="int8")
    values[-1] = 5
    gpu = make_series(values).to("cuda")
    del values
    gc.collect()
    assert int(gpu.sum()) == n + 4
    assert int(gpu.count()) == n
    assert int(gpu.max()) == 5 and int(gpu.min()) == 1
    tail = slice_series(gpu, n - 10, n)
    assert int(tail.sum()) == 14
    del gpu, tail


# --------------------------------------------------------------------------
# device round trips
# --------------------------------------------------------------------------


def _mixed_pandas_frame(n=2051):
    rng = np.random.default_rng(5)
    null = rng.random(n) < 0.15
    words = np.array(["", "a", "zambezi", "naïve ✓", "x" * 40], dtype=object)
    data = {}
    for dt in NUMERIC:
        vals = _values(dt, n, 11)
        if dt.startswith("float"):
            vals = np.where(null, np.nan, vals).astype(dt)
        data[dt] = vals
    s = words[rng.integers(0, len(words), n)].copy()
    s[null] = None
    data["string"] = s
    data["category"] = pd.Categorical(rng.choice(["lo", "mid", "hi"], n))
    data["date"] = pd.to_datetime("2000-01-01") + pd.to_timedelta(rng.integers(0, 20000, n), "D")
    data["date"] = data["date"].values.astype("datetime64[D]")
    ts = pd.Timestamp("2021-03-04 05:06:07") + pd.to_timedelta(rng.integers(0, 10**12, n), "us")
    data["timestamp"] = ts.values.astype("datetime64[us]")
    return pd.DataFrame(data)


def test_round_trip_every_dtype():
    pdf = _mixed_pandas_frame()
    df = zb.from_pandas(pdf)
    before = df.to_pandas()
    g = df.to("cuda")
    assert str(g.device) == "cuda:0"
    back = g.to("cpu")
    assert str(back.device) == "cpu"
    pd.testing.assert_frame_equal(back.to_pandas(), before)
    # and of an odd-offset slice
    for name in pdf.columns:
        col = df[name]
        sl = slice_series(col, 5, 2000)
        pd.testing.assert_series_equal(
            sl.to("cuda").to("cpu").to_pandas(), sl.to_pandas(), check_names=False
        )


def test_empty_round_trip():
    df = zb.DataFrame({"a": np.array([], dtype="int64"), "b": np.array([], dtype="float64")})
    back = df.to("cuda").to("cpu")
    assert len(back) == 0
    pd.testing.assert_frame_equal(back.to_pandas(), df.to_pandas())


# --------------------------------------------------------------------------
# devices and memory accounting
# --------------------------------------------------------------------------


def test_devices_lists_the_gpu():
    devs = zb.devices()
    cuda = [d for d in devs if d.get("kind") == "cuda"]
    assert len(cuda) == zb._core.cuda_device_count() >= 1
    assert cuda[0]["name"]
    if "memory_total" in cuda[0]:
        assert cuda[0]["memory_total"] > 0
        assert 0 < cuda[0]["memory_free"] <= cuda[0]["memory_total"]
    if cuda[0].get("compute_capability"):
        major, minor = map(int, str(cuda[0]["compute_capability"]).split("."))
        assert (major, minor) >= (8, 0)
    assert zb._core.cuda_unavailable_reason() == ""


def test_device_memory_returns_to_zero():
    base_bytes, base_allocs = _device_bytes()
    values = np.arange(100_003, dtype="float64")
    df = zb.DataFrame({"a": values, "b": values.astype("int32")})
    g = df.to("cuda")
    assert str(g.device) == "cuda:0"
    live, _ = _device_bytes()
    assert live >= base_bytes + values.nbytes + values.size * 4
    assert float(g["a"].sum()) == float(values.sum())
    back = g.to("cpu")
    del g
    assert _device_bytes() == (base_bytes, base_allocs)
    assert back.to_pandas()["a"].sum() == values.sum()
    del back, df


def test_injected_failure_in_gpu_reduce_leaks_nothing():
    fail_after = zb._core.alloc_fail_after
    gpu = make_series(np.arange(50_000, dtype="int64")).to("cuda")
    base = _device_bytes()
    fail_after(1)  # the reduction's scratch allocation fails
    try:
        with pytest.raises(MemoryError):
            gpu.sum()
    finally:
        fail_after(0)
    assert _device_bytes() == base
    assert int(gpu.sum()) == 50_000 * 49_999 // 2
    del gpu
