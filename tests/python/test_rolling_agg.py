"""rolling / expanding ``aggregate`` (``agg``) and column selection
(``df.rolling(3)["a"]``) against pandas run side by side: names, lists,
dicts (flat and nested), functions (``apply(func, raw=False)``, as pandas),
Python's max / min, time windows, expanding, group-by windows.  Values are
compared exactly where pandas' own statistic is, std within 1e-12."""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import InvalidValueError, UnsupportedError


def _frames(seed=3, n=50):
    rng = np.random.default_rng(seed)
    v = rng.normal(size=n)
    v[::7] = np.nan
    df = pd.DataFrame({"a": v, "b": rng.integers(0, 9, n).astype(float),
                       "c": rng.normal(size=n)},
                      index=pd.date_range("2024-01-01", periods=n, freq="37min"))
    return df, zb.from_pandas(df)


def _check(f, exact=True):
    df, z = _frames()
    want, got = f(df), f(z).to_pandas()
    kw = {"check_exact": True} if exact else {"check_exact": False, "rtol": 1e-12}
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want, **kw)
    else:
        pd.testing.assert_series_equal(got, want, **kw)


CASES = {
    "name": lambda d: d.rolling(3).agg("mean"),
    "name with args": lambda d: d.rolling(3).aggregate("quantile", 0.3),
    "list of a frame": lambda d: d.rolling(3).agg(["mean", "max"]),
    "list of a Series": lambda d: d["a"].rolling(3).agg(["sum", "min", "count"]),
    "dict": lambda d: d.rolling(3).agg({"a": "sum", "c": "min"}),
    "nested dict": lambda d: d.rolling(3).agg({"a": ["sum", "count"], "c": "min"}),
    "numpy function": lambda d: d.rolling(3).agg(np.mean),
    "lambda in a list": lambda d: d["b"].rolling(4).agg(["sum", lambda w: w.max() - w.min()]),
    "builtin max, min": lambda d: d[["b", "c"]].rolling(3, min_periods=1).agg([max, min, "max"]),
    "time window": lambda d: d.rolling("2h").agg(["sum", "mean"]),
    "expanding": lambda d: d.expanding().agg(["sum", "mean"]),
    "expanding dict": lambda d: d.expanding(2).agg({"b": "max"}),
    "select one column": lambda d: d.rolling(3)["a"].mean(),
    "select and agg": lambda d: d.rolling(3)[["a", "b"]].agg("sum"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_like_pandas(case):
    _check(CASES[case])


def test_std_in_a_list():
    _check(lambda d: d["a"].rolling(3).agg(["mean", "std"]), exact=False)
    _check(lambda d: d.rolling(3)[["a", "c"]].std(), exact=False)


@pytest.mark.parametrize("cols", ["a", ["a", "c"]])
def test_group_windows(cols):
    df, _ = _frames()
    g = df.assign(k=np.random.default_rng(4).integers(0, 3, len(df)))
    zg = zb.from_pandas(g)
    want = g.groupby("k")[cols].rolling(3).agg(["mean", "max"])
    got = zg.groupby("k")[cols].rolling(3).agg(["mean", "max"]).to_pandas()
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_errors():
    df, z = _frames()
    with pytest.raises(AttributeError, match="'nope' is not a valid function for 'Rolling'"):
        z.rolling(2).agg("nope")
    with pytest.raises(AttributeError):
        df.rolling(2).agg("nope")
    # Python's max over NaN depends on where the NaN is: pandas' per-window call
    with pytest.raises(UnsupportedError, match="Python's max of windows with missing"):
        z.rolling(3).agg(max)
    with pytest.raises(InvalidValueError, match="nested renamer"):
        z["a"].rolling(2).agg({"a": "sum"})
    with pytest.raises(UnsupportedError, match="group-by window"):
        zb.from_pandas(df.assign(k=1)).groupby("k").rolling(2)["a"]


def test_apply_windows_are_float64_with_nan():
    # pandas passes each window as a float64 Series, NaN for a missing value
    s = pd.Series([1, 2, None, 4, 5], dtype="Int64")
    def f(w):
        return float(np.isnan(w.to_numpy(dtype=float)).sum() * 10 + w.dtype.itemsize)

    want = s.astype(float).rolling(2, min_periods=1).apply(f, raw=False)
    got = zb.Series(s).rolling(2, min_periods=1).apply(f, raw=False).to_pandas()
    pd.testing.assert_series_equal(got, want, check_dtype=False)
