"""User functions with engine="numba", differential against pandas.

pandas' own engine="numba" is the oracle where pandas has it (group-by agg
and transform, DataFrame.apply(raw=True), rolling.apply(raw=True)); for
Series.map / apply (pandas 3 takes no numba engine there) the oracle is
pandas' Python path.  Skipped when numba is not installed; the ImportError
without numba is checked (always) by hiding the module.
"""

import sys

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import assert_frame_like, assert_series_like
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

try:
    import numba  # noqa: F401
except ImportError:
    numba = None
needs_numba = pytest.mark.skipif(numba is None, reason="numba is not installed")


def _data(n=200, seed=3):
    rng = np.random.default_rng(seed)
    f = rng.normal(size=n)
    f[rng.random(n) < 0.15] = np.nan
    i = rng.integers(-50, 50, size=n).astype("float64")
    i[rng.random(n) < 0.1] = np.nan
    return pd.DataFrame({
        "k": rng.integers(0, 7, size=n),
        "f": f,
        "i": pd.array(i, dtype="Int64").astype("float64"),  # an int column with nulls
        "j": rng.integers(0, 1000, size=n),
    })


def _zb_frame(pdf):
    df = zb.DataFrame(pdf)
    return df


def _poly(v):
    # one function for most tests: numba compiles once per argument type
    # (seconds each), so the tests share what they can
    return v * 3.0 - 1.0 if v > 0 else -v * 1.0


@needs_numba
def test_series_map_numba_float_with_nulls():
    p = _data()["f"]
    z = zb.Series(p)
    assert_series_like(z.map(_poly, engine="numba"), p.map(_poly))
    # na_action="ignore": nulls stay null
    got = zb.Series([1.0, None, 4.0]).map(_poly, na_action="ignore", engine="numba")
    assert got.to_list() == [2.0, None, 11.0]


