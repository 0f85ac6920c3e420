"""One datetime or timedelta next to a timestamp or duration column, against
pandas: a scalar of a finer unit than the column's (pandas compares
exactly and keeps the finer unit; the engine used to round the scalar to
the column's unit), a pd.Timestamp's nanoseconds next to an ns column,
numpy's datetime64 of days, and text compared with times (pandas reads
it as a time; text that is no time is equal to no row)."""

import datetime as dt
import itertools

import numpy as np
import pandas as pd
import pytest

import zambezi as zb

UNITS = ["s", "ms", "us", "ns"]
TIMES = pd.to_datetime(["2024-01-06", "2024-01-06 00:00:00.5", None,
                        "2024-01-06 00:00:00.000000001", "2023-12-31 23:59:59"],
                       format="ISO8601")
SPANS = pd.to_timedelta(["1s", "1.5s", None, "1ns", "-2s"])

TIME_SCALARS = [
    pd.Timestamp("2024-01-06 00:00:00.5"),
    pd.Timestamp("2024-01-06 00:00:00.000000001"),
    pd.Timestamp("2024-01-06"),
    pd.Timestamp("2024-01-06").as_unit("s"),
    dt.datetime(2024, 1, 6, 0, 0, 0, 500000),
    np.datetime64("2024-01-06T00:00:00.000000001", "ns"),
    np.datetime64("2024-01-06T00:00:00.500", "ms"),
    np.datetime64("2024-01-06", "D"),
    "2024-01-06",
    "2024-01-06 00:00:00.5",
    "foo",
]
SPAN_SCALARS = [
    pd.Timedelta("1.5s"),
    pd.Timedelta("1ns"),
    pd.Timedelta("1s").as_unit("s"),
    dt.timedelta(seconds=1, microseconds=1),
    np.timedelta64(1500, "ms"),
    np.timedelta64(1, "ns"),
    np.timedelta64(1, "h"),
]
COMPARE = ["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"]


def outcome(fn):
    """(dtype, values) of a Series result, or the exception's kind."""
    try:
        r = fn()
    except TypeError:
        return "TypeError"
    if hasattr(r, "to_pandas"):
        r = r.to_pandas()
    return str(r.dtype), [None if pd.isna(v) else v for v in r.tolist()]


def check(p, op, x):
    z = zb.Series(p)
    want = outcome(lambda: getattr(p, op)(x))
    got = outcome(lambda: getattr(z, op)(x))
    assert got == want, f"{p.dtype} {op} {x!r}"


@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("op", COMPARE + ["__sub__", "__rsub__"])
def test_timestamp_column_and_one_time(unit, op):
    p = pd.Series(TIMES.as_unit(unit))
    for x in TIME_SCALARS:
        if isinstance(x, str) and op in ("__sub__", "__rsub__"):
            continue   # pandas subtracts no text
        check(p, op, x)


@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("op", ["__add__", "__radd__", "__sub__"])
def test_timestamp_column_and_one_span(unit, op):
    p = pd.Series(TIMES.as_unit(unit))
    for x in SPAN_SCALARS:
        check(p, op, x)


@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("op", COMPARE + ["__add__", "__sub__", "__rsub__"])
def test_duration_column_and_one_span(unit, op):
    p = pd.Series(SPANS.as_unit(unit))
    for x in SPAN_SCALARS + (["1.5s", "90min", "foo"] if op in COMPARE else []):
        check(p, op, x)


def test_nanoseconds_of_a_timestamp_next_to_an_ns_column():
    p = pd.Series(TIMES.as_unit("ns"))
    z = zb.Series(p)
    t = p[3]   # a value read back from the column keeps its nanosecond
    assert t.nanosecond == 1
    assert (z == t).to_pandas().tolist() == (p == t).tolist() == [False, False, False, True,
                                                                   False]
    assert (z - t).to_pandas().tolist() == (p - t).tolist()
    assert z.fillna(t).to_pandas().tolist() == p.fillna(t).tolist()


@pytest.mark.parametrize("tz", ["UTC", "Europe/Paris"])
def test_text_next_to_a_zoned_column(tz):
    p = pd.Series(TIMES.as_unit("us").tz_localize(tz))
    for op, x in itertools.product(COMPARE, ["2024-01-06", "2024-01-06 01:00", "bar"]):
        check(p, op, x)


