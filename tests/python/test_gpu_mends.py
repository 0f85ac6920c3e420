"""GPU kernels whose shortcuts a wrong answer would hide in: equal keys
within one warp (cumcount and the group-by value counts add once per run of
equal groups, not once per row) and sorts on only the bits the keys differ
in (median, quantile and nunique, per group and over a whole column).

Marked ``gpu``: skipped (conftest.py) where the engine sees no usable CUDA
device.  The oracle is pandas on the same data; every result must also have
been computed on the GPU, without a fallback.
"""
import numpy as np
import pandas as pd
import pytest

import zambezi as zb

pytestmark = pytest.mark.gpu

GPU = "cuda"


def _on_gpu(what, fn):
    """fn() inside zb.profile(): its group-by ran on the GPU and nothing fell
    back to the CPU."""
    with zb.profile() as p:
        res = fn()
    gb = [r for r in p.records if r.op in ("groupby", "group_ids")]
    assert gb and all(r.device.startswith("cuda") for r in gb), (
        f"{what}: group-by ran on {[r.device for r in gb]}")
    falls = [r for r in p.records if r.fallback]
    assert not falls, f"{what}: {falls[0].op} fell back to the CPU: {falls[0].reason}"
    return res


def _key_patterns(n):
    """Group ids that put many equal keys in one warp: all one group, runs
    of 32 and 33 (warp-aligned and not), two alternating groups, runs
    shorter than a warp, and random ids among a few groups."""
    i = np.arange(n)
    rng = np.random.default_rng(n)
    return {
        "one group": np.zeros(n, dtype=np.int64),
        "runs of 32": i // 32,
        "runs of 33": i // 33,
        "alternating": i % 2,
        "runs of 5": i // 5,
        "random of 3": rng.integers(0, 3, n),
    }


@pytest.mark.parametrize("n", [1, 31, 32, 33, 1000, 100_003])
def test_cumcount_equal_keys_in_a_warp(n):
    for label, k in _key_patterns(n).items():
        pdf = pd.DataFrame({"k": k, "v": np.arange(n)})
        gpu = zb.DataFrame(pdf).to(GPU)
        for asc in (True, False):
            want = pdf.groupby("k").cumcount(ascending=asc)
            got = gpu.groupby("k").cumcount(ascending=asc).to_pandas()
            np.testing.assert_array_equal(got.to_numpy(), want.to_numpy(),
                                          err_msg=f"cumcount {label} n={n} asc={asc}")


def _value_patterns(n):
    """Values whose order keys differ in only a few bits, low, middle or
    high, or in none; and some whose sign bit differs."""
    rng = np.random.default_rng(7 + n)
    small = rng.integers(0, 4, n)
    return {
        "low bits": (1_000_000_000_000 + small).astype(np.int64),
        "high bits": (small << 60).astype(np.int64) - (1 << 61),
        "middle bits": (12345 + (small << 33)).astype(np.int64),
        "all equal": np.full(n, -77, dtype=np.int64),
        "signs": rng.choice(np.array([-3, -1, 2, 5], dtype=np.int64), n),
        "floats one exponent": 1.0 + small * 2.0 ** -50,
        "floats both signs": rng.choice(np.array([-2.5, -0.0, 0.5, 1e300]), n),
        "uint top bit": (np.uint64(1) << np.uint64(63)) + small.astype(np.uint64),
    }


@pytest.mark.parametrize("n", [2, 33, 1000, 100_003])
def test_group_median_quantile_nunique_few_bits(n):
    i = np.arange(n)
    for vlabel, v in _value_patterns(n).items():
        for klabel, k in (("runs of 32", i // 32), ("random of 3", i % 3)):
            pdf = pd.DataFrame({"k": k, "v": v})
            gpu = zb.DataFrame(pdf).to(GPU)
            what = f"{vlabel}, {klabel}, n={n}"
            g = gpu.groupby("k")["v"]
            pg = pdf.groupby("k")["v"]
            got = _on_gpu(what, lambda: g.nunique()).to_pandas()
            np.testing.assert_array_equal(got.to_numpy(), pg.nunique().to_numpy(),
                                          err_msg=f"nunique {what}")
            if v.dtype == np.uint64:
                continue  # pandas' median of uint64 near 2**64 goes through floats
            got = _on_gpu(what, lambda: g.median()).to_pandas()
            np.testing.assert_array_equal(got.to_numpy(), pg.median().to_numpy(),
                                          err_msg=f"median {what}")
            for q in (0.0, 0.3, 1.0):
                got = _on_gpu(what, lambda: g.quantile(q)).to_pandas()
                np.testing.assert_array_equal(got.to_numpy(), pg.quantile(q).to_numpy(),
                                              err_msg=f"quantile {q} {what}")


@pytest.mark.parametrize("n", [2, 33, 1000, 100_003])
def test_column_median_quantile_few_bits(n):
    for vlabel, v in _value_patterns(n).items():
        if v.dtype == np.uint64:
            continue
        s = pd.Series(v)
        gs = zb.Series(s).to(GPU)
        assert gs.median() == s.median(), f"median {vlabel} n={n}"
        for q in (0.0, 0.1, 0.5, 0.9, 1.0):
            assert gs.quantile(q) == s.quantile(q), f"quantile {q} {vlabel} n={n}"
        assert gs.nunique() == s.nunique(), f"nunique {vlabel} n={n}"


def _string_patterns(n):
    """String keys for the prefix radix sort: one long shared prefix (every
    row tied on its first 8 bytes), short distinct strings (no ties: no
    merge sort), 8 and 9 bytes, embedded NULs and zero padding, bytes above
    0x7f, empty strings and nulls."""
    rng = np.random.default_rng(n)
    ids = rng.integers(0, max(n // 4, 2), n)
    edge = ["", "a", "abcdefg", "abcdefgh", "abcdefgh\x00", "abcdefghi", "abcdefgi",
            "abcdefgh\x00a", "\u00e9t\u00e9", "\uffff" * 3, "\U0001f600", "a\x00", None]
    return {
        "shared prefix": [f"customer_{i:09d}" for i in ids],
        "short distinct": [f"{i:x}" for i in rng.permutation(n)],
        "edges": [edge[k] for k in rng.integers(0, len(edge), n)],
        "edges and ties": [None if k % 7 == 0 else f"{'x' * (k % 11)}{k % 3}"
                           for k in rng.integers(0, 50, n)],
    }


@pytest.mark.parametrize("n", [2, 33, 1000, 100_003])
def test_string_keys_prefix_sort(n):
    for label, keys in _string_patterns(n).items():
        pdf = pd.DataFrame({"s": pd.array(keys, dtype="object"), "v": np.arange(n)})
        gpu = zb.DataFrame(pdf).to(GPU)
        for asc in (True, False):
            for na in ("last", "first"):
                want = pdf.sort_values("s", ascending=asc, na_position=na, kind="stable")
                got = gpu.sort_values("s", ascending=asc, na_position=na).to_pandas()
                np.testing.assert_array_equal(
                    got["v"].to_numpy(), want["v"].to_numpy(),
                    err_msg=f"sort_values {label} n={n} ascending={asc} na={na}")
        # the group-by's string key pass sorts the same way
        want = pdf.groupby("s", sort=True)["v"].sum()
        got = gpu.groupby("s", sort=True)["v"].sum().to_pandas()
        assert list(got.index) == list(want.index), f"groupby keys {label} n={n}"
        np.testing.assert_array_equal(got.to_numpy(), want.to_numpy(),
                                      err_msg=f"groupby sums {label} n={n}")
