"""GPU tests: var, std, prod, any, all, argmin / argmax (idxmin / idxmax)
on the CUDA backend against the CPU backend.

Marked ``gpu``; skipped (conftest.py) without a usable CUDA device.

Every numeric dtype (and dates / timestamps for argmin / argmax) with
nulls, NaN, -0.0 and +-inf, at sizes around warp boundaries up to
10**6 + 1, whole and sliced at odd offsets: the GPU's answer equals the
CPU's -- exactly for integer products, any / all, positions, medians and
quantiles; within 1e-9 relative for var / std (the two sum in different
orders); within 1e-12 relative for float products -- and the profile shows
the GPU ran it.  Median and argmin of bools fall back to the CPU with a
reason.
"""

import math

import numpy as np
import pyarrow as pa
import pytest

import zambezi as zb


pytestmark = pytest.mark.gpu
core = zb._core

SIZES = [0, 1, 31, 32, 33, 1025, 1_000_001]
NUMERIC = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float32", "float64"]
OPS = ["var", "std", "prod", "any", "all", "argmin", "argmax", "median"]
QS = [0.0, 0.1, 0.25, 0.5, 0.9, 1.0, 1 / 3]


def values(dtype, n, seed, nulls=True):
    rng = np.random.default_rng(seed)
    mask = rng.random(n) < 0.15 if nulls else None
    if dtype == "bool":
        return pa.array(rng.random(n) < 0.7, mask=mask)
    if dtype.startswith("float"):
        v = (rng.standard_normal(n) * 1e3 + 5e3).astype(dtype)
        if n > 8:
            v[[1, 4, 7]] = [np.nan, -0.0, 0.0]
        return pa.array(v, mask=mask)
    if dtype in ("date32", "timestamp"):
        v = rng.integers(-10**6, 10**6, n)
        typ = pa.date32() if dtype == "date32" else pa.timestamp("us")
        return pa.array(v.astype(np.int32 if dtype == "date32" else np.int64), mask=mask).cast(typ)
    info = np.iinfo(dtype)
    # small magnitudes keep integer products from being all zero by wrap
    v = rng.integers(max(info.min, -3), min(info.max, 3) + 1, n).astype(dtype)
    return pa.array(v, mask=mask)


def close(a, b, rel):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) and (math.isnan(a) or math.isinf(a)):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return a == b or abs(a - b) <= rel * max(abs(a), abs(b))


def check(hc, gc, what):
    for op in OPS:
        if (op.startswith("arg") or op == "median") and hc.dtype == "bool":
            continue
        for ddof in ((0, 1) if op in ("var", "std") else (1,)):
            want = core.stat(hc, op, ddof)
            with zb.profile() as p:
                got = core.stat(gc, op, ddof)
            recs = [r for r in p.records if r.op == op]
            assert recs and all(r.device.startswith("cuda") and not r.fallback for r in recs), (
                f"{what} {op}: {recs}")
            rel = 1e-9 if op in ("var", "std") else 1e-12 if op == "prod" else 0
            assert type(got) is type(want) and close(got, want, rel), (
                f"{what} {op} ddof={ddof}: GPU {got!r}, CPU {want!r}")
    if hc.dtype != "bool":
        with zb.profile() as p:
            got = core.quantile(gc, QS)
        assert all(r.device.startswith("cuda") and not r.fallback
                   for r in p.records if r.op == "quantile"), f"{what} quantile: {p.records}"
        want = core.quantile(hc, QS)
        assert all(close(a, b, 0) for a, b in zip(got, want)), (
            f"{what} quantile: GPU {got}, CPU {want}")


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", NUMERIC)
def test_statistics_match_cpu(dtype, n):
    arr = values(dtype, n + 5, n)
    hc = zb.Series(arr)._col
    for label, h, g in (("whole", hc, hc.to_device("cuda")),
                        ("sliced", hc.slice(5, n), hc.to_device("cuda").slice(5, n))):
        check(h, g, f"{dtype}[{n}] {label}")
    if n == 1025:
        h = zb.Series(values(dtype, n, 7, nulls=False))._col
        check(h, h.to_device("cuda"), f"{dtype}[{n}] no nulls")


@pytest.mark.parametrize("dtype", ["date32", "timestamp"])
def test_argmin_argmax_of_dates(dtype):
    hc = zb.Series(values(dtype, 100_003, 5))._col
    gc = hc.to_device("cuda")
    for op in ("argmin", "argmax"):
        assert core.stat(gc, op) == core.stat(hc, op)


def test_special_values():
    cases = [
        [np.inf, 1.0, -np.inf],           # var NaN, prod -inf
        [np.nan, np.nan],                  # nothing taken: var null, argmin null
        [-0.0, 0.0, -0.0],                 # argmin / argmax: the first zero
        [1e308, 1e308, -1e308],            # large values
        [3.0, np.nan, 1.0, 1.0, np.nan],   # NaN skipped, first of the ties
    ]
    for vals in cases:
        hc = zb.Series(np.array(vals))._col
        check(hc, hc.to_device("cuda"), f"{vals}")
    for dtype in ("int64", "uint64"):
        big = np.array([np.iinfo(dtype).max, np.iinfo(dtype).min, 7], dtype=dtype)
        hc = zb.Series(big)._col
        check(hc, hc.to_device("cuda"), f"{dtype} extremes")


def test_bool_median_and_argmin_fall_back():
    hb = zb.Series(np.array([True, False, True]))._col
    for h, op in ((hb, "median"), (hb, "argmin")):
        with zb.profile() as p:
            got = core.stat(h.to_device("cuda"), op)
        assert got == core.stat(h, op)
        recs = [r for r in p.records if r.op == op]
        assert recs and all(r.fallback and r.reason for r in recs), recs


def test_series_methods_on_the_gpu():
    s = zb.Series(values("float64", 50_001, 3))
    g = s.to("cuda")
    for name in ("var", "std"):
        assert close(getattr(g, name)(), getattr(s, name)(), 1e-9), name
    assert g.idxmax() == s.idxmax() and g.idxmin() == s.idxmin()
    assert g.median() == s.median() and g.quantile(0.3) == s.quantile(0.3)
