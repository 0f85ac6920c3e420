"""Scripts a notebook runs, printed under plain pandas and under the
accelerator (every frame tried on zambezi): the same bytes.  Each case was
once a difference: a bool column with missing values (pandas' objects)
turning bool after a head, the header of str.extract's named groups and of
repeated labels in to_csv, integer column labels after reset_index, a
reindex dropping the index name, rolling aggregate, quantiles of times."""

import pytest

from conftest import profiled_under_accelerator

CASES = {
    "bools with missing values stay objects": r'''
import pandas as pd
m = pd.DataFrame({"k": [1, 9, 2]}).merge(pd.DataFrame({"k": [1, 2], "vip": [True, False]}),
                                         on="k", how="left")
h = m.head(1)
print(m["vip"].dtype, h["vip"].dtype, (~h["vip"]).tolist())
print(m[m.k < 5]["vip"].dtype, m.iloc[:1]["vip"].dtype, m.sort_values("k").head(1)["vip"].dtype)
print(m.groupby("k")["vip"].first().tolist())
''',
    "csv headers of labels": r'''
import pandas as pd
s = pd.DataFrame({"c": ["$12.50 qty 3", "ok"]})["c"]
print(s.str.extract(r"\$(?P<price>\d+\.\d+) qty (?P<qty>\d+)").to_csv())
a = pd.DataFrame({"id": [1, 2], "x": [3, 4]})
b = pd.DataFrame({"id": [1, 2], "y": [5, 6]})
print(pd.concat([a, b], axis=1).to_csv())
print(pd.Series(["x1", "y", "x1"]).str.extract(r"(\d)").value_counts().to_csv())
''',
    "year columns after reset_index": r'''
import pandas as pd
df = pd.DataFrame({"store": ["S1", "S2", "S1"], "year": [2021, 2022, 2022],
                   "sales": [1.0, 2.0, 3.0]})
r = df.pivot_table(index="store", columns="year", values="sales", aggfunc="sum").reset_index()
print(r.columns.tolist(), r[2021].tolist())
print(r.to_csv())
u = df.groupby(["store", "year"])["sales"].sum().unstack().reset_index()
print(u[[2022, "store"]])
''',
    "reindex keeps the index name": r'''
import numpy as np
import pandas as pd
a = pd.DataFrame({"day": [1, 2], "sales": [1.5, np.nan]}).set_index("day")
print(a.reindex(range(4)).to_csv())
print(a["sales"].reindex([2, 7]))
''',
    "rolling aggregate and quantiles of times": r'''
import numpy as np
import pandas as pd
rng = np.random.default_rng(3)
idx = pd.DatetimeIndex(pd.date_range("2024-01-01", periods=30, freq="37min").values)
df = pd.DataFrame({"a": rng.normal(size=30), "b": rng.integers(0, 9, 30)}, index=idx)
print(df.rolling(3).agg(["mean", "max"]).to_csv())
print(df.rolling("2h").agg({"a": "sum", "b": ["min", "max"]}).to_csv())
print(df["b"].rolling(4).agg(max).to_csv())
td = pd.Series(pd.to_timedelta(rng.integers(0, 10**15, 30), unit="ns"))
print(td.quantile([0.1, 0.5, 0.9]), td.quantile(0.3))
print(pd.Series(idx).quantile(0.25))
''',
    "label selections, times of day, pairs, group extremes, text of times": r'''
import numpy as np
import pandas as pd
rng = np.random.default_rng(0)
df = pd.DataFrame({"a": rng.integers(0, 100, 60), "b": rng.normal(size=60).round(2),
                   "k": rng.choice(list("xyz"), 60), "t": rng.choice(["a1", " ", "", "b22"], 60),
                   "ts": pd.to_datetime("2024-01-01")
                   + pd.to_timedelta(rng.integers(0, 10**6, 60), unit="s")})
df.loc[:3, "b"] = np.nan
s = df.set_index("ts").sort_index()
print(s.between_time("09:00", "12:00")); print(s.at_time("00:00"))
print(s[["a", "b"]].shift(1, freq="h").head(3))
print(s.tz_localize("UTC").tz_convert("Asia/Tokyo").head(3))
print(df.set_axis(list("pqrst"), axis=1).head(2)); print(df.filter(like="a").head(2))
print(df.filter(regex="^[ab]$").head(2)); print(df.filter(items=[5, 1], axis=0))
print(df.truncate(before=5, after=9)); print(df["b"].first_valid_index(), df.last_valid_index())
g = df.groupby("k")
print(g["b"].nlargest(2)); print(g["a"].nsmallest(3)); print(g["b"].ohlc())
print(df[["k", "a", "b"]].groupby("k").ohlc())
print(df["a"].nlargest(3, keep="all")); print(df["a"].nsmallest(4, keep="last"))
print(df.nlargest(3, "a", keep="last")); print(df["b"].value_counts(bins=3))
print(df["b"].autocorr(), df["a"].dot(df["a"]))
print(df[["a", "b"]].fillna(0).dot(pd.Series([1.0, 2.0], index=["a", "b"])).head(3))
print(df[["a", "b"]].corrwith(df["a"] * 2)); print(df["a"] @ df["a"])
print(df["ts"].astype(str).head()); print(df["ts"].dt.isocalendar().head())
print(df["k"].str.slice_replace(0, 1, "Q").head())
print(df.replace(r"^\s*$", np.nan, regex=True).head(8))
print(df["t"].replace(r"(\w)(\d+)", r"\2\1", regex=True).head())
mi = df.set_index(["k", "a"]).sort_index()
print(mi.xs("x").head()); print(mi.xs(tuple(mi.index[0]))); print(mi.droplevel(0).head(3))
''',
    "calendar offsets, agg, to_numeric, factorize, sort keys": r'''
import numpy as np
import pandas as pd
s = pd.Series(pd.to_datetime(["2024-01-31 10:00", "2024-02-29", "2024-03-15", None,
                              "2023-12-31 23:59:59.5"], format="ISO8601"))
df = pd.DataFrame({"d": s, "v": range(5), "t": ["1", "2.5", "x", "4", None],
                   "k": ["Bo", "al", "Cy", "bo", "al"]})
print(df["d"] + pd.DateOffset(months=1)); print(df["d"] - pd.offsets.MonthEnd(1))
print(df["d"] + pd.offsets.MonthBegin(0)); print(pd.DateOffset(years=1) + df["d"])
print(df["d"].dt.tz_localize("UTC").dt.tz_convert("Europe/Paris") + pd.DateOffset(months=1))
print(df.assign(nxt=df["d"] + pd.DateOffset(days=3, hours=2)))
print(df[["v"]].agg(["sum", "mean"])); print(df["v"].agg("sum"), df["v"].agg(["min", "max"]))
print(pd.to_numeric(df["t"], errors="coerce")); print(pd.factorize(df["k"], sort=True))
print(df.sort_values("k", key=lambda c: c.str.lower(), kind="stable"))
print(df.groupby("k")["v"].quantile([0.5, 1.0])); print(df["k"].str.startswith(("B", "a")))
''',
}


@pytest.mark.parametrize("case", list(CASES))
def test_same_output(tmp_path, case):
    profiled_under_accelerator(tmp_path, CASES[case])


def test_reduction_scalars_of_no_values(tmp_path):
    # pandas gives Python's nan for a mean of no values and for min / max /
    # std / var / median of no rows, numpy scalars elsewhere: reprs differ
    profiled_under_accelerator(tmp_path, r'''
import numpy as np
import pandas as pd
cases = {"allnan": pd.Series([np.nan, np.nan]), "empty": pd.Series([], dtype=float),
         "one": pd.Series([1.0]), "onenan": pd.Series([1.0, np.nan]),
         "f32nan": pd.Series([np.nan], dtype="float32"), "int1": pd.Series([3]),
         "inf": pd.Series([np.inf, -np.inf]), "emptyint": pd.Series([], dtype="int64")}
for m in ["mean", "sum", "min", "max", "std", "var", "median", "prod", "sem", "skew", "kurt",
          "quantile"]:
    with np.errstate(all="ignore"):
        print(m, {k: repr(getattr(s, m)()) for k, s in cases.items()})
''')
