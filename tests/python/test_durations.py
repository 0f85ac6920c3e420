"""The duration dtype (pandas' timedelta64): conversions, arithmetic,
comparisons, reductions, sort, group-by and Arrow, against pandas on random
data with NaT."""

import datetime as dt

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import zambezi as zb
from zambezi.errors import DTypeError
from pandas_compare import assert_frame_like, assert_series_like


def rand_td(n, seed, unit="ns", nat=0.15, scale=10**15):
    rng = np.random.default_rng(seed)
    v = rng.integers(-scale, scale, n)
    v[rng.integers(0, n, 3)] = 0
    s = pd.Series(v.astype(f"timedelta64[{unit}]"))
    s[rng.random(n) < nat] = pd.NaT
    return s


def rand_ts(n, seed, unit="us", nat=0.15):
    rng = np.random.default_rng(seed)
    v = rng.integers(0, 2 * 10**15, n)  # us: 1970..2033
    s = pd.Series(v.astype("datetime64[us]")).astype(f"datetime64[{unit}]")
    s[rng.random(n) < nat] = pd.NaT
    return s


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_round_trips(unit):
    p = rand_td(200, 1, unit, scale=10**12)
    z = zb.Series(p)
    assert z.dtype == f"duration[{unit}]"
    assert_series_like(z, p)
    # Arrow: pyarrow duration in and out
    arr = pa.array(p)
    assert arr.type == pa.duration(unit)
    za = zb.Series(arr)
    assert za.dtype == f"duration[{unit}]"
    assert pa.array(za.to_pandas()).equals(arr)
    assert pa.table(zb.DataFrame({"d": p})).column("d").combine_chunks().equals(arr)
    # numpy
    np.testing.assert_array_equal(z.to_numpy(), p.to_numpy())
    # pickle
    import pickle

    assert_series_like(pickle.loads(pickle.dumps(z)), p)


def test_dtype_names_and_casts():
    p = rand_td(50, 2, "ns")
    z = zb.Series(p)
    assert zb.Series(p.to_numpy(), dtype="timedelta64[ns]").dtype == "duration[ns]"
    assert_series_like(z.astype("timedelta64[ms]"), p.astype("timedelta64[ms]"))
    assert_series_like(zb.Series([1, None, 3], dtype="timedelta64[s]"),
                       pd.Series([1, None, 3], dtype="timedelta64[s]"))
    assert_series_like(zb.Series([dt.timedelta(seconds=1), None], dtype="timedelta64[ms]"),
                       pd.Series([dt.timedelta(seconds=1), None], dtype="timedelta64[ms]"))
    ints = zb.Series([1, None, -3]).astype("duration[s]")
    assert_series_like(ints, pd.Series([1, None, -3], dtype="Int64").astype("timedelta64[s]"))
    got = z.astype("int64").to_pandas()
    assert got.dtype == "Int64"
    assert got.tolist() == [None if x is pd.NaT else x.value for x in p.tolist()] or \
        got.fillna(0).tolist() == p.astype("int64").where(p.notna(), 0).tolist()
    with pytest.raises(DTypeError):
        z.astype("timestamp[ns]")


def test_repr_like_pandas():
    p = pd.Series(pd.to_timedelta(["1 days 02:00:00", None, "-3h", "0.5s"]))
    z = zb.Series(p)
    assert repr(z).splitlines()[:4] == repr(p).splitlines()[:4]
    whole = pd.Series(pd.to_timedelta(["1 days", "-2 days", None]))
    assert repr(zb.Series(whole)).splitlines()[:3] == repr(whole).splitlines()[:3]


