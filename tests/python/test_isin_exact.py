"""isin compares numbers exactly, as pandas does: integers beyond 2^53
against floats, uint64 against int64, floats against integers a float64
cannot hold, whole and fractional floats against integer columns of every
width.  zambezi had compared them after a cast to float64 (or to a common
integer type), so 2^53 + 1 matched 2^53.  pandas run side by side is the
oracle."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb

BIG = [2**53 + 1, 2**62 + 3, 2**63 - 1, 1378774140726870442]
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def column(dtype, rng):
    info = np.iinfo(dtype)
    vals = rng.integers(max(info.min, -1000), min(info.max, 1000), 50).astype(dtype)
    if dtype in ("int64", "uint64"):
        vals[:4] = np.array([b for b in BIG if b <= info.max][:4] * 2, dtype=object)[:4].astype(dtype)
    return vals


def targets(rng):
    return [
        [float(b) for b in BIG],                                   # the big ints as floats
        np.array(BIG[:3], dtype="int64"),
        np.array([2**63, 2**64 - 1, 5], dtype="uint64"),
        np.array([-1, -128, 0, 127, 255, 3], dtype="int64"),
        [3.0, 3.5, -0.0, 1e300, float("inf"), 255.0, 256.0],
        rng.integers(-1000, 1000, 20).astype("float64"),
        rng.integers(-1000, 1000, 20).tolist(),
    ]


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_columns(dtype):
    rng = np.random.default_rng(INT_DTYPES.index(dtype))
    p = pd.Series(column(dtype, rng))
    z = zb.Series(p)
    for t in targets(rng):
        assert z.isin(t).to_list() == p.isin(t).tolist(), (dtype, t)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_columns(dtype):
    rng = np.random.default_rng(7)
    v = np.concatenate([np.array([2.0**53, 2.0**62, 1.5, -3.0, 2.0**63]),
                        rng.integers(-1000, 1000, 30).astype(float)]).astype(dtype)
    p = pd.Series(v)
    z = zb.Series(p)
    for t in targets(rng):
        assert z.isin(t).to_list() == p.isin(t).tolist(), (dtype, t)


def test_values_as_series_and_index():
    p = pd.Series(np.array([2**53 + 1, 7], dtype="int64"))
    t = pd.Series([float(2**53), 7.0])
    assert zb.Series(p).isin(zb.Series(t)).to_list() == p.isin(t).tolist()
    assert zb.Index(p).isin([float(2**53)]).tolist() == pd.Index(p).isin([float(2**53)]).tolist()


def test_a_list_of_ints_and_floats_compares_each_exactly():
    # Each kind of a mixed list is compared in its own kind, so 2**53 + 1
    # never meets the float 2.0**53 (hand-computed answers: pandas 3.1
    # agrees for float32 columns, GH#46485, but still rounds the list for
    # int64 and float64 columns).
    for dtype in ("int64", "uint64", "float32", "float64"):
        s = zb.Series(pd.Series([2**53, 1, 2], dtype="int64").astype(dtype))
        assert s.isin([2**53 + 1, 1.5]).to_list() == [False, False, False], dtype
        assert s.isin([2**53, 1.5]).to_list() == [True, False, False], dtype
        assert s.isin([1, 2.0]).to_list() == [False, True, True], dtype
        assert s.isin([np.int64(2), np.float32(1.0)]).to_list() == [False, True, True], dtype
    f = zb.Series([1.0, None, 3.0])
    assert f.isin([3, np.nan, 7.5]).to_list() == [False, True, True]  # NaN matches missing


def test_an_iterator_is_read_once_as_pandas():
    p = pd.Series([1, 2, 3])
    for vals in ([1, 2], [1.0, 2.0]):
        assert zb.Series(p).isin(v for v in vals).to_list() == p.isin(v for v in vals).tolist()
        assert zb.Series(p).isin(iter(vals)).to_list() == p.isin(iter(vals)).tolist()


def test_frame_isin_compares_as_the_series_does():
    # DataFrame.isin(list) gives each column Series.isin's exact answer
    # (it had turned the whole list into floats when one was a float)
    df = zb.DataFrame({"i": pd.Series([2**53, 1, 2], dtype="int64"),
                       "f": [2.0**53, 1.0, 2.5], "b": [True, False, True]})
    got = df.isin([2**53 + 1, 1.5, True]).to_pandas()
    assert got["i"].tolist() == [False, True, False]   # True is 1
    assert got["f"].tolist() == [False, True, False]
    assert got["b"].tolist() == [True, False, True]
    for c in ("i", "f", "b"):
        assert got[c].tolist() == df[c].isin([2**53 + 1, 1.5, 1]).to_list(), c