def test_ordering_against_text_that_is_no_time_raises():
    z = zb.Series(pd.Series(TIMES))
    with pytest.raises(TypeError, match="Invalid comparison"):
        z < "foo"
    with pytest.raises(TypeError, match="Invalid comparison"):
        zb.Series(pd.Series(SPANS)) >= "bar"


@pytest.mark.parametrize("unit", UNITS)
def test_between_text_and_finer_bounds(unit):
    p = pd.Series(TIMES.as_unit(unit))
    z = zb.Series(p)
    for lo, hi in [("2024-01-06", "2024-01-06 00:00:00.5"),
                   (pd.Timestamp("2024-01-06 00:00:00.000000001"), pd.Timestamp("2024-01-07")),
                   (np.datetime64("2024-01-06", "D"), "2024-01-06 00:00:00.25")]:
        for inclusive in ("both", "neither", "left", "right"):
            assert z.between(lo, hi, inclusive).to_pandas().tolist() == \
                p.between(lo, hi, inclusive).tolist(), (lo, hi, inclusive)
    with pytest.raises(TypeError):
        z.between("foo", "2024-01-07")


def test_time_arithmetic_past_int64_raises_as_pandas():
    """pandas raises where ns times leave int64 (or land on its NaT value);
    the int64 kernels underneath wrap."""
    stamp, span = pd.Timestamp("1700-01-31"), pd.Timedelta("20000 Days")
    p = pd.Series(pd.date_range("1949-09-30", freq="100YE", periods=4, unit="ns"))
    z = zb.Series(p)
    for fn in (lambda s: s - stamp, lambda s: stamp - s, lambda s: s + span,
               lambda s: span + s, lambda s: s - s.iloc[::-1].reset_index(drop=True)):
        with pytest.raises(OverflowError):
            fn(p)
        with pytest.raises(OverflowError, match="Overflow in int64"):
            fn(z)
    p.iloc[-1] = pd.NaT   # the missing row aside, everything fits
    z = zb.Series(p)
    assert (z + span).to_pandas().tolist() == (p + span).tolist()
    p.iloc[1:] = pd.NaT
    z = zb.Series(p)
    assert (z - stamp).to_pandas().tolist() == (p - stamp).tolist()


def test_durations_times_integers_past_int64_raise():
    p = pd.Series(pd.to_timedelta([10**18, 2, None], unit="ns"))
    z = zb.Series(p)
    for k in (9, -9, np.int64(9)):   # fits
        assert (z * k).to_pandas().tolist() == (p * k).tolist()
    for k in (100, -100):
        with pytest.raises((OverflowError, ValueError)):
            p * k
        with pytest.raises(OverflowError):
            z * k
    with pytest.raises(OverflowError):
        z + z * 9
    # the NaT value of pandas is no result either
    low = pd.Series(pd.to_timedelta([-(2**62)], unit="ns"))
    with pytest.raises((OverflowError, ValueError)):
        low * 2
    with pytest.raises(OverflowError):
        zb.Series(low) * 2


@pytest.mark.parametrize("op", ["__mul__", "__rmul__", "__truediv__", "__floordiv__"])
def test_whole_float_factors_of_durations_are_exact(op):
    p = pd.Series(pd.to_timedelta([2**53 + 1, -(2**62) + 1, None], unit="ns"))
    for k in (1.0, np.float64(1.0), -1.0):
        assert getattr(zb.Series(p), op)(k).to_pandas().tolist() == getattr(p, op)(k).tolist()


def test_arithmetic_with_an_object_array_is_refused():
    """pandas gives an object column there; zambezi has no object dtype."""
    obj = np.array([1, 2], dtype=object)
    assert (pd.Series([1, 2]) * obj).dtype == object
    with pytest.raises(TypeError, match="dtype object"):
        zb.Series([1, 2]) * obj
    spans = pd.Series(pd.to_timedelta(["1s", "2s"]))
    assert (spans / obj).dtype == object
    with pytest.raises(TypeError, match="dtype object"):
        zb.Series(spans) / obj
    # comparisons and text keep their dtype in pandas too
    assert (zb.Series([1, 2]) == obj).to_pandas().tolist() == [True, True]
    words = np.array(["x", "y"], dtype=object)
    assert (zb.Series(["a", "b"]) + words).to_pandas().tolist() == \
        (pd.Series(["a", "b"]) + words).tolist()


