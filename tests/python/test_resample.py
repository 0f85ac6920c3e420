"""resample and groupby(Grouper(freq=...)) against pandas on random times
(unsorted, with NaT) and values with missing entries: fixed and calendar
rules, closed / label, origin / offset, on=, empty bins, every
aggregation, agg, Grouper alone and with another key, tz-aware times."""

import zlib

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import assert_frame_like, assert_series_like
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

TOL = {"rtol": 1e-12, "atol": 1e-12}
OPS = ["sum", "mean", "min", "max", "count", "first", "last", "median", "std", "var", "nunique",
       "prod"]


def rng_for(*parts):
    return np.random.default_rng(zlib.crc32("/".join(map(str, parts)).encode()))


def frame(n, rng, span_min, start="2024-02-27 22:17:31", shuffle=True, nat=True):
    t = pd.Timestamp(start) + pd.to_timedelta(np.sort(rng.integers(0, span_min, n)), unit="min")
    t = t.to_numpy().copy()
    if shuffle:
        t = t[rng.permutation(n)]
    if nat:
        t[rng.integers(0, n)] = np.datetime64("NaT")
    v = rng.standard_normal(n)
    v[rng.random(n) < 0.2] = np.nan
    return pd.DataFrame({"t": t, "v": v, "i": rng.integers(0, 10, n),
                         "k": rng.choice(["a", "b", "c"], n)})


def nofreq(exp):
    """pandas' result as it is: zambezi's resample index carries pandas'
    freq, and the comparison checks it."""
    return exp


def check(pfun, p, z, what, series=False):
    exp = nofreq(pfun(p))
    got = pfun(z)
    (assert_series_like if series else assert_frame_like)(got, exp, what, **TOL)


RULES = ["s", "17min", "h", "5h", "D", "3D", "W", "W-MON", "MS", "ME", "2MS", "QS", "QE",
         "QE-NOV", "YS", "YE"]


@pytest.mark.parametrize("rule", RULES)
def test_series_resample_rules_vs_pandas(rule):
    rng = rng_for("series", rule)
    span = {"s": 30, "17min": 3000}.get(rule, 200 * 24 * 60 if rule[-1] not in "SE" or
                                        rule.startswith(("W", "2")) else 900 * 24 * 60)
    n = 40
    t = pd.Timestamp("2024-01-30 13:17") + pd.to_timedelta(
        np.sort(rng.integers(0, span, n)), unit="min")
    p = pd.Series(rng.standard_normal(n), index=pd.DatetimeIndex(t, name="when"), name="v")
    p[rng.random(n) < 0.2] = np.nan
    z = zb.Series(p)
    for closed in (None, "left", "right"):
        for label in (None, "right"):
            r_p, r_z = p.resample(rule, closed=closed, label=label), \
                z.resample(rule, closed=closed, label=label)
            for op in ("sum", "count", "max", "first"):
                assert_series_like(getattr(r_z, op)(), nofreq(getattr(r_p, op)()),
                                   f"{rule} {closed} {label} {op}", **TOL)
            assert_series_like(r_z.size(), nofreq(r_p.size()), f"{rule} size")


@pytest.mark.parametrize("rule", ["h", "7h", "D", "W", "MS"])
def test_frame_resample_on_every_aggregation(rule):
    rng = rng_for("frame", rule)
    p = frame(60, rng, 20 * 24 * 60)
    z = zb.DataFrame(p)
    for op in OPS:
        check(lambda d: getattr(d.resample(rule, on="t")[["v", "i"]], op)(), p, z,
              f"on={rule} {op}")
    check(lambda d: d.resample(rule, on="t").size(), p, z, f"size {rule}", series=True)
    check(lambda d: d.resample(rule, on="t")["v"].ohlc(), p, z, f"ohlc {rule}")
    check(lambda d: d.resample(rule, on="t").agg({"v": ["sum", "mean"], "i": "count"}), p, z,
          f"agg dict {rule}")
    check(lambda d: d.resample(rule, on="t")[["v", "i"]].agg(["sum", "max"]), p, z,
          f"agg list {rule}")
    # a DatetimeIndex instead of on=
    pi, zi = p.set_index("t")[["v", "i"]], zb.DataFrame(p.set_index("t")[["v", "i"]])
    check(lambda d: d.resample(rule).mean(), pi, zi, f"index {rule}")


