"""Differential tests of rank (zambezi._rank) against pandas: every method
x ascending x na_option x pct on a Series with ties and missing values,
every dtype rank takes (nullable integers, floats with NaN, boolean,
strings, categoricals whose categories are not in string order,
timestamps), DataFrame.rank (numeric_only), group-by rank (a Series
selection and whole frames; null keys, a group whose values are all
missing), sizes that cross the engine's morsels (65536 rows) with runs of
ties longer than a morsel, thread counts 1 and 3, labelled indexes that
results keep, and bad arguments.

pandas runs side by side; results are compared with pandas_compare, exactly
(ranks and their quotients are computed the same way).
"""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import assert_frame_like, assert_series_like
from zambezi import _core
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError
from conftest import seed_for

MORSEL = 65536
METHODS = ["average", "min", "max", "first", "dense"]
NA_OPTIONS = ["keep", "top", "bottom"]


def gen(dtype, n, rng, null_p=0.2, distinct=6):
    """A pandas Series of dtype with about null_p missing values and few
    distinct values (so that ties are common)."""
    mask = rng.random(n) < null_p
    k = rng.integers(0, distinct, size=n)
    if dtype in ("Int64", "UInt8", "Int8"):
        base = {"Int64": -3, "UInt8": 250, "Int8": -128}[dtype]
        vals = (k + base).astype(dtype.lower())
        return pd.Series(pd.arrays.IntegerArray(vals, mask))
    if dtype in ("float32", "float64"):
        vals = ((k - 2) * 0.5).astype(dtype)
        vals[k == 2] = -0.0 if dtype == "float64" else 0.0  # -0.0 ties with 0.0
        vals[rng.random(n) < 0.05] = np.inf
        vals[mask] = np.nan
        return pd.Series(vals)
    if dtype == "boolean":
        return pd.Series(pd.arrays.BooleanArray(k % 2 == 0, mask))
    if dtype == "string":
        words = np.array(["", "a", "ab", "B", "zeta", "ß", "é"], dtype=object)
        vals = words[k % len(words)]
        vals[mask] = None
        return pd.Series(vals, dtype="string")
    if dtype == "category":
        codes = k % 3
        codes[mask] = -1
        return pd.Series(pd.Categorical.from_codes(codes, categories=["y", "x", "z"]))
    if dtype == "timestamp":
        vals = (k * 86_400_000_000 - 10**12).astype("datetime64[us]")
        vals[mask] = np.datetime64("NaT")
        return pd.Series(vals)
    raise AssertionError(dtype)


def prank(obj, **kw):
    """pandas' rank, with the UInt64 ranks pandas gives for its nullable
    (masked) dtypes with methods min / max / first / dense made float64:
    zambezi's ranks are always float64 (zambezi._rank's docstring)."""
    r = obj.rank(**kw)
    if isinstance(r, pd.Series):
        return r.astype("Float64") if str(r.dtype) == "UInt64" else r
    return r.astype({c: "Float64" for c in r.columns if str(r[c].dtype) == "UInt64"})


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("ascending", [True, False])
@pytest.mark.parametrize("na_option", NA_OPTIONS)
def test_series_options(method, ascending, na_option):
    rng = np.random.default_rng(seed_for(method, ascending, na_option))
    ps = gen("float64", 300, rng)
    ps.index = pd.Index(rng.permutation(300) * 3, name="lbl")
    ps.name = "v"
    zs = zb.Series(ps)
    for pct in (False, True):
        kw = dict(method=method, ascending=ascending, na_option=na_option, pct=pct)
        assert_series_like(zs.rank(**kw), prank(ps, **kw), f"rank({kw})")


@pytest.mark.parametrize("dtype", ["Int64", "UInt8", "Int8", "float32", "boolean", "string",
                                   "category", "timestamp"])
def test_series_dtypes(dtype):
    rng = np.random.default_rng(len(dtype))
    ps = gen(dtype, 500, rng)
    zs = zb.Series(ps)
    for method, ascending, na_option, pct in [("average", True, "keep", False),
                                              ("min", False, "top", True),
                                              ("dense", True, "bottom", True),
                                              ("first", False, "keep", False),
                                              ("max", True, "top", False)]:
        kw = dict(method=method, ascending=ascending, na_option=na_option, pct=pct)
        assert_series_like(zs.rank(**kw), prank(ps, **kw), f"{dtype} rank({kw})")


def test_across_morsels(threads):
    """Runs of ties longer than a morsel, and runs across morsel edges:
    the carry between morsels (group start, dense count) is exercised."""
    rng = np.random.default_rng(7)
    n = 2 * MORSEL + 1234
    ps = gen("float64", n, rng, null_p=0.1, distinct=3)
    zs = zb.Series(ps)
    for method in METHODS:
        for na_option, pct in (("keep", True), ("top", False)):
            kw = dict(method=method, na_option=na_option, pct=pct)
            assert_series_like(zs.rank(**kw), prank(ps, **kw), f"rank({kw})")