@pytest.mark.parametrize("units", [("us", "us"), ("us", "ns"), ("s", "ms")])
def test_timestamp_and_duration_arithmetic(units):
    n = 300
    ta, tb = rand_ts(n, 3, units[0]), rand_ts(n, 4, units[1])
    d = rand_td(n, 5, units[1], scale=10**14 // (1000 if units[1] != "ns" else 1))
    za, zbb, zd = zb.Series(ta), zb.Series(tb), zb.Series(d)
    assert_series_like(za - zbb, ta - tb)
    assert_series_like(za + zd, ta + d)
    assert_series_like(zd + za, d + ta)
    assert_series_like(za - zd, ta - d)
    assert_series_like((za - zbb) + zd, (ta - tb) + d)
    assert_series_like((za - zbb) - zd, (ta - tb) - d)


def test_duration_arithmetic():
    n = 400
    a, b = rand_td(n, 6), rand_td(n, 7)
    b[b.abs() < pd.Timedelta(1)] = pd.Timedelta(5)  # no division by zero
    za, zbb = zb.Series(a), zb.Series(b)
    assert_series_like(za + zbb, a + b)
    assert_series_like(za - zbb, a - b)
    assert_series_like(za % zbb, a % b)
    assert_series_like(za / zbb, a / b)
    assert_series_like(-za, -a)
    assert_series_like(abs(za), a.abs())
    rng = np.random.default_rng(8)
    k = pd.Series(rng.integers(-9, 9, n))
    k[k == 0] = 3
    assert_series_like(za * zb.Series(k), a * k)
    assert_series_like(za * 3, a * 3)
    assert_series_like(2 * za, 2 * a)
    assert_series_like(za * 1.5, a * 1.5)
    assert_series_like(za / 7, a / 7)
    assert_series_like(za // 7, a // 7)
    assert_series_like(za / zb.Series(k), a / k)
    assert_series_like(za // -3, a // -3)
    # floor division of two durations: int64 (pandas: float64 with NaN at NaT)
    fd = (za // zbb).to_pandas()
    exp = a // b
    assert fd.isna().tolist() == exp.isna().tolist()
    assert fd.dropna().astype("int64").tolist() == exp.dropna().astype("int64").tolist()


def test_scalars():
    a = rand_td(100, 9, "us", scale=10**11)
    ts = rand_ts(100, 10)
    za, zt = zb.Series(a), zb.Series(ts)
    one_h = pd.Timedelta(hours=1, microseconds=3)
    assert_series_like(za + one_h, a + one_h)
    assert_series_like(za - dt.timedelta(days=2), a - dt.timedelta(days=2))
    assert_series_like(zt + one_h, ts + one_h)
    assert_series_like(zt - np.timedelta64(90, "s"), ts - np.timedelta64(90, "s"))
    assert_series_like(za / pd.Timedelta(minutes=1), a / pd.Timedelta(minutes=1))
    for op in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
        assert_series_like(getattr(za, op)(one_h), getattr(a, op)(one_h), op)
    with pytest.raises(DTypeError):
        za + 1
    with pytest.raises(DTypeError):
        za * za


def test_comparisons_between_columns():
    a, b = rand_td(300, 11), rand_td(300, 12)
    b[::7] = a[::7]
    za, zbb = zb.Series(a), zb.Series(b)
    for op in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
        assert_series_like(getattr(za, op)(zbb), getattr(a, op)(b), op)
    mixed = zb.Series(b.astype("timedelta64[us]"))
    assert_series_like(za < mixed, a < b.astype("timedelta64[us]"))


@pytest.mark.parametrize("unit", ["us", "ns"])
def test_reductions(unit):
    p = rand_td(500, 13, unit, scale=10**13)
    z = zb.Series(p)
    for how in ("sum", "min", "max", "mean", "median", "std"):
        got, exp = getattr(z, how)(), getattr(p, how)()
        assert got == exp, how
    assert z.count() == p.count()
    empty = zb.Series(p[p.isna()])
    pe = p[p.isna()]
    assert pe.min() is pd.NaT and pe.mean() is pd.NaT  # pandas' answer
    assert empty.min() is pd.NaT and empty.mean() is pd.NaT
    assert p.sum(skipna=False) is pd.NaT and z.sum(skipna=False) is pd.NaT


def test_sort_unique_isin_fillna_shift():
    p = rand_td(300, 14, scale=10**4)
    z = zb.Series(p)
    # stable sorts: pandas' default quicksort leaves ties in no set order
    assert_series_like(z.sort_values(), p.sort_values(kind="stable"))
    assert_series_like(z.sort_values(ascending=False),
                       p.sort_values(ascending=False, kind="stable"))
    assert z.nunique() == p.nunique()
    vals = [p.dropna().iloc[0], p.dropna().iloc[3]]
    assert_series_like(z.isin(vals), p.isin(vals))
    fill = pd.Timedelta(seconds=1)
    assert_series_like(z.fillna(fill), p.fillna(fill))
    assert_series_like(z.shift(2), p.shift(2))
    assert_series_like(z.isna(), p.isna())


def test_diff_of_timestamps_and_cumsum():
    ts = rand_ts(200, 15)
    assert_series_like(zb.Series(ts).diff(), ts.diff())
    d = rand_td(200, 16, scale=10**12)
    assert_series_like(zb.Series(d).cumsum(), d.cumsum())
    assert_series_like(zb.Series(d).cummax(), d.cummax())


def test_groupby_on_and_of_durations():
    n = 600
    rng = np.random.default_rng(17)
    d = rand_td(n, 18, scale=10**12)
    key = pd.Series(rng.integers(0, 7, n).astype("timedelta64[h]")).astype("timedelta64[ns]")
    pdf = pd.DataFrame({"k": key, "g": rng.integers(0, 5, n), "d": d})
    z = zb.DataFrame(pdf)
    assert_frame_like(z.groupby("k").size().to_frame("n"),
                      pdf.groupby("k").size().to_frame("n"))
    for how in ("sum", "min", "max", "count", "mean"):
        got = getattr(z.groupby("g")["d"], how)()
        exp = getattr(pdf.groupby("g")["d"], how)()
        assert_series_like(got, exp, how)


def test_frame_round_trip_and_select_dtypes():
    pdf = pd.DataFrame({"d": rand_td(20, 19), "x": np.arange(20)})
    z = zb.DataFrame(pdf)
    assert_frame_like(z, pdf)
    assert list(z.select_dtypes("timedelta").columns) == ["d"]
    assert list(z.select_dtypes("number").columns) == list(pdf.select_dtypes("number").columns)
    assert_frame_like(zb.concat([z, z]), pd.concat([pdf, pdf]))


@pytest.mark.parametrize("vals", [["1 days 02:00:00", None, "-3h", "0.5s", "2 days"],
                                  ["1 days", None, "-2 days"], ["1ns", "2h"]])
def test_to_csv_like_pandas(vals):
    p = pd.DataFrame({"d": pd.to_timedelta(vals), "x": range(len(vals))})
    assert zb.DataFrame(p).to_csv(index=False) == p.to_csv(index=False)


def test_pandas_scalar_types_under_zb():
    # zb.Timedelta / zb.Timestamp / zb.NaT are pandas' scalars; a duration
    # reduction gives a Timedelta
    s = zb.Series(pd.to_timedelta([1, 2], unit="h"))
    assert isinstance(s.sum(), zb.Timedelta) and s.sum() == zb.Timedelta(hours=3)
    t = zb.Series(pd.to_datetime(["2024-01-01", "2024-01-03"]))
    # (a timestamp reduction gives datetime.datetime, which compares equal)
    assert t.max() == zb.Timestamp("2024-01-03")
    assert zb.NaT is pd.NaT
    with pytest.raises(AttributeError):
        zb.NoSuchName  # noqa: B018


@pytest.mark.parametrize("kind", ["timedelta64", "datetime64"])
def test_select_dtypes_of_time_kinds_without_a_unit(kind):
    """numpy's datetime64 / timedelta64 without a unit select every unit, as
    pandas; a multiple of a unit is no resolution (ValueError)."""
    base = pd.timedelta_range("1 day", periods=3) if kind == "timedelta64" else \
        pd.date_range("2020-01-01", periods=3)
    p = pd.DataFrame({u: base.as_unit(u) for u in ["s", "ms", "us", "ns"]})
    p["n"] = 1
    z = zb.from_pandas(p)
    for spec in (kind, getattr(np, kind), np.dtype(kind), f"{kind}[ms]", np.dtype(f"{kind}[us]")):
        assert list(z.select_dtypes(include=[spec]).columns) == \
            list(p.select_dtypes(include=[spec]).columns), spec
        assert list(z.select_dtypes(exclude=[spec]).columns) == \
            list(p.select_dtypes(exclude=[spec]).columns), spec
    for spec in (f"{kind}[10s]", np.dtype(f"{kind}[2ns]")):
        with pytest.raises(ValueError, match="resolution"):
            p.select_dtypes(include=[spec])
        with pytest.raises(ValueError, match="resolution"):
            z.select_dtypes(include=[spec])