def test_resample_origin_offset():
    rng = rng_for("origin")
    p = frame(50, rng, 3 * 24 * 60)
    z = zb.DataFrame(p)
    for origin in ("start_day", "start", "epoch", "end", "end_day",
                   pd.Timestamp("2024-01-01 00:07"), "2024-02-29 03:04:05"):
        for offset in (None, "13min", "-7min", pd.Timedelta("2h")):
            try:
                exp = nofreq(p.resample("25min", on="t", origin=origin,
                                        offset=offset)[["v"]].sum())
            except ValueError:  # pandas: 'Values falls before first bin'
                with pytest.raises(InvalidValueError, match="outside the bins"):
                    z.resample("25min", on="t", origin=origin, offset=offset)
                continue
            got = z.resample("25min", on="t", origin=origin, offset=offset)[["v"]].sum()
            assert_frame_like(got, exp, f"origin={origin} offset={offset}", **TOL)


def test_groupby_grouper_vs_pandas():
    rng = rng_for("grouper")
    p = frame(70, rng, 10 * 24 * 60)
    z = zb.DataFrame(p)
    for rule in ("6h", "D", "W"):
        check(lambda d: d.groupby(pd.Grouper(key="t", freq=rule))[["v", "i"]].sum(), p, z,
              f"Grouper {rule}")
        got = z.groupby(zb.Grouper(key="t", freq=rule))[["v", "i"]].mean()
        assert_frame_like(got, nofreq(p.groupby(pd.Grouper(key="t", freq=rule))[["v", "i"]]
                                      .mean()), f"zb.Grouper {rule}", **TOL)
        check(lambda d: d.groupby(["k", pd.Grouper(key="t", freq=rule)])[["v", "i"]].sum(), p,
              z, f"k + Grouper {rule}")
        check(lambda d: d.groupby([pd.Grouper(key="t", freq=rule), "k"])["v"].mean(), p, z,
              f"Grouper + k {rule}", series=True)
    s = p.set_index("t")["v"]
    check(lambda d: d.groupby(pd.Grouper(freq="D")).max(), s, zb.Series(s), "Series Grouper",
          series=True)


def test_resample_tz_aware():
    rng = rng_for("tz")
    p = frame(50, rng, 40 * 24 * 60)
    for zone in ("UTC", "Africa/Maputo", "Asia/Kolkata"):
        q = p.assign(t=pd.to_datetime(p.t).dt.tz_localize("UTC").dt.tz_convert(zone))
        zq = zb.DataFrame(q)
        for rule in ("h", "D", "W", "MS", "ME"):
            check(lambda d: d.resample(rule, on="t")[["v"]].mean(), q, zq, f"{zone} {rule}")


@pytest.mark.parametrize("zone", ["Europe/Berlin", "America/New_York", "Australia/Sydney"])
def test_resample_across_dst(zone):
    # spring-forward and fall-back days are 23 and 25 hours: day, week and
    # month bins start at local midnights (pandas 3), hour bins stay exact
    rng = rng_for("dst", zone)
    t = pd.to_datetime("2024-03-24") + pd.to_timedelta(
        np.sort(rng.integers(0, 230 * 24 * 60, 400)), unit="min")
    t = t.tz_localize("UTC").tz_convert(zone)
    p = pd.DataFrame({"t": t, "v": rng.normal(size=400)})
    p.loc[rng.integers(0, 400, 20), "v"] = np.nan
    zp = zb.DataFrame(p)
    for rule in ("D", "2D", "h", "W", "MS", "ME"):
        for closed in (None, "right"):
            check(lambda d: d.resample(rule, on="t", closed=closed)[["v"]].agg(
                ["sum", "mean", "count", "first", "max"]), p, zp, f"{zone} {rule} {closed}")