def test_hand_computed():
    s = zb.Series([2.0, None, 1.0, 2.0, 2.0])
    assert s.rank().to_list() == [3.0, None, 1.0, 3.0, 3.0]
    assert s.rank(method="min").to_list() == [2.0, None, 1.0, 2.0, 2.0]
    assert s.rank(method="max", ascending=False).to_list() == [3.0, None, 4.0, 3.0, 3.0]
    assert s.rank(method="first", ascending=False).to_list() == [1.0, None, 4.0, 2.0, 3.0]
    assert s.rank(method="dense", na_option="top").to_list() == [3.0, 1.0, 2.0, 3.0, 3.0]
    assert s.rank(method="dense", pct=True).to_list() == [1.0, None, 0.5, 1.0, 1.0]
    assert s.rank(na_option="bottom", pct=True).to_list() == [0.6, 1.0, 0.2, 0.6, 0.6]
    d = zb.Series(np.array(["2021-03-01", "2020-01-01", "2021-03-01"], dtype="datetime64[D]"))
    assert d.astype("date32").rank(method="min").to_list() == [2.0, 1.0, 2.0]


def test_empty_and_all_missing():
    assert_series_like(zb.Series(pd.Series([], dtype="float64")).rank(pct=True),
                       pd.Series([], dtype="float64").rank(pct=True))
    ps = pd.Series([np.nan, np.nan, np.nan])
    for na_option in NA_OPTIONS:
        assert_series_like(zb.Series(ps).rank(na_option=na_option, pct=True),
                           ps.rank(na_option=na_option, pct=True), na_option)


def _frame(rng, n):
    return pd.DataFrame({
        "i": gen("Int64", n, rng),
        "f": gen("float64", n, rng),
        "b": gen("boolean", n, rng),
        "s": gen("string", n, rng),
        "t": gen("timestamp", n, rng),
    }, index=pd.Index([f"r{i}" for i in range(n)]))


@pytest.mark.parametrize("numeric_only", [False, True])
def test_frame(numeric_only):
    rng = np.random.default_rng(11)
    pdf = _frame(rng, 400)
    zdf = zb.DataFrame(pdf)
    for method, na_option, pct in [("average", "keep", False), ("dense", "top", True),
                                   ("first", "bottom", False)]:
        kw = dict(method=method, na_option=na_option, pct=pct, numeric_only=numeric_only)
        assert_frame_like(zdf.rank(**kw), prank(pdf, **kw), f"rank({kw})")


def _grouped(rng, n):
    """Keys a..e and missing ones; group 'e' has only missing values."""
    keys = np.array(["a", "b", "c", "d", "e", None], dtype=object)
    k = keys[rng.integers(0, len(keys), size=n)]
    pdf = pd.DataFrame({"k": pd.Series(k, dtype="string"),
                        "v": gen("float64", n, rng),
                        "s": gen("string", n, rng),
                        "i": gen("Int64", n, rng)})
    pdf.loc[pdf["k"] == "e", "v"] = np.nan
    pdf.index = pd.RangeIndex(5, 5 + 2 * n, 2)
    return pdf


@pytest.mark.parametrize("method", METHODS)
def test_groupby(method):
    rng = np.random.default_rng(len(method))
    pdf = _grouped(rng, 600)
    zdf = zb.DataFrame(pdf)
    for ascending, na_option, pct in [(True, "keep", False), (False, "top", True),
                                      (True, "bottom", True)]:
        kw = dict(method=method, ascending=ascending, na_option=na_option, pct=pct)
        assert_series_like(zdf.groupby("k")["v"].rank(**kw), prank(pdf.groupby("k")["v"], **kw),
                           f"gb[v].rank({kw})")
        assert_frame_like(zdf.groupby("k").rank(**kw), prank(pdf.groupby("k"), **kw),
                          f"gb.rank({kw})")


def test_groupby_across_morsels(threads):
    rng = np.random.default_rng(3)
    n = 2 * MORSEL + 99
    pdf = pd.DataFrame({"k": rng.integers(0, 3, size=n),
                        "v": gen("float64", n, rng, null_p=0.05, distinct=4)})
    zdf = zb.DataFrame(pdf)
    for method in ("average", "dense", "first"):
        kw = dict(method=method, pct=True, na_option="keep")
        assert_series_like(zdf.groupby("k")["v"].rank(**kw), prank(pdf.groupby("k")["v"], **kw),
                           f"gb[v].rank({kw})")


def test_series_groupby_dropna_false():
    rng = np.random.default_rng(5)
    pdf = _grouped(rng, 200)
    zdf = zb.DataFrame(pdf)
    got = zdf["v"].groupby(zdf["k"], dropna=False).rank(method="min")
    assert_series_like(got, prank(pdf["v"].groupby(pdf["k"], dropna=False), method="min"))


def test_bad_arguments():
    s = zb.Series([1, 2])
    with pytest.raises(InvalidValueError, match="method"):
        s.rank(method="mean")
    with pytest.raises(InvalidValueError, match="na_option"):
        s.rank(na_option="first")
    with pytest.raises(DTypeError, match="numeric_only"):
        zb.Series(["a"]).rank(numeric_only=True)
    with pytest.raises(UnsupportedError, match="axis=1"):
        zb.DataFrame({"a": [1]}).rank(axis=1)
    with pytest.raises(InvalidValueError, match="axis"):
        s.rank(axis=1)
    with pytest.raises(InvalidValueError, match="method"):
        zb.DataFrame({"k": [1], "a": [1]}).groupby("k").rank(method="x")
    ids = zb.Series([0, 5])._col
    with pytest.raises(IndexError, match="outside"):
        _core.rank(s._col, "average", True, "keep", False, ids, 2)
    with pytest.raises(ValueError, match="group ids"):
        _core.rank(s._col, "average", True, "keep", False, zb.Series([0])._col, 1)