NATS = [pd.NaT, np.datetime64("NaT", "ns"), np.timedelta64("NaT", "ns"), np.datetime64("NaT"),
        np.timedelta64("NaT", "s")]
NAT_OPS = ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__truediv__",
           "__rtruediv__", "__floordiv__", "__eq__", "__ne__", "__lt__", "__ge__"]


@pytest.mark.parametrize("kind", ["naive", "zoned", "span"])
@pytest.mark.parametrize("op", NAT_OPS)
def test_nat_of_either_kind_next_to_times(kind, op):
    """A NaT is a datetime or a timedelta (numpy's) or either (pd.NaT): the
    result's dtype, or pandas' TypeError, follows from it, not from the
    column's kind."""
    times = pd.to_datetime(["2024-01-01", None])
    p = {"naive": pd.Series(times), "zoned": pd.Series(times.tz_localize("Asia/Tokyo")),
         "span": pd.Series(pd.to_timedelta(["1s", None]))}[kind]
    for nat in NATS:
        want = outcome(lambda: getattr(p, op)(nat))
        got = outcome(lambda: getattr(zb.Series(p), op)(nat))
        assert got == want, (kind, op, nat)


def test_replace_and_where_with_durations():
    p = pd.Series(pd.timedelta_range(0, periods=5))
    z = zb.Series(p)
    for fn in (lambda s: s.replace({p[1]: p[3]}), lambda s: s.replace(p[1], p[3]),
               lambda s: s.replace(np.timedelta64(1, "D"), pd.Timedelta(0)),
               lambda s: s.replace([p[0], p[4]], dt.timedelta(hours=1)),
               lambda s: s.where(s > pd.Timedelta("2D"), pd.Timedelta("1h")),
               lambda s: s.mask(s > pd.Timedelta("2D"), np.timedelta64(5, "s"))):
        assert fn(z).to_pandas().tolist() == fn(p).tolist()


def test_values_pandas_keeps_apart_from_durations_and_zones():
    """pandas gives an object column (a number or bool among durations) or
    raises (a zoned time among naive ones): zambezi raises either way,
    where it converted the value (1 became 1 us; the zone was dropped)."""
    spans = zb.Series(pd.Series(pd.to_timedelta(["1s", None])))
    for fn in (lambda s: s.fillna(1), lambda s: s.fillna(True),
               lambda s: s.where(s.isna(), 5)):
        with pytest.raises(TypeError):
            fn(spans)
    naive = zb.Series(pd.Series([pd.Timestamp("2013-01-01"), pd.NaT]))
    zoned = pd.Timestamp("2013-01-01", tz="US/Eastern")
    for fn in (lambda s: s.where([True, False], zoned), lambda s: s.fillna(zoned),
               lambda s: s.clip(zoned), lambda s: s.between(zoned, zoned)):
        with pytest.raises(TypeError, match="timezone"):
            fn(naive)


WHERE_VALUES = [np.timedelta64("NaT", "ns"), np.datetime64("NaT", "ns"), pd.NaT, None, np.nan,
                pd.Timestamp("2024-01-05 00:00:00.123").as_unit("ms"),
                pd.Timestamp("2024-01-05").as_unit("ms"), pd.Timedelta("1.5s"),
                np.timedelta64(5, "ms")]


@pytest.mark.parametrize("kind", ["naive", "zoned", "span"])
def test_where_mask_and_setitem_with_times_of_other_units_and_kinds(kind):
    """where / mask give the finer unit (pandas casts the column); setting a
    value the column's unit cannot hold exactly raises, as pandas 3; a NaT
    of the other kind, or a naive numpy time by a zoned column, is refused
    (pandas gives an object column), where it became a missing value."""
    base = pd.date_range("2024-01-01", periods=3, unit="s")
    p = {"naive": pd.Series(base), "zoned": pd.Series(base.tz_localize("UTC")),
         "span": pd.Series(base - pd.Timestamp("2023-12-31").as_unit("s"))}[kind]
    for val in WHERE_VALUES:
        if kind == "zoned" and isinstance(val, pd.Timestamp):
            val = val.tz_localize("UTC")
        for fn in (lambda s: s.where([False, True, True], val),
                   lambda s: s.mask([False, True, True], val)):
            want, got = outcome(lambda: fn(p)), outcome(lambda: fn(zb.Series(p)))
            assert got == want or (want[0] == "object" and got == "TypeError"), (kind, val)

        def setitem(s):
            s = s.copy()
            s[1] = val
            return s
        want, got = outcome(lambda: setitem(p)), outcome(lambda: setitem(zb.Series(p)))
        assert got == want or (want[0] == "object" and got == "TypeError"), (kind, val)


