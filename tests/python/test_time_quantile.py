"""Quantiles of timestamps and durations, and of 64-bit integers past
2^52, against pandas run side by side (values compared with ==, the
result's type and dtype too).

pandas takes the quantile of the int64 counts with numpy, which subtracts
the two neighbouring values as integers before interpolating in float64,
then casts the result back toward zero: nanosecond times (about 1.7e18)
differ from a float64 interpolation in the last units.
"""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import DTypeError

QS = [0, 0.1, 0.25, 1 / 3, 0.5, 0.77, 0.9, 0.999, 1]


def _times(seed, n=1001):
    rng = np.random.default_rng(seed)
    td = pd.Series(pd.to_timedelta(rng.integers(-2**62, 2**62, n), unit="ns"))
    td[::7] = pd.NaT
    ts = pd.Series(pd.to_datetime(rng.integers(0, 2**60, n), unit="ns"))
    ts[::5] = pd.NaT
    return {
        "duration[ns]": td,
        "duration[s]": td.astype("timedelta64[s]"),
        "timestamp[ns]": ts,
        "timestamp[us]": ts.astype("datetime64[us]"),
        "timestamp zoned": ts.dt.tz_localize("UTC").dt.tz_convert("Europe/Paris"),
        "hours": pd.Series(pd.to_timedelta([1, 2, 3, 10, None], unit="h")),
    }


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("kind", list(_times(0)))
def test_series_quantile_of_times(seed, kind, threads):
    s = _times(seed)[kind]
    z = zb.Series(s)
    for q in QS:
        want, got = s.quantile(q), z.quantile(q)
        assert got == want and type(got) is type(want), (q, got, want)
    pd.testing.assert_series_equal(z.quantile(QS).to_pandas(), s.quantile(QS))


def test_quantile_of_no_times():
    s = pd.Series(pd.to_timedelta([None, None]))
    assert zb.Series(s).quantile(0.5) is pd.NaT and s.quantile(0.5) is pd.NaT
    e = pd.Series(pd.to_datetime([], unit="ns"))
    pd.testing.assert_series_equal(zb.Series(e).quantile([0.5]).to_pandas(), e.quantile([0.5]))


def test_frame_quantile_with_times():
    t = _times(3)
    df = pd.DataFrame({"d": t["duration[ns]"][:50], "x": np.arange(50.0),
                       "t": t["timestamp zoned"][:50]})
    z = zb.from_pandas(df)
    pd.testing.assert_frame_equal(z.quantile([0.2, 0.5]).to_pandas(), df.quantile([0.2, 0.5]))
    pd.testing.assert_series_equal(z[["d"]].quantile(0.3).to_pandas(), df[["d"]].quantile(0.3))
    pd.testing.assert_series_equal(z.quantile(0.3, numeric_only=True).to_pandas(),
                                   df.quantile(0.3, numeric_only=True))
    # pandas makes an object Series of a Timedelta beside floats: no zambezi dtype
    with pytest.raises(DTypeError, match="no common dtype"):
        z.quantile(0.3)


@pytest.mark.parametrize("lo,hi", [(-2**62, 2**62), (0, 2**60), (2**53 - 50, 2**53 + 50),
                                   (-10, 10)])
def test_int64_quantile_past_2_52(lo, hi, threads):
    rng = np.random.default_rng(5)
    v = pd.Series(rng.integers(lo, hi, 2001))
    masked = v.astype("Int64")
    masked[::9] = None
    for s in (v, masked):
        z = zb.Series(s)
        for q in np.linspace(0, 1, 41):
            assert z.quantile(q) == s.quantile(q), q
    u = pd.Series(rng.integers(0, 2**64 - 1, 1001, dtype=np.uint64))
    for q in np.linspace(0, 1, 41):
        assert zb.Series(u).quantile(q) == u.quantile(q), q


def test_from_pandas_takes_a_series():
    s = pd.Series([1, None, 3], index=["a", "b", "c"], name="x", dtype="Int64")
    z = zb.from_pandas(s)
    assert isinstance(z, zb.Series)
    pd.testing.assert_series_equal(z.to_pandas(), s)
    with pytest.raises(TypeError, match="DataFrame or Series, not list"):
        zb.from_pandas([1, 2])