def test_resample_int_units_and_edges():
    # second-resolution times; a single row; rows exactly on edges
    t = pd.to_datetime(["2024-03-01 00:00", "2024-03-01 01:00", "2024-03-01 03:00",
                        "2024-03-31 00:00"]).astype("datetime64[s]")
    p = pd.Series([1, 2, 3, 4], index=t)
    z = zb.Series(p)
    for rule, closed in (("h", "left"), ("h", "right"), ("MS", "right"), ("ME", None),
                         ("D", "right")):
        for op in ("sum", "min", "count"):
            assert_series_like(getattr(z.resample(rule, closed=closed), op)(),
                               nofreq(getattr(p.resample(rule, closed=closed), op)()),
                               f"{rule} {op}")
    one = pd.Series([5.0], index=pd.to_datetime(["2024-05-05 12:00"]))
    assert_series_like(zb.Series(one).resample("ME").sum(), nofreq(one.resample("ME").sum()),
                       "one")


def test_resample_errors():
    s = zb.Series([1.0, 2.0], index=pd.to_datetime(["2024-01-01", "2024-01-02"]))
    with pytest.raises(InvalidValueError, match="pandas 3 spelling"):
        s.resample("H")
    with pytest.raises(UnsupportedError, match="not supported"):
        s.resample("BME")
    with pytest.raises(InvalidValueError, match="closed must be"):
        s.resample("h", closed="middle")
    with pytest.raises(DTypeError, match="datetimes"):
        zb.Series([1.0, 2.0]).resample("h")
    with pytest.raises(InvalidValueError, match="not a column"):
        zb.DataFrame({"a": [1]}).resample("h", on="t")
    with pytest.raises(InvalidValueError, match="origin must be"):
        s.resample("h", origin="yesterday")


def test_resample_asfreq_vs_pandas():
    t = pd.to_datetime(["2024-01-01 00:00", "2024-01-01 00:30", "2024-01-01 02:00",
                        "2024-01-01 05:15", "2024-01-01 01:00"])
    p = pd.DataFrame({"v": [1.0, None, 3.0, 4.0, 5.0], "i": [1, 2, 3, 4, 5]}, index=t)
    z = zb.DataFrame(p)
    for rule in ("h", "30min", "15min"):
        for closed in (None, "right"):
            check(lambda d: d.resample(rule, closed=closed).asfreq(), p, z, f"asfreq {rule}")
            check(lambda d: d.resample(rule, closed=closed).asfreq(fill_value=0), p, z,
                  f"asfreq fill {rule}")
            check(lambda d: d["i"].resample(rule, closed=closed).asfreq(), p, z,
                  f"asfreq i {rule}", series=True)
    with pytest.raises(InvalidValueError, match="on="):
        zb.DataFrame(p.reset_index(names="t")).resample("h", on="t").asfreq()
    dup = zb.Series([1.0, 2.0], index=pd.to_datetime(["2024-01-01", "2024-01-01"]))
    with pytest.raises(InvalidValueError, match="duplicate"):
        dup.resample("h").asfreq()


GB_OPS = ["sum", "mean", "min", "max", "count", "first", "last", "median", "std"]


@pytest.mark.parametrize("rule", ["h", "15min", "D", "W", "MS"])
def test_groupby_resample_vs_pandas(rule):
    # each group's bins run from its own first to its own last (empty bins
    # inside included); unsorted times, NaT and missing values (a key whose
    # times are all NaT makes pandas itself fail, so none here)
    rng = rng_for("gbr", rule)
    n = 400
    t = pd.Timestamp("2024-03-28 05:00") + pd.to_timedelta(
        rng.integers(0, 9 * 24 * 60, n), unit="min")
    p = pd.DataFrame({"k": rng.choice(["a", "b", "c", "d", "e"], n), "t": t,
                      "v": rng.normal(size=n), "w": rng.integers(0, 9, n)})
    p.loc[rng.integers(0, n, 15), "v"] = np.nan
    p.loc[rng.integers(0, n, 5), "t"] = pd.NaT
    zp = zb.DataFrame(p)
    for op in GB_OPS:
        check(lambda d: getattr(d.groupby("k").resample(rule, on="t")["v"], op)(), p, zp,
              f"{rule} {op}", series=True)
    check(lambda d: d.groupby("k").resample(rule, on="t")[["v", "w"]].sum(), p, zp,
          f"{rule} frame")
    check(lambda d: d.groupby("k").resample(rule, on="t")["v"].ohlc(), p, zp, f"{rule} ohlc")
    check(lambda d: d.groupby("k").resample(rule, on="t").agg({"v": "mean", "w": "max"}), p, zp,
          f"{rule} agg")


