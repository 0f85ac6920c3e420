"""Group-by ffill / bfill (limit), ngroup and transform by a method name
(pandas' transformation names: "ffill", "cumsum", "rank", "shift"...),
against pandas run side by side: random keys with dropped (missing) keys,
missing values in numbers, strings and times, one and two keys, sort and
dropna both ways."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import SUM_TOL, assert_frame_like, assert_series_like


def _data(n, seed):
    rng = np.random.default_rng(seed)
    k = rng.choice(np.array(["a", "b", "c", None], dtype=object), n, p=[0.4, 0.3, 0.2, 0.1])
    v = rng.normal(size=n)
    v[rng.random(n) < 0.5] = np.nan
    s = pd.Series(rng.choice(["x", "yy", "z"], n), dtype="str")
    s[rng.random(n) < 0.4] = None
    t = pd.Series(pd.to_datetime("2024-01-01") + pd.to_timedelta(rng.integers(0, 99, n), "D"))
    t[rng.random(n) < 0.3] = pd.NaT
    return pd.DataFrame({"k": k, "k2": rng.integers(0, 3, n), "v": v, "s": s, "t": t})


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("limit", [None, 1, 2])
def test_group_ffill_bfill_vs_pandas(seed, limit):
    pdf = _data(400, seed)
    df = zb.DataFrame(pdf)
    for keys in ("k", ["k", "k2"]):
        for how in ("ffill", "bfill"):
            what = (keys, how, limit)
            # (an int column with a dropped key's row is Int64 here, float64 in
            # pandas: a documented difference, so the frames hold no int value)
            sel = ["v", "s", "t"]
            assert_frame_like(getattr(df.groupby(keys)[sel], how)(limit=limit),
                              getattr(pdf.groupby(keys)[sel], how)(limit=limit), what)
            if keys != "k":
                assert_frame_like(getattr(df.groupby(keys), how)(limit=limit),
                                  getattr(pdf.groupby(keys), how)(limit=limit), what)
            assert_series_like(getattr(df.groupby(keys)["v"], how)(limit=limit),
                               getattr(pdf.groupby(keys)["v"], how)(limit=limit), what)
            assert_series_like(df.groupby(keys)["s"].transform(how, limit=limit),
                               pdf.groupby(keys)["s"].transform(how, limit=limit), what)


def test_group_fill_of_a_series_and_errors():
    pdf = _data(200, 7)
    s, ps = zb.Series(pdf["v"]), pdf["v"]
    key = pdf["k2"]
    assert_series_like(s.groupby(zb.Series(key)).ffill(), ps.groupby(key).ffill(), "Series")
    with pytest.raises(zb.errors.InvalidValueError):
        zb.DataFrame(pdf).groupby("k").ffill(limit=0)


@pytest.mark.parametrize("sort", [True, False])
@pytest.mark.parametrize("dropna", [True, False])
def test_ngroup_vs_pandas(sort, dropna):
    pdf = _data(300, 3)
    df = zb.DataFrame(pdf)
    for keys in ("k", ["k", "k2"]):
        for asc in (True, False):
            got = df.groupby(keys, sort=sort, dropna=dropna).ngroup(ascending=asc).to_pandas()
            exp = pdf.groupby(keys, sort=sort, dropna=dropna).ngroup(ascending=asc)
            if exp.dtype == "float64":  # a dropped key: null in Int64 here, as cumcount
                assert str(got.dtype) == "Int64"
                got = got.astype("float64")
            assert_series_like(got, exp, (keys, sort, dropna, asc))


@pytest.mark.parametrize("name", ["ffill", "bfill", "cumsum", "cummax", "cummin", "cumcount",
                                  "rank", "diff", "pct_change", "ngroup"])
def test_transform_by_a_method_name_vs_pandas(name):
    pdf = _data(300, 5)[["k", "k2", "v"]]
    pdf["k"] = pdf["k"].fillna("d")  # frames: no dropped key (see above)
    df = zb.DataFrame(pdf)
    assert_series_like(df.groupby("k")["v"].transform(name),
                       pdf.groupby("k")["v"].transform(name), name, **SUM_TOL)
    got = df[["k2", "v"]].groupby("k2").transform(name)
    exp = pdf[["k2", "v"]].groupby("k2").transform(name)
    if isinstance(exp, pd.Series):
        assert_series_like(got, exp, name, **SUM_TOL)
    else:
        assert_frame_like(got, exp, name, **SUM_TOL)
