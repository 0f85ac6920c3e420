"""Times with a time zone as pandas has them: zambezi's own API against
pandas run side by side (to_numpy / values / np.asarray, comparisons with
None, numpy's ufuncs, fixed-offset zones kept), and a notebook of zoned
times printing the same bytes plain and under the accelerator, with the
zoned columns served by zambezi.
"""

import datetime

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from conftest import profiled_under_accelerator

ZONES = ["UTC", "US/Eastern", "+01:15", datetime.timezone(datetime.timedelta(hours=-3))]


def _pair(tz, n=4):
    p = pd.Series(pd.date_range("2024-03-09 20:00", periods=n, freq="7h", tz=tz), name="t")
    p.iloc[1] = pd.NaT
    return p, zb.from_pandas(p.to_frame())["t"]


@pytest.mark.filterwarnings("ignore:.*values returning an ndarray that drops")
@pytest.mark.parametrize("tz", ZONES)
def test_numpy_views_of_zoned_times(tz):
    p, z = _pair(tz)
    for got, want in [(z.to_numpy(), p.to_numpy()), (np.asarray(z), np.asarray(p))]:
        assert got.dtype == want.dtype == object
        assert [str(x) for x in got] == [str(x) for x in want]
    got, want = z.values, p.values
    assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True)
    pi = pd.DatetimeIndex(p.dropna())
    zi = zb.Index(pi)
    assert [str(x) for x in zi.to_numpy()] == [str(x) for x in pi.to_numpy()]
    assert np.array_equal(zi.values, pi.values)


@pytest.mark.parametrize("tz", [None, "UTC", "US/Eastern"])
@pytest.mark.parametrize("op", ["<", "<=", ">", ">="])
def test_ordering_times_against_none_raises_as_pandas(tz, op):
    p, z = _pair(tz)
    for obj in (p, z):
        with pytest.raises(TypeError, match="Invalid comparison"):
            eval(f"obj {op} None")
    d = zb.Series(pd.to_timedelta([1, 2], unit="D"))
    with pytest.raises(TypeError, match="Invalid comparison"):
        d < None
    assert (z == None).tolist() == (p == None).tolist()  # noqa: E711
    assert (z != None).tolist() == (p != None).tolist()  # noqa: E711
    assert (zb.Series([1.5, 2.0]) < None).tolist() == (pd.Series([1.5, 2.0]) < None).tolist()


@pytest.mark.parametrize("tz", [None, "UTC"])
def test_numpy_ufuncs_on_time_labels_or_zones_are_refused(tz):
    idx = zb.Index(pd.DatetimeIndex(["2017-04-05 06:07:08", "2017-04-06"], tz=tz))
    with pytest.raises(zb.errors.UnsupportedError):
        np.array([4, -1]) + idx
    with pytest.raises(zb.errors.UnsupportedError):
        np.add(pd.timedelta_range("0 days", periods=2).values, idx)
    # numbers still go through numpy, as pandas' Index does
    assert np.add(np.array([1, 2]), zb.Index([1, 2])).to_list() == [2, 4]
    if tz is not None:
        _, z = _pair(tz)
        with pytest.raises(zb.errors.UnsupportedError):
            np.maximum(z, z)


@pytest.mark.parametrize("tz", ZONES)
def test_a_zone_is_kept_through_an_index_operand_and_a_list(tz):
    pi = pd.DatetimeIndex(["2016-06-28 05:30", "2016-06-28 05:31"], tz=tz)
    pd_td = pd.Series(pd.to_timedelta([5, 6], unit="s"), index=pi)
    zf = zb.from_pandas(pd.DataFrame({"t": pd_td}))
    got = (zf["t"] + zf.index).to_pandas()
    want = pd_td + pi
    assert got.dtype == want.dtype
    assert got.tolist() == want.tolist()
    stamps = list(pi)
    assert zb.Series(stamps).to_pandas().dtype == pd.Series(stamps).dtype