def test_groupby_resample_index_zone_and_errors():
    rng = rng_for("gbr-tz")
    n = 200
    t = pd.date_range("2024-10-24", periods=n, freq="47min", tz="America/New_York")
    p = pd.Series(rng.normal(size=n), index=t[rng.permutation(n)], name="v")
    keys = pd.Series(rng.integers(0, 4, n), index=p.index, name="k")
    z, zk = zb.Series(p), zb.Series(keys)
    for rule in ("D", "h", "W"):
        check(lambda s: s.groupby(zk if isinstance(s, zb.Series) else keys).resample(rule)
              .mean(), p, z, f"series {rule}", series=True)
    # grids that depend on each group's first time, across the fall-back
    for rule, kw in (("7h", {}), ("2D", {}), ("45min", {"origin": "start"}),
                     ("90min", {"offset": "20min"}), ("5h", {"origin": "end_day"})):
        check(lambda s: s.groupby(zk if isinstance(s, zb.Series) else keys).resample(rule, **kw)
              .sum(), p, z, f"series {rule} {kw}", series=True)


# (rule, resample keywords): grids of their own per group
OWN_GRIDS = [("7min", {}), ("17min", {"origin": "start"}), ("13min", {"origin": "end"}),
             ("11min", {"origin": "end_day"}), ("2D", {}), ("3D", {"origin": "start"}),
             ("h", {"offset": "10min"}), ("25min", {"offset": "-3min", "origin": "epoch"}),
             ("19min", {"origin": pd.Timestamp("2024-03-27 23:58:30")}),
             ("23min", {"origin": "2024-03-30 12:00"}),  # after most groups' first time
             ("7min", {"origin": "start", "closed": "right", "label": "right"}),
             ("31min", {"origin": "end", "label": "left"})]


@pytest.mark.parametrize("rule,kw", OWN_GRIDS)
def test_groupby_resample_own_grids_vs_pandas(rule, kw):
    # pandas lays each group's bins out from the group's own first (origin
    # "start_day" / "start") or last ("end" / "end_day") time: unsorted
    # times, NaT, missing values, a key of one row and a key seen once far
    # from the others
    rng = rng_for("own", rule, sorted(kw))
    n = 300
    t = pd.Timestamp("2024-03-28 05:00") + pd.to_timedelta(
        rng.integers(0, 3 * 24 * 60, n), unit="min")
    k = rng.choice(["a", "b", "c"], n)
    k[7], t = "lone", t.to_numpy().copy()
    t[rng.integers(0, n, 4)] = np.datetime64("NaT")
    t[7] = np.datetime64("2024-03-29T11:11:11")
    p = pd.DataFrame({"k": k, "t": t, "v": rng.normal(size=n), "w": rng.integers(0, 9, n)})
    p.loc[rng.integers(0, n, 15), "v"] = np.nan
    zp = zb.DataFrame(p)
    for op in ("sum", "mean", "count", "first", "max"):
        check(lambda d: getattr(d.groupby("k").resample(rule, on="t", **kw)["v"], op)(), p, zp,
              f"{rule} {kw} {op}", series=True)
    check(lambda d: d.groupby("k").resample(rule, on="t", **kw)[["v", "w"]].sum(), p, zp,
          f"{rule} {kw} frame")


@pytest.mark.parametrize("tz", ["Europe/Berlin", "Australia/Lord_Howe", "America/Sao_Paulo"])
def test_groupby_resample_own_grids_zones(tz):
    # DST changes inside the data (Berlin's fall-back, Lord Howe's 30-minute
    # one, a zone without DST now) with per-group grids; an index key
    rng = rng_for("own-tz", tz)
    n = 250
    t = pd.date_range("2024-10-25", periods=n, freq="29min", tz=tz)
    if tz == "Australia/Lord_Howe":
        t = pd.date_range("2024-04-05", periods=n, freq="29min", tz=tz)
    p = pd.DataFrame({"k": rng.integers(0, 3, n), "v": rng.normal(size=n)},
                     index=t[rng.permutation(n)])
    zp = zb.DataFrame(p)
    for rule, kw in (("7h", {}), ("2D", {}), ("50min", {"origin": "start"}),
                     ("3h", {"origin": "end"}), ("2h", {"offset": "15min"})):
        check(lambda d: d.groupby("k").resample(rule, **kw)["v"].sum(), p, zp,
              f"{tz} {rule} {kw}", series=True)


