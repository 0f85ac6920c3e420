"""interpolate and mode against pandas run side by side (exact values:
numpy's interp is what pandas calls): every method zambezi has, limit,
limit_direction and limit_area over random runs of missing values, float32,
numeric and datetime indexes, frames; mode of every kind of column, ties,
dropna, frames."""

import itertools

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import UnsupportedError


def _series(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    v = rng.normal(size=n) * 10
    v[rng.random(n) < rng.random()] = np.nan
    kind = seed % 4
    idx = None
    if kind == 0:
        idx = np.sort(rng.choice(1000, n, replace=False)).astype(float)
    elif kind == 1:
        idx = pd.DatetimeIndex(np.sort(rng.choice(10**6, n, replace=False)) * 10**9)
    s = pd.Series(v, index=idx)
    methods = ["linear"] + (["index", "values"] if kind == 0 else []) + \
        (["time", "index"] if kind == 1 else [])
    return (s.astype("float32") if seed % 5 == 0 else s), methods


@pytest.mark.parametrize("seed", range(24))
def test_series_interpolate_like_pandas(seed):
    s, methods = _series(seed)
    z = zb.Series(s)
    for m, lim, d, area in itertools.product(methods, [None, 1, 2],
                                             [None, "forward", "backward", "both"],
                                             [None, "inside", "outside"]):
        kw = {"method": m, "limit": lim, "limit_direction": d, "limit_area": area}
        pd.testing.assert_series_equal(z.interpolate(**kw).to_pandas(), s.interpolate(**kw),
                                       check_exact=True, obj=str(kw))


def test_frame_interpolate_like_pandas():
    df = pd.DataFrame({"a": [1.0, np.nan, 3, np.nan], "b": [np.nan, 2.0, np.nan, 5],
                       "i": [1, 2, 3, 4]})
    z = zb.from_pandas(df)
    for kw in [{}, {"limit_direction": "both"}, {"limit": 1, "limit_area": "inside"}]:
        pd.testing.assert_frame_equal(z.interpolate(**kw).to_pandas(), df.interpolate(**kw),
                                      check_exact=True)


def test_interpolate_errors():
    z = zb.Series([1.0, None, 3.0])
    with pytest.raises(ValueError, match="Limit must be greater than 0"):
        z.interpolate(limit=0)
    with pytest.raises(ValueError, match="Invalid limit_direction"):
        z.interpolate(limit_direction="up")
    with pytest.raises(ValueError, match="DatetimeIndex"):
        z.interpolate(method="time")
    with pytest.raises(UnsupportedError, match="polynomial"):
        z.interpolate(method="polynomial", order=2)
    with pytest.raises(TypeError, match="Cannot interpolate with string"):
        zb.Series(["a", None]).interpolate()


MODE_CASES = [
    pd.Series([3, 1, 3, 1, 2, None]), pd.Series([1.5, np.nan, np.nan]),
    pd.Series(["b", None, None, "a", "b", "a"]), pd.Series([], dtype=float),
    pd.Series([np.nan, np.nan]), pd.Series(np.arange(100) % 7, name="x"),
    pd.Series(pd.Categorical(["b", "a", "b", "a", "c"], categories=["c", "b", "a"])),
    pd.Series([True, False, True]),
    pd.Series(pd.to_datetime(["2024-01-02", "2024-01-01", None, "2024-01-02", "2024-01-01"])),
    pd.Series(np.random.default_rng(1).normal(size=50).round(1), index=np.arange(50)[::-1],
              name=7),
]


@pytest.mark.parametrize("case", range(len(MODE_CASES)))
@pytest.mark.parametrize("dropna", [True, False])
def test_series_mode_like_pandas(case, dropna):
    p = MODE_CASES[case]
    pd.testing.assert_series_equal(zb.Series(p).mode(dropna=dropna).to_pandas(),
                                   p.mode(dropna=dropna), check_index_type=False)


def test_frame_mode_like_pandas():
    df = pd.DataFrame({"a": [1.0, 2, 2, 1], "b": ["x", "y", "y", "z"], "c": [np.nan, 1.5, 1.5, 3]})
    z = zb.from_pandas(df)
    for kw in [{}, {"dropna": False}, {"numeric_only": True}]:
        pd.testing.assert_frame_equal(z.mode(**kw).to_pandas(), df.mode(**kw))
    # the everyday use: fill missing values with the most frequent one
    s = pd.Series(["x", None, "y", "x"])
    assert zb.Series(s).fillna(zb.Series(s).mode()[0]).to_list() == \
        s.fillna(s.mode()[0]).to_list()