@pytest.mark.parametrize("tz", [None, "UTC", "US/Eastern", "+05:00"])
def test_date_strings_on_a_zoned_or_unsorted_index_as_pandas(tz):
    idx = pd.DatetimeIndex(["2019-12-30", "2020-01-01", "2019-12-25",
                            "2020-01-02 23:59:59.999999999", "2019-12-19"], tz=tz)
    p = pd.Series([1, 2, 3, 4, 5], index=idx)
    z = zb.from_pandas(p.to_frame("v"))["v"]
    ps = p.sort_index()
    zs = zb.from_pandas(ps.to_frame("v"))["v"]
    cases = [(p, z, slice("2020-01-01", None)), (p, z, slice("2019-12-30", "2020-01-02", 2)),
             (p, z, slice("2020-01-01", "2020-01-02 23:59:59.999999999")),
             (p, z, slice("2019-12-24", "2019-12-31")), (p, z, slice(None, "2020-01-01")),
             (ps, zs, slice("2019-12-24", "2019-12-31")), (ps, zs, "2020-01-01"),
             (ps, zs, "2019-12")]
    for want_obj, got_obj, key in cases:
        for get in (lambda o: o.loc[key], lambda o: o[key]):
            try:
                want = get(want_obj).tolist()
            except KeyError:
                with pytest.raises(KeyError, match="non-existing keys"):
                    get(got_obj)
                continue
            assert get(got_obj).tolist() == want, key


def test_select_dtypes_kind_name_and_pandas_class_overlap():
    pdf = pd.DataFrame({"a": pd.date_range("2016-01-01", periods=2, tz="UTC"), "b": [1, 2],
                        "c": pd.Categorical(["x", "y"])})
    zdf = zb.from_pandas(pdf)
    for inc, exc in [("datetimetz", pd.DatetimeTZDtype), (pd.DatetimeTZDtype, "datetimetz"),
                     ("category", pd.CategoricalDtype)]:
        for obj in (pdf, zdf):
            with pytest.raises(ValueError, match="include and exclude overlap"):
                obj.select_dtypes(include=inc, exclude=exc)
    for inc, exc in [("datetimetz", "category"), ("int", np.signedinteger)]:
        assert list(zdf.select_dtypes(include=inc, exclude=exc).columns) == \
            list(pdf.select_dtypes(include=inc, exclude=exc).columns)