def sorted_frame(n, rng, span_s, unit="us", nat=True, tz=None):
    """Times in order (repeats, NaT rows anywhere), float values with NaN,
    ints, and long empty stretches (so that some bins are empty)."""
    gaps = rng.integers(0, 4, n) * (rng.random(n) < 0.9) + (rng.random(n) < 0.02) * span_s
    t = pd.Timestamp("2024-03-30 22:17:31") + pd.to_timedelta(np.cumsum(gaps), unit="s")
    t = pd.DatetimeIndex(t).as_unit(unit)
    if tz is not None:
        t = t.tz_localize("UTC").tz_convert(tz)
    t = pd.Series(t)
    if nat:
        t[rng.integers(0, n, 3)] = pd.NaT
    v = rng.standard_normal(n)
    v[rng.random(n) < 0.2] = np.nan
    return pd.DataFrame({"t": t, "v": v, "i": rng.integers(-5, 10, n)})


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
@pytest.mark.parametrize("rule", ["s", "7s", "1500ms", "17min", "h", "5h", "D", "3D"])
def test_resample_sorted_times_engine_bins_vs_pandas(rule, unit):
    # times in order take the engine's bins (time_range + time_bins, then
    # groupby_ids over every bin); NaT rows, repeated times, empty bins
    if rule == "1500ms" and unit == "s":
        pytest.skip("pandas refuses a rule finer than the times' unit")
    rng = rng_for("sorted", rule, unit)
    p = sorted_frame(300, rng, {"s": 5, "7s": 20, "1500ms": 5}.get(rule, 40000), unit)
    z = zb.DataFrame(p)
    assert z.resample(rule, on="t")._bins.ids is not None  # the engine's path
    for closed in (None, "right"):
        for label in (None, "right"):
            for op in OPS:
                check(lambda d: getattr(d.resample(rule, on="t", closed=closed, label=label)
                                        [["v", "i"]], op)(), p, z,
                      f"{rule} {unit} {closed} {label} {op}")
            check(lambda d: d.resample(rule, on="t", closed=closed, label=label).size(), p, z,
                  f"{rule} size", series=True)
    check(lambda d: d.resample(rule, on="t")["v"].ohlc(), p, z, f"ohlc {rule}")
    check(lambda d: d.resample(rule, on="t").agg({"v": ["sum", "mean"], "i": "max"}), p, z,
          f"agg {rule}")
    pi, zi = p.set_index("t"), zb.DataFrame(p.set_index("t"))
    check(lambda d: d.resample(rule)["i"].min(), pi, zi, f"index {rule}", series=True)


def test_resample_sorted_times_origin_offset_zone_vs_pandas():
    rng = rng_for("sorted origin")
    p = sorted_frame(200, rng, 3000, nat=False)
    z = zb.DataFrame(p)
    for origin in ("start_day", "start", "epoch", "end", "end_day",
                   pd.Timestamp("2024-03-30 00:07"), "2024-04-01 03:04:05"):
        for offset in (None, "13min", "-7min"):
            try:
                exp = nofreq(p.resample("25min", on="t", origin=origin,
                                        offset=offset)[["v", "i"]].sum())
            except ValueError:  # pandas: 'Values falls before first bin'
                with pytest.raises(InvalidValueError, match="outside the bins"):
                    z.resample("25min", on="t", origin=origin, offset=offset)
                continue
            got = z.resample("25min", on="t", origin=origin, offset=offset)[["v", "i"]].sum()
            assert_frame_like(got, exp, f"origin={origin} offset={offset}", **TOL)
    for zone in ("Asia/Kolkata", "America/New_York"):
        q = sorted_frame(200, rng_for("sorted", zone), 4000, tz=zone)
        zq = zb.DataFrame(q)
        assert zq.resample("h", on="t")._bins.ids is not None
        for rule in ("h", "45min", "D"):
            check(lambda d: d.resample(rule, on="t")[["v", "i"]].agg(["sum", "first", "max"]),
                  q, zq, f"{zone} {rule}")