def test_fill_values_of_the_other_time_kind_and_searchsorted_of_one_time():
    """A timedelta filled into times (reindex's fill_value, fillna) became a
    date near 1970 (pandas: an object column; refused); searchsorted of a
    pd.Timestamp gave a 0-d array (pandas: a number)."""
    p = pd.Series([pd.NaT], dtype="datetime64[ns]")
    for fill in (pd.Timedelta(0), np.timedelta64(0, "s")):
        with pytest.raises(TypeError, match="timedelta value"):
            zb.Series(p).reindex([0, 1], fill_value=fill)
        with pytest.raises(TypeError, match="timedelta value"):
            zb.Series(p).fillna(fill)
    with pytest.raises(TypeError, match="datetime value"):
        zb.Series(pd.Series(pd.to_timedelta(["1s", None]))).fillna(pd.Timestamp(0))
    assert zb.Series(p).reindex([0, 1], fill_value=pd.Timestamp(0)).to_pandas().tolist() == \
        p.reindex([0, 1], fill_value=pd.Timestamp(0)).tolist()
    ts = pd.Series(pd.date_range("2024-01-01", periods=3))
    for v in (np.datetime64("2024-01-02"), pd.Timestamp("2024-01-02 12:00"), "2024-01-02"):
        got, want = zb.Series(ts).searchsorted(v), ts.searchsorted(v)
        assert np.ndim(got) == 0 and got == want, v
    spans = pd.Series(pd.to_timedelta(["1s", "2s"]))
    assert zb.Series(spans).searchsorted(pd.Timedelta("1.5s")) == \
        spans.searchsorted(pd.Timedelta("1.5s"))


def test_reindex_fill_value_fills_only_the_new_rows():
    """pandas fills the labels reindex adds; zambezi filled every missing
    value (fillna after the take)."""
    p = pd.Series([pd.NaT, pd.Timestamp("2024-01-01")], dtype="datetime64[ns]")
    assert zb.Series(p).reindex([0, 1, 2], fill_value=pd.Timestamp(0)).to_pandas().tolist() \
        == p.reindex([0, 1, 2], fill_value=pd.Timestamp(0)).tolist()
    q = pd.Series([1.0, np.nan], index=["a", "b"])
    got = zb.Series(q).reindex(["b", "c", "a"], fill_value=0).to_pandas()
    pd.testing.assert_series_equal(got, q.reindex(["b", "c", "a"], fill_value=0))
    f = pd.DataFrame({"x": [1.0, np.nan], "y": [np.nan, 2.0]}, index=["a", "b"])
    got = zb.from_pandas(f).reindex(["b", "z", "a"], fill_value=-1).to_pandas()
    pd.testing.assert_frame_equal(got, f.reindex(["b", "z", "a"], fill_value=-1))


@pytest.mark.parametrize("unit", ["s", "ms"])
def test_where_with_a_time_column_of_another_unit(unit):
    """pandas keeps the column's unit when it holds the other column's
    times exactly, else takes the finer one."""
    p = pd.Series(pd.date_range("2024-01-01", periods=3, unit=unit))
    whole = pd.Series(pd.date_range("2024-02-01", periods=3, unit="ms"))
    for o in (whole, whole + pd.Timedelta("1ms"), whole + pd.Timedelta("1ms").as_unit("ms"),
              pd.Series(pd.date_range("2024-02-01", periods=3, unit="s"))):
        want = p.where([True, False, True], o)
        got = zb.Series(p).where([True, False, True], zb.Series(o)).to_pandas()
        assert (str(got.dtype), got.tolist()) == (str(want.dtype), want.tolist()), o.dtype
