"""Group-by aggregations of times and durations against pandas run side
by side: mean / median / quantile of datetimes (naive and with a zone)
are datetimes, std a duration; durations keep their dtype for sum / mean
/ median / std, and min / max / first of either keep theirs when asked
together with those (they came back as int64 counts)."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import assert_frame_like, assert_series_like


def _data(n, seed, tz=None):
    rng = np.random.default_rng(seed)
    t = pd.Series(pd.to_datetime("2024-01-01") +
                  pd.to_timedelta(rng.integers(0, 10**9, n), "s"))
    if tz is not None:
        t = t.dt.tz_localize("UTC").dt.tz_convert(tz)
    t[rng.random(n) < 0.2] = pd.NaT
    d = pd.Series(pd.to_timedelta(rng.integers(0, 10**6, n), "ms"))
    d[rng.random(n) < 0.2] = pd.NaT
    return pd.DataFrame({"k": rng.integers(0, 5, n), "t": t, "d": d})


@pytest.mark.parametrize("tz", [None, "Europe/Paris"])
def test_times_per_group_vs_pandas(tz):
    pdf = _data(500, 3, tz)
    df = zb.DataFrame(pdf)
    for op in ("mean", "median", "std", "min", "max", "first", "last"):
        assert_series_like(getattr(df.groupby("k")["t"], op)(),
                           getattr(pdf.groupby("k")["t"], op)(), (op, tz))
    assert_series_like(df.groupby("k")["t"].quantile(0.3), pdf.groupby("k")["t"].quantile(0.3),
                       ("quantile", tz))
    spec = {"t": ["min", "mean", "max", "std"], "d": ["min", "mean", "sum", "max", "median"]}
    assert_frame_like(df.groupby("k").agg(spec), pdf.groupby("k").agg(spec), ("agg", tz))


def test_durations_keep_their_dtype_in_a_mixed_agg():
    pdf = _data(300, 4)[["k", "d"]]
    df = zb.DataFrame(pdf)
    for spec in (["min", "mean"], ["first", "sum", "std"], ["max", "median", "count"]):
        assert_frame_like(df.groupby("k").agg({"d": spec}), pdf.groupby("k").agg({"d": spec}),
                          spec)


@pytest.mark.parametrize("tz", [None, "UTC"])
def test_frame_reductions_of_times_vs_pandas(tz):
    pdf = _data(200, 5, tz)[["t", "d"]]
    pdf["t2"] = pdf["t"]
    df = zb.DataFrame(pdf)
    for op in ("mean", "median", "std", "min", "max"):
        assert_series_like(getattr(df[["t", "t2"]], op)(), getattr(pdf[["t", "t2"]], op)(),
                           (op, tz))
        assert_series_like(getattr(df[["d"]], op)(), getattr(pdf[["d"]], op)(), (op, tz))
    # a duration next to a number would need pandas' object Series: a clear error
    mixed = zb.DataFrame({"t": pdf["t"], "x": np.arange(len(pdf), dtype=float)})
    with pytest.raises(zb.errors.DTypeError, match="no common dtype"):
        mixed.std()
