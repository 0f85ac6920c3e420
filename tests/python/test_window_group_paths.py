"""Differential tests against pandas of the group-by window paths: rolling
count / sum / mean and ewm mean / sum, whose rows are gathered into group
order before the engine walks each group in place, and rank per group,
sorted within each group.

Shapes that stress the layouts: interleaved groups, one group, many
groups of one row, groups smaller than the window, null and NaN values,
int and float columns, a null key (dropna True and False), row labels that
are not 0..n-1, and sizes that cross the engine's morsels (65536 rows),
with 1 and 2 threads.  pandas runs side by side.
"""

import zlib

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from pandas_compare import assert_series_like
from zambezi import _convert, _core

MORSEL = 65536
TOL = {"rtol": 1e-9, "atol": 1e-12}


@pytest.fixture(params=[1, 2])
def threads(request):
    before = zb.get_num_threads()
    zb.set_num_threads(request.param)
    yield request.param
    zb.set_num_threads(before)


def frame(shape, n, rng, kind="float"):
    """A frame with key k and values v of the given shape."""
    if shape == "interleaved":
        k = np.arange(n) % 7
    elif shape == "one":
        k = np.full(n, 3)
    elif shape == "singletons":
        k = rng.permutation(n)
    elif shape == "small":  # groups of 1 to 4 rows, smaller than the windows
        k = rng.integers(0, max(n // 2, 1), n)
    else:  # "random": many groups, some large
        k = rng.integers(0, 50, n)
    if kind == "float":
        v = rng.standard_normal(n) * 10
        v[rng.random(n) < 0.15] = np.nan
        v = pd.Series(v)
    else:  # nullable ints: nulls, not NaN
        v = pd.Series(pd.array(rng.integers(-50, 50, n), dtype="Int64"))
        v[rng.random(n) < 0.15] = pd.NA
    return pd.DataFrame({"k": k, "v": v})


SHAPES = ["interleaved", "one", "singletons", "small", "random"]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", ["float", "int"])
def test_group_rolling_shapes(shape, kind, threads):
    rng = np.random.default_rng(zlib.crc32(f"roll/{shape}/{kind}".encode()))
    p = frame(shape, 300, rng, kind)
    z = zb.DataFrame(p)
    for w, mp in ((1, None), (3, None), (5, 2), (400, 1), (400, None)):
        for op in ("count", "sum", "mean"):
            exp = getattr(p.groupby("k")["v"].rolling(w, min_periods=mp), op)()
            got = getattr(z.groupby("k")["v"].rolling(w, min_periods=mp), op)()
            assert_series_like(got, exp, f"{shape} {kind} rolling({w}, {mp}).{op}", **TOL)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", ["float", "int"])
def test_group_ewm_shapes(shape, kind, threads):
    rng = np.random.default_rng(zlib.crc32(f"ewm/{shape}/{kind}".encode()))
    p = frame(shape, 300, rng, kind)
    if kind == "int":
        p["v"] = p["v"].astype("float64")  # pandas' ewm of Int64 with NA: float64 anyway
    z = zb.DataFrame(p)
    for kw in ({"span": 4}, {"alpha": 0.3, "adjust": False}, {"com": 2, "ignore_na": True},
               {"halflife": 3, "min_periods": 3}, {"alpha": 0.5, "adjust": False,
                                                   "ignore_na": True, "min_periods": 2}):
        for op in ("mean", "sum"):
            if op == "sum" and kw.get("adjust") is False:
                continue
            exp = getattr(p.groupby("k")["v"].ewm(**kw), op)()
            got = getattr(z.groupby("k")["v"].ewm(**kw), op)()
            assert_series_like(got, exp, f"{shape} {kind} ewm({kw}).{op}", **TOL)


@pytest.mark.parametrize("dropna", [True, False])
def test_group_windows_null_key_and_labels(dropna):
    rng = np.random.default_rng(11)
    n = 200
    k = rng.choice(np.array(["x", "y", None, "w"], dtype=object), n)
    v = rng.standard_normal(n)
    v[rng.random(n) < 0.2] = np.nan
    for index in (pd.RangeIndex(5, 5 + 2 * n, 2), pd.Index([f"r{i}" for i in range(n)]),
                  pd.RangeIndex(n)):
        p = pd.DataFrame({"k": k, "v": v}, index=index)
        z = zb.DataFrame(p)
        gp, gz = p.groupby("k", dropna=dropna), z.groupby("k", dropna=dropna)
        assert_series_like(gz["v"].rolling(4, min_periods=2).mean(),
                           gp["v"].rolling(4, min_periods=2).mean(), f"rolling {dropna}", **TOL)
        assert_series_like(gz["v"].rolling(3).count(), gp["v"].rolling(3).count(),
                           f"rolling count {dropna}", **TOL)
        assert_series_like(gz["v"].ewm(span=5).mean(), gp["v"].ewm(span=5).mean(),
                           f"ewm {dropna}", **TOL)
        assert_series_like(gz["v"].rank(), gp["v"].rank(), f"rank {dropna}")


def test_group_windows_across_morsels(threads):
    rng = np.random.default_rng(5)
    n = 3 * MORSEL + 123
    p = pd.DataFrame({"k": rng.integers(0, 2000, n), "v": rng.standard_normal(n)})
    p.loc[rng.random(n) < 0.05, "v"] = np.nan
    z = zb.DataFrame(p)
    assert_series_like(z.groupby("k")["v"].rolling(20).mean(),
                       p.groupby("k")["v"].rolling(20).mean(), "rolling mean", **TOL)
    assert_series_like(z.groupby("k")["v"].ewm(span=20).mean(),
                       p.groupby("k")["v"].ewm(span=20).mean(), "ewm mean", **TOL)
    for method in ("average", "min", "max", "first", "dense"):
        assert_series_like(z.groupby("k")["v"].rank(method=method, pct=True),
                           p.groupby("k")["v"].rank(method=method, pct=True), f"rank {method}")


def values(col):
    """An engine float64 column as numpy, NaN where null."""
    out = np.array(col.values(), dtype=float)
    mask = _convert.null_mask(col)
    if mask is not None:
        out[mask] = np.nan
    return out


def test_engine_window_ids_in_any_order():
    """The engine's grouped windows give the same values whether the rows
    come in group order (each group walked in place) or not (the rows of
    each group found by a counting sort)."""
    rng = np.random.default_rng(3)
    n = 5000
    ids = rng.integers(0, 300, n)
    v = rng.standard_normal(n)
    v[rng.random(n) < 0.1] = np.nan
    order = np.argsort(ids, kind="stable")
    col = _core.column_from_buffer(v)
    scol = _core.column_from_buffer(np.ascontiguousarray(v[order]))
    icol = _core.column_from_buffer(ids.astype(np.int64))
    sicol = _core.column_from_buffer(np.ascontiguousarray(ids[order]).astype(np.int64))
    for op in ("count", "sum", "mean", "std", "median"):
        a = values(_core.rolling(col, op, 7, 2, False, 1, 0.5, "linear", icol, 300))
        b = values(_core.rolling(scol, op, 7, 2, False, 1, 0.5, "linear", sicol, 300))
        np.testing.assert_allclose(b, a[order], rtol=1e-12, equal_nan=True, err_msg=op)


@pytest.mark.parametrize("n", [0, 7, 3 * MORSEL + 11])
def test_engine_group_order_vs_numpy(n, threads):
    """group_order: the rows by group then row (null ids left out) and the
    ids in that order, as numpy's stable argsort and a gather give them;
    an id out of range is named."""
    rng = np.random.default_rng(n + 1)
    for ng in (1, 300, 70000):
        ids = rng.integers(0, ng, n)
        miss = rng.random(n) < 0.1
        col = _core.column_from_buffer(ids.astype(np.int64), mask=miss)
        order, sorted_ids = _core.group_order(col, ng)
        keep = np.flatnonzero(~miss)
        want = keep[np.argsort(ids[keep], kind="stable")]
        np.testing.assert_array_equal(np.asarray(order.values()), want, err_msg=str(ng))
        np.testing.assert_array_equal(np.asarray(sorted_ids.values()), ids[want])
        assert order.null_count == 0 and sorted_ids.null_count == 0
    if n:
        bad = ids.astype(np.int64)
        bad[n // 2] = ng
        with pytest.raises(IndexError, match=f"at row {n // 2}"):
            _core.group_order(_core.column_from_buffer(bad), ng)


RANK_SHAPES = ["interleaved", "one", "singletons", "small", "random"]


@pytest.mark.parametrize("shape", RANK_SHAPES)
@pytest.mark.parametrize("kind", ["float", "int", "tied"])
def test_group_rank_every_option(shape, kind, threads):
    rng = np.random.default_rng(zlib.crc32(f"rank/{shape}/{kind}".encode()))
    p = frame(shape, 240, rng, "int" if kind == "int" else "float")
    if kind == "tied":  # few distinct floats, -0.0 and 0.0, NaN
        p["v"] = rng.choice(np.array([0.0, -0.0, 1.5, -2.0, np.nan, 7.0]), len(p))
    z = zb.DataFrame(p)
    for method in ("average", "min", "max", "first", "dense"):
        for ascending in (True, False):
            for na_option in ("keep", "top", "bottom"):
                for pct in (False, True):
                    kw = dict(method=method, ascending=ascending, na_option=na_option, pct=pct)
                    exp = p.groupby("k")["v"].rank(**kw)
                    got = z.groupby("k")["v"].rank(**kw).to_pandas()
                    what = f"{shape} {kind} rank {kw}"
                    np.testing.assert_array_equal(got.index, exp.index, err_msg=what)
                    np.testing.assert_allclose(got.to_numpy(dtype=float, na_value=np.nan),
                                               exp.to_numpy(dtype=float, na_value=np.nan),
                                               rtol=1e-15, equal_nan=True, err_msg=what)


def test_group_rank_dtypes():
    rng = np.random.default_rng(9)
    n = 500
    k = rng.integers(0, 20, n)
    cols = {"i8": rng.integers(-3, 3, n).astype("int8"),
            "u64": rng.integers(0, 5, n).astype("uint64"),
            "f32": rng.choice(np.array([1.5, -0.0, 0.0, np.nan], dtype="float32"), n),
            "b": rng.random(n) < 0.5,
            "t": pd.to_datetime(rng.integers(0, 5, n), unit="D"),
            "s": rng.choice(np.array(["b", "a", "c"], dtype=object), n)}
    p = pd.DataFrame({"k": k, **cols})
    z = zb.DataFrame(p)
    for method in ("average", "first", "dense"):
        for c in cols:
            exp = p.groupby("k")[c].rank(method=method, ascending=False)
            got = z.groupby("k")[c].rank(method=method, ascending=False).to_pandas()
            np.testing.assert_allclose(got.to_numpy(dtype=float, na_value=np.nan),
                                       exp.to_numpy(dtype=float, na_value=np.nan),
                                       equal_nan=True, err_msg=f"{c} {method}")


def test_group_rank_large_group_and_small_ones():
    """A group larger than the per-group sort takes (2^18 rows) next to
    small ones: ranked by the global sort of (group, value) instead."""
    rng = np.random.default_rng(21)
    n = (1 << 18) + 5000
    k = np.where(rng.random(n) < 0.98, 0, rng.integers(1, 400, n))
    v = rng.integers(0, 1000, n).astype("float64")
    v[rng.random(n) < 0.01] = np.nan
    p = pd.DataFrame({"k": k, "v": v})
    z = zb.DataFrame(p)
    for kw in ({"method": "average"}, {"method": "dense", "pct": True, "na_option": "top"},
               {"method": "first", "ascending": False, "na_option": "bottom"}):
        exp = p.groupby("k")["v"].rank(**kw)
        got = z.groupby("k")["v"].rank(**kw).to_pandas()
        np.testing.assert_allclose(got.to_numpy(dtype=float, na_value=np.nan),
                                   exp.to_numpy(dtype=float, na_value=np.nan),
                                   rtol=1e-15, equal_nan=True, err_msg=str(kw))


@pytest.mark.parametrize("dropna", [True, False])
def test_group_windows_as_index_false(dropna):
    """pandas' rolling per group with as_index=False gives a frame: the keys
    as its first columns, then the values, indexed by the original labels;
    its expanding and ewm keep the (key, label) index whatever as_index."""
    from pandas_compare import assert_frame_like

    rng = np.random.default_rng(17)
    n = 120
    k = rng.choice(np.array(["x", "y", None, "w"], dtype=object), n)
    j = rng.integers(0, 3, n)
    v = rng.standard_normal(n)
    v[rng.random(n) < 0.2] = np.nan
    w = rng.standard_normal(n)
    for index in (pd.RangeIndex(n), pd.Index([f"r{i}" for i in range(n)], name="lab")):
        p = pd.DataFrame({"k": pd.array(k, dtype="str"), "j": j, "v": v, "w": w}, index=index)
        z = zb.DataFrame(p)
        for keys in ("k", ["k", "j"]):
            gp = p.groupby(keys, as_index=False, dropna=dropna)
            gz = z.groupby(keys, as_index=False, dropna=dropna)
            what = f"{keys} dropna={dropna} {type(index).__name__}"
            for op in ("sum", "mean", "count", "std", "median"):
                exp = getattr(gp["v"].rolling(3, min_periods=1), op)()
                assert isinstance(exp, pd.DataFrame)
                got = getattr(gz["v"].rolling(3, min_periods=1), op)()
                assert_frame_like(got, exp, f"{what} ['v'].rolling.{op}", **TOL)
            assert_frame_like(gz[["w", "v"]].rolling(2).max(), gp[["w", "v"]].rolling(2).max(),
                              f"{what} [['w', 'v']].rolling.max", **TOL)
            assert_frame_like(gz.rolling(4, min_periods=2).mean(),
                              gp.rolling(4, min_periods=2).mean(), f"{what} rolling.mean",
                              **TOL)
            assert_series_like(gz["v"].expanding().sum(), gp["v"].expanding().sum(),
                               f"{what} expanding", **TOL)
            assert_series_like(gz["v"].ewm(span=3).mean(), gp["v"].ewm(span=3).mean(),
                               f"{what} ewm", **TOL)
            assert_frame_like(gz[["v", "w"]].ewm(com=1).std(), gp[["v", "w"]].ewm(com=1).std(),
                              f"{what} frame ewm", **TOL)


def assert_same_levels(got, exp, what):
    """got (a zambezi MultiIndex) has pandas' MultiIndex exp's levels and
    codes, not only its values: a missing group key is a level value."""
    def labels(level):  # dtypes as zambezi shows them: int64 for Int64 with no NA ...
        return [None if pd.isna(x) else x for x in level]

    got = got.to_pandas()
    assert got.nlevels == exp.nlevels, what
    for i in range(exp.nlevels):
        assert labels(got.levels[i]) == labels(exp.levels[i]), f"{what}: level {i}"
        np.testing.assert_array_equal(got.codes[i], exp.codes[i], err_msg=f"{what}: codes {i}")


@pytest.mark.parametrize("kind", ["str", "int", "float", "time"])
def test_group_windows_missing_key_is_a_level(kind):
    rng = np.random.default_rng(zlib.crc32(f"nullkey/{kind}".encode()))
    n = 90
    raw = rng.integers(0, 4, n)
    miss = rng.random(n) < 0.2
    if kind == "str":
        k = pd.array(np.where(miss, None, np.array(["d", "b", "a", "c"])[raw]), dtype="str")
    elif kind == "int":
        k = pd.array(np.where(miss, None, raw * 3 - 2), dtype="Int64")
    elif kind == "float":
        k = np.where(miss, np.nan, raw * 0.5 - 1)
    else:
        k = pd.Series(pd.Timestamp("2024-03-01") + pd.to_timedelta(raw, unit="h"))
        k[miss] = pd.NaT
    v = rng.standard_normal(n)
    v[rng.random(n) < 0.2] = np.nan
    p = pd.DataFrame({"k": k, "j": rng.integers(0, 3, n), "v": v},
                     index=pd.Index(rng.permutation(n) + 50))
    z = zb.DataFrame(p)
    for dropna in (False, True):
        for sort in (True, False):
            for keys in ("k", ["j", "k"]):
                gp = p.groupby(keys, dropna=dropna, sort=sort)
                gz = z.groupby(keys, dropna=dropna, sort=sort)
                what = f"{kind} {keys} dropna={dropna} sort={sort}"
                for name, f in (("rolling", lambda g: g["v"].rolling(3, min_periods=1).sum()),
                                ("expanding", lambda g: g["v"].expanding().mean()),
                                ("ewm", lambda g: g["v"].ewm(span=3).mean()),
                                ("frame ewm", lambda g: g[["v"]].ewm(com=1).mean())):
                    exp, got = f(gp), f(gz)
                    if name.startswith("frame"):
                        from pandas_compare import assert_frame_like
                        assert_frame_like(got, exp, f"{what} {name}", **TOL)
                    else:
                        assert_series_like(got, exp, f"{what} {name}", **TOL)
                    if not dropna or keys == "k":
                        assert_same_levels(got.index, exp.index, f"{what} {name}")
                if keys != "k" and not dropna:  # an aggregation's MultiIndex of keys alike
                    assert_same_levels(gz["v"].sum().index, gp["v"].sum().index,
                                       f"{what} sum")