def test_resample_sorted_and_unsorted_agree_with_pandas():
    # the same rows in time order (engine bins) and shuffled (numpy bins,
    # rows put in time order): first / last follow time order in both
    rng = rng_for("sorted vs unsorted")
    p = sorted_frame(500, rng, 2000, nat=True)
    shuffled = p.iloc[rng.permutation(len(p))]
    for q in (p, shuffled):
        z = zb.DataFrame(q)
        for op in ("first", "last", "sum", "nunique"):
            check(lambda d: getattr(d.resample("10min", on="t")[["v", "i"]], op)(), q, z,
                  f"{op}")
    one = pd.DataFrame({"t": pd.to_datetime(["2024-01-01 10:00"]), "v": [2.5]})
    check(lambda d: d.resample("h", on="t").sum(), one, zb.DataFrame(one), "one row")
    nat = pd.DataFrame({"t": pd.to_datetime([None, None]), "v": [1.0, 2.0]})
    assert len(zb.DataFrame(nat).resample("h", on="t").sum()) == 0


def test_resample_sorted_times_across_morsels_vs_pandas():
    # the engine's passes split the rows into morsels of 65536: runs of a
    # bin and NaT rows across their edges
    rng = rng_for("sorted morsels")
    p = sorted_frame(140_000, rng, 900, nat=True)
    z = zb.DataFrame(p)
    assert z.resample("7min", on="t")._bins.ids is not None
    for op in ("sum", "count", "first", "last", "max"):
        check(lambda d: getattr(d.resample("7min", on="t")[["v", "i"]], op)(), p, z, op)


def typed_frame(n, rng, span_s, unit="us", tz=None):
    """sorted_frame without NaT, with a value column of every dtype the
    bins' segmented reduction takes: nullable ints, uints, float32, bools,
    inf, and times."""
    p = sorted_frame(n, rng, span_s, unit, nat=False, tz=tz)
    p.loc[rng.random(n) < 0.05, "v"] = np.inf
    p["n"] = pd.array(rng.integers(-1000, 1000, n), dtype="Int64")
    p.loc[rng.random(n) < 0.3, "n"] = pd.NA
    p["u"] = rng.integers(0, 2**40, n).astype("uint64")
    p["f32"] = (rng.standard_normal(n) * 3).astype("float32")
    p["b"] = rng.random(n) < 0.3
    p["w"] = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 10**6, n), unit="s")
    return p


SEG_OPS = ["sum", "mean", "min", "max", "count", "first", "last"]


@pytest.mark.parametrize("rule,unit", [("h", "us"), ("7s", "s"), ("17min", "ns"), ("D", "ms"),
                                       ("1500ms", "ms")])
def test_resample_segments_vs_pandas(rule, unit):
    # times in order without NaT: each bin is a run of rows, reduced in
    # place (groupby_segments over the bins' offsets, no id per row)
    rng = rng_for("segments", rule, unit)
    p = typed_frame(400, rng, {"7s": 20, "1500ms": 5}.get(rule, 40000), unit)
    z = zb.DataFrame(p)
    r = z.resample(rule, on="t")
    assert r._bins.offsets is not None and r._bins._ids is None
    for closed in (None, "right"):
        for label in (None, "right"):
            for op in SEG_OPS:
                # (a float32 sum: pandas adds in float32, zambezi in float64
                # and rounds once, compared with a tolerance in
                # test_groupby_float32; a nullable int's min ... with empty
                # bins: float64 here, Int64 in pandas)
                pick = op in ("min", "max", "first", "last")
                cols = ["v", "i", "u", "b"] + (["f32"] if op != "sum" else []) + \
                    (["w"] if pick or op == "count" else ["n"])
                check(lambda d: getattr(d.resample(rule, on="t", closed=closed, label=label)
                                        [cols], op)(), p, z, f"{rule} {closed} {label} {op}")
            check(lambda d: d.resample(rule, on="t", closed=closed, label=label).size(), p, z,
                  f"{rule} size", series=True)
    pi, zi = p.set_index("t"), zb.DataFrame(p.set_index("t"))
    for op in SEG_OPS:
        check(lambda d: getattr(d.resample(rule)["v"], op)(), pi, zi, f"series {op}",
              series=True)
    # ops without a segmented kernel make the bins' ids when asked
    check(lambda d: d.resample(rule, on="t")[["v", "i"]].median(), p, z, f"{rule} median")
    check(lambda d: d.resample(rule, on="t")["v"].ohlc(), p, z, f"{rule} ohlc")