@needs_numba
def test_series_map_numba_int_with_and_without_nulls():
    vals = [5, None, -3, 12, None, 0]
    z = zb.Series(vals, dtype="int64")
    p = pd.Series(vals, dtype="float64")  # pandas passes NaN for the nulls
    assert_series_like(z.map(_poly, engine="numba"), p.map(_poly))
    z2 = zb.Series([5, 7, -3], dtype="int64")
    got = z2.apply(lambda v: v // 2, engine="numba")
    exp = pd.Series([5, 7, -3]).apply(lambda v: v // 2)
    assert_series_like(got, exp)
    assert got.to_list() == [2, 3, -2]  # an integer result stays integer
    b = zb.Series([True, False, True])
    assert b.map(lambda v: not v, engine="numba").to_list() == [False, True, False]


@needs_numba
def test_series_map_numba_bad_input():
    with pytest.raises(DTypeError, match="numeric"):
        zb.Series(["a", "é"]).map(lambda v: v, engine="numba")
    with pytest.raises(DTypeError, match="numba could not compile"):
        zb.Series([1.0]).map(lambda v: np.frombuffer(v), engine="numba")
    with pytest.raises(InvalidValueError, match="engine"):
        zb.Series([1.0]).map(lambda v: v, engine="cuda-magic")


@needs_numba
def test_kernels_are_cached_per_function():
    from zambezi import _numba

    zb.Series([1.0, None]).map(_poly, engine="numba")
    n = len(_numba._CACHE)
    assert zb.Series([3.0, None]).map(_poly, engine="numba").to_list() == [8.0, None]
    assert len(_numba._CACHE) == n


@needs_numba
def test_frame_apply_numba_rows_and_columns():
    p = _data()[["f", "i", "j"]]
    z = _zb_frame(p)

    def rowf(r):
        return np.nansum(r) * 2.0

    assert_series_like(z.apply(rowf, axis=1, raw=True, engine="numba"),
                       p.apply(rowf, axis=1, raw=True, engine="numba"))
    assert_series_like(z.apply(rowf, axis=0, raw=True, engine="numba"),
                       p.apply(rowf, axis=0, raw=True, engine="numba"))
    with pytest.raises(UnsupportedError, match="raw=True"):
        z.apply(rowf, axis=1, engine="numba")


@needs_numba
def test_groupby_agg_transform_numba():
    p = _data()[["k", "f", "i"]]  # float64 values: one compiled signature (seconds each)
    z = _zb_frame(p)

    def agg(values, index):
        return np.nanmax(values) - np.nanmin(values) + index.mean() * 0.001

    def tr(values, index):
        return values - np.nanmean(values)

    assert_frame_like(z.groupby("k").agg(agg, engine="numba"),
                      p.groupby("k").agg(agg, engine="numba"), rtol=1e-12)
    assert_series_like(z.groupby("k")["f"].agg(agg, engine="numba"),
                       p.groupby("k")["f"].agg(agg, engine="numba"), rtol=1e-12)
    assert_frame_like(z.groupby("k").transform(tr, engine="numba"),
                      p.groupby("k").transform(tr, engine="numba"), rtol=1e-12)
    assert_series_like(z.groupby("k")["i"].transform(tr, engine="numba"),
                       p.groupby("k")["i"].transform(tr, engine="numba"), rtol=1e-12)

    def bad(v, i):
        return v.sum()

    with pytest.raises(InvalidValueError, match="values"):
        z.groupby("k").agg(bad, engine="numba")


def _spread(w):
    return np.nanmax(w) - np.nanmin(w)


_WINDOWS = ({"window": 5}, {"window": 4, "min_periods": 2}, {"window": 5, "center": True})


@needs_numba
def test_rolling_apply_numba():
    p = _data()["f"]
    z = zb.Series(p)
    for kw in _WINDOWS:
        exp = p.rolling(**kw).apply(_spread, raw=True, engine="numba")
        assert_series_like(z.rolling(**kw).apply(_spread, raw=True, engine="numba"), exp)
    exp = p.expanding(3).apply(_spread, raw=True, engine="numba")
    assert_series_like(z.expanding(3).apply(_spread, raw=True, engine="numba"), exp)


def test_rolling_apply_python():
    # the default engine: func per window in Python (pandas' own as oracle)
    p = _data()["f"]
    z = zb.Series(p)
    for kw in _WINDOWS:
        assert_series_like(z.rolling(**kw).apply(_spread, raw=True),
                           p.rolling(**kw).apply(_spread, raw=True))
    q = _data()[["f", "j"]]
    assert_frame_like(_zb_frame(q).rolling(3).apply(lambda s: s.iloc[-1] * 2.0),
                      q.rolling(3).apply(lambda s: s.iloc[-1] * 2.0))
    # a window as a Series (raw=False): sums round as each library's sum does
    assert_series_like(z.expanding(2).apply(lambda s: s.sum(), raw=False),
                       p.expanding(2).apply(lambda s: s.sum(), raw=False), rtol=1e-12)


def test_engine_numba_without_numba(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # import numba then fails
    with pytest.raises(ImportError, match=r"zambezi\[numba\]"):
        zb.Series([1.0]).map(lambda v: v, engine="numba")
    with pytest.raises(ImportError, match=r"zambezi\[numba\]"):
        zb.DataFrame({"k": [1], "v": [1.0]}).groupby("k").agg(lambda values, index: 1.0,
                                                               engine="numba")


def _nan_at_two(v):
    return np.nan if v == 2.0 else v + 0.5


@needs_numba
@pytest.mark.parametrize("na_action", [None, "ignore"])
def test_series_map_numba_reads_and_writes_engine_memory(na_action):
    # the direct path: Numba reads the column's values and validity bitmap
    # and writes the result buffer; slices start at every bit offset, the
    # column spans several morsels and threads, a NaN result is null
    rng = np.random.default_rng(8)
    n = 70_001
    v = rng.integers(-3, 4, size=n).astype("float64")
    v[rng.random(n) < 0.2] = np.nan
    p, z = pd.Series(v), zb.Series(v)
    for start in (0, 1, 3, 7, 8, 13):
        ps, zs = p.iloc[start:start + 9000], z.iloc[start:start + 9000]
        exp = ps.map(_nan_at_two, na_action=na_action)
        got = zs.map(_nan_at_two, na_action=na_action, engine="numba")
        assert_series_like(got, exp)
        assert got.null_count == int(exp.isna().sum())
    got = z.map(_poly, na_action=na_action, engine="numba")
    assert_series_like(got, p.map(_poly, na_action=na_action))
    f32 = zb.Series(np.array([1.5, np.nan, -2.0], dtype=np.float32))
    got = f32.map(_poly, na_action=na_action, engine="numba")
    assert got.to_list() == [3.5, None, 2.0]  # _poly by hand; NaN gives NaN: null
    e = z.iloc[:0].map(_poly, na_action=na_action, engine="numba")
    assert len(e) == 0 and e.dtype == "float64"


@needs_numba
def test_series_map_numba_integer_results_and_inputs():
    z = zb.Series(np.arange(-5, 100_000, dtype=np.int64))
    got = z.map(lambda v: v * 2 - 1, engine="numba")
    assert got.dtype == "int64"
    np.testing.assert_array_equal(got.to_numpy(), np.arange(-5, 100_000) * 2 - 1)
    f = zb.Series([1.5, None, 2.5])
    got = f.map(lambda v: int(v) if v == v else -1, engine="numba")
    assert got.to_list() == pd.Series([1.5, np.nan, 2.5]).map(
        lambda v: int(v) if v == v else -1).to_list()


@needs_numba
def test_series_map_numba_integer_function_on_integers():
    # a function only integers compile for (a bitwise and) on a column
    # without nulls, exact beyond 2**53
    big = 2**62 + 1
    z = zb.Series(np.array([big, 6, 7], dtype=np.int64))
    got = z.map(lambda v: (v & 3) * big, engine="numba")
    assert got.to_list() == [big, 2 * big - 2**64, 3 * big - 2**64]


@needs_numba
def test_series_map_numba_fastmath_keeps_nan_results_null():
    # engine_kwargs fastmath=True must not hide a NaN result from the
    # validity the kernel writes
    z = zb.Series([1.0, 2.0, None, 3.0])
    got = z.map(_nan_at_two, engine="numba", engine_kwargs={"fastmath": True})
    assert got.to_list() == [1.5, None, None, 3.5]
    got = zb.Series([1.0, 2.0]).map(_nan_at_two, engine="numba",
                                     engine_kwargs={"fastmath": True})
    assert got.to_list() == [1.5, None]


@pytest.mark.parametrize("keys", ["g", ["g", "h"]])
@pytest.mark.parametrize("dropna", [True, False])
def test_python_functions_in_named_dict_and_list_agg(keys, dropna):
    # a lambda among named aggregations, in a dict (alone or in a list) or a
    # list: called per group as pandas does, beside the engine's names;
    # lambdas in a list of several are labelled <lambda_0>, <lambda_1> ...
    rng = np.random.default_rng(7)
    n = 120
    p = pd.DataFrame({"g": rng.choice(["a", "b", "c", None], n), "h": rng.integers(0, 3, n),
                      "v": rng.normal(size=n).round(3), "w": rng.integers(0, 50, n)})
    z = zb.from_pandas(p)
    calls = [
        lambda d: d.groupby(keys, dropna=dropna).agg(r=("v", lambda x: x.max() - x.min()),
                                                       s=("w", "sum")),
        lambda d: d.groupby(keys, dropna=dropna).agg({"v": lambda x: x.iloc[0],
                                                        "w": ["sum", lambda x: x.iloc[-1]]}),
        lambda d: d.groupby(keys, dropna=dropna)["w"].agg(["mean", lambda x: x.max(),
                                                           lambda x: (x > 25).sum()]),
        lambda d: d.groupby(keys, dropna=dropna)[["v", "w"]].agg(["min", lambda x: len(x)]),
    ]
    for call in calls:
        want, got = call(p), call(z).to_pandas()
        assert list(got.columns) == list(want.columns)
        assert list(got.index) == list(want.index) or \
            got.index.to_frame().fillna(-1).values.tolist() == \
            want.index.to_frame().fillna(-1).values.tolist()
        np.testing.assert_allclose(got.to_numpy(dtype=float), want.to_numpy(dtype=float),
                                   rtol=1e-12)


def test_apply_rows_giving_pandas_or_zambezi_series_make_columns():
    # df.apply(lambda r: pd.Series({...}), axis=1): the Series' labels become
    # columns, as pandas (a zambezi Series, or a pandas one in user code)
    p = pd.DataFrame({"v": [1.5, 2.5, None], "w": [1, 2, 3]}, index=["x", "y", "z"])
    z = zb.from_pandas(p)
    for make in (pd.Series, zb.Series):
        def f(r, make=make):
            return make({"a": r["w"] * 2, "b": r["w"] + 0.5})
        want = p.apply(lambda r: pd.Series({"a": r["w"] * 2, "b": r["w"] + 0.5}), axis=1)
        got = z.apply(f, axis=1).to_pandas()
        assert list(got.columns) == ["a", "b"] and list(got.index) == ["x", "y", "z"]
        np.testing.assert_allclose(got.to_numpy(dtype=float), want.to_numpy(dtype=float))


def test_partial_functions_in_agg_are_labelled_by_their_function():
    import functools
    p = pd.DataFrame({"g": ["a", "a", "b", "b", "b"], "v": [1, 2, 3, 4, 5]})
    funcs = [functools.partial(np.percentile, q=50), functools.partial(np.percentile, q=70)]
    want = p.groupby("g").agg({"v": funcs})
    got = zb.from_pandas(p).groupby("g").agg({"v": funcs}).to_pandas()
    assert list(got.columns) == list(want.columns) == [("v", "percentile")] * 2
    np.testing.assert_allclose(got.to_numpy(dtype=float), want.to_numpy(dtype=float))


def test_series_map_takes_pandas_3_1_arguments():
    """map(func, **kwargs) passes the keywords to func; arg= alone is func's
    former name (with pandas' deprecation warning); no func is pandas'
    ValueError; engine= with a dict is pandas' ValueError; an empty column
    keeps its dtype (Series and DataFrame.map). pandas is the oracle."""
    p = pd.Series([2, 4, 5])
    z = zb.Series(p)
    assert_series_like(z.map(lambda x, y: x + y, y=2), p.map(lambda x, y: x + y, y=2), "kw")
    assert_series_like(z.map(lambda _, arg: arg, arg=3), p.map(lambda _, arg: arg, arg=3),
                       "arg as a keyword of func")
    with pytest.warns(Warning, match="`arg` has been renamed to `func`") as seen:
        got = z.map(arg={2: "a", 5: "b"})
    with pytest.warns(Warning, match="`arg` has been renamed") as want_seen:
        want = p.map(arg={2: "a", 5: "b"})
    assert seen[0].category is want_seen[0].category
    assert_series_like(got, want, "arg=")
    for call in (lambda s: s.map(), lambda s: s.map(func=None),
                 lambda s: s.map({1: 2}, engine="something")):
        with pytest.raises(ValueError) as w:
            call(p)
        with pytest.raises(ValueError) as g:
            call(z)
        assert str(g.value) == str(w.value)
    for dtype in ("int64", "float64", "string"):
        pe = pd.Series([], dtype=dtype)
        assert zb.Series(pe).map(lambda x: x).dtype == dtype
    pf = pd.DataFrame({"A": [], "B": []})
    assert_frame_like(zb.DataFrame(pf).map(round), pf.map(round), "empty frame map")