SCRIPT = r'''
import pandas as pd, numpy as np, datetime, zoneinfo
rng = np.random.default_rng(3)
n = 80
base = pd.Timestamp("2024-03-08", tz="UTC")
ts = base + pd.to_timedelta(np.sort(rng.integers(0, 5 * 86400, n)), unit="s")
df = pd.DataFrame({"ts": ts, "store": rng.choice(["a", "b", "c"], n),
                   "v": rng.normal(size=n).round(3), "k": rng.integers(0, 5, n)})
df.loc[[3, 17], "ts"] = pd.NaT
def show(label, x):
    print("##", label); print(x)
def t(label, f):
    try: show(label, f())
    except Exception as e: print("##", label, "RAISES", type(e).__name__, str(e)[:150])
ny = lambda: df.ts.dt.tz_convert("America/New_York")
t("dtypes", lambda: df.dtypes)
t("head", lambda: df.head())
t("repr ny", lambda: ny().head(8))
t("describe", lambda: df.describe())
t("describe ts", lambda: df.ts.describe())
t("min max", lambda: (df.ts.min(), df.ts.max(), ny().min()))
t("np min", lambda: (np.min(df.ts), np.max(ny())))
t("mean median", lambda: (df.ts.mean(), ny().median()))
t("hour", lambda: ny().dt.hour.value_counts().sort_index())
t("date", lambda: ny().dt.date.head())
t("dow", lambda: ny().dt.dayofweek.head())
t("day_name", lambda: ny().dt.day_name().head())
t("floor", lambda: ny().dt.floor("h").head())
t("round", lambda: df.ts.dt.round("15min").head())
t("normalize", lambda: ny().dt.normalize().head(10))
t("strftime", lambda: ny().dt.strftime("%Y-%m-%d %H:%M %Z").head())
t("tz attr", lambda: (df.ts.dt.tz, ny().dt.tz))
t("tz_localize None", lambda: ny().dt.tz_localize(None).head())
t("naive localize", lambda: ny().dt.tz_localize(None).dt.tz_localize(
    "Europe/Paris", ambiguous="NaT", nonexistent="NaT").head())
t("cmp ts", lambda: (df.ts > pd.Timestamp("2024-03-10 12:00", tz="UTC")).sum())
t("cmp other zone", lambda: (ny() > pd.Timestamp("2024-03-10 12:00", tz="Asia/Tokyo")).sum())
t("cmp str", lambda: (ny() > "2024-03-10").sum())
t("cmp naive raises", lambda: (df.ts > pd.Timestamp("2024-03-10")).sum())
t("filter", lambda: df[df.ts.between("2024-03-09", "2024-03-10")].shape)
t("sub", lambda: (df.ts - df.ts.shift()).head())
t("sub scalar", lambda: (df.ts - base).head())
t("add td", lambda: (ny() + pd.Timedelta(days=1)).head())
t("add offset", lambda: (ny() + pd.offsets.Day(1)).head())
t("diff", lambda: df.ts.diff().describe())
t("gb date", lambda: df.groupby(ny().dt.date).v.sum())
t("gb hour", lambda: df.groupby(df.ts.dt.hour).v.mean().head())
t("gb ts agg", lambda: df.groupby("store").ts.agg(["min", "max", "count"]))
t("gb first", lambda: df.groupby("store").ts.first())
t("gb ts key", lambda: df.groupby("ts").v.sum().head())
t("set_index", lambda: df.set_index("ts").head())
t("resample", lambda: df.set_index("ts").v.resample("D").sum())
t("resample ny", lambda: df.assign(ts=ny()).set_index("ts").v.resample("D").mean())
t("rolling", lambda: df.dropna().set_index("ts").v.rolling("6h").sum().head())
t("loc str", lambda: df.dropna().set_index("ts").loc["2024-03-09"].shape)
t("loc slice", lambda: df.dropna().set_index("ts")
  .loc["2024-03-09 06:00":"2024-03-09 18:00"].v.sum())
t("sort", lambda: df.sort_values("ts", ascending=False).head())
t("vc", lambda: ny().dt.floor("D").value_counts())
t("unique", lambda: df.ts.dt.floor("D").unique())
t("nunique", lambda: df.nunique())
t("isna", lambda: df.ts.isna().sum())
t("fillna", lambda: df.ts.fillna(base).head())
t("ffill", lambda: df.ts.ffill().iloc[2:5])
t("astype str", lambda: ny().astype(str).head())
t("to_numpy", lambda: df.ts.head(3).to_numpy())
t("values", lambda: df.ts.head(3).values)
t("tolist", lambda: df.ts.head(3).tolist())
t("merge", lambda: df.merge(df[["ts", "k"]].dropna().head(10), on="ts").shape)
grid = pd.DataFrame({"ts": pd.date_range("2024-03-08", periods=10, freq="12h", tz="UTC"),
                     "x": range(10)})
t("merge_asof", lambda: pd.merge_asof(df.dropna().sort_values("ts"), grid, on="ts").head())
t("concat", lambda: pd.concat([df.ts, ny()]).dtype)
t("concat same", lambda: pd.concat([df, df]).ts.dtype)
t("where", lambda: df.ts.where(df.v > 0).head())
t("clip", lambda: df.ts.clip(lower=pd.Timestamp("2024-03-09", tz="UTC")).head())
t("isin", lambda: df.ts.isin(df.ts.head(5)).sum())
t("shift", lambda: df.ts.shift(2).head())
t("rank", lambda: df.ts.rank().head())
t("idxmax", lambda: df.ts.idxmax())
t("to_csv", lambda: df.head(4).to_csv())
t("to_dict", lambda: df.head(2).to_dict("records"))
t("pivot", lambda: df.assign(d=ny().dt.date).pivot_table(index="d", columns="store",
                                                        values="v", aggfunc="sum"))
t("eq", lambda: (df.ts == df.ts).sum())
t("period", lambda: ny().dt.to_period("D").head())
t("month_start", lambda: ny().dt.is_month_start.sum())
t("tz_convert utc", lambda: ny().dt.tz_convert("UTC").equals(df.ts))
t("iso", lambda: ny().head(2).apply(lambda x: x.isoformat()))
t("map", lambda: ny().head(3).map(lambda x: x.hour))
t("astype ns", lambda: df.ts.astype("datetime64[ns, UTC]").head(2))
t("astype naive raises", lambda: df.ts.astype("datetime64[ns]").head(2))
ist = datetime.timezone(datetime.timedelta(hours=5, minutes=30))
t("fixed offset", lambda: df.ts.dt.tz_convert(ist).head(3))
t("to_datetime utc", lambda: pd.to_datetime(
    pd.Series(["2024-01-01 10:00+01:00", "2024-06-01 10:00+02:00"]), utc=True))
t("index tz", lambda: pd.DatetimeIndex(df.ts.dropna()).tz_convert("Asia/Tokyo")[:3])
t("total", lambda: (df.ts.max() - df.ts.min()).total_seconds())
'''


def test_zoned_times_served_with_pandas_answers(tmp_path):
    _, funcs = profiled_under_accelerator(tmp_path, SCRIPT)
    for name in ["DatetimeProperties.tz_convert", "DatetimeProperties.floor", "Series.min",
                 "DataFrame.groupby", "DataFrame.set_index", "Series.to_numpy"]:
        assert funcs[name]["fast_calls"] >= 1, (name, funcs[name])