def test_resample_segments_large_bins_and_morsels():
    # bins of many rows (a task per bin range, cut at bin starts) and few
    # rows across the engine's morsels of 65536
    rng = rng_for("segments morsels")
    n = 200_000
    t = pd.Timestamp("2024-01-01") + pd.to_timedelta(np.cumsum(rng.integers(0, 3, n)), unit="s")
    v = rng.standard_normal(n) * 1e6
    v[rng.random(n) < 0.1] = np.nan
    p = pd.DataFrame({"v": v, "i": rng.integers(-9, 9, n)}, index=t)
    z = zb.DataFrame(p)
    for rule in ("5s", "h", "D", "30D"):
        assert z.resample(rule)._bins.offsets is not None
        for op in SEG_OPS:
            check(lambda d: getattr(d.resample(rule), op)(), p, z, f"{rule} {op}")


def test_groupby_segments_engine_vs_groupby_ids():
    """The engine's segmented reduction equals its group-by by ids over the
    same groups (types exactly, floats within rounding), and refuses bad
    offsets and the aggregations it lacks by name."""
    from zambezi import _convert, _core

    rng = rng_for("segments engine")
    n, G = 50_000, 700
    v = rng.standard_normal(n)
    v[rng.random(n) < 0.1] = np.nan
    p = pd.DataFrame({"f": v, "i": pd.array(rng.integers(-5, 5, n), dtype="Int64"),
                      "u": rng.integers(0, 9, n).astype("uint16"), "b": rng.random(n) < 0.5,
                      "f32": v.astype("float32"),
                      "t": pd.to_datetime(rng.integers(0, 10**6, n), unit="s")})
    p.loc[rng.random(n) < 0.1, "i"] = pd.NA
    t = zb.DataFrame(p)._table
    off = np.sort(rng.integers(0, n, G + 1))
    off[0], off[-1] = 3, n - 5   # rows before and after every group
    off[5] = off[6]              # an empty group
    ids = np.full(n, -1, dtype=np.int64)
    ids[off[0]:off[-1]] = np.repeat(np.arange(G), np.diff(off))
    ocol = _core.column_from_buffer(off.astype(np.int64))
    icol = _core.column_from_buffer(ids, mask=ids < 0)
    for op in SEG_OPS + ["size"]:
        for ci, name in enumerate(t.names):
            if op in ("sum", "mean") and name == "t":
                continue
            spec = [(op, ci, -1, 1, 0.5, False, "x")]
            a = _core.groupby_segments(t, ocol, spec).column(0)
            b = _core.groupby_ids(t, icol, G, spec).column(0)
            assert a.dtype == b.dtype, (op, name)
            pa, pb = _convert.column_to_pandas(a), _convert.column_to_pandas(b)
            assert pa.isna().equals(pb.isna()), (op, name)
            if pa.dtype.kind == "f":
                np.testing.assert_allclose(pa.to_numpy(na_value=np.nan),
                                           pb.to_numpy(na_value=np.nan), rtol=1e-13,
                                           atol=1e-13, err_msg=f"{op} {name}")
            else:
                assert pa.equals(pb), (op, name)
    spec = [("sum", 0, -1, 1, 0.5, False, "x")]
    for bad in ([0, 5, 3, n], [0, n + 1], [-1, 4]):
        with pytest.raises(IndexError, match="must not decrease"):
            _core.groupby_segments(t, _core.column_from_buffer(np.array(bad, np.int64)), spec)
    with pytest.raises(NotImplementedError, match="median of column 'f'"):
        _core.groupby_segments(t, ocol, [("median", 0, -1, 1, 0.5, False, "x")])
    s = zb.DataFrame({"s": ["a"] * n})._table
    with pytest.raises(NotImplementedError, match="first of column 's'"):
        _core.groupby_segments(s, ocol, [("first", 0, -1, 1, 0.5, False, "x")])
